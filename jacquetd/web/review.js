// The Review tab: a match record analysed by the daemon (`analyze_record`, protocol 1.3)
// and stepped through decision by decision: the board before each decision with the
// played and the best play drawn on it, a graph of the winning chances and the equity
// over the match, the move list with its marks, each player's summary, and the
// annotated match to download (SGF with gnubg's analysis properties, our own record).
//
// The board, the graph and the figures are side 0's view (the record's first player,
// gnubg's White): the bottom of the board, the chances and the equity of side 0.

import { drawArrows, drawBoard, mapTheirs, theirsToMine } from "./board.js";
import { h } from "./dom.js";
import { parseMove } from "./moves.js";

const MARKS = { doubtful: "?!", error: "?", blunder: "??" };
const CUBE_ACTS = { double: "doubles", no_double: "no double", take: "takes", pass: "passes" };
const NS = "http://www.w3.org/2000/svg";

function svgEl(name, attrs = {}, text = null) {
  const node = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== null) node.textContent = text;
  return node;
}

const signed = (x, digits = 3) => `${x >= 0 ? "+" : ""}${x.toFixed(digits)}`;
const pct = (x) => `${(Math.round(x * 1000) / 10).toFixed(1)}%`;

/** The decisions of an analysis, in the order of the match: every move and every cube
 * decision, sorted by game and action; a cube decision before the move of its turn. */
export function decisionsOf(result) {
  const list = [
    ...result.moves.map((m) => ({ kind: "move", ...m })),
    ...(result.cube || []).map((c) => ({ kind: "cube", ...c })),
  ];
  list.sort((a, b) => a.game - b.game || a.index - b.index || (a.kind === "cube" ? -1 : 1));
  const turn = new Map();
  for (const d of list) {
    if (d.kind !== "move") continue;
    d.number = (turn.get(d.game) || 0) + 1;
    turn.set(d.game, d.number);
  }
  return list;
}

/** The side whose figures a decision carries: the mover, or the doubler of a cube one. */
function owner(d) {
  if (d.kind === "move") return d.side;
  return d.action === "double" || d.action === "no_double" ? d.side : 1 - d.side;
}

/** Side 0's equity after the decision as taken, in the decision's units. */
export function equity0(d) {
  let v;
  if (d.kind === "move") v = d.equity;
  else if (d.action === "no_double") v = d.no_double;
  else if (d.action === "double") v = Math.min(d.double_take, d.double_pass);
  else if (d.action === "take") v = d.double_take;
  else v = d.double_pass;
  return owner(d) === 0 ? v : -v;
}

/** Side 0's chance of winning the game before the decision, or null when unknown. The
 * chances are those of the decision's position's side on roll: the side deciding. */
export function win0(d) {
  if (!d.chances) return null;
  return d.side === 0 ? d.chances.win : 1 - d.chances.win;
}

/** Player names from a record's text: RECORDS.md's `Player0`/`Player1` headers, or SGF's
 * PW/PB; null where the text names none. */
export function namesOf(text) {
  const tag = (key) => {
    const m = new RegExp(`^;\\s*\\[${key}\\s+"((?:[^"\\\\]|\\\\.)*)"\\]`, "m").exec(text);
    return m ? m[1].replace(/\\(.)/g, "$1") : null;
  };
  const sgf = (key) => {
    const m = new RegExp(`${key}\\[((?:[^\\]\\\\]|\\\\.)*)\\]`).exec(text);
    return m ? m[1].replace(/\\(.)/g, "$1") : null;
  };
  return [tag("Player0") || sgf("PW"), tag("Player1") || sgf("PB")];
}

export class Review {
  /** app: {req(cmd, args, onPartial), nextId(), status(text, error), showError(err),
   * showAnalysis(kind, ...children), enter(), area, board}. */
  constructor(app) {
    this.app = app;
    this.result = null;
    this.decisions = [];
    this.names = ["Player 1", "Player 2"];
    this.current = 0;
    this.running = null; // the id of the analysis under way
    this.seq = 0;
  }

  /** Analyse `source` ({record} or {match_id}) at `plies`, then show it. */
  async start(source, names, plies, onProgress) {
    this.cancel(); // an analysis still under way is not wanted any more
    const seq = ++this.seq;
    this.names = names.map((n, i) => n || `Player ${i + 1}`);
    if (this.names[0] === this.names[1]) this.names = this.names.map((n, i) => `${n} (${i + 1})`);
    const id = this.app.nextId();
    this.running = id;
    this.app.status("analysing the match…");
    onProgress({ done: 0, total: 0 });
    try {
      const r = await this.app.req("analyze_record", { ...source, plies, partials: true, annotate: true },
        (p) => { if (seq === this.seq) onProgress(p); });
      if (seq !== this.seq) return;
      this.result = r;
      this.decisions = decisionsOf(r);
      this.current = 0;
      this.app.enter();
      this.show();
      const how = r.stopped ? `stopped after ${r.done} of ${r.total} actions` : `${this.decisions.length} decisions`;
      this.app.status(`review ready (${r.plies}-ply, ${how})`);
    } finally {
      if (this.running === id) this.running = null;
      onProgress(null);
    }
  }

  cancel() {
    if (this.running !== null) this.app.req("cancel", { target: this.running }).catch(() => {});
  }

  get active() {
    return this.result !== null;
  }

  go(index) {
    if (!this.decisions.length) return;
    this.current = Math.max(0, Math.min(this.decisions.length - 1, index));
    this.show();
  }

  key(key) {
    const moves = { ArrowLeft: -1, ArrowUp: -1, ArrowRight: 1, ArrowDown: 1 };
    if (key in moves) this.go(this.current + moves[key]);
    else if (key === "Home") this.go(0);
    else if (key === "End") this.go(this.decisions.length - 1);
    else return false;
    return true;
  }

  // ---- drawing ------------------------------------------------------------------------

  drawBoard() {
    const d = this.decisions[this.current];
    if (!d) return;
    const pos = d.position;
    const v = pos.variant;
    const onRoll = d.side; // the decision's position has the side deciding on roll
    const mine = onRoll === 0 ? pos.on_roll : pos.opponent;
    const theirs = mapTheirs(v, onRoll === 0 ? pos.opponent : pos.on_roll);
    const rel = (w) => (w === "centre" ? null : (w === "on_roll") === (onRoll === 0) ? "me" : "them");
    const cube = pos.cube ? { value: pos.cube.value, owner: rel(pos.cube.owner), pending: pos.cube.pending } : null;
    const score = pos.match ? (onRoll === 0 ? pos.match.score : [pos.match.score[1], pos.match.score[0]]) : null;
    const board = this.app.board;
    drawBoard(board, {
      variant: v, mine: mine.slice(), theirs, dice: pos.dice || [], diceOwner: onRoll === 0 ? "me" : "them",
      cube, score, length: pos.match ? pos.match.length : 0, sources: null, targets: null,
    });
    board.dataset.decision = String(this.current);
    if (d.kind !== "move") return;
    const view = (steps) => steps.map((s) => (d.side === 0 ? s
      : { from: theirsToMine(v, s.from), to: theirsToMine(v, s.to) }));
    const whose = d.side === 0 ? "mine" : "theirs";
    if (d.loss > 0 && d.best !== d.move) drawArrows(board, view(parseMove(d.best)), whose, "best", 5);
    drawArrows(board, view(parseMove(d.move)), whose, "played", -5);
  }

  describe(d) {
    const who = this.names[d.side];
    const mark = d.mark ? ` ${MARKS[d.mark]} (${d.mark})` : "";
    const units = d.units === "match" ? "match equity" : "money equity";
    if (d.kind === "cube") {
      const right = d.best === d.action ? "right" : `right: ${CUBE_ACTS[d.best]}`;
      return [
        h("div", { "data-testid": "review-played" },
          `Game ${d.game}: ${who} ${CUBE_ACTS[d.action]}${mark} — ${right}, cost ${d.loss.toFixed(3)}`),
        h("div", {}, `the doubler's ${units}: no double ${signed(d.no_double)}, double/take ${signed(d.double_take)}, double/pass ${signed(d.double_pass)} (${d.plies}-ply)`),
      ];
    }
    const played = d.move || "no legal play";
    const lines = [h("div", { "data-testid": "review-played", class: "played" },
      `Game ${d.game}, move ${d.number}: ${who} ${(d.dice || []).join("-")} played ${played} (${signed(d.equity)})${mark}`)];
    if (d.forced) lines.push(h("div", {}, "forced: the only legal play"));
    else if (d.loss > 0) {
      lines.push(h("div", { "data-testid": "review-best", class: "best" },
        `best ${d.best || "no legal play"} (${signed(d.best_equity)}), cost ${d.loss.toFixed(3)}`));
    } else lines.push(h("div", { "data-testid": "review-best", class: "best" }, "the best play"));
    const extra = [`${units}, ${d.plies}-ply, ${d.choices} legal plays`];
    if (d.chances) extra.push(`before the roll ${this.names[d.side]} wins ${pct(d.chances.win)}`);
    if (d.luck !== undefined) extra.push(`luck of the roll ${signed(d.luck)}`);
    lines.push(h("div", {}, extra.join("; ")));
    return lines;
  }

  graph() {
    const W = 780, H = 170, PAD = 22;
    const ds = this.decisions;
    const n = ds.length;
    const svg = svgEl("svg", { viewBox: `0 0 ${W} ${H}`, class: "review-graph", "data-testid": "review-graph",
      role: "img", "aria-label": "winning chances and equity over the match" });
    const x = (i) => PAD + (n > 1 ? (i * (W - 2 * PAD)) / (n - 1) : (W - 2 * PAD) / 2);
    const eqs = ds.map(equity0);
    const emax = Math.max(1, ...eqs.map(Math.abs));
    const yWin = (w) => PAD + (1 - w) * (H - 2 * PAD);
    const yEq = (e) => H / 2 - (e / emax) * (H / 2 - PAD);
    svg.appendChild(svgEl("rect", { x: 0, y: 0, width: W, height: H, class: "gbg" }));
    svg.appendChild(svgEl("line", { x1: PAD, y1: H / 2, x2: W - PAD, y2: H / 2, class: "gmid" }));
    svg.appendChild(svgEl("text", { x: 2, y: PAD - 6, class: "glabel" }, `${this.names[0]}: win chance (line), equity (bars, ±${emax.toFixed(1)})`));
    ds.forEach((d, i) => {
      if (i > 0 && ds[i - 1].game !== d.game) {
        const gx = (x(i - 1) + x(i)) / 2;
        svg.appendChild(svgEl("line", { x1: gx, y1: PAD, x2: gx, y2: H - PAD, class: "ggame" }));
      }
      if (i === 0 || ds[i - 1].game !== d.game) {
        svg.appendChild(svgEl("text", { x: x(i) + 2, y: H - 6, class: "glabel" }, `game ${d.game}`));
      }
    });
    // the equity as thin bars from the middle, the win chance as a line
    ds.forEach((d, i) => {
      const y = yEq(eqs[i]);
      svg.appendChild(svgEl("line", { x1: x(i), y1: H / 2, x2: x(i), y2: y, class: "geq" }));
    });
    let last = 0.5;
    const wins = ds.map((d) => { const w = win0(d); if (w !== null) last = w; return last; });
    let path = "";
    ds.forEach((d, i) => {
      const sep = i === 0 || ds[i - 1].game !== d.game;
      path += `${sep ? "M" : "L"}${x(i).toFixed(1)},${yWin(wins[i]).toFixed(1)} `;
    });
    svg.appendChild(svgEl("path", { d: path.trim(), class: "gwin" }));
    const cx = x(this.current);
    svg.appendChild(svgEl("line", { x1: cx, y1: PAD - 4, x2: cx, y2: H - PAD + 4, class: "gcurrent" }));
    ds.forEach((d, i) => {
      const cls = ["gpoint", d.mark ? `mark-${d.mark}` : "", i === this.current ? "current" : ""].filter(Boolean).join(" ");
      const title = `${d.kind === "move" ? `game ${d.game} move ${d.number}` : `game ${d.game} cube`}: ${this.names[d.side]}; ${this.names[0]} wins ${pct(wins[i])}, equity ${signed(eqs[i])}`;
      const dot = svgEl("circle", { cx: x(i), cy: yWin(wins[i]), r: d.mark ? 5 : 3.5, class: cls,
        "data-index": i, "data-testid": "graph-point" });
      dot.appendChild(svgEl("title", {}, title));
      svg.appendChild(dot);
    });
    // a click anywhere on the graph goes to the decision nearest to it along the match
    svg.addEventListener("click", (e) => {
      const at = new DOMPoint(e.clientX, e.clientY).matrixTransform(svg.getScreenCTM().inverse()).x;
      let best = 0;
      for (let i = 1; i < n; i++) if (Math.abs(x(i) - at) < Math.abs(x(best) - at)) best = i;
      if (n) this.go(best);
    });
    return svg;
  }

  summary() {
    const s = this.result.summary || [];
    const cell = (side, field, value, text) => h("td", { dataset: { field, side, value: value === null ? "" : String(value) } }, text);
    const head = ["player", "decisions", "?!", "?", "??", "cube decisions", "cube errors", "checker loss", "cube loss",
      "error rate", "PR", "luck"].map((t) => h("th", {}, t));
    const rows = s.map((p) => {
      const cubeErrors = Object.values(p.cube_marks).reduce((a, b) => a + b, 0);
      return h("tr", { dataset: { side: p.side } },
        h("td", { class: "name" }, this.names[p.side]),
        cell(p.side, "decisions", p.decisions, p.decisions),
        cell(p.side, "doubtful", p.marks.doubtful, p.marks.doubtful),
        cell(p.side, "error", p.marks.error, p.marks.error),
        cell(p.side, "blunder", p.marks.blunder, p.marks.blunder),
        cell(p.side, "cube_decisions", p.cube_decisions, p.cube_decisions),
        cell(p.side, "cube_errors", cubeErrors, cubeErrors),
        cell(p.side, "loss", p.loss, p.loss.toFixed(3)),
        cell(p.side, "cube_loss", p.cube_loss, p.cube_loss.toFixed(3)),
        cell(p.side, "error_rate", p.error_rate, p.error_rate.toFixed(4)),
        cell(p.side, "pr", p.pr, p.pr.toFixed(2)),
        cell(p.side, "luck", p.luck, p.luck === null ? "—" : signed(p.luck)));
    });
    return h("table", { "data-testid": "review-summary", class: "review-summary" }, h("tr", {}, head), rows);
  }

  moveList() {
    const head = ["#", "game", "move", "player", "dice", "played", "", "best", "cost"].map((t) => h("th", {}, t));
    const rows = this.decisions.map((d, i) => {
      const mark = d.mark ? MARKS[d.mark] : "";
      const cls = ["decision", i === this.current ? "selected" : "", d.mark ? `mark-${d.mark}` : ""].filter(Boolean).join(" ");
      const played = d.kind === "move" ? d.move || "no legal play" : CUBE_ACTS[d.action];
      const best = d.kind === "move" ? (d.loss > 0 ? d.best || "no legal play" : "=")
        : d.best === d.action ? "=" : CUBE_ACTS[d.best];
      return h("tr", { class: cls, dataset: { index: i, testid: "review-row", kind: d.kind, mark: d.mark || "" } },
        h("td", {}, i + 1), h("td", {}, d.game), h("td", {}, d.kind === "move" ? d.number : "cube"),
        h("td", { class: "name" }, this.names[d.side]), h("td", {}, d.kind === "move" ? (d.dice || []).join("-") : ""),
        h("td", { class: "move" }, played), h("td", { class: "mark" }, mark),
        h("td", { class: "move" }, best), h("td", { class: d.mark ? `loss-${d.mark}` : "" }, d.loss.toFixed(3)));
    });
    const table = h("table", { "data-testid": "review-moves", class: "review-moves" }, h("tr", {}, head), rows);
    table.addEventListener("click", (e) => {
      const row = e.target.closest("tr[data-index]");
      if (row) this.go(Number(row.dataset.index));
    });
    return table;
  }

  show() {
    const r = this.result;
    if (!r) return;
    this.drawBoard();
    const d = this.decisions[this.current];
    const nav = (label, testid, index, title) => {
      const b = h("button", { type: "button", "data-testid": testid, title }, label);
      b.addEventListener("click", () => this.go(index));
      return b;
    };
    const at = this.current;
    const list = this.moveList();
    this.app.showAnalysis("review",
      h("h3", { "data-testid": "review-title" },
        `Review: ${this.names[0]} v ${this.names[1]} (${r.plies}-ply${r.stopped ? ", stopped" : ""})`),
      this.summary(),
      this.graph(),
      h("div", { class: "review-nav" },
        nav("|◀", "review-first", 0, "first (Home)"), nav("◀", "review-prev", at - 1, "previous (←)"),
        h("span", { "data-testid": "review-position" }, this.decisions.length ? `${at + 1} / ${this.decisions.length}` : "no decision"),
        nav("▶", "review-next", at + 1, "next (→)"), nav("▶|", "review-last", this.decisions.length - 1, "last (End)")),
      h("div", { "data-testid": "review-current", class: "review-current" }, d ? this.describe(d) : "no decision to review"),
      h("div", { class: "review-list" }, list));
    document.body.dataset.reviewIndex = String(at);
    const row = list.querySelector("tr.selected");
    if (row) row.scrollIntoView({ block: "nearest" });
  }

  /** The annotated match in `format` (`sgf` or `record`), or null when there is none. */
  annotated(format) {
    return this.result?.annotated?.[format] ?? null;
  }
}

/** Offer `text` to the browser as a file to save, named `name`. */
export function download(text, name) {
  const a = document.createElement("a");
  a.href = URL.createObjectURL(new Blob([text], { type: "text/plain" }));
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}
