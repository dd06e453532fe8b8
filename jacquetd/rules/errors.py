"""Exceptions of the rules core. Each carries the RULES.md id it enforces, when one does."""

from __future__ import annotations


class RulesError(ValueError):
    """Base of every error the rules core raises on bad input.

    `rule` is the RULES.md id the input breaks (for example "J8"), or None
    when the input is malformed rather than against a rule.
    """

    def __init__(self, message: str, rule: str | None = None) -> None:
        self.rule = rule
        self.message = message
        super().__init__(f"{rule}: {message}" if rule else message)


class PositionError(RulesError):
    """A position that is malformed or that no legal game can reach (RULES.md section 5)."""


class MoveSyntaxError(RulesError):
    """Move text that cannot be read as move notation at all."""


class IllegalMoveError(RulesError):
    """A well-formed move that the rules forbid in this position."""


class AmbiguousMoveError(RulesError):
    """Move text that matches more than one legal play; `candidates` lists their spellings."""

    def __init__(self, message: str, candidates: list[str]) -> None:
        self.candidates = candidates
        super().__init__(message, "G8")


class GameStateError(RulesError):
    """An action that the state of the game does not allow now (out of turn, game over, ...)."""
