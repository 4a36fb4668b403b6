"""The Merges page (AppTest) on Chinese and emoji presets: byte-level BPE's steps read as
characters (or bytes with their character), never as GPT-2's byte aliases first; the pair chart
says "The top pair" in words and labels its bars readably."""
import html
import re

from streamlit.testing.v1 import AppTest

from playground import merges_control, state
from tests.support import APP, bar_labels, drawn_html, tell

ALIASES = "åäèçéæĪŃĹĺ¸¯¼ðŁ"


def trained(key: str) -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=120)
    at.run()
    at.selectbox(key="corpus_preset").set_value(key)
    at.button(key="corpus_load_preset").click().run()
    at.button(key="corpus_train").click().run()
    assert not at.exception
    at.switch_page("pages/merges.py").run()
    at.button_group(key="merges_model").set_value("bbpe").run()
    assert not at.exception
    return at


def sentence(at: AppTest) -> str:
    for body in drawn_html(at):
        found = re.search(r'<div class="mg-sentence[^"]*" data-step="\d+">(.*)</div>', body, re.S)
        if found:
            return html.unescape(re.sub(r"<[^>]+>", "", found.group(1)))
    raise AssertionError("no sentence")


def walk(at: AppTest, steps) -> list[str]:
    out = []
    for k in steps:
        tell(at, step=k)
        assert not at.exception
        out.append(sentence(at))
    return out


def test_chinese_byte_level_reads_as_characters():
    at = trained("chinese")
    n = len(state.get_results(at.session_state).trace("bbpe").steps)
    texts = walk(at, range(1, min(n, 40) + 1))
    for t in texts:
        assert not any(c in t for c in ALIASES), t
    assert "<0x" in texts[0] and " of " in texts[0]          # bytes first, with their character
    assert any(re.search(r"→ [\u4e00-\u9fff，。]+, id", t) for t in texts)   # whole characters as such
    [chart] = [h for h in drawn_html(at) if 'class="mg-bars' in h]
    assert "The top" in chart and "Top 1 pairs" not in chart
    shown = bar_labels(chart)
    assert shown and not any(c in "".join(shown) for c in ALIASES)      # the pairs read as characters
    # the merge tree picker offers the merged tokens in merge order, each read as the page reads it
    # (its labels are made once per trace, TraceFacts.tree_labels, not at every step)
    results = state.get_results(at.session_state)
    trace = results.trace("bbpe")
    facts = merges_control.facts_of(results, trace)
    offered = at.selectbox(key="merges_tree_token").options[1:]
    assert len(offered) == min(len(facts.merged), merges_control.TREE_CHOICES) > 0
    assert offered == [merges_control.token_text(trace, facts, t) for t in facts.merged[:len(offered)]]
    assert not any(c in "".join(offered) for c in ALIASES)


def test_emoji_byte_level_reads_as_characters():
    at = trained("emoji")
    n = len(state.get_results(at.session_state).trace("bbpe").steps)
    texts = walk(at, range(1, n + 1, max(1, n // 30)))
    for t in texts:
        assert "ðŁ" not in t and "à¤" not in t, t
    assert any(" of " in t for t in texts)
