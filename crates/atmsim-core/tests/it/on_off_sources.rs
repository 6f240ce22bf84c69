//! On/off cell sources (`kind = "onoff"`): bursts at the link rate, geometric off periods.
//! Alone on its link a source offers exactly its load in the long run,
//! E[B] / (E[B] + E[off]) = ρ, with fixed bursts of exactly B cells or truncated-geometric
//! bursts of mean E[B].

use super::common::*;
use atmsim_core::api::{Format, RunOptions};

fn scenario(kind_fields: &str, duration_s: f64) -> String {
    format!(
        r#"
[simulation]
duration_s = {duration_s}
sample_interval_ms = 0
[[host]]
name = "src"
[[host]]
name = "sink"
[[switch]]
name = "sw"
[[link]]
a = "src"
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
path = ["src", "sw", "sink"]
[[cell_source]]
name = "onoff"
vc = "v"
from = "src"
kind = "onoff"
{kind_fields}
"#
    )
}

fn offered_and_mean_burst(s: &serde_json::Value) -> (f64, f64) {
    let src = &s["sources"][0];
    let cells = src["cells_sent"].as_f64().unwrap();
    (src["offered_cell_bps"].as_f64().unwrap(), cells / src["frames_sent"].as_f64().unwrap())
}

#[test]
fn fixed_bursts_offer_their_load_in_bursts_of_exactly_b_cells() {
    let link = 149.76e6;
    for (load, b, duration) in [(30e6, 50, 60.0), (120e6, 1, 60.0), (5e6, 1365, 1200.0)] {
        let text = scenario(&format!("load_bps = {load}\nmean_cells = {b}\nburst = \"fixed\""), duration);
        let s = run_text(&text, RunOptions::default()).summary;
        let (offered, mean) = offered_and_mean_burst(&s);
        assert_eq!(mean, b as f64, "every burst has exactly {b} cells");
        // n on/off cycles; the geometric off periods (sd ≈ mean) dominate the spread of the
        // load measured over n cycles: relative sd ≈ (1 − ρ)/√n. Allow four of them.
        let n = duration * load / (424.0 * b as f64);
        let tol = 4.0 * (1.0 - load / link) / n.sqrt() + 0.002;
        assert!((offered - load).abs() / load < tol, "load {load}, b {b}: offered {offered} (tolerance {tol})");
        assert_conserved(&s);
    }
}

#[test]
fn geometric_bursts_have_their_mean_and_the_source_its_load() {
    let text = scenario("load_bps = 75e6\nmean_cells = 25\nmax_cells = 200", 60.0);
    let s = run_text(&text, RunOptions::default()).summary;
    let (offered, mean) = offered_and_mean_burst(&s);
    assert!((mean - 25.0).abs() / 25.0 < 0.02, "mean burst {mean}");
    assert!((offered - 75e6).abs() / 75e6 < 0.01, "offered {offered}");
    assert_conserved(&s);
    assert_batching_invariant(&text);
    // Another seed draws other bursts.
    let other = run_text(&text, seed(2)).summary;
    assert_ne!(other["sources"][0]["cells_sent"], s["sources"][0]["cells_sent"]);
}

#[test]
fn a_burst_leaves_back_to_back_at_the_link_rate() {
    // At 99 % load with 200-cell bursts the mean off period is 2 cell slots: the adapter's
    // port is busy 99 % of the time, which only bursts sent at the link rate allow.
    let text = scenario(&format!("load_bps = {}\nmean_cells = 200\nburst = \"fixed\"", 0.99 * 149.76e6), 10.0);
    let s = run_text(&text, RunOptions::default()).summary;
    let (offered, _) = offered_and_mean_burst(&s);
    assert!((offered / 149.76e6 - 0.99).abs() < 0.005, "offered {offered}");
}

#[test]
fn on_off_fields_are_checked() {
    for (fields, field, expect) in [
        ("load_bps = 1e6", "cell_source[0].mean_cells", "no default"),
        ("load_bps = 1e6\nmean_cells = 2.5\nburst = \"fixed\"", "cell_source[0].mean_cells", "whole number"),
        (
            "load_bps = 1e6\nmean_cells = 10\nburst = \"fixed\"\nmax_cells = 20",
            "cell_source[0].max_cells",
            "only meaningful",
        ),
        ("load_bps = 1e6\nmean_cells = 101\nmax_cells = 200", "cell_source[0].mean_cells", "below (max_cells + 1) / 2"),
        ("load_bps = 1e9\nmean_cells = 10", "cell_source[0].load_bps", "rate of `src`'s link"),
        ("mean_cells = 10", "cell_source[0].load_bps", "offered load"),
        ("load_bps = 1e6\nmean_cells = 10\nframe_bytes = 100", "cell_source[0].frame_bytes", "only meaningful"),
    ] {
        let e = atmsim_core::api::validate_str(&scenario(fields, 1.0), Format::Toml, "onoff.toml")
            .err()
            .unwrap_or_else(|| panic!("{fields:?} was accepted"));
        assert_eq!(e.file, "onoff.toml");
        assert_eq!(e.field, field, "{fields:?}: {e}");
        assert!(e.message.contains(expect), "{fields:?}: {:?} lacks {expect:?}", e.message);
    }
}
