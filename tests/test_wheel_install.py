"""A wheel installed with pip into a fresh environment runs a study from outside the repository:
the scenario files travel inside the package (atmsim.study.resources).

The wheel is built with maturin as a user would (``maturin build --release``; cargo reuses
``CARGO_TARGET_DIR`` or the repository's ``target/``, where ``make setup`` built the same
crate). The fresh environment has no pip of its own and no access to the repository: the
wheel goes in with ``pip --python``, and its dependencies are the development environment's,
made visible by a path file (which adds that site-packages directory but not its path files,
so the repository's editable install stays out of sight).
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

from atmsim.study import Kind, read_verdicts

REPO = Path(__file__).resolve().parents[1]


def test_a_wheel_installed_in_a_fresh_venv_runs_a_study_from_another_directory(tmp_path):
    dist = tmp_path / "dist"
    build = subprocess.run([str(Path(sys.executable).with_name("maturin")), "build", "--release", "-o", str(dist),
                            "-i", sys.executable], cwd=REPO, capture_output=True, text=True, timeout=1800)
    assert build.returncode == 0, build.stderr[-3000:]
    (wheel,) = dist.glob("atmsim-*.whl")

    env_dir = tmp_path / "env"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    site = Path(subprocess.check_output([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                        text=True).strip())
    (site / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    install = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index",
                              "-q", str(wheel)], capture_output=True, text=True, timeout=600)
    assert install.returncode == 0, install.stderr[-3000:]

    work = tmp_path / "elsewhere"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    where = subprocess.check_output([str(python), "-c", "import atmsim; print(atmsim.__file__)"], cwd=work, env=env,
                                    text=True).strip()
    assert Path(where).is_relative_to(env_dir), where  # the wheel's package, not the repository's
    run = subprocess.run([str(env_dir / "bin" / "atmsim"), "reproduce", "kalampoukas97", "--quiet", "--out", "out"],
                         cwd=work, env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=900)
    assert run.returncode == 0, run.stderr[-3000:]
    assert (work / "out" / "report.html").is_file()
    verdicts = read_verdicts(work / "out")
    assert any(v.kind is Kind.VALIDATED for v in verdicts) and len(verdicts) >= 18
