"""Links and reloads headless (AppTest): the Compare page's text, tokenizers and toggles round trip
through the address; the app's link (?corpus=&settings=&trained=) rebuilds a pasted corpus, its
settings and trained results in a new session (as F5 or a copied link does); a corpus that is gone
or a key that is not a digest says so, with a way to the Corpus page."""
from __future__ import annotations


import pytest
from streamlit.testing.v1 import AppTest

from playground import compare, corpus_store, state
from tests.support import APP, drawn_html, step_press



@pytest.fixture(autouse=True)
def own_store(tmp_path, monkeypatch):
    """Each test its own store folder (the server's default is ~/.cache/tokenizer-playground)."""
    monkeypatch.setenv("TOKENIZER_PLAYGROUND_STORE", str(tmp_path / "store"))
    return tmp_path / "store"


def new_session(page: str | None = None, **params) -> AppTest:
    """A new browser session opened on `page` with the address's parameters (a reload, a copied link)."""
    at = AppTest.from_file(str(APP), default_timeout=90)
    if page:
        at.switch_page(page)
    for k, v in params.items():
        at.query_params[k] = v
    at.run()
    assert not at.exception, at.exception
    return at


def params_of(at: AppTest) -> dict[str, str]:
    return {k: at.query_params[k] for k in at.query_params}


def test_compare_view_round_trips_through_the_address():
    at = new_session("pages/compare.py")
    at.text_area(key="compare_text").input("Hello 🇨🇳 world").run()
    at.multiselect(key="compare_tokenizers").set_value(["pretrained:o200k_base", "pretrained:gpt2"]).run()
    at.toggle(key="compare_grouped").set_value(True).run()
    at.toggle(key="compare_whitespace").set_value(True).run()
    at.segmented_control(key="compare_view").set_value("Ids").run()
    at.segmented_control(key="compare_layout").set_value("Stacked").run()
    assert not at.exception
    link = params_of(at)
    assert link == {"text": "Hello 🇨🇳 world", "tokenizers": "pretrained:o200k_base,pretrained:gpt2",
                    "show": "ids", "layout": "stacked", "whitespace": "1", "group": "1"}
    again = new_session("pages/compare.py", **link)            # F5, or the link in another browser
    assert again.text_area(key="compare_text").value == "Hello 🇨🇳 world"
    assert again.multiselect(key="compare_tokenizers").value == ["pretrained:o200k_base", "pretrained:gpt2"]
    assert again.toggle(key="compare_grouped").value and again.toggle(key="compare_whitespace").value
    assert again.segmented_control(key="compare_view").value == "Ids"
    assert again.segmented_control(key="compare_layout").value == "Stacked"
    assert params_of(again) == link and not again.warning


def test_a_long_text_goes_by_its_digest(own_store):
    at = new_session("pages/compare.py")
    long_text = "tokenizers " * 400
    at.text_area(key="compare_text").input(long_text).run()
    link = params_of(at)
    assert "text" not in link and len(link["text_ref"]) == 64
    assert (own_store / f"{link['text_ref']}.bin").read_text() == long_text
    again = new_session("pages/compare.py", **link)
    assert again.text_area(key="compare_text").value == long_text


def test_the_open_tab_and_the_chat_round_trip_through_the_address(own_store):
    at = new_session("pages/compare.py")
    at.session_state["compare_tab"] = "Chat"       # a click on the Chat tab (on_change reruns)
    at.run()
    at.text_area(key="compare_chat_system").input("Answer in French & <b>briefly</b>.").run()
    at.text_area(key="compare_chat_assistant").input("").run()
    at.text_area(key="compare_chat_user2").input("Et en anglais ?").run()
    assert not at.exception
    link = params_of(at)
    assert link == {"tab": "chat", "system": "Answer in French & <b>briefly</b>.", "assistant": "",
                    "user2": "Et en anglais ?"}                  # the User box kept its default: not written
    again = new_session("pages/compare.py", **link)            # F5
    assert again.session_state["compare_tab"] == "Chat"
    assert [again.text_area(key=k).value for k in state.CompareKeys.CHAT] == [
        "Answer in French & <b>briefly</b>.", compare.DEFAULT_CHAT[1], "", "Et en anglais ?"]
    assert params_of(again) == link and not again.warning
    long_system = "Be exact. " * 200                             # too long for the address: kept by digest
    again.text_area(key="compare_chat_system").input(long_system).run()
    link = params_of(again)
    assert set(link) == {"tab", "chat_ref"} and len(link["chat_ref"]) == 64
    third = new_session("pages/compare.py", **link)
    assert [third.text_area(key=k).value for k in state.CompareKeys.CHAT] == [
        long_system, compare.DEFAULT_CHAT[1], "", "Et en anglais ?"]
    assert not third.warning


@pytest.mark.parametrize("params,needle", [
    ({"text_ref": "../../etc/passwd"}, "not a text reference"),
    ({"tab": "settings"}, "Ignored tab"),
    ({"chat_ref": "../x"}, "not a chat reference"),
    ({"chat_ref": "ab" * 32}, "chat messages are no longer kept"),
    ({"text_ref": "ab" * 32}, "no longer kept on this server"),
    ({"tokenizers": "pretrained:gpt2,pretrained:gpt5"}, "gpt5"),
    ({"show": "<b>x</b>"}, "Ignored show"),
    ({"group": "maybe"}, "Ignored group"),
    # files= slots that no imported tokenizer takes, or that are not digests, are said, never dropped
    ({"files": "zz"}, "('zz'): not a digest"),
    ({"tokenizers": "pretrained:gpt2", "files": "x" * 100}, "('" + "x" * 40 + "…'): not a digest"),
    ({"files": "ab" * 32}, f"('{'ab' * 20}…'): no imported tokenizer"),
    ({"tokenizers": "imported:mine", "files": f"{'ab' * 32},{'cd' * 32}"}, f"('{'cd' * 20}…'): no imported"),
])
def test_a_bad_compare_link_only_warns(params, needle):
    at = new_session("pages/compare.py", **params)
    assert any(needle in w.value.replace("\\", "") for w in at.warning), [w.value for w in at.warning]
    assert at.text_area(key="compare_text").value == compare.SAMPLES[compare.DEFAULT_SAMPLE]


def test_an_empty_text_shows_no_ratio():
    at = new_session("pages/compare.py")
    at.text_area(key="compare_text").input("").run()
    panels = [body for body in drawn_html(at) if body.startswith('<div class="tp-panel"')]
    assert panels and all("<b>—</b> chars/token" in p and "<b>—</b> bytes/token" in p for p in panels)
    assert not any("0.00" in p for p in panels)


def _paste_and_train(text: str) -> AppTest:
    at = new_session()
    at.text_area(key="corpus_paste").input(text)
    at.button(key="corpus_use_paste").click().run()
    at.number_input(key="corpus_bpe_vocab_size").set_value(60).run()
    at.button(key="corpus_train").click().run()
    assert not at.exception and state.get_results(at.session_state) is not None
    return at


def test_a_pasted_corpus_settings_and_results_come_back_in_a_new_session(own_store):
    at = _paste_and_train("low lower lowest newer newest wider widest " * 20)
    link = params_of(at)
    assert set(link) == {"corpus", "settings", "trained"}
    assert all(corpus_store.valid_digest(v) for v in link.values())
    # the Merges page at step 3, then its address opened in a new session (F5 or another browser)
    at.switch_page("pages/merges.py").run()
    for _ in range(3):
        step_press(at, "next")
    # the server leaves the step in the address to the stepper's script, which writes it there
    # (browser_stepper.js: address); AppTest runs no script, so the address a reload finds is made here
    assert params_of(at)["step"] == "0"
    merges_link = {**params_of(at), "step": "3"}
    assert merges_link["corpus"] == link["corpus"]
    again = new_session("pages/merges.py", **merges_link)
    corpus, results = state.get_corpus(again.session_state), state.get_results(again.session_state)
    assert corpus == state.get_corpus(at.session_state)
    assert corpus.source == "paste" and corpus.name == "Pasted text"
    assert state.get_settings(again.session_state) == state.get_settings(at.session_state)
    assert state.get_settings(again.session_state).bpe.vocab_size == 60
    assert results is not None and results.corpus_digest == corpus.digest
    assert results.settings == state.get_results(at.session_state).settings
    assert state.get_step("bpe", again.session_state) == 3
    assert not any("Nothing trained yet" in i.value for i in again.info)
    assert params_of(again) == merges_link
    # the Compare page of that session offers the trained tokenizers
    again.switch_page("pages/compare.py").run()
    assert "trained:bbpe:merges" in again.multiselect(key="compare_tokenizers").value


def test_a_link_whose_corpus_is_gone_says_so_and_offers_the_corpus_page():
    at = new_session("pages/merges.py", corpus="ab" * 32, trained="cd" * 32, step="2")
    assert any("no longer kept on this server" in w.value for w in at.warning)
    assert any(link.proto.page.endswith("corpus.py") or "Corpus" in link.proto.label for link in at.get("page_link"))
    assert state.get_corpus(at.session_state) is None
    assert "corpus" not in params_of(at)          # the dead reference is not kept in the address


@pytest.mark.parametrize("bad", ["../../etc/passwd", "/etc/passwd", "AB" * 32, "ab" * 31])
def test_a_corpus_key_that_is_not_a_digest_is_refused(bad, own_store):
    at = new_session("pages/corpus.py", corpus=bad)
    assert any("not a corpus reference" in w.value for w in at.warning)
    assert state.get_corpus(at.session_state) is None
    assert not own_store.exists() or all(p.parent == own_store for p in own_store.rglob("*"))


def test_an_address_the_page_wrote_a_moment_ago_is_not_a_new_link():
    """The browser sends its address with every rerun it asks for; under load that address can be
    one the page wrote a run ago (a pause in typing wrote ?text=Reloa, the rest was typed, then a
    toggle was clicked at once). The page keeps what the user did, and its address catches up."""
    at = new_session("pages/compare.py")
    at.text_area(key="compare_text").input("Reloa").run()
    assert params_of(at)["text"] == "Reloa"
    at.text_area(key="compare_text").input("Reload keeps this").run()
    at.query_params["text"] = "Reloa"           # the browser had not yet got the last run's address
    at.toggle(key="compare_grouped").set_value(True).run()
    assert not at.exception, at.exception
    assert at.text_area(key="compare_text").value == "Reload keeps this"
    assert params_of(at)["text"] == "Reload keeps this" and params_of(at)["group"] == "1"


def test_a_link_the_session_never_wrote_is_opened_in_the_same_session():
    at = new_session("pages/compare.py")
    at.text_area(key="compare_text").input("first text").run()
    at.query_params["text"] = "a pasted link"     # typed into the address bar: a new link
    at.run()
    assert at.text_area(key="compare_text").value == "a pasted link"


def test_an_echo_is_one_only_for_a_while(monkeypatch):
    session: dict = {}
    clock = [100.0]
    monkeypatch.setattr(state.time, "monotonic", lambda: clock[0])
    state.set_url_params({"text": "Reloa", "corpus": "ab" * 32}, session)   # the app's link is not the page's
    assert state.is_echo({"text": "Reloa"}, session)
    assert not state.is_echo({"text": "Reload"}, session)
    clock[0] += state.ECHO_SECONDS
    assert not state.is_echo({"text": "Reloa"}, session)   # long after: Back to it is a link again


def test_a_merges_link_to_a_preset_keeps_a_corpus_loaded_and_not_trained():
    # the corpus and its settings are the user's: a link (Back, one pasted in this tab) says what it
    # is for and replaces nothing; with no corpus at all it trains its preset as before
    at = new_session()
    at.text_area(key="corpus_paste").input("my own corpus, words words words " * 5).run()
    at.button(key="corpus_use_paste").click().run()
    corpus = state.get_corpus(at.session_state)
    assert corpus is not None and corpus.preset is None
    at.switch_page("pages/merges.py").run()
    at.query_params["preset"] = "seed-000"
    at.query_params["step"] = "2"
    at.run()
    assert not at.exception
    assert state.get_corpus(at.session_state) is corpus and state.get_results(at.session_state) is None
    assert any("this session has another corpus loaded, kept" in w.value for w in at.warning)
    fresh = new_session("pages/merges.py", preset="seed-000", step="2")
    assert state.get_corpus(fresh.session_state).preset == "seed-000"
    assert state.get_results(fresh.session_state) is not None


def test_a_link_reference_that_is_not_a_digest_is_said_so_not_called_gone(own_store):
    at = new_session()
    at.button(key="corpus_start_seed-000").click().run()
    kept = params_of(at)["corpus"]
    again = new_session("pages/corpus.py", corpus=kept, trained="not-a-digest")
    shown = [m.value for m in again.info]
    assert any("Ignored the link's trained=: it is not a reference" in m for m in shown), shown
    assert not any("no longer kept" in m for m in shown)
    assert state.get_corpus(again.session_state).preset == "seed-000"     # the rest of the link applies


def test_the_spinner_restoring_a_links_tokenizers_shows_the_corpus_name_as_typed(own_store, monkeypatch):
    """An uploaded file's name, quoted by the spinner a link's retraining shows (Markdown): shown as
    typed, not as LaTeX, bold or a link."""
    import streamlit as st

    from playground import views
    from playground.state import Corpus, Settings
    from tests.app.test_hardening_app import audit_markdown
    from tests.support import PAYLOADS
    name = "$x^2$ " + PAYLOADS[-1] + " " + PAYLOADS[4] + ".txt"
    corpus = Corpus.from_text(name, "low lower lowest newer newest wider widest " * 5, "upload")
    settings = Settings()
    said, real = [], st.spinner

    def spinner(text="", *args, **kwargs):
        said.append(text)
        return real(text, *args, **kwargs)
    monkeypatch.setattr(st, "spinner", spinner)
    again = new_session("pages/corpus.py", corpus=corpus_store.put_corpus(corpus),
                        trained=corpus_store.put_settings(settings))
    assert state.get_results(again.session_state) is not None
    restoring = [t for t in said if t.startswith("Restoring")]
    assert len(restoring) == 1
    audit_markdown(restoring[0])
    assert views.md_escape(name) in restoring[0]
