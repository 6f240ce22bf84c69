"""``atmsim report``: the HTML report of a results store, built here with duckdb directly."""

from __future__ import annotations

import csv
import json
import re
import subprocess
import sys
from pathlib import Path

import duckdb
import numpy as np
import pytest

from atmsim import stats
from atmsim._report_store import StoreError, axis_label, write_store_report
from atmsim._store import Store

WINDOWS = [8192, 65536]
BUFFERS = [256, 1024]
SEEDS = [1, 2, 3]


def goodput(window: int, buffer: int, seed: int, conn: int) -> float:
    """Synthetic but seed-dependent goodput: grows with the window and the buffer."""
    return 1e6 * (window / 1024) * (1 + buffer / 4096) * (1 + 0.05 * ((seed * 7 + conn * 3) % 5)) / (1 + conn)


def make_store(path: Path, *, one_param: bool = False) -> Path:
    con = duckdb.connect(str(path))
    Store(path).init(con)  # the store's own tables and schema version
    buffers = BUFFERS[:1] if one_param else BUFFERS
    grid = {"tcp[0].window_bytes": WINDOWS, "switch[0].buffer_cells": buffers}
    con.execute(
        "INSERT INTO sweeps VALUES (?, ?, ?, ?, TIMESTAMP '2024-05-01 12:00:00')",
        ["sw1", "contention_tcp", json.dumps(grid), json.dumps(SEEDS)],
    )
    for w in WINDOWS:
        for b in buffers:
            for seed in SEEDS:
                rid = f"w{w}-b{b}-s{seed}"
                params = json.dumps({"tcp[0].window_bytes": w, "switch[0].buffer_cells": b})
                con.execute(
                    "INSERT INTO runs VALUES (?, 'sw1', 'contention_tcp', ?, '{}', ?, 'ok', NULL, NULL, '0.1.0', NULL, 0.5, NULL, NULL)",
                    [rid, params, seed],
                )
                rows = []
                for c in range(2):
                    rows += [
                        (rid, f"conn:t{c}", "goodput_bps", goodput(w, b, seed, c)),
                        (rid, f"conn:t{c}", "rexmt_segs", float((seed + c) % 3)),
                        (rid, f"conn:t{c}", "timeouts", float(seed % 2)),
                    ]
                rows += [
                    (rid, "port:sw->h", "drops", float(100 * seed + w // 1024)),
                    (rid, "port:sw->h", "utilization", 0.5 + 0.01 * seed),
                    (rid, "port:a->sw", "drops", 0.0),
                    (rid, "port:a->sw", "utilization", 0.3),
                    (rid, "run", "events", 1e6),
                    (rid, "conservation", "cells_in_flight", 0.0),
                ]
                con.executemany("INSERT INTO metrics VALUES (?, ?, ?, ?)", rows)
    con.execute(
        "INSERT INTO runs VALUES ('bad', 'sw1', 'contention_tcp', ?, '{}', 4, 'failed', "
        "'expected a positive rate', 'link[2].rate_bps', '0.1.0', NULL, 0.0, NULL, NULL)",
        [json.dumps({"tcp[0].window_bytes": 0, "switch[0].buffer_cells": 256})],
    )
    con.close()
    return path


@pytest.fixture
def store(tmp_path) -> Path:
    return make_store(tmp_path / "results.duckdb")


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    """One report of the two-parameter store, shared by the tests that only read it."""
    base = tmp_path_factory.mktemp("report")
    out = base / "report"
    assert write_store_report(make_store(base / "results.duckdb"), out) == out / "report.html"
    return out


def test_report_has_tables_and_figures(report):
    out = report
    text = (out / "report.html").read_text()
    assert "sweep sw1" in text and "contention_tcp" in text
    # grid table, run counts, the failed run with its error
    assert "<th>parameter</th><th>values</th>" in text and "8192, 65536" in text
    assert "<td>13</td><td>12</td><td>1</td>" in text
    assert "expected a positive rate" in text and "link[2].rate_bps" in text
    images = re.findall(r'<img src="([^"]+)"', text)
    # 2 varying params x 7 aggregate key metrics (per-port figures only when one param varies)
    assert len(images) == 14
    for name in images:
        png = out / name
        assert png.exists() and png.stat().st_size > 15_000
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (out / "summary.csv").exists()


def test_ci_in_page_and_csv_equals_mean_ci(report):
    out = report
    w, b = 65536, 1024
    totals = [goodput(w, b, s, 0) + goodput(w, b, s, 1) for s in SEEDS]
    ci = stats.mean_ci(totals, 0.95)
    with open(out / "summary.csv", newline="") as f:
        rows = [
            r
            for r in csv.DictReader(f)
            if r["key"] == "total_goodput_bps" and r["param:tcp[0].window_bytes"] == str(w) and r["param:switch[0].buffer_cells"] == str(b)
        ]
    assert len(rows) == 1
    row = rows[0]
    assert int(row["n"]) == 3
    assert float(row["mean"]) == pytest.approx(ci.estimate, rel=1e-12)
    assert float(row["ci_low"]) == pytest.approx(ci.low, rel=1e-12)
    assert float(row["ci_high"]) == pytest.approx(ci.high, rel=1e-12)
    # the page shows it in Mb/s as mean ± half-width
    cell = f"{ci.estimate * 1e-6:.4g} ± {ci.half_width * 1e-6:.4g}"
    assert cell in (out / "report.html").read_text()


def test_jain_index_is_a_metric(report):
    out = report
    with open(out / "summary.csv", newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["key"] == "jain_goodput"]
    assert len(rows) == 4
    w, b = 8192, 256
    expected = stats.mean_ci([stats.jain([goodput(w, b, s, 0), goodput(w, b, s, 1)]) for s in SEEDS])
    row = next(r for r in rows if r["param:tcp[0].window_bytes"] == str(w) and r["param:switch[0].buffer_cells"] == str(b))
    assert float(row["mean"]) == pytest.approx(expected.estimate)
    assert 0.5 <= float(row["mean"]) <= 1.0


def test_one_varying_parameter_gets_per_port_figures(tmp_path):
    store = make_store(tmp_path / "one.duckdb", one_param=True)
    out = tmp_path / "r1"
    text = write_store_report(store, out, sweep="sw1").read_text()
    images = re.findall(r'<img src="([^"]+)"', text)
    assert any("port_drops_cells" in i for i in images)
    assert any("port_utilization" in i for i in images)
    assert all("buffer_cells" not in i.split("__vs__")[1] for i in images)


def test_unknown_sweep_is_an_error(store, tmp_path):
    with pytest.raises(StoreError, match="no sweep `nope`"):
        write_store_report(store, tmp_path / "r", sweep="nope")


def test_empty_store(tmp_path):
    path = tmp_path / "empty.duckdb"
    con = duckdb.connect(str(path))
    Store(path).init(con)  # the store's own tables and schema version
    con.close()
    text = write_store_report(path, tmp_path / "r").read_text()
    assert "no runs" in text


@pytest.mark.parametrize(
    "name,label,scale",
    [
        ("tcp[0].window_bytes", "tcp[0].window [bytes]", 1.0),
        ("goodput_bps", "goodput [Mb/s]", 1e-6),
        ("link[0].delay_ms", "link[0].delay [ms]", 1.0),
        ("duration_s", "duration [s]", 1.0),
        ("switch[0].buffer_cells", "switch[0].buffer [cells]", 1.0),
        ("jain_goodput", "jain goodput", 1.0),
    ],
)
def test_axis_labels_from_suffixes(name, label, scale):
    assert axis_label(name) == (label, scale)


# ----- the command -------------------------------------------------------------------------


def atmsim_cli(*args: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "atmsim", *args], capture_output=True, text=True, cwd=cwd, stdin=subprocess.DEVNULL, timeout=120)


def test_cli_report_defaults(tmp_path):
    make_store(tmp_path / "results.duckdb", one_param=True)  # the default STORE, in the working directory
    proc = atmsim_cli("report", "--sweep", "sw1", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "report" / "report.html").exists()  # the default --out
    assert proc.stderr.strip() == f"wrote {Path('report') / 'report.html'}"


@pytest.mark.parametrize("kind", ["missing", "text", "no_tables", "directory", "unknown_sweep"])
def test_cli_bad_store_is_one_line_exit_2(kind, store, tmp_path):
    args = []
    if kind == "missing":
        path = tmp_path / "nope.duckdb"
    elif kind == "text":
        path = tmp_path / "bad.duckdb"
        path.write_text("not a database\n" * 100)
    elif kind == "no_tables":
        path = tmp_path / "other.duckdb"
        duckdb.connect(str(path)).close()
    elif kind == "directory":
        path = tmp_path
    else:
        path, args = store, ["--sweep", "nope"]
    proc = atmsim_cli("report", str(path), "--out", str(tmp_path / "rep"), *args)
    assert proc.returncode == 2
    assert len(proc.stderr.splitlines()) == 1 and proc.stderr.startswith("error: "), proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr
    assert not (tmp_path / "rep").exists()


def test_summary_values_are_finite_for_three_seeds(report):
    with open(report / "summary.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert rows and all(np.isfinite(float(r["ci_low"])) for r in rows)


def test_categorical_parameter_single_seed_and_runs_without_a_sweep(tmp_path):
    path = tmp_path / "cat.duckdb"
    con = duckdb.connect(str(path))
    Store(path).init(con)  # the store's own tables and schema version
    con.execute("INSERT INTO sweeps VALUES ('sched', 'greedy_rr', ?, '[1]', NULL)", [json.dumps({"port.scheduler": ["fifo", "rr"]})])
    for i, (sweep, sched) in enumerate([("sched", "fifo"), ("sched", "rr"), (None, "rr")]):
        rid = f"r{i}"
        con.execute(
            "INSERT INTO runs VALUES (?, ?, 'greedy_rr', ?, '{}', 1, 'ok', NULL, NULL, '0.1.0', NULL, 0.1, NULL, NULL)",
            [rid, sweep, json.dumps({"port.scheduler": sched})],
        )
        con.executemany(
            "INSERT INTO metrics VALUES (?, ?, 'goodput_bps', ?)",
            [(rid, "conn:a", 10e6 + i), (rid, "conn:b", 20e6 - i)],
        )
    con.close()
    out = tmp_path / "r"
    text = write_store_report(path, out).read_text()
    assert "sweep sched" in text and "runs without a sweep" in text
    assert "(n=1)" in text  # one seed: the mean without an interval
    images = re.findall(r'<img src="([^"]+)"', text)
    assert images and all("port.scheduler" in i for i in images)
    with open(out / "summary.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert {r["param:port.scheduler"] for r in rows if r["sweep_id"] == "sched"} == {"fifo", "rr"}
    assert all(r["ci_low"] == "" for r in rows)
