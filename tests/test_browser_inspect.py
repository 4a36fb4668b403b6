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
from core.trainer import train

pytestmark = pytest.mark.browser

PAYLOAD = "<img src=x onerror=alert(1)>"
SLOW = 90_000   # two cores shared with other test runs


@pytest.fixture
def page(browser, app_url):
    """A fresh tab (a fresh Streamlit session), like conftest's `page` but patient: the first load
    of a page can take long while other test runs share the two cores."""
    context = browser.new_context(viewport={"width": 1600, "height": 1000}, color_scheme="light")
    tab = context.new_page()
    tab.set_default_timeout(SLOW)
    try:
        open_app(tab, app_url)
        yield tab
    finally:
        context.close()


def open_app(tab, app_url) -> None:
    tab.goto(app_url, timeout=SLOW)
    tab.get_by_role("heading", name="Corpus").first.wait_for(timeout=SLOW)
    settle(tab)


def settle(page) -> None:
    page.wait_for_timeout(300)
    page.locator('[data-testid="stApp"][data-test-script-state="notRunning"]').wait_for(timeout=SLOW)


def snap(page, path) -> None:
    """The whole page: grow the window to the main block's height first (Streamlit scrolls inside it)."""
    page.mouse.move(5, 995)
    size = page.viewport_size
    height = page.evaluate("document.querySelector('[data-testid=stMainBlockContainer]').scrollHeight")
    page.set_viewport_size({"width": size["width"], "height": max(size["height"], min(height + 150, 8000))})
    page.wait_for_timeout(600)
    page.screenshot(path=path)
    page.set_viewport_size(size)


def pick(page, label: str, option: str) -> None:
    page.get_by_role("combobox", name=label).click()
    page.get_by_role("option", name=option, exact=True).first.click()
    settle(page)


def main(page):
    return page.get_by_test_id("stMain")


def train_seed_004(page) -> None:
    page.get_by_role("combobox", name="Preset").click()
    page.get_by_role("option", name=re.compile(r"^Seed 004")).first.click()
    settle(page)
    page.get_by_role("button", name="Load preset").click()
    page.get_by_text("Current corpus: Seed 004").wait_for(timeout=SLOW)
    settle(page)
    page.get_by_role("button", name="Train all three").click()
    page.get_by_text("Trained all three").wait_for(timeout=SLOW)
    settle(page)


def go_to_inspect(page) -> None:
    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Inspect").click()
    page.get_by_role("heading", name="Inspect", exact=True).first.wait_for(timeout=SLOW)
    settle(page)


def open_tab(page, name: str) -> None:
    page.get_by_role("tab", name=name).click()
    settle(page)


def seed_004_tokenizer(model: str) -> TrainedTokenizer:
    preset = get_preset("seed-004")
    config = preset.configs()[model].resolved()
    return TrainedTokenizer.from_trace(train(words_for(preset, config), config))


def test_inspect_pipeline_walk_vocabulary_export(page, screenshot_dir, tmp_path):
    alerts = []
    page.on("dialog", lambda d: (alerts.append(d.message), d.dismiss()))
    train_seed_004(page)
    go_to_inspect(page)

    # the pipeline, four stages, for the trained byte-level BPE
    for stage in ("1 · Normalization", "2 · Pre-tokenization", "3 · Model", "4 · Post-processing"):
        expect(main(page)).to_contain_text(stage)
    expect(page.locator(".tp-tokens .tp-t").first).to_be_visible()
    snap(page, screenshot_dir / "inspect-pipeline.png")

    # BERT (pretrained) with seed 004's sentence pair: [CLS] … [SEP] … [SEP], type ids 0 then 1
    pick(page, "Tokenizer", "BERT base uncased")
    page.get_by_role("button", name="Seed 004's sentence pair").click()
    settle(page)
    expect(main(page)).to_contain_text("TemplateProcessing")
    expect(page.locator(".tp-tokens .tp-t", has_text="[CLS]")).to_have_count(1)
    expect(page.locator(".tp-tokens .tp-t", has_text="[SEP]")).to_have_count(2)
    snap(page, screenshot_dir / "inspect-pipeline-bert-pair.png")

    # walk a word with the trained BPE
    pick(page, "Tokenizer", "BPE (trained)")
    open_tab(page, "Walk a word")
    box = page.get_by_role("textbox", name="…or type a word")
    box.fill("newest")
    box.press("Enter")
    settle(page)
    code = page.get_by_test_id("stCode")
    expect(code.first).to_contain_text("Merge 1 ('e', 's') -> es: [n, e, w, es, t]")
    expect(code.first).to_contain_text("Result: [n, e, w, est]")
    expect(code).to_have_count(3)
    snap(page, screenshot_dir / "inspect-walk.png")

    # the vocabulary: search, select a row, and its merge tree
    open_tab(page, "Vocabulary")
    expect(main(page)).to_contain_text("13 of 13 tokens")
    search = page.get_by_role("textbox", name="Search tokens")
    search.fill("lo")
    search.press("Enter")
    settle(page)
    expect(main(page)).to_contain_text("1 of 13 tokens")
    table = page.get_by_test_id("stDataFrame")
    table.hover()
    box = table.bounding_box()
    page.mouse.click(box["x"] + 14, box["y"] + 35 + 17)     # the first row's selection box (a canvas)
    settle(page)
    expect(main(page)).to_contain_text("Merge tree of lo")
    graph = page.get_by_test_id("stGraphVizChart").locator("svg")
    expect(graph).to_contain_text("step 3", timeout=SLOW)
    search.fill("")
    search.press("Enter")
    settle(page)
    tree = page.get_by_role("textbox", name="Merge tree of")
    tree.fill("est")
    tree.press("Enter")
    settle(page)
    expect(graph).to_be_visible(timeout=SLOW)
    expect(graph).to_contain_text("est")
    expect(graph).to_contain_text("step 2")
    snap(page, screenshot_dir / "inspect-vocabulary.png")

    # export: tokenizer.json loads in tokenizers and encodes to our ids; the trace as CSV
    open_tab(page, "Export & import")
    with page.expect_download(timeout=SLOW) as dl:
        page.get_by_role("button", name="tokenizer.json").click()
    path = tmp_path / "tokenizer.json"
    dl.value.save_as(path)
    from tokenizers import Tokenizer
    hf = Tokenizer.from_file(str(path))
    ours = seed_004_tokenizer("bpe")
    for text in ("lowest newest widest", "low lower newer"):
        assert hf.encode(text, add_special_tokens=False).ids == list(ours.encode(text).ids)
    with page.expect_download(timeout=SLOW) as dl:
        page.get_by_role("button", name=re.compile("trace.csv")).click()
    rows = list(csv.DictReader(io.StringIO(open(dl.value.path(), encoding="utf-8").read())))
    assert [r["token"] for r in rows] == ["es", "est", "lo"]
    snap(page, screenshot_dir / "inspect-export.png")
    assert not alerts


def test_session_saved_and_loaded_into_a_fresh_session(page, browser, app_url, screenshot_dir, tmp_path):
    train_seed_004(page)
    go_to_inspect(page)
    open_tab(page, "Session")
    with page.expect_download(timeout=SLOW) as dl:
        page.get_by_role("button", name="Save session").click()
    saved = tmp_path / "session.json"
    dl.value.save_as(saved)
    assert saved.stat().st_size > 1000
    snap(page, screenshot_dir / "inspect-session.png")

    context = browser.new_context(viewport={"width": 1600, "height": 1000}, color_scheme="light")
    fresh = context.new_page()
    fresh.set_default_timeout(SLOW)
    try:
        open_app(fresh, app_url)
        go_to_inspect(fresh)
        open_tab(fresh, "Session")
        sidebar = fresh.get_by_test_id("stSidebar")
        expect(sidebar).to_contain_text("Nothing trained yet")

        # a broken file first: refused, nothing changes
        broken = tmp_path / "broken.json"
        broken.write_bytes(saved.read_bytes()[:500])
        uploader = fresh.locator('[data-testid="stFileUploader"] input[type="file"]')
        uploader.set_input_files(str(broken))
        fresh.get_by_text("broken.json").first.wait_for()
        settle(fresh)
        fresh.get_by_role("button", name="Load session").click()
        settle(fresh)
        expect(fresh.get_by_test_id("stAlertContentError")).to_contain_text("Your current session is unchanged")
        expect(sidebar).to_contain_text("Nothing trained yet")

        uploader.set_input_files(str(saved))
        fresh.get_by_text("session.json").first.wait_for()
        settle(fresh)
        fresh.get_by_role("button", name="Load session").click()
        settle(fresh)
        expect(fresh.get_by_test_id("stAlertContentSuccess")).to_contain_text("Loaded the session")
        expect(sidebar).to_contain_text("BPE: 3 merges, 13 tokens")
        expect(sidebar).to_contain_text("WordPiece: 4 merges")
        snap(fresh, screenshot_dir / "inspect-session-loaded.png")
    finally:
        context.close()


def test_user_text_stays_text(page, screenshot_dir):
    alerts = []
    page.on("dialog", lambda d: (alerts.append(d.message), d.dismiss()))
    go_to_inspect(page)
    area = page.get_by_role("textbox", name="Text")
    area.fill(f"Hello {PAYLOAD} <script>alert(1)</script> world")
    area.press("Control+Enter")
    settle(page)
    expect(main(page)).to_contain_text("onerror")          # shown, as text
    assert page.locator('img[src="x"]').count() == 0
    assert page.locator("[data-testid=stMain] script").count() == 0
    page.wait_for_timeout(500)
    assert not alerts
    snap(page, screenshot_dir / "inspect-escaped.png")
