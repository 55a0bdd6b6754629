//! The search bar over the cluster list (Ctrl+K): a query of [`crate::search`]'s language
//! answered by a background job on the project's index (built or updated first, with progress
//! and cancel), the stories listed one row each with their best member's snippet and the hits
//! marked; a click opens the story in the cluster list. From the results: code every story
//! (one undoable edit), export the matching pages (CSV, TSV, JSON Lines or Parquet), and the
//! matching stories per week.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use egui::text::LayoutJob;
use egui::{Color32, FontId, Key, KeyboardShortcut, Modifiers, TextFormat};

use super::action::{Action, ProjectAction};
use crate::search::{SearchOptions, SearchResults, Searcher, Sort};
use crate::store::{CodeId, RunId};

/// Focus the search bar (Ctrl+K).
pub const SHORTCUT_SEARCH: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::K);

/// Keys of the search bar, for the help overlay.
pub const KEYS: &[(&str, &str)] = &[
    (
        "Ctrl+K",
        "Search the pages' cores (the bar over the Clusters tab's list)",
    ),
    ("Enter", "Run the search (in the search bar)"),
    ("Esc", "Close the results (in the search bar)"),
];

/// Stories a result list shows (all are counted, coded and exported).
const SHOWN: usize = 200;

/// What the app runs for a search.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchRequest {
    /// The project file.
    pub project: PathBuf,
    /// The run whose clusters are the stories.
    pub run: Option<RunId>,
    /// The query.
    pub query: String,
    /// Search all of the visible text, frames included.
    pub whole_text: bool,
    /// The order.
    pub sort: Sort,
}

/// A search's answer.
#[derive(Debug, PartialEq)]
pub struct SearchAnswer {
    /// What was asked.
    pub request: SearchRequest,
    /// The stories.
    pub results: SearchResults,
    /// What opening or updating the index did, when it did something.
    pub report: Option<String>,
}

/// The index and stories kept across searches (the job holds it while it runs).
pub type SearchCache = Arc<Mutex<Option<Searcher>>>;

/// Answer `request` with the first stories a list shows (all are counted, and coded), opening
/// the index (or reusing `cache`'s when it is of the same project and run).
pub fn answer(
    cache: &SearchCache,
    request: SearchRequest,
    progress: &crate::progress::Progress,
) -> crate::Result<SearchAnswer> {
    answer_with(cache, request, Some(SHOWN), progress)
}

/// Write every matching page of `request`'s stories to `path` (the list showed only the
/// first); the rows written.
pub fn export(
    cache: &SearchCache,
    request: SearchRequest,
    path: &std::path::Path,
    progress: &crate::progress::Progress,
) -> crate::Result<usize> {
    let all = answer_with(cache, request, None, progress)?;
    crate::export::write_file(
        &all.results.rows(&all.request.query, all.request.run),
        path,
        None,
    )
}

fn answer_with(
    cache: &SearchCache,
    request: SearchRequest,
    limit: Option<usize>,
    progress: &crate::progress::Progress,
) -> crate::Result<SearchAnswer> {
    let mut slot = cache.lock().unwrap_or_else(|p| p.into_inner());
    let fresh = !slot.as_ref().is_some_and(|s| {
        s.run() == request.run && s.index().dir() == crate::search::index_dir(&request.project)
    });
    if fresh {
        *slot = None;
        *slot = Some(Searcher::open(&request.project, request.run, progress)?);
    }
    let searcher = slot.as_mut().expect("opened");
    let options = SearchOptions {
        whole_text: request.whole_text,
        sort: request.sort,
        limit,
    };
    let results = searcher.search(&request.query, &options, progress)?;
    let r = &searcher.report;
    let report = (fresh && (r.rebuilt.is_some() || r.added + r.deleted + r.reindexed > 0))
        .then(|| r.describe());
    Ok(SearchAnswer {
        request,
        results,
        report,
    })
}

/// The search bar and its results, inside the clusters view.
#[derive(Default)]
pub struct SearchPanel {
    /// The query typed.
    pub query: String,
    whole_text: bool,
    sort: Sort,
    /// The last answer, and whether its results are shown (instead of the cluster list).
    answer: Option<Arc<SearchAnswer>>,
    open: bool,
    /// A search was asked and not answered yet.
    pub waiting: bool,
    /// The code to give every story of the results.
    code: Option<CodeId>,
    /// Show the stories per week.
    per_week: bool,
}

impl SearchPanel {
    /// Whether the results are shown (in place of the cluster list).
    pub fn is_open(&self) -> bool {
        self.open
    }

    /// Take a search's answer.
    pub fn answered(&mut self, answer: Arc<SearchAnswer>) {
        self.waiting = false;
        self.answer = Some(answer);
        self.open = true;
    }

    /// The search failed (a malformed query, an index that cannot be read).
    pub fn failed(&mut self) {
        self.waiting = false;
    }

    /// The search bar: the query, whole text, Search. `project` and `run`: where the
    /// stories are (none: the bar says what is missing).
    pub fn bar(
        &mut self,
        ui: &mut egui::Ui,
        project: Option<&PathBuf>,
        run: Option<RunId>,
    ) -> Option<Action> {
        let focus = ui.input_mut(|i| i.consume_shortcut(&SHORTCUT_SEARCH));
        let Some(project) = project else {
            ui.horizontal_wrapped(|ui| {
                ui.label("Search:");
                ui.weak("with a project open (its pages are indexed beside it)");
            });
            return None;
        };
        let mut action = None;
        ui.horizontal_wrapped(|ui| {
            let label = ui.label("Search:");
            let edit = ui
                .add(
                    egui::TextEdit::singleline(&mut self.query)
                        .hint_text("words, \"phrase\", site:, published:[2015-09-01 TO *] (Ctrl+K)")
                        .desired_width((ui.available_width() - 260.0).clamp(160.0, 420.0)),
                )
                .labelled_by(label.id);
            if focus {
                edit.request_focus();
            }
            let enter = edit.lost_focus() && ui.input(|i| i.key_pressed(Key::Enter));
            if edit.has_focus() && ui.input(|i| i.key_pressed(Key::Escape)) {
                self.open = false;
            }
            let changed = ui
                .checkbox(&mut self.whole_text, "whole text")
                .on_hover_text(
                    "Search all of each page's visible text, its frame (navigation, teasers) \
                     included, not only its core",
                )
                .changed();
            let go = ui
                .add_enabled(!self.query.trim().is_empty(), egui::Button::new("Search"))
                .clicked();
            if self.waiting {
                ui.spinner();
            }
            if self.answer.is_some() && !self.open && ui.button("Results").clicked() {
                self.open = true;
            }
            if (go || enter || (changed && self.open)) && !self.query.trim().is_empty() {
                self.waiting = true;
                action = Some(Action::Search(SearchRequest {
                    project: project.clone(),
                    run,
                    query: self.query.trim().to_string(),
                    whole_text: self.whole_text,
                    sort: self.sort,
                }));
            }
        });
        action
    }

    /// The results in place of the cluster list. `codes`: the codebook's codes (name, id).
    pub fn results(&mut self, ui: &mut egui::Ui, codes: &[(String, CodeId)]) -> Vec<Action> {
        let mut actions = Vec::new();
        let Some(answer) = self.answer.clone() else {
            return actions;
        };
        let results = &answer.results;
        ui.horizontal_wrapped(|ui| {
            ui.strong(format!(
                "{} for “{}”{}",
                results.describe(),
                answer.request.query,
                if answer.request.whole_text {
                    " (whole text)"
                } else {
                    ""
                }
            ));
            let label = ui.label("Sort by");
            let before = self.sort;
            egui::ComboBox::from_id_salt("search_sort")
                .selected_text(sort_label(self.sort))
                .show_ui(ui, |ui| {
                    for s in [Sort::Relevance, Sort::First, Sort::Size] {
                        ui.selectable_value(&mut self.sort, s, sort_label(s));
                    }
                })
                .response
                .labelled_by(label.id);
            if before != self.sort {
                self.waiting = true;
                actions.push(Action::Search(SearchRequest {
                    sort: self.sort,
                    ..answer.request.clone()
                }));
            }
            ui.checkbox(&mut self.per_week, "per week");
            if ui
                .button("Export…")
                .on_hover_text(
                    "The matching pages, one row each with their story's rank and cluster",
                )
                .clicked()
            {
                actions.push(Action::Export(super::export::ExportWhat::Search(
                    answer.clone(),
                )));
            }
            if ui
                .button("Close")
                .on_hover_text("Esc in the search bar")
                .clicked()
            {
                self.open = false;
            }
        });
        if let Some(run) = answer.request.run {
            ui.horizontal_wrapped(|ui| {
                let label = ui.label("Code every story found with");
                let name = self
                    .code
                    .and_then(|c| codes.iter().find(|(_, id)| *id == c))
                    .map_or("(choose a code)", |(n, _)| n.as_str());
                egui::ComboBox::from_id_salt("search_code")
                    .selected_text(name)
                    .show_ui(ui, |ui| {
                        for (n, id) in codes {
                            ui.selectable_value(&mut self.code, Some(*id), n);
                        }
                    })
                    .response
                    .labelled_by(label.id);
                let clusters = results.all_clusters.clone();
                if let Some(code) = self.code
                    && ui
                        .button(format!("Code {} stories", clusters.len()))
                        .on_hover_text("One edit: Undo code takes it back")
                        .clicked()
                {
                    actions.push(Action::Project(ProjectAction::CodeStories {
                        run,
                        clusters,
                        code,
                        what: format!("the stories found by {:?}", answer.request.query),
                    }));
                }
                if codes.is_empty() {
                    ui.weak("(add codes in the Coding panel)");
                }
            });
        }
        if self.per_week {
            per_week_plot(ui, results);
        }
        ui.separator();
        let shown = results.stories.len().min(SHOWN);
        // Rows differ in height (a snippet wraps to its width): not virtualised, so at most
        // SHOWN of them.
        egui::ScrollArea::vertical()
            .id_salt("search_results")
            .auto_shrink([false, false])
            .show(ui, |ui| {
                for i in 0..shown {
                    let story = &results.stories[i];
                    let head = format!(
                        "{}. {}  —  {}/{} pages, first {} {}{}",
                        i + 1,
                        if story.title.is_empty() {
                            "(no title)"
                        } else {
                            &story.title
                        },
                        story.members.len(),
                        story.size,
                        story.first.as_deref().unwrap_or("(no date)"),
                        story.first_site.as_deref().unwrap_or(""),
                        if story.codes.is_empty() {
                            String::new()
                        } else {
                            format!("  ·  {}", story.codes.join(", "))
                        }
                    );
                    // Right-to-left titles and snippets in their order (the bidi layer).
                    let head = super::bidi::visual(&head).into_owned();
                    let response = ui
                        .add(
                            egui::Label::new(egui::RichText::new(head).strong())
                                .truncate()
                                .sense(egui::Sense::click()),
                        )
                        .on_hover_text("Open the story in the cluster list");
                    let job = snippet_job(ui, story);
                    ui.push_id(i, |ui| super::bidi::show(ui, &job));
                    if response.clicked()
                        && let Some(c) = story.cluster
                    {
                        self.open = false;
                        actions.push(Action::SelectCluster(c as u32));
                    }
                    ui.add_space(4.0);
                }
            });
        if results.story_count > shown {
            ui.weak(format!(
                "the first {shown} of {} stories are listed; all are coded and exported",
                results.story_count
            ));
        }
        actions
    }
}

fn sort_label(s: Sort) -> &'static str {
    match s {
        Sort::Relevance => "relevance",
        Sort::First => "first publication",
        Sort::Size => "size",
    }
}

/// The snippet with its hits marked (strong on a yellow ground).
fn snippet_job(ui: &egui::Ui, story: &crate::search::StoryHit) -> LayoutJob {
    let font = FontId::proportional(ui.text_style_height(&egui::TextStyle::Body) * 0.95);
    let plain = TextFormat {
        font_id: font.clone(),
        color: ui.visuals().weak_text_color(),
        ..Default::default()
    };
    let hit = TextFormat {
        font_id: font,
        color: ui.visuals().strong_text_color(),
        background: Color32::from_rgba_unmultiplied(250, 210, 60, 90),
        ..Default::default()
    };
    let s = &story.snippet;
    let text = &s.text;
    let mut job = LayoutJob::default();
    let mut at = 0;
    for &(a, b) in &s.hits {
        job.append(&text[at..a], 0.0, plain.clone());
        job.append(&text[a..b], 0.0, hit.clone());
        at = b;
    }
    job.append(&text[at..], 0.0, plain.clone());
    if !s.in_core {
        job.append(
            "  (the match is outside the core: in the frame)",
            0.0,
            TextFormat {
                italics: true,
                ..plain
            },
        );
    }
    job
}

/// Bars of the matching stories per week of first publication.
fn per_week_plot(ui: &mut egui::Ui, results: &SearchResults) {
    let weeks = results.per_period(true);
    if weeks.is_empty() {
        ui.weak("No matching story has a publication date.");
        return;
    }
    let bars: Vec<egui_plot::Bar> = weeks
        .iter()
        .filter_map(|(w, n)| {
            let day = crate::search::day_of(Some(w))?;
            // The week from its Monday: the bar spans it.
            Some(
                egui_plot::Bar::new(day as f64 + 3.5, *n as f64)
                    .width(6.0)
                    .name(w),
            )
        })
        .collect();
    let first = bars.first().map_or(0.0, |b| b.argument);
    let last = bars.last().map_or(0.0, |b| b.argument);
    let most = weeks.iter().map(|(_, n)| *n).max().unwrap_or(1) as f64;
    egui_plot::Plot::new("search_weeks")
        .height(140.0)
        .include_x(first - 14.0)
        .include_x(last + 14.0)
        .include_y(0.0)
        .include_y(most * 1.15)
        .x_axis_formatter(|mark, _| {
            let (y, m, d) = crate::calendar::civil_from_days(mark.value.round() as i64);
            format!("{y:04}-{m:02}-{d:02}")
        })
        .y_axis_label("stories")
        .allow_scroll(false)
        .show(ui, |plot| {
            plot.bar_chart(egui_plot::BarChart::new("stories per week", bars));
        });
}
