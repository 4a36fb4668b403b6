"""A talk by keyboard alone on the Merges page, in Chromium: after any click on the page (a button,
the slider, the Lockstep toggle) ← → Space Home End step it and never work the widget; quick presses
are all kept; autoplay keeps the browser's clock; the first Next after training steps.

Each test waits for the state it asserts (the step sentence, "Step 3 of 43"), never for a time;
timings are read from the page's own clock (performance.now) when the step text changes.
Screenshots: tests/screenshots/merges-keys-*.png.
"""
import re

import pytest
from playwright.sync_api import expect

from core.presets import get_preset, words_for
from core.trainer import train as train_trace
from playground import browser_stepper, stepper
from tests.browser.conftest import WAIT, go_to, idle, load_preset, rerun, sentence, train

pytestmark = pytest.mark.browser

VIEWPORT = {"width": 1280, "height": 900}   # the conftest's `tab` fixture opens this size


# what the page's stepper knows (browser_stepper.js), said when a step does not come: the step it is
# at and the one it shows, its last tell, whether it plays, and the steps its window holds
KEYS_STATE = """() => { const s = window.__tpStepperLive; if (!s) return null;
  return JSON.stringify({step: s.step, shown: s.shown, seq: s.seq, playing: s.playing, last: s.last,
                         held: Object.keys(s.cache), now: Math.round(performance.now())}); }"""
# the stepper shows the step it is at (none pressed waits for the server's window)
CAUGHT_UP = "() => { const m = document.querySelector('.mg-state'); return !!m && m.dataset.want === m.dataset.step; }"


def shows_step(page, k: int, of: int) -> None:
    """The first step sentence says "Step k of n" (numbers as the page writes them: 1,234)."""
    try:
        expect(sentence(page)).to_contain_text(f"Step {k:,} of {of:,}", timeout=WAIT)
    except AssertionError as e:
        raise AssertionError(f"{e}\nthe key script's state: {page.evaluate(KEYS_STATE)}") from None


def train_preset(page, label: str) -> None:
    page.open()
    load_preset(page, label)
    train(page)


def open_english(page, query: str = "") -> None:
    """The Merges page on the English sample, by its link: a new session retrains the preset in
    the link's run. The keys are what these tests are about, not the Corpus page (its training
    is test_first_next_after_training_steps' and test_browser.py's); a page load less each."""
    page.open("/merges?preset=english" + query)
    page.locator(".mg-state").wait_for(state="attached")


def to_merges(page) -> None:
    go_to(page, "Merges")
    page.locator(".mg-state").wait_for(state="attached")


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


def reaches_step(page, k: int) -> None:
    """While autoplay runs: step k or a later one has been shown, as record_steps saw it. Not
    expect(...).to_contain_text("Step k of"): autoplay shows a step for about a second, and under
    load Playwright's polling (up to a second apart) can miss it (a clean-clone run saw 7, then 9)."""
    try:
        page.wait_for_function(f"() => window.__steps.some(s => s[1] >= {k})", timeout=WAIT)
    except Exception as e:  # noqa: BLE001 -- said with what the page showed and knew
        raise AssertionError(f"step {k} never shown; steps seen {recorded(page)}\n"
                             f"the key script's state: {page.evaluate(KEYS_STATE)}") from e


def test_keys_work_after_clicking_any_control(tab, screenshot_dir):
    open_english(tab)
    n = steps_total(tab)
    shows_step(tab, 0, n)
    # a click on Next leaves the focus on the button: arrows and Home/End still step the page
    tab.get_by_role("button", name="Next").click()
    shows_step(tab, 1, n)
    tab.keyboard.press("ArrowRight")
    shows_step(tab, 2, n)
    tab.keyboard.press("ArrowLeft")
    shows_step(tab, 1, n)
    tab.keyboard.press("End")
    shows_step(tab, n, n)
    tab.keyboard.press("Home")
    shows_step(tab, 0, n)
    # the Lockstep toggle clicked on: Space plays and pauses, and never toggles it back off. Space
    # comes at once, while the switch's run may not have started: the page's keys wait for that run
    # (merges_keys.js, ASKED_MS; before, Streamlit could merge the two requests and drop the press).
    # The switch is read once that run is over: it reruns the whole page, and during such a run
    # the old switch can stand beside the new one
    toggle = tab.get_by_role("switch", name="Lockstep")
    with rerun(tab):
        tab.locator(".st-key-merges_lockstep label").click()
        tab.keyboard.press("Space")
    expect(tab.get_by_role("button", name="Pause")).to_be_visible(timeout=WAIT)
    expect(toggle).to_be_checked(timeout=WAIT)
    tab.keyboard.press("Space")
    expect(tab.get_by_role("button", name="Play")).to_be_visible(timeout=WAIT)
    expect(toggle).to_be_checked(timeout=WAIT)
    with rerun(tab):
        tab.locator(".st-key-merges_lockstep label").click()  # back to one tokenizer, by mouse
    expect(toggle).not_to_be_checked(timeout=WAIT)
    tab.keyboard.press("Home")
    shows_step(tab, 0, n)
    # the slider clicked: an arrow is one step of the page (not the slider's own move), once
    thumb = tab.get_by_role("slider")
    thumb.focus()
    tab.keyboard.press("ArrowRight")
    shows_step(tab, 1, n)
    tab.keyboard.press("ArrowRight")
    shows_step(tab, 2, n)
    expect(tab).to_have_url(re.compile(r"[?&]step=2(&|$)"), timeout=WAIT)
    # the autoplay speed select box clicked and closed: arrows do not change the speed
    speed = tab.get_by_role("combobox", name="Autoplay speed")
    speed.click()
    tab.keyboard.press("Escape")
    tab.keyboard.press("ArrowRight")
    shows_step(tab, 3, n)
    expect(tab.locator(".mg-state")).to_have_attribute("data-speed", "1", timeout=WAIT)
    tab.screenshot(path=screenshot_dir / "merges-keys-after-clicks.png")


def test_five_quick_presses_make_five_steps(tab):
    open_english(tab)
    n = steps_total(tab)
    tab.get_by_role("button", name="Next").click()     # a control has the focus, as in a talk
    shows_step(tab, 1, n)
    idle(tab)
    record_steps(tab)
    for _ in range(5):
        tab.keyboard.press("ArrowRight")               # quick: no wait between presses
    shows_step(tab, 6, n)
    idle(tab)
    tab.wait_for_function(CAUGHT_UP)
    shows_step(tab, 6, n)                             # and no sixth step after the five
    assert [k for _, k in recorded(tab)][-1] == 6
    # the stepper writes the step into the address (its runs do not), replacing the entry
    expect(tab).to_have_url(re.compile(r"[?&]step=6(&|$)"))
    history = tab.evaluate("history.length")
    # and back: five quick ← from 6 is step 1
    for _ in range(5):
        tab.keyboard.press("ArrowLeft")
    shows_step(tab, 1, n)
    idle(tab)
    expect(tab).to_have_url(re.compile(r"[?&]step=1(&|$)"))
    assert tab.evaluate("history.length") == history


def test_autoplay_steps_one_at_a_time(tab, screenshot_dir):
    """Autoplay makes every step in turn, none skipped, and Space pauses it. At the quickest speed
    (0.5 s, from the link: the suite's time): the stepper never skips a step it does not hold yet,
    it waits for it. How evenly it keeps its time is a figure, printed here and measured by the
    bench at 1 s, never asserted: on two shared cores a run can take longer than a tick."""
    open_english(tab, "&speed=0.5")
    expect(tab.get_by_role("combobox", name="Autoplay speed")).to_have_value("0.5")
    n = steps_total(tab)
    assert n >= 12
    record_steps(tab)
    tab.get_by_role("button", name="Play").click()
    reaches_step(tab, 8)
    tab.keyboard.press("Space")                        # pause
    expect(tab.get_by_role("button", name="Play")).to_be_visible(timeout=WAIT)
    steps = recorded(tab)
    assert [k for _, k in steps][:9] == list(range(9)), steps   # one step at a time, none skipped
    times = {k: t for t, k in steps}
    gaps = [(times[k + 1] - times[k]) / 1000 for k in range(1, 8)]
    print("autoplay gaps (s):", [round(g, 3) for g in gaps])
    tab.screenshot(path=screenshot_dir / "merges-keys-autoplay.png")
    # the mouse pauses too
    tab.get_by_role("button", name="Play").click()
    expect(tab.get_by_role("button", name="Pause")).to_be_visible(timeout=WAIT)
    reaches_step(tab, recorded(tab)[-1][1] + 2)
    tab.get_by_role("button", name="Pause").click()
    expect(tab.get_by_role("button", name="Play")).to_be_visible(timeout=WAIT)
    idle(tab)
    paused = recorded(tab)[-1][1]
    tab.wait_for_timeout(1300)                         # more than two ticks: no step comes
    assert recorded(tab)[-1][1] == paused


# (time, step) at each change of the first step sentence, noted in the task that made it (a
# MutationObserver's callback runs before the next task): when the stepper drew a step, whatever
# the frames
RECORD_DRAWN = """() => {
    window.__drawn = [];
    let last = null;
    new MutationObserver(() => {
        const el = document.querySelector('.mg-sentence');
        const m = el && el.textContent.match(/^Step ([\\d,]+) of/);
        const k = m ? +m[1].replace(/,/g, '') : null;
        if (k !== null && k !== last) { window.__drawn.push([performance.now(), k]); last = k; }
    }).observe(document.body, {childList: true, subtree: true, characterData: true});
}"""

# Hide step 3 from the stepper's window for 450 ms from the moment autoplay first asks for it at
# step 2, as if the run sending it were that late; count the asks it answered "not yet"
HIDE_STEP_3 = """() => {
    const s = window.__tpStepperLive, held = s.cache;
    let until = null;
    window.__asked = 0;
    s.cache = new Proxy(held, {get(t, key) {
        if (key === '3' && s.step === 2 && until === null) until = performance.now() + 450;
        if (key === '3' && until !== null && performance.now() < until) { window.__asked++; return undefined; }
        return t[key];
    }});
}"""


def test_autoplay_shows_a_step_it_waited_for_for_a_whole_tick(tab):
    """A step autoplay had to wait for (the window did not hold it yet) is shown for a whole tick:
    the clock goes on from it (browser_stepper.js, tick). Before, the next step kept its old time,
    so a step drawn nearly a tick late was shown only for the rest of that tick (at the 0.5 s
    speed a clean-clone run recorded steps 6 then 8)."""
    open_english(tab, "&speed=0.5")
    expect(tab.get_by_role("combobox", name="Autoplay speed")).to_have_value("0.5")
    idle(tab)
    tab.evaluate(RECORD_DRAWN)
    tab.evaluate(HIDE_STEP_3)
    tab.get_by_role("button", name="Play").click()
    tab.wait_for_function("() => window.__drawn.some(s => s[1] >= 4)", timeout=WAIT)
    tab.keyboard.press("Space")                        # pause
    expect(tab.get_by_role("button", name="Play")).to_be_visible(timeout=WAIT)
    drawn = tab.evaluate("window.__drawn")
    assert tab.evaluate("window.__asked") > 0, "autoplay never waited for step 3: the test shows nothing"
    steps = [k for _, k in drawn]
    assert 1 in steps and steps[steps.index(1):][:4] == [1, 2, 3, 4], drawn
    at = {k: t for t, k in drawn}
    # a tick (500 ms) from the clock's restart, which is read just before step 3 is drawn: so at least
    # 500 ms less step 3's drawing (a few ms; under a loaded machine more). The old script: ~50 ms
    assert at[4] - at[3] >= 300, drawn


def test_first_next_after_training_steps(tab, screenshot_dir):
    """The first → after training on the Corpus page makes step 1, drawn from the stepper's window
    (how quickly, on the KJV, is bench/browser.py's "first step after training")."""
    train_preset(tab, "Sample · English prose")
    to_merges(tab)
    n = steps_total(tab)
    shows_step(tab, 0, n)
    tab.keyboard.press("ArrowRight")
    shows_step(tab, 1, n)
    idle(tab)
    tab.screenshot(path=screenshot_dir / "merges-keys-first-step.png")
    # the corpus drawn from the window, sent packed (browser_stepper.pack) and joined by the
    # stepper's script, is the page's HTML of step 1 to the character
    preset = get_preset("english")
    config = preset.configs()["bpe"]
    corpus = stepper.corpus_view(train_trace(words_for(preset, config), config), 1, preset.corpus_text())
    want = f'<div class="tp-scroll mg-corpus">{corpus.html}</div>'
    assert browser_stepper.pack(want) != want
    assert tab.evaluate("() => document.querySelector('.st-key-merges_corpus .tp-html-panel').__tpHtml") == want
