//! Results stay bit-identical across changes to the engine: every shipped scenario, run for
//! at most one simulated second, gives the digest recorded before the change
//! (`results_digests.txt`), with batching on and off, and under every engine tie order
//! (`simulation.tie_order` fifo, lifo, random: DESIGN §2b, the model orders simultaneous
//! events, not the engine).
//!
//! The digest is FNV-1a over the whole summary (connections, ports, ledgers, ...) without its
//! wall-clock `run` section ([`atmsim_core::api::results_digest`]). A change meant to alter
//! results regenerates the file (its header says how) and says so in its commit; any other
//! difference is a bug. One second covers every mechanism a scenario exercises (hand-shakes,
//! slow start, losses and recoveries, signalling setups) at a cost of about 3 s for all of them.

use atmsim_core::api::capped_digest_with_ties;
use atmsim_core::scenario::model::TieOrderSpec;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn recorded() -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/results_digests.txt"))
        .expect("results_digests.txt");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let (path, digest) = l.split_once(' ').expect("`path digest` lines");
            (path.to_string(), digest.trim().to_string())
        })
        .collect()
}

fn shipped() -> Vec<String> {
    let mut out = Vec::new();
    for dir in std::fs::read_dir(repo().join("scenarios")).expect("scenarios/") {
        let dir = dir.unwrap().path();
        if !dir.is_dir() {
            continue;
        }
        for f in std::fs::read_dir(&dir).unwrap() {
            let f = f.unwrap().path();
            if f.extension().is_some_and(|e| e == "toml") {
                let rel = f.strip_prefix(repo()).unwrap().to_string_lossy().replace('\\', "/");
                out.push(rel);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn every_shipped_scenario_has_a_recorded_digest() {
    let rec = recorded();
    let files = shipped();
    let missing: Vec<_> = files.iter().filter(|f| !rec.contains_key(*f)).collect();
    let stale: Vec<_> = rec.keys().filter(|k| !files.contains(k)).collect();
    assert!(missing.is_empty() && stale.is_empty(), "not recorded: {missing:?}; no longer shipped: {stale:?}");
}

/// Batching on and off under FIFO ties, and batching on under LIFO and random ties.
const VARIANTS: [(bool, TieOrderSpec); 4] =
    [(true, TieOrderSpec::Fifo), (false, TieOrderSpec::Fifo), (true, TieOrderSpec::Lifo), (true, TieOrderSpec::Random)];

#[test]
fn shipped_scenarios_give_the_recorded_results_under_every_batching_mode_and_tie_order() {
    let rec = recorded();
    let mut differ = Vec::new();
    for f in shipped() {
        let Some(want) = rec.get(&f) else { continue };
        let text = std::fs::read_to_string(repo().join(&f)).unwrap();
        for (batching, ties) in VARIANTS {
            let got = capped_digest_with_ties(&text, &f, 1.0, Some(batching), Some(ties))
                .unwrap_or_else(|e| panic!("{f}: {e}"));
            if &got != want {
                differ.push(format!("{f} (batching {batching}, ties {ties:?}): {got} != {want}"));
            }
        }
    }
    assert!(differ.is_empty(), "results changed:\n{}", differ.join("\n"));
}
