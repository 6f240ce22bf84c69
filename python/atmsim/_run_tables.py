"""The tables `atmsim run` prints: what a run's summary says about its load, queues and losses.

Owns :func:`print_summary` and one function per table, each returning a rich ``Table`` or
``None`` when the scenario has nothing of that kind:

* connections — goodput, retransmitted segments, timeouts;
* udp flows — datagrams sent and delivered, loss, lateness, delay;
* cell sources — the cell rate each put on its link, its offered load, goodput;
* traffic — per generator: conversations started, completed, aborted, skipped, open, and
  their duration (median, 90th percentile);
* ABR end systems — PCR, ACR, RM cells;
* ports — rate, utilisation, mean and max queue, cells dropped and the loss ratio; ports that
  carried no cell are left out (a caption counts them);
* lines — serial lines and LANs: rate, utilisation, datagrams sent and dropped, loss; idle
  ones are left out the same way;
* nodes — routers and IP-over-ATM drivers with work beyond declared PVCs.

Numbers are printed with :data:`DIGITS` significant figures, a whole column in one notation
(:func:`column`): fixed-point, or scientific for a column that holds a value of 1e6 or more.
Rates are in Mb/s, utilisation and loss in per cent, delays in ms. rich is imported on first
use, so `atmsim run --quiet` never loads it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeGuard

from ._scenario import printable

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

    from ._run_results import Results

__all__ = [
    "DIGITS",
    "abr_table",
    "column",
    "connections_table",
    "lines_table",
    "nodes_table",
    "ports_table",
    "print_summary",
    "sources_table",
    "traffic_table",
    "udp_table",
]

DIGITS = 4
"""Significant figures of every non-integer number in the tables."""

MISSING = "—"


def _number(v: Any) -> TypeGuard[int | float]:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


def _fixed(v: float, digits: int) -> str:
    if v == 0:
        return "0"
    decimals = max(0, digits - 1 - math.floor(math.log10(abs(v))))
    text = f"{v:.{decimals}f}"
    # Rounding may carry into a new digit (9.9996 -> 10.000): drop the extra decimal.
    return f"{v:.{decimals - 1}f}" if decimals and len(text.lstrip("-").replace(".", "").lstrip("0")) > digits else text


SMALLEST = 1e-4
"""Non-zero magnitudes below this print as "<0.0001" (a queue of 1e-7 cells, a loss of one
cell in ten million in per cent): the exact counts are in their own columns."""


def column(values: Sequence[Any], digits: int = DIGITS) -> list[str]:
    """Format one column: integers as they are; other numbers with ``digits`` significant
    figures in fixed-point, or all in scientific notation if one of them reaches 1e6;
    magnitudes below :data:`SMALLEST` as "<0.0001"; anything else (``None``) as "—"."""
    scientific = any(_number(v) and not isinstance(v, int) and abs(v) >= 1e6 for v in values)
    out = []
    for v in values:
        if not _number(v):
            out.append(MISSING)
        elif isinstance(v, int):
            out.append(str(v))
        elif v == 0:
            out.append("0")
        elif scientific:
            out.append(f"{v:.{digits - 1}e}")
        elif abs(v) < SMALLEST:
            out.append(f"{'-' if v < 0 else ''}<{SMALLEST:.4f}")
        else:
            out.append(_fixed(v, digits))
    return out


def _scaled(v: Any, scale: float) -> Any:
    return v * scale if _number(v) else None


def _ratio(num: Any, den: Any) -> float | None:
    """``num / den`` as a float, ``None`` without a positive denominator."""
    return float(num) / den if _number(num) and _number(den) and den > 0 else None


Column = tuple[str, Callable[[Mapping[str, Any]], Any]]
"""A column: its heading and how to compute its value from a row of the summary."""


def _key(name: str, scale: float = 1.0) -> Callable[[Mapping[str, Any]], Any]:
    return lambda row: _scaled(row.get(name), scale) if scale != 1.0 else row.get(name)


MBPS = 1e-6
PERCENT = 100.0


def _build(title: str, rows: Sequence[Mapping[str, Any]], columns: Sequence[Column], caption: str | None = None) -> Table:
    """A table with a name column, then ``columns`` (text left, numbers right), each column
    formatted as a whole by :func:`column`."""
    from rich.table import Table
    from rich.text import Text

    table = Table(title=title, title_justify="left", caption=caption, caption_justify="left")
    table.add_column("name", overflow="fold")  # names are never cut to "…"
    cells: list[list[str]] = []
    for heading, get in columns:
        values = [get(row) for row in rows]
        numeric = all(v is None or _number(v) for v in values)
        table.add_column(heading, justify="right" if numeric else "left")
        cells.append(column(values) if numeric else [MISSING if v is None else printable(str(v)) for v in values])
    for i, row in enumerate(rows):
        # Text: names and values are printed as they are, never read as rich markup.
        table.add_row(Text(printable(str(row.get("name", "?")))), *(Text(c[i]) for c in cells))
    return table


def _rows(summary: Mapping[str, Any], key: str) -> list[Mapping[str, Any]]:
    rows = summary.get(key)
    return [r for r in rows if isinstance(r, Mapping)] if isinstance(rows, list) else []


def connections_table(summary: Mapping[str, Any]) -> Table | None:
    """Per TCP connection: goodput, retransmitted segments and timeouts."""
    rows = _rows(summary, "connections")
    if not rows:
        return None
    columns: list[Column] = [("goodput Mb/s", _key("goodput_bps", MBPS))]
    for key, heading in (("rexmt_segs", "retransmitted segs"), ("retransmissions", "retransmissions"),
                         ("timeouts", "timeouts"), ("fast_retransmits", "fast retransmits")):
        if any(key in r for r in rows):
            columns.append((heading, _key(key)))
    return _build("connections", rows, columns)


def udp_table(summary: Mapping[str, Any]) -> Table | None:
    """Per UDP flow: datagrams sent and delivered, loss, lateness, delay."""
    rows = _rows(summary, "udp")
    if not rows:
        return None
    return _build("udp flows", rows, [
        ("sent", _key("sent")),
        ("delivered", _key("delivered")),
        ("loss %", _key("loss_rate", PERCENT)),
        ("late", _key("late")),
        ("mean delay ms", _key("delay_mean_s", 1e3)),
        ("max delay ms", _key("delay_max_s", 1e3)),
    ])


def sources_table(summary: Mapping[str, Any]) -> Table | None:
    """Per cell source: kind, the cell rate it put on its link (``sent_cell_bps``, never above
    the link's rate), its offered load (none for a greedy source) and goodput."""
    rows = _rows(summary, "sources")
    if not rows:
        return None
    return _build("cell sources", rows, [
        ("kind", _key("kind")),
        ("sent Mb/s", _key("sent_cell_bps", MBPS)),
        ("offered Mb/s", _key("offered_cell_bps", MBPS)),
        ("goodput Mb/s", _key("goodput_bps", MBPS)),
    ])


def traffic_table(summary: Mapping[str, Any]) -> Table | None:
    """Per traffic generator: its conversations and how long they took."""
    rows = _rows(summary, "traffic")
    if not rows:
        return None
    return _build("traffic", rows, [
        ("app", _key("group")),
        ("started", _key("started")),
        ("completed", _key("completed")),
        ("aborted", _key("aborted")),
        ("skipped", _key("skipped")),
        ("open at end", _key("open_at_end")),
        ("max open", _key("max_open")),
        ("median s", _key("duration_median_s")),
        ("90th pct s", _key("duration_p90_s")),
    ])


def abr_table(summary: Mapping[str, Any]) -> Table | None:
    """Per ABR end system (``summary["abr"]["ends"]``): PCR, final ACR, when it last changed,
    RM cells sent, and the largest IP queue of data."""
    abr = summary.get("abr")
    rows = _rows(abr, "ends") if isinstance(abr, Mapping) else []
    if not rows:
        return None
    return _build("ABR end systems", rows, [
        ("PCR Mb/s", _key("pcr_bps", MBPS)),
        ("ACR Mb/s", _key("acr_bps", MBPS)),
        ("ACR settled s", _key("acr_last_change_s")),
        ("forward RM", _key("forward_rm")),
        ("backward RM", _key("backward_rm_sent")),
        ("max IP queue (data)", _key("max_ip_queue_data")),
    ])


def _idle_caption(idle: int, what: str) -> str | None:
    return f"{idle} {what} carried nothing (not shown)" if idle else None


def ports_table(summary: Mapping[str, Any]) -> Table | None:
    """Per ATM port that carried cells: rate, utilisation, mean and max queue, cells dropped
    and their share of the cells that reached the port."""
    rows = _rows(summary, "ports")
    busy = [r for r in rows if any(_number(r.get(k)) and r.get(k) for k in ("cells_in", "cells_tx", "drops"))]
    if not busy:
        return None
    return _build("ports", busy, [
        ("rate Mb/s", _key("rate_bps", MBPS)),
        ("utilisation %", _key("utilization", PERCENT)),
        ("mean queue", _key("mean_queue_cells")),
        ("max queue", _key("max_queue_cells")),
        ("dropped", _key("drops")),
        ("loss %", lambda r: _scaled(_ratio(r.get("drops"), r.get("cells_in")), PERCENT)),
    ], caption=_idle_caption(len(rows) - len(busy), "ports"))


def lines_table(summary: Mapping[str, Any]) -> Table | None:
    """Per serial-line direction and LAN that carried datagrams: load and drops."""
    rows = _rows(summary, "lines")
    busy = [r for r in rows if any(_number(r.get(k)) and r.get(k) for k in ("sent", "dropped", "queued_at_end"))]
    if not busy:
        return None

    def loss(r: Mapping[str, Any]) -> float | None:
        sent, dropped = r.get("sent"), r.get("dropped")
        if not (_number(sent) and _number(dropped)):
            return None
        return _scaled(_ratio(dropped, sent + dropped), PERCENT)

    return _build("lines", busy, [
        ("kind", _key("kind")),
        ("rate Mb/s", _key("rate_bps", MBPS)),
        ("utilisation %", _key("utilization", PERCENT)),
        ("sent", _key("sent")),
        ("dropped", _key("dropped")),
        ("loss %", loss),
    ], caption=_idle_caption(len(rows) - len(busy), "lines"))


_NODE_LABELS = {
    "router": "router",
    "forwarded": "forwarded",
    "no_route": "no route",
    "mux": "mux",
    "vc": "vc",
    "setups_requested": "setups",
    "cache_hits": "cache hits",
    "setups_failed": "failed",
    "teardowns": "teardowns",
    "datagrams_dropped": "no-VC drops",
    "vcs_in_use": "VCs",
}


def nodes_table(summary: Mapping[str, Any]) -> Table | None:
    """Routers, and hosts whose IP or IP-over-ATM driver had work beyond declared PVCs:
    forwarding and the driver's VC counters (:func:`atmsim._run_results.internetwork_nodes`)."""
    from ._run_results import internetwork_nodes

    rows = internetwork_nodes(summary)
    if not rows:
        return None
    for row in rows:
        row["router"] = "yes" if row["router"] else "no"
    return _build("nodes", rows, [(label, _key(k)) for k, label in _NODE_LABELS.items()])


TABLES = (connections_table, udp_table, sources_table, traffic_table, abr_table, ports_table, lines_table, nodes_table)
"""Every table, in the order :func:`print_summary` prints them."""


def print_summary(results: Results, console: Console) -> None:
    """Print the run's header line and every table its scenario has (:data:`TABLES`)."""
    from rich.text import Text

    s = results.summary
    duration, warmup = (f"{v:g}" if _number(v) else "?" for v in (s.get("duration_s"), s.get("warmup_s")))
    header = Text()
    header.append(printable(str(s.get("scenario", "?"))), style="bold")
    header.append(f"  seed {s.get('seed', '?')}  duration {duration} s  warmup {warmup} s")
    console.print(header, highlight=False)
    for make in TABLES:
        table = make(s)
        if table is not None:
            console.print(table)
