"""Pure helpers behind the Merges page: what one step of a trace says, shows and links to.
(Over 400 lines: the Merges page's view builders — the step sentence, changed words, the corpus at a
step, the link — each small, all reading one trace; the page's control flow is in merges_control.py.)

Everything here reads a `Trace` (immutable, shared) and returns plain values, text or escaped
HTML; nothing retrains or recounts. No Streamlit: tested without a browser or an AppTest.
    steps        clamp_step, step_at: step k (0 = before any merge, k = after merge k)
    the sentence describe_step: the pair, the new token and id, its count (WordPiece: score and
                 count), and the tie: how many pairs shared the top value, which rule took this one
    words        changed_rows, changed_caption, changed_html: `n e w es t` → `n e w est` ×6
    the corpus   corpus_view (preview_text / table_preview, tokenizer_at, encode_text / encode_table,
                 corpus_html): the corpus (at most PREVIEW_CHARS of it) as the trainer splits it
                 after step k, line by line, the tokens merge k made outlined
    merge trees  merged_tokens (which step made a token: Trace.made_at; the tree: charts.merge_tree_html)
    the URL      parse_url, url_params, link_preset: a link that reopens the same view; malformed
                 parameters are ignored or clamped, each with a one-line message
Every piece of user text (tokens, words, corpus text, URL values) that reaches HTML goes through
playground.markup; text meant for Markdown is left to the page (views.md_escape).

Not here: widgets and session state (pages/merges.py, state.py), charts (charts.py), the
token-span renderer itself (spans.py), training and encoding (core/).
Example (seed 000): describe_step(trace, 1).text == "Step 1 of 5: (e, s) → es, id 12, seen 3 times. "
    "5 pairs tied at 3; first took (e, s), met first in 'highest'."
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Mapping, Optional, Sequence

from core.corpus import WordCounts
from core.encoders import TrainedTokenizer
from core.encoding import Encoding, byte_offsets_to_char_offsets
from core.errors import EncodeError
from core.pipeline import LINE_BREAK
from core.trainer import MODELS, MergeStep, Trace
from playground import labels as labels_
from playground import markup
from playground.spans import BATCH, MAX_DRAWN_CHARS, render_tokens, show_whitespace

# The corpus drawn at a step: at most its first 6,000 characters. Every step redraws it, one span
# a token (about 60 bytes of HTML each): 20,000 characters of the KJV were 1.2 MB a step, the main
# cost of a step in the browser; its 430-pixel box shows about 1,500 characters at a time.
PREVIEW_CHARS = min(6_000, MAX_DRAWN_CHARS)
TABLE_WORDS = 500                   # a word-count table: at most its first 500 words
SPEEDS = (0.5, 1.0, 2.0, 4.0)       # autoplay: seconds per step
DEFAULT_SPEED = 1.0
MAX_URL_TOKEN = 200                 # a longer `token` in a link is ignored
_SHOWN_VALUE = 40                   # a bad URL value is quoted in its message up to this length
# A link's numbers are ASCII digits only: int() and float() also read "٣", "３" and "1_0".
_WHOLE = re.compile(r"-?[0-9]+")
_SECONDS = re.compile(r"[0-9]+(\.[0-9]*)?|\.[0-9]+")


# ---------------------------------------------------------------- steps

def clamp_step(step: int, last: int) -> int:
    """clamp_step(9, 5) == 5; clamp_step(-1, 5) == 0."""
    return min(max(int(step), 0), max(last, 0))


def step_at(trace: Trace, k: int) -> Optional[MergeStep]:
    """The merge that step k made (None at step 0, before any merge)."""
    return trace.steps[k - 1] if 0 < k <= len(trace.steps) else None


def base_vocab_size(trace: Trace) -> int:
    return len(trace.special_tokens) + len(trace.alphabet)


def show_token(token: str) -> str:
    """A token as text, its whitespace made visible (the app's one glyph set, spans.show_whitespace):
    show_token(" a\\n") == "⋅a↵"."""
    return show_whitespace(token)


# ---------------------------------------------------------------- the step in one sentence

@dataclass(frozen=True)
class Sentence:
    """One sentence as plain text and as escaped HTML (tokens in <code class="mg-tok">)."""
    text: str
    html: str


class _Writer:
    def __init__(self) -> None:
        self.plain: list[str] = []
        self.marked: list[str] = []

    def say(self, s: str) -> "_Writer":
        self.plain.append(s)
        self.marked.append(markup.text(s))
        return self

    def token(self, t: str, label: Optional[labels_.Label] = None) -> "_Writer":
        shown = show_token(t) if label is None else label.text
        self.plain.append(shown)
        title = f' title="{markup.attr(label.title)}"' if label is not None and label.title else ""
        self.marked.append(f'<code class="mg-tok"{title}>{markup.text(shown)}</code>')
        if label is not None and label.of:
            self.plain.append(f" of {label.of}")
            self.marked.append(f'<span class="mg-of"> of {markup.text(label.of)}</span>')
        return self

    def pair(self, p: tuple[str, str], labels: Optional[Sequence[labels_.Label]] = None) -> "_Writer":
        a, b = labels if labels is not None else (None, None)
        return self.say("(").token(p[0], a).say(", ").token(p[1], b).say(")")

    def strong(self, s: str) -> "_Writer":
        self.plain.append(s)
        self.marked.append(f"<strong>{markup.text(s)}</strong>")
        return self

    def done(self) -> Sentence:
        return Sentence("".join(self.plain), "".join(self.marked))


def format_score(score: Fraction) -> str:
    """format_score(Fraction(1, 3)) == "1/3 ≈ 0.333"; a large fraction as a decimal only."""
    f = float(score)
    if score.denominator == 1:
        return f"{score.numerator:,}"
    if score.denominator < 10_000 and score.numerator < 10_000:
        return f"{score.numerator}/{score.denominator} ≈ {f:.3g}"
    return f"≈ {f:.4g}"


def _likelihood(trace: Trace) -> bool:
    return trace.config.score_rule == "likelihood"


def top_value(trace: Trace, step: MergeStep) -> str:
    """What the winner led with: "3" (a count) or "score 1/3 ≈ 0.333" (WordPiece likelihood)."""
    if _likelihood(trace) and step.score is not None:
        return "score " + format_score(step.score)
    return f"{step.count:,}"


def describe_step(trace: Trace, k: int, token_ids: Optional[Mapping[str, int]] = None,
                  tokenizer: Optional[Any] = None) -> Sentence:
    """Step k in one sentence. `token_ids` (token -> id, e.g. cached per trace) spares rebuilding it.
    With the trace's `tokenizer` (the Tokenizer contract), byte-level tokens are shown by their
    bytes (playground.labels): `分`, or `<0xE5><0x88>` of 分; their byte-alphabet spelling in a tooltip.
    BPE:       "Step 1 of 5: (e, s) → es, id 12, seen 3 times. 5 pairs tied at 3; first took (e, s),
                met first in 'highest'."
    WordPiece: "Step 1 of 4: (w, ##i) → wi, id 12, score 1/3 ≈ 0.333 with count 3. 2 pairs tied at
                score 1/3 ≈ 0.333; first took (w, ##i), met first in 'widest'."
    """
    n = len(trace.steps)
    w = _Writer()
    step = step_at(trace, k)
    if step is None:
        w.strong(f"Step 0 of {n:,}").say(": before any merge. The vocabulary is the alphabet, "
                                         f"{len(trace.alphabet):,} symbols")
        if trace.special_tokens:
            w.say(f" and {len(trace.special_tokens):,} special token"
                  + ("s" if len(trace.special_tokens) > 1 else ""))
        if n:
            first = trace.steps[0]
            w.say("; the first merge will be ").pair(first.pair, _pair_labels(trace, first, tokenizer)).say(".")
        else:
            w.say("; this trainer made no merge.")
        return w.done()

    pair_labels = _pair_labels(trace, step, tokenizer)
    new_label = _token_label(trace, step, tokenizer)
    w.strong(f"Step {k:,} of {n:,}").say(": ").pair(step.pair, pair_labels).say(" → ").token(step.token, new_label)
    prev_size = trace.steps[k - 2].vocab_size if k > 1 else base_vocab_size(trace)
    w.say(f", id {step.id:,}")
    if step.vocab_size == prev_size:
        w.say(" (already in the vocabulary: a second way to make it)")
    if _likelihood(trace) and step.score is not None:
        w.say(", score ").strong(format_score(step.score)).say(" with count ").strong(f"{step.count:,}").say(".")
    else:
        w.say(", seen ").strong(f"{step.count:,}").say(" time." if step.count == 1 else " times.")

    value = top_value(trace, step)
    if step.tied <= 1:
        w.say(f" No tie: the only pair at {value}.")
        return w.done()
    rule = trace.config.tie_break
    w.say(f" {step.tied:,} pairs tied at {value}; ").token(rule).say(" took ").pair(step.pair, pair_labels)
    if rule == "first":
        w.say(", met first in '").token(step.first_word).say("'.")
    elif rule == "hf":
        ids = token_ids if token_ids is not None else trace.token_to_id
        w.say(f", the smallest ids ({ids.get(step.pair[0], '?')}, {ids.get(step.pair[1], '?')}).")
    else:
        w.say(", the smallest spelling.")
    return w.done()


def _pair_labels(trace: Trace, step: MergeStep, tokenizer: Optional[Any]) -> Optional[list]:
    if tokenizer is None or not trace.config.byte_level:
        return None
    return labels_.labeller(trace, tokenizer)(step.pair, labels_.step_word(tokenizer, step))


def _token_label(trace: Trace, step: MergeStep, tokenizer: Optional[Any]) -> Optional[labels_.Label]:
    if tokenizer is None or not trace.config.byte_level:
        return None
    return labels_.labeller(trace, tokenizer)([step.token], labels_.step_word(tokenizer, step))[0]


# ---------------------------------------------------------------- the words a merge changed

@dataclass(frozen=True)
class ChangedRow:
    """One changed word: its tokens before and after the merge, and how often it occurs."""
    before: tuple[str, ...]
    after: tuple[str, ...]
    count: int
    merged: tuple[int, ...]     # positions in `before` whose pair was merged (left symbols)
    made: tuple[int, ...]       # positions in `after` holding the new token
    data_before: tuple[bytes, ...] = ()  # byte-level: each token's bytes (drawn as characters), else empty
    data_after: tuple[bytes, ...] = ()

    @property
    def text(self) -> str:
        """"n e w es t → n e w est ×6"."""
        return (f"{' '.join(map(show_token, self.before))} → {' '.join(map(show_token, self.after))}"
                f" ×{self.count:,}")


def _merged_positions(ids: Sequence[int], a: int, b: int) -> tuple[int, ...]:
    """Left positions of the (a, b) pairs a merge joins: left to right, non-overlapping."""
    out, i = [], 0
    while i < len(ids) - 1:
        if ids[i] == a and ids[i + 1] == b:
            out.append(i)
            i += 2
        else:
            i += 1
    return tuple(out)


def changed_rows(trace: Trace, step: MergeStep, limit: Optional[int] = None,
                 token_ids: Optional[Mapping[str, int]] = None, tokenizer: Optional[Any] = None) -> list[ChangedRow]:
    """The words this merge changed, as the trace kept them (the first ones, in corpus order).
    With the trace's `tokenizer` and a byte-level trace, each token is also read (labels.readable)."""
    ids = token_ids if token_ids is not None else trace.token_to_id
    a, b = ids.get(step.pair[0], -1), ids.get(step.pair[1], -1)
    readable = tokenizer is not None and trace.config.byte_level
    rows = []
    for cw in step.changed_words[:limit]:
        before, after = trace.spell(cw.before), trace.spell(cw.after)
        extra = {}
        if readable:
            extra = dict(data_before=tuple(tokenizer.token_bytes(i) for i in cw.before),
                         data_after=tuple(tokenizer.token_bytes(i) for i in cw.after))
        rows.append(ChangedRow(before=before, after=after, count=cw.count,
                               merged=_merged_positions(cw.before, a, b),
                               made=tuple(i for i, t in enumerate(cw.after) if t == step.id), **extra))
    return rows


def changed_caption(step: MergeStep, shown: int) -> str:
    """"Showing 20 of 1,234 words this merge changed, the first in corpus order." or "All 3 …"."""
    total = step.changed_words_total
    noun = "word" if total == 1 else "words"
    if shown >= total:
        if total == 1:
            return "The only word this merge changed, with how often it occurs."
        return f"All {total:,} {noun} this merge changed, with how often each occurs."
    return f"Showing {shown:,} of {total:,} {noun} this merge changed (the first in corpus order)."


def _tokens_html(tokens: Sequence[str], datas: Sequence[bytes], marked: set, cls: str) -> str:
    """A word's tokens, space-separated, the `marked` positions in a span of class `cls`. With
    their bytes (byte-level): tokens that are parts of one character are drawn as that character
    in a dashed box (mg-split, its bytes token by token in the tooltip), each token read as its
    bytes say, GPT-2's spelling in the tooltip."""
    if not datas:
        return " ".join(f'<span class="{cls}">{markup.text(show_token(t))}</span>' if i in marked
                        else markup.text(show_token(t)) for i, t in enumerate(tokens))
    out = []
    for g in labels_.groups(datas):
        spelled = " ".join(show_token(tokens[i]) for i in g.indices)
        title = f"bytes {g.parts} · spelled {spelled}" if g.split else f"spelled {spelled}"
        classes = [cls] if any(i in marked for i in g.indices) else []
        if g.split:
            classes.append("mg-split")
        attr = f' class="{" ".join(classes)}"' if classes else ""
        out.append(f'<span{attr} title="{markup.attr(title)}">{markup.text(g.text)}</span>')
    return " ".join(out)


def changed_html(rows: Sequence[ChangedRow], compact: bool = False) -> str:
    """The rows as escaped HTML, four cells a row (before, →, after, ×count) for a CSS grid: the
    merged pairs underlined before, the new token marked after. `compact` (a narrow column):
    two cells a row, after and ×count."""
    out = [f'<div class="mg-words{" mg-compact" if compact else ""}">']
    for r in rows:
        merged = set(r.merged) | {i + 1 for i in r.merged}
        after = _tokens_html(r.after, r.data_after, set(r.made), "mg-new")
        if not compact:
            before = _tokens_html(r.before, r.data_before, merged, "mg-pair")
            out.append(f'<span class="mg-before">{before}</span><span class="mg-arrow">→</span>')
        out.append(f'<span class="mg-after">{after}</span><span class="mg-count">×{r.count:,}</span>')
    out.append("</div>")
    return "".join(out)


# ---------------------------------------------------------------- the corpus at a step

def preview_text(text: str, limit: int = PREVIEW_CHARS) -> tuple[str, bool]:
    """At most `limit` characters of the text, cut after a space or line break when one is near
    the end (no half word). Returns (shown, truncated)."""
    if len(text) <= limit:
        return text, False
    cut = max(text.rfind(" ", limit - 200, limit), text.rfind("\n", limit - 200, limit))
    return text[:cut + 1] if cut > 0 else text[:limit], True


@dataclass(frozen=True)
class TablePreview:
    """The first words of a word-count table laid out as text: "low ×5   lower ×2   …"."""
    text: str
    words: tuple[str, ...]
    spans: tuple[tuple[int, int], ...]   # where each word sits in `text`
    total: int                           # words in the table

    @property
    def truncated(self) -> bool:
        return len(self.words) < self.total


def table_preview(words: WordCounts, max_words: int = TABLE_WORDS, limit: int = PREVIEW_CHARS) -> TablePreview:
    parts, spans, shown, pos = [], [], [], 0
    for w, c in zip(words.words, words.counts):
        if len(shown) >= max_words or (shown and pos + len(w) > limit):
            break
        spans.append((pos, pos + len(w)))
        shown.append(w)
        piece = f"{w} ×{c:,}   "
        parts.append(piece)
        pos += len(piece)
    return TablePreview("".join(parts).rstrip(" "), tuple(shown), tuple(spans), len(words))


def tokenizer_at(trace: Trace, k: int) -> TrainedTokenizer:
    """The tokenizer after k merges (k = 0: the alphabet alone)."""
    return TrainedTokenizer.from_trace(trace, upto=k)


def line_spans(text: str, keep_newlines: bool) -> list[tuple[int, int]]:
    """[start, end) of each line as training reads a text (docs/cli.md): without its break, or with it
    when the trainer keeps line breaks. line_spans("ab\ncd", False) == [(0, 2), (3, 5)]."""
    spans, start = [], 0
    for m in LINE_BREAK.finditer(text):
        spans.append((start, m.end() if keep_newlines else m.start()))
        start = m.end()
    if start < len(text):
        spans.append((start, len(text)))
    return [(s, e) for s, e in spans if e > s]


def encode_text(tokenizer: TrainedTokenizer, text: str) -> Encoding:
    """Text as the trainer splits it: line by line, as training read it (a line break the trainer
    dropped is no token, just a gap), each line with the merges applied in the order learned
    (for WordPiece too: that is how its trainer sees the corpus, not its longest-match encoder)."""
    ids: list[int] = []
    tokens: list[str] = []
    data: list[bytes] = []
    offsets: list[tuple[int, int]] = []
    for start, end in line_spans(text, tokenizer.config.keep_newlines):
        enc = tokenizer.encode_readable(text[start:end], "merges")
        ids.extend(enc.ids)
        tokens.extend(enc.tokens)
        data.extend(enc.token_bytes)
        offsets.extend((start + s, start + e) for s, e in enc.offsets)
    return Encoding(ids=tuple(ids), tokens=tuple(tokens), token_bytes=tuple(data), offsets=tuple(offsets),
                    encoder="merges")


def _unit_spans(word: str, runs: Sequence[tuple[int, int]], tokenizer: TrainedTokenizer) -> list[tuple[int, int]]:
    """Runs of units -> character spans in `word`. Byte-level units are bytes; otherwise a unit is
    one character, `</w>` none (zero width at the word's end)."""
    if tokenizer.config.byte_level:
        return byte_offsets_to_char_offsets(word, list(runs))
    n = len(word)
    return [(min(s, n), min(e, n)) for s, e in runs]


def encode_table(tokenizer: TrainedTokenizer, preview: TablePreview) -> Encoding:
    """The table's words split as the trainer splits them (no pre-tokenizer: a table's words are
    used as given), laid out at their places in `preview.text`."""
    vocab = tokenizer.vocab_ids
    unk = tokenizer.unk_token
    ids, tokens, data, offsets = [], [], [], []
    for word, (start, _) in zip(preview.words, preview.spans):
        units = tokenizer.word_units(word)
        runs = tokenizer.encode_units(units, "merges", len(word))
        for (s, e, tok), (cs, ce) in zip(runs, _unit_spans(word, [(s, e) for s, e, _ in runs], tokenizer)):
            if tok is None or tok not in vocab:
                if unk is None or unk not in vocab:
                    raise EncodeError(f"the word {word!r} has a symbol outside the vocabulary")
                tok = unk
            ids.append(vocab[tok])
            tokens.append(tok)
            data.append(tokenizer.token_bytes_of(tok))
            offsets.append((start + cs, start + ce))
    return Encoding(ids=tuple(ids), tokens=tuple(tokens), token_bytes=tuple(data), offsets=tuple(offsets),
                    encoder="merges")


def corpus_html(text: str, enc: Encoding, highlight_ids: Optional[set[int]] = None, grouped: bool = False) -> str:
    """The text as coloured token spans (spans.render_tokens: escaped, coloured by id, the
    highlighted ids outlined), with the text between tokens (spaces and line breaks a
    pre-tokenizer dropped, a table's counts) drawn as plain grey gaps, so words stay apart.
    `grouped` (byte-level): byte tokens that together make a character are drawn as that
    character, one box (its tokens in the tooltip), never as <0xE5><0x88>."""
    # scripted: the Merges page mounts static/live_text.js (live_text.enable), which lights up the
    # boxes sharing the hovered one's id; CSS :has() rules for thousands of ids made the browser
    # recalculate every box's style on each step (seconds on the KJV)
    # batched: the page draws it with playground.html_panel, which draws what is scrolled to
    out, _ = render_tokens(enc, highlight_ids=highlight_ids or set(), max_chars=len(text) + 1, text=text,
                           grouped=grouped, scripted=True, batch=BATCH)
    return out


def occurrences(enc: Encoding, token_id: int) -> int:
    return sum(1 for i in enc.ids if i == token_id)


@dataclass(frozen=True)
class CorpusView:
    """The corpus at one step, ready to draw (a page caches one per trace and step)."""
    html: str
    from_table: bool          # drawn from the training words (a word-count table), not the text
    shown: int                # characters of the text drawn, or words of the table drawn
    total: int                # characters of the text, or words of the table
    truncated: bool
    made: int                 # tokens this step's merge made, in what is drawn


def corpus_view(trace: Trace, k: int, text: Optional[str]) -> CorpusView:
    """The corpus after k merges as coloured token spans, the tokens merge k made outlined: the
    first PREVIEW_CHARS characters of `text`, or when there is no text (a word-count table, or a
    corpus replaced since training) the first words of the training words with their counts."""
    tokenizer = tokenizer_at(trace, k)
    step = step_at(trace, k)
    highlight = {step.id} if step is not None else set()
    if text is not None:
        shown, cut = preview_text(text)
        enc = encode_text(tokenizer, shown)
        return CorpusView(corpus_html(shown, enc, highlight, trace.config.byte_level), False, len(shown), len(text), cut,
                          occurrences(enc, step.id) if step is not None else 0)
    table = table_preview(trace.words)
    enc = encode_table(tokenizer, table)
    return CorpusView(corpus_html(table.text, enc, highlight, trace.config.byte_level), True, len(table.words), table.total,
                      table.truncated, occurrences(enc, step.id) if step is not None else 0)


# ---------------------------------------------------------------- merge trees

def merged_tokens(trace: Trace) -> tuple[str, ...]:
    """Every token a merge made, once, in the order first made (the merge tree's choices)."""
    return tuple(dict.fromkeys(s.token for s in trace.steps))


# ---------------------------------------------------------------- the URL

@dataclass(frozen=True)
class LinkRequest:
    """What a link asks for; None where it says nothing (or said something unusable)."""
    preset: Optional[str] = None
    model: Optional[str] = None
    step: Optional[int] = None
    lockstep: Optional[bool] = None
    speed: Optional[float] = None
    token: Optional[str] = None


URL_KEYS = ("preset", "tokenizer", "step", "lockstep", "speed", "token")
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def quote_value(value: Any) -> str:
    """A value from a link, quoted and cut for a message: quote_value("abc") == "'abc'"."""
    s = str(value)
    return repr(s if len(s) <= _SHOWN_VALUE else s[:_SHOWN_VALUE] + "…")


def parse_url(params: Mapping[str, Any], preset_keys: Sequence[str] = ()) -> tuple[LinkRequest, list[str]]:
    """Read a link's query parameters. Nothing raises: an unusable value is ignored (or a speed
    moved to the nearest offered one) with a one-line message saying what was done.
    parse_url({"tokenizer": "bpe", "step": "3"}) == (LinkRequest(model="bpe", step=3), [])
    A negative step is kept (the page clamps every step to the trace, see clamp_link_step)."""
    msgs: list[str] = []
    get = {str(k): ("" if v is None else str(v)).strip() for k, v in params.items()}
    out: dict[str, Any] = {}
    unknown = [k for k in get if k not in URL_KEYS]
    if unknown:
        msgs.append("Ignored unknown link parameter" + ("s " if len(unknown) > 1 else " ")
                    + ", ".join(quote_value(k) for k in unknown[:5]) + ".")
    if "preset" in get:
        if get["preset"] in preset_keys:
            out["preset"] = get["preset"]
        else:
            msgs.append(f"Ignored preset={quote_value(get['preset'])}: no such preset.")
    if "tokenizer" in get:
        m = get["tokenizer"].lower()
        if m in MODELS:
            out["model"] = m
        else:
            msgs.append(f"Ignored tokenizer={quote_value(get['tokenizer'])}: use bpe, bbpe or wordpiece.")
    if "step" in get:
        step, msg = link_step(get["step"])
        if msg:
            msgs.append(msg)
        else:
            out["step"] = step
    if "lockstep" in get:
        v = get["lockstep"].lower()
        if v in _TRUE or v in _FALSE:
            out["lockstep"] = v in _TRUE
        else:
            msgs.append(f"Ignored lockstep={quote_value(get['lockstep'])}: use 1 or 0.")
    if "speed" in get:
        try:
            v = float(get["speed"]) if _SECONDS.fullmatch(get["speed"]) else math.nan
            if not math.isfinite(v) or v <= 0:
                raise ValueError
        except ValueError:
            msgs.append(f"Ignored speed={quote_value(get['speed'])}: seconds per step, one of "
                        + ", ".join(f"{s:g}" for s in SPEEDS) + ".")
        else:
            nearest = min(SPEEDS, key=lambda s: (abs(math.log(s / v)), s))
            if nearest != v:
                msgs.append(f"speed={quote_value(get['speed'])} is not offered: using {nearest:g} s per step.")
            out["speed"] = nearest
    if "token" in get:
        raw = params.get("token")
        tok = "" if raw is None else str(raw)   # a token may start or end with a space: not stripped
        if 0 < len(tok) <= MAX_URL_TOKEN:
            out["token"] = tok
        else:
            msgs.append("Ignored token: " + ("empty." if not tok else f"longer than {MAX_URL_TOKEN} characters."))
    return LinkRequest(**out), msgs


def link_step(raw: str) -> tuple[Optional[int], Optional[str]]:
    """A link's step=raw: (the step, None), or (None, what was ignored and why). Negative steps are
    kept (the page clamps: clamp_link_step). link_step("3") == (3, None)."""
    if not _WHOLE.fullmatch(raw):
        return None, f"Ignored step={quote_value(raw)}: a step is a whole number."
    digits = raw.lstrip("-").lstrip("0") or "0"
    if len(digits) > 12:   # 10^12 or more: no trace comes near (and int() refuses over 4,300 digits)
        return None, f"Ignored step={quote_value(raw)}: too large for any trace."
    return -int(digits) if raw.startswith("-") else int(digits), None


def without_step(items: tuple) -> tuple:
    """A page's parameters (sorted items) but the step: what a told step leaves as it was."""
    return tuple(kv for kv in items if kv[0] != "step")


def clamp_link_step(step: int, last: int) -> tuple[int, Optional[str]]:
    """A link's step moved into 0..last, with a message when it had to be."""
    k = clamp_step(step, last)
    if k == step:
        return k, None
    return k, f"step={step:,} is outside 0 to {last:,}: showing step {k:,}."


def url_params(model: str, step: int, lockstep: bool = False, speed: float = DEFAULT_SPEED,
               token: Optional[str] = None, preset: Optional[str] = None) -> dict[str, str]:
    """The query parameters of a view (defaults left out to keep links short):
    url_params("bpe", 3) == {"tokenizer": "bpe", "step": "3"}."""
    out = {}
    if preset:
        out["preset"] = preset
    out["tokenizer"] = model
    out["step"] = str(int(step))
    if lockstep:
        out["lockstep"] = "1"
    if speed != DEFAULT_SPEED:
        out["speed"] = f"{speed:g}"
    if token:
        out["token"] = token
    return out


def link_preset(corpus: Any, results: Any, preset_configs: Optional[Mapping[str, Any]]) -> Optional[str]:
    """The preset a link can name to rebuild these results in a new session: only when the
    trained corpus is that preset's, trained with exactly its settings (else None).
    `preset_configs`: the preset's configs (presets.get_preset(key).configs()), or None."""
    if corpus is None or results is None or not getattr(corpus, "preset", None) or preset_configs is None:
        return None
    if corpus.digest != results.corpus_digest:
        return None
    if any(results.settings.for_model(m) != preset_configs.get(m) for m in MODELS):
        return None
    return corpus.preset
