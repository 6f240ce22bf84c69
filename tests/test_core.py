"""The compiled binding atmsim._core (crates/atmsim-py), exercised through its test hook
``_fake_run``: same GIL release, progress, interrupt and conversion code as ``run``, with a
fake simulation in place of the core. Also checks the type stub against the module."""

from __future__ import annotations

import ast
import importlib.machinery
import importlib.util
import inspect
import json
import signal
import types
import typing
from array import array
from pathlib import Path

import pytest

from atmsim import Results, Scenario, ScenarioError, SimulationError, _core

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


@pytest.mark.parametrize("name", ["validate", "run", "entity_name"])
def test_stub_matches_module(name):
    stub = _stub_functions()
    assert name in stub
    assert _stub_params(stub[name]) == _runtime_params(getattr(_core, name))


def test_stub_lists_every_public_function():
    public = {n for n in dir(_core) if not n.startswith("_") and inspect.isbuiltin(getattr(_core, n))}
    assert public == set(_stub_functions())


def test_stub_declares_every_public_name_of_the_module():
    tree = ast.parse(STUB.read_text())
    constants = {n.target.id for n in tree.body if isinstance(n, ast.AnnAssign) and not n.target.id.startswith("_")}
    classes = {n.name for n in tree.body if isinstance(n, ast.ClassDef)}
    stub = _stub_module()
    runtime_classes = {c for c in classes if not typing.is_typeddict(getattr(stub, c))}
    public = {n for n in dir(_core) if not n.startswith("_")}
    assert public == set(_stub_functions()) | constants | runtime_classes
    for name in constants - {"SUMMARY_SECTIONS", "METRIC_ENTITIES"}:
        value = getattr(_core, name)
        assert isinstance(value, tuple) and value and all(isinstance(v, str) for v in value), name


def test_metric_names_come_from_the_core_and_the_stub_lists_each():
    stub = _stub_module()
    assert {m.name: m.value for m in _core.Metric} == {m.name: m.value for m in stub.Metric}
    assert _core.Metric.CWND_BYTES == "cwnd_bytes" and _core.Metric.CWND_BYTES in {"cwnd_bytes"}
    r = Results.from_core(fake_run())
    assert r.trace(_core.Metric.CWND_BYTES)["c0"].tolist() == [1.0, 2.0]


def test_entity_kinds_come_from_the_core_and_the_stub_lists_each():
    stub = _stub_module()
    assert {e.name: e.value for e in _core.Entity} == {e.name: e.value for e in stub.Entity}
    assert set(_core.METRIC_ENTITIES) == set(_core.Metric)
    assert set(_core.METRIC_ENTITIES.values()) == set(_core.Entity)
    assert _core.METRIC_ENTITIES[_core.Metric.QUEUE_CELLS] == _core.Entity.PORT
    assert _core.entity_name(_core.Entity.CONN, "1L->1R") == "conn:1L->1R"
    with pytest.raises(ValueError, match="expected one of conn, port, host, abr"):
        _core.entity_name("switch", "sw1")


def test_a_run_names_its_series_by_the_core_metrics():
    sc = _short(SCENARIOS / "kalampoukas97" / "sec52_symmetric.toml", 1.0)
    series = sc.run().series
    names = set(series["metric"].unique())
    assert names and names <= set(_core.Metric)
    assert {_core.Metric.ACR_BPS, _core.Metric.CWND_BYTES, _core.Metric.QUEUE_CELLS} <= names
    # Each row's entity is of its metric's kind.
    pairs = set(zip(series["metric"].astype(str), series["entity"].astype(str).str.partition(":")[0]))
    assert pairs and all(_core.METRIC_ENTITIES[m] == kind for m, kind in pairs)


def test_mah_lists_come_from_the_core():
    configs = _core.MAH_CONFIGURATIONS
    assert len(configs) == len(set(configs)) == 103
    assert configs[:4] == tuple(f"noqos-{m}-{v}" for m in ("app", "conv") for v in ("svc", "svccache"))
    assert len(_core.QOS_POLICIES) == 25 and _core.QOS_POLICIES[0] == "noqos"
    assert {c.rsplit("-", 2)[0] for c in configs} == set(_core.QOS_POLICIES)
    assert {c.rsplit("-", 1)[1] for c in configs} == set(_core.VC_POLICIES)
    assert {c.rsplit("-", 2)[1] for c in configs} == set(_core.MUX_POLICIES) - {"type"}  # Caceres', not Mah's


# ----- the stub's summary TypedDicts match the core's structs ------------------------------

STUB = Path(__file__).parent.parent / "python" / "atmsim" / "_core.pyi"
SCENARIOS = Path(__file__).parent.parent / "scenarios"
#: TypedDicts of the stub that are not part of the summary.
NOT_SUMMARY = {"SeriesColumns", "CaptureFile", "RunResult"}


def _stub_module():
    """The stub loaded as a module: its TypedDicts as the type checker sees them."""
    loader = importlib.machinery.SourceFileLoader("_core_stub", str(STUB))
    spec = importlib.util.spec_from_loader("_core_stub", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def _typed_dicts(module) -> dict[str, type]:
    return {n: v for n, v in vars(module).items() if typing.is_typeddict(v)}


def test_stub_has_a_typed_dict_for_each_summary_struct_with_its_fields():
    stub = _typed_dicts(_stub_module())
    assert set(stub) - NOT_SUMMARY == set(_core.SUMMARY_SECTIONS)
    for name, (required, optional) in _core.SUMMARY_SECTIONS.items():
        td = stub[name]
        assert (sorted(td.__required_keys__), sorted(td.__optional_keys__)) == (sorted(required), sorted(optional)), name
    assert _core.SUMMARY_SECTIONS["Port"][1] == ("drop_regulator",)  # a section with an optional key


def test_the_field_check_notices_a_field_missing_from_either_side():
    stub = _typed_dicts(_stub_module())
    required, optional = _core.SUMMARY_SECTIONS["Connection"]
    assert "goodput_bps" in stub["Connection"].__required_keys__ and "goodput_bps" in required
    assert "efficiency" in stub["Connection"].__optional_keys__ and "efficiency" in optional
    connection = stub["Connection"]
    assert stub["Summary"].__annotations__["connections"] == list[connection]


def _conforms(value, tp, stub, path: str) -> list[str]:
    """Where ``value`` (from a real run) does not have the stub's type ``tp``."""
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is typing.NotRequired:
        return _conforms(value, args[0], stub, path)
    if origin in (types.UnionType, typing.Union):
        if value is None and type(None) in args:
            return []
        return _conforms(value, next(a for a in args if a is not type(None)), stub, path)
    if origin is typing.Literal:
        return [] if value in args else [f"{path}: {value!r} not in {args}"]
    if origin is list:
        return [e for i, v in enumerate(value) for e in _conforms(v, args[0], stub, f"{path}[{i}]")]
    if origin is dict:
        return [e for k, v in value.items() for e in _conforms(v, args[1], stub, f"{path}.{k}")]
    if typing.is_typeddict(tp):
        if not isinstance(value, dict):
            return [f"{path}: {type(value).__name__}, not {tp.__name__}"]
        keys = set(value)
        errors = [f"{path}: {tp.__name__} lacks {k}" for k in sorted(keys - set(tp.__annotations__))]
        errors += [f"{path}: {k} missing" for k in sorted(tp.__required_keys__ - keys)]
        hints = typing.get_type_hints(tp, include_extras=True)
        return errors + [e for k in sorted(keys & set(hints)) for e in _conforms(value[k], hints[k], stub, f"{path}.{k}")]
    if tp is float:
        return [] if isinstance(value, float) else [f"{path}: {value!r} is not a float"]
    if tp is int:
        return [] if isinstance(value, int) and not isinstance(value, bool) else [f"{path}: {value!r} is not an int"]
    return [] if isinstance(value, tp) else [f"{path}: {value!r} is not {tp.__name__}"]


def _short(path: Path, seconds: float, **settings) -> Scenario:
    sc = Scenario.from_toml(path).set("simulation.duration_s", seconds).set("simulation.warmup_s", seconds / 4)
    for key, value in settings.items():
        sc.set(key, value)
    return sc


@pytest.mark.parametrize(
    ("scenario", "settings"),
    [
        ("caceres93/telnet1_ftp4_per_conversation.toml", {}),  # tcplib conversations, TELNET echoes
        ("internetwork/six_sites.toml", {"simulation.tie_order": "lifo"}),  # generators, IP over ATM
        ("kalampoukas97/sec52_symmetric.toml", {}),  # ABR
        ("kocyigit/buffer1000_vc20.toml", {}),  # shapers
        # UDP media, a QoS policy: guaranteed-VC counters, regulator drops
        ("mah96/noqos_conv_svc.toml", {f"site[{i}].ipoa.qos": "sp-audio" for i in range(6)}),
    ],
)
def test_a_run_summary_has_the_stub_types(scenario, settings):
    summary = _short(SCENARIOS / scenario, 2.0, **settings).run().summary
    stub = _stub_module()
    assert _conforms(summary, stub.Summary, stub, "summary") == []
