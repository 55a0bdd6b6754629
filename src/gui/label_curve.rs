//! Precision and relative recall against the threshold from judged pairs, for the Plots tab when
//! the archive has no gold clusters (henzinger §3.5, Figure 7: precision of the pairs at or
//! above each threshold and "R", the share of the run's correct pairs still kept).
//!
//! In: on the store worker ([`run_curves`]), the active run's stored samples, their pairs'
//! scores and strata and the consensus verdicts of their labels (a settlement, else the
//! annotators' common verdict). Out: one [`SampleCurve`] per sample of the run with judged pairs
//! ([`crate::labels::stats::threshold_curve`]: each pair weighted by its stratum's population,
//! Wilson intervals at the effective sample size), drawn by [`draw`] as lines with the
//! precision's 95 % interval as a band. Blind samples are left out: a curve moving as pairs
//! are labelled would tell their scores. The UI asks again whenever labels change
//! (`ProjectSession::want_curves`).

use std::sync::Arc;

use egui_plot::{FilledArea, HLine, Line, LineStyle, PlotPoints, PlotUi, VLine};

use super::project::StoreState;
use crate::Result;
use crate::detectors::Detection;
use crate::labels::estimate::sample_estimate;
use crate::labels::stats::{self, ThresholdPoint};

/// The curve of one sample.
#[derive(Debug, Clone)]
pub struct SampleCurve {
    /// The sample's name.
    pub name: String,
    /// Judged pairs with a score (undecided included; disagreements nobody settled are not).
    pub judged: usize,
    /// Precision and relative recall from the run's threshold up to 1.
    pub points: Vec<ThresholdPoint>,
}

/// The precision a threshold is recommended for (the lower end of its 95 % interval), as
/// `samecore label --report` does by default.
pub const PRECISION_TARGET: f64 = 0.95;

/// The labels-based curves of one detector run.
#[derive(Debug, Clone)]
pub struct RunCurves {
    /// The engine result they belong to.
    pub detection: Arc<Detection>,
    /// One per non-blind sample of the run with judged pairs, in the project's order.
    pub samples: Vec<SampleCurve>,
    /// Blind samples of the run, left out.
    pub blind: usize,
}

/// Thresholds from `from` up to 1 in steps of 0.01 (`from` itself first when off the grid).
fn thresholds(from: f64) -> Vec<f64> {
    let mut out = vec![from];
    out.extend(
        (0..=100)
            .map(|i| f64::from(i) / 100.0)
            .filter(|t| *t > from + 1e-9),
    );
    out
}

/// Compute the curves of `detection`'s stored run (none when it is not stored yet).
pub fn run_curves(st: &StoreState, detection: Arc<Detection>) -> Result<RunCurves> {
    let mut out = RunCurves {
        detection,
        samples: Vec::new(),
        blind: 0,
    };
    let Ok(run) = st.run_of(&out.detection) else {
        return Ok(out);
    };
    let grid = thresholds(out.detection.spec.matching.threshold);
    let project = &st.project;
    for info in project
        .samples()?
        .into_iter()
        .filter(|s| s.run == Some(run))
    {
        if info.blind {
            out.blind += 1;
            continue;
        }
        let estimate = sample_estimate(project, info.id, None)?;
        let judged = estimate.scored();
        if judged.is_empty() {
            continue;
        }
        out.samples.push(SampleCurve {
            name: info.name,
            judged: judged.len(),
            points: stats::threshold_curve(&estimate.strata, &judged, &grid, stats::Z95),
        });
    }
    Ok(out)
}

/// The caption naming where the curves come from, one line per sample, with the threshold
/// recommended for a precision `target`.
pub fn caption(curves: &RunCurves, target: f64) -> String {
    let algo = curves.detection.algo.name();
    let mut lines: Vec<String> = curves
        .samples
        .iter()
        .map(|s| {
            let recommended = match stats::recommend_threshold(&s.points, target) {
                Some(p) => format!(
                    "; lowest threshold whose precision lower bound reaches {target}: \
                     {:.2} ({} judged pairs at or above it)",
                    p.threshold, p.judged
                ),
                None => {
                    format!("; no threshold's precision lower bound reaches {target} yet")
                }
            };
            format!(
                "Labels: {algo} precision (95 % Wilson band; undecided pairs count as not \
                 correct) and relative recall from {} judged pairs of sample \"{}\", each \
                 weighted by its stratum (relative recall: the share of the run's correct pairs \
                 kept, Henzinger §3.5){recommended}",
                s.judged, s.name
            )
        })
        .collect();
    if curves.blind > 0 {
        lines.push(format!(
            "{} blind sample(s) of this run left out (the curve would reveal their scores)",
            curves.blind
        ));
    }
    lines.join("\n")
}

/// Draw each sample's precision band, precision and relative recall, the precision `target`
/// and each sample's recommended threshold for it.
pub fn draw(plot: &mut PlotUi<'_>, curves: &RunCurves, target: f64) {
    let algo = curves.detection.algo.name();
    plot.hline(
        HLine::new(format!("precision target {target}"), target).style(LineStyle::dotted_dense()),
    );
    for s in &curves.samples {
        if let Some(p) = stats::recommend_threshold(&s.points, target) {
            plot.vline(
                VLine::new(format!("recommended, {}", s.name), p.threshold)
                    .style(LineStyle::dotted_dense()),
            );
        }
        let with_p: Vec<(f64, stats::Interval)> = s
            .points
            .iter()
            .filter_map(|p| p.precision.map(|i| (p.threshold, i)))
            .collect();
        let xs: Vec<f64> = with_p.iter().map(|(t, _)| *t).collect();
        let lo: Vec<f64> = with_p.iter().map(|(_, i)| i.lo).collect();
        let hi: Vec<f64> = with_p.iter().map(|(_, i)| i.hi).collect();
        let name = format!("{algo} precision, {} (labels)", s.name);
        plot.add(FilledArea::new(format!("{name} 95 %"), &xs, &lo, &hi));
        let precision: Vec<[f64; 2]> = with_p.iter().map(|(t, i)| [*t, i.estimate]).collect();
        plot.line(Line::new(name, PlotPoints::from(precision)).width(2.0));
        let recall: Vec<[f64; 2]> = s
            .points
            .iter()
            .filter_map(|p| p.relative_recall.map(|r| [p.threshold, r]))
            .collect();
        plot.line(
            Line::new(
                format!("{algo} relative recall, {} (labels)", s.name),
                PlotPoints::from(recall),
            )
            .style(LineStyle::dashed_loose()),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds_start_at_the_run_threshold() {
        let t = thresholds(0.335);
        assert_eq!(t[0], 0.335);
        assert!((t[1] - 0.34).abs() < 1e-12, "{t:?}");
        assert_eq!(*t.last().unwrap(), 1.0);
        assert_eq!(thresholds(0.4)[..2], [0.4, 0.41]);
    }
}
