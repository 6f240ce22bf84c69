"""What the README and docs show is what atmsim does: docs/builder.md's sample errors are the
ones printed; the README's and docs' Python examples print what they compute rather than
leave a bare expression as a REPL would; `atmsim sweep --help` examples name shipped files;
every page is reachable from docs/index.md, which the README links."""

from __future__ import annotations

import ast
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PAGES = ["README.md", *(f"docs/{p.name}" for p in sorted((REPO / "docs").glob("*.md")))]


def blocks(text: str, lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", text, re.S)


def test_the_builder_page_shows_the_errors_its_example_prints(capsys):
    text = (REPO / "docs" / "builder.md").read_text()
    mistakes = text[text.index("## Mistakes"):text.index("## Ready-made networks")]
    (example,) = blocks(mistakes, "python")
    (shown,) = blocks(mistakes, "text")
    exec(compile(example, "docs/builder.md", "exec"), {"__name__": "__main__"})
    printed = capsys.readouterr().out
    assert printed == shown
    assert len(shown.splitlines()) == 2


# Calls whose value a statement may drop: they act (print, write, run a sweep, change a
# scenario in place) rather than compute something to look at.
ACTIONS = {"print", "save", "sweep", "set", "to_toml", "symlink_to"}


def bare_expressions(code: str) -> list[str]:
    """Top-level statements that compute a value and drop it (``r.connections()``, ``wide``)."""
    out = []
    for node in ast.parse(code).body:
        if not isinstance(node, ast.Expr):
            continue
        call = node.value
        name = None
        if isinstance(call, ast.Call):
            name = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", None)
        if name not in ACTIONS:
            out.append(ast.unparse(node))
    return out


# The pages whose examples are read as results to look at. builder.md and
# tutorial-internetwork.md call builders and matplotlib for their effects.
RESULT_PAGES = ["README.md", "docs/api.md", "docs/tutorial.md", "docs/results-store.md"]


@pytest.mark.parametrize("page", RESULT_PAGES)
def test_python_examples_print_instead_of_leaving_bare_expressions(page):
    text = (REPO / page).read_text()
    found = {expr for block in blocks(text, "python") for expr in bare_expressions(block)}
    assert not found, f"{page}: REPL-style lines (wrap them in print): {sorted(found)}"


def test_the_check_finds_a_repl_style_line():
    assert bare_expressions("r = f()\nr.connections()\nprint(r)\nwide\n") == ["r.connections()", "wide"]


def test_sweep_help_examples_name_shipped_scenarios():
    proc = subprocess.run([sys.executable, "-m", "atmsim", "sweep", "--help"], capture_output=True, text=True,
                          timeout=60)
    examples = [ln.strip() for ln in proc.stdout.splitlines() if ln.strip().startswith("atmsim sweep ")]
    assert len(examples) >= 2
    for line in examples:
        scenario = shlex.split(line)[2]
        assert (REPO / scenario).is_file() and not scenario.startswith("tests/"), line


@pytest.mark.parametrize("page", PAGES)
def test_no_page_runs_the_duckdb_shell_without_saying_it_is_a_separate_install(page):
    text = (REPO / page).read_text()
    for block in blocks(text, "sh"):
        assert not re.search(r"^\s*duckdb\s", block, re.M), f"{page}: runs the duckdb shell"
    for match in re.finditer(r"`duckdb [^`]*\.duckdb[^`]*`", text):
        around = text[max(0, match.start() - 300):match.end() + 300]
        assert "not installed" in around, f"{page}: {match.group(0)} without saying the shell is not installed"


def test_the_index_links_every_page_and_the_readme_links_the_index():
    index = (REPO / "docs" / "index.md").read_text()
    for page in sorted((REPO / "docs").glob("*.md")):
        if page.name != "index.md":
            assert f"]({page.name}" in index, f"docs/index.md does not link {page.name}"
    readme = (REPO / "README.md").read_text()
    assert "](docs/index.md)" in readme and "](docs/tutorial.md)" in readme and "](docs/api.md)" in readme
