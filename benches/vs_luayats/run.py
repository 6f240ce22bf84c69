#!/usr/bin/env python3
"""atmsim vs Luayats on the FIFO multiplexer: an opt-in benchmark (issue 25; not part of CI).

Two greedy and two on/off sources (geometric bursts of mean 50 cells at 30 % load), each on
its own OC-3c line, share one FIFO multiplexer of 1000 cells (tail drop) feeding a sink:
`scenarios/bench/mux_fifo.toml` for atmsim, `mux_fifo.lua` beside this file for Luayats.

The two simulators run in turn, round after round (the first of each round alternates), and
each run is timed as a whole process: wall time and CPU time (user + system, from the
kernel's accounting of the child). Best and median of both are kept.

    .venv/bin/python benches/vs_luayats/run.py --luayats /tmp/luayats-build/luayats/bin/luayats-bin
    .venv/bin/python benches/vs_luayats/run.py --rounds 5 --seconds 10 --json /tmp/vs_luayats.json

Luayats is not built by this repository: see README.md beside this file for what the
harness expects (`--luayats` or $LUAYATS_BIN: the interpreter `luayats-bin` inside a Luayats
tree, whose `yats/` folder holds its Lua modules). atmsim is the `run` example of
atmsim-core (`cargo build --release -p atmsim-core --example run`), found in
$CARGO_TARGET_DIR or `target/`, or given with `--atmsim-run`.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
SCENARIO = REPO / "scenarios" / "bench" / "mux_fifo.toml"
LUA_SCRIPT = HERE / "mux_fifo.lua"
OC3C_BPS = 149.76e6
CELL_RATE = OC3C_BPS / (53 * 8)  # cells per second of an OC-3c line: one Luayats slot each
MUX_PORT = "sw->sink"


# ----------------------------------------------------------------------------- running
def timed(cmd: list[str], env: dict[str, str] | None = None, cwd: Path | None = None) -> tuple[str, float]:
    """Run cmd to completion: (stdout, wall [s])."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=cwd)
    out, err = p.communicate()
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        sys.stderr.write(out[-4000:] + err[-4000:])
        raise SystemExit(f"failed ({p.returncode}): {' '.join(cmd)}")
    return out, wall


class ChildCpu:
    """CPU time of the children reaped between enter and exit (user + system, microseconds)."""

    @staticmethod
    def _now() -> float:
        r = resource.getrusage(resource.RUSAGE_CHILDREN)
        return r.ru_utime + r.ru_stime

    def __enter__(self) -> ChildCpu:
        self.t0 = self._now()
        return self

    def __exit__(self, *exc) -> None:
        self.cpu = self._now() - self.t0


def run_luayats(binary: Path, home: Path, slots: int, seed: int, lines: bool, workdir: Path) -> dict:
    env = dict(os.environ)
    env.update(
        LUA_PATH=f"{home}/?.lua;{home}/?/init.lua;;",
        LUAYATSHOME=str(home),
        HOME=str(workdir),  # Luayats' front end may write its preferences file there
        MUX_SLOTS=str(slots),
        MUX_SEED=str(seed),
        MUX_LINES="1" if lines else "0",
    )
    with ChildCpu() as c:
        out, wall = timed([str(binary), str(LUA_SCRIPT)], env=env, cwd=workdir)
    m = re.search(r"^RESULT (\{.*\})$", out, re.M)
    if not m:
        sys.stderr.write(out[-4000:])
        raise SystemExit("Luayats printed no RESULT line")
    r = json.loads(m.group(1))
    r.update(wall_s=wall, cpu_s=c.cpu)
    return r


def run_atmsim(binary: Path, scenario: Path) -> dict:
    with ChildCpu() as c:
        out, wall = timed([str(binary), str(scenario)])
    s = json.loads(out)
    port = next(p for p in s["ports"] if p["name"] == MUX_PORT)
    # cells each source's host put on its link into the switch: what it offered the multiplexer
    sent = {p["name"].split("->")[0]: p["cells_tx"] for p in s["ports"] if p["name"].endswith("->sw")}
    return {
        "wall_s": wall,
        "cpu_s": c.cpu,
        "loop_wall_s": s["run"]["wall_s"],
        "cell_hops": s["run"]["cell_hops"],
        "events": s["run"]["events"],
        "mux_in": port["cells_in"],
        "mux_tx": port["cells_tx"],
        "mux_drops": port["drops"],
        "mux_mean_queue": port["mean_queue_cells"],
        "sources_cells_tx": sent,
        "duration_s": s["duration_s"],
    }


# ----------------------------------------------------------------------------- setup
def find_atmsim_run(arg: str | None) -> Path:
    if arg:
        return Path(arg)
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    p = target / "release" / "examples" / "run"
    if not p.exists():
        raise SystemExit(f"no {p}: build it with `cargo build --release -p atmsim-core --example run`")
    return p


def find_luayats(arg: str | None) -> tuple[Path, Path]:
    b = arg or os.environ.get("LUAYATS_BIN")
    if not b:
        raise SystemExit("give the Luayats interpreter: --luayats PATH/bin/luayats-bin (or $LUAYATS_BIN)")
    binary = Path(b).resolve()
    home = binary.parent.parent  # the Luayats tree: bin/luayats-bin beside yats/*.lua
    if not (home / "yats" / "core.lua").exists():
        raise SystemExit(f"{home}/yats/core.lua not found: --luayats must be bin/luayats-bin inside a Luayats tree")
    return binary, home


def cut_scenario(seconds: float, workdir: Path) -> Path:
    """The shipped scenario, or a copy of it with another duration."""
    text = SCENARIO.read_text()
    if seconds == 10.0:
        return SCENARIO
    out = workdir / f"mux_fifo_{seconds:g}s.toml"
    out.write_text(re.sub(r"(?m)^duration_s = .*$", f"duration_s = {seconds!r}", text, count=1))
    return out


def load() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


# ----------------------------------------------------------------------------- report
def spread(xs: list[float]) -> tuple[float, float]:
    return min(xs), statistics.median(xs)


def report(lua: list[dict], atm: list[dict], seconds: float, slots: int) -> dict:
    lw, lm = spread([r["wall_s"] for r in lua])
    lc, lcm = spread([r["cpu_s"] for r in lua])
    aw, am = spread([r["wall_s"] for r in atm])
    ac, acm = spread([r["cpu_s"] for r in atm])
    l0, a0 = lua[0], atm[0]
    for r in lua[1:]:
        if (r["emitted"], r["lost"], r["delivered"]) != (l0["emitted"], l0["lost"], l0["delivered"]):
            print("warning: Luayats gave different counts in different rounds", file=sys.stderr)
    for r in atm[1:]:
        if (r["cell_hops"], r["mux_in"], r["mux_drops"]) != (a0["cell_hops"], a0["mux_in"], a0["mux_drops"]):
            print("warning: atmsim gave different counts in different rounds", file=sys.stderr)
    l_cells, a_cells = l0["emitted_total"], a0["mux_in"]
    hops = a0["cell_hops"]

    print(f"\n## Speed ({len(lua)} interleaved rounds; cells = cells offered to the multiplexer)\n")
    print("| | Luayats | atmsim (`run` example) | Luayats / atmsim per cell |")
    print("|---|---|---|---|")
    print(f"| cells through the multiplexer | {l_cells:,} | {a_cells:,} | |")
    print(f"| atmsim cell-hops | | {hops:,} | |")
    print(f"| wall, best / median [s] | {lw:.3f} / {lm:.3f} | {aw:.3f} / {am:.3f} | |")
    print(f"| CPU, best / median [s] | {lc:.3f} / {lcm:.3f} | {ac:.3f} / {acm:.3f} | |")
    per_cell = lambda lt, at: (lt / l_cells) / (at / a_cells)  # noqa: E731
    print(
        f"| M cells/s, wall best / median | {l_cells / lw / 1e6:.1f} / {l_cells / lm / 1e6:.1f} "
        f"| {a_cells / aw / 1e6:.1f} / {a_cells / am / 1e6:.1f} | **{per_cell(lw, aw):.2f}×** / {per_cell(lm, am):.2f}× |"
    )
    print(
        f"| M cells/s, CPU best / median | {l_cells / lc / 1e6:.1f} / {l_cells / lcm / 1e6:.1f} "
        f"| {a_cells / ac / 1e6:.1f} / {a_cells / acm / 1e6:.1f} | **{per_cell(lc, ac):.2f}×** / {per_cell(lcm, acm):.2f}× |"
    )
    print(f"| M cell-hops/s, wall best / median | | {hops / aw / 1e6:.1f} / {hops / am / 1e6:.1f} | |")
    print(f"| M cell-hops/s, CPU best / median | | {hops / ac / 1e6:.1f} / {hops / acm / 1e6:.1f} | |")
    print(
        f"\nIn-process timings (best): Luayats' run loop {min(r['run_cpu_s'] for r in lua):.3f} s CPU "
        f"(`os.clock()` around `sim:_run`), atmsim's event loop {min(r['loop_wall_s'] for r in atm):.3f} s wall "
        f"(`summary.run.wall_s`)."
    )

    sim_l = slots / CELL_RATE
    l_clr = l0["lost"] / l_cells
    a_clr = a0["mux_drops"] / a_cells
    print(f"\n## What each simulated ({seconds:g} s; Luayats {slots:,} slots = {sim_l:.6f} s)\n")
    print("| | Luayats | atmsim |")
    print("|---|---|---|")
    a_src = a0["sources_cells_tx"]
    em = l0["emitted"]
    print(f"| cells sent by g1, g2 (greedy) | {em[0]:,}, {em[1]:,} | {a_src['g1']:,}, {a_src['g2']:,} |")
    print(f"| cells sent by o1, o2 (on/off) | {em[2]:,}, {em[3]:,} | {a_src['o1']:,}, {a_src['o2']:,} |")
    on_off_l = (em[2] + em[3]) / 2 / (sim_l * CELL_RATE)
    on_off_a = (a_src.get("o1", 0) + a_src.get("o2", 0)) / 2 / (seconds * CELL_RATE)
    print(f"| on/off load (cells sent / line's cell slots) | {on_off_l:.4f} | {on_off_a:.4f} |")
    print(f"| cells into the multiplexer | {l_cells:,} | {a_cells:,} |")
    print(f"| cells lost (tail drop) | {l0['lost']:,} | {a0['mux_drops']:,} |")
    print(f"| **cell loss ratio** | **{l_clr:.5f}** | **{a_clr:.5f}** |")
    l_thr = l0["delivered"] / sim_l
    a_thr = a0["mux_tx"] / seconds
    print(f"| cells out (to the sink) | {l0['delivered']:,} | {a0['mux_tx']:,} |")
    print(
        f"| **throughput** [cells/s] (of the line's cell rate) | **{l_thr:,.0f}** ({l_thr / CELL_RATE:.5f}) "
        f"| **{a_thr:,.0f}** ({a_thr / CELL_RATE:.5f}) |"
    )
    return {
        "luayats": lua,
        "atmsim": atm,
        "per_cell_ratio_wall_best": per_cell(lw, aw),
        "per_cell_ratio_wall_median": per_cell(lm, am),
        "per_cell_ratio_cpu_best": per_cell(lc, ac),
        "per_cell_ratio_cpu_median": per_cell(lcm, acm),
        "clr": {"luayats": l_clr, "atmsim": a_clr},
        "throughput_cells_per_s": {"luayats": l_thr, "atmsim": a_thr},
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--luayats", help="Luayats' interpreter, bin/luayats-bin in its tree ($LUAYATS_BIN)")
    ap.add_argument("--atmsim-run", help="atmsim-core's `run` example (default: $CARGO_TARGET_DIR or target/)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=10.0, help="simulated seconds (default 10, as shipped)")
    ap.add_argument("--seed", type=int, default=1, help="Luayats' seed (atmsim: the scenario's)")
    ap.add_argument(
        "--lines", action="store_true", help="Luayats with 0.1-ms delay lines into and out of the multiplexer"
    )
    ap.add_argument("--workdir", help="scratch folder (default: a temporary one)")
    ap.add_argument("--json", help="write every run's numbers here")
    a = ap.parse_args()

    lbin, lhome = find_luayats(a.luayats)
    abin = find_atmsim_run(a.atmsim_run)
    work = Path(a.workdir or tempfile.mkdtemp(prefix="atmsim-vs-luayats-"))
    work.mkdir(parents=True, exist_ok=True)
    scenario = cut_scenario(a.seconds, work)
    slots = round(a.seconds * CELL_RATE)
    print(f"# atmsim vs Luayats, FIFO multiplexer, {a.seconds:g} s simulated ({dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC)")
    variant = "with delay lines (35 slots) like atmsim's links" if a.lines else "sources straight into the multiplexer"
    print(f"Luayats: {lbin} ({variant})\natmsim: {abin} on {scenario}")
    loads = [load()]
    lua, atm = [], []
    for i in range(a.rounds):
        order = ("luayats", "atmsim") if i % 2 == 0 else ("atmsim", "luayats")
        for side in order:
            if side == "luayats":
                r = run_luayats(lbin, lhome, slots, a.seed, a.lines, work)
                lua.append(r)
                print(f"round {i + 1}: Luayats wall {r['wall_s']:.3f} s, CPU {r['cpu_s']:.3f} s")
            else:
                r = run_atmsim(abin, scenario)
                atm.append(r)
                print(f"round {i + 1}: atmsim  wall {r['wall_s']:.3f} s, CPU {r['cpu_s']:.3f} s")
        loads.append(load())
    print(f"load average (1, 5, 15 min) before and after each round: {' | '.join(loads)}")
    res = report(lua, atm, a.seconds, slots)
    res["load"] = loads
    if a.json:
        Path(a.json).write_text(json.dumps(res, indent=1))


if __name__ == "__main__":
    main()
