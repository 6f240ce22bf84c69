"""CLI behaviour that needs no simulator: errors, version, summary tables."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from rich.console import Console

import atmsim
from atmsim import Results
from atmsim._run_tables import abr_table, connections_table, ports_table, print_summary, sources_table

REPO = Path(__file__).resolve().parent.parent


def atmsim_cli(*args: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "atmsim", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        timeout=120,
    )


@pytest.mark.parametrize("command", ["run", "check"])
def test_missing_scenario_is_one_line_exit_2(command, tmp_path):
    missing = tmp_path / "nope.toml"
    proc = atmsim_cli(command, str(missing), cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [f"error: {missing}: no such file or directory"]
    assert "Traceback" not in proc.stdout + proc.stderr
    assert not (tmp_path / "out").exists()


def test_scenario_that_is_a_directory_is_a_user_error(tmp_path):
    proc = atmsim_cli("check", str(tmp_path))
    assert proc.returncode == 2
    assert len(proc.stderr.splitlines()) == 1 and proc.stderr.startswith("error: ")


def test_version():
    proc = atmsim_cli("version")
    assert proc.returncode == 0
    assert proc.stdout.strip() == f"atmsim {atmsim.__version__}"


@pytest.mark.parametrize("args", [[], ["--help"], ["run", "--help"]])
def test_help(args):
    proc = atmsim_cli(*args)
    assert proc.returncode in (0, 2)  # click exits 2 when no command is given
    assert "Usage" in proc.stdout + proc.stderr


def test_bad_option_exits_2():
    proc = atmsim_cli("run", "x.toml", "--seed", "-3")
    assert proc.returncode == 2


def _render(renderable) -> str:
    console = Console(width=120, record=True, file=open("/dev/null", "w"))
    console.print(renderable)
    return console.export_text()


def test_connections_table(sample_results):
    text = _render(connections_table(sample_results.summary))
    for part in ["goodput Mb/s", "retransmissions", "timeouts", "tcp0", "64.00", "60.50"]:
        assert part in text


def test_ports_table():
    ports = [{"name": "sw0.p1", "rate_bps": 149.76e6, "cells_in": 1200, "cells_tx": 1080, "drops": 120,
              "utilization": 0.5, "mean_queue_cells": 12.25, "max_queue_cells": 64},
             {"name": "sw0.p2", "rate_bps": 149.76e6, "cells_in": 0, "cells_tx": 0, "drops": 0}]
    text = _render(ports_table({"ports": ports}))
    assert "│ sw0.p1 │     149.8 │         50.00 │      12.25 │        64 │     120 │  10.00 │" in text
    assert "sw0.p2" not in text and "1 ports carried nothing (not shown)" in text


def test_sources_table_shows_goodput_per_cell_source():
    summary = {"sources": [{"name": "ga", "kind": "greedy", "goodput_bps": 44.982e6, "sent_cell_bps": 149.75e6,
                            "offered_cell_bps": None}]}
    text = _render(sources_table(summary))
    assert "cell sources" in text and "goodput Mb/s" in text
    assert "│ ga   │ greedy │     149.8 │            — │        44.98 │" in text
    assert sources_table({"sources": []}) is None


def test_abr_table_shows_each_end_system():
    end = {"name": "v:a", "pcr_bps": 149.76e6, "acr_bps": 49.92e6, "acr_last_change_s": 0.1059, "forward_rm": 9303,
           "backward_rm_sent": 9223, "max_ip_queue_data": 10}
    text = _render(abr_table({"abr": {"ends": [end]}}))
    assert "ABR end systems" in text and "│ v:a  │    149.8 │    49.92 │        0.1059 │       9303 │        9223 │" in text
    assert abr_table({"abr": {"ends": []}}) is None and abr_table({}) is None


def test_names_with_markup_are_printed_literally():
    summary = {"scenario": "s[/]", "ports": [{"name": "[bold]p[/bold]", "drops": 1}], "connections": [{"name": "[red]c", "goodput_bps": 1e6}]}
    console = Console(width=120, record=True, file=open("/dev/null", "w"))
    print_summary(Results(summary, None), console)
    text = console.export_text()
    assert "s[/]" in text and "[bold]p[/bold]" in text and "[red]c" in text


@pytest.mark.parametrize("summary", [{}, {"connections": [], "ports": [{"name": "p"}]}])
def test_tables_tolerate_missing_keys(summary):
    assert connections_table(summary) is None
    assert ports_table(summary) is None
    console = Console(record=True, file=open("/dev/null", "w"))
    print_summary(Results(summary, None), console)
    assert "?" in console.export_text()


# ----- `atmsim run` over a fake core (the real one is exercised in test_run.py) -----------

@pytest.fixture
def fake_core(monkeypatch, sample_core_output):
    """Replace _core.run by one that reports progress and returns the sample output, and
    _core.validate by one that accepts any text without "broken" in it."""
    calls: list[dict] = []

    def validate(text, fmt="toml", origin="<string>"):
        if "broken" in text:
            raise atmsim.ScenarioError("expected a positive rate", file=origin, field="link[2].rate_bps")

    def run(text, fmt="toml", origin="<string>", *, seed=None, batching=None, progress=None):
        calls.append({"text": text, "fmt": fmt, "origin": origin, "seed": seed, "batching": batching})
        for k in range(5):
            if progress is not None:
                progress(k / 4)
        if "broken" in text:
            raise atmsim.ScenarioError("expected a positive rate", file=origin, field="link[2].rate_bps")
        return sample_core_output

    monkeypatch.setattr(atmsim._core, "run", run)
    monkeypatch.setattr(atmsim._core, "validate", validate)
    return calls


def invoke(*args: str):
    from click.testing import CliRunner

    from atmsim.cli import app

    return CliRunner().invoke(app, list(args))


@pytest.mark.parametrize(
    ("extra", "seed", "batching", "shows_tables"),
    [([], None, None, True), (["--seed", "5", "--no-batching"], 5, False, True), (["--quiet"], None, None, False)],
)
def test_run_writes_outputs_and_prints_tables(fake_core, tmp_path, extra, seed, batching, shows_tables):
    scenario = tmp_path / "w64k.toml"
    scenario.write_text("[simulation]\nseed = 1\n")
    out = tmp_path / "results"
    result = invoke("run", str(scenario), "--out", str(out), *extra)
    assert result.exit_code == 0, result.output
    # The core is handed JSON of the document read from the TOML file (docs/performance.md, "The scenario reader").
    assert fake_core == [{"text": '{"simulation": {"seed": 1}}', "fmt": "json", "origin": str(scenario), "seed": seed, "batching": batching}]
    assert Results.load(out).summary["seed"] == 7
    assert ("goodput Mb/s" in result.stdout) == shows_tables
    assert f"wrote {out}" in result.stderr


def test_run_default_out_dir(fake_core, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "w64k.toml").write_text("[simulation]\nseed = 1\n")
    assert invoke("run", "w64k.toml", "--quiet").exit_code == 0
    assert (tmp_path / "out" / "w64k" / "summary.json").exists()


def test_failed_run_is_one_line_and_leaves_out_untouched(fake_core, tmp_path):
    scenario = tmp_path / "bad.toml"
    scenario.write_text('name = "broken"\n[simulation]\n')  # in a value: the core is handed JSON of the document
    out = tmp_path / "results"
    out.mkdir()
    (out / "summary.json").write_text("earlier")
    result = invoke("run", str(scenario), "--out", str(out))
    assert result.exit_code == 2
    assert result.stderr.splitlines()[-1] == f"error: {scenario}: link[2].rate_bps: expected a positive rate"
    assert [p.name for p in out.iterdir()] == ["summary.json"]
    assert (out / "summary.json").read_text() == "earlier"


def test_the_command_line_starts_without_the_heavy_libraries():
    # `atmsim run` reaches the simulation without pandas, pyarrow, DuckDB, matplotlib or dask
    # (they load when results are written or plotted), nor rich (loaded where something is
    # printed), nor typer and pydantic (the command line is plain click); the public names
    # still resolve.
    code = (
        "import sys, atmsim.cli, atmsim\n"
        "heavy = ('pandas', 'pyarrow', 'duckdb', 'matplotlib', 'dask', 'numpy', 'rich', 'typer', 'pydantic')\n"
        "loaded = [m for m in sys.modules if m.split('.')[0] in heavy]\n"
        "assert not loaded, loaded\n"
        "assert callable(atmsim.results) and atmsim.results.__module__ == 'atmsim._query'\n"
        "assert atmsim.Results.__module__ == 'atmsim._run_results' and hasattr(atmsim.builder, 'NetworkBuilder')\n"
        "assert {'Results', 'sweep', 'builder'} <= set(dir(atmsim))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr


def _modules_when_the_simulation_starts(tmp_path, scenario: Path, *options: str) -> tuple[set[str], set[str]]:
    """Run `atmsim run SCENARIO --quiet OPTIONS` with the core's run replaced by one that
    records which top-level modules are loaded and stops the process: those loaded when it
    is called, and those loaded once the prefetch thread (`atmsim._prefetch`) has finished."""
    code = (
        "import json, os, sys, threading\n"
        "import atmsim._core as core\n"
        "def run(*args, **kwargs):\n"
        "    first = sorted(sys.modules)\n"
        "    for t in threading.enumerate():\n"
        "        if t.name == 'atmsim-prefetch':\n"
        "            t.join()\n"
        "    print(json.dumps([first, sorted(sys.modules)]), flush=True)\n"
        "    os._exit(0)\n"
        "core.run = run\n"
        "from atmsim.cli import main\n"
        f"sys.argv = ['atmsim', 'run', {str(scenario)!r}, '--quiet', *{list(options)!r}, '--out', {str(tmp_path / 'out')!r}]\n"
        "main()\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    first, then = json.loads(proc.stdout)
    return {m.split(".")[0] for m in first}, {m.split(".")[0] for m in then}


HEAVY = {"pandas", "pyarrow", "numpy", "rich", "typer", "pydantic", "matplotlib", "duckdb", "dask"}


def test_run_loads_no_cli_extras_before_the_simulation(tmp_path):
    """What `atmsim run --quiet` has imported when the simulation starts: none of pandas, rich,
    typer, pydantic, matplotlib, DuckDB or dask, and while it simulates only what writing
    series.parquet needs (pyarrow, and numpy beneath it), in the background; and `atmsim
    check` never imports rich's tables."""
    scenario = REPO / "scenarios" / "magic95" / "table1_w128k.toml"
    first, then = _modules_when_the_simulation_starts(tmp_path, scenario, "--no-plot")
    assert "click" in first  # the control: the command line was parsed
    assert not first & (HEAVY - {"pyarrow", "numpy"}), first & HEAVY
    assert then & HEAVY == {"pyarrow", "numpy"}

    code = (
        "import sys\n"
        "from atmsim.cli import main\n"
        f"sys.argv = ['atmsim', 'check', {str(scenario)!r}]\n"
        "try:\n"
        "    main()\n"
        "except SystemExit as exc:\n"
        "    assert exc.code == 0, exc.code\n"
        "loaded = [m for m in ('rich.table', 'rich.progress', 'typer', 'pydantic', 'pandas', 'pyarrow') if m in sys.modules]\n"
        "assert not loaded, loaded\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == f"ok: {scenario}\n"


def test_run_prefetches_what_its_writers_need_and_nothing_else(tmp_path):
    """With figures, pandas and matplotlib load in the background too; a scenario without
    samples loads none of them (no series, no figures), then or after."""
    scenario = REPO / "scenarios" / "magic95" / "table1_w128k.toml"
    first, then = _modules_when_the_simulation_starts(tmp_path, scenario)
    assert not first & (HEAVY - {"pyarrow", "numpy", "pandas", "matplotlib"}), first & HEAVY
    assert then & HEAVY == {"pyarrow", "numpy", "pandas", "matplotlib"}
    quiet = tmp_path / "no_samples.toml"
    quiet.write_text(scenario.read_text().replace("sample_interval_ms = 10\n", "sample_interval_ms = 0\n", 1))
    assert "sample_interval_ms = 0\n" in quiet.read_text()
    for options in [(), ("--no-plot",)]:
        first, then = _modules_when_the_simulation_starts(tmp_path, quiet, *options)
        assert not then & HEAVY, (options, then & HEAVY)


def test_a_failed_prefetch_is_left_to_the_writer_and_an_error_does_not_wait():
    from atmsim._prefetch import prefetched

    calls = []
    with prefetched("atmsim_no_such_module", lambda: calls.append("after")):
        pass
    assert calls == []  # the first failure ends the thread quietly
    release = threading.Event()
    with pytest.raises(KeyboardInterrupt), prefetched(release.wait):
        raise KeyboardInterrupt  # leaves at once: the thread still waits on `release`
    assert [t for t in threading.enumerate() if t.name == "atmsim-prefetch"]
    release.set()


def test_reproduce_ends_with_the_verdicts_counted_as_the_report_summary_counts_them(tmp_path):
    from atmsim.cli import _verdict_tally
    from atmsim.study import Kind, Verdict, within, write_verdicts

    rows = [Verdict.judged(f"a{i}", Kind.VALIDATED, "p", within(1.0, 1.0, 0.1)) for i in range(3)]
    rows += [Verdict.judged("d", Kind.VALIDATED, "p", within(2.0, 1.0, 0.1)), Verdict.not_comparable("n", "p", "lost")]
    write_verdicts(tmp_path, rows)
    assert _verdict_tally(tmp_path) == "3 validated agrees, 1 validated differs, 1 not comparable"
    assert _verdict_tally(tmp_path / "none") == ""
