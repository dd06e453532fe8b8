"""The version the programs print is the installed package's (pyproject.toml), not a copy."""

from __future__ import annotations

from importlib import metadata
from typing import Any

from jacquetd_clients.client import CLIENT_NAME
from jacquetd_protocol.messages import Limits

from jacquetd.daemon import front_commands
from jacquetd.version import version


class _Context:
    def hello_extra(self) -> dict[str, Any]:
        return {"codec_limits": Limits(), "limits": {}, "levels": ["random"]}

    def stats_result(self) -> dict[str, Any]:
        return {}

    def cancel(self, target: Any) -> bool:
        return False

    def session(self, given: str | None) -> str:
        return given or "s"

    def resume(self, session: str) -> None:
        pass

    def match_record(self, match_id: str) -> str:
        raise LookupError(match_id)


def test_hello_and_the_client_name_carry_the_package_version() -> None:
    installed = metadata.version("jacquetd")
    assert version() == installed
    assert front_commands.handle_hello(_Context(), {})["version"] == installed
    assert f"jacquet-clients/{installed}" == CLIENT_NAME
