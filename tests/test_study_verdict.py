"""atmsim.study verdicts: every rule on both sides of its threshold, the files, the summary."""

from __future__ import annotations

import csv
import json
import math

import pytest

from atmsim.study import (
    Kind,
    Outcome,
    Verdict,
    above,
    at_least,
    at_most,
    below,
    holds,
    in_range,
    read_verdicts,
    summary_html,
    verdict_html,
    within,
    within_ratio,
    write_verdicts,
)
from atmsim.study.verdict import counts


@pytest.mark.parametrize("rule, passes", [
    (within(0.671, 0.651, 0.02), True), (within(0.672, 0.651, 0.02), False), (within(0.630, 0.651, 0.02), False),
    (within_ratio(71.6, 68.2, 0.05), True), (within_ratio(71.7, 68.2, 0.05), False), (within_ratio(64.7, 68.2, 0.05), False),
    (in_range(3, 3, 4), True), (in_range(4, 3, 4), True), (in_range(2.99, 3, 4), False), (in_range(4.01, 3, 4), False),
    (above(0.51, 0.5), True), (above(0.5, 0.5), False),
    (below(0.49, 0.5), True), (below(0.5, 0.5), False),
    (at_most(0.5, 0.5), True), (at_most(0.51, 0.5), False),
    (at_least(0.5, 0.5), True), (at_least(0.49, 0.5), False),
    (holds("both directions", True), True), (holds("both directions", 0), False),
])
def test_every_rule_can_agree_and_can_differ(rule, passes):
    assert rule.passes is passes
    assert rule.outcome is (Outcome.AGREES if passes else Outcome.DIFFERS)
    assert rule.text


def test_rule_words_state_the_threshold():
    assert within(1, 65.1, 2, "%").text == "within ±2 % of 65.1 %"
    assert within_ratio(1, 68.2, 0.05).text == "within ±5 % of 68.2"
    assert in_range(1, 3, 4).text == "in [3, 4]"


def _rows():
    return [
        Verdict.judged("A", Kind.VALIDATED, "65.1 %", within(65.4, 65.1, 2), paper_value=65.1, ours=65.4, low=64.0,
                       high=66.0, unit="%"),
        Verdict.judged("B", Kind.VALIDATED, "paper B", above(0.2, 0.5)),
        Verdict.judged("C", Kind.CALIBRATED, "0.051 %", within(0.05, 0.051, 0.01)),
        Verdict.judged("D", Kind.MODEL, "fix ≈ one-way", within(0.9, 0.93, 0.03)),
        Verdict.not_comparable("E", "lost figure", "the delays are lost", ours=float("nan")),
        Verdict.not_comparable("F", "a level at scale", "judged at the thesis' scale only", kind=Kind.VALIDATED),
    ]


def test_summary_counts_validated_agrees_and_differs_apart_from_the_other_kinds():
    c = counts(_rows())
    assert c == {"validated agrees": 1, "validated differs": 1, "calibrated": 1, "model-vs-model": 1, "not comparable": 2}
    page = summary_html(_rows(), 12.0, "quick")
    assert "<td>1</td><td>1</td><td>1</td><td>1</td><td>2</td>" in page
    assert "within ±2 of 65.1" in page and "65.4 [64, 66] %" in page


def test_verdicts_round_trip_through_json_and_csv(tmp_path):
    rows = _rows()
    write_verdicts(tmp_path, rows)
    back = read_verdicts(tmp_path)
    assert [(v.row, v.kind, v.outcome) for v in back] == [(v.row, v.kind, v.outcome) for v in rows]
    assert back[0] == rows[0]
    assert json.loads((tmp_path / "verdicts.json").read_text())[4]["ours"] is None  # NaN is null
    table = list(csv.DictReader((tmp_path / "verdicts.csv").open()))
    assert [r["outcome"] for r in table] == ["agrees", "differs", "agrees", "agrees", "not comparable", "not comparable"]
    assert table[1]["kind"] == "validated" and table[3]["kind"] == "model-vs-model"


def test_verdicts_round_trip_through_the_results_store(tmp_path):
    import duckdb

    from atmsim._store import Store
    from atmsim.study import write_study_report
    from atmsim.study.verdict_store import read_store_verdicts, write_store_verdicts

    store = tmp_path / "results.duckdb"
    rows = _rows()
    write_study_report(tmp_path / "a", "A", "<p>a</p>", rows, 1.0, "quick", store=store, study="a")
    write_store_verdicts(store, "b", rows[:2], "full")
    back = read_store_verdicts(store, "a")
    assert back == read_verdicts(tmp_path / "a") and [v.row for v in back] == [v.row for v in rows]
    assert back[4].ours is None  # NaN is null here too
    # Writing a study again replaces its rows and only its rows.
    write_store_verdicts(store, "a", rows[3:], "full")
    assert [v.row for v in read_store_verdicts(store, "a")] == [v.row for v in rows[3:]]
    assert [v.row for v in read_store_verdicts(store, "b")] == [v.row for v in rows[:2]]
    # Any DuckDB client reads the table; the file is still an atmsim results store.
    con = duckdb.connect(str(store), read_only=True)
    try:
        got = con.execute("SELECT study, kind, outcome, mode FROM verdicts ORDER BY study, position").fetchall()
    finally:
        con.close()
    assert got[0] == ("a", rows[3].kind.value, rows[3].outcome.value, "full") and len(got) == len(rows) - 3 + 2
    Store(store).verify()
    with pytest.raises(ValueError, match="study's name"):
        write_study_report(tmp_path / "c", "C", "", rows, 1.0, "quick", store=store)


def test_a_row_of_kind_not_comparable_cannot_agree_and_row_ids_are_unique(tmp_path):
    with pytest.raises(ValueError):
        Verdict("X", Kind.NOT_COMPARABLE, Outcome.AGREES, "p", "r")
    with pytest.raises(ValueError, match="two verdicts"):
        write_verdicts(tmp_path, [_rows()[0], _rows()[0]])


def test_the_body_line_names_outcome_kind_and_rule():
    line = verdict_html(_rows()[3])
    assert "Verdict (D): agrees" in line and "model-vs-model" in line and "within ±0.03 of 0.93" in line
    assert not math.isnan(_rows()[0].ours)
