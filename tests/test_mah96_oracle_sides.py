"""Every rule of the Mah (1996) oracle can say both ``agrees`` and ``differs``: for each row a
rule judges, runs built on the thesis' side of the rule agree and runs built on the other side
differ (at the thesis' scale, so that no row is excused as load-dependent). A row no rule
judges is of kind ``not comparable``."""

from __future__ import annotations

import pytest

from atmsim.reproduce.mah96 import oracle as oracle
from atmsim.reproduce.mah96 import report as report
from atmsim.study import Kind

BASE = (10.0, 10.5, 11.0)
JUDGED = [r for r in oracle.ROWS if r.kind not in ("qos", "conflict")]


def _runs(values: dict[str, tuple[float, ...]], stat_names) -> dict[str, list[dict]]:
    """Per configuration, one dict per seed with every statistic of the row."""
    return {c: [{s: v for s in stat_names} for v in vs] for c, vs in values.items()}


def _paired(row, b_of) -> dict[str, list[dict]]:
    a_side = {a for a, _ in row.pairs}
    b_side = {b for _, b in row.pairs}
    assert not a_side & b_side, f"{row.id}: a configuration on both sides"
    values = {a: BASE for a in a_side} | {b: tuple(b_of(x) for x in BASE) for b in b_side}
    return _runs(values, row.stats)


def _sized_b(z, sig, k: int, x: float) -> float:
    """Seed ``k``'s B value for a statistic with a published magnitude ``z``: the change of the
    means at the middle of the range; significant (A × (1 + c), or A + c) unless the thesis says
    "not sig.", where the three B values straddle the A triple (the nine differences span zero)."""
    c = (z.lo + z.hi) / 2
    if sig is not False:
        return x + c if z.delta else x * (1 + c)
    mean = sum(BASE) / len(BASE)
    m = mean + c if z.delta else mean * (1 + c)
    return m + (k - 1) * (abs(m - mean) + 2.0)


def _shift(row, agree: bool) -> dict[str, list[dict]]:
    sign = {"lower": -1.0, "higher": 1.0, None: 0.0}[row.expect]
    if not agree:
        return _paired(row, lambda x: x - (sign or -1.0) * 5.0)  # significant, on the other side
    step = 5.0 if row.sig else 0.2
    sizes = {z.stat: z for z in row.size}
    runs = _paired(row, lambda x: x + sign * step)
    for _, b in row.pairs:  # a statistic with a published magnitude gets it (within 5×)
        for k, (x, r) in enumerate(zip(BASE, runs[b])):
            r.update({st: _sized_b(z, row.sig, k, x) for st, z in sizes.items()})
    return runs


def _level(row, agree: bool) -> dict[str, list[dict]]:
    values = {}
    for config, lo, hi in row.targets:
        if agree:
            v = (lo + hi) / 2 if lo is not None and hi is not None else lo * 1.5 if hi is None else hi * 0.5
        else:
            v = hi * 3 + 1 if hi is not None else (lo * 0.1 if lo > 0 else lo - 1)
        values[config] = (v, v, v)
    return _runs(values, row.stats)


def _change(row, agree: bool) -> dict[str, list[dict]]:
    lo, hi = row.change
    if agree:
        c = (lo + hi) / 2 if lo is not None and hi is not None else hi - 0.01 if lo is None else lo + 0.01
    else:
        c = hi + abs(hi) + 1.0 if hi is not None else lo - abs(lo) - 1.0  # beyond the 25 % widening
    return _paired(row, (lambda x: x + c) if row.delta else (lambda x: x * (1 + c)))


def _ratio(row, agree: bool) -> dict[str, list[dict]]:
    svc, cache = (1000.0, 10.0) if agree else (100.0, 100.0)
    values = {a: (svc,) * 3 for a, _ in row.pairs} | {b: (cache,) * 3 for _, b in row.pairs}
    return _runs(values, row.stats)


def _chance(row, agree: bool) -> dict[str, list[dict]]:
    return _paired(row, (lambda x: x) if agree else (lambda x: x + 5.0))


BUILD = {"shift": _shift, "level": _level, "change": _change, "ratio": _ratio, "chance": _chance}


def _word(row, agree: bool) -> str:
    if row.kind == "identical":
        return oracle.judge(row, {}, True, "test", [[] for _ in range(3)] if agree else [["conn:x.completed"]]).word
    return oracle.judge(row, BUILD[row.kind](row, agree), True, "test").word


@pytest.mark.parametrize("row", JUDGED, ids=[r.id for r in JUDGED])
def test_every_rule_can_agree_and_can_differ(row):
    assert _word(row, agree=True) == oracle.AGREES
    assert _word(row, agree=False) == oracle.DIFFERS


def test_rows_no_rule_judges_are_not_comparable_in_kind_and_outcome():
    for row in oracle.ROWS:
        if row.kind in ("qos", "conflict"):
            assert report.kind_of(row) is Kind.NOT_COMPARABLE
            assert oracle.judge(row, {}, True, "test").word == oracle.NOT_COMPARABLE


def test_kinds_name_the_calibrated_rows_and_the_model_against_itself():
    kinds = {r.id: report.kind_of(r) for r in oracle.ROWS}
    assert {k for k, v in kinds.items() if v is Kind.CALIBRATED} == set(report.CALIBRATED_ROWS)
    assert {k for k, v in kinds.items() if v is Kind.MODEL} == {"V-10"}
