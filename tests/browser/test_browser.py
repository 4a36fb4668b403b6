"""The running app in Chromium: every page renders, a preset loads and trains, an upload works.

Screenshots land in tests/screenshots/ (look at them: a blank or broken page is a failure that
these assertions may not catch). One Streamlit server serves the whole session (conftest.py, which also holds the helpers).
"""
import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import go_to, idle, main, pick, rerun, snap, train, upload

pytestmark = pytest.mark.browser


def test_preset_train_and_every_page(page, screenshot_dir):
    pick(page, "Preset", "Seed 000 · highest higher lower… (BPE with </w>)")
    with rerun(page):
        page.get_by_role("button", name="Load preset").click()
    expect(main(page)).to_contain_text("Current corpus: Seed 000")
    # statistics of "highest higher lower lowest cooler coolest"
    expect(page.get_by_test_id("stMetricValue")).to_have_text(["42", "42", "6", "6", "11"])
    snap(page, screenshot_dir / "corpus-loaded.png")

    train(page)
    sidebar = page.get_by_test_id("stSidebar")
    sidebar.get_by_text(re.compile(r"BPE: 5 merges, 17 tokens")).first.wait_for()
    expect(main(page)).to_contain_text("Trained tokenizers")   # the table is a canvas: see the screenshot
    snap(page, screenshot_dir / "corpus-trained.png")
    page.get_by_text("Current corpus: Seed 000").scroll_into_view_if_needed()
    snap(page, screenshot_dir / "corpus-overview.png", whole=False)   # the README's screenshot

    for title in ("Merges", "Compare", "Inspect"):
        go_to(page, title)
        expect(main(page)).to_contain_text("Trained on: Seed 000")
        expect(main(page)).not_to_contain_text("Nothing trained yet")
        # each page's own browser test (test_browser_<page>.py) checks what it draws
        snap(page, screenshot_dir / f"{title.lower()}.png")

    go_to(page, "Corpus")
    # the trainer settings survived the trip through the other pages
    expect(page.get_by_test_id("stNumberInputField").first).to_have_value("17")
    expect(main(page)).to_contain_text("Current corpus: Seed 000")


def test_upload_word_count_table(page, screenshot_dir, tmp_path):
    table = tmp_path / "seed004.csv"
    table.write_text("word,count\r\nlow,5\r\nlower,2\r\nnewest,6\r\nwidest,3\r\n", encoding="utf-8")
    page.get_by_role("tab", name="Upload").click()
    upload(page, str(table))
    page.get_by_text("seed004.csv").first.wait_for()
    with rerun(page):
        page.get_by_role("button", name="Use this file").click()
    page.get_by_text("Current corpus: seed004.csv").wait_for()
    # 79 characters, 79 bytes, 16 words in all, 4 unique, alphabet of 10
    expect(page.get_by_test_id("stMetricValue")).to_have_text(["79", "79", "16", "4", "10"])
    snap(page, screenshot_dir / "corpus-upload.png")


def test_empty_paste_shows_an_error(page, screenshot_dir):
    page.get_by_role("tab", name="Paste").click()
    # the tab shown and the page idle before the click: a clean-clone run's click, sent at once,
    # started no run (120 s without one)
    use = page.get_by_role("button", name="Use this text")
    expect(use).to_be_visible()
    idle(page)
    with rerun(page):
        use.click()
    expect(page.get_by_test_id("stAlertContentError")).to_contain_text("empty")
    expect(main(page)).to_contain_text("No corpus yet")
    # the message did not reset the tabs: the Paste tab is still the one shown
    expect(page.get_by_role("button", name="Use this text")).to_be_visible()
    snap(page, screenshot_dir / "corpus-empty-paste.png")
