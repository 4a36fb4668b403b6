"""Compare page (placeholder): will put the trained tokenizers and pretrained ones side by side.

To come: one text encoded by BPE, byte-level BPE, WordPiece and pretrained tokenizers (GPT-2,
cl100k, o200k, BERT), with token counts, coloured token spans and where their splits differ.
For now it shows the sizes of the trained results, read from the session state.
"""
import streamlit as st

from playground import state, views
from playground.state import MODEL_LABELS

st.title("Compare")
st.markdown("Here you will encode one text with every trained tokenizer and with pretrained ones "
            "(GPT-2, cl100k, o200k, BERT) side by side. Coming soon; for now, what is trained.")

results = state.get_results()
if results is None:
    st.info("Nothing trained yet: load a corpus and press Train on the Corpus page.")
    st.page_link("pages/corpus.py", label="Go to the Corpus page", icon=":material/description:")
else:
    st.caption(f"Trained on: {views.md_escape(results.corpus_name)}")
    rows = [{"tokenizer": MODEL_LABELS[m], **views.trace_summary(t)} for m, t in results.traces().items()]
    st.dataframe(rows, hide_index=True)
