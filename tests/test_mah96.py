"""Mah (1996) reproduction: the per-run statistics, the verdict rules, and a tiny end-to-end
run of the seven noqos configurations (8 workstations per site, 120 s, 3 seeds)."""

from __future__ import annotations

import copy
import csv
import math
import re

import pytest

from atmsim.errors import ScenarioError
from atmsim.reproduce import STUDIES, mah96
from atmsim.reproduce.mah96 import oracle as o
from atmsim.reproduce.mah96 import tables as t
from atmsim.study import Kind, read_verdicts

# ----- extraction, on a hand-built summary --------------------------------------------------


def _router(site: str, setups: int, hits: int, peak: int, max_vcs: int) -> dict:
    return {"name": f"{site}-router", "router": True,
            "ipoa": {"setups_requested": setups, "cache_hits": hits, "peak_setups_per_s": peak, "max_vcs_in_use": max_vcs}}


def _metric(n: int, median: float | None, p90: float | None) -> dict:
    return {"n": n, "mean": median, "median": median, "p90": p90}


SUMMARY = {
    "duration_s": 100.0,
    "hosts": [
        _router("berkeley", 100, 900, 7, 40), _router("lbl", 50, 0, 30, 12), _router("llnl", 50, 0, 2, 12),
        _router("illinois", 100, 300, 9, 55), _router("wisconsin", 50, 0, 1, 9), _router("rutgers", 50, 0, 3, 9),
        {"name": "berkeley-ws0", "router": False},
    ],
    "ports": [
        {"name": "HW->HE", "cells_in": 1000, "drops": 5, "utilization": 0.5},
        {"name": "HE->HW", "cells_in": 0, "drops": 0, "utilization": 0.7},
        {"name": "S1->berkeley-router", "cells_in": 500, "drops": 1},
        {"name": "S4->HE", "cells_in": 500, "drops": 0},
        # A router's adapter is not a switch queue: its drops must not count.
        {"name": "berkeley-router->S1", "cells_in": 10_000, "drops": 400},
    ],
    "applications": {
        "telnet": {"metrics": {"connect_s": _metric(3, 0.2, 0.3), "response_s": _metric(50, 0.08, 0.17)}},
        "ftp": {"metrics": {"file_s": _metric(10, 0.5, 2.5), "session_s": _metric(0, None, None)}},
        "http": {"metrics": {"item_s": _metric(40, 0.3, 1.0)}},
        "audio": {"metrics": {}, "media": {"sent": 1010, "delivered": 990, "lost": 10, "in_flight_at_end": 10, "late": 99}},
        "video": {"metrics": {}, "media": {"sent": 500, "delivered": 480, "lost": 20, "in_flight_at_end": 0, "late": 0}},
    },
}


def test_switch_drop_rate_counts_switch_output_queues_only():
    assert t.is_switch_port("S1->berkeley-router") and t.is_switch_port("HW->HE")
    assert not t.is_switch_port("berkeley-router->S1")
    assert t.switch_drop_rate(SUMMARY) == pytest.approx(6 / 2000)


def test_hit_rate_setup_rate_peaks_and_vcs():
    r = t.run_stats(SUMMARY)
    # 1200 hits, 400 setups over the six routers.
    assert r["vc.hit_rate"] == pytest.approx(1200 / 1600)
    assert r["vc.setups"] == 400
    # Per router per second: 400 / (6 routers × 100 s).
    assert r["vc.rate"] == pytest.approx(400 / 600)
    assert r["vc.peak"] == 30  # lbl
    assert r["vc.peak_busy"] == 9  # berkeley and illinois only (§6.6 fn 4)
    assert r["vc.max_in_use"] == 55
    assert r["bottleneck.util"] == 0.7  # the busier direction of the 30 ms hub link


def test_media_rates_exclude_packets_in_flight_and_missing_metrics_are_none():
    r = t.run_stats(SUMMARY)
    assert r["audio.loss"] == pytest.approx(10 / 1000)  # not 10 / 1010
    assert r["audio.overdue"] == pytest.approx(99 / 990)
    assert r["video.loss"] == pytest.approx(20 / 500)
    assert r["telnet.connect.p90"] == 0.3 and r["ftp.file.median"] == 0.5
    assert r["ftp.session.median"] is None and r["http.page.p90"] is None


# ----- the verdict rules, on constructed per-run values ---------------------------------------


def test_three_against_three_without_overlap_is_significant_at_90_percent():
    x = o.shift_test([1.0, 2.0, 3.0], [4.0, 5.0, 6.0])
    # The 90 % interval of 3 vs 3 is the range of the nine differences B − A: [1, 5].
    assert (x.low, x.high, x.achieved) == (1.0, 5.0, pytest.approx(0.9))
    assert x.sig90 and x.direction == "higher" and x.sig_level == pytest.approx(0.9)
    assert o.judge_test(x, "higher", True) and not o.judge_test(x, "lower", True)
    assert not o.judge_test(x, "higher", False)  # the thesis says "not significant"


def test_overlapping_triples_are_not_significant_at_90_percent():
    # B − A: 2, 1, −2, 3, 2, −1, 5, 4, 1 → 90 %: [−2, 5]; 80 %: [−1, 4]; 60 %: [1, 3].
    x = o.shift_test([1.0, 2.0, 5.0], [3.0, 4.0, 6.0])
    assert (x.low, x.high) == (-2.0, 5.0) and not x.sig90
    assert x.sig_level == pytest.approx(0.6) and x.sig_text() == "sig. only at 60 %"
    assert not o.judge_test(x, "higher", True)
    assert o.judge_test(x, "higher", False) and not o.judge_test(x, "lower", False)
    assert o.judge_test(x, "higher", None)


def test_chance_allowance_is_the_binomial_95th_percentile():
    # Binomial(6, 0.1): P(X ≤ 1) = 0.886, P(X ≤ 2) = 0.984; Binomial(30, 0.1): P(X ≤ 5) = 0.927, P(X ≤ 6) = 0.974.
    assert o.chance_allowance(6, 0.9) == 2
    assert o.chance_allowance(30, 0.9) == 6
    assert o.chance_allowance(6, 1.0) == 0


def _runs(config_values: dict[str, list[float]], key: str) -> dict[str, list[dict]]:
    return {c: [{key: v} for v in vs] for c, vs in config_values.items()}


def test_level_rows_tolerance_and_scale():
    row = next(r for r in o.ROWS if r.id == "V-15")  # 168,936 setups per run, ± 25 %
    ok = _runs({"noqos-conv-svc": [150_000, 160_000, 170_000]}, "vc.setups")
    assert o.judge(row, ok, True, "full").word == o.AGREES
    low = _runs({"noqos-conv-svc": [100_000, 110_000, 120_000]}, "vc.setups")
    assert o.judge(row, low, True, "full").word == o.DIFFERS  # 110,000 < 0.75 × 168,936
    assert o.judge(row, ok, False, "quick").word == o.NOT_COMPARABLE
    # M-8: every router run within 30–48, no tolerance, at any scale.
    m8 = next(r for r in o.ROWS if r.id == "M-8")
    good = {"noqos-router-pvc": [30, 30, 30], "noqos-router-svc": [33, 48, 41], "noqos-router-svccache": [30, 30, 30]}
    assert o.judge(m8, _runs(good, "vc.setups"), False, "quick").word == o.AGREES
    assert o.judge(m8, _runs(good | {"noqos-router-svc": [33, 49, 41]}, "vc.setups"), False, "quick").word == o.DIFFERS
    # Hit rates: ± 2 points around 97–98 %.
    v12 = next(r for r in o.ROWS if r.id == "V-12")
    assert o.judge(v12, _runs({"noqos-app-svccache": [0.96] * 3, "noqos-conv-svccache": [0.951] * 3}, "vc.hit_rate"), False, "q").word == o.AGREES
    assert o.judge(v12, _runs({"noqos-app-svccache": [0.96] * 3, "noqos-conv-svccache": [0.94] * 3}, "vc.hit_rate"), False, "q").word == o.DIFFERS


def test_every_unjudged_row_is_listed_not_comparable_with_its_reason():
    qos = [r for r in o.ROWS if r.kind == "qos"]
    assert all(o.judge(r, {}, True, "").word == o.NOT_COMPARABLE and o.judge(r, {}, True, "").reason for r in qos)
    ids = {r.id.split()[0] for r in o.ROWS}
    assert {f"M-{i}" for i in range(1, 21)} <= ids and {f"V-{i}" for i in range(1, 22)} <= ids | {"V-15/16", "V-17/18", "V-19/20"}


# ----- end to end, tiny ---------------------------------------------------------------------


#: The tiny study: the seven noqos configurations and three QoS ones.
TINY_QOS = ("sp-ftp-conv-svc", "wc-ftp-conv-svccache", "nwc-http-app-svc")


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    out = tmp_path_factory.mktemp("mah96")
    mode = mah96.Mode(8, 120.0, 3, o.CONFIGS + TINY_QOS)
    study = mah96.collect(mode, [1, 2, 3], store=out / "results.duckdb", jobs=2)
    report = mah96.report.write(study, out)
    return study, out, report


def test_study_is_registered():
    assert STUDIES["mah96"] == "atmsim.reproduce.mah96"


def test_configurations_and_common_seeds_in_the_store(tiny):
    import atmsim

    study, out, _ = tiny
    assert list(study.summaries) == [*o.CONFIGS, *TINY_QOS] and study.ran == 30
    runs = atmsim.results(store=out / "results.duckdb", wide=True)
    assert len(runs) == 30 and set(runs["status"]) == {"ok"}
    for c in study.summaries:
        qos, mux, vc = o.parse(c)
        ipoa = {"mux": mux, "vc": vc} | ({} if qos == "noqos" else {"qos": qos})
        mine = runs[[p == ipoa for p in runs[mah96.IPOA_PATH]]]
        assert sorted(mine["seed"]) == [1, 2, 3], c
        assert all(s["duration_s"] == 120.0 for s in study.summaries[c])
    # Guaranteed VCs are requested only under a QoS policy that favours something.
    st = study.stats
    assert all(r["vc.guaranteed_failure_rate"] is None for c in o.CONFIGS for r in st[c])
    assert all(r["vc.guaranteed_failure_rate"] is not None for c in TINY_QOS[1:] for r in st[c])


def test_a_study_resumes_from_its_store(tiny):
    """Run again into the same store: nothing is simulated and the statistics are the same."""
    study, out, _ = tiny
    again = mah96.collect(study.mode, study.seeds, store=out / "results.duckdb", jobs=2)
    assert again.ran == 0 and again.stats == study.stats


def test_configuration_patterns():
    assert mah96.select("noqos-*") == o.CONFIGS
    assert mah96.select("wc-ftp-*,nwc-ftp-conv-svc") == (
        "wc-ftp-app-svc", "wc-ftp-app-svccache", "wc-ftp-conv-svc", "wc-ftp-conv-svccache", "nwc-ftp-conv-svc")
    assert len(mah96.select(None)) == 103
    with pytest.raises(ScenarioError, match="no configuration matches 'sp-mail-\\*'"):
        mah96.select("sp-mail-*")


def test_tiny_run_physics(tiny):
    study, _, _ = tiny
    st = study.stats
    setups = {c: [r["vc.setups"] for r in rs] for c, rs in st.items()}
    # Router multiplexing with VCs that are never torn down (pvc) or kept for 300 s in a
    # 120 s run (svccache): exactly the 6·5 mesh, in every run; svc adds a setup per idle
    # timeout, far fewer than per-conversation VCs.
    assert setups["noqos-router-pvc"] == [30, 30, 30] and setups["noqos-router-svccache"] == [30, 30, 30]
    assert all(30 <= s < 0.1 * c for s, c in zip(setups["noqos-router-svc"], setups["noqos-conv-svc"]))
    # Caching absorbs most conversation VC requests, even in a cold 120 s run.
    assert all(s > 2 * c for s, c in zip(setups["noqos-conv-svc"], setups["noqos-conv-svccache"]))
    assert all(r["vc.hit_rate"] > 0.5 for r in st["noqos-conv-svccache"])
    assert all(r["vc.hit_rate"] == 0 for r in st["noqos-conv-svc"])
    # A VC per conversation is a VC setup before every telnet connect; router VCs exist already.
    assert all(r["telnet.connect.median"] < c["telnet.connect.median"] for r, c in zip(st["noqos-router-svc"], st["noqos-conv-svc"]))
    # §6.5: pvc and svccache are the same network under router multiplexing.
    assert study.pvc_vs_svccache() == [[], [], []]


def test_tiny_report_has_a_verdict_for_every_row(tiny):
    _study, out, report = tiny
    page = report.read_text()
    rows = list(csv.DictReader((out / "rows.csv").open()))
    assert [r["row"] for r in rows] == [r.id for r in o.ROWS]
    assert all(r["verdict"] in (o.AGREES, o.DIFFERS, o.NOT_COMPARABLE) for r in rows)
    for r in rows:
        assert f"<td>{r['row']}</td>" in page.replace("&amp;", "&"), r["row"]
    # At 8 workstations and 120 s, every load-dependent level is shown but not judged.
    levels = [r for r in o.ROWS if r.kind == "level" and r.full_only]
    assert all(next(x for x in rows if x["row"] == r.id)["verdict"] == o.NOT_COMPARABLE for r in levels)
    verdicts = read_verdicts(out)
    assert [v.row for v in verdicts] == [r.id for r in o.ROWS]
    assert [str(v.outcome) for v in verdicts] == [r["verdict"] for r in rows]
    kinds = {v.row: v.kind for v in verdicts}
    # The declared calibration set is calibrated; pvc ≡ svccache is model-vs-model.
    assert {r for r, k in kinds.items() if k is Kind.CALIBRATED} == {"M-15 levels", "K-10", "K-11", "K-13"}
    assert kinds["V-10"] is Kind.MODEL and kinds["K-7"] is Kind.NOT_COMPARABLE
    summary = page[page.index("<h2>Summary"):page.index("</table>", page.index("<h2>Summary"))]
    assert sum(int(n) for n in re.findall(r"<td>(\d+)</td>", summary)) == len(o.ROWS)
    for fig in ("telnet_connect.png", "http_page_p90.png", "media_loss.png", "vc_setups.png", "vc_max_peak.png",
                "qos_overview.png", "qos_failures.png"):
        assert (out / fig).stat().st_size > 5_000 and fig in page
    per_run = list(csv.DictReader((out / "per_run.csv").open()))
    assert len(per_run) == 30 and all(not math.isnan(float(r["wall_s"])) for r in per_run)
    assert "C-1" in page and "Run time" in page


def test_identical_metrics_names_what_differs():
    other = copy.deepcopy(SUMMARY)
    assert t.identical_metrics(SUMMARY, other) == []
    other["applications"]["video"]["media"]["lost"] += 1
    other["ports"][0]["drops"] += 1
    assert t.identical_metrics(SUMMARY, other) == ["video", "switch drops"]


def test_seeds_option_only_for_studies_that_take_it(tmp_path):
    """`--seeds` reaches mah96's run(); a study with a fixed number of runs refuses it in one line."""
    import subprocess
    import sys

    def cli(*args):
        return subprocess.run(
            [sys.executable, "-m", "atmsim", *args], capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120
        )

    r = cli("reproduce", "magic95", "--seeds", "4", "--out", str(tmp_path / "m"))
    assert r.returncode == 2
    assert r.stderr.strip() == "error: --seeds: `magic95` has a fixed number of runs per configuration (supported by: mah96, mah96-calibration)"
    assert not (tmp_path / "m").exists()
    r = cli("reproduce", "kocyigit", "--configs", "noqos-*", "--out", str(tmp_path / "k"))
    assert r.returncode == 2
    assert r.stderr.strip() == "error: --configs: `kocyigit` does not take it (supported by: mah96)"
    r = cli("reproduce", "mah96", "--configs", "sp-mail-*", "--out", str(tmp_path / "x"))
    assert r.returncode == 2 and "configs: no configuration matches 'sp-mail-*'" in r.stderr
    r = cli("reproduce", "mah96", "--seeds", "1-200")
    assert r.returncode == 2 and r.stderr.startswith("error: --seeds: 200 seeds given") and "2 to 100" in r.stderr
    assert "seeds" in mah96.run.__code__.co_varnames
