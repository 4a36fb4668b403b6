"""Chart builders: plain functions from trace records to Plotly figures (tested without a browser).

Fonts are large and colours few and strong: these charts are read from the back of a room.
"""
from __future__ import annotations

from typing import Optional

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from core.trainer import MergeStep, Trace

FONT = dict(size=18)
WINNER, TIED, OTHER = "#C1121F", "#F4A261", "#8D99AE"
MAX_CURVE_POINTS = 1500


def pair_label(pair: tuple[str, str]) -> str:
    return f"{pair[0]} + {pair[1]}"


def _value(c, score_rule: Optional[str]):
    return float(c.score) if score_rule == "likelihood" else c.count


def pair_frequency_chart(step: MergeStep, score_rule: Optional[str] = None) -> go.Figure:
    """Top-K candidate pairs of one step as horizontal bars, best at the top: the winner in red,
    the pairs that tied with it in orange. WordPiece likelihood ranks by score, so bars show it."""
    cands = list(step.candidates)
    best = _value(cands[0], score_rule) if cands else None
    colours = [WINNER if i == 0 else TIED if _value(c, score_rule) == best else OTHER for i, c in enumerate(cands)]
    values = [_value(c, score_rule) for c in cands]
    text = [f"{c.count}" if score_rule != "likelihood" else f"{float(c.score):.4g} (count {c.count})" for c in cands]
    fig = go.Figure(go.Bar(x=values[::-1], y=[pair_label(c.pair) for c in cands][::-1], orientation="h",
                           marker_color=colours[::-1], text=text[::-1], textposition="auto",
                           hovertemplate="%{y}: %{x}<extra></extra>"))
    fig.update_layout(font=FONT, height=max(260, 48 * len(cands) + 90), margin=dict(l=10, r=10, t=50, b=40),
                      title=dict(text=f"Step {step.index}: top {len(cands)} pairs by "
                                      f"{'score' if score_rule == 'likelihood' else 'count'}", font=dict(size=20)),
                      xaxis_title="score" if score_rule == "likelihood" else "count", yaxis=dict(automargin=True))
    return fig


def count_vs_score_chart(step: MergeStep) -> go.Figure:
    """WordPiece: each candidate's count against its likelihood score. A rare pair of rare symbols
    scores high: that is why it can win over a frequent one."""
    cands = list(step.candidates)
    fig = go.Figure()
    for i, c in enumerate(cands):
        fig.add_trace(go.Scatter(x=[c.count], y=[float(c.score)], mode="markers+text", text=[pair_label(c.pair)],
                                 textposition="top center", showlegend=False,
                                 marker=dict(size=18 if i == 0 else 13, color=WINNER if i == 0 else OTHER,
                                             line=dict(width=1, color="#222"))))
    fig.update_layout(font=FONT, height=420, margin=dict(l=10, r=10, t=50, b=50),
                      title=dict(text="Count against score (winner in red)", font=dict(size=20)),
                      xaxis_title="pair count", yaxis_title="score = count / (count(x)·count(y))")
    return fig


def _thin(xs: list[int]) -> list[int]:
    if len(xs) <= MAX_CURVE_POINTS:
        return xs
    stride = len(xs) / MAX_CURVE_POINTS
    keep = sorted({xs[int(i * stride)] for i in range(MAX_CURVE_POINTS)} | {xs[-1]})
    return keep


def corpus_characters(trace: Trace) -> int:
    return sum(len(w) * c for w, c in trace.words.as_pairs())


def training_curves(trace: Trace, current: int) -> go.Figure:
    """Total tokens in the corpus, characters per token and vocabulary size after each step,
    with the current step marked."""
    steps = trace.steps
    base_vocab = len(trace.special_tokens) + len(trace.alphabet)
    totals = [trace.initial_total_tokens] + [s.total_tokens for s in steps]
    vocab = [base_vocab] + [s.vocab_size for s in steps]
    chars = corpus_characters(trace)
    xs = _thin(list(range(len(totals))))
    fig = make_subplots(rows=1, cols=3, subplot_titles=("tokens in the corpus", "characters per token",
                                                         "vocabulary size"))
    series = (totals, [chars / t if t else 0 for t in totals], vocab)
    for col, ys in enumerate(series, start=1):
        fig.add_trace(go.Scatter(x=xs, y=[ys[x] for x in xs], mode="lines", line=dict(width=3, color="#264653"),
                                 showlegend=False), row=1, col=col)
        cur = min(max(current, 0), len(ys) - 1)
        fig.add_trace(go.Scatter(x=[cur], y=[ys[cur]], mode="markers", marker=dict(size=16, color=WINNER),
                                 showlegend=False, hovertemplate=f"step {cur}: %{{y:,.4g}}<extra></extra>"),
                      row=1, col=col)
    fig.update_layout(font=FONT, height=330, margin=dict(l=10, r=10, t=60, b=40))
    fig.update_annotations(font_size=19)
    fig.update_xaxes(title_text="step")
    return fig


def merge_tree(trace: Trace, token: str):
    """How a token was built: (token, left subtree, right subtree), down to the alphabet as (token,).
    The subtree of a side is the tree of that side's token as of the step that used it."""
    made_by = {}
    for s in trace.steps:
        made_by.setdefault(s.token, s)  # the first merge that made it (a later one may remake it)
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
    steps = {}
    for s in trace.steps:
        steps.setdefault(s.token, s.index)
    lines = ['digraph G {', 'rankdir=TB; node [shape=box, style="rounded,filled", fillcolor="#FFD6A5", '
             'fontname="monospace", fontsize=20];']
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
