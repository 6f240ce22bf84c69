"""`atmsim reproduce`: the study reports, and scenarios built from Python dicts."""

from __future__ import annotations

import csv
import re
import subprocess
import sys

import atmsim
from atmsim import Scenario
from atmsim.reproduce import magic95
from atmsim.study import Kind, Outcome, read_verdicts
from study_on_terminal import first_run


def atmsim_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "atmsim", *args],
        capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=600,
    )


def test_reproduce_magic95_writes_report_table_and_figure(shared):
    # `atmsim reproduce magic95`'s quick mode: the run the terminal test makes (on a terminal,
    # into a results store; tests/study_on_terminal.py), shared so that the study runs once.
    run = first_run(shared, "magic95")
    out = run.out
    assert run.rc == 0, run.text[-3000:]
    html = (out / "report.html").read_text()
    assert "Table 1" in html and "table1.png" in html
    assert (out / "table1.png").stat().st_size > 10_000
    rows = list(csv.DictReader((out / "table1.csv").open()))
    assert [int(r["window_bytes"]) for r in rows] == [w for _, w, _ in magic95.TABLE1]
    errs = [abs(float(r["err_vs_paper"])) for r in rows]
    # Published Table 1: every window within 10%, all but the 128 kB one within 5%
    # (see the report for why no 9180-byte window-limited sender reaches W/T at 128 kB).
    assert max(errs) < 0.10, errs
    assert sum(e <= 0.05 for e in errs) >= len(errs) - 1, errs
    assert all(int(r["retransmissions"]) == 0 for r in rows)
    for part in ("Table 2", "Table 3", "Table 4", "Figure 3", "Figure 4", "Figure 5", "Figure 7", "fig3.png",
                 "fig4.png", "fig5.png", "fig7.png", "Model check by simulation"):
        assert part in html, part
    # The verdicts are data beside the report. Figures 4, 5 and 7 have no independent numbers
    # (the host cost is fitted to Table 1, the Fig. 5 model is ours): never a validated "agrees".
    rows = {v.row: v for v in read_verdicts(out)}
    for row in ("Figure 4: simulation on the CPU model", "Figure 7: simulation on the extrapolation",
                "Figure 5 model check by simulation"):
        assert rows[row].kind is Kind.MODEL, row
    assert rows["Figure 5"].kind is Kind.NOT_COMPARABLE
    # Table 4 B equals the pacing rate we assumed; Table 4 A agrees only at a chosen sender speed.
    assert rows["Table 4 B"].kind is Kind.MODEL and rows["Table 4 A"].kind is Kind.CALIBRATED
    assert all(rows[f"Table 1, window {label}"].kind is Kind.VALIDATED for label, _, _ in magic95.TABLE1)
    assert sum(rows[f"Table 1, window {label}"].outcome is Outcome.AGREES for label, _, _ in magic95.TABLE1) >= len(magic95.TABLE1) - 1
    t24 = list(csv.DictReader((out / "tables2_4.csv").open()))
    assert {r["table"] for r in t24} == {"2", "2-recovery", "3", "3-recovery", "4A", "4B"}
    # Table 3 unpaced with the recoveries that fit Table 2: rows of their own, calibrated (the rule was chosen).
    for name in ("Tahoe", "timeouts only"):
        v = rows[f"Table 3 unpaced, half_advertised, {name}"]
        assert v.kind is Kind.CALIBRATED and v.low <= v.ours <= v.high and v.paper_value == 1.66
    assert all(r["paper_mbps"] for r in t24)
    # Every shared bottleneck reports per-connection goodput and Jain's index.
    assert all(len(r["per_connection_mbps"].split()) == 2 and 0.5 <= float(r["jain"]) <= 1 for r in t24
               if r["table"] in ("3", "3-recovery", "4A", "4B"))
    # The summary at the top counts every verdict, per kind.
    summary = html[html.index("<h2>Summary"):html.index("<h2>Table 1")]
    counts = summary[summary.index("<table>"):summary.index("</table>")]
    assert sum(int(x) for x in re.findall(r"<td>(\d+)</td>", counts)) == len(rows) and "runtime" in summary


def test_reproduce_unknown_study_is_a_one_line_error():
    proc = atmsim_cli("reproduce", "nosuchstudy")
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        "error: unknown study `nosuchstudy`: expected one of " + ", ".join(sorted(atmsim.reproduce.STUDIES))
    ]


def point_to_point(window: int, delay_ms: float) -> dict:
    """One TCP transfer between two hosts on one T1 link, built in Python."""
    return {
        "simulation": {"duration_s": 30.0, "warmup_s": 5.0, "sample_interval_ms": 0},
        "host": [{"name": "a"}, {"name": "b", "mtu_bytes": 9180}],
        "link": [{"a": "a", "b": "b", "preset": "t1", "delay_ms": delay_ms}],
        "vc": [{"name": "v", "path": ["a", "b"]}],
        "tcp": [{"name": "t", "client": "a", "server": "b", "window_bytes": window, "mss_bytes": 512}],
    }


def test_a_scenario_built_from_a_dict_follows_w_over_t_and_the_link_limit():
    # T1: 1.536 Mb/s of cells; 512-byte segments = 12 cells carry 512 bytes of data.
    t1_user = 1.536e6 * 512 / (12 * 53)
    # Small window, long delay: window-limited, B = W / T with T = 2·delay + one segment time
    # + one ACK cell time (the receiver ACKs each 512-byte window at once).
    small = Scenario.from_dict(point_to_point(window=512, delay_ms=100.0)).run(seed=3)
    rtt = 0.2 + 12 * 424 / 1.536e6 + 424 / 1.536e6
    expect = 512 * 8 / rtt
    got = small.connections()["goodput_bps"].iloc[0]
    assert abs(got - expect) / expect < 0.01, (got, expect)
    # Large window, short delay: the link is the limit.
    big = Scenario.from_dict(point_to_point(window=65536, delay_ms=1.0)).run(seed=3)
    got = big.connections()["goodput_bps"].iloc[0]
    assert 0.97 * t1_user < got <= t1_user * 1.001, (got, t1_user)


def test_figure6_overflow_window_matches_eq2_within_15_percent():
    # One OC-3c sender into a TAXI-100 port with 256 cells, no pacing (MAGIC §4.2, Eq. 2).
    rows = []
    for w in magic95.FIG6_WINDOWS:
        c = magic95.mismatch(w, 9180, duration_s=8.0).run(seed=1).summary["connections"][0]
        rows.append((w, c["goodput_bps"] / 1e6, c["rexmt_segs"]))
    ok, lossy = magic95.overflow_window(rows)
    mid = (ok + lossy) / 2
    assert abs(mid / magic95.eq2_window_bytes() - 1) < 0.15, (ok, lossy)
    assert round(magic95.eq2_window_bytes()) == 34630
    # Eq. 3: the rate sustained just below the overflow is about W/T there (31.5 Mb/s).
    assert abs(magic95.eq3_rate_bps() / 1e6 - 31.48) < 0.01
    best = next(g for w, g, r in rows if w == ok)
    assert abs(best / (ok * 8 / magic95.RTT_S / 1e6) - 1) < 0.1, (ok, best)
    # Beyond the overflow the 9180-byte sender collapses to a fraction of the loss-free peak.
    peak = max(g for w, g, r in rows if r == 0)
    assert rows[-1][1] < 0.4 * peak, rows


def test_magic_table2_pacing_unit_and_the_loss_rule():
    # MAGIC Exp. 2 (paper 0.87 vs 68.20 Mb/s). Paced at 70 Mb/s the TCP payload is at most
    # 70 * 9140 / (192 * 53) = 62.87 Mb/s of line bits, 69.42 if 70 Mb/s counts cell payload:
    # the paper's 68.20 fits only the second reading.
    from atmsim.reproduce.magic95 import tables as t

    cases = t.run_cases(t.table2_cases(), full=False)
    bsd, adv, line, payload = cases
    assert abs(magic95.paced_user_bps(70e6) / 1e6 - 62.87) < 0.01
    for c, limit in ((line, 62.87), (payload, 69.42)):
        assert all(abs(x / limit - 1) < 0.005 for x in c.combined), c.combined
        assert sum(c.rexmt) == 0
    assert line.mbps.estimate < 68.20 < payload.mbps.estimate
    # Unpaced, the port overflows under both rules; ssthresh from the advertised window keeps
    # slow start climbing past the port after every loss: a fraction of BSD's throughput.
    assert min(bsd.rexmt) > 0 and min(adv.rexmt) > 0
    assert adv.mbps.estimate < 0.4 * bsd.mbps.estimate, (adv.combined, bsd.combined)
    assert max(bsd.combined) < 0.25 * line.mbps.estimate


def test_loss_rule_never_acts_without_a_loss():
    # Paced, nothing is lost, so the two ssthresh rules give identical runs.
    from atmsim.reproduce.magic95 import tables as t

    runs = []
    for rule in t.LOSS_RULES:
        sc = t._scenario("table3_pacing_35", t.for_each_tcp(2, "ssthresh_on_loss", rule), 5.0)
        runs.append(sc.run(seed=3).summary["connections"])
    assert runs[0] == runs[1]


def test_magic_table3_receiver_cpu_at_table2_rate_does_not_lower_the_paced_result():
    # The hypothesis "a CPU-bound SPARCstation receiver" against Table 2: a per-segment cost
    # that lets the receiver take 68.2 Mb/s cannot hold two paced connections (62.87 Mb/s of
    # payload in all) below 62.87 Mb/s.
    from atmsim.reproduce.magic95 import tables as t

    un_bsd, _un_adv, line, payload, cpu = t.run_cases(t.table3_cases(), full=False)
    assert all(abs(x / 62.87 - 1) < 0.005 for x in cpu.combined), cpu.combined
    assert all(len(p) == 2 for p in un_bsd.per_seed)
    assert line.jain.estimate > 0.999 and payload.jain.estimate > 0.999
    assert line.mbps.estimate > 3 * un_bsd.mbps.estimate


def test_magic_table4a_sender_speed_decides_between_no_loss_sharing_and_lock_out():
    from atmsim.reproduce.magic95 import tables as t

    cases = {c.label: c for c in t.run_cases(
        [c for c in t.table4a_cases(full=False) if c.label.endswith("half_window")], full=False)}
    slow = cases["senders 40 Mb/s, half_window"]
    # Two senders of 40 Mb/s each never fill a 100 Mb/s port: exactly twice the limit, no loss.
    assert all(abs(x / 80.0 - 1) < 0.002 for x in slow.combined) and sum(slow.rexmt) == 0
    # Line-rate senders into an equal-rate port: one starves (Jain's index near 1/2).
    fast = cases["senders line rate, half_window"]
    assert fast.jain.estimate < 0.75, fast.per_seed
    # In between the port overflows: losses every second, as the paper observed.
    mid = cases["senders 60 Mb/s, half_window"]
    assert mid.loss_rate.estimate > 1.0 and mid.mbps.estimate < 0.8 * fast.mbps.estimate


def test_magic_table4b_paced_is_loss_free_at_the_pacing_limit():
    from atmsim.reproduce.magic95 import tables as t

    line, _payload = t.run_cases(t.table4b_cases(), full=False)
    assert sum(line.rexmt) == 0 and abs(line.mbps.estimate / 62.87 - 1) < 0.005


def test_magic_figure6_local_path_onset_within_one_segment_of_eq2_and_collapse():
    # Fig. 6 on Lawrence -> Kansas City: Eq. 2's 34,630 B lies between the largest loss-free
    # and the smallest lossy window (whole 9140-byte segments), and large windows collapse.
    rows = []
    for w in magic95.FIG6_WINDOWS:
        c = magic95.mismatch(w, 9180, 10.0, file="fig6_local").run(seed=1).summary["connections"][0]
        rows.append((w, c["goodput_bps"] / 1e6, c["rexmt_segs"]))
    ok, lossy = magic95.overflow_window(rows)
    assert magic95.effective_window(ok, 9180) <= magic95.eq2_window_bytes() <= magic95.effective_window(lossy, 9180)
    peak = max(g for _, g, _ in rows)
    assert rows[-1][1] < 0.1 * peak, rows


def test_magic_figure3_smaller_segments_get_more_through_the_mismatch():
    # MAGIC Exp. 5: TCP rate control works better when segments are small beside the buffer.
    rows = {m: g for m, g, _, _ in magic95.figure3()}
    assert rows[1024] > rows[9140], rows


def test_magic_figure5_geo_geo_1_n_allowable_load():
    # N = 1 with d -> 0 is M/M/1/1: loss rho / (1 + rho) = 1% at rho = 1/99.
    assert abs(magic95.allowable_load(256, 9180) - 1 / 99) < 2e-3
    assert magic95.cells_per_segment(9180) == 192
    f5 = magic95.figure5()
    for rows in f5.values():
        loads = [x for _, _, x in rows]
        assert loads == sorted(loads)  # more buffer never allows less load
    # Smaller segments allow more load in the same buffer.
    at256 = [rows[0][2] for rows in f5.values()]
    assert at256 == sorted(at256)


def test_magic_figure4_receiver_cpu_bound_throughput_follows_the_per_segment_model():
    # MAGIC Exp. 6 / §4.3: throughput = min(MSS * 8 / c_seg, OC-3c user rate), c_seg fitted
    # to 119 Mb/s at 9140-byte segments (documented in scenarios/magic95/fig4_direct.toml).
    from atmsim.reproduce.magic95 import hosts as h

    assert abs(h.per_segment_s() - 9140 * 8 / 119e6) < 0.5e-6
    rows = h.figure4()
    for mss, got, model, util in rows:
        assert abs(got / model - 1) < 0.01, (mss, got, model)
        assert util > 0.98, (mss, util)
    gs = [g for _, g, _, _ in rows]
    assert gs == sorted(gs) and gs[0] < 0.1 * gs[-1]


def test_magic_figure7_faster_machines_scale_the_cpu_bound_until_the_link_caps_it():
    from atmsim.reproduce.magic95 import hosts as h

    for k, mss, got, model in h.figure7():
        assert abs(got / model - 1) < 0.01, (k, mss, got, model)
    # The model itself: 16x the DEC 3000 with 512-byte segments stays under 110 Mb/s.
    assert h.model_bps(512, 16, h.OC12C_CELL_BPS, h.per_segment_s()) < 110e6


def test_magic_figure5_model_is_checked_by_simulating_the_port():
    for buf, mtu, load, losses in magic95.figure5_check():
        mean = sum(losses) / len(losses)
        assert 0 < load < 1
        assert 1 / 3 < mean / magic95.FIG5_LOSS < 3, (buf, mtu, load, losses)


def test_magic_verdict_rules_can_agree_and_can_differ():
    from atmsim.reproduce.magic95 import tables as t

    def case(paper, *per_seed):
        return t.Case("c", "f", paper, {}, per_seed=[list(p) for p in per_seed])

    assert t.paper_in_seeds_rule(case(1.66, [0.8, 0.8], [1.0, 1.0])).passes  # 1.6–2.0 holds 1.66
    assert not t.paper_in_seeds_rule(case(1.66, [0.8, 0.8], [0.8, 0.81])).passes  # 1.6–1.61
    # A connection below 5 % of the combined throughput starves.
    assert t.starved_seeds(case(46.71, [45.0, 2.0], [24.0, 23.0])) == 1
    assert t.starved_seeds(case(46.71, [45.0, 2.5], [24.0, 23.0])) == 0
    # Table 1: within 5 % of the published throughput.
    row = magic95.Row("8k", 8192, 7.40, 7.45, 7.77, 0)
    assert row.verdict().outcome is Outcome.AGREES
    assert magic95.Row("8k", 8192, 7.40, 7.45, 7.78, 0).verdict().outcome is Outcome.DIFFERS


def test_magic_jitter_rule_can_agree_and_can_differ():
    from atmsim.reproduce.magic95 import tables as t

    def case(*per_seed):
        return t.Case("c", "f", 46.71, {}, per_seed=[list(p) for p in per_seed])

    starving, sharing = case([45.0, 1.0], [24.0, 23.0]), case([25.0, 20.0], [24.0, 23.0])
    assert t.jitter_rule([starving, sharing, sharing]).passes
    assert not t.jitter_rule([starving, sharing, starving]).passes  # one jitter still starves a seed
    assert not t.jitter_rule([sharing, sharing, sharing]).passes  # nothing to remove


def test_magic_jitter_cases_keep_the_senders_mean_speed():
    from atmsim.reproduce.magic95 import tables as t

    for c in t.table4a_jitter_cases():
        j = c.overrides["host[0].cpu_jitter_us"]
        mean_us = c.overrides["host[0].tx_cpu_per_segment_us"] + j / 2
        assert abs(9140 * 8 / mean_us - 60.0) < 1e-9, c.label
        assert c.seeds == t.T4A_JITTER_SEEDS


def test_magic_table4b_rule_can_agree_and_can_differ():
    from atmsim.reproduce.magic95 import tables as t

    def case(mbps, rexmt):
        return t.Case("c", "f", 61.17, {}, per_seed=[[mbps / 2, mbps / 2]] * 2, rexmt=[rexmt, 0])

    assert t.table4b_rule(case(62.87, 0)).passes
    assert not t.table4b_rule(case(62.87, 1)).passes  # a loss
    assert not t.table4b_rule(case(64.5, 0)).passes  # 5.4 % above


def test_magic_table3_unpaced_with_tahoe_and_timeouts_only_under_the_advertised_window_rule():
    # As for Table 2: with ssthresh from the advertised window, recovery by slow start (Tahoe) or
    # by timeout alone collapses the two contending senders to the paper's 1.66 Mb/s (measured,
    # quick: Tahoe 1.66-2.33, timeouts only 1.48-1.78); BSD's rule keeps several times more.
    from atmsim.reproduce.magic95 import tables as t

    cases = {c.label: c for c in t.run_cases(t.table3_recovery_cases(), full=False)}
    assert set(cases) == {f"{r}, {rule}" for r in t.T3_RECOVERIES for rule in t.LOSS_RULES}
    assert all(c.file == "table3_no_pacing" and len(c.per_seed[0]) == 2 for c in cases.values())
    for name in t.T3_RECOVERIES:
        adv, bsd = cases[f"{name}, half_advertised"], cases[f"{name}, half_window"]
        assert adv.paper_in_range(), (name, adv.combined)
        assert 1.0 < adv.mbps.estimate < 2.5 and min(adv.timeouts) > 0
        assert bsd.mbps.estimate > 2 * adv.mbps.estimate, (name, bsd.combined, adv.combined)
    # Both connections of a case run the same recovery.
    tahoe = cases["Tahoe, half_advertised"].overrides
    assert tahoe["tcp[0].variant"] == tahoe["tcp[1].variant"] == "tahoe"


def _case(paper, per_seed, losses=None):
    from atmsim.reproduce.magic95 import tables as t

    return t.Case("c", "f", paper, {}, per_seed=[list(p) for p in per_seed],
                  losses_per_s=losses if losses is not None else [0.0] * len(per_seed))


def test_magic_table3_paced_rule_can_agree_and_can_differ():
    from atmsim.reproduce.magic95 import tables as t

    at_limit = _case(52.36, [[31.4, 31.4], [31.4, 31.5]])  # 62.8: 20 % above the paper
    assert not t.table3_paced_rule([at_limit, at_limit]).passes
    assert t.table3_paced_rule([at_limit, _case(52.36, [[27.4, 27.4], [27.5, 27.5]])]).passes  # 54.9: 4.8 % above
    assert not t.table3_paced_rule([_case(52.36, [[27.6, 27.6], [27.6, 27.6]])]).passes  # 55.2: 5.4 % above
    assert t.table3_paced_rule([_case(52.36, [[20.0, 20.0], [30.0, 30.0]])]).passes  # seeds 40-60 hold it


def test_magic_table4a_rule_can_agree_and_can_differ():
    from atmsim.reproduce.magic95 import tables as t

    shares = _case(46.71, [[23.0, 22.0], [25.0, 24.0]], [3.0, 2.5])  # 45-49 Mb/s, 2.75 losses/s
    assert t.table4a_agrees(shares) and t.table4a_rule([shares]).passes
    assert not t.table4a_agrees(_case(46.71, [[23.0, 22.0], [25.0, 24.0]], [1.0, 2.5]))  # 1.75 losses/s
    assert not t.table4a_agrees(_case(46.71, [[23.0, 22.0], [25.0, 24.0]], [4.0, 4.5]))  # 4.25 losses/s
    no_loss = _case(46.71, [[40.0, 40.0], [40.0, 40.0]])  # twice a 40 Mb/s limit, no losses
    assert not t.table4a_rule([no_loss]).passes
    assert t.table4a_rule([no_loss, shares]).passes  # some sender limit agrees


def test_magic_figure_rules_can_agree_and_can_differ():
    from atmsim.reproduce.magic95 import hosts as h

    # Figure 4: rising, the smallest below 10 % of the largest, every point within 3 % of the model.
    f4 = [(512, 6.9, 7.0, 1.0), (4096, 55.0, 55.5, 1.0), (9140, 118.0, 119.0, 1.0)]
    assert h.figure4_rule(f4).passes
    assert not h.figure4_rule([f4[0], (4096, 130.0, 131.0, 1.0), f4[2]]).passes  # not rising
    assert not h.figure4_rule([(512, 12.0, 12.1, 1.0)] + f4[1:]).passes  # the smallest at 10.2 %
    assert not h.figure4_rule([f4[0], (4096, 52.0, 55.5, 1.0), f4[2]]).passes  # 6.3 % below the model
    # Figure 7: every point within 3 % of the model.
    assert h.figure7_rule([(2, 512, 14.0, 14.2), (16, 9140, 500.0, 510.0)]).passes
    assert not h.figure7_rule([(2, 512, 14.0, 14.2), (16, 9140, 490.0, 510.0)]).passes  # 3.9 % below
    # Figure 3: the 1024-byte segment ahead of the 9140-byte one.
    f3 = [(m, g, 0, 0) for m, g in zip(magic95.FIG3_MSS, [5.0, 6.0, 5.5, 5.0, 4.5, 4.0])]
    assert magic95.figure3_rule(f3).passes
    assert not magic95.figure3_rule([(m, 4.0 if m == 1024 else g, r, x) for m, g, r, x in f3]).passes
    # Figure 5's model check: every simulated loss within a factor 3 of 1 %.
    assert magic95.figure5_check_rule([(256, 9180, 0.01, [0.02, 0.025]), (512, 1500, 0.3, [0.004, 0.004])]).passes
    assert not magic95.figure5_check_rule([(256, 9180, 0.01, [0.03, 0.032])]).passes  # 3.1 ×
    assert not magic95.figure5_check_rule([(256, 9180, 0.01, [0.003, 0.0031])]).passes  # 1/3.2


def test_magic_figure6_rules_can_agree_and_can_differ():
    def curve(first_lossy, tail):
        # Loss-free (and rising to 90 Mb/s) below ``first_lossy``, ``tail`` Mb/s with losses from it.
        return [(w, min(90.0, w / 400) if w < first_lossy else tail, 0 if w < first_lossy else 5)
                for w in magic95.FIG6_WINDOWS]

    late = curve(36864, 2.0)  # loss-free to 32 kB: BSD's 4 and 5 segments, 36,560-45,700 B
    assert not magic95.figure6_onset_rule(late).passes  # Eq. 2's 34,630 B is below 36,560
    at_eq2 = curve(28672, 2.0)  # loss-free to 24 kB: 3 segments (27,420 B) clean, 4 (36,560 B) lossy
    assert magic95.figure6_onset_rule(at_eq2).passes
    assert not magic95.figure6_onset_rule([(w, 10.0, 0) for w in magic95.FIG6_WINDOWS]).passes  # no onset
    assert magic95.figure6_collapse_rule(at_eq2).passes  # 2 of a 61.4 Mb/s peak: 3 %
    assert not magic95.figure6_collapse_rule(curve(28672, 6.5)).passes  # 6.5 of 61.4: 10.6 %
