"""Unigram, the fourth algorithm: settings, trace, the fast trainer and the tokenizer.
(Over 400 lines: the Unigram settings, trace, fast trainer and tokenizer, which share the lattice
code; the readable version, one function per idea, is core/unigram_reference.py.)

`train_unigram(words, UnigramConfig(...)) -> UnigramTrace` learns a vocabulary of pieces with
scores (log-probabilities) as Hugging Face `tokenizers`' UnigramTrainer does: seed pieces from
frequent substrings, EM over each word's lattice, pruning by loss, until the size. The readable
version of the same loop is core/unigram_reference.py; tests hold the two equal, trace for trace.
`UnigramTokenizer` encodes with Viterbi over the final pieces (core/tokenizer.py's contract).

The arithmetic follows HF (tokenizers/src/models/unigram/trainer.rs, lattice.rs, model.rs)
operation for operation; docs/unigram.md says where the results differ and why.
"""
from __future__ import annotations

import contextlib
import json
import math
from dataclasses import asdict, dataclass
from functools import cached_property
from typing import Optional

from .errors import ConfigError
from .limits import MAX_SUB_ITERATIONS, MAX_TRACE_NUMBER, MAX_TRAINING_WORD_CHARS
from .pipeline import NORMALIZERS, PRE_TOKENIZERS, check_names

METASPACE = "\u2581"          # ▁, written before every word (HF Metaspace, prepend_scheme="always")
TRAINING_UNK = "<UNK>"        # HF trains with this piece at id 0, whatever the final unknown token
UNK_PENALTY = 10.0            # an unknown character scores the lowest piece's score minus this
EXPECTED_FREQUENCY_THRESHOLD = 0.5   # the M step drops pieces expected fewer times than this
MIN_SCORE_PENALTY_DELTA = 0.0001     # finalize: each missing required character a little lower
MAX_VOCAB_SIZE = 1_000_000
# The E step sums each block of this many words on its own, then adds the blocks in order (as HF
# sums each thread's share, then the shares), so the floats do not depend on how many processes
# share the work (core/unigram.py runs blocks in parallel when asked; the reference in a loop).
WORD_BLOCK = 1024
# With the compiled loops (core/fast/_unigram.pyx) an E step over 1 MB of text (26,029 words,
# 0.4 million lattice nodes) takes about 20 ms (35-45 ns a node): forked workers cost more than
# they save there and at 8.6 MB (measured: slower with two workers than with one). The compiled
# trainer forks them only when the words' lattices have at least this many nodes (an estimate,
# about 4x an 8.6 MB `mixed` corpus's 2.3 million).
FORK_MIN_NODES = 10_000_000
# HF loops for ever when no piece can be pruned (every one is a character or has no second-best
# segmentation) while there are still more than 1.1 × vocab_size; we stop there and say so.
STUCK_NOTE = ("pruning stopped: every piece left is one the trainer keeps (a character, or a piece "
              "with no other segmentation); the vocabulary was cut from them")


@dataclass(frozen=True)
class UnigramConfig:
    """How to learn a Unigram vocabulary; HF UnigramTrainer's settings and defaults."""
    vocab_size: int = 8000
    shrinking_factor: float = 0.75
    seed_size: int = 1_000_000
    max_piece_length: int = 16
    n_sub_iterations: int = 2
    unk_token: Optional[str] = None
    special_tokens: tuple[str, ...] = ()
    pre_tokenizer: str = "whitespace"
    normalizer: str = "none"
    metaspace: bool = True       # words are fed as "▁word", as HF's Metaspace pre-tokenizer writes them

    def resolved(self) -> "UnigramConfig":
        """Validated; raises ConfigError with a one-line reason."""
        for name, value, low in (("vocabulary size", self.vocab_size, 1), ("seed size", self.seed_size, 1),
                                 ("maximum piece length", self.max_piece_length, 1),
                                 ("number of sub-iterations", self.n_sub_iterations, 1)):
            if not isinstance(value, int) or isinstance(value, bool) or value < low:
                raise ConfigError(f"{name} must be a whole number of at least {low} (got {value!r})")
        # a piece is never longer than a training word (core.trainer.cut_long_words)
        for name, value, high in (("vocabulary size", self.vocab_size, MAX_VOCAB_SIZE),
                                  ("maximum piece length", self.max_piece_length, MAX_TRAINING_WORD_CHARS),
                                  ("number of sub-iterations", self.n_sub_iterations, MAX_SUB_ITERATIONS)):
            if value > high:
                raise ConfigError(f"{name} {value:,} is too large: at most {high:,}")
        f = self.shrinking_factor
        if isinstance(f, bool) or not isinstance(f, (int, float)) or not 0 < f < 1:
            raise ConfigError(f"shrinking factor must be a number between 0 and 1, both excluded (got {f!r})")
        if self.pre_tokenizer not in PRE_TOKENIZERS:
            raise ConfigError(f"unknown pre-tokenizer {self.pre_tokenizer!r}: choose one of {', '.join(PRE_TOKENIZERS)}")
        if self.pre_tokenizer == "gpt2":
            raise ConfigError("Unigram works on characters, not GPT-2's byte-level pieces: choose another "
                              "pre-tokenizer (whitespace, bert, jieba or chars)")
        if self.normalizer not in NORMALIZERS:
            raise ConfigError(f"unknown normalizer {self.normalizer!r}: choose one of {', '.join(NORMALIZERS)}")
        specials = tuple(self.special_tokens)
        if any(not s for s in specials):
            raise ConfigError("a special token cannot be empty")
        if len(set(specials)) != len(specials):
            raise ConfigError("a special token is given twice")
        if self.unk_token is not None and self.unk_token == "":
            raise ConfigError("the unknown token cannot be empty")
        return UnigramConfig(**{**asdict(self), "special_tokens": specials, "shrinking_factor": float(f)})

    @property
    def desired_size(self) -> int:
        """EM and pruning stop once the pieces (with the training <UNK>) are at most this many."""
        return self.vocab_size * 11 // 10

    @property
    def reserved(self) -> int:
        """Ids the special tokens and the unknown token take in the final vocabulary."""
        extra = 1 if self.unk_token is not None and self.unk_token not in self.special_tokens else 0
        return len(self.special_tokens) + extra


@dataclass(frozen=True)
class EMStep:
    """One E step and M step. `loss` is the corpus's negative log-likelihood per word under the
    pieces the step started from (HF's objective); pieces and scores are what the M step gave
    (without the training <UNK>), in the trainer's order."""
    round: int                  # 1-based: EM steps and one pruning make a round
    sub_iteration: int          # 1-based within the round
    loss: float
    pieces: tuple[str, ...]
    scores: tuple[float, ...]


@dataclass(frozen=True)
class PruneStep:
    """One pruning: the pieces removed, each with its loss (the likelihood lost without it, when
    its second-best segmentation replaces it), None for pieces no Viterbi path used."""
    round: int
    size_before: int
    size_after: int
    target: int                 # max(1.1 × vocab_size, shrinking_factor × size_before)
    pruned: tuple[tuple[str, Optional[float]], ...]


@dataclass(frozen=True)
class UnigramTrace:
    config: UnigramConfig
    seeds: tuple[tuple[str, float], ...]          # the seed pieces and their log-probabilities
    em_steps: tuple[EMStep, ...]
    prunes: tuple[PruneStep, ...]
    vocab: tuple[tuple[str, float], ...]          # the final pieces in id order, with scores
    unk_id: Optional[int]
    required_chars: tuple[str, ...]               # every character of the corpus, first-appearance order
    notes: tuple[str, ...] = ()

    def to_json(self) -> dict:
        return {
            "kind": "unigram-trace", "version": 1,
            "config": {**asdict(self.config), "special_tokens": list(self.config.special_tokens)},
            "seeds": [[p, s] for p, s in self.seeds],
            "em_steps": [{"round": e.round, "sub_iteration": e.sub_iteration, "loss": e.loss,
                          "pieces": list(e.pieces), "scores": list(e.scores)}
                         for e in self.em_steps],
            "prunes": [{"round": p.round, "size_before": p.size_before, "size_after": p.size_after,
                        "target": p.target, "pruned": [[t, l] for t, l in p.pruned]} for p in self.prunes],
            "vocab": [[p, s] for p, s in self.vocab],
            "unk_id": self.unk_id,
            "required_chars": list(self.required_chars),
            "notes": list(self.notes),
        }

    @classmethod
    def from_json(cls, data) -> "UnigramTrace":
        """Inverse of to_json. A session file is anyone's to edit, and pages index the vocabulary
        with unk_id and encode with the pieces: anything a trainer cannot have written (a type, a
        range, settings it refuses, lists of different lengths) raises ConfigError, one line."""
        if not isinstance(data, dict) or data.get("kind") != "unigram-trace":
            raise ConfigError("not a Unigram trace")
        if type(data.get("version")) is not int or data["version"] != 1:
            raise ConfigError(f"Unigram trace: version {data.get('version')!r}, this app reads version 1")
        config = _config_from_json(_field(data, "config", "Unigram trace"))
        vocab = _scored(_field(data, "vocab", "Unigram trace"), "vocab")
        if not vocab:
            raise ConfigError("Unigram trace: the vocabulary is empty")
        unk_id = _field(data, "unk_id", "Unigram trace")
        if unk_id is not None and (type(unk_id) is not int or not 0 <= unk_id < len(vocab)):
            raise ConfigError(f"Unigram trace: unk_id {repr(unk_id)[:40]} is not an id of the vocabulary")
        if (unk_id is None) != (config.unk_token is None) or (unk_id is not None
                                                              and vocab[unk_id][0] != config.unk_token):
            raise ConfigError("Unigram trace: unk_id is not the id of the unknown token of its settings")
        em_steps = []
        for k, e in enumerate(_rows(_field(data, "em_steps", "Unigram trace"), "em_steps", dict)):
            where = f"em_steps[{k}]"
            pieces = _pieces(_field(e, "pieces", where), where + ".pieces")
            scores = tuple(_score(x, where + ".scores")
                           for x in _rows(_field(e, "scores", where), where + ".scores", None))
            if len(pieces) != len(scores):
                raise ConfigError(f"Unigram trace: {where}: {len(pieces)} pieces but {len(scores)} scores")
            em_steps.append(EMStep(_whole(_field(e, "round", where), where + ".round", 1),
                                   _whole(_field(e, "sub_iteration", where), where + ".sub_iteration", 1),
                                   _score(_field(e, "loss", where), where + ".loss"), pieces, scores))
        prunes = []
        for k, p in enumerate(_rows(_field(data, "prunes", "Unigram trace"), "prunes", dict)):
            where = f"prunes[{k}]"
            pruned = tuple((piece, None if loss is None else _score(loss, where + ".pruned"))
                           for piece, loss in _pairs(_field(p, "pruned", where), where + ".pruned"))
            before, after = (_whole(_field(p, name, where), f"{where}.{name}", 0)
                             for name in ("size_before", "size_after"))
            if before - len(pruned) != after:
                raise ConfigError(f"Unigram trace: {where}: {before} pieces less {len(pruned)} pruned is not {after}")
            prunes.append(PruneStep(_whole(_field(p, "round", where), where + ".round", 1), before, after,
                                    _whole(_field(p, "target", where), where + ".target", 0), pruned))
        return cls(
            config=config,
            seeds=_scored(_field(data, "seeds", "Unigram trace"), "seeds"),
            em_steps=tuple(em_steps),
            prunes=tuple(prunes),
            vocab=vocab,
            unk_id=unk_id,
            required_chars=_pieces(_field(data, "required_chars", "Unigram trace"), "required_chars"),
            notes=_texts(data.get("notes", []), "notes"),
        )

    def dumps(self) -> str:
        return json.dumps(self.to_json(), ensure_ascii=False)

    @property
    def pieces(self) -> tuple[str, ...]:
        return tuple(p for p, _ in self.vocab)


# ---------------------------------------------------------------- reading a trace (UnigramTrace.from_json)

def _field(d: dict, key: str, where: str):
    if key not in d:
        raise ConfigError(f"Unigram trace: {where}: missing field {key!r}")
    return d[key]


def _rows(value, where: str, kind: Optional[type] = list) -> list:
    """A list whose items are all of `kind` (None: of any kind, checked by the caller)."""
    if type(value) is not list or (kind is not None and not all(type(x) is kind for x in value)):
        items = {dict: " of objects", list: " of lists"}.get(kind, "")
        raise ConfigError(f"Unigram trace: {where}: expected a list{items}")
    return value


def _texts(value, where: str) -> tuple[str, ...]:
    if type(value) is not list or not all(type(x) is str for x in value):
        raise ConfigError(f"Unigram trace: {where}: expected a list of texts")
    return tuple(value)


def _pieces(value, where: str) -> tuple[str, ...]:
    """Texts, none empty (a piece of no characters covers nothing)."""
    texts = _texts(value, where)
    if not all(texts):
        raise ConfigError(f"Unigram trace: {where}: a piece is empty")
    return texts


def _score(value, where: str) -> float:
    """A finite number (a log-probability or a loss), as a float; JSON may write 0.0 as 0."""
    if type(value) not in (int, float):
        raise ConfigError(f"Unigram trace: {where}: expected a number, found {type(value).__name__}")
    try:
        number = float(value)
    except OverflowError:   # an int of hundreds of digits
        number = math.inf
    if not math.isfinite(number):
        raise ConfigError(f"Unigram trace: {where}: expected a finite number")
    return number


def _whole(value, where: str, low: int) -> int:
    if type(value) is not int or not low <= value <= MAX_TRACE_NUMBER:
        raise ConfigError(f"Unigram trace: {where}: expected a whole number from {low} to 10^18")
    return value


def _pairs(value, where: str) -> list:
    """[piece, anything] rows (the second checked by the caller)."""
    rows = _rows(value, where)
    if not all(len(r) == 2 and type(r[0]) is str and r[0] for r in rows):
        raise ConfigError(f"Unigram trace: {where}: expected [piece, score] rows with a piece of text")
    return rows


def _scored(value, where: str) -> tuple[tuple[str, float], ...]:
    return tuple((piece, _score(score, where)) for piece, score in _pairs(value, where))


_CONFIG_FIELDS = tuple(UnigramConfig.__dataclass_fields__)


def _config_from_json(value) -> UnigramConfig:
    """The settings the trace was trained with, as the trainer accepts them (resolved)."""
    if type(value) is not dict:
        raise ConfigError("Unigram trace: config: expected an object")
    unknown = sorted(set(value) - set(_CONFIG_FIELDS))
    if unknown:
        raise ConfigError(f"Unigram trace: config: unknown setting {unknown[0][:40]!r}")
    specials = _texts(value.get("special_tokens", []), "config.special_tokens")
    for name in ("pre_tokenizer", "normalizer"):
        if name in value and type(value[name]) is not str:
            raise ConfigError(f"Unigram trace: config.{name}: expected text")
    if value.get("unk_token") is not None and type(value["unk_token"]) is not str:
        raise ConfigError("Unigram trace: config.unk_token: expected text or null")
    if type(value.get("metaspace", True)) is not bool:
        raise ConfigError("Unigram trace: config.metaspace: expected true/false")
    try:
        return UnigramConfig(**{**value, "special_tokens": specials}).resolved()
    except ConfigError as e:
        raise ConfigError(f"Unigram trace: config: {e}") from None


# ---------------------------------------------------------------- arithmetic, as HF writes it

def digamma(x: float) -> float:
    """ψ(x) by recurrence up to 7 and the asymptotic series (HF's `digamma`, term for term)."""
    result = 0.0
    while x < 7.0:
        result -= 1.0 / x
        x += 1.0
    x -= 1.0 / 2.0
    xx = 1.0 / x
    xx2 = xx * xx
    xx4 = xx2 * xx2
    result += (math.log(x) + (1.0 / 24.0) * xx2 - 7.0 / 960.0 * xx4 + (31.0 / 8064.0) * xx4 * xx2
               - (127.0 / 30720.0) * xx4 * xx4)
    return result


def log_sum_exp(x: float, y: float, init_mode: bool) -> float:
    """log(e^x + e^y), or y alone when starting a sum; terms 50 nats below the other are dropped."""
    if init_mode:
        return y
    vmin, vmax = (y, x) if x > y else (x, y)
    if vmax > vmin + 50.0:
        return vmax
    return vmax + math.log(math.exp(vmin - vmax) + 1.0)


def fsum_left(values) -> float:
    """Σ values added left to right, as Rust's `iter().sum()` (Python 3.12's sum() compensates)."""
    total = 0.0
    for v in values:
        total += v
    return total


def check_sizes(config: UnigramConfig, required: int, available: int) -> None:
    """One clear message when the vocabulary size cannot be had from this corpus."""
    low = required + config.reserved
    high = available + config.reserved
    extra = f" + {config.reserved} special" if config.reserved else ""
    if config.vocab_size < low:
        raise ConfigError(f"vocabulary size {config.vocab_size} is below what this corpus needs: at least {low} "
                          f"({required} characters{extra}); at most {high} can be had")
    if config.vocab_size > high:
        raise ConfigError(f"vocabulary size {config.vocab_size} is more than this corpus can give: at most {high} "
                          f"({available} seed pieces{extra}); at least {low}")


def size_limits(words, config: UnigramConfig) -> tuple[int, int]:
    """(smallest, largest) vocabulary size this corpus accepts with these settings: every
    character (and the special tokens) at least, every seed piece at most (check_sizes's bounds,
    without training). Raises CorpusError when the corpus has no words."""
    from .errors import CorpusError
    from .trainer import cut_long_words
    config = config.resolved()
    words, _ = cut_long_words(words)
    sentences = unigram_words(words, config)
    if not sentences:
        raise CorpusError("the corpus has no words to train on")
    required = len(_required_characters(sentences))
    available = len(_seed_pieces(sentences, config))
    return required + config.reserved, available + config.reserved


# ---------------------------------------------------------------- the fast trainer
#
# The same loop as core/unigram_reference.py, with the same floating-point operations in the same
# order (so the traces are equal), made fast by:
#   - a prefix table instead of a trie: every prefix of every piece maps to the piece's id, or -1
#     when it is only a prefix, so a walk from a character stops as soon as no piece can continue;
#   - each word's matches against the seed pieces found once; later steps only drop the pieces
#     that are gone (pieces are never added after the seeds);
#   - per position instead of per node: every node beginning at a position has the same forward
#     value, every node ending at one the same backward value, so the lattice is two arrays;
#   - Viterbi keeps one best value per position and finds each step of the best path back only
#     for the nodes on it (the reference's tie rule, exactly: see _best_path).
# Pieces are named by their seed id (sid) throughout; sid 0 is the training <UNK>.

_log, _exp = math.log, math.exp

try:   # the E step's and the pruning's corpus-wide loops compiled, built by `make fast` (core/fast/build.py)
    from .fast import _unigram as _fast
except ImportError:   # not built (no Cython or no C compiler): the same loops in Python below
    _fast = None

# Which path train_unigram runs (`python -m core info` says it). Both give the same trace, every
# float (tests/core/test_unigram_fast.py); the Python functions are the readable version.
FAST_PATH = _fast is not None
UNIGRAM_PATH = "compiled fast path (core/fast/_unigram)" if FAST_PATH else "pure-Python path"


def _prefix_table(pieces) -> dict[str, int]:
    """piece -> sid, and every proper prefix of a piece -> -1 (unless it is a piece itself)."""
    table: dict[str, int] = {}
    for sid, p in pieces:
        for k in range(1, len(p)):
            table.setdefault(p[:k], -1)
        table[p] = sid
    return table


def _matches(word: str, table: dict[str, int], cache: Optional[dict] = None,
             max_len: int = 0) -> list[tuple[tuple[int, int], ...]]:
    """For each start, the (length, sid) of every piece beginning there, shorter first. What a
    start matches depends only on the next max_len characters: with a cache, words share rows."""
    n = len(word)
    out = []
    get = table.get
    for b in range(n):
        if cache is not None:
            key = word[b:b + max_len]
            row = cache.get(key)
            if row is not None:
                out.append(row)
                continue
        found = []
        for e in range(b + 1, n + 1):
            sid = get(word[b:e])
            if sid is None:
                break
            if sid >= 0:
                found.append((e - b, sid))
        row = tuple(found)
        if cache is not None:
            cache[key] = row
        out.append(row)
    return out


def _alive_rows(rows, score, unk_score):
    """The word's lattice under the current pieces: per start, (end, sid, score) shorter first,
    then the unknown character when no one-character piece covers it."""
    out = []
    b1 = 1
    for row in rows:
        live = []
        single = False
        b = b1 - 1
        for length, sid in row:
            s = score[sid]
            if s is not None:
                live.append((b + length, sid, s))
                if length == 1:
                    single = True
        if not single:
            live.append((b1, 0, unk_score))
        out.append(live)
        b1 += 1
    return out


def _best_path(lat, n: int) -> list[tuple[int, int, int, float]]:
    """Viterbi with the reference's tie rule: a node's predecessor is the first node (in the order
    nodes ending there were put in, i.e. starting earliest) whose best score plus this node's
    score is highest. The best score at each position is computed once; the predecessor is looked
    for only along the path. Returns (begin, end, sid, score) left to right."""
    best = [0.0] * (n + 1)            # the best path score ending at each position (0: the start)
    ends: list[list] = [[] for _ in range(n + 1)]   # (node best score, begin, sid, score) per end
    ends[0].append((0.0, -1, -1, 0.0))
    for b in range(n):
        pb = best[b]
        for e, sid, s in lat[b]:
            v = pb + s
            bucket = ends[e]
            if not bucket or v > best[e]:
                best[e] = v
            bucket.append((v, b, sid, s))
    path = []
    pos, s_right = n, 0.0             # the end node: score 0
    while pos > 0:
        target = best[pos] + s_right
        for v, b, sid, s in ends[pos]:
            if v + s_right == target:
                break
        path.append((b, pos, sid, s))
        pos, s_right = b, s
    path.reverse()
    return path


def _word_expectations(rows, score, unk_score: float, count: int, expected: list,
                       _log=math.log, _exp=math.exp) -> float:
    """_alive_rows and forward-backward in one go: the forward pass builds the word's lattice as
    it goes (both run over starts left to right, nodes shorter first), then the backward pass and
    the expected counts (in the reference's order: starts left to right). Returns count × log Z.
    A position's forward value starts at -inf, which log_sum_exp turns into its first term exactly."""
    n = len(rows)
    ninf = -math.inf
    alpha = [ninf] * (n + 1)
    alpha[0] = 0.0
    lat = []
    b1 = 1
    for row in rows:
        ab = alpha[b1 - 1]
        live = []
        single = False
        b = b1 - 1
        for length, sid in row:
            s = score[sid]
            if s is None:
                continue
            e = b + length
            live.append((e, sid, s))
            if length == 1:
                single = True
            v = s + ab
            cur = alpha[e]
            if cur > v:
                alpha[e] = cur if cur > v + 50.0 else cur + _log(_exp(v - cur) + 1.0)
            else:
                alpha[e] = v if v > cur + 50.0 else v + _log(_exp(cur - v) + 1.0)
        if not single:
            live.append((b1, 0, unk_score))
            v = unk_score + ab
            cur = alpha[b1]
            if cur > v:
                alpha[b1] = cur if cur > v + 50.0 else cur + _log(_exp(v - cur) + 1.0)
            else:
                alpha[b1] = v if v > cur + 50.0 else v + _log(_exp(cur - v) + 1.0)
        lat.append(live)
        b1 += 1
    beta = [0.0] * (n + 1)
    for b in range(n - 1, -1, -1):
        acc = ninf
        for e, sid, s in lat[b]:
            v = s + beta[e]
            if acc > v:
                acc = acc if acc > v + 50.0 else acc + _log(_exp(v - acc) + 1.0)
            else:
                acc = v if v > acc + 50.0 else v + _log(_exp(acc - v) + 1.0)
        beta[b] = acc
    z = alpha[n]
    b = 0
    for live in lat:
        ab = alpha[b]
        for e, sid, s in live:
            expected[sid] += count * _exp(ab + s + beta[e] - z)
        b += 1
    return count * z


_WORKER_TRAINER = None      # the trainer a forked worker inherited (set just before the fork)


def _ignore_interrupts() -> None:
    """A pool worker's initializer: Ctrl+C is the parent's to handle, and the worker dies with it."""
    import signal
    from .corpus import die_with_parent
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent()


def _in_worker(name: str, parts, shared):
    return globals()[name](_WORKER_TRAINER, parts, *shared)


def _e_blocks(trainer, blocks, score, unk_score, total):
    """For each block of words: {sid: expected count} summed over its words in order, and
    Σ −count·log Z / total over them. core/fast/_unigram.pyx's e_blocks is this compiled."""
    if trainer.lattices is not None:
        return _fast.e_blocks(trainer.lattices, blocks, score, unk_score, float(total))
    rows, counts = trainer.rows, trainer.counts
    out = []
    for start, end in blocks:
        expected: dict[int, float] = _ZeroDict()
        loss = 0.0
        for w in range(start, end):
            z = _word_expectations(rows[w], score, unk_score, counts[w], expected)
            loss -= z / total
        out.append((dict(expected), loss))
    return out


class _ZeroDict(dict):
    """A dict whose missing keys read 0.0 (so `d[k] += x` starts from 0.0, as a list would)."""
    def __missing__(self, key):
        return 0.0


def _word_viterbi(rows, score, unk_score: float) -> list[int]:
    """_alive_rows and _best_path in one go for a corpus word: the sids of its best path."""
    n = len(rows)
    best = [0.0] * (n + 1)
    ends: list[list] = [[] for _ in range(n + 1)]
    ends[0].append((0.0, -1, -1, 0.0))
    for b in range(n):
        pb = best[b]
        single = False
        for length, sid in rows[b]:
            s = score[sid]
            if s is None:
                continue
            if length == 1:
                single = True
            e = b + length
            v = pb + s
            bucket = ends[e]
            if not bucket or v > best[e]:
                best[e] = v
            bucket.append((v, b, sid, s))
        if not single:
            e = b + 1
            v = pb + unk_score
            bucket = ends[e]
            if not bucket or v > best[e]:
                best[e] = v
            bucket.append((v, b, 0, unk_score))
    path = []
    pos, s_right = n, 0.0
    while pos > 0:
        target = best[pos] + s_right
        for v, b, sid, s in ends[pos]:
            if v + s_right == target:
                break
        path.append(sid)
        pos, s_right = b, s
    return path


def _viterbi_blocks(trainer, blocks, score, unk_score):
    """For each block of words: {sid: Σ count over the words whose best path uses it}.
    core/fast/_unigram.pyx's viterbi_blocks is this compiled."""
    if trainer.lattices is not None:
        return _fast.viterbi_blocks(trainer.lattices, blocks, score, unk_score)
    rows, counts = trainer.rows, trainer.counts
    out = []
    for start, end in blocks:
        freq: dict[int, float] = _ZeroDict()
        for w in range(start, end):
            count = counts[w]
            for sid in _word_viterbi(rows[w], score, unk_score):
                freq[sid] += count
        out.append(dict(freq))
    return out


def _second_best_part(trainer, parts, order, score, unk_score):
    """For each part (a list of sids): whether each piece is kept whatever happens, and the
    second-best segmentation of those that are their own best one. core/fast/_unigram.pyx's
    second_best_parts is this compiled."""
    if trainer.piece_lattices is not None:
        return _fast.second_best_parts(trainer.piece_lattices, parts, score, unk_score)
    texts = trainer.texts
    table = _prefix_table((sid, texts[sid]) for sid in order)
    out = []
    for part in parts:
        keep: dict[int, bool] = {}
        alts: dict[int, list[int]] = {}
        for sid in part:
            text = texts[sid]
            n = len(text)
            lat = _alive_rows(_matches(text, table), score, unk_score)
            best = _best_path(lat, n)
            if len(best) >= 2:
                keep[sid] = False
                continue
            keep[sid] = True
            # without the piece itself (the node from 0 to the end)
            lat[0] = [x for x in lat[0] if not (x[0] == n and x[1] == sid)]
            if lat[0]:
                alts[sid] = [x[2] for x in _best_path(lat, n)]
        out.append((keep, alts))
    return out


class _FastTrainer:
    def __init__(self, sentences: list[tuple[str, int]], config: UnigramConfig, fast: bool = True):
        self.config = config
        self.words = [w for w, _ in sentences]
        self.counts = [c for _, c in sentences]
        # compiled (when built): the substrings counted and the words matched in C
        substrings = _fast.Substrings(self.words, config.max_piece_length) if fast and _fast else None
        self.seeds = _seed_pieces(sentences, config, substrings=substrings)
        self.texts = [TRAINING_UNK] + [p for p, _ in self.seeds]          # sid -> text
        self.score: list = [math.nan] + [s for _, s in self.seeds]       # sid -> score, None when gone
        self.order = list(range(1, len(self.texts)))                     # current pieces, in order
        if substrings is not None:
            # the words' matches as flat C arrays, as _matches would find them (rows: not needed),
            # and each piece's own (the pruning's second-best segmentations)
            substrings.set_pieces(self.texts)
            self.lattices = substrings.lattices(self.counts)
            self.piece_lattices = substrings.lattices(None, self.texts[1:])
            self.rows = None
        else:
            self.lattices = self.piece_lattices = None
            table = _prefix_table((sid, self.texts[sid]) for sid in self.order)
            cache: dict = {}
            longest = max((len(t) for t in self.texts[1:]), default=1)
            self.rows = [_matches(w, table, cache, longest) for w in self.words]
        self.workers = 1
        self.pool = None

    def _map(self, fn, parts, shared):
        """fn(trainer, parts, *shared) for each part, results in the parts' order: in this
        process, or spread over the pool's processes (forked after the rows were built, so they
        hold the same trainer), a few tasks each."""
        if self.pool is None or len(parts) < 2:
            return fn(self, parts, *shared)
        k = max(1, -(-len(parts) // self.workers))
        chunks = [parts[i:i + k] for i in range(0, len(parts), k)]
        out = []
        for result in self.pool.starmap(_in_worker, [(fn.__name__, chunk, shared) for chunk in chunks]):
            out.extend(result)
        return out

    def _unk_score(self) -> float:
        score = self.score
        m = math.inf
        for sid in self.order:
            if score[sid] < m:
                m = score[sid]
        return m - UNK_PENALTY

    def em_step(self, round_no: int, sub: int) -> EMStep:
        score, counts = self.score, self.counts
        unk_score = self._unk_score()
        expected = [0.0] * len(self.texts)
        total = sum(counts)
        loss = 0.0
        blocks = [(start, min(start + WORD_BLOCK, len(self.words))) for start in range(0, len(self.words), WORD_BLOCK)]
        if self.lattices is not None and self.pool is None:   # compiled, in this process: the same sums in C
            expected, loss = _fast.e_step(self.lattices, blocks, score, unk_score, float(total))
        else:
            for block_expected, block_loss in self._map(_e_blocks, blocks, (score, unk_score, total)):
                for sid, x in block_expected.items():
                    expected[sid] += x
                loss += block_loss
        # M step
        kept, s_total = [], 0.0
        for sid in self.order:
            x = expected[sid]
            if x < EXPECTED_FREQUENCY_THRESHOLD:
                score[sid] = None
                continue
            kept.append(sid)
            s_total += x
        log_total = digamma(s_total)
        for sid in kept:
            score[sid] = digamma(expected[sid]) - log_total
        self.order = kept
        texts = self.texts
        return EMStep(round_no, sub, loss, tuple([texts[i] for i in kept]), tuple([score[i] for i in kept]))

    def prune(self, round_no: int) -> PruneStep:
        config, score, texts, order = self.config, self.score, self.texts, self.order
        unk_score = self._unk_score()
        always_keep: dict[int, bool] = {}
        alternatives: dict[int, list[int]] = {}
        step = max(1, -(-len(order) // max(self.workers, 1)))
        parts = [order[k:k + step] for k in range(0, len(order), step)]
        for keep, alts in self._map(_second_best_part, parts, (order, score, unk_score)):
            always_keep.update(keep)
            alternatives.update(alts)
        # Viterbi counts are sums of whole numbers: exact in any order
        freq = [0.0] * len(texts)
        blocks = [(start, min(start + WORD_BLOCK, len(self.words))) for start in range(0, len(self.words), WORD_BLOCK)]
        if self.lattices is not None and self.pool is None:   # compiled, in this process
            freq = _fast.viterbi_freq(self.lattices, blocks, score, unk_score)
        else:
            for block_freq in self._map(_viterbi_blocks, blocks, (score, unk_score)):
                for sid, x in block_freq.items():
                    freq[sid] += x
        word_total = float(sum(self.counts))
        total = 0.0
        for x in freq:
            total += x
        log_total = _log(total)
        n_pieces = len(order) + 1
        kept, candidates, pruned = [], [], {}
        for sid in order:
            f = freq[sid]
            if f == 0.0 and not always_keep[sid]:
                pruned[sid] = None
                continue
            alt = alternatives.get(sid)
            if not alt:
                kept.append(sid)
                continue
            if f == 0.0:
                pruned[sid] = None
                continue
            share = f / word_total
            logprob = _log(f) - log_total
            log_total_alt = _log(total + f * (n_pieces - 1))
            logprob_alt = 0.0
            for a in alt:
                logprob_alt += _log(freq[a] + f) - log_total_alt
            candidates.append((sid, share * (logprob - logprob_alt)))
        target = max(config.desired_size, int(n_pieces * config.shrinking_factor))
        candidates.sort(key=lambda c: -c[1])
        for sid, loss in candidates:
            if len(kept) + 1 == target:
                pruned[sid] = loss
                continue
            kept.append(sid)
        position = {sid: k for k, sid in enumerate(order)}
        for sid in pruned:
            score[sid] = None
        self.order = kept
        record = tuple((texts[sid], pruned[sid]) for sid in sorted(pruned, key=position.__getitem__))
        return PruneStep(round_no, n_pieces - 1, len(kept), target - 1, record)

    def finalize(self, required: list[str]):
        config, score, texts = self.config, self.score, self.texts
        current = {texts[sid]: score[sid] for sid in self.order}
        min_score = math.inf
        for sid in self.order:
            if score[sid] < min_score:
                min_score = score[sid]
        out, inserted, penalty = [], {TRAINING_UNK}, 0.0
        for ch in required:
            inserted.add(ch)
            if ch in current:
                out.append((ch, current[ch]))
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
        for sid in self.order:
            if len(out) >= size:       # HF tests `==` after adding, so it overshoots when the characters fill it
                break
            p = texts[sid]
            if p in inserted:
                continue
            inserted.add(p)
            out.append((p, score[sid]))
        out.sort(key=lambda x: -x[1])
        return specials + out, unk_id


def _seed_pieces(sentences, config: UnigramConfig, substrings=None) -> list[tuple[str, float]]:
    """core/unigram_reference.py's seed_pieces, with one dict per substring instead of a set.
    substrings: the words' substrings counted by core/fast/_unigram.pyx's Substrings (the
    same counts, in C); None: counted here."""
    char_counts: dict[str, int] = {}
    for word, count in sentences:
        for ch in word:
            char_counts[ch] = char_counts.get(ch, 0) + count
    char_counts.pop("\0", None)
    if substrings is not None:
        subs = substrings.maximal()
    else:
        subs = _substrings_counted(sentences, config.max_piece_length)
    seeds = [(ch, float(c)) for c, ch in sorted(((c, ch) for ch, c in char_counts.items()), reverse=True)]
    subs.sort(reverse=True)
    room = config.seed_size - len(seeds)
    seeds.extend((s, float(v)) for v, s in subs[:max(room, 1)])
    total = 0.0
    for _, v in seeds:
        total += v
    log_total = _log(total)
    return [(p, _log(v) - log_total) for p, v in seeds]


def _substrings_counted(sentences, max_len: int) -> list[tuple[int, str]]:
    """(occurrences × length, substring) for every substring of 2 to max_len characters (none
    with "\\0") that occurs at least twice and is not always followed by the same character
    ("\\0" at a word's end). core/fast/_unigram.pyx's Substrings counts the same in C."""
    occ: dict[str, int] = {}
    follower: dict[str, Optional[str]] = {}      # the one character that follows, None: several
    for word, _ in sentences:
        n = len(word)
        stop = n
        if "\0" in word:
            stop = -1
        for b in range(n - 1):
            top = min(n, b + max_len)
            for e in range(b + 2, top + 1):
                sub = word[b:e]
                if stop < 0 and "\0" in sub:
                    break
                nxt = word[e] if e < n else "\0"
                c = occ.get(sub)
                if c is None:
                    occ[sub] = 1
                    follower[sub] = nxt
                else:
                    occ[sub] = c + 1
                    if follower[sub] != nxt:
                        follower[sub] = None
    return [(c * len(s), s) for s, c in occ.items() if c >= 2 and follower[s] is None]


def unigram_words(words, config: UnigramConfig) -> list[tuple[str, int]]:
    """The words as the trainer sees them: "▁low" for "low" (HF Metaspace, prepend always)."""
    return [(metaspace_word(w, config.metaspace), c) for w, c in zip(words.words, words.counts) if w]


def metaspace_word(word: str, metaspace: bool = True) -> str:
    """"▁" + word, as HF Metaspace(prepend_scheme="always") writes a pre-token (not twice)."""
    return METASPACE + word if metaspace and not word.startswith(METASPACE) else word


def _required_characters(sentences) -> list[str]:
    seen: dict[str, None] = {}
    for word, _ in sentences:
        for ch in word:
            seen.setdefault(ch, None)
    return list(seen)


def train_unigram(words, config: UnigramConfig, progress=None, workers: int = 1, *,
                  fast: bool = True) -> UnigramTrace:
    """Train a Unigram vocabulary on counted words (core.corpus.WordCounts), recording every EM
    step and every pruning. progress(done, planned) is called after each EM step. workers > 1
    runs the E steps and prunings in that many forked processes where the process may fork (the
    command line; see core.corpus.process_context) and the corpus is big enough; the trace is the
    same whatever the number (WORD_BLOCK). fast=False runs the pure-Python loops even when the
    compiled ones are built (UNIGRAM_PATH); the trace is the same."""
    with _cyclic_gc_off_lazy():
        return _train_unigram(words, config, progress, workers, fast)


def _cyclic_gc_off_lazy():
    from .trainer import _cyclic_gc_off
    return _cyclic_gc_off()


def _train_unigram(words, config: UnigramConfig, progress, workers: int, fast: bool = True) -> UnigramTrace:
    from .errors import CorpusError
    from .trainer import cut_long_words
    config = config.resolved()
    words, cut_notes = cut_long_words(words)
    sentences = unigram_words(words, config)
    if not sentences:
        raise CorpusError("the corpus has no words to train on")
    with contextlib.ExitStack() as stack:
        trainer = _FastTrainer(sentences, config, fast)
        # compiled, the steps are short next to a pool's forks and transfers: one process unless the
        # lattices are big (FORK_MIN_NODES)
        big = trainer.lattices is None or trainer.lattices.n_nodes >= FORK_MIN_NODES
        if workers > 1 and len(sentences) >= 2 * WORD_BLOCK and big:
            from .corpus import process_context
            context = process_context(fork=True)
            if context.get_start_method() == "fork":
                global _WORKER_TRAINER
                _WORKER_TRAINER = trainer
                # Ctrl+C reaches every process of the terminal's group: the workers leave it to this
                # one, which ends the pool (a worker it interrupted printed its traceback, and the
                # pool's shutdown could then wait for ever)
                trainer.pool = stack.enter_context(context.Pool(workers, initializer=_ignore_interrupts))
                trainer.workers = workers
                stack.callback(globals().__setitem__, "_WORKER_TRAINER", None)
        required = _required_characters(sentences)
        check_sizes(config, len(required), len(trainer.seeds))
        em_steps, prunes = [], []
        stuck_note = None
        planned = max(1, int((math.log(config.desired_size) - math.log(len(trainer.seeds) + 1))
                             / math.log(config.shrinking_factor)) + 1) * config.n_sub_iterations
        round_no = 0
        while True:
            round_no += 1
            for sub in range(1, config.n_sub_iterations + 1):
                em_steps.append(trainer.em_step(round_no, sub))
                if progress:
                    progress(len(em_steps), max(planned, len(em_steps)))
            if len(trainer.order) + 1 <= config.desired_size:
                break
            prunes.append(trainer.prune(round_no))
            if not prunes[-1].pruned:
                stuck_note = STUCK_NOTE
                break
        vocab, unk_id = trainer.finalize(required)
    notes = tuple(cut_notes) + ((stuck_note,) if stuck_note else ())
    if len(vocab) < config.vocab_size:
        notes += (f"the vocabulary has {len(vocab)} pieces, fewer than the {config.vocab_size} asked for: "
                  "EM dropped pieces expected less than half a time",)
    return UnigramTrace(config, tuple(trainer.seeds), tuple(em_steps), tuple(prunes), tuple(vocab), unk_id,
                        tuple(required), notes)


# ---------------------------------------------------------------- the tokenizer

NORMALIZER_WORDS = {"none": "none: the text is used as typed", "lowercase": "lowercase", "nfkc": "NFKC",
                    "bert-uncased": "BERT uncased: clean, split CJK, strip accents, lowercase"}


@dataclass(frozen=True)
class UnigramTokenizer:
    """A Unigram vocabulary (pieces with scores, in id order) that encodes each word with the
    highest-scoring segmentation (Viterbi), as HF `tokenizers`' Unigram model does: ties go to
    the segmentation whose last piece is longest; a character no piece covers is the unknown
    token (consecutive ones fused into one), or an EncodeError when there is none."""
    pieces: tuple[tuple[str, float], ...]
    unk_id: Optional[int] = None
    special_tokens: tuple[str, ...] = ()
    pre_tokenizer: str = "whitespace"
    normalizer: str = "none"
    metaspace: bool = True
    name: str = "unigram"
    source: str = "trained here"

    @classmethod
    def from_trace(cls, trace: UnigramTrace, name: str = "unigram") -> "UnigramTokenizer":
        c = trace.config
        specials = tuple(c.special_tokens)
        if c.unk_token is not None and c.unk_token not in specials:
            specials = (c.unk_token,) + specials
        return cls(pieces=trace.vocab, unk_id=trace.unk_id, special_tokens=specials, pre_tokenizer=c.pre_tokenizer,
                   normalizer=c.normalizer, metaspace=c.metaspace, name=name)

    # -- the Tokenizer contract (core/tokenizer.py)

    family = "Unigram"
    byte_level = False
    encoders: tuple[str, ...] = ()
    post_processor = "none: a Unigram vocabulary trained here adds nothing around the text"

    @property
    def vocab_size(self) -> int:
        return len(self.pieces)

    n_tokens = vocab_size   # ids 0 to len(pieces) - 1, none unassigned

    @property
    def summary(self) -> str:
        return (f"{self.source} (unigram, pre-tokenizer {self.pre_tokenizer}, normalizer {self.normalizer}): "
                f"{len(self.pieces):,} pieces with scores, Viterbi segmentation")

    def with_encoder(self, encoder: Optional[str]) -> "UnigramTokenizer":
        if encoder is not None:
            from .errors import ConfigError as _ConfigError
            raise _ConfigError(f"a Unigram tokenizer has one encoder (Viterbi): {encoder!r} does not apply")
        return self

    def id_to_token(self, id: int) -> str:
        return self.pieces[self._check(id)][0]

    def token_to_id(self, token: str) -> Optional[int]:
        return self._ids.get(token)

    def score(self, id: int) -> float:
        return self.pieces[self._check(id)][1]

    def token_bytes(self, id: int) -> bytes:
        piece = self.pieces[self._check(id)][0]
        if piece in self._special_set:
            return b""
        return piece.replace(METASPACE, " ").encode("utf-8", "surrogatepass")

    def made_at(self, id: int) -> Optional[int]:
        self._check(id)
        return None

    def front(self, text: str):
        from .pipeline import normalize_aligned, pre_tokenize
        from .tokenizer import Chunk, Front
        norm, _ = normalize_aligned(text, self.normalizer)
        chunks = tuple(Chunk(metaspace_word(w, self.metaspace), w, s, e) for w, (s, e) in pre_tokenize(norm, self.pre_tokenizer))
        pre = self.pre_tokenizer + (", then ▁ before each word (Metaspace)" if self.metaspace else "")
        return Front(NORMALIZER_WORDS.get(self.normalizer, self.normalizer), norm, pre, chunks)

    def encode(self, text: str, *, add_special_tokens: bool = False, pair: Optional[str] = None,
               recognize_special_tokens: bool = False):
        """Viterbi per word. With `pair`, the second text follows (token type 1, offsets in its own
        coordinates, as HF gives them); nothing is added around either. recognize_special_tokens:
        a special token's spelling in the text is its one id; by default it is ordinary text."""
        from .encoding import Encoding
        if recognize_special_tokens and self.special_tokens and pair is None:
            ids, tokens, offsets = self._encode_recognizing(text)
            return Encoding(ids=ids, tokens=tokens, token_bytes=tuple(self.token_bytes(i) for i in ids),
                            offsets=offsets, encoder="viterbi").with_byte_offsets(text)
        if pair is not None:
            a, b = self._encode_one(text), self._encode_one(pair)
            return Encoding(ids=a[0] + b[0], tokens=a[1] + b[1],
                            token_bytes=tuple(self.token_bytes(i) for i in a[0] + b[0]), offsets=a[2] + b[2],
                            encoder="viterbi", attention_mask=(1,) * (len(a[0]) + len(b[0])),
                            token_type_ids=(0,) * len(a[0]) + (1,) * len(b[0])).with_byte_offsets(text, pair)
        ids, tokens, offsets = self._encode_one(text)
        extra = {}
        if add_special_tokens:
            extra = {"attention_mask": (1,) * len(ids), "token_type_ids": (0,) * len(ids)}
        return Encoding(ids=ids, tokens=tokens, token_bytes=tuple(self.token_bytes(i) for i in ids),
                        offsets=offsets, encoder="viterbi", **extra).with_byte_offsets(text)

    def _encode_recognizing(self, text: str):
        """Text cut at special-token spellings (longest first, as HF matches added tokens): each
        one its id, the text between them encoded as usual."""
        import re
        pattern = re.compile("|".join(re.escape(t) for t in sorted(self.special_tokens, key=len, reverse=True)))
        ids, tokens, offsets = [], [], []
        pos = 0
        for m in [*pattern.finditer(text), None]:
            end = m.start() if m is not None else len(text)
            if end > pos:
                i, t, o = self._encode_one(text[pos:end])
                ids += i
                tokens += t
                offsets += [(s + pos, e + pos) for s, e in o]
            if m is not None:
                ids.append(self.token_to_id(m.group()))
                tokens.append(m.group())
                offsets.append(m.span())
                pos = m.end()
        return tuple(ids), tuple(tokens), tuple(offsets)

    def _encode_one(self, text: str):
        from .pipeline import normalize_aligned, pre_tokenize
        norm, align = normalize_aligned(text, self.normalizer)
        ids, tokens, offsets = [], [], []
        pieces = self.pieces
        for word, (s, _e) in pre_tokenize(norm, self.pre_tokenizer):
            mword = metaspace_word(word, self.metaspace)
            shift = len(mword) - len(word)        # 1 when "▁" was written before the word
            for a, b, i in self.segment(mword):
                x, y = s + max(a - shift, 0), s + b - shift
                if y > x:
                    offsets.append((align[x][0], align[y - 1][1]))
                else:
                    pos = align[x][0] if x < len(align) else len(text)
                    offsets.append((pos, pos))
                ids.append(i)
                tokens.append(pieces[i][0])
        return tuple(ids), tuple(tokens), tuple(offsets)

    def segment(self, word: str) -> list[tuple[int, int, int]]:
        """(start, end, id) of each piece of the best segmentation of one (pre-tokenized) word."""
        cache = self._cache
        hit = cache.get(word)
        if hit is not None:
            return hit
        out = self._viterbi(word)
        if len(cache) < 100_000:
            cache[word] = out
        return out

    def _viterbi(self, word: str) -> list[tuple[int, int, int]]:
        """HF Unigram.encode_optimized: best[j] is the best score of a segmentation of word[:j];
        a piece ending at j replaces it only when strictly better, so among equal ones the piece
        starting earliest (the longest last piece) stays."""
        from .errors import EncodeError
        n = len(word)
        table, pieces, unk_id, unk_score = self._table, self.pieces, self.unk_id, self._unk_score
        best = [0.0] * (n + 1)
        start = [-1] * (n + 1)
        ident = [0] * (n + 1)
        get = table.get
        for i in range(n):
            base = best[i]
            single = False
            for j in range(i + 1, n + 1):
                pid = get(word[i:j])
                if pid is None:
                    break
                if pid < 0:
                    continue
                cand = pieces[pid][1] + base
                if start[j] < 0 or cand > best[j]:
                    best[j], start[j], ident[j] = cand, i, pid
                if j == i + 1:
                    single = True
            if not single:
                cand = unk_score + base
                if start[i + 1] < 0 or cand > best[i + 1]:
                    if unk_id is None:
                        raise EncodeError(f"{word[i]!r} is not in the vocabulary and this tokenizer has no "
                                          "unknown token: train with an unknown token (the Corpus page's "
                                          "Unknown token box; --unk-token on the command line)")
                    best[i + 1], start[i + 1], ident[i + 1] = cand, i, unk_id
        out = []
        j = n
        while j > 0:
            i = start[j]
            if ident[j] == unk_id and out and out[-1][2] == unk_id and out[-1][3]:
                out[-1] = (i, out[-1][1], unk_id, True)      # consecutive unknown characters: one token
            else:
                out.append((i, j, ident[j], ident[j] == unk_id))
            j = i
        out.reverse()
        result = []
        for a, b, i, is_unk in out:
            if is_unk:               # HF looks the fused text up: a piece spelled so wins
                i = self._ids.get(word[a:b], unk_id)
            result.append((a, b, i))
        return result

    def decode(self, ids) -> str:
        text = "".join(self.id_to_token(i) for i in ids).replace(METASPACE, " ")
        return text[1:] if self.metaspace and text.startswith(" ") else text

    # -- lookups

    def _check(self, i) -> int:
        from .errors import EncodeError
        if not isinstance(i, int) or isinstance(i, bool) or not 0 <= i < len(self.pieces):
            raise EncodeError(f"id {i!r} is out of range: this vocabulary has ids 0 to {len(self.pieces) - 1}")
        return i

    @cached_property
    def _ids(self) -> dict[str, int]:
        ids: dict[str, int] = {}
        for i, (p, _) in enumerate(self.pieces):
            ids[p] = i                # a repeated piece: the last id, as HF's map keeps it
        return ids

    @cached_property
    def _table(self) -> dict[str, int]:
        return _prefix_table((i, p) for p, i in self._ids.items())

    @cached_property
    def _special_set(self) -> frozenset:
        return frozenset(self.special_tokens)

    @cached_property
    def _unk_score(self) -> float:
        m = math.inf
        for _, s in self.pieces:
            if s < m:
                m = s
        return m - UNK_PENALTY

    @cached_property
    def _cache(self) -> dict:
        return {}

    # -- files

    def hf_tokenizer(self):
        """The same tokenizer as a `tokenizers.Tokenizer` (what tokenizer.json holds)."""
        from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers
        from .errors import ConfigError as _ConfigError
        if self.pre_tokenizer != "whitespace":
            raise _ConfigError(f"a Unigram tokenizer.json is written for the whitespace pre-tokenizer only "
                               f"(this one uses {self.pre_tokenizer})")
        hf = Tokenizer(models.Unigram([(p, s) for p, s in self.pieces], self.unk_id, False))
        hf.normalizer = {
            "none": None, "lowercase": normalizers.Lowercase(), "nfkc": normalizers.NFKC(),
            "bert-uncased": normalizers.BertNormalizer(clean_text=True, handle_chinese_chars=True,
                                                       strip_accents=True, lowercase=True),
        }[self.normalizer]
        steps = [pre_tokenizers.WhitespaceSplit()]
        if self.metaspace:
            steps.append(pre_tokenizers.Metaspace(replacement=METASPACE, prepend_scheme="always", split=False))
            hf.decoder = decoders.Metaspace(replacement=METASPACE, prepend_scheme="always", split=False)
        hf.pre_tokenizer = pre_tokenizers.Sequence(steps)
        hf.add_special_tokens(list(self.special_tokens))
        return hf

    def tokenizer_json(self) -> dict:
        """tokenizer.json: HF's own file, plus a `model.playground` section to load it back here."""
        data = json.loads(self.hf_tokenizer().to_str())
        data["model"]["playground"] = {
            "format": 1, "model": "unigram", "pre_tokenizer": self.pre_tokenizer, "normalizer": self.normalizer,
            "metaspace": self.metaspace, "special_tokens": list(self.special_tokens),
        }
        return data

    @classmethod
    def from_tokenizer_json(cls, data: dict, name: str = "unigram") -> "UnigramTokenizer":
        model, pg = data["model"], data["model"]["playground"]
        pieces = tuple((str(p), float(s)) for p, s in model["vocab"])
        unk_id = model.get("unk_id")
        if unk_id is not None and not (isinstance(unk_id, int) and 0 <= unk_id < len(pieces)):
            raise ConfigError(f"unk_id {unk_id!r} is outside the vocabulary")
        if not pieces:
            raise ConfigError("the vocabulary is empty")
        specials = pg.get("special_tokens", [])
        if not isinstance(specials, list) or not all(isinstance(t, str) and t for t in specials):
            # a string alone would be read as one special token per character
            raise ConfigError(f"special_tokens is {str(specials)[:40]!r}: expected a list of non-empty strings")
        pre_tokenizer, normalizer = pg.get("pre_tokenizer", "whitespace"), pg.get("normalizer", "none")
        check_names(normalizer=normalizer, pre_tokenizer=pre_tokenizer)   # the pages' pipeline looks them up
        return cls(pieces=pieces, unk_id=unk_id, special_tokens=tuple(specials),
                   pre_tokenizer=pre_tokenizer, normalizer=normalizer,
                   metaspace=bool(pg.get("metaspace", True)), name=name)
