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
    # One round-trip window per conversation: 16 segments of 12 cells each.
    assert c.scenario(kinds, "per-type")["switch"][0]["buffer_cells"] == 4 * 16 * 12


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


def test_average_ftp_throughput_is_similar_under_all_policies(delay_throughput):
    thr = {p: delay_throughput["ftp"][p][-1].mean for p in c.POLICIES}
    assert max(thr.values()) - min(thr.values()) < 0.1 * max(thr.values()), thr


def test_only_per_conversation_channels_share_bandwidth_fairly(study):
    fair = study.fairness()
    assert fair["per-conversation"]["whole"].estimate > 0.95
    for shared in ("per-type", "per-destination"):
        assert fair["per-conversation"]["short"].estimate > fair[shared]["short"].estimate + 0.05, (
            shared, fair["per-conversation"]["short"], fair[shared]["short"])
