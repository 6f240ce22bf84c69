"""`atmsim reproduce STUDY` on a terminal: every study runs to its end under the live
progress bar (rich draws it only on a terminal, so the runs are under a pseudo-terminal), and
run again into the same results store it simulates nothing and gives the same verdicts.

How each study is run, and made smaller where needed: ``tests/study_on_terminal.py``. The first
run is shared with ``tests/test_reproduce.py``, which checks magic95's report from it.
"""

from __future__ import annotations

import pytest

from atmsim._store import Store
from atmsim.reproduce import STUDIES
from atmsim.study import read_verdicts
from atmsim.study.verdict_store import read_store_verdicts
from study_on_terminal import first_run, reproduce_on_terminal


@pytest.mark.parametrize("study", sorted(STUDIES))
def test_every_study_runs_to_its_end_under_the_progress_bar(study, tmp_path, shared):
    first = first_run(shared, study)
    out, store, rc, text = first.out, first.store, first.rc, first.text
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
    rc, text = reproduce_on_terminal(study, again, store)
    assert rc == 0, text[-3000:]
    assert _runs_in(store) == ran
    assert read_verdicts(again) == read_verdicts(out)


def _runs_in(store) -> tuple:
    """How many runs the store holds and when the last of them started."""
    with Store(store).reader() as con:
        return con.execute("SELECT count(*), max(started_at) FROM runs").fetchone()
