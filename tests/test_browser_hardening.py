"""Hostile input in Chromium: what a browser really does with it. Payloads go into every input
(corpus file name and table words, special tokens, compare text, inspect text and pair, an imported
tokenizer's file name and token strings, link parameters); no dialog opens, no element is
injected, and the text shows as typed. Also: an upload over the size limit, vocabulary sizes out
of range, bad links on every page, and a big corpus training with progress while another session
stays usable.

The same inputs are audited element by element headless in test_hardening_app.py; here the point
is the browser (React's Markdown, unsafe_allow_html, st.html, the uploader's own checks).
"""
from __future__ import annotations

import csv
import io
import re
import time
from pathlib import Path
from urllib.parse import quote

import sys

import pytest
from playwright.sync_api import expect

sys.path.insert(0, str(Path(__file__).resolve().parent))
from reference import kjv_text  # noqa: E402

pytestmark = pytest.mark.browser

SLOW = 120_000   # two cores shared with other test runs
PAYLOADS = ['<img src=x onerror=alert(1)>', '<script>alert(1)</script>', '<svg onload=alert(1)>',
            '<iframe srcdoc="<script>alert(1)</script>">', '[click](javascript:alert(1))', '"><b>x</b>',
            "&lt;b&gt;", "**bold**"]
PAYLOAD = " ".join(PAYLOADS)
# A browser file name cannot hold "/" (and Chromium turns '"' into %22): the rest of the payloads
FILE_NAME = "<img src=x onerror=alert(1)> **bold** &lt;b&gt; [click](javascript:alert(1)) :red[x]"

# Everything an injection would leave behind, counted over the whole document.
INJECTED = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  const all = [...app.querySelectorAll('*')];
  return {
    on_attributes: all.filter(e => [...e.attributes].some(a => a.name.toLowerCase().startsWith('on'))).length,
    img_x: document.querySelectorAll('img[src="x"]').length,
    iframe_srcdoc: document.querySelectorAll('iframe[srcdoc]').length,
    alert_scripts: [...document.querySelectorAll('script')].filter(s => s.textContent.includes('alert(')).length,
    js_links: [...document.querySelectorAll('a[href]')].filter(a => a.getAttribute('href').trim().toLowerCase()
                                                               .startsWith('javascript')).length,
    b_x: all.filter(e => e.tagName === 'B' && e.textContent === 'x').length,
    strong_bold: all.filter(e => e.tagName === 'STRONG' && e.textContent === 'bold').length,
  };
}"""
CLEAN = {"on_attributes": 0, "img_x": 0, "iframe_srcdoc": 0, "alert_scripts": 0, "js_links": 0, "b_x": 0,
         "strong_bold": 0}


@pytest.fixture
def tab(browser, app_url):
    """A fresh session; `tab.open(path)` loads the app at a path, `tab.dialogs` lists any dialog."""
    context = browser.new_context(viewport={"width": 1600, "height": 1000}, color_scheme="light")
    page = context.new_page()
    page.set_default_timeout(SLOW)
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.dialogs = dialogs

    def open_(path: str = "") -> None:
        page.goto(app_url + path, timeout=SLOW)
        page.get_by_test_id("stMain").locator("h1").first.wait_for(timeout=SLOW)
        settle(page)
    page.open = open_
    try:
        yield page
    finally:
        context.close()


def settle(page) -> None:
    page.wait_for_timeout(300)
    page.locator('[data-testid="stApp"][data-test-script-state="notRunning"]').wait_for(timeout=SLOW)


def go_to(page, title: str) -> None:
    page.get_by_test_id("stSidebarNav").get_by_role("link", name=title).click()
    page.get_by_role("heading", name=title, exact=True).first.wait_for(timeout=SLOW)
    settle(page)


def main(page):
    return page.get_by_test_id("stMain")


def assert_clean(page, where: str) -> None:
    page.wait_for_timeout(200)   # an onerror/onload fires right after insertion
    assert page.evaluate(INJECTED) == CLEAN, where
    assert page.dialogs == [], where
    expect(page.get_by_test_id("stException")).to_have_count(0)


def load_preset(page, name: str) -> None:
    page.get_by_role("combobox", name="Preset").click()
    page.get_by_role("option", name=re.compile("^" + re.escape(name))).first.click()
    settle(page)
    page.get_by_role("button", name="Load preset").click()
    page.get_by_text(f"Current corpus: {name}").wait_for(timeout=SLOW)
    settle(page)


def train(page) -> None:
    page.get_by_role("button", name="Train all three").click()
    page.get_by_text("Trained all three").wait_for(timeout=SLOW)
    settle(page)


def upload(page, files, uploader: int = 0) -> None:
    """Choose files in an uploader and wait until the server has them (the name shows before the
    file is sent). `files`: a path, or {"name", "mimeType", "buffer"}."""
    box = page.get_by_test_id("stFileUploader").nth(uploader)
    with page.expect_response(lambda r: "/_stcore/upload_file/" in r.url and r.request.method == "PUT",
                              timeout=SLOW) as sent:
        box.locator('input[type="file"]').set_input_files(files)
    assert sent.value.ok, sent.value.status
    settle(page)


def payload_tokenizer_json() -> bytes:
    from tokenizers import Tokenizer, models, pre_tokenizers
    vocab = {"[UNK]": 0, **{p: i + 1 for i, p in enumerate(PAYLOADS)}}
    hf = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    hf.pre_tokenizer = pre_tokenizers.Split(" ", "removed")
    return hf.to_str().encode()


def test_payloads_in_every_input_stay_text(tab):
    tab.open()
    # the corpus: a word-count table of payloads, under a payload file name
    rows = io.StringIO()
    csv.writer(rows).writerows([("word", "count")] + [(p, 3 + i) for i, p in enumerate(PAYLOADS)])
    tab.get_by_role("tab", name="Upload").click()
    upload(tab, {"name": FILE_NAME + ".csv", "mimeType": "text/csv", "buffer": rows.getvalue().encode()})
    tab.get_by_role("button", name="Use this file").click()
    settle(tab)
    expect(tab.get_by_test_id("stAlertContentSuccess")).to_contain_text(f"Using {FILE_NAME}.csv (8 words")
    expect(main(tab).locator("h3").first).to_have_text(f"Current corpus: {FILE_NAME}.csv")
    expect(tab.get_by_test_id("stSidebar")).to_contain_text(f"{FILE_NAME}.csv")
    assert_clean(tab, "corpus page, after the upload")

    # a special token that is a payload, then train
    tab.get_by_text("More options").first.click()
    box = tab.get_by_role("textbox", name="Special tokens").first
    box.fill(PAYLOADS[1])
    box.press("Enter")
    settle(tab)
    train(tab)
    assert_clean(tab, "corpus page, trained")

    go_to(tab, "Merges")
    expect(tab.locator(".mg-sentence").first).to_be_visible()
    tab.get_by_role("button", name="Next").click()
    settle(tab)
    expect(main(tab)).to_contain_text("onerror=alert(1)")     # the table's words, as text
    assert_clean(tab, "merges page")

    go_to(tab, "Compare")
    text = tab.get_by_role("textbox", name="Text", exact=True)
    text.fill(PAYLOAD)
    text.press("Control+Enter")
    settle(tab)
    expect(tab.locator(".tp-tokens").first).to_contain_text(PAYLOADS[3])
    for name in ("Boundaries", "Encoder differences"):
        tab.get_by_role("tab", name=name).click()
        settle(tab)
        assert_clean(tab, f"compare page, {name}")

    go_to(tab, "Inspect")
    tab.get_by_role("textbox", name="Text", exact=True).fill(PAYLOAD)
    tab.get_by_role("textbox", name="Text", exact=True).press("Control+Enter")
    settle(tab)
    pair = tab.get_by_role("textbox", name="Second sentence (optional)")
    pair.fill(PAYLOADS[3])
    pair.press("Enter")
    settle(tab)
    expect(main(tab)).to_contain_text(PAYLOADS[1])
    assert_clean(tab, "inspect pipeline")
    tab.get_by_role("tab", name="Export & import").click()
    settle(tab)
    upload(tab, {"name": "<svg onload=alert(1)> **bold**.json", "mimeType": "application/json",
                 "buffer": payload_tokenizer_json()})
    tab.get_by_role("button", name="Import").click()
    settle(tab)
    expect(tab.get_by_test_id("stAlertContentSuccess")).to_contain_text("Imported “<svg onload=alert(1)> **bold**”")
    for name in ("Pipeline", "Vocabulary"):
        tab.get_by_role("tab", name=name).click()
        settle(tab)
        assert_clean(tab, f"inspect {name} with the imported tokenizer")
    expect(main(tab)).to_contain_text(PAYLOADS[4])

    # link parameters (each a new session)
    tab.open("/merges?" + "&".join(f"{k}={quote(v)}" for k, v in
                                   (("preset", PAYLOADS[0]), ("token", PAYLOADS[1]), ("speed", PAYLOADS[4]))))
    expect(main(tab)).to_contain_text(f"Ignored preset='{PAYLOADS[0]}': no such preset.")
    assert_clean(tab, "merges link")
    tab.open(f"/compare?{quote(PAYLOADS[2])}=1")
    expect(tab.get_by_test_id("stToast")).to_contain_text(f"Ignored the link parameter {PAYLOADS[2]}")
    assert_clean(tab, "compare link")


@pytest.mark.parametrize("path", ["", "/merges", "/compare", "/inspect"])
def test_bad_links_on_every_page(tab, path):
    tab.open(path + "?model=zzz&step=-5&step=abc")
    if path == "/merges":
        expect(main(tab)).to_contain_text("Ignored unknown link parameter 'model'.")
        expect(main(tab)).to_contain_text("Ignored step='abc': a step is a whole number.")
    else:
        # (the Compare page reads its own parameters, and says which)
        expect(tab.get_by_test_id("stToast")).to_contain_text("Ignored the link parameters model, step:")
        expect(tab).to_have_url(re.compile(r"/" + path.strip("/") + r"$"))
    assert_clean(tab, path)


def test_upload_over_the_limit_and_vocabulary_sizes_out_of_range(tab, tmp_path):
    config = (Path(__file__).resolve().parents[1] / ".streamlit" / "config.toml").read_text()
    limit = int(re.search(r"^maxUploadSize = (\d+)$", config, re.M).group(1))
    tab.open()
    load_preset(tab, "Seed 000")
    train(tab)
    sidebar = tab.get_by_test_id("stSidebar")
    expect(sidebar).to_contain_text("BPE: 5 merges, 17 tokens")

    big = tmp_path / "big.txt"
    with open(big, "wb") as f:   # sparse: nothing written, the browser only looks at the size
        f.truncate((limit + 1) * 1024 * 1024)
    tab.get_by_role("tab", name="Upload").click()
    uploader = tab.get_by_test_id("stFileUploader")
    uploader.locator('input[type="file"]').set_input_files(str(big))
    expect(uploader).to_contain_text(f"File must be {limit:.1f}MB or smaller.")
    settle(tab)
    tab.get_by_role("button", name="Use this file").click()
    settle(tab)
    expect(tab.get_by_test_id("stAlertContentError")).to_contain_text(f"Choose a file first (at most {limit} MB)")
    expect(main(tab)).to_contain_text("Current corpus: Seed 000")

    vocab = tab.get_by_role("spinbutton", name="Vocabulary size").first
    for typed in ("0", "-5", "1000000000"):
        vocab.fill(typed)
        vocab.press("Enter")
        settle(tab)
        expect(tab.get_by_test_id("stNumberInput").first).to_contain_text(
            "Please enter a value between 1 and 1000000.")
    train(tab)
    expect(sidebar).to_contain_text("BPE: 5 merges, 17 tokens")   # the refused values never applied
    assert_clean(tab, "corpus page")


def test_a_big_corpus_shows_progress_and_another_session_stays_usable(tab, browser, app_url, tmp_path):
    """Training 1 MB of the KJV: progress shows while it trains, and a second session loads and
    answers meanwhile (the 50 MB case, with the server's memory, is bench/memory.py)."""
    book = tmp_path / "kjv.txt"
    book.write_text(kjv_text()[:1_000_000], encoding="utf-8")
    tab.open()
    tab.get_by_role("tab", name="Upload").click()
    upload(tab, str(book))
    tab.get_by_role("button", name="Use this file").click()
    tab.get_by_text("Current corpus: kjv.txt").wait_for(timeout=SLOW)
    settle(tab)
    for i in range(3):
        field = tab.get_by_role("spinbutton", name="Vocabulary size").nth(i)
        field.fill("1500")
        field.press("Enter")
        settle(tab)
    # every progress text ever drawn, however briefly
    tab.evaluate("""() => { window.progressSeen = [];
        new MutationObserver(() => document.querySelectorAll('[data-testid="stProgress"]')
            .forEach(e => window.progressSeen.push(e.innerText)))
          .observe(document.body, {childList: true, subtree: true, characterData: true}); }""")
    tab.get_by_role("button", name="Train all three").click()
    expect(tab.get_by_text("Training BPE, byte-level BPE and WordPiece…")).to_be_visible(timeout=SLOW)

    other = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        second = other.new_page()
        start = time.monotonic()
        second.goto(app_url, timeout=SLOW)
        second.get_by_role("heading", name="Corpus").first.wait_for(timeout=SLOW)
        loaded = time.monotonic() - start
        second.get_by_role("tab", name="Paste").click()
        second.get_by_role("textbox", name="Text", exact=True).fill("low lower lowest")
        second.get_by_role("button", name="Use this text").click()
        expect(second.get_by_test_id("stAlertContentSuccess")).to_contain_text("Using the pasted text",
                                                                              timeout=SLOW)
        answered = time.monotonic() - start
    finally:
        other.close()
    tab.get_by_text("Trained all three").wait_for(timeout=4 * SLOW)
    settle(tab)
    seen = tab.evaluate("window.progressSeen")
    assert any(re.search(r"Training (BPE|Byte-level BPE|WordPiece): [\d,]+ of [\d,]+ merges", t) for t in seen), seen[:5]
    expect(tab.get_by_test_id("stSidebar")).to_contain_text(re.compile(r"BPE: [\d,]+ merges"))
    assert loaded < 60 and answered < 90, (loaded, answered)
    print(f"second session while training: page {loaded:.1f} s, answered {answered:.1f} s")
    assert_clean(tab, "big corpus")
