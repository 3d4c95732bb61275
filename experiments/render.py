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
    (caption, DataFrame) and charts as (caption, path to a PNG)."""
    title: str
    paragraph: str = ""
    tables: list[tuple[str, pd.DataFrame]] = field(default_factory=list)
    charts: list[tuple[str, str | os.PathLike]] = field(default_factory=list)


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
    cols = [str(c).lower() for c in df.columns]
    if any("rate" in c for c in cols):
        if not any("games" in c for c in cols) or not any("wins" in c for c in cols):
            raise ValueError(f"table {caption!r} shows a rate without the counts it rests on: "
                             f"add games and wins columns (has {list(df.columns)})")


def _cell(v) -> str:
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


def _md_escape(s: str) -> str:
    return s.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


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


def _html_table(caption: str, df: pd.DataFrame) -> str:
    header, rows, numeric = _strings(df)
    cls = ['class="num"' if n else "" for n in numeric]
    head = "".join(f"<th {c}>{html.escape(h)}</th>" for h, c in zip(header, cls))
    body = "\n".join("<tr>" + "".join(f"<td {c}>{html.escape(v)}</td>" for v, c in zip(r, cls))
                     + "</tr>" for r in rows)
    return (f"<table>\n<caption>{html.escape(caption)}</caption>\n<thead><tr>{head}</tr></thead>"
            f"\n<tbody>\n{body}\n</tbody>\n</table>")


def _paragraphs_html(text: str) -> str:
    parts = [p.strip() for p in text.split("\n\n") if p.strip()]
    return "\n".join(f"<p>{html.escape(p)}</p>" for p in parts)


CSS = """
body { font-family: -apple-system, "Segoe UI", "DejaVu Sans", Helvetica, Arial, sans-serif;
       max-width: 68rem; margin: 2rem auto; padding: 0 1rem; color: #1d1d1d; line-height: 1.5; }
h1 { font-size: 1.8rem; margin-bottom: .3rem; }
h2 { font-size: 1.35rem; margin-top: 2.2rem; border-bottom: 1px solid #ddd; padding-bottom: .2rem; }
table { border-collapse: collapse; margin: 1rem 0; font-size: .9rem; }
caption { caption-side: top; text-align: left; font-weight: 600; padding-bottom: .3rem; }
th, td { padding: .25rem .6rem; border-bottom: 1px solid #e4e4e4; text-align: left; }
th { border-bottom: 2px solid #bbb; }
.num { text-align: right; font-variant-numeric: tabular-nums; }
table.meta td:first-child { color: #555; }
figure { margin: 1.5rem 0; }
figure img { max-width: 100%; height: auto; }
figcaption { color: #444; font-size: .9rem; }
.wide { overflow-x: auto; }
.wide td { white-space: nowrap; }
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


def write_report(sections: list[Section], out_dir, title: str,
                 meta: dict | None = None) -> tuple[Path, Path]:
    """Write out_dir/report.md and out_dir/report.html; return their paths.

    Charts are copied into out_dir/charts/ (report.md links them by relative path) and embedded
    in report.html as base64 data URIs. `meta` (e.g. command, seed, version, date) is shown as a
    small table under the title. Every input is checked before anything is written.
    """
    out = Path(out_dir)
    meta = dict(meta or {})
    charts: dict[Path, str] = {}  # source png -> name under out_dir/charts
    for s in sections:
        for caption, df in s.tables:
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

    md = [f"# {_md_text(title)}", ""]
    if meta:
        run = pd.DataFrame({"run": [str(k) for k in meta], "value": [str(v) for v in meta.values()]})
        md += [_markdown_table(run), ""]
    body = [f"<h1>{html.escape(title)}</h1>"]
    if meta:
        rows = "".join(f"<tr><td>{html.escape(str(k))}</td><td>{html.escape(str(v))}</td></tr>"
                       for k, v in meta.items())
        body.append(f'<table class="meta"><tbody>{rows}</tbody></table>')
    for s in sections:
        md += [f"## {_md_text(s.title)}", ""]
        body.append(f"<section>\n<h2>{html.escape(s.title)}</h2>")
        if s.paragraph.strip():
            md += [s.paragraph.strip(), ""]
            body.append(_paragraphs_html(s.paragraph))
        for caption, df in s.tables:
            md += [f"**{_md_escape(caption)}**", "", _markdown_table(df), ""]
            body.append(f'<div class="wide">{_html_table(caption, df)}</div>')
        for caption, png in s.charts:
            name = charts[Path(png).resolve()]
            md += [f"![{_md_escape(caption)}](charts/{name})", "", f"*{caption}*", ""]
            raw = Path(png).read_bytes()
            data = base64.b64encode(raw).decode("ascii")
            css_w = _png_css_width(raw)
            size = f'width="{css_w}" ' if css_w else ""
            body.append(f'<figure><img {size}src="data:image/png;base64,{data}" '
                        f'alt="{html.escape(caption)}"><figcaption>{html.escape(caption)}'
                        "</figcaption></figure>")
        body.append("</section>")
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
