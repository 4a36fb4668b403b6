"""The Corpus page's first steps (AppTest): a first screen with one-click starts; Train trains what
is on screen (the button names its corpus, pasted text trains in one click, never the previous
corpus silently); a hint for scripts without spaces that switches the pre-tokenizer in one click;
vocabulary sizes that follow the corpus; why the alphabets differ in size."""
from pathlib import Path

from streamlit.testing.v1 import AppTest

from playground import state
from tests.app.conftest import new_app

STYLE = Path(__file__).resolve().parents[2] / "playground" / "style.css"
# 60 lines of Chinese and English, as in the report: an alphabet of hundreds of characters
CHINESE = "".join(chr(0x4E00 + (i * 37 + j * 11) % 2500) for i in range(60) for j in range(9))
MIXED = "\n".join(f"{CHINESE[i * 9:(i + 1) * 9]}是第{i}行。line {i} of the text" if i % 6 == 0
                  else f"{CHINESE[i * 9:(i + 1) * 9]}，这是第{i}行的句子。" for i in range(60))


def run(target) -> AppTest:
    at = target.run()
    assert not at.exception, at.exception
    return at


def texts(at: AppTest) -> str:
    return "\n".join([m.value for m in at.markdown] + [c.value for c in at.caption] + [w.value for w in at.warning]
                     + [i.value for i in at.info] + [s.value for s in at.success] + [e.value for e in at.error])


def test_first_screen_says_what_this_is_and_starts_in_one_click():
    at = new_app()
    assert "See how a tokenizer learns its vocabulary" in texts(at)
    labels = [b.label for b in at.button]
    for label in ("The seed's first example", "A Chinese paragraph", "The King James Bible", "Paste your own text"):
        assert label in labels, labels
    run(at.button(key="corpus_start_seed-000").click())
    results = state.get_results(at.session_state)
    assert results is not None and results.corpus_name.startswith("Seed 000")
    assert "Loaded and trained" in texts(at)
    assert "See how a tokenizer learns" not in texts(at)      # gone once there is a corpus


def test_train_names_its_corpus_and_pasted_text_is_never_ignored():
    at = new_app()
    run(at.button(key="corpus_start_seed-000").click())
    assert at.button(key="corpus_train").label == "Train all three on “Seed 000 · highest higher lower… \\(BPE with \\<\\/w\\>\\)”"
    # text pasted but not "used": the page says so and trains it in one click
    run(at.text_area(key="corpus_paste").input("the quick brown fox jumps over the lazy dog " * 20))
    assert "The Paste tab holds text that is not the current corpus" in texts(at)
    run(at.button(key="corpus_train_paste").click())
    corpus, results = state.get_corpus(at.session_state), state.get_results(at.session_state)
    assert corpus.name == "Pasted text" and results.corpus_digest == corpus.digest
    assert at.button(key="corpus_train").label == "Train all three on “Pasted text”"
    assert "The Paste tab holds text" not in texts(at)


def test_a_mixed_chinese_corpus_gets_a_vocabulary_that_fits_and_a_split_hint():
    at = new_app()
    run(at.text_area(key="corpus_paste").input(MIXED))
    run(at.button(key="corpus_use_paste").click())
    text = texts(at)
    # the default vocabulary size (500) was below this corpus's alphabet: it now follows the corpus
    assert "Vocabulary sizes set to this corpus's alphabet plus 200 merges" in text
    sizes = {m: at.number_input(key=f"corpus_{m}_vocab_size").value for m in ("bpe", "bbpe", "wordpiece")}
    assert sizes["bpe"] > 500 and sizes["wordpiece"] > sizes["bpe"]
    assert "room for 200 merges" in text and "##" in text and "256 bytes" in text   # why alphabets differ
    # most lines are one "word" at spaces: the hint, and one click to split per character
    assert "of the lines are one long “word”" in text
    run(at.button(key="corpus_train").click())
    assert not at.error and state.get_results(at.session_state) is not None    # trains first time
    run(at.button(key="corpus_split_chars").click())
    settings = state.get_settings(at.session_state)
    assert settings.bpe.pre_tokenizer == "chars" and settings.wordpiece.pre_tokenizer == "chars"
    assert "one long “word”" not in texts(at)
    run(at.button(key="corpus_train").click())
    assert not at.error


def test_a_vocabulary_below_the_alphabet_is_fixed_in_one_click():
    at = new_app()
    run(at.button(key="corpus_start_seed-000").click())
    run(at.number_input(key="corpus_bpe_vocab_size").set_value(3))
    assert "no room for any merge" in texts(at)
    run(at.button(key="corpus_fit_vocab").click())
    assert at.number_input(key="corpus_bpe_vocab_size").value == 12 + 200
    run(at.button(key="corpus_train").click())
    assert not at.error


def test_settings_reach_the_browser_in_every_run():
    """A widget's value reaches the browser only in a run that writes it; drawn first in a later run,
    it would show its own default (1 for a vocabulary size) and send that back with the next click.
    So every run writes the settings widgets: each run's number inputs carry their value."""
    at = new_app()
    run(at.text_area(key="corpus_paste").input("abab " * 6 + "xyz"))
    run(at.button(key="corpus_use_paste").click())
    run(at)                                                  # a later run that changed nothing
    for model, size in (("bpe", 500), ("bbpe", 512), ("wordpiece", 500)):
        proto = at.number_input(key=f"corpus_{model}_vocab_size").proto
        assert proto.set_value and proto.value == size, (model, proto.set_value, proto.value)
    run(at.button(key="corpus_train").click())
    assert "Trained all three" in [s.label for s in at.status] or state.get_results(at.session_state) is not None
    assert state.get_settings(at.session_state).bpe.vocab_size == 500


def test_the_charts_code_is_loaded_once_there_is_a_corpus():
    """Once a corpus is loaded, the Corpus page draws one hidden chart (style.css hides its box), so
    the browser has Plotly's code before the Merges page needs it; on the first screen it draws none,
    and after that one run none (the code stays loaded; Plotly would draw it at every visit)."""
    at = new_app()
    assert not at.get("plotly_chart")
    run(at.button(key="corpus_start_seed-000").click())
    charts = at.get("plotly_chart")
    assert len(charts) == 1
    run(at)
    assert not at.get("plotly_chart")
    hidden = [rule for rule in STYLE.read_text(encoding="utf-8").splitlines() if rule.endswith("{display:none}")]
    assert any(".st-key-merges_chart_warm" in rule for rule in hidden)
