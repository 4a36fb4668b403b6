"""A page's step, drawn by the browser: the stepper (static/browser_stepper.js) holds the step's
controls, its keys and autoplay, and a window of steps (each the HTML of the page's hosts at that
step), draws a step it holds at once and tells the server. The Merges and the Unigram pages use it
(merges_control.py and unigram_control.py: what a step is there, and what a tell changes). This
module is its server side:

    show(key, ...)                 the stepper, with the steps the page lacks (parts_at(k): host -> HTML)
    take(key, last_told, trace)    the page's newest tell, checked, if the server has not applied it
    write_link(params, last, told) the page's parameters into the address (a told step: the stepper's)
    window(step, last)             the steps a run makes sure the page holds
    pack(html) / unpack(value)     a host's HTML as sent in the window (lossless)
    stepper_data(element)          what a stepper element carries (tests; the window unpacked)

The protocol (docs/architecture.md, "The Merges page's step"): each tell carries a sequence number,
the step, play state and speed, the trace and view it was about, and the steps the page holds; the
server applies a tell once, and says in the stepper's data which it has applied. Until the server
has applied its newest tell the page keeps what it shows; once it has, the server's state stands.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Callable, Optional

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from playground import state, stepper
from playground.js_component import mounted

NAME = "tp_stepper"
BEHIND, AHEAD = 1, 3            # steps sent around the current one (the page keeps more: browser_stepper.js)
PACK_OVER = 8_000               # characters: a host's HTML longer than this is sent packed, if that is smaller
BOX_START = '<span class="tp-t '    # every token box begins so (spans.py)


@dataclass(frozen=True)
class Tell:
    """A tell the server has not applied yet. `taken`: it was about the trace in view (a tell for
    another, sent before a switch, is only counted); then step and speed as sent, checked as any
    input (an unknown speed is None; the page clamps the step), and whether it plays."""
    seq: int
    taken: bool
    step: Optional[int] = None
    speed: Optional[float] = None
    playing: bool = False


def window(step: int, last: int) -> range:
    """The steps a run makes sure the page holds around `step`: a Next or two, and a Previous,
    are drawn by the browser at once."""
    return range(max(0, step - BEHIND), min(last, step + AHEAD) + 1)


def digest(value) -> str:
    """A short name for what the page is shown (a trace's cache key, a view's settings): nothing of
    a corpus's name goes to the page in it."""
    return hashlib.sha1(repr(value).encode("utf-8")).hexdigest()[:16]


def told(key: str) -> Optional[dict]:
    """What the page last told the server (browser_stepper.js: its state "told"), or None."""
    value = st.session_state.get(key)
    found = value.get("told") if hasattr(value, "get") else None
    return found if isinstance(found, dict) else None


def take(key: str, last_told: int, trace: str) -> Optional[Tell]:
    """The stepper `key`'s newest tell, if its sequence number is past `last_told` (the page's
    view keeps the last one applied), read as sent about `trace` (digest); else None."""
    news = told(key)
    seq = news.get("seq") if news else None
    if not _whole(seq) or seq <= last_told:
        return None
    if news.get("trace") != trace:
        return Tell(seq, False)
    step, speed = news.get("step"), news.get("speed")
    return Tell(seq, True, step if _whole(step) else None,
                float(speed) if isinstance(speed, (int, float)) and float(speed) in stepper.SPEEDS else None,
                bool(news.get("playing")))


def _whole(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def held(key: str, view: str) -> set[int]:
    """The steps the page said it holds for the view `view` (none if its last tell was for another)."""
    news = told(key)
    if not news or news.get("view") != view or not isinstance(news.get("have"), list):
        return set()
    return {k for k in news["have"] if _whole(k)}


def write_link(params: dict[str, str], last: Optional[tuple], told: bool) -> Optional[tuple]:
    """Write a stepped page's parameters into the address; returns them as the page keeps them
    (sorted items, its view's `url`). A run that took a tell (`told`) and differs from the address
    last written (`last`) only in its step writes nothing and keeps `last`: the stepper has written
    that step into the address itself (browser_stepper.js: address), and each address the server
    writes makes Streamlit redraw its whole app in the browser, ~20 ms of a step's run. Until the
    next write Streamlit sends the address the server last wrote with each run, which is `last`,
    so it opens no link (state.link_to_open)."""
    seen = tuple(sorted(params.items()))
    if told and last and stepper.without_step(last) == stepper.without_step(seen):
        return last
    state.set_url_params(params)
    return seen


def show(key: str, *, view: str, trace: str, current: int, last: int, playing: bool, speed: float, last_told: int,
         parts_at: Callable[[int], dict[str, str]], slider_help: str) -> None:
    """The controls, keys and autoplay, with the window of steps the page lacks: `parts_at(k)` is
    step k's host key -> HTML. `view` names what a step's HTML depends on besides the step (the
    page drops the steps it holds when it changes), `trace` what a tell is about; `slider_help` is the
    slider's tooltip."""
    have = held(key, view)
    sent = {str(k): {name: pack(html) for name, html in parts_at(k).items()}
            for k in window(current, last) if k not in have}
    data = {"session": _session(), "view": view, "trace": trace, "step": current, "last": last,
            "playing": playing, "speed": speed, "told": last_told, "speeds": list(stepper.SPEEDS),
            "help": slider_help, "window": sent}
    mounted(NAME, "browser_stepper.js")(key=key, data=data, on_told_change=_told_changed)


def pack(html: str):
    """A host's HTML as the window carries it: as it is, or, for the corpus's thousands of token
    boxes (~170 KB a step on the KJV, most of a step's run), packed: cut before every box, each
    distinct piece once and the order of the pieces ({"pieces": [...], "order": [...]}, ~30 KB;
    the boxes of one token at one colour are the same HTML). Lossless: unpack(pack(html)) == html,
    and browser_stepper.js joins the pieces the same way. Kept as it is when that is not smaller (a
    Chinese corpus's boxes are mostly distinct characters)."""
    if len(html) <= PACK_OVER:
        return html
    cut = html.split(BOX_START)
    pieces = cut[:1] + [BOX_START + rest for rest in cut[1:]]
    index: dict[str, int] = {}
    order = [index.setdefault(piece, len(index)) for piece in pieces]
    if sum(map(len, index)) + 5 * len(order) >= len(html):     # an index costs up to ~5 characters
        return html
    return {"pieces": list(index), "order": order}


def unpack(value) -> str:
    """The HTML that pack() packed (or a string as it is)."""
    if isinstance(value, str):
        return value
    pieces = value["pieces"]
    return "".join(pieces[i] for i in value["order"])


def _session() -> str:
    """This server session, as the page is told it: a page that outlived its session (the server
    restarted under it) counts its tells anew for the new one."""
    ctx = get_script_run_ctx()
    return hashlib.sha1((ctx.session_id if ctx else "").encode("utf-8")).hexdigest()[:12]


def _told_changed() -> None:
    """The page told a step: applied by the run it starts (apply_told), as AppTest's runs do too."""


def stepper_data(element) -> dict:
    """What a stepper element carries (AppTest: its element of type "bidi_component"), its window's
    HTML unpacked."""
    data = json.loads(element.proto.json)
    data["window"] = {k: {name: unpack(v) for name, v in parts.items()} for k, parts in data["window"].items()}
    return data
