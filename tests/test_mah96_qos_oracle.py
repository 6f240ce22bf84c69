"""Mah (1996) QoS oracle: canonical configuration names, the Chapter 4 rows, the magnitude
("change") rule, the guaranteed-VC failure rate and the recommendations, on constructed
per-run values (no simulation)."""

from __future__ import annotations

import copy
import math
import re

import pytest

from atmsim.reproduce.mah96 import oracle as o
from atmsim.reproduce.mah96 import qos_rows as q
from atmsim.reproduce.mah96 import report as report
from atmsim.reproduce.mah96 import tables as t
from atmsim.reproduce.mah96.rows import CANONICAL, Row, Size, chg_row, cmp_row, resolve_sizes
from test_mah96 import SUMMARY

SETUPS = ("app-svc", "app-svccache", "conv-svc", "conv-svccache")


def _row(rid: str) -> Row:
    return next(r for r in o.ROWS if r.id == rid)


def _runs(config_values: dict[str, list[float]], key: str) -> dict[str, list[dict]]:
    return {c: [{key: v} for v in vs] for c, vs in config_values.items()}


def _policy(policy: str, key: str, base: list[float], factor: float, setups=SETUPS) -> dict[str, list[dict]]:
    """noqos at ``base`` and ``policy`` at ``base`` × ``factor`` in the given setups."""
    vals = {f"noqos-{s}": base for s in setups} | {f"{policy}-{s}": [v * factor for v in base] for s in setups}
    return _runs(vals, key)


# ----- configuration names ------------------------------------------------------------------


def test_all_configs_are_the_103_canonical_names_in_the_fixed_order():
    assert len(o.ALL_CONFIGS) == 103 and len(set(o.ALL_CONFIGS)) == 103
    assert all(CANONICAL.match(c) for c in o.ALL_CONFIGS)
    assert all(o.parse(c) for c in o.ALL_CONFIGS)
    assert o.ALL_CONFIGS[:7] == o.CONFIGS and all(c.startswith("noqos-") for c in o.CONFIGS)
    assert o.ALL_CONFIGS[7:11] == tuple(f"sp-telnet-{s}" for s in SETUPS)
    assert o.ALL_CONFIGS[-1] == "nwc-qos1-conv-svccache"
    # Validity (spec §4.7): router multiplexing and pvc only with noqos; QoS policies only app/conv × svc/svccache.
    for c in o.ALL_CONFIGS:
        qos, mux, vc = o.parse(c)
        assert (mux == "router" or vc == "pvc") <= (qos == "noqos")
    assert sum(c.startswith("noqos-") for c in o.ALL_CONFIGS) == 7


def test_name_is_the_identity_for_full_names_and_tolerates_two_part_keys():
    assert o.name("wc-ftp-app-svccache") == "wc-ftp-app-svccache"
    assert o.name("noqos-router-pvc") == "noqos-router-pvc"
    assert o.name("conv-svc") == "noqos-conv-svc"
    assert o.parse("sp-qos1-conv-svccache") == ("sp-qos1", "conv", "svccache")
    for bad in ("sp-conv-svc", "xx-ftp-app-svc", "noqos-app-pvcx", "wc-ftp-app"):
        with pytest.raises(ValueError):
            o.parse(bad)


def test_every_row_names_configurations_of_the_study():
    for r in o.ROWS:
        configs = {c for p in r.pairs for c in p} | {c for c, _, _ in r.targets}
        assert configs <= set(o.ALL_CONFIGS), (r.id, configs - set(o.ALL_CONFIGS))
        assert all(s in t.STATS for s in r.stats), r.id
        assert r.kind != "qos" or r.note, r.id  # every unjudged row says why


def test_every_q_row_is_present_once_and_row_ids_are_unique():
    ids = [r.id for r in o.ROWS]
    assert len(ids) == len(set(ids))
    q_bases = {i.split()[0] for i in ids if i.startswith("Q-")}
    assert q_bases == {f"Q-{n}" for n in range(1, 50)}
    assert {r.id for r in q.QOS_ROWS} <= set(ids)
    # The QoS rows of Chapters 5-6 are judged now, V-7 and the general M-4 stay prose.
    assert {r.id for r in o.ROWS if r.kind == "qos"} >= {"Q-38", "V-7", "M-4"}
    assert _row("V-13").kind == "level" and not _row("V-13").full_only and _row("V-13").tol_pp


# ----- the magnitude rule ---------------------------------------------------------------------


def test_change_range_widens_each_bound_outwards():
    assert o.change_range(-0.20, -0.20) == pytest.approx((-0.25, -0.15))
    assert o.change_range(0.32, 0.78) == pytest.approx((0.24, 0.975))
    assert o.change_range(None, 12.0) == (float("-inf"), 15.0)


def test_change_rows_inside_outside_and_below_scale():
    row = _row("Q-7 change")  # sp-ftp: telnet response 90th +32–78 % → [+24 %, +97.5 %]
    base = [0.15, 0.16, 0.17]
    assert o.judge(row, _policy("sp-ftp", "telnet.response.p90", base, 1.5), True, "full").word == o.AGREES
    assert o.judge(row, _policy("sp-ftp", "telnet.response.p90", base, 1.2), True, "full").word == o.DIFFERS  # +20 %
    assert o.judge(row, _policy("sp-ftp", "telnet.response.p90", base, 2.0), True, "full").word == o.DIFFERS  # +100 %
    assert o.judge(row, _policy("sp-ftp", "telnet.response.p90", base, 1.24), True, "full").word == o.AGREES  # on the edge
    below = o.judge(row, _policy("sp-ftp", "telnet.response.p90", base, 1.5), False, "quick")
    assert below.word == o.NOT_COMPARABLE and "+50 %" in below.ours
    # One setup outside is enough to differ.
    runs = _policy("sp-ftp", "telnet.response.p90", base, 1.5)
    runs["sp-ftp-conv-svc"] = [{"telnet.response.p90": 0.16}] * 3
    v = o.judge(row, runs, True, "full")
    assert v.word == o.DIFFERS and "1 of 4 outside" in v.reason
    # A missing configuration: not comparable, whatever the scale.
    del runs["noqos-app-svc"]
    assert o.judge(row, runs, True, "full").word == o.NOT_COMPARABLE


def test_change_rows_mean_max_and_delta():
    mean_row = _row("Q-3 median")  # averaged over the setups: ≈ −20 % → [−25 %, −15 %]
    runs = _runs({f"noqos-{s}": [0.08] * 3 for s in SETUPS} | {"sp-telnet-app-svc": [0.08 * 0.6] * 3,
                 "sp-telnet-app-svccache": [0.08] * 3, "sp-telnet-conv-svc": [0.08 * 0.8] * 3, "sp-telnet-conv-svccache": [0.08 * 0.8] * 3},
                 "telnet.response.median")
    assert o.judge(mean_row, runs, True, "full").word == o.AGREES  # −40, 0, −20, −20: mean −20 %
    max_row = chg_row("X", "", "", "", [("a-1", "b-1"), ("a-2", "b-2")], ("ftp.file.p90",), 12.0, 12.0, agg="max")
    r = _runs({"a-1": [1.0] * 3, "b-1": [2.0] * 3, "a-2": [1.0] * 3, "b-2": [13.0] * 3}, "ftp.file.p90")
    assert o.judge(max_row, r, True, "full").word == o.AGREES
    r["b-2"] = [{"ftp.file.p90": 5.0}] * 3
    assert o.judge(max_row, r, True, "full").word == o.DIFFERS
    delta = _row("Q-21 change")  # −50–90 ms → [−112.5, −37.5] ms
    base = [0.30, 0.31, 0.32]
    assert o.judge(delta, _policy("sp-qos1", "telnet.response.p90", base, 0.8), True, "full").word == o.AGREES  # −62 ms
    assert o.judge(delta, _policy("sp-qos1", "telnet.response.p90", base, 0.95), True, "full").word == o.DIFFERS  # −15 ms


# ----- Chapter 4 rows on constructed runs -----------------------------------------------------


def test_shift_q_rows_agree_differ_and_need_their_configurations():
    q7 = _row("Q-7")  # sp-ftp: telnet response 90th higher, sig.
    base = [0.15, 0.16, 0.17]
    assert o.judge(q7, _policy("sp-ftp", "telnet.response.p90", base, 1.5), True, "").word == o.AGREES
    assert o.judge(q7, _policy("sp-ftp", "telnet.response.p90", base, 0.6), True, "").word == o.DIFFERS
    overlap = _policy("sp-ftp", "telnet.response.p90", base, 1.02)  # triples overlap: not sig.
    assert o.judge(q7, overlap, True, "").word == o.DIFFERS
    no_sp = {c: v for c, v in overlap.items() if not c.startswith("sp-")}
    assert o.judge(q7, no_sp, True, "").word == o.NOT_COMPARABLE
    # sig. only in app-svc; the other three setups must not be sig.
    q2a, q2o = _row("Q-2 app-svc"), _row("Q-2 others")
    assert q2a.pairs == (("noqos-app-svc", "sp-telnet-app-svc"),) and len(q2o.pairs) == 3
    runs = _policy("sp-telnet", "telnet.connect.p90", [0.33, 0.34, 0.35], 0.7)
    assert o.judge(q2a, runs, True, "").word == o.AGREES
    assert o.judge(q2o, runs, True, "").word == o.DIFFERS  # sig. where the thesis found it was not
    # sig. in three of four setups.
    q17 = _row("Q-17")
    runs = _policy("sp-isp", "telnet.response.p90", [0.17, 0.18, 0.19], 0.7)
    runs["sp-isp-conv-svccache"] = [{"telnet.response.p90": v} for v in (0.16, 0.18, 0.20)]
    assert o.judge(q17, runs, True, "").word == o.AGREES


def test_chance_q_rows_count_significant_side_effects():
    q13 = _row("Q-13")  # sp-http: telnet, FTP, audio, video — no sig. effect
    runs: dict[str, list[dict]] = {}
    for c in [f"{p}-{s}" for p in ("noqos", "sp-http") for s in SETUPS]:
        runs[c] = [{st: 1.0 + 0.1 * k for st in q13.stats} for k in range(3)]
    assert o.judge(q13, runs, True, "").word == o.AGREES
    for s in SETUPS:  # every other statistic 3× higher under sp-http in every setup
        runs[f"sp-http-{s}"] = [{st: 3.0 + 0.1 * k for st in q13.stats} for k in range(3)]
    assert o.judge(q13, runs, True, "").word == o.DIFFERS


def test_level_q_rows_at_scale_only():
    q9 = _row("Q-9 level")  # sp-ftp audio loss 2.0–2.8 % → [1.5 %, 3.5 %]
    runs = _runs({f"sp-ftp-{s}": [0.02, 0.025, 0.03] for s in SETUPS}, "audio.loss")
    assert o.judge(q9, runs, True, "full").word == o.AGREES
    assert o.judge(q9, runs, False, "quick").word == o.NOT_COMPARABLE
    runs["sp-ftp-app-svc"] = [{"audio.loss": 0.004}] * 3
    assert o.judge(q9, runs, True, "full").word == o.DIFFERS
    q46 = _row("Q-46")  # nwc-isp 25–37 %, nwc-http 7–32 %
    rates = {f"nwc-isp-{s}": [0.3] * 3 for s in SETUPS} | {f"nwc-http-{s}": [0.1] * 3 for s in SETUPS}
    assert o.judge(q46, _runs(rates, "vc.guaranteed_failure_rate"), True, "full").word == o.AGREES
    rates["nwc-http-conv-svccache"] = [0.9] * 3
    assert o.judge(q46, _runs(rates, "vc.guaranteed_failure_rate"), True, "full").word == o.DIFFERS


def test_hit_rate_rows_of_the_qos_policies_are_judged_at_any_scale():
    v14 = _row("V-14")
    ok = {c: [0.67] * 3 for c, _, _ in v14.targets if "-app-" in c} | {c: [0.57] * 3 for c, _, _ in v14.targets if "-conv-" in c}
    assert len(v14.targets) == 8
    assert o.judge(v14, _runs(ok, "vc.hit_rate"), False, "quick").word == o.AGREES
    assert o.judge(v14, _runs(ok | {"wc-isp-conv-svccache": [0.50] * 3}, "vc.hit_rate"), False, "quick").word == o.DIFFERS
    v13 = _row("V-13")
    assert len(v13.targets) == 40 and not any(c.startswith(("wc-isp", "nwc-qos1")) for c, _, _ in v13.targets)


def test_ratio_row_reads_the_mux_from_full_names():
    v21 = _row("V-21")
    runs = _runs({"noqos-app-svc": [71_000] * 3, "noqos-app-svccache": [1400] * 3,
                  "noqos-conv-svc": [169_000] * 3, "noqos-conv-svccache": [4300] * 3}, "vc.setups")
    v = o.judge(v21, runs, True, "")
    assert v.word == o.AGREES and "app:" in v.ours and "conv:" in v.ours


# ----- magnitudes of comparison rows (a direction match 5× off is not agreement) ------------------


def test_size_factor_is_ours_over_the_nearest_end_of_the_published_range():
    assert o.size_factor(0.5, 0.32, 0.78) == 1.0  # inside
    assert o.size_factor(3.9, 0.32, 0.78) == pytest.approx(5.0)  # beyond hi: over hi
    assert o.size_factor(0.064, 0.32, 0.78) == pytest.approx(0.2)  # below lo: over lo
    assert o.size_factor(-0.02, -0.46, -0.36) == pytest.approx(0.02 / 0.36)  # a decrease too small
    assert o.size_factor(-0.1, 0.32, 0.78) < 0  # the opposite sign
    assert o.size_factor(None, 0.32, 0.78) == math.inf  # A's mean 0: unbounded
    assert o.size_ok(5.0) and o.size_ok(0.2) and o.size_ok(1.0)
    assert not o.size_ok(5.01) and not o.size_ok(0.199) and not o.size_ok(-1.0) and not o.size_ok(math.inf)


def test_comparison_rows_carry_the_published_magnitudes_once():
    rows = {r.id: r for r in o.ROWS}
    q7 = rows["Q-7"]
    assert [(z.stat, z.lo, z.hi, z.source) for z in q7.size] == [("telnet.response.p90", 0.32, 0.78, "Q-7 change")]
    assert {z.stat for z in rows["Q-9"].size} == {"audio.loss", "video.loss"}
    assert (rows["Q-20"].size[0].lo, rows["Q-20"].size[0].hi) == (1.0, 3.0)  # ×2–4
    assert [(z.lo, z.hi) for z in rows["M-18"].size] == [(3.10, 8.80)]  # +310–880 %
    assert {z.agg for z in rows["Q-3"].size} == {"mean"}  # "averaging about 20 %", "almost 40 %"
    # Every link names a change row whose range is the size (resolve_sizes), and only comparisons have sizes.
    for r in o.ROWS:
        assert not r.size or r.kind == "shift", r.id
        for z in r.size:
            if z.source:
                src = rows[z.source]
                assert src.kind == "change" and (z.lo, z.hi) == src.change and z.stat in src.stats, r.id
            assert z.stat in r.stats, r.id
    with pytest.raises(ValueError, match="one sign"):
        Size("audio.loss", -0.1, 0.2)
    with pytest.raises(ValueError, match="names no row"):
        resolve_sizes((cmp_row("X", "", "", "", (("a", "b"),), ("audio.loss",), "higher", None, size_of=("nope",)),))


def test_direction_right_and_magnitude_within_5x_agrees_6x_off_differs_at_any_scale():
    q7 = _row("Q-7")  # sp-ftp: telnet response 90th higher, sig.; thesis +32–78 %
    base = [0.15, 0.16, 0.17]
    for at_scale in (True, False):  # quick mode too: the rule does not depend on the scale
        assert o.judge(q7, _policy("sp-ftp", "telnet.response.p90", base, 1.5), at_scale, "").word == o.AGREES  # +50 %
        within = o.judge(q7, _policy("sp-ftp", "telnet.response.p90", base, 1 + 4.5 * 0.78), at_scale, "")
        assert within.word == o.AGREES, within.reason  # 4.5× the upper end
        off = o.judge(q7, _policy("sp-ftp", "telnet.response.p90", base, 1 + 6 * 0.78), at_scale, "")
        assert off.word == o.DIFFERS  # 6× the upper end: direction and significance right, magnitude not
        assert "+468 % (f 6)" in off.test and "[+32 %, +78 %]" in off.test
        assert "magnitude off by more than 5×" in off.reason and "6× the nearest end" in off.reason
        assert "not met" not in off.reason
    # Too small by more than 5×: +5 % against +32 % (significant: the triples do not overlap).
    tight = [0.150, 0.151, 0.152]
    small = o.judge(q7, _policy("sp-ftp", "telnet.response.p90", tight, 1.05), False, "quick")
    assert small.word == o.DIFFERS and "+5 %" in small.reason


def test_quick_mode_q7_at_555_percent_differs_and_its_verdict_shows_both_magnitudes():
    q7 = _row("Q-7")
    v = o.judge(q7, _policy("sp-ftp", "telnet.response.p90", [0.15, 0.16, 0.17], 6.55), False, "quick")
    assert v.word == o.DIFFERS
    (sv,) = report.study_verdicts([(q7, v)])
    assert str(sv.outcome) == "differs"
    assert "+555 %" in sv.rule and "[+32 %, +78 %]" in sv.rule and "+555 %" in sv.detail


def test_a_magnitude_need_and_aggregates():
    # the means over the four setups, −20 % (median) and −40 % (90th); −2 % is 10× too small.
    q3 = _row("Q-3")
    runs = _policy("sp-telnet", "telnet.response.median", [0.080, 0.0801, 0.0802], 0.8)
    for c, rs in _policy("sp-telnet", "telnet.response.p90", [0.175, 0.176, 0.177], 0.6).items():
        for r, x in zip(runs[c], rs):
            r.update(x)
    assert o.judge(q3, runs, False, "quick").word == o.AGREES
    for s in SETUPS:
        runs[f"sp-telnet-{s}"] = [r | {"telnet.response.median": v * 0.98} for r, v in zip(runs[f"noqos-{s}"], (0.080, 0.0801, 0.0802))]
    v = o.judge(q3, runs, False, "quick")
    assert v.word == o.DIFFERS and "mean over the pairs" in v.reason and "−2 %" in v.reason.replace("-", "−")
    # Q-17 needs 3 of 4: one setup 10× too small still agrees; two do not.
    q17 = _row("Q-17")  # −29–39 %
    runs = _policy("sp-isp", "telnet.response.p90", [0.170, 0.171, 0.172], 0.66)
    runs["sp-isp-conv-svccache"] = [{"telnet.response.p90": v * 0.97} for v in (0.170, 0.171, 0.172)]
    assert o.judge(q17, runs, False, "quick").word == o.AGREES
    runs["sp-isp-conv-svc"] = runs["sp-isp-conv-svccache"]
    assert o.judge(q17, runs, False, "quick").word == o.DIFFERS


def test_a_zero_baseline_is_an_unbounded_magnitude():
    m18 = _row("M-18")  # conv → router audio loss +310–880 %, sig.
    runs = _runs({"noqos-conv-svc": [0.0] * 3, "noqos-conv-svccache": [0.0] * 3,
                  "noqos-router-svc": [0.010, 0.011, 0.012], "noqos-router-svccache": [0.010, 0.011, 0.012]}, "audio.loss")
    v = o.judge(m18, runs, False, "quick")
    assert v.word == o.DIFFERS and "unbounded" in v.test
    runs |= _runs({"noqos-conv-svc": [0.0020, 0.0021, 0.0022], "noqos-conv-svccache": [0.0020, 0.0021, 0.0022]}, "audio.loss")
    assert o.judge(m18, runs, False, "quick").word == o.AGREES  # ×5.2: +424 %


# ----- the guaranteed-VC failure rate ---------------------------------------------------------


def test_guaranteed_failure_rate_sums_the_routers_and_is_none_without_requests():
    assert t.run_stats(SUMMARY)["vc.guaranteed_failure_rate"] is None  # noqos: no such counters
    s = copy.deepcopy(SUMMARY)
    counts = {"berkeley": (100, 30), "illinois": (50, 5), "lbl": (0, 0)}
    for h in s["hosts"]:
        site = h["name"].removesuffix("-router")
        if site in counts:
            h["ipoa"]["guaranteed_requested"], h["ipoa"]["guaranteed_refused"] = counts[site]
    assert t.run_stats(s)["vc.guaranteed_failure_rate"] == pytest.approx(35 / 150)
    assert "vc.guaranteed_failure_rate" in t.STATS and "vc.guaranteed_failure_rate" not in t.TABLE_3_3
    assert t.STATS["vc.guaranteed_failure_rate"].show(35 / 150) == "23.3"


def test_guaranteed_failure_rate_per_vc_request_counts_hits_and_setups():
    s = copy.deepcopy(SUMMARY)
    counts = {"berkeley": (100, 30, 50), "illinois": (50, 5, 0), "lbl": (0, 0, 10)}  # requested, refused, hits
    for h in s["hosts"]:
        site = h["name"].removesuffix("-router")
        if site in counts:
            ipoa = h["ipoa"]
            ipoa["guaranteed_requested"], ipoa["guaranteed_refused"], ipoa["guaranteed_hits"] = counts[site]
    r = t.run_stats(s)
    assert r["vc.guaranteed_failure_rate"] == pytest.approx(35 / 150)  # per setup request
    assert r["vc.guaranteed_failure_rate_per_vc_request"] == pytest.approx(35 / (150 + 60))  # per VC request
    assert t.run_stats(SUMMARY)["vc.guaranteed_failure_rate_per_vc_request"] is None  # noqos
    del next(h for h in s["hosts"] if h["name"] == "berkeley-router")["ipoa"]["guaranteed_hits"]
    assert t.run_stats(s)["vc.guaranteed_failure_rate_per_vc_request"] is None  # a core that did not count hits


def test_report_shows_both_failure_rates_beside_the_hit_rate():
    from types import SimpleNamespace

    h = report._HEADLINE
    assert h.index("vc.guaranteed_failure_rate") == h.index("vc.hit_rate") + 1
    assert h.index("vc.guaranteed_failure_rate_per_vc_request") == h.index("vc.hit_rate") + 2
    row = {k: None for k in t.STATS} | {"vc.hit_rate": 0.6, "vc.guaranteed_failure_rate": 0.5,
                                        "vc.guaranteed_failure_rate_per_vc_request": 0.2}
    study = SimpleNamespace(stats={"nwc-http-conv-svccache": [row] * 3}, configs=("nwc-http-conv-svccache",))
    table = report._config_table(study)
    assert "per setup request" in table and "per VC request (hits + setups)" in table
    assert "<td>60.0</td><td>50.0</td><td>20.0</td>" in table
    # rows.csv's atmsim column (the verdict's ``ours``) of Q-46 and V-14 shows them beside each other.
    q46 = o.judge(_row("Q-46"), {"nwc-http-conv-svccache": [row] * 3}, True, "full")
    assert "nwc-http-conv-svccache: 50.0 %" in q46.ours and "per VC request (hits + setups) 20.0 %, hit rate 60.0 %" in q46.ours
    v14 = o.judge(_row("V-14"), {"nwc-isp-conv-svccache": [row] * 3}, False, "quick")
    assert "60.0 %" in v14.ours and "guaranteed failures per setup request 50.0 %, per VC request 20.0 %" in v14.ours


# ----- recommendations ------------------------------------------------------------------------


def _world(factors: dict[tuple[str, str], float]) -> dict[str, list[dict]]:
    """Every configuration with every statistic at 1.0 ± 0.05 over three seeds, times the factor
    given for (policy prefix, statistic)."""
    runs = {}
    for c in o.ALL_CONFIGS:
        qos = o.parse(c)[0]
        runs[c] = [{st: (1.0 + 0.05 * (k - 1)) * factors.get((qos, st), 1.0) for st in t.STATS} for k in range(3)]
    return runs


def test_recommendations_on_constructed_runs():
    recs = {r[0]: r for r in o.recommendations(_world({}), True)}
    assert [r[0] for r in o.recommendations({}, True)] == [f"R-{i}" for i in range(1, 12)]
    assert all(r[3] == o.NOT_COMPARABLE for r in o.recommendations({}, True))
    assert all(len(r) == 5 and r[2] and r[1].startswith("§") for r in recs.values())
    # Nothing changes under any policy: the starvation by sp-ftp is not there.
    assert recs["R-2"][3] == o.DIFFERS
    starve = _world({("sp-ftp", "ftp.file.p90"): 0.5, ("sp-ftp", "telnet.response.p90"): 1.5,
                     ("sp-ftp", "audio.loss"): 9.0, ("sp-ftp", "video.loss"): 3.0})
    r2 = {r[0]: r for r in o.recommendations(starve, True)}["R-2"]
    assert r2[3] == o.AGREES and "higher in 4 of 4" in r2[4]
    # a sp-telnet gain of 300 ms is perceptible (differs at scale, not judged below it).
    tel = _world({("sp-telnet", "telnet.response.median"): 0.9, ("sp-telnet", "telnet.response.p90"): 0.7})
    assert {r[0]: r for r in o.recommendations(tel, True)}["R-8"][3] == o.DIFFERS
    assert {r[0]: r for r in o.recommendations(tel, False)}["R-8"][3] == o.AGREES
    # caching needs ≥ 10× fewer setups and faster connects.
    cache = {}
    for c in o.ALL_CONFIGS:
        fast = c.endswith("svccache")
        cache[c] = [{st: (1.0 + 0.05 * (k - 1)) * (0.3 if fast and st == "telnet.connect.median" else 0.05 if fast and st == "vc.setups" else 1.0)
                     for st in t.STATS} for k in range(3)]
    r11 = {r[0]: r for r in o.recommendations(cache, False)}["R-11"]
    assert r11[3] == o.AGREES and re.search(r"20\.0×", r11[4])


def test_one_run_per_configuration_leaves_significance_unjudged():
    """With one seed a 90 % interval is unbounded: rows that state a significance (or its
    absence) and the chance rows are not comparable, whatever the direction."""
    a = ("noqos-app-svc", "noqos-app-svccache", "noqos-conv-svc", "noqos-conv-svccache")
    b = tuple(c.replace("noqos", "sp-ftp") for c in a)
    runs = {c: [{"telnet.response.p90": 0.2}] for c in a} | {c: [{"telnet.response.p90": 0.4}] for c in b}
    q7 = next(r for r in o.ROWS if r.id == "Q-7")
    v = o.judge(q7, runs, True, "x")
    assert v.word == o.NOT_COMPARABLE and "1 run(s) against 1" in v.reason
    runs3 = {c: [{"telnet.response.p90": x} for x in (0.2, 0.21, 0.19)] for c in a}
    runs3 |= {c: [{"telnet.response.p90": x} for x in (0.4, 0.41, 0.39)] for c in b}
    assert o.judge(q7, runs3, False, "x").word == o.AGREES
