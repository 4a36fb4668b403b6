"""The Merges page's step, drawn by the browser: the stepper (static/merges_stepper.js) holds the
step's controls, its keys and autoplay, and a window of steps (each the HTML of the page's hosts at
that step), draws a step it holds at once and tells the server. This module is its server side:

    show(view, facts, current, last, parts_at)   the stepper, with the steps the page lacks
    apply_told(results)                   what it told (its state "told"): applied once, checked
    window(step, last)                    the steps a run makes sure the page holds
    pack(html) / unpack(value)            a host's HTML as sent in the window (lossless)
    stepper_data(element)                 what a stepper element carries (tests; the window unpacked)

The protocol (docs/architecture.md, "The Merges page's step"): each tell carries a sequence number,
the step, play state and speed, the trace and view it was about, and the steps the page holds; the
server applies a tell once, and says in the stepper's data which it has applied. Until the server
has applied its newest tell the page keeps what it shows; once it has, the server's state stands.
"""
from __future__ import annotations

import hashlib
import json
from typing import Callable, Optional

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from playground import merges_control as mc
from playground import state, stepper
from playground.js_component import mounted
from playground.state import MergesKeys as K, Results

STEPPER_NAME = "tp_merges_stepper"
BEHIND, AHEAD = 1, 3            # steps sent around the current one (the page keeps more: merges_stepper.js)
PACK_OVER = 8_000               # characters: a host's HTML longer than this is sent packed, if that is smaller
BOX_START = '<span class="tp-t '    # every token box begins so (spans.py)


def window(step: int, last: int) -> range:
    """The steps a run makes sure the page holds around `step`: a Next or two, and a Previous,
    are drawn by the browser at once."""
    return range(max(0, step - BEHIND), min(last, step + AHEAD) + 1)


def view_key(facts: mc.TraceFacts, view: state.MergesView) -> str:
    """What a step's HTML depends on besides the step: the trace, the merge tree's token, lockstep
    (the single view's step is drawn by the lockstep grid then). The page drops the steps it holds
    when it changes. A digest: nothing of the corpus's name goes to the page in it."""
    return hashlib.sha1(repr((facts.key, view.tree_token, view.lockstep)).encode("utf-8")).hexdigest()[:16]


def told() -> Optional[dict]:
    """What the page last told the server (merges_stepper.js: its state "told"), or None."""
    value = st.session_state.get(K.STEPPER)
    found = value.get("told") if hasattr(value, "get") else None
    return found if isinstance(found, dict) else None


def apply_told(results: Results) -> bool:
    """Take the page's newest tell: its step, play state and speed, when it was for the trace in
    view (a tell for another tokenizer, sent before a switch, is only counted). What the browser
    sends is checked as any input: a step is clamped, an unknown speed is ignored. Returns whether
    a tell was taken (the page has written its step into the address: merges_control.write_link)."""
    news, view = told(), mc.get_view()
    seq = news.get("seq") if news else None
    if not isinstance(seq, int) or isinstance(seq, bool) or seq <= view.told:
        return False
    facts = mc.facts_of(results, results.trace(view.model))
    taken = news.get("trace") == trace_digest(facts)
    if taken:
        step = news.get("step")
        if isinstance(step, int) and not isinstance(step, bool):
            mc.go_to(step)
        speed = news.get("speed")
        changes: dict = {}
        if isinstance(speed, (int, float)) and float(speed) in stepper.SPEEDS:
            changes["speed"] = float(speed)
        changes["playing"] = (bool(news.get("playing"))
                              and mc.current_step(results, mc.get_view()) < mc.last_step(results, mc.get_view()))
        mc.set_view(**changes)
    mc.set_view(told=seq)
    return taken


def trace_digest(facts: mc.TraceFacts) -> str:
    """The trace in view, as the page names it in its tells (a digest of its cache key)."""
    return hashlib.sha1(facts.key.encode("utf-8")).hexdigest()[:16]


def held(key: str) -> set[int]:
    """The steps the page said it holds for the view `key` (none if its last tell was for another)."""
    news = told()
    if not news or news.get("view") != key or not isinstance(news.get("have"), list):
        return set()
    return {k for k in news["have"] if isinstance(k, int) and not isinstance(k, bool)}


def show(view: state.MergesView, facts: mc.TraceFacts, current: int, last: int,
         parts_at: Callable[[int], dict[str, str]]) -> None:
    """The controls, keys and autoplay, with the window of steps the page lacks: `parts_at(k)` is
    step k's host key -> HTML (pages/merges.py: view_parts)."""
    key = view_key(facts, view)
    have = held(key)
    sent = {str(k): {name: pack(html) for name, html in parts_at(k).items()}
            for k in window(current, last) if k not in have}
    data = {"session": _session(), "view": key, "trace": trace_digest(facts), "step": current, "last": last,
            "playing": view.playing, "speed": view.speed, "told": view.told,
            "speeds": list(stepper.SPEEDS), "window": sent}
    mounted(STEPPER_NAME, "merges_stepper.js")(key=K.STEPPER, data=data, on_told_change=_told_changed)


def pack(html: str):
    """A host's HTML as the window carries it: as it is, or, for the corpus's thousands of token
    boxes (~170 KB a step on the KJV, most of a step's run), packed: cut before every box, each
    distinct piece once and the order of the pieces ({"pieces": [...], "order": [...]}, ~30 KB;
    the boxes of one token at one colour are the same HTML). Lossless: unpack(pack(html)) == html,
    and merges_stepper.js joins the pieces the same way. Kept as it is when that is not smaller (a
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
