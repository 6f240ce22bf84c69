"""Cáceres 1993, "Multiplexing TCP Traffic over Wide-Area ATM Networks" (CELLSIM).

The §2.4 scenario: traffic sources behind one edge router, sinks behind another, one switch
between them; every link 1.5 Mb/s, the router→switch link 22.5 ms (45 ms round trip), the
others without delay; 8 kB receiver windows; buffers of one round-trip window per
conversation; each source starts its next tcplib conversation as soon as the previous ends.

In atmsim the edge router is the source-side host's ATM adapter: its per-VC queues are the
channel queues, served cell by cell round robin, packets of one channel FIFO (§2.2). The
multiplexing policy is the mapping of conversation slots to VCs:

- ``per-conversation``: one VC per source;
- ``per-type``: one VC per application type;
- ``per-destination``: one VC for everything between the two routers.

Each source and each sink is a host on its own 1.5 Mb/s serial line to its router (Fig. 1);
the routers' IP-over-ATM drivers map conversations to the PVCs by the multiplexing policy.

Figures regenerated: 2 (bottleneck utilisation vs number of conversations, per type),
3–4 (TELNET echo delay mean and standard deviation in RTTs vs number of FTP conversations,
three policies), 5 (average FTP throughput normalised to the link speed), 6–7 (throughput of
five FTP conversations over time, per-conversation vs per-destination), 8–9 (an FTP source's
congestion window over time). Means are over seeds with 95% Student-t intervals built on a scale
that keeps them in the quantity's physical range (utilisations and Jain's index in [0, 1], delays
and their standard deviations ≥ 0: :func:`atmsim.stats.bounded_mean_ci`), so no bar crosses 0 or 1.

**Buffers (§2.4).** "enough buffer memory to hold one network round-trip window of data for
each conversation flowing through them. The round-trip window is the network's inherent
storage capacity, or the product of its bandwidth and round-trip propagation delay." We
implement exactly that: per conversation ``ceil(link_bps · 45 ms / 424)`` cells, i.e. at
1.5 Mb/s 1.5e6 · 0.045 = 67 500 bits = 159.2 cells of 53 bytes → **160 cells**; at 3 Mb/s
(§6) 319 cells. A router's (or the switch's) memory is one pool per output port holding
``n · 160`` cells for ``n`` conversations (6 with one TELNET and five FTP: 960 cells).
It is not the 8 kB *receiver window* in cells (16 segments of 512 bytes, 12 cells each with the
40-byte TCP/IP header and the 8-byte AAL5 trailer = 192 cells, 1152 for six conversations),
which is 20 % above the round-trip window at 1.5 Mb/s, and below it at 3 Mb/s.

Why even the exact rule leaves the network loss-free: a FIFO (or round-robin) port can hold
at most the sum of the windows minus what the path itself holds. Five FTP windows are
5 · 192 = 960 cells; the path holds about 160 cells of data and ACKs (the round-trip window)
plus the access lines and delayed ACKs (measured: the queue peaks at 700–760 cells, 180 s,
seeds 1–3), so the queue stays 200 cells below 960. Overflow needs ``192 n − 159 > 160 (n + 1)``,
i.e. ten FTP conversations or more. The report measures this (drops, timeouts) and shows
the sensitivity to smaller buffers (a fraction of the round-trip window per conversation),
which is the experiment behind the verdicts of Figures 6–9.

**TCP.** CELLSIM's TCP had slow start, congestion avoidance, exponential backoff and fast
retransmit but no fast recovery (§2.1: "abrupt window shutdown upon detection of a dropped
packet", 4.3BSD-Tahoe): every connection here is ``variant = "tahoe"``.

**FTP connections.** tcplib's FTP model opens a data connection per item (file); the
sources here set ``connection_per_item = true`` (see docs/scenario.md), so each item pays a
handshake and starts in slow start. The report's §6 section measures what this changes
against one connection per conversation.
"""

from __future__ import annotations

import html
import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ... import stats
from ..._core import Entity, Metric, entity_name
from ..._report import figure_path, plot_ci_lines, save_figure
from ..._scenario import Scenario
from ...callbacks import StudyProgress
from ...study import Kind, Progress, Rule, Verdict, tcp_profile, verdict_html, write_study_report
from ...study import Mode as StudyMode
from ...study.executor import run_study
from ...study.tcp_profile import TcpProfile
from ..runner import run_many
from . import today
from .rules import (
    fig2_rule,
    fig5_rule,
    figs34_rule,
    figs67_rule,
    figs89_rule,
    s6_phenomena_rule,
    s6_saturation_rule,
    s7_fair_rule,
    s7_worse_rule,
    saturating_thresholds,
)

__all__ = [
    "CELL_BITS",
    "FIG2_COUNTS",
    "LINK_BPS",
    "MSS_BYTES",
    "POLICIES",
    "RTT_S",
    "SAT_THRESHOLDS",
    "WINDOW_BYTES",
    "Point",
    "Study",
    "Verdicts",
    "buffer_cells",
    "round_trip_window_cells",
    "run",
    "saturation_point",
    "scenario",
]


POLICIES = ("per-conversation", "per-type", "per-destination")
RTT_S = 0.045
LINK_BPS = 1.5e6
WINDOW_BYTES = 8192
MSS_BYTES = 512
#: Conversations of each type alone, for Figure 2.
FIG2_COUNTS = {"ftp": [1, 2, 3, 4, 5], "nntp": [1, 2, 4, 8], "smtp": [1, 2, 4, 8], "telnet": [1, 4, 16]}


CELL_BITS = 53 * 8


def round_trip_window_cells(link_bps: float = LINK_BPS, rtt_s: float = RTT_S) -> int:
    """The round-trip window (§2.4: bandwidth × round-trip propagation delay) in 53-byte cells,
    rounded up: 160 at 1.5 Mb/s, 319 at 3 Mb/s."""
    return math.ceil(round(link_bps * rtt_s / CELL_BITS, 9))


def buffer_cells(n_conversations: int, link_bps: float = LINK_BPS, fraction: float = 1.0) -> int:
    """One round-trip window per conversation (§2.4), times `fraction` (1 = the paper's rule;
    smaller values are the sensitivity experiment)."""
    return max(1, round(max(1, n_conversations) * round_trip_window_cells(link_bps) * fraction))


def scenario(
    sources: list[str],
    policy: str,
    *,
    link_bps: float = LINK_BPS,
    duration_s: float = 4000 * RTT_S,
    warmup_s: float = 1000 * RTT_S,
    sample_interval_ms: float = 0.0,
    item_scale: float = 1.0,
    variant: str = "tahoe",
    connection_per_item: bool = True,
    buffer_fraction: float = 1.0,
    window_bytes: int = WINDOW_BYTES,
) -> dict:
    """The §2.4 network with one source per entry of `sources` (app kinds: ftp, nntp, smtp,
    telnet, and bulk: a greedy sender that never ends, for the §7 scheduling-only control).

    `item_scale` multiplies bulk item sizes (§7); `variant` is the TCP (CELLSIM: Tahoe);
    `connection_per_item` gives FTP a connection per item (tcplib); `buffer_fraction` scales
    the §2.4 buffer rule (1 = the paper)."""
    if policy not in POLICIES:
        raise ValueError(f"unknown policy {policy!r}: expected one of {', '.join(POLICIES)}")
    buf = buffer_cells(len(sources), link_bps, buffer_fraction)
    # Each policy is a multiplexing policy of the routers' IP-over-ATM drivers over PVCs the
    # scenario declares: a VC per conversation, per application type, or one per router pair.
    mux = {"per-conversation": "conv", "per-type": "type", "per-destination": "router"}[policy]
    router = {"scheduler": "round_robin", "buffer_cells": buf, "mtu_bytes": MSS_BYTES + 40, "ipoa": {"mux": mux}}
    doc: dict = {
        "name": f"caceres93-{policy}-" + "-".join(f"{sources.count(k)}{k}" for k in sorted(set(sources))),
        "simulation": {"duration_s": duration_s, "warmup_s": warmup_s, "sample_interval_ms": sample_interval_ms},
        "router": [{"name": "src-router", **router}, {"name": "dst-router", **router}],
        "host": [],
        "serial": [],
        "switch": [{"name": "switch", "scheduler": "round_robin", "buffer_cells": buf}],
        "link": [
            {"name": "wan", "a": "src-router", "b": "switch", "rate_bps": link_bps, "delay_ms": 22.5},
            {"name": "lan", "a": "switch", "b": "dst-router", "rate_bps": link_bps, "delay_ms": 0.0},
        ],
        "vc": [],
        "tcp": [],
    }
    path = ["src-router", "switch", "dst-router"]

    def channel(i: int, kind: str) -> str:
        return {"per-conversation": f"conv{i}", "per-type": f"type-{kind}", "per-destination": "dest"}[policy]

    for i, kind in enumerate(sources):
        vc = channel(i, kind)
        if not any(v["name"] == vc for v in doc["vc"]):
            doc["vc"].append({"name": vc, "path": path})
        # The source and the sink each reach their router over their own serial line (Fig. 1).
        src, dst = f"{kind}{i}-src", f"{kind}{i}-dst"
        doc["host"] += [{"name": src, "mtu_bytes": MSS_BYTES + 40}, {"name": dst, "mtu_bytes": MSS_BYTES + 40}]
        doc["serial"] += [
            {"a": src, "b": "src-router", "rate_bps": link_bps},
            {"a": "dst-router", "b": dst, "rate_bps": link_bps},
        ]
        doc["tcp"].append(
            {
                "name": f"{kind}{i}",
                "client": src,
                "server": dst,
                "vc": vc,
                "window_bytes": window_bytes,
                "mss_bytes": MSS_BYTES,
                "variant": variant,
                "app": _app(kind, item_scale, connection_per_item),
            }
        )
    return doc


def _app(kind: str, item_scale: float, connection_per_item: bool) -> dict:
    app: dict = {"kind": kind}
    if kind in ("ftp", "nntp", "smtp") and item_scale != 1.0:
        app["item_scale"] = item_scale
    if kind == "ftp" and connection_per_item:
        app["connection_per_item"] = True
    return app


@dataclass
class Point:
    """Mean and 95% interval of one metric at one x."""

    x: float
    mean: float
    low: float
    high: float


def _ci(xs: list[float], upper: float | None = None) -> tuple[float, float, float]:
    """Mean and 95 % interval of a quantity ≥ 0 (and ≤ ``upper``, if given) that stays in that range
    (:func:`atmsim.stats.bounded_mean_ci`): a utilisation's bars never cross 1, a delay's never 0."""
    ci = stats.bounded_mean_ci(xs, 0.0, upper)
    return ci.estimate, ci.low, ci.high




def _wan_utilisation(summary: dict) -> float:
    return next(p["utilization"] for p in summary["ports"] if p["name"] == "src-router->switch")


class Study:
    """Runs the experiments; `quick` shortens runs and uses fewer seeds and load points."""

    def __init__(self, full: bool, seed: int, progress: Progress | StudyProgress | None = None):
        self.full = full
        self.seeds = list(range(seed, seed + (10 if full else 3)))
        rtts = 4000 if full else 1000
        self.duration_s = rtts * RTT_S
        self.warmup_s = self.duration_s / 4
        self.progress = Progress.of(progress)

    def _over_seeds(self, docs: list[dict], what: list[str], keep=None) -> list[list]:
        """Run every document at every seed on every core (:func:`run_many`); per document the
        seeds' summaries (or ``keep(results)``), in order; one progress step per document."""
        n = len(self.seeds)

        def done(d: int, _total: int) -> None:
            if d % n == 0:
                self.progress.step(what[d // n - 1])

        out = run_many([(Scenario.from_dict(doc), s) for doc in docs for s in self.seeds], progress=done, keep=keep)
        return [out[k * n:(k + 1) * n] for k in range(len(docs))]

    def doc(self, sources: list[str], policy: str, **kw) -> dict:
        return scenario(sources, policy, duration_s=self.duration_s, warmup_s=self.warmup_s, **kw)

    def figure2(self) -> dict[str, list[Point]]:
        points = [(kind, n) for kind, ns in FIG2_COUNTS.items() for n in ns]
        runs = self._over_seeds([self.doc([kind] * n, "per-conversation") for kind, n in points],
                                [f"fig2 {kind}x{n}" for kind, n in points])
        out: dict[str, list[Point]] = {kind: [] for kind in FIG2_COUNTS}
        for (kind, n), summaries in zip(points, runs):
            out[kind].append(Point(n, *_ci([_wan_utilisation(s) for s in summaries], 1.0)))
        return out

    def figures3to5(self, max_ftp: int = 5, link_bps: float = LINK_BPS, policies=POLICIES, **kw) -> dict[str, dict[str, list[Point]]]:
        """TELNET echo delay (mean, std) [RTT], mean FTP throughput [link], and bottleneck
        utilisation against the number of FTP conversations (one TELNET always present)."""
        res: dict[str, dict[str, list[Point]]] = {k: {p: [] for p in policies} for k in ("delay", "std", "ftp", "util")}
        points = [(policy, n) for policy in policies for n in range(0, max_ftp + 1)]
        runs = self._over_seeds([self.doc(["telnet"] + ["ftp"] * n, policy, link_bps=link_bps, **kw) for policy, n in points],
                                [f"fig3-5 {policy} {n} ftp {link_bps / 1e6:g} Mb/s" for policy, n in points])
        for (policy, n), summaries in zip(points, runs):
            delay, std, thr, util = [], [], [], []
            for r in summaries:
                tel = r["connections"][0]
                util.append(_wan_utilisation(r))
                if tel.get("echo_delay_samples", 0) > 1:
                    delay.append(tel["echo_delay_mean_s"] / RTT_S)
                    std.append(tel["echo_delay_std_s"] / RTT_S)
                if n:
                    thr.append(sum(c["goodput_bps"] for c in r["connections"][1:]) / n / link_bps)
            res["util"][policy].append(Point(n, *_ci(util, 1.0)))
            if len(delay) > 1:
                res["delay"][policy].append(Point(n, *_ci(delay)))
                res["std"][policy].append(Point(n, *_ci(std)))
            if len(thr) > 1:
                res["ftp"][policy].append(Point(n, *_ci(thr, 1.0)))
        return res

    def fairness(self, item_scale: float = 1.0, n_ftp: int = 5, kind: str = "ftp", **kw) -> dict[str, dict]:
        """Five FTP conversations (and one TELNET) under each policy: Jain's index of the FTP
        goodputs, short-term (per 10-RTT interval, averaged) and over the whole measurement
        window, as means over seeds; bottleneck drops, FTP timeouts and fast retransmits per
        run; the fraction of 10-RTT samples in which an FTP source's window min(cwnd, 8 kB) is
        at its 8 kB maximum; the first seed's traces for Figures 6–9. `kind = "bulk"`
        replaces the tcplib sources by greedy senders that never end (§7 control)."""
        docs = [self.doc(["telnet"] + [kind] * n_ftp, policy, sample_interval_ms=1000 * 10 * RTT_S, item_scale=item_scale, **kw)
                for policy in POLICIES]
        runs = self._over_seeds(docs, [f"fairness {policy} x{item_scale:g} {kind} {kw}" for policy in POLICIES],
                                keep=lambda r: r)
        out: dict[str, dict] = {}
        for policy, results in zip(POLICIES, runs):
            short, whole, drops, tos, frs, at_max = [], [], [], [], [], []
            traces: dict[str, Any] = {}
            for r in results:
                gp = r.trace(Metric.GOODPUT_BPS)
                ftp = gp[[c for c in gp.columns if c.startswith(entity_name(Entity.CONN, kind))]]
                ftp = ftp[ftp.index > self.warmup_s]
                busy = [row for row in ftp.values if row.sum() > 0]
                short.append(float(sum(stats.jain(row) for row in busy) / max(1, len(busy))))
                conns = r.summary["connections"][1:]
                whole.append(stats.jain([c["goodput_bps"] for c in conns]))
                drops.append(sum(p["drops"] for p in r.summary["ports"]))
                tos.append(sum(c["timeouts"] for c in conns))
                frs.append(sum(c["fast_retransmits"] for c in conns))
                cw = r.trace(Metric.CWND_BYTES)
                cw = cw[[c for c in cw.columns if c.startswith(entity_name(Entity.CONN, kind))]]
                cw = cw[cw.index > self.warmup_s]
                at_max.append(float((cw >= WINDOW_BYTES).to_numpy().mean()))
                if not traces:
                    # The sender's usable window: min(cwnd, the 8 kB receiver window).
                    first = entity_name(Entity.CONN, f"{kind}1")
                    traces = {"throughput": ftp / LINK_BPS, "cwnd": r.trace(Metric.CWND_BYTES)[[first]].clip(upper=WINDOW_BYTES)}
            out[policy] = {
                "short": stats.bounded_mean_ci(short, 0.0, 1.0), "whole": stats.bounded_mean_ci(whole, 0.0, 1.0),
                "drops": drops, "timeouts": tos, "fast_retransmits": frs, "at_max": stats.bounded_mean_ci(at_max, 0.0, 1.0),
                **traces,
            }
        return out


#: Utilisation thresholds for "the network saturates" (§3, §6 do not define it): 0.9 is the
#: one the Figure 2 verdict uses; the others show the sensitivity.
SAT_THRESHOLDS = (0.9, 0.95, 0.98)


def saturation_point(util: list[Point], threshold: float) -> float | None:
    """The smallest number of FTP conversations whose mean bottleneck utilisation reaches
    `threshold` (None if none does)."""
    return next((p.x for p in util if p.x > 0 and p.mean >= threshold), None)


def _plot_points(series: dict[str, list[Point]], xlabel: str, ylabel: str, title: str, path: Path) -> Path:
    return plot_ci_lines({k: [(p.x, p.mean, p.low, p.high) for p in v] for k, v in series.items()}, xlabel, ylabel, title, path)


def _plot_frame(frame, ylabel: str, title: str, path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    for col in frame.columns:
        ax.plot(frame.index, frame[col], drawstyle="steps-post", label=col.removeprefix(entity_name(Entity.CONN, "")))
    ax.set_xlabel("simulated time [s]")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small")
    fig.tight_layout()
    return save_figure(fig, path, dpi=110)


class Verdicts:
    """The report's verdicts, in order, each beside its figure (all of kind validated: the
    paper's statements, which nothing in the model was fitted to)."""

    def __init__(self) -> None:
        self.items: list[Verdict] = []

    def add(self, item: str, paper: str, rule: Rule, text: str, kind: Kind = Kind.VALIDATED) -> str:
        v = Verdict.judged(item, kind, paper, rule, detail=text)
        self.items.append(v)
        return verdict_html(v)


def _ci_text(ci) -> str:
    return f"{ci.estimate:.3f} [{ci.low:.3f}, {ci.high:.3f}]"


def _sat_text(x) -> str:
    return "none up to the largest load" if x is None else f"{x:g}"


def run(out_dir: str | Path, mode: StudyMode = StudyMode.QUICK, seed: int = 1, progress: Progress | StudyProgress | None = None,
        store: str | Path | None = None, jobs: int | None = None, scheduler=None, tcp: TcpProfile | str | None = None) -> Path:
    """Run the study and write ``report.html`` into ``out_dir``; where its runs go and are kept:
    :func:`atmsim.study.executor.run_study`. ``tcp`` (``"cubic+sack"``, :mod:`atmsim.study.tcp_profile`):
    also run it with that TCP on every connection, shown beside BSD (:mod:`.today`)."""
    return run_study("caceres93", _run, out_dir, mode, seed, progress, store, jobs, scheduler, tcp_profile.of(tcp),
                     today.COMPARISON)


def _run(out_dir: str | Path, mode: StudyMode, seed: int, progress: Progress | StudyProgress | None, store: str | Path | None) -> Path:
    full = StudyMode(mode).full
    out = Path(out_dir)
    t0 = time.perf_counter()
    st = Study(full, seed, progress)
    fractions = (0.5, 0.25)
    st.progress.plan(sum(len(v) for v in FIG2_COUNTS.values()) + 3 * 6 + 3 + 3 * len(fractions) + 3 * 11 + 2 * 11 + 3 + 3 + 3)
    f2 = st.figure2()
    f35 = st.figures3to5()
    fair = st.fairness()
    small = {f: st.fairness(buffer_fraction=f) for f in fractions}
    s6 = st.figures3to5(max_ftp=10, link_bps=2 * LINK_BPS)
    s6_one = st.figures3to5(max_ftp=10, link_bps=2 * LINK_BPS, policies=("per-conversation",), connection_per_item=False)
    s6_w16 = st.figures3to5(max_ftp=10, link_bps=2 * LINK_BPS, policies=("per-conversation",), window_bytes=2 * WINDOW_BYTES)
    s7 = st.fairness(item_scale=4.0)
    s7_bulk = st.fairness(kind="bulk")
    elapsed = time.perf_counter() - t0
    v = Verdicts()
    parts = [
        "<p>The §2.4 network: sources behind one edge router, sinks behind another, one switch; 1.5 Mb/s "
        "links, 22.5 ms router→switch delay (45 ms RTT), 8 kB windows, 512-byte segments, 1.5 Mb/s access links, "
        f"buffers of one round-trip window ({round_trip_window_cells()} cells at 1.5 Mb/s) per conversation in each "
        "output port's pool, TCP Tahoe (CELLSIM: slow start, no fast recovery), tcplib FTP/NNTP/SMTP/TELNET sources "
        "starting a new conversation as soon as the previous ends, FTP with a TCP connection per item (tcplib). "
        f"Runs of {st.duration_s / RTT_S:.0f} RTTs ({st.duration_s:g} s), the first quarter discarded; "
        f"{len(st.seeds)} seeds per point (seeds {st.seeds[0]}–{st.seeds[-1]}); 95% Student-t intervals on the log "
        "(≥ 0) or logit ([0, 1]) scale, so they stay in each quantity's range.</p>"
    ]
    fig = _plot_points(
        dict(f2), "concurrent conversations", "bottleneck utilisation",
        "Fig. 2: load of each traffic type (per-conversation channels)", figure_path(out, "fig2.png"),
    )
    ftp_sat = saturation_point(f2["ftp"], 0.9)
    parts.append(f'<h2>Figure 2 — network load by traffic type</h2><p><img src="{fig.name}"></p>')
    parts.append(v.add("Fig. 2", "FTP saturates the link with 3–4 conversations", fig2_rule(ftp_sat),
        f"paper: FTP saturates the link with 3–4 conversations, TELNET leaves it mostly idle, SMTP and NNTP in between; "
        f"atmsim: FTP utilisation first ≥ 0.9 at {_sat_text(ftp_sat)} conversations "
        f"({', '.join(f'{p.x:g}: {p.mean:.2f}' for p in f2['ftp'])}); 16 TELNET: {f2['telnet'][-1].mean:.3f}; "
        f"8 NNTP: {f2['nntp'][-1].mean:.2f}; 8 SMTP: {f2['smtp'][-1].mean:.2f}."))
    fig3 = _plot_points(f35["delay"], "concurrent FTP conversations", "TELNET echo delay [RTT]", "Fig. 3: interactive delay",
                        figure_path(out, "fig3.png"))
    fig4 = _plot_points(f35["std"], "concurrent FTP conversations", "std. dev. of echo delay [RTT]", "Fig. 4: variability of interactive delay",
                        figure_path(out, "fig4.png"))
    fig5 = _plot_points(f35["ftp"], "concurrent FTP conversations", "mean FTP throughput / link speed", "Fig. 5: bulk transfer throughput",
                        figure_path(out, "fig5.png"))
    last = {p: f35["delay"][p][-1].mean for p in POLICIES}
    lstd = {p: f35["std"][p][-1].mean for p in POLICIES}
    parts.append(f'<h2>Figures 3–4 — interactive delay</h2><p><img src="{fig3.name}"><img src="{fig4.name}"></p>')
    parts.append(v.add("Figs. 3–4", "delay near 1 RTT except per-destination, which grows steeply", figs34_rule(last),
        "paper: delay and its variability stay near 1 RTT and 0 under per-conversation and per-type channels and grow steeply "
        "under per-destination channels; atmsim at 5 FTP: " + ", ".join(f"{p} {last[p]:.2f} RTT (std {lstd[p]:.2f})" for p in POLICIES),
    ))
    parts.append(f'<h2>Figure 5 — bulk transfer throughput</h2><p><img src="{fig5.name}"></p>')
    thr5 = {p: f35["ftp"][p][-1].mean for p in POLICIES}
    for p in POLICIES:
        today.note(today.delay_key(p), last[p])
        today.note(today.ftp_key(p), thr5[p])
        today.note(today.jain_key(p), small[0.25][p]["short"].estimate)
        today.note(today.timeouts_key(p), sum(small[0.25][p]["timeouts"]) / len(st.seeds))
    parts.append(v.add("Fig. 5", "FTP throughput degrades equally under all three policies", fig5_rule(thr5),
        "paper: average FTP throughput degrades equally under all three policies; atmsim at 5 FTP (fraction of the link): "
        + ", ".join(f"{p} {x:.3f}" for p, x in thr5.items())))

    # ---- Figures 6–9: fairness and windows, at the paper's buffers and below them.
    def loss_row(label: str, res: dict) -> str:
        return "".join(
            f"<tr><td>{label}</td><td>{p}</td><td>{sum(res[p]['drops']) / len(st.seeds):.0f}</td>"
            f"<td>{sum(res[p]['timeouts']) / len(st.seeds):.1f}</td><td>{sum(res[p]['fast_retransmits']) / len(st.seeds):.1f}</td>"
            f"<td>{_ci_text(res[p]['short'])}</td><td>{_ci_text(res[p]['at_max'])}</td></tr>" for p in POLICIES)

    loss_table = (
        "<table><tr><th>buffer per conversation</th><th>policy</th><th>cells dropped per run</th><th>FTP timeouts per run</th>"
        "<th>FTP fast retransmits per run</th><th>Jain per 10-RTT interval</th><th>share of samples with the FTP window at 8 kB</th></tr>"
        + loss_row(f"1 × RTW = {round_trip_window_cells()} cells (§2.4)", fair)
        + "".join(loss_row(f"{f:g} × RTW = {round(round_trip_window_cells() * f)} cells", small[f]) for f in fractions)
        + "</table>"
    )
    for policy, figno in (("per-conversation", "6"), ("per-destination", "7")):
        fig = _plot_frame(fair[policy]["throughput"], "throughput / link speed", f"Fig. {figno}: five FTP conversations, {policy}",
                          figure_path(out, f"fig{figno}.png"))
        parts.append(f'<h2>Figure {figno} — FTP fairness, {policy} channels</h2><p><img src="{fig.name}"></p>')
    parts.append("<h3>Losses, fairness and windows (one TELNET, five FTP)</h3><p>RTW: the round-trip window, "
                 "bandwidth × 45 ms. The rows below 1 × RTW are a sensitivity experiment, not the paper's setup.</p>" + loss_table)
    sj = {p: fair[p]["short"].estimate for p in POLICIES}
    drops_paper = sum(sum(fair[p]["drops"]) for p in POLICIES)
    wj = {p: fair[p]["whole"].estimate for p in POLICIES}
    # "The same level of throughput" is judged against the shared policies, not by an absolute
    # whole-run index: with heavy-tailed tcplib items that index rises with the run's length
    # (seeds 1–3: 0.93 at 1000 RTTs, 0.96 at 4000), so a fixed threshold would make the quick
    # and full verdicts differ for no reason of the model.
    r67 = figs67_rule(sj, wj)
    ci = {p: fair[p]["short"] for p in POLICIES}
    overlap = any(ci["per-conversation"].low <= ci[p].high for p in ("per-type", "per-destination"))
    parts.append(v.add("Figs. 6–7", "per-conversation channels give each FTP the same throughput; shared ones make "
                       "winners and losers (the losers also losing packets)", r67,
        "paper: per-conversation channels give each FTP conversation the same throughput; shared channels make winners and "
        f"losers that change over time, the losers also losing packets; atmsim: short-term Jain {sj['per-conversation']:.3f} "
        f"(per-conversation) vs {sj['per-type']:.3f} / {sj['per-destination']:.3f} (per-type / per-destination), over the "
        f"run {wj['per-conversation']:.3f} vs {wj['per-type']:.3f} / {wj['per-destination']:.3f}; "
        f"cells dropped at the paper's buffers: {drops_paper} in all policies and seeds, so no loser ever loses a packet. "
        + ("Per-conversation channels are the fairer on both time scales (margins 0.05 per 10 RTTs, 0.03 over the run), as in the paper, "
           if r67.passes else "The paper's gap is not reproduced at the margins (0.05 per 10 RTTs, 0.03 over the run), ")
        + "but no policy gives equal shares over 10 RTTs: the §7 control below (greedy senders, Jain "
        + ", ".join(f"{p} {s7_bulk[p]['short'].estimate:.3f}" for p in POLICIES)
        + ") shows the scheduler alone is close to fair, so what remains is the workload — each tcplib source is at a "
        "different point of its items, pauses and per-item slow starts. "
        + ("The rule compares means: the 95 % intervals of the per-10-RTT index overlap between per-conversation and a "
           "shared policy, " if overlap else "The 95 % intervals of the per-10-RTT index do not overlap, ")
        + ("and the network loses nothing, so the paper's losers-lose-packets mechanism is absent: whatever gap there "
           "is comes from scheduling and the workload alone." if drops_paper == 0 else
           f"and {drops_paper} cells are dropped at the paper's buffers.")))
    for policy, figno in (("per-conversation", "8"), ("per-destination", "9")):
        fig = _plot_frame(fair[policy]["cwnd"], "window min(cwnd, 8 kB) [bytes]", f"Fig. {figno}: an FTP source's window, {policy}",
                          figure_path(out, f"fig{figno}.png"))
        parts.append(f'<h2>Figure {figno} — TCP window, {policy} channels</h2><p><img src="{fig.name}"></p>')
    am = {p: fair[p]["at_max"].estimate for p in POLICIES}
    shrink_small = {f: {p: (sum(small[f][p]["timeouts"]) + sum(small[f][p]["fast_retransmits"])) / len(st.seeds) for p in POLICIES}
                    for f in fractions}
    only_shared = all(shrink_small[f]["per-conversation"] == 0 and shrink_small[f]["per-destination"] > 0 for f in fractions)
    ev = {p: sum(fair[p]["timeouts"]) + sum(fair[p]["fast_retransmits"]) for p in POLICIES}
    parts.append(v.add("Figs. 8–9", "windows stay at the maximum per-conversation and often shrink under shared channels",
        figs89_rule(ev, am),
        "paper (§5.3): under per-conversation channels windows grow to the maximum and stay there; under shared channels "
        "they often shrink to the minimum (after drops). atmsim at the §2.4 buffers: loss events (timeouts + fast "
        f"retransmits) per-conversation / per-type / per-destination {ev['per-conversation']} / {ev['per-type']} / "
        f"{ev['per-destination']} over all seeds, so windows shrink only by a new item's slow start; the window is at 8 kB in "
        f"{am['per-conversation']:.0%} / {am['per-type']:.0%} / {am['per-destination']:.0%} of the samples "
        "(per-conversation / per-type / per-destination). Reason, by arithmetic (module docs): five 8 kB windows are "
        f"960 cells and the path holds about 200, so the queue peaks near 750 cells, below the {buffer_cells(6)} cells the rule "
        "gives six conversations. Tested by the sensitivity rows: with 0.5 and 0.25 × RTW losses appear, and windows shrink "
        + ("only under shared channels, as the paper says" if only_shared else
           "under per-conversation channels as well (loss events per run, per-conversation / per-destination: "
           + "; ".join(f"{f:g} × RTW {shrink_small[f]['per-conversation']:.1f} / {shrink_small[f]['per-destination']:.1f}" for f in fractions)
           + "): in a shared buffer pool the round-robin server does not protect a conversation's memory, so the paper's "
             "contrast is not reproduced at any buffer size we tried")
        + "."))

    # ---- §6
    fig6a = _plot_points(s6["delay"], "concurrent FTP conversations", "TELNET echo delay [RTT]", "§6: interactive delay with 3 Mb/s links",
                         figure_path(out, "s6_delay.png"))
    fig6b = _plot_points(s6["ftp"], "concurrent FTP conversations", "mean FTP throughput / link speed", "§6: bulk throughput with 3 Mb/s links",
                         figure_path(out, "s6_ftp.png"))
    util6 = {"3 Mb/s, connection per item (8 kB)": s6["util"]["per-conversation"],
             "3 Mb/s, one connection per conversation (8 kB)": s6_one["util"]["per-conversation"],
             "3 Mb/s, connection per item, 16 kB windows": s6_w16["util"]["per-conversation"]}
    fig6c = _plot_points(util6, "concurrent FTP conversations", "bottleneck utilisation", "§6: saturation at 3 Mb/s (per-conversation)",
                         figure_path(out, "s6_util.png"))
    l6 = {p: s6["delay"][p][-1].mean for p in POLICIES}
    parts.append(f'<h2>§6 — sensitivity to link speed (3 Mb/s, up to 10 FTP)</h2>'
                 f'<p><img src="{fig6a.name}"><img src="{fig6b.name}"><img src="{fig6c.name}"></p>')
    parts.append(v.add("§6 phenomena", "the same phenomena at 3 Mb/s with more conversations", s6_phenomena_rule(l6),
        "paper: the same phenomena with a correspondingly higher number of conversations; atmsim TELNET delay at 10 FTP: "
        + ", ".join(f"{p} {x:.2f} RTT" for p, x in l6.items())))
    sat = {lbl: {t: saturation_point(u, t) for t in SAT_THRESHOLDS} for lbl, u in
           [("1.5 Mb/s, connection per item", f35["util"]["per-conversation"])] + list(util6.items())}
    rows = "".join(f"<tr><td>{html.escape(lbl)}</td>" + "".join(f"<td>{_sat_text(x[t])}</td>" for t in SAT_THRESHOLDS) + "</tr>"
                   for lbl, x in sat.items())
    parts.append("<p>Saturation point: the fewest FTP conversations (with the TELNET one) whose mean bottleneck utilisation "
                 "reaches the threshold; the paper does not define \"saturates\", so three thresholds are shown. The 3 Mb/s "
                 "rows other than the first are controls (one connection per conversation; windows scaled to the 3 Mb/s "
                 "round-trip window as §2.4's rule would scale them).</p><table><tr><th>setup</th>"
                 + "".join(f"<th>utilisation ≥ {t:g}</th>" for t in SAT_THRESHOLDS) + f"</tr>{rows}</table>")
    main = sat["3 Mb/s, connection per item (8 kB)"][0.9]
    one = sat["3 Mb/s, one connection per conversation (8 kB)"][0.9]
    w16 = sat["3 Mb/s, connection per item, 16 kB windows"][0.9]
    slow, fast = sat["1.5 Mb/s, connection per item"], sat["3 Mb/s, connection per item (8 kB)"]
    both = saturating_thresholds(slow, fast)
    parts.append(v.add("§6 saturation point", "3–4 FTP saturate 1.5 Mb/s, 7–8 saturate 3 Mb/s", s6_saturation_rule(slow, fast),
        "paper: 3–4 FTP conversations saturate 1.5 Mb/s and 7–8 saturate 3 Mb/s; atmsim (1.5 → 3 Mb/s) at utilisation "
        + ", ".join(f"≥ {t:g}: {_sat_text(slow[t])} → {_sat_text(fast[t])}" for t in SAT_THRESHOLDS)
        + (f"; both in the paper's ranges at {', '.join(f'{t:g}' for t in both)}." if both else
           "; no threshold puts both in the paper's ranges (we do not pick one to match). "
           f"Tested causes at 0.9: a connection per item (tcplib) moves the 3 Mb/s point from {_sat_text(one)} (one connection "
           f"per conversation) to {_sat_text(main)}, so it explains part of the gap; windows scaled to the 3 Mb/s round-trip "
           f"window (16 kB) give {_sat_text(w16)}, so they do not. A closed-loop source (the next item starts when the last "
           "is acknowledged) offers more bits per second on a faster link unless round-trip pauses dominate its time, so the "
           "count need not double; what made it double in CELLSIM is not known (the rest is unexplained).")))

    # ---- §7
    s7j = {p: s7[p]["short"].estimate for p in POLICIES}
    bj = {p: s7_bulk[p]["short"].estimate for p in POLICIES}
    rows = "".join(f"<tr><td>{p}</td><td>{_ci_text(s7_bulk[p]['short'])}</td><td>{_ci_text(fair[p]['short'])}</td>"
                   f"<td>{_ci_text(s7[p]['short'])}</td><td>{sum(s7[p]['drops']) / len(st.seeds):.0f}</td></tr>" for p in POLICIES)
    parts.append("<h2>§7 — sensitivity to bulk transfer size (FTP items ×4)</h2><p>Short-term Jain index (per 10-RTT interval) "
                 "of five bulk sources. To separate what the scheduler does from what the workload does, the first column "
                 "replaces the tcplib FTP sources by greedy senders that never end (no new conversations, no items, so no slow "
                 "start after the first): its unfairness is the scheduler's alone. The distance from that column to the "
                 "tcplib columns is what new items and their slow starts and pauses add.</p><table><tr><th>policy</th>"
                 "<th>greedy senders (scheduling only)</th><th>tcplib sizes</th><th>items ×4</th><th>cells dropped per run, ×4</th></tr>"
                 f"{rows}</table>")
    sched_fair = all(bj[p] > 0.95 for p in POLICIES)
    parts.append(v.add("§7 per-conversation stays fair", "per-conversation channels stay fair with larger transfers",
        s7_fair_rule(s7j),
        "paper: per-conversation channels stay fair with larger bulk transfers; atmsim: per-conversation "
        f"{s7j['per-conversation']:.3f} against per-type {s7j['per-type']:.3f} and per-destination {s7j['per-destination']:.3f}."))
    parts.append(v.add("§7 shared channels worsen", "unfairness under shared channels worsens with larger transfers",
        s7_worse_rule(s7j, sj),
        "paper: with larger transfers unfairness under shared channels worsened (\"because the larger bulk transfer size "
        "increased queueing delays\"); atmsim's short-term Jain of the shared channels goes from "
        f"{sj['per-type']:.3f}/{sj['per-destination']:.3f} to {s7j['per-type']:.3f}/{s7j['per-destination']:.3f} "
        f"(per-type/per-destination). With greedy senders the index is {bj['per-type']:.3f}/{bj['per-destination']:.3f}"
        + (", i.e. FIFO scheduling alone is fair here (equal 8 kB windows, no loss): the short-term unfairness comes from the "
           "workload — items starting and ending at different times, each in slow start — so longer items, which remove "
           "pauses and slow starts, make shares more even, not less" if sched_fair else "")
        + ". We scale tcplib's FTP item sizes by 4 instead of removing the paper's 74-byte anomaly (the published tables do "
          "not let us locate it)."))
    parts.append(f"<p class='meta'>mode: {'full' if full else 'quick'}; seeds {st.seeds}; {elapsed:.1f} s wall.</p>")
    return write_study_report(out, "Cáceres 1993 — multiplexing TCP over wide-area ATM (atmsim reproduction)", "".join(parts),
                              v.items, elapsed, "full" if full else "quick", store=store, study="caceres93")
