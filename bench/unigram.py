"""Benchmark: the project's Unigram trainer against Hugging Face's UnigramTrainer, whole processes
measured in the same run, and Viterbi ids against HF's and sentencepiece's Unigram models.

    .venv/bin/python bench/unigram.py [--corpora mixed:1000000,kjv2] [--vocab-size 8000] [--repeat 1]
                                      [--no-viterbi]

Corpora (bench/corpora.py): `mixed:N` = the tests' `mixed_text` recipe (KJV lines with jieba words
and emoji mixed in) up to N bytes (1 MB: 26,029 unique words, 5,374 distinct characters); `kjv2` = the King
James Bible twice (8.6 MB, 14,599 unique words; the 8.6 MB `mixed` has more distinct characters
than 8,000, which HF refuses). Each is written to a temp file; then
  1. `python -m core train FILE --model unigram --vocab-size N --save ours.json` against a Python
     process that runs HF: `Tokenizer(Unigram())`, pre-tokenizer WhitespaceSplit + Metaspace
     (prepend always), `UnigramTrainer(vocab_size=N)`, `train([FILE])`, save. Interleaved, the
     fastest of --repeat kept; their ratio (target <= 2x), in wall time and in CPU time (which
     the machine's load blurs less; both count every core a process used);
  2. the two final vocabularies: equal, or their overlap (|ours ∩ HF| / |HF|);
  3. the load average before and after.
The first line says which path our trainer runs (`make fast` builds the compiled one).
Then (unless --no-viterbi) the sentencepiece case of tests/core/test_unigram.py with every held-out
word (> 10,000 words across Latin, Chinese and other scripts): how many encode to the same ids in
ours, HF's Unigram and sentencepiece.
Nothing asserts; figures go to the terminal (bench/README.md).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "tests" / "core"))

HF_SCRIPT = """
import sys
from tokenizers import Tokenizer, models, pre_tokenizers, trainers
path, out, size = sys.argv[1], sys.argv[2], int(sys.argv[3])
tok = Tokenizer(models.Unigram())
tok.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.WhitespaceSplit(),
    pre_tokenizers.Metaspace(replacement="\u2581", prepend_scheme="always", split=False)])
tok.train([path], trainers.UnigramTrainer(vocab_size=size, show_progress=False))
tok.save(out)
"""


def run(cmd: list[str]) -> tuple[float, float]:
    """Wall time and CPU time (user + system, the process and every worker or thread it had, from
    os.wait4) of one command."""
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read()
    if proc.returncode:
        raise SystemExit(f"{cmd[:4]} failed: {err.strip()[:500]}")
    return wall, usage.ru_utime + usage.ru_stime


def vocab_of(path: Path) -> dict[str, float]:
    return {p: s for p, s in json.loads(path.read_text(encoding="utf-8"))["model"]["vocab"]}


def bench_corpus(name: str, vocab_size: int, repeat: int, folder: Path) -> None:
    from corpora import kjv2_text, reference_mixed_text
    text = kjv2_text() if name == "kjv2" else reference_mixed_text(int(name.split(":")[1]))
    corpus = folder / f"{name.replace(':', '_')}.txt"
    corpus.write_text(text, encoding="utf-8")
    ours_json, hf_json = folder / "ours.json", folder / "hf.json"
    load0 = os.getloadavg()
    ours, hf = [], []
    for _ in range(repeat):
        hf.append(run([sys.executable, "-c", HF_SCRIPT, str(corpus), str(hf_json), str(vocab_size)]))
        ours.append(run([sys.executable, "-m", "core", "train", str(corpus), "--model", "unigram",
                         "--vocab-size", str(vocab_size), "--save", str(ours_json)]))
    load1 = os.getloadavg()
    a, b = vocab_of(ours_json), vocab_of(hf_json)
    common = set(a) & set(b)
    (ow, oc), (hw, hc) = min(ours), min(hf)
    print(f"{len(text.encode('utf-8')) / 1e6:.2f} MB {name.split(':')[0]} -> {vocab_size}: wall ours {ow:.1f} s, "
          f"HF {hw:.1f} s, ratio {ow / hw:.2f}x (target <= 2x); CPU ours {min(c for _, c in ours):.1f} s, "
          f"HF {min(c for _, c in hf):.1f} s, ratio {min(c for _, c in ours) / min(c for _, c in hf):.2f}x")
    print(f"  vocabularies: ours {len(a)}, HF {len(b)}, equal {set(a) == set(b)}, "
          f"overlap {len(common) / max(len(b), 1):.2%}; only ours {sorted(set(a) - set(b))[:8]}, "
          f"only HF {sorted(set(b) - set(a))[:8]}")
    print(f"  load average {load0[0]:.1f} before, {load1[0]:.1f} after (2 cores, shared)")


def bench_viterbi(folder: Path) -> None:
    from test_unigram import sentencepiece_case, viterbi_agreement
    t = time.perf_counter()
    sp, held = sentencepiece_case(folder)
    n, same_sp, same_hf = viterbi_agreement(sp, held)
    print(f"Viterbi on {n} held-out words: equal to sentencepiece {same_sp}/{n}, to HF Unigram {same_hf}/{n} "
          f"({time.perf_counter() - t:.1f} s)")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpora", default="mixed:1000000,kjv2")
    ap.add_argument("--vocab-size", type=int, default=8000)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--no-viterbi", action="store_true")
    args = ap.parse_args()
    from core.unigram import UNIGRAM_PATH
    print(f"unigram: {UNIGRAM_PATH}; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        if not args.no_viterbi:
            bench_viterbi(folder)
        for name in args.corpora.split(","):
            bench_corpus(name, args.vocab_size, args.repeat, folder)


if __name__ == "__main__":
    main()
