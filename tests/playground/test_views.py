"""The view builders as pure functions: token spans (escaping, offsets, colours, partial UTF-8),
boundary agreement, charts and merge trees, all without a browser."""
import html
import re

import pytest

from core.corpus import WordCounts, count_words
from core.encoders import TrainedTokenizer
from core.encoding import Encoding
from core.trainer import TrainConfig, train
from playground import charts
from playground.spans import (BATCH_MARK, BATCHES_END, PALETTE, boundary_agreement, render_boundaries, render_tokens, segments,
                              token_colours, token_label)
from tests.support import PAYLOADS, bar_labels


def _bbpe(corpus="hello world <b> & </b> 我喜欢 😀", size=300):
    return TrainedTokenizer.from_trace(train(count_words(corpus, "gpt2"), TrainConfig(model="bbpe", vocab_size=size)))


@pytest.mark.parametrize("payload", PAYLOADS)
@pytest.mark.parametrize("show_ids,visible,grouped", [(False, False, False), (False, True, True), (True, False, False)])
def test_user_text_is_escaped_in_token_spans(payload, show_ids, visible, grouped):
    tok = _bbpe()
    out, _ = render_tokens(tok.encode(f"a {payload} b"), show_ids=show_ids, visible_whitespace=visible, grouped=grouped)
    body = out.split("</style>", 1)[1]
    assert "<img" not in body and "<script" not in body and "<svg" not in body and "<iframe" not in body
    assert "<b>" not in body
    # every tag left is one of ours
    assert set(re.findall(r"<(/?\w+)", body)) <= {"div", "/div", "span", "/span"}


@pytest.mark.parametrize("payload", PAYLOADS)
def test_user_text_is_escaped_in_boundaries(payload):
    tok = _bbpe()
    text = f"x {payload} y"
    out, share = render_boundaries(text, tok.encode(text), tok.encode(text))
    body = out.split("</style>", 1)[-1]   # no <style>: the stylesheet is global
    assert set(re.findall(r"<(/?\w+)", body)) <= {"div", "/div", "span", "/span"}
    assert share == 1.0


def test_spans_follow_offsets_and_text_reads_back():
    tok = _bbpe()
    text = "hello world 我喜欢 😀"
    enc = tok.encode(text)
    out, truncated = render_tokens(enc, grouped=True)
    assert not truncated
    shown = "".join(html.unescape(s) for s in re.findall(r'">([^<]*)</span>', out))
    assert shown == text


def test_partial_utf8_tokens_show_their_bytes_never_the_replacement_character():
    data = "我".encode()
    enc = Encoding(ids=(1, 2, 3), tokens=("æ", "Ī", "ij"), token_bytes=(data[:1], data[1:2], data[2:]),
                   offsets=((0, 1), (0, 1), (0, 1)), encoder="merges")
    assert token_label("æ", data[:1]) == ("<0xE6>", True)
    out, _ = render_tokens(enc)
    assert "�" not in out and "&lt;0xE6&gt;" in out
    grouped = segments(enc, grouped=True)
    assert len(grouped) == 1 and grouped[0].label == "我" and grouped[0].indices == (0, 1, 2)


def test_colours_by_id_and_neighbours_never_share_one():
    n = len(PALETTE)
    ids = [5, 5, 5 + n, 7, 7 + 2 * n, 3]
    colours = token_colours(ids)
    assert colours[0] == 5 % n
    assert all(a != b for a, b in zip(colours, colours[1:]))
    # the colour of a token depends on its id (and its left neighbour), not its position
    assert token_colours([9, 1, 2])[1:] == token_colours([4, 1, 2])[1:]


@pytest.mark.parametrize("grouped", [False, True])
def test_batches_mark_off_the_same_boxes_and_user_text_never_makes_a_mark(grouped):
    """render_tokens(batch=N) for playground.html_panel: the same HTML with comments between every N
    boxes (and gaps) after the first N, and one after the last; a mark typed by the user is text."""
    tok = _bbpe()
    typed = f"{BATCH_MARK} {BATCHES_END} "
    text = ("hello world <b> & 我喜欢 😀 " * 40) + typed * 3
    enc = tok.encode(text)
    whole, _ = render_tokens(enc, text=text, grouped=grouped, scripted=True)
    batched, _ = render_tokens(enc, text=text, grouped=grouped, scripted=True, batch=50)
    assert BATCH_MARK not in whole and BATCHES_END not in whole      # typed, they are escaped text
    assert batched.replace(BATCH_MARK, "").replace(BATCHES_END, "") == whole
    boxes = batched.split("</style>", 1)[1]
    batches = boxes.split(BATCH_MARK)
    assert len(batches) > 3 and batches[-1].endswith(BATCHES_END + "</div>") and boxes.count(BATCHES_END) == 1
    parts = [len(re.findall(r'<span class="tp-t|(?<=>)[^<]+(?=<span)', b)) for b in batches[1:-1]]
    assert set(parts) == {50}
    short, _ = render_tokens(tok.encode("hello world"), text="hello world", scripted=True, batch=50)
    assert BATCH_MARK not in short and BATCHES_END not in short


def test_whitespace_made_visible_and_drawing_capped():
    tok = _bbpe("a b\tc\nd " * 50)
    enc = tok.encode("a b\tc\nd")
    out, _ = render_tokens(enc, visible_whitespace=True)
    assert "⋅" in out and "→" in out and "↵" in out
    long = "a b " * 6000
    out, truncated = render_tokens(tok.encode(long), max_chars=20_000)
    assert truncated


def test_boundary_agreement_share():
    a = Encoding(ids=(1, 2, 3), tokens=("ab", "c", "d"), token_bytes=(b"ab", b"c", b"d"),
                 offsets=((0, 2), (2, 3), (3, 4)), encoder="merges")
    b = Encoding(ids=(1, 2), tokens=("a", "bcd"), token_bytes=(b"a", b"bcd"), offsets=((0, 1), (1, 4)), encoder="merges")
    shared, only_a, only_b, share = boundary_agreement("abcd", a, b)
    assert shared == set() and only_a == {2, 3} and only_b == {1} and share == 0.0


SEED_000 = "highest higher lower lowest cooler coolest"


def test_pair_chart_marks_winner_and_ties():
    trace = train(count_words(SEED_000), TrainConfig(model="bpe", end_of_word="symbol", vocab_size=17))
    html = charts.pair_bars_html(trace.steps[0])
    labels = bar_labels(html)
    colours = re.findall(r'background:(#[0-9A-Fa-f]{6})', html)
    assert labels[0] == "e + s" and colours[0] == charts.WINNER and len(colours) == len(labels)
    # 5 pairs tied at 3 in the first step: the other four are marked as tied
    assert colours.count(charts.TIED) == trace.steps[0].tied - 1 == 4


def test_wordpiece_count_vs_score_chart():
    trace = train(WordCounts(("low", "lower", "newest", "widest"), (5, 2, 6, 3)),
                  TrainConfig(model="wordpiece", vocab_size=15))
    html = charts.count_vs_score_html(trace.steps[0])
    winner = re.findall(r'<span class="mg-pt mg-pt-winner" style="[^"]*background:(#\w+)" title="([^"]*)"', html)
    assert len(winner) == 1 and winner[0][0] == charts.WINNER and winner[0][1].endswith(": count 3, score 0.3333")
    bars = charts.pair_bars_html(trace.steps[0], "likelihood")
    assert re.search(r'<span class="mg-bar-value"[^>]*>0.333</span>', bars)   # the winner's score, first


def test_training_curves_mark_the_current_step():
    trace = train(count_words(SEED_000), TrainConfig(model="bpe", end_of_word="symbol", vocab_size=17))
    fig = charts.training_curves(trace, 3)
    tokens_line, tokens_marker = fig.data[0], fig.data[1]
    assert list(tokens_line.y) == [trace.initial_total_tokens] + [s.total_tokens for s in trace.steps]
    assert tokens_marker.x[0] == 3 and tokens_marker.y[0] == trace.steps[2].total_tokens
    assert list(fig.data[4].y)[-1] == len(trace.vocab)


def test_curve_marks_fall_where_the_unmarked_figure_puts_the_step():
    trace = train(count_words(SEED_000), TrainConfig(model="bpe", end_of_word="symbol", vocab_size=17))
    curves = charts.curve_data(trace)
    fig = charts.training_curves(trace, None, curves)
    assert len(fig.data) == 3 and not fig.layout.shapes     # the same figure at every step
    assert fig.to_json() == charts.training_curves(trace, None, curves).to_json()
    m, height = fig.layout.margin, fig.layout.height
    assert (m.l, m.r, m.t, m.b) == tuple(charts.CURVE_MARGIN[k] for k in "lrtb")
    marks = charts.curve_marks(curves, 3)
    assert marks.startswith(f'<div class="mg-curve-marks" data-step="3" style="height:{height}px">')
    tops = [float(t) for t in re.findall(r'mg-mark-dot" style="left:[^;]*;top:([\d.]+)px', marks)]
    fractions = [float(f) for f in re.findall(r"\* ([\d.]+)\)", marks)]
    assert len(tops) == 3 and len(fractions) == 6
    for i, axis in enumerate((fig.layout.xaxis, fig.layout.xaxis2, fig.layout.xaxis3)):
        (x0, x1), (s0, s1) = axis.domain, axis.range
        assert fractions[2 * i] == pytest.approx(x0 + (x1 - x0) * (3 - s0) / (s1 - s0), abs=1e-5)
    for top, axis, ys in zip(tops, (fig.layout.yaxis, fig.layout.yaxis2, fig.layout.yaxis3),
                             (curves.tokens, curves.chars_per_token, curves.vocab)):
        lo, hi = axis.range
        assert lo < ys[3] < hi
        assert top == pytest.approx(m.t + (height - m.t - m.b) * (hi - ys[3]) / (hi - lo), abs=0.1)
    assert 'data-step="0"' in charts.curve_marks(curves, -5)   # clamped to the steps there are


def test_merge_tree_down_to_the_alphabet():
    trace = train(count_words(SEED_000), TrainConfig(model="bpe", end_of_word="symbol", vocab_size=17))
    assert charts.merge_tree(trace, "est</w>") == ("est</w>", ("est", ("es", ("e",), ("s",)), ("t",)), ("</w>",))
    dot = charts.merge_tree_dot(trace, "est</w>")
    assert dot.count("->") == 6 and '"est</w>\\nstep 3"' in dot
    # quotes in a token cannot break out of the DOT label
    assert '\\"' in charts.merge_tree_dot(trace, 'a"b')


# ---------------------------------------------------------------- views.md_escape against Streamlit's own rewrites
# Streamlit's Markdown (1.67, StreamlitMarkdown.js) rewrites `:material/` to `:material_` in the
# source, then draws `:material_NAME:` in the parsed text as an icon. A backslash escape resolves
# before that second pass, so `\:material_home\:` still drew a home icon: the source must not
# hold `:material/` at all.

@pytest.mark.parametrize("text", [":material/home:", "a:material/b", ":material/link_off: x"])
def test_md_escape_leaves_no_material_icon_shortcode(text):
    from playground.views import md_escape
    escaped = md_escape(text)
    assert ":material/" not in escaped, escaped
    assert re.sub(r"\\(.)", r"\1", escaped) == text


# What Streamlit's Markdown rewrites in the text once escapes are read (its own patterns): its logo,
# typographic arrows and dashes, links made of bare addresses.
_STREAMLIT_REWRITES = [re.compile(r":streamlit:"), re.compile(r"(^|\s)(<->|->|<-|--|>=|<=|~=)(\s|$)"),
                       re.compile(r"https?://|www(?=\.)", re.I), re.compile(r"[-.\w+]+@[-\w]+(?:\.[-\w]+)+")]


@pytest.mark.parametrize("text", [":streamlit:", "a -> b", "x -- y", "<- <-> >= <= ~=", "http://127.0.0.1:9/x.png",
                                  "![x](https://example.org/x.png)", "www.example.org", "me@example.org",
                                  "WWW.EXAMPLE.ORG a--b"])
def test_md_escape_leaves_nothing_streamlit_rewrites_after_reading_escapes(text):
    from playground.views import WORD_JOINER, md_escape
    read = re.sub(r"\\(.)", r"\1", md_escape(text))     # the text Markdown's parser makes of it
    for pattern in _STREAMLIT_REWRITES:
        assert not pattern.search(read), (pattern.pattern, read)
    assert read.replace(WORD_JOINER, "") == text, "only invisible word joiners added"


def test_a_backslash_n_in_a_token_stays_two_characters_in_the_dot_labels():
    """Code corpora hold the two characters \\ and n: the merge tree's DOT draws them as typed, not
    as a line break (only the label's own break before "step" is one)."""
    trace = train(count_words(r"a\nb a\nb a\nb x\ny", "whitespace"), TrainConfig(model="bpe", vocab_size=30))
    made = [s.token for s in trace.steps]
    token = next(t for t in made if "\\n" in t)
    dot = charts.merge_tree_dot(trace, token)
    labels = re.findall(r'label="((?:[^"\\]|\\.)*)"', dot)
    read = [re.sub(r"\\(.)", lambda m: "\n" if m.group(1) == "n" else m.group(1), lab) for lab in labels]
    assert all(r.count("\n") <= 1 for r in read), read
    assert any(r.startswith(token + "\nstep ") for r in read), read
