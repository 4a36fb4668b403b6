"""The app headless, through streamlit.testing.v1.AppTest: every page runs, a preset trains,
bad input is refused without losing anything. Charts' pixels are the browser tests' job."""
import re
from dataclasses import replace

import pytest

from core.corpus import WordCounts, corpus_stats
from core.trainer import TrainConfig
from playground import state, training, views
from playground.state import Corpus
from tests.app.conftest import load_preset, new_app, train
from tests.support import PAGES



@pytest.mark.parametrize("page_path", PAGES)
def test_every_page_runs_without_results(page_path):
    at = new_app()
    at.switch_page(page_path).run()
    assert not at.exception
    assert at.title[0].value in ("Corpus", "Merges", "Compare", "Inspect", "Unigram", "Token tax")


def test_seed_000_preset_trains_the_seeds_merges():
    at = load_preset(new_app(), "seed-000")
    corpus = state.get_corpus(at.session_state)
    assert corpus.text == "highest higher lower lowest cooler coolest" and corpus.preset == "seed-000"
    # the preset set the trainer widgets
    assert at.number_input(key="corpus_bpe_vocab_size").value == 17
    assert at.selectbox(key="corpus_bpe_end_of_word").value == "symbol"
    assert [m.value for m in at.metric][:3] == ["42", "42", "6"]   # characters, bytes, words

    train(at)
    results = state.get_results(at.session_state)
    bpe = results.trace("bpe")
    assert [s.token for s in bpe.steps] == ["es", "est", "est</w>", "er", "er</w>"]
    assert [s.count for s in bpe.steps] == [3] * 5
    assert [s.tied for s in bpe.steps] == [5, 4, 3, 2, 1]
    assert len(bpe.vocab) == 17
    assert results.corpus_digest == corpus.digest
    assert {m: len(results.trace(m).steps) for m in ("bbpe", "wordpiece")} == {"bbpe": 5, "wordpiece": 5}

    # every page reads the results; switching back keeps the corpus page's settings
    for page_path in PAGES[1:] + PAGES[:1]:
        at.switch_page(page_path).run()
        assert not at.exception
    assert at.number_input(key="corpus_bpe_vocab_size").value == 17
    assert state.get_results(at.session_state) is results


def test_training_again_reuses_the_cached_traces():
    at = train(load_preset(new_app(), "seed-001"))
    first = state.get_results(at.session_state)
    train(at)
    second = state.get_results(at.session_state)
    assert second is not first
    assert all(second.trace(m) is first.trace(m) for m in ("bpe", "bbpe", "wordpiece"))
    assert [s.token for s in second.trace("bbpe").steps][-3:] == ["at", "io", "ion"]


def test_seed_004_word_counts_and_variant():
    at = train(load_preset(new_app(), "seed-004"))
    results = state.get_results(at.session_state)
    assert [s.token for s in results.trace("bpe").steps] == ["es", "est", "lo"]
    assert [s.token for s in results.trace("wordpiece").steps] == ["wi", "wid", "lo", "##st"]
    assert at.warning, "the seed note is shown"
    at.button(key="corpus_variant_0").click().run()   # BPE with </w>, vocabulary 14
    assert at.number_input(key="corpus_bpe_vocab_size").value == 14
    train(at)
    assert [s.token for s in state.get_results(at.session_state).trace("bpe").steps] == ["es", "est", "est</w>"]


def test_empty_paste_shows_an_error_and_keeps_the_corpus():
    at = train(load_preset(new_app(), "seed-000"))
    before_corpus = state.get_corpus(at.session_state)
    before_results = state.get_results(at.session_state)
    at.text_area(key="corpus_paste").input("   \n  ")
    at.button(key="corpus_use_paste").click().run()
    assert not at.exception
    assert at.error and "empty" in at.error[0].value
    assert state.get_corpus(at.session_state) is before_corpus
    assert state.get_results(at.session_state) is before_results


def test_paste_then_train():
    at = new_app()
    at.text_area(key="corpus_paste").input("low low low lower lower newest newest widest")
    at.button(key="corpus_use_paste").click().run()
    assert not at.error
    assert state.get_corpus(at.session_state).source == "paste"
    train(at)
    assert state.get_results(at.session_state).trace("bpe").steps


def test_bad_setting_shows_an_error_and_keeps_the_results():
    at = train(load_preset(new_app(), "seed-000"))
    before = state.get_results(at.session_state)
    at.number_input(key="corpus_bpe_vocab_size").set_value(3).run()   # below the alphabet
    train(at)
    # the message is escaped for Markdown (it may quote typed text): `\:` shows as `:`
    assert at.error and re.sub(r"\\(.)", r"\1", at.error[0].value).startswith(
        "BPE: vocabulary size 3 is below the alphabet")
    assert state.get_results(at.session_state) is before


def test_train_is_disabled_without_a_corpus():
    at = new_app()
    assert at.button(key="corpus_train").disabled


# ---------------------------------------------------------------- pure helpers behind the pages

def test_settings_widgets_round_trip():
    cfg = TrainConfig(model="bpe", vocab_size=40, end_of_word="suffix", special_tokens=("<s>", "</s>"),
                      unk_token="[UNK]", max_merges=7, keep_newlines=True).resolved()
    values = views.config_to_widgets(cfg)
    assert values["special_tokens"] == "<s>, </s>"
    assert views.widgets_to_config("bpe", values, cfg) == cfg
    empty = views.config_to_widgets(TrainConfig(model="wordpiece").resolved())
    back = views.widgets_to_config("wordpiece", empty)
    assert back.unk_token is None and back.max_merges is None and back.special_tokens == ()


def test_the_corpus_overview_is_worked_out_once_per_corpus_and_way_of_counting():
    text = "the cat and the dog\n分词是自然语言处理的第一步。\n分词很难做得好。\nthe end"
    corpus = Corpus.from_text("mixed", text, "paste")
    cfg = TrainConfig(model="bpe", vocab_size=40)
    first = training.corpus_overview(corpus, cfg)
    words = training.corpus_words(corpus, cfg)
    assert first.stats == corpus_stats(text, words)
    assert first.unspaced_share == views.unspaced_share(text) == 0.5
    frame, more = views.word_frequency_frame(words)
    assert first.top_words.equals(frame) and first.more_words is more is False
    # a new vocabulary size counts no word anew: the same overview; another pre-tokenizer does
    assert training.corpus_overview(corpus, replace(cfg, vocab_size=80, tie_break="hf")) is first
    chars = training.corpus_overview(corpus, replace(cfg, pre_tokenizer="chars"))
    assert chars is not first and chars.stats.words > first.stats.words
    assert views.looks_unspaced(first.unspaced_share, "whitespace")
    assert not views.looks_unspaced(first.unspaced_share, "chars")
    assert not views.looks_unspaced(0.49, "whitespace")

    table = WordCounts(("low", "lower", "newest"), (5, 2, 6))
    by_table = training.corpus_overview(Corpus.from_table("t.csv", table, "upload"), cfg)
    assert by_table.stats == views.table_stats(table) and by_table.unspaced_share == 0.0
    assert list(by_table.top_words["word"]) == ["newest", "low", "lower"]


def test_the_base_size_is_worked_out_once_whatever_the_vocabulary_size_and_tie_rule(monkeypatch):
    corpus = Corpus.from_text("once", "low lower lowest newer wider ünïcode", "paste")
    calls = []
    real = training.initial_vocab
    monkeypatch.setattr(training, "initial_vocab", lambda *a: calls.append(1) or real(*a))
    cfg = TrainConfig(model="bpe", vocab_size=40).resolved()
    base = training.base_size(corpus, cfg)
    assert base == len(set("lowerstnidüïc"))
    for changes in (dict(vocab_size=41), dict(tie_break="hf", min_frequency=2, max_merges=3, top_k=4)):
        assert training.base_size(corpus, replace(cfg, **changes)) == base
    assert len(calls) == 1
    # what the alphabet does depend on is counted anew: an end-of-word mark, special tokens
    assert training.base_size(corpus, replace(cfg, end_of_word="symbol")) == base + 1
    assert training.base_size(corpus, replace(cfg, special_tokens=("<s>",), unk_token="[UNK]")) == base + 2
    assert len(calls) == 3


def test_word_frequency_frame_and_preview():
    wc = WordCounts(tuple(f"w{i}" for i in range(5)), (1, 5, 3, 5, 2))
    frame, cut = views.word_frequency_frame(wc, limit=3)
    assert cut and list(frame["word"]) == ["w1", "w3", "w2"]
    assert views.preview("x" * 30, limit=20) == ("x" * 20, True)
    assert views.show_spaces(" the") == "⋅the"
    assert views.md_escape("**a**") == "\\*\\*a\\*\\*"
