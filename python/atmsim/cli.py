"""The ``atmsim`` command line.

    atmsim run SCENARIO.toml [--seed N] [--out DIR] [--no-batching] [--no-plot] [--quiet]
    atmsim check SCENARIO.toml
    atmsim reproduce STUDY [--full] [--seed N] [--out DIR] [--configs P] [--store F] [-j N] [--tcp SPEC]
    atmsim sweep SCENARIO.toml --grid PATH=V1,V2 [--grid ...] [--seeds 1-20] [--jobs N]
                 [--scheduler ADDRESS] [--store PATH | --out DIR] [--retry-failed]
    atmsim report [STORE] [--out DIR] [--sweep ID] [--quiet]
    atmsim version | atmsim --version

Exit codes: 0 success; 2 user error (bad scenario, missing file, bad option) printed as
one line ``error: FILE: FIELD: MESSAGE`` on stderr; 1 internal error (a bug); 130 on
Ctrl-C. A failed run leaves an existing output directory untouched. The tables ``run``
prints are :mod:`atmsim._run_tables`'s; printed to a pipe or file they are not cut to the
terminal's width.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from . import __version__
from ._defaults import DEFAULT_LOCK_TIMEOUT_S, DEFAULT_STORE
from ._prefetch import prefetched
from ._run_tables import print_summary
from ._scenario import SEED_MAX, Scenario, check_seed, printable, validate_file
from .errors import AtmsimError, ScenarioError, SimulationError
from .reproduce import STUDIES

if TYPE_CHECKING:
    from rich.console import Console

# pandas, pyarrow, matplotlib, duckdb, the progress bars and rich's tables are imported where
# they are used, and the command line is plain click (typer 0.29 imports pydantic to parse any
# argument), so `atmsim run` reaches the simulation quickly (docs/performance.md, "Start-up").

#: The console script is ``main``; ``app`` is the click group (its commands: run, check,
#: reproduce, sweep, report, version); the EXIT_ codes are those the command returns.
__all__ = ["EXIT_INTERNAL_ERROR", "EXIT_INTERRUPTED", "EXIT_USER_ERROR", "app", "main"]


EXIT_USER_ERROR = 2
EXIT_INTERNAL_ERROR = 1
EXIT_INTERRUPTED = 130

PIPE_WIDTH = 10_000
"""Console width when stdout is not a terminal: tables are never cut or wrapped there."""


def _stdout() -> Console:
    from rich.console import Console

    console = Console()
    return console if console.is_terminal else Console(width=PIPE_WIDTH)


def _stderr() -> Console:
    from rich.console import Console

    return Console(stderr=True)


MAX_ERROR_CHARS = 2000
"""Longest error line printed; the rest is elided (a value echoed back can be huge)."""


_reported = False
"""Whether an ``error:`` line was printed (so a bare exit code 130 from the parser, which
turns a Ctrl-C outside any command's handler into ``Exit(130)``, still gets one)."""


def _fail(message: str, code: int) -> click.exceptions.Exit:
    global _reported
    _reported = True
    line = " ".join(printable(message).splitlines())
    if len(line) > MAX_ERROR_CHARS:
        line = f"{line[: MAX_ERROR_CHARS - 40]}… ({len(line) - MAX_ERROR_CHARS + 40} more characters)"
    _stderr().print(f"error: {line}", style="red", markup=False, highlight=False, soft_wrap=True)
    return click.exceptions.Exit(code)


class _OneLineErrors(click.Group):
    """Report command-line usage errors (unknown option, bad value, missing argument) as one
    ``error:`` line and exit code 2, like every other user error; list the commands in the
    order they are defined; turn a Ctrl-C outside a command's handler into exit code 130."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(self.commands)

    def make_context(self, *args: Any, **kwargs: Any) -> click.Context:
        try:
            return super().make_context(*args, **kwargs)
        except KeyboardInterrupt:  # click would print a blank line first
            raise click.exceptions.Exit(EXIT_INTERRUPTED) from None

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            raise click.exceptions.Exit(EXIT_INTERRUPTED) from None

    def main(
        self, args: Sequence[str] | None = None, prog_name: str | None = None, complete_var: str | None = None,
        standalone_mode: bool = True, **extra: Any,
    ) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        try:
            code = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.exceptions.NoArgsIsHelpError as exc:  # no command given: the help, exit 2
            click.echo(exc.ctx.get_help(), color=exc.ctx.color)
            sys.exit(EXIT_USER_ERROR)
        except click.ClickException as exc:
            ctx = getattr(exc, "ctx", None)
            hint = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
            message = exc.format_message().rstrip(".")
            exit_code = getattr(exc, "exit_code", EXIT_USER_ERROR)
            _fail(message[:1].lower() + message[1:] + hint, exit_code)
            sys.exit(exit_code)
        except (click.exceptions.Abort, KeyboardInterrupt):
            _fail("interrupted", EXIT_INTERRUPTED)
            sys.exit(EXIT_INTERRUPTED)
        if code == EXIT_INTERRUPTED and not _reported:  # Ctrl-C before a command's handler ran
            _fail("interrupted", EXIT_INTERRUPTED)
        sys.exit(code if isinstance(code, int) else 0)


class _Argument(click.Argument):
    """A positional argument whose help row also says "[required]" or its default, as an
    option's does."""

    def get_help_record(self, ctx: click.Context) -> tuple[str, str]:
        name, text = super().get_help_record(ctx)
        extra = "required" if self.required else f"default: {self.default}" if self.default is not None else ""
        return name, f"{text}  [{extra}]" if extra else text


def _print_version(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        click.echo(f"atmsim {__version__}")
        ctx.exit(0)


@click.group(
    name="atmsim",
    cls=_OneLineErrors,
    no_args_is_help=True,
    context_settings={"show_default": True},  # defaults in --help; not for flags that are off
)
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_print_version,
              help="Print the atmsim version and exit.")
def app() -> None:
    """Deterministic cell-level simulator of TCP/IP over ATM."""


def _seed_option(ctx: click.Context, param: click.Parameter, value: int | None) -> int | None:
    try:
        return check_seed(value)
    except ScenarioError as exc:
        raise click.BadParameter(exc.message) from None


NOTHING_WRITTEN = "interrupted; no results written"


def _kept_in(store: Path) -> str:
    """What Ctrl-C leaves behind in a results store: every run that finished."""
    return f"interrupted; finished runs are in {printable(str(store))}: run the same command to resume"


class _Interrupted:
    """The line Ctrl-C prints: what the command has kept by then (a command changes it as it goes)."""

    def __init__(self, line: str):
        self.line = line


@contextlib.contextmanager
def _reported_errors(interrupted: str = NOTHING_WRITTEN) -> Iterator[_Interrupted]:
    """Turn expected failures into one red line on stderr and an exit code: the one error
    path of every command, whatever it opens (a scenario, --out, a results store).
    ``interrupted``: the line for Ctrl-C, saying what was kept."""
    said = _Interrupted(interrupted)
    try:
        yield said
    except ScenarioError as exc:
        raise _fail(str(exc), EXIT_USER_ERROR) from None
    except OSError as exc:  # missing/unreadable scenario, unwritable --out
        where = printable(os.fsdecode(exc.filename)) if exc.filename is not None else ""
        reason = (exc.strerror or str(exc)).lower()
        raise _fail(f"{where}: {reason}" if where else reason, EXIT_USER_ERROR) from None
    except SimulationError as exc:
        raise _fail(f"{exc} (internal error; please report it)", EXIT_INTERNAL_ERROR) from None
    except AtmsimError as exc:
        # A results store that is damaged, locked, of another version or unwritable (code
        # "store"), a Dask scheduler out of reach ("scheduler"): the user's to fix. A sweep
        # whose worker died ("sweep") is ours.
        raise _fail(str(exc), EXIT_INTERNAL_ERROR if exc.code == "sweep" else EXIT_USER_ERROR) from None
    except KeyboardInterrupt:
        raise _fail(said.line, EXIT_INTERRUPTED) from None


PATH = click.Path(path_type=Path, readable=False)
"""A path, not checked by the parser: the commands report missing or unreadable files."""


_scenario_arg = click.argument("scenario", cls=_Argument, type=PATH, metavar="SCENARIO.toml", help="Scenario file.")


_F = TypeVar("_F", bound=Callable[..., Any])


def _quiet_option(text: str) -> Callable[[_F], _F]:
    return click.option("--quiet", "-q", is_flag=True, help=text)


SEED_HELP = f"0 to {SEED_MAX}"


def _writers_libraries(scen: Scenario, plot: bool) -> list[str | Callable[[], object]]:
    """What writing a run's results will import, to be loaded while it simulates
    (:mod:`atmsim._prefetch`): pyarrow for ``series.parquet`` if the scenario samples (unless
    ``simulation.sample_interval_ms`` is 0), and with figures pandas and pyplot. A run that
    writes neither loads nothing."""
    try:
        samples = scen.get("simulation.sample_interval_ms") != 0
    except ScenarioError:  # not given: the default interval
        samples = True
    libraries: list[str | Callable[[], object]] = ["pyarrow.parquet"] if samples else []
    if plot and samples:
        from ._report import pyplot

        libraries += ["pandas", pyplot]
    return libraries


@app.command()
@_scenario_arg
@click.option("--seed", type=int, metavar="N", callback=_seed_option, help=f"Override simulation.seed ({SEED_HELP}).",
              show_default="simulation.seed")
@click.option("--out", type=PATH, metavar="DIR", help="Output directory.", show_default="out/<scenario stem>")
@click.option("--no-batching", is_flag=True, help="Serve every cell as its own event.")
@_quiet_option("No progress bar and no tables.")
@click.option("--plot/--no-plot", default=True, help="Also write figures and report.html.")
def run(scenario: Path, seed: int | None, out: Path | None, no_batching: bool, quiet: bool, plot: bool) -> None:
    """Run a scenario and write summary.json, series.parquet and (with --plot) report.html.

    The scenario is validated and --out checked for writing before anything runs.
    """
    from ._output import check_writable

    out_dir = out if out is not None else Path("out") / scenario.stem
    with _reported_errors():
        scen = Scenario.from_toml(scenario).validate()
        check_writable(out_dir)
        batching = False if no_batching else None
        # The bar only on a terminal: elsewhere it would print its last state as a line of
        # its own (also when interrupted, before the one `error:` line). With --quiet, rich
        # is not imported before the simulation.
        with prefetched(*_writers_libraries(scen, plot)):
            if quiet or not (console := _stderr()).is_terminal:
                results = scen.run(seed=seed, batching=batching)
            else:
                from ._progress import progress_bar

                with progress_bar(scenario.stem, console=console) as report:
                    results = scen.run(seed=seed, batching=batching, progress=report)
        results.save(out_dir)
        if plot:
            from ._plots import write_run_report

            write_run_report(results, out_dir)
    if not quiet:
        print_summary(results, _stdout())
    _stderr().print(f"wrote {printable(str(out_dir))}", highlight=False, markup=False, soft_wrap=True)


@app.command()
@_scenario_arg
def check(scenario: Path) -> None:
    """Parse and validate a scenario without running it."""
    with _reported_errors("interrupted"):  # check never writes anything
        validate_file(scenario)
    _stdout().print(f"ok: {printable(str(scenario))}", style="green", highlight=False, markup=False, soft_wrap=True)


#: The studies whose run() takes an option that not every study takes.
_TAKEN_BY = {"seeds": "mah96, mah96-calibration", "configs": "mah96",
             "tcp": "caceres93, kalampoukas97, kocyigit, magic95, mah96"}


@app.command()
@click.argument("study", cls=_Argument, metavar="STUDY", help="Study to reproduce: " + ", ".join(sorted(STUDIES)) + ".")
@click.option("--full", is_flag=True, help="The paper's scale instead of quick mode.")
@click.option("--seed", type=int, default=1, metavar="N", callback=_seed_option, help=f"Master seed ({SEED_HELP}).")
@click.option("--out", type=PATH, metavar="DIR", help="Report directory.", show_default="out/<study>")
@click.option(
    "--seeds",
    metavar="SEEDS",
    help="Seeds to run every configuration at, where the study supports it (mah96, mah96-calibration): "
    "1-3 or 1,3,5 (2 to 100 seeds; a bare number is refused).",
    show_default="the study's: mah96 3 from --seed on, as the thesis",
)
@click.option(
    "--configs",
    metavar="PATTERNS",
    help="Comma-separated shell patterns of the configurations to run, where the study has many (mah96: "
    "<qos>-<mux>-<vc> names, e.g. 'noqos-*', '*-ftp-*', 'wc-ftp-conv-svccache').",
    show_default="mah96: all 103",
)
@click.option(
    "--store",
    type=PATH,
    metavar="FILE",
    help="Results store (DuckDB) the study runs into and writes its verdicts to (table verdicts): runs already in "
    "it are read back, not run again, so an interrupted study resumes.",
    show_default="DIR/results.duckdb",
)
@click.option(
    "-j",
    "--jobs",
    type=click.IntRange(min=0),
    metavar="N",
    help="Worker processes (0: in this process).",
    show_default="all cores",
)
@click.option(
    "--scheduler",
    metavar="ADDRESS",
    help="Dask scheduler to run on (tcp://host:8786) instead of local workers.",
    show_default="local workers",
)
@click.option(
    "--tcp",
    metavar="SPEC",
    help="Also run the study with this TCP on every connection and show it beside the paper and BSD (section "
    "\"With today's TCP\"; its whole report in DIR/tcp-SPEC/): a variant (tahoe, reno, newreno, cubic) and flags "
    "sack, ts (timestamps), hystart (needs ts), joined by '+', e.g. cubic+sack+ts. BSD's runs already in the store "
    "are reused.",
    show_default="BSD only, as shipped",
)
@_quiet_option("No progress bar.")
def reproduce(
    study: str,
    full: bool,
    seed: int,
    out: Path | None,
    seeds: str | None,
    configs: str | None,
    store: Path | None,
    jobs: int | None,
    scheduler: str | None,
    tcp: str | None,
    quiet: bool,
) -> None:
    """Run a study's experiments and write its report (tables and figures beside the paper's)."""
    import inspect

    from ._output import check_writable
    from .study import Mode
    from .study.seeds import study_seeds

    if study not in STUDIES:
        raise _fail(f"unknown study `{study[:40]}`: expected one of {', '.join(sorted(STUDIES))}", EXIT_USER_ERROR)
    out_dir = out if out is not None else Path("out") / study
    console = _stderr()
    with _reported_errors() as interrupted:
        module = importlib.import_module(STUDIES[study])  # inside: Ctrl-C while importing is one line too
        given: dict[str, Any] = {"seeds": seeds, "configs": configs, "store": store, "jobs": jobs, "scheduler": scheduler,
                                 "tcp": tcp}
        extra: dict[str, Any] = {k: v for k, v in given.items() if v is not None}
        supported = inspect.signature(module.run).parameters
        for k in extra:
            if k not in supported:
                why = "has a fixed number of runs per configuration" if k == "seeds" else "does not take it"
                raise _fail(f"--{k}: `{study}` {why} (supported by: {_TAKEN_BY[k]})", EXIT_USER_ERROR)
        if seeds is not None:
            if click.get_current_context().get_parameter_source("seed") is not click.core.ParameterSource.DEFAULT:
                raise _fail("--seed and --seeds: give the seeds in --seeds alone (--seed is where a study's "
                            "default seeds start)", EXIT_USER_ERROR)
            extra["seeds"] = study_seeds(seeds, seed, option="--seeds")
        if tcp is not None:
            from .study.tcp_profile import parse as parse_tcp

            extra["tcp"] = parse_tcp(tcp, option="--tcp")
        if "store" in supported:  # a study run into a results store keeps its finished runs
            study_store = store if store is not None else out_dir / DEFAULT_STORE
            extra["store"] = study_store
            interrupted.line = _kept_in(study_store)
        check_writable(out_dir)
        # The bar only on a terminal: elsewhere it would print its last state as a line of
        # its own (also when interrupted, before the one `error:` line).
        if quiet or not console.is_terminal:
            report = module.run(out_dir, mode=Mode.of(full), seed=seed, **extra)
        else:
            from ._progress import runs_bar

            with runs_bar(study, console=console) as progress:
                report = module.run(out_dir, mode=Mode.of(full), seed=seed, progress=progress, **extra)
    tally = _verdict_tally(Path(report).parent)
    _stderr().print(f"{tally} — report: " if tally else "wrote ", printable(str(report)), sep="", highlight=False,
                    markup=False, soft_wrap=True)


def _verdict_tally(out_dir: Path) -> str:
    """The study's verdicts counted as its report's summary does: ``16 validated agrees, 6
    validated differs, 4 not comparable`` (empty if the study wrote none)."""
    from .study.verdict import counts, read_verdicts

    try:
        verdicts = read_verdicts(out_dir)
    except (OSError, ValueError, TypeError):
        return ""
    return ", ".join(f"{n} {column}" for column, n in counts(verdicts).items() if n)


_SWEEP_EPILOG = """\b
Examples:
  atmsim sweep scenarios/examples/contention_tcp.toml -g "tcp[0].window_bytes=16384,65536" --seeds 1-10
  atmsim sweep scenarios/examples/contention_tcp.toml -g "link[2].delay_ms=1,10" -g "tcp[0].variant=reno,newreno" -j 2
  atmsim sweep scenarios/examples/contention_tcp.toml -g "switch[0].buffer_cells=256,1024" --scheduler tcp://127.0.0.1:8786

\b
Run again with the same arguments to resume: runs already stored are skipped.
Read the results with atmsim.results(store=...) or any DuckDB client
(tables runs, metrics, sweeps; see docs/results-store.md).
"""


@app.command(epilog=_SWEEP_EPILOG)
@_scenario_arg
@click.option(
    "--grid",
    "-g",
    multiple=True,
    metavar="PATH=V1,V2,...",
    help="A scenario field (dotted path, e.g. tcp[0].window_bytes) and its values, comma-separated; "
    "repeat for more fields (the sweep is their cartesian product). Values are read as "
    "true/false, integers, floats, JSON lists/tables, or else strings.",
    show_default=False,
)
@click.option("--seeds", metavar="SEEDS", help="Seeds to run at every grid point: 1-20, 1,3,5 or 7 (default: simulation.seed).")
@click.option("--jobs", "-j", type=click.IntRange(min=0), help="Worker processes (default: all cores); 0 runs in this process.")
@click.option("--scheduler", metavar="ADDRESS", help="Run on a Dask cluster instead: its scheduler, e.g. tcp://host:8786.")
@click.option("--store", type=PATH, metavar="PATH",
              help="Results database (default: results.duckdb in --out, else in the current directory).")
@click.option("--out", type=PATH, metavar="DIR", help="Directory for the default store.")
@click.option("--retry-failed", is_flag=True, help="Run again the runs stored as failed (by default they are kept).")
@click.option("--lock-timeout", type=click.FloatRange(min=0), default=DEFAULT_LOCK_TIMEOUT_S, metavar="SECONDS",
              help="How long to wait while another process holds the store.")
@click.option("--commit-every", type=click.FloatRange(min=0), default=1.0, metavar="SECONDS",
              help="Commit finished runs to the store at least this often.")
@_quiet_option("No progress bar.")
def sweep(
    scenario: Path,
    grid: Sequence[str],
    seeds: str | None,
    jobs: int | None,
    scheduler: str | None,
    store: Path | None,
    out: Path | None,
    retry_failed: bool,
    lock_timeout: float,
    commit_every: float,
    quiet: bool,
) -> None:
    """Run a scenario over a grid of parameter values and seeds into a DuckDB results store.

    Every grid point is validated before anything runs. Each finished run is committed to the store at once;
    an interrupted sweep resumes where it stopped when run again.
    """
    from math import prod

    from ._store import resolve_store
    from ._sweep import check_size, parse_seeds
    from ._sweep import sweep as run_sweep
    from ._sweep.grid import parse_grid_option

    with _reported_errors(_kept_in(resolve_store(store, out))):
        # Ctrl-C: the finished runs are committed, the workers stopped and the pool shut
        # down (LocalBackend.close in atmsim._sweep.backends), so the normal exit has nothing left to wait for.
        grid_dict: dict[str, list[Any]] = {}
        for option in grid or []:
            try:
                path, values = parse_grid_option(option)
            except ScenarioError as exc:
                raise ScenarioError(exc.message, file=str(scenario), field=exc.field, code=exc.code) from None
            if path in grid_dict:
                raise ScenarioError("given twice in --grid", file=str(scenario), field=path)
            grid_dict[path] = values
        n_seeds = 1
        if seeds is not None:
            try:
                n_seeds = len(parse_seeds(seeds))
            except ScenarioError as exc:
                raise ScenarioError(exc.message, field="--seeds") from None
        try:  # at most MAX_RUNS runs, checked before the grid is expanded
            check_size(prod(len(v) for v in grid_dict.values()), n_seeds)
        except ScenarioError as exc:
            raise ScenarioError(exc.message, field=f"--{exc.field}") from None
        result = run_sweep(
            Scenario.from_toml(scenario),
            grid=grid_dict,
            seeds=seeds,
            store=resolve_store(store, out),
            jobs=jobs,
            scheduler=scheduler,
            progress=not quiet and _stderr().is_terminal,  # a bar only on a terminal, as in run
            retry_failed=retry_failed,
            lock_timeout=lock_timeout,
            flush_interval=commit_every,
        )
    line = (
        f"{result.total} runs: {result.ok} run now, {result.skipped} already stored"
        + (f", {result.failed} failed" if result.failed else "")
        + f"; sweep {result.sweep_id} in {result.store}"
    )
    _stderr().print(line, highlight=False, markup=False, soft_wrap=True)
    for run_id, error in result.failures[:3]:
        _stderr().print(f"  failed {run_id}: {error}", highlight=False, markup=False, soft_wrap=True)


@app.command()
@click.argument("store", cls=_Argument, type=PATH, default=Path(DEFAULT_STORE), metavar="[STORE]",
                help="Results store (DuckDB file).")
@click.option("--out", type=PATH, default=Path("report"), metavar="DIR", help="Report directory.")
@click.option("--sweep", metavar="ID", help="Report only this sweep.", show_default="all")
@_quiet_option("Print nothing but errors.")
def report(store: Path, out: Path, sweep: str | None, quiet: bool) -> None:
    """Write an HTML report (tables, figures with confidence intervals) of a results store."""
    with _reported_errors():
        if not store.exists():  # said before pandas, matplotlib and DuckDB are imported
            raise FileNotFoundError(2, "no such file or directory", str(store))
        from ._report_store import write_store_report

        page = write_store_report(store, out, sweep=sweep)
    if not quiet:
        _stderr().print(f"wrote {page}", highlight=False, markup=False)


@app.command()
def version() -> None:
    """Print the atmsim version (same as --version)."""
    click.echo(f"atmsim {__version__}")


def main() -> None:
    try:
        app(prog_name="atmsim")
    except KeyboardInterrupt:  # between the parser's handlers, e.g. while it exits
        _fail("interrupted", EXIT_INTERRUPTED)
        sys.exit(EXIT_INTERRUPTED)


if __name__ == "__main__":
    main()
