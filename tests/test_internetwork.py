"""The IP internetwork from Python: LANs, serial lines, routers and UDP flows run through
the Scenario API, their results come back as tables (``Results.udp()``, ``Results.lines()``),
the store flattens them, the run report shows them, and `atmsim check` names a mistake's
field. Closed forms from crates/atmsim-core/tests/it/internetwork.rs."""

from __future__ import annotations

import copy
import html
import re
import subprocess
import sys

import pytest
from rich.console import Console

import atmsim
from atmsim import Results
from atmsim._plots import write_run_report
from atmsim._run_tables import lines_table, nodes_table, print_summary, udp_table
from atmsim._store import flatten_summary, unflatten_metrics

# 1000-byte datagrams every 1 ms on an idle 100 Mb/s LAN of 0.01 ms: 80 µs on the medium,
# then 10 µs, every time.
LAN_UDP = {
    "simulation": {"duration_s": 1.0},
    "host": [{"name": "a"}, {"name": "b"}],
    "lan": [{"name": "lan", "members": ["a", "b"], "rate_bps": 100e6, "delay_ms": 0.01}],
    "udp": [{"name": "u", "from": "a", "to": "b", "packet_bytes": 1000, "interval_ms": 1.0}],
}

# Two sites: a host and a router on each 10 Mb/s LAN, the routers joined by a serial line.
TWO_SITES = {
    "simulation": {"duration_s": 2.0},
    "host": [{"name": "h1"}, {"name": "h2"}],
    "router": [{"name": "r1"}, {"name": "r2"}],
    "lan": [
        {"name": "west", "members": ["h1", "r1"], "rate_bps": 10e6, "delay_ms": 0.1},
        {"name": "east", "members": ["r2", "h2"], "rate_bps": 10e6, "delay_ms": 0.1},
    ],
    "serial": [{"a": "r1", "b": "r2", "rate_bps": 1.5e6, "delay_ms": 5.0}],
    "udp": [{"name": "u", "from": "h1", "to": "h2", "packet_bytes": 500, "interval_ms": 10.0}],
}

# The same two sites with the routers on an ATM backbone (T1, 30 ms) instead of the serial
# line, multiplexing by router onto one declared PVC.
TWO_SITES_ATM = {
    "simulation": {"duration_s": 2.0},
    "host": [{"name": "h1"}, {"name": "h2"}],
    "router": [{"name": "r1", "ipoa": {"mux": "router"}}, {"name": "r2", "ipoa": {"mux": "router"}}],
    "switch": [{"name": "s1"}],
    "lan": [{"name": "west", "members": ["h1", "r1"]}, {"name": "east", "members": ["h2", "r2"]}],
    "link": [
        {"a": "r1", "b": "s1", "rate_bps": 1536000, "delay_ms": 0.0},
        {"a": "s1", "b": "r2", "rate_bps": 1536000, "delay_ms": 30.0},
    ],
    "vc": [{"name": "r1r2", "path": ["r1", "s1", "r2"]}],
    "udp": [{"name": "u", "from": "h1", "to": "h2", "packet_bytes": 500, "interval_ms": 10.0}],
}

DATAGRAM_FATES = ("delivered", "refused_at_adapter", "lost_in_fabric", "no_route", "dropped_at_line", "no_vc", "in_flight")


def _assert_ledger_balances(summary: dict) -> None:
    d = summary["conservation"]["datagrams"]
    assert d["balanced"] is True, d
    assert d["sent"] == sum(d[k] for k in DATAGRAM_FATES), d


def test_udp_over_a_lan_has_the_closed_form_delay():
    r = atmsim.run(LAN_UDP)
    udp = r.udp()
    assert udp["name"].tolist() == ["u"]
    flow = udp.iloc[0]
    # Sent at 0, 1 ms, ..., 1 s: the one sent at the run's last instant is still in flight.
    assert flow["sent"] == 1001
    assert flow["delivered"] == flow["sent"] - 1
    assert r.summary["conservation"]["datagrams"]["in_flight"] == 1
    assert flow["delay_mean_s"] == pytest.approx(90e-6, rel=1e-12)
    assert flow["delay_max_s"] == pytest.approx(90e-6, rel=1e-12)
    assert flow["late"] == 0 and flow["from"] == "a" and flow["to"] == "b"
    lines = r.lines()
    assert lines[["name", "kind"]].values.tolist() == [["lan", "lan"]]
    assert lines.iloc[0]["utilization"] == pytest.approx(1000 * 80e-6, rel=1e-12)
    assert lines.iloc[0]["dropped"] == 0
    _assert_ledger_balances(r.summary)


def test_routers_forward_each_datagram_once_across_lans_and_a_serial_line():
    r = atmsim.Scenario.from_dict(TWO_SITES).run(seed=3)
    flow = r.udp().iloc[0]
    expect = 2 * (500 * 8 / 10e6 + 100e-6) + 500 * 8 / 1.5e6 + 5e-3
    assert flow["delay_mean_s"] == pytest.approx(expect, abs=1e-11)
    assert (flow["sent"], flow["delivered"]) == (201, 200)
    hosts = {h["name"]: h for h in r.summary["hosts"]}
    assert [(n, hosts[n]["router"], hosts[n]["forwarded"]) for n in ("h1", "h2", "r1", "r2")] == [
        ("h1", False, 0), ("h2", False, 0), ("r1", True, 200), ("r2", True, 200),
    ]
    lines = r.lines().set_index("name")
    assert list(lines.index) == ["r1-r2:r1->r2", "r1-r2:r2->r1", "west", "east"]
    # The datagram sent at the last instant is still on the west LAN.
    assert lines.loc["r1-r2:r1->r2", "kind"] == "serial" and lines.loc["r1-r2:r1->r2", "sent"] == 200
    assert lines.loc["r1-r2:r2->r1", "sent"] == 0
    _assert_ledger_balances(r.summary)


def test_router_multiplexing_carries_the_flow_on_the_declared_pvc():
    r = atmsim.run(TWO_SITES_ATM)
    flow = r.udp().iloc[0]
    # Nothing is lost: what is not delivered is still on its way at the end.
    assert flow["delivered"] > 190
    assert flow["sent"] - flow["delivered"] == r.summary["conservation"]["datagrams"]["in_flight"]
    r1 = next(h for h in r.summary["hosts"] if h["name"] == "r1")
    assert r1["ipoa"]["mux"] == "router" and r1["ipoa"]["setups_requested"] == 0
    assert r1["ipoa"]["vcs_in_use"] == 1
    _assert_ledger_balances(r.summary)


def test_without_a_vc_or_signalling_the_datagrams_are_counted_no_vc():
    doc = copy.deepcopy(TWO_SITES_ATM)
    del doc["vc"]
    r = atmsim.run(doc)
    d = r.summary["conservation"]["datagrams"]
    assert d["no_vc"] > 0 and d["delivered"] == 0
    r1 = next(h for h in r.summary["hosts"] if h["name"] == "r1")
    assert r1["ipoa"]["setups_failed"] == r1["ipoa"]["setups_requested"] >= 1
    _assert_ledger_balances(r.summary)


def test_store_flattens_udp_flows_lines_and_driver_counters():
    r = atmsim.run(TWO_SITES_ATM)
    flat = {(e, m): v for e, m, v in flatten_summary(r.summary)}
    flow = r.summary["udp"][0]
    assert flat[("udp:u", "delivered")] == flow["delivered"]
    assert flat[("udp:u", "delay_mean_s")] == flow["delay_mean_s"]
    assert ("udp:u", "from") not in flat  # strings are left out
    assert flat[("line:west", "sent")] == r.summary["lines"][0]["sent"]
    assert flat[("host:r1", "forwarded")] > 0
    assert flat[("host:r1", "ipoa.vcs_in_use")] == 1.0
    assert ("host:r1", "ipoa.mux") not in flat
    assert ("host:h1", "ipoa.vcs_in_use") not in flat  # a LAN-only host has no driver
    assert flat[("conservation", "datagrams.no_vc")] == 0.0


def test_flattening_keeps_nested_numbers_and_drops_nulls_and_strings():
    summary = {
        "scenario": "s",
        "seed": 1,
        "hosts": [{"name": "r1", "router": True, "forwarded": 7, "ipoa": {"mux": "conv", "hit_rate": None, "cache_hits": 2}}],
        "lines": [{"name": "r1-r2:r1->r2", "kind": "serial", "sent": 5, "utilization": 0.5}],
        "udp": [{"name": "audio", "sent": 10, "delivered": 9, "delay_mean_s": None}],
        "signalling": {"setups_connected": 3, "setups_failed": {"novci": 1}, "messages": {"balanced": True}},
    }
    assert sorted(flatten_summary(summary)) == sorted([
        ("host:r1", "router", 1.0),
        ("host:r1", "forwarded", 7.0),
        ("host:r1", "ipoa.cache_hits", 2.0),
        ("line:r1-r2:r1->r2", "sent", 5.0),
        ("line:r1-r2:r1->r2", "utilization", 0.5),
        ("udp:audio", "sent", 10.0),
        ("udp:audio", "delivered", 9.0),
        ("signalling", "setups_connected", 3.0),
        ("signalling", "setups_failed.novci", 1.0),
        ("signalling", "messages.balanced", 1.0),
    ])
    assert not [row for row in flatten_summary({**summary, "signalling": None}) if row[0] == "signalling"]


def test_unflattening_gives_the_numbers_back_nested_as_in_the_summary():
    summary = {
        "scenario": "s",
        "seed": 1,
        "duration_s": 100.0,
        "run": {"events": 5, "wall_s": 0.5},
        "hosts": [{"name": "r1", "forwarded": 7, "ipoa": {"mux": "conv", "cache_hits": 2}}, {"name": "h1", "forwarded": 0}],
        "ports": [{"name": "S1->r1", "drops": 3, "utilization": 0.25}],
        "applications": {"telnet": {"app": "telnet", "completed": 4,
                                    "metrics": {"connect_s": {"n": 4, "median": 0.2, "p90": None}}},
                         "audio": {"media": {"lost": 1, "delivered": 9}}},
        "conservation": {"cells": {"injected": 10, "balanced": True}},
    }
    flat = flatten_summary(summary)
    assert ("app:telnet", "metrics.connect_s.median", 0.2) in flat
    assert unflatten_metrics(flat) == {
        "duration_s": 100.0,
        "run": {"events": 5.0, "wall_s": 0.5},
        "hosts": [{"name": "r1", "forwarded": 7.0, "ipoa": {"cache_hits": 2.0}}, {"name": "h1", "forwarded": 0.0}],
        "ports": [{"name": "S1->r1", "drops": 3.0, "utilization": 0.25}],
        "applications": {"telnet": {"completed": 4.0, "metrics": {"connect_s": {"n": 4.0, "median": 0.2}}},
                         "audio": {"media": {"lost": 1.0, "delivered": 9.0}}},
        "conservation": {"cells": {"injected": 10.0, "balanced": 1.0}},
    }


def test_views_of_a_summary_without_an_internetwork_are_empty():
    r = Results({"connections": []}, None)
    assert r.udp().empty and r.lines().empty
    assert Results({"udp": None, "lines": None}, None).udp().empty


TWO_SITES_TOML = """
[simulation]
duration_s = 2.0
[[host]]
name = "h1"
[[host]]
name = "h2"
[[router]]
name = "r1"
[[router]]
name = "r2"
[[lan]]
name = "west"
members = ["h1", "r1"]
[[lan]]
name = "east"
members = ["r2", "h2"]
[[serial]]
a = "r1"
b = "r2"
rate_bps = 1.5e6
"""


def _check(tmp_path, text: str) -> subprocess.CompletedProcess:
    path = tmp_path / "sites.toml"
    path.write_text(text)
    return subprocess.run(
        [sys.executable, "-m", "atmsim", "check", str(path)],
        capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120,
    )


def test_check_accepts_two_sites_joined_by_routers(tmp_path):
    proc = _check(tmp_path, TWO_SITES_TOML)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("ok: ")


def test_check_names_the_field_of_a_lan_with_one_member(tmp_path):
    proc = _check(tmp_path, TWO_SITES_TOML.replace('members = ["h1", "r1"]', 'members = ["h1"]'))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("error: ") and "lan[0].members" in lines[0] and "at least two" in lines[0]
    assert "Traceback" not in proc.stdout + proc.stderr


# ----- run reports (no simulator) ------------------------------------------------------------

INTERNET_SUMMARY = {
    "scenario": "sites",
    "seed": 1,
    "duration_s": 2.0,
    "warmup_s": 0.0,
    "connections": [],
    "ports": [],
    "hosts": [
        {"name": "h1", "router": False, "forwarded": 0, "no_route": 0},
        {"name": "quiet", "router": False, "forwarded": 0, "no_route": 0,
         "ipoa": {"mux": "conv", "vc": "pvc", "setups_requested": 0, "vcs_in_use": 1}},
        {"name": "r1", "router": True, "forwarded": 200, "no_route": 0,
         "ipoa": {"mux": "router", "vc": "svccache", "setups_requested": 2, "cache_hits": 5, "setups_failed": 0,
                  "teardowns": 1, "datagrams_dropped": 0, "vcs_in_use": 1}},
    ],
    "lines": [
        {"name": "r1-r2:r1->r2", "kind": "serial", "rate_bps": 1.5e6, "sent": 201, "dropped": 3, "utilization": 0.0536, "queued_at_end": 0},
        {"name": "west", "kind": "lan", "rate_bps": 10e6, "sent": 402, "dropped": 0, "utilization": 0.0161, "queued_at_end": 0},
    ],
    "udp": [
        {"name": "u", "from": "h1", "to": "h2", "sent": 201, "delivered": 200, "loss_rate": 1 / 201, "late": 0,
         "delay_mean_s": 0.0086667, "delay_max_s": 0.0086667},
    ],
}


def _rows(page: str, title: str) -> list[list[str]]:
    match = re.search(rf"<h2>{re.escape(title)}</h2>(.*?)(?=<h2>|<p>|$)", page, re.S)
    assert match, f"no section {title!r}"
    return [[html.unescape(c) for c in re.findall(r"<t[dh]>(.*?)</t[dh]>", r)] for r in re.findall(r"<tr>(.*?)</tr>", match.group(1))]


def test_run_report_tables_udp_flows_lines_and_routers(sample_results, tmp_path):
    page = write_run_report(Results(copy.deepcopy(INTERNET_SUMMARY), sample_results.series), tmp_path).read_text()
    udp = _rows(page, "UDP flows")
    assert udp[0][:5] == ["name", "from", "to", "sent", "delivered"]
    assert udp[1][:5] == ["u", "h1", "h2", "201", "200"]
    lines = _rows(page, "Serial lines and LANs")
    assert [r[:2] for r in lines[1:]] == [["r1-r2:r1->r2", "serial"], ["west", "lan"]]
    assert lines[1][5] == "3"  # dropped
    nodes = _rows(page, "Routers and IP-over-ATM drivers")
    # Only the router: the hosts forwarded nothing, dropped nothing and set up no VC.
    assert [r[:6] for r in nodes[1:]] == [["r1", "yes", "200", "0", "router", "svccache"]]
    assert nodes[0][6:8] == ["setups", "cache hits"] and nodes[1][6:8] == ["2", "5"]


def test_run_report_of_hosts_on_pvcs_has_no_internetwork_sections(sample_results, tmp_path):
    summary = {**sample_results.summary, "udp": [], "lines": [], "hosts": INTERNET_SUMMARY["hosts"][:2]}
    page = write_run_report(Results(summary, sample_results.series), tmp_path).read_text()
    for title in ("UDP flows", "Serial lines and LANs", "Routers and IP-over-ATM drivers"):
        assert f"<h2>{title}</h2>" not in page
    assert udp_table(summary) is None and lines_table(summary) is None and nodes_table(summary) is None


def test_terminal_summary_prints_udp_lines_and_nodes():
    console = Console(width=160, record=True, file=open("/dev/null", "w"))
    print_summary(Results(INTERNET_SUMMARY, None), console)
    text = console.export_text()
    for part in ("udp flows", "mean delay ms", "8.667", "lines", "r1-r2:r1->r2", "serial", "nodes", "svccache", "yes"):
        assert part in text, part
    assert "quiet" not in text
