"""Fixtures for the browser tests: one `streamlit run app.py` per session (serve_app starts
another for a test that needs a new server), one Chromium.

The server runs headless on a free port; Playwright drives Debian's /usr/bin/chromium (its own
browser download is not reachable here). Screenshots go to tests/screenshots/ (not committed).
"""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCREENSHOTS = ROOT / "tests" / "screenshots"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run"]
SERVER_START_TIMEOUT = 60


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_until_serving(url: str, proc: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + SERVER_START_TIMEOUT
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"streamlit exited with {proc.returncode}:\n{log.read_text()[-2000:]}")
        try:
            with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.3)
    raise RuntimeError(f"streamlit did not serve {url} within {SERVER_START_TIMEOUT} s:\n{log.read_text()[-2000:]}")


@contextmanager
def serve_app(log: Path):
    """`streamlit run app.py` on a free port until the block ends; yields its URL."""
    port = _free_port()
    env = {**os.environ, "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false", "TIKTOKEN_CACHE_DIR": ""}
    with open(log, "w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless=true",
             f"--server.port={port}", "--server.address=127.0.0.1", "--server.fileWatcherType=none"],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_until_serving(url, proc, log)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="session")
def app_url(tmp_path_factory):
    """URL of the app, served by `streamlit run app.py` for the whole session."""
    with serve_app(tmp_path_factory.mktemp("streamlit") / "server.log") as url:
        yield url


@pytest.fixture(scope="session")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.fail(f"browser tests need {CHROMIUM}: run `make test` as root, or "
                    "`sudo apt-get update && sudo apt-get install -y chromium`")
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def page(browser, app_url):
    """A fresh browser tab (a fresh Streamlit session) on the app, large enough for a projector."""
    context = browser.new_context(viewport={"width": 1600, "height": 1000}, color_scheme="light")
    tab = context.new_page()
    tab.set_default_timeout(30_000)
    tab.goto(app_url)
    tab.get_by_role("heading", name="Corpus").first.wait_for()
    try:
        yield tab
    finally:
        context.close()


@pytest.fixture
def screenshot_dir():
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS
