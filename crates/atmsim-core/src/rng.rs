//! Independent, seeded random streams — one per entity.
//!
//! Owns: [`Stream`] (the generator type) and [`stream`], which derives the generator of one
//! entity from the run's master seed, a *purpose* tag and the entity's stable index.
//!
//! Every traffic source, TCP connection and other random entity draws only from its own
//! stream, so adding a probe, a host or a connection never perturbs the numbers another
//! entity sees: the study's comparisons between policies stay paired ("common random
//! numbers"). Streams are xoshiro256++ generators seeded through SplitMix64 mixing of
//! `(seed, purpose, index)`; the derivation is fixed, so a scenario and seed give the same
//! draws on every machine.

pub use rand::Rng;
use rand::SeedableRng;

/// The generator used for every stream.
pub type Stream = rand_xoshiro::Xoshiro256PlusPlus;

/// What a stream is for; part of the derivation so different uses of one index never collide.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u64)]
pub enum Purpose {
    /// A TCP connection endpoint: initial sequence number, timer phases.
    TcpEndpoint = 1,
    /// An application (traffic source).
    App = 2,
    /// A cell-level source.
    CellSource = 3,
    /// One direction of a link: its clock offset.
    LinkClock = 4,
    /// A UDP flow: its packet gaps.
    UdpFlow = 5,
    /// A traffic generator: arrivals and host choices.
    Traffic = 6,
    /// The endpoints of a generated conversation (index: generator << 40 | conversation).
    TrafficConn = 7,
    /// The permutation of simultaneous events under `simulation.tie_order = "random"`.
    TieOrder = 8,
    /// A connection of a generated session (index: session << 24 | connection).
    SessionConn = 9,
    /// A host CPU's timing jitter (index: the host).
    HostCpu = 10,
}

/// SplitMix64's output function of `z` (a bijection on `u64`).
#[inline]
pub fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The stream of entity `index` used for `purpose`, in a run with master seed `seed`.
pub fn stream(seed: u64, purpose: Purpose, index: u64) -> Stream {
    Stream::seed_from_u64(derive(seed, purpose, index))
}

/// The 64-bit value [`stream`] seeds its generator with, for uses that need one number.
pub fn derive(seed: u64, purpose: Purpose, index: u64) -> u64 {
    splitmix64(seed ^ splitmix64(purpose as u64 ^ splitmix64(index)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_inputs_same_stream_and_different_indices_differ() {
        let a: Vec<u64> = (0..4)
            .map({
                let mut r = stream(7, Purpose::App, 3);
                move |_| r.gen()
            })
            .collect();
        let b: Vec<u64> = (0..4)
            .map({
                let mut r = stream(7, Purpose::App, 3);
                move |_| r.gen()
            })
            .collect();
        let c: Vec<u64> = (0..4)
            .map({
                let mut r = stream(7, Purpose::App, 4);
                move |_| r.gen()
            })
            .collect();
        let d: Vec<u64> = (0..4)
            .map({
                let mut r = stream(7, Purpose::TcpEndpoint, 3);
                move |_| r.gen()
            })
            .collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_ne!(a, d);
    }
}
