"""docs/api.md documents every public name of `atmsim` and every public method of
`Scenario` and `Results`; each has a docstring of its own; the page's examples run."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

import atmsim

REPO = Path(__file__).resolve().parent.parent
API = (REPO / "docs" / "api.md").read_text()
HEADINGS = re.findall(r"^#+ (.+)$", API, re.M)


def own_doc(obj) -> str:
    """The docstring ``obj`` itself defines (a class's, not one inherited from its base)."""
    if inspect.isclass(obj):
        return obj.__dict__.get("__doc__") or ""
    return obj.__doc__ or ""


@pytest.mark.parametrize("name", atmsim.__all__)
def test_every_public_name_has_a_heading_in_the_api_page(name):
    assert f"`atmsim.{name}`" in HEADINGS, f"docs/api.md has no heading for atmsim.{name}"


@pytest.mark.parametrize("name", [n for n in atmsim.__all__ if n != "__version__"])
def test_every_public_name_has_a_docstring_of_its_own(name):
    # __version__ is a str: it has no docstring of its own, only its heading.
    doc = own_doc(getattr(atmsim, name))
    assert len(doc.strip()) >= 60, f"atmsim.{name}: docstring {doc!r}"


@pytest.mark.parametrize("cls", [atmsim.Scenario, atmsim.Results])
def test_every_public_method_is_documented_in_code_and_on_the_page(cls):
    for name, member in inspect.getmembers(cls):
        if name.startswith("_") or name == "from_core":  # from_core: the binding's hand-off
            continue
        assert (member.__doc__ or "").strip(), f"{cls.__name__}.{name} has no docstring"
        assert re.search(rf"`[^`]*\b{name}\b[^`]*`", API), f"docs/api.md does not mention {cls.__name__}.{name}"


def test_the_scenario_docstring_says_how_to_make_check_and_run_one():
    doc = own_doc(atmsim.Scenario)
    for part in ("from_toml", "from_str", "from_dict", "get", "set", "validate", "run", "ScenarioError"):
        assert part in doc, part


BLOCKS = re.findall(r"```python\n(.*?)```", API, re.S)


@pytest.mark.parametrize("block", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_the_api_page_examples_run_and_print(block, tmp_path, monkeypatch, capsys):
    (tmp_path / "scenarios").symlink_to(REPO / "scenarios")
    monkeypatch.chdir(tmp_path)
    exec(compile(block, "docs/api.md", "exec"), {"__name__": "__main__"})
    assert capsys.readouterr().out.strip(), "an example should print what it computes"
