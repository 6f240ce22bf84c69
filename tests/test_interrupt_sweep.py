"""Ctrl-C during `atmsim sweep -j 2`: exit 130 at once with one line, the process pool shut
down cleanly (no leaked-semaphore warning, no `pymp-*` directory left in the temp dir), and
the same command resumes without losing a committed run."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

from conftest import default_sigint, interrupt
from test_sweep import _count_ok

REPO = Path(__file__).resolve().parent.parent
TINY = REPO / "tests" / "data" / "tiny.toml"


def _slow_scenario(directory: Path) -> Path:
    """tiny.toml with a transfer that lasts the whole run: ~1.5 s of wall time per run,
    one series sample a second (so each committed run has a series file)."""
    text = TINY.read_text()
    text = text.replace("duration_s = 0.2", "duration_s = 3000.0").replace("sample_interval_ms = 10", "sample_interval_ms = 1000")
    text = text.replace("write_bytes = 65536", "write_bytes = 1000000000000")
    path = directory / "slow.toml"
    path.write_text(text)
    return path


def test_ctrl_c_sweep_exits_130_cleanly_and_resumes_without_loss(tmp_path):
    scenario = _slow_scenario(tmp_path)
    store = tmp_path / "results.duckdb"
    series = tmp_path / "results.series"
    temp = tmp_path / "tmp"
    temp.mkdir()
    args = [
        "sweep", str(scenario), "-g", "tcp[0].window_bytes=4096,8192,16384,32768", "--seeds", "1-3",
        "-j", "2", "--store", str(store), "--commit-every", "0", "--quiet",
    ]
    env = dict(os.environ, TMPDIR=str(temp))
    proc = subprocess.Popen(
        [sys.executable, "-m", "atmsim", *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, env=env, text=True,
        preexec_fn=default_sigint,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if series.is_dir() and len(list(series.glob("*.parquet"))) >= 2:
            break  # two runs committed, two more in progress
        time.sleep(0.05)
    time.sleep(0.3)
    stderr, stopped_after = interrupt(proc, timeout=60)
    assert proc.returncode == 130, stderr
    assert stopped_after < 5.0, stopped_after
    assert "leaked" not in stderr and "Traceback" not in stderr and "resource_tracker" not in stderr, stderr
    lines = stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: interrupted; finished runs are in "), stderr
    time.sleep(0.5)  # the forkserver and resource tracker see the parent gone
    assert list(temp.iterdir()) == []  # no pymp-* directory, no temporary series file

    committed = _count_ok(store)
    assert 2 <= committed < 12
    done = subprocess.run(
        [sys.executable, "-m", "atmsim", *args],
        capture_output=True, text=True, stdin=subprocess.DEVNULL, env=env, timeout=300,
    )
    assert done.returncode == 0, done.stderr
    m = re.search(r"12 runs: (\d+) run now, (\d+) already stored", done.stderr)
    assert m, done.stderr
    assert (int(m.group(1)), int(m.group(2))) == (12 - committed, committed)
    assert _count_ok(store) == 12
    assert len(list(series.glob("*.parquet"))) == 12 and not list(series.glob(".*.tmp"))
    assert list(temp.iterdir()) == []
