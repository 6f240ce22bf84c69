"""A cell source's `sent_cell_bps` counts the cells that left its adapter, so it cannot
exceed its link's rate; `offered_cell_bps` is the load handed to the adapter, which a greedy
source does not have (it reported 149.95 Mb/s on a 149.76 Mb/s link: its queued backlog)."""

from __future__ import annotations

from pathlib import Path

import pytest

import atmsim

REPO = Path(__file__).resolve().parent.parent
OC3C_BPS = 149.76e6
CELL_S = 424 / OC3C_BPS
PS = 1e-12


def greedy(duration_s: float, sources: int = 1) -> dict:
    return {
        "simulation": {"duration_s": duration_s, "warmup_s": 0.0},
        "host": [{"name": "a"}, {"name": "b"}],
        "link": [{"a": "a", "b": "b", "preset": "oc3c", "delay_ms": 0.0}],
        "vc": [{"name": f"v{i}", "path": ["a", "b"]} for i in range(sources)],
        "cell_source": [{"name": f"g{i}", "vc": f"v{i}", "from": "a", "kind": "greedy"} for i in range(sources)],
    }


def sources(doc: dict) -> list[dict]:
    return atmsim.Scenario.from_dict(doc).run().summary["sources"]


@pytest.mark.parametrize("cells", [1, 2, 353, 100_000])
@pytest.mark.parametrize("offset_s", [-PS, 0.0, PS, CELL_S / 2])
def test_a_greedy_source_sends_at_most_its_link_rate_at_every_cell_boundary(cells, offset_s):
    """Run for a whole number of cell times, a picosecond either side, and half a cell more:
    the cells counted as sent fit in the run (times are whole picoseconds, so the serializer
    may end a cell up to 1 ps early), and a whole cell time is counted once it has passed."""
    duration = cells * CELL_S + offset_s
    (src,) = sources(greedy(duration))
    sent_cells = src["sent_cell_bps"] * duration / 424
    assert sent_cells == pytest.approx(round(sent_cells), abs=1e-6)
    assert round(sent_cells) * CELL_S <= duration + PS
    assert round(sent_cells) >= cells - (1 if offset_s < 0 else 0)
    assert src["offered_cell_bps"] is None  # a greedy source has no offered load
    assert src["cells_sent"] > round(sent_cells)  # the backlog the old figure counted


def test_greedy_sources_sharing_an_adapter_send_at_most_the_link_rate_together():
    srcs = sources(greedy(0.01, sources=3))
    total = sum(s["sent_cell_bps"] for s in srcs)
    assert total <= OC3C_BPS * (1 + PS / 0.01)
    assert total > OC3C_BPS * 0.999


def test_a_poisson_source_keeps_its_offered_load_and_sends_all_it_offers_below_capacity():
    doc = greedy(1.0)
    doc["cell_source"] = [{"name": "p", "vc": "v0", "from": "a", "kind": "poisson", "load_bps": 50e6}]
    (src,) = sources(doc)
    assert src["offered_cell_bps"] == pytest.approx(50e6, rel=0.03)
    assert src["sent_cell_bps"] <= src["offered_cell_bps"]
    assert src["sent_cell_bps"] == pytest.approx(src["offered_cell_bps"], rel=1e-3)


def test_the_cells_sent_are_the_same_whether_ports_are_served_ahead_or_cell_by_cell():
    """At the end of a run a port served ahead and one stepped cell by cell hold the same cell
    on the wire, which counts as not sent in both (it cannot have finished)."""
    s = atmsim.load_scenario(REPO / "scenarios" / "examples" / "greedy_rr.toml")
    ahead = s.run(batching=True).summary
    stepped = s.run(batching=False).summary
    assert [x["sent_cell_bps"] for x in ahead["sources"]] == [x["sent_cell_bps"] for x in stepped["sources"]]
    port = next(p for p in ahead["ports"] if p["name"] == "a->sw")
    assert ahead["sources"][0]["sent_cell_bps"] * ahead["duration_s"] / 424 == pytest.approx(port["cells_tx"])
