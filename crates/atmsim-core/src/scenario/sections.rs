//! A TOML scenario read one array element at a time.
//!
//! Owns [`parse_toml`]: the model of a TOML document read so that only one element of an
//! array of tables (`[[vc]]`, `[[tcp]]`, … with the sub-tables written under it, such as
//! `[vc.shape]`) is held as a tree at a time, not the whole text.
//!
//! **Why.** The `toml` crate reads a document into a tree of spanned keys and values (its tokens
//! first, then an ordered map per table) before serde reads the model from it. For a generated
//! scenario of 64,000 `[[vc]]` tables that tree peaks at about 2.2 KB a VC, ten times the model
//! it is read into (about 200 B a VC; docs/performance.md, "The scenario reader"). Here the text
//! is cut at its top-level headers, found with the `toml_parser` lexer (which allocates
//! nothing), and each element is read as a small document of its own and appended to the model:
//! the peak is the model plus one element's tree.
//!
//! **Why it is the same model.** An element of an array of tables is a new table each time its
//! header is written, and its sub-tables (headers whose first key is the array's name) belong
//! to the element written last; read alone, the text from `[[name]]` to the next other header
//! gives that element exactly. What is left (the root, `[simulation]`, any other table) is
//! read as one document, and must not itself hold a key named like one of the arrays read in
//! parts — `[vc]`, `vc = [...]`, a `[vc.shape]` written after an unrelated header — or the
//! parts could not be appended without changing the meaning. Any such case, any header this
//! reader does not take apart (a quoted key), and **any error at all** hand the whole text to
//! the one-tree reader ([`super::parse`]), so every message and position reported is the one
//! that reader gives: the first error written is the first reported.

use super::model::ScenarioDoc;
use super::table;
use serde::Deserialize;
use std::ops::Range;
use toml::de::DeTable;
use toml_parser::lexer::TokenKind;
use toml_parser::Source;

/// The model of TOML `text` read element by element (module docs), or `None` where the whole
/// text must be read as one tree (an unusual layout, or an error to report).
pub fn parse_toml(text: &str) -> Option<ScenarioDoc> {
    let Split { rest, groups } = split(text)?;
    let root = DeTable::parse(&rest).ok()?;
    if super::integer_beyond_64_bits(root.get_ref()).is_some()
        || groups.iter().any(|g| root.get_ref().contains_key(g.name))
    {
        return None;
    }
    let mut doc = table::Table::<ScenarioDoc>::deserialize(toml::Deserializer::from(root)).ok()?.0;
    for g in &groups {
        let part = DeTable::parse(&text[g.range.clone()]).ok()?;
        if super::integer_beyond_64_bits(part.get_ref()).is_some() {
            return None;
        }
        let arrays = table::Table::<Arrays>::deserialize(toml::Deserializer::from(part)).ok()?.0;
        arrays.append_to(&mut doc);
    }
    Some(doc)
}

/// One element of a top-level array of tables: its name and its text (the `[[name]]` header
/// to the next header that is not one of its sub-tables).
#[derive(Debug, PartialEq)]
struct Group<'a> {
    name: &'a str,
    range: Range<usize>,
}

/// The text cut at its top-level headers: the elements of arrays of tables, and the rest.
struct Split<'a> {
    rest: String,
    groups: Vec<Group<'a>>,
}

/// A header found at the start of a line, outside any value: where its `[` is, whether it is
/// an array of tables (`[[…]]`), its first key and how many dotted keys it has. `None` for
/// the first key of a header this reader does not take apart (a quoted key).
struct Header<'a> {
    start: usize,
    array: bool,
    first: Option<&'a str>,
    keys: usize,
}

/// Cut `text` at its top-level headers (module docs); `None` if the lexer meets something the
/// one-tree reader must judge (unbalanced brackets, a malformed header).
fn split(text: &str) -> Option<Split<'_>> {
    let mut groups: Vec<Group> = Vec::new();
    let mut rest = String::new();
    // Where the section being read began, and the name of the array it is an element of.
    let (mut from, mut open): (usize, Option<&str>) = (0, None);
    for h in headers(text) {
        let h = h?;
        let sub = open.is_some() && h.keys >= 2 && h.first == open;
        if sub {
            continue; // a sub-table of the element being read: part of it
        }
        match open {
            Some(name) => groups.push(Group { name, range: from..h.start }),
            None => rest.push_str(&text[from..h.start]),
        }
        from = h.start;
        open = if h.array && h.keys == 1 { h.first } else { None };
    }
    match open {
        Some(name) => groups.push(Group { name, range: from..text.len() }),
        None => rest.push_str(&text[from..]),
    }
    Some(Split { rest, groups })
}

/// The top-level headers of `text`, in order; an item `None` stops the reading (module docs).
fn headers(text: &str) -> impl Iterator<Item = Option<Header<'_>>> {
    let mut tokens = Source::new(text).lex().peekable();
    // Open `[` and `{` of the value being read, and whether only whitespace or a comment has
    // been read on this line outside any value.
    let (mut depth, mut line_start) = (0usize, true);
    let mut failed = false;
    std::iter::from_fn(move || {
        if failed {
            return None;
        }
        while let Some(t) = tokens.next() {
            match t.kind() {
                TokenKind::Eof => return None,
                TokenKind::Newline => line_start |= depth == 0,
                TokenKind::Whitespace | TokenKind::Comment => {}
                TokenKind::LeftSquareBracket if line_start && depth == 0 => {
                    line_start = false;
                    let h = header(text, t.span().start(), &mut tokens);
                    failed = h.is_none();
                    return Some(h);
                }
                TokenKind::LeftSquareBracket | TokenKind::LeftCurlyBracket => {
                    line_start = false;
                    depth += 1;
                }
                TokenKind::RightSquareBracket | TokenKind::RightCurlyBracket => {
                    line_start = false;
                    let Some(d) = depth.checked_sub(1) else {
                        failed = true;
                        return Some(None);
                    };
                    depth = d;
                }
                _ => line_start = false,
            }
        }
        None
    })
}

/// The header whose `[` is at `start`, its tokens read from `tokens` up to its closing
/// bracket(s); `None` if it is malformed.
fn header<'a>(
    text: &'a str,
    start: usize,
    tokens: &mut std::iter::Peekable<toml_parser::lexer::Lexer<'a>>,
) -> Option<Header<'a>> {
    let array = tokens.next_if(|t| t.kind() == TokenKind::LeftSquareBracket && t.span().start() == start + 1).is_some();
    let (mut first, mut keys, mut quoted) = (None, 0, false);
    loop {
        let t = tokens.next()?;
        match t.kind() {
            TokenKind::Whitespace | TokenKind::Dot => {}
            TokenKind::Atom => {
                let key = &text[t.span().start()..t.span().end()];
                if !key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-') {
                    return None;
                }
                first = first.or(Some(key));
                keys += 1;
            }
            TokenKind::BasicString | TokenKind::LiteralString => {
                quoted |= keys == 0;
                keys += 1;
            }
            TokenKind::RightSquareBracket => {
                let end = t.span().end();
                if array
                    && tokens
                        .next_if(|t| t.kind() == TokenKind::RightSquareBracket && t.span().start() == end)
                        .is_none()
                {
                    return None;
                }
                break;
            }
            _ => return None,
        }
    }
    (keys > 0).then_some(Header { start, array, first: if quoted { None } else { first }, keys })
}

/// The arrays of tables of [`ScenarioDoc`], read from one element's text and appended to the
/// document (the same names and table checks as there).
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct Arrays {
    #[serde(default, deserialize_with = "table::many")]
    host: Vec<super::model::HostSec>,
    #[serde(default, deserialize_with = "table::many")]
    switch: Vec<super::model::SwitchSec>,
    #[serde(default, deserialize_with = "table::many")]
    link: Vec<super::model::LinkSec>,
    #[serde(default, deserialize_with = "table::many")]
    vc: Vec<super::model::VcSec>,
    #[serde(default, deserialize_with = "table::many")]
    tcp: Vec<super::model::TcpSec>,
    #[serde(default, deserialize_with = "table::many")]
    cell_source: Vec<super::model::CellSourceSec>,
    #[serde(default, deserialize_with = "table::many")]
    capture: Vec<super::model::CaptureSec>,
    #[serde(default, deserialize_with = "table::many")]
    router: Vec<super::model::RouterSec>,
    #[serde(default, deserialize_with = "table::many")]
    serial: Vec<super::model::SerialSec>,
    #[serde(default, deserialize_with = "table::many")]
    lan: Vec<super::model::LanSec>,
    #[serde(default, deserialize_with = "table::many")]
    udp: Vec<super::model::UdpSec>,
    #[serde(default, deserialize_with = "table::many")]
    site: Vec<super::model::SiteSec>,
    #[serde(default, deserialize_with = "table::many")]
    traffic: Vec<super::model::TrafficSec>,
}

impl Arrays {
    fn append_to(mut self, doc: &mut ScenarioDoc) {
        doc.hosts.append(&mut self.host);
        doc.switches.append(&mut self.switch);
        doc.links.append(&mut self.link);
        doc.vcs.append(&mut self.vc);
        doc.tcp.append(&mut self.tcp);
        doc.cell_sources.append(&mut self.cell_source);
        doc.captures.append(&mut self.capture);
        doc.routers.append(&mut self.router);
        doc.serial.append(&mut self.serial);
        doc.lans.append(&mut self.lan);
        doc.udp.append(&mut self.udp);
        doc.sites.append(&mut self.site);
        doc.traffic.append(&mut self.traffic);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The model as JSON, to compare two readings of one text.
    fn json(doc: &ScenarioDoc) -> String {
        serde_json::to_string(doc).expect("a model serializes")
    }

    fn same_as_one_tree(text: &str) {
        let parts = parse_toml(text).expect("read in parts");
        let tree = super::super::parse_toml_tree(text).expect("read as one tree");
        assert_eq!(json(&parts), json(&tree));
    }

    #[test]
    fn every_shipped_scenario_is_read_in_parts_as_one_tree_reads_it() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../python/atmsim/scenarios");
        let mut files = vec![dir];
        let mut n = 0;
        while let Some(p) = files.pop() {
            if p.is_dir() {
                files.extend(std::fs::read_dir(&p).unwrap().map(|e| e.unwrap().path()));
            } else if p.extension().is_some_and(|e| e == "toml") {
                let text = std::fs::read_to_string(&p).unwrap();
                let parts = parse_toml(&text).unwrap_or_else(|| panic!("{} not read in parts", p.display()));
                let tree = super::super::parse_toml_tree(&text).unwrap();
                assert_eq!(json(&parts), json(&tree), "{}", p.display());
                n += 1;
            }
        }
        assert!(n > 40, "only {n} scenarios found");
    }

    const HEAD: &str = "name = \"x\" # root keys first\n[simulation]\nduration_s = 1.0\n";

    #[test]
    fn sub_tables_multi_line_values_and_headers_with_spaces_stay_with_their_element() {
        let text = format!(
            "{HEAD}[[ host ]] # a comment\nname = \"a\"\n[[host]]\nname = \"b\"\n[[switch]]\nname = \"s\"\n\
             [[vc]]\nname = \"v\"\npath = [\n  \"a\",\n  \"s\", # [[vc]] in a comment\n  \"b\",\n]\n\
             [vc.shape]\nrate_cells_per_s = 1000.0\n[[vc]]\nname = \"w\"\npath = [\"a\", \"s\", \"b\"]\n"
        );
        same_as_one_tree(&text);
        let doc = parse_toml(&text).unwrap();
        assert_eq!(doc.hosts.len(), 2);
        assert_eq!(doc.vcs.len(), 2);
        assert!(doc.vcs[0].shape.is_some() && doc.vcs[1].shape.is_none());
    }

    #[test]
    fn a_nested_array_on_a_line_of_its_own_is_not_a_header() {
        let text = "[simulation]\nduration_s = 1.0\n[[host]]\nname = \"a\"\nx = [\n[1, 2],\n[3]\n]\n";
        let Split { groups, .. } = split(text).unwrap();
        assert_eq!(groups.len(), 1, "{groups:?}");
        assert_eq!(groups[0].range, text.find("[[host]]").unwrap()..text.len());
    }

    #[test]
    fn layouts_that_cannot_be_read_in_parts_go_to_the_one_tree_reader() {
        // A sub-table written after an unrelated header, the array's name as a key of the rest,
        // a quoted header, unbalanced brackets, and an error in an element.
        for text in [
            format!("{HEAD}[[vc]]\nname = \"v\"\n[switch_x]\n[vc.shape]\nrate_cells_per_s = 1.0\n"),
            format!("vc = []\n{HEAD}[[vc]]\nname = \"v\"\n"),
            format!("{HEAD}[\"vc\"]\nname = 1\n[[vc]]\nname = \"v\"\n"),
            format!("{HEAD}x = ]\n"),
            format!("{HEAD}[[vc]]\nname = 5\n"),
            format!("{HEAD}[[vc]]\nname = \"v\"\nname = \"w\"\n"),
            format!("{HEAD}[[simulation]]\nduration_s = 1.0\n"),
        ] {
            assert!(parse_toml(&text).is_none(), "{text}");
        }
    }

    #[test]
    fn the_first_error_written_is_the_one_reported() {
        let text = format!("{HEAD}[[host]]\nname = 5\n[[host]]\nname = \"b\"\nmtu = 1\n");
        let e = super::super::parse(&text, crate::scenario::Format::Toml, "x.toml").unwrap_err();
        assert_eq!(e.field, "host[0].name");
        assert!(e.message.contains("(line 5, column 8)"), "{}", e.message);
    }
}
