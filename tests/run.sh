#!/bin/sh
# Installs what the test suite needs and runs it. Used by the README and by .ci/run.
set -eu
cd "$(dirname "$0")/.."
if ! ls /usr/games/gnubg >/dev/null 2>&1 && ! command -v gnubg >/dev/null 2>&1; then
    if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
        apt-get update -qq >/dev/null
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gnubg >/dev/null
    else
        echo "note: Debian package gnubg not installed; tests that drive the real gnubg will be skipped" >&2
    fi
fi
python3 -m pip install -q -e '.[test]'
python3 -m ruff check .
exec python3 -m pytest -q "$@"
