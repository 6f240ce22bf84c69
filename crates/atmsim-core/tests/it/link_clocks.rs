//! Plesiochronous link clocks (`[[link]] clock_ppm`, `simulation.link_clock_ppm`): a link
//! runs at its nominal rate × (1 + ppm·10⁻⁶), and free-running clocks end the exact lock step
//! that equal rates produce at a full buffer (Koçyiğit, Fig. 2 setting).

use super::common::*;
use atmsim_core::api::RunOptions;

fn direct(clock: &str) -> String {
    format!(
        r#"
[simulation]
duration_s = 1.0
sample_interval_ms = 0
[[host]]
name = "a"
[[host]]
name = "b"
[[link]]
a = "a"
b = "b"
preset = "oc3c"
delay_ms = 0.5
{clock}
[[vc]]
name = "v"
path = ["a", "b"]
[[cell_source]]
name = "g"
vc = "v"
from = "a"
kind = "greedy"
"#
    )
}

#[test]
fn a_link_with_a_clock_offset_carries_cells_at_the_offset_rate() {
    let nominal = run_text(&direct(""), RunOptions::default()).summary;
    let fast = run_text(&direct("clock_ppm = 1000.0"), RunOptions::default()).summary;
    let slow = run_text(&direct("clock_ppm = -250.0"), RunOptions::default()).summary;
    let cells = |s: &serde_json::Value| s["ports"][0]["cells_tx"].as_f64().unwrap();
    let rate = |s: &serde_json::Value| s["ports"][0]["rate_bps"].as_f64().unwrap();
    assert_eq!(rate(&nominal), 149.76e6);
    assert_eq!(rate(&fast), (149.76e6 * 1.001f64).round());
    assert_eq!(rate(&slow), (149.76e6 * 0.99975f64).round());
    // One second of back-to-back cells: 353,207.5 nominal; the count follows the clock.
    for (s, factor) in [(&fast, 1.001), (&slow, 0.99975)] {
        let ratio = cells(s) / cells(&nominal);
        assert!((ratio - factor).abs() < 1e-5, "{ratio} vs {factor}");
        assert_conserved(s);
    }
}

/// Two greedy sources on their own OC-3c links (clock offsets `ppm1`, `ppm2`) into one
/// OC-3c port with a 100-cell buffer; other links drawn within ±`spread_ppm`.
pub(crate) fn two_greedy(spread_ppm: f64, ppm1: f64, ppm2: f64) -> String {
    format!(
        r#"
[simulation]
duration_s = 2.0
warmup_s = 0.5
sample_interval_ms = 0
link_clock_ppm = {spread_ppm}
[[host]]
name = "a1"
[[host]]
name = "a2"
[[host]]
name = "b"
[[switch]]
name = "sw"
buffer_cells = 100
[[link]]
a = "a1"
b = "sw"
preset = "oc3c"
delay_ms = 0.1
clock_ppm = {ppm1}
[[link]]
a = "a2"
b = "sw"
preset = "oc3c"
delay_ms = 0.1
clock_ppm = {ppm2}
[[link]]
a = "sw"
b = "b"
preset = "oc3c"
delay_ms = 0.1
[[vc]]
name = "v1"
path = ["a1", "sw", "b"]
[[vc]]
name = "v2"
path = ["a2", "sw", "b"]
[[cell_source]]
name = "g1"
vc = "v1"
from = "a1"
kind = "greedy"
[[cell_source]]
name = "g2"
vc = "v2"
from = "a2"
kind = "greedy"
"#
    )
}

fn shares(text: &str, seed: u64) -> Vec<f64> {
    let s = run_text(text, RunOptions { seed: Some(seed), ..Default::default() }).summary;
    assert_conserved(&s);
    let g: Vec<f64> = s["sources"].as_array().unwrap().iter().map(|x| x["goodput_bps"].as_f64().unwrap()).collect();
    let total: f64 = g.iter().sum();
    g.iter().map(|x| x / total).collect()
}

#[test]
fn free_clocks_share_the_port() {
    // In exact lock step the two sources' cells reach the port at the same instants and the
    // port's arbiter alternates between them (tests/it/simultaneous_events.rs). With clocks
    // 20 ppm apart nothing is simultaneous: the relative phase sweeps a cell time every
    // 1/(20e-6 · 353,208 cells/s) = 0.14 s, each source is first after a departure half of the
    // time, and the two share the port about equally over the 1.5 s window.
    for (seed, p1, p2) in [(1, 10.0, -10.0), (2, -10.0, 10.0), (3, 5.0, 25.0)] {
        let free = shares(&two_greedy(0.0, p1, p2), seed);
        assert!(free.iter().all(|&x| (x - 0.5).abs() < 0.1), "seed {seed}: {free:?}");
    }
}

#[test]
fn clock_draws_are_deterministic_per_seed() {
    let text = two_greedy(50.0, 0.0, 0.0).replace("clock_ppm = 0\n", "").replace("clock_ppm = 0.0\n", "");
    let a = run_text(&text, RunOptions { seed: Some(7), ..Default::default() }).summary;
    let b = run_text(&text, RunOptions { seed: Some(7), ..Default::default() }).summary;
    assert_eq!(a["ports"], b["ports"]);
    assert_eq!(a["sources"], b["sources"]);
    let rates: Vec<f64> = a["ports"].as_array().unwrap().iter().map(|p| p["rate_bps"].as_f64().unwrap()).collect();
    assert!(rates.iter().all(|r| (r / 149.76e6 - 1.0).abs() <= 50e-6), "{rates:?}");
    assert!(rates.windows(2).any(|w| w[0] != w[1]), "{rates:?}");
}
