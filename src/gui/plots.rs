//! Plots (egui_plot): precision, recall and F1 against threshold for every detector on one
//! plot, from gold clusters (Workbench paper Figs. 5–6, 9–10) with a threshold line the person
//! drags or clicks to re-cluster; and the papers' other views of the active run: index size as
//! documents are processed (Fig. 23), colliding documents against time per document (Fig. 15),
//! the similarity histogram, and the degree distribution on log-log axes (Henzinger Fig. 3).
//! Without gold, the quality plot shows precision (with its Wilson band) and relative recall
//! from the open project's judged pairs instead (`label_curve`, Henzinger §3.5).

use std::collections::BTreeMap;
use std::sync::Arc;

use egui_plot::{Bar, BarChart, Legend, Line, Plot, PlotPoints, Points, VLine};

use crate::eval::metrics::{Metrics, Prf};
use crate::gui::model::workspace::AlgoRun;

use super::action::{Action, PreviousRun};
use super::label_curve::{self, RunCurves};
use super::view::{View, ViewContext};
use crate::detectors::Algo;

/// Which plot is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PlotKind {
    /// P/R/F1 against threshold.
    #[default]
    Quality,
    /// Index size against documents processed.
    IndexSize,
    /// Colliding documents against time per document.
    Collisions,
    /// Histogram of pair similarities.
    Histogram,
    /// Degree distribution, log-log.
    Degrees,
}

impl PlotKind {
    const ALL: [PlotKind; 5] = [
        PlotKind::Quality,
        PlotKind::IndexSize,
        PlotKind::Collisions,
        PlotKind::Histogram,
        PlotKind::Degrees,
    ];

    fn label(self) -> &'static str {
        match self {
            PlotKind::Quality => "Precision / recall",
            PlotKind::IndexSize => "Index size",
            PlotKind::Collisions => "Collisions & time",
            PlotKind::Histogram => "Similarity histogram",
            PlotKind::Degrees => "Degree distribution",
        }
    }
}

/// Which of the three metrics the quality plot shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MetricFamily {
    /// Pairwise P/R/F1.
    #[default]
    Pairwise,
    /// The Workbench paper's document-level P/R.
    Document,
    /// B-cubed.
    BCubed,
}

impl MetricFamily {
    fn label(self) -> &'static str {
        match self {
            MetricFamily::Pairwise => "pairwise",
            MetricFamily::Document => "document-level",
            MetricFamily::BCubed => "B-cubed",
        }
    }

    fn pick(self, m: &Metrics) -> Prf {
        match self {
            MetricFamily::Pairwise => m.pairwise,
            MetricFamily::Document => m.document,
            MetricFamily::BCubed => m.bcubed,
        }
    }
}

/// State of the plots view.
#[derive(Default)]
pub struct PlotsView {
    kind: PlotKind,
    metric: MetricFamily,
    /// The threshold being set with the slider (applied on release).
    pending: Option<f64>,
}

impl PlotsView {
    /// Draw the view.
    pub fn show(
        &mut self,
        ui: &mut egui::Ui,
        runs: &[AlgoRun],
        active: usize,
        has_gold: bool,
        labelled: Option<&RunCurves>,
        previous: &BTreeMap<Algo, PreviousRun>,
    ) -> Option<Action> {
        ui.horizontal(|ui| {
            for k in PlotKind::ALL {
                ui.selectable_value(&mut self.kind, k, k.label());
            }
        });
        let Some(run) = runs.get(active) else {
            ui.label("No run yet: press Run detectors (F5).");
            return None;
        };
        match self.kind {
            PlotKind::Quality => self.quality(ui, runs, run, has_gold, labelled, previous),
            PlotKind::IndexSize => {
                index_size(ui, run);
                None
            }
            PlotKind::Collisions => {
                collisions(ui, run);
                None
            }
            PlotKind::Histogram => {
                histogram(ui, run);
                None
            }
            PlotKind::Degrees => {
                degrees(ui, run);
                None
            }
        }
    }

    fn quality(
        &mut self,
        ui: &mut egui::Ui,
        runs: &[AlgoRun],
        run: &AlgoRun,
        has_gold: bool,
        labelled: Option<&RunCurves>,
        previous: &BTreeMap<Algo, PreviousRun>,
    ) -> Option<Action> {
        let mut action = None;
        let current = run.detection.spec.matching.threshold;
        if let Some(a) = self.quality_controls(ui, run) {
            action = Some(a);
        }
        let labelled = labelled.filter(|c| !c.samples.is_empty());
        match labelled {
            _ if has_gold => {}
            Some(curves) => {
                ui.label(label_curve::caption(curves));
            }
            None => {
                ui.label(
                    "This archive has no gold clusters (folder names or a .gold.tsv beside it), \
                     so precision and recall cannot be plotted from gold; label pairs of a \
                     sample of this run (Labels tab, with a project open) to plot them from \
                     the labels.",
                );
            }
        }
        let response = self.quality_plot(ui, runs, current, labelled, previous);
        let pointer = response.inner;
        let r = &response.response;
        if (r.dragged() || r.is_pointer_button_down_on())
            && let Some(p) = pointer
        {
            self.pending = Some(p.x.clamp(0.0, 1.0));
        }
        if (r.drag_stopped() || r.clicked())
            && let Some(t) = self.pending.take()
        {
            action = Some(Action::SetThreshold(t));
        }
        action
    }

    /// Metric family, the threshold slider and the metrics at the current threshold.
    fn quality_controls(&mut self, ui: &mut egui::Ui, run: &AlgoRun) -> Option<Action> {
        let mut action = None;
        let current = run.detection.spec.matching.threshold;
        ui.horizontal(|ui| {
            ui.label("Metric:");
            for m in [
                MetricFamily::Pairwise,
                MetricFamily::Document,
                MetricFamily::BCubed,
            ] {
                ui.selectable_value(&mut self.metric, m, m.label());
            }
            ui.separator();
            let mut t = self.pending.unwrap_or(current);
            let r = ui.add(
                egui::Slider::new(&mut t, 0.0..=1.0)
                    .text(format!("Threshold ({})", run.algo.name()))
                    .fixed_decimals(2),
            );
            if r.changed() {
                self.pending = Some(t);
            }
            let released = r.drag_stopped() || (r.changed() && !r.dragged());
            if released && let Some(t) = self.pending.take() {
                action = Some(Action::SetThreshold(t));
            }
            if let Some(m) = &run.metrics {
                let p = self.metric.pick(m);
                ui.label(format!(
                    "at {current:.2}: P {:.3}  R {:.3}  F1 {:.3}",
                    p.precision, p.recall, p.f1
                ));
            }
        });
        action
    }

    /// Precision, recall and F1 against threshold of every run (and before the last run),
    /// with the threshold line; the pointer's position over the plot.
    fn quality_plot(
        &self,
        ui: &mut egui::Ui,
        runs: &[AlgoRun],
        current: f64,
        labelled: Option<&RunCurves>,
        previous: &BTreeMap<Algo, PreviousRun>,
    ) -> egui_plot::PlotResponse<Option<egui_plot::PlotPoint>> {
        let metric = self.metric;
        Plot::new("quality_plot")
            .legend(Legend::default())
            .include_x(0.0)
            .include_x(1.0)
            .include_y(0.0)
            .include_y(1.0)
            .allow_drag(false)
            .allow_zoom(false)
            .allow_scroll(false)
            .x_axis_label("threshold")
            .show(ui, |plot| {
                for r in runs.iter().filter(|r| !r.sweep.is_empty()) {
                    let series = |f: fn(&Prf) -> f64| -> Vec<[f64; 2]> {
                        r.sweep
                            .iter()
                            .map(|row| [row.threshold, f(&metric.pick(&row.mean))])
                            .collect()
                    };
                    let name = r.algo.name();
                    plot.line(Line::new(
                        format!("{name} precision"),
                        PlotPoints::from(series(|p| p.precision)),
                    ));
                    plot.line(Line::new(
                        format!("{name} recall"),
                        PlotPoints::from(series(|p| p.recall)),
                    ));
                    plot.line(
                        Line::new(format!("{name} F1"), PlotPoints::from(series(|p| p.f1)))
                            .width(2.5),
                    );
                }
                for (algo, before) in previous {
                    if before.sweep.is_empty() || !runs.iter().any(|r| r.algo == *algo) {
                        continue;
                    }
                    let points: Vec<[f64; 2]> = before
                        .sweep
                        .iter()
                        .map(|row| [row.threshold, metric.pick(&row.mean).f1])
                        .collect();
                    plot.line(
                        Line::new(
                            format!("{} F1 before", algo.name()),
                            PlotPoints::from(points),
                        )
                        .style(egui_plot::LineStyle::dashed_loose()),
                    );
                }
                if let Some(curves) = labelled {
                    label_curve::draw(plot, curves);
                }
                plot.vline(VLine::new("threshold", current).width(2.0));
                if let Some(t) = self.pending {
                    plot.vline(
                        VLine::new("new threshold", t).style(egui_plot::LineStyle::dashed_dense()),
                    );
                }
                plot.pointer_coordinate()
            })
    }
}

fn index_size(ui: &mut egui::Ui, run: &AlgoRun) {
    let trace = &run.detection.outcome.trace;
    ui.label(format!(
        "Documents in the index as documents are processed ({} at threshold {:.2}); final size {}",
        run.algo.name(),
        run.detection.spec.matching.threshold,
        trace.final_index_size()
    ));
    if trace.index_size.is_empty() {
        ui.weak("This detector does not keep an incremental index.");
        return;
    }
    let points: Vec<[f64; 2]> = trace
        .index_size
        .iter()
        .map(|&(d, s)| [d as f64, s as f64])
        .collect();
    Plot::new("index_plot")
        .x_axis_label("documents processed")
        .y_axis_label("documents indexed")
        .show(ui, |plot| {
            plot.line(Line::new("index size", PlotPoints::from(points)))
        });
}

fn collisions(ui: &mut egui::Ui, run: &AlgoRun) {
    let trace = &run.detection.outcome.trace;
    ui.label(format!(
        "Colliding documents against time per document: {} collisions, {} comparisons, {} avoided by the bounds",
        trace.collisions(),
        trace.comparisons(),
        trace.avoided()
    ));
    if trace.docs.is_empty() {
        ui.weak("This detector does not trace documents one by one.");
        return;
    }
    let points: Vec<[f64; 2]> = trace
        .docs
        .iter()
        .map(|d| [f64::from(d.colliding), d.nanos as f64 / 1000.0])
        .collect();
    Plot::new("collision_plot")
        .x_axis_label("colliding documents")
        .y_axis_label("µs per document")
        .show(ui, |plot| {
            plot.points(Points::new("documents", PlotPoints::from(points)).radius(2.0))
        });
}

fn histogram(ui: &mut egui::Ui, run: &AlgoRun) {
    let pairs = run.detection.pairs();
    ui.label(format!(
        "Similarity of the {} scored pairs (at or above the threshold {:.2})",
        pairs.len(),
        run.detection.spec.matching.threshold
    ));
    let mut bins = [0u64; 20];
    for p in pairs {
        bins[((p.score * 20.0) as usize).min(19)] += 1;
    }
    let bars: Vec<Bar> = bins
        .iter()
        .enumerate()
        .map(|(i, &n)| Bar::new(i as f64 * 0.05 + 0.025, n as f64).width(0.045))
        .collect();
    Plot::new("histogram_plot")
        .x_axis_label("similarity")
        .y_axis_label("pairs")
        .show(ui, |plot| plot.bar_chart(BarChart::new("pairs", bars)));
}

fn degrees(ui: &mut egui::Ui, run: &AlgoRun) {
    let n = run.detection.outcome.matched.len();
    let histogram = crate::detectors::report::degree_distribution(n, run.detection.pairs());
    // log10(0) has no place on log-log axes: pages without a near-duplicate are counted apart.
    let with_one: u64 = histogram
        .iter()
        .filter(|&(&d, _)| d > 0)
        .map(|(_, &pages)| pages)
        .sum();
    ui.label(format!(
        "Near-duplicates per page (log10 of degree vs log10 of pages), {with_one} pages with at least one"
    ));
    let points: Vec<[f64; 2]> = histogram
        .iter()
        .filter(|&(&d, _)| d > 0)
        .map(|(&d, &pages)| [f64::from(d).log10(), (pages as f64).log10()])
        .collect();
    Plot::new("degree_plot")
        .x_axis_label("log10 degree")
        .y_axis_label("log10 pages")
        .show(ui, |plot| {
            plot.points(Points::new("pages", PlotPoints::from(points)).radius(3.0))
        });
}

impl View for PlotsView {
    fn ui(&mut self, ui: &mut egui::Ui, cx: &mut ViewContext<'_>) {
        let (ws, runs, active, previous) = (cx.workspace, cx.runs, cx.active, cx.previous);
        // Without gold, precision and relative recall come from the labels, which the store
        // worker reads; asked again whenever labels change.
        let labelled = match runs.get(active) {
            Some(r) if !ws.has_gold() && cx.project.is_open() => {
                if cx.project.want_curves(&r.detection) {
                    ui.ctx().request_repaint();
                }
                cx.project
                    .curves
                    .as_deref()
                    .filter(|c| Arc::ptr_eq(&c.detection, &r.detection))
            }
            _ => None,
        };
        let action = self.show(ui, runs, active, ws.has_gold(), labelled, previous);
        cx.ask(action);
    }
}
