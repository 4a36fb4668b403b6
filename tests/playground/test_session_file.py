"""playground/session_file.py: a session saved to one JSON file loads back into the same state;
a truncated, binary, foreign or newer file is refused with a message and changes nothing."""
import json

import pytest

from core.corpus import WordCounts, count_words
from core.encoders import TrainedTokenizer
from core.errors import TokenizerFileError
from core.formats import load_tokenizer_bytes
from core.trainer import MODELS, TrainConfig, train
from playground import session_file as sf
from playground import state, views
from playground.inspect import export_files
from playground.state import Corpus, Results, Settings

TEXT = "low low low low low lower lower newest newest newest newest newest newest widest widest widest 我喜欢 😀\n"


def _results(corpus: Corpus, settings: Settings) -> Results:
    traces = {}
    for m in MODELS:
        cfg = settings.for_model(m).resolved()
        traces[m] = train(count_words(corpus.text, cfg.pre_tokenizer, cfg.normalizer), cfg)
    return Results(corpus_name=corpus.name, corpus_digest=corpus.digest, settings=settings, **traces)


def _settings() -> Settings:
    return Settings.from_configs({
        "bpe": TrainConfig(model="bpe", vocab_size=30, end_of_word="symbol", unk_token="[UNK]").resolved(),
        "bbpe": TrainConfig(model="bbpe", vocab_size=270, special_tokens=("<|endoftext|>",)).resolved(),
        "wordpiece": TrainConfig(model="wordpiece", vocab_size=32, special_tokens=("[CLS]", "[SEP]"),
                                 unk_token="[UNK]").resolved(),   # likelihood: exact fractions
    })


def _imported():
    tok = TrainedTokenizer.from_trace(train(count_words(TEXT, "gpt2"), TrainConfig(model="bbpe", vocab_size=262)))
    hf_vocab_txt = load_tokenizer_bytes(export_files(
        TrainedTokenizer.from_trace(_results(Corpus.from_text("t", TEXT, "paste"), _settings()).wordpiece)
    )["vocab.txt"].encode(), "vocab.txt")
    return {"mine": tok, "<img src=x onerror=alert(1)>": hf_vocab_txt}


@pytest.fixture(scope="module")
def full_session():
    """A dict standing in for st.session_state, with everything set."""
    ss = {}
    corpus = Corpus.from_text("Pasted <b>text</b>", TEXT, "paste")
    settings = _settings()
    state.set_corpus(corpus, ss)
    state.set_settings(settings, ss)
    state.set_results(_results(corpus, settings), ss)
    state.set_step("bpe", 3, ss)
    state.set_step("wordpiece", 5, ss)
    for name, tok in _imported().items():
        state.add_imported(name, tok, ss)
    return ss


def _same_state(a, b):
    assert state.get_corpus(a) == state.get_corpus(b)
    assert state.get_settings(a) == state.get_settings(b)
    assert state.get_results(a) == state.get_results(b)
    assert {m: state.get_step(m, a) for m in MODELS} == {m: state.get_step(m, b) for m in MODELS}
    ia, ib = state.get_imported(a), state.get_imported(b)
    assert list(ia) == list(ib)
    for name in ia:
        for text in (TEXT, "lowest newest 我 😀 zzz"):
            assert ia[name].encode(text).ids == ib[name].encode(text).ids


def test_round_trip_into_a_fresh_session(full_session):
    raw = sf.dump_session(sf.current_session(full_session))
    data = json.loads(raw)
    assert data["format"] == sf.SESSION_FORMAT and data["version"] == sf.SESSION_VERSION
    assert isinstance(data["results"]["traces"]["wordpiece"]["steps"][0]["score"], str)   # "num/den"
    fresh = {}
    state.init(fresh)
    loaded = sf.load_session(raw, "session.json", fresh)
    _same_state(full_session, fresh)
    assert state.get_results(fresh).wordpiece.steps[0].score == state.get_results(full_session).wordpiece.steps[0].score
    assert "corpus “Pasted <b>text</b>”" in sf.summary(loaded)
    # the Corpus page's widgets show the loaded settings (as loading a preset does)
    for m in MODELS:
        for field, value in views.config_to_widgets(state.get_settings(fresh).for_model(m)).items():
            assert state.widget_value(views.widget_key(m, field), session=fresh) == value
    # and saving the loaded session gives the very same file
    assert sf.dump_session(sf.current_session(fresh)) == raw


def test_a_word_count_corpus_and_an_empty_session_round_trip():
    ss = {}
    state.init(ss)
    empty = sf.dump_session(sf.current_session(ss))
    other = {}
    sf.load_session(empty, session=other)
    _same_state(ss, other)
    table = Corpus.from_table("counts.csv", WordCounts(("low", "lower", "newest", "widest"), (5, 2, 6, 3)), "upload")
    state.set_corpus(table, ss)
    sf.load_session(sf.dump_session(sf.current_session(ss)), session=other)
    assert state.get_corpus(other) == table and state.get_corpus(other).digest == table.digest


@pytest.mark.parametrize("words,counts,message", [
    ([1999, "low"], [1, 2], "corpus.word_counts.words: word 1 is a number, not text"),
    (["low", ["a", "b"]], [1, 2], "corpus.word_counts.words: word 2 is a list, not text"),
    ([None], [1], "corpus.word_counts.words: word 1 is null, not text"),
    ([{"w": "a"}], [1], "corpus.word_counts.words: word 1 is an object, not text"),
    ([True], [1], "corpus.word_counts.words: word 1 is true/false, not text"),
    ([""], [1], "corpus.word_counts.words: word 1 is empty"),
    (["a", "a"], [1, 2], "corpus.word_counts.words: word 2 repeats word 1"),
    (["a"], [True], "corpus.word_counts.counts: count 1 is not a whole number from 1 to 10^15"),
    (["a", "b"], [1], "corpus.word_counts: 2 words but 1 count"),
])
def test_a_word_count_corpus_whose_words_are_not_text_is_refused_saying_which(words, counts, message):
    table = Corpus.from_table("counts.csv", WordCounts(("low",), (5,)), "upload")
    data = json.loads(sf.dump_session(sf.Session(corpus=table)))
    data["corpus"]["word_counts"] = {"words": words, "counts": counts}
    with pytest.raises(TokenizerFileError) as err:
        sf.parse_session(json.dumps(data).encode(), "s.json")
    assert str(err.value) == f"s.json is damaged: {message}"


def test_a_preset_corpus_keeps_its_preset():
    ss = {}
    state.set_corpus(Corpus.from_text("Seed 000", "highest higher lower lowest cooler coolest", "preset", "seed-000"), ss)
    other = {}
    sf.load_session(sf.dump_session(sf.current_session(ss)), session=other)
    assert state.get_corpus(other).preset == "seed-000"
    assert state.widget_value("corpus_preset", session=other) == "seed-000"
    data = json.loads(sf.dump_session(sf.current_session(ss)))
    data["corpus"]["preset"] = "a-preset-from-the-future"
    assert sf.parse_session(json.dumps(data).encode()).corpus.preset is None   # kept as plain text


def test_a_corpus_that_names_a_preset_it_is_not_is_kept_as_plain_data(tmp_path):
    # a preset's words are counted once for every session and traces are keyed by the corpus's
    # digest: a file (edited by hand, or an older version's) whose text names seed 000 but is not
    # its text must not be trained as seed 000 for everyone who brings that text
    from core.trainer import TrainConfig
    from playground import corpus_store, training
    text = "hug hug pug pun bun hugs hug gnu gnus"
    data = json.loads(sf.dump_session(sf.Session(corpus=Corpus.from_text("notes", text, "paste"))))
    data["corpus"]["preset"] = "seed-000"
    loaded = sf.parse_session(json.dumps(data).encode()).corpus
    assert loaded.text == text and loaded.preset is None
    config = TrainConfig(model="bpe", vocab_size=40).resolved()
    assert set(training.corpus_words(loaded, config).words) == set(count_words(text).words)
    store = corpus_store.CorpusStore(tmp_path, 10 ** 7)    # the store's description says the same
    key = corpus_store.put_corpus(Corpus.from_text("notes", text, "paste", "seed-000"), store)
    assert corpus_store.load_corpus(key, store).preset is None
    seed = Corpus.from_text("Seed 000", "highest higher lower lowest cooler coolest", "preset", "seed-000")
    assert corpus_store.load_corpus(corpus_store.put_corpus(seed, store), store).preset == "seed-000"


def _damaged(raw: bytes) -> dict:
    """name -> bytes of a broken or foreign version of a good session file."""
    data = json.loads(raw)

    def edit(fn):
        d = json.loads(raw)
        fn(d)
        return json.dumps(d).encode()
    return {
        "truncated": raw[: len(raw) // 2],
        "truncated at the end": raw[:-1],
        "empty": b"",
        "binary": bytes(range(256)) * 4,
        "png": b"\x89PNG\r\n\x1a\n" + b"\x00" * 100,
        "utf-16": json.dumps(data).encode("utf-16"),
        "a JSON list": b"[1, 2, 3]",
        "foreign JSON": b'{"name": "my notes", "items": [1, 2]}',
        "a tokenizer.json": json.dumps({"version": "1.0", "model": {"type": "BPE", "vocab": {}, "merges": []}}).encode(),
        "newer version": edit(lambda d: d.update(version=sf.SESSION_VERSION + 1)),
        "version as text": edit(lambda d: d.update(version="1")),
        "version true": edit(lambda d: d.update(version=True)),
        "version 1.0": edit(lambda d: d.update(version=1.0)),
        "no version": edit(lambda d: d.pop("version")),
        "other format": edit(lambda d: d.update(format="someone-elses-session")),
        "no settings": edit(lambda d: d.pop("settings")),
        "settings of another model": edit(lambda d: d["settings"].update(bpe=d["settings"]["wordpiece"])),
        "unknown setting value": edit(lambda d: d["settings"]["bbpe"].update(normalizer="shout")),
        "step beyond the trace": edit(lambda d: d["steps"].update(bpe=10_000)),
        "negative step": edit(lambda d: d["steps"].update(bbpe=-1)),
        "trace of the wrong model": edit(lambda d: d["results"]["traces"].update(bpe=d["results"]["traces"]["bbpe"])),
        "trace version": edit(lambda d: d["results"]["traces"]["bpe"].update(version=99)),
        "trace step id": edit(lambda d: d["results"]["traces"]["wordpiece"]["steps"][0].update(id=10 ** 6)),
        "score as float": edit(lambda d: d["results"]["traces"]["wordpiece"]["steps"][0].update(score=0.5)),
        # numbers that loaded, then made the Merges and Inspect pages raise
        "trace total beyond 64 bits": edit(lambda d: d["results"]["traces"]["bpe"]["steps"][0].update(
            total_tokens=10 ** 30)),
        "trace initial total beyond 64 bits": edit(lambda d: d["results"]["traces"]["bpe"].update(
            initial_total_tokens=10 ** 30)),
        "final token count beyond 64 bits": edit(lambda d: d["results"]["traces"]["bpe"]["final_tokens"][0].__setitem__(
            1, 10 ** 30)),
        "score beyond a float": edit(lambda d: d["results"]["traces"]["wordpiece"]["steps"][0].update(
            score="1" + "0" * 400 + "/1")),
        "corpus text not text": edit(lambda d: d["corpus"].update(text=42)),
        "empty corpus": edit(lambda d: d["corpus"].update(text="   ")),
        "corpus source": edit(lambda d: d["corpus"].update(source="stolen")),
        "imported garbage": edit(lambda d: d["imported"][0].update(content="{not json")),
        "imported twice": edit(lambda d: d["imported"].append(d["imported"][0])),
        "results not an object": edit(lambda d: d.update(results=[1])),
    }


def test_broken_and_foreign_files_are_refused_and_change_nothing(full_session):
    raw = sf.dump_session(sf.current_session(full_session))
    current = {}
    sf.load_session(raw, session=current)
    before = dict(current)
    for name, bad in _damaged(raw).items():
        with pytest.raises(TokenizerFileError) as err:
            sf.load_session(bad, "bad.json", current)
        message = str(err.value)
        assert "\n" not in message and len(message) <= 300, name
        assert message.startswith("bad.json"), (name, message)
        assert current.keys() == before.keys() and all(current[k] is before[k] for k in before), name
    _same_state(full_session, current)


def test_refusal_messages_say_what_to_do(full_session):
    raw = sf.dump_session(sf.current_session(full_session))
    bad = _damaged(raw)

    def msg(name):
        with pytest.raises(TokenizerFileError) as err:
            sf.parse_session(bad[name], "s.json")
        return str(err.value)
    assert "cut short" in msg("truncated")
    assert "not UTF-8" in msg("binary")
    assert "update the app" in msg("newer version")
    assert "import it" in msg("a tokenizer.json")
    assert "not a session file" in msg("foreign JSON")
    assert "steps.bpe" in msg("step beyond the trace")


def test_a_1mb_corpus_with_8k_step_traces_round_trips():
    """A session as big as the app makes (1 MB, three 8,000-step traces) saves and loads back equal.
    How long that takes is bench/session.py's to measure, not a test's."""
    from core.presets import load_kjv
    text = load_kjv()[:1_000_000]
    corpus = Corpus.from_text("KJV, first 1 MB", text, "paste")
    configs = {"bpe": TrainConfig(model="bpe", vocab_size=8100), "bbpe": TrainConfig(model="bbpe", vocab_size=8300),
               "wordpiece": TrainConfig(model="wordpiece", vocab_size=8100, score="frequency")}
    traces = {}
    for m, cfg in configs.items():
        cfg = cfg.resolved()
        traces[m] = train(count_words(text, cfg.pre_tokenizer), cfg)
        assert len(traces[m].steps) > 7_500
    settings = Settings.from_configs({m: t.config for m, t in traces.items()})
    s = sf.Session(corpus=corpus, settings=settings, results=Results(corpus.name, corpus.digest, settings, **traces),
                   steps={"bpe": 10, "bbpe": 8000, "wordpiece": 0})
    back = sf.parse_session(sf.dump_session(s))
    assert back.results == s.results and back.corpus == corpus and dict(back.steps) == s.steps


def test_a_unigram_trace_no_trainer_writes_is_refused_and_changes_nothing(full_session):
    # each loaded before, and Inspect then raised on the trained Unigram (or its settings)
    from core.unigram import UnigramConfig, train_unigram
    from playground.state import UnigramResult
    corpus, results = state.get_corpus(full_session), state.get_results(full_session)
    trace = train_unigram(count_words(TEXT, "whitespace"), UnigramConfig(vocab_size=18, unk_token="<unk>"))
    current = {}
    sf.load_session(sf.dump_session(sf.current_session(full_session)), session=current)
    state.set_unigram(UnigramResult(corpus.name, corpus.digest, trace), current)
    raw = sf.dump_session(sf.current_session(current))
    assert sf.parse_session(raw).unigram.trace == trace
    before = dict(current)
    edits = {"unk_id beyond the vocabulary": lambda t: t.update(unk_id=10 ** 9),
             "unk_id as text": lambda t: t.update(unk_id="x"),
             "a piece that is a number": lambda t: t["vocab"].__setitem__(0, [5, -1.0]),
             "an unknown normalizer": lambda t: t["config"].update(normalizer="zzz"),
             "a pre-tokenizer Unigram refuses": lambda t: t["config"].update(pre_tokenizer="gpt2")}
    for name, edit in edits.items():
        data = json.loads(raw)
        edit(data["unigram"]["trace"])
        with pytest.raises(TokenizerFileError) as err:
            sf.load_session(json.dumps(data).encode(), "bad.json", current)
        assert str(err.value).startswith("bad.json is damaged: Unigram trace"), (name, str(err.value))
        assert current.keys() == before.keys() and all(current[k] is before[k] for k in before), name
    assert state.get_results(current) == results and state.get_unigram(current).trace == trace
