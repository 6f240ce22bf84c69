"""Figures and an HTML page for one run: TCP windows, goodput and queues over time.

Owns :func:`write_run_report`, used by ``atmsim run`` (unless ``--no-plot``). The page opens
with a picture of the scenario's network (:mod:`atmsim._topology`, inline SVG; only when the
results know their scenario). Figures are PNG files beside ``report.html`` in the run's
output directory; the page also tables the
per-connection, per-UDP-flow, per-source and per-port results, the serial lines and LANs,
the routers and IP-over-ATM drivers of an internetwork, and the conservation counts from
the summary. Tables of things the scenario does not have are left out.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._core import Metric
from ._report import figure_path, pyplot, save_figure, write_report
from ._run_results import Results, internetwork_nodes
from ._topology import topology_svg

if TYPE_CHECKING:
    import pandas as pd


def _line_plot(frames: list[tuple[pd.DataFrame, str]], ylabel: str, title: str, path: Path, scale: float = 1.0) -> Path:
    fig, ax = pyplot().subplots(figsize=(7.0, 3.6))
    colors: dict[str, str] = {}
    for k, (frame, style) in enumerate(frames):
        for col in frame.columns:
            color = colors.setdefault(col, f"C{len(colors) % 10}")
            label = col if k == 0 else None  # one legend entry per entity; styles are in the label
            ax.plot(frame.index, frame[col] * scale, style, color=color, drawstyle="steps-post", label=label)
    ax.set_xlabel("simulated time [s]")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    if len(colors) <= 12:
        ax.legend(fontsize="small")
    fig.tight_layout()
    return save_figure(fig, path, 110)


def _table(rows: Sequence[Mapping[str, Any]], columns: list[tuple[str, str, str]]) -> str:
    head = "".join(f"<th>{html.escape(label)}</th>" for _, label, _ in columns)
    body = ""
    for row in rows:
        cells = []
        for key, _, fmt in columns:
            v = row.get(key)
            text = "—" if v is None else format(v, fmt) if isinstance(v, int | float) and fmt else str(v)
            cells.append(f"<td>{html.escape(text)}</td>")
        body += "<tr>" + "".join(cells) + "</tr>"
    return f"<table><tr>{head}</tr>{body}</table>"


def _conservation_rows(cons: object) -> list[dict]:
    """One row per counter of ``summary["conservation"]`` (``{"cells": {...}, "frames": {...}}``)."""
    if not isinstance(cons, dict):
        return []
    rows = []
    for group, counters in cons.items():
        if not isinstance(counters, dict):
            counters = {"": counters}
        for i, (name, value) in enumerate(counters.items()):
            if isinstance(value, bool):
                value = "yes" if value else "NO"
            rows.append({"group": group if i == 0 else "", "counter": str(name), "value": value})
    return rows


def write_run_report(results: Results, out_dir: str | Path) -> Path:
    """Write PNG figures and ``report.html`` for ``results`` into ``out_dir``."""
    out = Path(out_dir)
    s = results.summary
    parts = []
    figs = []
    # No samples: no figures, and neither pandas nor matplotlib is imported.
    metrics = set(results.series["metric"].unique()) if results.samples else set()
    if Metric.CWND_BYTES in metrics:
        cwnd = results.trace(Metric.CWND_BYTES)
        ssthresh = results.trace(Metric.SSTHRESH_BYTES).clip(upper=cwnd.max().max() * 2 if len(cwnd) else None)
        figs.append(_line_plot([(cwnd, "-"), (ssthresh, ":")], "bytes (— cwnd, ··· ssthresh)", "TCP congestion window", figure_path(out, "cwnd.png")))
    if Metric.GOODPUT_BPS in metrics:
        figs.append(_line_plot([(results.trace(Metric.GOODPUT_BPS), "-")], "goodput [Mb/s]", "Goodput per sample interval",
                               figure_path(out, "goodput.png"), 1e-6))
    if Metric.QUEUE_CELLS in metrics:
        q = results.trace(Metric.QUEUE_CELLS)
        q = q.loc[:, q.max() > 0]
        if len(q.columns):
            figs.append(_line_plot([(q, "-")], "queue [cells]", "Output queues (ports that ever queued)", figure_path(out, "queues.png")))
    if results.scenario is not None:
        svg = topology_svg(results.scenario.doc, s)
        if svg is not None:
            parts.append(f"<h2>Topology</h2><figure>{svg}</figure>")
    parts.append(
        "<h2>Connections</h2>"
        + _table(
            s.get("connections", []),
            [("name", "name", ""), ("goodput_bps", "goodput [b/s]", ".4g"), ("rexmt_segs", "retransmitted segs", ""),
             ("timeouts", "timeouts", ""), ("fast_retransmits", "fast retransmits", ""), ("dup_acks_rcvd", "dup ACKs", "")],
        )
    )
    if s.get("udp"):
        parts.append(
            "<h2>UDP flows</h2>"
            + _table(
                s["udp"],
                [("name", "name", ""), ("from", "from", ""), ("to", "to", ""), ("sent", "sent", ""),
                 ("delivered", "delivered", ""), ("loss_rate", "loss rate", ".4g"), ("late", "late", ""),
                 ("delay_mean_s", "mean delay [s]", ".4g"), ("delay_max_s", "max delay [s]", ".4g")],
            )
        )
    if s.get("sources"):
        parts.append(
            "<h2>Cell sources</h2>"
            + _table(
                s["sources"],
                [("name", "name", ""), ("kind", "kind", ""), ("goodput_bps", "goodput [b/s]", ".4g"),
                 ("sent_cell_bps", "sent [cell b/s]", ".4g"), ("offered_cell_bps", "offered [cell b/s]", ".4g"),
                 ("cells_sent", "cells to the adapter", ""),
                 ("frames_sent", "frames sent", ""), ("frames_rcvd", "frames received", "")],
            )
        )
    parts.append(
        "<h2>Ports</h2>"
        + _table(
            s.get("ports", []),
            [("name", "port", ""), ("utilization", "utilisation", ".3f"), ("cells_tx", "cells sent", ""),
             ("drops", "cells dropped", ""), ("max_queue_cells", "max queue", ""), ("mean_queue_cells", "mean queue", ".2f")],
        )
    )
    if s.get("lines"):
        parts.append(
            "<h2>Serial lines and LANs</h2>"
            + _table(
                s["lines"],
                [("name", "line", ""), ("kind", "kind", ""), ("rate_bps", "rate [b/s]", ".4g"),
                 ("utilization", "utilisation", ".3f"), ("sent", "datagrams sent", ""), ("dropped", "dropped", ""),
                 ("queued_at_end", "queued at end", "")],
            )
        )
    nodes = internetwork_nodes(s)
    if nodes:
        for row in nodes:
            row["router"] = "yes" if row["router"] else "no"
        parts.append(
            "<h2>Routers and IP-over-ATM drivers</h2>"
            + _table(
                nodes,
                [("name", "node", ""), ("router", "router", ""), ("forwarded", "forwarded", ""),
                 ("no_route", "no route", ""), ("mux", "mux", ""), ("vc", "vc", ""),
                 ("setups_requested", "setups", ""), ("cache_hits", "cache hits", ""),
                 ("setups_failed", "setups failed", ""), ("teardowns", "teardowns", ""),
                 ("datagrams_dropped", "dropped (no VC)", ""), ("vcs_in_use", "VCs in use", "")],
            )
        )
    parts += [f'<p><img src="{f.name}" alt="{f.stem}"></p>' for f in figs]
    cons = _conservation_rows(s.get("conservation"))
    if cons:
        parts.append("<h2>Conservation</h2>" + _table(cons, [("group", "", ""), ("counter", "counter", ""), ("value", "count", "")]))
    title = f"atmsim run — {s.get('scenario', '?')} (seed {s.get('seed', '?')}, {s.get('duration_s', '?')} s)"
    return write_report(out, title, "".join(parts))
