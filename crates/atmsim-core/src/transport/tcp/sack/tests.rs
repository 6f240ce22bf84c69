//! The scoreboard against hand-worked cases of RFC 6675 §4 (SMSS 1000 bytes, DupThresh 3):
//! ten segments `[0, 10000)` outstanding unless stated, `HighACK = 0`.

use super::{NextSeg, Scoreboard};

const SMSS: u32 = 1000;
const DT: u32 = 3;

fn board(una: u32, max: u32, blocks: &[(u32, u32)]) -> Scoreboard {
    let mut sb = Scoreboard::default();
    sb.update(una, max, blocks);
    sb.start_recovery(una);
    sb
}

#[test]
fn update_merges_sorts_prunes_and_ignores_invalid_blocks() {
    let mut sb = Scoreboard::default();
    sb.update(0, 10_000, &[(5000, 6000), (1000, 2000), (2000, 3000), (12_000, 13_000), (9000, 11_000)]);
    assert_eq!(sb.sacked(), &[(1000, 3000), (5000, 6000)], "adjacent merged; beyond snd_max ignored");
    sb.update(0, 10_000, &[(2500, 5500)]);
    assert_eq!(sb.sacked(), &[(1000, 6000)], "a block bridging two ranges");
    // A cumulative ACK into the range clips it; one past it removes it.
    sb.update(1500, 10_000, &[(7000, 8000)]);
    assert_eq!(sb.sacked(), &[(1500, 6000), (7000, 8000)]);
    sb.update(6000, 10_000, &[(5000, 6500)]);
    assert_eq!(sb.sacked(), &[(6000, 6500), (7000, 8000)], "a block straddling HighACK is clipped");
    sb.update(8000, 10_000, &[]);
    assert_eq!(sb.sacked(), &[]);
}

#[test]
fn update_works_across_sequence_zero() {
    let una = u32::MAX - 1499;
    let mut sb = Scoreboard::default();
    sb.update(una, una.wrapping_add(5000), &[(500, 1500), (una.wrapping_add(500), 0)]);
    assert_eq!(sb.sacked(), &[(una.wrapping_add(500), 0), (500, 1500)]);
    sb.update(una, una.wrapping_add(5000), &[(0, 500)]);
    assert_eq!(sb.sacked(), &[(una.wrapping_add(500), 1500)]);
    assert!(sb.is_lost(una, una, DT, SMSS), "2500 bytes SACKed above");
}

#[test]
fn is_lost_by_bytes_or_by_discontiguous_ranges() {
    // One loss, the next three segments SACKed: 3000 > (3 − 1)·1000 bytes above.
    let sb = board(0, 10_000, &[(1000, 4000)]);
    assert!(sb.is_lost(0, 0, DT, SMSS));
    // Two segments SACKed: exactly 2000 bytes, two ranges: not yet lost.
    let sb = board(0, 10_000, &[(1000, 2000), (3000, 4000)]);
    assert!(!sb.is_lost(0, 0, DT, SMSS));
    assert!(!sb.is_lost(0, 2000, DT, SMSS));
    // Three small discontiguous ranges (300 bytes): lost by DupThresh ranges.
    let sb = board(0, 10_000, &[(1000, 1100), (2000, 2100), (3000, 3100)]);
    assert!(sb.is_lost(0, 0, DT, SMSS));
    assert!(!sb.is_lost(0, 1500, DT, SMSS), "two ranges above");
}

/// Segments 0, 2 and 4 lost; 1, 3 and 5–7 SACKed; 8–9 not yet acknowledged either way.
fn three_holes() -> Scoreboard {
    board(0, 10_000, &[(1000, 2000), (3000, 4000), (5000, 8000)])
}

#[test]
fn pipe_counts_unsacked_not_lost_and_retransmitted_octets() {
    let mut sb = three_holes();
    // The three holes are lost (5000, 4000, 3000 bytes SACKed above): only 8–9 are in flight.
    assert_eq!(sb.pipe(0, 10_000, DT, SMSS), 2000);
    sb.retransmitted(1000);
    assert_eq!(sb.pipe(0, 10_000, DT, SMSS), 3000, "the retransmission is in flight");
    sb.retransmitted(3000);
    assert_eq!(sb.pipe(0, 10_000, DT, SMSS), 4000, "SACKed octets below HighRxt do not count");
    // An unSACKed octet that is not lost but was retransmitted counts twice (§4 (a) and (b)).
    let mut sb = board(0, 10_000, &[(1000, 2000)]);
    assert_eq!(sb.pipe(0, 10_000, DT, SMSS), 9000);
    sb.retransmitted(1000);
    assert_eq!(sb.pipe(0, 10_000, DT, SMSS), 10_000);
}

#[test]
fn next_seg_rule1_lost_holes_in_order_above_high_rxt() {
    let mut sb = three_holes();
    let next = |sb: &Scoreboard, new| sb.next_seg(0, 10_000, DT, SMSS, new);
    assert_eq!(next(&sb, true), Some(NextSeg::Retransmit { seq: 0, len: 1000, lost: true }));
    sb.retransmitted(1000);
    assert_eq!(next(&sb, true), Some(NextSeg::Retransmit { seq: 2000, len: 1000, lost: true }));
    sb.retransmitted(3000);
    assert_eq!(next(&sb, false), Some(NextSeg::Retransmit { seq: 4000, len: 1000, lost: true }));
    sb.retransmitted(5000);
    // Nothing lost above HighRxt: new data (rule 2), else nothing (8–9 lie above every SACK).
    assert_eq!(next(&sb, true), Some(NextSeg::NewData));
    assert_eq!(next(&sb, false), None);
}

#[test]
fn next_seg_rule2_before_rule3_and_a_retransmission_stops_at_the_hole() {
    // Hole [0, 1000) not lost (1500 bytes in two ranges above it).
    let sb = board(0, 5000, &[(1000, 2000), (3000, 3500)]);
    assert_eq!(sb.next_seg(0, 5000, DT, SMSS, true), Some(NextSeg::NewData));
    assert_eq!(sb.next_seg(0, 5000, DT, SMSS, false), Some(NextSeg::Retransmit { seq: 0, len: 1000, lost: false }));
    // A hole shorter than a segment is retransmitted alone, not the SACKed octets after it.
    let sb = board(0, 10_000, &[(500, 4000)]);
    assert_eq!(sb.next_seg(0, 10_000, DT, SMSS, true), Some(NextSeg::Retransmit { seq: 0, len: 500, lost: true }));
}

#[test]
fn next_seg_rule4_rescues_the_highest_unsacked_segment_once_after_a_partial_ack() {
    // Segments 0 and 4 lost, 1 SACKed (2–3 in flight): 4 lies above every SACK.
    let mut sb = board(0, 5000, &[(1000, 2000)]);
    sb.retransmitted(1000); // the entry's retransmission of 0 ...
    sb.set_rescue_rxt(1000); // ... also bounds the rescue (§5 step 4.3)
    assert_eq!(sb.next_seg(0, 5000, DT, SMSS, false), None, "no rescue before HighACK passes it");
    // A partial ACK to 4000 (2 and 3 arrived, 4 did not): rules 1–3 find nothing.
    sb.update(4000, 5000, &[]);
    assert_eq!(sb.next_seg(4000, 5000, DT, SMSS, true), Some(NextSeg::NewData), "rule 2 first");
    assert_eq!(sb.next_seg(4000, 5000, DT, SMSS, false), Some(NextSeg::Rescue { seq: 4000, len: 1000 }));
    sb.set_rescue_rxt(5000); // RescueRxt = RecoveryPoint: once per recovery
    assert_eq!(sb.next_seg(4000, 5000, DT, SMSS, false), None);
    // Below a SACK reaching HighData (all below it already retransmitted), the rescue ends
    // at the highest unSACKed octet, under the SACK.
    let mut sb = board(0, 10_000, &[(9000, 10_000)]);
    sb.retransmitted(9000);
    sb.set_rescue_rxt(0);
    sb.update(500, 10_000, &[]);
    assert_eq!(sb.next_seg(500, 10_000, DT, SMSS, false), Some(NextSeg::Rescue { seq: 8000, len: 1000 }));
    let mut sb = board(0, 10_000, &[(1000, 10_000)]);
    sb.retransmitted(1000);
    sb.set_rescue_rxt(1000);
    assert_eq!(sb.next_seg(0, 10_000, DT, SMSS, false), None);
}

#[test]
fn clear_forgets_everything_after_a_timeout() {
    let mut sb = three_holes();
    sb.clear();
    assert_eq!(sb.sacked(), &[]);
    assert_eq!(sb.pipe(0, 10_000, DT, SMSS), 10_000);
    assert!(!sb.is_lost(0, 0, DT, SMSS));
}
