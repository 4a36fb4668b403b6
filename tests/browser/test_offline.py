"""The app never reaches the network: every request any page makes, in either theme, goes to the
app's own server (or stays inside the browser: data: and blob: URLs). One session: each page is
loaded in one theme and then redrawn in the other (switched as a system setting switches it), the
loads alternating between light and dark."""
from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from tests.browser.conftest import set_theme

pytestmark = pytest.mark.browser

# Each page with the state it shows most of: a trained seed on Merges, a text on Compare.
VISITS = [
    ("/", "Corpus"),
    ("/merges?preset=seed-000&step=2", "Merges"),
    ("/compare", "Compare"),
    ("/inspect", "Inspect"),
    ("/languages", "Token tax"),
]


def _leaves_the_machine(url: str, app_url: str) -> bool:
    parts = urlsplit(url)
    if parts.scheme in ("data", "blob", "about", "chrome", "chrome-extension"):
        return False
    return f"{parts.scheme}://{parts.netloc}" != app_url


def test_no_request_leaves_localhost(browser, app_url):
    context = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme="light")
    requests: list[str] = []
    context.on("request", lambda r: requests.append(r.url))
    tab = context.new_page()
    tab.set_default_timeout(60_000)
    try:
        for i, (path, heading) in enumerate(VISITS):
            tab.goto(app_url + path)
            tab.get_by_role("heading", name=heading).first.wait_for()
            # the run has ended when Streamlit's status widget is gone: everything it fetched is in
            tab.wait_for_function("() => !document.querySelector('[data-testid=\"stStatusWidget\"]')")
            tab.wait_for_load_state("networkidle")
            set_theme(tab, ("dark", "light")[i % 2])   # loaded in one theme, redrawn in the other
            tab.wait_for_load_state("networkidle")
    finally:
        context.close()
    assert requests, "no request was recorded: the listener is not working"
    outside = sorted({u for u in requests if _leaves_the_machine(u, app_url)})
    assert not outside, f"{len(outside)} request(s) left the machine: {outside[:10]}"
