"""Every worked example of the Bethel Woods rulebook, and a scripted test for each rule.

Each scenario runs on the compiled and the reference engine together (bw_helpers.Both), which
assert after every step that both engines hold the same position and legal actions."""
import pytest

from bw_helpers import Both, kind, scenario
from simcore.bethel_woods.actions import kind_name

SETUP_WORKERS = {1: ["Technician", "Electrician"], 2: ["Mechanic", "Engineer"], 3: ["Mechanic", "Electrician"],
                 4: ["Engineer", "Technician"], 5: ["Engineer", "Electrician"], 6: ["Mechanic", "Technician"]}
QUIET_TILES = ("uncover_plus_1", "ability_tax", "construct_plus_1", "redirect", "knowledge_limit_6",
               "extra_malfunction")


def mal(machine, type_name, n=1):
    return [(machine, type_name)] * n


def know(b, q=0):
    return b.d["knowledge"][q]


# ---- Fixing malfunctions ------------------------------------------------------------------------
def test_two_electricians_present_let_a_third_fix_three():
    # "if there were already 2 other Electricians present, they could together fix up to 3"
    b = Both(scenario(workers={2: ["Electrician"], 3: ["Electrician", "Electrician", "Mechanic"]},
                      malfunctions={3: mal(3, "Electrical", 4)}))
    b.do("pick up Machine 2 clockwise", "drop Electrician")
    assert b.d["phase"] == "fix" and b.d["turn_state"]["fixes_left"] == 3
    b.do("fix M3 Electrical", "fix M3 Electrical", "fix M3 Electrical")
    assert b.d["phase"] == "post"  # three activated workers fixed three: no fourth
    assert b.d["machines"][2]["malfunctions"] == {"M3 Electrical": 1}
    assert know(b) == {"M3 Electrical": 3}


def test_a_lone_electrician_fixes_one():
    b = Both(scenario(workers={2: ["Electrician"], 3: ["Mechanic"]}, malfunctions={3: mal(3, "Electrical", 3)}))
    b.do("pick up Machine 2 clockwise", "drop Electrician", "fix M3 Electrical")
    assert b.d["phase"] == "post" and know(b) == {"M3 Electrical": 1}


def test_fixing_is_optional_and_only_of_the_workers_type():
    b = Both(scenario(workers={2: ["Electrician"], 3: ["Mechanic"]},
                      malfunctions={3: mal(3, "Electrical") + mal(3, "Mechanical")}))
    b.do("pick up Machine 2 clockwise", "drop Electrician")
    assert sorted(b.legal()) == ["fix M3 Electrical", "stop fixing"]
    b.do("stop fixing")
    assert b.d["phase"] == "post" and know(b) == {}


def test_page4_move_from_machine1_anticlockwise():
    # 2 workers from Machine 1: the Technician on Machine 6 (which has a Technician: up to 2
    # Digital fixed) and the Electrician on Machine 5 (no Electrician there: up to 1).
    w = dict(SETUP_WORKERS)
    w[5] = ["Engineer"]
    w[4] = ["Engineer", "Technician", "Electrician"]
    b = Both(scenario(workers=w, malfunctions={6: mal(6, "Digital", 3), 5: mal(5, "Electrical", 2)}))
    b.do("pick up Machine 1 anticlockwise", "drop Technician")
    assert b.d["turn_state"]["position"] == 6 and b.d["turn_state"]["fixes_left"] == 2
    b.do("fix M6 Digital", "fix M6 Digital")
    assert b.d["phase"] == "move"
    b.do("drop Electrician")
    assert b.d["turn_state"]["position"] == 5 and b.d["turn_state"]["fixes_left"] == 1
    b.do("fix M5 Electrical")
    assert b.d["phase"] == "post"
    assert know(b) == {"M6 Digital": 2, "M5 Electrical": 1}


def test_page4_the_clockwise_alternative_reaches_machines_2_and_3():
    b = Both(scenario(workers=SETUP_WORKERS))
    b.do("pick up Machine 1 clockwise", "drop Technician")
    assert b.d["turn_state"]["position"] == 2
    b.do("drop Electrician")
    assert b.d["turn_state"]["position"] == 3
    assert b.d["machines"][0]["workers"] == {"Mechanic": 0, "Engineer": 0, "Technician": 0, "Electrician": 0}


def test_direction_is_kept_and_one_worker_is_dropped_per_step():
    w = {3: ["Mechanic", "Engineer", "Technician", "Electrician"]}
    b = Both(scenario(workers=w))
    b.do("pick up Machine 3 anticlockwise")
    for expect in (2, 1, 6):
        b.do(f"drop {b.d['turn_state']['hand'] and [k for k, v in b.d['turn_state']['hand'].items() if v][0]}")
        assert b.d["turn_state"]["position"] == expect


# ---- Constructing the Daydreamer --------------------------------------------------------------------
def orphanage_example(last="Electrician", rules=None):
    w = {5: ["Engineer", "Electrician", "Electrician"], 6: ["Mechanic", "Technician"],
         1: ["Technician", "Electrician"]}
    return Both(scenario(workers=w, malfunctions={6: mal(6, "Structural"), 1: mal(1, "Electrical")}), rules)


def _alternatives():
    from simcore.bethel_woods.rules import ALTERNATIVES
    return sorted(ALTERNATIVES)


@pytest.mark.parametrize("name", [None] + _alternatives())
def test_three_workers_from_machine5_last_into_the_top_section(name):
    """The rulebook's Orphanage example, under the default data and under every named alternative
    table: an alternative that made this worked example illegal would contradict the rulebook."""
    from simcore.bethel_woods.rules import load_rules
    b = orphanage_example(rules=load_rules(name) if name else None)
    b.do("pick up Machine 5 clockwise", "drop Engineer", "fix M6 Structural")
    b.do("drop Electrician", "fix M1 Electrical")
    assert b.d["phase"] == "move"
    assert "enter Orphanage" in b.legal() and "drop Electrician" in b.legal()  # or onto Machine 2
    b.do("enter Orphanage")
    assert b.legal() == ["pay M1 Electrical"]  # 1 Electrical knowledge; not the Structural one
    b.do("pay M1 Electrical")
    d = b.d
    assert d["orphanage"] == ["Electrician", None, None, None, None, None]
    assert d["daydreamer_built"] == 1 and d["phase"] == "post"
    assert d["discard"] == {"M1 Electrical": 1} and know(b) == {"M6 Structural": 1}


def test_a_section_only_takes_its_two_worker_types():
    b = orphanage_example()
    b.do("pick up Machine 5 clockwise", "drop Electrician", "drop Electrician", "fix M1 Electrical")
    assert b.d["turn_state"]["hand"]["Engineer"] == 1
    assert "enter Orphanage" not in b.legal()  # section 1 takes Technicians and Electricians


def test_an_occupied_section_cannot_be_entered_and_costs_rise():
    orph = [None, "Mechanic", "Engineer", None, None, None]
    b = Both(scenario(workers={6: ["Electrician"]}, orphanage=orph,
                      knowledge={0: mal(1, "Electrical", 2) + mal(3, "Electrical")}))
    b.do("pick up Machine 6 clockwise")
    # 1 worker picked up: it could enter the section of its source machine, but section 6 takes
    # Mechanics and Technicians only
    with pytest.raises(ValueError, match="illegal"):
        b.do("enter Orphanage")
    b2 = Both(scenario(workers={2: ["Mechanic"]}, orphanage=[None, "Engineer", None, None, None, None],
                       knowledge={0: mal(1, "Mechanical", 3)}))
    b2.do("pick up Machine 2 clockwise")
    assert "enter Orphanage" not in b2.legal()  # section 2 is taken
    b3 = Both(scenario(workers={2: ["Mechanic"]}, orphanage=[None, None, "Engineer", None, None, None],
                       knowledge={0: mal(1, "Mechanical", 2)}))
    b3.do("pick up Machine 2 clockwise", "enter Orphanage")
    assert b3.d["payment"]["need"]["Mechanical"] == 2  # the second worker costs 2


def test_third_worker_costs_three_knowledge():
    orph = [None, "Mechanic", "Engineer", None, None, None]
    b = Both(scenario(workers={1: ["Electrician"]}, orphanage=orph,
                      knowledge={0: mal(1, "Electrical", 2) + mal(3, "Electrical") + mal(2, "Digital")}))
    b.do("pick up Machine 1 clockwise", "enter Orphanage")
    assert b.d["payment"]["need"]["Electrical"] == 3
    b.do("pay M1 Electrical", "pay M1 Electrical", "pay M3 Electrical")
    assert b.d["daydreamer_built"] == 3 and know(b) == {"M2 Digital": 1}


def test_not_enough_knowledge_no_entry():
    orph = [None, "Mechanic", "Engineer", None, None, None]
    b = Both(scenario(workers={1: ["Electrician"]}, orphanage=orph, knowledge={0: mal(1, "Electrical", 2)}))
    b.do("pick up Machine 1 clockwise")
    assert "enter Orphanage" not in b.legal()


def test_orphanage_workers_are_locked():
    orph = ["Electrician", None, None, None, None, None]
    b = Both(scenario(workers={2: ["Mechanic"]}, orphanage=orph))
    assert b.legal() == ["pick up Machine 2 clockwise", "pick up Machine 2 anticlockwise"]


# ---- Uncovering spies -------------------------------------------------------------------------------
def spy6(knowledge, character="Nova", tiles=None, malfunctions=None):
    return Both(scenario(characters=(character, "Harris"), workers={5: ["Mechanic"]}, spies=(6,),
                         knowledge={0: knowledge}, tiles=tiles, malfunctions=malfunctions))


def test_machine6_spy_is_paid_with_mechanical_and_digital():
    b = spy6([(1, "Mechanical"), (2, "Digital"), (3, "Electrical")])
    b.do("pick up Machine 5 clockwise", "drop Mechanic")
    assert "uncover spy" in b.legal()
    b.do("uncover spy")
    assert b.legal() == ["pay M1 Mechanical", "pay M2 Digital"]
    b.do("pay M2 Digital", "pay M1 Mechanical")
    d = b.d
    assert not d["machines"][5]["spy"] and d["spy_stack"]["returned"][-1] == 6  # to the bottom of the stack
    assert know(b) == {"M3 Electrical": 1} and d["stats"]["spies_uncovered"] == 1
    assert "uncover spy" not in b.legal()


def test_no_uncover_without_the_right_types():
    b = spy6([(1, "Mechanical"), (3, "Electrical")])
    b.do("pick up Machine 5 clockwise", "drop Mechanic")
    assert "uncover spy" not in b.legal()


def test_fenn_substitutes_one_required_knowledge():
    b = spy6([(1, "Mechanical"), (3, "Electrical")], character="Fenn")
    b.do("pick up Machine 5 clockwise", "drop Mechanic")
    assert "uncover spy (Fenn)" in b.legal() and "uncover spy" not in b.legal()
    b.do("uncover spy (Fenn)", "pay M3 Electrical", "pay M1 Mechanical")
    assert not b.d["machines"][5]["spy"] and b.d["turn_state"]["ability_used"]


def test_fare_uncovers_an_adjacent_spy_for_one_more_knowledge():
    b = Both(scenario(characters=("Fare", "Nova"), workers={4: ["Mechanic"]}, spies=(6,),
                      knowledge={0: [(1, "Mechanical"), (2, "Digital"), (3, "Electrical")]}))
    b.do("pick up Machine 4 clockwise", "drop Mechanic")  # last worker on Machine 5
    assert "uncover spy clockwise (Fare)" in b.legal()
    b.do("uncover spy clockwise (Fare)")
    assert b.d["payment"]["any"] == 1
    b.do("pay M3 Electrical", "pay M1 Mechanical", "pay M2 Digital")
    assert not b.d["machines"][5]["spy"] and know(b) == {}


def test_fare_needs_the_extra_knowledge():
    b = Both(scenario(characters=("Fare", "Nova"), workers={4: ["Mechanic"]}, spies=(6,),
                      knowledge={0: [(1, "Mechanical"), (2, "Digital")]}))
    b.do("pick up Machine 4 clockwise", "drop Mechanic")
    assert "uncover spy clockwise (Fare)" not in b.legal()


# ---- Placing malfunctions and spies, critical conditions ---------------------------------------------
def end_of_turn(malfunctions, tiles=QUIET_TILES, **kw):
    return Both(scenario(malfunctions=malfunctions, tiles=tiles, phase="post", **kw))


def test_machine1_goes_critical_and_a_spy_sneaks_in():
    b = end_of_turn({1: mal(1, "Digital", 3)}, stack=[5, 1, 2, 3, 4, 6])
    b.do("end turn")
    assert b.d["phase"] == "chance_malfunction"
    b.chance(kind(1, "Mechanical"))
    assert b.d["machines"][0]["critical_face_up"]
    b.chance(kind(4, "Digital"), kind(2, "Digital"))
    assert b.d["phase"] == "chance_spy"
    b.chance(4)  # spy 5 from the top of the stack
    d = b.d
    assert d["machines"][4]["spy"] and d["spy_stack"]["returned"] == [1, 2, 3, 4, 6]
    assert d["phase"] == "pre" and d["current_player"] == 1


def test_no_spy_when_no_machine_goes_critical():
    b = end_of_turn({1: mal(1, "Digital", 4)})  # already critical: placing more is not "going" critical
    b.do("end turn").chance(kind(1, "Mechanical"), kind(4, "Digital"), kind(2, "Digital"))
    assert b.d["phase"] == "pre"


def test_spy_counts_towards_the_critical_limit():
    b = end_of_turn({3: mal(3, "Digital", 2)}, spies=(3,))
    assert not b.d["machines"][2]["critical_face_up"]  # 2 malfunctions + 1 spy
    b.do("end turn").chance(kind(3, "Mechanical"))
    assert b.d["machines"][2]["critical_face_up"]  # 3 + spy


def test_redirect_past_critical_machine4():
    tiles = ("ability_tax", "knowledge_limit_6", "redirect", "uncover_plus_1", "construct_plus_1", "extra_malfunction")
    b = end_of_turn({3: mal(3, "Digital", 3), 4: mal(4, "Digital", 4)}, tiles=tiles)
    b.do("end turn").chance(kind(3, "Mechanical"))
    assert b.d["machines"][2]["critical_face_up"]
    b.chance(kind(3, "Structural"))  # for Machine 3, which redirects: Machine 4 is critical too
    assert b.d["machines"][4]["malfunctions"] == {"M3 Structural": 1}
    assert "M3 Structural" not in b.d["machines"][2]["malfunctions"]


def test_redirect_only_while_critical():
    tiles = ("ability_tax", "knowledge_limit_6", "redirect", "uncover_plus_1", "construct_plus_1", "extra_malfunction")
    b = end_of_turn({3: mal(3, "Digital", 2)}, tiles=tiles)
    b.do("end turn").chance(kind(3, "Mechanical"))
    assert b.d["machines"][2]["malfunctions"]["M3 Mechanical"] == 1


def test_knowledge_limit_6_revealed_makes_everyone_discard_at_once():
    tiles = ("knowledge_limit_6", "ability_tax", "construct_plus_1", "redirect", "uncover_plus_1", "extra_malfunction")
    k7 = mal(2, "Digital", 7)
    b = end_of_turn({1: mal(1, "Digital", 3)}, tiles=tiles, knowledge={0: k7, 1: mal(3, "Mechanical", 7)})
    b.do("end turn")
    assert b.d["phase"] == "chance_malfunction"  # 7 is within the limit of 7
    b.chance(kind(1, "Mechanical"))
    assert b.d["phase"] == "pay" and b.d["payment"]["payer"] == 0 and b.d["payment"]["any"] == 1
    b.do("pay M2 Digital")
    assert b.d["payment"]["payer"] == 1
    b.do("pay M3 Mechanical")
    assert b.d["phase"] == "chance_malfunction" and b.d["placement"]["left"] == 2


def test_limit_6_holds_at_end_of_turn_while_active():
    tiles = ("knowledge_limit_6", "ability_tax", "construct_plus_1", "redirect", "uncover_plus_1", "extra_malfunction")
    b = end_of_turn({1: mal(1, "Digital", 4)}, tiles=tiles, knowledge={0: mal(2, "Digital", 7)})
    b.do("end turn")
    assert b.d["phase"] == "pay" and b.d["payment"]["any"] == 1


def test_knowledge_limit_7_at_end_of_turn():
    b = end_of_turn({}, knowledge={0: mal(2, "Digital", 9)})
    b.do("end turn")
    assert b.d["payment"] == {"payer": 0, "need": {"Mechanical": 0, "Structural": 0, "Digital": 0, "Electrical": 0},
                              "any": 2, "substitute": False, "to": None,
                              "paid": {"Mechanical": 0, "Structural": 0, "Digital": 0, "Electrical": 0},
                              "paid_count": 0, "then": "discard_round"}
    b.do("pay M2 Digital", "pay M2 Digital")
    assert b.d["phase"] == "chance_malfunction" and b.d["discard"] == {"M2 Digital": 2}


def test_extra_malfunction_in_the_same_placement():
    tiles = QUIET_TILES[:5] + ("extra_malfunction",)
    b = end_of_turn({6: mal(6, "Digital", 3)}, tiles=tiles)
    b.do("end turn").chance(kind(6, "Mechanical"))
    assert b.d["placement"] == {"left": 3, "extra_added": True, "went_critical": True, "tile_reveal": None}
    b.chance(kind(1, "Digital"), kind(2, "Digital"), kind(4, "Digital"))
    assert b.d["phase"] == "chance_spy"


def test_extra_malfunction_revealed_by_a_spy_adds_nothing_that_turn():
    tiles = ("uncover_plus_1", "ability_tax", "construct_plus_1", "redirect", "knowledge_limit_6", "extra_malfunction")
    b = end_of_turn({6: mal(6, "Digital", 3), 1: mal(1, "Digital", 3)}, tiles=tiles, stack=[6, 1, 2, 3, 4, 5])
    b.do("end turn").chance(kind(1, "Mechanical"), kind(2, "Digital"), kind(4, "Digital"))
    b.chance(5)  # spy 6 onto Machine 6: it goes critical
    assert b.d["machines"][5]["critical_face_up"] and b.d["phase"] == "pre"
    # the next turn's placement has the extra malfunction
    nxt = Both(dict(b.d, phase="post"))
    nxt.do("end turn")
    assert nxt.d["placement"]["left"] == 4


def test_construct_needs_one_more_while_active_and_fixing_lifts_it():
    tiles = ("uncover_plus_1", "ability_tax", "construct_plus_1", "redirect", "knowledge_limit_6", "extra_malfunction")

    def start():
        b = Both(scenario(workers={2: ["Mechanic", "Electrician"]}, tiles=tiles,
                          malfunctions={3: mal(3, "Mechanical", 4)}, knowledge={0: mal(1, "Electrical", 1)}))
        assert b.d["machines"][2]["critical_face_up"]
        return b.do("pick up Machine 2 clockwise", "drop Mechanic")

    b = start().do("stop fixing")  # Machine 3 stays critical: the Electrician needs 1 + 1
    assert "enter Orphanage" not in b.legal()
    b = start().do("fix M3 Mechanical")  # 3 left: the tile turns back at once
    assert not b.d["machines"][2]["critical_face_up"]
    b.do("enter Orphanage")  # the Electrician into section 3 for 1 knowledge, the same turn
    assert b.d["payment"]["need"]["Electrical"] == 1


def test_construct_plus_one_same_type():
    tiles = ("uncover_plus_1", "ability_tax", "construct_plus_1", "redirect", "knowledge_limit_6", "extra_malfunction")
    b = Both(scenario(workers={1: ["Electrician"]}, tiles=tiles, malfunctions={3: mal(3, "Mechanical", 4)},
                      knowledge={0: mal(1, "Electrical", 1) + mal(1, "Digital", 3)}))
    b.do("pick up Machine 1 clockwise")
    assert "enter Orphanage" not in b.legal()  # 1 + 1 Electrical needed; Digital does not count


def test_uncover_plus_one_any_type():
    tiles = ("ability_tax", "redirect", "construct_plus_1", "uncover_plus_1", "knowledge_limit_6", "extra_malfunction")
    m = {4: mal(4, "Digital", 4)}
    b = spy6([(1, "Mechanical"), (2, "Digital")], tiles=tiles, malfunctions=m)
    b.do("pick up Machine 5 clockwise", "drop Mechanic")
    assert "uncover spy" not in b.legal()
    b2 = spy6([(1, "Mechanical"), (2, "Digital"), (5, "Structural")], tiles=tiles, malfunctions=m)
    b2.do("pick up Machine 5 clockwise", "drop Mechanic", "uncover spy")
    assert b2.d["payment"]["any"] == 1
    b2.do("pay M5 Structural", "pay M1 Mechanical", "pay M2 Digital")
    assert not b2.d["machines"][5]["spy"]


def test_ability_tax():
    tiles = ("uncover_plus_1", "redirect", "construct_plus_1", "knowledge_limit_6", "ability_tax", "extra_malfunction")
    m = {5: mal(5, "Digital", 4)}
    b = Both(scenario(characters=("Harris", "Nova"), tiles=tiles, malfunctions=m, workers=SETUP_WORKERS,
                      knowledge={0: mal(1, "Mechanical")}))
    assert "Harris Mechanical" not in b.legal()
    b2 = Both(scenario(characters=("Harris", "Nova"), tiles=tiles, malfunctions=m, workers=SETUP_WORKERS,
                       knowledge={0: mal(1, "Mechanical") + mal(2, "Digital")}))
    b2.do("Harris Mechanical")
    assert b2.d["payment"]["any"] == 1 and b2.d["payment"]["need"]["Mechanical"] == 1


# ---- Winning and losing ---------------------------------------------------------------------------
def test_four_critical_at_end_of_turn_loses():
    m = {i: mal(i, "Digital", 4) for i in (1, 2, 3, 4)}
    b = end_of_turn(m)
    b.do("end turn")
    assert b.d["outcome"] == "four_critical" and b.d["phase"] == "terminal"


def test_three_critical_is_not_a_loss():
    b = end_of_turn({i: mal(i, "Digital", 4) for i in (1, 2, 3)})
    b.do("end turn")
    assert b.d["outcome"] == "ongoing"


def test_win_before_lose_with_more_than_three_critical():
    orph = ["Electrician", "Mechanic", "Mechanic", "Engineer", "Engineer", None]
    m = {i: mal(i, "Digital", 4) for i in (1, 2, 3, 4)}
    tiles = ("uncover_plus_1", "ability_tax", "redirect", "knowledge_limit_6", "extra_malfunction", "construct_plus_1")
    b = Both(scenario(workers={6: ["Technician"]}, orphanage=orph, malfunctions=m, tiles=tiles,
                      knowledge={0: mal(2, "Digital", 6)}))
    b.do("pick up Machine 6 clockwise", "enter Orphanage")
    for _ in range(6):
        b.do("pay M2 Digital")
    assert b.d["outcome"] == "win" and b.d["daydreamer_built"] == 6


def test_empty_bag_loses():
    d = scenario(phase="post", tiles=QUIET_TILES)
    d["discard"] = dict(d["bag"])
    d["bag"] = {"M2 Digital": 2}
    d["discard"]["M2 Digital"] -= 2
    b = Both(d)
    b.do("end turn").chance(kind(2, "Digital"), kind(2, "Digital"))
    assert b.d["outcome"] == "bag_empty"


def test_six_spies_lose():
    b = end_of_turn({1: mal(1, "Digital", 2)}, spies=(2, 3, 4, 5, 6), stack=[1])
    b.do("end turn").chance(kind(1, "Digital"), kind(1, "Digital"), kind(4, "Digital"))
    assert b.d["phase"] == "chance_spy"
    b.chance(0)
    assert b.d["outcome"] == "six_spies"


# ---- Characters ---------------------------------------------------------------------------------------
def test_nova_substitutes_one_required_knowledge():
    orph = [None, "Mechanic", None, None, None, None]
    b = Both(scenario(characters=("Nova", "Fenn"), workers={1: ["Electrician"]}, orphanage=orph,
                      knowledge={0: mal(1, "Electrical") + mal(2, "Digital")}))
    b.do("pick up Machine 1 clockwise")
    assert "enter Orphanage" not in b.legal() and "enter Orphanage (Nova)" in b.legal()
    b.do("enter Orphanage (Nova)", "pay M2 Digital", "pay M1 Electrical")
    assert b.d["daydreamer_built"] == 2


def test_nova_cannot_substitute_two():
    orph = [None, "Mechanic", "Mechanic", None, None, None]
    b = Both(scenario(characters=("Nova", "Fenn"), workers={1: ["Electrician"]}, orphanage=orph,
                      knowledge={0: mal(1, "Electrical") + mal(2, "Digital", 2)}))
    b.do("pick up Machine 1 clockwise")
    assert "enter Orphanage (Nova)" not in b.legal()


def test_harris_moves_a_worker_without_fixing():
    b = Both(scenario(characters=("Harris", "Nova"), workers=SETUP_WORKERS,
                      malfunctions={4: mal(4, "Mechanical", 2)}, knowledge={0: mal(3, "Mechanical")}))
    b.do("Harris Mechanical", "pay M3 Mechanical")
    assert b.d["phase"] == "harris_from"
    assert sorted(b.legal()) == ["select 1", "select 2", "select 5"]  # Mechanics on Machines 2, 3, 6
    b.do("select 1", "select 3")
    d = b.d
    assert d["machines"][1]["workers"]["Mechanic"] == 0 and d["machines"][3]["workers"]["Mechanic"] == 1
    assert d["machines"][3]["malfunctions"] == {"M4 Mechanical": 2} and d["phase"] == "pre"
    assert not any(a.startswith("Harris") for a in b.legal())  # once per turn


def test_harris_after_the_last_worker():
    b = Both(scenario(characters=("Harris", "Nova"), workers={1: ["Engineer"], 2: ["Mechanic"]},
                      knowledge={0: mal(3, "Mechanical")}))
    b.do("pick up Machine 1 clockwise", "drop Engineer")
    assert "Harris Mechanical" in b.legal()
    b.do("Harris Mechanical", "pay M3 Mechanical", "select 1", "select 5")
    assert b.d["phase"] == "post"


def test_junas_gives_and_the_receiver_discards_down():
    b = Both(scenario(characters=("Junas", "Nova"), knowledge={0: mal(2, "Digital", 3), 1: mal(3, "Mechanical", 6)}))
    b.do("Junas Digital give 2 to seat +1")
    assert b.d["payment"]["to"] == 1
    b.do("pay M2 Digital", "pay M2 Digital")
    assert b.d["payment"]["to"] is None  # now Junas's own discard
    b.do("pay M2 Digital")
    assert b.d["phase"] == "pay" and b.d["payment"]["payer"] == 1 and b.d["payment"]["any"] == 1
    b.do("pay M3 Mechanical")
    d = b.d
    assert d["phase"] == "pre" and d["knowledge"][0] == {}
    assert d["knowledge"][1] == {"M2 Digital": 2, "M3 Mechanical": 5}
    assert d["discard"] == {"M2 Digital": 1, "M3 Mechanical": 1}


def test_linny_removes_a_malfunction_of_the_same_number_wherever_it_lies():
    b = Both(scenario(characters=("Linny", "Nova"), knowledge={0: [(3, "Digital")]},
                      malfunctions={5: [(3, "Mechanical")], 1: [(1, "Digital")]}))
    assert "Linny M3 Digital" in b.legal()
    b.do("Linny M3 Digital")
    assert b.legal() == ["select 16"]  # location 5 (index 4) * 4 + Mechanical
    b.do("select 16")
    d = b.d
    assert d["machines"][4]["malfunctions"] == {} and d["discard"] == {"M3 Digital": 1, "M3 Mechanical": 1}


def test_linny_needs_a_malfunction_of_that_number():
    b = Both(scenario(characters=("Linny", "Nova"), knowledge={0: [(3, "Digital")]},
                      malfunctions={1: [(1, "Digital")]}))
    assert not any(a.startswith("Linny") for a in b.legal())


def test_violet_places_two_fewer():
    b = Both(scenario(characters=("Violet", "Nova"), knowledge={0: mal(2, "Digital", 2)}, workers={1: ["Engineer"]},
                      tiles=QUIET_TILES))
    b.do("Violet Digital", "pay M2 Digital", "pay M2 Digital", "pick up Machine 1 clockwise", "drop Engineer",
         "end turn")
    assert b.d["placement"]["left"] == 1
    b.chance(kind(4, "Digital"))
    assert b.d["phase"] == "pre"


def test_rone_protects_a_machine():
    b = Both(scenario(characters=("Rone", "Nova"), knowledge={0: [(1, "Mechanical"), (2, "Digital")]},
                      workers={1: ["Engineer"]}, tiles=QUIET_TILES))
    b.do("Rone protect Machine 3 paying Mechanical+Digital", "pay M1 Mechanical", "pay M2 Digital")
    assert b.d["turn_state"]["rone_protects"] == 3
    b.do("pick up Machine 1 clockwise", "drop Engineer", "end turn")
    b.chance(kind(3, "Digital"))
    d = b.d
    assert d["machines"][2]["malfunctions"] == {} and d["discard"]["M3 Digital"] == 1


def test_rone_needs_two_different_types():
    b = Both(scenario(characters=("Rone", "Nova"), knowledge={0: mal(2, "Digital", 2)}))
    assert not any(a.startswith("Rone") for a in b.legal())


def test_abilities_only_on_your_own_turn_and_once():
    b = Both(scenario(characters=("Nova", "Harris"), workers={1: ["Engineer"]}, knowledge={1: mal(3, "Mechanical")}))
    assert not any(a.startswith("Harris") for a in b.legal())  # seat 1's ability, seat 0's turn


@pytest.mark.parametrize("spies", range(6))
def test_setup_spies_are_the_top_of_the_stack(spies):
    from simcore.bethel_woods.face import State
    for seed in range(20):
        g = State(3, spies, None, seed=seed)
        d = g.to_dict()
        on = [m["machine"] for m in d["machines"] if m["spy"]]
        assert len(on) == spies and d["spy_stack"]["unseen"] == 6 - spies
        for m in d["machines"]:
            n = sum(m["malfunctions"].values())
            assert n <= (2 if m["spy"] else 3) and not m["critical_face_up"]
        assert sum(sum(m["malfunctions"].values()) for m in d["machines"]) == 6


def test_kind_names():
    assert kind_name(kind(6, "Digital")) == "M6 Digital"


def test_redirect_with_every_machine_critical_stays():
    # 3 critical at the end of the turn (no loss), the extra-malfunction tile among them: 4 draws.
    # The first three make the other machines critical; the fourth, for Machine 3 (redirect),
    # finds no non-critical machine and stays (assumption, docs/bethel_woods.md)
    tiles = ("extra_malfunction", "ability_tax", "redirect", "uncover_plus_1", "construct_plus_1", "knowledge_limit_6")
    m = {1: mal(1, "Digital", 4), 2: mal(2, "Digital", 4), 3: mal(3, "Digital", 4),
         4: mal(4, "Digital", 3), 5: mal(5, "Digital", 3), 6: mal(6, "Digital", 3)}
    b = end_of_turn(m, tiles=tiles)
    b.do("end turn")
    assert b.d["placement"]["left"] == 4
    b.chance(kind(4, "Mechanical"), kind(5, "Mechanical"), kind(6, "Mechanical"))
    assert all(md["critical_face_up"] for md in b.d["machines"])
    b.chance(kind(3, "Mechanical"))
    assert b.d["machines"][2]["malfunctions"]["M3 Mechanical"] == 1
    assert b.d["phase"] == "chance_spy"


def test_junas_gives_one():
    b = Both(scenario(characters=("Junas", "Nova"), knowledge={0: mal(2, "Digital", 2)}))
    assert "Junas Digital give 2 to seat +1" not in b.legal()  # needs 1 + 2
    b.do("Junas Digital give 1 to seat +1", "pay M2 Digital", "pay M2 Digital")
    assert b.d["knowledge"] == [{}, {"M2 Digital": 1}] and b.d["phase"] == "pre"


def test_fare_anticlockwise():
    b = Both(scenario(characters=("Fare", "Nova"), workers={2: ["Mechanic"]}, spies=(2,),
                      knowledge={0: [(1, "Mechanical"), (1, "Structural"), (3, "Electrical")]}))
    b.do("pick up Machine 2 clockwise", "drop Mechanic")  # last worker on Machine 3; spy on Machine 2
    assert "uncover spy anticlockwise (Fare)" in b.legal() and "uncover spy clockwise (Fare)" not in b.legal()
    b.do("uncover spy anticlockwise (Fare)", "pay M1 Mechanical", "pay M1 Structural", "pay M3 Electrical")
    assert not b.d["machines"][1]["spy"]


def test_knowledge_limit_6_revealed_by_a_spy():
    tiles = ("uncover_plus_1", "ability_tax", "construct_plus_1", "redirect", "knowledge_limit_6", "extra_malfunction")
    b = end_of_turn({1: mal(1, "Digital", 3), 5: mal(5, "Digital", 3)}, tiles=tiles, stack=[5, 1, 2, 3, 4, 6],
                    knowledge={1: mal(2, "Mechanical", 4) + mal(3, "Mechanical", 3)})
    b.do("end turn").chance(kind(1, "Mechanical"), kind(2, "Structural"), kind(4, "Digital"))
    b.chance(4)  # spy 5 onto Machine 5 (3 malfunctions): it goes critical, its tile is the limit of 6
    assert b.d["machines"][4]["critical_face_up"] and b.d["phase"] == "pay"
    assert b.d["payment"]["payer"] == 1 and b.d["payment"]["any"] == 1
    b.do("pay M2 Mechanical")
    assert b.d["phase"] == "pre" and b.d["current_player"] == 1
