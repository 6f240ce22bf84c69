"""Results of one run: the summary document and the time series, as tidy tables.

On disk (``Results.save(out_dir)``):

* ``summary.json`` — the core's summary document: at least ``scenario``, ``seed``,
  ``duration_s``, ``warmup_s``, ``connections`` (list of dicts with ``name``,
  ``goodput_bps``, ...), ``ports`` (list of dicts), ``conservation`` and ``run``;
* ``series.parquet`` — long form, one row per sample: ``time_s``, ``entity``, ``metric``,
  ``value``;
* ``<name>.pcap`` — one per ``[[capture]]`` of the scenario (``summary["captures"]`` lists
  them with their packet counts): the IP datagrams a host sent and received, readable by
  tshark/Wireshark.

Saving is all-or-nothing: files are written into a staging directory beside ``out_dir``
and moved into place only once all of them are complete, so a failure never leaves
partial files over the results of an earlier run. Capture files listed by the earlier
run's summary that the new run does not have are removed.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

if TYPE_CHECKING:
    from .scenario import Scenario

__all__ = ["Results", "SUMMARY_FILE", "SERIES_FILE", "PCAP_SUFFIX"]

SUMMARY_FILE = "summary.json"
SERIES_FILE = "series.parquet"
PCAP_SUFFIX = ".pcap"
SERIES_COLUMNS = ("time_s", "entity", "metric", "value")


def _series_frame(columns: Mapping[str, Any]) -> pd.DataFrame:
    # array("d") columns from the core expose the buffer protocol: no copy here.
    return pd.DataFrame(
        {
            "time_s": np.asarray(columns["time_s"], dtype=np.float64),
            "entity": pd.Categorical(list(columns["entity"])),
            "metric": pd.Categorical(list(columns["metric"])),
            "value": np.asarray(columns["value"], dtype=np.float64),
        },
        columns=list(SERIES_COLUMNS),
    )


def _capture_names(summary: Mapping[str, Any]) -> list[str]:
    return [c["name"] for c in summary.get("captures", [])]


class Results:
    """What a run produced: ``.summary`` (dict), ``.series`` (DataFrame) and ``.captures``
    (dict: capture name -> bytes of a pcap file)."""

    def __init__(
        self,
        summary: dict[str, Any],
        series: pd.DataFrame,
        scenario: Scenario | None = None,
        captures: Mapping[str, bytes] | None = None,
    ):
        self.summary = summary
        self.series = series
        self.scenario = scenario
        self.captures: dict[str, bytes] = dict(captures or {})

    @classmethod
    def from_core(cls, raw: Mapping[str, Any], scenario: Scenario | None = None) -> Results:
        """Build from the dict returned by ``atmsim._core.run``."""
        summary = raw["summary"]
        if isinstance(summary, str):
            summary = json.loads(summary)
        captures = {c["name"]: bytes(c["pcap"]) for c in raw.get("captures", [])}
        return cls(summary, _series_frame(raw["series"]), scenario, captures)

    @classmethod
    def load(cls, out_dir: str | Path) -> Results:
        """Read results written by :meth:`save`."""
        out = Path(out_dir)
        summary = json.loads((out / SUMMARY_FILE).read_text(encoding="utf-8"))
        series = pq.read_table(out / SERIES_FILE).to_pandas()
        captures = {n: (out / f"{n}{PCAP_SUFFIX}").read_bytes() for n in _capture_names(summary)}
        return cls(summary, series, captures=captures)

    # ----- tidy views ---------------------------------------------------------------
    def connections(self) -> pd.DataFrame:
        """One row per connection (``summary["connections"]``)."""
        return pd.DataFrame(self.summary.get("connections", []))

    def ports(self) -> pd.DataFrame:
        """One row per switch/host port (``summary["ports"]``)."""
        return pd.DataFrame(self.summary.get("ports", []))

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
        """Write ``summary.json``, ``series.parquet`` and the ``<name>.pcap`` captures into
        ``out_dir`` atomically."""
        out = Path(out_dir)
        out.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=out.parent))
        try:
            self._write_files(staging)
            if not out.exists():
                os.rename(staging, out)  # the whole directory appears at once
            else:
                if not out.is_dir():
                    raise NotADirectoryError(f"{out}: exists and is not a directory")
                stale = set(self._old_captures(out)) - set(self.captures)
                pcaps = [f"{n}{PCAP_SUFFIX}" for n in self.captures]
                for name in (*pcaps, SERIES_FILE, SUMMARY_FILE):
                    os.replace(staging / name, out / name)
                for n in stale:
                    if isinstance(n, str) and n and Path(n).name == n and not n.startswith("."):
                        (out / f"{n}{PCAP_SUFFIX}").unlink(missing_ok=True)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        return out

    @staticmethod
    def _old_captures(out: Path) -> list[str]:
        """Capture names listed by the summary already in ``out`` (none if unreadable)."""
        try:
            return _capture_names(json.loads((out / SUMMARY_FILE).read_text(encoding="utf-8")))
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return []

    def _write_files(self, directory: Path) -> None:
        for name, data in self.captures.items():
            with open(directory / f"{name}{PCAP_SUFFIX}", "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
        summary_path = directory / SUMMARY_FILE
        with open(summary_path, "w", encoding="utf-8") as f:
            json.dump(self.summary, f, indent=2)
            f.write("\n")
            f.flush()
            os.fsync(f.fileno())
        table = pa.Table.from_pandas(self.series, preserve_index=False)
        series_path = directory / SERIES_FILE
        pq.write_table(table, series_path)
        with open(series_path, "rb") as f:
            os.fsync(f.fileno())

    def __repr__(self) -> str:
        name = self.summary.get("scenario", "?")
        return f"Results(scenario={name!r}, connections={len(self.summary.get('connections', []))}, samples={len(self.series)})"
