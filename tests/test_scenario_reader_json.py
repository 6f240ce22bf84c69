"""A document read from TOML reaches the core as JSON of the dict tomllib made (the core's
peak while reading is then the parsed model's, docs/performance.md "The scenario reader"):
results are those of the TOML text, floats included; an error the core finds keeps the line
and column of the TOML text; what JSON cannot carry as TOML does goes to the core as the text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from atmsim import Scenario, ScenarioError, _core

TINY = (Path(__file__).resolve().parent / "data" / "tiny.toml").read_text()


def _summary(raw: dict) -> str:
    summary = raw["summary"] if isinstance(raw["summary"], dict) else json.loads(raw["summary"])
    return json.dumps({k: v for k, v in summary.items() if k != "run"}, sort_keys=True)


def test_a_toml_document_goes_to_the_core_as_json_and_runs_as_its_text():
    text = TINY.replace("delay_ms = 1.0\n", "delay_ms = 1.0000000000000002\n", 1).replace(
        "duration_s = 0.2", "duration_s = 0.20000000000000004"
    )
    s = Scenario.from_str(text, origin="t.toml")
    assert s._as_json
    calls: list[str] = []
    through = s._core_call(lambda t, fmt: calls.append(fmt) or _core.run(t, fmt, "t.toml"))
    assert calls == ["json"]
    assert _summary(through) == _summary(_core.run(text, "toml", "t.toml"))


def test_an_error_from_the_json_keeps_the_line_and_column_of_the_toml_text():
    text = TINY.replace("window_bytes = 8192", "window_bytes = 1.5")
    line = text.splitlines().index("window_bytes = 1.5") + 1
    with pytest.raises(ScenarioError) as info:
        Scenario.from_str(text, origin="t.toml").validate()
    e = info.value
    assert e.field == "tcp[0].window_bytes", e
    assert e.message == f"invalid type: floating point `1.5`, expected an integer (line {line}, column 16)", e.message
    with pytest.raises(ScenarioError) as info:
        Scenario.from_str(text, origin="t.toml").run()
    assert info.value.message == e.message


@pytest.mark.parametrize("value", ["1979-05-27T07:32:00Z", "inf", "nan"])  # no such values in JSON
def test_what_json_cannot_carry_goes_to_the_core_as_the_text(value):
    text = TINY.replace("delay_ms = 1.0\n", f"delay_ms = {value}\n", 1)
    s = Scenario.from_str(text, origin="t.toml")
    assert not s._as_json
    with pytest.raises(ScenarioError) as info:
        s.validate()
    assert info.value.field == "link[0].delay_ms", info.value
    with pytest.raises(ScenarioError) as direct:
        _core.validate(text, "toml", "t.toml")
    assert info.value.message == direct.value.message


def test_an_integer_beyond_64_bits_is_refused_from_the_text_with_its_position():
    text = TINY.replace("window_bytes = 8192", "window_bytes = 18446744073709551616")
    s = Scenario.from_str(text, origin="t.toml")
    assert not s._as_json
    with pytest.raises(ScenarioError) as info:
        s.validate()
    assert info.value.field == "tcp[0].window_bytes"
    assert info.value.message.startswith("an integer too large: expected an integer between"), info.value.message
    assert "(line " in info.value.message


def _vcs_file(tmp_path: Path, n: int, extra: str = "") -> Path:
    """TINY with ``n`` idle VCs between two more hosts on its switch (generated as a sweep would)."""
    more = "".join(f'[[host]]\nname = "{h}"\n[[link]]\na = "{h}"\nb = "sw"\npreset = "t1"\ndelay_ms = 1.0\n' for h in "cd")
    vcs = "".join(f'[[vc]]\nname = "idle{i}"\npath = ["c", "sw", "d"]\n' for i in range(n))
    path = tmp_path / "many.toml"
    path.write_text(TINY + extra + more + vcs)
    return path


def test_atmsim_check_reads_a_large_file_in_the_core_without_a_python_document(tmp_path, monkeypatch):
    import tomllib

    from atmsim import cli
    from atmsim._scenario import validate_file

    path = _vcs_file(tmp_path, 2000)

    def no_tomllib(*args, **kwargs):
        raise AssertionError("the Python TOML reader was used")

    monkeypatch.setattr(tomllib, "loads", no_tomllib)
    validate_file(path)
    from click.testing import CliRunner

    result = CliRunner().invoke(cli.app, ["check", str(path)])
    assert result.exit_code == 0 and "ok:" in result.output, result.output


def test_a_file_the_core_refuses_is_reported_as_the_python_reader_reports_it(tmp_path):
    from atmsim._scenario import validate_file

    for extra, path_name in [("[[vc]]\nname = 5\n", "bad_type"), ("[vc]\nname = 'x'\n", "table_and_array")]:
        path = _vcs_file(tmp_path, 3, extra)
        with pytest.raises(ScenarioError) as direct:
            validate_file(path)
        with pytest.raises(ScenarioError) as through_python:
            Scenario.from_toml(path).validate()
        assert str(direct.value) == str(through_python.value), path_name
