"""Mah (1996) reproduction: the oracle rows of Chapter 4 (QoS policies against noqos).

The rows Q-1…Q-49 of the spec (``shared/specs/mah96.md`` §5.2), checked against the thesis'
text (§4.4 static priority, §4.5 work-conserving RCSP, §4.6 non-work-conserving RCSP); where
the two differ the thesis is followed and a comment says so. Each comparison is a QoS policy
against noqos with the same multiplexing and VC policy, over the four setups app-svc,
app-svccache, conv-svc and conv-svccache unless the thesis names fewer. A statement becomes

* a ``shift`` row (direction, and significance at 90 % where the thesis states it; "not
  sig." where it says the effect was significant only elsewhere or only at 80/60 %), which
  names the change rows stating its magnitude (``size_of``) so that a direction match more
  than 5× off that magnitude is not agreement;
* a ``change`` row where it gives a magnitude (relative change of the means, or a difference
  with ``delta``), judged at the thesis' scale only;
* a ``level`` row where it gives an absolute value (thesis' scale only);
* a ``chance`` row where it reports no significant effects;
* a ``qos`` row (listed, not judged) where it states neither a number nor a test.

The verdict rules are those of :mod:`.oracle`; nothing here is tuned to agree.
"""

from __future__ import annotations

from .rows import SETUPS, Row, chance_row, chg_row, cmp_row, lvl_row, policy_pairs, prose_row

__all__ = ["FTP", "HTTP", "MEDIA", "NOT_APPSVC", "NOT_CONVCACHE", "NO_NUMBER", "QOS_ROWS", "TEL", "C", "P"]


def P(policy: str, *setups: str) -> tuple[tuple[str, str], ...]:
    """noqos → ``policy`` at the named setups (all four when none is named)."""
    return policy_pairs("noqos", policy, setups or SETUPS)


def C(policy: str, *setups: str) -> tuple[str, ...]:
    """The configurations of ``policy`` at the named setups (all four when none is named)."""
    return tuple(f"{policy}-{s}" for s in setups or SETUPS)


SVC, CACHE = ("app-svc", "conv-svc"), ("app-svccache", "conv-svccache")
APP, CONV = ("app-svc", "app-svccache"), ("conv-svc", "conv-svccache")
NOT_APPSVC = ("app-svccache", "conv-svc", "conv-svccache")
NOT_CONVCACHE = ("app-svc", "app-svccache", "conv-svc")
TEL = ("telnet.connect.median", "telnet.connect.p90", "telnet.response.median", "telnet.response.p90")
FTP = ("ftp.file.median", "ftp.file.p90", "ftp.session.median", "ftp.session.p90")
HTTP = ("http.item.median", "http.item.p90", "http.page.median", "http.page.p90")
MEDIA = ("audio.loss", "audio.overdue", "video.loss")
NO_NUMBER = "no statistic: the thesis states neither a number nor a test"


def _sp() -> tuple[Row, ...]:
    """§4.4: static priority."""
    return (
        # the thesis does not say the svccache median gains were significant (the spec reads
        # them as "implicitly sig."); we judge the direction. 10 % of ≈200 ms: §5.7 C-1.
        cmp_row("Q-1", "§4.4.1, Fig 4-2", "noqos→sp-telnet (app-, conv-svccache): telnet connect median",
                "−20 ms (10 %) in the two svccache setups (no test given)", P("sp-telnet", *CACHE), ("telnet.connect.median",), "lower", None,
                size_of=("Q-1 change",)),
        chg_row("Q-1 change", "§4.4.1", "noqos→sp-telnet (svccache): telnet connect median, change of the means", "−10 % (C-1: "
                "implies ≈200 ms, §6.4.1 ≈71 ms)", P("sp-telnet", *CACHE), ("telnet.connect.median",), -0.10, -0.10),
        cmp_row("Q-2 app-svc", "§4.4.1, Fig 4-2", "noqos→sp-telnet (app-svc): telnet connect 90th", "−100 ms (29 %), sig. only here",
                P("sp-telnet", "app-svc"), ("telnet.connect.p90",), "lower", True, size_of=("Q-2 change",)),
        cmp_row("Q-2 others", "§4.4.1", "noqos→sp-telnet (app-svccache, conv-svc, conv-svccache): telnet connect 90th",
                "\"small decreases\", not sig. (sig. only app-svc)", P("sp-telnet", *NOT_APPSVC), ("telnet.connect.p90",), "lower", False),
        # The parenthesis "average speedup 100 ms, or 29 %" hangs on the app-svc clause: judged there.
        chg_row("Q-2 change", "§4.4.1", "noqos→sp-telnet (app-svc): telnet connect 90th, change of the means", "−29 % (−100 ms)",
                P("sp-telnet", "app-svc"), ("telnet.connect.p90",), -0.29, -0.29),
        cmp_row("Q-3", "§4.4.1, Fig 4-3", "noqos→sp-telnet: telnet response median, 90th", "sig. improvements",
                P("sp-telnet"), ("telnet.response.median", "telnet.response.p90"), "lower", True,
                size_of=("Q-3 median", "Q-3 90th")),
        chg_row("Q-3 median", "§4.4.1", "noqos→sp-telnet: telnet response median, mean change over the setups",
                "\"averaging about 20 %\" (≈16 ms)", P("sp-telnet"), ("telnet.response.median",), -0.20, -0.20, agg="mean"),
        chg_row("Q-3 90th", "§4.4.1", "noqos→sp-telnet: telnet response 90th, mean change over the setups",
                "\"almost 40 %\" (≈70 ms; read as −40 %)", P("sp-telnet"), ("telnet.response.p90",), -0.40, -0.40, agg="mean"),
        chg_row("Q-4", "§4.4.2", "noqos→sp-telnet: telnet response 90th, change of the means (restated for comparison)",
                "−36–46 % (C-3: §4.4.1 says \"almost 40 %\")", P("sp-telnet"), ("telnet.response.p90",), -0.46, -0.36),
        cmp_row("Q-5 90th", "§4.4.1, Fig 4-4", "noqos→sp-ftp: FTP file 90th", "\"decreasing … by about half\", sig.",
                P("sp-ftp"), ("ftp.file.p90",), "lower", True, size_of=("Q-5 change",)),
        cmp_row("Q-5 median", "§4.4.1", "noqos→sp-ftp: FTP file median", "\"only a minuscule effect\" (read: not sig.)",
                P("sp-ftp"), ("ftp.file.median",), None, False),
        chg_row("Q-5 change", "§4.4.1", "noqos→sp-ftp: FTP file 90th, change of the means", "≈ −50 %",
                P("sp-ftp"), ("ftp.file.p90",), -0.50, -0.50),
        cmp_row("Q-6", "§4.4.1, Fig 4-5", "noqos→sp-ftp: FTP session median, 90th", "improved (no test given); \"tens of seconds\"",
                P("sp-ftp"), ("ftp.session.median", "ftp.session.p90"), "lower", None, size_of=("Q-6 median", "Q-6 90th")),
        chg_row("Q-6 median", "§4.4.1", "noqos→sp-ftp: FTP session median, change of the means", "≈ −30 %",
                P("sp-ftp"), ("ftp.session.median",), -0.30, -0.30),
        chg_row("Q-6 90th", "§4.4.1", "noqos→sp-ftp: FTP session 90th, change of the means", "≈ −50 %",
                P("sp-ftp"), ("ftp.session.p90",), -0.50, -0.50),
        cmp_row("Q-7", "§4.4.1", "noqos→sp-ftp: telnet response 90th", "+32–78 %, \"significantly worse\"",
                P("sp-ftp"), ("telnet.response.p90",), "higher", True, size_of=("Q-7 change",)),
        chg_row("Q-7 change", "§4.4.1", "noqos→sp-ftp: telnet response 90th, change of the means", "+32–78 %",
                P("sp-ftp"), ("telnet.response.p90",), 0.32, 0.78),
        # Sig. at 80 % only in conv-svc, at 60 % in app-svc, conv-svc, conv-svccache: none at 90 %.
        cmp_row("Q-8", "§4.4.1, Fig 4-6", "noqos→sp-ftp: HTTP page median", "longer, not sig. at 90 % (80 %: conv-svc; "
                "60 %: app-svc, conv-svc, conv-svccache)", P("sp-ftp"), ("http.page.median",), "higher", False,
                size_of=("Q-8 change",)),
        chg_row("Q-8 change", "§4.4.1", "noqos→sp-ftp: HTTP page median, change of the means", "+1–29 %",
                P("sp-ftp"), ("http.page.median",), 0.01, 0.29),
        cmp_row("Q-9", "§4.4.1", "noqos→sp-ftp: audio loss, video loss", "higher (no test given)",
                P("sp-ftp"), ("audio.loss", "video.loss"), "higher", None, size_of=("Q-9 change", "Q-10 change")),
        lvl_row("Q-9 level", "§4.4.1", "sp-ftp: audio loss", "2.0–2.8 %", C("sp-ftp"), "audio.loss", 0.020, 0.028),
        # "almost N-fold" read as a ratio of N − 1 to N: a change of N − 2 to N − 1.
        chg_row("Q-9 change", "§4.4.1", "noqos→sp-ftp: audio loss, change of the means", "\"almost tenfold\" (×9–10)",
                P("sp-ftp"), ("audio.loss",), 8.0, 9.0),
        lvl_row("Q-10", "§4.4.1", "sp-ftp: video loss", "4–8 %", C("sp-ftp"), "video.loss", 0.04, 0.08),
        chg_row("Q-10 change", "§4.4.1", "noqos→sp-ftp: video loss, change of the means", "\"almost three times\" (×2–3)",
                P("sp-ftp"), ("video.loss",), 1.0, 2.0),
        cmp_row("Q-11", "§4.4.1", "noqos→sp-http: HTTP item median, 90th", "shorter (no test given)",
                P("sp-http"), ("http.item.median", "http.item.p90"), "lower", None, size_of=("Q-11 median", "Q-11 90th")),
        chg_row("Q-11 median", "§4.4.1", "noqos→sp-http: HTTP item median, change of the means", "−30–35 %",
                P("sp-http"), ("http.item.median",), -0.35, -0.30),
        chg_row("Q-11 90th", "§4.4.1", "noqos→sp-http: HTTP item 90th, change of the means", "−12–20 %",
                P("sp-http"), ("http.item.p90",), -0.20, -0.12),
        cmp_row("Q-12", "§4.4.1", "noqos→sp-http: HTTP page median, 90th", "shorter (no test given)",
                P("sp-http"), ("http.page.median", "http.page.p90"), "lower", None, size_of=("Q-12 median", "Q-12 90th")),
        chg_row("Q-12 median", "§4.4.1", "noqos→sp-http: HTTP page median, change of the means", "≈ −20 %",
                P("sp-http"), ("http.page.median",), -0.20, -0.20),
        chg_row("Q-12 90th", "§4.4.1", "noqos→sp-http: HTTP page 90th, change of the means", "−37–45 % (§4.4.2: 37–46 %, C-3)",
                P("sp-http"), ("http.page.p90",), -0.45, -0.37),
        chance_row("Q-13", "§4.4.1", "noqos→sp-http: telnet, FTP, audio, video statistics",
                   "no sig. effect \"even at the 80 % confidence level\"", P("sp-http"), TEL + FTP + MEDIA),
        cmp_row("Q-14 app", "§4.4.1, Fig 4-7", "noqos→sp-audio (app-svc, app-svccache): audio loss", "lower, sig. with app",
                P("sp-audio", *APP), ("audio.loss",), "lower", True, size_of=("Q-14 change",)),
        cmp_row("Q-14 conv", "§4.4.1", "noqos→sp-audio (conv-svc, conv-svccache): audio loss", "not sig. with conv",
                P("sp-audio", *CONV), ("audio.loss",), "lower", False, size_of=("Q-14 change",)),
        chg_row("Q-14 change", "§4.4.1", "noqos→sp-audio: audio loss, change of the means", "−44–82 %",
                P("sp-audio"), ("audio.loss",), -0.82, -0.44),
        cmp_row("Q-15", "§4.4.1", "noqos→sp-audio: audio overdue", "5–7 % → 2–3 % (no test given)",
                P("sp-audio"), ("audio.overdue",), "lower", None, size_of=("Q-15 change",)),
        lvl_row("Q-15 level", "§4.4.1", "sp-audio: audio overdue", "2–3 %", C("sp-audio"), "audio.overdue", 0.02, 0.03),
        chg_row("Q-15 change", "§4.4.1", "noqos→sp-audio: audio overdue, change of the means", "−43–75 %",
                P("sp-audio"), ("audio.overdue",), -0.75, -0.43),
        cmp_row("Q-16 sig", "§4.4.1", "noqos→sp-video (app-svc, app-svccache, conv-svccache): video loss", "lower, sig.",
                P("sp-video", "app-svc", "app-svccache", "conv-svccache"), ("video.loss",), "lower", True,
                size_of=("Q-16 change",)),
        cmp_row("Q-16 conv-svc", "§4.4.1", "noqos→sp-video (conv-svc): video loss", "lower, not among the sig. setups",
                P("sp-video", "conv-svc"), ("video.loss",), "lower", False, size_of=("Q-16 change",)),
        lvl_row("Q-16 level", "§4.4.1", "sp-video: video loss", "\"about 0.1 % or less\"", C("sp-video"), "video.loss", None, 0.001),
        chg_row("Q-16 change", "§4.4.1", "noqos→sp-video: video loss, change of the means", "−90–95 %",
                P("sp-video"), ("video.loss",), -0.95, -0.90),
        cmp_row("Q-17", "§4.4.2", "noqos→sp-isp: telnet response 90th", "better, sig. in three of four setups",
                P("sp-isp"), ("telnet.response.p90",), "lower", True, need=3, size_of=("Q-17 change",)),
        chg_row("Q-17 change", "§4.4.2", "noqos→sp-isp: telnet response 90th, change of the means", "−29–39 %",
                P("sp-isp"), ("telnet.response.p90",), -0.39, -0.29),
        cmp_row("Q-18", "§4.4.2", "noqos→sp-isp: HTTP page 90th", "better (no test given)", P("sp-isp"), ("http.page.p90",), "lower", None,
                size_of=("Q-18 change",)),
        chg_row("Q-18 change", "§4.4.2", "noqos→sp-isp: HTTP page 90th, change of the means", "−35–44 %",
                P("sp-isp"), ("http.page.p90",), -0.44, -0.35),
        chance_row("Q-18 others", "§4.4.2", "noqos→sp-isp: FTP, audio, video statistics", "no sig. impact on the others",
                   P("sp-isp"), FTP + MEDIA),
        # "Most setups" at 90 %, "a few only with 80 %": a majority of the 12 tests, 7.
        cmp_row("Q-19", "§4.4.2", "noqos→sp-av: audio loss, overdue, video loss", "\"sizeable reductions\", sig. at 90 % in most "
                "setups (≥ 7 of 12 here), a few only at 80 %", P("sp-av"), MEDIA, "lower", True, need=7),
        chance_row("Q-19 others", "§4.4.2", "noqos→sp-av: telnet, FTP, HTTP statistics", "\"only slightly affected (or not at all)\"",
                   P("sp-av"), TEL + FTP + HTTP),
        cmp_row("Q-20", "§4.4.2", "noqos→sp-qos1 (app-svc, conv-svc): telnet connect 90th",
                "\"rose significantly\" in the svc setups (signalling starved; caching mitigates)",
                P("sp-qos1", *SVC), ("telnet.connect.p90",), "higher", True, size_of=("Q-20 change",)),
        chg_row("Q-20 change", "§4.4.2", "noqos→sp-qos1 (svc): telnet connect 90th, change of the means", "×2–4 on average",
                P("sp-qos1", *SVC), ("telnet.connect.p90",), 1.0, 3.0),
        cmp_row("Q-21", "§4.4.2", "noqos→sp-qos1: telnet response 90th", "shorter (no test given)",
                P("sp-qos1"), ("telnet.response.p90",), "lower", None, size_of=("Q-21 change",)),
        chg_row("Q-21 change", "§4.4.2", "noqos→sp-qos1: telnet response 90th, difference of the means", "−50–90 ms on average",
                P("sp-qos1"), ("telnet.response.p90",), -0.090, -0.050, delta=True),
        chance_row("Q-22", "§4.4.2", "noqos→sp-qos1 (app-svc, app-svccache, conv-svc): FTP and HTTP statistics",
                   "\"little significant changes\"", P("sp-qos1", *NOT_CONVCACHE), FTP + HTTP),
        # Which of the eight FTP/HTTP statistics sped up is not said: a majority, 5 of 8.
        cmp_row("Q-22 conv-svccache", "§4.4.2", "noqos→sp-qos1 (conv-svccache): FTP and HTTP statistics",
                "20–25 % speedups (the exception to \"little significant change\"; ≥ 5 of 8 here)",
                P("sp-qos1", "conv-svccache"), FTP + HTTP, "lower", True, need=5, size_of=("Q-22 change",)),
        chg_row("Q-22 change", "§4.4.2", "noqos→sp-qos1 (conv-svccache): FTP and HTTP statistics, change of the means",
                "−20–25 % (≥ 5 of 8 here)", P("sp-qos1", "conv-svccache"), FTP + HTTP, -0.25, -0.20, need=5),
        cmp_row("Q-23 conv-svccache", "§4.4.2", "noqos→sp-qos1 (conv-svccache): audio loss, overdue, video loss",
                "\"large, significant reductions\"", P("sp-qos1", "conv-svccache"), MEDIA, "lower", True),
        cmp_row("Q-23 others", "§4.4.2", "noqos→sp-qos1 (app-svc, app-svccache, conv-svc): audio loss, overdue, video loss",
                "lower, sig. only at 80 % (not at 90 %)", P("sp-qos1", *NOT_CONVCACHE),
                MEDIA, "lower", False),
    )


def _wc() -> tuple[Row, ...]:
    """§4.5: work-conserving RCSP."""
    return (
        chance_row("Q-24", "§4.5.1", "noqos→wc-telnet: telnet connect and response", "no sig. effects", P("wc-telnet"), TEL),
        cmp_row("Q-25", "§4.5.1, Fig 4-8", "noqos→wc-ftp: FTP file median, 90th", "\"significantly increased\"",
                P("wc-ftp"), ("ftp.file.median", "ftp.file.p90"), "higher", True, size_of=("Q-25 median", "Q-25 90th")),
        chg_row("Q-25 median", "§4.5.1", "noqos→wc-ftp: FTP file median, change of the means", "+15–25 %",
                P("wc-ftp"), ("ftp.file.median",), 0.15, 0.25),
        chg_row("Q-25 90th", "§4.5.1", "noqos→wc-ftp: FTP file 90th, largest change over the setups",
                "\"as much as thirteen times longer\" (×13)", P("wc-ftp"), ("ftp.file.p90",), 12.0, 12.0, agg="max"),
        cmp_row("Q-26", "§4.5.1, Fig 4-8", "noqos→wc-ftp: FTP session median, 90th", "\"a similar effect\" (no test given)",
                P("wc-ftp"), ("ftp.session.median", "ftp.session.p90"), "higher", None,
                size_of=("Q-26 median", "Q-26 90th")),
        chg_row("Q-26 median", "§4.5.1", "noqos→wc-ftp: FTP session median, change of the means", "×5–7",
                P("wc-ftp"), ("ftp.session.median",), 4.0, 6.0),
        chg_row("Q-26 90th", "§4.5.1", "noqos→wc-ftp: FTP session 90th, change of the means", "×11–14",
                P("wc-ftp"), ("ftp.session.p90",), 10.0, 13.0),
        chance_row("Q-27", "§4.5.1", "noqos→wc-ftp: telnet, HTTP, audio, video statistics", "no sig. effects on the others",
                   P("wc-ftp"), TEL + HTTP + MEDIA),
        cmp_row("Q-28", "§4.5.1", "noqos→wc-http: HTTP item median, 90th", "longer (no test given)",
                P("wc-http"), ("http.item.median", "http.item.p90"), "higher", None, size_of=("Q-28 median", "Q-28 90th")),
        chg_row("Q-28 median", "§4.5.1", "noqos→wc-http: HTTP item median, change of the means", "+12–55 %",
                P("wc-http"), ("http.item.median",), 0.12, 0.55),
        chg_row("Q-28 90th", "§4.5.1", "noqos→wc-http: HTTP item 90th, change of the means", "+36–434 %",
                P("wc-http"), ("http.item.p90",), 0.36, 4.34),
        cmp_row("Q-29", "§4.5.1", "noqos→wc-http: HTTP page median, 90th", "longer (no test given)",
                P("wc-http"), ("http.page.median", "http.page.p90"), "higher", None, size_of=("Q-29 median", "Q-29 90th")),
        chg_row("Q-29 median", "§4.5.1", "noqos→wc-http: HTTP page median, change of the means", "+27–212 %",
                P("wc-http"), ("http.page.median",), 0.27, 2.12),
        chg_row("Q-29 90th", "§4.5.1", "noqos→wc-http: HTTP page 90th, change of the means", "+68–1494 % (§4.6.1: up to ×15)",
                P("wc-http"), ("http.page.p90",), 0.68, 14.94),
        chance_row("Q-30 loss", "§4.5.1, Fig 4-9", "noqos→wc-audio: audio loss", "no sig. effects", P("wc-audio"), ("audio.loss",)),
        cmp_row("Q-30 app-svc", "§4.5.1", "noqos→wc-audio (app-svc): audio overdue", "lower, sig. only here",
                P("wc-audio", "app-svc"), ("audio.overdue",), "lower", True, size_of=("Q-30 change",)),
        cmp_row("Q-30 others", "§4.5.1", "noqos→wc-audio (app-svccache, conv-svc, conv-svccache): audio overdue",
                "lower, not sig.", P("wc-audio", *NOT_APPSVC), ("audio.overdue",), "lower", False, size_of=("Q-30 change",)),
        chg_row("Q-30 change", "§4.5.1", "noqos→wc-audio: audio overdue, change of the means", "−30–64 %",
                P("wc-audio"), ("audio.overdue",), -0.64, -0.30),
        # "Even at 60 % only the svc policies" were sig.: none at 90 %.
        cmp_row("Q-31", "§4.5.1", "noqos→wc-video: video loss", "lower, not sig. at 90 % (at 60 % only the svc setups)",
                P("wc-video"), ("video.loss",), "lower", False, size_of=("Q-31 change",)),
        lvl_row("Q-31 level", "§4.5.1", "wc-video: video loss", "\"well under 1 %\"", C("wc-video"), "video.loss", None, 0.01),
        chg_row("Q-31 change", "§4.5.1", "noqos→wc-video: video loss, change of the means", "−54–87 %",
                P("wc-video"), ("video.loss",), -0.87, -0.54),
        cmp_row("Q-32", "§4.5.2", "noqos→wc-isp: HTTP page 90th", "longer, \"several seconds per page\" (no test given)",
                P("wc-isp"), ("http.page.p90",), "higher", None, size_of=("Q-32 change",)),
        chg_row("Q-32 change", "§4.5.2", "noqos→wc-isp: HTTP page 90th, change of the means", "+44–147 %",
                P("wc-isp"), ("http.page.p90",), 0.44, 1.47),
        cmp_row("Q-33 app-svc", "§4.5.2", "noqos→wc-isp (app-svc): telnet response 90th", "shorter, sig. at 90 % only here",
                P("wc-isp", "app-svc"), ("telnet.response.p90",), "lower", True, size_of=("Q-33 change",)),
        cmp_row("Q-33 others", "§4.5.2", "noqos→wc-isp (app-svccache, conv-svc, conv-svccache): telnet response 90th",
                "shorter, not sig. at 90 % (at 60 %: all but conv-svccache)", P("wc-isp", *NOT_APPSVC),
                ("telnet.response.p90",), "lower", False, size_of=("Q-33 change",)),
        chg_row("Q-33 change", "§4.5.2", "noqos→wc-isp: telnet response 90th, change of the means", "−8–20 %",
                P("wc-isp"), ("telnet.response.p90",), -0.20, -0.08),
        chance_row("Q-34", "§4.5.2", "noqos→wc-av: audio loss, overdue, video loss", "no sig. effects", P("wc-av"), MEDIA),
        cmp_row("Q-35 app-svc", "§4.5.2", "noqos→wc-qos1 (app-svc): telnet connect 90th, response 90th", "shorter, sig. only here",
                P("wc-qos1", "app-svc"), ("telnet.connect.p90", "telnet.response.p90"), "lower", True,
                size_of=("Q-35 connect", "Q-35 response")),
        cmp_row("Q-35 others", "§4.5.2", "noqos→wc-qos1 (app-svccache, conv-svc, conv-svccache): telnet connect, response 90th",
                "shorter, not sig.", P("wc-qos1", *NOT_APPSVC), ("telnet.connect.p90", "telnet.response.p90"), "lower", False,
                size_of=("Q-35 connect", "Q-35 response")),
        chg_row("Q-35 connect", "§4.5.2", "noqos→wc-qos1: telnet connect 90th, change of the means", "−5–15 % (−10–60 ms)",
                P("wc-qos1"), ("telnet.connect.p90",), -0.15, -0.05),
        chg_row("Q-35 response", "§4.5.2", "noqos→wc-qos1: telnet response 90th, change of the means", "−13–25 % (−40–60 ms; C-5)",
                P("wc-qos1"), ("telnet.response.p90",), -0.25, -0.13),
        cmp_row("Q-36", "§4.5.2", "noqos→wc-qos1: FTP session 90th", "longer (no test given)",
                P("wc-qos1"), ("ftp.session.p90",), "higher", None, size_of=("Q-36 change",)),
        chg_row("Q-36 change", "§4.5.2", "noqos→wc-qos1: FTP session 90th, change of the means", "+71–171 % (+21–53 s)",
                P("wc-qos1"), ("ftp.session.p90",), 0.71, 1.71),
        cmp_row("Q-37 app", "§4.5.2", "noqos→wc-qos1 (app-svc, app-svccache): HTTP page 90th", "longer, sig. only with app",
                P("wc-qos1", *APP), ("http.page.p90",), "higher", True, size_of=("Q-37 change",)),
        cmp_row("Q-37 conv", "§4.5.2", "noqos→wc-qos1 (conv-svc, conv-svccache): HTTP page 90th", "longer, not sig.",
                P("wc-qos1", *CONV), ("http.page.p90",), "higher", False, size_of=("Q-37 change",)),
        chg_row("Q-37 change", "§4.5.2", "noqos→wc-qos1: HTTP page 90th, change of the means", "+16–90 % (+0.7–3.4 s)",
                P("wc-qos1"), ("http.page.p90",), 0.16, 0.90),
    )


def _nwc() -> tuple[Row, ...]:
    """§4.6: non-work-conserving (rate-jitter controlled) RCSP."""
    return (
        prose_row("Q-38", "§4.6.1", "noqos→nwc-telnet: telnet connect", "\"for the most part, only slightly changed\"", NO_NUMBER),
        cmp_row("Q-39", "§4.6.1, Fig 4-10", "noqos→nwc-ftp: FTP file 90th, session 90th", "longer (no test given)",
                P("nwc-ftp"), ("ftp.file.p90", "ftp.session.p90"), "higher", None, size_of=("Q-39 file", "Q-39 session")),
        chg_row("Q-39 file", "§4.6.1", "noqos→nwc-ftp: FTP file 90th, change of the means", "+680–742 %",
                P("nwc-ftp"), ("ftp.file.p90",), 6.80, 7.42),
        # "Sessions taking 645–814 % longer" follows the 90th file percentile: read as the 90th.
        chg_row("Q-39 session", "§4.6.1", "noqos→nwc-ftp: FTP session 90th, change of the means", "+645–814 %",
                P("nwc-ftp"), ("ftp.session.p90",), 6.45, 8.14),
        cmp_row("Q-39 vs wc", "§4.6.1, Fig 4-10", "wc-ftp→nwc-ftp: FTP file 90th, session 90th", "degradation smaller than wc-ftp's",
                policy_pairs("wc-ftp", "nwc-ftp"), ("ftp.file.p90", "ftp.session.p90"), "lower", None),
        cmp_row("Q-40", "§4.6.1", "wc-ftp→nwc-ftp: switch cell drop rate", "wc: drops from cell bursts; \"not observed\" with nwc",
                policy_pairs("wc-ftp", "nwc-ftp"), ("switch.drop_rate",), "lower", None),
        cmp_row("Q-41", "§4.6.1", "noqos→nwc-http: HTTP page 90th", "longer (no test given)",
                P("nwc-http"), ("http.page.p90",), "higher", None, size_of=("Q-41 change",)),
        lvl_row("Q-41 level", "§4.6.1", "nwc-http: HTTP page 90th", "5.8–11.4 s (noqos 3.8–4.0 s: K-1)",
                C("nwc-http"), "http.page.p90", 5.8, 11.4),
        chg_row("Q-41 change", "§4.6.1", "noqos→nwc-http: HTTP page 90th, change of the means", "+53.6–185 %",
                P("nwc-http"), ("http.page.p90",), 0.536, 1.85),
        cmp_row("Q-41 vs wc", "§4.6.1", "wc-http→nwc-http: HTTP page 90th", "degradation smaller than wc-http's",
                policy_pairs("wc-http", "nwc-http"), ("http.page.p90",), "lower", None),
        cmp_row("Q-42 loss", "§4.6.1, Fig 4-11", "noqos→nwc-audio: audio loss", "lower, no sig. changes",
                P("nwc-audio"), ("audio.loss",), "lower", False, size_of=("Q-42 loss change",)),
        cmp_row("Q-42 app-svc", "§4.6.1", "noqos→nwc-audio (app-svc): audio overdue", "lower, sig. only here",
                P("nwc-audio", "app-svc"), ("audio.overdue",), "lower", True, size_of=("Q-42 overdue change",)),
        cmp_row("Q-42 others", "§4.6.1", "noqos→nwc-audio (app-svccache, conv-svc, conv-svccache): audio overdue", "lower, not sig.",
                P("nwc-audio", *NOT_APPSVC), ("audio.overdue",), "lower", False, size_of=("Q-42 overdue change",)),
        lvl_row("Q-42 loss level", "§4.6.1", "nwc-audio: audio loss", "0.12–0.22 %", C("nwc-audio"), "audio.loss", 0.0012, 0.0022),
        lvl_row("Q-42 overdue level", "§4.6.1", "nwc-audio: audio overdue", "1.7–4.0 %", C("nwc-audio"), "audio.overdue", 0.017, 0.040),
        chg_row("Q-42 loss change", "§4.6.1", "noqos→nwc-audio: audio loss, change of the means", "−12–52 %",
                P("nwc-audio"), ("audio.loss",), -0.52, -0.12),
        chg_row("Q-42 overdue change", "§4.6.1", "noqos→nwc-audio: audio overdue, change of the means", "−33–53 %",
                P("nwc-audio"), ("audio.overdue",), -0.53, -0.33),
        cmp_row("Q-43", "§4.6.1", "noqos→nwc-video: video loss", "lower, \"generally not\" sig. (≥ 3 of 4 not sig. here)",
                P("nwc-video"), ("video.loss",), "lower", False, need=3, size_of=("Q-43 change",)),
        lvl_row("Q-43 level", "§4.6.1", "nwc-video: video loss", "0.39–0.74 % (noqos 1.1–2.6 %: K-14)",
                C("nwc-video"), "video.loss", 0.0039, 0.0074),
        chg_row("Q-43 change", "§4.6.1", "noqos→nwc-video: video loss, change of the means", "−31–77 %",
                P("nwc-video"), ("video.loss",), -0.77, -0.31),
        chance_row("Q-44", "§4.6.2", "noqos→nwc-isp: telnet connect and response", "no sig. effects", P("nwc-isp"), TEL),
        lvl_row("Q-45", "§4.6.2", "nwc-isp: HTTP page 90th", "5.2–7.4 s", C("nwc-isp"), "http.page.p90", 5.2, 7.4),
        chg_row("Q-45 change", "§4.6.2", "noqos→nwc-isp: HTTP page 90th, change of the means", "+37–97 %",
                P("nwc-isp"), ("http.page.p90",), 0.37, 0.97),
        cmp_row("Q-45 vs nwc-http", "§4.6.2", "nwc-http→nwc-isp: HTTP page 90th", "shorter than under nwc-http (no test given)",
                policy_pairs("nwc-http", "nwc-isp"), ("http.page.p90",), "lower", None),
        lvl_row("Q-46", "§4.6.2", "guaranteed-VC setup failure rate, nwc-isp and nwc-http", "25–37 % (nwc-isp), 7–32 % (nwc-http)",
                (), "vc.guaranteed_failure_rate",
                targets={c: r for q, r in (("nwc-isp", (0.25, 0.37)), ("nwc-http", (0.07, 0.32))) for c in C(q)}),
        cmp_row("Q-46 order", "§4.6.2", "nwc-http→nwc-isp: guaranteed-VC setup failure rate", "higher for nwc-isp (no test given)",
                policy_pairs("nwc-http", "nwc-isp"), ("vc.guaranteed_failure_rate",), "higher", None),
        cmp_row("Q-47 app-svc", "§4.6.2", "noqos→nwc-av (app-svc): audio overdue", "lower, sig. at 90 % (the only one)",
                P("nwc-av", "app-svc"), ("audio.overdue",), "lower", True, size_of=("Q-47 overdue change",)),
        cmp_row("Q-47 others", "§4.6.2", "noqos→nwc-av (app-svccache, conv-svc, conv-svccache): audio overdue",
                "lower, not sig. (\"few statistically significant effects\")", P("nwc-av", *NOT_APPSVC), ("audio.overdue",), "lower", False,
                size_of=("Q-47 overdue change",)),
        cmp_row("Q-47 loss", "§4.6.2", "noqos→nwc-av (app-svc, app-svccache): audio loss", "lower, not sig.",
                P("nwc-av", *APP), ("audio.loss",), "lower", False, size_of=("Q-47 loss change",)),
        chg_row("Q-47 loss change", "§4.6.2", "noqos→nwc-av (app-svc, app-svccache): audio loss, change of the means", "−32–47 %",
                P("nwc-av", *APP), ("audio.loss",), -0.47, -0.32),
        chg_row("Q-47 overdue change", "§4.6.2", "noqos→nwc-av: audio overdue, change of the means", "−18–55 %",
                P("nwc-av"), ("audio.overdue",), -0.55, -0.18),
        cmp_row("Q-48", "§4.6.2", "noqos→nwc-qos1: telnet connect 90th, response 90th", "small reductions, not sig.",
                P("nwc-qos1"), ("telnet.connect.p90", "telnet.response.p90"), "lower", False, size_of=("Q-48 change",)),
        chg_row("Q-48 change", "§4.6.2", "noqos→nwc-qos1: telnet connect and response 90th, change of the means", "−3–14 %",
                P("nwc-qos1"), ("telnet.connect.p90", "telnet.response.p90"), -0.14, -0.03),
        cmp_row("Q-49", "§4.6.2", "noqos→nwc-qos1: FTP session 90th", "longer (no test given)",
                P("nwc-qos1"), ("ftp.session.p90",), "higher", None, size_of=("Q-49 change",)),
        chg_row("Q-49 change", "§4.6.2", "noqos→nwc-qos1: FTP session 90th, change of the means", "+52–109 %",
                P("nwc-qos1"), ("ftp.session.p90",), 0.52, 1.09),
        cmp_row("Q-49 vs nwc-ftp", "§4.6.2", "nwc-ftp→nwc-qos1: FTP session 90th", "\"minor compared to\" nwc-ftp (no test given)",
                policy_pairs("nwc-ftp", "nwc-qos1"), ("ftp.session.p90",), "lower", None),
        chance_row("Q-49 media", "§4.6.2", "noqos→nwc-qos1: audio loss, overdue, video loss", "no sig. effects", P("nwc-qos1"), MEDIA),
    )


#: Every Chapter 4 row, in the thesis' order.
QOS_ROWS: tuple[Row, ...] = _sp() + _wc() + _nwc()
