"""`--tcp SPEC` (atmsim.study.tcp_profile): the grammar, every error, and what `apply` touches."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from atmsim import Scenario
from atmsim.errors import ScenarioError
from atmsim.study import resources
from atmsim.study.tcp_profile import FIELDS, FLAGS, SECTIONS, VARIANTS, TcpProfile, parse

#: Every profile the grammar allows.
VALID = [
    TcpProfile(v, sack=s, timestamps=t, hystart=h)
    for v, s, t, h in itertools.product(VARIANTS, (False, True), (False, True), (False, True))
    if not (h and not t) and not (s and v == "tahoe")
]


@given(profile=st.sampled_from(VALID), data=st.data())
@settings(max_examples=200, deadline=None)
def test_any_order_and_case_of_the_tokens_gives_the_same_profile(profile, data):
    tokens = profile.name.split("+")
    shuffled = data.draw(st.permutations(tokens))
    cased = [data.draw(st.sampled_from([t, t.upper(), t.capitalize()])) for t in shuffled]
    assert parse("+".join(cased)) == profile
    assert parse(profile.name) == profile  # the name is canonical and parses back


def test_the_examples_of_the_help():
    assert parse("cubic+sack+ts") == TcpProfile("cubic", sack=True, timestamps=True)
    assert parse("cubic+sack+ts+hystart").name == "cubic+sack+ts+hystart"
    assert parse("ts+cubic").name == "cubic+ts"
    assert parse("newreno") == TcpProfile("newreno")
    assert parse("tahoe").fields() == {"variant": "tahoe", "sack": False, "timestamps": False, "hystart": False}


@pytest.mark.parametrize(("spec", "says"), [
    ("", "empty token"),
    ("cubic+", "empty token"),
    ("cubic++ts", "empty token"),
    ("vegas", "unknown token 'vegas'"),
    ("cubic+ecn", "unknown token 'ecn'"),
    ("sack+ts", "no TCP variant"),
    ("cubic+reno", "two variants, 'cubic' and 'reno'"),
    ("cubic+cubic", "'cubic' given twice"),
    ("cubic+sack+sack", "'sack' given twice"),
    ("reno+ts+TS", "'ts' given twice"),
    ("cubic+hystart", "hystart needs ts"),
    ("cubic+sack+hystart", "hystart needs ts"),
    ("tahoe+sack", "sack with tahoe"),
])
def test_every_error_is_one_line_naming_the_option(spec, says):
    with pytest.raises(ScenarioError) as err:
        parse(spec)
    line = str(err.value)
    assert line.startswith("--tcp: ") and says in line and "\n" not in line
    assert err.value.field == "--tcp"


@given(st.text(max_size=30))
@settings(max_examples=300, deadline=None)
def test_any_string_parses_or_is_a_scenario_error(spec):
    try:
        p = parse(spec)
    except ScenarioError as exc:
        assert "\n" not in str(exc)
    else:
        assert p in VALID


def _differences(a, b, path=""):
    """Every dotted path where the documents ``a`` and ``b`` differ."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in sorted(set(a) | set(b)):
            out += _differences(a.get(k), b.get(k), f"{path}.{k}" if path else k)
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in _differences(x, y, f"{path}[{i}]")]
    return [] if a == b else [path]


SCENARIOS = {
    "kocyigit (4 tcp)": resources.scenario_file("kocyigit", "buffer1000_vc35.toml"),
    "mah96 (traffic)": resources.scenario_file("mah96", "noqos_conv_svc.toml"),
    "magic95 (half_advertised)": resources.scenario_file("magic95", "table2_no_pacing.toml"),
}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
@pytest.mark.parametrize("profile", [parse("cubic+sack+ts+hystart"), parse("newreno"), parse("tahoe+ts")], ids=str)
def test_apply_sets_every_connection_table_and_nothing_else(name, profile):
    sc = Scenario.from_toml(SCENARIOS[name])
    if name.startswith("magic95"):
        sc.set("tcp[0].ssthresh_on_loss", "half_advertised")
    before = sc.doc
    after = profile.apply(sc).doc
    assert sc.doc == before  # the scenario given is left alone
    tables = [(s, i) for s in SECTIONS for i in range(len(before.get(s, [])))]
    assert tables, "a scenario with connections"
    expected = {f"{s}[{i}].{f}" for s, i in tables for f in FIELDS if before[s][i].get(f) != profile.fields()[f]}
    if profile.variant == "cubic":
        expected |= {f"{s}[{i}].ssthresh_on_loss" for s, i in tables
                     if before[s][i].get("ssthresh_on_loss", "half_window") != "half_window"}
    assert set(_differences(before, after)) == expected
    for s, i in tables:
        assert {f: after[s][i][f] for f in FIELDS} == profile.fields()
    profile.apply(sc).validate()  # what it makes is a scenario the core takes


def test_apply_to_a_scenario_without_connections_is_a_copy():
    sc = Scenario.from_dict({"name": "empty", "simulation": {"duration_s": 1.0}})
    out = parse("cubic").apply(sc)
    assert out is not sc and out.doc == sc.doc


def test_flags_name_the_scenario_fields():
    assert set(FLAGS.values()) | {"variant"} == set(FIELDS)
