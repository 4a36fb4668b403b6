"""Benchmark: saving and loading a session file of a 1 MB corpus with three 8,000-step traces.

    .venv/bin/python bench/session.py [--repeat 3]

The session file (playground/session_file.py) holds the corpus and every trainer's trace as JSON;
Settings → Save / Load runs exactly these two calls. Target: a few seconds each (about 1 s on an
idle machine). The test `tests/playground/test_session_file.py` checks the same round trip is
exact; the times are measured here, never asserted in a test. Prints the file size, the median
and fastest save and load (wall and CPU) and the load average.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.corpus import count_words  # noqa: E402
from core.presets import load_kjv  # noqa: E402
from core.trainer import TrainConfig, train  # noqa: E402
from playground import session_file as sf  # noqa: E402
from playground.state import Corpus, Results, Settings  # noqa: E402

CONFIGS = {"bpe": TrainConfig(model="bpe", vocab_size=8100), "bbpe": TrainConfig(model="bbpe", vocab_size=8300),
           "wordpiece": TrainConfig(model="wordpiece", vocab_size=8100, score="frequency")}


def timed(fn, *args):
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn(*args)
    return out, time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    text = load_kjv()[:1_000_000]
    corpus = Corpus.from_text("KJV, first 1 MB", text, "paste")
    traces = {}
    for model, config in CONFIGS.items():
        config = config.resolved()
        traces[model] = train(count_words(text, config.pre_tokenizer), config)
    settings = Settings.from_configs({m: t.config for m, t in traces.items()})
    session = sf.Session(corpus=corpus, settings=settings,
                         results=Results(corpus.name, corpus.digest, settings, **traces),
                         steps={"bpe": 10, "bbpe": 8000, "wordpiece": 0})
    print(f"1 MB corpus, traces of {', '.join(f'{m} {len(t.steps):,} steps' for m, t in traces.items())}; "
          f"load average {os.getloadavg()[0]:.2f}")
    saves, loads = [], []
    for _ in range(args.repeat):
        raw, wall, cpu = timed(sf.dump_session, session)
        saves.append((wall, cpu))
        back, wall, cpu = timed(sf.parse_session, raw)
        loads.append((wall, cpu))
        assert back.results == session.results      # the bench times a correct round trip only
    print(f"session file {len(raw) / 1e6:.1f} MB; median (fastest) of {args.repeat}, target a few seconds each:")
    for name, runs in (("save", saves), ("load", loads)):
        print(f"  {name}: {statistics.median(w for w, _ in runs):.2f} s wall ({min(w for w, _ in runs):.2f}), "
              f"{statistics.median(c for _, c in runs):.2f} s CPU")
    print(f"load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
