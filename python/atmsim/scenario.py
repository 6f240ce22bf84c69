"""Scenarios: a thin, declarative wrapper over the scenario document.

A :class:`Scenario` holds the document as a nested dict mirroring the TOML file; that dict
is the single source of truth. Python checks nothing about its contents: the core validates
(``Scenario.validate()``) and reports errors naming the file and the dotted field path.

Dotted paths address fields the way error messages name them::

    s = Scenario.from_toml("scenarios/magic95/table1_w128k.toml")
    s.get("tcp[0].window_bytes")
    s.set("tcp[0].window_bytes", 65536)

While a scenario loaded from a file is unmodified, the original text is handed to the core
(so parse errors point into the file); once modified, the document is sent as JSON.
"""

from __future__ import annotations

import copy
import json
import re
import tomllib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import tomli_w

from . import _core
from .errors import ScenarioError, SimulationError

__all__ = ["Scenario", "load_scenario", "parse_path"]

ProgressArg = bool | Callable[[float], object] | None

_SEGMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_\-]*)((?:\[\d+\])*)$")
_INDEX = re.compile(r"\[(\d+)\]")


def parse_path(path: str) -> list[str | int]:
    """Split ``"tcp[0].window_bytes"`` into ``["tcp", 0, "window_bytes"]``."""
    if not isinstance(path, str) or not path:
        raise ScenarioError("expected a dotted field path like 'tcp[0].window_bytes'", field=str(path))
    keys: list[str | int] = []
    for segment in path.split("."):
        m = _SEGMENT.match(segment)
        if not m:
            raise ScenarioError(
                f"malformed path segment {segment!r}: expected name or name[index]", field=path
            )
        keys.append(m.group(1))
        keys.extend(int(i) for i in _INDEX.findall(m.group(2)))
    return keys


def _format_path(keys: list[str | int]) -> str:
    out = ""
    for k in keys:
        out += f"[{k}]" if isinstance(k, int) else (f".{k}" if out else k)
    return out


def _step(node: Any, key: str | int, path: str, done: list[str | int]) -> Any:
    where = _format_path(done) or "the document"
    if isinstance(key, int):
        if not isinstance(node, list):
            raise ScenarioError(f"{where} is not a list, cannot index it with [{key}]", field=path)
        if key >= len(node):
            raise ScenarioError(f"index [{key}] out of range: {where} has {len(node)} entries", field=path)
        return node[key]
    if not isinstance(node, Mapping):
        raise ScenarioError(f"{where} is not a table, it has no field {key!r}", field=path)
    if key not in node:
        raise ScenarioError(f"no field {key!r} in {where}", field=path)
    return node[key]


class Scenario:
    """A scenario document plus where it came from (used in error messages)."""

    def __init__(self, doc: dict[str, Any], origin: str = "<python>", *, _source: tuple[str, str] | None = None):
        self._doc = doc
        self.origin = origin
        # (text, fmt) of the unmodified original, or None once the document diverges.
        self._source = _source

    # ----- constructors -------------------------------------------------------------
    @classmethod
    def from_toml(cls, path: str | Path) -> Scenario:
        """Read a TOML scenario file. Missing file: FileNotFoundError; bad TOML: ScenarioError."""
        origin = str(path)
        text = Path(path).read_text(encoding="utf-8")
        return cls.from_str(text, origin=origin)

    @classmethod
    def from_str(cls, text: str, fmt: str = "toml", origin: str = "<string>") -> Scenario:
        """Parse scenario text (``fmt`` is ``"toml"`` or ``"json"``)."""
        try:
            doc = tomllib.loads(text) if fmt == "toml" else json.loads(text)
        except (tomllib.TOMLDecodeError, json.JSONDecodeError) as exc:
            # The core's parser is the authority on error messages: let it report if it can.
            try:
                _core.validate(text, fmt, origin)
            except SimulationError:
                pass  # the core failed to say; fall back to the Python parser's message
            raise ScenarioError(str(exc), file=origin, code="parse") from exc
        if not isinstance(doc, dict):
            raise ScenarioError("expected a table at the top level", file=origin, code="parse")
        return cls(doc, origin, _source=(text, fmt))

    @classmethod
    def from_dict(cls, doc: Mapping[str, Any], origin: str = "<python>") -> Scenario:
        """Wrap a nested dict (deep-copied, so later changes to ``doc`` do not leak in)."""
        return cls(copy.deepcopy(dict(doc)), origin)

    # ----- access -------------------------------------------------------------------
    @property
    def doc(self) -> dict[str, Any]:
        """A deep copy of the document (edit through :meth:`set`)."""
        return copy.deepcopy(self._doc)

    @property
    def name(self) -> str:
        scen = self._doc.get("scenario")
        if isinstance(scen, Mapping) and isinstance(scen.get("name"), str):
            return scen["name"]
        return Path(self.origin).stem if self.origin and not self.origin.startswith("<") else "scenario"

    def get(self, path: str) -> Any:
        """Value at a dotted path; unknown path: ScenarioError naming it."""
        keys = parse_path(path)
        node: Any = self._doc
        for i, key in enumerate(keys):
            node = _step(node, key, path, keys[:i])
        return copy.deepcopy(node)

    def set(self, path: str, value: Any) -> Scenario:
        """Set the value at a dotted path and return ``self`` (chainable).

        Every container on the way must exist; the last key may be new in a table (the core
        rejects unknown fields at validation). List indices must be in range.
        """
        keys = parse_path(path)
        node: Any = self._doc
        for i, key in enumerate(keys[:-1]):
            node = _step(node, key, path, keys[:i])
        last = keys[-1]
        if isinstance(last, int):
            _step(node, last, path, keys[:-1])  # raises if not a list or out of range
        elif not isinstance(node, dict):
            raise ScenarioError(f"{_format_path(keys[:-1])} is not a table", field=path)
        node[last] = copy.deepcopy(value)
        self._source = None
        return self

    def copy(self) -> Scenario:
        return Scenario(copy.deepcopy(self._doc), self.origin, _source=self._source)

    # ----- serialisation ------------------------------------------------------------
    def to_toml(self) -> str:
        return tomli_w.dumps(self._doc)

    def to_json(self) -> str:
        return json.dumps(self._doc)

    def _text(self) -> tuple[str, str]:
        return self._source if self._source is not None else (self.to_json(), "json")

    # ----- core ---------------------------------------------------------------------
    def validate(self) -> Scenario:
        """Ask the core to parse and validate; raise ScenarioError if it refuses."""
        text, fmt = self._text()
        _core.validate(text, fmt, self.origin)
        return self

    def run(self, seed: int | None = None, progress: ProgressArg = False, batching: bool | None = None):
        """Run the scenario and return :class:`atmsim.Results`.

        ``progress``: False (silent), True (a progress bar on stderr), or a callable taking
        the fraction of simulated time done.
        """
        from .results import Results

        text, fmt = self._text()
        if progress is True:
            from .progress import progress_bar

            with progress_bar(self.name) as report:
                raw = _core.run(text, fmt, self.origin, seed=seed, batching=batching, progress=report)
        else:
            callback = progress if callable(progress) else None
            raw = _core.run(text, fmt, self.origin, seed=seed, batching=batching, progress=callback)
        return Results.from_core(raw, scenario=self)

    def __repr__(self) -> str:
        return f"Scenario(name={self.name!r}, origin={self.origin!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Scenario) and self._doc == other._doc


def load_scenario(source: str | Path | Mapping[str, Any] | Scenario) -> Scenario:
    """Scenario from a path, a dict or a Scenario (returned as is)."""
    if isinstance(source, Scenario):
        return source
    if isinstance(source, Mapping):
        return Scenario.from_dict(source)
    return Scenario.from_toml(source)
