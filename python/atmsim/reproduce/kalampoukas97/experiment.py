"""Kalampoukas, Varma & Ramakrishnan (1997) at the cell level: the scenarios, and what is
measured from their runs, for the reproduction (:mod:`atmsim.reproduce.kalampoukas97`) and its tests.

Owns: the two-node builder (:func:`two_node`: the §5.2 network with any windows, one-way
delay and direction rates, and the §6 fixes), the prediction of Theorems 1–2 for such a run
(:func:`prediction`), and the measurements — efficiency in the paper's sense
(:func:`efficiency`), the IP-queue levels at the start of busy periods and their consecutive
sums (:func:`busy_period_levels`, :func:`consecutive_sums`).

**Units and the two delay conventions (digest A5, A16).** The theory's rate ρ is the VC's
segment rate: one 9180-byte packet is 192 cells, and one cell in Nrm = 32 is a forward RM cell
(:func:`.theory.segment_rate`). Efficiency is goodput over the TCP throughput that
rate carries, counted in the same bytes (TCP payload, 9140 per segment; digest A2): at the
full OC-3c rate 130.31 Mb/s of payload (the paper's "about 131 Mb/s" counts 9180 bytes per
segment: 130.88). The one-way delay D of the theory is counted two ways, and we predict with
both: the **paper's** (propagation plus one segment time of reassembly, §5.2: "about 15"
segments) and the **ack path's** (propagation plus one cell: the delay of the 1-cell acks,
which the digest's faithful model finds governs efficiency when data take a segment longer
than acks, §2.12). A cell-level result between the two reproduces the analysis.

**Busy-period levels (Lemma 2; Fig. 5.3).** In the balanced regime each busy period of a node
opens with a bunch of acks for its data, which arrives at once (acks are one cell each, a few
µs apart) and queues one data segment per ack; the queue then sits near that level, rippling
by ±1 as spaced acks and departures alternate (the "solid black areas" of Fig. 5.3), and
drains. :func:`busy_period_levels` reads, from the exact step trace of the IP queue (data only,
the segment being sent not counted, as Figs. 5.3/5.7 count), the level each bunch leaves —
Lemma 2's Q(τ), "the number of acks bunched behind the other's busy period", less the one
segment that goes straight into service. Single levels depend on the start phase (digest E9);
the sum of two consecutive ones is Lemma 2's invariant S.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import pandas as pd

from ..._scenario import Scenario
from ...study import resources
from . import theory as th

__all__ = [
    "CELL_S",
    "MSS_BYTES",
    "SCENARIO_DIR",
    "TwoNode",
    "busy_period_levels",
    "consecutive_sums",
    "efficiency",
    "load",
    "payload_mbps",
    "prediction",
    "two_node",
]


SCENARIO_DIR = resources.scenario_dir("kalampoukas97")
MSS_BYTES = 9140
CELL_S = th.CELL_BITS / th.OC3C_BPS  # one cell at the OC-3c rate [s]


def load(name: str) -> Scenario:
    """``scenarios/kalampoukas97/<name>.toml``."""
    return Scenario.from_toml(SCENARIO_DIR / f"{name}.toml")


def payload_mbps(rate_fraction: float = 1.0) -> float:
    """The TCP payload throughput of a VC at ``rate_fraction`` of the OC-3c cell rate, full
    segments back to back with their forward RM cells [Mb/s] (130.31 at the full rate)."""
    return th.segment_rate(th.OC3C_CELLS_S * rate_fraction) * MSS_BYTES * 8 / 1e6


@dataclass(frozen=True)
class TwoNode:
    """A two-node configuration: windows [segments], one-way propagation [ms], and each
    direction's rate as a fraction of the OC-3c cell rate (its PCR). ``i`` is 1L → 1R."""

    w_i: int
    w_j: int
    one_way_ms: float
    rate_i: float = 1.0
    rate_j: float = 1.0

    def label(self) -> str:
        rates = "" if self.rate_i == self.rate_j == 1.0 else f", rates {self.rate_i:g}/{self.rate_j:g}"
        return f"W {self.w_i}/{self.w_j}, {self.one_way_ms:g} ms{rates}"


def two_node(cfg: TwoNode, duration_s: float = 3.0, warmup_s: float = 0.5, fix: str | None = None,
             sample_ms: float = 1.0) -> Scenario:
    """The §5.2 network (``sec52_symmetric.toml``) set to ``cfg``: the propagation split evenly
    over the two links, each direction's PCR at its fraction of the link, windows in whole
    segments. ``fix``: None, ``"ack_priority"`` or ``"separate_vcs"`` (§6)."""
    name = {None: "sec52_symmetric", "ack_priority": "sec52_ack_priority",
            "separate_vcs": "sec52_separate_vcs"}[fix]
    sc = load(name)
    sc.set("simulation.duration_s", duration_s)
    sc.set("simulation.warmup_s", warmup_s)
    sc.set("simulation.sample_interval_ms", sample_ms)
    for k in (0, 1):
        sc.set(f"link[{k}].delay_ms", cfg.one_way_ms / 2)
    sc.set("vc[0].abr.pcr_bps", th.OC3C_BPS * cfg.rate_i)
    sc.set("vc[0].abr.reverse_pcr_bps", th.OC3C_BPS * cfg.rate_j)
    sc.set("tcp[0].window_bytes", cfg.w_i * MSS_BYTES)
    sc.set("tcp[1].window_bytes", cfg.w_j * MSS_BYTES)
    return sc


def prediction(cfg: TwoNode, convention: str) -> th.TwoWay:
    """Theorem 2's pair for ``cfg``: rates are the VCs' segment rates; the one-way delay is
    the propagation plus one segment time at the sender's rate (``"paper"``) or plus one cell
    (``"ack"``: the ack path) — module docs."""
    rho_i, rho_j = th.segment_rate(th.OC3C_CELLS_S * cfg.rate_i), th.segment_rate(th.OC3C_CELLS_S * cfg.rate_j)
    prop = cfg.one_way_ms / 1e3
    if convention == "paper":
        d_ij, d_ji = prop + 1 / rho_i, prop + 1 / rho_j
    elif convention == "ack":
        d_ij = d_ji = prop + CELL_S
    else:
        raise ValueError(f"unknown delay convention {convention!r}")
    return th.TwoWay(cfg.w_i, cfg.w_j, rho_i, rho_j, d_ij, d_ji)


def efficiency(summary: dict, conn: str, rate_fraction: float) -> float:
    """Goodput of connection ``conn`` over the payload throughput of its VC's rate."""
    c = next(x for x in summary["connections"] if x["name"] == conn)
    return c["goodput_bps"] / 1e6 / payload_mbps(rate_fraction)


def busy_period_levels(trace: pd.Series, bunch_gap_s: float = 64 * CELL_S) -> list[tuple[float, int]]:
    """(time, level) at the end of every ack bunch in an IP-queue step trace (module docs): a
    bunch is a run of rises, each within ``bunch_gap_s`` of the previous change (a third of a
    segment time: spaced acks come a segment apart), by at least two segments and at least
    half the level it ends at — so that two spaced acks that happen to arrive close together
    in the ±1 ripple after a bunch are not taken for a new one."""
    s = trace.dropna()
    times, values = s.index.to_numpy(), s.to_numpy()
    out: list[tuple[float, int]] = []
    k = 1
    while k < len(values):
        if values[k] > values[k - 1]:
            start = values[k - 1]
            j = k
            while j + 1 < len(values) and values[j + 1] > values[j] and times[j + 1] - times[j] <= bunch_gap_s:
                j += 1
            if values[j] - start >= max(2, values[j] / 2):
                out.append((float(times[j]), int(values[j])))
            k = j + 1
        else:
            k += 1
    return out


def consecutive_sums(levels: list[tuple[float, int]], after_s: float = 0.0) -> list[int]:
    """Sums of consecutive busy-period levels after ``after_s`` (Lemma 2's S)."""
    xs = [v for t, v in levels if t >= after_s]
    return [a + b for a, b in itertools.pairwise(xs)]
