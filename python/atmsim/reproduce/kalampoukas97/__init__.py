"""Kalampoukas, Varma & Ramakrishnan, "Two-Way TCP Traffic over Rate Controlled Channels:
Effects and Analysis" (UCSC-CRL-96-23, 1997): the closed forms of §3–§4 with cell-level points,
the simulations of §5, and the fixes of §6.

The networks (``scenarios/kalampoukas97/*.toml``): OC-3c links, ABR VCs with Nrm = 32,
RIF = 1/64, ICR = PCR/50, explicit-rate switches allocating 100 % of each port max-min from
RM-cell fields, one FIFO IP output queue per node shared by data and acks and served at the
VC's ACR, TCP Reno with delayed ACKs off, 9180-byte packets (192 cells), loss-free buffers.
Scenario files state every decision the paper leaves open (digest ``shared/specs/
kalampoukas97.md``, A1–A21); the report names the ones that matter where they matter.

What is run (quick: one seed × 3 s, 0.5 s warm-up; ``--full``: 5 seeds × 10 s, 1 s warm-up
and more closed-form points): §5.2, §5.3, §5.4 (three readings of its lost delays), §5.5 (two
delays, and its one-way control), the two §6 fixes on §5.2 and ack priority on §5.3, their
one-way controls, delayed ACKs on §5.2 (A7), a one-way maximum-throughput run (A16), and the
points of Figs. 3.3, 3.4 and 4.1. Efficiency is goodput over the TCP payload throughput of the
connection's VC rate (:mod:`.experiment`); predictions are given with the paper's one-way
delay (propagation + one segment of reassembly) and the ack path's (propagation + one cell).
"""

from __future__ import annotations

import html
import itertools
import statistics
import time
from dataclasses import dataclass
from pathlib import Path

from ..._core import Entity, Metric, entity_name
from ..._report import figure_path
from ..._scenario import Scenario
from ...callbacks import StudyProgress
from ...study import (
    Kind,
    Progress,
    Rule,
    Verdict,
    above,
    at_most,
    holds,
    in_range,
    tcp_profile,
    verdict_html,
    within,
    within_ratio,
    write_study_report,
)
from ...study import Mode as StudyMode
from ...study.executor import run_study
from ...study.tcp_profile import TcpProfile
from ..runner import run_many
from . import experiment as ks
from . import figures as figs
from . import theory as th
from . import today


def _conn(name: str) -> str:
    """The series' name of connection ``name``."""
    return entity_name(Entity.CONN, name)


def _abr(name: str) -> str:
    """The series' name of ABR end ``name`` (``"<vc>:<node>"``)."""
    return entity_name(Entity.ABR, name)

__all__ = [
    "FULL",
    "LEMMA2_NEAR_SHARE",
    "LEMMA2_STEADY_AFTER_S",
    "LEMMA2_UNEQUAL",
    "QUICK",
    "SEC54_READINGS",
    "SEC55_DELAYS",
    "WORKED_F41_BELOW",
    "Mode",
    "Study",
    "collect",
    "lemma2_cycle_rule",
    "queue_peak_rule",
    "run",
    "worked_numbers_rule",
    "write",
]


# Digest A9/A12: one-way propagation readings of §5.4's "about 9 segments" [ms].
SEC54_READINGS = {"9 link-rate segments (primary, A9)": 5.05, "matches the published 23 (A9 a)": 6.74,
                  "9 fat-rate segments, literal (A9 b)": 13.48}
SEC55_DELAYS = {"5.05 ms (A12, same reading as §5.4)": 5.05, "3.37 ms (paper's +1 convention gives 70 %)": 3.37}


@dataclass(frozen=True)
class Mode:
    seeds: int
    duration_s: float
    warmup_s: float
    fig_points: int

    def label(self) -> str:
        return f"{self.seeds} seed(s) × {self.duration_s:g} s ({self.warmup_s:g} s warm-up)"


QUICK = Mode(1, 3.0, 0.5, 4)
FULL = Mode(5, 10.0, 1.0, 8)


def _timed(sc: Scenario, mode: Mode) -> Scenario:
    sc = sc.copy()
    sc.set("simulation.duration_s", mode.duration_s)
    sc.set("simulation.warmup_s", mode.warmup_s)
    return sc


def _sec54_scenario(one_way_ms: float) -> Scenario:
    sc = ks.load("sec54_multiple")
    for k, link in enumerate(sc.get("link")):
        if {link["a"], link["b"]} & {"1L", "2L", "1R", "2R"}:
            sc.set(f"link[{k}].delay_ms", one_way_ms / 2)
    return sc


def _sec55_scenario(one_way_ms: float, one_way_only: bool = False) -> Scenario:
    sc = ks.load("sec55_client_server")
    for k in range(len(sc.get("link"))):
        sc.set(f"link[{k}].delay_ms", one_way_ms / 2)
    if one_way_only:
        sc.set("tcp", [t for t in sc.get("tcp") if t["client"] == "server"])
    return sc


def _only_first_tcp(sc: Scenario) -> Scenario:
    sc = sc.copy()
    sc.set("tcp", sc.get("tcp")[:1])
    return sc


def _keep(r) -> dict:
    """What a run leaves for the report: its summary and, for figures, its traces."""
    s = r.series
    keep = {}
    for metric in (Metric.ACR_BPS, Metric.IP_QUEUE_DATA, Metric.SEQ_BYTES):
        rows = s[s["metric"] == metric]
        # The last value at each instant (a trace may record several changes at one instant).
        keep[metric] = {str(e): g.groupby("time_s")["value"].last() for e, g in rows.groupby("entity", observed=True)}
    return {"summary": r.summary, "traces": keep}


class Study:
    """Collects the runs, then reads them back by name."""

    def __init__(self, mode: Mode, seed: int, progress: Progress | StudyProgress | None = None):
        self.mode, self.seed, self.progress = mode, seed, Progress.of(progress)
        self.jobs: list[tuple[str, int, Scenario]] = []
        self.out: dict[tuple[str, int], dict] = {}

    def add(self, name: str, sc: Scenario, seeds: int | None = None) -> None:
        for k in range(seeds or self.mode.seeds):
            self.jobs.append((name, self.seed + k, _timed(sc, self.mode)))

    def run(self) -> None:
        self.progress.plan(len(self.jobs))
        # Results come back in the order given, so the d-th finished is the d-th job.
        done = run_many([(sc, s) for _, s, sc in self.jobs], progress=self.progress.runs(lambda d: self.jobs[d - 1][0]),
                        keep=_keep)
        for (name, s, _), res in zip(self.jobs, done):
            self.out[(name, s)] = res

    def runs(self, name: str) -> list[dict]:
        return [v for (n, _), v in self.out.items() if n == name]

    def first(self, name: str) -> dict:
        return self.runs(name)[0]

    def eff(self, name: str, conn: str, rate: float = 1.0) -> float:
        """Mean efficiency of ``conn`` over the seeds."""
        return statistics.fmean(ks.efficiency(r["summary"], conn, rate) for r in self.runs(name))

    def effs(self, name: str, prefix: str, rate: float) -> float:
        """Mean efficiency over the connections whose name starts with ``prefix``."""
        vals = [ks.efficiency(r["summary"], c["name"], rate) for r in self.runs(name)
                for c in r["summary"]["connections"] if c["name"].startswith(prefix)]
        return statistics.fmean(vals)

    def levels(self, name: str, entity: str) -> list[int]:
        out = []
        for r in self.runs(name):
            tr = r["traces"][Metric.IP_QUEUE_DATA].get(entity)
            if tr is not None:
                out += [v for t, v in ks.busy_period_levels(tr) if t >= self.mode.warmup_s]
        return out

    def sums(self, name: str, entity: str) -> list[int]:
        out = []
        for r in self.runs(name):
            tr = r["traces"][Metric.IP_QUEUE_DATA].get(entity)
            if tr is not None:
                out += ks.consecutive_sums(ks.busy_period_levels(tr), self.mode.warmup_s)
        return out

    def spacing_ms(self, name: str, entity: str) -> float:
        tr = self.first(name)["traces"][Metric.IP_QUEUE_DATA][entity]
        ts = [t for t, _ in ks.busy_period_levels(tr) if t >= self.mode.warmup_s]
        return 1e3 * statistics.fmean(b - a for a, b in itertools.pairwise(ts)) if len(ts) > 2 else float("nan")


def _pct(x: float) -> str:
    return f"{100 * x:.1f} %"


def _verdict(items: list[Verdict], v: Verdict) -> str:
    items.append(v)
    return verdict_html(v)


#: The paper's worked numbers of §3–§4 (W = 2L; Fig. 4.1 at ρ_i = 20 Mb/s; its knee) and how
#: near our closed forms must come: half a point, below 15 %, 5 Mb/s.
WORKED_W2L, WORKED_W2L_TOL = 2 / 3, 0.005
WORKED_F41_BELOW = 0.15
WORKED_KNEE_MBPS, WORKED_KNEE_TOL = 60.0, 5.0


def worked_numbers_rule(w2l: float, f41_j: float, knee_mbps: float) -> Rule:
    """The §3–§4 worked-numbers row: our closed forms against the paper's three numbers that
    are not rounded readings (E6 and E11 are listed, not judged)."""
    ok = (abs(w2l - WORKED_W2L) <= WORKED_W2L_TOL and f41_j < WORKED_F41_BELOW
          and abs(knee_mbps - WORKED_KNEE_MBPS) <= WORKED_KNEE_TOL)
    return holds(f"W = 2L within {100 * WORKED_W2L_TOL:g} point of 66.67 %, Fig. 4.1 F_j at 20 Mb/s below "
                 f"{100 * WORKED_F41_BELOW:g} %, knee within {WORKED_KNEE_TOL:g} Mb/s of {WORKED_KNEE_MBPS:g}", ok)


def queue_peak_rule(mean_level: float, sums: list[int]) -> Rule:
    """§5.2: the IP queue's level after each ack bunch about 13, and every sum of two
    consecutive levels near Lemma 2's 28 + 28 − 15 − 15 = 26."""
    return holds("mean level within 1 of 13 and every consecutive sum within 2 of Lemma 2's 26",
                 abs(mean_level - 13) <= 1 and bool(sums) and all(abs(x - 26) <= 2 for x in sums))


#: Lemma 2's (S, 0) cycle: unequal windows in the balanced regime (the regime tests' 20/28 at 8 ms).
LEMMA2_UNEQUAL = ks.TwoNode(20, 28, 8.0)
#: ... read after the ACRs have settled (§5.2: about 110 ms) and the start-up bunches have passed.
LEMMA2_STEADY_AFTER_S = 1.0
#: Share of the bunches that must lie within 2 segments of S.
LEMMA2_NEAR_SHARE = 0.9


def lemma2_cycle_rule(levels: dict[str, list[int]], s: float, dominant_max: int, bound_ack: float) -> Rule:
    """Lemma 2 with unequal windows: Q(next) = min(S − Q(prev), W) has the cycle (S, 0), so the
    bunches that do form (a level of 0 forms none) each sit near S — at least
    :data:`LEMMA2_NEAR_SHARE` of them within 2 segments at every node — and the dominant node's
    queue stays within the ack path's bound plus one segment (the regime tests' tolerance)."""
    near = all(lv and sum(abs(v - s) <= 2 for v in lv) >= LEMMA2_NEAR_SHARE * len(lv) for lv in levels.values())
    return holds(f"at every node {LEMMA2_NEAR_SHARE:.0%} of the bunches within 2 of S (the (S, 0) cycle), and the "
                 "dominant queue at most the ack path's bound + 1 segment", near and dominant_max <= bound_ack + 1)


def _img(path: Path) -> str:
    return f"<p><img src='{html.escape(path.name)}' alt='{html.escape(path.stem)}'></p>"


def _figure_points(mode: Mode) -> dict[str, list[ks.TwoNode]]:
    """Cell-level points for Figs. 3.3, 3.4 (L counted the paper's way: propagation + 1
    segment) and 4.1 (W = 14 segments ≈ 128 KB, 5 ms each way)."""
    seg_ms = 1e3 / th.segment_rate()
    ws = [4, 8, 12, 16, 24, 32, 48, 64][:: 1 if mode.fig_points >= 8 else 2]
    ls = [2, 3, 4, 6, 8, 10, 12, 16][:: 1 if mode.fig_points >= 8 else 2]
    rates = [0.15, 0.3, 0.45, 0.6, 0.75, 1.0, 0.2, 0.9][: mode.fig_points + 2]
    return {
        "fig3_3": [ks.TwoNode(w, w, (8 - 1) * seg_ms) for w in ws],
        "fig3_4": [ks.TwoNode(8, 8, (x - 1) * seg_ms) for x in ls],
        "fig4_1": [ks.TwoNode(14, 14, 5.0, r, 1.0) for r in sorted(rates)],
    }


def _schedule(st: Study) -> dict[str, list[ks.TwoNode]]:
    st.add("sec52", ks.load("sec52_symmetric"))
    st.add("sec52_oneway", _only_first_tcp(ks.load("sec52_symmetric")))
    st.add("sec52_ackprio", ks.load("sec52_ack_priority"))
    st.add("sec52_sepvc", ks.load("sec52_separate_vcs"))
    st.add("sec52_delack", ks.load("sec52_symmetric").set("tcp[0].delayed_ack", True).set("tcp[1].delayed_ack", True))
    st.add("sec53", ks.load("sec53_asymmetric"))
    st.add("sec53_ackprio", ks.load("sec53_asymmetric").set("vc[0].abr.ack_priority", True))
    st.add("sec53_oneway_fast", ks.load("sec53_asymmetric").set("tcp", [ks.load("sec53_asymmetric").get("tcp")[1]]))
    st.add("sec53_oneway_slow", _only_first_tcp(ks.load("sec53_asymmetric")))
    st.add("one_way_max", ks.load("one_way_max"), seeds=1)
    st.add("lemma2_unequal", ks.two_node(LEMMA2_UNEQUAL), seeds=1)
    for ms in SEC54_READINGS.values():
        st.add(f"sec54 {ms}", _sec54_scenario(ms))
    for ms in SEC55_DELAYS.values():
        st.add(f"sec55 {ms}", _sec55_scenario(ms))
    st.add("sec55_oneway", _sec55_scenario(5.05, one_way_only=True))
    points = _figure_points(st.mode)
    for fig, pts in points.items():
        for p in pts:
            st.add(f"{fig} {p.label()}", ks.two_node(p, sample_ms=0), seeds=1)
    return points


def _closed_forms(st: Study, points, out: Path, items: list) -> str:
    parts = ["<h2>§3–§4: the closed forms, with cell-level points</h2>",
             "<p>Lines: Theorem 1 / 2 as the paper states them (tested against its worked numbers in "
             "<code>tests/test_kalampoukas_theory.py</code>). Points: the §5.2 network with the window, one-way delay "
             "or rate of each point, one seed. A point agrees when it lies within 2 points of the band between the "
             "predictions with the paper's delay and the ack path's (module docs of <code>atmsim.reproduce.kalampoukas97.experiment</code>).</p>"]
    worst = 0.0
    rows = []
    for fig, pts in points.items():
        sim = []
        for p in pts:
            s = st.first(f"{fig} {p.label()}")["summary"]
            fi, fj = ks.efficiency(s, "1L->1R", p.rate_i), ks.efficiency(s, "1R->1L", p.rate_j)
            band = [ks.prediction(p, c).efficiency() for c in ("paper", "ack")]
            for k, f in enumerate((fi, fj)):
                lo, hi = min(b[k] for b in band), max(b[k] for b in band)
                worst = max(worst, lo - f, f - hi)
            rows.append(f"<tr><td>{fig}</td><td>{html.escape(p.label())}</td><td>{_pct(fi)} / {_pct(fj)}</td>"
                        f"<td>{_pct(band[0][0])} / {_pct(band[0][1])}</td><td>{_pct(band[1][0])} / {_pct(band[1][1])}</td>"
                        f"<td>{ks.prediction(p, 'paper').regime().value}</td></tr>")
            sim.append((p, fi, fj))
        if fig == "fig3_3":
            path = figs.closed_form_w(figure_path(out, "fig3_3.png"), 8, [(p.w_i, fi) for p, fi, _ in sim])
        elif fig == "fig3_4":
            l_of = lambda p: p.one_way_ms / (1e3 / th.segment_rate()) + 1  # noqa: E731
            path = figs.closed_form_l(figure_path(out, "fig3_4.png"), 8, [(l_of(p), fi) for p, fi, _ in sim])
        else:
            def ours(x):
                return ks.prediction(ks.TwoNode(14, 14, 5.0, x, 1.0), "paper").efficiency()
            path = figs.closed_form_rates(figure_path(out, "fig4_1.png"), [(p.rate_i, fi, fj) for p, fi, fj in sim], ours)
        parts.append(_img(path))
    parts.append("<table><tr><th>figure</th><th>point</th><th>atmsim F_i / F_j</th><th>paper's delay</th>"
                 "<th>ack path's delay</th><th>regime</th></tr>" + "".join(rows) + "</table>")
    parts.append(_verdict(items, Verdict.judged(
        "Figs. 3.3, 3.4, 4.1: simulated points on the closed forms", Kind.VALIDATED,
        "Theorems 1–2 (the paper's closed forms)", at_most(100 * max(worst, 0), 2, "points"),
        ours=100 * max(worst, 0), unit="points outside the band",
        detail=f"largest distance outside the band: {100 * max(worst, 0):.2f} points (limit 2). The sweep through "
               "all three regimes at points the paper never used is a test (tests/test_kalampoukas_regimes.py).")))
    # Worked numbers of §3–§4 and their errata.
    f41 = th.figure_4_1(20.0)[1]
    knee = th.figure_4_1_boundary_mbps()
    w2l = th.equal_pair_efficiency(16, 8)
    parts.append("<h3>The paper's worked numbers</h3><table><tr><th>item</th><th>paper</th><th>closed form</th><th>note</th></tr>"
                 f"<tr><td>W = 2L</td><td>66.67 %</td><td>{_pct(w2l)}</td><td></td></tr>"
                 f"<tr><td>Fig. 4.1, ρ_i = 20 Mb/s</td><td>F_j below 15 %</td><td>{_pct(f41)}</td><td></td></tr>"
                 f"<tr><td>Fig. 4.1 knee</td><td>about 60 Mb/s</td><td>{knee:.1f} Mb/s</td><td></td></tr>"
                 f"<tr><td>Fig. 4.1, ρ_i = 155</td><td>60 %</td><td>{_pct(th.figure_4_1(155.0)[0])}</td><td>rounded reading (E6)</td></tr>"
                 "<tr><td>+95 Mb/s of link</td><td>+64 Mb/s, 31 lost</td><td>+58.3, 36.7 lost</td><td>E6: arithmetic on rounded readings</td></tr>"
                 f"<tr><td>§6: 155 vs 30 Mb/s</td><td>only 20 %</td><td>{_pct(th.figure_4_1(30.0)[1])}</td><td>of the link rate (E11)</td></tr>"
                 "</table>")
    parts.append(_verdict(items, Verdict.judged(
        "§3–§4 worked numbers", Kind.VALIDATED, "W = 2L: 66.67 %; Fig. 4.1: F_j below 15 % at 20 Mb/s, knee about 60 Mb/s",
        worked_numbers_rule(w2l, f41, knee),
        detail=f"closed forms: {_pct(w2l)}, {_pct(f41)}, {knee:.1f} Mb/s; the rounded readings (E6, E11) are listed, "
               "not judged.")))
    return "".join(parts)


def _sec52(st: Study, out: Path, items: list) -> str:
    r = st.first("sec52")
    s = r["summary"]
    f = statistics.fmean([st.eff("sec52", "1L->1R"), st.eff("sec52", "1R->1L")])
    cfg = ks.TwoNode(28, 28, 8.0)
    paper, ack = ks.prediction(cfg, "paper").efficiency()[0], ks.prediction(cfg, "ack").efficiency()[0]
    one_way_max = ks.payload_mbps()
    measured_max = st.first("one_way_max")["summary"]["connections"][0]["goodput_bps"] / 1e6
    lv = st.levels("sec52", _abr("abr:1L")) + st.levels("sec52", _abr("abr:1R"))
    sums = st.sums("sec52", _abr("abr:1L")) + st.sums("sec52", _abr("abr:1R"))
    settle = max(e["acr_last_change_s"] for e in s["abr"]["ends"])
    icr = s["abr"]["ends"][0]["icr_bps"] / 1e6
    parts = ["<h2>§5.2: two nodes, equal rates (Figs. 5.1–5.4)</h2>",
             "<p><code>sec52_symmetric.toml</code>: 1L – switch – 1R, 4 ms per link (8 ms one way), W = 28 segments each way, "
             f"both opened at t = 0. {st.mode.label()}.</p>"]
    tr = r["traces"]
    parts.append(_img(figs.acr(figure_path(out, "fig5_2.png"), {"1L": tr[Metric.ACR_BPS][_abr("abr:1L")]},
                               "Fig. 5.2: ACR of 1L")))
    parts.append(_img(figs.queue(figure_path(out, "fig5_3.png"), {"1L": tr[Metric.IP_QUEUE_DATA][_abr("abr:1L")]},
                                 "Fig. 5.3: IP queue at 1L (data only)", (1.0, 1.15))))
    seg_s = one_way_max * 1e6 / 8 / 9140  # segments per second at the maximum TCP rate
    parts.append(_img(figs.sequence(figure_path(out, "fig5_4.png"), {"1L→1R": tr[Metric.SEQ_BYTES][_conn("1L->1R")]},
                                    "Fig. 5.4: sequence number of 1L", (0.5, 1.0),
                                    {"no two-way effect (maximum rate)": seg_s,
                                     "Theorem 1: 28/43 = 65.1 % of it": 28 / 43 * seg_s})))
    parts.append(f"<p>Maximum TCP throughput (digest A16): analytic {one_way_max:.2f} Mb/s of payload (the paper's "
                 f"'about 131 Mb/s' counts 9180 bytes per segment: {th.tcp_rate_mbps():.2f}); measured one-way with a 64-segment "
                 f"window: {measured_max:.2f} Mb/s ({measured_max / one_way_max:.3f} of it). Efficiencies below use the analytic figure.</p>")
    parts.append(_verdict(items, Verdict.judged(
        "§5.2: maximum TCP throughput ≈ 131 Mb/s", Kind.MODEL, "about 131 Mb/s (9180-byte segments)",
        within_ratio(measured_max, round(one_way_max, 2), 0.01), paper_value=th.tcp_rate_mbps(), ours=measured_max,
        unit="Mb/s",
        detail="measured one-way throughput against our analytic payload rate (the model against itself).")))
    parts.append(_verdict(items, Verdict.judged(
        "§5.2 efficiency 65.1 %", Kind.VALIDATED, "28/43 = 65.1 % (Theorem 1)", within(100 * f, 65.12, 2, "%"),
        paper_value=65.12, ours=100 * f, unit="%",
        detail=f"atmsim {_pct(f)} (both connections, {st.mode.seeds} seed(s)); Theorem 1 with the paper's L = 15.26 "
               f"segments: {_pct(paper)} (the paper prints 28/43 = 65.1 % with L = 15); with the ack path's delay "
               f"{_pct(ack)}; the digest's cell-faithful model 66.0 %. Our convention is the paper's (propagation + one "
               "segment of reassembly), and the cell level lands between the two readings.")))
    mean_lv = statistics.fmean(lv) if lv else float("nan")
    parts.append(_verdict(items, Verdict.judged(
        "§5.2 IP-queue peak ≈ 13 per busy period", Kind.VALIDATED, "about 13 segments",
        queue_peak_rule(mean_lv, sums),
        paper_value=13, ours=mean_lv, unit="segments", detail=
                          f"level after each ack bunch (data waiting, the segment in service not counted): mean {mean_lv:.2f}, "
                          f"values {sorted(set(lv))}; sums of consecutive levels {sorted(set(sums))} against Lemma 2's "
                          f"28 + 28 − 15 − 15 = 26 (25.5 with L = 15.26). The queue then ripples by ±1 (max "
                          f"{max(e['max_ip_queue_data'] for e in s['abr']['ends'])}), the paper's 'solid black areas'.")))
    parts.append(_verdict(items, Verdict.judged(
        "§5.2 ACR steady after about 110 ms", Kind.VALIDATED, "about 110 ms", within(1e3 * settle, 110, 20, "ms"),
        paper_value=110, ours=1e3 * settle, unit="ms", detail=
                          f"the last ACR change of either end at {1e3 * settle:.1f} ms; it rises in steps of RIF·PCR = "
                          f"{th.OC3C_BPS / 64 / 1e6:.2f} Mb/s per backward RM cell, as in Fig. 5.2.")))
    parts.append(_verdict(items, Verdict.judged(
        "§5.2 ACR starts at about 3.5 Mb/s", Kind.VALIDATED, "about 3.5 Mb/s (read off Fig. 5.2)",
        within(icr, 3.5, 0.25, "Mb/s"), paper_value=3.5, ours=icr, unit="Mb/s",
        detail=f"ICR = PCR/50 = {icr:.2f} Mb/s, the paper's own rule (§5.1); 3.5 would need a PCR of 175 Mb/s. "
               "A reading off the figure (digest E7).")))
    da = statistics.fmean([st.eff("sec52_delack", "1L->1R"), st.eff("sec52_delack", "1R->1L")])
    parts.append(f"<p>Beyond the paper (A7): with BSD's delayed ACKs on, efficiency {_pct(da)} instead of {_pct(f)}: an ack "
                 "per two segments halves the bunches, and the analysis no longer applies as stated.</p>")
    parts.append(_verdict(items, Verdict.not_comparable(
        "§5.2 with delayed ACKs (A7)", "— (the paper runs without delayed ACKs)", "beyond the paper: no number to compare",
        ours=100 * da, unit="%")))
    return "".join(parts)


def _sec53(st: Study, out: Path, items: list) -> str:
    r = st.first("sec53")
    fast, slow = st.eff("sec53", "1R->1L"), st.eff("sec53", "1L->1R", 1 / 3)
    pair = th.section_5_3()
    f_slow, f_fast = pair.efficiency()
    fast_mbps = fast * ks.payload_mbps() * 9180 / 9140
    tr = r["traces"]
    parts = ["<h2>§5.3: unequal rates (Figs. 5.5–5.8)</h2>",
             "<p><code>sec53_asymmetric.toml</code>: 1L → 1R at a third of the link (PCR 49.92 Mb/s of cells, A6), W = 14; "
             "1R → 1L at the full link, W = 28.</p>"]
    parts.append(_img(figs.sequence(figure_path(out, "fig5_5.png"),
                                    {"1L→1R (slow)": tr[Metric.SEQ_BYTES][_conn("1L->1R")], "1R→1L (fast)": tr[Metric.SEQ_BYTES][_conn("1R->1L")]},
                                    "Fig. 5.5: sequence numbers", (0.5, 1.0))))
    parts.append(_img(figs.acr(figure_path(out, "fig5_6.png"), {"1L": tr[Metric.ACR_BPS][_abr("abr:1L")], "1R": tr[Metric.ACR_BPS][_abr("abr:1R")]},
                               "Fig. 5.6: ACR of both connections")))
    parts.append(_img(figs.queue(figure_path(out, "fig5_7.png"), {"1L": tr[Metric.IP_QUEUE_DATA][_abr("abr:1L")],
                                                                   "1R": tr[Metric.IP_QUEUE_DATA][_abr("abr:1R")]},
                                 "Fig. 5.7: IP queues (both nodes, E4)", (1.0, 1.15))))
    pred = {f"fast, Eq. 4.2: {f_fast * th.tcp_rate_mbps():.1f}": f_fast * ks.payload_mbps(),
            f"slow, Eq. 4.2: {f_slow * th.tcp_rate_mbps() / 3:.1f}": f_slow * ks.payload_mbps(1 / 3)}
    parts.append(_img(figs.throughput_from_zero(figure_path(out, "fig5_8.png"),
                                                {"1L→1R (slow)": tr[Metric.SEQ_BYTES][_conn("1L->1R")],
                                                 "1R→1L (fast)": tr[Metric.SEQ_BYTES][_conn("1R->1L")]},
                                                "Fig. 5.8: throughput averaged from t = 0", pred)))
    parts.append(_verdict(items, Verdict.judged(
        "§5.3 fast connection 56 % (73.5 Mb/s)", Kind.VALIDATED, "56 % predicted, 73.5 Mb/s measured",
        within(100 * fast, 56, 3, "%"), paper_value=56, ours=100 * fast, unit="%", detail=
                          f"atmsim {_pct(fast)} = {fast_mbps:.1f} Mb/s counted in 9180-byte segments as the paper counts "
                          f"(paper: 56 % predicted, 73.5 Mb/s measured); Eq. 4.2 with the formula's ρ corrected (E3): {_pct(f_fast)}.")))
    parts.append(_verdict(items, Verdict.judged(
        f"§5.3 slow connection 'about 80 %', judged against Eq. 4.2's {100 * f_slow:.0f} %", Kind.VALIDATED,
        f"about 80 % (its Eq. 4.2: {_pct(f_slow)})", within(100 * slow, 100 * f_slow, 3, "%"),
        paper_value=100 * f_slow, ours=100 * slow, unit="%",
        detail=f"atmsim {_pct(slow)}; the paper's 'about 80 %' is loose (E5), so the row is judged against the paper's "
               f"own Eq. 4.2, {_pct(f_slow)}, not against 80 %.")))
    sp52, sp53 = st.spacing_ms("sec52", _abr("abr:1R")), st.spacing_ms("sec53", _abr("abr:1R"))
    parts.append(_verdict(items, Verdict.judged(
        "§5.3 busy periods further apart than in §5.2", Kind.VALIDATED, "busy periods further apart than in §5.2",
        above(sp53 / sp52, 1.1), ours=sp53 / sp52, unit="× §5.2's spacing", detail=
                          f"mean spacing of busy periods at 1R (the node the text names, E4) {sp53:.1f} ms against {sp52:.1f} ms "
                          "in §5.2; 'agrees' if at least 10 % longer "
                          f"(model: alternating 23.6/32.5 ms against 24.1 ms); peaks at 1L {sorted(set(st.levels('sec53', _abr('abr:1L'))))}, "
                          f"at 1R {sorted(set(st.levels('sec53', _abr('abr:1R'))))}.")))
    return "".join(parts)


def _sec54(st: Study, out: Path, items: list) -> str:
    parts = ["<h2>§5.4: four connections per node pair, three pairs (R-1, Figs. 5.9–5.13)</h2>",
             "<p><code>sec54_multiple.toml</code>: one ABR VC per node pair (A10), three VCs sharing the inter-switch link "
             "(max-min: a third each); four connections each way per pair, W = 7 each (fat window 28). Fig. 5.9 is lost: the "
             "1L/2L delay is 'about 9 segments'; three readings are run (digest A9, E8).</p>"]
    rows = []
    primary = None
    for label, ms in SEC54_READINGS.items():
        name = f"sec54 {ms}"
        # Each connection's share of its VC: a quarter of a third of the link (§2.9: each
        # connection of a fat set has the fat connection's efficiency).
        f1 = st.effs(name, "1L->", 1 / 12)
        f3 = st.effs(name, "3L->", 1 / 12)
        lv = st.levels(name, _abr("vc1:1L"))
        rho = th.segment_rate(th.OC3C_CELLS_S / 3)
        pred = th.TwoWay(28, 28, rho, rho, ms / 1e3 + 1 / rho, ms / 1e3 + 1 / rho).efficiency()[0]
        pred_ack = th.TwoWay(28, 28, rho, rho, ms / 1e3 + ks.CELL_S, ms / 1e3 + ks.CELL_S).efficiency()[0]
        rows.append(f"<tr><td>{html.escape(label)}</td><td>{ms}</td><td>{_pct(f1)}</td><td>{_pct(pred)} – {_pct(pred_ack)}</td>"
                    f"<td>{_pct(f3)}</td><td>{statistics.fmean(lv) if lv else float('nan'):.1f} "
                    f"({min(lv, default=0)}–{max(lv, default=0)})</td></tr>")
        if primary is None:
            primary = (name, f1, f3, pred, pred_ack)
    parts.append("<table><tr><th>reading</th><th>one-way propagation [ms]</th><th>1L connections</th>"
                 "<th>fat-connection prediction (paper's – ack delay)</th><th>3L connections</th><th>1L IP-queue level after bunches</th></tr>"
                 + "".join(rows) + "</table>")
    if primary is None:
        raise ValueError("§5.4: no reading was run")
    name, f1, f3, pred, pred_ack = primary
    tr = st.first(name)["traces"]
    parts.append(_img(figs.sequence(figure_path(out, "fig5_10.png"),
                                    {f"1L→1R.{k}": tr[Metric.SEQ_BYTES][_conn(f"1L->1R.{k}")] for k in range(1, 5)},
                                    "Figs. 5.10/5.13: the four connections of 1L", (1.0, 1.1))))
    parts.append(_img(figs.sequence(figure_path(out, "fig5_11.png"),
                                    {"1L→1R.1": tr[Metric.SEQ_BYTES][_conn("1L->1R.1")], "3L→3R.1": tr[Metric.SEQ_BYTES][_conn("3L->3R.1")]},
                                    "Fig. 5.11: a 1L and a 3L connection", (0.5, 1.0))))
    parts.append(_img(figs.queue(figure_path(out, "fig5_12.png"), {"1L": tr[Metric.IP_QUEUE_DATA][_abr("vc1:1L")]},
                                 "Fig. 5.12: IP queue at 1L (four connections)", (1.0, 1.1))))
    parts.append(_verdict(items, Verdict.judged(
        "§5.4 3L connections faster than 1L", Kind.VALIDATED, "3L's connections faster than 1L's",
        above(100 * (f3 - f1), 0, "points"), ours=100 * (f3 - f1), unit="points (3L − 1L)",
        detail=f"3L {_pct(f3)} against 1L {_pct(f1)} of each connection's share (a quarter of a third of the "
               "link; primary reading).")))
    lo, hi = min(pred, pred_ack) - 0.02, max(pred, pred_ack) + 0.02
    parts.append(_verdict(items, Verdict.judged(
        "§5.4 the four connections act as one fat connection", Kind.VALIDATED, "the fat-connection formula of §5.4",
        in_range(100 * f1, 100 * lo, 100 * hi, "%"), ours=100 * f1, low=100 * lo,
        high=100 * hi, unit="%",
        detail=f"1L's connections at {_pct(f1)}; the fat-connection formula (§5.4, W = 28 each way at a third of the "
               f"link) gives {_pct(pred)} – {_pct(pred_ack)}, widened by 2 points. No efficiency is published for §5.4.")))
    parts.append(_verdict(items, Verdict.not_comparable(
        "§5.4 1L queue 0 ↔ 23, 23 of 28 acks clustered", "queue 0 ↔ 23 (Fig. 5.12; Fig. 5.9's delays lost)",
        "the delays are lost and the text's '9 segments' does not fit its own 23 (E8): the table shows the level "
        "each reading gives; matching 23 by choosing the delay would be fitting, not reproducing.")))
    return "".join(parts)


def _sec55(st: Study, out: Path, items: list) -> str:
    parts = ["<h2>§5.5: client–server (Figs. 5.14–5.16)</h2>",
             "<p><code>sec55_client_server.toml</code>: a VC per client–server pair, IP service instantaneous, a queue per VC "
             "at the server's ATM layer; the server allocates its link among its three VCs (51.6 Mb/s each); W = 7. "
             "Fig. 5.14 is lost: two delays are run (A12).</p><table><tr><th>one-way propagation</th><th>server → clients</th>"
             "<th>clients → server</th><th>overall</th><th>one-way control</th></tr>"]
    primary = None
    overalls = []
    for label, ms in SEC55_DELAYS.items():
        name = f"sec55 {ms}"
        down, up = st.effs(name, "server->", 1 / 3), st.effs(name, "c", 1 / 3)
        overall = (down + up) / 2
        overalls.append((ms, overall))
        ow = st.effs("sec55_oneway", "server->", 1 / 3) if ms == 5.05 else float("nan")
        parts.append(f"<tr><td>{html.escape(label)}</td><td>{_pct(down)}</td><td>{_pct(up)}</td><td>{_pct(overall)}</td>"
                     f"<td>{'—' if ow != ow else _pct(ow)}</td></tr>")
        if primary is None:
            primary = (name, overall, ow)
    parts.append("</table>")
    if primary is None:
        raise ValueError("§5.5: no delay was run")
    name, overall, ow = primary
    tr = st.first(name)["traces"]
    parts.append(_img(figs.sequence(figure_path(out, "fig5_15.png"),
                                    {f"server→c{k}": tr[Metric.SEQ_BYTES][_conn(f"server->c{k}")] for k in (1, 2, 3)},
                                    "Fig. 5.15: server → clients", (0.5, 1.0))))
    parts.append(_img(figs.throughput_from_zero(figure_path(out, "fig5_16.png"), {"c1→server": tr[Metric.SEQ_BYTES][_conn("c1->server")]},
                                                "Fig. 5.16: c1 → server, averaged from t = 0",
                                                {"70 % of 43.6": 0.70 * ks.payload_mbps(1 / 3)})))
    lo, hi = min(x for _, x in overalls), max(x for _, x in overalls)
    parts.append(_verdict(items, Verdict.not_comparable(
        "§5.5 overall efficiency about 70 %", "about 70 % (Fig. 5.14's delays lost)",
        "the delays are lost: the band over the delays run is shown, no delay is chosen to meet 70 %",
        paper_value=70, ours=100 * overall, low=100 * lo, high=100 * hi, unit="%",
        detail="efficiency over the one-way delays run: " + ", ".join(f"{ms:g} ms {_pct(x)}" for ms, x in overalls)
               + ". 5.05 ms is read from §5.4's text; 3.37 ms is the delay at which the paper's own convention gives "
                 "70 %. Which delay Fig. 5.14 used is not known, so 70 % is neither met nor missed (A12).")))
    parts.append(_verdict(items, Verdict.judged(
        "§5.5 per-VC queues do not remove the two-way effect", Kind.MODEL,
        "the two-way effect remains with a queue per VC", above(100 * (ow - overall), 10, "points"),
        ours=100 * (ow - overall), unit="points below one-way",
        detail=f"two-way {_pct(overall)} against {_pct(ow)} for the same connections without reverse traffic "
               "(our own one-way run).")))
    return "".join(parts)


def _lemma2_cycle(st: Study, items: list) -> str:
    """Lemma 2's (S, 0) cycle at unequal windows (:data:`LEMMA2_UNEQUAL`): the bunch levels and the
    dominant node's largest queue against the bound with both delay conventions."""
    cfg = LEMMA2_UNEQUAL
    pp, pa = ks.prediction(cfg, "paper"), ks.prediction(cfg, "ack")
    traces = st.first("lemma2_unequal")["traces"][Metric.IP_QUEUE_DATA]
    levels, peak = {}, {}
    for e in ("1L", "1R"):
        tr = traces[_abr(f"abr:{e}")].dropna()
        levels[e] = [v for t, v in ks.busy_period_levels(tr) if t >= LEMMA2_STEADY_AFTER_S]
        peak[e] = int(tr.loc[LEMMA2_STEADY_AFTER_S:].max())
    dom = "1R" if cfg.w_j > cfg.w_i else "1L"
    b_paper = (pp.swapped() if dom == "1R" else pp).queue_bound()
    b_ack = (pa.swapped() if dom == "1R" else pa).queue_bound()
    s = pp.peak_sum()
    return _verdict(items, Verdict.judged(
        "Lemma 2 (S, 0) cycle, unequal windows", Kind.VALIDATED,
        "Lemma 2: Q(next) = min(S − Q(prev), W); Lemmas 4–5 bound the queue", lemma2_cycle_rule(levels, s, peak[dom], b_ack),
        paper_value=b_paper, ours=peak[dom], unit=f"segments, node {dom}'s largest queue", detail=
        f"windows {cfg.w_i}/{cfg.w_j} at {cfg.one_way_ms:g} ms one way (a point the paper does not run). "
        f"S = W_i + W_j − L_ij − L_ji = {s:.2f} segments with the paper's delay "
        f"({pa.peak_sum():.2f} with the ack path's) is below both windows, so Lemma 2's recursion has the cycle "
        f"(S, 0): a bunch of S acks, then none. The bunches seen after {LEMMA2_STEADY_AFTER_S:g} s are each near S, "
        + "; ".join(f"{e}: {sorted(set(levels[e]))} ({sum(abs(v - s) <= 2 for v in levels[e])} of {len(levels[e])} "
                    "within 2)" for e in levels)
        + f" — not alternating around S/2. The dominant node ({dom}, window {max(cfg.w_i, cfg.w_j)}) peaks at "
        f"{peak[dom]} segments, {peak[dom] - b_paper:.2f} above the bound with the paper's delay ({b_paper:.2f}) and "
        f"{peak[dom] - b_ack:+.2f} against the ack path's ({b_ack:.2f}); the other node peaks at "
        f"{peak['1L' if dom == '1R' else '1R']}. One-cell acks arrive a segment time before data would, so each "
        "direction's L is a segment shorter for the acks that form the bunches: S grows by two segments' worth of "
        "delay (×ρ), which is the excess."))


def _table(st: Study) -> str:
    """Predicted against simulated efficiency and peak sums, per scenario and connection."""
    rows = []

    def row(case, conn, name, cfg, k, rate, entity):
        pp, pa = ks.prediction(cfg, "paper"), ks.prediction(cfg, "ack")
        if k == 1:
            pp, pa = pp.swapped(), pa.swapped()
        sims = st.sums(name, entity) if entity else []
        target = min(pp.peak_sum(), 2 * (cfg.w_i if k == 0 else cfg.w_j))
        near = sum(abs(x - target) <= 2 for x in sims) / len(sims) if sims else float("nan")
        sim_s = f"{min(sims)}–{max(sims)}; {100 * near:.0f} % within 2 of S" if sims else "—"
        rows.append(f"<tr><td>{case}</td><td>{conn}</td><td>{_pct(pp.efficiency()[0])} – {_pct(pa.efficiency()[0])}</td>"
                    f"<td>{_pct(st.eff(name, conn, rate))}</td><td>{pp.peak_sum():.1f} (cap {cfg.w_i if k == 0 else cfg.w_j})</td>"
                    f"<td>{sim_s}</td></tr>")

    c52, c53 = ks.TwoNode(28, 28, 8.0), ks.TwoNode(14, 28, 8.0, 1 / 3, 1.0)
    row("§5.2", "1L->1R", "sec52", c52, 0, 1.0, _abr("abr:1L"))
    row("§5.2", "1R->1L", "sec52", c52, 1, 1.0, _abr("abr:1R"))
    row("§5.3", "1L->1R", "sec53", c53, 0, 1 / 3, _abr("abr:1L"))
    row("§5.3", "1R->1L", "sec53", c53, 1, 1.0, _abr("abr:1R"))
    return ("<h2>Predicted against simulated</h2><p>Efficiency predicted by Theorem 2 with the paper's one-way delay "
            "(propagation + one segment) and the ack path's (propagation + one cell); Lemma 2's sum of consecutive "
            "IP-queue levels at the sending node (the paper's delay; a level cannot exceed the window, so a sum above "
            "the window means levels alternating with a full window) against the sums seen after the warm-up. At "
            "§5.3's slow node some busy periods open with a partial bunch (part of the acks for its data arrive spaced, "
            "queued one by one between the fast node's segments), which lowers those sums; not investigated further. "
            "At §5.3's fast node the sums sit at 38–41, above S = 37.5 computed with a slow segment's reassembly "
            "(1.68 ms) in the slow direction's delay, and at the digest's 40 computed with one fast segment in both "
            "directions: which reassembly delay Lemma 2 should count there is not settled here. "
            "§5.4, §5.5 and the fixes are in their sections.</p><table><tr><th>case</th><th>connection</th>"
            "<th>predicted F</th><th>atmsim F</th><th>predicted S (cap)</th><th>atmsim sums</th></tr>" + "".join(rows) + "</table>")


def _fixes(st: Study, items: list) -> str:
    ow = st.eff("sec52_oneway", "1L->1R")
    ap = statistics.fmean([st.eff("sec52_ackprio", c) for c in ("1L->1R", "1R->1L")])
    sv = statistics.fmean([st.eff("sec52_sepvc", c) for c in ("1L->1R", "1R->1L")])
    base = statistics.fmean([st.eff("sec52", c) for c in ("1L->1R", "1R->1L")])
    ow_fast, ow_slow = st.eff("sec53_oneway_fast", "1R->1L"), st.eff("sec53_oneway_slow", "1L->1R", 1 / 3)
    ap_fast, ap_slow = st.eff("sec53_ackprio", "1R->1L"), st.eff("sec53_ackprio", "1L->1R", 1 / 3)
    today.note(today.ONE_WAY, 100 * ow)
    today.note(today.TWO_WAY, 100 * base)
    parts = ["<h2>§6: the proposed fixes</h2>",
             "<p>The paper proposes both fixes without simulating them. Each direction should come close to its one-way "
             "efficiency: the same connection with no reverse traffic (run here). Ack priority: pure acks ahead of data in "
             "the IP queue (non-preemptive). Separate VCs: pure acks on a second ABR VC whose PCR is capped at 2 % of the link "
             "(<code>sec52_separate_vcs.toml</code>), so that max-min does not give it half of each link.</p>"
             "<table><tr><th>case</th><th>no fix</th><th>ack priority</th><th>separate VCs</th><th>one-way</th></tr>"
             f"<tr><td>§5.2, each direction</td><td>{_pct(base)}</td><td>{_pct(ap)}</td><td>{_pct(sv)}</td><td>{_pct(ow)}</td></tr>"
             f"<tr><td>§5.3 fast</td><td>{_pct(st.eff('sec53', '1R->1L'))}</td><td>{_pct(ap_fast)}</td><td>—</td><td>{_pct(ow_fast)}</td></tr>"
             f"<tr><td>§5.3 slow</td><td>{_pct(st.eff('sec53', '1L->1R', 1 / 3))}</td><td>{_pct(ap_slow)}</td><td>—</td><td>{_pct(ow_slow)}</td></tr>"
             "</table>"]
    parts.append(_verdict(items, Verdict.judged(
        "§6 ack priority removes ack compression", Kind.MODEL, "ack priority 'eliminates' the effect (not simulated)",
        within(100 * ap, 100 * ow, 3, "%"), ours=100 * ap, unit="%", detail=
                          f"on §5.2, {_pct(ap)} against one-way {_pct(ow)}; 'agrees' within 3 points. Priority here is "
                          "non-preemptive at the IP queue: an ack still waits for the segment being segmented; the target is our own one-way run.")))
    def shares(name: str) -> tuple[float, float]:
        e = next(x for x in st.first(name)["summary"]["abr"]["ends"] if x["name"] == "abr:1L")
        total = e["data_cells"] + e["forward_rm"] + e["backward_rm_sent"]
        return e["data_cells"] / total, e["backward_rm_sent"] / total

    (d2, b2), (d1, b1) = shares("sec53_ackprio"), shares("sec53_oneway_slow")
    parts.append(_verdict(items, Verdict.not_comparable(
        "§6 ack priority with unequal rates (§5.3)", "— (beyond the paper)", "the paper does not run it", detail=
                          f"beyond the paper: fast {_pct(ap_fast)} against one-way {_pct(ow_fast)}, slow {_pct(ap_slow)} against "
                          f"{_pct(ow_slow)}. The digest expected 86–95 % for the fast direction (an ack at the slow node can wait "
                          "behind a segment lasting three fast-segment times) and about 100 % for the slow one. Measured why the "
                          f"slow direction falls short: its VC also carries the fast source's turned-around RM cells in rate — "
                          f"{_pct(b2)} of its cells two-way against {_pct(b1)} one-way — so data get {_pct(d2)} of its slots "
                          f"against {_pct(d1)}, {100 * (1 - d2 / d1):.1f} of the {100 * (1 - ap_slow / ow_slow):.1f} points "
                          "lost; the rest is not investigated.")))
    parts.append(_verdict(items, Verdict.judged(
        "§6 separate VCs remove it", Kind.MODEL, "separate ack VCs 'eliminate' the effect (not simulated)",
        within(100 * sv, 100 * 0.98 * ow, 3, "%"), ours=100 * sv, unit="%",
        detail=f"{_pct(sv)} against our one-way run {_pct(ow)} less the ack VC's 2 % share ({_pct(0.98 * ow)}).")))
    return "".join(parts)


def collect(full: bool = False, seed: int = 1, progress: Progress | StudyProgress | None = None) -> tuple[Study, dict[str, list[ks.TwoNode]]]:
    """Run every experiment of the study; returns the runs and the closed-form figures' points."""
    st = Study(FULL if full else QUICK, seed, progress)
    points = _schedule(st)
    st.run()
    return st, points


def write(st: Study, points: dict[str, list[ks.TwoNode]], out: Path, elapsed: float,
          store: str | Path | None = None) -> tuple[Path, list[Verdict]]:
    """Write ``report.html``, its figures and its verdicts (``verdicts.json``, ``verdicts.csv``, the
    results ``store``'s verdicts table if given) from the runs of :func:`collect`; returns the
    report's path and its verdicts."""
    items: list[Verdict] = []
    body = [
        "<p>Two-way TCP over rate-controlled ABR channels: acks queue behind data bursts in each node's shared IP "
        "queue, and efficiency falls to W/(W + L) even on perfectly allocated, loss-free channels. Verdicts compare "
        "with the paper's numbers where it publishes them, otherwise with its equations; errata and decisions from "
        "the digest are named where they matter.</p>",
        _closed_forms(st, points, out, items),
        _sec52(st, out, items),
        _sec53(st, out, items),
        _sec54(st, out, items),
        _sec55(st, out, items),
        _fixes(st, items),
        _lemma2_cycle(st, items),
        _table(st),
    ]
    mode = "full" if st.mode is FULL else "quick"
    body.append(f"<p class='meta'>{len(st.jobs)} runs; {st.mode.label()}; seeds from {st.seed}; {elapsed:.1f} s wall.</p>")
    title = "Kalampoukas, Varma & Ramakrishnan 1997 — two-way TCP over ABR (atmsim reproduction)"
    return write_study_report(out, title, "".join(body), items, elapsed, mode, store=store, study="kalampoukas97"), items


def run(out_dir: str | Path, mode: StudyMode = StudyMode.QUICK, seed: int = 1, progress: Progress | StudyProgress | None = None,
        store: str | Path | None = None, jobs: int | None = None, scheduler=None, tcp: TcpProfile | str | None = None) -> Path:
    """Run the study and write ``report.html`` into ``out_dir``; where its runs go and are kept:
    :func:`atmsim.study.executor.run_study`. ``tcp`` (``"cubic+sack"``, :mod:`atmsim.study.tcp_profile`):
    also run it with that TCP on every connection, shown beside BSD (:mod:`.today`)."""
    return run_study("kalampoukas97", _run, out_dir, mode, seed, progress, store, jobs, scheduler, tcp_profile.of(tcp),
                     today.COMPARISON)


def _run(out_dir: str | Path, mode: StudyMode, seed: int, progress: Progress | StudyProgress | None, store: str | Path | None) -> Path:
    full = StudyMode(mode).full
    t0 = time.perf_counter()
    st, points = collect(full, seed, progress)
    return write(st, points, Path(out_dir), time.perf_counter() - t0, store)[0]
