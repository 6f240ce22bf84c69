//! A receiver whose CPU spends a fixed time per segment and per byte caps TCP throughput at
//! MSS / (per-segment + MSS · per-byte) — the host limit of MAGIC §3.6 and §4.3; a random
//! extra time per segment, uniform on [0, J), adds J/2 to the mean (`ip::cpu`, "Timing
//! jitter").

use super::common::*;
use atmsim_core::api::RunOptions;

fn magic_with_cpu(per_segment_us: f64, per_byte_ns: f64) -> String {
    std::fs::read_to_string(repo_file("scenarios/magic95/table1_w128k.toml"))
        .unwrap()
        .replace("window_bytes = 131072", "window_bytes = 1048576")
        .replace("duration_s = 6.0", "duration_s = 4.0")
        .replace(
            "name = \"dec-remote\"",
            &format!(
                "name = \"dec-remote\"\nrx_cpu_per_segment_us = {per_segment_us}\nrx_cpu_per_byte_ns = {per_byte_ns}"
            ),
        )
}

#[test]
fn a_cpu_bound_receiver_caps_throughput_at_its_segment_rate() {
    for (seg_us, byte_ns) in [(1000.0, 0.0), (100.0, 100.0), (50.0, 20.0)] {
        let s = run_text(&magic_with_cpu(seg_us, byte_ns), RunOptions::default()).summary;
        let got = s["connections"][0]["goodput_bps"].as_f64().unwrap();
        let per_seg_s = seg_us * 1e-6 + 9140.0 * byte_ns * 1e-9;
        let cpu_limit = 9140.0 * 8.0 / per_seg_s;
        let link_limit = 149.76e6 * 9140.0 / (192.0 * 53.0);
        let expect = cpu_limit.min(link_limit);
        assert!((got - expect).abs() / expect < 0.02, "cpu {seg_us} us + {byte_ns} ns/B: {got} vs {expect}");
        let host = s["hosts"].as_array().unwrap().iter().find(|h| h["name"] == "dec-remote").unwrap();
        if cpu_limit < link_limit {
            assert!(host["cpu_utilization"].as_f64().unwrap() > 0.95, "{host}");
        }
        assert_conserved(&s);
    }
}

#[test]
fn no_cpu_costs_means_no_cpu_stage() {
    let s = run_text(&magic_with_cpu(0.0, 0.0), RunOptions::default()).summary;
    let host = s["hosts"].as_array().unwrap().iter().find(|h| h["name"] == "dec-remote").unwrap();
    assert!(host["cpu_utilization"].is_null());
}

#[test]
fn a_cpu_bound_sender_pays_for_its_segments_and_the_acks_it_receives() {
    // One CPU serves both directions: per data segment the sender spends its send cost plus
    // the receive cost of the ACKs for it (BSD ACKs every second segment).
    let (tx_us, rx_us) = (600.0, 400.0);
    let text = std::fs::read_to_string(repo_file("scenarios/magic95/table1_w128k.toml"))
        .unwrap()
        .replace("window_bytes = 131072", "window_bytes = 1048576")
        .replace("duration_s = 6.0", "duration_s = 4.0")
        .replace(
            "name = \"dec-lawrence\"",
            &format!("name = \"dec-lawrence\"\ntx_cpu_per_segment_us = {tx_us}\nrx_cpu_per_segment_us = {rx_us}"),
        );
    let s = run_text(&text, RunOptions::default()).summary;
    let c = &s["connections"][0];
    let acks_per_seg = c["acks_sent_by_receiver"].as_f64().unwrap() / c["data_segs_sent"].as_f64().unwrap();
    assert!((0.45..0.6).contains(&acks_per_seg), "{acks_per_seg}");
    let expect = 9140.0 * 8.0 / ((tx_us + rx_us * acks_per_seg) * 1e-6);
    let got = c["goodput_bps"].as_f64().unwrap();
    assert!((got - expect).abs() / expect < 0.02, "{got} vs {expect}");
    let host = s["hosts"].as_array().unwrap().iter().find(|h| h["name"] == "dec-lawrence").unwrap();
    assert!(host["cpu_utilization"].as_f64().unwrap() > 0.95, "{host}");
    let (rx, tx) = (host["cpu_rx_segments"].as_u64().unwrap(), host["cpu_tx_segments"].as_u64().unwrap());
    // Every sent segment goes through the CPU; at most a window's worth still waits there.
    let sent = c["segs_sent"].as_u64().unwrap();
    assert!(tx <= sent && sent - tx <= 1048576 / 9140 + 1, "{tx} of {sent}");
    assert!(rx > 0 && rx <= c["acks_sent_by_receiver"].as_u64().unwrap(), "{rx}");
    assert_conserved(&s);
}

fn receiver(extra: &str) -> String {
    magic_with_cpu(0.0, 0.0).replace("rx_cpu_per_segment_us = 0\nrx_cpu_per_byte_ns = 0", extra)
}

fn remote(s: &serde_json::Value) -> &serde_json::Value {
    s["hosts"].as_array().unwrap().iter().find(|h| h["name"] == "dec-remote").unwrap()
}

#[test]
fn cpu_jitter_adds_half_its_bound_to_the_mean_job() {
    // Uniform on [0, J): a CPU-bound receiver spends per-segment + J/2 on each data segment,
    // and J/2 on each ACK it sends (the jitter applies to both directions; its send cost is
    // otherwise zero).
    for (seg_us, jitter_us) in [(1000.0, 400.0), (300.0, 1000.0)] {
        let text = receiver(&format!("rx_cpu_per_segment_us = {seg_us}\ncpu_jitter_us = {jitter_us}"));
        let s = run_text(&text, RunOptions::default()).summary;
        let c = &s["connections"][0];
        let got = c["goodput_bps"].as_f64().unwrap();
        let acks_per_seg = c["acks_sent_by_receiver"].as_f64().unwrap() / c["data_segs_sent"].as_f64().unwrap();
        let per_seg_us = seg_us + jitter_us / 2.0 + acks_per_seg * jitter_us / 2.0;
        let expect = 9140.0 * 8.0 / (per_seg_us * 1e-6);
        assert!((got - expect).abs() / expect < 0.02, "{seg_us} us + U[0, {jitter_us}): {got} vs {expect}");
        assert!(remote(&s)["cpu_utilization"].as_f64().unwrap() > 0.95);
        assert_conserved(&s);
    }
}

#[test]
fn a_host_with_jitter_alone_has_a_cpu_whose_jobs_average_half_the_bound() {
    let jitter_us = 200.0;
    let s = run_text(&receiver(&format!("cpu_jitter_us = {jitter_us}")), RunOptions::default()).summary;
    let host = remote(&s);
    let jobs = (host["cpu_rx_segments"].as_u64().unwrap() + host["cpu_tx_segments"].as_u64().unwrap()) as f64;
    assert!(jobs > 1000.0, "{host}");
    // Its sent segments (the ACKs) go through the CPU too.
    assert!(host["cpu_tx_segments"].as_u64().unwrap() > 0, "{host}");
    let busy_s = host["cpu_utilization"].as_f64().unwrap() * s["duration_s"].as_f64().unwrap();
    let mean_us = busy_s / jobs * 1e6;
    assert!((mean_us - jitter_us / 2.0).abs() < 0.05 * jitter_us / 2.0, "mean job {mean_us} us");
    assert_conserved(&s);
}

#[test]
fn cpu_jitter_is_drawn_from_the_seed() {
    let text = receiver("rx_cpu_per_segment_us = 1000\ncpu_jitter_us = 400");
    let run = |seed| {
        let s = run_text(&text, RunOptions { seed: Some(seed), ..Default::default() }).summary;
        remote(&s)["cpu_utilization"].as_f64().unwrap().to_bits()
    };
    assert_eq!(run(1), run(1));
    assert_ne!(run(1), run(2));
}
