"""Many users on one server, in Chromium: ten browser contexts (ten Streamlit sessions) training
different corpora at once against one `streamlit run` (conftest.py's server). The headless side
(caches, shared state) is tests/app/test_many_users.py."""
import pytest

from tests.browser.conftest import idle

LETTERS = "abcdefghijklmnopqrst"


@pytest.mark.browser
def test_ten_sessions_training_at_once_each_see_their_own(browser, app_url):
    """Ten browser contexts (ten Streamlit sessions) paste different corpora and train at the same
    time; each Merges page shows its own first merge, and none shows another's."""
    from playwright.sync_api import expect
    slow = 600_000   # ms: ten sessions at once on two cores shared with other test runs
    pairs = [LETTERS[2 * i] + LETTERS[2 * i + 1] for i in range(10)]
    contexts, pages = [], []
    try:
        for _ in pairs:
            context = browser.new_context(viewport={"width": 1280, "height": 900})
            contexts.append(context)
            page = context.new_page()
            page.set_default_timeout(slow)
            page.goto(app_url, wait_until="commit")
            pages.append(page)
        for page, pair in zip(pages, pairs):
            page.get_by_role("tab", name="Paste").click()
            # the pair is the most frequent by far: it is every session's first merge
            page.get_by_role("textbox", name="Text", exact=True).fill(" ".join([pair * 3] * 6 + ["xyz"]))
            page.get_by_role("button", name="Use this text").click()
        for page in pages:
            page.get_by_text("Current corpus: Pasted text").wait_for(timeout=slow)
            idle(page, slow)   # the run that drew it has ended
        for page in pages:   # all ten press Train before any is checked
            page.get_by_role("button", name="Train all three").click()
        for page in pages:
            page.get_by_text("Trained all three").wait_for(timeout=slow)
            idle(page, slow)   # the run that drew it has ended
        for page in pages:
            page.get_by_test_id("stSidebarNav").get_by_role("link", name="Merges").click()
        for page, pair in zip(pages, pairs):
            sentence = page.locator(".mg-sentence").first
            expect(sentence).to_contain_text(f"the first merge will be ({pair[0]}, {pair[1]})", timeout=slow)
            text = page.get_by_test_id("stMain").inner_text()
            others = [p for p in pairs if p != pair and p * 3 in text]
            assert not others, f"session {pair} shows another session's corpus: {others}"
    finally:
        for context in contexts:
            context.close()
