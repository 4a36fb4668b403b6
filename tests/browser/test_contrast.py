"""Legible in both themes: axe-core's colour-contrast rule finds nothing on any page (Corpus,
Merges and its lockstep, Compare, each of Inspect's tabs), light and dark, at 1024 pixels (the
sidebar open) and at 1280. axe-core comes bundled in axe-playwright-python (no network)."""
from __future__ import annotations

import pytest
from axe_playwright_python.sync_playwright import Axe

from look_tour import THEMES, WIDTHS, open_context, tour

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
