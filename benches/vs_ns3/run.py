#!/usr/bin/env python3
"""atmsim vs ns-3 on a TCP dumbbell: an opt-in benchmark (not part of CI).

N bulk TCP senders, each on its own 1.5 Mb/s access link, share a bottleneck with 22.5 ms of
one-way propagation and a drop-tail buffer of 16·N packets; one sink behind it. Sizes:
N = 5 (1.5 Mb/s, 180 s), N = 50 (15 Mb/s, 180 s), N = 500 (155 Mb/s, 60 s).

For each size the runs are interleaved — atmsim core, atmsim CLI, ns-3, then again — and the
best wall time of each is kept. See README.md beside this file for how to build ns-3.

    .venv/bin/python benches/vs_ns3/run.py                       # all sizes, 3 repetitions
    .venv/bin/python benches/vs_ns3/run.py --sizes 5,50 --reps 3
    .venv/bin/python benches/vs_ns3/run.py --sizes 500 --reps 1
    .venv/bin/python benches/vs_ns3/run.py --quick                 # durations / 10: smoke run

ns-3 is taken from $NS3_DIR (a build or install tree with include/ns3/ and lib/ or lib64/
holding libns3*-core*.so: an optimized source build is the reference), otherwise from the
PyPI wheel `ns3` importable by this interpreter or by the interpreter named by --ns3-python
or $NS3_PYTHON (a packaged build: slower). The output says which one ran.
"""

from __future__ import annotations

import argparse
import datetime as dt
import glob
import json
import math
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
SOURCE = HERE / "dumbbell.cc"

# (N, bottleneck rate [b/s], duration [s])
SIZES = {5: (1.5e6, 180.0), 50: (15e6, 180.0), 500: (155e6, 60.0)}
ACCESS_BPS = 1.5e6
DELAY_MS = 22.5
MSS = 512
WINDOW = 8192
BUFFER_PACKETS_PER_FLOW = 16
IP_PACKET = MSS + 40  # 552-byte IP datagram: no TCP options (ns-3 side: no SACK, no timestamps)
AAL5_TRAILER = 8
CELL_PAYLOAD = 48
CELLS_PER_PACKET = math.ceil((IP_PACKET + AAL5_TRAILER) / CELL_PAYLOAD)  # 12
PPP_HEADER = 2  # ns-3 PointToPointNetDevice adds a 2-byte PPP header
MODULES = ["applications", "traffic-control", "point-to-point", "internet", "network", "core"]


# ----------------------------------------------------------------------------- helpers
def jain(xs: list[float]) -> float:
    s, s2 = sum(xs), sum(x * x for x in xs)
    return s * s / (len(xs) * s2) if s2 > 0 else 0.0


def time_v(cmd: list[str], **kw) -> tuple[subprocess.CompletedProcess, float, float | None]:
    """Run cmd under /usr/bin/time -v if there is one: (process, wall [s], peak RSS [MiB])."""
    tv = Path("/usr/bin/time")
    full = ([str(tv), "-v"] if tv.exists() else []) + cmd
    t0 = time.perf_counter()
    p = subprocess.run(full, capture_output=True, text=True, **kw)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        sys.stderr.write(p.stdout[-4000:] + p.stderr[-4000:])
        raise SystemExit(f"failed ({p.returncode}): {' '.join(cmd)}")
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr)
    return p, wall, (int(m.group(1)) / 1024 if m else None)


# ----------------------------------------------------------------------------- ns-3
class Ns3:
    """Where ns-3 is, what it is, and how to link against it."""

    def __init__(self, include: Path, lib: Path, prefix: str, suffix: str, kind: str, label: str):
        self.include, self.lib, self.prefix, self.suffix = include, lib, prefix, suffix
        self.kind, self.label = kind, label

    @staticmethod
    def _core_lib(libdir: Path) -> tuple[str, str] | None:
        for f in sorted(libdir.glob("libns3*-core*.so")):
            m = re.fullmatch(r"lib(ns3[^/]*?-)core(.*)\.so", f.name)
            if m:
                return m.group(1), m.group(2)
        return None

    @classmethod
    def from_dir(cls, root: Path, kind: str) -> Ns3 | None:
        include = root / "include"
        for libdir in (root / "lib", root / "lib64"):
            found = cls._core_lib(libdir) if libdir.is_dir() else None
            if found and (include / "ns3" / "core-module.h").exists():
                prefix, suffix = found
                return cls(include, libdir, prefix, suffix, kind, "")
        return None

    @classmethod
    def locate(cls, ns3_python: str | None) -> Ns3:
        env = os.environ.get("NS3_DIR")
        if env:
            ns = cls.from_dir(Path(env), "source")
            if ns is None:
                raise SystemExit(f"NS3_DIR={env}: expected include/ns3/core-module.h and lib/ or lib64/ with libns3*-core*.so")
            profile = "optimized" if "optimized" in ns.suffix else (ns.suffix.strip("-") or "default")
            version = ns.prefix.removeprefix("ns3").strip(".-") or "?"
            cmake_cache = Path(env).parent / "cmake-cache" / "CMakeCache.txt"
            build_type = ""
            if cmake_cache.exists():
                m = re.search(r"^CMAKE_BUILD_TYPE:\w+=(\S*)", cmake_cache.read_text(errors="replace"), re.M)
                build_type = f", CMAKE_BUILD_TYPE={m.group(1)}" if m else ""
            described = subprocess.run(["git", "-C", str(Path(env).parent), "describe", "--tags", "--always"],
                                       capture_output=True, text=True)
            if described.returncode == 0 and described.stdout.strip():
                version += f", {described.stdout.strip()}"
            ref = "the reference" if profile == "optimized" else "NOT the reference: use the optimized profile"
            ns.label = f"ns-3 source build at {env} (ns3-{version}, profile {profile}{build_type}; {ref})"
            return ns
        # The PyPI wheel: in this interpreter, or in another one.
        interpreters = [sys.executable] + [p for p in (ns3_python, os.environ.get("NS3_PYTHON")) if p]
        probe = "import importlib.util as u, importlib.metadata as m; s = u.find_spec('ns3'); " \
                "print(list(s.submodule_search_locations)[0], m.version('ns3'))"
        for py in interpreters:
            p = subprocess.run([py, "-c", probe], capture_output=True, text=True)
            if p.returncode == 0 and p.stdout.strip():
                where, version = p.stdout.split()
                ns = cls.from_dir(Path(where), "wheel")
                if ns is not None:
                    ns.label = (f"ns-3 PyPI wheel ns3=={version} at {where} (a packaged build, not the "
                                "optimized source build: expect it ~1.6-1.7x slower than the reference)")
                    return ns
        raise SystemExit("no ns-3 found: set NS3_DIR to an optimized ns-3 build tree (see README.md), "
                         "or install the `ns3` wheel and pass --ns3-python /path/to/its/python")

    def build(self, workdir: Path) -> Path:
        exe = workdir / f"dumbbell-{self.kind}"
        stamp = workdir / f"dumbbell-{self.kind}.cmd"
        cmd = ["g++", "-O2", "-std=c++20", f"-I{self.include}", "-o", str(exe), str(SOURCE),
               f"-L{self.lib}", *[f"-l{self.prefix}{m}{self.suffix}" for m in MODULES],
               f"-Wl,-rpath,{self.lib}"]
        key = json.dumps(cmd) + str(SOURCE.stat().st_mtime_ns)
        if exe.exists() and stamp.exists() and stamp.read_text() == key:
            return exe
        print(f"compiling {SOURCE.name} against {self.lib} ...", flush=True)
        t0 = time.perf_counter()
        subprocess.run(["nice", "-n", "19", *cmd], check=True)
        print(f"  done in {time.perf_counter() - t0:.1f} s", flush=True)
        stamp.write_text(key)
        return exe


def run_ns3(exe: Path, n: int, rate: float, duration: float, seed: int, buffer_per_flow: int) -> dict:
    cmd = [str(exe), f"--n={n}", f"--bottleneckMbps={rate / 1e6:g}", f"--duration={duration:g}", f"--seed={seed}",
           f"--bufferPerFlow={buffer_per_flow}"]
    p, wall, rss = time_v(cmd)
    line = [ln for ln in p.stdout.splitlines() if ln.startswith("{")][-1]
    r = json.loads(line)
    r["process_wall_s"], r["peak_rss_mib"] = wall, rss
    return r


# ----------------------------------------------------------------------------- atmsim
def scenario_doc(n: int, rate: float, duration: float, seed: int, buffer_per_flow: int = BUFFER_PACKETS_PER_FLOW) -> dict:
    """The dumbbell as an atmsim scenario (builder documented in docs/builder.md)."""
    from atmsim.builder import NetworkBuilder

    buffer_cells = buffer_per_flow * n * CELLS_PER_PACKET
    net = NetworkBuilder(f"vs-ns3-dumbbell-{n}", duration_s=duration, seed=seed,
                  description=f"benches/vs_ns3: {n} bulk TCP senders on {ACCESS_BPS / 1e6:g} Mb/s access links, "
                              f"bottleneck {rate / 1e6:g} Mb/s / {DELAY_MS} ms, buffer {buffer_per_flow}*N packets "
                              f"= {buffer_cells} cells ({CELLS_PER_PACKET} cells per {IP_PACKET}-byte datagram)")
    left = net.switch("left", buffer_cells=buffer_cells)
    right = net.switch("right", buffer_cells=buffer_cells)
    dst = net.host("dst")
    net.link(left, right, rate_bps=rate, delay_ms=DELAY_MS)
    net.link(right, dst, rate_bps=rate, delay_ms=0.0)
    for i in range(n):
        src = net.host(f"src{i}")
        net.link(src, left, rate_bps=ACCESS_BPS, delay_ms=0.0)
        vc = net.vc(f"vc{i}", [src, left, right, dst])
        net.tcp(f"tcp{i}", src, dst, vc=vc, variant="newreno", mss_bytes=MSS, window_bytes=WINDOW,
                app={"kind": "bulk"})
    return net.to_dict()


def atmsim_facts(summary: dict) -> dict:
    goodputs = [c["goodput_bps"] for c in summary["connections"]]
    port = next(p for p in summary["ports"] if p["name"] == "left->right")
    frames = summary["conservation"]["frames"]
    return {
        "goodput_bps": goodputs,
        "aggregate_goodput_bps": sum(goodputs),
        "jain": jain(goodputs),
        "drops_bottleneck_cells": port["drops"],
        "frames_lost": frames["discarded"] + frames["lost"],
        "bottleneck_utilization": port["utilization"],
        "run": summary["run"],
    }


def core_child(toml_path: str, seed: int) -> None:
    """In a fresh process: time atmsim._core.run alone (parse, build, simulate, summarise)."""
    import resource

    from atmsim import _core

    text = Path(toml_path).read_text(encoding="utf-8")
    t0 = time.perf_counter()
    raw = _core.run(text, "toml", toml_path, seed=seed)
    wall = time.perf_counter() - t0
    summary = raw["summary"]
    if isinstance(summary, str):
        summary = json.loads(summary)
    out = atmsim_facts(summary)
    out["core_wall_s"] = wall
    out["peak_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(out))


def run_core(toml: Path, seed: int) -> dict:
    p = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--_core-child", str(toml), str(seed)],
                       capture_output=True, text=True)
    if p.returncode != 0:
        sys.stderr.write(p.stderr[-4000:])
        raise SystemExit("atmsim core run failed")
    return json.loads(p.stdout.strip().splitlines()[-1])


def run_cli(atmsim: str, toml: Path, seed: int, out: Path) -> dict:
    cmd = [atmsim, "run", str(toml), "--seed", str(seed), "--quiet", "--no-plot", "--out", str(out)]
    _, wall, rss = time_v(cmd)
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    r = atmsim_facts(summary)
    r["cli_wall_s"], r["peak_rss_mib"] = wall, rss
    return r


# ----------------------------------------------------------------------------- report
def mbps(x: float) -> str:
    return f"{x / 1e6:.4f}"


def table(n: int, rate: float, duration: float, reps: int, core: list[dict], cli: list[dict], ns3: list[dict],
          buffer_per_flow: int) -> str:
    bc = min(core, key=lambda r: r["core_wall_s"]) if core else None
    bl = min(cli, key=lambda r: r["cli_wall_s"]) if cli else None
    bn = min(ns3, key=lambda r: r["run_wall_s"]) if ns3 else None
    ceil_atm = rate * MSS / (CELLS_PER_PACKET * 53)
    ceil_ns3 = rate * MSS / (IP_PACKET + PPP_HEADER)
    rows: list[tuple[str, str, str, str]] = []

    def cell(r, f):
        return f(r) if r is not None else "-"

    rows.append(("wall time, best [s]", cell(bc, lambda r: f"{r['core_wall_s']:.3f}"),
                 cell(bl, lambda r: f"{r['cli_wall_s']:.3f}"), cell(bn, lambda r: f"{r['run_wall_s']:.3f}")))
    rows.append(("  all reps [s]", cell(bc, lambda _: " ".join(f"{r['core_wall_s']:.2f}" for r in core)),
                 cell(bl, lambda _: " ".join(f"{r['cli_wall_s']:.2f}" for r in cli)),
                 cell(bn, lambda _: " ".join(f"{r['run_wall_s']:.2f}" for r in ns3))))
    rows.append(("  what is timed", "_core.run", "atmsim run, whole process", "Simulator::Run"))
    rows.append(("ns-3 process, best [s]", "", "", cell(bn, lambda _: f"{min(r['process_wall_s'] for r in ns3):.3f}")))
    rows.append(("peak RSS [MiB]", cell(bc, lambda r: f"{r['peak_rss_mib']:.0f}"),
                 cell(bl, lambda r: f"{r['peak_rss_mib']:.0f}" if r["peak_rss_mib"] else "-"),
                 cell(bn, lambda r: f"{r['peak_rss_mib']:.0f}" if r["peak_rss_mib"] else "-")))
    any_atm = bc or bl
    rows.append(("aggregate goodput [Mb/s]", cell(any_atm, lambda r: mbps(r["aggregate_goodput_bps"])), "",
                 cell(bn, lambda r: mbps(r["aggregate_goodput_bps"]))))
    rows.append(("  of the payload ceiling", cell(any_atm, lambda r: f"{r['aggregate_goodput_bps'] / ceil_atm:.3f}"), "",
                 cell(bn, lambda r: f"{r['aggregate_goodput_bps'] / ceil_ns3:.3f}")))
    rows.append(("per-flow goodput min..max [kb/s]",
                 cell(any_atm, lambda r: f"{min(r['goodput_bps']) / 1e3:.1f}..{max(r['goodput_bps']) / 1e3:.1f}"), "",
                 cell(bn, lambda r: f"{min(r['goodput_bps']) / 1e3:.1f}..{max(r['goodput_bps']) / 1e3:.1f}")))
    rows.append(("Jain's fairness index", cell(any_atm, lambda r: f"{r['jain']:.4f}"), "",
                 cell(bn, lambda r: f"{r['jain']:.4f}")))
    rows.append(("drops at the bottleneck", cell(any_atm, lambda r: f"{r['drops_bottleneck_cells']} cells"), "",
                 cell(bn, lambda r: f"{r['drops_bottleneck_packets']} packets")))
    rows.append(("  AAL5 frames lost", cell(any_atm, lambda r: f"{r['frames_lost']}"), "", ""))
    rows.append(("events", cell(any_atm, lambda r: f"{r['run']['events']:,}"), "", cell(bn, lambda r: f"{r['events']:,}")))
    rows.append(("  heap events / cell hops", cell(any_atm, lambda r: f"{r['run']['heap_events']:,} / {r['run']['cell_hops']:,}"), "", ""))
    rows.append(("  core event loop wall_s (best)", cell(any_atm, lambda _: f"{min(r['run']['wall_s'] for r in core + cli):.3f}"), "", ""))
    w = [max(len(r[i]) for r in rows) for i in range(4)]
    head = ("", "atmsim core", "atmsim CLI", "ns-3")
    w = [max(w[i], len(head[i])) for i in range(4)]
    lines = [f"N = {n}: bottleneck {rate / 1e6:g} Mb/s, {duration:g} s simulated, {reps} rep(s), best wall time kept",
             f"  buffer {buffer_per_flow * n} packets (ns-3) = {buffer_per_flow * n * CELLS_PER_PACKET} cells (atmsim); "
             f"payload ceiling {mbps(ceil_atm)} Mb/s in cells, {mbps(ceil_ns3)} Mb/s in PPP frames",
             "  " + "  ".join(h.ljust(w[i]) if i == 0 else h.rjust(w[i]) for i, h in enumerate(head))]
    for r in rows:
        lines.append("  " + "  ".join(c.ljust(w[i]) if i == 0 else c.rjust(w[i]) for i, c in enumerate(r)))
    atm_runs = core + cli
    if len({round(r["aggregate_goodput_bps"], 3) for r in atm_runs}) > 1:
        lines.append("  WARNING: the atmsim runs differ in goodput (they should be identical)")
    if len({round(r["aggregate_goodput_bps"], 3) for r in ns3}) > 1:
        lines.append("  WARNING: the ns-3 runs differ in goodput (they should be identical)")
    if bn and bc:
        lines.append(f"  ns-3 / atmsim-core = {bn['run_wall_s'] / bc['core_wall_s']:.1f}x")
    if bn and bl:
        lines.append(f"  ns-3 / atmsim-CLI  = {bn['run_wall_s'] / bl['cli_wall_s']:.1f}x "
                     f"(ns-3 whole process / atmsim CLI = {min(r['process_wall_s'] for r in ns3) / bl['cli_wall_s']:.1f}x)")
    return "\n".join(lines)


def parse_reps(text: str, sizes: list[int]) -> dict[int, int]:
    """"3" for every size, or "5:3,50:3,500:1"."""
    if ":" not in text:
        return {n: int(text) for n in sizes}
    out = {n: 1 for n in sizes}
    for part in text.split(","):
        k, v = part.split(":")
        out[int(k)] = int(v)
    return out


def main() -> None:
    if len(sys.argv) == 4 and sys.argv[1] == "--_core-child":
        core_child(sys.argv[2], int(sys.argv[3]))
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="5,50,500", help="comma-separated N among 5, 50, 500 (default: all)")
    ap.add_argument("--reps", default="3", help='repetitions per size: "3", or per size "5:3,50:3,500:1" (default 3)')
    ap.add_argument("--quick", action="store_true", help="durations / 10: a smoke run")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--buffer-per-flow", type=int, default=BUFFER_PACKETS_PER_FLOW,
                    help="bottleneck buffer per sender [packets] (default %(default)s: one whole 8 KB window, "
                         "so no packet is ever dropped; less makes both sides drop)")
    ap.add_argument("--skip", default="", help="comma-separated sides to leave out: core, cli, ns3")
    ap.add_argument("--ns3-python", help="a Python that has the `ns3` wheel (when NS3_DIR is not set)")
    ap.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()) / "atmsim-vs-ns3",
                    help="scenarios, outputs and the compiled ns-3 program (default %(default)s)")
    ap.add_argument("--json", type=Path, help="also write every run's results here")
    args = ap.parse_args()

    sizes = [int(s) for s in args.sizes.split(",") if s]
    for n in sizes:
        if n not in SIZES:
            ap.error(f"--sizes: {n} is not one of {sorted(SIZES)}")
    reps = parse_reps(args.reps, sizes)
    skip = {s for s in args.skip.split(",") if s}
    args.workdir.mkdir(parents=True, exist_ok=True)

    atmsim_cli = shutil.which("atmsim", path=str(Path(sys.executable).parent)) or shutil.which("atmsim")
    if "cli" not in skip and not atmsim_cli:
        raise SystemExit("no `atmsim` command next to this Python or on PATH")
    ns = exe = None
    if "ns3" not in skip:
        ns = Ns3.locate(args.ns3_python)
        exe = ns.build(args.workdir)

    try:
        commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True).stdout.strip()
    except OSError:
        commit = "?"
    print(f"atmsim vs ns-3, TCP dumbbell -- {dt.datetime.now().isoformat(timespec='seconds')}, "
          f"{platform.node()}, {os.cpu_count()} CPUs, load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"  atmsim: commit {commit}, cell level (53-byte ATM cells, AAL5, {CELLS_PER_PACKET} cells per "
          f"{IP_PACKET}-byte datagram), BSD 4.4-Lite TCP variant newreno")
    print(f"  ns-3:   {ns.label if ns else 'skipped'}")
    print("          packet level (PPP point-to-point), TcpNewReno + TcpClassicRecovery, no queue disc, DropTail device queues")
    print(f"  order per repetition: atmsim core, atmsim CLI, ns-3{' (quick: durations / 10)' if args.quick else ''}\n",
          flush=True)

    everything = []
    for n in sizes:
        rate, duration = SIZES[n]
        if args.quick:
            duration /= 10
        toml = args.workdir / f"dumbbell-{n}.toml"
        from atmsim import Scenario

        toml.write_text(Scenario.from_dict(scenario_doc(n, rate, duration, args.seed, args.buffer_per_flow)).validate().to_toml(),
                        encoding="utf-8")
        core, cli, ns3 = [], [], []
        for rep in range(reps[n]):
            load = os.getloadavg()[0]
            if "core" not in skip:
                core.append(run_core(toml, args.seed) | {"load_1min": load})
                print(f"  N={n} rep {rep + 1}: atmsim core {core[-1]['core_wall_s']:.3f} s", flush=True)
            if "cli" not in skip:
                cli.append(run_cli(atmsim_cli, toml, args.seed, args.workdir / f"out-{n}") | {"load_1min": os.getloadavg()[0]})
                print(f"  N={n} rep {rep + 1}: atmsim CLI  {cli[-1]['cli_wall_s']:.3f} s", flush=True)
            if ns is not None:
                ns3.append(run_ns3(exe, n, rate, duration, args.seed, args.buffer_per_flow) | {"load_1min": os.getloadavg()[0]})
                print(f"  N={n} rep {rep + 1}: ns-3 Run    {ns3[-1]['run_wall_s']:.3f} s "
                      f"(process {ns3[-1]['process_wall_s']:.3f} s)", flush=True)
        print()
        print(table(n, rate, duration, reps[n], core, cli, ns3, args.buffer_per_flow))
        print(flush=True)
        everything.append({"n": n, "bottleneck_bps": rate, "duration_s": duration, "reps": reps[n],
                           "buffer_per_flow_packets": args.buffer_per_flow,
                           "atmsim_core": core, "atmsim_cli": cli, "ns3": ns3,
                           "ns3_build": ns.label if ns else None, "atmsim_commit": commit,
                           "load_average": os.getloadavg()})
    if args.json:
        args.json.write_text(json.dumps(everything, indent=1), encoding="utf-8")
        print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
