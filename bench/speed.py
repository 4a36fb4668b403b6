"""Benchmark (`make bench`): training speed against Hugging Face `tokenizers` on hard data, whole
processes, one table, every comparison measured in the same run with the load average printed.

    .venv/bin/python bench/speed.py [--corpus kjv2,english,mixed] [--table-rows 1000000]
                                    [--no-table] [--repeat 1] [--keep] [--before COMMIT]

8.6 MB corpora (bench/corpora.py): `kjv2` (the KJV twice, 14,599 unique GPT-2 words), `english`
(prose from installed packages' docs, docstrings and comments, not the KJV: ~45k unique words),
`mixed` (KJV with Chinese words and emoji, ~132k unique words). Per corpus, vocabulary 8,000,
tie rule hf, top_k 10, whole processes (`python -m core train FILE --model M ...`, stdout to a file):
    bbpe --json   the full JSON trace report      vs HF BpeTrainer, ByteLevel(add_prefix_space=False)
    bbpe          one line per merge               vs the same HF run
    bpe --json    (whitespace words)               vs HF BpeTrainer, WhitespaceSplit
    wordpiece --json (bert words)                  vs HF WordPieceTrainer, BertPreTokenizer
Each HF child reads the file, splits lines as docs/cli.md does, trains and saves tokenizer.json.
Table: a 1,000,000-row word-count table like the ones users bring (corpora.zipf_rows: Zipf counts,
70 % seen once, ~11 characters a word) -> 30,000 byte-level merges (vocabulary 30,256), ours
with and without --json, against HF BpeTrainer fed every word `count` times (it has no word-count
input), timed whole and from the moment its iterator has yielded the last batch ("past feeding").
Peak memory is each child's ru_maxrss (os.wait4; it includes the counting workers it waited for).
The trainer path (compiled fast path or pure Python) is printed: `python -m core info`.
With --before COMMIT the project's runs are also made with core/ at COMMIT (unpacked with `git
archive` into the temp folder, its compiled path built there by its own core/fast/build.py when it
has one), interleaved with this checkout's, so before and after share one sitting and one load;
the table then shows both.
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

VOCAB = 8000
TABLE_VOCAB = 30256
CHAR_VOCAB_MIXED = 16000


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load {one:.2f} {five:.2f} {fifteen:.2f}"


def run(argv, stdout=subprocess.DEVNULL, cwd=ROOT) -> tuple[float, int, float]:
    """Wall seconds, peak RSS (MB) and CPU seconds (user + system, with the children it waited
    for: counting workers; HF's threads) of a child; raises on failure."""
    t = time.perf_counter()
    p = subprocess.Popen(argv, cwd=cwd, stdout=stdout)
    _, status, usage = os.wait4(p.pid, 0)
    took = time.perf_counter() - t
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"failed: {' '.join(map(str, argv))}")
    return took, usage.ru_maxrss // 1024, usage.ru_utime + usage.ru_stime


# ---------------------------------------------------------------- children

def child_build(folder: str, corpora_keys: str, rows: int) -> None:
    sys.path.insert(0, str(ROOT))
    import corpora
    from core.corpus import WordCounts, write_word_count_table
    info = {}
    for key in filter(None, corpora_keys.split(",")):
        text = corpora.CORPORA[key][1]()
        Path(folder, key + ".txt").write_text(text, encoding="utf-8")
        info[key] = {"mb": len(text.encode("utf-8")) / 1e6}
    if rows:
        table = corpora.zipf_rows(rows)
        wc = WordCounts(tuple(w for w, _ in table), tuple(c for _, c in table))
        write_word_count_table(wc, Path(folder, "table.parquet"))
        info["table"] = {"rows": len(wc), "total": wc.total, "once": sum(c == 1 for c in wc.counts) / len(wc),
                         "chars": sum(map(len, wc.words)) / len(wc)}
    Path(folder, "info.json").write_text(json.dumps(info))


def child_hf(path: str, model: str, out: str, vocab: str) -> None:
    import re
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    lines = re.split(r"\r\n|\r|\n", Path(path).read_text(encoding="utf-8"))
    if model == "wordpiece":
        tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
        tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
        trainer = trainers.WordPieceTrainer(vocab_size=int(vocab), show_progress=False)
    else:
        tok = Tokenizer(models.BPE())
        kw = {}
        if model == "bbpe":
            tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
            kw["initial_alphabet"] = pre_tokenizers.ByteLevel.alphabet()
        else:
            tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
        trainer = trainers.BpeTrainer(vocab_size=int(vocab), show_progress=False, **kw)
    tok.train_from_iterator(lines, trainer=trainer)
    tok.save(out)


def child_hf_table(table: str, out: str, times: str) -> None:
    """HF BpeTrainer on a word-count table: every word fed `count` times, kept whole (bench/scale.py's)."""
    import pyarrow.parquet as pq
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    start = time.perf_counter()
    t = pq.read_table(table)
    words, counts = t.column("word").to_pylist(), t.column("count").to_pylist()
    del t
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    trainer = trainers.BpeTrainer(vocab_size=TABLE_VOCAB, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    fed = [0.0]

    def batches():
        buf: list[str] = []
        for w, c in zip(words, counts):
            buf += [w] * c
            if len(buf) >= 100_000:
                yield buf
                buf = []
        if buf:
            yield buf
        fed[0] = time.perf_counter()

    tok.train_from_iterator(batches(), trainer=trainer, length=sum(counts))
    end = time.perf_counter()
    tok.save(out)
    Path(times).write_text(json.dumps({"past_feeding": end - fed[0], "in_process": end - start}))


# ---------------------------------------------------------------- parent

def merges_of(path: Path, model: str) -> list:
    data = json.loads(path.read_text(encoding="utf-8"))
    if model == "wordpiece":
        return list(data["model"]["vocab"])
    return [tuple(m.split(" ")) if isinstance(m, str) else tuple(m) for m in data["model"]["merges"]]


def best(fn, repeat: int):
    runs = [fn() for _ in range(repeat)]
    return min(runs, key=lambda r: r[0])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", default="kjv2,english,mixed")
    ap.add_argument("--table-rows", type=int, default=1_000_000)
    ap.add_argument("--no-table", action="store_true")
    ap.add_argument("--repeat", type=int, default=1, help="interleaved runs of each (fastest kept)")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--before", metavar="COMMIT", help="also time core/ at this commit, interleaved")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench-speed-"))
    rows = 0 if args.no_table else args.table_rows
    roots = {"after": ROOT}
    if args.before:
        old = tmp / "before"
        old.mkdir()
        archive = subprocess.run(["git", "archive", args.before, "core"], cwd=ROOT, capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(old)], input=archive, check=True)
        # git archive holds no built extension: build the old core's compiled path as it would be
        # built there (its own core/fast/build.py, when it has one), so both sides run compiled
        if (old / "core" / "fast" / "build.py").exists():
            subprocess.run([PY, str(Path("core", "fast", "build.py"))], cwd=old, check=False,
                           stdout=subprocess.DEVNULL)
        roots = {"before": old, "after": ROOT}
    for label, root in roots.items():
        info_out = subprocess.run([PY, "-m", "core", "info"], cwd=root, capture_output=True, text=True).stdout.strip()
        print(f"{label}: core/ {'at ' + args.before if label == 'before' else 'of this checkout'}, "
              f"{info_out or 'trainer: pure-Python path (no `info` command then)'}", flush=True)
    path_info = subprocess.run([PY, "-m", "core", "info"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    print(f"{os.cpu_count()} cores, {load()} at start", flush=True)
    t = time.perf_counter()
    run([PY, __file__, "--child-build", str(tmp), args.corpus, str(rows)])
    info = json.loads((tmp / "info.json").read_text())
    print(f"corpora built in {time.perf_counter() - t:.1f} s (in a child, so our peak stays small)", flush=True)
    table_rows = []
    header = (f"   {'corpus':8} {'model':10} {'json':5} {'before s':>8} {'now s':>7} {'HF s':>7} {'before/HF':>9} "
              f"{'now/HF':>7} {'CPU bef/HF':>10} {'CPU now/HF':>10} {'now MB':>7} {'HF MB':>6}  same as HF  load")
    for key in filter(None, args.corpus.split(",")):
        text = tmp / f"{key}.txt"
        print(f"\n=== {key}: {info[key]['mb']:.2f} MB ({load()})", flush=True)
        hf_runs = {}
        for model, js in (("bbpe", True), ("bbpe", False), ("bpe", True), ("wordpiece", True)):
            out = tmp / f"{key}-{model}.json"
            # character models on `mixed` need more than 8,000: its alphabet alone is 8,863 symbols
            vocab = CHAR_VOCAB_MIXED if key == "mixed" and model != "bbpe" else VOCAB
            argv = [PY, "-m", "core", "train", str(text), "--model", model, "--vocab-size", str(vocab),
                    "--tie-break", "hf", "--top-k", "10", "--save", str(out)] + (["--json"] if js else [])
            if model == "wordpiece":
                argv += ["--unk-token", "[UNK]"]
            ours = {}
            with open(tmp / "stdout", "wb") as sink:
                for label, root in roots.items():
                    ours[label] = best(lambda: run(argv, stdout=sink, cwd=root), args.repeat)
            ours_s, ours_mb, ours_cpu = ours["after"]
            hf_out = tmp / f"{key}-{model}-hf.json"
            if model not in hf_runs:
                hf_runs[model] = best(lambda: run([PY, __file__, "--child-hf", str(text), model, str(hf_out), str(vocab)]),
                                      args.repeat)
            hf_s, hf_mb, hf_cpu = hf_runs[model]
            same = "-"
            if model != "wordpiece":
                same = str(merges_of(out, model) == merges_of(hf_out, model))
            before_s = ours["before"][0] if "before" in ours else None
            before_cpu = ours["before"][2] if "before" in ours else None
            row = (key, model, "yes" if js else "no", before_s, ours_s, hf_s, ours_mb, hf_mb, same, load(),
                   ours_cpu, hf_cpu, before_cpu)
            table_rows.append(row)
            print(f"   {model:10} {row[2]:5} " + (f"before {before_s:6.2f} s ({before_s / hf_s:5.2f}x), " if before_s else "")
                  + f"now {ours_s:6.2f} s, HF {hf_s:6.2f} s: {ours_s / hf_s:5.2f}x; "
                  + (f"CPU before {before_cpu:.2f} s, " if before_s else "")
                  + f"CPU {ours_cpu:.2f} s vs HF {hf_cpu:.2f} s; "
                  f"peak {ours_mb} MB (HF {hf_mb} MB); same merges as HF: {same}  ({load()})", flush=True)
    table_result = None
    if rows:
        ti = info["table"]
        table = tmp / "table.parquet"
        print(f"\n=== table: {ti['rows']:,} rows, {ti['total']:,} occurrences, {ti['once']:.0%} seen once, "
              f"{ti['chars']:.1f} characters a word -> vocabulary {TABLE_VOCAB:,} ({load()})", flush=True)
        res = {}
        for label, root in roots.items():
            for js in (False, True):
                out = tmp / f"table-{label}-{js}.json"
                argv = [PY, "-m", "core", "train", str(table), "--word-counts", "--model", "bbpe", "--vocab-size",
                        str(TABLE_VOCAB), "--tie-break", "hf", "--save", str(out)] + (["--json"] if js else [])
                with open(tmp / "stdout", "wb") as sink:
                    res[label, js] = run(argv, stdout=sink, cwd=root)
                print(f"   {label:6} {'--json' if js else '      '}: {res[label, js][0]:6.1f} s (CPU "
                      f"{res[label, js][2]:.1f} s), peak {res[label, js][1]:,} MB  ({load()})", flush=True)
        hf_out, times = tmp / "table-hf.json", tmp / "table-hf-times.json"
        hf_s, hf_mb, hf_cpu = run([PY, __file__, "--child-hf-table", str(table), str(hf_out), str(times)])
        past = json.loads(times.read_text())["past_feeding"]
        same = merges_of(tmp / "table-after-False.json", "bbpe") == merges_of(hf_out, "bbpe")
        print(f"   HF: {hf_s:6.1f} s whole (CPU {hf_cpu:.1f} s), {past:.1f} s past feeding, peak {hf_mb:,} MB; same merges: {same}  ({load()})")
        table_result = (res, hf_s, past, hf_mb, same)

    print(f"\n=== summary ({path_info}; {load()} at the end)")
    print(header)
    for r in table_rows:
        before = f"{r[3]:8.2f}" if r[3] else f"{'-':>8}"
        before_ratio = f"{r[3] / r[5]:8.2f}x" if r[3] else f"{'-':>9}"
        print(f"   {r[0]:8} {r[1]:10} {r[2]:5} {before} {r[4]:7.2f} {r[5]:7.2f} {before_ratio} {r[4] / r[5]:6.2f}x "
              + (f"{r[12] / r[11]:9.2f}x " if r[12] else f"{'-':>10} ")
              + f"{r[10] / r[11]:9.2f}x "
              f"{r[6]:7,} {r[7]:6,}  {r[8]:10} {r[9]}")
    if table_result:
        res, hf_s, past, hf_mb, same = table_result
        for label in roots:
            ours_s, ours_js = res[label, False][0], res[label, True][0]
            print(f"   table {rows:,} rows, bbpe -> {TABLE_VOCAB:,}, {label:6}: {ours_s:.1f} s ({ours_js:.1f} s --json); "
                  f"HF {hf_s:.1f} s whole, {past:.1f} s past feeding: {ours_s / hf_s:.2f}x whole "
                  f"({ours_js / hf_s:.2f}x --json), {ours_s / past:.2f}x past feeding; peak "
                  f"{max(res[label, False][1], res[label, True][1]):,} MB (HF {hf_mb:,} MB); same merges: {same}")
    if args.keep:
        print(f"kept {tmp}")
    else:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child-build":
        child_build(*sys.argv[2:5][:2], int(sys.argv[4]))
    elif len(sys.argv) > 1 and sys.argv[1] == "--child-hf":
        child_hf(*sys.argv[2:6])
    elif len(sys.argv) > 1 and sys.argv[1] == "--child-hf-table":
        child_hf_table(*sys.argv[2:5])
    else:
        main()
