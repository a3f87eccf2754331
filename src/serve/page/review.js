// The game review (docs/serve.md, `review`): every move played so far scored against the best
// move of its position, at the analysis's depth, as `outflank analyze --game` gives it. A row
// per move (passes are not reviewed); a click on a row shows the position the move was played
// from. The table's DOM hooks: `#review-body tr.rv[data-ply][data-move][data-score]
// [data-best][data-best-score][data-loss]`, each row's class `best`, `inaccuracy`, `mistake`
// or `blunder`.

const $ = (id) => document.getElementById(id);

/** How a loss is marked: [the least loss, class, sign], worst first. */
const MARKS = [
  [10, "blunder", "??"],
  [4, "mistake", "?"],
  [1, "inaccuracy", "?!"],
];

const rv = {
  hooks: null, // {send, view, error}
  pending: false,
  review: null, // {depth, moves, ply: the game's length when asked}
  asked: 0,
};

const signed = (x) => (x === null || x === undefined ? "?" : x > 0 ? "+" + x : String(x));

function mark(loss) {
  if (loss === null || loss === undefined) return ["unknown", ""];
  for (const [least, cls, sign] of MARKS) if (loss >= least) return [cls, sign];
  return ["best", ""];
}

/** Wires the Review button; `hooks` are the page's: send a message, show a ply, an error. */
export function setupReview(hooks) {
  rv.hooks = hooks;
  $("review").addEventListener("click", ask);
}

function ask() {
  const depth = Number($("depth").value);
  if (!Number.isInteger(depth) || depth < 1 || depth > 20) {
    rv.hooks.error("The depth must be 1 to 20");
    return;
  }
  if (rv.hooks.send({ type: "review", depth })) {
    rv.pending = true;
    $("review-info").textContent = `Reviewing at depth ${depth}…`;
    $("review").disabled = true;
  }
}

/** A `review` or `reviewing` message from the server. */
export function onReviewMessage(m) {
  if (m.type === "reviewing") {
    if (rv.pending) $("review-info").textContent = `Reviewing… ${m.done} of ${m.total} moves`;
    return;
  }
  rv.pending = false;
  rv.review = { depth: m.depth, moves: m.moves || [] };
  $("review").disabled = false;
  drawTable();
}

/** An error came while a review was asked for: the request is over. */
export function reviewRefused() {
  if (!rv.pending) return;
  rv.pending = false;
  $("review").disabled = false;
  $("review-info").textContent = "";
}

function cell(tr, text, cls) {
  const td = document.createElement("td");
  td.textContent = text;
  if (cls) td.className = cls;
  tr.append(td);
}

function drawTable() {
  const r = rv.review;
  const body = $("review-body");
  body.replaceChildren();
  const totals = { black: [0, 0, 0], white: [0, 0, 0] }; // moves, lost, mistakes
  for (const m of r.moves) {
    const tr = document.createElement("tr");
    const [cls, sign] = mark(m.loss);
    tr.className = "rv " + cls + " by-" + m.player;
    tr.dataset.ply = String(m.ply);
    tr.dataset.move = m.move;
    tr.dataset.score = m.score === null ? "" : String(m.score);
    tr.dataset.best = m.best ?? "";
    tr.dataset.bestScore = m.best_score === null ? "" : String(m.best_score);
    tr.dataset.loss = m.loss === null ? "" : String(m.loss);
    tr.title = "Show the position this move was played from";
    cell(tr, String(m.ply));
    cell(tr, m.move + sign, "move");
    cell(tr, signed(m.score));
    cell(tr, m.best ?? "-", "move");
    cell(tr, signed(m.best_score));
    cell(tr, m.loss === null ? "?" : String(m.loss), "loss");
    tr.addEventListener("click", () => {
      rv.hooks.view(m.ply - 1);
      const lost = m.loss === null ? "" : m.loss > 0 ? `, lost ${m.loss}` : ", the best";
      $("review-info").textContent =
        `Before move ${m.ply}: ${m.move} ${signed(m.score)} · best ${m.best ?? "-"} ${signed(m.best_score)}${lost}`;
    });
    body.append(tr);
    const t = totals[m.player];
    if (t) {
      t[0] += 1;
      t[1] += m.loss ?? 0;
      if (m.loss > 0) t[2] += 1;
    }
  }
  const line = (c) => {
    const [n, lost, bad] = totals[c];
    return `${c === "black" ? "Black" : "White"}: ${lost} lost in ${n} moves, ${bad} that lost`;
  };
  $("review-summary").textContent = `${line("black")} · ${line("white")}`;
  $("review-info").textContent = r.moves.length
    ? `Depth ${r.depth}: ${r.moves.length} moves`
    : `Depth ${r.depth}: no move to review`;
  $("review-panel").hidden = false;
}

/**
 * What the review says of the position at `ply` of the game whose moves are `moves`: the
 * move played from it and the best move, with their scores (shown on the squares, the best
 * one marked), or null when that move was not reviewed or the game changed since.
 */
export function reviewMarks(ply, moves) {
  const m = rv.review && rv.review.moves.find((x) => x.ply - 1 === ply);
  if (!m || moves[ply] !== m.move) return null;
  const scores = new Map();
  if (m.best && m.best_score !== null) scores.set(m.best, m.best_score);
  if (m.score !== null) scores.set(m.move, m.score);
  return { scores, best: m.best };
}

/** Draws what depends on the game: whether a review may be asked, the row of the ply shown. */
export function renderReview(s, viewPly) {
  // The server reviews where it analyses: a two-player game, a game against the engine
  // with hints on, and any game once over.
  const can = !!s.result || s.mode === "local" || (s.mode === "engine" && s.hints);
  $("review").disabled = rv.pending || !can;
  $("review").title = can ? "" : "The review is off in this game until it ends";
  for (const tr of $("review-body").children) {
    tr.classList.toggle("current", Number(tr.dataset.ply) - 1 === viewPly);
  }
}
