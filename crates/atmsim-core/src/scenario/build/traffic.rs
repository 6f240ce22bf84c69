//! The `[[traffic]]` section: generators of TCP conversations between the sites' hosts.
//!
//! Owns the checks of a generator (its application, sites, arrival process, times and TCP
//! sizes) and the [`Generator`] values: clients are the workstations of its `from` sites
//! (all sites if empty); servers are the servers, or the workstations, of every site; its
//! arrivals and host choices come from stream `Purpose::Traffic`, index i.

use super::check_unique_name;
use super::nodes::Names;
use super::simulation::Run;
use super::sites::{server, workstation};
use crate::apps::conversation::Kind as ConvKind;
use crate::apps::generator::{Arrivals, GenApp, GenStats, Generator};
use crate::error::Result;
use crate::ids::NodeId;
use crate::rng::{self, Purpose};
use crate::scenario::internet::{ArrivalsName, TargetsName};
use crate::scenario::limits::{self, int_in, invalid, span};
use crate::scenario::model::{AppSec, ScenarioDoc};
use crate::tcp::TcpConfig;
use crate::time::{SimDuration, SimTime};

/// Check `[[traffic]]` and build its generators.
pub(super) fn generators(doc: &ScenarioDoc, names: &Names, run: &Run) -> Result<Vec<Generator>> {
    let mut out: Vec<Generator> = Vec::new();
    for (i, t) in doc.traffic.iter().enumerate() {
        let f = |k: &str| format!("traffic[{i}].{k}");
        check_unique_name(&f("name"), &t.name, out.iter().any(|g| g.name == t.name), "traffic generator")?;
        if doc.sites.is_empty() {
            return invalid(f("name"), "expected [[site]]s: a generator draws its hosts from the sites");
        }
        let (app, port) = match &t.app {
            AppSec::Telnet {} => (GenApp::Conv(ConvKind::Telnet, 1.0, false), 23),
            AppSec::Ftp { item_scale, connection_per_item } => {
                (GenApp::Conv(ConvKind::Ftp, scale(&f("app.item_scale"), *item_scale)?, *connection_per_item), 20)
            }
            AppSec::Smtp { item_scale } => {
                (GenApp::Conv(ConvKind::Smtp, scale(&f("app.item_scale"), *item_scale)?, false), 25)
            }
            AppSec::Nntp { item_scale } => {
                (GenApp::Conv(ConvKind::Nntp, scale(&f("app.item_scale"), *item_scale)?, false), 119)
            }
            AppSec::Bulk { .. } => {
                return invalid(f("app"), "expected a tcplib conversation kind: telnet, ftp, smtp or nntp")
            }
        };
        let mut clients = Vec::new();
        let from: Vec<&str> = if t.from.is_empty() {
            doc.sites.iter().map(|s| s.name.as_str()).collect()
        } else {
            t.from.iter().map(String::as_str).collect()
        };
        for (j, site) in from.iter().enumerate() {
            let Some(s) = doc.sites.iter().find(|s| s.name == *site) else {
                return invalid(
                    format!("traffic[{i}].from[{j}]"),
                    format!("expected the name of a [[site]], got `{site}`"),
                );
            };
            for k in 0..s.workstations as usize {
                clients.push(names.host(f("from"), &workstation(&s.name, k))?);
            }
        }
        let mut servers: Vec<NodeId> = Vec::new();
        for s in &doc.sites {
            let (n, name): (i64, fn(&str, usize) -> String) = match t.to {
                TargetsName::Servers => (s.servers, server),
                TargetsName::Workstations => (s.workstations, workstation),
            };
            for k in 0..n as usize {
                servers.push(names.host(f("to"), &name(&s.name, k))?);
            }
        }
        if clients.is_empty() {
            return invalid(f("from"), "expected sites with at least one workstation");
        }
        if servers.is_empty() {
            return invalid(f("to"), "expected at least one host to talk to in the sites");
        }
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
        let mss = int_in(f("mss_bytes"), t.mss_bytes, 32, 65495, "an MSS in bytes")?;
        let win = int_in(f("window_bytes"), t.window_bytes, 1, 65535 << 14, "a window in bytes")?;
        let tcp = TcpConfig {
            mss_bytes: mss as u32,
            snd_buf_bytes: win as u32,
            rcv_buf_bytes: win as u32,
            ..TcpConfig::default()
        };
        out.push(Generator {
            name: t.name.clone(),
            app,
            clients,
            servers,
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
            rng: rng::stream(run.seed, Purpose::Traffic, i as u64),
            stats: GenStats::default(),
        });
    }
    Ok(out)
}

fn scale(field: &str, v: f64) -> Result<f64> {
    if v.is_finite() && v > 0.0 && v <= 1e6 {
        Ok(v)
    } else {
        invalid(field, format!("expected a positive size factor (at most 1e6), got {v}"))
    }
}
