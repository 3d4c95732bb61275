"""Write a study report as Markdown (report.md, charts linked) and as one self-contained HTML
page (report.html, charts embedded as data URIs, no external resources).

    sections = [Section("Difficulty", "Win rate falls with every spy.",
                        tables=[("Win rate by spies", rate_table(cells))],
                        charts=[("Win rate by difficulty", png_path)])]
    write_report(sections, "out/balance", "Bethel Woods balance study",
                 {"command": "boardsim study ...", "seed": 7})

Both files are written to a temporary file first and renamed into place, so a reader never
sees half a report. Tables carry the counts (games, wins) that their rates rest on.
"""
from __future__ import annotations

import base64
import html
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from .stats import pct, wilson


@dataclass
class Section:
    """One part of a report: a title, a paragraph (blank lines separate paragraphs), tables as
    (caption, DataFrame) or (caption, DataFrame, link) (link: a relative path, e.g. the CSV with
    every row and column, shown under the table), charts as (caption, path to a PNG), and the
    anchor its heading takes (default: made from the title) for the contents and the front page."""
    title: str
    paragraph: str = ""
    tables: list[tuple] = field(default_factory=list)
    charts: list[tuple[str, str | os.PathLike]] = field(default_factory=list)
    anchor: str = ""
    after: str = ""     # a paragraph after the tables and charts (the front page's notes)


@dataclass(frozen=True)
class Link:
    """A table cell that links: `text` shown, `href` a relative path or "#anchor"."""
    text: str
    href: str

    def __str__(self) -> str:
        return self.text


def slug(text: str) -> str:
    """An anchor from a title: lower case letters, digits and dashes."""
    import re
    s = re.sub(r"[^a-z0-9]+", "-", str(text).lower()).strip("-")
    return s or "section"


def rate_table(df: pd.DataFrame, wins: str = "wins", games: str = "games",
               label: str = "win rate") -> pd.DataFrame:
    """A copy of df with the rate wins/games and its 95% Wilson interval added as text columns
    (`label`, "95% CI") beside the counts, formatted with stats.pct so small bounds stay visible."""
    for c in (wins, games):
        if c not in df.columns:
            raise ValueError(f"rate_table needs a {c!r} column, has {list(df.columns)}")
    out = df.copy()
    lo, hi = wilson(out[wins].to_numpy(), out[games].to_numpy())
    lo, hi = np.atleast_1d(lo), np.atleast_1d(hi)
    out[label] = [pct(w / g) if g > 0 else "n/a" for w, g in zip(out[wins], out[games])]
    out["95% CI"] = [f"{pct(a)} to {pct(b)}" if np.isfinite(a) else "n/a"
                     for a, b in zip(lo, hi)]
    return out


def _check_counts(caption: str, df: pd.DataFrame) -> None:
    """A table that shows a rate carries the counts it rests on: games and wins columns, or every
    cell of each rate column showing its own counts ("294 of 600")."""
    import re
    cols = [str(c).lower() for c in df.columns]
    rate_cols = [c for c, low in zip(df.columns, cols) if "rate" in low]
    if not rate_cols:
        return
    if any("games" in c for c in cols) and any("wins" in c for c in cols):
        return
    counted = re.compile(r"\d[\d,]* of [\d,]+")
    if all(all(counted.search(str(v)) or str(v) in ("n/a", "no games") for v in df[c]) for c in rate_cols):
        return
    raise ValueError(f"table {caption!r} shows a rate without the counts it rests on: "
                     f"add games and wins columns (has {list(df.columns)})")


def _cell(v):
    if isinstance(v, Link):
        return v
    if v is None or (isinstance(v, float) and np.isnan(v)):
        return ""
    if isinstance(v, (bool, np.bool_)):
        return "yes" if v else "no"
    if isinstance(v, (int, np.integer)):
        return f"{int(v):,}"
    if isinstance(v, (float, np.floating)):
        return f"{float(v) + 0.0:.4g}"   # + 0.0: a rounded -0.0 prints as 0, not -0
    return str(v)


def _strings(df: pd.DataFrame) -> tuple[list[str], list[list[str]], list[bool]]:
    """Header, rows of cell texts, and which columns are numeric (right-aligned)."""
    header = [str(c) for c in df.columns]
    rows = [[_cell(v) for v in row] for row in df.itertuples(index=False, name=None)]
    numeric = [pd.api.types.is_numeric_dtype(df[c]) and not pd.api.types.is_bool_dtype(df[c])
               for c in df.columns]
    return header, rows, numeric


def _md_escape(s) -> str:
    """A cell or caption as Markdown table text: a | escaped, a line break inside a cell as <br>
    (a Link as [text](href))."""
    if isinstance(s, Link):
        return f"[{_md_escape(s.text)}]({s.href})"
    return s.replace("\\", "\\\\").replace("|", "\\|").replace("\n", "<br>")


_MD_SPECIAL = set("\\`*_[]<>&!|#")


def _md_text(s: str) -> str:
    """Text from a user (a study's title) as literal Markdown: on one line, with every character
    that Markdown or its inline HTML would read (tags, entities, links, emphasis, code) escaped
    with a backslash, which CommonMark allows before any ASCII punctuation. report.html escapes
    the same text with html.escape."""
    return "".join("\\" + c if c in _MD_SPECIAL else c for c in " ".join(str(s).split()))


def _markdown_table(df: pd.DataFrame) -> str:
    header, rows, numeric = _strings(df)
    header = [_md_escape(h) for h in header]
    rows = [[_md_escape(c) for c in r] for r in rows]
    # DataFrame.to_markdown is tabulate's (a declared dependency)
    return pd.DataFrame(rows, columns=header).to_markdown(
        index=False, disable_numparse=True, colalign=["right" if n else "left" for n in numeric])


def _html_text(v) -> str:
    """A cell as HTML: escaped, a line break kept (<br>), a Link as <a href>."""
    if isinstance(v, Link):
        return f'<a href="{html.escape(v.href)}">{html.escape(v.text)}</a>'
    return "<br>".join(html.escape(line) for line in str(v).split("\n"))


def _html_table(caption: str, df: pd.DataFrame, link: str | None = None, cls: str = "") -> str:
    """A table in a figure: its caption above it (as wide as the text column, never cut by the
    table's width), and under it the link to every row and column (the CSV)."""
    header, rows, numeric = _strings(df)
    cl = ['class="num"' if n else "" for n in numeric]
    head = "".join(f"<th {c}>{html.escape(h)}</th>" for h, c in zip(header, cl))
    body = "\n".join("<tr>" + "".join(f"<td {c}>{_html_text(v)}</td>" for v, c in zip(r, cl))
                     + "</tr>" for r in rows)
    more = (f'\n<p class="more">All rows and columns: <a href="{html.escape(link)}">{html.escape(link)}</a></p>'
            if link else "")
    return (f'<figure class="table{(" " + cls) if cls else ""}">\n<figcaption>{html.escape(caption)}</figcaption>'
            f"\n<table>\n<thead><tr>{head}</tr></thead>\n<tbody>\n{body}\n</tbody>\n</table>{more}\n</figure>")


def _paragraphs_html(text: str) -> str:
    parts = [p.strip() for p in text.split("\n\n") if p.strip()]
    return "\n".join(f"<p>{html.escape(p)}</p>" for p in parts)


CSS = """
body { font-family: -apple-system, "Segoe UI", "DejaVu Sans", Helvetica, Arial, sans-serif;
       max-width: 68rem; margin: .8rem auto; padding: 0 1rem; color: #1d1d1d; line-height: 1.45; }
h1 { font-size: 1.5rem; margin: 0 0 .1rem; }
h2 { font-size: 1.35rem; margin-top: 2.2rem; border-bottom: 1px solid #ddd; padding-bottom: .2rem; }
h3 { font-size: 1.05rem; margin: 1rem 0 .3rem; }
p.lede { margin: 0 0 .4rem; color: #444; font-size: .88rem; }
table { border-collapse: collapse; font-size: .88rem; max-width: 100%; }
th, td { padding: .22rem .5rem; border-bottom: 1px solid #e4e4e4; text-align: left; vertical-align: top; }
th { border-bottom: 2px solid #bbb; }
.num { text-align: right; font-variant-numeric: tabular-nums; }
figure.table { margin: 1rem 0; max-width: 100%; }
figure.table figcaption { font-weight: 600; font-size: .92rem; padding-bottom: .3rem; }
p.more { font-size: .82rem; color: #555; margin: .25rem 0 0; }
table.meta td:first-child { color: #555; }
#answers { border: 1px solid #ccc; background: #fafafa; padding: 0 .7rem .3rem; border-radius: 4px; }
#answers h2 { margin: .3rem 0 0; font-size: 1.1rem; border: 0; padding: 0; }
#answers figure.table { margin: .25rem 0 .4rem; }
#answers figure.table figcaption { font-size: .88rem; padding-bottom: .1rem; }
#answers table { font-size: .8rem; line-height: 1.3; width: 100%; table-layout: fixed; }
#answers td, #answers th { padding: .12rem .35rem; overflow-wrap: break-word; }
#answers th:nth-child(1) { width: 14%; } #answers th:nth-child(2) { width: 34%; }
#answers th:nth-child(3) { width: 17%; } #answers th:nth-child(4) { width: 20%; }
#answers th:nth-child(5) { width: 15%; }
#answers p { font-size: .8rem; margin: .3rem 0; color: #333; }
nav.toc ol { columns: 2; font-size: .92rem; margin: .3rem 0; }
figure { margin: 1.5rem 0; }
figure img { max-width: 100%; height: auto; }
figcaption { color: #444; font-size: .9rem; }
@media (max-width: 900px) { nav.toc ol { columns: 1; } #answers table { font-size: .8rem; } }
"""


def _png_css_width(data: bytes) -> int | None:
    """The width in CSS pixels (96 per inch) at which a PNG shows at its intended size, from
    its IHDR width and pHYs resolution; None when it has no resolution. Charts of different
    widths then show text at the same size instead of each being stretched to the column."""
    width = int.from_bytes(data[16:20], "big")
    i = 8
    while i + 8 <= len(data):
        length = int.from_bytes(data[i:i + 4], "big")
        kind = data[i + 4:i + 8]
        if kind == b"pHYs" and data[i + 16] == 1:  # unit: metre
            ppm = int.from_bytes(data[i + 8:i + 12], "big")
            return round(width * 96 / (ppm * 0.0254)) if ppm else None
        if kind in (b"IDAT", b"IEND"):
            return None
        i += 12 + length
    return None


def _write_atomic(path: Path, text: str) -> None:
    """arena.outfiles.atomic_open: moved into place when written, with the permissions the umask
    gives (a plain mkstemp file stayed owner-only, 0600, where every other output is 0644)."""
    from arena.outfiles import atomic_open
    with atomic_open(path, "w", what="the report", encoding="utf-8", newline="\n") as f:
        f.write(text)


def _anchors(sections: list[Section], taken=("answers", "contents", "run")) -> list[str]:
    """Each section's anchor (its own, or made from its title), unique on the page."""
    seen, out = set(taken), []
    for s in sections:
        a = base = slug(s.anchor or s.title)
        i = 1
        while a in seen:
            i += 1
            a = f"{base}-{i}"
        seen.add(a)
        out.append(a)
    return out


def _table_items(s: Section):
    """A section's tables as (caption, DataFrame, link or None)."""
    for t in s.tables:
        yield (t[0], t[1], t[2] if len(t) > 2 else None)


def _section_md(s: Section, anchor: str, charts: dict, level: int = 2) -> list[str]:
    md = [f'<a id="{anchor}"></a>', "", f"{'#' * level} {_md_text(s.title)}", ""]
    if s.paragraph.strip():
        md += [s.paragraph.strip(), ""]
    for caption, df, link in _table_items(s):
        md += [f"**{_md_escape(caption)}**", "", _markdown_table(df), ""]
        if link:
            md += [f"All rows and columns: [{link}]({link})", ""]
    for caption, png in s.charts:
        name = charts[Path(png).resolve()]
        md += [f"![{_md_escape(caption)}](charts/{name})", "", f"*{caption}*", ""]
    if s.after.strip():
        md += [s.after.strip(), ""]
    return md


def _section_html(s: Section, anchor: str, tag: str = "section", table_cls: str = "") -> list[str]:
    body = [f'<{tag} id="{anchor}">\n<h2>{html.escape(s.title)}</h2>']
    if s.paragraph.strip():
        body.append(_paragraphs_html(s.paragraph))
    for caption, df, link in _table_items(s):
        body.append(_html_table(caption, df, link, table_cls))
    for caption, png in s.charts:
        raw = Path(png).read_bytes()
        data = base64.b64encode(raw).decode("ascii")
        css_w = _png_css_width(raw)
        size = f'width="{css_w}" ' if css_w else ""
        body.append(f'<figure><img {size}src="data:image/png;base64,{data}" '
                    f'alt="{html.escape(caption)}"><figcaption>{html.escape(caption)}'
                    "</figcaption></figure>")
    if s.after.strip():
        body.append(_paragraphs_html(s.after))
    body.append(f"</{tag}>")
    return body


def write_report(sections: list[Section], out_dir, title: str,
                 meta: dict | None = None, front: Section | None = None, lede: str = "",
                 contents: bool = True) -> tuple[Path, Path]:
    """Write out_dir/report.md and out_dir/report.html; return their paths.

    The page: the title, `lede` (one line), the `front` section (the answers, anchor "answers"),
    the contents (links to every section's anchor), the sections, and "About this run": `meta`
    (e.g. command, seed, version, date) as a small table. Each section's anchor is its own
    (Section.anchor) or one made from its title. Charts are copied into out_dir/charts/ (report.md
    links them by relative path) and embedded in report.html as base64 data URIs. Every input is
    checked before anything is written.
    """
    out = Path(out_dir)
    meta = dict(meta or {})
    charts: dict[Path, str] = {}  # source png -> name under out_dir/charts
    for s in ([front] if front is not None else []) + list(sections):
        for caption, df, _ in _table_items(s):
            if not isinstance(df, pd.DataFrame):
                raise TypeError(f"table {caption!r} must be a DataFrame, got {type(df).__name__}")
            _check_counts(caption, df)
        for caption, png in s.charts:
            p = Path(png)
            if not p.is_file():
                raise FileNotFoundError(f"chart {caption!r}: no file {p}")
            if p.read_bytes()[:8] != b"\x89PNG\r\n\x1a\n":
                raise ValueError(f"chart {caption!r}: {p} is not a PNG file")
            if p.resolve() not in charts:
                name, i = p.name, 1
                while name in charts.values():
                    i += 1
                    name = f"{p.stem}-{i}{p.suffix}"
                charts[p.resolve()] = name
    anchors = _anchors(sections)

    md = [f"# {_md_text(title)}", ""]
    body = [f"<h1>{html.escape(title)}</h1>"]
    if lede:
        md += [_md_text(lede), ""]
        body.append(f'<p class="lede">{html.escape(lede)}</p>')
    if front is not None:
        md += _section_md(front, "answers", charts)
        body += _section_html(front, "answers", table_cls="front")
    if contents and sections:
        md += ['<a id="contents"></a>', "", "## Contents", ""]
        md += [f"{i}. [{_md_text(s.title)}](#{a})" for i, (s, a) in enumerate(zip(sections, anchors), 1)]
        md += [f"{len(sections) + 1}. [About this run](#run)" if meta else "", ""]
        items = "".join(f'<li><a href="#{a}">{html.escape(s.title)}</a></li>' for s, a in zip(sections, anchors))
        if meta:
            items += '<li><a href="#run">About this run</a></li>'
        body.append(f'<nav class="toc" id="contents">\n<h2>Contents</h2>\n<ol>{items}</ol>\n</nav>')
    for s, a in zip(sections, anchors):
        md += _section_md(s, a, charts)
        body += _section_html(s, a)
    if meta:
        run = pd.DataFrame({"run": [str(k) for k in meta], "value": [str(v) for v in meta.values()]})
        md += ['<a id="run"></a>', "", "## About this run", "", _markdown_table(run), ""]
        rows = "".join(f"<tr><td>{html.escape(str(k))}</td><td>{html.escape(str(v))}</td></tr>"
                       for k, v in meta.items())
        body.append(f'<section id="run">\n<h2>About this run</h2>\n<table class="meta"><tbody>{rows}'
                    "</tbody></table>\n</section>")
    page = ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{html.escape(title)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n"
            + "\n".join(body) + "\n</body>\n</html>\n")

    out.mkdir(parents=True, exist_ok=True)
    (out / "charts").mkdir(exist_ok=True)
    for src, name in charts.items():
        dst = out / "charts" / name
        if dst.resolve() != src:
            tmp = dst.with_name(f".{name}.tmp")
            shutil.copyfile(src, tmp)
            os.replace(tmp, dst)
    md_path, html_path = out / "report.md", out / "report.html"
    _write_atomic(md_path, "\n".join(md).rstrip() + "\n")
    _write_atomic(html_path, page)
    return md_path, html_path
