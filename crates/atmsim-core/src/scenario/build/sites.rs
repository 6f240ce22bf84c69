//! The `[[site]]` section: a LAN of workstations and servers with one router, written as one
//! table and expanded here into the `[[host]]`, `[[router]]`, `[[lan]]` and `[[link]]`
//! entries it stands for (Mah 1996 §3.2: 200 workstations and 2 servers per site on a
//! 100 Mb/s LAN, one router per site attached to the ATM backbone).
//!
//! Owns: [`expand`] and the names it gives: `<site>-ws<i>` (i from 0), `<site>-srv<j>`,
//! `<site>-router`, `<site>-lan`, and the link `<site>-uplink` from the router to the switch
//! `attach`. The expanded entries follow the document's own, so their errors name them by
//! their place among all hosts; site-level mistakes name `site[i]`.

use super::interrupt::Interrupt;
use crate::error::Result;
use crate::scenario::internet::{LanSec, RouterSec};
use crate::scenario::limits::{int_in, invalid};
use crate::scenario::model::{HostSec, LinkSec, ScenarioDoc};

/// Largest number of hosts of one kind in a site.
const MAX_SITE_HOSTS: i64 = 100_000;

/// The document with its sites expanded; `None` if it has none.
pub(super) fn expand(doc: &ScenarioDoc, stop: &mut Interrupt) -> Result<Option<ScenarioDoc>> {
    if doc.sites.is_empty() {
        return Ok(None);
    }
    let mut d = doc.clone();
    for (i, s) in doc.sites.iter().enumerate() {
        let f = |k: &str| format!("site[{i}].{k}");
        crate::scenario::limits::name(&f("name"), &s.name)?;
        if doc.sites[..i].iter().any(|o| o.name == s.name) {
            return invalid(f("name"), format!("expected a unique site name, but `{}` is already used", s.name));
        }
        let ws = int_in(f("workstations"), s.workstations, 0, MAX_SITE_HOSTS, "a number of workstations")?;
        let srv = int_in(f("servers"), s.servers, 0, MAX_SITE_HOSTS, "a number of servers")?;
        if ws + srv == 0 {
            return invalid(f("servers"), "expected at least one host in the site");
        }
        let host = |name: String| HostSec {
            name,
            scheduler: Default::default(),
            buffer_cells: None,
            mtu_bytes: s.host_mtu_bytes,
            rx_cpu_per_segment_us: 0.0,
            rx_cpu_per_byte_ns: 0.0,
            tx_cpu_per_segment_us: 0.0,
            tx_cpu_per_byte_ns: 0.0,
            cpu_jitter_us: 0.0,
            shape: None,
            er_algorithm: None,
            ipoa: None,
        };
        let mut members = Vec::with_capacity((ws + srv + 1) as usize);
        for k in 0..ws {
            stop.check()?;
            members.push(workstation(&s.name, k as usize));
        }
        for k in 0..srv {
            stop.check()?;
            members.push(server(&s.name, k as usize));
        }
        d.hosts.extend(members.iter().cloned().map(host));
        let router = format!("{}-router", s.name);
        d.routers.push(RouterSec {
            name: router.clone(),
            scheduler: s.router_scheduler,
            buffer_cells: s.router_buffer_cells,
            mtu_bytes: 9180,
            ipoa: s.ipoa.clone(),
        });
        members.push(router.clone());
        d.lans.push(LanSec {
            name: format!("{}-lan", s.name),
            members,
            rate_bps: s.lan_rate_bps,
            delay_ms: s.lan_delay_ms,
            buffer_packets: None,
        });
        match &s.attach {
            Some(sw) => d.links.push(LinkSec {
                name: Some(format!("{}-uplink", s.name)),
                a: router,
                b: sw.clone(),
                preset: s.link_preset.clone(),
                rate_bps: s.link_rate_bps,
                delay_ms: s.link_delay_ms,
                clock_ppm: None,
            }),
            None if s.link_preset.is_some() || s.link_rate_bps.is_some() => {
                return invalid(f("attach"), "expected the switch the router's link goes to (link_* given)")
            }
            None => {}
        }
    }
    Ok(Some(d))
}

/// The name of workstation `k` of site `site`.
pub(super) fn workstation(site: &str, k: usize) -> String {
    format!("{site}-ws{k}")
}

/// The name of server `k` of site `site`.
pub(super) fn server(site: &str, k: usize) -> String {
    format!("{site}-srv{k}")
}
