"""Mah (1996), *Quality of Service and Asynchronous Transfer Mode in IP Internetworks* (UC
Berkeley PhD thesis; the INSANE simulator): the study — Chapter 4 (QoS policies), Chapter 5
(multiplexing) and Chapter 6 (VC management) over the 103 configurations of Appendix B.

Owns the study's modes, its configurations (:func:`select`, :func:`ipoa_of`), the scenario
of each (:func:`scenario`), the plan of the whole design space as one sweep (:func:`plan`)
and running it into a results store (:func:`collect`, :func:`run`); the verdicts are
:mod:`.oracle`'s, the report :mod:`.report`'s.

The network and workload are ``scenarios/mah96/noqos_conv_svc.toml`` (six sites of
workstations and 2 servers on idealised LANs, one router per site, a T1 ATM backbone with
one 30 ms bottleneck, the Table 3-2 workload; every decision where the thesis is silent is
the spec's, ``shared/specs/mah96.md``, or stated in ``docs/mah96.md``). What is run: the
file with every site router's ``ipoa`` set to each configuration (canonical
``<qos>-<mux>-<vc>`` names), each at seeds ``seed``, ``seed + 1``, …: the same seeds for
every configuration (common random numbers, as §6.5's "exactly identical" pvc and svccache
runs require; every traffic source draws from its own stream). A run's identity in the store
is its scenario document and seed, so a study run again simulates only what is missing.

Modes. ``--full`` is the thesis' scale (§3.2, §3.5.1): 200 workstations per site, 4000 s
simulated, 3 seeds (the thesis ran "at least three"). Quick mode keeps 3 seeds — fewer would
leave no 90 % Mann-Whitney interval (2 against 2 reaches only 67 %) — and shrinks the load
and the length: 100 workstations per site (100 Web browsers instead of 200; the other Table
3-2 arrival rates are per site and unchanged) and 600 s simulated. That is the cheapest scale
whose switch drop rate, audio loss and video loss are each within 2× of the thesis' scale's
(the calibration study, :mod:`.calibrate`: at 50 workstations they were 25–50× lower, a
nearly lossless regime); :data:`.calibration.QUICK_SCALE` holds it. Levels and magnitudes
that depend on the offered load are still judged at the thesis' scale only.

Per run (:mod:`.tables`): the Table 3-3 statistics, the §6.6 counters and the
guaranteed-VC failure rate; the verdict rules are stated in :mod:`.oracle`.
"""

from __future__ import annotations

import fnmatch
import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from ... import _query as query
from ... import _sweep as sweeps
from ..._scenario import Scenario
from ..._sweep import SweepPlan
from ..._sweep.seeds import Seeds
from ...callbacks import StudyProgress
from ...errors import ScenarioError
from ...study import Mode as StudyMode
from ...study import Progress, executor, resources, tcp_profile
from ...study import today as study_today
from ...study.executor import raise_failed
from ...study.seeds import study_seeds
from ...study.tcp_profile import TcpProfile
from . import calibration as calibration
from . import oracle as oracle
from . import report as report
from . import tables as tables
from . import today as today

__all__ = [
    "FULL",
    "IPOA_PATH",
    "QUICK",
    "SCENARIO",
    "Mode",
    "Study",
    "collect",
    "default_seeds",
    "ipoa_of",
    "plan",
    "run",
    "scenario",
    "select",
]


SCENARIO = resources.scenario_file("mah96", "noqos_conv_svc.toml")
#: The varied value's path in the results store (every site's router has the same driver).
IPOA_PATH = "site[0].ipoa"


@dataclass(frozen=True)
class Mode:
    """Workstations per site, simulated seconds, seeds per configuration, and the
    configurations (canonical ``<qos>-<mux>-<vc>`` names)."""

    workstations: int
    duration_s: float
    seeds: int
    configs: tuple[str, ...] = oracle.ALL_CONFIGS

    @property
    def at_scale(self) -> bool:
        """The thesis' scale: 200 workstations per site for 4000 s."""
        return self.workstations >= 200 and self.duration_s >= 4000

    def label(self) -> str:
        return (f"{self.workstations} workstations and 2 servers per site, {self.duration_s:g} s simulated, "
                f"{self.seeds} seed{'s' if self.seeds != 1 else ''} per configuration")


FULL = Mode(200, 4000.0, 3)
QUICK = Mode(*calibration.QUICK_SCALE, 3)


def ipoa_of(config: str) -> dict[str, str]:
    """The driver settings of a canonical configuration name (``wc-ftp-conv-svccache``);
    ``qos`` is left out under noqos, its default."""
    qos, mux, vc = oracle.parse(config)
    return {"mux": mux, "vc": vc} | ({} if qos == "noqos" else {"qos": qos})


def scenario(config: str, workstations: int, duration_s: float) -> Scenario:
    """The Mah internetwork with every site router's driver set to ``config``."""
    sc = Scenario.from_toml(SCENARIO)
    for k in range(len(sc.doc["site"])):
        sc.set(f"site[{k}].ipoa", ipoa_of(config))
        sc.set(f"site[{k}].workstations", workstations)
    return sc.set("simulation.duration_s", duration_s).set("simulation.sample_interval_ms", 0)


def select(patterns: str | None) -> tuple[str, ...]:
    """The configurations matching any of the comma-separated shell patterns (``noqos-*``,
    ``*-ftp-*``, ``wc-ftp-conv-svccache``), in the study's order; all when ``None``."""
    if patterns is None:
        return oracle.ALL_CONFIGS
    pats = [p.strip() for p in patterns.split(",") if p.strip()]
    chosen = tuple(c for c in oracle.ALL_CONFIGS if any(fnmatch.fnmatchcase(c, p) for p in pats))
    if not chosen:
        raise ScenarioError(f"no configuration matches {patterns!r}: names are <qos>-<mux>-<vc>, e.g. "
                            "noqos-conv-svc, wc-ftp-app-svccache (patterns: noqos-*, *-ftp-*)", field="configs")
    return chosen


@dataclass
class Study:
    """The runs of one reproduction: summaries and per-run statistics per configuration."""

    mode: Mode
    seeds: list[int]
    summaries: dict[str, list[dict]]
    elapsed_s: float = 0.0
    store: Path | None = None
    ran: int = 0  # runs simulated by this invocation (the others were in the store)

    @cached_property
    def stats(self) -> dict[str, list[dict]]:
        return {c: [tables.run_stats(s) for s in ss] for c, ss in self.summaries.items()}

    @property
    def configs(self) -> tuple[str, ...]:
        return tuple(c for c in self.mode.configs if self.summaries.get(c))

    def pvc_vs_svccache(self) -> list[list[str]]:
        a, b = self.summaries.get("noqos-router-pvc", []), self.summaries.get("noqos-router-svccache", [])
        return [tables.identical_metrics(x, y) for x, y in zip(a, b)]


def default_seeds(mode: Mode, seed: int = 1) -> list[int]:
    """The mode's seeds from ``seed`` on: ``seed``, ``seed + 1``, ... (``mode.seeds`` of them)."""
    return list(range(seed, seed + mode.seeds))


def plan(mode: Mode, seeds: Sequence[int]) -> SweepPlan:
    """The study as one sweep: every configuration of ``mode`` at ``seeds`` (the same for
    all: common random numbers), validated before anything runs; with the executor in use's
    TCP profile on every connection (:meth:`atmsim.study.executor.Executor.prepare`)."""
    run_as = executor.current()  # with a TCP profile (--tcp), set on every connection here
    points = [(IPOA_PATH, ipoa_of(c), run_as.prepare(scenario(c, mode.workstations, mode.duration_s))) for c in mode.configs]
    label = "mah96" if run_as.tcp is None else f"mah96 --tcp {run_as.tcp.name}"
    return sweeps.plan_points(label, str(SCENARIO), points, list(seeds))


def collect(mode: Mode, seeds: Sequence[int], progress: Progress | StudyProgress | None = None, *, store: str | Path,
            jobs: int | None = None, scheduler: Any = None) -> Study:
    """Run every configuration at ``seeds`` into the results store ``store`` (runs already
    there are not run again: an interrupted study resumes), then read them back."""
    t0 = time.perf_counter()
    p = plan(mode, seeds)

    shown = Progress.of(progress)

    def tick(done: int, failed: int, total: int) -> None:  # the sweep's own count
        shown.at(done, total, f"{failed} failed" if failed else "")

    done = sweeps.run_plan(p, store=store, jobs=jobs, scheduler=scheduler, progress=tick)
    raise_failed(done)
    got = query.summaries([r.run_id for r in p.runs], store=done.store)
    summaries: dict[str, list[dict]] = {c: [] for c in mode.configs}
    for r in p.runs:
        summaries[_config_of(r.params[IPOA_PATH])].append(got[r.run_id])
    return Study(mode, p.seeds, summaries, time.perf_counter() - t0, done.store, done.ok)


def _config_of(ipoa: dict) -> str:
    return f"{ipoa.get('qos', 'noqos')}-{ipoa['mux']}-{ipoa['vc']}"


def run(out_dir: str | Path, mode: StudyMode = StudyMode.QUICK, seed: int = 1, progress: Progress | StudyProgress | None = None,
        *, seeds: Seeds | None = None, configs: str | None = None, store: str | Path | None = None, jobs: int | None = None,
        scheduler: Any = None, workstations: int | None = None, duration_s: float | None = None,
        tcp: TcpProfile | str | None = None) -> Path:
    """Run the study into its results store and write ``report.html`` into ``out_dir``.

    ``configs``: comma-separated patterns of the configurations to run (:func:`select`;
    default: the mode's); ``store``: the results store (default ``out_dir/results.duckdb``);
    ``jobs``/``scheduler``: as :func:`atmsim.sweep` (local worker processes or a Dask
    scheduler). ``seeds``: the seeds to run every configuration at, as :func:`atmsim.sweep`
    takes them but for a bare number (``"1-3"``, ``"1,3,5"``, a list; :mod:`atmsim.study.seeds`),
    instead of the mode's 3 from ``seed`` on. ``workstations`` and ``duration_s`` override the mode's.
    ``tcp`` (``"cubic+sack"``, :mod:`atmsim.study.tcp_profile`): also run :data:`.today.SUBSET` with that
    TCP on every connection into ``out_dir/tcp-<profile>/``, shown beside BSD's (:mod:`.today`)."""
    full = StudyMode(mode).full
    base = FULL if full else QUICK
    chosen = study_seeds(seeds, seed) if seeds is not None else default_seeds(base, seed)
    sizes = Mode(workstations or base.workstations, duration_s or base.duration_s, len(chosen),
                 select(configs) if configs is not None else base.configs)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    where = Path(store) if store else out / "results.duckdb"
    profile = tcp_profile.of(tcp)
    if profile is None:
        study = collect(sizes, chosen, progress, store=where, jobs=jobs, scheduler=scheduler)
        return report.write(study, out)
    subset = Mode(sizes.workstations, sizes.duration_s, len(chosen), today.SUBSET)
    modern_dir = out / study_today.subdir(profile)
    with executor.using(executor.Executor(where, jobs, scheduler, tcp=profile)), study_today.modern_pass(profile) as modern:
        mine = collect(subset, chosen, progress, store=where, jobs=jobs, scheduler=scheduler)
        today.note_study(mine)
        report.write(mine, modern_dir)
    bsd = collect(subset, chosen, progress, store=where, jobs=jobs, scheduler=scheduler)  # read back if stored
    with study_today.bsd_pass(modern, today.COMPARISON, modern_dir):
        today.note_study(bsd)
        study = collect(sizes, chosen, progress, store=where, jobs=jobs, scheduler=scheduler)
        return report.write(study, out)
