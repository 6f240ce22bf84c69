//! Measurement in the running network: the end of the warm-up and the periodic probes.
//!
//! Owns the handling of [`MeasureEv`]: `Warm` snapshots the counters that rates are measured
//! from; `Sample` records queues and TCP state into the [`crate::measure::Recorder`] and
//! schedules the next sample.
//!
//! **Simultaneous events (DESIGN §2b).** Probes run before every other event of their instant:
//! a sample, the warm-up snapshot and the VC count see the state just before the instant
//! (its left limit, t−), whatever else happens at that picosecond.

use super::ck;
use super::{Ev, MeasureEv, Network};

/// How often the IP-over-ATM drivers' VCs in use are counted (Mah §6.6: once a second).
pub const VC_COUNT_PERIOD: crate::time::SimDuration = crate::time::SimDuration::from_secs(1);

impl Network {
    /// Dispatch of the measurement events.
    pub(super) fn on_measure(&mut self, ev: MeasureEv) {
        match ev {
            MeasureEv::Warm => self.snapshot_warm(),
            MeasureEv::Sample => {
                self.sample();
                if let Some(dt) = self.measure.sample_every() {
                    self.eng.q.schedule(self.eng.now + dt, Ev::Measure(MeasureEv::Sample));
                }
            }
            MeasureEv::VcCount => {
                for h in &mut self.ip.hosts {
                    if let Some(atm) = h.atm_mut() {
                        atm.sample_in_use();
                    }
                }
                self.eng.q.schedule(self.eng.now + VC_COUNT_PERIOD, Ev::Measure(MeasureEv::VcCount));
            }
        }
    }

    pub(super) fn snapshot_warm(&mut self) {
        let t = self.eng.now.saturating_sub(crate::time::SimDuration::from_ps(1));
        self.fabric.advance_all(ck!(self), t);
        self.apps.snapshot_warm();
        self.measure.snapshot_warm(&self.fabric.ports, self.eng.now);
    }

    pub(super) fn sample(&mut self) {
        let t = self.eng.now.saturating_sub(crate::time::SimDuration::from_ps(1));
        self.fabric.advance_all(ck!(self), t);
        self.drain_host_links();
        let t = self.eng.now.as_secs_f64();
        let dt = self.measure.sample_every().map_or(1.0, |d| d.as_secs_f64());
        self.measure.sample((t, dt), self.apps.fixed_slots_mut(), &self.fabric.ports, &self.ip.hosts);
    }
}
