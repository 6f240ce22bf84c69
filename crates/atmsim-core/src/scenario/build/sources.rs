//! The `[[cell_source]]` section: raw cell sources on one direction of a VC.
//!
//! Owns the checks of each source (its VC and the end it sends from, the parameters of its
//! kind) and the [`CellSource`] values: greedy sources (AAL5 frames back to back, marked on
//! the VC's queue at the sending port), Poisson sources (geometric message lengths,
//! exponential gaps) and on/off sources (fixed or geometric bursts, geometric off periods,
//! marked on the VC's queue too); random stream `Purpose::CellSource`, index i.

use super::nodes::check_unique_name;
use super::nodes::Names;
use super::vcs::{VcDir, Vcs};
use crate::apps::cell_source::{geometric_p_for_truncated_mean, BurstLaw, CellSource, Pattern};
use crate::atm::port::OutPort;
use crate::error::{Error, Result};
use crate::rng::{self, Purpose};
use crate::scenario::limits::{self, int_in, invalid, quoted, MIN_CELL_RATE_BPS};
use crate::scenario::model::{BurstSec, CellSourceKind, CellSourceSec};
use crate::time::SimDuration;

/// The dotted path of field `k` of `cell_source[i]`.
fn at(i: usize, k: &str) -> String {
    format!("cell_source[{i}].{k}")
}

/// Check `[[cell_source]]` and build its sources, in document order. Greedy sources mark
/// their VC at the sending port in `ports`.
pub(super) fn cell_sources(
    secs: &[CellSourceSec],
    names: &Names,
    vcs: &Vcs,
    ports: &mut [OutPort],
    seed: u64,
) -> Result<Vec<CellSource>> {
    let mut sources: Vec<CellSource> = Vec::new();
    for (i, s) in secs.iter().enumerate() {
        let f = |k: &str| at(i, k);
        check_unique_name(&f("name"), &s.name, sources.iter().any(|x| x.name == s.name), "source")?;
        let vc = vcs
            .get(s.vc.as_str())
            .ok_or_else(|| Error::invalid(f("vc"), format!("expected the name of a [[vc]], got `{}`", s.vc)))?;
        let from = names.host(f("from"), &s.from)?;
        let Some(d) = vc.dir_from(from) else {
            return invalid(f("from"), format!("expected an end of VC `{}`, got `{}`", s.vc, s.from));
        };
        let pattern = match s.kind {
            CellSourceKind::Greedy => greedy(i, s, d, ports)?,
            CellSourceKind::Poisson => poisson(i, s, d, ports, seed)?,
            CellSourceKind::OnOff => on_off(i, s, d, ports, seed)?,
        };
        sources.push(CellSource {
            name: s.name.clone(),
            host: from,
            peer: if vc.ends[0] == from { vc.ends[1] } else { vc.ends[0] },
            port: d.port,
            vci: d.vci,
            pattern,
            cells_sent: 0,
            frames_sent: 0,
            frames_rcvd: 0,
            bytes_rcvd: 0,
            bytes_rcvd_warm: 0,
        });
    }
    Ok(sources)
}

/// `field` of source `i` must be absent: it belongs to the other `kind`.
fn only(i: usize, field: &str, present: bool, kind: &str) -> Result<()> {
    if present {
        return invalid(at(i, field), format!("only meaningful for kind = \"{kind}\"; remove it"));
    }
    Ok(())
}

/// A greedy source: frames of `frame_bytes` back to back on direction `d`.
fn greedy(i: usize, s: &CellSourceSec, d: VcDir, ports: &mut [OutPort]) -> Result<Pattern> {
    only(i, "load_bps", s.load_bps.is_some(), "poisson")?;
    only(i, "mean_cells", s.mean_cells.is_some(), "poisson")?;
    only(i, "max_cells", s.max_cells.is_some(), "poisson")?;
    only(i, "burst", s.burst.is_some(), "onoff")?;
    let fb = int_in(at(i, "frame_bytes"), s.frame_bytes.unwrap_or(9180), 1, 65535, "a datagram size in bytes")?;
    ports[d.port.idx()].notify_source(d.vci);
    Ok(Pattern::Greedy { frame_bytes: fb as u32 })
}

/// The longest burst or message: the cells of the longest AAL5 frame (65535 bytes).
const MAX_FRAME_CELLS: i64 = 1365;

/// An on/off source on direction `d`: bursts of a fixed or truncated-geometric number of
/// cells, off periods geometric in cell slots so that alone it offers `load_bps`.
fn on_off(i: usize, s: &CellSourceSec, d: VcDir, ports: &mut [OutPort], seed: u64) -> Result<Pattern> {
    let f = |k: &str| at(i, k);
    only(i, "frame_bytes", s.frame_bytes.is_some(), "greedy")?;
    let link_rate = ports[d.port.idx()].link_rate().as_bps() as f64;
    let load = match s.load_bps {
        Some(l) => source_load(f("load_bps"), l, link_rate, &s.from)?,
        None => return invalid(f("load_bps"), "expected the offered load in bit/s (of 53-byte cells)"),
    };
    let Some(mean) = s.mean_cells else {
        return invalid(f("mean_cells"), "expected the mean burst length in cells (on/off sources have no default)");
    };
    let (burst, mean) = match s.burst.unwrap_or(BurstSec::Geometric) {
        BurstSec::Fixed => {
            only(i, "max_cells", s.max_cells.is_some(), "onoff with burst = \"geometric\"")?;
            if !(mean.fract() == 0.0 && (1.0..=MAX_FRAME_CELLS as f64).contains(&mean)) {
                return invalid(
                    f("mean_cells"),
                    format!(
                        "expected a whole number of cells from 1 to {MAX_FRAME_CELLS} for fixed bursts, got {mean}"
                    ),
                );
            }
            (BurstLaw::Fixed(mean as u32), mean)
        }
        BurstSec::Geometric => {
            let max = int_in(
                f("max_cells"),
                s.max_cells.unwrap_or(MAX_FRAME_CELLS),
                1,
                MAX_FRAME_CELLS,
                "a burst length in cells",
            )?;
            let limit = (max as f64 + 1.0) / 2.0;
            if !(mean.is_finite() && mean >= 1.0 && mean < limit) {
                return invalid(
                    f("mean_cells"),
                    format!(
                        "expected a mean burst length from 1 to below (max_cells + 1) / 2 = {limit} cells, got {mean}"
                    ),
                );
            }
            let p = if mean <= 1.0 { 1.0 - 1e-12 } else { geometric_p_for_truncated_mean(mean, max as u64) };
            (BurstLaw::Geometric { p, max: max as u64 }, mean)
        }
    };
    let rho = load / link_rate;
    ports[d.port.idx()].notify_source(d.vci);
    Ok(Pattern::OnOff {
        burst,
        mean_off_slots: mean * (1.0 - rho) / rho,
        slot: ports[d.port.idx()].link_rate().tx_time(424),
        rng: rng::stream(seed, Purpose::CellSource, i as u64),
    })
}

/// A Poisson source on direction `d`: messages of a truncated geometric number of cells,
/// offering `load_bps` of the link it sends on.
fn poisson(i: usize, s: &CellSourceSec, d: VcDir, ports: &[OutPort], seed: u64) -> Result<Pattern> {
    let f = |k: &str| at(i, k);
    only(i, "frame_bytes", s.frame_bytes.is_some(), "greedy")?;
    only(i, "burst", s.burst.is_some(), "onoff")?;
    let link_rate = ports[d.port.idx()].link_rate().as_bps() as f64;
    let load = match s.load_bps {
        Some(l) => source_load(f("load_bps"), l, link_rate, &s.from)?,
        None => return invalid(f("load_bps"), "expected the offered load in bit/s (of 53-byte cells)"),
    };
    let max_cells =
        int_in(f("max_cells"), s.max_cells.unwrap_or(200), 1, MAX_FRAME_CELLS, "a message length in cells")?;
    let mean = s.mean_cells.unwrap_or(25.0);
    if !(mean.is_finite() && mean >= 1.0 && mean < (max_cells as f64 + 1.0) / 2.0) {
        return invalid(
            f("mean_cells"),
            format!(
                "expected a mean length between 1 and (max_cells + 1) / 2 = {} cells, got {mean}",
                (max_cells as f64 + 1.0) / 2.0
            ),
        );
    }
    let p = if mean <= 1.0 { 1.0 - 1e-12 } else { geometric_p_for_truncated_mean(mean, max_cells as u64) };
    let mean_gap = SimDuration::from_secs_f64(mean * 424.0 / load);
    Ok(Pattern::Poisson {
        mean_gap,
        p,
        max_cells: max_cells as u64,
        rng: rng::stream(seed, Purpose::CellSource, i as u64),
    })
}

/// A Poisson source's offered load [bit/s of cells]: at least one cell per second and at
/// most what the link it sends on carries (beyond that its adapter queue only grows).
fn source_load(field: String, load: f64, link_rate_bps: f64, from: &str) -> Result<f64> {
    if !(load.is_finite() && load >= MIN_CELL_RATE_BPS && load <= link_rate_bps) {
        return invalid(
            field,
            format!(
                "expected an offered load between 424 b/s (one cell per second) and the rate of `{}`'s link ({} b/s), got {}",
                quoted(from),
                limits::num(link_rate_bps),
                limits::num(load)
            ),
        );
    }
    Ok(load)
}
