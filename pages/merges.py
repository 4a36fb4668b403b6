"""Merges page: step through every merge a trainer made, one at a time, as a talk would.

Widgets -> the trace (already trained, read only) -> pure helpers (playground.stepper, charts)
-> render. Nothing is retrained or recounted per step: a step reads one MergeStep record, and
the corpus preview is encoded once per (trace, step) and cached.

    controls    first / previous / play-pause / next / last buttons with keys (Home, Left, Space,
                Right, End), a slider to any step, autoplay (a timer fragment) at a chosen speed
    this step   one sentence (pair, new token and id, count or score, the tie and its rule), the
                top pairs as bars, WordPiece's count against score, the words the merge changed
    training    tokens, characters per token and vocabulary size over the whole run, step marked
    the corpus  its first 20,000 characters as the trainer splits them now, new tokens outlined
    merge tree  how any token was built, merge by merge, down to the alphabet
    lockstep    the three tokenizers side by side at one step index
The view (tokenizer, step, lockstep, speed, merge-tree token, and the preset when the results are
exactly a preset's) lives in the URL: a link reopens it, retraining the preset in a new session.
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, replace
from typing import Optional

import streamlit as st

from core import presets
from core.errors import PlaygroundError
from core.trainer import MODELS, Trace
from playground import charts, state, stepper, training, views
from playground.state import MODEL_LABELS, Corpus, Results, Settings
from playground.startup import through_app

through_app()   # a deep link on a new server (or AppTest) may run this file without app.py

CURRENT = "\x00this step"       # the merge tree's first choice: follow the current step's token
MAX_TREE_CHOICES = 5_000        # merged tokens offered in the picker (any token can be typed)
LOCKSTEP_TOP = 6                # candidate bars per tokenizer when three stand side by side
LOCKSTEP_WORDS = 5

# ---------------------------------------------------------------- cached reads of a trace

@dataclass(frozen=True)
class TraceFacts:
    """What the views need from a whole trace, computed once per trace (traces are immutable)."""
    token_ids: dict
    curves: charts.Curves
    merged: tuple[str, ...]
    made_at: dict


def _trace_key(results: Results, trace: Trace) -> str:
    # A trace trained here is fixed by its corpus and settings (training is deterministic): a
    # stable cache key that never hashes the trace itself. A loaded one is keyed apart by its file
    # (Results.cache_key), so no session file can put its traces on another user's page.
    return f"{results.cache_key}|{training.settings_key(trace.config)!r}"


@st.cache_resource(max_entries=training.MAX_TRACES, show_spinner=False)
def _facts(key: str, _trace: Trace) -> TraceFacts:
    return TraceFacts(token_ids=_trace.token_to_id, curves=charts.curve_data(_trace),
                      merged=stepper.merged_tokens(_trace), made_at=stepper.made_at(_trace))


@st.cache_resource(max_entries=32, show_spinner=False)
def _corpus_view(key: str, step: int, source: str, _trace: Trace, _text: Optional[str]) -> stepper.CorpusView:
    """The corpus drawn at a step (its HTML included: drawing 20,000 characters costs as much as
    encoding them). Stepping back and forth, or several people at one step, costs nothing."""
    return stepper.corpus_view(_trace, step, _text)


# ---------------------------------------------------------------- view state

def _view() -> state.MergesView:
    return state.get_merges_view()


def _set_view(**changes) -> None:
    state.set_merges_view(replace(_view(), **changes))


def _models(view: state.MergesView) -> tuple[str, ...]:
    return MODELS if view.lockstep else (view.model,)


def _last(results: Results, view: state.MergesView) -> int:
    return max(len(results.trace(m).steps) for m in _models(view))


def _current(results: Results, view: state.MergesView) -> int:
    return stepper.clamp_step(state.get_step(view.model), _last(results, view))


def _go_to(step: int) -> None:
    results, view = state.get_results(), _view()
    step = stepper.clamp_step(step, _last(results, view))
    if view.lockstep:
        for m in MODELS:
            state.set_step(m, step)   # each tokenizer shows min(step, its last)
    else:
        state.set_step(view.model, step)
    if view.playing:
        _set_view(played_at=time.monotonic())   # a key press during autoplay: a full interval to the next


# ---------------------------------------------------------------- callbacks

def _on_nav(action: str) -> None:
    results, view = state.get_results(), _view()
    _go_to(stepper.navigate(action, _current(results, view), _last(results, view)))


def _on_slider() -> None:
    _go_to(state.widget_value("merges_step", 0))


def _on_play() -> None:
    results, view = state.get_results(), _view()
    if view.playing:
        _set_view(playing=False)
        return
    if _current(results, view) >= _last(results, view):
        _go_to(0)   # play from the end: start again
    _set_view(playing=True, played_at=time.monotonic())


def _on_model() -> None:
    model = state.widget_value("merges_model") or _view().model
    results, view = state.get_results(), _view()
    if view.lockstep:   # the step stays: all three are at one index
        state.set_step(model, state.get_step(view.model))
    _set_view(model=model, tree_token=None)


def _on_lockstep() -> None:
    on = bool(state.widget_value("merges_lockstep", False))
    view = _view()
    if on:
        for m in MODELS:
            state.set_step(m, state.get_step(view.model))
    else:
        results = state.get_results()
        for m in MODELS:
            state.set_step(m, stepper.clamp_step(state.get_step(m), len(results.trace(m).steps)))
    _set_view(lockstep=on)


def _on_speed() -> None:
    speed = state.widget_value("merges_speed") or stepper.DEFAULT_SPEED
    _set_view(speed=float(speed))


def _on_tree() -> None:
    choice = state.widget_value("merges_tree_token", CURRENT)
    _set_view(tree_token=None if choice in (None, CURRENT) else choice)


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


def _preset_of(results: Optional[Results]) -> Optional[str]:
    corpus = state.get_corpus()
    configs = presets.get_preset(corpus.preset).configs() if corpus is not None and corpus.preset else None
    return stepper.link_preset(corpus, results, configs)


def _open_link(results: Optional[Results]) -> tuple[Optional[Results], list[str]]:
    """Apply the URL's parameters once (when they differ from what this page last wrote)."""
    params = st.query_params.to_dict()
    seen = tuple(sorted(params.items()))
    view = _view()
    if not params or seen == view.url:
        return results, []
    request, msgs = stepper.parse_url(params, [p.key for p in presets.PRESETS])
    if request.preset is not None:
        current = _preset_of(results)
        if results is None:
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
        if request.token in _facts(_trace_key(results, results.trace(model)), results.trace(model)).token_ids:
            changes["tree_token"] = request.token
        else:
            msgs.append(f"Ignored token={stepper.quote_value(request.token)}: not in the "
                        f"{MODEL_LABELS[model]} vocabulary.")
    view = replace(view, **changes)
    state.set_merges_view(view)
    if request.step is not None:
        step, msg = stepper.clamp_link_step(request.step, _last(results, view))
        if msg:
            msgs.append(msg)
        for m in _models(view):
            state.set_step(m, step)
    return results, msgs


def _write_link(results: Results, view: state.MergesView, step: int) -> None:
    params = stepper.url_params(view.model, step, view.lockstep, view.speed, view.tree_token, _preset_of(results))
    if st.query_params.to_dict() != params:
        st.query_params.from_dict(params)
    seen = tuple(sorted(params.items()))
    if view.url != seen:
        _set_view(url=seen)


# ---------------------------------------------------------------- sections

def _plot(fig, **kwargs) -> None:
    # theme=None: Streamlit's chart theme would replace the figures' large projector fonts
    st.plotly_chart(fig, theme=None, config={"displayModeBar": False}, **kwargs)


def _controls(results: Results, view: state.MergesView, current: int, last: int) -> None:
    # wrapping rows, not fixed columns: on a 1024-pixel projector with the sidebar open every
    # control keeps its full label and the row goes on on a second line instead of being cut
    top = st.container(horizontal=True, vertical_alignment="center", gap="medium")
    with top:
        state.set_widget("merges_model", view.model)
        st.segmented_control("Tokenizer", MODELS, key="merges_model", format_func=MODEL_LABELS.get,
                             required=True, on_change=_on_model, label_visibility="collapsed",
                             help="Whose merges to step through (in lockstep: whose details are drawn below).")
        state.set_widget("merges_lockstep", view.lockstep)
        st.toggle("Lockstep", key="merges_lockstep", on_change=_on_lockstep,
                  help="BPE, byte-level BPE and WordPiece trained on the same corpus, side by side at the same "
                       "step index, so their choices can be compared.")

    row = st.container(horizontal=True, vertical_alignment="bottom")
    with row:
        st.button("First", key="merges_first", icon=":material/first_page:", shortcut="Home",
                  on_click=_on_nav, args=("first",), disabled=current == 0)
        st.button("Previous", key="merges_prev", icon=":material/chevron_left:", shortcut="Left",
                  on_click=_on_nav, args=("prev",), disabled=current == 0)
        st.button("Pause" if view.playing else "Play", key="merges_play", shortcut="Space", type="primary",
                  icon=":material/pause:" if view.playing else ":material/play_arrow:", on_click=_on_play,
                  disabled=last == 0)
        st.button("Next", key="merges_next", icon=":material/chevron_right:", shortcut="Right",
                  on_click=_on_nav, args=("next",), disabled=current >= last)
        st.button("Last", key="merges_last", icon=":material/last_page:", shortcut="End",
                  on_click=_on_nav, args=("last",), disabled=current >= last)
        state.set_widget("merges_speed", view.speed)
        st.selectbox("Autoplay speed", stepper.SPEEDS, key="merges_speed", on_change=_on_speed,
                     format_func=lambda s: f"{s:g} s a step", width=170, label_visibility="collapsed",
                     help="How long Play shows each step.")
    if last > 0:
        state.set_widget("merges_step", current)
        st.slider("Step", 0, last, key="merges_step", on_change=_on_slider,
                  help="Step 0 is the alphabet before any merge; step k shows the k-th merge.")


def _sentence(trace: Trace, k: int, facts: TraceFacts, small: bool = False) -> None:
    s = stepper.describe_step(trace, k, facts.token_ids)
    st.markdown(f'<div class="mg-sentence{" mg-small" if small else ""}" data-step="{k}">{s.html}</div>',
                unsafe_allow_html=True)


def _step_charts(trace: Trace, k: int, top: Optional[int] = None) -> None:
    model = trace.config.model
    step = stepper.step_at(trace, k)
    if step is None or not step.candidates:
        return
    rule = trace.config.score_rule
    by = "score" if rule == "likelihood" else "count"
    _plot(charts.pair_frequency_chart(step, rule, top=top), key=f"merges_pairs_{model}")
    shown = min(len(step.candidates), top or len(step.candidates))
    tie = (f"the pairs tied with it in orange ({step.tied:,} pairs shared the top {by} in all)" if step.tied > 1
           else f"no other pair had its {by}")
    st.caption(f"The {shown} best pairs at this step by {by}: the winner in red, {tie}.")


def _changed(trace: Trace, k: int, facts: TraceFacts, limit: Optional[int] = None, compact: bool = False) -> None:
    step = stepper.step_at(trace, k)
    if step is None:
        return
    rows = stepper.changed_rows(trace, step, limit, facts.token_ids)
    st.markdown(stepper.changed_html(rows, compact), unsafe_allow_html=True)
    st.caption(stepper.changed_caption(step, len(rows)))


def _single(results: Results, trace: Trace, k: int, facts: TraceFacts) -> None:
    _sentence(trace, k, facts)
    step = stepper.step_at(trace, k)
    if step is None:
        st.info("Press **Next** (→) for the first merge, **End** for the last, or **Space** to play.")
        return
    likelihood = trace.config.score_rule == "likelihood"
    left, right = st.columns([1, 1] if likelihood else [2, 3], gap="large")
    with left:
        _step_charts(trace, k)
    with right:
        if likelihood:
            _plot(charts.count_vs_score_chart(step), key="merges_scores")
            st.caption("Each candidate's count against its score count / (count(x)·count(y)): a pair of rare "
                       "symbols can outscore a more frequent one.")
        else:
            st.subheader("Words this merge changed")
            _changed(trace, k, facts)
    if likelihood:
        st.subheader("Words this merge changed")
        _changed(trace, k, facts)


def _lockstep(results: Results, k: int) -> None:
    for col, m in zip(st.columns(3, gap="medium"), MODELS):
        trace = results.trace(m)
        facts = _facts(_trace_key(results, trace), trace)
        shown = min(k, len(trace.steps))
        with col:
            st.subheader(MODEL_LABELS[m])
            if shown < k:
                st.caption(f"Finished at step {shown:,}: its last merge is shown.")
            _sentence(trace, shown, facts, small=True)
            _step_charts(trace, shown, top=LOCKSTEP_TOP)
            _changed(trace, shown, facts, LOCKSTEP_WORDS, compact=True)


def _curves(trace: Trace, k: int, facts: TraceFacts) -> None:
    _plot(charts.training_curves(trace, k, facts.curves), key="merges_curves")
    st.caption("Over the whole training: the corpus shrinks to fewer, longer tokens as the vocabulary grows by "
               "one token a merge; the red dot and dashed line mark this step.")


def _prefetch(key: str, step: int, source: str, trace: Trace, text: Optional[str]) -> None:
    """Draw the next step's corpus in the background while the presenter talks: the next Next (or
    autoplay tick) then finds it cached. The cache's per-key lock makes a run that asks for it
    meanwhile wait for this computation instead of repeating it."""
    if step > len(trace.steps):
        return

    def work() -> None:
        try:
            _corpus_view(key, step, source, trace, text)
        except Exception:   # noqa: BLE001 -- the page itself will show the error if it asks for this step
            pass
    threading.Thread(target=work, name="merges-prefetch", daemon=True).start()


def _corpus(results: Results, trace: Trace, k: int) -> None:
    corpus = state.get_corpus()
    same = corpus is not None and corpus.digest == results.corpus_digest
    text = corpus.text if same else None
    try:
        cv = _corpus_view(_trace_key(results, trace), k, "text" if text is not None else "words", trace, text)
    except PlaygroundError as e:
        st.error(f"Could not split the corpus at this step: {views.md_escape(str(e))}.")
        return
    tall = cv.shown > (60 if cv.from_table else 1200)
    with st.container(height=430 if tall else "content", border=True):
        st.html(cv.html)
    _prefetch(_trace_key(results, trace), k + 1, "text" if text is not None else "words", trace, text)
    label = MODEL_LABELS[trace.config.model]
    step = stepper.step_at(trace, k)
    made = ""
    if step is not None:
        n = cv.made
        made = (f" The {n:,} token{'s' if n != 1 else ''} “{views.md_escape(stepper.show_token(step.token))}” "
                f"this merge made {'are' if n != 1 else 'is'} outlined in red.")
    if not cv.from_table:
        scope = (f"The first {cv.shown:,} of {cv.total:,} characters" if cv.truncated
                 else f"The whole corpus ({cv.total:,} characters)")
        st.caption(f"{scope}, as {label} splits them after step {k:,}: its merges applied in order, line by "
                   f"line, as its trainer sees them.{made}")
    else:
        why = "The corpus is a word-count table" if same else "The corpus was replaced since training"
        scope = f"its first {cv.shown:,} of {cv.total:,} words" if cv.truncated else f"its {cv.total:,} words"
        st.caption(f"{why}: {scope} with their counts, as {label} splits them after step {k:,}.{made}")


def _tree(trace: Trace, k: int, facts: TraceFacts, view: state.MergesView) -> None:
    step = stepper.step_at(trace, k)
    options = [CURRENT] + list(facts.merged[:MAX_TREE_CHOICES])
    chosen = view.tree_token
    state.set_widget("merges_tree_token", chosen if chosen is not None else CURRENT)
    st.selectbox("Token", options, key="merges_tree_token", accept_new_options=True, on_change=_on_tree,
                 format_func=lambda t: "this step's token" if t == CURRENT else stepper.show_token(t),
                 help="Pick or type any token of this vocabulary.")
    token = chosen if chosen is not None else (step.token if step is not None else None)
    if token is None:
        st.caption("At step 0 nothing is merged yet: every token is a symbol of the alphabet. Pick a token above.")
        return
    if token not in facts.token_ids:
        st.warning(f"“{views.md_escape(stepper.show_token(token))}” is not a token of the "
                   f"{MODEL_LABELS[trace.config.model]} vocabulary.")
        return
    made = facts.made_at.get(token)
    st.graphviz_chart(charts.merge_tree_dot(trace, token))
    shown = "“" + views.md_escape(stepper.show_token(token)) + "”"
    if made is None:
        st.caption(f"{shown} is a symbol of the alphabet: no merge made it.")
    else:
        later = f", after this step ({k:,})" if made > k else ""
        st.caption(f"How {shown} was built, merge by merge down to the alphabet (green): each orange box is a token "
                   f"and the step that made it. This one was made at step {made:,}{later}.")


def _autoplay(results: Results) -> None:
    """While playing, a fragment on a timer moves one step on and reruns the page."""
    view = _view()
    if not view.playing:
        return

    @st.fragment(run_every=view.speed)
    def tick() -> None:
        v = _view()
        if not v.playing or time.monotonic() - v.played_at < 0.6 * v.speed:
            return   # the page's own run (or one right after a key press): wait for the timer
        current, last = _current(results, v), _last(results, v)
        if current < last:
            _go_to(current + 1)
        _set_view(playing=current + 1 < last, played_at=time.monotonic())
        st.rerun()

    tick()


# ---------------------------------------------------------------- the page

st.title("Merges")
results, messages = _open_link(state.get_results())
for msg in messages:
    st.warning(views.md_escape(msg), icon=":material/link:")

if results is None:
    st.info("Nothing trained yet: load a corpus and press Train on the Corpus page.")
    st.page_link("pages/corpus.py", label="Go to the Corpus page", icon=":material/description:")
    st.stop()

view = _view()
last = _last(results, view)
current = _current(results, view)
_write_link(results, view, current)
view = _view()
trace = results.trace(view.model)
facts = _facts(_trace_key(results, trace), trace)
shown = min(current, len(trace.steps))

st.caption(f"Trained on: {views.md_escape(results.corpus_name)} · keys: ← → step, Home / End first and last, "
           "Space play or pause (click the page's background first when a control has the focus)")
_controls(results, view, current, last)

if view.lockstep:
    _lockstep(results, current)
    st.header(f"{MODEL_LABELS[view.model]} in detail")
    if shown < current:
        st.caption(f"{MODEL_LABELS[view.model]} finished at step {shown:,}.")
else:
    _single(results, trace, shown, facts)

st.header("The whole training")
_curves(trace, shown, facts)
st.header("The corpus at this step")
_corpus(results, trace, shown)
st.header("Merge tree")
_tree(trace, shown, facts, view)
_autoplay(results)
