"""Protocol versions and their negotiation (SPEC.md, "Versions and negotiation").

A version is MAJOR.MINOR. A minor version only adds (commands, optional
arguments, result fields, error codes), so any 1.x peer can talk to any other
1.x peer by ignoring what it does not know. A new major version may remove or
change things; a client that speaks several majors says so in `hello` and the
server picks the highest one both speak.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .errors import ErrorCode, ProtocolError

PROTOCOL_VERSION = "1.4"
#: Every version this library can serve, one per major.
SUPPORTED_VERSIONS: tuple[str, ...] = (PROTOCOL_VERSION,)
VERSION_RE = re.compile(r"^(0|[1-9][0-9]{0,3})\.(0|[1-9][0-9]{0,3})$")


def major(version: str) -> int:
    """The major number of a MAJOR.MINOR version string."""
    return int(version.split(".", 1)[0])


def negotiate(offered: Sequence[str] | None,
              supported: Sequence[str] = SUPPORTED_VERSIONS) -> str:
    """The version to speak, given the client's `hello.versions` (None: the client did
    not say, so the server's highest). Raise ProtocolError(unsupported_version),
    listing the supported versions, when no major is shared."""
    if not offered:
        return max(supported, key=major)
    ours = {major(v): v for v in supported}
    shared = [major(v) for v in offered if VERSION_RE.fullmatch(v) and major(v) in ours]
    if not shared:
        raise ProtocolError(ErrorCode.UNSUPPORTED_VERSION,
                            f"none of {', '.join(offered)} is spoken here",
                            field="versions", supported=list(supported))
    return ours[max(shared)]
