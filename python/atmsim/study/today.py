"""With today's TCP: a study run twice — BSD as shipped, then every connection with a
:class:`~atmsim.study.tcp_profile.TcpProfile` — and its report's section that shows the paper,
BSD and the profile side by side (``atmsim reproduce STUDY --tcp cubic+sack+ts``).

How a study is run (:func:`atmsim.study.executor.run_study` with ``tcp``):

1. **the profile's pass**: the study's body runs on an executor that applies the profile to
   every scenario (:class:`~atmsim.study.executor.Executor`, ``tcp``), into the subdirectory
   ``tcp-<profile>/`` of the report's directory: a whole report of the study under the modern
   TCP, whose verdicts are all of kind *not comparable* (the paper measured a different TCP;
   each row's rule says what the paper's rule would have given) and go to the results store
   under the study name ``<study> --tcp <profile>``, apart from the study's own;
2. **the BSD pass**: the study as shipped, into the report's directory. Its runs are those of
   a plain ``atmsim reproduce STUDY``, keyed in the store by scenario document and seed, so a
   study already run into the store is read back, not run again. Its report is the usual one
   plus the section "With today's TCP (<profile>)".

Both passes collect the study's **key numbers**: every verdict's ``ours`` under its row name,
and what the body records with :func:`note` (a no-op outside ``--tcp``, so a plain run's
report is exactly as before). The study's package says which numbers are its key rows and
answers its question from them (:class:`Comparison`, in ``<study>/today.py``). The section's
rows are added to the report's verdicts as kind **not comparable** — the paper measured
another TCP, so no rule against it applies — with the profile's number as ``ours`` and BSD's in
the rule's text: the validated and calibrated tallies do not change.
"""

from __future__ import annotations

import contextlib
import html
import math
from collections.abc import Callable, Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path

from .tcp_profile import TcpProfile
from .verdict import Kind, Outcome, Verdict

__all__ = [
    "Comparison", "KeyRow", "Pass", "bsd_pass", "current_pass", "finish_report", "modern_pass", "note", "pct_change",
    "section_html", "subdir", "than",
]

Numbers = Mapping[str, float]


@dataclass(frozen=True)
class KeyRow:
    """One row of the side-by-side table: the number ``key`` names (a verdict's row or a
    :func:`note`), its ``label``, the paper's number or words, its ``unit`` and format."""

    key: str
    label: str
    paper: str
    unit: str = ""
    fmt: str = "{:.3g}"

    def value(self, numbers: Numbers) -> str:
        x = numbers.get(self.key)
        return "—" if x is None or not math.isfinite(x) else self.fmt.format(x)


@dataclass(frozen=True)
class Comparison:
    """What a study shows with today's TCP: its ``question``, its key ``rows``, its
    ``answer(profile, bsd, modern)`` (one sentence computed from the numbers), and ``scope``
    (what was run, when that is less than the study; empty otherwise)."""

    question: str
    rows: tuple[KeyRow, ...]
    answer: Callable[[TcpProfile, Numbers, Numbers], str]
    scope: str = ""


@dataclass
class Pass:
    """One pass of a study under ``--tcp``: the ``profile``; whether it is the profile's
    (``modern``) or BSD's; the numbers collected; and, in the BSD pass, the profile pass's
    numbers and the study's :class:`Comparison`."""

    profile: TcpProfile
    modern: bool
    numbers: dict[str, float] = field(default_factory=dict)
    other: dict[str, float] = field(default_factory=dict)
    comparison: Comparison | None = None
    modern_dir: Path | None = None


_PASS: ContextVar[Pass | None] = ContextVar("atmsim_study_tcp_pass", default=None)


def subdir(profile: TcpProfile) -> str:
    """The profile pass's report directory, inside the study's: ``tcp-cubic+sack``."""
    return f"tcp-{profile.name}"


def current_pass() -> Pass | None:
    """The pass in progress (``None`` outside ``--tcp``)."""
    return _PASS.get()


def note(key: str, value: float) -> None:
    """Record one of the study's key numbers (nothing outside ``--tcp``)."""
    p = _PASS.get()
    if p is not None:
        p.numbers[key] = float(value)


@contextlib.contextmanager
def modern_pass(profile: TcpProfile) -> Iterator[Pass]:
    """The block is the profile's pass; yields the :class:`Pass` that collects its numbers."""
    p = Pass(profile, modern=True)
    token = _PASS.set(p)
    try:
        yield p
    finally:
        _PASS.reset(token)


@contextlib.contextmanager
def bsd_pass(modern: Pass, comparison: Comparison, modern_dir: Path | None = None) -> Iterator[Pass]:
    """The block is BSD's pass, compared with ``modern``'s numbers by ``comparison``."""
    p = Pass(modern.profile, modern=False, other=dict(modern.numbers), comparison=comparison, modern_dir=modern_dir)
    token = _PASS.set(p)
    try:
        yield p
    finally:
        _PASS.reset(token)


def finish_report(title: str, body: str, verdicts: list[Verdict], study: str) -> tuple[str, str, list[Verdict], str]:
    """What :func:`atmsim.study.write_study_report` writes during a pass: ``(title, body,
    verdicts, study)`` unchanged outside ``--tcp``; in the profile's pass, a title naming the
    TCP, every verdict made *not comparable* and the store's study name ``<study> --tcp
    <profile>``; in BSD's pass, the section appended and its rows added as verdicts."""
    p = _PASS.get()
    if p is None:
        return title, body, verdicts, study
    for v in verdicts:
        if v.ours is not None and math.isfinite(v.ours):
            p.numbers.setdefault(v.row, v.ours)
    if p.modern:
        note_html = (f"<p><b>Every connection runs {html.escape(p.profile.label)}</b> (<code>--tcp {html.escape(p.profile.name)}"
                     "</code>), not the paper's BSD TCP: every row below is <i>not comparable</i> with the paper, and its rule "
                     "column says what the paper's rule would have given. The study as shipped, with this TCP beside it, is "
                     "the report one directory up.</p>")
        return (f"{title} — with {p.profile.label}", note_html + body, [_not_comparable(v, p.profile) for v in verdicts],
                f"{study} --tcp {p.profile.name}" if study else study)
    assert p.comparison is not None
    section, rows = section_html(p.comparison, p.profile, p.numbers, p.other, p.modern_dir)
    return title, body + section, verdicts + rows, study


def _not_comparable(v: Verdict, profile: TcpProfile) -> Verdict:
    would = "" if v.outcome is Outcome.NOT_COMPARABLE else f"; the paper's rule ({v.rule}) would say {v.outcome}"
    return Verdict.not_comparable(v.row, v.paper, f"{profile.label}, not the paper's TCP{would}", paper_value=v.paper_value,
                                  ours=v.ours, low=v.low, high=v.high, unit=v.unit, detail=v.detail)


def section_html(comparison: Comparison, profile: TcpProfile, bsd: Numbers, modern: Numbers,
                 modern_dir: Path | None = None) -> tuple[str, list[Verdict]]:
    """The section "With today's TCP (<profile>)" and its rows as verdicts (kind *not
    comparable*: the profile's number as ``ours``, BSD's in the rule's text)."""
    label = html.escape(profile.label)
    rows = "".join(
        f"<tr><td>{html.escape(r.label)}</td><td>{html.escape(r.paper)}</td><td>{r.value(bsd)}</td>"
        f"<td>{r.value(modern)}</td><td>{html.escape(r.unit)}</td></tr>"
        for r in comparison.rows
    )
    answer = comparison.answer(profile, bsd, modern)
    link = (f" The whole study with {label}: <a href='{html.escape(modern_dir.name)}/report.html'>"
            f"{html.escape(modern_dir.name)}/report.html</a>." if modern_dir is not None else "")
    scope = f" {html.escape(comparison.scope)}" if comparison.scope else ""
    text = (f"<h2>With today's TCP ({label})</h2>"
            f"<p><i>{html.escape(comparison.question)}</i> The study run again with every connection on {label} "
            f"(<code>--tcp {html.escape(profile.name)}</code>), everything else as above.{scope}{link}</p>"
            f"<p><b>{html.escape(answer)}</b></p>"
            f"<table><tr><th>row</th><th>paper</th><th>BSD (atmsim)</th><th>{label} (atmsim)</th><th>unit</th></tr>{rows}</table>"
            f"<p class='meta'>The {label} rows are in the summary as <i>not comparable</i>: the paper measured BSD's "
            "TCP, so no rule against its numbers applies to another; the validated and calibrated counts are BSD's alone.</p>")
    verdicts = []
    for r in comparison.rows:
        x = modern.get(r.key)
        verdicts.append(Verdict.not_comparable(
            f"With {profile.name}: {r.label}", r.paper, f"{profile.label}, not the paper's TCP; BSD: {r.value(bsd)} {r.unit}".rstrip(),
            kind=Kind.NOT_COMPARABLE, ours=x if x is not None and math.isfinite(x) else None, unit=r.unit,
            detail=answer))
    return text, verdicts


def pct_change(new: float, old: float) -> float:
    """``(new − old) / old`` in %; NaN if ``old`` is 0 or either is missing."""
    if old is None or new is None or not old or not math.isfinite(old) or not math.isfinite(new):
        return math.nan
    return 100.0 * (new - old) / old


def than(a: float, b: float, tol: float, larger: str = "more", smaller: str = "less") -> str:
    """``"more than"``, ``"less than"`` or ``"the same as"`` (within ``tol``): ``a`` against ``b``, for a sentence."""
    if not (math.isfinite(a) and math.isfinite(b)):
        return "not comparable with"
    if abs(a - b) <= tol:
        return "the same as"
    return f"{larger if a > b else smaller} than"
