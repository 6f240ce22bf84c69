"""Mah (1996) reproduction: the per-run statistics of one simulation summary (spec §3.1–3.2).

One run of one configuration is reduced to the numbers the thesis compares (Table 3-3 and
§6.6): for telnet, FTP and HTTP the run's median and 90th percentile of each time metric
(computed by the core over the run's samples), the pooled audio and video loss rates and
the audio overdue rate, and the network counters — VC setups, setup rate, peak setups per
second, maximum VCs in use, cache hit rate, and the cell drop rate over the switches'
output queues. :func:`run_stats` returns them as a flat dict keyed as in :data:`STATS`; a
statistic with no samples in the run (e.g. no FTP session completed) is ``None``.

Under a QoS policy, guaranteed VCs fail in two senses, both summed over the
routers: per *setup request*, ``vc.guaranteed_failure_rate`` = refused / guaranteed setups
requested (§4.6.2, A-32: the thesis' VC failure rate, cache hits excluded); and per *VC
request*, ``vc.guaranteed_failure_rate_per_vc_request`` = refused / (guaranteed cache hits +
guaranteed setups requested), the share of every guaranteed request for a VC — served from
the cache or by a setup — that ended on a best-effort fallback. With caching the first
counts only the misses: it can be near 100 % while most guaranteed requests were served.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "BUSY_SITES",
    "SITES",
    "STATS",
    "SWITCHES",
    "TABLE_3_3",
    "Stat",
    "guaranteed_failure_rate",
    "guaranteed_failure_rate_per_vc_request",
    "hit_rate",
    "identical_metrics",
    "is_switch_port",
    "media_rates",
    "routers",
    "run_stats",
    "setup_rate",
    "switch_drop_rate",
    "switch_drop_rate_queues",
]


#: The six sites' routers (``<site>-router``), West then East.
SITES = ("berkeley", "lbl", "llnl", "illinois", "wisconsin", "rutgers")
#: The switches: the two hubs and one per site (their output queues are the "switch queues").
SWITCHES = ("HW", "HE", "S1", "S2", "S3", "S4", "S5", "S6")
#: The sites of the two most popular servers (§6.6 fn 4): the rank-1 Web server (berkeley) and
#: the rank-1 FTP server (illinois); the thesis collected per-second setups at these two routers.
BUSY_SITES = ("berkeley", "illinois")


@dataclass(frozen=True)
class Stat:
    """How a per-run statistic is shown: label, unit, factor from the stored value, format."""

    label: str
    unit: str
    scale: float = 1.0
    fmt: str = "{:.0f}"

    def show(self, x: float | None) -> str:
        return "—" if x is None else self.fmt.format(x * self.scale)


def _ms(label: str) -> Stat:
    return Stat(label, "ms", 1e3, "{:.0f}")


def _s(label: str) -> Stat:
    return Stat(label, "s", 1.0, "{:.2f}")


def _pct(label: str) -> Stat:
    return Stat(label, "%", 100.0, "{:.3f}")


#: Every per-run statistic, in the order of the report's tables. Times are stored in seconds
#: and rates as fractions.
STATS: dict[str, Stat] = {
    "telnet.connect.median": _ms("telnet connect, median"),
    "telnet.connect.p90": _ms("telnet connect, 90th"),
    "telnet.response.median": _ms("telnet response, median"),
    "telnet.response.p90": _ms("telnet response, 90th"),
    "ftp.file.median": _s("FTP file, median"),
    "ftp.file.p90": _s("FTP file, 90th"),
    "ftp.session.median": _s("FTP session, median"),
    "ftp.session.p90": _s("FTP session, 90th"),
    "http.item.median": _s("HTTP item, median"),
    "http.item.p90": _s("HTTP item, 90th"),
    "http.page.median": _s("HTTP page, median"),
    "http.page.p90": _s("HTTP page, 90th"),
    "audio.loss": _pct("audio loss"),
    "audio.overdue": Stat("audio overdue (> 150 ms)", "%", 100.0, "{:.2f}"),
    "video.loss": _pct("video loss"),
    "vc.setups": Stat("VC setups per run (Σ routers)", "", 1.0, "{:,.0f}"),
    "vc.rate": Stat("setups / s / router", "/s", 1.0, "{:.3f}"),
    "vc.peak": Stat("peak setups / s (any router)", ""),
    "vc.peak_busy": Stat("peak setups / s (berkeley, illinois)", ""),
    "vc.max_in_use": Stat("max VCs in use (busiest router)", ""),
    "vc.hits": Stat("cache hits (Σ routers)", "", 1.0, "{:,.0f}"),
    "vc.hit_rate": Stat("cache hit rate", "%", 100.0, "{:.1f}"),
    "vc.guaranteed_failure_rate": Stat("guaranteed-VC failure rate per setup request", "%", 100.0, "{:.1f}"),
    "vc.guaranteed_failure_rate_per_vc_request": Stat("guaranteed-VC failure rate per VC request (hits + setups)", "%",
                                                      100.0, "{:.1f}"),
    "switch.drop_rate": Stat("switch cell drop rate", "%", 100.0, "{:.4f}"),
    "switch.drop_rate_queues": Stat("switch cell drop rate, mean of the queues' rates", "%", 100.0, "{:.4f}"),
    "bottleneck.util": Stat("bottleneck HW↔HE utilisation (busier way)", "%", 100.0, "{:.1f}"),
}

#: The Table 3-3 statistics (what "all metrics" means in §6.5); the network counters (``vc.*``,
#: including the guaranteed-VC failure rate of §4.6.2, ``switch.*``, ``bottleneck.*``) are not.
TABLE_3_3 = tuple(k for k in STATS if k.split(".")[0] in ("telnet", "ftp", "http", "audio", "video"))

#: Table 3-3 metric names in the summary: (application, metric name in the summary).
_METRICS = {
    "telnet.connect": ("telnet", "connect_s"),
    "telnet.response": ("telnet", "response_s"),
    "ftp.file": ("ftp", "file_s"),
    "ftp.session": ("ftp", "session_s"),
    "http.item": ("http", "item_s"),
    "http.page": ("http", "page_s"),
}


def routers(summary: dict) -> list[dict]:
    """The six site routers' ``ipoa`` counters, in site order."""
    by_name = {h["name"]: h for h in summary["hosts"]}
    return [by_name[f"{s}-router"]["ipoa"] for s in SITES]


def is_switch_port(name: str) -> bool:
    """True for a switch's output port (``HW->HE``, ``S1->berkeley-router``); a router's
    adapter (``berkeley-router->S1``) is not a switch queue."""
    return name.split("->", 1)[0] in SWITCHES


def switch_drop_rate(summary: dict) -> float | None:
    """Cells dropped / cells offered, summed over every switch output port (§5.5.2: "averaged
    across all switch queues"; a port's ``cells_in`` counts arrivals, dropped ones included)."""
    ports = [p for p in summary["ports"] if is_switch_port(p["name"])]
    offered = sum(p["cells_in"] for p in ports)
    return sum(p["drops"] for p in ports) / offered if offered else None


def switch_drop_rate_queues(summary: dict) -> float | None:
    """The other reading of §5.5.2's "averaged across all switch queues": the unweighted mean
    over the switch output ports (20 in the study's network) of each port's drops / cells
    offered; a port that was offered nothing is left out."""
    rates = [p["drops"] / p["cells_in"] for p in summary["ports"] if is_switch_port(p["name"]) and p["cells_in"]]
    return sum(rates) / len(rates) if rates else None


def hit_rate(summary: dict) -> float | None:
    """Cache hits / (hits + setups requested), summed over the routers (spec §3.2)."""
    rs = routers(summary)
    hits = sum(r["cache_hits"] for r in rs)
    asked = hits + sum(r["setups_requested"] for r in rs)
    return hits / asked if asked else None


def setup_rate(summary: dict) -> float:
    """VC setups per router per second: Σ setups / (6 routers × run length), as §6.6's
    7.0 /s = 168,936 / (6 × 4000 s)."""
    return sum(r["setups_requested"] for r in routers(summary)) / len(SITES) / summary["duration_s"]


def media_rates(media: dict) -> tuple[float | None, float | None]:
    """(loss, overdue) of one medium, pooled over its conversations: lost / (delivered + lost)
    (packets still in flight at the end excluded) and late / delivered (spec §3.1)."""
    done = media["delivered"] + media["lost"]
    loss = media["lost"] / done if done else None
    overdue = media["late"] / media["delivered"] if media["delivered"] else None
    return loss, overdue


def guaranteed_failure_rate(summary: dict) -> float | None:
    """Guaranteed-VC setups refused / requested, summed over the routers (§4.6.2); the
    counters exist only under a QoS policy other than noqos (missing: 0). None when no
    guaranteed setup was requested."""
    rs = routers(summary)
    asked = sum(r.get("guaranteed_requested", 0) for r in rs)
    return sum(r.get("guaranteed_refused", 0) for r in rs) / asked if asked else None


def guaranteed_failure_rate_per_vc_request(summary: dict) -> float | None:
    """Guaranteed-VC setups refused / (guaranteed cache hits + guaranteed setups requested),
    summed over the routers (module docs). None when nothing guaranteed was requested, or
    when a router requested guaranteed setups but its summary has no ``guaranteed_hits``
    (written by a core that did not count them)."""
    rs = routers(summary)
    if any(r.get("guaranteed_requested", 0) and "guaranteed_hits" not in r for r in rs):
        return None
    asked = sum(r.get("guaranteed_requested", 0) + r.get("guaranteed_hits", 0) for r in rs)
    return sum(r.get("guaranteed_refused", 0) for r in rs) / asked if asked else None


def run_stats(summary: dict) -> dict[str, float | None]:
    """Every statistic of :data:`STATS` for one run."""
    apps = summary["applications"]
    out: dict[str, float | None] = {}
    for key, (app, name) in _METRICS.items():
        m = apps[app]["metrics"].get(name) or {}
        ok = m.get("n", 0) > 0
        out[f"{key}.median"] = m.get("median") if ok else None
        out[f"{key}.p90"] = m.get("p90") if ok else None
    out["audio.loss"], out["audio.overdue"] = media_rates(apps["audio"]["media"])
    out["video.loss"] = media_rates(apps["video"]["media"])[0]
    rs = routers(summary)
    by_site = dict(zip(SITES, rs))
    out["vc.setups"] = float(sum(r["setups_requested"] for r in rs))
    out["vc.rate"] = setup_rate(summary)
    out["vc.peak"] = float(max(r["peak_setups_per_s"] for r in rs))
    out["vc.peak_busy"] = float(max(by_site[s]["peak_setups_per_s"] for s in BUSY_SITES))
    out["vc.max_in_use"] = float(max(r["max_vcs_in_use"] for r in rs))
    out["vc.hits"] = float(sum(r["cache_hits"] for r in rs))
    out["vc.hit_rate"] = hit_rate(summary)
    out["vc.guaranteed_failure_rate"] = guaranteed_failure_rate(summary)
    out["vc.guaranteed_failure_rate_per_vc_request"] = guaranteed_failure_rate_per_vc_request(summary)
    out["switch.drop_rate"] = switch_drop_rate(summary)
    out["switch.drop_rate_queues"] = switch_drop_rate_queues(summary)
    hub = [p["utilization"] for p in summary["ports"] if p["name"] in ("HW->HE", "HE->HW")]
    out["bottleneck.util"] = max(hub) if hub else None
    return out


def identical_metrics(a: dict, b: dict) -> list[str]:
    """What differs between two run summaries: the applications whose counters, metrics or
    media counters differ, and ``"switch drops"`` if any switch port dropped a different
    number of cells. Empty when the runs are the same for every Table 3-3 metric."""
    apps = sorted(set(a["applications"]) | set(b["applications"]))
    diff = [app for app in apps if a["applications"].get(app) != b["applications"].get(app)]
    drops = [{p["name"]: p["drops"] for p in s["ports"] if is_switch_port(p["name"])} for s in (a, b)]
    if drops[0] != drops[1]:
        diff.append("switch drops")
    return diff
