"""Reproductions of the published studies: one package per study (DESIGN.md §5), each with
its runner, its rows and verdict rules, its figures and its report; :mod:`.runner` is the one
way every study runs its simulations.

Each package exposes ``run(out_dir, mode=Mode.QUICK, seed=1, progress=None, store=None,
jobs=None, scheduler=None) -> Path`` (``mode`` and ``progress``: :class:`atmsim.study.Mode` and
:class:`atmsim.study.Progress`; ``store``, ``jobs``, ``scheduler``:
:class:`atmsim.study.executor.Executor`) which runs the study's experiments, writes its tables
and figures beside the paper's numbers and its verdicts as data (``verdicts.json``,
``verdicts.csv``; :mod:`atmsim.study`), and returns the path of the HTML report.
"""

from __future__ import annotations

STUDIES = {
    "caceres93": "atmsim.reproduce.caceres93",
    "kalampoukas97": "atmsim.reproduce.kalampoukas97",
    "kocyigit": "atmsim.reproduce.kocyigit",
    "magic95": "atmsim.reproduce.magic95",
    "mah96": "atmsim.reproduce.mah96",
    "mah96-calibration": "atmsim.reproduce.mah96.calibrate",
}

__all__ = ["STUDIES"]
