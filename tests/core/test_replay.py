"""core/replay.py: a chunk's merges replayed from the contract alone end where the tokenizer's own
encode ends, for every BPE kind the app trains, imports and ships (byte-level or not, `</w>`,
SentencePiece with byte fallback, tiktoken ranks); each step merges an adjacent pair of the split
before it, and no step has a lower rank than one the merges could have taken instead."""
from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest

from core.replay import replay_chunk, replay_text, replayable
from core.pretrained import load_pretrained
from tests.core.test_contract import KINDS, PROBES, _kind

UDHR = json.loads((Path(__file__).resolve().parents[2] / "data" / "udhr.json").read_text(encoding="utf-8"))
TEXTS = PROBES + ["lowest newest widest  double  spaces\n\n  lead", "a   b x  "] + \
    [lang["text"][:240] for lang in UDHR["languages"][::3]]
# every kind but the ones that do not merge, and seed 002's greedy encoder (not a merge order)
NOT_BPE = ("trained:wordpiece", "trained:unigram", "trained:bbpe-greedy", "imported:vocab-txt",
           "pretrained:bert-base-uncased", "pretrained:jurassic-2")
BPE_KINDS = [k for k in KINDS if k not in NOT_BPE]


@pytest.fixture(scope="module", params=BPE_KINDS)
def bpe(request, tmp_path_factory):
    return _kind(request, tmp_path_factory, defaultdict(lambda: None))[0]


def test_every_kind_here_is_a_bpe_and_the_others_are_refused_with_a_reason(bpe):
    assert replayable(bpe) is None
    for name in ("bert-base-uncased", "jurassic-2"):
        why = replayable(load_pretrained(name))
        assert why and "does not merge" in why


@pytest.mark.parametrize("text", TEXTS)
def test_the_last_step_is_what_encode_gives(bpe, text):
    try:
        want = list(bpe.encode(text).ids)
    except Exception as e:   # noqa: BLE001 - a trained vocabulary without an unknown token refuses
        pytest.fail(f"{bpe.name} refused {text!r}: {e}")
    got = [bpe.token_to_id(t) for r in replay_text(bpe, text) for t in r.final]
    assert got == want, (text, [t for r in replay_text(bpe, text) for t in r.final], list(bpe.encode(text).tokens))


def test_each_step_merges_the_lowest_ranked_pair_of_the_split_before_it(bpe):
    for text in TEXTS[:6]:
        for chunk in bpe.front(text).chunks:
            r = replay_chunk(bpe, chunk)
            before = r.start
            for k, s in enumerate(r.steps, 1):
                assert s.split == r.split_at(k)
                if s.whole:      # the lookup of the whole chunk: last, one token
                    assert k == len(r.steps) and s.split == ("".join(r.start),)
                    continue
                assert before[s.position:s.position + 2] == (s.left, s.right)
                assert s.split == before[:s.position] + (s.token,) + before[s.position + 2:]
                assert bpe.made_at(bpe.token_to_id(s.token)) == s.rank
                others = [bpe.made_at(i) for a, b in zip(before, before[1:])
                          if (i := bpe.token_to_id(a + b)) is not None]
                assert s.rank == min(x for x in others if x is not None)
                before = s.split
