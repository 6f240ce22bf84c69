"""The shapes of the progress callbacks that :meth:`atmsim.Scenario.run`, :func:`atmsim.run`,
:func:`atmsim.sweep` and the studies' ``run`` functions (:mod:`atmsim.reproduce`) take.

Each is called from the calling thread with positional arguments; what it returns is ignored.
Instead of a callback, ``progress=True`` draws a bar on stderr and ``progress=False`` (the
default) is silent. Any function of the right arity fits; these protocols name the shapes
for type checkers and readers::

    def show(fraction: float) -> None:
        print(f"{100 * fraction:.0f} % simulated")

    atmsim.run("scenarios/examples/greedy_rr.toml", progress=show)
"""

from __future__ import annotations

from typing import Protocol

__all__ = ["RunProgress", "StudyProgress", "SweepProgress"]


class RunProgress(Protocol):
    """One run's progress: ``callback(fraction)``, the fraction of simulated time done (0 to
    1). An exception raised in it stops the run within about a second and propagates out of
    ``run``."""

    def __call__(self, fraction: float, /) -> object: ...


class SweepProgress(Protocol):
    """A sweep's progress: ``callback(done, failed, total)``, runs finished (``failed`` of
    them failed) out of the runs this call executes (runs already in the store are not
    counted)."""

    def __call__(self, done: int, failed: int, total: int, /) -> object: ...


class StudyProgress(Protocol):
    """A study's progress: ``callback(done, total, what)``, runs done out of runs planned so
    far (a study may plan more as it goes) and what was last done; a study's ``run`` takes it
    as ``progress=`` (or an :class:`atmsim.study.Progress` wrapping it)."""

    def __call__(self, done: int, total: int, what: str, /) -> object: ...
