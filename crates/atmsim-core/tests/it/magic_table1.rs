//! Golden test: MAGIC Experiment 1 (Ewy et al. 1995, §3.1, Table 1) — TCP throughput over an
//! 8.8 ms round trip is bounded by the window, B = W/T (their Eq. 1), until the OC-3c
//! user-level limit (≈134 Mb/s, §2.2).

use crate::common::*;
use atmsim_core::api::RunOptions;

/// Table 1 as published: (window bytes, throughput Mb/s).
const TABLE1: [(&str, f64, f64); 9] = [
    ("0.5k", 512.0, 0.47),
    ("1k", 1024.0, 0.93),
    ("2k", 2048.0, 1.8),
    ("4k", 4096.0, 3.7),
    ("8k", 8192.0, 7.4),
    ("16k", 16384.0, 14.9),
    ("32k", 32768.0, 29.8),
    ("64k", 65536.0, 59.6),
    ("128k", 131072.0, 119.0),
];

/// OC-3c user-level limit: 149.76 Mb/s of cells, 9140 TCP bytes per 192-cell datagram.
fn oc3c_user_limit_bps() -> f64 {
    149.76e6 * 9140.0 / (192.0 * 53.0)
}

#[test]
fn oc3c_user_level_limit_is_near_134_mbps() {
    let l = oc3c_user_limit_bps();
    assert!((l - 134e6).abs() / 134e6 < 0.01, "{l}");
}

#[test]
fn throughput_follows_w_over_t_for_every_window_in_table1() {
    let t = 8.8e-3;
    for (name, w, paper_mbps) in TABLE1 {
        let out = run_file(&format!("scenarios/magic95/table1_w{name}.toml"), RunOptions::default());
        let s = &out.summary;
        assert_conserved(s);
        let c = &s["connections"][0];
        let got = c["goodput_bps"].as_f64().unwrap();
        let bound = (w * 8.0 / t).min(oc3c_user_limit_bps());
        let err_bound = (got - bound) / bound;
        let err_paper = (got - paper_mbps * 1e6) / (paper_mbps * 1e6);
        println!("window {name:>5}: {:8.3} Mb/s  W/T {:8.3}  paper {paper_mbps:7.2}  ({:+.1}% vs W/T, {:+.1}% vs paper)",
            got / 1e6, bound / 1e6, 100.0 * err_bound, 100.0 * err_paper);
        assert!(err_bound.abs() < 0.05, "window {name}: {got} vs W/T {bound}");
        assert!(err_paper.abs() < 0.05, "window {name}: {got} vs paper {paper_mbps} Mb/s");
        // No losses on this uncongested path.
        assert_eq!(c["rexmt_segs"].as_u64().unwrap(), 0, "window {name}");
    }
}

#[test]
fn a_window_beyond_the_bandwidth_delay_product_reaches_the_oc3c_limit() {
    let text = std::fs::read_to_string(repo_file("scenarios/magic95/table1_w128k.toml"))
        .unwrap()
        .replace("window_bytes = 131072", "window_bytes = 1048576")
        .replace("duration_s = 6.0", "duration_s = 4.0");
    let out = run_text(&text, RunOptions::default());
    let got = out.summary["connections"][0]["goodput_bps"].as_f64().unwrap();
    let limit = oc3c_user_limit_bps();
    assert!(got <= limit * 1.0001 && got > 0.97 * limit, "{got} vs {limit}");
}
