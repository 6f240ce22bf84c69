//! The field a position of TOML text belongs to.
//!
//! Owns [`field_at`]: for the parser's errors that carry a position but no field path (a number
//! too large for any integer type is refused while the text is read, before any field is
//! deserialized), the dotted path (`host[3].mtu_bytes`, `traffic[0].app.item_scale`) of the key
//! written on that line. It reads table headers (`[simulation]`, `[[host]]`, counted per name)
//! and, on the error's line, the `key =` and inline-table braces before the position. It names
//! a field only when the line has one; otherwise it returns an empty path and the error keeps
//! its position alone.

/// The dotted path of the key whose value is at byte `offset` of `text`, or `""`.
pub fn field_at(text: &str, offset: usize) -> String {
    let offset = floor_char_boundary(text, offset.min(text.len()));
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let mut table = String::new();
    let mut arrays: Vec<(String, usize)> = Vec::new();
    for line in text[..line_start].lines() {
        if let Some((name, array)) = header(line) {
            table = if array {
                let k = match arrays.iter_mut().find(|(n, _)| *n == name) {
                    Some((_, k)) => {
                        *k += 1;
                        *k
                    }
                    None => {
                        arrays.push((name.clone(), 0));
                        0
                    }
                };
                format!("{name}[{k}]")
            } else {
                name
            };
        }
    }
    let keys = keys_before(&text[line_start..offset]);
    if keys.is_empty() {
        return String::new();
    }
    let inner = keys.join(".");
    if table.is_empty() {
        inner
    } else {
        format!("{table}.{inner}")
    }
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// `[name]` → (name, false), `[[name]]` → (name, true); `None` for any other line.
fn header(line: &str) -> Option<(String, bool)> {
    let line = line.split('#').next()?.trim();
    let (inner, array) = if let Some(r) = line.strip_prefix("[[").and_then(|r| r.strip_suffix("]]")) {
        (r, true)
    } else {
        (line.strip_prefix('[')?.strip_suffix(']')?, false)
    };
    let inner = inner.trim();
    let bare = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.';
    (!inner.is_empty() && inner.chars().all(bare) && inner.starts_with(|c: char| c.is_ascii_alphabetic()))
        .then(|| (inner.to_string(), array))
}

/// The keys leading to the value the line ends in: `a = { b = { c = 9` → `[a, b, c]`.
fn keys_before(line: &str) -> Vec<String> {
    let mut open: Vec<String> = Vec::new();
    let mut key = String::new();
    let mut last: Option<String> = None;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' | '\'' => {
                // A quoted string: skipped (a quoted key is not named).
                let mut escaped = false;
                for d in chars.by_ref() {
                    if c == '"' && d == '\\' && !escaped {
                        escaped = true;
                        continue;
                    }
                    if d == c && !escaped {
                        break;
                    }
                    escaped = false;
                }
                key.clear();
            }
            '=' => {
                last = (!key.trim().is_empty()).then(|| key.trim().to_string());
                key.clear();
            }
            '{' => {
                if let Some(k) = last.take() {
                    open.push(k);
                }
                key.clear();
            }
            '}' => {
                open.pop();
                last = None;
                key.clear();
            }
            ',' => {
                last = None;
                key.clear();
            }
            '#' => return Vec::new(),
            c if c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.' || c == ' ' || c == '\t' => key.push(c),
            _ => key.clear(),
        }
    }
    match last {
        Some(k) if k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.') => {
            open.push(k);
            open
        }
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str, marker: &str) -> String {
        field_at(text, text.find(marker).expect("marker in text"))
    }

    #[test]
    fn a_key_in_an_array_of_tables_is_named_with_its_index() {
        let text = "[simulation]\nduration_s = 1\n[[host]]\nname = \"a\"\n[[host]]\nname = \"b\"\nmtu_bytes = 99999\n";
        assert_eq!(at(text, "99999"), "host[1].mtu_bytes");
        assert_eq!(at(text, "1\n[["), "simulation.duration_s");
    }

    #[test]
    fn keys_in_inline_tables_and_top_level_keys_are_named() {
        let text = "seed = 5\n[[traffic]]\nname = \"t\"\napp = { kind = \"ftp\", item_scale = 77 }\n";
        assert_eq!(at(text, "77"), "traffic[0].app.item_scale");
        assert_eq!(at(text, "5\n"), "seed");
        let text = "[[site]]\nipoa = { mux = \"conv\" }, x = 1\n";
        assert_eq!(at(text, "1\n"), "site[0].x");
    }

    #[test]
    fn a_position_with_no_key_on_its_line_names_nothing() {
        assert_eq!(at("[[vc]]\npath = [\n  9,\n]\n", "9,"), "");
        assert_eq!(at("# x = 5\n", "5"), "");
        assert_eq!(at("[[vc]]\nname = \"a = 9\"\n", "9"), "vc[0].name", "inside the value of `name`");
    }
}
