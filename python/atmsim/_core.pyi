"""Type stub for the compiled extension ``atmsim._core`` (crates/atmsim-py).

Errors are raised as ``atmsim.errors.ScenarioError`` (codes "parse", "invalid") or
``atmsim.errors.SimulationError`` (code "internal").
"""

from array import array
from collections.abc import Callable
from typing import Any, Literal, TypedDict

__version__: str

class SeriesColumns(TypedDict):
    time_s: array  # array("d")
    entity: list[str]
    metric: list[str]
    value: array  # array("d")

class CaptureFile(TypedDict):
    name: str  # the [[capture]]'s name (default: its host's)
    host: str
    pcap: bytes  # a complete pcap file (nanosecond timestamps, LINKTYPE_RAW)

class RunResult(TypedDict):
    summary: dict[str, Any]
    series: SeriesColumns
    captures: list[CaptureFile]

def validate(
    text: str,
    fmt: Literal["toml", "json"] = "toml",
    origin: str = "<string>",
) -> None: ...
def run(
    text: str,
    fmt: Literal["toml", "json"] = "toml",
    origin: str = "<string>",
    *,
    seed: int | None = None,
    batching: bool | None = None,
    progress: Callable[[float], object] | None = None,
) -> RunResult: ...
