//! Plots (egui_plot): precision, recall and F1 against threshold for every detector on one
//! plot, from gold clusters (Workbench paper Figs. 5–6, 9–10) with a threshold line the person
//! drags or clicks to re-cluster; and the papers' other views of the active run: index size as
//! documents are processed (Fig. 23), colliding documents against time per document (Fig. 15),
//! the similarity histogram, and the degree distribution on log-log axes (Henzinger Fig. 3).
//! Without gold, the quality plot shows precision (with its Wilson band) and relative recall
//! from the open project's judged pairs instead (`label_curve`, Henzinger §3.5).

use std::collections::BTreeMap;
use std::sync::Arc;

use egui_plot::{Bar, BarChart, Line, Plot, PlotPoints, Points, VLine};

use crate::eval::metrics::{Metrics, Prf};
use crate::gui::model::workspace::{AlgoRun, ClusterSummary};

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
    /// Precision against recall, one curve per detector (threshold-free).
    PrCurve,
    /// Index size against documents processed.
    IndexSize,
    /// Colliding documents against time per document.
    Collisions,
    /// Histogram of pair similarities.
    Histogram,
    /// Degree distribution, log-log.
    Degrees,
    /// Clusters started per day, by code.
    Stories,
}

impl PlotKind {
    const ALL: [PlotKind; 7] = [
        PlotKind::Quality,
        PlotKind::PrCurve,
        PlotKind::IndexSize,
        PlotKind::Collisions,
        PlotKind::Histogram,
        PlotKind::Degrees,
        PlotKind::Stories,
    ];

    fn label(self) -> &'static str {
        match self {
            PlotKind::Quality => "Against threshold",
            PlotKind::PrCurve => "Precision-recall",
            PlotKind::IndexSize => "Index size",
            PlotKind::Collisions => "Collisions & time",
            PlotKind::Histogram => "Similarity histogram",
            PlotKind::Degrees => "Degree distribution",
            PlotKind::Stories => "Stories over time",
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
    /// Detectors hidden from the plots (by their legend checkbox).
    hidden: std::collections::BTreeSet<Algo>,
    /// One plot per detector, each on its own score's axis, instead of one shared plot.
    separate: bool,
    /// The precision the labels-based recommendation is for (`None`: the default,
    /// [`label_curve::PRECISION_TARGET`]).
    precision_target: Option<f64>,
}

/// One colour per detector, the same in every plot (distinct hues, readable on dark and light).
pub fn detector_colour(algo: Algo) -> egui::Color32 {
    const PALETTE: [egui::Color32; 9] = [
        egui::Color32::from_rgb(31, 119, 180),
        egui::Color32::from_rgb(255, 127, 14),
        egui::Color32::from_rgb(44, 160, 44),
        egui::Color32::from_rgb(214, 39, 40),
        egui::Color32::from_rgb(148, 103, 189),
        egui::Color32::from_rgb(140, 86, 75),
        egui::Color32::from_rgb(227, 119, 194),
        egui::Color32::from_rgb(127, 127, 127),
        egui::Color32::from_rgb(188, 189, 34),
    ];
    let i = Algo::ALL.iter().position(|a| *a == algo).unwrap_or(0);
    PALETTE[i % PALETTE.len()]
}

/// Precision, recall and F1 of `run`'s sweep against threshold, in its colour and the metric's
/// line style.
fn metric_lines(plot: &mut egui_plot::PlotUi<'_>, run: &AlgoRun, metric: MetricFamily) {
    for (what, f) in [
        ("precision", (|p: &Prf| p.precision) as fn(&Prf) -> f64),
        ("recall", |p: &Prf| p.recall),
        ("F1", |p: &Prf| p.f1),
    ] {
        let points: Vec<[f64; 2]> = run
            .sweep
            .iter()
            .map(|row| [row.threshold, f(&metric.pick(&row.mean))])
            .collect();
        let (style, width) = metric_style(what);
        plot.line(
            Line::new(
                format!("{} {what}", run.algo.name()),
                PlotPoints::from(points),
            )
            .color(detector_colour(run.algo))
            .style(style)
            .width(width),
        );
    }
}

/// The line style of each metric: F1 solid and thick, precision dashed, recall dotted.
fn metric_style(metric: &str) -> (egui_plot::LineStyle, f32) {
    match metric {
        "precision" => (egui_plot::LineStyle::dashed_loose(), 2.0),
        "recall" => (egui_plot::LineStyle::dotted_dense(), 1.5),
        _ => (egui_plot::LineStyle::Solid, 2.5),
    }
}

impl PlotsView {
    /// The precision target of the labels-based recommendation.
    fn target(&self) -> f64 {
        self.precision_target
            .unwrap_or(label_curve::PRECISION_TARGET)
    }

    /// The row of plot kinds.
    fn kind_bar(&mut self, ui: &mut egui::Ui) {
        ui.horizontal_wrapped(|ui| {
            for k in PlotKind::ALL {
                ui.selectable_value(&mut self.kind, k, k.label());
            }
        });
    }

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
        self.kind_bar(ui);
        let Some(run) = runs.get(active) else {
            ui.label("No run yet: press Run detectors (F5).");
            return None;
        };
        match self.kind {
            PlotKind::Quality => self.quality(ui, runs, run, has_gold, labelled, previous),
            PlotKind::PrCurve => {
                self.legend(ui, runs, false);
                self.pr_curves(ui, runs);
                None
            }
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
            // Drawn by `ui`, which has the project's codes.
            PlotKind::Stories => None,
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
                let mut target = self.target();
                ui.horizontal(|ui| {
                    let label = ui.label("Precision target:");
                    ui.add(
                        egui::DragValue::new(&mut target)
                            .range(0.5..=0.999)
                            .speed(0.005)
                            .fixed_decimals(3),
                    )
                    .on_hover_text(
                        "The recommended threshold is the lowest one whose precision, at the \
                         lower end of its 95 % interval, reaches this target (drawn as a \
                         dotted line with the recommended threshold)",
                    )
                    .labelled_by(label.id);
                });
                self.precision_target = Some(target);
                ui.label(label_curve::caption(curves, target));
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
        self.legend(ui, runs, true);
        ui.checkbox(&mut self.separate, "One plot per detector")
            .on_hover_text(
                "Each detector on its own axis, labelled with what its score means, with its own \
                 threshold marked: scores of different detectors mean different things",
            );
        if self.separate {
            self.per_detector(ui, runs);
            return action;
        }
        let response = self.quality_plot(ui, runs, run, current, labelled, previous);
        let pointer = response.inner;
        let r = &response.response;
        if (r.dragged() || r.is_pointer_button_down_on())
            && let Some(p) = pointer
        {
            self.pending = Some(p.x.clamp(0.0, 1.0));
        }
        // A quick click (pressed and released between two frames) sets the threshold too.
        let clicked = r
            .clicked()
            .then_some(pointer)
            .flatten()
            .map(|p| p.x.clamp(0.0, 1.0));
        if (r.drag_stopped() || r.clicked())
            && let Some(t) = self.pending.take().or(clicked)
        {
            action = Some(Action::SetThreshold(t));
        }
        action
    }

    /// The legend, outside the plot: one colour per detector with a checkbox that shows or
    /// hides its curves (never a threshold), its score's meaning on hover, and the line style
    /// of each metric.
    fn legend(&mut self, ui: &mut egui::Ui, runs: &[AlgoRun], metrics: bool) {
        ui.horizontal_wrapped(|ui| {
            for r in runs {
                let colour = detector_colour(r.algo);
                let mut shown = !self.hidden.contains(&r.algo);
                let info = r.algo.info();
                let text = egui::RichText::new(r.algo.name()).color(colour).strong();
                if ui
                    .checkbox(&mut shown, text)
                    .on_hover_text(format!(
                        "Finds {}. Its score (the x axis for it): {}.",
                        info.finds, info.score
                    ))
                    .changed()
                {
                    if shown {
                        self.hidden.remove(&r.algo);
                    } else {
                        self.hidden.insert(r.algo);
                    }
                }
            }
            if metrics {
                ui.separator();
                ui.label("F1: solid, thick   precision: dashed   recall: dotted");
            }
        });
    }

    /// Small multiples: one plot per shown detector (two columns), its x axis its own score
    /// with the score's meaning, its current threshold marked.
    fn per_detector(&self, ui: &mut egui::Ui, runs: &[AlgoRun]) {
        let metric = self.metric;
        let shown: Vec<&AlgoRun> = runs
            .iter()
            .filter(|r| !self.hidden.contains(&r.algo) && !r.sweep.is_empty())
            .collect();
        if shown.is_empty() {
            ui.label("No detector with curves to show (they need gold clusters and the sweep).");
            return;
        }
        let rows = shown.len().div_ceil(2);
        let height = ((ui.available_height() - 8.0) / rows as f32 - 24.0).max(120.0);
        egui::ScrollArea::vertical()
            .id_salt("per_detector_plots")
            .show(ui, |ui| {
                for pair in shown.chunks(2) {
                    ui.columns(2, |cols| {
                        for (col, r) in cols.iter_mut().zip(pair) {
                            let info = r.algo.info();
                            col.label(
                                egui::RichText::new(info.name)
                                    .color(detector_colour(r.algo))
                                    .strong(),
                            )
                            .on_hover_text(format!("Finds {}.", info.finds));
                            let id = format!("per_detector_{}", info.name);
                            unit_plot(&id).height(height).x_axis_label(info.score).show(
                                col,
                                |plot| {
                                    metric_lines(plot, r, metric);
                                    plot.vline(
                                        VLine::new(
                                            "threshold",
                                            r.detection.spec.matching.threshold,
                                        )
                                        .width(2.0),
                                    );
                                },
                            );
                        }
                    });
                }
            });
    }

    /// Precision against recall per detector, from the sweep (threshold-free): the curve
    /// nearer the top right is better at every trade-off.
    fn pr_curves(&self, ui: &mut egui::Ui, runs: &[AlgoRun]) {
        let metric = self.metric;
        if runs.iter().all(|r| r.sweep.is_empty()) {
            ui.label(
                "Precision–recall curves need gold clusters (folder names or a .gold.tsv beside \
                 the archive) and the sweep that follows a run.",
            );
            return;
        }
        ui.label(format!(
            "Precision against recall ({}), each point one threshold of the detector's own \
             score, mean over the sweep's seeds",
            metric.label()
        ));
        unit_plot("pr_plot")
            .x_axis_label("recall")
            .y_axis_label("precision")
            .show(ui, |plot| {
                for r in runs.iter().filter(|r| !self.hidden.contains(&r.algo)) {
                    let mut points: Vec<[f64; 2]> = r
                        .sweep
                        .iter()
                        .map(|row| {
                            let p = metric.pick(&row.mean);
                            [p.recall, p.precision]
                        })
                        .collect();
                    points.sort_by(|a, b| a[0].total_cmp(&b[0]));
                    plot.line(
                        Line::new(r.algo.name(), PlotPoints::from(points.clone()))
                            .color(detector_colour(r.algo))
                            .width(2.0),
                    );
                    plot.points(
                        Points::new(format!("{} thresholds", r.algo.name()), points)
                            .color(detector_colour(r.algo))
                            .radius(2.0),
                    );
                }
            });
    }

    /// Metric family, the threshold slider and the metrics at the current threshold.
    fn quality_controls(&mut self, ui: &mut egui::Ui, run: &AlgoRun) -> Option<Action> {
        let mut action = None;
        let current = run.detection.spec.matching.threshold;
        // Wrapped, so a narrow window moves the metrics under the slider instead of widening
        // the tab past the window's edge.
        ui.horizontal_wrapped(|ui| {
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
                ))
                .on_hover_text(
                    "These are the shown run's clusters (one seed, as in the run table); the \
                     curves average the sweep's seeds of the random order, so they can differ",
                );
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
        run: &AlgoRun,
        current: f64,
        labelled: Option<&RunCurves>,
        previous: &BTreeMap<Algo, PreviousRun>,
    ) -> egui_plot::PlotResponse<Option<egui_plot::PlotPoint>> {
        let metric = self.metric;
        let shown = |a: &Algo| !self.hidden.contains(a);
        unit_plot("quality_plot")
            .x_axis_label(format!(
                "threshold: each detector's own score ({}: {})",
                run.algo.name(),
                run.algo.info().score
            ))
            .show(ui, |plot| {
                for r in runs
                    .iter()
                    .filter(|r| !r.sweep.is_empty() && shown(&r.algo))
                {
                    metric_lines(plot, r, metric);
                }
                for (algo, before) in previous {
                    if before.sweep.is_empty()
                        || !runs.iter().any(|r| r.algo == *algo)
                        || !shown(algo)
                    {
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
                        .color(detector_colour(*algo).gamma_multiply(0.45))
                        .width(1.5),
                    );
                }
                if let Some(curves) = labelled {
                    label_curve::draw(plot, curves, self.target());
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

/// A plot of the unit square that does not pan or zoom (clicks set the threshold instead). The
/// y axis reaches a little past 1, so a curve at 1.0 (precision often is) is not drawn on the
/// plot's frame, where it could not be seen.
fn unit_plot(id: &str) -> Plot<'_> {
    Plot::new(id)
        .y_axis_label("precision · recall · F1")
        // Tenths on the threshold axis even in a narrow window.
        .x_grid_spacer(egui_plot::uniform_grid_spacer(|_| [0.02, 0.1, 0.5]))
        .x_axis_formatter(|mark: egui_plot::GridMark, _range| {
            if mark.step_size >= 0.099 {
                format!("{:.1}", mark.value)
            } else {
                String::new()
            }
        })
        .include_x(0.0)
        .include_x(1.0)
        .include_y(0.0)
        .include_y(1.05)
        .allow_drag(false)
        .allow_zoom(false)
        .allow_scroll(false)
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
        // A cluster's code for the stories plot: the codes most of its members carry.
        let (codes, pages) = (cx.project.codes.clone(), cx.project.pages.clone());
        let code_of = move |c: &ClusterSummary| {
            let mut count: BTreeMap<String, usize> = BTreeMap::new();
            for &d in &c.members {
                let (text, _) =
                    super::codebook::codes_of(&codes, pages.as_deref().map(Vec::as_slice), d);
                if !text.is_empty() {
                    *count.entry(text).or_default() += 1;
                }
            }
            count
                .into_iter()
                .max_by_key(|(_, n)| *n)
                .map_or_else(|| "uncoded".to_string(), |(t, _)| t)
        };
        if self.kind == PlotKind::Stories {
            self.kind_bar(ui);
            match runs.get(active) {
                Some(run) => super::timeline::stories_over_time(ui, run, &code_of),
                None => {
                    ui.label("No run yet: press Run detectors (F5).");
                }
            }
            return;
        }
        let action = self.show(ui, runs, active, ws.has_gold(), labelled, previous);
        cx.ask(action);
    }
}
