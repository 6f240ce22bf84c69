"""A rich progress bar over simulated time, fed by the core's progress callback."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

from rich.console import Console
from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeElapsedColumn

__all__ = ["progress_bar"]


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
    with Progress(*columns, console=console, transient=False) as bar:
        task = bar.add_task(label, total=1.0)

        def report(fraction: float) -> None:
            bar.update(task, completed=min(max(fraction, 0.0), 1.0))

        yield report
