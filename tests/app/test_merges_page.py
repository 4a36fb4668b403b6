"""The Merges page headless (AppTest): step through every seed preset and check what each step
says against the seed; the controls, lockstep, autoplay's steps, links (good and malformed), and
escaping of corpus text. Pixels and keys are the browser tests' job (test_browser_merges.py)."""
import html
import json
import re
from dataclasses import replace

import pytest
from streamlit.testing.v1 import AppTest

from core.trainer import MODELS
from playground import browser_stepper, html_panel, labels, merges_control, state
from playground import stepper as stepper_module
from tests.app.conftest import new_app, trained_app
from tests.support import APP, bar_labels, drawn_html, step_press, stepper, tell

PAGE = "pages/merges.py"


def trained(key: str) -> AppTest:
    """A session with preset `key` loaded and trained through the Corpus page, on the Merges page."""
    return run(trained_app(key).switch_page(PAGE))


def run(target) -> AppTest:
    """Run the app (an AppTest, or a widget just set or clicked) and check nothing raised."""
    at = target.run()
    assert not at.exception, at.exception
    return at


def sentences(at: AppTest) -> list[tuple[int, str]]:
    """(step, plain text) of every step sentence drawn, in page order."""
    out = []
    for body in drawn_html(at, markdown=True):     # html panels (Merges), markdown (Unigram in lockstep)
        found = re.search(r'<div class="mg-sentence[^"]*" data-step="(\d+)">(.*)</div>', body, re.S)
        if found:
            out.append((int(found.group(1)), html.unescape(re.sub(r"<[^>]+>", "", found.group(2)))))
    return out


def sentence(at: AppTest) -> tuple[int, str]:
    shown = sentences(at)
    assert len(shown) == 1, shown
    return shown[0]


def press(at: AppTest, name: str) -> AppTest:
    """A press of the stepper's First, Previous, Play / Pause, Next or Last."""
    at = step_press(at, name)
    assert not at.exception, at.exception
    return at


def jump(at: AppTest, k: int) -> AppTest:
    """The stepper's slider moved to step k."""
    at = tell(at, step=k)
    assert not at.exception, at.exception
    return at


def at_end(at: AppTest) -> bool:
    """Next and Last are disabled (the stepper's script disables them at its last step)."""
    now = stepper(at)
    return now["step"] >= now["last"]


def pick_model(at: AppTest, model: str) -> AppTest:
    return run(at.button_group(key="merges_model").set_value(model))


def step_through(at: AppTest, expected: list[tuple[tuple[str, str], str, int]], n_steps: int,
                 score: bool = False) -> None:
    """Press Next from step 0 to the end; each step must name its pair, new token and count."""
    k, text = sentence(at)
    assert k == 0 and text.startswith(f"Step 0 of {n_steps}: before any merge")
    for i in range(1, n_steps + 1):
        press(at, "next")
        k, text = sentence(at)
        assert k == i and text.startswith(f"Step {i} of {n_steps}: ")
        assert at.query_params["step"] == "0"      # a step's run leaves the address to the stepper
        if i <= len(expected):
            (a, b), token, count = expected[i - 1]
            assert f"({a}, {b}) → {token}, id " in text, text
            assert (f"with count {count}." in text) if score else (f"seen {count} times." in text), text
    assert at_end(at)


def check_against_trace(at: AppTest, model: str) -> None:
    """Every step of the trace, jumped to with the slider: the sentence names its pair and count."""
    trace = state.get_results(at.session_state).trace(model)
    tok = stepper_module.tokenizer_at(trace, len(trace.steps))
    # byte-level tokens read as their bytes say (labels.readable), else as spelled
    show = (lambda t: labels.readable(tok.token_bytes(tok.token_to_id(t)))) if trace.config.byte_level \
        else stepper_module.show_token
    for step in trace.steps:
        jump(at, step.index)
        k, text = sentence(at)
        a, b = (show(t) for t in step.pair)
        assert k == step.index and f"({a}, " in text and f", {b}" in text
        assert f" → {show(step.token)}" in text and f", id {step.id}" in text
        assert f"{step.count:,}" in text
        assert (f"{step.tied:,} pairs tied at" in text) if step.tied > 1 else "No tie" in text


# ---------------------------------------------------------------- the seeds, step by step

def test_seed_000_step_by_step():
    at = trained("seed-000")
    assert at.title[0].value == "Merges" and "Trained on: Seed 000" in at.caption[0].value
    expected = [(("e", "s"), "es", 3), (("es", "t"), "est", 3), (("est", "</w>"), "est</w>", 3),
                (("e", "r"), "er", 3), (("er", "</w>"), "er</w>", 3)]
    ties = [5, 4, 3, 2, 1]
    k, text = sentence(at)
    assert k == 0 and stepper(at)["step"] == 0         # First and Previous disabled
    for i, ((pair, token, count), tied) in enumerate(zip(expected, ties), start=1):
        press(at, "next")
        k, text = sentence(at)
        assert k == i and f"({pair[0]}, {pair[1]}) → {token}, id {11 + i}, seen {count} times." in text
        assert (f"{tied} pairs tied at 3; first took ({pair[0]}, {pair[1]})" in text) if tied > 1 else \
            "No tie: the only pair at 3." in text
    # words changed: the last merge (er, </w>) changed higher, lower, cooler
    words = [h for h in drawn_html(at) if "mg-words" in h][0]
    assert words.count('class="mg-count"') == 3 and "All 3 words this merge changed" in " ".join(notes(at))


def pair_bars(at) -> list:
    """The pair charts drawn (html_panel elements holding charts.pair_bars_html)."""
    from playground import html_panel
    return [e for e in at._tree if e.type == "bidi_component" and e.key != html_panel.PRELOAD_KEY
            and 'class="mg-bars' in html_panel.drawn(e)]


def test_step_0_shows_the_pairs_the_first_merge_chooses_from():
    """Before any merge the pair chart is already there: the first merge's candidates, counted before
    it, the winner-to-be in red; Next then shows step 1's chart in the same element (same key),
    which the browser updates instead of drawing anew. Its caption says which it is."""
    from playground import html_panel
    at = trained("seed-000")
    trace = state.get_results(at.session_state).trace("bpe")
    charts = pair_bars(at)
    assert len(charts) == 1 and len(at.get("plotly_chart")) == 1    # the pairs; the training curves
    before = html_panel.drawn(charts[0])
    captions = " ".join(notes(at))
    assert "Before any merge, the 10 best pairs by count: the first merge takes the one in red" in captions
    assert "5 pairs shared the top count" in captions
    assert any("Nothing merged yet: press <strong>Next</strong>" in h for h in drawn_html(at))
    press(at, "next")
    [chart] = pair_bars(at)
    assert chart.key == charts[0].key == state.MergesKeys.pairs("bpe")   # the same element, updated
    after = html_panel.drawn(chart)
    assert before == after                                               # step 1 chose from these
    bars = bar_labels(after)
    first = trace.steps[0].pair
    assert bars[0] == html.escape(f"{first[0]} + {first[1]}"), bars       # the winner, at the top
    captions = " ".join(notes(at))
    assert "The 10 best pairs at this step by count: the winner in red" in captions
    assert "Before any merge" not in captions and not any("Nothing merged yet" in h for h in drawn_html(at))
    press(at, "first")
    assert "Before any merge" in " ".join(notes(at))


def test_seed_004_bpe_and_wordpiece():
    at = trained("seed-004")
    step_through(at, [(("e", "s"), "es", 9), (("es", "t"), "est", 9), (("l", "o"), "lo", 7)], 3)
    pick_model(at, "wordpiece")
    assert at.query_params["tokenizer"] == "wordpiece"
    k, _ = sentence(at)
    assert k == 0   # WordPiece keeps its own step
    step_through(at, [(("w", "##i"), "wi", 3), (("wi", "##d"), "wid", 3), (("l", "##o"), "lo", 7),
                      (("##s", "##t"), "##st", 9)], 4, score=True)
    # a word-count table: the corpus is drawn from the table's words
    assert any("The corpus is a word-count table: its 4 words" in n for n in notes(at))


def test_seed_001_bpe_and_byte_level():
    # over gpt2's bytes, tokens read as their bytes say (Ġ is a space, shown ⋅); GPT-2's spelling
    # (Ġt) stays in each token's tooltip
    at = trained("seed-001")
    step_through(at, [(("⋅", "t"), "⋅t", 7), (("i", "s"), "is", 5), (("e", "r"), "er", 5), (("⋅", "a"), "⋅a", 5),
                      (("⋅t", "o"), "⋅to", 4), (("e", "n"), "en", 4), (("T", "h"), "Th", 3),
                      (("Th", "is"), "This", 3)], 19)
    assert "⋅tokeni" in sentence(at)[1]          # the seed's last merge
    html_ = [h for h in drawn_html(at) if "mg-sentence" in h][0]
    assert 'title="spelled Ġtokeni in the vocabulary' in html_
    pick_model(at, "bbpe")
    check_against_trace(at, "bbpe")
    assert "→ ion," in sentence(at)[1]


def test_seed_003_chinese_and_english():
    at = trained("seed-003")
    trace = state.get_results(at.session_state).trace("bpe")
    seed = ["喜欢", "苹果", "at", "cu", "cut", "cute"]
    assert [s.token for s in trace.steps[:6]] == seed
    step_through(at, [(s.pair, s.token, s.count) for s in trace.steps[:6]], len(trace.steps))
    check_against_trace(at, "bpe")


# ---------------------------------------------------------------- controls

def test_first_last_previous_and_slider():
    at = trained("seed-000")
    press(at, "last")
    assert sentence(at)[0] == 5 and stepper(at)["step"] == 5
    press(at, "prev")
    assert sentence(at)[0] == 4
    press(at, "first")
    assert sentence(at)[0] == 0
    jump(at, 3)
    assert sentence(at)[0] == 3 and state.get_step("bpe", at.session_state) == 3
    # the step survives a trip to another page
    run(at.switch_page("pages/corpus.py"))
    run(at.switch_page(PAGE))
    assert sentence(at)[0] == 3 and stepper(at)["step"] == 3


def test_lockstep_steps_all_three_together():
    at = trained("seed-001")   # BPE 19 merges, byte-level BPE 23, WordPiece 19
    press(at, "next")
    run(at.toggle(key="merges_lockstep").set_value(True))
    assert [k for k, _ in sentences(at)] == [1, 1, 1]
    assert at.query_params["lockstep"] == "1"
    press(at, "next")
    shown = sentences(at)
    assert [k for k, _ in shown] == [2, 2, 2]
    assert all("(i, s) → is" in text for _, text in shown[:2])   # BPE and byte-level agree here
    press(at, "last")                                             # the longest: byte-level BPE's 23
    assert [k for k, _ in sentences(at)] == [19, 23, 19]
    assert any("Finished at step 19" in n for n in notes(at))
    assert stepper(at)["step"] == stepper(at)["last"] == 23
    run(at.toggle(key="merges_lockstep").set_value(False))
    assert sentence(at)[0] == 19   # BPE alone again, at its own last step


def test_autoplay_steps_and_stops_at_the_end():
    """Autoplay runs in the browser (browser_stepper.js): it steps on its clock and tells the server
    each step, with its play state; the server keeps the state (for the link and a reopened page)."""
    at = trained("seed-004")
    press(at, "play")
    view = state.get_merges_view(at.session_state)
    assert view.playing and stepper(at)["playing"] and sentence(at)[0] == 0
    for expected in (1, 2, 3):
        # the script's timer steps on and says it is still playing, up to the last step
        tell(at, step=expected, playing=expected < 3)
        assert sentence(at)[0] == expected and stepper(at)["step"] == expected
    assert not state.get_merges_view(at.session_state).playing     # stopped at the last step
    assert not stepper(at)["playing"]
    press(at, "play")                                                  # from the end: starts again
    assert sentence(at)[0] == 0 and state.get_merges_view(at.session_state).playing
    press(at, "play")
    assert not state.get_merges_view(at.session_state).playing
    # a tell that says it plays at the last step is taken as stopped there
    tell(at, step=stepper(at)["last"], playing=True)
    assert not stepper(at)["playing"] and not state.get_merges_view(at.session_state).playing


def test_a_step_leaves_the_address_to_the_stepper():
    """A run that only took a told step writes no address: the stepper has written the step into
    it (browser_stepper.js: address; Streamlit redraws its whole app for each address the server
    writes). A run that writes anything else writes the step it is at, and the address Streamlit
    keeps sending meanwhile (the one last written) opens no link."""
    at = trained("seed-000")
    press(at, "next")
    press(at, "next")
    assert sentence(at)[0] == 2 and at.query_params["step"] == "0"
    tell(at, step=3, speed=2.0)                                  # more than the step: written whole
    assert at.query_params["step"] == "3" and at.query_params["speed"] == "2"
    press(at, "next")
    assert sentence(at)[0] == 4 and at.query_params["step"] == "3"
    run(at.toggle(key="merges_lockstep").set_value(True))        # another control's whole run
    assert [k for k, _ in sentences(at)] == [4, 4, 4] and at.query_params["step"] == "4"
    assert at.query_params["lockstep"] == "1" and not at.warning


def test_speed_setting_is_kept_in_the_link():
    at = trained("seed-000")
    tell(at, speed=0.5)
    assert state.get_merges_view(at.session_state).speed == 0.5 and at.query_params["speed"] == "0.5"
    assert stepper(at)["speed"] == 0.5 and stepper(at)["speeds"] == list(stepper_module.SPEEDS)


def test_the_server_takes_each_tell_once_and_checks_it():
    """What the browser tells is input like any other: applied once (by its sequence number), only
    for the trace it was about, its step clamped and an unknown speed ignored."""
    at = trained("seed-000")
    tell(at, step=2)
    assert sentence(at)[0] == 2 and stepper(at)["told"] == 1
    seq = stepper(at)["told"]
    # an old tell arriving again (the same number) changes nothing
    at.session_state[state.MergesKeys.STEPPER] = {"told": {**_told(at), "seq": seq, "step": 4}}
    run(at)
    assert sentence(at)[0] == 2
    tell(at, step=99)
    assert sentence(at)[0] == 5                         # clamped to the last step
    tell(at, step="3", speed=0.25)
    assert sentence(at)[0] == 5 and state.get_merges_view(at.session_state).speed == 1.0
    tell(at, step=1, trace="another trace")             # for another tokenizer: counted, not applied
    assert sentence(at)[0] == 5 and stepper(at)["told"] == seq + 3
    tell(at, step=True)
    assert sentence(at)[0] == 5


def test_the_stepper_knows_its_server_session():
    """A page that outlived its server session (a restart under it) counts its tells anew: the
    stepper is told which session it talks to, the same at every run of one (AppTest gives every
    app the same session id, so two sessions are not told apart here)."""
    at = trained("seed-000")
    first = stepper(at)["session"]
    press(at, "next")
    run(at.switch_page("pages/corpus.py"))
    run(at.switch_page(PAGE))
    assert stepper(at)["session"] == first and len(first) == 12 and first.isalnum()


def _told(at: AppTest) -> dict:
    now = stepper(at)
    return {"step": now["step"], "playing": now["playing"], "speed": now["speed"], "trace": now["trace"],
            "view": now["view"], "have": []}


def test_the_stepper_holds_the_steps_around_the_current_one():
    """The step's sentence, pairs and changed words, the curves' mark, the corpus and the merge tree
    (with their captions) are hosts drawn by the page's whole run; the stepper carries the same HTML
    for the steps around the current one, which its script draws into them at a press without
    waiting for the server (test_browser_merges.py sees it). A run sends only the steps the page
    says it lacks. In lockstep the fragment draws the three tokenizers' steps itself, and the
    window carries only what is below them."""
    K = state.MergesKeys
    at = trained("seed-000")
    for _ in range(2):
        press(at, "next")
        k, _ = sentence(at)
        now = stepper(at)
        assert sorted(map(int, now["window"])) == list(browser_stepper.window(k, now["last"]))
        parts = now["window"][str(k)]
        assert set(parts) == {K.sentence("bpe"), K.pairs("bpe"), K.PAIRS_NOTE, K.changed("bpe"), K.CHANGED_NOTE,
                              K.CURVE_MARKS_PANEL, K.CORPUS, K.CORPUS_NOTE, K.TREE, K.TREE_NOTE}
        assert hosts(at, parts) == parts                 # step k's window is what the hosts show at k
        assert f'data-step="{k}"' in parts[K.CURVE_MARKS_PANEL] and f"after step {k}:" in parts[K.CORPUS_NOTE]
        following = now["window"][str(k + 1)]
        assert f'data-step="{k + 1}"' in following[K.sentence("bpe")]
    # what the page says it holds is not sent again
    held = [int(j) for j in stepper(at)["window"]]
    tell(at, step=3, have=held)
    assert sorted(map(int, stepper(at)["window"])) == [j for j in browser_stepper.window(3, 5) if j not in held]
    # held for another view (another merge tree) counts for nothing
    run(at.selectbox(key="merges_tree_token").set_value("est</w>"))
    assert sorted(map(int, stepper(at)["window"])) == list(browser_stepper.window(3, 5))
    run(at.toggle(key="merges_lockstep").set_value(True))
    parts = stepper(at)["window"]["3"]
    assert K.sentence("bpe") not in parts and K.CORPUS in parts and hosts(at, parts) == parts
    assert {K.column(m) for m in MODELS} <= set(parts)   # the three columns: drawn by the stepper too


def notes(at: AppTest) -> list[str]:
    """What the page says under its views: its st.caption texts (Markdown), and the captions in the
    HTML of the hosts below the step (html_panel.host; their text unescaped)."""
    found = [c.value for c in at.caption]
    for body in drawn_html(at):
        found += [html.unescape(t) for t in re.findall(r'<div class="mg-caption">(.*?)</div>', body)]
    return found


def hosts(at: AppTest, parts: dict[str, str]) -> dict[str, str]:
    """What the hosts of these keys show after an AppTest run (a whole run)."""
    shown = {e.key: html_panel.drawn(e) for e in at._tree
             if e.type == "bidi_component" and e.proto.component_name == html_panel.NAME}
    return {k: shown[k] for k in parts if k in shown}


def test_merge_tree_of_the_step_and_of_a_chosen_token():
    at = trained("seed-000")
    press(at, "last")
    assert "How “er</w>” was built" in " ".join(notes(at))
    trees = [h for h in drawn_html(at) if 'class="mg-tree"' in h]
    assert len(trees) == 1 and trees[0].startswith('<div class="mg-tree"><ul><li><span class="mg-node mg-merged">'
                                                   'er&lt;/w&gt;<small>step 5</small>')
    run(at.selectbox(key="merges_tree_token").set_value("est</w>"))
    assert [h for h in drawn_html(at) if "mg-tree" in h][0].count("mg-merged") == 3     # est</w>, est, es
    assert state.get_merges_view(at.session_state).tree_token == "est</w>"
    assert at.query_params["token"] == "est</w>"
    assert any("made at step 3" in n for n in notes(at))
    press(at, "first")                                   # a chosen token stays chosen
    assert any("made at step 3, after this step (0)" in n for n in notes(at))
    # a typed token that is not in the vocabulary (AppTest cannot type a new option: set it as
    # the picker's callback would)
    state.set_merges_view(replace(state.get_merges_view(at.session_state), tree_token="nope"), at.session_state)
    run(at)
    assert at.warning and "not a token" in at.warning[0].value


# ---------------------------------------------------------------- links

def link(**params) -> AppTest:
    """A new session opened on the Merges page from a link."""
    at = AppTest.from_file(str(APP), default_timeout=90)
    at.run()
    at.switch_page(PAGE)
    for k, v in params.items():
        at.query_params[k] = v
    return run(at)


def test_a_link_reopens_the_same_view_in_a_new_session():
    at = link(preset="seed-004", tokenizer="wordpiece", step="2", token="wid", speed="2")
    assert state.get_results(at.session_state) is not None
    k, text = sentence(at)
    assert k == 2 and "(wi, ##d) → wid" in text
    view = state.get_merges_view(at.session_state)
    assert (view.model, view.speed, view.tree_token) == ("wordpiece", 2.0, "wid")
    assert not at.warning
    assert at.query_params["preset"] == "seed-004" and at.query_params["step"] == "2"
    # the Corpus page shows the preset's corpus and settings
    run(at.switch_page("pages/corpus.py"))
    assert state.get_corpus(at.session_state).preset == "seed-004"


def test_a_lockstep_link():
    at = link(preset="seed-000", lockstep="1", step="4")
    assert [k for k, _ in sentences(at)] == [4, 4, 4]


@pytest.mark.parametrize("params,needles", [
    (dict(preset="seed-000", step="abc", tokenizer="gpt5"), ["Ignored step='abc'", "Ignored tokenizer='gpt5'"]),
    (dict(preset="seed-000", step="999"), ["step=999 is outside 0 to 5: showing step 5."]),
    # only ASCII digits: int() and float() also read "٣" (Arabic-Indic), "３" (full-width) and "1_0"
    (dict(preset="seed-000", step="٣", speed="٢"), ["Ignored step='٣': a step is a whole number.",
                                                     "Ignored speed='٢'"]),
    (dict(preset="seed-000", step="３"), ["Ignored step='３'"]),
    (dict(preset="seed-000", step="1_0", speed="0_5"), ["Ignored step='1_0'", "Ignored speed='0_5'"]),
    (dict(preset="seed-000", step="-4", speed="0.7"), ["outside 0 to 5", "using 0.5 s"]),
    (dict(preset="seed-000", token="<script>alert(1)</script>", lockstep="maybe"),
     ["Ignored token=", "not in the BPE vocabulary", "Ignored lockstep"]),
    (dict(preset="nope", step="1"), ["no such preset"]),
    (dict(evil="1", preset="seed-000"), ["unknown link parameter"]),
])
def test_malformed_links_never_crash(params, needles):
    at = link(**params)
    text = " ".join(w.value for w in at.warning).replace("\\", "")   # Markdown escapes taken out
    for needle in needles:
        assert needle in text, text
    assert "<script>" not in " ".join(w.value for w in at.warning)


def test_a_link_with_nothing_trained_and_no_preset():
    at = link(step="3")
    assert at.info and "Nothing trained yet" in at.info[0].value


# ---------------------------------------------------------------- escaping

PAYLOAD = "<script>alert(1)</script> <img src=x onerror=alert(1)> <b>bold</b>"


def test_corpus_words_are_escaped_everywhere():
    at = new_app()
    at.text_area(key="corpus_paste").input((PAYLOAD + "\n") * 3)
    at.button(key="corpus_use_paste").click().run()
    at.button(key="corpus_train").click().run()
    run(at.switch_page(PAGE))
    raw = re.compile(r"<(script|img|b)[\s>]", re.I)
    for model in MODELS:
        pick_model(at, model)
        trace = state.get_results(at.session_state).trace(model)
        for k in (1, 2, len(trace.steps) // 2, len(trace.steps)):
            jump(at, k)
            # the stepper's window too: the HTML its script draws into the hosts at a press
            window = [h for parts in stepper(at)["window"].values() for h in parts.values()]
            bodies = [m.value for m in at.markdown] + drawn_html(at) + window + \
                     [c.value for c in at.caption] + [w.value for w in at.warning]
            for body in bodies:
                body = body.split("</style>", 1)[-1]
                assert not raw.search(body), body[:300]
    # the tokens with "<" in them were drawn, escaped
    assert any("&lt;" in body for body in drawn_html(at))


def test_a_trainer_that_made_no_merge():
    from core.corpus import count_words
    from core.trainer import TrainConfig, train
    from playground.state import Corpus, Results, Settings
    at = new_app()
    corpus = Corpus.from_text("Pasted text", "ab ab", "paste")
    configs = {"bpe": TrainConfig(model="bpe", vocab_size=2), "bbpe": TrainConfig(model="bbpe", vocab_size=257),
               "wordpiece": TrainConfig(model="wordpiece", vocab_size=2)}
    traces = {m: train(count_words(corpus.text, c.resolved().pre_tokenizer), c) for m, c in configs.items()}
    assert len(traces["bpe"].steps) == 0 and len(traces["bbpe"].steps) == 1
    state.set_corpus(corpus, at.session_state)
    state.set_results(Results(corpus.name, corpus.digest, Settings.from_configs(
        {m: c.resolved() for m, c in configs.items()}), **traces), at.session_state)
    run(at.switch_page(PAGE))
    k, text = sentence(at)
    assert k == 0 and "this trainer made no merge" in text
    assert stepper(at)["last"] == 0 and at_end(at)   # the script disables every button and hides its slider
    run(at.toggle(key="merges_lockstep").set_value(True))   # byte-level BPE has one merge
    assert [k for k, _ in sentences(at)] == [0, 0, 0]
    press(at, "next")
    assert [k for k, _ in sentences(at)] == [0, 1, 0]


def test_a_lagging_address_does_not_take_back_a_step():
    """Two quick → presses: the second run's request carries the address of the first run's
    start (step=1) while the page has written step=2; the step stays 2 and a third press makes 3."""
    at = trained("seed-000")
    press(at, "next")
    press(at, "next")
    assert sentence(at)[0] == 2
    at.query_params["step"] = "1"
    press(at, "next")
    assert sentence(at)[0] == 3 and at.query_params["step"] == "1"    # the stepper writes the step
