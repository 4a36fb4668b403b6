"""Unigram (core/unigram.py, core/unigram_reference.py): trained as HF's UnigramTrainer trains,
segmented as HF's and sentencepiece's Unigram models segment, saved as a tokenizer.json HF reads.

The HF setting compared against: `Tokenizer(models.Unigram())` with the pre-tokenizer
`Sequence([WhitespaceSplit(), Metaspace("▁", prepend_scheme="always", split=False)])` and
`UnigramTrainer` with the same settings; our words are `count_words(text, "whitespace")`, which
the trainer writes as "▁" + word. docs/unigram.md says why scores of a few pieces may differ.
"""
from __future__ import annotations

import functools
import importlib.util
import json
import math
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.corpus import WordCounts, count_words
from core.errors import ConfigError, CorpusError, EncodeError
from core.formats import load_tokenizer, save_tokenizer, tokenizer_file_text
from core.presets import load_kjv
from core.unigram import METASPACE, UnigramConfig, UnigramTokenizer, UnigramTrace, digamma, train_unigram
from core.unigram_reference import train_reference
from tests.support import ROOT

SEED_000 = "highest higher lower lowest cooler coolest"
SEED_004 = "low " * 5 + "lower " * 2 + "newest " * 6 + "widest " * 3


def hf_pre_tokenizer():
    from tokenizers import pre_tokenizers
    return pre_tokenizers.Sequence([pre_tokenizers.WhitespaceSplit(),
                                    pre_tokenizers.Metaspace(replacement=METASPACE, prepend_scheme="always",
                                                             split=False)])


def hf_train(text: str, **settings_) -> list[tuple[str, float]]:
    from tokenizers import Tokenizer, models, trainers
    tok = Tokenizer(models.Unigram())
    tok.pre_tokenizer = hf_pre_tokenizer()
    tok.train_from_iterator(text.splitlines(), trainers.UnigramTrainer(show_progress=False, **settings_))
    return [(p, s) for p, s in json.loads(tok.to_str())["model"]["vocab"]]


def compare_with_hf(text: str, config: UnigramConfig):
    """Our final vocabulary against HF's: the same pieces; the same scores except for characters
    no piece kept (HF scores those in its hash set's order, docs/unigram.md)."""
    ours = train_unigram(count_words(text, "whitespace"), config)
    theirs = hf_train(text, vocab_size=config.vocab_size, shrinking_factor=config.shrinking_factor,
                      seed_size=config.seed_size, max_piece_length=config.max_piece_length,
                      n_sub_iterations=config.n_sub_iterations)
    mine, hf = dict(ours.vocab), dict(theirs)
    assert set(mine) == set(hf), (sorted(set(mine) - set(hf))[:10], sorted(set(hf) - set(mine))[:10])
    last = set(ours.em_steps[-1].pieces)      # the pieces the model kept (the rest: added characters)
    for p, s in hf.items():
        if p in last:
            assert math.isclose(mine[p], s, rel_tol=1e-9, abs_tol=1e-12), (p, mine[p], s)
    return ours


# ---------------------------------------------------------------- training equals HF's

@pytest.mark.parametrize("text, size", [(SEED_000, 20), (SEED_004, 12), (SEED_004, 14)])
def test_seed_examples_give_hf_vocabulary(text, size):
    compare_with_hf(text, UnigramConfig(vocab_size=size))


def test_kjv_slice_gives_hf_vocabulary():
    compare_with_hf(load_kjv()[:60_000], UnigramConfig(vocab_size=500))
    compare_with_hf(load_kjv()[:30_000], UnigramConfig(vocab_size=300, shrinking_factor=0.5, max_piece_length=6,
                                                       n_sub_iterations=1, seed_size=2000))


def test_chinese_words_give_hf_vocabulary():
    """jieba dictionary words (each up to 5 times): thousands of characters, few repeats."""
    rows = _jieba_rows()
    sample = random.Random(3).sample(rows, 6000)
    text = "\n".join(" ".join([w] * min(int(c), 5)) for w, c in sample)
    chars = len(set(text) - set(" \n")) + 1          # + ▁
    compare_with_hf(text, UnigramConfig(vocab_size=chars + 800))


def test_random_small_corpora_give_hf_vocabulary():
    """80 corpora of random words over "abcde" (sizes from 10: below, HF can loop for ever, see
    docs/unigram.md). A bench run of 300 found no difference either."""
    from core.unigram import _required_characters, _seed_pieces, unigram_words
    rng = random.Random(5)
    compared = 0
    while compared < 80:
        words = ["".join(rng.choice("abcde") for _ in range(rng.randint(1, 7))) for _ in range(rng.randint(3, 30))]
        text = " ".join(w for w in words for _ in range(rng.randint(1, 4)))
        sentences = unigram_words(count_words(text, "whitespace"), UnigramConfig())
        low, high = len(_required_characters(sentences)), len(_seed_pieces(sentences, UnigramConfig()))
        if high < max(low, 10):
            continue
        size = rng.randint(max(low, 10), high)
        ours = {p for p, _ in train_unigram(count_words(text, "whitespace"), UnigramConfig(vocab_size=size)).vocab}
        assert ours == {p for p, _ in hf_train(text, vocab_size=size)}, (text, size)
        compared += 1


def test_seeds_are_hfs():
    """HF's own unit test of make_seed_sentence_pieces (trainer.rs, test_unigram_chars): the
    seeds of "This is a" and "こんにちは友達" (fed as they are, no ▁)."""
    from core.unigram import _seed_pieces
    seeds = _seed_pieces([("This is a", 1), ("こんにちは友達", 1)], UnigramConfig())
    assert [p for p, _ in seeds] == ["s", "i", " ", "達", "友", "ん", "は", "に", "ち", "こ", "h", "a", "T", "is ", "s "]
    hf_scores = [-2.5649493574615367] * 3 + [-3.258096538021482] * 10 + [-1.4663370687934272, -1.8718021769015916]
    assert all(math.isclose(s, t, rel_tol=1e-12) for (_, s), t in zip(seeds, hf_scores))


def test_digamma_is_close_to_psi():
    """HF's series (7 terms after shifting x above 7) is ψ to about 1e-10."""
    assert abs(digamma(1.0) + 0.5772156649015329) < 1e-9
    assert abs(digamma(10.0) - 2.251752589066721) < 1e-9


# ---------------------------------------------------------------- the reference and the fast path

@pytest.mark.parametrize("text, size", [(SEED_000, 20), (SEED_004, 14), (None, 400)])
def test_fast_path_equals_reference(text, size):
    wc = count_words(text if text is not None else load_kjv()[:40_000], "whitespace")
    config = UnigramConfig(vocab_size=size, unk_token="<unk>", special_tokens=("<s>",))
    assert train_unigram(wc, config) == train_reference(wc, config)


def test_worker_processes_give_the_same_trace(monkeypatch):
    """The E steps' blocks and the prunings spread over two forked processes: the same floats, on
    the pure-Python path and on the compiled one (which forks only for big corpora: here always)."""
    import core.unigram
    monkeypatch.setattr(core.unigram, "FORK_MIN_NODES", 0)
    wc = count_words(load_kjv()[:150_000], "whitespace")
    assert len(wc) >= 2 * 1024
    config = UnigramConfig(vocab_size=800)
    one = train_unigram(wc, config)
    assert train_unigram(wc, config, workers=2, fast=False) == one
    assert train_unigram(wc, config, workers=2) == one


WORD = st.text(st.sampled_from("abcdeé▁"), min_size=1, max_size=9)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(words=st.lists(st.tuples(WORD, st.integers(1, 9)), min_size=1, max_size=25),
       size=st.one_of(st.floats(0, 1), st.integers(1, 60)), shrink=st.sampled_from([0.5, 0.75, 0.9]),
       max_len=st.integers(1, 6), subs=st.integers(1, 3), unk=st.sampled_from([None, "<unk>"]))
def test_reference_and_fast_path_give_identical_traces(words, size, shrink, max_len, subs, unk):
    """Sizes are mostly drawn between the corpus's limits (a float: that far from the lower one)."""
    from core.unigram import _required_characters, _seed_pieces, unigram_words
    wc = WordCounts.from_pairs(words)
    if isinstance(size, float):
        sentences = unigram_words(wc, UnigramConfig(max_piece_length=max_len))
        low = len(_required_characters(sentences)) + (unk is not None)
        high = len(_seed_pieces(sentences, UnigramConfig(max_piece_length=max_len))) + (unk is not None)
        size = max(1, low + round(size * (high - low)))
    config = UnigramConfig(vocab_size=size, shrinking_factor=shrink, max_piece_length=max_len,
                           n_sub_iterations=subs, unk_token=unk)
    outcomes = []
    for trainer in (train_reference, train_unigram):
        try:
            trace = trainer(wc, config)
            assert len(trace.vocab) <= size
            outcomes.append(trace.to_json())
        except ConfigError as e:
            outcomes.append(str(e))
    assert outcomes[0] == outcomes[1]


def test_trace_records_every_step_and_round_trips_as_json():
    trace = train_unigram(count_words(load_kjv()[:20_000], "whitespace"), UnigramConfig(vocab_size=150))
    assert trace.prunes and len(trace.em_steps) == 2 * (len(trace.prunes) + 1)
    assert all(len(e.pieces) == len(e.scores) for e in trace.em_steps)
    losses = [e.loss for e in trace.em_steps]
    assert all(x > 0 for x in losses)
    for p in trace.prunes:
        assert p.size_before - len(p.pruned) == p.size_after
    text = json.dumps(trace.to_json(), allow_nan=False)
    assert UnigramTrace.from_json(json.loads(text)) == trace
    assert len(trace.vocab) == 150


@functools.lru_cache(maxsize=1)
def _trace_text() -> str:
    """A trace with an unknown token and a pruning, as JSON text (each test edits its own copy)."""
    words = count_words(load_kjv()[:5_000], "whitespace")
    return json.dumps(train_unigram(words, UnigramConfig(vocab_size=120, unk_token="<unk>")).to_json())


def _small_trace_json() -> dict:
    return json.loads(_trace_text())


def _unigram_trace_edits() -> dict:
    """name -> an edit of a trained trace's JSON that no trainer writes (each loaded before, and
    the Inspect page then raised on it, or trained with settings the trainer refuses)."""
    def at(key, value):
        return lambda d: d.__setitem__(key, value)

    def set_config(key, value):
        return lambda d: d["config"].__setitem__(key, value)
    return {
        "unk_id beyond the vocabulary": at("unk_id", 10 ** 9),
        "unk_id as text": at("unk_id", "x"),
        "unk_id true": at("unk_id", True),
        "unk_id of another piece": lambda d: d.__setitem__("unk_id", d["unk_id"] + 1),
        "a piece that is a number": lambda d: d["vocab"].__setitem__(0, [5, -1.0]),
        "an empty piece": lambda d: d["vocab"].__setitem__(1, ["", -1.0]),
        "a score that is text": lambda d: d["vocab"].__setitem__(1, [d["vocab"][1][0], "-1"]),
        "a score that is true": lambda d: d["vocab"].__setitem__(1, [d["vocab"][1][0], True]),
        "an infinite score": lambda d: d["vocab"].__setitem__(1, [d["vocab"][1][0], float("-inf")]),
        "a score of 400 digits": lambda d: d["vocab"].__setitem__(1, [d["vocab"][1][0], -10 ** 400]),
        "a vocabulary row of three": lambda d: d["vocab"].__setitem__(1, d["vocab"][1] + [0]),
        "no vocabulary": at("vocab", []),
        "an unknown normalizer": set_config("normalizer", "zzz"),
        "a pre-tokenizer the trainer refuses": set_config("pre_tokenizer", "gpt2"),
        "vocab size as text": set_config("vocab_size", "20"),
        "an unknown setting": set_config("colour", "red"),
        "a special token that is a number": set_config("special_tokens", [1]),
        "metaspace as a number": set_config("metaspace", 1),
        "an EM step with a score missing": lambda d: d["em_steps"][0]["scores"].pop(),
        "an EM step's loss as text": lambda d: d["em_steps"][0].__setitem__("loss", "1.5"),
        "an EM step's round 0": lambda d: d["em_steps"][0].__setitem__("round", 0),
        "a pruning that does not add up": lambda d: d["prunes"][0].__setitem__("size_after", 10 ** 6),
        "a pruned piece's loss as text": lambda d: d["prunes"][0]["pruned"][0].__setitem__(1, "x"),
        "a seed that is a number": lambda d: d["seeds"].__setitem__(0, [3, -1.0]),
        "required characters as a text": at("required_chars", "abc"),
        "a note that is a number": at("notes", [1]),
        "missing unk_id": lambda d: d.pop("unk_id"),
        "another version": at("version", 2),
        "version true": at("version", True),
    }


@pytest.mark.parametrize("name", sorted(_unigram_trace_edits()))
def test_a_unigram_trace_no_trainer_writes_is_refused_with_a_message(name):
    data = _small_trace_json()
    assert data["unk_id"] is not None and data["prunes"] and data["prunes"][0]["pruned"]
    UnigramTrace.from_json(json.loads(json.dumps(data)))      # the trace as written loads
    _unigram_trace_edits()[name](data)
    with pytest.raises(ConfigError) as err:
        UnigramTrace.from_json(json.loads(json.dumps(data)))
    assert "\n" not in str(err.value) and len(str(err.value)) < 300


# ---------------------------------------------------------------- Viterbi equals HF's and sentencepiece's

def _jieba_rows() -> list[tuple[str, str]]:
    folder = importlib.util.find_spec("jieba").submodule_search_locations[0]
    with open(os.path.join(folder, "dict.txt"), encoding="utf-8") as f:
        return [tuple(line.split()[:2]) for line in f if line.strip()]


def _jieba_words() -> list[str]:
    return [w for w, _ in _jieba_rows()]


def sentencepiece_case(tmp: Path, n_zh: int = 3000, vocab_size: int = 6000):
    """A sentencepiece Unigram model trained on KJV words, Chinese words and a few other scripts,
    and held-out words from later KJV books, other Chinese words and mixed-script words."""
    import sentencepiece as spm
    kjv, zh = load_kjv(), _jieba_words()
    rng = random.Random(7)
    rng.shuffle(zh)
    others = ["naïve", "café", "résumé", "Straße", "Ελληνικά", "русский", "日本語", "한국어", "עברית", "हिन्दी"]
    words = kjv[:400_000].split() + zh[:n_zh] + others * 5
    rng.shuffle(words)
    (tmp / "train.txt").write_text("\n".join(" ".join(words[i:i + 20]) for i in range(0, len(words), 20)),
                                   encoding="utf-8")
    spm.SentencePieceTrainer.train(input=str(tmp / "train.txt"), model_prefix=str(tmp / "m"), vocab_size=vocab_size,
                                   model_type="unigram", normalization_rule_name="identity",
                                   character_coverage=1.0, minloglevel=2, num_threads=1)
    sp = spm.SentencePieceProcessor(model_file=str(tmp / "m.model"))
    held = (list(dict.fromkeys(kjv[2_000_000:2_600_000].split()))
            + zh[n_zh + 10_000:n_zh + 15_000]
            + ["naïveté", "Übermaß", "ñandú", "Ωmega", "Москва", "東京都", "x😀y", "l'été", "αβγδε"])
    return sp, held


def viterbi_agreement(sp, held: list[str]) -> tuple[int, int, int]:
    from tokenizers import Tokenizer
    pieces = tuple((sp.id_to_piece(i), sp.get_score(i)) for i in range(sp.get_piece_size()))
    tok = UnigramTokenizer(pieces=pieces, unk_id=sp.unk_id(), special_tokens=("<unk>", "<s>", "</s>"))
    hf = Tokenizer.from_str(tokenizer_file_text(tok))
    same_sp = same_hf = 0
    for w in held:
        ours = list(tok.encode(w).ids)
        same_sp += ours == sp.encode(w)
        same_hf += ours == hf.encode(w, add_special_tokens=False).ids
    return len(held), same_sp, same_hf


def test_viterbi_ids_equal_sentencepiece_and_hf(tmp_path):
    sp, held = sentencepiece_case(tmp_path)
    held = held[:2500] + held[-2500:]
    n, same_sp, same_hf = viterbi_agreement(sp, held)
    assert n >= 5000 and same_sp == n and same_hf == n


def test_viterbi_ties_go_to_the_longest_last_piece():
    tok = UnigramTokenizer(pieces=(("a", -1.0), ("b", -1.0), ("ab", -2.0), ("▁", -5.0), ("▁a", -4.0)), unk_id=None)
    assert tok.segment("ab") == [(0, 2, 2)]          # a + b == ab: the longer last piece wins
    from tokenizers import Tokenizer, models
    hf = Tokenizer(models.Unigram([(p, s) for p, s in tok.pieces], None, False))
    assert hf.encode("ab").tokens == ["ab"]


# ---------------------------------------------------------------- the tokenizer and its file

@pytest.fixture(scope="module")
def trained():
    trace = train_unigram(count_words(load_kjv()[:50_000], "whitespace"),
                          UnigramConfig(vocab_size=400, unk_token="<unk>", special_tokens=("<s>", "</s>")))
    return UnigramTokenizer.from_trace(trace)


PROBE = load_kjv()[300_000:310_000] + " Café naïve ß 我喜欢  tabs\tand\nlines x"


def test_tokenizer_json_loads_in_hf_and_encodes_identically(trained, tmp_path):
    from tokenizers import Tokenizer
    save_tokenizer(trained, tmp_path / "u.json")
    hf = Tokenizer.from_file(str(tmp_path / "u.json"))
    enc = trained.encode(PROBE)
    assert list(enc.ids) == hf.encode(PROBE, add_special_tokens=False).ids
    assert hf.get_vocab_size() == trained.vocab_size
    back = load_tokenizer(tmp_path / "u.json")
    assert isinstance(back, UnigramTokenizer) and back.pieces == trained.pieces and back.unk_id == trained.unk_id
    assert back.encode(PROBE) == enc


def test_encoding_keeps_the_contract(trained):
    enc = trained.encode(PROBE)
    text = PROBE
    assert trained.family == "Unigram" and trained.encoders == () and trained.with_encoder(None) is trained
    assert trained.made_at(5) is None
    for i, t, b, (s, e) in zip(enc.ids, enc.tokens, enc.token_bytes, enc.offsets):
        assert trained.id_to_token(i) == t and trained.token_to_id(t) == i and trained.token_bytes(i) == b
        if t not in ("<unk>", METASPACE):
            assert text[s:e] == t.replace(METASPACE, "")
    assert trained.decode(trained.encode("and the LORD said").ids) == "and the LORD said"
    assert "<unk>" in trained.encode("我喜欢").tokens
    assert len(trained.encode("我喜欢").ids) == 2           # ▁ and the three unknown characters fused
    with pytest.raises(ConfigError):
        trained.with_encoder("greedy")
    front = trained.front("in the beginning")
    assert [c.shown for c in front.chunks] == ["▁in", "▁the", "▁beginning"]


def test_no_unknown_token_raises_on_unknown_text():
    tok = UnigramTokenizer.from_trace(train_unigram(count_words(SEED_004, "whitespace"), UnigramConfig(vocab_size=12)))
    assert tok.encode("lowest").tokens[0] == "▁low"
    with pytest.raises(EncodeError, match="unknown token"):
        tok.encode("lowqst")


# ---------------------------------------------------------------- bad input

def test_sizes_outside_what_the_corpus_gives_say_the_limits():
    wc = count_words(SEED_004, "whitespace")
    with pytest.raises(ConfigError, match=r"below .* at least 11 .* at most 15"):
        train_unigram(wc, UnigramConfig(vocab_size=5))
    with pytest.raises(ConfigError, match=r"more than this corpus can give: at most 15 .* at least 11"):
        train_unigram(wc, UnigramConfig(vocab_size=500))
    with pytest.raises(ConfigError, match="shrinking factor"):
        train_unigram(wc, UnigramConfig(vocab_size=12, shrinking_factor=1.0))
    with pytest.raises(CorpusError, match="no words"):
        train_unigram(WordCounts((), ()), UnigramConfig(vocab_size=12))


def _cli(*args, stdin: str = ""):
    return subprocess.run([sys.executable, "-m", "core", *args], input=stdin, capture_output=True, text=True,
                          cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})


def test_cli_trains_unigram_and_fails_in_one_line(tmp_path):
    r = _cli("train", "--model", "unigram", "--vocab-size", "12", "--save", str(tmp_path / "u.json"), stdin=SEED_004)
    assert r.returncode == 0 and not r.stderr and "round 1 EM 1" in r.stdout
    r = _cli("encode", "lowest", "--tokenizer", str(tmp_path / "u.json"))
    assert r.returncode == 0 and json.loads(r.stdout.splitlines()[1])[0] == "▁low"
    r = _cli("train", "--model", "unigram", "--vocab-size", "12", "--json", "--n-sub-iterations", "1", stdin=SEED_004)
    assert json.loads(r.stdout)["kind"] == "unigram-trace"
    for size in ("5", "500"):
        r = _cli("train", "--model", "unigram", "--vocab-size", size, stdin=SEED_004)
        assert r.returncode == 2 and r.stderr.count("\n") == 1 and "at least 11" in r.stderr and "at most 15" in r.stderr
    r = _cli("train", "--model", "unigram", "--vocab-size", "12", "--shrinking-factor", "2", stdin=SEED_004)
    assert r.returncode == 2 and r.stderr.count("\n") == 1
