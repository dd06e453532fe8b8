"""`--version` text of the client programs (the installed distribution's version)."""

from __future__ import annotations

from importlib import metadata

from jacquetd_protocol.version import PROTOCOL_VERSION


def distribution_version() -> str:
    """The version of the installed `jacquetd` distribution ("unknown" when run from a
    tree that is not installed)."""
    try:
        return metadata.version("jacquetd")
    except metadata.PackageNotFoundError:
        return "unknown"


def version_text(prog: str) -> str:
    """``PROG VERSION (protocol X.Y)``."""
    return f"{prog} {distribution_version()} (protocol {PROTOCOL_VERSION})"
