"""Sweep inputs that could end in a traceback or exhaust memory: huge seed sets and grids,
seeds out of range, values JSON cannot carry (dates, NaN, deep nesting). Each is refused
before any run, as one `error:` line (CLI, exit 2) or a ScenarioError (Python)."""

from __future__ import annotations

import datetime
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest

import atmsim
from atmsim import ScenarioError
from atmsim._sweep import MAX_RUNS, parse_seeds, plan_sweep
from atmsim._sweep import plan as sweep_plan
from atmsim._sweep.grid import parse_grid_option
from test_sweep import atmsim_cli

REPO = Path(__file__).resolve().parent.parent
TINY = REPO / "tests" / "data" / "tiny.toml"




def assert_one_line_user_error(proc: subprocess.CompletedProcess, *fragments: str) -> str:
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
    return lines[0]


@pytest.fixture
def no_cartesian_product(monkeypatch):
    """Fail the test if the sweep builds its grid's cartesian product."""

    def product(*_args, **_kwargs):
        raise AssertionError("the cartesian product was built")

    monkeypatch.setattr(sweep_plan.itertools, "product", product)


# ----- seeds ------------------------------------------------------------------------------------


def test_a_billion_seeds_are_refused_without_expanding_the_range():
    t0 = time.perf_counter()
    with pytest.raises(ScenarioError, match="more than the limit of 100,000 runs") as info:
        parse_seeds("1-1000000000")
    assert time.perf_counter() - t0 < 0.5  # counted, not materialised
    assert info.value.field == "seeds"


def test_cli_seed_range_over_the_limit_is_one_line_naming_seeds_and_the_limit(tmp_path):
    store = tmp_path / "r.duckdb"
    proc = atmsim_cli("sweep", str(TINY), "--seeds", "1-1000000000", "--store", str(store), "-q")
    assert_one_line_user_error(proc, "--seeds", "100,000")
    assert not store.exists()


@pytest.mark.parametrize(
    ("text", "count"),
    [("1-100000", 100_000), ("1-60000,40001-100000", 100_000), ("5-100004,5-100004", 100_000), ("0,1-99999", 100_000)],
)
def test_seed_ranges_up_to_the_limit_are_counted_once(text, count):
    assert len(parse_seeds(text)) == count == MAX_RUNS


@pytest.mark.parametrize("text", ["0-100000", "1-50000,50002-100002"])
def test_one_seed_over_the_limit_is_refused(text):
    with pytest.raises(ScenarioError, match="100,001 seeds"):
        parse_seeds(text)


@pytest.mark.parametrize("seeds", [range(10**12), list(range(MAX_RUNS + 1)), (s for s in iter(int, 1))])
def test_python_seed_collections_over_the_limit_are_refused(seeds):
    with pytest.raises(ScenarioError, match="limit of 100,000 runs"):
        parse_seeds(seeds)


@pytest.mark.parametrize("text", ["18446744073709551616", "9223372036854775808", "1-18446744073709551615", "9" * 5000])
def test_cli_seed_beyond_64_bits_is_one_line_error(text, tmp_path):
    proc = atmsim_cli("sweep", str(TINY), "--seeds", text, "--store", str(tmp_path / "r.duckdb"), "-q")
    line = assert_one_line_user_error(proc, "--seeds", "out of range")
    assert len(line) < 300


def test_largest_seed_is_accepted_and_numpy_seeds_are_integers():
    assert parse_seeds("9223372036854775807") == [2**63 - 1]
    assert parse_seeds(np.arange(3, 6)) == [3, 4, 5]
    assert parse_seeds(np.int64(7)) == [7]
    for bad in (1.5, [1, 2.0], "١-٣", b"1-3"):
        with pytest.raises(ScenarioError):
            parse_seeds(bad)


# ----- grid size --------------------------------------------------------------------------------


def test_cli_hundred_million_point_grid_is_refused_at_once(tmp_path):
    fields = ["link[0].delay_ms", "link[1].delay_ms", "tcp[0].window_bytes", "tcp[0].mss_bytes",
              "simulation.duration_s", "simulation.warmup_s", "switch[0].buffer_cells", "simulation.seed"]
    options = []  # 8 fields × 10 values: 10^8 grid points
    for f in fields:
        options += ["-g", f"{f}=" + ",".join(str(v) for v in range(1, 11))]
    store = tmp_path / "r.duckdb"
    t0 = time.monotonic()
    proc = atmsim_cli("sweep", str(TINY), *options, "--store", str(store), "-q")
    assert time.monotonic() - t0 < 30
    assert_one_line_user_error(proc, "--grid", "100,000,000 grid points", "100,000")
    assert not store.exists()


def test_python_grid_over_the_limit_is_refused_before_the_product(no_cartesian_product):
    grid = {f"tcp[0].x{i}": list(range(10)) for i in range(8)}
    with pytest.raises(ScenarioError, match="100,000,000 grid points") as info:
        plan_sweep(TINY, grid=grid)
    assert info.value.field == "grid"
    # The product of grid points and seeds counts: 1,000 points × 101 seeds.
    with pytest.raises(ScenarioError, match="= 101,000 runs"):
        plan_sweep(TINY, grid={"a.b": list(range(100)), "a.c": list(range(10))}, seeds="1-101")


def test_python_grid_with_a_billion_values_is_refused_without_listing_them(no_cartesian_product):
    t0 = time.perf_counter()
    with pytest.raises(ScenarioError, match="limit of 100,000 runs") as info:
        plan_sweep(TINY, grid={"tcp[0].window_bytes": range(10**9)})
    assert info.value.field == "tcp[0].window_bytes"
    endless = (4096 for _ in iter(int, 1))  # a generator without end
    with pytest.raises(ScenarioError, match="more than 100,000 values"):
        plan_sweep(TINY, grid={"tcp[0].window_bytes": endless})
    assert time.perf_counter() - t0 < 5


def test_python_sweep_refuses_a_huge_grid_before_touching_the_store(tmp_path, no_cartesian_product):
    store = tmp_path / "r.duckdb"
    with pytest.raises(ScenarioError):
        atmsim.sweep(TINY, grid={f"tcp[0].x{i}": list(range(10)) for i in range(6)}, store=store, jobs=0)
    assert list(tmp_path.iterdir()) == []


# ----- grid values ------------------------------------------------------------------------------


def test_cli_toml_datetime_grid_value_is_one_line_error_naming_the_path(tmp_path):
    proc = atmsim_cli(
        "sweep", str(TINY), "-g", "simulation.duration_s=1979-05-27T07:32:00Z", "--store", str(tmp_path / "r.duckdb"), "-q"
    )
    assert_one_line_user_error(proc, "simulation.duration_s")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "value",
    [datetime.datetime.now(), datetime.date(1979, 5, 27), datetime.time(7, 32), {"at": datetime.datetime.now()},
     float("nan"), float("inf"), object(), b"bytes", 10**30, {1: 2}],
)
def test_python_grid_value_json_cannot_carry_is_a_scenario_error_naming_the_path(value, tmp_path):
    store = tmp_path / "r.duckdb"
    with pytest.raises(ScenarioError) as info:
        atmsim.sweep(TINY, grid={"simulation.duration_s": [1.0, value]}, store=store, jobs=0)
    assert info.value.field == "simulation.duration_s"
    assert "simulation.duration_s" in str(info.value)
    assert list(tmp_path.iterdir()) == []


def test_datetime_in_the_swept_scenario_is_a_scenario_error_naming_its_field(tmp_path):
    scen = tmp_path / "dated.toml"
    scen.write_text(TINY.read_text().replace('description = "', 'created = 1979-05-27T07:32:00Z\ndescription = "'))
    with pytest.raises(ScenarioError) as info:
        plan_sweep(scen, grid={"tcp[0].window_bytes": [4096]})
    assert info.value.field == "created" and info.value.file == str(scen)
    proc = atmsim_cli("sweep", str(scen), "-g", "tcp[0].window_bytes=4096", "--store", str(tmp_path / "r.duckdb"), "-q")
    assert_one_line_user_error(proc, str(scen), "created")
    assert not (tmp_path / "r.duckdb").exists()


def test_numpy_grid_values_become_plain_numbers():
    plan = plan_sweep(TINY, grid={"tcp[0].window_bytes": np.array([4096, 8192]), "link[0].delay_ms": np.float32(2.5)})
    assert plan.grid == {"tcp[0].window_bytes": [4096, 8192], "link[0].delay_ms": [2.5]}
    assert all(type(v) is int for v in plan.grid["tcp[0].window_bytes"])
    assert len(plan.runs) == 2


@pytest.mark.parametrize(
    "option",
    [
        "tcp[0].window_bytes=" + "[" * 5000 + "]" * 5000,  # deeper than the JSON parser recurses
        "tcp[0].window_bytes=[" + "1" * 5000 + "]",  # more digits than Python converts
        "tcp[0].window_bytes=" + "1" * 5000,
        "tcp[0].window_bytes=" + "[" * 100 + "]" * 100,  # parsed, but nested too deep for a scenario
    ],
)
def test_cli_grid_values_too_large_or_deep_are_one_line_errors(option, tmp_path):
    proc = atmsim_cli("sweep", str(TINY), "-g", option, "--store", str(tmp_path / "r.duckdb"), "-q")
    line = assert_one_line_user_error(proc, "tcp[0].window_bytes")
    assert len(line) < 400
    assert list(tmp_path.iterdir()) == []


def test_underscored_integers_parse_and_malformed_ones_are_strings():
    assert parse_grid_option("tcp[0].window_bytes=65_536,1__2") == ("tcp[0].window_bytes", [65536, "1__2"])


@pytest.mark.parametrize("grid", [[("tcp[0].window_bytes", [1])], {1: [2]}, "tcp[0].window_bytes=1"])
def test_python_grid_that_is_not_a_mapping_of_paths_is_a_scenario_error(grid):
    with pytest.raises(ScenarioError):
        plan_sweep(TINY, grid=grid)
