//! TCP sequence-number arithmetic modulo 2³² (RFC 793 §3.3; BSD `tcp_seq.h`: `SEQ_LT`,
//! `SEQ_LEQ`, `SEQ_GT`, `SEQ_GEQ`), by the sign of the wrapping 32-bit difference.

/// `b - a` as a signed distance (positive when `b` is after `a`).
#[inline]
pub fn seq_diff(b: u32, a: u32) -> i32 {
    b.wrapping_sub(a) as i32
}
#[inline]
pub fn seq_lt(a: u32, b: u32) -> bool {
    seq_diff(a, b) < 0
}
#[inline]
pub fn seq_leq(a: u32, b: u32) -> bool {
    seq_diff(a, b) <= 0
}
#[inline]
pub fn seq_gt(a: u32, b: u32) -> bool {
    seq_diff(a, b) > 0
}
#[inline]
pub fn seq_geq(a: u32, b: u32) -> bool {
    seq_diff(a, b) >= 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comparisons_wrap_around_zero() {
        assert!(seq_lt(u32::MAX - 10, 5));
        assert!(seq_gt(5, u32::MAX - 10));
        assert!(seq_leq(7, 7) && seq_geq(7, 7));
        assert_eq!(seq_diff(3, u32::MAX), 4);
    }
}
