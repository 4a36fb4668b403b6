"""Driving the app headless through streamlit.testing.v1.AppTest: one helper per action, each
checking that nothing raised. The page tests of this folder import them from here."""
from __future__ import annotations

import base64

import pytest
from streamlit.testing.v1 import AppTest

from playground import state
from tests.support import APP

INSPECT_TABS = ["Pipeline", "Walk a word", "Vocabulary", "Export & import", "Session"]
COMPARE_TABS = ["Tokens", "Boundaries", "Encoder differences"]
TIMEOUT = 180   # seconds for one run of the script: two cores shared with other test runs


def new_app() -> AppTest:
    """A fresh session, run once (the Corpus page)."""
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    at.run()
    assert not at.exception
    return at


def load_preset(at: AppTest, key: str = "seed-000") -> AppTest:
    at.selectbox(key="corpus_preset").set_value(key)
    at.button(key="corpus_load_preset").click().run()
    assert not at.exception, at.exception
    return at


def train(at: AppTest) -> AppTest:
    at.button(key="corpus_train").click().run()
    assert not at.exception, at.exception
    return at


def trained_app(preset: str = "seed-000") -> AppTest:
    """A new session with preset `preset` loaded and trained through the Corpus page."""
    at = train(load_preset(new_app(), preset))
    assert state.get_results(at.session_state) is not None
    return at


def paste(at: AppTest, text: str) -> AppTest:
    at.text_area(key="corpus_paste").input(text)
    at.button(key="corpus_use_paste").click().run()
    assert not at.exception, at.exception
    return at


def goto(at: AppTest, page: str, tab: str | None = None) -> AppTest:
    """Switch to `page` (pages/….py), on `tab` for Inspect and Compare."""
    if tab is not None:
        at.session_state["inspect_tab" if "inspect" in page else "compare_tab"] = tab
    at.switch_page(page).run()
    assert not at.exception, (page, tab, at.exception)
    return at


def tiktoken_file() -> bytes:
    """A small valid .tiktoken ranks file: the 256 single bytes, then a few merges (ranks after them)."""
    tokens = [bytes([b]) for b in range(256)] + [b"lo", b"low", b"es", b"est", b"lowest", b" l"]
    return b"".join(base64.b64encode(t) + b" " + str(r).encode() + b"\n" for r, t in enumerate(tokens))


@pytest.fixture
def without_llama_models(monkeypatch):
    """llama-models as if not installed: its two tokenizers must vanish from every list, with a note."""
    import core.pretrained as cp
    from playground import tokenizers

    real = cp._package_dir
    monkeypatch.setattr(cp, "_package_dir", lambda package: None if package == "llama_models" else real(package))
    tokenizers.installed_pretrained.clear()
    tokenizers.unavailable_pretrained.clear()
    yield
    tokenizers.installed_pretrained.clear()
    tokenizers.unavailable_pretrained.clear()
