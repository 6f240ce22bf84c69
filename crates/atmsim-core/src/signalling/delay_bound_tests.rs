//! The RCSP admission test against hand-computed limits and a brute-force schedule.
//!
//! Two link rates: T1 (1.536 Mb/s, τ = 424/1 536 000 s = 276.04 µs, Mah's backbone) and
//! 424 Mb/s, where τ = 1 µs exactly, so hand arithmetic in cell times is plain integers.

use super::*;
use proptest::prelude::*;

const T1: Rate = Rate::bps(1_536_000);
/// τ = 1 µs exactly.
const MICRO: Rate = Rate::bps(424_000_000);
const TAU_MICRO_PS: u64 = 1_000_000;
const P0: PortId = PortId(0);
const P1: PortId = PortId(1);

fn ms(v: u64) -> SimDuration {
    SimDuration::from_millis(v)
}
fn us(v: u64) -> SimDuration {
    SimDuration::from_micros(v)
}
fn spec(x_min: SimDuration, x_ave: SimDuration, i: SimDuration, level: u8) -> TrafficSpec {
    TrafficSpec::new(x_min, x_ave, i, level).unwrap()
}
/// Admit `d` at `port` until refused; how many were admitted.
fn fill(a: &mut DelayBoundAdmission, port: PortId, d: Descriptor) -> usize {
    (0..10_000).take_while(|_| a.admit(port, &d)).count()
}

// ---- the envelope b(t) ------------------------------------------------------------------

#[test]
fn envelope_closed_forms() {
    // HTTP down (Tab 4-5): X_min 4 ms, X_ave 8 ms, I 1000 ms → n = 125 cells per interval.
    let http = spec(ms(4), ms(8), ms(1000), 3);
    assert_eq!(http.cells_per_interval(), 125);
    assert_eq!(http.envelope(SimDuration::ZERO), 0);
    assert_eq!(http.envelope(ms(3)), 1, "t < X_min: one cell");
    assert_eq!(http.envelope(ms(4)), 1, "[0, 4 ms) holds only the cell at 0");
    assert_eq!(http.envelope(ms(4) + SimDuration::from_ps(1)), 2);
    assert_eq!(http.envelope(ms(8)), 2, "t = 2·X_min: ⌈2⌉, the half-open count");
    assert_eq!(http.envelope(ms(500)), 125, "⌈500/4⌉ = 125 = n");
    assert_eq!(http.envelope(ms(600)), 125, "capped at n = I/X_ave");
    assert_eq!(http.envelope(ms(1000)), 125);
    assert_eq!(http.envelope(ms(1000) + SimDuration::from_ps(1)), 126);
    assert_eq!(http.envelope(ms(2001)), 2 * 125 + 1);
    assert_eq!(http.envelope(ms(2500)), 2 * 125 + 125, "remainder 500 ms: ⌈125⌉ capped at 125");
    // X_min = X_ave (audio-like, 5 ms over 100 ms → n = 20).
    let cbr = spec(ms(5), ms(5), ms(100), 2);
    assert_eq!(cbr.envelope(ms(37)), 8);
    assert_eq!(cbr.envelope(ms(100)), 20);
    assert_eq!(cbr.envelope(ms(101)), 21);
    assert_eq!(cbr.envelope(ms(250)), 50);
}

#[test]
fn non_integer_interval_ratio_caps_at_whole_cells() {
    // Video (Tab 4-5): X_min 2.6 ms, X_ave 3.5 ms, I 2000 ms: I/X_ave = 571.43 → n = 571.
    let video = spec(us(2600), us(3500), ms(2000), 3);
    assert_eq!(video.cells_per_interval(), 571);
    assert_eq!(video.envelope(ms(2000)), 571);
    assert_eq!(video.envelope(ms(4000)), 1142);
    // 128 T1 cell times = 35.333 ms: ⌈35.333 / 2.6⌉ = ⌈13.59⌉ = 14.
    assert_eq!(video.envelope_cells(128, T1), 14);
}

/// The most cells of the greedy pattern (n cells X_min apart at the start of every interval)
/// in any half-open window of length `t`, by sliding the window over every cell.
fn brute_envelope(s: &TrafficSpec, t: u64) -> u64 {
    let cells = greedy_cells(s, 3 * s.interval().as_ps() + t + 1);
    let max = cells.iter().map(|&a| cells.iter().filter(|&&c| c >= a && c < a + t).count());
    max.max().unwrap_or(0) as u64
}

/// Eligibility times \[ps\] of the greedy pattern from 0, below `horizon`.
fn greedy_cells(s: &TrafficSpec, horizon: u64) -> Vec<u64> {
    let (i, x, n) = (s.interval().as_ps(), s.x_min().as_ps(), s.cells_per_interval());
    (0..)
        .map(|k| k * i)
        .take_while(|&start| start < horizon)
        .flat_map(|start| (0..n).map(move |c| start + c * x))
        .filter(|&t| t < horizon)
        .collect()
}

proptest! {
    #[test]
    fn envelope_matches_a_sliding_window(
        x_min in 1u64..6, extra in 0u64..6, mult in 1u64..5, slack in 0u64..6, t in 0u64..60,
    ) {
        let x_ave = x_min + extra;
        let s = spec(us(x_min), us(x_ave), us(x_ave * mult + slack % x_ave), 0);
        prop_assert_eq!(s.envelope(us(t)), brute_envelope(&s, t * TAU_MICRO_PS));
    }
}

// ---- specs, errors and levels ----------------------------------------------------------

#[test]
fn bad_specs_are_refused_with_the_field_named() {
    let err = |r: Result<TrafficSpec, SpecError>| r.unwrap_err().to_string();
    let e = err(TrafficSpec::new(SimDuration::ZERO, ms(8), ms(1000), 0));
    assert!(e.starts_with("x_min must be positive"), "{e}");
    assert!(err(TrafficSpec::new(ms(4), SimDuration::ZERO, ms(1000), 0)).starts_with("x_ave"));
    assert!(err(TrafficSpec::new(ms(4), ms(8), SimDuration::ZERO, 0)).starts_with("interval"));
    let e = err(TrafficSpec::new(ms(9), ms(8), ms(1000), 0));
    assert!(e.contains("x_min") && e.contains("must not exceed x_ave"), "{e}");
    let e = err(TrafficSpec::new(ms(4), ms(8), ms(7), 0));
    assert!(e.starts_with("interval") && e.contains("at least x_ave"), "{e}");
    assert_eq!(TrafficSpec::new(ms(4), ms(8), ms(8), 4), Err(SpecError::NoSuchLevel(4)));
    let e = err(TrafficSpec::for_delay(ms(4), ms(8), ms(1000), ms(4), T1));
    assert!(e.contains("below level 0") && e.contains("best effort"), "{e}");
    let e = DelayBoundAdmission::new(&[T1, Rate::bps(0)], vec![]).unwrap_err().to_string();
    assert!(e.starts_with("port_rates[1]"), "{e}");
}

#[test]
fn tab_4_5_maps_to_tab_4_6_levels() {
    // (conversation, d [ms], X_min [µs], X_ave [µs], I [ms], Tab 4-6 level)
    let rows: [(&str, u64, u64, u64, u64, u8); 10] = [
        ("telnet up", 10, 20_000, 50_000, 500, 1),
        ("telnet down", 10, 10_000, 20_000, 1000, 1),
        ("FTP control up", 20, 100_000, 500_000, 5000, 2),
        ("FTP control down", 20, 100_000, 500_000, 5000, 2),
        ("FTP data up", 80, 100_000, 100_000, 2000, 3),
        ("FTP data down", 80, 20_000, 20_000, 2000, 3),
        ("HTTP up", 40, 50_000, 100_000, 10_000, 3),
        ("HTTP down", 40, 4_000, 8_000, 1000, 3),
        ("audio", 20, 4_000, 5_000, 100, 2),
        ("video", 50, 2_600, 3_500, 2000, 3),
    ];
    for (name, d, x_min, x_ave, i, level) in rows {
        let s = TrafficSpec::for_delay(us(x_min), us(x_ave), ms(i), ms(d), T1).unwrap();
        assert_eq!(s.level(), level, "{name}");
    }
}

#[test]
fn level_boundaries_are_exact_at_t1() {
    // 32 τ = 32·424/1 536 000 s = 8 833 333 333.3 ps; 16 τ = 4 416 666 666.7 ps.
    let ps = SimDuration::from_ps;
    assert_eq!(level_for_delay(ps(8_833_333_334), T1), Ok(1));
    assert_eq!(level_for_delay(ps(8_833_333_333), T1), Ok(0));
    assert_eq!(level_for_delay(ps(4_416_666_667), T1), Ok(0));
    assert!(level_for_delay(ps(4_416_666_666), T1).is_err());
    assert_eq!(level_for_delay(ms(1000), T1), Ok(3));
}

// ---- admission: hand-computed limits ---------------------------------------------------

#[test]
fn http_down_fills_level_3_at_fourteen() {
    // Level 3 at T1: d_3 = 128 τ = 35.333 ms. One HTTP-down VC: b = ⌊35.333/1000⌋·125
    // + min(⌈35.333/4⌉, 125) = 0 + min(⌈8.83⌉, 125) = 9 cells. N* = ⌊(128 − 1)/9⌋ = 14
    // (14·9 + 1 = 127 ≤ 128; 15·9 + 1 = 136 > 128). Rate: 14·τ/8 ms = 0.48 ≤ 1.
    let http = spec(ms(4), ms(8), ms(1000), 3);
    let mut a = DelayBoundAdmission::new(&[T1, T1], vec![http]).unwrap();
    assert_eq!(fill(&mut a, P0, Descriptor(0)), 14);
    assert_eq!(a.level_load(P0)[3], (126, 14));
    a.release(P0, &Descriptor(0));
    assert!(a.admit(P0, &Descriptor(0)), "one release makes room for exactly one");
    assert!(!a.admit(P0, &Descriptor(0)));
    // The other port is untouched, and a release there gives nothing back at P0.
    a.release(P1, &Descriptor(0));
    assert!(!a.admit(P0, &Descriptor(0)));
    assert_eq!(fill(&mut a, P1, Descriptor(0)), 14);
}

/// Level-0 VC of telnet-down's parameters (X_min 10 ms, X_ave 20 ms, I 1000 ms), and HTTP
/// down at level 3, at T1. Level-0 VC: b(d_0 = 16 τ = 4.417 ms) = 1; b(d_3 = 35.333 ms) =
/// ⌈3.53⌉ = 4. HTTP down: b(d_3) = 9 (above).
fn two_levels() -> DelayBoundAdmission {
    let hi = spec(ms(10), ms(20), ms(1000), 0);
    let http = spec(ms(4), ms(8), ms(1000), 3);
    DelayBoundAdmission::new(&[T1], vec![hi, http]).unwrap()
}
const HI: Descriptor = Descriptor(0);
const HTTP: Descriptor = Descriptor(1);

#[test]
fn higher_priority_consumes_lower_levels_budget() {
    // Two level-0 VCs take 2·4 = 8 cells of level 3: ⌊(127 − 8)/9⌋ = 13 HTTP (8 + 117 + 1 = 126).
    let mut a = two_levels();
    assert!(a.admit(P0, &HI) && a.admit(P0, &HI));
    assert_eq!(fill(&mut a, P0, HTTP), 13);
    // With 14 HTTP level 3 holds 126 + 1 = 127: a level-0 VC (+4) would break it.
    let mut a = two_levels();
    assert_eq!(fill(&mut a, P0, HTTP), 14);
    assert!(!a.admit(P0, &HI), "a new level-0 VC must not break level 3's bound");
    // With 9 HTTP (81 cells) level 3 admits ⌊(127 − 81)/4⌋ = 11 level-0 VCs, not level 0's 15.
    let mut a = two_levels();
    (0..9).for_each(|_| assert!(a.admit(P0, &HTTP)));
    assert_eq!(fill(&mut a, P0, HI), 11);
}

#[test]
fn lower_priority_leaves_higher_levels_test_alone() {
    // Level 0 alone: 15 VCs (15·1 + 1 = 16 ≤ 16), the 16th fails its own test.
    let mut a = two_levels();
    assert_eq!(fill(&mut a, P0, HI), 15);
    // With 7 HTTP first, level 0 still takes exactly 15: level 3 holds 63 + 60 + 1 = 124.
    let mut a = two_levels();
    (0..7).for_each(|_| assert!(a.admit(P0, &HTTP)));
    assert_eq!(a.level_load(P0)[0], (0, 0), "level 3 VCs do not count at level 0");
    assert_eq!(fill(&mut a, P0, HI), 15);
    assert_eq!(a.level_load(P0)[0], (15, 15));
    assert_eq!(a.level_load(P0)[3], (63 + 60, 7));
}

#[test]
fn rate_test_binds_when_i_over_x_ave_is_not_whole() {
    // τ = 1 µs. X_min = X_ave = 10 µs, I = 19 µs → n = ⌊1.9⌋ = 1 cell per 19 µs. Level 3
    // (128 µs): b = ⌊128/19⌋·1 + min(⌈14/10⌉, 1) = 7. Nominal load τ/X_ave = 0.1 each: ten VCs
    // load the link exactly (admitted, ≤ 1), the eleventh would be 1.1 although its delay
    // test, 11·7 + 1 = 78 ≤ 128, passes.
    let s = spec(us(10), us(10), us(19), 3);
    let mut a = DelayBoundAdmission::new(&[MICRO], vec![s]).unwrap();
    assert_eq!(fill(&mut a, P0, Descriptor(0)), 10);
    let (load, _) = a.level_load(P0)[3];
    assert!(load + s.envelope_cells(128, MICRO) < 128, "the delay test alone would admit");
}

#[test]
fn a_rate_sum_beyond_u128_is_refused_not_wrapped() {
    // X_ave = 10¹³ + 1, + 2, + 3 ps are pairwise coprime: Σ 1/X_ave needs a denominator near
    // 10³⁹ > 2¹²⁸ ≈ 3.4·10³⁸ for the third. Each VC sends one cell per 10 s (load 3·10⁻⁵) and
    // b(d_3) = 1, so only the documented overflow refusal can stop the third.
    let ten_s = 10_000_000_000_000;
    let specs: Vec<_> =
        (1..=3).map(|k| spec(ms(1), SimDuration::from_ps(ten_s + k), SimDuration::from_ps(ten_s + k), 3)).collect();
    let mut a = DelayBoundAdmission::new(&[T1], specs).unwrap();
    assert!(a.admit(P0, &Descriptor(0)) && a.admit(P0, &Descriptor(1)));
    assert!(!a.admit(P0, &Descriptor(2)));
    assert_eq!(a.level_load(P0)[3], (2, 2));
}

#[test]
fn best_effort_unknown_descriptors_and_ports() {
    let mut a = two_levels();
    for _ in 0..1000 {
        assert!(a.admit(P0, &BEST_EFFORT));
    }
    assert!(a.reserved(P0).is_empty(), "best effort reserves nothing");
    a.release(P0, &BEST_EFFORT);
    assert!(!a.admit(P0, &Descriptor(7)), "beyond the table: refused");
    assert!(!a.admit(PortId(3), &HI), "beyond the port list: refused");
    a.release(PortId(3), &HI);
    a.release(P0, &HI); // matches no admission: no-op
    assert!(a.reserved(P0).is_empty());
    assert_eq!(fill(&mut a, P0, HI), 15);
}

// ---- readings that could admit more HTTP-down VCs (docs/mah96.md, "Admission: which reading")

/// How many VCs of `spec` one T1 port admits under `reading`.
fn per_t1_port(reading: Reading, spec: TrafficSpec) -> usize {
    let mut a = DelayBoundAdmission::new(&[T1], vec![spec]).unwrap().with_reading(reading);
    fill(&mut a, P0, Descriptor(0))
}

/// Tab 4-2 with level 3's `d_m` replaced [cell times].
fn level_3_bound(cells: u64) -> Reading {
    Reading { bounds: [16, 32, 64, cells], ..Reading::THESIS }
}

#[test]
fn readings_of_b_and_of_the_level_3_bound_admit_thirteen_to_fifteen() {
    // HTTP down (Tab 4-5): X_min 4 ms, X_ave 8 ms, I 1000 ms; τ = 276.04 µs. While d_m is
    // below the 500 ms burst (125 cells 4 ms apart), b(d_m) ≈ d_m/X_min, so every reading
    // of d_m admits about (d_m/τ)/(d_m/X_min) = X_min/τ = 14.49 VCs.
    let http = spec(ms(4), ms(8), ms(1000), 3);
    let rows: [(&str, Reading, usize); 6] = [
        // b(128 τ = 35.33 ms) = ⌈8.83⌉ = 9: ⌊(128 − 1)/9⌋.
        ("shipped: RCSP column, whole cells", Reading::THESIS, 14),
        // No s_max term ≡ one more cell of bound: ⌊128/9⌋.
        ("without the non-preemption cell", level_3_bound(129), 14),
        // Switch column 37.5 ms = 136 τ: b = ⌈37.54/4⌉ = 10, ⌊135/10⌋.
        ("switch delay bound, 136 τ", level_3_bound(136), 13),
        // The requested d = 40 ms = 144.9 τ (144 whole cells): b(39.75 ms) = 10, ⌊143/10⌋.
        ("requested d = 40 ms", level_3_bound(144), 14),
        // "128" taken as 128 ms = 463.7 τ: b(127.8 ms) = ⌈31.95⌉ = 32, ⌊462/32⌋.
        ("128 ms instead of 128 cell times", level_3_bound(463), 14),
        // 48-byte payloads against 53-byte cell times: 48·(9N + 1) ≤ 53·128 → N ≤ 15.6.
        ("b and s_max in payload bytes", Reading { payload_bytes: true, ..Reading::THESIS }, 15),
    ];
    for (name, reading, want) in rows {
        assert_eq!(per_t1_port(reading, http), want, "{name}");
    }
}

#[test]
fn readings_that_count_a_vc_as_more_traffic_admit_fewer() {
    // End-to-end 40 ms split over 5 hops: 8 ms per hop → level 0 (16 τ = 4.42 ms),
    // b = ⌈1.10⌉ = 2: ⌊15/2⌋ = 7.
    assert_eq!(level_for_delay(ms(8), T1), Ok(0));
    assert_eq!(per_t1_port(Reading::THESIS, spec(ms(4), ms(8), ms(1000), 0)), 7);
    // The whole interval's n = 125 cells as one burst (X_min → 0): ⌊127/125⌋ = 1.
    assert_eq!(per_t1_port(Reading::THESIS, spec(SimDuration::from_ps(1), ms(8), ms(1000), 3)), 1);
    // X_min per 552-byte datagram (12 cells) rather than per cell: a packet VC is 12 cell
    // VCs in step, and of the 14 cell VCs only one whole group of 12 fits.
    let mut a = DelayBoundAdmission::new(&[T1], vec![spec(ms(4), ms(8), ms(1000), 3)]).unwrap();
    let groups = (0..10).take_while(|_| (0..12).all(|_| a.admit(P0, &Descriptor(0)))).count();
    assert_eq!(groups, 1);
}

#[test]
fn rate_based_readings_admit_at_most_thirty_two() {
    let rate_only = Reading { delay_test: false, ..Reading::THESIS };
    let rate_only_payload = Reading { payload_bytes: true, ..rate_only };
    // b from the average rate (X_min read as X_ave = 8 ms): b = ⌈4.42⌉ = 5, ⌊127/5⌋ = 25.
    assert_eq!(per_t1_port(Reading::THESIS, spec(ms(8), ms(8), ms(1000), 3)), 25);
    // Rate test alone, in cells: ⌊X_ave/τ⌋ = ⌊8/0.27604⌋ = ⌊28.98⌋ = 28 — also the ceiling
    // of the shipped test, whatever its delay reading.
    let http = spec(ms(4), ms(8), ms(1000), 3);
    assert_eq!(per_t1_port(rate_only, http), 28);
    // Tab 4-5's kb/s column against 1,536 kb/s: 48 kb/s average → 32; 96 kb/s peak → 16.
    assert_eq!(per_t1_port(rate_only_payload, http), 32);
    assert_eq!(per_t1_port(rate_only_payload, spec(ms(4), ms(4), ms(1000), 3)), 16);
    // The delay test never admits past the rate test: even a level-3 bound of 1 s (b = 125,
    // ⌊3621/125⌋ = 28) stops at 28.
    assert_eq!(per_t1_port(level_3_bound(3622), http), 28);
}

#[test]
fn the_ports_of_one_path_admit_what_one_port_does() {
    // A site router's adapter and its site switch's uplink carry the same VCs (one router
    // per site switch), so testing both, or switch ports only, admits the same 14; the
    // first refusal releases the reservation already made, as a REJECT does.
    let http = spec(ms(4), ms(8), ms(1000), 3);
    let mut a = DelayBoundAdmission::new(&[T1, T1], vec![http]).unwrap();
    let d = Descriptor(0);
    let both = (0..100)
        .take_while(|_| {
            let first = a.admit(P0, &d);
            let second = first && a.admit(P1, &d);
            if first && !second {
                a.release(P0, &d);
            }
            second
        })
        .count();
    assert_eq!(both, 14);
    assert_eq!(a.reserved(P0), a.reserved(P1));
}

#[test]
fn mixes_http_up_and_telnet_share_level_3() {
    // HTTP up (X_min 50 ms): b(35.33 ms) = 1 cell. Telnet (level 1) counts at level 3 with
    // b = ⌈35.33/10⌉ = 4 (down) and ⌈35.33/20⌉ = 2 (up).
    let specs = vec![
        spec(ms(4), ms(8), ms(1000), 3),      // 0: HTTP down
        spec(ms(50), ms(100), ms(10_000), 3), // 1: HTTP up
        spec(ms(10), ms(20), ms(1000), 1),    // 2: telnet down
        spec(ms(20), ms(50), ms(500), 1),     // 3: telnet up
    ];
    let (down, up, tdown, tup) = (Descriptor(0), Descriptor(1), Descriptor(2), Descriptor(3));
    let port = |reading: Reading| DelayBoundAdmission::new(&[T1], specs.clone()).unwrap().with_reading(reading);
    // nwc-http: 10 HTTP-up VCs leave ⌊(127 − 10)/9⌋ = 13 HTTP down.
    let mut a = port(Reading::THESIS);
    (0..10).for_each(|_| assert!(a.admit(P0, &up)));
    assert_eq!(fill(&mut a, P0, down), 13);
    // nwc-isp: 5 telnet pairs take 5·(4 + 2) = 30 cells: ⌊(127 − 30)/9⌋ = 10 HTTP down.
    let mut a = port(Reading::THESIS);
    (0..5).for_each(|_| assert!(a.admit(P0, &tdown) && a.admit(P0, &tup)));
    assert_eq!(fill(&mut a, P0, down), 10);
    // If level 3's budget ignored level 1 it would stay at 14.
    let mut a = port(Reading { higher_levels_count: false, ..Reading::THESIS });
    (0..5).for_each(|_| assert!(a.admit(P0, &tdown) && a.admit(P0, &tup)));
    assert_eq!(fill(&mut a, P0, down), 14);
    assert_eq!(a.level_load(P0)[3], (126, 14));
}

// ---- the brute-force worst case ----------------------------------------------------------

/// Every VC sends its greedy pattern from t = 0 through a non-preemptive static-priority
/// server of cell time `tau`, FIFO within a level; whenever the server would go idle, a
/// best-effort cell takes it just before the next guaranteed cell is eligible (so every
/// busy period starts blocked, as at t = 0−). Returns the first cell, as (level, delay \[ps\]),
/// that leaves later than its level's bound after its eligibility.
fn first_miss(specs: &[TrafficSpec], tau: u64) -> Option<(u8, u64)> {
    let max_i = specs.iter().map(|s| s.interval().as_ps()).max().unwrap_or(0);
    let horizon = 2 * max_i + 2 * TAB_4_2_CELLS[LEVELS - 1] * tau;
    let mut cells: Vec<(u64, u8)> =
        specs.iter().flat_map(|s| greedy_cells(s, horizon).into_iter().map(move |t| (t, s.level()))).collect();
    cells.sort_unstable();
    let mut queues: [std::collections::VecDeque<u64>; LEVELS] = Default::default();
    let (mut next, mut free) = (0, 0);
    loop {
        if queues.iter().all(|q| q.is_empty()) {
            let &(t, _) = cells.get(next)?;
            free = t + tau; // a best-effort cell started just before t
        }
        while next < cells.len() && cells[next].0 <= free {
            queues[cells[next].1 as usize].push_back(cells[next].0);
            next += 1;
        }
        let level = queues.iter().position(|q| !q.is_empty()).unwrap_or(0);
        let eligible = queues[level].pop_front().unwrap_or(free);
        free += tau;
        let delay = free - eligible;
        if delay > TAB_4_2_CELLS[level] * tau {
            return Some((level as u8, delay));
        }
    }
}

#[test]
fn one_blocking_cell_is_counted_and_the_window_is_half_open() {
    // τ = 1 µs, level 0 (16 µs). X_min = X_ave = I = 16 µs: cells at 0, 16, 32 … µs;
    // b(16 µs) = 1 (the closed window [0, 16] would count 2). 15 VCs: 15 + 1 = 16 ≤ 16.
    let s = spec(us(16), us(16), us(16), 0);
    let mut a = DelayBoundAdmission::new(&[MICRO], vec![s]).unwrap();
    assert_eq!(fill(&mut a, P0, Descriptor(0)), 15);
    assert_eq!(first_miss(&[s; 15], TAU_MICRO_PS), None, "the last leaves at exactly 16 τ");
    // A 16th VC would leave its last cell 17 τ after t = 0, behind the blocking cell.
    assert_eq!(first_miss(&[s; 16], TAU_MICRO_PS), Some((0, 17 * TAU_MICRO_PS)));
}

#[test]
fn half_open_window_is_the_right_count() {
    // As above, but with the closed count every VC would take 2 cells of level 0's 16 and only
    // 7 would fit; the schedule shows all 15 meet the bound, so ⌈⌉ (half-open) is right.
    let s = spec(us(16), us(16), us(16), 0);
    assert_eq!(s.envelope(us(16)), 1);
    assert_eq!(first_miss(&[s; 15], TAU_MICRO_PS), None);
}

/// A spec in µs: X_min, X_ave = X_min + extra, I = X_ave·mult (+ slack when `whole` is
/// false, making I/X_ave non-integer), at `level`.
fn arb_spec(whole: bool) -> impl Strategy<Value = TrafficSpec> {
    (1u64..12, 0u64..12, 1u64..6, 0u64..12, 0u8..4).prop_map(move |(x, e, m, sl, level)| {
        let x_ave = x + e;
        let slack = if whole { 0 } else { sl % x_ave };
        spec(us(x), us(x_ave), us(x_ave * m + slack), level)
    })
}

/// Admit `specs` in order at one port, each up to `copies` times (so that most sets end
/// saturated, where a slack in the test would show); the specs admitted, with repeats.
fn admit_all(specs: &[(TrafficSpec, usize)]) -> Vec<TrafficSpec> {
    let table = specs.iter().map(|&(s, _)| s).collect();
    let mut a = DelayBoundAdmission::new(&[MICRO], table).unwrap();
    let mut admitted = Vec::new();
    for (i, &(s, copies)) in specs.iter().enumerate() {
        let n = (0..copies).take_while(|_| a.admit(P0, &Descriptor(i as u32))).count();
        admitted.extend(std::iter::repeat_n(s, n));
    }
    admitted
}

fn arb_set(whole: bool) -> impl Strategy<Value = Vec<(TrafficSpec, usize)>> {
    prop::collection::vec((arb_spec(whole), 1usize..16), 1..6)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn admitted_sets_meet_their_bounds_in_the_worst_case(specs in arb_set(false)) {
        let admitted = admit_all(&specs);
        prop_assert_eq!(first_miss(&admitted, TAU_MICRO_PS), None, "{:?}", admitted);
    }

    #[test]
    fn with_whole_i_over_x_ave_only_the_delay_test_refuses(specs in arb_set(true)) {
        let table = specs.iter().map(|&(s, _)| s).collect();
        let mut a = DelayBoundAdmission::new(&[MICRO], table).unwrap();
        for (i, &(s, copies)) in specs.iter().enumerate() {
            for _ in 0..copies {
                let load = a.level_load(P0);
                let k = s.level() as usize;
                let delay_ok = (k..LEVELS).filter(|&m| m == k || load[m].1 > 0).all(|m| {
                    load[m].0 + s.envelope_cells(TAB_4_2_CELLS[m], MICRO) < TAB_4_2_CELLS[m]
                });
                prop_assert_eq!(a.admit(P0, &Descriptor(i as u32)), delay_ok);
            }
        }
    }

    #[test]
    fn any_subset_of_an_admitted_set_is_admitted(
        specs in arb_set(false),
        keep in prop::collection::vec(any::<bool>(), 80),
    ) {
        let admitted = admit_all(&specs);
        let mut subset: Vec<(TrafficSpec, usize)> =
            admitted.iter().zip(&keep).filter(|(_, &k)| k).map(|(s, _)| (*s, 1)).collect();
        subset.reverse(); // and in another order
        prop_assert_eq!(admit_all(&subset).len(), subset.len());
    }

    #[test]
    fn reservations_are_admitted_minus_released(
        ops in prop::collection::vec((any::<bool>(), 0u32..2, 0u32..4), 0..80),
    ) {
        let specs = vec![
            spec(ms(4), ms(8), ms(1000), 3),
            spec(ms(10), ms(20), ms(1000), 0),
            spec(us(2600), us(3500), ms(2000), 3),
        ];
        let mut a = DelayBoundAdmission::new(&[T1, T1], specs).unwrap();
        // Descriptor 3 is BEST_EFFORT here.
        let desc = |d: u32| if d == 3 { BEST_EFFORT } else { Descriptor(d) };
        let mut model: [BTreeMap<u32, u32>; 2] = Default::default();
        let mut held: Vec<(PortId, Descriptor)> = Vec::new();
        for (is_admit, p, d) in ops {
            let (port, d) = (PortId(p), desc(d));
            if is_admit {
                if a.admit(port, &d) && d != BEST_EFFORT {
                    *model[p as usize].entry(d.0).or_insert(0) += 1;
                    held.push((port, d));
                }
            } else if let Some(i) = held.iter().position(|&h| h == (port, d)) {
                held.swap_remove(i);
                a.release(port, &d);
                let m = &mut model[p as usize];
                *m.get_mut(&d.0).unwrap() -= 1;
                m.retain(|_, c| *c > 0);
            }
            for (p, m) in model.iter().enumerate() {
                let want: Vec<_> = m.iter().map(|(&d, &c)| (Descriptor(d), c)).collect();
                prop_assert_eq!(a.reserved(PortId(p as u32)), want);
            }
        }
        for (port, d) in held {
            a.release(port, &d);
        }
        prop_assert!(a.reserved(P0).is_empty() && a.reserved(P1).is_empty());
        prop_assert_eq!(a.level_load(P0), [(0, 0); LEVELS]);
    }
}

#[test]
fn exact_fraction_comparison() {
    assert!(frac_le(1, 3, 1, 3));
    assert!(frac_le(1, 3, 34, 100));
    assert!(!frac_le(34, 100, 1, 3));
    assert!(frac_le(u128::MAX - 1, u128::MAX, 1, 1));
    assert!(!frac_le(u128::MAX, u128::MAX - 1, 1, 1));
    let f = Frac::ZERO.add(1, 6).unwrap().add(1, 3).unwrap();
    assert_eq!((f.num, f.den), (1, 2));
}
