"""Mah (1996) reproduction: the calibration study run and reported
(``atmsim reproduce mah96-calibration --full``).

Owns the runs of the calibration declared in :mod:`.calibration` and its report. One sweep
into one results store, at seeds 1–3 (common random numbers everywhere):

1. **the grid** — :data:`.calibration.FIT_CONFIG` at every port buffer × socket buffer;
2. **the fit** — :func:`.calibration.loss` under both readings of the drop rate; the report
   shows every point, the best under each reading and the setting the study file keeps;
3. **sensitivity of the QoS magnitudes to the buffers** — sp-ftp against noqos (conv-svccache:
   telnet response 90th, Q-7; audio and video loss, Q-9, Q-10) and sp-qos1 against noqos
   (conv-svc: telnet connect 90th, Q-20) at every port buffer × socket buffer of the grid;
4. **the quick scale** — :data:`.calibration.FIT_CONFIG` with the kept setting at the
   candidate scales :data:`SCALES`: the cheapest whose switch drop rate, audio loss and video
   loss are each within a factor :data:`QUICK_FACTOR` of the thesis' scale's is the one quick
   mode should use (:data:`atmsim.reproduce.mah96.QUICK` carries it).

At ``--full`` phases 1–3 run at the thesis' scale (200 workstations per site, 4000 s); quick
mode runs the same phases at quick scale to show the machinery, and its fit is not used.
"""

from __future__ import annotations

import csv
import html
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ... import _query as query
from ... import _sweep as sweeps
from ..._output import atomic_file
from ..._report import figure_path, new_axes, save_figure
from ..._scenario import Scenario
from ..._sweep import SweepPlan
from ..._sweep.seeds import Seeds
from ...callbacks import StudyProgress
from ...study import Kind, Progress, Verdict, holds, in_range, write_study_report
from ...study import Mode as StudyMode
from ...study.executor import raise_failed
from ...study.seeds import study_seeds
from . import FULL, QUICK, SCENARIO, default_seeds, scenario, tables
from . import calibration as cal

__all__ = [
    "MAGNITUDES",
    "QUICK_FACTOR",
    "QUICK_STATS",
    "SCALES",
    "SHOWN",
    "TITLE",
    "TOL",
    "Calibration",
    "change",
    "collect",
    "plan",
    "quick_scale",
    "result",
    "run",
    "verdicts",
    "write",
]


TITLE = "Mah (1996): the calibration of the buffers and socket buffers"
#: Candidate quick scales, cheapest first: (workstations per site, simulated seconds).
SCALES = ((50, 600.0), (75, 600.0), (100, 600.0), (150, 600.0), (200, 600.0))
#: A quick scale is close enough when each loss statistic is within this factor of full scale's.
QUICK_FACTOR = 2.0
#: The statistics the quick scale must match.
QUICK_STATS = ("switch.drop_rate", "audio.loss", "video.loss")
#: The QoS magnitudes whose sensitivity to the buffer is shown: (row, policy config, baseline
#: config, statistic, the thesis' range of B / A − 1 (or of B / A for a ratio), as a ratio?).
MAGNITUDES = (
    ("Q-7", "sp-ftp-conv-svccache", "noqos-conv-svccache", "telnet.response.p90", (0.32, 0.78), False),
    ("Q-9", "sp-ftp-conv-svccache", "noqos-conv-svccache", "audio.loss", (9.0, 10.0), True),
    ("Q-10", "sp-ftp-conv-svccache", "noqos-conv-svccache", "video.loss", (2.0, 3.0), True),
    ("Q-20", "sp-qos1-conv-svc", "noqos-conv-svc", "telnet.connect.p90", (2.0, 4.0), True),
)
#: Tolerance of the calibrated rows' verdicts: the oracle's on levels.
TOL = 0.25
#: Columns of the grid table besides the targets.
SHOWN = ("switch.drop_rate_queues", "audio.loss", "video.loss", "telnet.connect.median", "http.page.p90",
         "ftp.session.p90")


@dataclass
class Calibration:
    """The runs of one calibration: per-run statistics by (phase key)."""

    workstations: int
    duration_s: float
    seeds: list[int]
    grid: dict[tuple[int, int], list[dict]] = field(default_factory=dict)
    magnitudes: dict[tuple[str, int, int], list[dict]] = field(default_factory=dict)
    scales: dict[tuple[int, float], list[dict]] = field(default_factory=dict)
    elapsed_s: float = 0.0
    store: Path | None = None
    ran: int = 0  # runs simulated by this invocation (the others were in the store)

    @property
    def at_scale(self) -> bool:
        return self.workstations >= FULL.workstations and self.duration_s >= FULL.duration_s


def _point(config: str, ws: int, dur: float, buffer_cells: int, window_bytes: int) -> Scenario:
    return cal.apply(scenario(config, ws, dur), buffer_cells, window_bytes)


def plan(ws: int, dur: float, seeds: list[int], buffers: Sequence[int] | None = None, windows: Sequence[int] | None = None,
         scales: Sequence[tuple[int, float]] | None = None) -> tuple[SweepPlan, dict[str, list[tuple[str, Any]]]]:
    """Every run of the calibration as one sweep, and what each run is for: ``(plan, keys)``
    with ``keys[run_id]`` a list of ``(phase, key)`` (a run may serve several phases).
    ``buffers``, ``windows``, ``scales``: the declared ones unless given."""
    buffers, windows = buffers or cal.BUFFERS, windows or cal.WINDOWS
    scales = scales or SCALES
    kept_w = cal.KEPT["window_bytes"]
    want: list[tuple[str, object, Scenario]] = []
    for b in buffers:
        for w in windows:
            want.append(("grid", (b, w), _point(cal.FIT_CONFIG, ws, dur, b, w)))
            for c in dict.fromkeys(c for _row, cfg, base, *_ in MAGNITUDES for c in (cfg, base)):
                want.append(("magnitudes", (c, b, w), _point(c, ws, dur, b, w)))
    for s_ws, s_dur in scales:
        want.append(("scales", (s_ws, s_dur), _point(cal.FIT_CONFIG, s_ws, s_dur, cal.KEPT["buffer_cells"], kept_w)))
    runs: list[tuple[Scenario, int]] = []
    keys: dict[str, list[tuple[str, Any]]] = {}
    for phase, key, sc in want:
        for seed in seeds:
            rid = sweeps.run_id_of(sc.doc, seed)
            if rid not in keys:
                runs.append((sc, seed))
            keys.setdefault(rid, []).append((phase, key))
    return sweeps.plan_runs("mah96-calibration", str(SCENARIO), runs), keys


def collect(ws: int, dur: float, seeds: list[int], progress: Progress | StudyProgress | None = None, *, store: Path,
            jobs: int | None = None, scheduler=None, **grid) -> Calibration:
    """Run the calibration's sweep into ``store`` (stored runs are not run again) and sort the
    per-run statistics by phase."""
    t0 = time.perf_counter()
    p, keys = plan(ws, dur, seeds, **grid)
    shown = Progress.of(progress)
    done = sweeps.run_plan(p, store=store, jobs=jobs, scheduler=scheduler,
                           progress=lambda d, f, t: shown.at(d, t, f"{f} failed" if f else ""))
    raise_failed(done)
    got = query.summaries([r.run_id for r in p.runs], store=done.store)
    c = Calibration(ws, dur, seeds, store=done.store, ran=done.ok)
    for r in p.runs:
        st = tables.run_stats(got[r.run_id])
        for phase, key in keys[r.run_id]:
            getattr(c, phase).setdefault(key, []).append(st)
    c.elapsed_s = time.perf_counter() - t0
    return c


def quick_scale(c: Calibration) -> tuple[tuple[int, float] | None, dict]:
    """The cheapest candidate scale whose :data:`QUICK_STATS` are each within
    :data:`QUICK_FACTOR` of the kept grid point's (the reference), and each candidate's ratios."""
    ref = c.grid.get((cal.KEPT["buffer_cells"], cal.KEPT["window_bytes"]), [])
    ratios: dict = {}
    for s in sorted(c.scales, key=lambda s: s[0] * s[1]):
        r = {}
        for stat in QUICK_STATS:
            a, b = cal.mean_of(c.scales[s], stat), cal.mean_of(ref, stat)
            r[stat] = a / b if a is not None and b else None
        ratios[s] = r
    ok = [s for s, r in ratios.items()
          if all(x is not None and 1 / QUICK_FACTOR <= x <= QUICK_FACTOR for x in r.values())]
    return (ok[0] if ok else None), ratios


def change(c: Calibration, cfg: str, base: str, b: int, w: int, stat: str, ratio: bool) -> float | None:
    """The policy's mean against the baseline's at port buffer ``b`` and socket buffer ``w``:
    B / A (``ratio``) or B / A − 1."""
    x, y = (cal.mean_of(c.magnitudes.get((k, b, w), []), stat) for k in (cfg, base))
    if x is None or not y:
        return None
    return x / y if ratio else x / y - 1


def _finite(x: float) -> float | None:
    """``x``, or None where it is infinite (a target with no value or a zero rate)."""
    return x if np.isfinite(x) else None


def result(c: Calibration) -> dict:
    """The fit and the quick scale as data (``calibration.json``)."""
    kept = (cal.KEPT["buffer_cells"], cal.KEPT["window_bytes"])
    chosen, ratios = quick_scale(c)
    return {
        "scale": {"workstations": c.workstations, "duration_s": c.duration_s, "seeds": c.seeds},
        "at_scale": c.at_scale,
        "best": {r: dict(zip(("buffer_cells", "window_bytes"), cal.best(c.grid, r))) for r in cal.READINGS},
        "loss": {f"{b},{w}": {r: _finite(cal.loss(v, r)) for r in cal.READINGS} for (b, w), v in sorted(c.grid.items())},
        "kept": dict(zip(("buffer_cells", "window_bytes"), kept)),
        "quick_scale": None if chosen is None else {"workstations": chosen[0], "duration_s": chosen[1]},
        "quick_ratios": {f"{s[0]}x{s[1]:g}": r for s, r in ratios.items()},
    }


def verdicts(c: Calibration) -> list[Verdict]:
    """The calibration rows at the kept setting, judged as the oracle judges levels (within
    25 % of the thesis' range; kind calibrated: the setting was fitted to them; at quick scale
    not comparable), and whether a quick scale passed (:func:`quick_scale`; model-vs-model)."""
    kept = c.grid.get((cal.KEPT["buffer_cells"], cal.KEPT["window_bytes"]), [])
    where = (f"{cal.FIT_CONFIG}, buffer {cal.KEPT['buffer_cells']} cells, socket buffer "
             f"{cal.KEPT['window_bytes']} B, mean of {len(kept)} seeds")
    out = []
    for t in cal.TARGETS:
        x = cal.mean_of(kept, t.stat)
        paper = f"{t.row} {tables.STATS[t.stat].label}: {t.thesis}"
        if not c.at_scale or x is None:
            why = "levels are the thesis' at its scale only" if not c.at_scale else "no value in these runs"
            out.append(Verdict.not_comparable(f"cal {t.row}", paper, why, kind=Kind.CALIBRATED, ours=x, detail=where))
            continue
        rule = in_range(x, t.lo * (1 - TOL), t.hi * (1 + TOL))
        out.append(Verdict.judged(f"cal {t.row}", Kind.CALIBRATED, paper, rule, ours=x, paper_value=t.lo, detail=where))
    chosen, _ = quick_scale(c)
    words = f"each of {', '.join(QUICK_STATS)} within {QUICK_FACTOR:g}x of the thesis' scale's, at some candidate"
    out.append(Verdict.judged("quick scale", Kind.MODEL, "a quick scale at the thesis' operating point",
                              holds(words, chosen is not None),
                              detail=(f"cheapest passing: {chosen[0]} workstations x {chosen[1]:g} s" if chosen
                                      else "no candidate passes")
                              + f"; quick mode runs {cal.QUICK_SCALE[0]} workstations x {cal.QUICK_SCALE[1]:g} s"))
    return out


def _fmt(stat: str, x: float | None) -> str:
    return tables.STATS[stat].show(x)


def _grid_html(c: Calibration) -> str:
    targets = [t.stat for t in cal.TARGETS]
    head = ("<tr><th>buffer (cells)</th><th>socket buffer (B)</th>"
            + "".join(f"<th>{html.escape(tables.STATS[s].label)}</th>" for s in targets + list(SHOWN))
            + "".join(f"<th>loss ({r})</th>" for r in cal.READINGS) + "</tr>")
    thesis = ("<tr><td colspan=2><i>thesis</i></td>" + "".join(f"<td><i>{html.escape(t.thesis)}</i></td>" for t in cal.TARGETS)
              + f"<td colspan={len(SHOWN) + len(cal.READINGS)}></td></tr>")
    best = {r: cal.best(c.grid, r) for r in cal.READINGS} if c.grid else {}
    rows = []
    for (b, w), runs in sorted(c.grid.items()):
        mark = " ".join(f"best ({r})" for r, p in best.items() if p == (b, w))
        kept = (b, w) == (cal.KEPT["buffer_cells"], cal.KEPT["window_bytes"])
        style = " style='background:#eef6ee'" if kept else ""
        rows.append(f"<tr{style}><td>{b}{' (kept)' if kept else ''}</td><td>{w} {mark}</td>"
                    + "".join(f"<td>{_fmt(s, cal.mean_of(runs, s))}</td>" for s in targets + list(SHOWN))
                    + "".join(f"<td>{cal.loss(runs, r):.3f}</td>" for r in cal.READINGS) + "</tr>")
    return f"<table>{head}{thesis}{''.join(rows)}</table>"


def _magnitudes_html(c: Calibration, buffers) -> str:
    rows = []
    windows = sorted({w for _, _, w in c.magnitudes})
    for row, cfg, base, stat, (lo, hi), ratio in MAGNITUDES:
        thesis = f"×{lo:g}–{hi:g}" if ratio else f"+{100 * lo:.0f}–{100 * hi:.0f} %"
        for w in windows:
            cells = []
            for b in buffers:
                x = change(c, cfg, base, b, w, stat, ratio)
                cells.append("—" if x is None else (f"×{x:.1f}" if ratio else f"{100 * x:+.0f} %"))
            rows.append(f"<tr><td>{row}</td><td>{cfg} vs {base}: {html.escape(tables.STATS[stat].label)}</td><td>{w}</td>"
                        + "".join(f"<td>{x}</td>" for x in cells) + f"<td>{thesis}</td></tr>")
    head = ("<tr><th>row</th><th>change</th><th>socket buffer (B)</th>" + "".join(f"<th>{b} cells</th>" for b in buffers)
            + "<th>thesis</th></tr>")
    return f"<table>{head}{''.join(rows)}</table>"


def _windows_html(c: Calibration) -> str:
    stats = ("switch.drop_rate", "audio.loss", "video.loss")
    bs = sorted({b for b, _ in c.grid})
    ws = sorted({w for _, w in c.grid})
    head = "<tr><th>socket buffer (B)</th>" + "".join(f"<th>{b} cells</th>" for b in bs) + "</tr>"
    rows = []
    for w in ws:
        cells = [" / ".join(_fmt(s, cal.mean_of(c.grid.get((b, w), []), s)) for s in stats) for b in bs]
        rows.append(f"<tr><td>{w}</td>" + "".join(f"<td>{x}</td>" for x in cells) + "</tr>")
    return (f"<p>Each cell: {' / '.join(tables.STATS[s].label for s in stats)} (%), {cal.FIT_CONFIG}.</p>"
            f"<table>{head}{''.join(rows)}</table>")


def _scales_html(c: Calibration) -> str:
    chosen, ratios = quick_scale(c)
    head = "<tr><th>scale</th>" + "".join(f"<th>{html.escape(tables.STATS[s].label)} (× full)</th>" for s in QUICK_STATS) + "</tr>"
    rows = []
    for s, r in ratios.items():
        cells = "".join(f"<td>{_fmt(k, cal.mean_of(c.scales[s], k))} ({'—' if v is None else f'{v:.2f}'})</td>"
                        for k, v in r.items())
        rows.append(f"<tr><td>{s[0]} workstations × {s[1]:g} s{' (chosen)' if s == chosen else ''}</td>{cells}</tr>")
    return f"<table>{head}{''.join(rows)}</table>"


def _heatmap(c: Calibration, out: Path, reading: str) -> str:
    bs = sorted({b for b, _ in c.grid})
    ws = sorted({w for _, w in c.grid})
    z = np.array([[cal.loss(c.grid[(b, w)], reading) if (b, w) in c.grid else np.nan for b in bs] for w in ws])
    from matplotlib.colors import LogNorm

    fig, ax = new_axes((6.0, 3.6))
    finite = z[np.isfinite(z) & (z > 0)]
    norm = LogNorm(vmin=finite.min(), vmax=finite.max()) if finite.size > 1 and finite.min() < finite.max() else None
    im = ax.imshow(z, origin="lower", cmap="viridis_r", aspect="auto", norm=norm)
    ax.set_xticks(range(len(bs)), [str(b) for b in bs])
    ax.set_yticks(range(len(ws)), [str(w) for w in ws])
    for i in range(len(ws)):
        for j in range(len(bs)):
            dark = norm is not None and np.isfinite(z[i, j]) and z[i, j] > 0 and norm(z[i, j]) > 0.5
            ax.text(j, i, f"{z[i, j]:.2f}", ha="center", va="center", color="w" if dark else "k", fontsize=8)
    fig.colorbar(im, ax=ax, label="loss (Σ squared log distance)")
    ax.set_xlabel("port buffer (cells)")
    ax.set_ylabel("socket buffer (bytes)")
    ax.set_title(f"Distance from the calibration set ({reading} drop rate)")
    fig.tight_layout()
    path = save_figure(fig, figure_path(out, f"calibration_loss_{reading}.png"), 120)
    return f"<img src='{path.name}' alt='loss over the grid, {reading}'>"


def _declaration_html() -> str:
    params = (f"<li>port buffer of every switch output port and router adapter: {', '.join(map(str, cal.BUFFERS))} cells "
              f"(EPD at {100 * cal.EPD_FRACTION:.0f} %, per-VC share {100 * cal.VC_SHARE:.0f} %)</li>"
              f"<li>TCP socket buffers: {', '.join(map(str, cal.WINDOWS))} bytes</li>")
    fixed = "".join(f"<li>{html.escape(k)}: {html.escape(v)}</li>" for k, v in cal.FIXED.items())
    targets = "".join(f"<li>{t.row}: {html.escape(tables.STATS[t.stat].label)}, thesis {html.escape(t.thesis)}</li>"
                      for t in cal.TARGETS)
    return (f"<h2>Declared before the fit</h2><p>Free parameters and grid:</p><ul>{params}</ul><p>Not fitted:</p>"
            f"<ul>{fixed}</ul><p>Calibration set (on {cal.FIT_CONFIG}; the fit minimises the sum of the squared log "
            f"distances from the thesis' values, under each reading of the drop rate):</p><ul>{targets}</ul>"
            "<p>Validation set: every other row of <code>atmsim reproduce mah96</code>'s report, judged with the kept "
            "setting.</p>")


def write(c: Calibration, out: Path) -> Path:
    """Write ``report.html``, ``calibration.csv`` and ``calibration.json`` into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    res = result(c)
    bs = sorted({b for b, _ in c.grid})
    body = [
        f"<p>Scale: {c.workstations} workstations per site, {c.duration_s:g} s, seeds {c.seeds}"
        + ("" if c.at_scale else " — <b>not the thesis' scale: the fit is shown, not used</b>") + ".</p>",
        _declaration_html(),
        "<h2>The fit</h2>", _grid_html(c),
        "".join(_heatmap(c, out, r) for r in cal.READINGS) if c.grid else "",
        f"<p>Best: {html.escape(json.dumps(res['best']))}; kept by the study file: {html.escape(json.dumps(res['kept']))}.</p>",
        "<h2>Sensitivity: the QoS magnitudes and the buffers</h2>", _magnitudes_html(c, bs),
        "<h2>Sensitivity: losses and the socket buffer</h2>", _windows_html(c),
        f"<h2>Quick scale</h2><p>{cal.FIT_CONFIG} with the kept setting at each candidate scale against the thesis' "
        f"scale's; the cheapest with every ratio within {QUICK_FACTOR:g}× is chosen.</p>", _scales_html(c),
    ]
    with atomic_file(out / "calibration.json", "w") as f:
        f.write(json.dumps(res, indent=2))
    with atomic_file(out / "calibration.csv", "w") as f:
        wr = csv.writer(f)
        keys = [t.stat for t in cal.TARGETS] + list(SHOWN)
        wr.writerow(["buffer_cells", "window_bytes", *keys, *(f"loss_{r}" for r in cal.READINGS)])
        for (b, w), runs in sorted(c.grid.items()):
            wr.writerow([b, w, *(cal.mean_of(runs, k) for k in keys), *(cal.loss(runs, r) for r in cal.READINGS)])
    mode = "full" if c.at_scale else "quick"
    return write_study_report(out, TITLE, "".join(body), verdicts(c), c.elapsed_s, mode, store=c.store,
                              study="mah96-calibration")


def run(out_dir: str | Path, mode: StudyMode = StudyMode.QUICK, seed: int = 1, progress: Progress | StudyProgress | None = None, *,
        seeds: Seeds | None = None, store: str | Path | None = None, jobs: int | None = None, scheduler=None,
        workstations: int | None = None, duration_s: float | None = None, **grid) -> Path:
    """Run the calibration (module docs) and write its report into ``out_dir``; ``grid``:
    ``buffers``, ``windows``, ``scales`` to try other points than the declared ones;
    ``seeds``: as :func:`atmsim.reproduce.mah96.run` takes them."""
    base = FULL if StudyMode(mode).full else QUICK
    ws, dur = workstations or base.workstations, duration_s or base.duration_s
    chosen = study_seeds(seeds, seed) if seeds is not None else default_seeds(base, seed)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    c = collect(ws, dur, chosen, progress,
                store=Path(store) if store else out / "results.duckdb", jobs=jobs, scheduler=scheduler, **grid)
    return write(c, out)
