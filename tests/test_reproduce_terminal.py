"""`atmsim reproduce STUDY` on a terminal: every study runs to its end under the live
progress bar (rich draws it only on a terminal, so the runs are under a pseudo-terminal), and
run again into the same results store it simulates nothing and gives the same verdicts.

Each study runs its quick mode through the CLI. Two are made smaller so that the test stays
short: mah96 by its own options (one configuration, two seeds), kocyigit by shrinking its
quick sizes in the child process before the CLI starts (the shapes of its progress calls do
not depend on them).
"""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time

import pytest

from atmsim.reproduce import STUDIES
from atmsim.store import Store
from atmsim.study import read_verdicts
from atmsim.study.verdict_store import read_store_verdicts

SMALLER = {
    "kocyigit": "import atmsim.reproduce.kocyigit as k; "
                "k.QUICK = k.QUICK_EXTRA = k.QUICK_MECH = k.Size(2, 2.0, 0.5); ",
}
OPTIONS = {"mah96": ["--configs", "noqos-conv-svc", "--seeds", "2", "--jobs", "1"]}


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


@pytest.mark.parametrize("study", sorted(STUDIES))
def test_every_study_runs_to_its_end_under_the_progress_bar(study, tmp_path):
    out, store = tmp_path / study, tmp_path / "store.duckdb"
    rc, text = run_on_terminal(["reproduce", study, "--out", str(out), "--store", str(store), *OPTIONS.get(study, [])],
                               SMALLER.get(study, ""))
    assert "Traceback" not in text and "error:" not in text.lower(), text[-3000:]
    assert rc == 0, text[-3000:]
    # The bar was drawn (the terminal saw it) and the report written.
    assert " runs" in text, text[-3000:]
    assert (out / "report.html").is_file()
    assert f"— report: {out / 'report.html'}" in text, text[-3000:]  # the verdicts counted, then the report
    # The verdicts are also a table of the results store: the same rows as verdicts.json, in order.
    stored = read_store_verdicts(store, study)
    assert stored and stored == read_verdicts(out)
    assert read_store_verdicts(store, "no-such-study") == []
    # Every interval holds its value; Koçyiğit's efficiency interval stays in [0, 1] even at 2 seeds.
    for v in stored:
        if v.low is not None and v.high is not None and v.ours is not None:
            assert v.low <= v.ours <= v.high, v
    if study == "kocyigit":
        eff = [v for v in stored if "efficiency very poor" in v.row]
        assert eff and all(0 <= v.low <= v.high <= 1 for v in eff), eff
    # Run again into the same store: every run is read back, none simulated; the same verdicts.
    ran = _runs_in(store)
    again = tmp_path / "again"
    rc, text = run_on_terminal(["reproduce", study, "--out", str(again), "--store", str(store), *OPTIONS.get(study, [])],
                               SMALLER.get(study, ""))
    assert rc == 0, text[-3000:]
    assert _runs_in(store) == ran
    assert read_verdicts(again) == read_verdicts(out)


def _runs_in(store) -> tuple:
    """How many runs the store holds and when the last of them started."""
    with Store(store).reader() as con:
        return con.execute("SELECT count(*), max(started_at) FROM runs").fetchone()
