"""Seeded fuzzing of the scenario reader: malformed inputs through ``Scenario.from_dict``,
``Scenario.from_str`` (TOML and JSON) and ``Scenario.from_toml``, with a tally of outcomes.

Each input is a shipped scenario damaged by one to three seeded mutations: of the document
(a value replaced by an odd one — NaN, 2**64, a lone surrogate, a table where a number belongs,
nesting 40 deep —, a field deleted or added, a table written as a list) or of its text (bytes
deleted, repeated, swapped or inserted — quotes, brackets, ``=``, newlines, digits, a lone
surrogate —, the text cut short). Outcomes:

* ``valid``: the scenario validated;
* ``field``: a :class:`~atmsim.ScenarioError` naming the field at fault;
* ``position``: a ScenarioError naming a line and column (or a byte offset) but no field;
* ``failure``: any other exception, or a ScenarioError with neither field nor position.

Input ``k`` of seed ``s`` is the same on every machine (``random.Random((s, k))``), so a failure
is reproduced with ``--seed S --start K --count 1 --show``.

    .venv/bin/python tools/fuzz_scenarios.py [--count 1000000] [--seed 27] [--jobs 2]

``make fuzz`` runs a million inputs; ``tests/test_hardening_27_fuzz.py`` a thousand.
"""

from __future__ import annotations

import argparse
import collections
import copy
import json
import math
import multiprocessing
import os
import random
import re
import sys
import tempfile
import time
import tomllib
from pathlib import Path
from typing import Any

import tomli_w

from atmsim import ScenarioError
from atmsim._scenario import Scenario

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "scenarios"


def _corpus() -> list[tuple[str, str, dict]]:
    """(name, TOML text, document) of every shipped scenario small enough to validate fast."""
    out = []
    for d, _, files in sorted(os.walk(SCENARIOS, followlinks=True)):
        for f in sorted(files):
            if f.endswith(".toml"):
                p = Path(d) / f
                text = p.read_text()
                out.append((p.relative_to(SCENARIOS).as_posix(), text, tomllib.loads(text)))
    return out


CORPUS = _corpus()

ODD_VALUES: list[Any] = [
    math.nan, math.inf, -math.inf, 1e300, -1e300, 5e-324, 0, 0.0, -0.0, -1, 1e-12, 1e20, 2**31, 2**32,
    2**53 + 1, 2**63 - 1, 2**63, -(2**63), 2**64, 10**30, 0.5, 424, True, False, "", " ", "x", "a b", "\x00",
    "é" * 129, "x" * 257, "\ud800", "a\udfffb", "😀", "fifo", "epd", "poisson", "bulk", "oc3c", "reno",
    [], {}, [1, 2], {"a": 1}, ["x"], [{"name": "x"}], None,
]
FIELD_NAMES = ["bogus", "name", "rate_bps", "buffer_cells", "shape", "app", "delay_ms", "vc", "path", "max_open"]
TEXT_PIECES = ['"', "'", "[", "]", "[[", "]]", "{", "}", "=", ",", ".", "\n", "#", "-", "+", "e", "0", "9" * 25,
               "1e400", "nan", "inf", "true", "\\", "\\u", "\ud800", "é", "\x00", "\t", " ", "0x", "1979-05-27"]
_POSITION = re.compile(r"line \d+|offset \d+|character \d+")


def _paths(node: Any, prefix: tuple = ()) -> list[tuple]:
    out = []
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for k, v in items:
        out.append((*prefix, k))
        out.extend(_paths(v, (*prefix, k)))
    return out


def _deep(depth: int) -> Any:
    v: Any = 1
    for _ in range(depth):
        v = {"a": v}
    return v


def mutate_document(doc: dict, r: random.Random) -> dict:
    doc = copy.deepcopy(doc)
    for _ in range(r.randint(1, 3)):
        paths = _paths(doc)
        if not paths:
            break
        path = r.choice(paths)
        parent: Any = doc
        for k in path[:-1]:
            parent = parent[k]
        key = path[-1]
        action = r.choice(["replace", "replace", "replace", "delete", "add", "as_list", "scale", "deep"])
        if action == "replace":
            parent[key] = copy.deepcopy(r.choice(ODD_VALUES))
        elif action == "delete":
            del parent[key]
        elif action == "add" and isinstance(parent, dict):
            parent[r.choice(FIELD_NAMES)] = copy.deepcopy(r.choice(ODD_VALUES))
        elif action == "as_list" and isinstance(parent[key], dict):
            parent[key] = list(parent[key].values())
        elif action == "scale" and isinstance(parent[key], int | float) and not isinstance(parent[key], bool):
            parent[key] = parent[key] * r.choice([0, -1, 1e-9, 1e3, 1e9, 1e300, 2**40])
        elif action == "deep":
            parent[key] = _deep(r.choice([31, 40]))
    return doc


def mutate_text(text: str, r: random.Random) -> str:
    chars = list(text)
    for _ in range(r.randint(1, 3)):
        if not chars:
            break
        i = r.randrange(len(chars))
        action = r.choice(["insert", "insert", "delete", "repeat", "swap", "cut"])
        if action == "insert":
            chars[i:i] = list(r.choice(TEXT_PIECES))
        elif action == "delete":
            del chars[i : i + r.randint(1, 8)]
        elif action == "repeat":
            j = min(len(chars), i + r.randint(1, 40))
            chars[j:j] = chars[i:j]
        elif action == "swap":
            j = r.randrange(len(chars))
            chars[i], chars[j] = chars[j], chars[i]
        else:
            del chars[i:]
    return "".join(chars)


def _toml(doc: dict) -> str | None:
    try:
        return tomli_w.dumps(doc)
    except (TypeError, ValueError, RecursionError):
        return None


def make_input(seed: int, k: int) -> tuple[str, Any]:
    """Input ``k`` of ``seed``: (how, payload) with how ``dict``, ``toml``, ``json`` or ``file``."""
    r = random.Random(f"{seed}/{k}")
    _, text, doc = r.choice(CORPUS)
    how = r.choice(["dict", "dict", "toml", "toml", "json", "doc_toml", "file"])
    if how == "dict":
        return "dict", mutate_document(doc, r)
    if how == "doc_toml":  # a damaged document written as TOML: the text is well-formed
        t = _toml(mutate_document(doc, r))
        return ("toml", t) if t is not None else ("dict", mutate_document(doc, r))
    if how == "json":
        return "json", mutate_text(json.dumps(doc), r)
    return how, mutate_text(text, r)


def validate(how: str, payload: Any, tmp: Path) -> None:
    if how == "dict":
        Scenario.from_dict(payload, origin="fuzz").validate()
    elif how == "file":
        path = tmp / "fuzz.toml"
        path.write_text(payload, encoding="utf-8", errors="surrogatepass")
        Scenario.from_toml(path).validate()
    else:
        Scenario.from_str(payload, fmt="json" if how == "json" else "toml", origin=f"fuzz.{how}").validate()


def outcome(how: str, payload: Any, tmp: Path) -> tuple[str, str]:
    """(``valid``/``field``/``position``/``failure``, the error or the exception's repr)."""
    try:
        validate(how, payload, tmp)
    except ScenarioError as exc:
        if "\n" in str(exc):
            return "failure", f"multi-line: {exc!r}"
        if exc.field:
            return "field", str(exc)
        if _POSITION.search(exc.message):
            return "position", str(exc)
        return "failure", f"no field or position: {exc}"
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:
        return "failure", f"{type(exc).__name__}: {exc}"[:300]
    return "valid", ""


def run_range(seed: int, start: int, count: int) -> tuple[collections.Counter, list[str]]:
    """Tally inputs ``start .. start + count`` of ``seed``; the first 20 failures in full."""
    tally: collections.Counter = collections.Counter()
    failures: list[str] = []
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        for k in range(start, start + count):
            how, payload = make_input(seed, k)
            result, detail = outcome(how, payload, tmp)
            tally[result] += 1
            tally[f"via {how}"] += 1
            if result == "failure" and len(failures) < 20:
                failures.append(f"input {k} ({how}): {detail}")
    return tally, failures


def _worker(args: tuple[int, int, int]) -> tuple[collections.Counter, list[str]]:
    return run_range(*args)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=27)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--chunk", type=int, default=5000)
    ap.add_argument("--show", action="store_true", help="print each input and its outcome")
    a = ap.parse_args()
    if a.show:
        with tempfile.TemporaryDirectory() as d:
            for k in range(a.start, a.start + a.count):
                how, payload = make_input(a.seed, k)
                print(f"input {k} ({how}): {payload!r}"[:2000])
                print("  ->", *outcome(how, payload, Path(d)))
        return 0
    chunks = [(a.seed, s, min(a.chunk, a.start + a.count - s)) for s in range(a.start, a.start + a.count, a.chunk)]
    tally: collections.Counter = collections.Counter()
    failures: list[str] = []
    t0 = time.monotonic()
    with multiprocessing.Pool(a.jobs) as pool:
        for t, f in pool.imap_unordered(_worker, chunks):
            tally.update(t)
            failures.extend(f[: max(0, 20 - len(failures))])
            done = sum(tally[k] for k in ("valid", "field", "position", "failure"))
            print(f"\r{done:,} inputs, {tally['failure']:,} failures, {time.monotonic() - t0:.0f} s", end="", file=sys.stderr)
    print(file=sys.stderr)
    wall = time.monotonic() - t0
    total = sum(tally[k] for k in ("valid", "field", "position", "failure"))
    print(f"seed {a.seed}, inputs {a.start}..{a.start + a.count}: {total:,} in {wall:.0f} s ({total / wall:,.0f}/s)")
    for k in ("valid", "field", "position", "failure"):
        print(f"  {k:9} {tally[k]:>9,}")
    print("  by entry point: " + ", ".join(f"{k[4:]} {v:,}" for k, v in sorted(tally.items()) if k.startswith("via ")))
    for f in failures:
        print("FAILURE", f)
    return 1 if tally["failure"] else 0


if __name__ == "__main__":
    sys.exit(main())
