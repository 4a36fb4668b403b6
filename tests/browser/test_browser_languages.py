"""The token-tax chart and an Inspect merge replay in Chromium, at 1024 pixels in dark and 1280 in
light (test_look.py checks every page at both widths in both themes): the chart draws one row per language and stays inside the page; the replay opens from a link
(tokenizer, tab, word), and its slider scrubs from the initial symbols to the last merge.

Screenshots land in tests/screenshots/tokentax-*.png and replay-*.png: look at them."""
from __future__ import annotations

import pytest
from playwright.sync_api import expect

from core.pretrained import load_pretrained
from playground import charts, token_tax
from tests.browser.conftest import WAIT, both_themes, go_to, idle, main, rerun, set_theme, snap
from tests.browser.look_tour import open_context

pytestmark = pytest.mark.browser


LOOKS = [(1024, "dark"), (1280, "light")]   # each width once, each theme once


def test_token_tax_chart_and_inspect_replay(browser, app_url, screenshot_dir):
    """Each page loaded once: looked at 1024 pixels in dark, then resized to 1280 and switched to
    light (as a system setting switches it)."""
    context, page = open_context(browser, *LOOKS[0])
    try:
        page.goto(f"{app_url}/languages", timeout=WAIT)
        expect(page.get_by_role("heading", name="Token tax").first).to_be_visible(timeout=WAIT)
        chart = page.locator("[data-testid=stPlotlyChart]").filter(has_text="× English")
        expect(chart).to_have_count(1, timeout=WAIT)
        idle(page)
        expect(page.get_by_text("Click a column's header to sort by it")).to_be_visible()
        wanted = {charts.shorten(lang.name, charts.LANGUAGE_LABEL_WIDTH) for lang in token_tax.languages()}
        for width, theme in LOOKS:
            look(page, width, theme)
            # one row label per language, and the chart inside the main column
            expect(chart.locator(".yaxislayer-above .ytick text").first).to_be_visible()
            labels = set(chart.locator(".yaxislayer-above .ytick text").all_text_contents())
            assert wanted <= labels, (width, wanted - labels)
            box, column = chart.bounding_box(), main(page).bounding_box()
            assert box["x"] >= column["x"] - 1 and box["x"] + box["width"] <= column["x"] + column["width"] + 1
            assert box["x"] + box["width"] <= width
            svg = chart.locator("svg.main-svg").first.bounding_box()
            assert svg["width"] <= box["width"] + 1, width
            snap(page, screenshot_dir / f"tokentax-{width}-{theme}.png")

        look(page, *LOOKS[0])
        page.goto(f"{app_url}/inspect?tokenizer=pretrained:gpt2&tab=walk&word=lowest", timeout=WAIT)
        slider = page.get_by_role("slider", name="Step")
        expect(slider).to_be_visible(timeout=WAIT)
        idle(page)
        last = int(slider.get_attribute("max"))     # a range input: its last step is the final split
        assert last >= 2 and int(slider.input_value()) == last
        pieces = page.locator(".tp-pieces").first.locator(".tp-piece")
        gpt2 = load_pretrained("gpt2").encode("lowest").tokens
        expect(pieces).to_have_text(list(gpt2))     # the last step: GPT-2's own split
        slider.focus()
        with rerun(page):
            page.keyboard.press("Home")
        expect(page.get_by_text("Start:").first).to_be_visible()
        expect(pieces).to_have_text(list("lowest"))
        with rerun(page):
            page.keyboard.press("ArrowRight")
        expect(page.get_by_text("Step 1: merge").first).to_be_visible()
        expect(page.locator(".tp-piece.tp-new")).to_have_count(1)
        for width, theme in LOOKS:
            look(page, width, theme)
            snap(page, screenshot_dir / f"replay-{width}-{theme}.png", whole=False)
    finally:
        context.close()


def look(page, width: int, theme: str) -> None:
    """The open page at `width` pixels in `theme`: its layout redrawn, no reload."""
    page.set_viewport_size({"width": width, "height": 900})
    set_theme(page, theme)


def test_bytes_per_token_against_vocabulary_after_training(browser, app_url, screenshot_dir):
    """English prose trained through a Merges link, then the Token tax page in the same session:
    one curve per trained tokenizer, inside the page at 1024 pixels; photographed in both themes."""
    context, page = open_context(browser, 1024, "light")
    try:
        page.goto(f"{app_url}/merges?preset=english&tokenizer=bbpe&step=1", timeout=WAIT)
        expect(page.locator(".mg-sentence").first).to_contain_text("Step 1 of", timeout=WAIT)
        idle(page)
        go_to(page, "Token tax")
        chart = page.locator("[data-testid=stPlotlyChart]").filter(has_text="Bytes per token on held-out text")
        expect(chart).to_have_count(1, timeout=WAIT)
        idle(page)
        expect(chart.locator(".scatterlayer .trace")).to_have_count(3)
        box, column = chart.bounding_box(), main(page).bounding_box()
        assert box["x"] + box["width"] <= column["x"] + column["width"] + 1
        chart.scroll_into_view_if_needed()
        both_themes(page, lambda theme: chart.screenshot(path=screenshot_dir / f"tokentax-curve-1024-{theme}.png"))
    finally:
        context.close()
