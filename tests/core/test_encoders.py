"""The three encoders against the seeds' own code (core/reference.py), their
differences shown on a trained vocabulary, offsets, unknown tokens and decoding."""
from hypothesis import given, settings, strategies as st

from core.corpus import WordCounts, count_words
from core.encoders import TrainedTokenizer, units_of_token, join_units
from core.reference import UNK, greedy_reference, longest_match_reference, merges_reference
from core.trainer import TrainConfig, train


def trained(corpus_words, model, vocab_size, **kw):
    wc = WordCounts.from_pairs(corpus_words)
    trace = train(wc, TrainConfig(model=model, vocab_size=vocab_size, unk_token=UNK, **kw))
    return trace, TrainedTokenizer.from_trace(trace)


CORPUS = [("low", 5), ("lower", 2), ("newest", 6), ("widest", 3), ("slow", 2), ("slowest", 2), ("newer", 3),
          ("wider", 2), ("abacab", 1), ("cabbed", 2)]
words = st.text(alphabet="abcdelnorstwi", min_size=1, max_size=12)


@settings(max_examples=150, deadline=None)
@given(word=words, size=st.integers(min_value=20, max_value=45), eow=st.sampled_from(["none", "symbol", "suffix"]))
def test_merges_encoder_equals_seed_004_code(word, size, eow):
    trace, tok = trained(CORPUS, "bpe", size, end_of_word=eow)
    units = tok.word_units(word)
    want = merges_reference(units, trace.merges, "bpe")
    want = [t if t in tok.vocab_ids else UNK for t in want]
    assert list(tok.encode(word, "merges").tokens) == want


@settings(max_examples=150, deadline=None)
@given(word=words, size=st.integers(min_value=20, max_value=45))
def test_merges_encoder_on_wordpiece_equals_seed_code(word, size):
    trace, tok = trained(CORPUS, "wordpiece", size)
    want = merges_reference(tok.word_units(word), trace.merges, "wordpiece")
    want = [t if t in tok.vocab_ids else UNK for t in want]
    assert list(tok.encode(word, "merges").tokens) == want


def _sorted_tokens_seed_002(trace, tok):
    """get_tokens_from_vocab + sorted(..., reverse=True) of seed 002, computed from the merges."""
    freq = {}
    for w, c in trace.words.as_pairs():
        for t in merges_reference(tok.word_units(w), trace.merges, trace.config.model):
            freq[t] = freq.get(t, 0) + c
    items = [(tuple(units_of_token(t, trace.config)), n) for t, n in freq.items()]
    return [u for u, n in sorted(items, key=lambda i: (len(i[0]), i[1]), reverse=True)]


@settings(max_examples=150, deadline=None)
@given(word=words, size=st.integers(min_value=20, max_value=45), eow=st.sampled_from(["none", "symbol"]))
def test_greedy_encoder_equals_seed_002_code(word, size, eow):
    trace, tok = trained(CORPUS, "bpe", size, end_of_word=eow)
    sorted_tokens = _sorted_tokens_seed_002(trace, tok)
    want = greedy_reference(tuple(tok.word_units(word)), sorted_tokens)
    want = [join_units(t, trace.config) if t != UNK else UNK for t in want]
    assert list(tok.encode(word, "greedy").tokens) == want


@settings(max_examples=150, deadline=None)
@given(word=words, size=st.integers(min_value=20, max_value=45))
def test_longest_match_equals_seed_004_code(word, size):
    trace, tok = trained(CORPUS, "wordpiece", size)
    assert list(tok.encode(word, "longest-match").tokens) == longest_match_reference(word, tok.vocab_ids)


@settings(max_examples=100, deadline=None)
@given(word=words, size=st.integers(min_value=20, max_value=45))
def test_longest_match_on_bpe_uses_no_prefix(word, size):
    trace, tok = trained(CORPUS, "bpe", size)
    assert list(tok.encode(word, "longest-match").tokens) == longest_match_reference(word, tok.vocab_ids, "")


def test_where_the_encoders_differ_on_one_vocabulary():
    """Each kind of difference, derivable by hand. Corpus: low lower lowest newer newest wider widest
    slow slower slowest, BPE to 30. The merges include (lo,w)->low, (low,e)->lowe, then later (s,low).
    Every training word ends as one token, so greedy's candidates are the whole training words."""
    corpus = "low lower lowest newer newest wider widest slow slower slowest"
    tok = TrainedTokenizer.from_trace(train(count_words(corpus),
                                            TrainConfig(model="bpe", vocab_size=30, unk_token=UNK)))
    # merges vs greedy: merges build `lowe`; greedy finds the candidate `low` and nothing for `e`
    assert tok.encode("lowe", "merges").tokens == ("lowe",)
    assert tok.encode("lowe", "greedy").tokens == ("low", UNK)
    # merges vs longest-match: (low,e) is learned before (s,low), so merges give s + lowe;
    # longest-match takes the longest prefix in the vocabulary, `slow`, then `e`
    assert tok.encode("slowe", "merges").tokens == ("s", "lowe")
    assert tok.encode("slowe", "longest-match").tokens == ("slow", "e")
    # greedy vs longest-match: no candidate occurs in `west`, so greedy gives one unknown token
    assert tok.encode("west", "greedy").tokens == (UNK,)
    assert tok.encode("west", "longest-match").tokens == ("w", "e", "st")


def test_greedy_matches_literally_and_end_of_word_is_one_unit():
    # a token containing '.' must match a '.' and only that (seed 002 escaped it into never matching)
    trace, tok = trained([("a.b", 5), ("a.b.", 2)], "bpe", 12, end_of_word="symbol")
    assert tok.encode("a.b", "greedy").tokens == ("a.b</w>",)
    # '<' in the text never matches inside the `</w>` unit
    trace, tok = trained([("<w", 3), ("a<", 2)], "bpe", 10, end_of_word="symbol")
    enc = tok.encode("a<", "greedy")
    assert "".join(enc.tokens).replace("</w>", "") == "a<"


def test_offsets_cover_input_and_partial_utf8_tokens_share_their_character():
    trace = train(count_words("héllo wörld 我喜欢 😀"), TrainConfig(model="bbpe", vocab_size=260))
    tok = TrainedTokenizer.from_trace(trace)
    text = "我 😀x"
    enc = tok.encode(text)
    assert b"".join(enc.token_bytes) == text.encode()
    starts = [s for s, _ in enc.offsets]
    assert starts == sorted(starts)
    # 我 is three bytes; each of its byte tokens (if unmerged) covers the whole character
    covering = [o for o, b in zip(enc.offsets, enc.token_bytes) if o == (0, 1)]
    assert sum(len(b) for o, b in zip(enc.offsets, enc.token_bytes) if o == (0, 1)) == 3 and covering


@settings(max_examples=200, deadline=None)
@given(text=st.text(max_size=60))
def test_byte_level_round_trip_on_any_text(text):
    tok = _bbpe()
    enc = tok.encode(text)
    assert tok.decode(list(enc.ids)) == text
    covered = set()
    for s, e in enc.offsets:
        covered.update(range(s, e))
    assert covered == set(range(len(text)))


_BBPE = []


def _bbpe():
    if not _BBPE:
        corpus = "the quick brown fox 我喜欢吃苹果 😀👍🏽 naïve\tcafé " * 5
        _BBPE.append(TrainedTokenizer.from_trace(train(count_words(corpus, "gpt2"),
                                                       TrainConfig(model="bbpe", vocab_size=320))))
    return _BBPE[0]


def test_step_cut_tokenizer_uses_only_earlier_merges():
    trace = train(count_words("highest higher lower lowest cooler coolest"),
                  TrainConfig(model="bpe", end_of_word="symbol", vocab_size=17))
    at2 = TrainedTokenizer.from_trace(trace, upto=2)
    assert at2.encode("lowest").tokens == ("l", "o", "w", "est", "</w>")
    assert TrainedTokenizer.from_trace(trace).encode("lowest").tokens == ("l", "o", "w", "est</w>")
