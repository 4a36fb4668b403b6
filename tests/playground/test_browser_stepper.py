"""How the browser-drawn stepper (the Merges and the Unigram pages) carries a step's HTML
(playground/browser_stepper.py: pack, unpack): the corpus's boxes packed, losslessly, on real corpus
HTML of every model and on any string.
(The stepper's protocol is tests/app/test_merges_page.py's; its script's join of the pieces,
test_merges_keys.py's first step.)"""
import json

import pytest
from hypothesis import given, strategies as st

from core.presets import get_preset, words_for
from core.trainer import MODELS, train
from playground import browser_stepper, stepper
from playground.browser_stepper import BOX_START, pack, unpack


@pytest.mark.parametrize("model", MODELS)
def test_a_corpus_at_a_step_is_sent_packed_and_unpacks_to_itself(model):
    preset = get_preset("english")
    config = preset.configs()[model]
    trace = train(words_for(preset, config), config)
    for k in (0, 1, len(trace.steps)):
        html = stepper.corpus_view(trace, k, preset.corpus_text()).html
        packed = pack(html)
        assert isinstance(packed, dict) and unpack(packed) == html
        # a box's piece is sent once, however often the box is drawn
        assert len(packed["pieces"]) < len(packed["order"]) == html.count(BOX_START) + 1
        assert len(json.dumps(packed)) < len(json.dumps(html)) / (2 if k == 0 else 1)   # characters: many alike


def test_short_or_unrepeated_html_is_sent_as_it_is():
    assert pack("<b>step</b>") == "<b>step</b>"
    distinct = "".join(f'{BOX_START}tp-c1 tp-id{i}">{chr(0x4E00 + i)}</span>' for i in range(400))
    assert len(distinct) > browser_stepper.PACK_OVER and pack(distinct) == distinct


@given(st.lists(st.sampled_from([BOX_START, BOX_START[:7], "a", "&lt;", "</span>", " ", "é", '"', "{"]),
                max_size=80).map("".join))
def test_unpack_of_pack_is_the_html_whatever_it_holds(html):
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(browser_stepper, "PACK_OVER", 0)   # pack every string this long
        assert unpack(pack(html)) == html
