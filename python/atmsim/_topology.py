"""A picture of a scenario's network for the run report: nodes, links with rate and delay, VCs.

Owns :func:`topology` (the graph a scenario document describes) and :func:`topology_svg`
(that graph drawn as an SVG element, text and lines written by hand: no plotting library is
imported, so a run report costs nothing to draw).

What is drawn, from the scenario document as written (before the core expands sites):

* a box per ``[[host]]``, ``[[switch]]`` and ``[[router]]``; a box per ``[[site]]`` standing
  for its router, LAN, workstations and servers (their numbers in the box); a box per
  ``[[lan]]``, joined to each member;
* a line per ``[[link]]``, ``[[serial]]`` and site uplink, labelled with its name, rate and
  one-way delay. The rate is the one the run's ports or lines report (``summary["ports"]``,
  named ``a->b``; ``summary["lines"]``) when given, else the document's ``rate_bps`` or
  ``preset``;
* each ``[[vc]]`` as a line of text below the drawing: its name and path.

Layout (by hand, in layers): the core of the network — boxes with more than one line —
in columns by hop count from one of its ends, so a chain or a dumbbell reads left to right;
each leaf (a host, a site) one column outside its neighbour; mirrored if need be so that the
document's first box is on the left; within a column, boxes ordered by the mean row of their
neighbours to the left, and each column centred on the tallest. A scenario of more than
:data:`MAX_NODES` boxes is not drawn (:func:`topology_svg` returns ``None``).
"""

from __future__ import annotations

import html
from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["MAX_NODES", "Edge", "Graph", "topology", "topology_svg"]

MAX_NODES = 120
"""Largest number of boxes drawn; beyond it the picture would not be readable."""

PRESET_BPS = {"t1": 1.536e6, "ds3": 40.704e6, "taxi100": 100e6, "oc3c": 149.76e6, "oc12c": 599.04e6}
"""Cell rates of the link presets (docs/scenario.md, ``[[link]]``)."""

COLUMN_PX, ROW_PX, BOX_W, BOX_H, MARGIN = 270, 70, 150, 36, 24
VC_LINE_PX = 16
MAX_VC_LINES = 40


@dataclass
class Edge:
    """A line between two boxes: a link, serial line, site uplink or LAN membership."""

    a: str
    b: str
    name: str
    label: str  # rate and delay, "" for a LAN membership


@dataclass
class Graph:
    """Boxes (name -> (kind, detail)), lines and VC paths of one scenario."""

    nodes: dict[str, tuple[str, str]] = field(default_factory=dict)
    edges: list[Edge] = field(default_factory=list)
    vcs: list[tuple[str, list[str]]] = field(default_factory=list)


def _mbps(bps: float) -> str:
    return f"{bps / 1e6:.4g} Mb/s"


def _tables(doc: Mapping[str, Any], key: str) -> list[Mapping[str, Any]]:
    entries = doc.get(key)
    return [e for e in entries if isinstance(e, Mapping)] if isinstance(entries, list) else []


def _rate(entry: Mapping[str, Any], measured: float | None, preset_key: str = "preset", rate_key: str = "rate_bps") -> str:
    if isinstance(measured, int | float):
        return _mbps(measured)
    if isinstance(entry.get(rate_key), int | float):
        return _mbps(entry[rate_key])
    preset = entry.get(preset_key)
    return _mbps(PRESET_BPS[preset]) if preset in PRESET_BPS else str(preset or "?")


def _delay(ms: Any) -> str:
    return f"{ms:g} ms" if isinstance(ms, int | float) else "0 ms"


def _measured_rates(summary: Mapping[str, Any] | None) -> dict[str, float]:
    """Rate by port or line name (``a->b``, ``serial:a->b``) from a run's summary."""
    rates: dict[str, float] = {}
    for key in ("ports", "lines"):
        for row in _tables(summary or {}, key):
            if isinstance(row.get("name"), str) and isinstance(row.get("rate_bps"), int | float):
                rates[row["name"]] = float(row["rate_bps"])
    return rates


def topology(doc: Mapping[str, Any], summary: Mapping[str, Any] | None = None) -> Graph:
    """The boxes, lines and VCs of scenario document ``doc`` (rates from ``summary`` where
    it reports them)."""
    g = Graph()
    rates = _measured_rates(summary)
    for key in ("host", "switch", "router"):
        for e in _tables(doc, key):
            g.nodes[str(e.get("name", "?"))] = (key, "")
    for e in _tables(doc, "site"):
        name = str(e.get("name", "?"))
        g.nodes[name] = ("site", f"{e.get('workstations', 0)} ws, {e.get('servers', 0)} srv, router")
        if e.get("attach") is not None:
            rate = _rate(e, rates.get(f"{name}-router->{e['attach']}"), "link_preset", "link_rate_bps")
            g.edges.append(Edge(name, str(e["attach"]), f"{name}-uplink", f"{rate}, {_delay(e.get('link_delay_ms'))}"))
    for e in _tables(doc, "link"):
        a, b = str(e.get("a", "?")), str(e.get("b", "?"))
        label = f"{_rate(e, rates.get(f'{a}->{b}'))}, {_delay(e.get('delay_ms'))}"
        g.edges.append(Edge(a, b, str(e.get("name") or f"{a}-{b}"), label))
    for e in _tables(doc, "serial"):
        a, b = str(e.get("a", "?")), str(e.get("b", "?"))
        name = str(e.get("name") or f"{a}-{b}")
        label = f"serial {_rate(e, rates.get(f'{name}:{a}->{b}'))}, {_delay(e.get('delay_ms'))}"
        g.edges.append(Edge(a, b, name, label))
    for e in _tables(doc, "lan"):
        name = str(e.get("name", "?"))
        g.nodes[name] = ("lan", f"{_rate(e, rates.get(name))}, {_delay(e.get('delay_ms', 0.01))}")
        members = e.get("members")
        g.edges += [Edge(str(m), name, "", "") for m in (members if isinstance(members, list) else [])]
    for edge in g.edges:  # a line to a node the document does not declare still gets a box
        for end in (edge.a, edge.b):
            g.nodes.setdefault(end, ("?", ""))
    for e in _tables(doc, "vc"):
        path = e.get("path")
        g.vcs.append((str(e.get("name", "?")), [str(p) for p in (path if isinstance(path, list) else [])]))
    return g


def _neighbours(g: Graph) -> dict[str, list[str]]:
    adj: dict[str, list[str]] = {n: [] for n in g.nodes}
    for e in g.edges:
        adj[e.a].append(e.b)
        adj[e.b].append(e.a)
    return adj


def _distances(adj: Mapping[str, list[str]], start: str, within: set[str]) -> dict[str, int]:
    """Hops from ``start`` to every node of ``within`` it reaches through ``within``."""
    dist = {start: 0}
    queue = deque([start])
    while queue:
        n = queue.popleft()
        for m in adj[n]:
            if m in within and m not in dist:
                dist[m] = dist[n] + 1
                queue.append(m)
    return dist


def _columns(g: Graph, adj: Mapping[str, list[str]]) -> dict[str, int]:
    """Column of every box. The core (boxes with more than one line) is laid out by hops from
    one of its ends, per connected part; each leaf (one line: a host, a site) goes one column
    outside its neighbour, to the left in the left half, to the right in the right half, and
    alternately at the middle."""
    core = {n for n in g.nodes if len(adj[n]) > 1} or set(g.nodes)
    column: dict[str, int] = {}
    for first in g.nodes:
        if first not in core or first in column:
            continue
        reach = _distances(adj, first, core)
        order = list(g.nodes)
        end = max(reach, key=lambda n: (reach[n], -order.index(n)))
        column.update(_distances(adj, end, core))
    middle = max(column.values(), default=0) / 2
    side = 1
    for n in g.nodes:
        if n in column:
            continue
        at = column.get(adj[n][0], 0) if adj[n] else 0
        if at == middle:
            side = -side
            column[n] = at + side
        else:
            column[n] = at - 1 if at < middle else at + 1
    low, high = min(column.values()), max(column.values())
    first = next(iter(g.nodes))  # the first box of the document goes in the left half
    mirror = column[first] - low > (high - low) / 2
    return {n: high - c if mirror else c - low for n, c in column.items()}


def _layout(g: Graph) -> dict[str, tuple[int, int]]:
    """(column, row) of every box: columns by :func:`_columns`; within a column, boxes in the
    order of the mean row of their neighbours in the columns to the left (document order
    among equals)."""
    adj = _neighbours(g)
    column = _columns(g, adj)
    by_column: dict[int, list[str]] = {}
    for n in g.nodes:
        by_column.setdefault(column[n], []).append(n)
    place: dict[str, tuple[int, int]] = {}
    for c in sorted(by_column):
        def mean_row(n: str) -> float:
            left = [place[m][1] for m in adj[n] if m in place]  # placed: the columns to the left
            return sum(left) / len(left) if left else 0.0

        for r, n in enumerate(sorted(by_column[c], key=mean_row)):
            place[n] = (c, r)
    # Rows in half steps: each column centred on the tallest.
    tallest = max(len(v) for v in by_column.values())
    return {n: (c, r * 2 + tallest - len(by_column[c])) for n, (c, r) in place.items()}


def _text(x: float, y: float, text: str, size: int = 12, anchor: str = "middle", extra: str = "") -> str:
    return (f'<text x="{x:.0f}" y="{y:.0f}" font-size="{size}" text-anchor="{anchor}"{extra}>'
            f"{html.escape(text)}</text>")


def _centre(cell: tuple[int, int]) -> tuple[float, float]:
    return MARGIN + cell[0] * COLUMN_PX + BOX_W / 2, MARGIN + cell[1] * ROW_PX / 2 + BOX_H / 2


_FILL = {"host": "#e8f0fe", "switch": "#fde8d0", "router": "#e6f4e6", "site": "#e6f4e6", "lan": "#f3e8fd"}


def _edge_svg(e: Edge, place: Mapping[str, tuple[int, int]]) -> Iterable[str]:
    (x1, y1), (x2, y2) = _centre(place[e.a]), _centre(place[e.b])
    yield f'<line x1="{x1:.0f}" y1="{y1:.0f}" x2="{x2:.0f}" y2="{y2:.0f}" stroke="#777" stroke-width="1.5"/>'
    if e.label:
        # In the middle of the gap between the two boxes' columns, on the line: lines fanning
        # out of one box are a row apart there, so their labels do not overlap.
        if x1 == x2:
            mx, my = x1, (y1 + y2) / 2
        else:
            mx = (x1 + x2) / 2
            my = y1 + (mx - x1) / (x2 - x1) * (y2 - y1)
        w = 5.6 * max(len(e.name), len(e.label)) + 6
        yield f'<rect x="{mx - w / 2:.0f}" y="{my - 15:.0f}" width="{w:.0f}" height="28" fill="white" opacity="0.85"/>'
        yield _text(mx, my - 3, e.name, 10, extra=' class="link"')
        yield _text(mx, my + 10, e.label, 10, extra=' fill="#333"')


def _node_svg(name: str, kind: str, detail: str, cell: tuple[int, int]) -> Iterable[str]:
    x, y = MARGIN + cell[0] * COLUMN_PX, MARGIN + cell[1] * ROW_PX / 2
    yield (f'<rect x="{x}" y="{y}" width="{BOX_W}" height="{BOX_H}" rx="6" fill="{_FILL.get(kind, "#eee")}" '
           'stroke="#444"/>')
    yield _text(x + BOX_W / 2, y + 15, name, 12, extra=' class="node"')
    yield _text(x + BOX_W / 2, y + 29, f"{kind}{': ' + detail if detail else ''}", 9, extra=' fill="#555"')


def topology_svg(doc: Mapping[str, Any], summary: Mapping[str, Any] | None = None) -> str | None:
    """An ``<svg>`` element picturing scenario ``doc`` (see the module docs), or ``None`` when
    it has no nodes or more than :data:`MAX_NODES`."""
    g = topology(doc, summary)
    if not g.nodes or len(g.nodes) > MAX_NODES:
        return None
    place = _layout(g)
    columns = 1 + max(c for c, _ in place.values())
    rows = 1 + max(r for _, r in place.values()) / 2
    vc_lines = [f"VC {name}: {' → '.join(path)}" for name, path in g.vcs[:MAX_VC_LINES]]
    if len(g.vcs) > MAX_VC_LINES:
        vc_lines.append(f"… and {len(g.vcs) - MAX_VC_LINES} more VCs")
    width = max(2 * MARGIN + (columns - 1) * COLUMN_PX + BOX_W, 360)
    drawing_h = round(2 * MARGIN + (rows - 1) * ROW_PX + BOX_H)
    height = drawing_h + VC_LINE_PX * len(vc_lines) + (MARGIN if vc_lines else 0)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" id="topology" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" font-family="sans-serif" role="img">',
             "<title>topology of the scenario: nodes, links with rate and one-way delay, VCs</title>"]
    for e in g.edges:
        parts += [ln for ln in _edge_svg(e, place) if ln.startswith("<line")]
    for e in g.edges:  # labels over every line
        parts += [ln for ln in _edge_svg(e, place) if not ln.startswith("<line")]
    for name, (kind, detail) in g.nodes.items():
        parts += _node_svg(name, kind, detail, place[name])
    for i, line in enumerate(vc_lines):
        parts.append(_text(MARGIN, drawing_h + i * VC_LINE_PX + 12, line, 11, anchor="start", extra=' class="vc"'))
    parts.append("</svg>")
    return "\n".join(parts)
