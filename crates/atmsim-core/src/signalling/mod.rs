//! Signalling (placeholder docs, completed below).

pub mod gbn;
pub mod msg;

macro_rules! sig_id {
    ($(#[$m:meta])* $name:ident) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(pub u32);
        impl $name {
            #[inline]
            pub const fn idx(self) -> usize {
                self.0 as usize
            }
        }
    };
}

sig_id!(/// A signalling controller (of a switch or of an ATM-attached endpoint).
    CtrlId);
sig_id!(/// An ATM endpoint address (router or host adapter), dense from 0: it indexes routing tables.
    EndpointId);
sig_id!(/// A call (one simplex VC), named by the requesting driver; unique within a run.
    CallId);
sig_id!(/// A controller's local port number (0.. in the order the ports were given).
    PortIx);

/// A traffic/QoS descriptor, opaque to signalling: a handle the admission hook interprets
/// (e.g. an index into the caller's table of Tab 4-3 parameter sets).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Descriptor(pub u32);
