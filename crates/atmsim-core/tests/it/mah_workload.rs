//! Mah's (1996) composite workload on the six-site internetwork at reduced scale (30
//! workstations per site, 300 s): every application runs and is measured, every cell,
//! frame, datagram and signalling message is accounted for, the same conversations start
//! under every VC policy, and the VC-management findings of Chapters 5–6 hold.

use super::common::{assert_conserved, deterministic_part, repo_file, run_text};
use atmsim_core::api::{self, Format, RunOptions};
use serde_json::Value;

/// The shipped noqos-conv-svc file at reduced scale, with the routers' `mux` and `vc`.
fn reduced(mux: &str, vc: &str) -> String {
    reduced_for(mux, vc, 300.0)
}

fn reduced_for(mux: &str, vc: &str, seconds: f64) -> String {
    std::fs::read_to_string(repo_file("scenarios/mah96/noqos_conv_svc.toml"))
        .unwrap()
        .replace("workstations = 200", "workstations = 30")
        .replace("duration_s = 4000.0", &format!("duration_s = {seconds:.1}"))
        .replace(r#"ipoa = { mux = "conv", vc = "svc" }"#, &format!(r#"ipoa = {{ mux = "{mux}", vc = "{vc}" }}"#))
}

fn run(mux: &str, vc: &str) -> Value {
    run_text(&reduced(mux, vc), RunOptions::default()).summary
}

/// (setups requested, cache hits) summed over the routers.
fn setups(s: &Value) -> (u64, u64) {
    let routers = s["hosts"].as_array().unwrap().iter().filter(|h| h.get("ipoa").is_some());
    routers.fold((0, 0), |(a, b), h| {
        (a + h["ipoa"]["setups_requested"].as_u64().unwrap(), b + h["ipoa"]["cache_hits"].as_u64().unwrap())
    })
}

fn metric(s: &Value, app: &str, m: &str) -> Value {
    s["applications"][app]["metrics"][m].clone()
}

#[test]
fn every_application_runs_is_measured_and_accounted_for() {
    let s = run("conv", "svc");
    assert_conserved(&s);
    for (app, m) in [
        ("telnet", "connect_s"),
        ("telnet", "response_s"),
        ("ftp", "file_s"),
        ("ftp", "session_s"),
        ("http", "item_s"),
        ("http", "page_s"),
    ] {
        let v = metric(&s, app, m);
        assert!(v["n"].as_u64().unwrap() > 5, "{app}.{m}: {v}");
        assert!(v["median"].as_f64().unwrap() > 0.0 && v["p90"].as_f64().unwrap() >= v["median"].as_f64().unwrap());
    }
    // Each FTP session moves at least one file; a page is at least one item.
    let a = &s["applications"];
    assert!(metric(&s, "ftp", "file_s")["n"].as_u64() >= metric(&s, "ftp", "session_s")["n"].as_u64());
    assert!(metric(&s, "http", "item_s")["n"].as_u64() >= metric(&s, "http", "page_s")["n"].as_u64());
    for media in ["audio", "video"] {
        let m = &a[media]["media"];
        let (sent, dlv, lost, pend) =
            (m["sent"].as_u64(), m["delivered"].as_u64(), m["lost"].as_u64(), m["in_flight_at_end"].as_u64());
        assert_eq!(sent.unwrap(), dlv.unwrap() + lost.unwrap() + pend.unwrap(), "{media}: {m}");
    }
    assert!(a["smtp"]["completed"].as_u64().unwrap() > 100 && a["nntp"]["started"].as_u64().unwrap() >= 1, "{a}");
    // Per-site processes: one generator per site for each of the seven applications.
    assert_eq!(s["traffic"].as_array().unwrap().len(), 7 * 6);
    let sig = &s["signalling"]["messages"];
    assert!(sig["balanced"].as_bool().unwrap(), "{sig}");
}

/// §3.3.8: browsers are placed until every workstation has exactly one, then no more.
#[test]
fn one_browser_per_workstation_and_then_no_more() {
    let s = run("conv", "svccache");
    let http = &s["applications"]["http"];
    assert_eq!(http["started"].as_u64().unwrap(), 6 * 30, "{http}");
    for g in s["traffic"].as_array().unwrap().iter().filter(|g| g["group"] == "http") {
        assert_eq!(g["started"].as_u64().unwrap(), 30, "{g}");
        assert_eq!(g["skipped"].as_u64().unwrap(), 0, "{g}");
    }
}

/// Common random numbers (Mah §3.5.1, spec A-24): the same conversations start under every
/// multiplexing and VC policy.
#[test]
fn the_same_conversations_start_under_every_policy() {
    let counts = |s: &Value| -> Vec<(String, u64)> {
        let a = s["applications"].as_object().unwrap();
        a.iter().map(|(k, v)| (k.clone(), v["started"].as_u64().unwrap())).collect()
    };
    let base = counts(&run("conv", "svc"));
    for (mux, vc) in [("conv", "svccache"), ("app", "svc"), ("router", "pvc")] {
        assert_eq!(counts(&run(mux, vc)), base, "{mux}-{vc}");
    }
}

/// Chapter 6 (V-12, V-15/16, V-21): caching absorbs most VC requests, and per-conversation
/// VCs without caching need one to two orders of magnitude more setups (10 minutes: the
/// cache's cold start weighs less than in 5).
#[test]
fn circuit_caching_absorbs_most_setups() {
    let run = |vc| run_text(&reduced_for("conv", vc, 600.0), RunOptions::default()).summary;
    let (svc, _) = setups(&run("svc"));
    let (cache_setups, hits) = setups(&run("svccache"));
    let hit_rate = hits as f64 / (hits + cache_setups) as f64;
    assert!(hit_rate >= 0.90, "hit rate {hit_rate}: {hits} hits, {cache_setups} setups");
    let ratio = svc as f64 / cache_setups as f64;
    assert!((10.0..=100.0).contains(&ratio), "conv-svc {svc} vs conv-svccache {cache_setups} setups: {ratio}");
}

/// Chapter 5–6 (M-8, V-10): router multiplexing needs about the 30-VC mesh, and pvc and
/// svccache give identical results for every metric. Only the drivers' VC-management
/// counters differ: a svccache VC idle for 10 s is unbound and re-bound at the next datagram
/// (a cache hit), where a pvc VC stays bound — the same VC, at no cost.
#[test]
fn router_multiplexing_needs_the_mesh_and_pvc_equals_svccache() {
    let pvc = run("router", "pvc");
    let cache = run("router", "svccache");
    let (n, _) = setups(&pvc);
    assert!((30..=48).contains(&n), "router-pvc setups {n}");
    let strip = |s: &Value| {
        let mut s = deterministic_part(s);
        for h in s["hosts"].as_array_mut().unwrap() {
            if let Some(i) = h.get_mut("ipoa") {
                for k in ["vc", "cache_hits", "hit_rate"] {
                    i.as_object_mut().unwrap().remove(k);
                }
            }
        }
        s
    };
    assert_eq!(strip(&pvc), strip(&cache));
}

/// Chapter 5 (M-5, M-10, M-12, M-16; Table 5-1): more multiplexing shortens short
/// transfers, because conversations find a VC already open. Measured here (30 workstations
/// per site, 300 s, seed 1): telnet connect median 273 ms conv → 84 ms router; HTTP item
/// median 373 → 265 (app) and 229 ms (router); FTP file median 285 → 151 and 145 ms.
#[test]
fn multiplexing_shortens_short_transfers() {
    let median = |s: &Value, app: &str, m: &str| metric(s, app, m)["median"].as_f64().unwrap();
    let (conv, app, router) = (run("conv", "svc"), run("app", "svc"), run("router", "svc"));
    assert!(median(&router, "telnet", "connect_s") < 0.5 * median(&conv, "telnet", "connect_s"));
    for s in [&app, &router] {
        assert!(median(s, "http", "item_s") < 0.8 * median(&conv, "http", "item_s"));
        assert!(median(s, "ftp", "file_s") < 0.8 * median(&conv, "ftp", "file_s"));
    }
}

/// Chapter 5 (M-18): with router multiplexing every conversation between two sites shares
/// one VC and so one VC's buffer share in every switch, and audio loses more. Measured (50
/// workstations per site, 1200 s, seed 1): 0.004 % per conversation, 0.044 % per router
/// pair (the thesis: < 0.25 % → > 1 %; our absolute losses are lower, see the report).
#[test]
fn router_multiplexing_raises_audio_loss() {
    let loss = |mux: &str| {
        let text = reduced_for(mux, "svc", 1200.0).replace("workstations = 30", "workstations = 50");
        let s = run_text(&text, RunOptions::default()).summary;
        s["applications"]["audio"]["media"]["loss_rate"].as_f64().unwrap()
    };
    let (conv, router) = (loss("conv"), loss("router"));
    assert!(router > 2.0 * conv && router > 0.0, "audio loss conv {conv}, router {router}");
}

#[test]
fn workload_fields_are_checked() {
    let base = reduced("conv", "svc");
    let cases: [(&str, &str, &str); 8] = [
        ("vc_buffer_cells = 256\n", "vc_buffer_cells = 2000\n", "switch[0].vc_buffer_cells"),
        ("drop_policy = \"epd\"\nepd_threshold_cells = 820\n", "", "switch[0].vc_epd_threshold_cells"),
        (
            "per_site = true\ninitiators = \"servers\"\nremote_only",
            "initiators = \"servers\"\nremote_only",
            "traffic[3].remote_only",
        ),
        ("server_index = 0\nchoice", "to = \"workstations\"\nserver_index = 0\nchoice", "traffic[1].server_index"),
        (
            r#"app = { kind = "ftp", data_connections = true }"#,
            r#"app = { kind = "ftp", data_connections = true, connection_per_item = true }"#,
            "traffic[1].app.connection_per_item",
        ),
        (r#"rank_sites = ["illinois","#, r#"rank_sites = ["nowhere","#, "traffic[1].rank_sites[0]"),
        (
            r#"app = { kind = "audio", payload_bytes = 132 }"#,
            r#"app = { kind = "audio", payload_bytes = 0 }"#,
            "traffic[5].app.payload_bytes",
        ),
        (r#"app = { kind = "video" }"#, r#"app = { kind = "video", frame_rate = -8 }"#, "traffic[6].app.frame_rate"),
    ];
    for (from, to, field) in cases {
        assert!(base.contains(from), "{from}");
        let text = base.replacen(from, to, 1);
        let e = api::validate_str(&text, Format::Toml, "<test>").err().unwrap_or_else(|| panic!("{field}: accepted"));
        assert!(e.to_string().contains(field), "{field}: {e}");
    }
}
