"""Results of one run: the summary document and the time series, as tidy tables.

On disk (``Results.save(out_dir)``):

* ``summary.json`` — the core's summary document: at least ``scenario``, ``seed``,
  ``duration_s``, ``warmup_s``, ``connections`` (list of dicts with ``name``,
  ``goodput_bps``, ...), ``ports`` (list of dicts), ``conservation`` and ``run``; for an
  internetwork also ``lines`` and ``udp`` (lists of dicts) and ``hosts[].ipoa``
  (docs/scenario.md, "Outputs");
* ``series.parquet`` — long form, one row per sample: ``time_s``, ``entity``, ``metric``,
  ``value``; written only when the run has samples (a scenario with probes and a sample
  interval). A run without samples writes no such file (and removes one an earlier run left
  in the directory), and :meth:`Results.load` reads its absence as an empty series;
* ``<name>.pcap`` — one per ``[[capture]]`` of the scenario (``summary["captures"]`` lists
  them with their packet counts): the IP datagrams a host sent and received, readable by
  tshark/Wireshark.

Saving is all-or-nothing: every file is written completely under a temporary name (in a
staging directory beside a new ``out_dir``, or inside an existing one) and moved into place
only once all of them are complete, so a failure never leaves partial files over the
results of an earlier run. Capture files listed by the earlier
run's summary that the new run does not have are removed.

pandas, numpy and pyarrow are imported on first use: the series stays the core's columns
until :attr:`Results.series` is read or it is written, so a run without samples (the
trivial ``atmsim run``) imports none of them (docs/performance.md, "A trivial atmsim run").
"""

from __future__ import annotations

import errno
import io
import json
import os
import shutil
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from ._output import atomic_file, create_temp, make_temp_dir
from ._series_arrow import coded, series_table
from .errors import ScenarioError

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

    from ._core import Summary
    from ._scenario import Scenario

__all__ = ["PCAP_SUFFIX", "SERIES_FILE", "SUMMARY_FILE", "Results"]

SUMMARY_FILE = "summary.json"
SERIES_FILE = "series.parquet"
PCAP_SUFFIX = ".pcap"
SERIES_COLUMNS = ("time_s", "entity", "metric", "value")


def _series_frame(columns: Mapping[str, Any] | None) -> pd.DataFrame:
    """The core's series columns (or none: no samples) as a DataFrame."""
    import numpy as np
    import pandas as pd

    if columns is None:
        columns = {k: [] for k in SERIES_COLUMNS}

    def categorical(key: str) -> pd.Categorical:
        codes, names = coded(columns, key)
        return pd.Categorical.from_codes(np.frombuffer(codes, dtype=np.int32), categories=names)

    # array("d") and array("i") columns from the core expose the buffer protocol: no copy here.
    return pd.DataFrame(
        {
            "time_s": np.asarray(columns["time_s"], dtype=np.float64),
            "entity": categorical("entity"),
            "metric": categorical("metric"),
            "value": np.asarray(columns["value"], dtype=np.float64),
        },
        columns=list(SERIES_COLUMNS),
    )


def _series_table(series: pd.DataFrame | Mapping[str, Any]) -> pa.Table:
    """The series as an Arrow table: entity and metric dictionary-encoded, as the results
    store writes them, and read back by pandas as categoricals. The core's columns are
    converted without importing pandas (`series_arrow`)."""
    if isinstance(series, Mapping):
        return series_table(series)
    import pyarrow as pa

    return pa.Table.from_pandas(series, preserve_index=False)


_NODE_COLUMNS = ("forwarded", "no_route")
_DRIVER_COLUMNS = ("mux", "vc", "setups_requested", "cache_hits", "setups_failed", "teardowns", "datagrams_dropped", "vcs_in_use")


def internetwork_nodes(summary: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The nodes worth a row in a run report: each router, and each host whose IP layer
    dropped a datagram for want of a route or whose IP-over-ATM driver asked for a VC
    setup. One flat dict per node: ``name``, ``router``, ``forwarded``, ``no_route`` and
    the driver's ``mux``, ``vc`` and counters (``None`` without an ATM adapter). Empty for
    a scenario of hosts on permanent VCs only, whose reports stay as they were."""
    rows = []
    for node in summary.get("hosts") or []:
        if not isinstance(node, Mapping):
            continue
        ipoa = node.get("ipoa")
        if not isinstance(ipoa, Mapping):
            ipoa = {}
        if not (node.get("router") or node.get("no_route") or ipoa.get("setups_requested")):
            continue
        row = {"name": node.get("name", "?"), "router": bool(node.get("router"))}
        row.update({k: node.get(k) for k in _NODE_COLUMNS})
        row.update({k: ipoa.get(k) for k in _DRIVER_COLUMNS})
        rows.append(row)
    return rows


def _capture_names(summary: Mapping[str, Any]) -> list[str]:
    return [c["name"] for c in summary.get("captures", [])]


def _capture_file(name: str) -> str:
    """``<name>.pcap``, refusing a name that is not a plain file name."""
    if not isinstance(name, str) or not name or Path(name).name != name or name.startswith(".") or "\0" in name:
        raise ScenarioError(f"capture name {name!r:.80} cannot be used as a file name", field="capture")
    return f"{name}{PCAP_SUFFIX}"


class Results:
    """What one run produced, as returned by :meth:`atmsim.Scenario.run` and
    :func:`atmsim.run`, or read back by :meth:`Results.load`.

    Attributes:

    * ``summary`` — the core's summary document (a dict typed as ``atmsim._core.Summary``, one
      TypedDict per section; docs/scenario.md, "Outputs"): ``scenario``, ``seed``,
      ``duration_s``, ``warmup_s``, ``connections``, ``ports``, ``sources``,
      ``conservation``, ... The tidy views below make DataFrames of its lists.
    * ``series`` — the time series in long form, a DataFrame with columns ``time_s``,
      ``entity``, ``metric``, ``value`` (empty without probes); made on first access.
    * ``captures`` — capture name -> the bytes of its pcap file.
    * ``scenario`` — the :class:`atmsim.Scenario` that ran (``None`` after :meth:`load`).

    ``series`` may be given as a DataFrame, as a mapping of columns (``time_s``, ``entity``,
    ``metric``, ``value``; each name column a sequence of names, or, as the core gives it,
    int32 codes into the sorted names given beside it as ``entity_names`` and
    ``metric_names``) or as ``None`` (no samples).
    """

    def __init__(
        self,
        summary: Summary,
        series: pd.DataFrame | Mapping[str, Any] | None = None,
        scenario: Scenario | None = None,
        captures: Mapping[str, bytes] | None = None,
    ):
        self.summary: Summary = summary
        self._series = series
        self.scenario = scenario
        self.captures: dict[str, bytes] = dict(captures or {})

    @property
    def series(self) -> pd.DataFrame:
        """The time series, long form (``time_s``, ``entity``, ``metric``, ``value``)."""
        if self._series is None or isinstance(self._series, Mapping):
            self._series = _series_frame(self._series)
        return self._series

    @series.setter
    def series(self, frame: pd.DataFrame) -> None:
        self._series = frame

    @property
    def samples(self) -> int:
        """The number of rows of :attr:`series`, counted without making the DataFrame."""
        if self._series is None:
            return 0
        if isinstance(self._series, Mapping):
            return len(self._series["time_s"])
        return len(self._series)

    @classmethod
    def from_core(cls, raw: Mapping[str, Any], scenario: Scenario | None = None) -> Results:
        """Build from the dict returned by ``atmsim._core.run``."""
        summary = raw["summary"]
        if isinstance(summary, str):
            summary = json.loads(summary)
        captures = {c["name"]: bytes(c["pcap"]) for c in raw.get("captures", [])}
        return cls(summary, raw["series"], scenario, captures)

    @classmethod
    def load(cls, out_dir: str | Path) -> Results:
        """Read results written by :meth:`save` (no ``series.parquet``: no samples)."""
        out = Path(out_dir)
        summary = json.loads((out / SUMMARY_FILE).read_text(encoding="utf-8"))
        series = None
        if (out / SERIES_FILE).exists():
            import pyarrow.parquet as pq

            series = pq.read_table(out / SERIES_FILE).to_pandas()
        captures = {n: (out / f"{n}{PCAP_SUFFIX}").read_bytes() for n in _capture_names(summary)}
        return cls(summary, series, captures=captures)

    # ----- tidy views ---------------------------------------------------------------
    def connections(self) -> pd.DataFrame:
        """One row per connection (``summary["connections"]``)."""
        import pandas as pd

        return pd.DataFrame(self.summary.get("connections", []))

    def ports(self) -> pd.DataFrame:
        """One row per switch/host port (``summary["ports"]``)."""
        import pandas as pd

        return pd.DataFrame(self.summary.get("ports", []))

    def udp(self) -> pd.DataFrame:
        """One row per UDP flow (``summary["udp"]``): ``sent``, ``delivered``,
        ``loss_rate``, ``late``, ``delay_mean_s``, ..."""
        import pandas as pd

        return pd.DataFrame(self.summary.get("udp") or [])

    def lines(self) -> pd.DataFrame:
        """One row per packet-level line (``summary["lines"]``): each direction of each
        serial line, then each LAN's medium, with ``kind``, ``sent``, ``dropped``,
        ``utilization``, ..."""
        import pandas as pd

        return pd.DataFrame(self.summary.get("lines") or [])

    def trace(self, metric: str, entity: str | None = None) -> pd.DataFrame:
        """Wide frame of one metric: index ``time_s``, one column per entity."""
        s = self.series
        mask = s["metric"] == metric
        if entity is not None:
            mask &= s["entity"] == entity
        rows = s.loc[mask, ["time_s", "entity", "value"]].copy()
        rows["entity"] = rows["entity"].astype(str)
        wide = rows.pivot_table(index="time_s", columns="entity", values="value", aggfunc="last", sort=True)
        wide.columns.name = None
        return wide

    # ----- storage ------------------------------------------------------------------
    def save(self, out_dir: str | Path) -> Path:
        """Write ``summary.json``, ``series.parquet`` (if there are samples) and the
        ``<name>.pcap`` captures into ``out_dir`` atomically.

        A new ``out_dir`` is staged as a directory beside it and renamed into place; into an
        existing one (possibly a mount point) every file is written under an exclusive
        temporary name inside it and renamed over its final name, so symlinks planted there
        are replaced, not followed (see :mod:`atmsim._output`).
        """
        out = Path(out_dir)
        names = [_capture_file(n) for n in self.captures]  # refuse unsafe names before writing
        if os.path.isdir(out):
            self._save_into(out, names)
            return out
        if os.path.lexists(out) and not os.path.islink(out):
            raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(out))
        out.parent.mkdir(parents=True, exist_ok=True)
        staging = make_temp_dir(out.parent, f".{out.name}.tmp-")
        try:
            for name, write in self._writers(names):
                with atomic_file(staging / name) as f:
                    write(f)
            os.rename(staging, out)  # the whole directory appears at once
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        return out

    def _save_into(self, out: Path, names: list[str]) -> None:
        stale = set(self._old_captures(out)) - set(self.captures)
        staged: list[tuple[Path, Path]] = []
        try:
            for name, write in self._writers(names):
                fd, tmp = create_temp(out, f".{name}.")
                staged.append((tmp, out / name))
                with os.fdopen(fd, "wb") as f:
                    write(f)
                    f.flush()
                    os.fsync(f.fileno())
            for tmp, final in staged:  # summary.json last: it lists the captures
                os.replace(tmp, final)
            for n in stale:
                if isinstance(n, str) and n and Path(n).name == n and not n.startswith("."):
                    (out / f"{n}{PCAP_SUFFIX}").unlink(missing_ok=True)
            if not self.samples:  # an earlier run's series is not this run's
                (out / SERIES_FILE).unlink(missing_ok=True)
        finally:
            for tmp, _ in staged:
                tmp.unlink(missing_ok=True)

    @staticmethod
    def _old_captures(out: Path) -> list[str]:
        """Capture names listed by the summary already in ``out`` (none if unreadable)."""
        try:
            return _capture_names(json.loads((out / SUMMARY_FILE).read_text(encoding="utf-8")))
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return []

    def _writers(self, capture_files: list[str]) -> list[tuple[str, Callable[[IO[bytes]], None]]]:
        """(file name, function writing its bytes to a binary file), summary.json last."""

        def pcap(data: bytes) -> Callable[[IO[bytes]], None]:
            def write(f: IO[bytes]) -> None:
                f.write(data)

            return write

        def series(f: IO[bytes]) -> None:
            import pyarrow.parquet as pq

            pq.write_table(_series_table(self._series), f)

        def summary(f: IO[bytes]) -> None:
            text = io.TextIOWrapper(f, encoding="utf-8")
            json.dump(self.summary, text, indent=2)
            text.write("\n")
            text.flush()
            text.detach()  # leave f open for the caller

        return [
            *((name, pcap(data)) for name, data in zip(capture_files, self.captures.values(), strict=True)),
            *([(SERIES_FILE, series)] if self.samples else []),
            (SUMMARY_FILE, summary),
        ]

    def __repr__(self) -> str:
        name = self.summary.get("scenario", "?")
        return f"Results(scenario={name!r}, connections={len(self.summary.get('connections', []))}, samples={self.samples})"
