"""In Chromium: the first screen (what this is, one-click starts), a one-click start onto the
Merges page, and byte-level BPE on Chinese reading as characters (bytes with their character),
in light and dark. Screenshots: tests/screenshots/first-*.png and merges-chinese-*.png."""
import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

WAIT = 90_000
ALIASES = "åäèçæĪŃĹ"


def settle(page) -> None:
    page.locator('[data-testid="stApp"][data-test-script-state="notRunning"]').wait_for(timeout=WAIT)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_first_screen_and_chinese_merges(browser, app_url, screenshot_dir, scheme):
    context = browser.new_context(viewport={"width": 1024, "height": 800}, color_scheme=scheme)
    page = context.new_page()
    page.set_default_timeout(WAIT)
    try:
        page.goto(app_url)
        expect(page.get_by_text("See how a tokenizer learns its vocabulary")).to_be_visible()
        for name in ("The seed's first example", "A Chinese paragraph", "The King James Bible", "Paste your own text"):
            expect(page.get_by_role("button", name=name)).to_be_visible()
        settle(page)
        page.screenshot(path=screenshot_dir / f"first-screen-{scheme}.png")
        page.get_by_role("button", name="A Chinese paragraph").click()
        expect(page.get_by_text("Loaded and trained")).to_be_visible()
        expect(page.get_by_role("button", name="Train all three on “Sample · Chinese paragraph”")).to_be_visible()
        settle(page)
        page.get_by_test_id("stSidebarNav").get_by_role("link", name="Merges").click()
        page.locator(".mg-state").wait_for(state="attached")
        settle(page)
        page.locator(".st-key-merges_model").get_by_text("Byte-level BPE").click()
        expect(page.locator(".mg-sentence").first).to_contain_text("Step 0 of")
        settle(page)
        page.keyboard.press("ArrowRight")
        expect(page.locator(".mg-sentence").first).to_contain_text("Step 1 of")
        text = page.locator(".mg-sentence").first.inner_text()
        assert "<0x" in text and " of " in text and not any(c in text for c in ALIASES), text
        alias = page.locator(".mg-sentence code.mg-tok[title]").first.get_attribute("title")
        assert alias.startswith("spelled ") and any(c in alias for c in ALIASES), alias
        page.keyboard.press("End")
        expect(page.locator(".mg-sentence").first).not_to_contain_text("Step 1 of")
        settle(page)
        assert not any(c in page.locator(".mg-sentence").first.inner_text() for c in ALIASES)
        page.screenshot(path=screenshot_dir / f"merges-chinese-{scheme}.png", full_page=True)
    finally:
        context.close()
