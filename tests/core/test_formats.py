"""Saved files load in Hugging Face `tokenizers` and encode to our ids and offsets; what HF cannot
express is refused by HF and still loads here; corrupt and foreign files give typed errors."""
import json

import pytest
from tokenizers import Tokenizer

from core.corpus import count_words
from core.encoders import TrainedTokenizer
from core.errors import EncodeError, TokenizerFileError
from core.formats import (load_tokenizer, load_tokenizer_bytes, save_tokenizer, tokenizer_json,
                          vocab_json_and_merges, vocab_txt)
from core.trainer import TrainConfig, train

CORPUS = ("The quick brown fox jumps over the lazy dog. 我喜欢吃苹果，他不喜欢吃苹果派。 Café naïve résumé "
          "😀👍🏽 👨‍👩‍👧\n" * 3 + "tabs\tand  double  spaces\nlowest lower newest widest, (x) = y[0] + 1;\n")
MIXED = "Hello wörld!\t 我喜欢苹果  😀 👨‍👩‍👧 café\n  naïve\tx <|endoftext|> [CLS]"

EXPRESSIBLE = [
    TrainConfig(model="bbpe", vocab_size=400, special_tokens=("<|endoftext|>",)),
    TrainConfig(model="bbpe", vocab_size=400, pre_tokenizer="whitespace", normalizer="nfkc"),
    TrainConfig(model="bpe", vocab_size=200, unk_token="[UNK]"),
    TrainConfig(model="bpe", vocab_size=200, unk_token="[UNK]", end_of_word="suffix"),
    TrainConfig(model="bpe", vocab_size=200, pre_tokenizer="gpt2", unk_token="[UNK]", special_tokens=("<|endoftext|>",)),
    TrainConfig(model="bpe", vocab_size=200, pre_tokenizer="chars", unk_token="[UNK]", normalizer="lowercase"),
    TrainConfig(model="wordpiece", vocab_size=200, unk_token="[UNK]", special_tokens=("[PAD]", "[CLS]", "[SEP]")),
    TrainConfig(model="wordpiece", vocab_size=200, unk_token="[UNK]", normalizer="bert-uncased"),
    TrainConfig(model="wordpiece", vocab_size=200, unk_token="[UNK]", score="frequency", tie_break="hf"),
]


def _trained(config):
    config = config.resolved()
    return TrainedTokenizer.from_trace(train(count_words(CORPUS, config.pre_tokenizer, config.normalizer), config))


@pytest.mark.parametrize("config", EXPRESSIBLE, ids=lambda c: f"{c.model}-{c.pre_tokenizer}-{c.end_of_word}-{c.normalizer}")
def test_saved_tokenizer_json_encodes_like_us_in_hf(config, tmp_path):
    tok = _trained(config)
    path = tmp_path / "tokenizer.json"
    save_tokenizer(tok, path)
    hf = Tokenizer.from_file(str(path))
    hf.encode_special_tokens = True   # docs/cli.md: text that spells a special token is ordinary text
    for text in (MIXED, CORPUS):
        ours = tok.encode(text)
        theirs = hf.encode(text, add_special_tokens=False)
        assert list(ours.ids) == theirs.ids
        assert list(ours.offsets) == [tuple(o) for o in theirs.offsets]
    assert tok.encode(MIXED) == tok.encode_readable(MIXED)   # the fast path equals the readable one
    again = load_tokenizer(path)
    assert isinstance(again, TrainedTokenizer)
    assert again.encode(MIXED).ids == tok.encode(MIXED).ids
    # greedy and longest-match refuse what they cannot cover without an unknown token
    encoders = ("merges", "greedy", "longest-match") if tok.unk_token else ("merges",)
    for encoder in encoders:
        assert again.encode(CORPUS, encoder).ids == tok.encode(CORPUS, encoder).ids


def test_bert_style_post_processor_matches_hf(tmp_path):
    tok = _trained(EXPRESSIBLE[6])
    save_tokenizer(tok, tmp_path / "t.json")
    hf = Tokenizer.from_file(str(tmp_path / "t.json"))
    ours = tok.encode("lowest lower", add_special_tokens=True, pair="newest")
    theirs = hf.encode("lowest lower", "newest", add_special_tokens=True)
    assert list(ours.ids) == theirs.ids
    assert list(ours.token_type_ids) == theirs.type_ids
    assert list(ours.attention_mask) == theirs.attention_mask


@pytest.mark.parametrize("config", [TrainConfig(model="bpe", vocab_size=200, unk_token="[UNK]", end_of_word="symbol"),
                                    TrainConfig(model="bpe", vocab_size=200, unk_token="[UNK]", pre_tokenizer="jieba")],
                         ids=["end-of-word-symbol", "jieba"])
def test_inexpressible_configurations_are_refused_by_hf_but_load_here(config, tmp_path):
    tok = _trained(config)
    path = tmp_path / "tokenizer.json"
    save_tokenizer(tok, path)
    data = json.loads(path.read_text(encoding="utf8"))
    assert data["model"]["type"] == "PlaygroundBPE" and data["model"]["playground"]["hf_refuses_because"]
    with pytest.raises(Exception):
        Tokenizer.from_file(str(path))
    assert load_tokenizer(path).encode(MIXED).ids == tok.encode(MIXED).ids


def test_vocab_json_merges_txt_and_vocab_txt_load_as_hf_tokenizers(tmp_path):
    bbpe = _trained(EXPRESSIBLE[0])
    vocab, merges = vocab_json_and_merges(bbpe)
    (tmp_path / "vocab.json").write_text(vocab, encoding="utf8")
    (tmp_path / "merges.txt").write_text(merges, encoding="utf8")
    loaded = load_tokenizer(tmp_path / "vocab.json")
    text = "Hello wörld! 我喜欢苹果 😀"
    assert loaded.encode(text).ids == bbpe.encode(text).ids
    assert loaded.decode(list(loaded.encode(text).ids)) == text
    wp = _trained(EXPRESSIBLE[6])
    (tmp_path / "vocab.txt").write_text(vocab_txt(wp), encoding="utf8")
    loaded = load_tokenizer(tmp_path / "vocab.txt")
    assert loaded.vocab_size == len(wp.vocab)
    assert loaded.encode("lowest lower").ids == wp.encode("lowest lower").ids


def test_foreign_hf_tokenizer_json_loads(tmp_path):
    from tokenizers import models, pre_tokenizers
    hf = Tokenizer(models.WordLevel({"[UNK]": 0, "hello": 1, "world": 2}, unk_token="[UNK]"))
    hf.pre_tokenizer = pre_tokenizers.Whitespace()
    hf.save(str(tmp_path / "wl.json"))
    loaded = load_tokenizer(tmp_path / "wl.json")
    enc = loaded.encode("hello there world")
    assert enc.ids == (1, 0, 2) and enc.offsets == ((0, 5), (6, 11), (12, 17)) and enc.encoder == "hf"


def _gapped_hf_json() -> bytes:
    """A HF BPE file whose ids leave gaps (real files put added tokens past their vocabulary)."""
    from tokenizers import models
    data = json.loads(Tokenizer(models.BPE({"a": 0, "b": 1, "ab": 2}, [("a", "b")])).to_str())
    data["model"]["vocab"] = {"a": 0, "b": 5, "ab": 9}
    return json.dumps(data).encode()


def test_a_hf_file_with_gaps_in_its_ids_reads_every_id_it_encodes_to():
    tok = load_tokenizer_bytes(_gapped_hf_json(), "gaps.json")
    assert tok.vocab_size == 10 and tok.n_tokens == 3   # the id range, and the count the summary shows
    assert "3 tokens" in tok.summary
    ids = tok.encode("ab").ids
    assert ids == (9,) and tok.id_to_token(9) == "ab" and tok.token_bytes(9) == b"ab" and tok.decode(ids) == "ab"
    with pytest.raises(EncodeError, match="id 3 is unassigned"):
        tok.id_to_token(3)
    with pytest.raises(EncodeError, match="out of range"):
        tok.token_bytes(10)


def test_a_hf_file_whose_ids_run_past_the_limit_is_refused():
    data = json.loads(_gapped_hf_json())
    data["model"]["vocab"]["ab"] = 4_000_000_000
    with pytest.raises(TokenizerFileError, match="ids up to"):
        load_tokenizer_bytes(json.dumps(data).encode(), "huge-id.json")


@pytest.mark.parametrize("raw,name", [
    (b"\x00\x01\xff\xfe binary", "tokenizer.json"),
    (b'{"model": {"type": "BPE", "vocab": ', "tokenizer.json"),
    (b'["a", "b"]', "tokenizer.json"),
    (b'{"hello": "world"}', "tokenizer.json"),
    (b'{"model": {"type": "Nonsense"}}', "tokenizer.json"),
    (b'{"model": {"type": "PlaygroundBPE", "vocab": {"a": 0}, "playground": {"format": 1}}}', "tokenizer.json"),
    (b'{"model": {"type": "PlaygroundBPE", "vocab": {"a": 5}, "playground": {"format": 1, "model": "bpe"}}}',
     "tokenizer.json"),
    (b'{"a": 0, "b": 1}', "vocab.json"),
    (b"", "vocab.txt"),
], ids=["binary", "truncated", "json-list", "no-model", "unknown-type", "missing-fields", "bad-ids",
        "vocab-json-without-merges", "empty-vocab-txt"])
def test_corrupt_or_foreign_files_raise_one_line_errors(raw, name):
    with pytest.raises(TokenizerFileError) as err:
        load_tokenizer_bytes(raw, name)
    assert "\n" not in str(err.value)


def test_playground_section_carries_greedy_frequencies():
    tok = _trained(TrainConfig(model="bpe", vocab_size=200, unk_token="[UNK]"))
    data = tokenizer_json(tok)
    assert data["model"]["playground"]["final_tokens"][0][1] > 0
    assert data["model"]["type"] == "BPE"


def _edited(config, edit) -> bytes:
    """A playground-written tokenizer.json, changed by `edit(playground_section, vocab)`."""
    data = tokenizer_json(_trained(config))
    edit(data["model"]["playground"], data["model"]["vocab"])
    return json.dumps(data, ensure_ascii=False).encode()


def _last_merge_makes_nothing(pg, vocab):
    (a, _), (_, b) = pg["merges"][-1], pg["merges"][0]
    pg["merges"].append([a, b])   # both tokens are in the vocabulary; what they make is not
    assert "".join((a, b.removeprefix("##"))) not in vocab


BPE_UNK = TrainConfig(model="bpe", vocab_size=200, unk_token="[UNK]", special_tokens=("<s>",))
WORDPIECE = TrainConfig(model="wordpiece", vocab_size=200, unk_token="[UNK]")


@pytest.mark.parametrize("config, edit, reason", [
    (BPE_UNK, lambda pg, v: pg.update(unk_token="<nope>"), "the unknown token '<nope>' is not in the vocabulary"),
    (WORDPIECE, lambda pg, v: pg.update(unk_token="<nope>"), "the unknown token '<nope>' is not in the vocabulary"),
    (BPE_UNK, lambda pg, v: pg.update(special_tokens=["<s>", "<pad>"]),
     "the special token '<pad>' is not in the vocabulary"),
    (BPE_UNK, lambda pg, v: pg.update(special_tokens="<s>"), "special_tokens is '<s>': expected a list of strings"),
    (BPE_UNK, _last_merge_makes_nothing, "which is not in the vocabulary"),
    (TrainConfig(model="bbpe", vocab_size=400), _last_merge_makes_nothing, "which is not in the vocabulary"),
    (WORDPIECE, _last_merge_makes_nothing, "which is not in the vocabulary"),
], ids=["bpe-unk", "wordpiece-unk", "special", "special-as-a-string", "bpe-merge", "bbpe-merge", "wordpiece-merge"])
def test_a_playground_file_naming_a_token_outside_its_vocabulary_is_refused(config, edit, reason):
    with pytest.raises(TokenizerFileError) as err:
        load_tokenizer_bytes(_edited(config, edit), "edited.json")
    assert str(err.value).startswith("edited.json: ") and reason in str(err.value), err.value


@pytest.mark.parametrize("field, value, reason", [
    ("normalizer", "zzz", "unknown normalizer 'zzz'"),
    ("pre_tokenizer", "zzz", "unknown pre-tokenizer 'zzz'"),
    ("pre_tokenizer", "bert", "written for the whitespace pre-tokenizer only"),   # a session could not save it
    ("special_tokens", "<s>", "special_tokens is '<s>': expected a list"),
])
def test_a_playground_unigram_file_the_pages_cannot_run_is_refused(field, value, reason):
    from core.unigram import UnigramTokenizer
    data = UnigramTokenizer(pieces=(("<unk>", 0.0), ("▁a", -1.0), ("b", -2.0)), unk_id=0).tokenizer_json()
    assert load_tokenizer_bytes(json.dumps(data).encode(), "u.json").encode("a b").tokens
    data["model"]["playground"][field] = value
    with pytest.raises(TokenizerFileError) as err:
        load_tokenizer_bytes(json.dumps(data).encode(), "u.json")
    assert str(err.value).startswith("u.json: ") and reason in str(err.value), err.value
