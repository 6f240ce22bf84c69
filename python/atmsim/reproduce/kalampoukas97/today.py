"""Kalampoukas with today's TCP (``atmsim reproduce kalampoukas97 --tcp SPEC``;
:mod:`atmsim.study.today`): does ack compression cost two-way traffic over rate-controlled
channels?

The cost is measured on §5.2's symmetric network: the mean efficiency of the two directions
with traffic both ways against the same connection alone (no reverse traffic, the study's
one-way control), in points. The other key rows are the verdicts' numbers (``ours``); the
one-way and two-way means are :func:`atmsim.study.today.note`'d by the study's §6 section."""

from __future__ import annotations

import math

from ...study.tcp_profile import TcpProfile
from ...study.today import Comparison, KeyRow, Numbers, note, than

__all__ = ["COMPARISON", "ONE_WAY", "TWO_WAY", "note"]

#: The key numbers the study notes: §5.2's one-way control and its two-way mean efficiency [%].
ONE_WAY, TWO_WAY = "§5.2 one-way efficiency", "§5.2 two-way efficiency (both directions)"


def cost(numbers: Numbers) -> float:
    """Points of efficiency two-way traffic loses against one-way on §5.2."""
    return numbers.get(ONE_WAY, math.nan) - numbers.get(TWO_WAY, math.nan)


def answer(profile: TcpProfile, bsd: Numbers, modern: Numbers) -> str:
    c, b = cost(modern), cost(bsd)
    return (f"Ack compression costs {profile.label} {c:.1f} points of efficiency on §5.2's ABR channels "
            f"({modern.get(TWO_WAY, math.nan):.1f} % two-way against {modern.get(ONE_WAY, math.nan):.1f} % one-way), "
            f"{than(c, b, 0.05)} BSD Reno's {b:.1f} points ({bsd.get(TWO_WAY, math.nan):.1f} % against {bsd.get(ONE_WAY, math.nan):.1f} %).")


COMPARISON = Comparison(
    "Does ack compression cost two-way traffic over rate-controlled channels?",
    (
        KeyRow(ONE_WAY, "§5.2 one connection alone (one-way control)", "— (not run)", "%", "{:.1f}"),
        KeyRow("§5.2 efficiency 65.1 %", "§5.2 two-way, each direction", "65.1", "%", "{:.1f}"),
        KeyRow("§5.3 fast connection 56 % (73.5 Mb/s)", "§5.3 fast connection", "56", "%", "{:.1f}"),
        KeyRow("§5.3 slow connection 'about 80 %', judged against Eq. 4.2's 84 %", "§5.3 slow connection", "about 80", "%",
               "{:.1f}"),
        KeyRow("§5.5 overall efficiency about 70 %", "§5.5 client–server, overall (5.05 ms)", "about 70", "%", "{:.1f}"),
        KeyRow("§6 ack priority removes ack compression", "§6 ack priority, §5.2", "'eliminates' (not simulated)", "%", "{:.1f}"),
        KeyRow("§6 separate VCs remove it", "§6 separate VCs, §5.2", "'eliminates' (not simulated)", "%", "{:.1f}"),
    ),
    answer,
)
