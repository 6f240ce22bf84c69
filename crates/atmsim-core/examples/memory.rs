//! Memory the built network holds, per scenario: live heap bytes after the network is built
//! and the parsed document dropped, then after the run (issue 13, goal 6: bytes per idle VC
//! and per TCP connection, as total / items at a size where the tables are nearly full —
//! differences between two sizes measure `Vec` doubling, not items; docs/performance.md).
//!
//! `cargo run --release -p atmsim-core --example memory -- a.toml b.toml`
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

struct Counting;
static LIVE: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        LIVE.fetch_add(l.size(), Relaxed);
        System.alloc(l)
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(l.size(), Relaxed);
        System.dealloc(p, l)
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        LIVE.fetch_add(n, Relaxed);
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
        let doc = atmsim_core::scenario::parse(&text, atmsim_core::api::Format::Toml, &path).expect("parse");
        let mut net = atmsim_core::scenario::build(&doc, None, None).expect("build");
        drop(doc);
        let built = LIVE.load(Relaxed) - base;
        net.run(&mut |_| std::ops::ControlFlow::Continue(()));
        let ran = LIVE.load(Relaxed) - base;
        println!("{path}: built {built} B, after the run {ran} B");
    }
}
