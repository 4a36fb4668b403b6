"""One word through an encoder, step by step: the readable form of the three encoders that the
Inspect page prints, each step a line as the seeds print theirs.

    walk_word(tok, "newest", "merges")   -> Walk: every merge that applies, the split after each
        walk_merges        merges in learned order, the split after each (seed 004's printout)
        walk_longest_match WordPiece's longest match first, `##` put on the rest (seed 004)
        walk_greedy        seed 002's recursion: candidate found, left and right pieces
    walk_lines(walk)                     -> the steps as text
    walk_pieces(tok, text)               -> the words of a text that can be walked

Like core/reference.py, this is the slow, plain version of what core/encoders.py does fast; it
re-derives every step from the tokenizer's public data (merges, vocabulary, greedy candidates)
and ends with the split the encoder itself gives (tests/playground/test_inspect.py checks that
for every word and encoder). It lives beside the reference rather than in it because it walks a
trained tokenizer's own data, where the reference imports nothing from the fast paths.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

from .encoders import TrainedTokenizer, join_units
from .limits import WORDPIECE_MAX_WORD_CHARS

MAX_WALK_UNITS = 200         # longer words are not walked step by step (the steps would not fit)
MAX_TRIED_SHOWN = 6          # longest-match: the failed candidates listed per position
MAX_WALK_CHOICES = 500       # distinct words of the text offered for a walk
UNK_SHOWN = "[UNK]"          # what a walk shows for an unknown piece when the tokenizer has no unknown token


@dataclass(frozen=True)
class WalkStep:
    line: str                    # one line, as the seeds print it
    split: tuple[str, ...]       # merges: the whole split now; longest-match: tokens so far;
                                 # greedy: this piece's parts (left, token, right)
    depth: int = 0               # greedy: how deep in the recursion


@dataclass(frozen=True)
class Walk:
    encoder: str
    word: str                    # the pre-tokenized piece (normalized, plain text)
    units: tuple[str, ...]       # its initial symbols
    steps: tuple[WalkStep, ...]
    tokens: tuple[str, ...]      # the final split; an unknown piece as the unknown token
    unknown: int                 # how many unknown tokens
    refused: bool                # unknown pieces but no unknown token: encode() refuses this word
    note: str = ""


def _unk(tok: TrainedTokenizer) -> str:
    unk = tok.unk_token
    return unk if unk is not None and unk in tok.vocab_ids else UNK_SHOWN


def _shown(tokens: Sequence[str]) -> str:
    return "[" + ", ".join(tokens) + "]"


def walk_word(tok: TrainedTokenizer, word: str, encoder: Optional[str] = None) -> Walk:
    """The steps `encoder` takes on one pre-tokenized piece (plain text, already normalized)."""
    encoder = encoder or tok.default_encoder
    units = tuple(tok.word_units(word))
    if len(units) > MAX_WALK_UNITS:
        runs = tok.encode_units(list(units), encoder, len(word))
        tokens = tuple(t if t is not None else _unk(tok) for _, _, t in runs)
        unknown = sum(t is None for _, _, t in runs)
        return Walk(encoder, word, units, (), tokens, unknown, _refused(tok, unknown),
                    note=f"{len(units):,} symbols: too long to walk step by step (at most {MAX_WALK_UNITS})")
    if encoder == "merges":
        return walk_merges(tok, word)
    if encoder == "longest-match":
        return walk_longest_match(tok, word)
    if encoder == "greedy":
        return walk_greedy(tok, word)
    raise ValueError(f"unknown encoder {encoder!r}")


def _refused(tok: TrainedTokenizer, unknown: int) -> bool:
    return unknown > 0 and (tok.unk_token is None or tok.unk_token not in tok.vocab_ids)


def walk_merges(tok: TrainedTokenizer, word: str) -> Walk:
    """BPE: the merges that apply, in the order learned, each left to right over the word, with
    the split after each (seed 004: "Merge ('e', 's') -> es: [n, e, w, es, t]"); then every symbol
    outside the vocabulary becomes the unknown token, one per symbol."""
    units = tuple(tok.word_units(word))
    toks = list(units)
    steps = [WalkStep(f"Start: {_shown(toks)}", tuple(toks))]
    ranks = tok.merge_ranks
    last = -1
    while len(toks) > 1:
        best = None   # the lowest-ranked merge learned after the last one applied, present in the word
        for j in range(len(toks) - 1):
            for r in ranks.get((toks[j], toks[j + 1]), ()):
                if r > last:
                    if best is None or r < best:
                        best = r
                    break
        if best is None:
            break
        a, b = tok.merges[best]
        merged = join_units([a, b], tok.config) if tok.config.model == "wordpiece" else a + b
        out, j, times = [], 0, 0
        while j < len(toks):
            if j < len(toks) - 1 and toks[j] == a and toks[j + 1] == b:
                out.append(merged)
                j += 2
                times += 1
            else:
                out.append(toks[j])
                j += 1
        toks, last = out, best
        where = f" ×{times}" if times > 1 else ""
        steps.append(WalkStep(f"Merge {best + 1} ({a!r}, {b!r}) -> {merged}{where}: {_shown(toks)}", tuple(toks)))
    vocab = tok.vocab_ids
    unknown = sum(t not in vocab for t in toks)
    final = tuple(t if t in vocab else _unk(tok) for t in toks)
    if unknown:
        missing = ", ".join(repr(t) for t in dict.fromkeys(t for t in toks if t not in vocab))
        steps.append(WalkStep(f"Not in the vocabulary: {missing} -> {_unk(tok)}, one per symbol: {_shown(final)}",
                              final))
    elif len(steps) == 1:
        steps.append(WalkStep("No merge applies: the word stays as its symbols", final))
    return Walk("merges", word, units, tuple(steps), final, unknown, _refused(tok, unknown))


def walk_longest_match(tok: TrainedTokenizer, word: str) -> Walk:
    """WordPiece: at each position the longest vocabulary token that starts there; what is left
    gets `##` (seed 004: "matched lo; rest ##cal"); stuck anywhere: the whole word is unknown."""
    units = tuple(tok.word_units(word))
    cfg, vocab = tok.config, tok.vocab_ids
    steps: list[WalkStep] = []
    if len(word) > WORDPIECE_MAX_WORD_CHARS:
        steps.append(WalkStep(f"{len(word)} characters: longer than {WORDPIECE_MAX_WORD_CHARS}, the whole word is "
                              f"{_unk(tok)} (as HF WordPiece does)", (_unk(tok),)))
        return Walk("longest-match", word, units, tuple(steps), (_unk(tok),), 1, _refused(tok, 1))
    tokens: list[str] = []
    i, n = 0, len(units)
    while i < n:
        tried = []
        for j in range(n, i, -1):
            cand = join_units(units[i:j], cfg)
            if cand in vocab:
                tokens.append(cand)
                rest = join_units(units[j:], cfg) if j < n else ""
                shown_tried = ", ".join(tried[:MAX_TRIED_SHOWN]) + (" …" if len(tried) > MAX_TRIED_SHOWN else "")
                line = f"matched {cand}" + (f" (not in the vocabulary: {shown_tried})" if tried else "")
                line += f"; rest {rest}" if rest else "; nothing left"
                steps.append(WalkStep(line, tuple(tokens)))
                i = j
                break
            tried.append(cand)
        else:
            rest = join_units(units[i:], cfg)
            steps.append(WalkStep(f"no token starts {rest}: the whole word becomes {_unk(tok)}", (_unk(tok),)))
            return Walk("longest-match", word, units, tuple(steps), (_unk(tok),), 1, _refused(tok, 1))
    return Walk("longest-match", word, units, tuple(steps), tuple(tokens), 0, False)


def _find_all(hay: Sequence[str], needle: Sequence[str]) -> list[int]:
    """Start positions of the non-overlapping occurrences of needle in hay, left to right."""
    out, k, m = [], 0, len(needle)
    while k + m <= len(hay):
        if tuple(hay[k:k + m]) == tuple(needle):
            out.append(k)
            k += m
        else:
            k += 1
    return out


def walk_greedy(tok: TrainedTokenizer, word: str) -> Walk:
    """Seed 002's recursion: candidates sorted by length then frequency; the first one found in the
    piece splits it at each occurrence, and the parts between are searched with the candidates
    after it. A part no candidate matches becomes one unknown token."""
    units = tuple(tok.word_units(word))
    cands = tok.greedy_candidates
    cfg = tok.config
    rank: dict[tuple[str, ...], int] = {}
    for k, c in enumerate(cands):
        rank.setdefault(c, k)
    longest = max((len(c) for c in cands), default=0)
    steps: list[WalkStep] = []
    out: list[Optional[str]] = []

    def first_match(piece: tuple[str, ...], first: int) -> int:
        best = -1
        for s in range(len(piece)):
            for e in range(s + 1, min(len(piece), s + longest) + 1):
                r = rank.get(piece[s:e], -1)
                if r >= first and (best < 0 or r < best):
                    best = r
        return best

    def split(piece: tuple[str, ...], first: int, depth: int) -> None:
        if not piece:
            return
        text = join_units(piece, cfg)
        k = first_match(piece, first)
        if k < 0:
            steps.append(WalkStep(f"{text}: no candidate from #{first + 1} on occurs -> {_unk(tok)}",
                                  (_unk(tok),), depth))
            out.append(None)
            return
        cand = cands[k]
        token = join_units(cand, cfg)
        places = _find_all(piece, cand)
        parts, cursor = [], 0
        for p in places:
            parts.append(piece[cursor:p])
            cursor = p + len(cand)
        parts.append(piece[cursor:])
        shown_parts = []
        for idx, part in enumerate(parts):
            if idx:
                shown_parts.append(token)
            if part:
                shown_parts.append(join_units(part, cfg))
        times = f" {len(places)} times" if len(places) > 1 else ""
        steps.append(WalkStep(f"{text}: candidate #{k + 1} {token} found{times} -> {' | '.join(shown_parts)}",
                              tuple(shown_parts), depth))
        for idx, part in enumerate(parts):
            if idx:
                out.append(token)
            split(part, k + 1, depth + 1)

    split(units, 0, 0)
    unknown = sum(t is None for t in out)
    final = tuple(t if t is not None else _unk(tok) for t in out)
    return Walk("greedy", word, units, tuple(steps), final, unknown, _refused(tok, unknown))


def walk_lines(walk: Walk) -> str:
    """The walk as plain text (for st.code: never HTML), greedy indented by depth."""
    lines = [f"{walk.encoder} on {walk.word!r}: symbols {_shown(walk.units)}"]
    lines += ["  " * s.depth + s.line for s in walk.steps]
    lines.append(f"Result: {_shown(walk.tokens)}" + ("   (encode refuses it: this tokenizer has no unknown token)"
                                                    if walk.refused else ""))
    if walk.note:
        lines.append(walk.note)
    return "\n".join(lines)


def walk_pieces(tok: TrainedTokenizer, text: str, limit: int = MAX_WALK_CHOICES) -> list[str]:
    """The distinct pre-tokenized pieces (normalized plain text) of a text, in order, at most
    `limit`: what can be walked."""
    out: dict[str, None] = {}
    for p in tok.front(text).chunks:
        out.setdefault(p.plain)
        if len(out) >= limit:
            break
    return list(out)
