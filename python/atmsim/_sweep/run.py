"""Running a sweep: :func:`sweep` (plan, then run) and :func:`run_plan`, which sends a plan's
runs to a backend and commits each finished run to the results store (:mod:`atmsim._store`).

    import atmsim
    atmsim.sweep("tests/data/tiny.toml",
                 grid={"tcp[0].window_bytes": [4096, 8192, 16384]},
                 seeds="1-20", store="results.duckdb", jobs=2)
    atmsim.results(store="results.duckdb", wide=True)

Every grid point is validated before anything runs or the store is touched
(:mod:`atmsim._sweep.plan`); runs already in the store are skipped (failed ones are run
again only with ``retry_failed=True``), so an interrupted sweep resumes.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._scenario import Scenario
from .._store import DEFAULT_LOCK_TIMEOUT_S, RunRecord, Store, flatten_summary, resolve_store
from ..callbacks import SweepProgress
from ..errors import ScenarioError
from .backends import Backend, DaskBackend, InProcessBackend, LocalBackend
from .plan import PlannedRun, SweepPlan, plan_sweep
from .seeds import Seeds, short

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["SweepSummary", "run_plan", "sweep"]


def _record(run: PlannedRun, scenario: str, raw: Mapping[str, Any], version: str) -> RunRecord:
    common: dict[str, Any] = dict(
        run_id=run.run_id, scenario=scenario, params=run.params, scenario_doc=run.doc, seed=run.seed, version=version
    )
    if "error" in raw:
        return RunRecord(
            **common,
            status="failed",
            started_at=raw.get("started_at", time.time()),
            wall_s=raw.get("wall_s", float("nan")),
            error=raw["error"],
            error_field=raw.get("error_field") or None,
        )
    summary = raw["summary"]
    if isinstance(summary, str):
        summary = json.loads(summary)
    return RunRecord(
        **common,
        status="ok",
        started_at=raw["started_at"],
        wall_s=raw["wall_s"],
        metrics=flatten_summary(summary),
        series=raw.get("series"),
        summary=json.dumps(summary, ensure_ascii=False),
    )


@dataclass
class SweepSummary:
    """What a sweep did. ``results()`` reads its rows back from the store."""

    sweep_id: str
    store: Path
    total: int  # runs in the sweep
    skipped: int  # already in the store
    ok: int  # run now, succeeded
    failed: int  # run now, failed
    wall_s: float
    failures: list[tuple[str, str]] = field(default_factory=list)  # (run_id, error), first few

    def results(self, wide: bool = False) -> pd.DataFrame:
        from .._query import results

        return results(store=self.store, sweep=self.sweep_id, wide=wide)


@contextlib.contextmanager
def _progress(progress: bool | SweepProgress | None, label: str, skipped: int) -> Iterator[SweepProgress]:
    if progress is True:
        from .._progress import sweep_bar

        with sweep_bar(label, skipped=skipped) as tick:
            yield tick
    elif callable(progress):
        yield progress
    else:
        yield lambda done, failed, total: None


def sweep(
    scenario: str | Path | Mapping[str, Any] | Scenario,
    grid: Mapping[str, Any] | None = None,
    seeds: Seeds | None = None,
    store: str | Path | None = None,
    jobs: int | None = None,
    scheduler: Any = None,
    progress: bool | SweepProgress | None = False,
    retry_failed: bool = False,
    lock_timeout: float = DEFAULT_LOCK_TIMEOUT_S,
    flush_interval: float = 1.0,
    fsync: bool = True,
) -> SweepSummary:
    """Run ``scenario`` at every point of ``grid`` for every seed, into the results store.

    Args:
        scenario: a path, a dict or a :class:`Scenario`.
        grid: ``{dotted path: [values]}``; a scalar value means one value.
        seeds: ``"1-20"``, ``"1,3,5"``, ``7`` or a list [default: ``simulation.seed``].
        store: the DuckDB file [default: ``results.duckdb`` in the current directory].
        jobs: worker processes [default: all cores]; ``0`` runs in this process.
        scheduler: a Dask scheduler address (``tcp://host:8786``), a ``distributed.Client``
            or a cluster object; overrides ``jobs``.
        progress: False, True (a progress bar on stderr) or ``callable(done, failed, total)``.
        retry_failed: run again the runs stored as failed (by default they are skipped).
        lock_timeout: how long to wait for another process holding the store.
        flush_interval: finished runs are committed at least this often (seconds).
        fsync: make series files durable before the transaction that references them.

    Raises :class:`ScenarioError` (before any run, store untouched) if a grid point is
    invalid, :class:`atmsim._store.StoreLockedError` if the store stays busy.
    """
    t_start = time.perf_counter()
    _check_jobs(jobs)
    plan = plan_sweep(scenario, grid, seeds)
    return run_plan(plan, store, jobs, scheduler, progress, retry_failed, lock_timeout, flush_interval, fsync, t_start)


def _check_jobs(jobs: Any) -> None:
    if jobs is not None and (isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 0):
        raise ScenarioError(f"jobs must be an integer >= 0, got {short(jobs)}", field="jobs")


def run_plan(
    plan: SweepPlan,
    store: str | Path | None = None,
    jobs: int | None = None,
    scheduler: Any = None,
    progress: bool | SweepProgress | None = False,
    retry_failed: bool = False,
    lock_timeout: float = DEFAULT_LOCK_TIMEOUT_S,
    flush_interval: float = 1.0,
    fsync: bool = True,
    _t_start: float | None = None,
    need_summaries: bool = False,
) -> SweepSummary:
    """Run a planned sweep (:func:`plan_sweep`, :func:`plan_points`, :func:`plan_runs`) into
    the results store: the runs already stored are skipped; the arguments are :func:`sweep`'s.
    ``need_summaries``: runs stored without their whole summary (by a version-1 store) are run
    again, for a reader of ``runs.summary`` (:mod:`atmsim.study.executor`)."""
    from .. import __version__

    t_start = time.perf_counter() if _t_start is None else _t_start
    _check_jobs(jobs)
    db = Store(resolve_store(store), lock_timeout=lock_timeout)

    def on_wait(_text: str) -> None:
        print(f"waiting for {db.path}: another process has it open", file=sys.stderr, flush=True)

    existing = db.begin_sweep(
        plan.sweep_id, plan.scenario, plan.grid, plan.seeds, (r.run_id for r in plan.runs), on_wait=on_wait
    )
    skip = {"ok"} if retry_failed else {"ok", "failed"}
    if not need_summaries:
        skip.add("ok-without-summary")
    todo = [r for r in plan.runs if existing.get(r.run_id) not in skip]
    summary = SweepSummary(plan.sweep_id, db.path, len(plan.runs), len(plan.runs) - len(todo), 0, 0, 0.0)
    if todo:
        if scheduler is not None:
            backend: Backend = DaskBackend(scheduler)
        elif jobs == 0:
            backend = InProcessBackend()
        else:
            n = jobs if jobs is not None else (os.cpu_count() or 1)
            backend = LocalBackend(max(1, min(n, len(todo))))
        _execute(plan, todo, backend, db, summary, progress, __version__, flush_interval, fsync, on_wait)
    summary.wall_s = time.perf_counter() - t_start
    return summary


def _execute(
    plan: SweepPlan,
    todo: list[PlannedRun],
    backend: Backend,
    db: Store,
    summary: SweepSummary,
    progress: bool | SweepProgress | None,
    version: str,
    flush_interval: float,
    fsync: bool,
    on_wait: Callable[[str], None],
) -> None:
    queue = iter(todo)
    in_flight: dict[Any, PlannedRun] = {}
    pending: list[RunRecord] = []
    last_flush = time.monotonic()
    window = max(2, 2 * backend.slots)

    def flush() -> None:
        nonlocal last_flush
        db.commit(pending, plan.sweep_id, fsync=fsync, on_wait=on_wait)
        pending.clear()
        last_flush = time.monotonic()

    aborted = True
    try:
        with _progress(progress, plan.scenario, summary.skipped) as tick:
            tick(0, 0, len(todo))
            while True:
                while len(in_flight) < window:
                    run = next(queue, None)
                    if run is None:
                        break
                    in_flight[backend.submit(run, plan.origin)] = run
                if not in_flight:
                    break
                # (at least 50 ms: with --commit-every 0 a finished run is committed as soon
                # as the wait returns for it, no need to poll)
                for fut in backend.wait_some(set(in_flight), timeout=max(flush_interval, 0.05)):
                    run = in_flight.pop(fut)
                    rec = _record(run, plan.scenario, backend.result(fut), version)
                    pending.append(rec)
                    if rec.status == "ok":
                        summary.ok += 1
                    else:
                        summary.failed += 1
                        if len(summary.failures) < 10:
                            summary.failures.append((rec.run_id, rec.error or ""))
                    tick(summary.ok + summary.failed, summary.failed, len(todo))
                if pending and time.monotonic() - last_flush >= flush_interval:
                    flush()
            if pending:
                flush()
        aborted = False
    finally:
        if aborted and pending:
            # Interrupted (Ctrl-C, a dead worker): keep what finished.
            with contextlib.suppress(Exception):
                flush()
        backend.close(abort=aborted)
