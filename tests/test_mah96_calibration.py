"""Mah (1996): the declared calibration (atmsim.reproduce.mah96.calibration) and its study run
(atmsim.reproduce.mah96.calibrate)."""

from __future__ import annotations

import json
import math
import tomllib

import pytest

from atmsim.reproduce import STUDIES, mah96
from atmsim.reproduce.mah96 import calibrate, oracle, report
from atmsim.reproduce.mah96 import calibration as cal
from atmsim.study import Kind, read_verdicts


def test_apply_sets_every_buffer_share_threshold_and_tcp_socket_buffer():
    sc = cal.apply(mah96.scenario("noqos-conv-svc", 10, 60.0), 512, 4096)
    doc = sc.doc
    assert len(doc["switch"]) == 8
    for sw in doc["switch"]:
        assert (sw["buffer_cells"], sw["epd_threshold_cells"]) == (512, 410)  # ⌈0.8 · 512⌉
        assert (sw["vc_buffer_cells"], sw["vc_epd_threshold_cells"]) == (128, 103)  # a quarter; ⌈0.8 · 128⌉
    assert {s["router_buffer_cells"] for s in doc["site"]} == {512}
    for t in doc["traffic"]:
        if t["app"]["kind"] in ("audio", "video"):
            assert "window_bytes" not in t  # UDP: no socket buffer
        else:
            assert t["window_bytes"] == 4096


def test_the_study_file_carries_the_kept_setting():
    with open(mah96.SCENARIO, "rb") as f:
        doc = tomllib.load(f)
    b = cal.KEPT["buffer_cells"]
    for sw in doc["switch"]:
        assert (sw["buffer_cells"], sw["epd_threshold_cells"]) == (b, math.ceil(0.8 * b))
        assert sw["vc_buffer_cells"] == b // 4
    assert {s["router_buffer_cells"] for s in doc["site"]} == {b}
    tcp = [t for t in doc["traffic"] if t["app"]["kind"] not in ("audio", "video")]
    assert {t.get("window_bytes", 8192) for t in tcp} == {cal.KEPT["window_bytes"]}  # 8192: the core's default


def test_the_calibration_set_is_rows_of_the_oracle_and_the_report_calls_them_calibrated():
    ids = {r.id for r in oracle.ROWS}
    assert cal.CALIBRATION_ROWS <= ids
    assert report.CALIBRATED_ROWS == cal.CALIBRATION_ROWS
    kinds = {r.id: report.kind_of(r) for r in oracle.ROWS}
    assert kinds["K-6"] is Kind.VALIDATED  # telnet connect is not in the calibration set
    assert all(kinds[r] is Kind.CALIBRATED for r in cal.CALIBRATION_ROWS)


def _runs(drop=0.00051, med=0.080, p90=0.175, overdue=0.06, queues=None):
    r = {"switch.drop_rate": drop, "switch.drop_rate_queues": drop if queues is None else queues,
         "telnet.response.median": med, "telnet.response.p90": p90, "audio.overdue": overdue}
    return [dict(r), dict(r)]


def test_loss_is_zero_on_the_thesis_and_the_squared_log_distance_off_it():
    assert cal.loss(_runs()) == 0.0
    assert cal.loss(_runs(overdue=0.05)) == 0.0 and cal.loss(_runs(overdue=0.07)) == 0.0  # a range
    assert cal.loss(_runs(med=0.160)) == pytest.approx(math.log(2) ** 2)
    assert cal.loss(_runs(overdue=0.14)) == pytest.approx(math.log(2) ** 2)  # from the range's nearer end
    assert cal.loss(_runs(drop=0.0)) == math.inf
    # The two readings of the drop rate use their own statistic.
    r = _runs(queues=0.00051 * 3)
    assert cal.loss(r, "pooled") == 0.0 and cal.loss(r, "queues") == pytest.approx(math.log(3) ** 2)


def test_best_is_the_least_loss_under_each_reading():
    points = {(256, 4096): _runs(med=0.2), (1024, 8192): _runs(queues=0.01), (2048, 8192): _runs(drop=0.01, queues=0.00051)}
    assert cal.best(points, "pooled") == (1024, 8192)
    assert cal.best(points, "queues") == (2048, 8192)


def test_quick_scale_is_the_cheapest_candidate_within_a_factor_two():
    c = calibrate.Calibration(200, 4000.0, [1])
    full = {"switch.drop_rate": 0.0004, "audio.loss": 0.002, "video.loss": 0.004}
    c.grid[(cal.KEPT["buffer_cells"], cal.KEPT["window_bytes"])] = [full]
    c.scales[(50, 600.0)] = [{"switch.drop_rate": 0.00001, "audio.loss": 0.00003, "video.loss": 0.004}]
    c.scales[(150, 600.0)] = [{k: v * 1.9 for k, v in full.items()}]
    c.scales[(100, 600.0)] = [{k: v * 0.4 for k, v in full.items()}]  # 2.5x too low: fails
    chosen, ratios = calibrate.quick_scale(c)
    assert chosen == (150, 600.0)
    assert ratios[(50, 600.0)]["switch.drop_rate"] == pytest.approx(0.025)
    v = {x.row: x for x in calibrate.verdicts(c)}["quick scale"]
    assert (v.kind, str(v.outcome)) == (Kind.MODEL, "agrees") and "150" in v.detail
    del c.scales[(150, 600.0)]
    assert calibrate.quick_scale(c)[0] is None
    assert str({x.row: x for x in calibrate.verdicts(c)}["quick scale"].outcome) == "differs"


def test_quick_mode_is_the_scale_the_calibration_chose():
    assert (mah96.QUICK.workstations, mah96.QUICK.duration_s) == cal.QUICK_SCALE


def test_calibration_is_registered_and_runs_end_to_end(tmp_path):
    assert STUDIES["mah96-calibration"] == "atmsim.reproduce.mah96.calibrate"
    out = tmp_path / "cal"
    path = calibrate.run(out, workstations=8, duration_s=60.0, seeds="1-2", buffers=(256, 1024), windows=(4096, 8192),
                         scales=((4, 60.0), (8, 30.0)), jobs=2)
    res = json.loads((out / "calibration.json").read_text())
    assert set(res["best"]) == {"pooled", "queues"} and not res["at_scale"]
    assert set(res["loss"]) == {"256,4096", "256,8192", "1024,4096", "1024,8192"}
    page = path.read_text()
    assert "Declared before the fit" in page and "not the thesis' scale" in page
    assert (out / "calibration_loss_pooled.png").stat().st_size > 1000
    rows = (out / "calibration.csv").read_text().splitlines()
    assert len(rows) == 1 + 4
    verdicts = {v.row: v for v in read_verdicts(out)}
    for t in cal.TARGETS:  # at a reduced scale the levels are not judged
        assert verdicts[f"cal {t.row}"].kind is Kind.CALIBRATED
        assert str(verdicts[f"cal {t.row}"].outcome) == "not comparable"
    # Again: every run is in the store, nothing is simulated twice.
    again = calibrate.collect(8, 60.0, [1, 2], store=out / "results.duckdb", jobs=2, buffers=(256, 1024),
                              windows=(4096, 8192), scales=((4, 60.0), (8, 30.0)))
    assert again.grid.keys() == {(256, 4096), (256, 8192), (1024, 4096), (1024, 8192)}
    assert all(len(v) == 2 for v in again.grid.values())
    assert again.ran == 0


def test_calibrated_rows_are_judged_at_scale_within_a_quarter_of_the_thesis():
    c = calibrate.Calibration(200, 4000.0, [1, 2])
    kept = (cal.KEPT["buffer_cells"], cal.KEPT["window_bytes"])
    c.grid[kept] = _runs(drop=0.00051 * 1.2, p90=0.175 * 1.3)  # inside 25 %, and outside it
    v = {x.row: x for x in calibrate.verdicts(c)}
    assert {str(v[f"cal {t.row}"].kind) for t in cal.TARGETS} == {"calibrated"}
    assert str(v["cal M-15 levels"].outcome) == "agrees" and str(v["cal K-10"].outcome) == "agrees"
    assert str(v["cal K-11"].outcome) == "differs"
    assert v["cal K-11"].ours == pytest.approx(0.175 * 1.3)
