"""Counting corpora larger than memory: streamed, on all cores, combined by engines made for it.

Counting words is the only step whose cost grows with the corpus; training grows with the number
of unique words. So a big corpus enters as a word-count table (docs/cli.md's format: `word,count` in
first-appearance order), made here:
    count_files   streams text files in chunks cut at line breaks, counts them on all cores,
                  merges the partial counts in order (memory: the table plus a few chunks)
    combine_tables  sums tables from many shards with DuckDB (embedded), keeps each word's first
                  appearance (shard order, then row order), filters by a minimum count
    count_partition  the same counting as a function a PySpark job maps over partitions
                  (`spark_count_words` shows the whole job)

Not here: training (trainer.py) reads the table these write.
"""
from __future__ import annotations

import csv
import os
import shutil
import sys
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Callable, Iterable, Iterator, Optional

from .corpus import (WordCounts, _count_chunk, _merge_in_order, check_not_binary, check_table_size,
                     end_quietly_on_interrupt, process_context, write_word_count_table)
from .errors import CorpusError
from .limits import MAX_TABLE_COUNT
from .pipeline import check_names

CHUNK_BYTES = 4 << 20


def read_chunks(path, chunk_bytes: int = CHUNK_BYTES) -> Iterator[str]:
    """A UTF-8 file as text chunks that end at a line break (never inside \\r\\n or a character),
    read as `train` reads a file (core.corpus.decode_text): a byte order mark at the start is not
    text, and a file that looks binary is refused. CorpusError when the file cannot be read."""
    try:
        yield from _read_chunks(path, chunk_bytes)
    except OSError as e:
        raise CorpusError(f"cannot read {path}: {e.strerror or e}") from None


def _read_chunks(path, chunk_bytes: int) -> Iterator[str]:
    carry = b""
    offset = 0
    with open(path, "rb") as f:
        while True:
            block = f.read(chunk_bytes)
            if not block:
                break
            if offset == 0 and not carry:
                check_not_binary(block, str(path))
                if block.startswith(b"\xef\xbb\xbf"):
                    block, offset = block[3:], 3
            data = carry + block
            cut = data.rfind(b"\n")
            if cut < 0:  # a \r at the very end may be the first half of \r\n: never cut after it
                cut = data.rfind(b"\r", 0, len(data) - 1)
            if cut < 0:
                carry = data  # a line longer than a chunk: read on
                continue
            yield _decode(data[:cut + 1], path, offset)
            offset += cut + 1
            carry = data[cut + 1:]
    if carry:
        yield _decode(carry, path, offset)


def _decode(data: bytes, path, offset: int) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise CorpusError(f"{path} is not valid UTF-8 (bad byte at offset {offset + e.start}): "
                          "convert it to UTF-8 first") from None


def _check_files(paths) -> None:
    """CorpusError for the first path that is not a file to read (missing, or a folder)."""
    for p in paths:
        if not Path(p).is_file():
            raise CorpusError(f"cannot read {p}: {'Is a directory' if Path(p).is_dir() else 'no such file'}")


def count_files(paths: Iterable, pre_tokenizer: str = "whitespace", normalizer: str = "none", *,
                keep_newlines: bool = False, workers: Optional[int] = None,
                progress: Optional[Callable[[int, int], None]] = None, fork: bool = False) -> WordCounts:
    """Count the words of text files, streamed. progress(bytes_done, bytes_total)."""
    check_names(normalizer=normalizer, pre_tokenizer=pre_tokenizer)
    paths = [Path(p) for p in paths]
    _check_files(paths)
    total = sum(p.stat().st_size for p in paths)
    # no more processes than chunks (a forked pool starts every one at once, idle or not)
    workers = min(workers or os.cpu_count() or 1, sum(p.stat().st_size // CHUNK_BYTES + 1 for p in paths))
    merged: Counter = Counter()
    done = 0

    def jobs():
        for p in paths:
            for chunk in read_chunks(p):
                yield (chunk, pre_tokenizer, normalizer, keep_newlines)

    if workers == 1 or pre_tokenizer == "jieba":
        for job in jobs():
            _merge_in_order(merged, _count_chunk(job))
            done += len(job[0].encode("utf-8"))
            if progress:
                progress(done, total)
    else:
        with ProcessPoolExecutor(max_workers=workers, mp_context=process_context(fork),
                                 initializer=end_quietly_on_interrupt) as pool:
            pending = []
            for job in jobs():
                pending.append((pool.submit(_count_chunk, job), len(job[0].encode("utf-8"))))
                while len(pending) > 2 * workers:  # bounded: at most a few chunks in flight
                    fut, n = pending.pop(0)
                    _merge_in_order(merged, fut.result())
                    done += n
                    if progress:
                        progress(done, total)
            for fut, n in pending:
                _merge_in_order(merged, fut.result())
                done += n
                if progress:
                    progress(done, total)
    if progress and done < total:   # a byte order mark is not text: its 3 bytes were never counted
        progress(total, total)
    if not merged:
        raise CorpusError("the input has no words")
    return WordCounts(tuple(merged), tuple(merged.values()))


def terminal_progress(stream=sys.stderr) -> Optional[Callable[[int, int], None]]:
    """A progress bar on a terminal; nothing when stderr is not one (stderr stays empty)."""
    if not stream.isatty():
        return None

    def show(done: int, total: int) -> None:
        frac = done / total if total else 1.0
        # shorter than the terminal: a line that wraps is not redrawn by \r, each update left a line
        columns = shutil.get_terminal_size().columns
        tail = f" {frac:6.1%} {done / 1e6:,.0f} MB"
        width = min(30, columns - len(tail) - len("counting []") - 1)
        if width >= 5:
            stream.write(f"\rcounting [{'#' * int(frac * width):<{width}}]{tail}")
        elif columns > 4:
            stream.write(f"\r{frac:>4.0%}")
        if done >= total:
            stream.write("\n")
        stream.flush()
    return show


def _check_csv_header(path: str) -> None:
    """A CSV or TSV table starts with `word,count`, as train requires (DuckDB would take any first row
    as the header, dropping a table's first word when the header is missing)."""
    with open(path, "rb") as f:
        first = (f.readline(65536).decode("utf-8", "replace").removeprefix("\ufeff").splitlines() or [""])[0]
    header = next(csv.reader([first], delimiter="\t" if "\t" in first else ","), [])
    if [h.strip().lower() for h in header[:2]] != ["word", "count"]:
        raise CorpusError(f"{path}: the first row must be the header `word,count` (found {first[:60]!r})")


def combine_tables(paths: list, out, *, min_count: int = 1) -> int:
    """Sum word-count tables (Parquet or CSV) with DuckDB: equal words summed, each kept at its
    first appearance (table order, then row order), words under min_count dropped. Returns rows."""
    import duckdb
    paths = [str(Path(p)) for p in paths]
    if not paths:
        raise CorpusError("give at least one table to combine")
    _check_files(paths)
    con = duckdb.connect()
    parts = []
    for i, p in enumerate(paths):
        if p.endswith(".parquet"):
            src = f"read_parquet(?, file_row_number=true)"
            parts.append((f"SELECT word, count, {i} AS shard, file_row_number AS row FROM {src}", p))
        else:
            _check_csv_header(p)
            src = "read_csv(?, header=true, columns={'word': 'VARCHAR', 'count': 'BIGINT'}, quote='\"')"
            parts.append((f"SELECT word, count, {i} AS shard, row_number() OVER () AS row FROM {src}", p))
    union = " UNION ALL ".join(q for q, _ in parts)
    # the rows train refuses (core.corpus.read_word_count_table), refused here too, by the same words
    check = (f"SELECT shard, row, count FROM ({union}) WHERE count IS NULL OR count < 0 OR count > {MAX_TABLE_COUNT} "
             "ORDER BY shard, row LIMIT 1")
    query = (f"SELECT word, SUM(count)::BIGINT AS count FROM ({union}) GROUP BY word "
             f"HAVING SUM(count) >= ? ORDER BY MIN(shard * 4294967296 + row)")
    try:
        bad = con.execute(check, [p for _, p in parts]).fetchone()
        rows = [] if bad else con.execute(query, [p for _, p in parts] + [min_count]).fetchall()
    except duckdb.Error as e:
        raise CorpusError(f"cannot combine the tables: {str(e).splitlines()[0]}") from None
    if bad:
        shard, row, count = bad
        where = f"{paths[shard]}, row {row + 1}"   # CSV: the header is row 1; Parquet: rows from 1
        if count is None:
            raise CorpusError(f"{where}: the count is missing")
        raise CorpusError(f"{where}: count '{count}' is " + ("negative" if count < 0 else "too large (at most 10^15)"))
    wc = WordCounts(tuple(r[0] for r in rows), tuple(int(r[1]) for r in rows))
    word, total = max(zip(wc.words, wc.counts), key=lambda r: r[1], default=("", 0))
    if total > MAX_TABLE_COUNT:
        raise CorpusError(f"the word {word!r} adds up to {total:,} in these tables: more than a table's count "
                          "can be (10^15), so train could not read the result: scale the counts down")
    check_table_size(wc, "the combined table")
    write_word_count_table(wc, out)
    return len(rows)


# ---------------------------------------------------------------- Spark

def count_partition(index: int, lines: Iterable[str], pre_tokenizer: str = "whitespace",
                    normalizer: str = "none") -> Iterator[tuple[str, tuple[int, int, int]]]:
    """Count one partition's lines: (word, (count, partition index, first position)).

    Reduce by key with `reduce_counts` and sort by (partition, position) to get the table in
    first-appearance order. Lines arrive without their breaks, as docs/cli.md reads them.
    """
    counter = _count_chunk(("\n".join(lines), pre_tokenizer, normalizer, False))
    for pos, (word, n) in enumerate(counter.items()):
        yield word, (n, index, pos)


def reduce_counts(a: tuple[int, int, int], b: tuple[int, int, int]) -> tuple[int, int, int]:
    first = min(a[1:], b[1:])
    return (a[0] + b[0], first[0], first[1])


def spark_count_words(spark, paths: list[str], out: str, pre_tokenizer: str = "whitespace",
                      normalizer: str = "none", min_count: int = 1) -> int:
    """The whole PySpark job: text files -> word-count table (Parquet, one file) at `out`."""
    rdd = spark.sparkContext.textFile(",".join(paths))
    counted = (rdd.mapPartitionsWithIndex(lambda i, it: count_partition(i, it, pre_tokenizer, normalizer))
               .reduceByKey(reduce_counts)
               .filter(lambda kv: kv[1][0] >= min_count)
               .sortBy(lambda kv: (kv[1][1], kv[1][2]))
               .map(lambda kv: (kv[0], kv[1][0])))
    rows = counted.collect()  # the table of unique words fits one machine: training needs it there
    wc = WordCounts(tuple(w for w, _ in rows), tuple(int(c) for _, c in rows))
    write_word_count_table(wc, out)
    return len(wc)
