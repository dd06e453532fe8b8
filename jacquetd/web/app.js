// The web app: plays, hosts, watches and analyses through the daemon's WebSocket
// endpoint (JSON). A game against the bot is a hosted match with a bot seat, so one
// code path serves both; the page's address keeps the match and seat (#m=ID&t=TOKEN,
// #w=ID to watch), so a reload resumes where it was.

import { Client, ProtocolError } from "./client.js";
import { drawBoard, mapTheirs, pointAt, theirsToMine } from "./board.js";
import { TurnBuilder, formatSteps } from "./moves.js";

const $ = (id) => document.getElementById(id);
const S = {
  client: null,
  hello: null,
  mode: "idle", // idle | match | watch | editor
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

async function connect() {
  $("conn").textContent = "connecting…";
  const client = new Client(wsUrl());
  try {
    await client.connect();
  } catch {
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
  client.onclose = () => {
    $("conn").textContent = "disconnected: reconnecting…";
    document.body.dataset.conn = "closed";
    S.watching = null;
    setTimeout(() => connect().then((ok) => ok && resume()), 1000);
  };
  S.hello = await client.request("hello", { client: "jacquetd-web" });
  $("conn").textContent = `connected: ${S.hello.engine?.name || "jacquetd"} protocol ${S.hello.protocol}`;
  document.body.dataset.conn = "open";
  fillLevels();
  return true;
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
  else if (S.mode === "idle") showEditorStart();
}

async function attach(matchId, token) {
  S.mode = token ? "match" : "watch";
  S.match = { id: matchId, token };
  S.st = null;
  S.builder = null;
  history.replaceState(null, "", token ? `#m=${matchId}&t=${token}` : `#w=${matchId}`);
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
  const seat = S.st.seats[side];
  const name = seat.name || (seat.player === "bot" ? `bot ${seat.level || ""}` : `side ${side}`);
  return side === S.st.you ? `you (${name || side})` : name;
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
    $("match-info").textContent = `${S.st.variant}, ${S.st.length ? `${S.st.length}-point match` : "money game"}` +
      `${S.st.cube ? ", cube" : ""} — game ${S.st.game}, score ${S.st.score[0]}-${S.st.score[1]}` +
      ` — ${sideName(0)} v ${sideName(1)}`;
    const hist = $("history");
    hist.replaceChildren(...S.st.history.map((line) => { const li = document.createElement("li"); li.textContent = line; return li; }));
    hist.scrollTop = hist.scrollHeight;
  } else if (S.mode === "editor" && S.ed) {
    drawBoard($("board"), { ...S.ed, dice: parseDice($("ed-dice").value) || [], diceOwner: "me", sources: null, targets: null });
    body.phase = "editor";
  }
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

function bars(p) {
  const pct = (x) => `${Math.max(0, Math.round(x * 1000) / 10)}%`;
  const lose = 1 - p.win;
  return `<div class="bars" title="win ${pct(p.win)} gammon/marcia ${pct(p.win_gammon)} backgammon/marcia per punto ${pct(p.win_backgammon)}; lose ${pct(lose)} gammon/marcia ${pct(p.lose_gammon)} backgammon/marcia per punto ${pct(p.lose_backgammon)}">` +
    `<span class="wb" data-w="${pct(p.win_backgammon)}"></span>` +
    `<span class="wg" data-w="${pct(p.win_gammon - p.win_backgammon)}"></span>` +
    `<span class="w" data-w="${pct(p.win - p.win_gammon)}"></span>` +
    `<span class="l" data-w="${pct(lose - p.lose_gammon)}"></span>` +
    `<span class="lg" data-w="${pct(p.lose_gammon - p.lose_backgammon)}"></span>` +
    `<span class="lb" data-w="${pct(p.lose_backgammon)}"></span></div>`;
}

// The page's Content-Security-Policy forbids inline style attributes: widths are set here.
function applyBars(root) {
  for (const span of root.querySelectorAll("span[data-w]")) span.style.width = span.dataset.w;
}

function fmt(x) { return (Math.round(x * 1000) / 10).toFixed(1); }

function showPlays(plays, ranked, title) {
  const rows = plays.map((p, i) => {
    const move = p.move || "(no legal play)";
    const cells = ranked
      ? `<td>${p.equity >= 0 ? "+" : ""}${p.equity.toFixed(3)}</td><td>${fmt(p.win)}</td><td>${fmt(p.win_gammon)}</td><td>${fmt(p.win_backgammon)}</td><td>${fmt(p.lose_gammon)}</td><td>${fmt(p.lose_backgammon)}</td><td>${bars(p)}</td>`
      : `<td><code>${p.position_id}</code></td>`;
    return `<tr class="play" data-index="${i}" data-testid="play-row"><td>${i + 1}</td><td class="move"><b>${move}</b></td>${cells}</tr>`;
  }).join("");
  const head = ranked
    ? "<th>#</th><th>play</th><th>equity</th><th>win%</th><th>gammon/marcia%</th><th>bg/mpp%</th><th>lose g%</th><th>lose bg%</th><th></th>"
    : "<th>#</th><th>play</th><th>position id</th>";
  $("analysis").innerHTML = `<h3>${title}</h3><table><tr>${head}</tr>${rows}</table>`;
  applyBars($("analysis"));
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
    const r = await req("analyze", { position: S.st.position, max_plays: 8, partials: false });
    S.hints = r.plays;
    showPlays(r.plays, true, `Hint: ${r.plays.length} best plays (${r.plies}-ply), equity for you`);
    status(describeState());
  } catch (err) { showError(err); }
}

async function evaluate() {
  try {
    const position = S.mode === "editor" ? editorPosition() : S.st.position;
    const r = await req("evaluate", { position: { ...position, dice: [] } });
    const side = S.mode === "editor" ? "the side on roll" : S.st.position_side === S.st.you ? "you (on roll)" : `${sideName(S.st.position_side)} (on roll)`;
    $("analysis").innerHTML = `<h3 data-testid="evaluation">Evaluation for ${side}: equity ${r.equity >= 0 ? "+" : ""}${r.equity.toFixed(3)}</h3>` +
      `<p>win ${fmt(r.win)}% — gammon/marcia ${fmt(r.win_gammon)}% — backgammon/marcia per punto ${fmt(r.win_backgammon)}%; ` +
      `lose gammon/marcia ${fmt(r.lose_gammon)}% — lose backgammon/mpp ${fmt(r.lose_backgammon)}%</p>${bars(r)}`;
    applyBars($("analysis"));
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
    showPlays(r.plays, true, `Analysis (${r.plies}-ply)`);
    status("analysis done");
  } catch (err) { showError(err); }
}

// ---- wiring ---------------------------------------------------------------------------------------

function switchTab(name) {
  for (const t of document.querySelectorAll(".tab")) t.classList.toggle("active", t.dataset.tab === name);
  for (const p of ["play", "host", "editor"]) $(`panel-${p}`).hidden = p !== name;
  if (name === "editor") showEditorStart().catch(showError);
}

function wire() {
  for (const t of document.querySelectorAll(".tab")) t.addEventListener("click", () => switchTab(t.dataset.tab));
  $("board").addEventListener("click", clickBoard);
  $("new-game").addEventListener("submit", async (e) => {
    e.preventDefault();
    try {
      const r = await req("match_new", {
        variant: $("variant").value, length: Number($("length").value) || 0,
        cube: $("cube").checked, seat0: "client", seat1: $("level").value, name0: "you",
        bot_time_ms: 2000,
      });
      $("analysis").replaceChildren();
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
      $("host-links").innerHTML = `<p>Match <code data-testid="host-id">${r.match_id}</code>. Give each player their own link (it holds the seat's token):</p>` +
        `<p>Side 0: <code data-testid="seat0-link">${base}#m=${r.match_id}&t=${r.tokens[0]}</code></p>` +
        `<p>Side 1: <code data-testid="seat1-link">${base}#m=${r.match_id}&t=${r.tokens[1]}</code></p>` +
        `<p>Watchers: <code data-testid="watch-link">${base}#w=${r.match_id}</code></p>` +
        `<p>Tokens: <code data-testid="token0">${r.tokens[0]}</code> <code data-testid="token1">${r.tokens[1]}</code></p>`;
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
  $("analysis").addEventListener("click", (e) => {
    const row = e.target.closest("tr.play");
    if (row && S.builder && S.hints.length) {
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
      showPlays(r.plays, false, `${r.count} legal plays`);
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
    if (keys[e.key] && !e.ctrlKey && !e.metaKey && !e.altKey) {
      e.preventDefault();
      keys[e.key]();
    }
  });
}

wire();
connect().then((ok) => ok && resume()).catch(showError);
