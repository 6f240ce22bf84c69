"""Per-run orchestration overhead of `atmsim.sweep` (not a test).

A "trivial" run (tests/data/tiny.toml cut to 1 ms of simulated time, no time series) costs
the core well under a millisecond, so a sweep of them measures what the orchestration adds
per run: planning, process hand-off, building the records, writing the store.

    .venv/bin/python benches/sweep_overhead.py [--runs 1000] [--jobs 1 2] [--repeat 3]

Printed per backend setting: the whole sweep's wall time per run (including starting the
worker processes and opening the store), and the steady-state cost per run: the time from
the first finished run until the sweep returns (every run committed), divided by the runs
after the first, which leaves out the fixed start-up costs but includes every store write. Each setting is repeated and the best is kept (the machine is shared).
Target: < 50 ms/run.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import atmsim

TINY = Path(__file__).resolve().parent.parent / "tests" / "data" / "tiny.toml"


def trivial_scenario() -> atmsim.Scenario:
    s = atmsim.Scenario.from_toml(TINY)
    s.set("simulation.duration_s", 0.001)
    s.set("simulation.warmup_s", 0.0)
    s.set("simulation.sample_interval_ms", 0.0)
    return s


def timed_sweep(n: int, jobs: int, directory: Path, tag: int) -> tuple[float, float]:
    """(total seconds, steady-state seconds per run) of an n-run sweep into a new store."""
    store = directory / f"bench-{jobs}-{n}-{tag}.duckdb"
    finished: list[float] = []

    def tick(done: int, failed: int, total: int) -> None:
        if done:
            finished.append(time.perf_counter())

    t0 = time.perf_counter()
    summary = atmsim.sweep(trivial_scenario(), seeds=f"1-{n}", store=store, jobs=jobs, progress=tick)
    elapsed = time.perf_counter() - t0
    assert summary.ok == n, summary
    steady = (t0 + elapsed - finished[0]) / (n - 1)  # first result .. last commit done
    return elapsed, steady


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000, help="runs per sweep")
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()

    s = trivial_scenario()
    t0 = time.perf_counter()
    for seed in range(1, 51):
        s.run(seed=seed)
    core_ms = (time.perf_counter() - t0) / 50 * 1e3
    print(f"core alone: {core_ms:.2f} ms/run (in-process, no store)")

    with tempfile.TemporaryDirectory() as tmp:
        for jobs in args.jobs:
            n = args.runs
            trials = [timed_sweep(n, jobs, Path(tmp), k) for k in range(args.repeat)]
            total = min(t for t, _ in trials)
            steady = min(s for _, s in trials)
            print(
                f"local backend, jobs={jobs}: {steady * 1e3:.2f} ms/run steady state; "
                f"{total / n * 1e3:.2f} ms/run over {n} runs including start-up ({total:.2f} s)"
            )


if __name__ == "__main__":
    main()
