//! Broder shingling (Alg. B of Henzinger, "Finding near-duplicate web pages: a large-scale
//! evaluation of algorithms", SIGIR 2006, §2) and plain MinHash as datasketch users know it.
//!
//! In: a page's token sequence as 64-bit term hashes ([`crate::token::term_hash`] of the terms of
//! a [`crate::token::TokenSource`]; Henzinger's tokens are the Henzinger source). Out: per page a
//! vector of `m'` *supershingles* (Alg. B) or of `m` *min-values* (MinHash).
//!
//! Alg. B, step by step (§2):
//!
//! 1. every run of `k` consecutive tokens is fingerprinted with a 64-bit **Rabin fingerprint**
//!    ([`rabin_extend`]: arithmetic in GF(2)\[x\] modulo the irreducible pentanomial
//!    `x^64 + x^4 + x^3 + x + 1`, one 64-bit token at a time) — these are the *shingles*;
//! 2. each shingle goes through `m` fingerprinting functions `f_i` that are the same for all
//!    pages; the smallest value of each is the `i`-th *min-value* (so repeated shingles count
//!    once). Our `f_i` is a seeded bijection of 64-bit words ([`min_hash_function`]): xor a
//!    per-function salt drawn from the seed, then MurmurHash3's 64-bit finaliser;
//! 3. the `m` min-values are cut into `m' = m / l` runs of `l`, each run fingerprinted again
//!    (Rabin, another start value) into a *supershingle*;
//! 4. the *B-similarity* of two pages is the number of positions where their supershingle
//!    vectors agree; they are *B-similar* iff it is at least 2.
//!
//! Henzinger's parameters are the defaults of [`ShingleParams`]: `k = 8, m = 84, l = 14, m' = 6`.
//! Pairs are found as she did: sort all (position, supershingle) keys and compare pages that share
//! one (see [`crate::matching::lsh::bucket_pairs`]).
//!
//! MinHash ([`min_values`] + [`jaccard_estimate`]) is steps 1–2 alone: the share of agreeing
//! min-values estimates the Jaccard similarity of the two shingle *sets*; LSH banding over it is
//! in [`crate::matching::lsh`].

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::token::mix64;
use crate::{Error, Result};

/// Parameters of Alg. B (Henzinger §2); the defaults are hers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShingleParams {
    /// Tokens per shingle (`k`, 8).
    pub k: usize,
    /// Min-values per page (`m`, 84).
    pub m: usize,
    /// Min-values per supershingle (`l`, 14); `m` must be a multiple of it.
    pub l: usize,
    /// Seed of the fingerprinting functions `f_i`.
    pub seed: u64,
}

impl Default for ShingleParams {
    fn default() -> Self {
        ShingleParams {
            k: 8,
            m: 84,
            l: 14,
            seed: 0,
        }
    }
}

impl ShingleParams {
    /// Number of supershingles per page (`m' = m / l`, 6 by default).
    pub fn supershingles(&self) -> usize {
        self.m.checked_div(self.l).unwrap_or(0)
    }

    /// Check that the parameters make sense together.
    pub fn validate(&self) -> Result<()> {
        if self.k == 0 || self.m == 0 || self.l == 0 || !self.m.is_multiple_of(self.l) {
            return Err(Error::InvalidParameter(format!(
                "shingling needs k, m, l > 0 and m a multiple of l (got k={}, m={}, l={})",
                self.k, self.m, self.l
            )));
        }
        Ok(())
    }
}

/// Multiply a Rabin fingerprint by `x^64` and add the next 64-bit word, modulo
/// `P(x) = x^64 + x^4 + x^3 + x + 1` (irreducible over GF(2)).
///
/// The fingerprint of a word sequence `w_1 … w_n` is `Σ w_i(x) · x^{64(n-i)} mod P`, Rabin's
/// scheme applied to the concatenated bits; it is linear, so it goes through the non-linear
/// [`min_hash_function`]s before any minimum is taken.
#[inline]
pub fn rabin_extend(fingerprint: u64, word: u64) -> u64 {
    // f·x^64 ≡ f·(x^4 + x^3 + x + 1) (mod P); the product has degree < 68, so reduce its top
    // four bits once more the same way.
    let f = fingerprint;
    let low = f ^ (f << 1) ^ (f << 3) ^ (f << 4);
    let high = (f >> 63) ^ (f >> 61) ^ (f >> 60);
    low ^ high ^ (high << 1) ^ (high << 3) ^ (high << 4) ^ word
}

/// The Rabin fingerprint of a sequence of 64-bit words, starting from `start`.
pub fn rabin(start: u64, words: &[u64]) -> u64 {
    words.iter().fold(start, |f, &w| rabin_extend(f, w))
}

/// The shingles of a token sequence: one Rabin fingerprint per run of `k` consecutive tokens
/// (`n − k + 1` of them; one for the whole sequence when it is shorter than `k` but not empty).
pub fn shingles(tokens: &[u64], k: usize) -> Vec<u64> {
    if tokens.is_empty() || k == 0 {
        return Vec::new();
    }
    if tokens.len() <= k {
        return vec![rabin(0, tokens)];
    }
    tokens.windows(k).map(|w| rabin(0, w)).collect()
}

/// The salt of fingerprinting function `i` for a seed.
#[inline]
fn salt(seed: u64, i: usize) -> u64 {
    mix64(seed ^ mix64((i as u64).wrapping_add(0x9e37_79b9_7f4a_7c15)))
}

/// Fingerprinting function `f_i` of Alg. B: a seeded bijection of 64-bit words.
#[inline]
pub fn min_hash_function(salt: u64, shingle: u64) -> u64 {
    mix64(shingle ^ salt)
}

/// The `m` min-values of a set of shingles (duplicates are harmless). Empty input gives an empty
/// vector: a page with no tokens has no min-values and matches nothing.
pub fn min_values(shingles: &[u64], m: usize, seed: u64) -> Vec<u64> {
    if shingles.is_empty() {
        return Vec::new();
    }
    let salts: Vec<u64> = (0..m).map(|i| salt(seed, i)).collect();
    let mut mins = vec![u64::MAX; m];
    for &s in shingles {
        for (min, &salt) in mins.iter_mut().zip(&salts) {
            let v = min_hash_function(salt, s);
            if v < *min {
                *min = v;
            }
        }
    }
    mins
}

/// Cut `m` min-values into runs of `l` and fingerprint each run into a supershingle. The run's
/// position is the Rabin start value, so equal runs at different positions differ.
pub fn supershingles(min_values: &[u64], l: usize) -> Vec<u64> {
    if l == 0 {
        return Vec::new();
    }
    min_values
        .chunks_exact(l)
        .enumerate()
        .map(|(j, run)| rabin(mix64(0x5eed_5eed ^ j as u64), run))
        .collect()
}

/// The supershingle vector of one page under `params`.
pub fn supershingle_vector(tokens: &[u64], params: &ShingleParams) -> Vec<u64> {
    let mins = min_values(&shingles(tokens, params.k), params.m, params.seed);
    supershingles(&mins, params.l)
}

/// Supershingle vectors of many pages, in parallel; `Err` for bad parameters.
pub fn supershingle_vectors(docs: &[Vec<u64>], params: &ShingleParams) -> Result<Vec<Vec<u64>>> {
    params.validate()?;
    Ok(docs
        .par_iter()
        .map(|t| supershingle_vector(t, params))
        .collect())
}

/// The `m` 32-bit min-values of a set of shingles for MinHash: each shingle is mixed to 64 bits
/// once, then `h_i(x) = (a_i·x + b_i mod 2^64) >> 32` (Dietzfelbinger's multiply-add-shift,
/// 2-independent; `a_i` odd, both drawn from the seed) — a loop the compiler vectorises, which
/// is most of MinHash's speed. datasketch's family is `(a·x + b) mod (2^61 − 1)` truncated to
/// 32 bits; 32-bit values halve the memory of 64-bit ones.
pub fn min_values32(shingles: &[u64], m: usize, seed: u64) -> Vec<u32> {
    MinHash32::new(m, seed).min_values(shingles)
}

/// The `m` functions of [`min_values32`] for a seed, made once for many pages.
#[derive(Debug, Clone)]
pub struct MinHash32 {
    a: Vec<u64>,
    b: Vec<u64>,
}

impl MinHash32 {
    /// The functions' coefficients.
    pub fn new(m: usize, seed: u64) -> MinHash32 {
        let (a, b) = (0..m)
            .map(|i| (salt(seed, i) | 1, salt(seed ^ 0x6a09_e667_f3bc_c908, i)))
            .unzip();
        MinHash32 { a, b }
    }

    /// [`min_values32`] of one page's shingles.
    pub fn min_values(&self, shingles: &[u64]) -> Vec<u32> {
        if shingles.is_empty() {
            return Vec::new();
        }
        let (a, b) = (&self.a, &self.b);
        let mut mins = vec![u32::MAX; a.len()];
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx512f")
                && std::arch::is_x86_feature_detected!("avx512dq")
            {
                // SAFETY: the CPU has AVX-512 F and DQ, checked on the lines above.
                unsafe { min_hash32_avx512(shingles, a, b, &mut mins) };
                return mins;
            }
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU has AVX2, checked on the line above; the function only needs
                // that.
                unsafe { min_hash32_avx2(shingles, a, b, &mut mins) };
                return mins;
            }
        }
        min_hash32(shingles, a, b, &mut mins);
        mins
    }
}

/// Each shingle mixed ([`mix64`]) and split into its low and high 32 bits, once per page.
fn mixed_halves(shingles: &[u64]) -> Vec<(u32, u32)> {
    shingles
        .iter()
        .map(|&s| {
            let x = mix64(s);
            (x as u32, (x >> 32) as u32)
        })
        .collect()
}

/// Function `i`'s value of a shingle `x`: bits 32..64 of `a_i * x + b_i` (mod 2^64).
#[inline(always)]
fn min_hash_value(a: u64, b: u64, (x_lo, x_hi): (u32, u32)) -> u32 {
    let x = u64::from(x_lo) | (u64::from(x_hi) << 32);
    (a.wrapping_mul(x).wrapping_add(b) >> 32) as u32
}

/// The portable loop of [`min_values32`], and the functions past the last whole vector of
/// the vector kernels.
fn min_hash32(shingles: &[u64], a: &[u64], b: &[u64], mins: &mut [u32]) {
    min_hash32_rest(&mixed_halves(shingles), a, b, mins);
}

fn min_hash32_rest(mixed: &[(u32, u32)], a: &[u64], b: &[u64], mins: &mut [u32]) {
    for ((min, &a), &b) in mins.iter_mut().zip(a).zip(b) {
        for &x in mixed {
            *min = (*min).min(min_hash_value(a, b, x));
        }
    }
}

/// [`min_hash32`] with AVX-512, eight functions to a vector and up to sixty-four at a time: the
/// same results.
///
/// Each function's value is taken whole, `a_i·x + b_i` (mod 2^64) from one 64-bit multiply
/// (AVX-512 DQ's `vpmullq`), and the minimum is kept over the 64-bit values: their high 32 bits
/// are ordered first, so the high half of the least 64-bit value is the least high half, and
/// it is shifted out once per page, not once per shingle. Up to eight vectors of minima stay in
/// registers while the page's shingles stream past (the functions are the outer loop, the
/// shingles the inner one), so one broadcast serves 64 functions. On this project's machine
/// (Sapphire Rapids) this took MinHash of goldset-dev's 1.05 M shingles × 128 functions from
/// 16.6 to about 12.5 ms on one thread against the 32-bit split multiply of rensa's AVX2 kernel
/// widened to sixteen lanes (docs/benchmarks.md, "MinHash against rensa").
///
/// # Safety
///
/// The CPU must support AVX-512 F and DQ.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq")]
unsafe fn min_hash32_avx512(shingles: &[u64], a: &[u64], b: &[u64], mins: &mut [u32]) {
    /// `V` vectors of eight functions starting at `start`: their minima over `mixed`.
    ///
    /// # Safety
    ///
    /// AVX-512 F and DQ; `start + 8·V` is at most the length of `a`, `b` and `mins`.
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq")]
    unsafe fn group<const V: usize>(
        mixed: &[u64],
        a: &[u64],
        b: &[u64],
        mins: &mut [u32],
        start: usize,
    ) {
        use std::arch::x86_64::*;
        assert!(start + 8 * V <= a.len().min(b.len()).min(mins.len()));
        // SAFETY (for the loads and stores below): the assertion above keeps each vector's
        // eight values in bounds; unaligned loads and stores take any address.
        let a_v: [__m512i; V] = std::array::from_fn(|i| unsafe {
            _mm512_loadu_si512(a[start + 8 * i..].as_ptr().cast())
        });
        let b_v: [__m512i; V] = std::array::from_fn(|i| unsafe {
            _mm512_loadu_si512(b[start + 8 * i..].as_ptr().cast())
        });
        let mut least = [_mm512_set1_epi64(-1); V];
        for &x in mixed {
            let x = _mm512_set1_epi64(x as i64);
            for i in 0..V {
                let value = _mm512_add_epi64(_mm512_mullo_epi64(a_v[i], x), b_v[i]);
                least[i] = _mm512_min_epu64(least[i], value);
            }
        }
        for (i, &m) in least.iter().enumerate() {
            let high = _mm512_cvtepi64_epi32(_mm512_srli_epi64::<32>(m));
            let out = &mut mins[start + 8 * i..start + 8 * i + 8];
            let mut merged = [0u32; 8];
            // SAFETY: `merged` is 32 writable bytes.
            unsafe { _mm256_storeu_si256(merged.as_mut_ptr().cast(), high) };
            for (o, v) in out.iter_mut().zip(merged) {
                *o = (*o).min(v);
            }
        }
    }
    let mixed: Vec<u64> = shingles.iter().map(|&s| mix64(s)).collect();
    let whole = mins.len() / 8 * 8;
    let mut start = 0;
    // SAFETY (every call): AVX-512 F and DQ are this function's own requirement, and each
    // group ends at or before `whole`, within `a`, `b` and `mins`.
    while start + 64 <= whole {
        unsafe { group::<8>(&mixed, a, b, mins, start) };
        start += 64;
    }
    match (whole - start) / 8 {
        0 => {}
        1 => unsafe { group::<1>(&mixed, a, b, mins, start) },
        2 => unsafe { group::<2>(&mixed, a, b, mins, start) },
        3 => unsafe { group::<3>(&mixed, a, b, mins, start) },
        4 => unsafe { group::<4>(&mixed, a, b, mins, start) },
        5 => unsafe { group::<5>(&mixed, a, b, mins, start) },
        6 => unsafe { group::<6>(&mixed, a, b, mins, start) },
        _ => unsafe { group::<7>(&mixed, a, b, mins, start) },
    }
    min_hash32_rest(
        &mixed_halves(shingles),
        &a[whole..],
        &b[whole..],
        &mut mins[whole..],
    );
}

/// [`min_hash32`] with AVX2, eight functions at a time: the same results.
///
/// AVX2 has no 64-bit multiply, so it is built from 32-bit ones, which a vector unit does in
/// one pass: `high32(a_lo * x_lo + b) + a_hi * x_lo + a_lo * x_hi` (mod 2^32) is bits 32..64
/// of `a * x + b`, the bits above 64 being dropped either way. (rensa's AVX2 kernel showed this
/// loop order and split multiply beat the compiler's vectorisation of the plain loop by 2.5×.)
///
/// # Safety
///
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn min_hash32_avx2(shingles: &[u64], a: &[u64], b: &[u64], mins: &mut [u32]) {
    use std::arch::x86_64::*;
    const LANES: usize = 8;
    let mixed = mixed_halves(shingles);
    let whole = mins.len() / LANES * LANES;
    for start in (0..whole).step_by(LANES) {
        let a_lo: [u32; LANES] = std::array::from_fn(|l| a[start + l] as u32);
        let a_hi: [u32; LANES] = std::array::from_fn(|l| (a[start + l] >> 32) as u32);
        let b_even: [u64; 4] = std::array::from_fn(|l| b[start + 2 * l]);
        let b_odd: [u64; 4] = std::array::from_fn(|l| b[start + 2 * l + 1]);
        // SAFETY: each array is 32 readable bytes; unaligned loads and stores take any address,
        // and `mins[start..start + 8]` is in bounds (start + 8 <= whole <= len).
        unsafe {
            let a_lo = _mm256_loadu_si256(a_lo.as_ptr().cast());
            let a_lo_odd = _mm256_srli_epi64::<32>(a_lo);
            let a_hi = _mm256_loadu_si256(a_hi.as_ptr().cast());
            let b_even = _mm256_loadu_si256(b_even.as_ptr().cast());
            let b_odd = _mm256_loadu_si256(b_odd.as_ptr().cast());
            let out = mins[start..].as_mut_ptr();
            let mut current = _mm256_loadu_si256(out.cast());
            for &(x_lo, x_hi) in &mixed {
                let lo = _mm256_set1_epi32(x_lo as i32);
                let hi = _mm256_set1_epi32(x_hi as i32);
                let even = _mm256_add_epi64(_mm256_mul_epu32(a_lo, lo), b_even);
                let odd = _mm256_add_epi64(_mm256_mul_epu32(a_lo_odd, lo), b_odd);
                let high = _mm256_blend_epi32::<0b1010_1010>(_mm256_srli_epi64::<32>(even), odd);
                let cross =
                    _mm256_add_epi32(_mm256_mullo_epi32(a_hi, lo), _mm256_mullo_epi32(a_lo, hi));
                current = _mm256_min_epu32(current, _mm256_add_epi32(high, cross));
            }
            _mm256_storeu_si256(out.cast(), current);
        }
    }
    min_hash32_rest(&mixed, &a[whole..], &b[whole..], &mut mins[whole..]);
}

/// MinHash signatures (`m` 32-bit min-values of the `k`-shingles) of many pages, in parallel.
pub fn minhash_vectors(docs: &[Vec<u64>], k: usize, m: usize, seed: u64) -> Vec<Vec<u32>> {
    let functions = MinHash32::new(m, seed);
    docs.par_iter()
        .map(|t| functions.min_values(&shingles(t, k)))
        .collect()
}

/// B-similarity: the number of positions where two supershingle vectors agree (0 when either
/// page has none).
pub fn b_similarity(a: &[u64], b: &[u64]) -> u32 {
    a.iter().zip(b).filter(|(x, y)| x == y).count() as u32
}

/// The MinHash estimate of the Jaccard similarity of two shingle sets: the share of agreeing
/// min-values (0 when either is empty or their lengths differ).
pub fn jaccard_estimate<T: PartialEq>(a: &[T], b: &[T]) -> f64 {
    if a.is_empty() || a.len() != b.len() {
        return 0.0;
    }
    a.iter().zip(b).filter(|(x, y)| x == y).count() as f64 / a.len() as f64
}

/// The exact Jaccard similarity of two shingle sets (for tests and calibration).
pub fn exact_jaccard(a: &[u64], b: &[u64]) -> f64 {
    let mut a = a.to_vec();
    let mut b = b.to_vec();
    a.sort_unstable();
    a.dedup();
    b.sort_unstable();
    b.dedup();
    let (mut i, mut j, mut inter) = (0, 0, 0usize);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                inter += 1;
                i += 1;
                j += 1;
            }
        }
    }
    let union = a.len() + b.len() - inter;
    if union == 0 {
        0.0
    } else {
        inter as f64 / union as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    fn tokens(n: usize, seed: u64) -> Vec<u64> {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        (0..n).map(|_| rng.random()).collect()
    }

    /// Carry-less multiplication modulo P, bit by bit, as the reference for `rabin_extend`.
    fn slow_times_x64(mut f: u64) -> u64 {
        for _ in 0..64 {
            let carry = f >> 63;
            f <<= 1;
            if carry == 1 {
                f ^= 0x1b;
            }
        }
        f
    }

    #[test]
    fn rabin_extend_matches_bitwise_reduction() {
        for f in tokens(200, 1) {
            assert_eq!(rabin_extend(f, 0), slow_times_x64(f));
            assert_eq!(rabin_extend(f, 7), slow_times_x64(f) ^ 7);
        }
    }

    #[test]
    fn shingles_depend_on_order_and_window() {
        let t = tokens(20, 2);
        let s = shingles(&t, 8);
        assert_eq!(s.len(), 13);
        let mut swapped = t.clone();
        swapped.swap(0, 1);
        assert_ne!(shingles(&swapped, 8)[0], s[0]);
        assert_eq!(shingles(&swapped, 8)[2..], s[2..]);
        assert_eq!(shingles(&t[..3], 8).len(), 1);
        assert!(shingles(&[], 8).is_empty());
    }

    #[test]
    fn identical_pages_have_full_b_similarity_and_disjoint_ones_none() {
        let p = ShingleParams::default();
        let a = tokens(500, 3);
        let b = tokens(500, 4);
        let va = supershingle_vector(&a, &p);
        assert_eq!(va.len(), 6);
        assert_eq!(b_similarity(&va, &supershingle_vector(&a, &p)), 6);
        assert_eq!(b_similarity(&va, &supershingle_vector(&b, &p)), 0);
    }

    #[test]
    fn minhash_estimate_tracks_exact_jaccard() {
        // Two pages sharing the first 700 of 1000 tokens.
        let a = tokens(1000, 5);
        let mut b = a.clone();
        b[700..].copy_from_slice(&tokens(300, 6));
        let (sa, sb) = (shingles(&a, 5), shingles(&b, 5));
        let exact = exact_jaccard(&sa, &sb);
        let est = jaccard_estimate(&min_values(&sa, 512, 9), &min_values(&sb, 512, 9));
        assert!((exact - est).abs() < 0.08, "exact {exact} estimate {est}");
        let est32 = jaccard_estimate(&min_values32(&sa, 512, 9), &min_values32(&sb, 512, 9));
        assert!(
            (exact - est32).abs() < 0.08,
            "exact {exact} estimate {est32}"
        );
        assert!(exact > 0.4 && exact < 0.7);
    }

    #[test]
    fn both_min_hash_families_are_unbiased_over_many_sets() {
        // Sets of 400 random shingles sharing `shared` of them; mean error over 100 seeds (the
        // standard error of that mean is below 0.005).
        for shared in [100usize, 250, 350] {
            let exact = shared as f64 / (800 - shared) as f64;
            let (mut err64, mut err32) = (0.0, 0.0);
            for seed in 0..100u64 {
                let common = tokens(shared, 100 + seed);
                let mut a = common.clone();
                a.extend(tokens(400 - shared, 200 + seed));
                let mut b = common;
                b.extend(tokens(400 - shared, 300 + seed));
                err64 += jaccard_estimate(&min_values(&a, 128, seed), &min_values(&b, 128, seed))
                    - exact;
                err32 +=
                    jaccard_estimate(&min_values32(&a, 128, seed), &min_values32(&b, 128, seed))
                        - exact;
            }
            let (bias64, bias32) = (err64 / 100.0, err32 / 100.0);
            eprintln!("J = {exact:.3}: bias 64-bit {bias64:+.4}, 32-bit {bias32:+.4}");
            assert!(bias64.abs() < 0.015, "64-bit bias {bias64} at {exact}");
            assert!(bias32.abs() < 0.015, "32-bit bias {bias32} at {exact}");
        }
    }

    #[test]
    fn vectorised_and_portable_min_hash_agree() {
        let s = tokens(1000, 11);
        let a: Vec<u64> = (0..128).map(|i| salt(3, i) | 1).collect();
        let b: Vec<u64> = (0..128)
            .map(|i| salt(3 ^ 0x6a09_e667_f3bc_c908, i))
            .collect();
        let mut portable = vec![u32::MAX; 128];
        min_hash32(&s, &a, &b, &mut portable);
        assert_eq!(min_values32(&s, 128, 3), portable);
        // Every kernel equals the formula taken literally, a 64-bit multiply per function and
        // shingle, also for a number of functions that is not a whole number of vectors.
        for m in [128, 100, 64, 56, 7] {
            let mut literal = vec![u32::MAX; m];
            for &x in &s {
                let x = mix64(x);
                for ((min, &a), &b) in literal.iter_mut().zip(&a).zip(&b) {
                    *min = (*min).min((a.wrapping_mul(x).wrapping_add(b) >> 32) as u32);
                }
            }
            let mut portable = vec![u32::MAX; m];
            min_hash32(&s, &a[..m], &b[..m], &mut portable);
            assert_eq!(portable, literal, "portable, {m} functions");
            #[cfg(target_arch = "x86_64")]
            {
                if std::arch::is_x86_feature_detected!("avx2") {
                    let mut v = vec![u32::MAX; m];
                    // SAFETY: AVX2 checked on the line above.
                    unsafe { min_hash32_avx2(&s, &a[..m], &b[..m], &mut v) };
                    assert_eq!(v, literal, "AVX2, {m} functions");
                }
                if std::arch::is_x86_feature_detected!("avx512f")
                    && std::arch::is_x86_feature_detected!("avx512dq")
                {
                    let mut v = vec![u32::MAX; m];
                    // SAFETY: AVX-512 F and DQ checked on the lines above.
                    unsafe { min_hash32_avx512(&s, &a[..m], &b[..m], &mut v) };
                    assert_eq!(v, literal, "AVX-512, {m} functions");
                }
            }
        }
    }

    #[test]
    fn seeds_change_the_functions_and_parameters_are_checked() {
        let t = tokens(100, 7);
        let s = shingles(&t, 8);
        assert_ne!(min_values(&s, 4, 1), min_values(&s, 4, 2));
        assert_eq!(min_values(&s, 4, 1), min_values(&s, 4, 1));
        let bad = ShingleParams {
            m: 80,
            ..ShingleParams::default()
        };
        assert!(bad.validate().is_err());
        assert_eq!(ShingleParams::default().supershingles(), 6);
    }
}
