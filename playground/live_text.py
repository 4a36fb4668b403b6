"""Text areas that update as you type: static/live_text.js, a JavaScript-only custom component
(st.components.v2, served from the repository, no network), commits a keyed text area after a
200 ms pause, as Ctrl+Enter would; the page reruns with the text. It also draws the token boxes'
hover: the card, and every box of the hovered id lit up (Compare's panels, the Merges page's corpus).

    enable()    mount it (once per page run; the script attaches itself once per browser tab)

The script is a fixed file read once per process: no user text reaches it, and it draws nothing.
"""
from __future__ import annotations

from playground.js_component import mounted

KEY = "tp_live_text"


def enable() -> None:
    mounted("tp_live_text", "live_text.js")(key=KEY, height=0)
