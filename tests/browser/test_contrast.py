"""Legible in both themes: axe-core's colour-contrast rule finds nothing on any page (Corpus,
Merges and its lockstep, Compare, each of Inspect's tabs), light and dark, at 1024 pixels (the
sidebar open) and at 1280. axe-core comes bundled in axe-playwright-python (no network)."""
from __future__ import annotations

import pytest
from axe_playwright_python.sync_playwright import Axe

from tests.browser.look_tour import THEMES, WIDTHS, open_context, open_merges, open_tab, tour, visit

pytestmark = pytest.mark.browser

AXE = Axe()
OPTIONS = {"runOnly": {"type": "rule", "values": ["color-contrast"]}, "resultTypes": ["violations"]}


def contrast_problems(page) -> list[str]:
    """One line per element axe-core finds too faint: where, the colours and the ratio."""
    results = AXE.run(page, options=OPTIONS).response
    out = []
    for violation in results["violations"]:
        for node in violation["nodes"]:
            data = next((c.get("data") or {} for c in node["any"] if c.get("data")), {})
            out.append(f"{node['target'][0]} '{node['html'][:80]}': {data.get('fgColor')} on {data.get('bgColor')}"
                       f" {data.get('contrastRatio')}:1 (needs {data.get('expectedContrastRatio')})")
    return out


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("width", WIDTHS)
def test_no_contrast_violation_on_any_page(browser, app_url, width, theme):
    context, page = open_context(browser, width, theme)
    try:
        found = {}
        for stop in tour(page, app_url):
            problems = contrast_problems(page)
            if problems:
                found[stop] = problems
        assert not found, "\n".join(f"{stop}:\n  " + "\n  ".join(p) for stop, p in found.items())
    finally:
        context.close()


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


@pytest.mark.parametrize("width", WIDTHS)
def test_charts_follow_the_dark_theme(browser, app_url, width):
    """No chart is a white box on the dark theme: each Plotly chart and merge tree, photographed,
    has next to no white pixels, and the charts' tick labels and titles are painted light (Merges with
    WordPiece's three charts and a merge tree; Inspect's Vocabulary with a tree and a bar chart)."""
    context, page = open_context(browser, width, "dark")
    bright, faint = {}, {}

    def look(stop: str) -> None:
        charts = page.locator('[data-testid=stPlotlyChart], [data-testid=stGraphVizChart]')
        assert charts.count() >= 2, stop
        for i in range(charts.count()):
            share = _white_share(charts.nth(i).screenshot())
            if share > 0.05:
                bright[f"{stop}, chart {i + 1}"] = round(share, 2)
        fills = page.evaluate(TEXT_FILLS)
        assert fills, stop
        if any(not _light(f) for f in fills):
            faint[stop] = sorted({f for f in fills if not _light(f)})

    try:
        open_merges(page, app_url, "seed-004", "wordpiece")
        look("Merges")
        visit(page, "Inspect")
        open_tab(page, "Vocabulary")
        look("Inspect / Vocabulary")
        assert not bright, f"white boxes on the dark page (share of white pixels): {bright}"
        assert not faint, f"chart text painted dark on the dark theme: {faint}"
    finally:
        context.close()
