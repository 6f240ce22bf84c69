"""Koçyiğit with today's TCP (``atmsim reproduce kocyigit --tcp SPEC``; :mod:`atmsim.study.today`):
does shaping help TCP?

The key numbers are those of Figures 3–6 (VC-based shaping): each curve's mean TCP goodput per
connection over the five background loads (0–100 Mb/s) [Mb/s] and its lowest efficiency
(goodput / payload sent), at both buffer sizes; :func:`atmsim.study.today.note`'d by the study
once its curves are run. The paper publishes curves, not numbers: its column gives its
statements. Shaping "helps" by the change of the mean goodput from unshaped to 35 Mb/s."""

from __future__ import annotations

import math

from ...study.tcp_profile import TcpProfile
from ...study.today import Comparison, KeyRow, Numbers, note, pct_change

__all__ = ["COMPARISON", "efficiency_key", "goodput_key", "note"]

BUFFERS = (1000, 5000)
SHAPINGS = ("unshaped", "20 Mb/s", "35 Mb/s")


def goodput_key(shaping: str, buffer_cells: int) -> str:
    """Mean goodput per connection over the background loads [Mb/s]."""
    return f"goodput, {shaping}, {buffer_cells} cells"


def efficiency_key(shaping: str, buffer_cells: int) -> str:
    """Lowest efficiency over the background loads."""
    return f"lowest efficiency, {shaping}, {buffer_cells} cells"


def gain(numbers: Numbers, buffer_cells: int) -> float:
    """Change of the mean goodput from unshaped TCP to 35 Mb/s shaping [%]."""
    return pct_change(numbers.get(goodput_key("35 Mb/s", buffer_cells), math.nan),
                      numbers.get(goodput_key("unshaped", buffer_cells), math.nan))


def _signed(x: float) -> str:
    return f"{x:+.0f} %".replace("-", "−")


def answer(profile: TcpProfile, bsd: Numbers, modern: Numbers) -> str:
    g1, g5 = gain(modern, 1000), gain(modern, 5000)
    return (f"For {profile.label}, shaping each connection to 35 Mb/s changes its mean goodput against unshaped TCP by "
            f"{_signed(g1)} with a 1000-cell buffer ({modern.get(goodput_key('35 Mb/s', 1000), math.nan):.1f} against "
            f"{modern.get(goodput_key('unshaped', 1000), math.nan):.1f} Mb/s per connection, mean over 0–100 Mb/s of "
            f"background) and by {_signed(g5)} with 5000 cells; for BSD Reno, by {_signed(gain(bsd, 1000))} and "
            f"{_signed(gain(bsd, 5000))}.")


COMPARISON = Comparison(
    "Does shaping help TCP?",
    tuple(KeyRow(goodput_key(s, b), f"Fig. {3 if b == 1000 else 5}: mean goodput, {s}, {b} cells",
                 "35 Mb/s ≥ unshaped (curves)" if s != "20 Mb/s" else "flat to ~75 Mb/s (curve)", "Mb/s", "{:.1f}")
          for b in BUFFERS for s in SHAPINGS)
    + tuple(KeyRow(efficiency_key(s, b), f"Fig. {4 if b == 1000 else 6}: lowest efficiency, {s}, {b} cells",
                   "very poor once overloaded", "", "{:.2f}") for b in BUFFERS for s in SHAPINGS),
    answer,
)
