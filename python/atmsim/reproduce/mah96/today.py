"""Mah with today's TCP (``atmsim reproduce mah96 --tcp SPEC``; :mod:`atmsim.study.today`):
do VC policies matter for the Web?

The profile's pass runs a subset, not the 103 configurations: the seven without QoS
(:data:`SUBSET`: every multiplexing policy — per conversation, per application, per router
pair — with each VC management its mux allows — svc, svccache, pvc), at the mode's scale and
seeds. Those are the VC policies; QoS is a separate question. BSD's numbers are the same seven
configurations, read back from the store when the study has already run them.

Key numbers: the Web page time (``http.page``, Table 3-3), median and 90th percentile, mean
over the seeds, per configuration [s]. "Matter" is the spread: the slowest configuration's
page median against the fastest's."""

from __future__ import annotations

import math
import statistics
from typing import TYPE_CHECKING

from ...study.tcp_profile import TcpProfile
from ...study.today import Comparison, KeyRow, Numbers, note

if TYPE_CHECKING:
    from . import Study

__all__ = ["COMPARISON", "SUBSET", "note_study"]

#: The configurations the profile's pass runs: all seven without QoS.
SUBSET = ("noqos-conv-svc", "noqos-conv-svccache", "noqos-app-svc", "noqos-app-svccache", "noqos-router-pvc",
          "noqos-router-svc", "noqos-router-svccache")
STATS = ("http.page.median", "http.page.p90")


def key(config: str, stat: str) -> str:
    return f"{config} {stat}"


def note_study(study: Study) -> None:
    """Note the key numbers of ``study``'s runs of :data:`SUBSET` (mean over seeds)."""
    for config in SUBSET:
        for stat in STATS:
            xs = [r[stat] for r in study.stats.get(config, []) if r.get(stat) is not None]
            if xs:
                note(key(config, stat), statistics.fmean(xs))


def spread(numbers: Numbers) -> tuple[float, str, float, str, float]:
    """(slowest / fastest − 1 [%], fastest config, its page median, slowest config, its page median)."""
    med = {c: numbers[key(c, "http.page.median")] for c in SUBSET if key(c, "http.page.median") in numbers}
    if not med:
        return math.nan, "—", math.nan, "—", math.nan
    lo, hi = min(med, key=med.__getitem__), max(med, key=med.__getitem__)
    return 100 * (med[hi] / med[lo] - 1), lo, med[lo], hi, med[hi]


def page_change(bsd: Numbers, modern: Numbers) -> tuple[float, float, float]:
    """The profile's page median against BSD's, configuration by configuration [%]: (mean,
    lowest, highest); NaN when no configuration has both."""
    ks = [key(c, "http.page.median") for c in SUBSET]
    xs = [100 * (modern[k] / bsd[k] - 1) for k in ks if k in modern and k in bsd and bsd[k] > 0]
    return (statistics.fmean(xs), min(xs), max(xs)) if xs else (math.nan, math.nan, math.nan)


def answer(profile: TcpProfile, bsd: Numbers, modern: Numbers) -> str:
    s, lo, x_lo, hi, x_hi = spread(modern)
    b, b_lo, y_lo, b_hi, y_hi = spread(bsd)
    mean, least, most = page_change(bsd, modern)
    return (f"With {profile.label}, the VC policy changes the Web page median by {s:.0f} % ({lo} {x_lo:.2f} s to {hi} "
            f"{x_hi:.2f} s over the seven configurations without QoS); with BSD Reno by {b:.0f} % ({b_lo} {y_lo:.2f} s "
            f"to {b_hi} {y_hi:.2f} s). Against BSD, {profile.label} changes each configuration's page median by "
            f"{mean:+.1f} % on average ({least:+.1f} to {most:+.1f} %).")


COMPARISON = Comparison(
    "Do VC policies matter for the Web?",
    tuple(KeyRow(key(c, st), f"{c}: Web page {'median' if st.endswith('median') else '90th percentile'}",
                 "— (no number without QoS)", "s", "{:.2f}") for c in SUBSET for st in STATS),
    answer,
    scope="Configurations run with today's TCP: the seven without QoS (" + ", ".join(SUBSET) + ") at this report's "
          "scale and seeds; the other configurations are BSD's only.",
)
