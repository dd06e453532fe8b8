"""``python -m jacquetd``: the same as the ``jacquetd`` command."""

import sys

from jacquetd.cli import main

if __name__ == "__main__":
    sys.exit(main())
