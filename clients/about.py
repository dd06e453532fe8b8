"""`--version` text of the client programs (the installed distribution's version)."""

from __future__ import annotations

from importlib import metadata

from jacquetd_protocol.version import PROTOCOL_VERSION


def version_text(prog: str) -> str:
    """``PROG VERSION (protocol X.Y)``; the version of the installed `jacquetd`
    distribution ("unknown" when run from a tree that is not installed)."""
    try:
        version = metadata.version("jacquetd")
    except metadata.PackageNotFoundError:
        version = "unknown"
    return f"{prog} {version} (protocol {PROTOCOL_VERSION})"
