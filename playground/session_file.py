"""A whole session in ONE JSON file, and back: corpus, trainer settings, the trained tokenizers
(their traces, through core/trace_io.py), the step each view shows, and imported tokenizer files.

Never pickle: a session file is data that anyone may hand to anyone, and unpickling runs code.
Loading is all or nothing: `parse_session` reads and validates the whole file into a `Session`
first (raising TokenizerFileError with a one-line reason for a truncated, binary, foreign or
newer file), and only then does `apply_session` replace the state, so a refused file leaves the
current session exactly as it was.

Layout (version 1):
    {"format": "tokenizer-playground-session", "version": 1, "app": "Tokenizer Playground",
     "corpus": null | {"name", "source", "preset", "text"} | {..., "word_counts": {"words", "counts"}},
     "settings": {"bpe": TrainConfig fields, "bbpe": ..., "wordpiece": ...},
     "results": null | {"corpus_name", "corpus_digest", "settings": {...},
                        "traces": {"bpe": trace, "bbpe": trace, "wordpiece": trace}},
     "steps": {"bpe": 0, "bbpe": 0, "wordpiece": 0},
     "imported": [{"name", "file": "x.json", "content": "<tokenizer.json text>"}]}
The corpus digest is recomputed from the text on load (never trusted from the file).

Not here: widgets (pages/inspect.py), the trace format itself (core/trace_io.py).
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field, replace
from typing import Any, Mapping, MutableMapping, Optional

from core import presets
from core.corpus import WordCounts, check_table_size
from core.errors import CorpusError, PlaygroundError, TokenizerFileError
from core.formats import load_tokenizer_bytes, tokenizer_file_text
from core.trace_io import config_from_json, config_to_json, trace_from_json, trace_to_json
from core.trainer import MODELS
from core.unigram import UnigramTrace

from playground import state
from playground.state import Corpus, Results, Settings, UnigramResult

SESSION_FORMAT = "tokenizer-playground-session"
SESSION_VERSION = 1
FILE_NAME = "playground-session.json"
SOURCES = ("paste", "upload", "preset")
# The largest count a word-count table may give a word (core.corpus refuses bigger ones on upload).
# Without it a hand-edited file with a count of 10^30 loaded, and the Corpus page's table of words
# then failed (Arrow cannot hold the number).
MAX_COUNT = 10 ** 15


class _Bad(Exception):
    """A field of the session file is missing or wrong (the message says where)."""


@dataclass(frozen=True)
class Session:
    """Everything a session file holds, validated."""
    corpus: Optional[Corpus] = None
    settings: Settings = field(default_factory=Settings)
    results: Optional[Results] = None
    steps: Mapping[str, int] = field(default_factory=lambda: {m: 0 for m in MODELS})
    imported: Mapping[str, Any] = field(default_factory=dict)   # name -> tokenizer
    unigram: Optional[UnigramResult] = None     # trained with the results (an optional field of the file)
    unigram_step: int = 0


# ---------------------------------------------------------------- saving

def current_session(session: Optional[MutableMapping] = None) -> Session:
    """The session as the state holds it now (cheap: references, no copies)."""
    results = state.get_results(session)
    return Session(corpus=state.get_corpus(session), settings=state.get_settings(session), results=results,
                   steps={m: state.get_step(m, session) for m in MODELS},
                   imported=state.get_imported(session), unigram=state.get_unigram(session),
                   unigram_step=state.get_unigram_view(session).step)


def _settings_json(settings: Settings) -> dict:
    return {m: config_to_json(settings.for_model(m)) for m in MODELS}


def _corpus_json(corpus: Optional[Corpus]) -> Optional[dict]:
    if corpus is None:
        return None
    out = {"name": corpus.name, "source": corpus.source, "preset": corpus.preset}
    if corpus.text is not None:
        out["text"] = corpus.text
    else:
        wc = corpus.word_counts
        out["word_counts"] = {"words": list(wc.words), "counts": list(wc.counts)}
    return out


def unwritten(imported: Mapping[str, Any]) -> list[str]:
    """Imported tokenizers a session file cannot hold: a .tiktoken or SentencePiece file has no
    tokenizer.json to write (its upload stays kept on the server, in the Inspect page's link)."""
    out = []
    for name, tok in imported.items():
        try:
            tokenizer_file_text(tok)
        except AttributeError:
            out.append(name)
    return out


def _imported_json(imported: Mapping[str, Any]) -> list[dict]:
    out = []
    skipped = set(unwritten(imported))
    for name, tok in imported.items():
        if name in skipped:
            continue
        content = tokenizer_file_text(tok)
        out.append({"name": name, "file": f"{name}.json", "content": content})
    return out


def session_to_json(s: Session) -> dict:
    results = None
    if s.results is not None:
        r = s.results
        results = {"corpus_name": r.corpus_name, "corpus_digest": r.corpus_digest,
                   "settings": _settings_json(r.settings),
                   "traces": {m: trace_to_json(r.trace(m)) for m in MODELS}}
    return {"format": SESSION_FORMAT, "version": SESSION_VERSION, "app": "Tokenizer Playground",
            "corpus": _corpus_json(s.corpus), "settings": _settings_json(s.settings), "results": results,
            "steps": {m: int(s.steps.get(m, 0)) for m in MODELS}, "imported": _imported_json(s.imported),
            "unigram": None if s.unigram is None else {
                "corpus_name": s.unigram.corpus_name, "corpus_digest": s.unigram.corpus_digest,
                "trace": s.unigram.trace.to_json(), "step": int(s.unigram_step)}}


def dump_session(s: Session) -> bytes:
    """The session file's bytes: UTF-8 JSON (ASCII escapes only if some text cannot be UTF-8)."""
    data = session_to_json(s)
    try:
        return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    except UnicodeEncodeError:   # a lone surrogate somewhere: \\ud800 escapes survive the round trip
        return json.dumps(data, ensure_ascii=True, separators=(",", ":")).encode("ascii")


# ---------------------------------------------------------------- loading

def _fail(message: str) -> TokenizerFileError:
    return TokenizerFileError(message.splitlines()[0][:300])


def parse_session(raw: bytes, name: str = "the file") -> Session:
    """Read and validate a whole session file; raises TokenizerFileError saying what is wrong."""
    if not raw:
        raise _fail(f"{name} is empty: choose a session file saved by this app")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise _fail(f"{name} is not a session file (it is not UTF-8 text): choose a .json file saved "
                    "here with “Save session”") from None
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as e:
        where = f" at line {e.lineno}, column {e.colno}" if hasattr(e, "lineno") else ""
        raise _fail(f"{name} is not valid JSON{where}: it may be cut short; save the session again") from None
    if not isinstance(data, dict):
        raise _fail(f"{name} is JSON but not a session file")
    if data.get("format") != SESSION_FORMAT:
        if "model" in data or (data and all(isinstance(v, int) for v in data.values())):
            raise _fail(f"{name} is a tokenizer file, not a session: import it under “Import tokenizer files”")
        raise _fail(f"{name} is JSON but not a session file of this app (no \"format\": \"{SESSION_FORMAT}\")")
    version = data.get("version")
    # exactly the int: true and 1.0 are == 1 in Python, and no version of the app wrote them
    if type(version) is not int or version != SESSION_VERSION:
        newer = type(version) is int and version > SESSION_VERSION
        raise _fail(f"{name} is a session file of version {version!r}; this app reads version {SESSION_VERSION}"
                    + (": update the app to load it" if newer else ""))
    try:
        s = _session(data)
    except (_Bad, PlaygroundError) as e:   # TokenizerFileError, CorpusError, ConfigError
        raise _fail(f"{name} is damaged: {e}") from None
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as e:
        raise _fail(f"{name} is damaged ({type(e).__name__}: {e})") from None
    except RecursionError:   # an imported tokenizer's JSON nested thousands deep
        raise _fail(f"{name} is damaged: a part of it is nested too deeply") from None
    if s.results is not None:   # its traces are the file's: cached apart from trained ones (state.Results)
        s = replace(s, results=replace(s.results, origin="file:" + hashlib.sha256(raw).hexdigest()))
    if s.unigram is not None:
        s = replace(s, unigram=replace(s.unigram, origin="file:" + hashlib.sha256(raw).hexdigest()))
    return s


def _need(d: dict, key: str, where: str):
    if key not in d:
        raise _Bad(f"{where}: missing field {key!r}")
    return d[key]


def _settings(value, where: str) -> Settings:
    if not isinstance(value, dict):
        raise _Bad(f"{where}: expected an object with bpe, bbpe and wordpiece")
    configs = {}
    for m in MODELS:
        cfg = config_from_json(_need(value, m, where), f"{where}.{m}")
        if cfg.model != m:
            raise _Bad(f"{where}.{m}: the settings are for {cfg.model!r}")
        configs[m] = cfg
    return Settings.from_configs(configs)


def _corpus(value) -> Optional[Corpus]:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise _Bad("corpus: expected an object or null")
    name, source, preset = _need(value, "name", "corpus"), _need(value, "source", "corpus"), value.get("preset")
    if not isinstance(name, str) or source not in SOURCES:
        raise _Bad("corpus: bad name or source")
    if preset is not None and (not isinstance(preset, str) or preset not in {p.key for p in presets.PRESETS}):
        preset = None   # a preset this version does not have: keep the corpus as plain data
    if "text" in value:
        if not isinstance(value["text"], str):
            raise _Bad("corpus.text: expected text")
        return Corpus.from_text(name, value["text"], source, preset).checked_preset()
    wc = _need(value, "word_counts", "corpus")
    if not isinstance(wc, dict):
        raise _Bad("corpus.word_counts: expected an object")
    words, counts = _need(wc, "words", "corpus.word_counts"), _need(wc, "counts", "corpus.word_counts")
    if not isinstance(words, list) or not isinstance(counts, list) or not words:
        raise _Bad("corpus.word_counts: expected as many counts (1 to 10^15) as distinct words")
    if len(words) != len(counts):
        counted = f"{len(counts):,} count{'' if len(counts) == 1 else 's'}"
        raise _Bad(f"corpus.word_counts: {len(words):,} words but {counted}")
    _check_words(words)
    bad = next((i for i, c in enumerate(counts, 1) if type(c) is not int or not 0 < c <= MAX_COUNT), None)
    if bad is not None:
        raise _Bad(f"corpus.word_counts.counts: count {bad:,} is not a whole number from 1 to 10^15")
    try:
        table = check_table_size(WordCounts(tuple(words), tuple(counts)), "corpus.word_counts")
    except CorpusError as e:
        raise _Bad(str(e)) from None
    return Corpus.from_table(name, table, source, preset).checked_preset()


def _check_words(words: list) -> None:
    """A table's words: each a distinct non-empty text, or _Bad naming the first that is not."""
    kinds = ((bool, "true/false"), (int, "a number"), (float, "a number"), (list, "a list"), (dict, "an object"))
    seen: dict[str, int] = {}
    for i, w in enumerate(words, 1):
        if type(w) is not str:
            what = "null" if w is None else next((k for t, k in kinds if isinstance(w, t)), "not text")
            raise _Bad(f"corpus.word_counts.words: word {i:,} is {what}, not text")
        if not w:
            raise _Bad(f"corpus.word_counts.words: word {i:,} is empty")
        if w in seen:
            raise _Bad(f"corpus.word_counts.words: word {i:,} repeats word {seen[w]:,}")
        seen[w] = i


def _results(value) -> Optional[Results]:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise _Bad("results: expected an object or null")
    corpus_name, digest = _need(value, "corpus_name", "results"), _need(value, "corpus_digest", "results")
    if not isinstance(corpus_name, str) or not isinstance(digest, str):
        raise _Bad("results: bad corpus name or digest")
    settings = _settings(_need(value, "settings", "results"), "results.settings")
    traces_raw = _need(value, "traces", "results")
    if not isinstance(traces_raw, dict):
        raise _Bad("results.traces: expected an object")
    traces = {}
    for m in MODELS:
        trace = trace_from_json(_need(traces_raw, m, "results.traces"))
        if trace.config.model != m:
            raise _Bad(f"results.traces.{m}: the trace is of a {trace.config.model!r} tokenizer")
        traces[m] = trace
    return Results(corpus_name=corpus_name, corpus_digest=digest, settings=settings, **traces)


def _steps(value, results: Optional[Results]) -> dict[str, int]:
    if not isinstance(value, dict):
        raise _Bad("steps: expected an object")
    out = {}
    for m in MODELS:
        v = value.get(m, 0)
        top = len(results.trace(m).steps) if results is not None else 0
        if type(v) is not int or not 0 <= v <= top:
            raise _Bad(f"steps.{m}: {v!r} is not a step of the trained {m} (0 to {top})")
        out[m] = v
    return out


def _imported(value) -> dict[str, Any]:
    if not isinstance(value, list):
        raise _Bad("imported: expected a list")
    out = {}
    for k, item in enumerate(value):
        if not isinstance(item, dict):
            raise _Bad(f"imported[{k}]: expected an object")
        name, file, content = item.get("name"), item.get("file"), item.get("content")
        if not all(isinstance(x, str) for x in (name, file, content)) or not name or name in out:
            raise _Bad(f"imported[{k}]: expected a distinct name, a file name and its content")
        out[name] = load_tokenizer_bytes(content.encode("utf-8", "surrogatepass"), file)
    return out


def _session(data: dict) -> Session:
    corpus = _corpus(data.get("corpus"))
    settings = _settings(_need(data, "settings", "session"), "settings")
    results = _results(data.get("results"))
    steps = _steps(data.get("steps", {}), results)
    imported = _imported(data.get("imported", []))
    unigram, unigram_step = _unigram(data.get("unigram"), results)
    return Session(corpus=corpus, settings=settings, results=results, steps=steps, imported=imported,
                   unigram=unigram, unigram_step=unigram_step)


def _unigram(value, results: Optional[Results]) -> tuple[Optional[UnigramResult], int]:
    """The optional Unigram of a session file (files saved before it have none)."""
    if value is None:
        return None, 0
    if not isinstance(value, dict) or results is None:
        raise _Bad("unigram: expected an object, beside trained results")
    name, digest, step = value.get("corpus_name"), value.get("corpus_digest"), value.get("step", 0)
    if not isinstance(name, str) or not isinstance(digest, str):
        raise _Bad("unigram: expected corpus_name and corpus_digest")
    if not isinstance(step, int) or isinstance(step, bool) or step < 0:
        raise _Bad("unigram: step must be a whole number of at least 0")
    trace = UnigramTrace.from_json(_need(value, "trace", "unigram"))
    return UnigramResult(name, digest, trace), step


def apply_session(s: Session, session: Optional[MutableMapping] = None) -> None:
    """Replace the state with a parsed session (cannot fail: parse_session validated it). Call it
    from a callback: it also sets the Corpus page's settings widgets, as loading a preset does."""
    state.set_corpus(s.corpus, session)
    state.show_settings(s.settings, session)       # the settings, and the Corpus page's widgets
    state.set_results(s.results, session)          # also resets the steps ...
    for m in MODELS:
        state.set_step(m, s.steps.get(m, 0), session)   # ... which the file then sets
    state.set_unigram(s.unigram, session)          # after set_results, which clears it
    if s.unigram is not None:
        state.set_unigram_view(state.UnigramView(step=s.unigram_step), session)   # the page clamps it
    for name in list(state.get_imported(session)):
        state.remove_imported(name, session)
    for name, tok in s.imported.items():
        state.add_imported(name, tok, session)
    if s.corpus is not None and s.corpus.preset is not None:
        state.set_widget(state.CorpusKeys.PRESET, s.corpus.preset, session)


def load_session(raw: bytes, name: str = "the file", session: Optional[MutableMapping] = None) -> Session:
    """parse_session then apply_session; on TokenizerFileError nothing has changed."""
    s = parse_session(raw, name)
    apply_session(s, session)
    return s


def summary(s: Session) -> str:
    """One line: what a session holds."""
    parts = [f"corpus “{s.corpus.name}” ({s.corpus.size_label})" if s.corpus is not None else "no corpus"]
    if s.results is not None:
        parts.append("trained: " + ", ".join(f"{state.MODEL_LABELS[m]} {len(s.results.trace(m).steps):,} merges"
                                             for m in MODELS))
    else:
        parts.append("nothing trained")
    if s.unigram is not None:
        parts.append(f"{state.UNIGRAM_LABEL} {len(s.unigram.trace.vocab):,} pieces")
    if s.imported:
        parts.append(f"{len(s.imported)} imported tokenizer{'s' if len(s.imported) > 1 else ''}")
    return "; ".join(parts)
