// The evaluation graph: the state's `evals` (black's score after each ply, or null) as an
// inline SVG, built here; a click picks the ply to view.

const NS = "http://www.w3.org/2000/svg";
const W = 600;
const H = 140;
const PAD = 6;
const CLAMP = 40;

function el(name, attrs, classes) {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (classes) e.classList.add(...classes.split(" "));
  return e;
}

/**
 * Draws `evals` into `svg`. `plies`: the game's length; `view`: the ply shown on the board;
 * `onPick(ply)`: called when the graph is clicked.
 */
export function drawGraph(svg, evals, plies, view, onPick) {
  svg.replaceChildren();
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  svg.setAttribute("preserveAspectRatio", "none");
  const n = Math.max(60, plies);
  const x = (i) => PAD + ((W - 2 * PAD) * i) / n;
  const y = (v) => {
    const c = Math.max(-CLAMP, Math.min(CLAMP, v));
    return H / 2 - ((H / 2 - PAD) * c) / CLAMP;
  };
  svg.append(el("rect", { x: 0, y: 0, width: W, height: H / 2 }, "g-black-half"));
  svg.append(el("rect", { x: 0, y: H / 2, width: W, height: H / 2 }, "g-white-half"));
  for (const v of [-20, 20]) {
    svg.append(el("line", { x1: 0, x2: W, y1: y(v), y2: y(v) }, "g-grid"));
  }
  svg.append(el("line", { x1: 0, x2: W, y1: H / 2, y2: H / 2 }, "g-axis"));
  // Lines through consecutive known points; a null breaks the line.
  let run = [];
  const flush = () => {
    if (run.length > 1) svg.append(el("polyline", { points: run.join(" ") }, "g-line"));
    run = [];
  };
  (evals || []).forEach((v, i) => {
    if (v === null || v === undefined) {
      flush();
      return;
    }
    run.push(`${x(i)},${y(v)}`);
  });
  flush();
  (evals || []).forEach((v, i) => {
    if (v === null || v === undefined) return;
    const dot = el("circle", { cx: x(i), cy: y(v), r: 3 }, v >= 0 ? "g-dot g-pos" : "g-dot g-neg");
    const t = el("title", {});
    t.textContent = `ply ${i}: ${v > 0 ? "+" : ""}${v} (black)`;
    dot.append(t);
    dot.dataset.ply = String(i);
    svg.append(dot);
  });
  if (view !== null && view !== undefined) {
    svg.append(el("line", { x1: x(view), x2: x(view), y1: 0, y2: H }, "g-view"));
  }
  svg.onclick = (e) => {
    const r = svg.getBoundingClientRect();
    if (!r.width) return;
    const px = ((e.clientX - r.left) / r.width) * W;
    const ply = Math.round(((px - PAD) * n) / (W - 2 * PAD));
    onPick(Math.max(0, Math.min(plies, ply)));
  };
}
