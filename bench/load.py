"""Load test on localhost: N browser sessions at once against one `streamlit run app.py`.

    .venv/bin/python bench/load.py                 # 8 sessions, 10 steps each; about a minute
    .venv/bin/python bench/load.py --sessions 16 --steps 20 --preset kjv
    .venv/bin/python bench/load.py --url http://127.0.0.1:8501    # an app already running (loopback only)

Each session is a Playwright browser context (its own Streamlit session) in one headless Chromium
(/usr/bin/chromium), all driven at the same time (asyncio). Every session:
  1. opens the app (page load: until the Corpus heading is drawn),
  2. loads a preset (sessions take the small presets in turn, or all the one given by --preset),
  3. trains all three tokenizers (click to "Trained all three"),
  4. opens the Merges page and presses Next --steps times, each until the step's sentence shows the
     new step: the page action whose latency is reported (p50, p95, max).
The browsers run on the same cores as the server: the latencies include their rendering, and the
server's own CPU time over the run is printed beside them.
The server's memory is sampled every 0.2 s from /proc/<pid>/status (VmRSS; VmHWM is the kernel's
own peak), with psutil when it is installed (it counts child processes too).

Bounded: at most 20 sessions and 50 steps a session, a deadline for the whole run (--deadline,
default 600 s), addresses on the loopback interface only. Figures go to the terminal only; nothing
is asserted. The machine is shared: the load average is printed at the start and the end.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--no-first-run"]
SMALL_PRESETS = ("Sample · English prose", "Sample · Python code", "Sample · Chinese paragraph",
                 "Sample · Emoji and mixed scripts", "Seed 001", "Seed 003")
MAX_SESSIONS, MAX_STEPS = 20, 50
LOOPBACK = {"127.0.0.1", "localhost", "::1"}
WAIT_MS = 300_000


# ---------------------------------------------------------------- the server and its memory

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(log_path: Path, script: str = "app.py") -> tuple[subprocess.Popen, str]:
    """`streamlit run script` (a path from the repository's root) on a free loopback port."""
    port = free_port()
    env = {**os.environ, "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false", "TIKTOKEN_CACHE_DIR": ""}
    log = open(log_path, "w")
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", script, "--server.headless=true",
                             f"--server.port={port}", "--server.address=127.0.0.1", "--server.fileWatcherType=none"],
                            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"streamlit exited with {proc.returncode}; see {log_path}")
        try:
            with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return proc, url
        except OSError:
            time.sleep(0.3)
    proc.terminate()
    raise SystemExit(f"streamlit did not answer on {url} within 90 s; see {log_path}")


def server_pid(url: str) -> int | None:
    """The pid listening on the URL's port (for --url): from /proc/net/tcp and the fds in /proc."""
    port = urlparse(url).port or 80
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = open(table).read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            parts = line.split()
            if parts[3] == "0A" and int(parts[1].rsplit(":", 1)[1], 16) == port:   # LISTEN
                inodes.add(parts[9])
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                link = os.readlink(f"/proc/{pid}/fd/{fd}")
                if link.startswith("socket:[") and link[8:-1] in inodes:
                    return int(pid)
        except OSError:
            continue
    return None


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (/proc/<pid>/stat)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def status_kb(pid: int, field: str) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


class MemorySampler(threading.Thread):
    """Polls the server's resident memory: VmRSS of the process (plus its children with psutil)."""

    def __init__(self, pid: int, every: float = 0.2):
        super().__init__(daemon=True)
        self.pid, self.every, self.samples, self.stop = pid, every, [], threading.Event()
        try:
            import psutil
            self.proc = psutil.Process(pid)
        except ImportError:
            self.proc = None

    def rss_mb(self) -> float:
        if self.proc is not None:
            procs = [self.proc] + self.proc.children(recursive=True)
            return sum(p.memory_info().rss for p in procs) / 2 ** 20
        return status_kb(self.pid, "VmRSS") / 1024

    def run(self) -> None:
        while not self.stop.is_set():
            try:
                self.samples.append((time.monotonic(), self.rss_mb()))
            except (OSError, ValueError):
                return
            self.stop.wait(self.every)

    @property
    def source(self) -> str:
        return "psutil (process and children)" if self.proc is not None else "/proc/<pid>/status VmRSS"


# ---------------------------------------------------------------- one session

async def settle(page) -> None:
    await page.wait_for_timeout(250)
    await page.locator('[data-testid="stApp"][data-test-script-state="notRunning"]').wait_for(timeout=WAIT_MS)


async def session(browser, url: str, preset: str, steps: int, out: dict) -> None:
    context = await browser.new_context(viewport={"width": 1280, "height": 900})
    page = await context.new_page()
    page.set_default_timeout(WAIT_MS)
    try:
        t = time.monotonic()
        await page.goto(url, timeout=WAIT_MS)
        await page.get_by_role("heading", name="Corpus").first.wait_for()
        out["load"] = time.monotonic() - t
        await settle(page)

        t = time.monotonic()
        await page.get_by_role("combobox", name="Preset").click()
        await page.get_by_role("option", name=preset).first.click()
        await settle(page)
        await page.get_by_role("button", name="Load preset").click()
        await page.get_by_text("Current corpus: " + preset).first.wait_for()
        await settle(page)
        out["preset"] = time.monotonic() - t

        t = time.monotonic()
        await page.get_by_role("button", name="Train all three").click()
        await page.get_by_text("Trained all three").wait_for()
        out["train"] = time.monotonic() - t
        await settle(page)

        await page.get_by_test_id("stSidebarNav").get_by_role("link", name="Merges").click()
        sentence = page.locator(".mg-sentence").first
        await sentence.wait_for()
        await settle(page)
        out["next"] = []
        for k in range(1, steps + 1):
            button = page.get_by_role("button", name="Next")
            if await button.is_disabled():
                break
            t = time.monotonic()
            await button.click()
            await page.locator(f'.mg-sentence[data-step="{k}"]').first.wait_for()
            out["next"].append(time.monotonic() - t)
        out["ok"] = True
    except Exception as e:   # noqa: BLE001 -- a failed session is counted and reported, the run goes on
        out["error"] = f"{type(e).__name__}: {str(e).splitlines()[0][:160]}"
    finally:
        await context.close()


async def run_all(url: str, sessions: int, steps: int, presets: list[str], deadline: float) -> list[dict]:
    from playwright.async_api import async_playwright
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            outs = [{} for _ in range(sessions)]
            tasks = [session(browser, url, presets[i % len(presets)], steps, outs[i]) for i in range(sessions)]
            try:
                await asyncio.wait_for(asyncio.gather(*tasks), timeout=deadline)
            except asyncio.TimeoutError:
                print(f"deadline of {deadline:.0f} s reached: sessions still running were stopped")
            results = [{"name": presets[i % len(presets)], **o} for i, o in enumerate(outs)]
        finally:
            await browser.close()
    return results


# ---------------------------------------------------------------- report

def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    k = max(0, min(len(values) - 1, round(q * (len(values) - 1))))
    return values[k]


def line(label: str, values: list[float]) -> str:
    if not values:
        return f"{label:<28} (none)"
    return (f"{label:<28} n={len(values):<4} p50 {pct(values, .5) * 1000:7.0f} ms   p95 {pct(values, .95) * 1000:7.0f} ms"
            f"   max {max(values) * 1000:7.0f} ms")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sessions", type=int, default=8, help=f"browser sessions at once (at most {MAX_SESSIONS})")
    ap.add_argument("--steps", type=int, default=10, help=f"Next presses a session (at most {MAX_STEPS})")
    ap.add_argument("--preset", help="every session loads this preset (a name's start, e.g. 'Sample · King James'); "
                                     "default: the small presets in turn")
    ap.add_argument("--url", help="an app already running on this machine (loopback address only)")
    ap.add_argument("--deadline", type=float, default=600, help="seconds for the whole run")
    args = ap.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))   # stop the server on a kill too
    if not 1 <= args.sessions <= MAX_SESSIONS or not 1 <= args.steps <= MAX_STEPS:
        raise SystemExit(f"--sessions 1..{MAX_SESSIONS}, --steps 1..{MAX_STEPS}")
    if args.url and urlparse(args.url).hostname not in LOOPBACK:
        raise SystemExit("--url must be a loopback address (127.0.0.1, localhost, ::1): this is a local load test")
    if not Path(CHROMIUM).exists():
        raise SystemExit(f"needs {CHROMIUM} (Debian package chromium)")

    presets = [args.preset] if args.preset else list(SMALL_PRESETS)
    proc = None
    log = Path("/tmp") / f"bench-load-{os.getpid()}.log"
    if args.url:
        url, pid = args.url.rstrip("/"), server_pid(args.url)
    else:
        proc, url = start_server(log)
        pid = proc.pid
    print(f"app {url} (server pid {pid}); {args.sessions} sessions, {args.steps} Next presses each; "
          f"load average {os.getloadavg()[0]:.2f} at start; {os.cpu_count()} cores")
    sampler = MemorySampler(pid) if pid else None
    rss_start = sampler.rss_mb() if sampler else float("nan")
    cpu_start = cpu_seconds(pid) if pid else float("nan")
    if sampler:
        sampler.start()
    t0 = time.monotonic()
    try:
        results = asyncio.run(run_all(url, args.sessions, args.steps, presets, args.deadline))
    finally:
        wall = time.monotonic() - t0
        if sampler:
            sampler.stop.set()
            sampler.join()
        hwm = status_kb(pid, "VmHWM") / 1024 if pid else float("nan")
        cpu = cpu_seconds(pid) - cpu_start if pid else float("nan")
        if proc is not None:
            proc.terminate()
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()

    ok = [r for r in results if r.get("ok")]
    print(f"\n{len(ok)} of {len(results)} sessions finished in {wall:.1f} s")
    for r in results:
        if "error" in r:
            print(f"  failed ({r['name']}): {r['error']}")
    print(line("page load (to the heading)", [r["load"] for r in results if "load" in r]))
    print(line("load a preset", [r["preset"] for r in results if "preset" in r]))
    print(line("train all three", [r["train"] for r in results if "train" in r]))
    nexts = [x for r in results for x in r.get("next", [])]
    print(line("Merges: Next (the action)", nexts))
    if sampler and sampler.samples:
        peak = max(m for _, m in sampler.samples)
        print(f"\nserver memory ({sampler.source}): {rss_start:.0f} MB at start, peak {peak:.0f} MB sampled, "
              f"{sampler.samples[-1][1]:.0f} MB at the end; VmHWM (kernel's peak RSS) {hwm:.0f} MB")
    print(f"server CPU time {cpu:.1f} s over {wall:.1f} s of wall time ({cpu / wall:.0%} of one core; the "
          "browsers share the same cores)")
    print(f"load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
