//! The `[[link]]` section: the links between the nodes and the ports that feed them.
//!
//! Owns [`Cabling`]: a duplex `[[link]]` becomes two simplex [`Link`]s, each fed by one
//! [`OutPort`] of the node it leaves (named `"from->to"`, with that node's scheduler, buffer
//! and drop policy), and each running on its own clock — the link's `clock_ppm`, or an offset
//! drawn per direction from the seed (`Purpose::LinkClock`, keyed by the simplex link's id).
//! The adjacency map (node → neighbour → simplex link) is what [`super::vcs`] routes along.

use super::nodes::check_unique_name;
use super::nodes::{Names, Node};
use super::simulation::Run;
use crate::atm::fabric::Link;
use crate::atm::link::{Preset, Sink};
use crate::atm::port::{DropPolicy, DropPolicyName, OutPort};
use crate::atm::fabric::Switch;
use crate::error::Result;
use crate::ids::{LinkId, PortId};
use crate::ip::Host;
use crate::rng::{self, Purpose, Rng};
use crate::scenario::limits::{self, invalid, quoted, span, MAX_RATE_BPS, MIN_CELL_RATE_BPS};
use crate::scenario::model::{LinkSec, ScenarioDoc, SwitchSec};
use crate::time::{Rate, Serializer, SimDuration};
use std::collections::HashMap;

/// The simplex links and the output ports that feed them, indexed by [`LinkId`] and [`PortId`].
#[derive(Default)]
pub(super) struct Cabling {
    pub links: Vec<Link>,
    pub ports: Vec<OutPort>,
    /// The simplex link from a node to a neighbour.
    pub adjacency: HashMap<(Node, Node), LinkId>,
    /// The next free VCI on each simplex link after the `[[vc]]`s (filled by `vcs.rs`).
    pub next_vci: Vec<u32>,
}

/// Check `[[link]]` and build its simplex links and ports, in document order (a → b, then
/// b → a); attach each port to its host or switch.
pub(super) fn links(
    doc: &ScenarioDoc,
    names: &Names,
    run: &Run,
    hosts: &mut [Host],
    switches: &mut [Switch],
) -> Result<Cabling> {
    let mut cabling = Cabling::default();
    let mut link_names: HashMap<String, usize> = HashMap::new();
    for (i, l) in doc.links.iter().enumerate() {
        let f = |k: &str| format!("link[{i}].{k}");
        let a = names.node(f("a"), &l.a)?;
        let b = names.node(f("b"), &l.b)?;
        if a == b {
            return invalid(f("b"), format!("expected a different node than a (`{}`): a link joins two nodes", l.a));
        }
        let name = l.name.clone().unwrap_or_else(|| format!("{}-{}", l.a, l.b));
        let taken = link_names.insert(name.clone(), i).is_some();
        check_unique_name(&f("name"), &name, taken, "link")?;
        let nominal = link_rate(i, l)?;
        let delay = span(f("delay_ms"), l.delay_ms, 1e-3, "ms", limits::MAX_DELAY_S)?;
        if let Some(ppm) = l.clock_ppm {
            if !(ppm.is_finite() && (-1000.0..=1000.0).contains(&ppm)) {
                return invalid(
                    f("clock_ppm"),
                    format!("expected a clock offset between -1000 and 1000 ppm, got {ppm}"),
                );
            }
        }
        for (from, to, from_name, to_name, end) in [(a, b, &l.a, &l.b, "a"), (b, a, &l.b, &l.a, "b")] {
            let rate = cabling.clocked(nominal, l.clock_ppm, run);
            if cabling.adjacency.contains_key(&(from, to)) {
                return invalid(f("b"), format!("expected at most one link between `{from_name}` and `{to_name}`"));
            }
            if let Node::Host(h) = from {
                if hosts[h.idx()].port().is_some() {
                    return invalid(
                        f(end),
                        format!(
                            "expected host `{from_name}` to have a single link (multi-homed hosts are not implemented)"
                        ),
                    );
                }
            }
            let port = out_port(doc, from, format!("{from_name}->{to_name}"), cabling.next_link(), rate);
            let pid = cabling.add(from, to, port, format!("{name}:{from_name}->{to_name}"), rate, delay);
            match from {
                Node::Host(h) => hosts[h.idx()].set_port(pid),
                Node::Switch(s) => switches[s.idx()].add_port(pid),
            }
        }
    }
    Ok(cabling)
}

impl Cabling {
    /// The id the next simplex link will have.
    fn next_link(&self) -> LinkId {
        LinkId(self.links.len() as u32)
    }

    /// Add the simplex link `from → to`, fed by `port`; return the port's id.
    fn add(&mut self, from: Node, to: Node, port: OutPort, name: String, rate: Rate, delay: SimDuration) -> PortId {
        let lid = self.next_link();
        let pid = PortId(self.ports.len() as u32);
        self.adjacency.insert((from, to), lid);
        self.ports.push(port);
        let sink = match to {
            Node::Host(h) => Sink::Host(h),
            Node::Switch(s) => Sink::Switch { switch: s, table: Vec::new() },
        };
        self.links.push(Link::new(name, rate, delay, pid, sink));
        pid
    }

    /// The rate of the next simplex link, of `nominal` rate: plesiochronous clocks, with a
    /// fixed offset `clock_ppm`, or one drawn per direction from the seed.
    fn clocked(&self, nominal: Rate, clock_ppm: Option<f64>, run: &Run) -> Rate {
        let ppm = match clock_ppm {
            Some(ppm) => ppm,
            None if run.clock_spread_ppm > 0.0 => {
                let mut r = rng::stream(run.seed, Purpose::LinkClock, self.links.len() as u64);
                run.clock_spread_ppm * r.gen_range(-1.0..=1.0)
            }
            None => 0.0,
        };
        if ppm == 0.0 {
            nominal
        } else {
            Rate::bps((nominal.0 as f64 * (1.0 + ppm * 1e-6)).round() as u64)
        }
    }
}

/// Link `i`'s nominal rate: a preset or `rate_bps`, exactly one of them.
fn link_rate(i: usize, l: &LinkSec) -> Result<Rate> {
    let f = |k: &str| format!("link[{i}].{k}");
    match (&l.preset, l.rate_bps) {
        (Some(_), Some(_)) => invalid(f("rate_bps"), "expected either preset or rate_bps, not both"),
        (None, None) => invalid(f("rate_bps"), "expected a rate: give rate_bps or preset"),
        (Some(p), None) => match Preset::parse(p) {
            Some(p) => Ok(p.rate()),
            None => {
                let names: Vec<&str> = Preset::ALL.iter().map(|(n, _)| *n).collect();
                invalid(f("preset"), format!("expected one of {}, got `{}`", names.join(", "), quoted(p)))
            }
        },
        (None, Some(r)) => Ok(Rate::bps(limits::rate(f("rate_bps"), r, MIN_CELL_RATE_BPS, MAX_RATE_BPS)?)),
    }
}

/// The output port that feeds simplex link `lid` from node `from`: the host's adapter
/// (tail drop) or a switch port.
fn out_port(doc: &ScenarioDoc, from: Node, name: String, lid: LinkId, rate: Rate) -> OutPort {
    let ser = Serializer::new(rate, crate::atm::cell::CELL_BITS);
    match from {
        Node::Host(h) => {
            let hs = &doc.hosts[h.idx()];
            let limit = hs.buffer_cells.map_or(u32::MAX, |b| b as u32);
            OutPort::new(name, lid, hs.scheduler, limit, DropPolicy::Tail, ser)
        }
        Node::Switch(s) => switch_port(&doc.switches[s.idx()], name, lid, ser),
    }
}

/// An output port of switch `ss`: its buffer, drop policy, CLP=1 threshold and per-VC limits.
fn switch_port(ss: &SwitchSec, name: String, lid: LinkId, ser: Serializer) -> OutPort {
    // A bound in cells; absent = none.
    let cells = |c: Option<i64>| c.map_or(u32::MAX, |t| t as u32);
    let policy = match ss.drop_policy {
        DropPolicyName::Tail => DropPolicy::Tail,
        DropPolicyName::Ppd => DropPolicy::Ppd,
        DropPolicyName::Epd => DropPolicy::Epd { threshold: ss.epd_threshold_cells.unwrap_or(0) as u32 },
    };
    OutPort::new(name, lid, ss.scheduler, cells(ss.buffer_cells), policy, ser).with_vc_limits(
        cells(ss.clp1_threshold_cells),
        cells(ss.vc_buffer_cells),
        cells(ss.vc_epd_threshold_cells),
    )
}
