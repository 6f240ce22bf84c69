"""Mah (1996) reproduction: the report's figures.

Owns the plots of :mod:`atmsim.reproduce.mah96.report`: per-configuration bars of the seven
best-effort configurations (Chapters 5–6) with the thesis' values marked, and the Chapter 4
overview — for each headline statistic, a grid of the 24 QoS policies against the four
setups (app/conv × svc/svccache) coloured by the change of the mean against ``noqos`` in the
same setup, which is how §4.4–§4.6 state their results.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from ..._report import figure_path, new_axes, save_axes, save_figure
from . import oracle as oracle
from . import tables as tables
from .rows import POLICIES, SETUPS  # the figures' rows (Tab 3-4) and columns (§4.4)

__all__ = [
    "OVERVIEW",
    "POLICIES",
    "SETUPS",
    "bars",
    "best_effort",
    "change",
    "failure_rates",
    "mean",
    "overview",
]

#: The statistics of the Chapter 4 overview: the ones §4.4–§4.6 discuss.
OVERVIEW = ("telnet.connect.p90", "telnet.response.p90", "ftp.file.p90", "ftp.session.p90", "http.page.p90",
            "audio.loss", "audio.overdue", "video.loss")


def mean(stats: dict[str, list[dict]], config: str, key: str) -> float | None:
    vals = [r[key] for r in stats.get(config, []) if r.get(key) is not None]
    return float(np.mean(vals)) if vals else None


def change(stats: dict[str, list[dict]], policy: str, setup: str, key: str) -> float | None:
    """Relative change of the mean of ``key`` under ``policy`` against noqos, same setup."""
    base, new = mean(stats, f"noqos-{setup}", key), mean(stats, f"{policy}-{setup}", key)
    if base is None or new is None or base == 0:
        return None
    return new / base - 1.0


def bars(stats: dict[str, list[dict]], keys: list[str], path: Path, title: str, ylabel: str, log: bool = False,
         marks: Mapping[str, Mapping[str, float]] | None = None, lines: Sequence[tuple[str, float]] = ()) -> Path:
    """Bars (mean over seeds) of each statistic in ``keys`` for the seven noqos configurations,
    seeds as dots; ``marks[key][config]``: the thesis' value beside a bar; ``lines``: (label,
    value) of the thesis across the plot; both in shown units."""
    configs = [c for c in oracle.CONFIGS if stats.get(c)]
    fig, ax = new_axes((8.0, 4.4))
    x = np.arange(len(configs))
    w = 0.8 / len(keys)
    marked = False
    for i, key in enumerate(keys):
        s = tables.STATS[key]
        vals = [[v * s.scale for v in (r[key] for r in stats[c]) if v is not None] for c in configs]
        means = [float(np.mean(v)) if v else np.nan for v in vals]
        pos = x - 0.4 + w * (i + 0.5)
        ax.bar(pos, means, w, label=s.label, alpha=0.7)
        for p, v in zip(pos, vals):
            ax.plot([p] * len(v), v, "k.", ms=4)
        for c, mark in (marks or {}).get(key, {}).items():
            if c in configs:
                ax.plot([pos[configs.index(c)]], [mark], "rx", ms=9, mew=2, label=None if marked else "thesis (200 ws, 4000 s)")
                marked = True
    for j, (label, level) in enumerate(lines):
        ax.axhline(level, color=f"C{3 + j}", ls="--", lw=1, label=label)
    if log:
        ax.set_yscale("log")
    ax.set_xticks(x, [c.removeprefix("noqos-").replace("-", "\n") for c in configs], fontsize="small")
    return save_axes(fig, ax, path, xlabel="configuration (noqos-)", ylabel=ylabel, title=title)


def best_effort(stats: dict[str, list[dict]], out: Path) -> list[Path]:
    """The Chapter 5–6 figures (the seven noqos configurations)."""
    svc, cache = ("noqos-app-svc", "noqos-conv-svc"), ("noqos-app-svccache", "noqos-conv-svccache")
    return [
        bars(stats, ["telnet.connect.median", "telnet.connect.p90"], figure_path(out, "telnet_connect.png"),
             "Telnet connect time per configuration", "ms",
             marks={"telnet.connect.median": {c: 232.5 for c in svc}, "telnet.connect.p90": {c: 332.5 for c in svc} | {c: 194.5 for c in cache}}),
        bars(stats, ["http.page.p90"], figure_path(out, "http_page_p90.png"), "HTTP page time, 90th percentile", "s",
             marks={"http.page.p90": {c: 3.9 for c in oracle.NOQOS4}}),
        bars(stats, ["audio.loss", "video.loss"], figure_path(out, "media_loss.png"), "Audio and video loss by multiplexing", "%",
             lines=[("thesis: audio, conv < 0.25 %", 0.25), ("thesis: audio, router > 1 %", 1.0)]),
        bars(stats, ["vc.setups"], figure_path(out, "vc_setups.png"), "VC setups per run (Σ six routers)", "setups", log=True,
             marks={"vc.setups": {"noqos-conv-svc": 168_936, "noqos-conv-svccache": 4337, "noqos-app-svc": 71_136,
                                  "noqos-app-svccache": 1424}}),
        bars(stats, ["vc.max_in_use", "vc.peak_busy"], figure_path(out, "vc_max_peak.png"),
             "Max VCs at one router; peak setups/s at berkeley, illinois", "count",
             marks={"vc.max_in_use": oracle.MAX_VCS, "vc.peak_busy": oracle.PEAKS}),
    ]


def overview(stats: dict[str, list[dict]], path: Path) -> Path | None:
    """Chapter 4 at a glance: one panel per :data:`OVERVIEW` statistic, the 24 policies against
    the four setups, each cell the per-cent change of the mean against noqos (colour clipped
    at ±200 %, blank where a configuration was not run). None when no QoS policy ran."""
    policies = [p for p in POLICIES if any(stats.get(f"{p}-{s}") for s in SETUPS)]
    if not policies:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cols = 4
    rows = (len(OVERVIEW) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(3.3 * cols, 0.32 * len(policies) * rows + 1.6), squeeze=False)
    image = None
    for ax, key in zip(axes.flat, OVERVIEW):
        grid = np.array([[np.nan if (c := change(stats, p, s, key)) is None else 100 * c for s in SETUPS] for p in policies])
        image = ax.imshow(np.clip(grid, -200, 200), cmap="RdBu_r", vmin=-200, vmax=200, aspect="auto")
        for (i, j), v in np.ndenumerate(grid):
            if not np.isnan(v):
                ax.text(j, i, f"{v:+.0f}", ha="center", va="center", fontsize=6)
        ax.set_title(tables.STATS[key].label, fontsize="small")
        ax.set_xticks(range(len(SETUPS)), [s.replace("-", "\n") for s in SETUPS], fontsize=6)
        ax.set_yticks(range(len(policies)), policies if ax in axes[:, 0] else [], fontsize=6)
    for ax in axes.flat[len(OVERVIEW):]:
        ax.axis("off")
    fig.suptitle("Change of the mean against noqos in the same setup [%] (red: larger, i.e. worse)", fontsize="small")
    if image is not None:
        fig.colorbar(image, ax=axes, shrink=0.6, label="% change (clipped at ±200)")
    return save_figure(fig, path, 120)


def failure_rates(stats: dict[str, list[dict]], path: Path) -> Path | None:
    """Guaranteed-VC admission failure rate of every wc/nwc policy per setup — bars per setup
    request (the thesis' rate), black ticks per VC request (cache hits + setups; :mod:`.tables`)
    — with the thesis' ranges for nwc-http (7–32 %) and nwc-isp (25–37 %) across the four
    setups (§4.6.2)."""
    policies = [p for p in POLICIES if not p.startswith("sp-") and any(stats.get(f"{p}-{s}") for s in SETUPS)]
    if not policies:
        return None
    fig, ax = new_axes((9.0, 4.4))
    x = np.arange(len(policies))
    w = 0.8 / len(SETUPS)
    for i, s in enumerate(SETUPS):
        vals = [mean(stats, f"{p}-{s}", "vc.guaranteed_failure_rate") for p in policies]
        ax.bar(x - 0.4 + w * (i + 0.5), [np.nan if v is None else 100 * v for v in vals], w, label=s, alpha=0.8)
        per_vc = [mean(stats, f"{p}-{s}", "vc.guaranteed_failure_rate_per_vc_request") for p in policies]
        ax.plot(x - 0.4 + w * (i + 0.5), [np.nan if v is None else 100 * v for v in per_vc], "k_", markersize=5,
                label="per VC request (hits + setups)" if i == 0 else None)
    for p, (lo, hi) in {"nwc-http": (7, 32), "nwc-isp": (25, 37)}.items():
        if p in policies:
            k = policies.index(p)
            ax.fill_between([k - 0.45, k + 0.45], lo, hi, color="red", alpha=0.2)
            ax.text(k, hi + 1, "thesis", ha="center", fontsize=6, color="red")
    ax.set_xticks(x, policies, rotation=60, fontsize="small")
    return save_axes(fig, ax, path, xlabel="QoS policy", ylabel="% of guaranteed requests refused",
                     title="Admission failures: bars per setup request, ticks per VC request (red: the thesis' range)")
