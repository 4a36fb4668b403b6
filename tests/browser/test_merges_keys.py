"""A talk by keyboard alone on the Merges page, in Chromium: after any click on the page (a button,
the slider, the Lockstep toggle) ← → Space Home End step it and never work the widget; quick presses
are all kept; autoplay keeps the browser's clock; the first Next on the KJV is quick.

Each test waits for the state it asserts (the step sentence, "Step 3 of 43"), never for a time;
timings are read from the page's own clock (performance.now) when the step text changes.
Screenshots: tests/screenshots/merges-keys-*.png.
"""
import re

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

WIDE = {"width": 1280, "height": 900}
WAIT = 90_000       # two shared cores: training the KJV and Streamlit runs can be slow


@pytest.fixture
def tab(browser, app_url):
    context = browser.new_context(viewport=WIDE, color_scheme="light")
    page = context.new_page()
    page.set_default_timeout(WAIT)
    page.goto(app_url)
    page.get_by_role("heading", name="Corpus").first.wait_for()
    settle(page)
    try:
        yield page
    finally:
        context.close()


def settle(page) -> None:
    page.locator('[data-testid="stApp"][data-test-script-state="notRunning"]').wait_for(timeout=WAIT)


def sentence(page):
    return page.locator(".mg-sentence").first


def expect_step(page, k: int, of: int) -> None:
    expect(sentence(page)).to_contain_text(f"Step {k:,} of {of:,}", timeout=WAIT)


def train_preset(page, label: str) -> None:
    page.get_by_role("combobox", name="Preset").click()
    page.get_by_role("option", name=label).first.click()
    page.get_by_role("button", name="Load preset").click()
    settle(page)
    page.get_by_role("button", name="Train all three").click()
    page.get_by_text("Trained all three").wait_for(timeout=WAIT)
    settle(page)


def to_merges(page) -> None:
    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Merges").click()
    page.get_by_role("heading", name="Merges", exact=True).first.wait_for()
    page.locator(".mg-state").wait_for(state="attached")
    settle(page)


def steps_total(page) -> int:
    return int(page.locator(".mg-state").get_attribute("data-last"))


def record_steps(page) -> None:
    """From now on, note (time, step) each time the first step sentence's number changes."""
    page.evaluate("""() => {
        window.__steps = [];
        let last = null;
        const poll = () => {
            const el = document.querySelector('.mg-sentence');
            const m = el && el.textContent.match(/^Step ([\\d,]+) of/);
            const k = m ? +m[1].replace(/,/g, '') : null;
            if (k !== null && k !== last) { window.__steps.push([performance.now(), k]); last = k; }
            requestAnimationFrame(poll);
        };
        poll();
    }""")


def recorded(page) -> list:
    return page.evaluate("window.__steps")


def test_keys_work_after_clicking_any_control(tab, screenshot_dir):
    train_preset(tab, "Sample · English prose")
    to_merges(tab)
    n = steps_total(tab)
    expect_step(tab, 0, n)
    # a click on Next leaves the focus on the button: arrows and Home/End still step the page
    tab.get_by_role("button", name="Next").click()
    expect_step(tab, 1, n)
    tab.keyboard.press("ArrowRight")
    expect_step(tab, 2, n)
    tab.keyboard.press("ArrowLeft")
    expect_step(tab, 1, n)
    tab.keyboard.press("End")
    expect_step(tab, n, n)
    tab.keyboard.press("Home")
    expect_step(tab, 0, n)
    # the Lockstep toggle clicked on: Space plays and pauses, and never toggles it back off
    toggle = tab.get_by_role("switch", name="Lockstep")
    tab.locator(".st-key-merges_lockstep label").click()
    expect(toggle).to_be_checked(timeout=WAIT)
    settle(tab)
    tab.keyboard.press("Space")
    expect(tab.get_by_role("button", name="Pause")).to_be_visible(timeout=WAIT)
    expect(toggle).to_be_checked(timeout=WAIT)
    tab.keyboard.press("Space")
    expect(tab.get_by_role("button", name="Play")).to_be_visible(timeout=WAIT)
    expect(toggle).to_be_checked(timeout=WAIT)
    tab.locator(".st-key-merges_lockstep label").click()      # back to one tokenizer, by mouse
    expect(toggle).not_to_be_checked(timeout=WAIT)
    settle(tab)
    tab.keyboard.press("Home")
    expect_step(tab, 0, n)
    # the slider clicked: an arrow is one step of the page (not the slider's own move), once
    thumb = tab.get_by_role("slider")
    thumb.focus()
    tab.keyboard.press("ArrowRight")
    expect_step(tab, 1, n)
    tab.keyboard.press("ArrowRight")
    expect_step(tab, 2, n)
    expect(tab).to_have_url(re.compile(r"[?&]step=2(&|$)"), timeout=WAIT)
    # the autoplay speed select box clicked and closed: arrows do not change the speed
    speed = tab.get_by_role("combobox", name="Autoplay speed")
    speed.click()
    tab.keyboard.press("Escape")
    tab.keyboard.press("ArrowRight")
    expect_step(tab, 3, n)
    expect(tab.locator(".mg-state")).to_have_attribute("data-speed", "1", timeout=WAIT)
    tab.screenshot(path=screenshot_dir / "merges-keys-after-clicks.png")


def test_five_quick_presses_make_five_steps(tab):
    train_preset(tab, "Sample · English prose")
    to_merges(tab)
    n = steps_total(tab)
    tab.get_by_role("button", name="Next").click()     # a control has the focus, as in a talk
    expect_step(tab, 1, n)
    settle(tab)
    record_steps(tab)
    for _ in range(5):
        tab.keyboard.press("ArrowRight")               # quick: no wait between presses
    expect_step(tab, 6, n)
    settle(tab)
    tab.wait_for_function("window.__tpMergesKeys.state.queue.length === 0 && !window.__tpMergesKeys.state.waiting")
    expect_step(tab, 6, n)                             # and no sixth step after the five
    assert [k for _, k in recorded(tab)][-1] == 6
    # and back: five quick ← from 6 is step 1
    for _ in range(5):
        tab.keyboard.press("ArrowLeft")
    expect_step(tab, 1, n)


def test_autoplay_keeps_time(tab, screenshot_dir):
    train_preset(tab, "Sample · English prose")
    to_merges(tab)
    n = steps_total(tab)
    assert n >= 10
    record_steps(tab)
    tab.get_by_role("button", name="Play").click()
    expect_step(tab, 8, n)
    tab.keyboard.press("Space")                        # pause
    expect(tab.get_by_role("button", name="Play")).to_be_visible(timeout=WAIT)
    steps = recorded(tab)
    times = {k: t for t, k in steps}
    # the intervals between steps 1..8 as the page showed them: 1 s each, within 0.2 s
    gaps = [(times[k + 1] - times[k]) / 1000 for k in range(1, 8)]
    print("autoplay gaps (s):", [round(g, 3) for g in gaps])
    print("clicks [action, clicked, shown, run over] (ms):", tab.evaluate("window.__tpMergesKeys.state.log"))
    assert all(0.8 <= g <= 1.2 for g in gaps), gaps
    assert [k for _, k in steps][:9] == list(range(9))   # one step at a time, none skipped
    tab.screenshot(path=screenshot_dir / "merges-keys-autoplay.png")


def test_first_next_on_the_kjv_is_quick(tab, screenshot_dir):
    train_preset(tab, "Sample · King James Bible")
    to_merges(tab)
    n = steps_total(tab)
    expect_step(tab, 0, n)
    record_steps(tab)
    start = tab.evaluate("performance.now()")
    tab.keyboard.press("ArrowRight")
    expect_step(tab, 1, n)
    took = (recorded(tab)[-1][0] - start) / 1000
    print(f"first Next on the KJV: {took:.3f} s")
    assert took <= 1.0, took
    settle(tab)
    tab.screenshot(path=screenshot_dir / "merges-keys-kjv-step1.png")
