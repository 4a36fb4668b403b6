"""Charts whole at every width: in every chart on every page (Plotly figures and Graphviz merge
trees), every SVG text box lies inside its chart's box and no two text boxes overlap. Read with
getBoundingClientRect at 1024 pixels with the sidebar open and at 1280, on a single tokenizer and
in lockstep (three charts side by side): WordPiece on seed 004 (score labels, tied pairs at one
point) and byte-level BPE on the Chinese sample (long byte-spelled pair labels)."""
from __future__ import annotations

import pytest

from tests.browser.look_tour import WIDTHS, open_context, tour

pytestmark = pytest.mark.browser

# For each chart: its title (or kind), its width, and what is wrong: a text outside the chart's
# box, or two texts whose boxes overlap by more than a pixel each way.
MEASURE = """() => {
  const charts = [...document.querySelectorAll('[data-testid=stPlotlyChart], [data-testid=stGraphVizChart]')];
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


# WordPiece on seed 004 at its first step: ten scores, two pairs tied at one point; byte-level
# BPE on Chinese late in training, when pairs of merged byte tokens make long labels
@pytest.mark.parametrize("preset,model,step", [("seed-004", "wordpiece", 1), ("chinese", "bbpe", 150)])
@pytest.mark.parametrize("width", WIDTHS)
def test_every_chart_keeps_its_text_inside_and_apart(browser, app_url, width, preset, model, step):
    context, page = open_context(browser, width, "light")
    try:
        found, charts = {}, 0
        for stop in tour(page, app_url, preset, model, step):
            for chart in page.evaluate(MEASURE):
                charts += 1
                if chart["problems"]:
                    found[f"{stop} / {chart['name']}"] = chart["problems"]
        assert charts >= 5, f"only {charts} charts seen: the tour did not reach them"
        assert not found, f"{len(found)} of {charts} charts:\n" + "\n".join(
            f"{where}:\n  " + "\n  ".join(p[:8]) for where, p in found.items())
    finally:
        context.close()
