"""docs/tutorial-internetwork.md runs as written: its command, its Python blocks in order, and
the output each block prints is the ```text block after it (the three that print). Then the claims its prose makes
about svc and svccache are checked on the runs themselves."""

from __future__ import annotations

import contextlib
import io
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
DOC = REPO / "docs" / "tutorial-internetwork.md"
ATMSIM = Path(sys.executable).with_name("atmsim")


def blocks() -> list[tuple[str, str | None]]:
    """(Python code, the text block after it or None), in document order; one line of
    prose may stand between them."""
    text = DOC.read_text()
    found = re.findall(r"```python\n(.*?)```\n+(?:(?:[^`\n][^\n]*\n+)?```text\n(.*?)```)?", text, re.S)
    return [(code, out or None) for code, out in found]


@pytest.fixture(scope="module")
def tutorial(tmp_path_factory) -> dict:
    """Run the tutorial in a fresh directory; the namespace of its Python blocks."""
    work = tmp_path_factory.mktemp("tutorial")
    (work / "scenarios").symlink_to(REPO / "scenarios")
    subprocess.run(
        [str(ATMSIM), "run", "scenarios/internetwork/two_sites.toml", "--out", "out/two_sites", "--no-plot", "-q"],
        cwd=work,
        check=True,
    )
    namespace: dict = {"__name__": "__main__", "printed": []}
    with contextlib.chdir(work):
        for code, _ in blocks():
            buf = io.StringIO()
            with contextlib.redirect_stdout(buf):
                exec(compile(code, str(DOC), "exec"), namespace)
            namespace["printed"].append(buf.getvalue())
    namespace["work"] = work
    return namespace


def test_the_tutorial_has_its_blocks():
    b = blocks()
    assert len(b) == 4 and sum(out is not None for _, out in b) == 3


def test_each_block_prints_what_the_tutorial_shows(tutorial):
    for (code, expected), printed in zip(blocks(), tutorial["printed"]):
        if expected is not None:
            assert printed == expected, (
                f"the block starting {code.splitlines()[0]!r} now prints:\n{printed}\n"
                "update docs/tutorial-internetwork.md (text, tables and figure) from a fresh run"
            )


def test_the_figure_block_draws_the_figure(tutorial):
    assert (tutorial["work"] / "svc_vs_svccache.png").stat().st_size > 10_000
    assert (REPO / "docs" / "tutorial-internetwork" / "svc_vs_svccache.png").exists()


def test_the_cache_saves_setups_on_the_same_conversations(tutorial):
    wide = tutorial["wide"]
    # Common random numbers: the same conversations under both policies, seed by seed.
    assert (wide["conversations"]["svc"] == wide["conversations"]["svccache"]).all()
    # Fewer setups in every seed, and hits where svc has none.
    assert (wide["setups"]["svccache"] < wide["setups"]["svc"]).all()
    assert (wide["cache_hits"]["svccache"] > 0).all() and (wide["cache_hits"]["svc"] == 0).all()
    assert (wide["sig_messages"]["svccache"] * 10 < wide["sig_messages"]["svc"]).all()
    # Short conversations get shorter in every seed; TELNET's medians do not move.
    assert (wide["smtp_mean_s"]["svccache"] < wide["smtp_mean_s"]["svc"]).all()
    assert (wide["telnet_median_s"]["svccache"] == wide["telnet_median_s"]["svc"]).all()


def test_a_remote_conversation_waits_two_setups_under_svc(tutorial):
    """Seed 1's SMTP median is a conversation across the backbone: svc adds two signalling
    round trips of 81.3 ms (the tutorial's closed form)."""
    t1_cell = 424 / 1.536e6
    setup = 2 * (35e-3 + 4 * 1e-3) + 12 * t1_cell
    assert setup == pytest.approx(81.3e-3, abs=0.05e-3)
    runs = tutorial["runs"]
    one = runs[runs.seed == 1].set_index("vc")
    delta = one.loc["svc", "smtp_median_s"] - one.loc["svccache", "smtp_median_s"]
    assert delta == pytest.approx(2 * setup, abs=1e-3)
    # The voice stream's first datagram waits one setup on an otherwise idle path.
    assert one.loc["svc", "voice_max_ms"] * 1e-3 >= 37.26e-3 + setup - 1e-5
