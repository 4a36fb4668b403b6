"""Unigram page: step through a Unigram training, iteration by iteration, and one word's lattice.

Widgets -> the trace (trained on the Corpus page, read only) -> pure helpers
(playground.unigram_view, charts) -> render. A step is one EM step or one pruning (step 0: the
seed pieces; the last: the final vocabulary), stepped as on the Merges page: the stepper
(playground/browser_stepper.py) holds the controls, the keys (← → Home End Space) and autoplay,
and a window of steps it draws into the hosts below at once; the run it then starts is one
st.fragment (_stepped) holding only the stepper.

    this step     one sentence; vocabulary size and loss over the whole run, this step marked
    pieces        a pruning: the pieces it removed as bars of their loss; otherwise the pieces'
                  scores (the best ones)
    lattice       one short word: every segmentation with its log-probability and share, the
                  Viterbi path outlined
The step and the lattice's word live in the URL (?step=3&word=the): a reload or a link reopens them.
"""
from __future__ import annotations

from typing import Optional

import streamlit as st

from playground import charts, html_panel, markup, state, unigram_control as uc, unigram_view as uv, views
from playground.state import UNIGRAM_LABEL, UnigramKeys as K, UnigramResult
from playground.startup import through_app

through_app()   # a deep link on a new server (or AppTest) may run this file without app.py


def _plot(fig, key: str) -> None:
    st.plotly_chart(fig, theme="streamlit", config={"displayModeBar": False}, key=key)


# ---------------------------------------------------------------- a step's HTML (the hosts')

def _pieces(it: uv.Iteration) -> str:
    if it.kind == "prune":
        unused = sum(1 for _, loss in it.pruned if loss is None)
        return (f'<div class="ug-pieces" data-kind="prune">{charts.pruned_loss_html(it.pruned)}</div>'
                + markup.caption("Each removed piece's loss: how much the corpus's log-likelihood drops when its "
                                 "words use their second-best segmentation instead. The smallest go first"
                                 + (f"; {unused:,} (grey) were on no word's best path at all." if unused else ".")))
    return (f'<div class="ug-pieces" data-kind="scores">{charts.piece_scores_html(it.pieces)}</div>'
            + markup.caption("A piece's score is its log-probability: a segmentation's score is the sum of its "
                             "pieces'."))


def _lattice(it: uv.Iteration, word: Optional[str], metaspace: bool) -> str:
    if not word:
        return '<div class="mg-info">Type a word to see its lattice.</div>'
    try:
        lat = uv.word_lattice(it.pieces, word, metaspace=metaspace)
    except ValueError as e:   # the word's length: the same at every step
        return f'<div class="mg-error">{markup.text(f"“{word}”: {e}. Pick a shorter word.")}</div>'
    return uv.lattice_html(lat) + markup.caption(uv.lattice_caption(lat))


def step_parts(result: UnigramResult, k: int, word: Optional[str]) -> dict[str, str]:
    """Host key -> HTML of step k: its sentence, the curves' mark, the pieces' bars and the word's
    lattice, each with its caption. Kept per step and word (unigram_control.kept_parts)."""
    return uc.kept_parts(result, k, word, lambda: _made_parts(result, k, word))


def _made_parts(result: UnigramResult, k: int, word: Optional[str]) -> dict[str, str]:
    steps = uc.steps_of(result)
    it = steps[k]
    return {K.SENTENCE: f'<div class="mg-sentence mg-small" data-step="{k}">{markup.text(uv.describe(steps, k))}</div>',
            K.CURVE_MARKS_PANEL: charts.unigram_curve_marks(steps, k),
            K.PIECES: _pieces(it),
            K.LATTICE: _lattice(it, word, result.trace.config.metaspace)}


# ---------------------------------------------------------------- the page

st.title(UNIGRAM_LABEL)
result = state.get_unigram()
if result is None:
    st.info(f"No {UNIGRAM_LABEL} trained yet: on the Corpus page, turn on “Train {UNIGRAM_LABEL} too”, then press "
            "Train.")
    st.page_link("pages/corpus.py", label="Go to the Corpus page", icon=":material/description:")
    st.stop()

st.caption(f"Trained on: {views.md_escape(result.corpus_name)} · keys, wherever you clicked: ← → step, "
           "Home / End first and last, Space play or pause")
# the link's step and word (?step=3&word=the), read once; what it could not use is said here, in
# a container there at every run, so that what follows keeps its place from run to run
with st.container():
    for msg in uc.open_link(result):
        st.warning(views.md_escape(msg), icon=":material/link:")
# the lattice's word: by default the one with the most segmentations under the seed pieces, the
# same at every step. Its box is drawn by the whole run, below the step's hosts; a new word reruns
# the whole page, and the stepper drops the steps it holds (they draw the old word's lattice)
words, richest = uc.lattice_choice(result, state.get_corpus())
word = uc.get_view().word or richest


@st.fragment
def _stepped(result: UnigramResult, word: Optional[str]) -> None:
    """Everything a step changes. The step itself is drawn by the browser (the stepper); the run it
    then starts applies what it told, writes the address (a told step: the stepper writes it) and
    sends the steps the window lacks, only this function's element: the hosts, the curves' figure,
    the word's box and the sidebar are neither rerun nor sent again."""
    uc.write_link(result, told=uc.apply_told(result))
    uc.show_stepper(result, word, lambda k: step_parts(result, k, word))


def _view(result: UnigramResult, word: Optional[str]) -> None:
    """The step's hosts, drawn by the page's whole run at the server's step (the stepper draws each
    later step into them), with what does not change from step to step around them."""
    parts = step_parts(result, uc.current_step(result), word)
    html_panel.host(parts[K.SENTENCE], key=K.SENTENCE)
    for note in result.trace.notes:
        st.warning(f"{UNIGRAM_LABEL}: {views.md_escape(note)}.", icon=":material/content_cut:")
    # one under the other: side by side, at 1024 pixels with the sidebar open, the titles ran together
    # the figure is the same at every step; the step's mark is a few spans laid over it
    # (style.css: .st-key-unigram_curve_marks)
    with st.container(key=K.CURVES_BOX):
        _plot(uc.curves_chart(result), K.CURVES)
        with st.container(key=K.CURVE_MARKS):
            html_panel.host(parts[K.CURVE_MARKS_PANEL], key=K.CURVE_MARKS_PANEL)
    st.caption("Over the whole training: EM re-scores the pieces (and drops those expected less than half a "
               "time), each pruning removes the least useful; the loss is the corpus's negative log-likelihood "
               "per word under the pieces the EM step started from. The red dot and dashed line mark this step.")
    html_panel.host(parts[K.PIECES], key=K.PIECES)

    st.header("One word's lattice")
    options = list(dict.fromkeys(([word] if word else []) + list(words)))
    state.show_widget(K.WORD, word)
    st.selectbox("Word", options, key=K.WORD, accept_new_options=True, on_change=uc.on_word, width=320,
                 help=f"A word of the corpus (its most frequent short ones are offered), or type any word of "
                      f"up to {uv.MAX_LATTICE_CHARS - 1} characters.")
    with st.container(key=K.LATTICE_BOX):
        html_panel.host(parts[K.LATTICE], key=K.LATTICE)


_stepped(result, word)
_view(result, word)
