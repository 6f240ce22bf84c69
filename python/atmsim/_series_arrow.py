"""The core's time-series columns as an Arrow table, built from buffers so that pandas is
never imported.

``pyarrow.array``, ``pyarrow.table`` and their relatives ask whether their argument is a
pandas object, and asking imports pandas when it is installed (about 0.3 s and 90 MiB, more
than a small run's simulation). ``pyarrow.Array.from_buffers`` takes the bytes as they are
and asks nothing, so ``atmsim run`` of a scenario with samples writes ``series.parquet``
with pyarrow alone (docs/performance.md, "A trivial atmsim run").

The table: ``time_s`` and ``value`` as float64, ``entity`` and ``metric`` dictionary-encoded
(int32 codes into the sorted distinct names, as ``pandas.Categorical`` orders its
categories, so a saved series reads back equal to the one in memory).

The columns come in one of two shapes (:func:`coded` reads either): the core's, each name
column an ``array("i")`` of those codes with its names beside it (``entity_names``,
``metric_names``), or plain sequences of names, coded here.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["coded", "series_table"]

# The `array` type code of 32-bit integers (Arrow's dictionary codes and string offsets).
_INT32 = next(code for code in "il" if array(code).itemsize == 4)


def series_table(columns: Mapping[str, Any]) -> pa.Table:
    """The series columns ``time_s``, ``entity``, ``metric``, ``value`` as an Arrow table."""
    import pyarrow as pa

    return pa.Table.from_arrays(
        [
            _float64(columns["time_s"]),
            _categories(*coded(columns, "entity")),
            _categories(*coded(columns, "metric")),
            _float64(columns["value"]),
        ],
        names=["time_s", "entity", "metric", "value"],
    )


def _float64(values: Iterable[float]) -> pa.Array:
    """A float64 column: the core's ``array("d")`` as it is, any other sequence copied."""
    import pyarrow as pa

    buf = values if isinstance(values, array) and values.typecode == "d" else array("d", values)
    return pa.Array.from_buffers(pa.float64(), len(buf), [None, pa.py_buffer(buf)])


def coded(columns: Mapping[str, Any], key: str) -> tuple[array, list[str]]:
    """Name column ``key`` as int32 codes into its sorted distinct names, and those names:
    as the core gives them (``key`` and ``key + "_names"``), or coded from a sequence of
    names."""
    names = columns.get(f"{key}_names")
    if names is not None:
        codes = columns[key]
        if not (isinstance(codes, array) and codes.itemsize == 4):
            codes = array(_INT32, codes)
        return codes, list(names)
    values = list(columns[key])
    names = sorted(set(values))
    code = {name: i for i, name in enumerate(names)}
    return array(_INT32, (code[v] for v in values)), names


def _categories(codes: array, names: list[str]) -> pa.DictionaryArray:
    """A dictionary-encoded string column: int32 ``codes`` into ``names``."""
    import pyarrow as pa

    encoded = [name.encode("utf-8") for name in names]
    offsets = array(_INT32, [0])
    for e in encoded:
        offsets.append(offsets[-1] + len(e))
    dictionary = pa.Array.from_buffers(
        pa.string(), len(names), [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))]
    )
    indices = pa.Array.from_buffers(pa.int32(), len(codes), [None, pa.py_buffer(codes)])
    return pa.DictionaryArray.from_arrays(indices, dictionary)
