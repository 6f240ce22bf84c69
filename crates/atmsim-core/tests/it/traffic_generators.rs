//! Sites and traffic generators: a whole site in one table, conversations between random
//! hosts on pooled connections, the same workload under every VC policy.

use super::common::{assert_conserved, deterministic_part, repo_file, run_text};
use atmsim_core::api::{self, Format, RunOptions};

fn two_sites() -> String {
    std::fs::read_to_string(repo_file("scenarios/internetwork/two_sites.toml")).unwrap()
}

fn with_vc_policy(text: &str, vc: &str) -> String {
    text.replace(r#"vc = "svc""#, &format!(r#"vc = "{vc}""#))
}

#[test]
fn a_site_is_its_hosts_router_lan_and_uplink() {
    let text = r#"
[simulation]
duration_s = 1.0
[[switch]]
name = "sw"
[[site]]
name = "x"
workstations = 3
servers = 1
attach = "sw"
link_rate_bps = 1536000
[[site]]
name = "y"
workstations = 1
servers = 1
attach = "sw"
link_rate_bps = 1536000
"#;
    let s = run_text(text, RunOptions::default()).summary;
    let names: Vec<&str> = s["hosts"].as_array().unwrap().iter().map(|h| h["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["x-ws0", "x-ws1", "x-ws2", "x-srv0", "y-ws0", "y-srv0", "x-router", "y-router"]);
    let lans: Vec<&str> = s["lines"].as_array().unwrap().iter().map(|l| l["name"].as_str().unwrap()).collect();
    assert_eq!(lans, ["x-lan", "y-lan"]);
    let ports: Vec<&str> = s["ports"].as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert!(ports.contains(&"x-router->sw") && ports.contains(&"sw->y-router"), "{ports:?}");
}

#[test]
fn finished_conversations_return_their_connection_to_the_pool() {
    let s = run_text(&two_sites(), RunOptions::default()).summary;
    assert_conserved(&s);
    let gens = s["traffic"].as_array().unwrap();
    let started: u64 = gens.iter().map(|g| g["started"].as_u64().unwrap()).sum();
    let max_open: u64 = gens.iter().map(|g| g["max_open"].as_u64().unwrap()).sum();
    let slots = s["connection_pool"]["slots"].as_u64().unwrap();
    assert!(started > 100, "{gens:?}");
    assert!(slots <= max_open && slots < started / 3, "{slots} slots for {started} conversations");
    for g in gens {
        let (st, done, open) =
            (g["started"].as_u64().unwrap(), g["completed"].as_u64().unwrap(), g["open_at_end"].as_u64().unwrap());
        assert_eq!(st, done + g["aborted"].as_u64().unwrap() + open, "{g}");
        assert!(done > 0, "{g}");
    }
}

#[test]
fn the_workload_is_the_same_under_every_vc_policy() {
    // Common random numbers (Mah §3.5.1, spec A-24): who talks to whom, and when, does not
    // depend on the network's policies.
    let base = two_sites();
    let arrivals = |vc: &str| -> Vec<(u64, u64)> {
        let s = run_text(&with_vc_policy(&base, vc), RunOptions::default()).summary;
        assert_conserved(&s);
        s["traffic"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| (g["started"].as_u64().unwrap(), g["skipped"].as_u64().unwrap()))
            .collect()
    };
    let svc = arrivals("svc");
    assert_eq!(svc, arrivals("svccache"));
    assert_eq!(svc, arrivals("pvc"));
}

#[test]
fn the_svc_cache_saves_setups_on_the_same_workload() {
    let s = |vc: &str| run_text(&with_vc_policy(&two_sites(), vc), RunOptions::default()).summary;
    let (svc, cache) = (s("svc"), s("svccache"));
    let setups = |s: &serde_json::Value| s["signalling"]["setups_requested"].as_u64().unwrap();
    let hits: u64 = cache["hosts"].as_array().unwrap().iter().filter_map(|h| h["ipoa"]["cache_hits"].as_u64()).sum();
    assert!(hits > 0);
    assert!(setups(&cache) < setups(&svc), "{} vs {}", setups(&cache), setups(&svc));
}

#[test]
fn generated_runs_are_deterministic() {
    let a = run_text(&two_sites(), RunOptions::default()).summary;
    let b = run_text(&two_sites(), RunOptions::default()).summary;
    assert_eq!(deterministic_part(&a), deterministic_part(&b));
    let c = run_text(&two_sites(), RunOptions { seed: Some(2), ..Default::default() }).summary;
    assert_ne!(deterministic_part(&a)["traffic"], deterministic_part(&c)["traffic"]);
}

fn error(text: &str) -> String {
    api::validate_str(text, Format::Toml, "t.toml").expect_err("expected an error").to_string()
}

#[test]
fn site_and_traffic_mistakes_name_their_field() {
    let base = two_sites();
    let e = error(&base.replace(
        "workstations = 20\nservers = 2\nattach = \"west\"",
        "workstations = 0\nservers = 0\nattach = \"west\"",
    ));
    assert!(e.contains("site[0].servers") && e.contains("at least one host"), "{e}");
    let e = error(&base.replace("workstations = 20", "workstations = -1"));
    assert!(e.contains("site[0].workstations"), "{e}");
    let e = error(&base.replace("attach = \"west\"\n", ""));
    assert!(e.contains("site[0].attach"), "{e}");
    let e = error(
        &base.replace("name = \"telnet\"\napp = { kind = \"telnet\" }", "name = \"telnet\"\napp = { kind = \"bulk\" }"),
    );
    assert!(e.contains("traffic[0].app") && e.contains("bulk runs only in [[tcp]]"), "{e}");
    let e = error(&base.replace("app = { kind = \"ftp\" }", "app = { kind = \"ftp\" }\nfrom = [\"mars\"]"));
    assert!(e.contains("traffic[1].from[0]") && e.contains("mars"), "{e}");
    let e = error(&base.replace("mean_interarrival_s = 20.0", "mean_interarrival_s = -3"));
    assert!(e.contains("traffic[0].mean_interarrival_s"), "{e}");
    let e = error(&base.replace("name = \"urbana\"", "name = \"berkeley\""));
    assert!(e.contains("site[1].name"), "{e}");
}

/// Generated FTP conversations with a connection per item (tcplib): the pooled slot stays
/// with its conversation between items, so the arrivals, the pool accounting and the ledger
/// are as without the option, and every conversation still ends; each item's handshake and
/// slow start make FTP conversations last longer on the same workload.
#[test]
fn generated_ftp_with_a_connection_per_item_keeps_its_slot_between_items() {
    let one = two_sites();
    let per_item = one.replace(r#"app = { kind = "ftp" }"#, r#"app = { kind = "ftp", connection_per_item = true }"#);
    assert_ne!(one, per_item);
    let a = run_text(&one, RunOptions::default()).summary;
    let b = run_text(&per_item, RunOptions::default()).summary;
    assert_conserved(&b);
    assert_eq!(deterministic_part(&b), deterministic_part(&run_text(&per_item, RunOptions::default()).summary));
    let ftp =
        |s: &serde_json::Value| s["traffic"].as_array().unwrap().iter().find(|g| g["name"] == "ftp").unwrap().clone();
    let (fa, fb) = (ftp(&a), ftp(&b));
    assert_eq!(fa["started"], fb["started"], "the same arrivals");
    for g in b["traffic"].as_array().unwrap() {
        let (st, done, open) =
            (g["started"].as_u64().unwrap(), g["completed"].as_u64().unwrap(), g["open_at_end"].as_u64().unwrap());
        assert_eq!(st, done + g["aborted"].as_u64().unwrap() + open, "{g}");
        assert!(done > 0, "{g}");
    }
    let mean = |g: &serde_json::Value| g["duration_mean_s"].as_f64().unwrap();
    assert!(mean(&fb) > mean(&fa), "per item {} s vs one connection {} s", mean(&fb), mean(&fa));
}

/// Mah §3.3.1 TELNET (`keystrokes = true`): the same arrivals and conversations as the echo
/// model, every byte accounted for, one response time per keystroke; refused in `[[tcp]]`.
#[test]
fn telnet_with_keystrokes_runs_the_same_conversations_and_is_refused_in_tcp_slots() {
    let echo = two_sites();
    let keys = echo.replace("app = { kind = \"telnet\" }", "app = { kind = \"telnet\", keystrokes = true }");
    assert_ne!(echo, keys);
    let (e, k) = (run_text(&echo, RunOptions::default()).summary, run_text(&keys, RunOptions::default()).summary);
    assert_conserved(&k);
    let (te, tk) = (&e["applications"]["telnet"], &k["applications"]["telnet"]);
    assert_eq!(te["started"], tk["started"], "arrivals do not depend on the TELNET model");
    let n = tk["metrics"]["response_s"]["n"].as_u64().unwrap();
    assert!(n > 200, "{tk}");
    assert_ne!(te["metrics"]["response_s"], tk["metrics"]["response_s"]);
    let slot = "[[tcp]]\nname = \"t\"\nclient = \"berkeley-ws0\"\nserver = \"urbana-srv0\"\napp = { kind = \"telnet\", keystrokes = true }\n";
    let err = error(&format!("{echo}\n{slot}"));
    assert!(err.contains("tcp[0].app.keystrokes") && err.contains("only in [[traffic]]"), "{err}");
}
