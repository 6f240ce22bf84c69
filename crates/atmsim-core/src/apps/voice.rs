//! The packet-voice (audio) source of Mah (1996) §3.3.6, sans I/O.
//!
//! Owns: [`Packet`] (shared with [`super::vic`]), [`VoiceConfig`], [`VoiceSource`] and the two
//! tcplib phone tables ([`phone_tables`]). The thesis: "voice-grade audio, using fixed-size
//! packets at a constant throughput of 64 Kbps. The sender is an on-off source, with the on-
//! and off-times controlled by two of tcplib's empirical distributions used for characterizing
//! packet voice traffic". On-times come from `data/tcplib/phone_talkspurt.csv`, off-times from
//! `data/tcplib/phone_pause.csv` (both in ms; see `data/tcplib/SOURCES.md`).
//!
//! The thesis gives neither packet size nor interval. Decisions (digest `mah96.md` §0.0 and
//! A-16; each is a [`VoiceConfig`] parameter or stated here):
//!
//! 1. **Packetization: a fixed payload every 20 ms**, 160 B by default (160·8/0.020 = 64 kb/s
//!    of UDP payload, voice-grade PCM). With 28 B of IP/UDP headers and AAL5's 8-byte trailer
//!    that is 196 B, 5 cells: 25 cells per 100 ms in a talkspurt, more than Tab 4-5's audio
//!    spec allows (X_ave = 5 ms over I = 100 ms: 20). The Mah study file therefore reads the
//!    thesis' "constant throughput of 64 Kbps" (§3.3.6) as 64 kb/s of IP datagrams: 132 B of
//!    payload, 160-byte datagrams, 4 cells, exactly 20 per 100 ms (spec errata §0.0, A-6,
//!    A-16; tested in `tests/it/qos_policies.rs`). 320 B every 40 ms would put 21–24 cells
//!    in some windows.
//! 2. **Packets per talkspurt `n = max(1, round(T/Δ))`** for a talkspurt of `T` ms drawn from the
//!    table and an interval `Δ` (half rounds up). Each packet carries `Δ` of speech, so the on
//!    period lasts exactly `nΔ` and the payload rate in it is exactly 64 kb/s. Rounding to
//!    the *nearest* multiple keeps tcplib's mean on-time: with the shipped table
//!    `E[nΔ]` = 1364.26 ms against `E[T]` = 1364.06 ms (+0.015 %), where `ceil` would add half
//!    an interval (1373.86 ms, +0.7 %).
//! 3. **The gap after a talkspurt's last packet is `Δ + P`** for a pause `P` drawn from the
//!    table. The last packet's `Δ` of speech ends `Δ` after it is sent; the silence starts then,
//!    and the next talkspurt's first packet goes when the silence ends. So the source's
//!    timeline is exactly on `nΔ`, off `P`, on, off, …: the long-run on fraction is
//!    `E[nΔ]/(E[nΔ] + E[P]) ≈ E[T]/(E[T] + E[P])` = 0.451. A gap of just `P` would shorten every
//!    off period by `Δ` and overstate the mean rate.
//! 4. **A conversation starts at the start of a talkspurt** (the first [`VoiceSource::next`]
//!    call sends a packet, as the integrator's API requires). The first talkspurt is drawn in
//!    [`VoiceSource::new`]; a pause and the next talkspurt are drawn at each talkspurt's last
//!    packet. Conversation length is the integrator's concern.

use crate::dist::EmpiricalCdf;
use crate::rng::Stream;
use crate::time::SimDuration;
use std::sync::OnceLock;

/// One packet to send now, and when the next one goes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Packet {
    /// UDP payload \[bytes\].
    pub payload_bytes: u32,
    /// Time from this packet to the next one.
    pub gap: SimDuration,
}

/// Audio packetization.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VoiceConfig {
    /// UDP payload of every packet \[bytes\]. Default 160 (decision 1).
    pub payload_bytes: u32,
    /// Time between packets within a talkspurt. Default 20 ms (decision 1).
    pub interval: SimDuration,
}

impl Default for VoiceConfig {
    fn default() -> Self {
        VoiceConfig { payload_bytes: 160, interval: SimDuration::from_millis(20) }
    }
}

impl VoiceConfig {
    /// Payload rate during a talkspurt [bit/s]: 64 000 at the defaults (§3.3.6).
    pub fn payload_rate_bps(&self) -> f64 {
        self.payload_bytes as f64 * 8.0 / self.interval.as_secs_f64()
    }
}

/// The tcplib packet-voice tables (Danzig & Jamin 1991, `phone.h`).
#[derive(Debug)]
pub struct PhoneTables {
    /// Talkspurt (on) length \[ms\].
    pub talkspurt_ms: EmpiricalCdf,
    /// Pause (off) length \[ms\].
    pub pause_ms: EmpiricalCdf,
}

macro_rules! table {
    ($file:literal) => {
        EmpiricalCdf::from_csv($file, include_str!(concat!("../../../../data/tcplib/", $file)))
            .expect("shipped tcplib table is well-formed (tested)")
    };
}

/// The phone tables, parsed on first use.
pub fn phone_tables() -> &'static PhoneTables {
    static T: OnceLock<PhoneTables> = OnceLock::new();
    T.get_or_init(|| PhoneTables { talkspurt_ms: table!("phone_talkspurt.csv"), pause_ms: table!("phone_pause.csv") })
}

/// One audio sender: an on-off source of fixed-size packets.
#[derive(Clone, Debug)]
pub struct VoiceSource {
    cfg: VoiceConfig,
    /// Packets of the current talkspurt not yet sent (≥ 1 between calls).
    left: u64,
}

impl VoiceSource {
    /// A source at the start of its first talkspurt.
    pub fn new(cfg: VoiceConfig, r: &mut Stream) -> Self {
        debug_assert!(cfg.payload_bytes > 0 && cfg.interval > SimDuration::ZERO, "{cfg:?}");
        let left = Self::talkspurt_packets(&cfg, r);
        VoiceSource { cfg, left }
    }

    /// The packet to send now and the gap to the next one (decisions 2 and 3).
    pub fn next(&mut self, r: &mut Stream) -> Packet {
        self.left -= 1;
        let gap = if self.left > 0 {
            self.cfg.interval
        } else {
            let pause = SimDuration::from_secs_f64(phone_tables().pause_ms.sample(r) / 1000.0);
            self.left = Self::talkspurt_packets(&self.cfg, r);
            self.cfg.interval + pause
        };
        Packet { payload_bytes: self.cfg.payload_bytes, gap }
    }

    /// `max(1, round(T/Δ))` for a talkspurt `T` drawn from the table (decision 2).
    fn talkspurt_packets(cfg: &VoiceConfig, r: &mut Stream) -> u64 {
        let t_s = phone_tables().talkspurt_ms.sample(r) / 1000.0;
        ((t_s / cfg.interval.as_secs_f64()).round() as u64).max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{stream, Purpose};
    use crate::time::PS_PER_SEC;

    /// The mean of a `value,cdf` table under tcplib's rule (point mass at the first value,
    /// uniform between rows), computed here from the raw text, independently of `dist`.
    fn table_mean(csv: &str) -> f64 {
        let rows: Vec<(f64, f64)> = csv
            .lines()
            .skip(1)
            .filter(|l| !l.trim().is_empty())
            .map(|l| {
                let (v, p) = l.split_once(',').unwrap();
                (v.trim().parse().unwrap(), p.trim().parse().unwrap())
            })
            .collect();
        let mut m = rows[0].0 * rows[0].1;
        for w in rows.windows(2) {
            m += (w[1].1 - w[0].1) * (w[0].0 + w[1].0) / 2.0;
        }
        m
    }

    fn talkspurt_mean_ms() -> f64 {
        table_mean(include_str!("../../../../data/tcplib/phone_talkspurt.csv"))
    }
    fn pause_mean_ms() -> f64 {
        table_mean(include_str!("../../../../data/tcplib/phone_pause.csv"))
    }

    /// shared/data/SOURCES.md §1: talkspurt median 786 ms, mean 1.36 s; pause 732 ms, 1.66 s.
    #[test]
    fn phone_tables_have_the_documented_medians_and_means() {
        let t = phone_tables();
        assert!((talkspurt_mean_ms() - 1360.0).abs() < 10.0, "{}", talkspurt_mean_ms());
        assert!((pause_mean_ms() - 1660.0).abs() < 10.0, "{}", pause_mean_ms());
        assert!((t.talkspurt_ms.mean() - talkspurt_mean_ms()).abs() < 1e-6);
        assert!((t.pause_ms.mean() - pause_mean_ms()).abs() < 1e-6);
        assert!((t.talkspurt_ms.quantile(0.5) - 786.0).abs() / 786.0 < 0.02);
        assert!((t.pause_ms.quantile(0.5) - 732.0).abs() / 732.0 < 0.02);
    }

    #[test]
    fn default_packetization_is_exactly_64_kbps_of_payload() {
        let c = VoiceConfig::default();
        assert_eq!(c.payload_bytes as u64 * 8 * PS_PER_SEC, 64_000 * c.interval.as_ps());
        assert_eq!(c.payload_rate_bps(), 64_000.0);
    }

    /// Talkspurts as (packets, following pause) pairs read off the packet stream.
    fn talkspurts(cfg: VoiceConfig, seed: u64, count: usize) -> Vec<(u64, SimDuration)> {
        let mut r = stream(seed, Purpose::App, 0);
        let mut s = VoiceSource::new(cfg, &mut r);
        let (mut out, mut n) = (Vec::with_capacity(count), 0);
        while out.len() < count {
            let p = s.next(&mut r);
            assert_eq!(p.payload_bytes, cfg.payload_bytes, "fixed-size packets");
            n += 1;
            if p.gap != cfg.interval {
                // Decision 3: the gap after the last packet is interval + pause.
                assert!(p.gap > cfg.interval);
                out.push((n, SimDuration::from_ps(p.gap.as_ps() - cfg.interval.as_ps())));
                n = 0;
            }
        }
        out
    }

    /// Within a talkspurt packets are exactly one interval apart (so the payload rate there is
    /// exactly 64 kb/s); pauses lie in the table's range [200 ms, 20 s].
    #[test]
    fn spacing_within_talkspurts_is_exactly_the_interval() {
        let cfg = VoiceConfig::default();
        for (n, pause) in talkspurts(cfg, 1, 20_000) {
            assert!(n >= 1);
            assert!(pause >= SimDuration::from_millis(200) && pause <= SimDuration::from_secs(20), "{pause}");
        }
    }

    /// Long-run on fraction against the closed form E[T]/(E[T] + E[P]) from the tables' analytic
    /// means (0.4510). The quantization of decision 2 moves it by 4e-5; the statistical error
    /// over 100 000 cycles is about 0.3 %.
    #[test]
    fn long_run_on_fraction_matches_the_tables_means() {
        let cfg = VoiceConfig::default();
        let d = cfg.interval.as_secs_f64();
        let cycles = talkspurts(cfg, 2, 100_000);
        let on: f64 = cycles.iter().map(|&(n, _)| n as f64 * d).sum();
        let off: f64 = cycles.iter().map(|&(_, p)| p.as_secs_f64()).sum();
        let (et, ep) = (talkspurt_mean_ms(), pause_mean_ms());
        let expect = et / (et + ep);
        let got = on / (on + off);
        assert!((got - expect).abs() / expect < 0.01, "on fraction {got} vs {expect}");
        // Mean on-time per talkspurt and mean pause against the tables' means.
        let k = cycles.len() as f64;
        assert!((on / k * 1000.0 - et).abs() / et < 0.015, "{} ms", on / k * 1000.0);
        assert!((off / k * 1000.0 - ep).abs() / ep < 0.015, "{} ms", off / k * 1000.0);
        // Long-run payload rate: 64 kb/s times the on fraction (≈ 28.9 kb/s).
        let bits: f64 = cycles.iter().map(|&(n, _)| (n * cfg.payload_bytes as u64 * 8) as f64).sum();
        let rate = bits / (on + off);
        assert!((rate - 64_000.0 * expect).abs() / (64_000.0 * expect) < 0.01, "{rate}");
    }

    /// Tab 4-5 audio: X_ave = 5 ms over I = 100 ms allows 20 cells per window. Gaps are never
    /// shorter than 20 ms, so no half-open 100-ms window holds more than 5 packets (20 cells
    /// at 4 cells per 188-byte IP packet).
    #[test]
    fn no_100ms_window_holds_more_than_five_packets() {
        let mut r = stream(3, Purpose::App, 0);
        let mut s = VoiceSource::new(VoiceConfig::default(), &mut r);
        let (mut t, mut times) = (0u64, Vec::new());
        for _ in 0..50_000 {
            times.push(t);
            let g = s.next(&mut r).gap;
            assert!(g >= SimDuration::from_millis(20));
            t += g.as_ps();
        }
        let window = SimDuration::from_millis(100).as_ps();
        let mut lo = 0;
        for hi in 0..times.len() {
            while times[hi] - times[lo] >= window {
                lo += 1;
            }
            assert!(hi - lo < 5, "{} packets within 100 ms", hi - lo + 1);
        }
    }
}
