"""Small helpers to write self-contained HTML reports next to their figures.

Owns the page template shared by ``atmsim reproduce`` studies: a title, a body of HTML
fragments, and figures saved beside ``report.html`` (the verdicts and the summary a study's
report opens with are :mod:`atmsim.study`'s). Files are written to an exclusive
temporary name in the same directory and renamed (:func:`atmsim._output.atomic_file`), so an
interrupted run never leaves a half-written report and a symlink in the directory is
replaced, never written through.
"""

from __future__ import annotations

import html
from pathlib import Path

from . import __version__
from ._output import atomic_file

_STYLE = """
body { font-family: system-ui, sans-serif; max-width: 62rem; margin: 2rem auto; padding: 0 1rem; color: #222; }
table { border-collapse: collapse; margin: 1rem 0; }
th, td { border: 1px solid #bbb; padding: 0.25rem 0.6rem; text-align: right; }
th { background: #eee; }
td:last-child, th:last-child { text-align: left; }
img { max-width: 100%; }
.meta { color: #777; font-size: 0.9em; }
"""


def figure_path(out_dir: Path, name: str) -> Path:
    out_dir.mkdir(parents=True, exist_ok=True)
    return out_dir / name


def write_report(out_dir: Path, title: str, body: str) -> Path:
    out_dir.mkdir(parents=True, exist_ok=True)
    page = (
        f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
        f"<style>{_STYLE}</style></head><body><h1>{html.escape(title)}</h1>{body}"
        f"<p class='meta'>atmsim {html.escape(__version__)}</p></body></html>"
    )
    target = out_dir / "report.html"
    with atomic_file(target, "w") as f:
        f.write(page)
    return target


def save_figure(fig, path: Path, dpi: int) -> Path:
    """Write ``fig`` to ``path`` (format from the suffix) atomically, then close it."""
    import matplotlib.pyplot as plt

    try:
        with atomic_file(path) as f:
            fig.savefig(f, format=path.suffix.lstrip(".") or "png", dpi=dpi)
    finally:
        plt.close(fig)
    return path


def pyplot():
    """matplotlib's ``pyplot`` on its non-interactive backend (Agg)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def new_axes(figsize: tuple[float, float] = (6.4, 4.4)):
    """A fresh ``(figure, axes)`` pair on matplotlib's non-interactive backend."""
    return pyplot().subplots(figsize=figsize)


def save_axes(fig, ax, path: Path, *, xlabel: str, ylabel: str, title: str, legend: str = "small", dpi: int = 120) -> Path:
    """Label, grid and legend ``ax``, write ``fig`` to ``path`` and close it."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=legend)
    fig.tight_layout()
    return save_figure(fig, path, dpi)


def plot_ci_lines(
    series: dict[str, list[tuple[float, float, float, float]]], xlabel: str, ylabel: str, title: str, path: Path
) -> Path:
    """One line per label of (x, mean, low, high) points, with confidence-interval error bars."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for label, pts in series.items():
        if not pts:
            continue
        ax.errorbar(
            [p[0] for p in pts], [p[1] for p in pts],
            yerr=[[p[1] - p[2] for p in pts], [p[3] - p[1] for p in pts]],
            marker="o", capsize=3, label=label,
        )
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    ax.legend()
    fig.tight_layout()
    return save_figure(fig, path, 110)
