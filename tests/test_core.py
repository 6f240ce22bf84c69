"""The compiled binding atmsim._core (crates/atmsim-py), exercised through its test hook
``_fake_run``: same GIL release, progress, interrupt and conversion code as ``run``, with a
fake simulation in place of the core. Also checks the type stub against the module."""

from __future__ import annotations

import ast
import inspect
import json
import signal
from array import array
from pathlib import Path

import pytest

from atmsim import Results, ScenarioError, SimulationError, _core

SUMMARY = {
    "scenario": "fake",
    "seed": 3,
    "big": 2**63 + 5,
    "neg": -4,
    "ratio": 0.25,
    "flag": True,
    "nothing": None,
    "connections": [{"name": "c0", "goodput_bps": 1.5e6}],
    "nested": {"a": [1, [2.5, "x"]]},
}
SERIES = ([0.0, 0.5, 1.0], ["c0", "c0", "p1"], ["cwnd_bytes", "cwnd_bytes", "queue_cells"], [1.0, 2.0, 3.0])


def fake_run(**kwargs):
    return _core._fake_run(json.dumps(SUMMARY), *SERIES, **kwargs)


def test_summary_converts_to_plain_python():
    assert fake_run()["summary"] == SUMMARY


def test_series_columns():
    series = fake_run()["series"]
    assert isinstance(series["time_s"], array) and series["time_s"].typecode == "d"
    assert list(series["time_s"]) == SERIES[0]
    assert list(series["value"]) == SERIES[3]
    # Names as int32 codes into the sorted distinct names (the dictionary of a categorical).
    for key, rows in [("entity", SERIES[1]), ("metric", SERIES[2])]:
        codes, names = series[key], series[f"{key}_names"]
        assert isinstance(codes, array) and codes.typecode == "i" and codes.itemsize == 4
        assert names == sorted(set(rows))
        assert [names[c] for c in codes] == rows


def test_series_names_are_coded_in_sorted_order_whatever_order_they_first_appear_in():
    rows = ["tcp1", "sw0.p1", "tcp0", "tcp1", "Ünïcode", "a"]
    series = _core._fake_run(json.dumps(SUMMARY), [0.0] * 6, rows, ["m"] * 6, [1.0] * 6)["series"]
    assert series["entity_names"] == sorted(set(rows))  # Python's order of strings: code points
    assert [series["entity_names"][c] for c in series["entity"]] == rows


def test_results_from_binding_output():
    r = Results.from_core(fake_run())
    assert r.trace("cwnd_bytes")["c0"].tolist() == [1.0, 2.0]


def test_progress_reports_fractions_in_order():
    seen: list[float] = []
    fake_run(reports=4, progress=seen.append)
    assert seen == [0.0, 0.25, 0.5, 0.75, 1.0]


def test_exception_in_progress_callback_stops_the_run():
    seen: list[float] = []

    def callback(fraction):
        seen.append(fraction)
        if fraction >= 0.5:
            raise ValueError("stop here")

    with pytest.raises(ValueError, match="stop here"):
        fake_run(reports=10, progress=callback)
    assert seen[-1] == 0.5


def test_sigint_during_run_raises_keyboard_interrupt():
    seen: list[float] = []

    def callback(fraction):
        seen.append(fraction)
        if len(seen) == 2:
            signal.raise_signal(signal.SIGINT)

    with pytest.raises(KeyboardInterrupt):
        fake_run(reports=100, progress=callback)
    assert len(seen) == 2


@pytest.mark.parametrize(
    ("code", "cls", "field"),
    [("parse", ScenarioError, "tcp[0].window"), ("invalid", ScenarioError, "link[2].rate_bps"), ("internal", SimulationError, "")],
)
def test_core_errors_map_to_exceptions(code, cls, field):
    with pytest.raises(cls) as info:
        fake_run(error=(code, field, "what was expected"))
    e = info.value
    assert (e.code, e.file, e.field, e.message) == (code, "<fake>", field, "what was expected")
    assert str(e) == ": ".join(p for p in ("<fake>", field, "what was expected") if p)


def test_panic_in_core_is_a_simulation_error(capfd):
    with pytest.raises(SimulationError, match=r"panicked.*kaboom") as info:
        fake_run(error=("panic", "", "kaboom"))
    assert info.value.code == "internal"
    assert "kaboom" in capfd.readouterr().err  # a real panic is still reported by the hook


def test_interrupt_unwind_is_silent(capfd):
    with pytest.raises(ValueError):
        fake_run(progress=lambda f: (_ for _ in ()).throw(ValueError("x")))
    assert "panicked" not in capfd.readouterr().err


# ----- the stub python/atmsim/_core.pyi matches the module -------------------------------


def _stub_functions() -> dict[str, ast.FunctionDef]:
    tree = ast.parse((Path(__file__).parent.parent / "python" / "atmsim" / "_core.pyi").read_text())
    return {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}


def _stub_params(fn: ast.FunctionDef) -> list[tuple[str, str]]:
    a = fn.args
    params = [(p.arg, "positional") for p in a.posonlyargs + a.args]
    return params + [(p.arg, "keyword") for p in a.kwonlyargs]


def _runtime_params(fn) -> list[tuple[str, str]]:
    kinds = {inspect.Parameter.KEYWORD_ONLY: "keyword"}
    return [(p.name, kinds.get(p.kind, "positional")) for p in inspect.signature(fn).parameters.values()]


@pytest.mark.parametrize("name", ["validate", "run"])
def test_stub_matches_module(name):
    stub = _stub_functions()
    assert name in stub
    assert _stub_params(stub[name]) == _runtime_params(getattr(_core, name))


def test_stub_lists_every_public_function():
    public = {n for n in dir(_core) if not n.startswith("_") and callable(getattr(_core, n))}
    assert public == set(_stub_functions())
