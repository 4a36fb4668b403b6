"""Merges page: step through every merge a trainer made, one at a time, as a talk would.

Widgets -> the trace (already trained, read only) -> pure helpers (playground.stepper, charts)
-> render. Nothing is retrained or recounted per step: a step reads one MergeStep record, and
the corpus preview is encoded once per (trace, step) and cached.

    controls    first / previous / play-pause / next / last buttons with keys (Home, Left, Space,
                Right, End, wherever the focus is), a slider to any step, autoplay at a chosen speed:
                the stepper, drawn and run by the browser (playground/browser_stepper.py)
    this step   one sentence (pair, new token and id, count or score, the tie and its rule), the
                top pairs as bars, WordPiece's count against score, the words the merge changed
    training    tokens, characters per token and vocabulary size over the whole run, step marked
    the corpus  its first 6,000 characters as the trainer splits them now, new tokens outlined
    merge tree  how any token was built, merge by merge, down to the alphabet
    lockstep    the three tokenizers side by side at one step index
The view (tokenizer, step, lockstep, speed, merge-tree token, and the preset when the results are
exactly a preset's) lives in the URL: a link reopens it, retraining the preset in a new session.
The view state, callbacks, link and caches are in playground/merges_control.py (mc). A step is
drawn by the browser from the stepper's window of steps, at once; the run it then starts is one
st.fragment (_stepped) holding only the stepper (docs/architecture.md, "The Merges page's step").
"""
from __future__ import annotations


import streamlit as st

from core.errors import PlaygroundError
from core.trainer import MODELS, Trace
from playground import charts, html_panel, live_text, markup, state, stepper, unigram_control, unigram_view, views
from playground import merges_control as mc
from playground.state import MODEL_LABELS, MergesKeys as K, Results
from playground.startup import through_app

through_app()   # a deep link on a new server (or AppTest) may run this file without app.py

LOCKSTEP_TOP = 6                # candidate bars per tokenizer when three stand side by side
LOCKSTEP_WORDS = 5


# ---------------------------------------------------------------- sections

def _plot(fig, **kwargs) -> None:
    # Streamlit's chart theme: text and grid in the light or dark theme's colours (charts.py keeps
    # the projector font sizes and transparent backgrounds)
    st.plotly_chart(fig, theme="streamlit", config={"displayModeBar": False}, **kwargs)


def _which(view: state.MergesView) -> None:
    """Which tokenizer, and lockstep: drawn by the page's whole run, above the step's fragment, so a
    step does not send them again; a change of either reruns the whole page (the merge tree's
    picker, after the fragment, then offers the new vocabulary)."""
    # wrapping rows, not fixed columns: on a 1024-pixel projector with the sidebar open every
    # control keeps its full label and the row goes on on a second line instead of being cut
    with st.container(horizontal=True, vertical_alignment="center", gap="medium"):
        state.show_widget(K.MODEL, view.model)
        st.segmented_control("Tokenizer", MODELS, key=K.MODEL, format_func=MODEL_LABELS.get,
                             required=True, on_change=mc.on_model, label_visibility="collapsed",
                             help="Whose merges to step through (in lockstep: whose details are drawn below).")
        state.show_widget(K.LOCKSTEP, view.lockstep)
        st.toggle("Lockstep", key=K.LOCKSTEP, on_change=mc.on_lockstep,
                  help="BPE, byte-level BPE and WordPiece trained on the same corpus, side by side at the same "
                       "step index, so their choices can be compared.")


def _pairs_note(trace: Trace, k: int, step, shown: int) -> str:
    by = "score" if trace.config.score_rule == "likelihood" else "count"
    tie = (f"the pairs tied with it in orange ({step.tied:,} pairs shared the top {by} in all)" if step.tied > 1
           else f"no other pair had its {by}")
    if k == 0:
        return f"Before any merge, the {shown} best pairs by {by}: the first merge takes the one in red, {tie}."
    return f"The {shown} best pairs at this step by {by}: the winner in red, {tie}."


def _step_parts(trace: Trace, k: int, facts: mc.TraceFacts) -> dict[str, str]:
    """Host key -> HTML of the single view's step: its sentence, its pairs (and WordPiece's count
    against score) with their captions, the words it changed with theirs. Step 0 shows the first
    merge's candidates (they are counted before it), so the first Next updates the charts."""
    model = trace.config.model
    s = stepper.describe_step(trace, k, facts.token_ids, facts.tokenizer)
    parts = {K.sentence(model): f'<div class="mg-sentence" data-step="{k}">{s.html}</div>'}
    first = stepper.step_at(trace, max(k, 1))
    has = first is not None and bool(first.candidates)
    parts[K.pairs(model)] = mc.pair_chart(trace, facts, first.index) if has else ""
    parts[K.PAIRS_NOTE] = markup.caption(_pairs_note(trace, k, first, len(first.candidates))) if has else ""
    if trace.config.score_rule == "likelihood":
        parts[K.SCORES] = charts.count_vs_score_html(first) if has else ""
        parts[K.SCORES_NOTE] = markup.caption(("Before any merge: each" if k == 0 else "Each")
                                        + " candidate's count against its score count / (count(x)·count(y)): "
                                          "a pair of rare symbols can outscore a more frequent one.") if has else ""
    step = stepper.step_at(trace, k)
    if step is None:
        parts[K.changed(model)] = ('<div class="mg-info">Nothing merged yet: press <strong>Next</strong> (→) for the '
                                   'first merge, <strong>End</strong> for the last, or <strong>Space</strong> to '
                                   'play.</div>' if trace.steps else '<div class="mg-info">This trainer made no '
                                   'merge.</div>')
        parts[K.CHANGED_NOTE] = ""
    else:
        rows = stepper.changed_rows(trace, step, None, facts.token_ids, facts.tokenizer)
        parts[K.changed(model)] = stepper.changed_html(rows)
        parts[K.CHANGED_NOTE] = markup.caption(stepper.changed_caption(step, len(rows)))
    return parts


def _single(parts: dict[str, str], trace: Trace) -> None:
    """The single view's step, drawn as hosts by the page's whole run (the step's fragment feeds them)."""
    model = trace.config.model
    html_panel.host(parts[K.sentence(model)], key=K.sentence(model))
    likelihood = trace.config.score_rule == "likelihood"
    left, right = st.columns([1, 1] if likelihood else [2, 3], gap="large")
    with left:
        html_panel.host(parts[K.pairs(model)], key=K.pairs(model))
        html_panel.host(parts[K.PAIRS_NOTE], key=K.PAIRS_NOTE)
    with right:
        if likelihood:
            html_panel.host(parts[K.SCORES], key=K.SCORES)
            html_panel.host(parts[K.SCORES_NOTE], key=K.SCORES_NOTE)
        else:
            _changed_hosts(parts, model)
    if likelihood:
        _changed_hosts(parts, model)


def _changed_hosts(parts: dict[str, str], model: str) -> None:
    st.subheader("Words this merge changed")
    html_panel.host(parts[K.changed(model)], key=K.changed(model))
    html_panel.host(parts[K.CHANGED_NOTE], key=K.CHANGED_NOTE)


def _column_part(trace: Trace, k: int, facts: mc.TraceFacts) -> str:
    """One tokenizer's column in lockstep at step index k, as HTML: its sentence (its last merge
    once it has finished), its top pairs and the first words the merge changed, with captions."""
    shown = min(k, len(trace.steps))
    out = []
    if shown < k:
        out.append(markup.caption(f"Finished at step {shown:,}: its last merge is shown."))
    s = stepper.describe_step(trace, shown, facts.token_ids, facts.tokenizer)
    out.append(f'<div class="mg-sentence mg-small" data-step="{shown}">{s.html}</div>')
    first = stepper.step_at(trace, max(shown, 1))
    if first is not None and first.candidates:
        out.append(mc.pair_chart(trace, facts, first.index, LOCKSTEP_TOP))
        out.append(markup.caption(_pairs_note(trace, shown, first, min(len(first.candidates), LOCKSTEP_TOP))))
    step = stepper.step_at(trace, shown)
    if step is not None:
        rows = stepper.changed_rows(trace, step, LOCKSTEP_WORDS, facts.token_ids, facts.tokenizer)
        out.append(stepper.changed_html(rows, True))
        out.append(markup.caption(stepper.changed_caption(step, len(rows))))
    return "".join(out)


def _lockstep_parts(results: Results, k: int, model: str) -> dict[str, str]:
    """Host key -> HTML of lockstep at step index k: the three columns, Unigram's beside them when
    it was trained with them (its step k: an EM step or a pruning, its last once it has finished),
    and the note under the detailed tokenizer's header."""
    parts = {K.column(m): _column_part(results.trace(m), k, mc.facts_of(results, results.trace(m))) for m in MODELS}
    result = state.get_unigram()
    if result is not None:
        steps = unigram_control.steps_of(result)
        shown = min(k, len(steps) - 1)
        parts[K.UNIGRAM_COLUMN] = (
            f'<div class="mg-sentence mg-small" data-step="{shown}">{markup.text(unigram_view.describe(steps, shown))}</div>'
            + markup.caption("Unigram's steps are EM steps and prunings, not merges"
                       + (f"; it finished at step {shown:,}" if shown < k else "") + "."))
    finished = len(results.trace(model).steps)
    parts[K.DETAIL_NOTE] = markup.caption(f"{MODEL_LABELS[model]} finished at step {finished:,}.") if finished < k else ""
    return parts


def _lockstep(parts: dict[str, str], model: str) -> None:
    """Lockstep's columns, drawn by the page's whole run as hosts the stepper draws each step into."""
    for col, m in zip(st.columns(3, gap="medium"), MODELS):
        with col:
            st.subheader(MODEL_LABELS[m])
            html_panel.host(parts[K.column(m)], key=K.column(m))
    if K.UNIGRAM_COLUMN in parts:
        with st.container(border=True, key="merges_lockstep_unigram"):
            st.subheader(state.UNIGRAM_LABEL)
            html_panel.host(parts[K.UNIGRAM_COLUMN], key=K.UNIGRAM_COLUMN)
            st.page_link("pages/unigram.py", label="Step through Unigram", icon=":material/account_tree:")
    st.header(f"{MODEL_LABELS[model]} in detail")
    html_panel.host(parts[K.DETAIL_NOTE], key=K.DETAIL_NOTE)


# ---------------------------------------------------------------- below the step: hosts its fragment feeds

def _corpus_parts(results: Results, trace: Trace, k: int) -> dict[str, str]:
    try:
        cv, same = mc.corpus_at(results, trace, k)
    except PlaygroundError as e:
        return {K.CORPUS: f'<div class="mg-error">Could not split the corpus at this step: {markup.text(str(e))}.</div>',
                K.CORPUS_NOTE: ""}
    label = MODEL_LABELS[trace.config.model]
    step = stepper.step_at(trace, k)
    made = ""
    if step is not None:
        n = cv.made
        made = (f" The {n:,} token{'s' if n != 1 else ''} “{mc.token_text(trace, mc.facts_of(results, trace), step.token)}” "
                f"this merge made {'are' if n != 1 else 'is'} outlined in red.")
    if not cv.from_table:
        scope = (f"The first {cv.shown:,} of {cv.total:,} characters" if cv.truncated
                 else f"The whole corpus ({cv.total:,} characters)")
        split = (" A character still made of several byte tokens is drawn as one box: hover it for its tokens."
                 if trace.config.byte_level else "")
        note = (f"{scope}, as {label} splits them after step {k:,}: its merges applied in order, line by "
                f"line, as its trainer sees them.{made}{split}")
    else:
        why = "The corpus is a word-count table" if same else "The corpus was replaced since training"
        scope = f"its first {cv.shown:,} of {cv.total:,} words" if cv.truncated else f"its {cv.total:,} words"
        note = f"{why}: {scope} with their counts, as {label} splits them after step {k:,}.{made}"
    # thousands of boxes, drawn only as far as scrolled to (html_panel); in a box that scrolls
    return {K.CORPUS: f'<div class="tp-scroll mg-corpus">{cv.html}</div>', K.CORPUS_NOTE: markup.caption(note)}


def _tree_parts(trace: Trace, k: int, facts: mc.TraceFacts, view: state.MergesView) -> dict[str, str]:
    """The tree of the picked token, or of this step's (the picker is drawn after: _tree_picker);
    charts.merge_tree_html: boxes the stylesheet draws as a tree, the text keeps its size, a wide
    tree scrolls."""
    step = stepper.step_at(trace, k)
    chosen = view.tree_token
    token = chosen if chosen is not None else (step.token if step is not None else None)
    if token is None:
        return {K.TREE: "", K.TREE_NOTE: markup.caption("At step 0 nothing is merged yet: every token is a symbol of the "
                                                  "alphabet. Pick a token below.")}
    if token not in facts.token_ids:
        return {K.TREE: "", K.TREE_NOTE: ""}   # said once, by _view (the picked token is not a step's)
    tree = charts.merge_tree_html(trace, token, shown=lambda t: mc.token_text(trace, facts, t),
                                  spelled=stepper.show_token if trace.config.byte_level else None)
    made = facts.made_at.get(token)
    shown = "“" + mc.token_text(trace, facts, token) + "”"
    if made is None:
        note = f"{shown} is a symbol of the alphabet: no merge made it."
    else:
        later = f", after this step ({k:,})" if made > k else ""
        note = (f"How {shown} was built, merge by merge down to the alphabet (green): each orange box is a token "
                f"and the step that made it. This one was made at step {made:,}{later}.")
    return {K.TREE: tree, K.TREE_NOTE: markup.caption(note)}


def view_parts(results: Results, trace: Trace, k: int, facts: mc.TraceFacts, view: state.MergesView) -> dict[str, str]:
    """Host key -> HTML of what step index k changes below the stepper: the single view's step, or
    lockstep's columns; the mark on the training curves, the corpus as split at k, the merge tree
    (each with its caption). In lockstep k runs to the longest trainer's last step, and a tokenizer
    that finished earlier shows its last. Kept per step and view (merges_control.kept_parts)."""
    return mc.kept_parts(results, trace, k, view, lambda: _made_parts(results, trace, k, facts, view))


def _made_parts(results: Results, trace: Trace, k: int, facts: mc.TraceFacts, view: state.MergesView) -> dict[str, str]:
    shown = min(k, len(trace.steps))
    return {**(_lockstep_parts(results, k, view.model) if view.lockstep else _step_parts(trace, shown, facts)),
            K.CURVE_MARKS_PANEL: charts.curve_marks(facts.curves, shown), **_corpus_parts(results, trace, shown),
            **_tree_parts(trace, shown, facts, view)}


def _view(results: Results) -> None:
    """The single view's step, the training curves, the corpus and the merge tree, drawn by the
    page's whole run, outside the step's fragment: a step's run sends their new HTML in one feed
    (_stepped), not some twenty-five elements (headers, captions, the curves' figure, the panels)
    again (html_panel: host, feed)."""
    view = mc.get_view()
    trace = results.trace(view.model)
    facts = mc.facts_of(results, trace)
    parts = view_parts(results, trace, mc.current_step(results, view), facts, view)
    if view.lockstep:
        _lockstep(parts, view.model)
    else:
        _single(parts, trace)
    st.header("The whole training")
    # the figure is the same at every step; the step's mark is a few spans laid over it
    # (style.css: .st-key-merges_curve_marks)
    with st.container(key=K.CURVES_BOX):
        _plot(facts.curves_chart, key=K.CURVES)
        with st.container(key=K.CURVE_MARKS):
            html_panel.host(parts[K.CURVE_MARKS_PANEL], key=K.CURVE_MARKS_PANEL)
    st.caption("Over the whole training: the corpus shrinks to fewer, longer tokens as the vocabulary grows by "
               "one token a merge; the red dot and dashed line mark this step.")
    st.header("The corpus at this step")
    with st.container(border=True):
        html_panel.host(parts[K.CORPUS], key=K.CORPUS)
    html_panel.host(parts[K.CORPUS_NOTE], key=K.CORPUS_NOTE)
    st.header("Merge tree")
    chosen = view.tree_token
    if chosen is not None and chosen not in facts.token_ids:
        st.warning(f"“{views.md_escape(mc.token_text(trace, facts, chosen))}” is not a token of the "
                   f"{MODEL_LABELS[trace.config.model]} vocabulary.")
    with st.container(key=K.TREE_BOX):
        html_panel.host(parts[K.TREE], key=K.TREE)
    html_panel.host(parts[K.TREE_NOTE], key=K.TREE_NOTE)


def _tree_picker(results: Results) -> None:
    """The merge tree's token picker, drawn after the step's fragment, so that a step does not send
    it again: its options are every merged token (2,000 on the KJV), and redrawing them was ~55 ms
    of each step in the browser. The tokenizer is chosen outside the fragment too (_which): a new
    one reruns the whole page, which offers its vocabulary here."""
    view = mc.get_view()
    trace = results.trace(view.model)
    facts = mc.facts_of(results, trace)
    options = [mc.CURRENT] + list(facts.merged[:mc.TREE_CHOICES])
    chosen = view.tree_token
    state.show_widget(K.TREE_TOKEN, chosen if chosen is not None else mc.CURRENT)
    st.selectbox("Merge tree of", options, key=K.TREE_TOKEN, accept_new_options=True, on_change=mc.on_tree,
                 format_func=lambda t: "this step's token" if t == mc.CURRENT else
                 facts.tree_labels.get(t) or mc.token_text(trace, facts, t),
                 help="Pick or type any token of this vocabulary.")


# ---------------------------------------------------------------- the page

st.title("Merges")
# the link's spinner and messages in one container, there at every run: what follows keeps its
# place from run to run. Without it, the first whole run after opening a link drew every later
# element one place up, and the browser showed the old one beside the new until the run ended
# (two Lockstep switches at once)
with st.container():
    results, messages = mc.open_link(state.get_results())
    for msg in messages:
        st.warning(views.md_escape(msg), icon=":material/link:")

if results is None:
    st.info("Nothing trained yet: load a corpus and press Train on the Corpus page.")
    st.page_link("pages/corpus.py", label="Go to the Corpus page", icon=":material/description:")
    st.stop()

st.caption(f"Trained on: {views.md_escape(results.corpus_name)} · keys, wherever you clicked: ← → step, "
           "Home / End first and last, Space play or pause")
with st.container(key=mc.LIVE_TEXT_BOX):   # hidden (style.css)
    live_text.enable()   # hovering a corpus token lights up its id's boxes (the views send no CSS rule per id)


@st.fragment
def _stepped(results: Results) -> None:
    """Everything a step changes. The step itself is drawn by the browser (the stepper: its
    controls, keys and autoplay, with a window of steps it draws into the hosts below at once); the
    run it then starts applies what it told and sends the steps the window lacks, only this
    function's elements: the title, the stylesheet, the hosts and the sidebar are neither rerun nor
    sent again (docs/architecture.md, "The Merges page's step")."""
    told = mc.apply_told(results)
    view = mc.get_view()
    last = mc.last_step(results, view)
    current = mc.current_step(results, view)
    mc.write_link(results, view, current, told=told)
    view = mc.get_view()
    trace = results.trace(view.model)
    facts = mc.facts_of(results, trace)
    # step k's HTML for the hosts (_view): the single view's step or lockstep's columns, the curves'
    # mark, the corpus, the merge tree
    mc.show_stepper(view, facts, current, last, lambda k: view_parts(results, trace, k, facts, view))


_which(mc.get_view())
_stepped(results)
_view(results)
_tree_picker(results)
