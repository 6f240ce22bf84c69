//! Running the core with the GIL released, while staying interruptible.
//!
//! The core reports progress through `&mut dyn FnMut(f64) -> ControlFlow<()>`. At each
//! report we re-attach to the interpreter, call the user's callback (if any) and check for
//! pending signals; if Python has an error pending (Ctrl-C, or an exception raised by the
//! callback) we return `Break`, the core stops at once, and the Python error is re-raised.
//! A panic inside the core (a bug) is caught here and surfaces as `SimulationError`.

use std::ops::ControlFlow;
use std::panic::{self, AssertUnwindSafe};

use pyo3::prelude::*;

pub enum Outcome<T> {
    /// The core returned (successfully or with its own error).
    Done(T),
    /// Python raised during a progress report (KeyboardInterrupt, callback error).
    Stopped(PyErr),
    /// The core panicked: a bug.
    Panicked(String),
}

/// Run `body` (which must not hold the GIL) passing it a progress reporter.
pub fn run_interruptible<T>(
    body: impl FnOnce(&mut dyn FnMut(f64) -> ControlFlow<()>) -> T,
    callback: Option<Py<PyAny>>,
) -> Outcome<T> {
    let mut stopped: Option<PyErr> = None;
    let mut report = |fraction: f64| {
        let failed = Python::attach(|py| -> Option<PyErr> {
            if let Some(cb) = &callback {
                if let Err(e) = cb.call1(py, (fraction,)) {
                    return Some(e);
                }
            }
            py.check_signals().err()
        });
        match failed {
            Some(e) => {
                stopped = Some(e);
                ControlFlow::Break(())
            }
            None => ControlFlow::Continue(()),
        }
    };
    let result = panic::catch_unwind(AssertUnwindSafe(|| body(&mut report)));
    match (result, stopped) {
        (Ok(_), Some(e)) => Outcome::Stopped(e),
        (Ok(value), None) => Outcome::Done(value),
        (Err(payload), _) => {
            let msg = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_string());
            Outcome::Panicked(msg)
        }
    }
}
