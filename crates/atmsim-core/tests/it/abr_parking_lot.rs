//! ABR rates settle at the max-min fair shares on parking lots of two and three switches, with
//! either explicit-rate allocator: a port that carries VCs held back elsewhere — further down
//! the path, upstream, or by their own PCR — neither holds the others back nor lets them swing,
//! and the bottleneck link runs at its target (100 % for max-min, U = 0.95 for ERICA).
//!
//! The parking lot: switches s0 → s1 → … → s(n−1) → d on OC-3c links. Each VC enters at some
//! switch from a host of its own and runs to d, or leaves early at a later switch to a host of
//! its own; a greedy cell source on each VC sends at its ACR. The reference rates are computed
//! here by water-filling over the links (progressive filling: raise every unfrozen VC together,
//! freeze the VCs of a link as it fills, or a VC at its PCR), independently of the allocators,
//! at the capacity the algorithm aims for: C for max-min, U·C for ERICA.

use super::common::*;
use atmsim_core::api::{RunOptions, RunOutput};
use serde_json::Value;

/// Cell rate of an OC-3c link \[bit/s of 53-byte cells\].
const OC3C_BPS: f64 = 149.76e6;
/// ERICA's default target utilisation.
const U: f64 = 0.95;

/// One ABR VC of a parking lot: it enters at switch `entry` from a host of its own and leaves
/// at switch `exit` to a host of its own, or at the far end `d` when `exit` is the number of
/// switches; `pcr_bps` limits it at the source (`None`: the link rate).
#[derive(Clone, Copy, Debug)]
struct Flow {
    entry: usize,
    exit: usize,
    pcr_bps: Option<f64>,
}

/// VC `entry` → far end, no PCR limit.
fn long(entry: usize, n: usize) -> Flow {
    Flow { entry, exit: n, pcr_bps: None }
}

/// A parking lot of `n` switches s0 → … → s(n−1) → d carrying `flows`, with one-way delay
/// `delay_ms` on every OC-3c link and the `abr` preset `preset` on every VC.
#[derive(Clone, Debug)]
struct Lot {
    n: usize,
    flows: Vec<Flow>,
    preset: &'static str,
    delay_ms: f64,
}

/// What an allocator aims for — its name, the capacity it shares and the utilisation it aims
/// at — and how close a test wants ACRs (relative) and utilisation (absolute) to come.
struct Aim {
    alg: &'static str,
    capacity_bps: f64,
    utilisation: f64,
    acr_tol: f64,
    util_tol: f64,
}

const ERICA: Aim = Aim { alg: "erica", capacity_bps: U * OC3C_BPS, utilisation: U, acr_tol: 0.03, util_tol: 0.01 };
const MAXMIN: Aim = Aim { alg: "maxmin", capacity_bps: OC3C_BPS, utilisation: 1.0, acr_tol: 1e-6, util_tol: 0.01 };

/// The scenario of `lot` with switches running `alg`, greedy cell sources, ACR traced, rates
/// measured from `settle_s` to `duration_s`.
fn parking_lot(alg: &str, lot: &Lot, duration_s: f64, settle_s: f64) -> String {
    let Lot { n, ref flows, preset, delay_ms } = *lot;
    let mut t = format!(
        "name = \"parking-lot-{n}\"\n[simulation]\nduration_s = {duration_s}\nwarmup_s = {settle_s}\nseed = 1\n\
         sample_interval_ms = 10\n[[host]]\nname = \"d\"\n"
    );
    let link =
        |a: &str, b: &str| format!("[[link]]\na = \"{a}\"\nb = \"{b}\"\npreset = \"oc3c\"\ndelay_ms = {delay_ms}\n");
    for i in 0..n {
        t += &format!("[[switch]]\nname = \"s{i}\"\ner_algorithm = \"{alg}\"\n");
        let next = if i + 1 < n { format!("s{}", i + 1) } else { "d".to_string() };
        t += &link(&format!("s{i}"), &next);
    }
    for (v, f) in flows.iter().enumerate() {
        assert!(f.entry < f.exit && f.exit <= n, "{f:?}");
        t += &format!("[[host]]\nname = \"h{v}\"\n");
        t += &link(&format!("h{v}"), &format!("s{}", f.entry));
        let sink = if f.exit == n {
            "d".to_string()
        } else {
            t += &format!("[[host]]\nname = \"o{v}\"\n");
            t += &link(&format!("s{}", f.exit), &format!("o{v}"));
            format!("o{v}")
        };
        let path: Vec<String> = std::iter::once(format!("h{v}"))
            .chain((f.entry..f.exit.min(n - 1) + 1).map(|k| format!("s{k}")))
            .chain([sink])
            .map(|s| format!("\"{s}\""))
            .collect();
        let pcr = f.pcr_bps.map(|p| format!(", pcr_bps = {p}")).unwrap_or_default();
        t += &format!(
            "[[vc]]\nname = \"v{v}\"\npath = [{}]\nabr = {{ preset = \"{preset}\"{pcr} }}\n\
             [[cell_source]]\nname = \"g{v}\"\nvc = \"v{v}\"\nfrom = \"h{v}\"\nkind = \"greedy\"\n",
            path.join(", ")
        );
    }
    t
}

/// Max-min fair rates by progressive filling: `links[l]` is (capacity, VCs on it), `demand[v]`
/// a VC's own limit (its PCR).
fn water_fill(links: &[(f64, Vec<usize>)], demand: &[f64]) -> Vec<f64> {
    let mut rate = vec![0.0; demand.len()];
    let mut frozen = vec![false; demand.len()];
    while frozen.iter().any(|f| !f) {
        // The level at which the next link fills or the next VC reaches its demand.
        let fill = |(cap, vcs): &(f64, Vec<usize>)| {
            let open = vcs.iter().filter(|&&v| !frozen[v]).count();
            let used: f64 = vcs.iter().filter(|&&v| frozen[v]).map(|&v| rate[v]).sum();
            if open == 0 {
                f64::INFINITY
            } else {
                (cap - used) / open as f64
            }
        };
        let level = links
            .iter()
            .map(fill)
            .chain((0..demand.len()).filter(|&v| !frozen[v]).map(|v| demand[v]))
            .fold(f64::INFINITY, f64::min);
        let full: Vec<bool> = links.iter().map(|l| fill(l) <= level * (1.0 + 1e-12)).collect();
        for v in 0..demand.len() {
            if frozen[v] {
                continue;
            }
            rate[v] = level;
            let on_full = links.iter().zip(&full).any(|((_, vcs), &f)| f && vcs.contains(&v));
            frozen[v] = on_full || demand[v] <= level * (1.0 + 1e-12);
        }
    }
    rate
}

/// The max-min rates of a parking lot of `n` switches when every link offers `capacity`.
/// Link k leaves s_k (to s_(k+1), or to d for the last); a VC crosses links entry .. exit.
/// Access links and the links to early exits carry one VC each and limit no more than PCR.
fn lot_shares(capacity: f64, n: usize, flows: &[Flow]) -> Vec<f64> {
    let links: Vec<(f64, Vec<usize>)> = (0..n)
        .map(|k| (capacity, (0..flows.len()).filter(|&v| flows[v].entry <= k && k < flows[v].exit).collect()))
        .collect();
    let demand: Vec<f64> = flows.iter().map(|f| f.pcr_bps.unwrap_or(OC3C_BPS)).collect();
    water_fill(&links, &demand)
}

/// ACR of `entity` after `settle_s` from its step trace: (least, greatest) of the value in
/// force at `settle_s` and every later one \[b/s\].
fn acr_range(out: &RunOutput, entity: &str, settle_s: f64) -> (f64, f64) {
    let s = &out.series;
    let rows = (0..s.len()).filter(|&i| s.entity_name(i) == entity && s.metric_name(i) == "acr_bps");
    let mut at_settle = None;
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for i in rows {
        if s.time_s[i] <= settle_s {
            at_settle = Some(s.value[i]);
        } else {
            lo = lo.min(s.value[i]);
            hi = hi.max(s.value[i]);
        }
    }
    let v = at_settle.unwrap_or_else(|| panic!("no ACR trace of {entity}"));
    (lo.min(v), hi.max(v))
}

fn port_util(s: &Value, name: &str) -> f64 {
    let p = s["ports"].as_array().unwrap().iter().find(|p| p["name"] == name).unwrap_or_else(|| panic!("no {name}"));
    p["utilization"].as_f64().unwrap()
}

/// Run `lot` under `aim.alg` for 0.6 s and assert that after 0.3 s every VC's ACR stays within
/// `aim.acr_tol` of its max-min share at `aim.capacity_bps`, and the bottleneck link — the
/// last, which every lot here fills — runs within `aim.util_tol` of `aim.utilisation` over
/// [0.3, 0.6] s.
fn assert_converges(aim: &Aim, lot: &Lot) {
    let (duration_s, settle_s) = (0.6, 0.3);
    let (alg, n) = (aim.alg, lot.n);
    let out = run_text(&parking_lot(alg, lot, duration_s, settle_s), RunOptions::default());
    assert_conserved(&out.summary);
    let want = lot_shares(aim.capacity_bps, n, &lot.flows);
    let util = port_util(&out.summary, &format!("s{}->d", n - 1));
    println!("{alg}, {n} switches, {} {} ms: last link utilisation {util:.4}", lot.preset, lot.delay_ms);
    let mut off = Vec::new();
    for (v, w) in want.iter().enumerate() {
        let (lo, hi) = acr_range(&out, &format!("abr:v{v}:h{v}"), settle_s);
        let (lo, hi, w) = (lo / 1e6, hi / 1e6, w / 1e6);
        println!("  v{v} {:?}: ACR {lo:.2} .. {hi:.2} Mb/s after {settle_s} s; max-min {w:.2} Mb/s", lot.flows[v]);
        if (lo - w).abs().max((hi - w).abs()) > aim.acr_tol * w {
            off.push(format!("v{v}: ACR {lo:.2} .. {hi:.2} Mb/s, max-min share {w:.2} Mb/s"));
        }
    }
    assert!(off.is_empty(), "{alg}, {n} switches (±{}%): {}", aim.acr_tol * 100.0, off.join("; "));
    let target = aim.utilisation;
    assert!(
        (util - target).abs() <= aim.util_tol,
        "{alg}, {n} switches: last link utilisation {util:.4}, target {target}"
    );
}

/// Two switches: v0 from s0, and at s1 a VC held at 20 Mb/s by its PCR beside a greedy one,
/// so the last port carries a VC restricted elsewhere; max-min gives v0 and v2 half of what
/// it leaves. TM 4.0 source defaults, 0.5 ms links.
fn two_switches() -> Lot {
    let flows = vec![long(0, 2), Flow { pcr_bps: Some(20e6), ..long(1, 2) }, long(1, 2)];
    Lot { n: 2, flows, preset: "tm4", delay_ms: 0.5 }
}

/// Three switches: v0 shares the first link with three VCs that leave at s1 and is held there
/// at a quarter of it; v1 (from s1) and v2 (from s2) share what v0 leaves of the last link.
fn three_switches() -> Lot {
    let local = Flow { entry: 0, exit: 1, pcr_bps: None };
    Lot { n: 3, flows: vec![long(0, 3), long(1, 3), long(2, 3), local, local, local], ..two_switches() }
}

/// The classic lot of `n` switches: one VC from each switch to the far end.
fn classic(n: usize) -> Lot {
    Lot { n, flows: (0..n).map(|i| long(i, n)).collect(), ..two_switches() }
}

#[test]
fn water_filling_of_the_parking_lot_is_max_min() {
    // The classic lot, every VC to the far end: n equal shares.
    assert_eq!(lot_shares(90e6, 3, &classic(3).flows), vec![30e6; 3]);
    assert_eq!(lot_shares(100e6, 2, &two_switches().flows), vec![40e6, 20e6, 40e6]);
    assert_eq!(lot_shares(100e6, 3, &three_switches().flows), vec![25e6, 37.5e6, 37.5e6, 25e6, 25e6, 25e6]);
}

#[test]
fn classic_parking_lots_share_the_last_link_equally() {
    for n in [2, 3] {
        assert_converges(&ERICA, &classic(n));
        assert_converges(&MAXMIN, &classic(n));
    }
}

#[test]
fn erica_settles_at_max_min_on_a_two_switch_parking_lot() {
    assert_converges(&ERICA, &two_switches());
    // The study's source parameters (RIF 1/64, ICR PCR/50) over 2 ms links.
    assert_converges(&ERICA, &Lot { preset: "kalampoukas97", delay_ms: 2.0, ..two_switches() });
}

#[test]
fn erica_settles_at_max_min_on_a_three_switch_parking_lot() {
    assert_converges(&ERICA, &three_switches());
}

#[test]
fn maxmin_settles_at_max_min_on_two_and_three_switch_parking_lots() {
    for lot in [two_switches(), three_switches()] {
        assert_converges(&MAXMIN, &lot);
    }
}

/// The ERICA lot gives the same results under every engine tie order (DESIGN §2b): the water
/// level sorts CCRs by value, never by the order VCs were met.
#[test]
fn erica_parking_lot_results_do_not_depend_on_the_engine_tie_order() {
    let text = parking_lot("erica", &three_switches(), 0.1, 0.05);
    let runs: Vec<RunOutput> = ["fifo", "lifo", "random"]
        .iter()
        .map(|order| {
            let t = text.replacen("seed = 1\n", &format!("seed = 1\ntie_order = \"{order}\"\n"), 1);
            assert!(t.contains("tie_order"));
            run_text(&t, RunOptions::default())
        })
        .collect();
    let results = |r: &RunOutput| {
        let mut s = deterministic_part(&r.summary);
        s.as_object_mut().unwrap().remove("tie_order"); // the summary names a non-default order
        s
    };
    for r in &runs[1..] {
        assert_eq!(results(r), results(&runs[0]));
        assert_eq!(r.series, runs[0].series);
    }
}
