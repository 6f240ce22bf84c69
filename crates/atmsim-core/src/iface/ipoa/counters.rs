//! What one driver counts: signalling load, cache effectiveness, VCs held, and datagram fates.
//!
//! Owns: [`DriverCounters`]. Sources: Mah (1996) §6.6 (setups per run, cache hit rates,
//! peak setups per second, maximum VCs per router); spec digest rows A-29 (VCs in use =
//! bound + cached, originated by this driver, sampled every second) and A-30 (1-s bins of
//! setups, the peak is the maximum bin).
//!
//! A setup is counted when it is *requested* (a cache miss), so
//! `setups_requested = setups_completed + setups_failed + pending` and the cache hit rate is
//! `cache_hits / (cache_hits + setups_requested)`. The per-second bins count requests too:
//! the thesis' "virtual circuit establishments performed each second" are the calls a router
//! places. Bins are `[k s, (k+1) s)` of simulated time.
//!
//! Guaranteed VCs (Chapter 4) have two failure rates: per *setup request*,
//! `guaranteed_refused / guaranteed_requested` (A-32: the thesis' VC failure rate, cache hits
//! excluded), and per *VC request*, `guaranteed_refused / (guaranteed_hits +
//! guaranteed_requested)`: the share of all guaranteed requests for a VC, served from the
//! cache or by a setup, that ended on a best-effort fallback. A hit on a cached fallback VC
//! after a refusal is not a guaranteed hit: its request was counted as a setup already.

use crate::time::{SimTime, PS_PER_SEC};

/// Counters of one driver. All are totals since the start of the run unless said otherwise.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DriverCounters {
    /// Setup requests handed to signalling (cache misses).
    pub setups_requested: u64,
    /// Requests served by a cached VC, with no setup.
    pub cache_hits: u64,
    pub setups_completed: u64,
    /// Setups that did not complete, admission refusals included.
    pub setups_failed: u64,
    /// Setup requests for guaranteed VCs (QoS policies; counted in `setups_requested` too).
    pub guaranteed_requested: u64,
    /// Guaranteed requests refused by admission control; each is followed by a best-effort
    /// fallback request. The thesis' VC failure rate is this over
    /// `guaranteed_requested` (A-32: cache hits excluded).
    pub guaranteed_refused: u64,
    /// Guaranteed requests served by a cached guaranteed VC, with no setup (counted in
    /// `cache_hits` too).
    pub guaranteed_hits: u64,
    /// VCs this driver released (idle svc VCs and expired cached VCs).
    pub teardowns: u64,
    /// Datagrams that waited for a pending setup.
    pub datagrams_queued: u64,
    /// Datagrams dropped because their VC's setup failed.
    pub datagrams_dropped: u64,
    /// VCs held now: bound or cached; pending and releasing VCs are not counted.
    pub vcs_in_use: u32,
    /// The largest [`Self::vcs_in_use`] seen by [`Self::sample_in_use`].
    max_vcs_in_use_sampled: u32,
    /// Index of the current 1-s bin of setup requests, and its count so far.
    bin_index: u64,
    bin_count: u32,
    /// The largest count of a finished bin.
    max_closed_bin: u32,
}

impl DriverCounters {
    /// A setup was requested at `now`.
    pub(super) fn count_setup_request(&mut self, now: SimTime) {
        self.setups_requested += 1;
        let bin = now.as_ps() / PS_PER_SEC;
        if bin != self.bin_index {
            self.max_closed_bin = self.max_closed_bin.max(self.bin_count);
            self.bin_index = bin;
            self.bin_count = 0;
        }
        self.bin_count += 1;
    }

    /// Take one sample of the VCs in use (call once per second, A-29); returns it.
    pub fn sample_in_use(&mut self) -> u32 {
        self.max_vcs_in_use_sampled = self.max_vcs_in_use_sampled.max(self.vcs_in_use);
        self.vcs_in_use
    }

    /// The largest number of VCs in use seen by [`Self::sample_in_use`].
    pub fn max_vcs_in_use(&self) -> u32 {
        self.max_vcs_in_use_sampled
    }

    /// The most setups requested in any 1-s bin so far, the current bin included.
    pub fn peak_setups_per_sec(&self) -> u32 {
        self.max_closed_bin.max(self.bin_count)
    }

    /// The current 1-s bin: its index (whole seconds since the start) and the setups
    /// requested in it so far.
    pub fn current_bin(&self) -> (u64, u32) {
        (self.bin_index, self.bin_count)
    }

    /// Refused over requested guaranteed setups; `None` before the first.
    pub fn guaranteed_failure_rate(&self) -> Option<f64> {
        (self.guaranteed_requested > 0).then(|| self.guaranteed_refused as f64 / self.guaranteed_requested as f64)
    }

    /// Refused guaranteed setups over every guaranteed request for a VC, served by a cache
    /// hit or a setup (module docs); `None` before the first.
    pub fn guaranteed_failure_rate_per_vc_request(&self) -> Option<f64> {
        let all = self.guaranteed_hits + self.guaranteed_requested;
        (all > 0).then(|| self.guaranteed_refused as f64 / all as f64)
    }

    /// Cache hits over all requests for a VC that found none bound; `None` before the first.
    pub fn hit_rate(&self) -> Option<f64> {
        let all = self.cache_hits + self.setups_requested;
        (all > 0).then(|| self.cache_hits as f64 / all as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::SimDuration;

    #[test]
    fn setups_are_binned_per_second_and_the_peak_kept() {
        let mut c = DriverCounters::default();
        let at = |ms: u64| SimTime::ZERO + SimDuration::from_millis(ms);
        for ms in [0, 10, 999] {
            c.count_setup_request(at(ms));
        }
        for ms in [1000, 1500] {
            c.count_setup_request(at(ms));
        }
        assert_eq!(c.peak_setups_per_sec(), 3);
        assert_eq!(c.current_bin(), (1, 2));
        for ms in [7000, 7001, 7002, 7003] {
            c.count_setup_request(at(ms));
        }
        assert_eq!(c.peak_setups_per_sec(), 4, "the open bin counts");
        assert_eq!(c.setups_requested, 9);
    }

    #[test]
    fn sampling_keeps_the_maximum_in_use() {
        let mut c = DriverCounters { vcs_in_use: 5, ..Default::default() };
        assert_eq!(c.sample_in_use(), 5);
        c.vcs_in_use = 2;
        c.sample_in_use();
        assert_eq!(c.max_vcs_in_use_sampled, 5);
        assert_eq!(c.hit_rate(), None);
    }

    #[test]
    fn guaranteed_failures_per_setup_and_per_vc_request() {
        let mut c = DriverCounters::default();
        assert_eq!((c.guaranteed_failure_rate(), c.guaranteed_failure_rate_per_vc_request()), (None, None));
        c.guaranteed_requested = 4;
        c.guaranteed_refused = 2;
        c.guaranteed_hits = 4;
        assert_eq!(c.guaranteed_failure_rate(), Some(0.5));
        assert_eq!(c.guaranteed_failure_rate_per_vc_request(), Some(0.25), "2 refused of 4 hits + 4 setups");
        c.guaranteed_requested = 0;
        c.guaranteed_refused = 0;
        assert_eq!(c.guaranteed_failure_rate_per_vc_request(), Some(0.0), "hits only: no failure");
    }
}
