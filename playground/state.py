"""Session state behind one small module: typed accessors, defaults set once.

Pages never read or write raw `st.session_state` keys; they call the functions here. What is
kept per browser session:
    corpus     Corpus | None       the current corpus (text, or a word-count table)
    settings   Settings            one TrainConfig per trainer: what the Train button will use
    results    Results | None      the three Traces last trained, with the corpus and settings used
    step       model -> int        the step each trainer's views show (0 = before any merge)
    notice     (kind, text) | None a message a callback leaves for the page to show once
Traces are immutable and shared with the training cache (training.py): storing one here costs a
reference, not a copy.

Every accessor takes an optional `session` mapping (default: `st.session_state`) so tests can
read an AppTest's state with the same code: `get_results(at.session_state)`.

Not here: training (training.py), rendering (views.py, pages/).
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace
from typing import Any, Mapping, MutableMapping, Optional

import streamlit as st

from core.corpus import WordCounts
from core.errors import CorpusError
from core.trainer import MODELS, Trace, TrainConfig

MODEL_LABELS = {"bpe": "BPE", "bbpe": "Byte-level BPE", "wordpiece": "WordPiece"}

# The only raw keys of this app's own state (widget keys belong to their pages).
_CORPUS = "pg_corpus"
_SETTINGS = "pg_settings"
_RESULTS = "pg_results"
_STEP = "pg_step"
_NOTICE = "pg_notice"
_IMPORTED = "pg_imported"
_STARTED = "pg_started"


@dataclass(frozen=True)
class Corpus:
    """The current corpus: text (pasted, uploaded, preset) or a word-count table."""
    name: str
    text: Optional[str]                 # None for a word-count table
    word_counts: Optional[WordCounts]   # the table's words; None for text (counted per trainer)
    source: str                         # "paste" | "upload" | "preset"
    preset: Optional[str] = None        # the preset's key when loaded from one
    digest: str = ""                    # sha256 of the text or table: the training cache key

    @classmethod
    def from_text(cls, name: str, text: str, source: str, preset: Optional[str] = None) -> "Corpus":
        if not text.strip():
            raise CorpusError(f"{name} is empty: paste or upload some text, or pick a preset")
        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
        return cls(name=name, text=text, word_counts=None, source=source, preset=preset,
                   digest="text:" + digest)

    @classmethod
    def from_table(cls, name: str, word_counts: WordCounts, source: str,
                   preset: Optional[str] = None) -> "Corpus":
        return cls(name=name, text=None, word_counts=word_counts, source=source, preset=preset,
                   digest="table:" + word_counts.digest())

    @classmethod
    def from_preset(cls, preset) -> "Corpus":
        """The corpus of a core.presets.Preset (its text, or its word-count table)."""
        if preset.is_table:
            return cls.from_table(preset.name, preset.corpus_word_counts(), "preset", preset.key)
        return cls.from_text(preset.name, preset.corpus_text(), "preset", preset.key)

    @property
    def is_table(self) -> bool:
        return self.text is None

    @property
    def size_label(self) -> str:
        """'42 characters' for text, '4 words (16 in all)' for a table; '1 character', '1 word'."""
        if self.text is not None:
            return _count(len(self.text), "character")
        wc = self.word_counts
        return f"{_count(len(wc), 'word')} ({wc.total:,} in all)" if wc is not None else ""


@dataclass(frozen=True)
class Settings:
    """What the Train button will use: one TrainConfig per trainer."""
    bpe: TrainConfig = field(default_factory=lambda: TrainConfig(model="bpe", vocab_size=500).resolved())
    bbpe: TrainConfig = field(default_factory=lambda: TrainConfig(model="bbpe", vocab_size=512).resolved())
    wordpiece: TrainConfig = field(default_factory=lambda: TrainConfig(model="wordpiece", vocab_size=500).resolved())

    def for_model(self, model: str) -> TrainConfig:
        return getattr(self, model)

    def with_model(self, model: str, config: TrainConfig) -> "Settings":
        return replace(self, **{model: config})

    @classmethod
    def from_configs(cls, configs: Mapping[str, TrainConfig]) -> "Settings":
        return cls(**{m: configs[m] for m in MODELS})


@dataclass(frozen=True)
class Results:
    """The last training run: a Trace per trainer, and what it was trained on."""
    corpus_name: str
    corpus_digest: str
    settings: Settings
    bpe: Trace
    bbpe: Trace
    wordpiece: Trace
    # "" when trained here; "file:<sha256 of the session file>" when loaded from one (not compared:
    # the same results loaded back are equal to the ones saved)
    origin: str = field(default="", compare=False)

    @property
    def cache_key(self) -> str:
        """What the shared tokenizer caches key these traces by (with each trace's settings_key).
        Trained here, a trace is fixed by its corpus and settings, so the corpus digest is enough
        and every session that trains the same shares one tokenizer. A loaded trace is whatever its
        file says, under whatever digest the file claims: keyed apart, so that no session file can
        put its traces in front of a user who trains that corpus here."""
        return self.corpus_digest if not self.origin else f"{self.corpus_digest}|{self.origin}"

    def trace(self, model: str) -> Trace:
        return getattr(self, model)

    def traces(self) -> dict[str, Trace]:
        return {m: self.trace(m) for m in MODELS}


def _count(n: int, noun: str) -> str:
    """_count(1, "word") == "1 word"; _count(1200, "word") == "1,200 words"."""
    return f"{n:,} {noun}" + ("" if n == 1 else "s")


def _ss(session: Optional[MutableMapping]) -> MutableMapping:
    return st.session_state if session is None else session


def init(session: Optional[MutableMapping] = None) -> None:
    """Set every default once; app.py calls this before any page runs."""
    ss = _ss(session)
    defaults = {_CORPUS: None, _SETTINGS: Settings(), _RESULTS: None,
                _STEP: {m: 0 for m in MODELS}, _NOTICE: None, _IMPORTED: {}}
    for key, value in defaults.items():
        if key not in ss:
            ss[key] = value


def _get(key: str, session: Optional[MutableMapping]) -> Any:
    ss = _ss(session)
    if key not in ss:
        init(ss)
    return ss[key]


# -- corpus

def get_corpus(session: Optional[MutableMapping] = None) -> Optional[Corpus]:
    return _get(_CORPUS, session)


def set_corpus(corpus: Corpus, session: Optional[MutableMapping] = None) -> None:
    _ss(session)[_CORPUS] = corpus


# -- trainer settings

def get_settings(session: Optional[MutableMapping] = None) -> Settings:
    return _get(_SETTINGS, session)


def set_settings(settings: Settings, session: Optional[MutableMapping] = None) -> None:
    _ss(session)[_SETTINGS] = settings


# -- trained results and the step each view shows

def get_results(session: Optional[MutableMapping] = None) -> Optional[Results]:
    return _get(_RESULTS, session)


def set_results(results: Results, session: Optional[MutableMapping] = None) -> None:
    ss = _ss(session)
    ss[_RESULTS] = results
    ss[_STEP] = {m: 0 for m in MODELS}


def get_step(model: str, session: Optional[MutableMapping] = None) -> int:
    return _get(_STEP, session).get(model, 0)


def set_step(model: str, step: int, session: Optional[MutableMapping] = None) -> None:
    steps = dict(_get(_STEP, session))
    steps[model] = max(0, int(step))
    _ss(session)[_STEP] = steps


# -- tokenizer files imported on the Inspect page (usable on Compare): name -> tokenizer

def get_imported(session: Optional[MutableMapping] = None) -> dict:
    """name -> TrainedTokenizer or core.formats.HFTokenizer, in import order."""
    return dict(_get(_IMPORTED, session))


def add_imported(name: str, tokenizer: Any, session: Optional[MutableMapping] = None) -> None:
    imported = dict(_get(_IMPORTED, session))
    imported[name] = tokenizer
    _ss(session)[_IMPORTED] = imported


def remove_imported(name: str, session: Optional[MutableMapping] = None) -> None:
    imported = dict(_get(_IMPORTED, session))
    imported.pop(name, None)
    _ss(session)[_IMPORTED] = imported


def first_run(session: Optional[MutableMapping] = None) -> bool:
    """True once per browser session: for what a session does when it starts."""
    ss = _ss(session)
    if ss.get(_STARTED):
        return False
    ss[_STARTED] = True
    return True


# -- one-shot messages from callbacks (shown by the page, then gone)

def set_notice(kind: str, text: str, session: Optional[MutableMapping] = None) -> None:
    """kind: "error" | "success" | "info"."""
    _ss(session)[_NOTICE] = (kind, text)


def pop_notice(session: Optional[MutableMapping] = None) -> Optional[tuple[str, str]]:
    ss = _ss(session)
    notice = _get(_NOTICE, ss)
    ss[_NOTICE] = None
    return notice


# -- widget values (a page's keyed widgets)
# Streamlit drops a widget's value when a run does not draw it (e.g. on another page), so pages
# keep what matters in typed state above and re-seed their widgets from it with `init_widget`.

def init_widget(key: str, value: Any, session: Optional[MutableMapping] = None) -> None:
    """Give a widget its value if it has none (call before drawing the widget)."""
    ss = _ss(session)
    if key not in ss:
        ss[key] = value


def set_widget(key: str, value: Any, session: Optional[MutableMapping] = None) -> None:
    """Change a widget's value: only from a callback or before the widget is drawn."""
    _ss(session)[key] = value


def widget_value(key: str, default: Any = None, session: Optional[MutableMapping] = None) -> Any:
    ss = _ss(session)
    return ss[key] if key in ss else default


# -- the Merges page's view: which tokenizer, lockstep, autoplay (kept across page switches)

_MERGES_VIEW = "pg_merges_view"


@dataclass(frozen=True)
class MergesView:
    """What the Merges page shows besides the steps (those are `get_step`)."""
    model: str = "bpe"                  # the tokenizer in view (and whose details are drawn)
    lockstep: bool = False              # all three side by side at one step index
    speed: float = 1.0                  # autoplay: seconds per step
    playing: bool = False
    played_at: float = 0.0              # time.monotonic() of the last autoplay step
    tree_token: Optional[str] = None    # merge tree of this token; None: the current step's token
    url: tuple = ()                     # the query parameters last read or written, sorted items


def get_merges_view(session: Optional[MutableMapping] = None) -> MergesView:
    return _ss(session).get(_MERGES_VIEW) or MergesView()


def set_merges_view(view: MergesView, session: Optional[MutableMapping] = None) -> None:
    _ss(session)[_MERGES_VIEW] = view
