"""What every study reproduction shares (DESIGN.md §5): its :class:`Progress`, the one
progress type the CLI's bar listens to. The studies themselves are in :mod:`atmsim.reproduce`.
"""

from __future__ import annotations

from .progress import Progress

__all__ = ["Progress"]
