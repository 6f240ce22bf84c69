"""Exceptions raised by atmsim: every one is an :class:`AtmsimError` with a stable ``code``.

Every error about a scenario names the file, the dotted field path (``link[2].rate_bps``)
and what was expected. The core's errors are turned into these classes in exactly one
place, ``crates/atmsim-py/src/errors.rs``, by their stable ``code``:

===========  ===================  ==============================================================
code         exception            meaning
===========  ===================  ==============================================================
parse        ScenarioError        not valid TOML/JSON, unknown field, wrong type, not UTF-8
invalid      ScenarioError        well-formed but impossible (negative rate, seed out of range, ...)
internal     SimulationError      the simulator itself failed (a panic in the core): a bug
interrupted  SimulationError      the core stopped at Python's request but no Python error was
                                  pending to raise instead (normally Ctrl-C's KeyboardInterrupt
                                  or the progress callback's exception is raised)
store        StoreError           the results store cannot be used (damaged, unwritable, ...)
store        StoreLockedError     another process kept the store open too long
sweep        SweepError           a sweep could not go on (a worker process died)
scheduler    SweepError           the Dask scheduler cannot be reached or used
study        StudyRunError        a run of a study failed (its error is kept in the store)
===========  ===================  ==============================================================

The command line prints every :class:`AtmsimError` but :class:`SimulationError` as one
``error:`` line with exit code 2 (``atmsim.cli``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = [
    "AtmsimError",
    "ScenarioError",
    "SimulationError",
    "StoreError",
    "StoreLockedError",
    "StudyRunError",
    "SweepError",
]


class AtmsimError(Exception):
    """Base class of every atmsim error.

    Attributes:
        file: the scenario file (or ``<string>``/``<python>``), may be empty.
        field: dotted path of the offending field, empty if the whole document is at fault.
        message: what was wrong and what was expected.
        code: stable code, one of the table above (the class's ``default_code`` unless
            the raiser says otherwise).
    """

    default_code = "internal"

    def __init__(self, message: str, *, file: str = "", field: str = "", code: str | None = None) -> None:
        self.file = file
        self.field = field
        self.message = message
        self.code = code or self.default_code
        super().__init__(str(self))

    def __str__(self) -> str:
        # Same layout as the core's Display: "file: field: message".
        return ": ".join(part for part in (self.file, self.field, self.message) if part)

    def __reduce__(self) -> tuple[Callable[..., AtmsimError], tuple[Any, ...]]:
        # Keep the attributes across pickling (multiprocessing, Dask).
        return (_rebuild, (type(self), self.message, self.file, self.field, self.code))


def _rebuild(cls: type[AtmsimError], message: str, file: str, field: str, code: str) -> AtmsimError:
    return cls(message, file=file, field=field, code=code)


class ScenarioError(AtmsimError, ValueError):
    """The scenario is malformed (``code == "parse"``) or impossible (``"invalid"``)."""

    default_code = "invalid"


class SimulationError(AtmsimError, RuntimeError):
    """The simulation failed although the scenario was accepted: a bug, please report."""

    default_code = "internal"


class StoreError(AtmsimError):
    """The results store cannot be used (locked by another process, not a store, damaged,
    unwritable, ...); ``file`` names the store or the file in it that failed."""

    default_code = "store"


class StoreLockedError(StoreError):
    """Another process kept the store open for longer than ``lock_timeout`` seconds."""

    default_code = "store"


class SweepError(AtmsimError):
    """A sweep could not go on: a worker process died (``code == "sweep"``), or the Dask
    scheduler cannot be reached (``"scheduler"``). Finished runs are in the store; run the
    sweep again to resume."""

    default_code = "sweep"


class StudyRunError(AtmsimError):
    """A run of a study failed (its error is stored with it); fix and run the study again."""

    default_code = "study"
