"""Koçyiğit, "TCP Traffic Shaping in ATM Networks" (CLASS simulator), §III, Figures 3–6.

The Fig. 2 network (``scenarios/kocyigit/*.toml``): four TCP transmitters, each on its own
150 Mb/s link of 500 km to switch 1; the bottleneck L0 (150 Mb/s, 500 km) from switch 1 to
switch 2; the receivers next to switch 2. Background traffic enters switch 1: Poisson
messages with truncated-geometric lengths (mean 25 cells, max 200), shaped by GCRA with
β = 1.2, τ = 0. TCP windows of 60 segments of 9180 bytes. The buffer in front of L0 holds 1000
or 5000 cells.

What is run, for background loads 0–100 Mb/s:

* Figures 3–6: mean TCP receiver goodput and efficiency (goodput / offered TCP load, the
  offered load counting retransmissions) for TCP unshaped and shaped at 20 and 35 Mb/s per
  connection (VC-based, τ = 0), at both buffer sizes;
* the same with VP-based shaping (one shaper per transmitter: frames are not interleaved);
* one user carrying all four connections over one access link, shaped VC-based (4 shapers
  at 35 Mb/s, cell-by-cell round robin between them) or VP-based (one 140 Mb/s shaper), next
  to the unshaped user — the case where the two granularities differ.

Verdicts are computed on the VC-based curves; the report opens with a table of every item,
its verdict and the run time. The modes: ``--full`` runs every family at 8 seeds × 30 s
(5 s warm-up). Quick mode spends its budget where the verdicts are: the VC-based curves at
8 seeds × 15 s (3 s warm-up). Measured against full mode (seeds 1–8): all ten verdicts the
same. The one that needs the seeds is the 5000-cell case where unshaped TCP beats 35 Mb/s
shaping at 25 Mb/s of background (full: 18.4 ± 1.3 vs 15.3 ± 1.2 Mb/s, Welch p = 0.0005;
quick: 18.4 ± 1.1 vs 14.8 ± 1.8, p = 0.0007, against 0.01 per load): the first 3 or 4 seeds
miss it, whether the runs last 15 s or 30 s (and so do 3 seeds × 8 s); 6 seeds catch it. Shorter runs lose it: at 8 seeds × 10 s (2 s warm-up;
a third less simulated time) that row agrees and the nine others are unchanged, so quick
mode keeps 15 s. The families without verdicts (one user) run at
2 seeds × 8 s; VP-based shaping of one connection per transmitter is the VC-based cell stream
exactly (tested in ``tests/test_kocyigit.py``), so quick mode does not run it.

Links run on free clocks within ±20 ppm (``simulation.link_clock_ppm``), as SONET links do.
That does not prevent starvation of the unshaped senders at low background load: hosts able
to keep their 150 Mb/s links busy into the 150 Mb/s L0 drain its queue only at the clock
difference, so a losing sender keeps meeting a full buffer (docs/scenario.md, "Link clocks";
the report shows the exact-clock run and Jain's index).
"""

from __future__ import annotations

import html
import math
import time
from pathlib import Path

import numpy as np

from ... import stats
from ..._core import Entity, Metric, entity_name
from ..._report import figure_path, plot_ci_lines
from ..._scenario import Scenario
from ...callbacks import StudyProgress
from ...study import Kind, Progress, Rule, Verdict, tcp_profile, verdict_html, write_study_report
from ...study import Mode as StudyMode
from ...study.executor import run_study
from ...study.tcp_profile import TcpProfile
from ..runner import run_many
from . import today
from .design import (
    ALPHA_PER_LOAD,
    BG_LOADS_MBPS,
    BUFFERS,
    EFFICIENCY,
    FULL,
    LINK_MBPS,
    N_TCP,
    ONE_USER,
    PAYLOAD_SHARE,
    QUICK,
    QUICK_EXTRA,
    QUICK_MECH,
    SCENARIO_DIR,
    SHAPINGS,
    Size,
)
from .rules import (  # noqa: F401  (every rule is part of the study's interface, tested on both sides)
    buffer_gain_rule,
    bursty_rule,
    eff_poor_rule,
    efficiency_falls,
    flat20_rule,
    judge,
    shaping35_rule,
    shaping_hardly_matters_rule,
    unshaped_ahead,
)

__all__ = [
    "EFFICIENCY_EDGE",
    "MECH_BUFFERS",
    "Study",
    "at_background",
    "capped_efficiency",
    "load",
    "mechanism",
    "point_metrics",
    "run",
    "scenario_dir",
]


def scenario_dir() -> Path:
    return SCENARIO_DIR


def load(buffer_cells: int, variant: str, one_user: bool = False) -> Scenario:
    """``scenarios/kocyigit/[oneuser_]buffer<N>_<variant>.toml``."""
    return Scenario.from_toml(SCENARIO_DIR / f"{'oneuser_' if one_user else ''}buffer{buffer_cells}_{variant}.toml")


def at_background(sc: Scenario, bg_mbps: float, duration_s: float, warmup_s: float) -> Scenario:
    """A copy of ``sc`` with background load ``bg_mbps`` (0 removes the source)."""
    sc = sc.copy()
    sc.set("simulation.duration_s", duration_s)
    sc.set("simulation.warmup_s", warmup_s)
    sc.set("simulation.sample_interval_ms", 0)
    if bg_mbps > 0:
        sc.set("cell_source[0].load_bps", bg_mbps * 1e6)
        sc.set("vc[4].shape.mean_bps", bg_mbps * 1e6)
    else:
        sc.set("cell_source", [])
    return sc


#: How far above 1 a seed's efficiency may come from the measurement window's edges before it is a bug.
EFFICIENCY_EDGE = 0.10


def capped_efficiency(values: list[float]) -> list[float]:
    """Per-seed efficiencies with those above 1 counted as 1: goodput and the payload sent are
    counted over the same window, so a segment sent before it and delivered in it can lift a
    nearly loss-free seed a little above 1 — less the longer the window (measured: 1.00098 at
    most in quick mode's 12 s windows, 1.0138 in 1.5 s test runs). More than
    :data:`EFFICIENCY_EDGE` above 1 raises ``ValueError``: not an edge effect."""
    if any(v > 1 + EFFICIENCY_EDGE for v in values if not math.isnan(v)):
        raise ValueError(f"efficiency above 1 + {EFFICIENCY_EDGE}: {max(values)}")
    return [min(v, 1.0) for v in values]


def point_metrics(summaries: list[dict], bg_mbps: float) -> dict:
    """One point of a curve over seeds: 95% t intervals, kept in each quantity's physical range
    (:func:`atmsim.stats.bounded_mean_ci`: goodput in [0, 150] Mb/s, efficiencies and Jain's index
    in [0, 1]; a plain t-interval over 2 seeds drew goodput down to −17 Mb/s), of the mean goodput per connection
    [Mb/s], of each efficiency of :data:`EFFICIENCY`, of Jain's index over the four
    connections and of the least and most served connection; the per-seed goodputs (for
    tests between curves); loss events and L0's utilisation."""
    gp, jain, least, most, to, fr, util = [], [], [], [], [], [], []
    eff: dict[str, list[float]] = {k: [] for k in EFFICIENCY}
    refused = 0
    for s in summaries:
        conns = s["connections"]
        g = [c["goodput_bps"] / 1e6 for c in conns]
        gp.append(sum(g) / len(g))
        jain.append(stats.jain(g) if max(g) > 0 else math.nan)
        least.append(min(g))
        most.append(max(g))
        offered = sum(c["offered_bps"] for c in conns)
        eff["sent"].append(sum(g) * 1e6 / offered if offered else math.nan)
        clients = {f"{p['name'].split('->')[0]}" for p in s["ports"] if p["name"].endswith("->sw1")} - {"bg-src"}
        sent_cells = sum(p["cells_tx"] for p in s["ports"] if p["name"].split("->")[0] in clients and p["name"].endswith("->sw1"))
        read_cells = sum(c["bytes_read"] / c["mss_bytes"] for c in conns) * 192
        eff["cells"].append(read_cells / sent_cells if sent_cells else math.nan)
        eff["capacity"].append(sum(g) / ((LINK_MBPS - bg_mbps) * PAYLOAD_SHARE))
        dur = s["duration_s"]
        to.append(sum(c["timeouts"] for c in conns) / dur)
        fr.append(sum(c["fast_retransmits"] for c in conns) / dur)
        util.append(next(p["utilization"] for p in s["ports"] if p["name"] == "sw1->sw2"))
        refused += sum(sh.get("frames_refused", 0) for sh in s["shapers"])
    for k in ("sent", "cells"):
        eff[k] = capped_efficiency(eff[k])
    ranges = {"sent": (0.0, 1.0), "cells": (0.0, 1.0), "capacity": (0.0, None)}
    return {
        "goodput": stats.bounded_mean_ci(gp, 0.0, LINK_MBPS), "goodput_runs": gp,
        "efficiency": stats.bounded_mean_ci(eff["sent"], 0.0, 1.0),
        "eff": {k: stats.bounded_mean_ci(v, *ranges[k]) for k, v in eff.items()},
        "jain": stats.bounded_mean_ci([j for j in jain if not math.isnan(j)] or [math.nan], 0.0, 1.0),
        "least": stats.bounded_mean_ci(least, 0.0, LINK_MBPS), "most": stats.bounded_mean_ci(most, 0.0, LINK_MBPS),
        "timeouts_per_s": float(np.mean(to)), "fast_rexmt_per_s": float(np.mean(fr)),
        "l0_util": float(np.mean(util)), "frames_refused": refused,
        "shaper_max_queue": max((sh["max_queue_cells"] for s in summaries for sh in s["shapers"] if sh["name"] != "bg"), default=0),
    }


class Study:
    def __init__(self, full: bool, seed: int, progress: Progress | StudyProgress | None = None):
        self.full = full
        self.seed = seed
        self.main = FULL if full else QUICK
        self.extra = FULL if full else QUICK_EXTRA
        self.progress = Progress.of(progress)

    def seeds(self, size: Size) -> list[int]:
        return list(range(self.seed, self.seed + size.seeds))

    def curves(self, families: dict[str, tuple[Size, dict[str, Scenario]]]) -> dict[str, dict[str, list[tuple[float, dict]]]]:
        """Run every (family, curve, background load, seed); return CI points per curve."""
        keys, runs = [], []
        for fam, (size, curves) in families.items():
            for label, base in curves.items():
                for bg in BG_LOADS_MBPS:
                    sc = at_background(base, bg, size.duration_s, size.warmup_s)
                    for s in self.seeds(size):
                        keys.append((fam, label, bg))
                        runs.append((sc, s))
        self.progress.plan(len(runs))
        summaries = run_many(runs, progress=self.progress.runs(lambda d: "{} {} at {} Mb/s".format(*keys[d - 1])))
        grouped: dict = {}
        for key, summ in zip(keys, summaries):
            grouped.setdefault(key, []).append(summ)
        out: dict = {}
        for (fam, label, bg), summs in grouped.items():
            out.setdefault(fam, {}).setdefault(label, []).append((bg, point_metrics(summs, bg)))
        return out


def _plot(curves: dict, metric: str, ylabel: str, title: str, path: Path) -> Path:
    series = {
        label: [(x, p[metric].estimate, p[metric].low, p[metric].high) for x, p in pts] for label, pts in curves.items()
    }
    return plot_ci_lines(series, "background load [Mb/s]", ylabel, title, path)


def _verdict(items: list[Verdict], row: str, paper: str, rule: Rule, text: str, **numbers) -> str:
    """A verdict of kind validated (the paper's statements; nothing was fitted to them)."""
    v = Verdict.judged(row, Kind.VALIDATED, paper, rule, detail=text, **numbers)
    items.append(v)
    return verdict_html(v)


def _not_comparable(items: list[Verdict], row: str, why: str, text: str) -> None:
    items.append(Verdict.not_comparable(row, "— (beyond the paper's numbers)", why, detail=text))


def _nums(pts: list[tuple[float, dict]], metric: str = "goodput", fmt: str = "{:.1f}") -> str:
    return ", ".join(fmt.format(p[metric].estimate) for _, p in pts)


def _family_html(name: str, curves: dict, figs: tuple[int, int] | None, out: Path, tag: str) -> str:
    g = _plot(curves, "goodput", "mean TCP goodput [Mb/s]", f"{name}: goodput", figure_path(out, f"{tag}_goodput.png"))
    e = _plot(curves, "efficiency", "efficiency (goodput / offered)", f"{name}: efficiency", figure_path(out, f"{tag}_efficiency.png"))
    title = f"Figures {figs[0]}–{figs[1]} — {name}" if figs else name
    rows = "".join(
        f"<tr><td>{html.escape(label)}</td>"
        + "".join(f"<td>{_ci(p['goodput'], '{:.1f}')}<br><small>eff {p['efficiency'].estimate:.2f}</small></td>" for _, p in pts)
        + "</tr>"
        for label, pts in curves.items()
    )
    head = "".join(f"<th>{bg} Mb/s</th>" for bg in BG_LOADS_MBPS)
    return (f"<h2>{html.escape(title)}</h2><p><img src='{g.name}'><img src='{e.name}'></p>"
            f"<table><tr><th>TCP</th>{head}</tr>{rows}</table>")


def _ci(c, fmt: str = "{:.2f}") -> str:
    """A mean and its interval, ``12.3 [10.1, 13.9]`` (bounded intervals are not symmetric)."""
    if math.isnan(c.half_width):
        return fmt.format(c.estimate)
    return (fmt + " [" + fmt + ", " + fmt + "]").format(c.estimate, c.low, c.high)


def _fairness_html(curves: dict, buf: int, out: Path) -> str:
    """Per-connection goodput and Jain's index over the four connections, per curve and load."""
    j = _plot(curves, "jain", "Jain's index (4 connections)", f"buffer {buf} cells: fairness", figure_path(out, f"jain{buf}.png"))
    head = "".join(f"<th>{bg} Mb/s</th>" for bg in BG_LOADS_MBPS)
    rows = "".join(
        f"<tr><td>{html.escape(label)}</td>"
        + "".join(f"<td>J {_ci(p['jain'])}<br><small>least {p['least'].estimate:.1f}, most {p['most'].estimate:.1f} Mb/s</small></td>" for _,
                  p in pts)
        + "</tr>"
        for label, pts in curves.items()
    )
    return (f"<h3>Per-connection goodput, buffer {buf} cells</h3><p><img src='{j.name}'></p>"
            f"<table><tr><th>TCP</th>{head}</tr>{rows}</table>")


def _efficiency_html(res: dict) -> str:
    """The efficiency definitions side by side, every curve and load of both buffers."""
    head = "".join(f"<th>{bg} Mb/s</th>" for bg in BG_LOADS_MBPS)
    rows = []
    for buf in BUFFERS:
        for label, pts in res[f"vc{buf}"].items():
            for k in EFFICIENCY:
                rows.append(f"<tr><td>{buf}</td><td>{html.escape(label)}</td><td>{k}</td>"
                            + "".join(f"<td>{p['eff'][k].estimate:.2f}</td>" for _, p in pts) + "</tr>")
    defs = "".join(f"<li><b>{k}</b>: {html.escape(v)}</li>" for k, v in EFFICIENCY.items())
    return (f"<h2>Efficiency: which one?</h2><p>The paper defines efficiency as 'the ratio between the goodput and the "
            f"total offered load of TCP connections'. Three readings, measured on the same runs:</p><ul>{defs}</ul>"
            f"<table><tr><th>buffer</th><th>TCP</th><th>definition</th>{head}</tr>{''.join(rows)}</table>")


def _mech_keep(warmup_s: float):
    """From one run (series every 10 ms): its summary's counters; the share of 100 ms windows
    after the warm-up in which a connection's receiver read nothing (stalled); and L0's loss
    episodes: runs of 10 ms samples with new drops at L0, merged when less than 50 ms apart."""
    def keep(r):
        s = r.summary
        ser = r.series[r.series.time_s > warmup_s]
        g = ser[(ser.metric == Metric.GOODPUT_BPS) & ser.entity.str.startswith(entity_name(Entity.CONN, ""))].copy()
        g["w"] = (g.time_s * 10).astype(int)
        stalled = float((g.groupby(["entity", "w"]).value.sum() == 0).mean())
        d = ser[(ser.entity == entity_name(Entity.PORT, "sw1->sw2")) & (ser.metric == Metric.DROPS_CELLS)].sort_values("time_s")
        v, t = d.value.to_numpy(), d.time_s.to_numpy()
        episodes, last = 0, -1.0
        for ti, x in zip(t[1:], np.diff(v)):
            if x > 0:
                episodes += ti - last > 0.05
                last = ti
        conns = s["connections"]
        dur = s["duration_s"]
        window = dur - warmup_s
        return {"goodput": sum(c["goodput_bps"] for c in conns) / 1e6,
                "timeouts_per_s": sum(c["timeouts"] for c in conns) / dur,
                "fast_rexmt_per_s": sum(c["fast_retransmits"] for c in conns) / dur,
                "episodes_per_s": episodes / window,
                "timeouts_per_episode": sum(c["timeouts"] for c in conns) / dur * window / max(episodes, 1),
                "stalled": stalled,
                "l0_util": next(p["utilization"] for p in s["ports"] if p["name"] == "sw1->sw2")}
    return keep


MECH_BUFFERS = (1000, 2000, 3540, 5000, 10000)


def mechanism(size: Size, seeds: list[int], bg_mbps: float = 25, progress: Progress | StudyProgress | None = None) -> dict:
    """Experiment B: unshaped TCP at ``bg_mbps`` of background with L0 buffers of
    :data:`MECH_BUFFERS` cells (3540 = L0's bandwidth-delay product, 10 ms × 150 Mb/s in
    cells), Reno as shipped and Reno with fast retransmit off (every loss waits for the
    500 ms-tick RTO). Returns the mean of each measure per (variant, buffer)."""
    cases, runs = [], []
    for var in ("reno", "timeouts only"):
        for buf in (MECH_BUFFERS if var == "reno" else (1000, 5000)):
            sc = at_background(load(1000, "unshaped"), bg_mbps, size.duration_s, size.warmup_s)
            sc.set("switch[0].buffer_cells", buf).set("switch[1].buffer_cells", buf)
            sc.set("simulation.sample_interval_ms", 10)
            if var != "reno":
                for i in range(N_TCP):
                    sc.set(f"tcp[{i}].dupack_threshold", 0)
            for s in seeds:
                cases.append((var, buf))
                runs.append((sc, s))
    progress = Progress.of(progress)
    progress.plan(len(runs))
    got = run_many(runs, progress=progress.runs(lambda d: "experiment B {} {} cells".format(*cases[d - 1])),
                   keep=_mech_keep(size.warmup_s))
    out: dict = {}
    for key, r in zip(cases, got):
        out.setdefault(key, []).append(r)
    return {k: {m: float(np.mean([r[m] for r in v])) for m in v[0]} for k, v in out.items()}


def _mechanism_html(mech: dict, size: Size, nseeds: int, bg: float) -> str:
    rows = "".join(
        f"<tr><td>{var}</td><td>{buf}</td><td>{m['goodput']:.1f}</td><td>{m['l0_util']:.2f}</td>"
        f"<td>{m['timeouts_per_s']:.2f}</td><td>{m['fast_rexmt_per_s']:.2f}</td><td>{m['episodes_per_s']:.2f}</td>"
        f"<td>{m['timeouts_per_episode']:.1f}</td><td>{100 * m['stalled']:.0f}%</td></tr>"
        for (var, buf), m in mech.items()
    )
    r1, r5, r10 = mech[("reno", 1000)], mech[("reno", 5000)], mech[("reno", 10000)]
    t1, t5 = mech[("timeouts only", 1000)], mech[("timeouts only", 5000)]
    same_to = abs(r5["timeouts_per_s"] / r1["timeouts_per_s"] - 1) < 0.25 if r1["timeouts_per_s"] else False
    past_bdp = r10["goodput"] > 1.1 * mech[("reno", 3540)]["goodput"]
    return (
        f"<h3>Experiment B: what the buffer changes</h3><p>Unshaped TCP, {bg:g} Mb/s of background, {nseeds} seeds × "
        f"{size.duration_s:g} s; L0 buffer swept across its bandwidth-delay product (10 ms × 150 Mb/s = 3540 cells); "
        "Reno as shipped, and Reno with fast retransmit off (<code>dupack_threshold = 0</code>: every loss waits for "
        "the RTO, which BSD counts in 500 ms ticks, at least 2 ticks). Counts are for the four connections together. "
        "A loss episode: a run of drops at L0 (10 ms samples, gaps under 50 ms merged). 'stalled': the share of "
        "100 ms windows in which a receiver read nothing. A variant with finer TCP timers cannot be run: the TCP "
        "model has the tick and minimum RTO (<code>slow_tick</code>, <code>rto_min_ticks</code>) but "
        "<code>[[tcp]]</code> does not expose them.</p>"
        f"<table><tr><th>TCP</th><th>buffer [cells]</th><th>Σ goodput [Mb/s]</th><th>L0 busy</th><th>timeouts/s</th>"
        f"<th>fast retransmits/s</th><th>loss episodes/s</th><th>timeouts per episode</th><th>stalled</th></tr>{rows}</table>"
        f"<p>What it shows: from 1000 to 5000 cells the total goodput goes {r1['goodput']:.1f} → {r5['goodput']:.1f} Mb/s "
        f"while timeouts per second {'stay about equal' if same_to else 'change'} ({r1['timeouts_per_s']:.2f} → "
        f"{r5['timeouts_per_s']:.2f}; fast retransmits {r1['fast_rexmt_per_s']:.2f} → {r5['fast_rexmt_per_s']:.2f}), so the "
        "gain is not fewer timeouts. "
        + (f"The receivers are stalled in {100 * r1['stalled']:.0f}% → {100 * r5['stalled']:.0f}% of 100 ms windows: with the "
           "small buffer the same number of timeouts costs more idle time, as it does when the retransmission is lost "
           "again and BSD doubles the RTO (counted in 500 ms ticks, at least 1 s) — inferred from the stalls, not "
           "traced. " if r5["stalled"] < r1["stalled"] - 0.05 else
           f"The receivers are stalled about as often ({100 * r1['stalled']:.0f}% → {100 * r5['stalled']:.0f}% of 100 ms windows). ")
        + f"L0 is busy {r1['l0_util']:.2f} → {r5['l0_util']:.2f} of the time (background included): between losses the "
        "connections still sending fill the larger buffer and keep L0 busy while the others wait. Loss episodes per "
        f"second: {r1['episodes_per_s']:.2f} → {r5['episodes_per_s']:.2f} ({r10['episodes_per_s']:.2f} at 10000 cells), "
        f"timeouts per episode {r1['timeouts_per_episode']:.1f} → {r5['timeouts_per_episode']:.1f}: tail drop takes "
        "segments of several connections at once"
        + (", and a larger buffer overflows less often. " if r5["episodes_per_s"] < 0.9 * r1["episodes_per_s"] else
           "; at this sample size the episode rate does not separate the buffers. ")
        + f"The effect is the same with timeouts only ({t1['goodput']:.1f} → {t5['goodput']:.1f} Mb/s), so it is not fast "
        "recovery working better with more buffer; and it "
        + ("continues past the bandwidth-delay product " if past_bdp else "stops near the bandwidth-delay product ")
        + f"({mech[('reno', 3540)]['goodput']:.1f} Mb/s at 3540 cells, {r10['goodput']:.1f} at 10000). "
        "Coarse timers make every stall last at least a second; the buffer decides how much of the remaining time L0 is kept busy.</p>")


def run(out_dir: str | Path, mode: StudyMode = StudyMode.QUICK, seed: int = 1, progress: Progress | StudyProgress | None = None,
        store: str | Path | None = None, jobs: int | None = None, scheduler=None, tcp: TcpProfile | str | None = None) -> Path:
    """Run the study and write ``report.html`` into ``out_dir``; where its runs go and are kept:
    :func:`atmsim.study.executor.run_study`. ``tcp`` (``"cubic+sack"``, :mod:`atmsim.study.tcp_profile`):
    also run it with that TCP on every connection, shown beside BSD (:mod:`.today`)."""
    return run_study("kocyigit", _run, out_dir, mode, seed, progress, store, jobs, scheduler, tcp_profile.of(tcp),
                     today.COMPARISON)


def _run(out_dir: str | Path, mode: StudyMode, seed: int, progress: Progress | StudyProgress | None, store: str | Path | None) -> Path:
    full = StudyMode(mode).full
    out = Path(out_dir)
    t0 = time.perf_counter()
    st = Study(full, seed, progress)
    families: dict[str, tuple[Size, dict[str, Scenario]]] = {}
    for buf in BUFFERS:
        families[f"vc{buf}"] = (st.main, {label: load(buf, v.format(g="vc")) for label, v in SHAPINGS.items()})
        if full:
            families[f"vp{buf}"] = (st.extra, {label: load(buf, v.format(g="vp")) for label, v in SHAPINGS.items()})
        families[f"one{buf}"] = (st.extra, {label: load(buf, v, one_user=True) for label, v in ONE_USER.items()})
    res = st.curves(families)
    for buf in BUFFERS:
        for label, pts in res[f"vc{buf}"].items():
            today.note(today.goodput_key(label, buf), float(np.mean([p["goodput"].estimate for _, p in pts])))
            today.note(today.efficiency_key(label, buf), min(p["efficiency"].estimate for _, p in pts))
    mech_size = FULL if full else QUICK_MECH
    mech_seeds = st.seeds(Size(4 if full else 2, 0, 0))
    mech = mechanism(mech_size, mech_seeds, progress=st.progress)
    # The lock-step artefact: the unshaped 1000-cell case with exact clocks, bg 0.
    lock = at_background(load(1000, "unshaped"), 0, st.extra.duration_s, st.extra.warmup_s).set("simulation.link_clock_ppm", 0.0)
    st.progress.plan(len(st.seeds(st.extra)))
    lock_runs = run_many([(lock, s) for s in st.seeds(st.extra)], progress=st.progress.runs("exact clocks, unshaped"))
    lock_gp = [[c["goodput_bps"] / 1e6 for c in s["connections"]] for s in lock_runs]
    elapsed = time.perf_counter() - t0

    items: list[Verdict] = []
    parts = [f"<p>Four TCP connections (window 60 × 9180 bytes) and Poisson background traffic share the 150 Mb/s "
             f"bottleneck L0; 1000 km TCP paths; links on free clocks within ±20 ppm; verdict curves {st.main.label()} "
             f"per point, 95% t intervals on the log or logit scale (kept in each quantity's range: goodput ≥ 0, "
             f"efficiency and Jain's index in [0, 1]). Scenario files: <code>scenarios/kocyigit/</code>. The paper publishes curves, "
             f"not numbers: the verdicts test its statements.</p>"]
    verdicts = {}
    for buf, figs in ((1000, (3, 4)), (5000, (5, 6))):
        curves = res[f"vc{buf}"]
        v = verdicts[buf] = judge(curves)
        ahead = unshaped_ahead(curves)
        parts.append(_family_html(f"buffer {buf} cells, VC-based shaping", curves, figs, out, f"fig{figs[0]}_{figs[1]}"))
        why35 = ("unshaped TCP significantly higher at " + ", ".join(f"{bg} Mb/s (p = {p:.4f})" for bg, p in ahead)
                 + ": at 5000 cells unshaped Reno's large windows fill the capacity the background leaves better than "
                 "four 35 Mb/s shapers whose sum (140 Mb/s) plus background exceeds L0" if ahead else "never significantly lower")
        lock0 = curves["unshaped"][0][1]["jain"].estimate
        lockout = (f" At 0 Mb/s of background the unshaped connections lock each other out (Jain {lock0:.2f}; "
                   "'Lock-step clocks' below): the unshaped mean there is that of one connection taking most of L0, "
                   "and it feeds this comparison." if lock0 < 0.5 else "")
        parts.append(_verdict(items, f"Fig. {figs[0]}: 35 Mb/s shaping ≥ unshaped ({buf} cells)",
                              "the goodput with 35 Mb/s shaping is always at least the unshaped goodput", v.ok35,
                              "paper: the goodput with 35 Mb/s shaping is always at least the unshaped goodput "
                              f"(atmsim: unshaped {_nums(curves['unshaped'])}; 35 Mb/s {_nums(curves['35 Mb/s'])} Mb/s at "
                              f"{', '.join(map(str, BG_LOADS_MBPS))} Mb/s of background; 'differs' if unshaped is higher at some "
                              f"load by a one-sided Welch test at 5% over the five loads, i.e. p < {ALPHA_PER_LOAD:g} per load: {why35})." + lockout))
        parts.append(_verdict(items, f"Fig. {figs[0]}: 20 Mb/s flat to ~75 Mb/s ({buf} cells)",
                              "with 20 Mb/s shaping goodput is constant until the background reaches about 75 Mb/s", v.flat20,
                              "paper: with 20 Mb/s shaping goodput is limited by the shaper and constant until the "
                              f"background reaches about 75 Mb/s (atmsim: {_nums(curves['20 Mb/s'])} Mb/s; the shaper's "
                              "own limit is 20 × 9140/(192·53) = 17.96 Mb/s; flat within 5% while 4 × 20 + background < 150 Mb/s, then lower)."))
        effs = {k: min(p["eff"][k].estimate for pts in curves.values() for _, p in pts) for k in EFFICIENCY}
        lowest = min((p["efficiency"] for pts in curves.values() for _, p in pts), key=lambda c: c.estimate)
        parts.append(_verdict(items, f"Fig. {figs[1]}: efficiency very poor once overloaded ({buf} cells)",
                              "once the offered load exceeds the bottleneck, efficiency becomes very poor", v.eff_falls,
                              "paper: once the total offered load exceeds the bottleneck, efficiency becomes very poor "
                              f"(atmsim efficiency, goodput / payload sent: unshaped {_nums(curves['unshaped'], 'efficiency', '{:.2f}')}; 20 Mb/s "
                              f"{_nums(curves['20 Mb/s'], 'efficiency', '{:.2f}')}; 35 Mb/s {_nums(curves['35 Mb/s'], 'efficiency', '{:.2f}')}). "
                              "It falls as soon as 4 × 35 Mb/s + background exceeds 150 Mb/s"
                              f"{'' if v.eff_falls_only else ' (not at every load here)'}, "
                              f"but its lowest value is {effs['sent']:.2f} (cells: {effs['cells']:.2f}), far from 'very poor' (read as "
                              "below 0.5): BSD Reno resends little beyond the lost segments. Only goodput / capacity left by the background "
                              f"falls that low ({effs['capacity']:.2f}), and that is not the paper's definition (see 'Efficiency: which one?').",
                              ours=effs["sent"], low=lowest.low, high=lowest.high, unit="lowest efficiency"))
        parts.append(_verdict(items, f"Fig. {figs[1]}: burstier ⇒ less efficient ({buf} cells)",
                              "the more bursty the traffic, the poorer the efficiency", v.bursty,
                              "paper: the more bursty the traffic, the poorer the efficiency (atmsim: unshaped TCP has "
                              "the lowest efficiency at every non-zero background load)."))
    un1 = [p["goodput"].estimate for _, p in res["vc1000"]["unshaped"]]
    un5 = [p["goodput"].estimate for _, p in res["vc5000"]["unshaped"]]
    gain = [b / a if a > 0 else float("inf") for a, b in zip(un1, un5)]
    parts.append("<h2>Buffer size</h2>")
    parts.append(_verdict(items, "Figs. 3 vs 5: larger buffer, modest gain",
                          "a larger buffer raises unshaped goodput, but not very significantly", buffer_gain_rule(gain),
                          "paper: a larger buffer raises unshaped goodput, but not very significantly (atmsim: 5000 vs 1000 cells, "
                          f"unshaped goodput ratio {', '.join(f'{g:.2f}' for g in gain)} at {', '.join(map(str, BG_LOADS_MBPS))} Mb/s "
                          "of background; 'agrees' if every ratio lies between 0.9 and 1.5). Why the model gains more: "
                          "Experiment B below.", ours=max(gain), unit="largest ratio"))
    parts.append(_mechanism_html(mech, mech_size, len(mech_seeds), 25))
    at100 = [res[f"vc{b}"][label][-1][1]["goodput"].estimate for b in BUFFERS for label in SHAPINGS]
    parts.append(_verdict(items, "§III: at 100 Mb/s background, shaping hardly matters",
                          "at 100 Mb/s of background the goodput hardly depends on the shaping",
                          shaping_hardly_matters_rule(at100), "paper: at 100 Mb/s of background the goodput hardly depends on the shaping (atmsim: "
                          f"{', '.join(f'{x:.1f}' for x in at100)} Mb/s for unshaped/20/35 at 1000 then 5000 cells; within 35%)."))

    parts.append(_efficiency_html(res))
    parts.append("<p>Which one the paper means: 'goodput' and 'total offered load of TCP connections' are both TCP "
                 "quantities, and 'the total traffic offered to the network' is what the sources send; so the paper's "
                 "words support the first reading (or its cell-level twin, the second), not the third, whose denominator "
                 "is the network's spare capacity rather than an offered load. By those readings atmsim's efficiency stays "
                 "above 0.9 everywhere: 'differs' above.</p>")

    parts.append("<h2>Per-connection goodput and fairness</h2><p>The paper gives means over its four connections only, which "
                 "cannot show starvation. Jain's index (Σx)²/(4·Σx²) per seed (1: equal shares; 0.25: one connection takes "
                 "everything), with its 95% interval over seeds, and the least and most served connection (means over seeds).</p>")
    for buf in BUFFERS:
        parts.append(_fairness_html(res[f"vc{buf}"], buf, out))
    j0 = [res[f"vc{b}"]["unshaped"][0][1]["jain"].estimate for b in BUFFERS]
    _not_comparable(items, "Per-connection shares (Jain's index)", "the paper reports means only",
                    f"unshaped with no background: Jain {j0[0]:.2f} / {j0[1]:.2f} at 1000 / 5000 cells")

    shq = max(p["shaper_max_queue"] for f in ("vc1000", "vc5000") for pts in res[f].values() for _, p in pts)
    ref = sum(p["frames_refused"] for pts in res["vc1000"].values() for _,
              p in pts) + sum(p["frames_refused"] for pts in res["vc5000"].values() for _, p in pts)
    parts.append(f"<h2>Shaper bound</h2><p>Each TCP shaper holds at most its sender's socket buffer: (⌈548400 / 9140⌉ + 1) "
                 f"× 192 = 11712 cells (docs/scenario.md, <code>shape.buffer_cells</code>): a sender never has more than its "
                 f"send buffer unacknowledged, and every cell in the shaper belongs to such data. Largest shaper queue seen: "
                 f"{shq} cells; frames refused by a full shaper: {ref}. The figures are those of an unbounded shaper.</p>")

    if full:
        parts.append("<h2>VP-based shaping</h2><p>One shaper per transmitter, frames not interleaved. In Fig. 2 each transmitter "
                     "carries one connection, so VP-based and VC-based shaping give the same cell stream: the curves must match "
                     "the VC-based ones within noise.</p>")
        for buf in BUFFERS:
            parts.append(_family_html(f"buffer {buf} cells, VP-based shaping", res[f"vp{buf}"], None, out, f"vp{buf}"))
    else:
        parts.append("<h2>VP-based shaping</h2><p>Not run in quick mode: with one connection per transmitter (Fig. 2) VP-based "
                     "and VC-based shaping give the same cell stream, bit for bit (tests/test_kocyigit.py); "
                     "<code>--full</code> runs the curves.</p>")
    _not_comparable(items, "VP-based = VC-based shaping in Fig. 2", "beyond the paper", "identical cell streams (tested)")
    parts.append("<h2>One user with four connections: VC-based vs VP-based shaping</h2><p>Beyond the paper: the four "
                 "connections leave one transmitter over one 150 Mb/s access link. VC-based: four 35 Mb/s shapers and a "
                 "cell-by-cell round-robin multiplexer; VP-based: one 140 Mb/s shaper over whole frames; "
                 f"{st.extra.label()}.</p>")
    for buf in BUFFERS:
        parts.append(_family_html(f"one user, buffer {buf} cells", res[f"one{buf}"], None, out, f"oneuser{buf}"))
    _not_comparable(items, "One user, VC- vs VP-based", "beyond the paper", "")
    parts.append("<h2>Lock-step clocks</h2><p>The unshaped 1000-cell case with no background and every link clock exact "
                 "(<code>link_clock_ppm = 0</code>): per-connection goodput "
                 + "; ".join(", ".join(f"{x:.1f}" for x in g) for g in lock_gp)
                 + " Mb/s (one line per seed). With every clock exact, cells of several senders reach the full buffer at "
                 "the picosecond L0 frees a place; the port admits them in the round-robin order of their inputs (DESIGN "
                 "§2b), so at such a tie all but one lose a cell, and with it an AAL5 frame of 192 cells. One connection "
                 "still ends up with most of L0, though not a fixed one (under the earlier insertion-order rule it was "
                 "always the first, 134.7 Mb/s against 0 for both seeds). Free clocks (±20 ppm, used in the "
                 "figures above) do not remove this for line-rate senders: the queue still drains only at the clock "
                 "difference, and the means hide one connection taking most of L0 at low background load (Jain's index "
                 "in 'Per-connection goodput' above; docs/scenario.md, 'Link clocks').</p>")
    _not_comparable(items, "Lock-step clocks (exact clocks, no background)", "beyond the paper", "a model artefact shown")
    parts.append(f"<p class='meta'>mode: {'full' if full else 'quick'} (verdict curves {st.main.label()}; other families "
                 f"{st.extra.label()}); seeds from {seed}; {elapsed:.1f} s wall.</p>")
    return write_study_report(out, "Koçyiğit — TCP traffic shaping in ATM networks (atmsim reproduction)", "".join(parts),
                              items, elapsed, "full" if full else "quick", store=store, study="kocyigit")
