//! TCP over a congested ATM port: cells are lost, AAL5 frames fail reassembly, TCP
//! retransmits; every byte still arrives exactly once, the ledgers balance, and the run is
//! reproducible and independent of batching.

use super::common::*;
use atmsim_core::api::RunOptions;

fn contention() -> String {
    std::fs::read_to_string(repo_file("scenarios/examples/contention_tcp.toml"))
        .unwrap()
        .replace("duration_s = 10.0", "duration_s = 4.0")
        .replace("warmup_s = 2.0", "warmup_s = 1.0")
}

#[test]
fn cell_loss_causes_retransmissions_and_the_ledgers_balance() {
    let s = run_text(&contention(), RunOptions::default()).summary;
    assert_conserved(&s);
    let port = s["ports"].as_array().unwrap().iter().find(|p| p["name"] == "asx100->sparc").unwrap();
    assert!(port["drop_tail"].as_u64().unwrap() > 0);
    assert!(port["max_queue_cells"].as_u64().unwrap() <= 256);
    assert!(s["conservation"]["frames"]["discarded"].as_u64().unwrap() > 0);
    for c in s["connections"].as_array().unwrap() {
        assert!(c["rexmt_segs"].as_u64().unwrap() > 0, "{c}");
        assert!(c["goodput_bps"].as_f64().unwrap() > 0.0, "{c}");
    }
    // Goodput never exceeds the TAXI user-level limit: 100 Mb/s · 9140 / (192·53).
    let total: f64 = s["connections"].as_array().unwrap().iter().map(|c| c["goodput_bps"].as_f64().unwrap()).sum();
    assert!(total < 100e6 * 9140.0 / (192.0 * 53.0));
}

#[test]
fn a_finite_transfer_arrives_exactly_once_despite_losses() {
    // Fast retransmit off (recovery by timeout alone), and ssthresh from the advertised window.
    let cases = [
        ("tahoe", ""),
        ("reno", ""),
        ("newreno", ""),
        ("reno", "dupack_threshold = 0\n"),
        ("reno", "ssthresh_on_loss = \"half_advertised\"\n"),
        ("tahoe", "ssthresh_on_loss = \"half_advertised\"\n"),
        ("cubic", ""),
        ("cubic", "timestamps = true\n"),
        ("newreno", "timestamps = true\nhystart = true\n"),
        ("reno", "sack = true\n"),
        ("newreno", "sack = true\n"),
        ("cubic", "sack = true\ntimestamps = true\n"),
    ];
    for (variant, extra) in cases {
        let text = contention().replace("duration_s = 4.0", "duration_s = 60.0").replace(
            "window_bytes = 131072\n",
            &format!(
                "window_bytes = 131072\nvariant = \"{variant}\"\n{extra}app = {{ kind = \"bulk\", total_bytes = 3000000 }}\n"
            ),
        );
        let s = run_text(&text, RunOptions::default()).summary;
        assert_conserved(&s);
        for c in s["connections"].as_array().unwrap() {
            assert_eq!(c["bytes_read"].as_u64().unwrap(), 3_000_000, "{variant}: {c}");
            assert!(c["finished_at_s"].as_f64().is_some(), "{variant}: {c}");
            assert!(c["rexmt_segs"].as_u64().unwrap() > 0, "{variant}: the transfer should have seen loss");
            if extra.starts_with("dupack") {
                assert_eq!(c["fast_retransmits"], 0, "{c}");
                assert!(c["timeouts"].as_u64().unwrap() > 0, "{c}");
            }
        }
    }
}

#[test]
fn lossy_runs_are_deterministic_and_batching_invariant() {
    let text = contention();
    let (a, _) = assert_batching_invariant(&text);
    let again = run_text(&text, RunOptions::default());
    assert_eq!(deterministic_part(&a.summary), deterministic_part(&again.summary));
    assert_eq!(a.series, again.series);
    // A different seed moves the TCP timer phases and so the loss pattern.
    let d = run_text(&text, seed(2));
    assert_ne!(deterministic_part(&a.summary)["connections"], deterministic_part(&d.summary)["connections"]);
}

#[test]
fn todays_tcp_is_deterministic_and_batching_invariant() {
    let text = contention().replace(
        "window_bytes = 131072\n",
        "window_bytes = 131072\nvariant = \"cubic\"\ntimestamps = true\nhystart = true\nsack = true\n",
    );
    let (a, _) = assert_batching_invariant(&text);
    assert_conserved(&a.summary);
    let again = run_text(&text, RunOptions::default());
    assert_eq!(deterministic_part(&a.summary), deterministic_part(&again.summary));
    // Any engine tie order (DESIGN §2b): only the recorded order itself differs.
    for ties in ["lifo", "random"] {
        let tied = text.replacen("[simulation]\n", &format!("[simulation]\ntie_order = \"{ties}\"\n"), 1);
        let mut other = run_text(&tied, RunOptions::default()).summary;
        other.as_object_mut().unwrap().remove("tie_order");
        assert_eq!(deterministic_part(&other), deterministic_part(&a.summary), "{ties}");
    }
    // Not BSD's results: the options change what the connections do.
    let bsd = run_text(&contention(), RunOptions::default());
    assert_ne!(deterministic_part(&a.summary)["connections"], deterministic_part(&bsd.summary)["connections"]);
}

#[test]
fn the_magic_window_runs_are_batching_invariant() {
    let text = std::fs::read_to_string(repo_file("scenarios/magic95/table1_w64k.toml"))
        .unwrap()
        .replace("duration_s = 6.0", "duration_s = 2.0");
    assert_batching_invariant(&text);
}
