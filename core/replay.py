"""A chunk's merges replayed, for any BPE tokenizer, from the contract alone.

    replay_chunk(tok, chunk) -> Replay: the chunk's initial symbols, then one step per merge, each
        with the pair merged, the token it makes, that token's rank (`made_at`) and the split after
    replayable(tok)          -> why not (a sentence), or None when the tokenizer is a BPE

The rule is tiktoken's: repeatedly merge the adjacent pair whose merged token has the lowest rank
(leftmost first on a tie). It needs only what every tokenizer offers (core/tokenizer.py):
`front` for the chunks, `token_to_id` for "is the merged pair a token", `made_at` for its rank. So
it replays a tokenizer trained here (rank: the merge step), a tiktoken ranks file (the id), a
merges file (the merge's line), CLIP's `</w>` BPE and SentencePiece BPE (the piece's id is its
rank) alike. For files whose merges.txt lists two ways to make the same token this can differ
from the file's own pair ranks; tests/core/test_replay.py checks that the last step equals
encode() for every BPE tokenizer the app ships and trains.

Initial symbols: a tokenizer trained here gives its own (`word_units`: `</w>` as a symbol or a
suffix, as it was trained), and so does a Hugging Face BPE file with a continuing-subword prefix
or an end-of-word suffix (`join_units` then drops the prefix of a pair's right half: "l" + "##o"
is "lo"); otherwise a byte-level chunk's spelling character by character (one byte each, GPT-2's
alphabet); a `</w>` chunk's last symbol keeps the suffix (CLIP); otherwise its characters, a
character outside the vocabulary as its `<0xXX>` byte pieces when the vocabulary has them
(SentencePiece's byte fallback), else the unknown token.

Not here: the trained encoders' own walks (walks.py), drawing (playground/inspect.py).
"""
from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Optional

from .tokenizer import Chunk, Tokenizer

MAX_REPLAY_SYMBOLS = 400     # longer chunks are not replayed step by step (a step costs a scan)
END_OF_WORD = "</w>"
BPE_FAMILIES = ("BPE", "byte-level BPE")


@dataclass(frozen=True)
class ReplayStep:
    left: str                   # the pair merged, as the vocabulary spells its halves
    right: str
    token: str                  # what they make
    rank: int                   # made_at(token): the merge step or rank that made it
    position: int               # where in the split (before this step) the pair starts
    split: tuple[str, ...]      # the whole split after this step
    whole: bool = False         # not a merge: the whole chunk is a token and is looked up at once


@dataclass(frozen=True)
class Replay:
    chunk: Chunk
    start: tuple[str, ...]      # the initial symbols
    steps: tuple[ReplayStep, ...]
    note: str = ""              # why a chunk was not replayed, or what the start did (byte fallback)

    @property
    def final(self) -> tuple[str, ...]:
        return self.steps[-1].split if self.steps else self.start

    def split_at(self, k: int) -> tuple[str, ...]:
        """The split after k steps (0: the initial symbols)."""
        return self.start if k <= 0 else self.steps[min(k, len(self.steps)) - 1].split


def replayable(tok: Tokenizer) -> Optional[str]:
    """None for a BPE (merges to replay); else a sentence saying why there is nothing to replay."""
    if tok.family not in BPE_FAMILIES:
        return (f"{tok.name} is a {tok.family} tokenizer: it does not merge pairs, so there are no merges "
                "to replay")
    return None


def _unknown(tok: Tokenizer) -> Optional[str]:
    for spelling in ("<unk>", "[UNK]", "<|unk|>"):
        if tok.token_to_id(spelling) is not None:
            return spelling
    return None


def initial_symbols(tok: Tokenizer, chunk: Chunk) -> tuple[tuple[str, ...], str]:
    """The symbols the merges start from, and a note when some needed byte fallback or the unknown token."""
    shown = chunk.shown
    own_units = getattr(tok, "word_units", None)   # a tokenizer trained here spells them itself
    if own_units is not None:
        units = list(own_units(chunk.plain))
    elif shown.endswith(END_OF_WORD) and len(shown) > len(END_OF_WORD):
        units = list(shown[:-len(END_OF_WORD)])
        units[-1] += END_OF_WORD
    else:
        units = list(shown)
    if tok.byte_level:
        return tuple(units), ""
    out: list[str] = []
    fallback = unknown = 0
    for u in units:
        if tok.token_to_id(u) is not None:
            out.append(u)
            continue
        pieces = [f"<0x{b:02X}>" for b in u.encode("utf-8")]
        if all(tok.token_to_id(p) is not None for p in pieces):
            out.extend(pieces)
            fallback += 1
        else:
            out.append(_unknown(tok) or u)
            unknown += 1
    notes = []
    if fallback:
        notes.append(f"{fallback} character{'s' if fallback > 1 else ''} not in the vocabulary, spelled as byte pieces")
    if unknown:
        notes.append(f"{unknown} character{'s' if unknown > 1 else ''} with no token at all (unknown)")
    return tuple(out), "; ".join(notes)


def _rank(tok: Tokenizer, spelling: str, cache: dict) -> Optional[int]:
    if spelling not in cache:
        i = tok.token_to_id(spelling)
        cache[spelling] = tok.made_at(i) if i is not None else None
    return cache[spelling]


def replay_chunk(tok: Tokenizer, chunk: Chunk) -> Replay:
    """Every merge the chunk goes through, lowest rank first, one merge (one place) per step."""
    start, note = initial_symbols(tok, chunk)
    if len(start) > MAX_REPLAY_SYMBOLS:
        return Replay(chunk, start, (), f"{len(start):,} symbols: too long to replay step by step "
                                        f"(at most {MAX_REPLAY_SYMBOLS})")
    split = list(start)
    join = getattr(tok, "join_units", None) or operator.add   # a file's "l" + "##o" is "lo"
    ranks: dict[str, Optional[int]] = {}
    steps: list[ReplayStep] = []
    while len(split) > 1:
        best: Optional[tuple[int, int]] = None      # (rank, position)
        for j in range(len(split) - 1):
            r = _rank(tok, join(split[j], split[j + 1]), ranks)
            if r is not None and (best is None or r < best[0]):
                best = (r, j)
        if best is None:
            break
        r, j = best
        left, right = split[j], split[j + 1]
        split[j:j + 2] = [join(left, right)]
        steps.append(ReplayStep(left, right, split[j], r, j, tuple(split)))
    whole = "".join(start)
    if len(split) > 1 and tok.byte_level and _rank(tok, whole, ranks) is not None \
            and tuple(tok.encode(chunk.plain).tokens) == (whole,):
        # tiktoken (and HF's ignore_merges) first looks the whole chunk up: a token no merge
        # sequence reaches (Llama 3's "Ġsiyasi") is still taken as is
        steps.append(ReplayStep("".join(split[:-1]), split[-1], whole, ranks[whole], 0, (whole,), whole=True))
    return Replay(chunk, start, tuple(steps), note)


def replay_text(tok: Tokenizer, text: str) -> list[Replay]:
    """Every chunk of a text replayed (tests compare the splits with encode)."""
    return [replay_chunk(tok, c) for c in tok.front(text).chunks]
