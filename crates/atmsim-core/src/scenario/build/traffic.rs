//! The `[[traffic]]` section: generators of conversations between the sites' hosts.
//!
//! Owns the checks of a generator (its application, sites, host choice, arrival process,
//! times and TCP sizes) and the [`Generator`] values. Clients are the workstations (or
//! servers, with `initiators`) of its `from` sites (all sites if empty); with `per_site`
//! each site gets a generator of its own (`<name>@<site>`, its arrivals at the given mean
//! rate: Mah Table 3-2 gives rates per site). The other ends are the servers (optionally only
//! number `server_index` of each site) or the workstations of every site (of the other sites
//! with `remote_only`), in `rank_sites` order for Zipf's law. Arrivals and host choices come
//! from stream `Purpose::Traffic`, index i (or `(i + 1) << 20 | site` per site). Each
//! generator keeps at most `max_open` conversations open: its pool is bounded, so the
//! shortest mean gap (1 µs) costs events, never unbounded memory.

use super::nodes::check_unique_name;
use super::nodes::Names;
use super::simulation::Run;
use super::sites::{server, workstation};
use crate::apps::conversation::Kind as ConvKind;
use crate::apps::generator::{Arrivals, Choice, GenApp, GenStats, Generator};
use crate::apps::vic::VicConfig;
use crate::apps::voice::VoiceConfig;
use crate::dist::Zipf;
use crate::error::Result;
use crate::ids::NodeId;
use crate::rng::{self, Purpose};
use crate::scenario::internet::{ArrivalsName, ChoiceName, SiteSec, TargetsName, TrafficSec, MAX_OPEN};
use crate::scenario::limits::{self, int_in, invalid, span};
use crate::scenario::model::{AppSec, ScenarioDoc};
use crate::time::{SimDuration, SimTime};
use crate::transport::tcp::TcpConfig;

/// Check `[[traffic]]` and build its generators.
pub(super) fn generators(doc: &ScenarioDoc, names: &Names, run: &Run) -> Result<Vec<Generator>> {
    let mut out: Vec<Generator> = Vec::new();
    for (i, t) in doc.traffic.iter().enumerate() {
        let f = |k: &str| format!("traffic[{i}].{k}");
        check_unique_name(&f("name"), &t.name, out.iter().any(|g| g.group == t.name), "traffic generator")?;
        if doc.sites.is_empty() {
            return invalid(f("name"), "expected [[site]]s: a generator draws its hosts from the sites");
        }
        let (app, port) = app(i, &t.app)?;
        let from = from_sites(i, doc, t)?;
        if t.remote_only && !t.per_site {
            return invalid(f("remote_only"), "expected per_site = true: \"remote\" is relative to a generator's site");
        }
        let ranked = ranked_sites(i, doc, t)?;
        let mean_gap = span(f("mean_interarrival_s"), t.mean_interarrival_s, 1.0, "s", limits::MAX_DURATION_S)?;
        if mean_gap < SimDuration::from_micros(1) {
            return invalid(
                f("mean_interarrival_s"),
                format!("expected at least 1e-6 s, got {}", t.mean_interarrival_s),
            );
        }
        let start = span(f("start_s"), t.start_s, 1.0, "s", limits::MAX_DURATION_S)?;
        let stop = match t.stop_s {
            Some(s) => span(f("stop_s"), s, 1.0, "s", limits::MAX_DURATION_S)?,
            None => run.until.since(SimTime::ZERO) + SimDuration::from_ps(1),
        };
        if start >= stop || start.as_secs_f64() >= run.duration_s {
            return invalid(f("start_s"), "expected a start before stop_s and before the end of the run");
        }
        let max_open = int_in(f("max_open"), t.max_open, 1, MAX_OPEN, "a number of open conversations")?;
        let tcp = tcp_config(i, t)?;
        let groups: Vec<(String, Vec<&SiteSec>, u64)> = if t.per_site {
            from.iter()
                .enumerate()
                .map(|(k, s)| (format!("{}@{}", t.name, s.name), vec![*s], ((i as u64 + 1) << 20) | k as u64))
                .collect()
        } else {
            vec![(t.name.clone(), from.clone(), i as u64)]
        };
        for (name, sites, index) in groups {
            let clients = hosts_of(names, &f("from"), &sites, t.initiators, None)?;
            let targets: Vec<&SiteSec> =
                ranked.iter().copied().filter(|s| !(t.remote_only && s.name == sites[0].name)).collect();
            let servers = hosts_of(names, &f("to"), &targets, t.to, t.server_index)?;
            if clients.is_empty() {
                return invalid(f("from"), "expected sites with at least one host to start conversations");
            }
            if servers.is_empty() {
                return invalid(f("to"), "expected at least one host to talk to in the sites");
            }
            let choice = match t.choice {
                ChoiceName::Uniform => Choice::Uniform,
                ChoiceName::Zipf => Choice::Zipf(Zipf::new(servers.len())),
                ChoiceName::RoundRobin => Choice::RoundRobin(0),
            };
            let unplaced = if app == GenApp::Browser { clients.clone() } else { Vec::new() };
            out.push(Generator {
                name,
                group: t.name.clone(),
                app: app.clone(),
                clients,
                servers,
                choice,
                unplaced,
                arrivals: match t.arrivals {
                    ArrivalsName::Poisson => Arrivals::Poisson,
                    ArrivalsName::Uniform => Arrivals::Uniform,
                },
                mean_gap,
                start: SimTime::ZERO + start,
                stop: SimTime::ZERO + stop,
                tcp,
                next_client_port: 1024,
                server_port: port,
                rng: rng::stream(run.seed, Purpose::Traffic, index),
                stats: GenStats::default(),
                max_open: max_open as u64,
            });
        }
    }
    Ok(out)
}

/// The application of `traffic[i]` and its server's well-known port (RFC 1700).
fn app(i: usize, a: &AppSec) -> Result<(GenApp, u16)> {
    let f = |k: &str| format!("traffic[{i}].app.{k}");
    let conv = |kind, scale, per_item, handshake| GenApp::Conv { kind, scale, per_item, handshake, keystrokes: false };
    Ok(match a {
        AppSec::Telnet { keystrokes } => (
            GenApp::Conv {
                kind: ConvKind::Telnet,
                scale: 1.0,
                per_item: false,
                handshake: true,
                keystrokes: *keystrokes,
            },
            23,
        ),
        AppSec::Ftp { item_scale, data_connections: true, connection_per_item } => {
            if *connection_per_item {
                return invalid(f("connection_per_item"), "expected false with data_connections = true");
            }
            (GenApp::FtpSession { scale: scale(&f("item_scale"), *item_scale)? }, 21)
        }
        AppSec::Ftp { item_scale, connection_per_item, .. } => {
            (conv(ConvKind::Ftp, scale(&f("item_scale"), *item_scale)?, *connection_per_item, true), 20)
        }
        AppSec::Smtp { item_scale, handshake } => {
            (conv(ConvKind::Smtp, scale(&f("item_scale"), *item_scale)?, false, *handshake), 25)
        }
        AppSec::Nntp { item_scale } => (conv(ConvKind::Nntp, scale(&f("item_scale"), *item_scale)?, false, true), 119),
        AppSec::Http {} => (GenApp::Browser, 80),
        AppSec::Audio { payload_bytes, interval_ms, mean_duration_s } => {
            let p = int_in(f("payload_bytes"), *payload_bytes, 1, 65507, "a UDP payload in bytes")?;
            let gap = span(f("interval_ms"), *interval_ms, 1e-3, "ms", 3600.0)?;
            if gap < SimDuration::from_micros(1) {
                return invalid(f("interval_ms"), format!("expected at least 0.001 ms, got {interval_ms}"));
            }
            let cfg = VoiceConfig { payload_bytes: p as u32, interval: gap };
            (GenApp::Audio(cfg, duration(&f("mean_duration_s"), *mean_duration_s)?), 5004)
        }
        AppSec::Video { bit_rate_bps, frame_rate, mean_duration_s } => {
            for (k, v, hi) in [("bit_rate_bps", *bit_rate_bps, 1e12), ("frame_rate", *frame_rate, 1e4)] {
                if !(v.is_finite() && v > 0.0 && v <= hi) {
                    return invalid(f(k), format!("expected a positive number (at most {hi:e}), got {v}"));
                }
            }
            let cfg = VicConfig { bit_rate_bps: *bit_rate_bps, frame_rate: *frame_rate };
            (GenApp::Video(cfg, duration(&f("mean_duration_s"), *mean_duration_s)?), 5004)
        }
        AppSec::Bulk { .. } => {
            let kinds: Vec<&str> = AppSec::KINDS.into_iter().filter(|k| *k != "bulk").collect();
            return invalid(
                format!("traffic[{i}].app"),
                format!("expected one of {} (bulk runs only in [[tcp]])", kinds.join(", ")),
            );
        }
    })
}

/// The sites of `traffic[i].from` (every site if empty).
fn from_sites<'a>(i: usize, doc: &'a ScenarioDoc, t: &TrafficSec) -> Result<Vec<&'a SiteSec>> {
    if t.from.is_empty() {
        return Ok(doc.sites.iter().collect());
    }
    t.from.iter().enumerate().map(|(j, name)| site(doc, name, format!("traffic[{i}].from[{j}]"))).collect()
}

/// Every site, those of `rank_sites` first in that order (each at most once).
fn ranked_sites<'a>(i: usize, doc: &'a ScenarioDoc, t: &TrafficSec) -> Result<Vec<&'a SiteSec>> {
    let mut out: Vec<&SiteSec> = Vec::new();
    for (j, name) in t.rank_sites.iter().enumerate() {
        let s = site(doc, name, format!("traffic[{i}].rank_sites[{j}]"))?;
        if out.iter().any(|o| o.name == s.name) {
            return invalid(
                format!("traffic[{i}].rank_sites[{j}]"),
                format!("expected each site once, got `{name}` again"),
            );
        }
        out.push(s);
    }
    out.extend(doc.sites.iter().filter(|s| !t.rank_sites.contains(&s.name)));
    Ok(out)
}

fn site<'a>(doc: &'a ScenarioDoc, name: &str, field: String) -> Result<&'a SiteSec> {
    match doc.sites.iter().find(|s| s.name == name) {
        Some(s) => Ok(s),
        None => invalid(field, format!("expected the name of a [[site]], got `{name}`")),
    }
}

/// The workstations or servers (only number `index`, if given) of `sites`, in order.
fn hosts_of(
    names: &Names,
    field: &str,
    sites: &[&SiteSec],
    who: TargetsName,
    index: Option<i64>,
) -> Result<Vec<NodeId>> {
    let mut out = Vec::new();
    for s in sites {
        let (n, name): (i64, fn(&str, usize) -> String) = match who {
            TargetsName::Servers => (s.servers, server),
            TargetsName::Workstations => (s.workstations, workstation),
        };
        for k in 0..n as usize {
            if who == TargetsName::Workstations || index.is_none_or(|j| j == k as i64) {
                out.push(names.host(field.to_string(), &name(&s.name, k))?);
            }
        }
    }
    Ok(out)
}

fn tcp_config(i: usize, t: &TrafficSec) -> Result<TcpConfig> {
    let f = |k: &str| format!("traffic[{i}].{k}");
    if let Some(j) = t.server_index {
        if t.to != TargetsName::Servers || j < 0 {
            return invalid(
                f("server_index"),
                format!("expected a server number (0, 1, …) with to = \"servers\", got {j}"),
            );
        }
    }
    let mss = int_in(f("mss_bytes"), t.mss_bytes, 32, 65495, "an MSS in bytes")?;
    let win = int_in(f("window_bytes"), t.window_bytes, 1, 65535 << 14, "a window in bytes")?;
    let cfg = TcpConfig {
        mss_bytes: mss as u32,
        snd_buf_bytes: win as u32,
        rcv_buf_bytes: win as u32,
        variant: t.variant,
        sack: t.sack,
        timestamps: t.timestamps,
        hystart: t.hystart,
        ..TcpConfig::default()
    };
    match cfg.conflict() {
        Some((field, expected)) => invalid(f(field), expected),
        None => Ok(cfg),
    }
}

fn scale(field: &str, v: f64) -> Result<f64> {
    if v.is_finite() && v > 0.0 && v <= 1e6 {
        Ok(v)
    } else {
        invalid(field, format!("expected a positive size factor (at most 1e6), got {v}"))
    }
}

fn duration(field: &str, v: f64) -> Result<f64> {
    if v.is_finite() && v > 0.0 && v <= limits::MAX_DURATION_S {
        Ok(v)
    } else {
        invalid(field, format!("expected a positive duration in s (at most {}), got {v}", limits::MAX_DURATION_S))
    }
}
