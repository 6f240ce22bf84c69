//! Scenarios: parse a TOML/JSON document, validate it, build the [`crate::net::Network`].
//!
//! Owns: [`Format`], [`parse`] (text → [`model::ScenarioDoc`], with the dotted path of the offending
//! field in every error) and re-exports [`build::build`] (document → network, with every
//! cross-reference and range checked before anything runs).

pub mod build;
pub mod internet;
pub mod limits;
pub mod locate;
pub mod model;
mod sections;
pub mod table;

pub use build::build;
pub use model::ScenarioDoc;

use crate::error::{Error, Result};

/// Text format of a scenario.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Toml,
    Json,
}

/// Parse a scenario document. Errors carry `origin` as the file and the field path.
pub fn parse(text: &str, format: Format, origin: &str) -> Result<ScenarioDoc> {
    let r = match format {
        Format::Toml => match sections::parse_toml(text) {
            Some(doc) => Ok(doc),
            None => parse_toml_tree(text),
        },
        Format::Json => {
            let mut de = serde_json::Deserializer::from_str(text);
            serde_path_to_error::deserialize(&mut de)
                .map(|t: table::Table<ScenarioDoc>| t.0)
                .map_err(|e| {
                    let path = clean_path(&e.path().to_string());
                    let inner = e.into_inner();
                    let mut msg = inner.to_string();
                    // A wrong value in a named field is located by the field: the position is
                    // dropped, for it points into JSON the user may never have written (a
                    // document from Python). A syntax error keeps its position.
                    let at = format!(" at line {} column {}", inner.line(), inner.column());
                    let data = inner.classify() == serde_json::error::Category::Data;
                    if data && !path.is_empty() && msg.ends_with(&at) {
                        msg.truncate(msg.len() - at.len());
                    }
                    Error::parse(path, in_words(&one_line(&msg)))
                })
                .and_then(|doc| match de.end() {
                    Ok(()) => Ok(doc),
                    Err(e) => Err(Error::parse("", one_line(&e.to_string()))),
                })
        }
    };
    r.map_err(|e| e.in_file(origin))
}

/// A TOML document read as one tree ([`sections`] hands every text it does not read in parts
/// here): the model, or the first error written, with its field and position.
fn parse_toml_tree(text: &str) -> Result<ScenarioDoc> {
    match toml::de::DeTable::parse(text) {
        Err(e) => Err(toml_error(text, String::new(), e.message(), e.span())),
        Ok(root) => match integer_beyond_64_bits(root.get_ref()) {
            Some(at) => Err(toml_error(text, String::new(), TOO_LARGE, Some(at))),
            None => serde_path_to_error::deserialize(toml::Deserializer::from(root))
                .map(|t: table::Table<ScenarioDoc>| t.0)
                .map_err(|e| {
                    let path = clean_path(&e.path().to_string());
                    let inner = e.into_inner();
                    toml_error(text, path, inner.message(), inner.span())
                }),
        },
    }
}

/// A TOML error with its position: the message in words and on one line, then `(line L, column
/// C)`. An error found while the text is read (before any field) names the field written there.
fn toml_error(text: &str, mut path: String, message: &str, span: Option<std::ops::Range<usize>>) -> Error {
    let mut msg = in_words(&one_line(message));
    if let Some(span) = span {
        let (line, col) = line_col(text, span.start);
        msg = format!("{msg} (line {line}, column {col})");
        if path.is_empty() && message.contains(TOO_LARGE) {
            path = locate::field_at(text, span.start);
        }
    }
    Error::parse(path, msg)
}

/// The span of the first integer written in the text (TOML integers are 64-bit signed) that
/// does not fit in an `i64`, if any. The parser keeps an integer's digits; serde would otherwise
/// take a larger one into a wider field, or lose its value in the message.
fn integer_beyond_64_bits(root: &toml::de::DeTable) -> Option<std::ops::Range<usize>> {
    use toml::de::DeValue;
    let mut first: Option<std::ops::Range<usize>> = None;
    let mut stack: Vec<&toml::Spanned<DeValue>> = root.values().collect();
    while let Some(v) = stack.pop() {
        match v.get_ref() {
            DeValue::Integer(i) if i64::from_str_radix(i.as_str(), i.radix()).is_err() => {
                first = first.into_iter().chain([v.span()]).min_by_key(|span| span.start);
            }
            DeValue::Array(a) => stack.extend(a.iter()),
            DeValue::Table(t) => stack.extend(t.values()),
            _ => {}
        }
    }
    first
}

/// Error messages stay on one line (the CLI prints exactly one line per error).
fn one_line(m: &str) -> String {
    m.trim().split('\n').map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join("; ")
}

/// The message for a TOML integer beyond 64 bits (put in words, with the range, by [`in_words`]).
const TOO_LARGE: &str = "number too large to fit in target type";

/// serde's expectations named in words, not as Rust types: "expected f64" → "expected a
/// number", "expected u32" → "expected a non-negative integer", …; an integer out of a type's
/// range ("invalid value: integer `N`, expected i64") gets the range.
fn in_words(m: &str) -> String {
    const RANGES: [(&str, &str); 10] = [
        ("u64", "an integer between 0 and 18446744073709551615"),
        ("usize", "an integer between 0 and 18446744073709551615"),
        ("u32", "an integer between 0 and 4294967295"),
        ("u16", "an integer between 0 and 65535"),
        ("u8", "an integer between 0 and 255"),
        ("i64", "an integer between -9223372036854775808 and 9223372036854775807"),
        ("isize", "an integer between -9223372036854775808 and 9223372036854775807"),
        ("i32", "an integer between -2147483648 and 2147483647"),
        ("i16", "an integer between -32768 and 32767"),
        ("i8", "an integer between -128 and 127"),
    ];
    if m.starts_with("invalid value: integer") {
        if let Some((ty, words)) = RANGES.iter().find(|(ty, _)| m.ends_with(&format!("expected {ty}"))) {
            return format!("{}expected {words}", &m[..m.len() - ty.len() - "expected ".len()]);
        }
    }
    const TYPES: [(&str, &str); 13] = [
        ("f64", "a number"),
        ("f32", "a number"),
        ("u64", "a non-negative integer"),
        ("u32", "a non-negative integer"),
        ("u16", "a non-negative integer"),
        ("u8", "a non-negative integer"),
        ("usize", "a non-negative integer"),
        ("i64", "an integer"),
        ("i32", "an integer"),
        ("i16", "an integer"),
        ("i8", "an integer"),
        ("isize", "an integer"),
        ("bool", "true or false"),
    ];
    let mut out = m.replace(
        TOO_LARGE,
        "an integer too large: expected an integer between -9223372036854775808 and 9223372036854775807",
    );
    for (ty, words) in TYPES {
        let (before, after) = (format!("expected {ty}"), format!("expected {words}"));
        // Whole words only: "expected u8" is not the start of "expected u8x".
        let mut rest = out.as_str();
        let mut done = String::with_capacity(out.len());
        while let Some(k) = rest.find(&before) {
            let tail = &rest[k + before.len()..];
            done.push_str(&rest[..k]);
            let whole = !tail.starts_with(|c: char| c.is_alphanumeric() || c == '_');
            done.push_str(if whole { &after } else { &before });
            rest = tail;
        }
        done.push_str(rest);
        out = done;
    }
    out
}

/// serde_path_to_error prints "." for the root and "?" for unknown segments.
fn clean_path(p: &str) -> String {
    if p == "." {
        String::new()
    } else {
        p.to_string()
    }
}

fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
    (line, col)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINI: &str = r#"
[simulation]
duration_s = 1.0
[[host]]
name = "a"
"#;

    #[test]
    fn minimal_document_parses_with_defaults() {
        let d = parse(MINI, Format::Toml, "mini.toml").unwrap();
        assert_eq!(d.simulation.seed, 1);
        assert!(d.simulation.batching);
        assert_eq!(d.hosts[0].mtu_bytes, 9180);
    }

    #[test]
    fn unknown_field_is_named_with_its_path() {
        let text = MINI.replace("name = \"a\"", "name = \"a\"\nmtu = 3");
        let e = parse(&text, Format::Toml, "x.toml").unwrap_err();
        assert_eq!(e.file, "x.toml");
        assert_eq!(e.field, "host[0].mtu");
        assert!(e.message.contains("unknown field `mtu`"), "{}", e.message);
    }

    #[test]
    fn wrong_type_is_named_with_its_path_and_line() {
        let text = MINI.replace("duration_s = 1.0", "duration_s = \"long\"");
        let e = parse(&text, Format::Toml, "x.toml").unwrap_err();
        assert_eq!(e.field, "simulation.duration_s");
        assert!(e.message.contains("line 3"), "{}", e.message);
    }

    #[test]
    fn expectations_are_in_words_and_a_json_field_error_has_no_position() {
        let text = r#"{"simulation": {"duration_s": "long"}, "host": [{"name": "h", "mtu_bytes": 1.5}]}"#;
        let e = parse(text, Format::Json, "<python>").unwrap_err();
        assert_eq!(e.field, "simulation.duration_s");
        assert_eq!(e.message, r#"invalid type: string "long", expected a number"#);
        let e =
            parse(&MINI.replace("name = \"a\"", "name = \"a\"\nmtu_bytes = 1.5"), Format::Toml, "x.toml").unwrap_err();
        assert!(
            e.message.starts_with("invalid type: floating point `1.5`, expected an integer (line 6"),
            "{}",
            e.message
        );
        assert_eq!(in_words("expected u8x, expected u8"), "expected u8x, expected a non-negative integer");
        // A syntax error names no field: its position is all there is.
        let e = parse(r#"{"simulation": "#, Format::Json, "<python>").unwrap_err();
        assert!(e.message.contains("line 1 column"), "{}", e.message);
    }

    #[test]
    fn a_toml_integer_beyond_64_bits_names_its_field_its_position_and_the_range() {
        let text = MINI.replace("name = \"a\"", "name = \"a\"\nmtu_bytes = 99999999999999999999");
        let e = parse(&text, Format::Toml, "x.toml").unwrap_err();
        assert_eq!(e.field, "host[0].mtu_bytes");
        assert_eq!(
            e.message,
            "an integer too large: expected an integer between -9223372036854775808 and 9223372036854775807 \
             (line 6, column 13)"
        );
    }

    #[test]
    fn a_toml_integer_beyond_i64_is_refused_even_for_a_wider_field_and_the_first_written_is_named() {
        let text = MINI.replace("name = \"a\"", "name = \"a\"\nmtu_bytes = 9223372036854775808");
        let e = parse(&text, Format::Toml, "x.toml").unwrap_err();
        assert_eq!(e.field, "host[0].mtu_bytes");
        assert!(e.message.starts_with("an integer too large: expected an integer between"), "{}", e.message);
        let text = "[simulation]\nduration_s = 99999999999999999999\n[[host]]\nname = \"a\"\n\
                    seed = 99999999999999999999\n";
        let e = parse(text, Format::Toml, "x.toml").unwrap_err();
        assert_eq!(e.field, "simulation.duration_s", "a float field takes no integer beyond 64 bits");
        assert!(e.message.ends_with("(line 2, column 14)"), "{}", e.message);
    }

    #[test]
    fn the_first_error_in_a_table_is_the_first_written() {
        let text = MINI.replace("name = \"a\"", "name = 5\nmtu_bytes = \"x\"");
        let e = parse(&text, Format::Toml, "x.toml").unwrap_err();
        assert_eq!(e.field, "host[0].name", "{}", e.message);
    }

    #[test]
    fn an_integer_beyond_a_fields_type_gets_the_types_range_in_words() {
        assert_eq!(
            in_words("invalid value: integer `-1`, expected u8"),
            "invalid value: integer `-1`, expected an integer between 0 and 255"
        );
        let text = r#"{"simulation": {"duration_s": 1}, "host": [{"name": "h", "mtu_bytes": 9223372036854775808}]}"#;
        let e = parse(text, Format::Json, "<python>").unwrap_err();
        assert_eq!(e.field, "host[0].mtu_bytes");
        assert_eq!(
            e.message,
            "invalid value: integer `9223372036854775808`, expected an integer between -9223372036854775808 and \
             9223372036854775807"
        );
    }

    #[test]
    fn a_vc_without_optional_sections_is_small_in_a_parsed_document() {
        assert!(std::mem::size_of::<model::VcSec>() <= 96, "{}", std::mem::size_of::<model::VcSec>());
    }

    #[test]
    fn toml_syntax_error_reports_a_line() {
        let e = parse("[simulation\nduration_s = 1", Format::Toml, "x.toml").unwrap_err();
        assert!(e.message.contains("line 1"), "{}", e.message);
        assert!(!e.message.contains('\n'), "{}", e.message);
    }

    #[test]
    fn json_documents_use_the_same_model() {
        let d = parse(r#"{"simulation": {"duration_s": 2.0}, "host": [{"name": "h"}]}"#, Format::Json, "<py>").unwrap();
        assert_eq!(d.hosts.len(), 1);
        let e = parse(r#"{"simulation": {"duration_s": 2.0, "bogus": 1}}"#, Format::Json, "<py>").unwrap_err();
        assert_eq!(e.field, "simulation.bogus");
    }
}
