"""The seeds a study runs each configuration at, where the study lets the caller choose them
(``atmsim reproduce mah96 --seeds 1-3``, ``mah96.run(out, seeds="1-3")``).

``--seeds`` takes the seeds themselves in the grammar of ``atmsim sweep --seeds``: a range
(``1-20``), a list (``1,3,5``) or both (``1-5,9``); from Python also a list of integers. A
bare number is refused: once it meant a count of seeds starting at ``--seed``, and read as
one seed it would silently run something else. A study takes :data:`MIN_SEEDS` to
:data:`MAX_SEEDS` seeds: its verdicts compare configurations over seeds.
"""

from __future__ import annotations

import numbers
import re

from .._sweep.seeds import Seeds, parse_seeds
from ..errors import ScenarioError

__all__ = ["MAX_SEEDS", "MIN_SEEDS", "study_seeds"]

MIN_SEEDS = 2
"""Fewest seeds per configuration: a comparison over seeds needs two of each side."""
MAX_SEEDS = 100
"""Most seeds per configuration."""

_BARE = re.compile(r"\s*[0-9]+\s*")


def study_seeds(seeds: Seeds, seed: int = 1, *, option: str = "seeds") -> list[int]:
    """The seeds ``seeds`` names, ascending; ``seed`` is where the study's default seeds
    start (``--seed``), used only to say how to write the old form. ``option`` names the
    argument in errors (``"--seeds"`` on the command line)."""
    if isinstance(seeds, numbers.Integral) and not isinstance(seeds, bool):
        count: int | None = int(seeds)
    elif isinstance(seeds, str) and _BARE.fullmatch(seeds):
        count = int(seeds)
    else:
        count = None
    if count is not None:
        last = seed + max(count, MIN_SEEDS) - 1
        raise ScenarioError(
            f"a bare number ({count}) is ambiguous: {option} takes the seeds themselves, no longer how many; "
            f"write {_written(option, f'{seed}-{last}')} for the runs at seeds {seed} to {last} "
            "(a range A-B, or a list such as 1,3,5)",
            field=option,
        )
    try:
        chosen = sorted(parse_seeds(seeds, examples="'1-3', '1,3,5' or '1-5,9'"))
    except ScenarioError as exc:
        raise ScenarioError(exc.message, field=option) from None
    if not MIN_SEEDS <= len(chosen) <= MAX_SEEDS:
        raise ScenarioError(
            f"{len(chosen)} seed{'s' if len(chosen) != 1 else ''} given: a study runs each configuration at "
            f"{MIN_SEEDS} to {MAX_SEEDS} seeds (e.g. {_written(option, f'{seed}-{seed + 2}')})",
            field=option,
        )
    return chosen


def _written(option: str, value: str) -> str:
    """How the caller writes ``value``: ``--seeds 1-3`` on the command line, ``seeds="1-3"``
    in Python."""
    return f"{option} {value}" if option.startswith("--") else f'{option}="{value}"'
