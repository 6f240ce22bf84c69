"""A thousand seeded malformed scenarios through ``from_dict``, ``from_str`` and ``from_toml``:
each validates or fails with a ScenarioError naming a field or a position
(``tools/fuzz_scenarios.py``; ``make fuzz`` runs a million)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

TOOL = Path(__file__).resolve().parent.parent / "tools" / "fuzz_scenarios.py"


def load_tool():
    spec = importlib.util.spec_from_file_location("fuzz_scenarios", TOOL)
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("fuzz_scenarios", module)
    spec.loader.exec_module(module)
    return module


def test_a_thousand_malformed_inputs_give_only_scenario_errors_with_a_field_or_a_position() -> None:
    fuzz = load_tool()
    tally, failures = fuzz.run_range(seed=1027, start=0, count=1000)
    assert failures == []
    assert sum(tally[k] for k in ("valid", "field", "position")) == 1000
    # The inputs reach every entry point and are mostly refused, both ways.
    for how in ("dict", "toml", "json", "file"):
        assert tally[f"via {how}"] > 50, tally
    assert tally["field"] > 300 and tally["position"] > 100, tally


def test_an_error_with_neither_field_nor_position_is_a_failure(tmp_path: Path) -> None:
    fuzz = load_tool()
    assert fuzz.outcome("json", "[1, 2]", tmp_path)[0] in ("position", "field")
    assert fuzz.outcome("dict", {"simulation": {"duration_s": "x"}}, tmp_path)[0] == "field"
    assert fuzz.outcome("toml", "[simulation\n", tmp_path)[0] == "position"
    assert fuzz.outcome("dict", object(), tmp_path)[0] == "failure"
