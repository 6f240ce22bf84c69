"""`atmsim reproduce STUDY --tcp SPEC`: a study run twice (BSD, then the profile on every
connection), the report's section "With today's TCP" with numbers from both runs, the verdict
tallies left as BSD's, and a results store that keeps the two runs apart
(atmsim.study.today, atmsim.study.executor)."""

from __future__ import annotations

import html
import json
import re
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from atmsim import Scenario
from atmsim.reproduce import kalampoukas97 as k97
from atmsim.reproduce.kalampoukas97 import today as k97_today
from atmsim.reproduce.runner import run_many
from atmsim.study import Kind, Outcome, Verdict, executor, read_verdicts, within, write_study_report
from atmsim.study.executor import run_study
from atmsim.study.tcp_profile import parse
from atmsim.study.today import Comparison, KeyRow, note
from atmsim.study.verdict import counts
from atmsim.study.verdict_store import read_store_verdicts

REPO = Path(__file__).resolve().parent.parent


def _contention(duration_s: float = 3.0) -> Scenario:
    """Two senders into one 256-cell port: cells are lost, so the TCP matters."""
    sc = Scenario.from_toml(REPO / "scenarios/examples/contention_tcp.toml")
    return sc.set("simulation.duration_s", duration_s).set("simulation.warmup_s", 0.5).set("simulation.sample_interval_ms", 0)


COMPARISON = Comparison(
    "Does the TCP matter here?",
    (KeyRow("goodput", "goodput of both", "1.0", "Mb/s", "{:.3f}"), KeyRow("row a", "row a's number", "2.0", "Mb/s", "{:.3f}")),
    lambda p, bsd, mod: f"{p.label} gets {mod['goodput']:.3f} Mb/s against BSD's {bsd['goodput']:.3f}.",
)


def _body(out_dir, mode, seed, progress, store):
    (summary,) = run_many([(_contention(), seed)])
    goodput = sum(c["goodput_bps"] for c in summary["connections"]) / 1e6
    note("goodput", goodput)
    verdicts = [Verdict.judged("row a", Kind.VALIDATED, "2.0 Mb/s", within(goodput, 2.0, 100.0), ours=goodput, unit="Mb/s"),
                Verdict.judged("row b", Kind.CALIBRATED, "1.0 Mb/s", within(goodput, 1.0, 0.001), ours=goodput, unit="Mb/s")]
    return write_study_report(Path(out_dir), "toy study", "<p>body</p>", verdicts, 0.0, "quick", store=store, study="toy")


def _section(page: str) -> str:
    page = html.unescape(page)
    return page[page.index("<h2>With today's TCP"):]


def _plain_numbers(text: str) -> list[str]:
    return re.findall(r"<td>(\d+\.\d+)</td>", text)


def test_a_study_runs_twice_and_its_report_shows_both(tmp_path):
    store = tmp_path / "runs.duckdb"
    plain = run_study("toy", _body, tmp_path / "plain", "quick", 1, None, store, 0, None)
    page_plain = plain.read_text()
    assert "With today" not in page_plain

    report = run_study("toy", _body, tmp_path / "out", "quick", 1, None, store, 0, None, parse("newreno"), COMPARISON)
    bsd, modern = read_verdicts(tmp_path / "plain"), read_verdicts(tmp_path / "out" / "tcp-newreno")
    mine = read_verdicts(tmp_path / "out")
    b, m = bsd[0].ours, modern[0].ours
    assert b != m, "cells are lost: Reno and NewReno recover differently"
    section = _section(report.read_text())
    assert "With today's TCP (NewReno)" in section
    assert f"NewReno gets {m:.3f} Mb/s against BSD's {b:.3f}." in section  # the answer, from both runs' numbers
    assert _plain_numbers(section) == ["1.0", f"{b:.3f}", f"{m:.3f}", "2.0", f"{b:.3f}", f"{m:.3f}"]  # paper, BSD, NewReno
    # The profile's rows are not comparable: the validated and calibrated tallies are BSD's.
    extra = mine[len(bsd):]
    assert mine[:len(bsd)] == bsd
    assert [v.row for v in extra] == ["With newreno: goodput of both", "With newreno: row a's number"]
    assert all(v.kind is Kind.NOT_COMPARABLE and v.outcome is Outcome.NOT_COMPARABLE for v in extra)
    assert [v.ours for v in extra] == [pytest.approx(m), pytest.approx(m)]
    c_plain, c_mine = counts(bsd), counts(mine)
    assert {k: c_mine[k] for k in c_mine if k != "not comparable"} == {k: c_plain[k] for k in c_plain if k != "not comparable"}
    # The profile's own report: every row not comparable, saying what the paper's rule would give.
    assert all(v.kind is Kind.NOT_COMPARABLE for v in modern)
    assert "would say agrees" in modern[0].rule and "NewReno, not the paper's TCP" in modern[0].rule
    # The store keeps both runs apart, keyed by their documents, and both studies' verdicts.
    with duckdb.connect(str(store), read_only=True) as con:
        rows = con.execute("SELECT run_id, scenario_doc FROM runs ORDER BY run_id").fetchall()
    variants = sorted(t.get("variant", "reno") for _, doc in rows for t in json.loads(doc)["tcp"])
    assert len(rows) == 2 and variants == ["newreno", "newreno", "reno", "reno"]
    assert [v.row for v in read_store_verdicts(store, "toy")] == [v.row for v in mine]
    assert [v.kind for v in read_store_verdicts(store, "toy --tcp newreno")] == [Kind.NOT_COMPARABLE] * 2


def test_the_bsd_runs_in_the_store_are_read_back_not_run_again(tmp_path):
    store = tmp_path / "runs.duckdb"
    run_study("toy", _body, tmp_path / "plain", "quick", 1, None, store, 0, None)
    seen: list[executor.Executor] = []

    def body(*args):
        seen.append(executor.current())
        return _body(*args)

    run_study("toy", body, tmp_path / "out", "quick", 1, None, store, 0, None, parse("newreno"), COMPARISON)
    modern, bsd = seen
    assert (modern.tcp, modern.executed, modern.reused) == (parse("newreno"), 1, 0)
    assert (bsd.tcp, bsd.executed, bsd.reused) == (None, 0, 1)


def test_kalampoukas_quick_with_newreno_has_the_section_from_both_runs(shared, tmp_path):
    # The BSD runs are those of test_kalampoukas97's quick study (the same store): whichever runs
    # first simulates them, the other reads them back.
    with shared.lock("kalampoukas97-quick") as d:
        report = k97.run(tmp_path / "k97", store=d / "runs.duckdb", tcp="newreno")
    bsd = {v.row: v for v in read_verdicts(tmp_path / "k97")}
    modern = {v.row: v for v in read_verdicts(tmp_path / "k97" / "tcp-newreno")}
    section = _section(report.read_text())
    assert "With today's TCP (NewReno)" in section and "Ack compression costs NewReno" in section
    for row in k97_today.COMPARISON.rows:
        if row.key in bsd:
            b, m = row.value({row.key: bsd[row.key].ours}), row.value({row.key: modern[row.key].ours})
            assert f"<td>{b}</td><td>{m}</td>" in section, row.label
    added = [v for v in bsd.values() if v.row.startswith("With newreno: ")]
    assert len(added) == len(k97_today.COMPARISON.rows)
    assert all(v.kind is Kind.NOT_COMPARABLE for v in added)
    assert all(v.kind is Kind.NOT_COMPARABLE for v in modern.values())


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "atmsim", *args], capture_output=True, text=True, cwd=cwd,
                          stdin=subprocess.DEVNULL, timeout=120)


@pytest.mark.parametrize(("study", "spec", "line"), [
    ("magic95", "cubic+cubic", "error: --tcp: 'cubic' given twice"),
    ("mah96-calibration", "cubic", "error: --tcp: `mah96-calibration` does not take it"),
])
def test_a_bad_tcp_option_is_one_line_and_nothing_runs(tmp_path, study, spec, line):
    proc = _cli("reproduce", study, "--tcp", spec, "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert proc.returncode == 2
    assert len(proc.stderr.splitlines()) == 1 and proc.stderr.startswith(line), proc.stderr
    assert "Traceback" not in proc.stderr and not (tmp_path / "out").exists()


def test_the_help_documents_the_option(tmp_path):
    proc = _cli("reproduce", "--help", cwd=tmp_path)
    assert "--tcp SPEC" in proc.stdout and "cubic+sack+ts" in proc.stdout


def test_mah96_runs_its_subset_with_the_profile_and_shows_both(tmp_path):
    from atmsim.reproduce import mah96
    from atmsim.reproduce.mah96 import today as mah_today

    report = mah96.run(tmp_path / "m", configs="noqos-conv-svc", seeds="1-2", workstations=3, duration_s=20.0, jobs=0,
                       tcp="newreno")
    section = _section(report.read_text())
    assert "With today's TCP (NewReno)" in section and "the VC policy changes the Web page median by" in section
    assert "changes each configuration's page median by" in section

    modern = read_verdicts(tmp_path / "m" / "tcp-newreno")
    assert modern and all(v.kind is Kind.NOT_COMPARABLE for v in modern)
    with duckdb.connect(str(tmp_path / "m" / "results.duckdb"), read_only=True) as con:
        docs = [json.loads(d) for (d,) in con.execute("SELECT scenario_doc FROM runs").fetchall()]
    newreno = [d for d in docs if all(t.get("variant") == "newreno" for t in d["traffic"])]
    assert len(newreno) == 2 * len(mah_today.SUBSET)  # the subset at both seeds, every generated connection on NewReno
    assert len(docs) - len(newreno) == 2 * len(mah_today.SUBSET)  # BSD's subset (noqos-conv-svc among it)
    assert not any("variant" in t for d in docs if d not in newreno for t in d["traffic"])


def test_mah96_answer_counts_the_change_configuration_by_configuration():
    from atmsim.reproduce.mah96 import today as mah_today
    from atmsim.study.tcp_profile import parse

    bsd = {mah_today.key(c, "http.page.median"): 1.0 + i / 10 for i, c in enumerate(mah_today.SUBSET)}
    modern = {k: v * (1.1 if i % 2 else 1.05) for i, (k, v) in enumerate(bsd.items())}
    mean, least, most = mah_today.page_change(bsd, modern)
    assert (round(least, 6), round(most, 6)) == (5.0, 10.0)
    assert round(mean, 6) == round((4 * 5.0 + 3 * 10.0) / 7, 6)
    text = mah_today.answer(parse("cubic"), bsd, modern)
    assert "by +7.1 % on average (+5.0 to +10.0 %)" in text
