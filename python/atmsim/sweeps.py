"""Sweeps: run a scenario over a grid of parameter values and seeds into a results store.

    import atmsim
    atmsim.sweep("tests/data/tiny.toml",
                 grid={"tcp[0].window_bytes": [4096, 8192, 16384]},
                 seeds="1-20", store="results.duckdb", jobs=2)
    atmsim.results(store="results.duckdb", wide=True)

Every grid point (the scenario with the grid's values set at their dotted paths) is checked
by the core's validator before anything runs or the store is touched. Each (resolved
document, seed) pair is one run, named by ``run_id`` — a hash of both — so the same point is
the same run in every sweep: a sweep started again skips the runs already in the store
(and retries failed ones only with ``retry_failed=True``).

Runs execute in worker processes (``jobs``; a ``ProcessPoolExecutor``) or on a Dask cluster
(``scheduler``); workers return the core's raw output and the calling process, the only
writer, commits each finished run to the store (:mod:`atmsim._store`).

Limits, checked before anything is built: at most :data:`MAX_RUNS` runs (grid points ×
seeds) per sweep, seeds in 0 to 2^63-1, grid values plain data (booleans, 64-bit integers,
finite floats, strings, lists, tables). On Ctrl-C the finished runs are committed, the
workers terminated and the pool shut down before KeyboardInterrupt propagates.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import math
import multiprocessing
import numbers
import os
import re
import tempfile
import signal
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence, Sized
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from . import _core
from .errors import AtmsimError, ScenarioError
from ._scenario import Scenario, load_scenario, parse_path
from ._store import DEFAULT_LOCK_TIMEOUT_S, RunRecord, Store, flatten_summary, resolve_store

__all__ = [
    "MAX_RUNS",
    "SweepError",
    "SweepSummary",
    "check_size",
    "parse_grid_option",
    "parse_seeds",
    "parse_value",
    "plan_points",
    "plan_sweep",
    "run_id_of",
    "run_plan",
    "sweep",
]

ProgressCallback = Callable[[int, int, int], object]  # (done, failed, total)


class SweepError(AtmsimError):
    """The sweep could not go on (a worker process died, the scheduler is unreachable, ...)."""

    default_code = "sweep"


# ----- parsing grid options and seeds -----------------------------------------------------------

_INT = re.compile(r"[+-]?[0-9](?:_?[0-9])*$")


def parse_value(text: str, path: str = "") -> Any:
    """A grid value from the command line: bool (true/false), int, float, JSON list/table/string,
    or else the text itself as a string."""
    raw = text.strip()
    if not raw:
        raise ScenarioError("empty value in --grid", field=path)
    low = raw.lower()
    if low in ("true", "false"):
        return low == "true"
    if _INT.match(raw):
        try:
            return int(raw)
        except ValueError:  # more digits than Python converts
            raise ScenarioError(f"integer {raw[:24]}... is too large ({len(raw)} digits)", field=path) from None
    try:
        number = float(raw)
    except ValueError:
        pass
    else:
        if math.isfinite(number):
            return number
        raise ScenarioError(f"value {raw!r} is not a finite number", field=path)
    if raw[0] in '[{"':
        try:
            return json.loads(raw)
        except json.JSONDecodeError as exc:
            raise ScenarioError(f"cannot parse value {raw!r}: {exc.msg}", field=path) from None
        except (ValueError, RecursionError):  # an integer of thousands of digits, deep nesting
            shown = raw if len(raw) <= 40 else raw[:40] + "..."
            raise ScenarioError(f"cannot parse value {shown!r}: too large or too deeply nested", field=path) from None
    return raw


def _split_values(text: str, path: str) -> list[str]:
    """Split on commas outside brackets, braces and double quotes."""
    parts: list[str] = []
    depth = 0
    quoted = False
    current = ""
    for ch in text:
        if quoted:
            quoted = ch != '"'
        elif ch == '"':
            quoted = True
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(current)
            current = ""
            continue
        current += ch
    if quoted or depth != 0:
        raise ScenarioError(f"unbalanced brackets or quotes in {text!r}", field=path)
    parts.append(current)
    return parts


def parse_grid_option(option: str) -> tuple[str, list[Any]]:
    """``"tcp[0].window_bytes=4096,8192"`` → ``("tcp[0].window_bytes", [4096, 8192])``."""
    if "=" not in option:
        raise ScenarioError(f"--grid {option!r}: expected PATH=VALUE[,VALUE...]")
    path, _, values = option.partition("=")
    path = path.strip()
    if not path:
        raise ScenarioError(f"--grid {option!r}: missing the field path before '='")
    parse_path(path)  # raises ScenarioError naming the path if malformed
    return path, [parse_value(v, path) for v in _split_values(values, path)]


MAX_RUNS = 100_000
"""The most runs (grid points × seeds) one sweep may have; split bigger studies into sweeps."""

MAX_SEED = 2**63 - 1  # the store keeps seeds as BIGINT
_MAX_DEPTH = 64  # nesting of lists/tables in one grid value


def _too_many(what: str) -> str:
    return f"{what}: more than the limit of {MAX_RUNS:,} runs (grid points × seeds) per sweep; split it into several sweeps"


def _seed_int(text: str) -> int:
    if len(text.lstrip("0")) > 20:  # far out of range; int() of a huge string is slow or refused
        raise ScenarioError(f"seed {text[:24]}... out of range (0 to 2^63-1)", field="seeds")
    value = int(text)
    if value > MAX_SEED:
        raise ScenarioError(f"seed {value} out of range (0 to 2^63-1)", field="seeds")
    return value


def _seed_intervals(text: str) -> list[tuple[int, int]]:
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
            raise ScenarioError(f"cannot parse seeds {shown!r}: expected e.g. '1-20', '1,3,5' or '7'", field="seeds")
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


def parse_seeds(seeds: str | int | Iterable[int] | None, default: int = 1) -> list[int]:
    """Seeds from ``"1-20"``, ``"1,3,5"``, ``"7"`` (or mixed: ``"1-5,9"``), an int or a list.

    Seeds lie in 0 to 2^63-1; at most :data:`MAX_RUNS` of them (ranges are counted before
    they are expanded, so ``"1-1000000000"`` is refused at once).
    """
    if seeds is None:
        return [default]
    if isinstance(seeds, bool):
        raise ScenarioError(f"invalid seeds {seeds!r}", field="seeds")
    if isinstance(seeds, numbers.Integral):
        items: list[int] = [_check_seed(seeds)]
    elif isinstance(seeds, str):
        intervals = _seed_intervals(seeds)
        count = _count_seeds(intervals)
        if count > MAX_RUNS:
            raise ScenarioError(_too_many(f"{count:,} seeds"), field="seeds")
        items = [s for lo, hi in intervals for s in range(lo, hi + 1)]
    elif isinstance(seeds, Iterable) and not isinstance(seeds, bytes | Mapping):
        if isinstance(seeds, Sized) and len(seeds) > MAX_RUNS:
            raise ScenarioError(_too_many(f"{len(seeds):,} seeds"), field="seeds")
        items = []
        for s in seeds:
            if len(items) >= MAX_RUNS:
                raise ScenarioError(_too_many(f"more than {MAX_RUNS:,} seeds"), field="seeds")
            items.append(_check_seed(s))
    else:
        raise ScenarioError(f"invalid seeds {_short(seeds)}: expected e.g. '1-20', 7 or a list of integers", field="seeds")
    if not items:
        raise ScenarioError("no seeds given", field="seeds")
    return list(dict.fromkeys(items))


def _check_seed(s: object) -> int:
    if isinstance(s, bool) or not isinstance(s, numbers.Integral):
        raise ScenarioError(f"seed {s!r} is not an integer", field="seeds")
    value = int(s)
    if value < 0 or value > MAX_SEED:
        raise ScenarioError(f"seed {value} out of range (0 to 2^63-1)", field="seeds")
    return value


def check_size(points: int, seeds: int) -> None:
    """Refuse a sweep of more than :data:`MAX_RUNS` runs (raises ScenarioError naming the
    grid, or the seeds if they alone are too many)."""
    if seeds > MAX_RUNS:
        raise ScenarioError(_too_many(f"{seeds:,} seeds"), field="seeds")
    if points * seeds > MAX_RUNS:
        raise ScenarioError(_too_many(f"{points:,} grid points × {seeds:,} seeds = {points * seeds:,} runs"), field="grid")


# ----- planning -----------------------------------------------------------------------------


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


_VALUE_KINDS = "a boolean, number, string, list or table"


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _plain_value(value: Any, path: str, depth: int = 0) -> Any:
    """A grid value as plain JSON data (numpy scalars and arrays become Python numbers and
    lists); anything the scenario cannot hold (a date, an object, NaN) is a ScenarioError."""
    if depth > _MAX_DEPTH:
        raise ScenarioError(f"grid value nested more than {_MAX_DEPTH} levels deep", field=path)
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, numbers.Integral):
        number = int(value)
        if not -(2**63) <= number < 2**64:
            raise ScenarioError(f"grid value {_short(number)} is out of range (a 64-bit integer)", field=path)
        return number
    if isinstance(value, numbers.Real):
        number = float(value)
        if not math.isfinite(number):
            raise ScenarioError(f"grid value {_short(value)} is not a finite number", field=path)
        return number
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, Mapping):
        out = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise ScenarioError(f"grid value has a table key {_short(key)} that is not a string", field=path)
            out[key] = _plain_value(item, path, depth + 1)
        return out
    if isinstance(value, list | tuple):
        return [_plain_value(item, path, depth + 1) for item in value]
    raise ScenarioError(
        f"grid value {_short(value)} of type {type(value).__name__} cannot be a scenario value: expected {_VALUE_KINDS}",
        field=path,
    )


def _normalise_grid(grid: Mapping[str, Any] | None) -> dict[str, list[Any]]:
    if grid is None:
        return {}
    if not isinstance(grid, Mapping):
        raise ScenarioError(f"expected a mapping {{dotted path: [values]}}, not {type(grid).__name__}", field="grid")
    out: dict[str, list[Any]] = {}
    for path, values in grid.items():
        if not isinstance(path, str):
            raise ScenarioError(f"grid key {_short(path)} is not a dotted field path", field="grid")
        parse_path(path)
        if isinstance(values, str | bytes | Mapping) or not isinstance(values, Iterable):
            values = [values]
        if isinstance(values, Sized) and len(values) > MAX_RUNS:
            raise ScenarioError(_too_many(f"{len(values):,} values"), field=path)
        plain = [_plain_value(v, path) for v in itertools.islice(values, MAX_RUNS + 1)]
        if len(plain) > MAX_RUNS:
            raise ScenarioError(_too_many(f"more than {MAX_RUNS:,} values"), field=path)
        if not plain:
            raise ScenarioError("no values given", field=path)
        out[path] = plain
    return out


def _check_document(doc: Any, origin: str) -> None:
    """Raise ScenarioError naming the first value of the scenario that JSON cannot carry to
    the core (a TOML date or time, an infinite or NaN float)."""
    stack: list[tuple[Any, str]] = [(doc, "")]
    while stack:
        node, where = stack.pop()
        if isinstance(node, Mapping):
            stack.extend((v, f"{where}.{k}" if where else str(k)) for k, v in reversed(list(node.items())))
        elif isinstance(node, list | tuple):
            stack.extend((v, f"{where}[{i}]") for i, v in reversed(list(enumerate(node))))
        elif isinstance(node, float) and not math.isfinite(node):
            raise ScenarioError(f"{node!r} is not a finite number", file=origin, field=where)
        elif node is not None and not isinstance(node, str | int | float):
            raise ScenarioError(
                f"{_short(node)} of type {type(node).__name__} cannot be a scenario value: expected {_VALUE_KINDS}",
                file=origin,
                field=where,
            )


def plan_sweep(
    scenario: str | Path | Mapping[str, Any] | Scenario,
    grid: Mapping[str, Any] | None = None,
    seeds: str | int | Iterable[int] | None = None,
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
        raise ScenarioError(f"seed {default_seed} out of range (0 to 2^63-1)", file=origin, field="simulation.seed")
    seeds = parse_seeds(seeds, default=default_seed)
    check_size(math.prod(len(v) for v in grid.values()), len(seeds))
    if not grid:
        base.validate()
    _check_document(base._doc, origin)

    paths = list(grid)
    points: list[tuple[dict[str, Any], dict[str, Any], str]] = []
    for combo in itertools.product(*(grid[p] for p in paths)):
        params = dict(zip(paths, combo, strict=True))
        point = base.copy()
        for path, value in params.items():
            try:
                point.set(path, value)
            except ScenarioError as exc:
                raise ScenarioError(f"grid value {_short(value)}: {exc.message}", file=origin, field=path) from None
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
                f"grid value {_short(params[path])}: {detail}", file=origin, field=path, code=exc.code
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
    seeds: str | int | Iterable[int],
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
        _check_document(scen._doc, origin)
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
        seed = _check_seed(seed)
        rid = run_id_of(scen._doc, seed)
        if rid in seen:
            continue
        seen.add(rid)
        text = texts.get(id(scen))
        if text is None:
            _check_document(scen._doc, origin)
            text = texts[id(scen)] = scen.to_json()
            _core.validate(text, "json", origin)
        planned.append(PlannedRun(rid, {}, scen._doc, text, seed))
    sweep_id = hashlib.sha256(_canonical({"runs": sorted(seen)}).encode()).hexdigest()[:16]
    return SweepPlan(sweep_id, label, origin, {}, sorted({r.seed for r in planned}), planned)


# ----- execution ------------------------------------------------------------------------------


def execute_run(text: str, origin: str, seed: int) -> dict[str, Any]:
    """Run one scenario (JSON text) in a worker and return the core's raw output.

    Adds ``started_at`` (POSIX time) and ``wall_s``; a failure is returned, not raised, as
    ``{"error": ..., "error_field": ..., "error_type": ...}`` so the sweep records it.
    """
    started = time.time()
    t0 = time.perf_counter()
    try:
        raw = _core.run(text, "json", origin, seed=seed)
        out: dict[str, Any] = {"summary": raw["summary"], "series": raw["series"]}
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:  # noqa: BLE001 — includes pyo3's PanicException
        out = {
            "error": str(exc) or type(exc).__name__,
            "error_field": getattr(exc, "field", "") or None,
            "error_type": type(exc).__name__,
        }
    out["started_at"] = started
    out["wall_s"] = time.perf_counter() - t0
    return out


# The function the in-process backend (jobs=0) calls; tests may replace it.
_runner: Callable[[str, str, int], dict[str, Any]] = execute_run


# The fork server listens on a Unix socket at TMPDIR/pymp-XXXXXXXX/listener-XXXXXXXX; such a
# path holds at most 107 bytes (Linux), so a longer TMPDIR starts workers by 'spawn' instead.
_FORKSERVER_SOCKET_SUFFIX = len("/pymp-XXXXXXXX/listener-XXXXXXXX")
_UNIX_PATH_MAX = 107


def _mp_context():
    methods = multiprocessing.get_all_start_methods()
    short_tmp = len(os.fsencode(tempfile.gettempdir())) + _FORKSERVER_SOCKET_SUFFIX <= _UNIX_PATH_MAX
    if "forkserver" in methods and short_tmp:
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["atmsim.sweeps"])
        return ctx
    return multiprocessing.get_context("spawn")


class _Backend:
    """submit() returns a future; wait_some() returns the finished ones (possibly none)."""

    slots: int = 1

    def submit(self, run: PlannedRun, origin: str) -> Any:
        raise NotImplementedError

    def wait_some(self, pending: set[Any], timeout: float) -> set[Any]:
        raise NotImplementedError

    def result(self, future: Any) -> dict[str, Any]:
        return future.result()

    def close(self, abort: bool = False) -> None:
        pass


class _InlineFuture:
    def __init__(self, value: dict[str, Any]):
        self.value = value

    def result(self) -> dict[str, Any]:
        return self.value


class _InProcess(_Backend):
    """jobs=0: run in the calling process, one after another (debugging, tests)."""

    def submit(self, run, origin):
        return _InlineFuture(_runner(run.text, origin, run.seed))

    def wait_some(self, pending, timeout):
        return set(pending)


def _worker_init() -> None:
    """Workers leave Ctrl-C to the parent, which commits what finished and stops them."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@contextlib.contextmanager
def _main_module_hidden() -> Iterator[None]:
    """Start worker processes without them re-running the caller's main module.

    Workers need only :func:`execute_run`; with 'spawn'/'forkserver' they would otherwise
    import ``__main__`` again (a script without an ``if __name__ == "__main__"`` guard would
    start its sweep once more in every worker).
    """
    main = sys.modules.get("__main__")
    if main is None:
        yield
        return
    saved = {k: getattr(main, k) for k in ("__file__", "__spec__") if hasattr(main, k)}
    try:
        main.__spec__ = None
        if "__file__" in saved:
            del main.__file__
        yield
    finally:
        for k, v in saved.items():
            setattr(main, k, v)


@contextlib.contextmanager
def _sigint_deferred() -> Iterator[None]:
    """Hold back Ctrl-C (SIGINT) during the block and raise KeyboardInterrupt after it."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, _frame: caught.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if caught:
        if callable(previous):
            previous(signal.SIGINT, None)  # the default handler raises KeyboardInterrupt
        elif previous == signal.SIG_DFL:
            os.kill(os.getpid(), signal.SIGINT)


class _Local(_Backend):
    def __init__(self, jobs: int):
        self.slots = jobs
        self.pool = ProcessPoolExecutor(max_workers=jobs, mp_context=_mp_context(), initializer=_worker_init)
        self.finished = threading.Event()

    def submit(self, run, origin):
        # A submit may start a worker process; Ctrl-C in the middle of that would leave a
        # child the pool does not know of (it could not be stopped), so it waits until after.
        with _main_module_hidden(), _sigint_deferred():
            future = self.pool.submit(execute_run, run.text, origin, run.seed)
        future.add_done_callback(lambda _f: self.finished.set())
        return future

    def wait_some(self, pending, timeout):
        # Not concurrent.futures.wait: it takes every future's lock in turn, and Ctrl-C
        # landing between two of those acquisitions leaves some held for ever, so the pool's
        # manager thread deadlocks when it fails the queued futures on shutdown.
        deadline = time.monotonic() + timeout
        while True:
            self.finished.clear()
            done = {f for f in pending if f.done()}
            remaining = deadline - time.monotonic()
            if done or remaining <= 0:
                return done
            self.finished.wait(remaining)

    def result(self, future):
        from concurrent.futures.process import BrokenProcessPool

        try:
            return future.result()
        except BrokenProcessPool:
            raise SweepError(
                "a worker process died (killed, or crashed inside the simulator); "
                "finished runs are stored, run the sweep again to resume"
            ) from None

    def close(self, abort=False):
        if abort:
            # Ctrl-C or a dead worker: stop the runs in progress too (workers ignore SIGINT),
            # then wait for the pool's manager thread, which sees the workers gone, fails the
            # queued futures and joins its queues. The interpreter's normal exit then has
            # nothing to wait for, and multiprocessing unlinks the pool's semaphores and
            # removes its temporary directory (os._exit would leak both).
            workers = list((getattr(self.pool, "_processes", None) or {}).values())
            for proc in workers:
                with contextlib.suppress(Exception):
                    proc.terminate()
            for proc in workers:
                with contextlib.suppress(Exception):
                    proc.join(5.0)
                    if proc.exitcode is None:
                        proc.kill()
                        proc.join(5.0)
            # A worker stopped while sending its result leaves half a message in the result
            # pipe, and the manager thread would wait for the rest for ever. The workers'
            # ends of the pipe died with them; closing ours (the parent never writes to it)
            # gives the manager EOF, so it marks the pool broken and winds down.
            writer = getattr(getattr(self.pool, "_result_queue", None), "_writer", None)
            if writer is not None:
                with contextlib.suppress(Exception):
                    writer.close()
        self.pool.shutdown(wait=True, cancel_futures=abort)


class _Dask(_Backend):
    def __init__(self, scheduler: Any):
        try:
            from distributed import Client
        except ImportError as exc:  # pragma: no cover
            raise SweepError("Dask backend needs the 'distributed' package") from exc
        if isinstance(scheduler, Client):
            self.client, self.own = scheduler, False
        else:
            address = getattr(scheduler, "scheduler_address", scheduler)
            try:
                self.client = Client(address, timeout="10s", set_as_default=False)
            except (OSError, TimeoutError) as exc:
                raise SweepError(f"cannot connect to the Dask scheduler at {address}: {exc}", code="scheduler") from None
            self.own = True
        self.finished = threading.Event()
        nthreads = self.client.nthreads()
        self.slots = max(1, sum(nthreads.values()) if nthreads else 1)

    def submit(self, run, origin):
        future = self.client.submit(
            execute_run, run.text, origin, run.seed, pure=False, key=f"atmsim-run-{run.run_id}-{uuid.uuid4().hex[:8]}"
        )
        future.add_done_callback(lambda _f: self.finished.set())
        return future

    def wait_some(self, pending, timeout):
        deadline = time.monotonic() + timeout
        while True:
            self.finished.clear()
            done = {f for f in pending if f.done()}
            remaining = deadline - time.monotonic()
            if done or remaining <= 0 or not self.finished.wait(remaining):
                return done or {f for f in pending if f.done()}

    def result(self, future):
        try:
            return future.result()
        except Exception as exc:  # KilledWorker, worker-side import errors, ...
            return {
                "error": f"{type(exc).__name__}: {exc}",
                "error_field": None,
                "error_type": type(exc).__name__,
                "started_at": time.time(),
                "wall_s": float("nan"),
            }

    def close(self, abort=False):
        if self.own:
            self.client.close()


def _record(run: PlannedRun, scenario: str, raw: Mapping[str, Any], version: str) -> RunRecord:
    common = dict(run_id=run.run_id, scenario=scenario, params=run.params, scenario_doc=run.doc, seed=run.seed, version=version)
    if "error" in raw:
        return RunRecord(
            **common,
            status="failed",
            started_at=raw.get("started_at", time.time()),
            wall_s=raw.get("wall_s", float("nan")),
            error=raw["error"],
            error_field=raw.get("error_field") or None,
        )
    summary = raw["summary"]
    if isinstance(summary, str):
        summary = json.loads(summary)
    return RunRecord(
        **common,
        status="ok",
        started_at=raw["started_at"],
        wall_s=raw["wall_s"],
        metrics=flatten_summary(summary),
        series=raw.get("series"),
        summary=json.dumps(summary, ensure_ascii=False),
    )


@dataclass
class SweepSummary:
    """What a sweep did. ``results()`` reads its rows back from the store."""

    sweep_id: str
    store: Path
    total: int  # runs in the sweep
    skipped: int  # already in the store
    ok: int  # run now, succeeded
    failed: int  # run now, failed
    wall_s: float
    failures: list[tuple[str, str]] = field(default_factory=list)  # (run_id, error), first few

    def results(self, wide: bool = False):
        from ._query import results

        return results(store=self.store, sweep=self.sweep_id, wide=wide)


@contextlib.contextmanager
def _progress(progress: bool | ProgressCallback | None, label: str, skipped: int) -> Iterator[ProgressCallback]:
    if progress is True:
        from ._progress import sweep_bar

        with sweep_bar(label, skipped=skipped) as tick:
            yield tick
    elif callable(progress):
        yield progress
    else:
        yield lambda done, failed, total: None


def sweep(
    scenario: str | Path | Mapping[str, Any] | Scenario,
    grid: Mapping[str, Any] | None = None,
    seeds: str | int | Iterable[int] | None = None,
    store: str | Path | None = None,
    jobs: int | None = None,
    scheduler: Any = None,
    progress: bool | ProgressCallback | None = False,
    retry_failed: bool = False,
    lock_timeout: float = DEFAULT_LOCK_TIMEOUT_S,
    flush_interval: float = 1.0,
    fsync: bool = True,
) -> SweepSummary:
    """Run ``scenario`` at every point of ``grid`` for every seed, into the results store.

    Args:
        scenario: a path, a dict or a :class:`Scenario`.
        grid: ``{dotted path: [values]}``; a scalar value means one value.
        seeds: ``"1-20"``, ``"1,3,5"``, ``7`` or a list [default: ``simulation.seed``].
        store: the DuckDB file [default: ``results.duckdb`` in the current directory].
        jobs: worker processes [default: all cores]; ``0`` runs in this process.
        scheduler: a Dask scheduler address (``tcp://host:8786``), a ``distributed.Client``
            or a cluster object; overrides ``jobs``.
        progress: False, True (a progress bar on stderr) or ``callable(done, failed, total)``.
        retry_failed: run again the runs stored as failed (by default they are skipped).
        lock_timeout: how long to wait for another process holding the store.
        flush_interval: finished runs are committed at least this often (seconds).
        fsync: make series files durable before the transaction that references them.

    Raises :class:`ScenarioError` (before any run, store untouched) if a grid point is
    invalid, :class:`atmsim._store.StoreLockedError` if the store stays busy.
    """
    t_start = time.perf_counter()
    _check_jobs(jobs)
    plan = plan_sweep(scenario, grid, seeds)
    return run_plan(plan, store, jobs, scheduler, progress, retry_failed, lock_timeout, flush_interval, fsync, t_start)


def _check_jobs(jobs: Any) -> None:
    if jobs is not None and (isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 0):
        raise ScenarioError(f"jobs must be an integer >= 0, got {_short(jobs)}", field="jobs")


def run_plan(
    plan: SweepPlan,
    store: str | Path | None = None,
    jobs: int | None = None,
    scheduler: Any = None,
    progress: bool | ProgressCallback | None = False,
    retry_failed: bool = False,
    lock_timeout: float = DEFAULT_LOCK_TIMEOUT_S,
    flush_interval: float = 1.0,
    fsync: bool = True,
    _t_start: float | None = None,
    need_summaries: bool = False,
) -> SweepSummary:
    """Run a planned sweep (:func:`plan_sweep`, :func:`plan_points`, :func:`plan_runs`) into
    the results store: the runs already stored are skipped; the arguments are :func:`sweep`'s.
    ``need_summaries``: runs stored without their whole summary (by a version-1 store) are run
    again, for a reader of ``runs.summary`` (:mod:`atmsim.study.executor`)."""
    from . import __version__

    t_start = time.perf_counter() if _t_start is None else _t_start
    _check_jobs(jobs)
    db = Store(resolve_store(store), lock_timeout=lock_timeout)

    def on_wait(_text: str) -> None:
        print(f"waiting for {db.path}: another process has it open", file=sys.stderr, flush=True)

    existing = db.begin_sweep(
        plan.sweep_id, plan.scenario, plan.grid, plan.seeds, (r.run_id for r in plan.runs), on_wait=on_wait
    )
    skip = {"ok"} if retry_failed else {"ok", "failed"}
    if not need_summaries:
        skip.add("ok-without-summary")
    todo = [r for r in plan.runs if existing.get(r.run_id) not in skip]
    summary = SweepSummary(plan.sweep_id, db.path, len(plan.runs), len(plan.runs) - len(todo), 0, 0, 0.0)
    if todo:
        if scheduler is not None:
            backend: _Backend = _Dask(scheduler)
        elif jobs == 0:
            backend = _InProcess()
        else:
            n = jobs if jobs is not None else (os.cpu_count() or 1)
            backend = _Local(max(1, min(n, len(todo))))
        _execute(plan, todo, backend, db, summary, progress, __version__, flush_interval, fsync, on_wait)
    summary.wall_s = time.perf_counter() - t_start
    return summary


def _execute(plan, todo, backend, db, summary, progress, version, flush_interval, fsync, on_wait) -> None:
    queue = iter(todo)
    in_flight: dict[Any, PlannedRun] = {}
    pending: list[RunRecord] = []
    last_flush = time.monotonic()
    window = max(2, 2 * backend.slots)

    def flush() -> None:
        nonlocal last_flush
        db.commit(pending, plan.sweep_id, fsync=fsync, on_wait=on_wait)
        pending.clear()
        last_flush = time.monotonic()

    aborted = True
    try:
        with _progress(progress, plan.scenario, summary.skipped) as tick:
            tick(0, 0, len(todo))
            while True:
                while len(in_flight) < window:
                    run = next(queue, None)
                    if run is None:
                        break
                    in_flight[backend.submit(run, plan.origin)] = run
                if not in_flight:
                    break
                # (at least 50 ms: with --commit-every 0 a finished run is committed as soon
                # as the wait returns for it, no need to poll)
                for fut in backend.wait_some(set(in_flight), timeout=max(flush_interval, 0.05)):
                    run = in_flight.pop(fut)
                    rec = _record(run, plan.scenario, backend.result(fut), version)
                    pending.append(rec)
                    if rec.status == "ok":
                        summary.ok += 1
                    else:
                        summary.failed += 1
                        if len(summary.failures) < 10:
                            summary.failures.append((rec.run_id, rec.error or ""))
                    tick(summary.ok + summary.failed, summary.failed, len(todo))
                if pending and time.monotonic() - last_flush >= flush_interval:
                    flush()
            if pending:
                flush()
        aborted = False
    finally:
        if aborted and pending:
            # Interrupted (Ctrl-C, a dead worker): keep what finished.
            with contextlib.suppress(Exception):
                flush()
        backend.close(abort=aborted)
