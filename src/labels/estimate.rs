//! A sample's judgements as every precision estimate starts from them: a project and a sample
//! in, the labels, the resolved verdict per judged pair (settlements first, disagreements left
//! out) with its stratum and score, the strata, and the stratified precision out. The one
//! place the command line (`samecore label --report`) and the workbench (Labels tab, Plots
//! tab) assemble it, so they cannot disagree.

use super::stats::{self, PrecisionEstimate, Resolved};
use super::{Verdict, sample::Stratum};
use crate::Result;
use crate::store::samples::{LabelRecord, SamplePair};
use crate::store::{Project, SampleId};

/// One judged pair of a sample.
#[derive(Debug, Clone, PartialEq)]
pub struct JudgedPair {
    /// Its position in the sample (0-based).
    pub position: u32,
    /// Its stratum's name.
    pub stratum: String,
    /// The detector's score, when the sample came from a run.
    pub score: Option<f64>,
    /// The resolved verdict.
    pub verdict: Verdict,
}

/// A sample's judgements and precision.
#[derive(Debug, Clone)]
pub struct SampleEstimate {
    /// Every label of every annotator.
    pub labels: Vec<LabelRecord>,
    /// The sample's pairs in reviewing order.
    pub pairs: Vec<SamplePair>,
    /// Verdicts per position, and the disagreements nobody settled.
    pub resolved: Resolved,
    /// The judged pairs, in reviewing order.
    pub judged: Vec<JudgedPair>,
    /// The strata with their populations.
    pub strata: Vec<Stratum>,
    /// Precision weighted by stratum size (95 % Wilson intervals).
    pub precision: PrecisionEstimate,
}

/// The judgements of `sample`, counting only `annotator`'s labels (and settlements) when given.
pub fn sample_estimate(
    project: &Project,
    sample: SampleId,
    annotator: Option<&str>,
) -> Result<SampleEstimate> {
    let labels = project.labels(sample)?;
    let settlements = project.settlements(sample)?;
    let pairs = project.sample_pairs(sample)?;
    let strata = project.sample_strata(sample)?;
    let resolved = stats::resolve(&labels, &settlements, annotator);
    let judged: Vec<JudgedPair> = pairs
        .iter()
        .filter_map(|p| {
            resolved
                .verdicts
                .get(&p.position)
                .map(|&verdict| JudgedPair {
                    position: p.position,
                    stratum: p.stratum.clone(),
                    score: p.score,
                    verdict,
                })
        })
        .collect();
    let by_stratum: Vec<(String, Verdict)> = judged
        .iter()
        .map(|j| (j.stratum.clone(), j.verdict))
        .collect();
    let precision = stats::stratified_precision(&strata, &by_stratum, stats::Z95);
    Ok(SampleEstimate {
        labels,
        pairs,
        resolved,
        judged,
        strata,
        precision,
    })
}

impl SampleEstimate {
    /// The judged pairs that carry a score, as [`stats::threshold_curve`] takes them.
    pub fn scored(&self) -> Vec<(f64, String, Verdict)> {
        self.judged
            .iter()
            .filter_map(|j| Some((j.score?, j.stratum.clone(), j.verdict)))
            .collect()
    }

    /// The lowest threshold whose precision (lower 95 % bound, weighted by stratum) reaches
    /// `target` from there up ([`stats::recommend_threshold`]); none when no judged pair has a
    /// score or none reaches it.
    pub fn recommend(&self, target: f64) -> Option<stats::ThresholdPoint> {
        let judged = self.scored();
        if judged.is_empty() {
            return None;
        }
        let curve = stats::threshold_curve(
            &self.strata,
            &judged,
            &stats::judged_scores(&judged),
            stats::Z95,
        );
        stats::recommend_threshold(&curve, target).cloned()
    }
}
