"""Unigram in Chromium: opted in on the Corpus page, trained on seed 001 (202 characters) with
the three, then stepped on its page by the keys of its stepper, as on the Merges page (→ End
Home), through a pruning, and one word's lattice drawn, the Viterbi path outlined and the shares
adding up to 100%; another word chosen, its lattice drawn at every step; a reload reopens the
step and the word (the address keeps them), and neither this page nor Merges takes the other's
parameters. Stepped once, in the light theme; the pictures are taken in both (the theme switched
on the open page, as a system setting does).

Screenshots of the iteration view and of the lattice at 1280 and 1024 pixels, light and dark:
tests/screenshots/unigram-{iterations,lattice}-{1280,1024}-{light,dark}.png. Every wait is for
the state asserted (the step sentence, the lattice's rows), never for a time.
"""
import math
import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import WAIT, both_themes, go_to, idle, load_preset, new_tab, open_app, rerun, snap

pytestmark = pytest.mark.browser

SIZE = 32            # seed 001 accepts 30 to 73 pieces; 32 takes two prunings
WIDTHS = (1280, 1024)


def _sentence(page):
    return page.locator(".mg-sentence").first


def _step(page) -> int:
    return int(page.locator(".mg-state").get_attribute("data-step"))


def _press(page, key: str, step: int, last: int) -> None:
    page.keyboard.press(key)
    expect(_sentence(page)).to_contain_text(f"Step {step} of {last}", timeout=WAIT)
    idle(page)


def _train_with_unigram(page, screenshot_dir) -> None:
    load_preset(page, "Seed 001")
    with rerun(page):
        page.locator(".st-key-corpus_unigram_on").get_by_text("Train Unigram too").click()
    box = page.locator(".st-key-corpus_unigram_vocab_size input")
    box.fill(str(SIZE))
    with rerun(page):
        box.press("Enter")
    expect(page.get_by_text("This corpus accepts a Unigram vocabulary of")).to_be_visible(timeout=WAIT)
    both_themes(page, lambda theme: page.locator(".st-key-corpus_unigram_box").screenshot(
        path=screenshot_dir / f"unigram-settings-1280-{theme}.png"))
    with rerun(page, 4 * WAIT):
        page.get_by_role("button", name=re.compile("^Train all four")).click()
    expect(page.get_by_text("Trained all four")).to_be_visible(timeout=WAIT)


def test_unigram_stepped_by_keys_with_its_lattice(browser, app_url, screenshot_dir):
    context = browser.new_context(viewport={"width": WIDTHS[0], "height": 900}, color_scheme="light")
    page = new_tab(context)
    try:
        open_app(page, app_url)
        _train_with_unigram(page, screenshot_dir)
        go_to(page, "Unigram")
        marker = page.locator(".mg-state")
        marker.wait_for(state="attached", timeout=WAIT)
        last = int(marker.get_attribute("data-last"))
        expect(_sentence(page)).to_contain_text(f"Step 0 of {last}: the ", timeout=WAIT)

        # by keys alone, after a click on the page: → until a pruning, End, Home
        page.get_by_role("heading", name="Unigram", exact=True).first.click()
        step = 0
        while "pruning" not in _sentence(page).inner_text():
            step += 1
            assert step < last, "no pruning before the final vocabulary"
            _press(page, "ArrowRight", step, last)
        expect(page.locator(".ug-pieces[data-kind=prune]")).to_be_visible()
        pruned = step
        _press(page, "End", last, last)
        expect(_sentence(page)).to_contain_text("the final vocabulary")
        _press(page, "Home", 0, last)
        # back to the pruning through the slider's keys would move the slider: the step buttons
        for k in range(1, pruned + 1):
            _press(page, "ArrowRight", k, last)
        assert _step(page) == pruned

        lattice = page.locator(".ug-lattice")
        expect(lattice).to_be_visible(timeout=WAIT)
        rows = int(lattice.get_attribute("data-segmentations"))
        assert rows >= 2
        expect(lattice.locator(".ug-row.ug-best")).to_have_count(1)
        shares = [float(s) for s in lattice.locator(".ug-share").evaluate_all("els => els.map(e => e.dataset.p)")]
        if len(shares) == rows:   # every segmentation drawn: the shares are the whole word
            assert math.isclose(sum(shares), 1.0, rel_tol=1e-9)
        assert max(shares) == shares[0]   # the Viterbi path first, the most probable

        for width in WIDTHS:
            page.set_viewport_size({"width": width, "height": 900})
            idle(page)
            # the lattice fits the page's width: no horizontal scrolling needed to read it
            fits = lattice.evaluate("e => [e.scrollWidth, e.clientWidth, getComputedStyle(e).gridTemplateColumns]")
            assert fits[0] <= fits[1] + 1, (width, fits)

            def shoot(theme, width=width):
                page.get_by_test_id("stMain").locator("h1").first.scroll_into_view_if_needed()
                snap(page, screenshot_dir / f"unigram-iterations-{width}-{theme}.png")
                lattice.scroll_into_view_if_needed()
                page.locator(".st-key-unigram_lattice").screenshot(
                    path=screenshot_dir / f"unigram-lattice-{width}-{theme}.png")
            both_themes(page, shoot)

        # another word: the whole page reruns and the stepper drops the steps it holds (they drew
        # the old word); a step drawn after it from its window shows the new word's lattice
        chars = "e => [...e.querySelectorAll('.ug-char')].map(c => c.textContent).join('')"
        page.get_by_role("combobox", name="Word").click()
        page.keyboard.press("ArrowDown")        # the list of a box that takes typed words opens on a key
        with rerun(page):
            page.get_by_role("option", name="This", exact=True).click()
        expect(lattice.locator(".ug-char")).to_have_count(5, timeout=WAIT)     # ▁This
        assert lattice.evaluate(chars).endswith("This")
        _press(page, "ArrowLeft", pruned - 1, last)
        assert lattice.evaluate(chars).endswith("This")
        _press(page, "ArrowRight", pruned, last)
        assert lattice.evaluate(chars).endswith("This")

        # the address keeps the step (written by the stepper) and the word: a reload, a new session,
        # reopens both (the app's link retrains the corpus, Unigram with it)
        expect(page).to_have_url(re.compile(rf"[?&]step={pruned}(&|$)"), timeout=WAIT)
        page.reload()
        expect(_sentence(page)).to_contain_text(f"Step {pruned} of {last}", timeout=4 * WAIT)
        expect(lattice.locator(".ug-char")).to_have_count(5, timeout=WAIT)
        assert lattice.evaluate(chars).endswith("This")
        idle(page)
        # another page does not take the Unigram page's parameters for its own link
        go_to(page, "Merges")
        expect(page.locator(".mg-sentence").first).to_contain_text("Step 0 of", timeout=WAIT)
        expect(page.get_by_test_id("stAlert")).to_have_count(0)
        # nor the Unigram page the Merges page's (its step=1 in the address)
        page.get_by_role("heading", name="Merges", exact=True).first.click()
        page.keyboard.press("ArrowRight")
        expect(page.locator(".mg-sentence").first).to_contain_text("Step 1 of", timeout=WAIT)
        expect(page).to_have_url(re.compile(r"[?&]step=1(&|$)"), timeout=WAIT)
        idle(page)
        go_to(page, "Unigram")
        expect(_sentence(page)).to_contain_text(f"Step {pruned} of {last}", timeout=WAIT)
        expect(page.get_by_test_id("stAlert")).to_have_count(0)
    finally:
        context.close()
