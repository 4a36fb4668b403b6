"""What app.py does at start.

A corpus named on the command line: `streamlit run app.py -- --corpus PATH`. PATH is a UTF-8 text
file, or a word-count table (.csv/.tsv with header `word,count`, or .parquet, e.g. one written by
`python -m core count`): the way in for corpora too large to upload. Every new browser session
starts with it.

`through_app()`: every page runs inside app.py, even a deep link on a new server.

`import_later()`: what a new server's first page does not need is imported after it is drawn,
and the heap settled then.
"""
from __future__ import annotations

import argparse
import importlib
import os
import runpy
import sys
import threading
from pathlib import Path
from typing import Optional, Sequence

import streamlit as st
from streamlit import runtime

from core.corpus import decode_text, read_word_count_table
from core.errors import CorpusError
from playground import heap
from playground.state import Corpus

TABLE_SUFFIXES = (".csv", ".tsv", ".parquet")
APP = Path(__file__).resolve().parents[1] / "app.py"


def corpus_path(argv: Sequence[str]) -> Optional[str]:
    """The --corpus argument of the app's own command line (after `--`), if any."""
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--corpus")
    args, _ = parser.parse_known_args(list(argv))
    return args.corpus


def load_corpus_file(path: str) -> Corpus:
    """A Corpus from a file, or CorpusError with a one-line reason."""
    p = Path(path)
    try:
        stamp = p.stat().st_mtime_ns
    except OSError as e:
        raise CorpusError(f"the corpus named on the command line cannot be read: {path} ({e.strerror})") from None
    return _cached_corpus_file(str(p.resolve()), stamp)


@st.cache_resource(max_entries=4, show_spinner="Reading the corpus named on the command line…")
def _cached_corpus_file(path: str, stamp: int) -> Corpus:
    # one read per file version for all sessions (the stamp is part of the key: no leading
    # underscore); Corpus is immutable, so sharing it is safe
    p = Path(path)
    data = p.read_bytes()
    if p.suffix.lower() in TABLE_SUFFIXES:
        return Corpus.from_table(p.name, read_word_count_table(data, p.name), "command line")
    return Corpus.from_text(p.name, decode_text(data, p.name), "command line")


def startup_corpus(argv: Sequence[str]) -> Optional[Corpus]:
    path = corpus_path(argv)
    return load_corpus_file(os.path.expanduser(path)) if path else None


def through_app() -> None:
    """Make sure the page runs inside app.py (navigation, sidebar status, link handling).

    A `pages/` folder beside app.py puts Streamlit 1.67 in its old multipage mode until app.py has
    called st.navigation once in the server's life (AppTest starts every run in it): if the first
    session on a new server opens a deep link such as /merges?preset=seed-000&step=2, Streamlit
    runs pages/merges.py on its own, with the folder's file names as navigation and no sidebar.
    Every page calls this first: in that mode it runs app.py here, in this same script run (so a
    click it carries is not lost, as a rerun would lose it), which switches the old mode off and
    runs this page inside the frame; then this outer run of the page ends."""
    from streamlit.runtime.pages_manager import PagesManager
    if PagesManager.uses_pages_directory:
        runpy.run_path(str(APP), run_name="__main__")
        st.stop()


# pandas (~0.3 s to import, more with the collection that follows it; bench/README.md) is needed
# only once a corpus is shown: its word tables (views.py). (numpy comes with the first run anyway:
# Streamlit imports it to serve the page's icon.)
LATER = ("pandas",)
IMPORT_AFTER = 1.0   # seconds after the first run: importing at once held back that run's last messages
_imported_later = False
_import_later_lock = threading.Lock()   # two first runs ending at once (two sessions) start one timer


def import_later() -> Optional[threading.Timer]:
    """Once a server process, at the end of its first run: import LATER in the background, so that
    the page drawn first did not wait for them and the first click that needs them finds them
    loaded; then settle the heap (heap.settle: the app's modules, Streamlit's, Plotly's and these
    out of the collector's full passes). The first page does not wait for that settle either: made
    before it, it cost the server's first session ~50 ms. Returns the timer started, if any. Nothing
    outside a server (AppTest): a test process imports what its tests need, and a collection in the
    background there would race the tests of the collector (tests/playground/test_heap.py)."""
    global _imported_later
    if not runtime.exists():
        return None
    with _import_later_lock:
        if _imported_later:
            return None
        _imported_later = True
    missing = [name for name in LATER if name not in sys.modules]   # none after a --corpus start

    def work() -> None:
        for name in missing:
            importlib.import_module(name)
        heap.settle()
    timer = threading.Timer(IMPORT_AFTER, work)
    timer.name, timer.daemon = "import-later", True
    timer.start()
    return timer
