"""docs/tutorial.md as a user would follow it: every TOML step, added to the same file,
validates; the errors it shows are the ones atmsim prints; the numbers it quotes are those
of the run; its sweep and Python snippet run."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

import atmsim

REPO = Path(__file__).resolve().parent.parent
TUTORIAL = (REPO / "docs" / "tutorial.md").read_text()
STEPS = re.findall(r"```toml\n(.*?)```", TUTORIAL, re.S)
ERRORS = re.findall(r"```text\n(.*?)\n```", TUTORIAL, re.S)
SHELL = re.findall(r"```sh\n(.*?)\n```", TUTORIAL, re.S)
PYTHON = re.findall(r"```python\n(.*?)```", TUTORIAL, re.S)


def atmsim_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "atmsim", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=300, stdin=subprocess.DEVNULL)


def first_toml(steps: int) -> str:
    return "".join(STEPS[:steps])


def test_the_tutorial_has_its_steps():
    assert len(STEPS) == 4 and len(ERRORS) == 2 and len(PYTHON) == 1


@pytest.mark.parametrize("steps", range(1, 5))
def test_each_step_validates(steps, tmp_path):
    (tmp_path / "first.toml").write_text(first_toml(steps))
    proc = atmsim_cli("check", "first.toml", cwd=tmp_path)
    assert (proc.returncode, proc.stdout.strip()) == (0, "ok: first.toml"), proc.stderr


def test_the_empty_file_gives_the_error_shown(tmp_path):
    assert SHELL[0] == "touch first.toml\natmsim check first.toml"
    (tmp_path / "first.toml").write_text("")
    proc = atmsim_cli("check", "first.toml", cwd=tmp_path)
    assert proc.returncode == 2 and proc.stderr.strip() == ERRORS[0]


def test_the_deliberate_mistake_gives_the_error_shown(tmp_path):
    text = first_toml(4)
    assert text.count("delay_ms = 10.0") == 1
    (tmp_path / "first.toml").write_text(text.replace("delay_ms = 10.0", "delay_ms = -10.0"))
    proc = atmsim_cli("check", "first.toml", cwd=tmp_path)
    assert proc.returncode == 2 and proc.stderr.strip() == ERRORS[1]


def mbps(bps: float) -> str:
    return f"{bps / 1e6:.4g} Mb/s"


def test_the_run_gives_the_numbers_quoted(tmp_path):
    (tmp_path / "first.toml").write_text(first_toml(4))
    assert SHELL[1] == "atmsim run first.toml --out out/first"
    proc = atmsim_cli(*SHELL[1].split()[1:], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = tmp_path / "out" / "first"
    assert {"summary.json", "series.parquet", "report.html"} <= {p.name for p in out.iterdir()}
    s = json.loads((out / "summary.json").read_text())
    conn = s["connections"][0]
    port = next(p for p in s["ports"] if p["name"] == "sw->bob")
    quoted = (f"goodput of {mbps(conn['goodput_bps'])}, with {conn['rexmt_segs']} segments\nretransmitted and "
              f"{conn['timeouts']} timeout, and the port `sw->bob` dropping {port['drops']} cells (a loss of "
              f"{100 * port['drops'] / port['cells_in']:.4g} %\nof the cells that reached it), with its queue at the "
              f"full {port['max_queue_cells']} cells")
    assert quoted in TUTORIAL
    assert port["max_queue_cells"] == 256 and conn["mss_bytes"] == 9140


def test_a_larger_buffer_removes_the_loss_as_quoted():
    s = atmsim.Scenario.from_str(first_toml(4).replace("buffer_cells = 256", "buffer_cells = 1024"))
    summary = s.run().summary
    assert sum(p["drops"] for p in summary["ports"]) == 0
    assert f"the goodput is {mbps(summary['connections'][0]['goodput_bps'])}" in TUTORIAL
    s.set("simulation.duration_s", 20.0)
    long_run = s.run().summary["connections"][0]["goodput_bps"]
    assert f"measured over 20 s the goodput is {long_run / 1e6:.3f} Mb/s" in TUTORIAL
    assert long_run <= 1.536e6 * 9140 / (192 * 53)


def test_the_sweep_and_the_python_snippet_run(tmp_path, monkeypatch, capsys):
    (tmp_path / "first.toml").write_text(first_toml(4))
    sweep = shlex.split(SHELL[2])
    assert sweep[:2] == ["atmsim", "sweep"]
    proc = atmsim_cli(*sweep[1:], "--jobs", "1", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.startswith("12 runs: 12 run now")
    monkeypatch.chdir(tmp_path)
    exec(compile(PYTHON[0], "docs/tutorial.md", "exec"), {"__name__": "__main__"})
    printed = capsys.readouterr().out
    assert "256" in printed and "1024" in printed and "16384" in printed
