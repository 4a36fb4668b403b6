// Draws HTML the server built (playground/html_panel.py: every piece of user text in it escaped by
// playground/markup.py) into this component's element, in a child of its own (Streamlit keeps the
// component's element for itself). It comes as UTF-8 bytes; it is set only when it changed (a rerun
// with the same panel, or a new theme, leaves the page alone).
//
// Only what is on screen is drawn. A token list built in batches (spans.render_tokens(batch=N):
// first batch <!--tp-more--> batch <!--tp-more--> ... batch <!--tp-end-->) gets its first batch;
// the others are kept as text (not parsed) and appended in order, as its scroll box (.tp-scroll)
// comes within LEAD box heights of the end of what is drawn (on scrolling, and on any new size of
// the box: a first batch that does not fill it is followed by the next before it is painted).
// Appending at the end of the same list keeps the text flowing as one piece (no break where a
// batch begins). The comments can only be the server's: in escaped user text every `<` is `&lt;`.
//
// A panel's scroll box is made keyboard-focusable (tabindex 0, as Chrome makes a scroller itself):
// the keys scroll it (and so draw the rest), and this ends the search Streamlit's tabs run over
// their content after every change for something focusable (react-aria's useHasTabbableChild),
// which otherwise walked every token box of every panel.
//
// The panel is shown once the app's stylesheet (style.css, drawn by st.html) applies: on a first
// visit Streamlit loads st.html's code after this component's, and the boxes would show unstyled
// for a moment (a line could break inside one). It is waited for frame by frame, at most 3 s (then
// the panel shows as it is). Once it applies it stays: it is asked once a page, before the panel is
// set (asking after would make the browser compute the style of every new box there and then).
//
// Hosts and a feed (playground/html_panel.py: host, feed). A panel drawn outside a page's
// st.fragment is not sent again when the fragment reruns; a host is such a panel that a feed,
// inside the fragment, updates: the feed carries the hosts' new HTML by key, and this module (one
// per page: every panel shares it) sets each into its host. Each piece is stamped with the run
// that made it, and the newest piece of each key is kept here: a host shows it, whatever it was
// given itself (the component may be called again with its own, older HTML on a new theme, or its
// element made anew by React, with the HTML of the last whole run, while feeds have moved on).
//
// A Streamlit custom component (st.components.v2, JavaScript only, no iframe) served from the
// repository: no network.
var decoder = new TextDecoder("utf-8");
var HOST = 1, FEED = 2;        // the first byte of a host's or a feed's data (a plain panel's is HTML)
var hosts = {};                // key -> the host element of that key on the page
var newest = {};               // key -> {run, html}: the newest HTML given for that key
var SHEET_WAIT_MS = 3000;
var LEAD = 1;
var HELD_BACK = /<!--tp-more-->([\s\S]*?)<!--tp-end-->/g;
var styled = false;

function sheetApplies() {   // style.css sets --tp-ring on :root
  if (!styled) styled = getComputedStyle(document.documentElement).getPropertyValue("--tp-ring") !== "";
  return styled;
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

function anchors(root) {     // the <!--tp-rest--> comments, in document order
  var walker = document.createTreeWalker(root, NodeFilter.SHOW_COMMENT), found = [], node;
  while ((node = walker.nextNode())) if (node.data === "tp-rest") found.push(node);
  return found;
}

function nearEnd(box) {
  return box.scrollTop + box.clientHeight * (LEAD + 1) >= box.scrollHeight;
}

function drawMore(box) {     // the first list in the box with batches waiting gets the next one
  var waiting = box.__tpWaiting;
  while (waiting.length && !waiting[0].batches.length) waiting.shift();
  if (!waiting.length) return false;
  var first = waiting[0], range = document.createRange();
  range.selectNodeContents(first.anchor.parentNode);
  first.anchor.parentNode.insertBefore(range.createContextualFragment(first.batches.shift()), first.anchor);
  return true;
}

// Within a viewport's height of the viewport (NEAR): a box further off waits until it comes near.
// A box inside content the browser skips (content-visibility:auto, style.css: the Merges page's
// corpus and tree, a few screens down) is far by definition, and asking where it is would make
// the browser lay that content out: checkVisibility answers from its style alone.
var NEAR = 1;
function near(box) {
  if (box.checkVisibility && !box.checkVisibility({contentVisibilityAuto: true})) return false;
  if (box.clientHeight === 0) return false;    // not laid out: a hidden tab, a panel waiting for its style
  var r = box.getBoundingClientRect(), h = window.innerHeight;
  return r.bottom > -NEAR * h && r.top < (1 + NEAR) * h;
}

// A box not laid out (a hidden tab, the panel waiting for its style) waits, and so does one far off
// screen: the Merges page's corpus got six more batches at the first step after the page opened
// (~17 ms, and Streamlit's message telling the server of the step waited for them). A far box is
// filled when the page is scrolled near it (below), or when it gets a new size (shown, laid out).
var far = new Set();       // boxes with batches waiting, not near when last asked
function fill(box) {
  if (!near(box)) {
    far.forEach(function (b) { if (!b.isConnected) far.delete(b); });   // a step's old corpus goes
    far.add(box);
    return;
  }
  far.delete(box);
  while (nearEnd(box) && drawMore(box)) { /* a jump to the end draws up to it */ }
}

// The far boxes still on the page are asked again, once a frame, before that frame's layout: on
// any scroll of the page (Streamlit's main area is a scroll box of its own; a scroll event does not
// bubble, so it is caught on its way down), and when content the browser skipped is laid out again
// (content-visibility:auto coming near: a box there keeps the size it was last reported with, so
// no ResizeObserver would tell of it).
var farAsked = false;
function askFar() {
  if (!far.size || farAsked) return;
  farAsked = true;
  requestAnimationFrame(function () {
    farAsked = false;
    far.forEach(function (box) { if (box.isConnected) fill(box); else far.delete(box); });
  });
}
document.addEventListener("scroll", askFar, {capture: true, passive: true});
document.addEventListener("contentvisibilityautostatechange", askFar, true);

// On scroll (once a frame), and on every new size of the box. A size is reported after the
// browser's own layout and before it paints, so reading the box's heights there costs nothing,
// and what is appended is laid out and painted in the same frame: a first batch shorter than its
// box is followed by the next before the first paint, as the box grows batch by batch up to its
// height. (Reading the heights when the panel is set would make the browser lay out the page in
// the middle of Streamlit's redraw, and once more after it.) Returns the size's observer.
function follow(box) {
  var queued = false;
  function soon() {
    if (queued) return;
    queued = true;
    requestAnimationFrame(function () { queued = false; fill(box); });
  }
  box.addEventListener("scroll", soon, {passive: true});
  var sized = new ResizeObserver(function () { fill(box); });
  sized.observe(box);
  return sized;
}

// A merge tree wider than its box (charts.merge_tree_html: it scrolls sideways, its text keeps its
// size) opens scrolled to its middle, where its root is, not at its left edge: at its first size
// (reported after layout, before paint, as in follow), once.
function centred(tree) {
  var sized = new ResizeObserver(function () {
    if (tree.clientWidth === 0) return;   // not laid out yet (a hidden tab)
    sized.disconnect();
    if (tree.scrollWidth > tree.clientWidth) tree.scrollLeft = (tree.scrollWidth - tree.clientWidth) / 2;
  });
  sized.observe(tree);
  return sized;
}

function setHtml(host, html) {
  if (host.__tpHtml === html) return;
  host.__tpHtml = html;
  sheetApplies();
  var later = [];
  var parsed = document.createElement("template");
  parsed.innerHTML = html.replace(HELD_BACK, function (_, batches) {
    later.push(batches.split("<!--tp-more-->"));
    return "<!--tp-rest-->";
  });
  var rest = anchors(parsed.content);
  (host.__tpObservers || []).forEach(function (o) { o.disconnect(); });   // the boxes they watch go
  host.__tpObservers = [];
  var boxes = parsed.content.querySelectorAll(".tp-scroll");
  for (var i = 0; i < boxes.length; i++) {
    var box = boxes[i];
    box.tabIndex = 0;
    box.__tpWaiting = [];
    for (var k = 0; k < rest.length; k++) {
      if (box.contains(rest[k])) box.__tpWaiting.push({anchor: rest[k], batches: later[k]});
    }
    if (box.__tpWaiting.length) host.__tpObservers.push(follow(box));
  }
  var trees = parsed.content.querySelectorAll(".mg-tree");
  for (var t = 0; t < trees.length; t++) host.__tpObservers.push(centred(trees[t]));
  host.replaceChildren(parsed.content);
  showWhenStyled(host);
}

// "<first byte><JSON header>\n<HTML bytes>": the header's end is the first line break (JSON
// escapes any inside its strings)
function framed(bytes) {
  var end = bytes.indexOf(10);
  return {header: JSON.parse(decoder.decode(bytes.subarray(1, end))), body: bytes.subarray(end + 1)};
}

function give(key, run, html) {   // a host shows the newest HTML of its key, however it came
  var known = newest[key];
  if (!known || known.run <= run) known = newest[key] = {run: run, html: html};
  var host = hosts[key];
  if (!host || !host.isConnected) return;   // drawn when its host is
  if ((host.__tpRun || 0) > known.run) return;
  host.__tpRun = known.run;
  setHtml(host, known.html);
}

// A page's stepper (browser_stepper.js: Merges, Unigram) draws a step it holds into the hosts at
// once: its piece is taken as newer than any the host was given (a host's element redrawn later with its own,
// older HTML leaves it), and the next run of the page with new HTML for the host replaces it.
window.__tpPanels = {
  show: function (key, html) {
    var known = newest[key];
    give(key, (known ? known.run : 0) + 1, html);
  },
};

export default function (component) {
  var parent = component.parentElement;
  var host = parent.querySelector(":scope > .tp-html-panel");
  if (!host) {
    host = document.createElement("div");
    host.className = "tp-html-panel";
    parent.appendChild(host);
  }
  var data = component.data;
  var bytes = data ? new Uint8Array(data.buffer || data, data.byteOffset || 0, data.byteLength) : new Uint8Array(0);
  if (bytes[0] === FEED) {       // [[key, bytes], ...]: the hosts' HTML, one after another
    var feed = framed(bytes), at = 0;
    if (host.__tpFed === feed.header.run) return;
    host.__tpFed = feed.header.run;
    feed.header.parts.forEach(function (part) {
      give(part[0], feed.header.run, decoder.decode(feed.body.subarray(at, at + part[1])));
      at += part[1];
    });
    return;
  }
  if (bytes[0] === HOST) {
    var own = framed(bytes);
    hosts[own.header.key] = host;
    give(own.header.key, own.header.run, decoder.decode(own.body));
    return;
  }
  setHtml(host, decoder.decode(bytes));
}
