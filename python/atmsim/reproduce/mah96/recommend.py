"""Mah (1996) reproduction: the thesis' recommendations, restated and checked on our runs.

The conclusions of Chapter 4 (§4.7), Chapter 5 (§5.6), Chapter 6 (§6.7) and their summary
in §7.1, in our own words, each with the evidence the thesis gives for it turned into
checks on the per-run statistics — the same Mann-Whitney machinery as the oracle rows
(:mod:`.oracle`):

* **direction**: B against A in the stated direction (Hodges-Lehmann shift) in more than half
  of the comparisons ("most"), or in all of them;
* **calm**: no more significant differences at 90 % than identical configurations would give
  (the oracle's ``chance`` rule) — "without significantly affecting the others";
* **order**: one policy's relative change of the means against another's, pair by pair;
* **magnitude**: a size bound on the change of the means, judged at the thesis' scale only.

A recommendation *agrees* when every check judged agrees, *differs* when one differs, and is
*not comparable* when a configuration is missing or nothing could be judged at this scale.
The direction checks carry no magnitude: a recommendation states a direction, not a size, and
the sizes behind it are judged on the oracle rows it rests on (the 5× rule of :mod:`.oracle`).
:func:`recommendations` returns ``(id, where, text, word, ours)`` for each.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .oracle import AGREES, DIFFERS, NOT_COMPARABLE, STATS, chance_allowance, mean_change, shift_test, untestable
from .rows import SETUPS, mux_pairs, policy_pairs, vc_pairs

__all__ = [
    "FTP",
    "HTTP",
    "PERCEPTIBLE_S",
    "RECOMMENDATIONS",
    "TEL",
    "Check",
    "P",
    "Pairs",
    "calm",
    "direction",
    "magnitude",
    "order",
    "ratio",
    "recommendations",
]


Pairs = tuple[tuple[str, str], ...]
#: A check: (runs, at_scale) → (True / False / None = not judged, what our runs say).
Check = Callable[[dict[str, list[dict]], bool], tuple[bool | None, str]]

TEL = ("telnet.connect.median", "telnet.connect.p90", "telnet.response.median", "telnet.response.p90")
FTP = ("ftp.file.median", "ftp.file.p90", "ftp.session.median", "ftp.session.p90")
HTTP = ("http.item.median", "http.item.p90", "http.page.median", "http.page.p90")
AUDIO, VIDEO = ("audio.loss", "audio.overdue"), ("video.loss",)
#: "Probably not perceptible" (§4.4.1): our bound for a change of telnet response times.
PERCEPTIBLE_S = 0.1


def _vals(runs, config: str, stat: str) -> list[float]:
    return [r[stat] for r in runs.get(config, []) if r.get(stat) is not None]


def _tests(runs, pairs: Pairs, stats: tuple[str, ...]):
    """Shift tests B against A, or the name of a configuration without samples."""
    out = []
    for a, b in pairs:
        for st in stats:
            va, vb = _vals(runs, a, st), _vals(runs, b, st)
            if not va or not vb:
                return None, a if not va else b
            out.append(shift_test(va, vb, a, b, st))
    return out, None


def direction(label: str, pairs: Pairs, stats: tuple[str, ...], expect: str, most: bool = True) -> Check:
    def check(runs, at_scale):
        tests, missing = _tests(runs, pairs, stats)
        if tests is None:
            return None, f"{label}: no samples ({missing})"
        k, n = sum(t.direction == expect for t in tests), len(tests)
        sig = sum(t.sig90 and t.direction == expect for t in tests)
        ok = k * 2 > n if most else k == n
        return ok, f"{label}: {expect} in {k} of {n} (sig. at 90 % in {sig}; {'most' if most else 'all'} needed)"

    return check


def calm(label: str, pairs: Pairs, stats: tuple[str, ...]) -> Check:
    def check(runs, at_scale):
        tests, missing = _tests(runs, pairs, stats)
        if tests is None:
            return None, f"{label}: no samples ({missing})"
        if why := untestable(tests):
            return None, f"{label}: {why}"
        sig = [t for t in tests if t.sig90]
        allowed = chance_allowance(len(tests), tests[0].achieved)
        worse = ", ".join(f"{STATS[t.stat].label} {t.b} {t.direction}" for t in sig[:4]) + (" …" if len(sig) > 4 else "")
        return len(sig) <= allowed, (f"{label}: {len(sig)} of {len(tests)} sig. at 90 % (chance allows ≤ {allowed})"
                                     + (f": {worse}" if sig else ""))

    return check


def _known(values: list[float | None]) -> list[float] | None:
    """``values`` if none is None, else None."""
    known = [v for v in values if v is not None]
    return known if len(known) == len(values) else None


def _change(runs, a: str, b: str, stat: str, delta: bool = False) -> float | None:
    va, vb = _vals(runs, a, stat), _vals(runs, b, stat)
    return mean_change(va, vb, delta) if va and vb else None


def order(label: str, bigger: Pairs, smaller: Pairs, stat: str) -> Check:
    """The relative change over ``bigger[i]`` exceeds that over ``smaller[i]`` for every i."""

    def check(runs, at_scale):
        big = _known([_change(runs, a, b, stat) for a, b in bigger])
        small = _known([_change(runs, a, b, stat) for a, b in smaller])
        if big is None or small is None:
            return None, f"{label}: no samples"
        text = "; ".join(f"{100 * x:+.0f} % vs {100 * y:+.0f} %" for x, y in zip(big, small))
        return all(x > y for x, y in zip(big, small)), f"{label}: {text}"

    return check


def magnitude(label: str, pairs: Pairs, stat: str, bound: float) -> Check:
    """|B − A| of the means below ``bound`` (stored units) for every pair; thesis' scale only."""

    def check(runs, at_scale):
        d = _known([_change(runs, a, b, stat, delta=True) for a, b in pairs])
        if d is None:
            return None, f"{label}: no samples"
        text = f"{label}: |Δ| {', '.join(STATS[stat].show(abs(x)) for x in d)} {STATS[stat].unit}"
        return (all(abs(x) < bound for x in d) if at_scale else None), text + ("" if at_scale else " (not judged below scale)")

    return check


def ratio(label: str, pairs: Pairs, stat: str, at_least: float) -> Check:
    """mean(A) / mean(B) ≥ ``at_least`` for every pair (e.g. svc / svccache setups)."""

    def check(runs, at_scale):
        rs = []
        for a, b in pairs:
            va, vb = _vals(runs, a, stat), _vals(runs, b, stat)
            if not va or not vb or not np.mean(vb):
                return None, f"{label}: no samples"
            rs.append(float(np.mean(va) / np.mean(vb)))
        return all(r >= at_least for r in rs), f"{label}: {', '.join(f'{r:.1f}×' for r in rs)}"

    return check


def P(policy: str, base: str = "noqos") -> Pairs:
    return policy_pairs(base, policy, SETUPS)


def _others(own: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(s for s in TEL + FTP + HTTP + AUDIO + VIDEO if s not in own)


RECOMMENDATIONS: tuple[tuple[str, str, str, tuple[Check, ...]], ...] = (
    ("R-1", "§4.7, §7.1", "Static priority is the mechanism to favour interactive and multimedia traffic: the favoured "
     "application gains and the others are not significantly disturbed.",
     (direction("sp-telnet: telnet response 90th", P("sp-telnet"), ("telnet.response.p90",), "lower"),
      direction("sp-audio: audio loss, overdue", P("sp-audio"), AUDIO, "lower"),
      direction("sp-video: video loss", P("sp-video"), VIDEO, "lower"),
      calm("sp-telnet: the others", P("sp-telnet"), _others(TEL)),
      calm("sp-audio: the others", P("sp-audio"), _others(AUDIO)),
      calm("sp-video: the others", P("sp-video"), _others(VIDEO)))),
    ("R-2", "§4.4.1, §4.7, §7.1 (Tab 4-1)", "Do not give bulk transfers high static priority: FTP gains, but "
     "interactive and continuous-media traffic is starved.",
     (direction("sp-ftp: FTP file 90th", P("sp-ftp"), ("ftp.file.p90",), "lower"),
      direction("sp-ftp: telnet response 90th", P("sp-ftp"), ("telnet.response.p90",), "higher", most=False),
      direction("sp-ftp: audio loss, video loss", P("sp-ftp"), ("audio.loss", "video.loss"), "higher", most=False))),
    ("R-3", "§4.4.2, §4.7", "Signalling should have the highest priority: below a large volume of prioritised data "
     "it starves, and VC setups (telnet connects) slow down — less so when idle VCs are cached.",
     (direction("sp-qos1 (svc): telnet connect 90th", policy_pairs("noqos", "sp-qos1", ("app-svc", "conv-svc")),
                ("telnet.connect.p90",), "higher", most=False),
      order("sp-qos1 telnet connect 90th change, svc vs svccache (app, conv)",
            policy_pairs("noqos", "sp-qos1", ("app-svc", "conv-svc")),
            policy_pairs("noqos", "sp-qos1", ("app-svccache", "conv-svccache")), "telnet.connect.p90"))),
    ("R-4", "§4.5, §4.7, §7.1", "Rate-controlled (policed) VCs restrain bulk transfers, but the other applications "
     "show no clear benefit from the bandwidth left over.",
     (direction("wc-ftp: FTP file, session 90th", P("wc-ftp"), ("ftp.file.p90", "ftp.session.p90"), "higher"),
      direction("wc-http: HTTP page 90th", P("wc-http"), ("http.page.p90",), "higher"),
      calm("wc-ftp: the others", P("wc-ftp"), _others(FTP)),
      calm("wc-http: the others", P("wc-http"), _others(HTTP)))),
    ("R-5", "§4.6, §4.7, §7.1", "Rate-jitter control smooths bursts and so helps long TCP transfers: policed bulk "
     "transfers suffer less under nwc than under wc, with fewer cells dropped.",
     (direction("wc-ftp→nwc-ftp: FTP file, session 90th", P("nwc-ftp", "wc-ftp"), ("ftp.file.p90", "ftp.session.p90"), "lower"),
      direction("wc-http→nwc-http: HTTP page 90th", P("nwc-http", "wc-http"), ("http.page.p90",), "lower"),
      direction("wc-ftp→nwc-ftp: switch cell drop rate", P("nwc-ftp", "wc-ftp"), ("switch.drop_rate",), "lower"))),
    ("R-6", "§4.6.2, §4.7", "With many guaranteed VCs, admission failures send conversations onto unpoliced best-effort "
     "VCs where they do better than if admitted; refused traffic should get a class below best effort.",
     (direction("nwc-http→nwc-isp: guaranteed-VC failure rate", P("nwc-isp", "nwc-http"), ("vc.guaranteed_failure_rate",), "higher"),
      direction("nwc-http→nwc-isp: HTTP page 90th", P("nwc-isp", "nwc-http"), ("http.page.p90",), "lower"),
      direction("nwc-ftp→nwc-qos1: FTP session 90th", P("nwc-qos1", "nwc-ftp"), ("ftp.session.p90",), "lower"))),
    ("R-7", "§4.7 (Tab 4-1)", "Guaranteed-performance VCs are a useful option for multimedia: audio is less often "
     "late and video loses less, without significant effects on the others.",
     (direction("wc-audio, nwc-audio: audio overdue", P("wc-audio") + P("nwc-audio"), ("audio.overdue",), "lower"),
      direction("wc-video, nwc-video: video loss", P("wc-video") + P("nwc-video"), VIDEO, "lower"),
      calm("wc-audio, nwc-audio: the others", P("wc-audio") + P("nwc-audio"), _others(AUDIO)),
      calm("wc-video, nwc-video: the others", P("wc-video") + P("nwc-video"), _others(VIDEO)))),
    ("R-8", "§4.4.1, §4.5.1, §4.6.1", "Special treatment for telnet buys little: static priority shortens its "
     f"response times by amounts users would hardly notice (here: < {1000 * PERCEPTIBLE_S:.0f} ms), and policed "
     "VCs change nothing significant.",
     (direction("sp-telnet: telnet response median, 90th", P("sp-telnet"), ("telnet.response.median", "telnet.response.p90"), "lower"),
      magnitude("sp-telnet: telnet response 90th", P("sp-telnet"), "telnet.response.p90", PERCEPTIBLE_S),
      calm("wc-telnet: telnet", P("wc-telnet"), TEL))),
    ("R-9", "§5.6, §7.1", "Aggregate short transfers onto shared VCs (per-application multiplexing): they skip the VC "
     "setup.",
     (direction("app→conv (noqos, sp-http): HTTP item median", mux_pairs("noqos") + mux_pairs("sp-http"),
                ("http.item.median",), "higher"),
      direction("app→conv (noqos, sp-ftp): FTP file median", mux_pairs("noqos") + mux_pairs("sp-ftp"), ("ftp.file.median",), "higher"),
      direction("app→conv (noqos, sp-ftp): telnet connect median", mux_pairs("noqos") + mux_pairs("sp-ftp"),
                ("telnet.connect.median",), "higher"))),
    ("R-10", "§5.6, §7.1", "Under policing, long transfers are better on VCs of their own (per-conversation): bursts on "
     "a shared VC push back the next conversation's eligibility times.",
     (direction("app→conv (wc-ftp, nwc-ftp): FTP file, session 90th", mux_pairs("wc-ftp") + mux_pairs("nwc-ftp"),
                ("ftp.file.p90", "ftp.session.p90"), "lower"),
      direction("app→conv (nwc-http): HTTP page 90th", mux_pairs("nwc-http"), ("http.page.p90",), "lower"))),
    ("R-11", "§6.7, §7.1", "Networks using switched VCs should cache idle VCs: connects get faster and the signalling "
     "load falls by more than an order of magnitude, for a modest number of extra VCs.",
     (direction("svc→svccache (noqos, wc-telnet, sp-telnet): telnet connect median",
                vc_pairs("noqos") + vc_pairs("wc-telnet") + vc_pairs("sp-telnet"), ("telnet.connect.median",), "lower", most=False),
      ratio("noqos svc / svccache VC setups (app, conv)", vc_pairs("noqos"), "vc.setups", 10.0))),
)


def _combine(results: list[tuple[bool | None, str]]) -> tuple[str, str]:
    judged = [ok for ok, _ in results if ok is not None]
    missing = any(ok is None and "no samples" in text for ok, text in results)
    word = (DIFFERS if False in judged else NOT_COMPARABLE if missing or not judged else AGREES)
    return word, "; ".join(text for _, text in results)


def recommendations(runs: dict[str, list[dict]], at_scale: bool) -> list[tuple[str, str, str, str, str]]:
    """(id, where, our restatement, verdict word, what our runs say) for every recommendation."""
    out = []
    for rid, where, text, checks in RECOMMENDATIONS:
        word, ours = _combine([c(runs, at_scale) for c in checks])
        out.append((rid, where, text, word, ours))
    return out
