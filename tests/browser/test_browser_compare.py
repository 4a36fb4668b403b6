"""The Compare page in Chromium: panels render, hovering a token lights up its id everywhere in
its panel, a tokenizer that cannot encode shows a message, and pasted HTML stays text (no
dialog fires, the text shows literally) on every path.

Screenshots go to tests/screenshots/compare-*.png: look at them (a blank or garbled page is a
failure these assertions may miss). One Streamlit server for the session (conftest.py, with the helpers).
"""
import re

import pytest
from playwright.sync_api import expect

from playground.compare import SAMPLES
from tests.browser.conftest import (WAIT, go_to, load_preset, luminance, main, new_tab, open_app, panel, pick,
                                    rerun, snap, train)
from tests.support import HTML_PAYLOAD as PAYLOADS

pytestmark = pytest.mark.browser

def train_english(page) -> None:
    load_preset(page, "Sample · English prose")
    train(page)


def set_text(page, text: str) -> None:
    box = page.get_by_role("textbox", name="Text", exact=True)
    box.fill(text)
    with rerun(page):
        box.press("Control+Enter")


def click(page, locator) -> None:
    """Click a control that reruns the script (radio, toggle, tab) and wait for that run."""
    with rerun(page):
        locator.click()


def no_injected_markup(page) -> None:
    for selector in ("img[src=x]", "svg[onload]", "iframe", "script", "b:text-is('x')"):
        expect(main(page).locator(selector)).to_have_count(0)


def test_pretrained_panels_and_hover(page, screenshot_dir):
    go_to(page, "Compare")
    expect(page.get_by_test_id("stMain")).to_contain_text("Nothing trained yet")
    keys = ["pretrained:gpt2", "pretrained:cl100k_base", "pretrained:o200k_base", "pretrained:bert-base-uncased"]
    for key in keys:
        expect(panel(page, key).locator(".tp-t").first).to_be_visible(timeout=WAIT)
    # the reference ids for "Hello, world!" (docs/references.md) in the header counts and the ids view
    set_text(page, "Hello, world!")
    expect(panel(page, "pretrained:gpt2").locator(".tp-count")).to_have_text("4 tokens")
    click(page, page.get_by_role("radio", name="Ids"))
    expect(panel(page, "pretrained:gpt2").locator(".tp-t")).to_have_text(["15496", "11", "995", "0"])
    expect(panel(page, "pretrained:o200k_base").locator(".tp-t")).to_have_text(["13225", "11", "2375", "0"])
    expect(panel(page, "pretrained:bert-base-uncased").locator(".tp-t")).to_have_text(["7592", "1010", "2088", "999"])
    click(page, page.get_by_role("radio", name="Tokens"))

    pick(page, "Sample", "Emoji (ZWJ, flags, skin tones)")
    gpt2 = panel(page, "pretrained:gpt2")
    # partial UTF-8 shows as bytes, never as the replacement character
    expect(gpt2.locator(".tp-bytes").first).to_be_visible()
    assert "�" not in gpt2.inner_text()
    snap(page, screenshot_dir / "compare-pretrained.png")

    # hover a token whose id occurs again: every token with that id is outlined, others are not
    tokens = gpt2.locator(".tp-t")
    classes = tokens.evaluate_all("els => els.map(e => e.className)")
    ids = [re.search(r"tp-id(\d+)", c).group(1) for c in classes]
    repeated = next(i for i in ids if ids.count(i) > 1)
    first, second = [k for k, i in enumerate(ids) if i == repeated][:2]
    other = next(k for k, i in enumerate(ids) if i != repeated)
    card = tokens.nth(first).get_attribute("data-card")     # the hover card's text (no plain title)
    assert tokens.nth(first).get_attribute("title") is None
    assert re.match(rf"id {repeated} · \d+× in this text\ntoken '.*'\nbytes [0-9A-F ]+", card), card
    gpt2.scroll_into_view_if_needed()
    tokens.nth(first).hover()
    outline = "e => getComputedStyle(e).outlineStyle"
    page.wait_for_function(f"e => ({outline})(e) === 'solid'", arg=tokens.nth(second).element_handle())
    assert tokens.nth(second).evaluate(outline) == "solid"
    assert tokens.nth(other).evaluate(outline) == "none"
    gpt2.screenshot(path=screenshot_dir / "compare-hover.png")

    # grouped: the bytes of each emoji drawn as whole characters
    click(page, page.get_by_text("Group bytes", exact=True))
    expect(gpt2.locator(".tp-bytes")).to_have_count(0)
    assert "👍" in gpt2.inner_text()


def test_trained_error_panel_boundaries_encoders_and_payloads(page, screenshot_dir):
    dialogs = page.dialogs   # conftest's tab records them
    train_english(page)
    go_to(page, "Compare")
    expect(main(page)).to_contain_text("Trained on: Sample · English prose")
    expect(page.locator(".tp-panel .tp-name")).to_have_text(
        ["Byte-level BPE · merges", "GPT-2", "o200k_base (GPT-4o)", "BERT base uncased"], timeout=WAIT)
    snap(page, screenshot_dir / "compare-trained.png")

    # greedy cannot cover what the training segmentation never had: a message in its own panel
    page.get_by_role("combobox", name="Tokenizers").click()
    with rerun(page):
        page.get_by_role("option", name="Byte-level BPE · greedy (seed 002)").click()
    page.keyboard.press("Escape")
    expect(page.locator(".tp-panel")).to_have_count(5)
    expect(page.get_by_test_id("stAlertContentError")).to_contain_text("Cannot encode this text")
    expect(panel(page, "pretrained:gpt2").locator(".tp-t").first).to_be_visible()
    click(page, page.get_by_role("radio", name="Stacked"))
    snap(page, screenshot_dir / "compare-error.png")

    # user HTML through every path: shown literally, never run
    set_text(page, PAYLOADS)
    gpt2 = panel(page, "pretrained:gpt2")
    expect(gpt2.locator(".tp-tokens")).to_have_text(PAYLOADS)
    for control in ("Visible whitespace", "Group bytes"):
        click(page, page.get_by_text(control, exact=True))
        no_injected_markup(page)
    expect(gpt2.locator(".tp-tokens")).to_contain_text("<script>alert(1)</script>⋅<svg⋅onload=alert(1)>")
    click(page, page.get_by_role("radio", name="Ids"))
    no_injected_markup(page)
    click(page, page.get_by_role("radio", name="Tokens"))
    click(page, page.get_by_role("radio", name="Side by side"))
    snap(page, screenshot_dir / "compare-xss.png")

    click(page, page.get_by_role("tab", name="Boundaries"))
    bound = page.locator(".tp-bound")
    expect(bound).to_be_visible(timeout=WAIT)
    assert re.sub("[│▼▲]", "", bound.inner_text()) == PAYLOADS
    expect(page.get_by_test_id("stMetricValue").first).to_have_text(re.compile(r"\d+%"))
    no_injected_markup(page)

    click(page, page.get_by_role("tab", name="Encoder differences"))
    table = page.locator(".tp-diff")
    expect(table).to_be_visible(timeout=WAIT)
    words = table.locator("td.tp-w").all_inner_texts()
    assert words and any("<" in w for w in words)
    assert all(w.replace("⋅", " ") in PAYLOADS for w in words), words   # literally the text's words
    no_injected_markup(page)
    assert dialogs == []

    # the boundary and encoder views on an ordinary text, for the eye
    pick(page, "Sample", "English", exact=True)
    snap(page, screenshot_dir / "compare-encoders.png")
    click(page, page.get_by_role("tab", name="Boundaries"))
    expect(page.locator(".tp-bound")).to_contain_text("multiplied")
    assert re.sub("[│▼▲]", "", page.locator(".tp-bound").inner_text()) == SAMPLES["English"]
    snap(page, screenshot_dir / "compare-boundaries.png")
    assert dialogs == []
    assert page.get_by_role("textbox", name="Text", exact=True).input_value() == SAMPLES["English"]


def test_dark_theme_keeps_the_panel_figures_readable(browser, app_url, screenshot_dir):
    """A viewer whose system is dark gets the dark theme (.streamlit/config.toml); the panels'
    figures follow the theme's text colour (they were #111 on #0e1117, invisible)."""
    context = browser.new_context(viewport={"width": 1600, "height": 1000}, color_scheme="dark")
    page = new_tab(context)
    try:
        open_app(page, app_url)
        go_to(page, "Compare")
        figure = panel(page, "pretrained:gpt2").locator(".tp-count b")
        expect(figure).to_be_visible(timeout=WAIT)
        background = page.get_by_test_id("stApp").evaluate("e => getComputedStyle(e).backgroundColor")
        assert luminance(background) < 0.2, background
        for element in (figure, panel(page, "pretrained:gpt2").locator(".tp-name")):
            colour = element.evaluate("e => getComputedStyle(e).color")
            assert luminance(colour) > 0.6, colour
        # text on the light token fills stays dark
        token = panel(page, "pretrained:gpt2").locator(".tp-t").first
        assert luminance(token.evaluate("e => getComputedStyle(e).color")) < 0.2
        snap(page, screenshot_dir / "compare-dark.png", whole=False)
    finally:
        context.close()
