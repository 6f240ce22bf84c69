"""MAGIC with today's TCP (``atmsim reproduce magic95 --tcp SPEC``; :mod:`atmsim.study.today`):
does cell loss without frame discard waste the link?

The ASX-100's 256-cell ports drop cells, not frames; unpaced, two senders into one port lose
cells of many frames and every damaged frame is resent whole (Tables 2 and 3). Paced at 70 or
35 Mb/s they lose nothing. The share of the paced goodput that the unpaced pair loses is the
study's answer; the key numbers are the rows of its verdicts (``ours``)."""

from __future__ import annotations

from ...study.tcp_profile import TcpProfile
from ...study.today import Comparison, KeyRow, Numbers

__all__ = ["COMPARISON"]

T2_UNPACED, T2_PACED = "Table 2 unpaced, half_window", "Table 2 paced"
T3_UNPACED, T3_PACED = "Table 3 unpaced, half_window", "Table 3 paced"


def lost(numbers: Numbers, unpaced: str, paced: str) -> float:
    """The share of the paced goodput lost unpaced [%]."""
    u, p = numbers.get(unpaced, float("nan")), numbers.get(paced, float("nan"))
    return 100.0 * (1.0 - u / p) if p else float("nan")


def answer(profile: TcpProfile, bsd: Numbers, modern: Numbers) -> str:
    return (f"Without pacing, cell loss without frame discard costs {profile.label} {lost(modern, T2_UNPACED, T2_PACED):.0f} % "
            f"of the paced goodput with one sender (Table 2: {modern.get(T2_UNPACED, float('nan')):.2f} against "
            f"{modern.get(T2_PACED, float('nan')):.1f} Mb/s) and {lost(modern, T3_UNPACED, T3_PACED):.0f} % with two "
            f"(Table 3), against BSD Reno's {lost(bsd, T2_UNPACED, T2_PACED):.0f} % and {lost(bsd, T3_UNPACED, T3_PACED):.0f} %.")


COMPARISON = Comparison(
    "Does cell loss without frame discard waste the link?",
    (
        KeyRow("Table 1, window 64k", "Table 1, 64 kB window (no loss)", "59.6", "Mb/s"),
        KeyRow("Table 1, window 128k", "Table 1, 128 kB window (no loss)", "119", "Mb/s"),
        KeyRow(T2_UNPACED, "Table 2, one sender, unpaced", "0.87", "Mb/s"),
        KeyRow(T2_PACED, "Table 2, one sender, paced 70 Mb/s", "68.2", "Mb/s"),
        KeyRow(T3_UNPACED, "Table 3, two senders, unpaced (sum)", "1.66", "Mb/s"),
        KeyRow(T3_PACED, "Table 3, two senders, paced 35 Mb/s each (sum)", "52.36", "Mb/s"),
    ),
    answer,
)
