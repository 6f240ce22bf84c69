"""The public surface: `atmsim.__all__` is exactly what docs/api.md documents, every public
module imports and exports what its `__all__` lists, internals are `_`-prefixed, and every
error code atmsim raises is in the table of errors.py and of docs/api.md."""

from __future__ import annotations

import importlib
import pickle
import pkgutil
import re
from pathlib import Path

import pytest

import atmsim
import atmsim.errors

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / "python" / "atmsim"
API = (REPO / "docs" / "api.md").read_text()


def test_all_is_exactly_the_names_the_api_page_documents():
    documented = set(re.findall(r"^### `atmsim\.([A-Za-z_]+)`$", API, re.M))
    assert documented == set(atmsim.__all__)
    assert len(atmsim.__all__) == len(set(atmsim.__all__))


def _public_modules() -> list[str]:
    names = ["atmsim"]
    for info in pkgutil.walk_packages([str(PACKAGE)], prefix="atmsim."):
        if not any(part.startswith("_") for part in info.name.split(".")):
            names.append(info.name)
    return sorted(names)


PUBLIC = _public_modules()


def test_the_public_modules_are_the_documented_ones():
    tops = {m.split(".")[1] for m in PUBLIC if m != "atmsim"}
    assert tops == {"builder", "callbacks", "cli", "errors", "reproduce", "stats", "study"}
    for old in ("output", "progress", "defaults", "report", "report_store", "plots", "store", "sweeps", "scenario", "query"):
        with pytest.raises(ModuleNotFoundError):
            importlib.import_module(f"atmsim.{old}")


@pytest.mark.parametrize("name", PUBLIC)
def test_every_public_module_imports_and_has_what_its_all_lists(name):
    module = importlib.import_module(name)
    assert isinstance(getattr(module, "__all__", None), list), f"{name} has no __all__"
    missing = [n for n in module.__all__ if not hasattr(module, n)]
    assert not missing, f"{name}.__all__ lists names it does not have: {missing}"
    assert len(module.__all__) == len(set(module.__all__)), name


def test_builder_network_is_networkbuilder_without_an_alias():
    from atmsim import builder

    assert "NetworkBuilder" in builder.__all__ and not hasattr(builder, "Network")


# ----- error codes -------------------------------------------------------------------------------


def _table(text: str) -> set[tuple[str, str]]:
    """(code, exception) pairs of a code table: errors.py's (reST) or api.md's (Markdown)."""
    pairs = set()
    for line in text.splitlines():
        m = re.match(r"^([a-z]+)\s{2,}([A-Z][A-Za-z]+)\s{2,}\S", line)  # reST row
        if m:
            pairs.add((m.group(1), m.group(2)))
        m = re.match(r"^\| `([a-z]+)` \| ([^|]+) \|", line)  # Markdown row
        if m:
            pairs.update((m.group(1), exc) for exc in re.findall(r"`([A-Za-z]+)`", m.group(2)))
    return pairs


DOCSTRING_TABLE = _table(atmsim.errors.__doc__ or "")
API_TABLE = _table(API)


def _codes_in_python() -> set[str]:
    codes = set()
    for path in PACKAGE.rglob("*.py"):
        text = path.read_text()
        codes |= set(re.findall(r'\bcode="([a-z]+)"', text))
        codes |= set(re.findall(r'\bdefault_code = "([a-z]+)"', text))
    return codes


def _codes_of_the_core() -> set[str]:
    """The strings the core's ErrorKind::code() returns (the binding passes them on as .code)."""
    for path in (REPO / "crates").rglob("*.rs"):
        text = path.read_text()
        m = re.search(r"fn code\(self\) -> &'static str \{(.*?)\n    \}", text, re.S)
        if m:
            return set(re.findall(r'=> "([a-z]+)"', m.group(1)))
    raise AssertionError("no ErrorKind::code() found in crates/")


def test_every_code_used_is_in_both_tables_and_nothing_else():
    used = _codes_in_python() | _codes_of_the_core()
    assert {"parse", "invalid", "internal", "interrupted", "store", "sweep", "scheduler", "study"} <= used
    assert {c for c, _ in DOCSTRING_TABLE} == used
    assert DOCSTRING_TABLE == API_TABLE


@pytest.mark.parametrize(("code", "name"), sorted(DOCSTRING_TABLE))
def test_each_documented_code_belongs_to_its_exception(code, name):
    cls = getattr(atmsim.errors, name)
    assert name in atmsim.errors.__all__ and getattr(atmsim, name) is cls
    assert issubclass(cls, atmsim.AtmsimError)
    # The class raises it by default, or the table names the class for it as well (a code
    # that its raisers pass explicitly: parse, interrupted, scheduler).
    e = cls("x", code=code)
    assert e.code == code and pickle.loads(pickle.dumps(e)).code == code
    assert (code, type(e).__name__) in DOCSTRING_TABLE


@pytest.mark.parametrize("name", [n for n in atmsim.errors.__all__ if n != "AtmsimError"])
def test_every_exception_default_code_is_documented_for_it(name):
    # AtmsimError is only the base class: nothing raises it as such.
    cls = getattr(atmsim.errors, name)
    assert (cls.default_code, name) in DOCSTRING_TABLE


def test_every_exception_lives_in_errors_py():
    """No module of the package defines an exception class of its own, but for the internal
    control flow of study.executor (RunsStopped)."""
    defined = []
    for path in PACKAGE.rglob("*.py"):
        for m in re.finditer(r"^class (\w+)\((\w*(?:Error|Exception)\w*)", path.read_text(), re.M):
            defined.append((path.relative_to(PACKAGE).as_posix(), m.group(1)))
    outside = [d for d in defined if d[0] != "errors.py"]
    assert outside == [("study/executor.py", "RunsStopped")]
