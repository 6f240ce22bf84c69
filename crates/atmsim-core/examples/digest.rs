//! Print the results digest ([`atmsim_core::api::results_digest`]) of scenario files, each run
//! for at most `--cap-s` simulated seconds (default 1): the values
//! `tests/it/results_are_unchanged.rs` compares with.
//!
//! `cargo run --release -p atmsim-core --example digest -- [--cap-s 1] scenarios/**/*.toml`
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut cap = 1.0f64;
    let mut files = Vec::new();
    let mut i = 0;
    while i < args.len() {
        if args[i] == "--cap-s" {
            cap = args[i + 1].parse().expect("--cap-s SECONDS");
            i += 2;
        } else {
            files.push(args[i].clone());
            i += 1;
        }
    }
    for f in files {
        let text = std::fs::read_to_string(&f).expect("read scenario");
        match atmsim_core::api::capped_digest(&text, &f, cap, None) {
            Ok(d) => println!("{f} {d}"),
            Err(e) => println!("{f} ERROR {e}"),
        }
    }
}
