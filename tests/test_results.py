"""Results: tidy views, parquet round trip, atomic save. No simulator needed."""

from __future__ import annotations

import json
import os

import pandas as pd
import pyarrow.parquet as pq
import pytest

from atmsim import Results
from atmsim._run_results import SERIES_FILE, SUMMARY_FILE


def test_series_frame_shape(sample_results):
    s = sample_results.series
    assert list(s.columns) == ["time_s", "entity", "metric", "value"]
    assert len(s) == 7
    assert s["time_s"].dtype == "float64" and s["value"].dtype == "float64"


def test_series_accepts_plain_lists(sample_core_output):
    raw = sample_core_output
    raw["series"] = {k: list(v) for k, v in raw["series"].items()}
    raw["summary"] = json.dumps(raw["summary"])  # the core may also hand back JSON text
    r = Results.from_core(raw)
    assert r.series["value"].tolist() == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 42.0]
    assert r.summary["seed"] == 7


@pytest.mark.parametrize(
    ("view", "column", "values"),
    [
        ("connections", "name", ["tcp0", "tcp1"]),
        ("connections", "goodput_bps", [64.0e6, 60.5e6]),
        ("ports", "dropped_cells", [120, 0]),
    ],
)
def test_summary_views(sample_results, view, column, values):
    assert getattr(sample_results, view)()[column].tolist() == values


def test_views_of_empty_summary():
    r = Results({}, pd.DataFrame(columns=["time_s", "entity", "metric", "value"]))
    assert r.connections().empty and r.ports().empty


@pytest.mark.parametrize(
    ("metric", "entity", "columns", "first_row"),
    [
        ("cwnd_bytes", None, ["tcp0", "tcp1"], [1.0, 2.0]),
        ("cwnd_bytes", "tcp1", ["tcp1"], [2.0]),
        ("queue_cells", None, ["sw0.p1"], [42.0]),
    ],
)
def test_trace_is_wide(sample_results, metric, entity, columns, first_row):
    wide = sample_results.trace(metric, entity)
    assert list(wide.columns) == columns
    assert wide.index.name == "time_s"
    assert wide.iloc[0].tolist() == first_row


def test_trace_of_unknown_metric_is_empty(sample_results):
    assert sample_results.trace("nope").empty


def test_save_and_load_round_trip(sample_results, tmp_path):
    out = sample_results.save(tmp_path / "a" / "b")
    assert sorted(os.listdir(out)) == [SERIES_FILE, SUMMARY_FILE]
    back = Results.load(out)
    assert back.summary == sample_results.summary
    pd.testing.assert_frame_equal(back.series, sample_results.series)
    assert pq.read_table(out / SERIES_FILE).column_names == ["time_s", "entity", "metric", "value"]


def test_save_replaces_earlier_results_and_keeps_other_files(sample_results, tmp_path):
    out = tmp_path / "run"
    out.mkdir()
    (out / SUMMARY_FILE).write_text("{}")
    (out / "notes.txt").write_text("mine")
    sample_results.save(out)
    assert json.loads((out / SUMMARY_FILE).read_text())["seed"] == 7
    assert (out / "notes.txt").read_text() == "mine"
    assert sorted(os.listdir(tmp_path)) == ["run"]  # no staging leftovers


def _snapshot(directory):
    return {p.name: p.read_bytes() for p in directory.iterdir()}


@pytest.mark.parametrize("fail_at", ["summary", "series"])
def test_failed_save_leaves_existing_results_untouched(sample_results, tmp_path, monkeypatch, fail_at):
    out = tmp_path / "run"
    sample_results.save(out)
    before = _snapshot(out)

    def boom(*args, **kwargs):
        raise OSError("disk full (simulated)")

    target = "json.dump" if fail_at == "summary" else "pyarrow.parquet.write_table"
    monkeypatch.setattr(target, boom)
    changed = Results({"seed": 99, "connections": []}, sample_results.series.iloc[:2])
    with pytest.raises(OSError, match="simulated"):
        changed.save(out)
    assert _snapshot(out) == before
    assert sorted(os.listdir(tmp_path)) == ["run"]


def test_failed_first_save_creates_nothing(sample_results, tmp_path, monkeypatch):
    monkeypatch.setattr("pyarrow.parquet.write_table", lambda *a, **k: (_ for _ in ()).throw(OSError("simulated")))
    with pytest.raises(OSError):
        sample_results.save(tmp_path / "fresh")
    assert os.listdir(tmp_path) == []


def test_save_onto_a_file_fails_cleanly(sample_results, tmp_path):
    target = tmp_path / "taken"
    target.write_text("x")
    with pytest.raises(NotADirectoryError):
        sample_results.save(target)
    assert target.read_text() == "x"
    assert sorted(os.listdir(tmp_path)) == ["taken"]
