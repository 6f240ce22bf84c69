"""The run report (report.html of `atmsim run`): its connection, cell-source, port and
conservation tables."""

from __future__ import annotations

import html
import re

import pytest

from atmsim import Results
from atmsim._plots import write_run_report


def section(page: str, title: str) -> str:
    """The HTML between heading ``title`` and the next heading (or the figures)."""
    match = re.search(rf"<h2>{re.escape(title)}</h2>(.*?)(?=<h2>|<p>|$)", page, re.S)
    assert match, f"no section {title!r}"
    return match.group(1)


def rows(table_html: str) -> list[list[str]]:
    return [[html.unescape(c) for c in re.findall(r"<t[dh]>(.*?)</t[dh]>", r)] for r in re.findall(r"<tr>(.*?)</tr>", table_html)]


@pytest.fixture
def summary(sample_core_output) -> dict:
    s = sample_core_output["summary"]
    s["conservation"] = {
        "cells": {"balanced": True, "injected": 530496, "delivered": 176532, "dropped_epd": 352296},
        "frames": {"balanced": False, "sent": 2763, "lost": 1833},
    }
    s["sources"] = [
        {"name": "ga", "kind": "greedy", "goodput_bps": 44982000.0, "sent_cell_bps": 149760000.0,
         "offered_cell_bps": None, "cells_sent": 176832},
        {"name": "gb", "kind": "poisson", "goodput_bps": 1.5e6, "sent_cell_bps": 1.6e6, "offered_cell_bps": 1.6e6,
         "cells_sent": 900},
    ]
    return s


def test_conservation_is_a_table_of_every_counter(sample_results, summary, tmp_path):
    page = write_run_report(Results(summary, sample_results.series), tmp_path).read_text()
    table = rows(section(page, "Conservation"))
    assert table[0] == ["", "counter", "count"]
    assert table[1:] == [
        ["cells", "balanced", "yes"],
        ["", "injected", "530496"],
        ["", "delivered", "176532"],
        ["", "dropped_epd", "352296"],
        ["frames", "balanced", "NO"],
        ["", "sent", "2763"],
        ["", "lost", "1833"],
    ]
    assert "<pre>" not in page


def test_cell_sources_goodput_is_in_the_report(sample_results, summary, tmp_path):
    page = write_run_report(Results(summary, sample_results.series), tmp_path).read_text()
    table = rows(section(page, "Cell sources"))
    assert table[0][:5] == ["name", "kind", "goodput [b/s]", "sent [cell b/s]", "offered [cell b/s]"]
    assert table[1][:5] == ["ga", "greedy", "4.498e+07", "1.498e+08", "—"]
    assert table[2][:5] == ["gb", "poisson", "1.5e+06", "1.6e+06", "1.6e+06"]


def test_report_without_sources_or_conservation_has_no_empty_sections(sample_results, tmp_path):
    summary = {k: v for k, v in sample_results.summary.items() if k != "conservation"}
    page = write_run_report(Results(summary, sample_results.series), tmp_path).read_text()
    assert "<h2>Cell sources</h2>" not in page and "<h2>Conservation</h2>" not in page
    assert "<h2>Connections</h2>" in page
