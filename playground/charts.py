"""Chart builders: plain functions from trace records to Plotly figures (tested without a browser).

Fonts are large and colours few and strong: these charts are read from the back of a room.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np
import plotly.graph_objects as go

from core.trainer import MergeStep, Trace

FONT = dict(size=18)
WINNER, TIED, OTHER = "#C1121F", "#F4A261", "#8D99AE"
MAX_CURVE_POINTS = 1500
LABELLED_POINTS = 5


def pair_label(pair: tuple[str, str]) -> str:
    return f"{pair[0]} + {pair[1]}"


def _value(c, score_rule: Optional[str]):
    return float(c.score) if score_rule == "likelihood" else c.count


def pair_frequency_chart(step: MergeStep, score_rule: Optional[str] = None, top: Optional[int] = None) -> go.Figure:
    """Top-K candidate pairs of one step as horizontal bars, best at the top: the winner in red,
    the pairs that tied with it in orange. WordPiece likelihood ranks by score, so bars show it.
    `top`: draw only the first `top` candidates (three charts side by side)."""
    cands = list(step.candidates)[:top]
    best = _value(cands[0], score_rule) if cands else None
    colours = [WINNER if i == 0 else TIED if _value(c, score_rule) == best else OTHER for i, c in enumerate(cands)]
    values = [_value(c, score_rule) for c in cands]
    if score_rule != "likelihood":
        text = [f"{c.count:,}" for c in cands]
    elif top is not None:   # a narrow chart: the score alone
        text = [f"{float(c.score):.3g}" for c in cands]
    else:
        text = [f"{float(c.score):.4g} (count {c.count:,})" for c in cands]
    fig = go.Figure(go.Bar(x=values[::-1], y=[pair_label(c.pair) for c in cands][::-1], orientation="h",
                           marker_color=colours[::-1], text=text[::-1], textposition="auto",
                           hovertemplate="%{y}: %{x}<extra></extra>"))
    fig.update_layout(font=FONT, height=max(260, 48 * len(cands) + 90), margin=dict(l=10, r=10, t=50, b=40),
                      title=dict(text=f"Top {len(cands)} pairs by {'score' if score_rule == 'likelihood' else 'count'}",
                                 font=dict(size=20)),
                      xaxis_title="score" if score_rule == "likelihood" else "count", yaxis=dict(automargin=True))
    return fig


def count_vs_score_chart(step: MergeStep) -> go.Figure:
    """WordPiece: each candidate's count against its likelihood score. A rare pair of rare symbols
    scores high: that is why it can win over a frequent one. Traces: the winner (red), the pairs
    tied with it (orange), the others (grey); pairs at the same point share one label."""
    cands = list(step.candidates)
    if not cands:
        return go.Figure()
    best = cands[0].score
    labels: dict[tuple, list[str]] = {}
    for c in cands:
        labels.setdefault((c.count, c.score), []).append(pair_label(c.pair))
    fig = go.Figure()
    groups = ((cands[:1], WINNER, 20, "winner"),
              ([c for c in cands[1:] if c.score == best], TIED, 15, "tied"),
              ([c for c in cands[1:] if c.score != best], OTHER, 13, "other"))
    done: set = set()
    labelled = set(cands[:LABELLED_POINTS])   # the rest: hover for the pair (labels would pile up)
    for members, colour, size, name in groups:
        if not members:
            continue
        text = []
        for c in members:
            key = (c.count, c.score)
            text.append("" if key in done or c not in labelled else ", ".join(labels[key]))
            done.add(key)
        fig.add_trace(go.Scatter(x=[c.count for c in members], y=[float(c.score) for c in members], name=name,
                                 mode="markers+text", text=text, textposition="top center", showlegend=False,
                                 textfont=dict(size=15), cliponaxis=False,
                                 customdata=[pair_label(c.pair) for c in members],
                                 hovertemplate="%{customdata}: count %{x}, score %{y:.4g}<extra></extra>",
                                 marker=dict(size=size, color=colour, line=dict(width=1, color="#222"))))
    fig.update_layout(font=FONT, height=max(300, 48 * len(cands) + 90), margin=dict(l=10, r=30, t=50, b=40),
                      title=dict(text="Count against score", font=dict(size=20)),
                      xaxis=dict(title=dict(text="pair count"), rangemode="tozero"),
                      yaxis=dict(title=dict(text="score"), rangemode="tozero", automargin=True))
    return fig


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
_DOMAINS = ((0.0, 0.28), (0.36, 0.64), (0.72, 1.0))


def training_curves(trace: Trace, current: int, curves: Optional[Curves] = None) -> go.Figure:
    """Total tokens in the corpus, characters per token and vocabulary size after each step,
    with the current step marked (a red dot and a dashed line). Traces: line, dot, line, dot,
    line, dot. Three x axes placed side by side by hand: make_subplots cost 50 ms a call."""
    c = curves or curve_data(trace)
    cur = min(max(current, 0), len(c.tokens) - 1)
    data, layout = [], dict(font=FONT, height=360, margin=dict(l=10, r=10, t=80, b=40), showlegend=False,
                            annotations=[], shapes=[])
    for i, (ys, title, (x0, x1)) in enumerate(zip((c.tokens, c.chars_per_token, c.vocab), CURVE_TITLES, _DOMAINS)):
        ax = "" if i == 0 else str(i + 1)
        x, y = c.drawn(i)
        data.append(go.Scatter(x=x, y=y, mode="lines", line=dict(width=3, color="#264653"),
                               xaxis="x" + ax, yaxis="y" + ax, hovertemplate="step %{x}: %{y:,.4g}<extra></extra>"))
        data.append(go.Scatter(x=[cur], y=[ys[cur]], mode="markers", marker=dict(size=16, color=WINNER),
                               xaxis="x" + ax, yaxis="y" + ax, hovertemplate=f"step {cur}: %{{y:,.4g}}<extra></extra>"))
        layout["xaxis" + ax] = dict(domain=[x0, x1], anchor="y" + ax, title=dict(text="step"))
        layout["yaxis" + ax] = dict(anchor="x" + ax, automargin=True)
        layout["annotations"].append(dict(text=title, x=(x0 + x1) / 2, y=1.0, xref="paper", yref="paper",
                                          xanchor="center", yanchor="bottom", showarrow=False, font=dict(size=19)))
        layout["shapes"].append(dict(type="line", x0=cur, x1=cur, y0=0, y1=1, xref="x" + ax, yref=f"y{ax} domain",
                                     line=dict(color=WINNER, width=2, dash="dash")))
    return go.Figure(data=data, layout=layout)


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


def merge_tree_dot(trace: Trace, token: str) -> str:
    """Graphviz DOT of merge_tree (st.graphviz_chart draws it). Labels are quoted, so any text is safe."""
    steps = trace.made_at
    lines = ['digraph G {', 'rankdir=TB; node [shape=box, style="rounded,filled", fillcolor="#FFD6A5", '
             'fontname="Courier", fontsize=24, margin="0.2,0.1"]; edge [penwidth=2];']
    counter = [0]

    def q(s: str) -> str:
        return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'

    def emit(node) -> str:
        counter[0] += 1
        nid = f"n{counter[0]}"
        tok = node[0]
        label = tok if len(node) == 1 else f"{tok}\\nstep {steps.get(tok, '?')}"
        colour = "#CAFFBF" if len(node) == 1 else "#FFD6A5"
        lines.append(f'{nid} [label={q(label).replace(chr(92)*2 + "n", chr(92) + "n")}, fillcolor="{colour}"];')
        for child in node[1:]:
            lines.append(f"{nid} -> {emit(child)};")
        return nid
    emit(merge_tree(trace, token))
    lines.append("}")
    return "\n".join(lines)
