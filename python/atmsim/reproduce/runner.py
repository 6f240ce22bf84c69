"""Running the many small simulations of a reproduction, on every core.

Owns: :func:`run_many`. The core releases the GIL while it simulates, so a thread pool
runs one simulation per core with no pickling; results come back in submission order, so
a reproduction is deterministic whatever the number of threads.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor

from ..scenario import Scenario


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
) -> list[dict]:
    """Run every ``(scenario, seed)`` and return their summaries, in the order given.

    ``progress(done, total)`` is called from the calling thread as runs finish.
    """
    total = len(runs)
    threads = threads or default_threads()
    if threads == 1:
        out = []
        for i, (sc, seed) in enumerate(runs):
            out.append(sc.run(seed=seed).summary)
            if progress:
                progress(i + 1, total)
        return out
    with ThreadPoolExecutor(max_workers=threads) as pool:
        futures = [pool.submit(sc.run, seed) for sc, seed in runs]
        out = []
        for i, fut in enumerate(futures):
            out.append(fut.result().summary)
            if progress:
                progress(i + 1, total)
        return out
