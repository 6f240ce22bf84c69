"""The ``atmsim`` command line.

    atmsim run SCENARIO.toml [--seed N] [--out DIR] [--no-batching] [--no-plot] [--quiet]
    atmsim check SCENARIO.toml
    atmsim reproduce STUDY [--full] [--seed N] [--out DIR]
    atmsim sweep SCENARIO.toml --grid PATH=V1,V2 [--grid ...] [--seeds 1-20] [--jobs N]
                 [--scheduler ADDRESS] [--store PATH | --out DIR] [--retry-failed]
    atmsim report [STORE] [--out DIR] [--sweep ID]
    atmsim version

Exit codes: 0 success; 2 user error (bad scenario, missing file, bad option) printed as
one line ``error: FILE: FIELD: MESSAGE`` on stderr; 1 internal error (a bug); 130 on
Ctrl-C. A failed run leaves an existing output directory untouched.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from . import __version__
from .errors import ScenarioError, SimulationError
from .plots import write_run_report
from .progress import progress_bar, runs_bar
from .reproduce import STUDIES
from .results import Results
from .scenario import Scenario
from .store import DEFAULT_LOCK_TIMEOUT_S

app = typer.Typer(
    name="atmsim",
    help="Deterministic cell-level simulator of TCP/IP over ATM.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
)

EXIT_USER_ERROR = 2
EXIT_INTERNAL_ERROR = 1
EXIT_INTERRUPTED = 130


def _stdout() -> Console:
    return Console()


def _stderr() -> Console:
    return Console(stderr=True)


def _fail(message: str, code: int) -> typer.Exit:
    _stderr().print(f"error: {message}", style="red", markup=False, highlight=False, soft_wrap=True)
    return typer.Exit(code)


@contextlib.contextmanager
def _reported_errors() -> Iterator[None]:
    """Turn expected failures into one red line on stderr and an exit code."""
    try:
        yield
    except ScenarioError as exc:
        raise _fail(str(exc), EXIT_USER_ERROR) from None
    except OSError as exc:  # missing/unreadable scenario, unwritable --out
        where = exc.filename if exc.filename is not None else ""
        reason = (exc.strerror or str(exc)).lower()
        raise _fail(f"{where}: {reason}" if where else reason, EXIT_USER_ERROR) from None
    except SimulationError as exc:
        raise _fail(f"{exc} (internal error; please report it)", EXIT_INTERNAL_ERROR) from None
    except KeyboardInterrupt:
        raise _fail("interrupted; no results written", EXIT_INTERRUPTED) from None


ScenarioArg = Annotated[Path, typer.Argument(metavar="SCENARIO.toml", help="Scenario file.", show_default=False)]


@app.command()
def run(
    scenario: ScenarioArg,
    seed: Annotated[int | None, typer.Option(help="Override simulation.seed.", min=0)] = None,
    out: Annotated[Path | None, typer.Option(help="Output directory [default: out/<scenario stem>].")] = None,
    no_batching: Annotated[bool, typer.Option("--no-batching", help="Serve every cell as its own event.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar and no tables.")] = False,
    plot: Annotated[bool, typer.Option("--plot/--no-plot", help="Also write figures and report.html.")] = True,
) -> None:
    """Run a scenario and write summary.json, series.parquet and (with --plot) report.html."""
    out_dir = out if out is not None else Path("out") / scenario.stem
    with _reported_errors():
        scen = Scenario.from_toml(scenario)
        batching = False if no_batching else None
        if quiet:
            results = scen.run(seed=seed, batching=batching)
        else:
            with progress_bar(scenario.stem, console=_stderr()) as report:
                results = scen.run(seed=seed, batching=batching, progress=report)
        results.save(out_dir)
        if plot:
            write_run_report(results, out_dir)
    if not quiet:
        print_summary(results, _stdout())
    _stderr().print(f"wrote {out_dir}", highlight=False, markup=False)


@app.command()
def check(scenario: ScenarioArg) -> None:
    """Parse and validate a scenario without running it."""
    with _reported_errors():
        Scenario.from_toml(scenario).validate()
    _stdout().print(f"ok: {scenario}", style="green", highlight=False, markup=False)


@app.command()
def reproduce(
    study: Annotated[str, typer.Argument(metavar="STUDY", help="Study to reproduce: " + ", ".join(sorted(STUDIES)) + ".")],
    full: Annotated[bool, typer.Option("--full", help="The paper's scale instead of quick mode.")] = False,
    seed: Annotated[int, typer.Option(help="Master seed.", min=0)] = 1,
    out: Annotated[Path | None, typer.Option(help="Report directory [default: out/<study>].")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
) -> None:
    """Run a study's experiments and write its report (tables and figures beside the paper's)."""
    if study not in STUDIES:
        raise _fail(f"unknown study `{study}`: expected one of {', '.join(sorted(STUDIES))}", EXIT_USER_ERROR)
    module = importlib.import_module(STUDIES[study])
    out_dir = out if out is not None else Path("out") / study
    with _reported_errors():
        if quiet:
            report = module.run(out_dir, full=full, seed=seed)
        else:
            with runs_bar(study, console=_stderr()) as tick:
                report = module.run(out_dir, full=full, seed=seed, progress=tick)
    _stderr().print(f"wrote {report}", highlight=False, markup=False)


_SWEEP_EPILOG = """\b
Examples:
  atmsim sweep tiny.toml --grid "tcp[0].window_bytes=4096,8192,16384" --seeds 1-20
  atmsim sweep tiny.toml -g "link[0].delay_ms=1,10" -g "tcp[0].variant=reno,newreno" -j 2
  atmsim sweep tiny.toml -g "tcp[0].window_bytes=8192,65536" --scheduler tcp://127.0.0.1:8786

\b
Run again with the same arguments to resume: runs already stored are skipped.
Read the results with atmsim.results(store=...) or any DuckDB client
(tables runs, metrics, sweeps; see docs/results-store.md).
"""


@app.command(epilog=_SWEEP_EPILOG)
def sweep(
    scenario: ScenarioArg,
    grid: Annotated[
        list[str] | None,
        typer.Option(
            "--grid",
            "-g",
            metavar="PATH=V1,V2,...",
            help="A scenario field (dotted path, e.g. tcp[0].window_bytes) and its values, comma-separated; "
            "repeat for more fields (the sweep is their cartesian product). Values are read as "
            "true/false, integers, floats, JSON lists/tables, or else strings.",
            show_default=False,
        ),
    ] = None,
    seeds: Annotated[
        str | None,
        typer.Option(metavar="SEEDS", help="Seeds to run at every grid point: 1-20, 1,3,5 or 7 (default: simulation.seed)."),
    ] = None,
    jobs: Annotated[
        int | None,
        typer.Option("--jobs", "-j", min=0, help="Worker processes (default: all cores); 0 runs in this process."),
    ] = None,
    scheduler: Annotated[
        str | None,
        typer.Option(metavar="ADDRESS", help="Run on a Dask cluster instead: its scheduler, e.g. tcp://host:8786."),
    ] = None,
    store: Annotated[
        Path | None,
        typer.Option(metavar="PATH", help="Results database (default: results.duckdb in --out, else in the current directory)."),
    ] = None,
    out: Annotated[Path | None, typer.Option(metavar="DIR", help="Directory for the default store.")] = None,
    retry_failed: Annotated[
        bool, typer.Option("--retry-failed", help="Run again the runs stored as failed (by default they are kept).")
    ] = False,
    lock_timeout: Annotated[
        float,
        typer.Option(metavar="SECONDS", min=0, help="How long to wait while another process holds the store."),
    ] = DEFAULT_LOCK_TIMEOUT_S,
    commit_every: Annotated[
        float,
        typer.Option(metavar="SECONDS", min=0, help="Commit finished runs to the store at least this often."),
    ] = 1.0,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
) -> None:
    """Run a scenario over a grid of parameter values and seeds into a DuckDB results store.

    Every grid point is validated before anything runs. Each finished run is committed to the store at once; an interrupted sweep resumes where it stopped when run again.
    """
    from .store import StoreError, resolve_store
    from .sweeps import SweepError, parse_grid_option, parse_seeds
    from .sweeps import sweep as run_sweep

    with _reported_errors():
        try:
            grid_dict: dict[str, list[Any]] = {}
            for option in grid or []:
                try:
                    path, values = parse_grid_option(option)
                except ScenarioError as exc:
                    raise ScenarioError(exc.message, file=str(scenario), field=exc.field, code=exc.code) from None
                if path in grid_dict:
                    raise ScenarioError("given twice in --grid", file=str(scenario), field=path)
                grid_dict[path] = values
            if seeds is not None:
                try:
                    parse_seeds(seeds)
                except ScenarioError as exc:
                    raise ScenarioError(exc.message, field="--seeds") from None
            result = run_sweep(
                Scenario.from_toml(scenario),
                grid=grid_dict,
                seeds=seeds,
                store=resolve_store(store, out),
                jobs=jobs,
                scheduler=scheduler,
                progress=not quiet,
                retry_failed=retry_failed,
                lock_timeout=lock_timeout,
                flush_interval=commit_every,
            )
        except StoreError as exc:
            raise _fail(str(exc), EXIT_USER_ERROR) from None
        except SweepError as exc:
            raise _fail(str(exc), EXIT_USER_ERROR if exc.code == "scheduler" else EXIT_INTERNAL_ERROR) from None
        except KeyboardInterrupt:
            where = resolve_store(store, out)
            _fail(f"interrupted; finished runs are in {where}: run the same command to resume", EXIT_INTERRUPTED)
            # The finished runs are committed and the workers terminated; exit at once rather
            # than wait for the process pool's threads, which can hang after an interrupt.
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(EXIT_INTERRUPTED)
    line = (
        f"{result.total} runs: {result.ok} run now, {result.skipped} already stored"
        + (f", {result.failed} failed" if result.failed else "")
        + f"; sweep {result.sweep_id} in {result.store}"
    )
    _stderr().print(line, highlight=False, markup=False, soft_wrap=True)
    for run_id, error in result.failures[:3]:
        _stderr().print(f"  failed {run_id}: {error}", highlight=False, markup=False, soft_wrap=True)


@app.command()
def report(
    store: Annotated[Path, typer.Argument(metavar="[STORE]", help="Results store (DuckDB file).")] = Path("results.duckdb"),
    out: Annotated[Path, typer.Option(help="Report directory.")] = Path("report"),
    sweep: Annotated[str | None, typer.Option(help="Report only this sweep [default: all].")] = None,
) -> None:
    """Write an HTML report (tables, figures with confidence intervals) of a results store."""
    from .report_store import StoreError, write_store_report  # duckdb is imported only here

    with _reported_errors():
        try:
            page = write_store_report(store, out, sweep=sweep)
        except StoreError as exc:
            raise _fail(str(exc), EXIT_USER_ERROR) from None
    _stderr().print(f"wrote {page}", highlight=False, markup=False)


@app.command()
def version() -> None:
    """Print the atmsim version."""
    typer.echo(f"atmsim {__version__}")


# ----- summary tables ---------------------------------------------------------------------


def _keys_like(rows: Sequence[Mapping[str, Any]], *fragments: str) -> list[str]:
    """Numeric keys whose name contains one of ``fragments``, in order of first appearance."""
    keys: list[str] = []
    for row in rows:
        for k, v in row.items():
            if k not in keys and any(f in k for f in fragments) and isinstance(v, int | float):
                keys.append(k)
    return keys


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.6g}"
    return "—" if v is None else str(v)


def connections_table(summary: Mapping[str, Any]) -> Table | None:
    rows = summary.get("connections") or []
    if not rows:
        return None
    extra = _keys_like(rows, "rexmt_segs", "retrans", "timeout")
    table = Table(title="connections", title_justify="left")
    table.add_column("name")
    table.add_column("goodput Mb/s", justify="right")
    for k in extra:
        table.add_column(k, justify="right")
    for row in rows:
        goodput = row.get("goodput_bps")
        mbps = f"{goodput / 1e6:.3f}" if isinstance(goodput, int | float) else "—"
        table.add_row(str(row.get("name", "?")), mbps, *(_fmt(row.get(k)) for k in extra))
    return table


def ports_table(summary: Mapping[str, Any]) -> Table | None:
    rows = summary.get("ports") or []
    drops = _keys_like(rows, "drop")
    if not rows or not drops:
        return None
    table = Table(title="ports", title_justify="left")
    table.add_column("name")
    for k in drops:
        table.add_column(k, justify="right")
    for row in rows:
        table.add_row(str(row.get("name", "?")), *(_fmt(row.get(k)) for k in drops))
    return table


def print_summary(results: Results, console: Console) -> None:
    s = results.summary
    console.print(
        f"[bold]{s.get('scenario', '?')}[/bold]  seed {s.get('seed', '?')}  "
        f"duration {_fmt(s.get('duration_s'))} s  warmup {_fmt(s.get('warmup_s'))} s",
        highlight=False,
    )
    for table in (connections_table(s), ports_table(s)):
        if table is not None:
            console.print(table)


def main() -> None:
    app(prog_name="atmsim")


if __name__ == "__main__":
    main()
