#!/bin/sh
# mypy --strict over the three packages: the protocol (jacquetd_protocol), the clients
# (jacquetd_clients) and the whole of jacquetd (pyproject.toml's [tool.mypy] has the
# settings, and the one exception: numba's scalar types in the two compiled kernels).
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
set -- -p jacquetd_protocol -p jacquetd_clients -p jacquetd
MYPYPATH="$links" exec "${PYTHON:-python3}" -m mypy --strict --cache-dir build/typecheck-cache "$@"
