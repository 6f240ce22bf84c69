"""Fuzzing the scenario input: mutated shipped scenarios either fail with a ScenarioError or run
cleanly.

Every shipped scenario is mutated (fields deleted, wrong types, NaN/inf/huge/tiny numbers,
sequences where tables belong, deep nesting, long and odd strings, duplicated entries) and fed
to the public API both as a Python document (sent as JSON) and as TOML text. The properties:

* the only exception is :class:`atmsim.ScenarioError` (never a TypeError, OverflowError,
  RecursionError, a panic turned SimulationError, a crash or a hang);
* a document that validates runs a short time (20 ms simulated) within a wall-time bound, with
  balanced cell, frame and datagram ledgers, and every ratio it reports (port utilisation, TCP efficiency,
  CPU utilisation) within [0, 1].

The normal test run tries a fixed, derandomized set of ``ATMSIM_FUZZ_EXAMPLES`` inputs (default
150). For a long campaign run, for example::

    ATMSIM_FUZZ_EXAMPLES=100000 ATMSIM_FUZZ_RANDOM=1 .venv/bin/python -m pytest -q tests/test_fuzz_scenarios.py

(``ATMSIM_FUZZ_RANDOM=1`` draws new inputs each time instead of the fixed set; with
``ATMSIM_FUZZ_TALLY=FILE`` the counts of invalid, valid-but-not-run and run inputs are
written to FILE as JSON.)
"""

from __future__ import annotations

import collections
import copy
import json
import math
import os
import time
import tomllib
from pathlib import Path
from typing import Any

import pytest
import tomli_w
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import atmsim
from atmsim import ScenarioError

SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"
# Every shipped file, the studies' too: scenarios/<study> links to the package's copy, and
# rglob does not follow links, so the walk follows them.
SHIPPED = sorted(Path(d) / f for d, _, fs in os.walk(SCENARIOS, followlinks=True) for f in fs if f.endswith(".toml"))
DOCS = [(p.relative_to(SCENARIOS).as_posix(), tomllib.loads(p.read_text())) for p in SHIPPED]

EXAMPLES = int(os.environ.get("ATMSIM_FUZZ_EXAMPLES", "150"))
RANDOM = os.environ.get("ATMSIM_FUZZ_RANDOM", "") not in ("", "0")
SHORT_RUN_S = 0.02
WALL_LIMIT_S = 60.0

TALLY: collections.Counter[str] = collections.Counter()

RATIO_FIELDS = {("ports", "utilization"), ("connections", "efficiency"), ("hosts", "cpu_utilization")}


class Deep:
    """A placeholder for a deeply nested list or table, built only once all mutations are
    drawn (so that the strategy never walks or copies 1000 levels)."""

    def __init__(self, kind: str, depth: int) -> None:
        self.kind, self.depth = kind, depth

    def __repr__(self) -> str:
        return f"Deep({self.kind!r}, {self.depth})"

    def build(self) -> Any:
        v: Any = 1
        for _ in range(self.depth):
            v = [v] if self.kind == "list" else {"a": v}
        return v


def _materialize(node: Any) -> Any:
    if isinstance(node, Deep):
        return node.build()
    if isinstance(node, dict):
        return {k: _materialize(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_materialize(v) for v in node]
    return node


ODD_NUMBERS = [
    math.nan, math.inf, -math.inf, 1e300, -1e300, 5e-324, -5e-324, 0, 0.0, -0.0, 1e-12, 1e-7, 1e12, 1e15,
    1e20, -1, 2**31, 2**32, 2**53 + 1, 2**63 - 1, 2**63, -(2**63), 2**64, 10**30, 0.5, 3, 7.0, 424, 423.9,
]
ODD_STRINGS = [
    "", " ", "x", "a b", "\x00", "\t", "é" * 200, "é" * 129, "x" * 257, "x" * 100_000, "../../etc/passwd",
    "\ud800", "a\udfffb", "😀", "fifo", "round_robin", "epd", "poisson", "greedy", "bulk", "ftp", "telnet", "oc3c",
    "tag", "drop", "reno", "1979-05-27T07:32:00Z",
]
ODD_VALUES = st.one_of(
    st.sampled_from(ODD_NUMBERS),
    st.sampled_from(ODD_STRINGS),
    st.sampled_from([True, False, [], {}, [1, 2], {"a": 1}, ["x"], [{"name": "x"}]]),
    st.builds(Deep, st.sampled_from(["list", "table"]), st.sampled_from([40, 1000])),
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.text(max_size=30),
)


def _paths(node: Any, prefix: tuple = ()) -> list[tuple]:
    out = []
    if isinstance(node, dict):
        for k, v in node.items():
            out.append((*prefix, k))
            out.extend(_paths(v, (*prefix, k)))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out.append((*prefix, i))
            out.extend(_paths(v, (*prefix, i)))
    return out


def _parent(doc: Any, path: tuple) -> Any:
    for k in path[:-1]:
        doc = doc[k]
    return doc


@st.composite
def mutated_documents(draw) -> tuple[str, dict, list[str]]:
    name, original = draw(st.sampled_from(DOCS))
    doc = copy.deepcopy(original)
    log: list[str] = []
    for _ in range(draw(st.integers(1, 3))):
        paths = _paths(doc)
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        parent, key = _parent(doc, path), path[-1]
        action = draw(st.sampled_from(["delete", "replace", "replace", "replace", "as_sequence", "scale", "duplicate", "add"]))
        if action == "delete":
            del parent[key]
        elif action == "replace":
            parent[key] = copy.deepcopy(draw(ODD_VALUES))
        elif action == "as_sequence" and isinstance(parent[key], dict):
            parent[key] = list(parent[key].values())
        elif action == "scale" and isinstance(parent[key], int | float) and not isinstance(parent[key], bool):
            parent[key] = parent[key] * draw(st.sampled_from([0, -1, 1e-9, 1e-3, 1e3, 1e9, 1e300]))
        elif action == "duplicate" and isinstance(parent, list):
            parent.append(copy.deepcopy(parent[key]))
        elif action == "add" and isinstance(parent, dict):
            parent[draw(st.sampled_from(["bogus", "name", "rate_bps", "buffer_cells", "shape", "app"]))] = copy.deepcopy(draw(ODD_VALUES))
        else:
            continue
        log.append(f"{action} {'.'.join(map(str, path))}")
    return name, _materialize(doc), log


def _toml_text(doc: dict) -> str | None:
    """The document as TOML text, if tomli_w can write it (NaN and inf included)."""
    try:
        return tomli_w.dumps(doc)
    except (TypeError, ValueError, RecursionError):
        return None


def _short(doc: dict) -> dict:
    doc = copy.deepcopy(doc)
    sim = doc["simulation"]
    sim["duration_s"] = min(sim["duration_s"], SHORT_RUN_S)
    sim["warmup_s"] = min(sim.get("warmup_s", 0), sim["duration_s"] / 2)
    if sim.get("sample_interval_ms"):
        sim["sample_interval_ms"] = min(sim["sample_interval_ms"], sim["duration_s"] * 1e3)
    for t in doc.get("tcp", []):
        t["start_s"] = min(t.get("start_s", 0), sim["duration_s"] / 4)
    return doc


class _TooSlow(Exception):
    pass


def _run_checked(scen: atmsim.Scenario, label: str) -> None:
    started = time.monotonic()

    def watchdog(_fraction: float) -> None:
        if time.monotonic() - started > WALL_LIMIT_S:
            raise _TooSlow(f"{label}: no end after {WALL_LIMIT_S} s of wall time")

    summary = scen.run(progress=watchdog).summary
    cons = summary["conservation"]
    assert cons["cells"]["balanced"], f"{label}: cells {cons['cells']}"
    assert cons["frames"]["balanced"], f"{label}: frames {cons['frames']}"
    assert cons["datagrams"]["balanced"], f"{label}: datagrams {cons['datagrams']}"
    for section, field in RATIO_FIELDS:
        for row in summary.get(section, []):
            v = row.get(field)
            assert v is None or 0.0 <= v <= 1.0, f"{label}: {section} {row.get('name')} {field} = {v}"


def check_document(name: str, doc: dict, log: list[str]) -> str:
    """Feed one document through both input paths; return "invalid", "valid" or "ran"."""
    label = f"{name} after {log}"
    outcome = "invalid"
    inputs = [("dict", lambda: atmsim.Scenario.from_dict(doc, origin="fuzz"))]
    text = _toml_text(doc)
    if text is not None:
        inputs.append(("toml", lambda: atmsim.Scenario.from_str(text, origin="fuzz.toml")))
    for how, make in inputs:
        try:
            scen = make().validate()
        except ScenarioError as exc:
            assert "\n" not in str(exc), f"{label} ({how}): multi-line error {exc!r}"
            continue
        outcome = "valid"
        try:
            short = atmsim.Scenario.from_dict(_short(scen.doc), origin="fuzz-short").validate()
        except (ScenarioError, KeyError, TypeError):
            continue  # shortening made it invalid (or it has no plain duration): nothing to run
        _run_checked(short, f"{label} ({how}, shortened)")
        outcome = "ran"
    return outcome


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=not RANDOM,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(mutated_documents())
def test_mutated_scenarios_fail_only_with_scenario_error_or_run_cleanly(case) -> None:
    name, doc, log = case
    TALLY[check_document(name, doc, log)] += 1


@pytest.fixture(scope="module", autouse=True)
def _write_tally():
    yield
    if path := os.environ.get("ATMSIM_FUZZ_TALLY"):
        Path(path).write_text(json.dumps(dict(TALLY)))


@pytest.mark.parametrize("name", [n for n, _ in DOCS])
def test_every_shipped_scenario_runs_short_with_balanced_ledgers(name: str) -> None:
    doc = dict(DOCS)[name]
    assert check_document(name, doc, []) == "ran"
