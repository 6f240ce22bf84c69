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

Limits, refused with a :class:`ScenarioError` before the core sees anything: a scenario
file is UTF-8 text of at most :data:`MAX_FILE_BYTES` (a regular file or a device, not a
named pipe); a document nests at most :data:`MAX_DEPTH` tables and lists; its strings are
valid Unicode (no lone surrogates); a seed lies in ``0..=SEED_MAX`` (the core's ``u64``).
"""

from __future__ import annotations

import copy
import errno
import json
import math
import numbers
import os
import re
import stat
import tomllib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import tomli_w

from . import _core
from .callbacks import RunProgress
from .errors import ScenarioError, SimulationError

if TYPE_CHECKING:
    from ._run_results import Results

__all__ = ["MAX_DEPTH", "MAX_FILE_BYTES", "SEED_MAX", "Scenario", "check_document", "check_seed", "load_scenario", "parse_path", "read_scenario_file"]

MAX_FILE_BYTES = 64 * 1024 * 1024
"""Largest scenario file read [bytes]; the shipped scenarios are a few kB."""
MAX_DEPTH = 32
"""Deepest nesting of tables and lists in a scenario document (the top-level table is 1;
the shipped scenarios reach 4)."""
SEED_MAX = 2**64 - 1
"""Largest seed: the core's seeds are unsigned 64-bit integers."""

Format = Literal["toml", "json"]
"""The scenario text formats the core reads."""

ProgressArg = bool | RunProgress | None
"""What ``progress=`` takes: ``False`` (silent), ``True`` (a bar on stderr) or a callback."""

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


def printable(text: str) -> str:
    """``text`` with lone surrogates (undecodable file-name bytes, bad strings) escaped."""
    if text.isascii():
        return text
    try:  # file-name bytes that were not UTF-8 (U+DC80..U+DCFF) show as \x80..\xff
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # any other lone surrogate shows as \ud800
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


def read_scenario_file(path: str | Path) -> str:
    """The text of a scenario file.

    Raises :class:`OSError` if it cannot be opened (missing, a directory, no permission) and
    :class:`ScenarioError` if it is a named pipe, larger than :data:`MAX_FILE_BYTES` or not
    UTF-8 text. Reads at most ``MAX_FILE_BYTES + 1`` bytes, so ``/dev/zero`` is refused too.
    """
    origin = printable(str(path))
    # O_NONBLOCK: opening a named pipe must not wait for a writer.
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
        if stat.S_ISFIFO(st.st_mode):
            raise ScenarioError("is a named pipe, expected a scenario file", file=origin, code="parse")
        limit = f"larger than {MAX_FILE_BYTES // 2**20} MiB, the limit for a scenario file"
        if stat.S_ISREG(st.st_mode) and st.st_size > MAX_FILE_BYTES:
            raise ScenarioError(limit, file=origin, code="parse")
        os.set_blocking(fd, True)
        chunks: list[bytes] = []
        remaining = MAX_FILE_BYTES + 1
        while remaining > 0:
            chunk = os.read(fd, min(remaining, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
        if remaining <= 0:
            raise ScenarioError(limit, file=origin, code="parse")
    finally:
        os.close(fd)
    return _decode(b"".join(chunks), origin)


def _decode(data: bytes, origin: str) -> str:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ScenarioError(
            f"not UTF-8 text: invalid byte 0x{data[exc.start]:02x} at offset {exc.start}", file=origin, code="parse"
        ) from None
    nul = text.find("\0")
    if nul >= 0:
        raise ScenarioError(
            f"not UTF-8 text: a NUL byte at offset {len(text[:nul].encode())} (a binary file?)", file=origin, code="parse"
        )
    return text


_JSON_SCALARS = (str, bool, int, float, type(None))


def check_document(node: Any, origin: str, keys: list[str | int] | None = None, *, for_json: bool = False) -> bool:
    """Refuse what neither the core nor JSON can take: nesting deeper than :data:`MAX_DEPTH`
    (including cycles), strings with lone surrogates and, with ``for_json``, keys that are not
    strings, non-finite numbers and values of other types. Iterative: no recursion limit.

    Returns whether JSON carries the document as TOML does: only JSON's types (no datetimes),
    integers within TOML's 64 bits and finite floats.
    """
    plain = True
    base = list(keys or [])
    stack: list[tuple[Any, list[str | int]]] = [(node, base)]
    while stack:
        value, path = stack.pop()
        if isinstance(value, str):
            _check_text(value, origin, path)
        elif isinstance(value, Mapping | list | tuple):
            if len(path) >= MAX_DEPTH:  # the top-level table has path [] and is level 1
                raise ScenarioError(
                    f"nested deeper than {MAX_DEPTH} levels", file=origin, field=_field(path[:1]), code="parse"
                )
            if isinstance(value, Mapping):
                for k, v in value.items():
                    if not isinstance(k, str):
                        if for_json:
                            raise ScenarioError(f"field names must be strings, got {type(k).__name__}", file=origin, field=_field(path), code="parse")
                        k = str(k)
                    _check_text(k, origin, [*path, k])  # names the key itself, escaped
                    stack.append((v, [*path, k]))
            else:
                stack.extend((v, [*path, i]) for i, v in enumerate(value))
        elif isinstance(value, int) and not isinstance(value, bool):
            if value.bit_length() > 1024:
                raise ScenarioError(
                    f"a {value.bit_length()}-bit integer is out of range: expected a number below 2**1024",
                    file=origin,
                    field=_field(path),
                    code="invalid",
                )
            plain = plain and -(2**63) <= value < 2**63
        elif isinstance(value, float) or (for_json and isinstance(value, numbers.Real) and not isinstance(value, numbers.Integral)):
            if for_json and not math.isfinite(value):
                raise ScenarioError(f"expected a finite number, got {value}", file=origin, field=_field(path), code="invalid")
            plain = plain and isinstance(value, float) and math.isfinite(value)
        elif for_json and not isinstance(value, (*_JSON_SCALARS, numbers.Real)):
            raise ScenarioError(
                f"a value of type {type(value).__name__} cannot be sent to the simulator: "
                "expected a string, number, boolean, list or table",
                file=origin,
                field=_field(path),
                code="parse",
            )
        elif not isinstance(value, _JSON_SCALARS):
            plain = False
    return plain


def _check_text(text: str, origin: str, path: list[str | int]) -> None:
    if text.isascii():
        return
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ScenarioError(
            f"not valid Unicode: a lone surrogate U+{ord(text[exc.start]):04X} at character {exc.start}",
            file=origin,
            field=_field(path),
            code="parse",
        ) from None


def _check_source(text: str, origin: str) -> None:
    """Refuse scenario text with a lone surrogate anywhere (a comment, a key, a string),
    naming its line and column: it cannot be UTF-8, so nothing downstream could read it."""
    if text.isascii():
        return
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        line = text.count("\n", 0, exc.start) + 1
        column = exc.start - (text.rfind("\n", 0, exc.start) + 1) + 1
        raise ScenarioError(
            f"not valid Unicode: a lone surrogate U+{ord(text[exc.start]):04X} (line {line}, column {column})",
            file=origin,
            code="parse",
        ) from None


_AT = re.compile(r"\((line \d+, column \d+)\)$")


def _deep_at(text: str, fmt: Format, origin: str) -> str:
    """`` (line L, column C)`` where the core's parser found nesting too deep, if it did."""
    try:
        _core.validate(text, fmt, origin)
    except ScenarioError as exc:
        m = _AT.search(exc.message) if "recursion" in exc.message else None
        return f" ({m.group(1)})" if m else ""
    return ""


def _field(path: list[str | int]) -> str:
    return printable(_format_path([k if isinstance(k, int) else printable(k) for k in path]))


def _json_default(value: Any) -> Any:
    """numpy and other numbers (a grid taken from a DataFrame) as plain JSON numbers."""
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    raise TypeError(f"{type(value).__name__} is not JSON serializable")  # refused by _check_document first


def check_seed(seed: Any, origin: str = "") -> int | None:
    """``seed`` as an int, or a :class:`ScenarioError` unless it is ``None`` or in ``0..=SEED_MAX``."""
    if seed is None:
        return None
    if isinstance(seed, numbers.Integral) and not isinstance(seed, bool) and 0 <= int(seed) <= SEED_MAX:
        return int(seed)
    got = f"got {seed}" if isinstance(seed, numbers.Integral) and abs(int(seed)) < 10**30 else f"got a {type(seed).__name__}"
    raise ScenarioError(f"expected a seed between 0 and {SEED_MAX}, {got}", file=origin, field="seed")


class Scenario:
    """A scenario: the document (a nested dict mirroring the TOML file) and its origin.

    Make one with :meth:`from_toml` (a file), :meth:`from_str` (TOML or JSON text),
    :meth:`from_dict` (Python data) or :func:`atmsim.load_scenario` (any of these); the
    fields are those of docs/scenario.md. Read and change fields by dotted path, as error
    messages name them (:meth:`get`, :meth:`set`, e.g. ``"tcp[0].window_bytes"``); check it
    with :meth:`validate` and run it with :meth:`run`, which returns :class:`atmsim.Results`.

    ``origin`` is the file name (or ``"<string>"``, ``"<python>"``) that errors name. Python
    checks only the document's shape (depth, valid Unicode, seeds); the core validates the
    rest and raises :class:`atmsim.ScenarioError` naming the field::

        s = Scenario.from_toml("scenarios/magic95/table1_w128k.toml")
        s.set("tcp[0].window_bytes", 65536).validate()
        print(s.run(seed=2).connections()[["name", "goodput_bps"]])

    Two scenarios are equal when their documents are.
    """

    def __init__(self, doc: dict[str, Any], origin: str = "<python>", *, _source: tuple[str, Format] | None = None) -> None:
        plain = check_document(doc, origin, for_json=_source is None)
        self._doc = doc
        self.origin = origin
        # (text, fmt) of the unmodified original, or None once the document diverges.
        self._source = _source
        # The original is TOML that JSON carries unchanged: the core reads the JSON (no tree
        # of the TOML text) and the TOML text only to locate an error it reports.
        self._as_json = plain and _source is not None and _source[1] == "toml"

    # ----- constructors -------------------------------------------------------------
    @classmethod
    def from_toml(cls, path: str | Path) -> Scenario:
        """Read a TOML scenario file. Missing or unreadable file: OSError (FileNotFoundError,
        IsADirectoryError, ...); not UTF-8, too large or bad TOML: ScenarioError."""
        return cls.from_str(read_scenario_file(path), origin=printable(str(path)))

    @classmethod
    def from_str(cls, text: str | bytes, fmt: Format = "toml", origin: str = "<string>") -> Scenario:
        """Parse scenario text (``fmt`` is ``"toml"`` or ``"json"``; bytes must be UTF-8)."""
        if fmt not in ("toml", "json"):
            raise ScenarioError(f"expected \"toml\" or \"json\", got {fmt!r}", file=origin, field="fmt", code="parse")
        if isinstance(text, bytes | bytearray):
            text = _decode(bytes(text), origin)
        elif not isinstance(text, str):
            raise ScenarioError(f"expected scenario text, got a {type(text).__name__}", file=origin, code="parse")
        try:
            doc = tomllib.loads(text) if fmt == "toml" else json.loads(text)
        except RecursionError:
            raise ScenarioError(f"nested deeper than {MAX_DEPTH} levels{_deep_at(text, fmt, origin)}", file=origin, code="parse") from None
        except (tomllib.TOMLDecodeError, json.JSONDecodeError) as exc:
            _check_source(text, origin)  # a lone surrogate, which the core cannot be handed
            # The core's parser is the authority on error messages: let it report if it can.
            try:
                _core.validate(text, fmt, origin)
            except SimulationError:
                pass  # the core failed to say; fall back to the Python parser's message
            raise ScenarioError(str(exc), file=origin, code="parse") from exc
        if not isinstance(doc, dict):  # JSON: the first value written
            at = len(text) - len(text.lstrip())
            line, column = text.count("\n", 0, at) + 1, at - (text.rfind("\n", 0, at) + 1) + 1
            raise ScenarioError(f"expected a table at the top level (line {line}, column {column})", file=origin, code="parse")
        scenario = cls(doc, origin, _source=(text, fmt))  # a surrogate in a string: its field named
        _check_source(text, origin)  # elsewhere (a comment): its line and column
        return scenario

    @classmethod
    def from_dict(cls, doc: Mapping[str, Any], origin: str = "<python>") -> Scenario:
        """Wrap a nested dict (deep-copied, so later changes to ``doc`` do not leak in)."""
        if not isinstance(doc, Mapping):
            raise ScenarioError(f"expected a table (a dict), got a {type(doc).__name__}", file=origin, code="parse")
        check_document(doc, origin, for_json=True)  # before deepcopy, which recurses
        return cls(copy.deepcopy(dict(doc)), origin)

    # ----- access -------------------------------------------------------------------
    @property
    def doc(self) -> dict[str, Any]:
        """A deep copy of the document (edit through :meth:`set`)."""
        return copy.deepcopy(self._doc)

    @property
    def name(self) -> str:
        """The document's ``scenario.name`` if it has one, else the file's stem, else
        ``"scenario"`` (progress bars and default output directories use it)."""
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
        check_document(value, self.origin, keys, for_json=True)
        node[last] = copy.deepcopy(value)
        self._source = None
        return self

    def copy(self) -> Scenario:
        """An independent copy (the document deep-copied, the same origin)."""
        return Scenario(copy.deepcopy(self._doc), self.origin, _source=self._source)

    # ----- serialisation ------------------------------------------------------------
    def to_toml(self) -> str:
        """The document as TOML text (``ScenarioError`` for what TOML cannot hold, e.g. ``None``)."""
        check_document(self._doc, self.origin)
        try:
            return tomli_w.dumps(self._doc)
        except (TypeError, ValueError) as exc:  # e.g. None, which TOML cannot express
            raise ScenarioError(f"cannot be written as TOML: {exc}", file=self.origin, code="parse") from None

    def to_json(self) -> str:
        """The document as JSON text (numpy numbers become plain numbers; NaN is refused)."""
        check_document(self._doc, self.origin, for_json=True)
        return json.dumps(self._doc, default=_json_default, allow_nan=False)

    def _text(self) -> tuple[str, Format]:
        return self._source if self._source is not None else (self.to_json(), "json")

    def _core_call(self, call: Callable[[str, Format], Any]) -> Any:
        """``call(text, fmt)`` on what the core reads: JSON of a document read from TOML (its
        peak memory is the parsed model's, not a tree of the text's), the text otherwise. A
        ScenarioError from the JSON is raised again from the TOML text, with its line and column."""
        if not self._as_json or self._source is None:
            return call(*self._text())
        try:
            return call(json.dumps(self._doc, allow_nan=False), "json")
        except ScenarioError:
            _core.validate(*self._source, self.origin)
            raise

    # ----- core ---------------------------------------------------------------------
    def validate(self) -> Scenario:
        """Ask the core to parse and validate; raise ScenarioError if it refuses."""
        self._core_call(lambda text, fmt: _core.validate(text, fmt, self.origin))
        return self

    def run(self, seed: int | None = None, progress: ProgressArg = False, batching: bool | None = None) -> Results:
        """Run the scenario and return :class:`atmsim.Results`.

        ``seed``: overrides ``simulation.seed`` (0 to :data:`SEED_MAX`). ``progress``: False
        (silent), True (a progress bar on stderr), or a callable taking the fraction of
        simulated time done. ``batching``: ``None`` keeps ``simulation.batching``; ``False``
        serves every cell as its own event (results are identical either way). Raises
        :class:`atmsim.ScenarioError` for a scenario the core refuses and
        :class:`atmsim.SimulationError` if the simulator fails; Ctrl-C stops the run within
        about a second (``KeyboardInterrupt``).
        """
        seed = check_seed(seed, self.origin)
        if batching is not None and not isinstance(batching, bool):
            raise ScenarioError(f"expected True, False or None, got a {type(batching).__name__}", file=self.origin, field="batching")
        if progress is True:
            from ._progress import progress_bar

            with progress_bar(self.name) as report:
                raw = self._core_call(lambda text, fmt: _core.run(text, fmt, self.origin, seed=seed, batching=batching, progress=report))
        else:
            callback = progress if callable(progress) else None
            raw = self._core_call(lambda text, fmt: _core.run(text, fmt, self.origin, seed=seed, batching=batching, progress=callback))
        # Imported after the run: it brings pandas, pyarrow and numpy (about 0.5 s and 90 MiB),
        # which the simulation does not need (docs/performance.md, "Start-up").
        from ._run_results import Results

        return Results.from_core(raw, scenario=self)

    def __repr__(self) -> str:
        return f"Scenario(name={self.name!r}, origin={self.origin!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Scenario) and self._doc == other._doc


def validate_file(path: str | Path) -> None:
    """Validate a TOML scenario file without making its Python document: the core reads the
    text itself, one array element at a time, so a generated file of tens of thousands of VCs
    or connections is checked in a fraction of the time and memory the document would take
    (docs/performance.md, "The scenario reader"). Raises what
    ``Scenario.from_toml(path).validate()`` raises, with the same message: a file the core
    refuses is read again that way to report it."""
    text = read_scenario_file(path)
    origin = printable(str(path))
    _check_source(text, origin)
    try:
        _core.validate(text, "toml", origin)
    except ScenarioError:
        Scenario.from_str(text, origin=origin).validate()
        raise


def load_scenario(source: str | Path | Mapping[str, Any] | Scenario) -> Scenario:
    """A :class:`Scenario` from a TOML file's path (``str`` or ``Path``), a dict of the
    document, or a :class:`Scenario` (returned as it is, not copied). The file is read as by
    :meth:`Scenario.from_toml`: a missing one raises ``FileNotFoundError``, a malformed one
    :class:`atmsim.ScenarioError`."""
    if isinstance(source, Scenario):
        return source
    if isinstance(source, Mapping):
        return Scenario.from_dict(source)
    return Scenario.from_toml(source)
