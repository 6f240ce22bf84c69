"""Output safety: `run --out`, Results.save and the run report write through exclusive
temporaries in the destination and atomic renames, check --out before simulating, never
follow a symlink planted in the output directory and create folders and files with the
usual, umask-governed permissions."""

from __future__ import annotations

import errno
import os
import stat
import sys
from pathlib import Path

import pytest

import atmsim
from atmsim import Results
from atmsim._output import check_writable
from atmsim._plots import write_run_report
from atmsim._run_results import SERIES_FILE, SUMMARY_FILE
from conftest import in_own_mount_namespace

REPO = Path(__file__).resolve().parent.parent
GREEDY = REPO / "scenarios" / "examples" / "greedy_rr.toml"
RUN_FILES = [SUMMARY_FILE, SERIES_FILE, "report.html", "cwnd.png", "queues.png"]


@pytest.fixture
def fake_core(monkeypatch, sample_core_output):
    """_core.run returns the sample output and records that it ran; validate accepts."""
    calls: list[str] = []

    def run(text, fmt="toml", origin="<string>", *, seed=None, batching=None, progress=None):
        calls.append(origin)
        return sample_core_output

    monkeypatch.setattr(atmsim._core, "run", run)
    monkeypatch.setattr(atmsim._core, "validate", lambda text, fmt="toml", origin="<string>": None)
    return calls


def invoke(*args: str):
    from click.testing import CliRunner

    from atmsim.cli import app

    return CliRunner().invoke(app, list(args))


def scenario_file(tmp_path: Path) -> Path:
    path = tmp_path / "w64k.toml"
    path.write_text("[simulation]\nseed = 1\n")
    return path


# ----- renames never cross a filesystem ------------------------------------------------------


def test_save_into_existing_dir_renames_only_within_it(sample_results, tmp_path, monkeypatch):
    """An existing --out may be a mount point: a rename from its parent would fail with
    EXDEV, so every temporary lives in the destination directory itself."""
    out = tmp_path / "run"
    out.mkdir()
    real_replace, real_rename = os.replace, os.rename

    def same_dir_only(real):
        def move(src, dst, *args, **kwargs):
            if Path(src).parent != Path(dst).parent:
                raise OSError(errno.EXDEV, "Invalid cross-device link", str(src))
            return real(src, dst, *args, **kwargs)

        return move

    monkeypatch.setattr(os, "replace", same_dir_only(real_replace))
    monkeypatch.setattr(os, "rename", same_dir_only(real_rename))
    sample_results.save(out)
    write_run_report(sample_results, out)
    assert Results.load(out).summary == sample_results.summary
    assert sorted(p.name for p in out.iterdir()) == sorted(RUN_FILES)


def test_run_out_onto_a_mount_point(tmp_path):
    proc = in_own_mount_namespace(
        tmp_path, "rw", sys.executable, "-m", "atmsim", "run", str(GREEDY), "--out", str(tmp_path / "mnt"), "--quiet"
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines() == [f"wrote {tmp_path / 'mnt'}"]


def test_run_out_on_a_read_only_filesystem_fails_before_simulating(tmp_path):
    out = tmp_path / "mnt" / "results"
    proc = in_own_mount_namespace(tmp_path, "ro", sys.executable, "-m", "atmsim", "run", str(GREEDY), "--out", str(out))
    assert proc.returncode == 2
    # One line and no progress bar: the check came before the simulation.
    assert proc.stderr.splitlines() == [f"error: {tmp_path / 'mnt'}: read-only file system"]


# ----- --out is checked before anything runs ------------------------------------------------


@pytest.mark.parametrize("below", ["file", "file/sub"])
def test_unwritable_out_is_one_line_before_simulating(fake_core, tmp_path, below):
    (tmp_path / "file").write_text("not a directory")
    result = invoke("run", str(scenario_file(tmp_path)), "--out", str(tmp_path / below))
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [f"error: {tmp_path / 'file'}: not a directory"]
    assert fake_core == []


@pytest.mark.parametrize("exists", [True, False])
def test_check_writable_leaves_nothing_behind(tmp_path, exists):
    out = tmp_path / "a" / "b"
    if exists:
        out.mkdir(parents=True)
    check_writable(out)
    left = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*"))
    assert left == (["a", "a/b"] if exists else [])


# ----- symlinks planted in the output directory ---------------------------------------------


@pytest.mark.parametrize("new_files", [False, True], ids=["overwrite", "first-run"])
def test_symlinks_planted_in_out_are_replaced_not_followed(fake_core, tmp_path, new_files):
    out = tmp_path / "results"
    if new_files:
        out.mkdir()
    else:
        assert invoke("run", str(scenario_file(tmp_path)), "--out", str(out), "--quiet").exit_code == 0
    victims = {}
    for name in RUN_FILES:
        victim = tmp_path / f"victim-{name}"
        victim.write_text("precious")
        (out / name).unlink(missing_ok=True)
        (out / name).symlink_to(victim)
        victims[name] = victim
    result = invoke("run", str(scenario_file(tmp_path)), "--out", str(out), "--quiet")
    assert result.exit_code == 0, result.output
    for name, victim in victims.items():
        assert victim.read_text() == "precious", name
        assert not (out / name).is_symlink() and (out / name).is_file(), name
    assert Results.load(out).summary["seed"] == 7
    assert not [p.name for p in out.iterdir() if p.name.endswith(".tmp")]


def test_failed_save_leaves_no_temporaries(sample_results, tmp_path, monkeypatch):
    out = tmp_path / "run"
    sample_results.save(out)

    def boom(*args, **kwargs):
        raise OSError("disk full (simulated)")

    monkeypatch.setattr("pyarrow.parquet.write_table", boom)
    with pytest.raises(OSError, match="simulated"):
        sample_results.save(out)
    with pytest.raises(OSError, match="simulated"):
        sample_results.save(tmp_path / "new")
    assert sorted(p.name for p in out.iterdir()) == [SERIES_FILE, SUMMARY_FILE]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run"]


# ----- permissions ----------------------------------------------------------------------------


@pytest.mark.parametrize(("umask", "dir_mode", "file_mode"), [(0o022, 0o755, 0o644), (0o027, 0o750, 0o640)])
def test_output_permissions_follow_the_umask(sample_results, tmp_path, umask, dir_mode, file_mode):
    old = os.umask(umask)
    try:
        out = sample_results.save(tmp_path / "new" / "run")
        write_run_report(sample_results, out)
    finally:
        os.umask(old)
    assert stat.S_IMODE(out.stat().st_mode) == dir_mode
    assert stat.S_IMODE((tmp_path / "new").stat().st_mode) == dir_mode
    for name in RUN_FILES:
        assert stat.S_IMODE((out / name).stat().st_mode) == file_mode, name
