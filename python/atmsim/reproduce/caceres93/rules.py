"""The verdict rules of Cáceres et al. (1993), one per item of the report (Figures 2–9, §6,
§7), each a function of the measured numbers that returns a :class:`~atmsim.study.Rule`; each is
tested on both sides of its thresholds (``tests/test_caceres93.py``)."""

from __future__ import annotations

from ...study import Rule, holds

__all__ = [
    "fig2_rule",
    "fig5_rule",
    "figs34_rule",
    "figs67_rule",
    "figs89_rule",
    "s6_phenomena_rule",
    "s6_saturation_rule",
    "s7_fair_rule",
    "s7_worse_rule",
    "saturating_thresholds",
]


def fig2_rule(ftp_sat: float | None) -> Rule:
    """Fig. 2: FTP saturates the link (utilisation ≥ 0.9) at 3–4 conversations."""
    return holds("FTP utilisation first ≥ 0.9 at 3–4 conversations", ftp_sat is not None and 3 <= ftp_sat <= 4)


def figs34_rule(last: dict[str, float]) -> Rule:
    """Figs. 3–4: at 5 FTP, per-destination delay > 1.5 × the others', which stay below 1.5 RTT."""
    others = max(last["per-conversation"], last["per-type"])
    return holds("at 5 FTP: per-destination delay above 1.5 × the other policies', theirs below 1.5 RTT",
                 last["per-destination"] > 1.5 * others and others < 1.5)


def fig5_rule(thr5: dict[str, float]) -> Rule:
    """Fig. 5: the policies' FTP throughputs at 5 FTP within 10 % of the largest."""
    spread = max(thr5.values()) - min(thr5.values())
    return holds("at 5 FTP the policies' FTP throughputs within 10 % of the largest", spread < 0.1 * max(thr5.values()))


def figs67_rule(short: dict[str, float], whole: dict[str, float]) -> Rule:
    """Figs. 6–7: per-conversation the fairest, by 0.05 per 10 RTTs and 0.03 over the run."""
    return holds("per-conversation Jain above both shared policies' by 0.05 per 10 RTTs and 0.03 over the run",
                 short["per-conversation"] > max(short["per-type"], short["per-destination"]) + 0.05
                 and whole["per-conversation"] > max(whole["per-type"], whole["per-destination"]) + 0.03)


def figs89_rule(events: dict[str, float], at_max: dict[str, float]) -> Rule:
    """Figs. 8–9: no loss event per-conversation, some per-destination, and the window at its
    maximum in 10 points more of the samples."""
    return holds("no loss event per-conversation, some per-destination, window at 8 kB 10 points more often",
                 events["per-conversation"] == 0 and events["per-destination"] > 0
                 and at_max["per-conversation"] > at_max["per-destination"] + 0.1)


def s6_phenomena_rule(delay10: dict[str, float]) -> Rule:
    """§6: at 10 FTP on 3 Mb/s, per-destination delay > 1.5 × the other policies'."""
    return holds("at 10 FTP: per-destination delay above 1.5 × the other policies'",
                 delay10["per-destination"] > 1.5 * max(delay10["per-conversation"], delay10["per-type"]))


def saturating_thresholds(slow: dict[float, float | None], fast: dict[float, float | None]) -> list[float]:
    """The utilisation thresholds at which 1.5 Mb/s saturates at 3–4 conversations and 3 Mb/s
    at 7–8 (``slow``, ``fast``: threshold → saturation point, None if never reached)."""
    both = []
    for t, s in slow.items():
        f = fast.get(t)
        if s is not None and f is not None and 3 <= s <= 4 and 7 <= f <= 8:
            both.append(t)
    return both


def s6_saturation_rule(slow: dict[float, float | None], fast: dict[float, float | None]) -> Rule:
    """§6: some utilisation threshold puts 1.5 Mb/s at 3–4 and 3 Mb/s at 7–8 conversations."""
    both = saturating_thresholds(slow, fast)
    return holds("at one of the thresholds 0.9/0.95/0.98: 3–4 conversations saturate 1.5 Mb/s and 7–8 saturate 3 Mb/s",
                 bool(both))


def s7_fair_rule(short4: dict[str, float]) -> Rule:
    """§7: with items ×4, per-conversation Jain above both shared policies' by 0.05."""
    return holds("items ×4: per-conversation Jain above both shared policies' by 0.05",
                 short4["per-conversation"] > max(short4["per-type"], short4["per-destination"]) + 0.05)


def s7_worse_rule(short4: dict[str, float], short: dict[str, float]) -> Rule:
    """§7: with items ×4, both shared policies' Jain lower than with tcplib sizes."""
    return holds("items ×4: both shared policies' Jain below their value with tcplib sizes",
                 all(short4[p] < short[p] for p in ("per-type", "per-destination")))
