"""Cáceres 1993 findings, asserted on quick-mode runs (1000 RTTs, 3 seeds).

These are the paper's conclusions, not numbers we tuned: they must come out of the model.
"""

from __future__ import annotations

import pytest

from atmsim.reproduce import caceres93 as c


@pytest.fixture(scope="module")
def study():
    return c.Study(full=False, seed=1)


@pytest.fixture(scope="module")
def delay_throughput(study):
    return study.figures3to5(max_ftp=5)


def test_scenario_maps_policies_to_channels():
    kinds = ["telnet", "ftp", "ftp", "smtp"]
    vcs = {p: {t["vc"] for t in c.scenario(kinds, p)["tcp"]} for p in c.POLICIES}
    assert len(vcs["per-conversation"]) == 4
    assert vcs["per-type"] == {"type-telnet", "type-ftp", "type-smtp"}
    assert vcs["per-destination"] == {"dest"}
    # §2.4: one round-trip window (bandwidth × 45 ms) per conversation: 1.5e6 · 0.045 / 424
    # = 159.2 cells → 160; at 3 Mb/s 318.4 → 319.
    assert c.scenario(kinds, "per-type")["switch"][0]["buffer_cells"] == 4 * 160
    assert c.scenario(kinds, "per-type", link_bps=3e6)["router"][0]["buffer_cells"] == 4 * 319
    tcp = c.scenario(kinds, "per-conversation")["tcp"]
    # CELLSIM's TCP (slow start, no fast recovery) and tcplib's connection per FTP item.
    assert {t["variant"] for t in tcp} == {"tahoe"}
    assert [t["app"].get("connection_per_item", False) for t in tcp] == [False, True, True, False]


def _run(doc, seed=1):
    from atmsim._scenario import Scenario

    return Scenario.from_dict(doc).run(seed=seed).summary


@pytest.mark.parametrize("policy", c.POLICIES)
def test_the_section_2_4_buffers_cannot_overflow_with_five_ftp_windows(policy):
    # The bound of the module docs: the queue never holds more than the five FTP windows
    # (5 · 16 segments · 12 cells = 960) plus the TELNET's, whatever the policy, so the
    # 6 · 160 = 960-cell pool of the rule minus the path's share never overflows.
    r = _run(c.scenario(["telnet"] + ["ftp"] * 5, policy, duration_s=90.0, warmup_s=20.0))
    wan = next(p for p in r["ports"] if p["name"] == "src-router->switch")
    assert wan["buffer_cells"] == 960
    assert wan["drops"] == 0
    assert wan["max_queue_cells"] <= 5 * 192 + 12 * 2
    # A quarter of the rule (240 cells) is below that bound: losses and retransmissions.
    r = _run(c.scenario(["telnet"] + ["ftp"] * 5, policy, duration_s=90.0, warmup_s=20.0, buffer_fraction=0.25))
    assert sum(p["drops"] for p in r["ports"]) > 0
    assert sum(x["rexmt_segs"] for x in r["connections"]) > 0


def test_saturation_point_reads_the_first_load_at_the_threshold():
    pts = [c.Point(0, 0.1, 0, 0), c.Point(1, 0.5, 0, 0), c.Point(2, 0.92, 0, 0), c.Point(3, 0.99, 0, 0)]
    assert c.saturation_point(pts, 0.9) == 2
    assert c.saturation_point(pts, 0.95) == 3
    assert c.saturation_point(pts, 0.999) is None


def test_ftp_saturates_the_link_with_three_or_four_conversations(study):
    f2 = study.figure2()
    ftp = {p.x: p.mean for p in f2["ftp"]}
    assert ftp[2] < 0.9 and max(ftp[3], ftp[4]) > 0.9, ftp
    assert f2["telnet"][-1].mean < 0.05  # 16 TELNET conversations leave the link mostly idle
    assert f2["smtp"][-1].mean < f2["nntp"][-1].mean < 1.0


def test_telnet_delay_stays_near_one_rtt_only_with_separate_channels(delay_throughput):
    d = delay_throughput["delay"]
    at = lambda policy, n: next(p.mean for p in d[policy] if p.x == n)  # noqa: E731
    for policy in c.POLICIES:
        assert at(policy, 0) < 1.3, (policy, at(policy, 0))
    for policy in ("per-conversation", "per-type"):
        assert at(policy, 5) < 1.5, (policy, at(policy, 5))
    assert at("per-destination", 5) > 2.0 * at("per-conversation", 5)
    # ... and grows with load.
    assert at("per-destination", 5) > at("per-destination", 2) > at("per-destination", 0)
    std = delay_throughput["std"]
    assert std["per-destination"][-1].mean > 2 * std["per-conversation"][-1].mean


def test_interval_bars_stay_in_each_quantitys_range(study, delay_throughput):
    # Three seeds of a utilisation near 1 or a delay's spread near 0: a plain t-interval crossed
    # 1 and 0; the bounded interval keeps utilisations in [0, 1], delays and std ≥ 0.
    f2 = study.figure2()
    for key, pts in [*((f"util {k}", v) for k, v in f2.items()),
                     *((f"{m} {p}", v) for m in ("util", "ftp") for p, v in delay_throughput[m].items())]:
        for pt in pts:
            assert 0 <= pt.low <= pt.mean <= pt.high <= 1, (key, pt)
    for m in ("delay", "std"):
        for p, pts in delay_throughput[m].items():
            for pt in pts:
                assert 0 <= pt.low <= pt.mean <= pt.high, (m, p, pt)
    # The bars are real intervals, not collapsed to the mean.
    assert any(pt.high - pt.low > 0.01 for pt in f2["ftp"])


def test_average_ftp_throughput_is_similar_under_all_policies(delay_throughput):
    thr = {p: delay_throughput["ftp"][p][-1].mean for p in c.POLICIES}
    assert max(thr.values()) - min(thr.values()) < 0.1 * max(thr.values()), thr


def test_only_per_conversation_channels_share_bandwidth_fairly(study):
    fair = study.fairness()
    for shared in ("per-type", "per-destination"):
        assert fair["per-conversation"]["short"].estimate > fair[shared]["short"].estimate + 0.05, (
            shared, fair["per-conversation"]["short"], fair[shared]["short"])


def test_round_robin_gives_greedy_senders_equal_shares(study):
    # Closed form: five always-backlogged senders with equal windows, served cell by cell
    # round robin with no loss, get equal shares in every interval (Jain = 1).
    fair = study.fairness(kind="bulk")
    assert fair["per-conversation"]["short"].estimate > 0.99
    assert all(sum(fair[p]["drops"]) == 0 for p in c.POLICIES)


P = ("per-conversation", "per-type", "per-destination")


def by_policy(*xs):
    return dict(zip(P, xs))


def test_every_verdict_rule_can_agree_and_can_differ():
    cases = [
        (c.fig2_rule(3), True), (c.fig2_rule(4), True), (c.fig2_rule(5), False), (c.fig2_rule(None), False),
        (c.figs34_rule(by_policy(1.0, 1.1, 1.7)), True), (c.figs34_rule(by_policy(1.0, 1.2, 1.7)), False),
        (c.figs34_rule(by_policy(1.5, 1.0, 3.0)), False),
        (c.fig5_rule(by_policy(0.15, 0.15, 0.14)), True), (c.fig5_rule(by_policy(0.15, 0.15, 0.13)), False),
        (c.figs67_rule(by_policy(0.8, 0.74, 0.7), by_policy(0.9, 0.86, 0.8)), True),
        (c.figs67_rule(by_policy(0.8, 0.76, 0.7), by_policy(0.9, 0.86, 0.8)), False),
        (c.figs67_rule(by_policy(0.8, 0.74, 0.7), by_policy(0.9, 0.88, 0.8)), False),
        (c.figs89_rule(by_policy(0, 3, 5), by_policy(0.9, 0.7, 0.7)), True),
        (c.figs89_rule(by_policy(1, 3, 5), by_policy(0.9, 0.7, 0.7)), False),
        (c.figs89_rule(by_policy(0, 3, 0), by_policy(0.9, 0.7, 0.7)), False),
        (c.figs89_rule(by_policy(0, 3, 5), by_policy(0.9, 0.7, 0.8)), False),
        (c.s6_phenomena_rule(by_policy(1.0, 1.1, 1.7)), True), (c.s6_phenomena_rule(by_policy(1.0, 1.2, 1.7)), False),
        (c.s6_saturation_rule({0.9: 4, 0.95: 5}, {0.9: 6, 0.95: 7}), False),
        (c.s6_saturation_rule({0.9: 3, 0.95: 4}, {0.9: 6, 0.95: 8}), True),
        (c.s6_saturation_rule({0.9: None}, {0.9: 8}), False),
        (c.s7_fair_rule(by_policy(0.8, 0.74, 0.7)), True), (c.s7_fair_rule(by_policy(0.8, 0.76, 0.7)), False),
        (c.s7_worse_rule(by_policy(0.9, 0.6, 0.6), by_policy(0.9, 0.7, 0.7)), True),
        (c.s7_worse_rule(by_policy(0.9, 0.6, 0.7), by_policy(0.9, 0.7, 0.7)), False),
    ]
    assert [r.passes for r, _ in cases] == [want for _, want in cases]
