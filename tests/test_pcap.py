"""``[[capture]]`` pcap files, read back by the real tshark.

tshark comes from Debian's packages (``make tools``, run by ``make test``). Without it these
tests skip, except under CI, where they fail: there the Makefile must have installed it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import atmsim
from atmsim import Results

SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"
TSHARK = shutil.which("tshark")
needs_tshark = pytest.mark.skipif(
    TSHARK is None and not os.environ.get("CI"), reason="tshark not installed (make tools installs it)"
)

# Documented scheme: host i -> 10.0.0.(i+1); connection k: client port 1024+k, server 5001.
DEC1, SPARC = "10.0.0.1", "10.0.0.3"


def tshark(pcap, *args: str) -> list[str]:
    """Run tshark over a capture with TCP analysis on relative sequence numbers and
    checksum validation on; return its output lines."""
    if TSHARK is None:
        pytest.fail("tshark is not installed: `make tools` should have installed it under CI")
    proc = subprocess.run(
        [
            TSHARK,
            "-n",
            "-r",
            str(pcap),
            "-o",
            "tcp.relative_sequence_numbers:TRUE",
            "-o",
            "tcp.check_checksum:TRUE",
            "-o",
            "ip.check_checksum:TRUE",
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.splitlines()


def count(pcap, display_filter: str) -> int:
    return len(tshark(pcap, "-Y", display_filter, "-T", "fields", "-e", "frame.number"))


def contention(duration_s: float = 4.0) -> atmsim.Scenario:
    """The lossy contention example, shortened, captured at the sender dec1 and the sink."""
    s = atmsim.Scenario.from_toml(SCENARIOS / "examples" / "contention_tcp.toml")
    s.set("simulation.duration_s", duration_s).set("simulation.warmup_s", 0.0)
    s.set("capture", [{"host": "dec1"}, {"host": "sparc", "name": "sink", "snaplen_bytes": 128}])
    return s


@pytest.fixture(scope="module")
def lossy(tmp_path_factory):
    """(Results, directory with the saved run)."""
    r = contention().run(seed=1)
    out = tmp_path_factory.mktemp("lossy") / "run"
    r.save(out)
    return r, out


def test_captures_come_back_and_are_saved(lossy):
    r, out = lossy
    assert set(r.captures) == {"dec1", "sink"}
    assert [c["name"] for c in r.summary["captures"]] == ["dec1", "sink"]
    for name, data in r.captures.items():
        assert data[:4] == bytes.fromhex("4d3cb2a1")  # nanosecond pcap, little-endian
        assert (out / f"{name}.pcap").read_bytes() == data
    assert Results.load(out).captures == r.captures


@needs_tshark
@pytest.mark.parametrize("name", ["dec1", "sink"])
def test_tshark_reads_every_packet_and_flags_nothing(lossy, name):
    r, out = lossy
    pcap = out / f"{name}.pcap"
    summ = next(c for c in r.summary["captures"] if c["name"] == name)
    assert summ["packets"] > 100
    assert len(tshark(pcap, "-T", "fields", "-e", "frame.number")) == summ["packets"]
    # Every packet is IPv4/TCP between the documented addresses and ports.
    assert count(pcap, "ip && tcp && tcp.port == 5001") == summ["packets"]
    # Nothing malformed, no checksum error (validation is on), no expert info at error
    # level. (TCP analysis infos such as retransmissions are notes/warnings, not errors.)
    assert tshark(pcap, "-Y", "_ws.malformed || _ws.expert.severity >= error") == []
    # Checksum status 1 is "Good"; tshark can verify a TCP checksum only on a packet
    # captured whole (data segments are cut to the snap length: see the full-size test).
    assert count(pcap, "ip.checksum.status == 1") == summ["packets"]
    whole = count(pcap, "frame.len == frame.cap_len")
    assert whole > 0 and count(pcap, "frame.len == frame.cap_len && tcp.checksum.status == 1") == whole


@needs_tshark
def test_tcp_checksums_verify_on_whole_data_segments(tmp_path):
    s = contention(0.1).set("capture", [{"host": "dec1", "snaplen_bytes": 65535}])
    r = s.run()
    pcap = tmp_path / "dec1.pcap"
    pcap.write_bytes(r.captures["dec1"])
    n = r.summary["captures"][0]["packets"]
    assert count(pcap, "tcp.len == 9140 && frame.cap_len == 9180") > 0
    assert count(pcap, "tcp.checksum.status == 1 && ip.checksum.status == 1") == n


@needs_tshark
def test_headers_follow_the_documented_scheme(lossy):
    _, out = lossy
    fields = ["ip.src", "ip.dst", "tcp.srcport", "tcp.dstport", "tcp.flags.syn", "tcp.options.mss_val", "tcp.options.wscale.shift"]
    first = tshark(out / "dec1.pcap", "-c", "2", "-T", "fields", *[a for f in fields for a in ("-e", f)])
    assert first[0].split("\t") == [DEC1, SPARC, "1024", "5001", "1", "9140", "2"]
    assert first[1].split("\t")[:5] == [SPARC, DEC1, "5001", "1024", "1"]
    # The second connection (k = 1, from dec2 = 10.0.0.2) reaches the sink from port 1025.
    assert count(out / "sink.pcap", "ip.src == 10.0.0.2 && tcp.srcport == 1025 && tcp.dstport == 5001") > 0
    # Data segments: 9180-byte datagrams (MSS 9140), cut to the snap length.
    lens = tshark(out / "sink.pcap", "-Y", "tcp.len > 0", "-T", "fields", "-e", "frame.len", "-e", "frame.cap_len", "-e", "ip.len")
    assert lens and set(lens) == {"9180\t128\t9180"}


@needs_tshark
def test_tshark_tcp_analysis_agrees_with_the_sender_counters(lossy):
    """At the sender's interface tshark sees every segment it sent and every ACK it got.

    * Retransmissions: atmsim counts (``rexmt_segs``) every data segment sent below
      snd_max (BSD's tcpstat.tcps_sndrexmitpack), excluding 1-byte persist probes;
      tshark flags a data segment below the highest sequence seen as a retransmission or
      a fast retransmission (after duplicate ACKs). Identical here: the adapter queue is
      unlimited (a datagram refused by a full adapter would be counted by TCP but never
      captured) and persist probes never happen with this window.
    * Duplicate ACKs: atmsim counts (``dup_acks_rcvd``) pure ACKs at or below snd_una that
      leave the window unchanged (tcp_input's "completely duplicate ack"); tshark flags a
      pure ACK (no SYN/FIN/RST) repeating the previous ACK number and window. The two
      definitions would part only on ACKs reordered in flight (older than snd_una), which
      one FIFO VC never does.
    """
    r, out = lossy
    t1 = r.summary["connections"][0]
    assert (t1["client"], t1["server"]) == ("dec1", "sparc")
    # The run must exercise both recovery paths for the comparison to mean something.
    assert t1["fast_retransmits"] > 0 and t1["timeouts"] > 0 and t1["dup_acks_rcvd"] > 0
    pcap = out / "dec1.pcap"
    sent = f"ip.src == {DEC1}"
    rexmt = count(pcap, f"{sent} && (tcp.analysis.retransmission || tcp.analysis.fast_retransmission)")
    assert rexmt == t1["rexmt_segs"]
    assert count(pcap, f"{sent} && tcp.analysis.fast_retransmission") == t1["fast_retransmits"]
    dup = count(pcap, f"ip.dst == {DEC1} && tcp.analysis.duplicate_ack")
    assert dup == t1["dup_acks_rcvd"]
    # And the whole capture is t1 as the sender saw it.
    assert count(pcap, sent) == t1["segs_sent"]


def test_same_seed_gives_identical_pcap_bytes():
    s = contention(1.0)
    a, b = s.run(seed=5), s.run(seed=5)
    assert a.captures == b.captures
    assert s.run(seed=6).captures["dec1"] != a.captures["dec1"]


def test_resaving_replaces_captures_and_removes_stale_ones(tmp_path):
    s = contention(0.3)
    out = tmp_path / "run"
    s.run().save(out)
    assert {p.name for p in out.glob("*.pcap")} == {"dec1.pcap", "sink.pcap"}
    s.set("capture", [{"host": "dec2"}])
    r = s.run()
    r.save(out)
    assert {p.name for p in out.glob("*.pcap")} == {"dec2.pcap"}
    assert (out / "dec2.pcap").read_bytes() == r.captures["dec2"]


def test_atmsim_run_writes_the_pcap_files(tmp_path):
    scenario = tmp_path / "cap.toml"
    scenario.write_text(contention(0.2).to_toml())
    out = tmp_path / "out"
    proc = subprocess.run(
        [sys.executable, "-m", "atmsim", "run", str(scenario), "--out", str(out), "--no-plot", "--quiet"],
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 0, proc.stderr
    assert (out / "dec1.pcap").stat().st_size > 24 and (out / "sink.pcap").stat().st_size > 24
