"""The ``--grid PATH=V1,V2`` options of ``atmsim sweep``, parsed into ``(path, [values])``."""

from __future__ import annotations

import json
import math
import re
from typing import Any

from .._scenario import parse_path
from ..errors import ScenarioError

__all__ = ["parse_grid_option", "parse_value"]

_INT = re.compile(r"[+-]?[0-9](?:_?[0-9])*$")


def parse_value(text: str, path: str = "") -> Any:
    """A grid value from the command line: bool (true/false), int, float, JSON list/table/string,
    or else the text itself as a string."""
    raw = text.strip()
    if not raw:
        raise ScenarioError("empty value in --grid", field=path)
    low = raw.lower()
    if low in ("true", "false"):
        return low == "true"
    if _INT.match(raw):
        try:
            return int(raw)
        except ValueError:  # more digits than Python converts
            raise ScenarioError(f"integer {raw[:24]}... is too large ({len(raw)} digits)", field=path) from None
    try:
        number = float(raw)
    except ValueError:
        pass
    else:
        if math.isfinite(number):
            return number
        raise ScenarioError(f"value {raw!r} is not a finite number", field=path)
    if raw[0] in '[{"':
        try:
            return json.loads(raw)
        except json.JSONDecodeError as exc:
            raise ScenarioError(f"cannot parse value {raw!r}: {exc.msg}", field=path) from None
        except (ValueError, RecursionError):  # an integer of thousands of digits, deep nesting
            shown = raw if len(raw) <= 40 else raw[:40] + "..."
            raise ScenarioError(f"cannot parse value {shown!r}: too large or too deeply nested", field=path) from None
    return raw


def _split_values(text: str, path: str) -> list[str]:
    """Split on commas outside brackets, braces and double quotes."""
    parts: list[str] = []
    depth = 0
    quoted = False
    current = ""
    for ch in text:
        if quoted:
            quoted = ch != '"'
        elif ch == '"':
            quoted = True
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(current)
            current = ""
            continue
        current += ch
    if quoted or depth != 0:
        raise ScenarioError(f"unbalanced brackets or quotes in {text!r}", field=path)
    parts.append(current)
    return parts


def parse_grid_option(option: str) -> tuple[str, list[Any]]:
    """``"tcp[0].window_bytes=4096,8192"`` → ``("tcp[0].window_bytes", [4096, 8192])``."""
    if "=" not in option:
        raise ScenarioError(f"--grid {option!r}: expected PATH=VALUE[,VALUE...]")
    path, _, values = option.partition("=")
    path = path.strip()
    if not path:
        raise ScenarioError(f"--grid {option!r}: missing the field path before '='")
    parse_path(path)  # raises ScenarioError naming the path if malformed
    return path, [parse_value(v, path) for v in _split_values(values, path)]
