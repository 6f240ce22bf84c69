//! The network's events, grouped per layer, and their order within an instant.
//!
//! Owns: [`Ev`] and each layer's event enum ([`AtmEv`] is the fabric's, re-exported), and
//! [`kind`], the order of kinds within an instant (the network's module docs, "Simultaneous
//! events"; DESIGN §2b). An event carries ids only.

use crate::atm::fabric::AtmEv;
use crate::ids::{ConnId, NodeId, SourceId};
use crate::kernel::{rank, Ranked};

/// Event kinds, grouped per layer; each layer has one dispatch function in its own file.
/// Ids only: an `Ev` is at most 16 bytes, so a queue entry stays 32 bytes (tested).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ev {
    /// Cells: `fabric/`.
    Atm(AtmEv),
    /// The host CPU: `adapter.rs`.
    Cpu(CpuEv),
    /// Packet-level interfaces and the IP-over-ATM driver: `ip.rs`.
    Iface(IfaceEv),
    /// TCP timers and opens: `transport.rs`.
    Transport(TransportEv),
    /// Application timers and cell-source messages: `transport.rs`, `sources.rs`.
    App(AppEv),
    /// Warm-up and probes: `probes.rs`.
    Measure(MeasureEv),
    /// Signalling controllers' timers: `signalling.rs`.
    Sig(SigEv),
}

/// The kinds of events in the order they run within an instant (module docs, "Simultaneous
/// events"). Kind 0 is the build's (kernel module docs, "Order").
pub mod kind {
    // 1. Probes: the state at t−.
    pub const WARM: u32 = 1;
    pub const SAMPLE: u32 = 2;
    pub const VC_COUNT: u32 = 3;
    // 2. Servers' completions.
    pub const PORT_TX: u32 = 4;
    pub const LINE_TX: u32 = 5;
    pub const CPU_DONE: u32 = 6;
    pub const PORT_WAKE: u32 = 7;
    // 3. Arrivals.
    pub const ARRIVE: u32 = 8;
    pub const LINE_ARRIVE: u32 = 9;
    pub const SHAPE: u32 = 10;
    pub const ABR: u32 = 11;
    // 4. Ports admit the instant's cells (no event: `Engine::admit_due`).
    pub const ADMIT: u32 = 12;
    // 5. Protocol and application timers.
    pub const TCP_START: u32 = 13;
    pub const TCP_FAST: u32 = 14;
    pub const TCP_SLOW: u32 = 15;
    pub const APP_TIMER: u32 = 16;
    pub const MESSAGE: u32 = 17;
    pub const UDP: u32 = 18;
    pub const SPAWN: u32 = 19;
    pub const THINK: u32 = 20;
    pub const DRIVER_TIMER: u32 = 21;
    pub const SIG_TIMER: u32 = 22;
    // 6. The periodic drain of drained switches (it sees only the past: any place would do).
    pub const DRAIN: u32 = 23;
}

impl Ranked for Ev {
    /// Kind, then the entity the event belongs to (module docs, "Simultaneous events").
    #[inline(always)]
    fn rank(&self) -> u32 {
        use kind::*;
        match *self {
            Ev::Atm(e) => match e {
                AtmEv::PortTx(p) => rank(PORT_TX, p.0),
                AtmEv::Arrive(l) => rank(ARRIVE, l.0),
                AtmEv::Shape(s) => rank(SHAPE, s),
                AtmEv::Abr(e) => rank(ABR, e),
                AtmEv::PortWake(p) => rank(PORT_WAKE, p.0),
                AtmEv::Drain => rank(DRAIN, 0),
            },
            Ev::Cpu(CpuEv::Done(h)) => rank(CPU_DONE, h.0),
            Ev::Iface(e) => match e {
                IfaceEv::LineTx(l) => rank(LINE_TX, l),
                IfaceEv::LineArrive(l) => rank(LINE_ARRIVE, l),
                IfaceEv::DriverTimer(slot) => rank(DRIVER_TIMER, slot),
            },
            Ev::Transport(e) => match e {
                TransportEv::Start(c) => rank(TCP_START, c.0),
                TransportEv::Fast(c, side, _) => rank(TCP_FAST, c.0 * 2 + side as u32),
                TransportEv::Slow(c, side, _) => rank(TCP_SLOW, c.0 * 2 + side as u32),
            },
            Ev::App(e) => match e {
                AppEv::Timer(c, _) => rank(APP_TIMER, c.0),
                AppEv::Message(s, _) => rank(MESSAGE, s.0),
                AppEv::Udp(f) => rank(UDP, f),
                AppEv::Spawn(g) => rank(SPAWN, g),
                AppEv::Think(s) => rank(THINK, s),
            },
            Ev::Measure(e) => match e {
                MeasureEv::Warm => rank(WARM, 0),
                MeasureEv::Sample => rank(SAMPLE, 0),
                MeasureEv::VcCount => rank(VC_COUNT, 0),
            },
            Ev::Sig(SigEv::Timer(slot)) => rank(SIG_TIMER, slot),
        }
    }
}

/// Events of the signalling plane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SigEv {
    /// A controller timer (slot in the signalling plane's timer table).
    Timer(u32),
}

/// Events of a host's CPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CpuEv {
    /// The CPU of host `h` finished the job at the front of its queue.
    Done(NodeId),
}

/// Events of TCP. Ticks carry the generation of the endpoint pair that armed them: a tick
/// armed by an earlier conversation of the slot does nothing to the current one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TransportEv {
    /// 200 ms tick of endpoint `s` of connection `c`, generation `g`.
    Fast(ConnId, u8, u32),
    /// 500 ms tick.
    Slow(ConnId, u8, u32),
    /// Connection `c` opens (client SYN).
    Start(ConnId),
}

/// Events of the interfaces below IP.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IfaceEv {
    /// Packet line `l` ([`crate::iface::Interfaces::lines`]) finished serializing its front datagram.
    LineTx(u32),
    /// The datagram at the head of line `l`'s pipe reaches the far end.
    LineArrive(u32),
    /// A timer of an IP-over-ATM driver (a slot of [`crate::iface::Interfaces::arm_driver_timer`]).
    DriverTimer(u32),
}

/// Events of applications.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AppEv {
    /// Application timer of slot `c`, generation `g` (TELNET keystrokes).
    Timer(ConnId, u32),
    /// Poisson source `s` hands a message of that many IP bytes to its adapter.
    Message(SourceId, u32),
    /// UDP flow `f` sends a datagram.
    Udp(u32),
    /// Traffic generator `g` opens a conversation.
    Spawn(u32),
    /// Session `s`'s think time is over (a browser's next page).
    Think(u32),
}

/// Measurement events.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MeasureEv {
    /// End of warm-up: counters are snapshotted.
    Warm,
    /// Periodic probe of queues and TCP state.
    Sample,
    /// Once a second: every IP-over-ATM driver counts its VCs in use (for the maximum).
    VcCount,
}
