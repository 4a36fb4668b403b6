"""Inspect page: one text through the whole pipeline, one word step by step, the vocabulary, files
out and in, and the whole session saved to one JSON file and loaded back.
(Over 400 lines: five tabs and the page's link, each a short function, and the trained Unigram's export;
splitting them across files would scatter one page's widgets.)

Widgets -> pure helpers (playground/inspect.py, playground/session_file.py) and core -> render.
Every tab but the open one is skipped (lazy tabs), so a big vocabulary costs nothing while the
pipeline is shown. User and file text reaches HTML only through playground.markup (via spans.py,
playground/inspect.py); elsewhere it goes to data frames, code blocks or escaped Markdown.
"""
from __future__ import annotations

import json
from functools import partial

import streamlit as st

from core import replay, walks
from core.encoders import ENCODERS
from core.errors import PlaygroundError
from core.formats import FORMATS, tokenizer_file_text
from core.trace_io import trace_csv, trace_report
from playground import charts, compare, corpus_store, html_panel, inspect_link, session_file, spans, state, tokenizers, \
    unigram_control, views
from playground import inspect as ins
from playground.state import MODEL_LABELS, PERSIST, InspectKeys as K
from playground.startup import through_app

UNIGRAM_CHOICE = f"trained:{state.UNIGRAM}"

through_app()   # a deep link on a new server (or AppTest) may run this file without app.py

DEFAULT_TEXT = "Hello how are U tday"          # seed 004's pipeline example
SEED_PAIR = ("Hello how are you", "I am fine thank you")
ENCODER_HELP = ("merges: the merges in the order learned (BPE). longest-match: WordPiece's longest token "
                "first. greedy: seed 002's longest candidate anywhere in the word, then the pieces around it.")
TABS = ["Pipeline", "Walk a word", "Vocabulary", "Export & import", "Session"]
MAX_TOKENIZER_MB = 200     # a large tokenizer.json (o200k's is ~30 MB)
MAX_SESSION_MB = 1000      # a session with a book-sized corpus and long traces outgrows the 50 MB default


# ---------------------------------------------------------------- callbacks

def _use_seed_pair() -> None:
    for key, value in zip((K.TEXT, K.PAIR), SEED_PAIR):
        state.set_widget(key, value)


def _tokenizer_changed() -> None:
    state.set_widget(K.ENCODER, None)   # the new tokenizer's own default encoder
    _chunk_changed()


def _chunk_changed() -> None:
    state.set_widget(K.REPLAY_STEP, None)   # the new chunk's replay opens at its last step


def _import_files() -> None:
    uploads = state.widget_value(K.IMPORT_FILES) or []
    if not uploads:
        state.set_notice("error", f"Choose tokenizer files first: {FORMATS}.")
        return
    try:
        loaded = ins.read_upload_groups([(u.name, u.getvalue()) for u in uploads], state.get_imported())
    except PlaygroundError as e:
        state.set_notice("error", f"{views.md_escape(str(e))}. Nothing was imported; your tokenizers are unchanged.")
        return
    for name, tok, files in loaded:
        state.add_imported(name, tok)
        digest = inspect_link.put_files(files)    # kept on the server: F5 or the link brings it back
        if digest:
            state.set_imported_files(name, digest)
    names = ", ".join(f"“{views.md_escape(n)}”" for n, _, _ in loaded)
    state.set_notice("success", f"Imported {names}: inspect it here, or compare it on the Compare page.")
    state.set_widget(K.TOKENIZER, f"imported:{loaded[-1][0]}")


def _pick_row(table_key: str, tokens: tuple) -> None:
    event = state.widget_value(table_key)
    rows = event.selection.rows if event is not None else []
    if rows and rows[0] < len(tokens):
        state.set_widget(K.TREE_TOKEN, tokens[rows[0]])


def _remove_imported(name: str) -> None:
    state.remove_imported(name)
    state.set_notice("info", f"Removed “{views.md_escape(name)}”.")


def _load_session() -> None:
    upload = state.widget_value(K.SESSION_FILE)
    if upload is None:
        state.set_notice("error", "Choose a session file first (a .json saved here with “Save session”).")
        return
    try:
        loaded = session_file.load_session(upload.getvalue(), upload.name)
    except PlaygroundError as e:
        state.set_notice("error", f"{views.md_escape(str(e))}. Your current session is unchanged.")
        return
    state.set_notice("success", f"Loaded the session: {views.md_escape(session_file.summary(loaded))}.")
    state.set_widget(K.TOKENIZER, None)   # the default again: a trained one when there is one
    for name, tok in loaded.imported.items():   # kept on the server too, like an upload: F5 keeps them
        digest = inspect_link.put_files([(f"{name}.json", tokenizer_file_text(tok).encode("utf-8"))])
        if digest:
            state.set_imported_files(name, digest)


# ---------------------------------------------------------------- the link (F5, a copied address)

def _open_link(results) -> None:
    """Apply the address's parameters once (when they differ from what this page last wrote),
    before the widgets are drawn: imported files kept on the server come back first, so the
    tokenizer the link names can be one of them."""
    params = state.link_to_open(state.widget_value(K.URL_SEEN))
    if params is None:
        return
    seen = tuple(sorted(params.items()))
    state.set_widget(K.URL_SEEN, seen)
    link, msgs = inspect_link.parse_link(params)
    unknown = [n for n in params if n not in inspect_link.URL_KEYS]
    if unknown:   # as the Compare page says it
        st.toast(inspect_link.ignored_params_message(unknown, "Inspect", inspect_link.URL_KEYS),
                 icon=":material/link_off:", duration="long")
    restored = inspect_link.restore_files(link.files)
    if restored.gone:
        msgs.append("A tokenizer file the link names is no longer kept on this server: import it again "
                    "(Export & import tab).")
    msgs.extend(restored.errors)
    if link.text_ref is not None:
        text = corpus_store.load_text(link.text_ref)
        if text is None:
            msgs.append("The link's text is no longer kept on this server: the last text is shown instead.")
        else:
            state.set_widget(K.TEXT, text)
    elif link.text is not None:
        state.set_widget(K.TEXT, link.text)
    if link.tokenizer is not None:
        if link.tokenizer in _choices(results):
            state.set_widget(K.TOKENIZER, link.tokenizer)
        else:
            msgs.append(f"The link's tokenizer {link.tokenizer[:60]!r} is not on offer here "
                        "(train on the Corpus page, or import its file).")
    for key, value in ((K.TAB, link.tab), (K.WALK_WORD, link.word), (K.REPLAY_CHUNK, link.chunk)):
        if value is not None:
            state.set_widget(key, value)
    if msgs:
        state.set_notice("info", views.md_escape(" ".join(msgs)))


def _write_link(text: str) -> None:
    """Put this view in the address (a long text by the digest it is kept under on the server)."""
    ref = corpus_store.put_text(text) if len(text) > inspect_link.MAX_URL_TEXT else None
    piece = state.widget_value(K.REPLAY_CHUNK)
    head = piece.split(":", 1)[0] if isinstance(piece, str) else ""
    piece = int(head) if head.isascii() and head.isdigit() else 0
    chosen = state.widget_value(K.TOKENIZER)
    params = inspect_link.link_params(None if chosen == _default_choice(_choices(state.get_results())) else chosen,
                                      state.widget_value(K.TAB),
                                      state.widget_value(K.WALK_WORD) or "", piece,
                                      text, DEFAULT_TEXT, list(state.get_imported_files().values()), ref)
    state.set_url_params(params)
    state.set_widget(K.URL_SEEN, tuple(sorted(state.url_params().items())))


# ---------------------------------------------------------------- the tokenizer to inspect

def _choices(results) -> dict[str, str]:
    out = {}
    if results is not None:
        out.update({f"trained:{m}": f"{MODEL_LABELS[m]} (trained)" for m in results.traces()})
        if state.get_unigram() is not None:
            out[UNIGRAM_CHOICE] = f"{state.UNIGRAM_LABEL} (trained)"
    out.update({f"pretrained:{n}": compare.PRETRAINED_LABELS.get(n, n) for n in tokenizers.installed_pretrained()})
    out.update({f"imported:{n}": f"{n} (imported)" for n in state.get_imported()})
    return out


def _default_choice(choices) -> str:
    return "trained:bbpe" if "trained:bbpe" in choices else \
        "pretrained:bert-base-uncased" if "pretrained:bert-base-uncased" in choices else next(iter(choices), "")


def _pick_tokenizer(results):
    """Draw the tokenizer controls; returns (tokenizer, trace or None, step or None, encoder, label)."""
    choices = _choices(results)
    missing = tokenizers.unavailable_pretrained()
    if missing:
        with st.expander(f"{len(missing)} pretrained tokenizer{'s are' if len(missing) > 1 else ' is'} not "
                         "installed: how to add them"):
            for name, command in missing:
                st.markdown(f"- **{views.md_escape(name)}**: `{command}`")
    if not choices:
        return None, None, None, None, ""
    default = _default_choice(choices)
    if state.widget_value(K.TOKENIZER) not in choices:
        state.set_widget(K.TOKENIZER, default)
    # a wrapping row (not columns): on a narrow projector the controls keep their labels whole
    row = st.container(horizontal=True, gap="medium")
    key = row.selectbox("Tokenizer", list(choices), key=K.TOKENIZER, format_func=choices.get, width=320,
                        on_change=_tokenizer_changed,
                        help="Trained on the Corpus page, pretrained (loaded offline), or imported below.")
    kind, name = key.split(":", 1)
    trace = step = None
    if key == UNIGRAM_CHOICE:   # its own tokenizer: no merges, so no step and no encoder to pick
        tok = unigram_control.tokenizer(state.get_unigram())
    elif kind == "trained":
        trace = results.trace(name)
        merges_step = min(state.get_step(name), len(trace.steps))
        at = row.radio("Vocabulary", ["final", "step"], key=K.AT, horizontal=True, width="content",
                       format_func=lambda v: f"final ({len(trace.steps):,} merges)" if v == "final"
                       else f"at the Merges page's step ({merges_step:,})",
                       help="The tokenizer after all its merges, or as it stands at the step the Merges "
                            "page shows.")
        step = len(trace.steps) if at == "final" else merges_step
        tok = tokenizers.trained(results, trace, upto=step)
    elif kind == "pretrained":
        try:
            tok = tokenizers.pretrained(name)
        except PlaygroundError as e:
            st.error(f"{views.md_escape(str(e))}. Pick another tokenizer.")
            return None, None, None, None, ""
    else:
        tok = state.get_imported()[name]
    encoder = None
    if tok.encoders:   # trained here: the user picks the encoder
        if state.widget_value(K.ENCODER) not in ENCODERS:
            state.set_widget(K.ENCODER, tok.encoders[0])   # the model's default
        encoder = row.selectbox("Encoder", ENCODERS, key=K.ENCODER, help=ENCODER_HELP, width=200)
    else:
        row.caption("Encodes with its own runtime (tiktoken or Hugging Face).")
    label = choices[key] + (f", step {step:,}" if trace is not None and step != len(trace.steps) else "")
    return tok, trace, step, encoder, label


# ---------------------------------------------------------------- the tabs

def _stage(title: str, caption: str):
    """A stage: its name and what it did, then its output (the container returned). One under the
    other, not side by side: a narrow name column broke "Normalization" mid-word at 1024 pixels."""
    st.markdown(f"**{title}**")
    st.caption(caption)
    return st.container()


def _pipeline_tab(tok, encoder, text: str, pair: str) -> None:
    stages = ins.pipeline(tok, text, pair=pair or None, encoder=encoder)
    fronts = [("A", stages.front)] + ([("B", stages.pair_front)] if stages.pair_front is not None else [])
    with _stage("1 · Normalization", stages.front.normalizer):
        for name, front in fronts:
            if len(fronts) > 1:
                st.caption(f"Sentence {name}")
            st.html(ins.render_text(front.normalized))
    with _stage("2 · Pre-tokenization", stages.front.pre_tokenizer):
        for name, front in fronts:
            if len(fronts) > 1:
                st.caption(f"Sentence {name}: {len(front.chunks):,} pieces")
            if front.chunks:
                st.html(ins.render_pieces(front.chunks))
                with st.expander(f"Pieces with their offsets ({len(front.chunks):,})"):
                    st.dataframe(ins.pieces_rows(front.chunks), hide_index=True)
            else:
                st.caption("Not shown for this tokenizer.")
    with _stage("3 · Model", f"{encoder or 'its own runtime'}: tokens of sentence A"):
        if stages.error:
            st.error(f"{views.md_escape(stages.error)}.")
        else:
            body, cut = spans.render_tokens(stages.model)
            st.html(body)
            st.caption(f"{len(stages.model):,} tokens" + (" (the first ones drawn)" if cut else ""))
            with st.expander("Tokens with ids, bytes and offsets"):
                st.dataframe(ins.token_rows(stages.model), hide_index=True)
    with _stage("4 · Post-processing", stages.post_processor):
        if stages.post is not None:
            body, _ = spans.render_tokens(stages.post, show_ids=False)
            st.html(body)
            st.dataframe(ins.post_table(stages))
            if len(stages.post) > ins.MAX_POST_COLUMNS:
                st.caption(f"The first {ins.MAX_POST_COLUMNS} of {len(stages.post):,} positions.")
            st.caption("Attention mask: 1 for every real token (0 would be padding). Token type ids: 0 for "
                       "sentence A, 1 for sentence B.")
        else:
            st.caption("Needs the model's tokens (see above).")


def _walk_tab(tok, encoder, text: str) -> None:
    typed = st.text_input("Type a word (or leave empty and pick a piece of the text below)", key=K.WALK_WORD,
                          placeholder="e.g. lowest", width=420)
    _replay_section(tok, typed if typed.strip() else text)
    if tok.encoders:   # a vocabulary trained here: its three encoders, step by step
        _encoder_walks(tok, encoder, text, typed)


def _replay_section(tok, text: str) -> None:
    """A chunk's merges replayed in rank order (core/replay.py), for any BPE, with a slider over its steps."""
    why = replay.replayable(tok)
    if why:
        st.info(f"{views.md_escape(why)}. Its pieces are on the Pipeline tab; merges replay for BPE "
                "tokenizers (trained, pretrained or imported).")
        return
    chunks = tok.front(text).chunks[:walks.MAX_WALK_CHOICES]
    if not chunks:
        st.caption("Type some text above, or a word here.")
        return
    st.markdown("**Merges replayed**")
    # the options are the pieces' labels, not their numbers: a new text with the same number of
    # pieces is new options, never the old label left showing over a new piece
    labels = [f"{i}: {spans.show_whitespace(c.shown)}" for i, c in enumerate(chunks)]
    picked = state.widget_value(K.REPLAY_CHUNK)
    if isinstance(picked, int):             # a link names the piece by its number
        state.set_widget(K.REPLAY_CHUNK, labels[picked] if 0 <= picked < len(labels) else labels[0])
    elif picked not in labels:
        state.set_widget(K.REPLAY_CHUNK, labels[0])
    label = st.selectbox("Piece (pre-tokenized chunk)", labels, key=K.REPLAY_CHUNK, on_change=_chunk_changed,
                         width=420)
    k = labels.index(label)
    try:
        rep = replay.replay_chunk(tok, chunks[k])
    except PlaygroundError as e:   # an imported file this piece's replay cannot read: said, as the other tabs do
        st.error(f"{views.md_escape(str(e))}.")
        return
    n = len(rep.steps)
    shown = (tok.name, tok.vocab_size, chunks[k].shown)   # another piece (or tokenizer) opens at its last step
    step_now = state.widget_value(K.REPLAY_STEP)
    if state.widget_value(K.REPLAY_OF) != shown or not isinstance(step_now, int) or not 0 <= step_now <= n:
        state.set_widget(K.REPLAY_STEP, n)
    state.set_widget(K.REPLAY_OF, shown)
    if n:
        at = st.slider("Step", 0, n, key=K.REPLAY_STEP, help="Scrub through the merges, lowest rank first "
                       "(0: the piece's initial symbols; the last: the tokenizer's own split).")
    else:
        at = 0
    step = rep.steps[at - 1] if at else None
    st.html(ins.render_split(rep.split_at(at), merged_at=step.position if step and not step.whole else None))
    st.caption(views.md_escape(ins.replay_step_line(rep, at)) + (f". {views.md_escape(rep.note)}" if rep.note and at else ""))
    if n:
        with st.expander(f"All {n:,} steps"):
            st.dataframe(ins.replay_rows(rep), hide_index=True)
    elif not rep.note:
        st.caption("No merge applies: the piece stays as its symbols.")
    st.caption("Rule: repeatedly merge the adjacent pair whose merged token has the lowest rank (the merge step "
               "for a tokenizer trained here, the rank or merge number for the others); the last step is "
               "exactly what the tokenizer's encode gives for this piece.")


def _encoder_walks(tok, encoder, text: str, typed: str) -> None:
    st.markdown("**The three encoders, step by step**")
    if typed.strip():    # the typed word is walked: no picker showing another word beside it
        words = walks.walk_pieces(tok, typed)
    else:
        pieces = walks.walk_pieces(tok, text)
        picked = st.selectbox("A word of the text", pieces or [""], key=K.WALK_PIECE, width=420,
                              format_func=lambda p: spans.show_whitespace(p) or "(the text has no words)")
        words = [picked] if picked else []
    if not words:
        st.caption("Type some text above, or a word here.")
        return
    if len(words) > 1:
        st.caption(f"The pre-tokenizer cuts that into {len(words)} words; walking the first, "
                   f"{views.md_escape(words[0])}.")
    word = words[0]
    st.caption("The same word through each encoder; the one chosen above is first. Each walk ends with "
               "exactly the split the encoder gives.")
    order = [encoder] + [e for e in ENCODERS if e != encoder]
    for col, enc in zip(st.columns(3), order):
        with col:
            walk = walks.walk_word(tok, word, enc)
            st.markdown(f"**{enc}**" + (" (chosen)" if enc == encoder else ""))
            st.code(walks.walk_lines(walk), language=None, wrap_lines=True)
            if walk.refused:
                st.caption("This tokenizer has no unknown token: encoding this word is refused.")


def _vocabulary_tab(tok, trace, step, kind_name: str) -> None:
    if trace is not None:
        frame = tokenizers.trained_vocabulary(state.get_results(), trace, step)
    elif kind_name.startswith("pretrained:"):
        frame = tokenizers.pretrained_vocabulary(kind_name, tok)
    else:
        frame = tokenizers.session_vocabulary(tok)
    cols = st.columns([3, 2])
    query = cols[0].text_input("Search tokens", key=K.VOCAB_QUERY, placeholder="a token, its text or its id")
    partial_only = cols[1].checkbox("Only partial UTF-8 tokens", key=K.VOCAB_PARTIAL,
                               help="Byte-level tokens whose bytes are not valid UTF-8 on their own (a piece of "
                                    "a character): shown as <0xE4><0xBD>.")
    shown = ins.filter_vocabulary(frame, query, partial_only)
    n = len(shown)
    cut = shown.head(ins.MAX_VOCAB_ROWS)
    st.caption(f"{n:,} of {len(frame):,} tokens" + (f"; the first {ins.MAX_VOCAB_ROWS:,} drawn: search to narrow"
                                                     if n > ins.MAX_VOCAB_ROWS else "")
               + ". Click a column to sort" + ("; select a row to see its merge tree." if trace is not None else "."))
    # a new filter is a new table (a selection must not point at another row); a selected row
    # fills the "Merge tree of" box, which is what the tree shows
    table_key = K.vocabulary_table(kind_name, step, query, partial_only)
    selectable = trace is not None
    st.dataframe(cut, hide_index=True, key=table_key, height=380, selection_mode="single-row",
                 on_select=partial(_pick_row, table_key, tuple(cut["token"])) if selectable else "ignore",
                 column_config={"frequency": st.column_config.NumberColumn(
                                    help="How often the token occurs in the final segmentation of "
                                         "the training words"),
                                "step": st.column_config.NumberColumn(
                                    help="The merge that created it (0: an initial symbol)")})
    if trace is not None:
        _merge_tree(trace, step, frame)
    _length_chart(frame)


def _merge_tree(trace, step: int, frame) -> None:
    typed = st.text_input("Merge tree of", key=K.TREE_TOKEN,
                          placeholder="select a row above, or type a token",
                          help="How the token was built, merge by merge, down to its initial symbols.")
    if typed in set(frame["token"]):
        token = typed
    else:
        made = [s.token for s in trace.steps[:step]]
        token = max(made, key=len) if made else None
        if typed:
            st.caption(f"{views.md_escape(typed)} is not in this vocabulary; showing the longest merged token.")
    if token is None:
        st.caption("No merges yet: every token is an initial symbol.")
        return
    dot = charts.merge_tree_dot(trace, token)
    # a table word may hold line breaks: made visible, a token cannot end the code span's paragraph
    shown = spans.show_whitespace(token)
    st.markdown(f"**Merge tree of** `{shown}`" if "`" not in shown else f"**Merge tree of** {views.md_escape(shown)}")
    # each token read as the table reads it (byte-level: its characters, not GPT-2's byte letters,
    # which stay in the tooltip)
    texts = dict(zip(frame["token"], frame["text"]))
    html_panel.show(charts.merge_tree_html(trace, token, shown=lambda t: texts.get(t, t),
                                           spelled=spans.show_whitespace if trace.config.byte_level else None),
                    key=K.TREE)
    st.download_button("Merge tree (.dot)", data=dot, file_name="merge-tree.dot", mime="text/vnd.graphviz",
                       key=K.DOWNLOAD_TREE, on_click="ignore",
                       help="Graphviz source: `dot -Tpng merge-tree.dot -o tree.png` makes an image.")


def _length_chart(frame) -> None:
    lengths = ins.length_counts(frame)
    if len(lengths):
        st.plotly_chart(charts.length_chart(lengths), key=K.LENGTH_CHART)
        st.caption("The chart's toolbar (camera icon) saves it as a PNG.")


def _export_tab(tok, trace, label: str) -> None:
    st.subheader("Export")
    if tok.encoders:   # trained here: it exports as files
        st.caption(f"{views.md_escape(label)}: the tokenizer as files that Hugging Face `tokenizers` loads "
                   "(tokenizer.json carries the whole pipeline; vocab.json + merges.txt assume GPT-2's "
                   "byte-level pre-tokenizer when loaded elsewhere).")
        files = ins.export_files(tok)   # cheap next to training; the big ones below are built on click
        cols = st.columns(len(files))
        for col, (name, content) in zip(cols, files.items()):
            col.download_button(name, data=content, file_name=name, key=K.download(name), on_click="ignore",
                                icon=":material/download:",
                                mime="application/json" if name.endswith(".json") else "text/plain")
    elif state.widget_value(K.TOKENIZER) == UNIGRAM_CHOICE:
        unigram = state.get_unigram()
        st.caption(f"{views.md_escape(label)}: tokenizer.json loads in Hugging Face `tokenizers` (a Unigram model "
                   "with its scores, Metaspace before each word) and encodes as here; the trace holds every EM "
                   "step and pruning.")
        cols = st.columns(2)
        try:
            file_text = ins.unigram_tokenizer_json(tok)
        except PlaygroundError as e:
            cols[0].warning(f"No tokenizer.json: {views.md_escape(str(e))}.")
        else:
            cols[0].download_button("tokenizer.json", data=file_text, file_name="tokenizer.json",
                                    key=K.download("tokenizer.json"), on_click="ignore",
                                    icon=":material/download:", mime="application/json")
        cols[1].download_button("trace.json (every EM step and pruning)", data=lambda t=unigram.trace: t.dumps(),
                                file_name="unigram-trace.json", mime="application/json",
                                key=K.DOWNLOAD_TRACE_JSON, on_click="ignore", icon=":material/download:")
    else:
        st.caption("Exports are for tokenizers trained here; pick one above.")
    if trace is not None:
        cols = st.columns(2)
        cols[0].download_button("trace.csv (one row per merge)", data=lambda t=trace: trace_csv(t),
                                file_name=f"{trace.config.model}-trace.csv", mime="text/csv",
                                key=K.DOWNLOAD_TRACE_CSV, on_click="ignore", icon=":material/download:")
        cols[1].download_button("trace.json (as the CLI prints it)",
                                data=lambda t=trace: json.dumps(trace_report(t), ensure_ascii=False),
                                file_name=f"{trace.config.model}-trace.json", mime="application/json",
                                key=K.DOWNLOAD_TRACE_JSON, on_click="ignore", icon=":material/download:")
        st.caption("Charts: the Plotly charts' toolbar (camera icon) saves a PNG; the merge tree downloads "
                   "as Graphviz source on the Vocabulary tab.")

    st.subheader("Import tokenizer files")
    st.caption("A tokenizer.json (from this app or Hugging Face), a vocab.json together with its merges.txt, "
               "a WordPiece vocab.txt, a tiktoken ranks file (.tiktoken) or a SentencePiece .model. Imported "
               "tokenizers can be inspected here and compared on the Compare page; their files are kept on "
               "this server so that reloading the page or opening its link brings them back.")
    # any file type: a wrong one gets this page's message (what was expected), not the uploader's
    st.file_uploader("Tokenizer files", accept_multiple_files=True,
                     key=K.IMPORT_FILES, max_upload_size=MAX_TOKENIZER_MB)
    st.button("Import", key=K.IMPORT, on_click=_import_files, icon=":material/upload:")
    imported = state.get_imported()
    for i, (name, itok) in enumerate(imported.items()):
        c = st.columns([4, 1], vertical_alignment="center")
        c[0].markdown(f"**{views.md_escape(name)}**: {views.md_escape(ins.describe(itok))}")
        c[1].button("Remove", key=K.remove(i), on_click=_remove_imported, args=(name,))


def _session_tab() -> None:
    st.subheader("Save the session")
    snapshot = session_file.current_session()
    st.caption("Everything in one JSON file: the corpus, the trainers' settings, the trained tokenizers "
               "with every merge step, the Merges page's steps and the imported tokenizers. "
               f"Now: {views.md_escape(session_file.summary(snapshot))}.")
    left_out = session_file.unwritten(snapshot.imported)
    if left_out:
        st.caption(f"Not in the file: {views.md_escape(', '.join(left_out))} (a .tiktoken or SentencePiece file "
                   "has no tokenizer.json to write); it comes back with this page's link, or import it again.")
    st.download_button("Save session", data=lambda s=snapshot: session_file.dump_session(s),
                       file_name=session_file.FILE_NAME, mime="application/json", key=K.SAVE_SESSION,
                       on_click="ignore", type="primary", icon=":material/save:")
    st.subheader("Load a session")
    st.caption("Replaces the corpus, settings, trained tokenizers and imports with the file's. A damaged or "
               "foreign file is refused and nothing changes.")
    st.file_uploader("Session file", type=["json"], key=K.SESSION_FILE, max_upload_size=MAX_SESSION_MB)
    st.button("Load session", key=K.LOAD_SESSION, on_click=_load_session, icon=":material/folder_open:")


# ---------------------------------------------------------------- the page

_open_link(state.get_results())
state.init_widget(K.TEXT, DEFAULT_TEXT)
state.init_widget(K.PAIR, "")

st.title("Inspect")
st.caption("One text through the whole pipeline (normalize → pre-tokenize → model → post-process), one word "
           "step by step, the vocabulary, and files out and in.")
with st.container():   # always drawn, so a message never shifts the tabs below
    notice = state.pop_notice()
    if notice:
        kind, message = notice
        {"error": st.error, "success": st.success}.get(kind, st.info)(message)

results = state.get_results()
if results is None:
    st.caption("Nothing trained yet: pretrained and imported tokenizers are here; train on the Corpus page "
               "for your own.")
else:
    st.caption(f"Trained on: {views.md_escape(results.corpus_name)}")
tok, trace, step, encoder, label = _pick_tokenizer(results)

cols = st.columns([3, 2])
text = cols[0].text_area("Text", key=K.TEXT, height=90, persist_state=PERSIST)
pair = cols[1].text_input("Second sentence (optional)", key=K.PAIR, persist_state=PERSIST,
                          placeholder=SEED_PAIR[1], help="Encoded after the first: token type id 1.")
cols[1].button("Seed 004's sentence pair", key=K.SEED_PAIR, on_click=_use_seed_pair)

tabs = st.tabs(TABS, key=K.TAB, on_change="rerun")
kind_name = state.widget_value(K.TOKENIZER, "")
for tab, draw in zip(tabs[:3], (lambda: _pipeline_tab(tok, encoder, text, pair), lambda: _walk_tab(tok, encoder, text),
                                lambda: _vocabulary_tab(tok, trace, step, kind_name))):
    with tab:
        if tab.open:
            if tok is None:
                st.info("No tokenizer to inspect: train on the Corpus page, or import a tokenizer file "
                        "(Export & import tab).")
            else:
                draw()
with tabs[3]:
    if tabs[3].open:
        _export_tab(tok, trace, label)
with tabs[4]:
    if tabs[4].open:
        _session_tab()

_write_link(text)
