"""The README's Dask example runs when saved as a script (Dask's worker processes import
the script again: without its ``if __name__ == "__main__":`` guard each would start a
cluster of its own)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
BLOCK = next(b for b in re.findall(r"```python\n(.*?)```", (REPO / "README.md").read_text(), re.S) if "LocalCluster" in b)


def test_readme_dask_example_guards_its_cluster():
    assert 'if __name__ == "__main__":' in BLOCK


def test_readme_dask_example_runs_as_a_script(tmp_path):
    pytest.importorskip("distributed")
    duckdb = pytest.importorskip("duckdb")
    (tmp_path / "scenarios").symlink_to(REPO / "scenarios")
    script = tmp_path / "dask_example.py"
    script.write_text(BLOCK)
    proc = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr
    seeds = re.search(r'seeds="(\d+)-(\d+)"', BLOCK)
    expected = int(seeds.group(2)) - int(seeds.group(1)) + 1
    con = duckdb.connect(str(tmp_path / "dask.duckdb"), read_only=True)
    try:
        assert con.execute("SELECT count(*) FROM runs WHERE status = 'ok'").fetchone()[0] == expected
    finally:
        con.close()
