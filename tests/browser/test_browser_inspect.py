"""The Inspect page in Chromium: the pipeline's four stages, a word walked, the vocabulary with a
merge tree, a tokenizer.json and a trace downloaded (and loaded in `tokenizers` to our ids), the
session saved and loaded into a fresh browser session, and user text that stays text.

Screenshots land in tests/screenshots/inspect-*.png: look at them (a blank page passes no test).
"""
import csv
import io
import re

import pytest
from playwright.sync_api import expect

from core.encoders import TrainedTokenizer
from core.presets import get_preset, words_for
from core.trainer import train as train_trace
from tests.browser.conftest import (LARGE, WAIT, frames, go_to, load_preset, main, new_tab, open_app, pick, rerun,
                                    snap, train, upload)
from tests.support import PAYLOADS

pytestmark = pytest.mark.browser

PAYLOAD = PAYLOADS[0]   # <img src=x onerror=alert(1)>


def train_seed_004(page) -> None:
    load_preset(page, "Seed 004")
    train(page)


def go_to_inspect(page) -> None:
    go_to(page, "Inspect")


def open_tab(page, name: str) -> None:
    with rerun(page):
        page.get_by_role("tab", name=name).click()


def enter(page, box, text: str, key: str = "Enter") -> None:
    """Type into a text box and submit it (a rerun)."""
    box.fill(text)
    with rerun(page):
        box.press(key)


def load_session_file(page, path) -> None:
    upload(page, str(path))
    page.get_by_text(path.name).first.wait_for()
    with rerun(page):
        page.get_by_role("button", name="Load session").click()


def seed_004_tokenizer(model: str) -> TrainedTokenizer:
    preset = get_preset("seed-004")
    config = preset.configs()[model].resolved()
    return TrainedTokenizer.from_trace(train_trace(words_for(preset, config), config))


def test_inspect_pipeline_walk_vocabulary_export(page, screenshot_dir, tmp_path):
    alerts = page.dialogs   # conftest's tab records them
    train_seed_004(page)
    go_to_inspect(page)

    # the pipeline, four stages, for the trained byte-level BPE
    for stage in ("1 · Normalization", "2 · Pre-tokenization", "3 · Model", "4 · Post-processing"):
        expect(main(page)).to_contain_text(stage)
    expect(page.locator(".tp-tokens .tp-t").first).to_be_visible()
    snap(page, screenshot_dir / "inspect-pipeline.png")

    # BERT (pretrained) with seed 004's sentence pair: [CLS] … [SEP] … [SEP], type ids 0 then 1
    pick(page, "Tokenizer", "BERT base uncased", exact=True)
    with rerun(page):
        page.get_by_role("button", name="Seed 004's sentence pair").click()
    expect(main(page)).to_contain_text("TemplateProcessing")
    expect(page.locator(".tp-tokens .tp-t", has_text="[CLS]")).to_have_count(1)
    expect(page.locator(".tp-tokens .tp-t", has_text="[SEP]")).to_have_count(2)
    snap(page, screenshot_dir / "inspect-pipeline-bert-pair.png")

    # walk a word with the trained BPE
    pick(page, "Tokenizer", "BPE (trained)", exact=True)
    open_tab(page, "Walk a word")
    enter(page, page.get_by_role("textbox", name="Type a word"), "newest")
    code = page.get_by_test_id("stCode")
    expect(code.first).to_contain_text("Merge 1 ('e', 's') -> es: [n, e, w, es, t]")
    expect(code.first).to_contain_text("Result: [n, e, w, est]")
    expect(code).to_have_count(3)
    snap(page, screenshot_dir / "inspect-walk.png")

    # the vocabulary: search, select a row, and its merge tree
    open_tab(page, "Vocabulary")
    expect(main(page)).to_contain_text("13 of 13 tokens")
    search = page.get_by_role("textbox", name="Search tokens")
    enter(page, search, "lo")
    expect(main(page)).to_contain_text("1 of 13 tokens")
    table = page.get_by_test_id("stDataFrame")
    table.hover()
    box = table.bounding_box()
    with rerun(page):
        page.mouse.click(box["x"] + 14, box["y"] + 35 + 17)     # the first row's selection box (a canvas)
    expect(main(page)).to_contain_text("Merge tree of lo")
    graph = page.locator(".mg-tree")
    expect(graph).to_contain_text("step 3", timeout=WAIT)
    enter(page, search, "")
    expect(main(page)).to_contain_text("13 of 13 tokens")
    enter(page, page.get_by_role("textbox", name="Merge tree of"), "est")
    expect(graph).to_be_visible(timeout=WAIT)
    expect(graph).to_contain_text("est")
    expect(graph).to_contain_text("step 2")
    snap(page, screenshot_dir / "inspect-vocabulary.png")

    # export: tokenizer.json loads in tokenizers and encodes to our ids; the trace as CSV
    open_tab(page, "Export & import")
    with page.expect_download(timeout=WAIT) as dl:
        page.get_by_role("button", name="tokenizer.json").click()
    path = tmp_path / "tokenizer.json"
    dl.value.save_as(path)
    from tokenizers import Tokenizer
    hf = Tokenizer.from_file(str(path))
    ours = seed_004_tokenizer("bpe")
    for text in ("lowest newest widest", "low lower newer"):
        assert hf.encode(text, add_special_tokens=False).ids == list(ours.encode(text).ids)
    with page.expect_download(timeout=WAIT) as dl:
        page.get_by_role("button", name=re.compile("trace.csv")).click()
    rows = list(csv.DictReader(io.StringIO(open(dl.value.path(), encoding="utf-8").read())))
    assert [r["token"] for r in rows] == ["es", "est", "lo"]
    snap(page, screenshot_dir / "inspect-export.png")
    assert not alerts


def test_session_saved_and_loaded_into_a_fresh_session(page, browser, app_url, screenshot_dir, tmp_path):
    train_seed_004(page)
    go_to_inspect(page)
    open_tab(page, "Session")
    with page.expect_download(timeout=WAIT) as dl:
        page.get_by_role("button", name="Save session").click()
    saved = tmp_path / "session.json"
    dl.value.save_as(saved)
    assert saved.stat().st_size > 1000
    snap(page, screenshot_dir / "inspect-session.png")

    context = browser.new_context(viewport=LARGE, color_scheme="light")
    fresh = new_tab(context)
    try:
        open_app(fresh, app_url)
        go_to_inspect(fresh)
        open_tab(fresh, "Session")
        sidebar = fresh.get_by_test_id("stSidebar")
        expect(sidebar).to_contain_text("Nothing trained yet")

        # a broken file first: refused, nothing changes
        broken = tmp_path / "broken.json"
        broken.write_bytes(saved.read_bytes()[:500])
        load_session_file(fresh, broken)
        expect(fresh.get_by_test_id("stAlertContentError")).to_contain_text("Your current session is unchanged")
        expect(sidebar).to_contain_text("Nothing trained yet")

        load_session_file(fresh, saved)
        expect(fresh.get_by_test_id("stAlertContentSuccess")).to_contain_text("Loaded the session")
        expect(sidebar).to_contain_text("BPE: 3 merges, 13 tokens")
        expect(sidebar).to_contain_text("WordPiece: 4 merges")
        snap(fresh, screenshot_dir / "inspect-session-loaded.png")
    finally:
        context.close()


def test_user_text_stays_text(page, screenshot_dir):
    alerts = page.dialogs   # conftest's tab records them
    go_to_inspect(page)
    enter(page, page.get_by_role("textbox", name="Text"), f"Hello {PAYLOAD} <script>alert(1)</script> world",
          "Control+Enter")
    expect(main(page)).to_contain_text("onerror")          # shown, as text
    assert page.locator('img[src="x"]').count() == 0
    assert page.locator("[data-testid=stMain] script").count() == 0
    frames(page)   # an onerror would fire right after insertion
    assert not alerts
    snap(page, screenshot_dir / "inspect-escaped.png")
