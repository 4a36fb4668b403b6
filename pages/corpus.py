"""Corpus page: choose a corpus (preset, paste, upload), see its statistics, set the three
(Over 400 lines: the first screen, three ways in (preset, paste, upload), the statistics and three
trainers' settings are all this page's widgets; moving its first screen into playground/ is next.)
trainers, train them. Widgets -> core calls (cached in playground.training) -> render.

Errors from the engine are PlaygroundErrors with one-line messages: shown with st.error, and
nothing the user already had (corpus, trained results) is lost.
"""
from dataclasses import replace
from pathlib import PurePath

import streamlit as st

from core import presets
from core.corpus import decode_text, read_word_count_table
from core.errors import CorpusError, PlaygroundError
from core.pipeline import NORMALIZERS, PRE_TOKENIZERS
from core.limits import MAX_VOCAB_SIZE
from core.trainer import END_OF_WORD_MODES, MODELS, SCORE_RULES, TIE_RULES, TRAINER_PATH
from core.unigram import UNIGRAM_PATH
from playground import merges_control, state, training, unigram_control, views
from playground.state import MODEL_LABELS, Corpus, CorpusKeys as K, Settings
from playground.startup import through_app

through_app()   # a deep link on a new server (or AppTest) may run this file without app.py

TABLE_SUFFIXES = (".csv", ".tsv", ".parquet")

# short enough for a select box a third of a 1024-pixel projector wide (the help says more)
PRE_TOKENIZER_LABELS = {
    "whitespace": "whitespace",
    "gpt2": "gpt2 (bytes)",
    "bert": "bert",
    "jieba": "jieba (Chinese)",
    "chars": "chars",
}
HELP = {
    "vocab_size": "Tokens in the final vocabulary, special tokens included. Training stops when it is "
                  "reached, or earlier (no pair left, minimum frequency, maximum merges).",
    "pre_tokenizer": "How text is cut into words before any merge; merges never cross a word. "
                     "whitespace: at spaces (seeds 000, 003). gpt2: GPT-2's regex over UTF-8 bytes, a "
                     "space stays in front of the next word and shows as Ġ (seed 001). bert: at spaces "
                     "and around every punctuation mark. jieba: Chinese word segmentation. chars: every "
                     "CJK character is a word of its own.",
    "normalizer": "Applied to the text before pre-tokenizing. lowercase; nfkc: compatibility forms "
                  "(ﬁ → fi, ① → 1); bert-uncased: lowercase, strip accents, clean control characters.",
    "end_of_word": "none: a word's end is not marked (low and lower share 'low'). symbol: </w> is a "
                   "symbol of its own after every word (seeds 000, 004). suffix: the last character "
                   "carries it (w</w>), as Hugging Face's BPE does.",
    "score": "likelihood: freq(xy) / (freq(x)·freq(y)), the WordPiece score seed 004 and the Hugging "
             "Face course teach; it prefers pairs whose parts are rare on their own. frequency: the "
             "plain pair count, which is what Hugging Face's WordPieceTrainer actually uses.",
    "tie_break": "Which pair wins when several share the best value. first: the one met first reading "
                 "the words in corpus order (the seeds' rule). hf: the smallest token ids (Hugging "
                 "Face's BpeTrainer). lexical: the smallest spelling.",
    "min_frequency": "Pairs seen fewer times are never merged; training stops when none is left "
                     "(seed 002 uses 2).",
    "special_tokens": "Comma-separated tokens that get the first ids and are never merged, e.g. "
                      "<|endoftext|>. Text that spells one is still ordinary text.",
    "unk_token": "What encoding emits for text the vocabulary cannot cover, e.g. [UNK] or </u>; it is "
                 "added as a special token. Empty: none (such text is refused).",
    "max_merges": "Stop after this many merges; 0: no limit.",
    "keep_newlines": "Keep each line's break at its end, as Hugging Face's train(files) does (a newline "
                     "then enters words; gpt2 shows it as Ċ). Off: a line break only separates words.",
}


# ---------------------------------------------------------------- callbacks

def _upload_limit_mb() -> int:
    """The upload limit in MB (server.maxUploadSize): the uploader refuses bigger files itself."""
    return int(st.get_option("server.maxUploadSize"))


def _load_preset() -> None:
    key = state.widget_value(K.PRESET)
    try:
        preset = presets.get_preset(key)
        corpus = Corpus.from_preset(preset)
        settings = Settings.from_configs(preset.configs())
    except PlaygroundError as e:
        state.set_notice("error", f"Could not load the preset: {views.md_escape(str(e))}")
        return
    state.set_corpus(corpus)
    state.show_settings(settings)
    state.set_notice("success", f"Loaded “{preset.name}” and its trainer settings. Press Train.")


def _use_paste() -> None:
    text = state.widget_value(K.PASTE, "") or ""
    try:
        corpus = Corpus.from_text("Pasted text", text, "paste")
    except CorpusError as e:
        state.set_notice("error", f"{views.md_escape(str(e))}. The current corpus is unchanged.")
        return
    state.set_corpus(corpus)
    state.set_notice("success", f"Using the pasted text ({corpus.size_label}).{_fit_vocab(corpus)}")


def _use_upload() -> None:
    upload = state.widget_value(K.UPLOAD)
    if upload is None:
        # also what a click finds after the uploader refused a file as too large (it shows why)
        state.set_notice("error", f"Choose a file first (at most {_upload_limit_mb()} MB): a .txt text, or a "
                                  "word,count table (.csv, .tsv, .parquet).")
        return
    name = upload.name
    try:
        data = upload.getvalue()
        if PurePath(name).suffix.lower() in TABLE_SUFFIXES:
            corpus = Corpus.from_table(name, read_word_count_table(data, name), "upload")
        else:
            corpus = Corpus.from_text(name, decode_text(data, name), "upload")
    except PlaygroundError as e:
        state.set_notice("error", f"{views.md_escape(str(e))}. The current corpus is unchanged.")
        return
    state.set_corpus(corpus)
    state.set_notice("success", f"Using {views.md_escape(name)} ({corpus.size_label}).{_fit_vocab(corpus)}")


def _fit_vocab(corpus: Corpus) -> str:
    """A new corpus: each vocabulary size too small for its alphabet becomes the alphabet plus
    views.FIT_MERGES merges (shown in the widgets). Returns a sentence for the notice, or ""."""
    try:
        settings, changed = training.fit_vocab_sizes(corpus, _current_settings(), views.FIT_MERGES)
    except PlaygroundError:
        return ""   # the page says why the corpus cannot be counted
    if not changed:
        return ""
    state.show_settings(settings)
    sizes = ", ".join(f"{MODEL_LABELS[m]} {new:,}" for m, (_, new) in changed.items())
    return (f" Vocabulary sizes set to this corpus's alphabet plus {views.FIT_MERGES} merges: {sizes}.")


def _fit_vocab_clicked() -> None:
    corpus = state.get_corpus()
    if corpus is None:
        return
    said = _fit_vocab(corpus)
    state.set_notice("info", (said.strip() if said else "The vocabulary sizes already leave room for merges.")
                     + " Press Train.")


def _split_unspaced(pre_tokenizer: str) -> None:
    """The unspaced-script hint's one click: the trainers that split at spaces (whitespace, or bert:
    spaces and punctuation) split otherwise; byte-level BPE keeps GPT-2's own rule."""
    settings = _current_settings()
    names = []
    for m in MODELS:
        cfg = settings.for_model(m)
        if cfg.resolved().pre_tokenizer in ("whitespace", "bert"):
            settings = settings.with_model(m, replace(cfg, pre_tokenizer=pre_tokenizer))
            names.append(MODEL_LABELS[m])
    state.show_settings(settings)
    corpus = state.get_corpus()
    fitted = _fit_vocab(corpus) if corpus is not None else ""
    state.set_notice("success", f"{' and '.join(names) or 'No trainer'} now split{'s' if len(names) == 1 else ''} "
                                f"with {PRE_TOKENIZER_LABELS[pre_tokenizer]}.{fitted} Press Train.")


def _train_paste() -> None:
    """The Paste tab's text, made the corpus and trained in one click."""
    _use_paste()
    corpus = state.get_corpus()
    if corpus is None or corpus.text != (state.widget_value(K.PASTE, "") or ""):
        return   # the paste was refused: its notice says why
    try:
        results = training.train_all(corpus, _current_settings())
    except PlaygroundError as e:
        state.set_notice("error", f"{views.md_escape(str(e))}. The pasted text is now the corpus; your earlier "
                                  "results are unchanged.")
        return
    state.set_results(results)
    merges_control.warm(results, state.get_corpus())
    state.set_notice("success", f"Trained all three on the pasted text ({corpus.size_label}).")


START_PRESETS = (("seed-000", "The seed's first example", ":material/school:"),
                 ("chinese", "A Chinese paragraph", ":material/translate:"),
                 ("kjv", "The King James Bible", ":material/menu_book:"))


def _start(key: str) -> None:
    """The first screen's one click: load a preset and train the three on it."""
    try:
        preset = presets.get_preset(key)
        corpus = Corpus.from_preset(preset)
        settings = Settings.from_configs(preset.configs())
        results = training.train_all(corpus, settings)
    except PlaygroundError as e:
        state.set_notice("error", f"Could not start with the preset: {views.md_escape(str(e))}")
        return
    state.set_corpus(corpus)
    state.show_settings(settings)
    state.set_results(results)
    merges_control.warm(results, state.get_corpus())
    state.set_notice("success", f"Loaded and trained “{preset.name}”. Step through its merges on the Merges page.")


@st.dialog("Paste your own text", width="large")
def _paste_dialog() -> None:
    st.text_area("Text", key=K.START_PASTE, height=260, placeholder="Paste any text here: a paragraph or many "
                 "pages, in any script…")
    if st.button("Train all three on this text", key=K.start("paste_go"), type="primary"):
        text = state.widget_value(K.START_PASTE, "") or ""
        try:
            corpus = Corpus.from_text("Pasted text", text, "paste")
        except CorpusError as e:
            st.error(f"{views.md_escape(str(e))}.")
            return
        state.set_corpus(corpus)
        fitted = _fit_vocab(corpus)
        try:
            results = training.train_all(corpus, _current_settings())
        except PlaygroundError as e:
            state.set_notice("error", f"{views.md_escape(str(e))}. The pasted text is now the corpus.")
        else:
            state.set_results(results)
            merges_control.warm(results, state.get_corpus())
            state.set_notice("success", f"Trained all three on the pasted text ({corpus.size_label}).{fitted}")
        st.rerun()


def _first_screen() -> None:
    """Before any corpus: what this is, in two lines, and one-click starts."""
    with st.container(border=True, key="corpus_first_screen"):
        st.markdown("**See how a tokenizer learns its vocabulary.** BPE, byte-level BPE and WordPiece are "
                    "trained on a text, and you step through every merge they make, then compare them.  \n"
                    "Start with one click, or choose a preset, paste or upload a corpus below.")
        with st.container(horizontal=True, gap="small"):
            for key, label, icon in START_PRESETS:
                st.button(label, key=K.start(key), on_click=_start, args=(key,), icon=icon,
                          help=presets.get_preset(key).name + ": load it with its settings and train the three.")
            if st.button("Paste your own text", key=K.start("paste"), icon=":material/content_paste:"):
                _paste_dialog()


def _apply_variant(model: str, changes: dict) -> None:
    settings = state.get_settings()
    state.show_settings(settings.with_model(model, replace(settings.for_model(model), **changes)))
    state.set_notice("info", "Settings changed for " + MODEL_LABELS[model] + ". Press Train to see the merges.")


# ---------------------------------------------------------------- settings from widgets

def _current_settings() -> Settings:
    """Read the settings widgets (seeded from state: they lose their values on other pages) and
    write each value back, every run. A widget reaches the browser with its value only in a run that
    wrote it; one drawn first in a later run (a click cut short the run that wrote it, likely when the
    server is busy) shows its own default instead, 1 for a vocabulary size, and the next click sends
    that back: ten sessions training at once under load trained one with every size 1."""
    stored = state.get_settings()
    configs = {}
    for model in MODELS:
        base = stored.for_model(model)
        values = {}
        for field, value in views.config_to_widgets(base).items():
            key = K.setting(model, field)
            values[field] = state.widget_value(key, value)
            state.show_widget(key, values[field])
        configs[model] = views.widgets_to_config(model, values, base)
    settings = Settings.from_configs(configs)
    if settings == stored:
        return stored    # the same object: corpus_store.sync compares by identity, and a new one made it
                         # work out the address again at every run (the corpus's 4 MB hashed, on the KJV)
    state.set_settings(settings)
    return settings


def _settings_widgets(model: str) -> None:
    k = lambda field: K.setting(model, field)  # noqa: E731
    st.number_input("Vocabulary size", min_value=1, max_value=MAX_VOCAB_SIZE, step=1, key=k("vocab_size"),
                    help=HELP["vocab_size"])
    if model == "bpe":
        st.selectbox("End of word", END_OF_WORD_MODES, key=k("end_of_word"), help=HELP["end_of_word"])
    if model == "wordpiece":
        st.selectbox("Score", SCORE_RULES, key=k("score"), help=HELP["score"])
    st.selectbox("Pre-tokenizer", PRE_TOKENIZERS, key=k("pre_tokenizer"), help=HELP["pre_tokenizer"],
                 format_func=PRE_TOKENIZER_LABELS.get)
    st.selectbox("Normalizer", NORMALIZERS, key=k("normalizer"), help=HELP["normalizer"])
    st.selectbox("Tie rule", TIE_RULES, key=k("tie_break"), help=HELP["tie_break"])
    st.number_input("Minimum pair frequency", min_value=1, step=1, key=k("min_frequency"), help=HELP["min_frequency"])
    with st.expander("More options"):
        st.text_input("Special tokens", key=k("special_tokens"), help=HELP["special_tokens"])
        st.text_input("Unknown token", key=k("unk_token"), help=HELP["unk_token"])
        st.number_input("Maximum merges", min_value=0, step=1, key=k("max_merges"), help=HELP["max_merges"])
        st.checkbox("Keep line breaks", key=k("keep_newlines"), help=HELP["keep_newlines"])


# ---------------------------------------------------------------- the page

settings = _current_settings()
unigram = unigram_control.current_settings()
corpus = state.get_corpus()

st.title("Corpus")
if corpus is None and state.get_results() is None:
    _first_screen()
st.caption("Pick a preset, paste text or upload a file; set the three trainers; train them all at once.")

# Always drawn, even empty, so a message never shifts the tabs below (which would reset them
# to their first tab).
with st.container():
    notice = state.pop_notice()
    if notice:
        kind, text = notice
        {"error": st.error, "success": st.success}.get(kind, st.info)(text)

tab_preset, tab_paste, tab_upload = st.tabs(["Presets", "Paste", "Upload"], key=K.INPUT_TAB)
with tab_preset:
    choice = st.selectbox("Preset", [p.key for p in presets.PRESETS], key=K.PRESET,
                          format_func=lambda key: presets.get_preset(key).name,
                          help="The seeds' worked examples (with their exact settings) and sample corpora.")
    if corpus is None or corpus.preset != choice:
        st.markdown(presets.get_preset(choice).description)
    st.button("Load preset", key=K.LOAD_PRESET, on_click=_load_preset, type="primary",
              help="Replaces the corpus and all trainer settings with the preset's.")
with tab_paste:
    st.text_area("Text", key=K.PASTE, height=200, placeholder="Paste any text here…")
    st.button("Use this text", key=K.USE_PASTE, on_click=_use_paste)
with tab_upload:
    st.file_uploader("A UTF-8 .txt file, or a word-count table (.csv/.tsv with header word,count, or .parquet)",
                     type=["txt", "csv", "tsv", "parquet"], key=K.UPLOAD,
                     help=f"At most {_upload_limit_mb()} MB a file (server.maxUploadSize in "
                          ".streamlit/config.toml). Bigger corpora: `streamlit run app.py -- --corpus PATH`.")
    st.button("Use this file", key=K.USE_UPLOAD, on_click=_use_upload)

st.divider()
if corpus is None:
    st.info("No corpus yet: load a preset, paste some text or upload a file above.")
else:
    st.subheader(f"Current corpus: {views.md_escape(corpus.name)}")
    preset = presets.get_preset(corpus.preset) if corpus.preset else None
    if preset is not None:
        st.markdown(preset.description)
        if preset.seed_note:
            st.warning("Where the seed's printout differs from its own rules: " + preset.seed_note,
                       icon=":material/info:")
        for i, variant in enumerate(preset.variants):
            st.button(f"Try: {variant.label}", key=K.variant(i), on_click=_apply_variant,
                      args=(variant.model, dict(variant.changes)))
    try:
        overview = training.corpus_overview(corpus, settings.bpe)
    except PlaygroundError as e:
        st.error(f"{views.md_escape(str(e))}. Change the BPE pre-tokenizer or normalizer, or use another corpus.")
        overview = None
    if overview is not None:
        stats = overview.stats
        # a wrapping row of fixed-width figures: on a narrow projector they go on to a second line
        # instead of cutting their labels ("Unique wo…")
        with st.container(horizontal=True, gap="medium"):
            st.metric("Characters", f"{stats.characters:,}", width=160)
            st.metric("Bytes (UTF-8)", f"{stats.bytes:,}", width=160)
            st.metric("Words", f"{stats.words:,}", width=160)
            st.metric("Unique words", f"{stats.unique_words:,}", width=160)
            st.metric("Alphabet", f"{stats.alphabet_size:,}", help="Distinct characters in the words.", width=160)
        if corpus.is_table:
            st.caption("A word-count table: words are used as given (no pre-tokenizer, no normalizer); a word "
                       "listed on several rows counts once, with their counts added; characters and bytes "
                       "count each word as often as it occurs.")
        else:
            bpe = settings.bpe.resolved()
            st.caption(f"Words as the BPE settings split them (pre-tokenizer {bpe.pre_tokenizer}, "
                       f"normalizer {bpe.normalizer}).")
            if views.looks_unspaced(overview.unspaced_share, bpe.pre_tokenizer):
                share = overview.unspaced_share
                with st.container(border=True, key="corpus_unspaced_hint"):
                    st.warning(f"{share:.0%} of the lines are one long “word”: this text has no spaces between "
                               "its words (Chinese, Japanese, Thai…), so splitting at spaces makes each line a "
                               "word. Split it otherwise:", icon=":material/space_bar:")
                    with st.container(horizontal=True):
                        st.button("One character a word (chars)", key=K.split("chars"), on_click=_split_unspaced,
                                  args=("chars",), type="primary")
                        st.button("Chinese words (jieba)", key=K.split("jieba"), on_click=_split_unspaced,
                                  args=("jieba",))
        left, right = st.columns([2, 3])
        with left:
            frame = overview.top_words
            st.dataframe(frame, hide_index=True, height=360 if len(frame) > 10 else "auto")
            if overview.more_words:
                st.caption(f"The {len(frame):,} most frequent of {stats.unique_words:,} unique words "
                           "(click a column to sort these).")
        with right:
            if corpus.text is not None:
                shown, cut = views.preview(corpus.text)
                st.code(shown, language=None, wrap_lines=True,
                        height=360 if len(shown) > 1500 or shown.count("\n") > 12 else "content")
                if cut:
                    st.caption(f"The first {views.PREVIEW_CHARS:,} of {len(corpus.text):,} characters.")

st.divider()
st.header("Trainers")
cols = st.columns(3)
too_small = []
for col, model in zip(cols, MODELS):
    with col:
        st.subheader(MODEL_LABELS[model])
        _settings_widgets(model)
        if corpus is not None:
            try:
                base = training.base_size(corpus, settings.for_model(model))
            except PlaygroundError:
                base = None
            if base is not None:
                vocab = settings.for_model(model).vocab_size
                room = vocab - base
                st.caption(f"Starts from {base:,} tokens (alphabet and special tokens): "
                           + (f"room for {room:,} merge{'s' if room != 1 else ''}." if room > 0
                              else "no room for any merge."))
                if room <= 0:
                    too_small.append(model)
if corpus is not None:
    st.caption(views.ALPHABET_CAPTION)
with st.container(border=True, key="corpus_unigram_box"):
    st.subheader(state.UNIGRAM_LABEL)
    unigram_control.settings_widgets(corpus, unigram)
if too_small:
    st.warning(" and ".join(MODEL_LABELS[m] for m in too_small) + ": the vocabulary size is not above the "
               "alphabet, so no merge can be learned.", icon=":material/warning:")
    st.button(f"Fit the vocabulary sizes to this corpus (its alphabet plus {views.FIT_MERGES} merges)",
              key=K.FIT_VOCAB, on_click=_fit_vocab_clicked, icon=":material/build:")

pasted = state.widget_value(K.PASTE, "") or ""
if pasted.strip() and (corpus is None or corpus.text != pasted):
    # what is on screen is not what Train would train: say so, and offer it in one click
    st.info("The Paste tab holds text that is not the current corpus"
            + (f" ({views.md_escape(corpus.name)})" if corpus is not None else "") + ".",
            icon=":material/content_paste:")
    st.button("Train all three on the pasted text", key=K.TRAIN_PASTE, on_click=_train_paste,
              help="Makes the pasted text the corpus, then trains the three on it.")
train_label = ("Train all four" if unigram.on else "Train all three") + (
    f" on “{views.md_escape(corpus.name)}”" if corpus is not None else "")
trained_names = "BPE, byte-level BPE, WordPiece and Unigram" if unigram.on else "BPE, byte-level BPE and WordPiece"
if st.button(train_label, key=K.TRAIN, type="primary", disabled=corpus is None,
             help=f"Trains {trained_names} on the current corpus; a result already trained is reused. "
                  f"The trainer runs its {TRAINER_PATH} (the same merges either way)"
                  + (f"; Unigram its {UNIGRAM_PATH} (the same pieces and scores either way)." if unigram.on else ".")):
    with st.status(f"Training {trained_names}…", expanded=True) as status:
        try:
            # Unigram first: a vocabulary size outside the corpus's limits fails at once, before anything is replaced
            unigram_result = unigram_control.train(corpus, unigram.config) if unigram.on else None
            results = training.train_all(corpus, settings)
        except PlaygroundError as e:
            status.update(label="Training failed", state="error", expanded=True)
            st.error(f"{views.md_escape(str(e))}. Your corpus and earlier results are unchanged.")
            if "below the alphabet" in str(e) and not too_small:
                st.button(f"Fit the vocabulary sizes to this corpus (its alphabet plus {views.FIT_MERGES} merges)",
                          key=K.FIT_VOCAB, on_click=_fit_vocab_clicked, icon=":material/build:")
        else:
            state.set_results(results)
            state.set_unigram(unigram_result)
            merges_control.warm(results, state.get_corpus())
            status.update(label="Trained all four" if unigram.on else "Trained all three", state="complete",
                          expanded=False)

results = state.get_results()
if results is not None:
    st.subheader("Trained tokenizers")
    if corpus is None or results.corpus_digest != corpus.digest:
        st.caption(f"Trained on an earlier corpus: {views.md_escape(results.corpus_name)}. Press Train for this one.")
    rows = [{"tokenizer": MODEL_LABELS[m], **views.trace_summary(t)} for m, t in results.traces().items()]
    st.dataframe(rows, hide_index=True)
    unigram_result = state.get_unigram()
    if unigram_result is not None:
        ut = unigram_result.trace
        st.caption(f"{state.UNIGRAM_LABEL}: {len(ut.vocab):,} pieces from {len(ut.seeds):,} seed pieces, in "
                   f"{len(ut.em_steps):,} EM steps and {len(ut.prunes):,} prunings.")
        for note in ut.notes:
            st.warning(f"{state.UNIGRAM_LABEL}: {views.md_escape(note)}.", icon=":material/content_cut:")
    for model, trace in results.traces().items():
        for note in trace.notes:
            st.warning(f"{MODEL_LABELS[model]}: {views.md_escape(note)}.", icon=":material/content_cut:")
    with st.container(horizontal=True, gap="large"):
        st.page_link("pages/merges.py", label="Step through the merges", icon=":material/call_merge:")
        if state.get_unigram() is not None:
            st.page_link("pages/unigram.py", label="Step through Unigram", icon=":material/account_tree:")
        st.page_link("pages/compare.py", label="Compare the tokenizers", icon=":material/compare_arrows:")
        st.page_link("pages/inspect.py", label="Inspect an encoding", icon=":material/search:")

if state.get_corpus() is not None:   # the browser loads the charts' code while this page is read
    merges_control.warm_browser()
