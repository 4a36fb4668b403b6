"""Fixtures and helpers for the browser tests: one `streamlit run app.py` per session (serve_app
starts another for a test that needs a new server), one Chromium, and the ways to drive a page.

The server runs headless on a free port; Playwright drives Debian's Chromium, its headless shell
when installed (its own browser download is not reachable here). Screenshots go to
tests/screenshots/ (not committed).

Waiting: never for a time. An action that reruns the script goes inside `with rerun(page):`, which
returns once the server has sent that run's `script_finished` message (watched on the page's
websocket) and the app shows it idle; an action that changes only the browser waits for what it
changes (Playwright's `expect`, which retries until its timeout).
"""
from __future__ import annotations

import functools
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.support import ROOT

SCREENSHOTS = ROOT / "tests" / "screenshots"
# Chromium's headless shell (Debian package chromium-headless-shell, the same Blink) when it is
# installed: the whole browser running headless kept its browser process busy too, and the browser
# tests spent 476 s of Chromium's CPU with it against 393 s with the shell (52 tests, -n 3, one
# sitting; 303 s -> 261 s of wall time). bench/ measures with the whole browser, as users run it.
CHROMIUM = next((path for path in ("/usr/bin/chromium-headless-shell", "/usr/bin/chromium")
                 if Path(path).exists()), "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run"]
SERVER_START_TIMEOUT = 60
WAIT = 120_000          # ms for any one wait: two cores shared with other test runs
# every `expect` without a timeout of its own waits as long: Playwright's 5 s default failed a
# clean-clone run whose Load preset run had been made (the address named the new corpus) but not
# yet drawn. A passing expect returns as soon as it holds, so this only lengthens a failure.
expect.set_options(timeout=WAIT)
LARGE = {"width": 1600, "height": 1000}


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
                    "`sudo apt-get update && sudo apt-get install -y chromium chromium-headless-shell`")
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        # Every context a test opens asks for reduced motion, as a user can in their system's
        # settings: Streamlit then leaves out its loading animations (the skeletons' shimmer, the
        # running indicator). On two cores shared by two browsers and two servers they were ~6 % of
        # Chromium's CPU (the ten-sessions test and the look tours: 166 -> 155 CPU seconds, twice).
        # Nothing a test checks moves; a test may still ask for motion (reduced_motion=...).
        b.new_context = functools.partial(b.new_context, reduced_motion="reduce")
        try:
            yield b
        finally:
            b.close()


# The page's running setInterval timers, by id -> period in ms (Streamlit's autoplay fragments tick
# on one): `intervals(page)` lists the periods.
INTERVALS = """(() => {
  const active = new Map(), set = window.setInterval, clear = window.clearInterval;
  window.setInterval = function (f, ms, ...args) { const id = set.call(window, f, ms, ...args); active.set(id, ms); return id; };
  window.clearInterval = function (id) { active.delete(id); return clear.call(window, id); };
  window.__intervals = () => [...active.values()];
})()"""


def intervals(page) -> list:
    return page.evaluate("window.__intervals()")


def new_tab(context):
    """A page of `context` that records dialogs (`.dialogs`) and watches its Streamlit websocket
    (`.runs`: how many script runs have finished; `rerun` waits on it)."""
    tab = context.new_page()
    tab.set_default_timeout(WAIT)
    tab.add_init_script(INTERVALS)
    tab.dialogs = []
    tab.on("dialog", lambda d: (tab.dialogs.append(d.message), d.dismiss()))

    def watch(ws) -> None:
        if ws.url.endswith("/_stcore/stream"):
            tab.stream = ws
    tab.on("websocket", watch)
    return tab


def open_app(tab, url: str) -> None:
    """Load `url` and wait until its first run has drawn a title and finished."""
    tab.goto(url, timeout=WAIT)
    tab.get_by_test_id("stMain").locator("h1").first.wait_for(timeout=WAIT)
    idle(tab)


@pytest.fixture
def page(browser, app_url):
    """A fresh browser tab (a fresh Streamlit session) on the app, large enough for a projector."""
    context = browser.new_context(viewport=LARGE, color_scheme="light")
    tab = new_tab(context)
    open_app(tab, app_url)
    tab.get_by_role("heading", name="Corpus").first.wait_for()
    try:
        yield tab
    finally:
        context.close()


@pytest.fixture
def tab(browser, app_url, request):
    """A fresh session not opened yet: `tab.open(path)` loads the app at `path`. The window is the
    test module's VIEWPORT if it has one, else LARGE."""
    context = browser.new_context(viewport=getattr(request.module, "VIEWPORT", LARGE), color_scheme="light")
    tab = new_tab(context)
    tab.open = lambda path="": open_app(tab, app_url + path)
    try:
        yield tab
    finally:
        context.close()


@pytest.fixture
def screenshot_dir():
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS


# ---------------------------------------------------------------- waiting for the app

APP_IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'


def idle(page, timeout: int = WAIT) -> None:
    """The app shows no script run under way. Alone it proves nothing about a run just asked for
    (it may not have started yet): use it after waiting for that run's effect, or use `rerun`."""
    expect(page.locator(APP_IDLE)).to_have_count(1, timeout=timeout)


def _run_finished(payload) -> bool:
    """A websocket frame is the server's `script_finished` for a run that was not cut short by
    another rerun."""
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


@contextmanager
def rerun(page, timeout: int = WAIT):
    """The block's action reruns the script: return once that run has finished and the page is idle.

    The wait starts before the action, so a run that starts and ends at once is not missed."""
    with page.stream.expect_event("framereceived", predicate=_run_finished, timeout=timeout):
        yield
    idle(page, timeout)


def frames(page) -> None:
    """Two animation frames have passed: the layout after a resize or a hover has been drawn."""
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")


# ---------------------------------------------------------------- driving the app

def main(page):
    return page.get_by_test_id("stMain")


def sentence(page, n: int = 0):
    """The Merges page's step sentence (n: which trainer, in lockstep)."""
    return page.locator(".mg-sentence").nth(n)


def panel(page, key: str):
    """One Compare panel by its tokenizer key ("pretrained:gpt2", "trained:bbpe:merges")."""
    return page.locator(f'.tp-panel[data-tokenizer="{key}"]')


def pick(page, label: str, option, exact: bool = False) -> None:
    """Choose an option of a Streamlit selectbox by its label; a new choice reruns the script,
    the one already chosen only closes the list."""
    page.get_by_role("combobox", name=label).click()
    choice = page.get_by_role("option", name=option, exact=exact).first
    if choice.get_attribute("aria-selected") == "true":
        page.keyboard.press("Escape")
        expect(page.get_by_role("listbox")).to_have_count(0)
        return
    with rerun(page):
        choice.click()


def go_to(page, title: str) -> None:
    """Switch page through the sidebar navigation (keeps the session, unlike a new URL)."""
    with rerun(page):
        page.get_by_test_id("stSidebarNav").get_by_role("link", name=title).click()
    expect(page.get_by_role("heading", name=title, exact=True).first).to_be_visible()


def load_preset(page, name: str) -> None:
    """Load the preset whose label starts with `name` ("Seed 000", "Sample · English prose")."""
    pick(page, "Preset", re.compile("^" + re.escape(name)))
    with rerun(page):
        page.get_by_role("button", name="Load preset").click()
    expect(page.get_by_text(f"Current corpus: {name}").first).to_be_visible()


def use_pasted(page, text: str) -> None:
    """Make `text` the corpus through the Corpus page's Paste tab. The box's value is sent first
    (Ctrl+Enter), then the button is clicked: two runs, each waited for. Filling and clicking at
    once asks for both runs together, and `rerun` may end with the first while the page still
    shows what came before the second (a Train button with no corpus)."""
    page.get_by_role("tab", name="Paste").click()
    box = page.get_by_role("textbox", name="Text", exact=True)
    box.fill(text)
    with rerun(page):
        box.press("Control+Enter")
    with rerun(page):
        page.get_by_role("button", name="Use this text").click()
    expect(page.get_by_text("Current corpus: Pasted text")).to_be_visible()


def train(page) -> None:
    with rerun(page, 4 * WAIT):
        page.get_by_role("button", name="Train all three").click()
    expect(page.get_by_text("Trained all three")).to_be_visible()


def upload(page, files, uploader: int = 0) -> None:
    """Choose files in an uploader and wait until the server has them and has rerun (the name
    shows before the file is sent). `files`: a path, or {"name", "mimeType", "buffer"}."""
    box = page.get_by_test_id("stFileUploader").nth(uploader)
    with rerun(page), page.expect_response(lambda r: "/_stcore/upload_file/" in r.url and r.request.method == "PUT",
                                           timeout=WAIT) as sent:
        box.locator('input[type="file"]').set_input_files(files)
    assert sent.value.ok, sent.value.status


def luminance(css_colour: str) -> float:
    """Relative luminance (0 black … 1 white) of a computed `rgb(r, g, b)` / `rgba(…)` colour."""
    r, g, b = (int(v) / 255 for v in re.findall(r"[\d.]+", css_colour)[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def snap(page, path, whole: bool = True) -> None:
    """Screenshot; `whole` grows the window to the page's height first (Streamlit scrolls inside
    its main block, so Playwright's full_page alone would show only the viewport)."""
    size = page.viewport_size
    page.mouse.move(5, size["height"] - 5)   # no hover tooltips in the picture
    if whole:
        height = page.evaluate("document.querySelector('[data-testid=stMainBlockContainer]').scrollHeight")
        page.set_viewport_size({"width": size["width"], "height": max(size["height"], min(height + 150, 8000))})
        frames(page)
        idle(page)
    page.screenshot(path=path)
    page.set_viewport_size(size)


APP_BACKGROUND = "getComputedStyle(document.querySelector('[data-testid=stApp]')).backgroundColor"


def set_theme(page, scheme: str) -> None:
    """Switch the open page to the light or dark theme, as a user's system setting does: the app
    follows the system's colour scheme, and Streamlit redraws in the other theme without a rerun
    or a reload. Returns once the app's background is the theme's and two frames are drawn. One
    session can so be photographed in both themes: the light and dark looks of one state, without
    opening, training and stepping to it twice (the suite is CPU-bound)."""
    page.emulate_media(color_scheme=scheme)
    dark = scheme == "dark"
    page.wait_for_function(
        f"() => {{ const m = {APP_BACKGROUND}.match(/[\\d.]+/g).map(Number);"
        f" const y = (0.2126 * m[0] + 0.7152 * m[1] + 0.0722 * m[2]) / 255; return {'y < 0.2' if dark else 'y > 0.8'}; }}",
        timeout=WAIT)
    frames(page)
    idle(page)


def both_themes(page, shoot) -> None:
    """`shoot(scheme)` in the light theme, then in the dark (set_theme: one session looked at
    twice, not opened and trained twice); the page is left in light."""
    for scheme in ("light", "dark"):
        set_theme(page, scheme)
        shoot(scheme)
    set_theme(page, "light")
