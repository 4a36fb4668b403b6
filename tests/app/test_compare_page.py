"""The Compare page headless (AppTest): it runs with and without trained results, its widgets are
found by key, the ids it shows are the tokenizers' own, a tokenizer that cannot encode the text
gets a message in its own panel, and user text never becomes markup. Pixels: test_browser_compare.py."""
import html
import re

import pytest
from streamlit.testing.v1 import AppTest

from core.encoders import TrainedTokenizer
from core.errors import EncodeError
from core.pretrained import load_pretrained, pretrained_names
from core.trainer import MODEL_LABELS
from playground import compare, state, style
from tests.app.conftest import new_app, trained_app
from tests.support import HTML_PAYLOAD, HTMLTags

PAGE = "pages/compare.py"
WIDGETS = ("compare_text", "compare_sample", "compare_tokenizers", "compare_view", "compare_layout",
           "compare_whitespace", "compare_grouped")


def compare_page(trained_preset: str | None = None) -> AppTest:
    at = trained_app(trained_preset) if trained_preset else new_app()
    at.switch_page(PAGE).run()
    assert not at.exception
    return at


def panels(at: AppTest) -> dict[str, str]:
    """data-tokenizer -> the panel's HTML, in page order."""
    out = {}
    for h in at.html:
        m = re.search(r'<div class="tp-panel" data-tokenizer="([^"]*)"', h.proto.body)
        if m:
            out[html.unescape(m.group(1))] = h.proto.body
    return out


def shown_ids(panel: str) -> list[int]:
    return [int(i) for s in re.findall(r'class="tp-t[^"]*"[^>]*>([^<]*)</span>', panel) for i in s.split()]


def token_count(panel: str) -> int:
    return int(re.search(r'class="tp-stat tp-count"><b>([\d,]+)</b>', panel).group(1).replace(",", ""))


def test_without_results_only_pretrained_tokenizers():
    at = compare_page()
    for key in WIDGETS:
        assert at.session_state[key] is not None
    assert at.text_area(key="compare_text").value == compare.SAMPLES[compare.DEFAULT_SAMPLE]
    assert any("Nothing trained yet" in i.value for i in at.info)
    selected = at.multiselect(key="compare_tokenizers").value
    assert selected == ["pretrained:gpt2", "pretrained:cl100k_base", "pretrained:o200k_base",
                        "pretrained:bert-base-uncased"]
    assert all("·" not in o for o in at.multiselect(key="compare_tokenizers").options)   # no trained ones
    assert list(panels(at)) == selected
    # the encoder-difference tab needs a trained vocabulary and says so
    at.session_state["compare_tab"] = "Encoder differences"
    at.run()
    assert not at.exception and any("Train on the Corpus page first" in i.value for i in at.info)


@pytest.mark.parametrize("sample", list(compare.SAMPLES))
def test_ids_shown_equal_each_pretrained_tokenizers_own(sample):
    at = compare_page()
    at.selectbox(key="compare_sample").set_value(sample).run()
    text = compare.SAMPLES[sample]
    assert at.text_area(key="compare_text").value == text
    at.segmented_control(key="compare_view").set_value("Ids").run()
    names = pretrained_names()
    for start in range(0, len(names), compare.MAX_TOKENIZERS):   # at most MAX_TOKENIZERS panels at once
        group = names[start:start + compare.MAX_TOKENIZERS]
        at.multiselect(key="compare_tokenizers").set_value([f"pretrained:{n}" for n in group]).run()
        assert not at.exception
        shown = panels(at)
        assert len(shown) == len(group)
        for name in group:
            expected = list(load_pretrained(name).encode(text).ids)
            panel = shown[f"pretrained:{name}"]
            assert shown_ids(panel) == expected, name
            assert token_count(panel) == len(expected)


def test_with_results_the_default_adds_trained_byte_level_bpe_and_ids_match():
    at = compare_page("english")
    results = state.get_results(at.session_state)
    selected = at.multiselect(key="compare_tokenizers").value
    assert selected == ["trained:bbpe:merges", "pretrained:gpt2", "pretrained:o200k_base",
                        "pretrained:bert-base-uncased"]
    assert any("Trained on: Sample" in c.value for c in at.caption)
    options = at.multiselect(key="compare_tokenizers").options
    for model in ("bpe", "bbpe", "wordpiece"):
        for encoder in ("merges", "greedy", "longest-match"):
            assert f"{MODEL_LABELS[model]} · {compare.ENCODER_LABELS[encoder]}" in options
    text = compare.SAMPLES["English"]
    at.selectbox(key="compare_sample").set_value("English").run()
    chosen = ["trained:bpe:merges", "trained:bbpe:merges", "trained:bbpe:longest-match",
              "trained:wordpiece:longest-match", "trained:wordpiece:greedy", "pretrained:gpt2", "pretrained:qwen2.5"]
    at.multiselect(key="compare_tokenizers").set_value(chosen).run()
    at.segmented_control(key="compare_view").set_value("Ids").run()
    assert not at.exception
    shown = panels(at)
    assert list(shown) == chosen
    refused = 0
    for key in chosen[:5]:
        _, model, encoder = key.split(":")
        try:
            reference = TrainedTokenizer.from_trace(results.trace(model)).encode(text, encoder)
        except EncodeError:   # e.g. a capital the English sample never trained on
            refused += 1
            assert "tp-tokens" not in shown[key], key
            continue
        assert shown_ids(shown[key]) == list(reference.ids), key
    assert refused < 5 and len(at.error) == refused
    # the selection is the user's now: it survives a trip to another page, as does the text
    at.switch_page("pages/corpus.py").run()
    at.switch_page(PAGE).run()
    assert at.multiselect(key="compare_tokenizers").value == chosen
    assert at.text_area(key="compare_text").value == text
    assert at.segmented_control(key="compare_view").value == "Ids"


def test_a_tokenizer_that_cannot_encode_gets_its_own_message():
    at = compare_page("english")
    # greedy covers only pieces of the training segmentation: Chinese was never seen
    at.multiselect(key="compare_tokenizers").set_value(
        ["trained:bbpe:greedy", "trained:bbpe:merges", "pretrained:gpt2"]).run()
    assert not at.exception
    assert len(at.error) == 1 and "Cannot encode this text" in at.error[0].value
    assert "not in the vocabulary" in at.error[0].value
    shown = panels(at)
    assert list(shown) == ["trained:bbpe:greedy", "trained:bbpe:merges", "pretrained:gpt2"]
    assert "tp-tokens" not in shown["trained:bbpe:greedy"]            # header only
    assert token_count(shown["pretrained:gpt2"]) > 0                  # the others still render
    # boundaries are offered only between tokenizers that could encode
    at.session_state["compare_tab"] = "Boundaries"
    at.run()
    assert not at.exception
    assert at.selectbox(key="compare_bound_a").options == ["Byte-level BPE · merges", "GPT-2"]


def test_boundaries_tab_shows_the_shared_share():
    at = compare_page()
    at.session_state["compare_tab"] = "Boundaries"
    at.run()
    assert not at.exception
    assert at.selectbox(key="compare_bound_a").value == "pretrained:gpt2"
    assert at.selectbox(key="compare_bound_b").value == "pretrained:cl100k_base"
    at.selectbox(key="compare_bound_b").set_value("pretrained:gpt2").run()
    assert at.metric[0].value == "100%"                     # a tokenizer agrees with itself
    at.selectbox(key="compare_bound_b").set_value("pretrained:bert-base-uncased").run()
    share = int(at.metric[0].value.rstrip("%"))
    assert 0 <= share < 100
    drawn = [h.proto.body for h in at.html if h.proto.body != style.page_html()   # not the app's stylesheet
             and not h.proto.body.startswith('<table class="tp-info">')]          # nor the picker's table
    assert len(drawn) == 1 and "tp-bound" in drawn[0]


def test_encoder_differences_tab_lists_words():
    at = compare_page("english")
    at.selectbox(key="compare_sample").set_value("English").run()
    at.session_state["compare_tab"] = "Encoder differences"
    at.run()
    assert not at.exception
    assert at.selectbox(key="compare_diff_vocab").value == "trained:bbpe"
    for vocab in ("trained:bpe", "trained:bbpe", "trained:wordpiece"):
        at.selectbox(key="compare_diff_vocab").set_value(vocab).run()
        assert not at.exception
        assert at.metric[0].label == "Distinct words"
        assert int(at.metric[0].value.replace(",", "")) > 20
    tables = [h.proto.body for h in at.html if "tp-diff" in h.proto.body and h.proto.body != style.page_html()]
    assert len(tables) == 1 and tables[0].count("<tr>") > 1


def _assert_no_markup_from_the_user(at: AppTest) -> None:
    for h in at.html:
        parser = HTMLTags.of(re.sub(r"<style>.*?</style>", "", h.proto.body, flags=re.S))
        tags, attrs = set(parser.tags), {name for name, _ in parser.attrs}
        assert tags <= {"div", "span", "b", "table", "thead", "tbody", "tr", "th", "td"}, tags
        assert attrs <= {"class", "style", "title", "data-tokenizer", "data-card"}, attrs
        assert "<b>x</b>" not in h.proto.body


def test_payloads_never_become_markup_on_any_path():
    at = compare_page("english")
    at.text_area(key="compare_text").input(HTML_PAYLOAD).run()
    at.multiselect(key="compare_tokenizers").set_value(
        ["trained:bpe:merges", "trained:bbpe:merges", "trained:wordpiece:longest-match", "pretrained:gpt2",
         "pretrained:bert-base-uncased"]).run()
    for view in ("Tokens", "Ids"):
        for whitespace in (False, True):
            for grouped in (False, True):
                at.segmented_control(key="compare_view").set_value(view)
                at.toggle(key="compare_whitespace").set_value(whitespace)
                at.toggle(key="compare_grouped").set_value(grouped)
                at.run()
                assert not at.exception
                assert sum("tp-tokens" in p for p in panels(at).values()) == 5 - len(at.error)
                _assert_no_markup_from_the_user(at)
    at.toggle(key="compare_chunks").set_value(True).run()     # the pre-tokenizer's chunks of the payload
    assert sum("tp-chunks" in p for p in panels(at).values()) == 5 - len(at.error)
    _assert_no_markup_from_the_user(at)
    for tab in ("Boundaries", "Encoder differences", "Chat"):
        at.session_state["compare_tab"] = tab
        at.run()
        assert not at.exception
        assert at.html
        _assert_no_markup_from_the_user(at)
    at.text_area(key="compare_chat_user").input(HTML_PAYLOAD)
    at.multiselect(key="compare_tokenizers").set_value(["pretrained:qwen2.5", "pretrained:o200k_harmony"]).run()
    assert sum('<div class="tp-plain tp-chat-string">' in h.proto.body for h in at.html) == 2
    _assert_no_markup_from_the_user(at)


def test_stacked_layout_and_an_empty_selection():
    at = compare_page()
    at.segmented_control(key="compare_layout").set_value("Stacked").run()
    assert not at.exception and len(panels(at)) == 4
    at.multiselect(key="compare_tokenizers").set_value([]).run()
    assert not at.exception and not panels(at)
    assert any(f"Choose up to {compare.MAX_TOKENIZERS}" in i.value for i in at.info)
    # an edited selection is kept, even when empty
    at.run()
    assert at.multiselect(key="compare_tokenizers").value == []
    at.text_area(key="compare_text").input("").run()
    assert not at.exception
