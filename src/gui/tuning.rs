//! Antecedent tuning (Workbench paper §5.1–5.2, §6): the current antecedents with their spot
//! distances and chains, edited in place, one language at a time (English is the main set,
//! which pages of a language without a set of their own take too; see
//! [`crate::signature::languages`]); the signature options (tokenizer, antecedent in the
//! signature, minimum signatures, IDF band, site frame); and the corpus's frequent words with
//! their coverage and spread to choose new antecedents from. Running again re-signs SpotSigs
//! only.

use crate::gui::model::vocabulary::WordStat;
use crate::signature::SpotSigsParams;
use crate::signature::languages::{self, Languages};
use crate::signature::spotsigs::{Antecedent, DEFAULT_DISTANCE};
use crate::token::TokenSource;

use super::action::Action;
use super::jobs::JobKind;
use super::view::{View, ViewContext};

/// State of the tuning view; `params` is what the next run signs with.
pub struct TuningView {
    /// SpotSigs parameters of the next run.
    pub params: SpotSigsParams,
    /// The language whose antecedents are shown and edited ("en": the main set).
    language: String,
    /// Text of each shown antecedent's distances (`2` or `2:3`), edited before parsing.
    distance_text: Vec<String>,
    /// Last edit error, shown until the next valid edit.
    error: Option<String>,
    filter: String,
}

impl Default for TuningView {
    fn default() -> Self {
        TuningView::with_params(SpotSigsParams::default())
    }
}

impl TuningView {
    /// The view editing `params`.
    pub fn with_params(params: SpotSigsParams) -> Self {
        let distance_text = params.antecedents.iter().map(distances_text).collect();
        TuningView {
            params,
            language: "en".into(),
            distance_text,
            error: None,
            filter: String::new(),
        }
    }

    /// The antecedents of the language shown: the main set for English (or with languages
    /// off), else the language's edited or bundled set.
    pub fn shown_antecedents(&self) -> Vec<Antecedent> {
        match &self.params.languages {
            Some(l) if self.language != "en" => l
                .set(&self.language)
                .map(|s| s.antecedents)
                .unwrap_or_default(),
            _ => self.params.antecedents.clone(),
        }
    }

    /// Replace the antecedents of the language shown.
    fn set_shown_antecedents(&mut self, antecedents: Vec<Antecedent>) {
        match &mut self.params.languages {
            Some(l) if self.language != "en" => {
                if let Some(mut set) = l.set(&self.language) {
                    set.stopwords
                        .extend(antecedents.iter().map(|a| a.word.clone()));
                    set.stopwords.sort();
                    set.stopwords.dedup();
                    set.antecedents = antecedents;
                    l.edit(&self.language, Some(set));
                }
            }
            _ => self.params.antecedents = antecedents,
        }
    }

    /// Show (and edit) the antecedents of `code`.
    pub fn show_language(&mut self, code: &str) {
        self.language = code.to_string();
        self.distance_text = self
            .shown_antecedents()
            .iter()
            .map(distances_text)
            .collect();
    }
}

fn distances_text(a: &Antecedent) -> String {
    a.distances
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(":")
}

impl TuningView {
    fn add(&mut self, word: &str) {
        let mut list = self.shown_antecedents();
        if list.iter().any(|a| a.word == word) {
            return;
        }
        match Antecedent::parse(word, &[DEFAULT_DISTANCE]) {
            Ok(a) => {
                self.distance_text.push(distances_text(&a));
                list.push(a);
                self.set_shown_antecedents(list);
                self.error = None;
            }
            Err(e) => self.error = Some(e.to_string()),
        }
    }

    /// Whether pages take their language's antecedents, and which language is shown.
    fn language_row(&mut self, ui: &mut egui::Ui) {
        ui.horizontal(|ui| {
            let mut per_page = self.params.languages.is_some();
            if ui
                .checkbox(&mut per_page, "per page language")
                .on_hover_text(
                    "Each page takes the antecedents and stopwords of its language, identified \
                     from its core text; off: every page takes the English set (the paper)",
                )
                .changed()
            {
                self.params.languages = per_page.then(Languages::default);
                self.show_language("en");
            }
            let Some(l) = &self.params.languages else {
                return;
            };
            let codes = l.codes();
            let name = |c: &str| {
                let edited = l.edited.contains_key(c);
                format!(
                    "{} ({c}){}",
                    languages::name(c),
                    if edited { ", edited" } else { "" }
                )
            };
            let mut chosen = None;
            let label = ui.label("Language");
            egui::ComboBox::from_id_salt("antecedent_language")
                .selected_text(name(&self.language))
                .show_ui(ui, |ui| {
                    for c in &codes {
                        if ui.selectable_label(*c == self.language, name(c)).clicked() {
                            chosen = Some(c.clone());
                        }
                    }
                })
                .response
                .labelled_by(label.id);
            if let Some(c) = chosen {
                self.show_language(&c);
            }
        });
        if self.params.languages.is_some() && self.language == "en" {
            ui.weak("Pages of a language without a set of its own take English's.");
        }
    }

    /// Draw the view.
    pub fn show(
        &mut self,
        ui: &mut egui::Ui,
        vocab: Option<&[WordStat]>,
        busy: bool,
    ) -> Option<Action> {
        let mut action = None;
        ui.columns(2, |cols| {
            let ui = &mut cols[0];
            let what = match (&self.params.languages, self.language.as_str()) {
                (Some(_), c) => format!("{} pages", languages::name(c)),
                (None, _) => "every page".to_string(),
            };
            ui.heading(format!(
                "Antecedents of {what} ({})",
                self.shown_antecedents().len()
            ));
            self.language_row(ui);
            ui.label("Spot distances per antecedent: `2` is a(2), `3:4` is the chain a(3,4).");
            if let Some(e) = &self.error {
                ui.colored_label(egui::Color32::LIGHT_RED, e);
            }
            self.antecedent_list(ui);
            ui.separator();
            self.signature_options(ui);
            if let Some(a) = self.run_buttons(ui) {
                action = Some(a);
            }
            if let Some(a) = self.frequent_words(&mut cols[1], vocab, busy) {
                action = Some(a);
            }
        });
        action
    }

    /// The published SpotSigs configuration in samecore's own engine.
    fn published_preset(&mut self) {
        let reference = crate::detectors::spotsigs_reference::ReferenceOptions::default();
        let spec: Vec<String> = reference
            .antecedents
            .iter()
            .map(|(w, d)| format!("{w}:{d}"))
            .collect();
        match Antecedent::parse_list(&spec.join(","), &[1]) {
            Ok(antecedents) => {
                self.distance_text = antecedents.iter().map(distances_text).collect();
                self.params.antecedents = antecedents;
                // The published code knows English only.
                self.params.languages = None;
                self.language = "en".into();
                self.params.tokens = TokenSource::Markup;
                self.params.include_antecedent = false;
                self.params.idf_band = Some(reference.idf_band);
                self.params.min_signatures = reference.min_signatures as usize;
                self.params.site_frame = None;
                self.error = None;
            }
            Err(e) => self.error = Some(e.to_string()),
        }
    }

    /// The antecedents with their distances, editable, each with a remove button.
    fn antecedent_list(&mut self, ui: &mut egui::Ui) {
        let mut remove = None;
        let mut list = self.shown_antecedents();
        let before = list.clone();
        egui::ScrollArea::vertical()
            .id_salt("antecedents")
            .max_height(280.0)
            .show(ui, |ui| {
                egui::Grid::new("antecedent_grid")
                    .striped(true)
                    .show(ui, |ui| {
                        for (i, a) in list.iter_mut().enumerate() {
                            ui.label(&a.word);
                            let text = &mut self.distance_text[i];
                            let r = ui.add(
                                egui::TextEdit::singleline(text)
                                    .hint_text("distances")
                                    .desired_width(60.0),
                            );
                            if r.changed() {
                                match Antecedent::parse(&format!("{}:{}", a.word, text), &[]) {
                                    Ok(parsed) => {
                                        a.distances = parsed.distances;
                                        self.error = None;
                                    }
                                    Err(e) => self.error = Some(e.to_string()),
                                }
                            }
                            if ui.small_button("remove").clicked() {
                                remove = Some(i);
                            }
                            ui.end_row();
                        }
                    });
            });
        if let Some(i) = remove {
            list.remove(i);
            self.distance_text.remove(i);
        }
        if list != before {
            self.set_shown_antecedents(list);
        }
    }

    /// Tokens, antecedent in signature, minimum signatures, IDF band, site frame.
    fn signature_options(&mut self, ui: &mut egui::Ui) {
        egui::Grid::new("sig_options")
            .num_columns(2)
            .show(ui, |ui| {
                let label = ui.label("Tokens");
                egui::ComboBox::from_id_salt("tokens")
                    .selected_text(self.params.tokens.name())
                    .show_ui(ui, |ui| {
                        for t in TokenSource::ALL {
                            ui.selectable_value(&mut self.params.tokens, t, t.name());
                        }
                    })
                    .response
                    .labelled_by(label.id);
                ui.end_row();
                ui.label("Signatures");
                ui.checkbox(
                    &mut self.params.include_antecedent,
                    "include the antecedent",
                );
                ui.end_row();
                let label = ui.label("Minimum signatures");
                ui.add(egui::DragValue::new(&mut self.params.min_signatures).range(0..=100))
                    .labelled_by(label.id);
                ui.end_row();
                ui.label("IDF band");
                let mut on = self.params.idf_band.is_some();
                ui.horizontal(|ui| {
                    if ui.checkbox(&mut on, "on").changed() {
                        self.params.idf_band = on.then_some((0.2, 0.8));
                    }
                    if let Some((lo, hi)) = &mut self.params.idf_band {
                        let l = ui.label("from");
                        ui.add(egui::DragValue::new(lo).range(0.0..=1.0).speed(0.01))
                            .labelled_by(l.id);
                        let l = ui.label("to");
                        ui.add(egui::DragValue::new(hi).range(0.0..=1.0).speed(0.01))
                            .labelled_by(l.id);
                    }
                });
                ui.end_row();
                self.site_frame_rows(ui);
            });
    }

    /// The site frame (signatures on nearly every page of a site are dropped) and how a site's
    /// copies of one page count: two grid rows.
    fn site_frame_rows(&mut self, ui: &mut egui::Ui) {
        use crate::signature::frame::{DEFAULT_COPIES, SiteFrame};
        ui.label("Site frame").on_hover_text(
            "Drop the signatures found on more than this share of a site's pages (its navigation, \
             teasers and footers), in sites of at least this many pages; off: the paper",
        );
        let mut on = self.params.site_frame.is_some();
        ui.horizontal(|ui| {
            if ui.checkbox(&mut on, "drop").changed() {
                self.params.site_frame = on.then(SiteFrame::default);
            }
            if let Some(frame) = &mut self.params.site_frame {
                let l = ui.label("above share");
                super::run_panel::fraction_edit(ui, true, &mut frame.max_share, 0.0)
                    .labelled_by(l.id);
                let l = ui.label("in sites of");
                ui.add(egui::DragValue::new(&mut frame.min_pages).range(1..=1000))
                    .labelled_by(l.id);
                ui.label("pages or more");
            }
        });
        ui.end_row();
        let Some(frame) = &mut self.params.site_frame else {
            return;
        };
        ui.label("Site's copies").on_hover_text(
            "Pages of one site whose signatures are this similar (Jaccard) count as one page, so a \
             site whose pages are copies of one story keeps that story; off: every page counts",
        );
        ui.horizontal(|ui| {
            let mut once = frame.copies.is_some();
            if ui.checkbox(&mut once, "count once").changed() {
                frame.copies = once.then_some(DEFAULT_COPIES);
            }
            if let Some(copies) = &mut frame.copies {
                let l = ui.label("from Jaccard");
                super::run_panel::fraction_edit(ui, true, copies, 0.01).labelled_by(l.id);
            }
        });
        ui.end_row();
    }

    /// Run with these antecedents, or reset them.
    fn run_buttons(&mut self, ui: &mut egui::Ui) -> Option<Action> {
        let mut action = None;
        ui.horizontal(|ui| {
            if ui
                .button("Run with these antecedents")
                .on_hover_text(
                    "SpotSigs again with these antecedents; the other detectors' runs stay",
                )
                .clicked()
            {
                action = Some(Action::RunSpotSigs);
            }
            if ui.button("Reset to defaults").clicked() {
                *self = TuningView::default();
            }
            if ui
                .button("Published preset")
                .on_hover_text(
                    "The published code's antecedents, raw markup, the antecedent left out of the \
                     signature, IDF band 0.2–0.8, at least 4 signatures, no site frame, and the \
                     paper's matching in the Run panel (one shared signature, no link share, no \
                     cross links) — in samecore's engine. For the published code's exact pairs \
                     run spotsigs-reference.",
                )
                .clicked()
            {
                self.published_preset();
                action = Some(Action::PaperMatching);
            }
        });

        action
    }

    /// The corpus's frequent words, to add as antecedents.
    fn frequent_words(
        &mut self,
        ui: &mut egui::Ui,
        vocab: Option<&[WordStat]>,
        busy: bool,
    ) -> Option<Action> {
        let mut action = None;
        let shown = self.shown_antecedents();
        ui.heading("Frequent words");
        ui.horizontal(|ui| {
            if ui
                .add_enabled(!busy, egui::Button::new("Compute word statistics"))
                .clicked()
            {
                action = Some(Action::WordStats);
            }
            if busy {
                ui.spinner();
            }
            ui.add(
                egui::TextEdit::singleline(&mut self.filter)
                    .hint_text("filter words")
                    .desired_width(120.0),
            );
        });
        let Some(vocab) = vocab else {
            ui.weak(
                "Coverage: share of pages with the word. Spread: how evenly it falls \
             through a page (share of tenths of the page it occurs in).",
            );
            return action;
        };
        let needle = self.filter.trim().to_lowercase();
        let rows: Vec<&WordStat> = vocab
            .iter()
            .filter(|w| needle.is_empty() || w.word.contains(&needle))
            .collect();
        let mut add = None;
        egui_extras::TableBuilder::new(ui)
            .id_salt("vocab_table")
            .striped(true)
            .column(egui_extras::Column::initial(110.0))
            .column(egui_extras::Column::initial(70.0))
            .column(egui_extras::Column::initial(70.0))
            .column(egui_extras::Column::initial(80.0))
            .column(egui_extras::Column::remainder())
            .header(20.0, |mut h| {
                for name in ["word", "coverage", "spread", "count", ""] {
                    h.col(|ui| {
                        ui.strong(name);
                    });
                }
            })
            .body(|body| {
                body.rows(18.0, rows.len(), |mut row| {
                    let w = rows[row.index()];
                    row.col(|ui| {
                        ui.label(&w.word);
                    });
                    row.col(|ui| {
                        ui.label(format!("{:.2}", w.coverage));
                    });
                    row.col(|ui| {
                        ui.label(format!("{:.2}", w.spread));
                    });
                    row.col(|ui| {
                        ui.label(w.occurrences.to_string());
                    });
                    row.col(|ui| {
                        let present = shown.iter().any(|a| a.word == w.word);
                        if !present && ui.small_button("add").clicked() {
                            add = Some(w.word.clone());
                        }
                    });
                });
            });
        if let Some(w) = add {
            self.add(&w);
        }
        action
    }
}

impl View for TuningView {
    fn ui(&mut self, ui: &mut egui::Ui, cx: &mut ViewContext<'_>) {
        let busy = cx.busy(JobKind::Vocab);
        let action = self.show(ui, cx.vocab, busy);
        cx.ask(action);
    }
}
