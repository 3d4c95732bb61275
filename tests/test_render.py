"""The report writer: Markdown and self-contained HTML, counts beside rates, atomic writes."""
import base64
import os
import re
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest

from experiments import charts, render
from experiments.render import Section, rate_table, write_report
from test_charts import difficulty_frame, made  # noqa: F401  (made: a session fixture)


class _Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.imgs, self.links, self.scripts, self.tds = [], [], [], []
        self._in_td = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "img":
            self.imgs.append(a)
        if tag == "link":
            self.links.append(a)
        if tag == "script":
            self.scripts.append(a)
        self._in_td = tag == "td"

    def handle_data(self, data):
        if self._in_td:
            self.tds.append(data)


@pytest.fixture
def chart_pngs(made):
    return made["difficulty"][0], made["seats"][0]


def sections(pngs):
    cells = difficulty_frame()[["players", "spies", "difficulty", "games", "wins"]].head(4)
    cells.loc[0, "wins"] = 0
    return [
        Section("Difficulty", "Win rate by spies.\n\nSecond paragraph with <b>markup</b>.",
                tables=[("Win rate by spies", rate_table(cells))],
                charts=[("Win rate by difficulty", pngs[0])]),
        Section("Seats", "Seat fairness.",
                tables=[("Odd | cells", pd.DataFrame({"leaves": ["1|3", "<i>x</i>"],
                                                       "max_gap": [0.0312, 0.2]}))],
                charts=[("Win rate by seat", pngs[1])]),
    ]


def test_markdown_links_tables_and_counts(tmp_path, chart_pngs):
    md, html = write_report(sections(chart_pngs), tmp_path / "rep", "Balance study",
                            {"command": "boardsim study --seed 7", "seed": 7})
    assert md == tmp_path / "rep" / "report.md" and html.name == "report.html"
    text = md.read_text()
    assert text.startswith("# Balance study\n")
    assert "## Difficulty" in text and "## Seats" in text and "boardsim study --seed 7" in text
    links = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", text)
    assert links == ["charts/difficulty.png", "charts/seats.png"]
    for link in links:
        assert (md.parent / link).read_bytes() == next(
            p for p in chart_pngs if p.name == os.path.basename(link)).read_bytes()
    # the rate table: counts and rates, the Wilson interval of 0 wins keeps its upper bound
    row0 = next(line for line in text.splitlines() if "| 0 |" in line.replace("  ", " ")
                or re.search(r"\|\s+0\s+\|.*0%", line))
    assert "2,000" in row0 and "0% to 0.192%" in row0
    assert "games" in text and "wins" in text and "win rate" in text and "95% CI" in text
    # a | inside a cell does not split the row
    row = next(line for line in text.splitlines() if "1\\|3" in line)
    assert len(re.findall(r"(?<!\\)\|", row)) == 3


def test_html_is_self_contained_and_escaped(tmp_path, chart_pngs):
    _, html = write_report(sections(chart_pngs), tmp_path, "Balance <study>", {"seed": 7})
    page = html.read_text()
    parser = _Page()
    parser.feed(page)
    assert len(parser.imgs) == 2 and not parser.links and not parser.scripts
    for img, png in zip(parser.imgs, chart_pngs):
        assert img["src"].startswith("data:image/png;base64,")
        assert base64.b64decode(img["src"].split(",", 1)[1]) == png.read_bytes()
        assert img["alt"]
    assert not re.search(r"(src|href)=\"(https?:)?//", page) and "@import" not in page
    assert "<title>Balance &lt;study&gt;</title>" in page
    assert "&lt;b&gt;markup&lt;/b&gt;" in page and "<b>markup" not in page
    assert "&lt;i&gt;x&lt;/i&gt;" in page
    assert page.count("<p>") == 3  # two paragraphs in the first section, one in the second
    assert "2,000" in parser.tds and "0% to 0.192%" in parser.tds


def test_rates_need_their_counts(tmp_path, chart_pngs):
    bad = pd.DataFrame({"players": [2], "win rate": [0.3]})
    with pytest.raises(ValueError, match="without the counts"):
        write_report([Section("x", "", tables=[("bare rates", bad)])], tmp_path, "t")
    assert not (tmp_path / "report.md").exists()


def test_nothing_written_when_an_input_is_bad(tmp_path, chart_pngs):
    write_report(sections(chart_pngs), tmp_path, "first")
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    with pytest.raises(FileNotFoundError, match="no file"):
        write_report([Section("x", "", charts=[("gone", tmp_path / "missing.png")])],
                     tmp_path, "second")
    (tmp_path / "notpng.png").write_text("hello")
    with pytest.raises(ValueError, match="not a PNG"):
        write_report([Section("x", "", charts=[("text", tmp_path / "notpng.png")])],
                     tmp_path, "second")
    (tmp_path / "notpng.png").unlink()
    after = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    assert after == before


def test_rename_failure_keeps_old_report_and_no_temp_files(tmp_path, chart_pngs, monkeypatch):
    write_report(sections(chart_pngs), tmp_path, "first")
    old = (tmp_path / "report.md").read_text()
    real_replace = os.replace

    def failing(src, dst):
        if str(dst).endswith("report.md"):
            raise OSError("disk full")
        return real_replace(src, dst)
    monkeypatch.setattr(render.os, "replace", failing)
    from simcore.errors import UserError
    with pytest.raises(UserError, match="cannot write the report .*disk full"):   # one line, as every output
        write_report(sections(chart_pngs), tmp_path, "second")
    assert (tmp_path / "report.md").read_text() == old
    assert not [p for p in tmp_path.rglob("*.tmp")]


def test_markdown_table_cells_escape_pipes_and_align_numbers(tmp_path):
    df = rate_table(pd.DataFrame({"players": [2, 3], "note": ["a|b", "c"],
                                  "games": [1000, 25], "wins": [500, 25]}))

    def cells(md):
        lines = md.splitlines()
        return [[c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
                for i, line in enumerate(lines) if i != 1]
    md = render._markdown_table(df)
    assert cells(md)[1][:2] == ["2", "a\\|b"]
    assert cells(md)[2] == ["3", "c", "25", "25", "100.000%", "86.681% to 100.000%"]
    rule = md.splitlines()[1].strip("|").split("|")
    assert rule[0].endswith(":") and rule[1].startswith(":") and not rule[1].endswith(":")


def test_charts_show_at_their_printed_size(tmp_path, chart_pngs):
    # matplotlib writes the dpi into the PNG; the page shows 96 CSS pixels per inch
    _, html = write_report(sections(chart_pngs), tmp_path, "t")
    parser = _Page()
    parser.feed(html.read_text())
    for img, png in zip(parser.imgs, chart_pngs):
        px = int.from_bytes(png.read_bytes()[16:20], "big")
        assert int(img["width"]) == round(px * 96 / charts.DPI)


def test_cells_print_no_negative_zero_and_spies_are_counted_in_words():
    from experiments.render import _cell
    from experiments.stats import spies_label
    # a difference rounded to -0.0 (12.000% against 12.000%) prints as 0, as the CSV means it
    assert _cell(-0.0) == "0" and _cell(np.float64(-0.0)) == "0" and _cell(-0.25) == "-0.25"
    assert [spies_label(n) for n in (0, 1, 2, np.int64(1))] == ["0 spies", "1 spy", "2 spies", "1 spy"]


def test_report_files_get_the_umasks_permissions(tmp_path):
    """report.md and report.html are readable as every other output is (mkstemp made them 0600)."""
    import os
    import stat
    old = os.umask(0o022)
    try:
        md, html = write_report([Section("s", "text")], tmp_path, "t")
    finally:
        os.umask(old)
    assert stat.S_IMODE(md.stat().st_mode) == 0o644 and stat.S_IMODE(html.stat().st_mode) == 0o644
