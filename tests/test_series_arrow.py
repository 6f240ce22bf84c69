"""The core's series columns as an Arrow table without pandas (`atmsim._series_arrow`): the
same table, read back, as the one pandas makes of the same columns."""

from __future__ import annotations

from array import array

import pandas as pd
import pyarrow as pa

from atmsim._run_results import _series_frame
from atmsim._series_arrow import series_table


def _columns(n: int) -> dict:
    names = ["sw:out→h2", "h1:tcp0", "é", "h1:tcp0"]
    metrics = ["queue_cells", "cwnd_bytes", "goodput_bps"]
    return {
        "time_s": array("d", (i * 0.001 for i in range(n))),
        "entity": [names[i % len(names)] for i in range(n)],
        "metric": [metrics[(i * 7) % len(metrics)] for i in range(n)],
        "value": [float(i) * 1.5 - 3 for i in range(n)],
    }


def _pandas_frame(cols: dict) -> pd.DataFrame:
    """The frame pandas itself makes of columns of names (the oracle)."""
    return pd.DataFrame(
        {
            "time_s": pd.Series(list(cols["time_s"]), dtype="float64"),
            "entity": pd.Categorical(cols["entity"]),
            "metric": pd.Categorical(cols["metric"]),
            "value": pd.Series(cols["value"], dtype="float64"),
        }
    )


def _as_the_core_gives_them(cols: dict) -> dict:
    """The same columns with each name column as int32 codes into its sorted names."""
    out = dict(cols)
    for key in ("entity", "metric"):
        names = sorted(set(cols[key]))
        out[key] = array("i", (names.index(v) for v in cols[key]))
        out[f"{key}_names"] = names
    return out


def test_the_table_reads_back_as_the_frame_pandas_makes():
    for n in (0, 1, 5, 1000):
        for cols in (_columns(n), _as_the_core_gives_them(_columns(n))):
            table = series_table(cols)
            assert table.column_names == ["time_s", "entity", "metric", "value"]
            assert table.schema.field("entity").type == pa.dictionary(pa.int32(), pa.string())
            assert table.schema.field("value").type == pa.float64()
            pd.testing.assert_frame_equal(table.to_pandas(), _pandas_frame(_columns(n)))
            pd.testing.assert_frame_equal(_series_frame(cols), _pandas_frame(_columns(n)))


def test_the_dictionary_is_sorted_as_pandas_orders_categories():
    table = series_table(_columns(8))
    dictionary = table.column("entity").chunk(0).dictionary.to_pylist()
    assert dictionary == sorted(set(_columns(8)["entity"]))
    assert table.column("entity").to_pylist() == _columns(8)["entity"]
