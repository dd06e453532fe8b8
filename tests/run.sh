#!/bin/sh
# Installs what the test suite needs and runs it. Used by the README and by .ci/run.
#   Debian packages: gnubg (the real GNU Backgammon the backgammon tests talk to),
#   chromium (the headless browser the web app tests drive), systemd (systemd-analyze
#   checks the shipped unit). Python: the project with its test, cluster and web extras.
set -eu
cd "$(dirname "$0")/.."
need=""
{ ls /usr/games/gnubg >/dev/null 2>&1 || command -v gnubg >/dev/null 2>&1; } || need="$need gnubg"
command -v chromium >/dev/null 2>&1 || need="$need chromium"
command -v systemd-analyze >/dev/null 2>&1 || need="$need systemd"
if [ -n "$need" ]; then
    if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
        apt-get update -qq >/dev/null
        # shellcheck disable=SC2086
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need >/dev/null
    else
        echo "note: Debian packages not installed:$need; the tests that need them are skipped" >&2
    fi
fi
PY=python3
# Debian's own Python refuses `pip install` outside a virtual environment (PEP 668):
# then the suite runs in .venv beside the checkout.
if ! $PY -m pip install -q -e '.[test,cluster,web,docs]' 2>/dev/null; then
    [ -x .venv/bin/python ] || $PY -m venv .venv
    PY=.venv/bin/python
    $PY -m pip install -q -e '.[test,cluster,web,docs]'
fi
# The compiled kernels and the bear-off tables, once, before the test processes start
# daemons side by side: on a fresh machine each daemon would otherwise compile the same
# kernels, and build the tables in the background at a low priority behind the tests.
$PY -c "from jacquetd.daemon.warmup import warm_up; from jacquetd.bots.bearoff import \
build_missing; print(f'compiled kernels ready in {warm_up():.1f} s; bear-off tables \
built: {\", \".join(build_missing()) or \"none, all cached\"}')"
# The rollout kernel (about a minute of one core on a first compile) compiles on the other
# core while the linters and the documentation build run on this one.
$PY -c "from jacquetd.bots.rolloutkernel import warm_up; \
print(f'rollout kernel ready in {warm_up():.1f} s')" &
aside=$!
$PY -m ruff check .
PYTHON=$PY sh tests/typecheck.sh
# The documentation site: warnings are errors, so a broken link or anchor, a page left
# out of the tables of contents or a docstring that does not parse fails the run.
$PY -m sphinx -W --keep-going -n -q -b html docs build/docs
# the documentation tests read this build rather than making their own
export JACQUETD_DOCS_SITE="$PWD/build/docs"
wait "$aside"
# The slow checks (-m slow) run in their bounded form: JACQUETD_SLOW_BUDGET caps each one's
# length in seconds (read by tests/conftest.py, slow_budget_s). `JACQUETD_SLOW_BUDGET= sh
# tests/run.sh` runs them whole.
export JACQUETD_SLOW_BUDGET="${JACQUETD_SLOW_BUDGET-10}"
# Two test processes (pytest-xdist), tests handed out one by one and taken over by
# whichever is idle: most tests wait on daemons and engines of their own, so two keep
# both cores busy. `JACQUETD_TEST_JOBS=0 sh tests/run.sh` runs them in one process.
# The 25 slowest tests are listed at the end: where the suite's time goes.
exec $PY -m pytest -q -n "${JACQUETD_TEST_JOBS:-2}" --dist worksteal --durations=25 "$@"
