"""atmsim.builder: a NetworkBuilder written call by call is the same document as the TOML file,
runs through the core, and a mistake made through it is reported by the core with the
field's dotted path. The ready-made Mah backbone has the shape spec mah96 §1.2 gives it."""

from __future__ import annotations

import time
import tomllib

import pytest

import atmsim
from atmsim.builder import NetworkBuilder, Site, dumbbell, mah_backbone
from conftest import REPO

TWO_SITES = REPO / "scenarios" / "internetwork" / "two_sites.toml"
EPD = {"drop_policy": "epd", "epd_threshold_cells": 200, "buffer_cells": 256}


def two_sites() -> NetworkBuilder:
    """scenarios/internetwork/two_sites.toml, written with the builder."""
    net = NetworkBuilder("two_sites", duration_s=600.0, seed=1, sample_interval_ms=0)
    net.signalling(processing_ms=1.0)
    west, core, east = (net.switch(n, **EPD) for n in ("west", "core", "east"))
    net.link(west, core, preset="t1", delay_ms=5.0)
    net.link(core, east, preset="t1", delay_ms=30.0)
    svc = {"mux": "conv", "vc": "svc"}
    berkeley = net.site("berkeley", 20, 2, attach=west, link_preset="t1", ipoa=svc)
    urbana = net.site("urbana", 20, 2, attach=east, link_preset="t1", ipoa=svc)
    net.traffic("telnet", "telnet", mean_interarrival_s=20.0)
    net.traffic("ftp", "ftp", mean_interarrival_s=30.0)
    net.traffic("smtp", "smtp", mean_interarrival_s=10.0)
    net.udp("voice", berkeley.workstation(0), urbana.workstation(0), media="audio", packet_bytes=200, interval_ms=25.0)
    return net


def balanced(results: atmsim.Results) -> dict[str, bool]:
    return {group: counts["balanced"] for group, counts in results.summary["conservation"].items()}


# ----- the document ---------------------------------------------------------------------


def test_two_sites_built_in_python_equals_the_shipped_file():
    assert two_sites().to_dict() == tomllib.loads(TWO_SITES.read_text())


def test_two_sites_built_in_python_runs_like_the_file():
    built = two_sites().scenario().set("simulation.duration_s", 20.0).run()
    shipped = atmsim.Scenario.from_toml(TWO_SITES).set("simulation.duration_s", 20.0).run()
    assert built.summary["udp"] == shipped.summary["udp"]
    assert built.summary["conservation"] == shipped.summary["conservation"]
    assert all(balanced(built).values())


def test_handles_name_what_the_core_expands_a_site_into():
    site = NetworkBuilder().site("x", workstations=2, servers=1, attach="sw")
    assert site == Site("x", 2, 1, "sw")
    assert (site.router, site.lan, site.uplink) == ("x-router", "x-lan", "x-uplink")
    assert site.hosts == ["x-ws0", "x-ws1", "x-srv0"]


def test_a_site_handle_stands_for_its_router_and_keywords_take_a_trailing_underscore():
    net = NetworkBuilder(duration_s=1.0)
    a = net.site("a", 1, 1)
    net.serial(a, "r", rate_bps=1e6)
    net.traffic("t", "telnet", from_=[a], mean_interarrival_s=1.0)
    doc = net.to_dict()
    assert doc["serial"] == [{"a": "a-router", "b": "r", "rate_bps": 1e6}]
    assert doc["traffic"] == [{"name": "t", "app": {"kind": "telnet"}, "from": ["a"], "mean_interarrival_s": 1.0}]


def test_fields_are_copied_when_added():
    ipoa = {"mux": "conv"}
    net = NetworkBuilder(duration_s=1.0)
    net.router("r", ipoa=ipoa)
    ipoa["mux"] = "router"
    assert net.to_dict()["router"][0]["ipoa"] == {"mux": "conv"}


def test_to_toml_writes_a_file_the_cli_checks(tmp_path):
    path = tmp_path / "dumbbell.toml"
    text = dumbbell(2).to_toml(path)
    assert path.read_text() == text
    assert atmsim.Scenario.from_toml(path).validate().doc == dumbbell(2).to_dict()


# ----- mistakes are the core's to report ------------------------------------------------


def test_a_bad_rate_is_reported_by_the_core_naming_the_link():
    net = dumbbell(2)  # links 0..3
    net.link("src0", "dst", rate_bps=-1.0, delay_ms=0.0)  # link[4]
    with pytest.raises(atmsim.ScenarioError) as err:
        net.check()
    assert err.value.field == "link[4].rate_bps"
    assert err.value.code == "invalid"
    assert str(err.value).startswith("<builder>: link[4].rate_bps: expected a rate")
    assert "\n" not in str(err.value)


def test_a_misspelt_field_is_reported_by_the_core_naming_it():
    net = mah_backbone(duration_s=1.0)
    net.switch("S7", buffer=256)  # the field is buffer_cells
    with pytest.raises(atmsim.ScenarioError) as err:
        net.check()
    assert err.value.field == "switch[8].buffer"
    assert err.value.code == "parse"
    assert "unknown field `buffer`" in err.value.message
    assert "\n" not in str(err.value)


def test_a_bad_policy_in_a_site_is_reported_naming_the_site():
    with pytest.raises(atmsim.ScenarioError) as err:
        mah_backbone(ipoa={"mux": "bogus"}, duration_s=1.0).check()
    assert err.value.field == "site[0].ipoa.mux"


def test_the_builder_itself_refuses_only_impossible_shapes():
    with pytest.raises(ValueError, match="variant"):
        mah_backbone("C")
    with pytest.raises(ValueError, match="sender"):
        dumbbell(0)


# ----- the Mah backbone -----------------------------------------------------------------


@pytest.mark.parametrize("variant, switches, links", [("stars", 8, 7), ("B", 6, 5)])
def test_mah_backbone_has_six_sites_of_1212_hosts_and_six_routers(variant, switches, links):
    net = mah_backbone(variant)
    doc = net.to_dict()
    assert [len(doc[k]) for k in ("switch", "link", "site")] == [switches, links, 6]
    assert sum(s["workstations"] + s["servers"] for s in doc["site"]) == 1212
    assert "signalling" in doc and "traffic" not in doc
    assert {s["ipoa"]["vc"] for s in doc["site"]} == {"svc"}
    assert [s.attach for s in net.west + net.east] == [f"S{k}" for k in range(1, 7)]
    delays = sorted(link["delay_ms"] for link in doc["link"])
    assert delays == [5.0] * (links - 1) + [30.0]  # exactly one 30 ms link
    assert all(link["preset"] == "t1" for link in doc["link"])
    net.check()


def test_mah_backbone_short_run_balances_its_ledgers():
    net = mah_backbone(duration_s=2.0, sample_interval_ms=0, traffic=[{"name": "telnet", "app": "telnet", "mean_interarrival_s": 0.05}])
    started = time.perf_counter()
    r = net.run(seed=1)
    elapsed = time.perf_counter() - started
    hosts = r.summary["hosts"]
    assert len(hosts) == 1212 + 6
    assert sum(bool(h.get("router")) for h in hosts) == 6
    assert r.summary["traffic"][0]["started"] > 10
    assert balanced(r) == {"cells": True, "frames": True, "datagrams": True}
    assert r.summary["signalling"]["messages"]["balanced"] is True
    assert elapsed < 30.0  # about 0.07 s on a 2-core machine


def _probe(variant: str, src: Site, dst: Site) -> atmsim.Results:
    net = mah_backbone(variant, duration_s=2.0, sample_interval_ms=0)
    net.udp("probe", src.workstation(0), dst.workstation(0), packet_bytes=200, interval_ms=20.0)
    return net.run(seed=1)


def test_the_30ms_link_is_the_only_way_between_the_halves():
    net = mah_backbone()
    (berkeley, lbl, _), (illinois, _, _) = net.west, net.east
    across = _probe("stars", berkeley, illinois)
    flow = across.udp().iloc[0]
    assert flow["delivered"] > 90
    assert flow["delay_mean_s"] >= 0.040  # 5 + 30 + 5 ms of propagation, then transmission at T1
    ports = across.ports().set_index("name")
    assert ports.loc["HW->HE", "cells_tx"] > 0

    within = _probe("stars", berkeley, lbl)
    assert within.udp().iloc[0]["delay_mean_s"] < 0.030  # 5 + 5 ms: the west half's own hub
    ports = within.ports().set_index("name")
    assert ports.loc["HW->HE", "cells_in"] == 0 and ports.loc["HE->HW", "cells_in"] == 0


def test_variant_b_puts_the_hubs_at_the_first_site_of_each_half():
    net = mah_backbone("B")
    (berkeley, lbl, _), (illinois, wisconsin, _) = net.west, net.east
    assert net.bottleneck == "S1-S4"
    hub_to_hub = _probe("B", berkeley, illinois).udp().iloc[0]["delay_mean_s"]
    spoke_to_spoke = _probe("B", lbl, wisconsin).udp().iloc[0]["delay_mean_s"]
    assert 0.030 <= hub_to_hub < 0.040 <= spoke_to_spoke


# ----- the dumbbell ---------------------------------------------------------------------


def test_dumbbell_senders_share_the_bottleneck():
    r = dumbbell(3, tcp={"window_bytes": 65536}, duration_s=10.0).run(seed=1)
    goodputs = r.connections()["goodput_bps"]
    assert len(goodputs) == 3 and (goodputs > 0).all()
    payload_rate = 1_536_000 * 48 / 53  # T1's cell payload
    assert 0.85 * payload_rate < goodputs.sum() <= payload_rate
    assert all(balanced(r).values())


def test_the_example_in_docs_builder_md_runs(tmp_path, monkeypatch, capsys):
    text = (REPO / "docs" / "builder.md").read_text()
    example = text.split("```python\n", 1)[1].split("```", 1)[0]
    monkeypatch.chdir(tmp_path)
    exec(compile(example, "docs/builder.md", "exec"), {})
    assert capsys.readouterr().out.rstrip().endswith("True")
    assert atmsim.Scenario.from_toml(tmp_path / "mah.toml").validate()
