"""Text areas that update as you type: static/live_text.js, a JavaScript-only custom component
(st.components.v2, served from the repository, no network), commits a keyed text area after a
200 ms pause, as Ctrl+Enter would; the page reruns with the text. It also draws the token boxes'
hover: the card, and every box of the hovered id lit up (Compare's panels, the Merges page's corpus).

    enable()    mount it (once per page run; the script attaches itself once per browser tab)

The script is a fixed file read once per process: no user text reaches it, and it draws nothing.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import streamlit as st

SCRIPT = Path(__file__).with_name("static") / "live_text.js"
KEY = "tp_live_text"


@lru_cache(maxsize=1)
def script() -> str:
    return SCRIPT.read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def _component():
    return st.components.v2.component("tp_live_text", js=script(), isolate_styles=False)


def enable() -> None:
    _component()(key=KEY, height=0)
