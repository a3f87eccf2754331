// The players' clocks: the server keeps them (docs/serve.md, `clocks` in the state); the page
// draws both and counts the running one down between state messages, marked as running.
// DOM hooks: #black-clock and #white-clock, each with data-left (seconds shown) and the class
// `running` on the one that runs.

const $ = (id) => document.getElementById(id);

let received = null; // {clocks, at: performance.now(), over}

/** Notes the clocks of a state just received. */
export function noteClocks(state) {
  received = state && state.clocks ? { clocks: state.clocks, at: performance.now(), over: !!state.result } : null;
}

/** Seconds as a clock shows them: 4:05, 0:59, and tenths under ten seconds (9.4). */
export function fmtClock(sec) {
  if (sec === null || sec === undefined) return "";
  const t = Math.max(0, sec);
  if (t < 10) return t.toFixed(1);
  const h = Math.floor(t / 3600);
  const m = Math.floor((t % 3600) / 60);
  const s = Math.floor(t % 60);
  const mm = h ? String(m).padStart(2, "0") : String(m);
  return `${h ? h + ":" : ""}${mm}:${String(s).padStart(2, "0")}`;
}

/** Each colour's seconds left now, and the running colour; null when untimed. */
export function clocksNow() {
  if (!received) return null;
  const c = received.clocks;
  const left = { black: c.black, white: c.white };
  const running = received.over ? null : c.running || null;
  if (running && typeof left[running] === "number") {
    left[running] = Math.max(0, left[running] - (performance.now() - received.at) / 1000);
  }
  return { left, running };
}

/** Draws both clocks as they stand now. */
export function renderClocks() {
  const c = clocksNow();
  for (const color of ["black", "white"]) {
    const el = $(color + "-clock");
    if (!el) continue;
    const t = c ? c.left[color] : null;
    const timed = typeof t === "number";
    el.hidden = !timed;
    el.textContent = fmtClock(t);
    if (timed) el.dataset.left = t.toFixed(1);
    else delete el.dataset.left;
    const running = !!c && c.running === color;
    el.classList.toggle("running", running);
    el.title = running ? "running" : "";
    el.classList.toggle("low", timed && t < 10);
  }
}
