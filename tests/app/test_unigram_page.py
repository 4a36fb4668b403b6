"""Unigram through the app (AppTest): opted in on the Corpus page, trained with the three on a
seed-size corpus, stepped on its page, its lattice checked against the core, bad sizes refused."""
from __future__ import annotations

import math
import re

from core import presets
from core.trainer import TrainConfig
from core.unigram import UnigramConfig, UnigramTokenizer, size_limits, train_unigram
from core.unigram_reference import build_lattice, forward_backward
from playground import state
from playground import unigram_view as uv
from playground.state import UnigramKeys as UK
from tests.app.conftest import load_preset, new_app, train
from tests.support import drawn_html, step_press, stepper, tell

PRESET = "seed-001"     # 202 characters; a vocabulary of 32 takes two prunings


def _words():
    """The preset's words as the app counts them for Unigram (whitespace, no normalizer)."""
    return presets.words_for(presets.get_preset(PRESET), TrainConfig(model="bpe").resolved())


def _opt_in(at, size: int):
    at.toggle(key=UK.ON).set_value(True).run()
    at.number_input(key=UK.VOCAB_SIZE).set_value(size).run()
    assert not at.exception, at.exception
    return at


def _trained(size: int = 32):
    at = _opt_in(load_preset(new_app(), PRESET), size)
    return train(at)


def test_unigram_trains_with_the_three_and_matches_the_core():
    at = _trained()
    result = state.get_unigram(at.session_state)
    assert result is not None and state.get_results(at.session_state) is not None
    expected = train_unigram(_words(), UnigramConfig(vocab_size=32))
    assert result.trace == expected
    assert len(result.trace.prunes) >= 2
    assert at.button(key="corpus_train").label.startswith("Train all four")
    assert not at.error


def test_stepping_iterations_shows_each_step_and_its_charts():
    at = _trained()
    at.switch_page("pages/unigram.py").run()
    assert not at.exception, at.exception
    steps = uv.iterations(state.get_unigram(at.session_state).trace)
    last = len(steps) - 1
    kinds = []
    for k in range(len(steps)):
        assert state.get_unigram_view(at.session_state).step == k
        now = stepper(at)
        assert now["step"] == k and now["last"] == last
        # the hosts drawn at the server's step, and the same HTML in the stepper's window
        drawn = drawn_html(at)
        assert any(f"Step {k} of {last}" in body for body in drawn)
        assert set(now["window"][str(k)].values()) <= set(drawn)
        assert sorted(map(int, now["window"])) == list(range(max(0, k - 1), min(last, k + 3) + 1))
        kinds.append(steps[k].kind)
        if k < last:
            step_press(at, "next")
            assert not at.exception, at.exception
    assert "prune" in kinds and "em" in kinds and kinds[0] == "seeds" and kinds[-1] == "final"
    step_press(at, "first")
    assert state.get_unigram_view(at.session_state).step == 0
    step_press(at, "last")
    assert state.get_unigram_view(at.session_state).step == last


def test_a_tell_is_taken_once_and_checked():
    """What the browser tells is input: a step past the end is clamped, an unknown speed ignored, an
    old tell (its sequence number already applied) or one about another trace not taken."""
    at = _trained()
    at.switch_page("pages/unigram.py").run()
    last = stepper(at)["last"]
    tell(at, step=last + 50, speed=7.5)
    view = state.get_unigram_view(at.session_state)
    assert (view.step, view.speed, view.told) == (last, 1.0, 1)
    at.session_state[UK.STEPPER] = {"told": {**stepper(at), "seq": 1, "step": 0}}   # applied already
    at.run()
    assert state.get_unigram_view(at.session_state).step == last
    tell(at, step=0, trace="another")
    view = state.get_unigram_view(at.session_state)
    assert (view.step, view.told) == (last, 2)
    tell(at, step="3", playing="yes")           # a step that is not a number: the step stays
    assert state.get_unigram_view(at.session_state).step == last


def test_a_pruning_step_draws_the_pruned_pieces_chart():
    at = _trained()
    at.switch_page("pages/unigram.py").run()
    steps = uv.iterations(state.get_unigram(at.session_state).trace)
    prune = next(it.index for it in steps if it.kind == "prune")
    tell(at, step=prune)      # the slider let go at the pruning
    assert not at.exception, at.exception
    assert state.get_unigram_view(at.session_state).step == prune
    pieces = stepper(at)["window"][str(prune)][UK.PIECES]
    assert 'data-kind="prune"' in pieces and "second-best segmentation" in pieces
    assert pieces in drawn_html(at)


def test_lattice_shares_add_up_to_the_words_total_from_the_core():
    trace = train_unigram(_words(), UnigramConfig(vocab_size=32))
    steps = uv.iterations(trace)
    words = [w for w in uv.short_words(*zip(*trace_words())) if len(w) >= 3][:5]
    assert words
    for it in steps:
        for word in words:
            lat = uv.word_lattice(it.pieces, word)
            ids = {p: i + 1 for i, (p, _) in enumerate(it.pieces)}
            scores = [min(s for _, s in it.pieces) - 10.0] + [s for _, s in it.pieces]
            core_lat = build_lattice(lat.word, ids, scores, 16, scores[0])
            log_z = forward_backward(core_lat, 1, [0.0] * len(scores))
            total = math.fsum(math.exp(s.log_prob) for s in lat.segmentations)
            assert math.isclose(total, math.exp(log_z), rel_tol=1e-9), (it.index, word)
            assert math.isclose(math.fsum(s.probability for s in lat.segmentations), 1.0, rel_tol=1e-9)
            assert sum(s.viterbi for s in lat.segmentations) == 1
            best = lat.viterbi_path
            assert best.log_prob == max(s.log_prob for s in lat.segmentations)


def trace_words():
    words = _words()
    return list(zip(words.words, words.counts))


def test_the_page_draws_the_lattice_of_the_chosen_word():
    at = _trained()
    at.switch_page("pages/unigram.py").run()
    before = stepper(at)["view"]
    at.selectbox(key=UK.WORD).set_value("the").run()
    assert not at.exception, at.exception
    html = "".join(drawn_html(at))
    trace = state.get_unigram(at.session_state).trace
    lat = uv.word_lattice(uv.iterations(trace)[0].pieces, "the")
    assert f'data-segmentations="{len(lat.segmentations)}"' in html
    assert html.count("ug-row ug-best") == 1
    # the steps the page holds drew the old word's lattice: a new view, the window sent again
    now = stepper(at)
    assert now["view"] != before and 'data-segmentations' in now["window"]["1"][UK.LATTICE]


def test_a_size_below_the_characters_says_the_limits_and_keeps_the_results():
    at = train(load_preset(new_app(), PRESET))
    before = state.get_results(at.session_state)
    low, high = size_limits(_words(), UnigramConfig(vocab_size=10))
    _opt_in(at, low - 1)
    assert any(f"at least {low}" in w.value and f"at most {high}" in w.value for w in at.warning)
    train(at)
    errors = [e.value.replace("\\", "") for e in at.error]   # Markdown escapes dropped
    assert len(errors) == 1 and "Unigram" in errors[0] and f"at least {low}" in errors[0] \
        and f"at most {high}" in errors[0], errors
    assert state.get_results(at.session_state) is before
    assert state.get_unigram(at.session_state) is None


def test_a_size_above_the_seed_pieces_says_the_limits_and_the_fit_button_fixes_it():
    at = load_preset(new_app(), PRESET)
    low, high = size_limits(_words(), UnigramConfig(vocab_size=10))
    _opt_in(at, high + 50)
    train(at)
    errors = [e.value.replace("\\", "") for e in at.error]   # Markdown escapes dropped
    assert len(errors) == 1 and f"more than this corpus can give: at most {high}" in errors[0], errors
    at.button(key=UK.FIT).click().run()
    assert at.number_input(key=UK.VOCAB_SIZE).value == high
    train(at)
    assert not at.error and state.get_unigram(at.session_state) is not None


def test_a_corpus_too_small_to_train_says_so():
    at = new_app()
    at.text_area(key="corpus_paste").input("a a a")
    at.button(key="corpus_use_paste").click().run()
    _opt_in(at, 10)
    assert any("too small" in w.value for w in at.warning), [w.value for w in at.warning]
    train(at)
    errors = [e.value.replace("\\", "") for e in at.error]   # Markdown escapes dropped
    assert len(errors) == 1 and "at most 2" in errors[0], errors
    assert state.get_unigram(at.session_state) is None


# ---------------------------------------------------------------- Compare, Inspect and the export

def test_compare_offers_the_trained_unigram_and_encodes_with_it():
    at = _trained()
    at.switch_page("pages/compare.py").run()
    box = at.multiselect(key="compare_tokenizers")
    assert "Unigram · Viterbi" in box.options
    at.text_area(key="compare_text").input("the cat sat on the mat")
    box.set_value(["trained:unigram", "trained:bpe:merges"]).run()
    assert not at.exception, at.exception
    drawn = re.sub(r"<[^>]+>", "", "".join(h.proto.body for h in at.get("html")))   # the picker's table, as text
    assert "Unigram · Viterbi" in drawn and not at.error


def test_inspect_lists_unigram_and_its_tokenizer_json_loads_in_hf_and_encodes_the_same():
    from tokenizers import Tokenizer

    from playground import inspect as ins
    at = _trained()
    at.session_state["inspect_tab"] = "Export & import"
    at.switch_page("pages/inspect.py").run()
    at.selectbox(key="inspect_tokenizer").set_value("trained:unigram").run()
    assert not at.exception, at.exception
    keys = {b.key for b in at.get("download_button")}
    assert {"inspect_dl_tokenizer.json", "inspect_dl_trace_json"} <= keys, keys
    tok = UnigramTokenizer.from_trace(state.get_unigram(at.session_state).trace)   # what unigram_control builds
    hf = Tokenizer.from_str(ins.unigram_tokenizer_json(tok))
    text = presets.get_preset(PRESET).corpus_text() + " zebra unseen words"
    ours = tok.encode(text)
    theirs = hf.encode(text)
    assert list(ours.ids) == theirs.ids
    assert list(ours.tokens) == theirs.tokens
    for tab in ("Pipeline", "Vocabulary"):
        at.session_state["inspect_tab"] = tab
        at.run()
        assert not at.exception, (tab, at.exception)


def test_lockstep_shows_unigram_beside_the_three_at_the_same_step_index():
    at = _trained()
    at.switch_page("pages/merges.py").run()
    at.toggle(key="merges_lockstep").set_value(True).run()
    assert not at.exception, at.exception
    steps = uv.iterations(state.get_unigram(at.session_state).trace)
    for _ in range(3):
        step_press(at, "next")
    k = min(3, len(steps) - 1)
    assert any(f"Step {k} of {len(steps) - 1}: " in body and "mg-small" in body for body in drawn_html(at))


def test_play_runs_to_the_last_step_and_stops():
    at = _trained()
    at.switch_page("pages/unigram.py").run()
    last = len(uv.iterations(state.get_unigram(at.session_state).trace)) - 1
    step_press(at, "play")
    assert state.get_unigram_view(at.session_state).playing and stepper(at)["playing"]
    for k in range(1, last + 1):   # what the browser's clock does while playing: a step, told
        step_press(at, "next")
        assert state.get_unigram_view(at.session_state).step == k
    assert not state.get_unigram_view(at.session_state).playing and not stepper(at)["playing"]


def test_a_saved_session_brings_unigram_and_its_step_back():
    from playground import session_file as sf
    at = _trained()
    at.switch_page("pages/unigram.py").run()
    step_press(at, "next")
    step_press(at, "next")
    raw = sf.dump_session(sf.current_session(at.session_state))
    fresh = new_app()
    loaded = sf.load_session(raw, "s.json", fresh.session_state)
    assert "Unigram 32 pieces" in sf.summary(loaded)
    result = state.get_unigram(fresh.session_state)
    assert result.trace == state.get_unigram(at.session_state).trace and result.origin.startswith("file:")
    fresh.switch_page("pages/unigram.py").run()
    assert not fresh.exception, fresh.exception
    assert stepper(fresh)["step"] == 2
    # a file saved before Unigram (no "unigram" field) loads with none
    import json
    data = json.loads(raw)
    del data["unigram"]
    older = sf.parse_session(json.dumps(data).encode("utf-8"))
    assert older.unigram is None and older.results is not None


def test_the_apps_link_retrains_unigram_in_a_new_session(tmp_path, monkeypatch):
    from streamlit.testing.v1 import AppTest

    from playground import corpus_store
    from tests.support import APP, step_press
    monkeypatch.setenv("TOKENIZER_PLAYGROUND_STORE", str(tmp_path / "store"))
    at = _trained()
    link = {k: at.query_params[k] for k in at.query_params}
    assert {"corpus", "trained", "unigram"} <= set(link) and corpus_store.valid_digest(link["unigram"])
    again = AppTest.from_file(str(APP), default_timeout=180)   # F5, or the link opened elsewhere
    again.switch_page("pages/unigram.py")
    for k, v in link.items():
        again.query_params[k] = v
    again.run()
    assert not again.exception, again.exception
    restored = state.get_unigram(again.session_state)
    assert restored is not None and restored.trace == state.get_unigram(at.session_state).trace
    assert stepper(again)["step"] == 0
    # a link whose Unigram settings are gone says so and still restores the three
    gone = AppTest.from_file(str(APP), default_timeout=180)
    for k, v in {**link, "unigram": "0" * 64}.items():
        gone.query_params[k] = v
    gone.run()
    assert state.get_results(gone.session_state) is not None and state.get_unigram(gone.session_state) is None
    assert any("Unigram settings are no longer kept" in i.value for i in gone.info)


def test_the_address_keeps_the_step_and_the_word_and_a_reload_reopens_them(tmp_path, monkeypatch):
    """The page writes its step and its lattice's word into the address (a step told by the
    browser is written by the stepper itself, as on Merges); a new session opened on that address
    (F5, a copied link) shows the same step and word; what a link gets wrong is said, not fatal."""
    from streamlit.testing.v1 import AppTest

    from tests.support import APP
    monkeypatch.setenv("TOKENIZER_PLAYGROUND_STORE", str(tmp_path / "store"))
    at = _trained()
    at.switch_page("pages/unigram.py").run()
    last = stepper(at)["last"]
    assert _param(at, "step") == "0" and _param(at, "word") is None
    step_press(at, "next")
    step_press(at, "next")
    assert _param(at, "step") == "0"          # a told step: the stepper writes the address
    at.query_params["step"] = "2"             # ... as browser_stepper.js does (address)
    at.selectbox(key=UK.WORD).set_value("the").run()
    assert (_param(at, "step"), _param(at, "word")) == ("2", "the")
    assert state.get_unigram_view(at.session_state).step == 2

    def reopened(params: dict):
        again = AppTest.from_file(str(APP), default_timeout=180)
        again.switch_page("pages/unigram.py")
        for k, v in params.items():
            again.query_params[k] = v
        again.run()
        assert not again.exception, again.exception
        return again

    link = {k: _param(at, k) for k in at.query_params}
    again = reopened(link)
    view = state.get_unigram_view(again.session_state)
    assert (view.step, view.word, stepper(again)["step"]) == (2, "the", 2) and not again.warning
    assert "Step 2 of" in "".join(drawn_html(again))
    assert 'data-segmentations' in stepper(again)["window"]["2"][UK.LATTICE]

    app_link = {k: v for k, v in link.items() if k not in ("step", "word")}
    bad = reopened({**app_link, "step": "abc", "word": "x" * 300, "tokenizer": "bpe"})
    said = " ".join(w.value for w in bad.warning).replace("\\", "")   # Markdown escapes dropped
    assert "step='abc'" in said and "word=" in said and "'tokenizer'" in said, said
    assert state.get_unigram_view(bad.session_state).step == 0
    for digits in ("٣", "３"):               # int() reads Arabic-Indic and full-width digits: a link does not
        other = reopened({**app_link, "step": digits})
        assert f"Ignored step='{digits}'" in " ".join(w.value for w in other.warning).replace("\\", "")
        assert state.get_unigram_view(other.session_state).step == 0
    far = reopened({**app_link, "step": "99999"})
    assert state.get_unigram_view(far.session_state).step == last
    assert f"showing step {last:,}" in " ".join(w.value for w in far.warning).replace("\\", "")


def _param(at, name: str):
    """The address's value of `name` as the page wrote it (None when absent)."""
    if name not in at.query_params:
        return None
    value = at.query_params[name]
    return value[-1] if isinstance(value, list) else value


def test_a_steps_html_is_made_once_per_step_and_word():
    """unigram_control.kept_parts: the page's whole run asks for a step's HTML (and its window's)
    again; it is made once per trace, step and word."""
    from playground import unigram_control as uc
    from playground.state import Corpus
    corpus = Corpus.from_text("kept", presets.get_preset("seed-001").corpus_text(), "paste")
    result = uc.train(corpus, UnigramConfig(vocab_size=40))
    made = []

    def make(tag):
        return lambda: made.append(tag) or {"host": f"<p>{tag}</p>"}
    first = uc.kept_parts(result, 1, "low", make("a"))
    again = uc.kept_parts(result, 1, "low", make("b"))
    assert first == again == {"host": "<p>a</p>"} and made == ["a"] and first is not again   # a fresh dict
    uc.kept_parts(result, 2, "low", make("step"))
    uc.kept_parts(result, 1, "lower", make("word"))
    uc.kept_parts(uc.train(corpus, UnigramConfig(vocab_size=41)), 1, "low", make("trace"))
    assert made == ["a", "step", "word", "trace"]
