"""What a client must know of a variant, as the rules server describes it.

A referee needs the opening rule and the names of the results, a board needs the
geometry. The server says them in `hello`'s `variant_rules` (SPEC, protocol 1.4), so
that no client keeps its own copy of the rules: a variant the server adds is played
and drawn with nothing else to learn.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .errors import EngineError


@dataclass(frozen=True)
class VariantInfo:
    """One variant's `variant_rules` entry, read."""

    name: str
    same_direction: bool          # G3: both sides travel the same way (G4 otherwise)
    opening_plays_opening_dice: bool   # False: the side that won the opening rolls again
    result_names: Mapping[int, str]    # a game's result before the cube -> its name
    cube_default: bool            # C1: the cube is on unless a match says otherwise

    def result_name(self, result: int) -> str:
        """The name of a game won by `result` points before the cube."""
        return self.result_names.get(result, str(result))


def variant_infos(server: Mapping[str, Any]) -> dict[str, VariantInfo]:
    """Every variant of a `hello` result, read from its `variant_rules`. EngineError
    when the server does not describe its variants (a server older than protocol 1.4)."""
    described = server.get("variant_rules")
    if not isinstance(described, Mapping):
        raise EngineError("the rules server does not describe its variants (its `hello` "
                          "has no `variant_rules`, protocol 1.4): use a jacquetd as new "
                          "as this client")
    infos = {}
    for name, rules in described.items():
        try:
            infos[str(name)] = VariantInfo(
                name=str(name),
                same_direction=rules["direction"] == "same",
                opening_plays_opening_dice=rules["opening"] == "play",
                result_names={int(k): str(v) for k, v in rules["results"].items()},
                cube_default=bool(rules["cube"]))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise EngineError(f"the rules server's `variant_rules` for {name!r} cannot be "
                              f"read: {exc!r}") from None
    return infos
