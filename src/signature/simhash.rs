//! Charikar random projections: Alg. C of Henzinger (SIGIR 2006, §2 and §3.3) with `b = 384`
//! bits, and the common 64-bit simhash (Manku, Jain, Das Sarma, WWW 2007).
//!
//! In: a page's token sequence as 64-bit term hashes (Henzinger's tokens, see
//! [`crate::token::henzinger`]). Out: a bit string of `b` bits per page, as `b / 64` words.
//!
//! §2: "Each token is projected into b-dimensional space by randomly choosing b entries from
//! {−1, 1}. This projection is the same for all pages. For each page a b-dimensional vector is
//! created by adding the projections of all the tokens in its token sequence. The final vector
//! for the page is created by setting every positive entry in the vector to 1 and every
//! non-positive entry to 0." The projection of a token is drawn from its hash and the seed
//! ([`projection_word`]), so it is the same for all pages and needs no table; a token that occurs
//! `n` times adds its projection `n` times (Alg. C takes term frequency into account).
//!
//! The *C-similarity* of two pages is the number of agreeing bits ([`c_similarity`]); they are
//! *C-similar* iff it is at least `t = 372` (§3.3). Pairs are found by pieces, see
//! [`crate::matching::pieces`].

use std::collections::HashMap;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::token::mix64;
use crate::{Error, Result};

/// Henzinger's bit-string length.
pub const HENZINGER_BITS: usize = 384;
/// Henzinger's C-similarity threshold (§3.3).
pub const HENZINGER_THRESHOLD: u32 = 372;

/// A page's projection: `bits / 64` words, bit `i` of the string is bit `i % 64` of word `i / 64`.
pub type BitString = Vec<u64>;

/// Parameters of a simhash.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SimhashParams {
    /// Number of bits `b`, a positive multiple of 64 (384 for Alg. C, 64 for simhash64).
    pub bits: usize,
    /// Seed of the token projections.
    pub seed: u64,
}

impl Default for SimhashParams {
    fn default() -> Self {
        SimhashParams {
            bits: HENZINGER_BITS,
            seed: 0,
        }
    }
}

impl SimhashParams {
    /// Check that `bits` is a positive multiple of 64.
    pub fn validate(&self) -> Result<()> {
        if self.bits == 0 || !self.bits.is_multiple_of(64) {
            return Err(Error::InvalidParameter(format!(
                "simhash bits must be a positive multiple of 64 (got {})",
                self.bits
            )));
        }
        Ok(())
    }

    /// Words per bit string.
    pub fn words(&self) -> usize {
        self.bits / 64
    }
}

/// Word `w` of a token's projection: bit `i` set means entry `64·w + i` is `+1`, clear `−1`.
#[inline]
pub fn projection_word(token: u64, word: usize, seed: u64) -> u64 {
    mix64(token ^ mix64(seed.wrapping_add((word as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15))))
}

/// The projection bit string of one page.
pub fn simhash(tokens: &[u64], params: &SimhashParams) -> BitString {
    let words = params.words();
    // Count tokens first: each distinct token is projected once and weighted by its frequency.
    let mut counts: HashMap<u64, i64, crate::token::TermHashed> =
        HashMap::with_capacity_and_hasher(tokens.len(), Default::default());
    for &t in tokens {
        *counts.entry(t).or_default() += 1;
    }
    let mut sums = vec![0i64; params.bits];
    for (&token, &n) in &counts {
        for w in 0..words {
            let bits = projection_word(token, w, params.seed);
            let lane = &mut sums[w * 64..(w + 1) * 64];
            for (i, s) in lane.iter_mut().enumerate() {
                // +n when the bit is set, −n when it is clear, without a branch.
                let sign = ((bits >> i) & 1) as i64 * 2 - 1;
                *s += sign * n;
            }
        }
    }
    let mut out = vec![0u64; words];
    for (i, &s) in sums.iter().enumerate() {
        if s > 0 {
            out[i / 64] |= 1 << (i % 64);
        }
    }
    out
}

/// Bit strings of many pages, in parallel; `Err` for bad parameters.
pub fn simhashes(docs: &[Vec<u64>], params: &SimhashParams) -> Result<Vec<BitString>> {
    params.validate()?;
    Ok(docs.par_iter().map(|t| simhash(t, params)).collect())
}

/// Number of differing bits.
pub fn hamming(a: &[u64], b: &[u64]) -> u32 {
    a.iter().zip(b).map(|(x, y)| (x ^ y).count_ones()).sum()
}

/// C-similarity: the number of agreeing bits (`b − hamming`).
pub fn c_similarity(a: &[u64], b: &[u64]) -> u32 {
    (a.len().min(b.len()) * 64) as u32 - hamming(a, b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    fn tokens(n: usize, seed: u64) -> Vec<u64> {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        (0..n).map(|_| rng.random()).collect()
    }

    #[test]
    fn order_is_ignored_and_frequency_counts() {
        let p = SimhashParams::default();
        let a = tokens(300, 1);
        let mut rev = a.clone();
        rev.reverse();
        assert_eq!(simhash(&a, &p), simhash(&rev, &p));
        assert_eq!(simhash(&a, &p).len(), 6);
        // One token repeated many times pulls the bits towards its own projection.
        let mut heavy = a.clone();
        heavy.extend(std::iter::repeat_n(a[0], 2000));
        let single = simhash(&a[..1], &p);
        assert!(hamming(&simhash(&heavy, &p), &single) < hamming(&simhash(&a, &p), &single));
    }

    #[test]
    fn similarity_falls_with_the_share_of_changed_tokens() {
        let p = SimhashParams::default();
        let a = tokens(1000, 2);
        let mut small = a.clone();
        small[..2].copy_from_slice(&tokens(2, 3));
        let mut large = a.clone();
        large[..400].copy_from_slice(&tokens(400, 4));
        let (ha, hs, hl) = (simhash(&a, &p), simhash(&small, &p), simhash(&large, &p));
        assert_eq!(c_similarity(&ha, &ha), 384);
        assert!(c_similarity(&ha, &hs) >= HENZINGER_THRESHOLD);
        assert!(c_similarity(&ha, &hl) < c_similarity(&ha, &hs));
        let unrelated = simhash(&tokens(1000, 5), &p);
        let c = c_similarity(&ha, &unrelated);
        assert!(
            (140..250).contains(&c),
            "unrelated pages agree on about half the bits: {c}"
        );
    }

    #[test]
    fn seeds_and_widths() {
        let a = tokens(50, 6);
        let p64 = SimhashParams { bits: 64, seed: 1 };
        assert_eq!(simhash(&a, &p64).len(), 1);
        assert_ne!(
            simhash(&a, &p64),
            simhash(&a, &SimhashParams { bits: 64, seed: 2 })
        );
        assert!(SimhashParams { bits: 100, seed: 0 }.validate().is_err());
        assert_eq!(simhash(&[], &p64), [0]);
    }
}
