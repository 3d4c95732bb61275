"""The action tables in docs/<game>.md against the code: the rows' numbers cover every action
once, in order, and every concrete action name a row shows is the name of the action it stands
for (the first name is the row's first action; a name after "…" is its last)."""
import re
from pathlib import Path

import pytest

from simcore.errors import UserError

DOCS = Path(__file__).resolve().parents[1] / "docs"


def action_rows(page: str):
    """(numbers, names) for each row of the page's "Action numbering" table."""
    text = (DOCS / page).read_text()
    table = text.split("Action numbering", 1)[1].split("\n\n", 2)[1]
    rows = []
    for line in table.splitlines()[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        nums = []
        for part in cells[0].split(","):
            a, _, b = part.strip().partition("-")
            nums += list(range(int(a), int(b or a) + 1))
        rows.append((cells[0], nums, re.findall(r"`([^`]*)`", cells[1]), "…" in cells[1]))
    return rows


@pytest.mark.parametrize("page, game", [("bethel_woods.md", "bethel_woods"), ("benevolent.md", "benevolent")])
def test_docs_action_table_matches_the_code(page, game):
    from simcore.games import GAMES
    acts = GAMES[game].actions
    rows = action_rows(page)
    covered = [a for _, nums, _, _ in rows for a in nums]
    assert covered == list(range(acts.N_ACTIONS)), f"{page}: the table's rows do not cover 0..N-1 in order"
    checked = 0
    for label, nums, names, ellipsis in rows:
        concrete = []
        for n in names:
            try:
                concrete.append(acts.action_from_name(n))
            except UserError:      # a template such as `Harris <type>` or `select i`
                continue
        if not concrete:
            continue
        checked += len(concrete)
        assert concrete[0] == nums[0], f"{page} row {label}: {names[0]!r} is action {concrete[0]}"
        if len(concrete) > 1:
            assert concrete[-1] == nums[-1], f"{page} row {label}: {names[-1]!r} is action {concrete[-1]}"
        assert all(c in nums for c in concrete), (page, label, names)
        assert ellipsis or len(nums) == len(concrete), f"{page} row {label}: names fewer actions than it numbers"
    assert checked >= 6      # most rows name real actions: the check is not vacuous
