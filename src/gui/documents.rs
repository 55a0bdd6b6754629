//! The documents view: every page of the open archives in a virtualised table (only visible
//! rows are laid out, so 100k pages scroll smoothly), filtered by a text that matches URL,
//! site, title or key, with the selected page's identity below.

use std::sync::Arc;

use egui::Key;
use egui_extras::{Column, TableBuilder};

use super::model::Workspace;
use super::view::{View, ViewContext};
use crate::DocId;
use crate::archive::Collection;
use crate::history::Change;

use super::action::Action;
use super::filter::{FRAME_BUDGET, SlicedFilter, filtering};
use super::jobs::JobKind;

/// Keys of this view, for the help overlay.
pub const KEYS: &[(&str, &str)] = &[("Down / J", "Next page"), ("Up / K", "Previous page")];

/// Whether `hay` contains `needle` (already lowercased), ignoring case. The filters run over
/// every page on the UI thread, a slice per frame ([`super::filter`]): an ASCII `needle` (what
/// is mostly typed) is looked for byte by byte, ASCII case folded, without allocating (a UTF-8
/// character beyond ASCII has no byte below 128, so it never matches part of it; the few such
/// characters whose lowercase is ASCII, like the Kelvin sign, are not folded). Another needle
/// is looked for in `hay` lowercased (`zürich` finds `ZÜRICH`).
pub(super) fn contains_folded(hay: &str, needle: &str) -> bool {
    if needle.is_empty() {
        return true;
    }
    if needle.is_ascii() {
        let (h, n) = (hay.as_bytes(), needle.as_bytes());
        // Candidates where the first byte matches in either case (memchr's vector search),
        // each then compared whole.
        let (lower, upper) = (n[0], n[0].to_ascii_uppercase());
        return memchr::memchr2_iter(lower, upper, h).any(|i| {
            h.get(i..i + n.len())
                .is_some_and(|w| w.eq_ignore_ascii_case(n))
        });
    }
    hay.to_lowercase().contains(needle)
}

/// State of the documents view.
#[derive(Default)]
pub struct DocumentsView {
    filter: String,
    /// Indices of documents passing the filter: the last complete scan's while a new one goes
    /// on. Shared (`Arc`) so that a frame takes them without copying 100k indices.
    visible: Arc<[usize]>,
    /// The filter's scan, a slice per frame.
    matcher: SlicedFilter,
    selected: Option<usize>,
    scroll_to_selected: bool,
}

impl DocumentsView {
    fn refresh(&mut self, collection: &Collection) -> Arc<[usize]> {
        let needle = self.filter.trim().to_lowercase();
        let docs = &collection.docs;
        let keep = |i: usize| {
            let d = &docs[i];
            needle.is_empty()
                || contains_folded(&d.key, &needle)
                || d.url
                    .as_deref()
                    .is_some_and(|u| contains_folded(u, &needle))
                || d.title
                    .as_deref()
                    .is_some_and(|t| contains_folded(t, &needle))
                || d.site.registrable.contains(&needle)
        };
        if let Some(rows) = self
            .matcher
            .poll(&needle, 0, docs.len(), FRAME_BUDGET, keep)
        {
            self.visible = rows;
        }
        self.visible.clone()
    }

    /// Draw the view.
    pub fn show(&mut self, ui: &mut egui::Ui, ws: &Workspace) {
        let collection = &ws.collection;
        let focus_filter = ui.input_mut(|i| i.consume_key(egui::Modifiers::COMMAND, Key::F));
        self.filter_bar(ui, focus_filter);
        let total = collection.docs.len();
        let rows = self.refresh(collection);
        if let Some((done, of)) = self.matcher.progress() {
            filtering(ui, done, of, "pages");
        } else {
            ui.label(format!("{} of {total} pages", rows.len()));
        }

        self.keys(ui, &rows);

        ui.scope(|ui| {
            super::view::rows_take_clicks(ui);
            self.table(ui, ws, &rows);
        });

        ui.separator();
        self.details(ui, collection);
    }

    /// The selected page's capture history: each capture of its URL against the one before,
    /// with a button that opens the two side by side (the pair view's token diff).
    fn history(&self, ui: &mut egui::Ui, cx: &mut ViewContext<'_>) {
        let Some(doc) = self.selected.map(|i| DocId(i as u32)) else {
            return;
        };
        ui.separator();
        ui.strong("Capture history");
        let Some(index) = cx.history else {
            if cx.busy(JobKind::History) {
                ui.horizontal(|ui| {
                    ui.spinner();
                    ui.label("Reading the cores of changed captures…");
                });
            } else if ui
                .button("Find capture histories")
                .on_hover_text(
                    "Every URL captured more than once: each capture against the one before \
                     (identical, frame only, core changed)",
                )
                .clicked()
            {
                cx.actions.push(Action::CaptureHistories);
            }
            return;
        };
        let Some((history, at)) = index.of(doc) else {
            ui.weak("This URL was captured once.");
            return;
        };
        let docs = &cx.workspace.collection.docs;
        egui::Grid::new("capture_history")
            .num_columns(4)
            .striped(true)
            .show(ui, |ui| {
                for (k, step) in history.steps.iter().enumerate() {
                    let d = &docs[step.doc.index()];
                    let when = d.date.as_deref().unwrap_or("-");
                    if k == at {
                        ui.strong(format!("> {when}"));
                    } else {
                        ui.label(when);
                    }
                    ui.label(step.change.name());
                    ui.label(
                        step.core_similarity
                            .map_or(String::new(), |s| format!("core {s:.3}")),
                    );
                    match step.previous {
                        Some(prev) if step.change != Change::Identical => {
                            if ui
                                .small_button("Compare with previous")
                                .on_hover_text("Both captures side by side, with the token diff")
                                .clicked()
                            {
                                cx.actions.push(Action::Compare(prev, step.doc));
                            }
                        }
                        _ => {
                            ui.label("");
                        }
                    }
                    ui.end_row();
                }
            });
    }

    /// The filter line (Ctrl+F focuses it).
    fn filter_bar(&mut self, ui: &mut egui::Ui, focus_filter: bool) {
        ui.horizontal(|ui| {
            ui.label("Filter:");
            let edit = ui.add(
                egui::TextEdit::singleline(&mut self.filter)
                    .hint_text("URL, site, title or key")
                    .desired_width(320.0),
            );
            if focus_filter {
                edit.request_focus();
            }
        });
    }

    /// Arrow keys or J / K move the selection.
    fn keys(&mut self, ui: &mut egui::Ui, rows: &[usize]) {
        let typing = ui.ctx().egui_wants_keyboard_input();
        if !typing && !rows.is_empty() {
            let (down, up) = ui.input(|i| {
                (
                    i.key_pressed(Key::ArrowDown) || i.key_pressed(Key::J),
                    i.key_pressed(Key::ArrowUp) || i.key_pressed(Key::K),
                )
            });
            let pos = self
                .selected
                .and_then(|s| rows.iter().position(|&r| r == s));
            let next = match (down, up, pos) {
                (true, _, None) | (_, true, None) => Some(0),
                (true, _, Some(p)) => Some((p + 1).min(rows.len() - 1)),
                (_, true, Some(p)) => Some(p.saturating_sub(1)),
                _ => None,
            };
            if let Some(p) = next {
                self.selected = Some(rows[p]);
                self.scroll_to_selected = true;
            }
        }
    }

    /// The pages, one row each.
    fn table(&mut self, ui: &mut egui::Ui, ws: &Workspace, rows: &[usize]) {
        let collection = &ws.collection;
        let detail_height = 120.0;
        let table_height = (ui.available_height() - detail_height).max(100.0);
        // The title takes what the fixed columns and a readable record column leave.
        let title = (ui.available_width() - (50.0 + 130.0 + 150.0 + 100.0 + 120.0 + 48.0))
            .clamp(140.0, 480.0);
        let mut table = TableBuilder::new(ui)
            .id_salt("documents_table")
            .striped(true)
            .resizable(true)
            .sense(egui::Sense::click())
            .max_scroll_height(table_height)
            .column(Column::initial(50.0))
            .column(Column::initial(title).clip(true))
            .column(Column::initial(130.0).clip(true))
            .column(Column::initial(150.0).clip(true))
            .column(Column::initial(100.0).clip(true))
            .column(Column::remainder().at_least(60.0).clip(true));
        if self.scroll_to_selected
            && let Some(pos) = self
                .selected
                .and_then(|s| rows.iter().position(|&r| r == s))
        {
            table = table.scroll_to_row(pos, None);
            self.scroll_to_selected = false;
        }
        table
            .header(20.0, |mut header| {
                for name in ["#", "Title", "Site", "Captured", "Gold", "Record"] {
                    header.col(|ui| {
                        ui.strong(name);
                    });
                }
            })
            .body(|body| {
                body.rows(18.0, rows.len(), |mut row| {
                    let index = rows[row.index()];
                    let doc = &collection.docs[index];
                    row.set_selected(self.selected == Some(index));
                    row.col(|ui| {
                        ui.label(index.to_string());
                    });
                    row.col(|ui| {
                        super::bidi::label(ui, doc.title.as_deref().unwrap_or("(untitled)"));
                    });
                    row.col(|ui| {
                        ui.label(doc.site.shown());
                    });
                    row.col(|ui| {
                        ui.label(doc.date.as_deref().unwrap_or(""));
                    });
                    row.col(|ui| {
                        // Gold from folder names or a gold file, whichever the workspace found.
                        ui.label(ws.gold_name(crate::DocId(index as u32)).unwrap_or(""));
                    });
                    row.col(|ui| {
                        ui.label(&doc.key);
                    });
                    if row.response().clicked() {
                        self.selected = Some(index);
                    }
                });
            });
    }

    /// Where the selected page came from.
    fn details(&self, ui: &mut egui::Ui, collection: &Collection) {
        if let Some(doc) = self.selected.and_then(|i| collection.docs.get(i)) {
            egui::Grid::new("document_detail")
                .num_columns(2)
                .show(ui, |ui| {
                    let fields = [
                        (
                            "Title",
                            doc.title.as_deref().unwrap_or_default().to_string(),
                        ),
                        ("URL", doc.url.as_deref().unwrap_or_default().to_string()),
                        (
                            "Captured",
                            doc.date.as_deref().unwrap_or_default().to_string(),
                        ),
                        (
                            "Published",
                            doc.published
                                .map(|p| format!("{} (from {})", p.at.iso(), p.source.name()))
                                .unwrap_or_default(),
                        ),
                        ("Record", doc.key.to_string()),
                        (
                            "Stored at",
                            format!("{} @ {}", doc.location.file.display(), doc.location.offset),
                        ),
                        (
                            "Site",
                            format!(
                                "{} (registrable {})",
                                doc.site.henzinger, doc.site.registrable
                            ),
                        ),
                    ];
                    for (name, value) in fields {
                        ui.strong(name);
                        ui.label(value);
                        ui.end_row();
                    }
                });
        } else {
            ui.weak("Select a page to see where it came from.");
        }
    }
}

impl View for DocumentsView {
    fn ui(&mut self, ui: &mut egui::Ui, cx: &mut ViewContext<'_>) {
        self.show(ui, cx.workspace);
        self.history(ui, cx);
    }
}

#[cfg(test)]
mod tests {
    use super::contains_folded;

    #[test]
    fn filter_ignores_ascii_case() {
        assert!(contains_folded("https://News.Example.COM/x", "example.com"));
        assert!(contains_folded("abc", ""));
        assert!(!contains_folded("ab", "abc"));
        assert!(!contains_folded("Harbor City", "harbour"));
        // Beyond ASCII, case is folded too; an ASCII text never holds a non-ASCII needle.
        assert!(contains_folded("Hochwasser in ZÜRICH", "zürich"));
        assert!(contains_folded("ÉTÉ À PARIS", "été à"));
        assert!(contains_folded("ÉTÉ À PARIS", "paris"));
        assert!(!contains_folded("ÉTÉ À PARIS", "a paris"));
        assert!(!contains_folded("Zurich", "zürich"));
    }
}
