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
congestion window over time). Means are over seeds with 95% Student-t intervals.
"""

from __future__ import annotations

import html
import time
from dataclasses import dataclass
from pathlib import Path

from .. import stats
from ..report import figure_path, plot_ci_lines, save_figure, write_report
from ..scenario import Scenario

POLICIES = ("per-conversation", "per-type", "per-destination")
RTT_S = 0.045
LINK_BPS = 1.5e6
WINDOW_BYTES = 8192
MSS_BYTES = 512
#: Conversations of each type alone, for Figure 2.
FIG2_COUNTS = {"ftp": [1, 2, 3, 4, 5], "nntp": [1, 2, 4, 8], "smtp": [1, 2, 4, 8], "telnet": [1, 4, 16]}


def buffer_cells(n_conversations: int, window_bytes: int = WINDOW_BYTES, mss: int = MSS_BYTES) -> int:
    """One round-trip window per conversation (§2.4), in cells of `mss`-byte segments."""
    per_segment = -(-(mss + 40 + 8) // 48)
    segments = -(-window_bytes // mss)
    return max(1, n_conversations) * segments * per_segment


def scenario(
    sources: list[str],
    policy: str,
    *,
    link_bps: float = LINK_BPS,
    duration_s: float = 4000 * RTT_S,
    warmup_s: float = 1000 * RTT_S,
    sample_interval_ms: float = 0.0,
    item_scale: float = 1.0,
) -> dict:
    """The §2.4 network with one source per entry of `sources` (app kinds: ftp, nntp, smtp, telnet).

    `item_scale` multiplies bulk item sizes (§7)."""
    if policy not in POLICIES:
        raise ValueError(f"unknown policy {policy!r}: expected one of {', '.join(POLICIES)}")
    buf = buffer_cells(len(sources))
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
                "window_bytes": WINDOW_BYTES,
                "mss_bytes": MSS_BYTES,
                "app": {"kind": kind} if kind == "telnet" or item_scale == 1.0 else {"kind": kind, "item_scale": item_scale},
            }
        )
    return doc


@dataclass
class Point:
    """Mean and 95% interval of one metric at one x."""

    x: float
    mean: float
    low: float
    high: float


def _ci(xs: list[float]) -> tuple[float, float, float]:
    ci = stats.mean_ci(xs)
    return ci.estimate, ci.low, ci.high


def _run(doc: dict, seed: int):
    return Scenario.from_dict(doc).run(seed=seed)


def _wan_utilisation(summary: dict) -> float:
    return next(p["utilization"] for p in summary["ports"] if p["name"] == "src-router->switch")


class Study:
    """Runs the experiments; `quick` shortens runs and uses fewer seeds and load points."""

    def __init__(self, full: bool, seed: int, progress=None):
        self.full = full
        self.seeds = list(range(seed, seed + (10 if full else 3)))
        rtts = 4000 if full else 1000
        self.duration_s = rtts * RTT_S
        self.warmup_s = self.duration_s / 4
        self.progress = progress
        self.done = 0
        self.total = 0

    def _tick(self, what: str) -> None:
        self.done += 1
        if self.progress:
            self.progress(self.done, self.total, what)

    def doc(self, sources: list[str], policy: str, **kw) -> dict:
        return scenario(sources, policy, duration_s=self.duration_s, warmup_s=self.warmup_s, **kw)

    def figure2(self) -> dict[str, list[Point]]:
        out: dict[str, list[Point]] = {}
        for kind, ns in FIG2_COUNTS.items():
            pts = []
            for n in ns:
                u = [_wan_utilisation(_run(self.doc([kind] * n, "per-conversation"), s).summary) for s in self.seeds]
                self._tick(f"fig2 {kind}x{n}")
                pts.append(Point(n, *_ci(u)))
            out[kind] = pts
        return out

    def figures3to5(self, max_ftp: int = 5, link_bps: float = LINK_BPS) -> dict[str, dict[str, list[Point]]]:
        res: dict[str, dict[str, list[Point]]] = {"delay": {}, "std": {}, "ftp": {}}
        for policy in POLICIES:
            for key in res:
                res[key][policy] = []
            for n in range(0, max_ftp + 1):
                delay, std, thr = [], [], []
                for s in self.seeds:
                    r = _run(self.doc(["telnet"] + ["ftp"] * n, policy, link_bps=link_bps), s).summary
                    tel = r["connections"][0]
                    if tel.get("echo_delay_samples", 0) > 1:
                        delay.append(tel["echo_delay_mean_s"] / RTT_S)
                        std.append(tel["echo_delay_std_s"] / RTT_S)
                    if n:
                        thr.append(sum(c["goodput_bps"] for c in r["connections"][1:]) / n / link_bps)
                self._tick(f"fig3-5 {policy} {n} ftp")
                if len(delay) > 1:
                    res["delay"][policy].append(Point(n, *_ci(delay)))
                    res["std"][policy].append(Point(n, *_ci(std)))
                if len(thr) > 1:
                    res["ftp"][policy].append(Point(n, *_ci(thr)))
        return res

    def fairness(self, item_scale: float = 1.0, n_ftp: int = 5) -> dict[str, dict]:
        """Five FTP conversations (and one TELNET) under each policy: Jain's index of the FTP
        goodputs, short-term (per 10-RTT interval, averaged) and over the whole measurement
        window, as means over seeds; the first seed's traces for Figures 6–9."""
        out: dict[str, dict] = {}
        for policy in POLICIES:
            short, whole, traces = [], [], None
            for s in self.seeds:
                doc = self.doc(["telnet"] + ["ftp"] * n_ftp, policy, sample_interval_ms=1000 * 10 * RTT_S, item_scale=item_scale)
                r = _run(doc, s)
                gp = r.trace("goodput_bps")
                ftp = gp[[c for c in gp.columns if c.startswith("conn:ftp")]]
                ftp = ftp[ftp.index > self.warmup_s]
                short.append(float(sum(stats.jain(row) for row in ftp.values if row.sum() > 0) / max(1, sum(1 for row in ftp.values if row.sum() > 0))))
                whole.append(stats.jain([c["goodput_bps"] for c in r.summary["connections"][1:]]))
                if traces is None:
                    # The sender's usable window: min(cwnd, the 8 kB receiver window).
                    traces = {"throughput": ftp / LINK_BPS, "cwnd": r.trace("cwnd_bytes")[["conn:ftp1"]].clip(upper=WINDOW_BYTES)}
            self._tick(f"fairness {policy} x{item_scale:g}")
            out[policy] = {"short": stats.mean_ci(short), "whole": stats.mean_ci(whole), **traces}
        return out


def _plot_points(series: dict[str, list[Point]], xlabel: str, ylabel: str, title: str, path: Path) -> Path:
    return plot_ci_lines({k: [(p.x, p.mean, p.low, p.high) for p in v] for k, v in series.items()}, xlabel, ylabel, title, path)


def _plot_frame(frame, ylabel: str, title: str, path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    for col in frame.columns:
        ax.plot(frame.index, frame[col], drawstyle="steps-post", label=col.removeprefix("conn:"))
    ax.set_xlabel("simulated time [s]")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small")
    fig.tight_layout()
    return save_figure(fig, path, dpi=110)


def _verdict(ok: bool, text: str) -> str:
    return f"<p><b>{'agrees' if ok else 'differs'}</b>: {html.escape(text)}</p>"


def _ci_text(ci) -> str:
    return f"{ci.estimate:.3f} [{ci.low:.3f}, {ci.high:.3f}]"


def run(out_dir: str | Path, full: bool = False, seed: int = 1, progress=None) -> Path:
    """Run the study and write ``report.html`` into ``out_dir``."""
    out = Path(out_dir)
    t0 = time.perf_counter()
    st = Study(full, seed, progress)
    st.total = sum(len(v) for v in FIG2_COUNTS.values()) + 3 * 6 + 3 + 3 * 11 + 3
    f2 = st.figure2()
    f35 = st.figures3to5()
    fair = st.fairness()
    s6 = st.figures3to5(max_ftp=10, link_bps=2 * LINK_BPS)
    s7 = st.fairness(item_scale=4.0)
    elapsed = time.perf_counter() - t0
    parts = [
        "<p>The §2.4 network: sources behind one edge router, sinks behind another, one switch; 1.5 Mb/s "
        "links, 22.5 ms router→switch delay (45 ms RTT), 8 kB windows, 512-byte segments, buffers of one "
        "round-trip window per conversation, 1.5 Mb/s access links, tcplib FTP/NNTP/SMTP/TELNET sources "
        f"starting a new conversation as soon as the previous ends. Runs of {st.duration_s / RTT_S:.0f} RTTs, the "
        f"first quarter discarded; {len(st.seeds)} seeds per point; 95% Student-t intervals.</p>"
    ]
    fig = _plot_points(
        dict(f2), "concurrent conversations", "bottleneck utilisation",
        "Fig. 2: load of each traffic type (per-conversation channels)", figure_path(out, "fig2.png"),
    )
    ftp_sat = next((p.x for p in f2["ftp"] if p.mean > 0.9), None)
    parts.append(f'<h2>Figure 2 — network load by traffic type</h2><p><img src="{fig.name}"></p>')
    parts.append(_verdict(ftp_sat is not None and 3 <= ftp_sat <= 4,
        f"paper: FTP saturates the link with 3–4 conversations, TELNET leaves it mostly idle, SMTP and NNTP in between; "
        f"atmsim: utilisation first above 0.9 at {ftp_sat} FTP conversations; 16 TELNET: {f2['telnet'][-1].mean:.3f}; "
        f"8 NNTP: {f2['nntp'][-1].mean:.2f}; 8 SMTP: {f2['smtp'][-1].mean:.2f}."))
    fig3 = _plot_points(f35["delay"], "concurrent FTP conversations", "TELNET echo delay [RTT]", "Fig. 3: interactive delay", figure_path(out, "fig3.png"))
    fig4 = _plot_points(f35["std"], "concurrent FTP conversations", "std. dev. of echo delay [RTT]", "Fig. 4: variability of interactive delay", figure_path(out, "fig4.png"))
    fig5 = _plot_points(f35["ftp"], "concurrent FTP conversations", "mean FTP throughput / link speed", "Fig. 5: bulk transfer throughput", figure_path(out, "fig5.png"))
    last = {p: f35["delay"][p][-1].mean for p in POLICIES}
    lstd = {p: f35["std"][p][-1].mean for p in POLICIES}
    parts.append(f'<h2>Figures 3–4 — interactive delay</h2><p><img src="{fig3.name}"><img src="{fig4.name}"></p>')
    parts.append(_verdict(
        last["per-destination"] > 1.5 * max(last["per-conversation"], last["per-type"]) and max(last["per-conversation"], last["per-type"]) < 1.5,
        "paper: delay and its variability stay near 1 RTT and 0 under per-conversation and per-type channels and grow steeply "
        "under per-destination channels; atmsim at 5 FTP: " + ", ".join(f"{p} {last[p]:.2f} RTT (std {lstd[p]:.2f})" for p in POLICIES),
    ))
    parts.append(f'<h2>Figure 5 — bulk transfer throughput</h2><p><img src="{fig5.name}"></p>')
    thr5 = {p: f35["ftp"][p][-1].mean for p in POLICIES}
    spread = max(thr5.values()) - min(thr5.values())
    parts.append(_verdict(spread < 0.1 * max(thr5.values()), "paper: average FTP throughput degrades equally under all three policies; atmsim at 5 FTP (fraction of the link): " + ", ".join(f"{p} {v:.3f}" for p, v in thr5.items())))
    for policy, figno in (("per-conversation", "6"), ("per-destination", "7")):
        fig = _plot_frame(fair[policy]["throughput"], "throughput / link speed", f"Fig. {figno}: five FTP conversations, {policy}", figure_path(out, f"fig{figno}.png"))
        parts.append(f'<h2>Figure {figno} — FTP fairness, {policy} channels</h2><p><img src="{fig.name}"></p>')
    rows = "".join(f"<tr><td>{p}</td><td>{_ci_text(fair[p]['short'])}</td><td>{_ci_text(fair[p]['whole'])}</td></tr>" for p in POLICIES)
    parts.append(f"<table><tr><th>policy</th><th>Jain index per 10-RTT interval</th><th>Jain index over the run</th></tr>{rows}</table>")
    sj = {p: fair[p]["short"].estimate for p in POLICIES}
    parts.append(_verdict(sj["per-conversation"] > max(sj["per-type"], sj["per-destination"]) + 0.05 and fair["per-conversation"]["whole"].estimate > 0.95,
        "paper: per-conversation channels give each FTP conversation the same throughput; per-type and per-destination channels make winners and losers that change over time"))
    for policy, figno in (("per-conversation", "8"), ("per-destination", "9")):
        fig = _plot_frame(fair[policy]["cwnd"], "window min(cwnd, 8 kB) [bytes]", f"Fig. {figno}: an FTP source's window, {policy}", figure_path(out, f"fig{figno}.png"))
        parts.append(f'<h2>Figure {figno} — TCP window, {policy} channels</h2><p><img src="{fig.name}"></p>')
    parts.append("<p>Paper (§5.3): under per-conversation channels windows grow to the maximum and stay; under shared channels they often shrink to the minimum.</p>")
    fig6a = _plot_points(s6["delay"], "concurrent FTP conversations", "TELNET echo delay [RTT]", "§6: interactive delay with 3 Mb/s links", figure_path(out, "s6_delay.png"))
    fig6b = _plot_points(s6["ftp"], "concurrent FTP conversations", "mean FTP throughput / link speed", "§6: bulk throughput with 3 Mb/s links", figure_path(out, "s6_ftp.png"))
    l6 = {p: s6["delay"][p][-1].mean for p in POLICIES}
    parts.append(f'<h2>§6 — sensitivity to link speed (3 Mb/s, up to 10 FTP)</h2><p><img src="{fig6a.name}"><img src="{fig6b.name}"></p>')
    parts.append(_verdict(l6["per-destination"] > 1.5 * max(l6["per-conversation"], l6["per-type"]),
        "paper: the same phenomena with a correspondingly higher number of conversations; atmsim at 10 FTP: " + ", ".join(f"{p} {v:.2f} RTT" for p, v in l6.items())))
    rows = "".join(f"<tr><td>{p}</td><td>{_ci_text(fair[p]['short'])}</td><td>{_ci_text(s7[p]['short'])}</td></tr>" for p in POLICIES)
    parts.append(f"<h2>§7 — sensitivity to bulk transfer size (FTP items ×4)</h2><table><tr><th>policy</th><th>short-term Jain, tcplib sizes</th><th>short-term Jain, items ×4</th></tr>{rows}</table>")
    s7j = {p: s7[p]["short"].estimate for p in POLICIES}
    parts.append(_verdict(s7j["per-conversation"] > max(s7j["per-type"], s7j["per-destination"]) + 0.05,
        "paper: per-conversation channels stay fair with larger bulk transfers; atmsim: per-conversation "
        f"{s7j['per-conversation']:.3f} against per-type {s7j['per-type']:.3f} and per-destination {s7j['per-destination']:.3f}."))
    worse = all(s7j[p] < sj[p] for p in ("per-type", "per-destination"))
    parts.append(_verdict(worse,
        "paper: with larger transfers unfairness under shared channels worsened; atmsim's short-term Jain index of the shared "
        f"channels goes from {sj['per-type']:.3f}/{sj['per-destination']:.3f} to {s7j['per-type']:.3f}/{s7j['per-destination']:.3f} "
        "(per-type/per-destination). We scale tcplib's FTP item sizes by 4 instead of removing the paper's 74-byte anomaly "
        "(the published tables do not let us locate it); longer items also remove many of the pauses that make short-term "
        "shares uneven, which may explain the difference."))
    parts.append(f"<p class='meta'>mode: {'full' if full else 'quick'}; seeds {st.seeds}; {elapsed:.1f} s wall.</p>")
    return write_report(out, "Cáceres 1993 — multiplexing TCP over wide-area ATM (atmsim reproduction)", "".join(parts))
