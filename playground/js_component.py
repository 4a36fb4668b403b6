"""The app's JavaScript-only custom components (st.components.v2: no iframe), each a fixed file
in static/ read once per process and served from the repository (no network). The app's stylesheet
reaches into them (isolate_styles=False), as it reaches st.html's output.

    js_component.mounted("tp_live_text", "live_text.js")(key=..., height=0)
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import streamlit as st

STATIC = Path(__file__).with_name("static")


@lru_cache(maxsize=None)
def mounted(name: str, filename: str):
    """The component `name` running static/`filename` (made once per process)."""
    return st.components.v2.component(name, js=(STATIC / filename).read_text(encoding="utf-8"),
                                      isolate_styles=False)
