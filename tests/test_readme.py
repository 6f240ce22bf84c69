"""The README's Python examples run as written, and its cross-references lead somewhere."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
README = (REPO / "README.md").read_text()
BLOCKS = re.findall(r"```python\n(.*?)```", README, re.S)
# The Dask example starts a cluster of worker processes: it runs as a script, in
# test_readme_dask.py.
IN_PROCESS = [b for b in BLOCKS if "LocalCluster" not in b]
SWEEP_BLOCK = next(b for b in BLOCKS if "atmsim.sweep(" in b and "LocalCluster" not in b)


def test_readme_has_python_examples():
    assert len(IN_PROCESS) >= 2 and len(BLOCKS) > len(IN_PROCESS)


def _exec(block: str, tmp_path, monkeypatch) -> dict:
    (tmp_path / "scenarios").symlink_to(REPO / "scenarios")
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": "__main__"}
    exec(compile(block, "README.md", "exec"), namespace)
    return namespace


@pytest.mark.parametrize("block", IN_PROCESS, ids=[f"block{i}" for i in range(len(IN_PROCESS))])
def test_readme_example_runs(block, tmp_path, monkeypatch):
    _exec(block, tmp_path, monkeypatch)


def test_readme_sweep_example_spreads_over_seeds(tmp_path, monkeypatch):
    """The sweep example's metrics differ between seeds, so its report shows real intervals."""
    wide = _exec(SWEEP_BLOCK, tmp_path, monkeypatch)["wide"]
    param = next(c for c in wide.columns if "[" in c and "." in c and not c.startswith(("conn:", "port:")))
    spread = wide.groupby(param)["conn:t1.goodput_bps"].std()
    assert len(spread) >= 3 and (spread > 0).all(), spread


def _anchor(heading: str) -> str:
    """GitHub's anchor for a heading."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _headings(text: str) -> list[str]:
    return [h.strip() for h in re.findall(r"^#+ (.+)$", text, re.M)]


@pytest.mark.parametrize("doc", ["README.md", *(f"docs/{p.name}" for p in sorted((REPO / "docs").glob("*.md")))])
def test_section_references_exist(doc):
    """Every `see "Section"` names a heading of the same file, and every relative link
    (with its #anchor) points to a file and heading that exist."""
    path = REPO / doc
    text = path.read_text()
    for name in re.findall(r'see "([^"]+)"', text):
        assert name in _headings(text), f'{doc}: see "{name}": no such section'
    for target in re.findall(r"\]\(([^)]+)\)", text):
        if re.match(r"[a-z]+:", target):
            continue
        file, _, anchor = target.partition("#")
        linked = (path.parent / file) if file else path
        assert linked.exists(), f"{doc}: link to missing {target}"
        if anchor:
            assert anchor in [_anchor(h) for h in _headings(linked.read_text())], f"{doc}: no section #{anchor}"


def test_readme_points_to_no_section_above_that_is_not_there():
    """ "(see above)" in the list of known differences once pointed to sections that were
    gone; pointers there now name the report that holds the explanation."""
    known = README[README.index("## Known differences") :]
    assert "above)" not in known
