"""Unigram, the fourth algorithm: settings, trace, the fast trainer and the tokenizer.

`train_unigram(words, UnigramConfig(...)) -> UnigramTrace` learns a vocabulary of pieces with
scores (log-probabilities) as Hugging Face `tokenizers`' UnigramTrainer does: seed pieces from
frequent substrings, EM over each word's lattice, pruning by loss, until the size. The readable
version of the same loop is core/unigram_reference.py; tests hold the two equal, trace for trace.
`UnigramTokenizer` encodes with Viterbi over the final pieces (core/tokenizer.py's contract).

The arithmetic follows HF (tokenizers/src/models/unigram/trainer.rs, lattice.rs, model.rs)
operation for operation; docs/unigram.md says where the results differ and why.
"""
from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass
from typing import Optional

from .errors import ConfigError
from .pipeline import NORMALIZERS, PRE_TOKENIZERS

METASPACE = "\u2581"          # ▁, written before every word (HF Metaspace, prepend_scheme="always")
TRAINING_UNK = "<UNK>"        # HF trains with this piece at id 0, whatever the final unknown token
UNK_PENALTY = 10.0            # an unknown character scores the lowest piece's score minus this
EXPECTED_FREQUENCY_THRESHOLD = 0.5   # the M step drops pieces expected fewer times than this
MIN_SCORE_PENALTY_DELTA = 0.0001     # finalize: each missing required character a little lower
MAX_VOCAB_SIZE = 1_000_000


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
        if self.vocab_size > MAX_VOCAB_SIZE:
            raise ConfigError(f"vocabulary size {self.vocab_size:,} is too large: at most {MAX_VOCAB_SIZE:,}")
        f = self.shrinking_factor
        if isinstance(f, bool) or not isinstance(f, (int, float)) or not 0 < f < 1:
            raise ConfigError(f"shrinking factor must be a number between 0 and 1, both excluded (got {f!r})")
        if self.pre_tokenizer not in PRE_TOKENIZERS:
            raise ConfigError(f"unknown pre-tokenizer {self.pre_tokenizer!r}: choose one of {', '.join(PRE_TOKENIZERS)}")
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
    n_tokens: int               # Viterbi tokens summed over the unique words (HF's num_tokens)
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
                          "n_tokens": e.n_tokens, "pieces": list(e.pieces), "scores": list(e.scores)}
                         for e in self.em_steps],
            "prunes": [{"round": p.round, "size_before": p.size_before, "size_after": p.size_after,
                        "target": p.target, "pruned": [[t, l] for t, l in p.pruned]} for p in self.prunes],
            "vocab": [[p, s] for p, s in self.vocab],
            "unk_id": self.unk_id,
            "required_chars": list(self.required_chars),
            "notes": list(self.notes),
        }

    @classmethod
    def from_json(cls, data: dict) -> "UnigramTrace":
        if not isinstance(data, dict) or data.get("kind") != "unigram-trace":
            raise ConfigError("not a Unigram trace")
        c = data["config"]
        config = UnigramConfig(**{**c, "special_tokens": tuple(c["special_tokens"])})
        return cls(
            config=config,
            seeds=tuple((p, float(s)) for p, s in data["seeds"]),
            em_steps=tuple(EMStep(e["round"], e["sub_iteration"], float(e["loss"]), e["n_tokens"],
                                  tuple(e["pieces"]), tuple(float(x) for x in e["scores"]))
                           for e in data["em_steps"]),
            prunes=tuple(PruneStep(p["round"], p["size_before"], p["size_after"], p["target"],
                                   tuple((t, None if l is None else float(l)) for t, l in p["pruned"]))
                         for p in data["prunes"]),
            vocab=tuple((p, float(s)) for p, s in data["vocab"]),
            unk_id=data["unk_id"],
            required_chars=tuple(data["required_chars"]),
            notes=tuple(data["notes"]),
        )

    def dumps(self) -> str:
        return json.dumps(self.to_json(), ensure_ascii=False)

    @property
    def pieces(self) -> tuple[str, ...]:
        return tuple(p for p, _ in self.vocab)


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
