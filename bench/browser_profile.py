"""Where the browser's time goes on one Compare run: Chrome's CPU profiler (CDP Profiler) around
Ctrl+Enter with --chars characters of mixed scripts (bench/browser.py's text) through the default
tokenizers, and Chrome's own counters (Performance.getMetrics: script, style, layout).

    .venv/bin/python bench/browser_profile.py                  # 10,000 characters, 5 runs
    .venv/bin/python bench/browser_profile.py --chars 100000 --runs 2 --top 30
    .venv/bin/python bench/browser_profile.py --merges --runs 10    # Next on the Merges page, KJV trained

Each sample of the profile is put in one bucket, by the first of these found on its stack (leaf
upwards for the JavaScript ones):
  DOMPurify      Streamlit's sanitizer (purify.es.*.js): every st.html body is sanitized, its
                 parse into a DOM included (the native parse is counted in the calling function)
  page scripts   the app's own components (st.components.v2 modules: blob: or component URLs)
  React          react-dom.*.js (its innerHTML setter's parse included)
  Streamlit      every other Streamlit script (protobuf decoding, its components)
  driver         Playwright's injected script (resolving the locators the bench acts through)
  gc / program / idle   V8's garbage collector; native work outside JavaScript (style, layout,
                 paint); nothing to do
Figures are medians over the runs, in ms. The per-function table (--top) lists self time.
Nothing is asserted; tests never run it.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from browser import (MARK_PANELS, PANELS_NEW, main_thread, mixed_scripts, open_timed, timed,  # noqa: E402
                     trained_kjv_merges)
from load import CHROMIUM, CHROMIUM_ARGS, start_server  # noqa: E402

BUCKETS = ("DOMPurify", "page scripts", "React", "Streamlit", "driver", "other JS", "gc", "program", "idle")


def bucket_of(frame: dict) -> str | None:
    url, name = frame["url"], frame["functionName"]
    if "purify.es" in url:
        return "DOMPurify"
    if url.startswith(("blob:", "data:")) or "/_stcore/bidi-components/" in url:
        return "page scripts"
    if "react-dom" in url:
        return "React"
    if "/static/js/" in url:
        return "Streamlit"
    if name == "(garbage collector)":
        return "gc"
    if name in ("(program)", "(root)"):
        return "program"
    if name == "(idle)":
        return "idle"
    if not url and frame["lineNumber"] >= 0:
        return "driver"          # Playwright's injected script (its locators' queries)
    return "other JS" if url else None


def split(profile: dict) -> tuple[Counter, Counter]:
    """(ms per bucket, self ms per function) of one CPU profile."""
    nodes = {n["id"]: n for n in profile["nodes"]}
    parent = {c: n["id"] for n in profile["nodes"] for c in n.get("children", ())}
    cache: dict[int, str] = {}

    def bucket(node_id: int) -> str:
        if node_id in cache:
            return cache[node_id]
        found, k = [], node_id
        while k is not None:
            b = bucket_of(nodes[k]["callFrame"])
            if b:
                found.append(b)
            k = parent.get(k)
        for first in ("DOMPurify", "page scripts", "driver"):
            if first in found:
                cache[node_id] = first
                return first
        cache[node_id] = found[0] if found else "program"
        return cache[node_id]

    buckets, functions = Counter(), Counter()
    for node_id, delta in zip(profile["samples"], profile["timeDeltas"]):
        ms = delta / 1000
        buckets[bucket(node_id)] += ms
        f = nodes[node_id]["callFrame"]
        functions[f"{f['functionName'] or '(anonymous)'}  {f['url'].rsplit('/', 1)[-1]}:{f['lineNumber']}"] += ms
    return buckets, functions


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--chars", type=int, default=10_000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--top", type=int, default=20, help="functions listed by self time (summed over the runs)")
    ap.add_argument("--merges", action="store_true",
                    help="profile Next on the Merges page (the KJV trained from the page) instead of Compare")
    ap.add_argument("--save", type=Path, help="write each run's profile here (run-N.cpuprofile: DevTools opens it)")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright
    print(f"load average {os.getloadavg()[0]:.2f} at start; {os.cpu_count()} cores")
    text = mixed_scripts(args.chars)
    logs = Path(tempfile.mkdtemp(prefix="bench-profile-"))
    app, url = start_server(logs / "app.log")
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            if args.merges:
                page = trained_kjv_merges(browser, url)
                next_button = page.get_by_role("button", name="Next")
                timed(page, next_button.click)               # warm: the first step
            else:
                _, page = open_timed(browser, url + "/compare")
                box = page.get_by_role("textbox", name="Text", exact=True)
                box.fill(text)                               # warm: the first run of this text
                timed(page, lambda: box.press("Control+Enter"))
            cdp = page.context.new_cdp_session(page)
            cdp.send("Performance.enable")
            cdp.send("Profiler.enable")
            cdp.send("Profiler.setSamplingInterval", {"interval": 200})
            per_run, functions, walls, work = [], Counter(), [], []
            for i in range(args.runs):
                if args.merges:
                    before = main_thread(cdp)
                    cdp.send("Profiler.start")
                    walls.append(timed(page, next_button.click))
                else:
                    box.fill(text[:-1] + str(i))
                    page.evaluate(MARK_PANELS)
                    before = main_thread(cdp)
                    cdp.send("Profiler.start")
                    walls.append(timed(page, lambda: box.press("Control+Enter"), PANELS_NEW))
                profile = cdp.send("Profiler.stop")["profile"]
                if args.save:
                    args.save.mkdir(parents=True, exist_ok=True)
                    (args.save / f"run-{i}.cpuprofile").write_text(json.dumps(profile))
                work.append({k: v - before[k] for k, v in main_thread(cdp).items()})
                buckets, funcs = split(profile)
                per_run.append(buckets)
                functions.update(funcs)
            size, elements = page.evaluate("""() => { const m = document.querySelector('[data-testid=stMain]');
                return [m.innerHTML.length, m.querySelectorAll('*').length]; }""")
            browser.close()
    finally:
        app.terminate()
        app.wait(timeout=15)
    what = "Merges: Next on the KJV" if args.merges else f"compare {args.chars:,} chars"
    print(f"{what}, {args.runs} runs: p50 {statistics.median(walls) * 1000:.0f} ms on the page's clock; "
          f"HTML {size / 1e6:.2f} MB, {elements:,} elements")
    print("  Performance.getMetrics (p50): " + ", ".join(
        f"{k} {statistics.median(w[k] for w in work) * 1000:.0f}" for k in work[0]) + " ms")
    print("  CPU profile (p50 per bucket, ms): " + ", ".join(
        f"{b} {statistics.median(r.get(b, 0) for r in per_run):.0f}" for b in BUCKETS))
    print(f"  top functions by self time (ms over {args.runs} runs):")
    for name, ms in functions.most_common(args.top):
        print(f"    {ms:8.1f}  {name}")
    print(f"load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
