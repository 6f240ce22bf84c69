"""Build a scenario document from Python: one call per entry, names handed back for wiring.

A :class:`NetworkBuilder` collects the entries of a scenario document the way the TOML file lists
them (``[[switch]]``, ``[[link]]``, ``[[site]]``, ...) and turns them into a
:class:`~atmsim.Scenario` through :meth:`Scenario.from_dict <atmsim.Scenario.from_dict>`::

    from atmsim.builder import NetworkBuilder

    net = NetworkBuilder("tiny", duration_s=10.0)
    a, b = net.host("a"), net.host("b")
    sw = net.switch("sw", buffer_cells=256)
    net.link(a, sw, preset="t1", delay_ms=1.0)
    net.link(sw, b, preset="t1", delay_ms=1.0)
    net.vc("v", [a, sw, b])
    net.tcp("t", a, b, window_bytes=16384)
    results = net.run(seed=1)

Field names are the scenario file's own and pass through untouched (``docs/scenario.md``
is the reference for every one of them). The builder adds structure only: the positional
arguments (names, endpoints, paths) and two conveniences, nothing else:

- where a node name is expected, a :class:`Site` handle stands for its router;
- ``app="telnet"`` is short for ``app={"kind": "telnet"}``.

A field whose name is a Python keyword (``from`` of ``[[traffic]]``) is written with a
trailing underscore (``from_=[...]``). The builder checks nothing else: misspelt fields,
duplicate names, missing rates and impossible numbers are reported by the core, with the
dotted path of the entry as the builder made it (``link[3].rate_bps``), when
:meth:`NetworkBuilder.check`, :meth:`NetworkBuilder.scenario` followed by ``validate()``, or
:meth:`NetworkBuilder.run` is called.

Ready-made networks: :func:`mah_backbone` (the six-site internetwork of Mah's INSANE
studies) and :func:`dumbbell` (N bulk senders behind one bottleneck link).
"""

from __future__ import annotations

import copy
import keyword
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._scenario import ProgressArg, Scenario

if TYPE_CHECKING:
    from ._run_results import Results

__all__ = ["Backbone", "NetworkBuilder", "Site", "dumbbell", "mah_backbone"]

# The sections of a document that are lists of tables, in the order docs/scenario.md
# presents them; to_dict() writes them in this order.
_LISTS = (
    "host",
    "router",
    "switch",
    "link",
    "serial",
    "lan",
    "site",
    "vc",
    "tcp",
    "udp",
    "traffic",
    "cell_source",
    "capture",
)


@dataclass(frozen=True)
class Site:
    """A ``[[site]]`` entry, and the names the core gives what it expands into
    (``crates/atmsim-core/src/scenario/build/sites.rs``)."""

    name: str
    workstations: int
    servers: int
    attach: str | None = None

    @property
    def router(self) -> str:
        return f"{self.name}-router"

    @property
    def lan(self) -> str:
        return f"{self.name}-lan"

    @property
    def uplink(self) -> str:
        """The router's ATM link to the ``attach`` switch."""
        return f"{self.name}-uplink"

    def workstation(self, i: int = 0) -> str:
        return f"{self.name}-ws{i}"

    def server(self, j: int = 0) -> str:
        return f"{self.name}-srv{j}"

    @property
    def hosts(self) -> list[str]:
        """Every workstation, then every server."""
        return [self.workstation(i) for i in range(self.workstations)] + [
            self.server(j) for j in range(self.servers)
        ]


def _node(x: Any) -> Any:
    """A node name: a :class:`Site` stands for its router; anything else is passed on as is
    (the core refuses what is not a known name)."""
    return x.router if isinstance(x, Site) else x


def _fields(fields: Mapping[str, Any]) -> dict[str, Any]:
    """Keyword arguments as document fields: ``from_`` → ``from`` (Python keywords only);
    values deep-copied so later changes to the caller's objects do not leak in."""
    out: dict[str, Any] = {}
    for key, value in fields.items():
        if key.endswith("_") and keyword.iskeyword(key[:-1]):
            key = key[:-1]
        out[key] = copy.deepcopy(value)
    return out


def _app(app: Any) -> Any:
    return {"kind": app} if isinstance(app, str) else copy.deepcopy(app)


class NetworkBuilder:
    """A scenario document under construction.

    ``NetworkBuilder(name, description=..., **simulation)``: the keyword arguments other than
    ``description`` are ``[simulation]`` fields (``duration_s``, ``seed``, ...).
    """

    def __init__(self, name: str | None = None, *, description: str | None = None, **simulation: Any):
        self._top: dict[str, Any] = {}
        if name is not None:
            self._top["name"] = name
        if description is not None:
            self._top["description"] = description
        self._simulation: dict[str, Any] = _fields(simulation)
        self._signalling: dict[str, Any] | None = None
        self._lists: dict[str, list[dict[str, Any]]] = {k: [] for k in _LISTS}
        self._sites: list[Site] = []

    # ----- the single tables -------------------------------------------------------
    def simulation(self, **fields: Any) -> NetworkBuilder:
        """Set ``[simulation]`` fields (merged with those already set); returns the network."""
        self._simulation.update(_fields(fields))
        return self

    def signalling(self, **fields: Any) -> NetworkBuilder:
        """Turn switched VCs on: a ``[signalling]`` table with these fields (none = the
        core's defaults); returns the network."""
        self._signalling = {**(self._signalling or {}), **_fields(fields)}
        return self

    def no_signalling(self) -> NetworkBuilder:
        """Remove ``[signalling]`` (no switched VCs)."""
        self._signalling = None
        return self

    # ----- nodes -------------------------------------------------------------------
    def host(self, name: str, **fields: Any) -> str:
        """A ``[[host]]``; returns its name."""
        return self._add("host", {"name": name, **_fields(fields)}, name)

    def router(self, name: str, **fields: Any) -> str:
        """A ``[[router]]``; returns its name."""
        return self._add("router", {"name": name, **_fields(fields)}, name)

    def switch(self, name: str, **fields: Any) -> str:
        """A ``[[switch]]``; returns its name."""
        return self._add("switch", {"name": name, **_fields(fields)}, name)

    def site(self, name: str, workstations: int, servers: int, attach: Any = None, **fields: Any) -> Site:
        """A ``[[site]]``: ``workstations`` and ``servers`` on a LAN with one router, whose
        ATM link goes to switch ``attach`` (none: no ATM link). Returns a :class:`Site`
        handle naming the hosts, router, LAN and uplink the core expands it into."""
        entry = {"name": name, "workstations": workstations, "servers": servers, **_fields(fields)}
        if attach is not None:
            entry["attach"] = _node(attach)
        self._add("site", entry, name)
        handle = Site(name, workstations, servers, entry.get("attach"))
        self._sites.append(handle)
        return handle

    # ----- lines between nodes -----------------------------------------------------
    def link(self, a: Any, b: Any, **fields: Any) -> str:
        """A ``[[link]]`` (ATM) between nodes ``a`` and ``b``; returns its name (``name`` if
        given, else the core's default ``"a-b"``)."""
        a, b = _node(a), _node(b)
        entry = {"a": a, "b": b, **_fields(fields)}
        return self._add("link", entry, entry.get("name", f"{a}-{b}"))

    def serial(self, a: Any, b: Any, **fields: Any) -> str:
        """A ``[[serial]]`` packet line between ``a`` and ``b``; returns its name."""
        a, b = _node(a), _node(b)
        entry = {"a": a, "b": b, **_fields(fields)}
        return self._add("serial", entry, entry.get("name", f"{a}-{b}"))

    def lan(self, name: str, members: Iterable[Any], **fields: Any) -> str:
        """A ``[[lan]]`` shared by ``members`` (hosts and routers); returns its name."""
        return self._add("lan", {"name": name, "members": [_node(m) for m in members], **_fields(fields)}, name)

    def vc(self, name: str, path: Iterable[Any], **fields: Any) -> str:
        """A permanent ``[[vc]]`` along ``path`` (node names, end to end); returns its name."""
        return self._add("vc", {"name": name, "path": [_node(n) for n in path], **_fields(fields)}, name)

    # ----- workloads ---------------------------------------------------------------
    def tcp(self, name: str, client: Any, server: Any, **fields: Any) -> str:
        """A ``[[tcp]]`` connection from ``client`` to ``server``; ``app`` may be a kind
        name. Returns its name."""
        entry = {"name": name, "client": _node(client), "server": _node(server), **_fields(fields)}
        if "app" in entry:
            entry["app"] = _app(entry["app"])
        return self._add("tcp", entry, name)

    def udp(self, name: str, from_: Any, to: Any, **fields: Any) -> str:
        """A ``[[udp]]`` flow from host ``from_`` to host ``to``; returns its name."""
        return self._add("udp", {"name": name, "from": _node(from_), "to": _node(to), **_fields(fields)}, name)

    def traffic(self, name: str, app: Any, **fields: Any) -> str:
        """A ``[[traffic]]`` generator of ``app`` conversations (a kind name or an app
        table); ``from_`` may list sites as names or :class:`Site` handles. Returns its name."""
        return self._traffic({"name": name, "app": app, **_fields(fields)})

    def _traffic(self, entry: dict[str, Any]) -> Any:
        if "app" in entry:
            entry["app"] = _app(entry["app"])
        if isinstance(entry.get("from"), list | tuple):
            entry["from"] = [s.name if isinstance(s, Site) else s for s in entry["from"]]
        return self._add("traffic", entry, entry.get("name"))

    def cell_source(self, name: str, vc: str, from_: Any, kind: str, **fields: Any) -> str:
        """A ``[[cell_source]]`` on ``vc`` sending from its end ``from_``; returns its name."""
        return self._add("cell_source", {"name": name, "vc": vc, "from": _node(from_), "kind": kind, **_fields(fields)}, name)

    def capture(self, host: Any, **fields: Any) -> str:
        """A pcap ``[[capture]]`` of ``host``'s datagrams; returns its name."""
        entry = {"host": _node(host), **_fields(fields)}
        return self._add("capture", entry, entry.get("name", entry["host"]))

    # ----- what was built ----------------------------------------------------------
    @property
    def sites(self) -> list[Site]:
        """The :class:`Site` handles, in the order they were added."""
        return list(self._sites)

    def count(self, section: str) -> int:
        """How many entries of a list section (``"host"``, ``"link"``, ...) were added."""
        return len(self._lists[section])

    def to_dict(self) -> dict[str, Any]:
        """The document as a nested dict (a copy), with empty sections left out."""
        doc: dict[str, Any] = dict(self._top)
        if self._simulation:
            doc["simulation"] = dict(self._simulation)
        if self._signalling is not None:
            doc["signalling"] = dict(self._signalling)
        for key in _LISTS:
            if self._lists[key]:
                doc[key] = self._lists[key]
        return copy.deepcopy(doc)

    def scenario(self, origin: str = "<builder>") -> Scenario:
        """The document as an :class:`~atmsim.Scenario` (not yet validated by the core)."""
        return Scenario.from_dict(self.to_dict(), origin=origin)

    def check(self) -> Scenario:
        """Have the core validate the document; returns the :class:`~atmsim.Scenario`.
        A mistake raises :class:`~atmsim.ScenarioError` naming the field."""
        return self.scenario().validate()

    def run(self, seed: int | None = None, progress: ProgressArg = False, batching: bool | None = None) -> Results:
        """Run the scenario (see :meth:`Scenario.run <atmsim.Scenario.run>`)."""
        return self.scenario().run(seed=seed, progress=progress, batching=batching)

    def to_toml(self, path: str | Path | None = None) -> str:
        """The document as TOML text, also written to ``path`` if given (``atmsim run`` and
        ``atmsim check`` read it)."""
        text = self.scenario().to_toml()
        if path is not None:
            Path(path).write_text(text, encoding="utf-8")
        return text

    def _add(self, section: str, entry: dict[str, Any], handle: Any) -> Any:
        self._lists[section].append(entry)
        return handle

    def __repr__(self) -> str:
        counts = ", ".join(f"{k}={len(v)}" for k, v in self._lists.items() if v)
        return f"NetworkBuilder({self._top.get('name')!r}{', ' if counts else ''}{counts})"


# ----- ready-made networks ----------------------------------------------------------

# XUNET II's sites (spec mah96 §1.2, outside knowledge [X]): four in the West, four in the
# Midwest/East. The study used six of the eight; the backbone puts half in each half.
_WEST = ("berkeley", "lbl", "llnl", "sandia")
_EAST = ("illinois", "wisconsin", "rutgers", "bell")

# Spec mah96 A-4/A-5 [R], to be calibrated: 1024 cells per output port, EPD at 80 %.
MAH_SWITCH = {"buffer_cells": 1024, "drop_policy": "epd", "epd_threshold_cells": 819}


class Backbone(NetworkBuilder):
    """The network :func:`mah_backbone` returns: a :class:`NetworkBuilder` that also knows its
    halves (``west``, ``east``: :class:`Site` handles) and its ``bottleneck`` link."""

    west: tuple[Site, ...]
    east: tuple[Site, ...]
    bottleneck: str
    variant: str


def _half_names(names: tuple[str, ...], n: int, prefix: str) -> list[str]:
    return [names[i] if i < len(names) else f"{prefix}{i + 1}" for i in range(n)]


def mah_backbone(
    variant: str = "stars",
    *,
    sites: int = 6,
    workstations: int = 200,
    servers: int = 2,
    ipoa: Mapping[str, Any] | None = None,
    duration_s: float = 4000.0,
    seed: int = 1,
    switch: Mapping[str, Any] | None = None,
    signalling: Mapping[str, Any] | None = None,
    traffic: Iterable[Mapping[str, Any]] = (),
    name: str | None = None,
    **simulation: Any,
) -> Backbone:
    """The internetwork of Mah's INSANE studies (spec mah96 §1.1–1.2), as a :class:`Backbone`.

    ``sites`` sites (first half West, the rest East) of ``workstations`` + ``servers`` hosts
    on a 100 Mb/s LAN with one router each; site ``k``'s router links to its site switch
    ``S<k>`` over T1 with no propagation delay (spec A-2). Every backbone link is T1:

    - ``variant="stars"`` (the spec's recommended "dumbbell of stars", 8 switches): each site
      switch joins its half's hub (``HW`` or ``HE``) at 5 ms, and the hubs are joined by the
      one 30 ms link;
    - ``variant="B"`` (one switch per site): the first site switch of each half is its hub,
      the others join it at 5 ms, and the two hubs are joined at 30 ms.

    Either way the 30 ms link is the only path between the halves. Signalling is on
    (``signalling``: its fields); every router's driver uses ``ipoa`` (default
    ``{"mux": "conv", "vc": "svc"}``); switches take ``switch`` (default :data:`MAH_SWITCH`).
    No traffic unless ``traffic`` lists ``[[traffic]]`` tables (``app`` may be a kind name);
    other keyword arguments are ``[simulation]`` fields.
    """
    if variant not in ("stars", "B"):
        raise ValueError(f"expected variant 'stars' or 'B', got {variant!r}")
    if not isinstance(sites, int) or sites < 2:
        raise ValueError(f"expected at least 2 sites (one per half), got {sites!r}")
    n_west = (sites + 1) // 2
    west_names = _half_names(_WEST, n_west, "west")
    east_names = _half_names(_EAST, sites - n_west, "east")
    ipoa = {"mux": "conv", "vc": "svc"} if ipoa is None else ipoa
    switch = MAH_SWITCH if switch is None else switch

    net = Backbone(
        name or f"mah-{variant}-{sites}sites",
        description=f"Mah 1996 internetwork, backbone variant {variant} (spec mah96 §1.2)",
        duration_s=duration_s,
        seed=seed,
        **simulation,
    )
    net.signalling(**(signalling or {}))
    site_switches = [net.switch(f"S{k + 1}", **switch) for k in range(sites)]
    halves = (site_switches[:n_west], site_switches[n_west:])
    if variant == "stars":
        hubs = (net.switch("HW", **switch), net.switch("HE", **switch))
        spokes = halves
    else:
        hubs = (halves[0][0], halves[1][0])
        spokes = (halves[0][1:], halves[1][1:])
    for s in spokes[0]:
        net.link(s, hubs[0], preset="t1", delay_ms=5.0)
    net.bottleneck = net.link(hubs[0], hubs[1], preset="t1", delay_ms=30.0)
    for s in spokes[1]:
        net.link(hubs[1], s, preset="t1", delay_ms=5.0)

    handles = [
        net.site(site, workstations, servers, attach=sw, link_preset="t1", ipoa=ipoa)
        for site, sw in zip(west_names + east_names, site_switches, strict=True)
    ]
    net.west, net.east = tuple(handles[:n_west]), tuple(handles[n_west:])
    net.variant = variant
    for t in traffic:
        net._traffic(_fields(t))  # the core names a missing field: traffic[i].name
    return net


def dumbbell(
    n: int,
    *,
    bottleneck: Mapping[str, Any] | None = None,
    access: Mapping[str, Any] | None = None,
    switch: Mapping[str, Any] | None = None,
    tcp: Mapping[str, Any] | None = None,
    duration_s: float = 10.0,
    name: str | None = None,
    **simulation: Any,
) -> NetworkBuilder:
    """N bulk TCP senders behind one bottleneck: hosts ``src0..src<n-1>`` link to switch
    ``left``, ``left`` to ``right`` over the bottleneck, ``right`` to the sink host ``dst``.
    One PVC (``vc<i>``) and one ``[[tcp]]`` (``tcp<i>``, fields ``tcp``) per sender.

    Defaults: bottleneck T1 at 10 ms, access and sink links OC-3c at 0 ms (so the
    bottleneck is the only queue that builds), switches with the core's defaults.
    """
    if not isinstance(n, int) or n < 1:
        raise ValueError(f"expected at least one sender, got {n!r}")
    bottleneck = {"preset": "t1", "delay_ms": 10.0} if bottleneck is None else bottleneck
    access = {"preset": "oc3c", "delay_ms": 0.0} if access is None else access
    switch = {} if switch is None else switch
    net = NetworkBuilder(name or f"dumbbell-{n}", duration_s=duration_s, **simulation)
    left, right = net.switch("left", **switch), net.switch("right", **switch)
    dst = net.host("dst")
    net.link(left, right, **bottleneck)
    net.link(right, dst, **access)
    for i in range(n):
        src = net.host(f"src{i}")
        net.link(src, left, **access)
        vc = net.vc(f"vc{i}", [src, left, right, dst])
        net.tcp(f"tcp{i}", src, dst, vc=vc, **(tcp or {}))
    return net
