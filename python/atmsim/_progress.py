"""Rich progress bars: over a run's simulated time (the core's progress callback), over a
study's runs (its :class:`~atmsim.study.Progress`), and over a sweep's runs."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, TaskProgressColumn, TextColumn, TimeElapsedColumn
from rich.progress import Progress as RichProgress

from .study.progress import Progress

__all__ = ["progress_bar", "runs_bar", "sweep_bar"]

MAX_LABEL = 40


def _label(text: str) -> str:
    """A label as the bar shows it: at most MAX_LABEL characters, markup characters literal."""
    text = str(text)
    return escape(text if len(text) <= MAX_LABEL else text[: MAX_LABEL - 1] + "…")


@contextlib.contextmanager
def progress_bar(label: str, console: Console | None = None) -> Iterator[Callable[[float], None]]:
    """Yield a callback taking the fraction of simulated time done (0..1)."""
    console = console or Console(stderr=True)
    columns = (
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        TaskProgressColumn(),
        TextColumn("simulated"),
        TimeElapsedColumn(),
    )
    with RichProgress(*columns, console=console, transient=False) as bar:
        task = bar.add_task(_label(label), total=1.0)

        def report(fraction: float) -> None:
            bar.update(task, completed=min(max(fraction, 0.0), 1.0))

        yield report


@contextlib.contextmanager
def runs_bar(label: str, console: Console | None = None) -> Iterator[Progress]:
    """Yield the :class:`~atmsim.study.Progress` of a study, shown as a bar of its runs."""
    console = console or Console(stderr=True)
    columns = (
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total} runs"),
        TextColumn("{task.fields[what]}"),
        TimeElapsedColumn(),
    )
    with RichProgress(*columns, console=console, transient=False) as bar:
        task = bar.add_task(_label(label), total=None, what="")

        def show(done: int, total: int, what: str) -> None:
            bar.update(task, completed=done, total=total, what=escape(str(what)))

        yield Progress(show)


@contextlib.contextmanager
def sweep_bar(
    label: str, skipped: int = 0, console: Console | None = None
) -> Iterator[Callable[[int, int, int], None]]:
    """Yield a callback ``tick(done, failed, total)`` for the runs of a sweep (with an ETA)."""
    from rich.progress import TimeRemainingColumn

    console = console or Console(stderr=True)
    columns = (
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total} runs"),
        TextColumn("[red]{task.fields[failed]} failed[/red]" if console.is_terminal else "{task.fields[failed]} failed"),
        TextColumn("{task.fields[remaining]} remaining"),
        TextColumn("ETA"),
        TimeRemainingColumn(),
    )
    if skipped:
        console.print(f"{label}: {skipped} runs already in the store", highlight=False, markup=False)
    with RichProgress(*columns, console=console, transient=False) as bar:
        task = bar.add_task(_label(label), total=None, failed=0, remaining=0)

        def tick(done: int, failed: int, total: int) -> None:
            bar.update(task, completed=done, total=total, failed=failed, remaining=total - done)

        yield tick
