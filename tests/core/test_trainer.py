"""The trainers (core/trainer.py) against the seeds, a naive reference, and Hugging Face `tokenizers`.

- The seeds' worked examples (their printed merges and vocabularies), at the trainer level, exactly.
- The tie-key trap of docs/references.md (`abcbc`x3, `acbbc`x3 under `first`).
- Property: on small generated corpora every trainer, end-of-word mode, score and tie rule gives
  the same steps as core/reference.py (the seeds' recount-everything loop).
- Byte-level BPE with tie_break="hf" is HF BpeTrainer merge for merge and id for id on two
  corpora of more than 2 MB; `suffix` BPE and WordPiece `frequency` rank pairs as HF does.
- Bad input raises the typed errors with a one-line message; traces keep their invariants.
"""
from __future__ import annotations

import json
import os
import random
import re
from fractions import Fraction
from functools import lru_cache

import pytest
from hypothesis import HealthCheck, example, given, settings, strategies as st

from core.corpora import emoji_list, jieba_words, kjv_text, mixed_text
from core.corpus import WordCounts, count_words
from core.errors import ConfigError, CorpusError
from core.reference import reference_train
from core.trainer import TrainConfig, train

LINE_BREAK = re.compile(r"\r\n|\r|\n")  # a line ends at \r\n, \r or \n (docs/cli.md)


def steps_of(trace):
    return [(s.pair, s.token, s.id, s.count, s.score, s.tied) for s in trace.steps]


# ---------------------------------------------------------------- the seeds (their worked examples, trainer level)

S000 = "highest higher lower lowest cooler coolest"
S001 = "\n".join(["This is the Hugging Face Course.", "This chapter is about tokenization.",
                  "This section shows several tokenizer algorithms.",
                  "Hopefully, you will be able to understand how they are trained and generate tokens."]) + "\n"
S001_MERGES = [("Ġt", 7), ("is", 5), ("er", 5), ("Ġa", 5), ("Ġto", 4), ("en", 4), ("Th", 3), ("This", 3),
               ("ou", 3), ("se", 3), ("Ġtok", 3), ("Ġtoken", 3), ("nd", 3), ("Ġis", 2), ("Ġth", 2),
               ("Ġthe", 2), ("in", 2), ("Ġab", 2), ("Ġtokeni", 2)]
S003 = "\n".join(["我", "喜欢", "吃", "苹果", "他", "不", "喜欢", "吃", "苹果派", "I like to eat apples",
                  "She has a cute cat", "you are very cute", "give you a hug"]) + "\n"
S004 = WordCounts(("low", "lower", "newest", "widest"), (5, 2, 6, 3))


def test_seed_000_end_of_word_symbol():
    wc = count_words(S000, "whitespace")
    cfg = TrainConfig(model="bpe", end_of_word="symbol", pre_tokenizer="whitespace", vocab_size=17)
    tr = train(wc, cfg)
    want = [("es", 3, 5), ("est", 3, 4), ("est</w>", 3, 3), ("er", 3, 2), ("er</w>", 3, 1)]
    assert [(s.token, s.count, s.tied) for s in tr.steps] == want
    assert len(tr.vocab) == 17
    ref = reference_train(wc.as_pairs(), model="bpe", end_of_word="symbol", vocab_size=17)
    assert [(s.token, s.count, s.tied) for s in ref.steps] == want


def test_seed_001_bpe_over_gpt2_words():
    wc = count_words(S001, "gpt2")
    tr = train(wc, TrainConfig(model="bpe", pre_tokenizer="gpt2", special_tokens=("<|endoftext|>",),
                               vocab_size=50, tie_break="first"))
    assert [(s.token, s.count) for s in tr.steps] == S001_MERGES
    assert len(tr.vocab) == 50 and tr.vocab[0] == "<|endoftext|>"
    ref = reference_train(wc.as_pairs(), model="bpe", vocab_size=50, special_tokens=("<|endoftext|>",),
                          byte_level=True)
    assert [(s.token, s.count) for s in ref.steps] == S001_MERGES
    assert steps_of(tr) == [s.key() for s in ref.steps]


def test_seed_001_bbpe():
    wc = count_words(S001, "gpt2")
    tr = train(wc, TrainConfig(model="bbpe", special_tokens=("<|endoftext|>",), vocab_size=280))
    want = S001_MERGES + [("Ġtokeniz", 2), ("at", 2), ("io", 2), ("ion", 2)]
    assert [(s.token, s.count) for s in tr.steps] == want
    assert len(tr.alphabet) == 256 and len(tr.vocab) == 280
    ref = reference_train(wc.as_pairs(), model="bbpe", vocab_size=280, special_tokens=("<|endoftext|>",))
    assert steps_of(tr) == [s.key() for s in ref.steps]


def test_seed_003_chinese_and_english():
    wc = count_words(S003, "whitespace")
    tr = train(wc, TrainConfig(model="bpe", pre_tokenizer="whitespace", vocab_size=50))
    assert [s.token for s in tr.steps] == [
        '喜欢', '苹果', 'at', 'cu', 'cut', 'cute', 'yo', 'you', 've', '苹果派', 'li', 'lik', 'like', 'to',
        'eat', 'ap', 'app', 'appl', 'apple', 'apples', 'Sh', 'She', 'ha']
    ref = reference_train(wc.as_pairs(), model="bpe", vocab_size=50)
    assert steps_of(tr) == [s.key() for s in ref.steps]


def test_seed_004_bpe():
    tr = train(S004, TrainConfig(model="bpe", vocab_size=13))
    assert [(s.token, s.count) for s in tr.steps] == [("es", 9), ("est", 9), ("lo", 7)]
    assert tr.merges == [("e", "s"), ("es", "t"), ("l", "o")]


def test_seed_004_bpe_end_of_word_symbol():
    tr = train(S004, TrainConfig(model="bpe", end_of_word="symbol", vocab_size=14))
    assert [(s.token, s.count) for s in tr.steps] == [("es", 9), ("est", 9), ("est</w>", 9)]


def test_seed_004_wordpiece_likelihood():
    tr = train(S004, TrainConfig(model="wordpiece", score="likelihood", vocab_size=15))
    assert [(s.token, s.count, round(float(s.score), 4), s.tied) for s in tr.steps] == [
        ("wi", 3, 0.3333, 2), ("wid", 3, 0.3333, 1), ("lo", 7, 0.1429, 1), ("##st", 9, 0.1111, 1)]
    assert [s.score for s in tr.steps] == [Fraction(1, 3), Fraction(1, 3), Fraction(1, 7), Fraction(1, 9)]
    ref = reference_train(S004.as_pairs(), model="wordpiece", vocab_size=15)
    assert steps_of(tr) == [s.key() for s in ref.steps]


def test_seed_004_wordpiece_with_unk():
    tr = train(S004, TrainConfig(model="wordpiece", score="likelihood", vocab_size=16, unk_token="[UNK]",
                                 pre_tokenizer="bert"))
    assert [s.token for s in tr.steps] == ["wi", "wid", "lo", "##st"]
    assert tr.vocab[0] == "[UNK]" and len(tr.vocab) == 16


def test_first_rule_uses_the_current_first_occurrence():
    """docs/references.md's trap: a tie key frozen at first sight picks (c, b) at merge 4; the seeds
    pick (a, c), because (c, b) no longer occurs in `abcbc` once `abc` + `bc` are merged."""
    wc = WordCounts(("abcbc", "acbbc"), (3, 3))
    tr = train(wc, TrainConfig(model="bpe", vocab_size=100, tie_break="first"))
    assert tr.merges == [("b", "c"), ("a", "bc"), ("abc", "bc"), ("a", "c"), ("ac", "b"), ("acb", "bc")]
    assert [s.tied for s in tr.steps] == [1, 5, 4, 3, 2, 1]
    assert steps_of(tr) == [s.key() for s in reference_train(wc.as_pairs(), vocab_size=100).steps]


# ---------------------------------------------------------------- property: incremental == naive

CONFIGS = [  # (model, end_of_word, score)
    ("bpe", "none", "likelihood"), ("bpe", "symbol", "likelihood"), ("bpe", "suffix", "likelihood"),
    ("bbpe", "none", "likelihood"),
    ("wordpiece", "none", "likelihood"), ("wordpiece", "none", "frequency"),
]
# mostly a small alphabet (many repeats, overlapping runs like `aaa`), sometimes non-ASCII
CHARS = "aaaabbbbcccdde" + "é中😀"
word = st.text(alphabet=st.sampled_from(CHARS), min_size=1, max_size=10)
corpora = st.lists(st.tuples(word, st.integers(1, 5)), min_size=1, max_size=12)
# examples per configuration (18 of them); TRAINER_EXAMPLES=2000 for a deeper search
EXAMPLES = int(os.environ.get("TRAINER_EXAMPLES", "60"))


def check_invariants(trace, config):
    prev_total = trace.initial_total_tokens
    prev_size = len(trace.special_tokens) + len(trace.alphabet)
    for s in trace.steps:
        assert s.total_tokens < prev_total, s
        if s.id >= prev_size:  # a new token
            assert s.id == prev_size and s.vocab_size == prev_size + 1, s
        else:
            assert s.vocab_size == prev_size, s
        assert trace.vocab[s.id] == s.token
        assert s.changed_words_total >= len(s.changed_words) >= 1
        assert 1 <= len(s.candidates) <= config.top_k and s.candidates[0].pair == s.pair
        assert s.candidates[0].count == s.count and s.tied >= 1
        values = [c.score if c.score is not None else c.count for c in s.candidates]
        assert values == sorted(values, reverse=True), s
        assert all(c.count >= config.min_frequency for c in s.candidates)
        prev_total, prev_size = s.total_tokens, s.vocab_size


@pytest.mark.parametrize("tie_break", ["first", "hf", "lexical"])
@pytest.mark.parametrize("model,end_of_word,score", CONFIGS)
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pairs=corpora, extra=st.integers(0, 40), min_frequency=st.sampled_from([1, 1, 2, 3]),
       max_merges=st.one_of(st.none(), st.integers(0, 12)),
       specials=st.sampled_from([(), (), ("<s>",), ("ab", "<s>"), ("a",)]),
       unk=st.sampled_from([None, None, "[UNK]"]), top_k=st.sampled_from([1, 3, 10]))
# found by a CPU-hog run: the merge a+b makes the special token "ab" (its id reused), which had been
# counted as one unit, so the `first` rule placed (a, ab) before (b, a) in "ab b a ab"
@example(pairs=[("abbaab", 1)], extra=1, min_frequency=1, max_merges=None, specials=("ab", "<s>"), unk=None, top_k=3)
def test_incremental_equals_reference(model, end_of_word, score, tie_break, pairs, extra, min_frequency,
                                      max_merges, specials, unk, top_k):
    wc = WordCounts.from_pairs(pairs)
    opts = dict(model=model, end_of_word=end_of_word, score=score, tie_break=tie_break,
                min_frequency=min_frequency, max_merges=max_merges, special_tokens=specials,
                unk_token=unk, top_k=top_k)
    base = len(reference_train(wc.as_pairs(), vocab_size=0, **opts).vocab)
    ref = reference_train(wc.as_pairs(), vocab_size=base + extra, **opts)
    cfg = TrainConfig(vocab_size=base + extra, **opts)
    tr = train(wc, cfg)
    assert (tr.special_tokens, tr.alphabet) == (ref.specials, ref.alphabet)
    assert steps_of(tr) == [s.key() for s in ref.steps]
    assert tr.vocab == ref.vocab
    assert [(s.first_word, s.changed_words_total, s.total_tokens, s.vocab_size) for s in tr.steps] == \
        [(s.first_word, s.changed_words_total, s.total_tokens, s.vocab_size) for s in ref.steps]
    assert [tuple((c.pair, c.count, c.score) for c in s.candidates) for s in tr.steps] == \
        [s.candidates for s in ref.steps]
    check_invariants(tr, cfg)


@pytest.mark.parametrize("tie_break", ["first", "hf", "lexical"])
@pytest.mark.parametrize("model,end_of_word,score", CONFIGS)
def test_incremental_equals_reference_on_real_text(model, end_of_word, score, tie_break):
    """The same on 20,000 characters of the KJV mixed with Chinese and emoji (about 2,000 unique
    words), 120 merges: long index lists, stale entries, many words touched per merge."""
    text = mixed_corpus()[:20_000]
    opts = dict(model=model, end_of_word=end_of_word, score=score, tie_break=tie_break, top_k=5)
    cfg = TrainConfig(vocab_size=10 ** 6, max_merges=120, **opts)
    wc = count_words(text, cfg.resolved().pre_tokenizer)
    tr = train(wc, cfg)
    ref = reference_train(wc.as_pairs(), vocab_size=10 ** 6, max_merges=120,
                          byte_level=model == "bbpe" or cfg.resolved().pre_tokenizer == "gpt2", **opts)
    assert steps_of(tr) == [s.key() for s in ref.steps]
    assert [(s.first_word, s.changed_words_total, s.total_tokens) for s in tr.steps] == \
        [(s.first_word, s.changed_words_total, s.total_tokens) for s in ref.steps]
    assert [tuple((c.pair, c.count, c.score) for c in s.candidates) for s in tr.steps] == \
        [s.candidates for s in ref.steps]


# ---------------------------------------------------------------- Hugging Face parity (byte-level BPE)

def hf_bpe(lines, vocab_size, min_frequency=0, special_tokens=()):
    """HF BpeTrainer over ByteLevel(add_prefix_space=False) words; (merges, vocab) of tokenizer.json."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, min_frequency=min_frequency,
                                  special_tokens=list(special_tokens),
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train_from_iterator(lines, trainer=trainer)
    model = json.loads(tok.to_str())["model"]
    return [tuple(m) if isinstance(m, list) else tuple(m.split(" ")) for m in model["merges"]], model["vocab"]


@lru_cache(maxsize=1)
def mixed_corpus() -> str:
    """About 2.1 MB: the first half of the KJV with Chinese words from jieba's dictionary and emoji
    (modifiers, ZWJ sequences and flags included) mixed in, as separate words and glued to English
    words (core/corpora.py's mixed_text)."""
    return mixed_text(2_100_001)


SPECIALS = ("<|endoftext|>", "<pad>", "[MASK]")


@lru_cache(maxsize=1)
def lexicon_corpus() -> str:
    """About 2 MB of lines drawn from a Zipf-weighted lexicon (500 KJV words, 150 Chinese words,
    60 emoji), with a few rare words of random CJK/Greek/accented letters and the special tokens'
    text as ordinary text. Every lexicon word is frequent, so training ends when only the rare
    words' pairs are left: under min_frequency 3, well before a vocabulary of 8,000."""
    rng = random.Random(3)
    lexicon = list(dict.fromkeys(kjv_text().split()))[:500] + rng.sample(jieba_words(20000), 150) + \
        rng.sample(emoji_list(), 60)
    rng.shuffle(lexicon)
    weights = [1 / (r + 1) for r in range(len(lexicon))]
    rare = [chr(c) for c in range(0x4E00, 0x9FA0)] + [chr(c) for c in range(0x3B1, 0x3CA)] + list("àéîõüçñß")
    lines, size = [], 0
    while size < 2_050_000:
        words = rng.choices(lexicon, weights, k=rng.randint(5, 30))
        if rng.random() < 0.05:
            words.append("".join(rng.choices(rare, k=rng.randint(2, 5))))
        if rng.random() < 0.1:
            words.insert(rng.randrange(len(words) + 1), rng.choice(SPECIALS))
        line = " ".join(words)
        if rng.random() < 0.1:
            line = "<|endoftext|>" + line
        lines.append(line)
        size += len(line.encode()) + 1
    return "\n".join(lines) + "\n"


def assert_same_as_hf(trace, hf_merges, hf_vocab):
    ours = trace.merges
    if ours != hf_merges:
        k = next((i for i, (a, b) in enumerate(zip(ours, hf_merges)) if a != b), min(len(ours), len(hf_merges)))
        step = trace.steps[k] if k < len(trace.steps) else None
        pytest.fail(f"merge {k + 1} differs: ours {ours[k] if k < len(ours) else None} "
                    f"HF {hf_merges[k] if k < len(hf_merges) else None}; our step: {step}")
    assert trace.token_to_id == hf_vocab


def test_bbpe_equals_hf_on_mixed_english_chinese_emoji():
    """Vocabulary 2,000 (1,744 merges): the merges build the 3-byte CJK and 4-byte emoji characters
    and English words, and well over half of the steps are ties at the top (counts fall to ~80),
    so the `hf` tie rule decides most merges; larger sizes only add time."""
    text = mixed_corpus()
    assert len(text.encode()) > 2_000_000
    wc = count_words(text, "gpt2")
    tr = train(wc, TrainConfig(model="bbpe", vocab_size=2000, tie_break="hf"))
    assert len(tr.steps) == 2000 - 256
    assert sum(s.tied > 1 for s in tr.steps) > 500  # the tie rule is exercised
    merges, vocab = hf_bpe(LINE_BREAK.split(text), 2000)
    assert_same_as_hf(tr, merges, vocab)


def test_bbpe_equals_hf_with_special_tokens_and_min_frequency():
    """Vocabulary 8,000 is never reached: training stops under min_frequency 3 after about 2,600
    merges, on counts 3 where thousands of pairs tie, so this checks the stop rule (count 3 merged,
    2 not), the special tokens' ids and their text as ordinary text, and the tie rule at low counts."""
    text = lexicon_corpus()
    assert len(text.encode()) > 2_000_000
    wc = count_words(text, "gpt2")
    tr = train(wc, TrainConfig(model="bbpe", vocab_size=8000, tie_break="hf", min_frequency=3,
                               special_tokens=SPECIALS))
    assert len(tr.vocab) < 8000 and tr.steps[-1].count == 3 and tr.stop_reason.startswith("no pair occurs")
    assert tr.vocab[:3] == SPECIALS
    merges, vocab = hf_bpe(LINE_BREAK.split(text), 8000, min_frequency=3, special_tokens=SPECIALS)
    assert_same_as_hf(tr, merges, vocab)


def _agree_until_a_tie(steps, hf_tokens, key):
    """Steps agree with HF until HF breaks a tie differently; there HF's choice must be one of our
    tied pairs. Returns how many steps agreed."""
    for i, (s, h) in enumerate(zip(steps, hf_tokens)):
        if key(s) == h:
            continue
        tied = [key(c) for c in s.candidates if c.count == s.count]
        assert s.tied > 1, f"step {i + 1}: ours {key(s)} (count {s.count}, no tie) but HF {h}"
        if len(tied) == s.tied:  # all tied pairs are listed: HF's must be among them
            assert h in tied, f"step {i + 1}: HF's {h} is not among our tied {tied}"
        return i
    return min(len(steps), len(hf_tokens))


@lru_cache(maxsize=1)
def kjv_1mb() -> str:
    return kjv_text()[:1_000_000]


def test_suffix_bpe_ranks_pairs_as_hf():
    """HF gives `x</w>` variants ids in a run-dependent order (and adds every plain character), so
    it breaks ties differently from any fixed rule: merges must agree until HF picks another of the
    pairs we report as tied (KJV 1 MB, at least the first 40 merges)."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    text = kjv_1mb()
    tr = train(count_words(text, "whitespace"),
               TrainConfig(model="bpe", end_of_word="suffix", pre_tokenizer="whitespace", vocab_size=800,
                           tie_break="hf", top_k=100))
    tok = Tokenizer(models.BPE(end_of_word_suffix="</w>"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tok.train_from_iterator(LINE_BREAK.split(text), trainer=trainers.BpeTrainer(
        vocab_size=1000, end_of_word_suffix="</w>", show_progress=False))
    hf = [tuple(m) if isinstance(m, list) else tuple(m.split(" "))
          for m in json.loads(tok.to_str())["model"]["merges"]]
    assert _agree_until_a_tie(tr.steps, hf, key=lambda s: s.pair) >= 40


def test_wordpiece_frequency_ranks_pairs_as_hf():
    """WordPieceTrainer ranks by count: its new tokens come in our order until HF breaks a tie
    another way (KJV 1 MB, at least the first 40 merges)."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    text = kjv_1mb()
    tr = train(count_words(text, "bert"), TrainConfig(model="wordpiece", score="frequency", vocab_size=800,
                                                      tie_break="hf", top_k=100))
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.train_from_iterator(LINE_BREAK.split(text), trainer=trainers.WordPieceTrainer(
        vocab_size=1000, show_progress=False))
    vocab = json.loads(tok.to_str())["model"]["vocab"]
    hf_new = [t for t, _ in sorted(vocab.items(), key=lambda kv: kv[1]) if len(t.removeprefix("##")) > 1]
    prev, new_steps = len(tr.special_tokens) + len(tr.alphabet), []
    for s in tr.steps:  # steps that made a new token (HF's vocabulary lists only those)
        if s.vocab_size > prev:
            new_steps.append(s)
        prev = s.vocab_size

    def token(s):
        return s.token if hasattr(s, "token") else s.pair[0] + s.pair[1].removeprefix("##")
    assert _agree_until_a_tie(new_steps, hf_new, key=token) >= 40


# ---------------------------------------------------------------- bad input

def _one_line(excinfo):
    msg = str(excinfo.value)
    assert msg.strip() and "\n" not in msg, repr(msg)


@pytest.mark.parametrize("text", ["", "   \n\t \r\n  ", "\u3000\u2028\n"])
def test_empty_or_blank_corpus_is_a_corpus_error(text):
    with pytest.raises(CorpusError) as e:
        count_words(text, "whitespace")
    _one_line(e)


WC = WordCounts(("low", "lower", "newest"), (5, 2, 6))


@pytest.mark.parametrize("config", [
    TrainConfig(model="bpe", vocab_size=3),                 # below the alphabet (8 symbols)
    TrainConfig(model="bbpe", vocab_size=200),              # below the 256 bytes
    TrainConfig(model="bpe", vocab_size=10 ** 9),
    TrainConfig(model="unigram", vocab_size=100),
    TrainConfig(model="bpe", vocab_size=100, tie_break="random"),
    TrainConfig(model="bpe", vocab_size=100, min_frequency=-1),
    TrainConfig(model="bpe", vocab_size=0),
    TrainConfig(model="bpe", vocab_size=100, max_merges=-1),
    TrainConfig(model="wordpiece", vocab_size=100, score="bm25"),
    TrainConfig(model="bbpe", vocab_size=300, end_of_word="symbol"),
], ids=lambda c: f"{c.model}-{c.vocab_size}-{c.tie_break}-{c.min_frequency}-{c.max_merges}-{c.score}")
def test_bad_config_is_a_config_error(config):
    with pytest.raises(ConfigError) as e:
        train(WC, config)
    _one_line(e)


def test_below_alphabet_message_names_the_minimum():
    with pytest.raises(ConfigError) as e:
        train(WC, TrainConfig(model="bpe", vocab_size=3, special_tokens=("<s>",)))
    assert "at least 9 " in str(e.value)  # 1 special + 8 initial symbols (l o w e r n s t)


# ---------------------------------------------------------------- trace invariants on a real corpus

@pytest.mark.parametrize("model,end_of_word,score", CONFIGS)
def test_trace_invariants_on_kjv(model, end_of_word, score):
    text = kjv_1mb()[:100_000]
    cfg = TrainConfig(model=model, end_of_word=end_of_word, score=score, vocab_size=400 if model == "bbpe" else 250)
    tr = train(count_words(text, cfg.resolved().pre_tokenizer), cfg)
    assert tr.steps
    check_invariants(tr, cfg)


@pytest.mark.parametrize("tie_break", ["first", "hf", "lexical"])
@pytest.mark.parametrize("model,end_of_word,score", [("bpe", "none", "likelihood"), ("bpe", "symbol", "likelihood"),
                                                     ("wordpiece", "none", "likelihood")])
@settings(max_examples=max(EXAMPLES // 2, 10), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pairs=st.lists(st.tuples(st.text(alphabet="ab", min_size=20, max_size=120), st.integers(1, 3)),
                      min_size=1, max_size=4),
       extra=st.integers(0, 30))
def test_long_repetitive_words_equal_reference(model, end_of_word, score, tie_break, pairs, extra):
    """Long words over two letters: runs like `a b a b a b` where a merge undoes the pair the
    previous merge made, overlapping `a a a`, many occurrences per word, reused tokens."""
    wc = WordCounts.from_pairs(pairs)
    opts = dict(model=model, end_of_word=end_of_word, score=score, tie_break=tie_break, top_k=3)
    base = len(reference_train(wc.as_pairs(), vocab_size=0, **opts).vocab)
    ref = reference_train(wc.as_pairs(), vocab_size=base + extra, **opts)
    tr = train(wc, TrainConfig(vocab_size=base + extra, **opts))
    assert steps_of(tr) == [s.key() for s in ref.steps]
    assert [(s.first_word, s.total_tokens) for s in tr.steps] == [(s.first_word, s.total_tokens) for s in ref.steps]


def test_words_longer_than_the_limit_are_cut_and_said():
    wc = WordCounts(("ab" * 6000, "abc"), (1, 2))
    tr = train(wc, TrainConfig(model="bpe", vocab_size=20))
    assert max(len(w) for w in tr.words.words) == 10_000 and tr.notes and "cut into pieces" in tr.notes[0]
    assert tr.notes[0].startswith("1 word longer than 10,000 characters (the longest: 12,000) was cut")
    two = train(WordCounts(("ab" * 6000, "ba" * 6000), (1, 1)), TrainConfig(model="bpe", vocab_size=20))
    assert two.notes[0].startswith("2 words longer than 10,000 characters (the longest: 12,000) were cut")


# ---------------------------------------------------------------- start and end of a training

BYTE_SPLIT_CONFIGS = [
    dict(model="bbpe"),
    dict(model="bbpe", special_tokens=("<s>", "Ġ"), unk_token="<unk>"),   # ids past 255; a special that is a byte-character
    dict(model="bpe", pre_tokenizer="gpt2"),                               # only the bytes the words hold
    dict(model="bpe", pre_tokenizer="gpt2", special_tokens=("a",)),
]


@pytest.mark.parametrize("kw", BYTE_SPLIT_CONFIGS, ids=lambda kw: "-".join(str(v) for v in kw.values()))
def test_byte_level_start_is_initial_vocab(kw):
    """_byte_level_start (bytes through a 256-entry table) gives initial_vocab's specials and
    alphabet and the ids of every initial_symbols string, with and without ids past one byte."""
    from core.trainer import _byte_level_start, _splits_into_bytes, initial_vocab
    config = TrainConfig(vocab_size=5000, **kw).resolved()
    assert _splits_into_bytes(config)
    words = count_words(mixed_text(40_000) + " a Ġ <s> naïve 😀", config.pre_tokenizer, workers=1)
    specials, alphabet, splits = initial_vocab(words, config)
    token_id = {t: i for i, t in enumerate(specials + alphabet)}
    assert _byte_level_start(words, config) == (specials, alphabet, [[token_id[s] for s in sp] for sp in splits])


CHAR_SPLIT_CONFIGS = [
    dict(model="bpe"),
    dict(model="bpe", end_of_word="symbol"),
    dict(model="bpe", end_of_word="suffix"),
    dict(model="bpe", end_of_word="suffix", pre_tokenizer="chars"),   # one-character words: all suffixed
    dict(model="bpe", special_tokens=("a", "<s>"), unk_token="<unk>"),  # a special that is a character
    dict(model="bpe", end_of_word="symbol", special_tokens=("</w>",)),  # the end mark a special token
    dict(model="wordpiece", unk_token="[UNK]"),
    dict(model="wordpiece", special_tokens=("#", "##a"), unk_token="[UNK]"),   # specials spelled as symbols
]


def _initial_ids(words, config):
    from core.trainer import initial_vocab
    specials, alphabet, splits = initial_vocab(words, config)
    token_id = {t: i for i, t in enumerate(specials + alphabet)}
    return specials, alphabet, [[token_id[s] for s in sp] for sp in splits]


@pytest.mark.parametrize("kw", CHAR_SPLIT_CONFIGS, ids=lambda kw: "-".join(str(v) for v in kw.values()))
def test_char_level_start_is_initial_vocab(kw):
    """_char_level_start (characters through a table per mark) gives initial_vocab's specials and
    alphabet and the ids of every initial_symbols string, on Chinese, English, emoji and code."""
    from core.trainer import _char_level_start
    config = TrainConfig(vocab_size=5000, **kw).resolved()
    assert not config.byte_level
    words = count_words(mixed_text(40_000) + " a # ## ##a <s> naïve 😀 x", config.pre_tokenizer, workers=1)
    assert _char_level_start(words, config) == _initial_ids(words, config)


@pytest.mark.parametrize("kw", CHAR_SPLIT_CONFIGS, ids=lambda kw: "-".join(str(v) for v in kw.values()))
@settings(max_examples=60, deadline=None)
@given(words=st.lists(st.text(alphabet="ab#<>/w\u00e9\u4e00\U0001f600", max_size=6), max_size=8, unique=True))
def test_char_level_start_is_initial_vocab_on_any_words(kw, words):
    """The same on any words, the empty word and words spelled like the marks (#, ##, </w>) included."""
    from core.trainer import _char_level_start
    config = TrainConfig(vocab_size=5000, **kw).resolved()
    wc = WordCounts(tuple(words), tuple(range(1, len(words) + 1)))
    assert _char_level_start(wc, config) == _initial_ids(wc, config)


def test_char_level_start_with_more_symbols_than_code_points(monkeypatch):
    """Ids are written as code points; an alphabet larger than there are code points (here: than a
    lowered limit) is looked up symbol by symbol instead, to the same ids."""
    from core import trainer as trainer_module
    config = TrainConfig(model="wordpiece", vocab_size=5000, unk_token="[UNK]").resolved()
    words = count_words(mixed_text(5_000), config.pre_tokenizer, workers=1)
    want = _initial_ids(words, config)
    assert len(want[0]) + len(want[1]) > 11     # so the lowered limit is passed
    monkeypatch.setattr(trainer_module, "_LAST_CHAR_ID", 10)
    assert trainer_module._char_level_start(words, config) == want


@pytest.mark.parametrize("kw", [dict(model="bpe"), dict(model="bpe", end_of_word="suffix"), dict(model="bbpe"),
                                dict(model="wordpiece", unk_token="[UNK]")], ids=lambda kw: "-".join(kw.values()))
@pytest.mark.parametrize("fast", [True, False])
def test_final_tokens_are_a_recount_of_the_final_words(kw, fast):
    """final_tokens reads the symbol frequencies every merge keeps: they equal a recount of the
    final words, in first-appearance order (WordPiece and suffix BPE reuse token ids)."""
    from core.trainer import _Trainer
    config = TrainConfig(vocab_size=600, tie_break="hf", **kw).resolved()
    words = count_words(mixed_text(60_000), config.pre_tokenizer, workers=1)
    trainer = _Trainer(words, config, fast)
    while len(trainer.vocab) < config.vocab_size:
        best = trainer._pop_best(config.top_k)
        if not best:
            break
        trainer.merge(best, 1)
    recount: dict[str, int] = {}
    for syms, c in zip(trainer.words, trainer.counts):
        for s in syms:
            recount[trainer.vocab[s]] = recount.get(trainer.vocab[s], 0) + c
    assert trainer.final_tokens() == tuple(recount.items())
