//! The `[[capture]]` section: packet captures ([`crate::pcap`]) at host interfaces.
//!
//! Owns the checks of each capture (its host, at most one capture per host, a unique name
//! usable as a file name, the snap length) and the [`Tap`] values; attaches each tap to its
//! host.

use super::nodes::check_unique_name;
use super::nodes::Names;
use crate::error::Result;
use crate::ip::Host;
use crate::pcap::{Tap, MIN_SNAPLEN};
use crate::scenario::limits::{int_in, invalid};
use crate::scenario::model::CaptureSec;

/// Check `[[capture]]` and build its taps, in document order.
pub(super) fn captures(secs: &[CaptureSec], names: &Names, hosts: &mut [Host]) -> Result<Vec<Tap>> {
    let mut taps: Vec<Tap> = Vec::new();
    for (i, c) in secs.iter().enumerate() {
        let f = |k: &str| format!("capture[{i}].{k}");
        let h = names.host(f("host"), &c.host)?;
        if let Some(other) = hosts[h.idx()].tap() {
            return invalid(
                f("host"),
                format!(
                    "expected at most one capture per host, but `{}` already has `{}`",
                    c.host, taps[other as usize].name
                ),
            );
        }
        let name = c.name.clone().unwrap_or_else(|| c.host.clone());
        let name_field = if c.name.is_some() { f("name") } else { f("host") };
        check_unique_name(&name_field, &name, taps.iter().any(|t| t.name == name), "capture")?;
        if name.starts_with('.') || !name.chars().all(|ch| ch.is_ascii_alphanumeric() || "._-".contains(ch)) {
            let hint = if c.name.is_none() { " (the default is the host's name: set `name`)" } else { "" };
            return invalid(
                name_field,
                format!("expected a name usable as a file name (letters, digits, '.', '_', '-'; not starting with '.'), got `{name}`{hint}"),
            );
        }
        let snaplen = int_in(f("snaplen_bytes"), c.snaplen_bytes, MIN_SNAPLEN as i64, 65535, "a snap length in bytes")?;
        hosts[h.idx()].set_tap(taps.len() as u32);
        taps.push(Tap::new(name, c.host.clone(), snaplen as u32));
    }
    Ok(taps)
}
