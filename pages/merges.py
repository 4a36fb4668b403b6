"""Merges page (placeholder): will step through each trainer's merges one at a time.

To come: step with buttons and keys (Left/Right), the candidates and their counts at each step,
why the winner won (the tie rule), the words each merge changed, and the vocabulary growing.
For now it lists the first merges of the trained results, read from the session state.
"""
import streamlit as st

from playground import state, views
from playground.state import MODEL_LABELS

st.title("Merges")
st.markdown("Here you will step through every merge a trainer made: which pairs were candidates, "
            "why the winner won, and which words changed. Coming soon; for now, the first merges.")

results = state.get_results()
if results is None:
    st.info("Nothing trained yet: load a corpus and press Train on the Corpus page.")
    st.page_link("pages/corpus.py", label="Go to the Corpus page", icon=":material/description:")
else:
    st.caption(f"Trained on: {views.md_escape(results.corpus_name)}")
    for col, (model, trace) in zip(st.columns(3), results.traces().items()):
        with col:
            st.subheader(MODEL_LABELS[model])
            st.caption(f"{len(trace.steps):,} merges · stopped: {trace.stop_reason}")
            st.dataframe(views.merges_frame(trace, limit=20), hide_index=True)
