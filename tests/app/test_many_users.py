"""Many users on one server: each session sees only its own results, shared caches hand out only
what the key fully determines, and no module keeps mutable state between sessions.

Headless (AppTest; several AppTests in one process share the process-wide caches, as sessions on
one server do). Four browser sessions at once against one `streamlit run`: tests/browser/
test_browser_many_users.py.
"""
from __future__ import annotations

import dataclasses
import importlib
import json
import pkgutil
from types import ModuleType

import pytest
from streamlit.testing.v1 import AppTest

from core.trainer import MODELS, TrainConfig
from playground import session_file as sf
from playground import state, training
from playground.state import Corpus
from tests.app.conftest import INSPECT_TABS, goto, new_app, paste, train
from tests.support import PAGES


def paste_and_train(at: AppTest, text: str) -> AppTest:
    at = train(paste(at, text))
    assert not at.error, [e.value for e in at.error]
    return at


# ================================================================ cache keys

# A second valid value for every TrainConfig field (bpe unless the field needs its model).
OTHER_VALUE = {"vocab_size": 60, "pre_tokenizer": "chars", "normalizer": "lowercase", "end_of_word": "suffix",
               "tie_break": "lexical", "min_frequency": 2, "max_merges": 3, "special_tokens": ("<s>",),
               "unk_token": "[UNK]", "top_k": 5, "keep_newlines": True}


@pytest.mark.parametrize("field", [f.name for f in dataclasses.fields(TrainConfig)])
def test_the_settings_key_covers_every_setting(field):
    """Every TrainConfig field changes a trace, so every one is in the cache key (a new field that
    is not fails here: add its second value to OTHER_VALUE)."""
    model = "wordpiece" if field == "score" else "bpe"
    base = TrainConfig(model=model, vocab_size=50)
    if field == "model":
        other = dataclasses.replace(base, model="bbpe")
    elif field == "score":
        other = dataclasses.replace(base, score="frequency")
    else:
        assert field in OTHER_VALUE, f"new TrainConfig field {field!r}: give it a second value here"
        other = dataclasses.replace(base, **{field: OTHER_VALUE[field]})
    assert training.settings_key(other) != training.settings_key(base)
    # and nothing that does not change a result: an unset pre-tokenizer is the model's default
    assert training.settings_key(base) == training.settings_key(base.resolved())


def test_same_corpus_other_settings_other_traces_same_settings_the_same_object():
    text = "low low low lower lower newest newest newest widest widest"
    a = paste_and_train(new_app(), text)
    first = state.get_results(a.session_state)
    # a second user, same corpus and settings: the very same cached traces
    b = paste_and_train(new_app(), text)
    second = state.get_results(b.session_state)
    assert all(second.trace(m) is first.trace(m) for m in MODELS)
    # one setting changed: a different trace for that tokenizer only
    b.selectbox(key="corpus_bpe_tie_break").set_value("lexical").run()
    b.button(key="corpus_train").click().run()
    third = state.get_results(b.session_state)
    assert third.trace("bpe") is not first.trace("bpe")
    assert third.trace("bpe").config.tie_break == "lexical"
    assert [s.token for s in third.trace("bpe").steps] != [s.token for s in first.trace("bpe").steps]
    assert third.trace("bbpe") is first.trace("bbpe") and third.trace("wordpiece") is first.trace("wordpiece")
    # the first user's results are untouched
    assert state.get_results(a.session_state) is first
    # same settings, another corpus (same name "Pasted text"): other traces
    c = paste_and_train(new_app(), text + " lowest")
    assert state.get_corpus(c.session_state).name == state.get_corpus(a.session_state).name
    assert all(state.get_results(c.session_state).trace(m) is not first.trace(m) for m in MODELS)


def test_a_table_and_a_text_with_the_same_words_are_different_corpora():
    text = Corpus.from_text("t", "low low lower", "paste")
    from core.corpus import WordCounts
    table = Corpus.from_table("t", WordCounts(("low", "lower"), (2, 1)), "upload")
    same_words_other_counts = Corpus.from_table("t", WordCounts(("low", "lower"), (1, 2)), "upload")
    assert len({text.digest, table.digest, same_words_other_counts.digest}) == 3


def _session_claiming(source: AppTest, claimed_digest: str) -> bytes:
    data = json.loads(sf.dump_session(sf.current_session(source.session_state)))
    data["results"]["corpus_digest"] = claimed_digest
    return json.dumps(data).encode()


def _forged_session_loaded(mine: str, theirs: str) -> tuple[AppTest, str]:
    """A session trained on `mine`, saved as if trained on `theirs`, loaded in a new session:
    (that session, the corpus digest the file claims)."""
    claimed = Corpus.from_text("Pasted text", theirs, "paste").digest
    forged = _session_claiming(paste_and_train(new_app(), mine), claimed)
    a = goto(new_app(), "pages/inspect.py", "Session")
    a.file_uploader(key="inspect_session_file").set_value(("s.json", forged, "application/json"))
    a.button(key="inspect_load_session").click().run()
    return a, claimed


def test_a_session_file_cannot_put_its_traces_under_another_users_key():
    """A loaded session's traces are whatever the file says, under whatever corpus digest it claims:
    the shared tokenizer caches must not hand them to a user who trains that corpus here."""
    mine, theirs = "aaa bbb aaa bbb aaa", "ccc ddd ccc ddd ccc"
    a, claimed = _forged_session_loaded(mine, theirs)
    assert not a.exception and a.success
    goto(a, "pages/compare.py", "Tokens")          # fills the shared caches first
    for tab in ("Pipeline", "Vocabulary"):
        goto(a, "pages/inspect.py", tab)

    b = paste_and_train(new_app(), theirs)
    results = state.get_results(b.session_state)
    assert results.corpus_digest == claimed
    goto(b, "pages/compare.py", "Tokens")
    b.text_area(key="compare_text").input(theirs).run()
    for key, (tokenizer, _, encoding) in b.session_state["compare_encoded"].items():
        if key.startswith("trained:"):
            model = key.split(":")[1]
            assert tokenizer.vocab == results.trace(model).vocab[:len(tokenizer.vocab)], key
            assert "ccc" in tokenizer.vocab or model == "wordpiece", key
    goto(b, "pages/inspect.py", "Vocabulary")
    shown = set(b.dataframe[0].value["token"])
    assert not shown & {"aaa", "Ġaaa", "bbb"}, "another session's trace"


def test_a_session_file_cannot_put_its_traces_on_another_users_merges_page():
    mine, theirs = "aaa bbb aaa bbb aaa", "ccc ddd ccc ddd ccc"
    a, _claimed = _forged_session_loaded(mine, theirs)
    goto(a, "pages/merges.py")
    b = goto(paste_and_train(new_app(), theirs), "pages/merges.py")
    offered = set(b.selectbox(key="merges_tree_token").options)
    assert not offered & {"aa", "aaa", "bb", "bbb"}, f"another session's tokens offered: {sorted(offered)}"


# ================================================================ no shared mutable state

ALLOWED_MODULE_STATE = {
    # (module, name): why it may change while the app serves
    ("core.trace_io", "_FRACTIONS"): "memo of parsed scores: immutable Fractions by their text, bounded",
    ("core.trainer", "_gc_state"): "the counted switch of the process-wide garbage collector, under a "
                                   "lock: how many trainings run and whether the collector was on",
}


def _project_modules() -> list[ModuleType]:
    import core
    import playground
    out = []
    for package in (core, playground):
        for info in pkgutil.iter_modules(package.__path__, package.__name__ + "."):
            if info.name in ("core.__main__",):
                continue
            out.append(importlib.import_module(info.name))
    return out


def _mutable_globals(module: ModuleType) -> dict[str, object]:
    return {name: value for name, value in vars(module).items()
            if isinstance(value, (dict, list, set, bytearray)) and not name.startswith("__")}


def _fingerprint(value) -> str:
    try:
        return json.dumps(value, sort_keys=True, default=repr)
    except (TypeError, ValueError):
        return repr(sorted(map(repr, value))) if isinstance(value, set) else repr(value)


def test_no_module_state_changes_while_sessions_run():
    """Module-level dicts, lists and sets of core/ and playground/ are constants: two sessions
    training, loading, comparing and inspecting leave every one of them as it was (the ones that
    may change are listed, with why, in ALLOWED_MODULE_STATE)."""
    modules = _project_modules()
    before = {(m.__name__, n): _fingerprint(v) for m in modules for n, v in _mutable_globals(m).items()}
    assert before, "found the modules"
    for text in ("low lower lowest newest widest", "数据 数据 模型 模型 👩‍👩‍👧 👩‍👩‍👧"):
        at = paste_and_train(new_app(), text)
        for page in PAGES[1:]:
            goto(at, page)
        for tab in INSPECT_TABS:
            goto(at, "pages/inspect.py", tab)
        raw = sf.dump_session(sf.current_session(at.session_state))
        sf.parse_session(raw)
    after = {(m.__name__, n): _fingerprint(v) for m in modules for n, v in _mutable_globals(m).items()}
    changed = sorted(k for k in before if after.get(k) != before[k] and k not in ALLOWED_MODULE_STATE)
    assert not changed, f"module-level state changed while sessions ran: {changed}"


def test_module_level_mutables_are_listed():
    """A reviewer's list: every module-level dict/list/set in core/ and playground/ (constants but
    for ALLOWED_MODULE_STATE). Printed with -s; fails only if one holds a session's data type."""
    from playground.state import Corpus as _C, Results as _R
    for module in _project_modules():
        for name, value in _mutable_globals(module).items():
            items = value.values() if isinstance(value, dict) else value
            assert not any(isinstance(v, (_C, _R)) for v in items), f"{module.__name__}.{name} holds session data"
            print(f"{module.__name__}.{name}: {type(value).__name__} of {len(value)}")
