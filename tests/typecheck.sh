#!/bin/sh
# mypy --strict over the packages that pass it: the protocol (jacquetd_protocol), the
# clients (jacquetd_clients) and, of jacquetd, the rules core, the hosted matches and the
# daemon. `sh tests/typecheck.sh --all` checks the whole of jacquetd instead (the bots,
# the compiled generator and cli.py do not pass yet: it prints their errors).
#
# The folders protocol/ and clients/ install under other names (pyproject.toml's
# package-dir), which mypy cannot follow through the editable install: a folder of
# symbolic links gives each installed name its folder, and MYPYPATH points at it.
# PYTHON names the interpreter that has mypy (default python3).
set -eu
cd "$(dirname "$0")/.."
links=build/typecheck
mkdir -p "$links"
ln -sfn ../../jacquetd "$links/jacquetd"
ln -sfn ../../protocol "$links/jacquetd_protocol"
ln -sfn ../../clients "$links/jacquetd_clients"
if [ "${1:-}" = "--all" ]; then
    set -- -p jacquetd_protocol -p jacquetd_clients -p jacquetd
else
    set -- -p jacquetd_protocol -p jacquetd_clients \
        -p jacquetd.rules -p jacquetd.matches -p jacquetd.daemon
fi
MYPYPATH="$links" exec "${PYTHON:-python3}" -m mypy --strict --cache-dir build/typecheck-cache "$@"
