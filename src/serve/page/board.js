// The board: square names, the rules the page needs to replay a game's moves (so that it can
// show any earlier ply), and the drawing of the 64 squares.
//
// A board is a string of 64 characters a1..h8 (row-major, a1 top left): "X" black, "O" white,
// "-" empty, as in the server's state. Squares are numbered 0 (a1) to 63 (h8).

export const FILES = "abcdefgh";
export const START = "-".repeat(27) + "OX" + "-".repeat(6) + "XO" + "-".repeat(27);

const DIRS = [[1, 0], [-1, 0], [0, 1], [0, -1], [1, 1], [1, -1], [-1, 1], [-1, -1]];

export function squareName(i) {
  return FILES[i % 8] + (Math.floor(i / 8) + 1);
}

/** The index of a square name ("f5"), or -1. */
export function squareIndex(name) {
  const m = /^([a-h])([1-8])$/.exec(String(name).toLowerCase());
  return m ? FILES.indexOf(m[1]) + 8 * (Number(m[2]) - 1) : -1;
}

export function discOf(ch) {
  return ch === "X" ? "black" : ch === "O" ? "white" : "empty";
}

export function colorChar(color) {
  return color === "black" ? "X" : "O";
}

export function opposite(color) {
  return color === "black" ? "white" : "black";
}

/** The squares that a disc of `color` on square `i` flips (none: not a legal move). */
export function flips(board, i, color) {
  if (board[i] !== "-") return [];
  const me = colorChar(color);
  const them = colorChar(opposite(color));
  const out = [];
  const x0 = i % 8;
  const y0 = Math.floor(i / 8);
  for (const [dx, dy] of DIRS) {
    const line = [];
    let x = x0 + dx;
    let y = y0 + dy;
    while (x >= 0 && x < 8 && y >= 0 && y < 8 && board[8 * y + x] === them) {
      line.push(8 * y + x);
      x += dx;
      y += dy;
    }
    if (line.length && x >= 0 && x < 8 && y >= 0 && y < 8 && board[8 * y + x] === me) {
      out.push(...line);
    }
  }
  return out;
}

/** The board after `color` plays on square `i`, or null when that is not legal. */
export function play(board, i, color) {
  const f = flips(board, i, color);
  if (!f.length) return null;
  const b = board.split("");
  b[i] = colorChar(color);
  for (const j of f) b[j] = b[i];
  return b.join("");
}

export function count(board) {
  let black = 0;
  let white = 0;
  for (const c of board) {
    if (c === "X") black++;
    else if (c === "O") white++;
  }
  return { black, white };
}

/**
 * Every position of a game: [{board, toMove, last}] from the start (index = ply). Null when a
 * move does not replay (the start is not what the page thinks).
 */
export function replay(start, startColor, moves) {
  const out = [{ board: start, toMove: startColor, last: null }];
  let board = start;
  let color = startColor;
  for (const mv of moves) {
    if (mv !== "pass") {
      board = play(board, squareIndex(mv), color);
      if (board === null) return null;
    }
    color = opposite(color);
    out.push({ board, toMove: color, last: mv });
  }
  return out;
}

/** The drawn board: 64 `.sq` elements with data-sq, data-disc, data-legal, data-last, ... */
export class BoardView {
  constructor(root, onSquare) {
    this.root = root;
    this.squares = [];
    this.shown = null;
    for (let i = 0; i < 64; i++) {
      const sq = document.createElement("div");
      sq.className = "sq";
      sq.dataset.sq = squareName(i);
      sq.dataset.disc = "empty";
      sq.setAttribute("role", "gridcell");
      sq.setAttribute("aria-label", squareName(i));
      const disc = document.createElement("span");
      disc.className = "disc";
      const score = document.createElement("span");
      score.className = "score";
      sq.append(disc, score);
      sq.addEventListener("click", () => onSquare(squareName(i)));
      root.append(sq);
      this.squares.push(sq);
    }
  }

  /**
   * Draws `board`. `o.legal`: square names to mark; `o.last`: the last move's square;
   * `o.animate`: animate the discs that changed since the board drawn before; `o.scores`:
   * Map name -> score; `o.hint`: a square name; `o.typed`: a square name being typed.
   */
  draw(board, o = {}) {
    const before = this.shown;
    this.shown = board;
    const legal = new Set(o.legal || []);
    for (let i = 0; i < 64; i++) {
      const sq = this.squares[i];
      const name = squareName(i);
      const disc = discOf(board[i]);
      const was = sq.dataset.disc;
      sq.dataset.disc = disc;
      const d = sq.firstChild;
      d.classList.remove("flip-to-black", "flip-to-white", "placed");
      if (o.animate && before && was !== disc && disc !== "empty") {
        // Restart the animation: a reflow between removing and adding the class.
        void d.offsetWidth;
        d.classList.add(was === "empty" ? "placed" : "flip-to-" + disc);
      }
      setFlag(sq, "legal", legal.has(name));
      setFlag(sq, "last", o.last === name);
      setFlag(sq, "hint", o.hint === name);
      sq.classList.toggle("typed", o.typed === name);
      const score = o.scores ? o.scores.get(name) : undefined;
      const label = sq.lastChild;
      if (score === undefined) {
        delete sq.dataset.score;
        label.textContent = "";
        label.classList.remove("pos", "neg");
      } else {
        sq.dataset.score = String(score);
        label.textContent = score > 0 ? "+" + score : String(score);
        label.classList.toggle("pos", score > 0);
        label.classList.toggle("neg", score < 0);
      }
    }
  }
}

function setFlag(el, name, on) {
  if (on) el.dataset[name] = "1";
  else delete el.dataset[name];
}
