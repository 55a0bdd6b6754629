//! The pair view: two pages side by side as the terms SpotSigs compared, with a word-level
//! diff (terms found on one side only are tinted) and the spot signatures both pages share
//! highlighted (antecedent underlined, spot word marked) — why they matched. A toggle shows the
//! raw pages instead, and another what was copied: both cores (their sites' frames left out)
//! with the aligned passages marked and numbered, each side's reuse share, which page came first
//! and how the later one derives, which a coder can confirm or change ([`crate::passages`]).
//! Archived pages are shown as text: nothing runs, nothing is fetched.

use egui::text::{LayoutJob, TextFormat};
use egui::{Color32, FontId, Stroke};

use crate::DocId;
use crate::calendar::Published;
use crate::gui::model::pair::{PairComparison, PairTerm, SpotRole, TermDiff};
use crate::gui::model::workspace::{AlgoRun, Workspace};

use super::action::Action;
use super::jobs::JobKind;
use super::view::{View, ViewContext};

/// Keys of this view, for the help overlay.
pub const KEYS: &[(&str, &str)] = &[
    ("R", "Raw / terms toggle in the Pair tab"),
    ("A", "Aligned passages: what was copied (Pair tab)"),
];

/// What the pair view is shown with: whether its comparison is being made, whether a blind
/// sample hides scores, and what the coder may do with the pair's derivation.
pub struct Coding {
    /// A comparison is being made.
    pub busy: bool,
    /// A blind sample is being labelled: scores, shares and detectors hidden.
    pub blind: bool,
    /// Whether a project is open to record in.
    pub open: bool,
    /// The decision already recorded ("partially derived (ann, 2026-11-27)").
    pub decided: Option<String>,
}

/// Raw pages are cut here for display (a page of megabytes would only slow the window).
const RAW_LIMIT: usize = 200_000;

/// State of the pair view.
#[derive(Default)]
pub struct PairView {
    raw: bool,
    /// Show the cores with their aligned passages.
    aligned: bool,
    /// Laid-out sides of the pair shown, rebuilt when the pair or mode changes.
    cache: Option<LaidOut>,
    /// The dates the pair shown is ordered by ([`crate::gui::model::workspace::pair_dates`]),
    /// for the pair and the run's clusters (by their address) they were found in.
    dates: Option<PairDates>,
}

/// A pair, the address of the cluster list its dates were found in, and the dates.
type PairDates = (
    (DocId, DocId, usize),
    (Option<Published>, Option<Published>),
);

/// The two sides laid out for a pair and mode (raw, aligned).
type LaidOut = ((DocId, DocId, bool, bool), LayoutJob, LayoutJob);

/// Colours of the passages, in turn.
const PASSAGE_COLOURS: [Color32; 3] = [
    Color32::from_rgba_premultiplied(40, 80, 140, 120),
    Color32::from_rgba_premultiplied(40, 110, 70, 120),
    Color32::from_rgba_premultiplied(110, 70, 120, 120),
];

/// A core with its passages (byte ranges, in order) tinted and numbered.
fn layout_passages(text: &str, passages: &[(u32, u32, usize)], colour: Color32) -> LayoutJob {
    let mut job = LayoutJob::default();
    let font = FontId::proportional(14.0);
    let plain = TextFormat::simple(font.clone(), colour);
    let mut at = 0usize;
    let mut ranges = passages.to_vec();
    ranges.sort_unstable();
    for (start, end, number) in ranges {
        let (start, end) = (start as usize, end as usize);
        if start < at || end > text.len() {
            continue;
        }
        job.append(&text[at..start], 0.0, plain.clone());
        let mut mark =
            TextFormat::simple(FontId::proportional(11.0), Color32::from_rgb(255, 200, 80));
        mark.valign = egui::Align::TOP;
        job.append(&format!("[{number}]"), 2.0, mark);
        let mut format = plain.clone();
        format.background = PASSAGE_COLOURS[(number - 1) % PASSAGE_COLOURS.len()];
        job.append(&text[start..end], 0.0, format);
        at = end;
    }
    job.append(&text[at..], 0.0, plain);
    job
}

fn layout_terms(terms: &[PairTerm], only_background: Color32, text: Color32) -> LayoutJob {
    let mut job = LayoutJob::default();
    let font = FontId::proportional(14.0);
    let plain = TextFormat::simple(font.clone(), text);
    for t in terms {
        let mut format = plain.clone();
        if t.diff == TermDiff::Only {
            format.background = only_background;
        }
        match t.spot {
            SpotRole::Antecedent => {
                format.underline = Stroke::new(2.0, Color32::from_rgb(80, 160, 255));
                format.color = Color32::from_rgb(120, 190, 255);
            }
            SpotRole::Spot => {
                format.background = Color32::from_rgb(150, 120, 0);
                format.color = Color32::WHITE;
            }
            SpotRole::None => {}
        }
        job.append(&t.text, 0.0, format);
        job.append(" ", 0.0, plain.clone());
    }
    job
}

fn layout_raw(html: &str) -> LayoutJob {
    let end = html.floor_char_boundary(RAW_LIMIT.min(html.len()));
    let mut text = html[..end].to_string();
    if end < html.len() {
        text.push_str("\n… (cut for display)");
    }
    LayoutJob::simple(text, FontId::monospace(12.0), Color32::GRAY, f32::INFINITY)
}

/// Where the compared pages stand in the shown run's clustering: "Left: the representative;
/// right: member 3 of 7 of the same cluster", or that they are in different clusters.
pub fn place_in_cluster(run: Option<&AlgoRun>, pair: &PairComparison) -> Option<String> {
    let run = run?;
    let find = |d: DocId| {
        run.clusters
            .iter()
            .find_map(|c| c.members.iter().position(|m| *m == d).map(|i| (c, i)))
    };
    let ((ca, ia), (cb, ib)) = (find(pair.a)?, find(pair.b)?);
    let side = |i: usize, n: usize| {
        if i == 0 {
            format!("the representative (member 1 of {n})")
        } else {
            format!("member {} of {n}", i + 1)
        }
    };
    Some(if ca.id == cb.id {
        format!(
            "Cluster {} of {}: left is {}; right is {}",
            ca.id,
            run.algo.name(),
            side(ia, ca.members.len()),
            side(ib, cb.members.len())
        )
    } else {
        format!(
            "Different clusters of {}: left is {} of cluster {}; right is {} of cluster {}",
            run.algo.name(),
            side(ia, ca.members.len()),
            ca.id,
            side(ib, cb.members.len()),
            cb.id
        )
    })
}

impl PairView {
    /// The dates `pair` is ordered by, found once per pair and cluster list (looking them up
    /// reads every cluster's members).
    fn dates_of(
        &mut self,
        ws: &Workspace,
        pair: &PairComparison,
        run: Option<&AlgoRun>,
    ) -> (Option<Published>, Option<Published>) {
        let clusters = run.map(|r| r.clusters.as_slice()).unwrap_or_default();
        let key = (pair.a, pair.b, clusters.as_ptr() as usize);
        if let Some((k, dates)) = self.dates
            && k == key
        {
            return dates;
        }
        let dates =
            crate::gui::model::workspace::pair_dates(clusters, &ws.collection.docs, pair.a, pair.b);
        self.dates = Some((key, dates));
        dates
    }

    /// Lay the sides out again at the next draw (another pair of the same documents).
    pub fn forget_layout(&mut self) {
        self.cache = None;
    }

    /// Draw the view; `blind` (labelling a blind sample) hides every detector's score.
    pub fn show(
        &mut self,
        ui: &mut egui::Ui,
        ws: &Workspace,
        pair: Option<&PairComparison>,
        run: Option<&AlgoRun>,
        coding: &Coding,
    ) -> Option<Action> {
        let (busy, blind) = (coding.busy, coding.blind);
        let Some(pair) = pair else {
            if busy {
                ui.spinner();
            }
            ui.label("No pair yet: pick a cluster in the Clusters tab and click one of its pages.");
            return None;
        };
        if !ui.ctx().egui_wants_keyboard_input() {
            let (r, a) = ui.input(|i| {
                (
                    i.key_pressed(egui::Key::R) && i.modifiers.is_none(),
                    i.key_pressed(egui::Key::A) && i.modifiers.is_none(),
                )
            });
            if r {
                self.raw = !self.raw;
                self.aligned = false;
            }
            if a {
                self.aligned = !self.aligned;
                self.raw = false;
            }
        }
        let docs = &ws.collection.docs;
        if let Some(place) = place_in_cluster(run, pair) {
            ui.strong(place);
        }
        self.summary(ui, pair, busy, blind);
        let mut action = None;
        if self.aligned && blind {
            ui.weak("Blind sample: shares and derivation hidden");
        } else if self.aligned {
            let dates = self.dates_of(ws, pair, run);
            action = Self::copied(ui, pair, dates, coding);
        } else {
            Self::shared_signatures(ui, pair);
        }

        self.layout(ui, pair);
        let dates = self.dates_of(ws, pair, run);
        let Some((_, left, right)) = &self.cache else {
            return action;
        };
        Self::sides(ui, docs, pair, dates, left, right, self.aligned).or(action)
    }

    /// What was copied: each side's reuse share, which came first, the derived page's class,
    /// and the coder's buttons.
    fn copied(
        ui: &mut egui::Ui,
        pair: &PairComparison,
        (date_a, date_b): (Option<Published>, Option<Published>),
        coding: &Coding,
    ) -> Option<Action> {
        use crate::passages::{Derivation, Direction};
        let p = &pair.passages;
        let al = &p.alignment;
        // Ordered by the dates the members table shows for the pages of one cluster.
        let d = &crate::passages::derivation(
            (al.share_a(), al.share_b()),
            date_a,
            date_b,
            &Default::default(),
        );
        let mut action = None;
        ui.horizontal_wrapped(|ui| {
            ui.label(format!(
                "Left: {:.1} % of its core found in the right page ({} passage{}); right: {:.1} % found in the left ({}).",
                al.share_a() * 100.0,
                al.a_in_b.passages.len(),
                if al.a_in_b.passages.len() == 1 { "" } else { "s" },
                al.share_b() * 100.0,
                al.b_in_a.passages.len()
            ));
        });
        // The source and the derived page: by publication date, else the page more inside
        // the other; the order says what it rests on (the same words as `samecore passages`).
        let (source, derived) = match d.direction {
            Direction::AFirst => (pair.a, pair.b),
            Direction::BFirst => (pair.b, pair.a),
            Direction::Undated if al.share_a() > al.share_b() => (pair.b, pair.a),
            Direction::Undated => (pair.a, pair.b),
        };
        let order = crate::passages::order_phrase(
            ("left", "right"),
            date_a,
            date_b,
            d,
            (al.share_a(), al.share_b()),
        );
        let side = if derived == pair.b { "right" } else { "left" };
        ui.horizontal_wrapped(|ui| {
            ui.strong(format!(
                "The {side} page is {} ({:.1} % of its core)",
                d.class.label(),
                d.share * 100.0
            ));
            ui.label(format!("— {order}."));
        });
        ui.horizontal_wrapped(|ui| {
            if let Some(done) = &coding.decided {
                ui.label(format!("Coded: {done}."));
            }
            if !coding.open {
                ui.weak("Open a project to record the class.");
                return;
            }
            ui.label(format!("The {side} page is:"));
            for class in [Derivation::Wholly, Derivation::Partially, Derivation::Non] {
                let text = if class == d.class {
                    format!("{} (computed)", class.label())
                } else {
                    class.label().to_string()
                };
                if ui
                    .button(text)
                    .on_hover_text("Record this class of the pair in the project, with your name")
                    .clicked()
                {
                    action = Some(Action::Project(
                        super::action::ProjectAction::SetDerivation {
                            source,
                            derived,
                            class,
                        },
                    ));
                }
            }
        });
        action
    }

    /// Raw or tokens, the term differences, and every detector's score of the pair.
    fn summary(&mut self, ui: &mut egui::Ui, pair: &PairComparison, busy: bool, blind: bool) {
        ui.horizontal(|ui| {
            if ui
                .checkbox(&mut self.raw, "Raw pages")
                .on_hover_text("R")
                .changed()
                && self.raw
            {
                self.aligned = false;
            }
            if ui
                .checkbox(&mut self.aligned, "Aligned passages")
                .on_hover_text("What was copied: the passages the two cores share (A)")
                .changed()
                && self.aligned
            {
                self.raw = false;
            }
            ui.separator();
            let only_left = pair
                .left
                .iter()
                .filter(|t| t.diff == TermDiff::Only)
                .count();
            let only_right = pair
                .right
                .iter()
                .filter(|t| t.diff == TermDiff::Only)
                .count();
            ui.label(format!("Term differences: {}", pair.term_differences));
            ui.label(format!("Only left: {only_left} terms"));
            ui.label(format!("Only right: {only_right} terms"));
            if !pair.diff_complete {
                ui.weak("(diff cut by its deadline: coarser than minimal)");
            }
            if busy {
                ui.spinner();
            }
        });
        ui.horizontal_wrapped(|ui| {
            if blind {
                ui.weak("Blind sample: scores and detectors hidden");
                return;
            }
            if pair.scores.is_empty() {
                return;
            }
            ui.label("Similarity:");
            for s in &pair.scores {
                let text = match s.score {
                    Some(v) => format!("{} {v:.3}", s.algo.name()),
                    None => format!("{} –", s.algo.name()),
                };
                let text = if s.same_cluster {
                    format!("{text} (same cluster)")
                } else {
                    text
                };
                ui.label(text);
                ui.separator();
            }
        });
    }

    /// The spot signatures the two pages share.
    fn shared_signatures(ui: &mut egui::Ui, pair: &PairComparison) {
        egui::CollapsingHeader::new(format!(
            "Shared spot signatures: {}",
            pair.shared_signatures.len()
        ))
        .id_salt("shared_sigs")
        .show(ui, |ui| {
            egui::ScrollArea::vertical()
                .id_salt("sigs_scroll")
                .max_height(120.0)
                .show(ui, |ui| {
                    ui.horizontal_wrapped(|ui| {
                        for (sig, n) in &pair.shared_signatures {
                            ui.label(if *n > 1 {
                                format!("{sig} ×{n}")
                            } else {
                                sig.clone()
                            });
                            ui.separator();
                        }
                    });
                });
        });
    }

    /// Lay out the two sides once per pair and mode.
    fn layout(&mut self, ui: &egui::Ui, pair: &PairComparison) {
        let key = (pair.a, pair.b, self.raw, self.aligned);
        if self.cache.as_ref().map(|c| c.0) != Some(key) {
            let (l, r) = if self.aligned {
                let p = &pair.passages;
                let text = ui.visuals().text_color();
                // Each side: its core, with the passages found in the other page.
                let ranges = |core: &crate::passages::Core, al: &crate::passages::Alignment| {
                    al.passages
                        .iter()
                        .enumerate()
                        .map(|(k, x)| {
                            let (s, e) = core.bytes_of(x.a.clone());
                            (s, e, k + 1)
                        })
                        .collect::<Vec<_>>()
                };
                let al = &p.alignment;
                (
                    layout_passages(&p.a.core.text, &ranges(&p.a.core, &al.a_in_b), text),
                    layout_passages(&p.b.core.text, &ranges(&p.b.core, &al.b_in_a), text),
                )
            } else if self.raw {
                (layout_raw(&pair.raw_left), layout_raw(&pair.raw_right))
            } else {
                let text = ui.visuals().text_color();
                (
                    layout_terms(
                        &pair.left,
                        Color32::from_rgba_unmultiplied(200, 60, 60, 70),
                        text,
                    ),
                    layout_terms(
                        &pair.right,
                        Color32::from_rgba_unmultiplied(60, 180, 80, 70),
                        text,
                    ),
                )
            };
            self.cache = Some((key, l, r));
        }
    }

    /// The two pages side by side.
    fn sides(
        ui: &mut egui::Ui,
        docs: &[crate::Document],
        pair: &PairComparison,
        dates: (Option<Published>, Option<Published>),
        left: &LayoutJob,
        right: &LayoutJob,
        aligned: bool,
    ) -> Option<Action> {
        let mut action = None;
        if aligned {
            ui.label("Each page's core (its site's frame left out); tinted and numbered: the passages found in the other page.");
        } else {
            ui.label("Tinted: terms found on one side only. Underlined: antecedents of shared spot signatures; marked: their spot words.");
        }
        ui.columns(2, |cols| {
            for (col, (doc, job, side, date)) in cols.iter_mut().zip([
                (pair.a, left, "left", dates.0),
                (pair.b, right, "right", dates.1),
            ]) {
                let d = &docs[doc.index()];
                // Columns lay out justified; a plain vertical keeps the text unstretched.
                col.vertical(|ui| {
                    let font = egui::TextStyle::Body.resolve(ui.style());
                    let strong = ui.visuals().strong_text_color();
                    let title = d.title.as_deref().unwrap_or("(untitled)");
                    super::bidi::text_block(ui, title, font, strong);
                    ui.label(format!(
                        "{} — {} — captured {} — {}",
                        d.site.shown(),
                        published_line(d, date),
                        d.date.as_deref().unwrap_or("at an unknown time"),
                        d.url.as_deref().unwrap_or(&d.key)
                    ));
                    if let Some(a) = capture_buttons(ui, d, doc) {
                        action = Some(a);
                    }
                    ui.separator();
                    egui::ScrollArea::vertical()
                        .id_salt(("pair_side", side))
                        .auto_shrink([false, false])
                        .show(ui, |ui| super::bidi::show(ui, job));
                });
            }
        });
        action
    }
}

/// Open capture, open in replay, copy URL, copy record id: for one page.
fn capture_buttons(ui: &mut egui::Ui, d: &crate::Document, doc: DocId) -> Option<Action> {
    let mut action = None;
    ui.horizontal_wrapped(|ui| {
        if ui
            .small_button("Open capture")
            .on_hover_text("The archived page in your browser, with scripts and remote loads off")
            .clicked()
        {
            action = Some(Action::OpenCapture(doc));
        }
        if ui
            .add_enabled(d.url.is_some(), egui::Button::new("Open in replay").small())
            .on_hover_text("In the replay system of the Replay URL (left panel)")
            .clicked()
        {
            action = Some(Action::OpenReplay(doc));
        }
        if let Some(url) = &d.url
            && ui.small_button("Copy URL").clicked()
        {
            ui.ctx().copy_text(url.to_string());
        }
        if let Some(id) = d.record_id()
            && ui.small_button("Copy record id").clicked()
        {
            ui.ctx().copy_text(id.to_string());
        }
    });
    action
}

impl View for PairView {
    fn ui(&mut self, ui: &mut egui::Ui, cx: &mut ViewContext<'_>) {
        let busy = cx.busy(JobKind::Pair);
        let run = cx.runs.get(cx.active);
        let pages = cx.project.pages.clone();
        let page = |d: DocId| pages.as_ref().and_then(|p| p.get(d.index()).copied());
        let decided = cx.pair.and_then(|p| {
            let (a, b) = (page(p.a)?, page(p.b)?);
            cx.project.derivation_of(a, b).map(|d| {
                format!(
                    "{} ({}, {})",
                    d.class.label(),
                    d.by,
                    d.at.get(..10).unwrap_or(&d.at)
                )
            })
        });
        let coding = Coding {
            busy,
            blind: cx.blind,
            open: cx.project.is_open() && pages.is_some(),
            decided,
        };
        let action = self.show(ui, cx.workspace, cx.pair, run, &coding);
        cx.ask(action);
    }
}

/// The publication a side of the header names: the date the pair is ordered by (`counted`,
/// [`crate::gui::model::workspace::pair_dates`]); a date from the page's text that its cluster
/// does not take for a publication is named as such.
fn published_line(d: &crate::Document, counted: Option<Published>) -> String {
    match (
        published_text(d),
        crate::passages::published_phrase(counted),
    ) {
        (_, Some(said)) => said,
        (Some(own), None) => format!(
            "no publication date ({own} is a date the story mentions, long before its copies')"
        ),
        (None, None) => "no publication date".into(),
    }
}

/// `2007-01-26 (meta)`: the page's publication date and where it was found; none when the
/// page gives none (its capture time is not a publication date).
fn published_text(d: &crate::Document) -> Option<String> {
    crate::passages::published_phrase(d.published)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calendar::Published;

    #[test]
    fn the_header_names_a_publication_date_never_a_capture() {
        let mut d = crate::Document::from_page("p", None, String::from("<p>a</p>"));
        d.date = Some("20070126000000".into());
        d.published = None;
        assert_eq!(published_text(&d), None, "no date in the page");
        d.published = Published::from_stored(Some("2007-01-26"), Some("capture"));
        assert_eq!(published_text(&d), None, "a capture is not a publication");
        d.published = Published::from_stored(Some("2007-01-25"), Some("meta"));
        assert_eq!(published_text(&d).as_deref(), Some("2007-01-25 (meta)"));
    }
}
