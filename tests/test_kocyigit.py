"""Koçyiğit (CLASS) reproduction: the scenario files, shaping granularity, and the paper's
findings on a quick run of `atmsim reproduce kocyigit`."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from atmsim import Scenario
from atmsim.reproduce import kocyigit as k

# 20 Mb/s of cells carries 20e6 * 9140 / (192 * 53) of TCP payload per connection.
CAP20 = 20e6 * 9140 / (192 * 53)
CAP35 = 35e6 * 9140 / (192 * 53)


def test_every_scenario_file_is_valid_and_keeps_the_papers_parameters():
    files = sorted(k.scenario_dir().glob("*.toml"))
    assert len(files) == 16
    for f in files:
        sc = Scenario.from_toml(f).validate()
        doc = sc.doc
        assert [t["window_bytes"] for t in doc["tcp"]] == [60 * 9140] * 4, f
        assert {s["name"]: s["buffer_cells"] for s in doc["switch"]}["sw1"] in (1000, 5000), f
        l0 = next(x for x in doc["link"] if x.get("name") == "L0")
        assert (l0["rate_bps"], l0["delay_ms"]) == (150e6, 2.5)
        assert doc["simulation"]["link_clock_ppm"] == 20.0
        bg = doc["cell_source"][0]
        assert (bg["kind"], bg["mean_cells"], bg["max_cells"]) == ("poisson", 25, 200)
        assert doc["vc"][4]["shape"]["beta"] == 1.2


def test_20_mbps_shaping_caps_each_connection_and_the_background_is_offered():
    s = k.at_background(k.load(1000, "vc20"), 25, 3.0, 1.0).run(seed=1).summary
    for c in s["connections"]:
        assert 0.95 * CAP20 < c["goodput_bps"] <= CAP20 * 1.001, c["goodput_bps"]
    assert s["sources"][0]["kind"] == "poisson"
    assert abs(s["sources"][0]["offered_cell_bps"] / 25e6 - 1) < 0.05


def test_vp_shaping_of_one_connection_per_transmitter_equals_vc_shaping():
    vc = k.at_background(k.load(1000, "vc35"), 25, 2.0, 0.5).run(seed=3).summary
    vp = k.at_background(k.load(1000, "vp35"), 25, 2.0, 0.5).run(seed=3).summary
    assert [c["goodput_bps"] for c in vc["connections"]] == [c["goodput_bps"] for c in vp["connections"]]


@pytest.mark.parametrize("variant", ["vc35", "vp35"])
def test_one_user_shaped_at_4_x_35_mbps_gets_the_shaped_total(variant):
    s = k.at_background(k.load(1000, variant, one_user=True), 0, 3.0, 1.0).run(seed=1).summary
    total = sum(c["goodput_bps"] for c in s["connections"])
    assert abs(total / (4 * CAP35) - 1) < 0.01, total
    for sh in s["shapers"]:
        assert sh["nonconforming_releases"] == 0
    kinds = {sh["kind"] for sh in s["shapers"] if sh["name"] != "bg"}
    assert kinds == ({"host"} if variant == "vp35" else {"vc"})


def test_exact_clocks_lock_senders_out_and_free_clocks_do_not():
    base = k.at_background(k.load(1000, "unshaped"), 0, 6.0, 2.0)
    locked = base.copy().set("simulation.link_clock_ppm", 0.0).run(seed=1).summary
    gp = sorted(c["goodput_bps"] for c in locked["connections"])
    assert gp[:3] == [0.0, 0.0, 0.0] and gp[3] > 130e6, gp
    # With ±20 ppm clocks the others' retransmissions get through (TCP may still be very
    # unfair: that is Reno with tail drop, not the clocks).
    for seed in (1, 2, 3):
        free = sorted(c["goodput_bps"] for c in base.run(seed=seed).summary["connections"])
        assert sum(free[:3]) > 0.1e6, (seed, free)


def test_quick_reproduction_agrees_with_the_papers_main_findings(tmp_path):
    out = tmp_path / "koc"
    proc = subprocess.run([sys.executable, "-m", "atmsim", "reproduce", "kocyigit", "--quiet", "--out", str(out)],
                          capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=900)
    assert proc.returncode == 0, proc.stderr
    html = (out / "report.html").read_text()
    verdicts = re.findall(r"<p><b>(agrees|differs|partly)</b>: paper: ([^(]*)", html)
    assert len(verdicts) == 10, verdicts

    def words(claim: str) -> list[str]:
        return [w for w, text in verdicts if claim in text]

    # 1000 cells: 35 Mb/s >= unshaped (with 5000 cells the full run finds unshaped TCP ahead at
    # some loads: reported, not asserted). Both sizes: 20 Mb/s flat, unshaped least efficient.
    assert words("35 Mb/s shaping is always at least")[0] == "agrees", verdicts
    assert words("with 20 Mb/s shaping") == ["agrees", "agrees"], verdicts
    assert words("the more bursty") == ["agrees", "agrees"], verdicts
    # Efficiency falls once the offered total exceeds L0 (its size is reported as 'partly').
    assert all(w != "differs" for w in words("efficiency becomes very poor")), verdicts
    for png in ("fig3_4_goodput.png", "fig5_6_efficiency.png", "vp1000_goodput.png", "oneuser5000_goodput.png"):
        assert (out / png).stat().st_size > 10_000, png
