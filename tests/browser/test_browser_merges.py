"""The Merges page in Chromium: keyboard shortcuts step it, Space plays and pauses, a link reopens
a view (lockstep included), a malformed link only warns, corpus text never runs as HTML, and
nothing overflows a 1280-pixel projector. Screenshots go to tests/screenshots/merges-*.png:
look at them (a blank or broken page is a failure these assertions may not catch).
"""
import re

import pytest
from playwright.sync_api import expect

from playground import spans
from tests.browser.conftest import (WAIT, frames, go_to, idle, intervals, load_preset, rerun, sentence, snap, train,
                                   use_pasted)

pytestmark = pytest.mark.browser

VIEWPORT = {"width": 1280, "height": 900}    # a projector (conftest's `tab` fixture opens this size)


def expect_step(page, k: int, of: int) -> None:
    expect(sentence(page)).to_contain_text(f"Step {k} of {of}", timeout=WAIT)
    expect(page).to_have_url(re.compile(rf"[?&]step={k}(&|$)"), timeout=WAIT)


def key(page, name: str) -> None:
    """Press a shortcut key and wait until the run it causes has finished."""
    with rerun(page):
        page.keyboard.press(name)


def step_by(page, name: str, k: int, of: int) -> None:
    """Press a shortcut key; the page shows step k of `of`."""
    key(page, name)
    expect_step(page, k, of)


def unfocus(page) -> None:
    """Click a plain heading: keys go to the page's shortcuts, not to a focused widget."""
    page.get_by_role("heading", name="Merges", exact=True).first.click()


def no_overflow(page) -> None:
    widths = page.evaluate("""() => {
        const main = document.querySelector('[data-testid=stMain]');
        return [document.documentElement.scrollWidth, document.documentElement.clientWidth,
                main.scrollWidth, main.clientWidth];
    }""")
    assert widths[0] <= widths[1] and widths[2] <= widths[3], widths


def test_keyboard_shortcuts_step_through_seed_000(tab, screenshot_dir):
    tab.open()
    load_preset(tab, "Seed 000")
    train(tab)
    go_to(tab, "Merges")
    expect_step(tab, 0, 5)
    unfocus(tab)
    step_by(tab, "ArrowRight", 1, 5)
    expect(sentence(tab)).to_contain_text("(e, s) → es, id 12, seen 3 times. 5 pairs tied at 3; first took (e, s), "
                                          "met first in 'highest'.", timeout=WAIT)
    step_by(tab, "ArrowRight", 2, 5)
    step_by(tab, "ArrowLeft", 1, 5)
    step_by(tab, "End", 5, 5)
    expect(sentence(tab)).to_contain_text("(er, </w>) → er</w>", timeout=WAIT)
    step_by(tab, "Home", 0, 5)
    step_by(tab, "ArrowRight", 1, 5)
    step_by(tab, "ArrowRight", 2, 5)
    # projector: large text, nothing wider than the window
    size = float(sentence(tab).evaluate("e => getComputedStyle(e).fontSize").removesuffix("px"))
    assert size >= 22
    expect(tab.locator(".tp-tokens .tp-hl")).to_have_count(3, timeout=WAIT)          # est, outlined in the corpus
    # hovering a corpus token lights up every box of its id (the page's script: no CSS rule per id)
    tab.locator(".tp-tokens .tp-hl").first.hover()
    expect(tab.locator(".tp-tokens .tp-lit")).to_have_count(3, timeout=WAIT)
    expect(tab.locator(".mg-tree .mg-node")).to_have_count(5, timeout=WAIT)          # est: es (e, s) and t
    # the curves' mark and the captions below the step: set by the step's feed (html_panel), not redrawn
    expect(tab.locator('.mg-curve-marks[data-step="2"]')).to_have_count(1, timeout=WAIT)
    expect(tab.locator(".mg-caption").filter(has_text="after step 2:")).to_have_count(1, timeout=WAIT)
    expect(tab.locator(".mg-caption").filter(has_text="How “est” was built")).to_have_count(1, timeout=WAIT)
    expect(tab.locator(".js-plotly-plot")).to_have_count(1, timeout=WAIT)             # the curves
    expect(tab.locator(".mg-bars .mg-bar")).to_have_count(10, timeout=WAIT)           # the pairs (HTML)
    no_overflow(tab)
    snap(tab, screenshot_dir / "merges-seed000.png")


def test_space_plays_and_pauses(tab):
    """200 steps at half a second each: autoplay cannot reach the end while the test looks (it
    would need 100 s), however slow the machine, so "Pause" is there to be seen."""
    tab.open("/merges?preset=english&tokenizer=bbpe&step=2&speed=0.5")
    expect_step(tab, 2, 200)
    assert intervals(tab).count(500) == 0                                  # no autoplay timer yet
    unfocus(tab)
    key(tab, "Space")
    expect(tab.get_by_role("button", name=re.compile("^Pause"))).to_be_visible(timeout=WAIT)
    expect(sentence(tab)).not_to_contain_text(re.compile(r"Step [23] of"), timeout=WAIT)   # it moves on
    expect(sentence(tab)).to_contain_text(re.compile(r"Step \d+ of 200"), timeout=WAIT)
    tab.keyboard.press("Space")
    expect(tab.get_by_role("button", name=re.compile("^Play"))).to_be_visible(timeout=WAIT)
    # paused: Streamlit's autoplay timer is gone, so nothing moves the step any more
    tab.wait_for_function("() => !window.__intervals().includes(500)", timeout=WAIT)
    idle(tab)
    stopped = sentence(tab).inner_text()
    assert re.search(r"Step \d+ of 200", stopped), stopped
    assert intervals(tab).count(500) == 0
    idle(tab)
    assert sentence(tab).inner_text() == stopped


def test_links_reopen_the_view(tab, screenshot_dir):
    tab.open("/merges?preset=seed-004&tokenizer=wordpiece&step=1")
    expect_step(tab, 1, 4)
    expect(sentence(tab)).to_contain_text("(w, ##i) → wi, id 12, score 1/3 ≈ 0.333 with count 3.", timeout=WAIT)
    expect(tab.locator(".js-plotly-plot")).to_have_count(1, timeout=WAIT)              # the curves
    expect(tab.locator(".mg-scores .mg-pt-winner")).to_have_count(1, timeout=WAIT)    # count vs score (HTML)
    expect(tab.locator(".mg-scores .mg-pt-label")).to_have_text("w + ##i +1", timeout=WAIT)
    expect(tab.locator(".mg-bars .mg-bar")).to_have_count(10, timeout=WAIT)            # the pairs (HTML)
    no_overflow(tab)
    snap(tab, screenshot_dir / "merges-wordpiece.png")
    # another tokenizer picked in the step's fragment: the merge tree's picker (drawn after the
    # fragment, so a step does not resend it) offers the new vocabulary, and its tree is drawn
    first_box = tab.locator(".mg-tree .mg-node").first
    expect(first_box).to_have_text(re.compile(r"^wi\s*step 1$"), timeout=WAIT)
    with rerun(tab):
        tab.locator(".st-key-merges_model").get_by_text("BPE", exact=True).click()
    tab.get_by_role("combobox", name="Merge tree of").click()
    tab.keyboard.press("ArrowDown")        # the list of a picker that takes typed tokens opens on a key
    expect(tab.get_by_role("option")).to_have_text(["this step's token", "es", "est", "lo"], timeout=WAIT)
    with rerun(tab):
        tab.get_by_role("option", name="est", exact=True).click()
    expect(first_box).to_have_text(re.compile(r"^est\s*step 2$"), timeout=WAIT)

    tab.open("/merges?preset=seed-001&tokenizer=bpe&step=3&lockstep=1")
    expect(tab.locator(".mg-sentence")).to_have_count(3, timeout=WAIT)
    for i in range(3):
        expect(sentence(tab, i)).to_contain_text("Step 3 of", timeout=WAIT)
    expect(tab.get_by_role("switch", name="Lockstep")).to_be_checked(timeout=WAIT)
    unfocus(tab)
    key(tab, "ArrowRight")
    for i in range(3):
        expect(sentence(tab, i)).to_contain_text("Step 4 of", timeout=WAIT)
    no_overflow(tab)
    snap(tab, screenshot_dir / "merges-lockstep.png")


def test_a_malformed_link_only_warns(tab):
    tab.open("/merges?preset=seed-000&step=abc&tokenizer=gpt5&speed=fast&token=%3Cscript%3Ealert(1)%3C/script%3E")
    alerts = tab.get_by_test_id("stAlertContentWarning")
    expect(alerts.first).to_be_visible(timeout=WAIT)
    text = " ".join(alerts.all_inner_texts())
    for needle in ("Ignored step='abc'", "Ignored tokenizer='gpt5'", "Ignored speed='fast'",
                   "not in the BPE vocabulary"):
        assert needle in text, text
    expect(tab.get_by_test_id("stException")).to_have_count(0, timeout=WAIT)
    expect_step(tab, 0, 5)
    assert not tab.dialogs


def test_corpus_text_never_runs(tab, screenshot_dir):
    tab.open()
    use_pasted(tab, "<script>alert(1)</script> <img src=x onerror=alert(2)> <b>bold</b>\n" * 3)
    train(tab)
    go_to(tab, "Merges")
    expect(sentence(tab)).to_contain_text("Step 0 of")
    total = int(re.search(r"of (\d+)", sentence(tab).inner_text()).group(1))
    unfocus(tab)
    for k in range(1, 4):
        step_by(tab, "ArrowRight", k, total)
    expect(tab.locator(".tp-tokens")).to_contain_text("<script>", timeout=WAIT)      # shown as text
    assert tab.locator("img[src='x']").count() == 0 and tab.locator(".tp-tokens b").count() == 0
    assert not tab.dialogs
    snap(tab, screenshot_dir / "merges-escaped.png")


def assert_whole(page, locator, name: str) -> None:
    """The element is drawn whole: inside the main area's right edge, its text not cut by an
    ellipsis or clipped (scrollWidth beyond clientWidth) and, for words, not broken mid-word."""
    locator.wait_for(timeout=WAIT)
    main = page.get_by_test_id("stMain").bounding_box()
    box = locator.bounding_box()
    assert box and box["x"] + box["width"] <= main["x"] + main["width"] + 1, f"{name!r} runs past the page"
    clipped = locator.evaluate("e => e.scrollWidth > e.clientWidth + 1")
    assert not clipped, f"{name!r} is cut"


def test_a_link_as_a_new_servers_first_visit_goes_through_the_app(browser, tmp_path, screenshot_dir):
    """A `pages/` folder keeps Streamlit in its old multipage mode until app.py has run once: a
    new server whose first visitor opens a link would run pages/merges.py alone (file names as
    navigation, no sidebar). Each page reruns through app.py then (playground.startup.through_app).
    A projector-sized window, so the control rows wrap rather than cut their labels."""
    from tests.browser.conftest import serve_app
    with serve_app(tmp_path / "server.log") as url:
        context = browser.new_context(viewport={"width": 1024, "height": 768}, color_scheme="light")
        try:
            page = context.new_page()
            page.goto(url + "/merges?preset=seed-000&tokenizer=bpe&step=2", timeout=WAIT)
            expect_step(page, 2, 5)
            nav = page.get_by_test_id("stSidebarNav")
            for title in ("Corpus", "Merges", "Compare", "Inspect"):
                expect(nav).to_contain_text(title, timeout=WAIT)
            expect(nav).not_to_contain_text("app")
            expect(page.get_by_test_id("stSidebar")).to_contain_text("BPE: 5 merges, 17 tokens", timeout=WAIT)
            expect(page).to_have_url(re.compile(r"/merges\?.*step=2"))
            for name in ("Byte-level BPE", "WordPiece", "Lockstep", "Next", "Last"):
                assert_whole(page, page.get_by_text(name, exact=True).first, name)
            page.screenshot(path=str(screenshot_dir / "merges-first-visit-1024.png"))
            # the other pages at the same width: controls wrap rather than cut their labels
            for title, labels in (("Corpus", ("Unique words", "Step through the merges", "Inspect an encoding")),
                                  ("Compare", ("Stacked", "Visible whitespace", "Group bytes")),
                                  ("Inspect", ("at the Merges page's step (0)", "1 · Normalization",
                                               "4 · Post-processing"))):
                page.get_by_test_id("stSidebarNav").get_by_role("link", name=title).click()
                expect(page.get_by_test_id("stMain").locator("h1").first).to_have_text(title, timeout=WAIT)
                for label in labels:
                    assert_whole(page, page.get_by_test_id("stMain").get_by_text(label, exact=True).first, label)
        finally:
            context.close()


# the Merges corpus: how many token boxes it draws, and how many batches it holds back (html_panel.js)
CORPUS_DRAWN = """() => { const box = document.querySelector('.st-key-merges_corpus .tp-scroll');
  return box ? [box.querySelectorAll('.tp-t').length,
                (box.__tpWaiting || []).reduce((n, w) => n + w.batches.length, 0)] : null; }"""


def test_a_corpus_far_below_the_screen_is_drawn_as_it_comes_near(tab):
    """The corpus, a few screens down, holds its first batch of boxes until the page is scrolled
    near it (html_panel.js: near, fill). Before, a corpus laid out while far (as on the KJV the
    page's first run and first step lay it out, its content-visibility notwithstanding) drew six or
    seven more batches no one saw: ~17 ms at the first step, before the message telling the server
    of the step could leave. Here it is laid out wherever it is (its content-visibility set to
    visible), so that only the panel's own rule holds it back. Scrolled to, it is filled past its
    height."""
    tab.set_viewport_size({"width": 1280, "height": 600})     # far: more than a screen below it
    tab.open("/merges?preset=english")
    tab.locator(".mg-state").wait_for(state="attached")
    of = int(tab.locator(".mg-state").get_attribute("data-last"))
    expect_step(tab, 0, of)
    idle(tab)
    tab.add_style_tag(content=".st-key-merges_corpus{content-visibility:visible !important}")
    top = tab.evaluate("() => document.querySelector('.st-key-merges_corpus').getBoundingClientRect().top")
    assert top > 2 * 600, f"the corpus is at {top} px: not far below the screen, the test shows nothing"
    for k in (0, 1):
        if k:
            unfocus(tab)
            step_by(tab, "ArrowRight", k, of)
        tab.wait_for_timeout(500)      # what is not drawn: given the time a late drawing would take
        drawn, waiting = tab.evaluate(CORPUS_DRAWN)
        assert 0 < drawn <= spans.BATCH and waiting > 0, (k, drawn, waiting)
    tab.locator(".st-key-merges_corpus").scroll_into_view_if_needed()
    tab.wait_for_function(f"() => ({CORPUS_DRAWN})()[0] > {spans.BATCH}", timeout=WAIT)
    frames(tab)
    assert tab.locator(".st-key-merges_corpus .tp-scroll").evaluate("b => b.scrollHeight > b.clientHeight")


def test_a_skipped_corpus_jumped_to_is_drawn(tab):
    """The corpus below the fold is skipped by the browser (style.css: content-visibility:auto) as
    the steps go by; one jump to it (no scrolling past it on the way) fills its box all the same."""
    tab.set_viewport_size({"width": 1280, "height": 600})
    tab.open("/merges?preset=english")
    tab.locator(".mg-state").wait_for(state="attached")
    of = int(tab.locator(".mg-state").get_attribute("data-last"))
    expect_step(tab, 0, of)
    idle(tab)
    unfocus(tab)
    for k in (1, 2, 3):
        step_by(tab, "ArrowRight", k, of)
    frames(tab)
    drawn, waiting = tab.evaluate(CORPUS_DRAWN)
    skipped = tab.evaluate("() => !document.querySelector('.st-key-merges_corpus .tp-scroll')"
                           ".checkVisibility({contentVisibilityAuto: true})")
    assert skipped and drawn <= spans.BATCH and waiting > 0, (skipped, drawn, waiting)
    tab.evaluate("() => document.querySelector('.st-key-merges_corpus').scrollIntoView({block: 'center'})")
    tab.wait_for_function(f"() => ({CORPUS_DRAWN})()[0] > {spans.BATCH}", timeout=WAIT)
