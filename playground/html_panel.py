"""Large HTML the server built, drawn without st.html's round trip: static/html_panel.js, a
JavaScript-only custom component (st.components.v2, no iframe, served from the repository, no
network), sets the HTML into its element as it is.

    show(html, key=...)     draw `html` (one keyed element: a rerun with new HTML updates it in place)
    preload()               app.py, every run: the component's code is loaded before a page needs it

Only what is on screen is drawn: a token list built with spans.render_tokens(batch=spans.BATCH) draws
its first batch of boxes, and the next batches as its scroll box comes near their place. Style,
layout and paint of every box (13,000 for 10,000 characters in four panels) were most of the
browser's time for a Compare run, and a scroll box shows a few hundred.

Why: st.html sanitizes every body with DOMPurify (parse into a DOM, walk every node, serialize)
and React then parses the result again into the page. Compare's token panels are thousands of
spans each; those two passes were most of the browser's script time for a run (bench/browser_profile.py).

Only HTML built by the view builders goes here: every piece of user text in it has been escaped by
playground.markup (the tests push markup through every path), exactly as for st.html. The HTML
goes as UTF-8 bytes (no JSON escaping of non-ASCII text on either side); the script decodes it and
sets it only when it changed. isolate_styles=False: the app's stylesheet (style.css) and the hover
script (live_text.js, document-wide) reach it as they reach st.html's output.
"""
from __future__ import annotations

from playground.js_component import mounted

NAME = "tp_html_panel"
PRELOAD_KEY = "tp_html_panel_preload"


def preload() -> None:
    """An empty panel on every page (hidden: style.css), so the browser has the component's code
    before a page draws a real one. Without it the first visit to Merges drew its corpus view about
    half a second after the run had ended, while the page loaded its charts' code."""
    show("", key=PRELOAD_KEY)


def show(html: str, *, key: str) -> None:
    """Draw `html` (already escaped, from a view builder) under `key` (unique on the page)."""
    mounted(NAME, "html_panel.js")(key=key, data=html.encode("utf-8"))


def drawn(element) -> str:
    """The HTML a mounted panel carries (AppTest: an element of type "bidi_component")."""
    return element.proto.bytes.decode("utf-8")
