// How the page names the players and writes the move log, from a match_state.
//
// The viewer's own seat is "You"; a bot seat is named by its level ("Bot (neural-2)");
// another client's seat by the name it was given, else "Player 1" / "Player 2". The
// move log has one format, each line led by the player's name:
//   "Bot (random) 6-5: 24/18 13/11", "You double to 2", "You win 1 point (single, bear-off)".

/** The name the page shows for `side` (0 or 1) of the match `st`. */
export function playerName(st, side) {
  if (side === st.you) return "You";
  const seat = st.seats[side] || {};
  if (seat.player === "bot") return `Bot (${seat.level || seat.name || "bot"})`;
  return seat.name || `Player ${side + 1}`;
}

/** "You win" / "Bot (random) wins": `verb` agreeing with the name. */
export function says(st, side, verb) {
  return side === st.you ? `You ${verb}` : `${playerName(st, side)} ${verbS(verb)}`;
}

function verbS(verb) {
  const [first, ...rest] = verb.split(" ");
  const third = first.endsWith("s") || first.endsWith("sh") ? `${first}es` : `${first}s`;
  return [third, ...rest].join(" ");
}

const REASONS = { "bear-off": "", drop: "the double dropped", resign: "by resignation" };

/** A record's result line ("1 wins 2 bear-off gammon") as "Bot (random) wins 2 points
 * (gammon)"; `what` replaces "N points" ("the match 3-1"). */
export function winText(st, line, what = null) {
  const [side, , pts, reason, ...name] = line.trim().split(/\s+/);
  const how = [name.join(" "), REASONS[reason] ?? reason, what && points(pts)].filter(Boolean).join(", ");
  return `${says(st, Number(side), "win")} ${what || points(pts)}${how ? ` (${how})` : ""}`;
}

const dice = (word) => word.replace(/\D/g, "").split("").join("-");
const points = (n) => `${n} point${Number(n) === 1 ? "" : "s"}`;
const moveText = (m) => (m === "pass" ? "no legal play" : m);

/**
 * The move log of `st` (its `history`: the game lines of its record, RECORDS.md) as
 * lines of text in the one format above. A roll whose play is not made yet reads
 * "NAME 6-5: …".
 */
export function moveLog(st) {
  const out = [];
  let opening = null; // the opening roll, played by the starter without a roll line
  let rolled = null; // {side, dice, index} of a roll line not yet followed by its move
  for (const line of st.history || []) {
    const words = line.trim().split(/\s+/);
    if (words[0] === "game") {
      out.push(`Game ${words[1]} — score ${words[3]}-${words[4]}${words.includes("crawford") ? ", Crawford game" : ""}`);
      opening = null;
      rolled = null;
      continue;
    }
    if (words[0] === "opening") {
      opening = [Number(words[1]), Number(words[2])];
      out.push(`Opening roll: ${playerName(st, 0)} ${words[1]}, ${playerName(st, 1)} ${words[2]}`);
      continue;
    }
    const side = Number(words[0]);
    if (side !== 0 && side !== 1) { out.push(line); continue; }
    const kind = words[1];
    if (kind === "wins") {
      out.push(winText(st, line));
      continue;
    }
    if (/^\d+:$/.test(kind)) { // "S DD: move"
      out.push(`${playerName(st, side)} ${dice(kind)}: ${moveText(words.slice(2).join(" "))}`);
      rolled = null;
      opening = null;
      continue;
    }
    if (kind === "roll") {
      rolled = { side, dice: dice(words[2]), index: out.length };
      out.push(`${playerName(st, side)} ${rolled.dice}: …`);
      continue;
    }
    if (kind === "move") {
      const move = moveText(words.slice(2).join(" "));
      if (rolled && rolled.side === side) {
        out[rolled.index] = `${playerName(st, side)} ${rolled.dice}: ${move}`;
      } else {
        const d = opening ? `${Math.max(...opening)}-${Math.min(...opening)}` : "";
        out.push(`${playerName(st, side)}${d ? ` ${d}` : ""}: ${move}`);
      }
      rolled = null;
      opening = null;
      continue;
    }
    const value = words[2];
    const said = {
      double: () => `${says(st, side, "double")} to ${value}`,
      take: () => says(st, side, "take"),
      drop: () => says(st, side, "drop"),
      resign: () => `${says(st, side, "offer")} to resign (${points(value)})`,
      accept: () => `${says(st, side, "accept")} the resignation`,
      reject: () => `${says(st, side, "reject")} the resignation`,
    }[kind];
    out.push(said ? said() : `${playerName(st, side)} ${words.slice(1).join(" ")}`);
  }
  return out;
}
