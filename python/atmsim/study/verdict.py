"""A study's verdicts as data: :class:`Verdict` records, the rules that decide them, and
the files and summary table they become.

A verdict is one row of a reproduction: the paper's statement (and its number, if it gives
one), ours (with its interval, if we have one), the rule that compares them, the outcome
the rule gives, and the row's **kind**, which says what an ``agrees`` is worth:

- ``validated``: compared with something the model was not fitted to;
- ``calibrated``: a row a model parameter was chosen from, so agreement is by construction;
- ``model-vs-model``: a property of the model against the model (a fix against our own
  one-way run, pvc ≡ svccache, a result equal to a rate we assumed);
- ``not comparable``: the paper gives nothing to compare with (lost inputs, no number).

The outcome is ``agrees`` or ``differs`` when a rule is applied, ``not comparable`` when
none can be (kind ``not comparable``, or a row judged only at the paper's scale).

Rules (:func:`within`, :func:`within_ratio`, :func:`in_range`, :func:`above`,
:func:`below`, :func:`at_most`, :func:`at_least`, :func:`holds`) return a :class:`Rule`: the rule's words and whether the
numbers pass it; a verdict's outcome is always computed from a rule, never written down.

Files (:func:`write_verdicts`): ``verdicts.json`` (a list of records, the fields of
:class:`Verdict`) and ``verdicts.csv`` beside a report's HTML; :func:`read_verdicts` reads
the JSON back. :func:`summary_html` is the table a report opens with: the counts per kind
and outcome, then every row.
"""

from __future__ import annotations

import csv
import html
import json
import math
from dataclasses import asdict, dataclass, fields
from enum import Enum
from pathlib import Path
from typing import Any

from .._output import atomic_file

__all__ = [
    "Kind", "Outcome", "Rule", "Verdict", "above", "at_least", "at_most", "below", "holds", "in_range", "read_verdicts",
    "summary_html", "verdict_html", "within", "within_ratio", "write_verdicts",
]


class Kind(str, Enum):
    VALIDATED = "validated"
    CALIBRATED = "calibrated"
    MODEL = "model-vs-model"
    NOT_COMPARABLE = "not comparable"

    def __str__(self) -> str:
        return self.value


class Outcome(str, Enum):
    AGREES = "agrees"
    DIFFERS = "differs"
    NOT_COMPARABLE = "not comparable"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Rule:
    """A rule's words (``within 2 points of 65.1 %``) and whether the numbers pass it."""

    text: str
    passes: bool

    @property
    def outcome(self) -> Outcome:
        return Outcome.AGREES if self.passes else Outcome.DIFFERS


def _num(x: float, unit: str) -> str:
    return f"{x:g}{(' ' + unit) if unit else ''}"


#: Tolerances are compared with this much slack, so that a distance of exactly the
#: tolerance (0.671 − 0.651 against 0.02) is not lost to binary rounding.
_SLACK = 1e-9


def within(ours: float, target: float, tol: float, unit: str = "") -> Rule:
    """|ours − target| ≤ tol."""
    return Rule(f"within ±{_num(tol, unit)} of {_num(target, unit)}", abs(ours - target) <= tol * (1 + _SLACK))


def within_ratio(ours: float, target: float, rel: float) -> Rule:
    """|ours / target − 1| ≤ rel."""
    return Rule(f"within ±{100 * rel:g} % of {target:g}", abs(ours / target - 1) <= rel * (1 + _SLACK))


def in_range(ours: float, low: float, high: float, unit: str = "") -> Rule:
    """low ≤ ours ≤ high."""
    return Rule(f"in [{_num(low, unit)}, {_num(high, unit)}]", low <= ours <= high)


def above(ours: float, bound: float, unit: str = "") -> Rule:
    """ours > bound."""
    return Rule(f"above {_num(bound, unit)}", ours > bound)


def below(ours: float, bound: float, unit: str = "") -> Rule:
    """ours < bound."""
    return Rule(f"below {_num(bound, unit)}", ours < bound)


def at_most(ours: float, bound: float, unit: str = "") -> Rule:
    """ours ≤ bound."""
    return Rule(f"at most {_num(bound, unit)}", ours <= bound)


def at_least(ours: float, bound: float, unit: str = "") -> Rule:
    """ours ≥ bound."""
    return Rule(f"at least {_num(bound, unit)}", ours >= bound)


def holds(text: str, passes: bool) -> Rule:
    """A rule the study computes itself (several numbers, a direction); ``text`` states it
    with its thresholds."""
    return Rule(text, bool(passes))


@dataclass(frozen=True)
class Verdict:
    """One row of a reproduction (module docs). Numbers are in ``unit``; ``low``/``high``
    bound ``ours`` where we have an interval; ``detail`` is the row's explanation (text)."""

    row: str
    kind: Kind
    outcome: Outcome
    paper: str
    rule: str
    paper_value: float | None = None
    ours: float | None = None
    low: float | None = None
    high: float | None = None
    unit: str = ""
    detail: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", Kind(self.kind))
        object.__setattr__(self, "outcome", Outcome(self.outcome))
        if self.kind is Kind.NOT_COMPARABLE and self.outcome is not Outcome.NOT_COMPARABLE:
            raise ValueError(f"{self.row}: a row of kind 'not comparable' cannot {self.outcome}")

    @classmethod
    def judged(cls, row: str, kind: Kind, paper: str, rule: Rule, **kw: Any) -> Verdict:
        """A row whose outcome is ``rule``'s."""
        return cls(row, kind, rule.outcome, paper, rule.text, **kw)

    @classmethod
    def not_comparable(cls, row: str, paper: str, why: str, kind: Kind = Kind.NOT_COMPARABLE, **kw: Any) -> Verdict:
        """A row no rule is applied to; ``why`` says why (it is the row's rule column)."""
        return cls(row, kind, Outcome.NOT_COMPARABLE, paper, why, **kw)

    @property
    def counts_as(self) -> str:
        """The summary column: ``validated agrees``, ``validated differs``, or the kind."""
        if self.kind is Kind.VALIDATED and self.outcome is not Outcome.NOT_COMPARABLE:
            return f"validated {self.outcome}"
        if self.outcome is Outcome.NOT_COMPARABLE:
            return "not comparable"
        return str(self.kind)

    def record(self) -> dict:
        """The verdict as a JSON-ready dict (NaN numbers as null)."""
        d = asdict(self)
        d["kind"], d["outcome"] = str(self.kind), str(self.outcome)
        for k in ("paper_value", "ours", "low", "high"):
            if d[k] is not None and not math.isfinite(d[k]):
                d[k] = None
        return d


SUMMARY_COLUMNS = ("validated agrees", "validated differs", "calibrated", "model-vs-model", "not comparable")
_FIELDS = [f.name for f in fields(Verdict)]


def _check_unique(verdicts: list[Verdict]) -> None:
    seen: set[str] = set()
    for v in verdicts:
        if v.row in seen:
            raise ValueError(f"two verdicts name the row {v.row!r}")
        seen.add(v.row)


def write_verdicts(out_dir: Path, verdicts: list[Verdict]) -> tuple[Path, Path]:
    """Write ``verdicts.json`` and ``verdicts.csv`` into ``out_dir``; returns their paths."""
    _check_unique(verdicts)
    out_dir.mkdir(parents=True, exist_ok=True)
    records = [v.record() for v in verdicts]
    js, cs = out_dir / "verdicts.json", out_dir / "verdicts.csv"
    with atomic_file(js, "w") as f:
        json.dump(records, f, indent=1, ensure_ascii=False)
        f.write("\n")
    with atomic_file(cs, "w") as f:
        w = csv.DictWriter(f, fieldnames=_FIELDS)
        w.writeheader()
        for r in records:
            w.writerow({k: ("" if r[k] is None else r[k]) for k in _FIELDS})
    return js, cs


def read_verdicts(out_dir: Path) -> list[Verdict]:
    """The verdicts of ``out_dir/verdicts.json``."""
    with open(Path(out_dir) / "verdicts.json", encoding="utf-8") as f:
        return [Verdict(**r) for r in json.load(f)]


def counts(verdicts: list[Verdict]) -> dict[str, int]:
    """How many rows count in each summary column (:attr:`Verdict.counts_as`)."""
    return {c: sum(v.counts_as == c for v in verdicts) for c in SUMMARY_COLUMNS}


def _value(v: Verdict) -> str:
    if v.ours is None or not math.isfinite(v.ours):
        return "—"
    unit = f" {v.unit}" if v.unit else ""
    if v.low is not None and v.high is not None and math.isfinite(v.low) and math.isfinite(v.high):
        return f"{v.ours:.4g} [{v.low:.4g}, {v.high:.4g}]{unit}"
    return f"{v.ours:.4g}{unit}"


def summary_html(verdicts: list[Verdict], runtime_s: float, mode: str) -> str:
    """The table a report opens with: counts per kind and outcome, then every row."""
    _check_unique(verdicts)
    c = counts(verdicts)
    head = "".join(f"<th>{html.escape(k)}</th>" for k in SUMMARY_COLUMNS)
    nums = "".join(f"<td>{c[k]}</td>" for k in SUMMARY_COLUMNS)
    return (
        "<h2>Summary</h2><p>Kinds: <i>validated</i> — compared with something the model was not fitted to; "
        "<i>calibrated</i> — a row a parameter was chosen from (agreement by construction); <i>model-vs-model</i> — "
        "the model against itself; <i>not comparable</i> — nothing independent to compare with. The same rows are in "
        "<code>verdicts.csv</code> and <code>verdicts.json</code>.</p>"
        f"<table><tr>{head}</tr><tr>{nums}</tr></table>"
        f"<p class='meta'>{len(verdicts)} rows; {html.escape(mode)} mode; runtime {runtime_s:.1f} s wall.</p>"
        + _rows_table(verdicts)
    )


#: Up to this many rows the summary lists every row; above it, the rows that differ and,
#: collapsed (HTML ``<details>``), every row — so a long report's verdicts fit one screen.
OPEN_ROWS = 30


def _rows_table(verdicts: list[Verdict]) -> str:
    head = "<tr><th>row</th><th>kind</th><th>outcome</th><th>paper</th><th>atmsim</th><th>rule</th></tr>"

    def table(vs: list[Verdict]) -> str:
        rows = "".join(
            f"<tr><td>{html.escape(v.row)}</td><td>{html.escape(str(v.kind))}</td><td><b>{html.escape(str(v.outcome))}</b></td>"
            f"<td>{html.escape(v.paper)}</td><td>{html.escape(_value(v))}</td><td>{html.escape(v.rule)}</td></tr>"
            for v in vs)
        return f"<table>{head}{rows}</table>"

    if len(verdicts) <= OPEN_ROWS:
        return table(verdicts)
    differ = [v for v in verdicts if v.outcome is Outcome.DIFFERS]
    shown = (f"<h3>The {len(differ)} rows that differ</h3>" + table(differ)) if differ else "<p>No row differs.</p>"
    return shown + f"<details><summary><b>Every row ({len(verdicts)})</b></summary>{table(verdicts)}</details>"


def verdict_html(v: Verdict) -> str:
    """The verdict's line in the body of a report, beside the figure or table it judges."""
    detail = f" — {html.escape(v.detail)}" if v.detail else ""
    return (f"<p><b>Verdict ({html.escape(v.row)}): {html.escape(str(v.outcome))}</b> "
            f"<i>[{html.escape(str(v.kind))}; rule: {html.escape(v.rule)}]</i>{detail}</p>")
