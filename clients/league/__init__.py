"""The league manager: engines play each other through the protocol; standings,
ratings with confidence intervals, SPRT and an HTML report (`jacquet-league`)."""

from .config import EngineSpec, LeagueConfig, LeagueConfigError, load_league, parse_league
from .runner import League, LeagueOptions, LeagueResult

__all__ = ["EngineSpec", "League", "LeagueConfig", "LeagueConfigError", "LeagueOptions",
           "LeagueResult", "load_league", "parse_league"]
