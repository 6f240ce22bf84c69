//! Every IP datagram ends exactly once: delivered, refused by a full adapter, or lost with
//! its AAL5 frame (ip::datagram); the ledger balances at the end of any run.

use atmsim_core::api::RunOptions;

/// Two TCP senders with 64 kB windows of 1000-byte segments (22 cells each) share a 50-cell
/// switch port onto a 1 Mb/s link: `a`'s adapter holds one segment (30 cells), so it refuses
/// datagrams; `c`'s is unlimited on OC-3c, so the switch port overflows and drops cells.
const LOSSY: &str = r#"
[simulation]
duration_s = 10.0
[[host]]
name = "a"
buffer_cells = 30
[[host]]
name = "b"
[[host]]
name = "c"
[[switch]]
name = "sw"
buffer_cells = 50
[[link]]
a = "a"
b = "sw"
preset = "t1"
delay_ms = 1
[[link]]
a = "sw"
b = "b"
rate_bps = 1e6
delay_ms = 1
[[link]]
a = "c"
b = "sw"
preset = "oc3c"
delay_ms = 1
[[vc]]
name = "v"
path = ["a", "sw", "b"]
[[vc]]
name = "w"
path = ["c", "sw", "b"]
[[tcp]]
name = "t"
client = "a"
server = "b"
window_bytes = 65536
mss_bytes = 1000
[[tcp]]
name = "u"
client = "c"
server = "b"
window_bytes = 65536
mss_bytes = 1000
"#;

#[test]
fn refused_lost_and_delivered_datagrams_balance() {
    let out = super::common::run_text(LOSSY, RunOptions::default());
    let d = &out.summary["conservation"]["datagrams"];
    let f = &out.summary["conservation"]["frames"];
    assert_eq!(d["balanced"], true, "{d}");
    assert!(d["refused_at_adapter"].as_u64().unwrap() > 0, "{d}");
    assert!(d["lost_in_fabric"].as_u64().unwrap() > 0, "{d}");
    assert!(d["delivered"].as_u64().unwrap() > 0, "{d}");
    // One datagram per frame: frames that never were (refused) are not in the frame ledger.
    assert_eq!(d["lost_in_fabric"], f["discarded"].as_u64().unwrap() + f["lost"].as_u64().unwrap());
    // Each segment TCP sent (data and ACKs, both ends) is one datagram.
    let segs: u64 = out.summary["connections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["segs_sent"].as_u64().unwrap() + c["acks_sent_by_receiver"].as_u64().unwrap())
        .sum();
    assert!(d["sent"].as_u64().unwrap() >= segs, "{d}");
    super::common::assert_conserved(&out.summary);
}
