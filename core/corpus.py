"""Corpus in: text or a word-count table, out: unique words with counts in first-appearance order.

The order matters: the seeds' tie rule (`first`) scans words in the order they first appear.
Counting is the only step whose cost grows with the corpus; it runs as one regex scan per chunk
and, for large texts, on all cores (chunks cut at line breaks, merged in order).

Not here: how words are split into symbols (trainer.py).
Example: count_words("low low lower", "whitespace").as_pairs() == [("low", 2), ("lower", 1)]
"""
from __future__ import annotations

import csv
import hashlib
import io
import os
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
import multiprocessing
import threading

from .errors import CorpusError
from .limits import MAX_TABLE_COUNT, MAX_TRACE_NUMBER
from .pipeline import check_names, count_pieces, count_units, normalize, pieces_of_units, split_lines

# Texts above this size are counted in parallel; below it a second process costs more than it saves.
PARALLEL_MIN_CHARS = 2_000_000
_CHUNK_CHARS = 1_000_000


@dataclass(frozen=True)
class WordCounts:
    """Unique words and their counts, in first-appearance order (plain text, not byte-mapped)."""
    words: tuple[str, ...]
    counts: tuple[int, ...]

    def __len__(self) -> int:
        return len(self.words)

    def as_pairs(self) -> list[tuple[str, int]]:
        return list(zip(self.words, self.counts))

    @property
    def total(self) -> int:
        return sum(self.counts)

    def digest(self) -> str:
        """The table's sha256: words and counts, in order. Each word is followed by `\0count\0`,
        which reads back one way only while no word holds a NUL; a table with one (a session file
        or Parquet upload can carry it) could spell another table's rows inside a word and share
        its digest, and with it every cache the digest keys. Such tables are hashed apart: two
        NULs first (in the plain form a NUL is always followed by a count's digits), then each
        word after its length."""
        h = hashlib.sha256()
        if any("\0" in w for w in self.words):
            h.update(b"\0\0")
            for w, c in zip(self.words, self.counts):
                data = w.encode("utf-8", "surrogatepass")
                h.update(b"%d\0" % len(data))
                h.update(data)
                h.update(b"\0%d\0" % c)
            return h.hexdigest()
        for w, c in zip(self.words, self.counts):
            h.update(w.encode("utf-8", "surrogatepass"))
            h.update(b"\0%d\0" % c)
        return h.hexdigest()

    @classmethod
    def from_pairs(cls, pairs) -> "WordCounts":
        merged: dict[str, int] = {}
        for w, c in pairs:
            merged[w] = merged.get(w, 0) + c  # a repeated word is summed into its first row
        return cls(tuple(merged), tuple(merged.values()))


def _normalized(text: str, normalizer: str, keep_newlines: bool) -> str:
    if normalizer == "none":
        return text
    # normalizers work line by line (BERT's clean_text turns a break into a space)
    lines = split_lines(text, keep_newlines)
    sep = "" if keep_newlines else "\n"
    return sep.join(normalize(line, normalizer) for line in lines)


def _count_chunk(args) -> Counter:
    """A chunk's pieces counted (core/scale.py's unit of work)."""
    text, pre_tokenizer, normalizer, keep_newlines = args
    return count_pieces(_normalized(text, normalizer, keep_newlines), pre_tokenizer, keep_newlines=keep_newlines)


def _count_chunk_units(args) -> Counter:
    """A chunk's units counted (count_units): count_words merges them and splits each distinct one once."""
    text, pre_tokenizer, normalizer, keep_newlines = args
    return count_units(_normalized(text, normalizer, keep_newlines), pre_tokenizer, keep_newlines=keep_newlines)


def _chunks(text: str, size: int) -> list[str]:
    """Cut at line breaks (never inside a \\r\\n) into pieces of about `size` characters."""
    out, start, n = [], 0, len(text)
    while start < n:
        end = min(start + size, n)
        if end < n:
            cut = max(text.rfind("\n", start, end), text.rfind("\r", start, end))
            if cut <= start:
                nl = [i for i in (text.find("\n", end), text.find("\r", end)) if i != -1]
                cut = min(nl) if nl else n - 1
            if text[cut] == "\r" and cut + 1 < n and text[cut + 1] == "\n":
                cut += 1
            end = cut + 1
        out.append(text[start:end])
        start = end
    return out


_worker_text = ""  # set in counting worker processes only (never in the parent): their corpus


def _set_worker_text(text: str) -> None:
    global _worker_text
    _worker_text = text
    end_quietly_on_interrupt()


def end_quietly_on_interrupt() -> None:
    """A counting worker's initializer. Ctrl+C reaches every process of the terminal's group: a
    worker waiting for work printed a KeyboardInterrupt traceback. It now ends at once, quietly,
    and leaves the message to the parent (whose pool, broken, does not wait for its work)."""
    import signal
    signal.signal(signal.SIGINT, lambda signum, frame: os._exit(1))
    die_with_parent()


def die_with_parent() -> None:
    """Linux: this worker is killed when the process that started it ends (`python -m core` ends
    at once on Ctrl+C, core/__main__.py), instead of waiting for work for ever, holding the
    parent's standard output open."""
    import multiprocessing
    import signal
    try:
        import ctypes
        ctypes.CDLL(None).prctl(1, signal.SIGKILL)   # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    parent = multiprocessing.parent_process()
    if parent is not None and os.getppid() != parent.pid:   # it ended before prctl
        os._exit(1)


def _count_span(args) -> Counter:
    start, end, pre_tokenizer, normalizer, keep_newlines = args
    return _count_chunk((_worker_text[start:end], pre_tokenizer, normalizer, keep_newlines))


def count_words(text: str, pre_tokenizer: str = "whitespace", normalizer: str = "none", *,
                keep_newlines: bool = False, workers: int | None = None, progress=None,
                fork: bool = False) -> WordCounts:
    """Count the words of a text, read line by line as docs/cli.md says.

    workers: processes to count with; None = all cores when the text is large.
    fork: the caller's process has no other threads, so workers may fork (see process_context).
    progress: optional callable(done_fraction) called as chunks finish.
    """
    check_names(normalizer=normalizer, pre_tokenizer=pre_tokenizer)
    if workers is None:
        # parallel by default only where workers may fork: a spawned worker re-imports the main
        # module, which in a Streamlit server or after AppTest is a page script
        workers = (os.cpu_count() or 1) if len(text) >= PARALLEL_MIN_CHARS and fork else 1
    if pre_tokenizer == "jieba":
        workers = 1  # jieba's dictionary load would be paid again in every worker
    size = _CHUNK_CHARS if workers == 1 else max(_CHUNK_CHARS // 4, len(text) // (workers * 4) + 1)
    chunks = _chunks(text, size)
    pieces: Counter = Counter()
    if workers > 1 and len(chunks) > 1:
        # The workers get the text once, at start (with fork: shared memory, nothing copied), and
        # then only (start, end) spans, so no chunk is pickled. Each worker splits its chunk's
        # units: splitting the merged units once in this process instead was slower with two
        # workers (English gpt2 0.45 -> 0.65 s), the parent's one pass not shared.
        spans, pos = [], 0
        for c in chunks:
            spans.append((pos, pos + len(c), pre_tokenizer, normalizer, keep_newlines))
            pos += len(c)
        with ProcessPoolExecutor(max_workers=workers, mp_context=process_context(fork),
                                 initializer=_set_worker_text, initargs=(text,)) as pool:
            for i, counter in enumerate(pool.map(_count_span, spans)):
                _merge_in_order(pieces, counter)
                if progress:
                    progress((i + 1) / len(spans))
    else:
        # In one process, the chunks' units merged and each distinct one split once, not once per
        # chunk it is in (the app's counting, medians of seven: the KJV's gpt2 0.57 -> 0.46 s, bert
        # 0.61 -> 0.55; mixed gpt2 0.79 -> 0.72).
        units: Counter = Counter()
        for i, chunk in enumerate(chunks):
            _merge_in_order(units, _count_chunk_units((chunk, pre_tokenizer, normalizer, keep_newlines)))
            if progress:
                progress((i + 1) / len(chunks))
        pieces = pieces_of_units(units, pre_tokenizer, keep_newlines=keep_newlines)
        if pieces is None:   # gpt2's segments did not give back their pieces (never seen): chunk by chunk
            pieces = Counter()
            for chunk in chunks:
                _merge_in_order(pieces, _count_chunk((chunk, pre_tokenizer, normalizer, keep_newlines)))
    if not pieces:
        raise CorpusError("the corpus has no words: paste or upload some text")
    return WordCounts(tuple(pieces), tuple(pieces.values()))


def process_context(fork: bool = False):
    """The start method for counting workers. fork only when the caller vouches that the process
    has no other threads, native ones included (the CLI): forking after HF tokenizers' or a
    browser driver's threads started can leave a worker dead and the pool waiting forever.
    Everywhere else spawn, which re-imports instead of copying."""
    if fork and threading.active_count() == 1 and "fork" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")


def _merge_in_order(into: Counter, more: Counter) -> None:
    # Counter keeps insertion order, so chunk i's new words land after those of chunks before it
    if not into:
        into.update(more)
        return
    for w, c in more.items():
        into[w] += c


# ---------------------------------------------------------------- reading input

def check_not_binary(data: bytes, name: str) -> None:
    """CorpusError when `data` (a file, or its first block) looks binary: NULs early and often."""
    if b"\0" in data[:8192] and data.count(b"\0") > len(data) // 100:
        raise CorpusError(f"{name} looks like a binary file, not text: give a UTF-8 text file")


def decode_text(data: bytes, name: str = "input") -> str:
    """UTF-8 text from bytes, or a CorpusError saying why not (binary, other encoding)."""
    check_not_binary(data, name)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise CorpusError(f"{name} is not valid UTF-8 (bad byte at offset {e.start}): "
                          "convert it to UTF-8 first") from None
    return text.removeprefix("\ufeff")


def read_word_count_table(data: bytes, name: str = "table") -> WordCounts:
    """A `word,count` table: CSV or TSV with that header, or Parquet with those columns."""
    if data[:4] == b"PAR1":
        return _table_from_parquet(data, name)
    text = decode_text(data, name)
    first_line = text.split("\n", 1)[0]
    delimiter = "\t" if "\t" in first_line else ","
    rows = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    header = next(rows, None)
    if header is None or [h.strip().lower() for h in header[:2]] != ["word", "count"]:
        raise CorpusError(f"{name}: the first row must be the header `word,count` "
                          f"(found {','.join(header or [])[:60]!r})")
    pairs = []
    for line_no, row in enumerate(rows, start=2):
        if not row:
            continue
        if len(row) < 2:
            raise CorpusError(f"{name}, row {line_no}: missing count column")
        pairs.append((row[0], _parse_count(row[1], name, line_no)))
    return _checked_table(pairs, name)


def _parse_count(value, name: str, row: int) -> int:
    try:
        f = float(value)
        n = int(f)
    except (TypeError, ValueError, OverflowError):
        raise CorpusError(f"{name}, row {row}: count {value!r} is not a number") from None
    if n != f:
        raise CorpusError(f"{name}, row {row}: count {value!r} is not a whole number")
    if n < 0:
        raise CorpusError(f"{name}, row {row}: count {value!r} is negative")
    if n > MAX_TABLE_COUNT:
        raise CorpusError(f"{name}, row {row}: count {value!r} is too large (at most 10^15)")
    return n


def _table_from_parquet(data: bytes, name: str) -> WordCounts:
    import pyarrow.parquet as pq
    try:
        table = pq.read_table(io.BytesIO(data), use_threads=False)   # pyarrow 26's thread pool aborted at exit now and then
    except Exception as e:  # pyarrow raises many kinds for a corrupt file
        raise CorpusError(f"{name}: not a readable Parquet file ({type(e).__name__})") from None
    cols: dict[str, list[str]] = {}
    for c in table.column_names:
        cols.setdefault(c.lower(), []).append(c)
    if "word" not in cols or "count" not in cols:
        raise CorpusError(f"{name}: a Parquet table needs columns `word` and `count` "
                          f"(found {', '.join(table.column_names)})")
    for key, found in cols.items():
        if key in ("word", "count") and len(found) > 1:
            raise CorpusError(f"{name}: columns {' and '.join(f'`{c}`' for c in found[:3])} both name `{key}`: "
                              "keep one")
    words = _parquet_column(table, cols["word"][0], name, "text")
    counts = _parquet_column(table, cols["count"][0], name, "numbers")
    return _checked_table([(w, _parse_count(c, name, i + 1)) for i, (w, c) in enumerate(zip(words, counts))], name)


def _parquet_column(table, column: str, name: str, want: str) -> list:
    """A Parquet table's word column as text (its whole numbers spelled with their digits, as a CSV
    reads them) or its count column as numbers (or text, parsed as a CSV's): CorpusError naming
    the column when it holds anything else (lists, records, true/false, bytes, ...) or a null."""
    import pyarrow.types as pt
    values = table.column(column)
    kind = values.type.value_type if pt.is_dictionary(values.type) else values.type
    text = pt.is_string(kind) or pt.is_large_string(kind) or pt.is_string_view(kind)
    number = pt.is_integer(kind) or (want == "numbers" and (pt.is_floating(kind) or pt.is_decimal(kind)))
    if not (text or number):
        what = next((w for test, w in ((pt.is_null, "only nulls"), (pt.is_boolean, "true/false values"),
                                       (pt.is_floating, "decimal numbers"), (pt.is_decimal, "decimal numbers"),
                                       (pt.is_struct, "nested records"), (pt.is_map, "maps"),
                                       (pt.is_binary, "bytes"), (pt.is_large_binary, "bytes"),
                                       (pt.is_fixed_size_binary, "bytes"), (pt.is_list, "lists"),
                                       (pt.is_large_list, "lists"), (pt.is_fixed_size_list, "lists"))
                     if test(kind)), f"values of type {str(kind)[:40]}")
        raise CorpusError(f"{name}: column `{column}` holds {what}, not {want}")
    try:
        out = values.to_pylist()
    except UnicodeDecodeError:
        raise CorpusError(f"{name}: column `{column}` is not valid UTF-8") from None
    if values.null_count:
        raise CorpusError(f"{name}, row {out.index(None) + 1}: column `{column}` is null (no "
                          f"{'word' if want == 'text' else 'count'})")
    return [str(v) for v in out] if want == "text" and not text else out


def check_table_size(wc: WordCounts, name: str) -> WordCounts:
    """`wc`, or CorpusError when its counts are too large to train on and draw: each row's count is
    checked as it is read (at most 10^15), but rows of one word are summed, and many large counts
    of long words made token totals past 64 bits (the Merges page's curves and Inspect's table then
    failed). Both the counts together and the words' UTF-8 bytes times their counts (what a trainer's
    token totals can reach) stay within limits.MAX_TRACE_NUMBER, which a session file may hold."""
    total = wc.total
    if total > MAX_TRACE_NUMBER:
        raise CorpusError(f"{name}: the counts add up to {total:,}, more than 10^18 "
                          "(rows of the same word are added together)")
    longest = max(map(len, wc.words), default=0)
    if total * 4 * longest > MAX_TRACE_NUMBER and sum(
            c * len(w.encode("utf-8", "surrogatepass")) for w, c in zip(wc.words, wc.counts)) > MAX_TRACE_NUMBER:
        raise CorpusError(f"{name}: the words' lengths times their counts add up to more than 10^18 bytes: "
                          "scale the counts down")
    return wc


def _checked_table(pairs, name: str) -> WordCounts:
    pairs = [(w, c) for w, c in pairs if c > 0 and w != ""]
    if not pairs:
        raise CorpusError(f"{name}: the table has no word with a positive count")
    return check_table_size(WordCounts.from_pairs(pairs), name)


def write_word_count_table(wc: WordCounts, path) -> None:
    """CSV `word,count`, or Parquet when the path ends in .parquet."""
    path = str(path)
    if path.endswith(".parquet"):
        import pyarrow as pa
        import pyarrow.parquet as pq
        pq.write_table(pa.table({"word": list(wc.words), "count": list(wc.counts)}), path)
        return
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["word", "count"])
        w.writerows(wc.as_pairs())


@dataclass(frozen=True)
class CorpusStats:
    characters: int
    bytes: int
    lines: int
    words: int
    unique_words: int
    alphabet_size: int


def corpus_stats(text: str, wc: WordCounts) -> CorpusStats:
    alphabet = set()
    for w in wc.words:
        alphabet.update(w)
    return CorpusStats(characters=len(text), bytes=len(text.encode("utf-8", "surrogatepass")),
                       lines=len(split_lines(text)) if text else 0, words=wc.total,
                       unique_words=len(wc), alphabet_size=len(alphabet))
