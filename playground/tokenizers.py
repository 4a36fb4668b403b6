"""Tokenizer objects shared by every session, and the encodings a session keeps.

Tokenizers are immutable and built once per process (st.cache_resource): a pretrained vocabulary
per name, a trained tokenizer per (trace, step) (its word cache and greedy tables fill as it
encodes, for everyone). The Compare and Inspect pages get theirs here.

    pretrained(name), installed_pretrained()         offline pretrained vocabularies
    unavailable_pretrained()                         those whose package is missing, and how to install it
    trained(results, trace, upto=None)               a trained tokenizer, at its last step or `upto`
    trained_vocabulary(...), pretrained_vocabulary(...)  vocabulary tables (Inspect)
    session_vocabulary(tok)                          an imported tokenizer's table, in this session only
    encode_kept(choices, text)                       Compare's encodings, not redone for the same text
    box_memo(tokenizer, *view)                       Compare's token boxes, built once per (id, count, ...)
    pretrained_tax(name), trained_tax(...), trained_curve(...)   the Token tax page's counts, once per process

Not here: the tokenizers themselves (core/), what the pages draw (compare.py, inspect.py, spans.py).
"""
from __future__ import annotations

from typing import Callable, Optional

import streamlit as st

from core.encoders import TrainedTokenizer
from core.errors import PlaygroundError
from core.pretrained import load_pretrained, pretrained_names, pretrained_unavailable
from playground import compare, state
from playground import inspect as ins
from playground.state import CompareKeys, InspectKeys, Results
from playground.training import settings_key


@st.cache_resource(max_entries=8, show_spinner="Loading the pretrained vocabulary…")
def pretrained(name: str):
    return load_pretrained(name)


@st.cache_data(show_spinner=False)
def installed_pretrained() -> list[str]:
    return pretrained_names()


@st.cache_data(show_spinner=False)
def unavailable_pretrained() -> list[tuple[str, str]]:
    # once per process, as installed_pretrained: looking for every package's files (importlib's
    # find_spec, ~90 of them) was a few ms of every Compare run, that is of every pause in typing
    return pretrained_unavailable()


@st.cache_resource(max_entries=32, show_spinner=False)
def _trained(results_key: str, settings: tuple, upto: Optional[int], _trace) -> TrainedTokenizer:
    # keyed like training._cached_trace: the same (corpus, settings) is the same trace; a trace
    # loaded from a session file has its own key (state.Results.cache_key)
    return TrainedTokenizer.from_trace(_trace, upto=upto)


def trained(results: Results, trace, upto: Optional[int] = None, encoder: Optional[str] = None) -> TrainedTokenizer:
    """The tokenizer of a trained trace (after all its merges, or after `upto`), encoding with
    `encoder` (None: the model's default)."""
    base = _trained(results.cache_key, settings_key(trace.config), upto, trace)
    if encoder is None:
        return base
    return _with_encoder(results.cache_key, settings_key(trace.config), upto, encoder, base)


@st.cache_resource(max_entries=32, show_spinner=False)
def _with_encoder(results_key: str, settings: tuple, upto: Optional[int], encoder: str, _base) -> TrainedTokenizer:
    # one object per encoder too: with_encoder makes a new one, which builds its HF runtime and
    # tables anew, and Compare asked for one at every run (tens of ms a trained tokenizer)
    return _base.with_encoder(encoder)


@st.cache_resource(max_entries=16, show_spinner="Building the vocabulary table…")
def _trained_vocabulary(results_key: str, settings: tuple, upto: int, _trace):
    return ins.trained_vocabulary(_trace, upto)


def trained_vocabulary(results: Results, trace, upto: int):
    return _trained_vocabulary(results.cache_key, settings_key(trace.config), upto, trace)


@st.cache_resource(max_entries=8, show_spinner="Reading the vocabulary…")
def pretrained_vocabulary(name: str, _tok):
    # a pretrained vocabulary never changes: one table per name for every session
    return ins.tokenizer_vocabulary(_tok)


def session_vocabulary(tok):
    """The vocabulary table of an imported tokenizer, kept in this session only, beside the
    tokenizer it was built from (compared by identity while both are alive). Trap: a process-wide
    cache keyed by id(tok) could hand one session the table of another session's freed tokenizer
    whose address the new one reuses (same file name, same size)."""
    kept = state.widget_value(InspectKeys.VOCABULARY_KEPT)
    if kept is not None and kept[0] is tok:
        return kept[1]
    with st.spinner("Reading the vocabulary…"):
        frame = ins.tokenizer_vocabulary(tok)
    state.set_widget(InspectKeys.VOCABULARY_KEPT, (tok, frame))
    return frame


def encode_kept(chosen: list[compare.Choice], tokenizer_of: Callable[[compare.Choice], object],
                text: str, options: compare.EncodeOptions = compare.EncodeOptions()) -> dict[str, object]:
    """choice key -> Encoding, or the PlaygroundError of a tokenizer that cannot encode the text.
    The last text's encodings (with the same options) stay in the session, so changing a view
    option or tab does not encode again."""
    kept = state.widget_value(CompareKeys.ENCODED) or {}
    encodings: dict[str, object] = {}
    for choice in chosen:
        try:
            tokenizer = tokenizer_of(choice)
        except PlaygroundError as e:     # a pretrained file that fails its check: this panel says so
            encodings[choice.key] = e
            continue
        hit = kept.get(choice.key)
        if hit is not None and hit[0] is tokenizer and hit[1] == (text, options):
            encodings[choice.key] = hit[2]
            continue
        try:
            encodings[choice.key] = compare.encode_choice(tokenizer, choice, text, options)
        except PlaygroundError as e:
            encodings[choice.key] = e
        kept[choice.key] = (tokenizer, (text, options), encodings[choice.key])
    state.set_widget(CompareKeys.ENCODED, {k: kept[k] for k in encodings if k in kept})
    return encodings


BOX_MEMO_LIMIT = 20_000     # boxes kept for one tokenizer and view (a few hundred bytes each)
BOX_MEMOS_LIMIT = 100_000   # boxes kept in all (~40 MB): past it every memo starts again


@st.cache_resource(show_spinner=False)
def _box_memos() -> dict:
    return {}


def box_memo(tokenizer, *view) -> dict:
    """The dict spans.render_tokens(boxes=...) fills and reuses for `tokenizer` drawn with the view
    options `view`, shared by every session: a box's HTML depends only on the tokenizer, those
    options and its (id, bytes, colour, count), all of which are its key. Held with the tokenizer
    itself, so a new tokenizer at a freed one's address never gets its boxes. Bounded: a memo past
    BOX_MEMO_LIMIT boxes starts again, and all of them past BOX_MEMOS_LIMIT (they also let go of
    the tokenizers they hold)."""
    memos = _box_memos()
    # list() copies the entries in one step: another session's run may add a memo meanwhile, and a
    # dict that grows while a generator walks it raises
    if sum(len(boxes) for _, boxes in list(memos.values())) > BOX_MEMOS_LIMIT:
        memos.clear()
    key = (id(tokenizer), *view)
    entry = memos.get(key)
    if entry is None or entry[0] is not tokenizer or len(entry[1]) > BOX_MEMO_LIMIT:
        entry = memos[key] = (tokenizer, {})
    return entry[1]


# ---------------------------------------------------------------- the token tax (pages/languages.py)

@st.cache_data(max_entries=32, show_spinner="Encoding the UDHR in every language…")
def pretrained_tax(name: str) -> dict:
    """name -> {language code: tokens}: the UDHR never changes, so once per process."""
    from playground import token_tax
    return token_tax.token_counts(pretrained(name), token_tax.languages())


@st.cache_data(max_entries=16, show_spinner="Encoding the UDHR in every language…")
def _trained_tax(results_key: str, settings: tuple, _tok) -> dict:
    from playground import token_tax
    return token_tax.token_counts(_tok, token_tax.languages())


def trained_tax(results: Results, trace) -> dict:
    return _trained_tax(results.cache_key, settings_key(trace.config), trained(results, trace))


@st.cache_data(max_entries=16, show_spinner="Measuring bytes per token along the merges…")
def _trained_curve(results_key: str, settings: tuple, text: str, _trace):
    from playground import token_tax
    return token_tax.bytes_per_token(_trace, text)


def trained_curve(results: Results, trace, text: str):
    return _trained_curve(results.cache_key, settings_key(trace.config), text, trace)


@st.cache_data(max_entries=32, show_spinner=False)
def pretrained_unknown_languages(name: str) -> list:
    """The UDHR languages a pretrained vocabulary mostly cannot spell (its unknown token)."""
    from playground import token_tax
    return token_tax.unknown_languages(pretrained(name), token_tax.languages())
