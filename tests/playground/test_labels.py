"""Tokens in any script (playground.labels, stepper with a tokenizer): a byte-level token that is
whole UTF-8 characters reads as those characters, a partial one as its bytes and the character
they belong to; the byte-alphabet spelling is kept second (tooltip). Chinese, Hindi, emoji."""
import re

from core.corpus import count_words
from core.trainer import TrainConfig, train
from playground import charts, labels, markup, merges_control, stepper
from tests.support import bar_labels


def trained(text: str, merges: int = 40, model: str = "bbpe"):
    cfg = TrainConfig(model=model, vocab_size=10_000, max_merges=merges)
    trace = train(count_words(text, cfg.resolved().pre_tokenizer), cfg)
    return trace, stepper.tokenizer_at(trace, len(trace.steps))


def test_readable_and_character_of():
    assert labels.readable("分".encode()) == "分"
    assert labels.readable(b"\xe5\x88") == "<0xE5><0x88>"
    assert labels.readable(b" a\xe5") == "⋅a<0xE5>"
    assert labels.character_of(b"\xe5\x88", "分词") == "分"
    assert labels.character_of("分".encode(), "分词") == ""              # whole: nothing to name
    assert labels.character_of(b"\x88\x86\xe8", "分词") == "分词"         # the end of one, the start of the next
    # a pair is placed by where it occurs: the second byte is 字's, not another character's
    a, b = labels.label_run(["åŃ", "Ĺ"], ["字".encode()[:2], "字".encode()[2:]], True, "计算机并不认识文字")
    assert (a.shown, b.shown) == ("<0xE5><0xAD> of 字", "<0x97> of 字")
    assert a.alias == "åŃ" and "åŃ" in a.title
    assert labels.label("est</w>", b"est", False).shown == "est</w>"   # not byte-level: as spelled


def test_chinese_steps_read_as_characters():
    trace, tok = trained("分词是自然语言处理的第一步。分词很重要，分词很难。" * 3)
    sentences = [stepper.describe_step(trace, k, None, tok) for k in range(1, len(trace.steps) + 1)]
    for s in sentences:
        assert not any(c in s.text for c in "åäèçĪŃ"), s.text          # no byte aliases first
    # the first merge joins two bytes of a character: named with its character
    assert "<0x" in sentences[0].text and " of " in sentences[0].text
    # some merge completes 分: shown as the character, its alias in the tooltip
    done = [s for s in sentences if "→ 分," in s.text]
    assert done and 'title="spelled åĪĨ in the vocabulary' in done[0].html
    # the words a merge changed read as characters too
    step = next(s for s in trace.steps if s.token == "åĪĨ")
    html = stepper.changed_html(stepper.changed_rows(trace, step, tokenizer=tok))
    shown = re.sub(r"<[^>]+>", "", html)
    assert "分" in shown and not any(c in shown for c in "åĪĨ")          # read as characters…
    assert 'title="spelled åĪĨ"' in html                                  # …the alias in the tooltip
    assert 'class="mg-pair mg-split" title="bytes E5 88 | 86 · spelled åĪ Ĩ">分<' in html   # still split before


def test_hindi_and_emoji():
    trace, tok = trained("नमस्ते दुनिया नमस्ते भारत नमस्ते " * 4 + "👍🏽 👍🏽 🎉 🎉 🎉 " * 3, merges=80)
    texts = [stepper.describe_step(trace, k, None, tok).text for k in range(1, len(trace.steps) + 1)]
    joined = " ".join(texts)
    assert "न" in joined or "स्" in joined or "नम" in joined              # Devanagari read as itself
    assert "🎉" in joined or "of 🎉" in joined
    for t in texts:
        assert "à¤" not in t and "ðŁ" not in t, t                       # no aliases of Hindi or emoji
    emoji_steps = [t for t in texts if "of 🎉" in t or "of 👍" in t]
    assert emoji_steps                                                   # partial emoji bytes: named


def test_groups_join_the_tokens_of_one_character():
    g = labels.groups([b"\xe5\x88", b"\x86", b"a", "词".encode()])
    assert [(x.indices, x.text, x.split, x.parts) for x in g] == [
        ((0, 1), "分", True, "E5 88 | 86"), ((2,), "a", False, "61"), ((3,), "词", False, "E8 AF 8D")]


def test_pair_chart_labels_and_title():
    trace, tok = trained("分词是自然语言处理的第一步。分词很重要。" * 3)
    step = trace.steps[0]
    facts = merges_control.TraceFacts(token_ids=trace.token_to_id, curves=None, merged=(), made_at={},
                                      tokenizer=tok)
    pairs = merges_control.pair_labels(trace, step, facts, 3)
    assert pairs[0][0].startswith("⟨") and "(of " in pairs[0][0] and pairs[0][1] == f"{step.pair[0]} + {step.pair[1]}"
    assert charts.top_pairs_title(1, "count") == "The top pair by count"
    assert charts.top_pairs_title(8, "score") == "The top 8 pairs by score"


def test_byte_level_pair_chart_labels_every_bar():
    """The pair chart of a byte-level trace names each bar by its readable label, the vocabulary's
    spelling in the hover (merges_control.pair_chart's HTML)."""
    trace, tok = trained("分词是自然语言处理的第一步。分词很重要。" * 3)
    step = trace.steps[0]
    facts = merges_control.TraceFacts(token_ids=trace.token_to_id, curves=None, merged=(), made_at={},
                                      tokenizer=tok)
    pairs = merges_control.pair_labels(trace, step, facts, len(step.candidates))
    html = charts.pair_bars_html(step, None, labels=[p for p, _ in pairs], spelled=[a for _, a in pairs])
    shown = list(zip(re.findall(r'<span class="mg-bar-label" title="([^"]*)">', html), bar_labels(html), strict=True))
    assert [label for _, label in shown] == [markup.text(p) for p, _ in pairs] and shown[0][1].startswith("⟨")
    for (hover, _), (label, alias) in zip(shown, pairs):
        assert hover.startswith(markup.attr(label) + ": count ") and hover.endswith(f"(spelled {markup.attr(alias)})")


def test_corpus_at_a_step_reads_as_characters():
    text = "分词是自然语言处理的第一步。分词很重要。"
    trace, _ = trained(text * 3, merges=3)
    view = stepper.corpus_view(trace, 1, text)
    shown = re.sub(r"<[^>]+>", "", view.html.split("</style>", 1)[1])
    assert "<0x" not in shown and "&lt;0x" not in shown and "分词" in shown.replace(" ", "")
    assert view.made >= 1 and "tp-hl" in view.html      # the first merge's bytes: their characters outlined


def test_merge_tree_reads_as_characters():
    """The merge tree of a Chinese byte-level token shows 分, its byte halves as bytes of 分, and
    the GPT-2 spelling only as each node's tooltip."""
    trace, tok = trained("分词是自然语言处理的第一步。分词很重要，分词很难。" * 3)
    facts = merges_control.TraceFacts(token_ids=trace.token_to_id, curves=None, merged=(),
                                      made_at=trace.made_at, tokenizer=tok)
    dot = charts.merge_tree_dot(trace, "åĪĨ", shown=lambda t: merges_control.token_text(trace, facts, t),
                                spelled=stepper.show_token)
    labels_drawn = re.findall(r'label="([^"]*)"', dot)
    assert labels_drawn[0].startswith("分\\nstep ")
    assert any(text.startswith("<0xE5><0x88> of 分") for text in labels_drawn)
    assert not any(c in "".join(labels_drawn) for c in "åĪĨ")
    assert 'tooltip="spelled åĪĨ in the vocabulary"' in dot
    assert 'label="åĪĨ' in charts.merge_tree_dot(trace, "åĪĨ")        # without labels: as spelled
    # the tree the pages draw (HTML) reads the same: characters in the boxes, the spelling in the tooltip
    tree = charts.merge_tree_html(trace, "åĪĨ", shown=lambda t: merges_control.token_text(trace, facts, t),
                                  spelled=stepper.show_token)
    boxes = re.findall(r'<span class="mg-node[^"]*"[^>]*>(.*?)</span>', tree)
    assert boxes[0].startswith("分<small>step ") and any(b.startswith("&lt;0xE5&gt;&lt;0x88&gt; of 分") for b in boxes)
    assert not any(c in "".join(boxes) for c in "åĪĨ") and 'title="spelled åĪĨ in the vocabulary"' in tree
