// The Merges page's keyboard and autoplay, in the browser (merges_control.keys_script puts this on
// the page with st.html(..., unsafe_allow_javascript=True): it runs in the app's own document).
//
// Keys: ← → step, Space plays or pauses, Home / End first and last step, wherever the focus is
// on the page (a button just clicked, the slider, the lockstep toggle): the key is taken before
// any widget sees it (window, capture phase) so Space never toggles a checkbox and arrows never
// move a slider or a select box. Keys typed into a text field (or an open select box) are left
// alone. Each press is queued and played as one click of its button, the next click only once
// the page shows the step the last one caused and its run is over: five quick presses make five
// steps.
//
// Autoplay: while the page says it is playing, Next is clicked on the browser's clock, at fixed
// times (start + n × speed), so the time a run takes is not added to each step. The start is the
// press of Play (its click, seen here whether a mouse or Space made it), not the end of the run the
// press caused: the first step comes one interval after the press too. Each click is made by a
// timer set for its due time (not the next 25 ms poll). Never two steps at once: a Next is clicked
// only once the page shows the step the last one made; one that comes late is not made up for by
// a burst, the clock just goes on.
//
// The page's state is read from the empty span of class mg-state (data-step, data-last,
// data-playing, data-speed) that every run of the Merges page draws; without it (another page)
// all this does nothing. Its data-keys names the page's buttons: "merges" (merges_first …) or
// "unigram" (the Unigram page's unigram_first …), so both pages step by the same keys. Installed once per document; a newer copy replaces the older one.
// No less-than sign before a letter, a slash or "!" in this file: Streamlit's HTML sanitizer
// (DOMPurify) drops a script whose text looks like it holds a tag (merges_control.keys_script checks).
(function () {
  const w = window;
  const doc = w.document;
  const old = w.__tpMergesKeys;
  if (old) {
    w.removeEventListener("keydown", old.down, true);
    w.removeEventListener("keyup", old.up, true);
    if (old.press) w.removeEventListener("click", old.press, true);
    clearInterval(old.timer);
    if (old.runWatch) old.runWatch.disconnect();
    if (old.state && old.state.alarm) clearTimeout(old.state.alarm);
  }
  const KEYS = { ArrowLeft: "prev", ArrowRight: "next", " ": "play", Spacebar: "play",
                 Home: "first", End: "last" };
  const BUTTONS = { first: "_first", prev: "_prev", play: "_play", next: "_next", last: "_last" };
  const MAX_QUEUE = 50;
  // A click is taken as lost (and made once more) only if no run has started since it, this long
  // after it. Not sooner: on a busy server a run can take seconds to start, and a second click
  // then would make two steps (a CPU-hog test run saw autoplay skip a step that way).
  const RETRY_MS = 4000;
  const MAX_TRIES = 3;
  // a queued press whose button is missing or disabled although the step allows it is kept this
  // long (the button is being drawn again), then dropped
  const STUCK_MS = 3000;
  const SLIDER_MS = 1000;     // the longest a click waits for the slider to show the step (settled)
  // A mouse click on a control (the lockstep switch, the tokenizer, a button) asks Streamlit for a
  // run. A key pressed in the moment before that run starts sent its own click alongside, and
  // Streamlit, merging the two requests, could keep only one: the key was lost (Space just after
  // the lockstep switch, 1 try in 4 on a loaded machine). Key presses and autoplay's clicks wait
  // until that run has started, for ASKED_MS at most (a click that asks for no run), and is over.
  const ASKED_MS = 1000;
  const CONTROLS = "button, input, label, [role=radio], [role=switch], [role=option], [role=slider]";
  // the last clicks in log: [action, clicked at, shown at, run over at, due at (-1: not autoplay),
  // 1 if a run was under way when clicked] (ms, performance.now)
  const fresh = { queue: [], waiting: null, due: null, swallowUp: false, presses: 0, clicks: 0, log: [],
                  playedAt: null, alarm: null, alarmFor: null, runs: 0, stuckSince: null, unsyncedSince: null,
                  askedAt: null, askedRuns: 0 };
  // a newer copy keeps the older one's clock and queue (a reinstall mid-play is no late step)
  const s = old && old.state && Array.isArray(old.state.queue) ? Object.assign(fresh, old.state, { alarm: null })
                                                               : fresh;

  function readState() {
    const el = doc.querySelector(".mg-state");
    if (!el || el.dataset.keys === "browser") return null;   // the Merges page's stepper has keys of its own
    return { step: +el.dataset.step, last: +el.dataset.last, playing: el.dataset.playing === "1",
             speed: +el.dataset.speed * 1000 };
  }

  function button(action) {
    const el = doc.querySelector(".mg-state");
    const prefix = (el && el.dataset.keys) || "merges";
    return doc.querySelector(".st-key-" + prefix + BUTTONS[action] + " button");
  }

  function typing(t) {
    if (!t || !t.tagName) return false;
    if (t.isContentEditable || t.tagName === "TEXTAREA") return true;
    if (t.tagName !== "INPUT") return false;
    // a select box: typing opens its list; closed, its text is just the choice shown
    if (t.getAttribute("role") === "combobox") return t.getAttribute("aria-expanded") === "true";
    const type = (t.type || "text").toLowerCase();
    return !["checkbox", "radio", "button", "submit", "range", "reset"].includes(type);
  }

  function down(e) {
    const action = KEYS[e.key];
    if (!action || e.ctrlKey || e.metaKey || e.altKey || !readState() || typing(e.target)) return;
    e.preventDefault();
    e.stopImmediatePropagation();
    s.swallowUp = action === "play";
    const focused = doc.activeElement;
    if (focused && focused !== doc.body && focused.blur) focused.blur();   // later keys come here too
    s.presses += 1;
    if (s.queue.length < MAX_QUEUE) s.queue.push(action);
    pump();
  }

  function up(e) {
    // a button or checkbox acts on Space's keyup: the press was ours, so is its release
    if ((e.key === " " || e.key === "Spacebar") && s.swallowUp) {
      e.preventDefault();
      e.stopImmediatePropagation();
      s.swallowUp = false;
    }
  }

  function press(e) {
    if (e.isTrusted && e.target && e.target.closest && e.target.closest(CONTROLS)) {
      s.askedAt = performance.now();             // the mouse on a control: its run comes first
      s.askedRuns = s.runs;
    }
    // a click on Play (the mouse's, or ours for Space): autoplay's clock starts at this moment
    const b = readState() && button("play");
    if (!b || !e.target || !(e.target === b || b.contains(e.target))) return;
    if (e.isTrusted && (s.waiting || s.queue.length)) {
      // the mouse on Pause while a step is under way: queued behind it, as Space is. Two clicks
      // whose runs Streamlit merges keep only one button's press, so Pause could be lost to Next.
      e.preventDefault();
      e.stopImmediatePropagation();
      s.askedAt = null;                          // held back: it asks for no run now
      if (s.queue.length < MAX_QUEUE) s.queue.push("play");
      pump();
      return;
    }
    s.playedAt = performance.now();
  }

  // every run the page starts, counted as the app's script state turns to "running": a click
  // whose run has started was not lost, however long the run takes to show anything
  let runWatch = null;
  const app = doc.querySelector('[data-testid="stApp"]');
  if (app) {
    runWatch = new MutationObserver(function () {
      if (app.dataset.testScriptState === "running") s.runs += 1;
    });
    runWatch.observe(app, { attributes: true, attributeFilter: ["data-test-script-state"] });
  }

  function idle() {
    const app = doc.querySelector('[data-testid="stApp"]');
    return !app || app.dataset.testScriptState !== "running";
  }

  // Whether the step slider shows the step the page shows. Streamlit gives a widget the value a run
  // set after the run's text is drawn (in an effect, a moment later): a click sent in between
  // carries the slider's old value, the server takes it for a move of the slider, and the press is
  // undone (a clean-clone test run lost a ← that way: its run came and the step stayed). So every
  // click waits until the slider has the step, for SLIDER_MS at most. A page without the slider
  // (a vocabulary of one step) has nothing to wait for.
  function settled(st, now) {
    const el = doc.querySelector(".mg-state");
    const prefix = (el && el.dataset.keys) || "merges";
    const thumb = doc.querySelector(".st-key-" + prefix + "_step input[type=range]");
    if (!thumb || +thumb.value === st.step) { s.unsyncedSince = null; return true; }
    if (s.unsyncedSince === null) s.unsyncedSince = now;
    return now - s.unsyncedSince >= SLIDER_MS;
  }

  // whether the page's state allows the action at all (the buttons are disabled exactly then)
  function possible(action, st) {
    if (action === "next" || action === "last") return st.step < st.last;
    if (action === "prev" || action === "first") return st.step > 0;
    return st.last > 0;                           // play
  }

  function click(action, st, auto) {
    const b = button(action);
    if (!b || b.disabled) return false;
    s.waiting = { action: action, step: st.step, playing: st.playing, at: performance.now(), auto: auto,
                  tries: 1, due: auto ? s.due : -1, busy: !idle(), runs: s.runs };
    s.clicks += 1;
    b.click();
    return true;
  }

  function pump() {
    const st = readState();
    if (!st) { s.queue.length = 0; s.waiting = null; s.due = null; return; }
    const now = performance.now();
    if (s.waiting) {
      // A click counts once the page shows what it did and its run is over: Streamlit may drop a
      // button's click that arrives while a run is ending, so the next click waits for that.
      const moved = st.step !== s.waiting.step || st.playing !== s.waiting.playing;
      if (moved && !s.waiting.shown) s.waiting.shown = now;
      // autoplay keeps the clock: its step is done once shown, the rest of the run may be cut short
      // by the next step (Streamlit stops a run when a new one is asked for)
      if (!idle() && !(moved && s.waiting.auto)) return;
      if (!moved && s.runs === s.waiting.runs) {     // no run since the click
        if (now - s.waiting.at < RETRY_MS) return;
        if (s.waiting.tries < MAX_TRIES) {            // the click was lost: once more
          const b = button(s.waiting.action);
          if (b && !b.disabled) {
            s.waiting.tries += 1;
            s.waiting.at = now;
            s.waiting.runs = s.runs;
            s.clicks += 1;
            b.click();
            return;
          }
        }
      }
      if (!s.waiting.auto) s.due = null;          // a key press: a whole interval to the next step
      s.log.push([s.waiting.action, Math.round(s.waiting.at), Math.round(s.waiting.shown || -1), Math.round(now),
                  Math.round(s.waiting.due), s.waiting.busy ? 1 : 0]);
      if (s.log.length > 50) s.log.shift();
      s.waiting = null;
    }
    if (s.askedAt !== null) {
      // a mouse click's run first, for a key and for autoplay alike: a due Next clicked while the
      // mouse's Pause was under way made one more step after the pause (a clean-clone run saw it)
      if (s.runs === s.askedRuns && now - s.askedAt < ASKED_MS) return;   // its run has not started yet
      if (!idle()) return;                                                // it is under way
      s.askedAt = null;
    }
    if (s.queue.length && !idle()) return;
    if (!settled(st, now)) return;
    while (s.queue.length) {
      const action = s.queue[0];
      if (!possible(action, st)) {              // nothing to do (← on the first step, → on the last)
        s.queue.shift();
        s.stuckSince = null;
        continue;
      }
      if (click(action, st, false)) {
        s.queue.shift();
        s.stuckSince = null;
        return;
      }
      // its button is not on the page or not enabled yet (drawn again a moment after a run): the
      // press waits for the next poll rather than being lost, for STUCK_MS at most
      if (s.stuckSince === null) s.stuckSince = now;
      if (now - s.stuckSince < STUCK_MS) return;
      s.queue.shift();
      s.stuckSince = null;
    }
    if (!st.playing || !(st.speed > 0)) { s.due = null; return; }
    if (s.due === null) {
      // from the press of Play when there was one just now; else (a key stepped meanwhile) from now
      const from = s.playedAt !== null && now - s.playedAt < st.speed + 5000 ? s.playedAt : now;
      s.playedAt = null;
      s.due = from + st.speed;
    }
    if (now < s.due) { wake(s.due - now); return; }
    if (st.step >= st.last) return;               // the page stops playing at the last step itself
    if (!settled(st, now)) return;                // the next poll, 25 ms on
    if (click("next", st, true)) {
      s.due += st.speed;                          // on the clock, whatever the run took
      if (s.due < now - st.speed) s.due = now;    // far behind (a slow run): no burst of catch-up steps
    }
  }

  function wake(ms) {
    // one timer for the next due click, so it is made on time rather than at the next poll
    if (s.alarm && s.alarmFor === s.due) return;
    if (s.alarm) clearTimeout(s.alarm);
    s.alarmFor = s.due;
    s.alarm = setTimeout(function () { s.alarm = null; pump(); }, Math.max(0, ms));
  }

  w.addEventListener("keydown", down, true);
  w.addEventListener("keyup", up, true);
  w.addEventListener("click", press, true);
  w.__tpMergesKeys = { down: down, up: up, press: press, timer: setInterval(pump, 25), state: s, runWatch: runWatch };
})();
