"""The program's version, read from the installed package's metadata (the `version` of
pyproject.toml), so that no copy of it in the code can go stale."""

from __future__ import annotations

from functools import cache
from importlib import metadata

DISTRIBUTION = "jacquetd"
UNKNOWN = "unknown"  # a source tree that was never installed has no metadata


@cache
def version() -> str:
    """The installed distribution's version, e.g. ``0.1.0``."""
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return UNKNOWN
