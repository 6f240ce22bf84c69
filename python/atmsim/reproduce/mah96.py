"""Mah (1996), *Quality of Service and Asynchronous Transfer Mode in IP Internetworks* (UC
Berkeley PhD thesis; the INSANE simulator): the best-effort part — Chapter 5 (multiplexing)
and Chapter 6 (VC management) for the seven ``noqos`` configurations.

The network and workload are ``scenarios/mah96/noqos_conv_svc.toml`` (six sites of
workstations and 2 servers on idealised LANs, one router per site, a T1 ATM backbone with
one 30 ms bottleneck, the Table 3-2 workload; every decision where the thesis is silent is
the spec's, ``shared/specs/mah96.md``). What is run: the file with every site router's
``ipoa`` set to each of the seven configurations of Appendix B without a QoS policy —
``noqos-app-svc``, ``-app-svccache``, ``-conv-svc``, ``-conv-svccache``, ``-router-pvc``,
``-router-svc``, ``-router-svccache`` — each at seeds ``seed``, ``seed + 1``, ``seed + 2``:
the same seeds for every configuration (common random numbers, as §6.5's "exactly identical"
pvc and svccache runs require; every traffic source draws from its own stream).

Modes. ``--full`` is the thesis' scale (§3.2, §3.5.1): 200 workstations per site, 4000 s
simulated, 3 seeds (the thesis ran "at least three"). Quick mode keeps 3 seeds — fewer would
leave no 90 % Mann-Whitney interval (2 against 2 reaches only 67 %) — and shrinks the load
and the length: 50 workstations per site (so 50 Web browsers instead of 200; the other
Table 3-2 arrival rates are per site and unchanged) and 1200 s simulated. Measured on a
shared two-core machine: a quick run takes 6–30 s (two at a time), the 21 about 3 minutes;
a full-scale run about a minute (noqos-conv-svc, seed 1: 60 s), the 21 some 10–15 minutes.
What quick scale changes is stated where it matters: levels that depend on the offered load
(setup counts, rates, peaks, maximum VCs, times, loss and drop rates) are judged at the
thesis' scale only.

Per run (``mah96_tables``): the Table 3-3 statistics — telnet connect and response, FTP
file and session, HTTP item and page times, each as the run's median and 90th percentile;
pooled audio loss and overdue (> 150 ms) rates and video loss rate — and the §6.6 counters:
VC setups (Σ over the six routers), setups per router per second, peak setups per second
(any router; the berkeley and illinois routers, the sites of the rank-1 Web and FTP
servers, as in §6.6 fn 4), maximum VCs in use at one router (once-a-second samples),
cache hit rate (hits / (hits + setups)), and the cell drop rate over every switch output
queue (Σ dropped / Σ offered).

Verdicts (``mah96_oracle``; the rules were fixed before the first report and none was
changed after seeing a verdict): comparisons between configurations
use Mann-Whitney's shift interval at 90 % (§3.5.2; with 3 runs against 3, the range of the
nine differences; 80 % and 60 % are reported when only they are significant), and agree
when the thesis' direction and significance both match; "no significant differences"
agree when no more tests are significant than identical configurations would give (95th
percentile of a binomial at the test's error rate); absolute values agree within 25 % of
the published value or range (hit rates: 2 percentage points; the router VC-request range
30–48: exact). Rows about QoS policies are listed as not comparable (issue 15); the
thesis' inconsistent numbers (§5.7) are noted, not fitted.
"""

from __future__ import annotations

import csv
import html
import time
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np

from ..output import atomic_file
from ..report import figure_path, new_axes, save_axes, summary_html, write_report
from ..scenario import Scenario
from . import mah96_oracle as oracle
from . import mah96_tables as tables
from .runner import run_many

SCENARIO = Path(__file__).resolve().parents[3] / "scenarios" / "mah96" / "noqos_conv_svc.toml"
CONFIGS = oracle.CONFIGS
TITLE = "Mah 1996 — IP over ATM: multiplexing and VC management, best effort (atmsim reproduction)"


@dataclass(frozen=True)
class Mode:
    """Workstations per site, simulated seconds and seeds per configuration."""

    workstations: int
    duration_s: float
    seeds: int

    @property
    def at_scale(self) -> bool:
        """The thesis' scale: 200 workstations per site for 4000 s."""
        return self.workstations >= 200 and self.duration_s >= 4000

    def label(self) -> str:
        return (f"{self.workstations} workstations and 2 servers per site, {self.duration_s:g} s simulated, "
                f"{self.seeds} seed{'s' if self.seeds != 1 else ''} per configuration")


FULL = Mode(200, 4000.0, 3)
QUICK = Mode(50, 1200.0, 3)


def scenario(config: str, workstations: int, duration_s: float) -> Scenario:
    """The Mah internetwork with every site router's driver set to ``config``, a canonical
    name such as ``noqos-conv-svc`` or ``wc-ftp-app-svccache``."""
    qos, mux, vc = oracle.parse(config)
    ipoa = {"mux": mux, "vc": vc} | ({} if qos == "noqos" else {"qos": qos})
    sc = Scenario.from_toml(SCENARIO)
    for k in range(len(sc.doc["site"])):
        sc.set(f"site[{k}].ipoa", ipoa)
        sc.set(f"site[{k}].workstations", workstations)
    return sc.set("simulation.duration_s", duration_s).set("simulation.sample_interval_ms", 0)


@dataclass
class Study:
    """The runs of one reproduction: summaries and per-run statistics per configuration."""

    mode: Mode
    seeds: list[int]
    summaries: dict[str, list[dict]]
    elapsed_s: float = 0.0

    @cached_property
    def stats(self) -> dict[str, list[dict]]:
        return {c: [tables.run_stats(s) for s in ss] for c, ss in self.summaries.items()}

    def pvc_vs_svccache(self) -> list[list[str]]:
        return [tables.identical_metrics(a, b) for a, b in zip(self.summaries["noqos-router-pvc"], self.summaries["noqos-router-svccache"])]


def collect(mode: Mode, seed: int = 1, progress=None) -> Study:
    """Run every configuration at the mode's seeds (the same seeds for all)."""
    t0 = time.perf_counter()
    seeds = list(range(seed, seed + mode.seeds))
    keys, runs = [], []
    for c in CONFIGS:
        sc = scenario(c, mode.workstations, mode.duration_s)
        for s in seeds:
            keys.append((c, s))
            runs.append((sc, s))

    def tick(done: int, total: int) -> None:
        if progress:
            progress(done, total, f"{oracle.name(keys[done - 1][0])} seed {keys[done - 1][1]}")

    out = run_many(runs, progress=tick)
    summaries: dict[str, list[dict]] = {c: [] for c in CONFIGS}
    for (c, _), summ in zip(keys, out):
        summaries[c].append(summ)
    return Study(mode, seeds, summaries, time.perf_counter() - t0)


# ----- report ------------------------------------------------------------------------------

_SECTIONS = (("Chapter 4 — QoS policies against noqos (spec §5.2)", "Q-"), ("Chapter 5 — multiplexing (spec §5.3)", "M-"), ("Chapter 6 — VC management (spec §5.4, §5.8 item 16)", ("V-", "F-")),
             ("Implied noqos levels (spec §5.6, derived from the thesis' percentages)", "K-"))


def _e(x: str) -> str:
    return html.escape(x)


def verdicts(study: Study) -> list[tuple[oracle.Row, oracle.Verdict]]:
    """Every oracle row with its verdict on this study's runs."""
    st, diffs = study.stats, study.pvc_vs_svccache()
    return [(row, oracle.judge(row, st, study.mode.at_scale, study.mode.label(), diffs)) for row in oracle.ROWS]


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
        parts.append(f"<h3>{_e(title)}</h3><table>{head}{body}</table>")
    return "".join(parts)


def _recommendations_html(study: Study) -> str:
    """§4.7, §5.6, §6.7, §7.1: the thesis' recommendations in our words, checked on these runs."""
    rows = "".join(
        f"<tr><td>{_e(rid)}</td><td>{_e(where)}</td><td style='text-align:left'>{_e(text)}</td>"
        f"<td style='text-align:left'><small>{_e(ours)}</small></td><td><b>{_e(word)}</b></td></tr>"
        for rid, where, text, word, ours in oracle.recommendations(study.stats, study.mode.at_scale))
    return ("<h2>The thesis' recommendations</h2><p>Restated in our words; each is checked by the comparisons its evidence "
            "rests on (direction in most or all setups, no more significant side effects than chance, magnitudes at the "
            "thesis' scale only).</p><table><tr><th>id</th><th>where</th><th>recommendation</th><th>atmsim</th>"
            f"<th>verdict</th></tr>{rows}</table>")


def _rules_html(mode: Mode) -> str:
    o = oracle
    return (
        "<h2>Rules and tolerances</h2><ul>"
        "<li><b>Comparisons</b> (B against A; \"conv→router\" means A = conv, B = router, same VC policy): Mann-Whitney "
        "shift interval of B − A over the per-run statistics (atmsim.stats.compare; thesis §3.5.2). With 3 runs "
        "against 3 the exact levels are 90, 80 and 60 %; at 90 % the interval is the range of the nine differences, so "
        "\"significant\" means the two triples do not overlap. The column gives the Hodges-Lehmann shift Δ, its 90 % "
        "interval (achieved level) and the highest level at which the interval excludes zero. A row <i>agrees</i> when "
        "every comparison matches the thesis: \"sig.\" — our 90 % interval excludes zero on the thesis' side; \"not "
        "sig.\" — our shift is on the thesis' side and the 90 % interval includes zero; a change stated without a test — "
        "the direction only. F-16 needs 3 of its 4 comparisons (\"in almost all cases\").</li>"
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
        "<li>No rule or tolerance was changed after seeing a verdict; nothing was tuned to make a row agree.</li></ul>")


def _config_table(study: Study) -> str:
    st = study.stats
    head = "<tr><th>statistic</th>" + "".join(f"<th>{_e(oracle.name(c))}</th>" for c in CONFIGS) + "</tr>"
    rows = []
    for key, s in tables.STATS.items():
        cells = []
        for c in CONFIGS:
            vals = [r[key] for r in st[c]]
            ok = [v for v in vals if v is not None]
            mean = s.show(float(np.mean(ok))) if ok else "—"
            cells.append(f"<td>{mean}<br><small>{', '.join(s.show(v) for v in vals)}</small></td>")
        rows.append(f"<tr><td style='text-align:left'>{_e(s.label)}{f' [{s.unit}]' if s.unit else ''}</td>{''.join(cells)}</tr>")
    return ("<h2>Per-configuration results</h2><p>Mean over the seeds, the per-seed values below it (seeds "
            f"{', '.join(map(str, study.seeds))}, in order). Times are each run's median or 90th percentile; media rates "
            "are pooled over the run's conversations.</p><table>" + head + "".join(rows) + "</table>")


def _bars(study: Study, keys: list[str], path: Path, title: str, ylabel: str, log: bool = False,
          marks: dict[str, dict[str, float]] | None = None, lines=()) -> Path:
    """Per-configuration bars (mean over seeds) of each statistic in ``keys``, seeds as dots;
    ``marks[key][config]``: the thesis' value beside a bar; ``lines``: (label, value) of the
    thesis across the plot; both in shown units."""
    st = study.stats
    fig, ax = new_axes((8.0, 4.4))
    x = np.arange(len(CONFIGS))
    w = 0.8 / len(keys)
    marked = False
    for i, key in enumerate(keys):
        s = tables.STATS[key]
        vals = [[v * s.scale for v in (r[key] for r in st[c]) if v is not None] for c in CONFIGS]
        means = [float(np.mean(v)) if v else np.nan for v in vals]
        pos = x - 0.4 + w * (i + 0.5)
        ax.bar(pos, means, w, label=s.label, alpha=0.7)
        for p, v in zip(pos, vals):
            ax.plot([p] * len(v), v, "k.", ms=4)
        for c, v in (marks or {}).get(key, {}).items():
            ax.plot([pos[CONFIGS.index(c)]], [v], "rx", ms=9, mew=2, label=None if marked else "thesis (200 ws, 4000 s)")
            marked = True
    for j, (label, v) in enumerate(lines):
        ax.axhline(v, color=f"C{3 + j}", ls="--", lw=1, label=label)
    if log:
        ax.set_yscale("log")
    ax.set_xticks(x, [c.replace("-", "\n") for c in CONFIGS], fontsize="small")
    return save_axes(fig, ax, path, xlabel="configuration", ylabel=ylabel, title=title)


def _figures(study: Study, out: Path) -> str:
    svc, cache = ("noqos-app-svc", "noqos-conv-svc"), ("noqos-app-svccache", "noqos-conv-svccache")
    figs = [
        _bars(study, ["telnet.connect.median", "telnet.connect.p90"], figure_path(out, "telnet_connect.png"),
              "Telnet connect time per configuration", "ms",
              marks={"telnet.connect.median": {c: 232.5 for c in svc}, "telnet.connect.p90": {c: 332.5 for c in svc} | {c: 194.5 for c in cache}}),
        _bars(study, ["http.page.p90"], figure_path(out, "http_page_p90.png"), "HTTP page time, 90th percentile", "s",
              marks={"http.page.p90": {c: 3.9 for c in oracle.NOQOS4}}),
        _bars(study, ["audio.loss", "video.loss"], figure_path(out, "media_loss.png"), "Audio and video loss by multiplexing", "%",
              lines=[("thesis: audio, conv < 0.25 %", 0.25), ("thesis: audio, router > 1 %", 1.0)]),
        _bars(study, ["vc.setups"], figure_path(out, "vc_setups.png"), "VC setups per run (Σ six routers)", "setups", log=True,
              marks={"vc.setups": {"noqos-conv-svc": 168_936, "noqos-conv-svccache": 4337, "noqos-app-svc": 71_136, "noqos-app-svccache": 1424}}),
        _bars(study, ["vc.max_in_use", "vc.peak_busy"], figure_path(out, "vc_max_peak.png"),
              "Max VCs at one router; peak setups/s at berkeley, illinois", "count",
              marks={"vc.max_in_use": oracle.MAX_VCS, "vc.peak_busy": oracle.PEAKS}),
    ]
    note = ("" if study.mode.at_scale else " The thesis' marks are at its scale (200 workstations, 4000 s): at quick scale "
            "absolute counts and times are not expected to meet them.")
    return ("<h2>Figures</h2><p>Bars: mean over seeds; dots: each seed; red crosses: the thesis' values (telnet connect "
            "and HTTP page: the middle of the ranges implied in spec §5.6); dashed lines: the thesis' bounds." + note
            + "</p>" + "".join(f"<p><img src='{_e(f.name)}' alt='{_e(f.stem)}'></p>" for f in figs))


def _consistency(study: Study) -> str:
    st = study.stats

    def mean(c: str, k: str) -> float | None:
        v = [r[k] for r in st[c] if r[k] is not None]
        return float(np.mean(v)) if v else None

    cs, rs = mean("noqos-conv-svc", "telnet.connect.median"), mean("noqos-router-svc", "telnet.connect.median")
    ours = ("atmsim: noqos svccache median telnet connect "
            + ", ".join(f"{c} {oracle.show('telnet.connect.median', mean(c, 'telnet.connect.median'))}" for c in ("noqos-app-svccache", "noqos-conv-svccache"))
            + (f"; router-svc / conv-svc median = {rs / cs:.2f} (thesis ≈0.38)" if cs and rs else "") + ".")
    items = "".join(f"<li><b>{k}</b>: {_e(t)}" + (f" <i>{_e(ours)}</i>" if k == "C-1" else "") + "</li>" for k, t in oracle.CONSISTENCY)
    return ("<h2>The thesis' internal inconsistencies (spec §5.7)</h2><p>Noted, not fitted: where two of the thesis' "
            "numbers disagree no row is judged against either (K-7).</p><ul>" + items + "</ul>")


def _runtime(study: Study) -> str:
    walls = {c: [s["run"]["wall_s"] for s in study.summaries[c]] for c in CONFIGS}
    rows = "".join(f"<tr><td>{_e(oracle.name(c))}</td><td>{', '.join(f'{x:.1f}' for x in walls[c])}</td>"
                   f"<td>{sum(walls[c]):.1f}</td></tr>" for c in CONFIGS)
    total = sum(s["run"]["wall_s"] for ss in study.summaries.values() for s in ss)
    return ("<h2>Run time</h2><p>Each run's simulation wall time (the core's), per seed, on a thread per core "
            f"(runs overlap): Σ {total:.0f} s over {sum(map(len, study.summaries.values()))} runs; the whole study took "
            f"{study.elapsed_s:.0f} s wall.</p><table><tr><th>configuration</th><th>per run [s]</th><th>Σ [s]</th></tr>"
            f"{rows}</table>")


def _write_csv(study: Study, judged, out: Path) -> None:
    with atomic_file(out / "per_run.csv", "w") as f:
        w = csv.writer(f)
        w.writerow(["configuration", "seed", "wall_s", *tables.STATS])
        for c in CONFIGS:
            for seed, summ, r in zip(study.seeds, study.summaries[c], study.stats[c]):
                w.writerow([oracle.name(c), seed, f"{summ['run']['wall_s']:.2f}", *("" if r[k] is None else f"{r[k]:.6g}" for k in tables.STATS)])
    with atomic_file(out / "rows.csv", "w") as f:
        w = csv.writer(f)
        w.writerow(["row", "where", "comparison", "thesis", "atmsim", "test", "verdict", "reason"])
        for r, v in judged:
            w.writerow([r.id, r.where, r.what, r.thesis, v.ours, v.test, v.word, v.reason])


def write(study: Study, out: Path) -> Path:
    """Write ``report.html``, its figures and CSV files for ``study`` into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    judged = verdicts(study)
    items = [(r.id, v.word) for r, v in judged]
    mode = "full" if study.mode == FULL else "quick" if study.mode == QUICK else "custom"
    util = [r["bottleneck.util"] for rs in study.stats.values() for r in rs if r["bottleneck.util"] is not None]
    load = (f"The 30 ms HW–HE bottleneck is busy {100 * min(util):.0f}–{100 * max(util):.0f} % of the time in its busier "
            "direction over these runs. " if util else "")
    intro = (
        "<p>The seven best-effort configurations of the thesis (Appendix B) on the Mah internetwork "
        "(<code>scenarios/mah96/noqos_conv_svc.toml</code>; six sites, a T1 ATM backbone with one 30 ms bottleneck, the "
        f"Table 3-2 workload), every site router's IP-over-ATM driver set to each configuration. Scale: {_e(study.mode.label())}"
        f" (seeds {', '.join(map(str, study.seeds))}, the same for every configuration); the thesis: 200 workstations per "
        "site, 4000 s, at least 3 seeds. "
        + ("" if study.mode.at_scale else "Quick scale has a quarter of the Web browsers (one per workstation) and shorter "
           "runs; the other arrival rates of Table 3-2 are per site and unchanged. ")
        + load + "Each row below is one of the spec's oracle rows (§5.2–5.4, §5.6); a row whose configurations were not run "
        "(the QoS policies here) is not comparable for want of samples, and statements with neither a number nor a test "
        "are listed with that reason. Files: <code>per_run.csv</code> (every run's "
        "statistics), <code>rows.csv</code> (this table).</p>")
    body = [summary_html(items, study.elapsed_s, mode), intro, "<h2>Rows beside the thesis</h2>", _rows_html(judged),
            _recommendations_html(study), _rules_html(study.mode), _config_table(study), _figures(study, out), _consistency(study), _runtime(study),
            f"<p class='meta'>mode: {mode}; {_e(study.mode.label())}; seeds {study.seeds}; {study.elapsed_s:.1f} s wall.</p>"]
    _write_csv(study, judged, out)
    return write_report(out, TITLE, "".join(body))


def run(out_dir: str | Path, full: bool = False, seed: int = 1, progress=None, *,
        workstations: int | None = None, duration_s: float | None = None, seeds: int | None = None) -> Path:
    """Run the seven noqos configurations and write ``report.html`` into ``out_dir``.

    ``workstations``, ``duration_s`` and ``seeds`` (a count) override the mode's (for tests)."""
    base = FULL if full else QUICK
    mode = Mode(workstations or base.workstations, duration_s or base.duration_s, seeds or base.seeds)
    return write(collect(mode, seed, progress), Path(out_dir))
