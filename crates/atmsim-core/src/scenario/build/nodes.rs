//! The `[[host]]` and `[[switch]]` sections: the nodes of the network and their names.
//!
//! Owns [`Node`] (a host or a switch, by id), [`Names`] (node name → node, through which
//! every later section resolves a reference to a node), the checks of each host (buffer,
//! MTU, CPU costs) and switch (buffer, drop policy and its thresholds), and the [`Host`] and
//! [`Switch`] values, still without ports: [`super::links`] attaches those.

use super::interrupt::Interrupt;
use crate::atm::port::DropPolicyName;
use crate::atm::fabric::Switch;
use crate::error::{Error, Result};
use crate::ids::{NodeId, SwitchId};
use crate::ip::cpu::{Cost, Cpu};
use crate::ip::Host;
use crate::rng;
use crate::scenario::limits::{self, int_in, invalid, span};
use crate::scenario::model::{HostSec, SwitchSec};
use crate::time::SimDuration;
use std::collections::HashMap;

/// A node of the network: hosts and switches share one name space.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(super) enum Node {
    Host(NodeId),
    Switch(SwitchId),
}

/// Every node by its name.
#[derive(Default)]
pub(super) struct Names<'d> {
    by_name: HashMap<&'d str, Node>,
}

impl<'d> Names<'d> {
    /// Name `node`; true if the name was already taken.
    fn insert(&mut self, name: &'d str, node: Node) -> bool {
        self.by_name.insert(name, node).is_some()
    }

    /// The node called `name`, referred to at `field`.
    pub fn node(&self, field: String, name: &str) -> Result<Node> {
        self.by_name
            .get(name)
            .copied()
            .ok_or_else(|| Error::invalid(field, format!("expected the name of a host or switch, got `{name}`")))
    }

    /// The host called `name`, referred to at `field`.
    pub fn host(&self, field: String, name: &str) -> Result<NodeId> {
        match self.by_name.get(name) {
            Some(Node::Host(h)) => Ok(*h),
            Some(Node::Switch(_)) => invalid(field, format!("expected a host, got switch `{name}`")),
            None => invalid(field, format!("expected the name of a host, got `{name}`")),
        }
    }
}

/// Check `[[host]]` and name its hosts, in document order.
pub(super) fn hosts<'d>(
    secs: &'d [HostSec],
    names: &mut Names<'d>,
    seed: u64,
    stop: &mut Interrupt,
) -> Result<Vec<Host>> {
    let mut hosts = Vec::with_capacity(secs.len());
    for (i, h) in secs.iter().enumerate() {
        stop.check()?;
        let f = |k: &str| format!("host[{i}].{k}");
        check_unique_name(&f("name"), &h.name, names.insert(&h.name, Node::Host(NodeId(i as u32))), "node")?;
        if let Some(b) = h.buffer_cells {
            int_in(f("buffer_cells"), b, 1, u32::MAX as i64 - 1, "a buffer size in cells")?;
        }
        int_in(
            f("mtu_bytes"),
            h.mtu_bytes,
            72,
            65535,
            "an MTU in bytes (at least 72: TCP needs 40 bytes of headers and BSD a 32-byte MSS)",
        )?;
        hosts.push(Host::new(h.name.clone(), h.mtu_bytes as u32, host_cpu(i, h, seed)?));
    }
    Ok(hosts)
}

/// Host `i`'s CPU (`rx_cpu_*`, then `tx_cpu_*`, then `cpu_jitter_us`, its jitter drawn from
/// the run's `seed`); `None` if it costs nothing either way and has no jitter.
fn host_cpu(i: usize, h: &HostSec, seed: u64) -> Result<Option<Cpu>> {
    let f = |k: &str| format!("host[{i}].{k}");
    let jitter = span(f("cpu_jitter_us"), h.cpu_jitter_us, 1e-6, "µs", limits::MAX_CPU_JOB_S)?;
    let mut costs = [Cost::default(); 2];
    for (cost, dir) in costs.iter_mut().zip(["rx", "tx"]) {
        let (seg, byte) = if dir == "rx" {
            (h.rx_cpu_per_segment_us, h.rx_cpu_per_byte_ns)
        } else {
            (h.tx_cpu_per_segment_us, h.tx_cpu_per_byte_ns)
        };
        *cost = cpu_cost(
            &f(&format!("{dir}_cpu_per_segment_us")),
            seg,
            &f(&format!("{dir}_cpu_per_byte_ns")),
            byte,
            h.mtu_bytes,
            jitter,
        )?;
    }
    let [rx_cost, tx_cost] = costs;
    let jitter = (jitter > SimDuration::ZERO).then(|| (jitter, rng::stream(seed, rng::Purpose::HostCpu, i as u64)));
    Ok((!rx_cost.is_zero() || !tx_cost.is_zero() || jitter.is_some()).then(|| Cpu::new(rx_cost, tx_cost, jitter)))
}

/// One direction's CPU cost: each term bounded, and the cost of the largest segment the
/// host can send or receive (per segment + per byte × MTU + the jitter's bound) at most
/// [`limits::MAX_CPU_JOB_S`].
fn cpu_cost(
    seg_field: &str,
    seg_us: f64,
    byte_field: &str,
    byte_ns: f64,
    mtu: i64,
    jitter: SimDuration,
) -> Result<Cost> {
    let per_segment = span(seg_field, seg_us, 1e-6, "µs", limits::MAX_CPU_JOB_S)?;
    let per_byte = span(byte_field, byte_ns, 1e-9, "ns", limits::MAX_CPU_JOB_S / 65_535.0)?;
    let job_s = per_segment.as_secs_f64() + per_byte.as_secs_f64() * mtu as f64 + jitter.as_secs_f64();
    if job_s > limits::MAX_CPU_JOB_S {
        return invalid(
            byte_field,
            format!(
                "expected the cost of a largest segment (per segment + per byte × MTU {mtu} + cpu_jitter_us) of at most {} s, got {} s",
                limits::MAX_CPU_JOB_S,
                limits::num(job_s)
            ),
        );
    }
    Ok(Cost { per_segment, per_byte_ps: per_byte.as_ps() })
}

/// Check `[[switch]]` and name its switches, in document order (after the hosts).
pub(super) fn switches<'d>(secs: &'d [SwitchSec], names: &mut Names<'d>) -> Result<Vec<Switch>> {
    let mut switches = Vec::new();
    for (i, s) in secs.iter().enumerate() {
        let f = |k: &str| format!("switch[{i}].{k}");
        check_unique_name(&f("name"), &s.name, names.insert(&s.name, Node::Switch(SwitchId(i as u32))), "node")?;
        if let Some(b) = s.buffer_cells {
            int_in(f("buffer_cells"), b, 1, u32::MAX as i64 - 1, "a buffer size in cells")?;
        }
        match (s.drop_policy, s.epd_threshold_cells) {
            (DropPolicyName::Epd, None) => {
                return invalid(
                    f("epd_threshold_cells"),
                    "expected a threshold in cells: drop_policy = \"epd\" needs one",
                )
            }
            (DropPolicyName::Epd, Some(t)) => {
                let max = s.buffer_cells.unwrap_or(u32::MAX as i64 - 1);
                int_in(f("epd_threshold_cells"), t, 1, max, "a threshold in cells (at most buffer_cells)")?;
            }
            (_, Some(_)) => {
                return invalid(
                    f("epd_threshold_cells"),
                    "only meaningful with drop_policy = \"epd\"; remove it or set the policy",
                )
            }
            _ => {}
        }
        if let Some(t) = s.clp1_threshold_cells {
            let max = s.buffer_cells.unwrap_or(u32::MAX as i64 - 1);
            int_in(f("clp1_threshold_cells"), t, 0, max, "a threshold in cells (at most buffer_cells)")?;
        }
        if let Some(v) = s.vc_buffer_cells {
            let max = s.buffer_cells.unwrap_or(u32::MAX as i64 - 1);
            int_in(f("vc_buffer_cells"), v, 1, max, "a per-VC buffer in cells (at most buffer_cells)")?;
        }
        if let Some(t) = s.vc_epd_threshold_cells {
            if s.drop_policy != DropPolicyName::Epd {
                return invalid(f("vc_epd_threshold_cells"), "only meaningful with drop_policy = \"epd\"");
            }
            let max = s.vc_buffer_cells.or(s.buffer_cells).unwrap_or(u32::MAX as i64 - 1);
            int_in(f("vc_epd_threshold_cells"), t, 1, max, "a threshold in cells (at most vc_buffer_cells)")?;
        }
        switches.push(Switch::new(&s.name));
    }
    Ok(switches)
}

/// A name must be valid ([`limits::name`]) and not `taken` by another `what`.
pub(super) fn check_unique_name(field: &str, name: &str, taken: bool, what: &str) -> Result<()> {
    limits::name(field, name)?;
    if taken {
        return invalid(field.to_string(), format!("expected a unique {what} name, but `{name}` is already used"));
    }
    Ok(())
}
