"""Log lines of the daemon and its workers: ``key=value`` text or one JSON object a line.

The daemon's messages are written as ``event=NAME key=value ...``. The text format
prefixes them with a UTC timestamp, the level and the logger; the JSON format turns
every ``key=value`` word into a typed field (``7780`` a number, ``true`` a boolean,
``"a b"`` a string without its quotes). Worker processes call `setup_logging` with
the same format as the front process (it reaches them in ``JACQUETD_WORKER_LOG_FORMAT``), and
add ``worker=N`` to each line.
"""

from __future__ import annotations

import json
import logging
import os
import re
import sys
import time
from typing import Any

FORMATS = ("kv", "json")
#: Environment variable through which worker processes learn the front's log format.
FORMAT_ENV = "JACQUETD_WORKER_LOG_FORMAT"

_KV = re.compile(r"(\w+)=(\"(?:[^\"\\]|\\.)*\"|'[^']*'|\S+)")
_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?")


def typed(text: str) -> Any:
    """The value a ``key=value`` word stands for: number, boolean, null or string."""
    if _NUMBER.fullmatch(text):
        return float(text) if any(c in text for c in ".eE") else int(text)
    if text in ("true", "True"):
        return True
    if text in ("false", "False"):
        return False
    if text in ("null", "None"):
        return None
    if len(text) >= 2 and text[0] == text[-1] == '"':
        try:
            value = json.loads(text)
        except ValueError:
            return text[1:-1]
        return value
    if len(text) >= 2 and text[0] == text[-1] == "'":
        return text[1:-1]
    return text


def _timestamp(created: float, msecs: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(created)) + f".{int(msecs):03d}Z"


class KeyValueFormatter(logging.Formatter):
    """``ts=... level=info logger=... [worker=N] event=... key=value ...`` on one line."""

    def __init__(self, worker: int | None = None) -> None:
        super().__init__()
        self.worker = worker

    def format(self, record: logging.LogRecord) -> str:
        worker = f" worker={self.worker}" if self.worker is not None else ""
        line = (f"ts={_timestamp(record.created, record.msecs)} "
                f"level={record.levelname.lower()} logger={record.name}{worker} "
                f"{record.getMessage()}")
        if record.exc_info:
            line += " exc=" + json.dumps(self.formatException(record.exc_info))
        return line


class JsonFormatter(logging.Formatter):
    """One JSON object per line: ts, level, logger, [worker], the typed ``key=value``
    fields of the message, and the message itself as ``msg``."""

    def __init__(self, worker: int | None = None) -> None:
        super().__init__()
        self.worker = worker

    def format(self, record: logging.LogRecord) -> str:
        message = record.getMessage()
        out: dict[str, Any] = {
            "ts": _timestamp(record.created, record.msecs),
            "level": record.levelname.lower(),
            "logger": record.name,
        }
        if self.worker is not None:
            out["worker"] = self.worker
        for key, value in _KV.findall(message):
            if key not in out:
                out[key] = typed(value)
        out["msg"] = message
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return json.dumps(out, default=str)


def setup_logging(level: str | int, fmt: str | None = None, *,
                  worker: int | None = None) -> None:
    """Send the root logger to stderr at `level` in format `fmt` ('kv' or 'json'; None:
    ``$JACQUETD_WORKER_LOG_FORMAT``, else 'kv'). The front process also exports the format, so
    that the worker processes it starts write the same."""
    if fmt is None:
        fmt = os.environ.get(FORMAT_ENV, "kv")
    if fmt not in FORMATS:
        fmt = "kv"
    if worker is None:
        os.environ[FORMAT_ENV] = fmt
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter(worker) if fmt == "json" else KeyValueFormatter(worker))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper() if isinstance(level, str) else level)
