"""The Unigram trainer's compiled loops (core/fast/_unigram.pyx) give the pure-Python trainer's
trace, float for float: the seed pieces and the lattices, the E step (forward-backward over each
word's lattice), the pruning's Viterbi counts and second-best segmentations, on the seed corpora,
on generated corpora (hypothesis) and on a third of a megabyte of mixed text, in one process and
in two; and each compiled function returns exactly what its Python version returns, on generated
scores too (pieces dropped, scores more than 50 nats apart).

Where the fast path is not built (a machine without Cython or a compiler) `fast=True` falls back
to the pure-Python loops, so these tests compare that path with itself and say so
(`test_which_path_runs`), without failing. `test_pure_python_path_without_the_extension` runs a
process in which the extension cannot be imported: it trains on the pure-Python path, says so in
`python -m core info`, and gives the same trace.
"""
from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from core import unigram as unigram_module
from core.corpora import mixed_text
from core.corpus import WordCounts, count_words
from core.errors import ConfigError
from core.presets import load_kjv
from core.unigram import UnigramConfig, train_unigram
from core.unigram_reference import train_reference
from tests.support import ROOT

SEED_TEXTS = {
    "000": ("highest higher lower lowest cooler coolest", 20),
    "004": ("low " * 5 + "lower " * 2 + "newest " * 6 + "widest " * 3, 14),
    "003": ("我\n喜欢\n吃\n苹果\n他\n不\n喜欢\n吃\n苹果派\nI like to eat apples\nShe has a cute cat\n"
            "you are very cute\ngive you a hug\n", 31),
}

needs_fast = pytest.mark.skipif(not unigram_module.FAST_PATH, reason="core/fast/_unigram not built (`make fast`)")


def both_ways(words: WordCounts, config: UnigramConfig, workers: int = 1):
    """(pure-Python trace, fast-path trace) as JSON, or the ConfigError's message for both."""
    out = []
    for fast in (False, True):
        try:
            out.append(train_unigram(words, config, workers=workers, fast=fast).to_json())
        except ConfigError as e:
            out.append(str(e))
    return out


@pytest.mark.parametrize("key", sorted(SEED_TEXTS))
def test_seed_examples_same_trace(key):
    text, size = SEED_TEXTS[key]
    wc = count_words(text, "whitespace", workers=1)
    for config in (UnigramConfig(vocab_size=size), UnigramConfig(vocab_size=size + 2, unk_token="<unk>",
                                                                  special_tokens=("<s>",), max_piece_length=4)):
        pure, fast = both_ways(wc, config)
        assert pure == fast, key
        assert pure["em_steps"], key
        assert fast == train_reference(wc, config).to_json(), key


WORD = st.text(st.sampled_from("abcdeé中▁"), min_size=1, max_size=10)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(words=st.lists(st.tuples(WORD, st.integers(1, 40)), min_size=1, max_size=30),
       size=st.floats(0, 1), shrink=st.sampled_from([0.5, 0.75, 0.9]), max_len=st.integers(1, 7),
       subs=st.integers(1, 3), unk=st.sampled_from([None, "<unk>"]))
def test_generated_corpora_same_trace(words, size, shrink, max_len, subs, unk):
    """Sizes drawn between the corpus's limits (size: that far from the lower one)."""
    wc = WordCounts.from_pairs(words)
    try:
        low, high = unigram_module.size_limits(wc, UnigramConfig(max_piece_length=max_len, unk_token=unk))
    except ConfigError:
        return
    config = UnigramConfig(vocab_size=max(1, low + round(size * (high - low))), shrinking_factor=shrink,
                           max_piece_length=max_len, n_sub_iterations=subs, unk_token=unk)
    pure, fast = both_ways(wc, config)
    assert pure == fast
    assert fast == train_reference(wc, config).to_json()


def test_mixed_text_same_trace_in_one_process_and_in_two(monkeypatch):
    """In one process the compiled trainer sums all blocks in C (e_step, viterbi_freq); in two,
    the workers return a dict per block (e_blocks, viterbi_blocks): the same floats."""
    wc = count_words(mixed_text(300_000), "whitespace", workers=1)
    assert len(wc) >= 2 * unigram_module.WORD_BLOCK
    config = UnigramConfig(vocab_size=5000)
    pure, fast = both_ways(wc, config)
    assert len(pure["em_steps"]) >= 4 and pure["prunes"]
    assert pure == fast
    monkeypatch.setattr(unigram_module, "FORK_MIN_NODES", 0)    # fork whatever the size
    assert train_unigram(wc, config, workers=2, fast=True).to_json() == fast


def test_kjv_slice_same_trace_as_the_reference():
    wc = count_words(load_kjv()[:40_000], "whitespace", workers=1)
    config = UnigramConfig(vocab_size=400, unk_token="<unk>", special_tokens=("<s>",))
    assert train_unigram(wc, config, fast=True) == train_reference(wc, config)


# ---------------------------------------------------------------- function for function

def _trainer(pairs, max_len=8, fast=True):
    wc = WordCounts.from_pairs(pairs)
    config = UnigramConfig(max_piece_length=max_len).resolved()
    return unigram_module._FastTrainer(unigram_module.unigram_words(wc, config), config, fast)


@needs_fast
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pairs=st.lists(st.tuples(st.text(st.sampled_from("abcdeé中▁\0"), min_size=1, max_size=12),
                                st.integers(1, 10**6)), min_size=1, max_size=40),
       max_len=st.integers(1, 8),
       raw=st.lists(st.one_of(st.none(), st.floats(-200, 0), st.sampled_from([-1e-300, -0.0, -75.0, -25.0])),
                    min_size=1, max_size=50),
       block=st.integers(1, 7))
def test_compiled_functions_return_what_python_returns(pairs, max_len, raw, block):
    """Substrings (seeds and lattices), e_blocks (and e_step), viterbi_blocks (and viterbi_freq)
    and second_best_parts against _seed_pieces, _matches, _e_blocks, _viterbi_blocks (summed as
    em_step and prune sum them) and _second_best_part on the same words (with "\\0", which no piece spans)
    and arbitrary scores (None: the piece is gone), block by block: equal dicts, equal losses."""
    trainer = _trainer(pairs, max_len)
    n = len(trainer.texts)
    score = [math.nan] + [raw[i % len(raw)] for i in range(n - 1)]
    alive = [s for s in score[1:] if s is not None]
    unk_score = (min(alive) if alive else 0.0) - unigram_module.UNK_PENALTY
    words = len(trainer.words)
    blocks = [(s, min(s + block, words)) for s in range(0, words, block)]
    total = sum(trainer.counts)
    fast = unigram_module._e_blocks(trainer, blocks, score, unk_score, total)
    pure_trainer = _trainer(pairs, max_len, fast=False)
    assert pure_trainer.texts == trainer.texts and pure_trainer.seeds == trainer.seeds
    assert trainer.lattices.rows() == [list(r) for r in pure_trainer.rows]
    pure = unigram_module._e_blocks(pure_trainer, blocks, score, unk_score, total)
    assert fast == pure
    # all blocks summed in C, against em_step's and prune's sums of the Python blocks
    expected, loss = [0.0] * n, 0.0
    for block_expected, block_loss in pure:
        for sid, x in block_expected.items():
            expected[sid] += x
        loss += block_loss
    assert unigram_module._fast.e_step(trainer.lattices, blocks, score, unk_score, float(total)) == (expected, loss)
    freq = [0.0] * n
    pure_freq = unigram_module._viterbi_blocks(pure_trainer, blocks, score, unk_score)
    for block_freq in pure_freq:
        for sid, x in block_freq.items():
            freq[sid] += x
    assert unigram_module._viterbi_blocks(trainer, blocks, score, unk_score) == pure_freq
    assert unigram_module._fast.viterbi_freq(trainer.lattices, blocks, score, unk_score) == freq
    order = [sid for sid in range(1, n) if score[sid] is not None]
    parts = [order[k:k + block] for k in range(0, len(order), block)]
    assert unigram_module._second_best_part(trainer, parts, order, score, unk_score) == \
        unigram_module._second_best_part(pure_trainer, parts, order, score, unk_score)


# ---------------------------------------------------------------- without the extension

PURE_SCRIPT = """
import json, sys
sys.modules["core.fast._unigram"] = None          # importing it raises ImportError, as when not built
from core import unigram
from core.corpus import count_words
from core.presets import load_kjv
assert unigram._fast is None and not unigram.FAST_PATH, unigram.UNIGRAM_PATH
print(unigram.UNIGRAM_PATH)
wc = count_words(load_kjv()[:60_000], "whitespace", workers=1)
trace = unigram.train_unigram(wc, unigram.UnigramConfig(vocab_size=600), workers=2)
print(json.dumps(trace.to_json()))
"""


def test_pure_python_path_without_the_extension():
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-c", PURE_SCRIPT], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    path, trace = proc.stdout.split("\n", 1)
    assert path == "pure-Python path"
    wc = count_words(load_kjv()[:60_000], "whitespace", workers=1)
    assert json.loads(trace) == train_unigram(wc, UnigramConfig(vocab_size=600)).to_json()
    info = subprocess.run([sys.executable, "-c", "import sys; sys.modules['core.fast._unigram'] = None; "
                           "from core.cli import main; sys.exit(main(['info']))"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert info.returncode == 0, info.stderr
    assert "unigram: pure-Python path" in info.stdout.splitlines()
