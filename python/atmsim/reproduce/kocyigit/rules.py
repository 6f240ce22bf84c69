"""The verdict rules of the Koçyiğit et al. reproduction: functions of the measured curves that
return a :class:`~atmsim.study.Rule` (or the finding it rests on); each is tested on both sides
of its thresholds (``tests/test_kocyigit.py``)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...study import Rule, holds
from .design import ALPHA_PER_LOAD, BG_LOADS_MBPS, LINK_MBPS, N_TCP

__all__ = [
    "Findings",
    "buffer_gain_rule",
    "bursty_rule",
    "eff_poor_rule",
    "efficiency_falls",
    "flat20_rule",
    "judge",
    "shaping35_rule",
    "shaping_hardly_matters_rule",
    "unshaped_ahead",
]


def shaping35_rule(curves: dict[str, list[tuple[float, dict]]]) -> Rule:
    """Figs. 3/5: goodput with 35 Mb/s shaping at least the unshaped one — 'differs' where unshaped
    TCP is significantly higher at some load (:func:`unshaped_ahead`)."""
    return holds(f"unshaped never above 35 Mb/s shaping by a one-sided Welch test at p < {ALPHA_PER_LOAD:g} per load",
                 not unshaped_ahead(curves))


def unshaped_ahead(curves: dict[str, list[tuple[float, dict]]]) -> list[tuple[float, float]]:
    """(load, p) where unshaped TCP's goodput is higher than with 35 Mb/s shaping by a
    one-sided Welch test at :data:`ALPHA_PER_LOAD`."""
    import scipy.stats
    out = []
    for (bg, u), (_, s) in zip(curves["unshaped"], curves["35 Mb/s"]):
        a, b = u["goodput_runs"], s["goodput_runs"]
        if len(a) < 2 or len(b) < 2 or (np.std(a) == 0 and np.std(b) == 0):
            p = 0.0 if np.mean(a) > np.mean(b) and np.std(a) == 0 else 1.0
        else:
            p = float(scipy.stats.ttest_ind(a, b, equal_var=False, alternative="greater").pvalue)
        if p < ALPHA_PER_LOAD:
            out.append((bg, p))
    return out


def flat20_rule(s20: list[float]) -> Rule:
    """20 Mb/s shaping: goodput flat within 5 % while 4 × 20 + background < 150 Mb/s, then
    below 90 % of that level (``s20``: goodput per background load of BG_LOADS_MBPS)."""
    under = [x for bg, x in zip(BG_LOADS_MBPS, s20) if N_TCP * 20 + bg < LINK_MBPS]
    return holds("flat within 5 % while 4 × 20 + background < 150 Mb/s, then below 90 % of it",
                 max(under) - min(under) < 0.05 * max(under) and s20[-1] < 0.9 * min(under))


def efficiency_falls(eff: dict[str, list[float]]) -> bool:
    """Efficiency falls once the offered total exceeds L0: 35 Mb/s shaping offers 140 Mb/s, so
    from 25 Mb/s of background on (``eff``: per curve, per background load)."""
    e35 = eff["35 Mb/s"]
    return e35[0] > 0.97 and all(e < e35[0] for e in e35[2:]) and all(pts[-1] < pts[0] for pts in eff.values())


def eff_poor_rule(eff: dict[str, list[float]]) -> Rule:
    """Efficiency falls once overloaded and becomes 'very poor', read as below 0.5."""
    return holds("falls once 4 × 35 + background > 150 Mb/s, and some point below 0.5",
                 efficiency_falls(eff) and min(min(pts) for pts in eff.values()) < 0.5)


def bursty_rule(eff: dict[str, list[float]]) -> Rule:
    """'The more bursty the traffic, the poorer the efficiency': unshaped lowest (within 0.01)
    at every non-zero background load."""
    return holds("unshaped efficiency lowest (within 0.01) at every non-zero background load",
                 all(eff["unshaped"][i] <= min(eff["20 Mb/s"][i], eff["35 Mb/s"][i]) + 0.01
                     for i in range(1, len(BG_LOADS_MBPS))))


def buffer_gain_rule(gain: list[float]) -> Rule:
    """A larger buffer raises unshaped goodput 'not very significantly': every 5000/1000-cell
    ratio between 0.9 and 1.5."""
    return holds("every 5000/1000-cell goodput ratio in [0.9, 1.5]", all(0.9 <= g <= 1.5 for g in gain))


def shaping_hardly_matters_rule(at100: list[float]) -> Rule:
    """At 100 Mb/s of background the goodputs of every shaping and buffer within 35 % of the largest."""
    return holds("at 100 Mb/s of background every goodput within 35 % of the largest",
                 max(at100) - min(at100) < 0.35 * max(at100))


@dataclass(frozen=True)
class Findings:
    """The paper's findings judged on one family of curves; ``eff_falls_only``: efficiency
    falls at every load past the bottleneck (not only on the whole)."""

    ok35: Rule
    flat20: Rule
    eff_falls: Rule
    eff_falls_only: bool
    bursty: Rule


def judge(curves: dict[str, list[tuple[float, dict]]]) -> Findings:
    """The paper's findings for one family of curves (unshaped, 20 and 35 Mb/s)."""
    s20 = [p["goodput"].estimate for _, p in curves["20 Mb/s"]]
    ok35 = shaping35_rule(curves)
    eff = {label: [p["efficiency"].estimate for _, p in pts] for label, pts in curves.items()}
    return Findings(ok35=ok35, flat20=flat20_rule(s20), eff_falls=eff_poor_rule(eff),
                    eff_falls_only=efficiency_falls(eff), bursty=bursty_rule(eff))
