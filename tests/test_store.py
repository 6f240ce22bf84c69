"""The results store: schema, flattening, failed runs, results() long/wide, locking, orphans."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pandas as pd
import pytest

import atmsim
import atmsim._sweep as sweeps_module
import atmsim._sweep.backends as backends_module
from atmsim._query import series
from atmsim._store import Store, StoreLockedError, flatten_summary

REPO = Path(__file__).resolve().parent.parent
TINY = REPO / "tests" / "data" / "tiny.toml"
GRID = {"tcp[0].window_bytes": [2048, 8192], "tcp[0].variant": ["reno", "newreno"]}


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> tuple[Path, atmsim.SweepSummary]:
    path = tmp_path_factory.mktemp("store") / "exp.duckdb"
    summary = atmsim.sweep(TINY, grid=GRID, seeds="1-3", store=path, jobs=0)
    return path, summary


def test_schema_as_documented(store):
    path, _ = store
    con = duckdb.connect(str(path), read_only=True)
    try:
        cols = {
            t: [r[0] for r in con.execute(f"DESCRIBE {t}").fetchall()] for t in ("runs", "metrics", "sweeps", "sweep_runs")
        }
        run = con.execute("SELECT * FROM runs LIMIT 1").df().iloc[0]
        sweep = con.execute("SELECT * FROM sweeps").df()
    finally:
        con.close()
    assert cols["runs"] == [
        "run_id", "sweep_id", "scenario", "params", "scenario_doc", "seed", "status", "error", "error_field",
        "version", "started_at", "wall_s", "series_path", "summary",
    ]
    assert cols["metrics"] == ["run_id", "entity", "metric", "value"]
    assert cols["sweeps"] == ["sweep_id", "scenario", "grid", "seeds", "created_at"]
    assert run["scenario"] == "tiny" and run["status"] == "ok" and run["version"] == atmsim.__version__
    params = json.loads(run["params"])
    assert set(params) == set(GRID)
    doc = json.loads(run["scenario_doc"])
    assert doc["tcp"][0]["window_bytes"] == params["tcp[0].window_bytes"]
    assert run["series_path"] == f"exp.series/{run['run_id']}.parquet"
    assert (path.parent / run["series_path"]).exists()
    assert json.loads(run["summary"])["connections"][0]["name"]  # the whole summary, strings too
    assert len(sweep) == 1 and json.loads(sweep["grid"][0]) == GRID and json.loads(sweep["seeds"][0]) == [1, 2, 3]


def test_metrics_cover_every_entity(store):
    path, _ = store
    long = atmsim.results(store=path)
    entities = set(long["entity"])
    assert {"conn:ttcp", "port:a->sw", "port:sw->b", "host:a", "host:b", "run", "conservation"} <= entities
    one = long[long["run_id"] == long["run_id"].iloc[0]]
    metrics = set(zip(one["entity"], one["metric"], strict=True))
    for m in [("conn:ttcp", "goodput_bps"), ("conn:ttcp", "rexmt_segs"), ("conn:ttcp", "timeouts"),
              ("port:sw->b", "drops"), ("run", "duration_s"), ("run", "events"), ("run", "cell_hops"),
              ("run", "wall_s"), ("conservation", "cells.injected"), ("conservation", "frames.balanced")]:
        assert m in metrics, m


def test_flatten_summary_matches_a_direct_run():
    r = atmsim.Scenario.from_toml(TINY).run(seed=2)
    flat = {(e, m): v for e, m, v in flatten_summary(r.summary)}
    conn = r.summary["connections"][0]
    assert flat[("conn:ttcp", "goodput_bps")] == conn["goodput_bps"]
    assert ("conn:ttcp", "state") not in flat and ("conn:ttcp", "name") not in flat
    assert flat[("conservation", "cells.balanced")] == 1.0
    assert ("run", "seed") not in flat


def test_results_long_form(store):
    path, summary = store
    long = atmsim.results(store=path)
    assert list(long.columns) == [
        "run_id", "sweep_id", "scenario", "seed", "status", "tcp[0].window_bytes", "tcp[0].variant",
        "entity", "metric", "value",
    ]
    assert long["run_id"].nunique() == 12 and (long["sweep_id"] == summary.sweep_id).all()
    assert not long.duplicated(["run_id", "entity", "metric"]).any()
    assert set(long["tcp[0].window_bytes"]) == {2048, 8192} and set(long["tcp[0].variant"]) == {"reno", "newreno"}
    # The stored numbers are the run's numbers.
    row = long[(long["tcp[0].window_bytes"] == 8192) & (long["tcp[0].variant"] == "reno") & (long["seed"] == 2)]
    direct = atmsim.Scenario.from_toml(TINY).run(seed=2).summary["connections"][0]["goodput_bps"]
    assert row[(row["entity"] == "conn:ttcp") & (row["metric"] == "goodput_bps")]["value"].item() == direct


def test_results_wide_form(store):
    path, summary = store
    wide = atmsim.results(store=path, sweep=summary.sweep_id, wide=True)
    assert len(wide) == 12 and wide["run_id"].is_unique
    assert list(wide.columns[:7]) == ["run_id", "sweep_id", "scenario", "seed", "status", "tcp[0].window_bytes", "tcp[0].variant"]
    assert "conn:ttcp.goodput_bps" in wide.columns and "port:sw->b.drops" in wide.columns
    means = wide.groupby("tcp[0].window_bytes")["conn:ttcp.goodput_bps"].mean()
    assert means[8192] > means[2048] > 0
    assert summary.results(wide=True).equals(wide)


def test_results_by_sweep_includes_runs_found_stored(store, tmp_path):
    path, _first = store
    # A second sweep overlapping the first: its stored runs are skipped but belong to it.
    second = atmsim.sweep(TINY, grid={"tcp[0].window_bytes": [8192]}, seeds="1-3", store=path, jobs=0)
    assert second.skipped == 0 and second.ok == 3  # variant unset: not the same documents
    third = atmsim.sweep(TINY, grid={"tcp[0].window_bytes": [2048, 8192], "tcp[0].variant": ["reno"]},
                         seeds="2-3", store=path, jobs=0)
    assert (third.skipped, third.ok) == (4, 0)
    wide = atmsim.results(store=path, sweep=third.sweep_id, wide=True)
    assert len(wide) == 4 and (wide["sweep_id"] == third.sweep_id).all()
    assert list(wide.columns[5:7]) == ["tcp[0].window_bytes", "tcp[0].variant"]
    everything = atmsim.results(store=path, wide=True)
    assert len(everything) == 15


def test_failed_runs_are_recorded_and_do_not_stop_the_sweep(tmp_path, monkeypatch):
    real = backends_module.execute_run

    def flaky(text, origin, seed):
        if json.loads(text)["tcp"][0]["window_bytes"] == 4096 and seed == 2:
            return {"error": "simulated failure", "error_field": "tcp[0].window_bytes",
                    "error_type": "SimulationError", "started_at": time.time(), "wall_s": 0.0}
        return real(text, origin, seed)

    monkeypatch.setattr(backends_module, "_runner", flaky)
    path = tmp_path / "results.duckdb"
    grid = {"tcp[0].window_bytes": [2048, 4096, 8192]}
    summary = atmsim.sweep(TINY, grid=grid, seeds="1-3", store=path, jobs=0)
    assert (summary.ok, summary.failed) == (8, 1)
    wide = atmsim.results(store=path, wide=True)
    failed = wide[wide["status"] == "failed"]
    assert len(failed) == 1 and failed["seed"].item() == 2 and pd.isna(failed["conn:ttcp.goodput_bps"].item())
    con = duckdb.connect(str(path), read_only=True)
    row = con.execute("SELECT error, error_field, series_path FROM runs WHERE status = 'failed'").fetchone()
    con.close()
    assert row == ("simulated failure", "tcp[0].window_bytes", None)
    # Failed runs are kept on resume, and retried with retry_failed.
    again = atmsim.sweep(TINY, grid=grid, seeds="1-3", store=path, jobs=0)
    assert (again.skipped, again.ok, again.failed) == (9, 0, 0)
    monkeypatch.setattr(backends_module, "_runner", real)
    retried = atmsim.sweep(TINY, grid=grid, seeds="1-3", store=path, jobs=0, retry_failed=True)
    assert (retried.skipped, retried.ok, retried.failed) == (8, 1, 0)
    wide = atmsim.results(store=path, wide=True)
    assert len(wide) == 9 and (wide["status"] == "ok").all()


def test_real_core_failure_is_recorded(tmp_path):
    """A run the core refuses inside the worker (here: a document made invalid after planning)."""
    out = backends_module.execute_run('{"simulation": {"duration_s": -1}}', "x.toml", 1)
    assert out["error_type"] == "ScenarioError" and "duration_s" in out["error"] and out["wall_s"] >= 0


def _hold_store(path: Path, seconds: float) -> subprocess.Popen:
    code = (
        "import duckdb, sys, time; c = duckdb.connect(sys.argv[1]); print('held', flush=True); "
        f"time.sleep({seconds}); c.close()"
    )
    proc = subprocess.Popen([sys.executable, "-c", code, str(path)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "held"
    return proc


def test_second_writer_waits_for_the_store(tmp_path):
    path = tmp_path / "results.duckdb"
    holder = _hold_store(path, 1.5)
    try:
        t0 = time.monotonic()
        summary = atmsim.sweep(TINY, grid={"tcp[0].window_bytes": [4096]}, seeds="1-2", store=path, jobs=0)
        assert time.monotonic() - t0 >= 1.0 and summary.ok == 2
    finally:
        holder.wait(timeout=30)
    assert len(atmsim.results(store=path, wide=True)) == 2


def test_locked_store_times_out_with_a_clear_message(tmp_path):
    path = tmp_path / "results.duckdb"
    holder = _hold_store(path, 5)
    try:
        with pytest.raises(StoreLockedError) as info:
            atmsim.sweep(TINY, grid={"tcp[0].window_bytes": [4096]}, seeds="1", store=path, jobs=0, lock_timeout=0.5)
        assert "in use by another process" in str(info.value) and str(path) in str(info.value)
    finally:
        holder.kill()
        holder.wait()


def test_orphan_series_file_is_overwritten(tmp_path):
    path = tmp_path / "results.duckdb"
    plan = sweeps_module.plan_sweep(TINY, {"tcp[0].window_bytes": [4096]}, "1")
    run_id = plan.runs[0].run_id
    db = Store(path)
    db.series_dir.mkdir(parents=True)
    (db.series_dir / f"{run_id}.parquet").write_bytes(b"garbage from a killed sweep")
    (db.series_dir / f".{run_id}.999999999.tmp").write_bytes(b"half-written")
    atmsim.sweep(TINY, grid={"tcp[0].window_bytes": [4096]}, seeds="1", store=path, jobs=0)
    assert len(series(run_id, store=path)) > 0
    assert not list(db.series_dir.glob(".*.tmp"))
