"""Pre-tokenizers and corpus counting (core/pipeline.py, core/corpus.py) against Hugging Face.

- `whitespace`, `gpt2` and `bert` give HF WhitespaceSplit's, ByteLevel(add_prefix_space=False)'s and
  BertPreTokenizer's pieces and offsets on generated text.
- count_words reads a text line by line as docs/cli.md says (a line ends at \\n, \\r\\n or a lone \\r;
  U+2028, U+0085, \\v, \\f are ordinary characters), which is HF's pre-tokenizer run on each line
  without its break, or with it under keep_newlines.
- Counting on two processes gives exactly the single-process result, word order included.

Generated text uses only code points assigned in Unicode 14 (Python 3.11's unicodedata): `regex`
and `tokenizers` follow later versions and legitimately differ on newer characters
(docs/references.md, "Unicode versions differ").
"""
from __future__ import annotations

import os
import random
import re
from collections import Counter
from functools import lru_cache

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from tokenizers import pre_tokenizers

from core.corpora import kjv_text
from core.corpus import PARALLEL_MIN_CHARS, WordCounts, count_words
from core.errors import CorpusError
from core.pipeline import pre_tokenize, pre_tokenize_words
from core.reference import byte_chars
from core.trainer import TrainConfig, initial_vocab
from tests.support import in_unicode_14

LINE_BREAK = re.compile(r"\r\n|\r|\n")
EXAMPLES = int(os.environ.get("PIPELINE_EXAMPLES", "300"))

HF = {
    "whitespace": pre_tokenizers.WhitespaceSplit(),
    "gpt2": pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True),
    "bert": pre_tokenizers.BertPreTokenizer(),
}

# Characters where the pre-tokenizers' rules bite: every kind of whitespace and line end, the
# contractions, letters, digits and punctuation of several scripts, combining marks, emoji.
INTERESTING = [" ", "  ", "\t", "\n", "\r", "\r\n", "\u2028", "\u2029", "\x85", "\x0b", "\x0c", "\x1c", "\x1f",
               "\xa0", "\u3000", "\u200b", "'", "'s", "'t", "'re", "'ll", "'d", "s", "t", "a", "Z", "é",
               "e\u0301", "中", "文", "😀", "👍🏽", "1", "٣", "½", ",", ".", "!", "-", "_", "$", "¿", "、",
               "。", "«", "—", "\u00ad", "ß", "Ǆ", "\x00", "\x7f"]
unicode14_char = st.characters(exclude_categories=("Cs", "Cn")).filter(in_unicode_14)
texts = st.lists(st.one_of(st.sampled_from(INTERESTING), unicode14_char), max_size=40).map("".join)


def hf_pieces(name: str, text: str):
    return [(p, tuple(o)) for p, o in HF[name].pre_tokenize_str(text)]


@pytest.mark.parametrize("name", ["whitespace", "gpt2", "bert"])
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=texts)
def test_pre_tokenize_equals_hf(name, text):
    assert [(p, tuple(o)) for p, o in pre_tokenize(text, name)] == hf_pieces(name, text)


@pytest.mark.parametrize("name", ["whitespace", "gpt2", "bert"])
def test_every_unicode_14_code_point_as_hf(name):
    """Exhaustive where random text is too sparse: each assigned code point (the supplementary
    private-use planes left out), between letters and in a run after a space."""
    import unicodedata
    bad = []
    for cp in range(0xF0000):
        ch = chr(cp)
        if unicodedata.category(ch) in ("Cn", "Cs"):
            continue
        for text in ("a" + ch + "b", " " + ch + ch + "1"):
            if [(p, tuple(o)) for p, o in pre_tokenize(text, name)] != hf_pieces(name, text):
                bad.append(f"U+{cp:04X} ({unicodedata.category(ch)}): ours {pre_tokenize(text, name)} "
                           f"HF {hf_pieces(name, text)}")
                break
    assert not bad, f"{len(bad)} code points differ from HF, e.g.\n" + "\n".join(bad[:8])


def hf_line_counts(text: str, name: str, keep_newlines: bool = False) -> list[tuple[str, int]]:
    """HF's pieces of each line (docs/cli.md's lines), counted in first-appearance order, as plain text
    words (the byte-level pieces of `gpt2` mapped back)."""
    if keep_newlines:
        lines = [m.group() for m in re.finditer(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$", text)]
    else:
        lines = LINE_BREAK.split(text)
    counts: Counter = Counter()
    for line in lines:
        counts.update(p for p, _ in HF[name].pre_tokenize_str(line))
    return list(counts.items())


def ours_as_hf(wc: WordCounts, name: str) -> list[tuple[str, int]]:
    if name == "gpt2":
        return [(byte_chars(w), c) for w, c in wc.as_pairs()]
    return wc.as_pairs()


@pytest.mark.parametrize("name,keep_newlines", [("whitespace", False), ("gpt2", False), ("gpt2", True),
                                                ("bert", False)])
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=texts)
def test_count_words_is_hf_line_by_line(name, keep_newlines, text):
    want = hf_line_counts(text, name, keep_newlines)
    if not want:
        with pytest.raises(CorpusError):
            count_words(text, name, keep_newlines=keep_newlines)
        return
    got = count_words(text, name, keep_newlines=keep_newlines, workers=1)
    assert ours_as_hf(got, name) == want


# ---------------------------------------------------------------- line handling, by example

def test_line_breaks_never_enter_words():
    text = "ab cd\r\nab\rcd\nef\u2028gh\x85ij\x0bkl\x0cmn"
    wc = count_words(text, "gpt2")
    assert wc.as_pairs() == [("ab", 2), (" cd", 1), ("cd", 1), ("ef", 1), ("\u2028", 1), ("gh", 1),
                             ("\x85", 1), ("ij", 1), ("\x0b", 1), ("kl", 1), ("\x0c", 1), ("mn", 1)]
    assert not any(c in w for w in wc.words for c in "\r\n")
    alphabet = initial_vocab(wc, TrainConfig(model="bpe", pre_tokenizer="gpt2"))[1]
    assert "Ċ" not in alphabet and "č" not in alphabet
    assert byte_chars("\u2028") == "âĢ¨" and set("âĢ¨") <= set(alphabet)  # U+2028 stays inside its line
    ws = count_words(text, "whitespace")
    assert ws.words == ("ab", "cd", "ef", "gh", "ij", "kl", "mn")  # all of them are whitespace there


def test_lone_cr_ends_a_line():
    # with gpt2, a line break ends the " " run: "a " + "\r" + "b" is "a", " " and "b", not "a", " \rb"
    assert count_words("a \rb", "gpt2").as_pairs() == [("a", 1), (" ", 1), ("b", 1)]
    assert count_words("a \r\n b", "gpt2").as_pairs() == [("a", 1), (" ", 1), (" b", 1)]


def test_keep_newlines_gives_newline_words_with_gpt2():
    text = "ab\r\ncd\nab\rx"
    wc = count_words(text, "gpt2", keep_newlines=True)
    assert wc.as_pairs() == [("ab", 2), ("\r\n", 1), ("cd", 1), ("\n", 1), ("\r", 1), ("x", 1)]
    assert [byte_chars(w) for w in wc.words] == ["ab", "čĊ", "cd", "Ċ", "č", "x"]
    assert ours_as_hf(wc, "gpt2") == hf_line_counts(text, "gpt2", keep_newlines=True)
    alphabet = initial_vocab(wc, TrainConfig(model="bpe", pre_tokenizer="gpt2"))[1]
    assert "Ċ" in alphabet and "č" in alphabet


def test_keep_newlines_matches_hf_train_from_files(tmp_path):
    """HF train(files) keeps each line's break; the words' counts agree with keep_newlines."""
    from tokenizers import Tokenizer, models, trainers
    text = "low lower \nnewest \n\nwidest low \n"  # " \n" ends three lines: the pair (Ġ, Ċ)
    path = tmp_path / "c.txt"
    path.write_bytes(text.encode())
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = HF["gpt2"]
    trainer = trainers.BpeTrainer(vocab_size=300, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train([str(path)], trainer=trainer)
    from core.trainer import train
    ours = train(count_words(text, "gpt2", keep_newlines=True), TrainConfig(model="bbpe", vocab_size=300,
                                                                          tie_break="hf"))
    import json
    hf_merges = [tuple(m) for m in json.loads(tok.to_str())["model"]["merges"]]
    assert ours.merges == hf_merges and ("Ġ", "Ċ") in ours.merges


# ---------------------------------------------------------------- parallel counting

def big_text() -> str:
    """About 2.6 M characters of KJV lines ending in \\n, \\r\\n or a lone \\r at random, with
    U+2028 inside some lines and one line of 1.2 M characters (no break near a chunk cut)."""
    rng = random.Random(7)
    lines = [l for l in kjv_text().split("\n") if l]
    out = []
    for i, line in enumerate(lines[:1500]):
        if i % 50 == 0:
            line = line.replace(". ", ".\u2028", 2)
        out.append(line + rng.choice(["\n", "\r\n", "\r"]))
    out.insert(700, " ".join(lines[2000:3300])[:1_200_000] + "\r\n")
    return "".join(out)


@lru_cache(maxsize=1)
def big_text_cached() -> str:
    return big_text()


_PARALLEL_CHECK = """
import sys, multiprocessing
sys.path[:0] = [{root!r}]
import core.corpus
from core.corpus import count_words
from tests.core.test_pipeline import big_text
name, normalizer, keep_newlines, start = {args!r}
if __name__ == "__main__":
    fork = start is None
    if start == "spawn":
        core.corpus.process_context = lambda fork=False: multiprocessing.get_context("spawn")
    text = big_text()
    one = count_words(text, name, normalizer, keep_newlines=keep_newlines, workers=1)
    two = count_words(text, name, normalizer, keep_newlines=keep_newlines, workers=2, fork=fork)
    assert two.words == one.words, "order of first appearance differs"
    assert two.counts == one.counts, "counts differ"
    if name == "gpt2":
        assert ("\\r\\n" in one.words) == keep_newlines and ("\\u2028" in one.words)
    print("same", len(one))
"""


@pytest.mark.parametrize("name,normalizer,keep_newlines,start", [
    ("gpt2", "none", False, None), ("gpt2", "none", True, None), ("whitespace", "none", False, None),
    ("bert", "lowercase", False, None), ("gpt2", "none", False, "spawn")])
def test_parallel_counting_equals_single_process(name, normalizer, keep_newlines, start, tmp_path):
    """start: the workers' start method; None = fork, as the CLI counts; "spawn" = the default
    elsewhere. Run in a fresh process, as the CLI runs: this pytest process has run Streamlit
    pages (AppTest leaves a page script as __main__, which spawn would re-run) and browser drivers."""
    import subprocess
    import sys
    from tests.support import ROOT
    script = tmp_path / "check.py"
    script.write_text(_PARALLEL_CHECK.format(root=str(ROOT),
                                             args=(name, normalizer, keep_newlines, start)), encoding="utf-8")
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and r.stdout.startswith("same"), r.stderr[-2000:]


@pytest.mark.parametrize("name", ["whitespace", "bert", "chars", "gpt2"])
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=texts)
def test_counting_by_runs_gives_the_pieces_in_their_order(name, text):
    """count_pieces splits each distinct run between white space (gpt2: each distinct segment,
    white space and the run after it) once: the same pieces, counts and first-appearance order as
    counting every piece of the text."""
    from core.pipeline import count_pieces, pre_tokenize_words
    assert list(count_pieces(text, name).items()) == list(Counter(pre_tokenize_words(text, name)).items())


def test_gpt2_white_space_written_out_is_the_regex_modules():
    """The segments are cut with the standard library's re, whose own \\s is not GPT-2's: the class
    written out must hold exactly the code points the regex module's \\s matches."""
    import sys
    import regex
    from core.pipeline import GPT2_WHITE_SPACE
    theirs = regex.compile(r"\s")
    ours = re.compile(f"[{GPT2_WHITE_SPACE}]")
    differ = [hex(c) for c in range(sys.maxunicode + 1) if bool(theirs.match(chr(c))) != bool(ours.match(chr(c)))]
    assert not differ


@pytest.mark.parametrize("name", ["whitespace", "bert", "chars", "gpt2"])
@settings(max_examples=EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])   # set alike each time
@given(lines=st.lists(texts, min_size=1, max_size=8), breaks=st.lists(st.sampled_from(["\n", "\r\n", "\r"]), min_size=8),
       chunk=st.integers(1, 30))
def test_chunks_units_merged_then_split_once_give_the_whole_texts_pieces(name, lines, breaks, chunk, monkeypatch):
    """count_words counts each chunk's units (runs, gpt2's segments) and splits the merged units
    once: with chunks of a few characters, cut at every kind of line break, the pieces, counts
    and first-appearance order are the piece-by-piece scan's of the whole text, and gpt2's
    segments never fall back to that scan (a chunk's first segment, which has no white space before
    it, does not run into the unit before it)."""
    from core import corpus
    text = "".join(line + brk for line, brk in zip(lines, breaks))
    want = Counter(pre_tokenize_words(text, name))
    monkeypatch.setattr(corpus, "_CHUNK_CHARS", chunk)
    monkeypatch.setattr(corpus, "_count_chunk", None)   # the fallback, piece by piece: not taken
    if not want:
        with pytest.raises(CorpusError):
            corpus.count_words(text, name, workers=1)
        return
    got = corpus.count_words(text, name, workers=1)
    assert list(zip(got.words, got.counts)) == list(want.items())


def test_str_split_cuts_where_white_space_does_but_at_the_four_it_is_checked_for():
    """The runs between white space are made by str.split() unless the text holds one of the code
    points where str.isspace() and Unicode's White_Space (the whitespace pattern) disagree: every
    code point is checked, and a text with one of those is counted by the pattern."""
    import sys
    from core.pipeline import _PATTERNS, _SPLIT_ALSO_CUTS_AT, _runs_between_white_space
    differ = "".join(chr(c) for c in range(sys.maxunicode + 1)
                     if chr(c).isspace() != bool(_PATTERNS["whitespace"].fullmatch("x" + chr(c)) is None))
    assert differ == _SPLIT_ALSO_CUTS_AT
    for text in ("a\x1cb c a\x1cb", "a b\u3000c\u2028a \x85b\xa0a", "  \t\n", "x\x1f"):
        assert list(_runs_between_white_space(text).items()) == \
            list(Counter(_PATTERNS["whitespace"].findall(text)).items())
    assert list(_runs_between_white_space("a\x1cb c a\x1cb")) == ["a\x1cb", "c"]   # split() would cut there


def test_ascii_runs_are_split_where_berts_whole_pattern_splits_them():
    """An ASCII run is split by a class of ASCII's 32 punctuation characters, not BERT's whole one:
    the two agree on every ASCII character, alone and between letters, and on runs of them."""
    from core.pipeline import _BERT_ASCII, _bert_pattern
    ascii_chars = [chr(c) for c in range(128) if not chr(c).isspace() or chr(c) in "\x1c\x1d\x1e\x1f"]
    assert len(ascii_chars) == 128 - 6
    for c in ascii_chars:
        for run in (c, f"a{c}b", f"{c}{c}1", f"x{c}"):
            assert _BERT_ASCII.findall(run) == _bert_pattern().findall(run), repr(run)
    assert len([c for c in ascii_chars if len(_BERT_ASCII.findall(f"a{c}b")) == 3]) == 32


def test_gpt2_segments_counted_on_repeated_words_lines_and_odd_white_space(monkeypatch):
    from core import pipeline
    text = ("In the beginning God created the heaven and the earth.\r\nAnd the earth was without form, "
            "and void;  and darkness\u2028was upon the face\x1c of the deep.\n\n  And God's  \t\nthe 42 ½ ")
    want = Counter(pipeline.pre_tokenize_words(text, "gpt2"))
    assert list(pipeline.count_pieces(text, "gpt2").items()) == list(want.items())
    assert pipeline.count_pieces(text, "gpt2")[" the"] == 6   # and "the" once, after a line break
    # segments cut where a piece goes on (one character each): the text is counted piece by piece
    monkeypatch.setattr(pipeline, "_GPT2_SEGMENT", re.compile(r"(?s)."))
    assert list(pipeline.count_pieces(text, "gpt2").items()) == list(want.items())


def test_counting_by_runs_on_repeated_runs_and_punctuation():
    from core.pipeline import count_pieces
    text = "b.a a.b, a b.a\tc 中文a b\u3000a. ½½ a"
    want = Counter(p for p, _ in HF["bert"].pre_tokenize_str(text))
    assert list(count_pieces(text, "bert").items()) == list(want.items())
    assert list(count_pieces(text, "bert").items())[:4] == [("b", 4), (".", 4), ("a", 6), (",", 1)]   # "中文a" is one piece


def test_a_tables_digest_names_it_alone_even_with_nul_in_a_word():
    # the digest keys every shared cache (traces, views, tokenizers): a word holding "\0" and digits
    # spelled seed 004's rows in one word and took its digest; plain tables keep the digest they had
    seed = WordCounts(("low", "lower", "newest", "widest"), (5, 2, 6, 3))
    crafted = WordCounts(("low\x005\x00lower", "newest", "widest"), (2, 6, 3))
    assert crafted.digest() != seed.digest()
    import hashlib    # a table without NUL keeps its digest (links and session files name it)
    assert seed.digest() == hashlib.sha256(b"low\x005\x00lower\x002\x00newest\x006\x00widest\x003\x00").hexdigest()


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.text(st.sampled_from("ab\x0001"), min_size=1, max_size=4),
                          st.integers(1, 12)), min_size=1, max_size=4, unique_by=lambda p: p[0]),
       st.lists(st.tuples(st.text(st.sampled_from("ab\x0001"), min_size=1, max_size=4),
                          st.integers(1, 12)), min_size=1, max_size=4, unique_by=lambda p: p[0]))
def test_two_tables_share_a_digest_only_when_equal(a, b):
    first, second = WordCounts.from_pairs(a), WordCounts.from_pairs(b)
    assert (first.digest() == second.digest()) == (first == second)


def test_a_table_whose_counts_add_up_past_what_a_trainer_can_hold_is_refused():
    # each row within 10^15, but rows of one word are summed, and long words times large counts
    # made token totals past 64 bits (the Merges page's curves, Inspect's table failed on them)
    from core.corpus import read_word_count_table
    from core.errors import CorpusError
    big = 10 ** 15
    repeated = "word,count\n" + f"a,{big}\n" * 1001
    with pytest.raises(CorpusError, match="add up to 1,001,000,000,000,000,000"):
        read_word_count_table(repeated.encode(), "dup.csv")
    long_words = "word,count\n" + "".join(f"{i:0100d},{big}\n" for i in range(1000))   # 10^18 in all
    with pytest.raises(CorpusError, match="lengths times their counts"):
        read_word_count_table(long_words.encode(), "long.csv")
    fine = read_word_count_table(f"word,count\nlow,5\nlow,2\nlower,{big}\nlowest,{big}\n".encode(), "ok.csv")
    assert fine.as_pairs() == [("low", 7), ("lower", big), ("lowest", big)]


def _parquet(**columns) -> bytes:
    import io

    import pyarrow as pa
    import pyarrow.parquet as pq
    out = io.BytesIO()
    pq.write_table(pa.table(columns), out)
    return out.getvalue()


def _parquet_cases():
    import pyarrow as pa
    return [
        (_parquet(word=[["a", "b"], ["c"]], count=[1, 2]), "column `word` holds lists, not text"),
        (_parquet(word=[{"x": 1}, {"x": 2}], count=[1, 2]), "column `word` holds nested records, not text"),
        (_parquet(word=[True, False], count=[1, 2]), "column `word` holds true/false values, not text"),
        (_parquet(word=[1.5, 2.0], count=[1, 2]), "column `word` holds decimal numbers, not text"),
        (_parquet(word=pa.array([b"a", b"b"], pa.binary()), count=[1, 2]), "column `word` holds bytes, not text"),
        (_parquet(word=["a", None, "b"], count=[1, 2, 3]), "row 2: column `word` is null"),
        (_parquet(word=pa.array([None, None], pa.string()), count=[1, 2]), "row 1: column `word` is null"),
        (_parquet(Word=pa.array([None, None]), count=[1, 2]), "column `Word` holds only nulls, not text"),
        (_parquet(word=pa.array([b"ok", b"\xff"], pa.binary()).view(pa.string()), count=[1, 2]),
         "column `word` is not valid UTF-8"),
        (_parquet(word=["a", "b"], count=[True, False]), "column `count` holds true/false values, not numbers"),
        (_parquet(word=["a", "b"], count=[[1], [2]]), "column `count` holds lists, not numbers"),
        (_parquet(word=["a", "b"], count=pa.array([1, 2], pa.timestamp("s"))), "column `count` holds values of type timestamp"),
        (_parquet(word=["a", "b"], count=[1, None]), "row 2: column `count` is null"),
        (_parquet(word=["a"], Word=["b"], count=[1]), "columns `word` and `Word` both name `word`"),
    ]


def test_a_parquet_table_whose_word_column_is_not_text_is_refused_naming_the_column():
    from core.corpus import read_word_count_table
    for data, message in _parquet_cases():
        with pytest.raises(CorpusError) as e:
            read_word_count_table(data, "t.parquet")
        assert message in str(e.value) and "\n" not in str(e.value), (message, str(e.value))
    # the documented choice: whole numbers are words spelled with their digits, as a CSV reads them
    years = read_word_count_table(_parquet(word=[1999, 2000, 1999], count=[1, 2, 3]), "t.parquet")
    assert years.as_pairs() == [("1999", 4), ("2000", 2)]
    import pyarrow as pa
    categories = _parquet(word=pa.array(["low", "new", "low"]).dictionary_encode(), count=[1.0, 2.0, 3.0])
    assert read_word_count_table(categories, "t.parquet").as_pairs() == [("low", 4), ("new", 2)]
