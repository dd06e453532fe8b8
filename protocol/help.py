"""What `help` answers: the command list, or one command's syntax, fields and example,
all read from the command table (commands.py), so help cannot drift from what the
server accepts."""

from __future__ import annotations

from typing import Any

from .commands import COMMANDS, EXAMPLES, Command, lookup, usage
from .errors import ErrorCode, ProtocolError

_TYPE_NAMES = {"int": "int", "number": "float", "bool": "bool", "word": "str",
               "words": "list of str", "dice": "dice", "position": "position",
               "move": "str (move)", "request_id": "int or str"}


def help_result(command: str | None = None) -> dict[str, Any]:
    """The result of `help` (no command: the list) or of `help COMMAND`; a command name
    that is no command is refused `bad_argument` (field `command`), naming the command
    it may be a misspelling of."""
    if command is None:
        return {"usage": usage(COMMANDS["help"]),
                "commands": {c.name: c.summary for c in COMMANDS.values()}}
    try:
        cmd = lookup(command)
    except ProtocolError as exc:
        raise ProtocolError(ErrorCode.BAD_ARGUMENT, f"command: {exc.message}",
                            field="command", **exc.extra) from None
    return describe_command(cmd)


def describe_command(cmd: Command) -> dict[str, Any]:
    """`help COMMAND`'s result for `cmd`."""
    from .text_wire import decode_text_request  # text_wire imports this module's imports

    arguments: list[dict[str, Any]] = []
    for p in cmd.all_params():
        entry: dict[str, Any] = {"name": p.name, "type": _TYPE_NAMES[str(p.type)],
                                 "required": p.required}
        if p.position is not None:
            entry["word"] = p.position + 1
        if p.default is not None:
            entry["default"] = p.default
        entry["doc"] = p.doc
        arguments.append(entry)
    example = EXAMPLES[cmd.name]
    request = decode_text_request(example)
    return {"command": cmd.name, "summary": cmd.summary, "usage": usage(cmd),
            "arguments": arguments, "result": [f.name for f in cmd.result],
            "streams": cmd.streams, "example": example,
            "example_request": {"cmd": request.cmd, **request.args}}


__all__ = ["describe_command", "help_result"]
