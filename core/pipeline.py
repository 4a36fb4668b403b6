"""Normalizers and pre-tokenizers: the first two stages of the pipeline, named like Hugging Face's.

Each stage can show its own effect: `normalize_aligned` returns the normalized text with, for
every normalized character, the span of the original it came from; `pre_tokenize` returns the
pieces (words) with their character offsets. The trainer and the encoders both go through here,
so what the views draw is exactly what was trained on.

Not here: the models (trainer.py, encoders.py) and post-processing (encoders.py).

Example: pre_tokenize("Hello, world!", "gpt2") ==
    [("Hello", (0, 5)), (",", (5, 6)), ("Ġworld", (6, 12)), ("!", (12, 13))]
"""
from __future__ import annotations

import logging
import re
import sys
from array import array
from collections import Counter
from functools import lru_cache
from itertools import chain
from typing import Optional

import regex

from .bytelevel import to_byte_chars
from .errors import ConfigError

NORMALIZERS = ("none", "lowercase", "nfkc", "bert-uncased")
PRE_TOKENIZERS = ("whitespace", "gpt2", "bert", "jieba", "chars")
DEFAULT_PRE_TOKENIZER = {"bpe": "whitespace", "bbpe": "gpt2", "wordpiece": "bert"}

# A line ends at \n, \r\n or a lone \r (docs/cli.md); U+2028, U+0085, \v, \f stay inside lines.
LINE_BREAK = regex.compile(r"\r\n|\r|\n")

GPT2_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
# The same pattern with line breaks taken out of every whitespace class: run over a whole text it
# gives exactly the pieces of running GPT2_PATTERN line by line (no alternative can match a line
# break, and a break satisfies (?!\S) just as the end of a line does). One C-level scan instead of
# one call per line.
_GPT2_LINEWISE = GPT2_PATTERN.replace(r"\s+", r"[^\S\r\n]+")

# Rust's char::is_whitespace (HF WhitespaceSplit) is the Unicode White_Space property.
_WS = r"\p{White_Space}"
# CJK ideographs as BERT's `_is_chinese_char` lists them.
_CJK = (r"\u4E00-\u9FFF\u3400-\u4DBF\U00020000-\U0002A6DF\U0002A700-\U0002B73F"
        r"\U0002B740-\U0002B81F\U0002B820-\U0002CEAF\uF900-\uFAFF\U0002F800-\U0002FA1F")

_PATTERNS = {
    "whitespace": regex.compile(rf"[^{_WS}]+"),
    "gpt2": regex.compile(_GPT2_LINEWISE),
    "chars": regex.compile(rf"[{_CJK}]|[^{_WS}{_CJK}]+"),
}


@lru_cache(maxsize=1)
def _bert_punctuation() -> str:
    """The characters HF BertPreTokenizer splits off, as a regex class body.

    HF tests char::is_ascii_punctuation or a punctuation category from its own (older) Unicode
    tables, which differ from `regex`'s on about a hundred code points (U+2E43 is punctuation
    for `regex`, not for HF; U+166D the other way). So ask HF itself, once, about every
    character that is punctuation, a symbol or a mark today (every character that was ever
    punctuation is one of those now, e.g. U+111C9 became a mark): "a<c>b" splits into three pieces
    exactly when HF calls <c> punctuation. About 0.1 s, in each process that splits a non-ASCII run
    (the command line's counting workers too).
    """
    from tokenizers.pre_tokenizers import BertPreTokenizer
    # every code point but the surrogates, as one string: their UTF-32 bytes decoded (0.03-0.05 s; a
    # chr() per code point, joined, took 0.23, in every counting worker)
    code_points = array("I", chain(range(0xD800), range(0xE000, 0x110000)))
    everything = (code_points.tobytes().decode("utf-32-le" if sys.byteorder == "little" else "utf-32-be")
                  if code_points.itemsize == 4 else "".join(map(chr, code_points)))
    candidates = regex.findall(r"[\p{P}\p{S}\p{M}]", everything)
    probe = " ".join(f"a{c}b" for c in candidates)
    split_off = {w for w, _ in BertPreTokenizer().pre_tokenize_str(probe) if len(w) == 1 and w != "a" and w != "b"}
    return "".join(regex.escape(c) for c in sorted(split_off))


def _pattern(name: str):
    if name == "bert":
        return _bert_pattern()
    return _PATTERNS[name]


@lru_cache(maxsize=1)
def _bert_pattern():
    punct = _bert_punctuation()
    return regex.compile(rf"[{punct}]|[^{_WS}{punct}]+")
_GPT2_KEEP_BREAKS = regex.compile(GPT2_PATTERN)
CJK_CHAR = regex.compile(rf"[{_CJK}]")


def check_names(normalizer: str | None = None, pre_tokenizer: str | None = None) -> None:
    if normalizer is not None and normalizer not in NORMALIZERS:
        raise ConfigError(f"unknown normalizer {normalizer!r}: choose one of {', '.join(NORMALIZERS)}")
    if pre_tokenizer is not None and pre_tokenizer not in PRE_TOKENIZERS:
        raise ConfigError(f"unknown pre-tokenizer {pre_tokenizer!r}: choose one of {', '.join(PRE_TOKENIZERS)}")


# ---------------------------------------------------------------- normalizers

@lru_cache(maxsize=None)
def _hf_normalizer(name: str):
    # HF's own components: Python's unicodedata is Unicode 14, tokenizers follows 16, and the
    # parity with exported tokenizer.json files matters more than a hand-written copy.
    from tokenizers import normalizers
    if name == "lowercase":
        return normalizers.Lowercase()
    if name == "nfkc":
        return normalizers.NFKC()
    if name == "bert-uncased":
        return normalizers.BertNormalizer(clean_text=True, handle_chinese_chars=True,
                                          strip_accents=True, lowercase=True)
    raise ConfigError(f"unknown normalizer {name!r}")


def normalize(text: str, name: str = "none") -> str:
    """normalize("Héllo", "bert-uncased") == "hello"."""
    check_names(normalizer=name)
    if name == "none" or not text:
        return text
    return _hf_normalizer(name).normalize_str(text)


_CLUSTER = regex.compile(r"\P{M}\p{M}*|\p{M}+")  # a character and its combining marks


def normalize_aligned(text: str, name: str = "none") -> tuple[str, list[tuple[int, int]]]:
    """The normalized text and, for each of its characters, the [start, end) it came from.

    Normalizers work per character except for combining sequences (NFKC composes, strip_accents
    drops marks), so each character with its combining marks is normalized on its own and its
    output characters all point at that group, as HF's own alignments do. If that ever disagrees with normalizing the whole text, the
    whole-text result wins and its characters are spread proportionally over the input.
    Example: normalize_aligned("Ab", "lowercase") == ("ab", [(0, 1), (1, 2)]).
    """
    check_names(normalizer=name)
    if name == "none":
        return text, [(i, i + 1) for i in range(len(text))]
    whole = normalize(text, name)
    out: list[str] = []
    align: list[tuple[int, int]] = []
    for m in _CLUSTER.finditer(text):
        piece = normalize(m.group(), name)
        out.append(piece)
        align.extend([m.span()] * len(piece))
    if "".join(out) == whole:
        return whole, align
    n, m = len(whole), max(len(text), 1)
    return whole, [(min(i * m // max(n, 1), m - 1), min(i * m // max(n, 1), m - 1) + 1) for i in range(n)]


# ---------------------------------------------------------------- pre-tokenizers

def split_lines(text: str, keep_newlines: bool = False) -> list[str]:
    """Lines as docs/cli.md defines them; with keep_newlines each keeps its break at its end."""
    if not keep_newlines:
        return LINE_BREAK.split(text)
    lines, start = [], 0
    for m in LINE_BREAK.finditer(text):
        lines.append(text[start:m.end()])
        start = m.end()
    if start < len(text):
        lines.append(text[start:])
    return lines


@lru_cache(maxsize=1)
def _jieba():
    import jieba
    jieba.setLogLevel(logging.WARNING)  # it prints four lines to stderr on first use otherwise
    logging.getLogger("jieba").setLevel(logging.WARNING)
    jieba.initialize()
    return jieba


def _jieba_pieces(text: str) -> list[tuple[str, tuple[int, int]]]:
    jieba = _jieba()
    pieces = []
    for m in _PATTERNS["whitespace"].finditer(text):
        base = m.start()
        for word, start, end in jieba.tokenize(m.group()):
            pieces.append((word, (base + start, base + end)))
    return pieces


def pre_tokenize(text: str, name: str) -> list[tuple[str, tuple[int, int]]]:
    """Pieces of `text` with [start, end) character offsets into `text`, as encoding sees them.

    The whole text is one input, line breaks included (HF semantics: `gpt2` gives `Ċ` for a
    newline). `gpt2` pieces are written in the byte-level alphabet (space -> Ġ); the others are
    plain text.
    """
    check_names(pre_tokenizer=name)
    if name == "jieba":
        return _jieba_pieces(text)
    if name == "gpt2":
        return [(to_byte_chars(m.group()), m.span()) for m in _GPT2_KEEP_BREAKS.finditer(text)]
    return [(m.group(), m.span()) for m in _pattern(name).finditer(text)]


def pre_tokenize_words(text: str, name: str, *, keep_newlines: bool = False) -> list[str]:
    """The words of a training text, as docs/cli.md reads a corpus: line by line, each line without
    its break unless keep_newlines. Plain text even for gpt2 (the caller maps bytes).
    One regex findall over the whole text (count_words counts them through count_pieces)."""
    check_names(pre_tokenizer=name)
    if name == "jieba":
        return [w for w, _ in _jieba_pieces(text)]
    if name == "gpt2" and keep_newlines:
        out = []
        for line in split_lines(text, keep_newlines=True):
            out.extend(_GPT2_KEEP_BREAKS.findall(line))
        return out
    return _pattern(name).findall(text)


# Pre-tokenizers whose pieces never contain or cross white space: a text's pieces are those of
# its runs between white space, one run after another.
_WITHIN_RUNS = ("whitespace", "bert", "chars")

# GPT-2's white space (the regex module's \s, which is Unicode White_Space) written out for the
# standard library's re, whose own \s differs (it takes U+001C-U+001F too) and which cuts a text
# into segments about 1.6x faster than the regex module. tests/core/test_pipeline.py checks every
# code point.
GPT2_WHITE_SPACE = "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
# A segment: white space, then the run of other characters after it (or white space alone, at the
# end of the text). No gpt2 piece reaches from such a run into the white space after it.
_GPT2_SEGMENT = re.compile(f"[{GPT2_WHITE_SPACE}]*[^{GPT2_WHITE_SPACE}]+|[{GPT2_WHITE_SPACE}]+")


def count_pieces(text: str, name: str, *, keep_newlines: bool = False) -> Counter:
    """pre_tokenize_words' pieces counted, in first-appearance order: the hot path of counting.

    In two steps: what repeats is counted first (count_units: in C, or one scan), then each
    distinct unit is split once (pieces_of_units). For whitespace, bert and chars a unit is a run
    between white space: a corpus repeats its words, and BERT's punctuation class of thousands of
    characters is slow to test every letter against (1 MB of English: 0.55 s as one findall, 0.1 s
    this way). For gpt2, read line by line, it is a segment (_gpt2_pieces_of_segments). Pieces keep
    their order of first appearance: a piece first appears in the first-appearing unit that holds it.
    core/corpus.py counts a long text's chunks' units and splits the merged units once."""
    pieces = pieces_of_units(count_units(text, name, keep_newlines=keep_newlines), name, keep_newlines=keep_newlines)
    if pieces is None:   # gpt2's segments did not give back their pieces (never seen): piece by piece
        return Counter(pre_tokenize_words(text, name))
    return pieces


def count_units(text: str, name: str, *, keep_newlines: bool = False) -> Counter:
    """count_pieces' first step: a text's units counted in order of first appearance: its runs
    between white space (whitespace, bert, chars), its segments (gpt2 read line by line), or its
    pieces themselves (gpt2 with its line breaks, jieba). The units of the parts of a text cut at
    line breaks, merged in order, are the whole text's units."""
    check_names(pre_tokenizer=name)
    if name == "gpt2" and not keep_newlines:
        # A line break before the text makes its first segment start with white space as every
        # other one does, wherever the text was cut from a longer one (no rule matches a line
        # break, so its pieces are the same): units of two chunks never run into each other.
        return Counter(_GPT2_SEGMENT.findall("\n" + text))
    if name in _WITHIN_RUNS:
        return _runs_between_white_space(text)
    return Counter(pre_tokenize_words(text, name, keep_newlines=keep_newlines))


def pieces_of_units(units: Counter, name: str, *, keep_newlines: bool = False) -> Optional[Counter]:
    """count_pieces' second step: each distinct unit split once, the pieces counted in order of
    first appearance; None if gpt2's segments did not give back their pieces (the caller then counts
    the text piece by piece)."""
    if name == "gpt2" and not keep_newlines:
        return _gpt2_pieces_of_segments(units)
    if name not in _WITHIN_RUNS or name == "whitespace":
        return units
    split, out = _pattern(name).findall, Counter()
    split_ascii = _BERT_ASCII.findall
    for run, n in units.items():
        if run.isascii():
            if name == "chars" or run.isalnum():
                out[run] += n   # no CJK (chars), and no punctuation either (bert): kept whole
                continue
            for piece in split_ascii(run):
                out[piece] += n
            continue
        for piece in split(run):
            out[piece] += n
    return out


# BERT's punctuation among ASCII characters is ASCII's own 32 (HF: char::is_ascii_punctuation), so
# an ASCII run is split by this small class, three to four times faster than by the whole of
# Unicode's punctuation (English with code: 0.56 s against 0.14 for its 105,000 distinct runs
# with punctuation). tests/core/test_pipeline.py checks every ASCII character.
_BERT_ASCII = re.compile(r"[!-/:-@\[-`{-~]|[^!-/:-@\[-`{-~]+")


# The only code points str.isspace() takes that Unicode's White_Space does not (tests/core/
# test_pipeline.py checks every code point).
_SPLIT_ALSO_CUTS_AT = "\x1c\x1d\x1e\x1f"


def _runs_between_white_space(text: str) -> Counter:
    """The runs between white space (_PATTERNS["whitespace"]), counted in order of first appearance.
    str.split() cuts at the same characters but U+001C-U+001F and makes the runs in about half the
    regex's time (the KJV's 8.6 MB: 0.30 s against 0.58), so it does unless the text holds one of those."""
    if any(c in text for c in _SPLIT_ALSO_CUTS_AT):
        return Counter(_PATTERNS["whitespace"].findall(text))
    return Counter(text.split())


def _gpt2_pieces_of_segments(segments: Counter) -> Optional[Counter]:
    """pieces_of_units for gpt2 (line by line, breaks left out): the distinct segments
    (_GPT2_SEGMENT) split in one scan. Prose repeats its segments (" the", " LORD,"): the KJV's
    8.6 MB are 31,108 distinct ones, 258,279 characters, so the pieces come from one scan of those
    instead of the whole text.

    Why it is exact. No piece reaches from a segment's run into the white space after it, and no
    rule looks past a run's last character, so the text's pieces are its segments' pieces, one
    segment after another, and so are those of the distinct segments written one after another
    in their order of first appearance (each segment starts with white space, count_units sees to
    the first; white space alone ends with a line break, where no piece goes on, or ends the text).
    That order also gives each piece its first appearance. Each segment's pieces cover it all but
    its line breaks (no rule matches \r or \n), which is how the pieces are given back to their
    segments' counts. Should that ever not hold, None: the caller counts piece by piece instead."""
    pieces = _PATTERNS["gpt2"].findall("".join(segments))
    out, i = Counter(), 0
    try:
        for segment, n in segments.items():
            left = len(segment)
            if "\n" in segment or "\r" in segment:
                left -= segment.count("\n") + segment.count("\r")
            while left > 0:
                piece = pieces[i]
                i += 1
                out[piece] += n
                left -= len(piece)
            if left:
                raise IndexError("a piece crossed into the next segment")
    except IndexError:
        return None
    return out if i == len(pieces) else None
