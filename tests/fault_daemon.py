"""`python -m tests.fault_daemon ARGS`: `jacquetd ARGS` with the fault levels of
`tests/faults.py` installed (the daemon's fault tests start it this way; the
installed `jacquetd` has no fault levels and no way to turn them on).
`--test-worker-start-s=S` among ARGS (taken out before `jacquetd` reads them) makes
every worker sleep S seconds before it is ready."""

from __future__ import annotations

import dataclasses
import sys

from jacquetd.daemon import fault_hook
from tests.faults import FAULTS

START = "--test-worker-start-s="
_start = [a for a in sys.argv if a.startswith(START)]
sys.argv = [a for a in sys.argv if not a.startswith(START)]
fault_hook.install(dataclasses.replace(FAULTS, start_s=float(_start[-1][len(START):]))
                   if _start else FAULTS)

if __name__ == "__main__":
    from jacquetd.cli import main

    sys.exit(main())
