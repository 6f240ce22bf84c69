//! Traffic shaping and policing ([`crate::atm::shaping`]): the `shape` of a `[[host]]`, and
//! the `shape`, `pace_bps`, `police` and `reshape` of a `[[vc]]`.
//!
//! Owns the [`Shapers`] of the network and the checks of every `shape`-like table
//! ([`shape_params`]: one rate, given as bit/s, cells/s or mean × beta, and a limit τ).
//! Built in this order: host-level (VP) shapers, then per-VC shapers and pacers (a VC cannot
//! be shaped on a host that shapes all its traffic), then policers (UPC) at switch inputs,
//! then re-shapers at switch inputs. Once the connections and cell sources exist, the
//! host-adapter shapers without `buffer_cells` get their default bound, the send buffers of
//! the TCP senders behind them ([`socket_buffer_bounds`]).

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
    vc_shapers(&mut shapers, &doc.vcs, vcs, hosts, &shaped_host)?;
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
        let Some(port) = hosts[i].port() else {
            return invalid(f, format!("expected host `{}` to have a link to shape", h.name));
        };
        shaped_host[i] = true;
        let mut s = Shaper::new(h.name.clone(), ShaperKind::Host, rate, port, gcra);
        s.limit = shaper_buffer(&f, sh, &hosts[i])?;
        shapers.add(s, None);
    }
    Ok(shaped_host)
}

/// `vc[i].shape` or `vc[i].pace_bps` (a shaper with τ = 0): the forward direction, at the
/// adapter of the VC's first host.
fn vc_shapers(shapers: &mut Shapers, secs: &[VcSec], vcs: &Vcs, hosts: &[Host], shaped_host: &[bool]) -> Result<()> {
    for (i, v) in secs.iter().enumerate() {
        let f = |k: &str| format!("vc[{i}].{k}");
        let d = vcs[v.name.as_str()].dirs[0];
        let (field, kind, rate, gcra, limit) = match (&v.shape, v.pace_bps) {
            (None, None) => continue,
            (Some(_), Some(_)) => {
                return invalid(
                    f("pace_bps"),
                    "expected either shape or pace_bps, not both (pacing is a shaper with tau = 0)",
                )
            }
            (Some(sh), None) => {
                let (rate, gcra) = shape_params(&f("shape"), sh)?;
                let limit = shaper_buffer(&f("shape"), sh, &hosts[d.from.idx()])?;
                (f("shape"), ShaperKind::Vc, rate, gcra, limit)
            }
            (None, Some(p)) => {
                let rate = shape_rate(f("pace_bps"), p)?;
                let gcra = Gcra::new(Gcra::increment_for_bps(rate), SimDuration::ZERO);
                (f("pace_bps"), ShaperKind::Pace, rate, gcra, DEFAULT_BOUND)
            }
        };
        if shaped_host[d.from.idx()] {
            return invalid(
                field,
                format!(
                    "expected no VC shaping on host `{}`: it already shapes all its traffic (host shape)",
                    v.path[0]
                ),
            );
        }
        let mut s = Shaper::new(v.name.clone(), kind, rate, d.port, gcra);
        s.limit = limit;
        shapers.add(s, Some(d.vci));
    }
    Ok(())
}

/// The VC bindings of the `[[tcp]]` connections ([`super::tcp::connections`]: two per
/// connection bound to a VC, client end first): (field `tcp[i].vc`, node, VCI).
pub(super) struct TcpVcs(Vec<(String, crate::ids::NodeId, u32)>);

impl TcpVcs {
    pub(super) fn of(pvcs: &[super::internet::PvcBinding]) -> Self {
        TcpVcs(pvcs.iter().map(|b| (b.field.clone(), b.node, b.vci)).collect())
    }
}

/// Marks a host shaper whose `buffer_cells` is left to [`socket_buffer_bounds`].
const DEFAULT_BOUND: u32 = 0;

/// `field.buffer_cells` of a host-adapter shaper on host `h`: at least one frame of the host's
/// MTU (a smaller shaper could never pass one), or [`DEFAULT_BOUND`] if not given.
fn shaper_buffer(field: &str, sh: &ShapeSec, h: &Host) -> Result<u32> {
    let Some(b) = sh.buffer_cells else { return Ok(DEFAULT_BOUND) };
    let frame = crate::atm::aal5::cells_for(h.mtu_bytes());
    let what = format!(
        "a shaper buffer in cells, at least one frame of host `{}`'s MTU ({} bytes = {frame} cells)",
        h.name(), h.mtu_bytes()
    );
    Ok(int_in(format!("{field}.buffer_cells"), b, frame as i64, u32::MAX as i64 - 1, &what)? as u32)
}

/// The default bound of each host-adapter shaper left without `buffer_cells`: the socket
/// buffers of the TCP endpoints that send through it, plus the adapter's `buffer_cells`
/// (unlimited if it has none) if anything else may send through it.
///
/// Why the send buffer: a TCP sender keeps every byte it has sent until it is acknowledged
/// (`snd_max − snd_una ≤ SO_SNDBUF`), and every byte waiting in the shaper is such a byte.
/// So the data of one endpoint in the shaper never exceeds its send buffer:
/// ⌈snd_buf / MSS⌉ full segments, each `cells_for(MSS + 40)` cells, plus one segment for a
/// retransmission queued while the original still waits (an RTO shorter than the shaping
/// delay). Pure ACKs and small segments are bounded in bytes, not in cells; a sender of many
/// small segments through a slow shaper may need an explicit `buffer_cells`.
/// `tcp_vcs` are the VC bindings of the `[[tcp]]` connections. A shaper may also carry
/// cell sources (checked per shaper), UDP flows and generated conversations (counted as
/// "anything else" whenever the document has any).
pub(super) fn socket_buffer_bounds(
    shapers: &mut Shapers,
    doc: &ScenarioDoc,
    conns: &[crate::apps::Conn],
    tcp_vcs: &TcpVcs,
    sources: &[crate::apps::cell_source::CellSource],
    ports: &[crate::atm::port::OutPort],
    hosts: &[Host],
) {
    let pending: Vec<u32> =
        (0..shapers.list.len() as u32).filter(|&i| shapers.list[i as usize].limit == DEFAULT_BOUND).collect();
    if pending.is_empty() {
        return;
    }
    let mut tcp_cells = vec![0u64; shapers.list.len()];
    let mut other = vec![doc.udp.len() + doc.traffic.len() > 0; shapers.list.len()];
    for (i, c) in conns.iter().enumerate() {
        let field = format!("tcp[{i}].vc");
        let mut sides = tcp_vcs.0.iter().filter(|b| b.0 == field);
        for ep in [c.endpoint(0), c.endpoint(1)] {
            let cfg = ep.tcp().config();
            let mss = cfg.mss_bytes.max(1) as u64;
            let cells = (cfg.snd_buf_bytes as u64).div_ceil(mss) + 1;
            let cells = cells * crate::atm::aal5::cells_for(cfg.mss_bytes + 40) as u64;
            let Some(port) = hosts[ep.host().idx()].port() else { continue };
            match sides.next() {
                // Bound to a VC: the shaper of that VC (or the host's).
                Some(&(_, node, vci)) if node == ep.host() => {
                    if let Some(s) = shapers.find(port, vci) {
                        tcp_cells[s as usize] += cells;
                    }
                }
                // Routed by IP, or its VC starts at a router: the host's shaper sees it; a VC
                // shaper on the host may, depending on the driver's choice of VC.
                _ => {
                    for (s, sh) in shapers.list.iter().enumerate() {
                        if sh.port == port {
                            match sh.kind {
                                ShaperKind::Host => tcp_cells[s] += cells,
                                _ => other[s] = true,
                            }
                        }
                    }
                }
            }
        }
    }
    for src in sources {
        if let Some(s) = shapers.find(src.port, src.vci) {
            other[s as usize] = true;
        }
    }
    for s in pending {
        let sh = &mut shapers.list[s as usize];
        let adapter = ports[sh.port.idx()].limit;
        let extra = if other[s as usize] || tcp_cells[s as usize] == 0 { adapter } else { 0 };
        sh.limit = if extra == u32::MAX {
            u32::MAX
        } else {
            (tcp_cells[s as usize] + extra as u64).min(u32::MAX as u64 - 1) as u32
        };
    }
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
        let sw = input.switch;
        let mut s = Shaper::new(format!("{}@{sw}", v.name), ShaperKind::Switch, rate, input.port, gcra);
        let sw_buffer = doc.switches.iter().find(|x| x.name == sw).and_then(|x| x.buffer_cells);
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
fn switch_input<'d>(field: &str, at: Option<&str>, v: &'d VcSec, vc: &VcInfo) -> Result<SwitchInput<'d>> {
    let Some(first) = vc.inputs(v).next() else {
        return invalid(field.to_string(), "expected a switch on the path");
    };
    match at {
        None => Ok(first),
        Some(name) => match vc.inputs(v).find(|x| x.switch == name) {
            Some(x) => Ok(x),
            None => {
                let on: Vec<&str> = vc.inputs(v).map(|x| x.switch).collect();
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
        buffer_cells: None,
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
        buffer_cells: None,
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
