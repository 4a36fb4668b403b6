"""What several test folders share: where the app is, and the hostile text every view must show
as text (never as markup, links or Streamlit directives)."""
from __future__ import annotations

import re
import unicodedata
from html.parser import HTMLParser
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
APP = ROOT / "app.py"
PAGES = ["pages/corpus.py", "pages/merges.py", "pages/compare.py", "pages/inspect.py", "pages/unigram.py",
         "pages/languages.py"]

# HTML that runs or formats if a view forgets to escape, a javascript: link, an entity that must
# stay literal, and Markdown / Streamlit directives that must not format. Tests index into it.
PAYLOADS = ['<img src=x onerror=alert(1)>', '<script>alert(1)</script>', '<svg onload=alert(1)>',
            '<iframe srcdoc="<script>alert(1)</script>">', '[click](javascript:alert(1))', '"><b>x</b>',
            "&lt;b&gt;", ":red[red] **bold**"]
PAYLOAD = " ".join(PAYLOADS)
# The HTML ones only (for views that draw HTML and nothing else: the Compare panels).
HTML_PAYLOADS = [p for p in PAYLOADS if p.startswith(("<", '"'))]
HTML_PAYLOAD = " ".join(HTML_PAYLOADS)


def in_unicode_14(ch: str) -> bool:
    """Assigned in Python 3.11's Unicode 14 (and not a surrogate): the parity tests' text stays
    where Python, `regex` and `tokenizers` agree (each library has its own Unicode tables; a code
    point assigned after Unicode 14 may be a letter to one and unassigned to another)."""
    return unicodedata.category(ch) not in ("Cn", "Cs")


class HTMLTags(HTMLParser):
    """Every element, attribute (name, value) and text run in a piece of HTML, as a browser's
    parser sees them: `HTMLTags.of(html)`."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags, self.attrs, self.text = [], [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs.extend(attrs)

    def handle_data(self, data):
        self.text.append(data)

    @classmethod
    def of(cls, html_text: str) -> "HTMLTags":
        parser = cls()
        parser.feed(html_text)
        return parser


def drawn_html(at, markdown: bool = False) -> list[str]:
    """The HTML an AppTest run draws, in page order: st.html bodies, and the HTML of the panels
    drawn by playground.html_panel (a component that sets the server's escaped HTML into the page
    as it is, without st.html's sanitizer: every check on st.html bodies holds for these too), but
    not the empty one every page draws to load the component's code early. `markdown`: st.markdown
    bodies too, in their places."""
    from playground import html_panel
    out = []
    for e in at._tree:
        if e.type == "html":
            out.append(e.proto.body)
        elif markdown and e.type == "markdown":
            out.append(e.proto.body)
        elif (e.type == "bidi_component" and e.proto.component_name == html_panel.NAME
              and e.key != html_panel.PRELOAD_KEY):
            out.append(html_panel.drawn(e))
    return out


def compare_panels(at) -> dict[str, str]:
    """Compare's token panels drawn by an AppTest run: data-tokenizer (unescaped) -> the panel's
    HTML, in page order."""
    import html
    import re
    out = {}
    for body in drawn_html(at):
        m = re.search(r'<div class="tp-panel" data-tokenizer="([^"]*)"', body)
        if m:
            out[html.unescape(m.group(1))] = body
    return out


_BAR_LABEL = re.compile(r'<span class="mg-bar-label"[^>]*>(.*?)</span><span class="mg-bar-track"')
_ISOLATED_PAIR = re.compile(r'<span class="mg-side">([^<]*)</span>(?: \+ <span class="mg-side">([^<]*)</span>)?')


def bar_labels(html_text: str) -> list[str]:
    """The label of each bar of a pair chart (charts.pair_bars_html), escaped as drawn, best first:
    each side of a pair is drawn in its own bidi island, <span class="mg-side"> (asserted here),
    read back as `a + b`."""
    out = []
    for label in _BAR_LABEL.findall(html_text):
        m = _ISOLATED_PAIR.fullmatch(label)
        assert m, f"a bar's label is not its sides, each isolated: {label!r}"
        out.append(m.group(1) if m.group(2) is None else f"{m.group(1)} + {m.group(2)}")
    return out


# ---------------------------------------------------------------- a page's stepper, headless

def _stepper_element(at):
    from playground import browser_stepper
    found = [e for e in at._tree if e.type == "bidi_component" and e.proto.component_name == browser_stepper.NAME]
    assert len(found) == 1, f"{len(found)} steppers on the page"
    return found[0]


def stepper(at) -> dict:
    """What the page's stepper (browser_stepper.show: the Merges or the Unigram page's) was given by
    the last run: its step, last step, play state, speed, the tell applied, and its window of steps."""
    from playground import browser_stepper
    return browser_stepper.stepper_data(_stepper_element(at))


def tell(at, **changes):
    """Do what the browser's stepper does on a press: tell the server its new state (the next
    sequence number; step, playing and speed as they were unless changed), then run."""
    element = _stepper_element(at)
    now = stepper(at)
    told = {"seq": now["told"] + 1, "step": now["step"], "playing": now["playing"], "speed": now["speed"],
            "trace": now["trace"], "view": now["view"], "have": []}
    told.update(changes)
    at.session_state[element.key] = {"told": told}
    return at.run()


def step_press(at, action: str):
    """A press of the stepper's button `action` (first, prev, play, next, last), as its script
    makes it (browser_stepper.js: act)."""
    now = stepper(at)
    k, last = now["step"], now["last"]
    if action == "play":
        if now["playing"]:
            return tell(at, playing=False)
        return tell(at, playing=True, step=0 if k >= last else k)
    to = {"first": 0, "prev": k - 1, "next": k + 1, "last": last}[action]
    to = max(0, min(last, to))
    return tell(at, step=to, playing=now["playing"] and to < last)
