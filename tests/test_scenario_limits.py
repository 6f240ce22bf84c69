"""Scenario input the Python API refuses with a ScenarioError naming the file and field, never
UnicodeDecodeError, RecursionError, OverflowError, TypeError or ValueError from below:
non-UTF-8 or oversized files, nesting deeper than MAX_DEPTH, lone surrogates, values JSON
cannot carry, seeds outside u64."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from atmsim import Scenario, ScenarioError
from atmsim._scenario import MAX_DEPTH, SEED_MAX

REPO = Path(__file__).resolve().parent.parent
GREEDY = REPO / "scenarios" / "examples" / "greedy_rr.toml"


@pytest.fixture
def greedy() -> Scenario:
    return Scenario.from_toml(GREEDY)


def nested_list(depth: int) -> list:
    root: list = []
    node = root
    for _ in range(depth - 1):
        node.append([])
        node = node[0]
    return root


# ----- files --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"\xff\xfe\x00\x00", "not UTF-8 text: invalid byte 0xff at offset 0"),
        (b'name = "\xc3"', "not UTF-8 text: invalid byte 0xc3 at offset 8"),
        (b"name = 'x'\n\x00", "not UTF-8 text: a NUL byte at offset 11 (a binary file?)"),
    ],
)
def test_from_toml_refuses_non_utf8(tmp_path, content, message):
    path = tmp_path / "bin.toml"
    path.write_bytes(content)
    with pytest.raises(ScenarioError) as info:
        Scenario.from_toml(path)
    assert (info.value.file, info.value.message, info.value.code) == (str(path), message, "parse")


def test_from_str_takes_utf8_bytes_and_refuses_others():
    assert Scenario.from_str("name = 'café'".encode()).get("name") == "café"
    with pytest.raises(ScenarioError, match="invalid byte 0xe9 at offset 11"):
        Scenario.from_str(b"name = 'caf\xe9'")


def test_from_toml_refuses_dev_zero():
    with pytest.raises(ScenarioError, match="larger than 64 MiB"):
        Scenario.from_toml("/dev/zero")


def test_from_toml_refuses_a_named_pipe_at_once(tmp_path):
    fifo = tmp_path / "s.toml"
    os.mkfifo(fifo)
    with pytest.raises(ScenarioError, match="is a named pipe"):
        Scenario.from_toml(fifo)


def test_from_toml_directory_is_an_os_error(tmp_path):
    with pytest.raises(IsADirectoryError) as info:
        Scenario.from_toml(tmp_path)
    assert info.value.filename == str(tmp_path)


# ----- nesting ------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["toml", "json"])
@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 1000, 100_000])
def test_deep_text_is_refused(fmt, depth):
    text = ("a = " if fmt == "toml" else '{"a": ') + "[" * depth + "]" * depth + ("" if fmt == "toml" else "}")
    with pytest.raises(ScenarioError, match=f"nested deeper than {MAX_DEPTH} levels") as info:
        Scenario.from_str(text, fmt=fmt)
    assert info.value.code == "parse"


def test_nesting_up_to_the_limit_is_left_to_the_core():
    # The top-level table is level 1: MAX_DEPTH - 1 lists fit under it.
    doc = Scenario.from_str("a = " + "[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1))
    with pytest.raises(ScenarioError, match="unknown field"):
        doc.validate()


def test_deep_inline_tables_are_refused():
    text = "a = " + "{ b = " * 1000 + "1" + " }" * 1000
    with pytest.raises(ScenarioError, match="nested deeper than"):
        Scenario.from_str(text)


def test_from_dict_refuses_deep_and_cyclic_documents():
    with pytest.raises(ScenarioError, match="nested deeper than") as info:
        Scenario.from_dict({"name": "x", "deep": nested_list(5000)})
    assert info.value.field == "deep"
    cycle: dict = {}
    cycle["self"] = cycle
    with pytest.raises(ScenarioError, match="nested deeper than"):
        Scenario.from_dict(cycle)


def test_set_refuses_a_deep_value_and_keeps_the_document(greedy):
    before = greedy.doc
    with pytest.raises(ScenarioError, match="nested deeper than"):
        greedy.set("host[0].name", nested_list(MAX_DEPTH))
    assert greedy.doc == before


# ----- strings ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "value"),
    [("name", "a\ud800"), ("host[1].name", "b\udc80"), ("vc[0].path", ["a", "\udfff", "sink"])],
)
def test_lone_surrogate_names_the_field(greedy, path, value):
    with pytest.raises(ScenarioError, match="lone surrogate") as info:
        greedy.set(path, value)
    assert info.value.field.startswith(path)
    with pytest.raises(ScenarioError, match="lone surrogate") as info:
        doc = greedy.doc
        doc["name"] = "a\ud800"
        Scenario.from_dict(doc).validate()
    assert info.value.field == "name"


def test_lone_surrogate_in_text_names_the_field():
    with pytest.raises(ScenarioError, match="lone surrogate U\\+D800 at character 1") as info:
        Scenario.from_str('name = "x\ud800"', origin="s.toml")
    assert (info.value.file, info.value.field) == ("s.toml", "name")


# ----- values JSON cannot carry ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (float("nan"), "expected a finite number"),
        (float("inf"), "expected a finite number"),
        ({1, 2}, "a value of type set cannot be sent"),
        (b"bytes", "a value of type bytes cannot be sent"),
        (10**5000, "out of range"),
    ],
    ids=["nan", "inf", "set", "bytes", "huge-int"],
)
def test_values_json_cannot_carry_are_refused_by_set(greedy, value, message):
    with pytest.raises(ScenarioError, match=message) as info:
        greedy.set("simulation.duration_s", value)
    assert info.value.field == "simulation.duration_s"


def test_numpy_numbers_are_sent_as_plain_numbers(greedy):
    greedy.set("simulation.duration_s", np.float64(0.2)).set("switch[0].buffer_cells", np.int64(1000))
    summary = greedy.run(seed=1).summary
    assert summary["duration_s"] == 0.2


# ----- seeds --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "seed", [SEED_MAX + 1, -1, 10**5000, "1", 1.0, True], ids=["2**64", "-1", "huge", "str", "float", "bool"]
)
def test_seed_outside_u64_is_a_scenario_error(greedy, seed):
    with pytest.raises(ScenarioError, match=f"expected a seed between 0 and {SEED_MAX}") as info:
        greedy.run(seed=seed)
    assert info.value.field == "seed"


def test_seed_u64_max_runs(greedy):
    assert greedy.run(seed=SEED_MAX).summary["seed"] == SEED_MAX
    assert greedy.run(seed=np.uint64(SEED_MAX)).summary["seed"] == SEED_MAX


def test_batching_must_be_a_bool(greedy):
    with pytest.raises(ScenarioError, match="expected True, False or None"):
        greedy.run(batching="no")
