"""The tables `atmsim run` prints, on small shipped scenarios: utilisation, queues, drops and
loss per port, idle ports left out, cell sources' rates, traffic generators, and every
number in one notation with four significant figures."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import tomli_w

from atmsim._run_tables import column

REPO = Path(__file__).resolve().parent.parent
NUMBER = re.compile(r"^(-?\d+|-?\d+\.\d+|<0\.0001|0|—)$")


def run_cli(scenario: Path, out: Path) -> str:
    proc = subprocess.run(
        [sys.executable, "-m", "atmsim", "run", str(scenario), "--out", str(out), "--no-plot"],
        capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def table(text: str, title: str) -> tuple[list[str], list[list[str]], str]:
    """(headings, rows, caption) of the table printed under ``title``."""
    lines = text.splitlines()
    start = lines.index(next(ln for ln in lines if ln.strip() == title))
    head = [c.strip() for c in lines[start + 2].strip("┃").split("┃")]
    rows, k = [], start + 4
    while lines[k].startswith("│"):
        rows.append([c.strip() for c in lines[k].strip("│").split("│")])
        k += 1
    caption = lines[k + 1].strip() if k + 1 < len(lines) and not lines[k + 1].startswith(("┏", "wrote")) else ""
    return head, rows, caption


def four_figures(cell: str) -> bool:
    """A fixed-point number with four significant figures (or an integer, 0, <0.0001, —)."""
    if not NUMBER.match(cell) or "." not in cell or cell.startswith("<"):
        return bool(NUMBER.match(cell))
    return len(cell.lstrip("-").replace(".", "").lstrip("0")) == 4


def test_greedy_sources_ports_and_idle_ports(tmp_path):
    out = tmp_path / "g"
    text = run_cli(REPO / "scenarios" / "examples" / "greedy_rr.toml", out)
    summary = json.loads((out / "summary.json").read_text())

    head, rows, _ = table(text, "cell sources")
    assert head == ["name", "kind", "sent Mb/s", "offered Mb/s", "goodput Mb/s"]
    for row, src in zip(rows, summary["sources"], strict=True):
        assert row[:2] == [src["name"], "greedy"]
        assert row[2] == "149.8" and src["sent_cell_bps"] <= 149.76e6 * (1 + 1e-9)
        assert row[3] == "—"  # a greedy source has no offered load
        assert float(row[4]) == pytest.approx(src["goodput_bps"] / 1e6, rel=1e-3)

    head, rows, caption = table(text, "ports")
    assert head == ["name", "rate Mb/s", "utilisation %", "mean queue", "max queue", "dropped", "loss %"]
    carried = [p for p in summary["ports"] if p["cells_in"] or p["cells_tx"]]
    assert [r[0] for r in rows] == [p["name"] for p in carried] == ["a->sw", "b->sw", "c->sw", "sw->sink"]
    assert caption == f"{len(summary['ports']) - len(carried)} ports carried nothing (not shown)" != ""
    sink = dict(zip(head, rows[-1], strict=True))
    port = carried[-1]
    assert int(sink["dropped"]) == port["drops"] > 0
    assert float(sink["loss %"]) == pytest.approx(100 * port["drops"] / port["cells_in"], rel=1e-3)
    assert float(sink["utilisation %"]) == pytest.approx(100 * port["utilization"], rel=1e-3)
    assert int(sink["max queue"]) == port["max_queue_cells"]
    assert all(four_figures(c) for r in rows for c in r[1:]), rows


def test_connections_show_goodput_retransmissions_and_timeouts(tmp_path):
    out = tmp_path / "c"
    text = run_cli(REPO / "scenarios" / "examples" / "contention_tcp.toml", out)
    summary = json.loads((out / "summary.json").read_text())
    head, rows, _ = table(text, "connections")
    assert head[:4] == ["name", "goodput Mb/s", "retransmitted segs", "timeouts"]
    for row, conn in zip(rows, summary["connections"], strict=True):
        assert float(row[1]) == pytest.approx(conn["goodput_bps"] / 1e6, rel=1e-3)
        assert int(row[2]) == conn["rexmt_segs"] and int(row[3]) == conn["timeouts"]
    _, ports, _ = table(text, "ports")
    assert all(four_figures(c) for r in ports for c in r[1:]), ports
    assert "e-0" not in text and "e+0" not in text


def test_traffic_generators_and_lines_of_an_internetwork(tmp_path):
    doc = tomllib.loads((REPO / "scenarios" / "internetwork" / "two_sites.toml").read_text())
    doc["simulation"].update(duration_s=5.0, warmup_s=0.0)
    scenario = tmp_path / "two_sites.toml"
    scenario.write_text(tomli_w.dumps(doc))
    out = tmp_path / "t"
    text = run_cli(scenario, out)
    summary = json.loads((out / "summary.json").read_text())
    head, rows, _ = table(text, "traffic")
    assert head == ["name", "app", "started", "completed", "aborted", "skipped", "open at end", "max open",
                    "median s", "90th pct s"]
    assert [r[0] for r in rows] == [g["name"] for g in summary["traffic"]]
    for row, gen in zip(rows, summary["traffic"], strict=True):
        assert [int(c) for c in row[2:8]] == [gen[k] for k in ("started", "completed", "aborted", "skipped",
                                                                "open_at_end", "max_open")]
    _, lines, _ = table(text, "lines")
    assert {r[0] for r in lines} == {ln["name"] for ln in summary["lines"] if ln["sent"] or ln["dropped"]}


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ([9.21651e-05, 0.000233586], ["<0.0001", "0.0002336"]),
        ([149.76, 44.982, 0.5], ["149.8", "44.98", "0.5000"]),
        ([9.99996, 0.0, None, 12], ["10.00", "0", "—", "12"]),
        ([2.5e6, 3.0], ["2.500e+06", "3.000e+00"]),
    ],
)
def test_a_column_has_one_notation_and_four_significant_figures(values, expected):
    assert column(values) == expected
