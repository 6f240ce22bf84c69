//! Errors: what went wrong, where in the input, and what was expected.
//!
//! Owns: [`Error`]. Every user-input problem names the scenario file, the dotted field path
//! (e.g. `link[2].rate_bps`) and what was expected. Errors never panic and are detected
//! before a run starts, so a failing run writes nothing.

use std::fmt;

/// Which stage refused the input. Stable codes, mapped to Python exceptions in one place
/// (`crates/atmsim-py`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The text is not valid TOML/JSON, has an unknown field or a value of the wrong type.
    Parse,
    /// Well-formed but impossible: unknown node, negative rate, VC over missing link, ...
    Invalid,
    /// The simulation itself failed (an internal invariant broke): a bug, please report.
    Internal,
    /// The caller's progress callback asked to stop; the run's results are discarded.
    Interrupted,
}

impl ErrorKind {
    pub fn code(self) -> &'static str {
        match self {
            ErrorKind::Parse => "parse",
            ErrorKind::Invalid => "invalid",
            ErrorKind::Internal => "internal",
            ErrorKind::Interrupted => "interrupted",
        }
    }
}

/// A precise error about a scenario.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    pub kind: ErrorKind,
    /// The scenario file (or `<python>` / `<string>` for in-memory scenarios).
    pub file: String,
    /// Dotted path of the offending field (empty when the whole document is at fault).
    pub field: String,
    /// What was wrong and what was expected.
    pub message: String,
}

/// `s` with every control character written as an escape (`\n`, `\u{1b}`): a message that
/// quotes user input stays one printable line.
fn escaped(s: String) -> String {
    if !s.chars().any(char::is_control) {
        return s;
    }
    s.chars().map(|c| if c.is_control() { c.escape_default().to_string() } else { c.to_string() }).collect()
}

impl Error {
    pub fn invalid(field: impl Into<String>, message: impl Into<String>) -> Self {
        Error {
            kind: ErrorKind::Invalid,
            file: String::new(),
            field: escaped(field.into()),
            message: escaped(message.into()),
        }
    }
    pub fn parse(field: impl Into<String>, message: impl Into<String>) -> Self {
        Error {
            kind: ErrorKind::Parse,
            file: String::new(),
            field: escaped(field.into()),
            message: escaped(message.into()),
        }
    }
    pub fn internal(message: impl Into<String>) -> Self {
        Error { kind: ErrorKind::Internal, file: String::new(), field: String::new(), message: message.into() }
    }
    pub fn in_file(mut self, file: &str) -> Self {
        if self.file.is_empty() {
            self.file = file.to_string();
        }
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.file.is_empty(), self.field.is_empty()) {
            (false, false) => write!(f, "{}: {}: {}", self.file, self.field, self.message),
            (false, true) => write!(f, "{}: {}", self.file, self.message),
            (true, false) => write!(f, "{}: {}", self.field, self.message),
            (true, true) => write!(f, "{}", self.message),
        }
    }
}

impl std::error::Error for Error {}

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_quoting_control_characters_stay_one_line() {
        let e = Error::invalid("host[0].name", "got `a\nb\u{1b}[31m`");
        assert_eq!(e.message, "got `a\\nb\\u{1b}[31m`");
        assert!(!e.to_string().chars().any(char::is_control), "{e}");
        assert_eq!(Error::parse("x\ty", "ok").field, "x\\ty");
    }
}
