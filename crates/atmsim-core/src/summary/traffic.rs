//! The `traffic` and `applications` sections: one entry per traffic generator (a
//! `[[traffic]]` entry at one site), and the application metrics of Mah's Table 3-3 per
//! `[[traffic]]` entry, pooled over its generators.
//!
//! Owns: [`Generator`], [`Application`], [`SampleStats`], [`Media`], [`generators`] and
//! [`applications`].

use super::stats::EchoStats;
use crate::net::Network;
use serde::Serialize;
use std::collections::BTreeMap;

/// One traffic generator: its conversations and the times completed ones took.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Generator {
    pub name: String,
    /// The `[[traffic]]` entry it belongs to.
    pub group: String,
    pub started: u64,
    pub completed: u64,
    pub aborted: u64,
    pub skipped: u64,
    pub open_at_end: u64,
    pub max_open: u64,
    pub duration_mean_s: Option<f64>,
    pub duration_median_s: Option<f64>,
    pub duration_p90_s: Option<f64>,
}

/// One `[[traffic]]` entry, over all its generators (sites).
#[derive(Clone, Debug, Default, Serialize)]
pub struct Application {
    pub app: &'static str,
    pub generators: usize,
    pub started: u64,
    pub completed: u64,
    pub aborted: u64,
    /// Per metric (telnet `connect_s`, `response_s`; FTP `file_s`, `session_s`; HTTP
    /// `item_s`, `page_s`): the samples completed in the run (spec A-22).
    pub metrics: BTreeMap<String, SampleStats>,
    /// Audio and video only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub media: Option<Media>,
}

/// How many samples, and their mean, median and 90th percentile (`null` without samples).
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct SampleStats {
    pub n: usize,
    pub mean: Option<f64>,
    pub median: Option<f64>,
    pub p90: Option<f64>,
}

/// Audio or video datagrams: sent, delivered, lost and late (> 150 ms), with the loss rate
/// over the datagrams whose fate is known (those in flight at the end excluded) and the
/// overdue rate over the delivered ones (spec §3.1).
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct Media {
    pub sent: u64,
    pub delivered: u64,
    pub lost: u64,
    pub in_flight_at_end: u64,
    pub late: u64,
    pub loss_rate: Option<f64>,
    pub overdue_rate: Option<f64>,
}

/// One entry per traffic generator.
pub fn generators(net: &Network) -> Vec<Generator> {
    net.apps()
        .generators()
        .iter()
        .map(|g| {
            let s = &g.stats;
            let mut d = s.durations_s.clone();
            let st = EchoStats::of(&mut d);
            Generator {
                name: g.name.clone(),
                group: g.group.clone(),
                started: s.started,
                completed: s.completed,
                aborted: s.aborted,
                skipped: s.skipped,
                open_at_end: s.open,
                max_open: s.max_open,
                duration_mean_s: st.map(|x| x.mean),
                duration_median_s: st.map(|x| x.median),
                duration_p90_s: st.map(|x| x.p90),
            }
        })
        .collect()
}

/// Per `[[traffic]]` entry (its generators' `group`).
pub fn applications(net: &Network) -> BTreeMap<String, Application> {
    let mut out = BTreeMap::new();
    let mut in_flight: Vec<u64> = vec![0; net.apps().udp.len()];
    for d in net.ip().datagrams.in_flight() {
        if let crate::transport::Payload::Udp { flow } = d.payload {
            in_flight[flow as usize] += 1;
        }
    }
    for (gi, g) in net.apps().generators().iter().enumerate() {
        if out.contains_key(&g.group) {
            continue;
        }
        let members: Vec<usize> = (gi..net.apps().generators().len()).filter(|&k| net.apps().generators()[k].group == g.group).collect();
        let sum =
            |f: fn(&crate::apps::generator::GenStats) -> u64| members.iter().map(|k| f(&net.apps().generators()[*k].stats)).sum();
        let entry = Application {
            app: g.app.name(),
            generators: members.len(),
            started: sum(|s| s.started),
            completed: sum(|s| s.completed),
            aborted: sum(|s| s.aborted),
            metrics: pooled_metrics(net, &members),
            media: g.app.is_media().then(|| media(net, &members, &in_flight)),
        };
        out.insert(g.group.clone(), entry);
    }
    out
}

/// Each metric's samples pooled over the generators `members`.
fn pooled_metrics(net: &Network, members: &[usize]) -> BTreeMap<String, SampleStats> {
    let mut metrics = BTreeMap::new();
    for m in members {
        for (name, _) in net.apps().generators()[*m].stats.metrics.iter() {
            if metrics.contains_key(*name) {
                continue;
            }
            let mut v: Vec<f64> =
                members.iter().flat_map(|k| net.apps().generators()[*k].stats.metrics.samples(name)).copied().collect();
            let n = v.len();
            let st = EchoStats::of(&mut v);
            let stats =
                SampleStats { n, mean: st.map(|x| x.mean), median: st.map(|x| x.median), p90: st.map(|x| x.p90) };
            metrics.insert(name.to_string(), stats);
        }
    }
    metrics
}

/// The UDP flows of the generators `members`, summed; `in_flight` per flow.
fn media(net: &Network, members: &[usize], in_flight: &[u64]) -> Media {
    let (mut sent, mut delivered, mut late, mut pending) = (0u64, 0u64, 0u64, 0u64);
    for (f, flow) in net.apps().udp.iter().enumerate() {
        if flow.gen.is_some_and(|x| members.contains(&(x as usize))) {
            sent += flow.stats.sent;
            delivered += flow.stats.delivered;
            late += flow.stats.late;
            pending += in_flight[f];
        }
    }
    let known = sent - pending;
    let lost = known - delivered;
    Media {
        sent,
        delivered,
        lost,
        in_flight_at_end: pending,
        late,
        loss_rate: (known > 0).then(|| lost as f64 / known as f64),
        overdue_rate: (delivered > 0).then(|| late as f64 / delivered as f64),
    }
}
