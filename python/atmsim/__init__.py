"""atmsim — a deterministic cell-level discrete-event simulator of TCP/IP over ATM.

    import atmsim
    s = atmsim.load_scenario("scenarios/magic95/table1_w128k.toml")
    s.set("tcp[0].window_bytes", 65536)
    r = s.run(seed=1)
    r.connections()          # DataFrame, one row per TCP connection
    r.save("out/w64k")       # summary.json + series.parquet

    atmsim.sweep(s, grid={"tcp[0].window_bytes": [8192, 65536]}, seeds="1-5", store="results.duckdb")
    atmsim.results(store="results.duckdb", wide=True)   # one row per run

The simulator is the Rust crate ``atmsim-core``; ``atmsim._core`` is its thin binding.
"""

from . import _core
from .errors import AtmsimError, ScenarioError, SimulationError
from .results import Results
from .scenario import Scenario, load_scenario
from . import builder  # atmsim.builder: Network, mah_backbone, dumbbell (docs/builder.md)
from .query import results
from .sweeps import SweepSummary, sweep

__version__: str = _core.__version__

__all__ = [
    "AtmsimError",
    "Results",
    "Scenario",
    "ScenarioError",
    "SimulationError",
    "SweepSummary",
    "__version__",
    "load_scenario",
    "results",
    "run",
    "sweep",
]


def run(scenario, seed: int | None = None, progress=False, batching: bool | None = None) -> Results:
    """Run a scenario given as a path, a dict or a :class:`Scenario`."""
    return load_scenario(scenario).run(seed=seed, progress=progress, batching=batching)
