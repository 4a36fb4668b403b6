"""The reference algorithms: plain, slow and readable. Open this file first.

Everything in core/trainer.py, core/encoders.py and core/corpus.py is built for speed (incremental
pair counts, heaps, caches). The functions here do the same job the obvious way, and the tests
check the fast paths against them, step for step, on small corpora. They import nothing from the
fast paths (standard library only), so they check them independently.

1. `reference_train`: the seeds' training loop. Every step recounts every adjacent pair over every
   word (a dict built in word order, each word left to right, weighted by the word's count), takes
   the best pair by value, merges it left to right (non-overlapping) in every word, and records
   the step. Nothing is incremental.

   Values: the pair count (BPE, byte-level BPE, WordPiece `frequency`), or for WordPiece
   `likelihood` the exact Fraction(count, freq(x) * freq(y)) with freq the count-weighted
   frequency of a symbol in the current splits. Ties among the pairs with the best value:
       first   -- Python's max() over the insertion-ordered dict: the pair met first;
       hf      -- the smallest (left id, right id);
       lexical -- the smallest (left, right) spelling, compared by code point.
   Ids: special tokens, the unknown token if new, the initial symbols (plain by code point, then
   the `##x` / `x</w>` variants by their character, `</w>` last; byte-level: all 256 bytes), then
   one id per merge whose token is new (a merge that makes an existing token reuses its id).
   Training stops at vocab_size (distinct tokens), at max_merges, or when no pair reaches
   min_frequency. The rules are the project's contract (docs/cli.md).

2. `get_stats` / `merge_vocab`: the seeds' BPE loop, literally (seed 002). The vocabulary is a dict
   {"l o w </w>": count} of space-joined symbol strings. Every step recounts every pair over every
   word (`word.split()`), takes `max(pairs, key=pairs.get)` (the first pair met among the best:
   the `first` tie rule), compiles a regex for the pair and runs it over EVERY word into a new
   dict. `byte_level_vocab` builds that dict from byte-level words (GPT-2's byte characters hold
   no whitespace, so `split()` and `(?<!\\S)` see the same symbols the trainer does, and no
   `</w>`: byte-level BPE has none); `timed_merges` runs the loop and times each merge (bench/).

3. The seeds' encoders, for one word: `merges_reference` (seed 004: every merge in the order
   learned), `greedy_reference` (seed 002: the longest tokens first, matched literally) and
   `longest_match_reference` (seed 004's WordPiece: the longest prefix in the vocabulary).
"""
from __future__ import annotations

import collections
import re
import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Optional, Sequence

END_OF_WORD = "</w>"
PREFIX = "##"


def bytes_to_unicode() -> dict[int, str]:
    """GPT-2's table (encoder.py), written out again here (core/bytelevel.py is the one the app uses)."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + \
        list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {b: chr(c) for b, c in zip(bs, cs)}


_B2U = bytes_to_unicode()


def byte_chars(word: str) -> str:
    return "".join(_B2U[b] for b in word.encode("utf-8"))


@dataclass(frozen=True)
class RefStep:
    pair: tuple[str, str]
    token: str
    id: int
    count: int
    score: Optional[Fraction]
    tied: int
    first_word: str                       # first word (corpus order) that contains the pair
    candidates: tuple                     # ((pair, count, score), ...) in tie-rule order
    changed_words_total: int
    total_tokens: int
    vocab_size: int

    def key(self):
        """What the trainer must reproduce exactly: (pair, token, id, count, score, tied)."""
        return (self.pair, self.token, self.id, self.count, self.score, self.tied)


@dataclass(frozen=True)
class RefResult:
    specials: tuple[str, ...]
    alphabet: tuple[str, ...]
    vocab: tuple[str, ...]
    steps: tuple[RefStep, ...]


def split_word(word: str, model: str, end_of_word: str, byte_level: bool) -> list[str]:
    chars = list(byte_chars(word)) if byte_level else list(word)
    if model == "wordpiece":
        return chars[:1] + [PREFIX + c for c in chars[1:]]
    if end_of_word == "symbol":
        return chars + [END_OF_WORD]
    if end_of_word == "suffix" and chars:
        chars[-1] = chars[-1] + END_OF_WORD
    return chars


def _alphabet_key(sym: str):
    if sym == END_OF_WORD:
        return (2, "")
    if sym.startswith(PREFIX) and len(sym) > 2:
        return (1, sym[2:])
    if sym.endswith(END_OF_WORD) and len(sym) > len(END_OF_WORD):
        return (1, sym[:-len(END_OF_WORD)])
    return (0, sym)


def join(left: str, right: str, model: str) -> str:
    if model == "wordpiece":
        return left + right[len(PREFIX):]
    return left + right


def reference_train(words: Sequence[tuple[str, int]], *, model: str = "bpe", vocab_size: int,
                    end_of_word: str = "none", score: str = "likelihood", tie_break: str = "first",
                    min_frequency: int = 1, max_merges: Optional[int] = None,
                    special_tokens: Sequence[str] = (), unk_token: Optional[str] = None,
                    byte_level: Optional[bool] = None, top_k: int = 10) -> RefResult:
    """words: unique (word, count) in first-appearance order, plain text (byte-level words are
    mapped here, as the trainer does for bbpe or the gpt2 pre-tokenizer)."""
    if byte_level is None:
        byte_level = model == "bbpe"
    likelihood = model == "wordpiece" and score == "likelihood"
    specials = list(dict.fromkeys(special_tokens))
    if unk_token is not None and unk_token not in specials:
        specials.append(unk_token)
    splits = [split_word(w, model, end_of_word, byte_level) for w, _ in words]
    counts = [c for _, c in words]
    symbols = {s for sp in splits for s in sp}
    if model == "bbpe":
        symbols |= set(_B2U.values())
    alphabet = sorted((s for s in symbols if s not in specials), key=_alphabet_key)
    vocab = specials + alphabet
    ids = {t: i for i, t in enumerate(vocab)}
    steps: list[RefStep] = []

    while len(vocab) < vocab_size and (max_merges is None or len(steps) < max_merges):
        pair_count: dict[tuple[str, str], int] = {}
        pair_first: dict[tuple[str, str], int] = {}
        for wi, (sp, c) in enumerate(zip(splits, counts)):
            for x, y in zip(sp, sp[1:]):
                pair_count[(x, y)] = pair_count.get((x, y), 0) + c
                pair_first.setdefault((x, y), wi)
        freq: dict[str, int] = {}
        if likelihood:
            for sp, c in zip(splits, counts):
                for s in sp:
                    freq[s] = freq.get(s, 0) + c

        def value(p):
            n = pair_count[p]
            return Fraction(n, freq[p[0]] * freq[p[1]]) if likelihood else n

        eligible = {p: value(p) for p, n in pair_count.items() if n >= min_frequency}
        if not eligible:
            break
        if tie_break == "first":
            order = list(eligible)                          # insertion order = first met
            best = max(eligible, key=eligible.get)          # max() keeps the first maximum
        elif tie_break == "hf":
            order = sorted(eligible, key=lambda p: (ids[p[0]], ids[p[1]]))
        elif tie_break == "lexical":
            order = sorted(eligible)
        else:
            raise ValueError(tie_break)
        rank = {p: i for i, p in enumerate(order)}
        ranked = sorted(eligible, key=lambda p: (-eligible[p], rank[p]))
        if tie_break != "first":
            best = ranked[0]
        assert ranked[0] == best
        best_value = eligible[best]
        tied = sum(1 for v in eligible.values() if v == best_value)

        def score_of(p):
            if model != "wordpiece":
                return None
            return eligible[p] if likelihood else Fraction(pair_count[p])

        candidates = tuple((p, pair_count[p], score_of(p)) for p in ranked[:top_k])

        a, b = best
        token = join(a, b, model)
        if token in ids:
            new_id = ids[token]
        else:
            new_id = len(vocab)
            vocab.append(token)
            ids[token] = new_id
        changed = 0
        for wi, sp in enumerate(splits):
            out, i, hit = [], 0, False
            while i < len(sp):
                if i + 1 < len(sp) and sp[i] == a and sp[i + 1] == b:
                    out.append(token)
                    i += 2
                    hit = True
                else:
                    out.append(sp[i])
                    i += 1
            if hit:
                splits[wi] = out
                changed += 1
        total = sum(len(sp) * c for sp, c in zip(splits, counts))
        steps.append(RefStep(pair=best, token=token, id=new_id, count=pair_count[best],
                             score=score_of(best), tied=tied, first_word=words[pair_first[best]][0],
                             candidates=candidates, changed_words_total=changed,
                             total_tokens=total, vocab_size=len(vocab)))
    return RefResult(tuple(specials), tuple(alphabet), tuple(vocab), tuple(steps))


# ---------------------------------------------------------------- the seeds' loop, literally (seed 002)

def get_stats(vocab):
    pairs = collections.defaultdict(int)
    for word, freq in vocab.items():
        symbols = word.split()
        for i in range(len(symbols)-1):
            pairs[symbols[i],symbols[i+1]] += freq
    return pairs


def merge_vocab(pair, v_in):
    v_out = {}
    bigram = re.escape(' '.join(pair))
    p = re.compile(r'(?<!\S)' + bigram + r'(?!\S)')
    for word in v_in:
        w_out = p.sub(''.join(pair), word)
        v_out[w_out] = v_in[word]
    return v_out


def byte_level_vocab(words, counts, to_chars) -> dict[str, int]:
    """{"Ġ t h e": 123, ...} in the words' order (first appearance); to_chars maps a word to its
    byte characters (core.bytelevel.to_byte_chars)."""
    vocab = {" ".join(to_chars(w)): c for w, c in zip(words, counts)}
    assert len(vocab) == len(words), "two words gave the same symbol string"
    return vocab


def timed_merges(vocab: dict[str, int], steps: int) -> tuple[list[float], list[tuple[str, str]], dict]:
    """`steps` iterations of the seeds' loop body (get_stats, max, merge_vocab), each timed:
    (seconds per merge, pairs merged, the vocabulary after them)."""
    times, picks = [], []
    for _ in range(steps):
        t = time.perf_counter()
        pairs = get_stats(vocab)
        if not pairs:
            break
        best = max(pairs, key=pairs.get)
        vocab = merge_vocab(best, vocab)
        times.append(time.perf_counter() - t)
        picks.append(best)
    return times, picks, vocab


# ---------------------------------------------------------------- the seeds' encoders

UNK = "[UNK]"


def merges_reference(units: list[str], merges, model: str) -> list[str]:
    """Seed 004's tokenize(): every merge in the order learned, over the split, left to right."""
    split = list(units)
    for a, b in merges:
        i = 0
        while i < len(split) - 1:
            if split[i] == a and split[i + 1] == b:
                merged = a + b[2:] if model == "wordpiece" else a + b
                split = split[:i] + [merged] + split[i + 2:]
            else:
                i += 1
    return split


def greedy_reference(units: tuple, sorted_tokens: list[tuple], unknown=UNK) -> list[tuple]:
    """Seed 002's tokenize_word() over units, matching literally, an unmatched piece -> unknown."""
    if not units:
        return []
    if not sorted_tokens:
        return [unknown]
    for i, token in enumerate(sorted_tokens):
        positions, j = [], 0
        while j <= len(units) - len(token):
            if units[j:j + len(token)] == token:
                positions.append(j)
                j += len(token)
            else:
                j += 1
        if not positions:
            continue
        out, start = [], 0
        for p in positions:
            out += greedy_reference(units[start:p], sorted_tokens[i + 1:], unknown)
            out.append(token)
            start = p + len(token)
        return out + greedy_reference(units[start:], sorted_tokens[i + 1:], unknown)
    return [unknown]


def longest_match_reference(word: str, vocab, prefix="##") -> list[str]:
    """Seed 004's WordPiece tokenize() for one word."""
    tokens = []
    while len(word) > 0:
        i = len(word)
        while i > 0 and word[:i] not in vocab:
            i -= 1
        if i == 0:
            return [UNK]
        tokens.append(word[:i])
        word = word[i:]
        if len(word) > 0:
            word = f"{prefix}{word}"
    return tokens
