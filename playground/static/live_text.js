// Two page helpers, set up once per browser tab:
// 1. Live typing for Streamlit text areas (Compare's text): a text area commits on blur or Ctrl+Enter;
//    this commits it after a pause in typing, as Ctrl+Enter would (Streamlit's own key handler).
// 2. Hover cards for token boxes (.tp-t, spans.py): one floating card, placed below the token (above
//    it near the window's bottom), never clipped by a panel's scroll box; its text (the box's
//    data-card, or that of the first box with its id) is set with textContent (never parsed as
//    HTML); every box with the hovered one's id is outlined. Without this script style.css shows
//    the card with CSS alone (body without .tp-js-cards) on pages that send every box's card.
// A Streamlit custom component (st.components.v2, JavaScript only) served from the repository: no network. Any text area inside an element with
// one of the listed keys (Streamlit gives it the class st-key-<key>) gets it, once; a global
// observer attaches to text areas drawn later (page switches, reruns).
function setUp() {
  var KEYS = ["compare_text"];
  var PAUSE_MS = 200;
  var doc = document;
  if (window.__tpLiveText) { window.__tpLiveText(); return; }

  function attach(ta) {
    if (ta.dataset.tpLive) return;
    ta.dataset.tpLive = "1";
    var timer = null;
    var composing = false;
    function commit() {
      timer = null;
      if (composing || !ta.isConnected) return;
      ta.dispatchEvent(new KeyboardEvent("keydown", {
        key: "Enter", code: "Enter", ctrlKey: true, bubbles: true, cancelable: true
      }));
    }
    function later() {
      if (timer) clearTimeout(timer);
      timer = setTimeout(commit, PAUSE_MS);
    }
    ta.addEventListener("input", function (e) { if (!e.isComposing) later(); });
    ta.addEventListener("compositionstart", function () { composing = true; });
    ta.addEventListener("compositionend", function () { composing = false; later(); });
  }

  function scan() {
    for (var i = 0; i < KEYS.length; i++) {
      var found = doc.querySelectorAll(".st-key-" + KEYS[i] + " textarea");
      for (var j = 0; j < found.length; j++) attach(found[j]);
    }
  }

  window.__tpLiveText = scan;
  scan();
  new MutationObserver(scan).observe(doc.body, { childList: true, subtree: true });
  setUpCards();
}

function setUpCards() {
  var doc = document;
  var card = doc.createElement("div");
  card.className = "tp-card-float";
  card.setAttribute("role", "tooltip");
  card.hidden = true;
  doc.body.appendChild(card);
  doc.body.classList.add("tp-js-cards");
  var current = null;
  var lit = [];   // the boxes outlined as having the hovered box's id

  // every box in the hovered one's panel with the same id is outlined (a class on those few boxes:
  // a :has() rule per repeated id made the browser recompute styles of thousands of boxes)
  function unlight() {
    for (var i = 0; i < lit.length; i++) lit[i].classList.remove("tp-lit");
    lit = [];
  }
  function light(token) {
    unlight();
    var m = /(?:^| )tp-id(\d+)(?: |$)/.exec(token.className);
    var panel = token.closest(".tp-tokens");
    if (!m || !panel) return;
    lit = Array.prototype.slice.call(panel.getElementsByClassName("tp-id" + m[1]));
    for (var i = 0; i < lit.length; i++) lit[i].classList.add("tp-lit");
  }
  function hide() { card.hidden = true; current = null; unlight(); }
  // a box without its own card shows the one sent with the first box of its id in its panel
  // (spans.py sends each id's card once)
  function cardOf(token) {
    var own = token.getAttribute("data-card");
    if (own !== null) return own;
    var m = /(?:^| )tp-id(\d+)(?: |$)/.exec(token.className);
    var panel = token.closest(".tp-tokens");
    var first = m && panel ? panel.querySelector(".tp-id" + m[1] + "[data-card]") : null;
    return first ? first.getAttribute("data-card") : null;
  }
  function show(token) {
    var text = cardOf(token);
    if (text === null) { hide(); return; }
    if (token !== current) light(token);
    current = token;
    card.textContent = text;
    card.hidden = false;
    var r = token.getBoundingClientRect();
    var w = card.offsetWidth, h = card.offsetHeight, gap = 6;
    var left = Math.max(8, Math.min(r.left, window.innerWidth - w - 8));
    var top = r.bottom + gap;
    if (top + h > window.innerHeight - 8) top = Math.max(8, r.top - h - gap);
    card.style.left = left + "px";
    card.style.top = top + "px";
  }
  doc.addEventListener("mouseover", function (e) {
    var t = e.target && e.target.closest ? e.target.closest(".tp-tokens .tp-t") : null;
    if (t && t !== current) show(t);
    else if (!t && current) hide();
  }, true);
  // a scroll moves the token: the card follows it (or goes when the token is gone)
  doc.addEventListener("scroll", function () {
    if (current) { if (current.isConnected) show(current); else hide(); }
  }, true);
  doc.addEventListener("mouseleave", hide);
}

export default function () {
  setUp();
}
