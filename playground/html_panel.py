"""Large HTML the server built, drawn without st.html's round trip: static/html_panel.js, a
JavaScript-only custom component (st.components.v2, no iframe, served from the repository, no
network), sets the HTML into its element as it is.

    show(html, key=...)     draw `html` (one keyed element: a rerun with new HTML updates it in place)
    host(html, key=...)     a panel outside a page's st.fragment that the fragment's feed updates
    feed({key: html}, key=...)   inside the fragment: the hosts' new HTML (the browser sets it in)
    preload()               app.py, every run: the component's code is loaded before a page needs it

A host and its feed: what a fragment's run changes below the fragment (the Merges page's step: its
corpus, merge tree, curves' mark) is drawn outside it by hosts, with the page's whole run, and a
fragment's run sends their new HTML in one feed, which the script sets into them. The fragment's
run then sends one element for all of them: each element a run sends costs the browser Streamlit's
and React's work for it, and a step sent some twenty. Each piece carries the time it was made: a
host shows the newest it was given (docs/architecture.md, "The Merges page's step").

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

import json
import time
from typing import Mapping

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


def host(html: str, *, key: str) -> None:
    """Draw `html` (already escaped) under `key`, as a panel that feed(..., key) updates later."""
    mounted(NAME, "html_panel.js")(key=key, data=_framed(_HOST, {"key": key, "run": _now()}, html.encode("utf-8")))


def feed(parts: Mapping[str, str], *, key: str) -> None:
    """Send the hosts' new HTML (host key -> escaped HTML) in one element, drawn as nothing: the
    browser sets each into its host (one drawn by an earlier run; a host not drawn yet takes it
    when it is)."""
    bodies = [html.encode("utf-8") for html in parts.values()]
    header = {"run": _now(), "parts": [[k, len(b)] for k, b in zip(parts, bodies)]}
    mounted(NAME, "html_panel.js")(key=key, data=_framed(_FEED, header, b"".join(bodies)))


def drawn(element) -> str:
    """The HTML a mounted panel or host shows (AppTest: an element of type "bidi_component"); a
    feed shows none (fed() reads what it carries)."""
    data = element.proto.bytes
    if data[:1] == _FEED:
        return ""
    return (_unframed(data)[1] if data[:1] == _HOST else data).decode("utf-8")


def fed(element) -> dict[str, str]:
    """What a feed carries: host key -> HTML."""
    header, body = _unframed(element.proto.bytes)
    out, at = {}, 0
    for key, size in header["parts"]:
        out[key] = body[at:at + size].decode("utf-8")
        at += size
    return out


# A host's and a feed's data: one byte saying which, a JSON header, a line break, the HTML (UTF-8).
# A plain panel's data is its HTML, which never starts with these bytes (control characters).
_HOST, _FEED = b"\x01", b"\x02"


def _now() -> int:
    """The time in microseconds: whole in JavaScript's numbers (nanoseconds are not), and later than
    any earlier run's, also after the server restarted under a page still open (a monotonic clock
    would start again)."""
    return time.time_ns() // 1000


def _framed(kind: bytes, header: dict, body: bytes) -> bytes:
    return kind + json.dumps(header, separators=(",", ":")).encode("utf-8") + b"\n" + body


def _unframed(data: bytes) -> tuple[dict, bytes]:
    end = data.index(b"\n")
    return json.loads(data[1:end]), data[end + 1:]
