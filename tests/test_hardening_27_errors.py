"""Errors about numbers name the field and say what was expected in words, never a Rust type."""

from __future__ import annotations

import re

import pytest

from atmsim import Scenario, ScenarioError

MINI = '[simulation]\nduration_s = 1.0\n[[host]]\nname = "a"\n[[host]]\nname = "b"\n'
RUST_TYPES = re.compile(r"\b(?:[ui](?:8|16|32|64|size)|f32|f64)\b|target type")


def refused(text: str, fmt: str = "toml") -> ScenarioError:
    with pytest.raises(ScenarioError) as e:
        Scenario.from_str(text, fmt, origin="x").validate()
    assert not RUST_TYPES.search(e.value.message), e.value.message
    return e.value


def test_a_toml_integer_beyond_64_bits_names_its_field_and_the_range() -> None:
    e = refused(MINI + "mtu_bytes = 99999999999999999999\n")
    assert e.field == "host[1].mtu_bytes"
    assert "expected an integer between -9223372036854775808 and 9223372036854775807" in e.message
    assert "(line 7, column 13)" in e.message


def test_a_top_level_and_an_inline_table_integer_beyond_64_bits_are_named() -> None:
    e = refused(MINI.replace("duration_s = 1.0", "duration_s = 1.0\nseed = 123456789012345678901234"))
    assert e.field == "simulation.seed"
    text = MINI + '[[switch]]\nname = "s"\n[[vc]]\nname = "v"\npath = ["a", "s", "b"]\n'
    text += "shape = { rate_bps = 1e6, buffer_cells = 99999999999999999999 }\n"
    e = refused(text)
    assert e.field == "vc[0].shape.buffer_cells"


@pytest.mark.parametrize(
    ("doc", "field", "words"),
    [
        ({"simulation": {"duration_s": "1"}}, "simulation.duration_s", "expected a number"),
        ({"simulation": {"duration_s": 1.0, "seed": 1.5}}, "simulation.seed", "expected an integer"),
        ({"simulation": {"duration_s": 1.0}, "host": [{"name": "a", "mtu_bytes": 2**63}]}, "host[0].mtu_bytes",
         "expected an integer between -9223372036854775808 and 9223372036854775807"),
        ({"simulation": {"duration_s": 1.0, "batching": 3}}, "simulation.batching", "expected a boolean"),
    ],
)
def test_a_wrong_number_from_python_names_the_field_and_the_expectation(doc: dict, field: str, words: str) -> None:
    with pytest.raises(ScenarioError) as e:
        Scenario.from_dict(doc).validate()
    assert e.value.field == field
    assert words in e.value.message
    assert not RUST_TYPES.search(e.value.message), e.value.message
