"""The one executor of every study's runs: in this process on every core, or — given a results
store — through the store, so that an interrupted study resumes.

A study hands its runs, ``(scenario, seed)`` pairs, to :func:`atmsim.reproduce.runner.run_many`,
which hands them to the :class:`Executor` in use (:func:`using`; a study's ``run()`` sets one
up from its ``store``, ``jobs`` and ``scheduler`` arguments):

- **no store**: the runs go to a thread pool in this process, one per core (the core
  releases the GIL while it simulates); nothing is written.
- **a store**: the runs are one sweep of the store (:func:`atmsim._sweep.plan_runs`,
  :func:`atmsim._sweep.run_plan`): on local worker processes (``jobs``) or a Dask
  ``scheduler``; a run already stored (same scenario document, same seed) is not run again
  but read back — its whole summary (``runs.summary``) and its series — so a study run
  again, or resumed after Ctrl-C, simulates only what is missing and gives the same results.
  A run stored as failed is run again; a run that fails stops the study
  (:class:`StudyRunError`).

Either way the study gets back, in the order given, each run's summary or ``keep(results)``
(a :class:`~atmsim._run_results.Results` with the run's summary and series), and the
executor counts the runs it simulated (:attr:`Executor.executed`) and those it read back
(:attr:`Executor.reused`).

An executor with a TCP profile (``tcp``; ``atmsim reproduce STUDY --tcp cubic+sack``,
:mod:`atmsim.study.tcp_profile`) sets it on every connection of every scenario before it
runs (:meth:`Executor.prepare`): every study's runs pass here (mah96's sweep plan too), so no
study and no experiment of one can miss it. The profile changes the scenario document, and a
stored run is known by its document and seed, so a BSD run and the profile's never share a run
of the store. :func:`run_study` with ``tcp`` runs a study twice, the profile's pass and BSD's
(:mod:`atmsim.study.today`).
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import StudyRunError

if TYPE_CHECKING:
    from .._run_results import Results
    from .._scenario import Scenario
    from .._sweep import SweepSummary
    from .tcp_profile import TcpProfile
    from .today import Comparison

__all__ = ["Executor", "current", "default_threads", "raise_failed", "run_study", "using"]

Runs = Sequence[tuple["Scenario", int]]
Tick = Callable[[int, int], None]


#: How often a study's finished runs are committed to its store [s]. Ctrl-C and a failing run
#: commit what has finished at once, so only a killed process loses up to this much; each
#: commit opens the DuckDB file (0.1–0.4 s on a loaded machine), which at a sweep's default
#: of 1 s held up the dispatch of a study's short runs.
COMMIT_EVERY_S = 10.0


class RunsStopped(Exception):
    """Raised inside a thread's run when the study is stopping; never seen by callers."""


def raise_failed(done: SweepSummary) -> None:
    """Raise :class:`~atmsim.errors.StudyRunError` naming the first failure if any of the
    sweep's runs failed."""
    if done.failed:
        rid, err = done.failures[0]
        raise StudyRunError(f"{done.failed} of {done.total} runs failed (first: run {rid}: {err})")


def default_threads() -> int:
    """One thread per core this process may use."""
    import os

    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


@dataclass
class Executor:
    """Where a study's runs go: ``store`` (a results store, or ``None``), ``jobs`` (threads
    without a store, worker processes with one; ``0``: one at a time in this process;
    default: every core) and ``scheduler`` (a Dask scheduler, with a store only)."""

    store: Path | None = None
    jobs: int | None = None
    scheduler: Any = None
    label: str = "study"
    executed: int = 0  # runs simulated by this executor
    reused: int = 0  # runs read back from the store instead
    tcp: TcpProfile | None = None  # set on every connection of every run (module docs)

    def __post_init__(self) -> None:
        if self.scheduler is not None and self.store is None:
            raise ValueError("a Dask scheduler runs a study through a results store: give the store too")

    def run(self, runs: Runs, progress: Tick | None = None, keep: Callable[[Results], Any] | None = None) -> list:
        """Every run's summary (or ``keep(results)``), in the order given; ``progress(done,
        total)`` as runs finish (from the calling thread)."""
        if not runs:
            return []
        if self.tcp is not None:
            applied: dict[int, Scenario] = {}  # one copy per scenario object (runs share them)
            for sc, _ in runs:
                if id(sc) not in applied:
                    applied[id(sc)] = self.prepare(sc)
            runs = [(applied[id(sc)], seed) for sc, seed in runs]
        pick = keep or (lambda r: r.summary)
        if self.store is None:
            out = _in_threads(runs, progress, pick, self.jobs)
            self.executed += len(runs)
            return out
        return self._through_store(runs, progress, pick)

    def prepare(self, sc: Scenario) -> Scenario:
        """``sc`` as this executor runs it: with its TCP profile on every connection (a copy),
        or ``sc`` itself without one."""
        return sc if self.tcp is None else self.tcp.apply(sc)

    def _through_store(self, runs: Runs, progress: Tick | None, pick: Callable[[Results], Any]) -> list:
        from .. import _sweep as sweeps

        plan = sweeps.plan_runs(self.label, self.label, runs)
        tick = _Ticks(progress, len(runs), len(plan.runs))
        done = sweeps.run_plan(plan, store=self.store, jobs=self.jobs, scheduler=self.scheduler, progress=tick.sweep,
                               retry_failed=True, need_summaries=True, flush_interval=COMMIT_EVERY_S)
        self.executed += done.ok + done.failed
        self.reused += done.skipped
        raise_failed(done)
        ids = [r.run_id for r in plan.runs]
        kept = {rid: pick(res) for rid, res in stored_results(done.store, ids)}
        tick.finish()
        return [kept[sweeps.run_id_of(sc._doc, int(seed))] for sc, seed in runs]


class _Ticks:
    """A study's ``progress(done, total)`` counts the runs it listed; a sweep counts the runs
    it simulates (the listed ones less those stored and those listed twice)."""

    def __init__(self, progress: Tick | None, listed: int, planned: int):
        self.progress, self.listed, self.planned = progress, listed, planned
        self.told = 0

    def _tell(self, upto: int) -> None:
        if self.progress is None:
            return
        for d in range(self.told + 1, min(upto, self.listed) + 1):
            self.progress(d, self.listed)
        self.told = max(self.told, min(upto, self.listed))

    def sweep(self, done: int, _failed: int, todo: int) -> None:
        self._tell(self.planned - todo + done)

    def finish(self) -> None:
        self._tell(self.listed)


def stored_results(store: Path, run_ids: list[str]) -> Iterator[tuple[str, Results]]:
    """The stored runs among ``run_ids`` as :class:`~atmsim._run_results.Results` (whole
    summary and series), one at a time, so the series of many runs are never held at once."""
    import pandas as pd

    from .._query import series_frame
    from .._run_results import Results
    from .._store import Store

    db = Store(store)
    with db.reader() as con:
        con.register("_want", pd.DataFrame({"run_id": run_ids}, dtype=object))
        rows = con.execute(
            "SELECT r.run_id, r.summary, r.series_path FROM runs r JOIN _want USING (run_id) "
            "WHERE r.status = 'ok' AND r.summary IS NOT NULL"
        ).fetchall()
        con.unregister("_want")
    for rid, summary, series_path in rows:
        yield rid, Results(json.loads(summary), series_frame(db, series_path))


def _in_threads(runs: Runs, progress: Tick | None, pick: Callable[[Results], Any], jobs: int | None) -> list:
    """Every run on a pool of ``jobs`` threads (default: one per core), results in the order
    given. Python delivers Ctrl-C to the main thread only, and the core checks for signals
    only when it runs there; so the threads' runs watch a stop flag in their progress
    callback (about every 0.5 % of simulated time): when the main thread is interrupted (or a
    run fails) it sets the flag, cancels the queued runs and waits the short while the
    running ones take to reach their next report, then the exception propagates."""
    total = len(runs)
    threads = jobs or default_threads()
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


_CURRENT: ContextVar[Executor | None] = ContextVar("atmsim_study_executor", default=None)


def current() -> Executor:
    """The executor in use (:func:`using`), or a new one that runs in threads without a store."""
    return _CURRENT.get() or Executor()


@contextlib.contextmanager
def using(executor: Executor) -> Iterator[Executor]:
    """Run the block's study runs on ``executor``. Its results store is checked first, so a
    damaged store is refused (:class:`~atmsim.errors.StoreError`, one line) before any run."""
    if executor.store is not None:
        from .._store import Store

        Store(executor.store).verify()
    token = _CURRENT.set(executor)
    try:
        yield executor
    finally:
        _CURRENT.reset(token)


def run_study(label: str, body: Callable[..., Path], out_dir: str | Path, mode: Any, seed: int, progress: Any,
              store: str | Path | None, jobs: int | None, scheduler: Any, tcp: TcpProfile | None = None,
              comparison: Comparison | None = None) -> Path:
    """A study's ``run()``: ``body(out_dir, mode, seed, progress, store)`` with its runs on an
    :class:`Executor` of ``store`` (the results store its runs go into and are read back from,
    so an interrupted study resumes; its verdicts are written there too), ``jobs`` and
    ``scheduler``, its sweep named ``label``.

    With ``tcp`` (a :class:`~atmsim.study.tcp_profile.TcpProfile`) the body runs twice: first
    with the profile on every connection into ``out_dir/tcp-<profile>/``, then as shipped into
    ``out_dir``, whose report gains the section of the study's ``comparison``
    (:class:`atmsim.study.today.Comparison`; :mod:`atmsim.study.today`)."""
    where = Path(store) if store is not None else None
    if tcp is None:
        with using(Executor(where, jobs, scheduler, label=label)):
            return body(out_dir, mode, seed, progress, store)
    from . import today

    if comparison is None:
        raise ValueError(f"{label}: --tcp needs the study's comparison (atmsim.study.today.Comparison)")
    modern_dir = Path(out_dir) / today.subdir(tcp)
    with using(Executor(where, jobs, scheduler, label=f"{label} --tcp {tcp.name}", tcp=tcp)), today.modern_pass(tcp) as modern:
        body(modern_dir, mode, seed, progress, store)
    with using(Executor(where, jobs, scheduler, label=label)), today.bsd_pass(modern, comparison, modern_dir):
        return body(out_dir, mode, seed, progress, store)
