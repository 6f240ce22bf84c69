"""End-to-end runs through the real simulator (atmsim-core), from Python and the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import atmsim
from atmsim import Results, Scenario, ScenarioError

REPO = Path(__file__).resolve().parent.parent
MAGIC = REPO / "scenarios" / "magic95" / "table1_w128k.toml"


def atmsim_cli(*args: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "atmsim", *args],
        capture_output=True, text=True, cwd=cwd, stdin=subprocess.DEVNULL, timeout=600,
    )


def without_wall_clock(summary: dict) -> dict:
    summary = json.loads(json.dumps(summary))
    run = summary.get("run", {})
    for key in list(run):
        if "wall" in key or key.endswith("_per_s") or key.endswith("per_wall_s"):
            del run[key]
    return summary


@pytest.fixture(scope="module")
def magic() -> Results:
    return atmsim.run(MAGIC, seed=1)


def test_magic95_runs_from_python(magic):
    s = magic.summary
    for key in ["scenario", "seed", "duration_s", "warmup_s", "connections", "ports", "conservation", "run"]:
        assert key in s, key
    assert s["seed"] == 1
    conns = magic.connections()
    assert len(conns) >= 1 and (conns["goodput_bps"] > 0).all()
    assert list(magic.series.columns) == ["time_s", "entity", "metric", "value"]


def test_same_seed_twice_is_identical(magic):
    again = atmsim.run(MAGIC, seed=1)
    assert without_wall_clock(again.summary) == without_wall_clock(magic.summary)
    pd.testing.assert_frame_equal(again.series, magic.series)


def test_batching_does_not_change_results(magic):
    unbatched = atmsim.run(MAGIC, seed=1, batching=False)
    assert without_wall_clock(unbatched.summary)["connections"] == without_wall_clock(magic.summary)["connections"]


def test_progress_callback_is_called_and_ends_at_one():
    seen: list[float] = []
    Scenario.from_toml(MAGIC).run(seed=1, progress=seen.append)
    assert seen and seen == sorted(seen) and 0.0 <= seen[0] and seen[-1] == pytest.approx(1.0)


def test_exception_in_progress_callback_stops_the_run():
    def stop(_fraction):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        Scenario.from_toml(MAGIC).run(seed=1, progress=stop)


def test_check_accepts_magic95():
    Scenario.from_toml(MAGIC).validate()
    proc = atmsim_cli("check", str(MAGIC))
    assert proc.returncode == 0, proc.stderr


def test_cli_run_writes_outputs(tmp_path):
    out = tmp_path / "magic"
    proc = atmsim_cli("run", str(MAGIC), "--seed", "1", "--out", str(out), "--quiet")
    assert proc.returncode == 0, proc.stderr
    saved = Results.load(out)
    assert saved.summary["seed"] == 1
    assert without_wall_clock(saved.summary) == without_wall_clock(atmsim.run(MAGIC, seed=1).summary)
    # Figures and the run's HTML page are written beside the data.
    page = (out / "report.html").read_text()
    for fig in ("cwnd.png", "goodput.png"):
        assert (out / fig).stat().st_size > 5_000 and fig in page


def test_cli_run_no_plot_writes_data_only(tmp_path):
    out = tmp_path / "magic"
    proc = atmsim_cli("run", str(MAGIC), "--out", str(out), "--quiet", "--no-plot")
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in out.iterdir()) == ["series.parquet", "summary.json"]


def test_cli_run_default_out_dir(tmp_path):
    proc = atmsim_cli("run", str(MAGIC), "--quiet", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "out" / "table1_w128k" / "summary.json").exists()


# ----- bad scenarios ----------------------------------------------------------------------

def accepted_field(reported: str, broken: str) -> bool:
    """The offending field itself, or, for an unknown key, the table holding it."""
    return reported == broken or (broken.endswith("no_such_field") and reported == broken.rsplit(".", 1)[0])


def _bad_unknown_field(s: Scenario) -> str:
    s.set("simulation.no_such_field", 1)
    return "simulation.no_such_field"


def _bad_negative_rate(s: Scenario) -> str:
    for table in ("link", "links"):
        if table in s.doc:
            s.set(f"{table}[0].rate_bps", -1.0)
            return f"{table}[0].rate_bps"
    pytest.fail("magic95 scenario has no link table to break")


@pytest.mark.parametrize(("breaker", "code"), [(_bad_unknown_field, "parse"), (_bad_negative_rate, "invalid")])
def test_bad_scenario_raises_scenario_error_with_field(breaker, code, tmp_path):
    s = Scenario.from_toml(MAGIC)
    field = breaker(s)
    with pytest.raises(ScenarioError) as info:
        s.validate()
    assert accepted_field(info.value.field, field), info.value
    assert field.rsplit(".", 1)[-1] in str(info.value)
    assert info.value.code == code
    with pytest.raises(ScenarioError):
        s.run(seed=1)


@pytest.mark.parametrize("breaker", [_bad_unknown_field, _bad_negative_rate])
def test_cli_bad_scenario_exit_2_and_out_untouched(breaker, tmp_path):
    s = Scenario.from_toml(MAGIC)
    field = breaker(s)
    path = tmp_path / "bad.toml"
    path.write_text(s.to_toml())
    out = tmp_path / "out"
    out.mkdir()
    (out / "summary.json").write_text('{"earlier": true}')
    proc = atmsim_cli("run", str(path), "--out", str(out), "--quiet")
    assert proc.returncode == 2
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {path}: "), proc.stderr
    assert field.rsplit(".", 1)[-1] in lines[0]
    assert "Traceback" not in proc.stdout + proc.stderr
    assert sorted(p.name for p in out.iterdir()) == ["summary.json"]
    assert (out / "summary.json").read_text() == '{"earlier": true}'


@pytest.mark.parametrize("command", ["run", "check"])
def test_cli_malformed_toml_is_reported_by_the_core(command, tmp_path):
    path = tmp_path / "broken.toml"
    path.write_text("[simulation\nseed = 1\n")
    proc = atmsim_cli(command, str(path), "--quiet") if command == "run" else atmsim_cli(command, str(path))
    assert proc.returncode == 2
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {path}: ")
    assert "Traceback" not in proc.stdout + proc.stderr


def test_core_reports_malformed_toml_as_parse_error():
    with pytest.raises(ScenarioError) as info:
        atmsim._core.validate("[simulation\n", "toml", "x.toml")
    assert info.value.code == "parse" and info.value.file == "x.toml"


def test_tie_order_from_python_is_recorded_and_seeded():
    """`simulation.tie_order` reaches the core from Python: a non-default order is recorded in
    the summary, random ties are reproducible per seed, and on MAGIC's single connection
    (nothing of consequence at the same instant) the goodput is the FIFO run's."""
    base = atmsim.load_scenario(MAGIC).set("simulation.duration_s", 2.0)
    fifo = base.run(seed=1).summary
    assert "tie_order" not in fifo
    rnd = base.copy().set("simulation.tie_order", "random")
    a, b = rnd.run(seed=1).summary, rnd.run(seed=1).summary
    assert a["tie_order"] == "random"
    assert without_wall_clock(a) == without_wall_clock(b)
    assert a["connections"][0]["goodput_bps"] == fifo["connections"][0]["goodput_bps"]
    with pytest.raises(ScenarioError) as e:
        base.copy().set("simulation.tie_order", "sideways").run(seed=1)
    assert e.value.field == "simulation.tie_order"
