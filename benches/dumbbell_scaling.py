"""Cost per event against the number of flows on the TCP dumbbell (not a test).

The dumbbell of the ns-3 comparison (benches/vs_ns3/): N bulk TCP senders, each on its own
1.5 Mb/s access link to switch ``left``; the bottleneck ``left`` → ``right`` at 22.5 ms, 1.5 Mb/s
per 5 senders (1.5, 6, 15, 149.76 (OC-3c), 240, 599.04 (OC-12c) Mb/s for N = 5, 20, 50, 500, 800,
2000); the sink
behind ``right`` on a fast link; MSS 512 bytes, 8 KB windows, a bottleneck buffer of 16·N
packets (12 cells each: a 552-byte IP packet plus the AAL5 trailer). Simulated time is cut as N
grows so that each run takes about a second. Two costs are printed against the first size: per
event, and per flow-second (wall time over N × simulated seconds: the target is that it stays
within 1.5× from N = 20 to N = 800).

    .venv/bin/python benches/dumbbell_scaling.py [--rounds 3] [--sizes 5,50,500,2000] [BINARY ...]

With no BINARY the core is run through the Python package. Each BINARY is a build of
``cargo build --release -p atmsim-core --example run`` (e.g. the one of an older revision,
built in a ``git worktree``): the runs alternate between them, round after round, and the
best wall time per (binary, N) is kept — compare ratios from one session, never absolute
times (docs/performance.md).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
import time
from pathlib import Path

from atmsim import builder
from atmsim._scenario import Scenario

BOTTLENECK_BPS = {5: 1.5e6, 20: 6e6, 50: 15e6, 500: 149.76e6, 800: 240e6, 2000: 599.04e6}
DURATION_S = {5: 60.0, 20: 40.0, 50: 20.0, 500: 4.0, 800: 2.5, 2000: 1.0}
CELLS_PER_PACKET = -(-(512 + 40 + 8) // 48)


def dumbbell(n: int) -> Scenario:
    """The dumbbell of ``n`` flows (module docs)."""
    net = builder.dumbbell(
        n,
        bottleneck={"rate_bps": BOTTLENECK_BPS[n], "delay_ms": 22.5},
        access={"rate_bps": 1e9, "delay_ms": 0.0},
        switch={"buffer_cells": 16 * n * CELLS_PER_PACKET},
        tcp={"mss_bytes": 512, "window_bytes": 8192},
        duration_s=DURATION_S[n],
        sample_interval_ms=0,
    )
    sc = net.scenario()
    for k in range(2, 2 + n):  # links 0 and 1 are the bottleneck and the sink's
        sc.set(f"link[{k}].rate_bps", 1.5e6)
    return sc


def run_binary(binary: str, path: Path) -> dict:
    out = subprocess.run([binary, str(path)], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)["run"]


def run_core(sc: Scenario) -> dict:
    t = time.perf_counter()
    r = sc.run()
    run = dict(r.summary["run"])
    run["wall_s"] = min(run["wall_s"], time.perf_counter() - t)
    return run


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("binaries", nargs="*")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--sizes", default="5,50,500,2000")
    a = ap.parse_args()
    sizes = [int(x) for x in a.sizes.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        paths = {}
        for n in sizes:
            paths[n] = Path(tmp) / f"dumbbell{n}.toml"
            paths[n].write_text(dumbbell(n).to_toml())
        who = a.binaries or ["core"]
        best: dict[tuple[str, int], dict] = {}
        for _ in range(a.rounds):
            for n in sizes:
                for b in who:
                    r = run_core(Scenario.from_toml(paths[n])) if b == "core" else run_binary(b, paths[n])
                    k = (b, n)
                    if k not in best or r["wall_s"] < best[k]["wall_s"]:
                        best[k] = r
        first = f"x N={sizes[0]}"
        print(
            f"{'binary':<40} {'N':>5} {'events':>10} {'best_s':>8} {'ns/event':>9} {first:>8}"
            f" {'us/flow-s':>10} {first:>8}"
        )
        for b in who:
            r0 = best[(b, sizes[0])]
            base = r0["wall_s"] / r0["events"]
            base_fs = r0["wall_s"] / (sizes[0] * DURATION_S[sizes[0]])
            for n in sizes:
                r = best[(b, n)]
                per = r["wall_s"] / r["events"]
                per_fs = r["wall_s"] / (n * DURATION_S[n])
                print(
                    f"{b[-40:]:<40} {n:>5} {r['events']:>10} {r['wall_s']:>8.3f} {per * 1e9:>9.1f} {per / base:>8.2f}"
                    f" {per_fs * 1e6:>10.2f} {per_fs / base_fs:>8.2f}"
                )


if __name__ == "__main__":
    main()
