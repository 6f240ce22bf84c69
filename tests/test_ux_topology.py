"""The run report pictures the scenario's network: a box per node, a line per link labelled
with its name, rate and one-way delay, and each VC's path (atmsim._topology)."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path

import tomli_w

from atmsim._topology import MAX_NODES, topology_svg

REPO = Path(__file__).resolve().parent.parent
SVG = "{http://www.w3.org/2000/svg}"


def run_report(scenario: Path, out: Path) -> str:
    proc = subprocess.run([sys.executable, "-m", "atmsim", "run", str(scenario), "--out", str(out), "--quiet"],
                          capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr
    return (out / "report.html").read_text()


def figure(page: str) -> ET.Element:
    match = re.search(r"<h2>Topology</h2><figure>(<svg.*?</svg>)</figure>", page, re.S)
    assert match, "no topology figure in the report"
    return ET.fromstring(match.group(1))


def texts(svg: ET.Element, cls: str | None = None) -> list[str]:
    return [t.text or "" for t in svg.iter(f"{SVG}text") if cls is None or t.get("class") == cls]


def link_labels(svg: ET.Element) -> dict[str, str]:
    """Link name -> the label under it (rate, delay)."""
    all_texts = list(svg.iter(f"{SVG}text"))
    return {t.text: all_texts[i + 1].text for i, t in enumerate(all_texts) if t.get("class") == "link"}


def test_the_report_names_every_link_with_rate_and_delay_and_every_vc(tmp_path):
    page = run_report(REPO / "scenarios" / "examples" / "greedy_rr.toml", tmp_path / "g")
    svg = figure(page)
    assert link_labels(svg) == {name: "149.8 Mb/s, 0.1 ms" for name in ("a-sw", "b-sw", "c-sw", "sw-sink")}
    assert sorted(texts(svg, "node")) == ["a", "b", "c", "sink", "sw"]
    assert sorted(texts(svg, "vc")) == ["VC va: a → sw → sink", "VC vb: b → sw → sink", "VC vc: c → sw → sink"]
    assert len(list(svg.iter(f"{SVG}line"))) == 4


def test_sites_uplinks_and_a_long_backbone_hop(tmp_path):
    doc = tomllib.loads((REPO / "scenarios" / "internetwork" / "two_sites.toml").read_text())
    doc["simulation"]["duration_s"] = 1.0
    scenario = tmp_path / "two_sites.toml"
    scenario.write_text(tomli_w.dumps(doc))
    svg = figure(run_report(scenario, tmp_path / "t"))
    assert link_labels(svg) == {
        "west-core": "1.536 Mb/s, 5 ms",
        "core-east": "1.536 Mb/s, 30 ms",
        "berkeley-uplink": "1.536 Mb/s, 0 ms",
        "urbana-uplink": "1.536 Mb/s, 0 ms",
    }
    assert "site: 20 ws, 2 srv, router" in texts(svg)


def test_serial_lines_and_lans_are_drawn():
    doc = {
        "host": [{"name": "h1"}, {"name": "h2"}, {"name": "h3"}],
        "router": [{"name": "r1"}, {"name": "r2"}],
        "serial": [{"a": "r1", "b": "r2", "rate_bps": 1.5e6, "delay_ms": 22.5}],
        "lan": [{"name": "west", "members": ["h1", "h2", "r1"], "rate_bps": 10e6}],
        "link": [{"a": "r2", "b": "h3", "preset": "t1", "delay_ms": 1.0}],
    }
    svg = ET.fromstring(topology_svg(doc))
    assert link_labels(svg) == {"r1-r2": "serial 1.5 Mb/s, 22.5 ms", "r2-h3": "1.536 Mb/s, 1 ms"}
    assert "lan: 10 Mb/s, 0.01 ms" in texts(svg)
    assert len(list(svg.iter(f"{SVG}line"))) == 5  # three LAN members, the serial line, the link


def box_x(svg: ET.Element) -> dict[str, float]:
    rects = [r for r in svg.iter(f"{SVG}rect") if r.get("stroke") == "#444"]
    return {name: float(r.get("x")) for r, name in zip(rects, texts(svg, "node"), strict=True)}


def test_a_chain_reads_left_to_right_from_the_first_node():
    doc = {"host": [{"name": "src"}, {"name": "dst"}], "switch": [{"name": "s1"}, {"name": "s2"}],
           "link": [{"a": "dst", "b": "s2", "preset": "oc3c", "delay_ms": 1.0},
                    {"a": "s2", "b": "s1", "preset": "oc3c", "delay_ms": 1.0},
                    {"a": "s1", "b": "src", "preset": "oc3c", "delay_ms": 1.0}]}
    x = box_x(ET.fromstring(topology_svg(doc)))
    assert x["src"] < x["s1"] < x["s2"] < x["dst"]


def test_a_network_too_large_to_read_is_not_drawn():
    hosts = [{"name": f"h{i}"} for i in range(MAX_NODES)]
    doc = {"host": hosts, "switch": [{"name": "sw"}],
           "link": [{"a": h["name"], "b": "sw", "preset": "t1", "delay_ms": 1.0} for h in hosts]}
    assert topology_svg(doc) is None
    doc["host"], doc["link"] = hosts[:-1], doc["link"][:-1]
    assert topology_svg(doc) is not None


def test_results_read_back_from_disk_have_no_scenario_and_no_figure(sample_results, tmp_path):
    from atmsim._plots import write_run_report

    assert sample_results.scenario is None
    assert "<h2>Topology</h2>" not in write_run_report(sample_results, tmp_path).read_text()
