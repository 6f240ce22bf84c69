"""Closed forms of Kalampoukas, Varma & Ramakrishnan, "Two-Way TCP Traffic over Rate Controlled
Channels: Effects and Analysis" (UCSC-CRL-96-23, 1997), for the reproduction and its tests.

Two nodes i and j each run a greedy TCP sender towards the other. Node i's data and its acks for
connection j share one FIFO output queue served at rate ``rho_i``; the network is a constant-delay,
in-order, loss-free pipe (``d_ij`` from i to j, ``d_ji`` back). Acks take no time to send. Once the
windows ``w_i``, ``w_j`` have stopped growing, each node sends its whole window as one burst (a *busy
period*) and then idles while its acks wait behind the other node's burst. The paper's results:

- Eq. 2.1 / 4.1 — ack compression needs ``w_i/rho_i + w_j/rho_j > d_ij + d_ji``;
- Lemma 1 — when one window dominates, both connections repeat every ``w_big/rho_big`` and the big one
  never idles (the lemma's statement is right; the proof's Eq. 3.7 has a slip, digest E1);
- Lemma 2, Eq. 3.9 — the queue a busy period meets alternates: Q(next) = min(S − Q(prev), W);
- Lemma 3, Eq. 3.14 — in the balanced regime two busy periods of each connection take
  ``w_i/rho_i + w_j/rho_j + d_ij + d_ji``;
- Theorems 1 and 2, Eq. 3.21 / 4.2 — the efficiency of each connection in the three regimes;
- Lemmas 4 and 5, Eq. 3.22 / 4.3 — bounds on the IP queue (data segments only);
- §5.4 — connections opened together in each direction act as one "fat" connection.

Efficiency is throughput divided by the rate of that connection's channel, as in every F of the
paper. Units: windows in segments, rates in segments per second, delays in seconds; the
``symmetric`` constructor takes one-way pipes in segments instead (rate 1, time in segment times).

What the paper leaves out and we infer (marked *inference* below): the efficiency when Eq. 2.1
fails (one-way behaviour), the asymmetric form of Lemma 2's peak sum, and the cap of the balanced
queue bound at the window (digest E2). The cell-level constants of §5 (digest §1.7) are at the
end: OC-3c cell rate, 192 cells per 9180-byte packet, one RM cell in Nrm = 32.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum

# ---------------------------------------------------------------------------------------------
# The two-node model (§2-§4)
# ---------------------------------------------------------------------------------------------


__all__ = [
    "CELL_BITS",
    "MTU_BYTES",
    "NRM",
    "OC3C_BPS",
    "OC3C_CELLS_S",
    "Regime",
    "TwoWay",
    "cells_per_packet",
    "delay_in_segments",
    "equal_pair_efficiency",
    "fat_efficiency",
    "figure_4_1",
    "figure_4_1_boundary_mbps",
    "one_way_efficiency",
    "section_5_3",
    "section_5_3_printed_formula",
    "segment_rate",
    "tcp_rate_mbps",
]


class Regime(Enum):
    """Which case of Theorem 2 a pair of connections is in (numbered as the theorem's cases)."""

    NONE = "none"  # Eq. 2.1/4.1 fails: no standing queue, no ack compression
    I_DOMINANT = "1"  # w_i/rho_i > w_j/rho_j + D: connection i never idles (Lemma 1)
    BALANCED = "2"  # |w_i/rho_i - w_j/rho_j| <= D (Lemmas 2, 3)
    J_DOMINANT = "3"  # the mirror of I_DOMINANT


@dataclass(frozen=True)
class TwoWay:
    """One TCP connection each way between nodes i and j (Fig. 2.2).

    ``w_*`` windows [segments], ``rho_*`` service rates of the nodes' output queues
    [segments/s], ``d_ij``/``d_ji`` one-way delays [s] from the start of a segment's service to
    its arrival (the paper's D; §5.2 counts one segment of reassembly in it).
    """

    w_i: float
    w_j: float
    rho_i: float
    rho_j: float
    d_ij: float
    d_ji: float

    @classmethod
    def symmetric(cls, w_i: float, w_j: float, l_ij: float, l_ji: float | None = None) -> TwoWay:
        """Equal rates (§3): one-way pipes ``l_ij``, ``l_ji`` in segments (L = rho·D)."""
        return cls(w_i, w_j, 1.0, 1.0, l_ij, l_ij if l_ji is None else l_ji)

    # -- the three times everything depends on ------------------------------------------------
    @property
    def t_i(self) -> float:
        """Time node i needs to send its window [s]."""
        return self.w_i / self.rho_i

    @property
    def t_j(self) -> float:
        return self.w_j / self.rho_j

    @property
    def round_trip(self) -> float:
        """D = d_ij + d_ji [s]."""
        return self.d_ij + self.d_ji

    def swapped(self) -> TwoWay:
        """The same pair seen from node j."""
        return TwoWay(self.w_j, self.w_i, self.rho_j, self.rho_i, self.d_ji, self.d_ij)

    # -- Eq. 2.1/4.1 and Theorem 2 --------------------------------------------------------------
    def compresses(self) -> bool:
        """Eq. 4.1 (Eq. 2.1 for equal rates): the windows overfill the round-trip pipe."""
        return self.t_i + self.t_j > self.round_trip

    def regime(self) -> Regime:
        """The case of Theorem 2 (Eq. 4.2) for connection i."""
        if not self.compresses():
            return Regime.NONE
        if self.t_i > self.t_j + self.round_trip:
            return Regime.I_DOMINANT
        if self.t_i < self.t_j - self.round_trip:
            return Regime.J_DOMINANT
        return Regime.BALANCED

    def efficiency(self) -> tuple[float, float]:
        """(F_i, F_j): Theorem 2, Eq. 4.2 (Theorem 1, Eq. 3.21, for equal rates).

        Without compression (*inference*): each connection is window-limited over the round trip,
        F = min(t/D, 1). The forms agree on every regime boundary.
        """
        ti, tj, d = self.t_i, self.t_j, self.round_trip
        r = self.regime()
        if r is Regime.NONE:
            return min(ti / d, 1.0), min(tj / d, 1.0)
        if r is Regime.I_DOMINANT:
            return 1.0, tj / ti
        if r is Regime.J_DOMINANT:
            return ti / tj, 1.0
        cycle = ti + tj + d
        return 2.0 * ti / cycle, 2.0 * tj / cycle

    def period(self) -> float:
        """Time after which the pattern repeats [s]: ``t_i + t_j + D`` holding two busy periods of
        each connection in the balanced regime (Lemma 3, Eq. 3.14); one busy period of each per
        ``t_big`` when one dominates (Lemma 1 as stated; digest E1); D without compression."""
        r = self.regime()
        if r is Regime.NONE:
            return self.round_trip
        if r is Regime.I_DOMINANT:
            return self.t_i
        if r is Regime.J_DOMINANT:
            return self.t_j
        return self.t_i + self.t_j + self.round_trip

    # -- queues: Lemmas 2, 4, 5 ----------------------------------------------------------------
    def peak_sum(self) -> float:
        """S_i: the sum of two consecutive queue peaks at node i in the balanced regime
        [segments]. Lemma 2 (Eq. 3.9) gives S = W_i + W_j − L_ij − L_ji for equal rates; with
        unequal rates the same proof gives rho_i·(t_i + t_j − D) (*inference*)."""
        return self.rho_i * (self.t_i + self.t_j - self.round_trip)

    def next_peak(self, q: float) -> float:
        """Lemma 2, Eq. 3.9, written for node i: the data queue the next busy period of the
        opposite connection meets, given ``q`` at the previous one [segments]."""
        return min(self.peak_sum() - q, self.w_i)

    def queue_bound(self) -> float:
        """Upper bound on node i's IP queue, data segments only [segments]: Lemma 5, Eq. 4.3
        (Lemma 4, Eq. 3.22, for equal rates). The balanced case is also capped at W_i, as Lemma 2
        and the proof of Lemma 4 imply (digest E2); 0 without compression."""
        r = self.regime()
        if r is Regime.NONE:
            return 0.0
        if r is Regime.I_DOMINANT:
            return self.w_i - self.round_trip * self.rho_i
        if r is Regime.J_DOMINANT:
            return float(self.w_i)
        return min(self.peak_sum(), float(self.w_i))


def equal_pair_efficiency(w: float, l: float) -> float:
    """§3: equal windows W and equal one-way pipes L [segments]: F = W/(W + L) once W > L
    (66.67 % at W = 2L), else one-way behaviour W/(2L)."""
    return w / (w + l) if w > l else min(w / (2.0 * l), 1.0)


def one_way_efficiency(w: float, l_round_trip: float) -> float:
    """The same connection without reverse traffic: window-limited, min(W / L_rt, 1)."""
    return min(w / l_round_trip, 1.0)


def fat_efficiency(windows_i: list[float], windows_j: list[float], l_ij: float, l_ji: float) -> float:
    """§5.4: connections opened together in each direction behave as one connection whose window
    is the sum; each connection of set I then has the fat connection's efficiency,
    2·ΣW_I / (ΣW_I + ΣW_J + L_ij + L_ji), with L in segments at the fat rate."""
    return TwoWay.symmetric(sum(windows_i), sum(windows_j), l_ij, l_ji).efficiency()[0]


# ---------------------------------------------------------------------------------------------
# Cell-level constants of §5 (digest §1.7; A1, A2)
# ---------------------------------------------------------------------------------------------

OC3C_BPS = 149.76e6  # SONET STS-3c payload: the cell-carrying rate of a "155 Mb/s" link (A1)
CELL_BITS = 424
OC3C_CELLS_S = OC3C_BPS / CELL_BITS  # 353 207.5 cells/s
MTU_BYTES = 9180  # §5.1's "segment size" read as the IP packet (A2)
NRM = 32  # §5.1


def cells_per_packet(ip_bytes: int) -> int:
    """AAL5 cells for one IP packet: the 8-byte trailer added, padded to 48-byte payloads."""
    return math.ceil((ip_bytes + 8) / 48)


def segment_rate(cell_rate: float = OC3C_CELLS_S, ip_bytes: int = MTU_BYTES, nrm: int = NRM) -> float:
    """Segments per second a VC at ``cell_rate`` carries when one cell in ``nrm`` is a forward RM
    cell [segments/s] (turned-around RM cells of the reverse direction not counted)."""
    return cell_rate * (nrm - 1) / nrm / cells_per_packet(ip_bytes)


def tcp_rate_mbps(cell_rate: float = OC3C_CELLS_S, ip_bytes: int = MTU_BYTES) -> float:
    """Throughput counting ``ip_bytes`` per segment, as §5.2's "about 131 Mb/s" does [Mb/s]."""
    return segment_rate(cell_rate, ip_bytes) * ip_bytes * 8 / 1e6


def delay_in_segments(delay_s: float, cell_rate: float = OC3C_CELLS_S) -> float:
    """A delay as a number of segment times at ``cell_rate`` (§5.2: 8 ms ≈ 14 segments)."""
    return delay_s * segment_rate(cell_rate)


# ---------------------------------------------------------------------------------------------
# The paper's worked cases, with its slips (digest E3, E5, E6, E11)
# ---------------------------------------------------------------------------------------------


def section_5_3(one_way_segments: float = 15.0) -> TwoWay:
    """§5.3: the slow left-to-right connection (i) at a third of the link with W = 14, the fast
    right-to-left one (j) at the full rate with W = 28; one-way delay of ``one_way_segments``
    full-rate segment times each way (the paper's 15 = 14 propagation + 1 reassembly)."""
    rho = segment_rate()
    d = one_way_segments / rho
    return TwoWay(14, 28, rho / 3.0, rho, d, d)


def section_5_3_printed_formula(pair: TwoWay) -> float:
    """The §5.3 formula as printed, 2W_j / ((W_i/rho_i + W_j/rho_j + D)·rho_i): 168 %, because
    it multiplies by the slow rate. With rho_j it is Eq. 4.2's 56 % (digest E3)."""
    return 2.0 * pair.w_j / ((pair.t_i + pair.t_j + pair.round_trip) * pair.rho_i)


def figure_4_1(rho_i_mbps: float, window_bytes: float = 128 * 1024, rho_j_mbps: float = 155.0,
               one_way_s: float = 5e-3) -> tuple[float, float]:
    """Fig. 4.1: (F_i, F_j) for 128-KB windows, 5 ms each way, connection j at 155 Mb/s and i
    at ``rho_i_mbps`` (rates in bits, as the figure's axis)."""
    bits = window_bytes * 8
    return TwoWay(bits, bits, rho_i_mbps * 1e6, rho_j_mbps * 1e6, one_way_s, one_way_s).efficiency()


def figure_4_1_boundary_mbps(window_bytes: float = 128 * 1024, rho_j_mbps: float = 155.0,
                             one_way_s: float = 5e-3) -> float:
    """The rate of i at which j leaves case 3 for case 2 of Eq. 4.2 (the figure's knee, "about
    60 Mb/s"): w/rho_i = w/rho_j + D."""
    bits = window_bytes * 8
    return bits / (bits / (rho_j_mbps * 1e6) + 2 * one_way_s) / 1e6
