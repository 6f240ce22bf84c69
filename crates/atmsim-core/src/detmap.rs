//! A hash map whose layout depends only on its keys: no random seed.
//!
//! Owns: `DetHasher` and `DetMap`, for tables that are looked up per datagram and never
//! iterated (the IP-over-ATM driver's VC tables, a host's sockets), so a seeded hasher would
//! not change results either; a fixed hasher also makes the tables themselves, and so their
//! memory and timing, the same on every run, and costs a few instructions per word.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A seedless multiplicative hasher (the FxHash construction): the same keys give the
/// same table on every machine and every run.
#[derive(Clone, Copy, Debug, Default)]
pub struct DetHasher(u64);

impl DetHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

impl Hasher for DetHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        bytes.iter().for_each(|&b| self.add(b as u64));
    }
    fn write_u8(&mut self, i: u8) {
        self.add(i as u64)
    }
    fn write_u16(&mut self, i: u16) {
        self.add(i as u64)
    }
    fn write_u32(&mut self, i: u32) {
        self.add(i as u64)
    }
    fn write_u64(&mut self, i: u64) {
        self.add(i)
    }
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64)
    }
}

pub type DetMap<K, V> = HashMap<K, V, BuildHasherDefault<DetHasher>>;
