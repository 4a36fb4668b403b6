"""Token spans as HTML: the text drawn as coloured tokens, Tiktokenizer style. Pure functions.

Every piece of user text goes through `html.escape` before it reaches the HTML; tests push
`<img src=x onerror=alert(1)>` and friends through every path here.

Colours are chosen by token id (palette[id mod N]) so they stay put while the text is edited,
moved to the next palette entry when the left neighbour already has that colour (REFERENCES.md),
so neighbours never share one, even `Ċ Ċ`.
"""
from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Iterable, Optional

from core.encoding import Encoding

MAX_DRAWN_CHARS = 20_000

# Light fills with dark text: readable on a projector in light and dark themes alike.
PALETTE = ("#FFD6A5", "#CAFFBF", "#9BF6FF", "#BDB2FF", "#FFC6FF", "#FDFFB6", "#A0C4FF", "#FFADAD",
           "#D0F4DE", "#E4C1F9", "#F1C0E8", "#B9FBC0")

VISIBLE_WHITESPACE = {" ": "⋅", "\t": "→", "\n": "↵", "\r": "␍"}

_STYLE = """<style>
.tp-tokens{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:1.15rem;
 line-height:2.1;white-space:pre-wrap;word-break:break-all;color:#111}
.tp-tokens .tp-t{border-radius:4px;padding:1px 1px;margin:0 1px 0 0;border:1px solid rgba(0,0,0,.18)}
.tp-tokens .tp-t.tp-hl{outline:3px solid #D00000;outline-offset:1px;font-weight:700}
.tp-tokens .tp-t.tp-special{font-style:italic;border-style:dashed}
.tp-tokens .tp-t.tp-bytes{font-size:.85em}
.tp-tokens .tp-t:hover{outline:3px solid #111}
%s
</style>"""


def token_colours(ids: Iterable[int]) -> list[int]:
    """Palette index per token: by id, bumped when it equals the left neighbour's."""
    out: list[int] = []
    n = len(PALETTE)
    for i in ids:
        c = i % n
        if out and out[-1] == c:
            c = (c + 1) % n
        out.append(c)
    return out


def token_label(token: str, data: bytes) -> tuple[str, bool]:
    """What a token shows: its text, or `<0xE4><0xBD>` for a partial UTF-8 sequence (never `�`).
    Returns (label, is_bytes)."""
    if not data:
        return token, False
    try:
        return data.decode("utf-8"), False
    except UnicodeDecodeError:
        return "".join(f"<0x{b:02X}>" for b in data), True


def show_whitespace(s: str) -> str:
    return "".join(VISIBLE_WHITESPACE.get(c, c) for c in s)


@dataclass(frozen=True)
class Segment:
    """One drawn box: usually one token; in the grouped view, the tokens that make whole characters."""
    indices: tuple[int, ...]
    label: str
    is_bytes: bool
    special: bool


def segments(enc: Encoding, grouped: bool = False) -> list[Segment]:
    out: list[Segment] = []
    pending: list[int] = []
    buf = b""
    for i, (tok, data) in enumerate(zip(enc.tokens, enc.token_bytes)):
        label, is_bytes = token_label(tok, data)
        if not grouped or (not is_bytes and not pending):
            if pending:
                out.append(_bytes_segment(enc, pending, buf))
                pending, buf = [], b""
            out.append(Segment((i,), label, is_bytes, not data))
            continue
        pending.append(i)
        buf += data
        try:
            text = buf.decode("utf-8")
        except UnicodeDecodeError:
            continue
        out.append(Segment(tuple(pending), text, False, False))
        pending, buf = [], b""
    if pending:
        out.append(_bytes_segment(enc, pending, buf))
    return out


def _bytes_segment(enc: Encoding, idx: list[int], buf: bytes) -> Segment:
    return Segment(tuple(idx), "".join(f"<0x{b:02X}>" for b in buf), True, False)


def _title(enc: Encoding, indices: tuple[int, ...]) -> str:
    parts = []
    for i in indices:
        data = enc.token_bytes[i]
        hexes = " ".join(f"{b:02X}" for b in data) or "—"
        parts.append(f"id {enc.ids[i]} · {enc.tokens[i]!r} · bytes {hexes}")
    return "\n".join(parts)


def render_tokens(enc: Encoding, *, show_ids: bool = False, visible_whitespace: bool = False,
                  grouped: bool = False, highlight_ids: Optional[set[int]] = None,
                  max_chars: int = MAX_DRAWN_CHARS) -> tuple[str, bool]:
    """HTML of the encoded text as coloured spans; (html, truncated).

    Hovering a token shows its id, string and bytes (title) and outlines every token with the same
    id (CSS :has, no script). Tokens starting at or beyond `max_chars` are not drawn.
    """
    segs = segments(enc, grouped)
    colours = token_colours(enc.ids[s.indices[0]] for s in segs)
    highlight_ids = highlight_ids or set()
    parts, truncated, ids_present = [], False, set()
    for seg, colour in zip(segs, colours):
        first = seg.indices[0]
        if enc.offsets[first][0] >= max_chars:
            truncated = True
            break
        seg_ids = [enc.ids[i] for i in seg.indices]
        ids_present.update(seg_ids)
        if show_ids:
            text = " ".join(map(str, seg_ids))
        else:
            text = show_whitespace(seg.label) if visible_whitespace else seg.label
        text = html.escape(text)
        if not show_ids and visible_whitespace:
            text = text.replace("↵", "↵\n")
        classes = ["tp-t", f"tp-id{seg_ids[0]}"]
        if any(i in highlight_ids for i in seg_ids):
            classes.append("tp-hl")
        if seg.special:
            classes.append("tp-special")
        if seg.is_bytes:
            classes.append("tp-bytes")
        parts.append(f'<span class="{" ".join(classes)}" style="background:{PALETTE[colour]}" '
                     f'title="{html.escape(_title(enc, seg.indices), quote=True)}">{text}</span>')
        if show_ids:
            parts.append(" ")
    # hover one token: outline every other token with the same id
    same_id = "\n".join(f".tp-tokens:has(.tp-id{i}:hover) .tp-id{i}{{outline:3px solid #111}}"
                        for i in sorted(ids_present)[:5000])
    body = f'<div class="tp-tokens">{"".join(parts)}</div>'
    return (_STYLE % same_id) + body, truncated


def token_boundaries(enc: Encoding) -> set[int]:
    """Character positions where a token ends (inside the text), ignoring zero-width tokens."""
    ends = set()
    for s, e in enc.offsets:
        if e > s:
            ends.add(e)
    return ends


def boundary_agreement(text: str, a: Encoding, b: Encoding) -> tuple[set[int], set[int], set[int], float]:
    """(shared, only in a, only in b, share of boundaries shared = |a ∩ b| / |a ∪ b|)."""
    ba = {p for p in token_boundaries(a) if 0 < p < len(text)}
    bb = {p for p in token_boundaries(b) if 0 < p < len(text)}
    union = ba | bb
    share = len(ba & bb) / len(union) if union else 1.0
    return ba & bb, ba - bb, bb - ba, share


def render_boundaries(text: str, a: Encoding, b: Encoding, *, max_chars: int = MAX_DRAWN_CHARS) -> tuple[str, float]:
    """The text with a mark at every boundary: green where both cut, orange where only A cuts,
    blue where only B cuts. Returns (html, share)."""
    shared, only_a, only_b, share = boundary_agreement(text, a, b)
    marks = {p: ("tp-both", "│") for p in shared}
    marks.update({p: ("tp-a", "▼") for p in only_a})
    marks.update({p: ("tp-b", "▲") for p in only_b})
    out = []
    shown = text[:max_chars]
    for i, ch in enumerate(shown):
        if i in marks:
            cls, sym = marks[i]
            out.append(f'<span class="{cls}">{sym}</span>')
        out.append(html.escape(ch))
    style = ("<style>.tp-bound{font-family:ui-monospace,monospace;font-size:1.15rem;line-height:2;"
             "white-space:pre-wrap;word-break:break-all}.tp-both{color:#1B7F1B;font-weight:700}"
             ".tp-a{color:#C45100;font-weight:700}.tp-b{color:#0047AB;font-weight:700}</style>")
    return style + f'<div class="tp-bound">{"".join(out)}</div>', share
