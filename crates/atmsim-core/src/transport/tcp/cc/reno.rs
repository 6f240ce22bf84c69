//! BSD's window arithmetic: the additive increase and the halving of 4.4BSD-Lite, shared by
//! the Tahoe, Reno and NewReno variants (they differ only in loss recovery, [`super`]).
//!
//! Owns: [`halved_window`] (`ssthresh` after a loss, `tcp_input` and `tcp_timers`) and
//! [`Reno::grow`] (the window opening of `tcp_input` after an ACK of new data: slow start
//! `+mss` at or below `ssthresh`, congestion avoidance `+mss·mss/cwnd` above; RFC 2001 §2).

/// `ssthresh = max(min(wnd, cwnd) / 2 / mss, 2) · mss` (tcp_input and tcp_timers).
#[inline]
pub fn halved_window(snd_wnd: u32, cwnd: u32, mss: u32) -> u32 {
    let mss = mss.max(1);
    let win = (snd_wnd.min(cwnd) / 2 / mss).max(2);
    win.saturating_mul(mss)
}

/// BSD's AIMD growth: it keeps no state of its own.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Reno;

impl Reno {
    /// The window after an ACK of new data, before the cap (4.4-Lite: "open the congestion
    /// window"): `cw + mss` if `cw <= ssthresh`, else `cw + mss·mss/cw`.
    #[inline]
    pub fn grow(cw: u32, ssthresh: u32, mss: u32) -> u32 {
        let mut incr = mss;
        if cw > ssthresh {
            incr = ((incr as u64 * incr as u64) / cw as u64) as u32;
        }
        cw.saturating_add(incr)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halving_keeps_whole_segments_and_two_at_least() {
        assert_eq!(halved_window(20_000, 10_500, 1000), 5000);
        assert_eq!(halved_window(3000, 50_000, 1000), 2000);
        assert_eq!(halved_window(100, 100, 0), 50, "a zero MSS counts as one byte");
    }

    #[test]
    fn growth_is_one_segment_then_one_per_window() {
        assert_eq!(Reno::grow(4000, 4000, 1000), 5000, "at ssthresh: still slow start");
        assert_eq!(Reno::grow(5000, 4000, 1000), 5200);
    }
}
