"""The one idea of "a tokenizer" that every view is written against.

Whatever the app shows — a tokenizer trained here (BPE, byte-level BPE, WordPiece, with the
encoder the user picked), a pretrained vocabulary (tiktoken ranks, BERT's vocab.txt) or a file a
user imported (tokenizer.json, vocab.json + merges.txt, vocab.txt) — implements `Tokenizer`.
A view takes a `Tokenizer` and asks it questions; it never asks which class it is.

    tok.name, tok.family, tok.vocab_size, tok.n_tokens, tok.byte_level, tok.special_tokens
    tok.id_to_token(15496) == "Hello";  tok.token_to_id("Hello") == 15496 (None when absent)
    tok.token_bytes(220) == b" "        raw bytes; partial UTF-8 possible; b"" for special tokens
    tok.encode(text)                     Encoding: ids, tokens, bytes, character and byte offsets
    tok.encode(text, recognize_special_tokens=True)   "<|endoftext|>" in the text is its one id
    tok.decode(ids) == text              (byte-level kinds: exactly)
    tok.front(text)                      the stages before the model: normalizer, pre-tokenizer chunks
    tok.post_processor                   what post-processing adds, in words
    tok.made_at(id)                      the merge step (trained) or rank (pretrained) that made it
    tok.encoders, tok.with_encoder("greedy")   a trained vocabulary offers three encoders; others ()
    tok.summary                          one line: where it comes from, its model, its size

Implementations: core/encoders.py (TrainedTokenizer), core/pretrained.py (PretrainedTokenizer),
core/formats.py (HFTokenizer). tests/core/test_contract.py runs one suite over all of them.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Protocol, Sequence

from .encoding import Encoding

FAMILIES = ("BPE", "byte-level BPE", "WordPiece", "Unigram", "WordLevel")


@dataclass(frozen=True)
class Chunk:
    """One piece the pre-tokenizer cut: as the pre-tokenizer spells it (byte-level: `Ġworld`),
    the normalized text it covers, and its [start, end) in the normalized text."""
    shown: str
    plain: str
    start: int
    end: int


@dataclass(frozen=True)
class Front:
    """The stages before the model, for one text: what the normalizer does (in words), the text
    it gives, what the pre-tokenizer does, and the chunks it cuts."""
    normalizer: str
    normalized: str
    pre_tokenizer: str
    chunks: tuple[Chunk, ...]


def chunks_of(normalized: str, pieces: Sequence[tuple[str, tuple[int, int]]]) -> tuple[Chunk, ...]:
    """(spelling, (start, end)) pairs, as pre-tokenizers return them, as Chunks."""
    return tuple(Chunk(shown, normalized[s:e], s, e) for shown, (s, e) in pieces)


class Tokenizer(Protocol):
    name: str                         # as the app labels it: "bbpe", "gpt2", an imported file's stem
    family: str                       # one of FAMILIES
    byte_level: bool                  # tokens stand for bytes: any text encodes, no unknown token
    vocab_size: int                   # the id range: largest id + 1 (a file may leave ids unassigned)
    n_tokens: int                     # how many tokens it has: vocab_size less the unassigned ids
    special_tokens: tuple[str, ...]
    post_processor: str               # what post-processing adds, in words
    summary: str                      # one line: where it comes from, its model, its size
    encoders: tuple[str, ...]         # the encoders a user may pick (trained here); () for the others

    def with_encoder(self, encoder: Optional[str]) -> "Tokenizer":
        """The same vocabulary encoding with `encoder` (one of `encoders`); None: its default."""

    def id_to_token(self, id: int) -> str:
        """The token's spelling in the vocabulary (`Ġworld`, `##ing`, `est</w>`)."""

    def token_to_id(self, token: str) -> Optional[int]:
        """The id of a spelling, None when the vocabulary has no such token."""

    def token_bytes(self, id: int) -> bytes:
        """The raw bytes the token stands for (a byte-level token may be part of a character);
        b"" for special tokens and for `</w>` alone."""

    def encode(self, text: str, *, add_special_tokens: bool = False,
               recognize_special_tokens: bool = False) -> Encoding:
        """Ids, tokens, their bytes and their character and byte offsets in `text`. Text that
        spells a special token is ordinary text, unless recognize_special_tokens: then each
        special token's spelling is its one id, with no bytes and the spelling's offsets
        (tiktoken's allowed_special="all"). add_special_tokens adds what the model's official
        tokenizer adds ([CLS]/[SEP], a BOS, ...). Raises core.errors.EncodeError when the
        vocabulary cannot cover the text (no unknown token)."""

    def decode(self, ids: Sequence[int]) -> str:
        """The text of ids. Raises core.errors.EncodeError for an id outside the vocabulary."""

    def front(self, text: str) -> Front:
        """What the normalizer and the pre-tokenizer make of `text`, before the model."""

    def made_at(self, id: int) -> Optional[int]:
        """For merge-based models the merge that made the token: its 1-based step for a tokenizer
        trained here, its rank for a pretrained or imported one. None for base tokens (characters,
        bytes, special tokens) and for models that do not merge (WordPiece vocab.txt)."""
