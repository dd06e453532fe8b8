"""The daemon's search settings reach its workers: `--move-filter` and `--no-prune`."""

from __future__ import annotations

from collections.abc import Callable

from tests.conftest import DaemonProcess
from tests.daemon.wire import ZmqClient


def _depths(daemon: DaemonProcess) -> list[int]:
    """The depth each play of an opening 2-1 was ranked at, in a 1-ply analysis."""
    client = ZmqClient(daemon.zmq)
    try:
        reply = client.call("analyze", timeout=60, position="start:backgammon", dice=[2, 1],
                            plies=1, max_plays=10)
    finally:
        client.close()
    assert reply.ok, reply.error
    return [p["plies"] for p in (reply.result or {})["plays"]]


def test_the_move_filter_decides_how_many_plays_go_deeper(
        start_jacquetd: Callable[..., DaemonProcess],
        jacquetd_server: DaemonProcess) -> None:
    assert _depths(jacquetd_server).count(1) > 1  # the default filter: up to 8 within 0.16
    narrow = start_jacquetd("--workers", "1", "--move-filter", "1:0", "--no-prune")
    depths = _depths(narrow)
    assert depths.count(1) == 1 and depths[0] == 1 and len(depths) == 10
