"""Cáceres with today's TCP (``atmsim reproduce caceres93 --tcp SPEC``; :mod:`atmsim.study.today`):
does per-VC round robin protect interactive traffic?

The answer is read at the right edge of Figures 3 and 5 (5 FTP conversations and one TELNET):
TELNET's mean echo delay [RTT] and the mean FTP throughput [fraction of the link] under each
policy. §2.4's buffers never overflow, so there the TCP only matters through slow start; the
fairness runs at a quarter of those buffers lose cells, and their FTP timeouts and short-term
Jain index are key rows too. Per-conversation channels give TELNET a round-robin share of its own; per-destination
channels put it in one FIFO queue with the FTP traffic. The numbers are
:func:`atmsim.study.today.note`'d by the study where Figures 3–5 are judged. The paper's TCP,
and BSD's here, is Tahoe."""

from __future__ import annotations

import math

from ...study.tcp_profile import TcpProfile
from ...study.today import Comparison, KeyRow, Numbers, note, than

__all__ = ["COMPARISON", "delay_key", "ftp_key", "jain_key", "note", "timeouts_key"]

POLICIES = ("per-conversation", "per-type", "per-destination")
#: Round robin "protects" TELNET when its echo delay in one shared VC is more than this many
#: times its delay in a VC of its own (the answer's wording; the numbers are given either way).
PROTECTS = 1.2


def delay_key(policy: str) -> str:
    """TELNET's echo delay at 5 FTP under ``policy`` [RTT]."""
    return f"TELNET echo delay at 5 FTP, {policy}"


def ftp_key(policy: str) -> str:
    """Mean FTP throughput at 5 FTP under ``policy`` [fraction of the link]."""
    return f"FTP throughput at 5 FTP, {policy}"


def jain_key(policy: str) -> str:
    """Short-term Jain index of the FTP goodputs at a quarter of §2.4's buffers, where cells are lost."""
    return f"FTP short-term Jain index, quarter buffers, {policy}"


def timeouts_key(policy: str) -> str:
    """FTP retransmission timeouts per run at a quarter of §2.4's buffers."""
    return f"FTP timeouts per run, quarter buffers, {policy}"


def protection(numbers: Numbers) -> float:
    """How many times longer TELNET waits in a shared channel than in its own."""
    own, shared = numbers.get(delay_key("per-conversation"), math.nan), numbers.get(delay_key("per-destination"), math.nan)
    return shared / own if own else math.nan


def answer(profile: TcpProfile, bsd: Numbers, modern: Numbers) -> str:
    m, b = protection(modern), protection(bsd)
    own, shared = modern.get(delay_key("per-conversation"), math.nan), modern.get(delay_key("per-destination"), math.nan)
    verb = "protects" if m > PROTECTS else "does not protect"
    return (f"With {profile.label} on every connection, per-VC round robin {verb} TELNET: its echo delay at 5 FTP is "
            f"{own:.2f} RTT with a VC per conversation against {shared:.2f} RTT in one shared VC, {m:.2f} times longer "
            f"shared — {than(m, b, 0.05, 'more', 'less')} BSD Tahoe's {b:.2f} times "
            f"({bsd.get(delay_key('per-conversation'), math.nan):.2f} against {bsd.get(delay_key('per-destination'), math.nan):.2f} RTT); "
            f"with a quarter of the buffers, where cells are lost, its FTP connections time out "
            f"{modern.get(timeouts_key('per-conversation'), math.nan):.1f} times per run with a VC per conversation "
            f"(BSD Tahoe: {bsd.get(timeouts_key('per-conversation'), math.nan):.1f}).")


COMPARISON = Comparison(
    "Does per-VC round robin protect interactive traffic?",
    tuple(KeyRow(delay_key(p), f"Fig. 3: TELNET echo delay at 5 FTP, {p}", paper, "RTT", "{:.2f}")
          for p, paper in zip(POLICIES, ("≈ 1 (curve)", "≈ 1 (curve)", "grows steeply (curve)")))
    + tuple(KeyRow(ftp_key(p), f"Fig. 5: mean FTP throughput at 5 FTP, {p}", "degrades equally (curve)", "of the link", "{:.3f}")
            for p in POLICIES)
    + tuple(KeyRow(timeouts_key(p), f"Figs. 6–7 at ¼ buffers: FTP timeouts per run, {p}", "— (buffers of §2.4 only)", "", "{:.1f}")
            for p in POLICIES)
    + tuple(KeyRow(jain_key(p), f"Figs. 6–7 at ¼ buffers: FTP short-term Jain index, {p}", "— (buffers of §2.4 only)", "", "{:.2f}")
            for p in POLICIES),
    answer,
)
