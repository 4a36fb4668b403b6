"""playground/inspect_link.py: the Inspect page's link is read without ever raising, only digests
name kept files, a view's parameters read back as the same view, and uploaded files round-trip
through the bounded store."""
from __future__ import annotations

import hashlib

from hypothesis import given, settings
from hypothesis import strategies as st

from playground import inspect_link as il
from playground.corpus_store import CorpusStore


def test_a_view_written_and_read_back_is_the_same_view():
    digest = "a" * 64
    params = il.link_params("imported:mine", "Walk a word", "lowest", 3, "some text", "default", [digest])
    link, msgs = il.parse_link(params)
    assert msgs == []
    assert link == il.InspectLink(tokenizer="imported:mine", tab="Walk a word", word="lowest", chunk=3,
                                  text="some text", files=(digest,))


def test_defaults_are_left_out_and_a_long_text_goes_by_its_digest():
    assert il.link_params(None, "Pipeline", "", 0, "default", "default", []) == {}
    ref = "b" * 64
    params = il.link_params(None, None, "", 0, "x" * (il.MAX_URL_TEXT + 1), "default", [], text_ref=ref)
    assert params == {"text_ref": ref}


def test_forged_values_are_ignored_with_a_reason():
    link, msgs = il.parse_link({"files": "../../etc/passwd,/tmp/x," + "c" * 64, "tab": "nowhere",
                                "chunk": "-1", "text_ref": "../secret"})
    assert link.files == ("c" * 64,) and link.tab is None and link.chunk is None and link.text_ref is None
    assert len(msgs) == 4 and any("not a digest" in m for m in msgs)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from(il.URL_KEYS + ("other",)), st.text(max_size=80)))
def test_any_parameters_parse_without_raising(params):
    link, msgs = il.parse_link(params)
    assert all(len(f) == 64 for f in link.files)
    assert all(isinstance(m, str) for m in msgs)


def test_files_round_trip_through_the_store_under_their_digest(tmp_path):
    where = CorpusStore(tmp_path, 10 * 1024 * 1024)
    files = [("vocab.json", b'{"a": 0}'), ("merges.txt", b"#version: 0.2\n"), ("empty.txt", b"")]
    key = il.put_files(files, where)
    assert key == hashlib.sha256(il.bundle(files)).hexdigest()
    assert il.load_files(key, where) == files
    assert il.load_files("d" * 64, where) is None and il.load_files("../x", where) is None
    (tmp_path / f"{key}.bin").write_bytes(b"damaged")
    assert il.load_files(key, where) is None


@given(st.binary(max_size=200))
def test_unbundle_never_raises_on_damaged_bytes(data):
    got = il.unbundle(data)
    assert got is None or all(isinstance(n, str) and isinstance(b, bytes) for n, b in got)
