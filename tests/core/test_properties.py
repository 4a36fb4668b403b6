"""Properties every trainer and encoder keeps, on generated input (hypothesis), and the engine's
answers to hostile input: one typed error with a one-line message, never a traceback or a hang."""
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from core.corpus import WordCounts, count_words, decode_text, read_word_count_table
from core.encoders import TrainedTokenizer
from core.errors import ConfigError, CorpusError, PlaygroundError
from core.pipeline import pre_tokenize
from core.trainer import TrainConfig, train

# Text with the usual troublemakers: RTL, combining marks, ZWJ sequences, CJK, controls, NUL.
ALPHABET = list("abcde ") + ["\u05e9", "\u0627", "e\u0301", "\u200d", "👨", "👩", "中", "文", "\t", "\n", "\x00",
                             "\x1f", "\u2028", "!", "'s", "<", ">"]
texts = st.lists(st.sampled_from(ALPHABET), min_size=1, max_size=60).map("".join)

CONFIGS = [TrainConfig(model="bpe", vocab_size=60, unk_token="[UNK]"),
           TrainConfig(model="bpe", vocab_size=60, unk_token="[UNK]", end_of_word="symbol"),
           TrainConfig(model="bpe", vocab_size=60, unk_token="[UNK]", end_of_word="suffix", pre_tokenizer="chars"),
           TrainConfig(model="bbpe", vocab_size=300),
           TrainConfig(model="bbpe", vocab_size=300, pre_tokenizer="bert"),
           TrainConfig(model="wordpiece", vocab_size=60, unk_token="[UNK]"),
           TrainConfig(model="wordpiece", vocab_size=60, unk_token="[UNK]", score="frequency", normalizer="nfkc")]
IDS = [f"{c.model}-{c.end_of_word}-{c.pre_tokenizer}" for c in CONFIGS]


def _train(corpus, config):
    config = config.resolved()
    return train(count_words(corpus, config.pre_tokenizer, config.normalizer, workers=1), config)


def _train_if_words(corpus, config):
    """The trace, or None for a corpus with no words at all (only whitespace): that one is refused
    with a message, tested below."""
    try:
        return _train(corpus, config)
    except CorpusError:
        return None


def for_every_config(**strategies):
    """A property tested on every config of CONFIGS, 40 generated examples each."""
    def wrap(test):
        test = given(**strategies)(test)
        test = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])(test)
        return pytest.mark.parametrize("config", CONFIGS, ids=IDS)(test)
    return wrap


@for_every_config(corpus=texts)
def test_final_segmentation_joins_back_to_the_words(config, corpus):
    trace = _train_if_words(corpus, config)
    if trace is None:
        return
    tok = TrainedTokenizer.from_trace(trace)
    for word in trace.words.words:
        units = tok.word_units(word)
        runs = tok.encode_units(units, "merges", len(word))
        # the runs tile the word's units, and each is a token of the vocabulary
        assert [u for s, e, _ in runs for u in units[s:e]] == units
        assert all(t in tok.vocab_ids for _, _, t in runs)


@for_every_config(corpus=texts)
def test_merges_never_cross_pre_token_boundaries(config, corpus):
    trace = _train_if_words(corpus, config)
    if trace is None:
        return
    words = set(trace.words.words)
    for step in trace.steps:
        for cw in step.changed_words:
            # a changed word is one pre-token: its tokens spell one training word, nothing more
            assert len(cw.after) < len(cw.before)
            assert any(_spells(trace, cw.after, w) for w in words), trace.spell(cw.after)


def _spells(trace, ids, word):
    tok = TrainedTokenizer.from_trace(trace)
    return "".join(trace.spell(ids)).replace("##", "") == "".join(tok.word_units(word)).replace("##", "")


@pytest.mark.parametrize("encoder", ["merges", "greedy", "longest-match"])
@for_every_config(text=texts)
def test_encoders_cover_the_input_exactly_once(config, encoder, text):
    """Offsets tile every character that is not whitespace dropped by the pre-tokenizer: nothing
    dropped, nothing duplicated, starts never decrease."""
    tok = _tokenizer(config)
    try:
        enc = tok.encode(text, encoder)
    except PlaygroundError:
        assert tok.unk_token is None  # only a tokenizer without an unknown token may refuse
        return
    starts = [s for s, _ in enc.offsets]
    assert starts == sorted(starts)
    covered = [0] * len(text)
    for (s, e), data in zip(enc.offsets, enc.token_bytes):
        for i in range(s, e):
            covered[i] += 1
    pieces = pre_tokenize(text, tok.config.pre_tokenizer) if tok.config.normalizer == "none" else None
    if pieces is not None:
        inside = set(i for _, (s, e) in pieces for i in range(s, e))
        for i, n in enumerate(covered):
            if i in inside:
                assert n >= 1, (i, text)
            else:
                assert n == 0, (i, text)
    if tok.config.model == "bbpe" and tok.config.pre_tokenizer == "gpt2":
        assert b"".join(enc.token_bytes) == text.encode("utf-8")


_TOKENIZERS = {}


def _tokenizer(config):
    key = repr(config)
    if key not in _TOKENIZERS:
        corpus = "abc abd abe dea 中文 文中 👨\u200d👩 e\u0301 <a> 's \u05e9\u05e9 " * 4
        _TOKENIZERS[key] = TrainedTokenizer.from_trace(_train(corpus, config))
    return _TOKENIZERS[key]


# ---------------------------------------------------------------- hostile input

@pytest.mark.parametrize("text", ["", "   ", "\n\n\t", "\u2028 \u3000"])
def test_empty_or_whitespace_corpus_is_refused(text):
    with pytest.raises(CorpusError) as e:
        count_words(text)
    assert "\n" not in str(e.value)


def test_one_character_corpus_trains_to_nothing_and_says_why():
    trace = _train("a", TrainConfig(model="bpe", vocab_size=10))
    assert trace.steps == () and trace.stop_reason == "no pair left to merge"


@pytest.mark.parametrize("vocab_size", [0, -1, 3, 10 ** 9])
def test_vocabulary_sizes_out_of_range_are_refused(vocab_size):
    with pytest.raises(ConfigError) as e:
        _train("hello world", TrainConfig(model="bpe", vocab_size=vocab_size))
    assert "\n" not in str(e.value)


@pytest.mark.parametrize("data,why", [
    (b"\x00\x01\x02" * 1000, "binary"), (b"caf\xe9", "UTF-8"), (b"\xff\xfe\x00h\x00i", "binary"),
])
def test_binary_and_invalid_utf8_are_refused(data, why):
    with pytest.raises(CorpusError) as e:
        decode_text(data, "upload.txt")
    assert why in str(e.value) and "\n" not in str(e.value)


def test_nul_and_control_characters_in_text_are_just_characters():
    text = "ab\x00cd ab\x07cd ab\x1fcd " * 3
    trace = _train(text, TrainConfig(model="bpe", vocab_size=30, unk_token="[UNK]"))
    assert "\x00" in trace.alphabet and trace.steps


@pytest.mark.parametrize("table,why", [
    (b"low,5\nlower,2\n", "header"),
    (b"word,count\nlow,-5\n", "negative"),
    (b"word,count\nlow,2.5\n", "whole number"),
    (b"word,count\nlow,1e30\n", "too large"),
    (b"word,count\nlow,many\n", "not a number"),
    (b"word,count\nlow\n", "missing count"),
    (b"word,count\n", "no word"),
    (b"PAR1garbage", "Parquet"),
])
def test_bad_word_count_tables(table, why):
    with pytest.raises(CorpusError) as e:
        read_word_count_table(table, "t.csv")
    assert why in str(e.value) and "\n" not in str(e.value)


def test_duplicate_words_in_a_table_are_summed_into_the_first_row():
    wc = read_word_count_table(b"word,count\nlow,5\nlower,2\nlow,1\n")
    assert wc.as_pairs() == [("low", 6), ("lower", 2)]


def test_a_five_megabyte_line_without_spaces_trains_with_a_note():
    line = ("abcdefghij" * 500_000)  # 5,000,000 characters, one "word"
    trace = train(count_words(line, workers=1), TrainConfig(model="bpe", vocab_size=30, tie_break="hf"))
    assert trace.notes and "cut into pieces" in trace.notes[0] and len(trace.steps) == 20
    tok = TrainedTokenizer.from_trace(trace)
    assert len(tok.encode(line[:100_000]).ids) < 100_000 // 5
