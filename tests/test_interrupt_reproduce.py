"""Ctrl-C stops a reproduction at once: queued runs are cancelled, the runs in progress stop,
the command exits 130 with one line saying where the finished runs are kept, and no report
is written."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from atmsim import Scenario, ScenarioError
from atmsim.reproduce.runner import run_many
from atmsim.study.executor import Executor, RunsStopped, using
from conftest import default_sigint, interrupt

REPO = Path(__file__).resolve().parent.parent
TINY = REPO / "tests" / "data" / "tiny.toml"


def _snapshot(directory: Path) -> dict[str, tuple[bytes, int]]:
    return {str(p.relative_to(directory)): (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(directory.rglob("*"))}


def _wait_for_file(path: Path, pid: int, limit_s: float = 120.0) -> None:
    """Wait until ``path`` exists (or the process has ended), however slowly the interpreter
    starts and imports under load."""
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline and not path.exists() and os.path.exists(f"/proc/{pid}"):
        time.sleep(0.05)


def test_ctrl_c_stops_reproduce_kocyigit_within_seconds_leaving_the_old_report(tmp_path):
    out = tmp_path / "kocyigit"
    out.mkdir()
    (out / "report.html").write_text("<html>the previous report</html>")
    before = _snapshot(out)
    proc = subprocess.Popen(
        [sys.executable, "-m", "atmsim", "reproduce", "kocyigit", "--out", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
        preexec_fn=default_sigint,
    )
    store = out / "results.duckdb"
    _wait_for_file(store, proc.pid)  # the study (~90 runs, minutes on two cores) is under way
    time.sleep(1.0)
    stderr, stopped_after = interrupt(proc)
    assert proc.returncode == 130, stderr
    assert stopped_after < 5.0, stopped_after
    assert stderr.splitlines() == [
        f"error: interrupted; finished runs are in {store}: run the same command to resume"], stderr
    after = _snapshot(out)
    assert {k: after[k] for k in before} == before  # the old report is left as it was
    assert set(after) - set(before) <= {"results.duckdb", "results.duckdb.wal", "results.series"} | {
        k for k in after if k.startswith("results.series/")}


class Recorded(Scenario):
    """A scenario that records how each of its runs started and ended."""

    events: list[tuple[str, int]]

    def run(self, seed=None, progress=False, batching=None):
        self.events.append(("start", seed))
        try:
            result = super().run(seed=seed, progress=progress, batching=batching)
        except RunsStopped:
            self.events.append(("stopped", seed))
            raise
        self.events.append(("done", seed))
        return result


def _long_runs(n: int) -> tuple[list[tuple[Scenario, int]], list[tuple[str, int]]]:
    base = Scenario.from_toml(TINY)
    sc = Recorded(base.doc, base.origin)
    sc.events = []
    sc.set("tcp[0].app", {"kind": "bulk", "write_bytes": 10**12})
    sc.set("simulation.duration_s", 3000.0)  # about 1.5 s of wall time per run
    sc.set("simulation.sample_interval_ms", 0)
    return [(sc, seed) for seed in range(1, n + 1)], sc.events


def test_run_many_interrupted_cancels_queued_runs_and_stops_running_ones():
    finished: list[int] = []

    def progress(done: int, _total: int) -> None:
        finished.append(done)
        raise KeyboardInterrupt  # as Ctrl-C would, in the calling thread, after the first run

    runs, events = _long_runs(12)  # ~9 s on two threads if nothing were stopped
    t0 = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        with using(Executor(jobs=2)):
            run_many(runs, progress=progress)
    elapsed = time.monotonic() - t0
    assert finished == [1]
    started = [seed for kind, seed in events if kind == "start"]
    # Runs 1 and 2 start together; each thread may take one more as its run ends before the
    # interrupt: the other queued runs never start.
    assert started[:2] == [1, 2] and len(started) <= 4, events
    # Every run that started has ended (none left running); those still going were stopped.
    assert sorted(seed for kind, seed in events if kind != "start") == sorted(started), events
    done = [seed for kind, seed in events if kind == "done"]
    assert 1 in done and len(done) <= 2 and len(done) < len(started), events
    assert elapsed < 6.0, elapsed


def test_run_many_stops_the_other_runs_when_one_fails():
    runs, events = _long_runs(8)
    bad = Scenario.from_toml(TINY).set("simulation.duration_s", 0.01).set("simulation.warmup_s", 0.05)
    runs.insert(0, (bad, 1))  # warm-up longer than the run: refused by the core at once
    with pytest.raises(ScenarioError, match="warm-up"), using(Executor(jobs=2)):
        run_many(runs)
    assert len([e for e in events if e[0] == "start"]) <= 2, events
    assert not [e for e in events if e[0] == "done"], events


def test_run_many_returns_summaries_in_order():
    sc = Scenario.from_toml(TINY)
    with using(Executor(jobs=2)):
        summaries = run_many([(sc, seed) for seed in (3, 1, 2)])
    assert [s["seed"] for s in summaries] == [3, 1, 2]
