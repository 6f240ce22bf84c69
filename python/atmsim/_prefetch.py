"""Libraries that a command will need once the simulation returns, imported by a background
thread while the core simulates.

Owns :func:`prefetched`. The core runs without the GIL (``atmsim._core.run``), so on a machine
with a core to spare the thread's imports cost no wall time: ``atmsim run`` of a scenario with
samples loads pyarrow (about 0.1 s: series.parquet) and, with figures, pandas and matplotlib
(about 0.4 s more) while it simulates, instead of after (docs/performance.md, "Start-up").
The imports are the ones the writers make anyway; the thread only makes them sooner. A
failed import is left to the writer that needs the library, which reports it as it would
have without the thread.
"""

from __future__ import annotations

import contextlib
import importlib
import threading
from collections.abc import Callable, Iterator

__all__ = ["prefetched"]


def _load(loaders: tuple[str | Callable[[], object], ...]) -> None:
    for loader in loaders:
        try:
            if isinstance(loader, str):
                importlib.import_module(loader)
            else:
                loader()
        except Exception:  # the writer's own import reports it
            # (a broken installation, or one without the library)
            return


@contextlib.contextmanager
def prefetched(*loaders: str | Callable[[], object]) -> Iterator[None]:
    """Within the block, a daemon thread imports ``loaders`` in order (module names, or
    functions that import): on a normal exit the block waits for it, so nothing is left
    importing when the caller goes on; on an exception (Ctrl-C, a failed run) it does not
    wait, and the thread stops with the process."""
    if not loaders:
        yield
        return
    thread = threading.Thread(target=_load, args=(loaders,), name="atmsim-prefetch", daemon=True)
    thread.start()
    yield
    thread.join()
