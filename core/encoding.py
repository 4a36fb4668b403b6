"""What every tokenizer returns: ids, token strings, raw bytes and offsets per token.

Every view is a rendering of this record, whichever tokenizer made it (trained here,
pretrained through tiktoken, or a Hugging Face file), so a view can show a partial UTF-8
token as its bytes and map each token back onto the input.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache
from itertools import accumulate, compress
from typing import Optional, Sequence

# 1 for a byte that starts a UTF-8 character, 0 for a continuation byte (10xxxxxx)
_STARTS_A_CHARACTER = bytes(0 if 0x80 <= b < 0xC0 else 1 for b in range(256))
_CACHED_TEXT_LIMIT = 1_000_000    # longer texts get their tables built each time, never kept


def _utf8_tables(text: str) -> tuple[list[int], list[int]]:
    """(the character each UTF-8 byte of text belongs to, the byte where each character starts,
    plus the total length at the end). Built by C loops (translate, accumulate, compress), not a
    Python loop per character: Compare converts one 10,000-character text for every tokenizer it
    shows, and the same text comes back on every rerun, hence the small cache."""
    if len(text) <= _CACHED_TEXT_LIMIT:
        return _cached_utf8_tables(text)
    return _build_utf8_tables(text)


def _build_utf8_tables(text: str) -> tuple[list[int], list[int]]:
    data = text.encode("utf-8", "surrogatepass")
    leads = data.translate(_STARTS_A_CHARACTER)
    char_of_byte = list(accumulate(leads, initial=-1))
    del char_of_byte[0]
    starts = list(compress(range(len(data)), leads))
    starts.append(len(data))
    return char_of_byte, starts


_cached_utf8_tables = lru_cache(maxsize=8)(_build_utf8_tables)   # callers never modify the lists


@dataclass(frozen=True)
class Encoding:
    ids: tuple[int, ...]
    tokens: tuple[str, ...]                 # as the vocabulary spells them (byte-level: `Ġt`)
    token_bytes: tuple[bytes, ...]          # what each token stands for in UTF-8 (b"" for </w>, [CLS])
    offsets: tuple[tuple[int, int], ...]    # [start, end) in code points of the input text
    encoder: str                            # merges | greedy | longest-match | tiktoken | hf
    attention_mask: Optional[tuple[int, ...]] = None   # only with special tokens added
    token_type_ids: Optional[tuple[int, ...]] = None
    # the text (and pair) encoded, from which byte_offsets are worked out when first read
    encoded_texts: tuple[str, ...] = field(default=(), repr=False, compare=False)

    def with_byte_offsets(self, text: str, pair: Optional[str] = None) -> "Encoding":
        """This encoding, able to give its byte offsets (the second text's count from its own start,
        as the character offsets do)."""
        return replace(self, encoded_texts=(text,) if pair is None or self.token_type_ids is None else (text, pair))

    @cached_property
    def byte_offsets(self) -> tuple[tuple[int, int], ...]:
        """[start, end) of each token in the input's UTF-8 bytes; () if the texts were not given.
        Worked out on first read, not at encoding: no view draws them, and Compare encodes one text
        with every tokenizer on each edit (a tenth of that work was these offsets)."""
        if not self.encoded_texts:
            return ()
        if len(self.encoded_texts) == 1:
            return byte_spans(self.encoded_texts[0], self.offsets, self.token_bytes)
        text, pair = self.encoded_texts
        firsts = [k for k, t in enumerate(self.token_type_ids) if t == 0]
        n = firsts[-1] + 1 if firsts else 0
        return (byte_spans(text, self.offsets[:n], self.token_bytes[:n])
                + byte_spans(pair, self.offsets[n:], self.token_bytes[n:]))

    def __len__(self) -> int:
        return len(self.ids)

    def to_json(self) -> dict:
        out = {"ids": list(self.ids), "tokens": list(self.tokens), "offsets": [list(o) for o in self.offsets]}
        if self.attention_mask is not None:
            out["attention_mask"] = list(self.attention_mask)
            out["token_type_ids"] = list(self.token_type_ids or ())
        return out


def byte_offsets_to_char_offsets(text: str, byte_spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Map [start, end) byte spans of text's UTF-8 to code-point spans.

    A span covering part of a character covers the whole character (a byte-level token covers
    every character its bytes belong to). byte_offsets_to_char_offsets("é", [(0, 1), (1, 2)])
    == [(0, 1), (0, 1)].
    """
    char_of_byte = _utf8_tables(text)[0]
    n, end = len(char_of_byte), len(text)
    return [(char_of_byte[s], char_of_byte[min(e, n) - 1] + 1) if s < e and s < n
            else ((char_of_byte[s],) * 2 if s < n else (end, end))
            for s, e in byte_spans]


def byte_spans(text: str, offsets: Sequence[tuple[int, int]], token_bytes: Sequence[bytes]) -> tuple[tuple[int, int], ...]:
    """[start, end) of each token in text's UTF-8, from its character offsets. Consecutive tokens
    that share a character (byte-level tokens holding part of one) split its bytes in order, each
    taking as many as it stands for: byte_spans("é", [(0, 1), (0, 1)], [b"\\xc3", b"\\xa9"])
    == ((0, 1), (1, 2)). Empty spans (special tokens, `</w>`) stay empty."""
    if text.isascii():
        return tuple((s, e) for s, e in offsets)
    starts = _utf8_tables(text)[1]
    next_start = [len(text)] * len(offsets)    # where the next non-empty token begins
    upcoming = len(text)
    for k in range(len(offsets) - 1, -1, -1):
        next_start[k] = upcoming
        s, e = offsets[k]
        if s < e:
            upcoming = s
    out = []
    prev_end_char, prev_end_byte = -1, 0
    for k, (s, e) in enumerate(offsets):
        if s >= e:
            pos = starts[min(s, len(text))]
            out.append((pos, pos))
            continue
        begin = prev_end_byte if s < prev_end_char else starts[s]
        end = min(begin + len(token_bytes[k]), starts[e]) if next_start[k] < e else starts[e]
        end = max(begin, end)
        out.append((begin, end))
        prev_end_char, prev_end_byte = e, end
    return tuple(out)
