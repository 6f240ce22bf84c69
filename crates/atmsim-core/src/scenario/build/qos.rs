//! The network's QoS plane from the drivers' `ipoa.qos` policies (Mah 1996 Chapter 4).
//!
//! Owns building [`crate::net::SigNet::qos`] and what it implies: one scheme for the whole
//! network (the switches serve every site's VCs), every FIFO output port — switch outputs
//! and ATM adapters — given the scheme's scheduler (static priority for `sp`, RCSP for `wc`
//! and `nwc`), and, for `wc` and `nwc`, the delay-bound admission test of
//! [`crate::signalling::delay_bound`] in every controller. The rules are stated for users in
//! `docs/scenario.md` ("QoS policies").

use super::internet::node_field;
use crate::atm::port::OutPort;
use crate::atm::priority::Mode;
use crate::atm::sched::Discipline;
use crate::error::Result;
use crate::ids::NodeId;
use crate::iface::ipoa::qos::{QosPolicy, Scheme};
use crate::ip::Host;
use crate::net::SigNet;
use crate::scenario::limits::invalid;
use crate::scenario::model::ScenarioDoc;

/// The scheme of the drivers' QoS policies, checked to be one, and the first node using it.
fn scheme(doc: &ScenarioDoc, hosts: &[Host]) -> Result<Option<(Scheme, NodeId)>> {
    let mut found: Option<(QosPolicy, NodeId)> = None;
    for (i, h) in hosts.iter().enumerate() {
        let Some(s) = h.atm().map(|a| a.driver().config().qos) else { continue };
        if s.scheme == Scheme::Noqos {
            continue;
        }
        match found {
            None => found = Some((s, NodeId(i as u32))),
            Some((first, n)) if first.scheme != s.scheme => {
                return invalid(
                    node_field(doc, NodeId(i as u32), "ipoa.qos"),
                    format!(
                        "QoS policy {s} uses another scheme than {}'s {first}: the switches serve every site's VCs, \
                         so every QoS policy of a network must use the same scheme (sp, wc or nwc)",
                        hosts[n.idx()].name()
                    ),
                );
            }
            Some(_) => {}
        }
    }
    Ok(found.map(|(q, n)| (q.scheme, n)))
}

/// Set up the QoS plane (module docs); nothing under noqos.
pub fn plane(doc: &ScenarioDoc, hosts: &[Host], ports: &mut [OutPort], sig: Option<&mut SigNet>) -> Result<()> {
    let Some((scheme, first)) = scheme(doc, hosts)? else {
        return match doc.signalling.as_ref().and_then(|s| s.admission.as_deref()) {
            None | Some("none") => Ok(()),
            Some(other) => invalid(
                "signalling.admission",
                format!("admission {other:?} needs a wc or nwc QoS policy (ipoa.qos); without one, leave it out"),
            ),
        };
    };
    let field = node_field(doc, first, "ipoa.qos");
    let Some(sig) = sig else {
        return invalid(
            field,
            "a QoS policy other than noqos sets up guaranteed VCs, which needs a [signalling] section",
        );
    };
    let (discipline, mode) = match scheme {
        Scheme::Sp => (Discipline::StaticPriority, Mode::Static),
        Scheme::Wc => (Discipline::RcspWc, Mode::RcspWc),
        Scheme::Nwc => (Discipline::RcspNwc, Mode::RcspNwc),
        Scheme::Noqos => unreachable!("noqos returned above"),
    };
    let name = discipline.name();
    for p in ports.iter_mut() {
        match (p.priority_mode(), p.is_fifo()) {
            (None, true) => p.set_discipline(discipline),
            (Some(m), _) if m == mode => {}
            _ => {
                return invalid(
                    field,
                    format!(
                        "this QoS policy needs the {name} scheduler at every port, but port {} has another \
                         (leave its scheduler at fifo, or set it to {name:?})",
                        p.name
                    ),
                )
            }
        }
    }
    sig.qos.scheme = scheme;
    if delay_bound_admission(doc, scheme)? {
        let rates: Vec<_> = ports.iter().map(|p| p.link_rate()).collect();
        sig.set_admission(Box::new(crate::net::qos::admission(&rates)));
    }
    Ok(())
}

/// Whether `signalling.admission` asks for the delay-bound test (the default) or for none;
/// `sp` has no admission control (Tab 4-4), so naming the test there is an error.
fn delay_bound_admission(doc: &ScenarioDoc, scheme: Scheme) -> Result<bool> {
    let chosen = doc.signalling.as_ref().and_then(|s| s.admission.as_deref());
    match chosen {
        None | Some("delay_bound") if scheme != Scheme::Sp => Ok(true),
        None | Some("none") => Ok(false),
        Some("delay_bound") => invalid(
            "signalling.admission",
            "static priority (sp) has no admission control (Mah Tab 4-4): use \"none\" or a wc/nwc policy",
        ),
        Some(other) => invalid(
            "signalling.admission",
            format!("unknown admission control {other:?}: expected \"delay_bound\" or \"none\""),
        ),
    }
}
