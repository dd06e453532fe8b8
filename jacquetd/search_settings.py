"""The search's settings: move filters and pruning, in a module light enough for the front.

The daemon reads them from its configuration (`move_filter`, `prune`) and
checks them where it starts, in a process that never loads numpy; its
workers install them once, at start, with `use_settings`, and every
searcher made afterwards follows them. `jacquetd.bots.search` says what
they do.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class SearchSettings:
    """How a search narrows its work, as GNU Backgammon's move filters and pruning nets do.

    `filters[d - 1]` is the move filter of depth d: (most candidates, equity
    window) kept from the ranking one ply shallower to be searched at d plies;
    depths past the last entry use the last. With `prune`, the nodes inside a
    search rank each roll's plays by the variant's pruning network first and
    evaluate only the best few with the full evaluator (`best_replies`); a
    variant without a pruning network searches every play.
    """

    filters: tuple[tuple[int, float], ...] = ((8, 0.16), (4, 0.10), (2, 0.06))
    prune: bool = True

    def filter_at(self, depth: int) -> tuple[int, float]:
        return self.filters[min(depth, len(self.filters)) - 1]

    def filter_text(self) -> str:
        """The filters in their canonical text form, e.g. ``8:0.16,4:0.1,2:0.06``."""
        return ",".join(f"{n}:{w:g}" for n, w in self.filters)

    @staticmethod
    def parse_filters(text: str) -> tuple[tuple[int, float], ...]:
        """Filters from their text form (`filter_text`); ValueError naming what is wrong."""
        out: list[tuple[int, float]] = []
        for item in text.split(","):
            count, sep, window = item.strip().partition(":")
            try:
                n, w = int(count), float(window)
            except ValueError:
                n, w = 0, -1.0
            if not sep or n < 1 or not 0.0 <= w <= 3.0:
                raise ValueError(f"move filter {item.strip()!r}: expected CANDIDATES:WINDOW, "
                                 "a count of at least 1 and an equity window from 0 to 3")
            out.append((n, w))
        return tuple(out)


DEFAULT_SETTINGS = SearchSettings()

_installed = [DEFAULT_SETTINGS]  # one per process, set at its start (`use_settings`)


def use_settings(settings: SearchSettings) -> None:
    """Make `settings` this process's settings for the searchers made from now on (a
    worker does so once, at start, from the daemon's configuration)."""
    _installed[0] = settings


def process_settings() -> SearchSettings:
    """This process's settings: the defaults unless `use_settings` installed others."""
    return _installed[0]
