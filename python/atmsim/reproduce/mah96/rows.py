"""Mah (1996) reproduction: the oracle's row type and the configuration names.

This module owns two small things the oracle modules share: the canonical configuration
names of the thesis (§2.6, §3.5.1: ``<qos>-<mux>-<vc>``, 103 configurations; the list is the
core's, ``atmsim._core.MAH_CONFIGURATIONS``, and the names here are derived from it) and the
:class:`Row` record with its constructors. The rows themselves live in
:mod:`.oracle` (best effort, Chapters 5–6) and :mod:`.qos_rows` (Chapter 4 and
the QoS comparisons of Chapters 5–6); the verdict rules in :mod:`.oracle`.

A comparison row (kind ``shift``) may carry the magnitude the thesis publishes for it, as
:class:`Size` records: given inline (``size=``) or taken from the change rows that state it
(``size_of=``, resolved by :func:`resolve_sizes`, so each published number is written once).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from ... import _core

__all__ = [
    "ALL_CONFIGS",
    "CANONICAL",
    "CONFIGS",
    "NOQOS4",
    "POLICIES",
    "SETUPS",
    "Row",
    "Size",
    "chance_row",
    "chg_row",
    "cmp_row",
    "lvl_row",
    "mux_pairs",
    "name",
    "parse",
    "policy_pairs",
    "prose_row",
    "resolve_sizes",
    "sizes_of",
    "vc_pairs",
]


#: Every configuration of the study (§3.5.1: 103), in the study's order: the seven best-effort
#: ones, then each QoS policy in the four setups. Declared once, in the core
#: (``Configuration::all``); every list below is derived from it or from the core's policies.
ALL_CONFIGS: tuple[str, ...] = _core.MAH_CONFIGURATIONS
#: The seven best-effort configurations (the four setups, then router multiplexing).
CONFIGS = tuple(c for c in ALL_CONFIGS if c.startswith("noqos-"))
NOQOS4 = CONFIGS[:4]
#: §4.4: the four setups every QoS policy ran in.
SETUPS = tuple(c.removeprefix("noqos-") for c in NOQOS4)
#: The 24 QoS policies other than noqos (Tab 3-4: sp, wc, nwc, each favouring telnet … qos1).
POLICIES = tuple(q for q in _core.QOS_POLICIES if q != "noqos")

_QOS = "|".join(_core.QOS_POLICIES)
_MUX = "|".join(dict.fromkeys(c.rsplit("-", 2)[1] for c in ALL_CONFIGS))
_VC = "|".join(dict.fromkeys(c.rsplit("-", 1)[1] for c in ALL_CONFIGS))
#: The canonical grammar ``<qos>-<mux>-<vc>`` (spec §4.7).
CANONICAL = re.compile(rf"^(?P<qos>{_QOS})-(?P<mux>{_MUX})-(?P<vc>{_VC})$")


def name(config: str) -> str:
    """The canonical name of a configuration: the identity for a full name; a two-part
    best-effort key (``conv-svc``) gets ``noqos-`` in front."""
    return config if config.count("-") >= 2 else f"noqos-{config}"


def parse(config: str) -> tuple[str, str, str]:
    """(qos, mux, vc) of a configuration name; ValueError if it is not canonical."""
    m = CANONICAL.match(name(config))
    if not m:
        raise ValueError(f"not a configuration name <qos>-<mux>-<vc>: {config!r}")
    return m["qos"], m["mux"], m["vc"]


def policy_pairs(a: str, b: str, setups=SETUPS) -> tuple[tuple[str, str], ...]:
    """(A, B) pairs of two QoS policies at the same setups: ``("noqos", "sp-ftp")`` →
    ``(noqos-app-svc, sp-ftp-app-svc), …``."""
    return tuple((f"{a}-{s}", f"{b}-{s}") for s in setups)


def mux_pairs(policy: str, vcs=("svc", "svccache")) -> tuple[tuple[str, str], ...]:
    """app → conv under one QoS policy (Ch. 5): ``(sp-ftp-app-svc, sp-ftp-conv-svc), …``."""
    return tuple((f"{policy}-app-{v}", f"{policy}-conv-{v}") for v in vcs)


def vc_pairs(policy: str, muxes=("app", "conv")) -> tuple[tuple[str, str], ...]:
    """svc → svccache under one QoS policy (Ch. 6): ``(wc-ftp-conv-svc, wc-ftp-conv-svccache)``."""
    return tuple((f"{policy}-{m}-svc", f"{policy}-{m}-svccache") for m in muxes)


@dataclass(frozen=True)
class Size:
    """A magnitude the thesis publishes for one statistic of a comparison: the change of the
    means over seeds, B / A − 1 (or B − A in stored units with ``delta``), in [``lo``, ``hi``],
    for each pair or for the pairs' ``mean`` or ``max`` (``agg``). ``pairs``: the pairs it
    covers (empty: every pair of its row); ``source``: the change row it was taken from."""

    stat: str
    lo: float
    hi: float
    agg: str = "each"
    delta: bool = False
    pairs: tuple[tuple[str, str], ...] = ()
    source: str = ""

    def __post_init__(self) -> None:
        if not (self.lo <= self.hi and self.lo * self.hi > 0):
            raise ValueError(f"{self.stat}: a published magnitude is a range [lo, hi] of one sign, without 0")
        if self.agg not in ("each", "mean", "max"):
            raise ValueError(f"{self.stat}: agg is each, mean or max, not {self.agg!r}")


@dataclass(frozen=True)
class Row:
    id: str
    where: str
    what: str
    thesis: str
    kind: str  # shift | chance | level | change | identical | ratio | qos | conflict
    pairs: tuple[tuple[str, str], ...] = ()
    stats: tuple[str, ...] = ()
    expect: str | None = None  # "lower" / "higher": B against A
    sig: bool | None = None  # True: sig. at 90 %; False: not sig.; None: not stated
    need: int | None = None
    targets: tuple[tuple[str, float | None, float | None], ...] = ()  # (config, low, high) of level rows
    tol_pp: bool = False
    exact: bool = False
    full_only: bool = True
    every_run: bool = False
    change: tuple[float | None, float | None] | None = None  # published change range (kind "change")
    agg: str = "each"  # change rows: "each" pair, the "mean" or the "max" over the pairs
    delta: bool = False  # change rows: B − A in stored units, not B / A − 1
    note: str = ""  # kind "qos": why the row is not judged
    size: tuple[Size, ...] = ()  # kind "shift": the magnitudes the thesis publishes
    size_of: tuple[str, ...] = ()  # kind "shift": change rows whose ranges are its magnitudes


def cmp_row(rid, where, what, thesis, pairs, st, expect, sig, need=None, size=(), size_of=()) -> Row:
    """A comparison row (kind ``shift``); ``size``: the magnitudes the thesis publishes for it
    (:class:`Size`), ``size_of``: the ids of change rows that publish them."""
    return Row(rid, where, what, thesis, "shift", tuple(pairs), tuple(st), expect, sig, need,
               size=tuple(size), size_of=tuple(size_of))


def sizes_of(change: Row) -> tuple[Size, ...]:
    """The magnitudes a change row publishes, one per statistic."""
    if change.kind != "change" or change.change is None:
        raise ValueError(f"{change.id} is not a change row")
    lo, hi = change.change
    if lo is None or hi is None:
        raise ValueError(f"{change.id}: a change row publishes both ends of its range")
    return tuple(Size(st, lo, hi, change.agg, change.delta, change.pairs, change.id) for st in change.stats)


def resolve_sizes(rows: tuple[Row, ...]) -> tuple[Row, ...]:
    """``rows`` with every comparison's ``size_of`` turned into :class:`Size` records (added to
    its ``size``); ValueError for an id that names no change row."""
    by_id = {r.id: r for r in rows}
    out = []
    for r in rows:
        if r.size_of:
            missing = [i for i in r.size_of if i not in by_id]
            if missing:
                raise ValueError(f"{r.id}: size_of names no row: {missing}")
            r = replace(r, size=r.size + tuple(z for i in r.size_of for z in sizes_of(by_id[i])))
        out.append(r)
    return tuple(out)


def lvl_row(rid, where, what, thesis, configs, stat, lo=None, hi=None, targets=None, **kw) -> Row:
    """A level row: every configuration's value within [lo, hi] (or per-configuration targets)."""
    targets = targets if targets is not None else {c: (lo, hi) for c in configs}
    return Row(rid, where, what, thesis, "level", stats=(stat,), targets=tuple((c, a, b) for c, (a, b) in targets.items()), **kw)


def chg_row(rid, where, what, thesis, pairs, st, lo, hi, **kw) -> Row:
    """A magnitude row (kind ``change``): the published change B / A − 1 (or B − A with
    ``delta=True``) per pair, or of the pairs' mean or maximum (``agg``), within [lo, hi]."""
    return Row(rid, where, what, thesis, "change", tuple(pairs), tuple(st), change=(lo, hi), **kw)


def chance_row(rid, where, what, thesis, pairs, st) -> Row:
    """No significant differences beyond what chance gives (kind ``chance``)."""
    return Row(rid, where, what, thesis, "chance", tuple(pairs), tuple(st))


def prose_row(rid, where, what, thesis, note) -> Row:
    """A statement with no testable statistic: listed, not judged, with the reason."""
    return Row(rid, where, what, thesis, "qos", note=note)
