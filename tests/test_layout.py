"""The state layouts: one table per game (engine.STATE, Benevolent's per-player block engine.PLAYER,
the setup arguments engine.CFG) with no overlap and no gap, the engine's module constants equal to
the table's offsets, every field of the table in the JSON position exactly once (or a cache, in it
not at all), and the docs' state-layout sections true."""
import re
from pathlib import Path

import numpy as np
import pytest

from simcore import layout as L
from simcore.benevolent import engine as VE, face as VF
from simcore.bethel_woods import engine as BE, face as BF

DOCS = Path(__file__).resolve().parents[1] / "docs"
GAMES = [pytest.param(BE, BF, "bethel_woods.md", id="bethel_woods"),
         pytest.param(VE, VF, "benevolent.md", id="benevolent")]


def covered(E, table, base=0):
    """index -> names, computed from the engine's module constants (not the table's offsets), so a
    constant bound by hand elsewhere would show as a hole or an overlap."""
    own = {}
    for f in table.fields:
        assert f.size > 0 and f.rows > 0 and f.width > 0, f.name
        start = base + getattr(E, f.name)
        if f.block is None:
            for i in range(f.size):
                own.setdefault(start + i, []).append(f.name)
        else:
            assert f.width == f.block.size
            for q in range(f.rows):
                for i, names in covered(E, f.block, start + f.width * q).items():
                    own.setdefault(i, []).extend(f"{f.name}[{q}].{n}" for n in names)
    return own


@pytest.mark.parametrize("E, F, page", GAMES)
def test_layout_has_no_overlap_and_no_gap(E, F, page):
    own = covered(E, E.STATE)
    assert sorted(own) == list(range(E.S_SIZE)), "an index of s outside every field, or past S_SIZE"
    assert all(len(names) == 1 for names in own.values()), {i: n for i, n in own.items() if len(n) > 1}
    assert E.S_SIZE == sum(f.size for f in E.STATE.fields) == E.STATE.size
    assert [len(n) for n in E.STATE.owners()] == [1] * E.S_SIZE
    cfg = covered(E, E.CFG)
    assert sorted(cfg) == list(range(E.CFG_SIZE)) and all(len(n) == 1 for n in cfg.values())



@pytest.mark.parametrize("game", ["bethel_woods", "benevolent"])
def test_rules_params_layout_has_no_overlap_and_no_gap(game):
    """The rules data array (rules.PARAMS, read by the compiled engine through the P_* offsets):
    every index in exactly one field, the module constants the table's offsets, N_PARAMS its size;
    and every default and alternative rules set fills an array of that size (Bethel Woods' last
    entry, once a spare, is switch ability_off: 0, no ability off, in each of them)."""
    from simcore.games import GAMES
    R = GAMES[game].rules_module
    own = covered(R, R.PARAMS)
    assert sorted(own) == list(range(R.N_PARAMS)), "an index of the params outside every field, or past N_PARAMS"
    assert all(len(names) == 1 for names in own.values()), {i: n for i, n in own.items() if len(n) > 1}
    assert R.N_PARAMS == R.PARAMS.size and all(f.name.startswith("P_") for f in R.PARAMS.fields)
    for rules in [R.Rules()] + [R.load_rules(name) for name in R.ALTERNATIVES]:
        p = rules.params
        assert p.shape == (R.N_PARAMS,)
        if hasattr(R, "P_SW_ABILITY"):
            assert p[R.P_SW_ABILITY] == 0

def test_benevolent_player_block():
    assert VE.PS == VE.PLAYER.size and VE.STATE.fields[-1].name == "PL"
    assert VE.S_SIZE == VE.PL + VE.MAX_PLAYERS * VE.PS
    own = covered(VE, VE.PLAYER)
    assert sorted(own) == list(range(VE.PS)) and all(len(n) == 1 for n in own.values())
    names = VE.STATE.owners()
    assert names[VE.PL + 2 * VE.PS + VE.L_GIFTS + 1] == ["PL[2].L_GIFTS"]


@pytest.mark.parametrize("E, F, page", GAMES)
def test_every_field_is_in_the_json_position_once(E, F, page):
    shown = L.fields_named(F.POSITION)
    names = {f.name: f for f in E.STATE.fields}
    for f in E.STATE.fields:
        for g in (f.block.fields if f.block is not None else [f]):
            n = shown.count(g.name)
            assert n == (0 if g.decode is None else 1), f"{g.name} is shown {n} times (decode {g.decode})"
            names[g.name] = g
    assert set(shown) <= set(names), set(shown) - set(names)


@pytest.mark.parametrize("E, F, page", GAMES)
def test_docs_state_layout_section(E, F, page):
    text = (DOCS / page).read_text()
    section = text.split("## State layout", 1)[1].split("\n## ", 1)[0]
    assert "`simcore/layout.py`" in section and "`engine.STATE`" in section
    sizes = [int(x) for x in re.findall(r"`S_SIZE` = (\d+)", section)]
    assert sizes == [E.S_SIZE], f"{page}: the section gives S_SIZE {sizes}, the code {E.S_SIZE}"
    # every field named in the section (as `NAME`) is a field of the table
    fields = {g.name for f in E.STATE.fields for g in ([f] + (f.block.fields if f.block else []))}
    named = set(re.findall(r"`([A-Z][A-Z0-9_]+)`", section)) - {"S_SIZE", "PS", "CFG_SIZE", "N_PARAMS"}
    R = __import__(E.__name__.rsplit(".", 1)[0] + ".rules", fromlist=["PARAMS"])   # the rules data's table, which the section may name
    assert named and named <= fields | {f.name for f in R.PARAMS.fields}, named - fields
    for name, value in re.findall(r"`(P_[A-Z0-9_]+)` = (\d+)", section):   # offsets the section quotes are the code's
        assert getattr(R, name) == int(value), name


def test_codecs_round_trip():
    import numpy as np
    for codec, value in [(L.Int(), 5), (L.Bool(), True), (L.Opt(add=1), 3), (L.Opt(), None),
                         (L.Name(("a", "b")), "b"), (L.Name(("a", "b")), None),
                         (L.Choice({1: "cw", -1: "ccw", 0: None}), "ccw"),
                         (L.PerName(("x", "y")), {"x": 1, "y": 0}), (L.Counts(("x", "y")), {"y": 2}),
                         (L.Flags(("x", "y", "z")), ["x", "z"]), (L.Bits(14), [0, 3, 13]),
                         (L.Sorted(), [2, 7])]:
        width = 3 if isinstance(codec, (L.PerName, L.Counts, L.Flags, L.Sorted)) else 1
        a = np.full(width, codec.empty, dtype=np.int32)
        codec.read(value, a)
        assert codec.show(a) == value and codec.show(a.tolist()) == value, (codec, value)
        # the shower's compiled form of the codec (layout.Codec.code) shows the same, also as the
        # second row of a field with rows, after another field
        one = L.Layout(("PAD", 2, L.Int(), ""), ("X", (2, width), codec, ""))
        s = one.empty()
        s[2 + width: 2 + 2 * width] = a
        shown = L.shower(one, {"x": L.Rows(2, "X")})(s)["x"]
        assert shown[1] == value and shown[0] == codec.show(one.empty()[2: 2 + width]), (codec, shown)
        assert L.shower(one, L.Rows(2, "X"))(s) == shown


def _bw_workspaces():
    from policies.bethel_woods import expert, heuristic, learned, search
    return [pytest.param(m, id=m.__name__.rsplit(".", 1)[1]) for m in (heuristic, learned, expert, search)]


@pytest.mark.parametrize("mod", _bw_workspaces())
def test_bethel_woods_workspaces_have_no_overlap_and_no_gap(mod):
    """The Bethel Woods players' int32 workspaces (issue 44 part 4): one Layout table each, its
    fields the module's constants with no overlap and no gap, WS_SIZE its size; a player's table
    begins with the workspaces of the players it runs (learned: the heuristic's, padded to an even
    size; expert: two learned; search: two heuristic), and every float64 field (two int32 entries a
    value, read through a float64 view) starts at an even offset."""
    from policies.bethel_woods import heuristic as H, learned as Lr
    own = covered(mod, mod.WS)
    assert sorted(own) == list(range(mod.WS_SIZE)) and all(len(n) == 1 for n in own.values())
    assert mod.WS_SIZE == mod.WS.size == sum(f.size for f in mod.WS.fields)
    below = {"learned": H.WS_SIZE + (H.WS_SIZE & 1), "expert": 2 * Lr.WS_SIZE, "search": 2 * H.WS_SIZE}
    name = mod.__name__.rsplit(".", 1)[1]
    if name in below:
        assert mod.WS.fields[0].offset == 0 and mod.WS.fields[0].size == below[name]
    for f in getattr(mod, "FLOAT_FIELDS", ()):
        assert getattr(mod, f) % 2 == 0 and mod.WS.fields[[g.name for g in mod.WS.fields].index(f)].size % 2 == 0, f


def _bv_workspaces():
    from policies.benevolent import expert, heuristic, learned, search
    return [pytest.param(m, id=m.__name__.rsplit(".", 1)[1]) for m in (heuristic, learned, expert, search)]


def _bv_wide_views():
    """The workspace fields the Benevolent players' code reads through a float64 or uint64 view
    (``ws[L_FV:L_FV + 2 * NF].view(np.float64)``, ``rws[L.L_CH:...].view(np.uint64)``), found in
    their source: {field name: files}."""
    root = Path(__file__).resolve().parents[1]
    files = sorted((root / "policies" / "benevolent").glob("*.py")) + [root / "arena" / "benevolent" / "selfplay.py"]
    found = {}
    for f in files:
        for name in re.findall(r"\w+\[\s*(?:\w+\.)?([A-Z][A-Z0-9_]*)\b[^\]]*\]\.view\(np\.(?:float64|uint64)\)", f.read_text()):
            found.setdefault(name, set()).add(f.name)
    return found


@pytest.mark.parametrize("mod", _bv_workspaces())
def test_benevolent_workspaces_have_no_overlap_and_no_gap(mod):
    """The Benevolent players' int32 workspaces (issue 44 part 4), as Bethel Woods': one Layout
    table each, its fields the module's constants with no overlap and no gap (a pad before a field
    marked EVEN is a field of its own), WS_SIZE its size; a player's table begins with the
    workspaces of the players it runs (learned: the heuristic's, padded to an even size; expert:
    two learned, each padded; search: the heuristic's, and the rollouts' one at an even offset);
    every field starts at a multiple of its alignment, and every field the players' code reads
    through a float64 or uint64 view is marked EVEN."""
    from policies.benevolent import heuristic as H, learned as Lr, expert as X
    own = covered(mod, mod.WS)
    assert sorted(own) == list(range(mod.WS_SIZE)) and all(len(n) == 1 for n in own.values())
    assert mod.WS_SIZE == mod.WS.size == sum(f.size for f in mod.WS.fields)
    for f in mod.WS.fields:
        assert getattr(mod, f.name) == f.offset and f.offset % f.align == 0, f.name
        if f.name.endswith("_PAD"):
            assert f.size < mod.WS.fields[mod.WS.fields.index(f) + 1].align, f.name
    assert Lr.HWS % 2 == 0 and X.LWS % 2 == 0 and X.LWS >= Lr.WS_SIZE and Lr.HWS >= H.WS_SIZE
    name = mod.__name__.rsplit(".", 1)[1]
    below = {"learned": Lr.HWS, "expert": 2 * X.LWS, "search": H.WS_SIZE}
    if name in below:
        assert mod.WS.fields[0].offset == 0 and mod.WS.fields[0].size == below[name]
    if name == "search":
        assert mod.W_SUB % 2 == 0 and mod.WS_SIZE - mod.W_SUB == H.WS_SIZE
    wide = {n for n in _bv_wide_views() if n in mod.WS.offsets}
    assert name != "learned" or {"L_FV", "L_H", "L_TAB", "L_CH", "L_V", "L_X", "L_WM", "L_WT", "L_ACC"} <= wide
    for n in wide:
        f = mod.WS.fields[[g.name for g in mod.WS.fields].index(n)]
        assert f.align % 2 == 0 and f.offset % 2 == 0 and f.size % 2 == 0, n


def test_benevolent_views_are_of_workspace_fields():
    """Every float64/uint64 view the scan above finds is of a field of some Benevolent workspace
    (so the check above sees them all: a view of an unknown name would be a view it misses)."""
    from policies.benevolent import expert, heuristic, learned, search
    names = set().union(*(m.WS.offsets for m in (heuristic, learned, expert, search)))
    found = _bv_wide_views()
    assert found and set(found) <= names, {n: f for n, f in found.items() if n not in names}


def test_layout_align():
    """A row's fifth entry `align` (simcore/layout.py): the field starts at the next multiple of it,
    the entries skipped are a field `<name>_PAD` of their own (no gap, no overlap), an aligned
    field needs no pad, and the tables without it (every state and Bethel Woods workspace) are the
    running sums they were."""
    t = L.Layout(("A", 3, None, ""), ("F", 4, None, "float64", L.EVEN), ("B", 1, None, ""),
                 ("G", 2, None, "uint64", L.EVEN), ("C", 5, None, "", 8))
    assert t.offsets == {"A": 0, "F_PAD": 3, "F": 4, "B": 8, "G_PAD": 9, "G": 10, "C_PAD": 12, "C": 16}
    assert t.size == 21 and [len(n) for n in t.owners()] == [1] * t.size
    assert [f.align for f in t.fields] == [1, 1, 2, 1, 1, 2, 1, 8] and t.fields[-2].size == 4
    assert L.Layout(("A", 2, None, ""), ("F", 2, None, "", L.EVEN)).offsets == {"A": 0, "F": 2}
    for bad in [0, -2, 1.5]:
        with pytest.raises(ValueError):
            L.Layout(("A", 1, None, ""), ("F", 2, None, "", bad))
    with pytest.raises(ValueError):
        L.Layout(("A", 1, None, "", 2, 3))
    plain = L.Layout(("A", 3, None, ""), ("F", 4, None, ""))
    assert plain.offsets == {"A": 0, "F": 3} and all(f.align == 1 for f in plain.fields)


def _learned_players():
    from policies.benevolent import expert as VX, heuristic as VH, learned as VL
    from policies.bethel_woods import expert as BX, heuristic as BH, learned as BL
    return [pytest.param(BL, BX, BH, id="bethel_woods"), pytest.param(VL, VX, VH, id="benevolent")]


@pytest.mark.parametrize("L_, X_, H_", _learned_players())
def test_the_learned_players_vectors_are_laid_out_by_a_table_and_hold_no_network(L_, X_, H_):
    """The learned and expert players' float64 parameter vector (issue 44 part 4): one Layout
    table, its fields the module's T_ constants with no overlap and no gap, THETA_SIZE its size,
    the heuristic's weights first; the network is an array of its own (NET_SIZE, far longer than
    the vector), so neither default vector holds one."""
    own = covered(L_, L_.THETA)
    assert sorted(own) == list(range(L_.THETA_SIZE)) and all(len(n) == 1 for n in own.values())
    assert L_.THETA.fields[0].name == "T_WEIGHTS" and L_.T_K == len(H_.THETA_DEFAULT)
    t, x = L_.learned_theta(), X_.expert_theta()
    assert len(t) == len(x) == L_.THETA_SIZE and np.array_equal(t[:L_.T_K], H_.THETA_DEFAULT)
    assert t[L_.T_K] == L_.K_DEFAULT and x[L_.T_M] == X_.M_DEFAULT and x[L_.T_DEPTH] == X_.DEPTH_DEFAULT
    assert L_.THETA_SIZE < 64 < L_.NET_SIZE == len(L_.learned_net())
