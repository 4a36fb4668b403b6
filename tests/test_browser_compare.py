"""The Compare page in Chromium: panels render, hovering a token lights up its id everywhere in
its panel, a tokenizer that cannot encode shows a message, and pasted HTML stays text (no
dialog fires, the text shows literally) on every path.

Screenshots go to tests/screenshots/compare-*.png: look at them (a blank or garbled page is a
failure these assertions may miss). One Streamlit server for the session (conftest.py).
"""
import re

import pytest
from playwright.sync_api import expect

from playground.compare import SAMPLES

pytestmark = pytest.mark.browser

PAYLOADS = ('<img src=x onerror=alert(1)> <script>alert(1)</script> <svg onload=alert(1)> '
            '<iframe srcdoc="<script>alert(1)</script>"> "><b>x</b>')
SLOW = 120_000   # two cores shared with other test runs


def settle(page) -> None:
    page.wait_for_timeout(300)
    page.locator('[data-testid="stApp"][data-test-script-state="notRunning"]').wait_for(timeout=SLOW)


def go_to(page, title: str) -> None:
    page.get_by_test_id("stSidebarNav").get_by_role("link", name=title).click()
    page.get_by_role("heading", name=title, exact=True).first.wait_for(timeout=SLOW)
    settle(page)


def snap(page, path, whole: bool = True) -> None:
    page.mouse.move(5, 995)
    size = page.viewport_size
    if whole:
        height = page.evaluate("document.querySelector('[data-testid=stMainBlockContainer]').scrollHeight")
        page.set_viewport_size({"width": size["width"], "height": max(size["height"], min(height + 150, 8000))})
        page.wait_for_timeout(500)
    page.screenshot(path=path)
    page.set_viewport_size(size)


def panel(page, key: str):
    return page.locator(f'.tp-panel[data-tokenizer="{key}"]')


def train_english(page) -> None:
    page.get_by_role("combobox", name="Preset").click()
    page.get_by_role("option", name="Sample · English prose").first.click()
    page.get_by_role("button", name="Load preset").click()
    page.get_by_text("Current corpus: Sample · English prose").wait_for(timeout=SLOW)
    settle(page)
    page.get_by_role("button", name="Train all three").click()
    page.get_by_text("Trained all three").wait_for(timeout=SLOW)
    settle(page)


def set_text(page, text: str) -> None:
    box = page.get_by_role("textbox", name="Text", exact=True)
    box.fill(text)
    box.press("Control+Enter")
    settle(page)


def no_injected_markup(page) -> None:
    main = page.get_by_test_id("stMain")
    for selector in ("img[src=x]", "svg[onload]", "iframe", "script", "b:text-is('x')"):
        expect(main.locator(selector)).to_have_count(0)


def test_pretrained_panels_and_hover(page, screenshot_dir):
    go_to(page, "Compare")
    expect(page.get_by_test_id("stMain")).to_contain_text("Nothing trained yet")
    keys = ["pretrained:gpt2", "pretrained:cl100k_base", "pretrained:o200k_base", "pretrained:bert-base-uncased"]
    for key in keys:
        expect(panel(page, key).locator(".tp-t").first).to_be_visible(timeout=SLOW)
    # the reference ids for "Hello, world!" (REFERENCES.md) in the header counts and the ids view
    set_text(page, "Hello, world!")
    expect(panel(page, "pretrained:gpt2").locator(".tp-count")).to_have_text("4 tokens")
    page.get_by_role("radio", name="Ids").click()
    settle(page)
    expect(panel(page, "pretrained:gpt2").locator(".tp-t")).to_have_text(["15496", "11", "995", "0"])
    expect(panel(page, "pretrained:o200k_base").locator(".tp-t")).to_have_text(["13225", "11", "2375", "0"])
    expect(panel(page, "pretrained:bert-base-uncased").locator(".tp-t")).to_have_text(["7592", "1010", "2088", "999"])
    page.get_by_role("radio", name="Tokens").click()
    settle(page)

    page.get_by_role("combobox", name="Sample").click()
    page.get_by_role("option", name="Emoji (ZWJ, flags, skin tones)").click()
    settle(page)
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
    page.wait_for_timeout(300)
    outline = "e => getComputedStyle(e).outlineStyle"
    assert tokens.nth(second).evaluate(outline) == "solid"
    assert tokens.nth(other).evaluate(outline) == "none"
    gpt2.screenshot(path=screenshot_dir / "compare-hover.png")

    # grouped: the bytes of each emoji drawn as whole characters
    page.get_by_text("Group bytes").click()
    settle(page)
    expect(gpt2.locator(".tp-bytes")).to_have_count(0)
    assert "👍" in gpt2.inner_text()


def test_trained_error_panel_boundaries_encoders_and_payloads(page, screenshot_dir):
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    train_english(page)
    go_to(page, "Compare")
    main = page.get_by_test_id("stMain")
    expect(main).to_contain_text("Trained on: Sample · English prose")
    expect(page.locator(".tp-panel .tp-name")).to_have_text(
        ["Byte-level BPE · merges", "GPT-2", "o200k_base (GPT-4o)", "BERT base uncased"], timeout=SLOW)
    snap(page, screenshot_dir / "compare-trained.png")

    # greedy cannot cover what the training segmentation never had: a message in its own panel
    page.get_by_role("combobox", name="Tokenizers").click()
    page.get_by_role("option", name="Byte-level BPE · greedy (seed 002)").click()
    page.keyboard.press("Escape")
    settle(page)
    expect(page.locator(".tp-panel")).to_have_count(5)
    expect(page.get_by_test_id("stAlertContentError")).to_contain_text("Cannot encode this text")
    expect(panel(page, "pretrained:gpt2").locator(".tp-t").first).to_be_visible()
    page.get_by_role("radio", name="Stacked").click()
    settle(page)
    snap(page, screenshot_dir / "compare-error.png")

    # user HTML through every path: shown literally, never run
    set_text(page, PAYLOADS)
    gpt2 = panel(page, "pretrained:gpt2")
    expect(gpt2.locator(".tp-tokens")).to_have_text(PAYLOADS)
    for control in ("Visible whitespace", "Group bytes"):
        page.get_by_text(control).click()
        settle(page)
        no_injected_markup(page)
    expect(gpt2.locator(".tp-tokens")).to_contain_text("<script>alert(1)</script>⋅<svg⋅onload=alert(1)>")
    page.get_by_role("radio", name="Ids").click()
    settle(page)
    no_injected_markup(page)
    page.get_by_role("radio", name="Tokens").click()
    page.get_by_role("radio", name="Side by side").click()
    settle(page)
    snap(page, screenshot_dir / "compare-xss.png")

    page.get_by_role("tab", name="Boundaries").click()
    settle(page)
    bound = page.locator(".tp-bound")
    expect(bound).to_be_visible(timeout=SLOW)
    assert re.sub("[│▼▲]", "", bound.inner_text()) == PAYLOADS
    expect(page.get_by_test_id("stMetricValue").first).to_have_text(re.compile(r"\d+%"))
    no_injected_markup(page)

    page.get_by_role("tab", name="Encoder differences").click()
    settle(page)
    table = page.locator(".tp-diff")
    expect(table).to_be_visible(timeout=SLOW)
    words = table.locator("td.tp-w").all_inner_texts()
    assert words and any("<" in w for w in words)
    assert all(w.replace("⋅", " ") in PAYLOADS for w in words), words   # literally the text's words
    no_injected_markup(page)
    assert dialogs == []

    # the boundary and encoder views on an ordinary text, for the eye
    page.get_by_role("combobox", name="Sample").click()
    page.get_by_role("option", name="English", exact=True).click()
    settle(page)
    snap(page, screenshot_dir / "compare-encoders.png")
    page.get_by_role("tab", name="Boundaries").click()
    settle(page)
    expect(page.locator(".tp-bound")).to_contain_text("multiplied")
    assert re.sub("[│▼▲]", "", page.locator(".tp-bound").inner_text()) == SAMPLES["English"]
    snap(page, screenshot_dir / "compare-boundaries.png")
    assert dialogs == []
    assert page.get_by_role("textbox", name="Text", exact=True).input_value() == SAMPLES["English"]


def _luminance(css_colour: str) -> float:
    """Relative luminance (0 black … 1 white) of a computed `rgb(r, g, b)` / `rgba(…)` colour."""
    r, g, b = (int(v) / 255 for v in re.findall(r"[\d.]+", css_colour)[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def test_dark_theme_keeps_the_panel_figures_readable(browser, app_url, screenshot_dir):
    """A viewer whose system is dark gets the dark theme (.streamlit/config.toml); the panels'
    figures follow the theme's text colour (they were #111 on #0e1117, invisible)."""
    context = browser.new_context(viewport={"width": 1600, "height": 1000}, color_scheme="dark")
    page = context.new_page()
    try:
        page.goto(app_url)
        page.get_by_role("heading", name="Corpus").first.wait_for(timeout=SLOW)
        go_to(page, "Compare")
        figure = panel(page, "pretrained:gpt2").locator(".tp-count b")
        expect(figure).to_be_visible(timeout=SLOW)
        background = page.get_by_test_id("stApp").evaluate("e => getComputedStyle(e).backgroundColor")
        assert _luminance(background) < 0.2, background
        for element in (figure, panel(page, "pretrained:gpt2").locator(".tp-name")):
            colour = element.evaluate("e => getComputedStyle(e).color")
            assert _luminance(colour) > 0.6, colour
        # text on the light token fills stays dark
        token = panel(page, "pretrained:gpt2").locator(".tp-t").first
        assert _luminance(token.evaluate("e => getComputedStyle(e).color")) < 0.2
        snap(page, screenshot_dir / "compare-dark.png", whole=False)
    finally:
        context.close()
