"""The closed forms of Kalampoukas, Varma & Ramakrishnan (1997) against the paper's published
numbers, the digest's worked numbers (shared/specs/kalampoukas97.md §2.11) and its errata."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from atmsim.reproduce.kalampoukas97 import theory as kt

TwoWay, Regime = kt.TwoWay, kt.Regime


def pct(x: float) -> float:
    return round(100 * x, 2)


# --- §3: symmetric rates ------------------------------------------------------------------------


@pytest.mark.parametrize("l", [1, 2, 8, 15, 14.26, 1000])
def test_window_of_twice_the_pipe_gives_two_thirds(l):
    """Abstract, §1, §3, §6: W = 2L → 66.67 % each, against 100 % one way."""
    pair = TwoWay.symmetric(2 * l, 2 * l, l)
    assert pair.regime() is Regime.BALANCED
    assert pair.efficiency() == pytest.approx((2 / 3, 2 / 3))
    assert kt.equal_pair_efficiency(2 * l, l) == pytest.approx(2 / 3)
    assert kt.one_way_efficiency(2 * l, 2 * l) == 1.0
    assert pair.period() == pytest.approx(6 * l)  # digest §2.11: period 6L, S = 2L
    assert pair.peak_sum() == pytest.approx(2 * l)


def test_figure_3_2_example():
    """W = 4, L = 2: 8 segments in 12 slots; node j's peaks 1 and 3 (sum 4) alternate."""
    pair = TwoWay.symmetric(4, 4, 2)
    assert pair.efficiency() == (8 / 12, 8 / 12)
    assert pair.period() == 12
    assert pair.swapped().next_peak(1) == 3 and pair.swapped().next_peak(3) == 1


def test_figures_3_3_and_3_4():
    """Fig. 3.3 (L = 8): linear to 50 % at W = L, 66.67 % at W = 2L; Fig. 3.4 (W = 8): two-way
    below one-way only for L < 8; digest Appendix B's table."""
    ws = [2, 4, 8, 12, 16, 24, 32, 64]
    assert [round(kt.equal_pair_efficiency(w, 8), 3) for w in ws] == [
        0.125, 0.25, 0.5, 0.6, 0.667, 0.75, 0.8, 0.889]
    ls = [0.5, 1, 2, 4, 6, 8, 12, 16]
    assert [round(kt.equal_pair_efficiency(8, l), 3) for l in ls] == [
        0.941, 0.889, 0.8, 0.667, 0.571, 0.5, 0.333, 0.25]
    for l in ls:
        one_way = kt.one_way_efficiency(8, 2 * l)
        assert (kt.equal_pair_efficiency(8, l) < one_way) == (l < 8)


def test_lemma_1_dominant_window():
    """W_i = 40, W_j = 8, L = 8: F = (1, W_j/W_i); both repeat every W_i (the statement, not the
    proof's Eq. 3.7 — digest E1); queue bounds W_i − 2L and W_j (Lemma 4)."""
    pair = TwoWay.symmetric(40, 8, 8)
    assert pair.regime() is Regime.I_DOMINANT
    assert pair.efficiency() == (1.0, 0.2)
    assert pair.period() == 40 and pair.swapped().period() == 40
    assert pair.queue_bound() == 24 and pair.swapped().queue_bound() == 8
    assert pair.swapped().regime() is Regime.J_DOMINANT


# --- §5.2 ----------------------------------------------------------------------------------------


def test_section_5_2_prediction_and_queue_peaks():
    """W = 28, L = 15: F = 28/43 ≈ 65.1 %; S = 26, so the paper's 13-segment peak repeats
    (Eq. 3.9: 28 + 28 − 15 − 15 − 13 = 13); a staggered start alternates 12/14 (digest §2.12)."""
    pair = TwoWay.symmetric(28, 28, 15)
    assert pct(pair.efficiency()[0]) == 65.12
    assert pair.peak_sum() == 26
    assert pair.next_peak(13) == 13
    assert pair.next_peak(12) == 14 and pair.next_peak(14) == 12
    assert pair.queue_bound() == 26
    # 85.3 Mb/s of the 131 Mb/s TCP maximum; period 86 segment times = 48.3 ms.
    assert round(pair.efficiency()[0] * 131, 1) == 85.3
    assert round(pair.period() / kt.segment_rate() * 1e3, 1) == 48.3


def test_section_5_2_delay_conventions():
    """Pure propagation (L = 14.26) gives 66.26 % (the digest's 66.24 is a slip); propagation plus
    one reassembly segment (L = 15.26) gives 64.73 %."""
    l = kt.delay_in_segments(8e-3)
    assert round(l, 2) == 14.26
    assert pct(TwoWay.symmetric(28, 28, l).efficiency()[0]) == 66.26
    assert pct(TwoWay.symmetric(28, 28, l + 1).efficiency()[0]) == 64.73


# --- §1.7: cell-level constants ------------------------------------------------------------------


def test_cell_level_constants():
    """192 cells per 9180-byte packet; 0.5611 ms per segment at the OC-3c rate with one RM cell in
    32; 130.88 Mb/s = 84.4 % of 155 (paper: "approximately 85 %, about 131"); a third: 43.6."""
    assert kt.cells_per_packet(9180) == 192
    assert kt.cells_per_packet(40) == 1  # an ack
    assert round(1e3 / kt.segment_rate(), 4) == 0.5611
    assert round(kt.tcp_rate_mbps(), 2) == 130.88
    assert round(kt.tcp_rate_mbps() / 155 * 100, 1) == 84.4
    assert round(kt.tcp_rate_mbps(kt.OC3C_CELLS_S / 3), 1) == 43.6
    assert round(kt.OC3C_CELLS_S, 1) == 353207.5


# --- §4 and §5.3: asymmetric rates ---------------------------------------------------------------


def test_section_5_3_fast_56_and_slow_84_percent():
    """Fast right-to-left 56 % (≈ 73.4 Mb/s; the paper measured 73.5); the slow one 84.0 % by
    Eq. 4.2, where the paper says "about 80 %" (digest E5)."""
    pair = kt.section_5_3()
    slow, fast = pair.efficiency()
    assert pair.regime() is Regime.BALANCED
    assert pct(fast) == 56.0 and pct(slow) == 84.0
    assert abs(fast * 131 - 73.5) < 0.2
    # Period 56.1 ms; peak sums 13.3 at the slow node (cap 14) and 40 at the fast one (cap 28):
    # the model's traces alternate 9.33/4.0 and 12/28 (digest §2.12).
    assert round(pair.period() * 1e3, 1) == 56.1
    assert round(pair.peak_sum(), 2) == 13.33
    assert pair.next_peak(28 / 3) == pytest.approx(4.0)
    assert pair.swapped().peak_sum() == pytest.approx(40.0)
    assert pair.swapped().next_peak(12) == 28 and pair.swapped().next_peak(28) == 12
    assert pair.swapped().queue_bound() == 28  # E2: Lemma 5's balanced case capped at W


def test_section_5_3_printed_formula_erratum():
    """E3: as printed (times the slow rate) the formula gives 168 %; with rho_j it is 56 %."""
    pair = kt.section_5_3()
    assert pct(kt.section_5_3_printed_formula(pair)) == 168.0
    assert kt.section_5_3_printed_formula(pair) / 3 == pytest.approx(pair.efficiency()[1])


def test_section_5_3_sensitivity_to_the_delay_convention():
    """8 ms each way (no reassembly): slow 85.3 %, fast 56.8 % (digest §2.11)."""
    slow, fast = kt.section_5_3(kt.delay_in_segments(8e-3)).efficiency()
    assert (round(100 * slow, 1), round(100 * fast, 1)) == (85.3, 56.8)


def test_figure_4_1():
    """128-KB windows, 5 ms each way, j at 155 Mb/s: at rho_i = 20, F_j = 12.9 % ("below 15 %");
    the knee at 62.5 Mb/s ("about 60") with F_j = 40.4 %; at 155 both 57.5 % ("60 %")."""
    assert pct(kt.figure_4_1(20)[1]) == 12.9
    assert kt.figure_4_1(20)[0] == 1.0
    knee = kt.figure_4_1_boundary_mbps()
    assert round(knee, 2) == 62.55
    assert pct(knee / 155) == 40.35
    assert round(kt.figure_4_1_boundary_mbps(window_bytes=128_000), 1) == 61.7
    assert [pct(f) for f in kt.figure_4_1(155)] == [57.5, 57.5]


def test_figure_4_1_throughput_gain_erratum():
    """E6: from 60 to 155 Mb/s for i, the pair gains 58.3 Mb/s and loses 36.7 of the 95 added;
    the paper's +64/31 comes from rounded readings (0.6·310 − (60 + 0.4·155))."""
    def total(rho_i):
        f_i, f_j = kt.figure_4_1(rho_i)
        return f_i * rho_i + f_j * 155
    assert round(total(60), 1) == 120.0 and round(total(155), 1) == 178.3
    assert round(total(155) - total(60), 1) == 58.3
    assert round(95 - (total(155) - total(60)), 1) == 36.7
    assert 0.6 * 310 - (60 + 0.4 * 155) == pytest.approx(64)


def test_section_6_example_and_erratum():
    """155 vs 30 Mb/s, 128 KB, 5 ms: the fast connection gets 19.4 % of its link ("only 20 %"),
    exactly 30/155 in case 3; that is 28.6 % of its one-way, window-limited 104.9 Mb/s (E11)."""
    slow, fast = kt.figure_4_1(30)
    assert slow == 1.0 and pct(fast) == 19.35
    assert fast == pytest.approx(30 / 155)
    one_way_mbps = 128 * 1024 * 8 / 10e-3 / 1e6
    assert round(one_way_mbps, 1) == 104.9
    assert round(fast * 155 / one_way_mbps * 100, 1) == 28.6


# --- §5.4, §5.5 ---------------------------------------------------------------------------------


def test_fat_connections_and_client_server():
    """§5.4 fat connection (4 × 7 each way) at L = 9 fat segments: 75.7 %, S = 38 (so the paper's
    23-segment peak would alternate with 15, digest E8 corrected); §5.5: W = 7 at L = 3 gives
    the paper's ≈ 70 %."""
    assert pct(kt.fat_efficiency([7] * 4, [7] * 4, 9, 9)) == 75.68
    assert TwoWay.symmetric(28, 28, 9).peak_sum() == 38
    assert TwoWay.symmetric(28, 28, 9).next_peak(23) == 15
    assert kt.fat_efficiency([7] * 4, [7] * 4, 5, 5) == pytest.approx(TwoWay.symmetric(28, 28, 5).efficiency()[0])
    assert kt.equal_pair_efficiency(7, 3) == pytest.approx(0.70)


# --- properties over the whole parameter space ---------------------------------------------------

windows = st.floats(0.5, 60)
rates = st.floats(0.2, 5)
delays = st.floats(0.0, 30)


@given(windows, windows, rates, rates, delays, delays)
def test_theorem_2_is_continuous_and_symmetric(w_i, w_j, r_i, r_j, d_ij, d_ji):
    """Efficiencies lie in (0, 1]; swapping the nodes swaps them; in the balanced regime they are
    in the ratio of the window times; one connection at least is degraded under compression."""
    pair = TwoWay(w_i, w_j, r_i, r_j, d_ij + 1e-3, d_ji + 1e-3)
    f_i, f_j = pair.efficiency()
    assert 0 < f_i <= 1 and 0 < f_j <= 1
    assert pair.swapped().efficiency() == pytest.approx((f_j, f_i))
    if pair.regime() is Regime.BALANCED:
        assert f_i / f_j == pytest.approx(pair.t_i / pair.t_j)
    if pair.compresses():
        assert min(f_i, f_j) < 1
        assert pair.queue_bound() <= w_i + 1e-9


@given(st.floats(0.5, 60), st.floats(0.2, 5), st.floats(0.2, 5), st.floats(0.01, 30))
def test_regime_boundaries_join_continuously(w_j, r_i, r_j, d):
    """At t_i = t_j + D (cases 1/2) and at t_i + t_j = D (no compression / case 2) the two forms
    give the same efficiencies."""
    for t_i in (w_j / r_j + d, max(d - w_j / r_j, 0.0)):
        if t_i <= 0:
            continue
        below = TwoWay(t_i * r_i * (1 - 1e-9), w_j, r_i, r_j, d / 2, d / 2).efficiency()
        above = TwoWay(t_i * r_i * (1 + 1e-9), w_j, r_i, r_j, d / 2, d / 2).efficiency()
        assert below == pytest.approx(above, rel=1e-6)


@given(windows, windows, st.floats(0.0, 40), st.floats(0, 1))
def test_lemma_2_queue_is_period_two(w_i, w_j, l, frac):
    """In the balanced regime, from any consistent start, the peaks alternate q, S − q, q."""
    pair = TwoWay.symmetric(w_i, w_j, l / 2)
    if pair.regime() is not Regime.BALANCED:
        return
    s = pair.peak_sum()
    lo, hi = max(0.0, s - w_i), min(w_i, s)
    if lo > hi:
        return
    q = lo + frac * (hi - lo)
    assert pair.next_peak(pair.next_peak(q)) == pytest.approx(q, abs=1e-9)
    assert math.isclose(q + pair.next_peak(q), s) or pair.next_peak(q) == w_i


def test_theorem_1_claims():
    """Larger window → larger share; raising both equal windows raises both efficiencies."""
    for l in (2, 8, 15):
        for w in range(1, 40):
            f_big, f_small = TwoWay.symmetric(w + 3, w, l).efficiency()
            assert f_big >= f_small
            assert kt.equal_pair_efficiency(w + 1, l) > kt.equal_pair_efficiency(w, l)
