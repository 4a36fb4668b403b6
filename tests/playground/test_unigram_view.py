"""playground/unigram_view.py: a Unigram trace as steps, and the lattice of one word."""
from __future__ import annotations

import html
import math
import re

import pytest
from hypothesis import given, settings, strategies as st

from core import presets
from core.trainer import TrainConfig
from core.unigram import METASPACE, UnigramConfig, UnigramTokenizer, train_unigram
from playground import charts, unigram_view as uv


@pytest.fixture(scope="module")
def trace():
    words = presets.words_for(presets.get_preset("seed-001"), TrainConfig(model="bpe").resolved())
    return train_unigram(words, UnigramConfig(vocab_size=32))


def test_steps_follow_the_trace_in_order(trace):
    steps = uv.iterations(trace)
    assert [s.index for s in steps] == list(range(len(steps)))
    assert steps[0].kind == "seeds" and steps[0].pieces == trace.seeds
    assert steps[-1].kind == "final" and steps[-1].pieces == trace.vocab
    assert [s.loss for s in steps if s.kind == "em"] == [e.loss for e in trace.em_steps]
    prunes = [s for s in steps if s.kind == "prune"]
    assert len(prunes) == len(trace.prunes) >= 2
    for step, prune in zip(prunes, trace.prunes):
        before = steps[step.index - 1]
        assert step.pieces == tuple(p for p in before.pieces if p[0] not in {t for t, _ in prune.pruned})
        assert step.size == prune.size_after and before.size == prune.size_before
        nxt = steps[step.index + 1]
        assert nxt.kind == "em" and set(p for p, _ in nxt.pieces) <= set(p for p, _ in step.pieces)
    assert uv.last_loss(steps, prunes[0].index) == steps[prunes[0].index - 1].loss


def test_every_step_has_a_sentence_with_its_number(trace):
    steps = uv.iterations(trace)
    for k, step in enumerate(steps):
        text = uv.describe(steps, k)
        assert text.startswith(f"Step {k} of {len(steps) - 1}: ")
        assert f"{step.size:,} pieces" in text or step.kind == "seeds" and f"{step.size:,} seed pieces" in text


def test_the_final_steps_viterbi_path_is_what_the_tokenizer_encodes(trace):
    tok = UnigramTokenizer.from_trace(trace)
    final = uv.iterations(trace)[-1]
    for word in ("tokenizer", "the", "Hugging", "shows"):
        lat = uv.word_lattice(final.pieces, word)
        ours = [(b, e) for _, b, e in lat.viterbi_path.pieces]
        assert ours == [(a, b) for a, b, _ in tok.segment(METASPACE + word)], word
        assert math.isclose(math.fsum(s.probability for s in lat.segmentations), 1.0)


def test_a_word_too_long_for_a_listed_lattice_is_refused():
    with pytest.raises(ValueError, match="1 to 10 characters"):
        uv.word_lattice((("a", -1.0),), "a" * 10)


def test_the_lattice_html_escapes_the_word_and_outlines_one_row():
    pieces = (("<", -1.0), ("b", -1.0), (">", -1.0), (METASPACE, -1.0), ("<b", -0.5))
    lat = uv.word_lattice(pieces, "<b>")
    html = uv.lattice_html(lat)
    assert "<b>" not in html and "&lt;b" in html
    assert html.count("ug-row ug-best") == 1
    assert f'data-segmentations="{len(lat.segmentations)}"' in html


def test_short_words_are_frequent_first_and_fit_the_lattice():
    words = uv.short_words(["a", "abcdefghijk", "bb", "cc", "bb"], [1, 9, 3, 3, 5], limit=3)
    assert words == ["bb", "cc", "a"]


def test_the_richest_word_is_the_first_with_the_most_segmentations(trace):
    """richest_word indexes the pieces once for all the words: it picks what word_lattice, one word
    at a time, counts (the first of the words with the most segmentations), at every step."""
    counted = presets.words_for(presets.get_preset("seed-001"), TrainConfig(model="bpe").resolved())
    words = uv.short_words(counted.words, counted.counts)
    assert len(words) >= 5
    for step in uv.iterations(trace):
        counts = [len(uv.word_lattice(step.pieces, w).segmentations) for w in words]
        assert uv.richest_word(step.pieces, words) == words[counts.index(max(counts))]
        # a tie goes to the first: the same words in another order can pick another
        assert uv.richest_word(step.pieces, words[::-1]) == words[::-1][counts[::-1].index(max(counts))]
    assert uv.richest_word(trace.seeds, []) is None
    with pytest.raises(ValueError, match="1 to 10 characters"):
        uv.richest_word(trace.seeds, ["a" * 10])


_ALPHABET = "ab" + METASPACE + "é"


@settings(max_examples=200, deadline=None)
@given(pieces=st.lists(st.tuples(st.text(_ALPHABET, min_size=1, max_size=4),
                                 st.floats(-20, 0, allow_nan=False)), min_size=1, max_size=30),
       words=st.lists(st.text(_ALPHABET, min_size=1, max_size=8), min_size=1, max_size=4),
       metaspace=st.booleans())
def test_a_lattice_reads_only_the_pieces_inside_its_word(pieces, words, metaspace):
    """word_lattice and richest_word index only the pieces that are substrings of the words drawn
    (a step of a big corpus has hundreds of thousands): every lattice is the one the whole table
    gives (the same segmentations, scores, shares and Viterbi path; the unknown character scored
    from all the pieces), and so is the word picked."""
    whole = uv._PieceTable.of(pieces)
    for w in words:
        assert uv.word_lattice(pieces, w, metaspace) == uv._lattice(whole, w, metaspace)
    counts = [len(uv._lattice(whole, w, metaspace).segmentations) for w in words]
    assert uv.richest_word(pieces, words, metaspace) == words[counts.index(max(counts))]


def _bars(html_text: str) -> list[tuple[str, float, str]]:
    """(the piece as shown, the bar's width in %, the figure beside it) of each bar, top first."""
    rows = re.findall(r'<span class="mg-bar-label" title="[^"]*">(.*?)</span><span class="mg-bar-track" '
                      r'title="[^"]*"><span class="mg-bar" style="width:([\d.]+)%;[^"]*"></span></span>'
                      r'<span class="mg-bar-value" title="[^"]*">(.*?)</span>', html_text)
    return [(html.unescape(p), float(w), html.unescape(v)) for p, w, v in rows]


@settings(max_examples=100, deadline=None)
@given(pieces=st.lists(st.tuples(st.text("ab<&", min_size=1, max_size=3), st.sampled_from([-3.0, -2.0, -1.5, -1.0])),
                       min_size=1, max_size=60),
       losses=st.lists(st.one_of(st.none(), st.sampled_from([0.5, 1.0, 2.0])), min_size=60, max_size=60))
def test_the_pieces_bars_are_the_top_pieces_in_order(pieces, losses):
    """The scores' bars are the best-scored pieces, best first, ties by the piece, each bar as long
    as its score's size; the pruned bars the smallest losses first (none first: on no best path,
    an empty bar), ties by the piece: what sorting every piece and taking the first UNIGRAM_TOP
    gives (they no longer sort them all). Pieces are escaped."""
    best = sorted(pieces, key=lambda ps: (-ps[1], ps[0]))[:charts.UNIGRAM_TOP]
    drawn = _bars(charts.piece_scores_html(pieces))
    assert [(p, v) for p, _, v in drawn] == [(p, f"score {s:.4f}") for p, s in best]
    assert [w for _, w, _ in drawn] == [pytest.approx(100 * s / best[-1][1], abs=0.06) for _, s in best]
    pruned = list(zip([p for p, _ in pieces], losses))
    small = sorted(pruned, key=lambda pl: (pl[1] if pl[1] is not None else -1.0, pl[0]))[:charts.UNIGRAM_TOP]
    drawn = _bars(charts.pruned_loss_html(pruned))
    assert [(p, v) for p, _, v in drawn] == [(p, "never on a best path" if loss is None else f"loss {loss:.4g}")
                                            for p, loss in small]
    assert all(w == 0 for (_, w, _), (_, loss) in zip(drawn, small) if loss is None)
    assert "<b" not in charts.piece_scores_html([("<b>", -1.0)]) + charts.pruned_loss_html([("<b>", 1.0)])


def test_a_piece_that_draws_nothing_is_named():
    """A piece made only of zero-width characters (an emoji corpus's joiner or variation selector)
    is named in the bars, their hovers and the lattice, as the token views name it, not drawn as
    a blank label; a piece with a visible character keeps its joiner as it is."""
    drawn = _bars(charts.piece_scores_html([("\u200d", -1.0), ("\ufe0f", -2.0), ("a\u200d", -3.0)]))
    assert [p for p, _, _ in drawn] == ["⟨ZWJ⟩", "⟨VS16⟩", "a\u200d"]
    assert 'title="⟨ZWJ⟩: score -1.0000"' in charts.piece_scores_html([("\u200d", -1.0)])
    assert [p for p, _, _ in _bars(charts.pruned_loss_html([("\u200c", None)]))] == ["⟨ZWNJ⟩"]
    lat = uv.word_lattice([("a", -1.0), ("\u200d", -1.0), ("b", -1.0)], "a\u200db", metaspace=False)
    grid = uv.lattice_html(lat)
    assert grid.count(">⟨ZWJ⟩</div>") == 2        # its column's header and its piece on the one path
    assert 'title="⟨ZWJ⟩"' in grid


def test_the_curves_mark_falls_where_the_figure_puts_the_step(trace):
    """The curves' figure is the same at every step (the browser keeps it as drawn); the step's
    mark, laid over it, puts its lines at the step and its dots on the vocabulary size there and on
    the loss of the last EM step up to it, where the figure's own margins, domains and ranges put
    those points."""
    steps = uv.iterations(trace)
    fig = charts.unigram_curves(steps)
    assert fig.to_json() == charts.unigram_curves(steps).to_json() and not fig.layout.shapes
    m, height = fig.layout.margin, fig.layout.height
    assert (m.l, m.r, m.t, m.b) == tuple(charts.UNIGRAM_CURVE_MARGIN[k] for k in "lrtb")
    axes = ((fig.layout.xaxis, fig.layout.yaxis), (fig.layout.xaxis2, fig.layout.yaxis2))
    assert not any(a.automargin for pair in axes for a in pair)
    em = [it for it in steps if it.loss is not None]

    def where(x_axis, y_axis, x, y):
        (x0, x1), (s0, s1), (lo, hi) = x_axis.domain, x_axis.range, y_axis.range
        assert s0 < x < s1 and lo < y < hi
        return x0 + (x1 - x0) * (x - s0) / (s1 - s0), m.t + (height - m.t - m.b) * (hi - y) / (hi - lo)

    for k in range(len(steps)):
        marks = charts.unigram_curve_marks(steps, k)
        assert marks.startswith(f'<div class="mg-curve-marks" data-step="{k}" style="height:{height}px">')
        lines = [float(f) for f in re.findall(r'mg-mark-line" style="left:calc\([^*]*\* ([\d.]+)\)', marks)]
        dots = [(float(f), float(t)) for f, t in
                re.findall(r'mg-mark-dot" style="left:calc\([^*]*\* ([\d.]+)\);top:([\d.]+)px', marks)]
        assert lines == pytest.approx([where(x, y, k, y.range[0] + 1e-9)[0] for x, y in axes], abs=1e-5)
        expected = [where(*axes[0], k, steps[k].size)]
        done = [it for it in em if it.index <= k]
        if done:
            expected.append(where(*axes[1], done[-1].index, done[-1].loss))
        assert len(dots) == len(expected)
        for (f, t), (ef, et) in zip(dots, expected):
            assert f == pytest.approx(ef, abs=1e-5) and t == pytest.approx(et, abs=0.1)
    assert 'data-step="0"' in charts.unigram_curve_marks(steps, -3)      # clamped to the steps there are
