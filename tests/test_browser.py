"""The HTML report in a real browser: Debian's Chromium, headless, driven by Playwright.

Playwright's own browser download cannot work on a machine whose network reaches only the
package registries, so the test drives the system Chromium (.ci/install_browser.sh installs it)
through executable_path. A missing browser skips the test on a developer's machine and fails it
in CI (CI=true).
"""
import os
import shutil

import pandas as pd
import pytest

import test_browser as this
from experiments.render import Section, rate_table, write_report
from test_charts import difficulty_frame, made  # noqa: F401  (made: a session fixture)

IN_CI = os.environ.get("CI", "").lower() == "true"
# Running as root needs --no-sandbox; the rest keep Chromium off the (closed) network.
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--disable-quic"]


def _find_chromium():
    for cand in (os.environ.get("BOARDSIM_CHROMIUM"), "/usr/bin/chromium",
                 shutil.which("chromium"), shutil.which("chromium-browser"),
                 shutil.which("google-chrome")):
        if cand and os.path.isfile(cand) and os.access(cand, os.X_OK):
            return cand
    return None


def _need(what: str, why: str):
    if IN_CI:
        pytest.fail(f"{what} is missing in CI: {why}")
    pytest.skip(f"{what} not found ({why}); CI=true makes this a failure")


@pytest.fixture(scope="module")
def chromium():
    exe = _find_chromium()
    if exe is None:
        _need("Chromium", "run .ci/install_browser.sh or apt-get install chromium")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _need("playwright", "pip install -e '.[dev]'")
    return exe, sync_playwright


def test_missing_browser_skips_locally_but_fails_in_ci(monkeypatch):
    monkeypatch.setattr(this, "IN_CI", False)
    with pytest.raises(pytest.skip.Exception, match="CI=true makes this a failure"):
        _need("Chromium", "not installed")
    monkeypatch.setattr(this, "IN_CI", True)
    with pytest.raises(pytest.fail.Exception, match="missing in CI"):
        _need("Chromium", "not installed")


# the widths the report must read at (a laptop, a narrow window or tablet) and the first screen's height
VIEWPORTS = ((1280, 800), (800, 1000))

LAYOUT_JS = """() => {
  const out = [];
  const doc = document.documentElement;
  if (doc.scrollWidth > window.innerWidth) out.push(`page scrolls sideways: ${doc.scrollWidth} > ${window.innerWidth}`);
  for (const t of document.querySelectorAll('table')) {
    const col = t.parentElement.getBoundingClientRect().width;
    const w = t.getBoundingClientRect().width;
    const name = (t.closest('figure') && t.closest('figure').querySelector('figcaption') || {}).textContent || t.className;
    if (w > col + 0.5) out.push(`table wider than its column (${Math.round(w)} > ${Math.round(col)}): ${name.slice(0, 60)}`);
    for (let e = t; e && e !== document.body; e = e.parentElement) {
      const o = getComputedStyle(e).overflowX;
      if ((o === 'auto' || o === 'scroll') && e.scrollWidth > e.clientWidth)
        out.push(`scrollbar around a table: ${name.slice(0, 60)}`);
    }
  }
  for (const c of document.querySelectorAll('figcaption, caption')) {
    if (c.scrollWidth > c.clientWidth + 1) out.push(`caption cut: ${c.textContent.slice(0, 60)}`);
  }
  for (const img of document.querySelectorAll('img')) {
    if (!img.complete || img.naturalWidth === 0) out.push(`image not loaded: ${img.alt}`);
  }
  const rows = document.querySelectorAll('#answers tbody tr');
  for (const r of rows) {
    const b = r.getBoundingClientRect().bottom + window.scrollY;
    if (b > window.innerHeight) out.push(`answer below the first screen (${Math.round(b)} > ${window.innerHeight}): ${r.textContent.slice(0, 50)}`);
  }
  return out;
}"""


def layout_problems(page) -> list[str]:
    """What a reader at this viewport would not see whole: the page or a table scrolling sideways, a
    table wider than its column, a cut caption, an image that did not load, an answer of the front
    page (#answers) below the first screen. [] when there is none."""
    return page.evaluate(LAYOUT_JS)


def _images(page):
    return page.eval_on_selector_all(
        "img", "els => els.map(e => [e.complete, e.naturalWidth, e.naturalHeight,"
               " e.clientWidth, document.body.clientWidth])")


def test_report_renders_in_chromium(tmp_path, chromium, made):
    exe, sync_playwright = chromium
    d = difficulty_frame()
    png1, png2, png3 = made["difficulty"][0], made["seats"][0], made["forest"][0]
    cells = d[["players", "spies", "difficulty", "policy", "games", "wins"]].head(6)
    sections = [
        Section("Difficulty", "Synthetic data: win rate by spies added.",
                tables=[("Win rate by spies, 2 players", rate_table(cells))],
                charts=[("Win rate by difficulty", png1)]),
        Section("Seats and characters", "Synthetic data.",
                charts=[("Win rate by seat", png2), ("Character effects", png3)]),
    ]
    _, html = write_report(sections, tmp_path / "report", "Balance study (browser test)",
                           {"seed": 7})

    console, page_errors, failed = [], [], []
    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(tmp_path / "profile"), executable_path=exe, headless=True,
            args=CHROMIUM_ARGS, viewport={"width": 1100, "height": 900})
        try:
            page = context.new_page()
            page.on("console", lambda m: console.append((m.type, m.text)))
            page.on("pageerror", lambda e: page_errors.append(str(e)))
            page.on("requestfailed", lambda r: failed.append(r.url))
            response = page.goto(html.as_uri(), wait_until="load")
            assert response is None or response.ok
            assert page.title() == "Balance study (browser test)"
            imgs = _images(page)
            assert len(imgs) == 3
            assert all(ok and w > 0 and h > 0 for ok, w, h, _, _ in imgs), imgs
            # shown no wider than the page and never upscaled past the pixels it has
            assert all(0 < shown <= min(w, body) for _, w, _, shown, body in imgs), imgs
            # the table is there, with its counts
            cells_text = page.eval_on_selector_all("td", "els => els.map(e => e.textContent)")
            assert "2,000" in cells_text and "Normal" in cells_text
            shot = tmp_path / "report.png"
            page.screenshot(path=str(shot), full_page=True)
            # at both widths nothing is cut or scrolls sideways, and the check can fail: a table of
            # long words wider than the column, and an answer pushed below the first screen
            for width, height in VIEWPORTS:
                page.set_viewport_size({"width": width, "height": height})
                assert layout_problems(page) == [], (width, layout_problems(page))
            wide = tmp_path / "wide"
            write_report([Section("Wide", "", tables=[("Too wide", pd.DataFrame(
                {f"column_{i}": ["an_unbreakable_word_of_forty_characters_"] for i in range(6)}))])],
                wide, "wide", front=Section("Answers", "", tables=[
                    ("answers", pd.DataFrame({"question": [f"question {i}" for i in range(60)]}))]))
            other = context.new_page()
            other.set_viewport_size({"width": 800, "height": 1000})
            other.goto((wide / "report.html").as_uri(), wait_until="load")
            problems = layout_problems(other)
            assert any(p.startswith("table wider than its column") for p in problems), problems
            assert any(p.startswith("page scrolls sideways") for p in problems), problems
            assert any(p.startswith("answer below the first screen") and "question 59" in p for p in problems)
            assert not any("question 10" in p for p in problems)   # the first rows are on the first screen
            other.close()
            # the check can fail: the same page with one image's data cut short
            broken = tmp_path / "broken.html"
            text = html.read_text()
            start = text.index("base64,") + len("base64,")
            broken.write_text(text[:start] + "iVBORw0KGgo" + text[start + 4000:])
            other = context.new_page()
            other.goto(broken.as_uri(), wait_until="load")
            assert [w for _, w, _, _, _ in _images(other)].count(0) == 1
            other.close()
        finally:
            context.close()
    errors = [t for kind, t in console if kind == "error"]
    assert not errors and not page_errors and not failed, (errors, page_errors, failed)
    assert shot.stat().st_size > 10_000
    print(f"\nscreenshot: {shot}")
