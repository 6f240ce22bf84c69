//! Shared helpers: load shipped scenarios, run them, read summaries.

use atmsim_core::api::{self, Format, RunOptions, RunOutput};
use std::path::PathBuf;

pub fn repo_file(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..").join(rel)
}

pub fn run_text(text: &str, opts: RunOptions) -> RunOutput {
    api::run_str(text, Format::Toml, "<test>", opts, &mut |_| std::ops::ControlFlow::Continue(()))
        .unwrap_or_else(|e| panic!("run failed: {e}"))
}

pub fn run_file(rel: &str, opts: RunOptions) -> RunOutput {
    let text = std::fs::read_to_string(repo_file(rel)).unwrap();
    api::run_str(&text, Format::Toml, rel, opts, &mut |_| std::ops::ControlFlow::Continue(()))
        .unwrap_or_else(|e| panic!("run failed: {e}"))
}

/// The summary with wall-clock fields removed (they differ between identical runs).
pub fn deterministic_part(s: &serde_json::Value) -> serde_json::Value {
    let mut s = s.clone();
    s.as_object_mut().unwrap().remove("run");
    s.as_object_mut().unwrap().remove("batching");
    s
}

/// Assert the conservation ledger balances.
pub fn assert_conserved(s: &serde_json::Value) {
    let c = &s["conservation"]["cells"];
    let dropped = [
        "dropped_tail",
        "dropped_ppd",
        "dropped_epd",
        "dropped_no_route",
        "dropped_clp1",
        "dropped_police",
        "dropped_reshape",
        "dropped_ctrl",
        "dropped_regulator",
    ]
    .iter()
    // (dropped_regulator is in the summary only when some port has RCSP regulators)
    .map(|k| c[k].as_u64().unwrap_or_else(|| if *k == "dropped_regulator" { 0 } else { panic!("{k}") }))
    .sum::<u64>();
    assert_eq!(
        c["injected"].as_u64().unwrap(),
        c["delivered"].as_u64().unwrap() + dropped + c["in_flight"].as_u64().unwrap(),
        "cells not conserved: {c}"
    );
    let f = &s["conservation"]["frames"];
    assert_eq!(
        f["sent"].as_u64().unwrap(),
        ["delivered", "discarded", "lost", "in_flight"].iter().map(|k| f[k].as_u64().unwrap()).sum::<u64>(),
        "frames not conserved: {f}"
    );
    let d = &s["conservation"]["datagrams"];
    assert_eq!(
        d["sent"].as_u64().unwrap(),
        ["delivered", "refused_at_adapter", "lost_in_fabric", "no_route", "dropped_at_line", "no_vc", "in_flight"]
            .iter()
            .map(|k| d[k].as_u64().unwrap())
            .sum::<u64>(),
        "datagrams not conserved: {d}"
    );
    // Every frame carries one datagram or one signalling message: frames lost or discarded
    // lose theirs.
    let sig = &s["signalling"]["messages"];
    let sig_lost = sig["lost"].as_u64().unwrap_or(0);
    assert_eq!(
        d["lost_in_fabric"].as_u64().unwrap() + sig_lost,
        f["discarded"].as_u64().unwrap() + f["lost"].as_u64().unwrap(),
        "{d} vs {f}"
    );
    if !sig.is_null() {
        assert_eq!(sig["balanced"], true, "signalling messages not conserved: {sig}");
    }
}

pub fn batching(on: bool) -> RunOptions {
    RunOptions { batching: Some(on), ..Default::default() }
}

pub fn seed(s: u64) -> RunOptions {
    RunOptions { seed: Some(s), ..Default::default() }
}

/// Run `text` with batching on and off, assert identical summaries and series, and return
/// both outputs (batched first).
pub fn assert_batching_invariant(text: &str) -> (RunOutput, RunOutput) {
    let a = run_text(text, batching(true));
    let b = run_text(text, batching(false));
    assert_eq!(deterministic_part(&a.summary), deterministic_part(&b.summary));
    assert_eq!(a.series, b.series);
    (a, b)
}
