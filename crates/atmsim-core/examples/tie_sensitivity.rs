//! Checks that results do not depend on the engine's order of simultaneous events
//! (`simulation.tie_order`; DESIGN §2b, kernel module docs): runs every file given with the
//! default FIFO ties, last-in-first-out ties and random ties (seeds 1 and 2 of the
//! permutation), each capped at `--cap-s` simulated seconds (default 5), and prints per file
//! whether the results digest changed (it must not) and the delivered cells, cell drops and
//! summed goodput (connections and cell sources), next to a control that does change them:
//! the same file under FIFO ties with seed + 1 ("random seed+1" changes the seed too).
//!
//! `cargo run --release -p atmsim-core --example tie_sensitivity -- [--cap-s 5] scenarios/**/*.toml`
use atmsim_core::api::{self, Format, RunOptions};
use serde_json::Value;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut cap = 5.0f64;
    let mut files = Vec::new();
    let mut i = 0;
    while i < args.len() {
        if args[i] == "--cap-s" {
            cap = args[i + 1].parse().expect("--cap-s SECONDS");
            i += 2;
        } else {
            files.push(args[i].clone());
            i += 1;
        }
    }
    println!("file\tvariant\tsame_digest\tdelivered_cells\tdropped_cells\tgoodput_mbps\tgoodput_vs_fifo");
    for f in files {
        let text = std::fs::read_to_string(&f).expect("read scenario");
        let base = match capped(&text, cap, None, 0) {
            Ok(s) => s,
            Err(e) => {
                println!("{f}\tERROR {e}");
                continue;
            }
        };
        let base_digest = api::results_digest(&base);
        let base_goodput = goodput(&base);
        let variants: [(&str, Option<&str>, u64); 5] = [
            ("fifo", None, 0),
            ("lifo", Some("lifo"), 0),
            ("random seed", Some("random"), 0),
            ("random seed+1", Some("random"), 1),
            ("control: fifo seed+1", None, 1),
        ];
        for (label, ties, dseed) in variants {
            let mut s = if label == "fifo" { base.clone() } else { capped(&text, cap, ties, dseed).expect("ran once") };
            // The tie order itself is recorded in the summary; compare the results only.
            if let Some(m) = s.as_object_mut() {
                m.remove("tie_order");
            }
            let g = goodput(&s);
            let cells = &s["conservation"]["cells"];
            let dropped: u64 = cells
                .as_object()
                .map(|m| m.iter().filter(|(k, _)| k.starts_with("dropped_")).filter_map(|(_, v)| v.as_u64()).sum())
                .unwrap_or(0);
            let rel = if base_goodput > 0.0 { format!("{:+.4}", g / base_goodput - 1.0) } else { "—".into() };
            println!(
                "{f}\t{label}\t{}\t{}\t{dropped}\t{:.3}\t{rel}",
                api::results_digest(&s) == base_digest,
                cells["delivered"],
                g / 1e6
            );
        }
    }
}

/// Run `text` capped at `cap` seconds with `ties` (None: FIFO) and the file's seed + `dseed`.
fn capped(text: &str, cap: f64, ties: Option<&str>, dseed: u64) -> atmsim_core::error::Result<Value> {
    let mut doc = atmsim_core::scenario::parse(text, Format::Toml, "<file>")?;
    if doc.simulation.duration_s > cap {
        doc.simulation.duration_s = cap;
        if doc.simulation.warmup_s >= cap {
            doc.simulation.warmup_s = cap / 2.0;
        }
    }
    doc.simulation.sample_interval_ms = Some(0.0);
    if let Some(t) = ties {
        doc.simulation.tie_order = match t {
            "lifo" => atmsim_core::scenario::model::TieOrderSpec::Lifo,
            _ => atmsim_core::scenario::model::TieOrderSpec::Random,
        };
    }
    let seed = doc.simulation.seed as u64 + dseed;
    let (_, s) = api::run_doc(&doc, RunOptions { seed: Some(seed), batching: None })?;
    Ok(s)
}

/// Summed goodput of the fixed connections and the cell sources [b/s].
fn goodput(s: &Value) -> f64 {
    let sum = |k: &str| -> f64 {
        s[k].as_array().map(|a| a.iter().filter_map(|x| x["goodput_bps"].as_f64()).sum()).unwrap_or(0.0)
    };
    sum("connections") + sum("sources")
}
