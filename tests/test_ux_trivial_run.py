"""A trivial `atmsim run` (no probes, so no time series) imports neither pandas, numpy,
pyarrow nor matplotlib, and writes no series.parquet (docs/performance.md, "A trivial atmsim
run"). The import graph is checked in a fresh interpreter, not the run's wall time."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pandas as pd
import tomli_w

from atmsim import Results, Scenario
from atmsim._run_results import SERIES_FILE, SUMMARY_FILE

REPO = Path(__file__).resolve().parent.parent
HEAVY = ("pandas", "numpy", "pyarrow", "matplotlib", "duckdb", "scipy")


def trivial_scenario(tmp_path: Path, sample_interval_ms: float = 0.0) -> Path:
    """tests/data/tiny.toml cut to 1 ms; no samples unless ``sample_interval_ms`` > 0."""
    doc = tomllib.loads((REPO / "tests" / "data" / "tiny.toml").read_text())
    doc["simulation"].update(duration_s=0.001, warmup_s=0.0, sample_interval_ms=sample_interval_ms)
    path = tmp_path / "trivial.toml"
    path.write_text(tomli_w.dumps(doc))
    return path


def run_and_list_modules(scenario: Path, out: Path, *options: str) -> tuple[subprocess.CompletedProcess, list[str]]:
    """Run `atmsim run` inside a fresh interpreter; return the process and which of HEAVY
    were imported by the time the command finished."""
    script = (
        "import sys\n"
        "from atmsim.cli import main\n"
        f"sys.argv = ['atmsim', 'run', {str(scenario)!r}, '--out', {str(out)!r}, *{list(options)!r}]\n"
        "try:\n"
        "    main()\n"
        "except SystemExit as exc:\n"
        "    code = exc.code\n"
        f"heavy = [m for m in {HEAVY!r} if m in sys.modules]\n"
        "print('IMPORTED', ','.join(heavy), file=sys.stderr)\n"
        "sys.exit(code)\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)
    line = next(ln for ln in proc.stderr.splitlines() if ln.startswith("IMPORTED"))
    return proc, [m for m in line.removeprefix("IMPORTED").strip().split(",") if m]


def test_a_run_without_samples_imports_no_heavy_module_and_writes_no_series(tmp_path):
    out = tmp_path / "out"
    proc, imported = run_and_list_modules(trivial_scenario(tmp_path), out)
    assert proc.returncode == 0, proc.stderr
    assert imported == []
    assert sorted(p.name for p in out.iterdir()) == ["report.html", SUMMARY_FILE]
    assert "ttcp" in proc.stdout  # the tables were printed


def test_the_check_itself_sees_pandas_when_a_run_has_samples(tmp_path):
    """The same run with probes sampled every 0.1 ms writes series.parquet through pyarrow and
    draws its figures: the modules show up, so the test above can fail."""
    out = tmp_path / "out"
    proc, imported = run_and_list_modules(trivial_scenario(tmp_path, 0.1), out, "--quiet")
    assert proc.returncode == 0, proc.stderr
    assert "pyarrow" in imported and "matplotlib" in imported
    assert SERIES_FILE in {p.name for p in out.iterdir()}


def test_a_run_with_samples_writes_its_series_without_pandas(tmp_path):
    """series.parquet is built from the core's columns through Arrow buffers
    (`atmsim._series_arrow`): pyarrow is imported, pandas is not, and the file reads back as
    the series the same run holds in memory."""
    scenario = trivial_scenario(tmp_path, 0.1)
    out = tmp_path / "out"
    proc, imported = run_and_list_modules(scenario, out, "--quiet", "--no-plot")
    assert proc.returncode == 0, proc.stderr
    assert "pyarrow" in imported and "pandas" not in imported, imported
    saved = Results.load(out).series
    in_memory = Scenario.from_toml(scenario).run().series
    assert len(saved) > 0
    pd.testing.assert_frame_equal(saved, in_memory)


def test_a_run_without_samples_removes_an_earlier_series_and_loads_empty(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / SERIES_FILE).write_bytes(b"an earlier run's series")
    proc, _ = run_and_list_modules(trivial_scenario(tmp_path), out, "--no-plot")
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in out.iterdir()) == [SUMMARY_FILE]
    back = Results.load(out)
    assert back.samples == 0 and list(back.series.columns) == ["time_s", "entity", "metric", "value"]
    assert back.summary == json.loads((out / SUMMARY_FILE).read_text())


def test_samples_are_counted_without_making_a_dataframe():
    columns = {"time_s": [0.0, 0.1], "entity": ["a", "b"], "metric": ["m", "m"], "value": [1.0, 2.0]}
    r = Results({}, columns)
    assert r.samples == 2 and isinstance(r._series, dict)
    assert r.series["entity"].tolist() == ["a", "b"] and r.samples == 2
    assert Results({}, None).samples == 0
