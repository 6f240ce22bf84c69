"""The results store: an embedded DuckDB database plus one Parquet file of time series per run.

Layout (the schema is documented in ``docs/results-store.md``)::

    results.duckdb                 tables sweeps, runs, metrics, sweep_runs, meta
    results.series/<run_id>.parquet

The parent process of a sweep is the only writer. It commits finished runs in batches: each
batch is one DuckDB transaction holding, for every run in it, its ``runs`` row and all its
``metrics`` rows, so a run is either wholly in the store or not at all. A run's series file
is written under a temporary name and renamed into place *before* the transaction commits;
a crash in between leaves an orphan file that the rerun of that run overwrites.

Between batches the database file is closed, so other processes (a second sweep, a reader
such as :func:`atmsim.results`) can open it. DuckDB allows one writing process at a time;
opening a store that another process holds is retried with backoff until ``lock_timeout``
seconds have passed, and then fails with :class:`StoreLockedError`.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import errno
import json
import math
import os
import random
import re
import secrets
import stat
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, overload

import pyarrow as pa
import pyarrow.parquet as pq

from ._core import Entity
from ._defaults import DEFAULT_LOCK_TIMEOUT_S, DEFAULT_STORE
from ._series_arrow import series_table
from .errors import StoreError, StoreLockedError

__all__ = [
    "DEFAULT_STORE",
    "MAX_SEED",
    "SCHEMA_VERSION",
    "RunRecord",
    "Store",
    "StoreError",
    "StoreLockedError",
    "flatten_summary",
    "unflatten_metrics",
]

SCHEMA_VERSION = "2"

#: The earlier versions this atmsim still reads, and upgrades when it writes
#: (:meth:`Store.verify`): version 1 had no ``runs.summary``; upgrading adds the column, null
#: for the runs already stored (the studies run those again to have their summaries).
_UPGRADABLE = {"1": ["ALTER TABLE runs ADD COLUMN summary JSON"]}

MAX_SEED = 2**63 - 1
"""Largest seed a store keeps (``runs.seed`` is a BIGINT, a signed 64-bit integer)."""

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value TEXT
);
CREATE TABLE IF NOT EXISTS sweeps (
    sweep_id TEXT PRIMARY KEY,
    scenario TEXT,
    grid JSON,
    seeds JSON,
    created_at TIMESTAMP
);
CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT PRIMARY KEY,
    sweep_id TEXT,
    scenario TEXT,
    params JSON,
    scenario_doc JSON,
    seed BIGINT,
    status TEXT,
    error TEXT,
    error_field TEXT,
    version TEXT,
    started_at TIMESTAMP,
    wall_s DOUBLE,
    series_path TEXT,
    summary JSON
);
CREATE TABLE IF NOT EXISTS metrics (
    run_id TEXT,
    entity TEXT,
    metric TEXT,
    value DOUBLE
);
CREATE TABLE IF NOT EXISTS sweep_runs (
    sweep_id TEXT,
    run_id TEXT,
    PRIMARY KEY (sweep_id, run_id)
);
"""


# ----- summary flattening ---------------------------------------------------------------------

_LISTS = (
    ("connections", Entity.CONN),
    ("ports", Entity.PORT),
    ("sources", "source"),
    ("hosts", Entity.HOST),
    ("lines", "line"),
    ("udp", "udp"),
)
"""Summary lists flattened one entity per entry: (summary key, entity prefix; the series'
kinds are the core's ``Entity``)."""

_OBJECTS = ("run", "conservation", "signalling")
"""Summary objects flattened as one entity each, named after the key (``signalling`` is
``null`` without a ``[signalling]`` section, and then adds nothing)."""

_TOP = ("duration_s", "warmup_s", "batching")
"""Top-level summary numbers, stored in the ``run`` entity beside ``summary["run"]``'s."""


def _numeric(value: Any) -> float | None:
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, int | float):
        return float(value)
    return None


def _flatten_into(out: list[tuple[str, str, float]], entity: str, node: Mapping[str, Any], prefix: str = "") -> None:
    """Append the numbers of ``node`` as rows of ``entity``; nested mappings (a host's
    ``ipoa``, the ``conservation`` groups) become dotted metric names, and strings, nulls
    and lists are left out."""
    for key, value in node.items():
        if isinstance(value, Mapping):
            _flatten_into(out, entity, value, f"{prefix}{key}.")
            continue
        number = _numeric(value)
        if number is not None:
            out.append((entity, f"{prefix}{key}", number))


def flatten_summary(summary: Mapping[str, Any]) -> list[tuple[str, str, float]]:
    """The summary's numbers as ``(entity, metric, value)`` rows.

    Entities: ``conn:NAME``, ``port:NAME``, ``source:NAME``, ``host:NAME`` (routers too),
    ``line:NAME`` and ``udp:NAME`` (every numeric field of each list entry; a host's
    ``ipoa`` counters as ``ipoa.setups_requested``, ...), ``run`` (top-level numbers such as
    ``duration_s`` and ``warmup_s`` plus everything in ``summary["run"]``),
    ``conservation`` (nested fields joined with dots: ``cells.injected``,
    ``datagrams.no_vc``, ``frames.balanced``), ``signalling`` (``setups_connected``,
    ``messages.sent``, ...) and ``app:NAME`` (an application workload's counters and
    statistics: ``completed``, ``metrics.connect_s.p90``, ``media.lost``, ...). Booleans
    become 0/1; strings and nulls are left out. :func:`unflatten_metrics` is the inverse.
    """
    out: list[tuple[str, str, float]] = []
    for key, prefix in _LISTS:
        for i, row in enumerate(summary.get(key) or []):
            if isinstance(row, Mapping):
                name = row.get("name", i)
                _flatten_into(out, f"{prefix}:{name}", {k: v for k, v in row.items() if k != "name"})
    top = {k: v for k, v in summary.items() if k not in ("seed", *_OBJECTS) and not isinstance(v, list | Mapping)}
    _flatten_into(out, "run", top)
    for key in _OBJECTS:
        if isinstance(summary.get(key), Mapping):
            _flatten_into(out, key, summary[key])
    apps = summary.get("applications")
    for app, row in (apps.items() if isinstance(apps, Mapping) else ()):
        if isinstance(row, Mapping):
            _flatten_into(out, f"app:{app}", row)
    return out


def _nest(into: dict[str, Any], metric: str, value: float) -> None:
    *parents, leaf = metric.split(".")
    for key in parents:
        into = into.setdefault(key, {})
    into[leaf] = value


def unflatten_metrics(rows: Iterable[tuple[str, str, float]]) -> dict[str, Any]:
    """The numeric summary back from ``(entity, metric, value)`` rows: the inverse of
    :func:`flatten_summary` for every number it stores (strings, nulls and the order of list
    entries are not kept; booleans come back as 0.0/1.0, integers as floats)."""
    prefixes = {prefix: key for key, prefix in _LISTS}
    out: dict[str, Any] = {}
    entries: dict[tuple[str, str], dict[str, Any]] = {}
    for entity, metric, value in rows:
        kind, _, name = entity.partition(":")
        if kind in prefixes and name:
            entry = entries.get((kind, name))
            if entry is None:
                entry = entries[(kind, name)] = {"name": name}
                out.setdefault(prefixes[kind], []).append(entry)
            _nest(entry, metric, value)
        elif kind == "app" and name:
            _nest(out.setdefault("applications", {}).setdefault(name, {}), metric, value)
        elif entity == "run" and metric in _TOP:
            out[metric] = value
        elif entity in _OBJECTS:
            _nest(out.setdefault(entity, {}), metric, value)
    return out


# ----- records ----------------------------------------------------------------------------------


@dataclass
class RunRecord:
    """One finished run, ready to be committed."""

    run_id: str
    scenario: str
    params: dict[str, Any]
    scenario_doc: dict[str, Any]
    seed: int
    status: str  # "ok" | "failed"
    version: str
    started_at: float  # POSIX time
    wall_s: float
    error: str | None = None
    error_field: str | None = None
    metrics: list[tuple[str, str, float]] = field(default_factory=list)
    series: Mapping[str, Any] | None = None  # the core's columns: time_s, entity, metric, value
    summary: str | None = None  # the run's whole summary as JSON (strings and list order kept)


def _series_table(columns: Mapping[str, Any]) -> pa.Table | None:
    if len(columns["time_s"]) == 0:
        return None
    return series_table(columns)


def _timestamp(posix: float) -> _dt.datetime:
    return _dt.datetime.fromtimestamp(posix, _dt.UTC).replace(tzinfo=None)


def _is_lock_conflict(text: str) -> bool:
    """DuckDB's message when another process holds the file."""
    return "Could not set lock" in text or "Conflicting lock" in text


def _is_interrupt(exc: BaseException) -> bool:
    """Ctrl-C as DuckDB reports it: ``RuntimeError("Query interrupted")``, its
    InterruptException, or a KeyboardInterrupt raised while it read a registered table."""
    import duckdb

    text = str(exc)
    return (
        isinstance(exc, duckdb.InterruptException)
        or (isinstance(exc, RuntimeError) and "interrupted" in text.lower())
        or "KeyboardInterrupt" in text
    )


def _store_error(path: Path, exc: BaseException) -> StoreError:
    """A DuckDB error as a one-line :class:`StoreError` naming the store: a file that cannot be
    opened or written (permissions, a read-only file system, a full disk) is said to be so,
    not to be corrupt."""
    import duckdb

    lines = str(exc).strip().splitlines()
    detail = lines[0] if lines else type(exc).__name__
    if isinstance(exc, duckdb.CatalogException):
        return StoreError(f"not an atmsim results store ({detail})", file=str(path))
    reason = _os_reason(detail)
    if reason is not None:
        return StoreError(f"cannot open or write the results store: {reason} ({detail})", file=str(path))
    return StoreError(f"cannot read results store: corrupt, truncated or not a DuckDB file ({detail})", file=str(path))


_OS_REASONS = {
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.EROFS: "read-only file system",
    errno.ENOSPC: "no space left on device",
    errno.EDQUOT: "disk quota exceeded",
    errno.EFBIG: "file too large",
}


def _os_reason(text: str) -> str | None:
    """The reason an operating system error gives, if ``text`` (DuckDB's message) carries one."""
    low = text.lower()
    for code, reason in _OS_REASONS.items():
        if reason in low or os.strerror(code).lower() in low:
            return reason
    return None


def _write_error(path: Path, exc: OSError) -> StoreError:
    """An operating-system error while writing into the store, naming the file."""
    reason = _OS_REASONS.get(exc.errno or 0) or (exc.strerror or str(exc)).lower()
    return StoreError(f"cannot write: {reason}", file=str(path))


_SCHEMA_COLUMNS: dict[str, list[str]] = {}


def _schema_columns() -> dict[str, list[str]]:
    """``{table: [column, ...]}`` of :data:`SCHEMA`, read from an in-memory database."""
    if not _SCHEMA_COLUMNS:
        import duckdb

        con = duckdb.connect(":memory:")
        try:
            con.execute(SCHEMA)
            for table, column in con.execute(
                "SELECT table_name, column_name FROM information_schema.columns "
                "WHERE table_schema = 'main' ORDER BY table_name, ordinal_position"
            ).fetchall():
                _SCHEMA_COLUMNS.setdefault(table, []).append(column)
        finally:
            con.close()
    return _SCHEMA_COLUMNS


_TEMP_NAME = re.compile(r"\.[0-9a-f]+\.([0-9]+)(?:\.[0-9a-f]+)?\.tmp$")
"""A temporary series file: ``.RUNID.PID.RANDOM.tmp`` or, as earlier versions named it, ``.RUNID.PID.tmp``."""


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


# ----- the store ------------------------------------------------------------------------------


class Store:
    """A results store at ``path`` (a ``.duckdb`` file; series beside it)."""

    def __init__(self, path: str | Path, lock_timeout: float = DEFAULT_LOCK_TIMEOUT_S):
        self.path = Path(path).absolute()
        self.lock_timeout = lock_timeout
        self.series_dir = self.path.with_name(self.path.stem + ".series")

    def series_relpath(self, run_id: str) -> str:
        return f"{self.series_dir.name}/{run_id}.parquet"

    # ----- connections --------------------------------------------------------------------
    @contextlib.contextmanager
    def connect(self, read_only: bool = False, on_wait=None) -> Iterator[Any]:
        """A DuckDB connection; waits (with backoff) while another process holds the file.

        Every DuckDB error, on opening or while the connection is used (a corrupt block is
        only noticed when it is read), becomes a :class:`StoreError` naming the file.
        """
        import duckdb

        if read_only and not self.path.exists():
            raise StoreError(f"no results store at {self.path}", file=str(self.path))
        if not read_only:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        deadline = time.monotonic() + self.lock_timeout
        delay = 0.02
        warned = False
        while True:
            try:
                con = duckdb.connect(str(self.path), read_only=read_only)
                break
            except (duckdb.Error, RuntimeError) as exc:
                if _is_interrupt(exc):
                    raise KeyboardInterrupt from None
                if not isinstance(exc, duckdb.Error):
                    raise
                text = str(exc)
                if not _is_lock_conflict(text):
                    raise _store_error(self.path, exc) from None
                if time.monotonic() >= deadline:
                    holder = text.split("Conflicting lock is held in", 1)[-1].split(". See also")[0].strip()
                    raise StoreLockedError(
                        f"results store is in use by another process ({holder}); "
                        f"gave up after waiting {self.lock_timeout:g} s",
                        file=str(self.path),
                    ) from None
                if on_wait is not None and not warned:
                    on_wait(text)
                    warned = True
                time.sleep(delay * (0.5 + random.random()))
                delay = min(delay * 1.6, 1.0)
        try:
            yield con
        except (duckdb.Error, RuntimeError) as exc:
            if _is_interrupt(exc):
                raise KeyboardInterrupt from None
            if not isinstance(exc, duckdb.Error):
                raise
            raise _store_error(self.path, exc) from None
        finally:
            con.close()

    def verify(self, on_wait=None) -> None:
        """Check an existing store before writing to it: a corrupt or truncated file, a
        DuckDB database that is not an atmsim store, or one of another schema version raises
        :class:`StoreError` and is left as it was (it is only opened read-only), as does a
        series directory that is a symbolic link. An empty database passes (the first sweep
        creates the tables)."""
        self._series_dir_fd(create=False)  # refuse a planted link before anything is written
        if not self.path.exists():
            return
        self._check_regular_file()
        with self.connect(read_only=True, on_wait=on_wait) as con:
            self._check(con, empty_ok=True)
            version = self._version(con)
        if version in _UPGRADABLE:
            self._upgrade(version, on_wait)

    @staticmethod
    def _version(con) -> str | None:
        has_meta = con.execute(
            "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'main' AND table_name = 'meta'"
        ).fetchone()[0]
        row = con.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone() if has_meta else None
        return row[0] if row else None

    def _upgrade(self, version: str, on_wait=None) -> None:
        """Bring a store of an earlier schema ``version`` to :data:`SCHEMA_VERSION` in one transaction."""
        with self.connect(on_wait=on_wait) as con:
            con.execute("BEGIN TRANSACTION")
            for statement in _UPGRADABLE[version]:
                con.execute(statement)
            con.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", [SCHEMA_VERSION])
            con.execute("COMMIT")

    @contextlib.contextmanager
    def reader(self, on_wait=None) -> Iterator[Any]:
        """A read-only connection to a store that passed :meth:`verify`'s checks (an empty
        database is refused: it holds no results). Every reader (``atmsim report``,
        :func:`atmsim.results`, ...) opens the store through here, so each refuses a damaged
        store, another schema version or a foreign database with the same one-line error."""
        self._check_regular_file()
        with self.connect(read_only=True, on_wait=on_wait) as con:
            self._check(con, empty_ok=False)
            yield con

    def _check_regular_file(self) -> None:
        if self.path.exists() and not self.path.is_file():
            raise StoreError("not a results store (not a regular file)", file=str(self.path))

    def _check(self, con, *, empty_ok: bool) -> None:
        """The tables, their columns and the schema version, then every table read in full,
        so a damaged block anywhere in the data is found here rather than halfway through."""
        found: dict[str, list[str]] = {}
        for table, column in con.execute(
            "SELECT table_name, column_name FROM information_schema.columns "
            "WHERE table_catalog = current_database() AND table_schema = 'main' "
            "ORDER BY table_name, ordinal_position"
        ).fetchall():
            found.setdefault(table, []).append(column)
        if not found:
            if empty_ok:
                return
            raise StoreError("not an atmsim results store (an empty DuckDB database: no runs yet)", file=str(self.path))
        expected = _schema_columns()
        if "meta" not in found or "runs" not in found:
            raise StoreError(
                f"not an atmsim results store (a DuckDB database with tables {', '.join(sorted(found))})",
                file=str(self.path),
            )
        version = self._version(con)
        if version != SCHEMA_VERSION and version not in _UPGRADABLE:
            raise StoreError(
                f"results store schema version {version!r}, this atmsim reads and writes version {SCHEMA_VERSION} "
                f"(and upgrades version {', '.join(sorted(_UPGRADABLE))})",
                file=str(self.path),
            )
        if version != SCHEMA_VERSION:
            expected = {**expected, "runs": [c for c in expected["runs"] if c != "summary"]}
        for table, columns in expected.items():
            have = found.get(table)
            if have is not None and have != columns:
                raise StoreError(
                    f"not an atmsim results store: table {table} has columns {', '.join(have)}, "
                    f"expected {', '.join(columns)}",
                    file=str(self.path),
                )
        for table in found.keys() & expected.keys():
            con.execute(f"SELECT count(*), bit_xor(hash(COLUMNS(*))) FROM {table}").fetchall()

    # ----- the series directory -------------------------------------------------------------
    @overload
    def _series_dir_fd(self, create: Literal[True]) -> int: ...
    @overload
    def _series_dir_fd(self, create: bool) -> int | None: ...
    def _series_dir_fd(self, create: bool) -> int | None:
        """The series directory opened without following a link (``O_NOFOLLOW``): a file
        descriptor that every series file is created, renamed and removed through, so a link
        planted in its place, or in it, never sends a write elsewhere. ``None`` if it does not
        exist and ``create`` is false; :class:`StoreError` if it is a link or not a directory."""
        where = str(self.series_dir)
        if create:
            try:
                os.mkdir(self.series_dir)
            except FileExistsError:
                pass
            except OSError as exc:
                raise _write_error(self.series_dir, exc) from None
        try:
            return os.open(self.series_dir, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except FileNotFoundError:
            if create:
                raise
            return None
        except OSError as exc:
            try:
                mode = os.lstat(self.series_dir).st_mode
            except OSError:
                mode = 0
            if stat.S_ISLNK(mode):
                raise StoreError(
                    "the series directory is a symbolic link: refusing to follow it (make it a directory or remove it)",
                    file=where,
                ) from None
            if mode and not stat.S_ISDIR(mode):
                raise StoreError("the series directory is not a directory", file=where) from None
            raise _write_error(self.series_dir, exc) from None

    def _write_series(self, dfd: int, run_id: str, table: pa.Table, fsync: bool) -> str:
        """Write ``table`` to a new temporary in the series directory and return its name: an
        unpredictable name, created exclusively (``O_EXCL``: never an existing file or link)."""
        tmp = f".{run_id}.{os.getpid()}.{secrets.token_hex(8)}.tmp"
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644, dir_fd=dfd)
        except OSError as exc:
            raise _write_error(self.series_dir / tmp, exc) from None
        try:
            with os.fdopen(fd, "wb") as f:
                pq.write_table(table, f)
                f.flush()
                if fsync:
                    os.fsync(f.fileno())
        except OSError as exc:
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=dfd)
            raise _write_error(self.series_dir / f"{run_id}.parquet", exc) from None
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=dfd)
            raise
        return tmp

    def init(self, con) -> None:
        con.execute(SCHEMA)
        con.execute("INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)", [SCHEMA_VERSION])

    # ----- sweeps -------------------------------------------------------------------------
    def begin_sweep(
        self,
        sweep_id: str,
        scenario: str,
        grid: Mapping[str, Sequence[Any]],
        seeds: Sequence[int],
        run_ids: Iterable[str],
        on_wait=None,
    ) -> dict[str, str]:
        """Create the tables if needed, record the sweep and its runs; return ``{run_id: status}``
        of the runs already in the store (``ok-without-summary``: an ``ok`` run stored by a
        version-1 store, without its whole summary)."""
        run_ids = list(dict.fromkeys(run_ids))
        self.verify(on_wait=on_wait)
        with self.connect(on_wait=on_wait) as con:
            self.init(con)
            con.execute("BEGIN TRANSACTION")
            con.execute(
                "INSERT OR IGNORE INTO sweeps VALUES (?, ?, ?, ?, ?)",
                [sweep_id, scenario, json.dumps(grid), json.dumps(list(seeds)), _timestamp(time.time())],
            )
            links = pa.table({"sweep_id": [sweep_id] * len(run_ids), "run_id": run_ids})
            con.register("_new_links", links)
            con.execute("INSERT OR IGNORE INTO sweep_runs SELECT sweep_id, run_id FROM _new_links")
            con.unregister("_new_links")
            con.execute("COMMIT")
            ids = pa.table({"run_id": run_ids})
            con.register("_wanted", ids)
            rows = con.execute(
                "SELECT r.run_id, CASE WHEN r.status = 'ok' AND r.summary IS NULL THEN 'ok-without-summary' "
                "ELSE r.status END FROM runs r JOIN _wanted w USING (run_id)"
            ).fetchall()
            con.unregister("_wanted")
        self._clean_temp_files()
        return dict(rows)

    def _clean_temp_files(self) -> None:
        """Remove temporary series files left by writers that died (their pid is gone)."""
        dfd = self._series_dir_fd(create=False)
        if dfd is None:
            return
        try:
            for name in os.listdir(dfd):
                m = _TEMP_NAME.match(name)
                if m and not _pid_alive(int(m.group(1))):
                    with contextlib.suppress(OSError):
                        os.unlink(name, dir_fd=dfd)
        finally:
            os.close(dfd)

    # ----- commits ------------------------------------------------------------------------
    def commit(self, records: Sequence[RunRecord], sweep_id: str, fsync: bool = True, on_wait=None) -> None:
        """Commit finished runs: series files first (temp + rename), then one transaction."""
        if not records:
            return
        series_paths: dict[str, str | None] = {}
        tables = {}
        for rec in records:
            table = _series_table(rec.series) if rec.status == "ok" and rec.series is not None else None
            series_paths[rec.run_id] = None if table is None else self.series_relpath(rec.run_id)
            if table is not None:
                tables[rec.run_id] = table
        if tables:
            dfd = self._series_dir_fd(create=True)
            written: list[str] = []
            try:
                for run_id, table in tables.items():
                    written.append(self._write_series(dfd, run_id, table, fsync))
                for tmp, run_id in zip(written, tables, strict=True):
                    try:
                        os.replace(tmp, f"{run_id}.parquet", src_dir_fd=dfd, dst_dir_fd=dfd)
                    except OSError as exc:
                        raise _write_error(self.series_dir / f"{run_id}.parquet", exc) from None
                written.clear()
                if fsync:
                    os.fsync(dfd)
            finally:
                for tmp in written:  # not renamed: a failed or interrupted commit
                    with contextlib.suppress(OSError):
                        os.unlink(tmp, dir_fd=dfd)
                os.close(dfd)

        new_runs = pa.table(
            {
                "run_id": pa.array([rec.run_id for rec in records], pa.string()),
                "sweep_id": pa.array([sweep_id] * len(records), pa.string()),
                "scenario": pa.array([rec.scenario for rec in records], pa.string()),
                "params": pa.array([json.dumps(rec.params) for rec in records], pa.string()),
                "scenario_doc": pa.array([json.dumps(rec.scenario_doc) for rec in records], pa.string()),
                "seed": pa.array([rec.seed for rec in records], pa.int64()),
                "status": pa.array([rec.status for rec in records], pa.string()),
                "error": pa.array([rec.error for rec in records], pa.string()),
                "error_field": pa.array([rec.error_field for rec in records], pa.string()),
                "version": pa.array([rec.version for rec in records], pa.string()),
                "started_at": pa.array([_timestamp(rec.started_at) for rec in records], pa.timestamp("us")),
                "wall_s": pa.array([rec.wall_s for rec in records], pa.float64()),
                "series_path": pa.array([series_paths[rec.run_id] for rec in records], pa.string()),
                "summary": pa.array([rec.summary for rec in records], pa.string()),
            }
        )
        metric_ids: list[str] = []
        entities: list[str] = []
        names: list[str] = []
        values: list[float] = []
        for rec in records:
            for entity, metric, value in rec.metrics:
                metric_ids.append(rec.run_id)
                entities.append(entity)
                names.append(metric)
                values.append(value if math.isfinite(value) else float("nan"))
        metrics = pa.table(
            {
                "run_id": pa.array(metric_ids, pa.string()),
                "entity": pa.array(entities, pa.string()),
                "metric": pa.array(names, pa.string()),
                "value": pa.array(values, pa.float64()),
            }
        )
        with self.connect(on_wait=on_wait) as con:
            self.init(con)
            con.register("_new_runs", new_runs)
            con.register("_new_metrics", metrics)
            con.execute("BEGIN TRANSACTION")
            try:
                con.execute("DELETE FROM metrics WHERE run_id IN (SELECT run_id FROM _new_runs)")
                con.execute(
                    """INSERT OR REPLACE INTO runs
                       SELECT run_id, sweep_id, scenario, params::JSON, scenario_doc::JSON, seed, status, error,
                              error_field, version, started_at, wall_s, series_path, summary::JSON
                       FROM _new_runs"""
                )
                con.execute("INSERT INTO metrics SELECT run_id, entity, metric, value FROM _new_metrics")
                con.execute("COMMIT")
            except BaseException:
                with contextlib.suppress(Exception):
                    con.execute("ROLLBACK")
                raise


def resolve_store(store: str | Path | None, out: str | Path | None = None) -> Path:
    """``store`` if given, else ``results.duckdb`` in ``out`` (or the current directory)."""
    if store is not None:
        return Path(store)
    return Path(out if out is not None else ".") / DEFAULT_STORE
