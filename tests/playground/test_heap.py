"""playground/heap.py: results are frozen out of the collector's full passes, and freezing them
can keep nothing alive once they are replaced, because they hold no reference cycles (reference
counting alone frees them: checked here with the collector switched off)."""
import gc
import weakref

import pytest

from core.corpus import WordCounts
from core.trainer import MODELS, TrainConfig, train
from playground import heap, state
from playground.state import Results, Settings

WORDS = WordCounts.from_pairs([("low", 5), ("lower", 2), ("newest", 6), ("widest", 3), ("新しい", 2), ("🙂🙂", 1)])


@pytest.fixture
def collector_restored():
    yield
    gc.enable()


def _config(model: str) -> TrainConfig:
    return TrainConfig(model=model, vocab_size=300 if model == "bbpe" else 60)   # byte-level: 256 to begin with


def _passed_over(obj) -> bool:
    """Whether the collector's passes look at `obj` (a frozen object is in none of its generations)."""
    return any(o is obj for g in range(3) for o in gc.get_objects(g))


def _results(words: WordCounts = WORDS) -> Results:
    traces = {m: train(words, _config(m)) for m in MODELS}
    settings = Settings.from_configs({m: t.config for m, t in traces.items()})
    return Results(corpus_name="tiny", corpus_digest=words.digest(), settings=settings, **traces)


@pytest.mark.parametrize("model", MODELS)
def test_a_trace_is_freed_without_the_collector(model, collector_restored):
    gc.disable()
    trace = train(WORDS, _config(model))
    assert trace.steps, "the tiny corpus must give some merges, or the test shows nothing"
    gone = weakref.ref(trace)
    del trace
    assert gone() is None, "a reference cycle keeps the trace alive: freezing it would leak it"


def test_results_and_their_corpus_are_freed_without_the_collector(collector_restored):
    gc.disable()
    words = WordCounts.from_pairs([("a", 1), ("ab", 2), ("abc", 3)])
    results = _results(words)
    corpus = state.Corpus.from_table("table", words, "test")
    gone = [weakref.ref(x) for x in (results, results.bbpe, corpus)]
    del results, corpus
    assert [g() for g in gone] == [None, None, None]


def test_settle_freezes_what_is_alive_and_keeps_the_collector_on():
    try:
        kept = [[1], [2]]
        assert _passed_over(kept[0])
        heap.settle()
        assert gc.isenabled() and gc.get_freeze_count() > 0
        assert not _passed_over(kept[0]) and not _passed_over(kept)
        later = [3]
        assert _passed_over(later)
    finally:
        gc.unfreeze()


def test_only_results_worth_a_pass_are_settled(monkeypatch):
    calls = []
    monkeypatch.setattr(heap, "settle", lambda: calls.append(1))
    small = _results()
    assert sum(len(t.steps) for t in small.traces().values()) < heap.WORTH_STEPS
    heap.settle_for(small)
    assert calls == []
    monkeypatch.setattr(heap, "WORTH_STEPS", 1)
    heap.settle_for(small)
    assert calls == [1]
    heap.settle_for(None)           # no results (an empty session loaded): nothing to settle
    assert calls == [1]
