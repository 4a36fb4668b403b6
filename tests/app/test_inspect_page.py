"""The Inspect page headless (AppTest): every tab runs with and without trained results, widgets
are found by key, imports and sessions go through the uploaders, a bad file changes nothing, and
user text never reaches the page's HTML unescaped. Pixels are the browser test's job."""
import re

import pytest
from streamlit.testing.v1 import AppTest

from core.encoders import TrainedTokenizer
from core.formats import HFTokenizer
from core.pretrained import pretrained_names
from core.trainer import MODELS
from playground import session_file as sf
from playground import state
from playground.inspect import export_files
from tests.app.conftest import INSPECT_TABS, new_app, trained_app
from tests.support import PAYLOADS

PAYLOAD = PAYLOADS[0]



def inspect(at: AppTest, tab: str = "Pipeline") -> AppTest:
    at.switch_page("pages/inspect.py")
    at.session_state["inspect_tab"] = tab
    at.run()
    assert not at.exception, at.exception
    return at


def open_tab(at: AppTest, tab: str) -> AppTest:
    at.session_state["inspect_tab"] = tab
    at.run()
    assert not at.exception, at.exception
    return at


def html_bodies(at: AppTest) -> list[str]:
    return [h.proto.body for h in at.get("html")]


def keys(widgets) -> set:
    return {w.key for w in widgets}


@pytest.mark.parametrize("tab", INSPECT_TABS)
def test_every_tab_runs_without_trained_results(tab):
    at = inspect(new_app(), tab)
    assert at.title[0].value == "Inspect"
    assert "inspect_tokenizer" in keys(at.selectbox) or not pretrained_names()
    assert at.text_area(key="inspect_text").value == "Hello how are U tday"
    if tab == "Session":
        assert at.button(key="inspect_load_session") is not None
        assert "nothing trained" in " ".join(c.value for c in at.caption)
    if tab == "Export & import":
        assert keys(at.file_uploader) == {"inspect_import_files"}


@pytest.mark.skipif("bert-base-uncased" not in pretrained_names(), reason="bert vocabulary not installed")
def test_pretrained_bert_pipeline_without_results_is_seed_004s():
    at = inspect(new_app())
    assert at.selectbox(key="inspect_tokenizer").value == "pretrained:bert-base-uncased"
    tables = [d.value for d in at.dataframe]
    post = tables[-1]   # tokens / input_ids / attention_mask / token_type_ids
    assert list(post.loc["input_ids"]) == ["101", "7592", "2129", "2024", "1057", "14595", "4710", "102"]
    at.button(key="inspect_seed_pair").click().run()
    post = at.dataframe[-1].value
    assert list(post.loc["token_type_ids"]) == ["0"] * 6 + ["1"] * 6
    assert post.loc["tokens"].tolist()[0] == "[CLS]"
    open_tab(at, "Walk a word")
    assert any("does not merge pairs" in i.value for i in at.info)   # WordPiece: no merges to replay


@pytest.mark.parametrize("tab", INSPECT_TABS)
def test_every_tab_runs_with_trained_results(tab):
    at = inspect(trained_app("seed-004"), tab)
    assert at.selectbox(key="inspect_tokenizer").value == "trained:bbpe"
    assert {"inspect_tokenizer", "inspect_encoder"} <= keys(at.selectbox)
    assert at.radio(key="inspect_at").value == "final"
    if tab == "Pipeline":
        assert len(at.dataframe) >= 3          # pieces, tokens, post-processing
    if tab == "Walk a word":
        assert len(at.code) == 3               # merges, greedy, longest-match
    if tab == "Vocabulary":
        assert at.dataframe[0].value.shape[0] == 259
    if tab == "Export & import":
        assert {"inspect_dl_tokenizer.json", "inspect_dl_vocab.json", "inspect_dl_merges.txt",
                "inspect_dl_trace_csv", "inspect_dl_trace_json"} <= keys(at.get("download_button"))


def test_walk_a_typed_word_through_every_encoder():
    at = open_tab(inspect(trained_app("seed-004")), "Walk a word")
    at.selectbox(key="inspect_tokenizer").set_value("trained:bpe").run()
    at.text_input(key="inspect_walk_word").input("newest").run()
    codes = [c.value for c in at.code]
    assert codes[0].splitlines()[:4] == ["merges on 'newest': symbols [n, e, w, e, s, t]", "Start: [n, e, w, e, s, t]",
                                         "Merge 1 ('e', 's') -> es: [n, e, w, es, t]",
                                         "Merge 2 ('es', 't') -> est: [n, e, w, est]"]
    assert codes[0].splitlines()[-1] == "Result: [n, e, w, est]"
    at.selectbox(key="inspect_tokenizer").set_value("trained:wordpiece").run()
    assert at.selectbox(key="inspect_encoder").value == "longest-match"   # the new tokenizer's default
    at.text_input(key="inspect_walk_word").input("local").run()
    lm = at.code[0].value
    assert "matched lo" in lm and "rest ##cal" in lm and "whole word becomes [UNK]" in lm


def test_vocabulary_search_partial_filter_and_merge_tree():
    at = open_tab(inspect(trained_app("seed-004")), "Vocabulary")
    at.text_input(key="inspect_vocab_query").input("es").run()
    tokens = set(at.dataframe[0].value["token"])
    assert {"es", "est"} <= tokens and all("es" in t.lower() or "es" in t for t in tokens)
    at.text_input(key="inspect_vocab_query").input("").run()
    at.checkbox(key="inspect_vocab_partial").check().run()
    partial = at.dataframe[0].value
    assert len(partial) == 128 and partial["partial UTF-8"].all()      # bytes 0x80-0xFF alone
    at.text_input(key="inspect_tree_token").input("est").run()
    assert any("Merge tree of" in m.value and "est" in m.value for m in at.markdown)
    assert not at.exception


def test_step_view_uses_the_merges_pages_step():
    at = trained_app("seed-004")
    state.set_step("bpe", 1, at.session_state)
    at = inspect(at)
    at.selectbox(key="inspect_tokenizer").set_value("trained:bpe").run()
    at.radio(key="inspect_at").set_value("step").run()
    open_tab(at, "Vocabulary")
    assert set(at.dataframe[0].value["token"]) >= {"es"} and "est" not in set(at.dataframe[0].value["token"])


def _upload(at, key, files):
    at.file_uploader(key=key).set_value(files)
    return at


def test_import_tokenizer_files_then_inspect_them():
    at = trained_app("seed-004")
    wp = TrainedTokenizer.from_trace(state.get_results(at.session_state).wordpiece)
    bb = TrainedTokenizer.from_trace(state.get_results(at.session_state).bbpe)
    files = export_files(bb)
    at = open_tab(inspect(at), "Export & import")
    _upload(at, "inspect_import_files", [("vocab.json", files["vocab.json"].encode(), "application/json"),
                                         ("merges.txt", files["merges.txt"].encode(), "text/plain")])
    at.button(key="inspect_import").click().run()
    assert not at.exception and at.success
    imported = state.get_imported(at.session_state)
    assert list(imported) == ["vocab"] and isinstance(imported["vocab"], HFTokenizer)
    assert at.selectbox(key="inspect_tokenizer").value == "imported:vocab"
    _upload(at, "inspect_import_files", [("wordpiece.json", export_files(wp)["tokenizer.json"].encode(), "application/json")])
    at.button(key="inspect_import").click().run()
    assert list(state.get_imported(at.session_state)) == ["vocab", "wordpiece"]
    for tab in INSPECT_TABS:
        open_tab(at, tab)
    open_tab(at, "Walk a word")
    assert len(at.code) == 3     # an imported playground tokenizer.json walks like a trained one
    open_tab(at, "Export & import")
    at.button(key="inspect_remove_0").click().run()
    assert list(state.get_imported(at.session_state)) == ["wordpiece"]


@pytest.mark.parametrize("name,content", [
    ("tokenizer.json", b'{"model": {"type": "BPE", "vocab": {"a": 0'),          # truncated
    ("tokenizer.json", b"\x89PNG\r\n\x1a\n\x00\x00"),                             # binary
    ("tokenizer.json", b'{"some": "other json"}'),                               # foreign
    ("merges.txt", b"#version: 0.2\na b\n"),                                     # half a pair
])
def test_a_corrupt_tokenizer_file_is_refused_and_nothing_is_lost(name, content):
    at = open_tab(inspect(trained_app("seed-004")), "Export & import")
    results = state.get_results(at.session_state)
    _upload(at, "inspect_import_files", [(name, content, "application/octet-stream")])
    at.button(key="inspect_import").click().run()
    assert not at.exception
    assert at.error and "Nothing was imported" in at.error[0].value
    assert state.get_imported(at.session_state) == {} and state.get_results(at.session_state) is results


def _snapshot(at):
    ss = at.session_state
    return (state.get_corpus(ss), state.get_settings(ss), state.get_results(ss),
            {m: state.get_step(m, ss) for m in MODELS}, state.get_imported(ss))


def test_session_save_then_load_into_a_fresh_app():
    at = trained_app("seed-004")
    state.set_step("wordpiece", 3, at.session_state)
    at = open_tab(inspect(at), "Session")
    raw = sf.dump_session(sf.current_session(at.session_state))   # what the Save button's callable returns
    save = [b for b in at.get("download_button") if b.key == "inspect_save_session"][0]
    assert save.proto.label == "Save session" and save.proto.deferred_file_id   # built on click

    fresh = open_tab(inspect(new_app()), "Session")
    _upload(fresh, "inspect_session_file", ("playground-session.json", raw, "application/json"))
    fresh.button(key="inspect_load_session").click().run()
    assert not fresh.exception and fresh.success and "Loaded the session" in fresh.success[0].value
    before, after = _snapshot(at), _snapshot(fresh)
    assert after[:4] == before[:4]
    # the corpus page shows the loaded settings and preset, and every page runs on the loaded state
    fresh.switch_page("pages/corpus.py").run()
    assert fresh.number_input(key="corpus_bpe_vocab_size").value == state.get_settings(at.session_state).bpe.vocab_size
    assert fresh.selectbox(key="corpus_preset").value == "seed-004"
    for page in ("pages/merges.py", "pages/compare.py", "pages/inspect.py", "pages/corpus.py"):
        fresh.switch_page(page).run()
        assert not fresh.exception, page
    assert _snapshot(fresh)[:4] == before[:4]


@pytest.mark.parametrize("content", [b"", b"{\"format\": \"tokenizer-playground-session\", \"vers",
                                     bytes(range(256)), b'{"format": "tokenizer-playground-session", "version": 99}',
                                     b'{"model": {"type": "BPE"}}', b"[]"])
def test_a_broken_session_file_is_refused_and_the_session_stays(content):
    at = open_tab(inspect(trained_app("seed-004")), "Session")
    before = _snapshot(at)
    _upload(at, "inspect_session_file", ("bad.json", content, "application/json"))
    at.button(key="inspect_load_session").click().run()
    assert not at.exception
    assert at.error and "Your current session is unchanged" in at.error[0].value
    after = _snapshot(at)
    assert all(a is b or a == b for a, b in zip(before, after))
    assert after[2] is before[2]


def test_user_text_never_reaches_html_unescaped():
    at = inspect(trained_app("seed-004"))
    at.text_area(key="inspect_text").input(f"low {PAYLOAD} <script>alert(1)</script> newest").run()
    at.text_input(key="inspect_pair").input(PAYLOAD).run()
    assert not at.exception
    bodies = html_bodies(at)
    assert bodies, "the pipeline draws its stages as HTML"
    for body in bodies:
        assert "<img" not in body and "<script" not in body, body[:300]
        assert set(re.findall(r"<(/?\w+)", body)) <= {"style", "/style", "div", "/div", "span", "/span"}
    assert any("&lt;img" in b for b in bodies)
    for tab in INSPECT_TABS[1:]:
        open_tab(at, tab)
        for body in html_bodies(at):
            assert "<img" not in body and "<script" not in body


def test_imported_token_strings_never_reach_html_unescaped():
    from tokenizers import Tokenizer, models, pre_tokenizers
    vocab = {"[UNK]": 0, "<img": 1, "src=x": 2, "onerror=alert(1)>": 3, "<img/src=x/onerror=alert(1)>": 4}
    hf = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    hf.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    at = open_tab(inspect(new_app()), "Export & import")
    _upload(at, "inspect_import_files", [(f"{PAYLOAD}.json", hf.to_str().encode(), "application/json")])
    at.button(key="inspect_import").click().run()
    assert not at.exception and at.success
    at.text_area(key="inspect_text").input(f"{PAYLOAD} <img/src=x/onerror=alert(1)>").run()
    for tab in INSPECT_TABS:
        open_tab(at, tab)
        for body in html_bodies(at):
            assert "<img" not in body, body[:300]
        for md in at.markdown:
            assert "<img" not in md.value or "\\<img" in md.value
    open_tab(at, "Pipeline")
    assert any("&lt;img" in b for b in html_bodies(at))
