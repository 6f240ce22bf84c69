"""`atmsim reproduce STUDY` on a pseudo-terminal, run once per pytest run.

Each study runs its quick mode through the CLI, under the live progress bar (rich draws it
only on a terminal), into a results store. Four are made smaller so that the tests stay short:
mah96 by its own options (one configuration, two seeds); kocyigit and caceres93 (two seeds, a
fifth of the run length) and mah96-calibration (two buffers, one socket buffer, one candidate
scale, 6 workstations × 60 s) by shrinking their quick sizes in the child process before the CLI
starts (the shapes of their progress calls do not depend on them).

:func:`first_run` is that run, made once however many tests read it (the ``shared`` fixture of
``conftest.py``, shared by pytest-xdist's workers): ``tests/test_reproduce_terminal.py`` checks
the terminal, the store and a second run into it; ``tests/test_reproduce.py`` checks magic95's
report from the same run instead of simulating the study a second time.
"""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

SMALLER = {
    "kocyigit": "import atmsim.reproduce.kocyigit as k; "
                "k.QUICK = k.QUICK_EXTRA = k.QUICK_MECH = k.Size(2, 2.0, 0.5); ",
    "caceres93": "import atmsim.reproduce.caceres93 as c; i = c.Study.__init__; "
                 "c.Study.__init__ = lambda self, *a, **kw: (i(self, *a, **kw), "
                 "setattr(self, 'seeds', self.seeds[:2]), setattr(self, 'duration_s', self.duration_s / 5), "
                 "setattr(self, 'warmup_s', self.warmup_s / 5))[0]; ",
}
SMALLER["mah96-calibration"] = ("import atmsim.reproduce.mah96 as m, atmsim.reproduce.mah96.calibrate as c, "
                                 "atmsim.reproduce.mah96.calibration as cal; c.QUICK = m.Mode(6, 60.0, 2); "
                                 "cal.BUFFERS = (256, 1024); cal.WINDOWS = (8192,); c.SCALES = ((4, 60.0),); ")
OPTIONS = {"mah96": ["--configs", "noqos-conv-svc", "--seeds", "1-2", "--jobs", "1"]}


def run_on_terminal(args: list[str], prelude: str = "", timeout: float = 300.0) -> tuple[int, str]:
    """Run ``atmsim ARGS`` with stdout and stderr on a pseudo-terminal; (exit code, output)."""
    code = prelude + "import sys; from atmsim.cli import main; sys.argv = ['atmsim', *sys.argv[1:]]; main()"
    primary, secondary = pty.openpty()
    env = {**os.environ, "COLUMNS": "120", "LINES": "40", "TERM": "xterm"}
    env.pop("NO_COLOR", None)
    proc = subprocess.Popen([sys.executable, "-c", code, *args], stdin=subprocess.DEVNULL, stdout=secondary,
                            stderr=secondary, env=env, close_fds=True)
    os.close(secondary)
    chunks: list[bytes] = []
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([primary], [], [], 0.5)
            if ready:
                try:
                    data = os.read(primary, 65536)
                except OSError:  # EIO: the child closed the terminal
                    break
                if not data:
                    break
                chunks.append(data)
            elif proc.poll() is not None:
                break
        else:
            proc.kill()
            pytest.fail(f"atmsim {' '.join(args)} did not finish in {timeout:g} s")
        rc = proc.wait(timeout=30)
    finally:
        os.close(primary)
    return rc, b"".join(chunks).decode("utf-8", "replace")


def reproduce_on_terminal(study: str, out: Path, store: Path, timeout: float = 300.0) -> tuple[int, str]:
    """``atmsim reproduce STUDY --out OUT --store STORE`` (made smaller as above) on a terminal."""
    return run_on_terminal(["reproduce", study, "--out", str(out), "--store", str(store), *OPTIONS.get(study, [])],
                           SMALLER.get(study, ""), timeout)


@dataclass(frozen=True)
class FirstRun:
    """The first run of a study into a new store: its report directory, store, exit code and
    terminal output."""

    out: Path
    store: Path
    rc: int
    text: str


def first_run(shared, study: str) -> FirstRun:
    """:func:`reproduce_on_terminal` into a new store, made once per pytest run (``shared``: the
    fixture of ``conftest.py``)."""

    def make(d: Path) -> None:
        # The longer limit of the tests that read it (tests/test_reproduce.py's CLI runs: 600 s).
        rc, text = reproduce_on_terminal(study, d / study, d / "store.duckdb", timeout=600.0)
        (d / "terminal.txt").write_text(text, encoding="utf-8")
        (d / "rc").write_text(str(rc))

    d = shared.once(f"reproduce-{study}-on-terminal", make)
    return FirstRun(d / study, d / "store.duckdb", int((d / "rc").read_text()),
                    (d / "terminal.txt").read_text(encoding="utf-8"))
