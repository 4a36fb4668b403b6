"""The trainers: character BPE, byte-level BPE and WordPiece, one merge at a time, traced.
(Over 400 lines: the one training loop of three algorithms with its incremental pair counts, queue
and trace; its parts share the trainer's state at every merge. The readable version is core/reference.py.)

All three are the same loop: unique words as lists of symbol ids with their counts; at each
step take the best pair by the model's value (pair count, or WordPiece's likelihood score),
break ties by the run's rule, merge it in every word that contains it, and write one frozen
`MergeStep` record. Pages only render these records; they never recompute training.

The loop is incremental (docs/references.md, "Counting pairs and merging"): nothing recounts the
corpus per merge. State, with shapes:
    words[i]        list[int]          current symbol ids of unique word i
    counts[i]       int                its count in the corpus
    pair_count      (int, int) -> int  weighted count of each adjacent pair (> 0 only)
    pair_words      (int, int) -> list[int]  sorted indices of words that contained it
                                       (may be stale: a word is checked before use)
    pair_value      (int, int) -> value  for pairs eligible under min_frequency
    value_hist      value -> int       how many eligible pairs have that value (-> `tied`)
    first_key       (int, int) -> (word index, unit offset)   rule `first` only: where the
                                       pair occurs first NOW (it moves as merges happen)
    heap            [(-value, exact value, tie key 1, tie key 2, left, right)]  lazy, as HF's
                                       queue: every eligible pair has an entry ranked at least
                                       as high as it truly is; entries are checked on pop
    top             the k best entries (the step's candidates), held out of the heap between steps
Cost per merge grows with the words the merge touches, not with the corpus.

Tie rules (docs/cli.md): `first` = the pair met first scanning words in first-appearance order, each
left to right over its current symbols (the seeds' `max` over a rebuilt dict); `hf` = smallest
(left id, right id), HF BpeTrainer's; `lexical` = smallest (left, right) spelling by code point.

Not here: encoding text with the result (encoders.py), reading corpora (corpus.py).
Example (seed 004): train(WordCounts(("low", "lower", "newest", "widest"), (5, 2, 6, 3)),
    TrainConfig(model="bpe", vocab_size=13)).merges == [("e", "s"), ("es", "t"), ("l", "o")]
"""
from __future__ import annotations

import gc
import heapq
import sys
import threading
from bisect import bisect_left, insort
from contextlib import contextmanager
from dataclasses import dataclass, field, asdict
from fractions import Fraction
from functools import cached_property
from itertools import chain
from math import gcd
from typing import Callable, Iterable, NamedTuple, Optional

from .bytelevel import byte_to_char, to_byte_chars
from .corpus import WordCounts
from .errors import ConfigError, CorpusError
from .limits import MAX_CHANGED_WORDS, MAX_TRAINING_WORD_CHARS, MAX_VOCAB_SIZE
from .pipeline import DEFAULT_PRE_TOKENIZER, NORMALIZERS, PRE_TOKENIZERS

try:   # the compiled loops, built by `make fast` (core/fast/build.py); optional: see FAST_PATH
    from .fast import _merge as _fast
except ImportError:
    _fast = None

# What the CLI and the app report: which path trains. Both give the same trace, merge for merge
# (tests/core/test_fast_path.py); the Python one is the readable reference.
FAST_PATH = _fast is not None
TRAINER_PATH = "compiled fast path (core/fast/_merge)" if FAST_PATH else "pure-Python path"

MODELS = ("bpe", "bbpe", "wordpiece")
MODEL_LABELS = {"bpe": "BPE", "bbpe": "Byte-level BPE", "wordpiece": "WordPiece"}   # as every view names them
TIE_RULES = ("first", "hf", "lexical")
END_OF_WORD_MODES = ("none", "symbol", "suffix")
SCORE_RULES = ("likelihood", "frequency")
END_OF_WORD = "</w>"
CONTINUATION = "##"


@dataclass(frozen=True)
class TrainConfig:
    """How to learn; the result (`Trace`) holds what was learned."""
    model: str = "bpe"
    vocab_size: int = 1000
    pre_tokenizer: Optional[str] = None      # None: the model's default (docs/cli.md)
    normalizer: str = "none"
    end_of_word: str = "none"                # bpe only
    score: str = "likelihood"                # wordpiece only
    tie_break: str = "first"
    min_frequency: int = 1
    max_merges: Optional[int] = None
    special_tokens: tuple[str, ...] = ()
    unk_token: Optional[str] = None
    top_k: int = 10
    keep_newlines: bool = False

    def resolved(self) -> "TrainConfig":
        """Validated, with defaults filled in; raises ConfigError with a one-line reason."""
        if self.model not in MODELS:
            raise ConfigError(f"unknown model {self.model!r}: choose bpe, bbpe or wordpiece")
        pre = self.pre_tokenizer or DEFAULT_PRE_TOKENIZER[self.model]
        if pre not in PRE_TOKENIZERS:
            raise ConfigError(f"unknown pre-tokenizer {pre!r}: choose one of {', '.join(PRE_TOKENIZERS)}")
        if self.normalizer not in NORMALIZERS:
            raise ConfigError(f"unknown normalizer {self.normalizer!r}: choose one of {', '.join(NORMALIZERS)}")
        if self.end_of_word not in END_OF_WORD_MODES:
            raise ConfigError(f"unknown end-of-word mode {self.end_of_word!r}: none, symbol or suffix")
        if self.end_of_word != "none" and self.model != "bpe":
            raise ConfigError("--end-of-word applies to the bpe model only")
        if self.score not in SCORE_RULES:
            raise ConfigError(f"unknown score {self.score!r}: likelihood or frequency")
        if self.tie_break not in TIE_RULES:
            raise ConfigError(f"unknown tie rule {self.tie_break!r}: first, hf or lexical")
        for name, value, low in (("vocabulary size", self.vocab_size, 1), ("minimum frequency", self.min_frequency, 1),
                                 ("top-k", self.top_k, 1)):
            if not isinstance(value, int) or isinstance(value, bool) or value < low:
                raise ConfigError(f"{name} must be a whole number of at least {low} (got {value!r})")
        if self.vocab_size > MAX_VOCAB_SIZE:
            raise ConfigError(f"vocabulary size {self.vocab_size:,} is too large: at most {MAX_VOCAB_SIZE:,}")
        if self.top_k > 1000:
            raise ConfigError("top-k must be at most 1000")
        if self.max_merges is not None and (not isinstance(self.max_merges, int) or self.max_merges < 0):
            raise ConfigError(f"max merges must be a whole number of at least 0 (got {self.max_merges!r})")
        specials = tuple(self.special_tokens)
        if any(not s for s in specials):
            raise ConfigError("a special token cannot be empty")
        if self.unk_token is not None and self.unk_token == "":
            raise ConfigError("the unknown token cannot be empty")
        return TrainConfig(**{**asdict(self), "pre_tokenizer": pre, "special_tokens": specials})

    @property
    def byte_level(self) -> bool:
        """Words are written in the byte-level alphabet (bbpe, or any model over `gpt2`)."""
        return self.model == "bbpe" or (self.pre_tokenizer or DEFAULT_PRE_TOKENIZER[self.model]) == "gpt2"

    @property
    def score_rule(self) -> Optional[str]:
        return self.score if self.model == "wordpiece" else None


class _Descending:
    """A reduced fraction n/d that sorts largest first, compared exactly (see _Trainer._entry)."""
    __slots__ = ("value",)

    def __init__(self, value: tuple[int, int]):
        self.value = value

    def __lt__(self, other: "_Descending") -> bool:
        (n1, d1), (n2, d2) = self.value, other.value
        return n1 * d2 > n2 * d1

    def __eq__(self, other) -> bool:
        return self.value == other.value


class Candidate(NamedTuple):   # NamedTuple, not a dataclass: ten are built per merge, fast
    pair: tuple[str, str]
    count: int
    score: Optional[Fraction]   # likelihood: exact fraction; frequency: == count; BPE: None


class ChangedWord(NamedTuple):
    """A word a merge changed, as token ids (spell them with Trace.spell): kept as ids because
    turning them into strings at every step cost a fifth of the training time."""
    before: tuple[int, ...]
    after: tuple[int, ...]
    count: int


@dataclass(frozen=True)
class MergeStep:
    """One merge, as a view shows it. `index` starts at 1."""
    index: int
    pair: tuple[str, str]
    token: str
    id: int
    count: int
    score: Optional[Fraction]
    tied: int                       # distinct pairs that shared the winning value (1: no tie)
    first_word: str                 # where the winner occurs first now (the `first` rule's reason)
    candidates: tuple[Candidate, ...]
    changed_words: tuple[ChangedWord, ...]   # the first MAX_CHANGED_WORDS, in corpus order (ids)
    changed_words_total: int
    total_tokens: int               # tokens in the whole corpus after this step
    vocab_size: int                 # after this step


def first_made(made: Iterable[tuple[str, int]]) -> dict[str, int]:
    """(token, step) pairs in step order -> token -> the first step that made it."""
    out: dict[str, int] = {}
    for token, step in made:
        out.setdefault(token, step)
    return out


@dataclass(frozen=True)
class Trace:
    """What a trainer learned, step by step. Immutable; pages read it, never recompute it."""
    config: TrainConfig
    special_tokens: tuple[str, ...]
    alphabet: tuple[str, ...]        # initial symbols in id order (special tokens excluded)
    vocab: tuple[str, ...]           # id -> token
    steps: tuple[MergeStep, ...]
    initial_total_tokens: int
    words: WordCounts                # the training words (plain text, first-appearance order)
    final_tokens: tuple[tuple[str, int], ...] = field(default=())  # final segmentation's tokens
                                     # with their frequency, first-appearance order (greedy's input)
    stop_reason: str = ""
    notes: tuple[str, ...] = ()      # what was changed about the input before training, and why

    @property
    def merges(self) -> list[tuple[str, str]]:
        return [s.pair for s in self.steps]

    @property
    def token_to_id(self) -> dict[str, int]:
        return {t: i for i, t in enumerate(self.vocab)}

    @cached_property
    def made_at(self) -> dict[str, int]:
        """token -> the step (1-based) of the first merge that made it; a later merge may make the
        same token again (WordPiece, BPE with `</w>` as a suffix), and the first one is its origin.
        Initial symbols and special tokens are absent. The one home of this fact: the Merges page,
        the vocabulary table, merge trees and TrainedTokenizer.made_at all read it from here."""
        return first_made((s.token, s.index) for s in self.steps)

    def spell(self, ids) -> tuple[str, ...]:
        """Token ids as token strings: spell(step.changed_words[0].after) == ("n", "e", "w", "es", "t")."""
        return tuple(self.vocab[i] for i in ids)

    @property
    def unk_token(self) -> Optional[str]:
        return self.config.unk_token


# ---------------------------------------------------------------- symbols

def initial_symbols(word: str, config: TrainConfig) -> list[str]:
    """A word's first split. initial_symbols("low", wordpiece) == ["l", "##o", "##w"];
    bpe with end_of_word="symbol": ["l", "o", "w", "</w>"]; "suffix": ["l", "o", "w</w>"]."""
    chars = list(to_byte_chars(word)) if config.byte_level else list(word)
    if config.model == "wordpiece":
        return chars[:1] + [CONTINUATION + c for c in chars[1:]]
    if config.end_of_word == "symbol":
        return chars + [END_OF_WORD]
    if config.end_of_word == "suffix" and chars:
        chars[-1] += END_OF_WORD
    return chars


def join_symbols(left: str, right: str, model: str) -> str:
    """The token a merge makes: `wi` + `##d` -> `wid`, `##s` + `##t` -> `##st` (seed 004)."""
    if model == "wordpiece":
        return left + right[len(CONTINUATION):]
    return left + right


def _alphabet_order(symbol: str) -> tuple:
    # plain symbols by code point, then the ##x / x</w> variants, then </w> last (docs/cli.md)
    if symbol == END_OF_WORD:
        return (2, "")
    if symbol.startswith(CONTINUATION) and len(symbol) > len(CONTINUATION):
        return (1, symbol[len(CONTINUATION):])
    if symbol.endswith(END_OF_WORD) and len(symbol) > len(END_OF_WORD):
        return (1, symbol[:-len(END_OF_WORD)])
    return (0, symbol)


def _special_tokens(config: TrainConfig) -> list[str]:
    """The vocabulary's first ids: the special tokens once each, then the unknown token if not one of them."""
    specials = list(dict.fromkeys(config.special_tokens))
    if config.unk_token is not None and config.unk_token not in specials:
        specials.append(config.unk_token)
    return specials


def initial_vocab(words: WordCounts, config: TrainConfig) -> tuple[list[str], list[str], list[list[str]]]:
    """(special tokens, alphabet in id order, each word's initial split)."""
    specials = _special_tokens(config)
    splits = [initial_symbols(w, config) for w in words.words]
    symbols = set()
    for s in splits:
        symbols.update(s)
    if config.model == "bbpe":
        symbols.update(byte_to_char().values())
    alphabet = sorted((s for s in symbols if s not in specials), key=_alphabet_order)
    return specials, alphabet, splits


def _splits_into_bytes(config: TrainConfig) -> bool:
    """Whether a word's first split is its UTF-8 bytes, one byte-level character each (bbpe, and
    bpe over gpt2 without an end-of-word mark): then _byte_level_start can make it."""
    return config.byte_level and config.model != "wordpiece" and config.end_of_word == "none"


def _byte_level_start(words: WordCounts, config: TrainConfig) -> tuple[list[str], list[str], list[list[int]]]:
    """initial_vocab's (special tokens, alphabet) and each word's initial symbol ids, for a config
    whose splits are bytes (_splits_into_bytes): the same lists as looking every initial_symbols
    string up, but each word's ids are its UTF-8 bytes mapped through a 256-entry table
    (bytes.translate, in C) instead of one string and one dict look-up per byte (on 8 MB of
    Chinese and English, 132k words: most of the trainer's start-up)."""
    specials = _special_tokens(config)
    encoded = [w.encode("utf-8") for w in words.words]
    char = byte_to_char()
    seen = range(256) if config.model == "bbpe" else set(b"".join(encoded))   # bbpe: all 256 bytes
    alphabet = sorted((s for s in {char[b] for b in seen} if s not in specials), key=_alphabet_order)
    token_id = {t: i for i, t in enumerate(specials + alphabet)}
    byte_id = [token_id.get(char[b], 0) for b in range(256)]   # bytes never seen: never looked up
    if max(byte_id) < 256:   # ids fit in a byte: translate the bytes to ids, list() them
        table = bytes(byte_id)
        ids = [list(e.translate(table)) for e in encoded]
    else:
        ids = [[byte_id[b] for b in e] for e in encoded]
    return specials, alphabet, ids


_LAST_CHAR_ID = sys.maxunicode     # _char_level_start writes an id as the character of that code point


def _char_level_start(words: WordCounts, config: TrainConfig) -> tuple[list[str], list[str], list[list[int]]]:
    """initial_vocab's (special tokens, alphabet) and each word's initial symbol ids, for a config
    whose words are not written in the byte-level alphabet (their first split is their characters,
    marked as initial_symbols marks them): the same lists as looking every initial_symbols string
    up, but the alphabet is read from the words joined (one string per mark) and each word's ids
    are made by str.translate (in C) through a table from character to id, one table per mark:
    plain, WordPiece's ##, and suffix BPE's </w> on a word's last character. On 8 MB of Chinese
    and English (150,000 words) this was a third of the trainer's start, one string, one list and
    one dict look-up per character."""
    specials = _special_tokens(config)
    ws = words.words
    mark = "wordpiece" if config.model == "wordpiece" else config.end_of_word
    if mark == "wordpiece":         # the first character plain, every other one ##-continued
        plain, marked = {w[0] for w in ws if w}, set("".join([w[1:] for w in ws]))
        symbols = plain | {CONTINUATION + c for c in marked}
    elif mark == "suffix":          # the last character </w>-suffixed
        plain, marked = set("".join([w[:-1] for w in ws])), {w[-1] for w in ws if w}
        symbols = plain | {c + END_OF_WORD for c in marked}
    else:                           # every character plain; "symbol": </w> after every word
        plain, marked = set("".join(ws)), set()
        symbols = plain | ({END_OF_WORD} if mark == "symbol" and ws else set())
    alphabet = sorted((s for s in symbols if s not in specials), key=_alphabet_order)
    token_id = {t: i for i, t in enumerate(specials + alphabet)}
    if len(token_id) > _LAST_CHAR_ID + 1:   # more symbols than code points: ids looked up one by one
        return specials, alphabet, [[token_id[s] for s in initial_symbols(w, config)] for w in ws]
    # ids as characters: chr(id), any code point up to the last (str holds every one)
    plain_table = {ord(c): chr(token_id[c]) for c in plain}
    if mark == "wordpiece":
        marked_table = {ord(c): chr(token_id[CONTINUATION + c]) for c in marked}
        ids = [[token_id[w[0]], *map(ord, w[1:].translate(marked_table))] if w else [] for w in ws]
    elif mark == "suffix":
        last_id = {c: token_id[c + END_OF_WORD] for c in marked}
        ids = [[*map(ord, w[:-1].translate(plain_table)), last_id[w[-1]]] if w else [] for w in ws]
    elif mark == "symbol":
        end = token_id.get(END_OF_WORD)    # in the alphabet whenever there is a word
        ids = [[*map(ord, w.translate(plain_table)), end] for w in ws]
    else:
        ids = [list(map(ord, w.translate(plain_table))) for w in ws]
    return specials, alphabet, ids


# ---------------------------------------------------------------- the trainer

class _Trainer:
    def __init__(self, words: WordCounts, config: TrainConfig, fast: bool = True):
        self.config = config
        self.fast = fast   # use the compiled loops when they are built (FAST_PATH); see below
        self.model = config.model
        self.rule = config.tie_break
        self.likelihood = config.model == "wordpiece" and config.score == "likelihood"
        self.min_freq = config.min_frequency
        splits = None
        if _splits_into_bytes(config):   # the same vocabulary and ids, made from the UTF-8 bytes
            specials, alphabet, self.words = _byte_level_start(words, config)
        elif not config.byte_level:      # the same, made from the characters
            specials, alphabet, self.words = _char_level_start(words, config)
        else:
            specials, alphabet, splits = initial_vocab(words, config)
        self.specials, self.alphabet = specials, alphabet
        self.vocab: list[str] = specials + alphabet
        self.token_id: dict[str, int] = {t: i for i, t in enumerate(self.vocab)}
        self.units: list[int] = [1] * len(self.vocab)      # base units a token spans (offsets)
        if splits is not None:
            self.words: list[list[int]] = [[self.token_id[s] for s in sp] for sp in splits]
        self.counts: list[int] = list(words.counts)
        self.word_counts = words
        self.total_tokens = sum(len(w) * c for w, c in zip(self.words, self.counts))
        self.initial_total_tokens = self.total_tokens
        # the compiled loops sum count changes in 64-bit integers and pack symbol ids in 31 bits
        self.fast = fast and self.total_tokens < 2 ** 62 and len(self.vocab) + MAX_VOCAB_SIZE < 2 ** 31
        self.symbol_freq: list[int] = [0] * len(self.vocab)
        self.pair_count: dict[tuple[int, int], int] = {}
        self.pair_words: dict[tuple[int, int], list[int]] = {}
        self.first_key: dict[tuple[int, int], tuple[int, int]] = {}
        self.pair_value: dict = {}
        self.value_hist: dict = {}
        self.symbol_pairs: dict[int, set] = {}  # likelihood only: symbol -> pairs that contain it
        self.heap: list = []
        self.top: list = []    # the best entries, out of the heap (see _pop_best)
        self._count_initial_pairs()
        if _fast is not None and self.fast:   # the compiled loop reads the words from C arrays
            self.words = _fast.Words(self.words, self.counts)

    # -- setup

    def _count_initial_pairs(self) -> None:
        pair_count = self.pair_count
        count_pairs = _fast.count_initial_pairs if _fast is not None and self.fast else self._count_pairs
        count_pairs(self.words, self.counts, self.symbol_freq, pair_count, self.pair_words, self.first_key,
                    self.rule == "first")
        fast = _fast is not None and self.fast
        if self.likelihood:
            if fast:
                _fast.pairs_by_symbol(pair_count, self.symbol_pairs)
            else:
                for p in pair_count:
                    self.symbol_pairs.setdefault(p[0], set()).add(p)
                    self.symbol_pairs.setdefault(p[1], set()).add(p)
        if fast and not self.likelihood and self.min_freq <= 1:
            # every pair is eligible and its value is its count: the compiled loop keeps one dict
            # for both (core/fast/_merge.pyx, _settle_counts)
            self.pair_value = pair_count
            for c in pair_count.values():
                self.value_hist[c] = self.value_hist.get(c, 0) + 1
        else:
            self._revalue(pair_count, queue=False)
        if fast:   # the same entries, built in C
            self.heap = _fast.heap_entries(self.pair_value, self.likelihood, TIE_RULES.index(self.rule),
                                           self.first_key, self.vocab, _fast.Descending)
        else:
            self.heap = [self._entry(p) for p in self.pair_value]
        heapq.heapify(self.heap)

    @staticmethod
    def _count_pairs(words, counts, freq, pair_count, pair_words, first_key, track_first) -> None:
        """Symbol frequencies, pair counts, pair -> word lists (and first occurrences) of the
        initial words; core/fast/_merge.pyx's count_initial_pairs is this compiled."""
        for wi, (syms, c) in enumerate(zip(words, counts)):
            for s in syms:
                freq[s] += c
            for off in range(len(syms) - 1):
                p = (syms[off], syms[off + 1])
                n = pair_count.get(p)
                if n is None:
                    pair_count[p] = c
                    pair_words[p] = [wi]
                    if track_first:
                        first_key[p] = (wi, off)  # all initial symbols span one unit
                else:
                    pair_count[p] = n + c
                    lst = pair_words[p]
                    if lst[-1] != wi:
                        lst.append(wi)

    # -- values and keys

    def _revalue(self, pairs, earlier=frozenset(), queue: bool = True) -> None:
        """Store each pair's current value (none below min_frequency: the pair leaves the race)
        and keep value_hist (-> `tied`) in step. With `queue`, give a new heap entry to each pair
        whose place got better: it is new, its value rose, or (rule first) its first occurrence
        moved up (`earlier`). A pair whose place got worse keeps its old entry (see _pop_best).
        Values: a pair's count; for likelihood the exact score count / (freq(x) freq(y)) as a
        reduced (numerator, denominator): equal scores, equal tuples."""
        if _fast is not None and self.fast:   # the same, with _entry's tuples built in C
            _fast.revalue(pairs, earlier, queue, self.pair_value, self.pair_count, self.value_hist,
                          self.symbol_freq, self.heap, self.likelihood, self.min_freq,
                          TIE_RULES.index(self.rule), self.first_key, self.vocab, _fast.Descending)
            return
        self._revalue_pairs(pairs, earlier, queue, self.pair_value, self.pair_count, self.value_hist,
                            self.symbol_freq, self.heap, self._entry, self.likelihood, self.min_freq)

    @staticmethod
    def _revalue_pairs(pairs, earlier, queue, pair_value, pair_count, hist, freq, heap, entry, likelihood,
                       min_freq) -> None:
        """_revalue's loop; core/fast/_merge.pyx's revalue is this compiled (with _entry inlined)."""
        for q in pairs:
            old = pair_value.pop(q, None)
            if old is not None:
                n = hist[old] - 1
                if n:
                    hist[old] = n
                else:
                    del hist[old]
            c = pair_count.get(q, 0)
            if c < min_freq:
                continue
            if likelihood:
                d = freq[q[0]] * freq[q[1]]
                g = gcd(c, d)
                v = (c // g, d // g)
                better = old is None or v[0] * old[1] > old[0] * v[1]
            else:
                v = c
                better = old is None or c > old
            pair_value[q] = v
            hist[v] = hist.get(v, 0) + 1
            if queue and (better or q in earlier):
                heapq.heappush(heap, entry(q))

    def _tie_key(self, p) -> tuple:
        if self.rule == "first":
            return self.first_key[p]
        if self.rule == "hf":
            return p
        return (self.vocab[p[0]], self.vocab[p[1]])

    def _entry(self, p) -> tuple:
        """(-value, exact tiebreak of the value, tie key 1, tie key 2, left, right).

        Counts are their own exact key. A likelihood score n/d sorts by -n/d as a float first
        (rounding is monotonic, so floats never misorder two scores, they can only make two
        different ones look equal) and then exactly, by cross-multiplication, only on a float tie:
        Fraction in every comparison cost ten times more."""
        k1, k2 = self._tie_key(p)
        v = self.pair_value[p]
        if self.likelihood:
            return (-v[0] / v[1], _Descending(v), k1, k2, p[0], p[1])
        return (-v, 0, k1, k2, p[0], p[1])

    def _valid(self, e) -> bool:
        """Whether a heap entry holds its pair's current value and tie key (hf's and lexical's
        keys never change for a pair; first's moves with the first occurrence)."""
        p = (e[4], e[5])
        v = self.pair_value.get(p)
        if v is None or (e[1].value != v if self.likelihood else -e[0] != v):
            return False
        return self.rule != "first" or self.first_key[p] == (e[2], e[3])

    def _pop_best(self, k: int) -> list[tuple[int, int]]:
        """The k best pairs in tie-rule order (winner first).

        The queue is lazy, as HF's: a pair gets a new heap entry only when its place gets better
        (merge(): new pair, value up, first occurrence earlier); when it gets worse its old entry
        stays, ranked too high, and is replaced by a true one when it comes to the top. So every
        live pair has an entry ranked at least as high as it truly is, and popping until the
        top entry ranks below the k-th valid one found gives the k best.
        The k best stay out of the heap between calls, in the sorted list self.top: a merge
        changes few pairs, so the next step re-checks those k and pops only what now beats them."""
        valid, entry, pair_value, heap = self._valid, self._entry, self.pair_value, self.heap
        top = []
        for e in self.top:
            if valid(e):
                top.append(e)
            elif (e[4], e[5]) in pair_value:
                heapq.heappush(heap, entry((e[4], e[5])))
        held = {(e[4], e[5]) for e in top}
        while heap and (len(top) < k or heap[0] < top[-1]):
            e = heapq.heappop(heap)
            p = (e[4], e[5])
            if p in held:
                continue   # a second entry of a pair already held
            if not valid(e):
                if p in pair_value:   # ranked too high: queue it where it truly is
                    heapq.heappush(heap, entry(p))
                continue
            insort(top, e)
            held.add(p)
            if len(top) > k:
                out = top.pop()
                held.discard((out[4], out[5]))
                heapq.heappush(heap, out)
        self.top = top
        return [(e[4], e[5]) for e in top]

    # -- one merge

    def _first_occurrence(self, p) -> tuple[int, int]:
        """(word index, unit offset) of the pair's first occurrence now; prunes the word list."""
        lst = self.pair_words[p]
        x, y = p
        units = self.units
        for i, wi in enumerate(lst):
            syms = self.words[wi]
            j = -1
            while True:
                try:
                    j = syms.index(x, j + 1)
                except ValueError:
                    break
                if j + 1 < len(syms) and syms[j + 1] == y:
                    if i:
                        del lst[:i]  # words before it no longer contain the pair
                    return (wi, sum(map(units.__getitem__, syms[:j])))
        raise AssertionError(f"pair {p} has a count but no word")  # pragma: no cover

    def merge(self, cand_pairs: list[tuple[int, int]], step_index: int) -> MergeStep:
        """Merge the best pair (cand_pairs[0]; the rest are the recorded runners-up)."""
        p = cand_pairs[0]
        a, b = p
        vocab = self.vocab
        count = self.pair_count[p]
        value = self.pair_value[p]
        tied = self.value_hist[value]
        first_word = self.word_counts.words[self.first_key[p][0]] if self.rule == "first" else \
            self.word_counts.words[self._first_occurrence(p)[0]]
        pair_count, pair_value = self.pair_count, self.pair_value
        if self.model == "wordpiece":
            candidates = tuple(Candidate((vocab[x], vocab[y]), pair_count[(x, y)],
                                         self._score_value(pair_count[(x, y)], pair_value[(x, y)]))
                               for x, y in cand_pairs)
        else:
            candidates = tuple(Candidate((vocab[x], vocab[y]), pair_count[(x, y)], None) for x, y in cand_pairs)

        token = join_symbols(vocab[a], vocab[b], self.model)
        new_id = self.token_id.get(token)
        if new_id is None:
            new_id = len(vocab)
            vocab.append(token)
            self.token_id[token] = new_id
            self.units.append(self.units[a] + self.units[b])
            self.symbol_freq.append(0)
        else:   # an existing token; if a special token spelled like the merge ("ab"), it was given one
            # unit, but as a merge it spans both sides' (the `first` rule's offsets count units)
            self.units[new_id] = self.units[a] + self.units[b]
        ab = new_id

        # The words the pair is in, rebuilt (the one loop whose cost grows with the corpus): the
        # compiled fast path when it is built (core/fast), the same steps in Python otherwise.
        if _fast is not None and self.fast:   # self.words is a _fast.Words, which holds the counts too
            changes, recompute, earlier, changed, changed_total, merged_tokens = _fast.merge_words(
                self.pair_words.pop(p), self.words, a, b, ab, self.pair_words, self.first_key,
                self.units, self.rule == "first", MAX_CHANGED_WORDS, ChangedWord)
        else:
            changes, recompute, earlier, changed, changed_total, merged_tokens = self._merge_words(
                self.pair_words.pop(p), self.words, self.counts, a, b, ab, self.pair_words, self.first_key,
                self.units, self.rule == "first", MAX_CHANGED_WORDS, ChangedWord)
        freq = self.symbol_freq
        pair_count, pair_words, first_key = self.pair_count, self.pair_words, self.first_key
        freq[a] -= merged_tokens
        freq[b] -= merged_tokens
        freq[ab] += merged_tokens
        self.total_tokens -= merged_tokens

        changes.pop(p, None)  # the merged pair is gone from every word it was in
        recompute.discard(p)
        likelihood, symbol_pairs = self.likelihood, self.symbol_pairs
        if _fast is not None and self.fast:   # the steps below, pair by pair in one compiled pass
            _fast.settle_merge(changes, p, (a, b, ab), earlier, recompute, self._first_occurrence, pair_count,
                               pair_words, first_key, symbol_pairs, self.pair_value, self.value_hist,
                               self.symbol_freq, self.heap, likelihood, self.min_freq, TIE_RULES.index(self.rule),
                               vocab, _fast.Descending)
        else:
            self._apply_changes(changes, pair_count, pair_words, first_key, recompute, likelihood, symbol_pairs)
            pair_count.pop(p, None)
            first_key.pop(p, None)
            for q in recompute:
                first_key[q] = self._first_occurrence(q)
            # What may have a new value: the pairs whose counts moved (`recompute` and `earlier`
            # are among them), the merged pair, and for likelihood every pair of a symbol whose
            # frequency moved.
            dirty = set(changes)
            dirty.add(p)
            if likelihood:
                for s in (a, b, ab):
                    dirty.update(symbol_pairs.get(s, ()))
            self._revalue(dirty, earlier)
        pair_value = self.pair_value
        if len(self.heap) > 4 * len(pair_value) + 100_000:
            self.heap = [self._entry(q) for q in pair_value]
            heapq.heapify(self.heap)

        return MergeStep(index=step_index, pair=(vocab[a], vocab[b]), token=token, id=ab, count=count,
                         score=self._score_value(count, value), tied=tied, first_word=first_word,
                         candidates=candidates, changed_words=tuple(changed),
                         changed_words_total=changed_total, total_tokens=self.total_tokens,
                         vocab_size=len(vocab))

    @staticmethod
    def _merge_words(word_list, words, counts, a, b, ab, pair_words, first_key, units, track_first,
                     max_changed, changed_word):
        """Merge (a, b) into ab in every word of word_list (indices, may be stale) and return
        (changes: pair -> count delta, recompute: pairs whose first occurrence must be looked up
        again, earlier: pairs whose first occurrence moved up, the first `max_changed` changed
        words, how many changed, tokens merged away). Updates words and pair_words (and
        first_key) in place. core/fast/_merge.pyx is this function compiled, step for step."""
        changes: dict = {}
        recompute: set = set()
        earlier: set = set()   # pairs whose first occurrence moved up (rule first)
        changed: list[ChangedWord] = []
        changed_total = 0
        merged_tokens = 0
        for wi in word_list:
            old = words[wi]
            left = old.count(a)   # the `a`s not yet passed: the search stops without an exception
            if not left:
                continue  # stale index entry
            n = len(old)
            c = counts[wi]
            # Rebuild the word left to right, jumping from one `a` to the next with list.index
            # and copying the stretches between by slices (C speed: a word of a million symbols
            # costs milliseconds). At each merge, move the neighbours' pair counts (HF's
            # Word::merge): (prev, a) -> (prev, ab) and (b, next) -> (ab, next). `prev` is the
            # rebuilt word's last symbol, so `a b a b` nets (b, a) -1, (ab, ab) +1.
            new: list[int] = []
            created = []   # pairs with ab, left to right
            created_at = []   # rule first: where each one's left symbol is in `new`
            lost = []      # pairs this word has fewer of
            i = occ = 0
            merged_until = -1   # where the last merge ended in `old`
            while left:
                j = old.index(a, i)
                left -= 1
                if j + 1 >= n or old[j + 1] != b:
                    new += old[i:j + 1]
                    i = j + 1
                    continue
                if b == a:
                    left -= 1   # the `b` is an `a` too, and is merged away
                if j > i:
                    new += old[i:j]
                elif j == merged_until and j + 1 < n:
                    created.pop()  # `a b a b`: the (ab, a) the last merge made is merged away
                    if track_first:
                        created_at.pop()
                if new:
                    prev = new[-1]
                    q = (prev, a)
                    changes[q] = changes.get(q, 0) - c
                    lost.append(q)
                    q = (prev, ab)
                    changes[q] = changes.get(q, 0) + c
                    created.append(q)
                    if track_first:
                        created_at.append(len(new) - 1)
                if j + 2 < n:
                    nxt = old[j + 2]
                    q = (b, nxt)
                    changes[q] = changes.get(q, 0) - c
                    lost.append(q)
                    q = (ab, nxt)
                    changes[q] = changes.get(q, 0) + c
                    created.append(q)
                    if track_first:
                        created_at.append(len(new))
                new.append(ab)
                i = merged_until = j + 2
                occ += 1
            if not occ:
                continue  # stale index entry
            new += old[i:]
            words[wi] = new
            changed_total += 1
            merged_tokens += occ * c
            if len(changed) < max_changed:
                changed.append(changed_word(tuple(old), tuple(new), c))
            for q in created:
                lst = pair_words.get(q)
                if lst is None:
                    pair_words[q] = [wi]
                elif lst[-1] < wi:
                    lst.append(wi)
                elif lst[-1] != wi:  # a reused token id: keep the list sorted
                    k = bisect_left(lst, wi)
                    if k == len(lst) or lst[k] != wi:
                        lst.insert(k, wi)
            if track_first:
                for q, k in zip(created, created_at):
                    cur = first_key.get(q)
                    # words come in corpus order, so a pair first made by this merge is only
                    # placed once: the unit offset is summed only when it can matter
                    if cur is None or wi <= cur[0]:
                        cand = (wi, sum(map(units.__getitem__, new[:k])))
                        if cur is None or cand < cur:
                            first_key[q] = cand
                            earlier.add(q)
                # A pair whose first occurrence was in this word and lost one here may now
                # occur first later in it, or in another word: look again once all are merged.
                for q in lost:
                    if first_key.get(q, (-1,))[0] == wi:
                        recompute.add(q)
        return changes, recompute, earlier, changed, changed_total, merged_tokens

    @staticmethod
    def _apply_changes(changes, pair_count, pair_words, first_key, recompute, likelihood, symbol_pairs) -> None:
        """Add a merge's count deltas to pair_count; a pair whose count reaches 0 leaves every
        index. core/fast/_merge.pyx's settle_merge does this, pair by pair, with what follows it."""
        for q, d in changes.items():
            n = pair_count.get(q, 0) + d
            if n > 0:
                if likelihood and q not in pair_count:
                    symbol_pairs.setdefault(q[0], set()).add(q)
                    symbol_pairs.setdefault(q[1], set()).add(q)
                pair_count[q] = n
            else:
                pair_count.pop(q, None)
                pair_words.pop(q, None)
                first_key.pop(q, None)
                if likelihood:
                    symbol_pairs.get(q[0], set()).discard(q)
                    symbol_pairs.get(q[1], set()).discard(q)
                recompute.discard(q)

    def _score_value(self, count, value):
        if self.model != "wordpiece":
            return None
        return Fraction(*value) if self.likelihood else Fraction(count)

    def final_tokens(self) -> tuple[tuple[str, int], ...]:
        # The tokens of the final words in first-appearance order (dict.fromkeys, in C), each with
        # its frequency: symbol_freq, which every merge has kept up to date (a - n, b - n, ab + n).
        freq, vocab = self.symbol_freq, self.vocab
        return tuple((vocab[s], freq[s]) for s in dict.fromkeys(chain.from_iterable(self.words)))


def train(words: WordCounts, config: TrainConfig,
          progress: Optional[Callable[[int, int], None]] = None, *, fast: bool = True) -> Trace:
    """Train one tokenizer on counted words, recording every merge.

    progress(done, planned) is called every few hundred merges (planned = merges the vocabulary
    size allows; training may stop earlier). fast=False runs the pure-Python loops even when the
    compiled ones are built (the tests compare the two).
    """
    config = config.resolved()
    if not len(words):
        raise CorpusError("the corpus has no words to train on")
    words, notes = cut_long_words(words)
    with _cyclic_gc_off():
        return _train(words, config, progress, notes, fast)


# The cyclic garbage collector is switched off while trainings run: the trainer makes millions of
# small tuples and lists, none in a reference cycle (reference counting frees them), and the
# collector's full passes over that heap took 20-50% of a training (bench/README.md). The switch
# is process-wide, so it is counted under a lock: concurrent trainings in the app's threads turn it
# back on when the last one ends, and only if it was on. With _exit_keeps below, the module's
# only mutable state.
_gc_lock = threading.Lock()
_gc_state = {"depth": 0, "was_on": False}


# A process that ends right after one training (the command line: core/__main__.py ends with
# os._exit) may ask for the trainer's state (pair tables, heap, word lists: about 1.5 million small
# objects on 8 MB) to be left to the operating system, which takes the memory back at once, rather
# than freed one object at a time when training returns (a tenth of the training's time on 8.6 MB
# `mixed`: docs/architecture.md). Never asked for in the app, which trains many times in one process.
_exit_keeps: Optional[list] = None


def keep_until_exit(*objects) -> None:
    """Hold objects until the process ends, if it asked for that (keep_state_until_exit); else nothing."""
    if _exit_keeps is not None:
        _exit_keeps.extend(objects)


def keep_state_until_exit() -> None:
    """Called by a process that trains once and then ends with os._exit (core/__main__.py): from
    now on each training's state is held to the end instead of freed (see _exit_keeps)."""
    global _exit_keeps
    if _exit_keeps is None:
        _exit_keeps = []


@contextmanager
def _cyclic_gc_off():
    with _gc_lock:
        if _gc_state["depth"] == 0:
            _gc_state["was_on"] = gc.isenabled()
            gc.disable()
        _gc_state["depth"] += 1
    try:
        yield
    finally:
        with _gc_lock:
            _gc_state["depth"] -= 1
            if _gc_state["depth"] == 0 and _gc_state["was_on"]:
                gc.enable()


def _train(words: WordCounts, config: TrainConfig, progress, notes, fast: bool = True) -> Trace:
    trainer = _Trainer(words, config, fast)
    base = len(trainer.vocab)
    if config.vocab_size < base:
        raise ConfigError(f"vocabulary size {config.vocab_size} is below the alphabet: this corpus needs "
                          f"at least {base} ({_plural(len(trainer.specials), 'special token')} + "
                          f"{_plural(len(trainer.alphabet), 'initial symbol')})")
    planned = config.vocab_size - base
    if config.max_merges is not None:
        planned = min(planned, config.max_merges)
    steps: list[MergeStep] = []
    stop = "vocabulary size reached"
    while True:
        if len(trainer.vocab) >= config.vocab_size:
            break
        if config.max_merges is not None and len(steps) >= config.max_merges:
            stop = "maximum number of merges reached"
            break
        best = trainer._pop_best(config.top_k)
        if not best:
            stop = ("no pair occurs at least %d times" % config.min_frequency if config.min_frequency > 1
                    else "no pair left to merge")
            break
        steps.append(trainer.merge(best, len(steps) + 1))
        if progress and len(steps) % 200 == 0:
            progress(len(steps), planned)
    if progress:
        progress(len(steps), max(len(steps), 1) if planned <= 0 else planned)
    keep_until_exit(trainer)   # the command line leaves it to the OS (_exit_keeps)
    return Trace(config=config, special_tokens=tuple(trainer.specials), alphabet=tuple(trainer.alphabet),
                 vocab=tuple(trainer.vocab), steps=tuple(steps),
                 initial_total_tokens=trainer.initial_total_tokens,
                 words=words, final_tokens=trainer.final_tokens(), stop_reason=stop, notes=notes)


def cut_long_words(words: WordCounts, limit: int = MAX_TRAINING_WORD_CHARS) -> tuple[WordCounts, tuple[str, ...]]:
    """Words longer than `limit` characters cut into pieces of `limit` (see MAX_TRAINING_WORD_CHARS)."""
    if all(len(w) <= limit for w in words.words):
        return words, ()
    pairs, cut = [], 0
    for w, c in zip(words.words, words.counts):
        if len(w) <= limit:
            pairs.append((w, c))
        else:
            cut += 1
            pairs.extend((w[i:i + limit], c) for i in range(0, len(w), limit))
    longest = max(len(w) for w in words.words)
    note = (f"{_plural(cut, 'word')} longer than {limit:,} characters (the longest: {longest:,}) "
            f"{'was' if cut == 1 else 'were'} cut into pieces of {limit:,} for training; a pre-tokenizer that splits them "
            "(e.g. chars or gpt2) avoids this")
    return WordCounts.from_pairs(pairs), (note,)



def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
