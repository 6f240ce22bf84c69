"""Seeds (``"1-20"``, ``"1,3,5"``, ``"7"``, an int or a list) and the size limit of a sweep.

The same grammar serves ``atmsim sweep --seeds``, ``atmsim reproduce --seeds`` and the
``seeds=`` arguments of the Python API. A seed is an integer from 0 to :data:`MAX_SEED` (the
store's limit: it keeps seeds as 64-bit signed integers); a sweep has at most
:data:`MAX_RUNS` runs (grid points × seeds).
"""

from __future__ import annotations

import numbers
import re
from collections.abc import Iterable, Mapping, Sized

from .._store import MAX_SEED
from ..errors import ScenarioError

__all__ = ["MAX_RUNS", "MAX_SEED", "OUT_OF_RANGE", "Seeds", "check_size", "check_store_seed", "parse_seeds", "short", "too_many"]

#: What a ``seeds=`` argument may be.
Seeds = str | int | Iterable[int]


def short(value: object) -> str:
    """``repr(value)``, cut to 60 characters for an error message."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


MAX_RUNS = 100_000
"""The most runs (grid points × seeds) one sweep may have; split bigger studies into sweeps."""


def too_many(what: str) -> str:
    return f"{what}: more than the limit of {MAX_RUNS:,} runs (grid points × seeds) per sweep; split it into several sweeps"


OUT_OF_RANGE = "out of range (0 to 2^63-1)"
"""How a seed beyond :data:`MAX_SEED` (or below 0) is refused."""


def _seed_int(text: str) -> int:
    if len(text.lstrip("0")) > 20:  # far out of range; int() of a huge string is slow or refused
        raise ScenarioError(f"seed {text[:24]}... {OUT_OF_RANGE}", field="seeds")
    value = int(text)
    if value > MAX_SEED:
        raise ScenarioError(f"seed {value} {OUT_OF_RANGE}", field="seeds")
    return value


def _seed_intervals(text: str, examples: str) -> list[tuple[int, int]]:
    """``"1-5,9"`` → ``[(1, 5), (9, 9)]`` (inclusive), without expanding the ranges."""
    out: list[tuple[int, int]] = []
    for part in text.split(","):
        part = part.strip()
        m = re.fullmatch(r"([0-9]+)\s*-\s*([0-9]+)", part)
        if m:
            lo, hi = _seed_int(m.group(1)), _seed_int(m.group(2))
            if lo > hi:
                raise ScenarioError(f"seed range {part!r} is empty (start > end)", field="seeds")
            out.append((lo, hi))
        elif re.fullmatch(r"[0-9]+", part):
            value = _seed_int(part)
            out.append((value, value))
        else:
            shown = text if len(text) <= 40 else text[:40] + "..."
            raise ScenarioError(f"cannot parse seeds {shown!r}: expected e.g. {examples}", field="seeds")
    return out


def _count_seeds(intervals: list[tuple[int, int]]) -> int:
    """How many distinct seeds the (possibly overlapping) intervals hold."""
    count, reach = 0, -1
    for lo, hi in sorted(intervals):
        lo = max(lo, reach + 1)
        if hi >= lo:
            count += hi - lo + 1
            reach = hi
    return count


def parse_seeds(seeds: Seeds | None, default: int = 1, *, examples: str = "'1-20', '1,3,5' or '7'") -> list[int]:
    """Seeds from ``"1-20"``, ``"1,3,5"``, ``"7"`` (or mixed: ``"1-5,9"``), an int or a list.

    Seeds lie in 0 to 2^63-1; at most :data:`MAX_RUNS` of them (ranges are counted before
    they are expanded, so ``"1-1000000000"`` is refused at once).
    """
    if seeds is None:
        return [default]
    if isinstance(seeds, bool):
        raise ScenarioError(f"invalid seeds {seeds!r}", field="seeds")
    if isinstance(seeds, numbers.Integral):
        items: list[int] = [check_store_seed(seeds)]
    elif isinstance(seeds, str):
        intervals = _seed_intervals(seeds, examples)
        count = _count_seeds(intervals)
        if count > MAX_RUNS:
            raise ScenarioError(too_many(f"{count:,} seeds"), field="seeds")
        items = [s for lo, hi in intervals for s in range(lo, hi + 1)]
    elif isinstance(seeds, Iterable) and not isinstance(seeds, bytes | Mapping):
        if isinstance(seeds, Sized) and len(seeds) > MAX_RUNS:
            raise ScenarioError(too_many(f"{len(seeds):,} seeds"), field="seeds")
        items = []
        for s in seeds:
            if len(items) >= MAX_RUNS:
                raise ScenarioError(too_many(f"more than {MAX_RUNS:,} seeds"), field="seeds")
            items.append(check_store_seed(s))
    else:
        raise ScenarioError(f"invalid seeds {short(seeds)}: expected e.g. '1-20', 7 or a list of integers", field="seeds")
    if not items:
        raise ScenarioError("no seeds given", field="seeds")
    return list(dict.fromkeys(items))


def check_store_seed(s: object) -> int:
    if isinstance(s, bool) or not isinstance(s, numbers.Integral):
        raise ScenarioError(f"seed {s!r} is not an integer", field="seeds")
    value = int(s)
    if value < 0 or value > MAX_SEED:
        raise ScenarioError(f"seed {value} {OUT_OF_RANGE}", field="seeds")
    return value


def check_size(points: int, seeds: int) -> None:
    """Refuse a sweep of more than :data:`MAX_RUNS` runs (raises ScenarioError naming the
    grid, or the seeds if they alone are too many)."""
    if seeds > MAX_RUNS:
        raise ScenarioError(too_many(f"{seeds:,} seeds"), field="seeds")
    if points * seeds > MAX_RUNS:
        raise ScenarioError(too_many(f"{points:,} grid points × {seeds:,} seeds = {points * seeds:,} runs"), field="grid")
