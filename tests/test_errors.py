"""Exception hierarchy and formatting (mirrors python/atmsim/errors.py)."""

from __future__ import annotations

import pickle

import pytest

import atmsim
from atmsim import AtmsimError, ScenarioError, SimulationError


@pytest.mark.parametrize(
    ("cls", "bases", "code"),
    [
        (ScenarioError, (AtmsimError, ValueError), "invalid"),
        (SimulationError, (AtmsimError, RuntimeError), "internal"),
    ],
)
def test_hierarchy_and_default_code(cls, bases, code):
    exc = cls("boom")
    for base in bases:
        assert isinstance(exc, base)
    assert exc.code == code


@pytest.mark.parametrize(
    ("file", "field", "text"),
    [
        ("s.toml", "link[2].rate_bps", "s.toml: link[2].rate_bps: expected a positive rate"),
        ("s.toml", "", "s.toml: expected a positive rate"),
        ("", "link[2].rate_bps", "link[2].rate_bps: expected a positive rate"),
        ("", "", "expected a positive rate"),
    ],
)
def test_str_matches_core_display(file, field, text):
    exc = ScenarioError("expected a positive rate", file=file, field=field, code="invalid")
    assert str(exc) == text
    assert (exc.file, exc.field, exc.message) == (file, field, "expected a positive rate")


def test_pickle_keeps_attributes():
    exc = ScenarioError("bad", file="f.toml", field="a.b", code="parse")
    back = pickle.loads(pickle.dumps(exc))
    assert type(back) is ScenarioError
    assert (back.file, back.field, back.message, back.code) == ("f.toml", "a.b", "bad", "parse")


def test_package_exports():
    for name in ["Scenario", "run", "Results", "load_scenario", "AtmsimError", "ScenarioError", "SimulationError"]:
        assert hasattr(atmsim, name)
    assert atmsim.__version__ == atmsim._core.__version__


def test_core_rejects_unknown_format():
    with pytest.raises(ValueError, match="unknown scenario format"):
        atmsim._core.validate("", "yaml")
