//! The IP internetwork: forwarding through routers, LANs and serial lines at packet level,
//! UDP, and the IP-over-ATM driver with declared PVCs — checked against closed forms.

use super::common::{assert_conserved, run_text};
use atmsim_core::api::{self, Format, RunOptions};

fn udp_of<'a>(s: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    s["udp"].as_array().unwrap().iter().find(|f| f["name"] == name).unwrap()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * b.abs().max(1.0)
}

#[test]
fn lan_serialization_and_propagation_are_exact() {
    // 1000-byte datagrams every 1 ms on an idle 100 Mb/s LAN with 10 us latency: each one
    // takes 1000·8/1e8 = 80 us on the medium, then 10 us: 90 us, every time.
    let s = run_text(
        r#"
[simulation]
duration_s = 1.0
[[host]]
name = "a"
[[host]]
name = "b"
[[lan]]
name = "lan"
members = ["a", "b"]
rate_bps = 100e6
delay_ms = 0.01
[[udp]]
name = "u"
from = "a"
to = "b"
packet_bytes = 1000
interval_ms = 1.0
"#,
        RunOptions::default(),
    )
    .summary;
    assert_conserved(&s);
    let u = udp_of(&s, "u");
    // t = 0, 1 ms, …, 1 s (the run's last instant is included): the last is in flight.
    assert_eq!(u["sent"], 1001, "{u}");
    assert_eq!(u["delivered"], 1000);
    assert_eq!(s["conservation"]["datagrams"]["in_flight"], 1);
    assert!(close(u["delay_mean_s"].as_f64().unwrap(), 90e-6), "{u}");
    assert!(close(u["delay_max_s"].as_f64().unwrap(), 90e-6), "{u}");
    let lan = &s["lines"][0];
    assert_eq!(lan["kind"], "lan");
    assert!(close(lan["utilization"].as_f64().unwrap(), 1000.0 * 80e-6), "{lan}");
}

/// Two sites: hosts on LANs, routers joined by a serial line.
const TWO_SITES_SERIAL: &str = r#"
[simulation]
duration_s = 2.0
[[host]]
name = "h1"
[[host]]
name = "h2"
[[router]]
name = "r1"
[[router]]
name = "r2"
[[lan]]
name = "west"
members = ["h1", "r1"]
rate_bps = 10e6
delay_ms = 0.1
[[lan]]
name = "east"
members = ["r2", "h2"]
rate_bps = 10e6
delay_ms = 0.1
[[serial]]
a = "r1"
b = "r2"
rate_bps = 1.5e6
delay_ms = 5.0
"#;

#[test]
fn forwarding_through_routers_adds_each_hop_exactly() {
    // 500-byte datagrams 10 ms apart never queue: LAN 400 us + 100 us, serial 2666.67 us +
    // 5 ms, LAN 400 us + 100 us.
    let text = format!(
        "{TWO_SITES_SERIAL}\n[[udp]]\nname = \"u\"\nfrom = \"h1\"\nto = \"h2\"\npacket_bytes = 500\ninterval_ms = 10.0\n"
    );
    let s = run_text(&text, RunOptions::default()).summary;
    assert_conserved(&s);
    let u = udp_of(&s, "u");
    let expect = 2.0 * (500.0 * 8.0 / 10e6 + 100e-6) + 500.0 * 8.0 / 1.5e6 + 5e-3;
    assert!((u["delay_mean_s"].as_f64().unwrap() - expect).abs() < 1e-11, "{u} vs {expect}");
    assert!((u["delay_max_s"].as_f64().unwrap() - expect).abs() < 1e-11);
    assert_eq!(u["sent"], 201);
    assert_eq!(u["delivered"], 200);
    let fwd: Vec<u64> = s["hosts"].as_array().unwrap().iter().map(|h| h["forwarded"].as_u64().unwrap()).collect();
    assert_eq!(fwd, vec![0, 0, 200, 200], "each router forwards every datagram once");
}

#[test]
fn a_full_serial_line_drops_and_every_datagram_is_accounted() {
    // 3 Mb/s offered into 1.5 Mb/s with room for 4 datagrams: about half is dropped there.
    let text = TWO_SITES_SERIAL.replace("delay_ms = 5.0", "delay_ms = 5.0\nbuffer_packets = 4")
        + "\n[[udp]]\nname = \"u\"\nfrom = \"h1\"\nto = \"h2\"\npacket_bytes = 375\ninterval_ms = 1.0\n";
    let s = run_text(&text, RunOptions::default()).summary;
    assert_conserved(&s);
    let u = udp_of(&s, "u");
    let loss = u["loss_rate"].as_f64().unwrap();
    assert!((loss - 0.5).abs() < 0.01, "{u}");
    let d = &s["conservation"]["datagrams"];
    assert!(d["dropped_at_line"].as_u64().unwrap() > 900, "{d}");
    let serial = s["lines"].as_array().unwrap().iter().find(|l| l["name"] == "r1-r2:r1->r2").unwrap();
    assert_eq!(serial["dropped"], d["dropped_at_line"]);
    assert!(serial["utilization"].as_f64().unwrap() > 0.99);
}

/// Two sites whose routers reach each other over ATM through two switches.
fn two_sites_atm(ipoa: &str, vc: bool) -> String {
    let mut t = format!(
        r#"
[simulation]
duration_s = 5.0
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
[[lan]]
name = "east"
members = ["h2", "r2"]
[[link]]
a = "r1"
b = "s1"
rate_bps = 1536000
delay_ms = 0.0
[[link]]
a = "s1"
b = "s2"
rate_bps = 1536000
delay_ms = 30.0
[[link]]
a = "s2"
b = "r2"
rate_bps = 1536000
delay_ms = 0.0
[[tcp]]
name = "bulk"
client = "h1"
server = "h2"
mss_bytes = 512
window_bytes = 8192
"#
    );
    if vc {
        t += "[[vc]]\nname = \"r1r2\"\npath = [\"r1\", \"s1\", \"s2\", \"r2\"]\n";
    }
    t
}

#[test]
fn tcp_crosses_the_atm_backbone_on_the_routers_pvc() {
    let s = run_text(&two_sites_atm(r#"{ mux = "router" }"#, true), RunOptions::default()).summary;
    assert_conserved(&s);
    let c = &s["connections"][0];
    // Window-limited: 8192 bytes per round trip of ~62 ms (two 30 ms hops, cells, LANs) at
    // most, and well under the T1's 1.536 Mb/s.
    let g = c["goodput_bps"].as_f64().unwrap();
    assert!(g > 0.6e6 && g < 8192.0 * 8.0 / 0.060, "{c}");
    for h in s["hosts"].as_array().unwrap().iter().filter(|h| h["router"] == true) {
        let d = &h["ipoa"];
        assert_eq!(d["setups_requested"], 0, "the declared PVC carries everything: {h}");
        assert_eq!(d["vcs_in_use"], 1);
        assert!(h["forwarded"].as_u64().unwrap() > 100);
    }
}

#[test]
fn without_a_vc_or_signalling_the_driver_drops_and_says_why() {
    let s = run_text(&two_sites_atm(r#"{ mux = "router" }"#, false), RunOptions::default()).summary;
    assert_conserved(&s);
    let d = &s["conservation"]["datagrams"];
    assert!(d["no_vc"].as_u64().unwrap() > 0, "{d}");
    assert_eq!(d["delivered"], 0);
    let r1 = s["hosts"].as_array().unwrap().iter().find(|h| h["name"] == "r1").unwrap();
    assert_eq!(r1["ipoa"]["setups_failed"], r1["ipoa"]["setups_requested"]);
    assert!(r1["ipoa"]["setups_failed"].as_u64().unwrap() >= 1);
}

fn build_error(text: &str) -> String {
    match api::run_str(
        text,
        Format::Toml,
        "t.toml",
        RunOptions::default(),
        &mut |_| std::ops::ControlFlow::Continue(()),
    ) {
        Ok(_) => panic!("expected an error"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn internetwork_mistakes_are_reported_with_their_field() {
    let base = TWO_SITES_SERIAL;
    let e = build_error(&format!("{base}\n[[tcp]]\nname = \"t\"\nclient = \"h1\"\nserver = \"r2\"\n"));
    assert!(e.contains("tcp[0].server") && e.contains("router `r2`"), "{e}");
    let e = build_error(&base.replace("members = [\"h1\", \"r1\"]", "members = [\"h1\"]"));
    assert!(e.contains("lan[0].members") && e.contains("at least two"), "{e}");
    let e = build_error(&base.replace("members = [\"h1\", \"r1\"]", "members = [\"h1\", \"r1\", \"h1\"]"));
    assert!(e.contains("lan[0].members[2]"), "{e}");
    let e = build_error(&base.replace("rate_bps = 1.5e6", "rate_bps = -1"));
    assert!(e.contains("serial[0].rate_bps"), "{e}");
    let cut = base.replace("[[serial]]\na = \"r1\"\nb = \"r2\"\nrate_bps = 1.5e6\ndelay_ms = 5.0\n", "");
    let e = build_error(&format!("{cut}\n[[tcp]]\nname = \"t\"\nclient = \"h1\"\nserver = \"h2\"\n"));
    assert!(e.contains("tcp[0].server") && e.contains("no route"), "{e}");
    let e = build_error(&format!(
        "{cut}\n[[udp]]\nname = \"u\"\nfrom = \"h1\"\nto = \"h2\"\npacket_bytes = 100\ninterval_ms = 1\n"
    ));
    assert!(e.contains("udp[0].to") && e.contains("no route"), "{e}");
    let e = build_error(&format!("{base}\n[[router]]\nname = \"h1\"\n"));
    assert!(e.contains("router[2].name"), "{e}");
    let e = build_error(&two_sites_atm(r#"{ mux = "router", idle_timeout_s = 0 }"#, true));
    assert!(e.contains("router[0].ipoa.idle_timeout_s"), "{e}");
    let e = build_error(&two_sites_atm(r#"{ mux = "bogus" }"#, true));
    assert!(e.contains("mux"), "{e}");
}
