"""`python -m core`: the engine's command line, exactly as docs/cli.md specifies.

Errors are one line on stderr and exit status 2, never a traceback; on success stderr stays empty.
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import sys
from typing import Optional

import orjson

from .corpus import WordCounts, count_words, decode_text, read_word_count_table
from .encoders import ENCODERS, TrainedTokenizer
from .errors import ConfigError, CorpusError, PlaygroundError
from .formats import load_tokenizer, save_tokenizer
from .pipeline import NORMALIZERS, PRE_TOKENIZERS
from .trace_io import trace_report
from .trainer import END_OF_WORD_MODES, MODELS, SCORE_RULES, TIE_RULES, TrainConfig, Trace, keep_until_exit, train
from .unigram import UnigramConfig, train_unigram


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, exit 2 (argparse would print the usage too)
        raise SystemExit(_fail(f"{self.prog}: {message}"))


def _fail(message: str) -> int:
    if sys.stderr is not None:   # closed (2>&-): the status still says it
        sys.stderr.write(message.replace("\n", " ") + "\n")
    return 2


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="python -m core", description="Train, encode and decode subword tokenizers.")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    t = sub.add_parser("train", help="train a tokenizer, printing every merge")
    t.add_argument("inputs", nargs="*", metavar="INPUT", help="UTF-8 text files; '-' or none: standard input")
    t.add_argument("--model", required=True, choices=MODELS + ("unigram",))
    t.add_argument("--vocab-size", required=True, type=int)
    t.add_argument("--word-counts", action="store_true", help="the inputs are word,count tables (CSV/TSV/Parquet)")
    t.add_argument("--keep-newlines", action="store_true")
    t.add_argument("--pre-tokenizer", choices=PRE_TOKENIZERS)
    t.add_argument("--normalizer", choices=NORMALIZERS, default="none")
    t.add_argument("--end-of-word", choices=END_OF_WORD_MODES, default="none")
    t.add_argument("--score", choices=SCORE_RULES, default="likelihood")
    t.add_argument("--tie-break", choices=TIE_RULES, default="first")
    t.add_argument("--min-frequency", type=int, default=1)
    t.add_argument("--max-merges", type=int)
    t.add_argument("--special-tokens", default="")
    t.add_argument("--unk-token")
    t.add_argument("--top-k", type=int, default=10)
    t.add_argument("--save", metavar="PATH")
    t.add_argument("--json", action="store_true")
    u = UnigramConfig()     # --model unigram only (docs/cli.md); defaults are HF UnigramTrainer's
    t.add_argument("--shrinking-factor", type=float, default=u.shrinking_factor)
    t.add_argument("--seed-size", type=int, default=u.seed_size)
    t.add_argument("--max-piece-length", type=int, default=u.max_piece_length)
    t.add_argument("--n-sub-iterations", type=int, default=u.n_sub_iterations)

    e = sub.add_parser("encode", help="encode a text")
    e.add_argument("text", nargs="?", metavar="TEXT")
    src = e.add_mutually_exclusive_group(required=True)
    src.add_argument("--tokenizer", metavar="PATH")
    src.add_argument("--pretrained", metavar="NAME")
    e.add_argument("--encoder", choices=ENCODERS)
    e.add_argument("--add-special-tokens", action="store_true")
    e.add_argument("--pair", metavar="TEXT2")
    e.add_argument("--json", action="store_true")

    d = sub.add_parser("decode", help="decode ids to text")
    d.add_argument("ids", nargs="+", metavar="ID")
    src = d.add_mutually_exclusive_group(required=True)
    src.add_argument("--tokenizer", metavar="PATH")
    src.add_argument("--pretrained", metavar="NAME")

    sub.add_parser("pretrained", help="list the pretrained tokenizers that load offline")

    sub.add_parser("info", help="say which path the trainers run (compiled fast path or pure Python)")

    k = sub.add_parser("count", help="count the words of large text files into a word-count table")
    k.add_argument("inputs", nargs="+", metavar="INPUT")
    k.add_argument("--pre-tokenizer", choices=PRE_TOKENIZERS, default="whitespace")
    k.add_argument("--normalizer", choices=NORMALIZERS, default="none")
    k.add_argument("--keep-newlines", action="store_true")
    k.add_argument("--workers", type=int, help="processes (default: all cores)")
    k.add_argument("--out", required=True, metavar="PATH", help="counts.parquet or counts.csv")

    m = sub.add_parser("combine", help="sum word-count tables from many shards (DuckDB)")
    m.add_argument("inputs", nargs="+", metavar="TABLE")
    m.add_argument("--min-count", type=int, default=1)
    m.add_argument("--out", required=True, metavar="PATH")
    p.set_defaults(subcommands=sub.choices)
    return p


# the options that are text (not paths, which may be any bytes): what a text file must be, they must be
TEXT_OPTIONS = {"text": "the TEXT argument", "pair": "--pair", "special_tokens": "--special-tokens",
                "unk_token": "--unk-token"}


def _check_text_options(args) -> None:
    """Refuse a text option that is not UTF-8, as a text file is refused: the bytes the locale could
    not decode reach Python as lone surrogates, which encoders and JSON would turn into '\ufffd'."""
    for name, label in TEXT_OPTIONS.items():
        value = getattr(args, name, None)
        if value is None:
            continue
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as e:
            at = len(value[:e.start].encode("utf-8", "surrogateescape"))
            raise CorpusError(f"{label} is not valid UTF-8 (bad byte at offset {at}): give it in UTF-8") from None


# ---------------------------------------------------------------- train

def _stdin() -> bytes:
    if sys.stdin is None:   # closed (<&-), not just empty
        raise CorpusError("standard input is closed: give a file, or pipe the text in")
    return sys.stdin.buffer.read()


def _read_inputs(paths: list[str]) -> list[tuple[str, bytes]]:
    out = []
    for path in paths or ["-"]:
        if path == "-":
            out.append(("standard input", _stdin()))
            continue
        try:
            with open(path, "rb") as f:
                out.append((path, f.read()))
        except OSError as e:
            raise CorpusError(f"cannot read {path}: {e.strerror or e}") from None
    return out


def _words(args) -> WordCounts:
    inputs = _read_inputs(args.inputs)
    if args.word_counts:
        pairs = []
        for name, data in inputs:
            pairs.extend(read_word_count_table(data, name).as_pairs())
        return WordCounts.from_pairs(pairs)
    texts = [decode_text(data, name) for name, data in inputs]
    if not any(t.strip() for t in texts):
        raise CorpusError("the corpus is empty or only whitespace: give some text")
    # each file ends its last line: files never run into each other
    text = "\n".join(t[:-1] if t.endswith("\n") and len(texts) > 1 else t for t in texts)
    if args.model == "unigram":
        config = UnigramConfig(pre_tokenizer=args.pre_tokenizer or "whitespace").resolved()
    else:
        config = TrainConfig(model=args.model, pre_tokenizer=args.pre_tokenizer).resolved()
    # the CLI runs no other threads: its counting workers may fork (fast, nothing re-imported)
    return count_words(text, config.pre_tokenizer, args.normalizer, keep_newlines=args.keep_newlines, fork=True)


def _write_json(obj) -> None:
    """One line of JSON on stdout. orjson encodes to UTF-8 bytes in one pass in C: on 8 MB's trace
    (8,000 merges with their runners-up) 0.04 s against 0.14 s for json.dumps and writing its str.
    What orjson refuses (a lone surrogate, an integer past 64 bits) goes through json.dumps: the
    same JSON, spaced differently."""
    try:
        data = orjson.dumps(obj)
    except orjson.JSONEncodeError:
        data = json.dumps(obj, ensure_ascii=False).encode("utf-8", "surrogateescape")
    _out("")   # is standard output there at all?
    try:
        sys.stdout.flush()
        sys.stdout.buffer.write(data + b"\n")
        sys.stdout.buffer.flush()
    except BrokenPipeError:
        raise
    except OSError as e:
        raise _OutputError(e.strerror or str(e)) from None


class _OutputError(Exception):
    """Standard output cannot take the results (closed, or the disk is full): the user's to fix,
    not a bug to report."""


def _out(text: str) -> None:
    if sys.stdout is None:   # closed (>&-)
        raise _OutputError("standard output is closed")
    try:
        sys.stdout.write(text)
    except BrokenPipeError:   # the reader went away (| head): main() ends quietly
        raise
    except OSError as e:
        raise _OutputError(e.strerror or str(e)) from None


# options of some models only (docs/cli.md): a value that would change nothing is refused, not ignored
MODEL_OPTIONS = {"end_of_word": ("bpe",), "score": ("wordpiece",), "tie_break": MODELS, "min_frequency": MODELS,
                 "max_merges": MODELS, "top_k": MODELS, "shrinking_factor": ("unigram",), "seed_size": ("unigram",),
                 "max_piece_length": ("unigram",), "n_sub_iterations": ("unigram",)}


def _train(args) -> int:
    for name, models in MODEL_OPTIONS.items():
        if args.model not in models and getattr(args, name) != args.subcommands["train"].get_default(name):
            which = f"the {models[0]} model" if len(models) == 1 else f"the {', '.join(models[:-1])} and {models[-1]} models"
            raise ConfigError(f"--{name.replace('_', '-')} applies to {which} only")
    if args.model == "unigram":
        return _train_unigram(args)
    specials = tuple(s for s in args.special_tokens.split(",") if s) if args.special_tokens else ()
    config = TrainConfig(model=args.model, vocab_size=args.vocab_size, pre_tokenizer=args.pre_tokenizer,
                         normalizer=args.normalizer, end_of_word=args.end_of_word, score=args.score,
                         tie_break=args.tie_break, min_frequency=args.min_frequency, max_merges=args.max_merges,
                         special_tokens=specials, unk_token=args.unk_token, top_k=args.top_k,
                         keep_newlines=args.keep_newlines).resolved()
    words = _words(args)
    # One training, then the process ends: the cyclic garbage collector stays off from here on.
    # The trace and its report are millions of objects none of which is in a cycle, and the
    # collector's passes over them cost up to a second on 8 MB (building the --json report: 0.7 s
    # with it, 0.2 s without); the trainer switches it off while training for the same reason.
    # (Only from here: reading and counting run with it, as they always have.)
    gc.disable()
    trace = train(words, config)
    if args.save is not None:
        try:
            save_tokenizer(trace, args.save)
        except OSError as e:
            raise ConfigError(f"cannot write {args.save}: {e.strerror or e}") from None
    if args.json:
        report = trace_report(trace)
        _write_json(report)
        keep_until_exit(words, trace, report)   # `python -m core` leaves them to the OS (core/__main__.py)
        return 0
    keep_until_exit(words, trace)
    for s in trace.steps:
        score = "" if s.score is None else f" score {float(s.score):.4g}"
        tie = f", {s.tied} tied" if s.tied > 1 else ""
        _out(f"{s.index:>6}  {s.pair[0]} + {s.pair[1]} -> {s.token}  (id {s.id}, count {s.count}{score}{tie})\n")
    _out(f"{len(trace.steps)} merges, vocabulary {len(trace.vocab)}; stopped: {trace.stop_reason}\n")
    for note in trace.notes:
        _out(f"note: {note}\n")
    return 0


def _train_unigram(args) -> int:
    specials = tuple(s for s in args.special_tokens.split(",") if s) if args.special_tokens else ()
    config = UnigramConfig(vocab_size=args.vocab_size, shrinking_factor=args.shrinking_factor,
                           seed_size=args.seed_size, max_piece_length=args.max_piece_length,
                           n_sub_iterations=args.n_sub_iterations, unk_token=args.unk_token,
                           special_tokens=specials, pre_tokenizer=args.pre_tokenizer or "whitespace",
                           normalizer=args.normalizer).resolved()
    # the CLI runs no other threads: the E steps may fork workers, one per core (the same trace)
    trace = train_unigram(_words(args), config, workers=len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
                          else (os.cpu_count() or 1))
    if args.save is not None:
        try:
            save_tokenizer(trace, args.save)
        except OSError as e:
            raise ConfigError(f"cannot write {args.save}: {e.strerror or e}") from None
    if args.json:
        _write_json(trace.to_json())
        return 0
    _out(f"seeds: {len(trace.seeds)} pieces ({len(trace.required_chars)} characters)\n")
    prunes = {p.round: p for p in trace.prunes}
    for e in trace.em_steps:
        _out(f"round {e.round} EM {e.sub_iteration}: loss {e.loss:.4f}, {len(e.pieces)} pieces\n")
        p = prunes.get(e.round) if e.sub_iteration == config.n_sub_iterations else None
        if p is not None:
            worst = [f"{t} ({loss:.3g})" for t, loss in p.pruned if loss is not None][:3]
            _out(f"round {p.round} prune: {p.size_before} -> {p.size_after} pieces"
                      + (f", e.g. {', '.join(worst)}" if worst else "") + "\n")
    _out(f"vocabulary {len(trace.vocab)}: " + " ".join(p for p, _ in trace.vocab[:12])
              + (" ..." if len(trace.vocab) > 12 else "") + "\n")
    for note in trace.notes:
        _out(f"note: {note}\n")
    return 0


# ---------------------------------------------------------------- encode / decode

def _tokenizer(args):
    if args.pretrained is not None:
        from .pretrained import load_pretrained
        return load_pretrained(args.pretrained)
    return load_tokenizer(args.tokenizer)


def _encode(args) -> int:
    text = args.text
    if text is None:
        text = decode_text(_stdin(), "standard input")
    tok = _tokenizer(args)
    if args.encoder is not None and not isinstance(tok, TrainedTokenizer):
        raise ConfigError("--encoder applies to the BPE and WordPiece tokenizers trained here; a Unigram, "
                          "pretrained or imported tokenizer encodes only its own way")
    if isinstance(tok, TrainedTokenizer):
        enc = tok.encode(text, args.encoder, add_special_tokens=args.add_special_tokens, pair=args.pair)
    else:
        enc = tok.encode(text, add_special_tokens=args.add_special_tokens, pair=args.pair)
    if args.json:
        _out(json.dumps(enc.to_json(), ensure_ascii=False) + "\n")
    else:
        _out(" ".join(map(str, enc.ids)) + "\n")
        _out(json.dumps(list(enc.tokens), ensure_ascii=False) + "\n")
    return 0


def _decode(args) -> int:
    ids = []
    for raw in args.ids:
        try:
            ids.append(int(raw))
        except ValueError:
            raise ConfigError(f"id {raw!r} is not a whole number") from None
    tok = _tokenizer(args)
    _out(tok.decode(ids) + "\n")
    return 0


def _pretrained(args) -> int:
    from .pretrained import pretrained_names
    for name in pretrained_names():
        _out(name + "\n")
    return 0


def _info(args) -> int:
    from .trainer import TRAINER_PATH
    from .unigram import UNIGRAM_PATH
    _out(f"trainer: {TRAINER_PATH}\nunigram: {UNIGRAM_PATH}\n")
    return 0


def _count(args) -> int:
    from .scale import count_files, terminal_progress
    if args.workers is not None and not 1 <= args.workers <= 1000:   # 10^5 forked a process each at once
        raise ConfigError(f"--workers must be between 1 and 1,000 (got {args.workers:,})")
    wc = count_files(args.inputs, args.pre_tokenizer, args.normalizer, keep_newlines=args.keep_newlines,
                     workers=args.workers, progress=terminal_progress(), fork=True)
    _write_table(wc, args.out)
    return 0


def _write_table(wc: WordCounts, out: str) -> None:
    from .corpus import write_word_count_table
    try:
        write_word_count_table(wc, out)
    except OSError as e:
        raise ConfigError(f"cannot write {out}: {e.strerror or e}") from None


def _combine(args) -> int:
    from .scale import combine_tables
    if args.min_count < 1:
        raise ConfigError("--min-count must be at least 1")
    try:
        combine_tables(args.inputs, args.out, min_count=args.min_count)
    except OSError as e:
        raise ConfigError(f"cannot write {args.out}: {e.strerror or e}") from None
    return 0


def main(argv: Optional[list[str]] = None) -> int:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(encoding="utf-8", errors="surrogateescape")
        except (AttributeError, ValueError):
            pass
    try:
        args, unknown = _parser().parse_known_args(argv)
        if unknown:   # said by the subcommand's parser, as its other errors are
            args.subcommands[args.command].error(f"unrecognized arguments: {' '.join(unknown)}")
        _check_text_options(args)
        for name in ("save", "out"):   # "" would be the current folder, or nothing at all
            if getattr(args, name, None) == "":
                raise ConfigError(f"--{name} needs a file path, not an empty one")
        commands = {"train": _train, "encode": _encode, "decode": _decode, "pretrained": _pretrained,
                    "count": _count, "combine": _combine, "info": _info}
        return commands[args.command](args)
    except SystemExit as e:
        return e.code if isinstance(e.code, int) else 2
    except PlaygroundError as e:
        return _fail(f"error: {e}")
    except _OutputError as e:
        return _fail(f"error: cannot write the output: {e}")
    except KeyboardInterrupt:
        return _fail("interrupted")
    except MemoryError:
        return _fail("error: out of memory: try a smaller corpus or a word-count table")
    except BrokenPipeError:
        return 0
    except Exception as e:  # noqa: BLE001 - the contract: one line, never a traceback
        return _fail(f"internal error ({type(e).__name__}: {e}); please report it")
