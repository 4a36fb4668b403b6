"""Tokens as people read them, in any script: what a token's bytes say first, its spelling second.

A byte-level vocabulary spells tokens in GPT-2's byte alphabet (`Ġthe`, `åĪ`, `Ń`): readable
for English, unreadable for Chinese, Hindi or emoji. Here a token is shown by its bytes (the
contract's `token_bytes(id)`):
    whole UTF-8 characters   as those characters             `Ġthe` → `⋅the`, `åĪĨ` → `分`
    part of a character      as its bytes, and the character  `åĪ` → `<0xE5><0x88>` of `分`
                             they belong to, found in a word where the token occurs
The vocabulary's own spelling (the alias) stays available, second: `Label.alias`, for a tooltip.
For a vocabulary that is not byte-level the token is its own label (`est</w>`, `##ing`).

No Streamlit: pure functions, tested on Chinese, Hindi and emoji corpora (tests/playground).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional, Sequence

from core.tokenizer import Tokenizer
from core.trainer import MergeStep, Trace
from playground.spans import VISIBLE_WHITESPACE, show_whitespace

# the app's one glyph set (spans.VISIBLE_WHITESPACE): space ⋅, tab →, line break ↵
_VISIBLE = VISIBLE_WHITESPACE


def show_space(text: str) -> str:
    """Whitespace made visible: show_space(" a\\n") == "⋅a↵"."""
    return show_whitespace(text)


def hex_bytes(data: bytes) -> str:
    """hex_bytes(b"\\xe5\\x88") == "<0xE5><0x88>"."""
    return "".join(f"<0x{b:02X}>" for b in data)


@dataclass(frozen=True)
class Label:
    """How a token is shown: `text` first, then `of` (the character(s) a partial token is part of),
    the vocabulary's spelling `alias` second (empty when it says the same as `text`)."""
    text: str
    of: str = ""
    alias: str = ""

    @property
    def partial(self) -> bool:
        return "<0x" in self.text

    @property
    def shown(self) -> str:
        """One line: "<0xE5><0x88> of 分", "⋅the"."""
        return self.text + (f" of {self.of}" if self.of else "")

    @property
    def title(self) -> str:
        """The tooltip: "spelled åĪ in the vocabulary (GPT-2's byte alphabet)"."""
        return f"spelled {self.alias} in the vocabulary (GPT-2's byte alphabet)" if self.alias else ""


def readable(data: bytes, compact: bool = False) -> str:
    """The bytes as text, whitespace visible; bytes that are not whole UTF-8 characters as <0xXX>
    (`compact`, for narrow places: ⟨XX⟩): readable("分".encode()) == "分";
    readable(b"a\\xe5\\x88") == "a<0xE5><0x88>"; readable(b"\\xe5", compact=True) == "⟨E5⟩"."""
    text = data.decode("utf-8", errors="surrogateescape")
    out = []
    for c in text:
        if "\udc80" <= c <= "\udcff":
            b = ord(c) - 0xDC00
            out.append(f"⟨{b:02X}⟩" if compact else f"<0x{b:02X}>")
        else:
            out.append(_VISIBLE.get(c, c))
    return "".join(out)


def _partial_chars(word: str, start: int, end: int) -> str:
    """The characters of `word` that the byte span [start, end) of its UTF-8 holds only part of."""
    chars, pos = [], 0
    for c in word:
        stop = pos + len(c.encode("utf-8"))
        if pos < end and stop > start and not (start <= pos and stop <= end):
            chars.append(c)
        pos = stop
    return "".join(chars)


def _whole(data: bytes) -> bool:
    try:
        data.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


def character_of(data: bytes, word: str) -> str:
    """The character(s) of `word` that the partial bytes of `data` belong to ("" when `data` is
    whole characters or does not occur in the word): character_of(b"\xe5\x88", "分词") == "分"."""
    if not data or not word or _whole(data):
        return ""
    at = word.encode("utf-8").find(data)
    return "" if at < 0 else _partial_chars(word, at, at + len(data))


def label(token: str, data: Optional[bytes], byte_level: bool, word: str = "") -> Label:
    """A token's label. `data`: its bytes (tokenizer.token_bytes(id)); `word`: a word it occurs in
    (to name the character a partial token belongs to)."""
    if not byte_level or data is None or data == b"":
        return Label(show_space(token))
    text = readable(data)
    alias = show_space(token)
    return Label(text, character_of(data, word), "" if alias == text else alias)


def label_run(tokens: Sequence[str], datas: Sequence[Optional[bytes]], byte_level: bool,
              word: str = "") -> list[Label]:
    """Labels of tokens that stand next to each other in `word` (a pair, or a whole word's
    tokens): each partial token is placed by where the run occurs, so `<0xAD>` of 字 is not
    mistaken for the <0xAD> of another character."""
    if not byte_level or any(d is None for d in datas):
        return [label(t, d, byte_level, word) for t, d in zip(tokens, datas)]
    run = b"".join(datas)
    at = word.encode("utf-8").find(run) if word and run else -1
    out = []
    for t, d in zip(tokens, datas):
        if not d:
            out.append(label(t, d, True))
            continue
        text, alias = readable(d), show_space(t)
        of = _partial_chars(word, at, at + len(d)) if at >= 0 and not _whole(d) else ""
        out.append(Label(text, of, "" if alias == text else alias))
        if at >= 0:
            at += len(d)
    return out


@dataclass(frozen=True)
class Group:
    """Tokens of a word drawn as one box: one token, or the tokens that together make whole
    characters (a character still split into byte tokens)."""
    indices: tuple[int, ...]
    text: str          # what the box shows: the token read, or the characters the tokens make
    split: bool        # several tokens make it (the character is not one token yet)
    parts: str         # the tokens' bytes, "E5 88 | 86": where the tokens split the character


def groups(datas: Sequence[bytes]) -> list[Group]:
    """A word's tokens (their bytes) as boxes: whole tokens alone, partial ones joined until they
    make whole characters. groups([b"\xe5\x88", b"\x86", b"a"]) == [Group((0, 1), "分", True,
    "E5 88 | 86"), Group((2,), "a", False, "61")]."""
    out: list[Group] = []
    pending: list[int] = []
    buf = b""
    for i, d in enumerate(datas):
        if not pending and _whole(d):
            out.append(Group((i,), readable(d), False, d.hex(" ").upper()))
            continue
        pending.append(i)
        buf += d
        if _whole(buf):
            parts = " | ".join(datas[j].hex(" ").upper() for j in pending)
            out.append(Group(tuple(pending), show_space(buf.decode("utf-8")), len(pending) > 1, parts))
            pending, buf = [], b""
    if pending:   # the word ends inside a character (cannot happen for a whole word): as bytes
        out.append(Group(tuple(pending), readable(buf), True, " | ".join(datas[j].hex(" ").upper() for j in pending)))
    return out


def word_text(tokenizer: Tokenizer, ids: Sequence[int]) -> str:
    """A word given as token ids, as text (the bytes of its tokens joined)."""
    data = b"".join(tokenizer.token_bytes(i) for i in ids)
    return data.decode("utf-8", errors="replace")


def step_word(tokenizer: Tokenizer, step: Optional[MergeStep]) -> str:
    """A word this step's pair occurs in, as text: the first word the merge changed."""
    if step is None or not step.changed_words:
        return ""
    return word_text(tokenizer, step.changed_words[0].after)


Labeller = Callable[[Sequence[str], str], list]


def labeller(trace: Trace, tokenizer: Tokenizer) -> Labeller:
    """(tokens next to each other, a word they occur in) -> their Labels, for one trace's tokens."""
    byte_level = trace.config.byte_level

    def of(tokens: Sequence[str], word: str = "") -> list[Label]:
        if not byte_level:
            return [Label(show_space(t)) for t in tokens]
        datas = []
        for t in tokens:
            i = tokenizer.token_to_id(t)
            datas.append(tokenizer.token_bytes(i) if i is not None else None)
        return label_run(tokens, datas, True, word)
    return of
