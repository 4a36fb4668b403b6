"""The floor for bench/browser.py: the least a Streamlit app can do for a click. One button; the
click reruns the script and redraws one line of text. Served by `streamlit run` exactly as the
app is, so what separates their figures is what the app does."""
import streamlit as st

if st.button("Click"):
    st.session_state.clicks = st.session_state.get("clicks", 0) + 1
st.write(f"Clicked {st.session_state.get('clicks', 0)} times")
