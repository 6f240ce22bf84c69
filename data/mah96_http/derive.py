"""Rebuild the tables of this folder from the project's shared copy of Mah's CDFs.

Usage: python3 derive.py /work/shared/data

Each shared `mah_glomosim_http_*.csv` is a `value,cdf` table whose steps are whole multiples
of 1/N, N being the number of observations (Mah's 19 Sep 1995 trace). We recover the count
at each value as round(step * N), refuse any step that is not within 1e-6 of a whole count,
merge the primary and secondary request (and reply) tables by adding counts, and write
`value,count,cdf` with cdf = cumulative count / total.
"""

import csv
import sys
from collections import Counter
from pathlib import Path

# (output, [(shared input, observations)]); the observation counts are those of Tables
# A-4/A-5 (1726 + 3304 = 5030 transfers), A-8 (1678 think times) and A-9 (253 visits);
# 1725 documents is what the files-per-document steps resolve to.
TABLES = [
    ("request_bytes.csv", [("mah_glomosim_http_primary_request_size.csv", 1726),
                           ("mah_glomosim_http_secondary_request_size.csv", 3304)]),
    ("reply_bytes.csv", [("mah_glomosim_http_primary_reply_size.csv", 1726),
                         ("mah_glomosim_http_secondary_reply_size.csv", 3304)]),
    ("files_per_page.csv", [("mah_glomosim_http_files_per_document.csv", 1725)]),
    ("consecutive_docs.csv", [("mah_glomosim_http_consecutive_docs.csv", 253)]),
    ("think_time_s.csv", [("mah_glomosim_http_think_time.csv", 1678)]),
]


def counts(path: Path, n: int) -> tuple[Counter, dict]:
    """Observation counts per value of one `value,cdf` table with `n` observations."""
    got, text, prev = Counter(), {}, 0.0
    with path.open() as f:
        for row in list(csv.reader(f))[1:]:
            step = (float(row[-1]) - prev) * n
            if abs(step - round(step)) > 1e-6:
                raise ValueError(f"{path.name}: value {row[0]}: step {step} is not a whole count")
            got[float(row[0])] += round(step)
            text.setdefault(float(row[0]), row[0])
            prev = float(row[-1])
    if sum(got.values()) != n:
        raise ValueError(f"{path.name}: {sum(got.values())} observations, expected {n}")
    return got, text


def main(shared: Path, out: Path) -> None:
    for name, inputs in TABLES:
        total, text = Counter(), {}
        for src, n in inputs:
            c, t = counts(shared / src, n)
            total += c
            text.update(t)
        n, cum = sum(total.values()), 0
        with (out / name).open("w", newline="") as f:
            f.write("value,count,cdf\n")
            for v in sorted(total):
                cum += total[v]
                f.write(f"{text[v]},{total[v]},{cum / n:.12g}\n")
        print(f"{name}: {len(total)} rows, {n} observations")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(__file__).resolve().parent)
