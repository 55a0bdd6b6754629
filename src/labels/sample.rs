//! Samples of a run's pairs for human evaluation (henzinger §3.1–3.3): a run's scored pairs in,
//! a [`DrawnSample`] (pairs in reviewing order + strata with their population sizes) out.
//!
//! Which one should you use?
//! - [`SamplePlan::Uniform`]: a simple random sample of all pairs; its precision estimate is the
//!   plain fraction of correct pairs (henzinger's "overall precision").
//! - [`SamplePlan::Stratified`]: pairs split into similarity bands (her Tables 2 and 5 by B- and
//!   C-similarity), optionally further into same site / different site, and up to
//!   `per_stratum` pairs drawn from each. Rare high-similarity bands then get enough labels; the
//!   estimate weights each stratum by its share of the run's pairs
//!   ([`crate::labels::stats::stratified_precision`]), so it stays unbiased.
//!
//! Everything is drawn with ChaCha8 from the given seed, over the pairs in the order given
//! (the store returns them sorted), so a seed always gives the same sample. The drawn pairs are
//! shuffled into one reviewing order so that a blind reviewer cannot infer the band from the
//! position.

use std::collections::BTreeMap;

pub use crate::store::judgements::{DrawnPair, DrawnSample, SamplePlan, Stratum};
use crate::store::runs::RunPair;
use crate::{Error, Result};
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

/// Format a band edge compactly: `372`, `0.85`.
fn edge(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{x:.0}")
    } else {
        format!("{x}")
    }
}

fn site_word(same: Option<bool>) -> &'static str {
    match same {
        Some(true) => "same-site",
        Some(false) => "different-site",
        None => "unknown-site",
    }
}

/// Draw a sample of the stored run `run`'s pairs by `plan` with `seed` and store it in
/// `project` as `name` (blind: reviewers see neither score, stratum nor detector): its id, what
/// was drawn, and the run's number of pairs. The CLI's `sample`, the workbench's Labels tab and
/// the Python package all sample this way.
pub fn draw_and_store(
    project: &mut crate::store::Project,
    run: crate::store::RunId,
    name: &str,
    plan: &SamplePlan,
    seed: u64,
    blind: bool,
) -> Result<(crate::store::SampleId, DrawnSample, usize)> {
    let pairs = project.run_pairs(run)?;
    let drawn = draw(&pairs, plan, seed)?;
    let id = project.add_sample(name.trim(), Some(run), blind, &drawn)?;
    Ok((id, drawn, pairs.len()))
}

/// Draw a sample of `pairs` by `plan` with `seed`.
pub fn draw(pairs: &[RunPair], plan: &SamplePlan, seed: u64) -> Result<DrawnSample> {
    let quota_asked = match plan {
        SamplePlan::Uniform { size } => *size,
        SamplePlan::Stratified { per_stratum, .. } => *per_stratum,
    };
    if quota_asked == 0 {
        return Err(Error::InvalidParameter(
            "a sample of 0 pairs (--size / --per-stratum 0) would be empty".into(),
        ));
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut left_out = 0u64;
    // (band index, site key) -> pair indices, in input order.
    let mut groups: BTreeMap<(usize, u8), Vec<usize>> = BTreeMap::new();
    let mut bands: Vec<(Option<f64>, Option<f64>, String)> = Vec::new();
    let (quota, split) = match plan {
        SamplePlan::Uniform { size } => {
            bands.push((None, None, "all".into()));
            groups.insert((0, 0), (0..pairs.len()).collect());
            (*size, false)
        }
        SamplePlan::Stratified {
            edges,
            per_stratum,
            split_by_site,
        } => {
            if edges.iter().any(|e| !e.is_finite()) || edges.windows(2).any(|w| w[0] >= w[1]) {
                return Err(Error::InvalidParameter(format!(
                    "band edges must be finite and strictly ascending: {edges:?}"
                )));
            }
            if edges.len() == 1 {
                return Err(Error::InvalidParameter(
                    "one band edge makes no band; give at least two".into(),
                ));
            }
            if edges.is_empty() {
                bands.push((None, None, "all".into()));
            } else {
                for w in edges.windows(2) {
                    bands.push((
                        Some(w[0]),
                        Some(w[1]),
                        format!("{}-{}", edge(w[0]), edge(w[1])),
                    ));
                }
            }
            for (i, p) in pairs.iter().enumerate() {
                let band = if edges.is_empty() {
                    Some(0)
                } else {
                    band_of(edges, p.pair.score)
                };
                let Some(band) = band else {
                    left_out += 1;
                    continue;
                };
                let site = if *split_by_site {
                    match p.same_site {
                        Some(true) => 0,
                        Some(false) => 1,
                        None => 2,
                    }
                } else {
                    0
                };
                groups.entry((band, site)).or_default().push(i);
            }
            (*per_stratum, *split_by_site)
        }
    };
    let mut drawn = Vec::new();
    let mut strata = Vec::new();
    for ((band, site), members) in &groups {
        let (lo, hi, band_name) = &bands[*band];
        let same_site = match (split, site) {
            (false, _) => None,
            (true, 0) => Some(true),
            (true, 1) => Some(false),
            (true, _) => None,
        };
        let name = if split {
            format!("{band_name} {}", site_word(same_site))
        } else {
            band_name.clone()
        };
        let take = quota.min(members.len());
        let mut chosen = rand::seq::index::sample(&mut rng, members.len(), take).into_vec();
        chosen.sort_unstable();
        for c in chosen {
            drawn.push(DrawnPair {
                pair: pairs[members[c]].pair,
                stratum: name.clone(),
            });
        }
        strata.push(Stratum {
            name,
            lo: *lo,
            hi: *hi,
            same_site,
            population: members.len() as u64,
            drawn: take as u64,
        });
    }
    if drawn.is_empty() {
        return Err(Error::InvalidParameter(if pairs.is_empty() {
            "the run has no scored pairs to sample".to_string()
        } else {
            let (lo, hi) = score_range(pairs);
            format!(
                "the sample would be empty: none of the run's {} pairs (scores {lo:.3} to \
                 {hi:.3}) falls into the bands",
                pairs.len(),
            )
        }));
    }
    drawn.shuffle(&mut rng);
    strata.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(DrawnSample {
        plan: plan.clone(),
        seed,
        pairs: drawn,
        strata,
        left_out,
    })
}

/// The lowest and highest score of `pairs` (infinite for none).
pub fn score_range(pairs: &[RunPair]) -> (f64, f64) {
    pairs
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
            (lo.min(p.pair.score), hi.max(p.pair.score))
        })
}

/// The band of `score`: `[e_i, e_{i+1})`, the last band closed; none outside.
fn band_of(edges: &[f64], score: f64) -> Option<usize> {
    let last = edges.len().checked_sub(2)?;
    if score.is_nan() || score < edges[0] || score > edges[last + 1] {
        return None;
    }
    let i = edges.partition_point(|&e| e <= score);
    Some(i.saturating_sub(1).min(last))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::PageId;
    use crate::store::runs::ScoredPair;

    fn pairs(n: usize) -> Vec<RunPair> {
        (0..n)
            .map(|i| RunPair {
                pair: ScoredPair {
                    a: PageId(i as i64),
                    b: PageId(i as i64 + 1000),
                    score: (i % 10) as f64 / 10.0,
                },
                same_site: Some(i % 3 == 0),
            })
            .collect()
    }

    #[test]
    fn bands_are_half_open_with_closed_last() {
        let e = [0.5, 0.7, 0.9, 1.0];
        assert_eq!(band_of(&e, 0.49), None);
        assert_eq!(band_of(&e, 0.5), Some(0));
        assert_eq!(band_of(&e, 0.7), Some(1));
        assert_eq!(band_of(&e, 0.95), Some(2));
        assert_eq!(band_of(&e, 1.0), Some(2));
        assert_eq!(band_of(&e, 1.01), None);
    }

    #[test]
    fn same_seed_same_sample_other_seed_other_sample() {
        let p = pairs(500);
        let plan = SamplePlan::Uniform { size: 40 };
        let a = draw(&p, &plan, 7).unwrap();
        assert_eq!(a, draw(&p, &plan, 7).unwrap());
        assert_ne!(a.pairs, draw(&p, &plan, 8).unwrap().pairs);
        assert_eq!(a.pairs.len(), 40);
        let mut keys: Vec<_> = a.pairs.iter().map(|d| d.pair.a).collect();
        keys.sort();
        keys.dedup();
        assert_eq!(keys.len(), 40, "no pair drawn twice");
    }

    #[test]
    fn stratified_counts_population_and_caps_draws() {
        let p = pairs(500);
        let plan = SamplePlan::Stratified {
            edges: vec![0.0, 0.5, 1.0],
            per_stratum: 30,
            split_by_site: true,
        };
        let s = draw(&p, &plan, 1).unwrap();
        let total: u64 = s.strata.iter().map(|s| s.population).sum();
        assert_eq!(total, 500);
        assert_eq!(s.strata.len(), 4);
        for st in &s.strata {
            assert_eq!(st.drawn, 30.min(st.population));
            let n = s.pairs.iter().filter(|d| d.stratum == st.name).count() as u64;
            assert_eq!(n, st.drawn);
        }
        assert!(s.strata.iter().any(|s| s.name == "0-0.5 same-site"));
    }
}
