//! Every number that becomes a time or a rate is checked against the time range and the
//! physics; tables must be tables; names and nesting are bounded; a run hands control back
//! to its caller regularly (scenario::limits, scenario::table, Network::run).

use atmsim_core::api::{self, validate_str, Format, RunOptions};
use atmsim_core::ErrorKind;
use std::ops::ControlFlow;

fn magic() -> String {
    std::fs::read_to_string(super::common::repo_file("scenarios/magic95/table1_w128k.toml")).unwrap()
}

fn greedy() -> String {
    std::fs::read_to_string(super::common::repo_file("scenarios/examples/greedy_rr.toml")).unwrap()
}

fn refused(text: &str, field: &str, expect: &str) {
    let e = validate_str(text, Format::Toml, "bad.toml").expect_err(field);
    assert_eq!(e.file, "bad.toml");
    assert_eq!(e.field, field, "{e}");
    assert!(e.message.contains(expect), "message {:?} lacks {expect:?}", e.message);
    assert!(!e.message.contains('\n'), "{e}");
    assert!(e.message.len() < 400, "{} bytes", e.message.len());
}

fn edit(text: &str, from: &str, to: &str) -> String {
    assert!(text.contains(from), "fixture lacks {from:?}");
    text.replacen(from, to, 1)
}

#[test]
fn time_valued_fields_beyond_the_range_are_refused_with_the_limit() {
    let m = magic();
    let cases = [
        ("delay_ms = 2.2", "delay_ms = 1e300", "link[0].delay_ms", "between 0 and 1e7 ms"),
        ("duration_s = 6.0", "duration_s = 1e12", "simulation.duration_s", "between 1e-6 and 1e7"),
        ("duration_s = 6.0", "duration_s = 1e-12", "simulation.duration_s", "between 1e-6 and 1e7"),
        ("warmup_s = 1.0", "warmup_s = 1e300", "simulation.warmup_s", "between 0 and 1e7 s"),
        ("window_bytes = 131072", "window_bytes = 131072\nstart_s = 1e20", "tcp[0].start_s", "between 0 and 1e7 s"),
    ];
    for (from, to, field, expect) in cases {
        refused(&edit(&m, from, to), field, expect);
    }
    let host = "name = \"dec-lawrence\"";
    refused(
        &edit(&m, host, &format!("{host}\nrx_cpu_per_segment_us = 1e300")),
        "host[0].rx_cpu_per_segment_us",
        "between 0 and 1e7 µs",
    );
    refused(
        &edit(&m, host, &format!("{host}\ntx_cpu_per_byte_ns = 1e300")),
        "host[0].tx_cpu_per_byte_ns",
        "between 0 and",
    );
    refused(&edit(&m, host, &format!("{host}\ncpu_jitter_us = -1")), "host[0].cpu_jitter_us", "between 0 and 1e7 µs");
    // Each term in range, but a largest segment would take more than 10 s.
    refused(
        &edit(&m, host, &format!("{host}\nrx_cpu_per_segment_us = 9e6\nrx_cpu_per_byte_ns = 150000")),
        "host[0].rx_cpu_per_byte_ns",
        "per segment + per byte × MTU 9180",
    );
    refused(
        &edit(&m, host, &format!("{host}\nrx_cpu_per_segment_us = 6e6\ncpu_jitter_us = 6e6")),
        "host[0].rx_cpu_per_byte_ns",
        "+ cpu_jitter_us",
    );
    refused(
        &edit(&m, "[[vc]]\nname = \"pvc\"", "[[vc]]\nname = \"pvc\"\nshape = { rate_bps = 1e6, tau_us = 1e300 }"),
        "vc[0].shape.tau_us",
        "between 0 and 1e9 µs",
    );
}

#[test]
fn the_largest_valid_values_run_and_end_on_time() {
    // The longest delay, a long CPU job and a large tau at once: the run still ends at its
    // duration, nothing wraps round to an early instant, and the ledger balances.
    let m = edit(&magic(), "delay_ms = 2.2", "delay_ms = 1e7");
    let m = edit(&m, "name = \"dec-lawrence\"", "name = \"dec-lawrence\"\nrx_cpu_per_segment_us = 1e7");
    let out = super::common::run_text(&m, RunOptions::default());
    super::common::assert_conserved(&out.summary);
    let c = &out.summary["connections"][0];
    // Nothing arrives within the run: the link delay alone is 10,000 s.
    assert_eq!(c["bytes_read"], 0, "{c}");
    assert_eq!(out.summary["duration_s"], 6.0);
}

#[test]
fn zero_progress_and_runaway_inputs_are_refused() {
    let m = magic();
    refused(
        &edit(&m, "sample_interval_ms = 10", "sample_interval_ms = 1e-10"),
        "simulation.sample_interval_ms",
        "at least 1 µs",
    );
    // Fewer than a million samples per run.
    refused(
        &edit(&m, "sample_interval_ms = 10", "sample_interval_ms = 0.001"),
        "simulation.sample_interval_ms",
        "at most 1e6 samples",
    );
    let g = greedy();
    let poisson = |load: &str| {
        edit(
            &g,
            "kind = \"greedy\"\n[[cell_source]]\nname = \"gb\"",
            &format!("kind = \"poisson\"\nload_bps = {load}\n[[cell_source]]\nname = \"gb\""),
        )
    };
    for load in ["1e20", "5e-324", "1e15", "nan", "inf", "149760001"] {
        refused(&poisson(load), "cell_source[0].load_bps", "and the rate of `a`'s link (1.4976e8 b/s)");
    }
    validate_str(&poisson("149760000"), Format::Toml, "ok.toml").unwrap();
    for rate in ["1e13", "423", "-1"] {
        refused(&edit(&g, "preset = \"oc3c\"", &format!("rate_bps = {rate}")), "link[0].rate_bps", "and 1e12 b/s");
    }
}

#[test]
fn a_short_run_takes_at_least_microsecond_samples() {
    // duration 1 µs with the default interval (duration / 500 would be 2 ns): one probe.
    let g = edit(&greedy(), "duration_s = 0.5\nwarmup_s = 0.1", "duration_s = 1e-6");
    let out = super::common::run_text(&g, RunOptions::default());
    let times: std::collections::BTreeSet<u64> = out.series.time_s.iter().map(|t| (t * 1e12).round() as u64).collect();
    assert_eq!(times.into_iter().collect::<Vec<_>>(), vec![1_000_000]);
}

#[test]
fn sequences_where_tables_belong_are_refused() {
    let m = magic();
    let cases = [
        (edit(&m, "[simulation]\nduration_s = 6.0\nwarmup_s = 1.0", "simulation = [6.0, 1.0]"), "simulation"),
        ("simulation = { duration_s = 1.0 }\nhost = [[\"a\"]]\n".to_string(), "host[0]"),
        (edit(&m, "app = { kind = \"bulk\", write_bytes = 65536 }", "app = [\"bulk\"]"), "tcp[0].app"),
        (edit(&m, "[[vc]]\nname = \"pvc\"", "[[vc]]\nname = \"pvc\"\nshape = [1e6]"), "vc[0].shape"),
        (edit(&m, "[[vc]]\nname = \"pvc\"", "[[vc]]\nname = \"pvc\"\npolice = [1e6]"), "vc[0].police"),
    ];
    for (text, field) in cases {
        let e = validate_str(&text, Format::Toml, "bad.toml").expect_err(field);
        assert_eq!(e.kind, ErrorKind::Parse, "{e}");
        assert_eq!(e.field, field, "{e}");
        assert!(e.message.contains("expected a table"), "{e}");
    }
    let json = r#"[{"duration_s": 1.0}]"#;
    let e = validate_str(json, Format::Json, "<py>").unwrap_err();
    assert!(e.message.contains("expected a table"), "{e}");
    let e = validate_str(r#"{"simulation": [1.0, 0.0]}"#, Format::Json, "<py>").unwrap_err();
    assert_eq!(e.field, "simulation");
}

#[test]
fn names_are_bounded_and_quoted_short() {
    let long = "h".repeat(1_000_000);
    let m = magic();
    refused(&edit(&m, "name = \"dec-lawrence\"", &format!("name = \"{long}\"")), "host[0].name", "at most 256 bytes");
    refused(
        &edit(&m, "client = \"dec-lawrence\"", &format!("client = \"{long}\"")),
        "tcp[0].client",
        "at most 256 bytes",
    );
    refused(&edit(&m, "name = \"magic95-table1-w128k\"", &format!("name = \"{long}\"")), "name", "at most 256 bytes");
}

#[test]
fn deep_nesting_is_a_parse_error_not_a_crash() {
    for depth in [1_000, 100_000] {
        let toml = format!("x = {}{}\n", "[".repeat(depth), "]".repeat(depth));
        let e = validate_str(&toml, Format::Toml, "deep.toml").unwrap_err();
        assert_eq!(e.kind, ErrorKind::Parse, "{e}");
        let tables = format!("x = {}{}\n", "{a = ".repeat(depth), "}".repeat(depth));
        assert_eq!(validate_str(&tables, Format::Toml, "deep.toml").unwrap_err().kind, ErrorKind::Parse);
        let json = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        assert_eq!(validate_str(&json, Format::Json, "<py>").unwrap_err().kind, ErrorKind::Parse);
    }
}

#[test]
fn trailing_text_after_a_json_document_is_refused() {
    let ok = r#"{"simulation": {"duration_s": 1.0}}"#;
    validate_str(ok, Format::Json, "<py>").unwrap();
    let e = validate_str(&format!("{ok} {{}}"), Format::Json, "<py>").unwrap_err();
    assert_eq!(e.kind, ErrorKind::Parse, "{e}");
}

#[test]
fn a_server_that_could_batch_the_whole_run_still_reports_progress() {
    // One greedy source, no probes: nothing else is ever pending, so without a cap the
    // source's port would serve the whole run inside one event and the caller (Ctrl-C)
    // would never regain control.
    let g = r#"
[simulation]
duration_s = 0.5
sample_interval_ms = 0
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
delay_ms = 0
[[link]]
a = "sw"
b = "b"
preset = "oc3c"
delay_ms = 0
[[vc]]
name = "v"
path = ["a", "sw", "b"]
[[cell_source]]
name = "g"
vc = "v"
from = "a"
kind = "greedy"
"#;
    let mut reports = 0u32;
    let out = api::run_str(g, Format::Toml, "<test>", RunOptions::default(), &mut |_| {
        reports += 1;
        ControlFlow::Continue(())
    })
    .unwrap();
    let run = &out.summary["run"];
    let cells = run["cell_hops"].as_u64().unwrap();
    assert!(cells > 300_000, "{run}");
    // The queue sees at least one event per 4096 inline steps, so progress is checked.
    assert!(run["heap_events"].as_u64().unwrap() >= cells / 4096, "{run}");
    assert!(reports >= 100, "{reports} progress reports");
    // Stopping at the first report ends the run early.
    let mut calls = 0;
    let e = api::run_str(g, Format::Toml, "<test>", RunOptions::default(), &mut |_| {
        calls += 1;
        ControlFlow::Break(())
    })
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::Interrupted);
    assert_eq!(calls, 1);
}

/// MAGIC's scenario with `n` more hosts, unlinked (each adds one probe value per instant).
fn with_hosts(n: usize, simulation: &str) -> String {
    let more: String = (0..n).map(|i| format!("[[host]]\nname = \"extra{i}\"\n")).collect();
    edit(&magic(), "sample_interval_ms = 10", simulation) + &more
}

#[test]
fn the_probes_record_a_bounded_number_of_values() {
    // 6 s at 1 ms: 6,001 instants; 4,000 more hosts make it more than 10⁷ values.
    refused(
        &with_hosts(4000, "sample_interval_ms = 1"),
        "simulation.sample_interval_ms",
        "expected an interval of at least 2.4",
    );
    // The default interval (6 s / 500) widens instead: the run is accepted and records at most
    // 10⁷ values. Cut to 10 ms so that it runs in a moment.
    let text = with_hosts(25_000, "sample_interval_ms = 10").replace("sample_interval_ms = 10\n", "");
    let text = edit(&text, "duration_s = 6.0", "duration_s = 0.01");
    let text = edit(&text, "warmup_s = 1.0", "warmup_s = 0.0");
    let out = api::run_str(&text, Format::Toml, "big.toml", RunOptions::default(), &mut |_| ControlFlow::Continue(()))
        .expect("the default interval widens");
    let rows = out.series.value.len();
    assert!(rows > 0 && rows as f64 <= 1e7, "{rows}");
}
