"""Bethel Woods: the Nova/Fenn correction and every rules switch, scripted on both engines.

Each switch test plays the same position under the two readings (bw_helpers.Both runs the
compiled and the reference engine together and compares them after every step) and asserts that
the readings differ exactly where they should and agree elsewhere."""
import pytest

from bw_helpers import Both, kind, scenario
from simcore.bethel_woods.rules import SWITCHES, Rules, load_rules, rules_from_mapping
from simcore.errors import UserError


def rules_with(**switches):
    return rules_from_mapping({"switches": switches})


def mal(machine, type_name, n=1):
    return [(machine, type_name)] * n


ORPH1 = [None, "Mechanic", None, None, None, None]   # one piece built: the next costs 2


# ---- the correction: Nova and Fenn act only when the payment substitutes ------------------------------
def test_nova_is_not_offered_when_nothing_would_be_substituted():
    # "She may substitute a single required Knowledge": holding 2 Electrical for a cost-2 entry
    # there is nothing to substitute, so only the plain entry is offered
    b = Both(scenario(characters=("Nova", "Fenn"), workers={1: ["Electrician"]}, orphanage=ORPH1,
                      knowledge={0: mal(1, "Electrical", 2)}))
    b.do("pick up Machine 1 clockwise")
    assert "enter Orphanage" in b.legal() and "enter Orphanage (Nova)" not in b.legal()


def test_nova_under_the_ability_tax_with_only_the_required_type():
    # the case: 3 Electrical, cost 2, ability_tax face up (Machine 5 critical): the Nova
    # action used to take all 3; now it is not offered (no token of another type to substitute)
    b = Both(scenario(characters=("Nova", "Fenn"), workers={1: ["Electrician"]}, orphanage=ORPH1,
                      malfunctions={5: mal(5, "Mechanical", 4)}, knowledge={0: mal(1, "Electrical", 3)}))
    assert b.d["machines"][4]["critical_face_up"] and b.d["machines"][4]["critical_tile"] == "ability_tax"
    b.do("pick up Machine 1 clockwise")
    assert "enter Orphanage (Nova)" not in b.legal()
    b.do("enter Orphanage", "pay M1 Electrical", "pay M1 Electrical")
    assert b.d["daydreamer_built"] == 2 and not b.d["turn_state"]["ability_used"]
    assert b.d["knowledge"][0] == {"M1 Electrical": 1}


def test_the_nova_payment_must_substitute():
    # with 2 Electrical and a Digital the Nova entry is offered, and its payment must use the
    # Digital: after one Electrical, a second Electrical (no substitution) is not a legal token
    b = Both(scenario(characters=("Nova", "Fenn"), workers={1: ["Electrician"]}, orphanage=ORPH1,
                      knowledge={0: mal(1, "Electrical", 2) + mal(2, "Digital")}))
    b.do("pick up Machine 1 clockwise", "enter Orphanage (Nova)")
    assert b.d["turn_state"]["ability_used"]
    b.do("pay M1 Electrical")
    assert b.legal() == ["pay M2 Digital"]
    b.do("pay M2 Digital")
    assert b.d["daydreamer_built"] == 2 and b.d["knowledge"][0] == {"M1 Electrical": 1}


def _fenn(knowledge):
    # Fenn's last worker on Machine 6 (spy 6: Mechanical + Digital)
    return Both(scenario(characters=("Fenn", "Nova"), workers={5: ["Engineer"]}, spies=(6,),
                         knowledge={0: knowledge}))


def test_fenn_is_not_offered_when_nothing_would_be_substituted():
    b = _fenn(mal(1, "Mechanical") + mal(2, "Digital"))
    b.do("pick up Machine 5 clockwise", "drop Engineer")
    assert "uncover spy" in b.legal() and "uncover spy (Fenn)" not in b.legal()


def test_the_fenn_payment_must_substitute():
    b = _fenn(mal(1, "Mechanical") + mal(2, "Digital") + mal(3, "Electrical"))
    b.do("pick up Machine 5 clockwise", "drop Engineer")
    assert "uncover spy (Fenn)" in b.legal()
    b.do("uncover spy (Fenn)", "pay M1 Mechanical")
    assert b.legal() == ["pay M3 Electrical"]   # the Digital would substitute nothing
    b.do("pay M3 Electrical")
    assert not b.d["machines"][5]["spy"] and b.d["knowledge"][0] == {"M2 Digital": 1}


# ---- switch rone_redirect --------------------------------------------------------------------------------
def _rone(rules):
    # Machine 2 critical with the redirect tile; Rone protects Machine 3; a malfunction for
    # Machine 2 is drawn and redirected to the next non-critical machine: Machine 3
    b = Both(scenario(characters=("Rone", "Nova"), phase="post", rone_protects=3,
                      malfunctions={2: mal(2, "Digital", 2) + mal(2, "Electrical", 2)}), rules)
    assert b.d["machines"][1]["critical_tile"] == "redirect" and b.d["machines"][1]["critical_face_up"]
    b.do("end turn").chance(kind(2, "Mechanical"))
    return b


def test_rone_redirect_discard_by_default():
    b = _rone(Rules())
    assert b.d["machines"][2]["malfunctions"] == {} and b.d["discard"] == {"M2 Mechanical": 1}


def test_rone_redirect_place():
    b = _rone(rules_with(rone_redirect="place"))
    assert b.d["machines"][2]["malfunctions"] == {"M2 Mechanical": 1} and b.d["discard"] == {}


@pytest.mark.parametrize("value", SWITCHES["rone_redirect"])
def test_rone_redirect_same_for_a_malfunction_drawn_for_the_protected_machine(value):
    b = Both(scenario(characters=("Rone", "Nova"), phase="post", rone_protects=3), rules_with(rone_redirect=value))
    b.do("end turn").chance(kind(3, "Mechanical"))
    assert b.d["discard"] == {"M3 Mechanical": 1} and b.d["machines"][2]["malfunctions"] == {}


# ---- switch four_critical --------------------------------------------------------------------------------
def _three_critical(rules, spies=()):
    # Machines 1, 3, 4 critical (tiles knowledge_limit_6, construct_plus_1, uncover_plus_1);
    # Machine 6 holds 3 and goes critical with the next malfunction (or with a spy)
    m = {1: mal(1, "Digital", 4), 3: mal(3, "Mechanical", 4), 4: mal(4, "Structural", 4), 6: mal(6, "Digital", 3)}
    return Both(scenario(characters=("Nova", "Fenn"), phase="post", malfunctions=m, spies=spies), rules)


def test_four_critical_at_the_end_of_the_turn_by_default():
    b = _three_critical(Rules())
    b.do("end turn").chance(kind(6, "Mechanical"))
    # the 4th critical machine: its tile (extra_malfunction) adds a 4th draw and play goes on
    assert b.d["outcome"] == "ongoing" and b.d["phase"] == "chance_malfunction"
    b.chance(kind(2, "Mechanical"), kind(2, "Mechanical"), kind(2, "Mechanical"), 4)   # spy 5
    assert b.d["outcome"] == "ongoing" and b.d["phase"] == "pre" and b.d["current_player"] == 1
    # the next player has a turn; it ends with 4 critical machines: lost then
    b.do("pick up Machine 1 clockwise", "drop Technician", "drop Electrician", "end turn")
    assert b.d["outcome"] == "four_critical"


def test_four_critical_immediate():
    b = _three_critical(rules_with(four_critical="immediate"))
    b.do("end turn").chance(kind(6, "Mechanical"))
    assert b.d["outcome"] == "four_critical" and b.d["phase"] == "terminal"


@pytest.mark.parametrize("value,outcome", [("end_of_turn", "ongoing"), ("immediate", "four_critical")])
def test_four_critical_by_a_spy(value, outcome):
    # Machines 1 and 3 critical; Machine 4 goes critical in placement (the 3rd), and the spy then
    # placed on Machine 6 (3 malfunctions) turns a 4th critical
    m = {1: mal(1, "Digital", 4), 3: mal(3, "Mechanical", 4), 4: mal(4, "Structural", 3), 6: mal(6, "Digital", 3)}
    b = Both(scenario(characters=("Nova", "Fenn"), phase="post", malfunctions=m), rules_with(four_critical=value))
    b.do("end turn").chance(kind(4, "Digital"), kind(5, "Mechanical"), kind(5, "Mechanical"))
    assert b.d["phase"] == "chance_spy" and b.d["outcome"] == "ongoing"
    b.chance(5)
    assert b.d["outcome"] == outcome


# ---- switch ability_window -------------------------------------------------------------------------------
@pytest.mark.parametrize("value,offered", [("any_time", True), ("before_after", False)])
def test_ability_between_drops(value, offered):
    w = {2: ["Mechanic", "Engineer"], 4: ["Mechanic"]}
    b = Both(scenario(characters=("Harris", "Nova"), workers=w, knowledge={0: mal(3, "Mechanical")}),
             rules_with(ability_window=value))
    assert "Harris Mechanical" in b.legal()            # before the pick-up: both readings
    b.do("pick up Machine 2 clockwise")
    assert b.d["phase"] == "move"
    assert ("Harris Mechanical" in b.legal()) == offered
    if offered:
        b.do("Harris Mechanical", "pay M3 Mechanical", "select 3", "select 2")   # Machine 4 -> 3
        assert b.d["phase"] == "move" and b.d["machines"][2]["workers"]["Mechanic"] == 1
        b.do("drop Mechanic")   # lands on Machine 3 beside the moved Mechanic
        assert b.d["machines"][2]["workers"]["Mechanic"] == 2


# ---- switch long_group ----------------------------------------------------------------------------------
@pytest.mark.parametrize("value,last", [("passes", 2), ("stops", 1)])
def test_long_group(value, last):
    group = ["Mechanic"] * 3 + ["Engineer"] * 3 + ["Technician"]
    b = Both(scenario(characters=("Nova", "Fenn"), workers={1: group}), rules_with(long_group=value))
    b.do("pick up Machine 1 clockwise")
    positions = []
    for w in ["Mechanic"] * 3 + ["Engineer"] * 3:
        b.do(f"drop {w}")
        positions.append(b.d["turn_state"]["position"])
    assert positions == [2, 3, 4, 5, 6, 1]   # the same six drops in both readings
    b.do("drop Technician")
    assert b.d["turn_state"]["last_machine"] == last


# ---- switch rone_cost ------------------------------------------------------------------------------------
@pytest.mark.parametrize("value", SWITCHES["rone_cost"])
def test_rone_cost(value):
    # two Digital tokens: "any 2 different Knowledge" as two types forbids them; as any two allows
    b = Both(scenario(characters=("Rone", "Nova"), knowledge={0: mal(2, "Digital", 2)}), rules_with(rone_cost=value))
    rone = [a for a in b.legal() if a.startswith("Rone")]
    if value == "different_types":
        assert rone == []
    else:
        assert len(rone) == 36   # every (machine, pair) action, each paying any 2 tokens
        b.do("Rone protect Machine 4 paying Mechanical+Electrical", "pay M2 Digital", "pay M2 Digital")
        assert b.d["turn_state"]["rone_protects"] == 4 and b.d["knowledge"][0] == {}


@pytest.mark.parametrize("value", SWITCHES["rone_cost"])
def test_rone_cost_same_with_two_types(value):
    b = Both(scenario(characters=("Rone", "Nova"), knowledge={0: [(1, "Mechanical"), (2, "Digital")]}),
             rules_with(rone_cost=value))
    b.do("Rone protect Machine 2 paying Mechanical+Digital", "pay M1 Mechanical", "pay M2 Digital")
    assert b.d["turn_state"]["rone_protects"] == 2 and b.d["knowledge"][0] == {}


# ---- switch ability_off: one character plays without its ability ----------------------------------------
def test_ability_off_takes_only_that_characters_ability():
    # Violet with two Digital tokens: "Violet Digital" is offered in the printed game, not with her
    # ability off; Nova's entry in the other seat is untouched, and so is Violet's turn otherwise
    pos = dict(characters=("Violet", "Nova"), knowledge={0: mal(2, "Digital", 2)}, workers={1: ["Engineer"]})
    assert "Violet Digital" in Both(scenario(**pos)).legal()
    b = Both(scenario(**pos), rules_with(ability_off="Violet"))
    assert not any(a.startswith("Violet") for a in b.legal())
    assert "pick up Machine 1 clockwise" in b.legal()
    b.do("pick up Machine 1 clockwise", "drop Engineer", "end turn")
    assert b.d["placement"]["left"] == 3          # no reduction: the printed 3 malfunctions
    nova = Both(scenario(characters=("Nova", "Fenn"), workers={1: ["Electrician"]}, orphanage=ORPH1,
                         knowledge={0: mal(1, "Electrical", 2) + mal(2, "Digital")}), rules_with(ability_off="Violet"))
    nova.do("pick up Machine 1 clockwise")
    assert "enter Orphanage (Nova)" in nova.legal()


ABILITY_CLASSES = {"Nova": {"enter Orphanage (Nova)"}, "Harris": {"Harris"}, "Junas": {"Junas"},
                   "Linny": {"Linny"}, "Violet": {"Violet"}, "Fenn": {"uncover spy (Fenn)"},
                   "Rone": {"Rone"},
                   "Fare": {"uncover spy clockwise (Fare)", "uncover spy anticlockwise (Fare)"}}


@pytest.mark.parametrize("who", list(ABILITY_CLASSES))
def test_ability_off_in_lockstep_games(who):
    """Exploring games on both engines in lock-step (legal sets and positions compared at every
    step) with `who` in a seat: with ability_off = who none of its ability's actions is ever
    played, while the same games under the printed rules play them (so the check can fail)."""
    import bw_helpers as H
    from simcore.bethel_woods.rules import CHARACTERS
    c = CHARACTERS.index(who)
    w = H.explore_weights()
    seen = {}
    for rules in (Rules(), rules_with(ability_off=who)):
        H.COVERAGE.clear()
        for g in range(16):
            chars = [c] + [(c + 1 + q + g) % 8 for q in range(3) if (c + 1 + q + g) % 8 != c][:1 + g % 3]
            H.lockstep(23, g, len(chars), g % 3, chars=chars, rules=rules, weights=w)
        seen[rules.switch("ability_off")] = sum(H.COVERAGE[k] for k in ABILITY_CLASSES[who])
    assert seen["none"] > 0 and seen[who] == 0, seen


# ---- rules files -------------------------------------------------------------------------------------------
def test_switches_in_a_rules_file(tmp_path):
    f = tmp_path / "r.toml"
    f.write_text('[bethel_woods.switches]\nfour_critical = "immediate"\n')
    r = load_rules(f)
    assert r.switch("four_critical") == "immediate" and r.switch("rone_redirect") == "discard"
    assert r.to_dict()["switches"]["four_critical"] == "immediate"
    assert rules_from_mapping(r.to_dict()) == Rules(**{**r.__dict__, "source": "mapping"})


@pytest.mark.parametrize("text,msg", [
    ('[bethel_woods.switches]\nfour_critical = "later"\n', "switch four_critical = 'later'.*allowed: 'end_of_turn', 'immediate'"),
    ('[bethel_woods.switches]\nredirect = "x"\n', "unknown switch 'redirect'.*allowed: rone_redirect"),
    ('[bethel_woods]\nswitches = 3\n', "switches: expected a table"),
])
def test_bad_switches_are_one_line_user_errors(tmp_path, text, msg):
    f = tmp_path / "r.toml"
    f.write_text(text)
    with pytest.raises(UserError, match=msg) as e:
        load_rules(f)
    assert "\n" not in str(e.value)


def test_named_alternatives_and_switch_settings():
    from simcore.bethel_woods.rules import ALTERNATIVES
    assert len(ALTERNATIVES) >= 9
    r = load_rules("machines-b,four_critical=immediate")
    assert r.switch("four_critical") == "immediate" and r.machine_types != Rules().machine_types
    assert r.section_types == r.machine_types   # the sections follow the machines
    assert load_rules("orphanage-shift2").section_types[0] == Rules().machine_types[2]
    for name in ALTERNATIVES:
        assert load_rules(name) != Rules(source=name)
    with pytest.raises(UserError, match="alternatives: machines-b"):
        load_rules("machines-z")
    with pytest.raises(UserError, match="unknown switch 'bogus'"):
        load_rules("bogus=1")


def test_rules_by_name_on_the_command_line(capsys):
    import json

    from boardsim.cli import main
    code = main(["bethel-woods", "simulate", "--games", "300", "--seed", "3", "--threads", "1", "--json",
                 "--rules", "machines-b,four_critical=immediate"])
    out, _ = capsys.readouterr()
    assert code == 0 and json.loads(out)["rules"] == "machines-b,four_critical=immediate"
    code = main(["benevolent", "simulate", "--games", "20", "--json", "--rules", "no-such-table"])
    _, err = capsys.readouterr()
    assert code == 2 and err.startswith("error: --rules 'no-such-table': no such file") and err.count("\n") == 1


@pytest.mark.parametrize("spec, msg", [
    ("four_critical=immediate,four_critical=end_of_turn",
     "'four_critical=immediate' and 'four_critical=end_of_turn' both set switch four_critical"),
    ("machines-b,machines-c", "'machines-b' and 'machines-c' both set machine_types"),
])
def test_named_rules_that_contradict_each_other_are_refused(spec, msg):
    with pytest.raises(UserError, match=msg):
        load_rules(spec)
    # the same setting twice, or settings of different keys, are not a contradiction
    assert load_rules("machines-b,machines-b").machine_types == load_rules("machines-b").machine_types
    assert load_rules("machines-b,four_critical=immediate").switch("four_critical") == "immediate"


def test_empty_rules_on_the_command_line(capsys):
    from boardsim.cli import main
    for game in ("bethel-woods", "benevolent"):
        code = main([game, "simulate", "--games", "4", "--rules", ""])
        _, err = capsys.readouterr()
        assert code == 2 and err.startswith("error: --rules is empty;") and err.count("\n") == 1
