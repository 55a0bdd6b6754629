//! The clusters view: every cluster of the active detector in a virtualised list (size,
//! story title (its headline, [`crate::headline`]), sites, date span, gold purity), sorted and filtered; the selected
//! cluster's members below, where a click opens that member beside the representative.

use std::sync::Arc;

use egui::Key;
use egui_extras::{Column, TableBuilder};

use crate::DocId;
use crate::gui::model::shares::ClusterShares;
use crate::gui::model::workspace::{AlgoRun, ClusterSummary, Workspace};
use crate::passages::Derivation;

use super::action::Action;
use super::documents::contains_folded;
use super::export::ExportWhat;
use super::filter::{FRAME_BUDGET, SlicedFilter, filtering};
use super::view::{View, ViewContext};

/// Keys of this view, for the help overlay.
pub const KEYS: &[(&str, &str)] = &[
    ("N / P", "Next / previous cluster"),
    ("J / K", "Next / previous member (Clusters and Pair tabs)"),
    ("Enter", "Compare the member with the representative"),
    ("T", "The selected cluster's members table / timeline"),
    (
        "Ctrl+F",
        "The filter of the tab shown (Documents: pages; Clusters: clusters)",
    ),
];

/// How the cluster list is ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SortBy {
    /// Largest first.
    #[default]
    Size,
    /// The story's title.
    Title,
    /// Number of distinct sites, most first.
    Sites,
    /// Earliest first publication first.
    Date,
    /// Least pure first (needs gold): where the detector went wrong.
    Purity,
    /// Weakest link first: the clusters a member joined on the least evidence.
    WeakestLink,
}

impl SortBy {
    const ALL: [SortBy; 6] = [
        SortBy::Size,
        SortBy::Title,
        SortBy::Sites,
        SortBy::Date,
        SortBy::Purity,
        SortBy::WeakestLink,
    ];

    fn label(self) -> &'static str {
        match self {
            SortBy::Size => "size",
            SortBy::Title => "title",
            SortBy::Sites => "sites",
            SortBy::Date => "date",
            SortBy::Purity => "gold purity",
            SortBy::WeakestLink => "weakest link",
        }
    }
}

/// The columns of the cluster list, in display order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ListColumn {
    Number,
    Pages,
    Title,
    Sites,
    Captured,
    Codes,
    Purity,
    Weakest,
}

/// What a cluster's story carries, as the list shows it: its values of the annotator's and
/// its tag codes (`tone=2 · election`), and whether it is coded (every scored story variable
/// answered by the annotator; with no story variable, a tag code).
pub type StoryCodes<'a> = &'a dyn Fn(&ClusterSummary) -> (String, bool);

/// Which clusters the list shows by their coding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CodedFilter {
    /// Every one.
    #[default]
    All,
    /// Those coded.
    Coded,
    /// Those not coded yet.
    NotCoded,
}

impl CodedFilter {
    const ALL: [CodedFilter; 3] = [CodedFilter::All, CodedFilter::Coded, CodedFilter::NotCoded];

    fn label(self) -> &'static str {
        match self {
            CodedFilter::All => "coded or not",
            CodedFilter::Coded => "coded",
            CodedFilter::NotCoded => "not coded",
        }
    }
}

impl ListColumn {
    const ALL: [ListColumn; 8] = [
        ListColumn::Number,
        ListColumn::Pages,
        ListColumn::Title,
        ListColumn::Sites,
        ListColumn::Captured,
        ListColumn::Codes,
        ListColumn::Purity,
        ListColumn::Weakest,
    ];
    /// The columns that may give way, most important first.
    const BY_PRIORITY: [ListColumn; 5] = [
        ListColumn::Codes,
        ListColumn::Sites,
        ListColumn::Captured,
        ListColumn::Purity,
        ListColumn::Weakest,
    ];
    /// The least the title keeps.
    const TITLE_MIN: f32 = 140.0;

    fn header(self) -> &'static str {
        match self {
            ListColumn::Number => "#",
            ListColumn::Pages => "Pages",
            ListColumn::Title => "Story",
            ListColumn::Sites => "Sites",
            ListColumn::Captured => "First published",
            ListColumn::Codes => "Codes",
            ListColumn::Purity => "Gold purity",
            ListColumn::Weakest => "Weakest link",
        }
    }

    fn width(self) -> f32 {
        match self {
            ListColumn::Number => 40.0,
            ListColumn::Pages => 46.0,
            ListColumn::Title => Self::TITLE_MIN,
            ListColumn::Sites => 120.0,
            ListColumn::Captured => 150.0,
            ListColumn::Codes => 120.0,
            ListColumn::Purity => 80.0,
            ListColumn::Weakest => 90.0,
        }
    }

    fn column(self) -> Column {
        match self {
            // Not resizable, so that it follows the window: egui_extras keeps a resizable
            // column's width when the window grows or shrinks.
            ListColumn::Title => Column::remainder()
                .at_least(Self::TITLE_MIN)
                .clip(true)
                .resizable(false),
            other => Column::initial(other.width()).clip(true),
        }
    }

    /// The columns that fit in `width`, in display order: number, pages and title always,
    /// then the others by priority while they fit (gold purity only with gold).
    fn fitting(width: f32, has_gold: bool, has_codes: bool) -> Vec<ListColumn> {
        // Cell spacing per column, and the list's scroll bar.
        let spacing = 10.0;
        let width = width - 16.0;
        let mut used = [ListColumn::Number, ListColumn::Pages, ListColumn::Title]
            .iter()
            .map(|c| c.width() + spacing)
            .sum::<f32>();
        let mut chosen = vec![ListColumn::Number, ListColumn::Pages, ListColumn::Title];
        for c in Self::BY_PRIORITY {
            if (c == ListColumn::Purity && !has_gold) || (c == ListColumn::Codes && !has_codes) {
                continue;
            }
            if used + c.width() + spacing <= width {
                used += c.width() + spacing;
                chosen.push(c);
            }
        }
        Self::ALL
            .into_iter()
            .filter(|c| chosen.contains(c))
            .collect()
    }

    fn cell(
        self,
        ui: &mut egui::Ui,
        c: &ClusterSummary,
        ws: &Workspace,
        story: Option<StoryCodes<'_>>,
    ) {
        let docs = &ws.collection.docs;
        match self {
            ListColumn::Codes => {
                if let Some((text, _)) = story.map(|f| f(c)) {
                    ui.label(text);
                }
            }
            ListColumn::Number => {
                ui.label(c.id.to_string())
                    .on_hover_text("The cluster's number (exports and samecore code use it)");
            }
            ListColumn::Pages => {
                ui.label(c.members.len().to_string());
            }
            ListColumn::Title => {
                // A title cut by the column shows whole on hover (egui does that itself);
                // where the story's is not the representative's own title, one hover gives
                // both.
                let title = c.title(ws);
                if title == c.raw_title(docs) {
                    super::bidi::label(ui, &title);
                    return;
                }
                let raw = c.raw_title(docs);
                super::bidi::label_with_own_hover(ui, &title).on_hover_ui(|ui| {
                    super::bidi::paragraphs(ui, &title);
                    ui.add_space(6.0);
                    ui.label(
                        "The story's headline, from its pages' titles without their sites' \
                         own words. The representative's <title>:",
                    );
                    super::bidi::paragraphs(ui, raw);
                });
            }
            ListColumn::Sites => {
                ui.label(format!("{} ({})", c.sites.join(", "), c.sites.len()));
            }
            ListColumn::Captured => {
                // The first publication's day and how long the story took to spread; the
                // capture span on hover.
                let text = match c.spread.first_at {
                    Some(at) if c.spread.span_seconds > 0 => format!(
                        "{} +{}",
                        at.ymd(),
                        crate::dates::spread::human(c.spread.span_seconds)
                    ),
                    Some(at) => at.ymd(),
                    None => String::new(),
                };
                let r = ui.label(text);
                if let Some((lo, hi)) = c.dates(docs) {
                    r.on_hover_text(format!("captured {lo} – {hi}"));
                }
            }
            ListColumn::Purity => {
                ui.label(c.gold_purity.map(|p| format!("{p:.2}")).unwrap_or_default());
            }
            ListColumn::Weakest => {
                ui.label(c.weakest.map(|w| format!("{w:.3}")).unwrap_or_default())
                    .on_hover_text("The lowest score by which a member is linked to its cluster");
            }
        }
    }
}

/// The rows the coding filter kept (last), from which rows, by which filter, for which codes.
type CodedRows = (Arc<[usize]>, CodedFilter, usize, Arc<[usize]>);

/// State of the clusters view.
#[derive(Default)]
pub struct ClustersView {
    filter: String,
    sort: SortBy,
    show_singletons: bool,
    /// Indices into the run's cluster list, filtered and sorted: the last complete filter's
    /// while a new one is scanned. Shared (`Arc`) so that a frame takes it without copying
    /// 100k indices.
    visible: Arc<[usize]>,
    /// The filter's matches `visible` was sorted from (`None`: sort again).
    sorted_from: Option<Arc<[usize]>>,
    /// The filter's scan, a slice per frame.
    matcher: SlicedFilter,
    /// Selected cluster (index into the run's cluster list).
    selected: Option<usize>,
    /// Selected member (index into the cluster's members).
    member: Option<usize>,
    scroll_to_selected: bool,
    /// A cluster number to select once a run shows it (a reopened project's selection).
    pending: Option<u32>,
    /// The selected cluster shown as a timeline instead of its members table (T).
    timeline: bool,
    /// Where the timeline drew each member in the last frame.
    timeline_marks: Vec<(DocId, egui::Pos2)>,
    /// The members whose reuse shares were last asked for (asked once per cluster).
    shares_asked: Option<Vec<DocId>>,
    /// Which clusters to list by their coding.
    coded_filter: CodedFilter,
    /// The rows the coding filter kept: for these rows, this filter and these codes.
    coded_rows: Option<CodedRows>,
    /// The search bar over the list and its results (Ctrl+K).
    pub search: super::search::SearchPanel,
}

impl ClustersView {
    /// Where the timeline drew each member of the selected cluster in the last frame (empty
    /// when the members table is shown).
    pub fn timeline_marks(&self) -> &[(DocId, egui::Pos2)] {
        if self.timeline {
            &self.timeline_marks
        } else {
            &[]
        }
    }

    /// Select the cluster numbered `id` as soon as the shown run has it.
    pub fn select_when_shown(&mut self, id: u32) {
        self.pending = Some(id);
    }

    /// The cluster number waiting to be selected, if any.
    pub fn pending_selection(&self) -> Option<u32> {
        self.pending
    }

    /// Forget the list and selection (a new run or threshold).
    pub fn reset(&mut self) {
        self.visible = Arc::from([]);
        self.sorted_from = None;
        self.matcher.clear();
        self.selected = None;
        self.member = None;
    }

    /// The rows shown: clusters passing the filter, in the chosen order. The filter looks for
    /// its text in the members' titles, URLs and keys, and the cluster's sites, a slice of the
    /// clusters per frame ([`SlicedFilter`]): a lowercased copy of them held for every cluster
    /// was ~250 MB at a million pages, and reading the members takes ~0.7 s there.
    fn refresh(&mut self, clusters: &[ClusterSummary], ws: &Workspace) -> Arc<[usize]> {
        let docs = &ws.collection.docs;
        let needle = self.filter.trim().to_lowercase();
        let singletons = self.show_singletons;
        let found = |d: &DocId| {
            let doc = &docs[d.index()];
            [doc.title.as_deref(), doc.url.as_deref(), Some(&*doc.key)]
                .into_iter()
                .flatten()
                .any(|p| contains_folded(p, &needle))
        };
        let keep = |i: usize| {
            let c = &clusters[i];
            (singletons || c.members.len() > 1)
                && (needle.is_empty()
                    || c.sites.iter().any(|s| s.contains(&needle))
                    || c.members.iter().any(found))
        };
        let scope = u64::from(singletons);
        if let Some(matched) = self
            .matcher
            .poll(&needle, scope, clusters.len(), FRAME_BUDGET, keep)
            && !self
                .sorted_from
                .as_ref()
                .is_some_and(|m| Arc::ptr_eq(m, &matched))
        {
            let mut rows = matched.to_vec();
            let key = |i: &usize| &clusters[*i];
            match self.sort {
                SortBy::Size => {}
                SortBy::Title => rows.sort_by_cached_key(|i| key(i).title(ws).into_owned()),
                SortBy::Sites => rows.sort_by_key(|i| std::cmp::Reverse(key(i).sites.len())),
                SortBy::Date => rows.sort_by_key(|r| {
                    let first = key(r).spread.first_at;
                    (first.is_none(), first.map(|a| a.utc))
                }),
                SortBy::WeakestLink => rows.sort_by(|a, b| {
                    key(a)
                        .weakest
                        .unwrap_or(f64::INFINITY)
                        .total_cmp(&key(b).weakest.unwrap_or(f64::INFINITY))
                }),
                SortBy::Purity => rows.sort_by(|a, b| {
                    key(a)
                        .gold_purity
                        .unwrap_or(1.0)
                        .total_cmp(&key(b).gold_purity.unwrap_or(1.0))
                }),
            }
            self.visible = rows.into();
            self.sorted_from = Some(matched);
        }
        self.visible.clone()
    }

    /// The pair (representative, member) `delta` members away from the selected one.
    pub fn step_member(&mut self, run: &AlgoRun, delta: isize) -> Option<(DocId, DocId)> {
        let cluster = run.clusters.get(self.selected?)?;
        if cluster.members.len() < 2 {
            return None;
        }
        let n = cluster.members.len() as isize;
        let current = self.member.unwrap_or(0) as isize;
        let mut next = (current + delta).clamp(1, n - 1);
        if next == current && self.member.is_none() {
            next = 1;
        }
        self.member = Some(next as usize);
        Some((cluster.members[0], cluster.members[next as usize]))
    }

    /// The selected cluster (its id in the run) and selected member, if any.
    pub fn selected(&self, run: &AlgoRun) -> Option<(u32, Option<DocId>)> {
        let c = run.clusters.get(self.selected?)?;
        Some((c.id, self.member.and_then(|m| c.members.get(m).copied())))
    }

    /// Draw the view; `codes_of` (with a project open) gives each member's codes and where
    /// they came from.
    pub fn show(
        &mut self,
        ui: &mut egui::Ui,
        ws: &Workspace,
        run: Option<&AlgoRun>,
        codes_of: Option<&dyn Fn(DocId) -> (String, String)>,
        shares: Option<&ClusterShares>,
        story: Option<(StoryCodes<'_>, usize)>,
    ) -> Option<Action> {
        let Some(run) = run else {
            ui.label("No clusters yet: choose detectors on the left and press Run detectors (F5).");
            return None;
        };
        let clusters = &run.clusters;
        if let Some(id) = self.pending
            && let Some(i) = clusters.iter().position(|c| c.id == id)
        {
            self.selected = Some(i);
            self.member = None;
            self.scroll_to_selected = true;
            self.pending = None;
        }
        Self::heading(ui, run);
        self.filter_bar(ui, story.is_some());
        let mut rows = self.refresh(clusters, ws);
        if let Some((coded_of, key)) = story
            && self.coded_filter != CodedFilter::All
        {
            let want = self.coded_filter == CodedFilter::Coded;
            let cached = self.coded_rows.as_ref().filter(|(from, f, k, _)| {
                Arc::ptr_eq(from, &rows) && *f == self.coded_filter && *k == key
            });
            let kept = match cached {
                Some((_, _, _, kept)) => kept.clone(),
                None => {
                    let kept: Arc<[usize]> = (rows.iter().copied())
                        .filter(|&i| coded_of(&clusters[i]).1 == want)
                        .collect();
                    self.coded_rows = Some((rows.clone(), self.coded_filter, key, kept.clone()));
                    kept
                }
            };
            ui.label(format!(
                "{} of {} clusters listed are {}",
                kept.len(),
                rows.len(),
                self.coded_filter.label()
            ));
            rows = kept;
        }
        let scanning = self.matcher.progress();
        if let Some((done, of)) = scanning {
            filtering(ui, done, of, "clusters");
        } else if !self.filter.trim().is_empty() {
            let listed = clusters
                .iter()
                .filter(|c| self.show_singletons || c.members.len() > 1)
                .count();
            ui.label(format!(
                "{} of {listed} clusters match the filter",
                rows.len()
            ));
        }
        let mut action = self.keys(ui, run, &rows);
        ui.horizontal(|ui| {
            let selected = self.selected;
            if ui
                .add_enabled(selected.is_some(), egui::Button::new("Export cluster…"))
                .on_hover_text("The selected cluster's pages with their identity and links")
                .on_disabled_hover_text("Select a cluster first (N / P)")
                .clicked()
                && let Some(i) = selected
            {
                action = Some(Action::Export(ExportWhat::Cluster(i)));
            }
            if ui
                .add_enabled(scanning.is_none(), egui::Button::new("Export list…"))
                .on_hover_text("The clusters listed now (after the filter), one row each")
                .on_disabled_hover_text("The filter is still looking through the clusters")
                .clicked()
            {
                action = Some(Action::Export(ExportWhat::Clusters(rows.to_vec())));
            }
        });
        ui.scope(|ui| {
            super::view::rows_take_clicks(ui);
            self.cluster_table(ui, clusters, ws, &rows, story.map(|s| s.0));
        });
        ui.separator();
        let Some(cluster) = self.selected.and_then(|s| clusters.get(s)) else {
            ui.weak("Select a cluster (N / P) to see its pages.");
            return action;
        };
        ui.horizontal(|ui| {
            ui.selectable_value(&mut self.timeline, false, "Members")
                .on_hover_text("T");
            ui.selectable_value(&mut self.timeline, true, "Timeline")
                .on_hover_text("Who published first and when the others followed (T)");
            ui.label(format!(
                "Cluster of {} pages (#{}) — click a page (or J / K, Enter) to compare it with the representative",
                cluster.members.len(),
                cluster.id
            ));
        });
        // What the members copied from the representative: asked for once per cluster.
        let shares = shares.filter(|s| s.members == cluster.members);
        if cluster.members.len() > 1
            && shares.is_none()
            && self.shares_asked.as_ref() != Some(&cluster.members)
        {
            self.shares_asked = Some(cluster.members.clone());
            action = action.or(Some(Action::ClusterShares(
                cluster.members.clone(),
                cluster.spread.dates.clone(),
            )));
        }
        if let Some(s) = shares {
            shared_core(ui, s);
        }
        let asked = if self.timeline {
            super::timeline::cluster_timeline(ui, ws, cluster, &mut self.timeline_marks)
        } else {
            self.members_table(ui, ws, cluster, codes_of, shares)
        };
        if let Some(a) = asked {
            action = Some(a);
        }
        action
    }

    /// "N clusters of 2+ pages (M pages) — detector at threshold t".
    fn heading(ui: &mut egui::Ui, run: &AlgoRun) {
        let clusters = &run.clusters;
        let groups = clusters.iter().filter(|c| c.members.len() > 1).count();
        let in_groups: usize = clusters
            .iter()
            .filter(|c| c.members.len() > 1)
            .map(|c| c.members.len())
            .sum();
        ui.horizontal(|ui| {
            ui.strong(format!(
                "{groups} clusters of 2+ pages ({in_groups} pages) — {} at threshold {:.2}",
                run.algo.name(),
                run.detection.spec.matching.threshold
            ));
            if let Some(path) = &run.imported {
                ui.label(
                    egui::RichText::new("imported from Spark")
                        .color(egui::Color32::from_rgb(230, 160, 40)),
                )
                .on_hover_text(format!(
                    "The Spark job's pairs, {}, clustered here; not run in this window",
                    path.display()
                ));
            }
        });
        if groups == 0 {
            empty_result(ui, run);
        }
    }

    /// Filter, sort order and singletons.
    fn filter_bar(&mut self, ui: &mut egui::Ui, coding: bool) {
        // Ctrl+F (Cmd+F) goes to the filter, as in Documents.
        let focus = ui.input_mut(|i| i.consume_key(egui::Modifiers::COMMAND, Key::F));
        // What is visible (the Coding panel narrows the clip rect, not the ui): the bar wraps
        // there.
        let visible = ui
            .available_width()
            .min(ui.clip_rect().right() - ui.cursor().left());
        ui.scope(|ui| {
            ui.set_max_width(visible);
            self.filter_row(ui, coding, focus);
        });
    }

    fn filter_row(&mut self, ui: &mut egui::Ui, coding: bool, focus: bool) {
        ui.horizontal_wrapped(|ui| {
            let label = ui.label("Filter:");
            let edit = ui
                .add(
                    egui::TextEdit::singleline(&mut self.filter)
                        .hint_text("URL, site, title (Ctrl+F)")
                        .desired_width((ui.available_width() - 330.0).clamp(100.0, 220.0)),
                )
                .labelled_by(label.id);
            if focus {
                edit.request_focus();
            }
            let label = ui.label("Sort by");
            let before = self.sort;
            egui::ComboBox::from_id_salt("cluster_sort")
                .selected_text(self.sort.label())
                .show_ui(ui, |ui| {
                    for s in SortBy::ALL {
                        ui.selectable_value(&mut self.sort, s, s.label());
                    }
                })
                .response
                .labelled_by(label.id);
            if before != self.sort {
                self.sorted_from = None;
            }
            ui.checkbox(&mut self.show_singletons, "singletons");
            if coding {
                let label = ui.label("Show");
                egui::ComboBox::from_id_salt("coded_filter")
                    .selected_text(self.coded_filter.label())
                    .show_ui(ui, |ui| {
                        for f in CodedFilter::ALL {
                            ui.selectable_value(&mut self.coded_filter, f, f.label());
                        }
                    })
                    .response
                    .labelled_by(label.id)
                    .on_hover_text(
                        "Coded: every story variable answered by you (Coding as), or, without \
                         story variables, a tag code",
                    );
            }
        });
    }

    /// N / P move between clusters, J / K between members, Enter compares.
    fn keys(&mut self, ui: &mut egui::Ui, run: &AlgoRun, rows: &[usize]) -> Option<Action> {
        let clusters = &run.clusters;
        let mut action = None;
        if !ui.ctx().egui_wants_keyboard_input() {
            if ui.input(|i| i.key_pressed(Key::T) && i.modifiers.is_none()) {
                self.timeline = !self.timeline;
            }
            let (next, prev, down, up, enter) = ui.input(|i| {
                (
                    i.key_pressed(Key::N),
                    i.key_pressed(Key::P),
                    i.key_pressed(Key::J),
                    i.key_pressed(Key::K),
                    i.key_pressed(Key::Enter),
                )
            });
            if (next || prev) && !rows.is_empty() {
                let pos = self
                    .selected
                    .and_then(|s| rows.iter().position(|&r| r == s));
                let p = match (pos, next) {
                    (None, _) => 0,
                    (Some(p), true) => (p + 1).min(rows.len() - 1),
                    (Some(p), false) => p.saturating_sub(1),
                };
                self.selected = Some(rows[p]);
                self.member = None;
                self.scroll_to_selected = true;
            }
            if down || up {
                self.step_member(run, if down { 1 } else { -1 });
            }
            if enter
                && let Some(c) = self.selected.and_then(|s| clusters.get(s))
                && let Some(m) = self.member.and_then(|m| c.members.get(m))
                && *m != c.members[0]
            {
                action = Some(Action::Compare(c.members[0], *m));
            }
        }

        action
    }

    /// The list of clusters (`rows` of `clusters`, in display order).
    fn cluster_table(
        &mut self,
        ui: &mut egui::Ui,
        clusters: &[ClusterSummary],
        ws: &Workspace,
        rows: &[usize],
        story: Option<StoryCodes<'_>>,
    ) {
        let list_height = (ui.available_height() * 0.5).max(120.0);
        // Columns give way by priority when the window (or the codebook beside the list)
        // leaves too little width: the title keeps at least 140 px and takes what is left.
        let has_gold = clusters.iter().any(|c| c.gold_purity.is_some());
        // What is visible: the codebook beside the list narrows the clip rect, not the ui.
        let width = ui
            .available_width()
            .min(ui.clip_rect().right() - ui.cursor().left());
        let shown = ListColumn::fitting(width, has_gold, story.is_some());
        let hidden: Vec<&str> = ListColumn::ALL
            .iter()
            .filter(|c| {
                !shown.contains(c)
                    && (has_gold || **c != ListColumn::Purity)
                    && (story.is_some() || **c != ListColumn::Codes)
            })
            .map(|c| c.header())
            .collect();
        // The note and the title take what is visible, not the wider ui, so neither is cut
        // under the Coding panel.
        ui.set_max_width(width);
        if !hidden.is_empty() {
            ui.weak(format!(
                "Hidden for width: {} (widen the window or narrow the side panels)",
                hidden.join(", ")
            ));
        }
        let mut table = TableBuilder::new(ui)
            .id_salt("cluster_table")
            .striped(true)
            .resizable(true)
            .sense(egui::Sense::click())
            .max_scroll_height(list_height)
            .min_scrolled_height(list_height);
        for c in &shown {
            table = table.column(c.column());
        }
        if self.scroll_to_selected
            && let Some(pos) = self
                .selected
                .and_then(|s| rows.iter().position(|&r| r == s))
        {
            table = table.scroll_to_row(pos, None);
            self.scroll_to_selected = false;
        }
        table
            .header(20.0, |mut h| {
                for c in &shown {
                    h.col(|ui| {
                        ui.strong(c.header());
                    });
                }
            })
            .body(|body| {
                body.rows(18.0, rows.len(), |mut row| {
                    let i = rows[row.index()];
                    let c = &clusters[i];
                    row.set_selected(self.selected == Some(i));
                    for column in &shown {
                        row.col(|ui| column.cell(ui, c, ws, story));
                    }
                    if row.response().clicked() {
                        self.selected = Some(i);
                        self.member = None;
                    }
                });
            });
    }

    /// The pages of `cluster`; a click compares one with the representative.
    fn members_table(
        &mut self,
        ui: &mut egui::Ui,
        ws: &Workspace,
        cluster: &ClusterSummary,
        codes_of: Option<&dyn Fn(DocId) -> (String, String)>,
        shares: Option<&ClusterShares>,
    ) -> Option<Action> {
        let mut action = None;
        // Seven columns do not fit beside the codebook: the table scrolls sideways instead of
        // squeezing its columns, and says which columns are out of sight.
        let visible = ui
            .available_width()
            .min(ui.clip_rect().right() - ui.cursor().left());
        let mut right = 0.0;
        let beyond: Vec<&str> = [
            ("", 64.0),
            ("Title", 260.0),
            ("Copied", 120.0),
            ("Codes", 130.0),
            ("Site", 130.0),
            ("Published", 160.0),
            ("Gold", 90.0),
            ("Linked through", 200.0),
            ("URL / record", 260.0),
        ]
        .into_iter()
        .filter_map(|(name, width)| {
            right += width + 8.0;
            (right > visible).then_some(name)
        })
        .collect();
        if !beyond.is_empty() {
            ui.weak(format!(
                "Scroll sideways for {} (or hide the side panel: Ctrl+B)",
                beyond.join(", ")
            ));
        }
        egui::ScrollArea::horizontal()
            .id_salt("member_hscroll")
            .show(ui, |ui| {
                super::view::rows_take_clicks(ui);
                TableBuilder::new(ui)
                    .id_salt("member_table")
                    .striped(true)
                    .resizable(true)
                    .sense(egui::Sense::click())
                    .column(Column::initial(64.0))
                    .column(Column::initial(260.0).clip(true))
                    .column(Column::initial(120.0).clip(true))
                    .column(Column::initial(130.0).clip(true))
                    .column(Column::initial(130.0).clip(true))
                    .column(Column::initial(160.0).clip(true))
                    .column(Column::initial(90.0).clip(true))
                    .column(Column::initial(200.0).clip(true))
                    // The last column takes what a wide window has left (not resizable, or it
                    // would keep its first width).
                    .column(
                        Column::remainder()
                            .at_least(260.0)
                            .resizable(false)
                            .clip(true),
                    )
                    .header(20.0, |mut h| {
                        for name in [
                            "",
                            "Title",
                            "Copied",
                            "Codes",
                            "Site",
                            "Published",
                            "Gold",
                            "Linked through",
                            "URL / record",
                        ] {
                            h.col(|ui| {
                                ui.strong(name);
                            });
                        }
                    })
                    .body(|body| {
                        body.rows(18.0, cluster.members.len(), |mut row| {
                            let m = row.index();
                            let d = cluster.members[m];
                            row.set_selected(self.member == Some(m));
                            member_cells(&mut row, ws, cluster, m, codes_of, shares);
                            if row.response().clicked() {
                                self.member = Some(m);
                                let rep = cluster.members[0];
                                let other = if d == rep {
                                    cluster.members.get(1).copied()
                                } else {
                                    Some(d)
                                };
                                if let Some(o) = other {
                                    action = Some(Action::Compare(rep, o));
                                }
                            }
                        });
                    });
            });
        action
    }
}

/// The Published cell of member `m`: the day it counts at in the story's spread and its lag
/// after the first; a page that gives no date counts at its capture, said so ("captured
/// 2007-01-17"), never shown as a publication (the pair view says the same).
pub fn published_cell(cluster: &ClusterSummary, m: usize) -> String {
    let Some(p) = cluster.spread.dates[m] else {
        return String::new();
    };
    let day = if p.source == crate::calendar::DateSource::Capture {
        format!("captured {}", p.at.ymd())
    } else {
        p.at.ymd()
    };
    match cluster.spread.lag_seconds[m] {
        Some(lag) if lag > 0 => format!("{day} +{}", crate::dates::spread::human(lag)),
        _ => day,
    }
}

/// The cells of member `m` of `cluster`: representative mark, title, codes, site, capture
/// date, gold cluster, URL and record.
fn member_cells(
    row: &mut egui_extras::TableRow<'_, '_>,
    ws: &Workspace,
    cluster: &ClusterSummary,
    m: usize,
    codes_of: Option<&dyn Fn(DocId) -> (String, String)>,
    shares: Option<&ClusterShares>,
) {
    let d = cluster.members[m];
    let doc = &ws.collection.docs[d.index()];
    row.col(|ui| {
        let first = cluster.members.len() > 1 && cluster.spread.first.contains(&m);
        let r = ui.label(match (m, first) {
            (0, true) => "rep. 1st".to_string(),
            (0, false) => "rep.".to_string(),
            (_, true) => format!("#{} 1st", m + 1),
            (_, false) => format!("#{}", m + 1),
        });
        if first {
            r.on_hover_text("Among the first to publish the story");
        }
    });
    row.col(|ui| {
        super::bidi::label(ui, doc.title.as_deref().unwrap_or("(untitled)"));
    });
    row.col(|ui| {
        // The share of the representative's core found in this member, and its class: a
        // partial rewrite stands out.
        let Some(s) = shares.and_then(|s| s.shares.get(m).copied().flatten()) else {
            return;
        };
        let colour = match s.class {
            Derivation::Wholly => ui.visuals().text_color(),
            Derivation::Partially => egui::Color32::from_rgb(230, 160, 40),
            Derivation::Non => egui::Color32::from_rgb(230, 90, 80),
        };
        ui.colored_label(
            colour,
            format!("{} · {:.0} %", s.class.name(), s.of_representative * 100.0),
        )
        .on_hover_text(format!(
            "The later of the two pages is {} ({:.1} % of its core is in the other); {:.1} % \
             of the representative's core is in this page. Pair tab, A: the passages.",
            s.class.label(),
            s.derived_share * 100.0,
            s.of_representative * 100.0
        ));
    });
    row.col(|ui| {
        let (text, from) = codes_of.map(|f| f(d)).unwrap_or_default();
        let r = ui.label(text);
        if !from.is_empty() {
            r.on_hover_text(from);
        }
    });
    row.col(|ui| {
        ui.label(doc.site.shown());
    });
    row.col(|ui| {
        // The date the member counts at in the story's spread, its lag after the first, and
        // where the date came from.
        let r = ui.label(published_cell(cluster, m));
        if let Some(p) = cluster.spread.dates[m] {
            r.on_hover_text(format!(
                "{} from {}; captured {}",
                p.at.iso(),
                p.source.name(),
                doc.date.as_deref().unwrap_or("-")
            ));
        }
    });
    row.col(|ui| {
        ui.label(ws.gold_name(d).unwrap_or(""));
    });
    row.col(|ui| {
        // The member this one joined through, and how strongly (weakest links come first).
        let text = match cluster.links.get(m).copied().flatten() {
            Some((via, score)) => {
                let position = cluster.members.iter().position(|&x| x == via);
                let title = ws.collection.docs[via.index()]
                    .title
                    .as_deref()
                    .unwrap_or("(untitled)");
                match position {
                    Some(p) => format!("{score:.3} via #{} {title}", p + 1),
                    None => format!("{score:.3} via {title}"),
                }
            }
            None => String::new(),
        };
        super::bidi::label(ui, &text);
    });
    row.col(|ui| {
        ui.label(format!("{}  {}", doc.url.as_deref().unwrap_or(""), doc.key));
    });
}

/// The core text the members share, collapsed: what a coder reads instead of every copy.
fn shared_core(ui: &mut egui::Ui, s: &ClusterShares) {
    egui::CollapsingHeader::new(format!(
        "Core text the members share: {} of the representative's {} core words",
        s.shared_words, s.core_words
    ))
    .id_salt("shared_core")
    .show(ui, |ui| {
        egui::ScrollArea::vertical()
            .id_salt("shared_core_scroll")
            .max_height(160.0)
            .show(ui, |ui| {
                if s.shared_text.is_empty() {
                    ui.weak("No passage of the representative is in half of the other members.");
                } else {
                    ui.label(&s.shared_text);
                }
            });
        ui.weak(format!(
            "The representative's words found in at least half of the other members; computed in {} ms.",
            s.millis
        ));
    });
}

/// "What changed since the last run": clusters split and merged, pages moved, metric deltas.
fn changes_ui(ui: &mut egui::Ui, c: &crate::gui::model::changes::RunChanges) {
    const SHOWN: usize = 12;
    let title = format!(
        "Since the last run: {} clusters split, {} merged, {} pages moved",
        c.splits.len(),
        c.merges.len(),
        c.moved
    );
    egui::CollapsingHeader::new(title)
        .id_salt("run_changes")
        .show(ui, |ui| {
            if let Some((before, after)) = &c.metrics {
                let delta =
                    |name: &str, b: f64, a: f64| format!("{name} {b:.3} -> {a:.3} ({:+.3})", a - b);
                ui.label(format!(
                    "{}   {}   {}   {}",
                    delta("pair F1", before.pairwise.f1, after.pairwise.f1),
                    delta("doc P", before.document.precision, after.document.precision),
                    delta("doc R", before.document.recall, after.document.recall),
                    delta("B³ F1", before.bcubed.f1, after.bcubed.f1),
                ));
            }
            let parts = |v: &[(u32, usize)]| {
                v.iter()
                    .map(|(c, n)| format!("{c} ({n})"))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            for s in c.splits.iter().take(SHOWN) {
                ui.label(format!(
                    "Split: cluster {} ({} pages) into {}",
                    s.before,
                    s.size,
                    parts(&s.into)
                ));
            }
            for m in c.merges.iter().take(SHOWN) {
                ui.label(format!(
                    "Merged: cluster {} ({} pages) from {}",
                    m.after,
                    m.size,
                    parts(&m.from)
                ));
            }
            let hidden =
                c.splits.len().saturating_sub(SHOWN) + c.merges.len().saturating_sub(SHOWN);
            if hidden > 0 {
                ui.weak(format!("… and {hidden} more (largest first)"));
            }
        });
}

impl View for ClustersView {
    fn ui(&mut self, ui: &mut egui::Ui, cx: &mut ViewContext<'_>) {
        let (codes, pages) = (cx.project.codes.clone(), cx.project.pages.clone());
        let codes_of = move |d: DocId| {
            super::codebook::codes_of(&codes, pages.as_deref().map(Vec::as_slice), d)
        };
        let coding = cx
            .project
            .is_open()
            .then_some(&codes_of as &dyn Fn(DocId) -> (String, String));
        let (ws, run) = (cx.workspace, cx.runs.get(cx.active));
        if !cx.project.is_open() && run.is_some() {
            ui.weak("To code clusters, open or create a project (Project, on the left).");
        }
        if let Some(changes) = run
            .and_then(|r| cx.previous.get(&r.algo))
            .and_then(|p| p.changes.as_deref())
        {
            changes_ui(ui, changes);
        }
        let story_run = run.and_then(|r| cx.project.project_run(r.algo));
        let project = cx.project.opened.clone().filter(|_| story_run.is_some());
        let asked = self.search.bar(ui, project.as_ref(), story_run);
        cx.ask(asked);
        if self.search.is_open() {
            let codes: Vec<(String, crate::store::CodeId)> = (cx.project.codes.codes.iter())
                .map(|c| (c.name.clone(), c.id))
                .collect();
            let asked = self.search.results(ui, &codes);
            cx.actions.extend(asked);
            return;
        }
        let (codes, pages) = (cx.project.codes.clone(), cx.project.pages.clone());
        let me = cx.project.annotator.clone();
        // The coding filter is computed again when the codes or the coder change.
        let key = {
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            (Arc::as_ptr(&codes) as usize, &me).hash(&mut h);
            h.finish() as usize
        };
        let story =
            move |c: &ClusterSummary| story_codes(&codes, pages.as_deref(), story_run, &me, c);
        let story = cx
            .project
            .is_open()
            .then_some((&story as StoryCodes<'_>, key));
        let action = self.show(ui, ws, run, coding, cx.shares, story);
        cx.ask(action);
    }
}

/// The cluster list's Codes cell of `c` and whether it is coded ([`StoryCodes`]).
fn story_codes(
    codes: &super::project::CodeSnapshot,
    pages: Option<&Vec<crate::store::PageId>>,
    run: Option<crate::store::RunId>,
    me: &str,
    c: &ClusterSummary,
) -> (String, bool) {
    use crate::codebook::{Answer, Kind, UnitKind};
    use crate::store::values::{Role, Unit};
    let mut parts = Vec::new();
    let scored: Vec<&str> = (codes.codebook.variables.iter())
        .filter(|v| v.unit == UnitKind::Story && v.kind != Kind::Note)
        .map(|v| v.name.as_str())
        .collect();
    let mut answered = 0;
    if let Some(run) = run {
        let unit = Unit::Story {
            run,
            cluster: i64::from(c.id),
        };
        for v in codes.values.get(&unit).into_iter().flatten() {
            if v.coder == me && v.role == Role::Coder && scored.contains(&v.variable.as_str()) {
                answered += 1;
                let shown = match &v.answer {
                    Answer::Value(x) => x.clone(),
                    Answer::NotApplicable => "NA".into(),
                    Answer::CannotCode => "?".into(),
                };
                parts.push(format!("{}={shown}", v.variable));
            }
        }
    }
    let tags = super::codebook::codes_of(codes, pages.map(Vec::as_slice), c.members[0]).0;
    let tagged = !tags.is_empty();
    if tagged {
        parts.push(tags);
    }
    let coded = if scored.is_empty() {
        tagged
    } else {
        answered == scored.len()
    };
    (parts.join(" · "), coded)
}

/// Why a run found no two pages alike, and what to try.
fn empty_result(ui: &mut egui::Ui, run: &AlgoRun) {
    let pages = run.prepared.len();
    let left_out = run.prepared.unsigned();
    let threshold = run.detection.spec.matching.threshold;
    let mut why = vec![format!(
        "No two of the {pages} pages reached the {} threshold of {threshold:.2}.",
        run.algo.name()
    )];
    if left_out > 0 {
        why.push(format!(
            "{left_out} of them were left out for too few signatures (short pages, or pages \
             whose language has no antecedents): {} compares only the pages it could sign.",
            run.algo.name()
        ));
    }
    let mut tries = vec![format!(
        "lower the threshold (the slider in Plots, or Run on the left) below {threshold:.2}"
    )];
    if run.algo == crate::detectors::Algo::SpotSigs {
        tries.push(
            "tick shingles or simhash, which sign every page however short (Run, on the left)"
                .into(),
        );
        if left_out > 0 {
            tries.push("lower the minimum of signatures (Antecedents tab)".into());
        }
    }
    egui::Frame::group(ui.style()).show(ui, |ui| {
        for line in why {
            ui.label(line);
        }
        ui.label(format!("To try: {}.", tries.join("; ")));
    });
}
