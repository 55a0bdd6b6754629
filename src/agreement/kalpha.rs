//! Krippendorff's bootstrap of alpha as the KALPHA macro runs it ([`BootstrapMethod`]'s
//! `Krippendorff`, whose doc gives the algorithm and its sources): M pairs of values drawn from
//! the observed coincidences, D_e held fixed, then the macro's corrections. The draws use an
//! alias table (Walker 1977, Vose 1991), O(1) each.
//!
//! [`BootstrapMethod`]: super::BootstrapMethod

use rand::RngCore;

use super::Level;
use super::bootstrap::{BootstrapConfig, in_blocks};
use super::krippendorff::{Pairable, delta};

/// One column of an alias table (Walker 1977, Vose 1991): keep this cell's δ² when the draw's
/// fraction is below `threshold`, else take its alias's.
struct Slot {
    threshold: u64,
    keep: f64,
    alias: f64,
}

/// An alias table drawing cell i with probability `weights[i] / Σ weights`, yielding `deltas[i]`.
fn alias_table(weights: &[f64], deltas: &[f64]) -> Vec<Slot> {
    let k = weights.len();
    let total: f64 = weights.iter().sum();
    let mut scaled: Vec<f64> = weights.iter().map(|w| w * k as f64 / total).collect();
    let (mut small, mut large): (Vec<usize>, Vec<usize>) = (0..k).partition(|&i| scaled[i] < 1.0);
    let mut alias: Vec<usize> = (0..k).collect();
    let mut keep = vec![1.0; k];
    while let (Some(&s), Some(&l)) = (small.last(), large.last()) {
        small.pop();
        keep[s] = scaled[s];
        alias[s] = l;
        scaled[l] -= 1.0 - scaled[s];
        if scaled[l] < 1.0 {
            large.pop();
            small.push(l);
        }
    }
    // what is left is 1 up to rounding: kept always
    (0..k)
        .map(|i| Slot {
            threshold: if keep[i] >= 1.0 {
                u64::MAX
            } else {
                (keep[i] * 2f64.powi(64)) as u64
            },
            keep: deltas[i],
            alias: deltas[if keep[i] >= 1.0 { i } else { alias[i] }],
        })
        .collect()
}

/// Krippendorff's resampling into `out`; returns (M, resamples set to 0).
pub(super) fn resample(
    pairable: &Pairable,
    level: Level,
    points: &[f64],
    expected: f64,
    config: &BootstrapConfig,
    out: &mut [f64],
) -> (usize, usize) {
    // the coincidence cells {c, k}, c ≤ k, with weight n·p: o_cc, or 2·o_ck for c ≠ k. A unit
    // of m_u values, a_c of them c, adds a_c(a_c − 1)/(m_u − 1) to o_cc and a_c·a_k/(m_u − 1)
    // to o_ck: each pair of its values weighs 1/(m_u − 1) each way
    let key = |c: u32, k: u32| (u64::from(c) << 32) | u64::from(k);
    let mut pairs: Vec<(u64, f64)> = Vec::new();
    let (mut sorted, mut runs) = (Vec::new(), Vec::<(u32, f64)>::new());
    for codes in pairable.unit_codes() {
        sorted.clear();
        sorted.extend_from_slice(codes);
        sorted.sort_unstable();
        runs.clear();
        for &c in &sorted {
            match runs.last_mut() {
                Some(run) if run.0 == c => run.1 += 1.0,
                _ => runs.push((c, 1.0)),
            }
        }
        let per_pair = 1.0 / (codes.len() - 1) as f64;
        for (i, &(c, a)) in runs.iter().enumerate() {
            if a > 1.0 {
                pairs.push((key(c, c), a * (a - 1.0) * per_pair));
            }
            for &(k, b) in &runs[i + 1..] {
                pairs.push((key(c, k), 2.0 * a * b * per_pair));
            }
        }
    }
    pairs.sort_unstable_by_key(|pair| pair.0);
    let mut cells: Vec<(u64, f64)> = Vec::new();
    for (key, weight) in pairs {
        match cells.last_mut() {
            Some(last) if last.0 == key => last.1 += weight,
            _ => cells.push((key, weight)),
        }
    }
    let cell = |key: u64| ((key >> 32) as usize, (key & 0xFFFF_FFFF) as usize);
    let q: usize = cells
        .iter()
        .map(|&(key, _)| if cell(key).0 == cell(key).1 { 1 } else { 2 })
        .sum();
    let n = pairable.n();
    let half_pairs = (n * (pairable.coders as f64 - 1.0) / 2.0).round() as usize;
    let m = (25 * q).min(half_pairs).max(1);
    let weights: Vec<f64> = cells.iter().map(|cell| cell.1).collect();
    let deltas: Vec<f64> = cells
        .iter()
        .map(|&(key, _)| {
            let (c, k) = cell(key);
            delta(level, points, c, k)
        })
        .collect();
    let slots = alias_table(&weights, &deltas);
    let scale = 1.0 / (m as f64 * expected);
    let ones = in_blocks(out, config, |rng, chunk| {
        let mut ones = 0;
        for alpha in chunk.iter_mut() {
            let mut sum = 0.0;
            for _ in 0..m {
                let wide = u128::from(rng.next_u64()) * slots.len() as u128;
                let slot = &slots[(wide >> 64) as usize];
                sum += if (wide as u64) < slot.threshold {
                    slot.keep
                } else {
                    slot.alias
                };
            }
            ones += usize::from(sum == 0.0);
            *alpha = (1.0 - sum * scale).max(-1.0);
        }
        ones
    });
    // rule (3): resamples of agreeing pairs that may lack variation become 0
    let diagonal: Vec<f64> = cells
        .iter()
        .filter(|&&(key, _)| cell(key).0 == cell(key).1)
        .map(|cell| cell.1 / n)
        .collect();
    let zeroed = match diagonal.len() {
        _ if ones == 0 => 0,
        1 => ones,
        _ => {
            let expected_ones: f64 = diagonal.iter().map(|p| p.powf(m as f64)).sum();
            ((out.len() as f64 * expected_ones).round() as usize).min(ones)
        }
    };
    for alpha in out.iter_mut().filter(|a| **a == 1.0).take(zeroed) {
        *alpha = 0.0;
    }
    (m, zeroed)
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    use super::*;

    #[test]
    fn alias_table_draws_its_weights() {
        let weights = [0.5, 3.0, 1.5, 0.0, 5.0];
        let deltas = [0.0, 1.0, 2.0, 3.0, 4.0];
        let slots = alias_table(&weights, &deltas);
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let mut seen = [0usize; 5];
        for _ in 0..100_000 {
            let wide = u128::from(rng.next_u64()) * slots.len() as u128;
            let slot = &slots[(wide >> 64) as usize];
            let d = if (wide as u64) < slot.threshold {
                slot.keep
            } else {
                slot.alias
            };
            seen[d as usize] += 1;
        }
        for (w, s) in weights.iter().zip(seen) {
            assert!((s as f64 / 100_000.0 - w / 10.0).abs() < 0.005, "{seen:?}");
        }
    }
}
