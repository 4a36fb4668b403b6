"""core/trace_io.py: a Trace survives JSON exactly (fractions, NamedTuples, word counts), and
anything that is not a version-1 trace is refused with a TokenizerFileError, never a traceback."""
import copy
import json
from dataclasses import fields, replace
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from core.corpus import WordCounts, count_words
from core.errors import TokenizerFileError
from core.trace_io import (TRACE_VERSION, fraction_from_json, fraction_to_json, trace_from_json,
                           trace_to_json)
from core.trainer import Candidate, ChangedWord, TrainConfig, train

SEED_004 = WordCounts(("low", "lower", "newest", "widest"), (5, 2, 6, 3))
MIXED = "The quick brown fox, the lazy dog. 我喜欢吃苹果 café naïve 😀👍🏽 lowest lower newest widest\n" * 3

CONFIGS = [   # vocab_size here: merges beyond the initial vocabulary (see _train)
    TrainConfig(model="wordpiece", vocab_size=40),
    TrainConfig(model="wordpiece", vocab_size=40, score="frequency", tie_break="hf", unk_token="[UNK]"),
    TrainConfig(model="bpe", vocab_size=30, end_of_word="symbol"),
    TrainConfig(model="bpe", vocab_size=30, end_of_word="suffix", tie_break="lexical", min_frequency=2),
    TrainConfig(model="bbpe", vocab_size=60, special_tokens=("<|endoftext|>",), max_merges=30, top_k=3),
    TrainConfig(model="bpe", vocab_size=40, pre_tokenizer="gpt2", normalizer="nfkc", keep_newlines=True),
]


def _train(words, config, merges):
    """Train with a vocabulary of the initial vocabulary plus `merges`."""
    from core.trainer import initial_vocab
    specials, alphabet, _ = initial_vocab(words, config.resolved())
    return train(words, replace(config, vocab_size=len(specials) + len(alphabet) + merges))


def round_trip(trace):
    return trace_from_json(json.loads(json.dumps(trace_to_json(trace), ensure_ascii=False)))


def assert_identical(a, b):
    """Equal, and of the same types all the way down (tuples stay tuples, NamedTuples stay so)."""
    assert a == b
    assert repr(a) == repr(b)
    for sa, sb in zip(a.steps, b.steps):
        assert all(type(x) is Candidate for x in sb.candidates)
        assert all(type(x) is ChangedWord for x in sb.changed_words)
        assert type(sa.score) is type(sb.score)
        for ca, cb in zip(sa.candidates, sb.candidates):
            assert type(ca.score) is type(cb.score)


def test_seed_004_wordpiece_scores_are_exact_fractions():
    trace = train(SEED_004, TrainConfig(model="wordpiece", vocab_size=15))
    data = trace_to_json(trace)
    assert [s["token"] for s in data["steps"]] == ["wi", "wid", "lo", "##st"]
    assert [s["score"] for s in data["steps"]] == ["1/3", "1/3", "1/7", "1/9"]
    back = round_trip(trace)
    assert_identical(trace, back)
    assert back.steps[2].score == Fraction(1, 7)


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.model}-{c.end_of_word}-{c.score}-{c.tie_break}")
def test_trained_traces_round_trip_exactly(config):
    cfg = config.resolved()
    words = count_words(MIXED, cfg.pre_tokenizer, cfg.normalizer, keep_newlines=cfg.keep_newlines)
    trace = _train(words, config, config.vocab_size)
    assert trace.steps
    assert_identical(trace, round_trip(trace))


def test_every_trace_field_is_stored():
    from core.trace_io import HANDLED_TRACE_FIELDS
    from core.trainer import Trace
    assert {f.name for f in fields(Trace)} <= HANDLED_TRACE_FIELDS, "Trace gained a field: store it in trace_io"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(words=st.lists(st.tuples(st.text(alphabet="abcé我 ", min_size=1, max_size=7), st.integers(1, 9)),
                      min_size=1, max_size=8),
       model=st.sampled_from(["bpe", "bbpe", "wordpiece"]), rule=st.sampled_from(["first", "hf", "lexical"]),
       score=st.sampled_from(["likelihood", "frequency"]), extra=st.integers(0, 30))
def test_any_trace_round_trips(words, model, rule, score, extra):
    wc = WordCounts.from_pairs([(w, c) for w, c in words if w.strip()] or [("ab", 1)])
    trace = _train(wc, TrainConfig(model=model, score=score, tie_break=rule), extra)
    assert_identical(trace, round_trip(trace))


def test_fractions():
    assert fraction_to_json(Fraction(2, 6)) == "1/3"
    assert fraction_to_json(Fraction(9)) == "9/1"
    assert fraction_to_json(None) is None
    assert fraction_from_json("1/3") == Fraction(1, 3)
    assert fraction_from_json("-4/6") == Fraction(-2, 3)
    for bad in ("1/0", "1", "0.5", "a/b", " 1/3", "1/ 3", "+1/3", "1_0/3", 0.5, 3, ["1", "3"], "١/٣"):
        with pytest.raises(TokenizerFileError):
            fraction_from_json(bad)


# ---------------------------------------------------------------- refusing bad data

def _good():
    return trace_to_json(train(SEED_004, TrainConfig(model="wordpiece", vocab_size=15)))


def _mutations():
    def set_(path, value):
        def f(d):
            obj = d
            for p in path[:-1]:
                obj = obj[p]
            obj[path[-1]] = value
        return f

    def delete(path):
        def f(d):
            obj = d
            for p in path[:-1]:
                obj = obj[p]
            del obj[path[-1]]
        return f
    return {
        "wrong version": set_(["version"], TRACE_VERSION + 1),
        "version true": set_(["version"], True),
        "version as a float": set_(["version"], float(TRACE_VERSION)),
        "foreign format": set_(["format"], "something-else"),
        "no steps": delete(["steps"]),
        "steps not a list": set_(["steps"], {"0": 1}),
        "step index out of order": set_(["steps", 1, "index"], 5),
        "id out of range": set_(["steps", 0, "id"], 999),
        "token not its id": set_(["steps", 0, "token"], "zz"),
        "bool as count": set_(["steps", 0, "count"], True),
        "float count": set_(["steps", 0, "count"], 3.0),
        "negative count": set_(["steps", 0, "count"], -1),
        "score as float": set_(["steps", 0, "score"], 0.333),
        "zero denominator": set_(["steps", 0, "score"], "1/0"),
        "candidate short": set_(["steps", 0, "candidates", 0], [["w", "##i"], 3]),
        "changed word id out of range": set_(["steps", 0, "changed_words", 0, 0], [0, 10_000]),
        "changed word ids as text": set_(["steps", 0, "changed_words", 0, 1], "abc"),
        "vocab with a number": set_(["vocab", 3], 7),
        "vocab not starting with alphabet": set_(["vocab", 0], "q"),
        "words counts mismatch": set_(["words", "counts"], [1]),
        "unknown model": set_(["config", "model"], "unigram"),
        "unknown setting": set_(["config", "colour"], "red"),
        "vocab size text": set_(["config", "vocab_size"], "15"),
        "keep_newlines number": set_(["config", "keep_newlines"], 1),
        "final token row": set_(["final_tokens", 0], ["a"]),
        "step is a list": set_(["steps", 0], [1, 2, 3]),
        "missing first_word": delete(["steps", 0, "first_word"]),
        # numbers too large for the pages to draw (Plotly, pandas and float() refused them)
        "huge total tokens": set_(["steps", 0, "total_tokens"], 10 ** 30),
        "huge initial total": set_(["initial_total_tokens"], 10 ** 30),
        "huge final token count": set_(["final_tokens", 0, 1], 10 ** 30),
        "huge word count": set_(["words", "counts", 0], 10 ** 30),
        "huge step count": set_(["steps", 0, "count"], 10 ** 30),
        "huge candidate count": set_(["steps", 0, "candidates", 0, 1], 10 ** 30),
        "huge changed word count": set_(["steps", 0, "changed_words", 0, 2], 10 ** 30),
        "huge score numerator": set_(["steps", 0, "score"], "1" + "0" * 400 + "/1"),
        "huge score denominator": set_(["steps", 0, "score"], "1/1" + "0" * 400),
        "huge candidate score": set_(["steps", 0, "candidates", 0, 2], "1" + "0" * 30 + "/3"),
    }


@pytest.mark.parametrize("name", sorted(_mutations()))
def test_bad_trace_data_is_refused_with_a_message(name):
    data = copy.deepcopy(_good())
    _mutations()[name](data)
    with pytest.raises(TokenizerFileError) as err:
        trace_from_json(data)
    assert "\n" not in str(err.value) and len(str(err.value)) < 300


def test_numbers_up_to_the_bound_are_read_and_beyond_it_refused():
    from core.limits import MAX_TRACE_NUMBER
    data = copy.deepcopy(_good())
    data["initial_total_tokens"] = MAX_TRACE_NUMBER
    data["steps"][0]["score"] = f"-{MAX_TRACE_NUMBER}/{MAX_TRACE_NUMBER ** 2 - 1}"
    trace = trace_from_json(data)
    assert trace.initial_total_tokens == MAX_TRACE_NUMBER
    assert trace.steps[0].score == Fraction(-MAX_TRACE_NUMBER, MAX_TRACE_NUMBER ** 2 - 1)
    for path, value in ((["initial_total_tokens"], MAX_TRACE_NUMBER + 1),
                        (["steps", 0, "score"], f"{MAX_TRACE_NUMBER + 1}/1"),
                        (["steps", 0, "score"], f"1/{MAX_TRACE_NUMBER ** 2 + 1}")):
        bad = copy.deepcopy(_good())
        target = bad
        for p in path[:-1]:
            target = target[p]
        target[path[-1]] = value
        with pytest.raises(TokenizerFileError, match="too large"):
            trace_from_json(bad)


@pytest.mark.parametrize("data", [None, [], "trace", 42, {"format": "tokenizer-playground-trace"},
                                  {"model": {"type": "BPE"}}])
def test_foreign_json_is_refused(data):
    with pytest.raises(TokenizerFileError):
        trace_from_json(data)


def test_notes_about_the_input_round_trip():
    from core.trainer import Trace
    if "notes" not in {f.name for f in fields(Trace)}:
        pytest.skip("this Trace has no notes")
    from core.limits import MAX_TRAINING_WORD_CHARS as MAX_WORD_CHARS
    words = WordCounts(("ab" * MAX_WORD_CHARS, "abc"), (1, 2))
    trace = train(words, TrainConfig(model="bpe", vocab_size=10, max_merges=3))
    assert trace.notes
    assert_identical(trace, round_trip(trace))
