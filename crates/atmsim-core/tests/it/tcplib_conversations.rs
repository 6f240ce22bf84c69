//! tcplib conversations (Cáceres et al. 1993): TELNET echo delay from first principles,
//! FTP conversations back to back, connection recycling under loss, access lines,
//! determinism, and Cáceres' main finding (per-destination FIFO hurts interactive delay).

use super::common::*;
use atmsim_core::api::{validate_str, Format, RunOptions};
use atmsim_core::apps::tcplib::tables;
use atmsim_core::atm::aal5::cells_for;
use serde_json::Value;

/// Cell time on a 1.5 Mb/s link [s].
const TC: f64 = 424.0 / 1.5e6;

/// The Cáceres path (§2.4): 1.5 Mb/s everywhere, 22.5 ms between the sources' router and
/// the switch, zero elsewhere; `tcp` is appended.
fn path(tcp: &str, duration_s: f64, warmup_s: f64) -> String {
    format!(
        r#"
[simulation]
duration_s = {duration_s}
warmup_s = {warmup_s}
sample_interval_ms = 0
[[host]]
name = "src-router"
[[host]]
name = "dst-router"
[[switch]]
name = "sw"
[[link]]
a = "src-router"
b = "sw"
rate_bps = 1500000
delay_ms = 22.5
[[link]]
a = "sw"
b = "dst-router"
rate_bps = 1500000
delay_ms = 0.0
[[vc]]
name = "v"
path = ["src-router", "sw", "dst-router"]
{tcp}
"#
    )
}

/// The same path with Cáceres' access lines (Fig. 1): the client `c` and the server `s` are
/// hosts, each on its own 1.5 Mb/s serial line to its router; the routers' drivers carry
/// the conversation on VC `v`.
fn access_path(tcp: &str, duration_s: f64, warmup_s: f64) -> String {
    let tcp =
        tcp.replace("client = \"src-router\"", "client = \"c\"").replace("server = \"dst-router\"", "server = \"s\"");
    path(&tcp, duration_s, warmup_s)
        .replace("[[host]]\nname = \"src-router\"", "[[router]]\nname = \"src-router\"")
        .replace("[[host]]\nname = \"dst-router\"", "[[router]]\nname = \"dst-router\"")
        + "[[host]]\nname = \"c\"\n[[host]]\nname = \"s\"\n\
         [[serial]]\na = \"c\"\nb = \"src-router\"\nrate_bps = 1500000\n\
         [[serial]]\na = \"dst-router\"\nb = \"s\"\nrate_bps = 1500000\n"
}

fn conn<'a>(s: &'a Value, name: &str) -> &'a Value {
    s["connections"].as_array().unwrap().iter().find(|c| c["name"] == name).unwrap()
}

/// Expected echo delay of a TELNET packet of `p` bytes on the idle Cáceres path, without
/// Nagle: each way the datagram's cells are sent back to back by the router adapter (n cell
/// times), cross 22.5 ms, and the switch sends the last cell one cell time after it
/// arrived (cell-level store and forward), so one way = 22.5 ms + (n + 1)·t_c, where n
/// counts the cells of every segment (a packet above the 512-byte MSS takes two). With
/// access lines at 1.5 Mb/s, each of the four line crossings (client up, server down,
/// server up, client down) adds the datagram's serialization (ip bytes · 8 / 1.5 Mb/s;
/// store and forward of the whole datagram).
fn expected_echo_s(p: u64, access: bool) -> f64 {
    let segs: Vec<u64> = if p > 512 { vec![512, p - 512] } else { vec![p] };
    let n: u64 = segs.iter().map(|&s| cells_for(s as u32 + 40) as u64).sum();
    let one_way = 0.0225 + (n + 1) as f64 * TC;
    let acc = if access { segs.iter().map(|&s| (s + 40) as f64 * 8.0 / 1.5e6).sum::<f64>() } else { 0.0 };
    2.0 * one_way + 4.0 * acc
}

/// E[expected_echo_s(P)] for P drawn from tcplib's TELNET packet sizes as atmsim draws them
/// (rounded, at least 1), by integrating over the quantile function.
fn mean_expected_echo_s(access: bool) -> f64 {
    let n = 200_000;
    let t = &tables().telnet_pktsize;
    (0..n)
        .map(|i| {
            let u = (i as f64 + 0.5) / n as f64;
            expected_echo_s((t.quantile(u).round() as u64).max(1), access)
        })
        .sum::<f64>()
        / n as f64
}

fn telnet_alone(nagle: bool, access: bool) -> Value {
    let tcp = format!(
        "[[tcp]]\nname = \"t\"\nclient = \"src-router\"\nserver = \"dst-router\"\nwindow_bytes = 8192\n\
         mss_bytes = 512\nnagle = {nagle}\napp = {{ kind = \"telnet\" }}\n"
    );
    let text = if access { access_path(&tcp, 1200.0, 10.0) } else { path(&tcp, 1200.0, 10.0) };
    run_text(&text, RunOptions::default()).summary
}

#[test]
fn an_uncongested_telnet_echo_takes_one_round_trip_plus_serialization() {
    for access in [false, true] {
        let s = telnet_alone(false, access);
        assert_conserved(&s);
        let t = conn(&s, "t");
        let n = t["echo_delay_samples"].as_u64().unwrap();
        let mean = t["echo_delay_mean_s"].as_f64().unwrap();
        let median = t["echo_delay_median_s"].as_f64().unwrap();
        let expect_mean = mean_expected_echo_s(access);
        // The median packet is 1 byte (tcplib: P(1 byte) = 0.628): 41-byte datagrams of
        // 2 cells, so exactly 45 ms + 6 cell times (+ 4 · 41 · 8 / 1.5 Mb/s with access lines).
        let expect_median = expected_echo_s(1, access);
        println!(
            "access {access}: {n} samples, mean {:.3} ms (expected {:.3}), median {:.4} ms (expected {:.4})",
            mean * 1e3,
            expect_mean * 1e3,
            median * 1e3,
            expect_median * 1e3
        );
        assert!(n > 200, "{n} samples");
        assert!((median - expect_median).abs() < 1e-9, "median {median} vs {expect_median}");
        assert!((mean - expect_mean).abs() / expect_mean < 0.01, "mean {mean} vs {expect_mean}");
        assert_eq!(t["bytes_client_to_server"], t["bytes_server_to_client"], "the server echoes every byte");
        assert_eq!(t["rexmt_segs"].as_u64().unwrap(), 0);
    }
}

#[test]
fn nagle_holds_keystrokes_typed_during_an_echo() {
    // ~8% of tcplib's gaps are shorter than one round trip: with Nagle those packets wait
    // for the previous echo's ACK, so the mean grows, but only by a few percent.
    let on = conn(&telnet_alone(true, false), "t")["echo_delay_mean_s"].as_f64().unwrap();
    let off = conn(&telnet_alone(false, false), "t")["echo_delay_mean_s"].as_f64().unwrap();
    println!("mean echo delay: Nagle on {:.3} ms, off {:.3} ms", on * 1e3, off * 1e3);
    assert!(on > off && on < 1.15 * off, "on {on} off {off}");
}

const FTP1: &str = "[[tcp]]\nname = \"f\"\nclient = \"src-router\"\nserver = \"dst-router\"\nwindow_bytes = 8192\n\
                    mss_bytes = 512\napp = { kind = \"ftp\" }\n";

/// Every byte of every message read whole arrived exactly once, nothing unexpected arrived,
/// and only the current message may be partly read.
fn assert_scripts_intact(c: &Value) {
    assert_eq!(c["unexpected_bytes"].as_u64().unwrap(), 0, "{c}");
    let total = c["app_bytes_c2s_total"].as_u64().unwrap();
    let whole = c["c2s_bytes_in_complete_msgs"].as_u64().unwrap();
    assert!(whole <= total, "{c}");
    let started = c["conversations_started"].as_u64().unwrap();
    let ended = c["conversations_completed"].as_u64().unwrap() + c["conversations_aborted"].as_u64().unwrap();
    assert!(started == ended || started == ended + 1, "{c}");
}

#[test]
fn one_ftp_source_runs_conversations_back_to_back() {
    let s = run_text(&access_path(FTP1, 300.0, 45.0), RunOptions::default()).summary;
    assert_conserved(&s);
    let f = conn(&s, "f");
    assert_scripts_intact(f);
    let done = f["conversations_completed"].as_u64().unwrap();
    assert!(done > 5, "{f}");
    assert_eq!(f["conversations_aborted"].as_u64().unwrap(), 0);
    assert_eq!(f["stale_segments"].as_u64().unwrap(), 0, "no loss, no stale segments: {f}");
    assert_eq!(f["rexmt_segs"].as_u64().unwrap(), 0);
    let util = s["ports"].as_array().unwrap().iter().find(|p| p["name"] == "src-router->sw").unwrap()["utilization"]
        .as_f64()
        .unwrap();
    println!("1 FTP: {done} conversations, bottleneck utilisation {util:.3}, goodput {}", f["goodput_bps"]);
    assert!(util > 0.05 && util < 1.0, "{util}");
}

/// tcplib's FTP model: a TCP connection per item. One source on the Cáceres path for 300 s:
/// more connections than conversations (tcplib's mean is 7.1 items per conversation, at
/// least one each), every connection a fresh handshake (so the conversation takes longer
/// than on one connection), scripts intact, the ledger conserved, and the run deterministic
/// and batching-invariant; under heavy loss conversations still end intact.
#[test]
fn ftp_with_a_connection_per_item_opens_more_connections_than_conversations() {
    let per_item = FTP1.replace("{ kind = \"ftp\" }", "{ kind = \"ftp\", connection_per_item = true }");
    let text = access_path(&per_item, 300.0, 45.0);
    let (a, _) = assert_batching_invariant(&text);
    assert_eq!(deterministic_part(&a.summary), deterministic_part(&run_text(&text, RunOptions::default()).summary));
    assert_conserved(&a.summary);
    let f = conn(&a.summary, "f");
    assert_scripts_intact(f);
    let conversations = f["conversations_started"].as_u64().unwrap();
    let connections = f["connections_opened"].as_u64().unwrap();
    assert!(conversations > 3, "{f}");
    assert!(
        connections as f64 > 2.0 * conversations as f64,
        "{connections} connections for {conversations} conversations"
    );
    // The same draws on one connection per conversation: the first conversations carry the
    // same items, one handshake and one slow start each instead of one per item.
    let one = run_text(&access_path(FTP1, 300.0, 45.0), RunOptions::default()).summary;
    let g = conn(&one, "f");
    assert_eq!(g["connections_opened"], g["conversations_started"]);
    assert!(
        g["conversations_completed"].as_u64().unwrap() > f["conversations_completed"].as_u64().unwrap(),
        "{g} vs {f}"
    );
    // Under loss (a 40-cell buffer, two such sources) items and conversations end intact.
    let lossy = access_path(&(per_item.clone() + &per_item.replace("name = \"f\"", "name = \"g\"")), 300.0, 0.0)
        .replace("name = \"src-router\"\n", "name = \"src-router\"\nbuffer_cells = 40\n");
    let s = run_text(&lossy, RunOptions::default()).summary;
    assert_conserved(&s);
    for c in s["connections"].as_array().unwrap() {
        assert_scripts_intact(c);
        assert!(c["connections_opened"].as_u64().unwrap() > c["conversations_started"].as_u64().unwrap(), "{c}");
    }
    let drops: u64 = s["ports"].as_array().unwrap().iter().map(|p| p["drops"].as_u64().unwrap()).sum();
    assert!(drops > 0, "the case should be lossy");
}

#[test]
fn conversations_recycle_intact_under_heavy_loss() {
    // Four SMTP and two FTP slots on one VC through a 40-cell router adapter buffer: losses, timeouts
    // and spurious retransmissions; conversations end while old segments are still about.
    let mut tcp = String::new();
    for (i, kind) in ["smtp", "smtp", "smtp", "smtp", "ftp", "ftp"].iter().enumerate() {
        tcp += &format!(
            "[[tcp]]\nname = \"s{i}\"\nclient = \"src-router\"\nserver = \"dst-router\"\nwindow_bytes = 8192\n\
             mss_bytes = 512\nstart_s = {}\napp = {{ kind = \"{kind}\" }}\n",
            i as f64 * 0.01
        );
    }
    let text = path(&tcp, 300.0, 0.0).replace("name = \"src-router\"\n", "name = \"src-router\"\nbuffer_cells = 40\n");
    let s = run_text(&text, RunOptions::default()).summary;
    assert_conserved(&s);
    let mut stale = 0;
    for c in s["connections"].as_array().unwrap() {
        assert_scripts_intact(c);
        assert!(c["conversations_completed"].as_u64().unwrap() > 0, "{c}");
        stale += c["stale_segments"].as_u64().unwrap();
    }
    let drops: u64 = s["ports"].as_array().unwrap().iter().map(|p| p["drops"].as_u64().unwrap()).sum();
    println!("drops {drops} cells, stale segments {stale}");
    assert!(drops > 0, "the case should be lossy");
    // Stale segments need an old copy still in flight when the server gets the final ACK
    // (a spurious retransmission); whatever their number, none reached a new conversation:
    // the scripts above saw no unexpected byte. The drop itself is tested in net.rs.
}

#[test]
fn caceres_runs_are_deterministic_and_batching_invariant() {
    let text = std::fs::read_to_string(repo_file("scenarios/caceres93/telnet1_ftp4_per_conversation.toml"))
        .unwrap()
        .replace("duration_s = 180.0", "duration_s = 40.0")
        .replace("warmup_s = 45.0", "warmup_s = 5.0");
    let (a, _) = assert_batching_invariant(&text);
    let again = run_text(&text, RunOptions::default());
    assert_eq!(deterministic_part(&a.summary), deterministic_part(&again.summary));
    assert_conserved(&a.summary);
    for c in a.summary["connections"].as_array().unwrap() {
        assert_scripts_intact(c);
    }
    let d = run_text(&text, seed(2));
    assert_ne!(deterministic_part(&a.summary)["connections"], deterministic_part(&d.summary)["connections"]);
}

/// Cáceres §4, Fig. 3: with one TELNET and four FTP sources, sharing one FIFO channel
/// (per destination) makes the TELNET echo wait behind FTP data; a channel per
/// conversation served round robin does not.
#[test]
fn per_destination_fifo_delays_telnet_more_than_per_conversation_round_robin() {
    let run = |policy: &str, sd: u64| {
        let s = run_file(&format!("scenarios/caceres93/telnet1_ftp4_{policy}.toml"), seed(sd)).summary;
        assert_conserved(&s);
        let t = conn(&s, "telnet").clone();
        let util = s["ports"].as_array().unwrap().iter().find(|p| p["name"] == "src-router->sw").unwrap()
            ["utilization"]
            .as_f64()
            .unwrap();
        (t, util)
    };
    let rtt = 0.045;
    let (mut fifo, mut rr) = (0.0, 0.0);
    for sd in [1, 2] {
        let (f, fu) = run("per_destination", sd);
        let (r, ru) = run("per_conversation", sd);
        let (fm, rm) = (f["echo_delay_mean_s"].as_f64().unwrap(), r["echo_delay_mean_s"].as_f64().unwrap());
        println!(
            "seed {sd}: per-destination {:.2} RTT (std {:.2}, n {}, util {fu:.3}); per-conversation {:.2} RTT (std {:.2}, n {}, util {ru:.3})",
            fm / rtt,
            f["echo_delay_std_s"].as_f64().unwrap() / rtt,
            f["echo_delay_samples"],
            rm / rtt,
            r["echo_delay_std_s"].as_f64().unwrap() / rtt,
            r["echo_delay_samples"],
        );
        fifo += fm / 2.0;
        rr += rm / 2.0;
    }
    assert!(fifo > 1.5 * rr, "per-destination {fifo} s vs per-conversation {rr} s");
}

#[test]
fn caceres_scenarios_are_valid_and_the_retired_access_link_fields_are_refused() {
    for p in ["telnet1_ftp4_per_conversation", "telnet1_ftp4_per_type", "telnet1_ftp4_per_destination"] {
        let text = std::fs::read_to_string(repo_file(&format!("scenarios/caceres93/{p}.toml"))).unwrap();
        validate_str(&text, Format::Toml, p).unwrap_or_else(|e| panic!("{e}"));
    }
    let cases = [
        ("mss_bytes = 512\n", "mss_bytes = 512\naccess_rate_bps = 1500000\n", "tcp[0]", "unknown field"),
        ("kind = \"ftp\"", "kind = \"ftp\", write_bytes = 3", "tcp[0].app", "unknown field"),
    ];
    for (from, to, field, msg) in cases {
        let text = path(FTP1, 10.0, 0.0).replacen(from, to, 1);
        let e = validate_str(&text, Format::Toml, "bad.toml").expect_err(to);
        assert!(e.field.starts_with(field), "{to}: {e}");
        assert!(e.message.contains(msg), "{to}: {e}");
    }
}
