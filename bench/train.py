"""Benchmark: the project's byte-level BPE trainer against Hugging Face `tokenizers` and against the
seeds' naive loop, on two 8.6 MB corpora, all measured in the same run.

    .venv/bin/python bench/train.py [--corpus kjv2,mixed] [--vocab-size 8000] [--repeat 3]
                                    [--naive-steps 3] [--no-late] [--keep]

Corpora (bench/corpora.py): `kjv2` = the King James Bible twice (14,599 unique words); `mixed` =
KJV lines with jieba dictionary words and emoji mixed in, the tests' recipe run up to 8.6 MB
(~132k unique words). Each is written once to a temp file. Byte-level BPE to an 8,000 vocabulary
with the full trace (top_k 10). For each corpus it prints:
  1. wall time of whole processes: `python -m core train FILE --model bbpe --tie-break hf ... --save`
     vs a Python process running HF BpeTrainer (read file, count, train, save), interleaved, the
     fastest of --repeat kept, and their ratio (target <= 3x, aim 1.5x); whether the two saved
     tokenizers have the same merges and ids;
  2. the project's breakdown (reading, counting words, training with tie_break hf and first, the
     setup part of training) from a separate child, fastest of --repeat interleaved runs;
  3. the time of one merge against the seeds' naive loop, literally (core/reference.py: get_stats over
     a {"Ġ t h e": count} dict, max, merge_vocab with a regex over every word), 3 merges from the
     start, checked to pick the same first merges as the trainer with tie_break first; and, unless
     --no-late, 3 naive merges from the states after half and all of the trainer's merges (a naive
     merge gets cheaper as words shrink); speed-ups for both tie rules (target >= 1000x);
     and, for scale, HF BpeTrainer's own time per merge measured the same way (its training time to
     the full vocabulary less a 1-merge run's);
  4. peak memory (ru_maxrss) of the project's process (target < 1 GB).
This machine is shared (2 cores, other engineers' test runs): every time is the fastest of
interleaved runs and the load average is printed. Never used as a test: timings go to the terminal.
"""
from __future__ import annotations

import argparse
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
sys.path.insert(0, str(Path(__file__).resolve().parent))


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f}"


# ---------------------------------------------------------------- children

def child_hf(path: str, out: str, vocab_size: int) -> None:
    """A whole HF run: read, pre-tokenize and count, train, save tokenizer.json."""
    import re
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    text = Path(path).read_text(encoding="utf-8")
    lines = re.split(r"\r\n|\r|\n", text)  # docs/cli.md's default: lines without their breaks
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  show_progress=False)
    tok.train_from_iterator(lines, trainer=trainer)
    tok.save(out)


def child_hf_per_merge(path: str, vocab_size: int, repeat: int, out: str) -> None:
    """HF BpeTrainer's own time per merge, measured as the project's: train_from_iterator to the
    full vocabulary and to the alphabet plus one merge (its setup: counting, pair counts), fastest
    of `repeat` interleaved, in one process."""
    import re
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    lines = re.split(r"\r\n|\r|\n", Path(path).read_text(encoding="utf-8"))

    def timed(size: int) -> tuple[float, int]:
        tok = Tokenizer(models.BPE())
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        trainer = trainers.BpeTrainer(vocab_size=size, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                      show_progress=False)
        t = time.perf_counter()
        tok.train_from_iterator(lines, trainer=trainer)
        return time.perf_counter() - t, tok.get_vocab_size()

    full, one, merges = [], [], 0
    for _ in range(repeat):
        t, size = timed(vocab_size)
        full.append(t)
        merges = size - 256
        one.append(timed(257)[0])
    Path(out).write_text(json.dumps({"full": min(full), "one": min(one), "merges": merges}))


def child_corpus(key: str, out: str, info: str) -> None:
    from corpora import CORPORA
    text = CORPORA[key][1]()
    Path(out).write_text(text, encoding="utf-8")
    Path(info).write_text(json.dumps({"chars": len(text), "lines": text.count("\n")}))


def _split_after(trace, merges: int, byte_words: list[str]) -> list[list[str]]:
    """Each byte-level word split as after the trace's first `merges` merges (HF's BPE model applies
    them by rank, which equals applying them in learned order on trained merges)."""
    from tokenizers import Tokenizer, models
    n_base = len(trace.vocab) - len(trace.steps)
    vocab = {t: i for i, t in enumerate(trace.vocab[:n_base + merges])}
    tok = Tokenizer(models.BPE(vocab=vocab, merges=[tuple(m) for m in trace.merges[:merges]]))
    return [e.tokens for e in tok.encode_batch(byte_words)]


def child_breakdown(path: str, vocab_size: int, naive_steps: int, repeat: int, late: bool, out: str) -> None:
    """The project's run in parts (library calls, as the CLI makes them), then the naive loop."""
    import resource
    sys.path.insert(0, str(ROOT))
    from core import reference as naive
    t0 = time.perf_counter()
    from core.bytelevel import to_byte_chars
    from core.corpus import count_words
    from core.trainer import TrainConfig, train
    t1 = time.perf_counter()
    text = Path(path).read_bytes().decode("utf-8")
    t2 = time.perf_counter()
    res: dict = {"import": t1 - t0, "read": t2 - t1}
    count_t, train_t, setup_t, traces = [], {"hf": [], "first": []}, {"hf": [], "first": []}, {}
    for _ in range(repeat):
        s = time.perf_counter()
        wc = count_words(text, "gpt2")
        count_t.append(time.perf_counter() - s)
        for rule in ("hf", "first"):
            traces.pop(rule, None)
            s = time.perf_counter()
            traces[rule] = train(wc, TrainConfig(model="bbpe", vocab_size=vocab_size, tie_break=rule, top_k=10))
            train_t[rule].append(time.perf_counter() - s)
            s = time.perf_counter()  # setup alone (initial splits, pair counts, heap): a 1-merge run
            train(wc, TrainConfig(model="bbpe", vocab_size=257, tie_break=rule, top_k=10))
            setup_t[rule].append(time.perf_counter() - s)
    res["rss_self_kb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    res["rss_workers_kb"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    res.update(count=count_t, train=train_t, setup=setup_t, unique_words=len(wc), words=wc.total)
    for rule, tr in traces.items():
        steps = tr.steps
        res[rule] = {"merges": len(steps), "ties": sum(s.tied > 1 for s in steps),
                     "touched": sum(s.changed_words_total for s in steps),
                     "first_merges": [list(p) for p in tr.merges[:naive_steps]]}

    # the seeds' loop on the same words, byte-level, in the same (first-appearance) order
    byte_words = [to_byte_chars(w) for w in wc.words]
    points = [("start", 0)]
    if late:
        m = len(traces["hf"].steps)
        points += [("middle", m // 2), ("end", m)]
    res["naive"] = {}
    for name, after in points:
        if after == 0:
            vocab = naive.byte_level_vocab(wc.words, wc.counts, to_byte_chars)
        else:
            splits = _split_after(traces["hf"], after, byte_words)
            vocab = {" ".join(sp): c for sp, c in zip(splits, wc.counts)}
            assert len(vocab) == len(wc)
            if after == len(traces["hf"].steps):  # the state matches the trainer's final one
                assert sum(len(sp) * c for sp, c in zip(splits, wc.counts)) == traces["hf"].steps[-1].total_tokens
        best: list[float] = []
        for _ in range(repeat):  # each step's fastest of `repeat` runs from the same state
            times, picks, _v = naive.timed_merges(vocab, naive_steps)
            best = times if not best else [min(a, b) for a, b in zip(best, times)]
        res["naive"][name] = {"after": after, "times": best, "picks": [list(p) for p in picks],
                              "symbols": sum(len(w.split()) for w in vocab)}
        del vocab
    Path(out).write_text(json.dumps(res))


# ---------------------------------------------------------------- parent

def run(argv, **kw) -> tuple[float, int, int]:
    """(wall seconds, exit status, peak RSS in kB of the child or its largest descendant)."""
    t = time.perf_counter()
    p = subprocess.Popen(argv, cwd=ROOT, **kw)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    p.returncode = os.waitstatus_to_exitcode(status)
    return wall, p.returncode, usage.ru_maxrss


def bench_corpus(key: str, args, tmp: Path) -> dict:
    from corpora import CORPORA
    label = CORPORA[key][0]
    corpus, info = tmp / f"{key}.txt", tmp / f"{key}.json"
    # made in a child: a child's ru_maxrss starts at its parent's peak (Linux carries it over
    # fork/exec), so this process stays small and never holds a corpus
    subprocess.run([PY, str(Path(__file__).resolve()), "--child-corpus", key, str(corpus), str(info)], check=True)
    stats = json.loads(info.read_text())
    size = corpus.stat().st_size
    print(f"\n=== corpus {key}: {label}: {size / 1e6:.2f} MB, {stats['chars']:,} characters, "
          f"{stats['lines']:,} lines ({load()})")

    ours_json, hf_json = tmp / f"{key}-ours.json", tmp / f"{key}-hf.json"
    cli = [PY, "-m", "core", "train", str(corpus), "--model", "bbpe", "--vocab-size", str(args.vocab_size),
           "--tie-break", "hf", "--top-k", "10", "--save", str(ours_json)]
    hf = [PY, str(Path(__file__).resolve()), "--child-hf", str(corpus), str(hf_json), str(args.vocab_size)]
    ours_t, hf_t, ours_rss, hf_rss = [], [], 0, 0
    for _ in range(args.repeat):
        t, rc, rss = run(hf, stdout=subprocess.DEVNULL)
        assert rc == 0, "HF child failed"
        hf_t.append(t)
        hf_rss = max(hf_rss, rss)
        t, rc, rss = run(cli, stdout=subprocess.DEVNULL)
        assert rc == 0, "python -m core train failed"
        ours_t.append(t)
        ours_rss = max(ours_rss, rss)

    bd_json = tmp / f"{key}-breakdown.json"
    _t, rc, bd_rss = run([PY, str(Path(__file__).resolve()), "--child-breakdown", str(corpus), str(args.vocab_size),
                          str(args.naive_steps), str(args.repeat), "0" if args.no_late else "1", str(bd_json)])
    assert rc == 0, "breakdown child failed"
    bd = json.loads(bd_json.read_text())
    hf_pm_json = tmp / f"{key}-hf-per-merge.json"
    _t, rc, _rss = run([PY, str(Path(__file__).resolve()), "--child-hf-per-merge", str(corpus), str(args.vocab_size),
                        str(args.repeat), str(hf_pm_json)])
    assert rc == 0, "HF per-merge child failed"
    hf_pm = json.loads(hf_pm_json.read_text())

    print("1. whole processes (read file, count words, train, save tokenizer.json), fastest of "
          f"{args.repeat} interleaved")
    print(f"   project  (python -m core train ... --save):       {min(ours_t):7.2f} s   "
          + " ".join(f"{x:.2f}" for x in ours_t))
    print(f"   HF tokenizers BpeTrainer (train_from_iterator):  {min(hf_t):7.2f} s   "
          + " ".join(f"{x:.2f}" for x in hf_t))
    ratio = min(ours_t) / min(hf_t)
    print(f"   ratio project / HF: {ratio:.2f}x   (target <= 3x, aim 1.5x): {'OK' if ratio <= 3 else 'OVER TARGET'}")
    mo, mh = json.loads(ours_json.read_text())["model"], json.loads(hf_json.read_text())["model"]
    same_merges = [list(m) for m in mo["merges"]] == [list(m) if isinstance(m, list) else m.split(" ")
                                                      for m in mh["merges"]]
    same = same_merges and mo["vocab"] == mh["vocab"]
    print(f"   same merges and ids as HF: {same} ({len(mo['merges']):,} merges)")

    print(f"2. the project's breakdown (separate process, library calls, fastest of {args.repeat})")
    count = min(bd["count"])
    print(f"   import core {bd['import']:.2f} s, read {bd['read']:.2f} s, count words {count:.2f} s "
          f"({bd['words']:,} words, {bd['unique_words']:,} unique)")
    per, marg = {}, {}
    for rule in ("hf", "first"):
        r = bd[rule]
        tr, su = min(bd["train"][rule]), min(bd["setup"][rule])
        per[rule] = tr / r["merges"]
        marg[rule] = (tr - su) / max(r["merges"] - 1, 1)
        print(f"   train, tie_break {rule:5}: {tr:6.2f} s ({r['merges']:,} merges, {r['ties']:,} tied at the top, "
              f"{r['touched'] / r['merges']:.0f} words changed per merge); setup (a 1-merge run) {su:.2f} s, "
              f"then {marg[rule] * 1e6:.0f} us per merge")

    print("3. per merge against the seeds' naive loop (core/reference.py: get_stats + max + merge_vocab, "
          f"{bd['unique_words']:,} words), fastest of {args.repeat}")
    nv = bd["naive"]
    start = nv["start"]
    n_start = sum(start["times"]) / len(start["times"])
    same_first = start["picks"] == bd["first"]["first_merges"]
    same_hf = start["picks"] == bd["hf"]["first_merges"]
    picks = ", ".join("(" + " ".join(p) + ")" for p in start["picks"])
    print(f"   naive, first {len(start['times'])} merges: {n_start * 1e3:.0f} ms per merge "
          f"({', '.join(f'{x * 1e3:.0f}' for x in start['times'])} ms; picks {picks}; same first merges as the "
          f"trainer with tie_break first: {same_first}, with hf: {same_hf})")
    n_run = None
    if "end" in nv:
        mid, end = nv["middle"], nv["end"]
        n_mid = sum(mid["times"]) / len(mid["times"])
        n_end = sum(end["times"]) / len(end["times"])
        n_run = (n_start + 2 * n_mid + n_end) / 4  # trapezoid over start, middle, end
        print(f"   naive, {len(mid['times'])} merges after the trainer's first {mid['after']:,}: {n_mid * 1e3:.0f} ms; "
              f"after all {end['after']:,}: {n_end * 1e3:.0f} ms per merge ({start['symbols']:,} -> "
              f"{mid['symbols']:,} -> {end['symbols']:,} symbols); over the run about {n_run * 1e3:.0f} ms "
              "(trapezoid over the three)")
    speed = {}
    for rule in ("hf", "first"):
        speed[rule] = n_start / per[rule]
        line = (f"   project, tie_break {rule:5}: {per[rule] * 1e6:5.0f} us per merge (training time / merges, "
                f"setup included): {speed[rule]:,.0f}x the naive's first merges, {n_start / marg[rule]:,.0f}x "
                "without the setup")
        if n_run:
            line += f"; {n_run / per[rule]:,.0f}x over the run"
        ok = speed[rule] >= 1000
        print(line + f"   (target >= 1000x): {'OK' if ok else 'UNDER TARGET'}")
    hf_merge = (hf_pm["full"] - hf_pm["one"]) / max(hf_pm["merges"] - 1, 1)
    print(f"   for scale, HF BpeTrainer (Rust) measured the same way: train_from_iterator {hf_pm['full']:.2f} s to "
          f"{hf_pm['merges']:,} merges, {hf_pm['one']:.2f} s to 1 (counting and setup), so {hf_merge * 1e6:.0f} us per "
          f"merge: {n_start / hf_merge:,.0f}x the naive's first merges, without its setup")

    print("4. peak memory (ru_maxrss)")
    print(f"   project (python -m core train, largest of the process and its counting workers): {ours_rss / 1024:.0f} MB"
          f"   (target < 1 GB): {'OK' if ours_rss < 1024 * 1024 else 'OVER TARGET'};  HF process: {hf_rss / 1024:.0f} MB")
    print(f"   breakdown child: {bd['rss_self_kb'] / 1024:.0f} MB (two traces held at once; its counting workers, "
          "forked after a training, start at its peak and are not shown)")
    return {"key": key, "mb": size / 1e6, "unique": bd["unique_words"], "ratio": ratio, "same": same,
            "speed": speed, "rss": ours_rss}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", default="kjv2,mixed", help="comma-separated: kjv2, mixed")
    ap.add_argument("--vocab-size", type=int, default=8000)
    ap.add_argument("--repeat", type=int, default=3, help="runs of each measurement, interleaved "
                    "(the fastest is kept: the machine is shared)")
    ap.add_argument("--naive-steps", type=int, default=3)
    ap.add_argument("--no-late", action="store_true", help="skip the naive merges from mid- and end-of-training states")
    ap.add_argument("--keep", action="store_true", help="keep the temp folder (corpora, tokenizer.json files)")
    args = ap.parse_args()

    from corpora import CORPORA
    keys = [k.strip() for k in args.corpus.split(",") if k.strip()]
    for k in keys:
        if k not in CORPORA:
            ap.error(f"unknown corpus {k!r}: choose from {', '.join(CORPORA)}")
    tmp = Path(tempfile.mkdtemp(prefix="bench-train-"))
    print(f"task: byte-level BPE (gpt2 pre-tokenizer), vocabulary {args.vocab_size:,}, top_k 10; "
          f"{os.cpu_count()} cores, {load()} at start")
    print("the machine is shared with other test runs: each time is the fastest of "
          f"{args.repeat} interleaved runs; the load average is printed as we go")
    rows = [bench_corpus(k, args, tmp) for k in keys]
    import resource
    print(f"\n(this bench's own process peaked at {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB: "
          "a floor under every child's ru_maxrss, which Linux starts at the parent's peak)")

    print(f"\n=== summary ({load()} at the end)")
    print("   corpus   MB    unique words  project/HF  same as HF  per-merge speed-up hf / first  peak MB")
    for r in rows:
        print(f"   {r['key']:6} {r['mb']:5.2f} {r['unique']:13,}  {r['ratio']:9.2f}x  {str(r['same']):>10}  "
              f"{r['speed']['hf']:14,.0f}x / {r['speed']['first']:,.0f}x  {r['rss'] / 1024:10.0f}")
    if args.keep:
        print(f"files kept in {tmp}")
    else:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child-corpus":
        child_corpus(sys.argv[2], sys.argv[3], sys.argv[4])
    elif len(sys.argv) > 1 and sys.argv[1] == "--child-hf-per-merge":
        child_hf_per_merge(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5])
    elif len(sys.argv) > 1 and sys.argv[1] == "--child-hf":
        child_hf(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    elif len(sys.argv) > 1 and sys.argv[1] == "--child-breakdown":
        child_breakdown(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6] == "1",
                        sys.argv[7])
    else:
        main()
