//! Random distributions for traffic models.
//!
//! Owns: [`EmpiricalCdf`] — a piecewise-linear CDF sampled by inverse transform as tcplib
//! does (Danzig & Jamin 1991, `tcplib.c`): a uniform `u` below the first breakpoint's
//! probability returns the first value (a point mass); otherwise the value is interpolated
//! linearly between the two breakpoints that bracket `u`. tcplib draws `u` on a 1/1000 grid;
//! atmsim draws it continuously, which changes no quantile by more than one grid step.
//! Also the parametric laws the studies name: [`exponential`], [`geometric`] and
//! [`truncated_geometric`] (Koçyiğit's background message lengths), and [`Zipf`] (Mah's
//! choice of FTP and Web servers by popularity, App. A §A.5.7).
//!
//! Every draw takes the caller's own stream ([`crate::rng::Stream`]), so entities never share
//! random numbers.

use crate::rng::{Rng, Stream};

/// A piecewise-linear CDF given by breakpoints `(value, cdf)` with non-decreasing values and
/// probabilities, the last probability being 1.
#[derive(Clone, Debug, PartialEq)]
pub struct EmpiricalCdf {
    values: Vec<f64>,
    cdf: Vec<f64>,
}

impl EmpiricalCdf {
    /// From breakpoints; errors say which row breaks which rule.
    pub fn new(points: &[(f64, f64)]) -> Result<Self, String> {
        if points.is_empty() {
            return Err("expected at least one (value, cdf) row".into());
        }
        for (i, w) in points.windows(2).enumerate() {
            if !(w[1].0 >= w[0].0 && w[1].1 >= w[0].1) {
                return Err(format!("row {}: values and cdf must be non-decreasing", i + 2));
            }
        }
        for (i, &(v, p)) in points.iter().enumerate() {
            if !v.is_finite() || !(0.0..=1.0).contains(&p) {
                return Err(format!("row {}: expected a finite value and a cdf in [0, 1]", i + 1));
            }
        }
        let last = points[points.len() - 1].1;
        if (last - 1.0).abs() > 1e-9 {
            return Err(format!("last cdf must be 1, got {last}"));
        }
        Ok(EmpiricalCdf { values: points.iter().map(|p| p.0).collect(), cdf: points.iter().map(|p| p.1).collect() })
    }

    /// Parse a `value,cdf` CSV (header line first). `name` is used in errors.
    pub fn from_csv(name: &str, text: &str) -> Result<Self, String> {
        let mut points = Vec::new();
        for (i, line) in text.lines().enumerate().skip(1) {
            let line = line.trim();
            if line.is_empty() {
                continue;
            }
            let mut cols = line.split(',');
            let v = cols.next().and_then(|c| c.trim().parse::<f64>().ok());
            let p = cols.next_back().and_then(|c| c.trim().parse::<f64>().ok());
            match (v, p) {
                (Some(v), Some(p)) => points.push((v, p)),
                _ => return Err(format!("{name}: line {}: expected `value,cdf`", i + 1)),
            }
        }
        Self::new(&points).map_err(|e| format!("{name}: {e}"))
    }

    /// The value at probability `u` in [0, 1) (the inverse CDF).
    pub fn quantile(&self, u: f64) -> f64 {
        if u < self.cdf[0] {
            return self.values[0];
        }
        // First breakpoint with cdf > u (exists since the last cdf is 1 > u).
        let hi = self.cdf.partition_point(|&p| p <= u).min(self.cdf.len() - 1);
        let lo = hi.saturating_sub(1);
        let (p0, p1) = (self.cdf[lo], self.cdf[hi]);
        if p1 <= p0 {
            return self.values[hi];
        }
        self.values[lo] + (self.values[hi] - self.values[lo]) * (u - p0) / (p1 - p0)
    }

    /// One draw.
    #[inline]
    pub fn sample(&self, r: &mut Stream) -> f64 {
        self.quantile(r.gen::<f64>())
    }

    /// The mean of the distribution (point mass at the first value, then uniform pieces).
    pub fn mean(&self) -> f64 {
        let mut m = self.values[0] * self.cdf[0];
        for i in 1..self.values.len() {
            m += (self.cdf[i] - self.cdf[i - 1]) * (self.values[i] + self.values[i - 1]) / 2.0;
        }
        m
    }
}

/// Zipf's law over ranks 1..=n: rank i is drawn with probability proportional to 1/i
/// (Mah 1996 §A.5.7: "the i-th most popular server ... 1/i"). Draws return the 0-based rank.
#[derive(Clone, Debug, PartialEq)]
pub struct Zipf {
    /// Cumulative probabilities of ranks 1..=n (the last is 1).
    cdf: Vec<f64>,
}

impl Zipf {
    /// Over `n` ≥ 1 ranks.
    pub fn new(n: usize) -> Self {
        assert!(n >= 1, "Zipf over no rank");
        let h: f64 = (1..=n).map(|i| 1.0 / i as f64).sum();
        let mut acc = 0.0;
        let mut cdf: Vec<f64> = (1..=n)
            .map(|i| {
                acc += 1.0 / i as f64 / h;
                acc
            })
            .collect();
        cdf[n - 1] = 1.0;
        Zipf { cdf }
    }

    /// Probability of 0-based rank `k`.
    pub fn p(&self, k: usize) -> f64 {
        self.cdf[k] - if k == 0 { 0.0 } else { self.cdf[k - 1] }
    }

    /// One draw: a 0-based rank.
    pub fn sample(&self, r: &mut Stream) -> usize {
        let u: f64 = r.gen();
        self.cdf.partition_point(|&c| c <= u).min(self.cdf.len() - 1)
    }
}

/// Exponential with the given mean.
pub fn exponential(r: &mut Stream, mean: f64) -> f64 {
    -mean * (1.0 - r.gen::<f64>()).ln()
}

/// Geometric on {1, 2, …} with the given mean (≥ 1): P(k) = (1-p)^(k-1) p, p = 1/mean.
pub fn geometric(r: &mut Stream, mean: f64) -> u64 {
    let p = 1.0 / mean.max(1.0);
    if p >= 1.0 {
        return 1;
    }
    let u = 1.0 - r.gen::<f64>();
    1 + (u.ln() / (1.0 - p).ln()).floor() as u64
}

/// Geometric with parameter `p` truncated to {1, …, max} (by inversion of the truncated CDF).
pub fn truncated_geometric(r: &mut Stream, p: f64, max: u64) -> u64 {
    let q = 1.0 - p;
    let mass = 1.0 - q.powi(max as i32);
    let u = r.gen::<f64>() * mass;
    let k = 1 + ((1.0 - u).ln() / q.ln()).floor() as u64;
    k.clamp(1, max)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{stream, Purpose};

    /// Closed form: over 6 ranks, P(rank i) = (1/i) / H_6 with H_6 = 49/20; sampled
    /// frequencies within 4 standard errors.
    #[test]
    fn zipf_draws_rank_i_with_probability_one_over_i() {
        let z = Zipf::new(6);
        let h6 = 49.0 / 20.0;
        let mut r = stream(3, Purpose::App, 9);
        let n = 200_000;
        let mut count = [0u32; 6];
        for _ in 0..n {
            count[z.sample(&mut r)] += 1;
        }
        for (i, &c) in count.iter().enumerate() {
            let p = 1.0 / (i + 1) as f64 / h6;
            assert!((z.p(i) - p).abs() < 1e-12);
            let se = (p * (1.0 - p) / n as f64).sqrt();
            let f = c as f64 / n as f64;
            assert!((f - p).abs() < 4.0 * se, "rank {}: {f} vs {p}", i + 1);
        }
        assert_eq!(Zipf::new(1).sample(&mut r), 0);
    }

    #[test]
    fn first_row_is_a_point_mass_and_rows_interpolate() {
        let d = EmpiricalCdf::new(&[(1.0, 0.5), (3.0, 0.75), (5.0, 1.0)]).unwrap();
        assert_eq!(d.quantile(0.0), 1.0);
        assert_eq!(d.quantile(0.49), 1.0);
        assert_eq!(d.quantile(0.5), 1.0);
        assert!((d.quantile(0.625) - 2.0).abs() < 1e-12);
        assert!((d.quantile(0.875) - 4.0).abs() < 1e-12);
        assert!((d.mean() - (0.5 * 1.0 + 0.25 * 2.0 + 0.25 * 4.0)).abs() < 1e-12);
    }

    #[test]
    fn malformed_tables_are_refused_with_the_row() {
        assert!(EmpiricalCdf::new(&[(2.0, 0.5), (1.0, 1.0)]).unwrap_err().contains("row 2"));
        assert!(EmpiricalCdf::new(&[(1.0, 0.5), (2.0, 0.9)]).unwrap_err().contains("last cdf"));
        assert!(EmpiricalCdf::from_csv("x.csv", "value,cdf\n1,0.5\nzz,1\n").unwrap_err().contains("line 3"));
    }

    #[test]
    fn sample_mean_converges_to_the_table_mean() {
        let d = EmpiricalCdf::new(&[(0.0, 0.1), (10.0, 0.6), (100.0, 1.0)]).unwrap();
        let mut r = stream(1, Purpose::App, 0);
        let n = 200_000;
        let m: f64 = (0..n).map(|_| d.sample(&mut r)).sum::<f64>() / n as f64;
        assert!((m - d.mean()).abs() / d.mean() < 0.01, "{m} vs {}", d.mean());
    }

    #[test]
    fn parametric_laws_have_their_means() {
        let mut r = stream(2, Purpose::App, 0);
        let n = 200_000;
        let e: f64 = (0..n).map(|_| exponential(&mut r, 3.0)).sum::<f64>() / n as f64;
        assert!((e - 3.0).abs() < 0.05, "{e}");
        let g: f64 = (0..n).map(|_| geometric(&mut r, 25.0) as f64).sum::<f64>() / n as f64;
        assert!((g - 25.0).abs() < 0.3, "{g}");
        // Truncated at 200 with p = 1/25: mean = 1/p - max q^max / (1 - q^max).
        let (p, max) = (1.0 / 25.0, 200u64);
        let q: f64 = 1.0 - p;
        let expect = 1.0 / p - max as f64 * q.powi(max as i32) / (1.0 - q.powi(max as i32));
        let t: Vec<u64> = (0..n).map(|_| truncated_geometric(&mut r, p, max)).collect();
        assert!(t.iter().all(|&k| (1..=max).contains(&k)));
        let tm = t.iter().sum::<u64>() as f64 / n as f64;
        assert!((tm - expect).abs() < 0.3, "{tm} vs {expect}");
    }
}
