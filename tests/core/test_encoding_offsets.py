"""core/encoding.py's offset conversions against the plain per-character loops they replaced
(the tables are now built by C loops and cached per text)."""
from __future__ import annotations

from itertools import accumulate

from hypothesis import given, settings, strategies as st

from core.encoding import byte_offsets_to_char_offsets, byte_spans


def char_offsets_by_loop(text, spans):
    char_of_byte = []
    for i, ch in enumerate(text):
        char_of_byte.extend([i] * len(ch.encode("utf-8", "surrogatepass")))
    n, out = len(char_of_byte), []
    for s, e in spans:
        if s >= e or s >= n:
            pos = char_of_byte[s] if s < n else len(text)
            out.append((pos, pos))
        else:
            out.append((char_of_byte[s], char_of_byte[min(e, n) - 1] + 1))
    return out


TEXTS = st.text(alphabet=st.characters(codec=None, blacklist_categories=()), max_size=40)


@settings(max_examples=300, deadline=None)
@given(TEXTS, st.data())
def test_byte_spans_map_to_the_characters_the_loop_finds(text, data):
    size = len(text.encode("utf-8", "surrogatepass"))
    spans = data.draw(st.lists(st.tuples(st.integers(0, size + 2), st.integers(0, size + 2)), max_size=12))
    assert byte_offsets_to_char_offsets(text, spans) == char_offsets_by_loop(text, spans)


@settings(max_examples=300, deadline=None)
@given(TEXTS)
def test_each_character_as_a_token_gives_its_own_bytes(text):
    sizes = [len(c.encode("utf-8", "surrogatepass")) for c in text]
    starts = [0, *accumulate(sizes)]
    offsets = [(i, i + 1) for i in range(len(text))]
    pieces = [c.encode("utf-8", "surrogatepass") for c in text]
    assert byte_spans(text, offsets, pieces) == tuple(zip(starts, starts[1:]))


def test_a_byte_level_split_character_shares_its_bytes_in_order():
    assert byte_spans("é", [(0, 1), (0, 1)], [b"\xc3", b"\xa9"]) == ((0, 1), (1, 2))
    assert byte_offsets_to_char_offsets("é", [(0, 1), (1, 2)]) == [(0, 1), (0, 1)]
    assert byte_offsets_to_char_offsets("aé", [(3, 3), (9, 9)]) == [(2, 2), (2, 2)]
