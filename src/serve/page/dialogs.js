// The dialogs: a new game, the list of games, loading a GGF game or a transcript. Each one
// that makes a game hands its answer ({id, token, color}) to `onGame`.

const $ = (id) => document.getElementById(id);

/** POSTs JSON; the answer's JSON, or throws an Error with the server's message. */
export async function postJson(url, body) {
  const r = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body ?? {}),
  });
  let j = null;
  try {
    j = await r.json();
  } catch {
    j = null;
  }
  if (!r.ok) {
    const msg = j && j.error ? j.error : `${r.status} ${r.statusText}`;
    const e = new Error(msg);
    e.status = r.status;
    throw e;
  }
  return j;
}

function showError(el, msg) {
  el.textContent = msg || "";
  el.hidden = !msg;
}

/** The new-game dialog: what it sends is the body of POST /api/games. */
export function setupNewGame(onGame) {
  const dlg = $("new-dialog");
  const form = $("new-form");
  const err = $("new-error");
  const sync = () => {
    const f = form.elements;
    const mode = f.mode.value;
    const clock = f.clocked.checked;
    dlg.classList.toggle("mode-engine", mode === "engine");
    dlg.classList.toggle("mode-local", mode === "local");
    dlg.classList.toggle("strength-clock", clock);
  };
  form.addEventListener("change", (e) => {
    // Against Outflank, it plays at a level (a clock, if any, is the person's only) or on a
    // clock of its own: playing on its clock needs the clock.
    const f = form.elements;
    if (e.target === f.clocked && !f.clocked.checked) f.strength.value = "level";
    else if (e.target.name === "strength" && f.strength.value === "clock") f.clocked.checked = true;
    sync();
  });
  $("new-cancel").addEventListener("click", () => dlg.close());
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const f = form.elements;
    const mode = f.mode.value;
    const body = { mode, color: f.color.value, hints: f.hints.checked };
    if (f.clocked.checked) {
      // Minutes to whole seconds; at least one.
      body.time = Math.max(1, Math.round(Number(f.time.value) * 60) || 0);
      body.increment = Math.max(0, Number(f.increment.value) || 0);
    }
    // A level with a clock: only the person's clock runs.
    if (mode === "engine" && f.strength.value === "level") body.level = Number(f.level.value);
    const start = f.start.value.trim();
    if (start) body.start = start;
    showError(err, "");
    $("new-start").disabled = true;
    try {
      const g = await postJson("/api/games", body);
      dlg.close();
      onGame(g);
    } catch (x) {
      showError(err, x.message);
    } finally {
      $("new-start").disabled = false;
    }
  });
  sync();
  return () => {
    showError(err, "");
    sync();
    if (!dlg.open) dlg.showModal();
  };
}

function fmtTime(t) {
  if (t === null || t === undefined || t === "") return "";
  const d = typeof t === "number" ? new Date(t < 1e12 ? t * 1000 : t) : new Date(t);
  return isNaN(d) ? String(t) : d.toLocaleString();
}

function fmtResult(r) {
  if (r === null || r === undefined) return "playing";
  if (typeof r === "string") return r;
  return r.score || `${r.black}-${r.white}`;
}

/** The list of games (GET /api/games), newest first; a row opens its game. */
export function setupGames() {
  const dlg = $("games-dialog");
  const body = $("games-body");
  const err = $("games-error");
  $("games-close").addEventListener("click", () => dlg.close());
  return async () => {
    body.replaceChildren();
    showError(err, "");
    if (!dlg.open) dlg.showModal();
    let games;
    try {
      const r = await fetch("/api/games");
      if (!r.ok) throw new Error(`${r.status} ${r.statusText}`);
      games = await r.json();
    } catch (x) {
      showError(err, x.message);
      return;
    }
    if (!games.length) showError(err, "No games yet.");
    for (const g of games) {
      const tr = document.createElement("tr");
      tr.className = "game-row";
      tr.dataset.id = g.id;
      const link = document.createElement("a");
      link.href = "/g/" + g.id;
      link.textContent = g.id.slice(0, 8);
      const cells = [link, g.mode, g.black, g.white, fmtResult(g.result), g.moves, fmtTime(g.created)];
      for (const c of cells) {
        const td = document.createElement("td");
        if (c instanceof Node) td.append(c);
        else td.textContent = c === null || c === undefined ? "" : String(c);
        tr.append(td);
      }
      body.append(tr);
    }
  };
}

/** Loading a game: a GGF game or a transcript, pasted (POST /api/load). */
export function setupLoad(onGame) {
  const dlg = $("load-dialog");
  const form = $("load-form");
  const err = $("load-error");
  $("load-cancel").addEventListener("click", () => dlg.close());
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    showError(err, "");
    try {
      const g = await postJson("/api/load", { text: form.elements.text.value });
      dlg.close();
      onGame(g);
    } catch (x) {
      showError(err, x.message);
    }
  });
  return () => {
    showError(err, "");
    if (!dlg.open) dlg.showModal();
    form.elements.text.focus();
  };
}
