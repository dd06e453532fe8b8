"""What `jacquet-analyze` shows of a match review: the terminal summary and the HTML report.

Both read the report map the program prints with `--json`: the record's facts
(`file`, `format`, `variant`, `length`, `players`) and the daemon's
`analyze_record` result (`analysis`, protocol/SPEC.md), plus `numbers`, the move
number of each decision. The HTML page is one self-contained file: inline CSS and
inline SVG, no scripts, nothing fetched. Every text that comes from the record (names,
moves, the file's name) is escaped.

The board of a marked decision is drawn from the structured position before it
(protocol/SPEC.md 5.1, seen by the side on roll, who sits at the bottom): points 13-24
along the top, 12-1 along the bottom, the bar in the middle, the borne-off checkers at
the right, the cube at the left (in the middle when centred, on its owner's side
otherwise), the dice in the right half.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

from .board import board_points, pips

MARKS = ("doubtful", "error", "blunder")
UNITS = {"money": "money equity (cubeless for checker play, cubeful for cube decisions)",
         "match": "EMG (match-winning chances converted to normalised equity)"}
CUBE_WORDS = {"double": "double", "no_double": "no double", "take": "take", "pass": "pass"}

Report = Mapping[str, Any]


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def decisions(report: Report) -> list[dict[str, Any]]:
    """Every checker and cube decision, in the match's order (game, then action): each a
    copy of its entry with `kind` (`move` or `cube`) and `number` (its move number)."""
    analysis = report["analysis"]
    numbers = report.get("numbers") or {}
    out: list[dict[str, Any]] = []
    for kind, entries in (("move", analysis.get("moves", [])),
                          ("cube", analysis.get("cube", []))):
        for entry in entries:
            out.append(dict(entry, kind=kind,
                            number=numbers.get(f"{entry['game']}:{entry['index']}", 0)))
    out.sort(key=lambda d: (d["game"], d["index"], d["kind"] == "move"))
    return out


def marked(report: Report) -> list[dict[str, Any]]:
    """The decisions with a mark (doubtful, error or blunder), in order."""
    return [d for d in decisions(report) if d.get("mark")]


def units_of(report: Report) -> str:
    return "match" if int(report.get("length") or 0) > 0 else "money"


def played_text(entry: Mapping[str, Any]) -> tuple[str, str]:
    """(played, best) as words: a move's text (`pass` for no move), a cube action."""
    if entry["kind"] == "cube":
        return CUBE_WORDS.get(entry["action"], entry["action"]), CUBE_WORDS.get(
            entry["best"], entry["best"])
    return entry["move"] or "pass", entry["best"] or "pass"


def summary_rows(report: Report) -> list[tuple[str, str, str]]:
    """The per-player table: (what, player 0's figure, player 1's figure)."""
    summary = report["analysis"].get("summary") or []
    if len(summary) < 2:
        return []
    a, b = summary[0], summary[1]

    def row(label: str, fmt: str, get: Any) -> tuple[str, str, str]:
        x, y = (fmt.format(get(s)) if get(s) is not None else "n/a" for s in (a, b))
        return label, x, y

    def marks(key: str) -> Any:
        return lambda s: "/".join(str(s[key].get(m, 0)) for m in MARKS)

    return [
        row("checker decisions", "{}", lambda s: s["decisions"]),
        row("forced moves", "{}", lambda s: s["forced"]),
        row("doubtful/errors/blunders", "{}", marks("marks")),
        row("checker loss", "{:.3f}", lambda s: s["loss"]),
        row("cube decisions", "{}", lambda s: s["cube_decisions"]),
        row("cube doubtful/errors/blunders", "{}", marks("cube_marks")),
        row("cube loss", "{:.3f}", lambda s: s["cube_loss"]),
        row("total loss", "{:.3f}", lambda s: s["loss"] + s["cube_loss"]),
        row("error rate (per decision)", "{:.4f}", lambda s: s["error_rate"]),
        row("PR", "{:.2f}", lambda s: s["pr"]),
        row("luck", "{:+.3f}", lambda s: s.get("luck")),
        row("luck per game", "{:+.3f}", lambda s: s.get("luck_per_game")),
    ]


def describe(report: Report) -> str:
    """One line: the file, its format, the variant, the length and the players."""
    length = int(report.get("length") or 0)
    kind = f"match to {length}" if length else "money game"
    p0, p1 = report["players"]
    return (f"{report['file']} ({report['analysis'].get('format', '?')}): "
            f"{report['variant']}, {kind}, {p0} vs {p1}")


def coverage(report: Report) -> str:
    """How much was analysed, at what depth, in which units."""
    a = report["analysis"]
    done, total = a.get("done"), a.get("total")
    part = f"{done} of {total} actions" if done is not None else "the record"
    stopped = " (stopped early: the figures cover the actions done)" if a.get("stopped") else ""
    return (f"analysed at {a.get('plies', 0)} plies, {part}{stopped}; "
            f"figures in {UNITS[units_of(report)]}")


def terminal_summary(report: Report) -> str:
    """The text `jacquet-analyze` prints: the description, the per-player table and the
    marked decisions (game, move number, player, dice, played, best, cost, mark)."""
    players = report["players"]
    rows = summary_rows(report)
    lines = [describe(report), coverage(report), ""]
    width = max([len(r[0]) for r in rows] + [10])
    col = max(10, *(len(p) + 2 for p in players))
    lines.append(f"{'':<{width}}{players[0]:>{col}}{players[1]:>{col}}")
    lines += [f"{label:<{width}}{x:>{col}}{y:>{col}}" for label, x, y in rows]
    a = report["analysis"]
    t = a.get("thresholds") or {}
    if t:
        lines.append("marks from " + ", ".join(f"{m} {t[m]:g}" for m in MARKS if m in t))
    found = marked(report)
    lines += ["", f"Marked decisions ({len(found)}):"]
    if found:
        table = [("game", "move", "player", "dice", "played", "best", "cost", "mark")]
        for d in found:
            played, best = played_text(d)
            dice = "-".join(map(str, d["dice"])) if d["kind"] == "move" else "cube"
            table.append((str(d["game"]), str(d["number"]), players[d["side"]], dice, played,
                          best, f"{d['loss']:.3f}", d["mark"]))
        widths = [max(len(r[i]) for r in table) for i in range(len(table[0]))]
        for r in table:
            lines.append("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip())
    return "\n".join(lines) + "\n"


def combine(reports: Sequence[Report]) -> list[dict[str, Any]]:
    """Each player's figures over several analysed records (a league's matches), by the
    player's name: matches, decisions, marks, losses, the error rate over all its
    decisions and the PR, and its luck."""
    by_name: dict[str, dict[str, Any]] = {}
    for report in reports:
        summary = report["analysis"].get("summary") or []
        games = len(report["analysis"].get("games") or [])
        for side, s in enumerate(summary[:2]):
            name = report["players"][side]
            row = by_name.setdefault(name, {
                "player": name, "matches": 0, "games": 0, "decisions": 0, "forced": 0,
                "marks": dict.fromkeys(MARKS, 0), "loss": 0.0, "cube_decisions": 0,
                "cube_marks": dict.fromkeys(MARKS, 0), "cube_loss": 0.0, "luck": None})
            row["matches"] += 1
            row["games"] += games
            for key in ("decisions", "forced", "cube_decisions"):
                row[key] += s[key]
            row["loss"] += s["loss"]
            row["cube_loss"] += s["cube_loss"]
            for key in ("marks", "cube_marks"):
                for m in MARKS:
                    row[key][m] += s[key].get(m, 0)
            if s.get("luck") is not None:
                row["luck"] = (row["luck"] or 0.0) + s["luck"]
    out = []
    for row in by_name.values():
        decided = row["decisions"] + row["cube_decisions"]
        rate = (row["loss"] + row["cube_loss"]) / decided if decided else 0.0
        row.update(loss=round(row["loss"], 6), cube_loss=round(row["cube_loss"], 6),
                   error_rate=round(rate, 6), pr=round(500.0 * rate, 2),
                   luck=None if row["luck"] is None else round(row["luck"], 6))
        out.append(row)
    return sorted(out, key=lambda r: (r["error_rate"], r["player"]))


def combined_summary(rows: list[dict[str, Any]], files: int) -> str:
    """The table `jacquet-analyze` prints after several records: one line a player, the
    lowest error rate first."""
    head = ("player", "matches", "decisions", "doubtful/errors/blunders", "cube errors",
            "loss", "error rate", "PR", "luck")
    table = [head]
    for r in rows:
        table.append((r["player"], str(r["matches"]), str(r["decisions"] + r["cube_decisions"]),
                      "/".join(str(r["marks"][m] + r["cube_marks"][m]) for m in MARKS),
                      str(r["cube_marks"]["error"] + r["cube_marks"]["blunder"]),
                      f"{r['loss'] + r['cube_loss']:.3f}", f"{r['error_rate']:.4f}",
                      f"{r['pr']:.2f}", "n/a" if r["luck"] is None else f"{r['luck']:+.3f}"))
    widths = [max(len(t[i]) for t in table) for i in range(len(head))]
    lines = [f"All {files} records, by player:"]
    lines += ["  ".join(c.ljust(w) for c, w in zip(t, widths, strict=True)).rstrip()
              for t in table]
    return "\n".join(lines) + "\n"


# -- SVG: the board ---------------------------------------------------------------------

PW, PH = 26, 110            # a point's width and height
MARGIN, BAR_W, OFF_W = 14, 30, 34
BOARD_W = MARGIN + 12 * PW + BAR_W + OFF_W + MARGIN
BOARD_H = 2 * MARGIN + 2 * PH + 30
CHECKER_R = 11
COLOURS = ({"fill": "#f6f1e1", "stroke": "#555", "text": "#222"},
           {"fill": "#2b2b2b", "stroke": "#000", "text": "#fff"})


def _point_x(p: int) -> float:
    """Left edge of the viewer's point p: 13-24 left to right on top, 12-1 at the bottom."""
    col = p - 13 if p >= 13 else 12 - p
    return MARGIN + col * PW + (BAR_W if col >= 6 else 0)


def _checker(x: float, y: float, side: int, label: str = "") -> str:
    c = COLOURS[side]
    out = (f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{CHECKER_R}" fill="{c["fill"]}" '
           f'stroke="{c["stroke"]}"/>')
    if label:
        out += (f'<text x="{x:.1f}" y="{y + 4:.1f}" text-anchor="middle" font-size="11" '
                f'fill="{c["text"]}">{_e(label)}</text>')
    return out


def _stack(x: float, top: bool, count: int, side: int, height: float = PH) -> list[str]:
    """`count` checkers from the edge of a point (top or bottom), five at most drawn, the
    fifth labelled with the count when there are more."""
    shown = min(count, 5)
    step = min(2 * CHECKER_R, (height - 2) / max(shown, 1))
    out = []
    for i in range(shown):
        y = (MARGIN + CHECKER_R + i * step) if top else (BOARD_H - MARGIN - CHECKER_R - i * step)
        out.append(_checker(x, y, side, str(count) if (i == shown - 1 and count > 5) else ""))
    return out


def _die(x: float, y: float, value: int) -> str:
    spots = {1: [(1, 1)], 2: [(0, 0), (2, 2)], 3: [(0, 0), (1, 1), (2, 2)],
             4: [(0, 0), (2, 0), (0, 2), (2, 2)], 5: [(0, 0), (2, 0), (1, 1), (0, 2), (2, 2)],
             6: [(0, 0), (2, 0), (0, 1), (2, 1), (0, 2), (2, 2)]}
    size = 22
    out = [f'<rect x="{x:.1f}" y="{y:.1f}" width="{size}" height="{size}" rx="4" fill="#fff" '
           'stroke="#333"/>']
    for cx, cy in spots.get(value, []):
        out.append(f'<circle cx="{x + 5 + cx * 6:.1f}" cy="{y + 5 + cy * 6:.1f}" r="2.2" '
                   'fill="#222"/>')
    return "".join(out)


def board_svg(position: Mapping[str, Any], on_roll: int, names: Sequence[str], *,
              same_direction: bool) -> str:
    """The board of `position` (seen by `on_roll`, side 0 or 1, drawn at the bottom) as an
    inline SVG element: points, checkers, bar, borne off, cube and dice; `names` are
    side 0's and side 1's; `same_direction` is the variant's geometry (G3, else G4)."""
    me, them = on_roll, 1 - on_roll
    mine, theirs = position["on_roll"], position["opponent"]
    parts = [f'<svg class="board" width="{BOARD_W}" height="{BOARD_H}" '
             f'viewBox="0 0 {BOARD_W} {BOARD_H}" role="img" '
             f'aria-label="board, {_e(names[me])} on roll">',
             f'<rect x="0" y="0" width="{BOARD_W}" height="{BOARD_H}" fill="#7a5230" rx="6"/>',
             f'<rect x="{MARGIN}" y="{MARGIN}" width="{12 * PW + BAR_W}" '
             f'height="{BOARD_H - 2 * MARGIN}" fill="#e9d8a6"/>']
    bar_x = MARGIN + 6 * PW
    parts.append(f'<rect x="{bar_x}" y="{MARGIN}" width="{BAR_W}" '
                 f'height="{BOARD_H - 2 * MARGIN}" fill="#7a5230"/>')
    for p in range(1, 25):
        x = _point_x(p)
        top = p >= 13
        colour = "#b5523b" if p % 2 else "#3f6f8f"
        if top:
            pts = f"{x},{MARGIN} {x + PW},{MARGIN} {x + PW / 2},{MARGIN + PH}"
            ly = MARGIN - 3
        else:
            pts = (f"{x},{BOARD_H - MARGIN} {x + PW},{BOARD_H - MARGIN} "
                   f"{x + PW / 2},{BOARD_H - MARGIN - PH}")
            ly = BOARD_H - 3
        parts.append(f'<polygon points="{pts}" fill="{colour}"/>')
        parts.append(f'<text x="{x + PW / 2}" y="{ly}" text-anchor="middle" font-size="9" '
                     f'fill="#fff">{p}</text>')
    for p, (owner, count) in sorted(board_points(position,
                                                 same_direction=same_direction).items()):
        side = me if owner == "mine" else them
        parts += _stack(_point_x(p) + PW / 2, p >= 13, count, side)
    centre = bar_x + BAR_W / 2
    mid = BOARD_H / 2
    if theirs[25]:
        parts.append(_checker(centre, mid - 2 * CHECKER_R - 4, them, str(theirs[25])))
    if mine[25]:
        parts.append(_checker(centre, mid + 2 * CHECKER_R + 4, me, str(mine[25])))
    off_x = MARGIN + 12 * PW + BAR_W + 4
    parts.append(f'<rect x="{off_x}" y="{MARGIN}" width="{OFF_W - 8}" '
                 f'height="{BOARD_H - 2 * MARGIN}" fill="#5c3d22"/>')
    for count, side, y in ((theirs[0], them, MARGIN + 16), (mine[0], me, BOARD_H - MARGIN - 8)):
        if count:
            c = COLOURS[side]
            parts.append(f'<rect x="{off_x + 2}" y="{y - 12}" width="{OFF_W - 12}" height="16" '
                         f'fill="{c["fill"]}" stroke="{c["stroke"]}"/>'
                         f'<text x="{off_x + (OFF_W - 8) / 2}" y="{y}" text-anchor="middle" '
                         f'font-size="11" fill="{c["text"]}">{count}</text>')
    cube = position.get("cube")
    if cube:
        owner = cube.get("owner", "centre")
        cy = {"centre": mid - 11, "on_roll": BOARD_H - MARGIN - 26,
              "opponent": MARGIN + 4}.get(owner, mid - 11)
        value = int(cube.get("value", 1))
        shown = 64 if value == 1 and owner == "centre" else value
        pending = cube.get("pending")
        parts.append(f'<rect class="cube" x="1" y="{cy}" width="22" height="22" rx="3" '
                     f'fill="{"#ffe08a" if pending else "#fff"}" stroke="#000"/>'
                     f'<text x="12" y="{cy + 15}" text-anchor="middle" font-size="11" '
                     f'font-weight="bold">{shown}</text>')
    dice = position.get("dice") or []
    if dice:
        x0 = MARGIN + 9 * PW + BAR_W - 26
        for i, d in enumerate(dice[:2]):
            parts.append(_die(x0 + i * 28, mid - 11, int(d)))
    parts.append("</svg>")
    return "".join(parts)


def board_caption(position: Mapping[str, Any], on_roll: int, names: Sequence[str]) -> str:
    """Who is which colour, the pip counts, the dice, the score and the cube, as HTML."""
    mine, theirs = position["on_roll"], position["opponent"]
    me, them = on_roll, 1 - on_roll
    colour = ("light", "dark")
    bits = [f"{_e(names[me])} ({colour[me]}, bottom) on roll, pips {pips(mine)}",
            f"{_e(names[them])} ({colour[them]}, top), pips {pips(theirs)}"]
    dice = position.get("dice") or []
    if dice:
        bits.append(f"dice {dice[0]}-{dice[1]}")
    match = position.get("match")
    if match:
        score = match.get("score", [0, 0])
        bits.append(f"score {_e(names[me])} {score[0]}, {_e(names[them])} {score[1]} "
                    f"(match to {match.get('length')})"
                    + (", Crawford game" if match.get("crawford") else ""))
    cube = position.get("cube")
    if cube:
        owner = cube.get("owner", "centre")
        who = {"centre": "centred", "on_roll": f"owned by {_e(names[me])}",
               "opponent": f"owned by {_e(names[them])}"}.get(owner, _e(owner))
        bits.append(f"cube {cube.get('value')} {who}" + (", offered" if cube.get("pending")
                                                         else ""))
    primed = position.get("primed")
    if position.get("variant") == "jacquet" and primed:
        for flag, side in ((primed[0], me), (primed[1], them)):
            if flag:
                bits.append(f"{_e(names[side])} has held a prime")
    return "; ".join(bits)


# -- SVG: the equity graph --------------------------------------------------------------

GRAPH_W, GRAPH_H, GRAPH_PAD = 760, 260, 40
MARK_COLOURS = {"doubtful": "#e6b800", "error": "#e8710a", "blunder": "#d93025"}


def graph_value(d: Mapping[str, Any]) -> float:
    """A decision's equity for side 0: a move's equity after the play made, a cube
    decision's figure for the action taken (no double: ND; double: min(DT, DP); take: DT;
    pass: DP), each turned to side 0's view."""
    if d["kind"] == "move":
        value = float(d["equity"])
        return value if d["side"] == 0 else -value
    doubler = d["side"] if d["action"] in ("double", "no_double") else 1 - d["side"]
    value = {"no_double": d["no_double"], "double": min(d["double_take"], d["double_pass"]),
             "take": d["double_take"], "pass": d["double_pass"]}[d["action"]]
    return float(value) if doubler == 0 else -float(value)


def equity_graph_svg(report: Report) -> str:
    """Side 0's equity over the match: x the decisions in order across the games, y the
    equity (`graph_value`); the marked decisions are dots coloured by mark, each with a
    tooltip; dashed lines separate the games."""
    points = decisions(report)
    names = report["players"]
    w, h, pad = GRAPH_W, GRAPH_H, GRAPH_PAD
    parts = [f'<svg id="equity-graph" class="graph" width="{w}" height="{h}" '
             f'viewBox="0 0 {w} {h}" role="img" '
             f'aria-label="equity of {_e(names[0])} over the match">']
    if not points:
        parts.append(f'<text x="{w / 2}" y="{h / 2}" text-anchor="middle">no decisions</text>'
                     "</svg>")
        return "".join(parts)
    values = [graph_value(d) for d in points]
    top = max(1.0, max(abs(v) for v in values))
    n = len(points)

    def x(i: int) -> float:
        return pad + (w - 2 * pad) * (i / max(n - 1, 1))

    def y(v: float) -> float:
        return h / 2 - (h / 2 - 20) * (v / top)

    parts.append(f'<rect x="{pad}" y="20" width="{w - 2 * pad}" height="{h - 40}" '
                 'fill="#fafafa" stroke="#ccc"/>')
    for v in (top, top / 2, 0.0, -top / 2, -top):
        parts.append(f'<line x1="{pad}" x2="{w - pad}" y1="{y(v):.1f}" y2="{y(v):.1f}" '
                     f'stroke="{"#888" if v == 0 else "#e3e3e3"}"/>'
                     f'<text x="{pad - 4}" y="{y(v) + 4:.1f}" text-anchor="end" '
                     f'font-size="10">{v:+.2f}</text>')
    game = None
    for i, d in enumerate(points):
        if d["game"] != game:
            game = d["game"]
            parts.append(f'<line x1="{x(i):.1f}" x2="{x(i):.1f}" y1="20" y2="{h - 20}" '
                         'stroke="#999" stroke-dasharray="4 3"/>'
                         f'<text x="{x(i) + 3:.1f}" y="{h - 24}" font-size="10" '
                         f'fill="#666">game {game}</text>')
    line = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(values))
    parts.append(f'<polyline points="{line}" fill="none" stroke="#3367d6" '
                 'stroke-width="1.5"/>')
    for i, (d, v) in enumerate(zip(points, values, strict=True)):
        if d.get("mark"):
            played, best = played_text(d)
            tip = (f"game {d['game']} move {d['number']}: {names[d['side']]} {played} "
                   f"(best {best}), cost {d['loss']:.3f}, {d['mark']}")
            parts.append(f'<circle class="mark {d["mark"]}" cx="{x(i):.1f}" cy="{y(v):.1f}" '
                         f'r="4" fill="{MARK_COLOURS[d["mark"]]}" stroke="#000">'
                         f"<title>{_e(tip)}</title></circle>")
    parts.append(f'<text x="{pad}" y="14" font-size="11">{_e(names[0])}\'s equity '
                 f'(up: {_e(names[0])} ahead; dots: marked decisions)</text>')
    parts.append("</svg>")
    return "".join(parts)


# -- the page ---------------------------------------------------------------------------

CSS = """
body{font-family:system-ui,sans-serif;margin:2em auto;max-width:62em;color:#222}
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:.25em .6em;
text-align:right}th{background:#f3f3f3}td:first-child,th:first-child{text-align:left}
.note{color:#555;font-size:.9em}.decision{border-top:1px solid #ddd;margin-top:1.5em}
.mark-doubtful{color:#9a7a00}.mark-error{color:#c25400}.mark-blunder{color:#c0201a}
svg{display:block;margin:.5em 0}code{background:#f3f3f3;padding:0 .2em}
"""


def _table(head: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    th = "".join(f"<th>{_e(h)}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td>{_e(c)}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table>"


def _decision_html(d: Mapping[str, Any], names: Sequence[str],
                   board: Mapping[str, Any] | None) -> str:
    played, best = played_text(d)
    who = names[d["side"]]
    if d["kind"] == "move":
        what = f"{who} to play {d['dice'][0]}-{d['dice'][1]}"
        table = _table(("", "play", "equity"),
                       [("played", played, f"{d['equity']:+.3f}"),
                        ("best", best, f"{d['best_equity']:+.3f}")])
    else:
        what = f"{who}: cube decision"
        table = _table(("", "action", "no double", "double/take", "double/pass"),
                       [("played", played, f"{d['no_double']:+.3f}",
                         f"{d['double_take']:+.3f}", f"{d['double_pass']:+.3f}"),
                        ("best", best, "", "", "")])
    parts = [f'<section class="decision" data-mark="{_e(d["mark"])}">',
             f"<h3>Game {d['game']}, move {d['number']}: {_e(what)} "
             f'<span class="mark-{_e(d["mark"])}">{_e(d["mark"])}</span>, cost '
             f"{d['loss']:.3f}</h3>"]
    if board is not None:
        position, on_roll = board["position"], int(board["on_roll"])
        parts.append(board_svg(position, on_roll, names,
                               same_direction=bool(board["same_direction"])))
        parts.append(f'<p class="note">{board_caption(position, on_roll, names)}</p>')
    else:
        parts.append('<p class="note">(no board: the position could not be replayed)</p>')
    parts.append(table)
    if d["kind"] == "cube":
        parts.append('<p class="note">the doubler\'s figures: no double, double/take, '
                     "double/pass</p>")
    parts.append("</section>")
    return "".join(parts)


def html_report(report: Report, boards: Mapping[str, Mapping[str, Any]]) -> str:
    """The whole page. `boards` maps `"GAME:INDEX"` of a marked decision to `position`
    (before the decision, seen by `on_roll`) and `on_roll` (side 0 or 1)."""
    names = report["players"]
    a = report["analysis"]
    summary = _table(("", names[0], names[1]), summary_rows(report))
    games = _table(("game", "decisions", f"loss {names[0]}", f"loss {names[1]}",
                    f"luck {names[0]}", f"luck {names[1]}", "result"),
                   [(g["game"], g["moves"], f"{g['loss'][0]:.3f}", f"{g['loss'][1]:.3f}",
                     *((f"{g['luck'][0]:+.3f}", f"{g['luck'][1]:+.3f}") if g.get("luck")
                       else ("n/a", "n/a")), g.get("result") or "unfinished")
                    for g in a.get("games", [])])
    found = marked(report)
    t = a.get("thresholds") or {}
    parts = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        f"<title>Match review: {_e(names[0])} vs {_e(names[1])}</title>",
        f"<style>{CSS}</style></head><body>",
        f"<h1>Match review: {_e(names[0])} vs {_e(names[1])}</h1>",
        f"<p>{_e(describe(report))}</p>", f'<p class="note">{_e(coverage(report))}. '
        "Marks from " + _e(", ".join(f"{m} {t[m]:g}" for m in MARKS if m in t)) + ". PR is 500 "
        "times the error rate (0 is perfect play).</p>",
        "<h2>Summary</h2>", summary,
        "<h2>Equity over the match</h2>", equity_graph_svg(report),
        "<h2>Games</h2>", games,
        f"<h2>Marked decisions ({len(found)})</h2>",
    ]
    if not found:
        parts.append("<p>None: no decision lost as much as the doubtful threshold.</p>")
    for d in found:
        parts.append(_decision_html(d, names, boards.get(f"{d['game']}:{d['index']}")))
    parts.append("</body></html>")
    return "\n".join(parts)
