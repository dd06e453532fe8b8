// The web app: plays, hosts, watches and analyses through the daemon's WebSocket
// endpoint (JSON). A game against the bot is a hosted match with a bot seat, so one
// code path serves both; the page's address keeps the match and seat (#m=ID&t=TOKEN,
// #w=ID to watch), so a reload resumes where it was.
//
// Every value from the server or another client (names, moves, ids, messages) goes
// into the page as text: elements are made with dom.js's `h`, never from HTML strings.

import { Client, ProtocolError, REFUSALS } from "./client.js";
import { drawBoard, learnVariants, mapTheirs, pointAt, startPosition, theirsToMine } from "./board.js";
import { h, fill } from "./dom.js";
import { TurnBuilder, formatSteps } from "./moves.js";
import { moveLog, playerName, says, winText } from "./names.js";
import { Review, download, namesOf } from "./review.js";

const $ = (id) => document.getElementById(id);
const S = {
  client: null,
  hello: null,
  mode: "idle", // idle | match | watch | editor | review
  match: null, // {id, token}
  st: null, // the last match_state
  builder: null,
  selected: null,
  refreshSeq: 0,
  watching: null,
  hints: [],
  ed: null,
};
const timings = (window.jacquetdTimings = { click: [], action: [] });

// ---- connection -----------------------------------------------------------------------

function serverToken() {
  return sessionStorage.getItem("jacquetd-token") || "";
}

function wsUrl() {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  const token = serverToken();
  return `${proto}//${location.host}/ws${token ? `?token=${encodeURIComponent(token)}` : ""}`;
}

// A refusal the server explains in the close frame (SPEC §2.6): what the page says.
const REFUSAL_TEXT = {
  origin_not_allowed: "the server does not accept connections from this page's address",
  token_required: "the server needs an access token",
  token_refused: "the server refused the access token",
};

function refused(close) {
  const code = (close.reason || "").split(":")[0];
  const text = REFUSAL_TEXT[code] || "the server refused the connection";
  $("conn").textContent = "not connected";
  document.body.dataset.conn = "refused";
  document.body.dataset.refused = code;
  $("server-panel").hidden = code === "origin_not_allowed";
  const detail = close.reason ? ` (${close.reason})` : ` (close code ${close.code})`;
  status(`${text}${detail}`, true);
}

async function connect() {
  $("conn").textContent = "connecting…";
  const client = new Client(wsUrl());
  let hello;
  try {
    await client.connect();
    hello = await client.request("hello", { client: "jacquetd-web" });
  } catch {
    // a refused page is closed right after the opening: wait a moment for the reason
    if (!client.closed) await Promise.race([client.whenClosed, new Promise((r) => setTimeout(r, 2000))]);
    if (client.closed && REFUSALS.has(client.closed.code)) {
      refused(client.closed);
      return false;
    }
    let why = "cannot reach the server";
    try {
      const token = serverToken();
      const r = await fetch(`/auth${token ? `?token=${encodeURIComponent(token)}` : ""}`);
      if (r.status === 401) why = token ? "the server refused the access token" : "the server needs an access token";
    } catch { /* the server is down: keep the first reason */ }
    $("conn").textContent = "not connected";
    $("server-panel").hidden = false;
    status(why, true);
    document.body.dataset.conn = "refused";
    return false;
  }
  S.client = client;
  client.onclose = (ev) => {
    if (REFUSALS.has(ev.code)) { refused(ev); return; }
    $("conn").textContent = "disconnected: reconnecting…";
    document.body.dataset.conn = "closed";
    S.watching = null;
    setTimeout(() => connect().then((ok) => ok && resume()), 1000);
  };
  S.hello = hello;
  learnVariants(hello.variant_rules);
  fillVariants(hello.variants || []);
  $("conn").textContent = `connected: ${S.hello.engine?.name || "jacquetd"} protocol ${S.hello.protocol}`;
  document.body.dataset.conn = "open";
  fillLevels();
  return true;
}

/** Every variant the daemon plays in the variant lists (a new one under its own name). */
function fillVariants(variants) {
  for (const id of ["variant", "host-variant", "ed-variant"]) {
    const select = $(id);
    const known = new Set([...select.options].map((o) => o.value));
    for (const name of variants) if (!known.has(name)) select.add(new Option(name, name));
  }
}

function fillLevels() {
  const select = $("level");
  if (select.options.length) return;
  const levels = ["random", ...S.hello.levels.filter((l) => l !== "random" && !l.startsWith("test-"))];
  for (const level of levels) select.add(new Option(level, level));
  select.value = S.hello.default_level || levels[0];
}

function req(cmd, args = {}, onPartial = null) {
  return S.client.request(cmd, args, onPartial);
}

function status(text, error = false) {
  const node = $("status");
  node.textContent = text;
  node.classList.toggle("error", error);
}

function showError(err) {
  status(err instanceof ProtocolError ? err.describe() : String(err.message || err), true);
}

// ---- matches: playing, hosting, watching -------------------------------------------------

function hashParams() {
  return new URLSearchParams(location.hash.slice(1));
}

async function resume() {
  const h = hashParams();
  if (h.get("m")) await attach(h.get("m"), h.get("t"));
  else if (h.get("w")) await attach(h.get("w"), null);
  else if (S.mode === "idle") showIdle();
}

async function attach(matchId, token) {
  S.mode = token ? "match" : "watch";
  S.match = { id: matchId, token };
  S.st = null;
  S.builder = null;
  history.replaceState(null, "", token ? `#m=${matchId}&t=${token}` : `#w=${matchId}`);
  clearAnalysis();
  try {
    await refresh();
  } catch (err) {
    S.mode = "idle";
    S.match = null;
    history.replaceState(null, "", "#");
    showError(err);
    render();
    return;
  }
  watch();
}

function watch() {
  if (!S.match || S.watching === S.match.id) return;
  const id = S.match.id;
  S.watching = id;
  req("match_watch", { match_id: id, after: S.st ? S.st.last_event : 0 }, () => {
    if (S.match?.id === id) refresh().catch(showError);
  }).then(() => {
    if (S.match?.id === id) refresh().catch(showError);
  }).catch(() => {}).finally(() => {
    if (S.watching === id) S.watching = null;
  });
}

async function refresh() {
  if (!S.match) return;
  const seq = ++S.refreshSeq;
  const args = { match_id: S.match.id };
  if (S.match.token) args.token = S.match.token;
  const st = await req("match_state", args);
  if (seq !== S.refreshSeq) return;
  const same = S.st && S.st.last_event === st.last_event && S.st.actions === st.actions;
  S.st = st;
  if (!(same && S.builder)) {
    S.builder = null;
    S.selected = null;
    S.hints = [];
    if (st.phase === "move" && st.you !== null && st.to_act === st.you && st.position_side === st.you) {
      const lm = await req("legal_moves", { position: st.position });
      if (seq !== S.refreshSeq) return;
      S.builder = new TurnBuilder(lm.plays, st.position.on_roll);
    }
  }
  render();
}

function viewer() {
  return S.st && S.st.you !== null && S.st.you !== undefined ? S.st.you : 0;
}

function matchView() {
  const st = S.st;
  const pos = st.position;
  const me = viewer();
  const variant = st.variant;
  const meOnRoll = st.position_side === me;
  let mine = (meOnRoll ? pos.on_roll : pos.opponent).slice();
  const theirs = mapTheirs(variant, meOnRoll ? pos.opponent : pos.on_roll);
  let sources = null;
  let targets = null;
  if (S.builder) {
    const b = S.builder.board();
    mine = b.mine;
    for (const p of b.hits) { theirs[p] -= 1; theirs[25] += 1; }
    if (S.selected !== null) targets = S.builder.targets(S.selected);
    else sources = S.builder.sources();
  }
  const cs = st.cube_state;
  return {
    variant, mine, theirs, sources, targets, selected: S.selected,
    dice: st.dice, diceOwner: st.turn === me ? "me" : "them",
    cube: cs ? { value: cs.value, owner: cs.owner === null ? null : cs.owner === me ? "me" : "them", pending: cs.pending } : null,
    score: [st.score[me], st.score[1 - me]], length: st.length,
  };
}

function sideName(side) {
  return playerName(S.st, side);
}

/** "You win the match 3-1" / "Bot (random) wins the game (gammon, 2 points)". */
function resultText() {
  const st = S.st;
  if (st.status === "closed") return "The match was closed before its end";
  const last = [...(st.history || [])].reverse().find((line) => /^[01] wins /.test(line));
  const what = st.length ? `the match ${st.score[0]}-${st.score[1]}` : "the game";
  return last ? winText(st, last, what) : `${says(st, st.winner, "win")} ${what}`;
}

function describeState() {
  const st = S.st;
  if (st.status === "over") {
    return `match over: ${st.winner === st.you ? "you win" : `${sideName(st.winner)} wins`} ${st.score[0]}-${st.score[1]}`;
  }
  if (st.status === "closed") return "the match was closed";
  if (st.phase === "resign" && st.resignation && st.to_act === st.you) {
    return `${sideName(st.resignation.side)} resigns (${st.resignation.name}): accept or reject`;
  }
  const who = st.to_act === null ? "" : st.to_act === st.you ? "your turn" : `waiting for ${sideName(st.to_act)}`;
  const what = { roll: "to roll", move: "to move", double: "to answer a double", resign: "to answer a resignation", opening: "opening roll" }[st.phase] || st.phase;
  if (st.to_act === st.you && st.phase === "move" && S.builder) {
    const play = S.builder.complete();
    const steps = formatSteps(S.builder.steps);
    if (play) return `your move: ${play.move || "no legal play"} — confirm (Enter) or undo`;
    return `your move${steps ? `: ${steps} …` : ""} — click a checker`;
  }
  return `${who} ${what}`.trim();
}

// ---- rendering ----------------------------------------------------------------------------

function render() {
  const body = document.body.dataset;
  body.mode = S.mode;
  const may = S.st && S.st.you !== null && S.st.you !== undefined ? S.st.may[S.st.you] : [];
  if ((S.mode === "match" || S.mode === "watch") && S.st) {
    drawBoard($("board"), matchView());
    body.phase = S.st.phase;
    body.toAct = String(S.st.to_act);
    body.you = String(S.st.you);
    body.status = S.st.status;
    body.lastEvent = String(S.st.last_event);
    body.matchId = S.st.match_id;
    body.game = String(S.st.game);
    if (!$("status").classList.contains("error") || S.st.last_event !== S.shownEvent) status(describeState());
    S.shownEvent = S.st.last_event;
    fill($("match-info"),
      h("div", { "data-testid": "players" }, `${sideName(0)} v ${sideName(1)}`),
      h("div", {}, `${S.st.variant}, ${S.st.length ? `${S.st.length}-point match` : "money game"}` +
        `${S.st.cube ? ", cube" : ""} — game ${S.st.game}, score ${S.st.score[0]}-${S.st.score[1]}`));
    const hist = $("history");
    fill(hist, moveLog(S.st).map((line) => h("li", {}, line)));
    hist.scrollTop = hist.scrollHeight;
    const over = S.st.status === "over" || S.st.status === "closed";
    $("game-over").hidden = !over;
    if (over) fill($("result"), resultText());
    $("review").disabled = S.st.status !== "over";
    staleAnalysis();
  } else if (S.mode === "editor" && S.ed) {
    drawBoard($("board"), { ...S.ed, dice: parseDice($("ed-dice").value) || [], diceOwner: "me", sources: null, targets: null });
    body.phase = "editor";
  } else if (S.mode === "review") {
    S.review.drawBoard();
    body.phase = "review";
  } else if (S.mode === "idle") {
    const start = startPosition($("variant").value);
    drawBoard($("board"), { variant: start.variant, mine: start.on_roll, theirs: mapTheirs(start.variant, start.opponent), dice: [], sources: null, targets: null });
    body.phase = "idle";
  }
  const reviewingIt = S.mode === "review" && S.st && S.review.source?.match_id === S.st.match_id;
  if (S.mode !== "match" && S.mode !== "watch" && !reviewingIt) $("game-over").hidden = true;
  const my = S.mode === "match" && S.st && S.st.to_act === S.st.you;
  $("roll").disabled = !(my && may.includes("roll"));
  $("double").disabled = !(my && may.includes("double"));
  $("take").disabled = !(my && may.includes("take"));
  $("drop").disabled = !(my && may.includes("drop"));
  $("resign").disabled = !(S.mode === "match" && may.includes("resign"));
  $("resign-points").disabled = $("resign").disabled;
  $("accept").disabled = !(my && may.includes("accept"));
  $("reject").disabled = !(my && may.includes("reject"));
  $("undo").disabled = !(S.builder && S.builder.steps.length);
  $("confirm").disabled = !(S.builder && S.builder.complete());
  $("hint").disabled = !(S.builder || S.mode === "editor");
  $("evaluate").disabled = !(S.st || S.ed);
  $("export").disabled = !S.match;
}

// The page's Content-Security-Policy forbids inline style attributes: widths are set
// on the elements (element.style), never written into markup.
function bars(p) {
  const pct = (x) => `${Math.max(0, Math.round(x * 1000) / 10)}%`;
  const lose = 1 - p.win;
  const part = (cls, x) => { const span = h("span", { class: cls }); span.style.width = pct(x); return span; };
  return h("div", { class: "bars", title: `win ${pct(p.win)} gammon/marcia ${pct(p.win_gammon)} backgammon/marcia per punto ${pct(p.win_backgammon)}; lose ${pct(lose)} gammon/marcia ${pct(p.lose_gammon)} backgammon/marcia per punto ${pct(p.lose_backgammon)}` },
    part("wb", p.win_backgammon), part("wg", p.win_gammon - p.win_backgammon), part("w", p.win - p.win_gammon),
    part("l", lose - p.lose_gammon), part("lg", p.lose_gammon - p.lose_backgammon), part("lb", p.lose_backgammon));
}

function fmt(x) { return (Math.round(x * 1000) / 10).toFixed(1); }

function signed(x, digits = 3) { return `${x >= 0 ? "+" : ""}${x.toFixed(digits)}`; }

/** Show `children` in the analysis area, as `kind` (hint, evaluation, review, editor). */
function showAnalysis(kind, ...children) {
  const area = $("analysis");
  fill(area, ...children);
  area.dataset.kind = kind;
  area.dataset.event = moment();
}

/** The moment of the match shown ("" outside a match): an answer asked for at one moment is not shown at another. */
function moment() {
  return S.st && S.mode !== "editor" ? `${S.st.match_id}:${S.st.last_event}` : "";
}

function clearAnalysis() {
  const area = $("analysis");
  area.replaceChildren();
  area.dataset.kind = "";
  S.hints = [];
}

// A hint or an evaluation is of one moment of the match: once the match moved on
// (a roll, a play, a cube action, either side's), it is taken away.
function staleAnalysis() {
  const area = $("analysis");
  if (!["hint", "evaluation"].includes(area.dataset.kind)) return;
  if (area.dataset.event !== `${S.st.match_id}:${S.st.last_event}`) clearAnalysis();
}

function showPlays(plays, ranked, title, kind) {
  const rows = plays.map((p, i) => {
    const move = p.move || "(no legal play)";
    const cells = ranked
      ? [signed(p.equity), fmt(p.win), fmt(p.win_gammon), fmt(p.win_backgammon), fmt(p.lose_gammon), fmt(p.lose_backgammon)].map((x) => h("td", {}, x))
        .concat(h("td", {}, bars(p)))
      : [h("td", {}, h("code", {}, p.position_id))];
    return h("tr", { class: "play", dataset: { index: i, testid: "play-row" } },
      h("td", {}, i + 1), h("td", { class: "move" }, h("b", {}, move)), cells);
  });
  const head = (ranked
    ? ["#", "play", "equity", "win%", "gammon/marcia%", "bg/mpp%", "lose g%", "lose bg%", ""]
    : ["#", "play", "position id"]).map((t) => h("th", {}, t));
  showAnalysis(kind, h("h3", {}, title), h("table", {}, h("tr", {}, head), rows));
}

// ---- actions --------------------------------------------------------------------------------

async function act(cmd, extra = {}) {
  const t0 = performance.now();
  try {
    await req(cmd, { match_id: S.match.id, token: S.match.token, ...extra });
    await refresh();
    requestAnimationFrame(() => timings.action.push(performance.now() - t0));
  } catch (err) {
    showError(err);
    await refresh().catch(() => {});
  }
}

async function confirmPlay() {
  const play = S.builder && S.builder.complete();
  if (!play) return;
  await act("match_move", { move: play.move || "pass" });
}

function clickBoard(event) {
  const t0 = performance.now();
  const point = pointAt(event);
  if (point === null) return;
  if (S.mode === "editor") {
    if (!$("panel-editor").hidden) editPoint(point); // the start board shown at load is not edited
    return;
  }
  const b = S.builder;
  if (!b) return;
  if (S.selected === null) {
    if (b.sources().has(point)) S.selected = point;
    else if (b.steps.length < 4) status(b.sources().size ? "no checker there can move: pick a highlighted point" : "no more steps: confirm or undo", true);
  } else if (point === S.selected) {
    S.selected = null;
  } else if (b.targets(S.selected).has(point)) {
    b.add(S.selected, point);
    S.selected = null;
    const next = b.sources();
    // a single checker that must go on: keep it selected
    if (next.size === 1 && !b.complete()) S.selected = [...next][0];
  } else if (b.sources().has(point)) {
    S.selected = point;
  } else {
    status(`${S.selected}/${point === 0 ? "off" : point} is not a legal step with these dice`, true);
    render();
    return;
  }
  $("status").classList.remove("error");
  render();
  requestAnimationFrame(() => timings.click.push(performance.now() - t0));
}

async function typedMove(text) {
  if (!text.trim()) return;
  if (S.mode === "match") {
    await act("match_move", { move: text.trim() });
    $("move-input").value = "";
  } else if (S.mode === "editor") {
    try {
      const r = await req("apply_move", { position: editorPosition(), dice: parseDice($("ed-dice").value), move: text.trim() });
      status(`legal: ${r.move || text} → ${r.position_id}`);
    } catch (err) { showError(err); }
  }
}

async function hint() {
  try {
    if (S.mode === "editor") return analyzeEditor();
    if (!S.st || !S.builder) return;
    status("analysing…");
    const asked = moment();
    const r = await req("analyze", { position: S.st.position, max_plays: 8, partials: false });
    if (moment() !== asked) return; // the match moved on while the hint was computed
    showPlays(r.plays, true, `Hint: ${r.plays.length} best plays (${r.plies}-ply), equity for you`, "hint");
    S.hints = r.plays;
    status(describeState());
  } catch (err) { showError(err); }
}

async function evaluate() {
  try {
    const position = S.mode === "editor" ? editorPosition() : S.st.position;
    const asked = moment();
    const r = await req("evaluate", { position: { ...position, dice: [] } });
    if (moment() !== asked) return; // the match moved on while the evaluation was computed
    const side = S.mode === "editor" ? "the side on roll" : `${sideName(S.st.position_side)} (on roll)`;
    showAnalysis(S.mode === "editor" ? "editor" : "evaluation",
      h("h3", { "data-testid": "evaluation" }, `Evaluation for ${side}: equity ${signed(r.equity)}`),
      h("p", {}, `win ${fmt(r.win)}% — gammon/marcia ${fmt(r.win_gammon)}% — backgammon/marcia per punto ${fmt(r.win_backgammon)}%; ` +
        `lose gammon/marcia ${fmt(r.lose_gammon)}% — lose backgammon/mpp ${fmt(r.lose_backgammon)}%`),
      bars(r));
  } catch (err) { showError(err); }
}

async function exportRecord() {
  try {
    const args = { match_id: S.match.id };
    if (S.match.token) args.token = S.match.token;
    const r = await req("match_export", args);
    const area = $("record");
    area.hidden = false;
    area.value = r.record;
    const a = document.createElement("a");
    a.href = URL.createObjectURL(new Blob([r.record], { type: "text/plain" }));
    a.download = `match-${S.match.id}.txt`;
    a.click();
    URL.revokeObjectURL(a.href);
  } catch (err) { showError(err); }
}

// ---- the position editor ----------------------------------------------------------------------

function parseDice(text) {
  const digits = (text || "").replace(/\D/g, "");
  return digits.length === 2 ? [Number(digits[0]), Number(digits[1])] : null;
}

function editorPosition() {
  const ed = S.ed;
  const opponent = new Array(26).fill(0);
  ed.theirs.forEach((c, p) => { opponent[theirsToMine(ed.variant, p)] += c; });
  const pos = { variant: ed.variant, on_roll: ed.mine, opponent };
  const dice = parseDice($("ed-dice").value);
  if (dice) pos.dice = dice;
  return pos;
}

function setEditor(position) {
  S.ed = { variant: position.variant, mine: position.on_roll.slice(), theirs: mapTheirs(position.variant, position.opponent) };
  $("ed-variant").value = position.variant;
  if (position.dice?.length) $("ed-dice").value = position.dice.join("");
}

async function editorChanged() {
  render();
  const seq = (S.edSeq = (S.edSeq || 0) + 1); // only the latest answer is shown
  $("ed-id").textContent = "";
  try {
    const r = await req("position", { position: { ...editorPosition(), dice: [] } });
    if (seq !== S.edSeq) return;
    $("ed-id").textContent = r.position_id;
    status("position ready");
  } catch (err) {
    if (seq === S.edSeq) showError(err);
  }
}

function editPoint(point) {
  const mode = document.querySelector("input[name=ed-mode]:checked").value;
  const ed = S.ed;
  if (mode === "mine") ed.mine[point] += 1;
  else if (mode === "theirs") ed.theirs[point] += 1;
  else if (ed.mine[point]) ed.mine[point] -= 1;
  else if (ed.theirs[point]) ed.theirs[point] -= 1;
  editorChanged();
}

/** No match yet: the starting position of the variant chosen to play, drawn at once
 * (before any connection). */
function showIdle() {
  S.mode = "idle";
  render();
  if (!$("status").classList.contains("error")) status("choose a variant and a bot level, then Start");
}

/** Leave the match shown (the address no longer names it) and show the start board. */
function leaveMatch() {
  S.match = null;
  S.st = null;
  S.builder = null;
  S.selected = null;
  history.replaceState(null, "", location.pathname + location.search);
  clearAnalysis();
  fill($("match-info"));
  fill($("history"));
  $("record").hidden = true;
  switchTab("play");
  showIdle();
}

/** The end-of-game panel's "New game": the same game against the same bot again, when
 * this page played a bot; otherwise the Play tab, to choose one. */
function newGameAfter() {
  const st = S.st;
  const bot = st && st.you !== null && st.seats.find((seat) => seat.player === "bot");
  leaveMatch();
  if (!bot) return;
  $("variant").value = st.variant;
  $("length").value = String(st.length);
  $("cube").checked = Boolean(st.cube);
  if ([...$("level").options].some((o) => o.value === bot.level)) $("level").value = bot.level;
  $("new-game").requestSubmit();
}

/** The finished match under review (the end-of-game panel's "Review"): the Review tab,
 * the match's record analysed by the daemon. */
async function review() {
  const st = S.st;
  if (!st || st.status !== "over") return;
  switchTab("review");
  await startReview({ match_id: st.match_id }, [playerName(st, 0), playerName(st, 1)]);
}

/** The Review tab's own loading: a hosted match id, or a record's text (typed, pasted or
 * read from a file). */
async function reviewLoaded() {
  const id = $("rv-id").value.trim();
  const text = $("rv-text").value;
  if (!id && !text.trim()) { status("give a record (a file or its text) or a hosted match id", true); return; }
  if (!id) { await startReview({ record: text }, namesOf(text)); return; }
  let names = [null, null];
  try {
    const st = await req("match_state", { match_id: id });
    names = [playerName(st, 0), playerName(st, 1)];
  } catch { /* the analysis says what is wrong with the id */ }
  await startReview({ match_id: id }, names);
}

async function startReview(source, names) {
  S.review.source = source;
  $("rv-export-sgf").disabled = true;
  $("rv-export-record").disabled = true;
  try {
    await S.review.start(source, names, Number($("rv-plies").value) || 0, reviewProgress);
    $("rv-export-sgf").disabled = !S.review.annotated("sgf");
    $("rv-export-record").disabled = !S.review.annotated("record");
  } catch (err) { showError(err); }
}

function reviewProgress(p) {
  const box = $("rv-progress-box");
  $("rv-cancel").disabled = p === null;
  box.hidden = p === null;
  document.body.dataset.reviewing = p === null ? "" : "yes";
  if (p === null) return;
  const bar = $("rv-progress");
  if (p.total) { bar.max = p.total; bar.value = p.done; }
  $("rv-progress-text").textContent = p.total ? `${p.done} / ${p.total}` : "starting…";
}

function enterReview() {
  S.mode = "review";
  clearAnalysis();
  render();
}

function exportReview(format) {
  const text = S.review.annotated(format);
  if (!text) return;
  const base = S.review.source?.match_id ? `match-${S.review.source.match_id}` : "match";
  download(text, `${base}-review.${format === "sgf" ? "sgf" : "jmat"}`);
}

async function showEditorStart() {
  S.mode = "editor";
  if (!S.ed) {
    const seq = (S.startSeq = (S.startSeq || 0) + 1); // the variant chosen last wins
    const r = await req("position", { position: `start:${$("ed-variant").value}` });
    if (seq !== S.startSeq) return;
    setEditor(r.position);
  }
  editorChanged();
}

async function analyzeEditor() {
  const dice = parseDice($("ed-dice").value);
  if (!dice) { status("give the dice (two digits) to analyse a play", true); return; }
  try {
    status("analysing…");
    const r = await req("analyze", { position: editorPosition(), dice, max_plays: 10, partials: false });
    showPlays(r.plays, true, `Analysis (${r.plies}-ply)`, "editor");
    status("analysis done");
  } catch (err) { showError(err); }
}

// ---- wiring ---------------------------------------------------------------------------------------

function switchTab(name) {
  for (const t of document.querySelectorAll(".tab")) t.classList.toggle("active", t.dataset.tab === name);
  for (const p of ["play", "host", "editor", "review"]) $(`panel-${p}`).hidden = p !== name;
  if (name === "editor") showEditorStart().catch(showError);
  else if (name === "review") { if (S.review.active) enterReview(); }
  else if (S.mode === "editor") { clearAnalysis(); showIdle(); }
  if (name !== "review" && S.mode === "review") {
    clearAnalysis();
    S.mode = S.match ? (S.match.token ? "match" : "watch") : "idle";
    if (S.mode === "idle") showIdle(); else render();
  }
}

function wire() {
  for (const t of document.querySelectorAll(".tab")) t.addEventListener("click", () => switchTab(t.dataset.tab));
  $("board").addEventListener("click", clickBoard);
  $("new-game").addEventListener("submit", async (e) => {
    e.preventDefault();
    try {
      const r = await req("match_new", {
        variant: $("variant").value, length: Number($("length").value) || 0,
        cube: $("cube").checked, seat0: "client", seat1: $("level").value,
        bot_time_ms: 2000,
      });
      $("status").classList.remove("error");
      await attach(r.match_id, r.tokens[0]);
    } catch (err) { showError(err); }
  });
  $("host-new").addEventListener("submit", async (e) => {
    e.preventDefault();
    try {
      const r = await req("match_new", {
        variant: $("host-variant").value, length: Number($("host-length").value) || 0,
        cube: $("host-cube").checked, seat0: "client", seat1: "client",
      });
      const base = `${location.origin}${location.pathname}`;
      const code = (testid, text) => h("code", { "data-testid": testid }, text);
      fill($("host-links"),
        h("p", {}, "Match ", code("host-id", r.match_id), ". Give each player their own link (it holds the seat's token):"),
        h("p", {}, "Player 1: ", code("seat0-link", `${base}#m=${r.match_id}&t=${r.tokens[0]}`)),
        h("p", {}, "Player 2: ", code("seat1-link", `${base}#m=${r.match_id}&t=${r.tokens[1]}`)),
        h("p", {}, "Watchers: ", code("watch-link", `${base}#w=${r.match_id}`)),
        h("p", {}, "Tokens: ", code("token0", r.tokens[0]), " ", code("token1", r.tokens[1])));
      status("match created: share the links");
    } catch (err) { showError(err); }
  });
  $("join").addEventListener("submit", (e) => {
    e.preventDefault();
    attach($("join-id").value.trim(), $("join-token").value.trim());
  });
  $("watch").addEventListener("submit", (e) => {
    e.preventDefault();
    attach($("watch-id").value.trim(), null);
  });
  $("roll").addEventListener("click", () => act("match_roll"));
  $("double").addEventListener("click", () => act("match_double"));
  $("take").addEventListener("click", () => act("match_take"));
  $("drop").addEventListener("click", () => act("match_drop"));
  $("resign").addEventListener("click", () => act("match_resign", { points: $("resign-points").value }));
  $("accept").addEventListener("click", () => act("match_resign", { answer: "accept" }));
  $("reject").addEventListener("click", () => act("match_resign", { answer: "reject" }));
  $("undo").addEventListener("click", () => { if (S.builder) { S.builder.undo(); S.selected = null; render(); status(describeState()); } });
  $("confirm").addEventListener("click", confirmPlay);
  $("hint").addEventListener("click", hint);
  $("evaluate").addEventListener("click", evaluate);
  $("export").addEventListener("click", exportRecord);
  $("again").addEventListener("click", newGameAfter);
  $("review").addEventListener("click", review);
  $("rv-load").addEventListener("submit", (e) => { e.preventDefault(); reviewLoaded(); });
  $("rv-cancel").addEventListener("click", () => S.review.cancel());
  $("rv-file").addEventListener("change", async () => {
    const file = $("rv-file").files[0];
    if (!file) return;
    $("rv-text").value = await file.text();
    $("rv-id").value = "";
  });
  $("rv-export-sgf").addEventListener("click", () => exportReview("sgf"));
  $("rv-export-record").addEventListener("click", () => exportReview("record"));
  $("variant").addEventListener("change", () => { if (S.mode === "idle") render(); });
  $("analysis").addEventListener("click", (e) => {
    const row = e.target.closest("tr.play");
    if (row && S.builder && S.hints.length && e.currentTarget.dataset.kind === "hint") {
      S.builder.choose(S.hints[Number(row.dataset.index)]);
      S.selected = null;
      render();
      status(describeState());
    }
  });
  $("move-form").addEventListener("submit", (e) => { e.preventDefault(); typedMove($("move-input").value); });
  $("ed-load").addEventListener("submit", async (e) => {
    e.preventDefault();
    try {
      const r = await req("position", { position: $("ed-text").value.trim() });
      S.mode = "editor";
      setEditor(r.position);
      editorChanged();
    } catch (err) { showError(err); }
  });
  $("ed-start").addEventListener("click", () => { S.ed = null; showEditorStart().catch(showError); });
  $("ed-clear").addEventListener("click", () => {
    S.ed = { variant: $("ed-variant").value, mine: new Array(26).fill(0), theirs: new Array(26).fill(0) };
    editorChanged();
  });
  $("ed-variant").addEventListener("change", () => { S.ed = null; showEditorStart().catch(showError); });
  $("ed-dice").addEventListener("change", () => render());
  $("ed-legal").addEventListener("click", async () => {
    try {
      const dice = parseDice($("ed-dice").value);
      if (!dice) { status("give the dice (two digits)", true); return; }
      const r = await req("legal_moves", { position: editorPosition(), dice });
      showPlays(r.plays, false, `${r.count} legal plays`, "editor");
    } catch (err) { showError(err); }
  });
  $("ed-analyze").addEventListener("click", analyzeEditor);
  $("token-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    sessionStorage.setItem("jacquetd-token", $("server-token").value.trim());
    if (await connect()) { status("connected"); resume(); }
  });
  window.addEventListener("hashchange", () => resume().catch(showError));
  document.addEventListener("keydown", (e) => {
    const typing = ["INPUT", "SELECT", "TEXTAREA"].includes(e.target.tagName);
    if (typing) {
      if (e.key === "Escape") e.target.blur();
      return;
    }
    const keys = {
      r: () => !$("roll").disabled && act("match_roll"),
      d: () => !$("double").disabled && act("match_double"),
      t: () => !$("take").disabled && act("match_take"),
      u: () => $("undo").click(),
      Backspace: () => $("undo").click(),
      Enter: () => confirmPlay(),
      h: () => hint(),
      e: () => evaluate(),
      m: () => $("move-input").focus(),
    };
    if (S.mode === "review" && !e.ctrlKey && !e.metaKey && !e.altKey && S.review.key(e.key)) {
      e.preventDefault();
      return;
    }
    if (keys[e.key] && !e.ctrlKey && !e.metaKey && !e.altKey) {
      e.preventDefault();
      keys[e.key]();
    }
  });
}

S.review = new Review({
  req, nextId: () => S.client.nextId, status, showError, showAnalysis,
  enter: enterReview, board: $("board"),
});
wire();
showIdle(); // the board is drawn before any connection
connect().then((ok) => ok && resume()).catch(showError);
