//! The one place where errors become Python exceptions.
//!
//! The exception classes live in `atmsim/errors.py` (they need multiple inheritance:
//! `ScenarioError(AtmsimError, ValueError)`, `SimulationError(AtmsimError, RuntimeError)`);
//! this module picks the class by the core's stable error code and fills in
//! `.file`, `.field`, `.message` and `.code`.
//!
//! | core `ErrorKind` | code | Python exception |
//! |---|---|---|
//! | `Parse` | `"parse"` | `atmsim.ScenarioError` |
//! | `Invalid` | `"invalid"` | `atmsim.ScenarioError` |
//! | `Internal` | `"internal"` | `atmsim.SimulationError` |
//! | `Interrupted` | `"interrupted"` | the Python error that asked to stop (Ctrl-C, callback) |
//! | (panic in the core) | `"internal"` | `atmsim.SimulationError` |

use atmsim_core::{Error, ErrorKind};
use pyo3::prelude::*;
use pyo3::types::PyDict;

fn class_for(kind: ErrorKind) -> &'static str {
    match kind {
        ErrorKind::Parse | ErrorKind::Invalid => "ScenarioError",
        // `Interrupted` only arises when Python asked to stop; the Python error is raised
        // instead (see `interrupt`), so this mapping is a fallback.
        ErrorKind::Internal | ErrorKind::Interrupted => "SimulationError",
    }
}

fn build(py: Python<'_>, class: &str, file: &str, field: &str, message: &str, code: &str) -> PyErr {
    let make = || -> PyResult<PyErr> {
        let cls = py.import("atmsim.errors")?.getattr(class)?;
        let kwargs = PyDict::new(py);
        kwargs.set_item("file", file)?;
        kwargs.set_item("field", field)?;
        kwargs.set_item("code", code)?;
        let exc = cls.call((message,), Some(&kwargs))?;
        Ok(PyErr::from_value(exc))
    };
    // If the Python side cannot even be imported, that import error is the better report.
    make().unwrap_or_else(|import_failed| import_failed)
}

/// Convert a core error into the matching `atmsim` exception.
pub fn to_pyerr(py: Python<'_>, e: &Error) -> PyErr {
    build(py, class_for(e.kind), &e.file, &e.field, &e.message, e.kind.code())
}

/// A panic inside the core is a bug: report it as a `SimulationError`.
pub fn panic_to_pyerr(py: Python<'_>, origin: &str, msg: &str) -> PyErr {
    let message = format!("simulator panicked (a bug, please report): {msg}");
    build(py, "SimulationError", origin, "", &message, ErrorKind::Internal.code())
}
