//! Running the core with the GIL released, while staying interruptible.
//!
//! The core reports progress through `&mut dyn FnMut(f64)`, which cannot return an error.
//! To stop a run (Ctrl-C, or an exception raised by the user's progress callback) we
//! re-attach to the interpreter at each report, and if Python has an error pending we
//! unwind out of the core with a private [`Stop`] payload and catch it here. The core
//! keeps no global state, so dropping it mid-run is safe. A panic hook installed at
//! import keeps that controlled unwind silent; any other panic is reported as usual and
//! surfaces as `SimulationError`.

use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;

use pyo3::prelude::*;

/// Panic payload used to unwind out of the core when Python asked to stop.
struct Stop;

pub enum Outcome<T> {
    /// The core returned (successfully or with its own error).
    Done(T),
    /// Python raised during a progress report (KeyboardInterrupt, callback error).
    Stopped(PyErr),
    /// The core panicked: a bug.
    Panicked(String),
}

/// Install (once) a panic hook that stays quiet for [`Stop`] and defers to the previous
/// hook for every other panic.
pub fn install_quiet_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if info.payload().downcast_ref::<Stop>().is_none() {
                previous(info);
            }
        }));
    });
}

/// Run `body` (which must not hold the GIL) passing it a progress reporter.
pub fn run_interruptible<T>(
    body: impl FnOnce(&mut dyn FnMut(f64)) -> T,
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
        if let Some(e) = failed {
            stopped = Some(e);
            panic::panic_any(Stop);
        }
    };
    match panic::catch_unwind(AssertUnwindSafe(|| body(&mut report))) {
        Ok(value) => Outcome::Done(value),
        Err(payload) => {
            if payload.downcast_ref::<Stop>().is_some() {
                if let Some(e) = stopped {
                    return Outcome::Stopped(e);
                }
            }
            let msg = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_string());
            Outcome::Panicked(msg)
        }
    }
}
