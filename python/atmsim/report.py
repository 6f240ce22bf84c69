"""Small helpers to write self-contained HTML reports next to their figures.

Owns the page template shared by ``atmsim reproduce`` studies: a title, a body of HTML
fragments, and figures saved beside ``report.html``. Files are written to a temporary name
and renamed, so an interrupted run never leaves a half-written report.
"""

from __future__ import annotations

import html
import os
from pathlib import Path

from . import __version__

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
    tmp = target.with_suffix(".html.tmp")
    tmp.write_text(page, encoding="utf-8")
    os.replace(tmp, target)
    return target
