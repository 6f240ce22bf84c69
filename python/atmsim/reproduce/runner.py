"""Running the many small simulations of a reproduction: :func:`run_many`, the one way every
study runs its simulations, on the executor in use (:mod:`atmsim.study.executor`: threads in
this process, or a results store that keeps every finished run and reuses it)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from ..study.executor import current, default_threads

if TYPE_CHECKING:
    from .._run_results import Results
    from .._scenario import Scenario

__all__ = ["default_threads", "run_many"]


def run_many(
    runs: Sequence[tuple[Scenario, int]],
    progress: Callable[[int, int], None] | None = None,
    keep: Callable[[Results], Any] | None = None,
) -> list:
    """Run every ``(scenario, seed)`` and return their summaries, in the order given
    (``keep(results)`` instead of the summary if given: e.g. a figure computed from the
    series, so that the series of many runs are never held at once).

    ``progress(done, total)`` is called from the calling thread as runs finish. If the
    calling thread is interrupted (KeyboardInterrupt) or a run fails, the runs not started
    are cancelled, those in progress are stopped, and the exception propagates once they
    have stopped (with a store, the finished runs are kept in it).
    """
    return current().run(runs, progress, keep)
