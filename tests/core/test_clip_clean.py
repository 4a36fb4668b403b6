"""CLIP's cleaning (core/pretrained.py::_clip_clean) takes runs of plain ASCII whole; it must give
what the cluster-by-cluster loop gives, character spans included, next to any mark or emoji."""
from __future__ import annotations

import html
import re

import regex
from hypothesis import given, settings, strategies as st

from core.pretrained import _clip_clean, _ftfy_piece

GRAPHEME = regex.compile(r"\X")


def clusters_one_by_one(text):
    parts, spans = [], []
    for m in GRAPHEME.finditer(text):
        g = m.group()
        out = g if (g.isascii() and g.isprintable() and g != "&") else _ftfy_piece(g)
        parts.append(out)
        spans.extend([m.span()] * len(out))
    return "".join(parts), spans


# ASCII next to what joins a cluster: combining marks, a prepended Arabic sign, ZWJ emoji, CR LF
PIECES = st.sampled_from(["a", "b", " ", "  ", "&", "&amp;", "x1", "\r\n", "\n", "\t", "\u0301", "\u0600",
                          "\u0915\u094d", "👍", "🏽", "\u200d", "🇨", "🇳", "é", "Ç", "İ", "ﬁ", "Ã©"])


@settings(max_examples=400, deadline=None)
@given(st.lists(PIECES, max_size=20).map("".join))
def test_plain_ascii_runs_split_where_clusters_do(text):
    import ftfy
    joined, spans = clusters_one_by_one(text)
    cleaned, out_spans = _clip_clean(text)
    if joined == html.unescape(html.unescape(ftfy.fix_text(text))):    # the aligned case: spans by cluster
        reference = []
        for m in re.finditer(r"\S+", joined):
            if reference:
                a, b = reference[-1][1], spans[m.start()][0]
                reference.append((min(a, b), max(a, b)))
            for k in range(*m.span()):
                reference.extend([spans[k]] * len(joined[k].lower()))
        assert out_spans == reference
    assert len(cleaned) == len(out_spans)


def test_a_mark_after_plain_ascii_stays_with_its_letter():
    cleaned, spans = _clip_clean("abcde\u0301 xyz")
    assert cleaned == "abcdé xyz"
    assert spans[4] == (4, 6)      # é comes from e + the combining accent
    assert spans[:4] == [(0, 1), (1, 2), (2, 3), (3, 4)]


def test_a_prepended_sign_stays_with_the_letter_after_it():
    assert _clip_clean("\u0600abcd") == ("\u0600abcd", [(0, 2), (0, 2), (2, 3), (3, 4), (4, 5)])


def test_text_that_ftfy_removes_still_belongs_to_a_character():
    # "Â\x8d" is U+008D's UTF-8 read as Latin-1: ftfy repairs it to "\x8d", and the Â goes with it
    assert _clip_clean("Â\x8d") == ("\x8d", [(0, 2)])
    assert _clip_clean("ab Â\x8d") == ("ab \x8d", [(0, 1), (1, 2), (2, 3), (3, 5)])
