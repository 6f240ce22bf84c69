"""Reliability of large and extreme scenarios: validation linear in a site's hosts, Ctrl-C
while validating, and a bounded conversation pool at the shortest arrival gap."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import atmsim
from atmsim import ScenarioError
from conftest import default_sigint

ATMSIM = Path(sys.executable).with_name("atmsim")


def sites_toml(sites: int, workstations: int, traffic: str = "") -> str:
    head = """
        [simulation]
        duration_s = 1.0
        sample_interval_ms = 0
        [signalling]
        processing_ms = 1.0
        [[switch]]
        name = "core"
    """
    site = """
        [[site]]
        name = "s{i}"
        workstations = {ws}
        servers = 2
        attach = "core"
        link_preset = "t1"
        ipoa = {{ mux = "conv", vc = "svc" }}
    """
    body = "".join(site.format(i=i, ws=workstations) for i in range(sites))
    return textwrap.dedent(head) + textwrap.dedent(body) + textwrap.dedent(traffic)


def test_a_10000_workstation_site_validates_in_under_512_mb(tmp_path: Path) -> None:
    path = tmp_path / "big.toml"
    path.write_text(sites_toml(1, 10_000))
    probe = textwrap.dedent(
        f"""
        import resource, time
        from atmsim import Scenario
        t = time.perf_counter()
        Scenario.from_toml({str(path)!r}).validate()
        print(time.perf_counter() - t, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
        """
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                         preexec_fn=default_sigint).stdout.split()
    wall_s, peak_kib = float(out[0]), int(out[1])
    assert peak_kib < 512 * 1024, f"peak RSS {peak_kib // 1024} MiB"
    assert wall_s < 10.0, f"validation took {wall_s:.1f} s"


def test_validation_memory_grows_linearly_with_the_hosts_of_a_site(tmp_path: Path) -> None:
    probe = textwrap.dedent(
        """
        import resource, sys
        from atmsim import Scenario
        Scenario.from_toml(sys.argv[1]).validate()
        print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
        """
    )
    peaks = []
    for ws in (20_000, 80_000):
        path = tmp_path / f"ws{ws}.toml"
        path.write_text(sites_toml(1, ws))
        out = subprocess.run([sys.executable, "-c", probe, str(path)], capture_output=True, text=True, check=True)
        peaks.append(int(out.stdout))
    # Four times the hosts: at most about four times the memory (quadratic would be sixteen).
    assert peaks[1] < 5 * peaks[0], peaks


def test_ctrl_c_two_seconds_into_validating_a_large_internetwork_ends_within_a_second(tmp_path: Path) -> None:
    path = tmp_path / "huge.toml"
    # 1,600,032 hosts: several seconds to validate, so the interrupt at 2 s lands well before
    # the command ends (500,010 hosts could be done in under 3 s, and then it exited 0).
    path.write_text(sites_toml(16, 100_000))
    proc = subprocess.Popen([str(ATMSIM), "check", str(path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=default_sigint)
    time.sleep(2.0)
    assert proc.poll() is None, f"validation ended before the interrupt: {proc.communicate()}"
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    took = time.monotonic() - sent
    assert took < 1.0, f"ended {took:.2f} s after Ctrl-C"
    assert proc.returncode == 130
    assert out == ""
    assert err.splitlines() == ["error: interrupted"], err  # check writes nothing, so says nothing of results


def test_ctrl_c_while_validating_from_python_raises_keyboard_interrupt(tmp_path: Path) -> None:
    path = tmp_path / "huge.toml"
    path.write_text(sites_toml(2, 100_000))
    probe = textwrap.dedent(
        f"""
        import os, signal, threading, time
        from atmsim import Scenario
        s = Scenario.from_toml({str(path)!r})
        threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
        t = time.monotonic()
        try:
            s.validate()
            print("validated", time.monotonic() - t)
        except KeyboardInterrupt:
            print("interrupted", time.monotonic() - t)
        """
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                         preexec_fn=default_sigint).stdout.split()
    assert out[0] == "interrupted", out
    assert float(out[1]) < 1.3, out


SHORTEST_GAP = """
    [[traffic]]
    name = "telnet"
    app = {{ kind = "telnet" }}
    mean_interarrival_s = 1e-6
    {bound}
"""


def test_the_shortest_arrival_gap_fills_a_bounded_pool_and_skips_the_rest() -> None:
    text = sites_toml(2, 20, SHORTEST_GAP.format(bound="max_open = 50")).replace("duration_s = 1.0", "duration_s = 0.01")
    summary = atmsim.Scenario.from_str(text).run().summary
    (gen,) = summary["traffic"]
    assert gen["max_open"] == 50
    assert gen["started"] >= 50
    # About 10,000 arrivals in 10 ms; all but the conversations the pool could hold skipped.
    assert gen["skipped"] > 9_000
    assert gen["started"] + gen["skipped"] > 9_500


def test_the_default_pool_bound_holds_at_the_shortest_arrival_gap(tmp_path: Path) -> None:
    text = sites_toml(2, 20, SHORTEST_GAP.format(bound="")).replace("duration_s = 1.0", "duration_s = 0.03")
    summary = atmsim.Scenario.from_str(text).run().summary
    (gen,) = summary["traffic"]
    assert gen["max_open"] == 10_000
    assert gen["skipped"] > 10_000


@pytest.mark.parametrize("bad", [0, -1, 1_000_001])
def test_a_pool_bound_out_of_range_is_refused_naming_the_field(bad: int) -> None:
    text = sites_toml(1, 2, SHORTEST_GAP.format(bound=f"max_open = {bad}"))
    with pytest.raises(ScenarioError) as e:
        atmsim.Scenario.from_str(text, origin="pool.toml").validate()
    assert e.value.field == "traffic[0].max_open"
    assert "between 1 and 1000000" in e.value.message
