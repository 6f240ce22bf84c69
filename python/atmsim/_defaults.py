"""Defaults shared by the command line and the library, in a module that imports nothing heavy
(the CLI reads them while it builds its options, before any simulation or store is needed)."""

from __future__ import annotations

#: How long a writer waits for another process's lock on a results store [s].
DEFAULT_LOCK_TIMEOUT_S = 600.0
#: The results store's file name where none is given (in --out, else the current directory).
DEFAULT_STORE = "results.duckdb"
