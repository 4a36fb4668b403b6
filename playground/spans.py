"""Token spans as HTML: the text drawn as coloured tokens, Tiktokenizer style. Pure functions.
(Over 400 lines: every view that draws text as token, chunk or boundary spans, with their escaping.)

Every piece of user text goes through playground.markup's escaping before it reaches the HTML;
tests push `<img src=x onerror=alert(1)>` and friends through every path here. The classes used
here are styled by playground/style.css (injected once per page run); only the per-text hover
rules (which ids repeat) are emitted beside the spans.

Colours are chosen by token id (palette[id mod N]) so they stay put while the text is edited,
moved to the next palette entry when the left neighbour already has that colour (docs/references.md),
so neighbours never share one, even `Ċ Ċ`. A colour is a class (`tp-c3`), not an inline style:
a 10,000-character text is thousands of spans, and the same token with the same colour is built
once per call.

Given the encoded `text`, render_tokens also draws what no token covers (BERT's spaces) as grey
gaps, so every tokenizer's panel reads as the text. Zero-width characters (ZWJ, VS16) are named
(⟨ZWJ⟩) when whitespace is made visible, and whenever a token is nothing else.
"""
from __future__ import annotations

from collections import Counter
from typing import Callable, Iterable, NamedTuple, Optional

import regex

from core.encoding import Encoding
from playground import markup

MAX_DRAWN_CHARS = 20_000

# render_tokens(batch=N), for a panel drawn by playground.html_panel: the boxes past the first N come
# in batches between these comments (never in escaped user text, where every `<` is `&lt;`); the
# panel draws the first batch and the next ones as they scroll into view. BATCH: what the pages
# use: a box shows 5-15 lines; what does not fill it is followed at once by the next batches.
BATCH_MARK, BATCHES_END = "<!--tp-more-->", "<!--tp-end-->"
BATCH = 100

# Light fills with dark text: readable on a projector in light and dark themes alike.
PALETTE = ("#FFD6A5", "#CAFFBF", "#9BF6FF", "#BDB2FF", "#FFC6FF", "#FDFFB6", "#A0C4FF", "#FFADAD",
           "#D0F4DE", "#E4C1F9", "#F1C0E8", "#B9FBC0")

VISIBLE_WHITESPACE = {" ": "⋅", "\t": "→", "\n": "↵", "\r": "␍"}
# Characters that draw nothing: named when whitespace is made visible, and whenever a box would
# otherwise be empty (a token that is only a zero-width joiner).
INVISIBLE = {"\u200d": "⟨ZWJ⟩", "\u200c": "⟨ZWNJ⟩", "\u200b": "⟨ZWSP⟩", "\ufe0f": "⟨VS16⟩",
             "\ufe0e": "⟨VS15⟩", "\u2060": "⟨WJ⟩", "\ufeff": "⟨BOM⟩", "\u00ad": "⟨SHY⟩"}
_VISIBLE = {**VISIBLE_WHITESPACE, **INVISIBLE}


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
    """show_whitespace("a b\\n") == "a⋅b↵"; zero-width characters are named: "\\u200d" -> "⟨ZWJ⟩"."""
    return "".join(_VISIBLE.get(c, c) for c in s)


def show_invisible(s: str) -> str:
    """A label made only of zero-width characters gets their names (else its box is empty):
    show_invisible("\\u200d") == "⟨ZWJ⟩"; show_invisible("a\\u200d") == "a\\u200d"."""
    if s and all(c in INVISIBLE for c in s):
        return "".join(INVISIBLE[c] for c in s)
    return s


class Segment(NamedTuple):
    """One drawn box: usually one token; in the grouped view, the tokens of one grapheme cluster."""
    indices: tuple[int, ...]
    label: str
    is_bytes: bool
    special: bool


_GRAPHEME = regex.compile(r"\X")
MAX_GROUP = 64   # tokens in one grouped box at most (a pathological text cannot make one giant box)


def grapheme_ends(text: str) -> set[int]:
    """Where each user-perceived character (grapheme cluster, `\\X`) ends, in code points:
    grapheme_ends("🇨🇳a") == {2, 3}; grapheme_ends("e\\u0301") == {2}."""
    return {m.end() for m in _GRAPHEME.finditer(text)}


def segments(enc: Encoding, grouped: bool = False, text: Optional[str] = None) -> list[Segment]:
    """The boxes to draw. Ungrouped: one per token. Grouped: the tokens that together make whole
    characters are one box, labelled with that text. With `text` (the encoded input) a group also
    runs on until a grapheme cluster ends, so a flag (🇨🇳: two code points), a skin-toned emoji
    (👍🏽) or e + a combining accent stay one box even when a tokenizer cuts between their code
    points; without it, groups close as soon as their bytes are whole UTF-8."""
    out: list[Segment] = []
    n = len(enc.ids)
    if not grouped:
        for i, (tok, data) in enumerate(zip(enc.tokens, enc.token_bytes)):
            label, is_bytes = token_label(tok, data)
            out.append(Segment((i,), label, is_bytes, not data))
        return out
    ends = grapheme_ends(text) if text is not None else None
    length = len(text) if text is not None else 0
    offsets = enc.offsets
    pending: list[int] = []
    buf = b""
    reach = 0
    for i, (tok, data) in enumerate(zip(enc.tokens, enc.token_bytes)):
        if not data:          # a special token: always its own box
            if pending:
                out.append(_group(enc, pending, buf))
                pending, buf = [], b""
            out.append(Segment((i,), tok, False, True))
            continue
        if not pending:
            reach = 0
        pending.append(i)
        buf += data
        if i < len(offsets):
            reach = max(reach, offsets[i][1])
        try:
            buf.decode("utf-8")
        except UnicodeDecodeError:
            if len(pending) < MAX_GROUP:
                continue
        else:
            if ends is not None and len(pending) < MAX_GROUP and i + 1 < n and i + 1 < len(offsets):
                nxt = offsets[i + 1][0]
                if nxt < reach or (reach < length and reach not in ends and nxt <= reach):
                    continue      # the next token goes on with a character this group has begun
        out.append(_group(enc, pending, buf))
        pending, buf = [], b""
    if pending:
        out.append(_group(enc, pending, buf))
    return out


def _group(enc: Encoding, idx: list[int], buf: bytes) -> Segment:
    if len(idx) == 1:
        i = idx[0]
        label, is_bytes = token_label(enc.tokens[i], enc.token_bytes[i])
        return Segment((i,), label, is_bytes, False)
    try:
        return Segment(tuple(idx), buf.decode("utf-8"), False, False)
    except UnicodeDecodeError:
        return _bytes_segment(enc, idx, buf)


def _bytes_segment(enc: Encoding, idx: list[int], buf: bytes) -> Segment:
    return Segment(tuple(idx), "".join(f"<0x{b:02X}>" for b in buf), True, False)


MadeAt = Callable[[int], Optional[int]]


def card_text(enc: Encoding, indices: tuple[int, ...], counts: Counter, made_at: Optional[MadeAt] = None,
              made_word: str = "merge") -> str:
    """What hovering a box shows (plain text; escaped by the caller): per token its id, string,
    bytes in hex, the merge (step or rank) that made it and how often it occurs in this text.

        id 995 · 2× in this text
        token 'Ġworld'
        bytes 20 77 6F 72 6C 64
        made by merge 994
    """
    blocks = []
    if len(indices) > 1:
        whole = b"".join(enc.token_bytes[i] for i in indices)
        try:
            shown = show_invisible(whole.decode("utf-8"))
        except UnicodeDecodeError:
            shown = "".join(f"<0x{b:02X}>" for b in whole)
        blocks.append(f"{shown!r}: {len(indices)} tokens, one character")
    for i in indices:
        tid = enc.ids[i]
        data = enc.token_bytes[i]
        card = f"id {tid} · {counts.get(tid, 0)}× in this text\ntoken {enc.tokens[i]!r}\nbytes {data.hex(' ').upper() or '—'}"
        if made_at is not None:
            try:
                made = made_at(tid)
            except Exception:   # noqa: BLE001 -- a card never breaks the panel
                made = None
            card += (f"\nmade by {made_word} {made:,}" if made is not None
                     else ("\nspecial token" if not data else "\nbase token (no merge)"))
        blocks.append(card)
    return "\n\n".join(blocks)


def render_tokens(enc: Encoding, *, show_ids: bool = False, visible_whitespace: bool = False,
                  grouped: bool = False, highlight_ids: Optional[set[int]] = None,
                  max_chars: int = MAX_DRAWN_CHARS, text: Optional[str] = None,
                  made_at: Optional[MadeAt] = None, made_word: str = "merge",
                  scripted: bool = False, batch: int = 0, boxes: Optional[dict] = None) -> tuple[str, bool]:
    """HTML of the encoded text as coloured spans; (html, truncated).

    Hovering a token shows a card (CSS only, the box's data-card attribute): its id, string, bytes
    in hex, how often it occurs in this text and, given `made_at` (tok.made_at), the merge
    (`made_word`: "step" or "rank") that made it; and outlines every token with the same id
    (CSS :has). `scripted` (the page mounts static/live_text.js, as Compare does): the script
    outlines same-id boxes and takes a box's card from the first box with its id, so neither :has
    rules (seconds of style recalculation over thousands of boxes) nor repeated cards are sent.
    A box never breaks across lines. Grouped, a grapheme cluster is one box (`segments`). Tokens
    from `max_chars` on are not drawn.

    With `text` (the encoded input), what no token covers (the spaces and line breaks that BERT or
    a whitespace pre-tokenizer drop) is drawn between the tokens as plain grey text, so the text
    still reads as typed: render_tokens(bert.encode("a b"), text="a b") shows `a`, ` `, `b`.
    The ids view draws ids only. `batch` (a panel drawn by playground.html_panel): past the first
    `batch` boxes and gaps, they come in batches of that many (BATCH_MARK), drawn as they scroll into
    view.

    `boxes` (ungrouped only): a dict the caller keeps across calls for one tokenizer drawn with the
    same options (playground.tokenizers.box_memo). A box is the same HTML whenever its id, bytes,
    colour and count in the text are, so an edited text reuses the boxes built for the last one
    and builds only the few whose count changed (Compare: the cards of ~800 distinct tokens a
    panel were most of its drawing time).
    """
    if not grouped:
        return _render_ungrouped(enc, show_ids, visible_whitespace, highlight_ids or set(), max_chars, text,
                                 made_at, made_word, scripted, batch, boxes)
    segs = segments(enc, grouped, text)
    counts = Counter(enc.ids)
    colours = token_colours(enc.ids[s.indices[0]] for s in segs)
    highlight_ids = highlight_ids or set()
    ids, offsets = enc.ids, enc.offsets
    parts: list[str] = []
    truncated = False
    seen: dict[int, int] = {}       # id -> how often drawn (the hover rules need only repeated ids)
    memo: dict[tuple, tuple] = {}   # the same token with the same colour is the same HTML: build it once
    gaps = text is not None and not show_ids
    covered = 0   # with `text`: how far the tokens drawn so far reach
    carded: dict[int, str] = {}     # scripted: the card sent with the first box of each id
    for seg, colour in zip(segs, colours):
        indices, label = seg.indices, seg.label
        first = indices[0]
        if offsets[first][0] >= max_chars:
            truncated = True
            break
        if gaps:
            if len(indices) == 1:
                start, end = offsets[first]
            else:
                start, end = min(offsets[i][0] for i in indices), max(offsets[i][1] for i in indices)
            if start > covered:
                parts.append(_gap(text[covered:start], visible_whitespace, scripted))
            if end > covered:
                covered = end
        if len(indices) == 1:      # the common case, without a generator per token
            tid = ids[first]
            seg_ids = (tid,)
            seen[tid] = seen.get(tid, 0) + 1
        else:
            seg_ids = tuple(ids[i] for i in indices)
            for i in seg_ids:
                seen[i] = seen.get(i, 0) + 1
        key = (seg_ids, label, colour)
        built = memo.get(key)
        if built is None:
            card = card_text(enc, indices, counts, made_at, made_word)
            built = memo[key] = _spans(seg, seg_ids, colour, show_ids, visible_whitespace, highlight_ids, card)
        if scripted and carded.get(seg_ids[0]) == built[2]:
            parts.append(built[1])
        else:
            parts.append(built[0])
            carded.setdefault(seg_ids[0], built[2])
    if gaps and not truncated and covered < min(len(text), max_chars):
        parts.append(_gap(text[covered:max_chars], visible_whitespace, scripted))
    return _tokens_html(parts, seen, not scripted, batch), truncated


def _tokens_html(parts: list[str], seen: dict[int, int], hover_rules: bool = True, batch: int = 0) -> str:
    """The boxes, and hover rules outlining every token with the hovered one's id (only repeated ids).
    `batch` (render_tokens): more than two batches of parts are marked off in batches."""
    repeated = sorted(i for i, n in seen.items() if n > 1)[:5000] if hover_rules else []
    same_id = "\n".join(f".tp-tokens:has(.tp-id{i}:hover) .tp-id{i}{{outline:3px solid var(--tp-ring)}}"
                        for i in repeated)
    if batch and len(parts) > 2 * batch:
        boxes = BATCH_MARK.join("".join(parts[i:i + batch]) for i in range(0, len(parts), batch)) + BATCHES_END
    else:
        boxes = "".join(parts)
    return f'<style>{same_id}</style><div class="tp-tokens">{boxes}</div>'


def _render_ungrouped(enc: Encoding, show_ids: bool, visible_whitespace: bool, highlight_ids: set[int],
                      max_chars: int, text: Optional[str], made_at: Optional[MadeAt],
                      made_word: str, scripted: bool, batch: int, boxes: Optional[dict] = None) -> tuple[str, bool]:
    """render_tokens, one box per token, in one pass (colour, gap, box). Compare draws 14 panels of
    thousands of boxes on every edit, so the loop does per token only what differs per token: a box
    built before for the same id, bytes and colour is reused before its label is decoded or its
    card written, and what is the same for a whole panel (how often each id was drawn) is counted
    after the loop, in C."""
    ids, offsets, data_of = enc.ids, enc.offsets, enc.token_bytes
    counts, n_colours = Counter(ids), len(PALETTE)
    # boxes drawn: tokens up to the first one starting at max_chars (found without reading the
    # offsets past it: a 100,000-character text is drawn to its first 20,000)
    drawn = next((k for k, (start, _) in enumerate(offsets) if start >= max_chars), len(ids))
    parts: list[str] = []
    append = parts.append
    memo: dict[tuple, tuple] = {} if boxes is None else boxes   # (id, bytes, colour, count) -> box
    carded: set[int] = set()    # scripted: ids whose card was sent (with their first box)
    gaps = text is not None and not show_ids
    covered, previous = 0, -1
    for k, tid, (start, end), data in zip(range(drawn), ids, offsets, data_of):
        colour = tid % n_colours
        if colour == previous:          # token_colours: never the left neighbour's colour
            colour = (colour + 1) % n_colours
        previous = colour
        if gaps:
            if start > covered:
                append(_gap(text[covered:start], visible_whitespace, scripted))
            if end > covered:
                covered = end
        key = (tid, data, colour, counts[tid])     # all a box's HTML depends on (for fixed options)
        built = memo.get(key)
        if built is None:
            label, is_bytes = token_label(enc.tokens[k], data)
            card = card_text(enc, (k,), counts, made_at, made_word)
            built = memo[key] = _spans(Segment((k,), label, is_bytes, not data), (tid,), colour,
                                                     show_ids, visible_whitespace, highlight_ids, card)
        if scripted:                    # an id's card is the same on every box: sent once
            if tid in carded:
                append(built[1])
                continue
            carded.add(tid)
        append(built[0])
    truncated = drawn < len(ids)
    if gaps and not truncated and covered < min(len(text), max_chars):
        append(_gap(text[covered:max_chars], visible_whitespace, scripted))
    seen = {} if scripted else Counter(ids[:drawn])
    return _tokens_html(parts, seen, not scripted, batch), truncated


def _spans(seg: Segment, seg_ids: tuple[int, ...], colour: int, show_ids: bool, visible_whitespace: bool,
           highlight_ids: set[int], card: str) -> tuple[str, str, str]:
    """(the box with its data-card, the same box without it, the card). One box: escaped label (or
    ids), colour class, id class for hovering, data-card for the hover card. A box whose text has a
    line break is drawn inline (tp-nl: the break is the text's); every other box is one unbreakable
    piece (style.css)."""
    if show_ids:
        shown = " ".join(map(str, seg_ids))
    else:
        shown = show_whitespace(seg.label) if visible_whitespace else show_invisible(seg.label)
    shown = markup.text(shown)
    if not show_ids and visible_whitespace:
        shown = shown.replace("↵", "↵\n")
    classes = f"tp-t tp-c{colour} tp-id{seg_ids[0]}"
    if highlight_ids and any(i in highlight_ids for i in seg_ids):
        classes += " tp-hl"
    if seg.special:
        classes += " tp-special"
    if seg.is_bytes:
        classes += " tp-bytes"
    if "\n" in shown:
        classes += " tp-nl"
    after = "</span> " if show_ids else "</span>"
    # the card sits in double quotes: escaping " is enough (and keeps ' readable, and shorter)
    return (f'<span class="{classes}" data-card="{markup.attr(card)}">{shown}{after}',
            f'<span class="{classes}">{shown}{after}', card)


def _gap(piece: str, visible_whitespace: bool, bare: bool = False) -> str:
    """Text between tokens (dropped by the tokenizer), escaped, unboxed; `bare`: blank text (BERT's
    spaces, drawn as nothing) without its grey span (Compare: thousands fewer elements)."""
    if bare and not visible_whitespace and piece.isspace():
        return markup.text(piece)
    shown = markup.text(show_whitespace(piece) if visible_whitespace else piece)
    if visible_whitespace:
        shown = shown.replace("↵", "↵\n")
    return f'<span class="tp-gap">{shown}</span>'


def render_chunks(front, *, visible_whitespace: bool = False, max_chars: int = MAX_DRAWN_CHARS) -> tuple[str, bool]:
    """The chunks a pre-tokenizer cut (tok.front(text): its normalized text and chunks with
    offsets) as outlined boxes over that text, alternating two outline styles so neighbours read
    apart; what no chunk covers is grey. Returns (html, truncated): chunks starting at or beyond
    `max_chars` are not drawn. render_chunks(gpt2.front("I'm 12345")) shows `I`, `'m`, ` 12345`."""
    text = front.normalized
    parts: list[str] = []
    covered, truncated = 0, False
    for k, chunk in enumerate(front.chunks):
        if chunk.start >= max_chars:
            truncated = True
            break
        if chunk.start > covered:
            parts.append(_gap(text[covered:chunk.start], visible_whitespace))
        shown = show_whitespace(chunk.plain) if visible_whitespace else show_invisible(chunk.plain)
        shown = markup.text(shown)
        nl = " tp-nl" if "\n" in shown else ""
        parts.append(f'<span class="tp-k tp-k{k % 2}{nl}">{shown}</span>')
        covered = max(covered, chunk.end)
    if not truncated and covered < min(len(text), max_chars):
        parts.append(_gap(text[covered:max_chars], visible_whitespace))
    return f'<div class="tp-chunks">{"".join(parts)}</div>', truncated


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
        out.append(markup.text(ch))
    return f'<div class="tp-bound">{"".join(out)}</div>', share
