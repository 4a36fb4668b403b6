"""What a Merges step would cost if the browser drew it: bench/step_app.py (a window of the KJV's
real step HTML in one component, its own Next, the server told afterwards) against the
one-button floor (bench/floor_app.py), both served by `streamlit run`, measured in one run.

    .venv/bin/python bench/browser_step.py --repeat 30

For each Next, on the page's own clock (bench/browser.py's PAGE_CLOCK), from the click:
  drawn    until the component has put the next step's HTML in the page (sentence, changed words,
           tree, corpus) and the browser has painted it: what the user waits for
  told     until the run the click started (the server told of the new step; it sends the
           window around it) has ended and the page is painted: bench/browser.py's measure
The ratios are to the floor's p50 / p95. Nothing is asserted; tests never run it.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from playwright.sync_api import sync_playwright  # noqa: E402

from browser import measure_floor, open_timed, row, timed  # noqa: E402
from load import CHROMIUM, CHROMIUM_ARGS, start_server  # noqa: E402

MARKER = ".bs-marker"


def shown(k: int) -> str:
    return f"() => {{ const m = document.querySelector('{MARKER}'); return !!m && m.dataset.step === '{k}' && m.dataset.whole === 'true'; }}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=30)
    ap.add_argument("--window", type=int, default=20, help="steps of the small views held on either side")
    ap.add_argument("--corpus-window", type=int, default=2, help="steps of the corpus held on either side")
    args = ap.parse_args()
    os.environ["TP_BENCH_WINDOW"] = str(args.window)
    os.environ["TP_BENCH_CORPUS_WINDOW"] = str(args.corpus_window)
    print(f"window: {args.window} steps of the small views, {args.corpus_window} of the corpus, on either side")
    print(f"load average {os.getloadavg()[0]:.2f} at start; {os.cpu_count()} cores")
    logs = Path(tempfile.mkdtemp(prefix="bench-step-"))
    floor_proc, floor_url = start_server(logs / "floor.log", "bench/floor_app.py")
    app_proc, app_url = start_server(logs / "step.log", "bench/step_app.py")
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            floor = measure_floor(browser, floor_url, args.repeat)
            _, page = open_timed(browser, app_url)
            page.wait_for_function(shown(1), timeout=120_000)
            button = page.locator(".bs-next")
            drawn, told = [], []
            for k in range(2, args.repeat + 3):
                t = timed(page, button.click, shown(k))
                start, at = page.evaluate("() => [window.__tpClock.start, window.__tpPaintedAt]")
                if k > 2:                       # the first is a warm-up
                    told.append(t)
                    drawn.append((at - start) / 1000)
            print(f"{'':<35}p50      p95      max")
            print(row("floor: click -> redrawn", floor))
            print(row("step drawn by the browser", drawn, floor))
            print(row("step told to the server", told, floor))
            browser.close()
    finally:
        for proc in (app_proc, floor_proc):
            proc.terminate()
    print(f"load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
