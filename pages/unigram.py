"""Unigram page: step through a Unigram training, iteration by iteration, and one word's lattice.

Widgets -> the trace (trained on the Corpus page, read only) -> pure helpers
(playground.unigram_view, charts) -> render. A step is one EM step or one pruning (step 0: the
seed pieces; the last: the final vocabulary); the same keys as the Merges page step it
(← → Home End Space: playground/merges_keys.js, told by the state marker to click this page's
buttons). A step reruns only the fragment holding all of that (_stepped), not the app around it.

    this step     one sentence; vocabulary size and loss over the whole run, this step marked
    pieces        a pruning: the pieces it removed as bars of their loss; otherwise the pieces'
                  scores (the best ones)
    lattice       one short word: every segmentation with its log-probability and share, the
                  Viterbi path outlined
"""
from __future__ import annotations

from typing import Optional

import streamlit as st

from playground import charts, markup, merges_control, state, stepper, unigram_control as uc, unigram_view as uv, views
from playground.state import UNIGRAM_LABEL, UnigramKeys as K
from playground.startup import through_app

through_app()   # a deep link on a new server (or AppTest) may run this file without app.py


def _plot(fig, key: str) -> None:
    st.plotly_chart(fig, theme="streamlit", config={"displayModeBar": False}, key=key)


def _controls(view: state.UnigramView, current: int, last: int) -> None:
    row = st.container(horizontal=True, vertical_alignment="bottom")
    with row:
        st.button("First", key=K.FIRST, icon=":material/first_page:", shortcut="Home",
                  on_click=uc.on_nav, args=("first",), disabled=current == 0)
        st.button("Previous", key=K.PREV, icon=":material/chevron_left:", shortcut="Left",
                  on_click=uc.on_nav, args=("prev",), disabled=current == 0)
        st.button("Pause" if view.playing else "Play", key=K.PLAY, shortcut="Space", type="primary",
                  icon=":material/pause:" if view.playing else ":material/play_arrow:", on_click=uc.on_play,
                  disabled=last == 0)
        st.button("Next", key=K.NEXT, icon=":material/chevron_right:", shortcut="Right",
                  on_click=uc.on_nav, args=("next",), disabled=current >= last)
        st.button("Last", key=K.LAST, icon=":material/last_page:", shortcut="End",
                  on_click=uc.on_nav, args=("last",), disabled=current >= last)
        state.show_widget(K.SPEED, view.speed)
        st.selectbox("Autoplay speed", stepper.SPEEDS, key=K.SPEED, on_change=uc.on_speed,
                     format_func=lambda s: f"{s:g} s a step", width=170, label_visibility="collapsed",
                     help="How long Play shows each step.")
    state.show_widget(K.STEP, current)
    st.slider("Step", 0, last, key=K.STEP, on_change=uc.on_slider,
              help="Step 0: the seed pieces; then each EM step and each pruning; the last: the final vocabulary.")


def _pieces(it: uv.Iteration) -> None:
    if it.kind == "prune":
        with st.container(key=K.PRUNED):
            st.html(charts.pruned_loss_html(it.pruned))
        unused = sum(1 for _, loss in it.pruned if loss is None)
        st.caption("Each removed piece's loss: how much the corpus's log-likelihood drops when its words use "
                   "their second-best segmentation instead. The smallest go first"
                   + (f"; {unused:,} (grey) were on no word's best path at all." if unused else "."))
    else:
        with st.container(key=K.SCORES):
            st.html(charts.piece_scores_html(it.pieces))
        st.caption("A piece's score is its log-probability: a segmentation's score is the sum of its pieces'.")


def _lattice(it: uv.Iteration, words: tuple[str, ...], richest: Optional[str], view: state.UnigramView,
             metaspace: bool) -> None:
    # by default the word with the most segmentations under the seed pieces: the same at every step
    chosen = view.word if view.word else richest
    options = list(dict.fromkeys(([chosen] if chosen else []) + list(words)))
    state.show_widget(K.WORD, chosen)
    st.selectbox("Word", options, key=K.WORD, accept_new_options=True, on_change=uc.on_word, width=320,
                 help=f"A word of the corpus (its most frequent short ones are offered), or type any word of "
                      f"up to {uv.MAX_LATTICE_CHARS - 1} characters.")
    if not chosen:
        st.info("Type a word to see its lattice.")
        return
    try:
        lat = uv.word_lattice(it.pieces, chosen, metaspace=metaspace)
    except ValueError as e:
        st.warning(f"“{views.md_escape(chosen)}”: {views.md_escape(str(e))}. Pick a shorter word.")
        return
    with st.container(key="unigram_lattice"):
        st.html(uv.lattice_html(lat))
    st.caption(uv.lattice_caption(lat))


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
with st.container(key=merges_control.KEYS_BOX):   # hidden (style.css): the keys and autoplay, run by the browser
    st.html(merges_control.keys_script(), unsafe_allow_javascript=True)


@st.fragment
def _stepped(result) -> None:
    """Everything a step changes: a button, the slider, a key (merges_keys.js clicks the buttons)
    or the lattice's word reruns only this, not the app around it (its frame, sidebar, title)."""
    steps = uc.steps_of(result)
    last = len(steps) - 1
    current = uc.current_step(result)
    view = uc.get_view()
    it = steps[current]
    trace = result.trace
    with st.container(key=K.MARKER):   # hidden (style.css): what the keys and autoplay read
        st.markdown(merges_control.state_marker(current, last, view.playing, view.speed, keys="unigram"),
                    unsafe_allow_html=True)
    _controls(view, current, last)
    st.markdown(f'<div class="mg-sentence mg-small" data-step="{current}">'
                f'{markup.text(uv.describe(steps, current))}</div>', unsafe_allow_html=True)
    for note in trace.notes:
        st.warning(f"{UNIGRAM_LABEL}: {views.md_escape(note)}.", icon=":material/content_cut:")

    # one under the other: side by side, at 1024 pixels with the sidebar open, the titles ran together
    # the figure is the same at every step; the step's mark is a few spans laid over it
    # (style.css: .st-key-unigram_curve_marks)
    with st.container(key=K.CURVES_BOX):
        _plot(uc.curves_chart(result), K.CURVES)
        with st.container(key=K.CURVE_MARKS):
            st.html(charts.unigram_curve_marks(steps, current))
    st.caption("Over the whole training: EM re-scores the pieces (and drops those expected less than half a "
               "time), each pruning removes the least useful; the loss is the corpus's negative log-likelihood "
               "per word under the pieces the EM step started from. The red dot and dashed line mark this step.")
    _pieces(it)

    st.header("One word's lattice")
    corpus = state.get_corpus()
    words, richest = uc.lattice_choice(result, corpus)
    _lattice(it, words, richest, view, trace.config.metaspace)


_stepped(result)
