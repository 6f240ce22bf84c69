//! Stopping a build from outside: the caller's poll, consulted by the loops over hosts and
//! the forwarding-table searches at most every [`POLL_EVERY`] of wall time.
//!
//! Owns: [`Interrupt`], [`interrupted`] (the error of a build or run stopped by the caller).

use crate::error::{Error, ErrorKind, Result};
use std::ops::ControlFlow;
use std::time::{Duration, Instant};

/// Longest wall-clock time between two calls of a build's poll.
pub const POLL_EVERY: Duration = Duration::from_millis(50);

/// A build's interrupt check: [`Interrupt::check`] is cheap enough for every step of a loop
/// over hosts; it calls the poll once [`POLL_EVERY`] has passed since the last call.
pub struct Interrupt<'a> {
    poll: &'a mut dyn FnMut() -> ControlFlow<()>,
    last: Instant,
    steps: u32,
}

impl<'a> Interrupt<'a> {
    pub fn new(poll: &'a mut dyn FnMut() -> ControlFlow<()>) -> Self {
        Interrupt { poll, last: Instant::now(), steps: 0 }
    }

    /// `Err(Interrupted)` if the poll asks to stop.
    pub fn check(&mut self) -> Result<()> {
        self.steps = self.steps.wrapping_add(1);
        if !self.steps.is_multiple_of(256) || self.last.elapsed() < POLL_EVERY {
            return Ok(());
        }
        self.last = Instant::now();
        match (self.poll)() {
            ControlFlow::Continue(()) => Ok(()),
            ControlFlow::Break(()) => Err(interrupted()),
        }
    }

    /// [`Interrupt::check`] for a step that may itself take long (no step count).
    pub fn check_now(&mut self) -> Result<()> {
        self.steps = 255;
        self.check()
    }
}

/// The error of a build or run stopped by the caller.
pub fn interrupted() -> Error {
    Error {
        kind: ErrorKind::Interrupted,
        file: String::new(),
        field: String::new(),
        message: "stopped by the caller".into(),
    }
}
