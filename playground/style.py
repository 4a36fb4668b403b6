"""The app's one stylesheet (style.css beside this file), injected once per page run.

app.py calls `inject()` before the page runs; the view builders (spans, compare, inspect,
stepper) emit bare HTML with the classes the stylesheet defines. The token palette's classes
(.tp-c0 …) are generated here from spans.PALETTE, so the colours have one source.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import streamlit as st

from playground.spans import PALETTE

STYLESHEET = Path(__file__).with_name("style.css")


@lru_cache(maxsize=1)
def stylesheet() -> str:
    """The stylesheet's text, palette classes included (read once per process)."""
    palette = "\n".join(f".tp-tokens .tp-c{k}{{background:{c}}}" for k, c in enumerate(PALETTE))
    return STYLESHEET.read_text(encoding="utf-8") + "\n" + palette + "\n"


def page_html() -> str:
    """What inject() draws: the stylesheet in a <style> element."""
    return f"<style>\n{stylesheet()}</style>"


def inject() -> None:
    """Put the stylesheet on the page (a style-only st.html takes no room in the layout)."""
    st.html(page_html())
