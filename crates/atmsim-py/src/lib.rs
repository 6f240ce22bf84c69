//! # atmsim._core — the thin PyO3 layer over `atmsim_core::api`
//!
//! Two functions, and the names the core declares:
//!
//! * `validate` — parse and validate a scenario text, raise on error (interruptible as `run`);
//! * `run` — parse, validate and run it, with the GIL released while the simulation runs;
//! * constants: the metric names, policy and scheduler names, Mah's configurations and the
//!   summary's sections (`names`).
//!
//! The pure-Python package (`python/atmsim`) builds everything user-facing on top of these.
//! Module layout:
//!
//! * `errors` — the one place where core errors become Python exceptions;
//! * `convert` — summary JSON and series columns to Python objects;
//! * `names` — the lists of names, as module constants.
//!
//! Interrupts: the simulation runs with the GIL released. Each progress report
//! re-attaches to the interpreter, calls the user's callback (if any) and checks for
//! pending signals, so Ctrl-C (or an exception raised by the callback) stops the run
//! at the next report and is re-raised in Python.

mod convert;
mod errors;
mod interrupt;
mod names;

use atmsim_core::api::{self, Format, RunOptions};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

fn parse_format(fmt: &str) -> PyResult<Format> {
    match fmt {
        "toml" => Ok(Format::Toml),
        "json" => Ok(Format::Json),
        other => {
            Err(PyValueError::new_err(format!("unknown scenario format {other:?}: expected \"toml\" or \"json\"")))
        }
    }
}

/// Parse and validate a scenario without running it. Raises `atmsim.ScenarioError`; checks
/// for signals while it builds, so Ctrl-C stops a long validation (KeyboardInterrupt).
#[pyfunction]
#[pyo3(signature = (text, fmt = "toml", origin = "<string>"))]
fn validate(py: Python<'_>, text: &str, fmt: &str, origin: &str) -> PyResult<()> {
    let format = parse_format(fmt)?;
    let outcome = py.detach(|| {
        interrupt::run_interruptible(|report| api::validate_str_with(text, format, origin, &mut || report(0.0)), None)
    });
    match outcome {
        interrupt::Outcome::Done(r) => r.map_err(|e| errors::to_pyerr(py, &e)),
        interrupt::Outcome::Stopped(err) => Err(err),
        interrupt::Outcome::Panicked(msg) => Err(errors::panic_to_pyerr(py, origin, &msg)),
    }
}

/// Parse, validate and run a scenario; return `{"summary": dict, "series": {...},
/// "captures": [{"name": str, "host": str, "pcap": bytes}, ...]}`.
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
    let outcome =
        py.detach(|| interrupt::run_interruptible(|report| api::run_str(text, format, origin, opts, report), progress));
    let output = match outcome {
        interrupt::Outcome::Done(Ok(out)) => out,
        interrupt::Outcome::Done(Err(e)) => return Err(errors::to_pyerr(py, &e)),
        interrupt::Outcome::Stopped(err) => return Err(err),
        interrupt::Outcome::Panicked(msg) => return Err(errors::panic_to_pyerr(py, origin, &msg)),
    };
    let result = PyDict::new(py);
    result.set_item("summary", convert::json_to_py(py, &output.summary)?)?;
    result.set_item("series", convert::series_to_py(py, &output.series)?)?;
    result.set_item("captures", convert::captures_to_py(py, &output.captures)?)?;
    Ok(result)
}

/// Test hook: run the same machinery as [`run`] (GIL release, progress, interrupts,
/// conversions) over a fake simulation that reports `reports` times and returns the
/// given summary JSON and series, or fails after the reports with `error = (code, field,
/// message)` (code: "parse", "invalid", "internal", or "panic" to panic in the "core").
/// Lets the binding be tested without the simulator.
#[pyfunction]
#[pyo3(signature = (summary_json, time_s, entity, metric, value, *, reports = 10, progress = None, error = None))]
#[allow(clippy::too_many_arguments)]
fn _fake_run<'py>(
    py: Python<'py>,
    summary_json: &str,
    time_s: Vec<f64>,
    entity: Vec<String>,
    metric: Vec<String>,
    value: Vec<f64>,
    reports: u32,
    progress: Option<Py<PyAny>>,
    error: Option<(String, String, String)>,
) -> PyResult<Bound<'py, PyDict>> {
    let failure = match &error {
        None => None,
        Some((code, field, message)) => Some(match code.as_str() {
            "parse" => Ok(atmsim_core::Error::parse(field, message)),
            "invalid" => Ok(atmsim_core::Error::invalid(field, message)),
            "internal" => Ok(atmsim_core::Error::internal(message)),
            "panic" => Err(message.clone()),
            other => return Err(PyValueError::new_err(format!("unknown error code {other:?}"))),
        }),
    };
    let summary: serde_json::Value =
        serde_json::from_str(summary_json).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let series = api::Series::from_rows(time_s, &entity, &metric, value);
    let outcome = py.detach(|| {
        interrupt::run_interruptible(
            |report| {
                for k in 0..=reports {
                    if report(f64::from(k) / f64::from(reports.max(1))).is_break() {
                        return Err(atmsim_core::Error::internal("stopped").in_file("<fake>"));
                    }
                }
                match failure {
                    None => Ok((summary, series)),
                    Some(Ok(e)) => Err(e.in_file("<fake>")),
                    Some(Err(msg)) => panic!("{msg}"),
                }
            },
            progress,
        )
    });
    let (summary, series) = match outcome {
        interrupt::Outcome::Done(Ok(out)) => out,
        interrupt::Outcome::Done(Err(e)) => return Err(errors::to_pyerr(py, &e)),
        interrupt::Outcome::Stopped(err) => return Err(err),
        interrupt::Outcome::Panicked(msg) => return Err(errors::panic_to_pyerr(py, "<fake>", &msg)),
    };
    let result = PyDict::new(py);
    result.set_item("summary", convert::json_to_py(py, &summary)?)?;
    result.set_item("series", convert::series_to_py(py, &series)?)?;
    result.set_item("captures", convert::captures_to_py(py, &[])?)?;
    Ok(result)
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(_fake_run, m)?)?;
    names::add(m)?;
    Ok(())
}
