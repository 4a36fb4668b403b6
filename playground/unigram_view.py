"""Pure helpers behind the Unigram page: a Unigram trace as steps, and one word's lattice.

Everything here reads a `core.unigram.UnigramTrace` (immutable, shared) and returns plain values
or escaped HTML; no Streamlit, nothing retrained.
    steps      iterations(trace): step 0 the seed pieces, then every EM step and every pruning in
               the order the trainer made them, then the final vocabulary; each with the pieces
               and scores it left, the vocabulary size and the loss
    the words  short_words(...): words of the corpus short enough for their lattice to be listed
    lattice    word_lattice(pieces, word): every segmentation of a short word by the pieces of one
               step, each with its log-probability (the sum of its pieces' scores) and its share
               of the word's total; the Viterbi path (core.unigram_reference.viterbi) marked
    HTML       lattice_html(lattice): the segmentations as a grid, one row each, pieces spanning
               the characters they cover, the Viterbi row outlined
Example (seed 000, the seed pieces): word_lattice(..., "low").segmentations[0].pieces ==
    (("▁low", 0, 4),) is the Viterbi path, and the probabilities of all segmentations add up to 1.

Not here: widgets and state (playground/unigram_control.py, pages/unigram.py), the charts
(charts.py), the trainer (core/unigram.py).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from operator import itemgetter
from typing import Optional, Sequence

from core.unigram import METASPACE, UNK_PENALTY, UnigramTrace, metaspace_word
from core.unigram_reference import build_lattice, viterbi
from playground import markup
from playground.spans import show_invisible

KINDS = ("seeds", "em", "prune", "final")
MAX_LATTICE_CHARS = 10          # a longer word has too many segmentations to list (up to 2^(n-1))
MAX_ROWS = 24                   # segmentations drawn; the rest are summed in one line
UNKNOWN = "<UNK>"               # how a character no piece covers is drawn (the trainer's own name)


# ---------------------------------------------------------------- steps

@dataclass(frozen=True)
class Iteration:
    """Step `index` of a Unigram training: what it did and the pieces it left."""
    index: int
    kind: str                                   # seeds | em | prune | final
    round: int                                  # 0 for the seeds and the final vocabulary
    sub_iteration: int                          # EM steps only (1-based), else 0
    pieces: tuple[tuple[str, float], ...]       # the pieces and scores after this step
    loss: Optional[float] = None                # EM: the loss of the step (per word, nats)
    pruned: tuple[tuple[str, Optional[float]], ...] = ()   # prune: the pieces removed, with their loss
    target: int = 0                             # prune: the size it aimed at

    @property
    def size(self) -> int:
        return len(self.pieces)


def iterations(trace: UnigramTrace) -> tuple[Iteration, ...]:
    """Step 0 the seeds; each EM step and each pruning of every round, in order; last, the final
    vocabulary (characters put back, special tokens added, cut to the size asked for)."""
    out = [Iteration(0, "seeds", 0, 0, tuple(trace.seeds))]
    prunes = {p.round: p for p in trace.prunes}
    current = tuple(trace.seeds)
    rounds = sorted({e.round for e in trace.em_steps})
    for r in rounds:
        for e in (e for e in trace.em_steps if e.round == r):
            current = tuple(zip(e.pieces, e.scores))
            out.append(Iteration(len(out), "em", r, e.sub_iteration, current, loss=e.loss))
        p = prunes.get(r)
        if p is not None:
            gone = {t for t, _ in p.pruned}
            current = tuple((t, s) for t, s in current if t not in gone)
            out.append(Iteration(len(out), "prune", r, 0, current, pruned=p.pruned, target=p.target))
    out.append(Iteration(len(out), "final", 0, 0, tuple(trace.vocab)))
    return tuple(out)


def last_loss(steps: Sequence[Iteration], k: int) -> Optional[float]:
    """The loss of the last EM step at or before step k (a pruning keeps the loss it found)."""
    for it in reversed(steps[:k + 1]):
        if it.loss is not None:
            return it.loss
    return None


def describe(steps: Sequence[Iteration], k: int) -> str:
    """One plain sentence for step k (Markdown-safe: pieces are not quoted in it)."""
    it = steps[k]
    last = len(steps) - 1
    head = f"Step {k} of {last}: "
    if it.kind == "seeds":
        return (head + f"the {it.size:,} seed pieces: every character and the most frequent substrings, "
                "each scored by the log of its share of the counts.")
    if it.kind == "em":
        return (head + f"round {it.round}, EM step {it.sub_iteration}: each word's lattice gives every piece "
                f"its expected count, and the scores are re-estimated from them; {it.size:,} pieces left "
                f"(those expected less than half a time dropped), loss {it.loss:.4f} nats a word.")
    if it.kind == "prune":
        return (head + f"round {it.round}, pruning: the {len(it.pruned):,} pieces whose loss (what the corpus's "
                f"likelihood loses without them) is smallest are removed, down to {it.size:,} pieces "
                f"(target {it.target:,}); a one-character piece is never pruned.")
    return (head + f"the final vocabulary: {it.size:,} pieces (special tokens first, every character kept, "
            "cut to the size asked for).")


# ---------------------------------------------------------------- the words offered

def short_words(words: Sequence[str], counts: Sequence[int], limit: int = 30,
                max_chars: int = MAX_LATTICE_CHARS) -> list[str]:
    """The most frequent words whose lattice can be listed (at most max_chars characters with
    the ▁ in front), most frequent first, then shorter first; at most `limit`."""
    ranked = sorted(((c, w) for w, c in zip(words, counts) if w and len(w) + 1 <= max_chars),
                    key=lambda cw: (-cw[0], len(cw[1]), cw[1]))
    out: list[str] = []
    for _, w in ranked:
        if w not in out:
            out.append(w)
        if len(out) >= limit:
            break
    return out


def richest_word(pieces: Sequence[tuple[str, float]], words: Sequence[str], metaspace: bool = True) -> Optional[str]:
    """The word with the most segmentations under `pieces` (the seeds: a choice that stays the
    same at every step), the first such in `words`; None when `words` is empty. The pieces are
    indexed once for all the words: a corpus's seeds are hundreds of thousands of pieces (the
    KJV's), and indexing them for each of 30 words was half a second of every Unigram step."""
    best, most = None, 0
    texts = [_lattice_text(w, metaspace, MAX_LATTICE_CHARS) for w in words]
    table = _PieceTable.of(pieces, set().union(*(_substrings(t) for t in texts))) if words else None
    for w in words:
        n = len(_lattice(table, w, metaspace).segmentations)
        if n > most:
            best, most = w, n
    return best


# ---------------------------------------------------------------- the lattice

@dataclass(frozen=True)
class Segmentation:
    pieces: tuple[tuple[str, int, int], ...]    # (piece, begin, end) in the ▁word; UNKNOWN for <UNK>
    log_prob: float                             # the sum of its pieces' scores
    probability: float                          # its share of the word's total: exp(log_prob - log_total)
    viterbi: bool


@dataclass(frozen=True)
class WordLattice:
    word: str                                   # as the trainer sees it: ▁ + the word
    segmentations: tuple[Segmentation, ...]     # most probable first
    log_total: float                            # log Σ exp(log_prob) over every segmentation
    unknown: tuple[int, ...]                    # positions no one-character piece covers

    @property
    def viterbi_path(self) -> Segmentation:
        return next(s for s in self.segmentations if s.viterbi)


def _log_sum(values: Sequence[float]) -> float:
    top = max(values)
    return top + math.log(math.fsum(math.exp(v - top) for v in values))


@dataclass(frozen=True)
class _PieceTable:
    """One step's pieces as the trainer's lattice reads them: id 0 is the unknown character (its
    <UNK>, scored the lowest piece's score minus 10), the pieces follow from 1."""
    ids: dict[str, int]
    scores: list[float]
    unk_score: float

    @classmethod
    def of(cls, pieces: Sequence[tuple[str, float]], only: Optional[set[str]] = None) -> "_PieceTable":
        """The table of `pieces`, or of those among them in `only` (the substrings of the words to
        be drawn: their lattices are the same, and a step of a big corpus has hundreds of thousands
        of pieces; the unknown character's score still comes from all of them)."""
        unk_score = min(map(itemgetter(1), pieces)) - UNK_PENALTY
        kept = pieces if only is None else [ps for ps in pieces if ps[0] in only]
        return cls({p: i + 1 for i, (p, _) in enumerate(kept)}, [unk_score] + [s for _, s in kept], unk_score)


def _substrings(text: str, max_piece_length: int = 16) -> set[str]:
    return {text[b:e] for b in range(len(text)) for e in range(b + 1, min(len(text), b + max_piece_length) + 1)}


def word_lattice(pieces: Sequence[tuple[str, float]], word: str, metaspace: bool = True,
                 max_piece_length: int = 16, max_chars: int = MAX_LATTICE_CHARS) -> WordLattice:
    """Every segmentation of `word` by `pieces` (one step's pieces and scores), as the trainer's
    lattice has them: a piece wherever it fits, an unknown node (the lowest score minus 10) for a
    character no one-character piece covers. Raises ValueError for a word longer than max_chars."""
    text = _lattice_text(word, metaspace, max_chars)   # a word too long is said before the pieces are read
    return _lattice(_PieceTable.of(pieces, _substrings(text, max_piece_length)), word, metaspace,
                    max_piece_length, max_chars)


def _lattice_text(word: str, metaspace: bool, max_chars: int) -> str:
    text = metaspace_word(word, metaspace)
    if not word or len(text) > max_chars:
        raise ValueError(f"a lattice is listed for words of 1 to {max_chars} characters")
    return text


def _lattice(table: _PieceTable, word: str, metaspace: bool = True, max_piece_length: int = 16,
             max_chars: int = MAX_LATTICE_CHARS) -> WordLattice:
    """word_lattice with the pieces already indexed."""
    text = _lattice_text(word, metaspace, max_chars)
    n = len(text)
    lat = build_lattice(text, table.ids, table.scores, max_piece_length, table.unk_score)
    unknown = tuple(b for b in range(n) if any(node.id == 0 for node in lat.begins[b]))
    edges: list[list[tuple[int, str, float]]] = [[] for _ in range(n)]   # from each position: (end, piece, score)
    for b in range(n):
        for node in lat.begins[b]:
            edges[b].append((node.end, UNKNOWN if node.id == 0 else text[b:node.end], node.score))
    best = tuple((n_.begin, n_.end) for n_ in viterbi(lat))
    found: list[tuple[tuple[tuple[str, int, int], ...], float]] = []

    def walk(pos: int, path: list, total: float) -> None:
        if pos == n:
            found.append((tuple(path), total))
            return
        for end, shown, score in edges[pos]:
            path.append((shown, pos, end))
            walk(end, path, total + score)
            path.pop()

    walk(0, [], 0.0)
    log_total = _log_sum([lp for _, lp in found])
    segs = [Segmentation(p, lp, math.exp(lp - log_total), tuple((b, e) for _, b, e in p) == best)
            for p, lp in found]
    segs.sort(key=lambda s: (not s.viterbi, -s.log_prob, len(s.pieces)))
    return WordLattice(text, tuple(segs), log_total, unknown)


# ---------------------------------------------------------------- HTML

def _show(piece: str) -> str:
    """A piece or character as drawn: one that draws nothing (a zero-width joiner) named, escaped."""
    return markup.text(show_invisible(piece))


def lattice_html(lat: WordLattice, rows: int = MAX_ROWS) -> str:
    """The segmentations as a grid: a header of the word's characters, then one row per
    segmentation (the Viterbi path first, outlined), each piece a box over the characters it
    covers, then its log-probability and its share of the word's total with a bar."""
    n = len(lat.word)
    # narrow columns: ten characters, log p and share fit the 507 pixels a 1024-pixel window with
    # the sidebar open leaves (a piece wider than its characters is cut with "…", whole in its tooltip)
    cols = f"repeat({n}, minmax(1.5rem, 1fr)) 4.4rem 5.6rem"
    out = [f'<div class="ug-lattice" style="grid-template-columns:{cols}" data-segmentations="{len(lat.segmentations)}">']
    for i, ch in enumerate(lat.word):
        cls = "ug-char ug-unk" if i in lat.unknown else "ug-char"
        out.append(f'<div class="{cls}" style="grid-row:1;grid-column:{i + 1}">{_show(ch)}</div>')
    out.append(f'<div class="ug-head" style="grid-row:1;grid-column:{n + 1}">log p</div>'
               f'<div class="ug-head" style="grid-row:1;grid-column:{n + 2}">share</div>')
    for r, seg in enumerate(lat.segmentations[:rows]):
        row = r + 2
        cls = "ug-row ug-best" if seg.viterbi else "ug-row"
        out.append(f'<div class="{cls}" style="grid-row:{row};grid-column:1 / {n + 3}"></div>')
        for piece, b, e in seg.pieces:
            unk = piece == UNKNOWN      # drawn as its character, dashed red; the tooltip says unknown
            title = f"{lat.word[b:e]}: unknown ({UNKNOWN})" if unk else show_invisible(piece)
            out.append(f'<div class="ug-piece{" ug-unk" if unk else ""}" style="grid-row:{row};grid-column:{b + 1} / {e + 1}" '
                       f'title="{markup.attr(title)}">{_show(lat.word[b:e] if unk else piece)}</div>')
        pct = seg.probability * 100
        shown = f"{pct:.1f}%" if pct >= 0.05 or pct == 0 else "<0.1%"
        out.append(f'<div class="ug-lp" style="grid-row:{row};grid-column:{n + 1}">{seg.log_prob:.3f}</div>'
                   f'<div class="ug-share" style="grid-row:{row};grid-column:{n + 2}" data-p="{seg.probability!r}">'
                   f'<span class="ug-bar" style="width:{max(pct, 0.5):.1f}%"></span>'
                   f'<span class="ug-pct">{shown}</span></div>')
    rest = lat.segmentations[rows:]
    if rest:
        share = math.fsum(s.probability for s in rest) * 100
        out.append(f'<div class="ug-more" style="grid-row:{rows + 2};grid-column:1 / {n + 3}">and {len(rest):,} '
                   f'more segmentations, {share:.1f}% together</div>')
    out.append("</div>")
    return "".join(out)


def lattice_caption(lat: WordLattice) -> str:
    """What the grid shows, in one sentence (Markdown-safe)."""
    best = lat.viterbi_path
    return (f"All {len(lat.segmentations):,} segmentations of the word with this step's pieces; each one's "
            f"log-probability is the sum of its pieces' scores, its share is e^(log p) over the word's total "
            f"e^{lat.log_total:.3f} (the shares add up to 100%). Outlined: the Viterbi path, the most probable "
            f"({best.probability:.1%}), which encoding would use." + (
                " A character no piece covers is the unknown piece." if lat.unknown else ""))



__all__ = ["Iteration", "iterations", "describe", "last_loss", "short_words", "Segmentation", "WordLattice",
           "word_lattice", "lattice_html", "lattice_caption", "METASPACE"]
