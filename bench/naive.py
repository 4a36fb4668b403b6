"""The seeds' naive BPE loop, literally (seed 002's get_stats, merge_vocab, max over pairs).

The vocabulary is a dict {"l o w </w>": count} of space-joined symbol strings. Every step recounts
every pair over every word (`word.split()`), takes `max(pairs, key=pairs.get)` (the first pair met
among the best: the `first` tie rule), compiles a regex for the pair and runs it over EVERY word
into a new dict. Here the words are byte-level: each word of the trainer's WordCounts mapped to
GPT-2's byte characters, which contain no whitespace, so `split()` and `(?<!\\S)` see the same
symbols the trainer does (and no `</w>`: byte-level BPE has none).
"""
from __future__ import annotations

import collections
import re
import time


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
