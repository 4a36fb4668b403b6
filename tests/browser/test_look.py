"""Every page legible and every chart whole, on one tour per look: light and dark, at 1024 pixels
(the sidebar open) and at 1280. At each stop (Merges on one tokenizer and in lockstep, Corpus,
Compare, Token tax, each of Inspect's tabs):
- legible: axe-core's colour-contrast rule finds nothing (axe-core comes bundled in
  axe-playwright-python: no network);
- whole: in every chart (Plotly figures) every SVG text box lies inside its chart's box and no two
  text boxes overlap (getBoundingClientRect); the merge trees are HTML, held by the next check;
  a step's pair bars (HTML, charts.pair_bars_html) hold their labels, bars and values, each bar
  with room to be seen;
- inside the column: nothing on the page runs past the main column's edges (a box that scrolls
  inside the column may hold wider content), and a merge tree wider than its box opens on its root.
Three tours: each theme, each width, and each trained view at 1024 pixels, where the charts are
narrowest (in lockstep, three side by side beside the open sidebar): WordPiece on seed 004 at its
first step (ten scores, two pairs tied at one point) and byte-level BPE on the Chinese sample at step
150 (pairs of merged byte tokens make long labels). Colours do not depend on the width, nor places
on the theme, so a fourth tour (light at 1280) would repeat what these check. On the dark tours the
charts of Merges and of Inspect's Vocabulary also follow the theme: photographed, no chart is a
white box, and their tick labels and titles are painted light. One tour checks everything, so a
page is opened once for all the checks."""
from __future__ import annotations

import pytest

from tests.browser.conftest import frames
from tests.browser.look_tour import contrast_problems, open_context, tour

pytestmark = pytest.mark.browser

# For each chart: its title (or kind), its width, and what is wrong: a text outside the chart's
# box, or two texts whose boxes overlap by more than a pixel each way.
MEASURE = """() => {
  const charts = [...document.querySelectorAll('[data-testid=stPlotlyChart]')];
  const out = [];
  for (const chart of charts) {
    const box = chart.getBoundingClientRect();
    if (box.width === 0) continue;
    const texts = [...chart.querySelectorAll('svg text')].map(t => ({t, r: t.getBoundingClientRect(), s: t.textContent.trim()}))
      .filter(o => o.s && o.r.width > 0 && o.r.height > 0 && getComputedStyle(o.t).visibility !== 'hidden'
                   && getComputedStyle(o.t).display !== 'none' && getComputedStyle(o.t).opacity !== '0');
    const name = ((chart.querySelector('.gtitle') || {}).textContent || chart.getAttribute('data-testid'))
      + ` (${Math.round(box.width)} px)`;
    const problems = [];
    for (const o of texts) {
      const r = o.r;
      if (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1)
        problems.push(`"${o.s}" leaves the chart: x ${Math.round(r.left)}..${Math.round(r.right)}, `
                      + `y ${Math.round(r.top)}..${Math.round(r.bottom)} of x ${Math.round(box.left)}..`
                      + `${Math.round(box.right)}, y ${Math.round(box.top)}..${Math.round(box.bottom)}`);
    }
    for (let i = 0; i < texts.length; i++) for (let j = i + 1; j < texts.length; j++) {
      const a = texts[i].r, b = texts[j].r;
      const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
      const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
      if (w > 1 && h > 1) problems.push(`"${texts[i].s}" overlaps "${texts[j].s}" (${Math.round(w)}x${Math.round(h)} px)`);
    }
    out.push({name, texts: texts.length, problems});
  }
  return out;
}"""


# What sticks out of the page's column: elements whose box runs past the main column's left or right
# edge, unless a box inside the column clips or scrolls them (a table's own scroll box, a token
# panel). Streamlit's dataframes are left out: their grid scrolls itself, and their resize grip
# stands 9 px into the column's margin by design. At 1024 pixels with the sidebar open the Compare
# picker's table once ran its licences off the page.
OUTSIDE_COLUMN = """() => {
  const main = document.querySelector('[data-testid=stMainBlockContainer]');
  const column = main.querySelector(':scope > [data-testid=stVerticalBlock]').getBoundingClientRect();
  const out = [];
  for (const e of main.querySelectorAll('*')) {
    const r = e.getBoundingClientRect();
    if (r.width === 0 || r.height === 0 || (r.right <= column.right + 2 && r.left >= column.left - 2)) continue;
    if (e.closest('[data-testid=stDataFrameResizable]')) continue;
    let clipped = false;
    for (let p = e.parentElement; p && p !== main; p = p.parentElement) {
      if (getComputedStyle(p).overflowX === 'visible') continue;
      const b = p.getBoundingClientRect();
      if (b.right <= column.right + 2 && b.left >= column.left - 2) { clipped = true; break; }
    }
    if (!clipped) out.push(`${e.tagName.toLowerCase()}.${e.getAttribute('class') || ''} x ${Math.round(r.left)}..`
                          + `${Math.round(r.right)} of ${Math.round(column.left)}..${Math.round(column.right)}: `
                          + (e.textContent || '').trim().slice(0, 40));
  }
  return out.slice(0, 5);
}"""


# Merge trees whose root box is out of view: a tree wider than its box scrolls, and opens scrolled
# to its root (static/html_panel.js), not at its left edge
TREE_ROOTS_HIDDEN = """() => [...document.querySelectorAll('.mg-tree')].filter(t => t.clientWidth > 0).flatMap(t => {
  const box = t.getBoundingClientRect(), root = t.querySelector('.mg-node');
  const r = root.getBoundingClientRect();
  return r.left >= box.left - 1 && r.right <= box.right + 1 ? []
    : [`the tree of ${root.textContent} (${t.scrollWidth} px wide in ${t.clientWidth}) opens with its root out of view`];
})"""


# A step's pair bars (charts.pair_bars_html): every label, bar track and value inside the chart's
# box, a label never over its bar, and every track at least 24 px wide (a bar to be seen).
PAIR_BARS_CUT = """() => {
  const out = [];
  for (const bars of document.querySelectorAll('.mg-bars')) {
    const box = bars.getBoundingClientRect();
    if (box.width === 0) continue;
    const labels = bars.querySelectorAll('.mg-bar-label'), tracks = bars.querySelectorAll('.mg-bar-track');
    bars.querySelectorAll('.mg-bar-label, .mg-bar-track, .mg-bar-value').forEach(e => {
      const r = e.getBoundingClientRect();
      if (r.left < box.left - 1 || r.right > box.right + 1)
        out.push(`pair bars: "${e.textContent}" leaves its chart (x ${Math.round(r.left)}..${Math.round(r.right)} of ${Math.round(box.left)}..${Math.round(box.right)})`);
    });
    labels.forEach((l, i) => {
      const a = l.getBoundingClientRect(), t = tracks[i].getBoundingClientRect();
      if (a.right > t.left + 1) out.push(`pair bars: "${l.textContent}" runs over its bar`);
      if (t.width < 24) out.push(`pair bars: the bar of "${l.textContent}" has ${Math.round(t.width)} px`);
    });
  }
  // WordPiece's count against score (HTML): its label and tick labels inside the chart's box
  for (const chart of document.querySelectorAll('.mg-scores')) {
    const box = chart.getBoundingClientRect();
    if (box.width === 0) continue;
    chart.querySelectorAll('.mg-pt-label, .mg-tick-x, .mg-tick-y, .mg-pt').forEach(e => {
      const r = e.getBoundingClientRect();
      if (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1)
        out.push(`count against score: "${e.textContent || e.title}" leaves its chart`);
    });
  }
  return out;
}"""


def trees_opened_off_their_root(page) -> list[str]:
    """TREE_ROOTS_HIDDEN, each tree scrolled to first: the page draws what is off screen only when
    it is scrolled near (style.css: content-visibility), as a user would see it."""
    for tree in page.locator(".mg-tree").all():
        tree.scroll_into_view_if_needed()
        frames(page)
    return page.evaluate(TREE_ROOTS_HIDDEN)


def _white_share(png: bytes) -> float:
    """The share of a screenshot's pixels that are white or nearly (a white chart background);
    the merge tree's pastel boxes and the light text are not."""
    from io import BytesIO

    from PIL import Image
    grey = Image.open(BytesIO(png)).convert("L")
    histogram = grey.histogram()
    return sum(histogram[250:]) / (grey.width * grey.height)


# the fill of each chart's tick labels and titles, as the browser paints it
TEXT_FILLS = """() => [...document.querySelectorAll('[data-testid=stPlotlyChart] svg text')]
  .filter(t => t.closest('g[class$="tick"]') || /title$/.test(t.getAttribute('class') || ''))
  .map(t => getComputedStyle(t).fill)"""


def _light(css_rgb: str) -> bool:
    r, g, b = (int(float(v)) for v in css_rgb[css_rgb.index("(") + 1:css_rgb.index(")")].split(",")[:3])
    return r + g + b >= 3 * 160


# the stops where the dark tours photograph the charts: the trainer's charts (and WordPiece's merge
# tree); Inspect's Vocabulary with a tree and a bar chart
DARK_LOOKED_AT = ("Merges", "Inspect / Vocabulary")


def dark_problems(page) -> list[str]:
    """What does not follow the dark theme: charts that photograph mostly white, and chart text
    painted dark."""
    charts = page.locator('[data-testid=stPlotlyChart], .mg-tree, .mg-bars, .mg-scores')   # trees, pairs, scores: HTML
    assert charts.count() >= 2
    out = []
    for i in range(charts.count()):
        share = _white_share(charts.nth(i).screenshot())
        if share > 0.05:
            out.append(f"chart {i + 1} is a white box ({share:.0%} white pixels)")
    fills = page.evaluate(TEXT_FILLS)
    assert fills
    dark = sorted({f for f in fills if not _light(f)})
    if dark:
        out.append(f"chart text painted dark: {dark}")
    return out


def chart_problems(page) -> tuple[int, dict[str, list[str]]]:
    """(charts measured, chart name -> what is wrong with it)."""
    charts = page.evaluate(MEASURE)
    return len(charts), {c["name"]: c["problems"] for c in charts if c["problems"]}


@pytest.mark.parametrize("width,theme,preset,model,step", [
    (1024, "light", "seed-004", "wordpiece", 1),
    (1024, "dark", "chinese", "bbpe", 150),
    (1280, "dark", "seed-004", "wordpiece", 1),
])
def test_every_page_is_legible_and_every_chart_whole(browser, app_url, width, theme, preset, model, step):
    context, page = open_context(browser, width, theme)
    try:
        faint, cut, unthemed, outside, charts = {}, {}, {}, {}, 0
        for stop in tour(page, app_url, preset, model, step):
            problems = contrast_problems(page)
            if problems:
                faint[stop] = problems
            problems = (page.evaluate(OUTSIDE_COLUMN) + trees_opened_off_their_root(page)
                        + page.evaluate(PAIR_BARS_CUT))
            if problems:
                outside[stop] = problems
            seen, wrong = chart_problems(page)
            charts += seen
            cut.update({f"{stop} / {name}": p for name, p in wrong.items()})
            if theme == "dark" and stop in DARK_LOOKED_AT:
                problems = dark_problems(page)
                if problems:
                    unthemed[stop] = problems
        assert not faint, "too faint:\n" + "\n".join(f"{stop}:\n  " + "\n  ".join(p) for stop, p in faint.items())
        assert charts >= 5, f"only {charts} charts seen: the tour did not reach them"
        assert not cut, f"{len(cut)} of {charts} charts:\n" + "\n".join(
            f"{where}:\n  " + "\n  ".join(p[:8]) for where, p in cut.items())
        assert not unthemed, f"not following the dark theme: {unthemed}"
        assert not outside, f"past the page's column at {width} px: {outside}"
    finally:
        context.close()
