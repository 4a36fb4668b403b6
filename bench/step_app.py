"""A Merges step drawn by the browser, for bench/browser_step.py: how long a user would wait if the
page held a window of steps and drew the next one itself, telling the server afterwards.

One component (st.components.v2, JavaScript only) holds, for the KJV trained to 8,000 byte-level
merges, the real HTML the Merges page draws for each step (playground.stepper's sentence and
changed words, charts.merge_tree_html's tree) for the steps within WINDOW of the current one, and
the corpus (stepper.corpus_view: its first 6,000 characters as split at that step) within
CORPUS_WINDOW. Its Next button draws the next step from what it holds, at once, then sets the
component's state; that reruns this app's fragment, which sends the window around the new step.
Only the component is in the fragment. Served by `streamlit run` as the app and the floor are.
Nothing here is the product: it measures a design before the Merges page is built on it.
"""
import os

import streamlit as st

from core.presets import get_preset, load_kjv, words_for
from core.trainer import TrainConfig, train
from playground import charts, stepper, style

# steps on either side of the current one: of sentence, changed words and tree; of the corpus
# (167 KB each on the KJV). bench/browser_step.py sets them (--window, --corpus-window)
WINDOW = int(os.environ.get("TP_BENCH_WINDOW", "20"))
CORPUS_WINDOW = int(os.environ.get("TP_BENCH_CORPUS_WINDOW", "2"))

JS = r"""
var S = window.__tpStepBench || (window.__tpStepBench = {step: null, small: {}, corpus: {}, host: null});
function draw(k) {
  var h = S.host;
  if (h.__k === k) return;
  var small = S.small[k], corpus = S.corpus[k];
  h.querySelector(".bs-top").innerHTML = small === undefined ? "…" : small;
  // what is on screen: the first batch of boxes (the page's html_panel.js draws the next ones as its
  // box is scrolled; left out here)
  h.querySelector(".bs-corpus").innerHTML = corpus === undefined ? "…" : corpus.replace(/<!--tp-more-->[\s\S]*?<!--tp-end-->/g, "");
  h.querySelector(".bs-marker").dataset.step = String(k);
  h.querySelector(".bs-marker").dataset.whole = String(small !== undefined && corpus !== undefined);
  h.__k = k;
  window.__tpDrawnAt = performance.now();
  requestAnimationFrame(function () { requestAnimationFrame(function (t) { window.__tpPaintedAt = t; }); });
}
export default function (c) {
  var parent = c.parentElement, host = parent.querySelector(":scope > .bs");
  if (!host) {
    host = document.createElement("div");
    host.className = "bs";
    host.innerHTML = '<button type="button" class="bs-next">Next</button><span class="bs-marker"></span>'
      + '<div class="bs-top"></div><div class="tp-scroll mg-corpus bs-corpus" style="max-height:24rem;overflow:auto"></div>';
    parent.appendChild(host);
  }
  S.host = host;
  Object.assign(S.small, c.data.small); Object.assign(S.corpus, c.data.corpus);   // what is new
  if (S.step === null) S.step = c.data.step;
  host.querySelector(".bs-next").onclick = function () {
    S.step += 1;
    draw(S.step);
    c.setStateValue("step", S.step);
  };
  host.__k = host.__k === S.step && host.querySelector(".bs-marker").dataset.whole === "true" ? S.step : null;
  draw(S.step);
}
"""


@st.cache_resource
def kjv():
    preset = get_preset("kjv")
    config = TrainConfig(model="bbpe", vocab_size=8256).resolved()
    return train(words_for(preset, config), config), load_kjv()


@st.cache_data(max_entries=4096)
def small_html(k: int) -> str:
    trace, _ = kjv()
    step = stepper.step_at(trace, k)
    parts = [f'<div class="mg-sentence" data-step="{k}">{stepper.describe_step(trace, k).html}</div>']
    if step is not None:
        parts.append(stepper.changed_html(stepper.changed_rows(trace, step, None)))
        parts.append(charts.merge_tree_html(trace, step.token, spelled=stepper.show_token))
    return "".join(parts)


@st.cache_data(max_entries=64)
def corpus_html(k: int) -> str:
    trace, text = kjv()
    return stepper.corpus_view(trace, k, text).html


STEPPER = st.components.v2.component("tp_bench_step", js=JS, isolate_styles=False)

st.set_page_config(page_title="Step bench", layout="wide")
style.inject()
st.title("A step drawn by the browser")


@st.fragment
def stepped() -> None:
    state = st.session_state.get("bench_step") or {}
    k = int(state.get("step", 1))
    last = len(kjv()[0].steps)
    # only the steps this session's page does not hold yet (it keeps what it was sent)
    sent = st.session_state.setdefault("bench_sent", {"small": set(), "corpus": set()})
    small = {j: small_html(j) for j in range(max(0, k - WINDOW), min(last, k + WINDOW) + 1) if j not in sent["small"]}
    corpus = {j: corpus_html(j) for j in range(max(0, k - CORPUS_WINDOW), min(last, k + CORPUS_WINDOW) + 1)
              if j not in sent["corpus"]}
    sent["small"].update(small)
    sent["corpus"].update(corpus)
    STEPPER(key="bench_step", data={"step": k, "small": small, "corpus": corpus}, on_step_change=lambda: None)


stepped()
