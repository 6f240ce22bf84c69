"""A study's verdicts as a table of the results store (DuckDB), beside ``verdicts.csv`` and
``verdicts.json``.

Owns the ``verdicts`` table: one row per verdict, keyed by (study, row), with the fields of
:class:`~atmsim.study.verdict.Verdict` plus the study's name, the row's position in the report,
the mode and when it was written (UTC).
A study that writes its verdicts replaces its own earlier rows in one transaction, so the table
holds each study's latest report and never half of one; other studies' rows are left alone.
The store's own tables (runs, metrics, ...) are created too if the file is new, so the file is
an ordinary atmsim results store (:mod:`atmsim._store`; ``docs/results-store.md``).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pyarrow as pa

from .._store import Store
from .verdict import _FIELDS, Verdict, _check_unique

__all__ = ["VERDICTS_TABLE", "read_store_verdicts", "write_store_verdicts"]

VERDICTS_TABLE = """
CREATE TABLE IF NOT EXISTS verdicts (
    study TEXT,
    position INTEGER,
    "row" TEXT,
    kind TEXT,
    outcome TEXT,
    paper TEXT,
    rule TEXT,
    paper_value DOUBLE,
    ours DOUBLE,
    low DOUBLE,
    high DOUBLE,
    unit TEXT,
    detail TEXT,
    mode TEXT,
    written_at TIMESTAMP,
    PRIMARY KEY (study, "row")
);
"""

_NUMBERS = ("paper_value", "ours", "low", "high")


def write_store_verdicts(store: str | Path, study: str, verdicts: list[Verdict], mode: str) -> None:
    """Replace ``study``'s rows of the ``verdicts`` table of the results store ``store`` by
    ``verdicts`` (created with the store's tables if missing)."""
    _check_unique(verdicts)
    s = Store(store)
    s.verify()
    records = [v.record() for v in verdicts]
    now = dt.datetime.now(dt.UTC).replace(tzinfo=None)
    columns = {k: [r[k] for r in records] for k in _FIELDS}
    types = {k: pa.float64() if k in _NUMBERS else pa.string() for k in _FIELDS}
    table = pa.table({
        "study": pa.array([study] * len(records), pa.string()),
        "position": pa.array(range(len(records)), pa.int32()),
        **{k: pa.array(columns[k], types[k]) for k in _FIELDS},
        "mode": pa.array([mode] * len(records), pa.string()),
        "written_at": pa.array([now] * len(records), pa.timestamp("us")),
    })
    with s.connect() as con:
        s.init(con)
        con.execute(VERDICTS_TABLE)
        con.execute("BEGIN TRANSACTION")
        con.execute("DELETE FROM verdicts WHERE study = ?", [study])
        con.register("_new_verdicts", table)
        con.execute("INSERT INTO verdicts SELECT * FROM _new_verdicts")
        con.unregister("_new_verdicts")
        con.execute("COMMIT")


def read_store_verdicts(store: str | Path, study: str) -> list[Verdict]:
    """``study``'s verdicts from the results store ``store``, in the order they were written
    (empty if the store has no verdicts of it)."""
    s = Store(store)
    with s.connect(read_only=True) as con:
        have = con.execute("SELECT count(*) FROM information_schema.tables WHERE table_name = 'verdicts'").fetchone()[0]
        if not have:
            return []
        cols = ", ".join(f'"{k}"' for k in _FIELDS)
        rows = con.execute(f"SELECT {cols} FROM verdicts WHERE study = ? ORDER BY position", [study]).fetchall()
    fields: list[dict[str, Any]] = [{k: ("" if v is None and k not in _NUMBERS else v) for k, v in zip(_FIELDS, r)} for r in rows]
    return [Verdict(**f) for f in fields]
