"""Writing output files safely: exclusive temporaries beside the target, then an atomic rename.

Owns the rules every atmsim writer follows (``Results.save``, ``report.html`` and the
figures of ``atmsim run`` and ``atmsim reproduce``):

* a file is written under a fresh name created with ``O_EXCL | O_NOFOLLOW`` in the
  destination directory itself, fsynced, then renamed over the final name with
  :func:`os.replace`. A symlink planted in the output directory is replaced, never written
  through, and the rename never crosses a filesystem (an output directory may be a mount
  point);
* directories and files get the usual permissions (``0o777``/``0o666`` less the umask, so
  0755/0644 under umask 022), as ``mkdir``/``open`` would create them;
* :func:`check_writable` tells, before a long simulation, whether its output can be written.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import IO

__all__ = ["atomic_file", "check_writable", "create_temp", "make_temp_dir"]

_TEMP_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
_ATTEMPTS = 100


def create_temp(directory: Path, prefix: str) -> tuple[int, Path]:
    """Create a new, empty file ``directory/PREFIX<random>.tmp`` (mode 0o666 less the umask)
    that did not exist before, and return its open descriptor and path."""
    for _ in range(_ATTEMPTS):
        path = directory / f"{prefix}{secrets.token_hex(6)}.tmp"
        try:
            return os.open(path, _TEMP_FLAGS, 0o666), path
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "could not create a temporary file", str(directory))


def make_temp_dir(parent: Path, prefix: str) -> Path:
    """Create a new directory ``parent/PREFIX<random>`` (mode 0o777 less the umask)."""
    for _ in range(_ATTEMPTS):
        path = parent / f"{prefix}{secrets.token_hex(6)}"
        try:
            os.mkdir(path, 0o777)
            return path
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "could not create a temporary directory", str(parent))


@contextlib.contextmanager
def atomic_file(path: str | Path, mode: str = "wb") -> Iterator[IO]:
    """Open a temporary file beside ``path`` for writing; on success it replaces ``path``.

    If the block raises, ``path`` is left as it was and the temporary is removed.
    """
    path = Path(path)
    fd, tmp = create_temp(path.parent, f".{path.name}.")
    try:
        with os.fdopen(fd, mode, encoding=None if "b" in mode else "utf-8") as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_text_atomic(path: str | Path, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` through :func:`atomic_file`: a planted symlink is
    replaced, never followed, and a failed write leaves ``path`` as it was."""
    with atomic_file(path, "w") as f:
        f.write(text)
    return Path(path)


def check_writable(out_dir: str | Path) -> None:
    """Raise :class:`OSError` (naming the path) unless files can be written in ``out_dir``.

    If ``out_dir`` does not exist yet, its nearest existing ancestor must be a directory
    where one can be created. Nothing is left behind: the probe is created and removed.
    """
    out = Path(out_dir)
    probe = out
    while not os.path.lexists(probe) and probe.parent != probe:
        probe = probe.parent
    if not probe.is_dir():
        raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(probe))
    try:
        if probe == out:
            fd, tmp = create_temp(out, ".atmsim-write-test-")
            os.close(fd)
            tmp.unlink()
        else:
            os.rmdir(make_temp_dir(probe, ".atmsim-write-test-"))
    except OSError as exc:  # name the directory, not the probe
        raise type(exc)(exc.errno, exc.strerror or str(exc), str(probe)) from None
