//! Cohen's kappa (two coders) and Fleiss' kappa (a fixed number of raters per unit): chance-
//! corrected agreement on nominal values, κ = (P_o − P_e)/(1 − P_e).
//!
//! Values are categories compared for equality; which coder gave a value matters to Cohen's
//! kappa (each coder's own marginals make P_e) and not to Fleiss' (one pooled marginal).

use super::{AgreementError, ReliabilityData};

/// A kappa and the agreements it is made of.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Kappa {
    /// κ = (P_o − P_e)/(1 − P_e); `None` when P_e = 1 (one category only: no agreement beyond
    /// chance can be told).
    pub kappa: Option<f64>,
    /// Observed agreement P_o (Fleiss: P̄, the mean share of agreeing rater pairs per unit).
    pub observed: f64,
    /// Agreement expected by chance P_e (Fleiss: P̄_e = Σ_j p_j²).
    pub expected: f64,
    /// The units used.
    pub units: usize,
    /// Raters per unit: 2 for Cohen's kappa, the common count for Fleiss'.
    pub raters: usize,
    /// The units of the data not used (too few values, or another number of raters).
    pub units_skipped: usize,
}

/// Each value's index among the sorted distinct values of `values`.
fn categories(values: &[f64]) -> (Vec<usize>, usize) {
    let mut distinct = values.to_vec();
    distinct.sort_unstable_by(f64::total_cmp);
    distinct.dedup();
    let codes = values
        .iter()
        .map(|v| distinct.partition_point(|x| x < v))
        .collect();
    (codes, distinct.len())
}

/// Cohen's (1960) kappa between coder columns `first` and `second`, over the units both coded.
///
/// P_o is the share of those units they gave the same value, P_e = Σ_c p_first(c) p_second(c)
/// from each coder's own distribution of values.
///
/// Errors: [`AgreementError::NoSuchCoder`], [`AgreementError::SameCoder`], and
/// [`AgreementError::NoPairableValues`] when no unit was coded by both.
pub fn cohen_kappa(
    data: &ReliabilityData,
    first: usize,
    second: usize,
) -> Result<Kappa, AgreementError> {
    let coders = data.coder_count();
    for coder in [first, second] {
        if coder >= coders {
            return Err(AgreementError::NoSuchCoder { coder, coders });
        }
    }
    if first == second {
        return Err(AgreementError::SameCoder { coder: first });
    }
    let mut values = Vec::new();
    for row in data.units() {
        let get = |coder: usize| row.get(coder).copied().flatten();
        if let (Some(a), Some(b)) = (get(first), get(second)) {
            values.extend([a, b]);
        }
    }
    let units = values.len() / 2;
    if units == 0 {
        return Err(AgreementError::NoPairableValues);
    }
    let (codes, k) = categories(&values);
    let mut by_first = vec![0u64; k];
    let mut by_second = vec![0u64; k];
    let mut agree = 0u64;
    for pair in codes.chunks_exact(2) {
        by_first[pair[0]] += 1;
        by_second[pair[1]] += 1;
        agree += u64::from(pair[0] == pair[1]);
    }
    let chance: u128 = by_first
        .iter()
        .zip(&by_second)
        .map(|(a, b)| u128::from(a * b))
        .sum();
    let total = (units as u128) * (units as u128);
    let observed = agree as f64 / units as f64;
    let expected = chance as f64 / total as f64;
    Ok(Kappa {
        kappa: (chance != total).then(|| (observed - expected) / (1.0 - expected)),
        observed,
        expected,
        units,
        raters: 2,
        units_skipped: data.unit_count() - units,
    })
}

/// Fleiss' (1971) kappa over the units rated by the same number of raters r ≥ 2 (which rater
/// gave which value does not matter).
///
/// Fleiss' kappa assumes every unit has r ratings. When units have different numbers of values,
/// only the units with the most common number r are used (a tie goes to the larger r): the
/// others are counted in [`Kappa::units_skipped`], with the units of fewer than two values. To
/// use every unit with gaps, take Krippendorff's [`alpha`](super::alpha()) at the nominal level.
///
/// P_i = (Σ_j n_ij² − r)/(r(r − 1)) per unit i, P_o = P̄ their mean; p_j = Σ_i n_ij/(N r) and
/// P_e = Σ_j p_j².
///
/// Errors: [`AgreementError::NoPairableValues`] when no unit has two values.
pub fn fleiss_kappa(data: &ReliabilityData) -> Result<Kappa, AgreementError> {
    let sizes: Vec<usize> = data
        .units()
        .iter()
        .map(|row| row.iter().flatten().count())
        .collect();
    let mut tally: Vec<(usize, usize)> = Vec::new(); // (raters, units), sorted by raters
    for &size in sizes.iter().filter(|s| **s >= 2) {
        match tally.binary_search_by_key(&size, |t| t.0) {
            Ok(i) => tally[i].1 += 1,
            Err(i) => tally.insert(i, (size, 1)),
        }
    }
    // the most units, then the larger count (max_by_key keeps the last of equal maxima)
    let Some(&(raters, units)) = tally.iter().max_by_key(|t| t.1) else {
        return Err(AgreementError::NoPairableValues);
    };
    let values: Vec<f64> = data
        .units()
        .iter()
        .zip(&sizes)
        .filter(|(_, size)| **size == raters)
        .flat_map(|(row, _)| row.iter().flatten().copied())
        .collect();
    let (codes, k) = categories(&values);
    let mut column = vec![0u64; k];
    let mut in_unit = vec![0u64; k];
    let mut squares = 0u64; // Σ_i Σ_j n_ij²
    for unit in codes.chunks_exact(raters) {
        in_unit.fill(0);
        for &c in unit {
            in_unit[c] += 1;
            column[c] += 1;
        }
        squares += in_unit.iter().map(|n| n * n).sum::<u64>();
    }
    let (r, n) = (raters as f64, units as f64);
    let observed = (squares as f64 - n * r) / (n * r * (r - 1.0));
    let ratings = (units as u128) * (raters as u128);
    let column_squares: u128 = column.iter().map(|c| u128::from(c * c)).sum();
    let expected = column_squares as f64 / (ratings * ratings) as f64;
    Ok(Kappa {
        kappa: (column_squares != ratings * ratings)
            .then(|| (observed - expected) / (1.0 - expected)),
        observed,
        expected,
        units,
        raters,
        units_skipped: data.unit_count() - units,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn units(rows: &[&[Option<f64>]]) -> ReliabilityData {
        ReliabilityData::from_units(rows.iter().map(|r| r.to_vec()).collect()).unwrap()
    }

    #[test]
    fn cohen_on_krippendorff_2011_b() {
        // §B of Krippendorff (2011): 12 units, two coders
        let a = [1, 1, 2, 2, 4, 3, 3, 3, 5, 4, 4, 1];
        let b = [2, 1, 2, 2, 2, 3, 3, 3, 5, 4, 4, 4];
        let rows: Vec<Vec<Option<f64>>> = a
            .iter()
            .zip(&b)
            .map(|(x, y)| vec![Some(*x as f64), Some(*y as f64)])
            .collect();
        let data = ReliabilityData::from_units(rows).unwrap();
        let kappa = cohen_kappa(&data, 0, 1).unwrap();
        // by hand: 9 of 12 alike; marginals A = (3, 2, 3, 3, 1), B = (1, 4, 3, 3, 1) for
        // values 1..5, so P_e = (3 + 8 + 9 + 9 + 1)/144 = 30/144 and
        // κ = (108 − 30)/(144 − 30) = 13/19
        assert!((kappa.observed - 0.75).abs() < 1e-12);
        assert!((kappa.expected - 30.0 / 144.0).abs() < 1e-12);
        assert!((kappa.kappa.unwrap() - 13.0 / 19.0).abs() < 1e-12);
        assert_eq!((kappa.units, kappa.raters, kappa.units_skipped), (12, 2, 0));
        // symmetric in its coders
        assert_eq!(cohen_kappa(&data, 1, 0).unwrap().kappa, kappa.kappa);
    }

    #[test]
    fn cohen_uses_units_both_coded() {
        let data = units(&[
            &[Some(1.0), Some(1.0), None],
            &[Some(2.0), None, Some(2.0)],
            &[Some(2.0), Some(2.0)],
            &[Some(1.0), Some(2.0)],
            &[None, Some(1.0)],
        ]);
        let kappa = cohen_kappa(&data, 0, 1).unwrap();
        // 3 units: agree, agree, disagree; A = (2 of 1, 1 of 2), B = (1 of 1, 2 of 2)
        // P_e = (2·1 + 1·2)/9 = 4/9, κ = (2/3 − 4/9)/(5/9) = 2/5
        assert_eq!((kappa.units, kappa.units_skipped), (3, 2));
        assert!((kappa.kappa.unwrap() - 0.4).abs() < 1e-12);
        assert_eq!(
            cohen_kappa(&data, 0, 3),
            Err(AgreementError::NoSuchCoder {
                coder: 3,
                coders: 3
            })
        );
        assert_eq!(
            cohen_kappa(&data, 1, 1),
            Err(AgreementError::SameCoder { coder: 1 })
        );
        let apart = units(&[&[Some(1.0), None], &[None, Some(1.0)]]);
        assert_eq!(
            cohen_kappa(&apart, 0, 1),
            Err(AgreementError::NoPairableValues)
        );
        // one category for both: P_e = 1, kappa undefined
        let one = units(&[&[Some(3.0), Some(3.0)], &[Some(3.0), Some(3.0)]]);
        let kappa = cohen_kappa(&one, 0, 1).unwrap();
        assert_eq!(
            (kappa.kappa, kappa.observed, kappa.expected),
            (None, 1.0, 1.0)
        );
    }

    /// Fleiss' worked example as Wikipedia gives it: 10 units, 14 raters, 5 categories.
    fn fleiss_example() -> ReliabilityData {
        let counts: [[usize; 5]; 10] = [
            [0, 0, 0, 0, 14],
            [0, 2, 6, 4, 2],
            [0, 0, 3, 5, 6],
            [0, 3, 9, 2, 0],
            [2, 2, 8, 1, 1],
            [7, 7, 0, 0, 0],
            [3, 2, 6, 3, 0],
            [2, 5, 3, 2, 2],
            [6, 5, 2, 1, 0],
            [0, 2, 2, 3, 7],
        ];
        let rows = counts
            .iter()
            .map(|row| {
                let mut values = Vec::new();
                for (category, &n) in row.iter().enumerate() {
                    values.extend(std::iter::repeat_n(Some(category as f64), n));
                }
                values
            })
            .collect();
        ReliabilityData::from_units(rows).unwrap()
    }

    #[test]
    fn fleiss_worked_example() {
        let kappa = fleiss_kappa(&fleiss_example()).unwrap();
        // by hand: Σ_i Σ_j n_ij² = 828, so P̄ = (828 − 140)/(10·14·13) = 688/1820 (0.378);
        // column totals 20, 28, 39, 21, 32 of 140, so P̄_e = 4170/19600 (0.213); κ = 0.210
        let (p, pe) = (688.0 / 1820.0, 4170.0 / 19600.0);
        assert!((kappa.observed - p).abs() < 1e-12);
        assert!((kappa.expected - pe).abs() < 1e-12);
        let k = kappa.kappa.unwrap();
        assert!((k - (p - pe) / (1.0 - pe)).abs() < 1e-12);
        assert!((k - 0.210).abs() < 5e-4, "{k}");
        assert_eq!(
            (kappa.units, kappa.raters, kappa.units_skipped),
            (10, 14, 0)
        );
    }

    #[test]
    fn fleiss_with_two_raters_matches_a_hand_count() {
        // two raters, 4 units: (1,1) (2,2) (1,2) (2,2): P̄ = 3/4; p = (3/8, 5/8), P̄_e = 34/64
        let data = units(&[
            &[Some(1.0), Some(1.0)],
            &[Some(2.0), Some(2.0)],
            &[Some(1.0), Some(2.0)],
            &[Some(2.0), Some(2.0)],
        ]);
        let kappa = fleiss_kappa(&data).unwrap();
        let pe = 34.0 / 64.0;
        assert!((kappa.kappa.unwrap() - (0.75 - pe) / (1.0 - pe)).abs() < 1e-12);
    }

    #[test]
    fn fleiss_keeps_the_modal_number_of_raters() {
        let three = [Some(1.0), Some(1.0), Some(2.0)];
        let data = units(&[
            &three,
            &[Some(2.0), Some(2.0), Some(2.0)],
            &[Some(1.0), None, Some(1.0)],
            &[None, Some(1.0), None],
            &three,
        ]);
        let kappa = fleiss_kappa(&data).unwrap();
        assert_eq!((kappa.units, kappa.raters, kappa.units_skipped), (3, 3, 2));
        // a tie (one unit of 2, one of 3) goes to the larger count
        let tie = units(&[&[Some(1.0), Some(2.0), None], &three]);
        assert_eq!(fleiss_kappa(&tie).unwrap().raters, 3);
        let lonely = units(&[&[Some(1.0), None]]);
        assert_eq!(fleiss_kappa(&lonely), Err(AgreementError::NoPairableValues));
        let one = units(&[&[Some(4.0), Some(4.0)], &[Some(4.0), Some(4.0)]]);
        assert_eq!(fleiss_kappa(&one).unwrap().kappa, None);
    }
}
