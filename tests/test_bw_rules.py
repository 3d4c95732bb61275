"""The rules data: the defaults the issues fix, and user overrides from a TOML file."""
import pytest

from arena.bethel_woods.batch import simulate
from simcore.bethel_woods.rules import TYPES, Rules, RulesError, load_rules


def test_defaults():
    r = Rules()
    names = [tuple(TYPES[t] for t in pair) for pair in r.machine_types]
    assert names == [("Digital", "Electrical"), ("Mechanical", "Structural"), ("Mechanical", "Electrical"),
                     ("Structural", "Digital"), ("Structural", "Electrical"), ("Mechanical", "Digital")]
    assert r.section_types == r.machine_types
    counts = r.malfunction_counts
    assert sum(map(sum, counts)) == 84
    assert all(sum(row) == 14 for row in counts)
    assert all(sum(row[t] for row in counts) == 21 for t in range(4))
    for m, (a, b) in enumerate(r.machine_types):
        assert counts[m][a] == counts[m][b] == 4
    assert (r.knowledge_limit, r.critical_knowledge_limit, r.malfunctions_per_turn) == (7, 6, 3)


def write(tmp_path, text):
    p = tmp_path / "rules.toml"
    p.write_text(text)
    return p


def test_override_from_file(tmp_path):
    p = write(tmp_path, '[bethel_woods]\nknowledge_limit = 5\ncritical_knowledge_limit = 4\n'
                        'orphanage_types = [["Mechanical","Structural"],["Digital","Electrical"],'
                        '["Mechanical","Digital"],["Structural","Electrical"],["Mechanical","Electrical"],'
                        '["Structural","Digital"]]\n')
    r = load_rules(p)
    assert r.knowledge_limit == 5 and r.section_types[0] == (0, 1) and r.source == str(p)
    # the override reaches the compiled engine
    base = simulate(3, 0, games=3000, seed=4)
    other = simulate(3, 0, games=3000, seed=4, rules=r)
    assert (base.turns, base.fixed) != (other.turns, other.fixed)


@pytest.mark.parametrize("text, message", [
    ("[bethel_woods]\nknowledge_limit = 0\n", "knowledge_limit: 0"),
    ("[bethel_woods]\nknowledge_limit = 'x'\n", "knowledge_limit"),
    ("[bethel_woods]\nmachine_types = [['Digital','Digital']]\n", "machine_types"),
    ("[bethel_woods]\nmachine_types = [['Digital','Bogus'],['a','b'],['a','b'],['a','b'],['a','b'],['a','b']]\n",
     "unknown type 'Bogus'"),
    ("[bethel_woods]\nmalfunction_counts = [[1,1,1,1]]\n", "malfunction_counts"),
    ("[bethel_woods]\nmalfunction_counts = [[0,0,0,0],[0,0,0,0],[0,0,0,0],[0,0,0,0],[0,0,0,0],[9,9,9,9]]\n",
     "too few"),
    ("[bethel_woods]\nmalfunctions_per_turn = 2\n", "malfunctions_per_turn: 2"),
    ("[bethel_woods]\ncritical_knowledge_limit = 9\n", "exceeds"),
    ("[bethel_woods]\nspeed = 3\n", "unknown key 'speed'"),
    ("[bethel_woods\n", "not valid TOML"),
    ("bethel_woods = 3\n", "must be a table"),
])
def test_bad_rules_files_get_one_line_errors(tmp_path, text, message):
    with pytest.raises(RulesError, match=message) as e:
        load_rules(write(tmp_path, text))
    assert "\n" not in str(e.value)


def test_machine_types_must_give_three_of_each_worker(tmp_path):
    text = ("[bethel_woods]\nmachine_types = [['Digital','Electrical'],['Digital','Electrical'],"
            "['Mechanical','Electrical'],['Structural','Digital'],['Structural','Electrical'],['Mechanical','Digital']]\n")
    with pytest.raises(RulesError, match="exactly 3 machines"):
        load_rules(write(tmp_path, text))


def test_missing_file():
    with pytest.raises(RulesError, match="does not exist"):
        load_rules("/nonexistent/rules.toml")
