//! Switched VCs end to end: a router's IP-over-ATM driver opens a VC through hop-by-hop
//! signalling when a datagram needs one, the setup takes exactly the closed-form round trip,
//! and svc / svccache / pvc manage VCs as Mah (1996) §6.3 describes.

use super::common::{assert_conserved, run_text};
use atmsim_core::api::RunOptions;
use atmsim_core::signalling::{setup_latency, LinkSpec};
use atmsim_core::time::{Rate, SimDuration};

/// h1 –LAN– r1 – s1 –(30 ms)– s2 – r2 –LAN– h2, T1 ATM links, one UDP datagram (or several).
fn scenario(ipoa: &str, sig: &str, udp: &str, duration_s: f64) -> String {
    format!(
        r#"
[simulation]
duration_s = {duration_s}
[signalling]
{sig}
[[host]]
name = "h1"
mtu_bytes = 1500
[[host]]
name = "h2"
mtu_bytes = 1500
[[router]]
name = "r1"
ipoa = {ipoa}
[[router]]
name = "r2"
ipoa = {ipoa}
[[switch]]
name = "s1"
[[switch]]
name = "s2"
[[lan]]
name = "west"
members = ["h1", "r1"]
rate_bps = 100e6
delay_ms = 0.01
[[lan]]
name = "east"
members = ["h2", "r2"]
rate_bps = 100e6
delay_ms = 0.01
[[link]]
a = "r1"
b = "s1"
rate_bps = 1536000
delay_ms = 0.5
[[link]]
a = "s1"
b = "s2"
rate_bps = 1536000
delay_ms = 30.0
[[link]]
a = "s2"
b = "r2"
rate_bps = 1536000
delay_ms = 5.0
{udp}
"#
    )
}

const ONE_DATAGRAM: &str = r#"
[[udp]]
name = "u"
from = "h1"
to = "h2"
packet_bytes = 200
interval_ms = 1e6
"#;

fn host<'a>(s: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    s["hosts"].as_array().unwrap().iter().find(|h| h["name"] == name).unwrap()
}

/// LAN 200 bytes at 100 Mb/s + 10 us, twice; over ATM 200 + 8 bytes = 5 cells leave r1 back
/// to back and cross three hops: (5 + 2) cell times + the three delays.
fn data_delay_s() -> f64 {
    let lan = 200.0 * 8.0 / 100e6 + 10e-6;
    let cell = 424.0 / 1_536_000.0;
    2.0 * lan + 7.0 * cell + (0.5 + 30.0 + 5.0) * 1e-3
}

fn path_setup_latency(processing_ms: f64) -> f64 {
    let t1 = Rate::bps(1_536_000);
    let ms = |x: f64| SimDuration::from_secs_f64(x * 1e-3);
    let links = [LinkSpec::symmetric(t1, ms(0.5)), LinkSpec::symmetric(t1, ms(30.0)), LinkSpec::symmetric(t1, ms(5.0))];
    setup_latency(&links, &[ms(processing_ms); 4]).as_secs_f64()
}

#[test]
fn setup_latency_equals_the_closed_form_at_several_processing_times() {
    // The closed form holds while each controller's processing outlasts one cell time
    // (276 us on T1): a CONNECT never waits behind the ACK its controller just sent.
    for p in [0.3, 1.0, 7.5] {
        let sig = format!("processing_ms = {p}");
        let s = run_text(&scenario(r#"{ vc = "svc" }"#, &sig, ONE_DATAGRAM, 2.0), RunOptions::default()).summary;
        assert_conserved(&s);
        let u = &s["udp"][0];
        assert_eq!(u["delivered"], 1, "{u}");
        let setup = u["delay_max_s"].as_f64().unwrap() - data_delay_s();
        let expect = path_setup_latency(p);
        assert!((setup - expect).abs() < 1e-11, "processing {p} ms: simulated {setup} s, closed form {expect} s");
        let r1 = &host(&s, "r1")["ipoa"];
        assert_eq!((r1["setups_requested"].as_u64(), r1["setups_completed"].as_u64()), (Some(1), Some(1)));
        let m = &s["signalling"]["messages"];
        assert_eq!(m["balanced"], true, "{m}");
        assert_eq!(m["lost"], 0);
    }
}

#[test]
fn setup_latency_follows_the_path_length() {
    // Cross-check at other link delays: the closed form scales with every hop.
    let text = scenario(r#"{ vc = "svc" }"#, "processing_ms = 2", ONE_DATAGRAM, 2.0)
        .replace("delay_ms = 30.0", "delay_ms = 3.0")
        .replace("delay_ms = 0.5", "delay_ms = 0.0");
    let s = run_text(&text, RunOptions::default()).summary;
    let t1 = Rate::bps(1_536_000);
    let ms = |x: f64| SimDuration::from_secs_f64(x * 1e-3);
    let links = [LinkSpec::symmetric(t1, ms(0.0)), LinkSpec::symmetric(t1, ms(3.0)), LinkSpec::symmetric(t1, ms(5.0))];
    let expect = setup_latency(&links, &[ms(2.0); 4]).as_secs_f64();
    let cell = 424.0 / 1_536_000.0;
    let data = 2.0 * (200.0 * 8.0 / 100e6 + 10e-6) + 7.0 * cell + 8e-3;
    let setup = s["udp"][0]["delay_max_s"].as_f64().unwrap() - data;
    assert!((setup - expect).abs() < 1e-11, "{setup} vs {expect}");
}

#[test]
fn svc_tears_down_after_its_idle_timeout_and_the_next_datagram_sets_up_again() {
    // Datagrams at 0 and 12 s: the VC opened for the first idles 10 s and is torn down; the
    // second needs a new setup. Under svccache the second reuses the cached VC.
    let two = ONE_DATAGRAM.replace("interval_ms = 1e6", "interval_ms = 12000");
    let s = run_text(&scenario(r#"{ vc = "svc" }"#, "", &two, 13.0), RunOptions::default()).summary;
    assert_conserved(&s);
    let r1 = &host(&s, "r1")["ipoa"];
    assert_eq!(r1["setups_requested"], 2, "{r1}");
    assert_eq!(r1["teardowns"], 1);
    assert_eq!(r1["max_vcs_in_use"], 1, "counted each second");
    assert_eq!(r1["vcs_in_use"], 1, "the second datagram's VC");
    assert_eq!(s["signalling"]["releases"], 1);
    let c = &s["udp"][0];
    assert_eq!(c["delivered"], 2);

    let s = run_text(&scenario(r#"{ vc = "svccache" }"#, "", &two, 13.0), RunOptions::default()).summary;
    let r1 = &host(&s, "r1")["ipoa"];
    assert_eq!(r1["setups_requested"], 1, "{r1}");
    assert_eq!(r1["cache_hits"], 1);
    assert_eq!(r1["teardowns"], 0);
    // The cached VC gives the second datagram the pure data delay.
    let u = &s["udp"][0];
    let mean = u["delay_mean_s"].as_f64().unwrap();
    let first = path_setup_latency(1.0) + data_delay_s();
    assert!(((2.0 * mean - first) - data_delay_s()).abs() < 1e-10, "{u}");
}

#[test]
fn the_teardown_comes_exactly_one_idle_timeout_after_the_last_datagram() {
    // The VC's last datagram goes out when the setup completes; 10 s later it is released.
    let last_use = 200.0 * 8.0 / 100e6 + 10e-6 + path_setup_latency(1.0);
    for (end, torn) in [(last_use + 10.0 - 1e-6, 0), (last_use + 10.0 + 1e-6, 1)] {
        let s = run_text(&scenario(r#"{ vc = "svc" }"#, "", ONE_DATAGRAM, end), RunOptions::default()).summary;
        assert_eq!(host(&s, "r1")["ipoa"]["teardowns"], torn, "run ending at {end} s");
    }
}

#[test]
fn a_setup_fails_cleanly_when_vcis_run_out_and_the_driver_reports_it() {
    // 33 VCIs per port: 0–31 reserved plus the signalling VC leaves one switched VCI (32).
    // Two conversations under per-conversation multiplexing need two VCs: the second fails.
    let two_flows = format!("{ONE_DATAGRAM}\n[[udp]]\nname = \"v\"\nfrom = \"h1\"\nto = \"h2\"\nsrc_port = 6000\npacket_bytes = 200\ninterval_ms = 1e6\n");
    let s = run_text(&scenario(r#"{ vc = "pvc" }"#, "vci_space = 33", &two_flows, 2.0), RunOptions::default()).summary;
    assert_conserved(&s);
    let r1 = &host(&s, "r1")["ipoa"];
    assert_eq!(r1["setups_requested"], 2, "{r1}");
    assert_eq!(r1["setups_failed"], 1);
    assert_eq!(s["signalling"]["setups_failed"]["novci"], 1, "{}", s["signalling"]);
    assert_eq!(s["conservation"]["datagrams"]["no_vc"], 1);
    let delivered: u64 = s["udp"].as_array().unwrap().iter().map(|u| u["delivered"].as_u64().unwrap()).sum();
    assert_eq!(delivered, 1);
}

#[test]
fn router_multiplexing_makes_pvc_and_svccache_identical() {
    // Mah §6.5: with one VC per router pair, svccache behaved exactly like pvc. A TCP
    // conversation mix with gaps longer than the idle timeout but shorter than the cache's.
    let tcp = r#"
[[tcp]]
name = "t"
client = "h1"
server = "h2"
mss_bytes = 512
app = { kind = "telnet" }
[[udp]]
name = "u"
from = "h2"
to = "h1"
packet_bytes = 200
interval_ms = 15000
"#;
    let run = |vc: &str| {
        let ipoa = format!(r#"{{ mux = "router", vc = "{vc}" }}"#);
        let mut s =
            run_text(&scenario(&ipoa, "", tcp, 120.0), RunOptions { seed: Some(3), ..Default::default() }).summary;
        for h in s["hosts"].as_array_mut().unwrap() {
            if let Some(o) = h.get_mut("ipoa").and_then(|d| d.as_object_mut()) {
                o.remove("vc");
                o.remove("cache_hits");
                o.remove("hit_rate");
            }
        }
        s.as_object_mut().unwrap().remove("run");
        s
    };
    let (pvc, cache) = (run("pvc"), run("svccache"));
    assert!(pvc["connections"][0]["bytes_client_to_server"].as_u64().unwrap() > 0);
    assert_eq!(pvc, cache);
}

#[test]
fn go_back_n_recovers_signalling_messages_lost_in_a_full_control_queue() {
    // Five conversations need five VCs at once. The 30 ms hop runs at 42.4 kb/s (100 cells/s)
    // and its control queue holds 2 cells: SETUPs (2 cells each) leaving s1 1 ms apart
    // overflow it. Every setup completes all the same, by retransmission.
    let mut udp = String::new();
    for k in 0..5 {
        udp += &format!(
            "[[udp]]\nname = \"u{k}\"\nfrom = \"h1\"\nto = \"h2\"\nsrc_port = {}\npacket_bytes = 200\ninterval_ms = 1e6\n",
            6000 + k
        );
    }
    let text = scenario(r#"{ vc = "svc" }"#, "control_buffer_cells = 2", &udp, 20.0)
        .replace("rate_bps = 1536000\ndelay_ms = 30.0", "rate_bps = 42400\ndelay_ms = 30.0");
    let s = run_text(&text, RunOptions::default()).summary;
    assert_conserved(&s);
    let sig = &s["signalling"];
    assert!(sig["messages"]["lost"].as_u64().unwrap() > 0, "{sig}");
    assert!(sig["retransmissions"].as_u64().unwrap() > 0, "{sig}");
    assert_eq!(sig["messages"]["balanced"], true);
    assert_eq!(sig["setups_connected"], 5, "{sig}");
    for u in s["udp"].as_array().unwrap() {
        assert_eq!(u["delivered"], 1, "{u}");
    }
    assert!(s["conservation"]["cells"]["dropped_ctrl"].as_u64().unwrap() > 0);
}

#[test]
fn setup_latency_equals_the_closed_form_between_atm_attached_hosts() {
    // No routers: two ATM-attached hosts and one switch; each host's own driver opens the VC.
    let text = r#"
[simulation]
duration_s = 1.0
[signalling]
processing_ms = 0.5
[[host]]
name = "a"
ipoa = { vc = "svc" }
[[host]]
name = "b"
ipoa = { vc = "svc" }
[[switch]]
name = "s"
[[link]]
a = "a"
b = "s"
rate_bps = 1536000
delay_ms = 1.0
[[link]]
a = "s"
b = "b"
rate_bps = 1536000
delay_ms = 2.0
[[udp]]
name = "u"
from = "a"
to = "b"
packet_bytes = 200
interval_ms = 1e6
"#;
    let s = run_text(text, RunOptions::default()).summary;
    assert_conserved(&s);
    let t1 = Rate::bps(1_536_000);
    let ms = |x: f64| SimDuration::from_secs_f64(x * 1e-3);
    let links = [LinkSpec::symmetric(t1, ms(1.0)), LinkSpec::symmetric(t1, ms(2.0))];
    let expect = setup_latency(&links, &[ms(0.5); 3]).as_secs_f64();
    let cell = 424.0 / 1_536_000.0;
    let data = 6.0 * cell + 3e-3; // 5 cells over two hops
    let setup = s["udp"][0]["delay_max_s"].as_f64().unwrap() - data;
    assert!((setup - expect).abs() < 1e-11, "{setup} vs {expect}");
}
