"""Counting big corpora: streamed counting equals in-memory counting, DuckDB combines shards in
first-appearance order, and a local-mode Spark job writes the same table."""
import shutil
import subprocess
import sys

import pytest

from core.corpus import WordCounts, count_words, read_word_count_table
from core.errors import CorpusError
from core.scale import combine_tables, count_files, count_partition, read_chunks, reduce_counts

from tests.support import ROOT

TEXT = ("the cat sat\r\non the mat\rthe end\n\nmat 我喜欢 cat\u2028dog\n" * 50) + "tail words"


def test_chunks_cut_only_at_line_breaks(tmp_path):
    p = tmp_path / "t.txt"
    p.write_bytes(TEXT.encode("utf-8"))
    chunks = list(read_chunks(p, chunk_bytes=7))
    assert "".join(chunks) == TEXT
    assert all(c.endswith(("\n", "\r")) for c in chunks[:-1])
    assert not any(c.startswith("\n") and prev.endswith("\r") for prev, c in zip(chunks, chunks[1:]))


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("pre", ["whitespace", "gpt2", "bert"])
def test_streamed_counting_equals_in_memory_counting(tmp_path, workers, pre, monkeypatch):
    p = tmp_path / "t.txt"
    p.write_bytes(TEXT.encode("utf-8"))
    if workers == 1:
        monkeypatch.setattr("core.scale.CHUNK_BYTES", 64)
        streamed = count_files([p], pre, workers=1)
    else:
        # in a fresh process, as the CLI counts: this pytest process has run Streamlit pages
        # (a page script left as __main__, which spawned workers would re-run)
        out = tmp_path / "c.csv"
        r = subprocess.run([sys.executable, "-m", "core", "count", str(p), "--pre-tokenizer", pre,
                            "--workers", "2", "--out", str(out)], cwd=ROOT, capture_output=True, text=True,
                           timeout=120)
        assert r.returncode == 0, r.stderr
        streamed = read_word_count_table(out.read_bytes())
    assert streamed == count_words(TEXT, pre, workers=1)


def test_bad_files_give_typed_errors(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"caf\xe9\n")
    with pytest.raises(CorpusError):
        count_files([bad], workers=1)
    with pytest.raises(CorpusError):
        count_files([tmp_path / "missing.txt"])


def test_duckdb_combines_shards_in_first_appearance_order(tmp_path):
    from core.corpus import write_word_count_table
    write_word_count_table(WordCounts(("b", "a", "c"), (1, 2, 1)), tmp_path / "s1.parquet")
    write_word_count_table(WordCounts(("d", "a", "b", "e"), (5, 1, 1, 1)), tmp_path / "s2.csv")
    n = combine_tables([tmp_path / "s1.parquet", tmp_path / "s2.csv"], tmp_path / "all.parquet")
    wc = read_word_count_table((tmp_path / "all.parquet").read_bytes())
    assert n == 5 and wc.as_pairs() == [("b", 2), ("a", 3), ("c", 1), ("d", 5), ("e", 1)]
    combine_tables([tmp_path / "s1.parquet", tmp_path / "s2.csv"], tmp_path / "min.csv", min_count=2)
    assert read_word_count_table((tmp_path / "min.csv").read_bytes()).as_pairs() == [("b", 2), ("a", 3), ("d", 5)]


def test_count_and_combine_on_the_command_line(tmp_path):
    p = tmp_path / "t.txt"
    p.write_text(TEXT, encoding="utf-8")
    out = tmp_path / "counts.parquet"
    r = subprocess.run([sys.executable, "-m", "core", "count", str(p), "--pre-tokenizer", "gpt2", "--out", str(out)],
                       cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stderr == ""
    assert read_word_count_table(out.read_bytes()) == count_words(TEXT, "gpt2", workers=1)
    r = subprocess.run([sys.executable, "-m", "core", "combine", str(out), str(out), "--out", str(tmp_path / "c.csv")],
                       cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stderr == ""
    doubled = read_word_count_table((tmp_path / "c.csv").read_bytes())
    assert [c for c in doubled.counts] == [2 * c for c in count_words(TEXT, "gpt2", workers=1).counts]


def test_partition_function_reduces_to_the_same_table():
    lines = TEXT.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    parts = [lines[:37], lines[37:120], lines[120:]]
    merged = {}
    for i, part in enumerate(parts):
        for word, value in count_partition(i, part):
            merged[word] = reduce_counts(merged[word], value) if word in merged else value
    ordered = sorted(merged.items(), key=lambda kv: kv[1][1:])
    assert [(w, v[0]) for w, v in ordered] == count_words(TEXT, workers=1).as_pairs()


def _spark_available() -> bool:
    try:
        import pyspark  # noqa: F401
    except ImportError:
        return False
    return shutil.which("java") is not None


@pytest.mark.skipif(not _spark_available(), reason="needs pyspark and Java")
def test_spark_local_job_writes_the_same_table(tmp_path):
    from pyspark.sql import SparkSession
    from core.scale import spark_count_words
    files = []
    for i in range(3):
        p = tmp_path / f"part{i}.txt"
        p.write_text(TEXT.replace("cat", f"cat{i}"), encoding="utf-8")
        files.append(p)
    # The JVM's optimising compiler and parallel collector pay off on long jobs, not on this one:
    # without them the JVM spent 6.5 s of CPU here instead of 12.7 s (the suite is CPU-bound).
    spark = (SparkSession.builder.master("local[2]").appName("tokenizer-playground-test")
             .config("spark.ui.enabled", "false").config("spark.driver.host", "127.0.0.1")
             .config("spark.driver.extraJavaOptions", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:CICompilerCount=1")
             .getOrCreate())
    try:
        out = tmp_path / "spark.parquet"
        spark_count_words(spark, [str(f) for f in files], str(out), pre_tokenizer="whitespace")
    finally:
        spark.stop()
    want = count_words("\n".join(f.read_text(encoding="utf-8") for f in files), workers=1)
    assert read_word_count_table(out.read_bytes()).as_pairs() == want.as_pairs()
