"""Compare page: one text, up to fourteen tokenizers side by side (Tiktokenizer style).
(Over 400 lines: the page opens links, draws the text's fragment and the nine controls with their
help, and four tabs; the helpers it calls are in playground/compare.py.)

Widgets (text, tokenizers, view options) -> encode with each tokenizer (core, cached objects) ->
pure helpers (playground.compare, playground.spans) -> st.html. The text is an st.fragment of its
own (text_box): an edit reruns only that, and sends the token panels' new HTML in one feed (the
panels are hosts the whole run draws, _controls_and_views). Four tabs, only the open one runs:
  Tokens               one panel per tokenizer: token count, chars/token, bytes/token, coloured spans
                       (special tokens drawn apart; optionally the pre-tokenizer's chunks above them)
  Boundaries           two tokenizers' token boundaries marked on the text, and the share they agree on
  Encoder differences  merges vs greedy vs longest-match on one trained vocabulary, word by word
  Chat                 a few messages in each model's chat format: the string, its tokens, the count
Under the picker: each chosen tokenizer's family, vocabulary size, package and licence, and which
pretrained ones are not installed (with the command that installs them).

Tokenizer objects are shared, immutable and built once (playground/tokenizers.py): pretrained
vocabularies per process, a trained tokenizer per (corpus, settings).

The text updates the panels as you type (playground/live_text.py: after a 200 ms pause). The text,
the chosen tokenizers, the view options, the open tab and the chat's messages are in the address
(compare.link_params): F5 or a copied link reopens the same view; a text (or chat) too long for the
address goes by its digest (corpus_store.put_text), and a chosen imported tokenizer by the digest its files are kept under
(files=, brought back by inspect_link.restore_files before the choices are built).
A tokenizer that cannot encode the text (EncodeError) gets a message in its own panel.
"""
import streamlit as st

from core.errors import PlaygroundError, TokenizerFileError
from playground import (compare, corpus_store, html_panel, inspect_link, live_text, spans, state, tokenizers,
                        unigram_control, views)
from playground.state import MODEL_LABELS, PERSIST, CompareKeys as K
from playground.startup import through_app

through_app()   # a deep link on a new server (or AppTest) may run this file without app.py

MAX_PANEL_CHARS = spans.MAX_DRAWN_CHARS
SPECIAL_MODES = {False: "As text", True: "Recognized"}   # the toggle's two states, the default first


def tokenizer_of(choice: compare.Choice):
    if choice.kind == "pretrained":
        return tokenizers.pretrained(choice.source)
    if choice.kind == "trained" and choice.source == state.UNIGRAM:
        return unigram_control.tokenizer(state.get_unigram())
    if choice.kind == "trained":
        return tokenizers.trained(results, results.trace(choice.source), encoder=choice.encoder)
    return imported[choice.source]


# ---------------------------------------------------------------- callbacks

def _load_sample() -> None:
    sample = state.widget_value(K.SAMPLE)
    if sample in compare.SAMPLES:
        state.set_widget(K.TEXT, compare.SAMPLES[sample])


def _selection_edited() -> None:
    state.set_widget(K.AUTO_SELECTION, False)
    state.set_widget(K.LINK_GONE, [])     # the user has chosen anew: the gone link's note is over


# ---------------------------------------------------------------- the page

def read_link() -> tuple[dict | None, list[str]]:
    """The address's parameters when they are a link to open (else None: what this page last wrote,
    or an echo of its recent writes, state.is_echo), after bringing back the imported tokenizers
    whose files the link names (kept on this server, under their digests:
    inspect_link.restore_files), with the link's imported names made the ones they have in this
    session. Returns (parameters, lines about what was ignored); the imported names
    whose files are gone are kept for the page to say (K.LINK_GONE)."""
    params = state.link_to_open(state.widget_value(K.URL_SEEN))
    if params is None:
        return None, []
    seen = tuple(sorted(params.items()))
    state.set_widget(K.URL_SEEN, seen)
    pairs, msgs = compare.link_imports(params)
    renames, gone, errors = inspect_link.restore_chosen(pairs)
    state.set_widget(K.LINK_GONE, gone)
    return compare.rename_imported(params, renames), msgs + errors


pending_link, link_messages = read_link()   # before the choices: a link's imports are among them

results = state.get_results()
imported = state.get_imported()
trained_models = list(results.traces()) if results is not None else []
unigram_trained = [state.UNIGRAM] if state.get_unigram() is not None else []
choices = compare.tokenizer_choices(trained_models + unigram_trained, tokenizers.installed_pretrained(), imported)
by_key = {c.key: c for c in choices}


def open_link(params: dict) -> list[str]:
    """Apply the link's parameters (read_link's), before the widgets are drawn. Returns what was
    ignored, one line each."""
    link, msgs = compare.parse_link(params, choices)
    unknown = [n for n in params if n not in compare.URL_KEYS]
    if unknown:
        st.toast(compare.ignored_params_message(unknown), icon=":material/link_off:", duration="long")
    if link.text_ref is not None:
        kept = corpus_store.load_text(link.text_ref)
        if kept is None:
            msgs.append("The link's text is no longer kept on this server: the last text is shown instead.")
        else:
            state.set_widget(K.TEXT, kept)
    elif link.text is not None:
        state.set_widget(K.TEXT, link.text)
    chat = link.chat
    if link.chat_ref is not None:
        chat = compare.chat_from_json(corpus_store.load_text(link.chat_ref))
        if chat is None:
            msgs.append("The link's chat messages are no longer kept on this server: the last ones are shown instead.")
            chat = ()
    for chat_key, box in zip(K.CHAT, chat):
        if box is not None:
            state.set_widget(chat_key, box)
    if link.tokenizers is not None:
        state.set_widget(K.AUTO_SELECTION, False)
        state.set_widget(K.TOKENIZERS, list(link.tokenizers))
    special = None if link.recognize_special is None else SPECIAL_MODES[link.recognize_special]
    for key, value in ((K.VIEW, link.show), (K.LAYOUT, link.layout), (K.WHITESPACE, link.whitespace),
                       (K.GROUPED, link.grouped), (K.SPECIAL, special), (K.ADD_SPECIAL, link.add_special),
                       (K.CHUNKS, link.chunks), (K.TAB, link.tab)):
        if value is not None:
            state.set_widget(key, value)
    return msgs


if pending_link is not None:
    link_messages += open_link(pending_link)

state.init_widget(K.SAMPLE, compare.DEFAULT_SAMPLE)
state.init_widget(K.TEXT, compare.SAMPLES[compare.DEFAULT_SAMPLE])
state.init_widget(K.AUTO_SELECTION, True)
if state.widget_value(K.AUTO_SELECTION):
    state.set_widget(K.TOKENIZERS, compare.default_selection(choices))
else:
    state.set_widget(K.TOKENIZERS, compare.valid_selection(state.widget_value(K.TOKENIZERS), choices))
state.init_widget(K.VIEW, "Tokens")
state.init_widget(K.LAYOUT, "Side by side")
state.init_widget(K.WHITESPACE, False)
state.init_widget(K.GROUPED, False)
state.init_widget(K.SPECIAL, SPECIAL_MODES[False])
state.init_widget(K.ADD_SPECIAL, False)
state.init_widget(K.CHUNKS, False)
for chat_key, content in zip(K.CHAT, compare.DEFAULT_CHAT):
    state.init_widget(chat_key, content)

st.title("Compare")
st.caption("One text, several tokenizers: how many tokens each needs and where each one cuts. Hover a "
           "token for its id and bytes; every token with the same id lights up.")
if results is None:
    st.info("Nothing trained yet: only pretrained tokenizers are offered. Train on the Corpus page to "
            "compare your own BPE, byte-level BPE and WordPiece with them.", icon=":material/info:")
else:
    st.caption(f"Trained on: {views.md_escape(results.corpus_name)}")

for msg in link_messages:
    st.warning(views.md_escape(msg), icon=":material/link:")
link_gone = state.widget_value(K.LINK_GONE) or []
if link_gone:
    st.warning(compare.gone_imports_message(link_gone), icon=":material/link_off:")
    st.page_link("pages/inspect.py", label="Import tokenizer files on the Inspect page", icon=":material/upload:")

def panel_key(choice: compare.Choice) -> str:
    return f"compare_panel_{choice.key}"


def draw_panel(choice: compare.Choice, enc, text: str, view: compare.PanelView, max_height: str) -> None:
    """One tokenizer's panel: its stats and coloured tokens (a host the text's fragment feeds:
    _feed_panels), or why it has none (`enc` an error)."""
    with st.container(border=True):
        if isinstance(enc, PlaygroundError):
            st.html(compare.render_panel(choice, None, max_height=None))
            hint = "\n\nOr try another encoder." if choice.kind == "trained" and choice.encoder else ""
            what = "Cannot load this tokenizer" if isinstance(enc, TokenizerFileError) else "Cannot encode this text"
            st.error(f"{what}: {views.md_escape(str(enc))}.{hint}", icon=":material/error:")
            return
        html_panel.host(panel_html(choice, enc, text, view, max_height), key=panel_key(choice))


def panel_html(choice: compare.Choice, enc, text: str, view: compare.PanelView, max_height: str) -> str:
    """An encoded panel's HTML: its stats and coloured tokens (thousands of boxes: drawn by a
    component, html_panel, not st.html, whose sanitizer and React pass were most of the browser's
    time; the same escaped HTML)."""
    tok = tokenizer_of(choice)
    made_word = "merge step" if choice.kind == "trained" else "merge rank"
    body, truncated = spans.render_tokens(
        enc, show_ids=view.show_ids, visible_whitespace=view.whitespace, grouped=view.grouped,
        max_chars=MAX_PANEL_CHARS, text=text, made_at=tok.made_at, made_word=made_word, scripted=True,
        batch=spans.BATCH, boxes=tokenizers.box_memo(tok, view.show_ids, view.whitespace, made_word))
    note = (f"Drawn: the first {MAX_PANEL_CHARS:,} of {len(text):,} characters (counts are for the whole "
            "text)." if truncated else "")
    if not (view.grouped or view.show_ids):
        note = " ".join(filter(None, (compare.byte_pieces_note(enc, MAX_PANEL_CHARS), note)))
    if view.chunks:
        body = compare.render_chunks_block(tok, text, visible_whitespace=view.whitespace,
                                           max_chars=MAX_PANEL_CHARS) + body
    return compare.render_panel(choice, compare.encoding_stats(text, enc), body, max_height=max_height, note=note)


def tokens_tab(chosen: list[compare.Choice], encodings: dict, text: str, view: compare.PanelView, layout: str) -> None:
    if not chosen:
        st.info(f"Choose up to {compare.MAX_TOKENIZERS} tokenizers above.")
    elif layout == "Stacked":
        for choice in chosen:
            draw_panel(choice, encodings[choice.key], text, view, panel_height(view, layout))
    else:
        per_row = len(chosen) if len(chosen) <= 3 else 2
        for start in range(0, len(chosen), per_row):
            for col, choice in zip(st.columns(per_row), chosen[start:start + per_row]):
                with col:
                    draw_panel(choice, encodings[choice.key], text, view, panel_height(view, layout))


def panel_height(view: compare.PanelView, layout: str) -> str:
    if layout == "Stacked":
        return "24rem" if view.chunks else "14rem"
    return "34rem" if view.chunks else "24rem"


def boundaries_tab(chosen: list[compare.Choice], encodings: dict, text: str) -> None:
    usable = [c.key for c in chosen if not isinstance(encodings[c.key], PlaygroundError)]
    if len(usable) < 2:
        st.info("Choose at least two tokenizers that can encode the text.")
        return
    for key, default in ((K.BOUND_A, usable[0]), (K.BOUND_B, usable[1])):
        if state.widget_value(key) not in usable:
            state.set_widget(key, default)
    a_col, b_col = st.columns(2)
    a = a_col.selectbox("A (▼ where only A cuts)", usable, key=K.BOUND_A, persist_state=PERSIST,
                        format_func=lambda k: by_key[k].label)
    b = b_col.selectbox("B (▲ where only B cuts)", usable, key=K.BOUND_B, persist_state=PERSIST,
                        format_func=lambda k: by_key[k].label)
    body, share = spans.render_boundaries(text, encodings[a], encodings[b], max_chars=MAX_PANEL_CHARS)
    shared, only_a, only_b, _ = spans.boundary_agreement(text, encodings[a], encodings[b])
    m = st.columns(4)
    m[0].metric("Boundaries shared", f"{share:.0%}", help="Shared boundaries / all boundaries of A or B.")
    m[1].metric("Both cut (│)", f"{len(shared):,}")
    m[2].metric("Only A cuts (▼)", f"{len(only_a):,}")
    m[3].metric("Only B cuts (▲)", f"{len(only_b):,}")
    st.caption("│ both cut here · ▼ only A cuts · ▲ only B cuts")
    with st.container(border=True, height=420 if len(text) > 1500 else "content"):
        st.html(body)


def differences_tab(text: str) -> None:
    vocabularies = {f"trained:{m}": f"{MODEL_LABELS[m]} (trained)" for m in trained_models}
    vocabularies.update({f"imported:{n}": f"{n} (imported)" for n, t in imported.items()
                         if t.encoders})   # a vocabulary trained here
    if not vocabularies:
        st.info("Train on the Corpus page first: this tab compares the three encoders on one trained "
                "vocabulary.")
        st.page_link("pages/corpus.py", label="Go to the Corpus page", icon=":material/description:")
        return
    if state.widget_value(K.DIFF_VOCAB) not in vocabularies:
        state.set_widget(K.DIFF_VOCAB,
                         "trained:bbpe" if "trained:bbpe" in vocabularies else next(iter(vocabularies)))
    vocab_key = st.selectbox("Vocabulary", list(vocabularies), key=K.DIFF_VOCAB,
                             persist_state=PERSIST, format_func=vocabularies.get)
    kind, name = vocab_key.split(":", 1)
    if kind == "trained":
        tokenizer = tokenizers.trained(results, results.trace(name))
    else:
        tokenizer = imported[name]
    st.caption("merges: the merges applied in the order learned · greedy: seed 002's longest token "
               "first over the training segmentation · longest-match: WordPiece's longest prefix "
               "first. Different splits are not bugs: they are what each encoder does.")
    try:
        diff = compare.encoder_differences(tokenizer, text)
    except PlaygroundError as e:
        st.error(f"Cannot split this text: {views.md_escape(str(e))}.")
        return
    n = max(diff.distinct_words, 1)
    m = st.columns(3)
    m[0].metric("Distinct words", f"{diff.distinct_words:,}")
    for col, enc in zip(m[1:], ("greedy", "longest-match")):
        k = diff.differ_from_merges[enc]
        col.metric(f"Split unlike merges by {enc}", f"{k:,} ({k / n:.0%})",
                   help="Distinct words of the text that this encoder splits differently from merges.")
    if not diff.rows:
        st.success("The three encoders split every word of this text the same way.")
        return
    has_unk = bool(tokenizer.unk_token) and tokenizer.unk_token in tokenizer.vocab_ids
    unknown = ("a dashed red box is the unknown token" if has_unk else
               "a dashed red ?piece is not in the vocabulary (encoding the whole text would "
               "stop there: this vocabulary has no unknown token)")
    st.caption(f"Boxes are tokens; {unknown}. Grey cells split like merges.")
    table, cut = compare.render_splits_table(diff)
    with st.container(height=480 if len(diff.rows) > 12 else "content"):
        st.html(table)
    if cut:
        st.caption(f"The {compare.MAX_DIFF_ROWS} most frequent of {len(diff.rows):,} words "
                   "split differently.")


def chat_tab(chosen: list[compare.Choice], view: compare.PanelView, layout: str) -> None:
    st.caption("A few messages, rendered in each chosen model's own chat format (core/chat.py): the string "
               "the model reads, special tokens in dark dashed boxes, and its tokens. An empty box is left "
               "out. For OpenAI's encodings the count is checked against OpenAI's per-message rule.")
    boxes = st.columns(2)
    for k, (chat_key, title) in enumerate(zip(K.CHAT, compare.CHAT_TITLES)):
        boxes[k % 2].text_area(title, key=chat_key, height=80, persist_state=PERSIST)
    messages = compare.chat_messages([state.widget_value(k) or "" for k in K.CHAT])
    results_chat = compare.chat_results(chosen, tokenizer_of, messages) if messages else []
    with_chat = [r for r in results_chat if r.chat is not None or r.rule_count is not None or r.error]
    without = [r.choice.label for r in results_chat if r not in with_chat]
    if not messages:
        st.info("Write at least one message.")
    elif not with_chat:
        st.info("None of the chosen tokenizers has a chat format: choose Qwen, Llama, Mistral, DeepSeek or "
                "an OpenAI encoding (cl100k_base, o200k_base, gpt-oss's o200k_harmony).")
    if without:
        st.caption("No chat format (a base model or an encoder without a chat template): "
                   + views.md_escape(", ".join(without)) + ".")
    per_row = 1 if layout == "Stacked" else 2
    for start in range(0, len(with_chat), per_row):
        for col, result in zip(st.columns(per_row), with_chat[start:start + per_row]):
            with col, st.container(border=True):
                if result.error:
                    st.html(compare.render_chat_panel(result))
                    st.error(f"Cannot render this chat: {views.md_escape(result.error)}.", icon=":material/error:")
                    continue
                body = ""
                if result.chat is not None:
                    tok = tokenizer_of(result.choice)
                    drawn, _ = spans.render_tokens(result.chat.encoding, show_ids=view.show_ids,
                                                   visible_whitespace=view.whitespace, text=result.chat.text,
                                                   made_at=tok.made_at, made_word="merge rank",
                                                   scripted=True)
                    body = compare.render_chat_body(result, drawn)
                st.html(compare.render_chat_panel(result, body, max_height="40rem"))


def write_link(text: str, selected: list[str], show: str, layout: str, view: compare.PanelView,
               options: compare.EncodeOptions) -> None:
    """Put this view in the address (a long text by the digest it is kept under)."""
    ref = corpus_store.put_text(text) if len(text) > compare.MAX_URL_TEXT else None
    auto = state.widget_value(K.AUTO_SELECTION)
    kept = {f"imported:{name}": digest for name, digest in state.get_imported_files().items()}
    chat = tuple(state.widget_value(k) or "" for k in K.CHAT)
    chat_long = sum(len(box) for box in chat) > compare.MAX_URL_TEXT
    chat_ref = corpus_store.put_text(compare.chat_json(chat)) if chat_long else None
    params = compare.link_params(text if ref is None else "", None if auto else selected, show, layout,
                                 view.whitespace, view.grouped, text_ref=ref, options=options,
                                 chunks=view.chunks, files=kept, tab=state.widget_value(K.TAB) or "Tokens",
                                 chat=chat, chat_ref=chat_ref)
    if ref is None and len(text) > compare.MAX_URL_TEXT:
        params.pop("text", None)        # could not be kept: the address holds no text rather than a cut one
    if chat_long and chat_ref is None:  # likewise the chat: no box rather than a cut one
        params = {k: v for k, v in params.items() if k not in compare.CHAT_PARAMS}
    state.set_url_params(params)
    state.set_widget(K.URL_SEEN, tuple(sorted(params.items())))


def _settings() -> tuple[str, str, compare.PanelView, compare.EncodeOptions, list[str]]:
    """(show, layout, panel view, encode options, selected keys) as the controls last set them: the
    controls are drawn after the text (_controls_and_views), and a run of the text's fragment reads
    them from the session."""
    show = state.widget_value(K.VIEW) or "Tokens"
    view = compare.PanelView(show_ids=show == "Ids", whitespace=bool(state.widget_value(K.WHITESPACE)),
                             grouped=bool(state.widget_value(K.GROUPED)), chunks=bool(state.widget_value(K.CHUNKS)))
    options = compare.EncodeOptions(recognize_special_tokens=state.widget_value(K.SPECIAL) == SPECIAL_MODES[True],
                                    add_special_tokens=bool(state.widget_value(K.ADD_SPECIAL)))
    return show, state.widget_value(K.LAYOUT) or "Side by side", view, options, list(state.widget_value(K.TOKENIZERS) or [])


@st.fragment
def text_box() -> None:
    """The text, and what an edit changes. An edit (Ctrl+Enter, a pause in typing) reruns only this:
    the token panels are hosts the page's whole run draws (tokens_tab), and this sends their new
    HTML in one feed (html_panel.feed), so an edit's run sends two elements, not the controls, the
    picker, its table and the tabs again (docs/architecture.md, "Compare's edit"). When the open tab
    draws something else from the text, or a panel is or was an error (drawn by Streamlit elements),
    the edit reruns the whole page instead."""
    text = st.text_area("Text", key=K.TEXT, height=170, persist_state=PERSIST,
                        placeholder="Type or paste any text…",
                        help="The panels follow as you type (after a short pause).")
    live_text.enable()
    text = text or ""
    show, layout, view, options, selected = _settings()
    chosen = [by_key[k] for k in selected if k in by_key]
    write_link(text, selected, show, layout, view, options)
    if state.widget_value(K.WHOLE_RUN):
        state.set_widget(K.WHOLE_RUN, False)
        return                                   # the whole page's run: _controls_and_views draws the views
    if (state.widget_value(K.TAB) or "Tokens") in ("Boundaries", "Encoder differences"):
        st.rerun(scope="app")
    if (state.widget_value(K.TAB) or "Tokens") != "Tokens":
        return                                   # the Chat tab does not read the text
    encodings = tokenizers.encode_kept(chosen, tokenizer_of, text, options)
    hosted = state.widget_value(K.HOSTED) or ()
    if any(isinstance(e, PlaygroundError) for e in encodings.values()) or tuple(c.key for c in chosen) != tuple(hosted):
        st.rerun(scope="app")
    html_panel.feed({panel_key(c): panel_html(c, encodings[c.key], text, view, panel_height(view, layout))
                     for c in chosen}, key=K.PANELS_FEED)


def _controls_and_views() -> None:
    """Drawn by the page's whole run, after the text's fragment: a change of any of these reruns the
    whole page."""
    text = state.widget_value(K.TEXT) or ""
    # one wrapping row under the text, not a narrow column beside it: on a 1024-pixel projector each
    # control keeps its whole label and the row goes on on the next line
    with st.container(horizontal=True, gap="medium", vertical_alignment="bottom"):
        st.selectbox("Sample", list(compare.SAMPLES), key=K.SAMPLE, on_change=_load_sample,
                     persist_state=PERSIST, width=230, help="Replaces the text with a sample: Chinese, emoji with "
                     "zero-width joiners, code, runs of whitespace, HTML that must show as text.")
        st.segmented_control("Show", ["Tokens", "Ids"], key=K.VIEW, required=True, persist_state=PERSIST)
        st.segmented_control("Layout", ["Side by side", "Stacked"], key=K.LAYOUT, required=True,
                             persist_state=PERSIST)
        st.toggle("Visible whitespace", key=K.WHITESPACE, persist_state=PERSIST,
                  help="Space ⋅, tab →, line break ↵; zero-width characters by name (⟨ZWJ⟩).")
        st.toggle("Group bytes", key=K.GROUPED, persist_state=PERSIST,
                  help="The tokens of one character as you see it (a grapheme cluster: 🇨🇳, 👍🏽, "
                       "e + a combining accent, and the UTF-8 bytes <0xE4><0xBD>… of one Chinese "
                       "character) are drawn as one box with that character.")
        st.segmented_control(
            "Special tokens in the text", list(SPECIAL_MODES.values()), key=K.SPECIAL, required=True,
            persist_state=PERSIST,
            help="As text (the default, tiktoken's encode_ordinary): <|endoftext|>, <|im_start|> or [CLS] typed in "
                 "the text is ordinary text, several tokens. Recognized (tiktoken's allowed_special=\"all\"): each "
                 "one the model knows is its one id.")
        st.toggle("Add BOS/EOS", key=K.ADD_SPECIAL, persist_state=PERSIST,
                  help="Add what each model's own tokenizer adds around a text: BERT [CLS] … [SEP], "
                       "Llama <|begin_of_text|>, Mistral <s>, CLIP <start_of_text> … <end_of_text>; "
                       "the GPT and Qwen encodings add nothing.")
        st.toggle("Pre-tokenization", key=K.CHUNKS, persist_state=PERSIST,
                  help="Above each panel's tokens, the chunks its pre-tokenizer cuts before BPE runs "
                       "(numbers in 1-3 digits, contractions, leading spaces), over the text as "
                       "normalized.")
    st.multiselect(
        "Tokenizers", [c.key for c in choices], key=K.TOKENIZERS, format_func=lambda k: by_key[k].label,
        max_selections=compare.MAX_TOKENIZERS, on_change=_selection_edited, persist_state=PERSIST,
        help=f"Up to {compare.MAX_TOKENIZERS}: your trained tokenizers with each encoder (merges, greedy of seed "
             "002, longest-match), pretrained ones (loaded offline) and files imported on the Inspect page.")
    show, layout, view, options, selected = _settings()
    chosen = [by_key[k] for k in selected if k in by_key]
    if chosen:
        with st.container(key=K.INFO_BOX):   # the column's width: the table wraps, or scrolls inside it
            st.html(compare.render_info_table(compare.info_rows(chosen, tokenizer_of)))
    missing = compare.missing_note(tokenizers.unavailable_pretrained())
    if missing:
        st.caption(missing)

    # a panel is an Encoding or an error; the last text's are kept (not encoded again for a view option)
    encodings = tokenizers.encode_kept(chosen, tokenizer_of, text, options)
    # the panels an edit's feed may update: all of them, when none is an error
    ok = not any(isinstance(e, PlaygroundError) for e in encodings.values())
    state.set_widget(K.HOSTED, tuple(c.key for c in chosen) if ok else None)

    tab_tokens, tab_bounds, tab_diff, tab_chat = st.tabs(["Tokens", "Boundaries", "Encoder differences", "Chat"],
                                                         key=K.TAB, on_change="rerun")
    if tab_tokens.open is not False:
        with tab_tokens:
            tokens_tab(chosen, encodings, text, view, layout)
    if tab_bounds.open:
        with tab_bounds:
            boundaries_tab(chosen, encodings, text)
    if tab_diff.open:
        with tab_diff:
            differences_tab(text)
    if tab_chat.open:
        with tab_chat:
            chat_tab(chosen, view, layout)


state.set_widget(K.WHOLE_RUN, True)   # the text's fragment runs as part of the whole page (it takes this)
text_box()
_controls_and_views()
