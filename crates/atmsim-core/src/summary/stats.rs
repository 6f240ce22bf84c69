//! What several sections of the summary compute alike: the measurement window, and the
//! statistics of a set of delays.
//!
//! Owns: [`Window`], [`EchoStats`].

/// The run's end and warm-up \[s\], and the measurement window between them (at least the
/// smallest positive float, so rates over an empty window are finite).
#[derive(Clone, Copy, Debug)]
pub struct Window {
    pub end: f64,
    pub warm: f64,
    pub len: f64,
}

/// Mean, sample standard deviation and quantiles (linear interpolation between order
/// statistics) of a set of delays.
#[derive(Clone, Copy, Debug)]
pub struct EchoStats {
    pub mean: f64,
    pub std: f64,
    pub median: f64,
    pub p90: f64,
}

impl EchoStats {
    /// `None` without samples. Sorts `d`.
    pub fn of(d: &mut [f64]) -> Option<Self> {
        if d.is_empty() {
            return None;
        }
        d.sort_by(f64::total_cmp);
        let n = d.len() as f64;
        let mean = d.iter().sum::<f64>() / n;
        let var = if d.len() > 1 { d.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0) } else { 0.0 };
        let q = |p: f64| {
            let h = p * (n - 1.0);
            let (lo, hi) = (h.floor() as usize, h.ceil() as usize);
            d[lo] + (d[hi] - d[lo]) * (h - lo as f64)
        };
        Some(EchoStats { mean, std: var.sqrt(), median: q(0.5), p90: q(0.9) })
    }
}

#[cfg(test)]
mod tests {
    use super::EchoStats;

    #[test]
    fn echo_stats_of_a_small_sample() {
        let s = EchoStats::of(&mut [4.0, 1.0, 3.0, 2.0]).unwrap();
        assert_eq!(s.mean, 2.5);
        assert!((s.std - (5.0f64 / 3.0).sqrt()).abs() < 1e-12);
        assert_eq!(s.median, 2.5);
        assert!((s.p90 - 3.7).abs() < 1e-12);
        assert!(EchoStats::of(&mut []).is_none());
    }
}
