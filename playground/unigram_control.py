"""Unigram in the app: its settings on the Corpus page, its cached training, the Unigram page's
steps and callbacks.

Unigram is opt-in ("Train Unigram too" on the Corpus page): its vocabulary size only makes sense
between the corpus's characters and its seed pieces, which for the seeds' tiny corpora is a
narrow window (seed 001: 31 to 80), so training it by default beside the three would fail for
most presets. When it is on, the Train button trains it first (it fails fast and clearly on a
size outside the window, before anything is replaced), then the three.

Caches, as training.py's: one trace per (corpus, settings), shared by every session
(UnigramTrace is a frozen dataclass of tuples); the steps and the tokenizer built once per trace.

The page's step is drawn by the browser (browser_stepper.py, as on the Merges page): apply_told
takes what it told, show_stepper sends it the steps it lacks.

Not here: the algorithm (core/unigram.py), the pure views (unigram_view.py), the page (pages/unigram.py).
"""
from __future__ import annotations

from dataclasses import asdict, replace
from typing import Callable, Optional

import streamlit as st

from core.errors import PlaygroundError
from core.pipeline import NORMALIZERS, PRE_TOKENIZERS
from core.trainer import TrainConfig
from core.unigram import UnigramConfig, UnigramTokenizer, UnigramTrace, size_limits, train_unigram
from playground import browser_stepper, charts, state, stepper, training, unigram_view
from playground.state import UNIGRAM_LABEL, Corpus, UnigramKeys as K, UnigramResult, UnigramSettings

PRE_TOKENIZERS_UNIGRAM = tuple(p for p in PRE_TOKENIZERS if p != "gpt2")   # it works on characters
HELP = {
    "on": "Unigram learns the other way round: it starts from many candidate pieces (every character and "
          "the frequent substrings) and prunes the least useful until the size is reached. Its vocabulary "
          "size must lie between the corpus's characters and its candidate pieces.",
    "vocab_size": "Pieces in the final vocabulary, special and unknown tokens included. The corpus sets the "
                  "limits: at least its characters, at most its seed pieces (shown below once a corpus is loaded).",
    "shrinking_factor": "Each pruning keeps this share of the pieces (Hugging Face's default 0.75).",
    "n_sub_iterations": "EM steps before each pruning (Hugging Face's default 2).",
    "unk_token": "Added as a special token; what encoding emits for a character the vocabulary lacks. "
                 "Empty: none.",
}


# ---------------------------------------------------------------- words, limits, the trace

def words_config(config: UnigramConfig) -> TrainConfig:
    """The counting settings of a Unigram config, as the corpus counter takes them."""
    return TrainConfig(model="bpe", pre_tokenizer=config.pre_tokenizer, normalizer=config.normalizer).resolved()


def _settings_key(config: UnigramConfig) -> tuple:
    return tuple(sorted((k, tuple(v) if isinstance(v, (list, tuple)) else v) for k, v in asdict(config).items()))


@st.cache_resource(max_entries=64, show_spinner=False)
def _cached_limits(corpus_digest: str, settings: tuple, _words) -> tuple[int, int]:
    return size_limits(_words, UnigramConfig(**dict(settings)))


def limits(corpus: Corpus, config: UnigramConfig) -> tuple[int, int]:
    """(smallest, largest) vocabulary size this corpus accepts; raises PlaygroundError."""
    cfg = config.resolved()
    return _cached_limits(corpus.digest, _settings_key(cfg), training.corpus_words(corpus, words_config(cfg)))


@st.cache_resource(max_entries=8, show_spinner=False)
def _cached_trace(corpus_digest: str, settings: tuple, _words) -> UnigramTrace:
    bar = st.progress(0.0, text=f"Training {UNIGRAM_LABEL}…")

    def report(done: int, planned: int) -> None:
        bar.progress(min(1.0, done / max(planned, 1)), text=f"Training {UNIGRAM_LABEL}: EM step {done:,}")

    try:
        return train_unigram(_words, UnigramConfig(**dict(settings)), progress=report)
    finally:
        bar.empty()


def train(corpus: Corpus, config: UnigramConfig) -> UnigramResult:
    """Train (or fetch from the cache); raises PlaygroundError, prefixed "Unigram: ", on bad input."""
    try:
        cfg = config.resolved()
        trace = _cached_trace(corpus.digest, _settings_key(cfg), training.corpus_words(corpus, words_config(cfg)))
    except PlaygroundError as e:
        raise type(e)(f"{UNIGRAM_LABEL}: {e}") from None
    return UnigramResult(corpus.name, corpus.digest, trace)


@st.cache_resource(max_entries=16, show_spinner=False)
def _cached_steps(result_key: str, settings: tuple, _trace: UnigramTrace) -> tuple:
    return unigram_view.iterations(_trace)


def steps_of(result: UnigramResult) -> tuple[unigram_view.Iteration, ...]:
    return _cached_steps(result.cache_key, _settings_key(result.trace.config), result.trace)


@st.cache_resource(max_entries=48, show_spinner=False)
def _kept_parts(result_key: str, settings: tuple, k: int, word: Optional[str],
                _make: Callable[[], dict[str, str]]) -> dict[str, str]:
    return _make()


def trace_key(result: UnigramResult) -> str:
    """The shared caches' key of a Unigram trace: its corpus (or file) and its settings."""
    return f"{result.cache_key}|{_settings_key(result.trace.config)!r}"


def kept_parts(result: UnigramResult, k: int, word: Optional[str],
               make: Callable[[], dict[str, str]]) -> dict[str, str]:
    """Step k's HTML for the page's hosts with `word`'s lattice, `make()`, kept for every session per
    (trace, step, word): the page's whole run (opened again, a word chosen back) draws the step and
    its window of five anew, ~20-30 ms each on the KJV (the best of ~25,000 pieces picked, the word's
    lattice laid out). A fresh dict each call."""
    return dict(_kept_parts(result.cache_key, _settings_key(result.trace.config), k, word, make))


def curves_chart(result: UnigramResult):
    """The curves' figure (charts.unigram_curves): the same at every step, built once per trace
    and shared (Streamlit only reads it); the step's mark is drawn over it."""
    return _cached_curves(result.cache_key, _settings_key(result.trace.config), result)


@st.cache_resource(max_entries=16, show_spinner=False)
def _cached_curves(result_key: str, settings: tuple, _result: UnigramResult):
    return charts.unigram_curves(steps_of(_result))


@st.cache_resource(max_entries=16, show_spinner=False)
def _cached_tokenizer(result_key: str, settings: tuple, _trace: UnigramTrace) -> UnigramTokenizer:
    return UnigramTokenizer.from_trace(_trace, name="unigram")


def tokenizer(result: UnigramResult) -> UnigramTokenizer:
    """The trained Unigram tokenizer (shared by every session that trained the same)."""
    return _cached_tokenizer(result.cache_key, _settings_key(result.trace.config), result.trace)


# ---------------------------------------------------------------- the Corpus page's settings

def current_settings() -> UnigramSettings:
    """Read the Unigram widgets (seeded from state: they lose their values on other pages) and write
    them back every run.
    A value the config refuses keeps the stored config (the error shows when training)."""
    stored = state.get_unigram_settings()
    c = stored.config
    values = {K.ON: stored.on, K.VOCAB_SIZE: c.vocab_size, K.PRE_TOKENIZER: c.pre_tokenizer,
              K.NORMALIZER: c.normalizer, K.SHRINKING: c.shrinking_factor, K.SUB_ITERATIONS: c.n_sub_iterations,
              K.UNK_TOKEN: c.unk_token or ""}
    read = {key: state.widget_value(key, value) for key, value in values.items()}
    for key, value in read.items():
        state.show_widget(key, value)   # every run, as the three trainers' settings (pages/corpus.py says why)
    config = replace(c, vocab_size=int(read[K.VOCAB_SIZE]), pre_tokenizer=read[K.PRE_TOKENIZER],
                     normalizer=read[K.NORMALIZER], shrinking_factor=float(read[K.SHRINKING]),
                     n_sub_iterations=int(read[K.SUB_ITERATIONS]),
                     unk_token=str(read[K.UNK_TOKEN]).strip() or None)
    settings = UnigramSettings(on=bool(read[K.ON]), config=config)
    state.set_unigram_settings(settings)
    return settings


def _fit(size: int) -> None:
    state.set_widget(K.VOCAB_SIZE, int(size))


def settings_widgets(corpus: Optional[Corpus], settings: UnigramSettings) -> None:
    """The Unigram box of the Corpus page: the opt-in toggle, its settings, the corpus's limits."""
    st.toggle(f"Train {UNIGRAM_LABEL} too", key=K.ON, help=HELP["on"])
    if not settings.on:
        st.caption("Off: the Train button trains BPE, byte-level BPE and WordPiece.")
        return
    row = st.container(horizontal=True, gap="medium")
    with row:
        st.number_input("Vocabulary size", min_value=1, step=1, key=K.VOCAB_SIZE, help=HELP["vocab_size"], width=170)
        st.selectbox("Pre-tokenizer", PRE_TOKENIZERS_UNIGRAM, key=K.PRE_TOKENIZER, width=170)
        st.selectbox("Normalizer", NORMALIZERS, key=K.NORMALIZER, width=170)
        st.number_input("Shrinking factor", min_value=0.05, max_value=0.95, step=0.05, key=K.SHRINKING,
                        help=HELP["shrinking_factor"], width=170)
        st.number_input("EM steps a round", min_value=1, max_value=10, step=1, key=K.SUB_ITERATIONS,
                        help=HELP["n_sub_iterations"], width=170)
        st.text_input("Unknown token", key=K.UNK_TOKEN, help=HELP["unk_token"], width=170)
    if corpus is None:
        return
    try:
        low, high = limits(corpus, settings.config)
    except PlaygroundError as e:
        st.caption(f"Cannot count this corpus with these settings: {e}.")
        return
    size = settings.config.vocab_size
    if high <= low:
        st.warning(f"This corpus is too small to train {UNIGRAM_LABEL} on: it gives no piece beyond its "
                   f"{low:,} characters and special tokens, so there is nothing to learn or prune. Use a longer text.",
                   icon=":material/warning:")
        return
    if low <= size <= high:
        st.caption(f"This corpus accepts a {UNIGRAM_LABEL} vocabulary of {low:,} to {high:,} pieces.")
        return
    st.warning(f"{UNIGRAM_LABEL}: a vocabulary of {size:,} is outside what this corpus accepts: at least {low:,} "
               f"(its characters and special tokens), at most {high:,} (its seed pieces).",
               icon=":material/warning:")
    fit = min(max(size, low), high)
    st.button(f"Use {fit:,} pieces", key=K.FIT, on_click=_fit, args=(fit,), icon=":material/build:")


# ---------------------------------------------------------------- the Unigram page's steps

def get_view() -> state.UnigramView:
    return state.get_unigram_view()


def set_view(**changes) -> None:
    state.set_unigram_view(replace(state.get_unigram_view(), **changes))


def last_step(result: UnigramResult) -> int:
    return len(steps_of(result)) - 1


def current_step(result: UnigramResult) -> int:
    return stepper.clamp_step(get_view().step, last_step(result))


def go_to(step: int) -> None:
    result = state.get_unigram()
    if result is None:
        return
    last = last_step(result)
    step = stepper.clamp_step(step, last)
    view = get_view()
    set_view(step=step, playing=view.playing and step < last)


SLIDER_HELP = "Step 0: the seed pieces; then each EM step and each pruning; the last: the final vocabulary."


def trace_digest(result: UnigramResult) -> str:
    """The trace in view, as the page names it in its tells."""
    return browser_stepper.digest((result.cache_key, _settings_key(result.trace.config)))


def apply_told(result: UnigramResult) -> bool:
    """Take the page's newest tell (browser_stepper.js): its step, play state and speed, when it
    was for this trace. Returns whether a tell was taken (the page has written its step into the
    address: write_link)."""
    tell = browser_stepper.take(K.STEPPER, get_view().told, trace_digest(result))
    if tell is None:
        return False
    if tell.taken:
        if tell.step is not None:
            go_to(tell.step)
        changes: dict = {"playing": tell.playing and current_step(result) < last_step(result)}
        if tell.speed is not None:
            changes["speed"] = tell.speed
        set_view(**changes)
    set_view(told=tell.seq)
    return tell.taken


# ---------------------------------------------------------------- the link (query parameters)

URL_KEYS = ("step", "word")
MAX_URL_WORD = 200       # a longer word in a link is ignored


def parse_link(params: dict[str, str]) -> tuple[dict, list[str]]:
    """The page's link: {"step": int, "word": str} as far as usable, and a message for each thing
    ignored. parse_link({"step": "3", "word": "the"}) == ({"step": 3, "word": "the"}, [])"""
    out: dict = {}
    msgs: list[str] = []
    unknown = [k for k in params if k not in URL_KEYS]
    if unknown:
        msgs.append("Ignored unknown link parameter" + ("s " if len(unknown) > 1 else " ")
                    + ", ".join(stepper.quote_value(k) for k in unknown[:5]) + ".")
    if "step" in params:
        step, msg = stepper.link_step(str(params["step"]).strip())
        if msg:
            msgs.append(msg)
        else:
            out["step"] = step
    if "word" in params:
        word = str(params["word"]).strip()
        if 0 < len(word) <= MAX_URL_WORD:
            out["word"] = word
        else:
            msgs.append(f"Ignored word={stepper.quote_value(params['word'])}: a word of 1 to {MAX_URL_WORD} "
                        "characters.")
    return out, msgs


def open_link(result: UnigramResult) -> list[str]:
    """Apply the address's parameters once (when they differ from what this page last read or
    wrote): the step (clamped to the trace) and the lattice's word. Returns what was ignored or
    moved, to say."""
    params = state.link_to_open(get_view().url)
    if params is None:
        return []
    link, msgs = parse_link(params)
    changes: dict = {"url": tuple(sorted(params.items()))}
    if "step" in link:
        step, msg = stepper.clamp_link_step(link["step"], last_step(result))
        if msg:
            msgs.append(msg)
        changes["step"] = step
    if "word" in link:
        changes["word"] = link["word"]
    set_view(**changes)
    return msgs


def write_link(result: UnigramResult, told: bool = False) -> None:
    """The view's address: the step and a chosen word (browser_stepper.write_link: a told step is
    the stepper's to write)."""
    view = get_view()
    params = {"step": str(current_step(result))}
    if view.word:
        params["word"] = view.word
    url = browser_stepper.write_link(params, view.url, told)
    if view.url != url:
        set_view(url=url)


def show_stepper(result: UnigramResult, word: Optional[str], parts_at) -> None:
    """The stepper with the window of steps the page lacks: `parts_at(k)` is step k's host key ->
    HTML (pages/unigram.py: step_parts); a step's HTML depends on the trace and the lattice's word."""
    view = get_view()
    browser_stepper.show(K.STEPPER, view=browser_stepper.digest((trace_digest(result), word)),
                         trace=trace_digest(result), current=current_step(result), last=last_step(result),
                         playing=view.playing, speed=view.speed, last_told=view.told, parts_at=parts_at,
                         slider_help=SLIDER_HELP)


def on_word() -> None:
    word = state.widget_value(K.WORD)
    set_view(word=str(word).strip() if word else None)


def lattice_choice(result: UnigramResult, corpus: Optional[Corpus]) -> tuple[tuple[str, ...], Optional[str]]:
    """(the words offered for the lattice: lattice_words, the word shown unless one is chosen: the
    one with the most segmentations under the seed pieces). The same at every step: worked out once
    per trace and corpus and shared (sorting the corpus's words and reading its seed pieces took
    most of a step's run on the KJV)."""
    same_corpus = corpus is not None and corpus.digest == result.corpus_digest
    return _cached_lattice_choice(result.cache_key, _settings_key(result.trace.config), same_corpus,
                                  result, corpus if same_corpus else None)


@st.cache_resource(max_entries=16, show_spinner=False)
def _cached_lattice_choice(result_key: str, settings: tuple, same_corpus: bool, _result: UnigramResult,
                           _corpus: Optional[Corpus]) -> tuple[tuple[str, ...], Optional[str]]:
    words = tuple(lattice_words(_result, _corpus))
    steps = steps_of(_result)
    return words, unigram_view.richest_word(steps[0].pieces, words, _result.trace.config.metaspace)


def lattice_words(result: UnigramResult, corpus: Optional[Corpus]) -> list[str]:
    """Short words to offer for the lattice: the corpus's most frequent ones (counted as the
    trainer counted them), or, when the corpus has changed since, the final pieces that are
    whole words."""
    if corpus is not None and corpus.digest == result.corpus_digest:
        try:
            words = training.corpus_words(corpus, words_config(result.trace.config))
            return unigram_view.short_words(words.words, words.counts)
        except PlaygroundError:
            pass
    marker = unigram_view.METASPACE
    whole = [p[len(marker):] for p, _ in result.trace.vocab if p.startswith(marker) and len(p) > len(marker)]
    return unigram_view.short_words(whole, [1] * len(whole))
