//! Traffic shaping and policing ([`crate::atm::shaping`]): the `shape` of a `[[host]]`, and
//! the `shape`, `pace_bps`, `police` and `reshape` of a `[[vc]]`.
//!
//! Owns the [`Shapers`] of the network and the checks of every `shape`-like table
//! ([`shape_params`]: one rate, given as bit/s, cells/s or mean × beta, and a limit τ).
//! Built in this order: host-level (VP) shapers, then per-VC shapers and pacers (a VC cannot
//! be shaped on a host that shapes all its traffic), then policers (UPC) at switch inputs,
//! then re-shapers at switch inputs.

use super::vcs::{SwitchInput, VcInfo, Vcs};
use crate::atm::shaping::{Gcra, Policer, Shaper, ShaperKind, Shapers};
use crate::error::Result;
use crate::ip::Host;
use crate::scenario::limits::{self, int_in, invalid, positive_f64, span, MAX_RATE_BPS, MIN_CELL_RATE_BPS};
use crate::scenario::model::{PoliceSec, ReshapeSec, ScenarioDoc, ShapeSec, VcSec};
use crate::time::SimDuration;

/// Check every shaping table of the document and build the shapers and policers.
pub(super) fn shapers(doc: &ScenarioDoc, hosts: &[Host], vcs: &Vcs) -> Result<Shapers> {
    let mut shapers = Shapers::default();
    let shaped_host = host_shapers(&mut shapers, doc, hosts)?;
    vc_shapers(&mut shapers, &doc.vcs, vcs, &shaped_host)?;
    policers(&mut shapers, &doc.vcs, vcs)?;
    reshapers(&mut shapers, doc, vcs)?;
    Ok(shapers)
}

/// `host[i].shape`: one shaper on the host's adapter for all its traffic. Returns which
/// hosts are shaped.
fn host_shapers(shapers: &mut Shapers, doc: &ScenarioDoc, hosts: &[Host]) -> Result<Vec<bool>> {
    let mut shaped_host = vec![false; hosts.len()];
    for (i, h) in doc.hosts.iter().enumerate() {
        let Some(sh) = &h.shape else { continue };
        let f = format!("host[{i}].shape");
        let (rate, gcra) = shape_params(&f, sh)?;
        let Some(port) = hosts[i].port else {
            return invalid(f, format!("expected host `{}` to have a link to shape", h.name));
        };
        shaped_host[i] = true;
        shapers.add(Shaper::new(h.name.clone(), ShaperKind::Host, rate, port, gcra), None);
    }
    Ok(shaped_host)
}

/// `vc[i].shape` or `vc[i].pace_bps` (a shaper with τ = 0): the forward direction, at the
/// adapter of the VC's first host.
fn vc_shapers(shapers: &mut Shapers, secs: &[VcSec], vcs: &Vcs, shaped_host: &[bool]) -> Result<()> {
    for (i, v) in secs.iter().enumerate() {
        let f = |k: &str| format!("vc[{i}].{k}");
        let (field, kind, rate, gcra) = match (&v.shape, v.pace_bps) {
            (None, None) => continue,
            (Some(_), Some(_)) => {
                return invalid(
                    f("pace_bps"),
                    "expected either shape or pace_bps, not both (pacing is a shaper with tau = 0)",
                )
            }
            (Some(sh), None) => {
                let (rate, gcra) = shape_params(&f("shape"), sh)?;
                (f("shape"), ShaperKind::Vc, rate, gcra)
            }
            (None, Some(p)) => {
                let rate = shape_rate(f("pace_bps"), p)?;
                (f("pace_bps"), ShaperKind::Pace, rate, Gcra::new(Gcra::increment_for_bps(rate), SimDuration::ZERO))
            }
        };
        let d = vcs[v.name.as_str()].dirs[0];
        if shaped_host[d.from.idx()] {
            return invalid(
                field,
                format!(
                    "expected no VC shaping on host `{}`: it already shapes all its traffic (host shape)",
                    v.path[0]
                ),
            );
        }
        shapers.add(Shaper::new(v.name.clone(), kind, rate, d.port, gcra), Some(d.vci));
    }
    Ok(())
}

/// `vc[i].police`: a policer of the forward direction at a switch input.
fn policers(shapers: &mut Shapers, secs: &[VcSec], vcs: &Vcs) -> Result<()> {
    for (i, v) in secs.iter().enumerate() {
        let Some(p) = &v.police else { continue };
        let field = format!("vc[{i}].police");
        let (rate, gcra) = shape_params(&field, &police_shape(p))?;
        let input = switch_input(&field, p.at.as_deref(), v, &vcs[v.name.as_str()])?;
        let pol = Policer { name: v.name.clone(), rate_bps: rate, action: p.action, gcra, stats: Default::default() };
        shapers.add_policer(pol, input.link, input.vci);
    }
    Ok(())
}

/// `vc[i].reshape`: a re-shaper of the forward direction at a switch input, holding at most
/// its `buffer_cells` (default: the switch's).
fn reshapers(shapers: &mut Shapers, doc: &ScenarioDoc, vcs: &Vcs) -> Result<()> {
    for (i, v) in doc.vcs.iter().enumerate() {
        let Some(r) = &v.reshape else { continue };
        let field = format!("vc[{i}].reshape");
        let (rate, gcra) = shape_params(&field, &reshape_shape(r))?;
        let input = switch_input(&field, Some(&r.at), v, &vcs[v.name.as_str()])?;
        let sw = &input.switch;
        let mut s = Shaper::new(format!("{}@{sw}", v.name), ShaperKind::Switch, rate, input.port, gcra);
        let sw_buffer = doc.switches.iter().find(|x| &x.name == sw).and_then(|x| x.buffer_cells);
        if let Some(b) = r.buffer_cells.or(sw_buffer) {
            s.limit =
                int_in(format!("{field}.buffer_cells"), b, 1, u32::MAX as i64 - 1, "a buffer size in cells")? as u32;
        }
        shapers.add_reshaper(s, input.link, input.vci);
    }
    Ok(())
}

/// The switch input of VC `v` (`vc`) that `field` acts at: the switch named `at`, or the
/// first switch on the path.
fn switch_input<'v>(field: &str, at: Option<&str>, v: &VcSec, vc: &'v VcInfo) -> Result<&'v SwitchInput> {
    let inputs = &vc.inputs;
    let Some(first) = inputs.first() else {
        return invalid(field.to_string(), "expected a switch on the path");
    };
    match at {
        None => Ok(first),
        Some(name) => match inputs.iter().find(|x| x.switch == name) {
            Some(x) => Ok(x),
            None => {
                let on: Vec<&str> = inputs.iter().map(|x| x.switch.as_str()).collect();
                invalid(
                    format!("{field}.at"),
                    format!("expected a switch on the path of VC `{}` ({}), got `{name}`", v.name, on.join(", ")),
                )
            }
        },
    }
}

/// A policer's rate and τ, as a `shape` table.
fn police_shape(p: &PoliceSec) -> ShapeSec {
    ShapeSec {
        rate_bps: p.rate_bps,
        rate_cells_per_s: p.rate_cells_per_s,
        mean_bps: p.mean_bps,
        beta: p.beta,
        tau_us: p.tau_us,
    }
}

/// A re-shaper's rate and τ, as a `shape` table.
fn reshape_shape(r: &ReshapeSec) -> ShapeSec {
    ShapeSec {
        rate_bps: r.rate_bps,
        rate_cells_per_s: r.rate_cells_per_s,
        mean_bps: r.mean_bps,
        beta: r.beta,
        tau_us: r.tau_us,
    }
}

/// The rate and GCRA of a `shape = { ... }` table at `field`.
fn shape_params(field: &str, sh: &ShapeSec) -> Result<(f64, Gcra)> {
    let f = |k: &str| format!("{field}.{k}");
    let rate_bps = match (sh.rate_bps, sh.rate_cells_per_s) {
        (Some(_), Some(_)) => {
            return invalid(f("rate_cells_per_s"), "expected either rate_bps or rate_cells_per_s, not both")
        }
        (None, Some(c)) => {
            let c = positive_f64(f("rate_cells_per_s"), c, "rate in cells per second")?;
            Some(shape_rate(f("rate_cells_per_s"), c * 424.0)?)
        }
        (r, None) => r,
    };
    let rate = match (rate_bps, sh.mean_bps, sh.beta) {
        (Some(_), Some(_), _) => return invalid(f("mean_bps"), "expected either a rate or mean_bps, not both"),
        (Some(_), None, Some(_)) => return invalid(f("beta"), "only meaningful with mean_bps; remove it"),
        (None, None, _) => {
            return invalid(f("rate_bps"), "expected a rate: give rate_bps, rate_cells_per_s, or mean_bps and beta")
        }
        (Some(r), None, None) => shape_rate(f("rate_bps"), r)?,
        (None, Some(m), beta) => {
            let m = positive_f64(f("mean_bps"), m, "rate in bits per second")?;
            let b = beta.unwrap_or(1.0);
            if !(b.is_finite() && (1.0..=1e3).contains(&b)) {
                return invalid(f("beta"), format!("expected a factor between 1 and 1000, got {b}"));
            }
            shape_rate(f("mean_bps"), m * b)?
        }
    };
    let tau = span(f("tau_us"), sh.tau_us, 1e-6, "µs", limits::MAX_TAU_S)?;
    Ok((rate, Gcra::new(Gcra::increment_for_bps(rate), tau)))
}

/// A shaping rate [bit/s of cells]: 424 b/s (one cell per second) to 1 Tb/s.
fn shape_rate(field: String, r: f64) -> Result<f64> {
    limits::rate(field, r, MIN_CELL_RATE_BPS, MAX_RATE_BPS)?;
    Ok(r)
}
