"""The Merges page's pure helpers (playground/stepper.py) and its chart builders, without a browser:
the one-sentence step on the seeds, words changed, the corpus at a step (escaped, fast enough to
draw per step), link parameters (never raise, clamp or ignore with a message)."""
import dataclasses
import html
import re

import pytest

from core.corpus import WordCounts, count_words
from core.presets import get_preset, words_for
from core.limits import MAX_CHANGED_WORDS
from core.trainer import Candidate, TrainConfig, train
from playground import charts, stepper
from tests.support import PAYLOADS

RAW_TAGS = re.compile(r"<(script|img|svg|iframe|b)[\s>]", re.I)


def seed_trace(key: str, model: str):
    preset = get_preset(key)
    cfg = preset.configs()[model]
    return train(words_for(preset, cfg), cfg)


# ---------------------------------------------------------------- the sentence

def test_seed_000_sentences_name_pair_token_id_count_and_tie():
    trace = seed_trace("seed-000", "bpe")
    texts = [stepper.describe_step(trace, k).text for k in range(6)]
    assert texts[0].startswith("Step 0 of 5: before any merge") and "(e, s)" in texts[0]
    assert texts[1] == ("Step 1 of 5: (e, s) → es, id 12, seen 3 times. "
                        "5 pairs tied at 3; first took (e, s), met first in 'highest'.")
    for k, (pair, token, tied) in enumerate([(("e", "s"), "es", 5), (("es", "t"), "est", 4),
                                             (("est", "</w>"), "est</w>", 3), (("e", "r"), "er", 2),
                                             (("er", "</w>"), "er</w>", 1)], start=1):
        assert f"({pair[0]}, {pair[1]}) → {token}," in texts[k] and "seen 3 times" in texts[k]
        assert (f"{tied} pairs tied at 3; first took" in texts[k]) if tied > 1 else "No tie" in texts[k]
    assert "met first in 'higher'" in texts[4]


def test_wordpiece_sentence_gives_score_and_count():
    trace = seed_trace("seed-004", "wordpiece")
    s = stepper.describe_step(trace, 1).text
    assert "(w, ##i) → wi" in s and "score 1/3 ≈ 0.333 with count 3" in s
    assert "2 pairs tied at score 1/3 ≈ 0.333; first took (w, ##i), met first in 'widest'" in s
    assert "(##s, ##t) → ##st" in stepper.describe_step(trace, 4).text


@pytest.mark.parametrize("rule,reason", [("hf", "the smallest ids ("), ("lexical", "the smallest spelling")])
def test_other_tie_rules_say_why(rule, reason):
    trace = train(count_words("highest higher lower lowest cooler coolest"),
                  TrainConfig(model="bpe", end_of_word="symbol", vocab_size=17, tie_break=rule))
    s = stepper.describe_step(trace, 1).text
    assert f"5 pairs tied at 3; {rule} took" in s and reason in s
    if rule == "hf":   # the ids it names are the pair's
        ids = trace.token_to_id
        a, b = trace.steps[0].pair
        assert f"({ids[a]}, {ids[b]})" in s


@pytest.mark.parametrize("payload", PAYLOADS)
def test_sentence_and_words_html_is_escaped(payload):
    words = WordCounts((payload, payload + "x", "a" + payload), (5, 3, 2))
    trace = train(words, TrainConfig(model="bpe", vocab_size=40, tie_break="first"))
    for k in range(len(trace.steps) + 1):
        s = stepper.describe_step(trace, k)
        assert not RAW_TAGS.search(s.html)
        assert html.unescape(re.sub(r"<[^>]+>", "", s.html)) == s.text
        step = stepper.step_at(trace, k)
        if step is not None:
            for compact in (False, True):
                assert not RAW_TAGS.search(stepper.changed_html(stepper.changed_rows(trace, step), compact))


# ---------------------------------------------------------------- words changed

def test_changed_rows_seed_004():
    trace = seed_trace("seed-004", "bpe")
    rows = stepper.changed_rows(trace, trace.steps[1])   # (es, t)
    assert [r.text for r in rows] == ["n e w es t → n e w est ×6", "w i d es t → w i d est ×3"]
    assert rows[0].merged == (3,) and rows[0].made == (3,)
    assert stepper.changed_caption(trace.steps[1], len(rows)) == \
        "All 2 words this merge changed, with how often each occurs."
    one = stepper.changed_rows(trace, trace.steps[2])   # (l, o): low and lower
    assert [r.count for r in one] == [5, 2]


def test_changed_caption_gives_the_exact_total_when_capped():
    # (a, b) is in every one of 1,234 words: the trace keeps the first 20 and the exact total
    words = WordCounts(tuple(f"ab{chr(0x4E00 + i)}" for i in range(1234)), tuple([1] * 1234))
    step = train(words, TrainConfig(model="bpe", vocab_size=10_000, max_merges=1)).steps[0]
    assert step.pair == ("a", "b") and step.changed_words_total == 1234
    assert len(step.changed_words) == MAX_CHANGED_WORDS == 20
    assert stepper.changed_caption(step, len(step.changed_words)) == \
        "Showing 20 of 1,234 words this merge changed (the first in corpus order)."


def test_merged_positions_left_to_right_non_overlapping():
    assert stepper._merged_positions((1, 1, 1, 1, 1), 1, 1) == (0, 2)
    assert stepper._merged_positions((2, 1, 3, 1, 3), 1, 3) == (1, 3)


# ---------------------------------------------------------------- the corpus at a step

def test_corpus_view_text_splits_as_the_trainer_and_outlines_the_new_token():
    trace = seed_trace("seed-000", "bpe")
    text = get_preset("seed-000").corpus_text()
    view = stepper.corpus_view(trace, 2, text)   # after es, est
    assert not view.from_table and view.shown == view.total == len(text) and not view.truncated
    assert view.made == 3
    body = view.html.split("</style>", 1)[1]
    assert body.count("tp-hl") == 3
    labels = re.findall(r'<span class="tp-t[^"]*"[^>]*>([^<]*)</span>', body)
    assert "".join(labels).replace("&lt;/w&gt;", "") == text.replace(" ", "")
    assert labels[:6] == ["h", "i", "g", "h", "est", "&lt;/w&gt;"]
    # the spaces the pre-tokenizer dropped are drawn between the words (bare text: no span each)
    assert body.count('</span> <span') == 5


def test_corpus_view_keeps_line_breaks_out_of_tokens_like_training():
    # seed 001's BPE runs GPT-2's pattern line by line (no line break in any word): the text's
    # line breaks are gaps, never tokens (encoding the whole text at once would meet `Ċ`)
    trace = seed_trace("seed-001", "bpe")
    text = get_preset("seed-001").corpus_text()
    view = stepper.corpus_view(trace, 5, text)
    assert view.made == 4 and "Ċ" not in view.html
    between = re.sub(r"<[^>]+>[^<]*</span>", "", view.html.split("</style>", 1)[1])   # the text outside the boxes
    assert between.count("\n") == text.count("\n")
    assert stepper.line_spans("ab\r\ncd\n\ne", False) == [(0, 2), (4, 6), (8, 9)]
    assert stepper.line_spans("ab\ncd", True) == [(0, 3), (3, 5)]


def test_corpus_view_of_a_table_draws_its_first_words_with_counts():
    trace = seed_trace("seed-004", "wordpiece")
    view = stepper.corpus_view(trace, 2, None)
    assert view.from_table and view.shown == view.total == 4 and view.made == 1
    text = html.unescape(re.sub(r"<[^>]+>", "", view.html.split("</style>", 1)[1]))
    assert text == "low ×5   lower ×2   newest ×6   widest ×3"
    assert ">wid</span>" in view.html
    big = WordCounts(tuple(f"w{i}" for i in range(2000)), tuple([1] * 2000))
    table = stepper.table_preview(big)
    assert len(table.words) == stepper.TABLE_WORDS and table.truncated and table.total == 2000


def test_table_words_are_split_without_the_pre_tokenizer():
    # a table's words are used as given: "don't" is one word even under the bert pre-tokenizer
    words = WordCounts(("don't", "don"), (4, 2))
    trace = train(words, TrainConfig(model="wordpiece", pre_tokenizer="bert", vocab_size=20))
    table = stepper.table_preview(trace.words)
    enc = stepper.encode_table(stepper.tokenizer_at(trace, len(trace.steps)), table)
    assert (enc.tokens[0], enc.offsets[0]) == ("don't", (0, 5))   # one token: the apostrophe never split it off


def test_byte_level_table_offsets_cover_whole_characters():
    trace = train(WordCounts(("我喜欢", "喜欢"), (3, 2)), TrainConfig(model="bbpe", vocab_size=262))
    table = stepper.table_preview(trace.words)
    enc = stepper.encode_table(stepper.tokenizer_at(trace, 0), table)
    assert len(enc.ids) == 15 and enc.offsets[:3] == ((0, 1), (0, 1), (0, 1))


@pytest.mark.parametrize("payload", PAYLOADS)
def test_corpus_view_escapes_the_text(payload):
    text = f"a {payload} b {payload}\n{payload} c"
    trace = train(count_words(text, "whitespace"), TrainConfig(model="bpe", vocab_size=60))
    for k in (0, 1, len(trace.steps)):
        body = stepper.corpus_view(trace, k, text).html.split("</style>", 1)[1]
        assert not RAW_TAGS.search(body)
        assert html.unescape(re.sub(r"<[^>]+>", "", body)) == text
    table = stepper.corpus_view(trace, 1, None).html.split("</style>", 1)[1]
    assert not RAW_TAGS.search(table)


def test_preview_is_capped_and_cut_between_words():
    text = ("word " * 10_000).strip()
    shown, cut = stepper.preview_text(text)
    assert cut and len(shown) <= stepper.PREVIEW_CHARS and shown.endswith(" ")
    assert stepper.preview_text("short") == ("short", False)


def test_encode_text_matches_the_tokenizer_line_by_line():
    trace = seed_trace("seed-001", "bbpe")
    tok = stepper.tokenizer_at(trace, 10)
    text = get_preset("seed-001").corpus_text()
    enc = stepper.encode_text(tok, text)
    lines = text.split("\n")
    expected = [t for line in lines if line for t in tok.encode(line, "merges").tokens]
    assert list(enc.tokens) == expected
    starts = [s for s, _ in enc.offsets]
    assert starts == sorted(starts) and all(0 <= s <= e <= len(text) for s, e in enc.offsets)
    assert {text[s] for s, _ in enc.offsets} - set(text) == set() and "\n" not in {text[s] for s, _ in enc.offsets}


# ---------------------------------------------------------------- steps and links

def test_a_step_is_clamped():
    assert stepper.clamp_step(-3, 5) == 0 and stepper.clamp_step(99, 5) == 5 and stepper.clamp_step(3, 5) == 3


def test_parse_url_reads_a_good_link():
    req, msgs = stepper.parse_url({"preset": "seed-004", "tokenizer": "WordPiece", "step": "3", "lockstep": "1",
                                   "speed": "2", "token": " the"}, ["seed-004"])
    assert msgs == []
    assert req == stepper.LinkRequest(preset="seed-004", model="wordpiece", step=3, lockstep=True, speed=2.0,
                                      token=" the")


@pytest.mark.parametrize("params,needle", [
    ({"tokenizer": "gpt5"}, "Ignored tokenizer='gpt5'"),
    ({"step": "abc"}, "Ignored step='abc'"),
    ({"step": "1.5"}, "a step is a whole number"),
    ({"step": "٣"}, "Ignored step='٣': a step is a whole number"),      # int() reads non-ASCII digits
    ({"step": "３"}, "Ignored step='３'"),
    ({"step": "1_0"}, "Ignored step='1_0'"),                             # and underscores
    ({"step": "+3"}, "Ignored step='+3'"),
    ({"speed": "٢"}, "Ignored speed='٢'"),                               # float() too
    ({"speed": "1_0"}, "Ignored speed='1_0'"),
    ({"step": "9" * 5000}, "Ignored step="),
    ({"step": "9" * 13}, "too large for any trace"),
    ({"step": "-" + "9" * 13}, "too large for any trace"),
    ({"lockstep": "maybe"}, "Ignored lockstep"),
    ({"speed": "fast"}, "Ignored speed='fast'"),
    ({"speed": "nan"}, "Ignored speed"),
    ({"speed": "-1"}, "Ignored speed"),
    ({"speed": "0.7"}, "using 0.5 s per step"),
    ({"preset": "nope"}, "no such preset"),
    ({"token": "x" * 500}, "longer than 200"),
    ({"evil": "<script>"}, "unknown link parameter 'evil'"),
])
def test_parse_url_ignores_or_clamps_bad_values_with_a_message(params, needle):
    req, msgs = stepper.parse_url(params, ["seed-000"])
    assert any(needle in m for m in msgs), msgs
    assert all(len(m) < 200 for m in msgs)


def test_link_steps_are_clamped_and_params_round_trip():
    assert stepper.clamp_link_step(99, 5) == (5, "step=99 is outside 0 to 5: showing step 5.")
    assert stepper.clamp_link_step(-2, 5)[0] == 0 and stepper.clamp_link_step(3, 5) == (3, None)
    params = stepper.url_params("bbpe", 7, lockstep=True, speed=0.5, token="Ġthe", preset="seed-001")
    assert params == {"preset": "seed-001", "tokenizer": "bbpe", "step": "7", "lockstep": "1", "speed": "0.5",
                      "token": "Ġthe"}
    req, msgs = stepper.parse_url(params, ["seed-001"])
    assert not msgs and (req.model, req.step, req.lockstep, req.speed, req.token) == ("bbpe", 7, True, 0.5, "Ġthe")
    assert stepper.url_params("bpe", 0) == {"tokenizer": "bpe", "step": "0"}


def test_link_preset_only_for_a_preset_trained_with_its_own_settings():
    from playground.state import Corpus, Results, Settings
    preset = get_preset("seed-000")
    corpus = Corpus.from_text(preset.name, preset.corpus_text(), "preset", preset.key)
    configs = preset.configs()
    traces = {m: train(words_for(preset, c), c) for m, c in configs.items()}
    results = Results(corpus.name, corpus.digest, Settings.from_configs(configs), **traces)
    assert stepper.link_preset(corpus, results, configs) == "seed-000"
    changed = Results(corpus.name, corpus.digest,
                      Settings.from_configs({**configs, "bpe": TrainConfig(model="bpe", vocab_size=15).resolved()}),
                      **traces)
    assert stepper.link_preset(corpus, changed, configs) is None
    pasted = Corpus.from_text("Pasted text", preset.corpus_text(), "paste")
    assert stepper.link_preset(pasted, results, None) is None


def test_merged_tokens_and_made_at():
    trace = seed_trace("seed-000", "bpe")
    assert stepper.merged_tokens(trace) == ("es", "est", "est</w>", "er", "er</w>")
    assert trace.made_at["est</w>"] == 3


# ---------------------------------------------------------------- charts on their data

def test_pair_chart_top_and_title():
    trace = seed_trace("seed-000", "bpe")
    html = charts.pair_bars_html(trace.steps[0], top=4)
    assert html.count('class="mg-bar-label"') == 4 and re.findall(r"background:(#\w+)", html)[0] == charts.WINNER
    assert '<div class="mg-bars-title">The top 4 pairs by count</div>' in html and 'class="mg-bars mg-narrow"' in html


def test_count_vs_score_marks_winner_tied_and_shares_labels():
    trace = seed_trace("seed-004", "wordpiece")
    html = charts.count_vs_score_html(trace.steps[0])
    points = re.findall(r'<span class="mg-pt mg-pt-(\w+)" style="left:[^;]*;top:[^;]*;background:(#\w+)" '
                        r'title="([^"]*)"></span>', html)
    assert points[-1][:2] == ("winner", charts.WINNER)            # drawn last, over the others
    assert all(p[1] == charts.OTHER for p in points if p[0] == "other")
    # (w, ##i) and (##i, ##d) sit at the same point: one point, its label names one and counts the
    # other, its hover names both; only the winner is labelled
    assert points[-1][2] == "w + ##i · ##i + ##d: count 3, score 0.3333"
    assert re.findall(r'<span class="mg-pt-label[^"]*"[^>]*>([^<]*)</span>', html) == ["w + ##i +1"]
    assert len(points) == len({(c.count, c.score) for c in trace.steps[0].candidates})
    assert charts.count_vs_score_html(dataclasses.replace(trace.steps[0], candidates=())) == ""
    # a pair tied with the winner elsewhere (same score, another count) is its own orange point
    first = trace.steps[0].candidates[0]
    tied = Candidate(("x", "##y"), first.count * 2, first.score)
    html = charts.count_vs_score_html(dataclasses.replace(trace.steps[0], candidates=(first, tied)))
    assert 'class="mg-pt mg-pt-tied"' in html and f"background:{charts.TIED}" in html


def test_training_curves_with_cached_data_and_thinning(monkeypatch):
    trace = seed_trace("seed-001", "bbpe")
    curves = charts.curve_data(trace)
    assert curves.tokens[0] == trace.initial_total_tokens and curves.vocab[-1] == trace.steps[-1].vocab_size
    fig = charts.training_curves(trace, 5, curves)
    assert [fig.data[i].x[0] for i in (1, 3, 5)] == [5, 5, 5]
    assert fig.data[3].y[0] == pytest.approx(curves.chars_per_token[5])
    assert len(fig.layout.shapes) == 3 and fig.layout.shapes[0].x0 == 5
    monkeypatch.setattr(charts, "MAX_CURVE_POINTS", 5)
    thin = charts.curve_data(trace)
    assert len(thin.xs) <= 6 and thin.xs[-1] == len(trace.steps) and len(thin.tokens) == len(trace.steps) + 1


def test_merge_tree_dot_is_large_and_quoted():
    trace = seed_trace("seed-000", "bpe")
    dot = charts.merge_tree_dot(trace, "er</w>")
    assert "fontsize=24" in dot and '"er</w>\\nstep 5"' in dot and dot.count("->") == 4


def test_merge_tree_html_nests_each_merge_over_the_two_it_joined():
    """Seed 000's "er</w>" (step 5) joined "er" (step 4, itself e + r) and </w>: boxes nested as
    the merges were, each merged one with its step, the alphabet in green, escaped."""
    trace = seed_trace("seed-000", "bpe")
    tree = charts.merge_tree_html(trace, "er</w>")
    nodes = re.findall(r'<span class="mg-node (mg-merged|mg-symbol)">(.*?)</span>', tree)
    assert nodes == [("mg-merged", "er&lt;/w&gt;<small>step 5</small>"), ("mg-merged", "er<small>step 4</small>"),
                     ("mg-symbol", "e"), ("mg-symbol", "r"), ("mg-symbol", "&lt;/w&gt;")]
    # the nesting: each merged box's own list holds exactly its two parts, "er"'s inside the first
    assert tree.count("<ul>") == 3 and tree.count("<li>") == 5
    assert re.sub(r"<span.*?</span>", "#", tree) == ('<div class="mg-tree"><ul><li>#<ul><li>#<ul><li>#</li><li>#</li>'
                                                    '</ul></li><li>#</li></ul></li></ul></div>')
    # a token of the alphabet alone is one green box
    assert charts.merge_tree_html(trace, "e").count("mg-node") == 1
    # a tree whose bottom row is wider than a 1024-pixel column is drawn in smaller type
    long = train(count_words("abcdefghijklmnopqrstuvwxyz " * 3), TrainConfig(model="bpe", vocab_size=100))
    assert charts.merge_tree_html(long, max(long.made_at, key=len)).startswith('<div class="mg-tree mg-wide">')
    # whatever a token holds stays text (a trace trained on markup)
    for payload in PAYLOADS:
        trace = train(count_words(payload * 3), TrainConfig(model="bpe", vocab_size=200))
        made = max(trace.made_at, key=len)
        drawn = charts.merge_tree_html(trace, made, spelled=lambda t: t + '"<b>')
        text = re.sub(r"<[^>]+>", "", drawn)
        assert html.unescape(text).startswith(made) and "<b>" not in drawn and "<script" not in drawn.lower()


def test_a_steps_html_is_made_once_for_every_run_at_that_step_and_view():
    """merges_control.kept_parts: the page's whole run asks for a step's HTML (and its window's)
    again; it is made once per trace, step and what the view draws of it."""
    from playground import merges_control as mc
    from playground.state import Corpus, MergesView, Results, Settings
    preset = get_preset("seed-000")
    corpus = Corpus.from_text("kept parts", preset.corpus_text() + " kept", "paste")
    configs = preset.configs()
    traces = {m: train(count_words(corpus.text), c) for m, c in configs.items()}
    results = Results(corpus.name, corpus.digest, Settings.from_configs(configs), **traces)
    made = []

    def make(tag):
        return lambda: made.append(tag) or {"host": f"<p>{tag}</p>"}
    view = MergesView(model="bpe")
    first = mc.kept_parts(results, traces["bpe"], 2, view, make("a"))
    again = mc.kept_parts(results, traces["bpe"], 2, dataclasses.replace(view, playing=True, speed=0.5), make("b"))
    assert first == again == {"host": "<p>a</p>"} and made == ["a"] and first is not again   # a fresh dict
    for other in (dict(k=3), dict(view=dataclasses.replace(view, tree_token="es")),
                  dict(view=dataclasses.replace(view, lockstep=True)), dict(trace=traces["wordpiece"])):
        args = {"trace": traces["bpe"], "k": 2, "view": view, **other}
        mc.kept_parts(results, args["trace"], args["k"], args["view"], make(str(other)))
    assert len(made) == 5
    # the same corpus trained again with another BPE: byte-level BPE's own step is the same one, but
    # in lockstep its BPE column is not
    bpe = TrainConfig(model="bpe", vocab_size=configs["bpe"].vocab_size, tie_break="hf").resolved()
    again = Results(corpus.name, corpus.digest, Settings.from_configs({**configs, "bpe": bpe}),
                    **{**traces, "bpe": train(count_words(corpus.text), bpe)})
    bbpe = MergesView(model="bbpe")
    mc.kept_parts(results, traces["bbpe"], 2, bbpe, make("bbpe"))
    mc.kept_parts(again, traces["bbpe"], 2, bbpe, make("bbpe again"))
    assert made[-1] == "bbpe"
    lockstep = MergesView(model="bbpe", lockstep=True)
    mc.kept_parts(results, traces["bbpe"], 2, lockstep, make("lockstep"))
    mc.kept_parts(again, traces["bbpe"], 2, lockstep, make("lockstep, another BPE"))
    assert made[-2:] == ["lockstep", "lockstep, another BPE"]


def test_lockstep_html_is_kept_apart_for_each_unigram_beside_it():
    """Lockstep draws the session's Unigram in a column beside the three: its kept HTML must name
    that Unigram (another session at the same step, with another Unigram or none, draws its own)."""
    from core.unigram import UnigramConfig, train_unigram
    from playground import merges_control as mc, state
    from playground.state import Corpus, MergesView, Results, Settings, UnigramResult
    preset = get_preset("seed-000")
    corpus = Corpus.from_text("kept beside unigram", preset.corpus_text() + " unigram", "paste")
    configs = preset.configs()
    words = count_words(corpus.text)
    traces = {m: train(words, c) for m, c in configs.items()}
    results = Results(corpus.name, corpus.digest, Settings.from_configs(configs), **traces)
    made = []

    def make(tag):
        return lambda: made.append(tag) or {"host": f"<p>{tag}</p>"}
    lockstep = MergesView(model="bpe", lockstep=True)
    try:
        for size in (None, 20, 24, 20, None):
            state.set_unigram(None if size is None else UnigramResult(
                corpus.name, corpus.digest, train_unigram(words, UnigramConfig(vocab_size=size))))
            mc.kept_parts(results, traces["bpe"], 2, lockstep, make(size))
        assert made == [None, 20, 24]        # the last two found their own, kept
        mc.kept_parts(results, traces["bpe"], 2, MergesView(model="bpe"), make("single"))
        assert made[-1] == "single"          # the single view draws no Unigram: one key whatever it is
        state.set_unigram(None)
        mc.kept_parts(results, traces["bpe"], 2, MergesView(model="bpe"), make("single, no Unigram"))
        assert made[-1] == "single"
    finally:
        state.set_unigram(None)
