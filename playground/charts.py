"""Chart builders: plain functions from trace records to Plotly figures (tested without a browser),
a step's pair bars and the merge tree as HTML, and the merge tree as Graphviz DOT.
(Over 400 lines: every chart of the app in one place, each a short function sharing one frame,
font sizes and colours; split by page, the theme's rules would be copied.)

Fonts are large and colours few and strong: these charts are read from the back of a room.
"""
from __future__ import annotations

import heapq
import math
import re
import unicodedata
from dataclasses import dataclass
from typing import Callable, Optional, Sequence

import numpy as np
import plotly.graph_objects as go

from core.trainer import MergeStep, Trace
from playground import markup
from playground.spans import show_invisible

FONT = dict(size=18)
WINNER, TIED, OTHER = "#C1121F", "#F4A261", "#8D99AE"
LINE = "#4A90C2"            # curves and plain bars: 3.4:1 on white, 5.6:1 on the dark background
MAX_CURVE_POINTS = 1500
LABELLED_POINTS = 1        # count against score: only the winner's point is labelled (hover for the rest)
# Backgrounds stay transparent: the page's own (light or dark) shows through, and Streamlit's chart
# theme (st.plotly_chart's default, theme="streamlit") gives the text and grid the theme's colours.
CLEAR = "rgba(0,0,0,0)"
TICK_SIZE = 17             # tick labels (a narrow chart's: 15)
AXIS_STANDOFF = 10         # pixels between an axis title and its tick labels
# a label on a Plotly bar chart of pieces (Unigram's), in columns (a CJK character takes two): at
# 1024 pixels with the sidebar open such a chart is about 167 px wide and Plotly gives its labels
# at most about 85 px (the Unigram charts take 3 columns more, at 15 px)
PAIR_LABEL_WIDTH = 9
TREE_COLUMNS = 36          # a merge tree whose bottom row is wider than this is drawn in smaller type


def pair_label(pair: tuple[str, str]) -> str:
    return f"{pair[0]} + {pair[1]}"


def _columns(ch: str) -> int:
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def shorten(label: str, width: int) -> str:
    """`label` cut to `width` columns (wide characters count two), with "…" when cut:
    shorten("internationalization", 8) == "interna…"; the whole label goes in the hover."""
    if sum(_columns(ch) for ch in label) <= width:
        return label
    out, used = [], 0
    for ch in label:
        if used + _columns(ch) > width - 1:
            break
        out.append(ch)
        used += _columns(ch)
    return "".join(out) + "…"


def _counts(largest: float) -> dict:
    """Tick settings for an axis of whole counts: short numbers (1.5k), and no fractions (Plotly
    put a tick at 0.5, written "500m", when the largest count was 1)."""
    return dict(tickformat="~s", tick0=0, dtick=1) if largest <= 3 else dict(tickformat="~s")


def _axis_title(text: str) -> dict:
    return dict(text=text, standoff=AXIS_STANDOFF)


def _title(text: str, size: int = 20) -> dict:
    """A title on one or two lines (<br>), centred on the figure, below its top edge: Plotly lifts
    a title of two lines by about one line above the place it is anchored at, so the pad is a
    line plus 14 pixels (with a pad of 10 it rose 10 pixels out of the figure). The figures'
    top margins (80 px) hold two lines."""
    return dict(text=text, font=dict(size=size), x=0.5, xanchor="center", xref="container",
                y=1, yanchor="top", yref="container", pad=dict(t=size + 14))


def length_chart(lengths) -> go.Figure:
    """Inspect's vocabulary: how many tokens have each length (a frame with columns `length` and
    `tokens`). Plotly picks the x ticks (one per length ran together once lengths reached 20)."""
    fig = go.Figure(go.Bar(x=lengths["length"], y=lengths["tokens"], marker_color=LINE,
                           hovertemplate="length %{x}: %{y:,} tokens<extra></extra>"))
    return _frame(fig, height=320, margin=dict(l=4, r=10, t=60, b=10), title=_title("Tokens by length"),
                  xaxis=dict(title=_axis_title("length (characters)"), automargin=True, tickformat="d",
                             nticks=12),
                  yaxis=dict(title=_axis_title("tokens"), automargin=True, nticks=6,
                             **_counts(max(lengths["tokens"], default=0))))


def _frame(fig: go.Figure, **layout) -> go.Figure:
    """The settings every chart shares: projector fonts, transparent backgrounds, and the hover
    label's font large enough to read. `fig` holds the chart's traces only: its whole layout is
    given here, to a new figure of those traces at once (the figure update_layout would make, in
    half the time: Plotly checks a layout given whole in one pass)."""
    fig = go.Figure(data=fig.data, layout=dict(font=FONT, paper_bgcolor=CLEAR, plot_bgcolor=CLEAR,
                                               hoverlabel=dict(font_size=16), **layout))
    # Streamlit's chart theme sets the axes' own font sizes (13.5 px), which win over font=FONT:
    # every axis states its sizes, so the theme gives colours only
    for axis in [*fig.select_xaxes(), *fig.select_yaxes()]:
        if axis.tickfont.size is None:
            axis.tickfont.size = TICK_SIZE
        if axis.title.font.size is None:
            axis.title.font.size = FONT["size"]
    return fig


def placeholder_chart() -> go.Figure:
    """One bar, never seen: drawn hidden so that the browser loads Plotly's code before a page needs
    it (merges_control.warm_browser)."""
    return _frame(go.Figure(go.Bar(x=["a"], y=[1])), height=120, margin=dict(l=0, r=0, t=0, b=0))


def _value(c, score_rule: Optional[str]):
    return float(c.score) if score_rule == "likelihood" else c.count


def top_pairs_title(shown: int, by: str) -> str:
    """top_pairs_title(1, "count") == "The top pair by count";
    top_pairs_title(8, "score") == "The top 8 pairs by score"."""
    return f"The top pair by {by}" if shown == 1 else f"The top {shown:,} pairs by {by}"


def _isolated_pair(label: str) -> str:
    """A pair's label, escaped, each side its own bidi island (style.css: .mg-side, left to right
    inside as the page is): without it the browser's bidi algorithm reorders a pair of right-to-left
    symbols (`م + ##ر` drawn as `ر## + م`), and the pair reads backwards. The text is the label's."""
    return "".join(f'<span class="mg-side">{side}</span>' if side != " + " else side
                   for side in _PAIR_JOIN.split(markup.text(label), maxsplit=1))


_PAIR_JOIN = re.compile(r"( \+ )")


def pair_bars_html(step: MergeStep, score_rule: Optional[str] = None, top: Optional[int] = None,
                   labels: Optional[Sequence[str]] = None, spelled: Optional[Sequence[str]] = None) -> str:
    """Top-K candidate pairs of one step as horizontal bars, best at the top: the winner in red, the
    pairs tied with it in orange, each bar's count (WordPiece likelihood: its score) beside it, the
    whole pair and its figures in the hover. `top`: only the first `top` candidates (lockstep's
    three narrow columns). `labels` and `spelled`, one per bar drawn: the pairs as shown and as the
    vocabulary spells them (byte-level, merges_control.pair_labels: `分 + 词`, spelled `åĪĨ + è¯į`).

    HTML laid out by the browser, not a Plotly figure: a step redraws it, and a figure was drawn,
    measured and, when its labels needed a wider margin, drawn again at every step (the bars are
    a grid: labels right-aligned in a column as wide as the widest up to 55 % of the chart, then
    cut with "…"; style.css, .mg-bars). Every piece of pair text is escaped (markup)."""
    cands = list(step.candidates)[:top]
    if not cands:
        return ""
    what = "score" if score_rule == "likelihood" else "count"
    values = [_value(c, score_rule) for c in cands]
    best, largest = values[0], max(values) or 1
    rows = []
    for i, (c, value) in enumerate(zip(cands, values)):
        colour = WINNER if i == 0 else TIED if value == best else OTHER
        label = labels[i] if labels else pair_label(c.pair)
        figure = f"{c.count:,}" if what == "count" else f"{float(c.score):.3g}"
        hover = f"{label}: " + (f"count {c.count:,}" if what == "count" else
                                f"score {float(c.score):.4g}, count {c.count:,}")
        if spelled and spelled[i] != label:
            hover += f" (spelled {spelled[i]})"
        card = f' title="{markup.attr(hover)}"'
        rows.append(f'<span class="mg-bar-label"{card}>{_isolated_pair(label)}</span>'
                    f'<span class="mg-bar-track"{card}><span class="mg-bar" style="width:{100 * value / largest:.1f}%;'
                    f'background:{colour}"></span></span><span class="mg-bar-value"{card}>{figure}</span>')
    title = top_pairs_title(len(cands), what)
    return (f'<div class="mg-bars{" mg-narrow" if top is not None else ""}">'
            f'<div class="mg-bars-title">{title}</div>{"".join(rows)}</div>')


def nice_ticks(top: float, n: int = 4, whole: bool = False) -> list[float]:
    """Tick values from 0 up to `top` at a round step (1, 2 or 5 times a power of ten, the one
    nearest top / n; at least 1 when `whole`): nice_ticks(9) == [0, 2, 4, 6, 8],
    nice_ticks(0.34) == [0, 0.1, 0.2, 0.3], nice_ticks(1, whole=True) == [0, 1]."""
    if top <= 0:
        return [0.0]
    raw = top / n
    power = 10 ** math.floor(math.log10(raw))
    step = min((m * power for m in (1, 2, 5, 10)), key=lambda v: abs(math.log(v / raw)))
    if whole:
        step = max(step, 1)
    count = int(top / step + 1e-9)
    return [round(i * step, 12) for i in range(count + 1)]


def _tick_text(value: float, whole: bool) -> str:
    return f"{int(value):,}" if whole else f"{value:.2g}"


def count_vs_score_html(step: MergeStep) -> str:
    """WordPiece: each candidate's count against its likelihood score, as HTML the stylesheet lays
    out (style.css, .mg-scores): a rare pair of rare symbols scores high, which is why it can win
    over a frequent one. The winner red, the pairs tied with it orange, the others grey.

    Only the winner's point is labelled, with its pair (cut when long) and "+k" when k more pairs
    sit at the same point; every point's hover names all its pairs, its count and score. The label
    stands above the point, leaning into the chart at the edges, and the axes leave room above the
    highest point (30 %) and zero a little inside each axis, so it stays inside the chart.

    Not a Plotly figure: a step changes it, and Plotly drew a changed figure from scratch at every
    step (a WordPiece step on the KJV: ~210 ms against ~135 for byte-level BPE's). Points, ticks
    and the label are placed in percentages of the plot, so they follow its width; text keeps its
    size. Every piece of pair text is escaped (markup)."""
    cands = list(step.candidates)
    if not cands:
        return ""
    best = cands[0].score
    at_point: dict[tuple, list[str]] = {}
    for c in cands:
        at_point.setdefault((c.count, c.score), []).append(pair_label(c.pair))
    top_count = max(c.count for c in cands) or 1
    top_score = max(float(c.score) for c in cands) or 1.0
    x_lo, x_hi = -0.08 * top_count, top_count * 1.08
    y_lo, y_hi = -0.06 * top_score, top_score * 1.3

    def left(x: float) -> str:
        return f"{100 * (x - x_lo) / (x_hi - x_lo):.2f}%"

    def top(y: float) -> str:
        return f"{100 * (y_hi - y) / (y_hi - y_lo):.2f}%"

    out = ['<div class="mg-scores"><div class="mg-scores-title">Count<br>against score</div>',
           '<div class="mg-scores-body"><div class="mg-scores-ytitle">score</div>'
           f'<div class="mg-scores-plot" style="height:{max(240, 40 * len(cands) + 60)}px">']
    for y in nice_ticks(top_score, 4):
        out.append(f'<span class="mg-grid-y" style="top:{top(y)}"></span>'
                   f'<span class="mg-tick-y" style="top:{top(y)}">{_tick_text(y, False)}</span>')
    for x in nice_ticks(top_count, 3, whole=True):
        out.append(f'<span class="mg-grid-x" style="left:{left(x)}"></span>'
                   f'<span class="mg-tick-x" style="left:{left(x)}">{_tick_text(x, True)}</span>')
    labelled = set(cands[:LABELLED_POINTS])
    first_at: dict[tuple, int] = {}          # each point's best-ranked pair: it gives the colour
    for rank, c in enumerate(cands):
        first_at.setdefault((c.count, c.score), rank)
    # the best last: drawn over the points near it
    for where, rank in sorted(first_at.items(), key=lambda item: -item[1]):
        c = cands[rank]
        kind = "winner" if rank == 0 else "tied" if c.score == best else "other"
        pairs = at_point[where]
        hover = markup.attr(" · ".join(pairs) + f": count {c.count:,}, score {float(c.score):.4g}")
        colour = {"winner": WINNER, "tied": TIED, "other": OTHER}[kind]
        out.append(f'<span class="mg-pt mg-pt-{kind}" style="left:{left(c.count)};top:{top(float(c.score))};'
                   f'background:{colour}" title="{hover}"></span>')
        if c in labelled:
            more = f" +{len(pairs) - 1}" if len(pairs) > 1 else ""
            side = c.count / top_count
            lean = " mg-lean-right" if side < 0.34 else " mg-lean-left" if side > 0.66 else ""
            out.append(f'<span class="mg-pt-label{lean}" style="left:{left(c.count)};top:{top(float(c.score))}">'
                       f'{markup.text(shorten(pair_label(c.pair), 10) + more)}</span>')
    out.append('</div></div><div class="mg-scores-xtitle">pair count</div></div>')
    return "".join(out)


def _thin(xs: list[int]) -> list[int]:
    if len(xs) <= MAX_CURVE_POINTS:
        return xs
    stride = len(xs) / MAX_CURVE_POINTS
    keep = sorted({xs[int(i * stride)] for i in range(MAX_CURVE_POINTS)} | {xs[-1]})
    return keep


def corpus_characters(trace: Trace) -> int:
    return sum(len(w) * c for w, c in trace.words.as_pairs())


@dataclass(frozen=True)
class Curves:
    """The three training curves of a trace, one value per step 0..N (step 0: before any merge).
    Built once per trace (a page caches it); `training_curves` only marks a step on them."""
    tokens: tuple[int, ...]              # tokens in the whole corpus
    chars_per_token: tuple[float, ...]
    vocab: tuple[int, ...]               # vocabulary size
    xs: tuple[int, ...]                  # the steps drawn (thinned to MAX_CURVE_POINTS)

    def drawn(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        """x and y of curve i at the drawn steps, as arrays (Plotly validates a list of 1,500
        numbers in 3 ms, an array in 0.1 ms)."""
        ys = (self.tokens, self.chars_per_token, self.vocab)[i]
        return np.asarray(self.xs), np.asarray([ys[x] for x in self.xs])


def curve_data(trace: Trace) -> Curves:
    """curve_data(t).tokens == (t.initial_total_tokens, t.steps[0].total_tokens, ...)."""
    steps = trace.steps
    totals = (trace.initial_total_tokens,) + tuple(s.total_tokens for s in steps)
    vocab = (len(trace.special_tokens) + len(trace.alphabet),) + tuple(s.vocab_size for s in steps)
    chars = corpus_characters(trace)
    return Curves(tokens=totals, chars_per_token=tuple(chars / t if t else 0.0 for t in totals), vocab=vocab,
                  xs=tuple(_thin(list(range(len(totals))))))


# on two lines: three one-line titles ran into each other when the page was 500 pixels wide
CURVE_TITLES = ("tokens in<br>the corpus", "characters<br>per token", "vocabulary<br>size")
# gaps wide enough for the middle and right panels' tick labels (they have no margin of their own)
_DOMAINS = ((0.0, 0.26), (0.37, 0.63), (0.74, 1.0))
# The curves' frame is fixed in pixels (margins stated, no automargin; both axes' ranges stated),
# so where a step falls on them is known without asking Plotly: curve_marks draws the current
# step over the chart, and the figure itself stays the same for every step (the browser keeps
# it as drawn: Streamlit redraws a Plotly chart only when its figure changes).
CURVE_HEIGHT = 370
CURVE_MARGIN = dict(l=58, r=12, t=80, b=62)   # room for "800k" beside and "2k" + "step" below
CURVE_PAD = 0.06                              # of each curve's span, above and below it


def _curve_range(ys) -> tuple[float, float]:
    lo, hi = float(min(ys)), float(max(ys))
    pad = (hi - lo) * CURVE_PAD or max(abs(hi) * CURVE_PAD, 1.0)
    return lo - pad, hi + pad


def _step_range(c: "Curves") -> tuple[float, float]:
    last = len(c.tokens) - 1
    return (0.0, float(last)) if last > 0 else (-0.5, 0.5)


def training_curves(trace: Trace, current: Optional[int] = None, curves: Optional[Curves] = None) -> go.Figure:
    """Total tokens in the corpus, characters per token and vocabulary size after each step.
    With `current`, that step is marked (a red dot and a dashed line): traces line, dot, line,
    dot, line, dot. Without it, the three lines alone, the same figure at every step: the page
    draws the mark over it (curve_marks). Three x axes placed side by side by hand: make_subplots
    cost 50 ms a call."""
    c = curves or curve_data(trace)
    cur = None if current is None else min(max(current, 0), len(c.tokens) - 1)
    data, layout = [], dict(height=CURVE_HEIGHT, margin=dict(CURVE_MARGIN), showlegend=False,
                            annotations=[], shapes=[])
    for i, (ys, title, (x0, x1)) in enumerate(zip((c.tokens, c.chars_per_token, c.vocab), CURVE_TITLES, _DOMAINS)):
        ax = "" if i == 0 else str(i + 1)
        x, y = c.drawn(i)
        data.append(go.Scatter(x=x, y=y, mode="lines", line=dict(width=3, color=LINE),
                               xaxis="x" + ax, yaxis="y" + ax, hovertemplate="step %{x}: %{y:,.4g}<extra></extra>"))
        if cur is not None:
            data.append(go.Scatter(x=[cur], y=[ys[cur]], mode="markers", marker=dict(size=16, color=WINNER),
                                   xaxis="x" + ax, yaxis="y" + ax,
                                   hovertemplate=f"step {cur}: %{{y:,.4g}}<extra></extra>"))
            layout["shapes"].append(dict(type="line", x0=cur, x1=cur, y0=0, y1=1, xref="x" + ax,
                                         yref=f"y{ax} domain", line=dict(color=WINNER, width=2, dash="dash")))
        layout["xaxis" + ax] = dict(domain=[x0, x1], anchor="y" + ax, title=_axis_title("step"), automargin=False,
                                    nticks=3, tickformat="~s", range=list(_step_range(c)))
        layout["yaxis" + ax] = dict(anchor="x" + ax, automargin=False, nticks=5, tickformat=".3~g" if i == 1 else "~s",
                                    tickfont=dict(size=16), range=list(_curve_range(ys)))
        layout["annotations"].append(dict(text=title, x=(x0 + x1) / 2, y=1.0, xref="paper", yref="paper",
                                          xanchor="center", yanchor="bottom", showarrow=False, font=dict(size=19)))
    return _frame(go.Figure(data=data), **layout)


def curve_marks(curves: Curves, current: int) -> str:
    """The current step on training_curves(trace, None, curves), as HTML laid over the chart (the
    page's style.css: .mg-curve-marks): on each curve a dashed red line at the step and a red dot
    at its value, placed with the figure's own margins, domains and ranges, in percentages of
    the chart's width, so it follows the chart when the page is resized.
    curve_marks(c, 3) == '<div class="mg-curve-marks" data-step="3" style="height:370px">' + six spans + '</div>'"""
    cur = min(max(current, 0), len(curves.tokens) - 1)
    m = CURVE_MARGIN
    inner = m["l"] + m["r"]
    plot_height = CURVE_HEIGHT - m["t"] - m["b"]
    s0, s1 = _step_range(curves)
    along = (cur - s0) / (s1 - s0)
    spans = []
    for ys, (x0, x1) in zip((curves.tokens, curves.chars_per_token, curves.vocab), _DOMAINS):
        lo, hi = _curve_range(ys)
        left = f"calc({m['l']}px + (100% - {inner}px) * {x0 + (x1 - x0) * along:.5f})"
        top = m["t"] + plot_height * (1 - (float(ys[cur]) - lo) / (hi - lo))
        spans.append(f'<span class="mg-mark-line" style="left:{left};top:{m["t"]}px;height:{plot_height}px"></span>'
                     f'<span class="mg-mark-dot" style="left:{left};top:{top:.1f}px"></span>')
    return (f'<div class="mg-curve-marks" data-step="{cur}" style="height:{CURVE_HEIGHT}px">' + "".join(spans)
            + "</div>")


def merge_tree(trace: Trace, token: str):
    """How a token was built: (token, left subtree, right subtree), down to the alphabet as (token,).
    The subtree of a side is the tree of that side's token as of the step that used it."""
    made_by = {t: trace.steps[k - 1] for t, k in trace.made_at.items()}   # steps[k - 1] has index k
    seen: set[str] = set()

    def build(t: str):
        s = made_by.get(t)
        if s is None or t in seen:
            return (t,)
        seen.add(t)
        node = (t, build(s.pair[0]), build(s.pair[1]))
        seen.discard(t)
        return node
    return build(token)


def merge_tree_dot(trace: Trace, token: str, shown: Optional[Callable[[str], str]] = None,
                   spelled: Optional[Callable[[str], str]] = None) -> str:
    """Graphviz DOT of merge_tree (Inspect's download; the pages draw merge_tree_html). Labels are
    quoted, so any text is safe.
    `shown(token)`: the text a node shows (byte-level tokens as their characters, labels.py);
    `spelled(token)`: the vocabulary's own spelling, second, as the node's tooltip (GPT-2's byte
    alphabet: shown "分", spelled "åĪĨ"). Without them the token is its own label."""
    shown = shown or (lambda t: t)
    steps = trace.made_at
    lines = ['digraph G {', 'rankdir=TB; node [shape=box, style="rounded,filled", fillcolor="#FFD6A5", '
             'fontname="Courier", fontsize=24, margin="0.2,0.1"]; edge [penwidth=2, color="#8a8f98"]; '
             'bgcolor="transparent";']   # the page shows through; grey edges read on light and dark
    counter = [0]

    def q(s: str) -> str:
        return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'

    def emit(node) -> str:
        counter[0] += 1
        nid = f"n{counter[0]}"
        tok = node[0]
        text = shown(tok)
        # the token quoted, then the label's own line break (a token's own \\ and n stay two characters)
        label = q(text) if len(node) == 1 else q(text)[:-1] + f'\\nstep {steps.get(tok, "?")}"'
        colour = "#CAFFBF" if len(node) == 1 else "#FFD6A5"
        alias = spelled(tok) if spelled else ""
        tooltip = f", tooltip={q('spelled ' + alias + ' in the vocabulary')}" if alias and alias != text else ""
        lines.append(f'{nid} [label={label}, fillcolor="{colour}"{tooltip}];')
        for child in node[1:]:
            lines.append(f"{nid} -> {emit(child)};")
        return nid
    emit(merge_tree(trace, token))
    lines.append("}")
    return "\n".join(lines)


def merge_tree_html(trace: Trace, token: str, shown: Optional[Callable[[str], str]] = None,
                    spelled: Optional[Callable[[str], str]] = None) -> str:
    """merge_tree as nested lists the stylesheet draws as a tree (style.css, .mg-tree): each merged
    token an orange box with the step that made it, over the two tokens it joined; the alphabet
    green. What the pages draw (merge_tree_dot is the download). `shown` and `spelled` as for
    merge_tree_dot; every text is escaped.

    Why HTML and not Graphviz (st.graphviz_chart): its text keeps its projector size (Graphviz
    shrank a wide tree to the column until it could not be read; here a wide tree is set in smaller
    type and scrolls sideways, opened on its root), one keyed panel is updated in place at each step,
    and the browser loads no layout engine for it."""
    shown = shown or (lambda t: t)
    steps = trace.made_at
    tree = merge_tree(trace, token)

    def leaves(n):
        return [n[0]] if len(n) == 1 else leaves(n[1]) + leaves(n[2])
    # the bottom row's width in character columns (each box's padding and gap about three more): a
    # tree wider than a 1024-pixel column at the usual size is drawn in smaller type, so more of it
    # shows at once (it still scrolls if need be)
    columns = sum(sum(_columns(ch) for ch in shown(t)) + 3 for t in leaves(tree))
    wide = " mg-wide" if columns > TREE_COLUMNS else ""

    def node(n) -> str:
        tok = n[0]
        text = markup.text(shown(tok))
        alias = spelled(tok) if spelled else ""
        title = (f' title="{markup.attr("spelled " + alias + " in the vocabulary")}"'
                 if alias and alias != shown(tok) else "")
        if len(n) == 1:
            return f'<li><span class="mg-node mg-symbol"{title}>{text}</span></li>'
        return (f'<li><span class="mg-node mg-merged"{title}>{text}<small>step {steps.get(tok, "?")}</small></span>'
                f'<ul>{node(n[1])}{node(n[2])}</ul></li>')
    return f'<div class="mg-tree{wide}"><ul>{node(tree)}</ul></div>'


# ---------------------------------------------------------------- Unigram (playground/unigram_view.py's steps)

UNIGRAM_TOP = 20            # pruned pieces and scores drawn (the rest in the hover-free caption)


# Fixed in pixels, as the Merges curves are (margins stated, no automargin, both axes' ranges
# stated): the figure is the same at every step and unigram_curve_marks draws the step over it
UNIGRAM_CURVE_HEIGHT = 340
UNIGRAM_CURVE_MARGIN = dict(l=58, r=12, t=70, b=62)
_UNIGRAM_DOMAINS = ((0.0, 0.42), (0.58, 1.0))   # the loss panel's tick labels sit in the gap


def _unigram_series(steps) -> tuple[list, list, list]:
    """(every step's index, the vocabulary size after it, the EM steps: those with a loss)."""
    return [it.index for it in steps], [it.size for it in steps], [it for it in steps if it.loss is not None]


def unigram_curves(steps) -> go.Figure:
    """Vocabulary size and loss after each Unigram step (seeds, EM steps, prunings, final), two
    panels side by side, as training_curves: the loss only at EM steps. The same figure at every
    step (the browser keeps it as drawn): the page draws the step's mark over it
    (unigram_curve_marks)."""
    xs, sizes, em = _unigram_series(steps)
    data = [go.Scatter(x=xs, y=sizes, mode="lines+markers", line=dict(width=3, color=LINE), marker=dict(size=7),
                       xaxis="x", yaxis="y", customdata=[it.kind for it in steps],
                       hovertemplate="step %{x} (%{customdata}): %{y:,} pieces<extra></extra>"),
            go.Scatter(x=[it.index for it in em], y=[it.loss for it in em], mode="lines+markers",
                       line=dict(width=3, color=LINE), marker=dict(size=7), xaxis="x2", yaxis="y2",
                       hovertemplate="step %{x}: loss %{y:.4f}<extra></extra>")]
    layout = dict(height=UNIGRAM_CURVE_HEIGHT, margin=dict(UNIGRAM_CURVE_MARGIN), showlegend=False, annotations=[])
    ranges = (_curve_range(sizes), _curve_range([it.loss for it in em]) if em else (0.0, 1.0))
    for ax, title, (x0, x1), y_range in zip(("", "2"), ("vocabulary size", "loss (nats a word)"),
                                            _UNIGRAM_DOMAINS, ranges):
        layout["xaxis" + ax] = dict(domain=[x0, x1], anchor="y" + ax, title=_axis_title("step"), automargin=False,
                                    tickformat="d", nticks=8, range=list(_unigram_step_range(steps)))
        # the loss in Plotly's own format, as many decimals as its ticks' spacing needs: three
        # significant digits wrote "505" on every tick of a small corpus's loss (505.1 to 505.3)
        layout["yaxis" + ax] = dict(anchor="x" + ax, automargin=False, nticks=5, tickfont=dict(size=16),
                                    range=list(y_range), **({} if ax else {"tickformat": "~s"}))
        layout["annotations"].append(dict(text=title, x=(x0 + x1) / 2, y=1.0, xref="paper", yref="paper",
                                          xanchor="center", yanchor="bottom", showarrow=False, font=dict(size=19)))
    return _frame(go.Figure(data=data), **layout)


def _unigram_step_range(steps) -> tuple[float, float]:
    return -0.5, len(steps) - 0.5


def unigram_curve_marks(steps, current: int) -> str:
    """The current step on unigram_curves(steps), as HTML laid over the chart (style.css:
    .mg-curve-marks, as curve_marks): on each panel a dashed red line at the step, and a red dot on
    the vocabulary size there and on the loss of the last EM step up to it (none before the first)."""
    cur = min(max(current, 0), len(steps) - 1)
    _, sizes, em = _unigram_series(steps)
    m = UNIGRAM_CURVE_MARGIN
    inner = m["l"] + m["r"]
    plot_height = UNIGRAM_CURVE_HEIGHT - m["t"] - m["b"]
    s0, s1 = _unigram_step_range(steps)

    def left(x0: float, x1: float, step: int) -> str:
        return f"calc({m['l']}px + (100% - {inner}px) * {x0 + (x1 - x0) * (step - s0) / (s1 - s0):.5f})"

    def top(value: float, ys) -> str:
        lo, hi = _curve_range(ys)
        return f"{m['t'] + plot_height * (1 - (float(value) - lo) / (hi - lo)):.1f}px"

    shown = [it for it in em if it.index <= cur]
    dots = [(_UNIGRAM_DOMAINS[0], cur, top(sizes[cur], sizes))]
    if shown:
        dots.append((_UNIGRAM_DOMAINS[1], shown[-1].index, top(shown[-1].loss, [it.loss for it in em])))
    spans = [f'<span class="mg-mark-line" style="left:{left(x0, x1, cur)};top:{m["t"]}px;height:{plot_height}px"></span>'
             for x0, x1 in _UNIGRAM_DOMAINS]
    spans += [f'<span class="mg-mark-dot" style="left:{left(x0, x1, at)};top:{y}"></span>' for (x0, x1), at, y in dots]
    return (f'<div class="mg-curve-marks" data-step="{cur}" style="height:{UNIGRAM_CURVE_HEIGHT}px">'
            + "".join(spans) + "</div>")


def _piece_bars_html(title: str, rows: list[tuple[str, float, str, str]]) -> str:
    """Pieces as horizontal bars in the page's HTML (style.css, .mg-bars, as pair_bars_html: a
    Plotly figure here was drawn anew at every Unigram step, most of the browser's work for one).
    rows: (piece, bar length >= 0, colour, the figure written beside it), first at the top; each
    row's hover says the piece and its figure. A piece made only of characters that draw nothing
    (a zero-width joiner, a variation selector: an emoji corpus has them) is named, as the token
    views name it: "⟨ZWJ⟩", not a blank label. Every piece of text is escaped (markup)."""
    largest = max((length for _, length, _, _ in rows), default=0.0) or 1.0
    cells = []
    for piece, length, colour, figure in rows:
        shown = show_invisible(piece)
        card = f' title="{markup.attr(f"{shown}: {figure}")}"'
        cells.append(f'<span class="mg-bar-label"{card}>{markup.text(shown)}</span>'
                     f'<span class="mg-bar-track"{card}><span class="mg-bar" style="width:{100 * length / largest:.1f}%;'
                     f'background:{colour}"></span></span><span class="mg-bar-value"{card}>{markup.text(figure)}</span>')
    return f'<div class="mg-bars"><div class="mg-bars-title">{title}</div>{"".join(cells)}</div>'


def pruned_loss_html(pruned, top: int = UNIGRAM_TOP) -> str:
    """The pieces one pruning removed, as bars of their loss (what the corpus's log-likelihood
    loses without them), smallest loss at the top; a piece no Viterbi path used has loss 0 (grey,
    "never on a best path")."""
    rows = heapq.nsmallest(top, pruned, key=lambda pl: (pl[1] if pl[1] is not None else -1.0, pl[0]))
    n = len(pruned)
    return _piece_bars_html(
        f"Pruned: {n:,} piece{'s' if n != 1 else ''}, by loss, smallest first",
        [(p, 0.0, OTHER, "never on a best path") if loss is None else (p, loss, TIED, f"loss {loss:.4g}")
         for p, loss in rows])


def piece_scores_html(pieces, top: int = UNIGRAM_TOP) -> str:
    """The pieces of one step with the highest scores (log-probabilities, all below 0), best at the
    top; a bar's length is the score's size, as the figure drew them: the best piece's bar is the
    shortest."""
    # sorted(...)[:top] without sorting every piece: a big corpus's seed pieces are hundreds of thousands
    rows = heapq.nsmallest(top, pieces, key=lambda ps: (-ps[1], ps[0]))
    return _piece_bars_html(f"The {len(rows):,} best-scored pieces of {len(pieces):,}",
                            [(p, -s, LINE, f"score {s:.4f}") for p, s in rows])


# ---------------------------------------------------------------- the token tax (pages/languages.py)

# mid-tones only: no near-white cell stands out as a white box on the dark theme (cheap: blue, dear: red)
TAX_SCALE = [[0.0, LINE], [0.3, "#F4A261"], [0.7, WINNER], [1.0, "#6A040F"]]
LANGUAGE_LABEL_WIDTH = 20    # columns of a language's name beside the heat map (the hover has it whole)
TOKENIZER_LABEL_WIDTH = 24   # columns of a tokenizer's name above it (upright: a long name costs height, not width)
TAX_ROW_PX = 24
MAX_WRITTEN_COLUMNS = 8      # more tokenizers than this: cells too narrow at 1024 px to write the ratio in


def token_tax_chart(frame, columns: list[str]) -> go.Figure:
    """Tokens per language relative to English (playground/token_tax.py's tax_table, rows in the
    order to draw, top first): a heat map, one column per tokenizer, the ratio written in each cell."""
    z = [[None if np.isnan(v) else float(v) for v in frame[c].to_numpy(dtype=float, na_value=np.nan)]
         for c in columns]     # a refused text (missing) is a blank cell
    z = [list(row) for row in zip(*z)] if columns else []
    names = list(frame["language"])
    labels = [shorten(n, LANGUAGE_LABEL_WIDTH) for n in names]
    top = max((v for row in z for v in row if v is not None), default=1.0)
    fig = go.Figure(go.Heatmap(
        # Plotly reads <b>, <a href> and <br> in labels: an imported file's name is escaped (entities
        # are drawn as the characters they stand for)
        z=z, x=[markup.text(shorten(c, TOKENIZER_LABEL_WIDTH)) for c in columns], y=[markup.text(n) for n in labels],
        customdata=[[markup.text(n)] * len(columns) for n in names],
        colorscale=TAX_SCALE, zmin=min(1.0, min((v for row in z for v in row if v is not None), default=1.0)),
        zmax=max(top, 1.5), texttemplate="%{z:.1f}" if len(columns) <= MAX_WRITTEN_COLUMNS else None,
        textfont=dict(size=13), xgap=1, ygap=1,
        colorbar=dict(title=dict(text="× English", side="right"), thickness=14, tickfont=dict(size=14)),
        hovertemplate="%{customdata}, %{x}: %{z:.2f}× the tokens of English<extra></extra>"))
    # no figure title: the page's heading says what it is, and a title fought the tokenizers'
    # slanted names above the columns for the same strip at 1024 pixels
    return _frame(fig, height=TAX_ROW_PX * len(names) + 130, margin=dict(l=4, r=4, t=10, b=10),
                  xaxis=dict(side="top", tickangle=-90, tickfont=dict(size=14), automargin=True),   # upright: slanted names
                  # overlapped their neighbours at 1024 px (tests/browser/test_look.py)
                  yaxis=dict(autorange="reversed", tickfont=dict(size=14), automargin=True))


def bytes_per_token_chart(curves: dict) -> go.Figure:
    """Trained tokenizers on held-out text: bytes per token (up: longer tokens) against vocabulary
    size, one line per tokenizer (label -> token_tax.bytes_per_token frame)."""
    fig = go.Figure()
    palette = [LINE, WINNER, TIED, OTHER]
    for k, (label, frame) in enumerate(curves.items()):
        fig.add_trace(go.Scatter(x=frame["vocabulary"].tolist(), y=frame["bytes_per_token"].tolist(), mode="lines+markers", name=label,
                                 line=dict(color=palette[k % len(palette)], width=3), marker=dict(size=8),
                                 customdata=frame["coverage"].tolist(),
                                 hovertemplate=f"{label}: %{{x:,}} tokens in the vocabulary, "
                                               "%{y:.2f} bytes per token (on %{customdata:.0%} of the text)"
                                               "<extra></extra>"))
    return _frame(fig, height=360, margin=dict(l=4, r=10, t=60, b=10),
                  title=_title("Bytes per token on held-out text"),
                  legend=dict(orientation="h", y=-0.25, x=0, font=dict(size=15)),
                  xaxis=dict(title=_axis_title("vocabulary size"), automargin=True, tickformat="~s"),
                  yaxis=dict(title=_axis_title("bytes per token"), automargin=True, rangemode="tozero"))
