"""Mah (1996) reproduction: the calibration, declared before it was run.

The thesis gives no ATM buffer size, no TCP socket buffer and no signalling processing time
(spec A-4, A-5, A-7, A-8). This module owns what the study fits and to which rows:

* :data:`BUFFERS`, :data:`WINDOWS` — the **free parameters** and their grid: the port buffer
  of every switch output port and router adapter (cells; the EPD threshold at 80 % of it, the
  per-VC share a quarter of it with its own EPD threshold at 80 %, as the study file), and the
  TCP socket buffer of every TCP application (bytes, both ends, both buffers).
* :data:`FIXED` — parameters the thesis leaves open that are **not** fitted here, with the
  value kept and why.
* :data:`TARGETS` — the **calibration set**: the rows the fit sees, each a statistic of
  :mod:`.tables` with the thesis' value. :data:`CALIBRATION_ROWS` are their oracle row ids;
  every other row of :mod:`.oracle` is the **validation set**, judged after the fit with the
  kept setting and counted apart in the report.
* :func:`loss` — how far a grid point is from the calibration set: the sum over the targets
  of the squared natural log of ours over the nearest end of the thesis' range (0 inside it),
  on the mean over seeds. Every target weighs the same.
* :data:`READINGS` — the switch cell drop rate's two readings of §5.5.2's "averaged across
  all switch queues": ``pooled`` (cells dropped over cells offered, summed over the 20 switch
  output queues; the oracle's) and ``queues`` (the unweighted mean of the 20 queues' rates).
  The fit is made under each.
* :data:`KEPT` — the setting the study file carries, chosen from the fit
  (``docs/mah96.md``, "Calibration"); a test checks that the file and this constant agree.

The grid is run at the thesis' scale on :data:`FIT_CONFIG` only, at seeds 1–3 (common random
numbers across grid points). Running it is :mod:`.calibrate`'s.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..._scenario import Scenario

__all__ = [
    "BUFFERS",
    "CALIBRATION_ROWS",
    "DROP_STAT",
    "EPD_FRACTION",
    "FIT_CONFIG",
    "FIXED",
    "KEPT",
    "QUICK_SCALE",
    "READINGS",
    "TARGETS",
    "VC_SHARE",
    "WINDOWS",
    "Target",
    "apply",
    "best",
    "distance",
    "loss",
    "mean_of",
]


#: Port buffer sizes tried [cells].
BUFFERS = (256, 512, 1024, 2048)
#: TCP socket buffers tried [bytes] (4.4BSD's default is 8 KB, spec A-7).
WINDOWS = (4096, 8192, 16384)
#: The configuration the fit runs: the one of the thesis' published switch drop rate (§5.5.2).
FIT_CONFIG = "noqos-conv-svccache"
#: Fraction of a buffer (and of a per-VC share) at which EPD starts discarding frames.
EPD_FRACTION = 0.8
#: The per-VC share as a fraction of the port buffer.
VC_SHARE = 0.25
#: The setting the study file carries (chosen from the fit: docs/mah96.md, "Calibration").
KEPT = {"buffer_cells": 1024, "window_bytes": 8192}
#: Quick mode's scale (workstations per site, simulated seconds): the cheapest whose losses are
#: within 2x of the thesis' scale's (:func:`.calibrate.quick_scale`; docs/mah96.md, "Quick mode").
QUICK_SCALE = (100, 600.0)

FIXED = {
    "signalling processing": "1 ms per message per switch (spec A-8); the telnet connect rows (K-6, K-8, K-9, V-1) "
                             "stay in the validation set",
    "EPD thresholds": "80 % of every buffer and share (spec A-5)",
    "per-VC share": "a quarter of the port buffer (docs/mah96.md, 'Buffer sizes')",
}

READINGS = ("pooled", "queues")


@dataclass(frozen=True)
class Target:
    """One calibration row: the oracle row, the statistic of :mod:`.tables`, the thesis'
    range (lo = hi for a single value) and its words."""

    row: str
    stat: str
    lo: float
    hi: float
    thesis: str


#: The calibration set (the rows the fit sees), each on :data:`FIT_CONFIG`.
TARGETS = (
    Target("M-15 levels", "switch.drop_rate", 0.00051, 0.00051, "0.051 % (§5.5.2, conv-svccache)"),
    Target("K-10", "telnet.response.median", 0.080, 0.080, "≈80 ms (§5.6 from Q-3)"),
    Target("K-11", "telnet.response.p90", 0.175, 0.175, "≈175 ms (§5.6 from Q-3)"),
    Target("K-13", "audio.overdue", 0.05, 0.07, "≈5–7 % (§5.6 from Q-15)"),
)
#: The oracle rows the fit sees; every other row is validated.
CALIBRATION_ROWS = frozenset(t.row for t in TARGETS)
#: The statistic that stands for the switch drop rate under each reading.
DROP_STAT = {"pooled": "switch.drop_rate", "queues": "switch.drop_rate_queues"}


def apply(sc: Scenario, buffer_cells: int, window_bytes: int) -> Scenario:
    """``sc`` with every switch output port and router adapter holding ``buffer_cells``
    (EPD and the per-VC share as the study file: :data:`EPD_FRACTION`, :data:`VC_SHARE`) and
    every TCP application's socket buffers at ``window_bytes``."""
    share = max(1, round(buffer_cells * VC_SHARE))
    for k in range(len(sc.doc["switch"])):
        sc.set(f"switch[{k}].buffer_cells", buffer_cells)
        sc.set(f"switch[{k}].epd_threshold_cells", math.ceil(EPD_FRACTION * buffer_cells))
        sc.set(f"switch[{k}].vc_buffer_cells", share)
        sc.set(f"switch[{k}].vc_epd_threshold_cells", math.ceil(EPD_FRACTION * share))
    for k in range(len(sc.doc["site"])):
        sc.set(f"site[{k}].router_buffer_cells", buffer_cells)
    for k, t in enumerate(sc.doc["traffic"]):
        if t["app"]["kind"] not in ("audio", "video"):
            sc.set(f"traffic[{k}].window_bytes", window_bytes)
    return sc


def mean_of(runs: list[dict], stat: str) -> float | None:
    """Mean over seeds of one per-run statistic (runs without it left out)."""
    vals = [r[stat] for r in runs if r.get(stat) is not None]
    return float(np.mean(vals)) if vals else None


def distance(x: float | None, lo: float, hi: float) -> float:
    """Squared log distance of ``x`` from ``[lo, hi]``; 0 inside, infinite with no value."""
    if x is None or x <= 0:
        return math.inf
    nearest = min(max(x, lo), hi)
    return math.log(x / nearest) ** 2


def loss(runs: list[dict], reading: str = "pooled") -> float:
    """The fit's objective on one grid point's runs (per-run statistics of :mod:`.tables`)."""
    total = 0.0
    for t in TARGETS:
        stat = DROP_STAT[reading] if t.stat == "switch.drop_rate" else t.stat
        total += distance(mean_of(runs, stat), t.lo, t.hi)
    return total


def best(points: dict[tuple[int, int], list[dict]], reading: str) -> tuple[int, int]:
    """The grid point ``(buffer_cells, window_bytes)`` of least :func:`loss` under ``reading``;
    ties go to the smaller buffer, then the smaller window."""
    return min(points, key=lambda p: (loss(points[p], reading), p))
