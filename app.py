"""Tokenizer Playground: the router and frame. Run with `streamlit run app.py` (or `make run`).

Every run: page config, session defaults (once), the navigation, the page, then the sidebar's
status (drawn after the page so it already shows what the page just trained); once a process, at
the end of its first run, the imports its first page did not need and the heap's first settle
(startup.import_later).
"""
import sys
from pathlib import Path

import streamlit as st

from core.errors import PlaygroundError
from playground import corpus_store, html_panel, state, style, views
from playground.startup import import_later, startup_corpus


def _drop_link_parameters() -> None:
    """The Merges, Compare, Inspect, Unigram and Token tax pages read their own link parameters
    (?tokenizer=bpe&step=3, ?text=…). On the Corpus page they are removed from the address with a
    message, rather than kept there doing nothing. The app's link (?corpus=…, every page) stays: corpus_store.py."""
    names = state.clear_url_params()
    if names:
        st.toast(views.ignored_link_message(names), icon=":material/link_off:", duration="long")   # a sentence to read: 10 s


# The icon is a file of ours: a Material icon as page_icon is fetched from a font server on every run.
ICON = Path(__file__).resolve().parent / "playground" / "static" / "icon.png"
st.set_page_config(page_title="Tokenizer Playground", page_icon=str(ICON), layout="wide")
style.inject()   # the one stylesheet (playground/style.css), for whichever page runs
html_panel.preload()
state.init()
if state.first_run():
    try:  # `streamlit run app.py -- --corpus PATH`: start every session with that corpus
        corpus = startup_corpus(sys.argv[1:])
        if corpus is not None and state.get_corpus() is None:
            state.set_corpus(corpus)
    except PlaygroundError as e:
        state.set_notice("error", views.md_escape(str(e)))

# F5 or a copied link: the corpus, settings and trained results the address names (once per session)
corpus_store.restore()

merges_page = st.Page("pages/merges.py", title="Merges", icon=":material/call_merge:")
compare_page = st.Page("pages/compare.py", title="Compare", icon=":material/compare_arrows:")
inspect_page = st.Page("pages/inspect.py", title="Inspect", icon=":material/search:")
languages_page = st.Page("pages/languages.py", title="Token tax", icon=":material/translate:")
unigram_page = st.Page("pages/unigram.py", title="Unigram", icon=":material/account_tree:")
page = st.navigation([
    st.Page("pages/corpus.py", title="Corpus", icon=":material/description:", default=True),
    merges_page,
    compare_page,
    inspect_page,
    unigram_page,
    languages_page,
])
# by identity, not url_path: a page made in bare Python (a spawned worker re-running __main__) has none
if not any(page is p for p in (merges_page, compare_page, inspect_page, unigram_page, languages_page)):
    _drop_link_parameters()
corpus_store.sync()
corpus_store.show_link_problem()
page.run()
corpus_store.sync()   # what the page just loaded or trained

with st.sidebar:
    st.subheader("Corpus")
    corpus = state.get_corpus()
    if corpus is None:
        st.caption("None yet: pick a preset, paste or upload on the Corpus page.")
    else:
        st.markdown(f"**{views.md_escape(corpus.name)}**")
        st.caption(corpus.size_label)
    st.subheader("Trained")
    results = state.get_results()
    if results is None:
        st.caption("Nothing trained yet.")
    else:
        for model, trace in results.traces().items():
            st.markdown(f":material/check: {state.MODEL_LABELS[model]}: {len(trace.steps):,} merges, "
                        f"{len(trace.vocab):,} tokens")
        unigram = state.get_unigram()
        if unigram is not None:
            st.markdown(f":material/check: {state.UNIGRAM_LABEL}: {len(unigram.trace.em_steps):,} EM steps, "
                        f"{len(unigram.trace.vocab):,} pieces")
        if corpus is None or results.corpus_digest != corpus.digest:
            st.caption(f"Trained on an earlier corpus: {views.md_escape(results.corpus_name)}")

import_later()   # once a process: what the first page did not need (pandas), in the background
