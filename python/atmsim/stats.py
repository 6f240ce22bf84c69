"""Statistics for comparing simulation results: over seeds, over events, between systems.

Owns the small set of estimators the studies use, so every report computes them the same way:

* :func:`mean_ci` — the mean over independent replications (seeds) with a Student-t confidence
  interval, as Cáceres et al. (1993, §2.3) do: 10–20 seeds, 95% intervals. It assumes the
  per-seed values are roughly normal (or that there are enough seeds for the mean to be).
* :func:`bounded_mean_ci` — the same interval for a quantity with a physical range (a
  utilisation or an efficiency in [0, 1], a throughput or a standard deviation ≥ 0): the
  t-interval is built on a scale where the range is unbounded — log(x − lower) for one bound,
  logit((x − lower)/(upper − lower)) for two — by the delta method (the mean's standard error
  times the transform's slope at the mean) and mapped back. It never leaves the range, is
  asymmetric near a bound, and becomes :func:`mean_ci`'s interval as the bounds recede (the
  transform is then nearly linear over the interval). With 2–3 seeds a plain t-interval of a
  utilisation near 1 crosses 1; this one does not (Cáceres et al. 1993 §2.3, Koçyiğit et al.
  §4 report such means).
* :func:`median`, :func:`percentile`, :func:`summary` — the median and 90th percentile of a
  distribution of per-event samples (e.g. each Web page's transfer time), the metrics Mah
  (1996, Table 3-3) compares. Percentiles use numpy's default *linear* interpolation between
  order statistics (Hyndman & Fan type 7, also R's default): ``percentile([1, 2, 3, 4], 90)``
  is 3.7.
* :func:`compare` — Mah's (1996, §3.5.2) distribution-free comparison of two systems: the
  Mann-Whitney U test and a confidence interval for the shift between them built on it
  (90% by default), so that "the interval excludes zero" means "the systems differ".
* :func:`jain` — Jain's fairness index of an allocation, e.g. goodput across connections.

All functions take any 1-d array-like of numbers and reject NaN and infinities with a
``ValueError`` (a missing value in a sweep is a failed run, which callers drop explicitly).

The shift interval (Hodges-Lehmann / Moses). For samples ``x`` (size m) and ``y`` (size n)
and the location-shift model ``x ~ y + Δ``, form the m·n pairwise differences
``D_ij = x_i - y_j`` and sort them, ``D_(1) ≤ … ≤ D_(mn)``. The Hodges-Lehmann estimate of Δ
is their median. Under the model, ``#{D_ij > Δ}`` has the null distribution of the
Mann-Whitney statistic U, so with ``k`` the largest integer such that
``P(U ≤ k - 1) ≤ α/2`` the interval ``[D_(k), D_(mn-k+1)]`` covers Δ with probability
``1 - 2·P(U ≤ k - 1) ≥ 1 - α`` (Hollander & Wolfe, *Nonparametric Statistical Methods*,
2nd ed. 1999, §4.3; Lehmann, *Nonparametrics*, 1975, §2.6). The null distribution of U is
computed exactly (a recurrence over m and n) when ``m·n ≤ EXACT_MAX_MN``; above that the
normal approximation with continuity correction gives
``k = floor(mn/2 - z_{α/2}·sqrt(mn(m+n+1)/12) + 1/2)``. Because U is discrete the exact
interval's coverage (``Comparison.achieved_level``) is at least the requested level and can
be higher; with m = n = 3 a 90% interval is exactly 90% and is the range of all nine
differences. When even that widest interval falls short of the level (e.g. m = n = 2 at
90%: 4/6), the interval is unbounded, ``(-inf, inf)``, and ``achieved_level`` is 1. Ties in
the data make the coverage approximate; the construction is unchanged.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from numpy.typing import ArrayLike

# scipy is imported where it is used: importing scipy.stats costs about 0.85 s, and every
# `atmsim reproduce` and `atmsim report` imports this module before it opens its store.

__all__ = [
    "CI",
    "EXACT_MAX_MN",
    "Comparison",
    "Summary",
    "bounded_mean_ci",
    "compare",
    "jain",
    "mean_ci",
    "median",
    "percentile",
    "summary",
]

#: Largest m·n for which compare() uses the exact null distribution of U.
EXACT_MAX_MN = 2500


def _sample(x: ArrayLike, name: str = "x", min_n: int = 1) -> np.ndarray:
    a = np.atleast_1d(np.asarray(x, dtype=np.float64))
    if a.ndim != 1:
        raise ValueError(f"{name}: expected a 1-d sample, got shape {a.shape}")
    if len(a) < min_n:
        raise ValueError(f"{name}: need at least {min_n} value{'s' if min_n > 1 else ''}, got {len(a)}")
    if not np.all(np.isfinite(a)):
        raise ValueError(f"{name}: contains NaN or infinite values")
    return a


def _level(level: float) -> float:
    if not (0.0 < level < 1.0):
        raise ValueError(f"level: expected a confidence level in (0, 1), got {level}")
    return float(level)


# ----- mean over seeds -----------------------------------------------------------------


@dataclass(frozen=True)
class CI:
    """A point estimate with a two-sided confidence interval ``[low, high]``."""

    estimate: float
    low: float
    high: float
    n: int
    level: float
    stderr: float

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2.0

    def __contains__(self, value: float) -> bool:
        return self.low <= value <= self.high


def mean_ci(x: ArrayLike, level: float = 0.95) -> CI:
    """Mean of ``x`` with its Student-t confidence interval at ``level``.

    ``x`` holds one value per independent replication (seed). The interval is
    ``mean ± t_{(1+level)/2, n-1} · s/√n`` with ``s`` the sample standard deviation
    (ddof = 1), identical to ``scipy.stats.t.interval(level, n - 1, mean, s/√n)``.

    With a single value there is no estimate of the spread: ``estimate`` is that value and
    ``low``, ``high`` and ``stderr`` are NaN (so a one-seed sweep still plots its means).
    An empty sample raises ``ValueError``. Constant samples give a zero-width interval.
    """
    import scipy.stats
    a = _sample(x)
    level = _level(level)
    n = len(a)
    est = float(np.mean(a))
    if n == 1:
        return CI(est, math.nan, math.nan, 1, level, math.nan)
    se = float(np.std(a, ddof=1)) / math.sqrt(n)
    half = float(scipy.stats.t.ppf((1.0 + level) / 2.0, n - 1)) * se
    return CI(est, est - half, est + half, n, level, se)


def bounded_mean_ci(x: ArrayLike, lower: float | None = None, upper: float | None = None, level: float = 0.95) -> CI:
    """Mean of ``x`` with a ``level`` confidence interval inside [``lower``, ``upper``] (either may
    be None: no bound on that side). Module docs: a delta-method t-interval on the log scale
    (one bound) or the logit scale (two), mapped back. ``estimate`` and ``stderr`` are
    :func:`mean_ci`'s; with no bound the result is :func:`mean_ci`'s. A value outside the range
    raises ``ValueError`` (the range is physical: such a value is a bug upstream). A mean on a
    bound (every value there) gives a zero-width interval; one value gives NaN bounds."""
    import scipy.special
    import scipy.stats
    plain = mean_ci(x, level)
    if lower is None and upper is None:
        return plain
    a = _sample(x)
    if lower is not None and upper is not None and not lower < upper:
        raise ValueError(f"bounds: expected lower < upper, got [{lower}, {upper}]")
    if (lower is not None and np.any(a < lower)) or (upper is not None and np.any(a > upper)):
        raise ValueError(f"x: values outside the range [{lower}, {upper}]: {a.min():g} … {a.max():g}")
    m, se = plain.estimate, plain.stderr
    if plain.n == 1 or se == 0.0 or m == lower or m == upper:
        return plain if plain.n == 1 else CI(m, m, m, plain.n, plain.level, se)
    t = float(scipy.stats.t.ppf((1.0 + plain.level) / 2.0, plain.n - 1))
    if upper is None and lower is not None:  # log(x − lower)
        d = m - lower
        low, high = lower + d * math.exp(-t * se / d), lower + d * math.exp(t * se / d)
    elif lower is None and upper is not None:  # log(upper − x)
        d = upper - m
        low, high = upper - d * math.exp(t * se / d), upper - d * math.exp(-t * se / d)
    else:  # logit((x − lower) / (upper − lower))
        assert lower is not None and upper is not None  # both None returned above
        w = upper - lower
        u = (m - lower) / w
        z, dz = math.log(u / (1 - u)), t * se / (w * u * (1 - u))
        low, high = (lower + w * float(scipy.special.expit(v)) for v in (z - dz, z + dz))
    # The round trip through the transform may move a zero-width end by an ulp past the mean.
    return CI(m, min(low, m), max(high, m), plain.n, plain.level, se)


# ----- per-event samples ---------------------------------------------------------------


@dataclass(frozen=True)
class Summary:
    """Median and 90th percentile of a distribution of per-event samples."""

    n: int
    mean: float
    median: float
    p90: float


def median(x: ArrayLike) -> float:
    """Median of ``x`` (the mean of the two middle values for even sizes)."""
    return float(np.median(_sample(x)))


def percentile(x: ArrayLike, q: float) -> float:
    """The ``q``-th percentile (0–100) of ``x``, numpy's default linear interpolation."""
    if not (0.0 <= q <= 100.0):
        raise ValueError(f"q: expected a percentile in [0, 100], got {q}")
    return float(np.percentile(_sample(x), q))


def summary(x: ArrayLike) -> Summary:
    """``Summary(n, mean, median, p90)`` of per-event samples (Mah 1996, Table 3-3)."""
    a = _sample(x)
    return Summary(len(a), float(np.mean(a)), float(np.median(a)), float(np.percentile(a, 90)))


# ----- comparing two systems -----------------------------------------------------------


@dataclass(frozen=True)
class Comparison:
    """Mann-Whitney test of ``x`` against ``y`` and the shift ``x - y`` with its interval.

    ``u`` is the statistic of ``x`` (pairs with ``x_i > y_j``, ties counting ½) and
    ``p_value`` the two-sided p-value, both from ``scipy.stats.mannwhitneyu``. ``shift`` is
    the Hodges-Lehmann estimate; ``[low, high]`` its interval at ``level``, whose actual
    coverage is ``achieved_level``; ``method`` says how the critical value was found
    (``"exact"`` or ``"normal"``).
    """

    u: float
    p_value: float
    shift: float
    low: float
    high: float
    level: float
    achieved_level: float
    m: int
    n: int
    method: str

    @property
    def significant(self) -> bool:
        """True when the interval excludes zero (the systems differ at ``level``)."""
        return self.low > 0.0 or self.high < 0.0


@lru_cache(maxsize=256)
def _u_null_cdf(m: int, n: int) -> tuple[float, ...]:
    """``P(U ≤ u)`` for u = 0..mn under H0 (no ties), by the recurrence on the largest value.

    The largest of the m + n values is an x with probability m/(m+n) and then exceeds all
    n y's: ``p_{m,n}(u) = m/(m+n)·p_{m-1,n}(u-n) + n/(m+n)·p_{m,n-1}(u)``.
    """
    # prev[j] is the pmf for (i - 1, j); built row by row in i.
    prev = [np.ones(1) for _ in range(n + 1)]  # i = 0: U = 0 surely
    for i in range(1, m + 1):
        cur = [np.ones(1)]  # j = 0: U = 0 surely
        for j in range(1, n + 1):
            p = np.zeros(i * j + 1)
            p[j:] += i / (i + j) * prev[j]  # largest is an x: U(i-1, j) + j
            p[: len(cur[j - 1])] += j / (i + j) * cur[j - 1]  # largest is a y: U(i, j-1)
            cur.append(p)
        prev = cur
    return tuple(np.minimum(np.cumsum(prev[n]), 1.0).tolist())


def _rank_ci_k(m: int, n: int, level: float) -> tuple[int, float, str]:
    """``(k, achieved_level, method)`` for the interval ``[D_(k), D_(mn-k+1)]``; k = 0 means unbounded."""
    import scipy.stats
    alpha = 1.0 - level
    mn = m * n
    if mn <= EXACT_MAX_MN:
        cdf = _u_null_cdf(m, n)
        k = 0
        # largest k with P(U <= k-1) <= alpha/2 (tolerance for the float recurrence)
        while k < (mn + 1) // 2 and cdf[k] <= alpha / 2.0 + 1e-12:
            k += 1
        achieved = 1.0 if k == 0 else 1.0 - 2.0 * cdf[k - 1]
        return k, achieved, "exact"
    sigma = math.sqrt(mn * (m + n + 1) / 12.0)
    z = float(scipy.stats.norm.ppf(1.0 - alpha / 2.0))
    k = max(0, min((mn + 1) // 2, math.floor(mn / 2.0 - z * sigma + 0.5)))
    achieved = 1.0 if k == 0 else 1.0 - 2.0 * float(scipy.stats.norm.cdf((k - 0.5 - mn / 2.0) / sigma))
    return k, achieved, "normal"


def compare(x: ArrayLike, y: ArrayLike, level: float = 0.90) -> Comparison:
    """Compare samples ``x`` and ``y`` without assuming normality (Mah 1996, §3.5.2).

    Returns the two-sided Mann-Whitney U test and the Hodges-Lehmann estimate of the shift
    ``x - y`` with its distribution-free confidence interval at ``level`` (see the module
    docstring for the construction). Needs at least one value in each sample; the interval
    is unbounded when the samples are too small for ``level``. Memory grows as ``m·n``.
    """
    import scipy.stats
    a = _sample(x, "x")
    b = _sample(y, "y")
    level = _level(level)
    m, n = len(a), len(b)
    test = scipy.stats.mannwhitneyu(a, b, alternative="two-sided", method="auto")
    d = np.sort(np.subtract.outer(a, b).ravel())
    shift = float(np.median(d))
    k, achieved, method = _rank_ci_k(m, n, level)
    if k == 0:
        low, high = -math.inf, math.inf
    else:
        low, high = float(d[k - 1]), float(d[m * n - k])
    return Comparison(float(test.statistic), float(test.pvalue), shift, low, high, level, achieved, m, n, method)


# ----- fairness ------------------------------------------------------------------------


def jain(x: ArrayLike) -> float:
    """Jain's fairness index ``(Σx)² / (n·Σx²)`` of non-negative allocations ``x``.

    1 when all shares are equal, ``1/n`` when one of n takes everything; scale-invariant.
    Undefined (NaN) when every share is zero. Negative values raise ``ValueError``.
    """
    a = _sample(x)
    if np.any(a < 0):
        raise ValueError("x: Jain's index needs non-negative allocations")
    top = float(np.max(a))
    if top == 0.0:
        return math.nan
    a = a / top  # scale first: tiny or huge shares must neither underflow nor overflow
    return float(np.sum(a) ** 2 / (len(a) * np.sum(a * a)))
