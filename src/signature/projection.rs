//! Random Projection and Hyperlink Map signatures (Di Iorio, Diligenti, Gori, Maggini, Pucci,
//! "Detecting near-replicas on the Web by content and hyperlink analysis", 2003, §2–§3).
//!
//! In: per page its bag of words (term hashes with counts) and its links to other pages *of the
//! same archive* (resolved with [`resolve_links`]). Out: per page an RP signature `R` and an HM
//! signature `X`, both `K`-dimensional with components in `[0, 1]`.
//!
//! - §2.1 RP: `R̂ = Π D` with `Π` a `K × N` matrix of entries uniform in `[−1, 1]` (drawn here
//!   from the term's hash and the seed, so no matrix is stored); `R = (R̂ − R̂ᵐ)` scaled into
//!   `[0, 1]` per component, `R̂ᵐ` the component-wise minimum over the archive. The paper projects
//!   raw counts; [`ProjectionParams::unit_length`] first scales each bag of words to unit length
//!   so that the same story in a longer frame stays close (on by default, our choice).
//! - §2.2 HM: `x^p(t+1) = r^p + γ Σ_{q ∈ ch(p)} x^q(t) · r^q` (component-wise), `x^p(0) = r^p`,
//!   iterated a few times (3–5 in the paper), then divided by the largest component of all pages.
//! - §3 collision with `(C, D)` tolerance: `‖X¹ − X²‖∞ < C` and `‖R¹ − R²‖∞ < D`
//!   ([`colliding_pairs`]); `C = 1` uses the RP signature alone.

use std::collections::HashMap;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::token::mix64;
use crate::{Error, Result};

/// Parameters of the two signatures and of collision.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ProjectionParams {
    /// Dimension `K` (the paper finds no gain beyond 5).
    pub k: usize,
    /// Damping factor `γ` of the Hyperlink Map.
    pub gamma: f64,
    /// Iterations of the Hyperlink Map (3–5 in the paper).
    pub iterations: usize,
    /// HM tolerance `C` (1 or more: HM ignored, the paper's `C = 1` curve; the default, since
    /// HM only tells pages apart in archives whose pages link to each other).
    pub c: f64,
    /// Scale each bag of words to unit length before projecting.
    pub unit_length: bool,
    /// Seed of the projection matrix.
    pub seed: u64,
}

impl Default for ProjectionParams {
    fn default() -> Self {
        ProjectionParams {
            k: 5,
            gamma: 0.1,
            iterations: 3,
            c: 1.0,
            unit_length: true,
            seed: 0,
        }
    }
}

impl ProjectionParams {
    /// Check the parameters.
    pub fn validate(&self) -> Result<()> {
        // Written so that NaN fails too.
        let gamma_ok = self.gamma.is_finite() && self.gamma >= 0.0;
        let c_ok = self.c.is_finite() && self.c > 0.0;
        if self.k == 0 || !gamma_ok || !c_ok {
            return Err(Error::InvalidParameter(format!(
                "projection needs K > 0, γ ≥ 0 and C > 0 (got K={}, γ={}, C={})",
                self.k, self.gamma, self.c
            )));
        }
        Ok(())
    }
}

/// Entry `π_{j,term}` of the projection matrix, uniform in `[−1, 1]`.
#[inline]
fn matrix_entry(term: u64, j: usize, seed: u64) -> f64 {
    let h = mix64(term ^ mix64(seed ^ (j as u64).wrapping_mul(0xa076_1d64_78bd_642f)));
    (h >> 11) as f64 / (1u64 << 52) as f64 - 1.0
}

/// The unnormalised projection `Π D` of one bag of words.
pub fn project(terms: &[u64], params: &ProjectionParams) -> Vec<f64> {
    let mut counts: HashMap<u64, f64> = HashMap::with_capacity(terms.len());
    for &t in terms {
        *counts.entry(t).or_default() += 1.0;
    }
    let norm = if params.unit_length {
        counts.values().map(|c| c * c).sum::<f64>().sqrt()
    } else {
        1.0
    };
    let mut out = vec![0.0; params.k];
    if norm == 0.0 {
        return out;
    }
    // Sum in a fixed order so the result does not depend on the map's iteration order.
    let mut sorted: Vec<(u64, f64)> = counts.into_iter().collect();
    sorted.sort_unstable_by_key(|e| e.0);
    for (term, c) in sorted {
        for (j, o) in out.iter_mut().enumerate() {
            *o += matrix_entry(term, j, params.seed) * c / norm;
        }
    }
    out
}

/// RP signatures of an archive: projections shifted by the component-wise minimum and scaled
/// into `[0, 1]` per component.
pub fn rp_signatures(docs: &[Vec<u64>], params: &ProjectionParams) -> Result<Vec<Vec<f64>>> {
    params.validate()?;
    let mut r: Vec<Vec<f64>> = docs.par_iter().map(|t| project(t, params)).collect();
    for j in 0..params.k {
        let min = r.iter().map(|v| v[j]).fold(f64::INFINITY, f64::min);
        let max = r.iter().map(|v| v[j]).fold(f64::NEG_INFINITY, f64::max);
        let span = max - min;
        for v in &mut r {
            v[j] = if span > 0.0 { (v[j] - min) / span } else { 0.0 };
        }
    }
    Ok(r)
}

/// HM signatures from RP signatures and the children `ch(p)` of every page (indices into `rp`).
pub fn hm_signatures(
    rp: &[Vec<f64>],
    children: &[Vec<u32>],
    params: &ProjectionParams,
) -> Vec<Vec<f64>> {
    let mut x: Vec<Vec<f64>> = rp.to_vec();
    for _ in 0..params.iterations {
        x = rp
            .par_iter()
            .enumerate()
            .map(|(p, r)| {
                let mut next = r.clone();
                for &q in children.get(p).map_or(&[][..], |c| c.as_slice()) {
                    let (xq, rq) = (&x[q as usize], &rp[q as usize]);
                    for j in 0..next.len() {
                        next[j] += params.gamma * xq[j] * rq[j];
                    }
                }
                next
            })
            .collect();
    }
    let max = x.iter().flatten().copied().fold(0.0, f64::max);
    if max > 0.0 {
        for v in &mut x {
            for c in v.iter_mut() {
                *c /= max;
            }
        }
    }
    x
}

/// `‖a − b‖∞`.
pub fn sup_distance(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}

/// Pairs `(a, b, ‖R_a − R_b‖∞)` colliding with `(C, D)` tolerance, sorted by ids: a sweep over
/// pages sorted by their first RP component, comparing only pages less than `D` apart on it.
pub fn colliding_pairs(rp: &[Vec<f64>], hm: &[Vec<f64>], c: f64, d: f64) -> Vec<(u32, u32, f64)> {
    let mut order: Vec<u32> = (0..rp.len() as u32)
        .filter(|&p| !rp[p as usize].is_empty())
        .collect();
    order.sort_by(|&a, &b| {
        rp[a as usize][0]
            .total_cmp(&rp[b as usize][0])
            .then(a.cmp(&b))
    });
    let mut pairs: Vec<(u32, u32, f64)> = (0..order.len())
        .into_par_iter()
        .flat_map_iter(|i| {
            let a = order[i];
            let ra = &rp[a as usize];
            order[i + 1..]
                .iter()
                .take_while(move |&&b| rp[b as usize][0] - ra[0] < d)
                .filter_map(move |&b| {
                    let dr = sup_distance(ra, &rp[b as usize]);
                    let dx = sup_distance(&hm[a as usize], &hm[b as usize]);
                    (dr < d && dx < c).then_some((a.min(b), a.max(b), dr))
                })
        })
        .collect();
    pairs.par_sort_unstable_by(|x, y| (x.0, x.1).cmp(&(y.0, y.1)));
    pairs
}

/// The targets of `<a href>` links in a page, resolved against its URL, fragments dropped.
pub fn page_links(html: &str, page_url: &str) -> Vec<String> {
    let Ok(base) = url::Url::parse(page_url) else {
        return Vec::new();
    };
    let lower = html.to_ascii_lowercase();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(rel) = lower[from..].find("href") {
        let at = from + rel;
        from = at + 4;
        let rest = lower[from..].trim_start();
        let Some(value) = rest.strip_prefix('=') else {
            continue;
        };
        let value_start = html.len() - value.len();
        let raw = html[value_start..].trim_start();
        let target = match raw.as_bytes().first() {
            Some(&q @ (b'"' | b'\'')) => raw[1..].split(q as char).next().unwrap_or(""),
            _ => raw
                .split(|ch: char| ch.is_whitespace() || ch == '>')
                .next()
                .unwrap_or(""),
        };
        if let Ok(mut u) = base.join(target.trim()) {
            u.set_fragment(None);
            out.push(u.to_string());
        }
    }
    out
}

/// Children of every page: the pages of the archive its links point to (self-links dropped,
/// each child once, ascending). `urls[p]` is page `p`'s URL; a URL captured several times
/// resolves to its first page.
pub fn resolve_links(urls: &[Option<String>], links: &[Vec<String>]) -> Vec<Vec<u32>> {
    let mut by_url: HashMap<String, u32> = HashMap::new();
    for (p, u) in urls.iter().enumerate() {
        if let Some(u) = u
            && let Ok(mut parsed) = url::Url::parse(u.trim())
        {
            parsed.set_fragment(None);
            by_url.entry(parsed.to_string()).or_insert(p as u32);
        }
    }
    links
        .iter()
        .enumerate()
        .map(|(p, ls)| {
            let mut ch: Vec<u32> = ls
                .iter()
                .filter_map(|l| by_url.get(l).copied())
                .filter(|&q| q != p as u32)
                .collect();
            ch.sort_unstable();
            ch.dedup();
            ch
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rp_is_in_unit_interval_and_close_for_similar_bags() {
        let p = ProjectionParams::default();
        let a: Vec<u64> = (0..200).collect();
        let mut b = a.clone();
        b.push(999);
        let mut bags = vec![a, b];
        bags.extend((1..20u64).map(|i| (i * 1000..i * 1000 + 200).collect::<Vec<u64>>()));
        let r = rp_signatures(&bags, &p).unwrap_or_default();
        assert!(r.iter().flatten().all(|v| (0.0..=1.0).contains(v)));
        let near = sup_distance(&r[0], &r[1]);
        let far = (2..r.len())
            .map(|i| sup_distance(&r[0], &r[i]))
            .fold(f64::INFINITY, f64::min);
        assert!(near < 0.05 && near < far / 3.0, "near {near} far {far}");
    }

    #[test]
    fn hm_separates_equal_content_with_different_links() {
        let p = ProjectionParams {
            gamma: 0.5,
            ..ProjectionParams::default()
        };
        let rp = vec![vec![0.5, 0.5], vec![0.5, 0.5], vec![1.0, 0.8]];
        let hm = hm_signatures(&rp, &[vec![2], vec![], vec![]], &p);
        assert!(sup_distance(&hm[0], &hm[1]) > 0.1);
        assert!(hm.iter().flatten().all(|v| (0.0..=1.0).contains(v)));
        let pairs = colliding_pairs(&rp, &hm, 1.0, 0.01);
        assert_eq!(pairs, [(0, 1, 0.0)]);
        assert!(colliding_pairs(&rp, &hm, 0.05, 0.01).is_empty());
    }

    #[test]
    fn links_resolve_against_the_page_and_the_archive() {
        let html = r##"<a href="b.html#x">b</a> <A HREF='/c'>c</A> <a href=http://other.org/>o</a> <a href="a.html">self</a>"##;
        let links = page_links(html, "http://s.com/dir/a.html");
        assert_eq!(
            links,
            [
                "http://s.com/dir/b.html",
                "http://s.com/c",
                "http://other.org/",
                "http://s.com/dir/a.html"
            ]
        );
        let urls = vec![
            Some("http://s.com/dir/a.html".to_string()),
            Some("http://s.com/c".to_string()),
            Some("http://s.com/dir/b.html".to_string()),
        ];
        assert_eq!(resolve_links(&urls, &[links, vec![]]), [vec![1, 2], vec![]]);
    }
}
