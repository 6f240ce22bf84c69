"""The experimental design of the Koçyiğit et al. reproduction: the network's rates, the
background loads, shapings and buffers compared, the run sizes of quick and full mode, and the
efficiency definitions the paper's words allow (module docs of :mod:`atmsim.reproduce.kocyigit`)."""

from __future__ import annotations

from dataclasses import dataclass

from ...study import resources

__all__ = [
    "ALPHA_PER_LOAD",
    "BG_LOADS_MBPS",
    "BUFFERS",
    "EFFICIENCY",
    "FULL",
    "LINK_MBPS",
    "N_TCP",
    "ONE_USER",
    "PAYLOAD_SHARE",
    "QUICK",
    "QUICK_EXTRA",
    "QUICK_MECH",
    "SCENARIO_DIR",
    "SHAPINGS",
    "Size",
]


SCENARIO_DIR = resources.scenario_dir("kocyigit")
LINK_MBPS = 150.0
N_TCP = 4
BG_LOADS_MBPS = [0, 25, 50, 75, 100]
SHAPINGS = {"unshaped": "unshaped", "20 Mb/s": "{g}20", "35 Mb/s": "{g}35"}
ONE_USER = {"unshaped": "unshaped", "VC-based 4 × 35 Mb/s": "vc35", "VP-based 140 Mb/s": "vp35"}
BUFFERS = (1000, 5000)
# TCP payload per bit of cells for full segments: 9140 bytes in 192 cells of 53 bytes.
PAYLOAD_SHARE = 9140 / (192 * 53)
# "35 Mb/s at least as high as unshaped" is 'differs' when unshaped TCP is higher at some load
# by a one-sided Welch test at 5% over the five loads (Bonferroni: 1% per load).
ALPHA_PER_LOAD = 0.05 / len(BG_LOADS_MBPS)


@dataclass(frozen=True)
class Size:
    """Seeds per point and run length [s] of one family of curves."""

    seeds: int
    duration_s: float
    warmup_s: float

    def label(self) -> str:
        return f"{self.seeds} seeds × {self.duration_s:g} s ({self.warmup_s:g} s warm-up)"


FULL = Size(8, 30.0, 5.0)
# Sized by measurement (module docstring): every verdict as in full mode.
QUICK = Size(8, 15.0, 3.0)
# Families that carry no verdict, in quick mode.
QUICK_EXTRA = Size(2, 8.0, 2.0)
# Experiment B (:func:`mechanism`) in quick mode.
QUICK_MECH = Size(2, 15.0, 3.0)

# The efficiency definitions the paper's words allow (report, "Efficiency: which one?").
EFFICIENCY = {
    "sent": "goodput / TCP payload sent, retransmissions included (at the senders, measurement window)",
    "cells": "cells of data the receivers read / TCP cells the senders put on their links (whole run; "
             "the cell-level twin of the first: partial frames and resent segments are waste)",
    "capacity": "goodput / L0 payload capacity left by the background, (150 − background) × 9140/(192·53) Mb/s "
                "(equal to the mean per-connection goodput / fair share of it)",
}
