"""atmsim.study.Progress: the one progress type studies report through."""

from __future__ import annotations

import pytest

from atmsim.study import Progress


def test_progress_tells_done_total_and_what_for_steps_runs_and_absolute_counts():
    seen = []
    p = Progress(lambda *a: seen.append(a))
    p.plan(3)
    p.step("a")
    on_run = p.runs(lambda d: f"run {d}")
    on_run(1, 2)  # run_many's (done, total): one more step each
    on_run(2, 2)
    assert seen == [(0, 3, ""), (1, 3, "a"), (2, 3, "run 1"), (3, 3, "run 2")]
    p.at(10, 20, "sweep")
    assert seen[-1] == (10, 20, "sweep") and (p.done, p.total) == (10, 20)


def test_a_step_beyond_the_plan_raises_the_total_with_it():
    seen = []
    p = Progress(lambda *a: seen.append(a))
    p.plan(1)
    p.step("x", runs=2)
    assert seen[-1] == (2, 2, "x")
    with pytest.raises(ValueError):
        p.plan(-1)


def test_a_silent_progress_counts_and_tells_no_one():
    p = Progress.of(None)
    p.plan(2)
    p.step("x")
    assert (p.done, p.total) == (1, 2)
    q = Progress.silent()
    assert Progress.of(q) is q
