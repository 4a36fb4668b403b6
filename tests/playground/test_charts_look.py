"""The charts' look, without a browser: they follow the page's theme (transparent backgrounds,
every axis sizing its own fonts so Streamlit's chart theme only colours them), and they are made
to fit a narrow column (titles on two lines, tied pairs at one point not written out as one long
label, axis titles stood off). A step's pair bars are HTML (charts.pair_bars_html): their rows here.
The browser checks what these promise: tests/browser/test_look.py."""
from __future__ import annotations

import dataclasses
import re

import pandas as pd
import pytest

from core.corpus import count_words
from core.presets import get_preset, words_for
from core.trainer import TrainConfig, train
from playground import charts
from tests.support import ROOT, bar_labels



def preset_trace(key: str, model: str):
    preset = get_preset(key)
    config = preset.configs()[model].resolved()
    return train(words_for(preset, config), config)


def every_figure():
    wp = preset_trace("seed-004", "wordpiece")
    lengths = pd.DataFrame({"length": [1, 2, 3, 25], "tokens": [40, 120, 30, 1]})
    return {
        "curves": charts.training_curves(wp, 2),
        "lengths": charts.length_chart(lengths),
    }


def unigram_steps():
    from core.unigram import UnigramConfig, train_unigram
    from playground import unigram_view
    preset = get_preset("seed-001")
    words = words_for(preset, preset.configs()["bpe"].resolved())
    return unigram_view.iterations(train_unigram(words, UnigramConfig(vocab_size=32)))


# every chart function, on small inputs: each is drawn once as it is, once with _frame as it was
CHART_CALLS = {
    "training curves": lambda: charts.training_curves(preset_trace("seed-004", "wordpiece"), 2),
    "lengths": lambda: charts.length_chart(pd.DataFrame({"length": [1, 2, 3, 25], "tokens": [40, 120, 30, 1]})),
    "placeholder": charts.placeholder_chart,
    "unigram curves": lambda: charts.unigram_curves(unigram_steps()),
    "token tax": lambda: charts.token_tax_chart(
        pd.DataFrame({"language": ["English", "中文 <b>"], "gpt2": [1.0, 2.5], "o200k": [1.0, float("nan")]}),
        ["gpt2", "o200k"]),
    "bytes per token": lambda: charts.bytes_per_token_chart(
        {"BPE": pd.DataFrame({"vocabulary": [100, 200], "bytes_per_token": [1.5, 2.0], "coverage": [1.0, 0.9]})}),
}


def _frame_by_update(fig, **layout):
    """charts._frame until session 20: the layout merged into the figure by update_layout."""
    fig.update_layout(font=charts.FONT, paper_bgcolor=charts.CLEAR, plot_bgcolor=charts.CLEAR,
                      hoverlabel=dict(font_size=16), **layout)
    for axis in [*fig.select_xaxes(), *fig.select_yaxes()]:
        if axis.tickfont.size is None:
            axis.tickfont.size = charts.TICK_SIZE
        if axis.title.font.size is None:
            axis.title.font.size = charts.FONT["size"]
    return fig


@pytest.mark.parametrize("name", list(CHART_CALLS))
def test_every_chart_is_the_figure_update_layout_made(name, monkeypatch):
    """_frame gives each chart's traces their layout whole, in a new figure: the same figure, to the
    last property, as merging it into the chart's own by update_layout."""
    fast = CHART_CALLS[name]().to_dict()
    monkeypatch.setattr(charts, "_frame", _frame_by_update)
    assert CHART_CALLS[name]().to_dict() == fast


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


BAR_ROW = re.compile(r'<span class="mg-bar-label" title="([^"]*)">(.*?)</span><span class="mg-bar-track" title="[^"]*">'
                     r'<span class="mg-bar" style="width:([0-9.]+)%;background:(#[0-9A-Fa-f]{6})"></span></span>'
                     r'<span class="mg-bar-value" title="[^"]*">(.*?)</span>')


def bar_rows(html_text: str) -> list[tuple[str, str, float, str, str]]:
    """(hover, label, width %, colour, value) of each bar of charts.pair_bars_html, best first."""
    rows = BAR_ROW.findall(html_text)
    labels = bar_labels(html_text)            # each side of a pair in its own span.mg-side
    return [(h, label, float(w), c, v) for (h, _, w, c, v), label in zip(rows, labels, strict=True)]


def test_pair_bars_name_every_pair_with_the_whole_pair_in_the_hover():
    trace = preset_trace("chinese", "bbpe")
    step = trace.steps[0]
    rows = bar_rows(charts.pair_bars_html(step, top=6))
    assert [label for _, label, *_ in rows] == [charts.pair_label(c.pair) for c in step.candidates[:6]]
    for (hover, label, *_), c in zip(rows, step.candidates):
        assert hover == f"{label}: count {c.count:,}"
    assert charts.shorten("internationalization", 8) == "interna…"
    assert charts.shorten("自然语言处理", 8) == "自然语…"          # wide characters count two
    assert charts.shorten("e + s", 8) == "e + s"


def test_scores_beside_their_bars_the_count_in_the_hover():
    trace = preset_trace("seed-004", "wordpiece")
    rows = bar_rows(charts.pair_bars_html(trace.steps[0], "likelihood"))
    assert rows and all(re.fullmatch(r"[0-9.e-]+", value) for *_, value in rows)   # the score alone
    assert all(", count " in hover for hover, *_ in rows)


def test_count_against_score_labels_only_the_winner_and_keeps_it_inside():
    trace = preset_trace("seed-004", "wordpiece")
    html_text = charts.count_vs_score_html(trace.steps[0])
    assert re.findall(r'<span class="mg-pt-label[^"]*"[^>]*>([^<]*)</span>', html_text) == ["w + ##i +1"]
    tops = [float(t) for t in re.findall(r'class="mg-pt mg-pt-\w+" style="left:[^;]*;top:([0-9.]+)%', html_text)]
    assert min(tops) >= 20                                  # room above the winner for its label (30 % of its score)
    zero_x = re.search(r'class="mg-tick-x" style="left:([0-9.]+)%">0<', html_text)
    zero_y = re.search(r'class="mg-tick-y" style="top:([0-9.]+)%">0<', html_text)
    assert float(zero_x.group(1)) > 3 and float(zero_y.group(1)) < 97    # the two zeros apart, inside the axes
    assert charts.nice_ticks(9) == [0, 2, 4, 6, 8] and charts.nice_ticks(0.34) == [0, 0.1, 0.2, 0.3]
    assert charts.nice_ticks(1, 3, whole=True) == [0, 1]


def test_merge_tree_on_a_clear_background():
    trace = train(count_words("highest higher lower lowest cooler coolest"),
                  TrainConfig(model="bpe", end_of_word="symbol", vocab_size=17))
    assert 'bgcolor="transparent"' in charts.merge_tree_dot(trace, "est</w>")


def test_the_merges_page_draws_plotly_with_streamlits_theme():
    source = (ROOT / "pages" / "merges.py").read_text(encoding="utf-8")
    assert "theme=None" not in source and 'theme="streamlit"' in source


def test_pair_bars_widths_colours_and_title():
    """The longest bar fills its track and the others scale with their counts; the winner in red,
    the pairs tied with it in orange, the others grey; the title counts the bars."""
    trace = preset_trace("chinese", "bbpe")
    late = trace.steps[149]                              # every pair left occurs once: all tied
    rows = bar_rows(charts.pair_bars_html(late, top=6))
    assert [c for *_, c, _ in rows] == [charts.WINNER] + [charts.TIED] * (len(rows) - 1)
    assert {w for _, _, w, _, _ in rows} == {100.0}
    one = charts.pair_bars_html(dataclasses.replace(late, candidates=late.candidates[:1]), top=6)
    assert '<div class="mg-bars-title">The top pair by count</div>' in one and 'mg-narrow' in one
    first = trace.steps[0]
    rows = bar_rows(charts.pair_bars_html(first))
    counts = [c.count for c in first.candidates]
    assert len(rows) == len(counts) and rows[0][2] == 100.0
    for (_, _, width, _, value), count in zip(rows, counts):
        assert width == round(100 * count / max(counts), 1) and value == f"{count:,}"
    assert [c for *_, c, _ in rows] == [charts.WINNER] + [charts.TIED if n == counts[0] else charts.OTHER
                                                          for n in counts[1:]]
    assert '<div class="mg-bars-title">The top {:,} pairs by count</div>'.format(len(rows)) in charts.pair_bars_html(first)
    assert charts.pair_bars_html(dataclasses.replace(first, candidates=())) == ""


def test_a_pair_of_right_to_left_symbols_keeps_its_order():
    """Each side of a bar's pair is its own bidi island (style.css: .mg-side), and so is each token
    of the step's sentence (code.mg-tok): a pair of Arabic symbols in an English page is drawn first
    on the left, not reversed by the browser's bidi algorithm (`م + ##ر` as `ر## + م`)."""
    trace = train(count_words("حر حر حر حب"), TrainConfig(model="wordpiece", vocab_size=40, pre_tokenizer="whitespace"))
    step = next(s for s in trace.steps if all("\u0600" <= ch <= "\u06ff" for ch in "".join(s.pair).replace("##", "")))
    html_text = charts.pair_bars_html(step)
    first = step.candidates[0].pair
    assert f'<span class="mg-side">{first[0]}</span> + <span class="mg-side">{first[1]}</span>' in html_text
    assert bar_labels(html_text)[0] == charts.pair_label(first)
    css = (ROOT / "playground" / "style.css").read_text(encoding="utf-8")
    assert re.search(r"code\.mg-tok\{[^}]*unicode-bidi:isolate", css) and ".mg-side{unicode-bidi:isolate}" in css
