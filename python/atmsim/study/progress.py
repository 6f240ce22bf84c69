"""The one progress type of a study: runs done out of runs planned, and what was last done.

Studies never call a display. They tell a :class:`Progress` how many runs they plan
(:meth:`Progress.plan`) and each run or group of runs that finishes (:meth:`Progress.step`,
or :meth:`Progress.runs` handed to :func:`atmsim.reproduce.runner.run_many`, or
:meth:`Progress.at` where another component counts, as a sweep does). The Progress passes
``(done, total, what)`` to its listener — the CLI's bar (:func:`atmsim._progress.runs_bar`) —
and to nothing when it has none (:meth:`Progress.silent`), so a study never tests for
``None`` and never calls a callback of a shape it guessed.
"""

from __future__ import annotations

from collections.abc import Callable

from ..callbacks import StudyProgress

__all__ = ["Listener", "Progress"]

#: What a display is told: runs done, runs planned, and what was last done.
Listener = StudyProgress


class Progress:
    """Counts a study's runs and tells the listener of every change."""

    def __init__(self, listener: Listener | None = None) -> None:
        self._listener = listener
        self.done = 0
        self.total = 0

    @classmethod
    def silent(cls) -> Progress:
        """A Progress that counts and tells no one."""
        return cls(None)

    @classmethod
    def of(cls, progress: Progress | Listener | None) -> Progress:
        """``progress`` itself, a Progress telling the listener ``progress``, or a silent one
        for ``None``."""
        if isinstance(progress, Progress):
            return progress
        return cls(progress)

    def plan(self, runs: int) -> None:
        """Add ``runs`` to the runs planned."""
        if runs < 0:
            raise ValueError(f"runs planned cannot be negative: {runs}")
        self.total += runs
        self._tell("")

    def step(self, what: str, runs: int = 1) -> None:
        """``runs`` more runs are done; ``what`` names them."""
        self.done += runs
        # A study that plans as it goes may finish a run it has not planned yet.
        self.total = max(self.total, self.done)
        self._tell(what)

    def at(self, done: int, total: int, what: str) -> None:
        """Where another counter stands (a sweep counts its own runs)."""
        self.done, self.total = done, max(total, done)
        self._tell(what)

    def runs(self, what: str | Callable[[int], str]) -> Callable[[int, int], None]:
        """The ``progress(done, total)`` callback of :func:`~atmsim.reproduce.runner.run_many`:
        each finished run is a :meth:`step` named ``what`` (or ``what(done)``)."""

        def finished(done: int, _total: int) -> None:
            self.step(what(done) if callable(what) else what)

        return finished

    def _tell(self, what: str) -> None:
        if self._listener is not None:
            self._listener(self.done, self.total, what)
