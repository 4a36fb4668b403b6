"""Hugging Face tokenizer.json files as users bring them, imported through the Inspect page's reader
(playground.inspect.read_upload_groups): each model, normalizer, pre-tokenizer, post-processor and
decoder a file may name encodes to the ids `tokenizers` gives reading the same file, with and
without special tokens added and recognized; decodes as it does; spells each token as the
vocabulary does, with the bytes it stands for; and where `tokenizers` cannot be matched (dropout,
a character dropped without a word) says so in one line."""
from __future__ import annotations

import json
from functools import lru_cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tokenizers import AddedToken, Regex, Tokenizer, decoders as dc, models, normalizers as nm
from tokenizers import pre_tokenizers as pt, processors as pp, trainers

from core.errors import EncodeError, TokenizerFileError
from playground.inspect import read_upload_groups

CORPUS = ("The quick brown fox jumps over the lazy dog. 我喜欢吃苹果，他不喜欢吃苹果派。 Café naïve "
          "résumé 😀👍🏽 👨‍👩‍👧\n" * 4 + "tabs\tand  double  spaces\nlowest lower newest widest (x) = y[0] + 1;\n")
SPECIALS = ["<s>", "</s>", "<unk>", "[CLS]", "[SEP]"]
BYTES = [f"<0x{b:02X}>" for b in range(256)]
TEXTS = ["  Hello   world,  the quick  brown fox  ", "我喜欢吃苹果 ж", "👨‍👩‍👧 👍🏽 👩🏿‍💻", "e\u0301 cafe\u0301 naïve",
         "def f(x):\n\treturn x  \n\n", "x <s> y </s>[CLS] <unk> z[SEP]", "", " ", "lowest newer QUICK Lazy <tool> 12345"]


def _bpe(pre=None, norm=None, alphabet=(), specials=SPECIALS, vocab_size=300, **model):
    tok = Tokenizer(models.BPE(**model))
    tok.normalizer = norm
    tok.pre_tokenizer = pre if pre is not None else pt.Whitespace()
    kw = {k: model[k] for k in ("continuing_subword_prefix", "end_of_word_suffix") if k in model}
    tok.train_from_iterator([CORPUS], trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=specials, show_progress=False,
                                                          initial_alphabet=list(alphabet), **kw))
    return tok


def _edit(tok, change) -> Tokenizer:
    data = json.loads(tok.to_str())
    change(data)
    return Tokenizer.from_str(json.dumps(data, ensure_ascii=False))


def _bytes_in_the_model(data):
    """<0xNN> as a Llama-style file has them: vocabulary tokens, not added ones."""
    data["added_tokens"] = [a for a in data["added_tokens"] if not a["content"].startswith("<0x")]


def _byte_level(**pre):
    tok = _bpe(pre=pt.ByteLevel(add_prefix_space=False, **pre), alphabet=pt.ByteLevel.alphabet())
    tok.decoder = dc.ByteLevel()
    return tok


def _with(tok, **parts):
    for k, v in parts.items():
        setattr(tok, k, v)
    return tok


def _template(tok, processor):
    ids = [(s, tok.token_to_id(s)) for s in ("<s>", "</s>")]
    return _with(tok, post_processor={
        "template": lambda: pp.TemplateProcessing(single="<s> $A </s>", pair="<s> $A </s> </s> $B:1 </s>:1",
                                                  special_tokens=ids),
        "roberta": lambda: pp.RobertaProcessing(ids[1], ids[0]),
        "bert": lambda: pp.BertProcessing(ids[1], ids[0])}[processor]())


def _unigram(byte_fallback: bool):
    tok = Tokenizer(models.Unigram())
    tok.pre_tokenizer = pt.Metaspace()
    tok.decoder = dc.Sequence([dc.Metaspace(), dc.ByteFallback(), dc.Fuse()])
    tok.train_from_iterator([CORPUS], trainers.UnigramTrainer(vocab_size=200, special_tokens=["<unk>", "<s>", "</s>"] + BYTES,
                                                              unk_token="<unk>", show_progress=False))
    return _edit(tok, lambda d: (d["model"].update(byte_fallback=byte_fallback), _bytes_in_the_model(d)))


def _wordpiece(**change):
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer, tok.pre_tokenizer, tok.decoder = nm.BertNormalizer(), pt.BertPreTokenizer(), dc.WordPiece()
    tok.train_from_iterator([CORPUS], trainers.WordPieceTrainer(vocab_size=300, show_progress=False,
                                                                special_tokens=["[UNK]", "[CLS]", "[SEP]", "[PAD]"]))
    tok.post_processor = pp.BertProcessing(("[SEP]", tok.token_to_id("[SEP]")), ("[CLS]", tok.token_to_id("[CLS]")))
    return _edit(tok, lambda d: d["model"].update(change))


def _wordlevel():
    tok = Tokenizer(models.WordLevel(unk_token="<unk>"))
    tok.pre_tokenizer = pt.Whitespace()
    tok.train_from_iterator([CORPUS], trainers.WordLevelTrainer(special_tokens=SPECIALS, show_progress=False))
    return tok


def _added(**flags):
    def change(data):
        for a in data["added_tokens"]:
            a.update(flags)
    return _edit(_byte_level(), change)


def _added_tokens():
    tok = _bpe(norm=nm.Lowercase(), unk_token="<unk>")
    tok.add_tokens([AddedToken("QUICK", normalized=True), AddedToken("Lazy", normalized=False),
                    AddedToken("lowest", single_word=True), AddedToken(" newer", lstrip=True),
                    AddedToken("<tool>", special=False, normalized=False)])
    return tok


def _charsmap() -> bytes:
    """The NFKC table of a SentencePiece model a package ships (Jurassic-2's), as HF's Precompiled
    normalizer reads it when converting such a model."""
    from sentencepiece import sentencepiece_model_pb2
    from core.pretrained import _file_of
    model = sentencepiece_model_pb2.ModelProto()
    model.ParseFromString(_file_of("jurassic-2").read_bytes())
    return model.normalizer_spec.precompiled_charsmap


def _split(behavior, invert):
    return _bpe(pre=pt.Split(pattern=" ", behavior=behavior, invert=invert), unk_token="<unk>")


def _metaspace(scheme, split):
    return _with(_bpe(pre=pt.Metaspace(prepend_scheme=scheme, split=split), unk_token="<unk>"),
                 decoder=dc.Metaspace(prepend_scheme=scheme, split=split))


VARIANTS = {
    "wordlevel": _wordlevel,
    "bpe-byte-fallback": lambda: _edit(_with(_bpe(pre=pt.Metaspace(), specials=SPECIALS + BYTES, byte_fallback=True,
                                                  unk_token="<unk>", vocab_size=500),
                                             decoder=dc.Sequence([dc.Metaspace(), dc.ByteFallback(), dc.Fuse()])),
                                       _bytes_in_the_model),
    "llama2-style": lambda: _edit(_bpe(pre=pt.Metaspace(), specials=SPECIALS + BYTES, byte_fallback=True,
                                       unk_token="<unk>", vocab_size=500), lambda d: (_bytes_in_the_model(d), d.update(
        pre_tokenizer=None,
        normalizer={"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": "▁"},
                                                        {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}]},
        decoder={"type": "Sequence", "decoders": [{"type": "Replace", "pattern": {"String": "▁"}, "content": " "},
                                                  {"type": "ByteFallback"}, {"type": "Fuse"},
                                                  {"type": "Strip", "content": " ", "start": 1, "stop": 0}]}))),
    "bpe-subword-prefix": lambda: _with(_bpe(continuing_subword_prefix="##", unk_token="<unk>"), decoder=dc.WordPiece()),
    "bpe-end-of-word": lambda: _with(_bpe(end_of_word_suffix="</w>", unk_token="<unk>"), decoder=dc.BPEDecoder()),
    "byte-level": _byte_level,
    "byte-level-no-regex": lambda: _byte_level(use_regex=False),
    "byte-level-prefix-space": lambda: _edit(_byte_level(), lambda d: d["pre_tokenizer"].update(add_prefix_space=True)),
    "ignore-merges": lambda: _edit(_byte_level(), lambda d: d["model"].update(ignore_merges=True)),
    "merges-as-strings": lambda: _edit(_byte_level(), lambda d: d["model"].update(
        merges=[" ".join(m) for m in d["model"]["merges"]])),
    "unigram": lambda: _unigram(False),
    "unigram-byte-fallback": lambda: _unigram(True),
    "wordpiece": _wordpiece,
    "wordpiece-max-5-chars": lambda: _wordpiece(max_input_chars_per_word=5),
    "added-lstrip": lambda: _added(lstrip=True),
    "added-rstrip": lambda: _added(rstrip=True),
    "added-not-normalized": lambda: _added(normalized=False),
    "added-single-word": lambda: _added(single_word=True),
    "added-mixed": _added_tokens,
    **{f"norm-{k}": (lambda n=n: _bpe(norm=n, unk_token="<unk>")) for k, n in {
        "nfkc": nm.NFKC(), "lowercase": nm.Lowercase(), "replace": nm.Replace("  ", " "), "prepend": nm.Prepend("▁"),
        "strip": nm.Strip(), "sequence": nm.Sequence([nm.NFD(), nm.StripAccents(), nm.Lowercase()])}.items()},
    "norm-precompiled": lambda: _bpe(norm=nm.Sequence([nm.Precompiled(_charsmap()), nm.Replace(" ", "▁")]),
                                     pre=pt.Metaspace(), unk_token="<unk>"),
    **{f"metaspace-{s}-{sp}": (lambda s=s, sp=sp: _metaspace(s, sp)) for s in ("always", "first", "never")
       for sp in (True, False)},
    **{f"split-{b}-{i}": (lambda b=b, i=i: _split(b, i)) for b in ("removed", "isolated", "merged_with_previous",
                                                                    "merged_with_next", "contiguous") for i in (False, True)},
    "split-regex-then-byte-level": lambda: _edit(_byte_level(), lambda d: d.update(pre_tokenizer={
        "type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": r"\p{N}{1,3}| ?\p{L}+|\s+"}, "behavior": "Isolated", "invert": False},
            {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False}]})),
    **{f"pre-{k}": (lambda p=p: _bpe(pre=p, unk_token="<unk>")) for k, p in {
        "digits": pt.Digits(individual_digits=True), "digits-grouped": pt.Digits(), "punctuation": pt.Punctuation(),
        "whitespace-split": pt.WhitespaceSplit(), "unicode-scripts": pt.UnicodeScripts(),
        "sequence": pt.Sequence([pt.WhitespaceSplit(), pt.Punctuation(), pt.Digits(True)]),
        "regex-split": pt.Split(Regex(r"\s+"), behavior="isolated")}.items()},
    **{f"post-{k}": (lambda k=k: _template(_byte_level(), k)) for k in ("template", "roberta", "bert")},
    "decoder-ctc": lambda: _with(_bpe(unk_token="<unk>"), decoder=dc.CTC()),
    "decoder-sequence": lambda: _with(_bpe(unk_token="<unk>"), decoder=dc.Sequence([dc.Replace("_", " "), dc.Strip(" ", 1, 0)])),
}


@lru_cache(maxsize=None)
def file_text(key: str) -> str:
    return VARIANTS[key]().to_str()


def imported(key: str):
    [(_, tok, _)] = read_upload_groups([(f"{key}.json", file_text(key).encode("utf-8"))])
    return tok


def reference(key: str, recognize: bool) -> Tokenizer:
    hf = Tokenizer.from_str(file_text(key))
    hf.encode_special_tokens = not recognize
    return hf


def check_against_tokenizers(key: str, tok, text: str) -> None:
    for add in (False, True):
        for recognize in (False, True):
            ref = reference(key, recognize)
            want = ref.encode(text, add_special_tokens=add)
            got = tok.encode(text, add_special_tokens=add, recognize_special_tokens=recognize)
            assert list(got.ids) == want.ids, (text, add, recognize)
            assert tok.decode(list(got.ids)) == ref.decode(want.ids, skip_special_tokens=False)
            last = 0
            for i, t, b, (s, e), special in zip(got.ids, got.tokens, got.token_bytes, got.offsets, want.special_tokens_mask):
                assert tok.id_to_token(i) == t and tok.token_to_id(t) == i and tok.token_bytes(i) == b
                if not special:   # added by the post-processor: (0, 0)
                    assert last <= s <= e <= len(text)
                    last = s
            assert all(0 <= a <= z <= len(text.encode("utf-8")) for a, z in got.byte_offsets)


@pytest.mark.parametrize("key", list(VARIANTS))
def test_each_hf_file_variant_encodes_and_decodes_as_tokenizers(key):
    tok = imported(key)
    for text in TEXTS:
        check_against_tokenizers(key, tok, text)
    tok.front(TEXTS[0])
    assert all(tok.made_at(i) is None or tok.made_at(i) >= 1 for i in range(tok.vocab_size) if tok.token_to_id(tok.id_to_token(i)) == i)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=30))
@pytest.mark.parametrize("key", ["llama2-style", "unigram-byte-fallback", "added-mixed", "post-template", "wordpiece"])
def test_any_text_encodes_as_tokenizers(key, text):
    check_against_tokenizers(key, imported(key), text)


@pytest.mark.parametrize("key, token, stands_for", [
    ("bpe-byte-fallback", "▁the", b" the"), ("bpe-byte-fallback", "<0xE6>", b"\xe6"),
    ("unigram-byte-fallback", "<0x41>", b"A"), ("llama2-style", "▁", b" "),
    ("bpe-end-of-word", "lowest</w>", b"lowest"), ("bpe-subword-prefix", "##est", b"est"), ("wordpiece", "##s", b"s")])
def test_token_bytes_are_what_the_token_stands_for(key, token, stands_for):
    tok = imported(key)
    assert tok.token_bytes(tok.token_to_id(token)) == stands_for


def test_byte_fallback_bytes_spell_the_character_and_the_added_space_covers_nothing():
    tok = imported("llama2-style")
    enc = tok.encode("ж")
    assert enc.tokens == ("▁", "<0xD0>", "<0xB6>")
    assert b"".join(enc.token_bytes) == " ж".encode()
    assert enc.offsets == ((0, 0), (0, 1), (0, 1)) and enc.byte_offsets == ((0, 0), (0, 1), (1, 2))


def test_unknown_unigram_piece_is_spelled_as_the_unknown_token():
    tok = imported("unigram")
    enc = tok.encode("Жж")
    assert set(enc.tokens) <= {"▁", "<unk>"} and "<unk>" in enc.tokens


def test_bpe_without_unknown_token_says_which_character_it_cannot_encode():
    """`tokenizers` drops such a character without a word (and shifts the offsets after it)."""
    key = "no-unk"
    VARIANTS[key] = lambda: _bpe()
    try:
        tok = imported(key)
        assert list(tok.encode("the fox").ids) == reference(key, False).encode("the fox").ids
        with pytest.raises(EncodeError, match=r"'Ж' is not in the vocabulary and no-unk has no unknown token"):
            tok.encode("the Жfox")
        with pytest.raises(EncodeError, match="'Ж'"):
            tok.encode("the fox", pair="Ж")
    finally:
        del VARIANTS[key]


def test_byte_level_file_without_unknown_token_but_every_byte_is_not_marked():
    tok = imported("byte-level")
    assert tok._marked is None and tok.encode("Ж 😀").ids


def test_dropout_is_refused_in_one_line():
    raw = json.loads(file_text("byte-level"))
    raw["model"]["dropout"] = 0.1
    with pytest.raises(TokenizerFileError, match=r"^dropout\.json sets BPE dropout \(0\.1\).*null") as err:
        read_upload_groups([("dropout.json", json.dumps(raw).encode())])
    assert "\n" not in str(err.value)
    raw["model"]["dropout"] = None
    read_upload_groups([("dropout.json", json.dumps(raw).encode())])


@pytest.mark.parametrize("key", ["bpe-subword-prefix", "bpe-end-of-word", "byte-level", "merges-as-strings", "llama2-style"])
def test_made_at_is_the_rank_of_the_merge_that_made_the_token(key):
    """With a continuing-subword prefix the merge ("##l", "##o") makes "##lo", not "##l##o"."""
    tok = imported(key)
    model = json.loads(file_text(key))["model"]
    prefix = model.get("continuing_subword_prefix") or ""
    first: dict = {}
    for k, merge in enumerate(model["merges"], 1):
        a, b = merge.split(" ", 1) if isinstance(merge, str) else merge
        first.setdefault(a + (b[len(prefix):] if prefix and b.startswith(prefix) else b), k)
    assert first and all(tok.made_at(tok.token_to_id(t)) == k for t, k in first.items())


REPLAYED = ["bpe-subword-prefix", "bpe-end-of-word", "byte-level", "llama2-style", "bpe-byte-fallback", "ignore-merges",
            "merges-as-strings", "split-isolated-False", "pre-digits", "norm-lowercase"]


@pytest.mark.parametrize("key", REPLAYED)
def test_walk_a_words_replay_ends_where_encode_does(key):
    """The Inspect page's replay (core/replay.py) says its last step is encode's split: for a file
    with a subword prefix or an end-of-word suffix it started from bare characters, so it
    replayed no merge or the wrong ones."""
    from core.replay import replay_text
    tok = imported(key)
    for text in ["lowest newer widest", "The quick brown fox", "x 我喜欢 12345", "naïve résumé"]:
        got = [t for r in replay_text(tok, text) for t in r.final]
        assert got == list(tok.encode(text).tokens), text
