"""Nothing lost on reload: corpora, settings and long texts kept on the server under their sha256,
and the app's link (?corpus=&settings=&trained=) that names them, on every page. (Over 400 lines:
the store, what goes in it and the link that names it are read together when checking that no
value from an address becomes a path.)

    CorpusStore(root, cap_bytes)     a bounded folder of blobs named by the sha256 of their bytes;
                                     oldest (least recently used) evicted first past the cap
    store()                          this server's store: $TOKENIZER_PLAYGROUND_STORE, else
                                     ~/.cache/tokenizer-playground/store (the temp dir if that is
                                     not writable); cap $TOKENIZER_PLAYGROUND_STORE_MB (500 MB)
    put_corpus / load_corpus         a Corpus (text or word-count table) and back
    put_settings / load_settings     trainer Settings and back
    put_text / load_text             a long Compare text and back
    restore()                        once per session, before the page: rebuild what the address names
                                     (corpus, settings, results retrained from the training cache)
    sync()                           put what the session has in the store and its digests in the address
    show_link_problem()              "this link's corpus is gone" with a button to the Corpus page

Safety: a key from the address is used only after DIGEST.fullmatch (64 lowercase hex digits);
the file name is built from that digest and nothing else, so no value from a URL ever becomes a
path. A blob is checked against its digest when read (a damaged file is a missing one).

Not here: the address accessors (state.py), training (training.py).
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import asdict
import os
import re
import tempfile
from pathlib import Path
from typing import Optional

import streamlit as st

from core import presets
from core.corpus import WordCounts
from core.errors import PlaygroundError
from core.trace_io import config_from_json, config_to_json
from core.trainer import MODELS
from core.unigram import UnigramConfig

from playground import state, training, unigram_control, views
from playground.state import Corpus, Settings

DIGEST = re.compile(r"[0-9a-f]{64}")
DEFAULT_CAP_MB = 500
MAX_BLOB = 200 * 1024 * 1024     # a corpus larger than this is not kept (it still works in its session)
SOURCES = ("paste", "upload", "preset", "command line")


def valid_digest(value: object) -> Optional[str]:
    """The value if it is a sha256 hex digest (64 lowercase hex digits), else None:
    valid_digest("../../etc/passwd") is None."""
    return value if isinstance(value, str) and DIGEST.fullmatch(value) else None


class CorpusStore:
    """Blobs in one folder: `<sha256>.bin` (the bytes) and `<sha256>.json` (a small description).
    Writes are atomic (a temporary file renamed), reads touch the files (least recently used is
    evicted first), and the folder never grows past `cap_bytes` (the blob just written is kept)."""

    def __init__(self, root: Path, cap_bytes: int):
        self.root = Path(root)
        self.cap_bytes = int(cap_bytes)

    def _paths(self, key: str) -> Optional[tuple[Path, Path]]:
        if not valid_digest(key):
            return None
        return self.root / f"{key}.bin", self.root / f"{key}.json"

    def put(self, data: bytes, meta: dict, keep: tuple[str, ...] = ()) -> Optional[str]:
        """Keep `data` (and `meta`, JSON); returns its sha256, or None when it cannot be kept.
        `keep`: blobs that must outlive this one's eviction pass too (a record's bytes)."""
        if len(data) > MAX_BLOB:
            return None
        key = hashlib.sha256(data).hexdigest()
        blob, desc = self._paths(key)
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            if blob.exists() and desc.exists() and blob.stat().st_size == len(data):
                for p in (blob, desc):     # kept already: only used again (last to be evicted)
                    os.utime(p)
                return key
            _atomic_write(blob, data)
            _atomic_write(desc, json.dumps(meta, ensure_ascii=False, sort_keys=True).encode("utf-8"))
            self.evict(keep=(key, *keep))
        except OSError:
            return None
        return key

    def touch(self, key: str) -> Optional[str]:
        """`key` if a blob is kept under it (used again now: the last to be evicted), else None."""
        if not self.has(key):
            return None
        try:
            for p in self._paths(key):
                os.utime(p)
        except OSError:
            return None
        return key

    def get(self, key: object) -> Optional[tuple[bytes, dict]]:
        """(bytes, meta) kept under `key`, or None: not a digest, never kept, evicted or damaged."""
        paths = self._paths(key) if isinstance(key, str) else None
        if paths is None:
            return None
        blob, desc = paths
        try:
            data = blob.read_bytes()
            meta = json.loads(desc.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if hashlib.sha256(data).hexdigest() != key or not isinstance(meta, dict):
            return None
        for p in paths:          # used now: the last to be evicted
            try:
                os.utime(p)
            except OSError:
                pass
        return data, meta

    def has(self, key: object) -> bool:
        paths = self._paths(key) if isinstance(key, str) else None
        return paths is not None and paths[0].exists() and paths[1].exists()

    def size(self) -> int:
        return sum(p.stat().st_size for p in self._files())

    def _files(self) -> list[Path]:
        try:
            return [p for p in self.root.iterdir() if p.is_file() and p.suffix in (".bin", ".json")
                    and DIGEST.fullmatch(p.stem)]
        except OSError:
            return []

    def evict(self, keep: tuple[str, ...] = ()) -> list[str]:
        """Remove the least recently used blobs until the folder is within its cap, but not those
        in `keep`; returns their keys."""
        entries: dict[str, list] = {}
        for p in self._files():
            try:
                st_ = p.stat()
            except OSError:
                continue
            e = entries.setdefault(p.stem, [0, 0.0])
            e[0] += st_.st_size
            e[1] = max(e[1], st_.st_mtime)
        total = sum(size for size, _ in entries.values())
        gone = []
        for key, (size, _) in sorted(entries.items(), key=lambda kv: kv[1][1]):
            if total <= self.cap_bytes:
                break
            if key in keep:
                continue
            for suffix in (".bin", ".json"):
                try:
                    (self.root / f"{key}{suffix}").unlink()
                except OSError:
                    pass
            total -= size
            gone.append(key)
        return gone


def _atomic_write(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def default_root() -> Path:
    env = os.environ.get("TOKENIZER_PLAYGROUND_STORE")
    if env:
        return Path(env).expanduser()
    home = Path.home() / ".cache" / "tokenizer-playground" / "store"
    try:
        home.mkdir(parents=True, exist_ok=True)
        if os.access(home, os.W_OK):
            return home
    except OSError:
        pass
    return Path(tempfile.gettempdir()) / "tokenizer-playground-store"


def default_cap() -> int:
    try:
        mb = float(os.environ.get("TOKENIZER_PLAYGROUND_STORE_MB", DEFAULT_CAP_MB))
    except ValueError:
        mb = DEFAULT_CAP_MB
    return int(max(mb, 1) * 1024 * 1024)


def store() -> CorpusStore:
    """This server's store (its folder is shared by every session; the object holds no state, so
    a new one per call keeps module state unchanged while sessions run)."""
    return CorpusStore(default_root(), default_cap())


# ---------------------------------------------------------------- what is kept

def put_corpus(corpus: Corpus, where: Optional[CorpusStore] = None) -> Optional[str]:
    """Keep a corpus; returns its key: the sha256 of a small record (its name, source, preset, kind
    and the key of its bytes: the text, or the table as JSON, kept as a blob of their own). The
    bytes are shared by whoever keeps the same text; the record is this corpus's. (A description
    beside the shared bytes was the first keeper's: a session that pasted a text another had
    uploaded came back after F5 with the other's file name, and a text Compare had kept first came
    back as no corpus at all.) Called when the session's corpus object changes (sync), not on
    every run."""
    where = where or store()
    if corpus.text is not None:
        # a text's digest is its key: kept already, it is not encoded and hashed again (4 MB of the
        # KJV at each new setting on the Corpus page, which writes the address anew)
        kind = "text"
        data_key = where.touch(corpus.digest.removeprefix("text:")) or where.put(
            corpus.text.encode("utf-8", "surrogatepass"), {"kind": kind})
    else:
        wc = corpus.word_counts
        kind = "table"
        data_key = where.put(json.dumps({"words": list(wc.words), "counts": list(wc.counts)},
                                        ensure_ascii=False).encode("utf-8"), {"kind": kind})
    if data_key is None:
        return None
    record = {"data": data_key, "kind": kind, "name": corpus.name, "source": corpus.source, "preset": corpus.preset}
    return where.put(json.dumps(record, ensure_ascii=False, sort_keys=True).encode("utf-8"), {"kind": "corpus"},
                     keep=(data_key,))


def load_corpus(key: object, where: Optional[CorpusStore] = None) -> Optional[Corpus]:
    """The corpus kept under `key`, or None (not a digest, gone, or not a corpus). The key names
    a record (put_corpus), or, in a link written before records, the corpus's bytes themselves
    with their description beside them."""
    where = where or store()
    got = where.get(key)
    if got is None:
        return None
    data, meta = got
    try:
        if meta.get("kind") == "corpus":
            meta = json.loads(data.decode("utf-8"))
            bytes_key = valid_digest(meta.get("data"))
            held = where.get(bytes_key) if bytes_key else None
            if held is None:
                return None
            data = held[0]
        name = meta.get("name")
        source = meta.get("source") if meta.get("source") in SOURCES else "paste"
        preset = meta.get("preset") if meta.get("preset") in {p.key for p in presets.PRESETS} else None
        if not isinstance(name, str) or not name:
            name = "the linked corpus"
        if meta.get("kind") == "text":
            corpus = Corpus.from_text(name, data.decode("utf-8", "surrogatepass"), source, preset)
        elif meta.get("kind") == "table":
            table = json.loads(data.decode("utf-8"))
            words, counts = table["words"], table["counts"]
            if (not isinstance(words, list) or not isinstance(counts, list) or len(words) != len(counts)
                    or not all(isinstance(w, str) for w in words)
                    or not all(type(c) is int and c > 0 for c in counts)):
                return None
            corpus = Corpus.from_table(name, WordCounts(tuple(words), tuple(counts)), source, preset)
        else:
            return None
    except (PlaygroundError, ValueError, KeyError, TypeError, AttributeError, UnicodeDecodeError):
        return None
    return corpus.checked_preset()


def put_settings(settings: Settings, where: Optional[CorpusStore] = None) -> Optional[str]:
    data = json.dumps({m: config_to_json(settings.for_model(m)) for m in MODELS}, sort_keys=True).encode("utf-8")
    return (where or store()).put(data, {"kind": "settings"})


def load_settings(key: object, where: Optional[CorpusStore] = None) -> Optional[Settings]:
    got = (where or store()).get(key)
    if got is None or got[1].get("kind") != "settings":
        return None
    try:
        value = json.loads(got[0].decode("utf-8"))
        configs = {m: config_from_json(value[m], f"settings.{m}").resolved() for m in MODELS}
    except (PlaygroundError, ValueError, KeyError, TypeError):
        return None
    if any(configs[m].model != m for m in MODELS):
        return None
    return Settings.from_configs(configs)


def put_unigram_config(config: UnigramConfig, where: Optional[CorpusStore] = None) -> Optional[str]:
    """The settings a Unigram was trained with (the link's `unigram`: retrained on reload)."""
    data = json.dumps({**asdict(config), "special_tokens": list(config.special_tokens)}, sort_keys=True)
    return (where or store()).put(data.encode("utf-8"), {"kind": "unigram-settings"})


def load_unigram_config(key: object, where: Optional[CorpusStore] = None) -> Optional[UnigramConfig]:
    got = (where or store()).get(key)
    if got is None or got[1].get("kind") != "unigram-settings":
        return None
    try:
        value = json.loads(got[0].decode("utf-8"))
        return UnigramConfig(**{**value, "special_tokens": tuple(value["special_tokens"])}).resolved()
    except (PlaygroundError, ValueError, KeyError, TypeError):
        return None


def put_text(text: str, where: Optional[CorpusStore] = None) -> Optional[str]:
    """A Compare text too long for the address."""
    return (where or store()).put(text.encode("utf-8", "surrogatepass"), {"kind": "compare-text"})


def load_text(key: object, where: Optional[CorpusStore] = None) -> Optional[str]:
    got = (where or store()).get(key)
    if got is None or got[1].get("kind") not in ("compare-text", "text"):
        return None
    try:
        return got[0].decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:
        return None


# ---------------------------------------------------------------- the app's link

GONE = ("This link's corpus is no longer kept on this server (the store keeps the most recently "
        "used corpora, up to its size limit), so its trained tokenizers cannot be rebuilt. "
        "Load a corpus on the Corpus page.")
BAD = "Ignored the link's corpus: it is not a corpus reference (64 hexadecimal digits)."


def restore() -> None:
    """Once per session (app.py, before the page): rebuild what the address's app link names.
    A link's corpus replaces a command-line corpus; results are retrained from the training cache
    by (corpus digest, settings). A missing corpus or settings leaves a problem to show."""
    if state.link_checked():
        return
    params = state.app_url_params()
    if not params:
        return
    raw = params.get("corpus")
    key = valid_digest(raw)
    if raw is not None and key is None:
        state.set_link_problem(BAD)
        return
    corpus = load_corpus(key) if key else None
    if key and corpus is None:
        state.set_link_problem(GONE)
        return
    if corpus is None:
        return
    state.set_corpus(corpus)
    for name in ("settings", "trained", "unigram"):   # said apart from "no longer kept"
        if params.get(name) and valid_digest(params.get(name)) is None:
            state.set_notice("info", f"Ignored the link's {name}=: it is not a reference (64 hexadecimal digits).")
    settings_key = valid_digest(params.get("settings"))
    settings = load_settings(settings_key) if settings_key else None
    if settings_key and settings is None:
        state.set_notice("info", "The link's trainer settings are no longer kept on this server: the Corpus "
                         "page shows the defaults.")
    if settings is not None:
        state.show_settings(settings)
    trained_key = valid_digest(params.get("trained"))
    trained = load_settings(trained_key) if trained_key else None
    if trained_key and trained is None:
        state.set_notice("info", "The link's trained tokenizers are no longer kept on this server: press "
                         "Train on the Corpus page to train them again.")
    if trained is not None:
        try:
            with st.spinner(f"Restoring the tokenizers trained on {views.md_escape(corpus.name)}…"):
                results = training.train_all(corpus, trained)
        except PlaygroundError as e:
            state.set_notice("error", f"Could not retrain the link's tokenizers: {e}")
        else:
            state.set_results(results)
            _restore_unigram(corpus, params.get("unigram"))
    state.set_app_link(_link_of_state())


def _restore_unigram(corpus: Corpus, raw: Optional[str]) -> None:
    """The link's Unigram, retrained from its settings (after the three: set_results clears it)."""
    key = valid_digest(raw) if raw else None
    config = load_unigram_config(key) if key else None
    if key and config is None:
        state.set_notice("info", "The link's Unigram settings are no longer kept on this server: press "
                         "Train on the Corpus page to train it again.")
        return
    if config is None:
        return
    try:
        state.set_unigram(unigram_control.train(corpus, config))
    except PlaygroundError as e:
        state.set_notice("error", f"Could not retrain the link's Unigram: {e}")


def _link_of_state() -> dict[str, str]:
    corpus = state.get_corpus()
    if corpus is None:
        return {}
    key = put_corpus(corpus)
    if not key:
        return {}
    link = {"corpus": key}
    settings = state.get_settings()
    if settings != Settings():
        link["settings"] = put_settings(settings) or ""
    results = state.get_results()
    if results is not None and not results.origin and results.corpus_digest == corpus.digest:
        link["trained"] = put_settings(results.settings) or ""
        unigram = state.get_unigram()
        if unigram is not None and not unigram.origin and unigram.corpus_digest == corpus.digest:
            link["unigram"] = put_unigram_config(unigram.trace.config) or ""
    return {k: v for k, v in link.items() if v}


def sync() -> None:
    """Keep what the session has and put its digests in the address (cheap when nothing changed:
    the same objects are compared by identity)."""
    now = (state.get_corpus(), state.get_settings(), state.get_results(), state.get_unigram())
    last = state.link_synced_for()
    if last is not None and all(a is b for a, b in zip(last, now)):
        link = state.app_link()
        if state.app_url_params() != link:
            state.set_app_link(link)     # a page switch cleared the address: put the link back
        return
    link = _link_of_state()
    state.set_link_synced_for(now)
    state.set_app_link(link)
    if now[0] is not None and state.get_link_problem():
        state.set_link_problem(None)      # a corpus is loaded: the link's problem is over


def show_link_problem() -> None:
    """The link's problem (its corpus is gone), with a button to the Corpus page; until a corpus is loaded."""
    problem = state.get_link_problem()
    if problem and state.get_corpus() is None:
        st.warning(problem, icon=":material/link_off:")
        st.page_link("pages/corpus.py", label="Load a corpus on the Corpus page", icon=":material/description:")
