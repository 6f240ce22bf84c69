//! QoS in the running network (Mah 1996 Chapter 4, §4.3): how a driver's setup request
//! becomes a signalling descriptor, how every output port on the VC's path learns to serve
//! it, and which admission test the controllers run.
//!
//! Owns: [`QosPlane`] (the network's QoS scheme), the descriptor encoding ([`descriptor`]),
//! the port class of a descriptor ([`port_class`]), the admission hook of the
//! rate-controlled schemes ([`admission`]). A VC's class is set and cleared at each hop by
//! `signalling.rs` (`qos_install`, `qos_remove`).
//!
//! **Descriptors.** A best-effort request carries [`BEST_EFFORT`]; a guaranteed request for
//! conversation type `t` carries `t`'s row in Tab 4-5 ([`TAB_4_5_TYPES`]), the index of its
//! [`TrafficSpec`] in the admission table.
//!
//! **At each hop.** When a setup installs a VC at a switch (`Install`) or completes at its
//! origin adapter (`Connected`), the output port that will carry it gets the VC's class: the
//! Tab 4-6 level of its type under `sp`; the level and the Tab 4-5 regulator under `wc` and
//! `nwc`. When the VC is released the class is cleared (its cells still queued leave in their
//! turn). Best-effort VCs, and every VC under `noqos`, get no class.
//!
//! **One scheme per network.** The switches' schedulers serve every site's VCs, so all
//! drivers that use a QoS-aware policy must use the same scheme (the favoured applications
//! may differ); the builder checks it.
//!
//! **Levels.** A type's level is the Tab 4-6 one, which is also the next lower RCSP delay
//! bound of Tab 4-2 below its Tab 4-5 `d` at T1's cell time (tested in
//! [`crate::iface::ipoa::qos`] and [`crate::signalling::delay_bound`]); the admission test
//! then uses each port's own cell time.

use crate::atm::priority::{Mode, VcClass as PortClass};
use crate::atm::regulator::TrafficSpec as RegulatorSpec;
use crate::iface::ipoa::qos::{tab_4_5, Favoured, QosPolicy, Scheme, TAB_4_5_TYPES};
use crate::iface::ipoa::{ConvType, TrafficDescriptor};
use crate::signalling::{DelayBoundAdmission, Descriptor, TrafficSpec, BEST_EFFORT};
use crate::time::Rate;

/// T1's payload rate, the reference of Tab 4-2's millisecond column.
const T1_BPS: u64 = 1_536_000;

/// The network's QoS scheme (noqos unless a driver's policy says otherwise).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QosPlane {
    pub scheme: Scheme,
}

impl Default for QosPlane {
    fn default() -> Self {
        QosPlane { scheme: Scheme::Noqos }
    }
}

impl QosPlane {
    /// The port scheduler the scheme needs (`None` under noqos: ports keep their own).
    pub fn mode(&self) -> Option<Mode> {
        match self.scheme {
            Scheme::Noqos => None,
            Scheme::Sp => Some(Mode::Static),
            Scheme::Wc => Some(Mode::RcspWc),
            Scheme::Nwc => Some(Mode::RcspNwc),
        }
    }
}

/// The signalling descriptor of a driver's request.
pub fn descriptor(td: TrafficDescriptor) -> Descriptor {
    match td {
        TrafficDescriptor::BestEffort => BEST_EFFORT,
        TrafficDescriptor::Guaranteed(ty) => match TAB_4_5_TYPES.iter().position(|&t| t == ty) {
            Some(i) => Descriptor(i as u32),
            None => BEST_EFFORT,
        },
    }
}

/// The conversation type a guaranteed descriptor was made for.
fn type_of(d: Descriptor) -> Option<ConvType> {
    TAB_4_5_TYPES.get(d.0 as usize).copied()
}

/// Tab 4-6's level of a type any policy may favour.
fn level(ty: ConvType) -> Option<u8> {
    QosPolicy { scheme: Scheme::Sp, favoured: Some(Favoured::Qos1) }.sp_level(ty)
}

/// How an output port serves a VC of descriptor `d` under `scheme` (`None`: best effort).
pub fn port_class(scheme: Scheme, d: Descriptor) -> Option<PortClass> {
    let ty = type_of(d)?;
    let level = level(ty)?;
    match scheme {
        Scheme::Noqos => None,
        Scheme::Sp => Some(PortClass { level, spec: None }),
        Scheme::Wc | Scheme::Nwc => {
            let p = tab_4_5(ty)?;
            let spec = RegulatorSpec::new(p.x_min, p.x_ave, p.interval).expect("Tab 4-5 rows are valid specs");
            Some(PortClass { level, spec: Some(spec) })
        }
    }
}

/// The delay-bound admission test of `wc` and `nwc` over ports of the given rates, with the
/// Tab 4-5 specifications indexed as [`descriptor`] numbers them.
pub fn admission(port_rates: &[Rate]) -> DelayBoundAdmission {
    let specs = TAB_4_5_TYPES
        .iter()
        .map(|&ty| {
            let p = tab_4_5(ty).expect("a Tab 4-5 row");
            TrafficSpec::for_delay(p.x_min, p.x_ave, p.interval, p.d, Rate::bps(T1_BPS))
                .expect("Tab 4-5 rows are valid")
        })
        .collect();
    DelayBoundAdmission::new(port_rates, specs).expect("Tab 4-5 rows are valid")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptors_name_tab_4_5_rows_and_best_effort_names_none() {
        for (i, &ty) in TAB_4_5_TYPES.iter().enumerate() {
            assert_eq!(descriptor(TrafficDescriptor::Guaranteed(ty)), Descriptor(i as u32));
            assert_eq!(type_of(Descriptor(i as u32)), Some(ty));
        }
        assert_eq!(descriptor(TrafficDescriptor::BestEffort), BEST_EFFORT);
        assert_eq!(descriptor(TrafficDescriptor::Guaranteed(ConvType::Smtp)), BEST_EFFORT);
        assert_eq!(type_of(BEST_EFFORT), None);
    }

    #[test]
    fn port_classes_follow_the_scheme() {
        let telnet_down = descriptor(TrafficDescriptor::Guaranteed(ConvType::TelnetDown));
        assert_eq!(port_class(Scheme::Noqos, telnet_down), None);
        assert_eq!(port_class(Scheme::Sp, telnet_down), Some(PortClass { level: 1, spec: None }));
        let wc = port_class(Scheme::Wc, telnet_down).expect("a class");
        assert_eq!(wc.level, 1);
        let p = tab_4_5(ConvType::TelnetDown).unwrap();
        assert_eq!(wc.spec.map(|s| (s.x_min, s.x_ave, s.i)), Some((p.x_min, p.x_ave, p.interval)));
        assert_eq!(port_class(Scheme::Nwc, BEST_EFFORT), None);
    }

    /// The admission table's levels are Tab 4-6's: both tables name the same level per type.
    #[test]
    fn admission_levels_agree_with_the_port_levels() {
        let adm = admission(&[Rate::bps(T1_BPS)]);
        for &ty in &TAB_4_5_TYPES {
            let d = descriptor(TrafficDescriptor::Guaranteed(ty));
            assert_eq!(adm.spec(d).map(|s| s.level()), level(ty), "{ty:?}");
        }
    }
}
