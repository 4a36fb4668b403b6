// Draws HTML the server built (playground/html_panel.py: every piece of user text in it escaped by
// playground/markup.py) into this component's element, as it is, in a child of its own (Streamlit
// keeps the component's element for itself). It comes as UTF-8 bytes; it is set only when it
// changed (a rerun with the same panel, or a new theme, leaves the page alone).
// A panel's scroll box (.tp-scroll) is made keyboard-focusable (tabindex 0, as Chrome makes a
// scroller itself): besides letting the keys scroll it, this ends the search Streamlit's tabs run
// over their content after every change for something focusable (react-aria's useHasTabbableChild):
// without one it walked every token box of every panel (bench/browser_profile.py: 40-200 ms a run
// with 10,000 characters in four panels, the more the busier the machine).
// The panel is shown once the app's stylesheet (style.css, drawn by st.html) applies: on a first
// visit Streamlit loads st.html's code after this component's, and the boxes would show unstyled
// for a moment (a line could break inside one). It is waited for frame by frame, at most 3 s
// (then the panel shows as it is).
// A Streamlit custom component (st.components.v2, JavaScript only, no iframe) served from the
// repository: no network.
var decoder = new TextDecoder("utf-8");
var SHEET_WAIT_MS = 3000;

function sheetApplies() {   // style.css sets --tp-ring on :root
  return getComputedStyle(document.documentElement).getPropertyValue("--tp-ring") !== "";
}

function showWhenStyled(host) {
  if (sheetApplies()) { host.hidden = false; return; }
  host.hidden = true;
  var since = performance.now();
  (function wait() {
    if (sheetApplies() || performance.now() - since > SHEET_WAIT_MS) host.hidden = false;
    else requestAnimationFrame(wait);
  })();
}

export default function (component) {
  var parent = component.parentElement;
  var host = parent.querySelector(":scope > .tp-html-panel");
  if (!host) {
    host = document.createElement("div");
    host.className = "tp-html-panel";
    parent.appendChild(host);
  }
  var data = component.data;
  var html = data ? decoder.decode(data) : "";
  if (host.__tpHtml === html) return;
  host.__tpHtml = html;
  host.innerHTML = html;
  var boxes = host.getElementsByClassName("tp-scroll");
  for (var i = 0; i < boxes.length; i++) boxes[i].tabIndex = 0;
  showWhenStyled(host);
}
