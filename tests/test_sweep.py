"""Sweeps: grid/seed parsing, local vs Dask backends, kill-and-resume, errors before any run."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pandas as pd
import pytest

import atmsim
from atmsim import ScenarioError
from atmsim._sweep import parse_seeds, plan_sweep, run_id_of
from atmsim._sweep.grid import parse_grid_option, parse_value

REPO = Path(__file__).resolve().parent.parent
TINY = REPO / "tests" / "data" / "tiny.toml"
WINDOWS = [1024, 2048, 3072, 4096, 6144, 8192, 12288, 16384, 32768, 65536]


def atmsim_cli(*args: str, cwd=None, timeout=300) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "atmsim", *args],
        capture_output=True, text=True, cwd=cwd, stdin=subprocess.DEVNULL, timeout=timeout,
    )


def stored_metrics(store: Path) -> pd.DataFrame:
    """The metrics table without wall-clock numbers, sorted."""
    con = duckdb.connect(str(store), read_only=True)
    try:
        df = con.execute(
            """SELECT m.run_id, m.entity, m.metric, m.value FROM metrics m
               WHERE m.metric NOT LIKE '%wall%' AND m.metric NOT LIKE '%\\_per\\_s' ESCAPE '\\'
               ORDER BY m.run_id, m.entity, m.metric"""
        ).df()
    finally:
        con.close()
    return df


def runs_table(store: Path) -> pd.DataFrame:
    con = duckdb.connect(str(store), read_only=True)
    try:
        return con.execute("SELECT * FROM runs ORDER BY run_id").df()
    finally:
        con.close()


# ----- parsing ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [("1-5", [1, 2, 3, 4, 5]), ("1,3,5", [1, 3, 5]), ("7", [7]), ("1-3,9", [1, 2, 3, 9]), (" 2 - 3 ", [2, 3])],
)
def test_parse_seeds(text, expected):
    assert parse_seeds(text) == expected


@pytest.mark.parametrize("text", ["", "a", "5-1", "1-", "-3", "1.5"])
def test_parse_seeds_rejects(text):
    with pytest.raises(ScenarioError):
        parse_seeds(text)


def test_parse_grid_values():
    assert parse_value("8192") == 8192 and isinstance(parse_value("8192"), int)
    assert parse_value("2.5") == 2.5 and parse_value("1e3") == 1000.0
    assert parse_value("true") is True and parse_value("False") is False
    assert parse_value("newreno") == "newreno"
    assert parse_value('["a","b"]') == ["a", "b"]
    path, values = parse_grid_option('vc[0].path=["a","sw","b"],["a","b"]')
    assert path == "vc[0].path" and values == [["a", "sw", "b"], ["a", "b"]]
    assert parse_grid_option("tcp[0].variant=reno,newreno") == ("tcp[0].variant", ["reno", "newreno"])
    for bad in ["nopath", "=1,2", "tcp[0].window_bytes=", "tcp[0].window_bytes=1,,2", "tcp[0]..x=1", "x=[1,2"]:
        with pytest.raises(ScenarioError):
            parse_grid_option(bad)


def test_plan_is_cartesian_and_run_ids_are_stable():
    plan = plan_sweep(TINY, {"tcp[0].window_bytes": [4096, 8192], "link[0].delay_ms": [1.0, 2.0]}, "1-3")
    assert len(plan.runs) == 12 and len({r.run_id for r in plan.runs}) == 12
    again = plan_sweep(TINY, {"link[0].delay_ms": [2.0, 1.0], "tcp[0].window_bytes": [8192, 4096]}, [3, 2, 1])
    assert {r.run_id for r in again.runs} == {r.run_id for r in plan.runs}  # same points, same runs
    r = plan.runs[0]
    assert r.run_id == run_id_of(r.doc, r.seed) and re.fullmatch(r"[0-9a-f]{16}", r.run_id)


def test_unknown_path_is_an_error_naming_it():
    with pytest.raises(ScenarioError) as info:
        plan_sweep(TINY, {"tcp[0].windw_bytes": [1]}, "1")
    assert info.value.field == "tcp[0].windw_bytes"
    with pytest.raises(ScenarioError) as info:
        plan_sweep(TINY, {"tcp[4].window_bytes": [1]}, "1")
    assert info.value.field == "tcp[4].window_bytes"


# ----- backends ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def local_sweep(tmp_path_factory):
    """10 windows x 20 seeds on the local backend (2 worker processes)."""
    store = tmp_path_factory.mktemp("local") / "results.duckdb"
    t0 = time.perf_counter()
    summary = atmsim.sweep(TINY, grid={"tcp[0].window_bytes": WINDOWS}, seeds="1-20", store=store, jobs=2)
    return summary, store, time.perf_counter() - t0


def test_local_sweep_stores_every_run_once(local_sweep):
    summary, store, _ = local_sweep
    assert (summary.total, summary.ok, summary.failed, summary.skipped) == (200, 200, 0, 0)
    runs = runs_table(store)
    assert len(runs) == 200 and runs["run_id"].is_unique and (runs["status"] == "ok").all()
    assert (runs["version"] == atmsim.__version__).all()
    assert set(runs["seed"]) == set(range(1, 21))
    series_dir = store.with_name("results.series")
    assert len(list(series_dir.glob("*.parquet"))) == 200
    assert all((store.parent / p).exists() for p in runs["series_path"])


def test_dask_backend_gives_identical_metrics(local_sweep, tmp_path):
    distributed = pytest.importorskip("distributed")
    _, local_store, _ = local_sweep
    store = tmp_path / "results.duckdb"
    with distributed.LocalCluster(
        processes=True, n_workers=2, threads_per_worker=1, dashboard_address=None, silence_logs=40
    ) as cluster:
        summary = atmsim.sweep(
            TINY, grid={"tcp[0].window_bytes": WINDOWS}, seeds="1-20", store=store, scheduler=cluster.scheduler_address
        )
    assert (summary.ok, summary.failed) == (200, 0)
    pd.testing.assert_frame_equal(stored_metrics(store), stored_metrics(local_store))


def test_rerun_skips_everything(local_sweep):
    summary, store, _ = local_sweep
    again = atmsim.sweep(TINY, grid={"tcp[0].window_bytes": WINDOWS}, seeds="1-20", store=store, jobs=2)
    assert (again.skipped, again.ok, again.sweep_id) == (200, 0, summary.sweep_id)
    assert len(runs_table(store)) == 200


# ----- kill and resume --------------------------------------------------------------------------


def _count_ok(store: Path) -> int:
    con = duckdb.connect(str(store), read_only=True)
    try:
        return con.execute("SELECT count(*) FROM runs WHERE status = 'ok'").fetchone()[0]
    finally:
        con.close()


def test_kill_9_and_resume(tmp_path):
    store = tmp_path / "results.duckdb"
    series = tmp_path / "results.series"
    # 60 runs of ~40 ms each (5 s simulated over T1), each committed as soon as it is done.
    args = [
        "sweep", str(TINY), "--grid", "simulation.duration_s=5.0",
        "--grid", "tcp[0].window_bytes=2048,4096,8192,16384,32768,65536", "--seeds", "1-10",
        "--jobs", "2", "--store", str(store), "--commit-every", "0", "--quiet",
    ]
    # A process killed with -9 cannot remove its multiprocessing temp dir (pymp-*): keep it
    # inside tmp_path rather than in the machine's /tmp.
    temp = tmp_path / "tmp"
    temp.mkdir()
    proc = subprocess.Popen(
        [sys.executable, "-m", "atmsim", *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, start_new_session=True,
        env=dict(os.environ, TMPDIR=str(temp)),
    )
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            if series.is_dir() and len(list(series.glob("*.parquet"))) >= 6:
                time.sleep(0.3)  # series files are renamed into place just before their commit
                break
            time.sleep(0.02)
        assert proc.poll() is None, "the sweep finished before it could be killed: " + proc.stderr.read().decode()
        os.killpg(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
        with pytest.raises(ProcessLookupError):  # the whole group is gone (workers too)
            for _ in range(50):
                os.killpg(proc.pid, 0)
                time.sleep(0.1)
    committed = _count_ok(store)
    assert 0 < committed < 60

    done = atmsim_cli(*args)
    assert done.returncode == 0, done.stderr
    m = re.search(r"60 runs: (\d+) run now, (\d+) already stored", done.stderr)
    assert m, done.stderr
    assert int(m.group(2)) == committed and int(m.group(1)) == 60 - committed
    runs = runs_table(store)
    assert len(runs) == 60 and runs["run_id"].is_unique and (runs["status"] == "ok").all()
    con = duckdb.connect(str(store), read_only=True)
    try:
        per_run = con.execute("SELECT run_id, count(*) AS n FROM metrics GROUP BY run_id").df()
    finally:
        con.close()
    assert len(per_run) == 60 and per_run["n"].nunique() == 1  # no run's metrics twice or partial
    assert sorted(p.stem for p in series.glob("*.parquet")) == sorted(runs["run_id"])
    assert not list(series.glob(".*.tmp"))


# ----- errors before any run --------------------------------------------------------------------


@pytest.fixture
def existing_store(tmp_path) -> Path:
    store = tmp_path / "results.duckdb"
    atmsim.sweep(TINY, grid={"tcp[0].window_bytes": [4096]}, seeds=[1], store=store, jobs=0)
    return store


def _snapshot(directory: Path) -> dict[str, tuple[bytes, int]]:
    return {
        str(p.relative_to(directory)): (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(directory.rglob("*")) if p.is_file()
    }


@pytest.mark.parametrize(
    ("grid", "field"),
    [
        ("tcp[0].windw_bytes=4096,8192", "tcp[0].windw_bytes"),  # unknown field
        ("tcp[2].window_bytes=4096", "tcp[2].window_bytes"),  # no such entry
        ("tcp[0].window_bytes=[4096,8192", "tcp[0].window_bytes"),  # unparsable value
        ("tcp[0].window_bytes=4096,big", "tcp[0].window_bytes"),  # wrong type, caught by the core
        ("link[1].delay_ms=1.0,-5", "link[1].delay_ms"),  # invalid, caught by validation
        ("tcp[0]window_bytes=1", "tcp[0]window_bytes"),  # malformed path
    ],
)
def test_cli_bad_grid_exit_2_before_any_run(grid, field, existing_store):
    before = _snapshot(existing_store.parent)
    proc = atmsim_cli("sweep", str(TINY), "--grid", grid, "--seeds", "1-3", "--store", str(existing_store), "--quiet")
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    assert field in lines[0]
    assert "Traceback" not in proc.stdout + proc.stderr
    assert _snapshot(existing_store.parent) == before


def test_cli_malformed_scenario_and_seeds_exit_2(existing_store, tmp_path_factory):
    before = _snapshot(existing_store.parent)
    bad = tmp_path_factory.mktemp("scenario") / "bad.toml"
    bad.write_text(TINY.read_text().replace("[simulation]", "[simulation"))
    proc = atmsim_cli("sweep", str(bad), "--grid", "tcp[0].window_bytes=1024", "--store", str(existing_store), "-q")
    assert proc.returncode == 2 and len(proc.stderr.splitlines()) == 1, proc.stderr
    assert proc.stderr.startswith(f"error: {bad}: ")
    proc = atmsim_cli("sweep", str(TINY), "--seeds", "9-1", "--store", str(existing_store), "-q")
    assert proc.returncode == 2 and len(proc.stderr.splitlines()) == 1, proc.stderr
    assert "--seeds" in proc.stderr
    assert _snapshot(existing_store.parent) == before


def test_cli_sweep_default_store_in_out_dir(tmp_path):
    proc = atmsim_cli("sweep", str(TINY), "-g", "tcp[0].variant=reno,newreno", "--seeds", "1,2", "--out", "o", "-j", "1", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "4 runs: 4 run now, 0 already stored" in proc.stderr
    df = atmsim.results(store=tmp_path / "o" / "results.duckdb", wide=True)
    assert sorted(df["tcp[0].variant"]) == ["newreno", "newreno", "reno", "reno"]


def test_workers_start_by_spawn_when_tmpdir_is_too_long_for_the_fork_servers_socket(tmp_path, monkeypatch):
    import tempfile

    from atmsim._sweep import backends

    monkeypatch.setattr(tempfile, "tempdir", "/tmp")
    assert backends.mp_context().get_start_method() == "forkserver"
    long = tmp_path / ("d" * 90)
    long.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(long))
    assert backends.mp_context().get_start_method() == "spawn"
