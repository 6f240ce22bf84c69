"""What every study reproduction shares (DESIGN.md §5): its :class:`Mode` (quick or full),
its :class:`Progress` (the one progress type the CLI's bar listens to), its
:class:`Verdict` records with the rules that decide them and the files they are written to
(``verdicts.json``, ``verdicts.csv``, and a table of the results store:
:mod:`atmsim.study.verdict_store`), the summary a report opens with
(:func:`write_study_report`), and its scenario files read as package resources
(:mod:`atmsim.study.resources`). The studies themselves are in :mod:`atmsim.reproduce`.
"""

from __future__ import annotations

from pathlib import Path

from .._report import write_report
from .mode import Mode
from .progress import Progress
from .verdict import (
    Kind,
    Outcome,
    Rule,
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

__all__ = [
    "Kind", "Mode", "Outcome", "Progress", "Rule", "Verdict", "above", "at_least", "at_most", "below", "holds", "in_range", "read_verdicts",
    "summary_html", "verdict_html", "within", "within_ratio", "write_study_report", "write_verdicts",
]


def write_study_report(out_dir: Path, title: str, body: str, verdicts: list[Verdict], runtime_s: float,
                       mode: Mode | str, store: str | Path | None = None, study: str = "") -> Path:
    """Write ``report.html`` (the summary of ``verdicts``, then ``body``) and the verdicts as
    data beside it — and, with a results ``store``, as ``study``'s rows of its ``verdicts``
    table (:mod:`atmsim.study.verdict_store`); returns the report's path. Under ``--tcp``,
    the pass in progress may change all four (:func:`atmsim.study.today.finish_report`)."""
    from .today import finish_report

    title, body, verdicts, study = finish_report(title, body, verdicts, study)  # --tcp: the side-by-side section
    out_dir = Path(out_dir)
    write_verdicts(out_dir, verdicts)
    if store is not None:
        if not study:
            raise ValueError("write_study_report: a store needs the study's name")
        from .verdict_store import write_store_verdicts

        write_store_verdicts(store, study, verdicts, str(mode))
    return write_report(out_dir, title, summary_html(verdicts, runtime_s, str(mode)) + body)
