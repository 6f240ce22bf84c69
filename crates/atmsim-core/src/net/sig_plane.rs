//! The signalling plane of a running network: its controllers, the map between the drivers'
//! VCs and signalling calls, the messages in flight and their ledger.
//!
//! Owns: [`SigNet`], [`SigCounts`]. Its events and actions are handled in `signalling.rs`.

use super::qos::QosPlane;
use crate::ids::NodeId;
use crate::iface::ipoa::VcRef;
use crate::kernel::Slots;
use crate::signalling::{
    AcceptAll, Action, Admission, Controller, CtrlId, Descriptor, EndpointId, Frame, PortIx, Timer,
};
use std::collections::HashMap;

/// Counters of signalling messages (each one AAL5 frame on a signalling VC).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SigCounts {
    pub sent: u64,
    pub delivered: u64,
    pub lost: u64,
    pub cells: u64,
}

/// The signalling plane of a network.
pub struct SigNet {
    pub ctrls: Vec<Controller>,
    /// The controller of each ATM-attached node (by node index).
    pub ctrl_of_node: Vec<Option<CtrlId>>,
    /// The endpoint id of each ATM-attached node, and the node of each endpoint.
    pub endpoint_of_node: Vec<Option<EndpointId>>,
    pub node_of_ctrl: Vec<Option<NodeId>>,
    /// The controller and its local port that receive what arrives on each link.
    pub link_rx: Vec<Option<(CtrlId, PortIx)>>,
    /// The message each signalling frame in flight carries, by frame id.
    pub(super) in_flight: HashMap<u32, Frame>,
    /// Signalling calls: the node and driver VC each one serves, and its descriptor.
    pub(super) calls: Slots<(NodeId, VcRef, Descriptor)>,
    pub(super) timers: Slots<(CtrlId, Timer)>,
    pub(super) actions: Vec<Action>,
    pub counts: SigCounts,
    /// The admission test every controller runs at its outgoing ports (accept all by
    /// default; the delay-bound test under the rate-controlled QoS schemes).
    pub adm: Box<dyn Admission>,
    /// The network's QoS scheme: how ports serve guaranteed VCs ([`super::qos`]).
    pub qos: QosPlane,
}

impl SigNet {
    /// The controllers, by [`CtrlId`].
    pub fn controllers(&self) -> &[Controller] {
        &self.ctrls
    }

    /// Admission control from now on (the builder's QoS plane).
    pub fn set_admission(&mut self, adm: Box<dyn Admission>) {
        self.adm = adm;
    }

    pub fn new(
        ctrls: Vec<Controller>,
        ctrl_of_node: Vec<Option<CtrlId>>,
        endpoint_of_node: Vec<Option<EndpointId>>,
        node_of_ctrl: Vec<Option<NodeId>>,
        link_rx: Vec<Option<(CtrlId, PortIx)>>,
    ) -> Self {
        SigNet {
            ctrls,
            ctrl_of_node,
            endpoint_of_node,
            node_of_ctrl,
            link_rx,
            in_flight: HashMap::new(),
            calls: Slots::default(),
            timers: Slots::default(),
            actions: Vec::new(),
            counts: SigCounts::default(),
            adm: Box::new(AcceptAll),
            qos: QosPlane::default(),
        }
    }

    /// Messages in flight.
    pub fn messages_in_flight(&self) -> u64 {
        self.in_flight.len() as u64
    }

    /// Calls being set up or up.
    pub fn calls_held(&self) -> usize {
        self.calls.len()
    }
}
