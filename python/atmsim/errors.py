"""Exceptions raised by atmsim.

Every error about a scenario names the file, the dotted field path (``link[2].rate_bps``)
and what was expected. The core's errors are turned into these classes in exactly one
place, ``crates/atmsim-py/src/errors.rs``, by their stable ``code``:

=========  =====================================================
code       exception
=========  =====================================================
parse      ScenarioError — not valid TOML/JSON, unknown field, wrong type
invalid    ScenarioError — well-formed but impossible (negative rate, ...)
internal   SimulationError — the simulator itself failed: a bug
store      StoreError — the results store cannot be used (damaged, locked, unwritable)
=========  =====================================================

The command line prints every :class:`AtmsimError` but :class:`SimulationError` as one
``error:`` line with exit code 2 (``atmsim.cli``).
"""

from __future__ import annotations

__all__ = ["AtmsimError", "ScenarioError", "SimulationError", "StoreError", "StoreLockedError"]


class AtmsimError(Exception):
    """Base class of every atmsim error.

    Attributes:
        file: the scenario file (or ``<string>``/``<python>``), may be empty.
        field: dotted path of the offending field, empty if the whole document is at fault.
        message: what was wrong and what was expected.
        code: stable code: ``"parse"``, ``"invalid"`` or ``"internal"``.
    """

    default_code = "internal"

    def __init__(self, message: str, *, file: str = "", field: str = "", code: str | None = None):
        self.file = file
        self.field = field
        self.message = message
        self.code = code or self.default_code
        super().__init__(str(self))

    def __str__(self) -> str:
        # Same layout as the core's Display: "file: field: message".
        return ": ".join(part for part in (self.file, self.field, self.message) if part)

    def __reduce__(self):  # keep attributes across pickling (multiprocessing, Dask)
        return (_rebuild, (type(self), self.message, self.file, self.field, self.code))


def _rebuild(cls, message, file, field, code):
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
