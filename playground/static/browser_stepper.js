// A page's step, drawn by the browser (playground/browser_stepper.py; the Merges and the Unigram
// pages). One component in the page's step fragment holds the controls (first, previous, play or
// pause, next, last, the autoplay speed, the step slider), the keys, autoplay, and a window of
// steps: for each step near the current one, the HTML the server built for the page's hosts (on
// Merges the step's sentence, pairs, changed words, the curves' mark, the corpus, the merge tree
// and their captions; on Unigram the sentence, the curves' mark, the pieces' bars and the lattice:
// every piece of user text in it escaped by playground/markup.py). A step the window holds is drawn
// at once, into the hosts (html_panel.js), and then the server is told (the component's state
// "told"): its run sends the steps the window lacks, and nothing else the page shows is sent again.
// A step it does not hold (a jump) is drawn when the run that was told of it has sent it.
//
// The server and the page agree through the told state's sequence number: the server's data says
// which tell it has applied (told); until it has applied the newest, what the page shows (its own
// steps, made since) stands; once it has, the server's step, play state and speed are taken (a
// link opened, another tokenizer, the page reopened).
//
// Keys: ← → step, Space plays or pauses, Home / End first and last, wherever the focus is (taken
// before any widget sees them: Space never toggles a switch, arrows never move a select box), but
// not while typing in a text field or an open select box. Every press is a step of its own: five
// quick presses make five.
//
// Autoplay keeps the browser's clock: steps at fixed times from the press of Play (start + n ×
// speed), so the time a run takes is not added to each; a step the window does not hold yet is
// drawn once it comes, and the clock goes on from there without a burst of catch-up steps.
//
// No network: the icons are inline SVG (Material Design's paths).
var KEEP = 12;        // steps held on either side of the current one
var POLL_MS = 25;     // autoplay waiting for a step the window lacks
var KEYS = {ArrowLeft: "prev", ArrowRight: "next", " ": "play", Spacebar: "play", Home: "first", End: "last"};
var ICONS = {
  first: "M18.41 16.59L13.82 12l4.59-4.59L17 6l-6 6 6 6zM6 6h2v12H6z",
  prev: "M15.41 7.41L14 6l-6 6 6 6 1.41-1.41L10.83 12z",
  play: "M8 5v14l11-7z",
  pause: "M6 19h4V5H6v14zm8-14v14h4V5h-4z",
  next: "M10 6L8.59 7.41 13.17 12l-4.58 4.59L10 18l6-6z",
  last: "M5.59 7.41L10.18 12l-4.59 4.59L7 18l6-6-6-6zM16 6h2v12h-2z",
};
var BUTTONS = [["first", "First", "Home"], ["prev", "Previous", "←"], ["play", "Play", "Space"],
               ["next", "Next", "→"], ["last", "Last", "End"]];

function icon(name) {
  return '<svg class="mg-icon" viewBox="0 0 24 24" aria-hidden="true" focusable="false"><path d="' + ICONS[name] + '"/></svg>';
}

function build(parent) {
  var root = document.createElement("div");
  root.className = "mg-stepper";
  var buttons = BUTTONS.map(function (b) {
    return '<button type="button" class="mg-button' + (b[0] === "play" ? " mg-primary" : "") + '" data-action="' + b[0]
      + '" aria-keyshortcuts="' + (b[2] === "←" ? "ArrowLeft" : b[2] === "→" ? "ArrowRight" : b[2]) + '">'
      + icon(b[0]) + '<span class="mg-label">' + b[1] + '</span><kbd>' + b[2] + '</kbd></button>';
  }).join("");
  root.innerHTML = '<div class="mg-controls">' + buttons
    + '<select class="mg-speed" aria-label="Autoplay speed" title="How long Play shows each step."></select></div>'
    + '<label class="mg-slider">'
    + '<span class="mg-slider-label">Step <output class="mg-step-out"></output> of <span class="mg-last-out"></span></span>'
    + '<input type="range" min="0" step="1" value="0" aria-label="Step"></label>'
    + '<span class="mg-state" data-keys="browser" hidden></span>';
  parent.appendChild(root);
  return root;
}

function el(s, sel) { return s.root.querySelector(sel); }

// a host's HTML as the window carries it: a string, or packed (browser_stepper.py: pack) as the
// distinct pieces and their order, joined here as the server joins them (unpack)
function unpack(value) {
  if (typeof value === "string") return value;
  var pieces = value.pieces, order = value.order, out = new Array(order.length);
  for (var i = 0; i < order.length; i++) out[i] = pieces[order[i]];
  return out.join("");
}

function unpacked(parts) {
  var out = {};
  Object.keys(parts).forEach(function (key) { out[key] = unpack(parts[key]); });
  return out;
}

function clamp(s, k) { return Math.max(0, Math.min(s.last, k | 0)); }

// the hosts show step k's HTML, if the window holds it; returns whether it did
function draw(s, k) {
  var parts = s.cache[k];
  var panels = window.__tpPanels;
  if (!parts || !panels) return false;
  Object.keys(parts).forEach(function (key) { panels.show(key, parts[key]); });
  s.shown = k;
  return true;
}

function update(s) {      // the controls and the marker say what is shown and what can be done
  var k = s.step, at0 = k <= 0, atEnd = k >= s.last;
  s.root.querySelectorAll(".mg-button").forEach(function (b) {
    var a = b.dataset.action;
    b.disabled = a === "first" || a === "prev" ? at0 : a === "next" || a === "last" ? atEnd : s.last <= 0;
  });
  var play = el(s, '[data-action="play"]');
  if (play.dataset.playing !== String(s.playing)) {
    play.dataset.playing = String(s.playing);
    play.querySelector("svg").outerHTML = icon(s.playing ? "pause" : "play");
    play.querySelector(".mg-label").textContent = s.playing ? "Pause" : "Play";
  }
  var range = el(s, "input[type=range]");
  range.max = String(s.last);
  if (+range.value !== k && s.root.ownerDocument.activeElement !== range) range.value = String(k);
  range.setAttribute("aria-valuetext", "Step " + k + " of " + s.last);
  el(s, ".mg-slider").hidden = s.last <= 0;
  el(s, ".mg-step-out").textContent = k.toLocaleString("en-US");
  el(s, ".mg-last-out").textContent = s.last.toLocaleString("en-US");
  var speed = el(s, ".mg-speed");
  if (speed.value !== String(s.speed)) speed.value = String(s.speed);
  s.root.classList.toggle("mg-pending", s.shown !== k);
  var m = el(s, ".mg-state");
  m.dataset.step = String(s.shown === null ? k : s.shown);
  m.dataset.want = String(k);
  m.dataset.last = String(s.last);
  m.dataset.playing = s.playing ? "1" : "0";
  m.dataset.speed = String(s.speed);
}

function tell(s) {
  s.seq += 1;
  s.c.setStateValue("told", {seq: s.seq, step: s.step, playing: s.playing, speed: s.speed, trace: s.trace, view: s.view,
                             have: Object.keys(s.cache).map(Number)});
  address(s);
}

// The step in the address, written here (a reloaded page finds it): the run a tell starts leaves
// the address alone when only the step changed (merges_control.write_link), as each address the
// server writes makes Streamlit redraw its whole app. Only the step parameter, only in an address
// the server has written one into; replaced, not pushed (Back leaves the page, not a step).
function address(s) {
  var w = s.root.ownerDocument.defaultView, url = new URL(w.location.href);
  if (!url.searchParams.has("step") || url.searchParams.get("step") === String(s.step)) return;
  url.searchParams.set("step", String(s.step));
  w.history.replaceState(w.history.state, "", url.toString());
}

// Step k: the server is told first (its run starts while the browser draws), then the step is
// drawn, if the window holds it
function go(s, k) {
  k = clamp(s, k);
  if (k === s.step) return false;
  s.step = k;
  if (s.playing && k >= s.last) stopPlaying(s);
  tell(s);
  draw(s, k);
  update(s);
  return true;
}

function stopPlaying(s) {
  s.playing = false;
  s.due = null;
  s.waited = false;
  if (s.alarm) { clearTimeout(s.alarm); s.alarm = null; }
}

function act(s, action) {
  if (action === "play") {
    if (s.playing) stopPlaying(s);
    else if (s.last > 0) {
      s.playing = true;
      s.due = performance.now() + s.speed * 1000;   // the first step one interval after the press
      if (s.step >= s.last) {               // play from the end: start again
        s.step = 0;
        tell(s);
        draw(s, 0);
        update(s);
        schedule(s);
        return;
      }
    } else return;
    update(s);
    schedule(s);
    tell(s);
    return;
  }
  var to = {first: 0, prev: s.step - 1, next: s.step + 1, last: s.last}[action];
  if (to === undefined) return;
  if (s.playing) s.due = performance.now() + s.speed * 1000;   // a step by hand: a whole interval to the next
  if (go(s, to)) schedule(s);
}

function schedule(s) {
  if (s.alarm) { clearTimeout(s.alarm); s.alarm = null; }
  if (!s.playing) return;
  if (s.due === null) s.due = performance.now() + s.speed * 1000;
  s.alarm = setTimeout(function () { s.alarm = null; tick(s); }, Math.max(0, s.due - performance.now()));
}

function tick(s) {
  if (!s.playing || !s.root.isConnected) return;
  if (s.step >= s.last) { stopPlaying(s); update(s); tell(s); return; }
  if (!s.cache[s.step + 1]) {          // not sent yet: drawn as soon as it is
    s.waited = true;
    s.alarm = setTimeout(function () { s.alarm = null; tick(s); }, POLL_MS);
    return;
  }
  var now = performance.now(), every = s.speed * 1000;
  s.due += every;                       // on the clock, whatever the run took
  // A step waited for, or far behind: the clock goes on from here, with no burst of catch-up
  // steps. A tick a little late: its step still shows for half a tick. (Before, the next step
  // kept its time, so a step drawn nearly a tick late showed only for what was left of that tick:
  // a clean-clone test run at the 0.5 s speed recorded steps 6 then 8.)
  if (s.waited || s.due < now) s.due = now + every;
  else if (s.due - now < every / 2) s.due = now + every / 2;
  s.waited = false;
  go(s, s.step + 1);
  schedule(s);
}

// A click on another control (on Merges the tokenizer, the lockstep switch, the merge tree's
// picker; on Unigram the lattice's word) starts a whole run that can change what the stepper steps
// through. A press made before that run has
// drawn the stepper anew would step the old view: presses wait (queued, in order) until the
// stepper has been drawn by a run that started after the click, or until no run has started
// for ASKED_MS (a click that asked for none).
var ASKED_MS = 1000;
var CONTROLS = "button, input, select, label, [role=radio], [role=switch], [role=option], [role=combobox]";

function waiting(s) {
  if (!s.stale) return false;
  if (s.runs === s.stale.runs && performance.now() - s.stale.at > ASKED_MS) { s.stale = null; return false; }
  return true;
}

function replay(s) {      // the presses that waited, in order, once the stepper is drawn anew
  s.stale = null;
  var queued = s.queue.splice(0);
  queued.forEach(function (action) { act(s, action); });
}

function press(s, action) {
  if (waiting(s)) {
    if (s.queue.length < 50) s.queue.push(action);
    if (!s.recheck) {      // a click that asked for no run: the queue goes on after ASKED_MS
      s.recheck = setTimeout(function () { s.recheck = null; if (!waiting(s)) replay(s); }, ASKED_MS + 50);
    }
    return;
  }
  act(s, action);
}

function typing(t) {
  if (!t || !t.tagName) return false;
  if (t.isContentEditable || t.tagName === "TEXTAREA") return true;
  if (t.tagName !== "INPUT") return false;
  if (t.getAttribute("role") === "combobox") return t.getAttribute("aria-expanded") === "true";
  var type = (t.type || "text").toLowerCase();
  return ["checkbox", "radio", "button", "submit", "range", "reset"].indexOf(type) < 0;
}

// one pair of key listeners per document, for the stepper on the page now
function listen(doc) {
  var w = doc.defaultView;
  if (w.__tpStepperKeys) return;
  var swallowUp = false;
  function live() {
    var s = w.__tpStepperLive;
    return s && s.root.isConnected ? s : null;
  }
  function down(e) {
    var action = KEYS[e.key], s = live();
    if (!action || !s || e.ctrlKey || e.metaKey || e.altKey || typing(e.target)) return;
    e.preventDefault();
    e.stopImmediatePropagation();
    swallowUp = action === "play";
    var focused = doc.activeElement;
    if (focused && focused !== doc.body && focused.blur && !s.root.contains(focused)) focused.blur();
    press(s, action);
  }
  function clicked(e) {
    var s = live(), t = e.target;
    if (!s || !e.isTrusted || !t || !t.closest || !t.closest(CONTROLS) || s.root.contains(t)) return;
    s.stale = {at: performance.now(), runs: s.runs};
  }
  var app = doc.querySelector('[data-testid="stApp"]');
  if (app) {
    new MutationObserver(function () {
      var s = live();
      if (s && app.dataset.testScriptState === "running") s.runs += 1;
    }).observe(app, {attributes: true, attributeFilter: ["data-test-script-state"]});
  }
  function up(e) {      // a button or a switch acts on Space's release: the press was ours, so is this
    if ((e.key === " " || e.key === "Spacebar") && swallowUp) {
      e.preventDefault();
      e.stopImmediatePropagation();
      swallowUp = false;
    }
  }
  w.addEventListener("keydown", down, true);
  w.addEventListener("keyup", up, true);
  w.addEventListener("click", clicked, true);
  w.__tpStepperKeys = {down: down, up: up, clicked: clicked};
}

function wire(s) {
  s.root.querySelectorAll(".mg-button").forEach(function (b) {
    b.addEventListener("click", function () { press(s, b.dataset.action); });
  });
  var range = el(s, "input[type=range]");
  range.addEventListener("input", function () {     // dragging: each step held is drawn on the way
    s.step = clamp(s, +range.value);
    draw(s, s.step);
    update(s);
  });
  range.addEventListener("change", function () {
    s.step = clamp(s, +range.value);
    if (s.playing && s.step >= s.last) stopPlaying(s);
    tell(s);
    draw(s, s.step);
    update(s);
  });
  el(s, ".mg-speed").addEventListener("change", function (e) {
    s.speed = +e.target.value;
    if (s.playing) { s.due = performance.now() + s.speed * 1000; schedule(s); }
    update(s);
    tell(s);
  });
}

export default function (component) {
  var d = component.data;
  if (!d) return;
  var parent = component.parentElement;
  var root = parent.querySelector(":scope > .mg-stepper");
  if (!root) root = build(parent);
  var s = root.__tpStepper;
  if (!s) {
    s = root.__tpStepper = {root: root, seq: 0, step: null, shown: null, last: 0, playing: false, speed: 1,
                            trace: null, view: null, cache: {}, due: null, alarm: null, c: component,
                            stale: null, queue: [], runs: 0, recheck: null, session: null};
    wire(s);
  }
  s.c = component;
  el(s, ".mg-slider").title = d.help || "";
  var speed = el(s, ".mg-speed");
  if (!speed.options.length) {
    d.speeds.forEach(function (v) {
      var o = document.createElement("option");
      o.value = String(v);
      o.textContent = v + " s a step";
      speed.appendChild(o);
    });
  }
  if (s.session !== d.session) {     // a new server session (restarted under the page): its count starts anew
    s.session = d.session;
    s.seq = 0;
    s.view = null;
  }
  var fresh = s.view !== d.view;
  if (fresh) { s.cache = {}; s.view = d.view; s.trace = d.trace; }
  Object.keys(d.window).forEach(function (k) { s.cache[+k] = unpacked(d.window[k]); });
  s.last = d.last;
  if (fresh || s.step === null || d.told >= s.seq) {     // the server has every tell: its state stands
    var wasPlaying = s.playing;
    s.step = d.step;
    s.playing = d.playing && d.step < d.last;
    s.speed = d.speed;
    s.seq = Math.max(s.seq, d.told);
    if (!s.playing) stopPlaying(s);
    else if (!wasPlaying) s.due = null;
  }
  s.step = clamp(s, s.step);
  Object.keys(s.cache).forEach(function (k) { if (Math.abs(k - s.step) > KEEP) delete s.cache[k]; });
  doc_live(s);
  draw(s, s.step);     // again after every run: a whole run draws the hosts with the server's step
  update(s);
  address(s);          // a step the server clamped, or one told since the address it wrote
  schedule(s);
  if (s.stale && s.runs > s.stale.runs) replay(s);   // drawn by a run since the click: the presses go on
}

function doc_live(s) {
  var doc = s.root.ownerDocument;
  doc.defaultView.__tpStepperLive = s;
  listen(doc);
}
