"""Running the many small simulations of a reproduction, on every core.

Owns: :func:`run_many`, the way caceres93, kalampoukas97, kocyigit and magic95 run every one of
their simulations (mah96 runs as one sweep into its results store: :func:`atmsim.sweeps.run_plan`).
The core releases the GIL while it simulates, so a thread pool runs one simulation per core
with no pickling; results come back in submission order, so a reproduction is deterministic
whatever the number of threads.

Stopping: Python delivers Ctrl-C to the main thread only, and the core checks for signals
only when it runs there. So the runs in worker threads watch a shared stop flag in their
progress callback (called at every progress report, about every 0.5% of simulated time):
when the main thread is interrupted (or a run fails) it sets the flag, cancels the queued
runs and waits the short while the running ones take to reach their next report.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from ..scenario import Scenario

if TYPE_CHECKING:
    from ..run_results import Results


class RunsStopped(Exception):
    """Raised inside a worker's run when the reproduction is stopping; never seen by callers."""


def default_threads() -> int:
    """One thread per core this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def run_many(
    runs: Sequence[tuple[Scenario, int]],
    progress: Callable[[int, int], None] | None = None,
    threads: int | None = None,
    keep: Callable[[Results], Any] | None = None,
) -> list:
    """Run every ``(scenario, seed)`` and return their summaries, in the order given
    (``keep(results)`` instead of the summary if given: e.g. a figure computed from the
    series, so that the series of many runs are never held at once).

    ``progress(done, total)`` is called from the calling thread as runs finish. If the
    calling thread is interrupted (KeyboardInterrupt) or a run raises, the runs not started
    are cancelled, those in progress are stopped, and the exception propagates once they
    have stopped.
    """
    total = len(runs)
    threads = threads or default_threads()
    pick = keep or (lambda r: r.summary)
    if threads == 1:
        out = []
        for i, (sc, seed) in enumerate(runs):
            out.append(pick(sc.run(seed=seed)))
            if progress:
                progress(i + 1, total)
        return out
    stop = threading.Event()

    def check_stop(_fraction: float) -> None:
        if stop.is_set():
            raise RunsStopped()

    pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="atmsim-run")
    try:
        futures = [pool.submit(sc.run, seed, check_stop) for sc, seed in runs]
        out = []
        for i, fut in enumerate(futures):
            out.append(pick(fut.result()))
            if progress:
                progress(i + 1, total)
        return out
    except BaseException:
        stop.set()
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
