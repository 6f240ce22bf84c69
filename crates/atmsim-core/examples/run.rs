//! Run a scenario file and print its summary as JSON (a debugging aid without Python).
//!
//! `cargo run --release -p atmsim-core --example run -- scenarios/magic95/table1_w128k.toml`
fn main() {
    let path = std::env::args().nth(1).expect("usage: run SCENARIO.toml");
    let text = std::fs::read_to_string(&path).expect("read scenario");
    match atmsim_core::api::run_str(&text, atmsim_core::api::Format::Toml, &path, Default::default(), &mut |_| {
        std::ops::ControlFlow::Continue(())
    }) {
        Ok(out) => println!("{}", serde_json::to_string_pretty(&out.summary).unwrap()),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    }
}
