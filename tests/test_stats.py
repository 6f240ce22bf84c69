"""atmsim.stats against scipy, brute force from the definitions, published tables and simulation."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st

from atmsim import stats
from atmsim.stats import compare, jain, mean_ci, median, percentile, summary

# ----- mean_ci -----------------------------------------------------------------------------


@pytest.mark.parametrize("level", [0.90, 0.95, 0.99])
def test_mean_ci_matches_scipy_t_interval(level):
    x = [12.1, 11.4, 13.0, 12.7, 11.9, 12.2, 12.8, 11.5, 12.0, 13.3]
    ci = mean_ci(x, level)
    n = len(x)
    sem = np.std(x, ddof=1) / math.sqrt(n)
    low, high = scipy.stats.t.interval(level, n - 1, loc=np.mean(x), scale=sem)
    assert ci.estimate == pytest.approx(np.mean(x))
    assert (ci.low, ci.high) == (pytest.approx(low), pytest.approx(high))
    assert ci.stderr == pytest.approx(scipy.stats.sem(x))
    assert ci.n == n and ci.level == level
    assert ci.half_width == pytest.approx((high - low) / 2)


def test_mean_ci_known_value():
    # mean 5, s = sqrt(10/4)... x = 3,4,5,6,7: s^2 = 2.5, se = sqrt(0.5); t_{0.975,4} = 2.776445
    ci = mean_ci([3, 4, 5, 6, 7])
    assert ci.estimate == 5
    assert ci.high - 5 == pytest.approx(2.7764451 * math.sqrt(0.5), rel=1e-6)


def test_mean_ci_single_value_has_nan_interval():
    ci = mean_ci([4.2])
    assert ci.estimate == 4.2 and ci.n == 1
    assert math.isnan(ci.low) and math.isnan(ci.high) and math.isnan(ci.stderr)


def test_mean_ci_constant_sample_is_zero_width():
    ci = mean_ci([2.0, 2.0, 2.0])
    assert ci.low == ci.high == 2.0


@pytest.mark.parametrize("bad", [[], [1.0, math.nan], [math.inf, 1.0]])
def test_mean_ci_rejects_empty_and_non_finite(bad):
    with pytest.raises(ValueError):
        mean_ci(bad)


@pytest.mark.parametrize("level", [0.0, 1.0, 95])
def test_bad_level(level):
    with pytest.raises(ValueError, match="level"):
        mean_ci([1, 2, 3], level)


@given(st.lists(st.floats(-1e6, 1e6), min_size=2, max_size=30), st.floats(0.5, 0.999))
def test_mean_ci_contains_the_mean(x, level):
    ci = mean_ci(x, level)
    assert ci.low <= ci.estimate <= ci.high
    assert ci.estimate in ci


# ----- bounded_mean_ci ---------------------------------------------------------------------


def test_bounded_ci_plain_t_interval_crosses_the_bound_this_one_does_not():
    # Three seeds of a utilisation near 1 (Cáceres Fig. 2): the t-interval reaches above 1.
    u = [0.999, 0.97, 0.93]
    assert mean_ci(u).high > 1
    ci = stats.bounded_mean_ci(u, 0.0, 1.0)
    assert 0 < ci.low < ci.estimate < ci.high < 1
    assert ci.estimate == pytest.approx(np.mean(u)) and ci.stderr == mean_ci(u).stderr
    # Near the upper bound the interval is longer below the mean than above it.
    assert ci.estimate - ci.low > ci.high - ci.estimate
    # A goodput near 0 (Koçyiğit's one-user plots): the t-interval goes negative.
    g = [0.1, 9.0, 0.4]
    assert mean_ci(g).low < 0
    cg = stats.bounded_mean_ci(g, lower=0.0)
    assert 0 < cg.low < cg.estimate < cg.high


@settings(max_examples=300)
@given(st.lists(st.floats(0, 1), min_size=2, max_size=12), st.floats(0.5, 0.999))
def test_bounded_ci_never_leaves_the_unit_interval(x, level):
    ci = stats.bounded_mean_ci(x, 0.0, 1.0, level)
    assert 0 <= ci.low <= ci.estimate <= ci.high <= 1


@settings(max_examples=300)
@given(st.lists(st.floats(0, 1e4), min_size=2, max_size=12), st.booleans())
def test_bounded_ci_never_leaves_a_half_line(x, above):
    # lower = 0 (a throughput), or upper = 0 for the mirrored values.
    ci = stats.bounded_mean_ci(x, lower=0.0) if above else stats.bounded_mean_ci([-v for v in x], upper=0.0)
    assert ci.low <= ci.estimate <= ci.high
    assert (ci.low >= 0) if above else (ci.high <= 0)


@pytest.mark.parametrize("bounds", [(None, None), (-1e9, None), (None, 1e9), (-1e9, 1e9)])
def test_bounded_ci_is_the_t_interval_when_the_range_is_far(bounds):
    x = [100.0, 102.0, 97.0, 101.0]
    plain, ci = mean_ci(x), stats.bounded_mean_ci(x, *bounds)
    assert ci.low == pytest.approx(plain.low, abs=1e-5) and ci.high == pytest.approx(plain.high, abs=1e-5)
    # A nearer bound bends it (lower = 0 is 25 half-widths away: a 0.2 % change), a near one much more.
    near = stats.bounded_mean_ci(x, lower=0.0)
    assert near.low == pytest.approx(plain.low, rel=2e-3) and near.low != pytest.approx(plain.low, rel=1e-5)
    close = stats.bounded_mean_ci(x, lower=95.0)
    assert close.low > plain.low + 0.5


def test_bounded_ci_edge_cases():
    assert stats.bounded_mean_ci([1.0, 1.0, 1.0], 0.0, 1.0) == stats.CI(1.0, 1.0, 1.0, 3, 0.95, 0.0)
    one = stats.bounded_mean_ci([0.5], 0.0, 1.0)
    assert one.estimate == 0.5 and math.isnan(one.low) and math.isnan(one.high)
    with pytest.raises(ValueError, match="outside the range"):
        stats.bounded_mean_ci([0.5, 1.2], 0.0, 1.0)
    with pytest.raises(ValueError, match="lower < upper"):
        stats.bounded_mean_ci([0.5, 0.6], 1.0, 0.0)


# ----- per-event samples -------------------------------------------------------------------


def test_percentile_is_numpy_linear():
    assert percentile([1, 2, 3, 4], 90) == pytest.approx(3.7)
    assert percentile([4, 1, 3, 2], 50) == 2.5
    assert percentile([5.0], 90) == 5.0
    with pytest.raises(ValueError):
        percentile([1, 2], 101)


def test_median_and_summary():
    x = np.arange(1, 11, dtype=float)  # 1..10
    assert median(x) == 5.5
    s = summary(x)
    assert (s.n, s.mean, s.median) == (10, 5.5, 5.5)
    assert s.p90 == pytest.approx(9.1)


# ----- Mann-Whitney / Hodges-Lehmann --------------------------------------------------------


def _brute_u_cdf(m: int, n: int) -> np.ndarray:
    """P(U <= u) by enumerating every placement of the x's among m + n ranks."""
    counts = np.zeros(m * n + 1)
    for xs in itertools.combinations(range(m + n), m):
        # U = pairs (x, y) with x above y = sum over x of the y's below it
        u = sum(r - i for i, r in enumerate(xs))
        counts[u] += 1
    return np.cumsum(counts) / counts.sum()


@pytest.mark.parametrize("m,n", [(1, 1), (1, 4), (3, 3), (4, 2), (5, 6), (7, 7)])
def test_exact_null_distribution_matches_enumeration(m, n):
    assert np.allclose(stats._u_null_cdf(m, n), _brute_u_cdf(m, n), atol=1e-12)


@pytest.mark.parametrize(
    "m,n,level,critical",
    [
        # lower critical values of U from the standard Mann-Whitney tables:
        # the largest U with P(U <= U_crit) <= alpha/2
        (10, 10, 0.95, 23),
        (10, 10, 0.90, 27),
        (5, 5, 0.95, 2),
        (5, 5, 0.90, 4),
        (8, 12, 0.95, 22),
        (20, 20, 0.95, 127),
    ],
)
def test_critical_values_match_published_tables(m, n, level, critical):
    k, achieved, method = stats._rank_ci_k(m, n, level)
    assert method == "exact"
    assert k == critical + 1
    assert achieved >= level


def test_normal_approximation_agrees_with_exact_near_the_switch(monkeypatch):
    for m, n in [(30, 30), (50, 50), (40, 60)]:
        k_exact, a_exact, _ = stats._rank_ci_k(m, n, 0.90)
        monkeypatch.setattr(stats, "EXACT_MAX_MN", 0)
        k_norm, a_norm, method = stats._rank_ci_k(m, n, 0.90)
        monkeypatch.undo()
        assert method == "normal"
        assert abs(k_norm - k_exact) <= 1
        assert a_norm == pytest.approx(a_exact, abs=0.01)


def test_compare_from_the_definition():
    rng = np.random.default_rng(7)
    x = rng.normal(10.0, 2.0, 9)
    y = rng.normal(8.0, 2.0, 7)
    c = compare(x, y, level=0.90)
    d = sorted(xi - yj for xi in x for yj in y)
    assert c.shift == pytest.approx(np.median(d))
    # interval endpoints are the k-th smallest and k-th largest difference
    k, achieved, _ = stats._rank_ci_k(9, 7, 0.90)
    assert (c.low, c.high) == (d[k - 1], d[-k])
    assert c.achieved_level == achieved >= 0.90
    # U counts pairs with x above y; the p-value is scipy's two-sided test
    assert c.u == sum(xi > yj for xi in x for yj in y)
    assert c.p_value == pytest.approx(scipy.stats.mannwhitneyu(x, y, alternative="two-sided").pvalue)
    assert (c.m, c.n, c.method) == (9, 7, "exact")


def test_three_runs_each_at_90_percent_is_the_range_of_differences():
    # Mah ran most configurations three times: the 90% interval is exactly [min D, max D]
    c = compare([3.0, 5.0, 4.0], [1.0, 0.5, 2.0], level=0.90)
    assert (c.low, c.high) == (1.0, 4.5)
    assert c.achieved_level == pytest.approx(0.90)
    assert c.significant
    assert c.shift == pytest.approx(np.median([2, 2.5, 1, 4, 4.5, 3, 3, 3.5, 2]))


def test_too_small_for_the_level_is_unbounded():
    c = compare([1.0, 2.0], [3.0, 4.0], level=0.90)
    assert c.low == -math.inf and c.high == math.inf
    assert c.achieved_level == 1.0 and not c.significant


def test_identical_samples_are_not_significant():
    c = compare([1, 2, 3, 4, 5], [1, 2, 3, 4, 5])
    assert c.shift == 0.0 and c.low < 0 < c.high and not c.significant


@pytest.mark.parametrize("m,n,reps", [(8, 8, 2000), (60, 55, 600)])
def test_interval_coverage_by_simulation(m, n, reps):
    rng = np.random.default_rng(20240501)
    shift = 1.5
    covered = 0
    achieved = None
    for _ in range(reps):
        x = rng.normal(shift, 1.0, m)
        y = rng.normal(0.0, 1.0, n)
        c = compare(x, y, level=0.90)
        covered += c.low <= shift <= c.high
        achieved = c.achieved_level
    rate = covered / reps
    tolerance = 4 * math.sqrt(achieved * (1 - achieved) / reps)
    assert abs(rate - achieved) < tolerance, (rate, achieved)
    assert achieved == pytest.approx(0.90, abs=0.02)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(-1e3, 1e3), min_size=1, max_size=12),
    st.lists(st.floats(-1e3, 1e3), min_size=1, max_size=12),
    st.floats(-1e3, 1e3),
)
def test_hodges_lehmann_shifts_with_the_data(x, y, c):
    base = compare(x, y)
    moved = compare(x, np.asarray(y) - c)
    assert moved.shift == pytest.approx(base.shift + c, abs=1e-6)
    assert base.low <= base.shift <= base.high


def test_compare_rejects_empty():
    with pytest.raises(ValueError, match="y"):
        compare([1.0], [])


# ----- Jain's fairness index ---------------------------------------------------------------


def test_jain_known_values():
    assert jain([5, 5, 5, 5]) == pytest.approx(1.0)
    assert jain([0, 0, 7, 0]) == pytest.approx(0.25)
    assert jain([1, 3]) == pytest.approx(16 / 20)
    assert math.isnan(jain([0, 0]))
    with pytest.raises(ValueError):
        jain([1, -1])


@given(
    st.lists(st.floats(0, 1e12), min_size=1, max_size=40).filter(lambda v: max(v) > 0),
    st.floats(1e-6, 1e6),
)
def test_jain_bounds_and_scale_invariance(x, scale):
    j = jain(x)
    n = len(x)
    assert 1 / n - 1e-12 <= j <= 1 + 1e-12
    assert jain(np.asarray(x) * scale) == pytest.approx(j, rel=1e-9)


def test_the_studies_and_their_rules_import_without_scipy():
    # `atmsim reproduce` and `atmsim report` import these before they open their store; scipy
    # (about 0.85 s to import) waits until a statistic needs it, so a damaged or missing store
    # is reported at once.
    import subprocess
    import sys

    code = (
        "import sys, atmsim.stats, atmsim.reproduce.kocyigit.rules, atmsim.reproduce.mah96.oracle, "
        "atmsim.reproduce.magic95.tables; print(sorted(m for m in sys.modules if m.startswith('scipy')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]", out
    assert stats.mean_ci([1.0, 2.0, 3.0]).high > 2.0  # and a statistic still finds it
