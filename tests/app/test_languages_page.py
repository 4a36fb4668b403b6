"""The Token tax page headless: every installed pretrained tokenizer and the trained ones encode
the UDHR in every language; the table's values are the counts of a direct encode, relative to
English; a trained tokenizer's bytes-per-token curve is drawn; a missing package is a note."""
from __future__ import annotations

import json

from core.pretrained import load_pretrained, pretrained_names
from playground import state
from playground import token_tax as tt
from streamlit.testing.v1 import AppTest

from tests.app.conftest import TIMEOUT, goto, new_app, tiktoken_file, trained_app
from tests.support import APP


def test_page_runs_with_every_pretrained_tokenizer_and_draws_the_chart():
    at = goto(new_app(), "pages/languages.py")
    assert at.title[0].value == "Token tax"
    chosen = at.multiselect(key="languages_tokenizers").value
    assert chosen and all(k.startswith("pretrained:") for k in chosen)
    charts = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    heat = next(c for c in charts if c["data"][0]["type"] == "heatmap")
    assert len(heat["data"][0]["y"]) == len(tt.languages())
    assert len(heat["data"][0]["x"]) == len(chosen)


def test_table_values_are_direct_encode_counts_relative_to_english():
    at = goto(new_app(), "pages/languages.py")
    frame = at.dataframe[0].value
    names = [k.split(":", 1)[1] for k in at.multiselect(key="languages_tokenizers").value]
    assert set(names) <= set(pretrained_names())
    checked = 0
    for name in names[:4]:
        tok = load_pretrained(name)
        label = next(c for c in frame.columns if c not in ("language", "code", "characters", "bytes")
                     and c.startswith(tt_label_start(name)))
        eng = len(tok.encode(tt.languages()[0].text).ids)
        for lang in tt.languages()[::7]:
            row = frame[frame["code"] == lang.code].iloc[0]
            assert abs(row[label] - len(tok.encode(lang.text).ids) / eng) < 1e-9, (name, lang.code)
            checked += 1
    assert checked >= 4
    # the counts view: the token counts themselves
    at.radio(key="languages_table_view").set_value("token counts").run()
    counts = at.dataframe[0].value
    tok = load_pretrained(names[0])
    label = next(c for c in counts.columns if c.startswith(tt_label_start(names[0])))
    thai = next(lang for lang in tt.languages() if lang.code == "tha")
    assert counts[counts["code"] == "tha"].iloc[0][label] == len(tok.encode(thai.text).ids)


def tt_label_start(name: str) -> str:
    from playground.compare import PRETRAINED_LABELS
    return PRETRAINED_LABELS.get(name, name)


def test_sorting_puts_the_dearest_language_first():
    at = goto(new_app(), "pages/languages.py")

    def heat_rows():     # the heat map's languages, top first (its figure is kept per content)
        return json.loads(at.get("plotly_chart")[0].proto.spec)["data"][0]["y"]
    before = heat_rows()
    label = at.selectbox(key="languages_sort").options[1]
    at.selectbox(key="languages_sort").set_value(label).run()
    frame = at.dataframe[0].value
    values = [v for v in frame[label] if v == v]
    assert values == sorted(values, reverse=True) and values[0] > 1
    dearest = frame["language"].iloc[0]
    assert heat_rows() != before and heat_rows()[0].startswith(dearest[:10])


def test_trained_tokenizers_join_and_draw_bytes_per_token_against_vocabulary():
    at = trained_app()
    goto(at, "pages/languages.py")
    options = at.multiselect(key="languages_tokenizers").options
    assert any(o.startswith("trained:") or "(trained)" in o for o in options)
    charts = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    curve = next(c for c in charts if c["data"][0]["type"] == "scatter")
    results = state.get_results(at.session_state)
    assert len(curve["data"]) == len(results.traces())
    xs = curve["data"][0]["x"]
    assert xs == sorted(xs) and len(xs) > 1


def test_bytes_per_token_is_measured_by_direct_encode():
    at = trained_app()
    results = state.get_results(at.session_state)
    trace = results.trace("bbpe")
    text = tt.languages()[0].text
    frame = tt.bytes_per_token(trace, text, points=3)
    from core.encoders import TrainedTokenizer
    last = TrainedTokenizer.from_trace(trace)
    assert frame["step"].iloc[-1] == len(trace.steps)
    assert frame["bytes_per_token"].iloc[-1] == len(text.encode()) / len(last.encode(text).ids)
    assert frame["bytes_per_token"].iloc[0] <= frame["bytes_per_token"].iloc[-1]


def test_an_imported_tokenizer_joins_and_its_name_stays_text():
    from core.formats import load_tokenizer_bytes
    from tests.support import PAYLOADS
    from playground import charts, markup
    at = new_app()
    name = PAYLOADS[0]
    state.add_imported(name, load_tokenizer_bytes(tiktoken_file(), "ranks.tiktoken"), at.session_state)
    at.session_state["languages_tokenizers"] = [f"imported:{name}"]
    goto(at, "pages/languages.py")
    heat = json.loads(at.get("plotly_chart")[0].proto.spec)["data"][0]
    assert heat["x"] == [markup.text(charts.shorten(name, charts.TOKENIZER_LABEL_WIDTH))] and "<img" not in json.dumps(heat)
    assert name in at.dataframe[0].value.columns


def test_the_view_is_in_the_address_and_reopens_on_reload():
    at = goto(new_app(), "pages/languages.py")
    chosen = ["pretrained:gpt2", "pretrained:o200k_base"]
    at.multiselect(key="languages_tokenizers").set_value(chosen).run()
    at.selectbox(key="languages_sort").set_value("pretrained:o200k_base").run()
    at.radio(key="languages_table_view").set_value("token counts").run()
    address = dict(at.query_params)
    assert address == {"tokenizers": ",".join(chosen), "sort": "pretrained:o200k_base", "view": "counts"}
    again = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    again.query_params.update({**address, "held": "nowhere"})
    again.switch_page("pages/languages.py").run()
    assert not again.exception, again.exception
    assert again.multiselect(key="languages_tokenizers").value == chosen
    assert again.selectbox(key="languages_sort").value == "pretrained:o200k_base"
    assert again.radio(key="languages_table_view").value == "token counts"
    assert any("Ignored held=" in i.value.replace("\\", "") for i in again.info)
    frame = again.dataframe[0].value
    o200k = [v for v in frame[frame.columns[-1]]]
    assert o200k == sorted(o200k, reverse=True)


def test_a_vocabulary_without_an_unknown_token_is_measured_on_what_it_covers():
    at = trained_app()
    trace = state.get_results(at.session_state).trace("bpe")     # seed 000: characters of a few words
    text = tt.languages()[0].text
    frame = tt.bytes_per_token(trace, text, points=2)
    from core.encoders import TrainedTokenizer
    tok = TrainedTokenizer.from_trace(trace)
    covered = tokens = 0
    for chunk in tok.front(text).chunks:
        try:
            tokens += len(tok.encode(chunk.plain).ids)
            covered += len(chunk.plain.encode())
        except Exception:   # noqa: BLE001 - a piece with a character the vocabulary never saw
            continue
    last = frame.iloc[-1]
    assert 0 < last["coverage"] < 1 and last["coverage"] == covered / len(text.encode())
    assert last["bytes_per_token"] == covered / tokens


def test_a_language_spelled_mostly_as_unknown_tokens_is_flagged():
    at = goto(new_app(), "pages/languages.py")
    at.multiselect(key="languages_tokenizers").set_value(["pretrained:bert-base-uncased", "pretrained:gpt2"]).run()
    notes = [c.value.replace("\\", "") for c in at.caption if "unknown token" in c.value]
    assert len(notes) == 1 and notes[0].startswith("BERT base uncased") and "Burmese" in notes[0]
    bert = load_pretrained("bert-base-uncased")
    burmese = next(lang for lang in tt.languages() if lang.code == "mya")
    ids = bert.encode(burmese.text).ids
    assert sum(i == bert.token_to_id("[UNK]") for i in ids) / len(ids) > tt.UNKNOWN_SHARE
    assert tt.unknown_languages(load_pretrained("gpt2"), tt.languages()) == []   # byte-level: nothing lost


def test_a_removed_import_leaves_the_choice_without_breaking_the_page():
    from core.formats import load_tokenizer_bytes
    at = new_app()
    state.add_imported("mine", load_tokenizer_bytes(tiktoken_file(), "mine.tiktoken"), at.session_state)
    at.session_state["languages_tokenizers"] = ["imported:mine", "pretrained:gpt2"]
    goto(at, "pages/languages.py")
    assert "mine" in at.dataframe[0].value.columns
    state.remove_imported("mine", at.session_state)
    goto(at, "pages/inspect.py")
    goto(at, "pages/languages.py")
    assert at.multiselect(key="languages_tokenizers").value == ["pretrained:gpt2"]
    assert "mine" not in at.dataframe[0].value.columns


def test_an_imported_name_in_the_blank_cells_note_is_escaped():
    """The note naming the tokenizers that cannot encode some scripts quotes an imported file's
    name: Markdown there is shown as typed (it was drawn: `$x^2$` as LaTeX, `**b**` bold)."""
    from core.corpus import count_words
    from core.encoders import TrainedTokenizer
    from core.trainer import TrainConfig, train as train_trace
    from playground import views
    from tests.app.test_hardening_app import audit_markdown, md_plain
    from tests.support import PAYLOADS
    name = "$x^2$ " + PAYLOADS[-1] + " " + PAYLOADS[4]
    tok = TrainedTokenizer.from_trace(train_trace(count_words("low lower lowest", "whitespace"),
                                                  TrainConfig(model="bpe", vocab_size=20)))   # no unknown token
    at = new_app()
    state.add_imported(name, tok, at.session_state)
    at.session_state["languages_tokenizers"] = [f"imported:{name}"]
    goto(at, "pages/languages.py")
    note = next(c.value for c in at.caption if "cannot encode some scripts" in c.value)
    audit_markdown(note)
    assert views.md_escape(name) in note and f"Blank: {name} cannot" in md_plain(note)
