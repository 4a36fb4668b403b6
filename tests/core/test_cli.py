"""`python -m core` as docs/cli.md specifies it: the seeds' worked examples end to end (their
expected output written out here, so the tests need nothing outside the repository), and
one-line errors."""
import csv
import json
import os
import subprocess
import sys

import pytest

from tests.support import ROOT


SEED_001 = "\n".join(["This is the Hugging Face Course.", "This chapter is about tokenization.",
                      "This section shows several tokenizer algorithms.",
                      "Hopefully, you will be able to understand how they are trained and generate tokens."]) + "\n"
SEED_003 = "\n".join(["我", "喜欢", "吃", "苹果", "他", "不", "喜欢", "吃", "苹果派", "I like to eat apples",
                      "She has a cute cat", "you are very cute", "give you a hug"]) + "\n"
SEED_004 = [("low", 5), ("lower", 2), ("newest", 6), ("widest", 3)]


def run(*args, stdin=None, input_bytes=None):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    p = subprocess.run([sys.executable, "-m", "core", *map(str, args)], cwd=ROOT, env=env,
                       input=input_bytes if input_bytes is not None else (stdin or "").encode("utf-8"),
                       capture_output=True, timeout=300)
    return p.returncode, p.stdout.decode("utf-8"), p.stderr.decode("utf-8")


def ok_json(*args, stdin=None):
    code, out, err = run(*args, "--json", stdin=stdin)
    assert code == 0, err
    assert err == "", f"stderr must stay empty on success: {err!r}"
    return json.loads(out)


def table(tmp_path, rows, name="wc.csv"):
    p = tmp_path / name
    with open(p, "w", newline="", encoding="utf8") as f:
        w = csv.writer(f)
        w.writerow(["word", "count"])
        w.writerows(rows)
    return p


def test_seed_000_merges_ties_and_encoding(tmp_path):
    text = "highest higher lower lowest cooler coolest"
    r = ok_json("train", "-", "--model", "bpe", "--end-of-word", "symbol", "--pre-tokenizer", "whitespace",
                "--vocab-size", "17", "--tie-break", "first", "--save", tmp_path / "s.json", stdin=text)
    assert [(m["token"], m["count"], m["tied"]) for m in r["merges"]] == \
        [("es", 3, 5), ("est", 3, 4), ("est</w>", 3, 3), ("er", 3, 2), ("er</w>", 3, 1)]
    assert r["score_rule"] is None and r["model"] == "bpe" and r["tie_break"] == "first"
    assert r["merges"][0]["candidates"][0]["pair"] == ["e", "s"]
    enc = ok_json("encode", "--tokenizer", tmp_path / "s.json", text)
    assert enc["tokens"] == ['h', 'i', 'g', 'h', 'est</w>', 'h', 'i', 'g', 'h', 'er</w>', 'l', 'o', 'w', 'er</w>',
                             'l', 'o', 'w', 'est</w>', 'c', 'o', 'o', 'l', 'er</w>', 'c', 'o', 'o', 'l', 'est</w>']
    # `</w>` covers nothing: [end, end] of its word
    assert enc["offsets"][4] == [4, 7] and enc["offsets"][:4] == [[0, 1], [1, 2], [2, 3], [3, 4]]


def test_seed_001_bpe_over_gpt2_and_bbpe(tmp_path):
    r = ok_json("train", "--model", "bpe", "--pre-tokenizer", "gpt2", "--special-tokens", "<|endoftext|>",
                "--vocab-size", "50", "--tie-break", "first", "--save", tmp_path / "s.json", stdin=SEED_001)
    merges = [("Ġt", 7), ("is", 5), ("er", 5), ("Ġa", 5), ("Ġto", 4), ("en", 4), ("Th", 3), ("This", 3), ("ou", 3),
              ("se", 3), ("Ġtok", 3), ("Ġtoken", 3), ("nd", 3), ("Ġis", 2), ("Ġth", 2), ("Ġthe", 2), ("in", 2),
              ("Ġab", 2), ("Ġtokeni", 2)]
    assert [(m["token"], m["count"]) for m in r["merges"]] == merges
    assert len(r["vocab"]) == 50 and r["vocab"]["<|endoftext|>"] == 0
    enc = ok_json("encode", "--tokenizer", tmp_path / "s.json", "This is the Hugging Face Course.")
    assert enc["tokens"] == ['This', 'Ġis', 'Ġthe', 'Ġ', 'H', 'u', 'g', 'g', 'in', 'g', 'Ġ', 'F', 'a', 'c', 'e',
                             'Ġ', 'C', 'ou', 'r', 'se', '.']
    r = ok_json("train", "--model", "bbpe", "--special-tokens", "<|endoftext|>", "--vocab-size", "280",
                "--tie-break", "first", stdin=SEED_001)
    assert [(m["token"], m["count"]) for m in r["merges"]] == \
        merges + [("Ġtokeniz", 2), ("at", 2), ("io", 2), ("ion", 2)]
    assert len(r["alphabet"]) == 256


def test_seed_003_chinese_and_english():
    r = ok_json("train", "--model", "bpe", "--pre-tokenizer", "whitespace", "--vocab-size", "50",
                "--tie-break", "first", stdin=SEED_003)
    assert [m["token"] for m in r["merges"]] == \
        ['喜欢', '苹果', 'at', 'cu', 'cut', 'cute', 'yo', 'you', 've', '苹果派', 'li', 'lik', 'like', 'to', 'eat',
         'ap', 'app', 'appl', 'apple', 'apples', 'Sh', 'She', 'ha']


def test_seed_004_word_counts(tmp_path):
    wc = table(tmp_path, SEED_004)
    r = ok_json("train", wc, "--word-counts", "--model", "bpe", "--vocab-size", "13")
    assert [(m["token"], m["count"]) for m in r["merges"]] == [("es", 9), ("est", 9), ("lo", 7)]
    r = ok_json("train", wc, "--word-counts", "--model", "bpe", "--end-of-word", "symbol", "--vocab-size", "14")
    assert [(m["token"], m["count"]) for m in r["merges"]] == [("es", 9), ("est", 9), ("est</w>", 9)]
    r = ok_json("train", wc, "--word-counts", "--model", "wordpiece", "--score", "likelihood", "--vocab-size", "15")
    assert [(m["token"], m["count"], round(m["score"], 4), m["tied"]) for m in r["merges"]] == \
        [("wi", 3, 0.3333, 2), ("wid", 3, 0.3333, 1), ("lo", 7, 0.1429, 1), ("##st", 9, 0.1111, 1)]
    assert r["score_rule"] == "likelihood"
    r = ok_json("train", wc, "--word-counts", "--model", "wordpiece", "--score", "likelihood", "--vocab-size", "16",
                "--unk-token", "[UNK]", "--pre-tokenizer", "bert", "--save", tmp_path / "wp.json")
    assert [m["token"] for m in r["merges"]] == ["wi", "wid", "lo", "##st"]
    enc = ok_json("encode", "--tokenizer", tmp_path / "wp.json", "estimate, local, lows")
    assert enc["tokens"] == ['[UNK]', '[UNK]', '[UNK]', '[UNK]', 'lo', '##w', '##s']
    # BPE gives one unknown token per character outside the vocabulary (seed 004's rule; its printed
    # example shows 'a' for "estimate" although 'a' is not in its vocabulary)
    ok_json("train", wc, "--word-counts", "--model", "bpe", "--vocab-size", "14", "--unk-token", "[UNK]",
            "--save", tmp_path / "bpe.json")
    enc = ok_json("encode", "--tokenizer", tmp_path / "bpe.json", "estimate, local")
    assert enc["tokens"] == ['est', 'i', '[UNK]', '[UNK]', 't', 'e', '[UNK]', 'lo', '[UNK]', '[UNK]', 'l']


def test_word_counts_frequency_score_names_itself(tmp_path):
    r = ok_json("train", table(tmp_path, SEED_004), "--word-counts", "--model", "wordpiece", "--score", "frequency",
                "--vocab-size", "14")
    assert r["score_rule"] == "frequency"
    assert all(m["score"] == m["count"] for m in r["merges"])


def test_encode_decode_round_trip_and_post_processor(tmp_path):
    text = "Hello, wörld! 我喜欢苹果 😀\n\tend  "
    ok_json("train", "--model", "bbpe", "--vocab-size", "300", "--save", tmp_path / "b.json", stdin=text * 3)
    enc = ok_json("encode", "--tokenizer", tmp_path / "b.json", stdin=text)
    code, out, err = run("decode", *enc["ids"], "--tokenizer", tmp_path / "b.json")
    assert code == 0 and err == "" and out == text + "\n"
    wc = table(tmp_path, SEED_004)
    ok_json("train", wc, "--word-counts", "--model", "wordpiece", "--vocab-size", "20", "--special-tokens",
            "[PAD],[CLS],[SEP]", "--unk-token", "[UNK]", "--save", tmp_path / "w.json")
    enc = ok_json("encode", "--tokenizer", tmp_path / "w.json", "lowest", "--add-special-tokens", "--pair", "low")
    assert enc["tokens"][0] == "[CLS]" and enc["tokens"].count("[SEP]") == 2
    assert enc["attention_mask"] == [1] * len(enc["ids"])
    sep = enc["tokens"].index("[SEP]")
    assert enc["token_type_ids"] == [0] * (sep + 1) + [1] * (len(enc["ids"]) - sep - 1)
    assert enc["offsets"][0] == [0, 0]


def test_pretrained_listing_and_reference_ids():
    code, out, err = run("pretrained")
    assert code == 0 and err == ""
    names = out.split()
    for name in ("gpt2", "cl100k_base", "o200k_base", "bert-base-uncased"):
        assert name in names
    want = {"gpt2": [15496, 11, 995, 0], "cl100k_base": [9906, 11, 1917, 0], "o200k_base": [13225, 11, 2375, 0],
            "bert-base-uncased": [7592, 1010, 2088, 999]}
    for name, ids in want.items():
        assert ok_json("encode", "--pretrained", name, "Hello, world!")["ids"] == ids


def test_jieba_stays_quiet():
    r = ok_json("train", "--model", "bpe", "--pre-tokenizer", "jieba", "--vocab-size", "60", stdin=SEED_003 * 2)
    assert r["merges"]


BAD = [
    ("empty corpus", ["train", "--model", "bpe", "--vocab-size", "10"], b""),
    ("whitespace only", ["train", "--model", "bpe", "--vocab-size", "10"], b"  \n\t \n"),
    ("below the alphabet", ["train", "--model", "bpe", "--vocab-size", "3"], b"hello world"),
    ("absurd vocab", ["train", "--model", "bpe", "--vocab-size", "1000000000"], b"hello world"),
    ("negative vocab", ["train", "--model", "bpe", "--vocab-size", "-5"], b"hello world"),
    ("not a number", ["train", "--model", "bpe", "--vocab-size", "many"], b"hello world"),
    ("binary", ["train", "--model", "bpe", "--vocab-size", "50"], bytes(range(256)) * 40),
    ("invalid utf-8", ["train", "--model", "bpe", "--vocab-size", "50"], b"caf\xe9 au lait"),
    ("unknown model", ["train", "--model", "unigram", "--vocab-size", "50"], b"hello"),
    ("missing model", ["train", "--vocab-size", "50"], b"hello"),
    ("unknown pretrained", ["encode", "--pretrained", "gpt-7", "hi"], b""),
    ("missing tokenizer file", ["encode", "--tokenizer", "/nonexistent/tok.json", "hi"], b""),
    ("decode not an id", ["decode", "x1", "--pretrained", "gpt2"], b""),
    ("decode out of range", ["decode", "99999999", "--pretrained", "gpt2"], b""),
    ("decode negative id", ["decode", "--pretrained", "gpt2", "--", "-1"], b""),
]


@pytest.mark.parametrize("name,args,stdin", BAD, ids=[b[0] for b in BAD])
def test_bad_input_is_one_line_exit_2(name, args, stdin):
    code, out, err = run(*args, input_bytes=stdin)
    assert code == 2, (name, out, err)
    assert "Traceback" not in err and err.endswith("\n") and err.count("\n") == 1, err
    assert out == ""


def test_bad_tables_and_files(tmp_path):
    missing = tmp_path / "missing.csv"
    missing.write_text("word\nlow\n", encoding="utf8")
    negative = table(tmp_path, [("low", 5), ("lower", -2)], "neg.csv")
    no_header = tmp_path / "nohead.csv"
    no_header.write_text("low,5\nlower,2\n", encoding="utf8")
    corrupt = tmp_path / "corrupt.json"
    corrupt.write_text('{"model": {"type": "BPE", "vocab": ', encoding="utf8")
    foreign = tmp_path / "foreign.json"
    foreign.write_text('{"hello": "world"}', encoding="utf8")
    for args in (["train", missing, "--word-counts", "--model", "bpe", "--vocab-size", "20"],
                 ["train", negative, "--word-counts", "--model", "bpe", "--vocab-size", "20"],
                 ["train", no_header, "--word-counts", "--model", "bpe", "--vocab-size", "20"],
                 ["encode", "--tokenizer", corrupt, "hi"],
                 ["encode", "--tokenizer", foreign, "hi"]):
        code, out, err = run(*args)
        assert code == 2 and err.count("\n") == 1 and "Traceback" not in err, (args, err)


def test_text_without_unknown_token_is_refused_naming_it(tmp_path):
    ok_json("train", "--model", "bpe", "--vocab-size", "12", "--save", tmp_path / "t.json", stdin="abc abd")
    code, out, err = run("encode", "--tokenizer", tmp_path / "t.json", "abz")
    assert code == 2 and "'z'" in err and err.count("\n") == 1
    ok_json("train", "--model", "wordpiece", "--vocab-size", "12", "--save", tmp_path / "w.json", stdin="abc abd")
    code, out, err = run("encode", "--tokenizer", tmp_path / "w.json", "abz")
    assert code == 2 and "'abz'" in err


def test_json_lines_are_the_same_json_whichever_encoder_writes_them(capsysbinary):
    """--json goes through orjson; what it refuses (a lone surrogate, a count past 64 bits) through
    the standard library: either way one line that reads back as the object."""
    from core import cli
    plain = {"vocab": {"Ġlow": 0, "é": 1}, "score": 0.1, "merges": [[1, 2]]}
    cli._write_json(plain)
    cli._write_json({"count": 2 ** 70})
    first, second = capsysbinary.readouterr().out.decode("utf-8").splitlines()
    assert json.loads(first) == plain and json.loads(second) == {"count": 2 ** 70}
    cli._write_json({"token": "a\udcff"})
    out = capsysbinary.readouterr().out
    assert out.endswith(b"\n") and json.loads(out.decode("utf-8", "surrogateescape")) == {"token": "a\udcff"}


def run_sh(redirect, *args):
    """The CLI with a shell redirection applied to it (`<&-`, `>&-`, `>/dev/full`): (status, stdout, stderr)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    p = subprocess.run(["sh", "-c", f'exec "$@" {redirect}', "sh", sys.executable, "-m", "core", *map(str, args)],
                       cwd=ROOT, env=env, capture_output=True, timeout=300)
    return p.returncode, p.stdout.decode("utf-8"), p.stderr.decode("utf-8")


@pytest.mark.parametrize("args", [["encode", "--pretrained", "gpt2"], ["train", "--model", "bpe", "--vocab-size", "10"]])
def test_closed_standard_input_is_an_error_not_an_internal_one(args):
    # was: internal error (AttributeError: 'NoneType' object has no attribute 'buffer'); please report it
    code, out, err = run_sh("<&-", *args)
    assert (code, out) == (2, "")
    assert err == "error: standard input is closed: give a file, or pipe the text in\n"


@pytest.mark.parametrize("redirect,args,why", [
    (">&-", ["encode", "hi", "--pretrained", "gpt2"], "standard output is closed"),
    (">&-", ["train", "--model", "bpe", "--vocab-size", "12", "--json"], "standard output is closed"),
    (">/dev/full", ["encode", "hi", "--pretrained", "gpt2"], "No space left on device"),
    (">/dev/full", ["train", "--model", "bpe", "--vocab-size", "12"], "No space left on device"),
    (">/dev/full", ["train", "--model", "bpe", "--vocab-size", "12", "--json"], "No space left on device")])
def test_output_that_cannot_be_written_is_one_line_not_a_bug_report(redirect, args, why):
    # was: >&- an AttributeError traceback from __main__'s flush (exit 1); >/dev/full
    # 'internal error (OSError: [Errno 28] No space left on device); please report it'
    code, out, err = run_sh(f"{redirect} <<'END'\nhello world hello there\nEND\n", *args)
    assert (code, err) == (2, f"error: cannot write the output: {why}\n")


def test_closed_standard_output_is_fine_when_nothing_goes_there(tmp_path):
    (tmp_path / "a.txt").write_text("the cat sat\n", encoding="utf-8")
    code, out, err = run_sh(">&-", "count", tmp_path / "a.txt", "--out", tmp_path / "c.csv")
    assert (code, err) == (0, "") and (tmp_path / "c.csv").read_bytes() == b"word,count\r\nthe,1\r\ncat,1\r\nsat,1\r\n"


def test_ctrl_c_while_the_modules_load_is_one_line():
    """Ctrl+C in the first tenth of a second (imports) printed a KeyboardInterrupt traceback. Here
    the keypress (SIGINT) comes exactly when core.cli starts loading."""
    script = ("import os, runpy, signal, sys, time\n"
              "class Interrupt:\n"
              "    def find_spec(self, name, path=None, target=None):\n"
              "        if name == 'core.cli':\n"
              "            os.kill(os.getpid(), signal.SIGINT)\n"
              "            time.sleep(5)\n"
              "sys.meta_path.insert(0, Interrupt())\n"
              "sys.argv = ['python -m core', 'pretrained']\n"
              "runpy.run_module('core', run_name='__main__', alter_sys=True)\n")
    p = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                       capture_output=True, timeout=300)
    assert (p.returncode, p.stdout, p.stderr) == (2, b"", b"interrupted\n")


def test_count_reads_files_as_train_does(tmp_path):
    """count refused nothing train refuses and kept a byte order mark in the first word ('\\ufeffthe');
    a file it could not read was 'internal error (OSError ...); please report it'."""
    bom = tmp_path / "bom.txt"
    bom.write_bytes(b"\xef\xbb\xbfthe cat\r\nthe dog\n")
    code, out, err = run("count", bom, "--out", tmp_path / "c.csv")
    assert (code, out, err) == (0, "", "")
    assert (tmp_path / "c.csv").read_bytes() == b"word,count\r\nthe,2\r\ncat,1\r\ndog,1\r\n"
    from core.corpus import decode_text
    from core.scale import read_chunks
    assert "".join(read_chunks(bom, chunk_bytes=4)) == decode_text(bom.read_bytes())
    binary = tmp_path / "nul.txt"
    binary.write_bytes(b"the\0cat\nthe dog\n")
    unreadable = "/proc/self/mem"   # opens, then every read fails (EIO), even for root
    for path, message in ((binary, f"{binary} looks like a binary file, not text: give a UTF-8 text file"),
                          (tmp_path, f"cannot read {tmp_path}: Is a directory"),
                          *([(unreadable, f"cannot read {unreadable}: Input/output error")]
                            if os.path.exists(unreadable) else [])):
        for workers in ("1", "2"):
            code, out, err = run("count", path, "--out", tmp_path / "x.csv", "--workers", workers)
            assert (code, out, err) == (2, "", f"error: {message}\n"), (path, workers)
        if path != tmp_path:
            code, out, err = run("train", path, "--model", "bpe", "--vocab-size", "10")
            assert code == 2 and err == f"error: {message}\n"


def run_raw(*args: bytes):
    """The CLI with arguments given as raw bytes (not necessarily UTF-8)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    p = subprocess.run([sys.executable.encode(), b"-m", b"core", *args], cwd=ROOT, env=env,
                       input=b"hello world", capture_output=True, timeout=300)
    return p.returncode, p.stdout.decode("utf-8"), p.stderr.decode("utf-8")


@pytest.mark.parametrize("args,label,offset", [
    ([b"encode", b"caf\xe9", b"--pretrained", b"gpt2"], "the TEXT argument", 3),
    ([b"encode", b"hi", b"--pair", b"\xff", b"--pretrained", b"gpt2"], "--pair", 0),
    ([b"train", b"--model", b"bpe", b"--vocab-size", b"20", b"--unk-token", b"caf\xe9", b"--save", b"x.json"],
     "--unk-token", 3),
    ([b"train", b"--model", b"bbpe", b"--vocab-size", b"300", b"--special-tokens", b"<s>,\xe9", b"--json"],
     "--special-tokens", 4)])
def test_text_options_that_are_not_utf8_are_refused_like_a_file(args, label, offset):
    # was: encode printed 'ï¿½' for the byte (exit 0), --special-tokens went into the trace as '\ufffd',
    # --unk-token with --save 'internal error (TypeError: failed to extract enum PyVocab ...'
    code, out, err = run_raw(*args)
    assert (code, out) == (2, "")
    assert err == f"error: {label} is not valid UTF-8 (bad byte at offset {offset}): give it in UTF-8\n"


@pytest.mark.parametrize("args,prefix", [
    (["decode", "15496", "--pretrained", "gpt2", "--json"], "python -m core decode: unrecognized arguments: --json"),
    (["pretrained", "gpt2"], "python -m core pretrained: unrecognized arguments: gpt2"),
    (["encode", "a", "b", "--pretrained", "gpt2"], "python -m core encode: unrecognized arguments: b")])
def test_an_unknown_argument_is_reported_by_its_subcommand(args, prefix):
    # docs/cli.md: a bad option's line starts `python -m core SUBCOMMAND:`; these said `python -m core:`
    code, out, err = run(*args)
    assert (code, out, err) == (2, "", prefix + "\n")


def test_an_empty_output_path_is_refused_before_any_work(tmp_path):
    # was: train --save "" trained, saved nothing and exited 0; count/combine --out "": 'cannot write : ...'
    (tmp_path / "a.txt").write_text("the cat sat\n", encoding="utf-8")
    for args, option in ((["train", tmp_path / "a.txt", "--model", "bpe", "--vocab-size", "8", "--save", ""], "save"),
                         (["train", tmp_path / "a.txt", "--model", "unigram", "--vocab-size", "6", "--save", ""], "save"),
                         (["count", tmp_path / "a.txt", "--out", ""], "out")):
        assert run(*args) == (2, "", f"error: --{option} needs a file path, not an empty one\n")


def _children(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/stat", encoding="utf-8") as f:
                if entry.isdigit() and int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                    found.append(int(entry))
        except (OSError, ValueError, IndexError):
            pass
    return found


def _interrupt_once_workers_run(script: str) -> tuple[int, bytes, bytes]:
    """Run `script` (which ends in `python -m core`'s run()) in its own process group, and press
    Ctrl+C (SIGINT to the whole group, as a terminal does) once two worker processes are at work."""
    import signal
    import time
    p = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while len(_children(p.pid)) < 2 and p.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(0.3)   # the pool at work
        os.killpg(p.pid, signal.SIGINT)
        out, err = p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()
    return p.returncode, out, err


TWO_CORES = pytest.mark.skipif(not hasattr(os, "sched_getaffinity") or len(os.sched_getaffinity(0)) < 2
                               or not os.path.isdir("/proc"), reason="needs two cores and /proc")


@TWO_CORES
def test_ctrl_c_while_unigram_workers_run_ends_quietly(tmp_path):
    """Ctrl+C reaches the whole process group. A forked Unigram worker printed its KeyboardInterrupt
    traceback, and now and then the pool's shutdown then waited for ever. (The workers start only
    for big corpora: the thresholds are lowered here so that 20 KB is enough.)"""
    import random
    rng = random.Random(1)
    words = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(2, 9))) for _ in range(3000)]
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(" ".join(rng.choice(words) for _ in range(12)) for _ in range(300)), encoding="utf-8")
    script = ("import os, sys\n"
              "import core.unigram as u\n"
              "u.FORK_MIN_NODES, u.WORD_BLOCK = 0, 4\n"
              "from core.__main__ import run\n"
              f"sys.argv = ['python -m core', 'train', {str(corpus)!r}, '--model', 'unigram',"
              " '--vocab-size', '300', '--n-sub-iterations', '100']\n"
              "os._exit(run())\n")
    assert _interrupt_once_workers_run(script) == (2, b"", b"interrupted\n")


@TWO_CORES
def test_ctrl_c_while_count_workers_wait_ends_quietly(tmp_path):
    """Two files, two workers: the one done with its file, waiting for more, printed a KeyboardInterrupt
    traceback on Ctrl+C. (Counting the first file is slowed down so that the keypress lands then.)"""
    (tmp_path / "slow.txt").write_text("slow cat sat on the mat\n" * 100, encoding="utf-8")
    (tmp_path / "fast.txt").write_text("the dog\n", encoding="utf-8")
    script = ("import os, sys, time\n"
              "import core.scale as s\n"
              "count = s._count_chunk\n"
              "def slow(job):\n"
              "    if job[0].startswith('slow'):\n"
              "        time.sleep(5)\n"
              "    return count(job)\n"
              "s._count_chunk = slow\n"
              "from core.__main__ import run\n"
              f"sys.argv = ['python -m core', 'count', {str(tmp_path / 'slow.txt')!r}, {str(tmp_path / 'fast.txt')!r},"
              f" '--out', {str(tmp_path / 'c.csv')!r}, '--workers', '2']\n"
              "os._exit(run())\n")
    assert _interrupt_once_workers_run(script) == (2, b"", b"interrupted\n")


@pytest.mark.parametrize("option,value,message", [
    ("--max-piece-length", "10" * 15, f"maximum piece length {int('10' * 15):,} is too large: at most 10,000"),
    ("--n-sub-iterations", "1000000000", "number of sub-iterations 1,000,000,000 is too large: at most 100")])
def test_unigram_settings_past_their_limits_are_refused(option, value, message):
    # was: --max-piece-length 10^29 'internal error (OverflowError: Python int too large to convert to
    # C ssize_t); please report it'; --n-sub-iterations 10^9 on a corpus that cannot be pruned ran for ever
    code, out, err = run("train", "--model", "unigram", "--vocab-size", "12", option, value,
                         stdin="hello world\nthe cat sat\n")
    assert (code, out, err) == (2, "", f"error: {message}\n")


def test_combine_refuses_the_tables_train_refuses(tmp_path):
    """combine summed what train refuses (a negative count, a missing one, a table without its header,
    whose first word DuckDB took for the header) and wrote counts past 10^15 that train then refused."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    good = table(tmp_path, [("low", 5)], "good.csv")
    negative = table(tmp_path, [("low", 5), ("lower", -2)], "neg.csv")
    missing = tmp_path / "missing.csv"
    missing.write_text("word,count\nlow,\n", encoding="utf-8")
    headless = tmp_path / "headless.csv"
    headless.write_text("low,5\nlower,2\n", encoding="utf-8")
    pq.write_table(pa.table({"word": ["a", "b"], "count": [1, -3]}), tmp_path / "neg.parquet")
    big = table(tmp_path, [("low", 10 ** 15)], "big.csv")
    for inputs, message in (([good, negative], f"{negative}, row 3: count '-2' is negative"),
                            ([missing], f"{missing}, row 2: the count is missing"),
                            ([tmp_path / "neg.parquet"], f"{tmp_path / 'neg.parquet'}, row 2: count '-3' is negative"),
                            ([good, headless], f"{headless}: the first row must be the header `word,count` "
                                               "(found 'low,5')"),
                            ([big, big], "the word 'low' adds up to 2,000,000,000,000,000 in these tables: more than "
                                         "a table's count can be (10^15), so train could not read the result: "
                                         "scale the counts down")):
        assert run("combine", *inputs, "--out", tmp_path / "out.csv") == (2, "", f"error: {message}\n")
        code, out, err = run("train", *inputs, "--word-counts", "--model", "bpe", "--vocab-size", "20")
        assert code == 2 or inputs == [big, big]   # train adds the rows of one word: 2 * 10^15 is a sum it takes
    assert not (tmp_path / "out.csv").exists()


@pytest.mark.parametrize("model,option,value,models", [
    ("unigram", "--end-of-word", "symbol", "the bpe model"),     # refused for wordpiece and bbpe, ignored here
    ("bpe", "--score", "frequency", "the wordpiece model"),
    ("unigram", "--tie-break", "hf", "the bpe, bbpe and wordpiece models"),
    ("unigram", "--max-merges", "3", "the bpe, bbpe and wordpiece models"),
    ("bbpe", "--shrinking-factor", "0.5", "the unigram model"),
    ("wordpiece", "--n-sub-iterations", "3", "the unigram model")])
def test_an_option_of_other_models_is_refused_not_ignored(model, option, value, models):
    code, out, err = run("train", "--model", model, "--vocab-size", "300", option, value, stdin="hello world")
    assert (code, out, err) == (2, "", f"error: {option} applies to {models} only\n")


def test_an_option_of_other_models_at_its_default_is_accepted():
    ok_json("train", "--model", "unigram", "--vocab-size", "8", "--tie-break", "first", "--score", "likelihood",
            stdin="hello world")
    ok_json("train", "--model", "bpe", "--vocab-size", "9", "--shrinking-factor", "0.75", stdin="hello world")


@pytest.mark.parametrize("columns", [20, 40, 80])
def test_count_progress_fits_a_narrow_terminal(monkeypatch, columns):
    """A progress line wider than the terminal wraps, and '\\r' redraws only its last part: at 20
    columns every update left two lines of bar behind."""
    import io
    from core.scale import terminal_progress

    class Terminal(io.StringIO):
        def isatty(self):
            return True
    monkeypatch.setenv("COLUMNS", str(columns))
    stream = Terminal()
    show = terminal_progress(stream)
    for done in (0, 3 * 10 ** 6, 10 ** 7):
        show(done, 10 ** 7)
    shown = stream.getvalue()
    assert shown.endswith("100%\n" if columns == 20 else "10 MB\n")
    assert all(len(part) < columns for part in shown.replace("\n", "\r").split("\r")), shown


def test_encoder_refused_for_a_unigram_tokenizer_says_why(tmp_path):
    # was: '--encoder applies to tokenizers trained here; ...' about a Unigram tokenizer trained here
    ok_json("train", "--model", "unigram", "--vocab-size", "8", "--save", tmp_path / "u.json", stdin="hello world")
    for source in (["--tokenizer", tmp_path / "u.json"], ["--pretrained", "gpt2"]):
        assert run("encode", "hello", *source, "--encoder", "merges") == \
            (2, "", "error: --encoder applies to the BPE and WordPiece tokenizers trained here; a Unigram, "
                    "pretrained or imported tokenizer encodes only its own way\n")


def test_a_tokenizer_file_with_a_byte_order_mark_loads(tmp_path):
    # was: 'error: s.json is not valid JSON (line 1): is it a tokenizer.json? ...' (a text corpus or a
    # word-count table with the same mark was read)
    ok_json("train", "--model", "bpe", "--vocab-size", "12", "--save", tmp_path / "s.json", stdin="abc abd")
    (tmp_path / "bom.json").write_bytes(b"\xef\xbb\xbf" + (tmp_path / "s.json").read_bytes())
    (tmp_path / "vocab.txt").write_bytes(b"\xef\xbb\xbf[UNK]\nab\nc\n")
    assert ok_json("encode", "abc", "--tokenizer", tmp_path / "bom.json") == \
        ok_json("encode", "abc", "--tokenizer", tmp_path / "s.json")
    assert run("encode", "c ab x", "--tokenizer", tmp_path / "vocab.txt") == (0, '2 1 0\n["c", "ab", "[UNK]"]\n', "")


def test_count_workers_have_limits(tmp_path, monkeypatch):
    """--workers 10^30 was 'internal error (OverflowError ...)'; --workers 100000 forked processes until
    the command was killed (a forked pool starts all of them at once, whatever the work)."""
    (tmp_path / "a.txt").write_text("the cat sat\n", encoding="utf-8")
    for workers in ("0", "100000", str(10 ** 30)):
        code, out, err = run("count", tmp_path / "a.txt", "--out", tmp_path / "c.csv", "--workers", workers)
        assert (code, out, err) == (2, "", f"error: --workers must be between 1 and 1,000 (got {int(workers):,})\n")
    import core.scale
    pools = []
    monkeypatch.setattr(core.scale, "ProcessPoolExecutor", lambda *a, **k: pools.append(k) or 1 / 0)
    wc = core.scale.count_files([tmp_path / "a.txt"], workers=1000)   # one chunk: no pool at all
    assert pools == [] and wc.as_pairs() == [("the", 1), ("cat", 1), ("sat", 1)]
