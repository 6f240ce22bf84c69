"""How much of a study to run: :class:`Mode` ``QUICK`` (the default: minutes on a laptop) or
``FULL`` (the paper's scale, ``--full``). Each study maps a mode to its own sizes (seeds,
durations, load points) and says them in its module docs."""

from __future__ import annotations

from enum import Enum

__all__ = ["Mode"]


class Mode(Enum):
    QUICK = "quick"
    FULL = "full"

    @classmethod
    def of(cls, full: bool) -> Mode:
        """``FULL`` when ``full``, else ``QUICK`` (the CLI's ``--full`` flag)."""
        return cls.FULL if full else cls.QUICK

    @property
    def full(self) -> bool:
        return self is Mode.FULL

    def __str__(self) -> str:
        return self.value
