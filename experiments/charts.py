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

from simcore.games import BETHEL_WOODS as BW

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
# six line styles, one per spies count (0-5) where six levels share a panel: no two levels alike in
# style, and the two pairs of near colours (blue / sky blue, orange / vermilion) differ in style
LEVEL_STYLES = ["-", "--", ":", "-.", (0, (3, 1, 1, 1, 1, 1)), (0, (8, 2))]
# a filled marker means the same in every chart that has one: significant after Holm's correction
# over the study's comparisons (the verdict the text gives); hollow: not. The interval drawn is
# each row's own (uncorrected) 95% interval, so a hollow marker may sit on a line that misses 0.
FILLED_HOLM = "filled: significant after Holm's correction"
HOLLOW_HOLM = "hollow: not significant after Holm's correction"
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


def _legend_entries(axes) -> tuple[list, list]:
    """The legend handles and labels of several panels, each label once, in the order drawn."""
    handles, labs = [], []
    for ax in axes:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            if lab not in labs:
                handles.append(h)
                labs.append(lab)
    return handles, labs


def _pct_axis(ax, axis: str = "y") -> None:
    fmt = matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}%")
    (ax.yaxis if axis == "y" else ax.xaxis).set_major_formatter(fmt)


def _level_groups(ax, spies, y=-0.13) -> None:
    """Under the spies ticks, the rulebook's difficulty levels as group labels (Normal under 0,
    Hard under 1-2, ...), each centred on its spies with a thin bracket: the names never touch."""
    import matplotlib.transforms as mtransforms
    tr = mtransforms.blended_transform_factory(ax.transData, ax.transAxes)
    groups: dict = {}
    for s in spies:
        groups.setdefault(DIFFICULTY.get(int(s), ""), []).append(int(s))
    for name, ss in groups.items():
        a, b = min(ss), max(ss)
        if b > a:
            ax.plot([a - 0.3, b + 0.3], [y + 0.045, y + 0.045], transform=tr, color="#888888", lw=0.8,
                    clip_on=False)
        ax.text((a + b) / 2, y, name, transform=tr, ha="center", va="top", fontsize=9.5, color="#333333")


@_styled
def difficulty_curve(df: pd.DataFrame, out, title: str = "Bethel Woods: win rate by difficulty"):
    """Win rate against spies added (0..5), the rulebook's difficulty levels named under the axis.

    df: one row per cell, columns players, spies, difficulty (name), policy, games, wins, and
    optionally rules (a variant name: one panel per variant). One panel per policy (each on its
    own scale), one line per player count with a shaded 95% Wilson band. A policy that won no game
    at all is not drawn as lines on top of one another at 0%: its panel says so, with the upper
    bound of its intervals.
    """
    _require(df, ["players", "spies", "difficulty", "policy", "games", "wins"], "df")
    d = df.copy()
    has_rules = "rules" in d.columns and d["rules"].nunique() > 1
    variants = list(dict.fromkeys(d["rules"])) if has_rules else [None]  # in the frame's order
    policies = sorted(d["policy"].unique(), key=lambda p: (d[d["policy"] == p]["wins"].sum() == 0, p))
    panels = [(v, p) for v in variants for p in policies]
    fig, axes = _grid(len(panels), 2, 5.2, 4.0)
    players = sorted(d["players"].unique())
    spies = sorted(set(int(s) for s in d["spies"]))
    for ax, (variant, pol) in zip(axes, panels):
        part = d[d["policy"] == pol] if variant is None else d[(d["rules"] == variant) & (d["policy"] == pol)]
        top = 0.0
        if part["wins"].sum() == 0:
            g = part.groupby("spies", as_index=False)[["games"]].min().sort_values("spies")
            _, hi = wilson(np.zeros(len(g)), g["games"].to_numpy())
            ax.fill_between(g["spies"], 0, 100 * hi, color="#999999", alpha=0.25, lw=0)
            ax.text(0.5, 0.55, f"no win in any of its {_n(part['games'].sum())} games\n"
                    f"(shaded: the 95% upper bound, {100 * float(np.max(hi)):.1f}% at most)",
                    transform=ax.transAxes, ha="center", va="center", fontsize=9.5, color="#333333")
            top = float(np.max(100 * hi)) * 3
        for pl, g in part.groupby("players", sort=True):
            if part["wins"].sum() == 0:
                break
            g = g.groupby("spies", as_index=False)[["games", "wins"]].sum().sort_values("spies")
            lo, hi = wilson(g["wins"].to_numpy(), g["games"].to_numpy())
            rate = 100 * g["wins"] / g["games"]
            colour = PALETTE[players.index(pl) % len(PALETTE)]
            ax.fill_between(g["spies"], 100 * lo, 100 * hi, color=colour, alpha=0.18, lw=0)
            ax.plot(g["spies"], rate, color=colour, lw=2, marker=MARKERS[players.index(pl) % len(MARKERS)],
                    ms=5, label=f"{pl} players")
            top = max(top, float(np.nanmax(100 * hi)))
        ax.set_xticks(spies)
        ax.set_xticklabels([str(s) for s in spies])
        _level_groups(ax, spies)
        ax.set_xlabel("Spies added at setup, and the rulebook's difficulty level", labelpad=22)
        ax.set_ylabel("Win rate (%)")
        ax.set_ylim(0, min(100, top * 1.08 + 0.5))
        ax.set_xlim(min(spies) - 0.4, max(spies) + 0.4)
        _pct_axis(ax)
        ax.set_title(f"{pol}" + (f", rules: {variant}" if variant is not None else ""), loc="left")
        ax.grid(axis="x", visible=False)
    handles, labs = _legend_entries(axes)
    note = (f"{_policy_phrase(policies)}. {_games_phrase(d['games'], 'point')}. "
            "Shaded bands: 95% Wilson intervals. The rulebook names no level for 0 spies; the report calls it Normal.")
    return _finish(fig, out, title, note, legend=(handles, labs, len(labs)) if labs else None)


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


# A length distribution drawn from fewer games than this is noise, not a shape (a 5-spy cell the
# learned player won 3 times of 600 drew a 66% spike on a won-games panel): its line is left out
# and the note names it. Our choice.
MIN_LENGTH_GAMES = 20

TURN_NOTE = ("A turn is one player's turn (all players' turns are counted, the last one included); "
             "a game lasts at most 79 turns.")


@_styled
def game_length(hist: pd.DataFrame, out, title: str = "Bethel Woods: how long won and lost games last"):
    """The distribution of game length in turns, won and lost games apart: one row of panels for
    the won games and one for the lost games of each policy, one panel per player count, one line
    per spies count (distinct colours and line styles); every panel on the same turn axis.

    hist: counts per turn number, columns players, spies, policy, turns, games, and won, lost (the
    won and lost games of that length; without them every game is drawn as one distribution,
    said in the panel titles).
    """
    _require(hist, ["players", "spies", "policy", "turns", "games"], "hist")
    split = "won" in hist.columns and "lost" in hist.columns
    cols = ["won", "lost"] if split else ["games"]
    h = hist.groupby(["policy", "players", "spies", "turns"], as_index=False)[cols].sum()
    rows = [(pol, c) for pol in sorted(h["policy"].unique()) for c in cols
            if h[h["policy"] == pol][c].sum() > 0]
    players = sorted(h["players"].unique())
    fig, axes = _grid(len(rows) * len(players), len(players), 3.2, 2.6, sharex=True)
    spies_all = sorted(h["spies"].unique())
    x_hi = int(h[h[cols].sum(axis=1) > 0]["turns"].max()) + 1
    names = {"won": "won games", "lost": "lost games", "games": "all games, won and lost together"}
    few = []   # lines left out: fewer than MIN_LENGTH_GAMES games
    for k, (pol, c) in enumerate(rows):
        top = 0.0
        row_axes = axes[k * len(players):(k + 1) * len(players)]
        for ax, pl in zip(row_axes, players):
            g = h[(h["policy"] == pol) & (h["players"] == pl)]
            for s, gs in g.groupby("spies", sort=True):
                n = gs[c].sum()
                if n == 0:
                    continue
                if n < MIN_LENGTH_GAMES:
                    few.append(f"{pl} players, {pol}, {spies_label(s)}: {int(n)} {names[c].split(',')[0]}")
                    continue
                gs = gs.sort_values("turns")
                nz = np.flatnonzero(gs[c].to_numpy())
                gs = gs.iloc[nz[0]:nz[-1] + 1]   # from the first game of this kind to the last
                share = 100 * gs[c] / n
                i = spies_all.index(s)
                ax.plot(gs["turns"], share, color=PALETTE[i % len(PALETTE)], ls=LEVEL_STYLES[i % len(LEVEL_STYLES)],
                        lw=1.7, label=f"{spies_label(s)} ({DIFFICULTY.get(int(s), '')})")
                top = max(top, float(share.max()))
            ax.set_title(f"{pl} players, {pol}: {names[c]}", loc="left", fontsize=10)
            ax.set_ylabel("Share (%)")
            ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
            _pct_axis(ax)
        for ax in row_axes:
            ax.set_ylim(0, top * 1.08 + 0.5)
    for ax in axes:
        ax.set_xlim(0, x_hi)
        ax.tick_params(labelbottom=True)
    for ax in axes[-len(players):]:
        ax.set_xlabel("Game length (turns)")
    handles, labs = _legend_entries(axes)
    order = sorted(range(len(labs)), key=lambda i: int(labs[i].split()[0]))
    per_cell = hist.groupby(["policy", "players", "spies"])["games"].sum()
    note = (f"{_policy_phrase(h['policy'])}. {_games_phrase(per_cell, 'cell')}. Each line: the share of the cell's "
            f"{'won (or lost) ' if split else ''}games that ended on that turn. {TURN_NOTE}")
    if few:
        note += (f" Not drawn (fewer than {MIN_LENGTH_GAMES} games, too few for a shape): "
                 + "; ".join(few) + ".")
    legend = ([handles[i] for i in order], [labs[i] for i in order], min(6, len(labs))) if labs else None
    return _finish(fig, out, title, note, legend=legend)   # no line (every cell too small): no legend


def _character_order(names) -> list[str]:
    try:
        from simcore.bethel_woods.rules import CHARACTERS
    except Exception:  # the chart works without the engine package
        CHARACTERS = ()  # type: ignore[assignment]
    known = [c for c in CHARACTERS if c in names]
    return known + sorted(set(names) - set(known))


@_styled
def character_heatmap(sets: pd.DataFrame, out,
                      title: str = "Bethel Woods: win rate by pair of characters"):
    """Win rates of character pairs, each pair once (the lower triangle); one panel per (players,
    spies), two panels a row.

    sets: one row per character set, columns players, spies, characters ("Nova,Harris"),
    games, wins, significant (bool), and policy. With 2 players a cell is the set of that pair and
    is boxed when `significant` is True. With 3-4 players a cell pools all sets containing the pair
    (stats.pair_table) and is boxed when that pair differs from the other sets (Fisher's exact test,
    Holm-adjusted p < 0.05). Colour and number are the same thing, the pair's win rate; under it,
    the half-width of its 95% Wilson interval; the note gives the games a cell rests on.
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
    fig, axes = _grid(len(panels), 2, 4.9, 4.6)
    vmax = float(pairs["rate"].max()) * 100
    image = None
    cmap = matplotlib.colormaps["YlGnBu"]
    for ax, ((pl, sp), g) in zip(axes, panels):
        tot = sets[(sets["players"] == pl) & (sets["spies"] == sp)]
        overall = tot["wins"].sum() / tot["games"].sum()
        m = np.full((k, k), np.nan)
        for a, b, games, wins, sig in zip(g["a"], g["b"], g["games"], g["wins"], g["significant"]):
            i, j = sorted((names.index(a), names.index(b)), reverse=True)   # row below the diagonal
            m[i, j] = wins / games
            lo, hi = wilson(int(wins), int(games))
            dark = 100 * m[i, j] > 0.6 * vmax
            ax.text(j, i - 0.14, f"{100 * m[i, j]:.0f}" if m[i, j] >= 0.095 else f"{100 * m[i, j]:.1f}",
                    ha="center", va="center", fontsize=10.5, color="white" if dark else "#111111")
            ax.text(j, i + 0.26, f"±{100 * (hi - lo) / 2:.0f}", ha="center", va="center", fontsize=8.5,
                    color="white" if dark else "#333333")
            s = (2, int(sp), *sorted((a, b))) in flagged if pl == 2 else bool(sig)
            if s:
                ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, ec="#d55e00", lw=2.0))
        image = ax.imshow(np.ma.masked_invalid(100 * m), cmap=cmap, vmin=0, vmax=max(vmax, 1))
        ax.set_xticks(range(k - 1))
        ax.set_yticks(range(1, k))
        ax.set_xticklabels(names[:-1], rotation=45, ha="right", fontsize=9)
        ax.set_yticklabels(names[1:], fontsize=9)
        ax.set_xlim(-0.5, k - 1.5)
        ax.set_ylim(k - 0.5, 0.5)
        ax.grid(False)
        for side in ("left", "bottom"):
            ax.spines[side].set_visible(False)
        ax.tick_params(length=0)
        ax.set_title(f"{pl} players, {spies_label(sp)} ({DIFFICULTY.get(int(sp), '')}): "
                     f"all sets {100 * overall:.0f}%", loc="left", fontsize=10.5)
    cbar = fig.colorbar(image, ax=list(axes), shrink=0.6, pad=0.02)
    cbar.set_label("Win rate of the pair (%)")
    pol = _policy_phrase(sets["policy"]) + ". "
    each = "; ".join(f"{pl} players {_n(g.min())}" + (f"-{_n(g.max())}" if g.min() != g.max() else "")
                     for pl, g in pairs.groupby("players")["games"])
    note = (f"{pol}Number: the pair's win rate (%), under it ± the half-width of its 95% Wilson interval (3-4 "
            f"players: every set with both characters pooled). Games per cell: {each}. Boxed: the pair differs "
            "from the other sets of its panel (Fisher's exact test, Holm-adjusted p < 0.05).")
    return _finish(fig, out, title, note)


@_styled
def character_forest(effects: pd.DataFrame, out, *, policy: str | None = None,
                     games: int | None = None, p_name: str = "p",
                     title: str = "Bethel Woods: character effects on the odds of winning"):
    """A forest plot of odds ratios against an average character, with 95% intervals: one marker
    per character and player count (a character's effect differs between player counts, so they
    are not pooled), and a line at 1, the average character.

    effects: columns term (character name), odds_ratio, or_low, or_high, p_value, and optionally
    players (else one series). The policy and the number of games come from `policy` and
    `games`, or from columns of the same names.
    """
    _require(effects, ["term", "odds_ratio", "or_low", "or_high", "p_value"], "effects")
    e = effects[effects["term"] != "Intercept"].copy()
    if policy is None and "policy" in e.columns:
        policy = ", ".join(sorted(e["policy"].astype(str).unique()))
    if games is None and "games" in e.columns:
        games = int(e["games"].max())
    if policy is None or games is None:
        raise ValueError("character_forest needs policy= and games= (or such columns): "
                         "every chart names its policy and game count")
    if "players" not in e.columns:
        e["players"] = 0
    series = sorted(e["players"].unique())
    order = e.groupby("term")["odds_ratio"].apply(lambda x: np.exp(np.log(x).mean())).sort_values().index.tolist()
    fig = _figure((7.6, 0.5 * len(order) + 1.6))
    ax = fig.subplots()
    ax.axvline(1.0, color="#555555", lw=1, ls="--", zorder=1)
    ax.annotate("an average character", (1.0, len(order) - 0.45), xytext=(4, 0), textcoords="offset points",
                fontsize=8.5, color="#555555", va="center")
    step = 0.22 if len(series) > 1 else 0.0
    for si, pl in enumerate(series):
        d = e[e["players"] == pl]
        colour = PALETTE[si % len(PALETTE)]
        y = np.array([order.index(t) for t in d["term"]]) + (si - (len(series) - 1) / 2) * step
        sig = (d["p_value"] < 0.05).to_numpy()
        ax.hlines(y, d["or_low"], d["or_high"], color=colour, lw=1.8, zorder=2)
        label = f"{pl} players" if pl else None
        ax.scatter(d["odds_ratio"][sig], y[sig], s=34, color=colour, zorder=3, marker=MARKERS[si % len(MARKERS)],
                   label=label)
        ax.scatter(d["odds_ratio"][~sig], y[~sig], s=34, facecolor="white", edgecolor=colour, lw=1.5,
                   zorder=3, marker=MARKERS[si % len(MARKERS)], label=None if sig.any() else label)
    ax.set_yticks(range(len(order)))
    ax.set_yticklabels(order)
    ax.set_xscale("log")
    lo, hi = float(e["or_low"].min()), float(e["or_high"].max())
    span = max(hi, 1.0 / lo, 1.05)
    ax.set_xlim(min(lo, 1 / span) / 1.08, max(hi, span) * 1.08)
    ticks = [t for t in (0.25, 0.5, 0.67, 0.8, 0.9, 1, 1.1, 1.25, 1.5, 2, 3, 4)
             if ax.get_xlim()[0] <= t <= ax.get_xlim()[1]]
    ax.set_xticks(ticks)
    ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    ax.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
    ax.set_xlabel("Odds of winning with the character, against an average character (log scale; 1 = average)")
    ax.grid(axis="y", visible=False)
    ax.set_ylim(-0.7, len(order) - 0.1)
    from matplotlib.lines import Line2D
    handles, labs = [], []
    if len(series) > 1:
        for si, pl in enumerate(series):
            handles.append(Line2D([], [], color=PALETTE[si % len(PALETTE)], marker=MARKERS[si % len(MARKERS)], lw=1.8))
            labs.append(f"{pl} players")
    holm = p_name.lower().startswith("holm")
    if (e["p_value"] < 0.05).any():
        handles.append(Line2D([], [], ls="none", marker="o", color="#444444"))
        labs.append(FILLED_HOLM if holm else f"filled: {p_name} < 0.05")
    if (e["p_value"] >= 0.05).any():
        handles.append(Line2D([], [], ls="none", marker="o", mfc="white", mec="#444444"))
        labs.append(HOLLOW_HOLM if holm else f"hollow: {p_name} ≥ 0.05")
    note = (f"Policy: {policy}. Logistic regression per player count on {_n(games)} games (every set on the same "
            f"deals). Lines: 95% intervals; filled markers: {p_name} < 0.05 (the p_value column given). "
            "The effects of a player count add up to 0 in log odds: 1 is a character of average strength.")
    return _finish(fig, out, title, note, legend=(handles, labs, min(5, len(labs))))


def _leaves_label(leaves: str) -> str:
    """A configuration's legend entry: "equal leaves (2,2 / 3,3,3 / 3,3,3,3)", "printed leaves
    (1,3 / 1,3,4 / 1,3,4,5)" (one entry for every panel) or "leaves 0,3,4"."""
    if str(leaves) == "equal":
        return "equal leaves (2,2 / 3,3,3 / 3,3,3,3)"
    return "printed leaves (1,3 / 1,3,4 / 1,3,4,5)" if str(leaves) == "printed" else f"leaves {leaves}"


@_styled
def seat_bars(seats: pd.DataFrame, out, title: str = "Benevolent: each seat's share of the decided games"):
    """Each seat's share of the decided games (the games some seat won) with error bars, and the
    fair share 1/players; one panel per player count, one bar per (leaves, policy) within each
    seat.

    seats: columns players, leaves ("printed", "equal" or a vector "1,3,4"), policy, games, seat (1 =
    the first player), wins, ci_low, ci_high (fractions of the decided games), and decided (the
    games some seat won; without it, the games). A timed-out game is in no seat's share, so the
    fair share is 1/players in every configuration.
    """
    _require(seats, ["players", "leaves", "policy", "games", "seat", "wins", "ci_low",
                     "ci_high"], "seats")
    s = seats.copy()
    base = s["decided"] if "decided" in s.columns else s["games"]
    s["rate"] = s["wins"] / base
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
        fair = 100 / pl
        ax.axhline(fair, color="#333333", ls="--", lw=1.1, label="fair share: 1/players of the decided games")
        ax.set_title(f"{pl} players (fair share {fair:.1f}%)", loc="left")
        ax.set_xticks(range(pl))
        ax.set_xticklabels([f"Seat {i + 1}" for i in range(pl)])
        ax.set_ylabel("Share of the decided games (%)")
        _pct_axis(ax)
        ax.grid(axis="x", visible=False)
    for ax in axes:
        ax.set_ylim(0, top * 1.12)
    handles, labs = _legend_entries(axes)
    per = s.groupby(["players", "config"])["games"].max()
    note = (f"{_policy_phrase(s['policy'])}. {_games_phrase(per, 'configuration')}. "
            "Seat 1 moves first. Error bars: simultaneous 95% intervals. Shares of the games some seat won "
            "(a timed-out game is won by no seat), so the fair share is 1/players.")
    if "timeouts" in s.columns and s["timeouts"].sum() > 0:
        t = s.groupby(["players", "config"])[["timeouts", "games"]].max()
        note += " Timeouts: " + "; ".join(f"{pl} players, {cfg.split(' (')[0]}: {_n(r.timeouts)} of {_n(r.games)}"
                                          for (pl, cfg), r in t.iterrows() if r.timeouts) + "."
    return _finish(fig, out, title, note, legend=(handles, labs, min(4, len(labs))))


@_styled
def handicap_dose(seats: pd.DataFrame, out, *, policy: str | None = None,
                  title: str = "Benevolent: what a leaf is worth, by seat"):
    """Dose and response of the handicap search: for every candidate and seat, the seat's share
    of the decided games against its starting leaves above the table's mean (the dose); one panel
    per player count, one colour per seat, and each seat's least-squares line (its slope: the points
    a leaf is worth to that seat). The printed handicap's seats are drawn large and named.

    seats: the search's seat rows: players, leaves ("1,3,4"), seat (1 = first), wins, decided,
    games, and printed (bool), policy (or pass policy=).
    """
    _require(seats, ["players", "leaves", "seat", "wins", "decided", "games", "printed"], "seats")
    if policy is None and "policy" in seats.columns:
        policy = ", ".join(sorted(seats["policy"].astype(str).unique()))
    if policy is None:
        raise ValueError("handicap_dose needs policy= (or a policy column): every chart names its policy")
    s = seats[seats["decided"] > 0].copy()
    s["mine"] = [int(str(lv).split(",")[q - 1]) for lv, q in zip(s["leaves"], s["seat"])]
    s["mean"] = [np.mean([int(x) for x in str(lv).split(",")]) for lv in s["leaves"]]
    s["dose"] = s["mine"] - s["mean"]
    s["share"] = 100 * s["wins"] / s["decided"]
    panels = list(s.groupby("players", sort=True))
    fig, axes = _grid(len(panels), 3, 3.3, 3.4, sharey=True)   # narrow enough to read at 800 px
    for ax, (pl, g) in zip(axes, panels):
        for q in range(1, pl + 1):
            gq = g[g["seat"] == q]
            colour = PALETTE[(q - 1) % len(PALETTE)]
            jitter = (q - (pl + 1) / 2) * 0.04
            ax.scatter(gq["dose"] + jitter, gq["share"], s=7, color=colour, alpha=0.35, lw=0)
            if gq["dose"].nunique() > 1:   # what a leaf is worth to this seat: the least-squares slope
                from scipy.stats import linregress
                fit = linregress(gq["dose"], gq["share"])
                xs = np.array([gq["dose"].min(), gq["dose"].max()])
                ax.plot(xs, fit.intercept + fit.slope * xs, color=colour, lw=2,
                        label=f"seat {q}: {fit.slope:+.1f} pp a leaf")
            else:
                ax.plot([], [], color=colour, lw=2, label=f"seat {q}")
            pr = gq[gq["printed"].astype(bool)]
            ax.scatter(pr["dose"], pr["share"], s=60, color=colour, edgecolor="black", lw=1.2, zorder=4,
                       marker="s")
        pr = g[g["printed"].astype(bool)]
        if len(pr):
            r = pr.sort_values("dose").iloc[-1]
            ax.annotate(f"printed {r.leaves}", (r.dose, r.share), xytext=(-4, 8), textcoords="offset points",
                        ha="right", fontsize=8.5, fontweight="bold")
        ax.axhline(100 / pl, color="#333333", ls="--", lw=1)
        ax.axvline(0, color="#bbbbbb", lw=0.8)
        ax.legend(loc="upper left", fontsize=9, handlelength=1.2, borderaxespad=0.2)   # each seat's slope here
        ax.set_title(f"{pl} players: {g['leaves'].nunique()} candidates", loc="left")
        ax.set_xlabel("Leaves above the table's mean")
        _pct_axis(ax)
    # headroom above every point for the legend of the most seats (a line of legend text is about
    # 7.5% of a panel's height): no marker, printed or not, under a legend's text
    lo, hi = float(s["share"].min()) - 2.0, float(s["share"].max()) + 2.0
    frac = 0.075 * max(pl for pl, _ in panels) + 0.05
    axes[0].set_ylim(lo, hi + frac / (1.0 - frac) * (hi - lo))
    axes[0].set_ylabel("Share of the decided games (%)")
    from matplotlib.lines import Line2D
    handles = [Line2D([], [], ls="none", marker="s", ms=7, mfc="white", mec="black")]
    labs = ["the printed handicap's seats"]
    handles.append(Line2D([], [], ls="--", color="#333333"))
    labs.append("fair share 1/players")
    per = seats.groupby(["players", "leaves"])["games"].max()
    note = (f"Policy: {policy}. {_games_phrase(per, 'candidate')} (the search: the same seeds for every "
            "candidate). Dots: one seat of one candidate; lines: each seat's least-squares line, its slope the "
            "points a leaf above the table's mean is worth (a description, no interval). Seat 1 moves first.")
    return _finish(fig, out, title, note, legend=(handles, labs, min(6, len(labs))))


@_styled
def handicap_confirmed(seats: pd.DataFrame, out, *, policy: str | None = None,
                       title: str = "Benevolent: the confirmed handicaps on fresh games"):
    """The handicaps played again on fresh seeds (the printed one, the search's fairest few and
    the smallest change to the printed one): per candidate, each seat's share of the decided games
    with its simultaneous 95% interval, the fair share, and the games that timed out; one panel per
    player count, the printed handicap first, each candidate named with its role.

    seats: the confirmation's seat rows: players, leaves, seat, wins, decided, games, timeouts,
    ci_low, ci_high (fractions of the decided games), printed (bool), role (text: "printed",
    "search's fairest", "runner-up", "smallest change"), policy (or policy=).
    """
    _require(seats, ["players", "leaves", "seat", "wins", "decided", "games", "timeouts", "ci_low", "ci_high",
                     "printed", "role"], "seats")
    if policy is None and "policy" in seats.columns:
        policy = ", ".join(sorted(seats["policy"].astype(str).unique()))
    if policy is None:
        raise ValueError("handicap_confirmed needs policy= (or a policy column): every chart names its policy")
    panels = list(seats.groupby("players", sort=True))
    n_rows = max(g["leaves"].nunique() for _, g in panels)
    # one panel a row: three side by side made a chart 1,806 px wide, its labels 7 px tall at 800 px
    fig, axes = _grid(len(panels), 1, 6.2, 0.5 * n_rows + 1.2, sharex=True)
    for ax, (pl, g) in zip(axes, panels):
        cands = g.drop_duplicates("leaves").copy()
        cands["_o"] = [0 if p else 1 for p in cands["printed"]]
        cands = cands.sort_values(["_o", "leaves"], key=lambda c: c if c.name != "leaves" else c.map(
            lambda v: tuple(int(x) for x in str(v).split(","))))
        labels = []
        for yi, r in enumerate(cands.itertuples()):
            rows = g[g["leaves"] == r.leaves].sort_values("seat")
            for q, x in zip(rows["seat"], rows.itertuples()):
                y = yi + (q - (pl + 1) / 2) * 0.14
                share = 100 * x.wins / x.decided if x.decided else np.nan
                ax.errorbar(share, y, xerr=[[share - 100 * x.ci_low], [100 * x.ci_high - share]], fmt=MARKERS[(q - 1) % 4],
                            color=PALETTE[(q - 1) % len(PALETTE)], ms=5, elinewidth=1.3, capsize=2,
                            label=f"seat {q}")
            labels.append(f"{r.leaves}\n{r.role}; timeouts {100 * r.timeouts / r.games:.1f}%")
        ax.axvline(100 / pl, color="#333333", ls="--", lw=1)
        ax.set_yticks(range(len(labels)))
        ax.set_yticklabels(labels, fontsize=9)
        ax.set_ylim(len(labels) - 0.5, -0.5)
        ax.set_title(f"{pl} players", loc="left")
        ax.tick_params(labelbottom=True)   # every panel keeps its percentages (the x axis is shared)
        _pct_axis(ax, "x")
        ax.grid(axis="y", visible=False)
    axes[-1].set_xlabel("Share of the decided games (%)")
    handles, labs = _legend_entries(axes)
    from matplotlib.lines import Line2D
    handles.append(Line2D([], [], ls="--", color="#333333"))
    labs.append("fair share 1/players")
    per = seats.groupby(["players", "leaves"])["games"].max()
    note = (f"Policy: {policy}. {_games_phrase(per, 'handicap')} on fresh seeds (not the search's). Error bars: "
            "simultaneous 95% Goodman intervals. A timed-out game is won by no seat: it is in no share.")
    return _finish(fig, out, title, note, legend=(handles, labs, min(6, len(labs))))


@_styled
def handicap_decision(conf: pd.DataFrame, hold: pd.DataFrame, out, *,
                      title: str = "Benevolent: is any handicap fairer than the printed one?"):
    """How the handicap study decides, one panel per player count: each confirmed candidate's
    largest seat gap minus the printed handicap's on the confirmation games, paired game by game
    (open markers: these games choose the challenger, so the chosen one's figure is flattered),
    and the challenger's on the holdout games (a filled marker: games that chose nothing, the
    only ones that decide). Left of the dashed line at 0 is fairer than the printed handicap. The
    panel's title says the decision.

    conf: players, leaves, printed, role, chosen, vs_printed_diff, vs_printed_diff_low,
    vs_printed_diff_high, games, policy (fractions). hold: the same columns for the holdout rows,
    plus challenger (bool) and decision ("adopt" or "keep the printed")."""
    cols = ["players", "leaves", "printed", "vs_printed_diff", "vs_printed_diff_low", "vs_printed_diff_high",
            "games", "policy"]
    _require(conf, cols + ["role", "chosen"], "conf")
    _require(hold, cols + ["challenger", "decision"], "hold")
    panels = list(conf.groupby("players", sort=True))
    n_rows = max(int((~g["printed"]).sum()) + 1 for _, g in panels)
    fig, axes = _grid(len(panels), 1, 6.4, 0.42 * n_rows + 1.3, sharex=True)
    conf_colour, hold_colour = PALETTE[0], PALETTE[5]
    for ax, (pl, g) in zip(axes, panels):
        h = hold[hold["players"] == pl]
        ch = h[h["challenger"]].iloc[0]
        rows = g[~g["printed"]].sort_values("vs_printed_diff")
        labels, y = [], 0
        # the holdout first: the figure that decides
        lo, hi, d = (100 * ch.vs_printed_diff_low, 100 * ch.vs_printed_diff_high, 100 * ch.vs_printed_diff)
        ax.errorbar(d, y, xerr=[[d - lo], [hi - d]] if np.isfinite(lo) else None, fmt="D", ms=7, color=hold_colour,
                    elinewidth=2, capsize=3, label="challenger, holdout games (decides)")
        labels.append(f"{ch.leaves} on the holdout games")
        for r in rows.itertuples():
            y += 1
            lo, hi, d = 100 * r.vs_printed_diff_low, 100 * r.vs_printed_diff_high, 100 * r.vs_printed_diff
            ax.errorbar(d, y, xerr=[[d - lo], [hi - d]] if np.isfinite(lo) else None, fmt="o", mfc="white", ms=6,
                        color=conf_colour, elinewidth=1.3, capsize=2, label="candidate, confirmation games (choose)")
            labels.append(f"{r.leaves}: {r.role}" + (" (chosen)" if r.chosen else ""))
        ax.axvline(0, color="#333333", ls="--", lw=1)
        ax.axhline(0.5, color="#BBBBBB", lw=0.8)
        ax.set_yticks(range(len(labels)))
        ax.set_yticklabels(labels, fontsize=9)
        ax.set_ylim(len(labels) - 0.5, -0.6)
        printed = g[g["printed"]].iloc[0].leaves
        verdict = (f"adopt {ch.leaves}" if ch.decision == "adopt" else f"keep the printed {printed}")
        ax.set_title(f"{pl} players: {verdict}", loc="left")
        ax.tick_params(labelbottom=True)
        ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:+g}" if v else "0"))
        ax.grid(axis="y", visible=False)
    axes[-1].set_xlabel("Largest seat gap minus the printed handicap's (points; left of 0 is fairer than printed)")
    handles, labs = _legend_entries(axes)
    note = (f"{_policy_phrase(conf['policy'])}. Confirmation: {_games_phrase(conf.groupby('players')['games'].max(), 'player count')}"
            f"; holdout: {_games_phrase(hold.groupby('players')['games'].max(), 'player count')}, other fresh seeds. "
            "Error bars: paired 95% bootstrap intervals (each candidate and the printed handicap on the same games). "
            "A challenger is adopted only when its holdout interval lies left of 0.")
    return _finish(fig, out, title, note, legend=(handles, labs, 2))


@_styled
def skill_curve(df: pd.DataFrame, out, *, bands: dict | None = None,
                title: str = "Bethel Woods: win rate against player skill"):
    """The skill study's curve (experiments/study/skill_axis.py): win rate against the rungs of
    skill, weakest to strongest (equally spaced: the rungs are named players, not a measured
    scale), one line per spies level with its 95% Wilson band, one panel per player count; the
    designer's target bands shaded across each panel and named at its right edge.

    df: players, spies, difficulty, rung, rung_order, games, wins, study_player. bands: name ->
    (low, high) win rates."""
    _require(df, ["players", "spies", "difficulty", "rung", "rung_order", "games", "wins"], "df")
    panels = list(df.groupby("players", sort=True))
    fig, axes = _grid(len(panels), 2, 4.6, 4.4, sharey=True)
    rungs = list(df.sort_values("rung_order").drop_duplicates("rung")["rung"])
    spies = sorted(set(int(s) for s in df["spies"]))
    x = {r: i for i, r in enumerate(rungs)}
    band_colours = ["#757575"]   # one neutral grey: the bands never overlap, each is named, and the lines keep the colours
    for ax, (pl, g) in zip(axes, panels):
        for k, (name, (lo, hi)) in enumerate((bands or {}).items()):
            ax.axhspan(100 * lo, 100 * hi, color=band_colours[k % len(band_colours)], alpha=0.10, lw=0, zorder=0)
            if ax is axes[-1] or len(axes) == 1:
                ax.text(1.01, 100 * (lo + hi) / 2, f"{name}\n{100 * lo:g}–{100 * hi:g}%", transform=ax.get_yaxis_transform(),
                        va="center", ha="left", fontsize=8.5, color=band_colours[k % len(band_colours)])
        for sp in spies:
            h = g[g["spies"] == sp].sort_values("rung_order")
            if not len(h):
                continue
            lo, hi = wilson(h["wins"].to_numpy(), h["games"].to_numpy())
            xs = [x[r] for r in h["rung"]]
            colour = PALETTE[spies.index(sp) % len(PALETTE)]
            ax.fill_between(xs, 100 * lo, 100 * hi, color=colour, alpha=0.15, lw=0)
            ax.plot(xs, 100 * h["wins"] / h["games"], color=colour, lw=2, marker=MARKERS[spies.index(sp) % len(MARKERS)],
                    ls=LINESTYLES[(spies.index(sp) // len(MARKERS)) % len(LINESTYLES)], ms=5,
                    label=f"{sp} spies: {DIFFICULTY.get(sp, '')}" if sp != 1 else f"1 spy: {DIFFICULTY.get(sp, '')}")
        ax.set_xticks(range(len(rungs)))
        ax.set_xticklabels(rungs, rotation=20)
        ax.set_xlim(-0.3, len(rungs) - 0.7)
        ax.set_ylim(0, 100)
        ax.set_title(f"{pl} players", loc="left")
        ax.set_xlabel("Player (weakest to strongest)")
        _pct_axis(ax)
        ax.grid(axis="x", visible=False)
    axes[0].set_ylabel("Win rate (%)")
    handles, labs = _legend_entries(axes)
    study = ", ".join(sorted(df["study_player"].astype(str).unique())) if "study_player" in df.columns else ""
    note = (f"Players (bots, not people): {', '.join(rungs)}, each on the same seeds; {_games_phrase(df['games'], 'point')}. "
            "Shaded lines: 95% Wilson intervals; shaded across: the designer's target bands."
            + (f" The study player is {study}." if study else ""))
    return _finish(fig, out, title, note, legend=(handles, labs, min(3, len(labs))))


@_styled
def skill_seats(df: pd.DataFrame, out, title: str = "Benevolent: seat order against player skill",
                adopted: dict | None = None):
    """The skill study's Benevolent chart: seat 1's edge over its fair share and the largest seat
    gap (points, over the decided games) against the rungs of skill in self-play, with their 95%
    intervals, one panel per player count and leaves; a dashed line at no edge.

    df: players, leaves, rung, rung_order, games, edge, edge_low, edge_high, max_gap, gap_low, gap_high.
    adopted: {players: leaves name} of a handicap the report adopts (its panel says so)."""
    _require(df, ["players", "leaves", "rung", "rung_order", "games", "edge", "edge_low", "edge_high",
                  "max_gap", "gap_low", "gap_high"], "df")
    panels = list(df.groupby(["players", "leaves"], sort=False))   # the study file's order
    fig, axes = _grid(len(panels), 2, 4.6, 4.2, sharey=True)
    rungs = list(df.sort_values("rung_order").drop_duplicates("rung")["rung"])
    x = {r: i for i, r in enumerate(rungs)}
    for ax, ((pl, lv), g) in zip(axes, panels):
        g = g.sort_values("rung_order")
        xs = [x[r] for r in g["rung"]]
        for k, (col, lo, hi, label) in enumerate((("edge", "edge_low", "edge_high", "seat 1's edge over its fair share"),
                                                  ("max_gap", "gap_low", "gap_high", "largest seat gap"))):
            colour = PALETTE[k]
            ax.fill_between(xs, 100 * g[lo], 100 * g[hi], color=colour, alpha=0.15, lw=0)
            ax.plot(xs, 100 * g[col], color=colour, lw=2, marker=MARKERS[k], ms=5, label=label)
        ax.axhline(0, color="#555555", ls=":", lw=1.2)
        ax.set_xticks(range(len(rungs)))
        ax.set_xticklabels(rungs, rotation=20)
        ax.set_title(f"{pl} players, {lv} leaves" + (" (adopted)" if (adopted or {}).get(pl) == lv else ""),
                     loc="left")
        ax.set_xlabel("Player in every seat (weakest to strongest)")
        ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:+g}" if v else "0"))
        ax.grid(axis="x", visible=False)
    axes[0].set_ylabel("Points (of the decided games)")
    handles, labs = _legend_entries(axes)
    note = (f"Players (bots, not people): {', '.join(rungs)}, each playing every seat, on the same seeds; "
            f"{_games_phrase(df['games'], 'point')}. Shaded: 95% intervals (seat 1's edge: Wilson; the gap: from "
            "the simultaneous Goodman intervals). Dotted: no edge.")
    return _finish(fig, out, title, note, legend=(handles, labs, 2))


SENSITIVITY_COLUMNS = 3


@_styled
def sensitivity_forest(df: pd.DataFrame, out, title: str | None = None):
    """The sensitivity study (experiments/sensitivity.py): for every switch reading and alternative
    data table, the difference variant - default with its paired 95% interval, one panel per
    setup (Bethel Woods: spies at setup; Benevolent: players), readings by their plain names
    (experiments.glossary), ordered by their largest effect. A dashed line at 0 (no effect); a
    filled dot where the row is significant after Holm's correction over the table (when df has
    p_holm, as in every chart with filled markers; else where its interval excludes 0); a red cross beside a Benevolent
    row whose arms' timeouts differ by 5% of the games or more (its gap rests on fewer decided
    games). The legend lists only the markers the chart draws.

    df: columns game, variant, kind ("switch" or "table"), players, spies (Bethel Woods), metric,
    games, diff, ci_low, ci_high, policy, seed (fractions), and optionally p_holm,
    default_timeouts, variant_timeouts.
    """
    from .glossary import plain
    _require(df, ["game", "variant", "kind", "players", "metric", "games", "diff", "ci_low", "ci_high",
                  "policy", "seed"], "df")
    game = str(df["game"].iloc[0])
    facet = "spies" if game == BW.name else "players"
    setups = sorted(df[facet].unique())
    order = (df.assign(a=df["diff"].abs()).groupby("variant")["a"].max().sort_values().index.tolist())
    # at most SENSITIVITY_COLUMNS panels a row: six spies panels side by side made a chart 1,967 px
    # wide whose labels were 7 px tall in an 800 px page
    fig, axes = _grid(len(setups), SENSITIVITY_COLUMNS, 2.5, 0.3 * len(order) + 1.3, sharey=True)
    y = {v: i for i, v in enumerate(order)}
    lim = float(max(df["ci_high"].abs().max(), df["ci_low"].abs().max(), 0.005)) * 100 * 1.08
    holm = "p_holm" in df.columns
    timeouts = {"default_timeouts", "variant_timeouts"} <= set(df.columns)
    drawn = set()
    for ax, st in zip(axes, setups):
        d = df[df[facet] == st]
        ax.axvline(0, color="#555555", lw=1, ls="--", zorder=1)
        for r in d.itertuples():
            c = PALETTE[0] if r.kind == "switch" else PALETTE[1]
            drawn.add(r.kind)
            yi = y[r.variant]
            ax.hlines(yi, 100 * r.ci_low, 100 * r.ci_high, color=c, lw=2, zorder=2)
            sig = (r.p_holm < 0.05) if holm else (r.ci_low > 0 or r.ci_high < 0)
            drawn.add("filled" if sig else "hollow")
            ax.scatter([100 * r.diff], [yi], s=30, zorder=3, color=c if sig else "white", edgecolor=c, lw=1.4)
            if timeouts and abs(r.variant_timeouts - r.default_timeouts) >= 0.05 * r.games:
                drawn.add("timeouts")
                ax.scatter([100 * r.ci_high + 0.06 * lim], [yi], s=40, marker="x", color="#d55e00", zorder=5,
                           lw=1.6, clip_on=False)
        ax.set_xlim(-lim, lim)
        name = spies_label(st) if facet == "spies" else f"{int(st)} players"
        if "default" in d.columns and len(d):   # the one play of the defaults every row of the panel is read against
            name += f"\ndefaults: {100 * float(d['default'].iloc[0]):.0f}{'%' if game == BW.name else ' pp'}"
        ax.set_title(name, fontsize=10.5)
        ax.set_xlabel("points")
        ax.grid(axis="y", visible=False)
        ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(4, symmetric=True))
    axes[0].set_yticks(range(len(order)))
    axes[0].set_yticklabels([plain(v) for v in order])
    for ax in axes:   # every row's first panel shows the names (shared y), all at one size
        ax.tick_params(axis="y", labelsize=9)
    axes[0].set_ylim(-0.7, len(order) - 0.3)
    from matplotlib.lines import Line2D
    legend = [("switch", Line2D([], [], color=PALETTE[0], marker="o", lw=2), "rules reading (the other one)"),
              ("table", Line2D([], [], color=PALETTE[1], marker="o", lw=2), "assumed data table (an alternative)"),
              ("filled", Line2D([], [], ls="none", marker="o", markersize=6, color="#555555"),
               FILLED_HOLM if holm else "filled: the interval excludes 0 (no correction)"),
              ("hollow", Line2D([], [], ls="none", marker="o", markersize=6, markerfacecolor="white",
                                markeredgecolor="#555555"), HOLLOW_HOLM if holm else "hollow: the interval includes 0"),
              ("timeouts", Line2D([], [], ls="none", marker="x", color="#d55e00", markersize=7, mew=1.6),
               "x: timeouts differ by 5% of the games or more")]
    handles = [h for key, h, _ in legend if key in drawn]
    labels = [lab for key, _, lab in legend if key in drawn]
    metric = str(df["metric"].iloc[0])
    if title is None:
        title = ("Bethel Woods: how much each reading moves the win rate (3 players)" if game == BW.name
                 else "Benevolent: how much each reading moves the largest seat gap")
    interval = ("paired 95% intervals (Newcombe square-and-add)" if game == BW.name
                else "paired 95% bootstrap intervals")
    per = df.groupby(facet)["games"].first()
    played = int(per.sum() * (len(order) + 1))   # every variant's arm and the defaults' once per panel
    each = (f"{_n(per.min())} games per arm and panel" if per.min() == per.max()
            else f"{_n(per.min())} to {_n(per.max())} games per arm and panel")
    note = (f"{_policy_phrase(df['policy'])}. Variant minus default {metric}, in percentage points, on "
            f"common seeds (seed {int(df['seed'].iloc[0])}): {each}, {_n(played)} games in all; "
            f"lines: {interval}"
            + (f"; Holm's correction over all {len(df)} rows" if holm else "") + ". Every row of a panel is "
            "paired with the same play of the defaults (its figure under the panel's name): where that play came out "
            "high or low by chance, all of the panel's rows lean the same way together, so rows leaning alike in "
            "one panel are not by themselves a finding.")
    if "timeouts" in drawn:
        t = df[(df["variant_timeouts"] - df["default_timeouts"]).abs() >= 0.05 * df["games"]]
        note += " Timeouts differ: " + "; ".join(
            f"{plain(r.variant)} at {int(r.players)} players, {_n(r.variant_timeouts)} of {_n(r.games)} games "
            f"against {_n(r.default_timeouts)}" for r in t.itertuples()) + "."
    return _finish(fig, out, title, note, legend=(handles, labels, 2))


@_styled
def paired_differences(pairs: pd.DataFrame, out, *, outcome: str = "win rate",
                       title: str = "Rule variants: change in the win rate against the defaults"):
    """Each variant's difference from the default rules on the same seeds, with its paired 95%
    interval and a line at 0 (no change); one row per variant x setting, the row's label giving
    the defaults' rate and the variant's (the baseline the change is read against).

    pairs: columns variant, label (the setting, e.g. "3 players, 0 spies"), policy, games,
    diff, diff_low, diff_high (fractions), significant (bool: after the multiple-comparison
    correction), and optionally title (the variant's plain name), wins_default and wins_variant.
    """
    _require(pairs, ["variant", "label", "policy", "games", "diff", "diff_low", "diff_high",
                     "significant"], "pairs")
    p = pairs.reset_index(drop=True)
    names = p["title"] if "title" in p.columns else p["variant"]
    fig = _figure((8.4, 0.55 * len(p) + 1.5))
    ax = fig.subplots()
    y = np.arange(len(p))[::-1]
    variants = list(dict.fromkeys(names))
    ax.axvline(0.0, color="#555555", lw=1, ls="--", zorder=1)
    for v in variants:
        sel = (names == v).to_numpy()
        colour = PALETTE[variants.index(v) % len(PALETTE)]
        d, lo, hi = 100 * p["diff"][sel], 100 * p["diff_low"][sel], 100 * p["diff_high"][sel]
        ax.hlines(y[sel], lo, hi, color=colour, lw=2, zorder=2)
        sig = p["significant"][sel].astype(bool).to_numpy()
        ax.scatter(d[sig], y[sel][sig], s=42, color=colour, zorder=3)
        ax.scatter(d[~sig], y[sel][~sig], s=42, facecolor="white", edgecolor=colour, lw=1.6,
                   zorder=3)
    base = ("wins_default" in p.columns and "wins_variant" in p.columns)
    ax.set_yticks(y)
    ax.set_yticklabels([lab + (f"\ndefaults {100 * wd / g:.0f}%, with it {100 * wv / g:.0f}%" if base else "")
                        for lab, wd, wv, g in zip(p["label"], p.get("wins_default", p["games"]),
                                                  p.get("wins_variant", p["games"]), p["games"])], fontsize=9)
    ax.set_xlabel(f"Change in {outcome} (percentage points; variant minus defaults)")
    ax.grid(axis="y", visible=False)
    from matplotlib.lines import Line2D
    handles = [Line2D([], [], color=PALETTE[i % len(PALETTE)], lw=2, marker="o", ms=6)
               for i in range(len(variants))]
    labs = list(variants)
    if p["significant"].astype(bool).any():
        handles.append(Line2D([], [], ls="", marker="o", ms=6, color="#333333"))
        labs.append(FILLED_HOLM)
    if (~p["significant"].astype(bool)).any():
        handles.append(Line2D([], [], ls="", marker="o", ms=6, mfc="white", mec="#333333", mew=1.6))
        labs.append(HOLLOW_HOLM)
    note = (f"{_policy_phrase(p['policy'])}. {_games_phrase(p['games'], 'row')}, the same seeds "
            "for the variant and the defaults. Lines: paired 95% intervals; filled dots: "
            "significant by McNemar's test after Holm's correction.")
    return _finish(fig, out, title, note, legend=(handles, labs, min(2, len(labs))))

