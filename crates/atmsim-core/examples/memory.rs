//! Memory the scenario reader and the built network take, per scenario: the peak of heap bytes
//! while the text is parsed, and while it is built; live heap bytes after the network is built
//! and the parsed document dropped, then after the run (bytes per idle VC and per TCP
//! connection, as total / items at a size where the tables are nearly full —
//! differences between two sizes measure `Vec` doubling, not items; docs/performance.md).
//!
//! `cargo run --release -p atmsim-core --example memory -- a.toml b.json`
use atmsim_core::api::Format;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

struct Counting;
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew() {
    PEAK.fetch_max(LIVE.load(Relaxed), Relaxed);
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        LIVE.fetch_add(l.size(), Relaxed);
        grew();
        System.alloc(l)
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(l.size(), Relaxed);
        System.dealloc(p, l)
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        LIVE.fetch_add(n, Relaxed);
        grew();
        LIVE.fetch_sub(l.size(), Relaxed);
        System.realloc(p, l, n)
    }
}

#[global_allocator]
static A: Counting = Counting;

fn main() {
    for path in std::env::args().skip(1) {
        let text = std::fs::read_to_string(&path).expect("read scenario");
        let base = LIVE.load(Relaxed);
        PEAK.store(base, Relaxed);
        let format = if path.ends_with(".json") { Format::Json } else { Format::Toml };
        let doc = atmsim_core::scenario::parse(&text, format, &path).expect("parse");
        let parse_peak = PEAK.load(Relaxed) - base;
        let parsed = LIVE.load(Relaxed) - base;
        let mut net = atmsim_core::scenario::build(&doc, None, None).expect("build");
        let build_peak = PEAK.load(Relaxed) - base;
        drop(doc);
        let built = LIVE.load(Relaxed) - base;
        net.run(&mut |_| std::ops::ControlFlow::Continue(()));
        let ran = LIVE.load(Relaxed) - base;
        println!(
            "{path}: {} B of text; parse peak {parse_peak} B, parsed {parsed} B, build peak {build_peak} B; \
             built {built} B, after the run {ran} B",
            text.len()
        );
    }
}
