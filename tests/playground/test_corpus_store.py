"""The bounded store behind "nothing lost on reload" (playground/corpus_store.py): blobs named by
their sha256, least recently used evicted first past the cap, keys from a URL used only when they
are a digest (never a path), damaged blobs read as missing, corpora and settings round trip."""
from __future__ import annotations

import hashlib
import os

import pytest

from core.corpus import WordCounts
from core.trainer import TrainConfig
from playground import corpus_store
from playground.corpus_store import CorpusStore, valid_digest
from playground.state import Corpus, Settings

BAD_KEYS = ["../../etc/passwd", "..%2F..%2Fetc%2Fpasswd", "/etc/passwd", "a" * 63, "a" * 65, "A" * 64,
            "g" * 64, "a" * 64 + "/x", "a" * 64 + "\n", " " + "a" * 63, "", None, 42, ["a" * 64]]


@pytest.fixture
def store(tmp_path):
    return CorpusStore(tmp_path / "store", cap_bytes=10_000)


def test_put_and_get_by_sha256(store):
    key = store.put(b"hello", {"kind": "text"})
    assert key == hashlib.sha256(b"hello").hexdigest()
    assert store.get(key) == (b"hello", {"kind": "text"})
    assert store.has(key) and store.put(b"hello", {"kind": "text"}) == key      # kept once
    assert sorted(p.name for p in store.root.iterdir()) == [f"{key}.bin", f"{key}.json"]


@pytest.mark.parametrize("key", BAD_KEYS)
def test_a_key_that_is_not_a_digest_is_never_a_path(store, tmp_path, key):
    (tmp_path / "secret.bin").write_bytes(b"secret")
    store.put(b"x", {"kind": "text"})
    assert valid_digest(key) is None
    assert store.get(key) is None and not store.has(key)
    assert corpus_store.load_corpus(key, store) is None and corpus_store.load_text(key, store) is None
    assert corpus_store.load_settings(key, store) is None


def test_a_damaged_blob_reads_as_missing(store):
    key = store.put(b"original", {"kind": "text"})
    (store.root / f"{key}.bin").write_bytes(b"tampered")
    assert store.get(key) is None
    key2 = store.put(b"other", {"kind": "text"})
    (store.root / f"{key2}.json").write_text("{not json")
    assert store.get(key2) is None
    assert store.get("0" * 64) is None       # never kept


def test_oldest_is_evicted_first_past_the_cap(store):
    keys = []
    for i in range(4):
        keys.append(store.put(bytes([65 + i]) * 3000, {"kind": "text"}))
        os.utime(store.root / f"{keys[-1]}.bin", (1000 + i, 1000 + i))
        os.utime(store.root / f"{keys[-1]}.json", (1000 + i, 1000 + i))
    # 4 × ~3 KB > 10 KB: the first was evicted when the fourth came in
    assert not store.has(keys[0]) and all(store.has(k) for k in keys[1:])
    assert store.size() <= store.cap_bytes
    # reading one makes it the most recent: the next eviction takes another
    assert store.get(keys[1]) is not None
    new = store.put(b"E" * 3000, {"kind": "text"})
    assert store.has(keys[1]) and store.has(new) and not store.has(keys[2])
    assert store.size() <= store.cap_bytes


def test_a_blob_larger_than_the_cap_is_kept_alone(tmp_path):
    small = CorpusStore(tmp_path / "s", cap_bytes=100)
    old = small.put(b"a" * 50, {"kind": "text"})
    big = small.put(b"b" * 500, {"kind": "text"})
    assert small.has(big) and not small.has(old)


def test_corpora_settings_and_texts_round_trip(store):
    text = Corpus.from_text("Pasted text", "low lower lowest 分词 🇨🇳\n", "paste")
    key = corpus_store.put_corpus(text, store)
    kept = text.digest.split(":", 1)[1]                 # the text is kept under its own sha256, the key
    assert store.has(kept) and key != kept              # names its record (name, source, preset)
    assert corpus_store.load_corpus(key, store) == text
    os.utime(store.root / f"{kept}.bin", (1000, 1000))
    assert corpus_store.put_corpus(text, store) == key and (store.root / f"{kept}.bin").stat().st_mtime > 1000
    assert store.touch("0" * 64) is None and store.touch("../x") is None
    table = Corpus.from_table("counts.csv", WordCounts(("low", "lower", "<b>"), (5, 2, 1)), "upload")
    back = corpus_store.load_corpus(corpus_store.put_corpus(table, store), store)
    assert back == table and back.digest == table.digest
    settings = Settings().with_model("bpe", TrainConfig(model="bpe", vocab_size=77, min_frequency=2).resolved())
    assert corpus_store.load_settings(corpus_store.put_settings(settings, store), store) == settings
    assert corpus_store.load_settings(key, store) is None            # a corpus is not settings
    long_text = "x" * 5000
    assert corpus_store.load_text(corpus_store.put_text(long_text, store), store) == long_text


def test_the_same_text_kept_by_two_people_comes_back_as_each_ones(store):
    # the bytes are shared, the description is each corpus's: after F5 a pasted text is not
    # another session's upload (its file name), and a text Compare kept first is still a corpus
    text = "A long text that two people happen to share. " * 40
    theirs = corpus_store.put_corpus(Corpus.from_text("alice-diary.txt", text, "upload"), store)
    mine = corpus_store.put_corpus(Corpus.from_text("Pasted text", text, "paste"), store)
    assert mine != theirs
    assert (corpus_store.load_corpus(mine, store).name, corpus_store.load_corpus(mine, store).source) == \
        ("Pasted text", "paste")
    assert corpus_store.load_corpus(theirs, store).name == "alice-diary.txt"
    compared = "Pasted in Compare first, then used as a corpus. " * 40
    corpus_store.put_text(compared, store)
    key = corpus_store.put_corpus(Corpus.from_text("Pasted text", compared, "paste"), store)
    assert corpus_store.load_corpus(key, store) == Corpus.from_text("Pasted text", compared, "paste")
    assert corpus_store.load_text(corpus_store.put_text(compared, store), store) == compared


def test_a_link_written_before_records_still_opens_its_corpus(store):
    # such a link named the text's own blob, its description beside it
    text = "low lower lowest " * 10
    key = store.put(text.encode("utf-8"), {"kind": "text", "name": "old.txt", "source": "upload", "preset": None})
    assert corpus_store.load_corpus(key, store) == Corpus.from_text("old.txt", text, "upload")


def test_a_records_bytes_outlive_its_own_eviction_pass(tmp_path):
    small = CorpusStore(tmp_path / "s", cap_bytes=300)
    key = corpus_store.put_corpus(Corpus.from_text("big", "b" * 500, "paste"), small)
    assert corpus_store.load_corpus(key, small).text == "b" * 500


def test_the_default_store_is_configured_by_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("TOKENIZER_PLAYGROUND_STORE", str(tmp_path / "here"))
    monkeypatch.setenv("TOKENIZER_PLAYGROUND_STORE_MB", "2")
    s = corpus_store.store()
    assert s.root == tmp_path / "here" and s.cap_bytes == 2 * 1024 * 1024
    monkeypatch.delenv("TOKENIZER_PLAYGROUND_STORE")
    monkeypatch.delenv("TOKENIZER_PLAYGROUND_STORE_MB")
    assert corpus_store.store().cap_bytes == corpus_store.DEFAULT_CAP_MB * 1024 * 1024
