"""The studies' one executor (:mod:`atmsim.study.executor`): without a store, threads in this
process; with one, a sweep of the store that reads back what is stored — a run listed again,
or a study run again after Ctrl-C, is not simulated twice and gives the same results. A
version-1 store (no ``runs.summary``) is read as it is and upgraded when written to."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

import atmsim
from atmsim import Scenario
from atmsim._store import SCHEMA_VERSION, Store
from atmsim.reproduce.runner import run_many
from atmsim.study.executor import Executor, using

TINY = Path(__file__).resolve().parent / "data" / "tiny.toml"


def _tiny(window: int = 8192) -> Scenario:
    return Scenario.from_toml(TINY).set("tcp[0].window_bytes", window)


def _keep(r) -> tuple:
    """What a study reads back from a run: strings and list order of the summary, and the series."""
    s = r.summary
    per_entity = r.series.groupby("entity", observed=True)["value"].sum().round(12).to_dict()
    return ([c["name"] for c in s["connections"]], [p["name"] for p in s["ports"]], s["connections"][0]["goodput_bps"],
            len(r.series), per_entity)


def _runs() -> list[tuple[Scenario, int]]:
    return [(_tiny(), 1), (_tiny(4096), 1), (_tiny(), 2), (_tiny(), 1)]  # the last is the first again


def test_stored_runs_read_back_equal_the_runs_in_memory(tmp_path):
    in_memory = Executor(jobs=1)
    with using(in_memory):
        expected = run_many(_runs(), keep=_keep)
    first = Executor(tmp_path / "s.duckdb", jobs=0)
    with using(first):
        got = run_many(_runs(), keep=_keep)
    assert got == expected and (first.executed, first.reused) == (3, 0)
    again = Executor(tmp_path / "s.duckdb", jobs=0)
    with using(again):
        assert run_many(_runs(), keep=_keep) == expected
        assert run_many(_runs()) == run_many(_runs(), keep=lambda r: r.summary)
    assert again.executed == 0 and again.reused == 9


def test_an_interrupted_list_of_runs_resumes_with_only_the_missing_runs(tmp_path):
    store = tmp_path / "s.duckdb"
    told: list[int] = []

    def progress(done: int, _total: int) -> None:
        told.append(done)
        if done == 2:
            raise KeyboardInterrupt  # as Ctrl-C would, after the second run

    runs = [(_tiny(w), s) for w in (4096, 8192) for s in (1, 2)]
    with pytest.raises(KeyboardInterrupt), using(Executor(store, jobs=0)):
        run_many(runs, progress=progress)
    kept = len(atmsim.results(store=store, wide=True))
    assert kept == 2
    resumed = Executor(store, jobs=0)
    told.clear()
    with using(resumed):
        got = run_many(runs, progress=lambda d, t: told.append(d), keep=_keep)
    assert (resumed.executed, resumed.reused) == (len(runs) - kept, kept)
    assert told == [1, 2, 3, 4]
    with using(Executor(jobs=1)):
        assert got == run_many(runs, keep=_keep)  # (wall times aside, which no two runs share)


def test_a_version_1_store_is_read_and_then_upgraded_with_its_runs_run_again_for_their_summaries(tmp_path):
    store = tmp_path / "old.duckdb"
    atmsim.sweep(TINY, seeds=[1], store=store, jobs=0)  # the run the executor asks for below
    con = duckdb.connect(str(store))
    con.execute("ALTER TABLE runs DROP COLUMN summary")
    con.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")
    con.close()
    assert len(atmsim.results(store=store, wide=True)) == 1  # read as it is
    ex = Executor(store, jobs=0)
    with using(ex):
        (summary,) = run_many([(Scenario.from_toml(TINY), 1)])
    assert ex.executed == 1 and summary["connections"][0]["name"]
    with Store(store).reader() as con:
        assert con.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0] == SCHEMA_VERSION
        assert con.execute("SELECT count(*) FROM runs WHERE summary IS NULL").fetchone()[0] == 0


def test_a_scheduler_needs_a_store():
    with pytest.raises(ValueError, match="store"):
        Executor(scheduler="tcp://127.0.0.1:8786")
