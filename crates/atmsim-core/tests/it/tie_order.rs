//! The order of simultaneous events (`simulation.tie_order`): a sensitivity check. In exact
//! lock step (equal rates, equal clocks) the convention alone decides which cell takes a
//! freed buffer place, so it decides the outcome; with free-running clocks nothing happens at
//! the same instant at a port and the three orders give the same goodputs.

use crate::common::{assert_batching_invariant, assert_conserved, run_text};
use crate::link_clocks::two_greedy;
use atmsim_core::api::RunOptions;

fn with_ties(text: &str, ties: &str) -> String {
    text.replacen("[simulation]\n", &format!("[simulation]\ntie_order = \"{ties}\"\n"), 1)
}

fn goodputs(text: &str, seed: u64) -> (Vec<f64>, serde_json::Value) {
    let s = run_text(text, RunOptions { seed: Some(seed), ..Default::default() }).summary;
    assert_conserved(&s);
    let g = s["sources"].as_array().unwrap().iter().map(|x| x["goodput_bps"].as_f64().unwrap()).collect();
    (g, s)
}

#[test]
fn in_lock_step_the_tie_order_decides_the_lock_out() {
    let locked = two_greedy(0.0, 0.0, 0.0);
    let (fifo, s) = goodputs(&locked, 1);
    assert!(s.get("tie_order").is_none(), "the default is not recorded");
    // Scheduling order: the same source is first after every departure and takes every
    // freed place (documented lock-out, docs/scenario.md "Link clocks").
    let winner = fifo.iter().cloned().fold(0.0, f64::max);
    assert!(winner > 130e6 && fifo.contains(&0.0), "{fifo:?}");
    // Other conventions spread the losses over both VCs' frames: AAL5 frames of 192 cells
    // with cells missing carry nothing, and the port's whole capacity is wasted.
    for ties in ["lifo", "random"] {
        let (g, s) = goodputs(&with_ties(&locked, ties), 1);
        assert_eq!(s["tie_order"], ties);
        assert!(g.iter().all(|&x| x < 0.01 * winner), "{ties}: {g:?}");
        assert!(s["ports"].as_array().unwrap().iter().any(|p| p["drop_tail"].as_u64().unwrap() > 0));
    }
}

#[test]
fn with_free_clocks_the_tie_order_changes_nothing_here() {
    let free = two_greedy(0.0, 10.0, -10.0);
    let (fifo, _) = goodputs(&free, 1);
    for ties in ["lifo", "random"] {
        assert_eq!(goodputs(&with_ties(&free, ties), 1).0, fifo, "{ties}");
    }
}

#[test]
fn random_ties_are_reproducible_per_seed_and_batching_stays_exact() {
    let locked = with_ties(&two_greedy(0.0, 0.0, 0.0), "random");
    let a = run_text(&locked, RunOptions { seed: Some(3), ..Default::default() }).summary;
    let b = run_text(&locked, RunOptions { seed: Some(3), ..Default::default() }).summary;
    assert_eq!(a["ports"], b["ports"]);
    assert_eq!(a["sources"], b["sources"]);
    let c = run_text(&locked, RunOptions { seed: Some(4), ..Default::default() }).summary;
    assert_ne!(a["ports"], c["ports"], "another seed, another permutation");
    for ties in ["lifo", "random"] {
        assert_batching_invariant(&with_ties(&two_greedy(0.0, 0.0, 0.0), ties));
    }
}
