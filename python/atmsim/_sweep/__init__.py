"""Sweeps: a scenario run over a grid of parameter values and seeds into a results store.

One module per concern: :mod:`.grid` (the command line's ``--grid`` options), :mod:`.seeds`
(the seeds grammar and the size limit), :mod:`.plan` (every run named and validated before
anything runs), :mod:`.backends` (worker processes, Dask, or this process) and :mod:`.run`
(:func:`sweep`, :func:`run_plan` and the loop that commits finished runs to the store).
The public entry points are :func:`atmsim.sweep` and :class:`atmsim.SweepSummary`.
"""

from __future__ import annotations

from .plan import PlannedRun, SweepPlan, plan_points, plan_runs, plan_sweep, run_id_of
from .run import SweepSummary, run_plan, sweep
from .seeds import MAX_RUNS, check_size, parse_seeds

__all__ = [
    "MAX_RUNS",
    "PlannedRun",
    "SweepPlan",
    "SweepSummary",
    "check_size",
    "parse_seeds",
    "plan_points",
    "plan_runs",
    "plan_sweep",
    "run_id_of",
    "run_plan",
    "sweep",
]
