"""Many users on one server, in Chromium: four browser contexts (four Streamlit sessions) training
different corpora at once against one `streamlit run` (conftest.py's server). The headless side
(caches, shared state) is tests/app/test_many_users.py."""
import re

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.browser.conftest import idle, serve_app

LETTERS = "abcdefghijklmnopqrst"
# four sessions, not ten or six: as many on two cores already make clicks land while runs end and
# pages wait their turn (what this test is about); ten took 47 s of a suite that must stay under
# 8 minutes, six 36-58 s (alone, then in a clean-clone run), four 23 s alone
SESSIONS = 4
# What these pages never fetch: the code of Plotly's and Graphviz's charts and of the syntax
# highlighter (st.code). This test is about what the server gives each session, read as text; the
# charts are drawn and checked by the other browser tests. Fetched, they were a third of this
# test's CPU (alone: 102 -> 71 CPU seconds, 52 -> 37 s), in a suite that must stay under 8 minutes.
CHART_CODE = re.compile(r"/static/js/(PlotlyChart|StreamlitSyntaxHighlighter)\.")
SLOW = 600_000   # ms: four sessions at once on two cores shared with other test runs


def until_shown(page, press, shown, tries: int = 3) -> None:
    """`press` was done once already; wait for `shown`. Streamlit can drop a click that lands
    while a run ends (four sessions on two cores make that likely), so once the page is idle
    without `shown`, the press is made again: every press here is safe to repeat."""
    for _ in range(tries):
        try:
            shown().wait_for(timeout=SLOW // (2 * tries))
            break
        except PlaywrightTimeout:
            idle(page, SLOW)
            if shown().count():
                break
            press()
    shown().wait_for(timeout=SLOW)
    idle(page, SLOW)   # the run that drew it has ended


@pytest.mark.browser
def test_four_sessions_training_at_once_each_see_their_own(browser, tmp_path):
    """Four browser contexts (four Streamlit sessions) paste different corpora and train at the same
    time; each Merges page shows its own first merge, and none shows another's. On a server of its
    own: after the rest of the browser suite, under a CPU hog, the shared server once left a
    session waiting for ten minutes (alone, ten sessions passed in 46 s under the hog)."""
    with serve_app(tmp_path / "server.log") as app_url:
        _sessions(browser, app_url)


def _sessions(browser, app_url):
    pairs = [LETTERS[2 * i] + LETTERS[2 * i + 1] for i in range(SESSIONS)]
    contexts, pages = [], []
    try:
        for _ in pairs:
            context = browser.new_context(viewport={"width": 1280, "height": 900})
            context.route(CHART_CODE, lambda route: route.abort())
            contexts.append(context)
            page = context.new_page()
            page.set_default_timeout(SLOW)
            page.goto(app_url, wait_until="commit")
            pages.append(page)

        def use_text(page):
            return lambda: page.get_by_role("button", name="Use this text").click()

        def train(page):
            return lambda: page.get_by_role("button", name="Train all three").first.click()

        def to_merges(page):
            return lambda: page.get_by_test_id("stSidebarNav").get_by_role("link", name="Merges").click()

        for page, pair in zip(pages, pairs):
            page.get_by_role("tab", name="Paste").click()
            # the pair is the most frequent by far: it is every session's first merge
            page.get_by_role("textbox", name="Text", exact=True).fill(" ".join([pair * 3] * 6 + ["xyz"]))
            use_text(page)()
        for page in pages:
            until_shown(page, use_text(page), lambda p=page: p.get_by_text("Current corpus: Pasted text").first)
        for page in pages:   # all of them press Train before any is checked
            train(page)()
        for page in pages:
            until_shown(page, train(page), lambda p=page: p.get_by_text("Trained all three").first)
        for page in pages:
            to_merges(page)()
        for page, pair in zip(pages, pairs):
            first = f"the first merge will be ({pair[0]}, {pair[1]})"
            until_shown(page, to_merges(page), lambda p=page, f=first: p.locator(".mg-sentence").first.filter(has_text=f))
            text = page.get_by_test_id("stMain").inner_text()
            others = [p for p in pairs if p != pair and p * 3 in text]
            assert not others, f"session {pair} shows another session's corpus: {others}"
    finally:
        for context in contexts:
            context.close()
