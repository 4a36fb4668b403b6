"""The app's shared code, beside pages/: session state (state.py), cached training
(training.py) and pure helpers that turn engine results into what pages draw (views.py and the
other rendering modules). Pages import from here; the engine (core/) never imports this package
or Streamlit.
"""
