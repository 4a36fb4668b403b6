"""Session state behind one module: typed accessors, defaults set once.
(Over 400 lines by design: every session, widget-key and URL accessor of the app lives here, in one place.)

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

Widgets: every widget key of the app is a named constant here (CorpusKeys, MergesKeys,
CompareKeys, InspectKeys; pages write `key=K.TEXT`, never a string). A widget's value is kept in
one of two ways, chosen by what it holds:
    a value of the state above (a trainer setting, the Merges page's step or tokenizer): the
        typed state is the truth and the widget is drawn from it (`show_widget` before drawing;
        its callback writes the typed state back);
    anything else (a text typed on Compare or Inspect, a view option): the widget keeps its own
        value across pages, `persist_state=PERSIST`.
The address bar (query parameters) is read and written only through `url_params`,
`set_url_params` and `clear_url_params` (a page's own parameters), and `app_url_params` /
`set_app_link` (the corpus, settings and results every page's address names, corpus_store.py).

Not here: training (training.py), rendering (views.py, pages/).
"""
from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any, Mapping, MutableMapping, Optional

import streamlit as st

from core import presets
from core.corpus import WordCounts
from core.errors import CorpusError, PlaygroundError
from core.trainer import MODEL_LABELS, MODELS, Trace, TrainConfig  # noqa: F401 (MODEL_LABELS: pages read it here)
from core.unigram import UnigramConfig, UnigramTrace
from playground import heap, views


# The only raw keys of this app's own state (widget keys belong to their pages).
_CORPUS = "pg_corpus"
_SETTINGS = "pg_settings"
_RESULTS = "pg_results"
_STEP = "pg_step"
_NOTICE = "pg_notice"
_IMPORTED = "pg_imported"
_IMPORTED_FILES = "pg_imported_files"    # imported name -> the digest its files are kept under (Inspect's link)
_STARTED = "pg_started"
_ONCE = "pg_once"                        # names once() has answered True for in this session
_UNIGRAM_SETTINGS = "pg_unigram_settings"
_UNIGRAM = "pg_unigram"
_UNIGRAM_VIEW = "pg_unigram_view"

UNIGRAM = "unigram"            # Unigram's name where trainers are named (tokenizer keys, widget keys)
UNIGRAM_LABEL = "Unigram"


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

    def checked_preset(self) -> "Corpus":
        """This corpus, naming its preset only if it is that preset's corpus. A preset's words are
        counted once for every session (core.presets.words_for) and a corpus's traces and views are
        keyed by its digest, so a corpus read from outside (a session file, the store) that named
        a preset it is not would be trained, for everyone who brings the same text, as the preset."""
        if self.preset is None or _preset_digest(self.preset) == self.digest:
            return self
        return replace(self, preset=None)

    @property
    def size_label(self) -> str:
        """'42 characters' for text, '4 words (16 in all)' for a table; '1 character', '1 word'."""
        if self.text is not None:
            return _count(len(self.text), "character")
        wc = self.word_counts
        return f"{_count(len(wc), 'word')} ({wc.total:,} in all)" if wc is not None else ""


@lru_cache(maxsize=None)
def _preset_digest(key: str) -> Optional[str]:
    try:
        return Corpus.from_preset(presets.get_preset(key)).digest
    except PlaygroundError:      # a preset this version does not have (ConfigError), or an empty one
        return None


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
    ss[_UNIGRAM] = None   # new results: a Unigram trained with them is set after (unigram_control.train)
    heap.settle_for(results)   # they live as long as the session: out of the collector's full passes


def get_step(model: str, session: Optional[MutableMapping] = None) -> int:
    return _get(_STEP, session).get(model, 0)


def set_step(model: str, step: int, session: Optional[MutableMapping] = None) -> None:
    steps = dict(_get(_STEP, session))
    steps[model] = max(0, int(step))
    _ss(session)[_STEP] = steps


# -- Unigram: opt-in, trained beside the three (its own settings, result and step)

@dataclass(frozen=True)
class UnigramSettings:
    """Whether the Train button trains Unigram too, and with what."""
    on: bool = False
    config: UnigramConfig = field(default_factory=lambda: UnigramConfig(vocab_size=100).resolved())


@dataclass(frozen=True)
class UnigramResult:
    """The Unigram trace last trained, and the corpus it was trained on."""
    corpus_name: str
    corpus_digest: str
    trace: UnigramTrace
    # "" when trained here; "file:<sha256>" when loaded from a session file (as Results.origin)
    origin: str = field(default="", compare=False)

    @property
    def cache_key(self) -> str:
        """What the shared caches key this trace by: a loaded one apart from any trained here."""
        return self.corpus_digest if not self.origin else f"{self.corpus_digest}|{self.origin}"


def get_unigram_settings(session: Optional[MutableMapping] = None) -> UnigramSettings:
    return _ss(session).get(_UNIGRAM_SETTINGS) or UnigramSettings()


def set_unigram_settings(settings: UnigramSettings, session: Optional[MutableMapping] = None) -> None:
    _ss(session)[_UNIGRAM_SETTINGS] = settings


def get_unigram(session: Optional[MutableMapping] = None) -> Optional[UnigramResult]:
    return _ss(session).get(_UNIGRAM)


def set_unigram(result: Optional[UnigramResult], session: Optional[MutableMapping] = None) -> None:
    """Store a trained Unigram (after set_results, which clears it); its step goes back to 0."""
    ss = _ss(session)
    ss[_UNIGRAM] = result
    ss[_UNIGRAM_VIEW] = UnigramView()


@dataclass(frozen=True)
class UnigramView:
    """What the Unigram page shows: the iteration (0 = the seed pieces), the lattice's word, autoplay."""
    step: int = 0
    word: Optional[str] = None          # None: a short word of the corpus, picked by the page
    playing: bool = False
    speed: float = 1.0
    told: int = 0                       # the stepper's last tell applied (unigram_control.apply_told)
    url: Optional[tuple] = None         # the link's parameters last read or written (sorted items)


def get_unigram_view(session: Optional[MutableMapping] = None) -> UnigramView:
    return _ss(session).get(_UNIGRAM_VIEW) or UnigramView()


def set_unigram_view(view: UnigramView, session: Optional[MutableMapping] = None) -> None:
    _ss(session)[_UNIGRAM_VIEW] = view


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
    kept = dict(_ss(session).get(_IMPORTED_FILES) or {})
    if kept.pop(name, None) is not None:
        _ss(session)[_IMPORTED_FILES] = kept


def get_imported_files(session: Optional[MutableMapping] = None) -> dict[str, str]:
    """imported name -> the sha256 its uploaded files are kept under on the server (those kept)."""
    imported = _get(_IMPORTED, session)
    return {n: d for n, d in (_ss(session).get(_IMPORTED_FILES) or {}).items() if n in imported}


def set_imported_files(name: str, digest: str, session: Optional[MutableMapping] = None) -> None:
    kept = dict(_ss(session).get(_IMPORTED_FILES) or {})
    kept[name] = digest
    _ss(session)[_IMPORTED_FILES] = kept


def first_run(session: Optional[MutableMapping] = None) -> bool:
    """True once per browser session: for what a session does when it starts."""
    ss = _ss(session)
    if ss.get(_STARTED):
        return False
    ss[_STARTED] = True
    return True


def once(name: str, session: Optional[MutableMapping] = None) -> bool:
    """True the first time this browser session asks for `name`, False after: for what a session
    needs done once, whichever page run gets there first."""
    done = _ss(session).setdefault(_ONCE, set())
    if name in done:
        return False
    done.add(name)
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


# -- widget keys, one class per page (a key's string is what AppTest finds the widget by)

PERSIST = "session"   # persist_state of a widget that keeps its own value across pages


class CorpusKeys:
    INPUT_TAB = "corpus_input_tab"
    PRESET = "corpus_preset"
    LOAD_PRESET = "corpus_load_preset"
    PASTE = "corpus_paste"
    USE_PASTE = "corpus_use_paste"
    UPLOAD = "corpus_upload"
    USE_UPLOAD = "corpus_use_upload"
    TRAIN = "corpus_train"
    TRAIN_PASTE = "corpus_train_paste"        # train on the Paste tab's text (not yet the corpus)
    FIT_VOCAB = "corpus_fit_vocab"            # vocabulary sizes to each alphabet plus some merges
    START_PASTE = "corpus_start_paste"        # the first screen's own paste box

    @staticmethod
    def split(pre_tokenizer: str) -> str:
        """The unspaced-script hint's buttons: split("chars") == "corpus_split_chars"."""
        return f"corpus_split_{pre_tokenizer}"

    @staticmethod
    def start(name: str) -> str:
        """The first screen's one-click starts: start("kjv") == "corpus_start_kjv"."""
        return f"corpus_start_{name}"

    @staticmethod
    def variant(i: int) -> str:
        """The button of a preset's i-th variant."""
        return f"corpus_variant_{i}"

    @staticmethod
    def setting(model: str, field: str) -> str:
        """A trainer setting's widget: setting("bpe", "vocab_size") == "corpus_bpe_vocab_size"."""
        return views.widget_key(model, field)


class MergesKeys:
    MODEL = "merges_model"
    LOCKSTEP = "merges_lockstep"
    STEPPER = "merges_stepper"            # the step's controls, keys, autoplay and steps (browser_stepper.js)
    SCORES = "merges_scores"
    CURVES = "merges_curves"
    CURVES_BOX = "merges_curves_box"      # the curves and, laid over them (style.css), the step's mark
    CURVE_MARKS = "merges_curve_marks"
    # below the step's fragment: hosts (playground.html_panel) that the stepper draws each step into
    PAIRS_NOTE = "merges_pairs_note"      # the single view's captions: of its pairs, WordPiece's
    SCORES_NOTE = "merges_scores_note"    # count against score, the words the merge changed
    CHANGED_NOTE = "merges_changed_note"
    CURVE_MARKS_PANEL = "merges_curve_marks_panel"
    CORPUS = "merges_corpus"              # the corpus at the step
    CORPUS_NOTE = "merges_corpus_note"    # its caption
    TREE_TOKEN = "merges_tree_token"
    TREE_BOX = "merges_tree_box"          # the merge tree drawn (style.css: drawn only when scrolled near)
    TREE = "merges_tree"                  # its panel
    TREE_NOTE = "merges_tree_note"        # its caption

    @staticmethod
    def pairs(model: str) -> str:
        """The candidate-pairs chart of one tokenizer (three side by side in lockstep)."""
        return f"merges_pairs_{model}"

    @staticmethod
    def sentence(model: str) -> str:
        """The step's sentence of one tokenizer (playground.html_panel)."""
        return f"merges_sentence_{model}"

    UNIGRAM_COLUMN = "merges_unigram_column"   # lockstep: Unigram's step beside the three (a host)
    DETAIL_NOTE = "merges_detail_note"    # lockstep: under the detailed tokenizer's header

    @staticmethod
    def column(model: str) -> str:
        """Lockstep: one tokenizer's column at the step (a host the stepper draws into)."""
        return f"merges_column_{model}"

    @staticmethod
    def changed(model: str) -> str:
        """The words the step's merge changed, of one tokenizer (playground.html_panel)."""
        return f"merges_changed_{model}"


class UnigramKeys:
    # the Corpus page's Unigram settings
    ON = "corpus_unigram_on"
    VOCAB_SIZE = "corpus_unigram_vocab_size"
    PRE_TOKENIZER = "corpus_unigram_pre_tokenizer"
    NORMALIZER = "corpus_unigram_normalizer"
    SHRINKING = "corpus_unigram_shrinking_factor"
    SUB_ITERATIONS = "corpus_unigram_n_sub_iterations"
    UNK_TOKEN = "corpus_unigram_unk_token"
    FIT = "corpus_unigram_fit"
    # the Unigram page
    STEPPER = "unigram_stepper"         # the step's controls, keys, autoplay and steps (browser_stepper.js)
    WORD = "unigram_word"
    CURVES = "unigram_curves"
    CURVES_BOX = "unigram_curves_box"     # the curves and, laid over them (style.css), the step's mark
    CURVE_MARKS = "unigram_curve_marks"
    LATTICE_BOX = "unigram_lattice"
    # the hosts a step is drawn into (html_panel.host; the stepper's window carries their HTML)
    SENTENCE = "unigram_sentence"
    CURVE_MARKS_PANEL = "unigram_curve_marks_panel"
    PIECES = "unigram_pieces"
    LATTICE = "unigram_lattice_panel"


class CompareKeys:
    TEXT = "compare_text"
    SAMPLE = "compare_sample"
    VIEW = "compare_view"
    LAYOUT = "compare_layout"
    WHITESPACE = "compare_whitespace"
    GROUPED = "compare_grouped"
    TOKENIZERS = "compare_tokenizers"
    TAB = "compare_tab"
    BOUND_A = "compare_bound_a"
    BOUND_B = "compare_bound_b"
    DIFF_VOCAB = "compare_diff_vocab"
    SPECIAL = "compare_special"            # special tokens in the text: "As text" | "Recognized"
    ADD_SPECIAL = "compare_add_special"    # add each model's BOS/EOS/CLS/SEP
    CHUNKS = "compare_chunks"              # draw the pre-tokenizer's chunks above the tokens
    INFO_BOX = "compare_info_box"          # not a widget: the box of the picker's table (scrolls sideways)
    CHAT = ("compare_chat_system", "compare_chat_user", "compare_chat_assistant", "compare_chat_user2")
    # not widgets: True until the user edits the selection (it follows the defaults meanwhile);
    # choice key -> (tokenizer, text, Encoding or error) of the last run
    AUTO_SELECTION = "compare_auto_selection"
    ENCODED = "compare_encoded"
    # not a widget: the page's own URL parameters last read or written (sorted items), so a link is
    # applied once and the page's own writes are not read back as a new link
    URL_SEEN = "compare_url_seen"
    # not a widget: the imported tokenizers a link chose whose files are no longer kept (names), said
    # on the page until the selection is edited or another link is read
    LINK_GONE = "compare_link_gone"
    # not widgets: the panels the page's whole run drew as hosts an edit's feed updates (choice keys;
    # None when one is an error), and that feed (html_panel.feed, in the text's fragment)
    HOSTED = "compare_hosted"
    PANELS_FEED = "compare_panels_feed"
    WHOLE_RUN = "compare_whole_run"        # not a widget: the text's fragment runs in the page's whole run


class InspectKeys:
    TOKENIZER = "inspect_tokenizer"
    AT = "inspect_at"
    ENCODER = "inspect_encoder"
    TEXT = "inspect_text"
    PAIR = "inspect_pair"
    SEED_PAIR = "inspect_seed_pair"
    TAB = "inspect_tab"
    WALK_PIECE = "inspect_walk_piece"
    WALK_WORD = "inspect_walk_word"
    VOCAB_QUERY = "inspect_vocab_query"
    VOCAB_PARTIAL = "inspect_vocab_partial"
    TREE_TOKEN = "inspect_tree_token"
    TREE = "inspect_tree"                 # the merge tree drawn (html_panel)
    DOWNLOAD_TREE = "inspect_dl_tree"
    LENGTH_CHART = "inspect_length_chart"
    DOWNLOAD_TRACE_CSV = "inspect_dl_trace_csv"
    DOWNLOAD_TRACE_JSON = "inspect_dl_trace_json"
    IMPORT_FILES = "inspect_import_files"
    IMPORT = "inspect_import"
    SAVE_SESSION = "inspect_save_session"
    SESSION_FILE = "inspect_session_file"
    LOAD_SESSION = "inspect_load_session"
    REPLAY_CHUNK = "inspect_replay_chunk"
    REPLAY_STEP = "inspect_replay_step"
    REPLAY_OF = "inspect_replay_of"      # not a widget: the piece whose replay the step belongs to
    # not a widget: (imported tokenizer, its vocabulary table), kept beside the tokenizer
    VOCABULARY_KEPT = "inspect_vocabulary_kept"
    # not a widget: the page's own URL parameters last read or written (sorted items), so a link is
    # applied once and the page's own writes are not read back as a new link
    URL_SEEN = "inspect_url_seen"

    @staticmethod
    def vocabulary_table(tokenizer: str, step: Optional[int], query: str, partial_only: bool) -> str:
        """The vocabulary table: a new key per tokenizer and filter, so a selection never points
        at another row."""
        return f"inspect_vocab_table:{tokenizer}:{step}:{query}:{partial_only}"

    @staticmethod
    def download(name: str) -> str:
        """The download button of an exported file."""
        return f"inspect_dl_{name}"

    @staticmethod
    def remove(i: int) -> str:
        """The Remove button of the i-th imported tokenizer."""
        return f"inspect_remove_{i}"


class LanguagesKeys:
    TOKENIZERS = "languages_tokenizers"
    SORT = "languages_sort"
    TABLE_VIEW = "languages_table_view"
    HELD_OUT = "languages_held_out"
    TAX_CHART = "languages_tax_chart"
    CURVE_CHART = "languages_curve_chart"
    URL_SEEN = "languages_url_seen"      # not a widget: the page's URL parameters last read or written


# -- widget values

def show_settings(settings: Settings, session: Optional[MutableMapping] = None) -> None:
    """Store trainer settings and draw the Corpus page's settings widgets from them (a callback:
    a preset, a variant or a session file replaces them all)."""
    set_settings(settings, session)
    for model in MODELS:
        for f, value in views.config_to_widgets(settings.for_model(model)).items():
            set_widget(CorpusKeys.setting(model, f), value, session)


def show_widget(key: str, value: Any, session: Optional[MutableMapping] = None) -> None:
    """Draw a widget from typed state: call before drawing it (its callback writes the state back)."""
    _ss(session)[key] = value


def init_widget(key: str, value: Any, session: Optional[MutableMapping] = None) -> None:
    """Give a widget its first value if it has none (call before drawing the widget)."""
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
    tree_token: Optional[str] = None    # merge tree of this token; None: the current step's token
    url: tuple = ()                     # the query parameters last read or written, sorted items
    told: int = 0                       # the stepper's last tell applied (merges_control.apply_told)


def get_merges_view(session: Optional[MutableMapping] = None) -> MergesView:
    return _ss(session).get(_MERGES_VIEW) or MergesView()


def set_merges_view(view: MergesView, session: Optional[MutableMapping] = None) -> None:
    _ss(session)[_MERGES_VIEW] = view


# -- the address bar (query parameters)
#
# Two kinds of parameters share the address. A page's own (the Merges page's ?tokenizer=&step=,
# the Compare page's ?text=&tokenizers=) are read and written by that page through url_params /
# set_url_params. The app's link (APP_LINK_KEYS: ?corpus=<sha256>&settings=<sha256>&trained=<sha256>)
# is on every page: it names the corpus, the settings and the trained results by the digests they
# are kept under on the server (playground/corpus_store.py), so that F5 or a copied link restores
# them. A page's calls never see or drop the app's link; corpus_store.sync writes it.

APP_LINK_KEYS = ("corpus", "settings", "trained", "unigram")   # unigram: the settings a Unigram was trained with
_APP_LINK = "pg_app_link"            # the app's link last written: {key: hex digest}
_LINK_CHECKED = "pg_link_checked"    # the session has looked at its first address's app link
_LINK_PROBLEM = "pg_link_problem"    # what the link named that this server no longer has (text)


def _page_params(params: Mapping[str, str]) -> dict[str, str]:
    return {k: v for k, v in params.items() if k not in APP_LINK_KEYS}


def url_params() -> dict[str, str]:
    """The current page's own parameters (the app's link left out)."""
    return _page_params(st.query_params.to_dict())


def set_url_params(params: Mapping[str, str], session: Optional[MutableMapping] = None) -> None:
    """Write the page's parameters, the app's link kept beside them; only when they differ from
    the address bar's (no needless history entry). Each write is remembered for a while (is_echo)."""
    page = _page_params(params)
    _remember_written(page, session)
    if session is None:
        _write_url(page, app_link())


# The browser sends the address it has with every rerun it asks for. Under load it can ask before
# the address of a run still under way has reached it (a pause in typing, then a click at once), and
# the address it sends is one this session wrote a moment ago. A page that took it for a new link
# would undo what the user just did (the text typed since; a step). So an address this session
# wrote in the last ECHO_SECONDS is an echo of its own, never a link. The cost: pressing Back within
# that time does not reopen the view the previous address named.
ECHO_SECONDS = 10.0
_URL_WRITTEN = "pg_url_written"      # sorted page parameters -> time.monotonic() when last written


def _url_key(params: Mapping[str, str]) -> tuple:
    return tuple(sorted((k, str(v)) for k, v in params.items()))


def _remember_written(params: Mapping[str, str], session: Optional[MutableMapping]) -> None:
    ss = _ss(session)
    now = time.monotonic()
    written = {k: t for k, t in (ss.get(_URL_WRITTEN) or {}).items() if now - t < ECHO_SECONDS}
    written[_url_key(params)] = now
    ss[_URL_WRITTEN] = written


def link_to_open(last_seen: Optional[tuple]) -> Optional[dict[str, str]]:
    """The page's own parameters when the address holds a link to open: there are some, they are
    not the ones the page last read or wrote (`last_seen`, their sorted items), and they are not an
    echo of this session's recent writes (is_echo). Else None."""
    params = url_params()
    if not params or tuple(sorted(params.items())) == last_seen or is_echo(params):
        return None
    return params


def is_echo(params: Mapping[str, str], session: Optional[MutableMapping] = None) -> bool:
    """The page's parameters are ones this session wrote in the last ECHO_SECONDS: the browser's
    address lagging behind, not a link to open."""
    written = _ss(session).get(_URL_WRITTEN) or {}
    at = written.get(_url_key(_page_params(params)))
    return at is not None and time.monotonic() - at < ECHO_SECONDS


def clear_url_params() -> list[str]:
    """Remove the page's parameters from the address (the app's link stays); returns their names."""
    names = [k for k in st.query_params.keys() if k not in APP_LINK_KEYS]
    if names:
        _write_url({}, app_link())
    return names


def _write_url(page: Mapping[str, str], link: Mapping[str, str]) -> None:
    wanted = {**dict(page), **{k: v for k, v in link.items() if v}}
    if st.query_params.to_dict() != wanted:
        st.query_params.from_dict(wanted)


def app_url_params() -> dict[str, str]:
    """The app's link as the address has it now (unchecked: corpus_store validates every value)."""
    return {k: v for k, v in st.query_params.to_dict().items() if k in APP_LINK_KEYS}


def app_link(session: Optional[MutableMapping] = None) -> dict[str, str]:
    """The app's link this session last wrote (empty before the first)."""
    return dict(_ss(session).get(_APP_LINK) or {})


def set_app_link(link: Mapping[str, str], session: Optional[MutableMapping] = None) -> None:
    """Keep the app's link and put it in the address beside the page's own parameters."""
    link = {k: v for k, v in link.items() if k in APP_LINK_KEYS and v}
    _ss(session)[_APP_LINK] = link
    if session is None:
        _write_url(url_params(), link)


def link_checked(session: Optional[MutableMapping] = None) -> bool:
    """False until the session has looked at the app's link of its first address (then True)."""
    ss = _ss(session)
    if ss.get(_LINK_CHECKED):
        return True
    ss[_LINK_CHECKED] = True
    return False


_LINK_SYNCED = "pg_link_synced"      # (corpus, settings, results) the app's link was last written for


def link_synced_for(session: Optional[MutableMapping] = None) -> Optional[tuple]:
    return _ss(session).get(_LINK_SYNCED)


def set_link_synced_for(objects: tuple, session: Optional[MutableMapping] = None) -> None:
    _ss(session)[_LINK_SYNCED] = objects


def get_link_problem(session: Optional[MutableMapping] = None) -> Optional[str]:
    return _ss(session).get(_LINK_PROBLEM)


def set_link_problem(problem: Optional[str], session: Optional[MutableMapping] = None) -> None:
    _ss(session)[_LINK_PROBLEM] = problem
