// Building a play step by step from the server's legal plays (legal_moves): the page
// offers only steps that continue some legal play, so an illegal play cannot be made.

/** "24/21* 21/20" -> [{from: 24, to: 21, hit: true}, {from: 21, to: 20, hit: false}] */
export function parseMove(text) {
  if (!text) return [];
  return text.trim().split(/\s+/).map((word) => {
    const hit = word.endsWith("*");
    const [a, b] = word.replace("*", "").split("/");
    const num = (s) => (s === "bar" ? 25 : s === "off" ? 0 : Number(s));
    return { from: num(a), to: num(b), hit };
  });
}

export function formatSteps(steps) {
  const name = (n) => (n === 25 ? "bar" : n === 0 ? "off" : String(n));
  return steps.map((s) => `${name(s.from)}/${name(s.to)}${s.hit ? "*" : ""}`).join(" ");
}

function orderings(steps, mine) {
  // every order of the play's steps in which each step starts on a point we occupy then
  const out = [];
  const seen = new Set();
  const walk = (left, board, done) => {
    if (!left.length) {
      const key = done.map((s) => `${s.from}-${s.to}`).join(",");
      if (!seen.has(key)) { seen.add(key); out.push(done); }
      return;
    }
    left.forEach((s, i) => {
      if (board[s.from] > 0) {
        const next = board.slice();
        next[s.from] -= 1;
        next[s.to] += 1;
        walk(left.filter((_, j) => j !== i), next, [...done, s]);
      }
    });
  };
  walk(steps, mine.slice(), []);
  return out;
}

export class TurnBuilder {
  /** plays: legal_moves' plays; mine: the mover's 26 counts (0 off, 1-24, 25 bar). */
  constructor(plays, mine) {
    this.mine = mine;
    this.steps = [];
    this.sequences = [];
    for (const play of plays) {
      for (const seq of orderings(parseMove(play.move), mine)) this.sequences.push({ play, seq });
    }
  }

  matching() {
    const n = this.steps.length;
    return this.sequences.filter(({ seq }) => seq.length >= n &&
      this.steps.every((s, i) => seq[i].from === s.from && seq[i].to === s.to));
  }

  /** Points holding a checker that can move now. */
  sources() {
    const n = this.steps.length;
    return new Set(this.matching().filter(({ seq }) => seq.length > n).map(({ seq }) => seq[n].from));
  }

  /** Where the checker on `from` may go now. */
  targets(from) {
    const n = this.steps.length;
    return new Set(this.matching().filter(({ seq }) => seq.length > n && seq[n].from === from)
      .map(({ seq }) => seq[n].to));
  }

  add(from, to) {
    const n = this.steps.length;
    const hit = this.matching().find(({ seq }) => seq.length > n && seq[n].from === from && seq[n].to === to);
    if (!hit) return false;
    this.steps.push(hit.seq[n]);
    return true;
  }

  undo() { this.steps.pop(); }

  /** The legal play the steps made so far complete, or null. */
  complete() {
    const done = this.matching().find(({ seq }) => seq.length === this.steps.length);
    return done ? done.play : null;
  }

  /** Set the steps to a whole play (a hint clicked). */
  choose(play) {
    const found = this.sequences.find((s) => s.play.position_id === play.position_id);
    if (found) this.steps = found.seq.slice();
  }

  /** The mover's counts after the steps so far, and the opponent's hit checkers. */
  board() {
    const mine = this.mine.slice();
    const hits = [];
    for (const s of this.steps) {
      mine[s.from] -= 1;
      mine[s.to] += 1;
      if (s.hit) hits.push(s.to);
    }
    return { mine, hits };
  }
}
