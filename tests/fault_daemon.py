"""`python -m tests.fault_daemon ARGS`: `jacquetd ARGS` with the fault levels of
`tests/faults.py` installed (the daemon's fault tests start it this way; the
installed `jacquetd` has no fault levels and no way to turn them on)."""

from __future__ import annotations

import sys

from jacquetd.daemon import fault_hook
from tests.faults import FAULTS

fault_hook.install(FAULTS)

if __name__ == "__main__":
    from jacquetd.cli import main

    sys.exit(main())
