"""Web app benchmark: ``python benchmarks/bench_web.py`` (needs Playwright and the
system's Chromium, e.g. Debian's `chromium`).

Starts a daemon, opens its web app in headless Chromium and plays backgammon against
the `random` bot by clicks. The page itself times, with `performance.now()`:

- click -> redrawn board: from a click on a checker or a destination to the next
  animation frame after the board was redrawn (local: highlights, the checker moved);
- action -> redrawn board: from a click on Roll or Confirm to the next frame after the
  daemon's answer (the action, then `match_state` and `legal_moves`) was drawn.

Prints p50, p90 and max of each.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered)) - 1))]


def start_daemon(data: str) -> tuple[subprocess.Popen[bytes], str]:
    env = dict(os.environ, PYTHONPATH=str(REPO), XDG_DATA_HOME=data)
    proc = subprocess.Popen([sys.executable, "-m", "jacquetd", "serve", "--workers", "1",
                             "--bind", "tcp://127.0.0.1:0", "--tcp", "off", "--gnubg", "off",
                             "--ws", "127.0.0.1:0", "--db", os.path.join(data, "m.sqlite3"),
                             "--log-level", "warning"], cwd=REPO, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdout is not None
    line = proc.stdout.readline().decode()
    words = dict(w.split("=", 1) for w in line.split() if "=" in w)
    return proc, words["web"]


def play(page: Any, turns: int) -> None:
    """Play `turns` of our turns by clicks (fewer if the game ends)."""
    done = 0
    while done < turns:
        page.wait_for_function("""() => { const d = document.body.dataset;
            if (d.status !== 'playing') return true;
            return d.toAct === d.you && (!document.getElementById('roll').disabled
              || document.querySelector('rect.hit.source, rect.hit.target') !== null); }""")
        data = page.evaluate("() => ({...document.body.dataset})")
        if data["status"] != "playing":
            return
        last = data["lastEvent"]
        if page.is_enabled("#roll"):
            page.click("#roll")
        else:
            while not page.is_enabled("#confirm"):
                target = page.locator("rect.hit.target")
                (target if target.count() else page.locator("rect.hit.source")).first.click()
            page.click("#confirm")
            done += 1
        page.wait_for_function("last => document.body.dataset.lastEvent !== last", arg=last)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=15, help="our turns to play (default 15)")
    parser.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    opts = parser.parse_args()
    from playwright.sync_api import sync_playwright

    data = tempfile.mkdtemp(prefix="bench-web-")
    daemon, url = start_daemon(data)
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=opts.chromium, headless=True,
                                         args=FLAGS)
            page = browser.new_page(viewport={"width": 1300, "height": 900})
            page.set_default_timeout(60_000)
            page.goto(url)
            page.wait_for_selector("body[data-conn=open]")
            page.select_option("#variant", "backgammon")
            page.select_option("#level", "random")
            page.click("[data-testid=start]")
            page.wait_for_selector("body[data-mode=match]")
            play(page, opts.turns)
            timings = page.evaluate("() => window.jacquetdTimings")
            browser.close()
    finally:
        daemon.terminate()
        daemon.wait(30)
        shutil.rmtree(data, ignore_errors=True)
    print(f"web app in headless Chromium, backgammon against the random bot, {opts.turns} "
          f"turns; {os.cpu_count()} cores")
    print(f"{'what':<32} {'n':>4} {'p50 ms':>8} {'p90 ms':>8} {'max ms':>8}")
    for key, name in (("click", "click -> redrawn board"),
                      ("action", "roll/confirm -> redrawn board")):
        values = timings[key]
        if values:
            print(f"{name:<32} {len(values):>4} {percentile(values, 50):>8.1f} "
                  f"{percentile(values, 90):>8.1f} {max(values):>8.1f}")


if __name__ == "__main__":
    main()
