"""The league's HTML report: one self-contained page (inline SVG charts, no scripts).

Sections: the league's settings, the standings table, a chart of the ratings
with their 95% intervals, a chart of points per game (raw, and luck-adjusted
when the daemon judged luck), the likelihood-of-superiority table, head-to-head
results, engine faults, the SPRT verdict when there is one, and every match
record (RECORDS.md format) in a collapsible block.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from ..analyze_report import _e, _table
from .config import LeagueConfig
from .standings import Standings

BAR_H = 26
LABEL_W = 150
CHART_W = 640
PALETTE = ("#3367d6", "#e8710a", "#1e8e3e", "#d93025", "#9334e6", "#12b5cb", "#f9ab00",
           "#5f6368")


def _scale(lo: float, hi: float, width: float) -> tuple[float, float]:
    if hi - lo < 1e-9:
        lo, hi = lo - 1, hi + 1
    pad = (hi - lo) * 0.08
    lo, hi = lo - pad, hi + pad
    return lo, width / (hi - lo)


def ratings_svg(st: Standings) -> str:
    """Horizontal chart: each engine's rating as a dot with its 95% interval."""
    lines = st.lines
    lo = min(x.elo_low for x in lines)
    hi = max(x.elo_high for x in lines)
    lo, k = _scale(min(lo, 0.0), max(hi, 0.0), CHART_W - LABEL_W - 20)
    height = BAR_H * len(lines) + 56

    def x(v: float) -> float:
        return LABEL_W + (v - lo) * k

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{CHART_W}" height="{height}" '
             f'role="img" aria-label="ratings with 95% confidence intervals">',
             f'<line x1="{x(0):.1f}" y1="5" x2="{x(0):.1f}" y2="{height - 25}" '
             'stroke="#bbb" stroke-dasharray="4 3"/>']
    for i, line in enumerate(lines):
        y = 20 + i * BAR_H
        colour = PALETTE[i % len(PALETTE)]
        parts.append(f'<text x="{LABEL_W - 8}" y="{y + 4}" text-anchor="end" '
                     f'font-size="13">{_e(line.name)}</text>')
        parts.append(f'<line x1="{x(line.elo_low):.1f}" y1="{y}" x2="{x(line.elo_high):.1f}" '
                     f'y2="{y}" stroke="{colour}" stroke-width="2"/>')
        for end in (line.elo_low, line.elo_high):
            parts.append(f'<line x1="{x(end):.1f}" y1="{y - 6}" x2="{x(end):.1f}" '
                         f'y2="{y + 6}" stroke="{colour}" stroke-width="2"/>')
        parts.append(f'<circle cx="{x(line.elo):.1f}" cy="{y}" r="5" fill="{colour}">'
                     f'<title>{_e(line.name)}: {line.elo:+.1f} '
                     f'[{line.elo_low:+.0f}, {line.elo_high:+.0f}]</title></circle>')
    for tick in _ticks(lo, lo + (CHART_W - LABEL_W - 20) / k):
        parts.append(f'<text x="{x(tick):.1f}" y="{height - 8}" text-anchor="middle" '
                      f'font-size="11" fill="#555">{tick:+g}</text>')
    parts.append("</svg>")
    return "".join(parts)


def ppg_svg(st: Standings) -> str:
    """Bars of net points per game from 0; a thin dark bar beside each for the
    luck-adjusted figure when there is one."""
    lines = st.lines
    values = [x.ppg for x in lines] + [x.luck_adjusted_ppg or 0.0 for x in lines]
    lo, k = _scale(min(*values, 0.0), max(*values, 0.0), CHART_W - LABEL_W - 20)
    height = BAR_H * len(lines) + 40

    def x(v: float) -> float:
        return LABEL_W + (v - lo) * k

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{CHART_W}" height="{height}" '
             'role="img" aria-label="points per game">']
    for i, line in enumerate(lines):
        y = 10 + i * BAR_H
        colour = PALETTE[i % len(PALETTE)]
        x0, x1 = sorted((x(0.0), x(line.ppg)))
        parts.append(f'<text x="{LABEL_W - 8}" y="{y + 12}" text-anchor="end" '
                     f'font-size="13">{_e(line.name)}</text>')
        parts.append(f'<rect x="{x0:.1f}" y="{y}" width="{max(x1 - x0, 1):.1f}" height="12" '
                     f'fill="{colour}"><title>{_e(line.name)}: {line.ppg:+.3f} points per '
                     'game</title></rect>')
        adj = line.luck_adjusted_ppg
        if adj is not None:
            a0, a1 = sorted((x(0.0), x(adj)))
            parts.append(f'<rect x="{a0:.1f}" y="{y + 14}" width="{max(a1 - a0, 1):.1f}" '
                         f'height="5" fill="#333"><title>luck-adjusted {adj:+.3f}</title>'
                         '</rect>')
    parts.append(f'<line x1="{x(0):.1f}" y1="5" x2="{x(0):.1f}" y2="{height - 25}" '
                 'stroke="#888"/>')
    if any(line.luck_adjusted_ppg is not None for line in lines):
        # a visible legend: which bar is raw and which is luck-adjusted
        ly = height - 38
        parts.append(f'<rect x="{LABEL_W}" y="{ly}" width="14" height="10" fill="{PALETTE[0]}"/>'
                     f'<text x="{LABEL_W + 18}" y="{ly + 9}" font-size="11">points per game'
                     '</text>'
                     f'<rect x="{LABEL_W + 130}" y="{ly + 3}" width="14" height="5" '
                     'fill="#333"/>'
                     f'<text x="{LABEL_W + 148}" y="{ly + 9}" font-size="11">luck-adjusted '
                     '(dice luck removed)</text>')
    for tick in _ticks(lo, lo + (CHART_W - LABEL_W - 20) / k):
        parts.append(f'<text x="{x(tick):.1f}" y="{height - 8}" text-anchor="middle" '
                     f'font-size="11" fill="#555">{tick:+g}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _ticks(lo: float, hi: float, count: int = 6) -> list[float]:
    """Round tick values between lo and hi (1, 2 or 5 times a power of ten apart)."""
    span = hi - lo
    if span <= 0:
        return [lo]
    raw = span / count
    base = 10.0 ** math.floor(math.log10(raw))
    step = next(m * base for m in (1, 2, 5, 10) if m * base >= raw)
    first = math.ceil(lo / step) * step
    return [round(first + i * step, 10) for i in range(int((hi - first) / step) + 1)]


#: What the luck-adjusted columns and bars are (shown under the standings).
LUCK_LEGEND = ('<p class="note legend"><b>luck-adj. ppg</b>: net points per game with the '
               "luck of the dice taken out. The daemon's <code>luck</code> command rates "
               "every roll against the average roll in that position (in equity); a "
               "player's luck over a game is subtracted from its result, so a "
               "luck-adjusted figure says how well the engine played rather than how well "
               "it rolled. In the points-per-game chart the thin dark bar under each "
               "engine's bar is its luck-adjusted figure.</p>")

CSS = """
body{font-family:system-ui,sans-serif;margin:2em auto;max-width:60em;color:#222}
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:.25em .6em;
text-align:right}th{background:#f3f3f3}td:first-child,th:first-child{text-align:left}
pre{background:#f7f7f7;padding:.6em;overflow-x:auto;font-size:12px}
details{margin:.3em 0}summary{cursor:pointer}.note{color:#666;font-size:.9em}
"""


def render(config: LeagueConfig, st: Standings, matches: Sequence[dict[str, Any]], *,
           finished: bool, elapsed_s: float | None = None, luck_judged: bool = True) -> str:
    """The whole report page (`luck_judged` False: the league did not ask for luck)."""
    settings = [
        ("variant", config.variant), ("format", config.format),
        ("games per pairing", config.games), ("seats swapped", config.swap),
        ("match length", config.match_length or "money game"),
        ("cube", "on" if config.cube else "off"), ("time per move", f"{config.time_ms} ms"),
        ("seed", config.seed), ("matches played", st.matches), ("games played", st.games),
        ("status", "finished" if finished else "in progress"),
    ]
    if elapsed_s is not None:
        settings.append(("wall time", f"{elapsed_s:.1f} s"))
    engines = _table(("engine", "what"), [(e.name, e.describe()) for e in config.engines])
    rows = []
    for rank, x in enumerate(st.lines, 1):
        adj = x.luck_adjusted_ppg
        rows.append((f"{rank}. {x.name}", x.games, f"{x.wins}-{x.losses}",
                     f"{x.score:.3f}", f"{x.ppg:+.3f}", f"{adj:+.3f}" if adj is not None
                     else "n/a", f"{x.elo:+.1f}", f"[{x.elo_low:+.0f}, {x.elo_high:+.0f}]",
                     x.forfeits))
    standings = _table(("engine", "games", "W-L", "score", "ppg", "luck-adj. ppg", "elo",
                        "95% CI", "forfeits"), rows)
    names = [x.name for x in st.lines]
    index = {n: i for i, n in enumerate(st.ratings.names)}
    los = _table(["LOS (row > column)", *names],
                 [[a, *("" if a == b else f"{st.los[index[a], index[b]]:.3f}" for b in names)]
                  for a in names])
    h2h = _table(("pairing", "wins", "points"),
                 [(f"{a} - {b}", f"{r[0]}-{r[1]}", f"{r[2]}-{r[3]}")
                  for (a, b), r in sorted(st.head_to_head.items())])
    luck_note = (LUCK_LEGEND if st.luck_available else
                 '<p class="note">Luck was not judged (<code>luck = false</code> or '
                 "<code>--no-luck</code>): only raw results are reported.</p>"
                 if not luck_judged else
                 '<p class="note">Luck-adjusted figures are unavailable: the daemon offers '
                 "no <code>luck</code> command, so only raw results are reported.</p>")
    parts = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        f"<title>League {_e(config.name)}</title><style>{CSS}</style></head><body>",
        f"<h1>League {_e(config.name)}</h1>",
        _table(("setting", "value"), settings), "<h2>Engines</h2>", engines,
        "<h2>Standings</h2>", standings, luck_note,
        '<p class="note">Ratings: Bradley-Terry maximum likelihood on game results (each '
        "game a win or a loss), centred on 0, with 95% confidence intervals from the Fisher "
        "information. ppg: net points per game, the cube included.</p>",
        "<h2>Ratings</h2>", ratings_svg(st),
        "<h2>Points per game</h2>", ppg_svg(st),
        "<h2>Likelihood of superiority</h2>", los,
        "<h2>Head to head</h2>", h2h,
    ]
    if st.sprt is not None:
        s = st.sprt
        parts += ["<h2>SPRT</h2>", _table(
            ("test", "W-L", "LLR", "bounds", "decision"),
            [(f"{s['a']} vs {s['b']}: elo0 {s['elo0']:g}, elo1 {s['elo1']:g}",
              f"{s['wins']}-{s['losses']}", f"{s['llr']:+.3f}",
              f"[{s['lower']:.3f}, {s['upper']:.3f}]", s["decision"] or "undecided")])]
    if st.faults:
        parts += ["<h2>Faults</h2>", _table(("match", "engine", "fault", "message"),
                                            [(f["job"], f["engine"], f["fault"],
                                              f["message"][:200]) for f in st.faults])]
    parts.append(f"<h2>Match records ({len(matches)})</h2>")
    for m in sorted(matches, key=lambda m: m["job"]):
        title = (f"{m['job']}: {m['players'][0]} {m['score'][0]} - {m['score'][1]} "
                 f"{m['players'][1]}")
        parts.append(f"<details><summary>{_e(title)}</summary><pre>{_e(m.get('record', ''))}"
                     "</pre></details>")
    parts.append("</body></html>")
    return "\n".join(parts)
