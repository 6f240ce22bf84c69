"""Figures of the Kalampoukas reproduction: the closed-form curves of §3–§4 with simulated
points, and the time plots of §5 (ACR, IP queue, sequence numbers, throughput from t = 0).

Owns the plotting only; what is run and judged is in :mod:`atmsim.reproduce.kalampoukas97`. Every figure is a
PNG beside the report.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ..._report import new_axes, save_axes
from . import theory as th

__all__ = [
    "acr",
    "closed_form_l",
    "closed_form_rates",
    "closed_form_w",
    "queue",
    "sequence",
    "throughput_from_zero",
]


def _equal_pair(path: Path, xs, two_way, one_way, sim: list[tuple[float, float]], xlabel: str, title: str) -> Path:
    """Theorem 1's two-way and the one-way efficiency over ``xs``, with simulated (x, F) points."""
    fig, ax = new_axes()
    ax.plot(xs, [two_way(x) for x in xs], label="two-way (Theorem 1)")
    ax.plot(xs, [one_way(x) for x in xs], "--", label="one-way")
    if sim:
        ax.plot([r[0] for r in sim], [r[1] for r in sim], "o", label="atmsim, cell level")
    return save_axes(fig, ax, path, xlabel=xlabel, ylabel="efficiency", title=title)


def closed_form_w(path: Path, l_one_way: float, sim: list[tuple[float, float]]) -> Path:
    """Fig. 3.3: efficiency against W at one-way pipe ``l_one_way`` [segments]; ``sim`` rows
    (W, simulated efficiency)."""
    return _equal_pair(path, np.linspace(1, 64, 400), lambda w: th.equal_pair_efficiency(w, l_one_way),
                       lambda w: th.one_way_efficiency(w, 2 * l_one_way), sim, "window W [segments]",
                       f"Fig. 3.3: L = {l_one_way:g} segments each way")


def closed_form_l(path: Path, w: float, sim: list[tuple[float, float]]) -> Path:
    """Fig. 3.4: efficiency against the one-way pipe L at window ``w``; ``sim`` rows (L, F)."""
    return _equal_pair(path, np.linspace(0.25, 16, 400), lambda x: th.equal_pair_efficiency(w, x),
                       lambda x: th.one_way_efficiency(w, 2 * x), sim,
                       "one-way pipe L [segments] (propagation + 1 segment)", f"Fig. 3.4: W = {w:g} segments")


def closed_form_rates(path: Path, sim: list[tuple[float, float, float]], sim_curve) -> Path:
    """Fig. 4.1: efficiency of both connections against the slow one's rate. The paper's curve
    (128 KB, 5 ms, 155 Mb/s) and ours (the simulated configuration) as lines; ``sim`` rows
    (rate fraction, F_i, F_j); ``sim_curve(fraction) -> (F_i, F_j)`` is our closed form."""
    fig, ax = new_axes()
    xs = np.linspace(0.05, 1.0, 200)
    paper = [th.figure_4_1(x * 155.0) for x in xs]
    ax.plot(xs, [p[0] for p in paper], color="0.6", ls=":", label="paper's case: slow i (128 KB, 5 ms)")
    ax.plot(xs, [p[1] for p in paper], color="0.3", ls=":", label="paper's case: fast j")
    ours = [sim_curve(x) for x in xs]
    ax.plot(xs, [o[0] for o in ours], color="C0", label="Theorem 2 at our W, D: slow i")
    ax.plot(xs, [o[1] for o in ours], color="C1", label="Theorem 2 at our W, D: fast j")
    if sim:
        ax.plot([r[0] for r in sim], [r[1] for r in sim], "o", color="C0", label="atmsim: slow i")
        ax.plot([r[0] for r in sim], [r[2] for r in sim], "s", color="C1", label="atmsim: fast j")
    return save_axes(fig, ax, path, xlabel="rate of connection i / link rate", ylabel="efficiency",
                     title="Fig. 4.1: unequal rates")


def acr(path: Path, traces: dict[str, pd.Series], title: str, until_s: float = 0.4) -> Path:
    """ACR [Mb/s] against time, one step line per end."""
    fig, ax = new_axes()
    for label, s in traces.items():
        s = s.dropna()
        s = s[s.index <= until_s]
        ax.step(list(s.index) + [until_s], list(s.to_numpy() / 1e6) + [s.iloc[-1] / 1e6], where="post", label=label)
    return save_axes(fig, ax, path, xlabel="time [s]", ylabel="ACR [Mb/s]", title=title)


def queue(path: Path, traces: dict[str, pd.Series], title: str, window: tuple[float, float]) -> Path:
    """IP-queue step traces (data segments) over ``window``."""
    fig, ax = new_axes((7.2, 4.0))
    for label, s in traces.items():
        s = s.dropna()
        before = s[s.index < window[0]]
        s = s[(s.index >= window[0]) & (s.index <= window[1])]
        start = before.iloc[-1] if len(before) else 0.0
        x = [window[0]] + list(s.index) + [window[1]]
        y = [start] + list(s.to_numpy()) + [s.iloc[-1] if len(s) else start]
        ax.step(np.array(x) * 1e3, y, where="post", label=label, lw=0.9)
    return save_axes(fig, ax, path, xlabel="time [ms]", ylabel="IP queue [data segments]", title=title)


def sequence(path: Path, traces: dict[str, pd.Series], title: str, window: tuple[float, float],
             slopes: dict[str, float] | None = None) -> Path:
    """Sequence space released by TCP [segments] against time; optional reference slopes
    [segments/s] drawn from the first trace's value at the window's start."""
    fig, ax = new_axes((7.2, 4.0))
    first = None
    for label, s in traces.items():
        s = s.dropna()
        s = s[(s.index >= window[0]) & (s.index <= window[1])] / 9140.0
        ax.plot(s.index, s.to_numpy(), label=label, lw=1.0)
        if first is None and len(s):
            first = (s.index[0], s.iloc[0])
    for label, rate in (slopes or {}).items():
        if first is not None:
            t = np.array([first[0], window[1]])
            ax.plot(t, first[1] + rate * (t - first[0]), ls="--", lw=0.9, label=label)
    return save_axes(fig, ax, path, xlabel="time [s]", ylabel="sequence number [segments]", title=title)


def throughput_from_zero(path: Path, traces: dict[str, pd.Series], title: str, predicted: dict[str, float]) -> Path:
    """Throughput averaged from t = 0 [Mb/s of TCP payload] (Figs. 5.8, 5.16), with the
    predicted steady rates as horizontal lines."""
    fig, ax = new_axes()
    for label, s in traces.items():
        s = s.dropna()
        s = s[s.index > 0.02]
        ax.plot(s.index, s.to_numpy() * 8 / s.index.to_numpy() / 1e6, label=label)
    for label, mbps in predicted.items():
        ax.axhline(mbps, ls="--", lw=0.9, color="0.4")
        ax.annotate(label, (ax.get_xlim()[1], mbps), ha="right", va="bottom", fontsize=8)
    return save_axes(fig, ax, path, xlabel="time [s]", ylabel="throughput since t = 0 [Mb/s]", title=title)
