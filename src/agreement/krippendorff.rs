//! Krippendorff's alpha and percent agreement from the coincidence matrix (Krippendorff 2011,
//! §A–§D), and the pieces the bootstrap reuses: the pairable units as value indices, the points
//! each level measures distances between, D_o per unit and D_e from marginals.

use super::{AgreementError, Level, ReliabilityData};

/// Krippendorff's alpha of one variable, with the parts it is made of (Krippendorff 2011, §C–§D).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Alpha {
    /// The level of measurement it was computed at.
    pub level: Level,
    /// α = 1 − D_o/D_e; `None` when D_e = 0 (a single distinct pairable value).
    pub alpha: Option<f64>,
    /// Observed disagreement D_o = Σ_c Σ_k o_ck δ²_ck / n.
    pub observed: f64,
    /// Expected disagreement D_e = Σ_c Σ_k n_c n_k δ²_ck / (n (n − 1)).
    pub expected: f64,
    /// n = n.., the number of pairable values (values in units with two or more values).
    pub pairable_values: usize,
    /// The units with two or more values; the others are dropped.
    pub units: usize,
    /// The number of distinct pairable values (the coincidence matrix's order).
    pub values: usize,
}

/// Krippendorff's alpha of `data` at `level` (Krippendorff 2011, §C for the coincidences o_ck
/// with units of m_u ≥ 2 values each weighted 1/(m_u − 1), §D for the metrics).
///
/// The value domain is the sorted distinct pairable values, so the ordinal ranks come from the
/// coincidence marginals n_c as in the paper (a value seen only in units with one value has
/// n_c = 0 and would change nothing). Cost: O(Σ_u m_u² + n log n), plus O(V²) in the V distinct
/// values at the ratio level (whose D_e has no shortcut).
///
/// Errors: [`AgreementError::NoPairableValues`] when no unit has two values;
/// [`AgreementError::NegativeRatio`] for a negative pairable value at the ratio level.
pub fn alpha(data: &ReliabilityData, level: Level) -> Result<Alpha, AgreementError> {
    let pairable = Pairable::new(data, level)?;
    Ok(pairable.alpha(level).0)
}

/// Percent agreement: the share of pairable values whose pair partners agree, Σ_c o_cc / n from
/// the coincidence matrix (values compared for equality, whatever the level). With two coders
/// and no gaps it is the share of units they coded alike.
///
/// Errors: [`AgreementError::NoPairableValues`] when no unit has two values.
pub fn percent_agreement(data: &ReliabilityData) -> Result<f64, AgreementError> {
    let pairable = Pairable::new(data, Level::Nominal)?;
    let mut diagonal = 0.0;
    for codes in pairable.unit_codes() {
        let same = codes
            .iter()
            .enumerate()
            .map(|(i, c)| codes[i + 1..].iter().filter(|k| *k == c).count())
            .sum::<usize>();
        diagonal += 2.0 * same as f64 / (codes.len() - 1) as f64;
    }
    Ok(diagonal / pairable.n())
}

/// The pairable part of reliability data: each unit with two or more values as indices into the
/// sorted distinct values, and the coincidence marginals n_c.
pub(crate) struct Pairable {
    /// Sorted distinct pairable values.
    pub(crate) values: Vec<f64>,
    /// n_c, how many pairable values equal `values[c]` (the coincidence marginals).
    pub(crate) counts: Vec<f64>,
    /// Unit u's codes are `codes[starts[u]..starts[u + 1]]`.
    pub(crate) starts: Vec<usize>,
    /// Every pairable value as its index in `values`, unit after unit.
    pub(crate) codes: Vec<u32>,
    /// Coders with at least one value anywhere in the data (m, for the bootstrap's draw count).
    pub(crate) coders: usize,
}

impl Pairable {
    pub(crate) fn new(data: &ReliabilityData, level: Level) -> Result<Self, AgreementError> {
        let mut raw = Vec::new();
        let mut starts = vec![0];
        let mut active = vec![false; data.coders];
        for row in &data.units {
            for (coder, slot) in row.iter().enumerate() {
                active[coder] |= slot.is_some();
            }
            let before = raw.len();
            raw.extend(row.iter().flatten().copied());
            match raw.len() - before {
                0 => {}
                1 => raw.truncate(before),
                _ => starts.push(raw.len()),
            }
        }
        if starts.len() < 2 {
            return Err(AgreementError::NoPairableValues);
        }
        let mut values = raw.clone();
        values.sort_unstable_by(f64::total_cmp);
        values.dedup();
        if level == Level::Ratio && values[0] < 0.0 {
            return Err(AgreementError::NegativeRatio { value: values[0] });
        }
        let mut counts = vec![0.0; values.len()];
        let codes = raw
            .iter()
            .map(|v| {
                let c = values.partition_point(|x| x < v);
                counts[c] += 1.0;
                c as u32
            })
            .collect();
        let coders = active.iter().filter(|a| **a).count();
        Ok(Self {
            values,
            counts,
            starts,
            codes,
            coders,
        })
    }

    /// n.., the number of pairable values.
    pub(crate) fn n(&self) -> f64 {
        self.codes.len() as f64
    }

    /// Each pairable unit's codes.
    pub(crate) fn unit_codes(&self) -> impl Iterator<Item = &[u32]> + '_ {
        self.starts.windows(2).map(|w| &self.codes[w[0]..w[1]])
    }

    /// Alpha, and the points the level measures distances between (see [`points_into`]).
    pub(crate) fn alpha(&self, level: Level) -> (Alpha, Vec<f64>) {
        let n = self.n();
        let mut points = vec![0.0; self.values.len()];
        points_into(level, &self.values, &self.counts, &mut points);
        let observed: f64 = self
            .unit_codes()
            .map(|codes| unit_disagreement(level, &points, codes))
            .sum::<f64>()
            / n;
        let expected = expected_disagreement(level, &points, &self.counts, n);
        let alpha = Alpha {
            level,
            alpha: (self.values.len() > 1).then(|| 1.0 - observed / expected),
            observed,
            expected,
            pairable_values: self.codes.len(),
            units: self.starts.len() - 1,
            values: self.values.len(),
        };
        (alpha, points)
    }
}

/// The points between which a level measures δ², one per distinct value: the values themselves
/// (interval, ratio), their mid-ranks r_c = Σ_{g<c} n_g + n_c/2 (ordinal: then Krippendorff's
/// (Σ_{g=c..k} n_g − (n_c + n_k)/2)² is (r_k − r_c)²), nothing used for nominal.
pub(crate) fn points_into(level: Level, values: &[f64], counts: &[f64], out: &mut [f64]) {
    match level {
        Level::Nominal => {}
        Level::Interval | Level::Ratio => out.copy_from_slice(values),
        Level::Ordinal => {
            let mut below = 0.0;
            for (point, count) in out.iter_mut().zip(counts) {
                *point = below + count / 2.0;
                below += count;
            }
        }
    }
}

/// δ²(c, k) between the distinct values of index c and k.
#[inline]
pub(crate) fn delta(level: Level, points: &[f64], c: usize, k: usize) -> f64 {
    if c == k {
        return 0.0;
    }
    match level {
        Level::Nominal => 1.0,
        Level::Ordinal | Level::Interval => {
            let d = points[c] - points[k];
            d * d
        }
        Level::Ratio => {
            let d = (points[c] - points[k]) / (points[c] + points[k]);
            d * d
        }
    }
}

/// One unit's contribution to n·D_o: Σ over its ordered pairs of values of δ² / (m_u − 1).
#[inline]
pub(crate) fn unit_disagreement(level: Level, points: &[f64], codes: &[u32]) -> f64 {
    let mut sum = 0.0;
    for (i, &c) in codes.iter().enumerate() {
        for &k in &codes[i + 1..] {
            sum += delta(level, points, c as usize, k as usize);
        }
    }
    2.0 * sum / (codes.len() - 1) as f64
}

/// D_e = Σ_c Σ_k n_c n_k δ²_ck / (n (n − 1)) for marginals `counts` summing to n (zero counts
/// allowed). Nominal: (n² − Σ n_c²)/(n(n − 1)); interval and ordinal: 2 Σ n_c (p_c − p̄)²/(n − 1)
/// about the marginals' mean point p̄; ratio: the double sum.
pub(crate) fn expected_disagreement(level: Level, points: &[f64], counts: &[f64], n: f64) -> f64 {
    match level {
        Level::Nominal => {
            let squares: f64 = counts.iter().map(|c| c * c).sum();
            (n * n - squares) / (n * (n - 1.0))
        }
        Level::Ordinal | Level::Interval => {
            let mean = points.iter().zip(counts).map(|(p, c)| p * c).sum::<f64>() / n;
            let spread: f64 = points
                .iter()
                .zip(counts)
                .map(|(p, c)| c * (p - mean).powi(2))
                .sum();
            2.0 * spread / (n - 1.0)
        }
        Level::Ratio => {
            let mut sum = 0.0;
            for c in 0..counts.len() {
                if counts[c] == 0.0 {
                    continue;
                }
                // Σ_{k>c} n_k δ²_ck in four lanes, which the compiler vectorizes (the values
                // are distinct and ≥ 0, so p + points[k] > 0)
                let p = points[c];
                let (ns, ps) = (&counts[c + 1..], &points[c + 1..]);
                let mut lanes = [0.0; 4];
                for (n4, p4) in ns.chunks_exact(4).zip(ps.chunks_exact(4)) {
                    for j in 0..4 {
                        let d = (p - p4[j]) / (p + p4[j]);
                        lanes[j] += n4[j] * d * d;
                    }
                }
                let tail = ns.len() - ns.len() % 4;
                let mut row = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
                for (nk, pk) in ns[tail..].iter().zip(&ps[tail..]) {
                    let d = (p - pk) / (p + pk);
                    row += nk * d * d;
                }
                sum += counts[c] * row;
            }
            2.0 * sum / (n * (n - 1.0))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{coders, paper_example};
    use super::*;

    fn alpha_of(data: &ReliabilityData, level: Level) -> f64 {
        alpha(data, level).unwrap().alpha.unwrap()
    }

    #[test]
    fn krippendorff_2011_worked_example() {
        let data = paper_example();
        let expected = [(Level::Nominal, 0.743), (Level::Ordinal, 0.815)];
        let expected = expected
            .into_iter()
            .chain([(Level::Interval, 0.849), (Level::Ratio, 0.797)]);
        for (level, published) in expected {
            let a = alpha(&data, level).unwrap();
            assert!(
                (a.alpha.unwrap() - published).abs() < 5e-4,
                "{level}: {a:?}"
            );
            // unit 12 has one value: dropped; 11 units, 40 pairable values, 5 distinct values
            assert_eq!((a.units, a.pairable_values, a.values), (11, 40, 5));
        }
        // §C by hand: n_c = 9, 13, 10, 5, 3 (values 1..5) and Σ_c o_cc = 32 of n = 40, so
        // D_o = 8/40 and D_e = (40² − Σ n_c²)/(40·39) = (1600 − 384)/1560
        let nominal = alpha(&data, Level::Nominal).unwrap();
        assert!((nominal.observed - 0.2).abs() < 1e-12);
        assert!((nominal.expected - 1216.0 / 1560.0).abs() < 1e-12);
    }

    #[test]
    fn krippendorff_2011_two_coder_examples() {
        // §A: binary data, two coders, no gaps
        let binary = coders(&["0 1 0 0 0 0 0 0 1 0", "1 1 1 0 0 1 0 0 0 0"]);
        assert!((alpha_of(&binary, Level::Nominal) - 0.095).abs() < 5e-4);
        // §B: nominal data, two coders, no gaps
        let nominal = coders(&["1 1 2 2 4 3 3 3 5 4 4 1", "2 1 2 2 2 3 3 3 5 4 4 4"]);
        assert!((alpha_of(&nominal, Level::Nominal) - 0.692).abs() < 5e-4);
        // percent agreement of §B: 9 of 12 units alike
        assert!((percent_agreement(&nominal).unwrap() - 9.0 / 12.0).abs() < 1e-12);
    }

    #[test]
    fn python_package_docstring_example() {
        // krippendorff 0.9's docstring (3 coders × 15 units): nominal 0.691358, interval 0.810845
        let data = coders(&[
            "* * * * * 3 4 1 2 1 1 3 3 * 3",
            "1 * 2 1 3 3 4 3 * * * * * * *",
            "* * 2 1 3 4 4 * 2 1 1 3 3 * 4",
        ]);
        assert!((alpha_of(&data, Level::Nominal) - 0.691358).abs() < 5e-7);
        assert!((alpha_of(&data, Level::Interval) - 0.810845).abs() < 5e-7);
    }

    #[test]
    fn percent_agreement_of_the_paper_example() {
        // Σ_c o_cc of §C by hand: a unit of m values, a of them alike, adds a(a − 1)/(m − 1):
        // units 1..11 add 3, 2, 4, 4, 4, 0, 4, 2, 4, 3, 2 = 32 of n = 40 (unit 12 is dropped)
        let share = percent_agreement(&paper_example()).unwrap();
        assert!((share - 32.0 / 40.0).abs() < 1e-12, "{share}");
    }

    #[test]
    fn undefined_and_unpairable() {
        // one distinct pairable value: D_e = 0, alpha None (the 5 is in a unit of one value)
        let same = coders(&["1 1 1 5", "1 1 1 *"]);
        let a = alpha(&same, Level::Interval).unwrap();
        assert_eq!((a.alpha, a.expected, a.observed), (None, 0.0, 0.0));
        // no unit with two values
        let lonely = coders(&["1 * 3", "* 2 *"]);
        assert_eq!(
            alpha(&lonely, Level::Nominal),
            Err(AgreementError::NoPairableValues)
        );
        assert_eq!(
            percent_agreement(&lonely),
            Err(AgreementError::NoPairableValues)
        );
        let empty = ReliabilityData::default();
        assert_eq!(
            alpha(&empty, Level::Ratio),
            Err(AgreementError::NoPairableValues)
        );
    }

    #[test]
    fn ordinal_is_interval_on_mid_ranks() {
        // ordinal alpha does not change under a monotone recoding of the values
        let data = paper_example();
        let recoded: Vec<Vec<Option<f64>>> = data
            .units()
            .iter()
            .map(|row| row.iter().map(|v| v.map(|x| x.powi(3) + 100.0)).collect())
            .collect();
        let recoded = ReliabilityData::from_units(recoded).unwrap();
        let a = alpha_of(&data, Level::Ordinal);
        assert!((a - alpha_of(&recoded, Level::Ordinal)).abs() < 1e-12);
        assert!((alpha_of(&recoded, Level::Interval) - a).abs() > 1e-3);
    }

    #[test]
    fn perfect_agreement_and_labels() {
        let units = vec![
            vec![Some("b"), Some("b"), None],
            vec![Some("a"), Some("a"), Some("a")],
            vec![None, Some("c"), Some("c")],
        ];
        let (data, labels) = ReliabilityData::from_labels(&units);
        assert_eq!(labels, ["a", "b", "c"]);
        assert_eq!(data.units()[0], [Some(1.0), Some(1.0), None]);
        for level in Level::ALL {
            assert_eq!(alpha_of(&data, level), 1.0);
        }
        assert_eq!(percent_agreement(&data).unwrap(), 1.0);
    }
}
