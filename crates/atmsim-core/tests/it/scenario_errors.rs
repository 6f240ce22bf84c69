//! Bad scenarios are refused before running, with the file, the field and what was expected.

use atmsim_core::api::{validate_str, Format};
use atmsim_core::ErrorKind;

fn base() -> String {
    std::fs::read_to_string(super::common::repo_file("scenarios/magic95/table1_w128k.toml")).unwrap()
}

fn err(text: &str) -> atmsim_core::Error {
    validate_str(text, Format::Toml, "bad.toml").expect_err("expected an error")
}

#[test]
fn shipped_scenarios_are_valid() {
    for entry in ["magic95", "kocyigit"]
        .iter()
        .flat_map(|d| std::fs::read_dir(super::common::repo_file(&format!("scenarios/{d}"))).unwrap())
    {
        let p = entry.unwrap().path();
        let text = std::fs::read_to_string(&p).unwrap();
        validate_str(&text, Format::Toml, p.to_str().unwrap()).unwrap_or_else(|e| panic!("{e}"));
    }
}

#[test]
fn table_of_bad_inputs() {
    let cases: &[(&str, &str, &str, &str)] = &[
        ("delay_ms = 2.2\n\n[[link]]", "delay_ms = -2.2\n\n[[link]]", "link[0].delay_ms", "time between 0 and 1e7 ms"),
        (
            "preset = \"oc3c\"\ndelay_ms = 2.2\n\n[[link]]",
            "rate_bps = -5.0\ndelay_ms = 2.2\n\n[[link]]",
            "link[0].rate_bps",
            "rate between 424 b/s",
        ),
        (
            "preset = \"oc3c\"\ndelay_ms = 2.2\n\n[[link]]",
            "preset = \"oc3\"\ndelay_ms = 2.2\n\n[[link]]",
            "link[0].preset",
            "oc3c",
        ),
        ("b = \"asx100\"", "b = \"asx200\"", "link[0].b", "name of a host or switch"),
        ("window_bytes = 131072", "window_bytes = -1", "tcp[0].window_bytes", "window in bytes"),
        ("window_bytes = 131072", "window_bytes = 131072\nwindw = 3", "tcp[0].windw", "unknown field"),
        ("duration_s = 6.0", "duration_s = 0", "simulation.duration_s", "duration in seconds between 1e-6 and 1e7"),
        (
            "duration_s = 6.0",
            "duration_s = 6.0\nlink_clock_ppm = -3",
            "simulation.link_clock_ppm",
            "between 0 and 1000 ppm",
        ),
        (
            "delay_ms = 2.2\n\n[[link]]",
            "delay_ms = 2.2\nclock_ppm = 5e3\n\n[[link]]",
            "link[0].clock_ppm",
            "between -1000 and 1000 ppm",
        ),
        ("warmup_s = 1.0", "warmup_s = 7.0", "simulation.warmup_s", "shorter than duration"),
        (
            "duration_s = 6.0",
            "duration_s = 6.0\ntie_order = \"sideways\"",
            "simulation.tie_order",
            "expected one of `fifo`, `lifo`, `random`",
        ),
        (
            "path = [\"dec-lawrence\", \"asx100\", \"dec-remote\"]",
            "path = [\"dec-lawrence\", \"dec-remote\"]",
            "vc[0].path[1]",
            "no [[link]] joins",
        ),
        (
            "path = [\"dec-lawrence\", \"asx100\", \"dec-remote\"]",
            "path = [\"asx100\", \"dec-remote\"]",
            "vc[0].path[0]",
            "host at the end",
        ),
        ("server = \"dec-remote\"", "server = \"dec-lawrence\"", "tcp[0].server", "different host"),
        (
            "buffer_cells = 256",
            "buffer_cells = 256\ndrop_policy = \"epd\"",
            "switch[0].epd_threshold_cells",
            "threshold",
        ),
        (
            "buffer_cells = 256",
            "buffer_cells = 256\ndrop_policy = \"epd\"\nepd_threshold_cells = 300",
            "switch[0].epd_threshold_cells",
            "at most buffer_cells",
        ),
        ("kind = \"bulk\"", "kind = \"gopher\"", "tcp[0].app.kind", "unknown variant"),
        (
            "server = \"dec-remote\"",
            "server = \"dec-remote\"\nssthresh_on_loss = \"half\"",
            "tcp[0].ssthresh_on_loss",
            "expected `half_window` or `half_advertised`",
        ),
        (
            "server = \"dec-remote\"",
            "server = \"dec-remote\"\nvariant = \"tahoe\"\nsack = true",
            "tcp[0].sack",
            "false with variant = \"tahoe\"",
        ),
        (
            "server = \"dec-remote\"",
            "server = \"dec-remote\"\nhystart = true",
            "tcp[0].hystart",
            "timestamps = true as well",
        ),
        (
            "server = \"dec-remote\"",
            "server = \"dec-remote\"\nvariant = \"cubic\"\nssthresh_on_loss = \"half_advertised\"",
            "tcp[0].ssthresh_on_loss",
            "CUBIC sets ssthresh by its own",
        ),
        ("server = \"dec-remote\"", "server = \"dec-remote\"\nvariant = \"vegas\"", "tcp[0].variant", "unknown variant"),
    ];
    for (from, to, field, expect) in cases {
        let text = base();
        assert!(text.contains(from), "fixture lacks {from:?}");
        let e = err(&text.replacen(from, to, 1));
        assert_eq!(e.file, "bad.toml");
        assert_eq!(&e.field, field, "case {to:?}: {e}");
        assert!(e.message.contains(expect), "case {to:?}: message {:?} lacks {expect:?}", e.message);
        assert!(matches!(e.kind, ErrorKind::Parse | ErrorKind::Invalid));
    }
}

#[test]
fn a_host_with_two_links_is_refused() {
    let text = base() + "\n[[link]]\na = \"dec-lawrence\"\nb = \"dec-remote\"\npreset = \"t1\"\ndelay_ms = 1\n";
    let e = err(&text);
    assert_eq!(e.field, "link[2].a");
    assert!(e.message.contains("single link"), "{e}");
}
