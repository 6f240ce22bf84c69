//! ABR rate control in the running network (crate::abr, net::abr; ATM Forum TM 4.0): RM cells
//! are cells in every ledger, sources send one forward RM cell per Nrm cells, ACR climbs from
//! ICR to the explicit rate the switches grant (max-min or ERICA), the §6 fixes of Kalampoukas,
//! Varma & Ramakrishnan (1997) act on acks, runs are reproducible, and bad `abr` settings are
//! refused with the field named.

use super::common::*;
use atmsim_core::api::{validate_str, Format, RunOptions, RunOutput};
use serde_json::Value;

/// Cell rate of an OC-3c link \[bit/s of 53-byte cells\] (149.76 Mb/s of SONET payload).
const OC3C_BPS: f64 = 149.76e6;
/// Bits per cell.
const CELL_BITS: f64 = 424.0;

/// The §5.2 network of Kalampoukas et al. (1L — sw — 1R, OC-3c, 4 ms each side, one
/// max-min switch), one ABR VC `abr` with `abr_extra` added to its table, one bulk TCP
/// connection each way (W = 28 segments of 9140 bytes, delayed ACKs off), `vc_extra`
/// appended (more VCs).
fn sec52(duration_s: f64, warmup_s: f64, abr_extra: &str, vc_extra: &str) -> String {
    format!(
        r#"
name = "sec52-short"
[simulation]
duration_s = {duration_s}
warmup_s = {warmup_s}
seed = 1
[[host]]
name = "1L"
[[host]]
name = "1R"
[[switch]]
name = "sw"
er_algorithm = "maxmin"
[[link]]
a = "1L"
b = "sw"
preset = "oc3c"
delay_ms = 4.0
[[link]]
a = "sw"
b = "1R"
preset = "oc3c"
delay_ms = 4.0
[[vc]]
name = "abr"
path = ["1L", "sw", "1R"]
abr = {{ preset = "kalampoukas97"{abr_extra} }}
{vc_extra}
[[tcp]]
name = "1L->1R"
client = "1L"
server = "1R"
vc = "abr"
window_bytes = 255920
delayed_ack = false
app = {{ kind = "bulk", write_bytes = 65536 }}
[[tcp]]
name = "1R->1L"
client = "1R"
server = "1L"
vc = "abr"
window_bytes = 255920
delayed_ack = false
app = {{ kind = "bulk", write_bytes = 65536 }}
"#
    )
}

/// `abrs.len()` hosts h0, h1, … each with an ABR VC `v<i>` (table `abrs[i]`) through switch
/// `sw` (with `switch_extra`) to host `d`, OC-3c links of 0.5 ms, and a one-way bulk TCP
/// connection h<i> -> d with a 1 MB window (delayed ACKs off): far more than the path holds,
/// so each sender's IP queue never empties (its ABR end always has data) and `d` sends acks
/// and turned-around RM cells back.
fn star(duration_s: f64, warmup_s: f64, switch_extra: &str, abrs: &[&str]) -> String {
    let mut t = format!(
        r#"
name = "abr-star"
[simulation]
duration_s = {duration_s}
warmup_s = {warmup_s}
seed = 1
[[host]]
name = "d"
[[switch]]
name = "sw"
{switch_extra}
[[link]]
a = "sw"
b = "d"
preset = "oc3c"
delay_ms = 0.5
"#
    );
    for (i, abr) in abrs.iter().enumerate() {
        t += &format!(
            r#"
[[host]]
name = "h{i}"
[[link]]
a = "h{i}"
b = "sw"
preset = "oc3c"
delay_ms = 0.5
[[vc]]
name = "v{i}"
path = ["h{i}", "sw", "d"]
abr = {{ {abr} }}
[[tcp]]
name = "h{i}->d"
client = "h{i}"
server = "d"
vc = "v{i}"
window_bytes = 1048576
delayed_ack = false
app = {{ kind = "bulk", write_bytes = 65536 }}
"#
        );
    }
    t
}

fn run(text: &str) -> Value {
    run_text(text, RunOptions::default()).summary
}

fn u(v: &Value, k: &str) -> u64 {
    v[k].as_u64().unwrap_or_else(|| panic!("{k} missing in {v}"))
}

fn f(v: &Value, k: &str) -> f64 {
    v[k].as_f64().unwrap_or_else(|| panic!("{k} missing in {v}"))
}

fn named<'a>(list: &'a Value, key: &str, name: &str) -> &'a Value {
    list.as_array().unwrap().iter().find(|x| x[key] == name).unwrap_or_else(|| panic!("no {name} in {list}"))
}

/// The ABR end `"<vc>:<node>"`.
fn end<'a>(s: &'a Value, name: &str) -> &'a Value {
    named(&s["abr"]["ends"], "name", name)
}

fn port<'a>(s: &'a Value, name: &str) -> &'a Value {
    named(&s["ports"], "name", name)
}

fn conn<'a>(s: &'a Value, name: &str) -> &'a Value {
    named(&s["connections"], "name", name)
}

/// In-rate and out-of-rate cells end `e` put on its link: data, forward RM, backward RM.
fn cells_sent_by(e: &Value) -> u64 {
    u(e, "data_cells") + u(e, "forward_rm") + u(e, "out_of_rate_rm") + u(e, "backward_rm_sent")
}

fn rel(a: f64, b: f64) -> f64 {
    (a - b).abs() / b.abs()
}

/// The RM-cell ledger balances, and — when every cell and datagram of the run is an ABR end's
/// — the cell and datagram ledgers are rebuilt exactly from the ends' counters.
fn assert_abr_ledgers(s: &Value) {
    let ends = s["abr"]["ends"].as_array().unwrap();
    let rm = &s["abr"]["rm_cells"];
    assert_eq!(u(rm, "sent"), u(rm, "delivered") + u(rm, "dropped") + u(rm, "in_flight"), "{rm}");
    let rm_sent: u64 =
        ends.iter().map(|e| u(e, "forward_rm") + u(e, "out_of_rate_rm") + u(e, "backward_rm_sent")).sum();
    assert_eq!(u(rm, "sent"), rm_sent, "every RM cell an end sends is in the RM ledger");
    let rm_home: u64 = ends.iter().map(|e| u(e, "turned_around") + u(e, "backward_rm_received")).sum();
    assert_eq!(u(rm, "delivered"), rm_home, "every RM cell delivered is turned around or sets ACR");
    let cells = &s["conservation"]["cells"];
    assert_eq!(u(cells, "injected"), ends.iter().map(cells_sent_by).sum::<u64>(), "{cells}");
    let d = &s["conservation"]["datagrams"];
    assert_eq!(u(d, "sent"), ends.iter().map(|e| u(e, "datagrams_in") + u(e, "refused")).sum::<u64>(), "{d}");
    // Each end turns around what the other sent forward: a turned-around cell is sent, or
    // overwritten by a newer one, or (at most one) still waits for a slot.
    for e in ends {
        let waiting = u(e, "turned_around") - u(e, "backward_rm_sent") - u(e, "backward_rm_overwritten");
        assert!(waiting <= 1, "{e}");
    }
}

/// Every cell of a two-way TCP run over one ABR VC comes from an ABR end, so the ledgers can
/// be rebuilt from the ends' counters: the cells injected are exactly the data, forward RM and
/// backward RM cells the ends sent; the RM cells delivered are exactly the forward RM cells
/// turned around plus the backward RM cells that came home; the datagrams sent are exactly
/// those offered to the ends. RM cells take link slots: the adapter port of 1L carries
/// nothing but 1L's end, so its `cells_in` is that end's total and its busy time (warm-up 0,
/// so `utilization` × duration) is one cell time per cell it sent, RM cells included.
#[test]
fn rm_cells_are_cells_in_every_ledger() {
    let duration = 0.3;
    let s = run(&sec52(duration, 0.0, "", ""));
    assert_conserved(&s);
    assert_abr_ledgers(&s);
    assert_eq!(s["abr"]["ends"].as_array().unwrap().len(), 2);
    let rm = &s["abr"]["rm_cells"];
    assert_eq!(u(rm, "dropped"), 0, "unlimited buffers: nothing is dropped");
    assert!(u(rm, "sent") > 1000 && u(rm, "delivered") > 1000, "{rm}");

    let e = end(&s, "abr:1L");
    let p = port(&s, "1L->sw");
    let sent = cells_sent_by(e);
    assert!(u(e, "forward_rm") + u(e, "backward_rm_sent") > sent / 20, "RM cells are ~1/16 of the cells: {e}");
    assert_eq!(u(p, "cells_in"), sent, "the adapter port carries the end's data and RM cells: {p} {e}");
    let tx = u(p, "cells_tx");
    assert!(tx <= sent && tx + u(p, "max_queue_cells") >= sent, "{p} vs {sent}");
    let busy_cells = f(p, "utilization") * duration * OC3C_BPS / CELL_BITS;
    assert!((busy_cells - tx as f64).abs() <= 1.0, "utilisation counts every cell sent: {busy_cells} vs {tx}");
    assert!(busy_cells > (u(e, "data_cells") + u(e, "forward_rm")) as f64, "RM cells are in the utilisation");
}

/// TM 4.0 source rule 3a: a forward RM cell goes when Nrm − 1 in-rate cells have gone since
/// the last one (the first cell is one, rule 2), so of every Nrm in-rate cells — data,
/// backward RM and forward RM alike — one is a forward RM cell: forward RM = total / Nrm to
/// within the one cell a partial last group adds. Trm (100 ms after Mrm cells) never fires
/// here: every end sends at least every few milliseconds. Checked for Nrm = 32 and 16 on both
/// ends of a bulk TCP flow whose sender always has data (1 MB window); the receiver's cells
/// are acks and turned-around RM cells.
#[test]
fn the_source_sends_one_forward_rm_cell_per_nrm_cells() {
    for nrm in [32u64, 16] {
        let abr = format!("preset = \"tm4\", nrm = {nrm}");
        let s = run(&star(0.3, 0.0, "er_algorithm = \"maxmin\"", &[&abr]));
        assert_conserved(&s);
        assert_abr_ledgers(&s);
        for name in ["v0:h0", "v0:d"] {
            let e = end(&s, name);
            let total = cells_sent_by(e);
            let frm = u(e, "forward_rm");
            let per_nrm = (frm * nrm) as f64 / total as f64;
            println!("nrm {nrm} {name}: {frm} forward RM of {total} cells ({per_nrm:.4} per Nrm)");
            assert_eq!(u(e, "out_of_rate_rm"), 0, "{e}");
            assert!(total > 50 * nrm, "{name} must send enough cells to count: {e}");
            let want = total as f64 / nrm as f64;
            assert!((frm as f64 - want).abs() <= 1.0, "nrm {nrm} {name}: {frm} vs {total}/{nrm}");
        }
        // The sender's IP queue never ran dry: it always held data behind the segment in service.
        assert!(u(end(&s, "v0:h0"), "max_ip_queue_data") > 10, "{}", end(&s, "v0:h0"));
    }
}

/// Preset kalampoukas97 (§5.1): ICR = PCR/50 and PCR = the OC-3c cell rate by default. One VC
/// alone on a max-min switch is granted the whole port (μ = C), so its ACR climbs by RIF·PCR
/// per backward RM cell and stops at min(ER, PCR) = C = 149.76 Mb/s of cells, after at least
/// ⌈(1 − 1/50)·64⌉ = 63 backward RM cells. Three TCP senders from three hosts into one port:
/// max-min gives each C/3 and rule 9 sets ACR = min(ACR + RIF·PCR, ER) = C/3 exactly once
/// they have converged; the port advertises μ = C/3.
#[test]
fn acr_starts_at_icr_and_reaches_the_max_min_share() {
    let s = run(&star(0.2, 0.0, "er_algorithm = \"maxmin\"", &["preset = \"kalampoukas97\""]));
    assert_conserved(&s);
    let e = end(&s, "v0:h0");
    println!(
        "alone: icr {} acr {} (changed last at {} s)",
        f(e, "icr_bps"),
        f(e, "acr_bps"),
        f(e, "acr_last_change_s")
    );
    assert!(rel(f(e, "pcr_bps"), OC3C_BPS) < 1e-12, "{e}");
    assert!(rel(f(e, "icr_bps"), OC3C_BPS / 50.0) < 1e-12, "{e}");
    assert!(rel(f(e, "acr_bps"), OC3C_BPS) < 1e-12, "{e}");
    assert!(u(e, "backward_rm_received") >= 63, "{e}");
    let a = named(&s["abr"]["allocators"], "port", "sw->d");
    assert!(rel(f(a, "advertised_bps"), OC3C_BPS) < 1e-12, "{a}");

    let s = run(&star(0.3, 0.0, "er_algorithm = \"maxmin\"", &["preset = \"kalampoukas97\""; 3]));
    assert_conserved(&s);
    let share = OC3C_BPS / 3.0;
    for i in 0..3 {
        let e = end(&s, &format!("v{i}:h{i}"));
        println!("v{i}: acr {} (changed last at {} s)", f(e, "acr_bps"), f(e, "acr_last_change_s"));
        assert!(rel(f(e, "icr_bps"), OC3C_BPS / 50.0) < 1e-12, "{e}");
        assert!(rel(f(e, "acr_bps"), share) < 1e-6, "v{i}: {} vs C/3 = {share}", f(e, "acr_bps"));
    }
    let a = named(&s["abr"]["allocators"], "port", "sw->d");
    assert_eq!(a["algorithm"], "maxmin");
    assert!(rel(f(a, "advertised_bps"), share) < 1e-6, "{a}");
}

/// Max-min: a VC whose PCR (20 Mb/s of cells) is below its equal share (C/2) is held at its
/// PCR by rule 9 (and starts at its own ICR, PCR/50); the port records it there and gives the
/// other VC the rest, μ = C − 20 Mb/s.
#[test]
fn a_vc_restricted_by_its_pcr_leaves_the_rest_to_the_others() {
    let abrs = ["preset = \"kalampoukas97\", pcr_bps = 20e6", "preset = \"kalampoukas97\""];
    let s = run(&star(0.3, 0.0, "er_algorithm = \"maxmin\"", &abrs));
    assert_conserved(&s);
    let (slow, fast) = (end(&s, "v0:h0"), end(&s, "v1:h1"));
    println!("slow {} fast {}", f(slow, "acr_bps"), f(fast, "acr_bps"));
    assert!(rel(f(slow, "pcr_bps"), 20e6) < 1e-12, "{slow}");
    assert!(rel(f(slow, "icr_bps"), 20e6 / 50.0) < 1e-12, "{slow}");
    assert!(rel(f(slow, "acr_bps"), 20e6) < 1e-9, "{slow}");
    assert!(rel(f(fast, "pcr_bps"), OC3C_BPS) < 1e-12, "{fast}");
    assert!(rel(f(fast, "acr_bps"), OC3C_BPS - 20e6) < 1e-6, "{fast}");
    let a = named(&s["abr"]["allocators"], "port", "sw->d");
    assert!(rel(f(a, "advertised_bps"), OC3C_BPS - 20e6) < 1e-6, "{a}");
}

/// ERICA (Jain et al. 1996): two greedy VCs on one port settle where the load factor is 1 and
/// each has the fair share, U·C/2 with the default target utilisation U = 0.95 — not C/2 as
/// max-min would give; the port advertises that fair share (two VCs active). Measured load
/// makes the ACRs wander around it by a little. The port then runs at U (every in-rate cell,
/// RM cells included, counts in the load), and each connection's goodput is its ACR less the
/// forward RM cell of every 32 (and a few backward RM cells), at 9140 TCP payload bytes per
/// 192 cells.
#[test]
fn erica_gives_each_vc_its_fair_share() {
    let fair = 0.95 * OC3C_BPS / 2.0;
    let s = run(&star(0.4, 0.1, "er_algorithm = \"erica\"", &["preset = \"kalampoukas97\""; 2]));
    assert_conserved(&s);
    assert_abr_ledgers(&s);
    let a = named(&s["abr"]["allocators"], "port", "sw->d");
    assert_eq!(a["algorithm"], "erica");
    assert!(rel(f(a, "advertised_bps"), fair) < 1e-6, "fair share of two active VCs: {a}");
    let util = f(port(&s, "sw->d"), "utilization");
    println!("erica: sw->d utilisation {util:.4}");
    assert!((util - 0.95).abs() < 0.02, "utilisation {util}");
    for i in 0..2 {
        let acr = f(end(&s, &format!("v{i}:h{i}")), "acr_bps");
        let goodput = f(conn(&s, &format!("h{i}->d")), "goodput_bps");
        let want = fair * (31.0 / 32.0) * 9140.0 * 8.0 / (192.0 * CELL_BITS);
        println!(
            "  v{i}: acr {acr} = {:.4} of U·C/2; goodput {goodput} = {:.4} of expected",
            acr / fair,
            goodput / want
        );
        assert!(rel(acr, fair) < 0.02, "v{i}: {acr} vs {fair}");
        assert!(rel(goodput, want) < 0.02, "v{i}: goodput {goodput} vs {want}");
    }
}

/// Goodput bound of one direction of the §5.2 network at full rate: 9140 payload bytes per
/// 192 cells on OC-3c, less the forward RM cell of every 32 cells and the backward RM cell
/// turned around for the other direction (as many again), less one ack cell per segment.
fn sec52_goodput_bound() -> f64 {
    OC3C_BPS * (9140.0 * 8.0) / (192.0 * CELL_BITS) * (30.0 / 32.0) * (192.0 / 193.0)
}

/// §6 fixes of Kalampoukas et al. on the §5.2 network. Fix 1, ack priority: each node's acks
/// no longer wait behind up to W data segments in the shared FIFO, so the other direction's
/// sender is clocked sooner and both connections gain (the paper's point); every ledger still
/// balances and neither beats the line-rate bound. Fix 2, a separate ack VC: every pure ack
/// (zero payload: acks, and the SYNs of the handshake) leaves the data VC for the ack VC at
/// the same node, so the data VC's IP queue never holds one (its most packets = its most data
/// packets) and the ack VC's end takes in exactly the acks diverted to it.
#[test]
fn ack_priority_and_separate_vcs_divert_acks() {
    let (duration, warmup) = (0.5, 0.1);
    let fifo = run(&sec52(duration, warmup, "", ""));
    let prio = run(&sec52(duration, warmup, ", ack_priority = true", ""));
    for s in [&fifo, &prio] {
        assert_conserved(s);
        assert_abr_ledgers(s);
    }
    let bound = sec52_goodput_bound();
    for c in ["1L->1R", "1R->1L"] {
        let (g0, g1) = (f(conn(&fifo, c), "goodput_bps"), f(conn(&prio, c), "goodput_bps"));
        println!("{c}: shared FIFO {:.2} Mb/s, ack priority {:.2} Mb/s (bound {:.2})", g0 / 1e6, g1 / 1e6, bound / 1e6);
        assert!(g1 > g0 * 1.1, "{c}: ack priority {g1} vs FIFO {g0}");
        assert!(g1 < bound, "{c}: {g1} above the line-rate bound {bound}");
    }

    let acks_vc = r#"
[[vc]]
name = "acks"
path = ["1L", "sw", "1R"]
abr = { preset = "kalampoukas97", pcr_bps = 2995200, reverse_pcr_bps = 2995200, icr_fraction = 1.0 }
"#;
    let s = run(&sec52(duration, warmup, ", ack_vc = \"acks\"", acks_vc));
    assert_conserved(&s);
    assert_abr_ledgers(&s);
    for (node, receiver_of) in [("1L", "1R->1L"), ("1R", "1L->1R")] {
        let data = end(&s, &format!("abr:{node}"));
        let acks = end(&s, &format!("acks:{node}"));
        let diverted = u(data, "acks_diverted");
        let acks_of_receiver = u(conn(&s, receiver_of), "acks_sent_by_receiver");
        println!("{node}: diverted {diverted}, acks of {receiver_of} {acks_of_receiver}, ack VC end {acks}");
        assert!(diverted > 100, "{data}");
        // The receiver's acks plus the node's SYN / SYN-ACK of the handshake.
        assert!(diverted >= acks_of_receiver && diverted <= acks_of_receiver + 4, "{diverted} vs {acks_of_receiver}");
        assert_eq!(u(acks, "datagrams_in"), diverted, "the ack VC carries exactly the diverted acks: {acks}");
        assert_eq!(u(acks, "acks_diverted"), 0);
        assert!(u(acks, "data_cells") > 0, "{acks}");
        assert_eq!(
            u(data, "max_ip_queue_packets"),
            u(data, "max_ip_queue_data"),
            "no ack in the data VC's queue: {data}"
        );
    }
}

/// The simulator is deterministic: the same ABR scenario (max-min with ack priority, probes
/// every 5 ms; ERICA, whose averaging intervals are time-driven, probes off) gives identical
/// summaries and series run twice, and serving busy ports inline (batching) changes nothing.
/// ACR is traced (`acr_bps` rows) exactly when probes are on.
#[test]
fn abr_runs_are_deterministic_and_batching_invariant() {
    let probed =
        sec52(0.3, 0.05, ", ack_priority = true", "").replacen("seed = 1\n", "seed = 1\nsample_interval_ms = 5\n", 1);
    let erica = star(0.2, 0.05, "er_algorithm = \"erica\"\nerica_interval_ms = 0.5", &["preset = \"tm4\""; 3])
        .replacen("seed = 1\n", "seed = 1\nsample_interval_ms = 0\n", 1);
    assert!(erica.contains("sample_interval_ms"));
    assert!(probed.contains("sample_interval_ms"));
    for (text, probes) in [(probed, true), (erica, false)] {
        let a = run_text(&text, RunOptions::default());
        let acr_rows = (0..a.series.len()).filter(|&i| a.series.metric_name(i) == "acr_bps").count();
        assert_eq!(acr_rows > 0, probes, "ACR is traced exactly when probes are on");
        let b = run_text(&text, RunOptions::default());
        for k in ["connections", "ports", "abr"] {
            assert_eq!(a.summary[k], b.summary[k], "{k} differs between identical runs");
        }
        assert_eq!(deterministic_part(&a.summary), deterministic_part(&b.summary));
        assert_eq!(a.series, b.series);
        let (on, off) = assert_batching_invariant(&text);
        assert_eq!(deterministic_part(&a.summary), deterministic_part(&on.summary));
        assert_eq!(on.summary["abr"], off.summary["abr"]);
        // Batched, the switch is drained by its readers and meets its allocators at each
        // cell's instant; event by event every switch arrival takes an event.
        let per_hop = |o: &RunOutput| {
            o.summary["run"]["events"].as_f64().unwrap() / o.summary["run"]["cell_hops"].as_f64().unwrap()
        };
        assert!(per_hop(&on) < 0.75 && per_hop(&off) > 0.95, "{} {}", per_hop(&on), per_hop(&off));
        assert!(u(&a.summary["abr"]["rm_cells"], "sent") > 100);
    }
}

/// Every mistake in an `abr` table or the ER settings is refused before running, naming the
/// field (the dotted path into the scenario) and what was expected.
#[test]
fn abr_mistakes_name_their_field() {
    let base = sec52(0.1, 0.0, "", "");
    let abr = "abr = { preset = \"kalampoukas97\" }";
    let with_abr = |fields: &str| base.replacen(abr, &format!("abr = {{ preset = \"kalampoukas97\", {fields} }}"), 1);
    let plain_vc = "\n[[vc]]\nname = \"plain\"\npath = [\"1L\", \"sw\", \"1R\"]\n";
    // An ABR VC from 1L to a third host y: not between the two nodes of `abr`.
    let other_vc = r#"
[[host]]
name = "y"
[[link]]
a = "y"
b = "sw"
preset = "oc3c"
delay_ms = 1
[[vc]]
name = "other"
path = ["1L", "sw", "y"]
abr = {}
"#;
    // A host x behind another switch: a node, but not a neighbour of `sw`.
    let elsewhere = r#"
[[host]]
name = "x"
[[switch]]
name = "sw2"
[[link]]
a = "x"
b = "sw2"
preset = "oc3c"
delay_ms = 1
"#;
    let by_port = |nb: &str| {
        base.replacen(
            "er_algorithm = \"maxmin\"",
            &format!("er_algorithm = \"maxmin\"\ner_algorithm_by_port = {{ {nb} = \"erica\" }}"),
            1,
        ) + elsewhere
    };
    let cases: Vec<(String, &str, &str)> = vec![
        (base.replacen(abr, &format!("{abr}\npace_bps = 50e6"), 1), "vc[0].abr", "without shape or pace_bps"),
        (with_abr("pcr_bps = 200e6"), "vc[0].abr.pcr_bps", "between 1 cell/s and the link's"),
        (with_abr("reverse_pcr_bps = 155.52e6"), "vc[0].abr.reverse_pcr_bps", "between 1 cell/s and the link's"),
        (with_abr("pcr_bps = 10e6, pcr_cells_per_s = 1000"), "vc[0].abr.pcr_cells_per_s", "not both"),
        (with_abr("nrm = 1"), "vc[0].abr.nrm", "between 2 and 256"),
        (with_abr("nrm = 2"), "vc[0].abr.mrm", "Mrm < Nrm"),
        (with_abr("icr_fraction = 0"), "vc[0].abr.icr_fraction", "fraction of PCR"),
        (with_abr("rif = 1.5"), "vc[0].abr.rif", "fraction"),
        (with_abr("ack_vc = \"abr\""), "vc[0].abr.ack_vc", "not the VC itself"),
        (with_abr("ack_vc = \"plain\"") + plain_vc, "vc[0].abr.ack_vc", "an ABR VC"),
        (with_abr("ack_vc = \"nowhere\""), "vc[0].abr.ack_vc", "the name of a [[vc]]"),
        (with_abr("ack_vc = \"other\"") + other_vc, "vc[0].abr.ack_vc", "between the same two nodes"),
        (with_abr("foo = 1"), "vc[0].abr.foo", "unknown field"),
        (
            base.replacen("er_algorithm = \"maxmin\"", "er_algorithm = \"nonsense\"", 1),
            "switch[0].er_algorithm",
            "unknown variant",
        ),
        (by_port("nowhere"), "switch[0].er_algorithm_by_port.nowhere", "linked to switch `sw`"),
        (by_port("x"), "switch[0].er_algorithm_by_port.x", "linked to switch `sw`"),
        (
            base.replacen("er_algorithm = \"maxmin\"", "er_algorithm = \"erica\"\nerica_target_utilization = 1.5", 1),
            "switch[0].erica_target_utilization",
            "fraction",
        ),
        (
            base.clone() + "\n[[host]]\nname = \"lonely\"\ner_algorithm = \"maxmin\"\n",
            "host[2].er_algorithm",
            "to have a link",
        ),
    ];
    for (text, field, expect) in &cases {
        let e = validate_str(text, Format::Toml, "abr.toml").expect_err(field);
        assert_eq!(e.file, "abr.toml");
        assert_eq!(&e.field, field, "{e}");
        assert!(e.message.contains(expect), "{field}: message {:?} lacks {expect:?}", e.message);
    }
    validate_str(&base, Format::Toml, "abr.toml").unwrap();
    validate_str(&(base.clone() + other_vc + elsewhere), Format::Toml, "abr.toml").unwrap();
}
