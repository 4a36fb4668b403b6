"""Unigram training, the readable way: plain loops, one function per idea.
(Just over 400 lines: the whole algorithm, one plain function per idea, meant to be read top to bottom.)

A Unigram tokenizer is a list of pieces, each with a score (its log-probability). A word is cut
into the pieces whose scores add up highest (Viterbi). Training starts from far too many pieces
and throws pieces away until the vocabulary has the size asked for:

    1. seed      every character, and the substrings that repeat (ranked by count × length)
    2. EM        E: how often each piece is expected to be used, over every way to cut each word
                 (forward-backward over the word's lattice); M: new scores from those counts
    3. prune     for each piece, how much the corpus likelihood drops if it is removed and its
                 second-best segmentation is used instead; keep the pieces that hurt most to lose
    4. repeat 2-3 until the size (× 1.1) is reached; then keep the best `vocab_size` pieces,
                 every character of the corpus among them

Each step is Hugging Face `tokenizers`' UnigramTrainer's (trainer.rs, lattice.rs), arithmetic
included, so that the results can be compared number for number. core/unigram.py runs the same
loop faster; tests check the two give the same trace.

Example:
    from core.corpus import WordCounts
    trace = train_reference(WordCounts(("low", "lower", "newest", "widest"), (5, 2, 6, 3)),
                            UnigramConfig(vocab_size=20))
    trace.pieces[:3]    # the pieces with the highest scores first
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Optional

from .corpus import WordCounts
from .errors import CorpusError
from .trainer import cut_long_words
from .unigram import (STUCK_NOTE, WORD_BLOCK, EMStep, EXPECTED_FREQUENCY_THRESHOLD, METASPACE, MIN_SCORE_PENALTY_DELTA, PruneStep,
                      TRAINING_UNK, UNK_PENALTY, UnigramConfig, UnigramTrace, check_sizes, digamma, fsum_left,
                      log_sum_exp)


def training_words(words: WordCounts, config: UnigramConfig) -> list[tuple[str, int]]:
    """The words as the trainer sees them: "▁low" for "low" (HF Metaspace, prepend always)."""
    prefix = METASPACE if config.metaspace else ""
    return [(w if w.startswith(prefix) else prefix + w, c) for w, c in zip(words.words, words.counts) if w]


# ---------------------------------------------------------------- 1. seed pieces

def seed_pieces(sentences: list[tuple[str, int]], config: UnigramConfig) -> list[tuple[str, float]]:
    """Characters (weighted by word counts), then repeated substrings ranked by count × length.

    HF puts every unique word once into one string, separated by "\\0", builds its suffix array and
    takes the suffix tree's internal nodes: the substrings that occur at least twice and are not
    always followed by the same character ("right-maximal"). Their count is how often they occur
    in that string (each unique word once, not weighted by its count). Here the same substrings
    are found by counting directly: every substring of 2 to max_piece_length characters, its
    occurrences and the characters that follow it ("\\0" at the end of a word).

    Characters come first, by weighted count descending, ties by the character descending; then
    substrings by count × length descending, ties by the substring descending; until seed_size.
    The scores are log(value / Σ values).
    """
    char_counts: dict[str, int] = {}
    for word, count in sentences:
        for ch in word:
            if ch != "\0":
                char_counts[ch] = char_counts.get(ch, 0) + count

    occurrences: dict[str, int] = {}
    followers: dict[str, set[str]] = {}
    for word, _count in sentences:
        for start in range(len(word)):
            for end in range(start + 2, min(len(word), start + config.max_piece_length) + 1):
                sub = word[start:end]
                if "\0" in sub:
                    break
                occurrences[sub] = occurrences.get(sub, 0) + 1
                followers.setdefault(sub, set()).add(word[end] if end < len(word) else "\0")

    substrings = [(n * len(s), s) for s, n in occurrences.items() if n >= 2 and len(followers[s]) >= 2]

    seeds: list[tuple[str, float]] = []
    for count, ch in sorted(((n, c) for c, n in char_counts.items()), reverse=True):
        seeds.append((ch, float(count)))
    for score, sub in sorted(substrings, reverse=True):
        seeds.append((sub, float(score)))
        if len(seeds) >= config.seed_size:
            break
    total = fsum_left(s for _, s in seeds)
    log_total = math.log(total)
    return [(p, math.log(s) - log_total) for p, s in seeds]


# ---------------------------------------------------------------- the lattice of one word

@dataclass
class Node:
    """One piece placed in a word: it covers word[begin:end]."""
    id: int            # the piece's index in the current list; for unknown characters, 0 (<UNK>)
    begin: int
    end: int
    score: float
    alpha: float = 0.0          # log Σ of the scores of every path from the start to this node's beginning
    beta: float = 0.0           # log Σ of every path from this node's end to the end of the word
    best: float = 0.0           # the best path score up to and including this node (Viterbi)
    prev: Optional["Node"] = None


@dataclass
class Lattice:
    """Every piece that fits anywhere in a word. begins[i]: nodes starting at character i (shorter
    first, then the unknown character); ends[i]: nodes ending at i (in the order they were put in,
    so the ones starting earlier first). A start node ends at 0, an end node begins at len(word)."""
    word: str
    nodes: list[Node] = field(default_factory=list)
    begins: list[list[Node]] = field(default_factory=list)
    ends: list[list[Node]] = field(default_factory=list)


def build_lattice(word: str, ids: dict[str, int], scores: list[float], max_len: int,
                  unk_score: float) -> Lattice:
    """The lattice of one word: every current piece at every place it fits (as HF's trie finds
    them: from each character, shorter first), and an unknown node for a character no
    one-character piece covers (score: the lowest piece's minus 10)."""
    n = len(word)
    lat = Lattice(word, [], [[] for _ in range(n + 1)], [[] for _ in range(n + 1)])
    bos, eos = Node(-1, 0, 0, 0.0), Node(-2, n, n, 0.0)
    lat.ends[0].append(bos)
    lat.begins[n].append(eos)
    for begin in range(n):
        has_single = False
        for end in range(begin + 1, min(n, begin + max_len) + 1):
            piece_id = ids.get(word[begin:end])
            if piece_id is None:
                continue
            node = Node(piece_id, begin, end, scores[piece_id])
            lat.nodes.append(node)
            lat.begins[begin].append(node)
            lat.ends[end].append(node)
            if end == begin + 1:
                has_single = True
        if not has_single:                 # a character no piece covers: the unknown piece
            node = Node(0, begin, begin + 1, unk_score)
            lat.nodes.append(node)
            lat.begins[begin].append(node)
            lat.ends[begin + 1].append(node)
    return lat


def forward_backward(lat: Lattice, count: int, expected: list[float]) -> float:
    """Add count × P(node is used) to expected[node.id] for every node; return count × log Z,
    where Z sums the probabilities of every segmentation of the word."""
    n = len(lat.word)
    for pos in range(n + 1):                       # alpha: from the left
        for right in lat.begins[pos]:
            for k, left in enumerate(lat.ends[pos]):
                right.alpha = log_sum_exp(right.alpha, left.score + left.alpha, k == 0)
    for pos in range(n, -1, -1):                   # beta: from the right
        for left in lat.ends[pos]:
            for k, right in enumerate(lat.begins[pos]):
                left.beta = log_sum_exp(left.beta, right.score + right.beta, k == 0)
    z = lat.begins[n][0].alpha                     # the end node's alpha
    for pos in range(n):
        for node in lat.begins[pos]:
            expected[node.id] += count * math.exp(node.alpha + node.score + node.beta - z)
    return count * z


def viterbi(lat: Lattice) -> list[Node]:
    """The best path, left to right. Ties go to the left node met first (the one starting earliest)."""
    n = len(lat.word)
    for pos in range(n + 1):
        for right in lat.begins[pos]:
            best_node, best_score = None, 0.0
            for left in lat.ends[pos]:
                score = left.best + right.score
                if best_node is None or score > best_score:
                    best_node, best_score = left, score
            right.prev, right.best = best_node, best_score
    path = []
    node = lat.begins[n][0].prev
    while node is not None and node.prev is not None:
        path.append(node)
        node = node.prev
    return path[::-1]


# ---------------------------------------------------------------- 2. EM

def e_step(sentences, ids, scores, max_len, unk_score) -> tuple[float, list[float]]:
    """Expected piece counts over the corpus, and its loss (-Σ count·log Z / Σ count).

    The words are summed in blocks of WORD_BLOCK, each block on its own, then the blocks in order
    (HF sums each thread's share, then the shares): the fast trainer may give blocks to other
    processes and still add exactly the same floats in exactly the same order."""
    expected = [0.0] * len(scores)
    total = sum(c for _, c in sentences)
    loss = 0.0
    for start in range(0, len(sentences), WORD_BLOCK):
        block_expected = [0.0] * len(scores)
        block_loss = 0.0
        for word, count in sentences[start:start + WORD_BLOCK]:
            lat = build_lattice(word, ids, scores, max_len, unk_score)
            z = forward_backward(lat, count, block_expected)
            block_loss -= z / total
        for i in range(len(scores)):
            expected[i] += block_expected[i]
        loss += block_loss
    return loss, expected


def m_step(pieces: list[tuple[str, float]], expected: list[float]) -> list[tuple[str, float]]:
    """New scores: drop pieces expected fewer than 0.5 times; score = ψ(count) − ψ(Σ counts).
    (The digamma ψ instead of log is HF's and sentencepiece's "Bayesian" EM: a sparse prior that
    pulls rare pieces further down.) The training <UNK> stays first, without a score."""
    kept = [pieces[0]]
    total = 0.0
    for i in range(1, len(pieces)):
        if expected[i] < EXPECTED_FREQUENCY_THRESHOLD:
            continue
        kept.append((pieces[i][0], expected[i]))
        total += expected[i]
    log_total = digamma(total)
    return [kept[0]] + [(p, digamma(c) - log_total) for p, c in kept[1:]]


# ---------------------------------------------------------------- 3. prune

def second_best(token: str, ids, scores, max_len, unk_score) -> tuple[list[Node], Optional[list[Node]]]:
    """The best segmentation of a piece's own text and, when that is the piece itself, the best
    one without it (what the piece's uses turn into if it is removed)."""
    lat = build_lattice(token, ids, scores, max_len, unk_score)
    best = viterbi(lat)
    if len(best) != 1:
        return best, None
    whole = best[0]
    lat.begins[0].remove(whole)
    lat.ends[len(token)].remove(whole)
    for node in lat.nodes:
        node.prev, node.best = None, 0.0
    if not lat.begins[0]:
        return best, None
    second = viterbi(lat)
    return best, (second or None)


def prune(pieces, sentences, config: UnigramConfig, round_no: int) -> tuple[list[tuple[str, float]], PruneStep]:
    """Keep the pieces whose removal would cost the most likelihood, down to
    max(1.1 × vocab_size, shrinking_factor × current size)."""
    ids = {p: i for i, (p, _) in enumerate(pieces) if i > 0}
    scores = [s for _, s in pieces]
    max_len = max(len(p) for p, _ in pieces[1:])
    min_score = min(s for _, s in pieces[1:])
    unk_score = min_score - UNK_PENALTY

    # how each piece would be cut without it
    always_keep = [True] * len(pieces)
    alternatives: list[list[int]] = [[] for _ in pieces]
    always_keep[0] = False
    for i in range(1, len(pieces)):
        best, second = second_best(pieces[i][0], ids, scores, max_len, unk_score)
        if len(best) >= 2:
            always_keep[i] = False          # the piece is not even its own best cut
        elif second is not None:
            alternatives[i] = [node.id for node in second]

    # how often each piece is used in the corpus's Viterbi segmentation
    freq = [0.0] * len(pieces)
    inverted: list[list[int]] = [[] for _ in pieces]
    word_total = 0.0
    for w, (word, count) in enumerate(sentences):
        word_total += count
        for node in viterbi(build_lattice(word, ids, scores, max_len, unk_score)):
            freq[node.id] += count
            inverted[node.id].append(w)
    total = fsum_left(freq)
    log_total = math.log(total)

    kept = [pieces[0]]
    candidates: list[tuple[int, float]] = []
    pruned: dict[int, Optional[float]] = {}
    for i in range(1, len(pieces)):
        if freq[i] == 0.0 and not always_keep[i]:
            pruned[i] = None                # on no Viterbi path: removed without a loss
            continue
        if not alternatives[i]:
            kept.append(pieces[i])          # nothing could replace it: kept
            continue
        f = 0.0
        for w in inverted[i]:
            f += sentences[w][1]
        if f == 0.0:
            pruned[i] = None
            continue
        f /= word_total
        logprob = math.log(freq[i]) - log_total
        # HF multiplies by (number of pieces − 1) here where sentencepiece uses (number of
        # alternatives − 1): kept as HF has it (docs/unigram.md)
        log_total_alt = math.log(total + freq[i] * (len(alternatives) - 1))
        logprob_alt = 0.0
        for a in alternatives[i]:
            logprob_alt += math.log(freq[a] + freq[i]) - log_total_alt
        candidates.append((i, f * (logprob - logprob_alt)))

    target = max(config.desired_size, int(len(pieces) * config.shrinking_factor))
    candidates.sort(key=lambda c: -c[1])     # stable: equal losses keep the pieces' order
    for i, loss in candidates:
        if len(kept) == target:
            pruned[i] = loss
            continue
        kept.append(pieces[i])
    record = PruneStep(round_no, len(pieces) - 1, len(kept) - 1, target - 1,
                       tuple((pieces[i][0], pruned[i]) for i in sorted(pruned)))
    return kept, record


# ---------------------------------------------------------------- 4. the loop and the final cut

def required_characters(sentences) -> list[str]:
    seen: dict[str, None] = {}
    for word, _ in sentences:
        for ch in word:
            seen.setdefault(ch, None)
    return list(seen)


def finalize(pieces, required: list[str], config: UnigramConfig) -> tuple[list[tuple[str, float]], Optional[int]]:
    """Every character of the corpus (a missing one scores just under the lowest piece), then the
    best-scored pieces until vocab_size, sorted by score; special tokens and the unknown token first."""
    scores = {p: s for p, s in pieces[1:]}
    min_score = min(scores.values())
    out: list[tuple[str, float]] = []
    inserted = {TRAINING_UNK}
    penalty = 0.0
    for ch in required:
        inserted.add(ch)
        if ch in scores:
            out.append((ch, scores[ch]))
        else:
            out.append((ch, min_score + penalty))
            penalty += MIN_SCORE_PENALTY_DELTA
    specials = [(t, 0.0) for t in config.special_tokens]
    unk_id = None
    if config.unk_token is not None:
        if config.unk_token in config.special_tokens:
            unk_id = config.special_tokens.index(config.unk_token)
        else:
            unk_id = 0
            specials.insert(0, (config.unk_token, 0.0))
    size = config.vocab_size - len(specials)
    for p, s in pieces:
        if len(out) >= size:      # (HF checks `==` after adding: with the characters alone at the
            break                 # size it would add every piece; docs/unigram.md)
        if p in inserted:
            continue
        inserted.add(p)
        out.append((p, 0.0 if math.isnan(s) else s))
    out.sort(key=lambda x: -x[1])
    return specials + out, unk_id


def train_reference(words: WordCounts, config: UnigramConfig) -> UnigramTrace:
    """Train a Unigram vocabulary the readable way (the same trace as core.unigram.train_unigram)."""
    config = config.resolved()
    words, cut_notes = cut_long_words(words)        # as the other trainers do (core/trainer.py)
    sentences = training_words(words, config)
    if not sentences:
        raise CorpusError("the corpus has no words to train on")
    seeds = seed_pieces(sentences, config)
    required = required_characters(sentences)
    check_sizes(config, len(required), len(seeds))
    pieces: list[tuple[str, float]] = [(TRAINING_UNK, math.nan)] + seeds
    em_steps, prunes = [], []
    stuck: tuple[str, ...] = ()
    round_no = 0
    while True:
        round_no += 1
        for sub in range(1, config.n_sub_iterations + 1):
            ids = {p: i for i, (p, _) in enumerate(pieces) if i > 0}
            scores = [s for _, s in pieces]
            unk_score = min(s for _, s in pieces[1:]) - UNK_PENALTY
            max_len = max(len(p) for p, _ in pieces[1:])
            loss, expected = e_step(sentences, ids, scores, max_len, unk_score)
            pieces = m_step(pieces, expected)
            em_steps.append(EMStep(round_no, sub, loss, tuple(p for p, _ in pieces[1:]),
                                   tuple(s for _, s in pieces[1:])))
        if len(pieces) <= config.desired_size:
            break
        pieces, record = prune(pieces, sentences, config, round_no)
        prunes.append(record)
        if not record.pruned:          # nothing could go: HF would loop for ever here
            stuck = (STUCK_NOTE,)
            break
    vocab, unk_id = finalize(pieces, required, config)
    return UnigramTrace(config, tuple(seeds), tuple(em_steps), tuple(prunes), tuple(vocab), unk_id,
                        tuple(required), cut_notes + stuck + notes_for(vocab, config))


def notes_for(vocab, config: UnigramConfig) -> tuple[str, ...]:
    if len(vocab) < config.vocab_size:
        return (f"the vocabulary has {len(vocab)} pieces, fewer than the {config.vocab_size} asked for: "
                "EM dropped pieces expected less than half a time",)
    return ()
