"""The compiled fast path (core/fast/_merge.pyx) gives the pure-Python trainer's trace, record for
record, for every model and tie rule: on the seeds' examples, on generated corpora (hypothesis,
with repeated symbols such as `a a a` and reused tokens) and on half a megabyte of mixed text.

Where the fast path is not built (a machine without Cython or a compiler) the trainer runs its
pure-Python path: these tests then train each case both ways all the same (`fast=True` falls back),
so they check that the fallback gives the reference trace, and the module says so in its output
(`test_which_path_runs`), without failing.
"""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from core import trainer as trainer_module
from core import unigram as unigram_module
from core.corpora import mixed_text
from core.corpus import WordCounts, count_words
from core.trace_io import trace_to_json
from core.trainer import TIE_RULES, TrainConfig, train

SEED_TEXTS = {
    "000": "highest higher lower lowest cooler coolest",
    "001": "This is the Hugging Face Course.\nThis chapter is about tokenization.\n"
           "This section shows several tokenizer algorithms.\n"
           "Hopefully, you will be able to understand how they are trained and generate tokens.\n",
    "003": "我\n喜欢\n吃\n苹果\n他\n不\n喜欢\n吃\n苹果派\nI like to eat apples\nShe has a cute cat\n"
           "you are very cute\ngive you a hug\n",
}
SEED_004 = WordCounts(("low", "lower", "newest", "widest"), (5, 2, 6, 3))

# every model, with its variants that change the loops (end of word, scores, min frequency)
MODEL_SETTINGS = [
    dict(model="bpe"),
    dict(model="bpe", end_of_word="symbol"),
    dict(model="bpe", end_of_word="suffix", pre_tokenizer="chars"),
    dict(model="bbpe"),
    dict(model="wordpiece", unk_token="[UNK]"),
    dict(model="wordpiece", unk_token="[UNK]", score="frequency"),
    dict(model="bpe", min_frequency=2),
]
CASES = [(s, rule) for s in MODEL_SETTINGS for rule in TIE_RULES]
CASE_IDS = ["-".join(str(v) for v in s.values()) + "-" + rule for s, rule in CASES]


def both_ways(words: WordCounts, config: TrainConfig):
    """(pure-Python trace, fast-path trace) as plain JSON (every field of every record)."""
    pure = trace_to_json(train(words, config, fast=False))
    fast = trace_to_json(train(words, config, fast=True))
    return pure, fast


def words_for(text: str, config: TrainConfig) -> WordCounts:
    config = config.resolved()
    return count_words(text, config.pre_tokenizer, config.normalizer, workers=1)


@pytest.mark.parametrize("module,path,extension", [(trainer_module, "TRAINER_PATH", "_merge"),
                                                   (unigram_module, "UNIGRAM_PATH", "_unigram")],
                         ids=["trainer", "unigram"])
def test_which_path_runs(capsys, module, path, extension):
    """Each trainer says which path it runs (printed: a run without `make fast` compares the
    pure-Python path with its own fallback, which proves less)."""
    said = getattr(module, path)
    with capsys.disabled():
        print(f"\n[{module.__name__}] {said}" + ("" if module.FAST_PATH else
              f" (core/fast/{extension} not built: each case compares the pure-Python path with its own "
              "fallback; `make fast` builds it)"))
    assert said in (f"compiled fast path (core/fast/{extension})", "pure-Python path")
    assert module.FAST_PATH == (module._fast is not None)


@pytest.mark.parametrize("setting,rule", CASES, ids=CASE_IDS)
def test_seed_examples_same_trace(setting, rule):
    for key, text in SEED_TEXTS.items():
        config = TrainConfig(vocab_size=400 if setting["model"] == "bbpe" else 60, tie_break=rule, **setting)
        pure, fast = both_ways(words_for(text, config), config)
        assert pure == fast, key
        assert pure["steps"], key   # something was merged: the comparison means something
    config = TrainConfig(vocab_size=300 if setting["model"] == "bbpe" else 30, tie_break=rule,
                         **{k: v for k, v in setting.items() if k != "pre_tokenizer"})
    pure, fast = both_ways(SEED_004, config)
    assert pure == fast


# Few symbols, so words repeat them (`a a a`, `a b a b`): the rebuild's edge cases.
words_strategy = st.lists(st.tuples(st.text(alphabet="abcé中 ", min_size=1, max_size=12), st.integers(1, 30)),
                          min_size=1, max_size=25)


@pytest.mark.parametrize("setting,rule", CASES, ids=CASE_IDS)
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pairs=words_strategy)
def test_generated_corpora_same_trace(setting, rule, pairs):
    pairs = [(w, c) for w, c in pairs if w.strip() or setting.get("pre_tokenizer") == "chars"]
    if not pairs:
        pairs = [("abab", 3)]
    words = WordCounts.from_pairs(pairs)
    config = TrainConfig(vocab_size=300 if setting["model"] == "bbpe" else 50, tie_break=rule, top_k=5, **setting)
    pure, fast = both_ways(words, config)
    assert pure == fast


@pytest.mark.parametrize("model", ["bpe", "bbpe", "wordpiece"])
def test_mixed_text_same_trace(model):
    rule = {"bpe": "first", "bbpe": "hf", "wordpiece": "lexical"}[model]   # each rule once, on real text
    config = TrainConfig(model=model, vocab_size=3000 if model == "bbpe" else 8000, tie_break=rule,
                         unk_token="[UNK]" if model == "wordpiece" else None)
    pure, fast = both_ways(words_for(mixed_text(500_000), config), config)
    assert len(pure["steps"]) > 500
    assert pure == fast


fractions = st.tuples(st.integers(1, 10**12), st.integers(1, 10**24))


@settings(max_examples=300, deadline=None)
@given(a=fractions, b=fractions, scale=st.integers(1, 1000))
def test_compiled_descending_orders_as_the_python_one(a, b, scale):
    """Likelihood heap entries hold the exact tiebreak made in C by the fast path and in Python by
    _Trainer._entry: both order the fractions alike, largest first, and compare with each other."""
    kinds = [trainer_module._Descending]   # and the compiled one where it is built (test_which_path_runs)
    if trainer_module._fast is not None:
        kinds.append(trainer_module._fast.Descending)
    same = (a[0] * scale, a[1] * scale)          # equal value, other terms: compared by value, not terms
    want_lt = a[0] * b[1] > b[0] * a[1]
    for x in kinds:
        for y in kinds:
            assert (x(a) < y(b)) == want_lt
            assert (x(a) == y(b)) == (a == b)
            assert not (x(a) < y(same)) and not (y(same) < x(a))


def _plain_entry(entry):
    """A heap entry with its exact tiebreak (either kind of Descending) as the fraction it holds."""
    return entry[:1] + (getattr(entry[1], "value", entry[1]),) + entry[2:]


@pytest.mark.parametrize("setting,rule", CASES, ids=CASE_IDS)
def test_the_start_builds_the_reference_queue(setting, rule):
    """The trainer's start on the fast path (heap_entries, pairs_by_symbol in C) builds the queue and
    the symbol -> pairs map the Python start builds, entry for entry, in the same heap order."""
    config = TrainConfig(vocab_size=2000, tie_break=rule, **setting).resolved()
    words = words_for(mixed_text(20_000), config)
    pure = trainer_module._Trainer(words, config, fast=False)
    fast = trainer_module._Trainer(words, config, fast=True)
    assert [_plain_entry(e) for e in fast.heap] == [_plain_entry(e) for e in pure.heap]
    assert len(pure.heap) > 300 and fast.symbol_pairs == pure.symbol_pairs
