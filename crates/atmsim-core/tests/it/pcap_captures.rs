//! `[[capture]]`: pcap files of the datagrams a host sends and receives, counted exactly,
//! deterministic, and refused with precise errors when misconfigured.

use super::common::{batching, repo_file, run_text, seed};
use atmsim_core::api::{validate_str, Format};

/// The contention example, shortened, with captures at the sender `dec1` and the sink.
fn contention(extra: &str) -> String {
    let text = std::fs::read_to_string(repo_file("scenarios/examples/contention_tcp.toml")).unwrap();
    text.replace("duration_s = 10.0", "duration_s = 1.0").replace("warmup_s = 2.0", "warmup_s = 0.2") + extra
}

const CAPTURES: &str =
    "\n[[capture]]\nhost = \"dec1\"\n[[capture]]\nhost = \"sparc\"\nname = \"sink\"\nsnaplen_bytes = 64\n";

/// (packet count, [(incl_len, orig_len)]) of a little-endian nanosecond pcap file.
fn records(pcap: &[u8]) -> Vec<(u32, u32)> {
    assert_eq!(&pcap[0..4], &0xA1B2_3C4Du32.to_le_bytes());
    let mut out = Vec::new();
    let mut rest = &pcap[24..];
    while !rest.is_empty() {
        let incl = u32::from_le_bytes(rest[8..12].try_into().unwrap());
        let orig = u32::from_le_bytes(rest[12..16].try_into().unwrap());
        out.push((incl, orig));
        rest = &rest[16 + incl as usize..];
    }
    out
}

#[test]
fn captures_count_every_datagram_sent_and_received() {
    let out = run_text(&contention(CAPTURES), seed(1));
    let s = &out.summary;
    assert_eq!(out.captures.len(), 2);
    let (c0, c1) = (&out.captures[0], &out.captures[1]);
    assert_eq!((c0.name.as_str(), c0.host.as_str()), ("dec1", "dec1"));
    assert_eq!((c1.name.as_str(), c1.host.as_str()), ("sink", "sparc"));

    let t1 = &s["connections"][0];
    let t2 = &s["connections"][1];
    let host = |n: &str| s["hosts"].as_array().unwrap().iter().find(|h| h["name"] == n).unwrap().clone();
    let sc = &s["captures"];
    // dec1 sends exactly t1's client segments (its adapter queue is unlimited) and receives
    // every frame reassembled there (t1's ACKs).
    assert!(t1["rexmt_segs"].as_u64().unwrap() > 0, "the scenario should be lossy");
    assert_eq!(sc[0]["packets_out"], t1["segs_sent"]);
    assert_eq!(sc[0]["packets_in"], host("dec1")["frames_rcvd"]);
    assert_eq!(sc[1]["packets_in"], host("sparc")["frames_rcvd"]);
    assert_eq!(
        sc[1]["packets_out"].as_u64().unwrap(),
        t1["acks_sent_by_receiver"].as_u64().unwrap() + t2["acks_sent_by_receiver"].as_u64().unwrap() + 2,
        "the sink sends its ACKs and one SYN-ACK per connection"
    );
    for (cap, summ, snap) in [(c0, &sc[0], 96), (c1, &sc[1], 64)] {
        let recs = records(&cap.pcap);
        assert_eq!(recs.len() as u64, summ["packets"].as_u64().unwrap());
        assert!(recs.iter().all(|&(incl, orig)| incl == orig.min(snap) && orig >= 40));
    }
    // Data segments are 9180-byte datagrams cut to the snap length.
    assert!(records(&c0.pcap).contains(&(96, 9180)));
}

#[test]
fn captures_are_deterministic_and_independent_of_batching() {
    let text = contention(CAPTURES);
    let a = run_text(&text, batching(true));
    let b = run_text(&text, batching(false));
    let c = run_text(&text, batching(true));
    assert_eq!(a.captures, b.captures);
    assert_eq!(a.captures, c.captures);
    let other = run_text(&text, seed(2));
    assert_ne!(a.captures[0].pcap, other.captures[0].pcap, "another seed, other ISNs");
}

#[test]
fn a_capture_does_not_change_the_run() {
    let plain = run_text(&contention(""), seed(3));
    let captured = run_text(&contention(CAPTURES), seed(3));
    let strip = |s: &serde_json::Value| {
        let mut s = super::common::deterministic_part(s);
        s.as_object_mut().unwrap().remove("captures");
        s
    };
    assert_eq!(strip(&plain.summary), strip(&captured.summary));
    assert_eq!(plain.series, captured.series);
    assert!(plain.captures.is_empty());
}

#[test]
fn cell_source_frames_are_captured_as_protocol_253() {
    let text = std::fs::read_to_string(repo_file("scenarios/examples/greedy_rr.toml")).unwrap();
    let doc: toml::Value = toml::from_str(&text).unwrap();
    let from = doc["cell_source"][0]["from"].as_str().unwrap().to_string();
    let text = format!("{text}\n[[capture]]\nhost = \"{from}\"\n").replace("duration_s = 0.5", "duration_s = 0.2");
    let out = run_text(&text, seed(1));
    let recs = records(&out.captures[0].pcap);
    assert!(!recs.is_empty());
    assert_eq!(recs.len() as u64, out.summary["captures"][0]["packets"].as_u64().unwrap());
    // The first record's IP header: protocol 253.
    assert_eq!(out.captures[0].pcap[24 + 16 + 9], 253);
}

#[test]
fn bad_captures_are_refused_with_the_field() {
    let err = |extra: &str| validate_str(&contention(extra), Format::Toml, "bad.toml").expect_err("expected an error");
    let cases: &[(&str, &str, &str)] = &[
        ("[[capture]]\nhost = \"nobody\"\n", "capture[0].host", "name of a host"),
        ("[[capture]]\nhost = \"asx100\"\n", "capture[0].host", "expected a host"),
        (
            "[[capture]]\nhost = \"dec1\"\n[[capture]]\nhost = \"dec1\"\nname = \"x\"\n",
            "capture[1].host",
            "at most one",
        ),
        (
            "[[capture]]\nhost = \"dec1\"\nname = \"a\"\n[[capture]]\nhost = \"dec2\"\nname = \"a\"\n",
            "capture[1].name",
            "unique",
        ),
        ("[[capture]]\nhost = \"dec1\"\nname = \"../x\"\n", "capture[0].name", "file name"),
        ("[[capture]]\nhost = \"dec1\"\nsnaplen_bytes = 20\n", "capture[0].snaplen_bytes", "between 48 and 65535"),
        ("[[capture]]\nhost = \"dec1\"\nsnaplen = 20\n", "capture[0].snaplen", "unknown field"),
    ];
    for (extra, field, msg) in cases {
        let e = err(&format!("\n{extra}"));
        assert_eq!(e.field, *field, "{extra}: {e}");
        assert!(e.message.contains(msg), "{extra}: {e}");
        assert_eq!(e.file, "bad.toml");
    }
}
