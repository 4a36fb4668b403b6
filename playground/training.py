"""Cached training: count words and train each tokenizer once per (corpus, settings).

Why `st.cache_resource` and not `st.cache_data`: cache_data pickles what a function returns and
unpickles a fresh copy on every call; for a trace of thousands of steps that alone takes seconds
(docs/references.md, "Streamlit facts": 1.6 s for an 8,000-step trace), on every rerun and page switch.
cache_resource hands back the very object it stored. That is safe here because what we cache is
immutable: `Trace` and `WordCounts` are frozen dataclasses of tuples, shared by every session and
never modified. The caches are bounded (max_entries) so a long session cannot fill the memory.

Keys: the corpus digest (sha256 of the text or table, see state.Corpus) and the settings as a
tuple of plain values. The corpus object itself is passed as an underscore argument, which
Streamlit does not hash: hashing 4 MB of text on every call would cost more than the lookup saves.

Trap: a cached function must not update elements created outside it (Streamlit records element
calls to replay them on a cache hit, and cannot replay into a block it did not see). So the
progress bar is created inside the cached function and emptied when it finishes: while training
it shows progress, and on a cache hit the replay creates and empties it, showing nothing.

Not here: widgets and messages (pages/corpus.py), the algorithm (core/trainer.py).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from functools import lru_cache
from typing import TYPE_CHECKING, Optional

import streamlit as st

from core import presets
from core.corpus import CorpusStats, WordCounts, corpus_stats, count_words
from core.errors import PlaygroundError
from core.trainer import MODELS, Trace, TrainConfig, initial_vocab, train

from playground import views
from playground.state import MODEL_LABELS, Corpus, Results, Settings

if TYPE_CHECKING:
    import pandas as pd

MAX_TRACES = 24        # 8 trainings of the three tokenizers
MAX_WORD_COUNTS = 16


@lru_cache(maxsize=256)     # a page asks for each trace's key several times a run (asdict copies deeply)
def settings_key(config: TrainConfig) -> tuple:
    """A TrainConfig as a hashable tuple of plain values (the cache key's settings part)."""
    return tuple(sorted(asdict(config.resolved()).items()))


@st.cache_resource(max_entries=MAX_WORD_COUNTS, show_spinner=False)
def _cached_word_counts(corpus_digest: str, pre_tokenizer: str, normalizer: str, keep_newlines: bool,
                        _text: str) -> WordCounts:
    # workers=1, trap: while a page runs, Streamlit puts the page script in sys.modules["__main__"],
    # so each worker process that count_words spawns for a big text would re-run the page script
    # (bare mode, warnings, seconds lost). One process counted the KJV as fast on two cores.
    return count_words(_text, pre_tokenizer, normalizer, keep_newlines=keep_newlines, workers=1)


def corpus_words(corpus: Corpus, config: TrainConfig) -> WordCounts:
    """The words a trainer with `config` sees: a table as is, text counted with its pre-tokenizer
    (a preset's text through the presets' own cache, already filled when it was loaded)."""
    if corpus.word_counts is not None:
        return corpus.word_counts
    cfg = config.resolved()
    if corpus.preset is not None:
        return presets.words_for(presets.get_preset(corpus.preset), cfg)
    return _cached_word_counts(corpus.digest, cfg.pre_tokenizer, cfg.normalizer, cfg.keep_newlines,
                               corpus.text or "")


@dataclass(frozen=True)
class CorpusOverview:
    """What the Corpus page shows of a corpus as one trainer's settings count it: its figures, the
    share of its lines that are one long word (0.0 without text) and its most frequent words (a
    frame shared by every session: drawn, never changed)."""
    stats: CorpusStats
    unspaced_share: float
    top_words: "pd.DataFrame"
    more_words: bool        # top_words holds only the most frequent views.TABLE_ROWS


@st.cache_resource(max_entries=MAX_WORD_COUNTS, show_spinner=False)
def _cached_overview(corpus_digest: str, pre_tokenizer: str, normalizer: str, keep_newlines: bool,
                     _corpus: Corpus, _words: WordCounts) -> CorpusOverview:
    text = _corpus.text
    stats = views.table_stats(_words) if _corpus.is_table else corpus_stats(text, _words)
    top_words, more_words = views.word_frequency_frame(_words)
    return CorpusOverview(stats, views.unspaced_share(text) if text else 0.0, top_words, more_words)


def corpus_overview(corpus: Corpus, config: TrainConfig) -> CorpusOverview:
    """The Corpus page's figures, hint and word table for `corpus` counted as `config` counts it,
    worked out once per (corpus, how its words are counted): every run of that page drew them anew,
    ~110 ms of its ~250 on the KJV (the text's lines split, every word's characters gathered, 2,000
    rows sorted and framed), at each click there and each visit. Raises PlaygroundError as
    corpus_words does."""
    cfg = config.resolved()
    return _cached_overview(corpus.digest, cfg.pre_tokenizer, cfg.normalizer, cfg.keep_newlines,
                            corpus, corpus_words(corpus, cfg))


@st.cache_resource(max_entries=MAX_TRACES, show_spinner=False)
def _cached_trace(corpus_digest: str, settings: tuple, _words: WordCounts, _label: str) -> Trace:
    config = TrainConfig(**dict(settings))
    bar = st.progress(0.0, text=f"Training {_label}…")

    def report(done: int, planned: int) -> None:
        bar.progress(min(1.0, done / max(planned, 1)), text=f"Training {_label}: {done:,} of {planned:,} merges")

    try:
        return train(_words, config, progress=report)
    finally:
        bar.empty()


def train_one(corpus: Corpus, config: TrainConfig, label: Optional[str] = None) -> Trace:
    """Train (or fetch from the cache) one tokenizer; raises PlaygroundError on bad input."""
    cfg = config.resolved()
    words = corpus_words(corpus, cfg)
    return _cached_trace(corpus.digest, settings_key(cfg), words, label or MODEL_LABELS[cfg.model])


def train_all(corpus: Corpus, settings: Settings) -> Results:
    """All three trainers on one corpus. Any PlaygroundError propagates before anything is stored,
    so the caller keeps its previous results."""
    traces = {}
    for m in MODELS:
        try:
            traces[m] = train_one(corpus, settings.for_model(m))
        except PlaygroundError as e:   # say which trainer: the three share one button
            raise type(e)(f"{MODEL_LABELS[m]}: {e}") from None
    return Results(corpus_name=corpus.name, corpus_digest=corpus.digest,
                   settings=Settings.from_configs({m: settings.for_model(m).resolved() for m in MODELS}),
                   **traces)


@st.cache_resource(max_entries=64, show_spinner=False)
def _cached_base_size(corpus_digest: str, settings: tuple, _words: WordCounts) -> int:
    cfg = TrainConfig(**dict(settings))
    specials, alphabet, _ = initial_vocab(_words, cfg)
    return len(specials) + len(alphabet)


# What a trainer's alphabet and special tokens do not depend on: keyed without them, a new vocabulary
# size (typed on the Corpus page, a run each) does not split every word again (~100 ms on the KJV).
NOT_IN_BASE = ("vocab_size", "score", "tie_break", "min_frequency", "max_merges", "top_k")


def base_size(corpus: Corpus, config: TrainConfig) -> int:
    """Tokens a trainer has before any merge on this corpus: special tokens and its alphabet
    (the smallest vocabulary size it accepts). Cached per (corpus, the settings it depends on).
    Raises PlaygroundError when the corpus cannot be counted with these settings."""
    cfg = config.resolved()
    defaults = TrainConfig()
    keyed = replace(cfg, **{name: getattr(defaults, name) for name in NOT_IN_BASE})
    return _cached_base_size(corpus.digest, settings_key(keyed), corpus_words(corpus, cfg))


def fit_vocab_sizes(corpus: Corpus, settings: Settings, merges: int) -> tuple[Settings, dict]:
    """Settings whose vocabulary sizes leave room for `merges` merges where they did not
    (base + merges); and {model: (old, new)} for those changed."""
    changed = {}
    for m in MODELS:
        cfg = settings.for_model(m)
        base = base_size(corpus, cfg)
        if cfg.vocab_size <= base:
            new = base + merges
            changed[m] = (cfg.vocab_size, new)
            settings = settings.with_model(m, replace(cfg, vocab_size=new))
    return settings, changed
