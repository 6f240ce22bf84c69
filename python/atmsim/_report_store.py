"""The generic HTML report of a results store: ``atmsim report [STORE] --out DIR``.

Owns reading a sweep results store (a DuckDB file, written by ``atmsim sweep``) for
reporting, the per-run key metrics derived from it, their mean and Student-t confidence
interval over seeds (:func:`atmsim.stats.mean_ci`), and the page: per sweep, its grid, run
counts (failed runs listed with their errors), a table of every grid point's means ± CI,
and one figure per varying parameter and key metric. The page, the PNGs and
``summary.csv`` (every plotted mean and interval) are written to the output directory.

The store schema this reads (only these columns are used)::

    runs(run_id, sweep_id, scenario, params JSON {dotted path: value}, seed, status 'ok'|'failed',
         error, error_field, ...)
    metrics(run_id, entity, metric, value)     entity: 'conn:NAME', 'port:NAME', 'run', ...
    sweeps(sweep_id, scenario, grid JSON, seeds JSON, created_at)

Key metrics, one value per ok run (:data:`KEY_METRICS`): total and mean goodput over
connections, Jain's fairness index of the connections' goodputs (runs with ≥ 2
connections), retransmitted segments and timeouts summed over connections, drops summed
over ports and the highest port utilisation; then, per port, the drops and utilisation of
the (at most :data:`MAX_PORTS`) ports with the most drops / highest utilisation. Metrics
absent from the store are skipped.

Figures put a varying parameter on the x axis (log scale when it spans ≥ 8× and is
positive) and draw one line per combination of the other varying parameters (or per port),
the mean over seeds with error bars and a shaded band at the 95% level. Axis labels take
their unit from the name's suffix (``_bps`` in Mb/s, ``_bytes``, ``_cells``, ``_s``, ``_ms``).
"""

from __future__ import annotations

import html
import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from . import stats
from ._core import Entity
from ._output import atomic_file
from ._report import figure_path, save_figure, write_report
from ._store import Store as StoreFile
from ._store import StoreError

__all__ = ["KEY_METRICS", "StoreError", "axis_label", "key_metrics", "load_store", "summarize", "write_store_report"]

LEVEL = 0.95
MAX_PORTS = 4
MAX_LINES = 10


# ----- reading the store -------------------------------------------------------------------


@dataclass
class Store:
    sweeps: pd.DataFrame  # sweep_id, scenario, grid (parsed), seeds (parsed), created_at
    runs: pd.DataFrame  # run_id, sweep_id, scenario, params (parsed dict), seed, status, error, error_field
    metrics: pd.DataFrame  # run_id, entity, metric, value


def _json(v: Any) -> Any:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return None
    return json.loads(v) if isinstance(v, str) else v


def load_store(path: str | Path) -> Store:
    """Read the sweeps, runs and metrics tables of the DuckDB store at ``path`` (read-only).

    DuckDB admits a reader from another process only while no process has the file open for
    writing, so reporting on a sweep that is still running fails with :class:`StoreError`.
    """
    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(2, "No such file or directory", str(p))
    with StoreFile(p).reader() as con:
        sweeps = con.execute("SELECT sweep_id, scenario, grid, seeds, created_at FROM sweeps ORDER BY created_at, sweep_id").df()
        runs = con.execute(
            "SELECT run_id, sweep_id, scenario, params, seed, status, error, error_field FROM runs ORDER BY sweep_id, run_id"
        ).df()
        metrics = con.execute("SELECT run_id, entity, metric, value FROM metrics").df()
    sweeps["grid"] = sweeps["grid"].map(_json)
    sweeps["seeds"] = sweeps["seeds"].map(_json)
    runs["params"] = runs["params"].map(lambda v: _json(v) or {})
    return Store(sweeps, runs, metrics)


# ----- per-run key metrics -----------------------------------------------------------------


@dataclass(frozen=True)
class KeyMetric:
    key: str  # column name; its suffix gives the unit
    kind: str  # entity prefix: 'conn' or 'port'
    metric: str  # metric name in the store
    agg: str  # 'sum' | 'mean' | 'max' | 'jain' | 'each' (one series per entity)
    title: str


KEY_METRICS: tuple[KeyMetric, ...] = (
    KeyMetric("total_goodput_bps", Entity.CONN, "goodput_bps", "sum", "total goodput"),
    KeyMetric("mean_goodput_bps", Entity.CONN, "goodput_bps", "mean", "goodput per connection"),
    KeyMetric("jain_goodput", Entity.CONN, "goodput_bps", "jain", "Jain's fairness index of goodput"),
    KeyMetric("rexmt_segs", Entity.CONN, "rexmt_segs", "sum", "retransmissions"),
    KeyMetric("timeouts", Entity.CONN, "timeouts", "sum", "retransmission timeouts"),
    KeyMetric("drops_cells", Entity.PORT, "drops", "sum", "cells dropped (all ports)"),
    KeyMetric("max_utilization", Entity.PORT, "utilization", "max", "utilisation of the busiest port"),
    KeyMetric("port_drops_cells", Entity.PORT, "drops", "each", "cells dropped per port"),
    KeyMetric("port_utilization", Entity.PORT, "utilization", "each", "utilisation per port"),
)


def key_metrics(metrics: pd.DataFrame, run_ids) -> pd.DataFrame:
    """Long frame ``run_id, key, entity, value`` of :data:`KEY_METRICS` for ``run_ids``.

    ``entity`` is empty for per-run aggregates and the port name for per-port series.
    """
    m = metrics[metrics["run_id"].isin(set(run_ids))].copy()
    parts = m["entity"].astype(str).str.split(":", n=1)
    m["kind"] = parts.str[0]
    m["name"] = parts.str[1].fillna("")
    m = m[np.isfinite(m["value"].astype(float))]
    out = []
    for spec in KEY_METRICS:
        sel = m[(m["kind"] == spec.kind) & (m["metric"] == spec.metric)]
        if sel.empty:
            continue
        g = sel.groupby("run_id")["value"]
        if spec.agg == "each":
            ranking = sel.groupby("name")["value"].mean().sort_values(ascending=False)
            ranking = ranking[ranking > 0].head(MAX_PORTS)
            if ranking.empty:
                continue
            rows = sel[sel["name"].isin(ranking.index)]
            out.append(pd.DataFrame({"run_id": rows["run_id"], "key": spec.key, "entity": rows["name"], "value": rows["value"]}))
            continue
        if spec.agg == "jain":
            v = g.agg(lambda s: stats.jain(s.to_numpy()) if len(s) >= 2 else math.nan).dropna()
        else:
            v = g.agg(spec.agg)
        if v.empty:
            continue
        out.append(pd.DataFrame({"run_id": v.index, "key": spec.key, "entity": "", "value": v.to_numpy()}))
    if not out:
        return pd.DataFrame(columns=["run_id", "key", "entity", "value"])
    return pd.concat(out, ignore_index=True)


# ----- summarising over seeds --------------------------------------------------------------


def _hashable(v: Any) -> Any:
    return json.dumps(v, sort_keys=True) if isinstance(v, list | dict) else v


def varying_parameters(runs: pd.DataFrame) -> list[str]:
    """Parameters (dotted paths) that take more than one value across ``runs``, in first-seen order."""
    seen: dict[str, set] = {}
    for params in runs["params"]:
        for k, v in params.items():
            seen.setdefault(k, set()).add(_hashable(v))
    names = [k for k, vals in seen.items() if len(vals) > 1]
    # a parameter missing from some runs also varies
    for k in seen:
        if k not in names and any(k not in p for p in runs["params"]):
            names.append(k)
    return names


def summarize(runs: pd.DataFrame, values: pd.DataFrame, params: list[str], level: float = LEVEL) -> pd.DataFrame:
    """Mean and CI over seeds of every key metric at every grid point.

    ``runs``: ok runs (``run_id``, ``params``); ``values``: :func:`key_metrics`. Returns one
    row per (grid point, key, entity): the parameter columns, ``key``, ``entity``, ``n``,
    ``mean``, ``ci_low``, ``ci_high``, ``stderr``.
    """
    point = pd.DataFrame({p: [_hashable(ps.get(p)) for ps in runs["params"]] for p in params}, index=runs["run_id"])
    df = values.join(point, on="run_id")
    rows = []
    for keys, grp in df.groupby(params + ["key", "entity"], sort=False, dropna=False):
        ci = stats.mean_ci(grp["value"].to_numpy(), level)
        rows.append((*keys, ci.n, ci.estimate, ci.low, ci.high, ci.stderr))
    order = {k.key: i for i, k in enumerate(KEY_METRICS)}
    rows.sort(key=lambda r: ([_sort_key(v) for v in r[: len(params)]], order.get(r[len(params)], 99), str(r[len(params) + 1])))
    return pd.DataFrame(rows, columns=params + ["key", "entity", "n", "mean", "ci_low", "ci_high", "stderr"])


def _sort_key(v: Any) -> tuple:
    """Numbers first, in numeric order; then everything else by its text."""
    x = _as_number(v)
    return (0, x, "") if x is not None else (1, 0.0, str(v))


# ----- labels and units --------------------------------------------------------------------

_UNITS: tuple[tuple[str, str, float], ...] = (
    ("_bps", "Mb/s", 1e-6),
    ("_bytes", "bytes", 1.0),
    ("_cells", "cells", 1.0),
    ("_segs", "segments", 1.0),
    ("_ms", "ms", 1.0),
    ("_us", "µs", 1.0),
    ("_s", "s", 1.0),
)


def axis_label(name: str, title: str | None = None) -> tuple[str, float]:
    """``(label, scale)`` for a metric or parameter name: unit from its suffix, values × scale.

    ``"tcp[0].window_bytes"`` → ``("tcp[0].window [bytes]", 1)``; ``"goodput_bps"`` →
    ``("goodput [Mb/s]", 1e-6)``.
    """
    for suffix, unit, scale in _UNITS:
        if name.endswith(suffix):
            base = title or name[: -len(suffix)].replace("_", " ")
            return f"{base} [{unit}]", scale
    base = title or name.replace("_", " ")
    if "utilization" in name or "utilisation" in name:
        return f"{base} [fraction]", 1.0
    return base, 1.0


def _slug(s: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", s).strip("_") or "x"


# ----- figures -----------------------------------------------------------------------------


def _as_number(v: Any) -> float | None:
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, int | float | np.integer | np.floating):
        return float(v)
    return None


def _plot(summary: pd.DataFrame, key: str, title: str, x: str, others: list[str], path: Path) -> Path | None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    d = summary[summary["key"] == key]
    if d.empty:
        return None
    by_entity = (d["entity"] != "").any()
    series_cols = (["entity"] if by_entity else []) + others
    xs = list(dict.fromkeys(d[x]))
    numeric = all(_as_number(v) is not None for v in xs)
    xlabel, xscale = axis_label(x)
    ylabel, yscale = axis_label(key, title)
    positions = {v: (float(v) * xscale if numeric else i) for i, v in enumerate(sorted(xs, key=_sort_key))}

    fig, ax = plt.subplots(figsize=(7.0, 4.2))
    groups = list(d.groupby(series_cols, sort=False)) if series_cols else [((), d)]
    for i, (label, grp) in enumerate(groups[:MAX_LINES]):
        grp = grp.assign(_x=grp[x].map(positions)).sort_values("_x")
        mean = grp["mean"].to_numpy() * yscale
        low = grp["ci_low"].to_numpy() * yscale
        high = grp["ci_high"].to_numpy() * yscale
        color = f"C{i % 10}"
        label = label if isinstance(label, tuple) else (label,)
        name = ", ".join(f"{c}={v}" if c != "entity" else str(v) for c, v in zip(series_cols, label, strict=True)) or None
        err = np.vstack([mean - low, high - mean])
        err = np.where(np.isfinite(err), err, 0.0)
        ax.errorbar(grp["_x"], mean, yerr=err, marker="o", ms=4, capsize=3, color=color, label=name)
        ok = np.isfinite(low) & np.isfinite(high)
        if ok.sum() >= 2:
            ax.fill_between(grp["_x"].to_numpy()[ok], low[ok], high[ok], color=color, alpha=0.15, linewidth=0)
    if numeric:
        vals = [p for p in positions.values()]
        if min(vals) > 0 and max(vals) / min(vals) >= 8:
            ax.set_xscale("log")
            if len(vals) <= 12:
                ax.set_xticks(sorted(vals))
                ax.set_xticklabels([f"{v:g}" for v in sorted(vals)])
                ax.minorticks_off()
    else:
        ax.set_xticks(list(positions.values()))
        ax.set_xticklabels([str(v) for v in positions])
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    n_seeds = int(d["n"].max())
    ax.set_title(f"{title} vs {x}\nmean over seeds (n ≤ {n_seeds}), {LEVEL:.0%} Student-t interval", fontsize="medium")
    ax.grid(True, alpha=0.3)
    if len(groups) > 1:
        extra = f" (first {MAX_LINES} of {len(groups)})" if len(groups) > MAX_LINES else ""
        ax.legend(fontsize="small", title=("port" if by_entity and not others else None), title_fontsize="small")
        if extra:
            ax.text(0.99, 0.01, extra.strip(), transform=ax.transAxes, ha="right", va="bottom", fontsize="x-small")
    fig.tight_layout()
    return save_figure(fig, path, dpi=110)


# ----- the page ----------------------------------------------------------------------------


def _table(header: list[str], rows: list[list[Any]], cls: str = "") -> str:
    head = "".join(f"<th>{html.escape(str(h))}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>" for row in rows)
    c = f" class='{cls}'" if cls else ""
    return f"<table{c}><tr>{head}</tr>{body}</table>"


def _fmt(v: float, scale: float = 1.0) -> str:
    return "—" if v is None or not np.isfinite(v) else f"{v * scale:.4g}"


def _ci_cell(row: pd.Series, scale: float) -> str:
    if not np.isfinite(row["ci_low"]):
        return f"{_fmt(row['mean'], scale)} (n={row['n']})"
    return f"{_fmt(row['mean'], scale)} ± {_fmt((row['ci_high'] - row['ci_low']) / 2, scale)}"


def _sweep_section(store: Store, sweep_id: Any, meta: pd.Series | None, out: Path, csv_rows: list[pd.DataFrame]) -> str:
    runs = store.runs[store.runs["sweep_id"].isna()] if sweep_id is None else store.runs[store.runs["sweep_id"] == sweep_id]
    label = "runs without a sweep" if sweep_id is None else f"sweep {sweep_id}"
    parts = [f"<h2>{html.escape(label)}</h2>"]
    scenario = meta["scenario"] if meta is not None else ", ".join(sorted(set(runs["scenario"].dropna().astype(str))))
    info = f"scenario <b>{html.escape(str(scenario))}</b>"
    if meta is not None and meta["created_at"] is not None and not pd.isna(meta["created_at"]):
        info += f", created {html.escape(str(meta['created_at']))}"
    parts.append(f"<p>{info}</p>")

    grid = meta["grid"] if meta is not None else None
    if isinstance(grid, dict) and grid:
        parts.append("<h3>Grid</h3>" + _table(["parameter", "values"], [[k, ", ".join(map(str, v)) if isinstance(v, list) else v] for k,
                                                                        v in grid.items()], "left"))
    elif grid:
        parts.append(f"<h3>Grid</h3><pre>{html.escape(json.dumps(grid))}</pre>")
    seeds = meta["seeds"] if meta is not None else None
    n_ok = int((runs["status"] == "ok").sum())
    failed = runs[runs["status"] != "ok"]
    parts.append(
        "<h3>Runs</h3>"
        + _table(
            ["runs", "ok", "failed", "seeds"],
            [[len(runs), n_ok, len(failed), ", ".join(map(str, seeds)) if isinstance(seeds, list) else len(set(runs["seed"]))]],
        )
    )
    if len(failed):
        parts.append(
            "<h4>Failed runs</h4>"
            + _table(
                ["run", "seed", "parameters", "field", "error"],
                [
                    [r.run_id, r.seed, json.dumps(r.params, sort_keys=True), r.error_field or "", r.error or f"status {r.status}"]
                    for r in failed.itertuples()
                ],
                "left",
            )
        )
    ok = runs[runs["status"] == "ok"]
    if ok.empty:
        parts.append("<p>No successful runs: nothing to plot.</p>")
        return "".join(parts)
    params = varying_parameters(ok)
    values = key_metrics(store.metrics, ok["run_id"])
    if values.empty:
        parts.append("<p>No key metrics in the store for these runs.</p>")
        return "".join(parts)
    summary = summarize(ok, values, params)
    csv_rows.append(
        summary.assign(sweep_id=sweep_id if sweep_id is not None else "")[["sweep_id", *summary.columns]].rename(
            columns={p: f"param:{p}" for p in params}
        )
    )
    titles = {k.key: k.title for k in KEY_METRICS}

    # table: every grid point, aggregate key metrics as mean ± CI half-width
    agg = summary[summary["entity"] == ""]
    keys = [k.key for k in KEY_METRICS if k.key in set(agg["key"])]
    header = params + [axis_label(k, titles[k])[0] for k in keys]
    rows = []
    grouped = agg.groupby(params, sort=False, dropna=False) if params else [((), agg)]
    for point, grp in grouped:
        point = point if isinstance(point, tuple) else (point,)
        cells = list(point)
        by_key = {r["key"]: r for _, r in grp.iterrows()}
        for k in keys:
            cells.append(_ci_cell(by_key[k], axis_label(k)[1]) if k in by_key else "—")
        rows.append(cells)
    parts.append(
        f"<h3>Results</h3><p>Mean over seeds ± half-width of the {LEVEL:.0%} Student-t confidence interval"
        " (all values in <a href='summary.csv'>summary.csv</a>).</p>" + _table(header, rows, "results")
    )

    # figures: each varying parameter on the x axis, the others as separate lines
    figs = []
    for x in params:
        others = [p for p in params if p != x]
        for spec in KEY_METRICS:
            if spec.key not in set(summary["key"]):
                continue
            if spec.agg == "each" and others:
                continue  # per-port lines only when nothing else varies
            name = f"{_slug(str(sweep_id) if sweep_id is not None else 'nosweep')}__{_slug(spec.key)}__vs__{_slug(x)}.png"
            f = _plot(summary, spec.key, spec.title, x, others, figure_path(out, name))
            if f is not None:
                figs.append(f)
    if figs:
        parts.append("<h3>Figures</h3>" + "".join(f'<p><img src="{html.escape(f.name)}" alt="{html.escape(f.stem)}"></p>' for f in figs))
    elif not params:
        parts.append("<p>No parameter varies in this sweep: no figures.</p>")
    return "".join(parts)


def write_store_report(store_path: str | Path, out_dir: str | Path, sweep: str | None = None) -> Path:
    """Write ``report.html``, its PNG figures and ``summary.csv`` for the store into ``out_dir``.

    All sweeps are reported unless ``sweep`` names one. Raises ``FileNotFoundError`` for a
    missing store and :class:`StoreError` for one that cannot be read or lacks the tables.
    """
    store = load_store(store_path)
    out = Path(out_dir)
    sweep_ids: list[Any] = list(store.sweeps["sweep_id"])
    sweep_ids += [s for s in dict.fromkeys(store.runs["sweep_id"].dropna()) if s not in set(sweep_ids)]
    if store.runs["sweep_id"].isna().any():
        sweep_ids.append(None)
    if sweep is not None:
        if sweep not in sweep_ids:
            known = ", ".join(str(s) for s in sweep_ids if s is not None) or "none"
            raise StoreError(f"{store_path}: no sweep `{sweep}` (sweeps: {known})")
        sweep_ids = [sweep]
    csv_rows: list[pd.DataFrame] = []
    sections = []
    for sid in sweep_ids:
        meta = store.sweeps[store.sweeps["sweep_id"] == sid]
        sections.append(_sweep_section(store, sid, meta.iloc[0] if len(meta) else None, out, csv_rows))
    if not sections:
        sections.append("<p>The store holds no runs yet.</p>")
    out.mkdir(parents=True, exist_ok=True)
    table = pd.concat(csv_rows, ignore_index=True) if csv_rows else pd.DataFrame()
    with atomic_file(out / "summary.csv", "w") as f:
        table.to_csv(f, index=False)
    intro = (
        f"<p class='meta'>store {html.escape(str(store_path))}: {len(store.runs)} runs in {len([s for s in sweep_ids if s is not None])} "
        f"sweep(s). Means are over seeds; intervals are Student-t at {LEVEL:.0%} (atmsim.stats.mean_ci).</p>"
    )
    return write_report(out, "atmsim results", intro + "".join(sections))
