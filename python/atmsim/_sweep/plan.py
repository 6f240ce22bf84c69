"""Planning a sweep: every run (grid point × seed) named and validated before anything runs.

A grid point is the scenario with the grid's values set at their dotted paths; each is
checked by the core's validator. Each (resolved document, seed) pair is one run, named by
``run_id`` — a hash of both — so the same point is the same run in every sweep, and a sweep
started again skips the runs already in the store.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import numbers
import re
from collections.abc import Iterable, Mapping, Sequence, Sized
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .. import _core
from .._scenario import MAX_DEPTH, Scenario, check_document, load_scenario, parse_path
from ..errors import ScenarioError
from .seeds import MAX_RUNS, MAX_SEED, OUT_OF_RANGE, Seeds, check_size, check_store_seed, parse_seeds, short, too_many

__all__ = ["PlannedRun", "SweepPlan", "plan_points", "plan_runs", "plan_sweep", "run_id_of"]


def _canonical(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def run_id_of(doc: Mapping[str, Any], seed: int) -> str:
    """16 hex digits of sha256 over the canonical JSON of (resolved document, seed)."""
    return hashlib.sha256(_canonical({"scenario": doc, "seed": seed}).encode()).hexdigest()[:16]


def _scenario_label(scen: Scenario) -> str:
    doc = scen._doc
    if isinstance(doc.get("name"), str):
        return doc["name"]
    return scen.name


@dataclass(frozen=True)
class PlannedRun:
    run_id: str
    params: dict[str, Any]
    doc: dict[str, Any]
    text: str  # the document as JSON, handed to the core
    seed: int


@dataclass
class SweepPlan:
    sweep_id: str
    scenario: str
    origin: str
    grid: dict[str, list[Any]]
    seeds: list[int]
    runs: list[PlannedRun]


def _related(a: str, b: str) -> bool:
    """True if one dotted path contains the other (``tcp[0]`` and ``tcp[0].window_bytes``)."""
    ka, kb = parse_path(a), parse_path(b)
    n = min(len(ka), len(kb))
    return n > 0 and ka[:n] == kb[:n]


def _plain_value(value: Any, path: str, depth: int = 0) -> Any:
    """A grid value as plain JSON data: numpy scalars and arrays become Python numbers and
    lists, tuples lists. Integers must fit the core's 64 bits; the rest of what a scenario
    value may be is checked where it is set (:meth:`Scenario.set`)."""
    if depth > MAX_DEPTH:
        raise ScenarioError(f"grid value nested more than {MAX_DEPTH} levels deep", field=path)
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        number = int(value)
        if not -(2**63) <= number < 2**64:
            raise ScenarioError(f"grid value {short(number)} is out of range (a 64-bit integer)", field=path)
        return number
    if isinstance(value, np.floating):
        return float(value)
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, Mapping):
        return {key: _plain_value(item, path, depth + 1) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain_value(item, path, depth + 1) for item in value]
    return value


def _normalise_grid(grid: Mapping[str, Any] | None) -> dict[str, list[Any]]:
    if grid is None:
        return {}
    if not isinstance(grid, Mapping):
        raise ScenarioError(f"expected a mapping {{dotted path: [values]}}, not {type(grid).__name__}", field="grid")
    out: dict[str, list[Any]] = {}
    for path, values in grid.items():
        if not isinstance(path, str):
            raise ScenarioError(f"grid key {short(path)} is not a dotted field path", field="grid")
        parse_path(path)
        if isinstance(values, str | bytes | Mapping) or not isinstance(values, Iterable):
            values = [values]
        if isinstance(values, Sized) and len(values) > MAX_RUNS:
            raise ScenarioError(too_many(f"{len(values):,} values"), field=path)
        plain = [_plain_value(v, path) for v in itertools.islice(values, MAX_RUNS + 1)]
        if len(plain) > MAX_RUNS:
            raise ScenarioError(too_many(f"more than {MAX_RUNS:,} values"), field=path)
        if not plain:
            raise ScenarioError("no values given", field=path)
        out[path] = plain
    return out


def plan_sweep(
    scenario: str | Path | Mapping[str, Any] | Scenario,
    grid: Mapping[str, Any] | None = None,
    seeds: Seeds | None = None,
) -> SweepPlan:
    """Every run of the sweep, each grid point validated by the core (raises ScenarioError).

    A sweep of more than :data:`MAX_RUNS` runs (grid points × seeds) is refused before the
    grid's cartesian product is built.
    """
    base = load_scenario(scenario)
    origin = base.origin
    grid = _normalise_grid(grid)
    sim = base._doc.get("simulation")
    default_seed = sim.get("seed", 1) if isinstance(sim, Mapping) else 1
    if not isinstance(default_seed, int) or isinstance(default_seed, bool):
        default_seed = 1  # the core's validation names the wrong type
    elif seeds is None and not 0 <= default_seed <= MAX_SEED:
        raise ScenarioError(f"seed {default_seed} {OUT_OF_RANGE}", file=origin, field="simulation.seed")
    seeds = parse_seeds(seeds, default=default_seed)
    check_size(math.prod(len(v) for v in grid.values()), len(seeds))
    if not grid:
        base.validate()
    check_document(base._doc, origin, for_json=True)

    paths = list(grid)
    points: list[tuple[dict[str, Any], dict[str, Any], str]] = []
    for combo in itertools.product(*(grid[p] for p in paths)):
        params = dict(zip(paths, combo, strict=True))
        point = base.copy()
        for path, value in params.items():
            try:
                point.set(path, value)
            except ScenarioError as exc:
                raise ScenarioError(f"grid value {short(value)}: {exc.message}", file=origin, field=path) from None
        text = point.to_json()
        try:
            _core.validate(text, "json", origin)
        except ScenarioError as exc:
            blamed = [p for p in paths if exc.field and _related(p, exc.field)]
            if not blamed:
                raise  # the scenario itself is at fault
            path = blamed[-1]
            message = re.sub(r" at line \d+ column \d+$", "", exc.message)  # positions in generated JSON
            detail = message if exc.field == path else f"{exc.field}: {message}"
            raise ScenarioError(
                f"grid value {short(params[path])}: {detail}", file=origin, field=path, code=exc.code
            ) from None
        points.append((params, point._doc, text))

    runs: list[PlannedRun] = []
    seen: set[str] = set()
    for params, doc, text in points:
        for seed in seeds:
            rid = run_id_of(doc, seed)
            if rid in seen:
                continue
            seen.add(rid)
            runs.append(PlannedRun(rid, params, doc, text, seed))
    label = _scenario_label(base)
    sweep_id = hashlib.sha256(_canonical({"scenario": base._doc, "grid": grid, "seeds": seeds}).encode()).hexdigest()[:16]
    return SweepPlan(sweep_id, label, origin, grid, seeds, runs)


def plan_points(
    label: str,
    origin: str,
    points: Sequence[tuple[str, Any, Scenario]],
    seeds: Seeds,
) -> SweepPlan:
    """A sweep over explicitly built scenarios: ``points`` are ``(path, value, scenario)``,
    the scenario having ``value`` at the dotted ``path`` (and whatever else goes with it,
    e.g. the same value at every site); each is validated by the core (raises ScenarioError)
    before anything runs. The plan's grid is ``{path: [values]}``, so :func:`atmsim.results`
    shows the varied value as a column."""
    seeds = parse_seeds(seeds)
    check_size(len(points), len(seeds))
    grid: dict[str, list[Any]] = {}
    runs: list[PlannedRun] = []
    seen: set[str] = set()
    for path, value, scen in points:
        check_document(scen._doc, origin, for_json=True)
        text = scen.to_json()
        _core.validate(text, "json", origin)
        grid.setdefault(path, []).append(value)
        for seed in seeds:
            rid = run_id_of(scen._doc, seed)
            if rid not in seen:
                seen.add(rid)
                runs.append(PlannedRun(rid, {path: value}, scen._doc, text, seed))
    sweep_id = hashlib.sha256(_canonical({"runs": sorted(seen), "seeds": seeds}).encode()).hexdigest()[:16]
    return SweepPlan(sweep_id, label, origin, grid, seeds, runs)


def plan_runs(label: str, origin: str, runs: Sequence[tuple[Scenario, int]]) -> SweepPlan:
    """A sweep of explicitly built ``(scenario, seed)`` runs, each validated by the core
    (raises ScenarioError) before anything runs; a run listed twice is planned once. The
    plan has no grid: a run is known by its scenario document and seed."""
    planned: list[PlannedRun] = []
    seen: set[str] = set()
    texts: dict[int, str] = {}
    for scen, seed in runs:
        seed = check_store_seed(seed)
        rid = run_id_of(scen._doc, seed)
        if rid in seen:
            continue
        seen.add(rid)
        text = texts.get(id(scen))
        if text is None:
            check_document(scen._doc, origin, for_json=True)
            text = texts[id(scen)] = scen.to_json()
            _core.validate(text, "json", origin)
        planned.append(PlannedRun(rid, {}, scen._doc, text, seed))
    sweep_id = hashlib.sha256(_canonical({"runs": sorted(seen)}).encode()).hexdigest()[:16]
    return SweepPlan(sweep_id, label, origin, {}, sorted({r.seed for r in planned}), planned)
