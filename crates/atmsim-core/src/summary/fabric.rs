//! The cell layer's sections: `sources` (cell sources), `ports`, `shapers` and `policers`.
//!
//! Owns: [`Source`], [`Port`], [`Shaper`], [`Policer`] and the functions that list them.

use super::stats::Window;
use crate::apps::cell_source::CellSource;
use crate::atm::cell::CELL_BITS;
use crate::atm::shaping::PoliceAction;
use crate::net::Network;
use serde::Serialize;

/// One cell source.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Source {
    pub name: String,
    /// "greedy", "poisson" or "onoff".
    pub kind: &'static str,
    pub goodput_bps: f64,
    /// `null` for a greedy source, which offers whatever its link takes.
    pub offered_cell_bps: Option<f64>,
    pub sent_cell_bps: f64,
    pub cells_sent: u64,
    pub frames_sent: u64,
    pub frames_rcvd: u64,
}

/// One output port (switch or host adapter).
#[derive(Clone, Debug, Default, Serialize)]
pub struct Port {
    pub name: String,
    pub rate_bps: f64,
    /// `null`: unlimited.
    pub buffer_cells: Option<u32>,
    pub cells_in: u64,
    pub cells_tx: u64,
    pub drop_tail: u64,
    pub drop_ppd: u64,
    pub drop_epd: u64,
    pub drop_host_queue: u64,
    pub drop_clp1: u64,
    pub drop_ctrl: u64,
    pub ctrl_cells_in: u64,
    pub max_ctrl_queue_cells: u32,
    pub drops: u64,
    pub frames_refused: u64,
    pub max_queue_cells: u32,
    pub mean_queue_cells: f64,
    /// Time spent transmitting within the window / the window: exact, so at most 1 even when
    /// the window is shorter than a cell time.
    pub utilization: f64,
    /// Static-priority and RCSP ports only (FIFO and round-robin runs keep their digests).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub drop_regulator: Option<u64>,
}

/// One traffic shaper (GCRA pacing of a VC or VP).
#[derive(Clone, Debug, Default, Serialize)]
pub struct Shaper {
    pub name: String,
    pub kind: &'static str,
    pub rate_bps: f64,
    pub t_s: f64,
    pub tau_s: f64,
    pub cells_shaped: u64,
    pub cells_held: usize,
    pub max_queue_cells: u32,
    pub mean_delay_s: f64,
    pub nonconforming_releases: u64,
    pub dropped: u64,
    /// `null`: unlimited.
    pub buffer_cells: Option<u32>,
    pub frames_refused: u64,
    pub cells_refused: u64,
}

/// One usage-parameter-control policer.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Policer {
    pub name: String,
    pub rate_bps: f64,
    pub action: PoliceAction,
    pub t_s: f64,
    pub tau_s: f64,
    pub cells_in: u64,
    pub tagged: u64,
    pub dropped: u64,
}

/// Cells of source `s` that have left its adapter by the end of the run: those handed to the
/// adapter less those still in its port's buffer, the one on the wire, and those waiting in a
/// shaper that feeds that port. At the end of a run every port has carried out its completions
/// up to the end (served ahead or not), so the cell on the wire has not finished; one ending
/// exactly at the end counts as not sent. A port sends one cell at a time at its link's rate,
/// so the rate of these cells cannot exceed the link's. Where several shaped VCs feed one
/// port, all their waiting cells count as not sent: a lower bound there.
fn cells_left(net: &Network, s: &CellSource) -> u64 {
    let at_port = net.fabric().ports[s.port.idx()].unsent_cells_of(s.vci);
    let shaped: u64 = net.fabric().shapers.list.iter().filter(|sh| sh.port == s.port).map(|sh| sh.held() as u64).sum();
    s.cells_sent.saturating_sub(at_port + shaped)
}

pub fn sources(net: &Network, w: Window) -> Vec<Source> {
    let per_s = |cells: u64| cells as f64 * CELL_BITS as f64 / w.end.max(f64::MIN_POSITIVE);
    net.apps()
        .sources
        .iter()
        .map(|s| Source {
            name: s.name.clone(),
            kind: s.kind_name(),
            goodput_bps: s.bytes_rcvd_since_warm() as f64 * 8.0 / w.len,
            offered_cell_bps: (!s.is_greedy()).then(|| per_s(s.cells_sent)),
            sent_cell_bps: per_s(cells_left(net, s)),
            cells_sent: s.cells_sent,
            frames_sent: s.frames_sent,
            frames_rcvd: s.frames_rcvd,
        })
        .collect()
}

pub fn ports(net: &Network) -> Vec<Port> {
    let window_ps = net.engine().until().0.saturating_sub(net.measure().warmup().0).max(1) as f64;
    let run_ps = net.engine().until().0.max(1) as f64;
    net.fabric()
        .ports
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let st = &p.stats;
            let warm_busy = net.measure().warm_busy_ps(i);
            Port {
                name: p.name.clone(),
                rate_bps: p.link_rate().as_bps() as f64,
                buffer_cells: (p.limit != u32::MAX).then_some(p.limit),
                cells_in: st.cells_in,
                cells_tx: st.cells_tx,
                drop_tail: st.drop_tail,
                drop_ppd: st.drop_ppd,
                drop_epd: st.drop_epd,
                drop_host_queue: st.drop_host_queue,
                drop_clp1: st.drop_clp1,
                drop_ctrl: st.dropped_ctrl,
                ctrl_cells_in: st.ctrl_in,
                max_ctrl_queue_cells: st.max_ctrl_occupancy,
                drops: st.drops(),
                frames_refused: st.frames_refused,
                max_queue_cells: st.max_occupancy,
                mean_queue_cells: st.occupancy_area as f64 / run_ps,
                utilization: st.busy_ps.saturating_sub(warm_busy) as f64 / window_ps,
                drop_regulator: p.has_classes().then_some(st.drop_regulator),
            }
        })
        .collect()
}

pub fn shapers(net: &Network) -> Vec<Shaper> {
    net.fabric()
        .shapers
        .list
        .iter()
        .map(|s| Shaper {
            name: s.name.clone(),
            kind: s.kind.as_str(),
            rate_bps: s.rate_bps,
            t_s: s.contract().increment.as_secs_f64(),
            tau_s: s.contract().tolerance.as_secs_f64(),
            cells_shaped: s.stats.cells_shaped,
            cells_held: s.held(),
            max_queue_cells: s.stats.max_queue_cells,
            mean_delay_s: s.mean_delay_s(),
            nonconforming_releases: s.stats.nonconforming,
            dropped: s.stats.dropped,
            buffer_cells: (s.limit != u32::MAX).then_some(s.limit),
            frames_refused: s.stats.frames_refused,
            cells_refused: s.stats.cells_refused,
        })
        .collect()
}

pub fn policers(net: &Network) -> Vec<Policer> {
    net.fabric()
        .shapers
        .policers
        .iter()
        .map(|p| Policer {
            name: p.name.clone(),
            rate_bps: p.rate_bps,
            action: p.action,
            t_s: p.contract().increment.as_secs_f64(),
            tau_s: p.contract().tolerance.as_secs_f64(),
            cells_in: p.stats.cells_in,
            tagged: p.stats.tagged,
            dropped: p.stats.dropped,
        })
        .collect()
}
