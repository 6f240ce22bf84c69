"""Errors that locate themselves: a lone surrogate in scenario text
outside a string (a comment, a key) is a ScenarioError naming its line and column (in a
string, its field: tests/test_scenario_limits.py); nesting too deep names its line; a bad key
in a Python document is named, escaped; errors in a document from Python name the field, not a
position in JSON the user never wrote, and say what was expected in words, not Rust types; a
TCP connection between two ATM-attached hosts with no VC and no [signalling] is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from atmsim import Scenario, ScenarioError

TINY = (Path(__file__).resolve().parent / "data" / "tiny.toml").read_text()


def _error(make) -> ScenarioError:
    with pytest.raises(ScenarioError) as info:
        make().validate()
    return info.value


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("# a comment \ud800\n" + TINY, "(line 1, column 13)"),
        (TINY + '\nbad\udfff = 1\n', f"(line {TINY.count(chr(10)) + 2}, column 4)"),
    ],
)
def test_a_lone_surrogate_outside_strings_names_its_line_and_column(text, where):
    e = _error(lambda: Scenario.from_str(text, origin="s.toml"))
    assert e.file == "s.toml" and e.code == "parse"
    assert e.message.startswith("not valid Unicode: a lone surrogate U+D") and e.message.endswith(where), e.message


def test_nesting_a_thousand_levels_deep_names_the_line():
    text = TINY + "\nx = " + "[" * 1000 + "]" * 1000 + "\n"
    e = _error(lambda: Scenario.from_str(text))
    assert e.message == f"nested deeper than 32 levels (line {TINY.count(chr(10)) + 2}, column 85)", e.message


@pytest.mark.parametrize(
    ("doc", "field"),
    [({"\ud800": 1}, "\\ud800"), ({"simulation": {"dur\udc80": 1}}, "simulation.dur\\x80")],
)
def test_a_surrogate_key_in_a_python_document_is_named(doc, field):
    e = _error(lambda: Scenario.from_dict(doc))
    assert e.field == field and "lone surrogate" in e.message


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        ("link[0].delay_ms", "x", 'invalid type: string "x", expected a number'),
        ("tcp[0].window_bytes", 1.5, "invalid type: floating point `1.5`, expected an integer"),
    ],
)
def test_a_python_document_s_error_names_the_field_in_words_and_no_json_position(path, value, message):
    e = _error(lambda: Scenario.from_str(TINY).set(path, value))
    assert (e.field, e.message) == (path, message)


def test_the_same_mistake_in_a_file_keeps_its_line():
    e = _error(lambda: Scenario.from_str(TINY.replace("window_bytes = 8192", "window_bytes = 1.5")))
    assert e.field == "tcp[0].window_bytes"
    assert e.message.startswith("invalid type: floating point `1.5`, expected an integer (line "), e.message


def test_tcp_between_atm_hosts_with_neither_vc_nor_signalling_is_refused():
    no_vc = TINY.replace('[[vc]]\nname = "v"\npath = ["a", "sw", "b"]\n', "")
    assert no_vc != TINY
    e = _error(lambda: Scenario.from_str(no_vc, origin="novc.toml"))
    assert (e.file, e.field) == ("novc.toml", "tcp[0].vc")
    assert e.message.startswith("expected a [[vc]] joining `a` and `b`, or a [signalling] section"), e.message
