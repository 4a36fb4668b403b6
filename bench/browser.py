"""What a user waits for in the browser, against Streamlit's own floor, measured in one run.

    .venv/bin/python bench/browser.py              # about 3 minutes
    .venv/bin/python bench/browser.py --repeat 30 --shots /tmp/shots
    .venv/bin/python bench/browser.py --only autoplay --intervals 30    # about 1 minute
    .venv/bin/python bench/browser.py --only merges    # the floor, training and the steps only
    .venv/bin/python bench/browser.py --only compare --repeat 10   # the floor and Compare only

Two servers, started the same way (`streamlit run`, headless, loopback): the app, and
bench/floor_app.py, a one-button app (click -> one line of text redrawn). One headless Chromium
(/usr/bin/chromium) drives both. Every figure is taken the same way, on the page's own clock
(performance.now, PAGE_CLOCK): from the user's action (its first click or key event) until the
server's `script_finished` for that run has reached the page, the app shows no run under way, what
the action was for is drawn (the floor's new count, the step's sentence, new Compare panels), and
the next animation frame has come (the browser has painted). Until session 10 the end was read by
Playwright's polling, which checks at growing intervals: the floor read 100 ms through it and 29-45
ms on the page's clock, and every figure carried up to ~100 ms of polling, so the ratios to the
floor looked about three times better than they are. The cold start (a page load, a second or more)
is a wall time around Playwright's waits.

Figures (p50 / p95 / max, and the ratio to the floor's p50 / p95):
  floor              click -> text redrawn, --repeat times
  cold start         a new browser session opening the app -> its first page drawn and idle
  train KJV          "Train all three" on the KJV preset -> "Trained all three", against the
                     command line training the same three models with the same settings
  first step         the first Next after training on the KJV (the Merges page just opened), on
                     --firsts servers of their own: the first in the session the steps are then
                     measured in, each other on a new server (its caches as cold as a user's own
                     corpus finds them: the KJV trained again on one server finds its first steps
                     drawn already)
  step               Next on the KJV, --repeat times; beside it the renderer's main-thread work per
                     step as Chrome counts it (Performance.getMetrics: script, style, layout; CPU
                     seconds, so less swayed by the machine's load than the wall time) and the
                     main area's element count
    drawn            the page draws a step its stepper holds before the run it starts has ended
                     (playground/static/browser_stepper.js): from the click until the step is shown
                     and painted, whether or not that run is still under way. The rows above wait
                     for the run's end too, as the issue's target reads
  keys               five quick -> presses: how many steps they made
  a new vocabulary size  on the Corpus page, the KJV loaded and trained: a BPE vocabulary size typed,
                     Enter -> the page's run ended and painted (--pages times, at least three)
  page switch        a click on a page in the sidebar, the KJV loaded and trained -> that page drawn
                     (its run ended and painted), for Merges, Corpus, Compare, Token tax and Inspect,
                     --pages rounds: the first visit apart (Compare and Token tax read their
                     pretrained vocabularies then), the p50 of the others; beside it the main
                     thread's work a switch and when the run finished
  autoplay           the intervals between steps at the 1 s speed (--intervals of them), on the KJV,
                     and from a click on Play to the first step (five times)
  compare 10k / 100k Compare with 10,000 (and 100,000) characters of mixed scripts (Chinese,
                     English, emoji, Python code) through the tokenizers the page shows by
                     default: Ctrl+Enter -> drawn (and every panel on the page a new one: one drawn
                     by a component after the run's end is waited for); the main area's HTML size
                     and element count, and
                     the renderer's main-thread work a run (as for the step). 10k is run --repeat
                     times with --only compare (three times otherwise), 100k once
  where the time went under the floor, the steps and Compare: medians, on the same clock from the
                     action, of when the run's first message reached the page (the browser sent
                     the action and the server started the run), its largest message (a step's
                     window, Compare's panels), its script_finished, and the painted frame. What
                     lies between the last two is the browser's (Streamlit's and React's handling
                     of the run's messages, the page's scripts, style, layout and paint)
The load average is printed at the start and the end. Nothing here is asserted; tests never run it.
"""
from __future__ import annotations

import argparse
import inspect as pyinspect
import os
import re
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))          # bench/: load.py
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))      # the repository: core

from load import CHROMIUM, CHROMIUM_ARGS, ROOT, start_server  # noqa: E402

WAIT = 600_000
APP_IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'
KJV = "Sample · King James"


# ---------------------------------------------------------------- one action, timed the same way everywhere

def _run_finished(payload) -> bool:
    if not isinstance(payload, bytes):
        return False
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
    msg = ForwardMsg()
    try:
        msg.ParseFromString(payload)
    except Exception:
        return False
    return (msg.WhichOneof("type") == "script_finished"
            and msg.script_finished != ForwardMsg.ScriptFinishedStatus.FINISHED_EARLY_FOR_RERUN)


def painted(page) -> None:
    page.locator(APP_IDLE).wait_for(timeout=WAIT)
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")


# The page's own clock (performance.now), installed in every page before its scripts run. Polling
# from Playwright (the locator waits above) checks at growing intervals, so a wait that ends between
# two checks is counted until the next one: the one-button floor, 45 ms on the page's clock, read
# 100 ms through the polling, and every figure carried up to ~100 ms of it. The clock takes the
# action's first event (click, key) as the start; it notes when each message of the app's
# websocket arrives, and at every animation frame whether the app shows no run under way and the
# `until` condition holds. The end is the frame after the first such frame that follows the
# arrival of the run's `script_finished` (which Playwright picks out): that frame is painted.
PAGE_CLOCK = """(() => {
  const c = window.__tpClock = { armed: false, start: null, messages: [], frames: [], cond: null };
  c.arm = (cond) => { Object.assign(c, { armed: true, start: null, messages: [], frames: [],
                                          cond: cond ? (0, eval)("(" + cond + ")") : null }); };
  function tick() {
    if (!c.armed) return;
    const app = document.querySelector('[data-testid="stApp"]');
    const idle = !!app && app.getAttribute("data-test-script-state") === "notRunning";
    const met = !c.cond || !!c.cond();
    c.frames.push([performance.now(), idle && met, met]);
    requestAnimationFrame(tick);
  }
  const act = () => { if (c.armed && c.start === null) { c.start = performance.now(); requestAnimationFrame(tick); } };
  window.addEventListener("click", act, true);
  window.addEventListener("keydown", act, true);
  const Native = window.WebSocket;
  window.WebSocket = function (url, protocols) {
    const ws = protocols === undefined ? new Native(url) : new Native(url, protocols);
    if (String(url).endsWith("/_stcore/stream")) {
      ws.addEventListener("message", () => { if (c.armed) c.messages.push(performance.now()); });
    }
    return ws;
  };
  window.WebSocket.prototype = Native.prototype;
  Object.assign(window.WebSocket, { CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3 });
})();"""


def timed(page, action, until: str | None = None) -> float:
    """Seconds on the page's clock (PAGE_CLOCK) from `action()`'s first event until its run has
    finished and the page is painted (and, given `until`, a JavaScript condition holds, then
    painted). Playwright waits for the run's `script_finished` message and the idle app first."""
    return timed_both(page, action, until)[1]


def timed_both(page, action, until: str) -> tuple[float, float]:
    """(seconds until `until` first holds and that frame is painted, whether or not a run is under
    way: what the user sees answer the action; seconds until the run has ended too: timed())."""
    frames: list[bool] = []             # each websocket message from the arming on: script_finished?
    sizes: list[int] = []
    listen = lambda payload: (frames.append(_run_finished(payload)), sizes.append(len(payload)))  # noqa: E731
    page.stream.on("framereceived", listen)
    try:
        page.evaluate("cond => window.__tpClock.arm(cond)", until)
        with page.stream.expect_event("framereceived", predicate=_run_finished, timeout=WAIT):
            action()
        painted(page)
        if until and not page.evaluate(until):
            page.wait_for_function(until, timeout=WAIT, polling="raf")
            painted(page)
    finally:
        page.stream.remove_listener("framereceived", listen)
    finished = frames.index(True)
    page.wait_for_function(f"() => window.__tpClock.messages.length > {finished}", timeout=WAIT)
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    start, arrived, drawn = page.evaluate(f"""() => {{ const c = window.__tpClock; c.armed = false;
        return [c.start, c.messages[{finished}], c.frames]; }}""")
    ready = next(i for i, (t, ok, _) in enumerate(drawn) if t >= arrived and ok)
    seen = next(i for i, (_, _, met) in enumerate(drawn) if met)
    ended = (drawn[min(ready + 1, len(drawn) - 1)][0] - start) / 1000
    times = page.evaluate(f"() => window.__tpClock.messages.slice(0, {finished + 1})")
    biggest = max(range(finished + 1), key=lambda i: sizes[i])
    PHASES.append({"first message": (times[0] - start) / 1000, "largest message": (times[biggest] - start) / 1000,
                   "run finished": (arrived - start) / 1000, "painted": ended})
    return (drawn[min(seen + 1, len(drawn) - 1)][0] - start) / 1000, ended


# Where each timed action's time went, on the page's clock from the action (timed_both appends one
# per action): the run's first message reached the page (the browser sent the action, the server
# started the run and sent its first element), its largest message (Compare's panels, a step's
# window), its script_finished, and the frame painted after it.
PHASES: list[dict[str, float]] = []


def phases_row(since: int) -> str:
    """The medians of PHASES[since:], in ms."""
    taken = PHASES[since:]
    return f"{'  where the time went (p50)':<30} " + ", ".join(
        f"{k} {statistics.median(p[k] for p in taken) * 1000:.0f}" for k in taken[0]) + " ms"


# Compare: the panels on the page are marked before a run; it is over when every panel shown is a
# new one (a panel drawn late, after the run's end, by a script or a component, is waited for)
MARK_PANELS = "() => document.querySelectorAll('.tp-panel').forEach(p => { p.__old = true; })"
PANELS_NEW = "() => { const ps = document.querySelectorAll('.tp-panel'); return ps.length > 0 && [...ps].every(p => !p.__old); }"


def new_page(browser, width: int = 1280):
    context = browser.new_context(viewport={"width": width, "height": 900})
    context.add_init_script(PAGE_CLOCK)
    page = context.new_page()
    page.set_default_timeout(WAIT)

    def watch(ws):
        if ws.url.endswith("/_stcore/stream"):
            page.stream = ws
    page.on("websocket", watch)
    return page


def open_timed(browser, url: str):
    """(seconds from goto to the first page drawn and idle, the page)."""
    page = new_page(browser)
    t0 = time.perf_counter()
    page.goto(url, wait_until="commit")
    page.get_by_test_id("stMain").locator("h1, p").first.wait_for(timeout=WAIT)
    painted(page)
    return time.perf_counter() - t0, page


# ---------------------------------------------------------------- figures

def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def row(label: str, values: list[float], floor: list[float] | None = None, extra: str = "") -> str:
    p50, p95 = statistics.median(values), pct(values, 0.95)
    text = f"{label:<30} {p50 * 1000:8.0f} {p95 * 1000:8.0f} {max(values) * 1000:8.0f} ms  (n={len(values)})"
    if floor:
        text += f"   {p50 / statistics.median(floor):5.2f}x / {p95 / pct(floor, 0.95):5.2f}x floor"
    return text + (f"   {extra}" if extra else "")


def mixed_scripts(chars: int) -> str:
    """Chinese, English and emoji (core.corpora.mixed_text) with Python code between paragraphs."""
    from core.corpora import mixed_text
    prose = mixed_text(chars * 4).split("\n")
    code = pyinspect.getsource(textwrap).split("\n\n")
    parts, size, i = [], 0, 0
    while size < chars:
        part = "\n".join(prose[i * 3:(i + 1) * 3]) if i % 2 == 0 else code[i % len(code)]
        parts.append(part)
        size += len(part) + 2
        i += 1
    return "\n\n".join(parts)[:chars]


def main_thread(cdp) -> dict[str, float]:
    """The renderer's main-thread seconds so far: all its tasks, and script, style and layout."""
    metrics = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
    return {"tasks": metrics["TaskDuration"], "script": metrics["ScriptDuration"],
            "style": metrics["RecalcStyleDuration"], "layout": metrics["LayoutDuration"]}


def html_size(page) -> tuple[int, int]:
    return page.evaluate("""() => { const m = document.querySelector('[data-testid=stMain]');
        return [m.innerHTML.length, m.querySelectorAll('*').length]; }""")


def cli_training_seconds() -> float:
    """The command line training the KJV as the preset does (2,000 merges for each of the three
    models, default settings, the trace saved), whole processes one after another."""
    from core.presets import load_kjv
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "kjv.txt"
        path.write_text(load_kjv(), encoding="utf-8")
        t0 = time.perf_counter()
        for model in ("bpe", "bbpe", "wordpiece"):
            subprocess.run([sys.executable, "-m", "core", "train", str(path), "--model", model,
                            "--vocab-size", "1000000", "--max-merges", "2000",
                            "--save", str(Path(tmp) / f"{model}.json")], cwd=ROOT, check=True,
                           stdout=subprocess.DEVNULL)
        return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=20, help="floor clicks and Merges steps")
    ap.add_argument("--shots", type=Path, help="save screenshots (Compare with 100,000 characters) here")
    ap.add_argument("--only", choices=("all", "merges", "autoplay", "compare", "unigram", "pages"), default="all",
                    help="merges: the floor, the KJV trained from the page, the first step and the steps "
                         "(no cold starts, command line, keys, autoplay or Compare); autoplay: only the "
                         "autoplay intervals (no floor server); compare: the floor and Compare 10k / 100k; "
                         "unigram: the floor and the Unigram page's steps; pages: the floor and the page switches")
    ap.add_argument("--pages", type=int, default=4, help="rounds of page switches (the first is the first visits)")
    ap.add_argument("--intervals", type=int, default=7, help="autoplay intervals measured")
    ap.add_argument("--firsts", type=int, default=3,
                    help="first steps after training measured, each on a server of its own (one sample is noisy)")
    args = ap.parse_args()
    if not Path(CHROMIUM).exists():
        raise SystemExit(f"needs {CHROMIUM} (Debian package chromium)")
    from playwright.sync_api import sync_playwright
    print(f"load average {os.getloadavg()[0]:.2f} at start; {os.cpu_count()} cores")
    print(f"{'':<30} {'p50':>8} {'p95':>8} {'max':>8}")
    logs = Path(tempfile.mkdtemp(prefix="bench-browser-"))
    app, app_url = start_server(logs / "app.log")
    floor_proc, floor_url = (None, None) if args.only == "autoplay" else start_server(logs / "floor.log", "bench/floor_app.py")
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            if args.only == "autoplay":
                page = trained_kjv_merges(browser, app_url)
                for line in autoplay_rows(page, args.intervals):
                    print(line)
            else:
                floor = measure_floor(browser, floor_url, args.repeat)
                print(row("floor: click -> redrawn", floor))
                print(phases_row(FLOOR_PHASES[0]))
                measure_app(browser, app_url, floor, args)
            browser.close()
    finally:
        for proc in filter(None, (app, floor_proc)):
            proc.terminate()
            proc.wait(timeout=15)
    print(f"load average {os.getloadavg()[0]:.2f} at the end")


def measure_floor(browser, url: str, repeat: int) -> list[float]:
    _, page = open_timed(browser, url)
    button = page.get_by_role("button", name="Click")
    timed(page, button.click, clicked(1))             # warm
    FLOOR_PHASES[:] = [len(PHASES)]
    times = [timed(page, button.click, clicked(n)) for n in range(2, repeat + 2)]
    page.context.close()
    return times


FLOOR_PHASES: list[int] = []       # where the floor's clicks begin in PHASES


def clicked(n: int) -> str:
    """The floor's text after its n-th click is drawn."""
    return f"() => document.querySelector('[data-testid=stMain]').innerText.includes('Clicked {n} times')"


def step_shown(k: int) -> str:
    """The Merges page shows step k: its state marker, its sentence and, below the step's fragment,
    the mark on the training curves (set by the fragment's feed with the corpus and the tree)."""
    return (f"() => !!document.querySelector('.mg-state[data-step=\"{k}\"]') && "
            f"!!document.querySelector('.mg-sentence[data-step=\"{k}\"]') && "
            f"!!document.querySelector('.mg-curve-marks[data-step=\"{k}\"]')")


def measure_app(browser, url: str, floor: list[float], args) -> None:
    if args.only == "compare":
        for chars in (10_000, 100_000):
            compare(browser, url, chars, floor, args.shots, args.repeat if chars <= 10_000 else 1)
        return
    if args.only == "unigram":
        unigram_steps(browser, url, floor, args.repeat)
        return
    if args.only == "pages":
        page, _ = train_kjv(browser, url)
        for line in page_switch_rows(page, floor, args.pages):
            print(line)
        page.context.close()
        return
    only_merges = args.only == "merges"
    colds = []
    for _ in range(0 if only_merges else 3):
        seconds, page = open_timed(browser, url)
        colds.append(seconds)
        page.context.close()
    if colds:
        print(row("cold start (first page drawn)", colds, extra="(the first is the server's first session)"))
        print(f"  the server's first session   {colds[0] * 1000:8.0f} ms  (what the first visitor after `make run` waits)")

    page, train = train_kjv(browser, url)
    if only_merges:
        print(f"{'train KJV from the page':<30} {train * 1000:8.0f} ms")
    else:
        cli = cli_training_seconds()
        print(f"{'train KJV from the page':<30} {train * 1000:8.0f} ms   command line, same three models: "
              f"{cli * 1000:.0f} ms   {train / cli:.2f}x")

    timed(page, page.get_by_test_id("stSidebarNav").get_by_role("link", name="Merges").click)
    next_button = page.get_by_role("button", name="Next")
    firsts = [timed_both(page, next_button.click, step_shown(1))]
    firsts += [first_step_on_a_new_server(browser) for _ in range(args.firsts - 1)]
    print(row("first step after training", [over for _, over in firsts], floor))
    print(row("  drawn (what the user sees)", [seen for seen, _ in firsts], floor))
    cdp = page.context.new_cdp_session(page)
    cdp.send("Performance.enable")
    steps, seen, work = [], [], []
    since = len(PHASES)
    for k in range(2, args.repeat + 2):
        before = main_thread(cdp)
        answered, over = timed_both(page, next_button.click, step_shown(k))
        steps.append(over)
        seen.append(answered)
        work.append({k: v - before[k] for k, v in main_thread(cdp).items()})
    print(row("step (Next on the KJV)", steps, floor))
    print(row("  drawn (what the user sees)", seen, floor))
    print(phases_row(since))
    _, elements = html_size(page)
    print(f"{'  main thread a step (p50)':<30} " + ", ".join(
        f"{k} {statistics.median(w[k] for w in work) * 1000:.0f}" for k in work[0]) + f" ms   {elements:,} elements")
    if only_merges:
        page.context.close()
        return

    sentence = page.locator(".mg-sentence").first
    before = sentence.inner_text()
    page.get_by_test_id("stMain").locator("h1").first.click()      # focus on the page, not a control
    for _ in range(5):
        page.keyboard.press("ArrowRight")
    made = keys_made(page, sentence, before)
    print(f"{'five quick -> presses':<30} {made} steps")
    for line in autoplay_rows(page, args.intervals):
        print(line)
    for line in page_switch_rows(page, floor, args.pages):
        print(line)
    page.context.close()

    for chars in (10_000, 100_000):
        compare(browser, url, chars, floor, args.shots)
    unigram_steps(browser, url, floor, args.repeat)


def unigram_shown(k: int) -> str:
    """The Unigram page shows step k: its stepper's state marker, its sentence and the curves' mark."""
    return (f"() => !!document.querySelector('.mg-state[data-step=\"{k}\"]') && "
            f"!!document.querySelector('.mg-sentence[data-step=\"{k}\"]') && "
            f"!!document.querySelector('.mg-curve-marks[data-step=\"{k}\"]')")


def unigram_steps(browser, url: str, floor: list[float], repeat: int) -> None:
    """Next on the Unigram page: the KJV trained from the page with "Train Unigram too" (its default
    vocabulary size), each step drawn by the browser from the stepper's window, then a run of the
    page's step fragment (browser_stepper.js, as on the Merges page)."""
    _, page = open_timed(browser, url)
    page.get_by_role("combobox", name="Preset").click()
    timed(page, page.get_by_role("option", name=KJV).first.click)
    timed(page, page.get_by_role("button", name="Load preset").click)
    timed(page, page.locator(".st-key-corpus_unigram_on").get_by_text("Train Unigram too").click)
    timed(page, page.get_by_role("button", name=re.compile("^Train all four")).click)
    page.get_by_text("Trained all four").first.wait_for(timeout=WAIT)
    timed(page, page.get_by_test_id("stSidebarNav").get_by_role("link", name="Unigram").click)
    marker = page.locator(".mg-state")
    marker.wait_for(state="attached", timeout=WAIT)
    last = int(marker.get_attribute("data-last"))
    next_button = page.get_by_role("button", name="Next")
    since = len(PHASES)
    steps, seen = [], []
    for k in range(1, min(repeat, last) + 1):
        answered, over = timed_both(page, next_button.click, unigram_shown(k))
        steps.append(over)
        seen.append(answered)
    print(row(f"Unigram step (KJV, {last + 1} steps)", steps, floor))
    print(row("  drawn (what the user sees)", seen, floor))
    print(phases_row(since))
    page.context.close()


SWITCHED_TO = ("Merges", "Corpus", "Compare", "Token tax", "Inspect")   # each a switch from the one before


def page_switch_rows(page, floor: list[float], rounds: int) -> list[str]:
    """Sidebar clicks through SWITCHED_TO, `rounds` times, the KJV trained: each page's first visit,
    then its p50 (and p95, max) over the other rounds, with the main thread's work a switch and when
    the run's script_finished came (the server's share), on the page's clock."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("Performance.enable")
    nav = page.get_by_test_id("stSidebarNav")
    times = {name: [] for name in SWITCHED_TO}
    work = {name: [] for name in SWITCHED_TO}
    finished = {name: [] for name in SWITCHED_TO}
    for _ in range(rounds):
        for name in SWITCHED_TO:
            before = main_thread(cdp)["tasks"]
            times[name].append(timed(page, nav.get_by_role("link", name=name, exact=True).click))
            work[name].append(main_thread(cdp)["tasks"] - before)
            finished[name].append(PHASES[-1]["run finished"])
    nav.get_by_role("link", name="Corpus", exact=True).click()   # a new vocabulary size typed there
    box = page.locator(".st-key-corpus_bpe_vocab_size input")
    box.wait_for(timeout=WAIT)
    painted(page)
    sizes = []
    for i in range(max(rounds, 3)):
        box.fill(str(900 + i))
        before = main_thread(cdp)["tasks"]
        sizes.append(timed(page, lambda: box.press("Enter")))
        work.setdefault("size", []).append(main_thread(cdp)["tasks"] - before)
        finished.setdefault("size", []).append(PHASES[-1]["run finished"])
    rows = [row("Corpus: a new vocabulary size", sizes, floor,
                extra=f"run finished {statistics.median(finished['size']) * 1000:.0f}, main thread "
                      f"{statistics.median(work['size']) * 1000:.0f} ms (p50)")]
    for name in SWITCHED_TO:
        later = times[name][1:] or times[name]
        rows.append(row(f"page switch: {name}", later, floor,
                        extra=f"first visit {times[name][0] * 1000:.0f} ms; run finished "
                              f"{statistics.median(finished[name][1:] or finished[name]) * 1000:.0f}, main thread "
                              f"{statistics.median(work[name][1:] or work[name]) * 1000:.0f} ms (p50)"))
    return rows


def step_number(text: str) -> int:
    import re
    m = re.search(r"Step ([\d,]+)", text)
    return int(m.group(1).replace(",", "")) if m else -1


def keys_made(page, sentence, before: str) -> int:
    """Steps the presses made, once the runs they started have all ended."""
    start = step_number(before)
    last, stable = None, 0
    while stable < 3:                                 # three idle checks in a row with the same step
        painted(page)
        now = step_number(page.locator(".mg-step-of, .mg-sentence").first.inner_text())
        stable = stable + 1 if now == last else 0
        last = now
    return last - start


def train_kjv(browser, url: str):
    """A new session with the KJV loaded and trained: (the page, seconds the training took)."""
    _, page = open_timed(browser, url)
    page.get_by_role("combobox", name="Preset").click()
    timed(page, page.get_by_role("option", name=KJV).first.click)
    timed(page, page.get_by_role("button", name="Load preset").click)
    train = timed(page, page.get_by_role("button", name="Train all three").click)
    page.get_by_text("Trained all three").first.wait_for(timeout=WAIT)
    return page, train


def first_step_on_a_new_server(browser) -> tuple[float, float]:
    """timed_both() of the first Next after training the KJV, on a server of its own."""
    proc, url = start_server(Path(tempfile.mkdtemp(prefix="bench-first-step-")) / "app.log")
    try:
        page = trained_kjv_merges(browser, url)
        answered = timed_both(page, page.get_by_role("button", name="Next").click, step_shown(1))
        page.context.close()
        return answered
    finally:
        proc.terminate()
        proc.wait(timeout=15)


def trained_kjv_merges(browser, url: str):
    page, _ = train_kjv(browser, url)
    timed(page, page.get_by_test_id("stSidebarNav").get_by_role("link", name="Merges").click)
    return page


def autoplay_rows(page, intervals: int = 7) -> list[str]:
    """Intervals between step changes while playing at 1 s (the page's speed box), and from the
    page's log of its clicks: how late each Next was clicked against the clock (when the log has
    the time it was due) and how long each took to show its step."""
    page.evaluate("""() => { window.__steps = []; const target = document.querySelector('[data-testid=stMain]');
        new MutationObserver(() => { const s = document.querySelector('.mg-sentence');
          const t = s ? s.textContent : ''; if (window.__last !== t) { window.__last = t; window.__steps.push(performance.now()); } })
        .observe(target, {subtree: true, childList: true, characterData: true}); }""")
    page.get_by_role("button", name="Play").click()
    page.wait_for_function(f"() => window.__steps.length >= {intervals + 2}", timeout=WAIT)
    page.keyboard.press("Space")        # pause through the page's key queue (a mouse click can be lost to a Next)
    stamps = page.evaluate("window.__steps")
    gaps = [(b - a) / 1000 for a, b in zip(stamps[1:], stamps[2:])]
    rows = [row("autoplay at 1 s: intervals", gaps, extra="(target 1.0 s ± 0.2)")]
    rows.append(row("  Play -> first step", [play_to_first_step(page) for _ in range(5)], extra="(target 1.0 s)"))
    return rows


def play_to_first_step(page) -> float:
    """Seconds from a click on Play (the page's clock, at the click) until the next step shows."""
    page.get_by_role("button", name="Play").wait_for(timeout=WAIT)
    painted(page)
    page.evaluate("""() => { window.__playAt = null; window.__steps = [];
        const b = document.querySelector('.mg-button[data-action="play"]');
        b.addEventListener('click', () => { window.__playAt = performance.now(); }, {capture: true, once: true}); }""")
    page.get_by_role("button", name="Play").click()
    page.wait_for_function("() => window.__steps.length >= 1", timeout=WAIT)
    page.keyboard.press("Space")        # pause through the page's key queue (a mouse click can be lost to a Next)
    seconds = page.evaluate("(window.__steps[0] - window.__playAt) / 1000")
    page.get_by_role("button", name="Play").wait_for(timeout=WAIT)
    return seconds


def compare(browser, url: str, chars: int, floor: list[float], shots: Path | None, repeat: int = 0) -> None:
    text = mixed_scripts(chars)
    _, page = open_timed(browser, url + "/compare")
    box = page.get_by_role("textbox", name="Text", exact=True)
    cdp = page.context.new_cdp_session(page)
    cdp.send("Performance.enable")
    times, work = [], []
    since = len(PHASES)
    for i in range(repeat or (3 if chars <= 10_000 else 1)):
        box.fill(text[:-1] + str(i % 10))             # a different text each time: a real rerun
        page.evaluate(MARK_PANELS)
        before = main_thread(cdp)
        times.append(timed(page, lambda: box.press("Control+Enter"), PANELS_NEW))
        work.append({k: v - before[k] for k, v in main_thread(cdp).items()})
    size, elements = html_size(page)
    print(row(f"compare {chars:,} chars", times, floor, extra=f"HTML {size / 1e6:.2f} MB, {elements:,} elements"))
    print(f"{'  main thread a run (p50)':<30} " + ", ".join(
        f"{k} {statistics.median(w[k] for w in work) * 1000:.0f}" for k in work[0]) + " ms")
    print(phases_row(since))
    if shots:
        shots.mkdir(parents=True, exist_ok=True)
        page.locator(".tp-panel").first.scroll_into_view_if_needed()   # the panels and what they cover
        page.screenshot(path=str(shots / f"compare-{chars}.png"), full_page=False)
    page.context.close()


if __name__ == "__main__":
    main()
