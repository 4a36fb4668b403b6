"""playground/inspect.py without a browser: the pipeline's stages, word walk-throughs that end
exactly where the encoders end, the vocabulary table, exports that Hugging Face `tokenizers`
loads to the same ids, imports that refuse what they cannot read, and escaping."""
import csv
import io
import json
import re
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

from core import walks
from core.corpus import WordCounts, count_words
from core.encoders import ENCODERS, TrainedTokenizer
from core.errors import EncodeError, TokenizerFileError
from core.formats import HFTokenizer, load_tokenizer_bytes
from core.pretrained import load_pretrained, pretrained_names
from core.trace_io import TRACE_CSV_COLUMNS, trace_csv, trace_report
from core.trainer import TrainConfig, initial_vocab, train
from playground import inspect as ins
from tests.support import PAYLOADS

SEED_004 = WordCounts(("low", "lower", "newest", "widest"), (5, 2, 6, 3))
CORPUS = ("The quick brown fox jumps over the lazy dog. lowest lower newest widest, (x) = y[0] + 1;\n"
          "我喜欢吃苹果，他不喜欢吃苹果派。 Café naïve résumé 😀👍🏽\n") * 3
PAYLOAD = PAYLOADS[0]   # <img src=x onerror=alert(1)>
WORDS = ["lowest", "newest", "widest", "low", "lower", "estimate", "local", "lows", "slowest", "fox", "foxes",
         "quick", "brown", "我喜欢", "苹果派", "Café", "naïve", "😀👍🏽", "aaaa", "the", "The", "x", "zzz", "résumé",
         "lazy", "dog."]


def _trained(config, words=None, merges=None):
    cfg = config.resolved()
    wc = words if words is not None else count_words(CORPUS, cfg.pre_tokenizer, cfg.normalizer)
    if merges is not None:
        specials, alphabet, _ = initial_vocab(wc, cfg)
        config = TrainConfig(**{**cfg.__dict__, "vocab_size": len(specials) + len(alphabet) + merges})
    return train(wc, config)


TOKENIZERS = {
    "seed004-bpe-unk": lambda: _trained(TrainConfig(model="bpe", vocab_size=13, unk_token="[UNK]"), SEED_004),
    "seed004-bpe-eow": lambda: _trained(TrainConfig(model="bpe", vocab_size=14, end_of_word="symbol"), SEED_004),
    "seed004-wordpiece": lambda: _trained(TrainConfig(model="wordpiece", vocab_size=15), SEED_004),
    "bpe-eow-unk": lambda: _trained(TrainConfig(model="bpe", end_of_word="symbol", unk_token="</u>"), merges=60),
    "bpe-suffix": lambda: _trained(TrainConfig(model="bpe", end_of_word="suffix", unk_token="[UNK]"), merges=60),
    "bbpe": lambda: _trained(TrainConfig(model="bbpe", special_tokens=("<|endoftext|>",)), merges=80),
    "wordpiece-unk": lambda: _trained(TrainConfig(model="wordpiece", unk_token="[UNK]",
                                                  special_tokens=("[CLS]", "[SEP]")), merges=60),
    "wordpiece-freq": lambda: _trained(TrainConfig(model="wordpiece", score="frequency", tie_break="hf",
                                                   unk_token="[UNK]"), merges=60),
}


@pytest.fixture(scope="module", params=sorted(TOKENIZERS))
def trace(request):
    return TOKENIZERS[request.param]()


def _single_piece(tok, word):
    return len(walks.walk_pieces(tok, word)) == 1 and walks.walk_pieces(tok, word)[0] == word


# ---------------------------------------------------------------- walks end where the encoders end

@pytest.mark.parametrize("encoder", ENCODERS)
def test_walks_end_with_the_encoders_split(trace, encoder):
    for upto in (None, len(trace.steps) // 2):
        tok = TrainedTokenizer.from_trace(trace, upto=upto)
        for word in WORDS:
            if not _single_piece(tok, word):
                continue
            walk = walks.walk_word(tok, word, encoder)
            try:
                expected = tok.encode(word, encoder).tokens
            except EncodeError:
                assert walk.refused, (word, encoder)
                continue
            assert walk.tokens == expected, (word, encoder, walks.walk_lines(walk))
            assert not walk.refused


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
@given(word=st.text(alphabet="lowerstnidabcé我😀", min_size=1, max_size=14))
def test_walks_match_the_encoders_on_any_word(word):
    for name in ("seed004-bpe-unk", "bpe-eow-unk", "wordpiece-unk", "bbpe"):
        tok = TrainedTokenizer.from_trace(_cached(name))
        for encoder in ENCODERS:
            walk = walks.walk_word(tok, word, encoder)
            try:
                assert walk.tokens == tok.encode(word, encoder).tokens, (name, encoder, walks.walk_lines(walk))
            except EncodeError:
                assert walk.refused


_CACHE = {}


def _cached(name):
    if name not in _CACHE:
        _CACHE[name] = TOKENIZERS[name]()
    return _CACHE[name]


def test_bpe_walk_prints_each_merge_as_seed_004():
    tok = TrainedTokenizer.from_trace(_cached("seed004-bpe-unk"))
    walk = walks.walk_merges(tok, "newest")
    assert [s.line for s in walk.steps] == [
        "Start: [n, e, w, e, s, t]",
        "Merge 1 ('e', 's') -> es: [n, e, w, es, t]",
        "Merge 2 ('es', 't') -> est: [n, e, w, est]",
    ]
    # seed 004: "estimate, local" -> est i [UNK] a t e ...: unknown characters one per symbol
    walk = walks.walk_merges(tok, "estimate")
    assert walk.tokens == ("est", "i", "[UNK]", "[UNK]", "t", "e")
    assert "Not in the vocabulary: 'm', 'a' -> [UNK]" in walk.steps[-1].line


def test_wordpiece_walk_is_seed_004s_longest_match():
    tok = TrainedTokenizer.from_trace(_cached("seed004-wordpiece"))
    lows = walks.walk_longest_match(tok, "lows")
    assert lows.tokens == ("lo", "##w", "##s")
    assert [s.line.split(" (")[0].split(";")[0] for s in lows.steps] == ["matched lo", "matched ##w", "matched ##s"]
    assert "rest ##ws" in lows.steps[0].line and "rest ##s" in lows.steps[1].line
    local = walks.walk_longest_match(tok, "local")     # seed 004: matched lo; rest ##cal; [UNK]
    assert "matched lo" in local.steps[0].line and "rest ##cal" in local.steps[0].line
    assert local.steps[-1].line == "no token starts ##cal: the whole word becomes [UNK]"
    assert local.tokens == ("[UNK]",) and local.refused   # no unknown token: encode refuses it
    with pytest.raises(EncodeError):
        tok.encode("local")


def test_greedy_walk_is_seed_002s_recursion():
    tok = TrainedTokenizer.from_trace(_cached("bpe-eow-unk"))
    walk = walks.walk_greedy(tok, "lowest")
    assert walk.tokens == tok.encode("lowest", "greedy").tokens
    first = walk.steps[0]
    assert first.depth == 0 and "candidate #" in first.line and "found" in first.line
    assert all(s.depth >= 1 for s in walk.steps[1:])
    # a piece no candidate matches is one unknown token (seed 002's </u>)
    odd = walks.walk_greedy(tok, "qqq")
    assert odd.tokens == tok.encode("qqq", "greedy").tokens and "</u>" in odd.tokens
    assert any("no candidate" in s.line for s in odd.steps)


def test_long_words_are_not_walked_but_still_split():
    tok = TrainedTokenizer.from_trace(_cached("bbpe"))
    word = "lowest" * 60
    walk = walks.walk_word(tok, word, "merges")
    assert walk.note and not walk.steps
    assert walk.tokens == tok.encode(word).tokens


def test_walk_lines_are_plain_text():
    tok = TrainedTokenizer.from_trace(_cached("seed004-wordpiece"))
    text = walks.walk_lines(walks.walk_word(tok, "lows", "longest-match"))
    assert text.splitlines()[0] == "longest-match on 'lows': symbols [l, ##o, ##w, ##s]"
    assert text.splitlines()[-1] == "Result: [lo, ##w, ##s]"


# ---------------------------------------------------------------- the pipeline

def test_pipeline_of_a_trained_wordpiece_with_cls_sep_and_a_pair():
    tok = TrainedTokenizer.from_trace(_cached("wordpiece-unk"))
    stages = ins.pipeline(tok, "lowest fox.", pair="quick dog")
    assert [p.plain for p in stages.front.chunks] == ["lowest", "fox", "."]
    assert [(p.start, p.end) for p in stages.front.chunks] == [(0, 6), (7, 10), (10, 11)]
    assert stages.model == tok.encode("lowest fox.")
    post = stages.post
    assert post.tokens[0] == "[CLS]" and post.tokens.count("[SEP]") == 2 and post.tokens[-1] == "[SEP]"
    n_a = post.tokens.index("[SEP]") + 1
    assert post.token_type_ids == (0,) * n_a + (1,) * (len(post) - n_a)
    assert post.attention_mask == (1,) * len(post)
    rows = ins.post_rows(stages)
    assert list(rows["special"]) == [t in ("[CLS]", "[SEP]", "[UNK]") for t in post.tokens]
    table = ins.post_table(stages)
    assert list(table.index) == ["tokens", "input_ids", "attention_mask", "token_type_ids"]
    assert table.shape[1] == len(post)
    assert "TemplateProcessing" in stages.post_processor


def test_pipeline_keeps_the_first_stages_when_the_model_refuses():
    tok = TrainedTokenizer.from_trace(_cached("seed004-wordpiece"))   # no unknown token
    stages = ins.pipeline(tok, "Hello world")
    assert stages.error and "unknown token" in stages.error
    assert stages.model is None and [p.plain for p in stages.front.chunks] == ["Hello", "world"]


def test_pipeline_shows_byte_level_pieces_and_normalization():
    tok = TrainedTokenizer.from_trace(_trained(TrainConfig(model="bbpe", normalizer="nfkc"), merges=10))
    stages = ins.pipeline(tok, "Hello ﬁne world")
    assert stages.front.normalized == "Hello fine world"
    assert [p.shown for p in stages.front.chunks] == ["Hello", "Ġfine", "Ġworld"]
    assert [p.plain for p in stages.front.chunks] == ["Hello", " fine", " world"]


@pytest.mark.skipif("bert-base-uncased" not in pretrained_names(), reason="bert vocabulary not installed")
def test_pipeline_of_pretrained_bert_is_seed_004s():
    bert = load_pretrained("bert-base-uncased")
    stages = ins.pipeline(bert, "Hello how are U tday")
    assert stages.front.normalized == "hello how are u tday"
    assert [(p.shown, (p.start, p.end)) for p in stages.front.chunks] == [
        ("hello", (0, 5)), ("how", (6, 9)), ("are", (10, 13)), ("u", (14, 15)), ("tday", (16, 20))]
    assert stages.model.tokens == ("hello", "how", "are", "u", "td", "##ay")
    assert stages.model.ids == (7592, 2129, 2024, 1057, 14595, 4710)
    assert stages.post.ids == (101, 7592, 2129, 2024, 1057, 14595, 4710, 102)
    assert stages.post.attention_mask == (1,) * 8 and stages.post.token_type_ids == (0,) * 8
    pair = ins.pipeline(bert, "Hello how are you", pair="I am fine thank you")
    assert pair.post.token_type_ids == (0,) * 6 + (1,) * 6
    assert list(ins.post_rows(pair)["special"]).count(True) == 3


@pytest.mark.skipif("gpt2" not in pretrained_names(), reason="gpt2 ranks not installed")
def test_pipeline_of_pretrained_gpt2():
    stages = ins.pipeline(load_pretrained("gpt2"), "Hello, world!")
    assert [p.shown for p in stages.front.chunks] == ["Hello", ",", "Ġworld", "!"]
    assert stages.model.ids == (15496, 11, 995, 0)
    assert stages.post.ids == stages.model.ids and "no special tokens" in stages.post_processor


def _hf_tokenizer_with(tokens):
    vocab = {"[UNK]": 0, **{t: i + 1 for i, t in enumerate(tokens)}}
    hf = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    hf.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    hf.normalizer = normalizers.Lowercase()
    return load_tokenizer_bytes(hf.to_str().encode(), "evil.json")


def test_imported_hf_tokenizer_pipeline():
    tok = _hf_tokenizer_with(["hello", "world"])
    assert isinstance(tok, HFTokenizer)
    stages = ins.pipeline(tok, "Hello World x")
    assert stages.front.normalized == "hello world x" and stages.front.normalizer == "Lowercase"
    assert [p.shown for p in stages.front.chunks] == ["hello", "world", "x"]
    assert stages.model.tokens == ("hello", "world", "[UNK]")
    frame = ins.tokenizer_vocabulary(tok)
    assert list(frame["token"]) == ["[UNK]", "hello", "world"]


# ---------------------------------------------------------------- escaping

def _tags(html_text):
    body = html_text.split("</style>", 1)[1] if "</style>" in html_text else html_text
    return set(re.findall(r"<(/?\w+)", body)), body


def test_user_text_and_imported_tokens_are_escaped():
    tok = _hf_tokenizer_with(PAYLOAD.lower().split() + ["<script>alert(1)</script>", "<img/src=x/onerror=alert(1)>"])
    stages = ins.pipeline(tok, f"a {PAYLOAD} <script>alert(1)</script> <img/src=x/onerror=alert(1)> b")
    assert "<img" in stages.model.tokens and "<img/src=x/onerror=alert(1)>" in stages.model.tokens  # drawn ...
    for html_text in (ins.render_text(stages.front.normalized), ins.render_pieces(stages.front.chunks)):
        tags, body = _tags(html_text)
        assert tags <= {"div", "/div", "span", "/span"}, tags  # ... as text, never as a tag
        assert "<img" not in body and "<script" not in body and "&lt;img" in body
    from playground.spans import render_tokens
    tags, body = _tags(render_tokens(stages.model)[0])
    assert tags <= {"div", "/div", "span", "/span"} and "<img" not in body
    frame = ins.tokenizer_vocabulary(tok)     # tables are data, drawn as text by st.dataframe
    assert "<img/src=x/onerror=alert(1)>" in set(frame["token"])
    assert ins.describe(tok).startswith("Hugging Face WordLevel")


# ---------------------------------------------------------------- the vocabulary

def test_trained_vocabulary_table():
    trace = _cached("seed004-bpe-eow")      # es, est, est</w>
    frame = ins.trained_vocabulary(trace)
    assert list(frame.columns) == ins.VOCAB_COLUMNS
    rows = frame.set_index("token")
    assert rows.loc["es", "step"] == 1 and rows.loc["est", "step"] == 2 and rows.loc["est</w>", "step"] == 3
    assert rows.loc["e", "step"] == 0 and rows.loc["e", "kind"] == "initial"
    assert rows.loc["est</w>", "frequency"] == 9     # newest ×6 + widest ×3
    assert rows.loc["est</w>", "bytes"] == "65 73 74" and rows.loc["est</w>", "length"] == 3
    assert dict(trace.final_tokens) == {t: f for t, f in zip(frame["token"], frame["frequency"]) if f}
    early = ins.trained_vocabulary(trace, upto=1)
    assert "est" not in set(early["token"]) and early["frequency"].isna().all()


def test_partial_utf8_filter_on_byte_level_tokens():
    trace = _cached("bbpe")
    frame = ins.trained_vocabulary(trace)
    partial = ins.filter_vocabulary(frame, partial_only=True)
    assert len(partial) > 100          # lone bytes >= 0x80 at least
    for b in partial["bytes"]:
        data = bytes.fromhex(b.replace(" ", ""))
        with pytest.raises(UnicodeDecodeError):
            data.decode("utf-8")
    whole = frame[~frame["partial UTF-8"] & (frame["kind"] != "special")]
    for b in whole["bytes"]:
        bytes.fromhex(b.replace(" ", "")).decode("utf-8")
    found = ins.filter_vocabulary(frame, "Ġ")
    assert {t for t in frame["token"] if "Ġ" in t} <= set(found["token"])
    assert all("ġ" in (t + x).lower() for t, x in zip(found["token"], found["text"]))
    assert list(ins.filter_vocabulary(frame, "300")["id"]) == [300] or 300 >= len(frame)
    assert ins.filter_vocabulary(frame, "no such token at all").empty
    # digits that are not ASCII ("²", "٣") search as text, never as an id (int("²") raises)
    for q in ("²", "¹²", "٣"):
        found = ins.filter_vocabulary(frame, q)
        assert all(q in t.lower() or q in x.lower() for t, x in zip(found["token"], found["text"]))
    assert "²" in set(ins.filter_vocabulary(frame, "²")["token"])      # GPT-2's spelling of byte B2


@pytest.mark.skipif("cl100k_base" not in pretrained_names(), reason="cl100k not installed")
def test_pretrained_vocabulary_table():
    frame = ins.tokenizer_vocabulary(load_pretrained("cl100k_base"))
    assert len(frame) > 100_000 and frame["partial UTF-8"].sum() > 100
    assert frame.set_index("id").loc[9906, "token"] == "Hello"


# ---------------------------------------------------------------- exports load in HF with our ids

TEXTS = ["lowest newest widest, the quick brown fox.", CORPUS, "我喜欢苹果 😀 Café zzz"]


@pytest.mark.parametrize("name", ["bbpe", "wordpiece-unk", "bpe-suffix"])
def test_exported_tokenizer_json_loads_in_hf_with_our_ids(name, tmp_path):
    tok = TrainedTokenizer.from_trace(_cached(name))
    files = ins.export_files(tok)
    hf = Tokenizer.from_str(files["tokenizer.json"])
    path = tmp_path / "tokenizer.json"
    path.write_text(files["tokenizer.json"], encoding="utf-8")
    from_file = Tokenizer.from_file(str(path))
    for h in (hf, from_file):
        h.encode_special_tokens = True
        for text in TEXTS:
            assert h.encode(text, add_special_tokens=False).ids == list(tok.encode(text).ids)
    if "[CLS]" in tok.vocab_ids:    # the post-processor travels too
        assert hf.encode("lowest fox", "quick", add_special_tokens=True).ids == \
            list(tok.encode("lowest fox", add_special_tokens=True, pair="quick").ids)


def test_exported_vocab_json_and_merges_load_in_hf_with_our_ids(tmp_path):
    tok = TrainedTokenizer.from_trace(_cached("bbpe"))
    files = ins.export_files(tok)
    assert set(files) == {"tokenizer.json", "vocab.json", "merges.txt"}
    (tmp_path / "vocab.json").write_text(files["vocab.json"], encoding="utf-8")
    (tmp_path / "merges.txt").write_text(files["merges.txt"], encoding="utf-8")
    hf = Tokenizer(models.BPE.from_file(str(tmp_path / "vocab.json"), str(tmp_path / "merges.txt")))
    hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    for text in TEXTS:
        assert hf.encode(text).ids == list(tok.encode(text).ids)
    # and our own importer reads the pair back to the same ids
    again = ins.read_uploads([("vocab.json", files["vocab.json"].encode()), ("merges.txt", files["merges.txt"].encode())])
    assert again[0][0] == "vocab" and again[0][1].encode(TEXTS[0]).ids == tok.encode(TEXTS[0]).ids


def test_exported_vocab_txt_loads_in_hf_with_our_ids(tmp_path):
    tok = TrainedTokenizer.from_trace(_cached("wordpiece-unk"))
    files = ins.export_files(tok)
    assert set(files) == {"tokenizer.json", "vocab.txt"}
    (tmp_path / "vocab.txt").write_text(files["vocab.txt"], encoding="utf-8")
    hf = Tokenizer(models.WordPiece.from_file(str(tmp_path / "vocab.txt"), unk_token="[UNK]"))
    hf.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    for text in TEXTS:
        assert hf.encode(text, add_special_tokens=False).ids == list(tok.encode(text).ids)


def test_trace_csv_has_one_row_per_merge_with_exact_scores():
    trace = _cached("seed004-wordpiece")
    rows = list(csv.DictReader(io.StringIO(trace_csv(trace))))
    assert [r["token"] for r in rows] == ["wi", "wid", "lo", "##st"]
    assert [Fraction(r["score_exact"]) for r in rows] == [Fraction(1, 3), Fraction(1, 3), Fraction(1, 7), Fraction(1, 9)]
    assert float(rows[2]["score"]) == pytest.approx(1 / 7)
    assert list(rows[0]) == TRACE_CSV_COLUMNS
    bpe_rows = list(csv.DictReader(io.StringIO(trace_csv(_cached("seed004-bpe-eow")))))
    assert [r["token"] for r in bpe_rows] == ["es", "est", "est</w>"]
    assert [r["score"] for r in bpe_rows] == ["", "", ""] and [r["count"] for r in bpe_rows] == ["9", "9", "9"]
    assert json.loads(json.dumps(trace_report(trace)))["merges"][0]["token"] == "wi"


# ---------------------------------------------------------------- imports

def test_read_uploads_loads_each_kind_and_names_them_uniquely():
    wp = TrainedTokenizer.from_trace(_cached("wordpiece-unk"))
    bb = TrainedTokenizer.from_trace(_cached("bbpe"))
    wp_files, bb_files = ins.export_files(wp), ins.export_files(bb)
    got = ins.read_uploads([("tokenizer.json", bb_files["tokenizer.json"].encode()),
                            ("vocab.txt", wp_files["vocab.txt"].encode())], taken=["tokenizer"])
    assert [n for n, _ in got] == ["tokenizer 2", "vocab"]
    assert isinstance(got[0][1], TrainedTokenizer) and got[0][1].encode(TEXTS[1]).ids == bb.encode(TEXTS[1]).ids
    assert got[1][1].encode("lowest fox").ids == wp.encode("lowest fox").ids
    assert ins.unique_name("a", ["a", "a 2"]) == "a 3"


@pytest.mark.parametrize("files,message", [
    ([("merges.txt", b"#version: 0.2\na b\n")], "vocab.json"),
    ([("vocab.json", b'{"a": 0, "b": 1}')], "merges.txt"),
    ([("tokenizer.json", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")], "not a text file"),
    ([("tokenizer.json", b'{"model": {"type": "BPE", "vocab": {"a": 0')], "not valid JSON"),
    ([("tokenizer.json", b'{"hello": "world"}')], "not a tokenizer.json"),
    ([("tokenizer.json", b'[1, 2, 3]')], "not a tokenizer file"),
    ([("tokenizer.json", b'{"model": {"type": "Nonsense"}}')], "can load"),
    ([("notes.txt", b"Dear diary,\nToday I trained a tokenizer.\nIt was fun and\nquite long too\n")], "vocab.txt"),
    ([("picture.png", b"\x89PNG")], "give a tokenizer.json"),
    ([], "no tokenizer file"),
])
def test_read_uploads_refuses_corrupt_and_foreign_files(files, message):
    with pytest.raises(TokenizerFileError) as err:
        ins.read_uploads(files)
    assert message in str(err.value) and "\n" not in str(err.value)


def test_a_long_text_is_drawn_in_bounded_pieces():
    tok = TrainedTokenizer.from_trace(_cached("wordpiece-unk"))
    text = " ".join(f"w{i}" for i in range(20_000))       # 20,000 distinct words, ~129,000 characters
    stages = ins.pipeline(tok, text)
    assert ins.post_table(stages).shape[1] == ins.MAX_POST_COLUMNS
    assert "more characters" in ins.render_text(text) and len(ins.render_text(text)) < 3 * ins.MAX_DRAWN_CHARS
    assert ins.render_pieces(stages.front.chunks).count('class="tp-piece"') == ins.MAX_PIECES_DRAWN
    assert len(walks.walk_pieces(tok, text)) == walks.MAX_WALK_CHOICES
