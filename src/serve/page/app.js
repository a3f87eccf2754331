// Outflank's page: one game at /g/{id}, over the WebSocket /ws/{id} (docs/serve.md). The
// server owns the game; the page draws its state, sends moves, and replays the move list
// itself only to show earlier plies.

import { BoardView, START, count, replay, squareIndex } from "/board.js";
import { drawGraph } from "/graph.js";
import { noteClocks, renderClocks } from "/clocks.js";
import { postJson, setupGames, setupLoad, setupNewGame } from "/dialogs.js";
import { onReviewMessage, renderReview, reviewMarks, reviewRefused, setupReview } from "/review.js";

const $ = (id) => document.getElementById(id);
const NAME = { black: "Black", white: "White" };

const app = {
  id: null,
  token: null,
  ws: null,
  retry: 0,
  state: null,
  positions: null, // [{board, toMove, last}] for ply 0..state.ply, or null
  view: null, // the ply shown, null: the current one
  analysis: null, // {ply, depth, moves, kind}
  pending: null, // "analyze" | "hint" while waiting for an answer
  typed: "",
  errorTimer: 0,
  resignArmed: 0,
};

let board;

const tokenKey = (id) => "outflank:token:" + id;

// --- the game's connection ---------------------------------------------------------------

/** Goes to a game just made ({id, token}): its token kept for this browser, then its page. */
function enterNewGame(g) {
  if (g.token) localStorage.setItem(tokenKey(g.id), g.token);
  location.assign("/g/" + g.id);
}

async function openGame(id) {
  app.id = id;
  let token = localStorage.getItem(tokenKey(id));
  if (!token) {
    // The link of an online game: the second browser takes the free seat; anyone else (and
    // any other kind of game) watches.
    try {
      const j = await postJson(`/api/games/${id}/join`, {});
      if (j && j.token) {
        token = j.token;
        localStorage.setItem(tokenKey(id), token);
      }
    } catch {
      token = null;
    }
  }
  app.token = token;
  $("save").href = `/api/games/${id}/ggf`;
  $("save").setAttribute("download", `outflank-${id.slice(0, 8)}.ggf`);
  $("save").hidden = false;
  connect();
}

function connect() {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  const ws = new WebSocket(`${proto}//${location.host}/ws/${app.id}`);
  app.ws = ws;
  ws.addEventListener("open", () => {
    app.retry = 0;
    ws.send(JSON.stringify(app.token ? { type: "hello", token: app.token } : { type: "hello" }));
  });
  ws.addEventListener("message", (e) => {
    let m;
    try {
      m = JSON.parse(e.data);
    } catch {
      return;
    }
    if (m.type === "state") onState(m);
    else if (m.type === "analysis") onAnalysis(m);
    else if (m.type === "review" || m.type === "reviewing") onReviewMessage(m);
    else if (m.type === "error") onError(m.message);
  });
  ws.addEventListener("close", () => {
    if (app.ws !== ws) return;
    app.ws = null;
    setStatus("Connection lost; reconnecting…");
    const delay = Math.min(5000, 300 * 2 ** app.retry++);
    setTimeout(connect, delay);
  });
}

function send(msg) {
  if (app.ws && app.ws.readyState === WebSocket.OPEN) {
    app.ws.send(JSON.stringify(msg));
    return true;
  }
  showError("Not connected");
  return false;
}

// --- messages ----------------------------------------------------------------------------

/** The start position of a state: its `start` board string when given, else the usual. */
function startOf(s) {
  if (typeof s.start === "string") {
    const t = s.start.replace(/\s+/g, "");
    if (/^[XO-]{64}[XO]?$/.test(t)) {
      return { board: t.slice(0, 64), color: t[64] === "O" ? "white" : "black" };
    }
  }
  return { board: START, color: "black" };
}

function onState(s) {
  const old = app.state;
  const changed = !old || old.ply !== s.ply || old.moves.join() !== s.moves.join();
  const st = startOf(s);
  let pos = replay(st.board, st.color, s.moves);
  if (!pos || pos[pos.length - 1].board !== s.board) {
    // A start the page does not know: only the current position can be shown.
    pos = null;
  }
  app.state = s;
  app.positions = pos;
  noteClocks(s);
  if (changed) {
    if (app.analysis && app.analysis.ply !== s.ply) app.analysis = null;
    if (app.view !== null && app.view >= s.ply) app.view = null;
  }
  render(changed && old !== null);
}

function onAnalysis(m) {
  const kind = app.pending || "analyze";
  app.pending = null;
  app.analysis = { ply: m.ply, depth: m.depth, moves: m.moves || [], kind };
  render(false);
}

function onError(msg) {
  app.pending = null;
  reviewRefused();
  showError(msg);
  render(false);
}

function showError(msg) {
  const e = $("error");
  e.textContent = msg;
  e.hidden = false;
  clearTimeout(app.errorTimer);
  app.errorTimer = setTimeout(() => (e.hidden = true), 5000);
}

function setStatus(text) {
  $("status").textContent = text;
}

// --- what the player does ----------------------------------------------------------------

function myTurn() {
  const s = app.state;
  if (!s || s.result || app.view !== null) return false;
  return s.you === "both" || (s.you !== null && s.you === s.to_move);
}

function playMove(mv) {
  const s = app.state;
  if (!s) return;
  if (s.result) return showError("The game is over");
  if (app.view !== null) {
    app.view = null;
    render(false);
    return showError("Back at the current position: play again");
  }
  if (!myTurn()) return showError(s.you ? "Not your turn" : "You are watching this game");
  if (!s.legal.includes(mv)) {
    return showError(s.legal[0] === "pass" ? "No move: pass" : `${mv} is not a legal move`);
  }
  send({ type: "move", move: mv });
}

function onSquare(name) {
  const s = app.state;
  if (!s || !myTurn() || !s.legal.includes(name)) return;
  playMove(name);
}

function view(ply) {
  const s = app.state;
  if (!s || !app.positions) return;
  const p = Math.max(0, Math.min(s.ply, ply));
  app.view = p >= s.ply ? null : p;
  render(false);
}

function onKey(e) {
  const t = e.target;
  if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT")) return;
  if (document.querySelector("dialog[open]") || e.ctrlKey || e.metaKey || e.altKey) return;
  const s = app.state;
  const key = e.key;
  if (key === "ArrowLeft" || key === "ArrowRight" || key === "Home" || key === "End") {
    if (!s) return;
    const cur = app.view === null ? s.ply : app.view;
    const to = { ArrowLeft: cur - 1, ArrowRight: cur + 1, Home: 0, End: s.ply }[key];
    view(to);
    e.preventDefault();
  } else if (key === "Enter") {
    const typed = app.typed;
    app.typed = "";
    if (typed.endsWith("pass")) playMove("pass");
    else if (/[a-h][1-8]$/.test(typed)) playMove(typed.slice(-2));
    else if (typed) showError(`Type a square such as f5, then Enter`);
    renderTyped();
    e.preventDefault();
  } else if (key === "Escape") {
    app.typed = "";
    renderTyped();
  } else if (key === "Backspace") {
    app.typed = app.typed.slice(0, -1);
    renderTyped();
    e.preventDefault();
  } else if (/^[a-z0-9]$/i.test(key)) {
    app.typed = (app.typed + key.toLowerCase()).slice(-4);
    renderTyped();
  }
}

function renderTyped() {
  $("typed").textContent = app.typed;
  render(false);
}

function armResign() {
  const b = $("resign");
  if (app.resignArmed && performance.now() - app.resignArmed < 4000) {
    app.resignArmed = 0;
    b.textContent = "Resign";
    b.classList.remove("confirm");
    send({ type: "resign" });
    return;
  }
  app.resignArmed = performance.now();
  b.textContent = "Resign? Click again";
  b.classList.add("confirm");
  setTimeout(() => {
    app.resignArmed = 0;
    b.textContent = "Resign";
    b.classList.remove("confirm");
  }, 4000);
}

function analyze() {
  const s = app.state;
  if (!s) return;
  const depth = Math.max(1, Math.min(20, Math.round(Number($("depth").value) || 8)));
  $("depth").value = depth;
  app.view = null;
  if (send({ type: "analyze", depth })) {
    app.pending = "analyze";
    render(false);
  }
}

function hint() {
  if (send({ type: "hint" })) {
    app.pending = "hint";
    render(false);
  }
}

// --- drawing -----------------------------------------------------------------------------

function resultText(s) {
  const r = s.result;
  if (!r) return "";
  const winner = r.winner === "black" || r.winner === "white" ? r.winner : null;
  const loser = winner ? (winner === "black" ? "white" : "black") : null;
  let head;
  if (r.reason === "resign") head = `${NAME[loser]} resigned: ${NAME[winner]} wins`;
  else if (r.reason === "time") head = `${NAME[loser]} ran out of time: ${NAME[winner]} wins`;
  else if (winner) head = `${NAME[winner]} wins`;
  else head = "A draw";
  const score = r.score || `${r.black}-${r.white}`;
  const d = s.discs || count(s.board);
  const plain = `${d.black}-${d.white}`;
  let text = `${head}, ${score}.`;
  if (r.reason === "end") {
    text += ` Discs on the board: ${plain}`;
    text += plain === score ? "." : " (the empty squares go to the winner).";
  }
  return text;
}

function statusText(s, shown) {
  if (s.result) {
    return app.view === null ? "Game over" : `Move ${app.view} of ${s.ply} (the game is over)`;
  }
  if (app.view !== null) return `Move ${app.view} of ${s.ply}: press End or ▶ to return`;
  const side = s.to_move;
  let text = "";
  if (shown && shown.last === "pass") text = `${NAME[shown.toMove === "black" ? "white" : "black"]} passes. `;
  const mine = s.you === "both" || s.you === side;
  const other = side === "black" ? "white" : "black";
  if (s.legal.length === 1 && s.legal[0] === "pass") {
    text += mine
      ? `${s.you === "both" ? NAME[side] : "You"} must pass: no legal move`
      : `${NAME[side]} has no legal move and must pass`;
  } else if (s.thinking) {
    text += `${s.players ? s.players[side] : "Outflank"} is thinking…`;
  } else if (mine) {
    text += s.you === "both" ? `${NAME[side]} to move` : `Your move (${side})`;
  } else if (s.mode === "online" && s.seats && (!s.seats[side] || !s.seats[other])) {
    text += "Waiting for an opponent to open the link";
  } else {
    text += `${NAME[side]} to move`;
  }
  if (s.you === null) text += " · watching";
  return text;
}

function renderMoves(s) {
  const ol = $("moves");
  const cur = app.view === null ? s.ply : app.view;
  if (ol.childElementCount !== s.moves.length || ol.dataset.game !== s.moves.join()) {
    ol.replaceChildren();
    ol.dataset.game = s.moves.join();
    s.moves.forEach((mv, i) => {
      const li = document.createElement("li");
      li.className = "mv";
      li.dataset.ply = String(i + 1);
      li.dataset.move = mv;
      const mover = app.positions ? app.positions[i].toMove : null;
      if (mover) li.classList.add("by-" + mover);
      li.textContent = mv;
      li.addEventListener("click", () => view(i + 1));
      ol.append(li);
    });
  }
  for (const li of ol.children) {
    li.classList.toggle("current", Number(li.dataset.ply) === cur);
  }
  const curEl = ol.querySelector(".current");
  if (curEl && app.view !== null) curEl.scrollIntoView({ block: "nearest" });
  else if (app.view === null) ol.scrollTop = ol.scrollHeight;
}

function boardString(board, color) {
  return board + " " + (color === "black" ? "X" : "O");
}

function render(animate) {
  const s = app.state;
  const b = $("board");
  if (!s) return;
  const live = app.view === null;
  const ply = live ? s.ply : app.view;
  const shown = app.positions ? app.positions[ply] : null;
  const boardNow = live ? s.board : shown.board;
  const toMove = live ? s.to_move : shown.toMove;
  const last = live ? s.moves[s.moves.length - 1] : shown.last;
  const mine = myTurn();
  const legal = mine ? s.legal.filter((m) => m !== "pass") : [];
  let scores = null;
  let hintSq = null;
  const a = app.analysis;
  if (live && a && a.ply === s.ply) {
    if (a.kind === "hint") hintSq = a.moves.length ? a.moves[0].move : null;
    else scores = new Map(a.moves.map((m) => [m.move, m.score]));
  }
  if (!live) {
    // A reviewed move's position: the move played and the best one, scored.
    const marks = reviewMarks(ply, s.moves);
    if (marks) {
      scores = marks.scores;
      hintSq = marks.best;
    }
  }
  const typed = squareIndex(app.typed.slice(-2)) >= 0 ? app.typed.slice(-2) : null;
  board.draw(boardNow, { legal, last, animate: animate && live, scores, hint: hintSq, typed });

  b.dataset.ply = String(s.ply);
  b.dataset.view = String(ply);
  b.dataset.toMove = toMove;
  b.dataset.you = s.you === null ? "none" : s.you;
  b.dataset.mode = s.mode;
  b.dataset.over = s.result ? "1" : "0";
  b.dataset.turn = mine ? "you" : "other";
  b.dataset.position = boardString(boardNow, toMove);
  b.classList.toggle("history", !live);
  b.classList.toggle("playable", mine);

  const d = live ? s.discs || count(s.board) : count(boardNow);
  $("black-count").textContent = String(d.black);
  $("white-count").textContent = String(d.white);
  for (const c of ["black", "white"]) {
    let name = s.players ? s.players[c] : NAME[c];
    if (s.mode === "online" && s.seats && !s.seats[c]) name = "free seat";
    $(c + "-name").textContent = name;
    $(c + "-you").hidden = s.you !== c;
    $(c + "-player").classList.toggle("to-move", !s.result && toMove === c);
  }
  renderClocks();

  setStatus(statusText(s, shown || { last, toMove }));
  const res = $("result");
  res.hidden = !s.result;
  res.textContent = resultText(s);

  const seat = s.you !== null && !s.result;
  $("pass").hidden = !(mine && s.legal[0] === "pass");
  $("hint").hidden = !(s.mode === "engine" && s.hints && mine);
  $("hint").disabled = app.pending !== null;
  $("undo").hidden = !(seat && (s.mode === "engine" || s.mode === "local") && s.ply > 0);
  $("resign").hidden = !seat;
  // The server analyses a two-player game, and a game against the engine with hints on;
  // an online game not until it ends.
  const canAnalyze = !s.result && (s.mode === "local" || (s.mode === "engine" && s.hints));
  $("analyze").disabled = app.pending !== null || !canAnalyze;
  $("analyze").title = canAnalyze ? "" : "Analysis is off in this game (hints off, or online)";

  const link = $("link-box");
  link.hidden = s.mode !== "online";
  if (s.mode === "online") $("link").value = `${location.origin}/g/${s.id || app.id}`;

  renderMoves(s);
  renderReview(s, ply);
  $("nav-first").disabled = !app.positions || ply === 0;
  $("nav-back").disabled = !app.positions || ply === 0;
  $("nav-forward").disabled = live;
  $("nav-last").disabled = live;
  $("view-info").textContent = live ? `${s.ply} moves` : `move ${ply} of ${s.ply}`;

  const info = $("analysis-info");
  if (app.pending === "analyze") info.textContent = "Scoring the moves…";
  else if (app.pending === "hint") info.textContent = "Looking for a hint…";
  else if (a && a.ply === s.ply && a.moves.length) {
    const best = a.moves[0];
    const sc = best.score > 0 ? "+" + best.score : String(best.score);
    info.textContent = `${a.kind === "hint" ? "Hint" : "Depth " + a.depth}: ${best.move} ${sc} (for ${NAME[s.to_move].toLowerCase()})`;
  } else info.textContent = "";

  drawGraph($("graph"), s.evals || [], s.ply, live ? s.ply : app.view, (p) => app.positions && view(p));
  document.title = s.result ? "Outflank · game over" : mine ? "Outflank · your move" : "Outflank";
}

// --- start -------------------------------------------------------------------------------

function main() {
  board = new BoardView($("board"), onSquare);
  const newGame = setupNewGame(enterNewGame);
  const games = setupGames();
  const load = setupLoad(enterNewGame);
  $("new-game").addEventListener("click", newGame);
  $("open-games").addEventListener("click", games);
  $("open-load").addEventListener("click", load);
  $("pass").addEventListener("click", () => playMove("pass"));
  $("hint").addEventListener("click", hint);
  $("undo").addEventListener("click", () => send({ type: "undo" }));
  $("resign").addEventListener("click", armResign);
  $("analyze").addEventListener("click", analyze);
  setupReview({ send, view, error: showError });
  $("clear-analysis").addEventListener("click", () => {
    app.analysis = null;
    render(false);
  });
  $("nav-first").addEventListener("click", () => view(0));
  $("nav-back").addEventListener("click", () => view((app.view ?? app.state.ply) - 1));
  $("nav-forward").addEventListener("click", () => view((app.view ?? app.state.ply) + 1));
  $("nav-last").addEventListener("click", () => view(app.state.ply));
  $("copy-link").addEventListener("click", async () => {
    const input = $("link");
    input.select();
    try {
      await navigator.clipboard.writeText(input.value);
      $("copy-link").textContent = "Copied";
    } catch {
      $("copy-link").textContent = "Press Ctrl+C";
    }
  });
  document.addEventListener("keydown", onKey);
  setInterval(renderClocks, 200);

  const m = /^\/g\/([0-9a-fA-F]+)\/?$/.exec(location.pathname);
  if (m) {
    setStatus("Connecting…");
    openGame(m[1]);
  } else {
    board.draw(START, {});
    setStatus("Start a new game");
    newGame();
  }
}

main();
