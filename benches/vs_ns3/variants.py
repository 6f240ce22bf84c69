#!/usr/bin/env python3
"""atmsim vs ns-3: TCP variants on a congested dumbbell (an opt-in cross-check, not CI).

N bulk TCP senders (N = 1 and 4) share one bottleneck of 10 Mb/s of TCP payload with 25 ms of
one-way propagation (base RTT 51.4 ms) and a drop-tail buffer of 21 packets (about half the
bandwidth-delay product, 44 packets); windows of 1 MiB (window scaling), far above what the
path holds, so congestion control alone sets the window. Each TCP variant runs in both
simulators, and the script prints and writes, per variant and N: goodput per flow and in
all, the time-averaged cwnd in segments, retransmissions, fast recoveries, timeouts and
bottleneck drops, the ratio ns-3 / atmsim with a verdict against the tolerances below, and a
plot of both simulators' cwnd trajectories on the same axes per variant.

Tolerances (fixed before any run, README.md "TCP variants against ns-3"): aggregate goodput
within ±10 %, mean cwnd (over the flows) within ±15 %.

    NS3_DIR=/tmp/ns3work/ns-3-dev/build .venv/bin/python benches/vs_ns3/variants.py
    ... variants.py --variants reno,cubic --flows 1   # a subset
    ... variants.py --variants newreno-sack           # once SACK (RFC 6675) is in atmsim

ns-3 is found as run.py finds it ($NS3_DIR, or the `ns3` wheel); see README.md.
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import json
import math
import os
import platform
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import REPO, Ns3, jain  # the speed benchmark's ns-3 locator and build

# ----------------------------------------------------------------------------- the network
PAYLOAD_BPS = 10e6  # bottleneck capacity in TCP payload [b/s], the same on both sides
ACCESS_PAYLOAD_BPS = 100e6  # each sender's access link and the sink's link, in payload
DELAY_MS = 25.0  # bottleneck one-way propagation; access and sink links 0 ms
MSS = 1460  # TCP payload per segment (no options on data segments: no timestamps)
IP_PACKET = MSS + 40  # 1500-byte datagram
CELLS_PER_PACKET = math.ceil((IP_PACKET + 8) / 48)  # AAL5: 32 cells
ATM_WIRE = CELLS_PER_PACKET * 53  # 1696 bytes on an ATM link
PPP_WIRE = IP_PACKET + 2  # 1502 bytes on an ns-3 point-to-point link
WINDOW = 1 << 20  # socket buffers: 1 MiB, window scaling on
BUFFER_PACKETS = 21  # bottleneck queue [packets]
DURATION_S = 120.0
WARMUP_S = 20.0
SAMPLE_MS = 10.0
GOODPUT_TOL = 0.10
CWND_TOL = 0.15


def atm_rate(payload_bps: float) -> float:
    """Cell rate [b/s] of an ATM link that carries `payload_bps` of TCP payload."""
    return payload_bps * ATM_WIRE / MSS


def ppp_rate(payload_bps: float) -> float:
    """Rate [b/s] of an ns-3 point-to-point link that carries `payload_bps` of TCP payload."""
    return payload_bps * PPP_WIRE / MSS


# ----------------------------------------------------------------------------- the variants
@dataclass(frozen=True)
class Variant:
    """One row of the comparison: what atmsim runs and what ns-3 runs against it."""

    key: str
    label: str
    atmsim: dict  # [[tcp]] fields
    ns3: dict  # dumbbell.cc options
    ns3_cwnd: str  # the ns-3 trace column comparable with atmsim's cwnd
    note: str = ""


# ns-3 options common to every variant: BSD's initial window of 1 segment, Nagle on, no
# limited transmit (4.4BSD has none), window scaling on, no timestamps, HyStart off;
# ns-3's defaults kept: delayed ACK every 2nd segment or 200 ms, min RTO 1 s, 1 ms clock.
NS3_COMMON = {"initialCwnd": 1, "nagle": 1, "limitedTransmit": 0, "windowScaling": 1, "timestamps": 0,
              "hystart": 0, "recovery": "classic"}
ATM_COMMON = {"sack": False, "timestamps": False, "hystart": False}

VARIANTS = {v.key: v for v in [
    Variant("reno", "Reno", {**ATM_COMMON, "variant": "reno"},
            {**NS3_COMMON, "cc": "newreno", "sack": 0}, "cwnd_inflated_bytes",
            note="atmsim 4.4BSD-Lite Reno; ns-3 TcpNewReno + TcpClassicRecovery, no SACK (ns-3 has no "
                 "Reno recovery: a partial ACK keeps it in recovery, as NewReno)"),
    Variant("newreno", "NewReno", {**ATM_COMMON, "variant": "newreno"},
            {**NS3_COMMON, "cc": "newreno", "sack": 0}, "cwnd_inflated_bytes",
            note="the same ns-3 run as Reno"),
    Variant("newreno-sack", "NewReno+SACK", {**ATM_COMMON, "variant": "newreno", "sack": True},
            {**NS3_COMMON, "cc": "newreno", "sack": 1}, "cwnd_bytes",
            note="RFC 6675 both sides; ns-3 TcpClassicRecovery (cwnd = ssthresh in recovery, pipe), not PRR"),
    Variant("cubic", "CUBIC", {**ATM_COMMON, "variant": "cubic"},
            {**NS3_COMMON, "cc": "cubic", "sack": 0, "cubicFriendliness": 1}, "cwnd_inflated_bytes",
            note="ns-3 TcpCubic with TcpFriendliness (its default), FastConvergence, HyStart off"),
    Variant("cubic-nofriendly", "CUBIC (ns-3 TcpFriendliness off)", {**ATM_COMMON, "variant": "cubic"},
            {**NS3_COMMON, "cc": "cubic", "sack": 0, "cubicFriendliness": 0}, "cwnd_inflated_bytes",
            note="a sensitivity run: ns-3 as before ns-3.41, atmsim unchanged"),
]}
DEFAULT_VARIANTS = "reno,newreno,newreno-sack,cubic,cubic-nofriendly"


# ----------------------------------------------------------------------------- atmsim
def scenario_doc(n: int, duration: float, warmup: float, seed: int, tcp: dict, drop: str,
                 sample_ms: float = SAMPLE_MS, window: int = WINDOW) -> dict:
    """The dumbbell as an atmsim scenario (docs/builder.md)."""
    from atmsim.builder import NetworkBuilder

    if drop == "epd":
        # A frame is refused whole when its first cell finds BUFFER_PACKETS frames' cells
        # waiting besides the one being sent (occupancy 32*w + r, r in 1..32 the cells left of
        # the frame in service): ns-3's DropTail queue of BUFFER_PACKETS packets, which does
        # not count the packet being transmitted. Room for n more frames, so an admitted frame
        # always fits (no partial-frame loss).
        switch = {"drop_policy": "epd", "epd_threshold_cells": BUFFER_PACKETS * CELLS_PER_PACKET + 1,
                  "buffer_cells": (BUFFER_PACKETS + 1 + n) * CELLS_PER_PACKET}
    else:
        # Cell drop-tail: the buffer of BUFFER_PACKETS + 1 whole frames, cells dropped one by one.
        switch = {"drop_policy": "tail", "buffer_cells": (BUFFER_PACKETS + 1) * CELLS_PER_PACKET}
    net = NetworkBuilder(f"vs-ns3-tcp-{tcp['variant']}{'-sack' if tcp.get('sack') else ''}-{n}",
                         duration_s=duration, warmup_s=warmup, seed=seed, sample_interval_ms=sample_ms,
                         description=f"benches/vs_ns3/variants.py: {n} bulk TCP senders, bottleneck "
                                     f"{PAYLOAD_BPS / 1e6:g} Mb/s of payload ({atm_rate(PAYLOAD_BPS):.0f} b/s of "
                                     f"cells), {DELAY_MS} ms, {BUFFER_PACKETS} packets ({drop})")
    left = net.switch("left", **switch)
    right = net.switch("right")
    dst = net.host("dst")
    net.link(left, right, rate_bps=atm_rate(PAYLOAD_BPS), delay_ms=DELAY_MS)
    net.link(right, dst, rate_bps=atm_rate(ACCESS_PAYLOAD_BPS), delay_ms=0.0)
    for i in range(n):
        src = net.host(f"src{i}")
        net.link(src, left, rate_bps=atm_rate(ACCESS_PAYLOAD_BPS), delay_ms=0.0)
        vc = net.vc(f"vc{i}", [src, left, right, dst])
        net.tcp(f"tcp{i}", src, dst, vc=vc, mss_bytes=MSS, window_bytes=window, window_scaling=True,
                app={"kind": "bulk"}, **tcp)
    return net.to_dict()


def run_atmsim(n: int, v: Variant, args: argparse.Namespace) -> dict:
    from atmsim import Scenario

    doc = scenario_doc(n, args.duration, args.warmup, args.seed, v.atmsim, args.drop, args.sample_ms, args.window)
    t0 = time.perf_counter()
    r = Scenario.from_dict(doc).run()
    wall = time.perf_counter() - t0
    s = r.summary
    conns = s["connections"]
    cw = r.trace("cwnd_bytes")
    rx = r.trace("rexmt_segs")
    names = [f"conn:tcp{i}" for i in range(n)]
    window = cw[(cw.index >= args.warmup) & (cw.index <= args.duration)]
    at_warm = rx[rx.index <= args.warmup].iloc[-1] if args.warmup > 0 else rx.iloc[0] * 0
    port = next(p for p in s["ports"] if p["name"] == "left->right")
    return {
        "side": "atmsim",
        "wall_s": wall,
        "goodput_bps": [c["goodput_bps"] for c in conns],
        "mean_cwnd_segments": [float(window[nm].mean()) / MSS for nm in names],
        "retransmissions": [c["rexmt_segs"] for c in conns],
        "retransmissions_after_warmup": [int(conns[i]["rexmt_segs"] - at_warm[nm]) for i, nm in enumerate(names)],
        "recoveries": [c["fast_retransmits"] for c in conns],
        "timeouts": [c["timeouts"] for c in conns],
        # Datagrams the network lost: frames refused whole (EPD) or missing cells (tail drop).
        "drops_packets": s["conservation"]["frames"]["discarded"] + s["conservation"]["frames"]["lost"],
        "drops_cells": port["drops"],
        "frames_refused": port["frames_refused"],
        "utilization": port["utilization"],
        "trace": {nm.removeprefix("conn:tcp"): (cw.index.to_numpy(), cw[nm].to_numpy() / MSS) for nm in names},
    }


# ----------------------------------------------------------------------------- ns-3
def run_ns3(exe: Path, n: int, v: Variant, args: argparse.Namespace, cache: dict) -> dict:
    opts = {"n": n, "bottleneckMbps": ppp_rate(PAYLOAD_BPS) / 1e6, "accessMbps": ppp_rate(ACCESS_PAYLOAD_BPS) / 1e6,
            "sinkMbps": ppp_rate(ACCESS_PAYLOAD_BPS) / 1e6, "delayMs": DELAY_MS, "duration": args.duration,
            "warmup": args.warmup, "seed": args.seed, "mss": MSS, "window": args.window, "queuePackets": BUFFER_PACKETS,
            "sampleMs": args.sample_ms, **v.ns3}
    extra = [f"--{a}" for a in args.ns3_arg]
    key = json.dumps([opts, extra], sort_keys=True)
    if key in cache:
        return cache[key]
    trace = args.workdir / f"ns3-{v.key}-{n}.csv"
    cmd = [str(exe), *[f"--{k}={x:.10g}" if isinstance(x, float) else f"--{k}={x}" for k, x in opts.items()],
           *extra, f"--trace={trace}"]
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        sys.stderr.write(p.stdout[-4000:] + p.stderr[-4000:])
        raise SystemExit(f"ns-3 failed ({p.returncode}): {' '.join(cmd)}")
    out = json.loads([ln for ln in p.stdout.splitlines() if ln.startswith("{")][-1])
    times: dict[str, list[float]] = {str(i): [] for i in range(n)}
    values: dict[str, list[float]] = {str(i): [] for i in range(n)}
    with trace.open() as f:
        for row in csv.DictReader(f):
            times[row["flow"]].append(float(row["time_s"]))
            values[row["flow"]].append(float(row[v.ns3_cwnd]) / MSS)
    means = []
    for i in range(n):
        sel = [w for t, w in zip(times[str(i)], values[str(i)]) if args.warmup <= t <= args.duration]
        means.append(sum(sel) / len(sel))
    r = {
        "side": "ns-3",
        "wall_s": wall,
        "command": cmd,
        "goodput_bps": out["goodput_bps"],
        "mean_cwnd_segments": means,
        "mean_cwnd_segments_exact_uninflated": [x / MSS for x in out["mean_cwnd_bytes_exact"]],
        "retransmissions": out["retransmissions"],
        "retransmissions_after_warmup": out["retransmissions_after_warmup"],
        "recoveries": out["recoveries"],
        "timeouts": out["timeouts"],
        "drops_packets": out["drops_bottleneck_packets"],
        "trace": {str(i): (times[str(i)], values[str(i)]) for i in range(n)},
    }
    cache[key] = r
    return r


# ----------------------------------------------------------------------------- report
@dataclass
class Row:
    variant: Variant
    n: int
    atm: dict | None
    ns3: dict | None
    extra: dict = field(default_factory=dict)

    def agg(self, side: dict | None) -> float | None:
        return sum(side["goodput_bps"]) if side else None

    def cwnd(self, side: dict | None) -> float | None:
        return sum(side["mean_cwnd_segments"]) / self.n if side else None

    def verdict(self) -> str:
        if not self.atm:
            return "atmsim not run"
        if not self.ns3:
            return "ns-3 not run"
        g = self.agg(self.ns3) / self.agg(self.atm)
        c = self.cwnd(self.ns3) / self.cwnd(self.atm)
        bad = [w for w, r, tol in (("goodput", g, GOODPUT_TOL), ("cwnd", c, CWND_TOL)) if abs(r - 1) > tol]
        return "within" if not bad else "outside: " + ", ".join(bad)


def fmt(x: float | None, spec: str) -> str:
    return "-" if x is None else format(x, spec)


def pair(a: dict | None, n: dict | None, k: str) -> str:
    """Per-flow counts summed, "atmsim / ns-3"."""
    return f"{sum(a[k]) if a else '-'} / {sum(n[k]) if n else '-'}"


def table(rows: list[Row]) -> str:
    head = ["variant", "N", "goodput atmsim", "goodput ns-3", "ratio", "cwnd atmsim", "cwnd ns-3", "ratio",
            "rexmt a/n", "recov a/n", "RTO a/n", "drops a/n", "Jain a/n", "verdict"]
    lines = [head]
    for r in rows:
        a, n = r.atm, r.ns3
        ga, gn, ca, cn = r.agg(a), r.agg(n), r.cwnd(a), r.cwnd(n)
        both = a is not None and n is not None

        lines.append([
            r.variant.label, str(r.n), fmt(ga and ga / 1e6, ".3f"), fmt(gn and gn / 1e6, ".3f"),
            fmt(gn / ga if both else None, ".3f"), fmt(ca, ".1f"), fmt(cn, ".1f"), fmt(cn / ca if both else None, ".3f"),
            pair(a, n, "retransmissions_after_warmup"), pair(a, n, "recoveries"), pair(a, n, "timeouts"),
            f"{fmt(a and a['drops_packets'], '.0f')} / {fmt(n and n['drops_packets'], '.0f')}",
            f"{fmt(a and jain(a['goodput_bps']), '.3f')} / {fmt(n and jain(n['goodput_bps']), '.3f')}",
            r.verdict(),
        ])
    w = [max(len(line[i]) for line in lines) for i in range(len(head))]
    return "\n".join("  ".join(c.ljust(w[i]) if i in (0, len(head) - 1) else c.rjust(w[i]) for i, c in enumerate(line))
                     for line in lines)


def markdown(rows: list[Row]) -> str:
    out = ["| variant | N | goodput atmsim [Mb/s] | goodput ns-3 [Mb/s] | ns-3/atmsim | mean cwnd atmsim [seg] | "
           "mean cwnd ns-3 [seg] | ns-3/atmsim | retransmitted after warm-up atmsim / ns-3 | fast recoveries / "
           "timeouts atmsim | fast recoveries / timeouts ns-3 | bottleneck drops [packets] atmsim / ns-3 | verdict |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]

    def total(side: dict | None, k: str) -> str:
        return "-" if side is None else str(sum(side[k]))

    for r in rows:
        a, n = r.atm, r.ns3
        ga, gn, ca, cn = r.agg(a), r.agg(n), r.cwnd(a), r.cwnd(n)
        both = a is not None and n is not None
        out.append(f"| {r.variant.label} | {r.n} | {fmt(ga and ga / 1e6, '.3f')} | {fmt(gn and gn / 1e6, '.3f')} | "
                   f"{fmt(gn / ga if both else None, '.3f')} | {fmt(ca, '.1f')} | {fmt(cn, '.1f')} | "
                   f"{fmt(cn / ca if both else None, '.3f')} | "
                   f"{total(a, 'retransmissions_after_warmup')} / {total(n, 'retransmissions_after_warmup')} | "
                   f"{total(a, 'recoveries')} / {total(a, 'timeouts')} | {total(n, 'recoveries')} / {total(n, 'timeouts')} | "
                   f"{fmt(a and a['drops_packets'], '.0f')} / {fmt(n and n['drops_packets'], '.0f')} | {r.verdict()} |")
    return "\n".join(out)


def plot(rows: list[Row], outdir: Path, zoom: tuple[float, float]) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written = []
    for key in dict.fromkeys(r.variant.key for r in rows):
        mine = [r for r in rows if r.variant.key == key and (r.atm or r.ns3)]
        if not mine:
            continue
        fig, axes = plt.subplots(len(mine), 2, figsize=(13, 3.2 * len(mine)), squeeze=False,
                                 gridspec_kw={"width_ratios": [2, 1]})
        for row, (full, zoomed) in zip(mine, axes):
            # The y range of the measured part: the first slow start's overshoot (hundreds of
            # segments, inflated in recovery) would flatten everything after it.
            top = max(max((w for t, w in zip(*d["trace"]["0"]) if t >= ARGS.warmup), default=1.0)
                      for d in (row.atm, row.ns3) if d is not None)
            for ax in (full, zoomed):
                ax.set_ylim(0, 1.1 * top)
                for side, colour, data in (("atmsim", "tab:blue", row.atm), ("ns-3", "tab:orange", row.ns3)):
                    if data is None:
                        continue
                    t, w = data["trace"]["0"]
                    ax.plot(t, w, color=colour, lw=0.7, label=f"{side} (mean {row.cwnd(data):.1f})")
                if ax is full:
                    ax.axvline(ARGS.warmup, color="grey", lw=0.5, ls=":")
                ax.set_ylabel("cwnd [segments]")
                ax.grid(alpha=0.3)
            zoomed.set_xlim(*zoom)
            full.set_title(f"{row.variant.label}, N = {row.n}: flow 0's cwnd (dotted: end of warm-up; y axis cut "
                           "at the measured part's peak)", fontsize=9)
            zoomed.set_title(f"{zoom[0]:g}-{zoom[1]:g} s", fontsize=9)
            full.legend(loc="upper right", fontsize=8)
        for ax in axes[-1]:
            ax.set_xlabel("time [s]")
        fig.tight_layout()
        path = outdir / f"cwnd-{key}.png"
        fig.savefig(path, dpi=80)
        plt.close(fig)
        written.append(path)
    return written


ARGS: argparse.Namespace


def main() -> None:
    global ARGS
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variants", default=DEFAULT_VARIANTS, help=f"comma-separated among {', '.join(VARIANTS)}")
    ap.add_argument("--flows", default="1,4", help="comma-separated numbers of senders (default 1,4)")
    ap.add_argument("--duration", type=float, default=DURATION_S)
    ap.add_argument("--warmup", type=float, default=WARMUP_S, help="goodput and mean cwnd over [warmup, duration]")
    ap.add_argument("--sample-ms", type=float, default=SAMPLE_MS, help="cwnd sampling period, both sides")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--window", type=int, default=WINDOW, help="socket buffers, both sides [bytes] (default %(default)s)")
    ap.add_argument("--ns3-arg", action="append", default=[], metavar="NAME=VALUE",
                    help="one more option for the ns-3 program, e.g. ns3::TcpSocket::InitialSlowStartThreshold=65535 "
                         "(an ns-3 attribute default; repeatable; a diagnosis, not the comparison)")
    ap.add_argument("--drop", choices=["epd", "tail"], default="epd",
                    help="atmsim's bottleneck: whole frames refused (epd, the default: packet drop-tail as ns-3's) "
                         "or cells dropped one by one (tail)")
    ap.add_argument("--zoom", default="60,75", help="time range of the plots' right-hand panels [s]")
    ap.add_argument("--skip", default="", help="comma-separated sides to leave out: atmsim, ns3")
    ap.add_argument("--ns3-python", help="a Python that has the `ns3` wheel (when NS3_DIR is not set)")
    ap.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()) / "atmsim-vs-ns3-tcp",
                    help="the compiled ns-3 program, its traces, the plots and results (default %(default)s)")
    ap.add_argument("--json", type=Path, help="also write every run's numbers (without traces) here")
    args = ARGS = ap.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    keys = [k for k in args.variants.split(",") if k]
    for k in keys:
        if k not in VARIANTS:
            ap.error(f"--variants: {k!r} is not one of {', '.join(VARIANTS)}")
    flows = [int(x) for x in args.flows.split(",") if x]
    skip = {s for s in args.skip.split(",") if s}
    zoom = tuple(float(x) for x in args.zoom.split(","))

    ns = exe = None
    if "ns3" not in skip:
        ns = Ns3.locate(args.ns3_python)
        exe = ns.build(args.workdir)
    commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    print(f"atmsim vs ns-3, TCP variants -- {dt.datetime.now().isoformat(timespec='seconds')}, {platform.node()}, "
          f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"  atmsim: commit {commit}; "
          f"bottleneck {atm_rate(PAYLOAD_BPS):.0f} b/s of cells, {'EPD (frames)' if args.drop == 'epd' else 'cell tail drop'}")
    print(f"  ns-3:   {ns.label if ns else 'skipped'}; bottleneck {ppp_rate(PAYLOAD_BPS):.0f} b/s of PPP frames"
          + (f"; extra options {' '.join(args.ns3_arg)}" if args.ns3_arg else ""))
    print(f"  {PAYLOAD_BPS / 1e6:g} Mb/s of payload, {DELAY_MS:g} ms one way, {BUFFER_PACKETS} packets of buffer, "
          f"MSS {MSS}, window {args.window} B, {args.duration:g} s (measured from {args.warmup:g} s), samples every "
          f"{args.sample_ms:g} ms\n", flush=True)

    rows: list[Row] = []
    cache: dict = {}
    for key in keys:
        v = VARIANTS[key]
        for n in flows:
            atm = ns3 = None
            if "atmsim" not in skip:
                atm = run_atmsim(n, v, args)
                print(f"  {v.label} N={n}: atmsim {sum(atm['goodput_bps']) / 1e6:.3f} Mb/s ({atm['wall_s']:.1f} s)",
                      flush=True)
            if exe is not None:
                ns3 = run_ns3(exe, n, v, args, cache)
                print(f"  {v.label} N={n}: ns-3   {sum(ns3['goodput_bps']) / 1e6:.3f} Mb/s ({ns3['wall_s']:.1f} s)",
                      flush=True)
            rows.append(Row(v, n, atm, ns3))
    print()
    print(table(rows))
    print()
    md = markdown(rows)
    (args.workdir / "table.md").write_text(md + "\n", encoding="utf-8")
    for path in plot(rows, args.workdir, zoom):
        print(f"wrote {path}")
    print(f"wrote {args.workdir / 'table.md'}")
    if args.json:
        def strip(d: dict | None) -> dict | None:
            return None if d is None else {k: x for k, x in d.items() if k != "trace"}

        args.json.write_text(json.dumps({
            "atmsim_commit": commit, "ns3": ns.label if ns else None, "drop": args.drop,
            "duration_s": args.duration, "warmup_s": args.warmup, "sample_ms": args.sample_ms,
            "rows": [{"variant": r.variant.key, "n": r.n, "verdict": r.verdict(), "atmsim": strip(r.atm),
                      "ns3": strip(r.ns3)} for r in rows]}, indent=1), encoding="utf-8")
        print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
