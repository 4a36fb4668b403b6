"""The Merges page's machinery: its cached reads of a trace, its view state and callbacks, the
link (query parameters) that reopens a view, and the background drawing of the steps ahead.
pages/merges.py draws; this module decides what it shows (the step's controls, keys and autoplay:
browser_stepper.py). (Over 400 lines: one page's machinery, read together: its caches shared by
every session, the view state and link they follow, and the stepper's glue.)

    facts_of(results, trace), corpus_view(...), pair_chart(...)
                                          cached per trace (and step): once for every session
    prefetch(...)                         draws the next step's corpus and pair chart in a background thread
    get_view(), set_view(...), go_to(step)    the view (state.MergesView) and the steps (state.get_step)
    on_model, on_lockstep, on_tree        the other controls' callbacks
    open_link(results), write_link(...)   the URL: applied once when it changes, written back (a step: by the browser)
    apply_told(results), show_stepper(...)    the step's controls, drawn by the browser (browser_stepper.py)
    warm(results)                         right after training: what the first steps need, drawn ahead
    warm_browser()                        the Corpus page's hidden chart: the browser loads Plotly's code early

Pure helpers (what a step says and shows, the URL's parsing) are in stepper.py; charts in charts.py.
"""
from __future__ import annotations

import functools
import threading
from dataclasses import dataclass, field, replace
from typing import Callable, Optional

import streamlit as st

from core import presets
from core.errors import PlaygroundError
from core.trainer import MODELS, Trace
from playground import browser_stepper, charts, labels, state, stepper, training, unigram_control
from playground.state import MODEL_LABELS, Corpus, MergesKeys as K, Results, Settings

CURRENT = "\x00this step"       # the merge tree's first choice: follow the current step's token
TREE_CHOICES = 5_000            # merged tokens offered in the merge tree's picker (any token can be typed)


# ---------------------------------------------------------------- cached reads of a trace

@dataclass(frozen=True)
class TraceFacts:
    """What the views need from a whole trace, computed once per trace (traces are immutable)."""
    token_ids: dict
    curves: charts.Curves
    merged: tuple[str, ...]
    made_at: dict
    tokenizer: object = None     # the whole trace as a Tokenizer (token_bytes: labels of any script)
    # the training curves' figure: the same at every step (the step is marked over it), built
    # once (20-40 ms a step when it was built at every step); Streamlit only reads it
    curves_chart: object = None
    key: str = ""                # trace_key: what the per-step caches below are keyed by
    # the merge tree picker's options (the first TREE_CHOICES merged tokens) as lines of text: the
    # picker is drawn at every step, and formatting them anew was ~20 ms of a byte-level step
    tree_labels: dict = field(default_factory=dict)


def trace_key(results: Results, trace: Trace) -> str:
    # A trace trained here is fixed by its corpus and settings (training is deterministic): a
    # stable cache key that never hashes the trace itself. A loaded one is keyed apart by its file
    # (Results.cache_key), so no session file can put its traces on another user's page.
    return f"{results.cache_key}|{training.settings_key(trace.config)!r}"


@st.cache_resource(max_entries=training.MAX_TRACES, show_spinner=False)
def facts(key: str, _trace: Trace) -> TraceFacts:
    curves = charts.curve_data(_trace)
    made = TraceFacts(token_ids=_trace.token_to_id, curves=curves,
                      merged=stepper.merged_tokens(_trace), made_at=_trace.made_at,
                      tokenizer=stepper.tokenizer_at(_trace, len(_trace.steps)),
                      curves_chart=charts.training_curves(_trace, None, curves), key=key)
    return replace(made, tree_labels={t: token_text(_trace, made, t) for t in made.merged[:TREE_CHOICES]})


def facts_of(results: Results, trace: Trace) -> TraceFacts:
    return facts(trace_key(results, trace), trace)


@st.cache_resource(max_entries=64, show_spinner=False)
def _pair_chart(key: str, k: int, top: Optional[int], _trace: Trace, _facts: TraceFacts) -> str:
    step = stepper.step_at(_trace, k)
    shown = min(len(step.candidates), top or len(step.candidates))
    named = pair_labels(_trace, step, _facts, shown) if _trace.config.byte_level and _facts.tokenizer is not None else None
    return charts.pair_bars_html(step, _trace.config.score_rule, top, labels=[p for p, _ in named] if named else None,
                                 spelled=[a for _, a in named] if named else None)


def pair_chart(trace: Trace, facts: TraceFacts, k: int, top: Optional[int] = None) -> str:
    """Step k's pair chart (k >= 1, a step with candidates) as HTML (charts.pair_bars_html), byte-level
    pairs read as characters: cached per trace, step and number of bars, and the next step's built
    in the background with its corpus (prefetch), so a Next finds it ready."""
    return _pair_chart(facts.key, k, top, trace, facts)


@st.cache_resource(max_entries=32, show_spinner=False)
def corpus_view(key: str, step: int, source: str, _trace: Trace, _text: Optional[str]) -> stepper.CorpusView:
    """The corpus drawn at a step (its HTML included: drawing 6,000 characters costs as much as
    encoding them). Stepping back and forth, or several people at one step, costs nothing."""
    return stepper.corpus_view(_trace, step, _text)


# ---------------------------------------------------------------- view state

def get_view() -> state.MergesView:
    return state.get_merges_view()


def set_view(**changes) -> None:
    state.set_merges_view(replace(get_view(), **changes))


def models(view: state.MergesView) -> tuple[str, ...]:
    return MODELS if view.lockstep else (view.model,)


def last_step(results: Results, view: state.MergesView) -> int:
    return max(len(results.trace(m).steps) for m in models(view))


def current_step(results: Results, view: state.MergesView) -> int:
    return stepper.clamp_step(state.get_step(view.model), last_step(results, view))


def go_to(step: int) -> None:
    results, view = state.get_results(), get_view()
    step = stepper.clamp_step(step, last_step(results, view))
    if view.lockstep:
        for m in MODELS:
            state.set_step(m, step)   # each tokenizer shows min(step, its last)
    else:
        state.set_step(view.model, step)


# ---------------------------------------------------------------- callbacks

def on_model() -> None:
    model = state.widget_value(K.MODEL) or get_view().model
    results, view = state.get_results(), get_view()
    if view.lockstep:   # the step stays: all three are at one index
        state.set_step(model, state.get_step(view.model))
    set_view(model=model, tree_token=None)


def on_lockstep() -> None:
    on = bool(state.widget_value(K.LOCKSTEP, False))
    view = get_view()
    if on:
        for m in MODELS:
            state.set_step(m, state.get_step(view.model))
    else:
        results = state.get_results()
        for m in MODELS:
            state.set_step(m, stepper.clamp_step(state.get_step(m), len(results.trace(m).steps)))
    set_view(lockstep=on)


def on_tree() -> None:
    choice = state.widget_value(K.TREE_TOKEN, CURRENT)
    set_view(tree_token=None if choice in (None, CURRENT) else choice)


# ---------------------------------------------------------------- the link (query parameters)

def _train_preset(key: str) -> Optional[Results]:
    """A new session opened from a link naming a preset: load and train it (cached)."""
    preset = presets.get_preset(key)
    corpus = Corpus.from_preset(preset)
    settings = Settings.from_configs(preset.configs())
    with st.spinner(f"Training the link's preset, {preset.name}…"):
        results = training.train_all(corpus, settings)
    state.set_corpus(corpus)
    state.set_settings(settings)
    state.set_results(results)
    return results


def preset_of(results: Optional[Results]) -> Optional[str]:
    corpus = state.get_corpus()
    configs = presets.get_preset(corpus.preset).configs() if corpus is not None and corpus.preset else None
    return stepper.link_preset(corpus, results, configs)


def open_link(results: Optional[Results]) -> tuple[Optional[Results], list[str]]:
    """Apply the URL's parameters once (when they differ from what this page last wrote)."""
    view = get_view()
    params = state.link_to_open(view.url)
    if params is None:
        return results, []
    seen = tuple(sorted(params.items()))
    request, msgs = stepper.parse_url(params, [p.key for p in presets.PRESETS])
    if request.preset is not None:
        current = preset_of(results)
        corpus = state.get_corpus()
        if results is None and corpus is not None and corpus.preset != request.preset:
            # a corpus loaded and not trained yet (its settings perhaps chosen): the link does not
            # replace it unasked (Back, or a link pasted in this tab, came here silently before)
            msgs.append(f"The link is for the preset {request.preset!r}; this session has another corpus "
                        "loaded, kept. Load that preset on the Corpus page to see the link's view.")
        elif results is None:
            try:
                results = _train_preset(request.preset)
            except PlaygroundError as e:
                msgs.append(f"Could not train the link's preset: {e}.")
        elif current != request.preset:
            msgs.append(f"The link is for the preset {request.preset!r}; this session has other results "
                        "trained, shown here. Load that preset on the Corpus page to see the link's view.")
    if results is None:
        return None, msgs
    model = request.model or view.model
    changes: dict = {"model": model, "url": seen}
    if request.lockstep is not None:
        changes["lockstep"] = request.lockstep
    if request.speed is not None:
        changes["speed"] = request.speed
    if request.token is not None:
        if request.token in facts_of(results, results.trace(model)).token_ids:
            changes["tree_token"] = request.token
        else:
            msgs.append(f"Ignored token={stepper.quote_value(request.token)}: not in the "
                        f"{MODEL_LABELS[model]} vocabulary.")
    view = replace(view, **changes)
    state.set_merges_view(view)
    if request.step is not None:
        step, msg = stepper.clamp_link_step(request.step, last_step(results, view))
        if msg:
            msgs.append(msg)
        for m in models(view):
            state.set_step(m, step)
    return results, msgs


def write_link(results: Results, view: state.MergesView, step: int, told: bool = False) -> None:
    """The view's address (browser_stepper.write_link: a told step is the stepper's to write)."""
    params = stepper.url_params(view.model, step, view.lockstep, view.speed, view.tree_token, preset_of(results))
    url = browser_stepper.write_link(params, view.url, told)
    if view.url != url:
        set_view(url=url)


def prefetch(key: str, step: int, source: str, trace: Trace, text: Optional[str],
             facts: Optional[TraceFacts] = None) -> None:
    """Draw the next step's corpus (and, given the trace's facts, its pair chart) in the
    background while the presenter talks: the next Next (or autoplay tick) then finds them cached.
    The caches' per-key locks make a run that asks for one meanwhile wait for this computation
    instead of repeating it."""
    if step > len(trace.steps):
        return

    def work() -> None:
        try:
            corpus_view(key, step, source, trace, text)
            if facts is not None and step >= 1 and trace.steps[step - 1].candidates:
                pair_chart(trace, facts, step)
        except Exception:   # noqa: BLE001 -- the page itself will show the error if it asks for this step
            pass
    threading.Thread(target=work, name="merges-prefetch", daemon=True).start()


@st.cache_resource(max_entries=48, show_spinner=False)
def _kept_parts(key: tuple, _make: Callable[[], dict[str, str]]) -> dict[str, str]:
    return _make()


def kept_parts(results: Results, trace: Trace, k: int, view: state.MergesView,
               make: Callable[[], dict[str, str]]) -> dict[str, str]:
    """Step k's HTML for the page's hosts, `make()`, kept for every session per (trace, step, what
    the view draws of it, whether the corpus is the one trained on; in lockstep, the other two
    traces too, and the session's Unigram, whose column lockstep draws beside them): the page's whole
    run (opened again, the lockstep switch) draws the step and its window of five again, ~7 ms each
    on the KJV (the sentence, the changed words, the tree, the corpus's wrapping). A fresh dict each
    call."""
    corpus = state.get_corpus()
    same = corpus is not None and corpus.digest == results.corpus_digest
    shown = list(results.traces().values()) if view.lockstep else [trace]
    unigram = state.get_unigram() if view.lockstep else None
    key = (tuple(trace_key(results, t) for t in shown), unigram and unigram_control.trace_key(unigram),
           k, view.model, view.lockstep, view.tree_token, same)
    return dict(_kept_parts(key, make))


def corpus_at(results: Results, trace: Trace, k: int) -> tuple[stepper.CorpusView, bool]:
    """The corpus at step k (cached), and whether it is the one trained on (else the training
    words are drawn); the next step's drawing starts in the background. PlaygroundError when the
    corpus cannot be split."""
    corpus = state.get_corpus()
    same = corpus is not None and corpus.digest == results.corpus_digest
    text = corpus.text if same else None
    source = "text" if text is not None else "words"
    key = trace_key(results, trace)
    cv = corpus_view(key, k, source, trace, text)
    prefetch(key, k + 1, source, trace, text, facts_of(results, trace))
    return cv, same


LIVE_TEXT_BOX = "merges_live_text"     # hidden (style.css): the hover script for corpus tokens (live_text)
CHART_WARM_BOX = "merges_chart_warm"   # the Corpus page's hidden chart (the browser's Plotly loaded early)


# ---------------------------------------------------------------- the stepper (browser_stepper.py)

SLIDER_HELP = "Step 0 is the alphabet before any merge; step k shows the k-th merge."


def view_key(facts: TraceFacts, view: state.MergesView) -> str:
    """What a step's HTML depends on besides the step: the trace, the merge tree's token, lockstep
    (the single view's step is drawn by the lockstep grid then)."""
    return browser_stepper.digest((facts.key, view.tree_token, view.lockstep))


def trace_digest(facts: TraceFacts) -> str:
    """The trace in view, as the page names it in its tells."""
    return browser_stepper.digest(facts.key)


def apply_told(results: Results) -> bool:
    """Take the page's newest tell: its step, play state and speed, when it was for the trace in
    view. Returns whether a tell was taken (the page has written its step into the address:
    write_link)."""
    view = get_view()
    tell = browser_stepper.take(K.STEPPER, view.told, trace_digest(facts_of(results, results.trace(view.model))))
    if tell is None:
        return False
    if tell.taken:
        if tell.step is not None:
            go_to(tell.step)
        changes: dict = {"playing": tell.playing and current_step(results, get_view()) < last_step(results, get_view())}
        if tell.speed is not None:
            changes["speed"] = tell.speed
        set_view(**changes)
    set_view(told=tell.seq)
    return tell.taken


def show_stepper(view: state.MergesView, facts: TraceFacts, current: int, last: int, parts_at) -> None:
    """The stepper with the window of steps the page lacks: `parts_at(k)` is step k's host key ->
    HTML (pages/merges.py: view_parts)."""
    browser_stepper.show(K.STEPPER, view=view_key(facts, view), trace=trace_digest(facts), current=current, last=last,
                         playing=view.playing, speed=view.speed, last_told=view.told, parts_at=parts_at,
                         slider_help=SLIDER_HELP)


# ---------------------------------------------------------------- the pair chart, readable

def pair_labels(trace: Trace, step, facts: TraceFacts, top: int) -> list[tuple[str, str]]:
    """(label, alias) of each candidate pair drawn, best first: for a byte-level trace the pair as
    its bytes read (`分 + 词`, `<0xE5> + <0x88>` of 分), with the vocabulary's spelling second."""
    word = labels.step_word(facts.tokenizer, step) if facts.tokenizer is not None else ""
    of = labels.labeller(trace, facts.tokenizer) if facts.tokenizer is not None else None
    out = []
    for c in list(step.candidates)[:top]:
        alias = charts.pair_label(c.pair)
        if of is None or not trace.config.byte_level:
            out.append((alias, alias))
            continue
        a, b = of(c.pair, word)
        tok = facts.tokenizer
        compact = [labels.readable(tok.token_bytes(tok.token_to_id(t)), compact=True) for t in c.pair]
        shown = f"{compact[0]} + {compact[1]}"   # narrow: ⟨E5⟩ + ⟨88⟩
        chars = "".join(dict.fromkeys(a.of + b.of))
        out.append((shown + (f" (of {chars})" if chars else ""), alias))
    return out


def token_text(trace: Trace, facts: TraceFacts, token: str) -> str:
    """A token as a line of text: byte-level, its bytes read (`分`, `<0xE5><0x88> of 分`, the
    character found in a word of the merge that made it); else its spelling, whitespace visible."""
    if facts.tokenizer is None or not trace.config.byte_level:
        return stepper.show_token(token)
    made = facts.made_at.get(token)
    word = labels.step_word(facts.tokenizer, stepper.step_at(trace, made)) if made else ""
    return labels.labeller(trace, facts.tokenizer)([token], word)[0].shown


def warm_browser() -> None:
    """A hidden Plotly chart on the Corpus page once it has a corpus, in one run a session. The
    browser loads Plotly's code (a few MB of script) the first time a page draws a Plotly chart:
    without this that was the Merges page's training curves, and the code arrived and ran after that
    page had been drawn, in the first Next (about 0.7 s of a first step 2.5x as long as the others on
    the KJV, bench/browser.py). Loaded here, it runs while the corpus is read and trained. Once is
    enough, as the code stays loaded: drawn at every visit of the Corpus page, Plotly drew the
    hidden chart each time (bench/README.md has what that cost: within the noise of a switch)."""
    if not state.once("browser_warmed"):
        return
    with st.container(key=CHART_WARM_BOX):
        st.plotly_chart(_placeholder_chart(), key=f"{CHART_WARM_BOX}_chart", theme="streamlit",
                        config={"displayModeBar": False})


# One figure for every run of every session (st.plotly_chart copies what it is given, and the
# figure never changes): made at each Corpus page run it was ~18 ms of Plotly's validation.
_placeholder_chart = functools.cache(charts.placeholder_chart)


def warm(results: Results, corpus: Optional[Corpus]) -> None:
    """Right after training: in the background, what the Merges page's first steps need (each
    trace's facts, the corpus drawn at steps 0 and 1, step 1's pair chart), so its first Next is
    quick even on the KJV."""
    same = corpus is not None and corpus.digest == results.corpus_digest
    text = corpus.text if same else None
    source = "text" if text is not None else "words"
    traces = list(results.traces().values())

    def work() -> None:
        try:
            for trace in traces:
                facts_of(results, trace)
            for trace in traces:
                key = trace_key(results, trace)
                for k in (0, 1):
                    if k <= len(trace.steps):
                        corpus_view(key, k, source, trace, text)
                if trace.steps and trace.steps[0].candidates:
                    pair_chart(trace, facts_of(results, trace), 1)
        except Exception:   # noqa: BLE001 -- the page computes (and reports) whatever is missing
            pass
    threading.Thread(target=work, name="merges-warm", daemon=True).start()
