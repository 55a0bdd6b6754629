//! Simhash candidates by pieces: bit strings in, every pair within a Hamming distance out.
//!
//! Henzinger §3.3: "We partitioned the bit string of each page into 12 non-overlapping 4-byte
//! pieces … and computed the C-similarity of all pages that had at least one piece in common.
//! This approach is guaranteed to find *all* pairs of pages with difference up to 11." That is
//! the pigeonhole principle: `k` differing bits touch at most `k` of `k + 1` pieces.
//!
//! Manku, Jain, Das Sarma (WWW 2007, §3) generalise it for 64-bit simhashes as *permuted
//! tables*: cut the string into `B` blocks and build one table per choice of `B − k` blocks,
//! keyed by those blocks; a pair with at most `k` differing bits agrees on all blocks of at least
//! one choice. [`PieceScheme::henzinger`] is `B = 12, k = 11` (12 tables of one 32-bit piece);
//! [`PieceScheme::manku`] is `B = 6, k = 3` for 64 bits (20 tables keyed by about 32 bits).
//!
//! Every candidate is then checked exactly: [`similar_pairs`] returns the pairs whose C-similarity
//! (agreeing bits) is at least the threshold — which may be below `b − k`: such pairs are kept
//! when found, but, as Henzinger notes, "might [be missed] for larger differences".

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::lsh::bucket_pairs;
use crate::signature::simhash::{BitString, c_similarity};
use crate::token::mix64;
use crate::{Error, Result};

/// How bit strings are cut into blocks and blocks combined into table keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PieceScheme {
    /// Bits per string.
    pub bits: usize,
    /// Number of blocks `B`; block sizes differ by at most one bit.
    pub blocks: usize,
    /// Differing bits guaranteed to be found (`k < B`); each table keys `B − k` blocks.
    pub tolerance: usize,
}

impl PieceScheme {
    /// Henzinger §3.3: 384 bits, 12 pieces of 32 bits, all pairs within 11 bits found.
    pub fn henzinger() -> Self {
        PieceScheme {
            bits: 384,
            blocks: 12,
            tolerance: 11,
        }
    }

    /// Manku et al. for 64 bits: 6 blocks, all pairs within 3 bits found (20 tables).
    pub fn manku() -> Self {
        PieceScheme {
            bits: 64,
            blocks: 6,
            tolerance: 3,
        }
    }

    /// Check the scheme.
    pub fn validate(&self) -> Result<()> {
        if self.blocks == 0
            || self.tolerance >= self.blocks
            || self.bits < self.blocks
            || self.bits.div_ceil(self.blocks) > 64
        {
            return Err(Error::InvalidParameter(format!(
                "pieces need 0 <= tolerance < blocks <= bits and blocks of at most 64 bits \
                 (got bits={}, blocks={}, tolerance={})",
                self.bits, self.blocks, self.tolerance
            )));
        }
        Ok(())
    }

    /// `(start, length)` of each block.
    fn block_ranges(&self) -> Vec<(usize, usize)> {
        let base = self.bits / self.blocks;
        let extra = self.bits % self.blocks;
        let mut start = 0;
        (0..self.blocks)
            .map(|i| {
                let len = base + usize::from(i < extra);
                let r = (start, len);
                start += len;
                r
            })
            .collect()
    }

    /// The tables: every choice of `blocks − tolerance` block indices, in lexicographic order.
    pub fn tables(&self) -> Vec<Vec<usize>> {
        let choose = self.blocks - self.tolerance;
        let mut out = Vec::new();
        let mut current = Vec::with_capacity(choose);
        combinations(self.blocks, choose, 0, &mut current, &mut out);
        out
    }

    /// One key per table for a bit string.
    pub fn keys(&self, bits: &[u64], tables: &[Vec<usize>]) -> Vec<u64> {
        let ranges = self.block_ranges();
        let blocks: Vec<u64> = ranges
            .iter()
            .map(|&(start, len)| bit_range(bits, start, len))
            .collect();
        tables
            .iter()
            .enumerate()
            .map(|(t, chosen)| {
                chosen
                    .iter()
                    .fold(mix64(t as u64 ^ 0x0009_ece5), |h, &b| mix64(h ^ blocks[b]))
            })
            .collect()
    }
}

fn combinations(n: usize, k: usize, from: usize, cur: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
    if cur.len() == k {
        out.push(cur.clone());
        return;
    }
    for i in from..n {
        if n - i < k - cur.len() {
            break;
        }
        cur.push(i);
        combinations(n, k, i + 1, cur, out);
        cur.pop();
    }
}

/// Bits `start..start+len` (`len ≤ 64`) of a bit string, as the low bits of a word.
fn bit_range(bits: &[u64], start: usize, len: usize) -> u64 {
    let mut out = 0u64;
    for i in 0..len {
        let at = start + i;
        let bit = bits.get(at / 64).map_or(0, |w| (w >> (at % 64)) & 1);
        out |= bit << i;
    }
    out
}

/// Candidate pairs: documents whose strings agree on every block of at least one table.
pub fn candidates(strings: &[BitString], scheme: &PieceScheme) -> Result<Vec<(u32, u32)>> {
    scheme.validate()?;
    let tables = scheme.tables();
    let keys: Vec<Vec<u64>> = strings
        .par_iter()
        .map(|s| {
            if s.len() * 64 < scheme.bits {
                Vec::new()
            } else {
                scheme.keys(s, &tables)
            }
        })
        .collect();
    Ok(bucket_pairs(&keys))
}

/// Pairs `(a, b, agreeing bits)` found by `scheme` with at least `min_agreeing` agreeing bits,
/// sorted by ids.
pub fn similar_pairs(
    strings: &[BitString],
    scheme: &PieceScheme,
    min_agreeing: u32,
) -> Result<Vec<(u32, u32, u32)>> {
    let pairs = candidates(strings, scheme)?;
    Ok(pairs
        .par_iter()
        .filter_map(|&(a, b)| {
            let c = c_similarity(&strings[a as usize], &strings[b as usize]);
            (c >= min_agreeing).then_some((a, b, c))
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    #[test]
    fn henzinger_scheme_is_twelve_single_pieces_and_manku_twenty_tables() {
        let h = PieceScheme::henzinger();
        assert_eq!(h.tables().len(), 12);
        assert!(h.tables().iter().all(|t| t.len() == 1));
        assert_eq!(h.block_ranges()[11], (352, 32));
        let m = PieceScheme::manku();
        assert_eq!(m.tables().len(), 20);
        assert_eq!(m.block_ranges().iter().map(|r| r.1).sum::<usize>(), 64);
        assert!(
            PieceScheme {
                bits: 64,
                blocks: 4,
                tolerance: 4
            }
            .validate()
            .is_err()
        );
    }

    #[test]
    fn every_pair_within_the_tolerance_is_found() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        for scheme in [PieceScheme::henzinger(), PieceScheme::manku()] {
            let words = scheme.bits / 64;
            let base: Vec<u64> = (0..words).map(|_| rng.random()).collect();
            let mut strings = vec![base.clone()];
            // Variants with 1..=tolerance random bits flipped, plus one far away.
            for flips in 1..=scheme.tolerance {
                let mut s = base.clone();
                for _ in 0..flips {
                    let bit = rng.random_range(0..scheme.bits);
                    s[bit / 64] ^= 1 << (bit % 64);
                }
                strings.push(s);
            }
            strings.push(base.iter().map(|w| !w).collect());
            let far = strings.len() as u32 - 1;
            let found = similar_pairs(&strings, &scheme, 0).unwrap_or_default();
            for i in 1..far {
                assert!(
                    found.iter().any(|&(a, b, _)| a == 0 && b == i),
                    "{scheme:?}: pair (0, {i}) missed"
                );
            }
            assert!(found.iter().all(|&(a, b, _)| a != far && b != far));
            let agree = c_similarity(&strings[0], &strings[1]);
            assert!(found.contains(&(0, 1, agree)));
        }
    }

    #[test]
    fn bit_ranges_cross_word_boundaries() {
        let bits = [0xF000_0000_0000_0000u64, 0x0000_0000_0000_000F];
        assert_eq!(bit_range(&bits, 60, 8), 0xFF);
        assert_eq!(bit_range(&bits, 0, 4), 0);
    }
}
