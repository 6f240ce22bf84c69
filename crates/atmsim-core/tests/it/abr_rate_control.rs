use crate::common::*;
use atmsim_core::api::RunOptions;

#[test]
fn scratch_dump() {
    let text = std::fs::read_to_string(repo_file("scenarios/kalampoukas97/sec52_symmetric.toml")).unwrap()
        .replace("duration_s = 3.0", "duration_s = 0.5").replace("warmup_s = 0.5", "warmup_s = 0.1").replace("sample_interval_ms = 1\n", "");
    let t = std::time::Instant::now();
    let out = run_text(&text, RunOptions::default());
    println!("{:?}", t.elapsed());
    let mut s = out.summary.clone();
    println!("{}", serde_json::to_string_pretty(&s).unwrap());
    let _ = &mut s;
}
