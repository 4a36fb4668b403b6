"""Trace equality, old trainer against new, on the three 8.6 MB corpora for every model.

    .venv/bin/python bench/trace_equality.py [--old d77f21f] [--corpus kjv2,english,mixed]
                                             [--rules hf,first] [--also-pure]

The old trainer is core/ as it stands at commit --old (default d77f21f, main before the compiled
fast path), unpacked with `git archive` into a temp folder as a package of its own (`core_old`);
the new one is this checkout's core/, on its default path (compiled when built; `python -m core
info`) and, with --also-pure, on its pure-Python path too. Each corpus is counted once per
pre-tokenizer (this checkout's count_words; counting did not change) and the same words go to
both trainers; the traces are compared as their full JSON (every field of every merge record:
pair, token, id, count, score, tied, first word, candidates, changed words, totals), plus the
final tokens. Vocabulary 8,000 (character models on `mixed`: 16,000, its alphabet is 8,863).
Prints one line per case and exits 1 if any differs.
"""
from __future__ import annotations

import argparse
import importlib
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpora  # noqa: E402
from core.corpus import count_words  # noqa: E402
from core.trace_io import trace_to_json  # noqa: E402
from core.trainer import TRAINER_PATH, TrainConfig, train  # noqa: E402

MODELS = ("bpe", "bbpe", "wordpiece")


def old_package(commit: str, folder: Path):
    """core/ at `commit`, importable as core_old (its imports are relative)."""
    archive = subprocess.run(["git", "archive", commit, "core"], cwd=ROOT, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    (folder / "core").rename(folder / "core_old")
    sys.path.insert(0, str(folder))
    return (importlib.import_module("core_old.trainer"), importlib.import_module("core_old.trace_io"),
            importlib.import_module("core_old.corpus"))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--old", default="d77f21f")
    ap.add_argument("--corpus", default="kjv2,english,mixed")
    ap.add_argument("--rules", default="hf,first")
    ap.add_argument("--also-pure", action="store_true")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="trace-equality-"))
    old_trainer, old_io, old_corpus = old_package(args.old, tmp)
    print(f"old: core/ at {args.old}; new: this checkout, {TRAINER_PATH}", flush=True)
    bad = 0
    for key in args.corpus.split(","):
        text = corpora.CORPORA[key][1]()
        counted = {}
        for model in MODELS:
            for rule in args.rules.split(","):
                vocab = 16000 if key == "mixed" and model != "bbpe" else 8000
                config = TrainConfig(model=model, vocab_size=vocab, tie_break=rule,
                                     unk_token="[UNK]" if model == "wordpiece" else None).resolved()
                pre = config.pre_tokenizer
                if pre not in counted:
                    counted[pre] = count_words(text, pre, fork=True)
                words = counted[pre]
                t = time.perf_counter()
                old = old_io.trace_to_json(old_trainer.train(old_corpus.WordCounts(words.words, words.counts),
                                                             old_trainer.TrainConfig(**vars(config))))
                t_old = time.perf_counter() - t
                paths = [True, False] if args.also_pure else [True]
                for fast in paths:
                    t = time.perf_counter()
                    new = trace_to_json(train(words, config, fast=fast))
                    t_new = time.perf_counter() - t
                    same = new == old
                    bad += not same
                    print(f"   {key:8} {model:10} {rule:6} {'default' if fast else 'pure':8} "
                          f"{len(new['steps']):6,} merges: same trace {same}   (old {t_old:.2f} s, new {t_new:.2f} s)",
                          flush=True)
    print("all equal" if not bad else f"{bad} differ")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
