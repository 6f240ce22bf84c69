//! # atmsim._core — the thin PyO3 layer over `atmsim_core::api`
//!
//! Two functions, nothing else:
//!
//! * [`validate`] — parse and validate a scenario text, raise on error;
//! * [`run`] — parse, validate and run it, with the GIL released while the simulation runs.
//!
//! The pure-Python package (`python/atmsim`) builds everything user-facing on top of these.
//! Module layout:
//!
//! * `errors` — the one place where core errors become Python exceptions;
//! * `convert` — summary JSON and series columns to Python objects.
//!
//! Interrupts: the simulation runs with the GIL released. Each progress report
//! re-attaches to the interpreter, calls the user's callback (if any) and checks for
//! pending signals, so Ctrl-C (or an exception raised by the callback) stops the run
//! at the next report and is re-raised in Python.

mod convert;
mod errors;
mod interrupt;

use atmsim_core::api::{self, Format, RunOptions};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

fn parse_format(fmt: &str) -> PyResult<Format> {
    match fmt {
        "toml" => Ok(Format::Toml),
        "json" => Ok(Format::Json),
        other => Err(PyValueError::new_err(format!(
            "unknown scenario format {other:?}: expected \"toml\" or \"json\""
        ))),
    }
}

/// Parse and validate a scenario without running it. Raises `atmsim.ScenarioError`.
#[pyfunction]
#[pyo3(signature = (text, fmt = "toml", origin = "<string>"))]
fn validate(py: Python<'_>, text: &str, fmt: &str, origin: &str) -> PyResult<()> {
    let format = parse_format(fmt)?;
    let outcome = py.detach(|| api::validate_str(text, format, origin));
    outcome.map_err(|e| errors::to_pyerr(py, &e))
}

/// Parse, validate and run a scenario; return `{"summary": dict, "series": {...}}`.
///
/// `progress`, if given, is called with the fraction of simulated time done (0.0..=1.0).
#[pyfunction]
#[pyo3(signature = (text, fmt = "toml", origin = "<string>", *, seed = None, batching = None, progress = None))]
fn run<'py>(
    py: Python<'py>,
    text: &str,
    fmt: &str,
    origin: &str,
    seed: Option<u64>,
    batching: Option<bool>,
    progress: Option<Py<PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let format = parse_format(fmt)?;
    let opts = RunOptions { seed, batching };
    let outcome = py.detach(|| {
        interrupt::run_interruptible(|report| api::run_str(text, format, origin, opts, report), progress)
    });
    let output = match outcome {
        interrupt::Outcome::Done(Ok(out)) => out,
        interrupt::Outcome::Done(Err(e)) => return Err(errors::to_pyerr(py, &e)),
        interrupt::Outcome::Stopped(err) => return Err(err),
        interrupt::Outcome::Panicked(msg) => return Err(errors::panic_to_pyerr(py, origin, &msg)),
    };
    let result = PyDict::new(py);
    result.set_item("summary", convert::json_to_py(py, &output.summary)?)?;
    result.set_item("series", convert::series_to_py(py, &output.series)?)?;
    Ok(result)
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    interrupt::install_quiet_hook();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    Ok(())
}
