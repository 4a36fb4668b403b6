"""Hostile and odd input through the app headless (AppTest): every case gets a clear message on
the page and loses nothing the user already had (corpus, settings, trained results, the step each
view shows, imported tokenizers), read back through playground.state's accessors.

The engine's own refusals (empty corpora, bad tables, bad settings) are tested on core in
test_properties.py and test_cli.py; here they are tested as a user meets them: through the
widgets, the uploaders and the address bar, on every page. Markup: every element's text is
audited (HTML bodies for their tags and attributes, Markdown for unescaped markup); what a browser
really runs is tests/test_browser_hardening.py's job.
"""
from __future__ import annotations

import csv
import dataclasses
import io
import json
import os
import re
import subprocess
import sys
import time
from html.parser import HTMLParser

import pytest
from streamlit.testing.v1 import AppTest

from core.limits import MAX_TRAINING_WORD_CHARS as MAX_WORD_CHARS, MAX_VOCAB_SIZE
from core.trainer import MODELS
from playground import session_file as sf
from playground import browser_stepper, html_panel, state, views
from tests.app.conftest import COMPARE_TABS, INSPECT_TABS, goto, load_preset, new_app, paste, train
from tests.support import APP, PAGES, PAYLOAD, PAYLOADS, ROOT, tell



# ---------------------------------------------------------------- driving the app

def session_with_everything(preset: str = "seed-000", step: int = 3) -> AppTest:
    """A session with a corpus, trained results, the BPE view at `step` and one imported tokenizer:
    everything a bad input must leave alone."""
    at = train(load_preset(new_app(), preset))
    state.set_step("bpe", step, at.session_state)
    hf = _word_level(["low", "lower"])
    state.add_imported("kept", hf, at.session_state)
    return at


def upload(at: AppTest, name: str, data: bytes) -> AppTest:
    at.file_uploader(key="corpus_upload").set_value((name, data, "application/octet-stream"))
    at.button(key="corpus_use_upload").click().run()
    assert not at.exception, at.exception
    return at


def snapshot(at: AppTest) -> tuple:
    ss = at.session_state
    return (state.get_corpus(ss), state.get_settings(ss), state.get_results(ss),
            {m: state.get_step(m, ss) for m in MODELS}, state.get_imported(ss))


def assert_kept(at: AppTest, before: tuple, what: str = "") -> None:
    corpus, settings, results, steps, imported = snapshot(at)
    assert corpus is before[0], f"{what}: the corpus was replaced"
    assert settings == before[1], f"{what}: the settings changed"
    assert results is before[2], f"{what}: the trained results were replaced"
    assert steps == before[3], f"{what}: the steps moved"
    assert imported.keys() == before[4].keys() and all(imported[k] is before[4][k] for k in imported), \
        f"{what}: the imported tokenizers changed"


def errors(at: AppTest) -> list[str]:
    """The error messages as the user reads them (Markdown escapes removed)."""
    return [md_plain(e.value) for e in at.error]


def _word_level(words):
    from tokenizers import Tokenizer, models, pre_tokenizers
    from core.formats import load_tokenizer_bytes
    hf = Tokenizer(models.WordLevel({"[UNK]": 0, **{w: i + 1 for i, w in enumerate(words)}}, unk_token="[UNK]"))
    hf.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    return load_tokenizer_bytes(hf.to_str().encode(), "tokenizer.json")


def _word_level_json(words) -> bytes:
    from tokenizers import Tokenizer, models, pre_tokenizers
    hf = Tokenizer(models.WordLevel({"[UNK]": 0, **{w: i + 1 for i, w in enumerate(words)}}, unk_token="[UNK]"))
    hf.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    return hf.to_str().encode()


# ---------------------------------------------------------------- auditing what the page draws

def elements(at: AppTest):
    """Every element of the last run (main, sidebar, toasts), depth first."""
    stack = [at._tree]
    while stack:
        node = stack.pop()
        yield node
        children = getattr(node, "children", None)
        if isinstance(children, dict):
            stack.extend(children.values())


def html_bodies(at: AppTest) -> list[str]:
    """HTML the browser will render as markup: st.html, st.markdown with unsafe_allow_html, the
    panels playground.html_panel sets into the page as they are (no sanitizer on the way), and every
    step a stepper's window carries (browser_stepper.js sets them into those panels)."""
    out = []
    for node in elements(at):
        proto = getattr(node, "proto", None)
        if getattr(node, "type", None) == "html":
            out.append(proto.body)
        elif getattr(node, "type", None) == "bidi_component" and proto.component_name == html_panel.NAME:
            out.append(html_panel.drawn(node))
        elif getattr(node, "type", None) == "bidi_component" and proto.component_name == browser_stepper.NAME:
            out.extend(html for parts in browser_stepper.stepper_data(node)["window"].values() for html in parts.values())
        elif proto is not None and getattr(proto, "allow_html", False):
            out.append(proto.body)
    return out


def markdown_texts(at: AppTest) -> list[str]:
    """Markdown the page draws without HTML: text elements' bodies, alerts, toasts, headings and
    the labels of widgets, tabs and expanders (labels render Markdown too)."""
    out = []
    for node in elements(at):
        proto = getattr(node, "proto", None)
        if proto is None or getattr(node, "type", None) == "html" or getattr(proto, "allow_html", False):
            continue
        names = {f.name for f in proto.DESCRIPTOR.fields} if hasattr(proto, "DESCRIPTOR") else set()
        for name in ("body", "label"):
            if name in names and isinstance(getattr(proto, name), str) and getattr(proto, name):
                out.append(getattr(proto, name))
    return out


SAFE_TAGS = {"style", "div", "span", "code", "strong", "b", "table", "thead", "tbody", "tr", "th", "td", "br", "wbr",
             "ul", "li", "small"}   # ul, li, small: the merge trees (charts.merge_tree_html)
SAFE_ATTRS = {"class", "title", "style", "data-tokenizer", "data-step", "data-card",   # data-card: the hover card, escaped like title
              "data-segmentations", "data-p",   # the Unigram lattice's counts and shares
              "data-kind"}                      # the Unigram pieces' bars: "prune" or "scores"


class _Audit(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags, self.attrs, self.text, self.b_texts, self._in_b = [], [], [], [], False

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs.extend(attrs)
        self._in_b = tag == "b"

    def handle_endtag(self, tag):
        self._in_b = False

    def handle_data(self, data):
        self.text.append(data)
        if self._in_b:
            self.b_texts.append(data)


def audit_html(body: str) -> str:
    """Check one HTML body; returns its text (entities decoded) for 'shown literally' checks."""
    a = _Audit()
    a.feed(body)
    assert set(a.tags) <= SAFE_TAGS, f"unexpected tags {set(a.tags) - SAFE_TAGS} in {body[:300]}"
    for name, value in a.attrs:
        assert name in SAFE_ATTRS, f"unexpected attribute {name}={value!r} in {body[:300]}"
    # <b> only ever holds the panels' numbers: an attribute breaker ("><b>x</b>) would hold x
    assert all(re.fullmatch(r"[\d,.]+", t.strip()) for t in a.b_texts), a.b_texts
    return "".join(a.text)


_CODE_SPAN = re.compile(r"`[^`]*`")
_UNESCAPED_LINK = re.compile(r"(?<!\\)\]\(")
_UNESCAPED_DIRECTIVE = re.compile(r"(?<!\\):[a-z]+\[")


def audit_markdown(text: str) -> None:
    """User text in Markdown is escaped (views.md_escape): no payload left whole, no link, image,
    colour directive or entity. (Streamlit shows raw tags in Markdown without unsafe_allow_html as
    text, so the app's own "</w>" is fine; the browser tests check that too.)"""
    plain = _CODE_SPAN.sub("", text)
    for p in PAYLOADS:
        assert p not in plain, f"a payload reached Markdown unescaped: {text[:300]!r}"
    assert not _UNESCAPED_LINK.search(plain), f"unescaped link in Markdown: {text[:300]!r}"
    assert not _UNESCAPED_DIRECTIVE.search(plain), f"unescaped directive in Markdown: {text[:300]!r}"
    assert "javascript:" not in plain.lower(), text[:300]
    assert not re.search(r"(?<!\\)&(lt|gt|amp);", plain), f"an entity would not show as typed: {text[:300]!r}"


def audit_page(at: AppTest) -> str:
    """Audit everything drawn; returns all HTML text, decoded, to check payloads show literally."""
    shown = [audit_html(body) for body in html_bodies(at)]
    for text in markdown_texts(at):
        audit_markdown(text)
    return "\n".join(shown)


def md_plain(text: str) -> str:
    """What escaped Markdown shows: md_unescape(md_escape(s)) == s."""
    return re.sub(r"\\(.)", r"\1", text)


# ================================================================ bad input on the Corpus page

@pytest.mark.parametrize("text", ["", "   \n\t  ", "\xa0\u3000\n"], ids=["empty", "whitespace", "unicode-spaces"])
def test_an_empty_paste_is_refused_and_nothing_is_lost(text):
    at = session_with_everything()
    before = snapshot(at)
    paste(at, text)
    assert errors(at) and "empty" in errors(at)[0] and "The current corpus is unchanged" in errors(at)[0]
    assert "paste or upload some text, or pick a preset" in md_plain(errors(at)[0])   # what to do
    assert_kept(at, before, repr(text))
    assert at.button(key="corpus_train").disabled is False


UNUSUAL = {
    "one-character": "a",
    "nul-and-control": "ab\x00cd \x01\x02\x1b[31mred\x7f ab\x00cd ab\x00cd",
    "right-to-left": "שלום עולם שלום مرحبا بالعالم مرحبا שלום",
    "combining-marks": "e\u0301te\u0301 cafe\u0301 cafe\u0301 n\u0303o Z\u0351\u0352\u0353",
    "zwj-emoji": "👩‍👩‍👧‍👦 👨🏽‍💻 🏳️‍🌈 👩‍👩‍👧‍👦 👩‍👩‍👧‍👦",
}


@pytest.mark.parametrize("name", list(UNUSUAL))
def test_unusual_text_is_kept_exactly_and_trains(name):
    text = UNUSUAL[name]
    at = paste(new_app(), text)
    assert not at.error and at.success
    corpus = state.get_corpus(at.session_state)
    assert corpus.text == text, "nothing normalized, stripped or dropped on the way in"
    assert any(c.value == text for c in at.code), "the preview shows the text as it is"
    train(at)
    assert not at.error
    results = state.get_results(at.session_state)
    assert results.corpus_digest == corpus.digest
    bpe = results.trace("bpe")
    if name == "one-character":
        assert [len(results.trace(m).steps) for m in MODELS] == [0, 0, 0]
        assert bpe.stop_reason == "no pair left to merge" and bpe.vocab == ("a",)
    elif name == "nul-and-control":
        assert {"\x00", "\x1b", "\x7f"} <= set(bpe.alphabet) and "ab\x00cd" in bpe.vocab
    elif name == "right-to-left":
        assert "שלום" in bpe.vocab and "مرحبا" in bpe.vocab
    elif name == "combining-marks":
        assert "\u0301" in bpe.alphabet and "cafe\u0301" in bpe.vocab
    else:
        assert "👩‍👩‍👧‍👦" in bpe.vocab, "a ZWJ sequence seen three times becomes one token"
    for page in PAGES[1:]:
        goto(at, page)
    assert state.get_results(at.session_state) is results


def test_a_5mb_line_without_spaces_is_cut_said_and_trains_quickly():
    """A 5,000,000-character line with no space: the trainers cut words over MAX_WORD_CHARS and the
    Corpus page shows their note. The line repeats ten letters, so its 500 pieces are one word:
    quick. (Measured outside the suite: 5 MB of random letters, or of the KJV without its spaces,
    costs the trainer about 0.3-0.6 s a merge on those pieces, about a minute for 100 merges.)"""
    line = ("abcdefghij" * 500_000)
    assert len(line) == 5_000_000
    at = paste(new_app(), line)
    assert state.get_corpus(at.session_state).text == line
    assert [m.value for m in at.metric][:1] == ["5,000,000"]
    assert any("The first 20,000 of 5,000,000 characters" in c.value for c in at.caption)
    for model, size in (("bpe", 14), ("bbpe", 260), ("wordpiece", 24)):
        at.number_input(key=f"corpus_{model}_vocab_size").set_value(size)
    start = time.monotonic()
    train(at)
    assert time.monotonic() - start < 90
    assert not at.error
    results = state.get_results(at.session_state)
    # one line without spaces: the Corpus page also offers splitting otherwise (the unspaced hint)
    hints = [w.value for w in at.warning if "one long “word”" in w.value]
    assert len(hints) == 1
    notes = [w.value for w in at.warning if w.value not in hints]
    assert len(notes) == 3, notes
    for model, note in zip(MODELS, notes):
        assert results.trace(model).notes, model
        assert f"{MAX_WORD_CHARS:,}" in md_plain(note) and "cut into pieces" in note
        assert "5,000,000" in md_plain(note)
    assert len(results.trace("bpe").steps) == 4


BAD_UPLOADS = [
    # (file name, content, what the message says)
    ("latin1.txt", "café crème".encode("latin-1"), "is not valid UTF-8"),
    ("broken.txt", b"abc \xff\xfe def", "is not valid UTF-8"),
    ("image.txt", b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 40, "not valid UTF-8"),
    ("nul.txt", b"ab\x00\x00cd\x00 ef", "looks like a binary file"),
    ("empty.txt", b"", "is empty"),
    ("spaces.txt", b"  \r\n\t ", "is empty"),
    ("noheader.csv", b"low,5\nlower,2\n", "the first row must be the header `word,count`"),
    ("negative.csv", b"word,count\nlow,-5\n", "is negative"),
    ("fraction.csv", b"word,count\nlow,2.5\n", "is not a whole number"),
    ("huge.csv", b"word,count\nlow,99999999999999999999\n", "is too large"),
    ("exponent.csv", b"word,count\nlow,1e300\n", "is too large"),
    ("infinite.tsv", b"word\tcount\nlow\tinf\n", "is not a number"),
    ("words.csv", b"word,count\nlow,many\n", "is not a number"),
    ("onecolumn.csv", b"word,count\nlow\n", "missing count column"),
    ("header-only.csv", b"word,count\n", "no word with a positive count"),
    ("zeros.csv", b"word,count\nlow,0\nnew,0\n", "no word with a positive count"),
    ("empty.csv", b"", "the first row must be the header"),
    ("binary.csv", bytes(range(256)) * 4, "not valid UTF-8"),
    ("corrupt.parquet", b"PAR1 not really parquet", "not a readable Parquet file"),
]


def _parquet_uploads():
    """Parquet tables whose word column is not text: each named, the corpus kept (they were read as
    "['a', 'b']", "True", "{'x': 1}" or dropped)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    def table(**columns) -> bytes:
        out = io.BytesIO()
        pq.write_table(pa.table(columns), out)
        return out.getvalue()
    return [
        ("lists.parquet", table(word=[["low", "er"]], count=[2]), "column `word` holds lists, not text"),
        ("records.parquet", table(word=[{"w": "low"}], count=[2]), "column `word` holds nested records"),
        ("flags.parquet", table(word=[True], count=[2]), "column `word` holds true/false values"),
        ("nulls.parquet", table(word=["low", None], count=[2, 3]), "row 2: column `word` is null"),
        ("badutf8.parquet", table(word=pa.array([b"\xff"], pa.binary()).view(pa.string()), count=[1]),
         "column `word` is not valid UTF-8"),
    ]


BAD_UPLOADS += _parquet_uploads()


def test_bad_uploads_are_refused_with_a_reason_and_nothing_is_lost():
    at = session_with_everything()
    before = snapshot(at)
    for name, data, reason in BAD_UPLOADS:
        upload(at, name, data)
        assert errors(at), name
        message = md_plain(errors(at)[0])
        assert message.startswith(name) and reason in message, (name, message)
        assert message.endswith("The current corpus is unchanged."), message
        assert_kept(at, before, name)


def test_a_missing_or_too_large_upload_names_the_limit():
    """The uploader itself refuses a file over server.maxUploadSize (the browser test shows its
    message); a click on "Use this file" then finds no file, and the page says the limit."""
    at = session_with_everything()
    before = snapshot(at)
    at.button(key="corpus_use_upload").click().run()
    limit = at.file_uploader(key="corpus_upload").proto.max_upload_size_mb
    config = (ROOT / ".streamlit" / "config.toml").read_text()
    assert re.search(rf"^maxUploadSize = {limit}$", config, re.M), "the uploader enforces the configured limit"
    assert errors(at) and f"at most {limit} MB" in errors(at)[0]
    assert f"At most {limit} MB" in at.file_uploader(key="corpus_upload").help
    assert_kept(at, before, "no file")


def test_word_count_tables_duplicates_are_added_and_huge_counts_train():
    at = upload(new_app(), "dup.csv", b"word,count\r\nlow,5\r\nnew,1\r\nlow,3\r\n")
    corpus = state.get_corpus(at.session_state)
    assert corpus.word_counts.as_pairs() == [("low", 8), ("new", 1)]
    assert any("counts added" in c.value for c in at.caption), "the page says how duplicates count"
    assert at.success[0].value.startswith("Using dup\\.csv (2 words (9 in all))")
    upload(at, "one.csv", b"word,count\nlow,1\n")
    assert "1 word (1 in all)" in at.success[0].value
    big = 10 ** 15
    upload(at, "big.csv", f"word,count\nlow,{big}\nlowest,{big}\nnewer,{big - 1}\n".encode())
    train(at)
    steps = state.get_results(at.session_state).trace("bpe").steps
    assert steps[0].token == "lo" and steps[0].count == 2 * big
    for page in PAGES[1:]:
        goto(at, page)


def test_vocabulary_sizes_the_user_can_enter():
    """The number inputs stop at 1 and MAX_VOCAB_SIZE (the browser refuses anything outside, see
    test_browser_hardening.py); inside, below the alphabet is refused with the minimum, and the
    largest trains."""
    at = session_with_everything()
    for model in MODELS:
        field = at.number_input(key=f"corpus_{model}_vocab_size")
        assert (field.min, field.max, field.step) == (1, MAX_VOCAB_SIZE, 1)
    before = snapshot(at)
    at.number_input(key="corpus_bpe_vocab_size").set_value(3).run()
    train(at)
    message = errors(at)[0]
    assert message.startswith("BPE: vocabulary size 3 is below the alphabet: this corpus needs at least 12")
    assert message.endswith("Your corpus and earlier results are unchanged.")
    kept = snapshot(at)
    assert kept[2] is before[2] and kept[3] == before[3] and kept[0] is before[0]
    # out-of-range values sent anyway never become settings
    for value in (0, -5, 10 ** 9):
        at.number_input(key="corpus_bpe_vocab_size").set_value(value).run()
        assert not at.exception
        assert 1 <= state.get_settings(at.session_state).bpe.vocab_size <= MAX_VOCAB_SIZE
    at.number_input(key="corpus_bpe_vocab_size").set_value(MAX_VOCAB_SIZE).run()
    train(at)
    assert not at.error
    bpe = state.get_results(at.session_state).trace("bpe")
    assert bpe.config.vocab_size == MAX_VOCAB_SIZE and bpe.stop_reason == "no pair left to merge"


# ================================================================ corrupt files on the Inspect page

def _tokenizer_json(vocab: dict, merges: list) -> bytes:
    return json.dumps({"version": "1.0", "model": {"type": "BPE", "vocab": vocab, "merges": merges}}).encode()


BAD_TOKENIZER_FILES = [
    ("nested.json", b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
    ("deep.json", b'{"model":' * 50_000 + b"1" + b"}" * 50_000, "nested too deeply"),
    ("empty-vocab.json", _tokenizer_json({}, []), "empty vocabulary"),
    ("negative-id.json", _tokenizer_json({"a": -1, "b": 1}, []), "is not a tokenizer file that `tokenizers` can load"),
    ("unknown-merge.json", _tokenizer_json({"a": 0, "b": 1}, ["x y"]), "is not a tokenizer file that `tokenizers` can load"),
    ("utf16.json", _tokenizer_json({"a": 0}, []).decode().encode("utf-16"), "not a text file"),
    ("zeros.json", b"\x00" * 64, "not valid JSON"),
    ("null.json", b"null", "not a tokenizer file"),
    ("vocab.json", json.dumps({"a": 0, "b": 1}).encode(), "upload its merges.txt with it"),
    ("merges.txt", b"#version: 0.2\na b\n", "needs its vocab.json"),
    ("vocab.txt", b"hello world this is prose\n" * 10, "does not look like a vocab.txt"),
    ("binary.txt", bytes(range(256)), "not a text file"),
]


def test_corrupt_tokenizer_files_are_refused_and_nothing_is_lost():
    at = goto(session_with_everything(), "pages/inspect.py", "Export & import")
    before = snapshot(at)
    for name, data, reason in BAD_TOKENIZER_FILES:
        at.file_uploader(key="inspect_import_files").set_value([(name, data, "application/octet-stream")])
        at.button(key="inspect_import").click().run()
        assert not at.exception, (name, at.exception)
        assert errors(at), name
        message = md_plain(errors(at)[0])
        assert reason in message and message.endswith("Nothing was imported; your tokenizers are unchanged."), \
            (name, message)
        assert_kept(at, before, name)


def _session_blob(at: AppTest) -> dict:
    return json.loads(sf.dump_session(sf.current_session(at.session_state)))


def _broken_sessions(good: dict) -> list[tuple[str, bytes]]:
    def edit(label, change):
        d = json.loads(json.dumps(good))
        change(d)
        return label, json.dumps(d).encode()
    trace = "results", "traces", "bpe"
    return [
        edit("count 10^30", lambda d: d.update(corpus={"name": "t", "source": "upload", "preset": None,
                                                       "word_counts": {"words": ["a"], "counts": [10 ** 30]}})),
        edit("nested import", lambda d: d.update(imported=[{"name": "x", "file": "x.json",
                                                           "content": "[" * 100_000 + "]" * 100_000}])),
        edit("step past the end", lambda d: d["steps"].update(bpe=10 ** 6)),
        edit("negative step", lambda d: d["steps"].update(bpe=-1)),
        edit("token not its id", lambda d: d[trace[0]][trace[1]][trace[2]]["steps"][0].update(token="zz")),
        edit("5,000-digit score", lambda d: d[trace[0]][trace[1]]["wordpiece"]["steps"][0].update(
            score="1" * 5000 + "/3")),
        edit("unknown setting", lambda d: d["settings"]["bpe"].update(colour="red")),
        edit("vocab size 0", lambda d: d["settings"]["bpe"].update(vocab_size=0)),
        ("truncated", json.dumps(good).encode()[:-200]),
        ("a tokenizer", _tokenizer_json({"a": 0}, [])),
        ("binary", bytes(range(256))),
    ]


def test_corrupt_session_files_are_refused_and_the_session_stays():
    at = goto(session_with_everything("seed-004"), "pages/inspect.py", "Session")
    before = snapshot(at)
    for label, blob in _broken_sessions(_session_blob(at)):
        at.file_uploader(key="inspect_session_file").set_value(("s.json", blob, "application/json"))
        at.button(key="inspect_load_session").click().run()
        assert not at.exception, (label, at.exception)
        assert errors(at) and errors(at)[0].endswith("Your current session is unchanged."), (label, errors(at))
        assert_kept(at, before, label)


def test_odd_but_valid_session_files_load_and_every_page_runs():
    """Edits a session file's schema allows (any name, a digest that matches nothing, odd counts
    and stop reasons): they load, and no page fails on them."""
    source = train(load_preset(new_app(), "seed-004"))
    good = _session_blob(source)

    def variant(change):
        d = json.loads(json.dumps(good))
        change(d)
        return json.dumps(d, ensure_ascii=False).encode()
    variants = [
        variant(lambda d: (d["corpus"].update(name=PAYLOAD), d["results"]["traces"]["bpe"].update(stop_reason=PAYLOAD))),
        variant(lambda d: d["results"].update(corpus_digest="nothing", corpus_name=PAYLOAD)),
        variant(lambda d: [s.update(candidates=[]) for s in d["results"]["traces"]["wordpiece"]["steps"]]),
        variant(lambda d: d.update(corpus={"name": "table", "source": "upload", "preset": None,
                                           "word_counts": {"words": ["a b", "\x00", "👩‍👩‍👧"], "counts": [1, 10 ** 15, 2]}})),
    ]
    for blob in variants:
        at = goto(new_app(), "pages/inspect.py", "Session")
        at.file_uploader(key="inspect_session_file").set_value(("s.json", blob, "application/json"))
        at.button(key="inspect_load_session").click().run()
        assert not at.exception and at.success, errors(at)
        for page in PAGES:
            goto(at, page)
            audit_page(at)
        for tab in INSPECT_TABS:
            goto(at, "pages/inspect.py", tab)
            audit_page(at)


# ================================================================ the address bar

LINKS = [
    {"model": "zzz", "step": ["-5", "abc"]},
    {"tokenizer": "zzz", "step": "-5"},
    {"step": "99999999999", "speed": "nan", "lockstep": "2"},
    {"preset": PAYLOADS[0], "token": PAYLOADS[1], PAYLOADS[2]: "1"},
    {"token": "x" * 5000, "step": ""},
]


@pytest.mark.parametrize("page", PAGES)
def test_malformed_links_on_every_page(page):
    """No page fails on a bad link, and nothing the session had is lost. The Merges page reads its
    parameters and says what it ignored or moved; the others read none (app.py drops them with a
    message: test_a_link_to_another_page_is_dropped_with_a_message and the browser test)."""
    at = session_with_everything()
    before = snapshot(at)
    elsewhere = "pages/compare.py" if page == "pages/corpus.py" else "pages/corpus.py"
    for params in LINKS:
        # Streamlit reads the address when a session starts and when the page changes (a link
        # followed inside the app): come from another page, as a user following a link does
        at.query_params.clear()
        goto(at, elsewhere)
        at.query_params.update(params)
        state.set_step("bpe", 3, at.session_state)
        goto(at, page)
        assert not at.error, (params, errors(at))
        audit_page(at)
        if page == "pages/merges.py":
            said = " ".join(md_plain(w.value) for w in at.warning)
            assert said, f"{params}: the page says what it ignored or moved"
            step = state.get_step("bpe", at.session_state)
            if params.get("step") == "99999999999":
                assert step == 5 and "showing step 5" in said
            elif params.get("step") == "-5":
                assert step == 0 and "showing step 0" in said
            else:
                assert step == 3, "an unusable step leaves the view where it was"
            assert state.get_results(at.session_state) is before[2]
            assert state.get_corpus(at.session_state) is before[0]
        else:
            assert_kept(at, before, str(params))


def test_app_py_runs_in_bare_python():
    """A spawned worker process re-runs __main__, which after an AppTest (or inside the server) is
    app.py, in bare Python: no Streamlit runtime, pages without URL paths. It must not fail (it did
    when app.py compared url_path: counting workers died and the pool broke)."""
    code = ("import runpy, sys; sys.argv = ['app.py']; "
            f"runpy.run_path({str(APP)!r}, run_name='__mp_main__'); print('bare run done')")
    done = subprocess.run([sys.executable, "-c", code], cwd=APP.parent, capture_output=True, text=True,
                          timeout=120, env={**os.environ, "PYTHONPATH": str(APP.parent)})
    assert done.returncode == 0 and "bare run done" in done.stdout, done.stderr[-2000:]


@pytest.mark.parametrize("params", LINKS, ids=range(len(LINKS)))
def test_a_link_to_another_page_is_dropped_with_a_message(params):
    """A new session opened on a page that reads no parameters: a message names what was ignored
    and the address is cleaned. (AppTest runs app.py, where this happens, only for the default
    page: after switch_page it runs the page file alone, as Streamlit does for a pages/ folder.)"""
    at = AppTest.from_file(str(APP), default_timeout=180)
    at.query_params.update(params)
    at.run()
    assert not at.exception and not at.error
    toasts = [md_plain(t.value) for t in at.toast]
    assert len(toasts) == 1 and toasts[0].startswith("Ignored the link parameter")
    assert "this page reads no link parameters" in toasts[0]
    assert sorted(params)[0][:30] in toasts[0]
    for t in at.toast:
        audit_markdown(t.value)
    assert dict(at.query_params) == {}, "the address is cleaned"
    at.run()
    assert not at.toast, "said once"


def test_a_link_to_the_merges_page_in_a_new_session():
    at = AppTest.from_file(str(APP), default_timeout=180)
    at.query_params.update({"preset": "seed-000", "tokenizer": "wordpiece", "step": "-5", "speed": "0"})
    at.switch_page("pages/merges.py").run()
    assert not at.exception
    said = " ".join(md_plain(w.value) for w in at.warning)
    assert "showing step 0" in said and "Ignored speed='0'" in said
    assert state.get_results(at.session_state).corpus_name.startswith("Seed 000")


# ================================================================ user text never becomes markup

def test_user_text_is_escaped_on_every_page():
    """Payloads in every input: pasted corpus, uploaded file name and table words, special and
    unknown tokens, compare text, inspect text and pair, an imported tokenizer (its file name and
    token strings), the merge tree's token. Every element of every page and tab is audited."""
    at = new_app()
    rows = io.StringIO()
    csv.writer(rows).writerows([("word", "count")] + [(p, 3 + i) for i, p in enumerate(PAYLOADS)])
    name = PAYLOADS[0] + ".csv"
    upload(at, name, rows.getvalue().encode())
    assert set(state.get_corpus(at.session_state).word_counts.words) == set(PAYLOADS)
    assert md_plain(at.success[0].value).startswith(f"Using {name} ")
    assert md_plain(at.subheader[0].value) == f"Current corpus: {name}"
    audit_page(at)
    at.text_input(key="corpus_bpe_special_tokens").input(PAYLOADS[1]).run()
    at.text_input(key="corpus_wordpiece_unk_token").input(PAYLOADS[0]).run()
    train(at)
    audit_page(at)
    state.set_step("bpe", 1, at.session_state)

    at.query_params.update({"token": PAYLOADS[3]})
    goto(at, "pages/merges.py")
    shown = audit_page(at)
    assert PAYLOADS[0][:4] in shown, "table words show on the Merges page, as text"
    at.query_params.clear()

    goto(at, "pages/compare.py", "Tokens")
    at.text_area(key="compare_text").input(PAYLOAD).run()
    assert PAYLOADS[3] in audit_page(at), "the compare text shows literally"
    for tab in COMPARE_TABS[1:]:
        goto(at, "pages/compare.py", tab)
        audit_page(at)

    goto(at, "pages/inspect.py", "Export & import")
    at.file_uploader(key="inspect_import_files").set_value(
        [(PAYLOADS[2] + ".json", _word_level_json(PAYLOADS), "application/json")])
    at.button(key="inspect_import").click().run()
    assert not at.exception and at.success
    imported = next(iter(state.get_imported(at.session_state)))
    assert imported == PAYLOADS[2]
    audit_page(at)
    at.text_area(key="inspect_text").input(PAYLOAD).run()
    at.text_input(key="inspect_pair").input(PAYLOADS[3]).run()
    for choice in (f"imported:{imported}", "trained:bpe", "trained:wordpiece"):
        goto(at, "pages/inspect.py", "Pipeline")
        at.selectbox(key="inspect_tokenizer").set_value(choice).run()
        for tab in INSPECT_TABS:
            goto(at, "pages/inspect.py", tab)
            shown = audit_page(at)
            if tab == "Pipeline":
                assert PAYLOADS[1] in shown and PAYLOADS[6] in shown, (choice, "the text shows literally")
            if tab == "Walk a word" and choice.startswith("trained"):
                at.text_input(key="inspect_walk_word").input(PAYLOADS[5]).run()
                audit_page(at)
            if tab == "Vocabulary" and choice.startswith("trained"):
                at.text_input(key="inspect_vocab_query").input("<").run()
                audit_page(at)
                at.text_input(key="inspect_tree_token").input(PAYLOADS[4]).run()
                audit_page(at)
    goto(at, "pages/compare.py", "Tokens")
    audit_page(at)
    goto(at, "pages/corpus.py")
    audit_page(at)


def test_md_escape_shows_every_payload_literally():
    for p in PAYLOADS + ["a_b_", "1. item", "# title", "- item", "| a | b |", "$x$", ":material/home:", "\\*"]:
        escaped = views.md_escape(p)
        audit_markdown(escaped)
        assert md_plain(escaped) == p
    message = views.ignored_link_message([PAYLOADS[0]] * 7)
    audit_markdown(message)
    assert message.count("…") == 1 and message.startswith("Ignored the link parameters")


def test_user_text_is_escaped_on_the_unigram_page():
    """The Unigram page draws the corpus's pieces as HTML (the scores' and a pruning's bars, the
    lattice, the sentence): with every payload in the corpus, each shows as text at every kind of
    step, and nothing runs. Every element is audited."""
    from core.unigram import UnigramConfig
    from playground import unigram_control, unigram_view
    from playground.state import UnigramKeys as UK
    at = new_app()
    paste(at, (PAYLOAD + " ") * 5 + "\n" + (PAYLOADS[0] + " ") * 9)
    low, high = unigram_control.limits(state.get_corpus(at.session_state), UnigramConfig(vocab_size=100))
    at.toggle(key=UK.ON).set_value(True).run()
    assert high > low + 10
    at.number_input(key=UK.VOCAB_SIZE).set_value(low).run()          # the smallest: prunings
    train(at)
    steps = unigram_view.iterations(state.get_unigram(at.session_state).trace)
    kinds = {it.kind: it.index for it in reversed(steps)}       # the first step of each kind
    assert {"seeds", "em", "prune", "final"} <= set(kinds)
    goto(at, "pages/unigram.py")
    for kind in ("seeds", "em", "prune", "final"):
        tell(at, step=kinds[kind])
        assert not at.exception, at.exception
        shown = audit_page(at)
        assert "mg-bars" in shown or kind == "prune" and "Pruned" in shown, kind
    # a word typed into the lattice's box (AppTest's selectbox takes only offered ones: set as
    # the box's callback sets it): '"><b>x</b>', its lattice drawn
    view = state.get_unigram_view(at.session_state)
    state.set_unigram_view(dataclasses.replace(view, word=PAYLOADS[5][:9]), at.session_state)
    at.run()
    assert not at.exception, at.exception
    assert PAYLOADS[5][:9] in audit_page(at)
