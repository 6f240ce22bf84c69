//! Whole-scenario throughput: kernel events per second and cell-hops per second.
//!
//! Runs the three benchmark scenarios of `scenarios/bench/` several times in this
//! process, on one core, and prints the best and median wall time with the derived rates:
//!
//! - (a) MAGIC Experiment 1, 128 KB window, 60 simulated seconds;
//! - (b) 64 greedy VCs through one round-robin OC-3c port, 20 simulated seconds;
//! - (c) the two-hop FIFO multiplexer (two greedy and two on/off sources into one
//!   FIFO OC-3c switch port with a 1000-cell buffer), 10 simulated seconds.
//!
//! The last column is the process's peak resident memory so far (VmHWM, Linux).
//!
//! "events" counts every event the model executes: those popped from the queue plus the
//! steps batching took inline (the same number with batching off). Run with
//! `cargo bench -p atmsim-core --bench throughput` (or `make bench`); pass `--quick` after
//! `--` for one repetition, and a word (`rr64`, `magic`) to run only matching scenarios.

use atmsim_core::api::{self, Format, RunOptions};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    let quick = std::env::args().any(|a| a == "--quick");
    let reps = if quick { 1 } else { 5 };
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    println!(
        "{:<28} {:>9} {:>9} {:>12} {:>12} {:>14} {:>14} {:>10}",
        "scenario", "best_s", "median_s", "events", "cell_hops", "events/s", "cell_hops/s", "peak_MiB"
    );
    for (label, rel) in [
        ("(a) magic 128KB 60s", "scenarios/bench/magic_w128k_60s.toml"),
        ("(b) rr64 oc3c 20s", "scenarios/bench/rr64.toml"),
        ("(c) mux fifo 10s", "scenarios/bench/mux_fifo.toml"),
    ] {
        if !args.is_empty() && !args.iter().any(|a| label.contains(a.as_str()) || rel.contains(a.as_str())) {
            continue;
        }
        let text = std::fs::read_to_string(root.join(rel)).expect("bench scenario");
        let mut walls = Vec::new();
        let mut last = None;
        for _ in 0..reps {
            let t = Instant::now();
            let out = api::run_str(&text, Format::Toml, rel, RunOptions::default(), &mut |_| {
                std::ops::ControlFlow::Continue(())
            })
            .expect("bench run");
            walls.push(t.elapsed().as_secs_f64());
            last = Some(out.summary);
        }
        walls.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let s = last.unwrap();
        let events = s["run"]["events"].as_u64().unwrap();
        let hops = s["run"]["cell_hops"].as_u64().unwrap();
        let best = walls[0];
        let median = walls[walls.len() / 2];
        println!(
            "{label:<28} {best:>9.3} {median:>9.3} {events:>12} {hops:>12} {:>14.3e} {:>14.3e} {:>10}",
            events as f64 / best,
            hops as f64 / best,
            peak_mib().map_or("—".to_string(), |m| format!("{m:.1}"))
        );
    }
}

/// Peak resident memory of this process so far [MiB] (VmHWM in /proc/self/status; Linux only).
fn peak_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}
