"""Inspect page (placeholder): will show one encoding in full detail.

To come: the pipeline stage by stage (normalizer, pre-tokenizer, model, post-processor) on a text
you type, each token with its id, bytes and offsets, and the encoders side by side (merges,
greedy, longest-match). For now it shows the trained vocabularies, read from the session state.
"""
import streamlit as st

from playground import state, views
from playground.state import MODEL_LABELS

st.title("Inspect")
st.markdown("Here you will follow one text through the whole pipeline (normalize, pre-tokenize, "
            "model, post-process) and see every token's id, bytes and offsets. Coming soon; for "
            "now, the trained vocabularies.")

results = state.get_results()
if results is None:
    st.info("Nothing trained yet: load a corpus and press Train on the Corpus page.")
    st.page_link("pages/corpus.py", label="Go to the Corpus page", icon=":material/description:")
else:
    st.caption(f"Trained on: {views.md_escape(results.corpus_name)}")
    for col, (model, trace) in zip(st.columns(3), results.traces().items()):
        with col:
            st.subheader(MODEL_LABELS[model])
            st.caption(f"{len(trace.vocab):,} tokens: {len(trace.special_tokens)} special, "
                       f"{len(trace.alphabet):,} initial symbols, {len(trace.steps):,} merges")
            st.dataframe({"id": list(range(len(trace.vocab))), "token": [views.show_spaces(t) for t in trace.vocab]},
                         hide_index=True, height=360)
