"""atmsim — a deterministic cell-level discrete-event simulator of TCP/IP over ATM.

    import atmsim
    s = atmsim.load_scenario("scenarios/magic95/table1_w128k.toml")
    s.set("tcp[0].window_bytes", 65536)
    r = s.run(seed=1)
    print(r.connections())   # DataFrame, one row per TCP connection
    r.save("out/w64k")       # summary.json + series.parquet

    atmsim.sweep(s, grid={"tcp[0].window_bytes": [8192, 65536]}, seeds="1-5", store="results.duckdb")
    print(atmsim.results(store="results.duckdb", wide=True))   # one row per run

The simulator is the Rust crate ``atmsim-core``; ``atmsim._core`` is its thin binding.
Every public name is described in docs/api.md.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import _core, callbacks, errors
from ._scenario import ProgressArg, Scenario, load_scenario
from .callbacks import RunProgress, StudyProgress, SweepProgress
from .errors import (
    AtmsimError,
    ScenarioError,
    SimulationError,
    StoreError,
    StoreLockedError,
    StudyRunError,
    SweepError,
)

__version__: str = _core.__version__

#: Public names loaded on first use (PEP 562), so `import atmsim` — and the `atmsim` command —
#: does not pay for pandas, pyarrow and DuckDB before it needs them: name -> (module, attribute).
_LAZY = {
    "Results": ("._run_results", "Results"),
    "results": ("._query", "results"),
    "sweep": ("._sweep", "sweep"),
    "SweepSummary": ("._sweep", "SweepSummary"),
    "builder": (".builder", None),  # NetworkBuilder, mah_backbone, dumbbell (docs/builder.md)
    "stats": (".stats", None),  # the studies' estimators
    "study": (".study", None),  # what every reproduction shares: modes, verdicts, seeds
    "reproduce": (".reproduce", None),  # one package per reproduced study
}

if TYPE_CHECKING:
    from . import builder as builder
    from . import reproduce as reproduce
    from . import stats as stats
    from . import study as study
    from ._query import results
    from ._run_results import Results
    from ._sweep import SweepSummary, sweep


def __getattr__(name: str) -> Any:
    try:
        module, attr = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'atmsim' has no attribute {name!r}") from None
    mod = importlib.import_module(module, __name__)
    value = mod if attr is None else getattr(mod, attr)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))

#: The public API: every name is described in docs/api.md. Modules whose name starts with an
#: underscore (``atmsim._scenario``, ``atmsim._sweep``, ...) are internal and may change.
__all__ = [
    "AtmsimError",
    "Results",
    "RunProgress",
    "Scenario",
    "ScenarioError",
    "SimulationError",
    "StoreError",
    "StoreLockedError",
    "StudyProgress",
    "StudyRunError",
    "SweepError",
    "SweepProgress",
    "SweepSummary",
    "__version__",
    "builder",
    "callbacks",
    "errors",
    "load_scenario",
    "reproduce",
    "results",
    "run",
    "stats",
    "study",
    "sweep",
]


def run(
    scenario: str | Path | Mapping[str, Any] | Scenario,
    seed: int | None = None,
    progress: ProgressArg = False,
    batching: bool | None = None,
) -> Results:
    """Run a scenario given as a path, a dict or a :class:`Scenario` and return its
    :class:`Results`: ``atmsim.run(x, ...)`` is ``atmsim.load_scenario(x).run(...)``, with the
    same ``seed``, ``progress`` and ``batching`` (see :meth:`Scenario.run`)::

        r = atmsim.run("scenarios/examples/greedy_rr.toml", seed=3)
        print(r.summary["sources"][0]["goodput_bps"])
    """
    return load_scenario(scenario).run(seed=seed, progress=progress, batching=batching)
