"""Where a sweep's runs execute: worker processes, a Dask cluster, or this process.

Each backend's ``submit`` returns a future and ``wait_some`` the finished ones; workers run
:func:`execute_run` and return the core's raw output, and the calling process, the only
writer, commits each finished run to the store. On Ctrl-C the workers are terminated and the
pool shut down before KeyboardInterrupt propagates.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from .. import _core
from ..errors import SweepError
from .plan import PlannedRun

__all__ = ["Backend", "DaskBackend", "InProcessBackend", "LocalBackend", "execute_run", "mp_context"]


def execute_run(text: str, origin: str, seed: int) -> dict[str, Any]:
    """Run one scenario (JSON text) in a worker and return the core's raw output.

    Adds ``started_at`` (POSIX time) and ``wall_s``; a failure is returned, not raised, as
    ``{"error": ..., "error_field": ..., "error_type": ...}`` so the sweep records it.
    """
    started = time.time()
    t0 = time.perf_counter()
    try:
        raw = _core.run(text, "json", origin, seed=seed)
        out: dict[str, Any] = {"summary": raw["summary"], "series": raw["series"]}
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:
        out = {
            "error": str(exc) or type(exc).__name__,
            "error_field": getattr(exc, "field", "") or None,
            "error_type": type(exc).__name__,
        }
    out["started_at"] = started
    out["wall_s"] = time.perf_counter() - t0
    return out


# The function the in-process backend (jobs=0) calls; tests may replace it.
_runner: Callable[[str, str, int], dict[str, Any]] = execute_run


# The fork server listens on a Unix socket at TMPDIR/pymp-XXXXXXXX/listener-XXXXXXXX; such a
# path holds at most 107 bytes (Linux), so a longer TMPDIR starts workers by 'spawn' instead.
_FORKSERVER_SOCKET_SUFFIX = len("/pymp-XXXXXXXX/listener-XXXXXXXX")
_UNIX_PATH_MAX = 107


def mp_context() -> multiprocessing.context.BaseContext:
    methods = multiprocessing.get_all_start_methods()
    short_tmp = len(os.fsencode(tempfile.gettempdir())) + _FORKSERVER_SOCKET_SUFFIX <= _UNIX_PATH_MAX
    if "forkserver" in methods and short_tmp:
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["atmsim._sweep.backends"])
        return ctx
    return multiprocessing.get_context("spawn")


class Backend:
    """submit() returns a future; wait_some() returns the finished ones (possibly none)."""

    slots: int = 1

    def submit(self, run: PlannedRun, origin: str) -> Any:
        raise NotImplementedError

    def wait_some(self, pending: set[Any], timeout: float) -> set[Any]:
        raise NotImplementedError

    def result(self, future: Any) -> dict[str, Any]:
        return future.result()

    def close(self, abort: bool = False) -> None:
        pass


class _Signalled(Backend):
    """A backend whose futures set :attr:`finished` when done (a done callback), so that
    :meth:`wait_some` sleeps until one is instead of polling.

    Not concurrent.futures.wait: it takes every future's lock in turn, and Ctrl-C landing
    between two of those acquisitions leaves some held for ever, so a process pool's manager
    thread deadlocks when it fails the queued futures on shutdown.
    """

    def __init__(self) -> None:
        self.finished = threading.Event()

    def _watch(self, future: Any) -> Any:
        future.add_done_callback(lambda _f: self.finished.set())
        return future

    def wait_some(self, pending: set[Any], timeout: float) -> set[Any]:
        deadline = time.monotonic() + timeout
        while True:
            self.finished.clear()
            done = {f for f in pending if f.done()}
            remaining = deadline - time.monotonic()
            if done or remaining <= 0:
                return done
            self.finished.wait(remaining)


class _InlineFuture:
    def __init__(self, value: dict[str, Any]):
        self.value = value

    def result(self) -> dict[str, Any]:
        return self.value


class InProcessBackend(Backend):
    """jobs=0: run in the calling process, one after another (debugging, tests)."""

    def submit(self, run: PlannedRun, origin: str) -> _InlineFuture:
        return _InlineFuture(_runner(run.text, origin, run.seed))

    def wait_some(self, pending: set[Any], timeout: float) -> set[Any]:
        return set(pending)


def _worker_init() -> None:
    """Workers leave Ctrl-C to the parent, which commits what finished and stops them."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@contextlib.contextmanager
def _main_module_hidden() -> Iterator[None]:
    """Start worker processes without them re-running the caller's main module.

    Workers need only :func:`execute_run`; with 'spawn'/'forkserver' they would otherwise
    import ``__main__`` again (a script without an ``if __name__ == "__main__"`` guard would
    start its sweep once more in every worker).
    """
    main = sys.modules.get("__main__")
    if main is None:
        yield
        return
    saved = {k: getattr(main, k) for k in ("__file__", "__spec__") if hasattr(main, k)}
    try:
        main.__spec__ = None
        if "__file__" in saved:
            del main.__file__
        yield
    finally:
        for k, v in saved.items():
            setattr(main, k, v)


@contextlib.contextmanager
def _sigint_deferred() -> Iterator[None]:
    """Hold back Ctrl-C (SIGINT) during the block and raise KeyboardInterrupt after it."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, _frame: caught.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if caught:
        if callable(previous):
            previous(signal.SIGINT, None)  # the default handler raises KeyboardInterrupt
        elif previous == signal.SIG_DFL:
            os.kill(os.getpid(), signal.SIGINT)


class LocalBackend(_Signalled):
    """Worker processes on this machine (``jobs``)."""

    def __init__(self, jobs: int) -> None:
        super().__init__()
        self.slots = jobs
        self.pool = ProcessPoolExecutor(max_workers=jobs, mp_context=mp_context(), initializer=_worker_init)

    def submit(self, run: PlannedRun, origin: str) -> Any:
        # A submit may start a worker process; Ctrl-C in the middle of that would leave a
        # child the pool does not know of (it could not be stopped), so it waits until after.
        with _main_module_hidden(), _sigint_deferred():
            future = self.pool.submit(execute_run, run.text, origin, run.seed)
        return self._watch(future)

    def result(self, future: Any) -> dict[str, Any]:
        from concurrent.futures.process import BrokenProcessPool

        try:
            return future.result()
        except BrokenProcessPool:
            raise SweepError(
                "a worker process died (killed, or crashed inside the simulator); "
                "finished runs are stored, run the sweep again to resume"
            ) from None

    def close(self, abort: bool = False) -> None:
        if abort:
            # Ctrl-C or a dead worker: stop the runs in progress too (workers ignore SIGINT),
            # then wait for the pool's manager thread, which sees the workers gone, fails the
            # queued futures and joins its queues. The interpreter's normal exit then has
            # nothing to wait for, and multiprocessing unlinks the pool's semaphores and
            # removes its temporary directory (os._exit would leak both).
            workers = list((getattr(self.pool, "_processes", None) or {}).values())
            for proc in workers:
                with contextlib.suppress(Exception):
                    proc.terminate()
            for proc in workers:
                with contextlib.suppress(Exception):
                    proc.join(5.0)
                    if proc.exitcode is None:
                        proc.kill()
                        proc.join(5.0)
            # A worker stopped while sending its result leaves half a message in the result
            # pipe, and the manager thread would wait for the rest for ever. The workers'
            # ends of the pipe died with them; closing ours (the parent never writes to it)
            # gives the manager EOF, so it marks the pool broken and winds down.
            writer = getattr(getattr(self.pool, "_result_queue", None), "_writer", None)
            if writer is not None:
                with contextlib.suppress(Exception):
                    writer.close()
        self.pool.shutdown(wait=True, cancel_futures=abort)


class DaskBackend(_Signalled):
    """A Dask cluster: a scheduler address, a ``distributed.Client`` or a cluster object."""

    def __init__(self, scheduler: Any) -> None:
        super().__init__()
        try:
            from distributed import Client
        except ImportError as exc:  # pragma: no cover
            raise SweepError("Dask backend needs the 'distributed' package") from exc
        if isinstance(scheduler, Client):
            self.client, self.own = scheduler, False
        else:
            address = getattr(scheduler, "scheduler_address", scheduler)
            try:
                self.client = Client(address, timeout="10s", set_as_default=False)
            except (OSError, TimeoutError) as exc:
                raise SweepError(f"cannot connect to the Dask scheduler at {address}: {exc}", code="scheduler") from None
            self.own = True
        nthreads = self.client.nthreads()
        self.slots = max(1, sum(nthreads.values()) if nthreads else 1)

    def submit(self, run: PlannedRun, origin: str) -> Any:
        return self._watch(self.client.submit(
            execute_run, run.text, origin, run.seed, pure=False, key=f"atmsim-run-{run.run_id}-{uuid.uuid4().hex[:8]}"
        ))

    def result(self, future: Any) -> dict[str, Any]:
        try:
            return future.result()
        except Exception as exc:  # KilledWorker, worker-side import errors, ...
            return {
                "error": f"{type(exc).__name__}: {exc}",
                "error_field": None,
                "error_type": type(exc).__name__,
                "started_at": time.time(),
                "wall_s": float("nan"),
            }

    def close(self, abort: bool = False) -> None:
        if self.own:
            self.client.close()
