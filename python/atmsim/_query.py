"""Reading the results store back: :func:`results` and :func:`series` as pandas DataFrames,
:func:`summaries` as the runs' numeric summaries."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ._scenario import parse_path
from ._store import DEFAULT_LOCK_TIMEOUT_S, Store, StoreError, resolve_store, unflatten_metrics
from .errors import ScenarioError

if TYPE_CHECKING:
    import duckdb

__all__ = ["results", "series", "series_frame", "summaries"]

ID_COLUMNS = ["run_id", "sweep_id", "scenario", "seed", "status"]
_MISSING = object()


def _lookup(doc: Any, keys: list[str | int]) -> Any:
    node = doc
    for key in keys:
        if isinstance(key, int):
            if not isinstance(node, list) or key >= len(node):
                return None
        elif not isinstance(node, dict) or key not in node:
            return None
        node = node[key]
    return node


def _select_runs(con: duckdb.DuckDBPyConnection, sweep: str | None) -> tuple[pd.DataFrame, list[str]]:
    """The runs (id columns + scenario_doc) and the grid paths, in order."""
    if sweep is None:
        runs = con.execute(
            "SELECT run_id, sweep_id, scenario, seed, status, params, scenario_doc FROM runs"
        ).df()
        paths: list[str] = []
        for grid_json in con.execute("SELECT grid FROM sweeps ORDER BY created_at, sweep_id").fetchall():
            for p in json.loads(grid_json[0]):
                if p not in paths:
                    paths.append(p)
        for params_json in runs["params"]:
            for p in json.loads(params_json) if params_json else {}:
                if p not in paths:
                    paths.append(p)
        return runs, paths
    row = con.execute("SELECT grid FROM sweeps WHERE sweep_id = ?", [sweep]).fetchone()
    if row is None:
        known = [r[0] for r in con.execute("SELECT sweep_id FROM sweeps ORDER BY created_at").fetchall()]
        raise StoreError(f"no sweep {sweep!r} in the store (sweeps: {', '.join(known) or 'none'})")
    runs = con.execute(
        """SELECT r.run_id, ? AS sweep_id, r.scenario, r.seed, r.status, r.params, r.scenario_doc
           FROM runs r JOIN sweep_runs s ON s.run_id = r.run_id WHERE s.sweep_id = ?""",
        [sweep, sweep],
    ).df()
    return runs, list(json.loads(row[0]))


def results(
    store: str | Path | None = None,
    sweep: str | Any = None,
    wide: bool = False,
    lock_timeout: float = DEFAULT_LOCK_TIMEOUT_S,
) -> pd.DataFrame:
    """The store's metrics as a DataFrame.

    Long form (default): one row per (run, entity, metric) with columns ``run_id, sweep_id,
    scenario, seed, status``, one column per grid parameter (named by its dotted path),
    ``entity, metric, value``. Runs that failed have no metrics and so no rows here.

    ``wide=True``: one row per run (failed ones included, with NaN metrics) with columns
    ``ENTITY.METRIC`` such as ``conn:ttcp.goodput_bps``.

    ``sweep``: a sweep id (or the object :func:`atmsim.sweep` returned) to restrict to the
    runs of that sweep, including those it found already stored; default: every run.
    """
    db = Store(resolve_store(store), lock_timeout=lock_timeout)
    sweep_id = getattr(sweep, "sweep_id", sweep)
    with db.reader() as con:
        runs, paths = _select_runs(con, sweep_id)
        con.register("_sel", runs[["run_id"]])
        metrics = con.execute(
            "SELECT m.run_id, m.entity, m.metric, m.value FROM metrics m JOIN _sel USING (run_id)"
        ).df()
        con.unregister("_sel")

    # Grid parameters, read from each run's resolved document.
    docs = [json.loads(d) for d in runs["scenario_doc"]]
    for path in paths:
        try:
            keys = parse_path(path)
        except ScenarioError:
            continue
        runs[path] = pd.Series([_lookup(d, keys) for d in docs], index=runs.index, dtype=object).infer_objects()
    runs = runs.drop(columns=["params", "scenario_doc"])
    param_cols = [p for p in paths if p in runs.columns]
    # Tables and lists (grid values may be either) sort by their canonical JSON.
    sort_keys = {p: f"_sort:{p}" for p in param_cols if any(isinstance(v, dict | list) for v in runs[p])}
    for p, k in sort_keys.items():
        runs[k] = [json.dumps(v, sort_keys=True) for v in runs[p]]
    order = [sort_keys.get(p, p) for p in param_cols]
    runs = runs.sort_values([*order, "seed", "run_id"], kind="stable", na_position="last").reset_index(drop=True)
    runs = runs.drop(columns=list(sort_keys.values()))
    runs["seed"] = runs["seed"].astype(np.int64)

    if wide:
        if metrics.empty:
            return runs
        metrics["column"] = metrics["entity"] + "." + metrics["metric"]
        table = metrics.pivot_table(index="run_id", columns="column", values="value", aggfunc="first", sort=False)
        table.columns.name = None
        out = runs.merge(table, how="left", left_on="run_id", right_index=True)
        return out.reset_index(drop=True)

    position = {rid: i for i, rid in enumerate(runs["run_id"])}
    metrics["_order"] = metrics["run_id"].map(position)
    metrics = metrics.sort_values(["_order", "entity", "metric"], kind="stable").drop(columns="_order")
    out = runs.merge(metrics, how="inner", on="run_id")
    return out[[*ID_COLUMNS, *param_cols, "entity", "metric", "value"]].reset_index(drop=True)


def series(run_id: str, store: str | Path | None = None) -> pd.DataFrame:
    """The time series of one run (long form: ``time_s, entity, metric, value``)."""
    db = Store(resolve_store(store))
    with db.reader() as con:
        row = con.execute("SELECT series_path FROM runs WHERE run_id = ?", [run_id]).fetchone()
    if row is None:
        raise StoreError(f"no run {run_id!r} in the store", file=str(db.path))
    return series_frame(db, row[0])


def series_frame(db: Store, series_path: str | None) -> pd.DataFrame:
    """The series file ``series_path`` (relative to the store; ``None``: a run without
    series) as a DataFrame: ``time_s`` and ``value`` as floats, ``entity`` and ``metric`` as
    categories, as :class:`atmsim.Results` has them."""
    if series_path is None:
        return pd.DataFrame({"time_s": np.array([], np.float64), "entity": pd.Categorical([]),
                             "metric": pd.Categorical([]), "value": np.array([], np.float64)})
    return pd.read_parquet(db.path.parent / series_path)


def summaries(
    run_ids: list[str], store: str | Path | None = None, lock_timeout: float = DEFAULT_LOCK_TIMEOUT_S
) -> dict[str, dict[str, Any]]:
    """The numeric summaries of the stored runs among ``run_ids`` that succeeded, rebuilt from
    their metrics (:func:`atmsim._store.unflatten_metrics`: the summary's numbers, nested as in
    ``summary.json``; strings and nulls are not stored). Runs not stored or failed are absent."""
    db = Store(resolve_store(store), lock_timeout=lock_timeout)
    wanted = pd.DataFrame({"run_id": list(dict.fromkeys(run_ids))}, dtype=object)
    with db.reader() as con:
        con.register("_want", wanted)
        ok = con.execute("SELECT r.run_id FROM runs r JOIN _want USING (run_id) WHERE r.status = 'ok'").fetchall()
        rows = con.execute(
            "SELECT m.run_id, m.entity, m.metric, m.value FROM metrics m JOIN _want USING (run_id)"
        ).fetchall()
        con.unregister("_want")
    per_run: dict[str, list[tuple[str, str, float]]] = {rid: [] for (rid,) in ok}
    for rid, entity, metric, value in rows:
        if rid in per_run:
            per_run[rid].append((entity, metric, value))
    return {rid: unflatten_metrics(r) for rid, r in per_run.items()}
