"""Charts for the balance-study report (matplotlib, Agg backend, no display needed).

Every function takes a pandas DataFrame (schemas in each docstring), writes `out` as PNG (150
dpi) and SVG, and returns (png_path, svg_path). `out` may be given with or without a .png/.svg
suffix. Every chart has a title, axis labels with units, and a footnote naming the policy and
the number of games it rests on. Rates in frames are fractions (0..1); charts show percent.
"""
from __future__ import annotations

import textwrap
from pathlib import Path

import functools

import matplotlib
import matplotlib.ticker
import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from .stats import pair_table, spies_label, wilson

# The rulebook's difficulty levels by spies added at setup (Bethel Woods, "Increasing the
# Difficulty"); the rulebook names no level for 0 spies, "Normal" is ours for the base game.
DIFFICULTY = {0: "Normal", 1: "Hard", 2: "Hard", 3: "Insane", 4: "Insane", 5: "Impossible"}
# Bethel Woods' three ways to lose (rulebook, "Losing the Game"), in that order.
LOSS_REASONS = {
    "bag_empty": "Malfunction bag ran out",
    "four_critical": "4+ machines critical",
    "six_spies": "All 6 spies on the board",
}
# Okabe-Ito: distinguishable with the common colour-vision deficiencies
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442",
           "#000000"]
LINESTYLES = ["-", "--", ":", "-."]
MARKERS = ["o", "s", "^", "D"]
DPI = 150
NOTE_COLOUR = "#444444"

# Applied inside each chart function only (rc_context): importing this module changes no global
# matplotlib state, and figures are drawn on an Agg canvas without pyplot, so it works the same
# in a script, a test or a notebook with another backend.
STYLE = {
    "font.size": 10.5,
    "axes.titlesize": 11.5,
    "axes.labelsize": 10.5,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.color": "#e6e6e6",
    "grid.linewidth": 0.8,
    "legend.frameon": False,
    "svg.hashsalt": "boardsim",  # the same data gives the same SVG bytes
    "svg.fonttype": "none",  # text stays text: searchable, smaller
}


def _styled(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with matplotlib.rc_context(STYLE):
            return fn(*args, **kwargs)
    return wrapper


def _figure(figsize) -> Figure:
    fig = Figure(figsize=figsize, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def chart_paths(out) -> tuple[Path, Path]:
    """The PNG and SVG a chart named `out` is written to (`x`, `x.png` or `x.svg`: x.png and x.svg)."""
    p = Path(out)
    if p.suffix.lower() in (".png", ".svg"):
        p = p.with_suffix("")
    return p.with_name(p.name + ".png"), p.with_name(p.name + ".svg")


def _paths(out) -> tuple[Path, Path]:
    png, svg = chart_paths(out)
    png.parent.mkdir(parents=True, exist_ok=True)
    return png, svg


def _require(df: pd.DataFrame, cols, what: str) -> None:
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"{what} must be a pandas DataFrame, got {type(df).__name__}")
    missing = [c for c in cols if c not in df.columns]
    if missing:
        raise ValueError(f"{what} needs columns {missing}, has {list(df.columns)}")
    if df.empty:
        raise ValueError(f"{what} has no rows")


def _n(x: float) -> str:
    return f"{int(x):,}"


def _games_phrase(games: pd.Series, unit: str) -> str:
    g = games.astype(np.int64)
    total = int(g.sum())
    if g.min() == g.max():
        each = f"{_n(g.min())} games per {unit}"
    else:
        each = f"{_n(g.min())} to {_n(g.max())} games per {unit}"
    return f"{each}, {_n(total)} in all" if len(g) > 1 else f"{_n(total)} games"


def _policy_phrase(policies) -> str:
    ps = sorted({str(p) for p in policies})
    return ("Policy: " if len(ps) == 1 else "Policies: ") + ", ".join(ps)


def _finish(fig, out, title: str, note: str, legend=None) -> tuple[Path, Path]:
    """Lay out the panels, then put the title above them, the shared legend (handles, labels,
    ncol) below them and the footnote below that, and write PNG and SVG."""
    r = fig.canvas.get_renderer()
    fig.get_layout_engine().execute(fig)  # the constrained layout of the panels, no drawing
    fig.set_layout_engine("none")  # freeze it: the texts below are placed around the panels
    w_in, h_in = fig.get_figwidth(), fig.get_figheight()
    bb = fig.get_tightbbox(r)
    left, top, bottom = bb.x0 / w_in, bb.y1 / h_in, bb.y0 / h_in
    fig.text(left, top + 0.1 / h_in, title, ha="left", va="bottom", fontsize=13.5,
             fontweight="bold")
    if legend is not None:
        handles, labels, ncol = legend
        leg = fig.legend(handles, labels, loc="upper center", ncol=ncol, fontsize=9.5,
                         bbox_to_anchor=(0.5 * (bb.x0 + bb.x1) / w_in, bottom - 0.05 / h_in))
        bottom = leg.get_window_extent(r).y0 / fig.dpi / h_in
    width_chars = max(60, int((bb.x1 - bb.x0) * 14))
    fig.text(left, bottom - 0.08 / h_in, textwrap.fill(note, width_chars), ha="left", va="top",
             fontsize=9, color=NOTE_COLOUR, linespacing=1.35)
    png, svg = _paths(out)
    fig.savefig(png, dpi=DPI, bbox_inches="tight", pad_inches=0.15, metadata={"Software": None})
    fig.savefig(svg, bbox_inches="tight", pad_inches=0.15, metadata={"Date": None})
    return png, svg


def _grid(n: int, ncols: int, w: float, h: float, **kw):
    ncols = max(1, min(ncols, n))
    nrows = -(-n // ncols)
    fig = _figure((w * ncols, h * nrows))
    axes = fig.subplots(nrows, ncols, squeeze=False, **kw)
    flat = axes.ravel()
    for ax in flat[n:]:
        ax.set_visible(False)
    return fig, flat[:n]


def _pct_axis(ax, axis: str = "y") -> None:
    fmt = matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}%")
    (ax.yaxis if axis == "y" else ax.xaxis).set_major_formatter(fmt)


@_styled
def difficulty_curve(df: pd.DataFrame, out, title: str = "Bethel Woods: win rate by difficulty"):
    """Win rate against spies added (0..5, with the rulebook's difficulty names).

    df: one row per cell, columns players, spies, difficulty (name), policy, games, wins, and
    optionally rules (a variant name: one panel per variant). One line per players x policy,
    with a shaded 95% Wilson band.
    """
    _require(df, ["players", "spies", "difficulty", "policy", "games", "wins"], "df")
    d = df.copy()
    has_rules = "rules" in d.columns and d["rules"].nunique() > 1
    variants = list(dict.fromkeys(d["rules"])) if has_rules else [None]  # in the frame's order
    fig, axes = _grid(len(variants), 2, 6.4, 4.2, sharey=True)
    names = {int(s): str(n) for s, n in zip(d["spies"], d["difficulty"])}
    players = sorted(d["players"].unique())
    policies = sorted(d["policy"].unique())
    top = 0.0
    for ax, variant in zip(axes, variants):
        part = d if variant is None else d[d["rules"] == variant]
        for (pl, pol), g in part.groupby(["players", "policy"], sort=True):
            g = g.groupby("spies", as_index=False)[["games", "wins"]].sum().sort_values("spies")
            lo, hi = wilson(g["wins"].to_numpy(), g["games"].to_numpy())
            rate = 100 * g["wins"] / g["games"]
            colour = PALETTE[players.index(pl) % len(PALETTE)]
            style = LINESTYLES[policies.index(pol) % len(LINESTYLES)]
            label = f"{pl} players" + (f", {pol}" if len(policies) > 1 else "")
            ax.fill_between(g["spies"], 100 * lo, 100 * hi, color=colour, alpha=0.18, lw=0)
            ax.plot(g["spies"], rate, color=colour, ls=style, lw=2,
                    marker=MARKERS[policies.index(pol) % len(MARKERS)], ms=5, label=label)
            top = max(top, float(np.nanmax(100 * hi)))
        spies = sorted(set(range(6)) | set(int(s) for s in d["spies"]))
        ax.set_xticks(spies)
        ax.set_xticklabels([f"{s}\n{names.get(s, DIFFICULTY.get(s, ''))}" for s in spies])
        ax.set_xlabel("Spies added at setup (difficulty level)")
        ax.set_ylabel("Win rate (%)")
        _pct_axis(ax)
        if variant is not None:
            ax.set_title(f"Rules: {variant}", loc="left")
        ax.grid(axis="x", visible=False)
    for ax in axes:
        ax.set_ylim(0, min(100, top * 1.08 + 0.5))
    axes[-1].legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), title=None)
    note = (f"{_policy_phrase(policies)}. {_games_phrase(d['games'], 'point')}. "
            "Shaded bands: 95% Wilson intervals.")
    return _finish(fig, out, title, note)


@_styled
def loss_reasons(df: pd.DataFrame, out, title: str = "Bethel Woods: why games are lost"):
    """Shares of lost games by reason, stacked, by spies added; one panel per player count
    (and per policy when there are several).

    df: the difficulty cells with loss counts: players, spies, policy, games, wins, bag_empty,
    four_critical, six_spies. Lost games = games - wins; losses no reason accounts for show as
    "other".
    """
    _require(df, ["players", "spies", "policy", "games", "wins", *LOSS_REASONS], "df")
    d = df.groupby(["policy", "players", "spies"], as_index=False)[
        ["games", "wins", *LOSS_REASONS]].sum()
    d["lost"] = d["games"] - d["wins"]
    if (d[list(LOSS_REASONS)].sum(axis=1) > d["lost"]).any():
        raise ValueError("loss counts add up to more than the lost games (games - wins)")
    d["other"] = d["lost"] - d[list(LOSS_REASONS)].sum(axis=1)
    panels = list(d.groupby(["policy", "players"], sort=True))
    fig, axes = _grid(len(panels), 3, 3.7, 3.6, sharey=True)
    reasons = list(LOSS_REASONS) + (["other"] if d["other"].sum() > 0 else [])
    colours = {"bag_empty": PALETTE[0], "four_critical": PALETTE[5], "six_spies": PALETTE[3],
               "other": "#b0b0b0"}
    labels = {**LOSS_REASONS, "other": "Other / no reason recorded"}
    multi_policy = d["policy"].nunique() > 1
    for ax, ((pol, pl), g) in zip(axes, panels):
        g = g.sort_values("spies")
        bottom = np.zeros(len(g))
        with np.errstate(invalid="ignore", divide="ignore"):
            for r in reasons:
                share = np.where(g["lost"] > 0, 100 * g[r] / g["lost"], 0.0)
                ax.bar(g["spies"], share, bottom=bottom, color=colours[r], width=0.72,
                       label=labels[r], edgecolor="white", lw=0.5)
                bottom += share
        for x, lost in zip(g["spies"], g["lost"]):
            ax.text(x, 101.5, f"{_n(lost)}", ha="center", va="bottom", fontsize=7.5,
                    color=NOTE_COLOUR, rotation=0)
        ax.set_title(f"{pl} players" + (f", {pol}" if multi_policy else ""), loc="left", pad=14)
        ax.set_xticks(g["spies"])
        ax.set_xlabel("Spies added at setup")
        ax.set_ylabel("Share of lost games (%)")
        ax.set_ylim(0, 109)
        ax.set_yticks(range(0, 101, 25))
        _pct_axis(ax)
        ax.grid(axis="x", visible=False)
    handles, labs = axes[0].get_legend_handles_labels()
    note = (f"{_policy_phrase(d['policy'])}. {_games_phrase(d['games'], 'bar')}. "
            "Number above a bar: lost games it rests on. Difficulty: 0 spies Normal, 1-2 Hard, "
            "3-4 Insane, 5 Impossible.")
    return _finish(fig, out, title, note, legend=(handles, labs, len(reasons)))


@_styled
def game_length(hist: pd.DataFrame, out, title: str = "Bethel Woods: how long games last"):
    """The distribution of game length in turns, one line per spies count; one panel per player
    count (and policy).

    hist: counts per turn number, columns players, spies, policy, turns, games.
    """
    _require(hist, ["players", "spies", "policy", "turns", "games"], "hist")
    h = hist.groupby(["policy", "players", "spies", "turns"], as_index=False)["games"].sum()
    panels = list(h.groupby(["policy", "players"], sort=True))
    fig, axes = _grid(len(panels), 3, 3.8, 3.4)
    cmap = matplotlib.colormaps["viridis"]
    spies_all = sorted(h["spies"].unique())
    multi_policy = h["policy"].nunique() > 1
    per_cell = h.groupby(["policy", "players", "spies"])["games"].sum()
    # one y scale per policy, from its highest point (a scale shared with a flatter policy's
    # panels cut the random policy's peaks off)
    top = (100 * h["games"] / h.groupby(["policy", "players", "spies"])["games"].transform("sum")
           ).groupby(h["policy"]).max() * 1.06
    for ax, ((pol, pl), g) in zip(axes, panels):
        for s, gs in g.groupby("spies", sort=True):
            gs = gs.sort_values("turns")
            share = 100 * gs["games"] / gs["games"].sum()
            colour = cmap(spies_all.index(s) / max(1, len(spies_all) - 1) * 0.82)
            ax.plot(gs["turns"], share, color=colour, lw=1.8,
                    label=f"{spies_label(s)} ({DIFFICULTY.get(int(s), '')})")
        ax.set_title(f"{pl} players" + (f", {pol}" if multi_policy else ""), loc="left")
        ax.set_xlabel("Game length (turns)")
        ax.set_ylabel("Share of games (%)")
        ax.set_ylim(0, float(top[pol]))
        ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))   # whole turns
        _pct_axis(ax)
    handles, labs = axes[0].get_legend_handles_labels()
    note = f"{_policy_phrase(h['policy'])}. {_games_phrase(per_cell, 'line')}."
    return _finish(fig, out, title, note, legend=(handles, labs, min(6, len(labs))))


def _character_order(names) -> list[str]:
    try:
        from simcore.bethel_woods.rules import CHARACTERS
    except Exception:  # the chart works without the engine package
        CHARACTERS = ()
    known = [c for c in CHARACTERS if c in names]
    return known + sorted(set(names) - set(known))


@_styled
def character_heatmap(sets: pd.DataFrame, out,
                      title: str = "Bethel Woods: win rate by pair of characters"):
    """Win rates of character pairs; one panel per (players, spies).

    sets: one row per character set, columns players, spies, characters ("Nova,Harris"),
    games, wins, significant (bool), and optionally policy. With 2 players a cell is the set of
    that pair and is marked (boxed, starred) when `significant` is True. With 3-4 players a
    cell pools all sets containing the pair (stats.pair_table) and is marked when that pair
    differs from the other sets by a chi-square test, Holm-adjusted p < 0.05. Colour: the cell's
    rate minus the panel's overall rate; the number in a cell is its win rate in %.
    """
    _require(sets, ["players", "spies", "characters", "games", "wins", "significant"], "sets")
    if "policy" not in sets.columns:
        raise ValueError("sets needs a policy column: every chart names its policy")
    pairs = pair_table(sets)
    two = sets[sets["players"] == 2]
    flagged = set()
    for sp, chars, sig in zip(two["spies"], two["characters"], two["significant"]):
        if bool(sig):
            a, b = sorted(c.strip() for c in str(chars).split(","))
            flagged.add((2, int(sp), a, b))
    panels = list(pairs.groupby(["players", "spies"], sort=True))
    names = _character_order(set(pairs["a"]) | set(pairs["b"]))
    k = len(names)
    fig, axes = _grid(len(panels), 3, 4.3, 4.3)
    lim = 0.0
    grids = []
    for (pl, sp), g in panels:
        tot = sets[(sets["players"] == pl) & (sets["spies"] == sp)]
        overall = tot["wins"].sum() / tot["games"].sum()
        m = np.full((k, k), np.nan)
        mark = np.zeros((k, k), dtype=bool)
        for a, b, rate, sig in zip(g["a"], g["b"], g["rate"], g["significant"]):
            i, j = names.index(a), names.index(b)
            m[i, j] = m[j, i] = rate
            s = (2, int(sp), a, b) in flagged if pl == 2 else bool(sig)
            mark[i, j] = mark[j, i] = s
        grids.append((pl, sp, overall, m, mark))
        lim = max(lim, float(np.nanmax(np.abs(m - overall))) * 100)
    lim = max(lim, 0.5)
    image = None
    for ax, (pl, sp, overall, m, mark) in zip(axes, grids):
        dev = 100 * (m - overall)
        image = ax.imshow(np.ma.masked_invalid(dev), cmap="RdBu", vmin=-lim, vmax=lim)
        for i in range(k):
            for j in range(k):
                if np.isnan(m[i, j]):
                    continue
                strong = abs(dev[i, j]) > 0.6 * lim
                ax.text(j, i, f"{100 * m[i, j]:.0f}" if m[i, j] >= 0.095 else
                        f"{100 * m[i, j]:.1f}", ha="center", va="center", fontsize=7,
                        color="white" if strong else "#222222")
                if mark[i, j]:
                    ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False,
                                           ec="black", lw=1.6))
                    ax.text(j + 0.42, i - 0.42, "*", ha="right", va="top", fontsize=8,
                            fontweight="bold", color="black")
        ax.set_xticks(range(k))
        ax.set_yticks(range(k))
        ax.set_xticklabels(names, rotation=45, ha="right", fontsize=8.5)
        ax.set_yticklabels(names, fontsize=8.5)
        ax.grid(False)
        for side in ("left", "bottom"):
            ax.spines[side].set_visible(False)
        ax.tick_params(length=0)
        ax.set_title(f"{pl} players, {spies_label(sp)} ({DIFFICULTY.get(int(sp), '')})\n"
                     f"overall {100 * overall:.1f}%", loc="left", fontsize=10.5)
    cbar = fig.colorbar(image, ax=list(axes), shrink=0.8, pad=0.02)
    cbar.set_label("Difference from the panel's overall rate (percentage points)")
    pol = _policy_phrase(sets["policy"]) + ". "
    per_panel = sets.groupby(["players", "spies"])["games"].sum()
    note = (f"{pol}{_games_phrase(per_panel, 'panel')}. Numbers: win rate (%) of the pair "
            "(3-4 players: all sets containing it). Boxed *: significant after Holm "
            "adjustment (p < 0.05).")
    return _finish(fig, out, title, note)


@_styled
def character_forest(effects: pd.DataFrame, out, *, policy: str | None = None,
                     games: int | None = None, p_name: str = "p",
                     title: str = "Bethel Woods: character effects on the odds of winning"):
    """A forest plot of odds ratios with 95% intervals and a line at 1 (no effect).

    effects: columns term (character name), odds_ratio, or_low, or_high, p_value, as returned by
    stats.logit_effects (the Intercept row is left out). The policy and the number of games come
    from `policy` and `games`, or from columns of the same names.
    """
    _require(effects, ["term", "odds_ratio", "or_low", "or_high", "p_value"], "effects")
    e = effects[effects["term"] != "Intercept"].sort_values("odds_ratio").reset_index(drop=True)
    if policy is None and "policy" in effects.columns:
        policy = ", ".join(sorted(effects["policy"].astype(str).unique()))
    if games is None and "games" in effects.columns:
        games = int(effects["games"].max())
    if policy is None or games is None:
        raise ValueError("character_forest needs policy= and games= (or such columns): "
                         "every chart names its policy and game count")
    fig = _figure((7.6, 0.42 * len(e) + 1.6))
    ax = fig.subplots()
    y = np.arange(len(e))
    sig = e["p_value"] < 0.05
    ax.axvline(1.0, color="#555555", lw=1, ls="--", zorder=1)
    ax.hlines(y, e["or_low"], e["or_high"], color=PALETTE[0], lw=2, zorder=2)
    ax.scatter(e["odds_ratio"][sig], y[sig], s=42, color=PALETTE[0], zorder=3,
               label=f"{p_name} < 0.05")
    ax.scatter(e["odds_ratio"][~sig], y[~sig], s=42, facecolor="white", edgecolor=PALETTE[0],
               lw=1.6, zorder=3, label=f"{p_name} ≥ 0.05")
    ax.set_yticks(y)
    ax.set_yticklabels(e["term"])
    ax.set_xscale("log")
    lo, hi = float(e["or_low"].min()), float(e["or_high"].max())
    span = max(hi / 1.0, 1.0 / lo, 1.05)
    ax.set_xlim(min(lo, 1 / span) / 1.08, max(hi, span) * 1.08)
    ticks = [t for t in (0.25, 0.5, 0.67, 0.8, 0.9, 1, 1.1, 1.25, 1.5, 2, 4)
             if ax.get_xlim()[0] <= t <= ax.get_xlim()[1]]
    ax.set_xticks(ticks)
    ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    ax.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
    ax.set_xlabel("Odds ratio of winning (log scale; 1 = no effect)")
    ax.grid(axis="y", visible=False)
    ax.set_ylim(-0.7, len(e) - 0.3)
    for yi, (o, l, h) in enumerate(zip(e["odds_ratio"], e["or_low"], e["or_high"])):
        ax.annotate(f"{o:.2f} ({l:.2f}–{h:.2f})", (1.0, yi), xycoords=("axes fraction", "data"),
                    xytext=(8, 0), textcoords="offset points", va="center", fontsize=8.5,
                    color=NOTE_COLOUR, annotation_clip=False)
    ax.legend(loc="lower right", bbox_to_anchor=(1.0, 1.0), ncol=2, fontsize=9,
              borderaxespad=0.2)
    note = (f"Policy: {policy}. Logistic regression on {_n(games)} games. Lines: 95% "
            f"intervals; filled dots: {p_name} < 0.05 (the p_value column given).")
    return _finish(fig, out, title, note)


def _leaves_label(leaves: str) -> str:
    """A configuration's legend entry: "equal start", "printed leaves" (the rulebook's 1,3,4,5 cut
    to the players: one entry for every panel) or "leaves 0,3,4"."""
    if str(leaves) == "equal":
        return "equal start"
    return "printed leaves (1,3 / 1,3,4 / 1,3,4,5)" if str(leaves) == "printed" else f"leaves {leaves}"


def _timeout_share(rows: pd.DataFrame) -> float:
    """Share of one configuration's games that timed out (0 when the frame has no timeouts)."""
    if "timeouts" not in rows.columns or rows.empty:
        return 0.0
    t, g = rows["timeouts"].iloc[0], rows["games"].iloc[0]
    if pd.isna(t) or not g:       # a frame without the count for this configuration, or no games
        return 0.0
    return float(t) / float(g)


@_styled
def seat_bars(seats: pd.DataFrame, out, title: str = "Benevolent: win rate by seat"):
    """Win rate per seat with error bars and the fair share; one panel per player count, one
    bar per (leaves, policy) within each seat.

    seats: columns players, leaves ("printed", "equal" or a vector "1,3,4"), policy, games, seat (1 = the first player), wins,
    ci_low, ci_high (fractions), and optionally timeouts (games of that configuration won by no
    seat). The fair share is 1/players of the decided games, games - timeouts: one dashed line
    per panel, or a dash over each bar when the configurations' timeout rates differ.
    """
    _require(seats, ["players", "leaves", "policy", "games", "seat", "wins", "ci_low",
                     "ci_high"], "seats")
    s = seats.copy()
    s["rate"] = s["wins"] / s["games"]
    multi_policy = s["policy"].nunique() > 1
    s["config"] = [_leaves_label(lv) + (f", {p}" if multi_policy else "")
                   for lv, p in zip(s["leaves"], s["policy"])]
    panels = list(s.groupby("players", sort=True))
    fig, axes = _grid(len(panels), 3, 3.7, 3.6, sharey=True)
    configs = list(dict.fromkeys(s.sort_values(["leaves"], key=lambda c: c != "equal")["config"]))
    top = 0.0
    for ax, (pl, g) in zip(axes, panels):
        here = [c for c in configs if c in set(g["config"])]
        width = 0.8 / max(1, len(here))
        for ci, cfg in enumerate(here):
            gc = g[g["config"] == cfg].sort_values("seat")
            x = gc["seat"].to_numpy() - 1 + (ci - (len(here) - 1) / 2) * width
            r = 100 * gc["rate"].to_numpy()
            err = np.vstack([r - 100 * gc["ci_low"].to_numpy(), 100 * gc["ci_high"].to_numpy() - r])
            ax.bar(x, r, width=width * 0.92, color=PALETTE[configs.index(cfg) % len(PALETTE)],
                   label=cfg, yerr=err, capsize=3, error_kw={"lw": 1.1, "ecolor": "#333333"})
            top = max(top, float((100 * gc["ci_high"]).max()))
        # A timed-out game is won by no seat, so equal seats each win 1/players of the decided
        # games: the line sits there (at 1/players when the frame has no timeouts column).
        shares = {cfg: 100 * (1 - _timeout_share(g[g["config"] == cfg])) / pl for cfg in here}
        if max(shares.values()) - min(shares.values()) < 0.05:
            fair = float(np.mean(list(shares.values())))
            ax.axhline(fair, color="#333333", ls="--", lw=1.1)
            ax.annotate(f"fair share {fair:.1f}%", (1.0, fair), xycoords=("axes fraction", "data"),
                        xytext=(-2, 4), textcoords="offset points", ha="right", fontsize=8.5,
                        color="#333333")
        else:   # configurations with different timeout rates: one dash over each bar
            for ci, cfg in enumerate(here):
                x = np.arange(pl) + (ci - (len(here) - 1) / 2) * width
                ax.hlines(np.full(pl, shares[cfg]), x - width / 2, x + width / 2,
                          color="#333333", ls="--", lw=1.1,
                          label="fair share of the decided games" if ci == 0 else None)
        ax.set_xticks(range(pl))
        ax.set_xticklabels([f"Seat {i + 1}" for i in range(pl)])
        ax.set_title(f"{pl} players", loc="left")
        ax.set_ylabel("Win rate (%)")
        _pct_axis(ax)
        ax.grid(axis="x", visible=False)
    for ax in axes:
        ax.set_ylim(0, top * 1.12)
    handles, labs = [], []
    for ax in axes:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            if lab not in labs:
                handles.append(h)
                labs.append(lab)
    per = s.groupby(["players", "config"])["games"].max()
    note = (f"{_policy_phrase(s['policy'])}. {_games_phrase(per, 'configuration')}. "
            "Seat 1 moves first. Error bars: 95% intervals.")
    if "timeouts" in s.columns and s["timeouts"].sum() > 0:
        note += (" Dashed: the fair share, 1/players of the games some seat won "
                 "(timed-out games are won by no seat).")
    return _finish(fig, out, title, note, legend=(handles, labs, min(4, len(labs))))


@_styled
def handicap_landscape(cands: pd.DataFrame, out, *, policy: str | None = None,
                       title: str = "Benevolent: starting-leaf handicaps ranked by fairness"):
    """Candidate handicaps per player count, sorted by their largest seat gap, with interval
    whiskers; the printed handicap and the best candidate highlighted.

    cands: columns players, leaves (string), games, max_gap, gap_low, gap_high (fractions),
    printed (bool), best (bool), and optionally policy (else pass policy=).
    """
    _require(cands, ["players", "leaves", "games", "max_gap", "gap_low", "gap_high", "printed",
                     "best"], "cands")
    if policy is None and "policy" in cands.columns:
        policy = ", ".join(sorted(cands["policy"].astype(str).unique()))
    if policy is None:
        raise ValueError("handicap_landscape needs policy= (or a policy column): every chart "
                         "names its policy")
    panels = list(cands.groupby("players", sort=True))
    fig, axes = _grid(len(panels), 1, 9.0, 3.4)
    for ax, (pl, g) in zip(axes, panels):
        g = g.sort_values(["max_gap", "leaves"]).reset_index(drop=True)
        x = np.arange(1, len(g) + 1)  # rank 1 = smallest gap
        gap = 100 * g["max_gap"].to_numpy()
        err = np.vstack([gap - 100 * g["gap_low"].to_numpy(), 100 * g["gap_high"].to_numpy() - gap])
        plain = ~(g["printed"].astype(bool) | g["best"].astype(bool)).to_numpy()
        ax.errorbar(x[plain], gap[plain], yerr=err[:, plain], fmt="o", ms=3.5, color="#8a8a8a",
                    ecolor="#c4c4c4", elinewidth=1, label="candidate")
        both = (g["printed"].astype(bool) & g["best"].astype(bool)).to_numpy()
        for flag, colour, marker, name in (("best", PALETTE[2], "D", "best"),
                                           ("printed", PALETTE[5], "s", "printed")):
            sel = g[flag].astype(bool).to_numpy()
            if flag == "best":
                sel = sel & ~both   # the printed one is also the best: one marker, one label
            if not sel.any():
                continue
            ax.errorbar(x[sel], gap[sel], yerr=err[:, sel], fmt=marker, ms=7, color=colour,
                        ecolor=colour, elinewidth=1.8, capsize=3, label=f"{name} handicap",
                        zorder=4)
            for i in np.flatnonzero(sel):
                edge = "left" if i < 0.15 * len(g) else "right" if i > 0.85 * len(g) else "center"
                label = "printed = best" if both[i] else name
                ax.annotate(f"{label}: {g['leaves'][i]}", (x[i], gap[i] + err[1, i]),
                            xytext=(0, 6), textcoords="offset points", ha=edge,
                            fontsize=8.5, color=colour, fontweight="bold")
        if len(g) <= 24:
            ax.set_xticks(x)
            ax.set_xticklabels(g["leaves"], rotation=45, ha="right", fontsize=8)
            ax.set_xlabel("Starting leaves by seat (sorted by largest seat gap)")
        else:
            ax.set_xlim(0, len(g) + 1)
            ax.set_xlabel(f"Rank among {len(g)} candidates (1 = smallest largest seat gap)")
        ax.set_ylabel("Largest seat gap (pp)")
        ax.set_ylim(0, float((100 * g["gap_high"]).max()) * 1.25)
        ax.set_title(f"{pl} players", loc="left")
        ax.grid(axis="x", visible=False)
    handles, labs = [], []
    for ax in axes:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            if lab not in labs:
                handles.append(h)
                labs.append(lab)
    per = cands["games"]
    note = (f"Policy: {policy}. {_games_phrase(per, 'candidate')}. Gap: largest minus smallest "
            "seat win rate, in percentage points (pp); whiskers: its 95% interval.")
    return _finish(fig, out, title, note, legend=(handles, labs, len(labs)))


@_styled
def sensitivity_forest(df: pd.DataFrame, out, title: str | None = None):
    """The sensitivity study (experiments/sensitivity.py): for every switch reading and alternative
    data table, the difference variant - default with its paired 95% interval, one panel per
    setup (Bethel Woods: spies at setup; Benevolent: players), variants ordered by their largest
    effect. A dashed line at 0 (no effect); a filled dot where the interval excludes 0; a dark
    ring around it where the row is significant after Holm's correction over the table (when df
    has p_holm).

    df: columns game, variant, kind ("switch" or "table"), players, spies (Bethel Woods), metric,
    games, diff, ci_low, ci_high, policy, seed (fractions), and optionally p_holm.
    """
    _require(df, ["game", "variant", "kind", "players", "metric", "games", "diff", "ci_low", "ci_high",
                  "policy", "seed"], "df")
    game = str(df["game"].iloc[0])
    facet = "spies" if game == "bethel_woods" else "players"
    setups = sorted(df[facet].unique())
    order = (df.assign(a=df["diff"].abs()).groupby("variant")["a"].max().sort_values().index.tolist())
    fig, axes = _grid(len(setups), len(setups), 2.15, 0.3 * len(order) + 1.3, sharey=True)
    y = {v: i for i, v in enumerate(order)}
    lim = float(max(df["ci_high"].abs().max(), df["ci_low"].abs().max(), 0.005)) * 100 * 1.08
    holm = "p_holm" in df.columns
    for ax, st in zip(axes, setups):
        d = df[df[facet] == st]
        ax.axvline(0, color="#555555", lw=1, ls="--", zorder=1)
        for r in d.itertuples():
            c = PALETTE[0] if r.kind == "switch" else PALETTE[1]
            yi = y[r.variant]
            ax.hlines(yi, 100 * r.ci_low, 100 * r.ci_high, color=c, lw=2, zorder=2)
            sig = r.ci_low > 0 or r.ci_high < 0
            ax.scatter([100 * r.diff], [yi], s=30, zorder=3, color=c if sig else "white", edgecolor=c, lw=1.4)
            if holm and r.p_holm < 0.05:
                ax.scatter([100 * r.diff], [yi], s=110, zorder=4, facecolor="none", edgecolor="#222222", lw=1.1)
        ax.set_xlim(-lim, lim)
        ax.set_title(spies_label(st) if facet == "spies" else f"{int(st)} players", fontsize=10.5)
        ax.set_xlabel("points")
        ax.grid(axis="y", visible=False)
        ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(4, symmetric=True))
    axes[0].set_yticks(range(len(order)))
    axes[0].set_yticklabels([f"{v}" for v in order], fontsize=9)
    axes[0].set_ylim(-0.7, len(order) - 0.3)
    from matplotlib.lines import Line2D
    handles = [Line2D([], [], color=PALETTE[0], marker="o", lw=2, label="rules switch (other reading)"),
               Line2D([], [], color=PALETTE[1], marker="o", lw=2, label="alternative data table"),
               Line2D([], [], ls="none", marker="o", markersize=6, color="#555555",
                      label="filled: interval excludes 0"),
               Line2D([], [], ls="none", marker="o", markersize=6, markerfacecolor="white",
                      markeredgecolor="#555555", label="hollow: interval includes 0")]
    if holm:   # the ring drawn round a dot: a large black circle with a small dot inside, as on the chart
        handles.append((Line2D([], [], ls="none", marker="o", markersize=11, markerfacecolor="none",
                               markeredgecolor="#222222"),
                        Line2D([], [], ls="none", marker="o", markersize=5, color="#555555")))
    metric = str(df["metric"].iloc[0])
    if title is None:
        title = ("Bethel Woods: how much each reading moves the win rate (3 players)" if game == "bethel_woods"
                 else "Benevolent: how much each reading moves the largest seat gap")
    interval = ("paired 95% intervals (Newcombe square-and-add)" if game == "bethel_woods"
                else "paired 95% bootstrap intervals")
    per = df.groupby(facet)["games"].first()
    played = int(per.sum() * (len(order) + 1))   # every variant's arm and the defaults' once per panel
    each = (f"{_n(per.min())} games per arm and panel" if per.min() == per.max()
            else f"{_n(per.min())} to {_n(per.max())} games per arm and panel")
    note = (f"{_policy_phrase(df['policy'])}. Variant minus default {metric}, in percentage points, on "
            f"common seeds (seed {int(df['seed'].iloc[0])}): {each}, {_n(played)} games in all; "
            f"lines: {interval}; filled dots: the interval excludes 0"
            + (f"; ringed: p below 0.05 after Holm's correction over all {len(df)} rows." if holm else "."))
    labels = [h.get_label() for h in handles[:4]] + (["ringed: significant after Holm's correction"] if holm else [])
    return _finish(fig, out, title, note, legend=(handles, labels, 3))


def paired_differences(pairs: pd.DataFrame, out, *, outcome: str = "win rate",
                       title: str = "Rule variants: change in the win rate against the defaults"):
    """Each variant's difference from the default rules on the same seeds, with its paired 95%
    interval and a line at 0 (no change); one row per variant x setting.

    pairs: columns variant, label (the setting, e.g. "3 players, 0 spies"), policy, games,
    diff, diff_low, diff_high (fractions), significant (bool: after the multiple-comparison
    correction).
    """
    _require(pairs, ["variant", "label", "policy", "games", "diff", "diff_low", "diff_high",
                     "significant"], "pairs")
    p = pairs.reset_index(drop=True)
    fig = _figure((7.8, 0.5 * len(p) + 1.5))
    ax = fig.subplots()
    y = np.arange(len(p))[::-1]
    variants = list(dict.fromkeys(p["variant"]))
    ax.axvline(0.0, color="#555555", lw=1, ls="--", zorder=1)
    for v in variants:
        sel = (p["variant"] == v).to_numpy()
        colour = PALETTE[variants.index(v) % len(PALETTE)]
        d, lo, hi = 100 * p["diff"][sel], 100 * p["diff_low"][sel], 100 * p["diff_high"][sel]
        ax.hlines(y[sel], lo, hi, color=colour, lw=2, zorder=2)
        sig = p["significant"][sel].astype(bool).to_numpy()
        ax.scatter(d[sig], y[sel][sig], s=42, color=colour, zorder=3)
        ax.scatter(d[~sig], y[sel][~sig], s=42, facecolor="white", edgecolor=colour, lw=1.6,
                   zorder=3)
    ax.set_yticks(y)
    ax.set_yticklabels([f"{v}: {lab}" for v, lab in zip(p["variant"], p["label"])])
    ax.set_xlabel(f"Change in {outcome} (percentage points; variant minus defaults)")
    ax.grid(axis="y", visible=False)
    from matplotlib.lines import Line2D
    handles = [Line2D([], [], color=PALETTE[i % len(PALETTE)], lw=2, marker="o", ms=6)
               for i in range(len(variants))]
    handles += [Line2D([], [], ls="", marker="o", ms=6, color="#333333"),
                Line2D([], [], ls="", marker="o", ms=6, mfc="white", mec="#333333", mew=1.6)]
    labs = variants + ["significant", "not significant"]
    note = (f"{_policy_phrase(p['policy'])}. {_games_phrase(p['games'], 'row')}, the same seeds "
            "for the variant and the defaults. Lines: paired 95% intervals; filled dots: "
            "significant by McNemar's test after Holm's correction.")
    return _finish(fig, out, title, note, legend=(handles, labs, min(4, len(labs))))
