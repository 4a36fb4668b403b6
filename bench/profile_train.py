"""Where a whole `python -m core train` run spends its time: cProfile's top functions.

    .venv/bin/python bench/profile_train.py [--corpus kjv2,english,mixed] [--models bbpe,bpe,wordpiece]
                                            [--top 12] [--no-json]

Each corpus (bench/corpora.py, 8.6 MB) is written to a temp file and each run is the CLI's main()
in this process under cProfile, as bench/speed.py runs it (vocabulary 8,000, or 16,000 for the
character models on `mixed`; tie rule hf; --json unless --no-json; --save). Compiled functions
(core/fast) do not show as their own rows: their time is in the Python function that calls them
(`merge`, `_revalue`, `_count_initial_pairs`). Waiting for the counting workers shows as `acquire`.
"""
from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpora  # noqa: E402
from core import cli  # noqa: E402
from core.trainer import TRAINER_PATH  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", default="kjv2,english,mixed")
    ap.add_argument("--models", default="bbpe,bpe,wordpiece")
    ap.add_argument("--top", type=int, default=12)
    ap.add_argument("--no-json", action="store_true")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="profile-train-"))
    print(f"trainer: {TRAINER_PATH}; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for key in args.corpus.split(","):
        path = tmp / f"{key}.txt"
        path.write_text(corpora.CORPORA[key][1](), encoding="utf-8")
        for model in args.models.split(","):
            vocab = 16000 if key == "mixed" and model != "bbpe" else 8000
            argv = ["train", str(path), "--model", model, "--vocab-size", str(vocab), "--tie-break", "hf",
                    "--save", str(tmp / "out.json")] + ([] if args.no_json else ["--json"])
            if model == "wordpiece":
                argv += ["--unk-token", "[UNK]"]
            stdout, sys.stdout = sys.stdout, open(os.devnull, "w")
            profile = cProfile.Profile()
            t = time.perf_counter()
            try:
                profile.enable()
                cli.main(argv)
                profile.disable()
            finally:
                sys.stdout.close()
                sys.stdout = stdout
            took = time.perf_counter() - t
            out = io.StringIO()
            pstats.Stats(profile, stream=out).sort_stats("tottime").print_stats(args.top)
            rows = [line for line in out.getvalue().splitlines() if line.strip()][3:]
            print(f"\n=== {key} {model}{'' if args.no_json else ' --json'}: {took:.2f} s under the profiler "
                  f"(load average {os.getloadavg()[0]:.2f})")
            print("\n".join(r for r in rows if not r.startswith(("Ordered by", "List reduced"))))
        path.unlink()


if __name__ == "__main__":
    main()
