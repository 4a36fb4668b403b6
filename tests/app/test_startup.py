"""A corpus named on the app's command line (`streamlit run app.py -- --corpus PATH`): a text
or a word-count table, such as one `python -m core count` wrote for a corpus too big to upload."""
import sys

from streamlit.testing.v1 import AppTest

from core.corpus import WordCounts, write_word_count_table
from playground import state
from playground.startup import corpus_path
from tests.support import APP



def test_corpus_path_is_read_after_the_double_dash():
    assert corpus_path(["--corpus", "x.parquet"]) == "x.parquet"
    assert corpus_path(["--other", "1"]) is None


def test_table_named_on_the_command_line_becomes_the_corpus_and_trains(tmp_path, monkeypatch):
    table = tmp_path / "counts.parquet"
    write_word_count_table(WordCounts(("low", "lower", "newest", "widest"), (5, 2, 6, 3)), table)
    monkeypatch.setattr(sys, "argv", ["app.py", "--corpus", str(table)])
    at = AppTest.from_file(str(APP), default_timeout=60).run()
    assert not at.exception
    corpus = state.get_corpus(at.session_state)
    assert corpus.is_table and corpus.word_counts.as_pairs()[0] == ("low", 5) and corpus.source == "command line"


def test_unreadable_path_is_a_message_not_a_crash(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "argv", ["app.py", "--corpus", str(tmp_path / "missing.txt")])
    at = AppTest.from_file(str(APP), default_timeout=60).run()
    assert not at.exception
    assert state.get_corpus(at.session_state) is None
    assert any("cannot be read" in e.value for e in at.error)
