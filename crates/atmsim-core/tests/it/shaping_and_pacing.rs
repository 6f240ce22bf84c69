//! Traffic shaping and pacing at host adapters (atm::shaping): shaped sources get exactly
//! their rate, shaped output conforms, and MAGIC Experiment 2 (Ewy et al. 1995, §3.2,
//! Table 2): cell-level pacing rescues TCP across an OC-3c -> TAXI-100 mismatch.

use super::common::*;
use atmsim_core::api::RunOptions;

/// A greedy source of 9180-byte frames on a VC from `a` through `sw` to `b` (OC-3c links),
/// with `vc_extra` added to the VC and `host_extra` to host `a`.
fn greedy_text(vc_extra: &str, host_extra: &str, sources: usize) -> String {
    let mut t = format!(
        r#"
[simulation]
duration_s = 0.5
warmup_s = 0.1
sample_interval_ms = 5
[[host]]
name = "a"
{host_extra}
[[host]]
name = "b"
[[switch]]
name = "sw"
[[link]]
a = "a"
b = "sw"
preset = "oc3c"
delay_ms = 1.0
[[link]]
a = "sw"
b = "b"
preset = "oc3c"
delay_ms = 1.0
"#
    );
    for i in 0..sources {
        t += &format!(
            r#"
[[vc]]
name = "v{i}"
path = ["a", "sw", "b"]
{vc_extra}
[[cell_source]]
name = "g{i}"
vc = "v{i}"
from = "a"
kind = "greedy"
"#
        );
    }
    t
}

/// Goodput of a source shaped at `rate_bps`: cells at rate/424 per second, 9180 IP bytes
/// per 192 cells.
fn shaped_goodput(rate_bps: f64) -> f64 {
    rate_bps / 424.0 * 9180.0 * 8.0 / 192.0
}

fn shaper<'a>(s: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    s["shapers"].as_array().unwrap().iter().find(|x| x["name"] == name).unwrap()
}

#[test]
fn a_greedy_source_shaped_at_r_gets_r_and_its_cells_conform() {
    for (extra, kind) in [
        ("shape = { rate_bps = 50e6, tau_us = 0 }", "vc"),
        ("shape = { rate_bps = 50e6, tau_us = 30 }", "vc"),
        ("pace_bps = 50e6", "pace"),
    ] {
        let out = run_text(&greedy_text(extra, "", 1), RunOptions::default());
        let s = &out.summary;
        assert_conserved(s);
        let got = s["sources"][0]["goodput_bps"].as_f64().unwrap();
        let want = shaped_goodput(50e6);
        println!("{extra}: {:.4} Mb/s (want {:.4})", got / 1e6, want / 1e6);
        assert!((got - want).abs() / want < 0.005, "{extra}: {got} vs {want}");
        let sh = shaper(s, "v0");
        assert_eq!(sh["kind"], kind);
        assert_eq!(sh["nonconforming_releases"], 0, "{sh}");
        assert!(sh["cells_shaped"].as_u64().unwrap() > 10_000);
        // With tau = 0 the adapter port only ever holds the cell the shaper just released;
        // tau lets a burst of up to 1 + tau/T cells through at once.
        let port = s["ports"].as_array().unwrap().iter().find(|p| p["name"] == "a->sw").unwrap();
        let t = sh["t_s"].as_f64().unwrap();
        let burst = 1 + (sh["tau_s"].as_f64().unwrap() / t) as u64;
        assert!(port["max_queue_cells"].as_u64().unwrap() <= burst, "{port}");
        assert_eq!(s["ports"].as_array().unwrap().iter().map(|p| p["drops"].as_u64().unwrap()).sum::<u64>(), 0);
    }
}

#[test]
fn a_kocyigit_style_mean_and_beta_gives_rate_beta_times_mean() {
    let out = run_text(&greedy_text("shape = { mean_bps = 25e6, beta = 1.2 }", "", 1), RunOptions::default());
    let got = out.summary["sources"][0]["goodput_bps"].as_f64().unwrap();
    let want = shaped_goodput(30e6);
    assert!((got - want).abs() / want < 0.005, "{got} vs {want}");
}

#[test]
fn a_rate_in_cells_per_second_is_the_same_contract_as_in_bits() {
    // 100,000 cells/s = 42.4 Mb/s of cells: the same increment T = 10 µs.
    let cells = run_text(&greedy_text("shape = { rate_cells_per_s = 1e5 }", "", 1), RunOptions::default()).summary;
    let bits = run_text(&greedy_text("shape = { rate_bps = 42.4e6 }", "", 1), RunOptions::default()).summary;
    assert_eq!(shaper(&cells, "v0")["t_s"], shaper(&bits, "v0")["t_s"]);
    assert_eq!(cells["sources"], bits["sources"]);
    assert!((shaper(&cells, "v0")["t_s"].as_f64().unwrap() - 1e-5).abs() < 1e-15);
}

/// OTTO pacing (MAGIC Fig. 2): a paced VC uses at most its share of the link's cell slots and
/// the slots it leaves go to the other VCs of the adapter. The adapter serves its VC queues
/// round robin, so a released paced cell waits at most one cell per other VC, as a cell in
/// its OTTO slot would. (Behind a FIFO adapter a paced cell waits behind whole frames of the
/// other VC; a greedy source, which keeps two frames outstanding, then loses rate — see the
/// module docs of `atm::shaping`.)
#[test]
fn a_paced_vc_leaves_its_unused_slots_to_other_vcs() {
    let text = greedy_text("", "scheduler = \"round_robin\"", 2).replacen(
        "path = [\"a\", \"sw\", \"b\"]\n",
        "path = [\"a\", \"sw\", \"b\"]\npace_bps = 70e6\n",
        1,
    );
    let s = run_text(&text, RunOptions::default()).summary;
    assert_conserved(&s);
    let g = |i: usize| s["sources"][i]["goodput_bps"].as_f64().unwrap();
    let paced = shaped_goodput(70e6);
    let rest = shaped_goodput(149.76e6 - 70e6);
    println!(
        "paced {:.3} Mb/s (want {:.3}), other {:.3} Mb/s (want {:.3})",
        g(0) / 1e6,
        paced / 1e6,
        g(1) / 1e6,
        rest / 1e6
    );
    assert!((g(0) - paced).abs() / paced < 0.01);
    assert!((g(1) - rest).abs() / rest < 0.01);
}

/// VP shaping: one shaper for all of a host's VCs; frames leave whole, one after another.
#[test]
fn a_host_shaper_limits_the_sum_of_its_vcs() {
    let text = greedy_text("", "shape = { rate_bps = 60e6 }", 3);
    let out = run_text(&text, RunOptions::default());
    let s = &out.summary;
    assert_conserved(s);
    let total: f64 = s["sources"].as_array().unwrap().iter().map(|x| x["goodput_bps"].as_f64().unwrap()).sum();
    let want = shaped_goodput(60e6);
    assert!((total - want).abs() / want < 0.005, "{total} vs {want}");
    let sh = shaper(s, "a");
    assert_eq!(sh["kind"], "host");
    assert_eq!(sh["nonconforming_releases"], 0);
    // FIFO of frames: each source gets a third.
    for x in s["sources"].as_array().unwrap() {
        let g = x["goodput_bps"].as_f64().unwrap();
        assert!((g - want / 3.0).abs() / (want / 3.0) < 0.02, "{x}");
    }
}

#[test]
fn shaped_runs_are_deterministic_and_batching_invariant() {
    let text = greedy_text("shape = { rate_bps = 40e6, tau_us = 20 }", "", 2);
    let (a, _) = assert_batching_invariant(&text);
    let b = run_text(&text, RunOptions::default());
    assert_eq!(deterministic_part(&a.summary), deterministic_part(&b.summary));
    assert_conserved(&a.summary);
    let text = std::fs::read_to_string(repo_file("scenarios/magic95/table2_pacing_70.toml")).unwrap();
    let text = text.replace("duration_s = 6.0", "duration_s = 1.5").replace("warmup_s = 1.0", "warmup_s = 0.5");
    let (a, b) = assert_batching_invariant(&text);
    assert_conserved(&a.summary);
    // The paced adapter is released by its port as it is brought up to date: no event per
    // cell for the pacing, none for the port; what is left is mostly the switch's arrivals
    // (one for every two cell-hops).
    let per_hop = |o: &atmsim_core::api::RunOutput| {
        o.summary["run"]["events"].as_f64().unwrap() / o.summary["run"]["cell_hops"].as_f64().unwrap()
    };
    assert!(per_hop(&b) > 1.9, "event by event: {} per cell-hop", per_hop(&b));
    assert!(per_hop(&a) < 0.6, "served ahead: {} per cell-hop", per_hop(&a));
    let text = two_switch_tcp("reshape = { at = \"sw2\", rate_bps = 60e6, tau_us = 30 }");
    let (a, _) = assert_batching_invariant(&text);
    assert_conserved(&a.summary);
}

#[test]
fn a_frame_queued_as_a_port_releases_its_shaper_goes_in_as_with_events() {
    // Koçyiğit's one-user run (four VCs shaped at 35 Mb/s in one round-robin adapter, 5000-cell
    // buffers) with a static-priority port at the second switch: neither switch is drained,
    // so the adapter releases its shapers itself as it is brought up to date. A frame that TCP
    // queues into a shaper at the very instant of one of its releases must go in before the
    // release (a CPU finishing its job comes before a shaper's release in the instant, DESIGN
    // §2b), as the release's own event would have it; releasing first held one cell fewer
    // than event by event (the peak queue of v1's shaper, 3973 against 3974).
    let text = std::fs::read_to_string(repo_file("scenarios/kocyigit/oneuser_buffer5000_vc35.toml")).unwrap();
    let text =
        text.replace("duration_s = 20.0", "duration_s = 3.0").replace("warmup_s = 4.0", "warmup_s = 0.5").replace(
            "name = \"sw2\"\nbuffer_cells = 5000",
            "name = \"sw2\"\nbuffer_cells = 5000\nscheduler = \"static_priority\"",
        );
    assert!(text.contains("static_priority") && text.contains("duration_s = 3.0"));
    let (a, _) = assert_batching_invariant(&text);
    assert_conserved(&a.summary);
}

#[test]
fn shaping_errors_name_the_field() {
    let cases = [
        ("shape = { rate_bps = -1 }", "vc[0].shape.rate_bps"),
        ("shape = { rate_bps = 100 }", "vc[0].shape.rate_bps"),
        ("shape = { rate_bps = 1e6, mean_bps = 1e6 }", "vc[0].shape.mean_bps"),
        ("shape = { mean_bps = 1e6, beta = 0.5 }", "vc[0].shape.beta"),
        ("shape = { rate_bps = 1e6, beta = 1.2 }", "vc[0].shape.beta"),
        ("shape = { tau_us = 3 }", "vc[0].shape.rate_bps"),
        ("shape = { rate_bps = 1e6, tau_us = -3 }", "vc[0].shape.tau_us"),
        ("shape = { rate_bps = 1e6 }\npace_bps = 1e6", "vc[0].pace_bps"),
        ("pace_bps = 0", "vc[0].pace_bps"),
        ("police = { rate_bps = 1e6, action = \"zap\" }", "action"),
        ("police = { tau_us = 1 }", "vc[0].police.rate_bps"),
        ("shape = { rate_bps = 1e6, rate_cells_per_s = 1e3 }", "vc[0].shape.rate_cells_per_s"),
        ("shape = { rate_cells_per_s = -5 }", "vc[0].shape.rate_cells_per_s"),
        ("police = { rate_cells_per_s = 0.5 }", "vc[0].police.rate_cells_per_s"),
    ];
    let err_of = |text: &str| {
        atmsim_core::scenario::parse(text, atmsim_core::api::Format::Toml, "t")
            .and_then(|doc| atmsim_core::scenario::build(&doc, None, None).map(|_| ()))
            .err()
    };
    for (extra, field) in cases {
        let err = err_of(&greedy_text(extra, "", 1)).unwrap_or_else(|| panic!("{extra} accepted"));
        assert!(err.to_string().contains(field), "{extra}: {err}");
    }
    let err = err_of(
        &greedy_text("", "", 1)
            .replace("name = \"sw\"\n", "name = \"sw\"\nbuffer_cells = 8\nclp1_threshold_cells = 9\n"),
    );
    assert!(err.unwrap().to_string().contains("switch[0].clp1_threshold_cells"));
    let text = greedy_text("pace_bps = 1e6", "shape = { rate_bps = 1e6 }", 1);
    let doc = atmsim_core::scenario::parse(&text, atmsim_core::api::Format::Toml, "t").unwrap();
    let err = atmsim_core::scenario::build(&doc, None, None).err().unwrap();
    assert!(err.to_string().contains("vc[0].pace_bps"), "{err}");
}

/// A greedy OC-3c source policed at 50 Mb/s at the first switch: with `drop`, exactly the
/// conforming cells go on; with `tag`, all go on and the excess is CLP=1; and a bottleneck
/// port with a CLP=1 threshold drops only tagged cells.
#[test]
fn a_policer_tags_or_drops_the_excess_at_the_first_switch() {
    let base = greedy_text("police = { rate_bps = 50e6, action = \"drop\" }", "", 1);
    let out = run_text(&base, RunOptions::default());
    let s = &out.summary;
    assert_conserved(s);
    let p = &s["policers"][0];
    let passed = p["cells_in"].as_u64().unwrap() - p["dropped"].as_u64().unwrap();
    let want = 50e6 / 424.0 * 0.5;
    assert!((passed as f64 - want).abs() / want < 0.01, "{p}");
    assert_eq!(s["conservation"]["cells"]["dropped_police"], p["dropped"]);
    // Random cells lost from every frame: practically nothing is delivered whole.
    assert!(s["sources"][0]["goodput_bps"].as_f64().unwrap() < 5e6);

    let tag = greedy_text("police = { rate_bps = 50e6, action = \"tag\" }", "", 1);
    let out = run_text(&tag, RunOptions::default());
    let s = &out.summary;
    assert_conserved(s);
    let p = &s["policers"][0];
    let frac = p["tagged"].as_f64().unwrap() / p["cells_in"].as_f64().unwrap();
    assert!((frac - (1.0 - 50e6 / 149.76e6)).abs() < 0.01, "{p}");
    assert_eq!(s["conservation"]["cells"]["dropped_police"], 0);
    let src_goodput = s["sources"][0]["goodput_bps"].as_f64().unwrap();
    assert!(src_goodput > 130e6, "{src_goodput}");

    // TAXI-100 bottleneck with a 256-cell buffer and a CLP=1 threshold of 32 cells: the
    // 50 Mb/s of CLP=0 cells always fit; only tagged cells are dropped.
    let squeezed = tag.replace("name = \"sw\"\n", "name = \"sw\"\nbuffer_cells = 256\nclp1_threshold_cells = 32\n");
    let squeezed = {
        let i = squeezed.rfind("preset = \"oc3c\"").unwrap();
        format!("{}preset = \"taxi100\"{}", &squeezed[..i], &squeezed[i + "preset = \"oc3c\"".len()..])
    };
    let out = run_text(&squeezed, RunOptions::default());
    let s = &out.summary;
    assert_conserved(s);
    let port = s["ports"].as_array().unwrap().iter().find(|p| p["name"] == "sw->b").unwrap();
    assert_eq!(port["rate_bps"], 100e6);
    assert!(port["drop_clp1"].as_u64().unwrap() > 1000, "{port}");
    assert_eq!(port["drop_tail"], 0, "{port}");
    assert!(port["max_queue_cells"].as_u64().unwrap() <= 40, "{port}");
}

/// MAGIC Table 2: 0.87 Mb/s without pacing, 68.2 Mb/s with 70 Mb/s pacing.
#[test]
fn magic_table2_pacing_rescues_tcp_across_a_rate_mismatch() {
    let unpaced = run_file("scenarios/magic95/table2_no_pacing.toml", RunOptions::default());
    let paced = run_file("scenarios/magic95/table2_pacing_70.toml", RunOptions::default());
    for o in [&unpaced, &paced] {
        assert_conserved(&o.summary);
    }
    let g = |o: &atmsim_core::api::RunOutput| o.summary["connections"][0]["goodput_bps"].as_f64().unwrap();
    let (u, p) = (g(&unpaced), g(&paced));
    let limit = 70e6 * 9140.0 / (192.0 * 53.0);
    let uc = &unpaced.summary["connections"][0];
    let pc = &paced.summary["connections"][0];
    println!(
        "Table 2: no pacing {:.3} Mb/s (paper 0.87; {} timeouts, {} rexmt segs), pacing {:.3} Mb/s (paper 68.2; limit {:.2}; {} rexmt segs)",
        u / 1e6,
        uc["timeouts"],
        uc["rexmt_segs"],
        p / 1e6,
        limit / 1e6,
        pc["rexmt_segs"]
    );
    let sh = shaper(&paced.summary, "pvc");
    println!("pacing shaper: {sh}");
    assert!((p - limit).abs() / limit < 0.10, "paced {p} vs {limit}");
    assert_eq!(sh["nonconforming_releases"], 0);
    assert_eq!(pc["rexmt_segs"], 0, "paced TCP should lose nothing");
    assert!(u < 0.25 * p, "unpaced {u} vs paced {p}: no collapse");
}

/// A TCP transfer over host -> sw1 -> sw2 -> host (OC-3c), 128 kB window; `vc_extra` is added
/// to the VC.
fn two_switch_tcp(vc_extra: &str) -> String {
    let mut t = String::from(
        r#"
[simulation]
duration_s = 3.0
warmup_s = 0.5
sample_interval_ms = 0
[[host]]
name = "a"
[[host]]
name = "b"
[[switch]]
name = "sw1"
[[switch]]
name = "sw2"
"#,
    );
    for (x, y) in [("a", "sw1"), ("sw1", "sw2"), ("sw2", "b")] {
        t += &format!("[[link]]\na = \"{x}\"\nb = \"{y}\"\npreset = \"oc3c\"\ndelay_ms = 1.0\n");
    }
    t += &format!("[[vc]]\nname = \"v\"\npath = [\"a\", \"sw1\", \"sw2\", \"b\"]\n{vc_extra}\n");
    t += "[[tcp]]\nname = \"t\"\nclient = \"a\"\nserver = \"b\"\nvc = \"v\"\nwindow_bytes = 131072\n";
    t
}

/// I.371 re-shaping inside the network: a switch input that shapes a VC to 40 Mb/s makes
/// its cells conform to a 40 Mb/s policer at the next switch (τ = 100 µs: bursts of about
/// ten cells), which otherwise drops the excess of TCP's line-rate bursts.
#[test]
fn a_reshaper_at_a_switch_input_makes_the_vc_conform_downstream() {
    let police = "police = { rate_bps = 40e6, tau_us = 100.0, action = \"drop\", at = \"sw2\" }";
    let plain = run_text(&two_switch_tcp(police), RunOptions::default()).summary;
    let reshaped = run_text(
        &two_switch_tcp(&format!("{police}\nreshape = {{ at = \"sw1\", rate_bps = 40e6 }}")),
        RunOptions::default(),
    )
    .summary;
    for s in [&plain, &reshaped] {
        assert_conserved(s);
    }
    assert!(plain["policers"][0]["dropped"].as_u64().unwrap() > 100, "{}", plain["policers"]);
    assert_eq!(reshaped["policers"][0]["dropped"], 0, "{}", reshaped["policers"]);
    let sh = shaper(&reshaped, "v@sw1");
    assert_eq!(sh["kind"], "switch");
    assert_eq!(sh["nonconforming_releases"], 0);
    let got = reshaped["connections"][0]["goodput_bps"].as_f64().unwrap();
    let limit = 40e6 * 9140.0 / (192.0 * 53.0);
    assert!(got <= limit * 1.001 && got > 0.98 * limit, "{got} vs {limit}");
    let lost = plain["connections"][0]["goodput_bps"].as_f64().unwrap();
    assert!(lost < 0.5 * got, "policed without re-shaping: {lost}");
}

#[test]
fn reshaping_and_policing_name_a_switch_on_the_path() {
    for (extra, field) in [
        ("reshape = { at = \"sw9\", rate_bps = 40e6 }", "vc[0].reshape.at"),
        ("police = { rate_bps = 40e6, at = \"a\" }", "vc[0].police.at"),
        ("reshape = { at = \"sw1\", rate_bps = -1 }", "vc[0].reshape.rate_bps"),
    ] {
        let e = atmsim_core::api::validate_str(&two_switch_tcp(extra), atmsim_core::api::Format::Toml, "x.toml")
            .expect_err(extra);
        assert_eq!(e.field, field, "{e}");
    }
}

/// A re-shaper's buffer is finite: a greedy OC-3c source re-shaped to 40 Mb/s at the switch
/// fills it, the excess is dropped and counted, and the output port carries exactly 40 Mb/s.
#[test]
fn a_full_reshaper_drops_and_the_ledger_counts_it() {
    let text = greedy_text("reshape = { at = \"sw\", rate_bps = 40e6, buffer_cells = 500 }", "", 1);
    let s = run_text(&text, RunOptions::default()).summary;
    assert_conserved(&s);
    let sh = shaper(&s, "v0@sw");
    assert!(sh["max_queue_cells"].as_u64().unwrap() <= 500, "{sh}");
    assert!(sh["dropped"].as_u64().unwrap() > 10_000, "{sh}");
    assert_eq!(s["conservation"]["cells"]["dropped_reshape"], sh["dropped"]);
    let port = s["ports"].as_array().unwrap().iter().find(|p| p["name"] == "sw->b").unwrap();
    let util = port["utilization"].as_f64().unwrap();
    assert!((util - 40e6 / 149.76e6).abs() < 0.005, "{util}");
    // Without a size the re-shaper takes the switch's buffer size.
    let text = greedy_text("reshape = { at = \"sw\", rate_bps = 40e6 }", "", 1)
        .replace("name = \"sw\"\n", "name = \"sw\"\nbuffer_cells = 300\n");
    let s = run_text(&text, RunOptions::default()).summary;
    assert_eq!(shaper(&s, "v0@sw")["max_queue_cells"], 300);
}

/// A Poisson source of 60 Mb/s of cells on an OC-3c link, its VC shaped to 20 Mb/s with
/// `shape_extra` added to the shape table.
fn overloaded_shaper(shape_extra: &str) -> String {
    greedy_text(&format!("shape = {{ rate_bps = 20e6{shape_extra} }}"), "", 1)
        .replace("kind = \"greedy\"", "kind = \"poisson\"\nload_bps = 60e6\nmean_cells = 25\nmax_cells = 200")
}

/// A host shaper offered three times its rate holds at most `buffer_cells`: frames that do
/// not fit whole are refused before injection, as a full adapter refuses them, and every
/// ledger (cells, frames, datagrams) still balances; the shaper still sends at its rate.
#[test]
fn a_full_host_shaper_refuses_whole_frames_and_the_ledgers_count_them() {
    let s = run_text(&overloaded_shaper(", buffer_cells = 600"), RunOptions::default()).summary;
    assert_conserved(&s);
    let sh = shaper(&s, "v0");
    assert_eq!(sh["buffer_cells"], 600);
    assert!(sh["max_queue_cells"].as_u64().unwrap() <= 600, "{sh}");
    let refused = sh["cells_refused"].as_u64().unwrap();
    // Offered 60 Mb/s for 0.5 s, sent 20 Mb/s: about two thirds of the cells are refused.
    let offered = 60e6 / 424.0 * 0.5;
    assert!((refused as f64 / offered - 2.0 / 3.0).abs() < 0.05, "{refused} of {offered}");
    let c = &s["conservation"];
    assert_eq!(c["cells"]["refused_at_host"].as_u64().unwrap(), refused);
    assert_eq!(c["datagrams"]["refused_at_adapter"], sh["frames_refused"]);
    assert_eq!(sh["nonconforming_releases"], 0);
    let port = s["ports"].as_array().unwrap().iter().find(|p| p["name"] == "sw->b").unwrap();
    let util = port["utilization"].as_f64().unwrap();
    assert!((util - 20e6 / 149.76e6).abs() < 0.005, "{util}");
}

/// Without `buffer_cells`, a shaper carrying only TCP holds at most the sender's socket
/// buffer: (⌈snd_buf / MSS⌉ + 1) full segments of cells (here 128 kB windows, MSS 9140:
/// 16 segments of 192 cells). TCP never has more than that unacknowledged, so nothing is
/// refused. A shaper carrying a cell source takes the adapter's buffer (unlimited here).
#[test]
fn the_default_shaper_bound_is_the_tcp_send_buffer() {
    let s = run_text(&two_switch_tcp("shape = { rate_bps = 40e6 }"), RunOptions::default()).summary;
    assert_conserved(&s);
    let sh = shaper(&s, "v");
    let want = (131072u64.div_ceil(9140) + 1) * 192;
    assert_eq!(sh["buffer_cells"].as_u64().unwrap(), want);
    assert_eq!(sh["frames_refused"], 0);
    assert!(sh["max_queue_cells"].as_u64().unwrap() <= 131072u64.div_ceil(9140) * 192, "{sh}");
    let s = run_text(&overloaded_shaper(""), RunOptions::default()).summary;
    assert!(shaper(&s, "v0")["buffer_cells"].is_null());
    let s = run_text(
        &overloaded_shaper("").replace("name = \"a\"\n", "name = \"a\"\nbuffer_cells = 700\n"),
        RunOptions::default(),
    )
    .summary;
    assert_eq!(shaper(&s, "v0")["buffer_cells"], 700);
    assert_conserved(&s);
}

/// A shaper bound below TCP's window refuses segments; TCP recovers them (retransmissions)
/// and the ledgers balance.
#[test]
fn a_shaper_smaller_than_the_window_costs_tcp_segments_and_balances() {
    let s =
        run_text(&two_switch_tcp("shape = { rate_bps = 40e6, buffer_cells = 1000 }"), RunOptions::default()).summary;
    assert_conserved(&s);
    let sh = shaper(&s, "v");
    assert!(sh["frames_refused"].as_u64().unwrap() > 0, "{sh}");
    let c = &s["connections"][0];
    assert!(c["rexmt_segs"].as_u64().unwrap() >= sh["frames_refused"].as_u64().unwrap() / 2, "{c}");
    assert!(c["goodput_bps"].as_f64().unwrap() > 1e6, "{c}");
}

#[test]
fn a_shaper_buffer_must_hold_one_frame() {
    for (extra, msg) in [
        (
            "shape = { rate_bps = 1e6, buffer_cells = 191 }",
            "at least one frame of host `a`'s MTU (9180 bytes = 192 cells)",
        ),
        ("shape = { rate_bps = 1e6, buffer_cells = -1 }", "got -1"),
        ("shape = { rate_bps = 1e6, buffer_cells = 4294967295 }", "between 192 and 4294967294"),
    ] {
        let e = atmsim_core::api::validate_str(&greedy_text(extra, "", 1), atmsim_core::api::Format::Toml, "x.toml")
            .expect_err(extra);
        assert_eq!(e.field, "vc[0].shape.buffer_cells", "{e}");
        assert!(e.to_string().contains(msg), "{e}");
    }
    let e = atmsim_core::api::validate_str(
        &greedy_text("", "shape = { rate_bps = 1e6, buffer_cells = 10 }", 1),
        atmsim_core::api::Format::Toml,
        "x.toml",
    )
    .expect_err("host");
    assert_eq!(e.field, "host[0].shape.buffer_cells", "{e}");
}

/// Host `a` sends two TCP connections to `b`, one on a VC shaped at 20 Mb/s and one
/// unshaped, through one adapter; host `c` sends Poisson messages shaped at 1.2 times their
/// mean rate; both reach the switch over links of no length, and the switch is drained
/// unless `plain_extra` (added to the unshaped VC) polices it.
fn shaped_beside_a_drained_switch(ties: &str, tau_us: f64, plain_extra: &str) -> String {
    format!(
        r#"
[simulation]
duration_s = 1.0
warmup_s = 0.2
sample_interval_ms = 7
tie_order = "{ties}"
[[host]]
name = "a"
[[host]]
name = "c"
[[host]]
name = "b"
[[host]]
name = "d"
[[switch]]
name = "sw"
buffer_cells = 300
[[link]]
a = "a"
b = "sw"
preset = "oc3c"
delay_ms = 0.0
[[link]]
a = "c"
b = "sw"
preset = "oc3c"
delay_ms = 0.0
[[link]]
a = "sw"
b = "b"
preset = "oc3c"
delay_ms = 2.0
[[link]]
a = "sw"
b = "d"
preset = "oc3c"
delay_ms = 0.5
[[vc]]
name = "shaped"
path = ["a", "sw", "b"]
shape = {{ rate_bps = 20e6, tau_us = {tau_us} }}
[[vc]]
name = "plain"
path = ["a", "sw", "b"]
{plain_extra}
[[vc]]
name = "bg"
path = ["c", "sw", "b"]
shape = {{ mean_bps = 20e6, beta = 1.2 }}
[[tcp]]
name = "t-shaped"
client = "a"
server = "b"
vc = "shaped"
window_bytes = 131072
[[tcp]]
name = "t-plain"
client = "a"
server = "b"
vc = "plain"
window_bytes = 131072
[[cell_source]]
name = "background"
vc = "bg"
from = "c"
kind = "poisson"
load_bps = 20e6
mean_cells = 25
max_cells = 200
"#
    )
}

#[test]
fn shapers_beside_a_drained_switch_take_an_event_per_frame_end_and_change_nothing() {
    // The adapters release their shapers themselves while the switch is drained: one shaper
    // event per frame end (its release known in advance), none per cell. Every engine order
    // and batching mode gives the same results, with and without a burst tolerance.
    // With a policer on the unshaped VC the switch takes an event per arrival; the adapter
    // still releases its shapers itself, and a frame queued in the instant of a release by an
    // event after the releases' kind goes in before it when the release was armed in that
    // instant (the release then falls in the next generation).
    let police = "police = { rate_bps = 1e9, tau_us = 1000, action = \"tag\" }";
    for (tau_us, plain_extra) in [(0.0, ""), (50.0, ""), (0.0, police)] {
        let fifo = shaped_beside_a_drained_switch("fifo", tau_us, plain_extra);
        let (a, b) = assert_batching_invariant(&fifo);
        assert_conserved(&a.summary);
        for ties in ["lifo", "random"] {
            let other = run_text(&shaped_beside_a_drained_switch(ties, tau_us, plain_extra), batching(true));
            let mut x = deterministic_part(&other.summary);
            x.as_object_mut().unwrap().remove("tie_order");
            let mut y = deterministic_part(&a.summary);
            y.as_object_mut().unwrap().remove("tie_order");
            assert_eq!(x, y, "tie order {ties}, tau {tau_us} us");
        }
        let per_hop = |o: &atmsim_core::api::RunOutput| {
            o.summary["run"]["events"].as_f64().unwrap() / o.summary["run"]["cell_hops"].as_f64().unwrap()
        };
        assert!(per_hop(&b) > 1.0, "event by event: {} per cell-hop", per_hop(&b));
        let drained = plain_extra.is_empty();
        assert!(!drained || per_hop(&a) < 0.1, "served ahead: {} per cell-hop", per_hop(&a));
        let goodput = |name: &str| {
            a.summary["connections"].as_array().unwrap().iter().find(|c| c["name"] == name).unwrap()["goodput_bps"]
                .as_f64()
                .unwrap()
        };
        // Payload at 20 Mb/s of cells; the measurement window may hold one segment more.
        let cap = 20e6 * 9140.0 / (192.0 * 53.0);
        assert!((0.95 * cap..=1.01 * cap).contains(&goodput("t-shaped")), "{}", goodput("t-shaped"));
        assert!(goodput("t-plain") > goodput("t-shaped"), "the unshaped connection takes the rest");
        assert_eq!(shaper(&a.summary, "shaped")["nonconforming_releases"], 0);
    }
}
