//! Cell-level data path without TCP: greedy sources, links, switch ports, schedulers, drops.

use super::common::*;
use atmsim_core::api::{RunOptions, RunOutput};

const ONE_SOURCE: &str = r#"
[simulation]
duration_s = 0.2
warmup_s = 0.05
[[host]]
name = "a"
[[host]]
name = "b"
[[switch]]
name = "sw"
[[link]]
a = "a"
b = "sw"
preset = "oc3c"
delay_ms = 1.0
[[link]]
a = "sw"
b = "b"
preset = "oc3c"
delay_ms = 1.0
[[vc]]
name = "v"
path = ["a", "sw", "b"]
[[cell_source]]
name = "g"
vc = "v"
from = "a"
kind = "greedy"
"#;

const DIRECT: &str = r#"
[simulation]
duration_s = 0.2
[[host]]
name = "a"
[[host]]
name = "b"
[[link]]
a = "a"
b = "b"
preset = "oc3c"
delay_ms = 1.0
[[vc]]
name = "v"
path = ["a", "b"]
[[cell_source]]
name = "g"
vc = "v"
from = "a"
kind = "greedy"
"#;

#[test]
fn a_greedy_source_fills_its_link_at_the_aal5_payload_rate() {
    let out = run_text(ONE_SOURCE, RunOptions::default());
    let s = &out.summary;
    // 9180-byte datagrams in 192 cells: goodput = 149.76e6 * 9180 / (192 * 53).
    let expect = 149.76e6 * 9180.0 / (192.0 * 53.0);
    let got = s["sources"][0]["goodput_bps"].as_f64().unwrap();
    assert!((got - expect).abs() / expect < 0.002, "goodput {got} vs {expect}");
    let util = s["ports"][0]["utilization"].as_f64().unwrap();
    assert!((util - 1.0).abs() < 1e-3, "utilization {util}");
    assert_conserved(s);
}

#[test]
fn batching_gives_identical_results_to_event_by_event() {
    let text = std::fs::read_to_string(repo_file("scenarios/examples/greedy_rr.toml")).unwrap();
    let (a, b) = assert_batching_invariant(&text);
    assert_eq!(a.summary["run"]["cell_hops"], b.summary["run"]["cell_hops"]);
    // Served ahead, the ports take no event per cell, and the switch, drained by its readers,
    // none per arriving cell: what is left are the frame ends (9180-byte frames, 192 cells),
    // a few per frame.
    let steps = |o: &RunOutput| o.summary["run"]["events"].as_u64().unwrap() as f64;
    let hops = a.summary["run"]["cell_hops"].as_u64().unwrap() as f64;
    assert!(steps(&b) / hops > 1.4, "event by event: {} steps per cell-hop", steps(&b) / hops);
    assert!(steps(&a) / hops < 0.05, "batched: {} steps per cell-hop", steps(&a) / hops);
}

/// Two switches joined by a link, VCs crossing it both ways: each switch's arrivals wait for
/// readers that need the other's (a ring), with on/off and Poisson sources and a probe.
const RING: &str = r#"
[simulation]
duration_s = 0.3
sample_interval_ms = 7.0
[[host]]
name = "a"
[[host]]
name = "b"
[[host]]
name = "c"
[[host]]
name = "d"
[[switch]]
name = "s1"
buffer_cells = 200
[[switch]]
name = "s2"
buffer_cells = 200
scheduler = "round_robin"
[[link]]
a = "a"
b = "s1"
preset = "oc3c"
delay_ms = 0.05
[[link]]
a = "c"
b = "s1"
preset = "oc3c"
delay_ms = 0.0
[[link]]
a = "s1"
b = "s2"
preset = "ds3"
delay_ms = 0.3
[[link]]
a = "s2"
b = "b"
preset = "oc3c"
delay_ms = 0.05
[[link]]
a = "s2"
b = "d"
preset = "oc3c"
delay_ms = 0.02
[[vc]]
name = "ab"
path = ["a", "s1", "s2", "b"]
[[vc]]
name = "cb"
path = ["c", "s1", "s2", "b"]
[[vc]]
name = "da"
path = ["d", "s2", "s1", "a"]
[[vc]]
name = "bc"
path = ["b", "s2", "s1", "c"]
[[cell_source]]
name = "g"
vc = "ab"
from = "a"
kind = "greedy"
[[cell_source]]
name = "o"
vc = "cb"
from = "c"
kind = "onoff"
mean_cells = 40
load_bps = 30000000
[[cell_source]]
name = "p"
vc = "da"
from = "d"
kind = "poisson"
load_bps = 20000000
mean_cells = 25
[[cell_source]]
name = "q"
vc = "bc"
from = "b"
kind = "onoff"
mean_cells = 10
load_bps = 35000000
"#;

#[test]
fn switches_drained_by_their_readers_give_identical_results_with_few_events() {
    // A ring of drained switches, a zero-delay host input, contention at both switches'
    // ports (the DS3 trunk is slower than the OC-3c inputs), FIFO and round robin, probes.
    let (a, b) = assert_batching_invariant(RING);
    assert_conserved(&a.summary);
    let steps = |o: &RunOutput| o.summary["run"]["events"].as_u64().unwrap() as f64;
    let hops = a.summary["run"]["cell_hops"].as_u64().unwrap() as f64;
    let drops = a.summary["conservation"]["cells"]["dropped_tail"].as_u64().unwrap();
    assert!(drops > 1000, "the trunk should be congested: {drops} tail drops");
    assert!(steps(&b) / hops > 1.0, "event by event: {} steps per cell-hop", steps(&b) / hops);
    assert!(steps(&a) / hops < 0.3, "drained: {} steps per cell-hop", steps(&a) / hops);
}

#[test]
fn a_ring_of_drained_switches_idle_for_long_stays_shallow_to_drain() {
    // Two drained switches 10 µs apart with VCs both ways, sparse traffic and no probes:
    // between messages nothing reads them for up to seconds, hundreds of thousands of ring
    // delays. A drain after such a pause reaches back around the ring one delay per step, so
    // without the periodic drain its recursion overflows a test thread's stack (checked); with
    // it, it is at most some 64 steps deep. Results as event by event.
    let text = RING
        .replace("delay_ms = 0.3", "delay_ms = 0.01")
        .replace("kind = \"greedy\"", "kind = \"poisson\"\nload_bps = 2000\nmean_cells = 5")
        .replace("mean_cells = 40\nload_bps = 30000000", "mean_cells = 5\nload_bps = 3000")
        .replace("load_bps = 20000000", "load_bps = 2000")
        .replace("mean_cells = 10\nload_bps = 35000000", "mean_cells = 5\nload_bps = 3500")
        .replace("duration_s = 0.3", "duration_s = 10.0")
        .replace("sample_interval_ms = 7.0", "sample_interval_ms = 0");
    assert!(!text.contains("greedy") && !text.contains("000000\n") && text.contains("sample_interval_ms = 0"));
    let (a, _) = assert_batching_invariant(&text);
    assert_conserved(&a.summary);
    let delivered = a.summary["conservation"]["cells"]["delivered"].as_u64().unwrap();
    assert!(delivered > 100, "too little traffic to test anything: {delivered} cells");
}

#[test]
fn batching_serves_an_uncontended_port_inline_with_identical_results() {
    // A direct host-to-host link: nothing interleaves with the adapter's cells but the
    // end-of-frame arrivals, so almost every cell is sent inline.
    let (a, b) = assert_batching_invariant(DIRECT);
    let heap_a = a.summary["run"]["heap_events"].as_u64().unwrap();
    let heap_b = b.summary["run"]["heap_events"].as_u64().unwrap();
    assert!(heap_a * 20 < heap_b, "batched {heap_a} vs unbatched {heap_b} heap events");
}

#[test]
fn round_robin_with_epd_shares_a_congested_port_equally() {
    let out = run_file("scenarios/examples/greedy_rr.toml", RunOptions::default());
    let s = &out.summary;
    let g: Vec<f64> = (0..3).map(|i| s["sources"][i]["goodput_bps"].as_f64().unwrap()).collect();
    let total: f64 = g.iter().sum();
    let jain = total * total / (3.0 * g.iter().map(|x| x * x).sum::<f64>());
    assert!(jain > 0.999, "Jain index {jain}, goodputs {g:?}");
    // EPD keeps the bottleneck carrying whole frames: total goodput near the payload rate.
    let cap = 149.76e6 * 9180.0 / (192.0 * 53.0);
    assert!(total > 0.97 * cap && total <= cap * 1.0001, "total {total} vs {cap}");
    let sink_port = s["ports"].as_array().unwrap().iter().find(|p| p["name"] == "sw->sink").unwrap();
    assert!(sink_port["drop_epd"].as_u64().unwrap() > 0);
    assert_eq!(sink_port["drop_tail"].as_u64().unwrap(), 0, "EPD threshold 700 of 1000 should avoid overflow");
    assert_conserved(s);
}

#[test]
fn tail_drop_under_overload_wastes_bandwidth_that_epd_saves() {
    // Sources of unequal rates (so their cells interleave irregularly) overload one port.
    let text = std::fs::read_to_string(repo_file("scenarios/examples/greedy_rr.toml"))
        .unwrap()
        .replacen("a = \"b\"\nb = \"sw\"\npreset = \"oc3c\"", "a = \"b\"\nb = \"sw\"\npreset = \"taxi100\"", 1)
        .replacen("a = \"c\"\nb = \"sw\"\npreset = \"oc3c\"", "a = \"c\"\nb = \"sw\"\npreset = \"ds3\"", 1);
    let tail_text = text.replace("drop_policy = \"epd\"\nepd_threshold_cells = 700", "drop_policy = \"tail\"");
    assert_ne!(tail_text, text);
    let total = |s: &serde_json::Value| (0..3).map(|i| s["sources"][i]["goodput_bps"].as_f64().unwrap()).sum::<f64>();
    let epd = run_text(&text, RunOptions::default()).summary;
    let tail = run_text(&tail_text, RunOptions::default()).summary;
    let cap = 149.76e6 * 9180.0 / (192.0 * 53.0);
    assert!(total(&epd) > 0.97 * cap, "EPD goodput {}", total(&epd));
    assert!(total(&tail) < 0.8 * total(&epd), "tail {} vs EPD {}", total(&tail), total(&epd));
    assert!(tail["conservation"]["frames"]["discarded"].as_u64().unwrap() > 0);
    assert_conserved(&tail);
    assert_conserved(&epd);
}

#[test]
fn same_seed_gives_identical_results() {
    let text = std::fs::read_to_string(repo_file("scenarios/examples/greedy_rr.toml")).unwrap();
    let a = run_text(&text, RunOptions::default());
    let b = run_text(&text, RunOptions::default());
    assert_eq!(deterministic_part(&a.summary), deterministic_part(&b.summary));
    assert_eq!(a.series, b.series);
}

#[test]
fn sixty_four_greedy_vcs_share_a_round_robin_adapter_to_within_one_frame() {
    let text = std::fs::read_to_string(repo_file("scenarios/bench/rr64.toml"))
        .unwrap()
        .replace("duration_s = 20.0", "duration_s = 3.0\nwarmup_s = 1.0");
    let s = run_text(&text, RunOptions::default()).summary;
    let sent: Vec<u64> = s["sources"].as_array().unwrap().iter().map(|x| x["frames_rcvd"].as_u64().unwrap()).collect();
    let (lo, hi) = (*sent.iter().min().unwrap(), *sent.iter().max().unwrap());
    // Cell-by-cell round robin: every VC completes its frames in lock step.
    assert!(hi - lo <= 1, "frames per VC range {lo}..{hi}");
    let total_bps: f64 = s["sources"].as_array().unwrap().iter().map(|x| x["goodput_bps"].as_f64().unwrap()).sum();
    let cap = 149.76e6 * 9180.0 / (192.0 * 53.0);
    // Goodput counts whole frames; one round of 64 frames is 34.8 ms of the 2 s window.
    assert!((total_bps - cap).abs() / cap < 0.025, "{total_bps} vs {cap}");
    assert_conserved(&s);
}

const POISSON: &str = r#"
[simulation]
duration_s = 20.0
sample_interval_ms = 0
[[host]]
name = "bg"
[[host]]
name = "sink"
[[switch]]
name = "sw"
[[link]]
a = "bg"
b = "sw"
preset = "oc3c"
delay_ms = 0.1
[[link]]
a = "sw"
b = "sink"
preset = "oc3c"
delay_ms = 0.1
[[vc]]
name = "v"
path = ["bg", "sw", "sink"]
[[cell_source]]
name = "poisson"
vc = "v"
from = "bg"
kind = "poisson"
load_bps = 50e6
"#;

#[test]
fn a_poisson_message_source_offers_its_load_in_messages_of_mean_25_cells() {
    let s = run_text(POISSON, RunOptions::default()).summary;
    let src = &s["sources"][0];
    let offered = src["offered_cell_bps"].as_f64().unwrap();
    assert!((offered - 50e6).abs() / 50e6 < 0.02, "offered {offered}");
    let mean_cells = src["cells_sent"].as_f64().unwrap() / src["frames_sent"].as_f64().unwrap();
    assert!((mean_cells - 25.0).abs() < 0.5, "mean message length {mean_cells} cells");
    // Below capacity nothing is lost: every message arrives whole.
    let in_flight = s["conservation"]["frames"]["in_flight"].as_u64().unwrap();
    assert_eq!(src["frames_rcvd"].as_u64().unwrap(), src["frames_sent"].as_u64().unwrap() - in_flight);
    assert_conserved(&s);
    assert_batching_invariant(POISSON);
}

#[test]
fn poisson_messages_queue_at_a_slower_port_as_their_burstiness_predicts() {
    // Into a port at 60% load the queue grows with message bursts (a message's cells arrive
    // back to back at line rate); with a buffer far above the bursts nothing is dropped.
    let text =
        POISSON.replace("a = \"sw\"\nb = \"sink\"\npreset = \"oc3c\"", "a = \"sw\"\nb = \"sink\"\nrate_bps = 83.3e6");
    let s = run_text(&text, RunOptions::default()).summary;
    let port = s["ports"].as_array().unwrap().iter().find(|p| p["name"] == "sw->sink").unwrap();
    let util = port["utilization"].as_f64().unwrap();
    assert!((util - 0.6).abs() < 0.02, "utilisation {util}");
    assert!(port["mean_queue_cells"].as_f64().unwrap() > 1.0);
    assert_eq!(port["drops"].as_u64().unwrap(), 0);
}

#[test]
fn a_probe_at_the_instant_a_cell_ends_sees_the_queue_before_it_and_batching_agrees() {
    // At 212 Mb/s a cell takes exactly 2 µs, so with a greedy source busy from time 0 every
    // 1-ms sample falls on the instant a cell ends and the next starts. A probe sees the left
    // limit of its instant (DESIGN §2b): a port served ahead must not carry out that
    // completion before the probe reads it. Event by event (batching off) the completion is
    // still pending then; both runs must give the same series.
    let text = r#"
[simulation]
duration_s = 0.02
sample_interval_ms = 1.0
[[host]]
name = "a"
[[host]]
name = "b"
[[switch]]
name = "sw"
[[link]]
a = "a"
b = "sw"
rate_bps = 212e6
delay_ms = 0
[[link]]
a = "sw"
b = "b"
rate_bps = 212e6
delay_ms = 0.1
[[vc]]
name = "v"
path = ["a", "sw", "b"]
[[cell_source]]
name = "g"
vc = "v"
from = "a"
kind = "greedy"
"#;
    let (a, _) = assert_batching_invariant(text);
    // The adapter holds two 192-cell frames and refills one whenever a frame leaves: just
    // before a completion it holds 191–383 cells waiting (the cell on the wire excluded).
    let sr = &a.series;
    let q: Vec<f64> = (0..sr.value.len())
        .filter(|&i| sr.metric_name(i) == "queue_cells" && sr.entity_name(i).contains("a->"))
        .map(|i| sr.value[i])
        .collect();
    assert!(q.len() >= 15, "{} samples", q.len());
    assert!(q.iter().all(|&v| (191.0..=383.0).contains(&v)), "{q:?}");
}

/// [`RING`] with `n` more hosts into `s1` (so that it has more than the 16 inputs a drained
/// switch scans), their VCs crossing to `b`: greedy sources in lock step on identical
/// zero-delay links (simultaneous arrivals at `s1`), on/off and Poisson sources on links of
/// other delays.
fn wide_ring(n: usize) -> String {
    let mut text = RING.to_string();
    for i in 0..n {
        let (kind, delay) = match i % 3 {
            0 => ("kind = \"greedy\"", 0.0),
            1 => ("kind = \"onoff\"\nmean_cells = 20\nload_bps = 3000000", 0.01 * i as f64),
            _ => ("kind = \"poisson\"\nmean_cells = 12\nload_bps = 2000000", 0.003 * i as f64),
        };
        text += &format!(
            "[[host]]\nname = \"h{i}\"\n[[link]]\na = \"h{i}\"\nb = \"s1\"\nrate_bps = 20000000\ndelay_ms = {delay}\n\
             [[vc]]\nname = \"v{i}\"\npath = [\"h{i}\", \"s1\", \"s2\", \"b\"]\n\
             [[cell_source]]\nname = \"x{i}\"\nvc = \"v{i}\"\nfrom = \"h{i}\"\n{kind}\n"
        );
    }
    text
}

#[test]
fn a_drained_switch_of_many_inputs_gives_identical_results_under_every_mode_and_tie_order() {
    // `s1` has 22 inputs: drained through its inputs' next arrivals (`atm::fabric::due`),
    // one of them from `s2` (a ring), contention at the trunk, probes every 7 ms.
    let text = wide_ring(20);
    let (a, b) = assert_batching_invariant(&text);
    assert_conserved(&a.summary);
    let steps = |o: &RunOutput| o.summary["run"]["events"].as_u64().unwrap() as f64;
    let hops = a.summary["run"]["cell_hops"].as_u64().unwrap() as f64;
    assert!(steps(&b) / hops > 1.0, "event by event: {} steps per cell-hop", steps(&b) / hops);
    assert!(steps(&a) / hops < 0.3, "drained: {} steps per cell-hop", steps(&a) / hops);
    assert_tie_order_invariant(&text, &a);
}

/// `text` run under the engine's tie orders lifo and random gives `fifo`'s results (its
/// default, `a`), summary and series.
fn assert_tie_order_invariant(text: &str, a: &RunOutput) {
    let results = |r: &RunOutput| {
        let mut s = deterministic_part(&r.summary);
        s.as_object_mut().unwrap().remove("tie_order");
        s
    };
    for order in ["lifo", "random"] {
        let t = text.replacen("[simulation]\n", &format!("[simulation]\ntie_order = \"{order}\"\n"), 1);
        let r = run_text(&t, RunOptions::default());
        assert_eq!(results(&r), results(a), "tie order {order}");
        assert_eq!(r.series, a.series, "tie order {order}");
    }
}

/// A TCP dumbbell (the ns-3 comparison's shape, `benches/vs_ns3`): `n` bulk senders on their
/// own access links into `left`, a bottleneck of the access rate to `right`, and `right`'s
/// port to the sink at that rate too, so the bottleneck's cells, one VC after another, reach
/// an idle port there one at a time. Samples every 50 ms.
fn tcp_dumbbell(n: usize, buffer_cells: u32) -> String {
    let mut text = format!(
        "[simulation]\nduration_s = 4.0\nseed = 3\nsample_interval_ms = 50\n\
         [[host]]\nname = \"dst\"\n\
         [[switch]]\nname = \"left\"\nbuffer_cells = {buffer_cells}\n\
         [[switch]]\nname = \"right\"\nbuffer_cells = {buffer_cells}\n\
         [[link]]\na = \"left\"\nb = \"right\"\nrate_bps = 1500000\ndelay_ms = 7.5\n\
         [[link]]\na = \"right\"\nb = \"dst\"\nrate_bps = 1500000\ndelay_ms = 0.0\n"
    );
    for i in 0..n {
        text += &format!(
            "[[host]]\nname = \"src{i}\"\n\
             [[link]]\na = \"src{i}\"\nb = \"left\"\nrate_bps = 1500000\ndelay_ms = {delay}\n\
             [[vc]]\nname = \"vc{i}\"\npath = [\"src{i}\", \"left\", \"right\", \"dst\"]\n\
             [[tcp]]\nname = \"tcp{i}\"\nclient = \"src{i}\"\nserver = \"dst\"\nvc = \"vc{i}\"\n\
             mss_bytes = 512\nwindow_bytes = 8192\n[tcp.app]\nkind = \"bulk\"\n",
            delay = 0.25 * i as f64
        );
    }
    text
}

#[test]
fn a_far_switch_passing_one_vc_after_another_through_an_idle_port_gives_identical_results() {
    // `right` passes the bottleneck's interleaved VCs to the sink's idle port cell by cell
    // (`atm::fabric::drained`, "Cells through idle ports"); with a small buffer at `left`
    // the senders lose cells and recover; with one of every window (6 × 16 segments × 12
    // cells) nothing is lost.
    for buffer in [96, 1200] {
        let text = tcp_dumbbell(6, buffer);
        let (a, _) = assert_batching_invariant(&text);
        assert_conserved(&a.summary);
        let conns = a.summary["connections"].as_array().unwrap();
        let read: u64 = conns.iter().map(|c| c["bytes_read"].as_u64().unwrap()).sum();
        assert!(read > 200_000, "buffer {buffer}: {read} bytes read");
        let rexmt: u64 = conns.iter().map(|c| c["rexmt_segs"].as_u64().unwrap()).sum();
        assert_eq!(rexmt > 0, buffer < 100, "buffer {buffer}: {rexmt} segments retransmitted");
        assert_tie_order_invariant(&text, &a);
    }
}
