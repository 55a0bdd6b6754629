//! The run settings in the side panel: which detectors, their thresholds, the matching
//! procedure (Workbench paper §3.3: incremental / seeded / full, first / best guess; SIGIR 2008
//! all-pairs), the cluster rule, seeds and runs — and the summary of the last run with its
//! metrics, where a click picks the detector whose clusters are shown.

use std::collections::{BTreeMap, BTreeSet};

use crate::cluster::ClusterRule;
use crate::detectors::{Algo, DetectorOptions, RunSpec};
use crate::gui::model::workspace::{AlgoRun, RunRequest};
use crate::matching::{Guess, LinkRules, Mode};

use super::action::{Action, PreviousRun};
use super::tuning::TuningView;

/// What the run panel edits (kept in an open project, so it comes back with it).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct RunSettings {
    /// Detectors to run.
    pub algos: BTreeSet<Algo>,
    /// Threshold per detector (its default until changed).
    pub thresholds: BTreeMap<Algo, f64>,
    /// Matching procedure.
    pub mode: Mode,
    /// First or best guess.
    pub guess: Guess,
    /// Representative or transitive clusters.
    pub rule: ClusterRule,
    /// Seed of the random order.
    pub seed: u64,
    /// Signatures a pair must share ([`crate::matching::MatchParams::min_shared`]).
    pub min_shared: u32,
    /// Which signatures are too common to count towards `min_shared`
    /// ([`crate::matching::MatchParams::common`]).
    pub common: crate::matching::CommonLimit,
    /// Share of the pages' best scores a declared link must reach
    /// ([`crate::matching::MatchParams::link_share`]).
    pub link_share: f64,
    /// Fraction of the page pairs across a declared link that must be links
    /// ([`crate::matching::MatchParams::cross_links`]).
    pub cross_links: f64,
    /// With the link share, a page whose best pair the share refuses stays alone
    /// ([`crate::matching::MatchParams::refused_stays_alone`]).
    pub refused_stays_alone: bool,
    /// Seeds averaged in the precision/recall sweep.
    pub runs: usize,
    /// Run SpotSigs as soon as an archive is open.
    pub run_on_open: bool,
    /// The published SpotSigs code's `stopwords.txt`, for `spotsigs-reference` (empty: the
    /// file `SAMECORE_SPOTSIGS_STOPWORDS` names).
    pub reference_stopwords: String,
    /// The replay URL of a capture, with `{timestamp}` and `{url}` (pywb, Wayback,
    /// ReplayWeb.page).
    pub replay_template: String,
}

impl Default for RunSettings {
    fn default() -> Self {
        let rules = Algo::SpotSigs.default_link_rules();
        RunSettings {
            algos: BTreeSet::from([Algo::SpotSigs]),
            thresholds: Algo::ALL
                .iter()
                .map(|&a| (a, a.default_threshold()))
                .collect(),
            mode: Mode::default(),
            guess: Guess::Best,
            rule: ClusterRule::default(),
            seed: 0,
            min_shared: crate::matching::DEFAULT_MIN_SHARED,
            common: Algo::SpotSigs.default_common(),
            link_share: rules.share,
            cross_links: rules.cross_links,
            refused_stays_alone: rules.refused_stays_alone,
            runs: 3,
            run_on_open: true,
            reference_stopwords: String::new(),
            replay_template: super::capture::DEFAULT_REPLAY.to_string(),
        }
    }
}

/// Thresholds of the precision/recall sweep: 0.05 to 0.95 by 0.05.
pub fn sweep_thresholds() -> Vec<f64> {
    (1..=19).map(|i| f64::from(i) * 0.05).collect()
}

/// Archives larger than this get a coarse sweep (see [`sweep_plan`]).
pub const LARGE_ARCHIVE: usize = 20_000;

/// Thresholds and seeds of the sweep for an archive of `documents` pages: the full grid with the
/// chosen seeds, or, above [`LARGE_ARCHIVE`], 0.2 to 0.9 by 0.1 with one seed — each matching
/// run on a large archive takes minutes, and low thresholds record enormous numbers of pairs.
pub fn sweep_plan(documents: usize, seeds: usize) -> (Vec<f64>, usize) {
    if documents > LARGE_ARCHIVE {
        ((2..=9).map(|i| f64::from(i) * 0.1).collect(), 1)
    } else {
        (sweep_thresholds(), seeds)
    }
}

/// An editor of a fraction from `min` to 1, in hundredths (thresholds, shares). A typed value
/// outside the range is set to the nearest end and said so beside the field (the CLI refuses
/// it), until the next value typed or dragged in range.
pub(super) fn fraction_edit(
    ui: &mut egui::Ui,
    enabled: bool,
    value: &mut f64,
    min: f64,
) -> egui::Response {
    let rejected = std::cell::Cell::new(None);
    let response = ui.add_enabled(
        enabled,
        egui::DragValue::new(value)
            .range(min..=1.0)
            .speed(0.01)
            .fixed_decimals(2)
            .custom_parser(|text| {
                let v: f64 = text.trim().replace(',', ".").parse().ok()?;
                if !(min..=1.0).contains(&v) {
                    rejected.set(Some(v));
                }
                Some(v)
            }),
    );
    let id = response.id.with("out_of_range");
    match rejected.get() {
        Some(v) => {
            ui.data_mut(|d| d.insert_temp(id, v));
        }
        None if response.changed() => {
            ui.data_mut(|d| d.remove::<f64>(id));
        }
        None => {}
    }
    if let Some(typed) = ui.data(|d| d.get_temp::<f64>(id)) {
        ui.colored_label(
            ui.visuals().warn_fg_color,
            format!("{typed} is not in {min}–1: set to {value:.2}"),
        );
    }
    response
}

/// The common-signature limit: auto, off, or a number of distinct pages.
fn common_limit_row(ui: &mut egui::Ui, common: &mut crate::matching::CommonLimit, label: egui::Id) {
    use crate::matching::CommonLimit;
    ui.horizontal(|ui| {
        let pages = match *common {
            CommonLimit::Pages(n) => n,
            _ => 1000,
        };
        egui::ComboBox::from_id_salt("common-limit")
            .selected_text(match common {
                CommonLimit::Auto => "auto",
                CommonLimit::Off => "off",
                CommonLimit::Pages(_) => "pages",
            })
            .show_ui(ui, |ui| {
                ui.selectable_value(common, CommonLimit::Auto, "auto");
                ui.selectable_value(common, CommonLimit::Off, "off");
                ui.selectable_value(common, CommonLimit::Pages(pages), "pages");
            })
            .response
            .labelled_by(label);
        if let CommonLimit::Pages(n) = common {
            ui.add(egui::DragValue::new(n).range(1..=u32::MAX).speed(10))
                .on_hover_text("distinct pages a signature may be on and still count");
        }
    });
}

/// A grid row: a labelled fraction in [0, 1] with its hover text.
fn fraction_row(ui: &mut egui::Ui, label: &str, hover: &str, value: &mut f64) {
    let label = ui.label(label).on_hover_text(hover);
    fraction_edit(ui, true, value, 0.0).labelled_by(label.id);
    ui.end_row();
}

fn guess_name(g: Guess) -> &'static str {
    match g {
        Guess::First => "first",
        Guess::Best => "best",
    }
}

impl RunSettings {
    /// The request these settings (and the tuned SpotSigs parameters) make.
    pub fn request(&self, tuning: &TuningView) -> RunRequest {
        let mut base = RunSpec::default_for(Algo::SpotSigs);
        base.matching.mode = self.mode;
        base.matching.guess = self.guess;
        base.matching.seed = self.seed;
        base.matching.min_shared = self.min_shared;
        base.matching.common = self.common;
        // Where the paper's loop runs, no link rule applies.
        base.matching
            .set_link_rules(if base.matching.link_rules_apply() {
                LinkRules {
                    share: self.link_share.clamp(0.0, 1.0),
                    refused_stays_alone: self.refused_stays_alone,
                    cross_links: self.cross_links.clamp(0.0, 1.0),
                }
            } else {
                LinkRules::default()
            });
        base.rule = self.rule;
        let mut options = DetectorOptions {
            spotsigs: tuning.params.clone(),
            ..DetectorOptions::default()
        };
        let stopwords = self.reference_stopwords.trim();
        if !stopwords.is_empty() {
            options.spotsigs_reference.stopwords = Some(stopwords.into());
        }
        RunRequest {
            algos: self.algos.iter().copied().collect(),
            options,
            base,
            thresholds: self.thresholds.clone(),
        }
    }

    /// The paper's matching rules: one shared signature, no link share, no cross links (so no
    /// refused page either).
    pub fn paper_matching(&mut self) {
        self.min_shared = 1;
        self.common = crate::matching::CommonLimit::Off;
        self.link_share = 0.0;
        self.cross_links = 0.0;
        self.refused_stays_alone = false;
    }

    /// The ticked detectors that do not run in the chosen mode (Run is refused while any is).
    pub fn refused(&self) -> Vec<&'static str> {
        self.algos
            .iter()
            .filter(|a| !a.supports(self.mode))
            .map(|a| a.name())
            .collect()
    }

    /// Draw the panel; returns what the person asked for.
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        has_workspace: bool,
        runs: &[AlgoRun],
        active: usize,
        previous: &BTreeMap<Algo, PreviousRun>,
    ) -> Option<Action> {
        let mut action = None;
        ui.heading("Run");
        ui.label("Detectors and thresholds:");
        self.detector_list(ui);
        self.reference_preset(ui);
        self.matching_grid(ui);
        // A mode a ticked detector does not run is an error, said before running.
        let refused = self.refused();
        if !refused.is_empty() {
            ui.colored_label(
                ui.visuals().warn_fg_color,
                if refused.len() == 1 {
                    format!(
                        "{} does not run in {} mode: untick it or choose another mode",
                        refused[0],
                        self.mode.name()
                    )
                } else {
                    format!(
                        "{} do not run in {} mode: untick them or choose another mode",
                        refused.join(", "),
                        self.mode.name()
                    )
                },
            );
        }
        if ui
            .add_enabled(
                has_workspace && refused.is_empty(),
                egui::Button::new("Run detectors"),
            )
            .on_hover_text("F5")
            .clicked()
        {
            action = Some(Action::Run);
        }
        ui.horizontal(|ui| {
            let label = ui.label("Replay URL");
            ui.add(
                egui::TextEdit::singleline(&mut self.replay_template)
                    .hint_text(super::capture::DEFAULT_REPLAY)
                    .desired_width(170.0),
            )
            .labelled_by(label.id)
            .on_hover_text(
                "Where \"Open in replay\" goes: {timestamp} (14 digits) and {url} are filled in, \
                 e.g. http://localhost:8080/my-coll/{timestamp}/{url} for pywb",
            );
        });
        if runs.is_empty() {
            return action;
        }
        ui.separator();
        if let Some(a) = Self::last_run_table(ui, runs, active, previous) {
            action = Some(a);
        }
        action
    }

    /// The published SpotSigs code as a preset, and the stopword list it needs.
    fn reference_preset(&mut self, ui: &mut egui::Ui) {
        if ui
            .button("Preset: SpotSigs as published")
            .on_hover_text(
                "Only spotsigs-reference, at the published code's 0.5, all pairs, clusters by \
                 transitive closure: the pairs and scores of the published Java code",
            )
            .clicked()
        {
            self.algos = BTreeSet::from([Algo::SpotSigsReference]);
            self.thresholds.insert(
                Algo::SpotSigsReference,
                Algo::SpotSigsReference.default_threshold(),
            );
            self.mode = Mode::AllPairs;
            self.rule = ClusterRule::Transitive;
        }
        if self.algos.contains(&Algo::SpotSigsReference) {
            ui.horizontal(|ui| {
                let label = ui.label("Its stopwords.txt");
                ui.add(
                    egui::TextEdit::singleline(&mut self.reference_stopwords)
                        .hint_text("path of the published code's list")
                        .desired_width(150.0),
                )
                .labelled_by(label.id)
                .on_hover_text(
                    "samecore cannot ship the published code's stopword list: give the path of \
                     your copy (or set SAMECORE_SPOTSIGS_STOPWORDS)",
                );
            });
        }
    }

    /// A checkbox and a threshold per detector of the registry.
    fn detector_list(&mut self, ui: &mut egui::Ui) {
        for algo in Algo::ALL {
            ui.horizontal(|ui| {
                let mut on = self.algos.contains(&algo);
                let info = algo.info();
                let check = ui
                    .checkbox(&mut on, algo.name())
                    .on_hover_text(format!("Finds {}. Score: {}.", info.finds, info.score));
                if check.changed() {
                    if on {
                        self.algos.insert(algo);
                    } else {
                        self.algos.remove(&algo);
                    }
                }
                let t = self
                    .thresholds
                    .entry(algo)
                    .or_insert(algo.default_threshold());
                fraction_edit(ui, on, t, 0.0).on_hover_text(format!(
                    "Threshold of {} (default {:.2})",
                    algo.name(),
                    algo.default_threshold()
                ));
            });
        }
    }

    /// Matching mode, guess, cluster rule, seed and sweep runs.
    fn matching_grid(&mut self, ui: &mut egui::Ui) {
        egui::Grid::new("run_grid").num_columns(2).show(ui, |ui| {
            let label = ui.label("Matching");
            egui::ComboBox::from_id_salt("mode")
                .selected_text(self.mode.name())
                .show_ui(ui, |ui| {
                    for m in Mode::ALL {
                        ui.selectable_value(&mut self.mode, m, m.name());
                    }
                })
                .response
                .labelled_by(label.id);
            ui.end_row();
            let label = ui.label("Guess");
            egui::ComboBox::from_id_salt("guess")
                .selected_text(guess_name(self.guess))
                .show_ui(ui, |ui| {
                    for g in [Guess::First, Guess::Best] {
                        ui.selectable_value(&mut self.guess, g, guess_name(g));
                    }
                })
                .response
                .labelled_by(label.id);
            ui.end_row();
            let label = ui.label("Cluster rule");
            egui::ComboBox::from_id_salt("rule")
                .selected_text(self.rule.name())
                .show_ui(ui, |ui| {
                    for r in ClusterRule::ALL {
                        ui.selectable_value(&mut self.rule, r, r.name());
                    }
                })
                .response
                .labelled_by(label.id);
            ui.end_row();
            let label = ui.label("Seed");
            ui.add(egui::DragValue::new(&mut self.seed))
                .labelled_by(label.id);
            ui.end_row();
            let label = ui.label("Shared signatures").on_hover_text(
                "SpotSigs: signatures a pair must share besides reaching the threshold \
                 (1: the paper; 2 keeps two short pages that share one common phrase apart)",
            );
            ui.add(egui::DragValue::new(&mut self.min_shared).range(1..=20))
                .labelled_by(label.id);
            ui.end_row();
            let label = ui.label("Common signatures").on_hover_text(
                "SpotSigs: signatures on more distinct pages than the limit count in the score \
                 but not as shared signatures, and pairs are looked up through the rarer ones \
                 only. Auto: no limit below 100k pages, above it 0.3 % of them (keeps chance \
                 pairs between stories of one topic out and matching fast). Off: the paper.",
            );
            common_limit_row(ui, &mut self.common, label.id);
            ui.end_row();
            fraction_row(
                ui,
                "Link share",
                "SpotSigs: a page joins a partner's cluster only if their score is at least this share \
                 of the best score either page has (0: the paper). Keeps a page that has a \
                 copy of its story from joining another story through a follow-up or a \
                 network's boilerplate. Not used in full mode (the paper's loop).",
                &mut self.link_share,
            );
            fraction_row(
                ui,
                "Cross links",
                "SpotSigs: a link holds only if at least this fraction of the page pairs across \
                 it (the pages linked through it against the rest of the cluster) are links \
                 too (0: the paper). Cuts a cluster where a second story rode in on one page. \
                 Not used in full mode (the paper's loop).",
                &mut self.cross_links,
            );
            let label = ui.label("Refused page").on_hover_text(
                "SpotSigs, with a link share: a page whose best pair the share refuses takes no \
                 link at all, instead of joining a weaker partner's story (off: it joins the best \
                 partner that takes it). Not used in full mode (the paper's loop).",
            );
            ui.checkbox(&mut self.refused_stays_alone, "stays alone")
                .labelled_by(label.id);
            ui.end_row();
            let label = ui
                .label("Runs (sweep)")
                .on_hover_text("Seeds averaged in the P/R curves (one above 20,000 pages)");
            ui.add(egui::DragValue::new(&mut self.runs).range(1..=20))
                .labelled_by(label.id);
            ui.end_row();
        });
    }

    /// The detectors of the last run with their quality; a click shows a detector's clusters.
    fn last_run_table(
        ui: &mut egui::Ui,
        runs: &[AlgoRun],
        active: usize,
        previous: &BTreeMap<Algo, PreviousRun>,
    ) -> Option<Action> {
        let mut action = None;
        ui.strong("Last run");
        egui::Grid::new("run_summary").striped(true).show(ui, |ui| {
            for h in ["detector", "groups", "t", "pair F1", "doc P/R", "secs"] {
                ui.weak(h);
            }
            ui.end_row();
            for (i, run) in runs.iter().enumerate() {
                if ui
                    .selectable_label(i == active, run.algo.name())
                    .on_hover_text("Show this detector's clusters")
                    .clicked()
                {
                    action = Some(Action::SetActive(i));
                }
                let groups = run.clusters.iter().filter(|c| c.members.len() > 1).count();
                ui.label(groups.to_string());
                ui.label(format!("{:.2}", run.detection.spec.matching.threshold));
                match &run.metrics {
                    Some(m) => {
                        let was = previous.get(&run.algo).and_then(|p| p.metrics);
                        let r = ui.label(format!("{:.3}", m.pairwise.f1));
                        if let Some(w) = was {
                            r.on_hover_text(format!(
                                "before this run: pairwise F1 {:.3}, document P/R {:.2}/{:.2}",
                                w.pairwise.f1, w.document.precision, w.document.recall
                            ));
                        }
                        ui.label(format!(
                            "{:.2}/{:.2}",
                            m.document.precision, m.document.recall
                        ));
                    }
                    None => {
                        ui.weak("–");
                        ui.weak("–");
                    }
                }
                let secs = run.prepare_seconds.unwrap_or(0.0) + run.detect_seconds;
                ui.label(format!("{secs:.2}"));
                ui.end_row();
            }
        });
        action
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_archives_get_a_coarse_single_seed_sweep() {
        assert_eq!(sweep_plan(1_000, 3), (sweep_thresholds(), 3));
        let (t, seeds) = sweep_plan(LARGE_ARCHIVE + 1, 3);
        assert_eq!((t.len(), seeds), (8, 1));
        assert!((t[0] - 0.2).abs() < 1e-9 && (t[7] - 0.9).abs() < 1e-9);
    }

    /// A threshold typed outside 0–1 is set to the nearest end and said so.
    #[test]
    fn a_fraction_typed_out_of_range_is_said() {
        use egui_kittest::Harness;
        use egui_kittest::kittest::Queryable;
        let mut h = Harness::new_ui_state(
            |ui, v: &mut f64| {
                let l = ui.label("Threshold");
                fraction_edit(ui, true, v, 0.0).labelled_by(l.id);
            },
            0.5,
        );
        h.run();
        h.get_by_label("Threshold").click();
        h.run();
        h.get_by_label("Threshold").focus();
        h.run();
        h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
        h.input_mut().events.push(egui::Event::Text("2".into()));
        h.run();
        h.key_press(egui::Key::Enter);
        h.run();
        assert_eq!(*h.state(), 1.0);
        h.get_by_label("2 is not in 0–1: set to 1.00");
    }
}
