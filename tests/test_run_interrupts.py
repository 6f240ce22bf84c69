"""Ctrl-C stops a run within about a second of wall time, whatever simulated time does.

The core hands control back to Python at least every 100 ms of wall time and at least every
4096 inline steps (``Network::run``, ``Network::take_inline``); Python then sees the pending
SIGINT. These runs would take hours to finish on their own.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import default_sigint, interrupt, wait_cpu_seconds

ATMSIM = [sys.executable, "-m", "atmsim"]

# A Poisson source at the highest load it may offer (its link's rate) into an unlimited
# adapter buffer: the queue random-walks without bound, the run is livelock-prone.
POISSON_AT_LINK_RATE = """
[simulation]
duration_s = 1e6
[[host]]
name = "src"
[[host]]
name = "dst"
[[switch]]
name = "sw"
[[link]]
a = "src"
b = "sw"
preset = "oc3c"
delay_ms = 0
[[link]]
a = "sw"
b = "dst"
preset = "oc3c"
delay_ms = 0
[[vc]]
name = "v"
path = ["src", "sw", "dst"]
[[cell_source]]
name = "p"
vc = "v"
from = "src"
kind = "poisson"
load_bps = 149760000
"""

# One greedy source, no probes: nothing else is ever pending, so a port that batched
# without limit would serve the whole run inside one event.
GREEDY_ALONE = (
    POISSON_AT_LINK_RATE.replace('kind = "poisson"\nload_bps = 149760000', 'kind = "greedy"')
    .replace("duration_s = 1e6", "duration_s = 1e6\nsample_interval_ms = 0")
)


def _interrupt_after(args: list[str], cwd: Path, wait_s: float = 0.5) -> tuple[int, str, float]:
    proc = subprocess.Popen(
        ATMSIM + args,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "COLUMNS": "120"},
        preexec_fn=default_sigint,
    )
    wait_cpu_seconds(proc.pid, 2.0)  # start-up (imports, validation) takes 0.4-1.2 s of CPU
    time.sleep(wait_s)
    err, took = interrupt(proc, timeout=10)
    return proc.returncode, err, took


@pytest.mark.parametrize("text", [POISSON_AT_LINK_RATE, GREEDY_ALONE], ids=["poisson-at-link-rate", "greedy-alone"])
def test_sigint_stops_a_long_run_with_exit_130_within_3_s(tmp_path: Path, text: str) -> None:
    scenario = tmp_path / "long.toml"
    scenario.write_text(text)
    out = tmp_path / "out"
    code, err, took = _interrupt_after(["run", str(scenario), "--out", str(out), "-q"], tmp_path)
    assert code == 130, err
    assert took < 3.0, f"took {took:.2f} s to stop"
    assert "Traceback" not in err
    assert err.strip().splitlines()[-1].startswith("error: interrupted"), err
    assert not (out / "summary.json").exists()


def test_the_core_checks_for_interrupts_while_simulated_time_advances_slowly() -> None:
    """In-process: a progress callback that raises stops the run at its first report."""
    import atmsim

    calls = []

    def stop(fraction: float) -> None:
        calls.append(fraction)
        raise KeyboardInterrupt

    scen = atmsim.Scenario.from_str(GREEDY_ALONE, origin="greedy.toml")
    with pytest.raises(KeyboardInterrupt):
        scen.run(progress=stop)
    assert len(calls) == 1
    assert calls[0] < 1e-3  # stopped within the first thousandth of the run
