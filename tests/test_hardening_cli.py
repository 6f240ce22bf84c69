"""The command line on hostile or mistaken input: every user error is one `error:` line on
stderr and exit code 2, never a traceback; small conveniences (--version, report --quiet,
defaults in --help, whole names in tables printed to a pipe)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import atmsim
from atmsim._scenario import MAX_DEPTH, SEED_MAX

REPO = Path(__file__).resolve().parent.parent
GREEDY = REPO / "scenarios" / "examples" / "greedy_rr.toml"
CONTENTION = REPO / "scenarios" / "examples" / "contention_tcp.toml"


def atmsim_cli(*args: str, cwd=None, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "atmsim", *args],
        capture_output=True, text=True, cwd=cwd, stdin=subprocess.DEVNULL, timeout=timeout,
        env={**os.environ, "COLUMNS": "200"},
    )


def assert_one_error_line(proc: subprocess.CompletedProcess, *fragments: str) -> str:
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    for fragment in fragments:
        assert fragment in lines[0]
    assert "Traceback" not in proc.stdout + proc.stderr
    return lines[0]


# ----- unreadable scenario files -----------------------------------------------------------


@pytest.mark.parametrize("command", ["run", "check"])
@pytest.mark.parametrize(
    ("content", "detail"),
    [
        (b"\x7fELF\x02\x01\x01\x00\x00\x00\xff\xfe", "invalid byte 0xff at offset 10"),
        (b'name = "caf\xe9"\n', "invalid byte 0xe9 at offset 11"),
        (b'name = "x"\x00\x00', "NUL byte at offset 10"),
    ],
    ids=["binary", "latin-1", "nul"],
)
def test_non_utf8_scenario_is_one_line_naming_the_file(command, content, detail, tmp_path):
    path = tmp_path / "bad.toml"
    path.write_bytes(content)
    assert_one_error_line(atmsim_cli(command, str(path), cwd=tmp_path), f"error: {path}: not UTF-8 text", detail)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "text",
    ["a = " + "[" * 1000 + "]" * 1000, "a = " + "{ b = " * 1000 + "1" + " }" * 1000],
    ids=["arrays", "inline-tables"],
)
def test_deeply_nested_toml_is_one_line(text, tmp_path):
    path = tmp_path / "deep.toml"
    path.write_text(text)
    for command in ("check", "run"):
        assert_one_error_line(atmsim_cli(command, str(path), cwd=tmp_path), f"nested deeper than {MAX_DEPTH} levels")


def test_dev_zero_is_refused_at_the_size_limit():
    assert_one_error_line(atmsim_cli("check", "/dev/zero", timeout=60), "error: /dev/zero: larger than 64 MiB")


def test_oversized_scenario_file_is_refused_without_reading_it(tmp_path):
    path = tmp_path / "huge.toml"
    with open(path, "wb") as f:
        f.truncate(64 * 2**20 + 1)  # sparse: nothing to read if the size is checked first
    assert_one_error_line(atmsim_cli("run", str(path), cwd=tmp_path), f"error: {path}: larger than 64 MiB")


def test_named_pipe_is_refused_without_waiting_for_a_writer(tmp_path):
    fifo = tmp_path / "pipe.toml"
    os.mkfifo(fifo)
    assert_one_error_line(atmsim_cli("check", str(fifo), timeout=30), f"error: {fifo}: is a named pipe")


@pytest.mark.parametrize("command", ["run", "check"])
def test_directory_as_scenario_is_one_line(command, tmp_path):
    assert_one_error_line(atmsim_cli(command, str(tmp_path), cwd=tmp_path), f"error: {tmp_path}: is a directory")


def test_undecodable_file_name_is_one_line(tmp_path):
    name = os.fsdecode(b"bad\xff.toml")
    assert_one_error_line(atmsim_cli("check", name, cwd=tmp_path), "error: bad\\xff.toml: no such file or directory")


def test_long_name_is_at_most_one_line(tmp_path):
    """A 1,000,000-character name: the core refuses or accepts it, but prints one line."""
    doc = GREEDY.read_text().replace('name = "greedy-rr"', f'name = "{"n" * 1_000_000}"')
    path = tmp_path / "long.toml"
    path.write_text(doc)
    proc = atmsim_cli("check", str(path), cwd=tmp_path)
    assert proc.returncode in (0, 2)
    assert len((proc.stdout + proc.stderr).splitlines()) == 1
    assert "Traceback" not in proc.stderr


def test_huge_error_message_is_cut_to_one_short_line(monkeypatch, tmp_path):
    from click.testing import CliRunner

    from atmsim.cli import MAX_ERROR_CHARS, app

    def validate(text, fmt="toml", origin="<string>"):
        raise atmsim.ScenarioError(f"unknown host `{'h' * 1_000_000}`", file=origin, field="link[0].a")

    monkeypatch.setattr(atmsim._core, "validate", validate)
    path = tmp_path / "s.toml"
    path.write_text("name = 'x'\n")
    result = CliRunner().invoke(app, ["check", str(path)])
    assert result.exit_code == 2
    [line] = result.stderr.splitlines()
    assert line.startswith(f"error: {path}: link[0].a: unknown host `hhh") and len(line) <= MAX_ERROR_CHARS
    assert line.endswith("more characters)")


# ----- seeds ------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [str(SEED_MAX + 1), "-1", str(10**40)])
@pytest.mark.parametrize("command", [["run", str(GREEDY)], ["reproduce", "magic95"]], ids=["run", "reproduce"])
def test_seed_beyond_u64_is_one_line(command, seed, tmp_path):
    proc = atmsim_cli(*command, "--seed", seed, "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert_one_error_line(proc, f"expected a seed between 0 and {SEED_MAX}")
    assert not (tmp_path / "out").exists()


def test_largest_seed_runs(tmp_path):
    proc = atmsim_cli("run", str(GREEDY), "--seed", str(SEED_MAX), "--out", str(tmp_path / "o"), "--quiet", "--no-plot")
    assert proc.returncode == 0, proc.stderr
    assert atmsim.Results.load(tmp_path / "o").summary["seed"] == SEED_MAX


# ----- usage errors ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["run"], "missing argument 'SCENARIO.toml'"),
        (["run", "x.toml", "--bogus"], "no such option '--bogus'"),
        (["run", "x.toml", "--seed", "abc"], "invalid value for '--seed'"),
        (["nope"], "no such command 'nope'"),
        (["report", "--sweep"], "option '--sweep' requires an argument"),
    ],
)
def test_usage_errors_are_one_line(args, fragment):
    assert_one_error_line(atmsim_cli(*args), fragment)


def test_usage_error_points_to_the_commands_help():
    assert_one_error_line(atmsim_cli("run", "x.toml", "--bogus"), "(see 'atmsim run --help')")


def test_invalid_scenario_draws_no_progress_bar(tmp_path):
    """The scenario is validated before the bar appears: the error is all of stderr, even
    where the bar would be drawn (FORCE_COLOR makes rich treat stderr as a terminal)."""
    env = {**os.environ, "FORCE_COLOR": "1"}
    run = [sys.executable, "-m", "atmsim", "run", "--out", str(tmp_path / "out")]
    good = subprocess.run([*run, str(GREEDY), "--no-plot"], capture_output=True, text=True, env=env, timeout=120)
    assert good.returncode == 0 and "simulated" in good.stderr  # the bar, as a control
    path = tmp_path / "bad.toml"
    path.write_text(GREEDY.read_text().replace("duration_s = 0.5", "duration_s = -1.0"))
    (tmp_path / "out").rename(tmp_path / "earlier")
    bad = subprocess.run([*run, str(path)], capture_output=True, text=True, env=env, timeout=120)
    stderr = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", bad.stderr)
    assert bad.returncode == 2
    assert stderr.splitlines() == [f"error: {path}: " + stderr.split(f"{path}: ", 1)[1].strip()]
    assert "simulation.duration_s" in stderr and "simulated" not in stderr
    assert not (tmp_path / "out").exists()


# ----- --version, report --quiet, --help ----------------------------------------------------------


def test_version_option_prints_the_version():
    proc = atmsim_cli("--version")
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, f"atmsim {atmsim.__version__}\n", "")


@pytest.fixture(scope="module")
def small_store(tmp_path_factory) -> Path:
    store = tmp_path_factory.mktemp("store") / "results.duckdb"
    atmsim.sweep(str(GREEDY), grid={"switch[0].buffer_cells": [1000, 2000]}, seeds="1", store=store, jobs=0)
    return store


@pytest.mark.parametrize("quiet", [[], ["-q"], ["--quiet"]])
def test_report_quiet_prints_nothing(small_store, tmp_path, quiet):
    proc = atmsim_cli("report", str(small_store), "--out", str(tmp_path / "r"), *quiet)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "r" / "report.html").exists()
    assert proc.stdout == ""
    assert proc.stderr == ("" if quiet else f"wrote {tmp_path / 'r' / 'report.html'}\n")


@pytest.mark.parametrize(
    ("command", "shown"),
    [
        ("run", ["[default: (simulation.seed)]", "[default: (out/<scenario stem>)]"]),
        ("reproduce", ["[default: 1]", "[default: (out/<study>)]"]),
        ("report", ["[default: results.duckdb]", "[default: report]", "[default: (all)]"]),
    ],
)
def test_help_shows_every_default(command, shown):
    proc = atmsim_cli(command, "--help")
    assert proc.returncode == 0
    text = " ".join(proc.stdout.split())
    for default in shown:
        assert default in text
    # Every option taking a value shows its default. A row of the options list starts with
    # "  -" and may go on over more lines.
    from atmsim.cli import app

    rows = re.split(r"\n(?=  -)", proc.stdout.split("\nOptions:\n", 1)[1])
    params = app.commands[command].params
    valued = [p for p in params if p.param_type_name == "option" and not p.is_flag and not p.count]
    assert valued
    for param in valued:
        row = next(r for r in rows if param.opts[0] in re.findall(r"--?[\w-]+", r.strip().split("  ")[0]))
        assert "[default:" in row, row


# ----- tables printed to a pipe ----------------------------------------------------------------


def test_tables_to_a_pipe_keep_whole_names(tmp_path):
    long = "a_host_with_a_name_long_enough_to_overflow_eighty_columns"
    doc = GREEDY.read_text().replace('"a"', f'"{long}"').replace('name = "sw"', 'name = "sw1"').replace('"sw"', '"sw1"')
    path = tmp_path / "long.toml"
    path.write_text(doc)
    proc = subprocess.run(
        [sys.executable, "-m", "atmsim", "run", str(path), "--out", str(tmp_path / "out"), "--no-plot"],
        capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120,
        env={k: v for k, v in os.environ.items() if k != "COLUMNS"},
    )
    assert proc.returncode == 0, proc.stderr
    summary = atmsim.Results.load(tmp_path / "out").summary
    ports = [p["name"] for p in summary["ports"] if p["cells_in"]]  # idle ports are not listed
    assert f"{long}->sw1" in ports and "sw1->sink" in ports
    for name in ports + [s["name"] for s in summary["sources"]]:
        assert re.search(rf"│ {re.escape(name)} +│", proc.stdout), name
    assert "utilisation %" in proc.stdout  # header cells are not cut to "utilisat…" either
    assert "…" not in proc.stdout


def test_sources_table_shows_goodput_of_cell_sources(tmp_path):
    proc = atmsim_cli("run", str(GREEDY), "--out", str(tmp_path / "out"), "--no-plot")
    assert proc.returncode == 0, proc.stderr
    summary = atmsim.Results.load(tmp_path / "out").summary
    section = proc.stdout[proc.stdout.index("sources") :]
    for source in summary["sources"]:
        goodput = f"{source['goodput_bps'] / 1e6:.4g}"  # four significant figures, as every table
        assert re.search(rf"│ {source['name']} +│ greedy +│ .* +{re.escape(goodput)} │", section), source


def test_progress_label_is_shown_literally_and_short():
    """The bar's label is a file stem or scenario name: no rich markup, at most MAX_LABEL chars."""
    from rich.console import Console

    from atmsim._progress import MAX_LABEL, progress_bar

    for label, shown in [("x[bold]y", "x[bold]y"), ("n" * 1000, "n" * (MAX_LABEL - 1) + "…")]:
        console = Console(force_terminal=True, width=200, record=True, file=open(os.devnull, "w"))
        with progress_bar(label, console=console) as report:
            report(1.0)
        assert shown in console.export_text()


def test_reproduce_checks_out_before_running(tmp_path):
    (tmp_path / "file").write_text("")
    proc = atmsim_cli("reproduce", "magic95", "--out", str(tmp_path / "file" / "report"), timeout=60)
    assert_one_error_line(proc, f"error: {tmp_path / 'file'}: not a directory")
