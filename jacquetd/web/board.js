// The board in SVG, drawn from the structured positions the daemon sends.
//
// The viewer's points are numbered along the viewer's route: 1-6 bottom right (home),
// 7-12 bottom left, 13-18 top left, 19-24 top right; the bar (25) in the middle and the
// borne-off tray (0) on the right. In `jacquet` and `jacquet-be` both sides travel the
// same way round the circuit (the opponent's point q is our q + 12 or q - 12, RULES.md
// G3); in `backgammon` they travel opposite ways (q is our 25 - q, G4).

const NS = "http://www.w3.org/2000/svg";
const W = 800, H = 520, M = 20, COL = 50, BAR = 50, TRAY = 70, R = 21;
const LEFT = M, RIGHT = M + 6 * COL + BAR;
const TRAY_X = M + 12 * COL + BAR + 10;

// Each variant's geometry, `same` or `opposite`, as the daemon's `hello` describes it
// (`variant_rules`, protocol 1.4): a variant the daemon adds is drawn with nothing else
// to learn. Until `hello` has come, the three variants this page was written with.
const DIRECTION = { jacquet: "same", "jacquet-be": "same", backgammon: "opposite" };

/** Take the geometry of every variant of `hello`'s `variant_rules`. */
export function learnVariants(rules) {
  for (const [name, r] of Object.entries(rules || {})) DIRECTION[name] = r.direction;
}

/** The opponent's point q (its own numbering) as the viewer's point number. */
export function theirsToMine(variant, q) {
  if (q === 0 || q === 25) return q;
  if (DIRECTION[variant] === "opposite") return 25 - q;
  return q <= 12 ? q + 12 : q - 12;
}

/** Counts in the opponent's numbering -> counts indexed by the viewer's points. */
export function mapTheirs(variant, counts) {
  const out = new Array(26).fill(0);
  counts.forEach((c, q) => { out[theirsToMine(variant, q)] += c; });
  return out;
}

/** The starting position of `variant` (RULES.md: the talon in the Jacquet variants,
 * 2-5-3-5 in backgammon), as the daemon's position maps give it. */
export function startPosition(variant) {
  const side = new Array(26).fill(0);
  if (variant === "backgammon") Object.assign(side, { 24: 2, 13: 5, 8: 3, 6: 5 });
  else side[24] = 15;
  return { variant, on_roll: side.slice(), opponent: side.slice(), dice: [] };
}

export function pips(counts) {
  return counts.reduce((sum, c, p) => sum + (p === 0 ? 0 : c * p), 0);
}

function el(name, attrs = {}, text = null) {
  const node = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== null) node.textContent = text;
  return node;
}

function column(point) {
  // column 0..11 from the left, and whether the point is in the top row
  if (point >= 13) return { col: point - 13, top: true };
  return { col: 12 - point, top: false };
}

function columnX(col) {
  return col < 6 ? LEFT + col * COL : RIGHT + (col - 6) * COL;
}

/**
 * Draw `view` into `svg`:
 *   variant, mine[26], theirs[26] (viewer's numbering), dice, diceOwner ("me"/"them"),
 *   cube {value, owner: "me"|"them"|null, pending}, score [me, them], length,
 *   names [me, them], sources Set, targets Set, selected, hits [] (points just hit)
 */
export function drawBoard(svg, view) {
  svg.replaceChildren();
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  svg.dataset.variant = view.variant;
  svg.appendChild(el("rect", { x: 0, y: 0, width: W, height: H, class: "frame" }));
  svg.appendChild(el("rect", { x: LEFT, y: M, width: 12 * COL + BAR, height: H - 2 * M, class: "felt" }));
  svg.appendChild(el("rect", { x: LEFT + 6 * COL, y: M, width: BAR, height: H - 2 * M, class: "bar" }));
  svg.appendChild(el("rect", { x: TRAY_X, y: M, width: TRAY, height: H - 2 * M, class: "tray" }));
  const tri = H / 2 - M - 30;
  for (let point = 1; point <= 24; point++) {
    const { col, top } = column(point);
    const x = columnX(col);
    const y0 = top ? M : H - M;
    const y1 = top ? M + tri : H - M - tri;
    const shade = (col + (top ? 0 : 1)) % 2 ? "dark" : "light";
    svg.appendChild(el("polygon", {
      points: `${x},${y0} ${x + COL},${y0} ${x + COL / 2},${y1}`,
      class: `point ${shade}${view.targets?.has(point) ? " target" : ""}`,
    }));
    const label = el("text", {
      x: x + COL / 2, y: top ? M - 5 : H - 6, class: "pointnum", "text-anchor": "middle",
    }, String(point));
    svg.appendChild(label);
  }
  // checkers
  for (let point = 1; point <= 24; point++) {
    const { col, top } = column(point);
    const x = columnX(col) + COL / 2;
    const stack = (count, cls) => {
      for (let i = 0; i < Math.min(count, 5); i++) {
        const y = top ? M + R + 2 + i * 2 * R : H - M - R - 2 - i * 2 * R;
        svg.appendChild(el("circle", { cx: x, cy: y, r: R - 1, class: `checker ${cls}` }));
      }
      if (count > 5) {
        const y = top ? M + R + 2 + 4 * 2 * R : H - M - R - 2 - 4 * 2 * R;
        svg.appendChild(el("text", { x, y: y + 6, class: `count ${cls}`, "text-anchor": "middle" }, String(count)));
      }
    };
    if (view.mine[point]) stack(view.mine[point], "mine");
    if (view.theirs[point]) stack(view.theirs[point], "theirs");
  }
  // the bar: ours below the middle, theirs above; the tray: ours below, theirs above
  const barX = LEFT + 6 * COL + BAR / 2;
  const onBar = (count, cls, down) => {
    for (let i = 0; i < count; i++) {
      const y = H / 2 + (down ? 1 : -1) * (R + 30 + i * 2 * R * 0.8);
      svg.appendChild(el("circle", { cx: barX, cy: y, r: R - 1, class: `checker ${cls}` }));
    }
  };
  onBar(view.mine[25], "mine", true);
  onBar(view.theirs[25], "theirs", false);
  const tray = (count, cls, down) => {
    for (let i = 0; i < count; i++) {
      const y = down ? H - M - 6 - i * 12 : M + 2 + i * 12;
      svg.appendChild(el("rect", { x: TRAY_X + 8, y, width: TRAY - 16, height: 10, class: `off ${cls}` }));
    }
  };
  tray(view.mine[0], "mine", true);
  tray(view.theirs[0], "theirs", false);
  // highlights and click areas
  for (let point = 0; point <= 25; point++) {
    let box;
    if (point === 0) box = { x: TRAY_X, y: H / 2, w: TRAY, h: H / 2 - M };
    else if (point === 25) box = { x: LEFT + 6 * COL, y: H / 2, w: BAR, h: H / 2 - M };
    else {
      const { col, top } = column(point);
      box = { x: columnX(col), y: top ? M : H / 2, w: COL, h: H / 2 - M };
    }
    const classes = ["hit"];
    if (view.sources?.has(point)) classes.push("source");
    if (view.targets?.has(point)) classes.push("target");
    if (view.selected === point) classes.push("selected");
    svg.appendChild(el("rect", {
      x: box.x, y: box.y, width: box.w, height: box.h, class: classes.join(" "),
      "data-point": point,
    }));
  }
  // pips, dice, cube, score
  const info = (x, y, text, cls) => svg.appendChild(el("text", { x, y, class: cls }, text));
  info(TRAY_X + 2, H / 2 + 18, `pips ${pips(view.mine)}`, "pips mine-pips");
  const theirPips = view.theirs.reduce((sum, c, p) => sum + c * theirsToMine(view.variant, p), 0);
  info(TRAY_X + 2, H / 2 - 8, `pips ${theirPips}`, "pips theirs-pips");
  if (view.dice?.length) {
    const dx = view.diceOwner === "them" ? LEFT + 2 * COL : RIGHT + 2 * COL;
    view.dice.forEach((d, i) => {
      const g = el("g", { class: `die ${view.diceOwner || ""}`, "data-die": d });
      g.appendChild(el("rect", { x: dx + i * 46, y: H / 2 - 20, width: 40, height: 40, rx: 6 }));
      g.appendChild(el("text", { x: dx + i * 46 + 20, y: H / 2 + 8, "text-anchor": "middle" }, String(d)));
      svg.appendChild(g);
    });
  }
  if (view.cube) {
    const cy = view.cube.owner === "me" ? H - M - 50 : view.cube.owner === "them" ? M + 10 : H / 2 - 20;
    const g = el("g", { class: `cube${view.cube.pending ? " pending" : ""}`, "data-cube": view.cube.value });
    g.appendChild(el("rect", { x: 2, y: cy, width: 16, height: 40, rx: 3 }));
    g.appendChild(el("text", { x: 10, y: cy + 25, "text-anchor": "middle" }, String(view.cube.value)));
    svg.appendChild(g);
  }
  if (view.score) {
    const len = view.length ? ` / ${view.length}` : " (money)";
    info(TRAY_X, H - 4, `${view.score[0]}`, "score mine-score");
    info(TRAY_X, 14, `${view.score[1]}${len}`, "score theirs-score");
  }
}

/** The point number of a click on the board, or null. */
export function pointAt(event) {
  const target = event.target.closest("[data-point]");
  return target ? Number(target.dataset.point) : null;
}

/** Where a checker of `whose` ("mine" or "theirs") stands on the viewer's point `point`
 * (25 the bar, 0 the tray: the viewer's below the middle, the opponent's above). */
export function pointXY(point, whose = "mine") {
  const down = whose === "mine";
  if (point === 25) return { x: LEFT + 6 * COL + BAR / 2, y: H / 2 + (down ? 1 : -1) * (R + 30) };
  if (point === 0) return { x: TRAY_X + TRAY / 2, y: down ? H - M - 40 : M + 40 };
  const { col, top } = column(point);
  return { x: columnX(col) + COL / 2, y: top ? M + R + 2 : H - M - R - 2 };
}

/** Arrows over the board, one per step {from, to} (the viewer's numbering) of `whose`
 * checkers, of class `cls` ("played" or "best"), shifted by `shift` pixels so that two
 * plays on the same points stay apart. */
export function drawArrows(svg, steps, whose, cls, shift = 0) {
  let defs = svg.querySelector("defs");
  if (!defs) defs = svg.appendChild(el("defs"));
  const id = `arrow-${cls}`;
  if (!svg.querySelector(`#${id}`)) {
    const marker = el("marker", { id, viewBox: "0 0 10 10", refX: 8, refY: 5, markerWidth: 5,
      markerHeight: 5, orient: "auto-start-reverse", class: `arrowhead ${cls}` });
    marker.appendChild(el("path", { d: "M 0 0 L 10 5 L 0 10 z" }));
    defs.appendChild(marker);
  }
  for (const s of steps) {
    const a = pointXY(s.from, whose);
    const b = pointXY(s.to, whose);
    svg.appendChild(el("line", {
      x1: a.x + shift, y1: a.y, x2: b.x + shift, y2: b.y, class: `arrow ${cls}`,
      "marker-end": `url(#${id})`, "data-from": s.from, "data-to": s.to,
    }));
  }
}
