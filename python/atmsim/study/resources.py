"""The studies' scenario files, read as package resources.

The files of every study that reads scenario files live in the package, under
``atmsim/scenarios/<study>/`` (in a source checkout ``python/atmsim/scenarios/``, which
``scenarios/<study>`` links to, so the repository's paths keep working), so a wheel
installed with pip carries them and ``atmsim reproduce`` runs from any directory.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

__all__ = ["scenario_dir", "scenario_file"]


def scenario_dir(study: str) -> Path:
    """The directory of ``study``'s scenario files (``magic95``, ``mah96``, …)."""
    found = files("atmsim") / "scenarios" / study
    path = Path(str(found))
    if not path.is_dir():
        raise FileNotFoundError(f"the scenario files of {study!r} are not installed with atmsim (looked in {path})")
    return path


def scenario_file(study: str, name: str) -> Path:
    """The scenario file ``name`` (with its ``.toml``) of ``study``."""
    path = scenario_dir(study) / name
    if not path.is_file():
        raise FileNotFoundError(f"no scenario file {name!r} among {study!r}'s ({path.parent})")
    return path
