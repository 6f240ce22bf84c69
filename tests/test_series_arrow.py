"""The core's series columns as an Arrow table without pandas (`atmsim.series_arrow`): the
same table, read back, as the one pandas makes of the same columns."""

from __future__ import annotations

from array import array

import pandas as pd
import pyarrow as pa

from atmsim.run_results import _series_frame
from atmsim.series_arrow import series_table


def _columns(n: int) -> dict:
    names = ["sw:out→h2", "h1:tcp0", "é", "h1:tcp0"]
    metrics = ["queue_cells", "cwnd_bytes", "goodput_bps"]
    return {
        "time_s": array("d", (i * 0.001 for i in range(n))),
        "entity": [names[i % len(names)] for i in range(n)],
        "metric": [metrics[(i * 7) % len(metrics)] for i in range(n)],
        "value": [float(i) * 1.5 - 3 for i in range(n)],
    }


def test_the_table_reads_back_as_the_frame_pandas_makes():
    for n in (0, 1, 5, 1000):
        cols = _columns(n)
        table = series_table(cols)
        assert table.column_names == ["time_s", "entity", "metric", "value"]
        assert table.schema.field("entity").type == pa.dictionary(pa.int32(), pa.string())
        assert table.schema.field("value").type == pa.float64()
        pd.testing.assert_frame_equal(table.to_pandas(), _series_frame(cols))


def test_the_dictionary_is_sorted_as_pandas_orders_categories():
    table = series_table(_columns(8))
    dictionary = table.column("entity").chunk(0).dictionary.to_pylist()
    assert dictionary == sorted(set(_columns(8)["entity"]))
    assert table.column("entity").to_pylist() == _columns(8)["entity"]
