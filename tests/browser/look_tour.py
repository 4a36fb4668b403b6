"""A tour of every page for the look tests (contrast, charts that fit): one fresh session per
theme and width, visiting Merges (one tokenizer, then lockstep), Corpus, Compare and each of
Inspect's tabs, yielding at each stop once the page has settled: the script run has ended and
every chart has been drawn and stopped moving (Plotly redraws once its automargins are known).

Nothing waits for a fixed time: each step waits for the state it needs.
"""
from __future__ import annotations

import re

from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from tests.browser.conftest import WAIT, go_to, new_tab
WIDTHS = (1024, 1280)                # a projector: at 1024 the sidebar stays open
THEMES = ("light", "dark")
INSPECT_TABS = ("Pipeline", "Walk a word", "Vocabulary", "Export & import", "Session")

# true once the script run has ended, every chart's SVG holds text, and the text boxes of all
# charts are where they were at the previous poll (so a redraw after automargin has finished)
SETTLED = """() => {
  const app = document.querySelector('[data-testid=stApp]');
  if (!app || app.getAttribute('data-test-script-state') !== 'notRunning') return false;
  if (document.querySelector('[data-testid=stSkeleton], [data-stale=true]')) return false;
  const charts = [...document.querySelectorAll('[data-testid=stPlotlyChart]')];
  if (!charts.every(c => c.querySelector('svg text'))) return false;
  const sig = charts.map(c => [...c.querySelectorAll('svg text')].map(t => {
    const r = t.getBoundingClientRect(); return [r.x, r.y, r.width, r.height].map(Math.round).join(',');
  }).join(';')).join('|') + '#' + charts.length;
  const same = window.__tpLookSig === sig;
  window.__tpLookSig = sig;
  return same;
}"""


def settle(page) -> None:
    """Until the run has ended and every chart is drawn and still (see SETTLED)."""
    page.evaluate("window.__tpLookSig = null")
    page.wait_for_function(SETTLED, polling=250, timeout=WAIT)


def open_context(browser, width: int, theme: str):
    context = browser.new_context(viewport={"width": width, "height": 900}, color_scheme=theme)
    return context, new_tab(context)


def open_merges(page, app_url: str, preset: str, model: str, step: int = 1) -> None:
    """A link to Merges that trains `preset` in this session and shows `model` at `step`."""
    page.goto(f"{app_url}/merges?preset={preset}&tokenizer={model}&step={step}")
    expect(page.locator(".mg-sentence").first).to_contain_text(f"Step {step} of", timeout=WAIT)
    settle(page)


def lockstep(page) -> None:
    switch = page.get_by_role("switch", name="Lockstep")
    if not switch.is_checked():
        switch.click(force=True)
    # the three sentences first: while the page reruns, the old switch may stand beside the new
    expect(page.locator(".mg-sentence")).to_have_count(3, timeout=WAIT)
    settle(page)
    expect(switch).to_be_checked(timeout=WAIT)


def visit(page, title: str) -> None:
    """Another page through the sidebar (the same session), once its charts are still."""
    go_to(page, title)
    settle(page)


def open_tab(page, name: str) -> None:
    tab = page.get_by_role("tab", name=name, exact=True)
    tab.click()
    expect(tab).to_have_attribute("aria-selected", "true", timeout=WAIT)
    panel = page.locator('[role=tabpanel]:visible')
    expect(panel.first).to_contain_text(re.compile(r"\S"), timeout=WAIT)
    settle(page)


def tour(page, app_url: str, preset: str = "seed-004", model: str = "wordpiece", step: int = 1):
    """Every page (and lockstep, and each Inspect tab) of one session trained on `preset`, Merges
    showing `model` at `step`: yields a name for each stop, with the page settled."""
    open_merges(page, app_url, preset, model, step)
    yield "Merges"
    lockstep(page)
    yield "Merges (lockstep)"
    for title in ("Corpus", "Compare", "Token tax"):
        visit(page, title)
        yield title
    visit(page, "Inspect")
    for name in INSPECT_TABS:
        open_tab(page, name)
        yield f"Inspect / {name}"


# axe-core (bundled in axe-playwright-python: no network), its colour-contrast rule only
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
