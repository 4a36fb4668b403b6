"""A `Trace` as plain JSON and back, exactly: what session files store.

`trace_report` (at the end) is the CLI's *report* of a trace (scores rounded to doubles, changed words
only counted); this module is its *storage*: every field of every record survives the round trip,
    trace_from_json(json.loads(json.dumps(trace_to_json(t)))) == t
with WordPiece's likelihood scores kept as exact fractions, written as "num/den" strings
("1/3", "9/1"), changed words as token ids, candidates as [pair, count, score] rows.

Reading validates everything a page will rely on (types, id ranges, step order, the settings)
and raises `TokenizerFileError` with a one-line reason on anything else: a file from another
version, a truncated or hand-edited one, or JSON that is not a trace at all.

Layout (version 1):
    {"format": "tokenizer-playground-trace", "version": 1,
     "config": {TrainConfig fields}, "special_tokens": [...], "alphabet": [...], "vocab": [...],
     "initial_total_tokens": 42, "words": {"words": [...], "counts": [...]},
     "final_tokens": [["es", 9], ...], "stop_reason": "...",
     "steps": [{"index": 1, "pair": ["e", "s"], "token": "es", "id": 12, "count": 9,
                "score": null | "1/3", "tied": 2, "first_word": "newest",
                "candidates": [[["e", "s"], 9, null], ...],
                "changed_words": [[[ids before], [ids after], count], ...],
                "changed_words_total": 2, "total_tokens": 30, "vocab_size": 13}, ...]}

Not here: Streamlit, session files as a whole (playground/session_file.py), the CLI's report.
"""
from __future__ import annotations

import csv
import io
from dataclasses import asdict, fields
from fractions import Fraction
from typing import Any, Optional

from .corpus import WordCounts
from .errors import PlaygroundError, TokenizerFileError
from .limits import MAX_TRACE_NUMBER
from .trainer import Candidate, ChangedWord, MergeStep, Trace, TrainConfig

TRACE_FORMAT = "tokenizer-playground-trace"
TRACE_VERSION = 1

_CONFIG_FIELDS = tuple(f.name for f in fields(TrainConfig))
_TRACE_FIELDS = frozenset(f.name for f in fields(Trace))
# Every Trace field this module writes; tests/core/test_trace_io.py fails when Trace gains one it does not.
HANDLED_TRACE_FIELDS = frozenset({"config", "special_tokens", "alphabet", "vocab", "steps", "initial_total_tokens",
                                  "words", "final_tokens", "stop_reason", "notes"})


# ---------------------------------------------------------------- writing

def fraction_to_json(value: Optional[Fraction]) -> Optional[str]:
    """fraction_to_json(Fraction(1, 3)) == "1/3"; an integer value keeps its "/1"; None stays None."""
    if value is None:
        return None
    if type(value) is not Fraction:   # an int (or another Rational): exact all the same
        value = Fraction(value)
    return f"{value.numerator}/{value.denominator}"


def config_to_json(config: TrainConfig) -> dict[str, Any]:
    out = asdict(config)
    out["special_tokens"] = list(config.special_tokens)
    return out


def trace_to_json(trace: Trace) -> dict[str, Any]:
    """The whole trace as JSON-ready plain data (see the module docstring for the layout)."""
    fj = fraction_to_json
    steps = []
    for s in trace.steps:
        steps.append({
            "index": s.index, "pair": [s.pair[0], s.pair[1]], "token": s.token, "id": s.id, "count": s.count,
            "score": fj(s.score), "tied": s.tied, "first_word": s.first_word,
            "candidates": [[[c.pair[0], c.pair[1]], c.count, fj(c.score)] for c in s.candidates],
            "changed_words": [[list(w.before), list(w.after), w.count] for w in s.changed_words],
            "changed_words_total": s.changed_words_total, "total_tokens": s.total_tokens,
            "vocab_size": s.vocab_size,
        })
    return {
        "format": TRACE_FORMAT, "version": TRACE_VERSION,
        "config": config_to_json(trace.config),
        "special_tokens": list(trace.special_tokens), "alphabet": list(trace.alphabet),
        "vocab": list(trace.vocab), "initial_total_tokens": trace.initial_total_tokens,
        "words": {"words": list(trace.words.words), "counts": list(trace.words.counts)},
        "final_tokens": [[t, n] for t, n in trace.final_tokens],
        "stop_reason": trace.stop_reason,
        "notes": list(getattr(trace, "notes", ())),
        "steps": steps,
    }


# ---------------------------------------------------------------- reading

class _Bad(Exception):
    """A field is missing or wrong: carries where (for the message)."""


def _bad(where: str, what: str) -> _Bad:
    return _Bad(f"{where}: {what}")


def _obj(value, where: str) -> dict:
    if type(value) is not dict:
        raise _bad(where, f"expected an object, found {_kind(value)}")
    return value


def _list(value, where: str) -> list:
    if type(value) is not list:
        raise _bad(where, f"expected a list, found {_kind(value)}")
    return value


def _str(value, where: str) -> str:
    if type(value) is not str:
        raise _bad(where, f"expected text, found {_kind(value)}")
    return value


def _int(value, where: str, low: int = 0) -> int:
    if type(value) is not int or value < low:
        raise _bad(where, f"expected a whole number of at least {low}, found {_kind(value)}")
    if value > MAX_TRACE_NUMBER:
        raise _bad(where, _TOO_LARGE)
    return value


# a 10**30 loaded, then pages failed to draw it (limits.MAX_TRACE_NUMBER says which)
_TOO_LARGE = "a number too large (above 10^18, more than any corpus gives)"


def _strs(value, where: str) -> tuple[str, ...]:
    items = _list(value, where)
    if not all(type(x) is str for x in items):
        raise _bad(where, "expected a list of texts")
    return tuple(items)


def _ints(value, where: str, low: int = 0, high: Optional[int] = None) -> tuple[int, ...]:
    """A list of ints in [low, high) (high: at most MAX_TRACE_NUMBER + 1)."""
    items = _list(value, where)
    if not all(type(x) is int for x in items):
        raise _bad(where, "expected a list of whole numbers")
    top = MAX_TRACE_NUMBER + 1 if high is None else min(high, MAX_TRACE_NUMBER + 1)
    if items and (min(items) < low or max(items) >= top):
        raise _bad(where, f"a number is out of range ({low} to {top - 1:,})")
    return tuple(items)


def _kind(value) -> str:
    if value is None:
        return "null"
    return {bool: "true/false", int: "a number", float: "a number", str: "text", list: "a list",
            dict: "an object"}.get(type(value), type(value).__name__)


def _key(d: dict, key: str, where: str):
    try:
        return d[key]
    except KeyError:
        raise _bad(where, f"missing field {key!r}") from None


_FRACTIONS: dict[str, Fraction] = {}
_MAX_NUM_DIGITS = len(str(MAX_TRACE_NUMBER))
_MAX_DEN_DIGITS = len(str(MAX_TRACE_NUMBER ** 2))


def fraction_from_json(value, where: str = "score") -> Optional[Fraction]:
    """"1/3" -> Fraction(1, 3); None -> None; anything else is refused (raises TokenizerFileError)."""
    try:
        return _fraction(value, where)
    except _Bad as e:
        raise TokenizerFileError(f"bad trace data: {e}") from None


def _fraction(value, where: str) -> Optional[Fraction]:
    if value is None:
        return None
    if type(value) is not str:
        raise _bad(where, f"a score is written \"num/den\", found {_kind(value)}")
    hit = _FRACTIONS.get(value)
    if hit is not None:
        return hit
    num, sep, den = value.partition("/")
    # int() accepts "+1", " 1", "1_0": only plain digits (and a leading minus) are ours
    if (not sep or not den.isdigit() or not num.lstrip("-").isdigit() or num.startswith("--")
            or not den.isascii() or not num.isascii()):
        raise _bad(where, f"a score is written \"num/den\", found {value[:40]!r}")
    # a likelihood score is a count over a product of two counts: bounded so that float(score)
    # stays a float (a 400-digit numerator loaded, then the Merges page failed to divide it);
    # the digits are counted first, so that int() never reads thousands of them
    if len(num.lstrip("-")) > _MAX_NUM_DIGITS or len(den) > _MAX_DEN_DIGITS:
        raise _bad(where, f"a score's numerator or denominator is too large, found {value[:40]!r}")
    n, d = int(num), int(den)
    if abs(n) > MAX_TRACE_NUMBER or d > MAX_TRACE_NUMBER ** 2:
        raise _bad(where, f"a score's numerator or denominator is too large, found {value[:40]!r}")
    if d == 0:
        raise _bad(where, "a score has denominator 0")
    f = Fraction(n, d)
    if len(_FRACTIONS) < 100_000:
        _FRACTIONS[value] = f
    return f


def config_from_json(data, where: str = "config") -> TrainConfig:
    """TrainConfig fields (as config_to_json writes them) back to a TrainConfig; raises
    TokenizerFileError on unknown or ill-typed settings."""
    try:
        return _config(data, where)
    except _Bad as e:
        raise TokenizerFileError(f"bad settings: {e}") from None


def _config(data, where: str) -> TrainConfig:
    d = _obj(data, where)
    unknown = set(d) - set(_CONFIG_FIELDS)
    if unknown:
        raise _bad(where, f"unknown setting {sorted(unknown)[0]!r}")
    kwargs = {}
    for name in _CONFIG_FIELDS:
        if name in d:
            kwargs[name] = d[name]
    if "special_tokens" in kwargs:
        kwargs["special_tokens"] = _strs(kwargs["special_tokens"], where + ".special_tokens")
    for name in ("model", "normalizer", "end_of_word", "score", "tie_break"):
        if name in kwargs:
            _str(kwargs[name], f"{where}.{name}")
    for name in ("pre_tokenizer", "unk_token"):
        if kwargs.get(name) is not None:
            _str(kwargs[name], f"{where}.{name}")
    if kwargs.get("max_merges") is not None:
        _int(kwargs["max_merges"], f"{where}.max_merges")
    for name in ("vocab_size", "min_frequency", "top_k"):
        if name in kwargs:
            _int(kwargs[name], f"{where}.{name}", 1)
    if "keep_newlines" in kwargs and type(kwargs["keep_newlines"]) is not bool:
        raise _bad(where + ".keep_newlines", f"expected true/false, found {_kind(kwargs['keep_newlines'])}")
    try:
        config = TrainConfig(**kwargs)
        resolved = config.resolved()
    except PlaygroundError as e:
        raise _bad(where, str(e)) from None
    return resolved if resolved == config else config


def trace_from_json(data) -> Trace:
    """Inverse of trace_to_json; raises TokenizerFileError (one line) on anything that is not a
    version-1 trace with consistent fields."""
    try:
        return _trace(data)
    except _Bad as e:
        raise TokenizerFileError(f"bad trace data: {e}") from None
    except TokenizerFileError:
        raise
    except (KeyError, TypeError, ValueError, IndexError, AttributeError, RecursionError) as e:
        raise TokenizerFileError(f"bad trace data ({type(e).__name__}: {str(e)[:120]})".splitlines()[0]) from None


def _trace(data) -> Trace:
    d = _obj(data, "trace")
    fmt = d.get("format")
    if fmt != TRACE_FORMAT:
        raise _bad("trace", f"not a playground trace (format {str(fmt)[:40]!r})")
    version = d.get("version")
    if type(version) is not int or version != TRACE_VERSION:   # true and 1.0 are == 1 in Python
        raise _bad("trace", f"written by another version of the playground (trace version {version!r}, "
                            f"this one reads {TRACE_VERSION})")
    config = _config(_key(d, "config", "trace"), "config")
    specials = _strs(_key(d, "special_tokens", "trace"), "special_tokens")
    alphabet = _strs(_key(d, "alphabet", "trace"), "alphabet")
    vocab = _strs(_key(d, "vocab", "trace"), "vocab")
    n = len(vocab)
    if vocab[:len(specials) + len(alphabet)] != specials + alphabet:
        raise _bad("vocab", "does not start with the special tokens and the alphabet")
    initial_total = _int(_key(d, "initial_total_tokens", "trace"), "initial_total_tokens")
    w = _obj(_key(d, "words", "trace"), "words")
    words = WordCounts(_strs(_key(w, "words", "words"), "words.words"),
                       _ints(_key(w, "counts", "words"), "words.counts"))
    if len(words.words) != len(words.counts):
        raise _bad("words", "as many counts as words are needed")
    final = []
    for i, row in enumerate(_list(_key(d, "final_tokens", "trace"), "final_tokens")):
        if type(row) is not list or len(row) != 2:
            raise _bad(f"final_tokens[{i}]", "expected [token, count]")
        final.append((_str(row[0], f"final_tokens[{i}]"), _int(row[1], f"final_tokens[{i}]")))
    stop = _str(_key(d, "stop_reason", "trace"), "stop_reason")
    extra = {}
    if "notes" in _TRACE_FIELDS:
        extra["notes"] = _strs(d.get("notes", []), "notes")

    steps = []
    frac = _fraction
    prev_vocab = len(specials) + len(alphabet)
    for k, raw in enumerate(_list(_key(d, "steps", "trace"), "steps")):
        where = f"steps[{k}]"
        s = _obj(raw, where)
        try:
            index, pair, token, tid = s["index"], s["pair"], s["token"], s["id"]
            count, score, tied, first_word = s["count"], s["score"], s["tied"], s["first_word"]
            cands_raw, changed_raw = s["candidates"], s["changed_words"]
            changed_total, total_tokens, vocab_size = s["changed_words_total"], s["total_tokens"], s["vocab_size"]
        except KeyError as e:
            raise _bad(where, f"missing field {e.args[0]!r}") from None
        if index != k + 1 or type(index) is not int:
            raise _bad(where, f"step index {index!r} out of order (expected {k + 1})")
        if type(pair) is not list or len(pair) != 2 or type(pair[0]) is not str or type(pair[1]) is not str:
            raise _bad(where + ".pair", "expected two texts")
        _str(token, where + ".token")
        _int(tid, where + ".id")
        if tid >= n or vocab[tid] != token:
            raise _bad(where, f"token {token[:40]!r} is not vocabulary id {tid}")
        _int(count, where + ".count")
        _int(tied, where + ".tied", 1)
        _str(first_word, where + ".first_word")
        _int(changed_total, where + ".changed_words_total")
        _int(total_tokens, where + ".total_tokens")
        _int(vocab_size, where + ".vocab_size", 1)
        if vocab_size > n or vocab_size < prev_vocab:
            raise _bad(where, f"vocabulary size {vocab_size} does not fit the vocabulary ({n} tokens)")
        prev_vocab = vocab_size
        cands = []
        for c in _list(cands_raw, where + ".candidates"):
            if type(c) is not list or len(c) != 3:
                raise _bad(where + ".candidates", "expected [pair, count, score] rows")
            cp, cc, cs = c
            if type(cp) is not list or len(cp) != 2 or type(cp[0]) is not str or type(cp[1]) is not str:
                raise _bad(where + ".candidates", "a pair must be two texts")
            if type(cc) is not int or cc < 0:
                raise _bad(where + ".candidates", "a count must be a whole number")
            if cc > MAX_TRACE_NUMBER:
                raise _bad(where + ".candidates", _TOO_LARGE)
            cands.append(Candidate((cp[0], cp[1]), cc, frac(cs, where + ".candidates")))
        changed = []
        for c in _list(changed_raw, where + ".changed_words"):
            if type(c) is not list or len(c) != 3:
                raise _bad(where + ".changed_words", "expected [before ids, after ids, count] rows")
            before = _ints(c[0], where + ".changed_words", 0, n)
            after = _ints(c[1], where + ".changed_words", 0, n)
            changed.append(ChangedWord(before, after, _int(c[2], where + ".changed_words")))
        steps.append(MergeStep(index=index, pair=(pair[0], pair[1]), token=token, id=tid, count=count,
                               score=frac(score, where + ".score"), tied=tied, first_word=first_word,
                               candidates=tuple(cands), changed_words=tuple(changed),
                               changed_words_total=changed_total, total_tokens=total_tokens,
                               vocab_size=vocab_size))
    return Trace(config=config, special_tokens=specials, alphabet=alphabet, vocab=vocab, steps=tuple(steps),
                 initial_total_tokens=initial_total, words=words, final_tokens=tuple(final), stop_reason=stop,
                 **extra)


# ---------------------------------------------------------------- reports (written, never read back)

def _score_json(score):
    return None if score is None else float(score)


def trace_report(trace: Trace) -> dict:
    """The CLI's `--json` report and the Inspect page's trace.json: scores as doubles, changed words
    counted, the vocabulary as token -> id. Readable, not for reading back (trace_to_json is)."""
    c = trace.config
    return {
        "model": c.model, "tie_break": c.tie_break, "score_rule": c.score_rule,
        "pre_tokenizer": c.pre_tokenizer, "normalizer": c.normalizer, "end_of_word": c.end_of_word,
        "special_tokens": list(trace.special_tokens), "alphabet": list(trace.alphabet),
        "merges": [{
            "pair": list(s.pair), "token": s.token, "id": s.id, "count": s.count,
            "score": _score_json(s.score), "tied": s.tied, "first_word": s.first_word,
            "changed_words": s.changed_words_total, "total_tokens": s.total_tokens,
            "candidates": [{"pair": list(k.pair), "count": k.count, "score": _score_json(k.score)}
                           for k in s.candidates],
        } for s in trace.steps],
        "vocab": {t: i for i, t in enumerate(trace.vocab)},
        "stop_reason": trace.stop_reason,
        "notes": list(trace.notes),
    }


TRACE_CSV_COLUMNS = ["step", "left", "right", "token", "id", "count", "score", "score_exact", "tied",
                     "first_word", "changed_words", "total_tokens", "vocab_size"]


def trace_csv(trace: Trace) -> str:
    """One row per merge. `score` is the double, `score_exact` the fraction (WordPiece)."""
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(TRACE_CSV_COLUMNS)
    for s in trace.steps:
        w.writerow([s.index, s.pair[0], s.pair[1], s.token, s.id, s.count,
                    "" if s.score is None else repr(float(s.score)),
                    "" if s.score is None else f"{s.score.numerator}/{s.score.denominator}",
                    s.tied, s.first_word, s.changed_words_total, s.total_tokens, s.vocab_size])
    return buf.getvalue()
