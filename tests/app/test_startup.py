"""What app.py does at start (playground/startup.py): a corpus named on its command line
(`streamlit run app.py -- --corpus PATH`), a text or a word-count table such as one `python -m core
count` wrote for a corpus too big to upload; and what a new server's first page does not need,
imported after it."""
import subprocess
import sys

from streamlit.testing.v1 import AppTest

from core.corpus import WordCounts, write_word_count_table
from playground import startup, state
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


def test_a_corpus_file_changed_on_disk_is_read_again(tmp_path):
    # read once per version of the file for every session: a new version (its time stamp) is new
    import os
    path = tmp_path / "notes.txt"
    path.write_text("low lower lowest", encoding="utf-8")
    first = startup.load_corpus_file(str(path))
    assert startup.load_corpus_file(str(path)) is first
    path.write_text("newer text here", encoding="utf-8")
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 10**9))
    assert startup.load_corpus_file(str(path)).text == "newer text here"


def test_unreadable_path_is_a_message_not_a_crash(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "argv", ["app.py", "--corpus", str(tmp_path / "missing.txt")])
    at = AppTest.from_file(str(APP), default_timeout=60).run()
    assert not at.exception
    assert state.get_corpus(at.session_state) is None
    assert any("cannot be read" in e.value for e in at.error)


def test_a_new_servers_first_page_imports_no_pandas():
    """pandas is imported after a new server's first page (startup.import_later), not for it: in a
    fresh process, app.py's first run (the Corpus page, no corpus yet) leaves it unimported."""
    probe = ("import sys\n"
             "from streamlit.testing.v1 import AppTest\n"
             f"at = AppTest.from_file({str(APP)!r}, default_timeout=60).run()\n"
             "assert not at.exception, at.exception\n"
             "assert [t.value for t in at.title] == ['Corpus'], at.title\n"
             "print('pandas' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", probe], cwd=APP.parent, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == "False"


def test_what_the_first_page_did_not_need_is_imported_once_in_the_background(tmp_path, monkeypatch):
    (tmp_path / "tp_later_probe.py").write_text("IMPORTED = True\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "tp_later_probe", raising=False)
    settled = []
    monkeypatch.setattr(startup, "LATER", ("tp_later_probe",))
    monkeypatch.setattr(startup, "IMPORT_AFTER", 0.0)
    monkeypatch.setattr(startup, "_imported_later", False)
    monkeypatch.setattr(startup.heap, "settle", lambda: settled.append("tp_later_probe" in sys.modules))
    monkeypatch.setattr(startup.runtime, "exists", lambda: False)
    assert startup.import_later() is None and "tp_later_probe" not in sys.modules   # AppTest: no server
    monkeypatch.setattr(startup.runtime, "exists", lambda: True)
    timer = startup.import_later()
    assert timer is not None and timer.daemon
    timer.join(10)
    assert "tp_later_probe" in sys.modules and settled == [True]   # imported, then settled
    assert startup.import_later() is None and settled == [True]     # once a process
    monkeypatch.delitem(sys.modules, "tp_later_probe")


def test_the_heap_is_settled_in_the_background_even_with_nothing_left_to_import(monkeypatch):
    """A server started with --corpus has imported pandas for its first page: the background step
    still settles the heap once (app.py no longer settles before the first page)."""
    settled = []
    monkeypatch.setattr(startup, "LATER", ("sys",))            # imported already
    monkeypatch.setattr(startup, "IMPORT_AFTER", 0.0)
    monkeypatch.setattr(startup, "_imported_later", False)
    monkeypatch.setattr(startup.heap, "settle", lambda: settled.append(True))
    monkeypatch.setattr(startup.runtime, "exists", lambda: True)
    timer = startup.import_later()
    assert timer is not None
    timer.join(10)
    assert settled == [True]
    assert startup.import_later() is None and settled == [True]     # once a process
