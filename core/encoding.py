"""What every tokenizer returns: ids, token strings, raw bytes and offsets per token.

Every view is a rendering of this record, whichever tokenizer made it (trained here,
pretrained through tiktoken, or a Hugging Face file), so a view can show a partial UTF-8
token as its bytes and map each token back onto the input.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional


@dataclass(frozen=True)
class Encoding:
    ids: tuple[int, ...]
    tokens: tuple[str, ...]                 # as the vocabulary spells them (byte-level: `Ġt`)
    token_bytes: tuple[bytes, ...]          # what each token stands for in UTF-8 (b"" for </w>, [CLS])
    offsets: tuple[tuple[int, int], ...]    # [start, end) in code points of the input text
    encoder: str                            # merges | greedy | longest-match | tiktoken | hf
    attention_mask: Optional[tuple[int, ...]] = None   # only with special tokens added
    token_type_ids: Optional[tuple[int, ...]] = None

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
    char_of_byte = []
    for i, ch in enumerate(text):
        char_of_byte.extend([i] * len(ch.encode("utf-8", "surrogatepass")))
    n = len(char_of_byte)
    out = []
    for s, e in byte_spans:
        if s >= e or s >= n:
            pos = char_of_byte[s] if s < n else len(text)
            out.append((pos, pos))
            continue
        out.append((char_of_byte[s], char_of_byte[min(e, n) - 1] + 1))
    return out
