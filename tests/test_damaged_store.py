"""A damaged results store (truncated, bit-flipped, zero-length, a text file, or a store of
another schema version) is reported in one line naming the file, exit code 2, by every
command that opens a store (`atmsim sweep`, `atmsim report`, `atmsim reproduce STUDY
--store` for every study) and as a StoreError by `atmsim.results()`, and left exactly as it was: same
bytes, same mtime, nothing created beside it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import atmsim
import atmsim.reproduce
from atmsim._query import summaries
from atmsim._store import StoreError
from atmsim.errors import AtmsimError

REPO = Path(__file__).resolve().parent.parent
TINY = REPO / "tests" / "data" / "tiny.toml"
BLOCK = 256 * 1024  # DuckDB's block size; every block carries a checksum


def atmsim_cli(*args: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "atmsim", *args],
        capture_output=True, text=True, cwd=cwd, stdin=subprocess.DEVNULL, timeout=120,
    )


@pytest.fixture(scope="module")
def good_store(tmp_path_factory) -> Path:
    store = tmp_path_factory.mktemp("good") / "results.duckdb"
    atmsim.sweep(TINY, grid={"tcp[0].window_bytes": [4096, 8192]}, seeds=[1, 2], store=store, jobs=0)
    return store


def _truncated(data: bytes) -> bytes:
    return data[: len(data) // 2]


def _bit_flipped(data: bytes) -> bytes:
    """One bit flipped in the middle of every block (the catalogue and data blocks among them)."""
    out = bytearray(data)
    for offset in range(12288 + BLOCK // 2, len(out), BLOCK):
        out[offset] ^= 0x10
    return bytes(out)


def _schema_99(path: Path) -> None:
    import duckdb

    con = duckdb.connect(str(path))
    con.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    con.close()


def _bytes(damage):
    return lambda path: path.write_bytes(damage(path.read_bytes()))


DAMAGE = {
    "truncated": _bytes(_truncated),
    "bit_flipped": _bytes(_bit_flipped),
    "zero_length": _bytes(lambda _data: b""),
    "text_file": _bytes(lambda _data: b"run_id,goodput\n1,2\n" * 20),
    "schema_99": _schema_99,
}


@pytest.fixture(params=sorted(DAMAGE))
def damaged(request, good_store, tmp_path) -> Path:
    """A damaged copy of a real store, alone in its directory (mtime set in the past)."""
    directory = tmp_path / "store"
    directory.mkdir()
    store = directory / "results.duckdb"
    shutil.copy(good_store, store)
    DAMAGE[request.param](store)
    os.utime(store, ns=(1_500_000_000_000_000_000, 1_500_000_000_000_000_000))
    return store


def _snapshot(directory: Path) -> dict[str, tuple[bytes, int]]:
    return {str(p.relative_to(directory)): (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(directory.rglob("*"))}


def assert_one_line_naming(proc: subprocess.CompletedProcess, store: Path) -> None:
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    assert str(store) in lines[0]
    assert "Traceback" not in proc.stdout + proc.stderr


def test_the_bit_flipped_copy_differs_and_the_good_store_reads(good_store):
    data = good_store.read_bytes()
    assert len(data) > 12288 + BLOCK and _bit_flipped(data) != data
    assert len(atmsim.results(store=good_store, wide=True)) == 4


def test_sweep_into_a_damaged_store_is_one_line_and_touches_nothing(damaged):
    before = _snapshot(damaged.parent)
    proc = atmsim_cli("sweep", str(TINY), "-g", "tcp[0].window_bytes=4096", "--seeds", "1", "--store", str(damaged), "-q")
    assert_one_line_naming(proc, damaged)
    assert _snapshot(damaged.parent) == before  # no .wal, no series directory, same bytes and mtime


def test_python_sweep_into_a_damaged_store_raises_store_error_and_touches_nothing(damaged):
    before = _snapshot(damaged.parent)
    with pytest.raises(StoreError) as info:
        atmsim.sweep(TINY, grid={"tcp[0].window_bytes": [4096]}, seeds=[1], store=damaged, jobs=0)
    assert isinstance(info.value, AtmsimError)
    assert info.value.file == str(damaged.absolute())
    assert _snapshot(damaged.parent) == before


def test_report_of_a_damaged_store_is_one_line_and_writes_nothing(damaged, tmp_path):
    before = _snapshot(damaged.parent)
    out = tmp_path / "report"
    proc = atmsim_cli("report", str(damaged), "--out", str(out))
    assert_one_line_naming(proc, damaged)
    assert not out.exists()
    assert _snapshot(damaged.parent) == before


STUDY_OPTIONS = {"mah96": ["--configs", "noqos-conv-svc"]}


@pytest.mark.parametrize("study", sorted(atmsim.reproduce.STUDIES))
def test_reproduce_into_a_damaged_store_is_one_line_and_touches_nothing(study, damaged, tmp_path):
    before = _snapshot(damaged.parent)
    out = tmp_path / study
    proc = atmsim_cli("reproduce", study, *STUDY_OPTIONS.get(study, []), "--jobs", "0", "--store", str(damaged),
                      "--out", str(out), "-q")
    assert_one_line_naming(proc, damaged)
    assert not (out / "report.html").exists()
    assert _snapshot(damaged.parent) == before


def test_results_of_a_damaged_store_raise_store_error(damaged):
    before = _snapshot(damaged.parent)
    for read in (lambda: atmsim.results(store=damaged), lambda: atmsim.results(store=damaged, wide=True),
                 lambda: summaries(["0123456789abcdef"], store=damaged)):
        with pytest.raises(StoreError) as info:
            read()
        assert isinstance(info.value, AtmsimError)
        assert str(damaged.name) in str(info.value) and "\n" not in str(info.value)
    assert _snapshot(damaged.parent) == before


def test_a_duckdb_file_that_is_not_a_results_store_is_refused_untouched(tmp_path):
    import duckdb

    other = tmp_path / "other.duckdb"
    con = duckdb.connect(str(other))
    con.execute("CREATE TABLE runs (x INTEGER)")
    con.close()
    before = _snapshot(tmp_path)
    proc = atmsim_cli("sweep", str(TINY), "-g", "tcp[0].window_bytes=4096", "--store", str(other), "-q")
    assert_one_line_naming(proc, other)
    assert "not an atmsim results store" in proc.stderr
    assert _snapshot(tmp_path) == before


def test_another_schema_version_is_named_as_such_by_every_reader(good_store, tmp_path):
    store = tmp_path / "results.duckdb"
    shutil.copy(good_store, store)
    _schema_99(store)
    expected = (f"error: {store}: results store schema version '99', this atmsim reads and writes version 2 "
                "(and upgrades version 1)")
    assert atmsim_cli("report", str(store), "--out", str(tmp_path / "r")).stderr.splitlines() == [expected]
    with pytest.raises(StoreError, match="schema version '99'"):
        atmsim.results(store=store)


def test_a_store_copied_whole_still_resumes(good_store, tmp_path):
    # The check reads every table in full: an undamaged store must pass it.
    store = tmp_path / "results.duckdb"
    shutil.copy(good_store, store)
    summary = atmsim.sweep(TINY, grid={"tcp[0].window_bytes": [4096, 8192]}, seeds=[1, 2, 3], store=store, jobs=0)
    assert (summary.total, summary.skipped, summary.ok) == (6, 4, 2)
