"""Token tax page: the same text (the UDHR, articles 1-3) in ~48 languages, encoded by every
tokenizer; how many tokens each language pays relative to English, as a heat map and a sortable
table; and, for the tokenizers trained here, bytes per token on held-out text against vocabulary size.

Widgets -> counts (playground/tokenizers.py caches them; playground/token_tax.py computes) -> render.
"""
from __future__ import annotations

import streamlit as st

from playground import charts, compare, inspect_link, state, token_tax, tokenizers, views
from playground.state import MODEL_LABELS, PERSIST, LanguagesKeys as K
from playground.startup import through_app

through_app()   # a deep link on a new server (or AppTest) may run this file without app.py

MEAN = "(mean of the tokenizers shown)"

# a few well-known vocabularies of different sizes and makers; the others are one click away
DEFAULT_PRETRAINED = ("gpt2", "cl100k_base", "o200k_base", "llama3", "qwen2.5", "mistral-v1", "bert-base-uncased")


# The two figures, made once per content and shared: made at every run, Plotly's checks of the heat
# map (~50 languages by each tokenizer) and the curves were ~100 ms of the page's ~220 on each visit
# and each click here. Keyed by what they draw (st.plotly_chart copies a figure, never changes it).
@st.cache_resource(max_entries=16, show_spinner=False)
def _tax_chart(content: tuple, columns: tuple, _ordered):
    return charts.token_tax_chart(_ordered, list(columns))


@st.cache_resource(max_entries=16, show_spinner=False)
def _curves_chart(content: tuple, _curves: dict):
    return charts.bytes_per_token_chart(_curves)


def _content(frame) -> tuple:
    """A frame as a cache key: its columns and rows."""
    return tuple(frame.columns), tuple(frame.itertuples(index=False, name=None))


st.title("Token tax")
st.caption("The same text in many languages: the Universal Declaration of Human Rights, articles 1 to 3. "
           "A tokenizer that needs three times as many tokens for a language as for English makes its "
           "speakers pay three times as much per request, and fits a third as much in its context.")

langs = token_tax.languages()
results = state.get_results()
imported = state.get_imported()
available: dict[str, str] = {}
if results is not None:
    available.update({f"trained:{m}": f"{MODEL_LABELS[m]} (trained)" for m in results.traces()})
available.update({f"pretrained:{n}": compare.PRETRAINED_LABELS.get(n, n) for n in tokenizers.installed_pretrained()})
available.update({f"imported:{n}": f"{n} (imported)" for n in imported})
default = [k for k in (f"pretrained:{n}" for n in DEFAULT_PRETRAINED) if k in available] + \
    [k for k in available if k.startswith("trained:")]


def open_link() -> None:
    """Apply the address's parameters once (when they differ from what this page last wrote)."""
    params = state.link_to_open(state.widget_value(K.URL_SEEN))
    if params is None:
        return
    seen = tuple(sorted(params.items()))
    state.set_widget(K.URL_SEEN, seen)
    link, msgs = token_tax.parse_link(params, list(available), [lang.code for lang in langs])
    unknown = [n for n in params if n not in token_tax.URL_KEYS]
    if unknown:   # as the Compare and Inspect pages say it
        st.toast(inspect_link.ignored_params_message(unknown, "Token tax", token_tax.URL_KEYS),
                 icon=":material/link_off:", duration="long")
    for key, name in ((K.TOKENIZERS, "tokenizers"), (K.SORT, "sort"), (K.HELD_OUT, "held")):
        if name in link:
            state.set_widget(key, link[name])
    if "view" in link:
        state.set_widget(K.TABLE_VIEW, "token counts")
    if msgs:
        st.info(views.md_escape(" ".join(msgs)), icon=":material/link_off:")


open_link()
state.init_widget(K.TOKENIZERS, default)
# a tokenizer chosen earlier may be gone (an import removed, a new corpus trained): never an option
# the widget does not have
state.set_widget(K.TOKENIZERS, [k for k in state.widget_value(K.TOKENIZERS) or [] if k in available])

missing = tokenizers.unavailable_pretrained()
if missing:
    with st.expander(f"{len(missing)} pretrained tokenizer{'s are' if len(missing) > 1 else ' is'} not installed"):
        for name, command in missing:
            st.markdown(f"- **{views.md_escape(name)}**: `{command}`")

chosen = st.multiselect("Tokenizers", list(available), key=K.TOKENIZERS, format_func=available.get,
                        persist_state=PERSIST, placeholder="Pick tokenizers",
                        help="Trained on the Corpus page, pretrained (offline), or imported on the Inspect page.")
chosen = [k for k in chosen if k in available]

counts: dict[str, dict] = {}
label_of: dict[str, str] = {}
unknowns: dict[str, list[str]] = {}    # label -> languages mostly spelled as its unknown token
refused: list[str] = []
for key in chosen:
    kind, name = key.split(":", 1)
    label = available[key].removesuffix(" (trained)").removesuffix(" (imported)")
    label_of[key] = label
    if kind == "pretrained":
        try:
            counts[label] = tokenizers.pretrained_tax(name)
        except Exception as e:   # noqa: BLE001 - a damaged package: the others still draw
            st.error(f"{views.md_escape(label)} did not load: {views.md_escape(str(e).splitlines()[0])}")
            continue
    elif kind == "trained":
        counts[label] = tokenizers.trained_tax(results, results.trace(name))
    else:
        counts[label] = token_tax.token_counts(imported[name], langs)
    if any(v is None for v in counts[label].values()):
        refused.append(label)
    if kind == "pretrained":
        lost = tokenizers.pretrained_unknown_languages(name)
    else:
        tok = tokenizers.trained(results, results.trace(name)) if kind == "trained" else imported[name]
        lost = token_tax.unknown_languages(tok, langs)
    if lost:
        unknowns[label] = lost

if not counts:
    st.info("Pick at least one tokenizer above.")
else:
    frame = token_tax.tax_table(counts, langs)
    shown = [k for k in chosen if label_of.get(k) in counts]
    if state.widget_value(K.SORT) not in [MEAN] + shown:
        state.set_widget(K.SORT, MEAN)
    sort_by = st.selectbox("Sort languages by", [MEAN] + shown, key=K.SORT, persist_state=PERSIST, width=360,
                           format_func=lambda k: label_of.get(k, k), help="The dearest language first.")
    ordered = token_tax.sort_languages(frame, label_of.get(sort_by))
    st.markdown("**Tokens for the same text, relative to English**")
    columns = tuple(token_tax.tokenizer_columns(frame))
    st.plotly_chart(_tax_chart(_content(ordered), columns, ordered), key=K.TAX_CHART)
    st.caption("Each cell: the language's token count over English's, for the same declaration. "
               "Hover for the full language name." + (f" Blank: {views.md_escape(', '.join(refused))} cannot encode some "
                                                       "scripts (no unknown token)." if refused else ""))

    for label, lost in unknowns.items():
        st.caption(f"{views.md_escape(label)} spells much of {len(lost)} language{'s' if len(lost) > 1 else ''} "
                   f"as its unknown token ({views.md_escape('; '.join(lost))}): "
                   "a low count there is text lost, not text saved.")
    st.subheader("Table")
    view = st.radio("Show", ["relative to English", "token counts"], key=K.TABLE_VIEW, horizontal=True,
                    persist_state=PERSIST)
    table = ordered if view == "relative to English" else \
        token_tax.counts_table(counts, langs).set_index("code").loc[list(ordered["code"])].reset_index()
    fmt = "%.2f×" if view == "relative to English" else "%d"
    st.dataframe(table, hide_index=True, height=420,
                 column_config={c: st.column_config.NumberColumn(format=fmt) for c in token_tax.tokenizer_columns(table)})
    st.caption("Click a column's header to sort by it. " + views.md_escape(token_tax.source_line()))

st.subheader("Trained here: bytes per token on held-out text")
if results is None:
    st.caption("Train on the Corpus page to see how your tokenizers' tokens grow with their vocabulary.")
else:
    names = {lang.code: lang.name for lang in langs}
    held = st.selectbox("Held-out text", list(names), key=K.HELD_OUT, format_func=names.get,
                        persist_state=PERSIST, help="The UDHR in this language: text the tokenizers were not "
                                                    "trained on (unless your corpus is the UDHR).")
    text = next(lang.text for lang in langs if lang.code == held)
    curves = {MODEL_LABELS[m]: tokenizers.trained_curve(results, trace, text) for m, trace in results.traces().items()}
    st.plotly_chart(_curves_chart(tuple((label, _content(f)) for label, f in curves.items()), curves),
                    key=K.CURVE_CHART)
    partial = {label: frame["coverage"].iloc[-1] for label, frame in curves.items() if frame["coverage"].iloc[-1] < 1}
    if partial:
        st.caption("Without an unknown token a vocabulary refuses what it never saw: "
                   + "; ".join(f"{views.md_escape(label)} is measured on the {share:.0%} of the text it can encode"
                               for label, share in partial.items()) + ".")
    st.caption(f"Each tokenizer measured at {token_tax.CURVE_POINTS} points along its merges (from its alphabet "
               f"to its final vocabulary), on the {views.md_escape(names[held])} declaration "
               f"({len(text.encode('utf-8')):,} bytes). Trained on {views.md_escape(results.corpus_name)}.")

# this view in the address: F5 or a copied link reopens it
state.set_url_params(token_tax.link_params(
    chosen, default, None if state.widget_value(K.SORT) in (None, MEAN) else state.widget_value(K.SORT),
    state.widget_value(K.HELD_OUT), state.widget_value(K.TABLE_VIEW) == "token counts"))
state.set_widget(K.URL_SEEN, tuple(sorted(state.url_params().items())))
