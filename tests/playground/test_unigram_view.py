"""playground/unigram_view.py: a Unigram trace as steps, and the lattice of one word."""
from __future__ import annotations

import math

import pytest

from core import presets
from core.trainer import TrainConfig
from core.unigram import METASPACE, UnigramConfig, UnigramTokenizer, train_unigram
from playground import unigram_view as uv


@pytest.fixture(scope="module")
def trace():
    words = presets.words_for(presets.get_preset("seed-001"), TrainConfig(model="bpe").resolved())
    return train_unigram(words, UnigramConfig(vocab_size=32))


def test_steps_follow_the_trace_in_order(trace):
    steps = uv.iterations(trace)
    assert [s.index for s in steps] == list(range(len(steps)))
    assert steps[0].kind == "seeds" and steps[0].pieces == trace.seeds
    assert steps[-1].kind == "final" and steps[-1].pieces == trace.vocab
    assert [s.loss for s in steps if s.kind == "em"] == [e.loss for e in trace.em_steps]
    prunes = [s for s in steps if s.kind == "prune"]
    assert len(prunes) == len(trace.prunes) >= 2
    for step, prune in zip(prunes, trace.prunes):
        before = steps[step.index - 1]
        assert step.pieces == tuple(p for p in before.pieces if p[0] not in {t for t, _ in prune.pruned})
        assert step.size == prune.size_after and before.size == prune.size_before
        nxt = steps[step.index + 1]
        assert nxt.kind == "em" and set(p for p, _ in nxt.pieces) <= set(p for p, _ in step.pieces)
    assert uv.last_loss(steps, prunes[0].index) == steps[prunes[0].index - 1].loss


def test_every_step_has_a_sentence_with_its_number(trace):
    steps = uv.iterations(trace)
    for k, step in enumerate(steps):
        text = uv.describe(steps, k)
        assert text.startswith(f"Step {k} of {len(steps) - 1}: ")
        assert f"{step.size:,} pieces" in text or step.kind == "seeds" and f"{step.size:,} seed pieces" in text


def test_the_final_steps_viterbi_path_is_what_the_tokenizer_encodes(trace):
    tok = UnigramTokenizer.from_trace(trace)
    final = uv.iterations(trace)[-1]
    for word in ("tokenizer", "the", "Hugging", "shows"):
        lat = uv.word_lattice(final.pieces, word)
        ours = [(b, e) for _, b, e in lat.viterbi_path.pieces]
        assert ours == [(a, b) for a, b, _ in tok.segment(METASPACE + word)], word
        assert math.isclose(math.fsum(s.probability for s in lat.segmentations), 1.0)


def test_a_word_too_long_for_a_listed_lattice_is_refused():
    with pytest.raises(ValueError, match="1 to 10 characters"):
        uv.word_lattice((("a", -1.0),), "a" * 10)


def test_the_lattice_html_escapes_the_word_and_outlines_one_row():
    pieces = (("<", -1.0), ("b", -1.0), (">", -1.0), (METASPACE, -1.0), ("<b", -0.5))
    lat = uv.word_lattice(pieces, "<b>")
    html = uv.lattice_html(lat)
    assert "<b>" not in html and "&lt;b" in html
    assert html.count("ug-row ug-best") == 1
    assert f'data-segmentations="{len(lat.segmentations)}"' in html


def test_short_words_are_frequent_first_and_fit_the_lattice():
    words = uv.short_words(["a", "abcdefghijk", "bb", "cc", "bb"], [1, 9, 3, 3, 5], limit=3)
    assert words == ["bb", "cc", "a"]
