"""The one place user text is escaped for HTML. Every view builder that writes HTML (spans,
compare, inspect, stepper) calls these; no other module calls `html.escape`.

    text("<b>")        == "&lt;b&gt;"        element content (quotes escaped too, as html.escape)
    attr('say "hi" \'') == "say &quot;hi&quot; '"   inside a double-quoted attribute: `"` escaped,
                                               `'` kept readable (a tooltip shows it as typed)
"""
from __future__ import annotations

import html as _html


def text(s: str) -> str:
    """Text placed in an element (or a quoted attribute): & < > " ' escaped."""
    return _html.escape(s, quote=True)


def attr(s: str) -> str:
    """Text for a double-quoted attribute value that keeps `'` as typed: & < > " escaped."""
    return _html.escape(s, quote=False).replace('"', "&quot;")


def caption(s: str) -> str:
    """A caption in a panel's HTML, as st.caption draws one (style.css: .mg-caption)."""
    return f'<div class="mg-caption">{text(s)}</div>'
