"""The results store under hostile or failing surroundings: links
planted in or at its series directory never send a write elsewhere; a read-only file system
or a full disk is named as such, with the file, in one line (exit 2), not as a corrupt store;
Ctrl-C in `atmsim reproduce mah96` says that the finished runs are kept, as `sweep` does;
`atmsim report` of a missing store says so before importing its libraries."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import atmsim
from atmsim._query import series as series_of
from atmsim._sweep import plan_sweep
from atmsim.errors import StoreError
from conftest import default_sigint, in_own_mount_namespace, interrupt, wait_cpu_seconds

REPO = Path(__file__).resolve().parent.parent
TINY = REPO / "tests" / "data" / "tiny.toml"
GRID = {"tcp[0].window_bytes": [4096, 8192]}


def atmsim_cli(*args: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "atmsim", *args],
        capture_output=True, text=True, cwd=cwd, stdin=subprocess.DEVNULL, timeout=300,
    )


def _victim(tmp_path: Path) -> Path:
    victim = tmp_path / "elsewhere" / "precious.txt"
    victim.parent.mkdir()
    victim.write_text("not yours")
    return victim


# ----- item 4: planted links -------------------------------------------------------------


def test_a_series_directory_that_is_a_link_is_refused_before_anything_runs(tmp_path):
    store = tmp_path / "results.duckdb"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "results.series").symlink_to(elsewhere)
    proc = atmsim_cli("sweep", str(TINY), "-g", "tcp[0].window_bytes=4096", "--store", str(store), "-q")
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.splitlines() == [
        f"error: {tmp_path / 'results.series'}: the series directory is a symbolic link: "
        "refusing to follow it (make it a directory or remove it)"
    ]
    assert list(elsewhere.iterdir()) == []
    assert not store.exists()  # refused before the store was created


def test_a_dangling_series_link_is_refused_too(tmp_path):
    (tmp_path / "results.series").symlink_to(tmp_path / "nowhere")
    with pytest.raises(StoreError, match="symbolic link"):
        atmsim.sweep(TINY, grid=GRID, seeds=[1], store=tmp_path / "results.duckdb", jobs=0)
    assert not (tmp_path / "nowhere").exists()


def test_links_planted_at_the_old_temporary_and_final_names_are_never_followed(tmp_path):
    """A link planted where a run's series is written never has its target overwritten:
    temporaries have unpredictable names and are created exclusively, and the rename into
    place replaces a planted link, not its target."""
    victim = _victim(tmp_path)
    store = tmp_path / "results.duckdb"
    series = tmp_path / "results.series"
    series.mkdir()
    runs = [r.run_id for r in plan_sweep(TINY, GRID, [1]).runs]
    for run_id in runs:
        (series / f".{run_id}.{os.getpid()}.tmp").symlink_to(victim)
        (series / f"{run_id}.parquet").symlink_to(victim)
    summary = atmsim.sweep(TINY, grid=GRID, seeds=[1], store=store, jobs=0)
    assert summary.ok == 2
    assert victim.read_text() == "not yours"
    for run_id in runs:
        final = series / f"{run_id}.parquet"
        assert final.is_file() and not final.is_symlink()
        assert len(series_of(run_id, store=store)) > 0


def test_temporaries_of_dead_writers_are_removed_through_the_directory_not_a_link(tmp_path):
    store = tmp_path / "results.duckdb"
    atmsim.sweep(TINY, grid=GRID, seeds=[1], store=store, jobs=0)
    series = tmp_path / "results.series"
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    pid = int(dead.stdout)
    old = series / f".0123456789abcdef.{pid}.tmp"  # as earlier versions named them
    new = series / f".0123456789abcdef.{pid}.00ff00ff00ff00ff.tmp"
    alive = series / f".0123456789abcdef.{os.getpid()}.00ff00ff00ff00ff.tmp"
    for p in (old, new, alive):
        p.write_bytes(b"partial")
    atmsim.sweep(TINY, grid=GRID, seeds=[2], store=store, jobs=0)
    assert not old.exists() and not new.exists()
    assert alive.exists()  # its writer (this process) is alive


# ----- item 9: a read-only file system, a full disk ----------------------------------------


def _sweep_in_mount(tmp_path: Path, options: str, prepare: str = "", then: str = "") -> subprocess.CompletedProcess:
    store = tmp_path / "mnt" / "results.duckdb"
    return in_own_mount_namespace(
        tmp_path, options, sys.executable, "-m", "atmsim", "sweep", str(TINY), "-g", "tcp[0].window_bytes=4096,8192",
        "--seeds", "1-2", "--store", str(store), "-q", "--jobs", "0", prepare=prepare, then=then,
    )


def test_a_store_on_a_read_only_file_system_is_said_to_be_so(tmp_path):
    good = tmp_path / "good.duckdb"
    atmsim.sweep(TINY, grid={"tcp[0].window_bytes": [4096]}, seeds=[1], store=good, jobs=0)
    proc = _sweep_in_mount(tmp_path, "rw", prepare=f"cp '{good}' '{tmp_path / 'mnt'}/results.duckdb'", then="ro")
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {tmp_path / 'mnt' / 'results.duckdb'}: "), proc.stderr
    assert "read-only file system" in lines[0] and "corrupt" not in lines[0]


def test_a_full_disk_is_said_to_be_so_naming_the_file(tmp_path):
    proc = _sweep_in_mount(tmp_path, "size=48k")
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {tmp_path / 'mnt'}/"), proc.stderr
    assert "no space left on device" in lines[0] and "corrupt" not in lines[0]
    assert "Traceback" not in proc.stderr


# ----- item 10: Ctrl-C in reproduce mah96 ------------------------------------------------


def test_ctrl_c_in_reproduce_mah96_says_the_finished_runs_are_kept(tmp_path):
    out = tmp_path / "mah96"
    proc = subprocess.Popen(
        [sys.executable, "-m", "atmsim", "reproduce", "mah96", "--configs", "noqos-conv-svc", "--jobs", "0",
         "--out", str(out), "-q"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True, preexec_fn=default_sigint,
    )
    wait_cpu_seconds(proc.pid, 3.0)  # past start-up and planning: simulating
    stderr, _ = interrupt(proc)
    assert proc.returncode == 130, stderr
    assert stderr.splitlines() == [
        f"error: interrupted; finished runs are in {out / 'results.duckdb'}: run the same command to resume"
    ]
    assert not (out / "report.html").exists()


# ----- report of a missing store -----------------------------------------------------------


def test_report_of_a_missing_store_fails_at_once(tmp_path):
    t0 = time.monotonic()
    proc = atmsim_cli("report", str(tmp_path / "nosuch.duckdb"), "--out", str(tmp_path / "r"))
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [f"error: {tmp_path / 'nosuch.duckdb'}: no such file or directory"]
    code = (
        "import sys; from atmsim.cli import main; sys.argv = ['atmsim', 'report', sys.argv[1]]\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in ('pandas', 'duckdb', 'matplotlib', 'numpy') if m in sys.modules))"
    )
    loaded = subprocess.run([sys.executable, "-c", code, str(tmp_path / "nosuch.duckdb")], capture_output=True, text=True)
    assert loaded.stdout.strip() == "[]", loaded.stderr
    assert time.monotonic() - t0 < 60
