"""Mah (1996) reproduction: the HTML report, its tables and CSV files.

Owns :func:`write`: the oracle's rows (Chapter 4 Q-rows, Chapter 5 M-rows, Chapter 6 V- and
F-rows, the implied levels K-rows) with their verdicts beside the thesis' numbers, the
recommendations of §4.7 and §7.1 restated with what our runs say, the rules, a table of every
configuration's headline statistics, the figures (:mod:`.figures`), the thesis'
inconsistencies, and the run time beside the thesis' cluster (§3.7). Files: ``report.html``,
``per_run.csv`` (every run's statistics), ``rows.csv`` (the rows), ``verdicts.json`` and
``verdicts.csv`` (the rows as :class:`atmsim.study.Verdict` records, with their kinds), PNG figures.
"""

from __future__ import annotations

import csv
import html
from pathlib import Path

import numpy as np

from ..._output import atomic_file
from ..._report import figure_path
from ...study import Kind, Outcome, Verdict, write_study_report
from . import calibration as calibration
from . import figures as figures
from . import oracle as oracle
from . import tables as tables

__all__ = ["CALIBRATED_ROWS", "TITLE", "kind_of", "study_verdicts", "verdicts", "write"]


TITLE = "Mah 1996 — IP over ATM: quality of service, multiplexing and VC management (atmsim reproduction)"

_SECTIONS = (("Chapter 4 — quality of service (spec §5.2)", "Q-"), ("Chapter 5 — multiplexing (spec §5.3)", "M-"),
             ("Chapter 6 — VC management (spec §5.4, §5.8 item 16)", ("V-", "F-")),
             ("Implied noqos levels (spec §5.6, derived from the thesis' percentages)", "K-"))
#: Columns of the per-configuration table (every statistic is in per_run.csv).
_HEADLINE = ("telnet.connect.p90", "telnet.response.p90", "ftp.file.p90", "ftp.session.p90", "http.page.p90",
             "audio.loss", "audio.overdue", "video.loss", "vc.setups", "vc.hit_rate", "vc.guaranteed_failure_rate",
             "vc.guaranteed_failure_rate_per_vc_request", "switch.drop_rate")
#: The thesis' runs (§3.5.1, §3.6.5, §3.7; spec I-3…I-8).
THESIS_RUNS, THESIS_RUN_HOURS = 336, (4.0, 5.0)


def _e(x: str) -> str:
    return html.escape(x)


def verdicts(study) -> list[tuple[oracle.Row, oracle.Verdict]]:
    """Every oracle row with its verdict on this study's runs."""
    st, diffs = study.stats, study.pvc_vs_svccache()
    return [(row, oracle.judge(row, st, study.mode.at_scale, study.mode.label(), diffs)) for row in oracle.ROWS]


#: The rows the buffers and socket buffers were fitted to: the calibration set declared in
#: :mod:`.calibration` (docs/mah96.md, "Calibration").
CALIBRATED_ROWS = calibration.CALIBRATION_ROWS


def kind_of(row: oracle.Row) -> Kind:
    """What an ``agrees`` of ``row`` is worth: pvc ≡ svccache is the model against itself;
    prose and the thesis' self-conflicting numbers compare with nothing; the rows of the
    calibration set are calibrated; every other row is validated."""
    if row.kind == "identical":
        return Kind.MODEL
    if row.kind in ("qos", "conflict"):
        return Kind.NOT_COMPARABLE
    return Kind.CALIBRATED if row.id in CALIBRATED_ROWS else Kind.VALIDATED


def study_verdicts(judged: list[tuple[oracle.Row, oracle.Verdict]]) -> list[Verdict]:
    """The oracle's rows as the study framework's verdicts (its rules are the oracle's)."""
    return [Verdict(r.id, kind_of(r), Outcome(v.word), f"{r.what}: {r.thesis}", v.test or v.reason,
                    detail=f"{r.where}. atmsim: {v.ours or '—'}. {v.reason}".strip()) for r, v in judged]


def _rows_html(judged: list[tuple[oracle.Row, oracle.Verdict]]) -> str:
    head = ("<tr><th>row</th><th>where</th><th>comparison</th><th>thesis</th><th>atmsim</th><th>test</th>"
            "<th>verdict</th><th>reason</th></tr>")
    parts = []
    for title, prefix in _SECTIONS:
        rows = [(r, v) for r, v in judged if r.id.startswith(prefix)]
        body = "".join(
            f"<tr><td>{_e(r.id)}</td><td>{_e(r.where)}</td><td style='text-align:left'>{_e(r.what)}</td>"
            f"<td style='text-align:left'>{_e(r.thesis)}</td><td style='text-align:left'><small>{_e(v.ours)}</small></td>"
            f"<td style='text-align:left'><small>{_e(v.test)}</small></td><td><b>{_e(v.word)}</b></td><td>{_e(v.reason)}</td></tr>"
            for r, v in rows)
        words = [v.word for _, v in rows]
        tally = ", ".join(f"{words.count(w)} {w}" for w in ("agrees", "differs", "not comparable") if words.count(w))
        parts.append(_collapsed(f"{title} — {len(rows)} rows: {tally}", f"<table>{head}{body}</table>"))
    return "".join(parts)


def _collapsed(summary: str, body: str) -> str:
    """A section shown as its one-line ``summary`` and opened on demand (HTML ``<details>``)."""
    return f"<details><summary><b>{_e(summary)}</b></summary>{body}</details>"


def _rules_html(mode) -> str:
    o = oracle
    return (
        "<details><summary><b>Rules and tolerances</b></summary><ul>"
        "<li><b>Comparisons</b> (B against A; \"conv→router\" means A = conv, B = router, same VC policy): Mann-Whitney "
        "shift interval of B − A over the per-run statistics (atmsim.stats.compare; thesis §3.5.2). With 3 runs "
        "against 3 the exact levels are 90, 80 and 60 %; at 90 % the interval is the range of the nine differences, so "
        "\"significant\" means the two triples do not overlap. The column gives the Hodges-Lehmann shift Δ, its 90 % "
        "interval (achieved level) and the highest level at which the interval excludes zero. A row <i>agrees</i> when "
        "every comparison matches the thesis: \"sig.\" — our 90 % interval excludes zero on the thesis' side; \"not "
        "sig.\" — our shift is on the thesis' side and the 90 % interval includes zero; a change stated without a test — "
        "the direction only. F-16 needs 3 of its 4 comparisons (\"in almost all cases\"). <b>A direction match with a "
        f"magnitude off by more than {o.MAGNITUDE_FACTOR:g}× is not agreement</b>: where the thesis publishes a magnitude "
        "for the comparison, the test column shows ours (the change of the means over seeds, B / A − 1, or B − A where "
        "the thesis gives a difference; per pair, or the mean or largest over the pairs where it says so) beside it, "
        "with f = ours / the nearest end of the published range; f outside "
        f"[{1 / o.MAGNITUDE_FACTOR:g}, {o.MAGNITUDE_FACTOR:g}] (or of the opposite sign, or unbounded) fails that "
        "comparison, at every scale.</li>"
        "<li><b>No differences</b> (M-7, V-11): agrees when at most as many tests are significant at 90 % as identical "
        "configurations would give in 95 % of repetitions (binomial, 0.10 per test with 3 against 3).</li>"
        f"<li><b>Levels</b>: the mean over seeds within the published value or range widened by {100 * o.TOL_LEVEL:.0f} % "
        f"(hit rates: ± {o.TOL_HIT_PP:g} percentage points; M-8: every run within 30–48, no tolerance; \"below\"/"
        "\"above\" bounds are widened the same way). Levels that depend on the offered load — setup counts and rates, "
        "peaks, maximum VCs, times, loss and drop rates — are judged only at the thesis' scale (200 workstations per site, "
        f"4000 s); {'this run is at that scale' if mode.at_scale else 'this run is not, so they are shown and marked not comparable'}. "
        "Hit rates, the router VC-request range and the svc/svccache setup ratio are judged at any scale: a smaller "
        "population and shorter runs can only lower hit rates and ratios and lengthen router-pair idle gaps (more "
        "requests), so quick scale is biased against agreement.</li>"
        f"<li><b>Magnitudes</b> (\"change\" rows): the change of the means over seeds, B / A − 1 (B − A where the thesis "
        f"gives only a difference), per pair — or averaged, or the largest, where the thesis says so — within the published "
        f"range widened outwards by {100 * o.TOL_LEVEL:.0f} % of each bound; judged at the thesis' scale only.</li>"
        f"<li><b>V-21</b>: svc / svccache setups ≥ {o.ORDER_OF_MAGNITUDE:g} (\"more than an order of magnitude\").</li>"
        "<li><b>V-10</b>: every application's counters and metrics and every switch's drops equal between router-pvc "
        "and router-svccache, seed by seed.</li>"
        "<li>No rule or tolerance was changed after seeing a verdict to make a row agree; the one rule added since the "
        "first report (the 5× magnitude rule) can only turn an agreement into a difference. Nothing was tuned "
        "to make a row agree.</li></ul></details>")


def _config_table(study) -> str:
    st = study.stats
    keys = [k for k in _HEADLINE if k in tables.STATS]
    head = "<tr><th>configuration</th>" + "".join(
        f"<th>{_e(tables.STATS[k].label)}{f' [{tables.STATS[k].unit}]' if tables.STATS[k].unit else ''}</th>" for k in keys) + "</tr>"
    rows = []
    for c in study.configs:
        cells = "".join(f"<td>{tables.STATS[k].show(figures.mean(st, c, k))}</td>" for k in keys)
        rows.append(f"<tr><td style='text-align:left'>{_e(c)}</td>{cells}</tr>")
    return _collapsed(f"Per-configuration results ({len(rows)} configurations)", "<p>Mean over the seeds (every run's every statistic is in "
            "<code>per_run.csv</code>). Times are each run's median or 90th percentile; media rates are pooled over the "
            "run's conversations; the guaranteed-VC failure rates, beside the cache hit rate, are the guaranteed setups "
            "refused by admission control per guaranteed setup request (the thesis' rate, §4.6.2: cache hits excluded) and "
            "per guaranteed VC request (cache hits + setups) — (— under noqos, which requests none; 0 under sp, which "
            "refuses none).</p><table>" + head + "".join(rows) + "</table>")


def _recommendations_html(study) -> str:
    """§4.7, §5.6, §6.7, §7.1: the thesis' recommendations in our words, checked on these runs."""
    rows = "".join(
        f"<tr><td>{_e(rid)}</td><td>{_e(where)}</td><td style='text-align:left'>{_e(text)}</td>"
        f"<td style='text-align:left'><small>{_e(ours)}</small></td><td><b>{_e(word)}</b></td></tr>"
        for rid, where, text, word, ours in oracle.recommendations(study.stats, study.mode.at_scale))
    return _collapsed("The thesis' recommendations, checked on these runs",
                      "<p>Restated in our words; each is checked by the comparisons its evidence "
                      "rests on (direction in most or all setups, no more significant side effects than chance, magnitudes at the "
                      "thesis' scale only).</p><table><tr><th>id</th><th>where</th><th>recommendation</th><th>atmsim</th>"
                      f"<th>verdict</th></tr>{rows}</table>")


def _figures(study, out: Path) -> str:
    st = study.stats
    figs = figures.best_effort(st, out)
    for f in (figures.overview(st, figure_path(out, "qos_overview.png")),
              figures.failure_rates(st, figure_path(out, "qos_failures.png"))):
        if f is not None:
            figs.append(f)
    note = ("" if study.mode.at_scale else " The thesis' marks are at its scale (200 workstations, 4000 s): at quick scale "
            "absolute counts and times are not expected to meet them.")
    return ("<h2>Figures</h2><p>Bars: mean over seeds; dots: each seed; red crosses: the thesis' values (telnet connect "
            "and HTTP page: the middle of the ranges implied in spec §5.6); dashed lines: the thesis' bounds. The Chapter 4 "
            "overview shows each QoS policy's change against noqos in the same setup." + note
            + " Two figures a row; open one alone for its full size.</p><p>"
            + "".join(f"<a href='{_e(f.name)}'><img src='{_e(f.name)}' alt='{_e(f.stem)}' style='width:49%'></a>" for f in figs)
            + "</p>")


def _consistency(study) -> str:
    st = study.stats

    def mean(c: str, k: str) -> float | None:
        v = [r[k] for r in st.get(c, []) if r[k] is not None]
        return float(np.mean(v)) if v else None

    cs, rs = mean("noqos-conv-svc", "telnet.connect.median"), mean("noqos-router-svc", "telnet.connect.median")
    ours = ("atmsim: noqos svccache median telnet connect "
            + ", ".join(f"{c} {oracle.show('telnet.connect.median', mean(c, 'telnet.connect.median'))}" for c in ("noqos-app-svccache",
                                                                                                                  "noqos-conv-svccache"))
            + (f"; router-svc / conv-svc median = {rs / cs:.2f} (thesis ≈0.38)" if cs and rs else "") + ".")
    items = "".join(f"<li><b>{k}</b>: {_e(t)}" + (f" <i>{_e(ours)}</i>" if k == "C-1" else "") + "</li>" for k, t in oracle.CONSISTENCY)
    return _collapsed("The thesis' internal inconsistencies (spec §5.7)", "<p>Noted, not fitted: where two of the thesis' "
                      "numbers disagree no row is judged against either (K-7).</p><ul>" + items + "</ul>")


def _runtime(study) -> str:
    walls = [s["run"]["wall_s"] for c in study.configs for s in study.summaries[c]]
    if not walls:
        return ""
    n = len(walls)
    by_scheme: dict[str, list[float]] = {}
    for c in study.configs:
        by_scheme.setdefault(c.split("-")[0], []).extend(s["run"]["wall_s"] for s in study.summaries[c])
    rows = "".join(f"<tr><td>{_e(k)}</td><td>{len(v)}</td><td>{np.median(v):.1f}</td><td>{max(v):.1f}</td><td>{sum(v):.0f}</td></tr>"
                   for k, v in by_scheme.items())
    lo, hi = THESIS_RUN_HOURS
    scale = "" if study.mode.at_scale else " (at this scale; the thesis' runs were 200 workstations × 4000 s)"
    return ("<h2>Run time</h2><p>Each run's simulation wall time as the core measured it, one run per worker; runs read "
            f"back from the store keep the time of the session that ran them. {n} runs{scale}: Σ {sum(walls):.0f} s of "
            f"simulation; this invocation ran {study.ran} of them and took {study.elapsed_s:.0f} s wall. The thesis ran "
            f"{THESIS_RUNS} runs of {lo:g}–{hi:g} hours each on ≈140 workstations of a network of workstations, in "
            "batches of 10–15 over nights and weekends (§3.7): about "
            f"{THESIS_RUNS * lo:.0f}–{THESIS_RUNS * hi:.0f} machine-hours.</p><table><tr><th>scheme</th><th>runs</th>"
            f"<th>median [s]</th><th>max [s]</th><th>Σ [s]</th></tr>{rows}</table>")


def _write_csv(study, judged, out: Path) -> None:
    with atomic_file(out / "per_run.csv", "w") as f:
        w = csv.writer(f)
        w.writerow(["configuration", "seed", "wall_s", *tables.STATS])
        for c in study.configs:
            for seed, summ, r in zip(study.seeds, study.summaries[c], study.stats[c]):
                w.writerow([c, seed, f"{summ['run']['wall_s']:.2f}", *("" if r[k] is None else f"{r[k]:.6g}" for k in tables.STATS)])
    with atomic_file(out / "rows.csv", "w") as f:
        w = csv.writer(f)
        w.writerow(["row", "where", "comparison", "thesis", "atmsim", "test", "verdict", "reason"])
        for r, v in judged:
            w.writerow([r.id, r.where, r.what, r.thesis, v.ours, v.test, v.word, v.reason])


def write(study, out: Path) -> Path:
    """Write ``report.html``, its figures and CSV files for ``study`` into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    judged = verdicts(study)
    quick = (study.mode.workstations, study.mode.duration_s) == calibration.QUICK_SCALE
    mode = "full" if study.mode.at_scale else "quick" if quick else "custom"
    util = [r["bottleneck.util"] for rs in study.stats.values() for r in rs if r["bottleneck.util"] is not None]
    load = (f"The 30 ms HW–HE bottleneck is busy {100 * min(util):.0f}–{100 * max(util):.0f} % of the time in its busier "
            "direction over these runs. " if util else "")
    n_cfg = len(study.configs)
    intro = (
        f"<p>{n_cfg} of the thesis' 103 configurations (Appendix B; canonical names <code>&lt;qos&gt;-&lt;mux&gt;-&lt;vc&gt;</code>) "
        "on the Mah internetwork (<code>scenarios/mah96/noqos_conv_svc.toml</code>; six sites, a T1 ATM backbone with one "
        "30 ms bottleneck, the Table 3-2 workload), every site router's IP-over-ATM driver set to each configuration. "
        f"Scale: {_e(study.mode.label())} (seeds {', '.join(map(str, study.seeds))}, the same for every configuration); "
        "the thesis: 200 workstations per site, 4000 s, at least 3 seeds. "
        + ("" if study.mode.at_scale else f"This scale has {study.mode.workstations} of the thesis' 200 Web browsers per "
           "site (one per workstation) and shorter runs; the other arrival rates of Table 3-2 are per site and unchanged. "
           + ("Quick mode's scale is the cheapest whose switch drop rate and audio and video loss are within 2× of the "
              "thesis' scale's (the calibration study, docs/mah96.md). " if quick else ""))
        + load + "Each row below is one of the spec's oracle rows (§5.2–§5.4, §5.6); a row whose configurations were not "
        f"run is not comparable. Results store: <code>{_e(str(study.store or ''))}</code> (run the same command again to "
        "resume an interrupted study; read it with <code>atmsim.results</code>). Files: <code>per_run.csv</code>, "
        "<code>rows.csv</code>.</p>")
    body = [intro, _figures(study, out), "<h2>Rows beside the thesis</h2><p>Each section opens on a click; the summary "
            "above lists every row with its verdict.</p>", _rows_html(judged),
            _recommendations_html(study), _rules_html(study.mode), _config_table(study),
            _consistency(study), _runtime(study),
            f"<p class='meta'>mode: {mode}; {_e(study.mode.label())}; seeds {study.seeds}; {study.elapsed_s:.1f} s wall.</p>"]
    _write_csv(study, judged, out)
    return write_study_report(out, TITLE, "".join(body), study_verdicts(judged), study.elapsed_s, mode,
                              store=study.store, study="mah96")
