"""`--seeds` of `atmsim reproduce` (and `seeds=` of a study's run) takes the seeds themselves,
in the grammar of `atmsim sweep --seeds`; a bare number, once a count, is refused."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from atmsim import ScenarioError
from atmsim.cli import app
from atmsim.reproduce import mah96
from atmsim.reproduce.mah96 import calibrate
from atmsim.study.seeds import MAX_SEEDS, MIN_SEEDS, study_seeds


@pytest.mark.parametrize(
    ("given", "seeds"),
    [("1-3", [1, 2, 3]), ("1,3,5", [1, 3, 5]), ("5,1-2", [1, 2, 5]), (" 7 - 9 ", [7, 8, 9]), ([3, 2], [2, 3]),
     (range(10, 12), [10, 11]), ("1-3,2-4", [1, 2, 3, 4])],
)
def test_study_seeds_take_the_sweep_grammar_sorted(given, seeds):
    assert study_seeds(given) == seeds


@pytest.mark.parametrize("given", ["3", " 3 ", 3, "1", "0"])
def test_a_bare_number_is_refused_naming_the_old_meaning_and_the_new_form(given):
    with pytest.raises(ScenarioError) as info:
        study_seeds(given, 5, option="--seeds")
    n = int(str(given))
    last = 5 + max(n, MIN_SEEDS) - 1
    assert info.value.field == "--seeds"
    assert f"a bare number ({n}) is ambiguous" in info.value.message
    assert "no longer how many" in info.value.message
    assert f"write --seeds 5-{last} for the runs at seeds 5 to {last}" in info.value.message


def test_python_spelling_of_the_new_form():
    with pytest.raises(ScenarioError, match='write seeds="1-3"') as info:
        study_seeds(3)
    assert info.value.field == "seeds"


@pytest.mark.parametrize(
    ("given", "fragment"),
    [("4-4", "1 seed given"), (f"1-{MAX_SEEDS + 1}", f"{MAX_SEEDS + 1} seeds given"), ("x", "cannot parse seeds"),
     ("3-1", "is empty"), (True, "invalid seeds"), ("-1", "cannot parse seeds '-1': expected e.g. '1-3', '1,3,5' or '1-5,9'")],
)
def test_bad_study_seeds_are_scenario_errors_naming_the_option(given, fragment):
    with pytest.raises(ScenarioError, match=fragment) as info:
        study_seeds(given, option="--seeds")
    assert info.value.field == "--seeds"


def _invoke(*args: str):
    return CliRunner().invoke(app, ["reproduce", *args])


@pytest.fixture
def seen(monkeypatch, tmp_path):
    """The mode and seeds mah96.run hands to collect (which then stops the study)."""
    got: dict = {}

    def collect(mode, seeds, progress=None, *, store, jobs=None, scheduler=None):
        got.update(mode=mode, seeds=list(seeds))
        raise ScenarioError("stopped by the test")

    monkeypatch.setattr(mah96, "collect", collect)
    monkeypatch.chdir(tmp_path)
    return got


def test_cli_seeds_range_runs_the_seeds_the_old_count_ran(seen):
    r = _invoke("mah96", "--seeds", "1-3", "-q", "--out", "o")
    assert r.exit_code == 2 and "stopped by the test" in r.output
    # The old `--seeds 3` ran seeds --seed .. --seed + 2 = 1, 2, 3: the same runs.
    assert seen["seeds"] == [1, 2, 3] == mah96.default_seeds(mah96.QUICK, 1)
    assert seen["mode"].seeds == 3
    assert mah96.plan(mah96.Mode(8, 60.0, 3, ("noqos-conv-svc",)), seen["seeds"]).runs == \
        mah96.plan(mah96.Mode(8, 60.0, 3, ("noqos-conv-svc",)), mah96.default_seeds(mah96.QUICK, 1)).runs


def test_cli_default_seeds_start_at_seed(seen):
    _invoke("mah96", "--seed", "7", "-q", "--out", "o")
    assert seen["seeds"] == [7, 8, 9]
    _invoke("mah96", "--seeds", "2,4,9", "-q", "--out", "o")
    assert seen["seeds"] == [2, 4, 9]


def test_cli_bare_number_is_one_line_error_naming_seeds(seen):
    r = _invoke("mah96", "--seed", "4", "--seeds", "3", "--out", "o")
    assert r.exit_code == 2 and not seen
    assert r.output.strip().splitlines() == [r.output.strip()]  # one line
    assert r.output.startswith("error: ")
    # --seed and --seeds together: the seeds are given in --seeds alone.
    assert "--seed and --seeds" in r.output
    r = _invoke("mah96", "--seeds", "3", "--out", "o")
    assert r.exit_code == 2 and not seen
    line = r.output.strip()
    assert line == ("error: --seeds: a bare number (3) is ambiguous: --seeds takes the seeds themselves, no longer "
                    "how many; write --seeds 1-3 for the runs at seeds 1 to 3 (a range A-B, or a list such as 1,3,5)")


def test_python_run_refuses_a_count_too(tmp_path):
    with pytest.raises(ScenarioError, match="a bare number"):
        mah96.run(tmp_path / "o", seeds=3)
    with pytest.raises(ScenarioError, match="a bare number"):
        calibrate.run(tmp_path / "c", seeds="2")
    assert not (tmp_path / "o").exists() and not (tmp_path / "c").exists()
