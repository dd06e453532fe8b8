"""The handlers of the commands the front process answers at once (cheap, no worker).
Each is a plain function of the request's context and of arguments the protocol's
command table has already validated; the registry (`jacquetd.daemon.registry`) says
which command each one answers."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from jacquetd_protocol.commands import describe
from jacquetd_protocol.errors import ErrorCode, ProtocolError

from jacquetd.daemon.plays import play_dict, play_records, with_dice
from jacquetd.daemon.positions import position_fields, resolve_position
from jacquetd.rules import VARIANTS, apply_move
from jacquetd.rules.describe import all_variant_rules
from jacquetd.version import version

ENGINE_NAME = "jacquetd"

#: `hello`'s `variant_rules` (SPEC 5.2): clients learn the rules they need from here.
VARIANT_RULES = all_variant_rules()


class FrontContext(Protocol):
    """What front handlers may ask of the service (implemented by ``service.Service``)."""

    def hello_extra(self) -> dict[str, Any]: ...

    def stats_result(self) -> dict[str, Any]: ...

    def cancel(self, target: Any) -> bool: ...

    def session(self, given: str | None) -> str:
        """The session a `hello` asks for: `given`, checked, else a new one."""
        ...

    def resume(self, session: str) -> None:
        """This connection presents `session` from now on (its `hello` succeeded)."""
        ...

    def match_record(self, match_id: str) -> str:
        """The record text of a hosted match."""
        ...


FrontHandler = Callable[[FrontContext, dict[str, Any]], dict[str, Any]]


def handle_hello(ctx: FrontContext, args: dict[str, Any]) -> dict[str, Any]:
    from jacquetd_protocol.version import negotiate

    session = ctx.session(args.get("session"))
    chosen = negotiate(args.get("versions"))
    extra = ctx.hello_extra()
    result = describe(extra.pop("codec_limits"))
    result.update(
        protocol=chosen,
        engine=ENGINE_NAME,
        version=version(),
        variants=list(VARIANTS),
        variant_rules=VARIANT_RULES,
        levels=extra.pop("levels"),
    )
    result["limits"] = extra.pop("limits")
    result.update(extra)
    result["session"] = session
    ctx.resume(session)
    return result


def handle_help(ctx: FrontContext, args: dict[str, Any]) -> dict[str, Any]:
    from jacquetd_protocol.help import help_result

    return help_result(args.get("command"))


def handle_ping(ctx: FrontContext, args: dict[str, Any]) -> dict[str, Any]:
    return {}


def handle_position(ctx: FrontContext, args: dict[str, Any]) -> dict[str, Any]:
    pos = resolve_position(args["position"])
    # C2: a double is offered before the roll, so a position with its dice says no
    return {**position_fields(pos), "may_double": not pos.dice and pos.may_double()}


def handle_legal_moves(ctx: FrontContext, args: dict[str, Any]) -> dict[str, Any]:
    pos = with_dice(resolve_position(args["position"], args.get("dice")))
    plays = play_records(pos, bool(args.get("compact")))
    return {"count": len(plays), "plays": plays}


def handle_apply_move(ctx: FrontContext, args: dict[str, Any]) -> dict[str, Any]:
    pos = with_dice(resolve_position(args["position"], args.get("dice")))
    return play_dict(apply_move(pos, args["move"]))


def handle_stats(ctx: FrontContext, args: dict[str, Any]) -> dict[str, Any]:
    return ctx.stats_result()


def handle_cancel(ctx: FrontContext, args: dict[str, Any]) -> dict[str, Any]:
    target = args["target"]
    if not ctx.cancel(target):
        raise ProtocolError(ErrorCode.NOT_FOUND, f"no request {target!r} of this client is in "
                            "flight", field="target")
    return {"target": target}


def handle_quit(ctx: FrontContext, args: dict[str, Any]) -> dict[str, Any]:
    return {}  # the transport ends the session after sending this reply
