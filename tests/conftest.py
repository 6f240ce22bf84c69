"""Shared fixtures: paths and a small hand-made Results that needs no simulator."""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import signal
import subprocess
import time
from array import array
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from atmsim import Results

REPO = Path(__file__).resolve().parent.parent


# The tests send SIGINT to this process and to children. A runner started as a shell's
# background job inherits SIGINT ignored, and Python then installs no KeyboardInterrupt
# handler: give this process the handler a terminal would (children get `default_sigint`).
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


def default_sigint() -> None:
    """``preexec_fn`` for a child that is sent SIGINT: a shell's background job ignores SIGINT
    and its children inherit that; restore the default so that Python installs its
    KeyboardInterrupt handler, as it does in a terminal."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def wait_cpu_seconds(pid: int, seconds: float, limit_s: float = 60.0) -> None:
    """Wait until process ``pid`` has used ``seconds`` of CPU time (so that it is past its
    start-up and working, however loaded the machine), at most ``limit_s`` of wall time."""
    tick = os.sysconf("SC_CLK_TCK")
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except FileNotFoundError:
            return
        if (int(fields[11]) + int(fields[12])) / tick >= seconds:  # utime + stime
            return
        time.sleep(0.05)


def interrupt(proc: subprocess.Popen, timeout: float = 30.0) -> tuple[str, float]:
    """Send SIGINT to a running ``proc`` (started with ``default_sigint``, pipes in text mode);
    return its stderr and the seconds it took to exit. A process still running after
    ``timeout`` is killed and the test fails."""
    assert proc.poll() is None, "finished before it could be interrupted: " + proc.stderr.read()
    proc.send_signal(signal.SIGINT)
    sent = time.monotonic()
    try:
        _, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        pytest.fail(f"did not stop within {timeout} s of SIGINT")
    return stderr, time.monotonic() - sent
def in_own_mount_namespace(
    tmp_path: Path, mount_options: str, *command: str, prepare: str = "", then: str = ""
) -> subprocess.CompletedProcess:
    """Run ``command`` with a fresh tmpfs mounted on ``tmp_path/mnt`` (skip where one cannot
    mount). ``prepare``: a shell command run first in the mount, mounted read-write; then the
    mount is remounted with ``then`` (e.g. ``"ro"``) if given. Used for what root cannot be
    denied otherwise: a read-only file system, a full disk."""
    if shutil.which("unshare") is None:
        pytest.skip("no unshare(1)")
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    probe = subprocess.run(["unshare", "-m", "sh", "-c", f"mount -t tmpfs -o {mount_options} none '{mnt}'"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip("cannot mount a tmpfs here (needs root or user namespaces)")
    script = f"mount -t tmpfs -o {mount_options} none '{mnt}'"
    if prepare:
        script += f" && ({prepare})"
    if then:
        script += f" && mount -o remount,{then} '{mnt}'"
    script += ' && exec "$@"'
    return subprocess.run(
        ["unshare", "-m", "sh", "-c", script, "sh", *command],
        capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=300, cwd=tmp_path,
    )


SCENARIOS = REPO / "scenarios"


class Shared:
    """Directories shared by the tests of one pytest run, even when pytest-xdist spreads those
    tests over worker processes, for work several tests read: made once, not once per test or
    per worker. They are under the run's own base temporary directory (the one its workers
    share), never reused by another run."""

    def __init__(self, root: Path):
        self.root = root
        root.mkdir(exist_ok=True)

    @contextlib.contextmanager
    def lock(self, name: str) -> Iterator[Path]:
        """The directory ``name``, held by this process alone for the block (a lock file; the
        others wait). Not re-entrant."""
        d = self.root / name
        with open(self.root / f"{name}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            d.mkdir(exist_ok=True)
            yield d

    def once(self, name: str, make: Callable[[Path], None]) -> Path:
        """The directory ``name`` that ``make(directory)`` filled, calling ``make`` only for the
        first test that asks (one asking meanwhile waits until it is done). A ``make`` that
        raised fails every later test that asks, with its message, without trying again."""
        done, failed = self.root / f"{name}.done", self.root / f"{name}.failed"
        with self.lock(name) as d:
            if failed.exists():
                pytest.fail(f"shared {name} failed in another test: {failed.read_text()}")
            if not done.exists():
                try:
                    make(d)
                except BaseException as e:
                    failed.write_text(f"{type(e).__name__}: {e}"[-3000:])
                    raise
                done.touch()
        return d


@pytest.fixture(scope="session")
def shared(tmp_path_factory) -> Shared:
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # each worker's base directory is one of the run's
    return Shared(root / "shared")


@pytest.fixture
def sample_core_output() -> dict:
    """Shaped like the dict ``atmsim._core.run`` returns."""
    return {
        "summary": {
            "scenario": "sample",
            "seed": 7,
            "duration_s": 2.0,
            "warmup_s": 0.5,
            "connections": [
                {"name": "tcp0", "goodput_bps": 64.0e6, "retransmissions": 3, "timeouts": 0},
                {"name": "tcp1", "goodput_bps": 60.5e6, "retransmissions": 5, "timeouts": 1},
            ],
            "ports": [{"name": "sw0.p1", "dropped_cells": 120}, {"name": "sw0.p2", "dropped_cells": 0}],
            "conservation": {"cells_sent": 10, "cells_delivered": 9, "cells_dropped": 1, "cells_in_flight": 0},
            "run": {"events": 12345, "wall_s": 0.01},
        },
        "series": {
            "time_s": array("d", [0.0, 0.0, 1.0, 1.0, 2.0, 2.0, 1.0]),
            "entity": ["tcp0", "tcp1", "tcp0", "tcp1", "tcp0", "tcp1", "sw0.p1"],
            "metric": ["cwnd_bytes"] * 6 + ["queue_cells"],
            "value": array("d", [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 42.0]),
        },
    }


@pytest.fixture
def sample_results(sample_core_output) -> Results:
    return Results.from_core(sample_core_output)
