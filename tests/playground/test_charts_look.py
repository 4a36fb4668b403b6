"""The charts' look, without a browser: they follow the page's theme (transparent backgrounds,
every axis sizing its own fonts so Streamlit's chart theme only colours them), and they are made
to fit a narrow column (titles on two lines, long pair labels cut with the whole pair in the
hover, tied pairs at one point not written out as one long label, axis titles stood off).
The browser checks what these promise: tests/browser/test_look.py."""
from __future__ import annotations

import dataclasses
import math
import re

import pandas as pd
import pytest

from core.corpus import count_words
from core.presets import get_preset, words_for
from core.trainer import TrainConfig, train
from playground import charts
from tests.support import ROOT



def preset_trace(key: str, model: str):
    preset = get_preset(key)
    config = preset.configs()[model].resolved()
    return train(words_for(preset, config), config)


def every_figure():
    wp = preset_trace("seed-004", "wordpiece")
    zh = preset_trace("chinese", "bbpe")
    lengths = pd.DataFrame({"length": [1, 2, 3, 25], "tokens": [40, 120, 30, 1]})
    return {
        "pairs": charts.pair_frequency_chart(zh.steps[0]),
        "pairs, narrow": charts.pair_frequency_chart(zh.steps[0], top=6),
        "scores": charts.pair_frequency_chart(wp.steps[0], "likelihood"),
        "count against score": charts.count_vs_score_chart(wp.steps[0]),
        "curves": charts.training_curves(wp, 2),
        "lengths": charts.length_chart(lengths),
    }


@pytest.mark.parametrize("name,fig", list(every_figure().items()))
def test_backgrounds_clear_and_fonts_stated_on_every_axis(name, fig):
    assert fig.layout.paper_bgcolor == charts.CLEAR and fig.layout.plot_bgcolor == charts.CLEAR, name
    for axis in [*fig.select_xaxes(), *fig.select_yaxes()]:
        # the training curves' frame is fixed in pixels instead (charts.CURVE_MARGIN), so the
        # Merges page can lay the step's mark over them; tests/browser/test_look.py checks
        # that their labels stay inside it
        assert axis.tickfont.size >= 15 and (axis.automargin or name == "curves"), (name, axis.anchor)
        if axis.title.text:
            assert axis.title.font.size >= 18 and axis.title.standoff >= 10, (name, axis.title.text)


@pytest.mark.parametrize("name,fig", list(every_figure().items()))
def test_titles_have_short_lines(name, fig):
    titles = [fig.layout.title.text or ""] + [a.text for a in fig.layout.annotations]
    for title in titles:
        assert all(len(line) <= 16 for line in title.split("<br>")), (name, title)


def test_pair_labels_cut_with_the_whole_pair_in_the_hover():
    trace = preset_trace("chinese", "bbpe")
    fig = charts.pair_frequency_chart(trace.steps[0], top=6)
    bar, axis = fig.data[0], fig.layout.yaxis
    assert list(axis.tickvals) == list(bar.y)[::-1]    # one tick per bar (best first), named by its whole pair
    for whole, shown, hover in zip(axis.tickvals, axis.ticktext, bar.customdata[::-1]):
        assert shown == charts.shorten(whole, charts.NARROW_PAIR_LABEL_WIDTH) and hover.startswith(whole)
    assert charts.shorten("internationalization", 8) == "interna…"
    assert charts.shorten("自然语言处理", 8) == "自然语…"          # wide characters count two
    assert charts.shorten("e + s", 8) == "e + s"


def test_values_inside_their_bars_never_beside_them():
    trace = preset_trace("seed-004", "wordpiece")
    bar = charts.pair_frequency_chart(trace.steps[0], "likelihood").data[0]
    assert bar.textposition == "inside" and bar.textangle == 0
    assert all(re.fullmatch(r"[0-9.e-]+", t) for t in bar.text)   # the score alone; the count in the hover


def test_count_against_score_labels_only_the_winner_and_keeps_it_inside():
    trace = preset_trace("seed-004", "wordpiece")
    fig = charts.count_vs_score_chart(trace.steps[0])
    labelled = [t for d in fig.data for t in d.text if t]
    assert labelled == ["w + ##i +1"]
    best = max(y for d in fig.data for y in d.y)
    assert fig.layout.yaxis.range[1] >= 1.25 * best              # room above the winner for its label
    assert fig.layout.xaxis.range[0] < 0 and fig.layout.yaxis.range[0] < 0   # the two zeros apart


def test_merge_tree_on_a_clear_background():
    trace = train(count_words("highest higher lower lowest cooler coolest"),
                  TrainConfig(model="bpe", end_of_word="symbol", vocab_size=17))
    assert 'bgcolor="transparent"' in charts.merge_tree_dot(trace, "est</w>")


def test_the_merges_page_draws_plotly_with_streamlits_theme():
    source = (ROOT / "pages" / "merges.py").read_text(encoding="utf-8")
    assert "theme=None" not in source and 'theme="streamlit"' in source


def test_count_axes_have_whole_ticks_and_titles_their_number():
    trace = preset_trace("chinese", "bbpe")
    late = trace.steps[149]                              # every pair left occurs once
    assert max(c.count for c in late.candidates) == 1
    fig = charts.pair_frequency_chart(late, top=6)
    assert fig.layout.xaxis.dtick == 1                  # no tick at 0.5 (written "500m")
    one = charts.pair_frequency_chart(dataclasses.replace(late, candidates=late.candidates[:1]), top=6)
    assert one.layout.title.text == "The top pair<br>by count"
    big = charts.pair_frequency_chart(trace.steps[0])
    assert big.layout.xaxis.dtick is None and big.layout.xaxis.tickformat == "~s"


def test_a_pair_charts_left_margin_is_set_from_its_widest_label():
    """charts.pair_axis gives the margin the labels need (Plotly's automargin would otherwise draw
    the chart twice at each step; tests/browser/test_look.py checks it was not widened)."""
    narrow = charts.pair_axis(["i + n", "t + h"])
    wide = charts.pair_axis(["i + n", "分词 + 是"])
    assert narrow["margin"]["l"] < wide["margin"]["l"]
    assert wide["margin"]["l"] >= math.ceil(charts.label_width("分词 + 是", charts.PAIR_TICK_SIZES[False]))
    assert charts.label_width("分词", 16) == 2 * charts.label_width("分", 16) > charts.label_width("ab", 16)
    cut = charts.pair_axis(["internationalization + s"])
    assert cut["yaxis"]["ticktext"] == [charts.shorten("internationalization + s", charts.PAIR_LABEL_WIDTH)]
    fig = charts.pair_frequency_chart(preset_trace("chinese", "bbpe").steps[0])
    assert fig.layout.margin.l == charts.pair_axis(list(fig.data[0].y))["margin"]["l"]
    assert fig.layout.yaxis.automargin                    # still the safety net
