"""Regenerate docs/screenshots/: every page at 1024 and 1280 pixels wide, light and dark.

    make screenshots        (or: .venv/bin/python docs/screenshots.py)

Starts `streamlit run app.py` on a free local port, drives Debian's Chromium through Playwright
(the same way the browser tests do), loads seed 000, trains it (Unigram too, at 20 pieces), and
photographs the Corpus, Merges (step 2), Compare, Inspect, Unigram and Token tax pages. At 1024 pixels the sidebar is open, as on a projector.
Files: docs/screenshots/<page>-<width>-<theme>.png. Look at every one after a change to a page.
"""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "screenshots"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run"]
WIDTHS = (1024, 1280)
THEMES = ("light", "dark")
PAGES = (("corpus", "Corpus"), ("merges", "Merges"), ("compare", "Compare"), ("inspect", "Inspect"),
         ("unigram", "Unigram"), ("languages", "Token tax"))
UNIGRAM_SIZE = 20          # seed 000 accepts 12 to 26 pieces


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _serve() -> tuple[subprocess.Popen, str]:
    port = _free_port()
    env = {**os.environ, "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false", "TIKTOKEN_CACHE_DIR": ""}
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless=true",
                             f"--server.port={port}", "--server.address=127.0.0.1",
                             "--server.fileWatcherType=none"],
                            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url + "/_stcore/health", timeout=2):
                return proc, url
        except OSError:
            time.sleep(0.3)
    proc.kill()
    raise SystemExit("streamlit did not start within 60 s")


# true once the script run has ended, nothing on the page is stale, every chart has drawn its
# text, and the text boxes are where they were at the previous poll (Plotly redraws a chart once
# its automargins are known, and again after the window is resized)
SETTLED = """() => {
  const app = document.querySelector('[data-testid=stApp]');
  if (!app || app.getAttribute('data-test-script-state') !== 'notRunning') return false;
  if (document.querySelector('[data-testid=stSkeleton], [data-stale=true]')) return false;
  const charts = [...document.querySelectorAll('[data-testid=stPlotlyChart], [data-testid=stGraphVizChart]')];
  if (!charts.every(c => c.querySelector('svg text'))) return false;
  const sig = charts.map(c => [...c.querySelectorAll('svg text')].map(t => {
    const r = t.getBoundingClientRect(); return [r.x, r.y, r.width, r.height].map(Math.round).join(',');
  }).join(';')).join('|') + '#' + charts.length + '#' + window.innerWidth + 'x' + window.innerHeight;
  const same = window.__shotSig === sig;
  window.__shotSig = sig;
  return same;
}"""


def _idle(tab) -> None:
    """Until the page has settled (see SETTLED): no fixed waits."""
    tab.evaluate("window.__shotSig = null")
    tab.wait_for_function(SETTLED, polling=250, timeout=120_000)


def _shoot(tab, path: Path) -> None:
    """The whole page: the window grows to the page's height first (Streamlit scrolls inside its
    main block, so a plain full-page screenshot would show only the window)."""
    tab.mouse.move(5, 5)
    size = tab.viewport_size
    height = tab.evaluate("document.querySelector('[data-testid=stMainBlockContainer]').scrollHeight")
    tab.set_viewport_size({"width": size["width"], "height": max(size["height"], min(height + 150, 6000))})
    _idle(tab)
    tab.screenshot(path=str(path))
    tab.set_viewport_size(size)


def _to_step(tab, k: int) -> None:
    """The Merges page at step k (training Unigram took it back to step 0): Next, one step at a time."""
    sentence = tab.locator(".mg-sentence").first
    for step in range(1, k + 1):
        if f"Step {k} of" in sentence.inner_text():
            return
        tab.get_by_role("button", name="Next").click()
        sentence.get_by_text(f"Step {step} of").wait_for()
        _idle(tab)


def _train_unigram_too(tab) -> None:
    """On the Corpus page: opt in to Unigram at UNIGRAM_SIZE pieces and train all four."""
    tab.get_by_test_id("stSidebarNav").get_by_role("link", name="Corpus").click()
    tab.get_by_role("heading", name="Corpus", exact=True).first.wait_for()
    _idle(tab)
    tab.locator(".st-key-corpus_unigram_on").get_by_text("Train Unigram too").click()
    box = tab.locator(".st-key-corpus_unigram_vocab_size input")
    box.wait_for()
    _idle(tab)
    box.fill(str(UNIGRAM_SIZE))
    box.press("Enter")
    tab.get_by_text("This corpus accepts a Unigram vocabulary of").first.wait_for()
    _idle(tab)
    tab.get_by_role("button", name="Train all four").first.click()
    tab.get_by_text("Trained all four").first.wait_for()
    _idle(tab)


def main() -> int:
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        print(f"needs {CHROMIUM}: sudo apt-get install -y chromium", file=sys.stderr)
        return 1
    OUT.mkdir(parents=True, exist_ok=True)
    proc, url = _serve()
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            for theme in THEMES:
                for width in WIDTHS:
                    context = browser.new_context(viewport={"width": width, "height": 800}, color_scheme=theme)
                    tab = context.new_page()
                    tab.set_default_timeout(120_000)
                    tab.goto(url + "/merges?preset=seed-000&step=2")   # loads and trains seed 000
                    tab.locator(".mg-sentence").first.get_by_text("Step 2 of").wait_for()
                    _idle(tab)
                    _train_unigram_too(tab)
                    for slug, title in PAGES:   # through the sidebar: the same session, trained
                        tab.get_by_test_id("stSidebarNav").get_by_role("link", name=title).click()
                        tab.get_by_role("heading", name=title, exact=True).first.wait_for()
                        _idle(tab)
                        if slug == "merges":
                            _to_step(tab, 2)
                        path = OUT / f"{slug}-{width}-{theme}.png"
                        _shoot(tab, path)
                        print(path.relative_to(ROOT))
                    context.close()
            browser.close()
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
