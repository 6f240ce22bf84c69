//! Criterion micro-benchmark of the event queue: schedule + pop with a steady population,
//! the pattern of a busy cell-level simulation (each handled event schedules one more).

use atmsim_core::kernel::{rank, EventQueue, Ranked};
use atmsim_core::time::SimTime;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

#[derive(Clone, Copy)]
#[allow(dead_code)]
enum Ev {
    A(u32),
    B(u32, u8),
}

impl Ranked for Ev {
    /// Two kinds of events, each of one of `pop` entities.
    fn rank(&self) -> u32 {
        match *self {
            Ev::A(i) => rank(1, i),
            Ev::B(i, _) => rank(2, i),
        }
    }
}

fn hold(c: &mut Criterion) {
    let mut g = c.benchmark_group("event_queue_hold");
    for &pop in &[4usize, 64, 4096] {
        g.throughput(Throughput::Elements(100_000));
        g.bench_with_input(BenchmarkId::from_parameter(pop), &pop, |b, &pop| {
            let mut q = EventQueue::new();
            let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
            for i in 0..pop {
                q.schedule(SimTime(i as u64 * 1000), Ev::A(i as u32));
            }
            b.iter(|| {
                for _ in 0..100_000 {
                    let (t, e) = q.pop().unwrap();
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    let ev = match e {
                        Ev::A(i) => Ev::B(i, 1),
                        Ev::B(i, _) => Ev::A(i),
                    };
                    q.schedule(SimTime(t.0 + 1 + (x % 100_000)), ev);
                }
            });
        });
    }
    g.finish();
}

criterion_group!(benches, hold);
criterion_main!(benches);
