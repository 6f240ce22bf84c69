//! The first check of a document: every name and every reference to one within
//! [`limits::MAX_NAME_BYTES`], the description within [`limits::MAX_DESCRIPTION_BYTES`].
//!
//! Owns no state. It runs before any section is built, so that no later message quotes an
//! unbounded string; the sections then check what the names must refer to.

use crate::error::Result;
use crate::scenario::limits::{self, invalid};
use crate::scenario::model::ScenarioDoc;

/// Check the length of every name and reference in `doc`, section by section.
pub(super) fn check(doc: &ScenarioDoc) -> Result<()> {
    if let Some(n) = &doc.name {
        limits::name("name", n)?;
    }
    if let Some(d) = &doc.description {
        if d.len() > limits::MAX_DESCRIPTION_BYTES {
            return invalid(
                "description",
                format!("expected at most {} bytes of text, got {}", limits::MAX_DESCRIPTION_BYTES, d.len()),
            );
        }
    }
    let r = limits::reference;
    for (i, h) in doc.hosts.iter().enumerate() {
        r(&format!("host[{i}].name"), &h.name)?;
    }
    for (i, s) in doc.switches.iter().enumerate() {
        r(&format!("switch[{i}].name"), &s.name)?;
    }
    for (i, l) in doc.links.iter().enumerate() {
        for (k, v) in
            [("name", l.name.as_deref()), ("a", Some(&l.a)), ("b", Some(&l.b)), ("preset", l.preset.as_deref())]
        {
            if let Some(v) = v {
                r(&format!("link[{i}].{k}"), v)?;
            }
        }
    }
    for (i, v) in doc.vcs.iter().enumerate() {
        r(&format!("vc[{i}].name"), &v.name)?;
        for (k, n) in v.path.iter().enumerate() {
            r(&format!("vc[{i}].path[{k}]"), n)?;
        }
        if let Some(at) = v.police.as_ref().and_then(|p| p.at.as_deref()) {
            r(&format!("vc[{i}].police.at"), at)?;
        }
        if let Some(rs) = &v.reshape {
            r(&format!("vc[{i}].reshape.at"), &rs.at)?;
        }
    }
    for (i, t) in doc.tcp.iter().enumerate() {
        for (k, v) in
            [("name", Some(&t.name)), ("client", Some(&t.client)), ("server", Some(&t.server)), ("vc", t.vc.as_ref())]
        {
            if let Some(v) = v {
                r(&format!("tcp[{i}].{k}"), v)?;
            }
        }
    }
    for (i, s) in doc.cell_sources.iter().enumerate() {
        for (k, v) in [("name", &s.name), ("vc", &s.vc), ("from", &s.from)] {
            r(&format!("cell_source[{i}].{k}"), v)?;
        }
    }
    for (i, c) in doc.captures.iter().enumerate() {
        r(&format!("capture[{i}].host"), &c.host)?;
        if let Some(n) = &c.name {
            r(&format!("capture[{i}].name"), n)?;
        }
    }
    Ok(())
}
