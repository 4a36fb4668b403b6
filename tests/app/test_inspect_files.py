"""Bring your own tokenizer on the Inspect page (AppTest): each format uploads, joins Compare's
list and replays its merges; a malformed, unknown or huge file gets one message naming the problem
and loses nothing; the page's view and its uploaded files come back on reload (a new session
opened at the address the first one left)."""
from __future__ import annotations

import io
import json

import pytest
from streamlit.testing.v1 import AppTest

from core.formats import MAX_FILE_BYTES
from core.trainer import TrainConfig, train
from core.corpus import count_words
from core.encoders import TrainedTokenizer
from playground import session_file as sf
from playground import state
from playground.inspect import export_files
from tests.app.conftest import TIMEOUT, goto, new_app, tiktoken_file
from tests.support import APP, compare_panels, drawn_html

CORPUS = "low lower lowest newer newest wider widest hello world " * 20


def _trained(model: str) -> TrainedTokenizer:
    config = TrainConfig(model=model, vocab_size=300 if model == "bbpe" else 80, unk_token=None if model == "bbpe"
                         else "[UNK]").resolved()
    return TrainedTokenizer.from_trace(train(count_words(CORPUS, config.pre_tokenizer, config.normalizer), config))


def _sentencepiece_model() -> bytes:
    import sentencepiece as spm
    out = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(CORPUS.split("hello")), model_writer=out, vocab_size=40,
                                   model_type="bpe", hard_vocab_limit=False, minloglevel=2)
    return out.getvalue()


def _files(kind: str) -> list[tuple[str, bytes, str]]:
    if kind == "tokenizer.json":
        return [("mine.json", export_files(_trained("bbpe"))["tokenizer.json"].encode(), "application/json")]
    if kind == "vocab.json+merges.txt":
        files = export_files(_trained("bbpe"))
        return [("vocab.json", files["vocab.json"].encode(), "application/json"),
                ("merges.txt", files["merges.txt"].encode(), "text/plain")]
    if kind == "vocab.txt":
        return [("vocab.txt", export_files(_trained("wordpiece"))["vocab.txt"].encode(), "text/plain")]
    if kind == ".tiktoken":
        return [("ranks.tiktoken", tiktoken_file(), "application/octet-stream")]
    return [("sp.model", _sentencepiece_model(), "application/octet-stream")]


FORMATS = ["tokenizer.json", "vocab.json+merges.txt", "vocab.txt", ".tiktoken", ".model"]


def inspect_files(at: AppTest) -> AppTest:
    return goto(at, "pages/inspect.py", "Export & import")


def upload(at: AppTest, files) -> AppTest:
    at.file_uploader(key="inspect_import_files").set_value(files)
    at.button(key="inspect_import").click().run()
    assert not at.exception, at.exception
    return at


def messages(at: AppTest, kind: str) -> list[str]:
    """The page's messages of one kind, Markdown escapes removed."""
    return [m.value.replace("\\", "") for m in getattr(at, kind)]


@pytest.mark.parametrize("kind", FORMATS)
def test_each_format_imports_joins_compare_and_walks(kind):
    at = inspect_files(new_app())
    at.text_area(key="inspect_text").input("lowest newest")
    upload(at, _files(kind))
    assert any("Imported" in m for m in messages(at, "success")), messages(at, "error")
    names = list(state.get_imported(at.session_state))
    assert len(names) == 1
    assert at.selectbox(key="inspect_tokenizer").value == f"imported:{names[0]}"
    goto(at, "pages/inspect.py", "Walk a word")
    if kind == "vocab.txt":      # WordPiece: nothing to replay, said so
        assert any("does not merge pairs" in m for m in messages(at, "info"))
    else:
        steps = at.slider(key="inspect_replay_step")
        assert steps.value == steps.max >= 1
        steps.set_value(0).run()
        assert any(c.startswith("Start:") for c in messages(at, "caption"))
        steps = at.slider(key="inspect_replay_step")
        steps.set_value(1).run()
        assert any(c.startswith(("Step 1: merge", "Step 1: the whole")) for c in messages(at, "caption"))
    for tab in ("Pipeline", "Vocabulary"):     # every view of the page takes it
        goto(at, "pages/inspect.py", tab)
    assert any(f"{len(tok_vocab(at)):,} tokens" in c for c in messages(at, "caption"))
    goto(at, "pages/compare.py")
    assert f"{names[0]} (imported)" in at.multiselect(key="compare_tokenizers").options
    at.multiselect(key="compare_tokenizers").set_value([f"imported:{names[0]}"]).run()
    assert not at.exception, at.exception
    assert f"imported:{names[0]}" in compare_panels(at)


def tok_vocab(at: AppTest) -> list:
    (tok,) = state.get_imported(at.session_state).values()
    return [i for i in range(tok.vocab_size)]


def _edited_export(model: str, **playground) -> bytes:
    """The project's own tokenizer.json with its playground section changed."""
    data = json.loads(export_files(_trained(model))["tokenizer.json"])
    data["model"]["playground"].update(playground)
    return json.dumps(data, ensure_ascii=False).encode()


def _unigram_export(**playground) -> bytes:
    from core.unigram import UnigramTokenizer
    data = UnigramTokenizer(pieces=(("<unk>", 0.0), ("▁low", -1.0), ("er", -2.0)), unk_id=0).tokenizer_json()
    data["model"]["playground"].update(playground)
    return json.dumps(data, ensure_ascii=False).encode()


BAD = [
    ("unigram with an unknown normalizer", [("uni.json", _unigram_export(normalizer="zzz"), "application/json")],
     "uni.json: unknown normalizer 'zzz'"),
    ("unknown token outside the vocabulary", [("unk.json", _edited_export("bpe", unk_token="<nope>"), "application/json")],
     "unk.json: the unknown token '<nope>' is not in the vocabulary"),
    ("malformed", [("broken.json", b'{"model": {"type": "BPE", ', "application/json")], "not valid JSON"),
    ("unknown", [("picture.png", b"\x89PNG\r\n", "image/png")], "give a tokenizer.json"),
    ("not a ranks file", [("x.tiktoken", b"hello world\n", "application/octet-stream")], "base64"),
    ("not a model", [("x.model", b"\x00\x01garbage", "application/octet-stream")], "SentencePiece"),
    ("huge", [("big.json", b" " * (MAX_FILE_BYTES + 1), "application/json")], "MB: tokenizer files up to"),
]


@pytest.mark.parametrize("case, files, expected", BAD, ids=[b[0] for b in BAD])
def test_a_bad_file_gets_one_message_and_nothing_is_lost(case, files, expected):
    at = inspect_files(new_app())
    upload(at, _files(".tiktoken"))
    kept = dict(state.get_imported(at.session_state))
    at.text_area(key="inspect_text").input("kept text")
    at.run()
    upload(at, files)
    errors = messages(at, "error")
    assert len(errors) == 1 and expected in errors[0] and "Nothing was imported" in errors[0], errors
    assert "Traceback" not in errors[0]
    assert state.get_imported(at.session_state).keys() == kept.keys()
    assert at.text_area(key="inspect_text").value == "kept text"


def test_reload_restores_tokenizer_tab_word_and_uploaded_files():
    at = inspect_files(new_app())
    upload(at, _files(".tiktoken"))
    goto(at, "pages/inspect.py", "Walk a word")
    at.text_input(key="inspect_walk_word").input("lowest lowest").run()
    address = dict(at.query_params)
    assert address["tab"] == "walk" and address["word"] == "lowest lowest" and len(address["files"]) == 64
    # F5: a new session at the same address
    again = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    again.query_params.update(address)
    again.switch_page("pages/inspect.py").run()
    assert not again.exception, again.exception
    assert list(state.get_imported(again.session_state)) == list(state.get_imported(at.session_state))
    assert again.selectbox(key="inspect_tokenizer").value == at.selectbox(key="inspect_tokenizer").value
    assert again.text_input(key="inspect_walk_word").value == "lowest lowest"
    assert again.slider(key="inspect_replay_step").value >= 1     # the Walk tab is the one drawn


def test_the_piece_follows_the_text_and_comes_back_from_the_link():
    at = new_app()
    at.session_state["inspect_tokenizer"] = "pretrained:gpt2"
    goto(at, "pages/inspect.py", "Walk a word")
    at.text_input(key="inspect_walk_word").input("lowest newest").run()
    pieces = at.selectbox(key="inspect_replay_chunk")
    assert pieces.value.startswith("0: ") and "lowest" in pieces.value
    pieces.set_value(pieces.options[1]).run()
    assert at.query_params["chunk"] == "1"
    at.text_input(key="inspect_walk_word").input("widest").run()     # one piece now: the first, shown as itself
    assert at.selectbox(key="inspect_replay_chunk").value == "0: widest"
    again = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    again.query_params.update({"tokenizer": "pretrained:gpt2", "tab": "walk", "word": "lowest newest", "chunk": "1"})
    again.switch_page("pages/inspect.py").run()
    assert not again.exception, again.exception
    assert again.selectbox(key="inspect_replay_chunk").value.startswith("1: ")
    assert "newest" in again.selectbox(key="inspect_replay_chunk").value


def test_a_link_to_files_gone_or_forged_says_so_and_never_reads_a_path(tmp_path):
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    at.query_params.update({"files": "../../etc/passwd," + "0" * 64, "tab": "nowhere"})
    at.switch_page("pages/inspect.py").run()
    assert not at.exception, at.exception
    notes = " ".join(messages(at, "info"))
    assert "not a digest" in notes and "no longer kept" in notes and "Ignored tab=" in notes
    assert state.get_imported(at.session_state) == {}


def test_a_session_with_an_imported_ranks_file_still_saves_and_says_what_is_left_out():
    at = inspect_files(new_app())
    upload(at, _files(".tiktoken") + _files("tokenizer.json"))
    goto(at, "pages/inspect.py", "Session")
    assert any(c.startswith("Not in the file: ranks") for c in messages(at, "caption"))
    saved = sf.parse_session(sf.dump_session(sf.current_session(at.session_state)))
    assert list(saved.imported) == ["mine"]


@pytest.mark.parametrize("page", ["pages/inspect.py", "pages/languages.py"])
def test_a_missing_package_hides_its_tokenizers_with_how_to_install_it(without_llama_models, page):
    at = goto(new_app(), page)
    notes = [e.label for e in at.expander]
    assert any(n.startswith("2 pretrained tokenizers are not installed") for n in notes), notes
    assert any("pip install --no-deps llama-models" in m.value for m in at.markdown)
    picker = at.selectbox(key="inspect_tokenizer") if "inspect" in page else at.multiselect(key="languages_tokenizers")
    assert not any("llama" in str(o).lower() for o in picker.options)


def test_tokenizers_from_a_loaded_session_come_back_on_reload_too():
    at = inspect_files(new_app())
    upload(at, _files("tokenizer.json"))
    raw = sf.dump_session(sf.current_session(at.session_state))
    fresh = goto(new_app(), "pages/inspect.py", "Session")
    fresh.file_uploader(key="inspect_session_file").set_value(("playground-session.json", raw, "application/json"))
    fresh.button(key="inspect_load_session").click().run()
    assert not fresh.exception, fresh.exception
    assert list(state.get_imported_files(fresh.session_state)) == ["mine"]
    address = dict(fresh.query_params)
    again = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    again.query_params.update(address)
    again.switch_page("pages/inspect.py").run()
    assert not again.exception, again.exception
    assert list(state.get_imported(again.session_state)) == ["mine"]


@pytest.mark.parametrize("kind", FORMATS)
def test_an_import_chosen_on_compare_comes_back_on_reload_with_the_same_tokens(kind):
    at = inspect_files(new_app())
    upload(at, _files(kind))
    (name,) = state.get_imported(at.session_state)
    chosen = [f"imported:{name}", "pretrained:gpt2"]
    goto(at, "pages/compare.py")
    at.text_area(key="compare_text").input("lowest newest widest").run()
    at.multiselect(key="compare_tokenizers").set_value(chosen).run()
    assert not at.exception, at.exception
    address = dict(at.query_params)
    assert len(address["files"]) == 64 and address["tokenizers"] == ",".join(chosen)
    panels = compare_panels(at)
    assert set(panels) == set(chosen)
    # F5: a new session at the same address, straight onto Compare (Inspect never opened)
    again = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    again.query_params.update(address)
    again.switch_page("pages/compare.py").run()
    assert not again.exception, again.exception
    assert again.multiselect(key="compare_tokenizers").value == chosen
    assert compare_panels(again) == panels            # the same tokens, drawn the same
    assert dict(again.query_params) == address       # and the same link written back
    assert not again.warning


def test_a_reloaded_import_keeps_its_place_when_it_comes_back_under_another_name():
    at = inspect_files(new_app())
    upload(at, _files("tokenizer.json"))                                    # "mine"
    other = export_files(_trained("wordpiece"))["tokenizer.json"].encode()
    upload(at, [("mine.json", other, "application/json")])                  # a second "mine": another name
    first, second = state.get_imported(at.session_state)
    at.button(key="inspect_remove_0").click().run()                         # only the second is left
    goto(at, "pages/compare.py")
    at.multiselect(key="compare_tokenizers").set_value([f"imported:{second}"]).run()
    panels = compare_panels(at)
    again = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    again.query_params.update(dict(at.query_params))
    again.switch_page("pages/compare.py").run()
    assert not again.exception, again.exception
    (back,) = state.get_imported(again.session_state)
    assert back == first != second                     # a new session: its file's own name is free again
    assert again.multiselect(key="compare_tokenizers").value == [f"imported:{back}"]
    assert list(compare_panels(again).values()) == [p.replace(f"imported:{second}", f"imported:{back}")
                                             .replace(second, back) for p in panels.values()]


def test_a_compare_link_whose_import_is_gone_says_so_and_keeps_the_rest():
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    at.query_params.update({"text": "kept text", "tokenizers": "imported:mine,pretrained:gpt2,imported:x",
                            "files": "ab" * 32 + ",../../etc/passwd", "show": "ids"})
    at.switch_page("pages/compare.py").run()
    assert not at.exception, at.exception
    warnings = " ".join(w.value.replace("\\", "") for w in at.warning)
    assert "“mine” are no longer kept on this server" in warnings, warnings
    assert "not a digest" in warnings, warnings
    assert any("Inspect page" in link.proto.label for link in at.get("page_link"))
    assert at.multiselect(key="compare_tokenizers").value == ["pretrained:gpt2"]
    assert at.text_area(key="compare_text").value == "kept text"
    assert at.segmented_control(key="compare_view").value == "Ids"
    assert state.get_imported(at.session_state) == {}
    at.text_area(key="compare_text").input("another text").run()       # said until the user chooses anew
    assert any("no longer kept" in w.value for w in at.warning)
    at.multiselect(key="compare_tokenizers").set_value(["pretrained:gpt2", "pretrained:o200k_base"]).run()
    assert not any("no longer kept" in w.value for w in at.warning)


def test_a_file_whose_ids_leave_gaps_works_on_every_inspect_tab():
    from tests.core.test_formats import _gapped_hf_json
    at = inspect_files(new_app())
    upload(at, [("gaps.json", _gapped_hf_json(), "application/json")])
    assert any("Imported" in m for m in messages(at, "success")), messages(at, "error")
    # no space: the file has no token for it and no unknown token (the Pipeline tab says so)
    at.text_area(key="inspect_text").input("abab").run()
    for tab in ("Pipeline", "Walk a word", "Session", "Vocabulary"):
        goto(at, "pages/inspect.py", tab)
        assert not at.exception and not at.error, (tab, at.exception, messages(at, "error"))
    assert any("3 of 3 tokens" in c for c in messages(at, "caption"))  # Vocabulary: the unassigned ids are not rows
    goto(at, "pages/compare.py")
    at.multiselect(key="compare_tokenizers").set_value(["imported:gaps"]).run()
    (table,) = [h for h in drawn_html(at) if h.startswith('<table class="tp-info"')]
    assert '<td class="tp-n">3 (ids 0–9)</td>' in table                 # its tokens, not its id range


def test_a_replay_that_cannot_read_the_file_is_an_error_on_the_walk_tab(monkeypatch):
    from core import replay
    from core.errors import EncodeError

    def unreadable(tok, chunk):
        raise EncodeError("id 7 is unassigned in mine: no token has it")
    monkeypatch.setattr(replay, "replay_chunk", unreadable)
    at = inspect_files(new_app())
    upload(at, _files("tokenizer.json"))
    goto(at, "pages/inspect.py", "Walk a word")
    assert messages(at, "error") == ["id 7 is unassigned in mine: no token has it."]
