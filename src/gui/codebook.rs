//! The Coding panel of the Clusters tab (tag codes and, above them, the variables): add,
//! rename and merge codes; apply a code to the selected cluster (it lands on every member,
//! with the run, cluster, annotator and time as provenance); decide a code on one page (an
//! override no later cluster operation touches); undo the latest code edit (merging too; it
//! asks for confirmation first).
//!
//! In: the session's [`CodeSnapshot`], the selected cluster and member. Out:
//! [`ProjectAction`]s, and the text of each member's codes for the members table.

use crate::DocId;
use crate::store::codes::Code;
use crate::store::codes::{CodeSource, PageCode};
use crate::store::{CodeId, PageId};

use super::action::ProjectAction;
use super::project::CodeSnapshot;
use super::session::ProjectSession;

/// State of the Coding panel.
#[derive(Default)]
pub struct CodebookPanel {
    new_name: String,
    new_description: String,
    selected: Option<CodeId>,
    rename: String,
    merge_into: Option<CodeId>,
    confirm_merge: bool,
    variables: super::variables::VariablesPanel,
    /// The cluster a step through a round asked for in the last frame.
    pub goto: Option<u32>,
}

/// One page's codes as the members table shows them: applied codes by name, removed ones
/// with a minus, page decisions marked `(page)`.
pub fn page_codes_text(codes: &[PageCode]) -> String {
    let parts: Vec<String> = codes
        .iter()
        .map(|pc| {
            let mut s = if pc.applied {
                pc.code.clone()
            } else {
                format!("-{}", pc.code)
            };
            if pc.source == CodeSource::Page {
                s.push_str(" (page)");
            }
            s
        })
        .collect();
    parts.join(", ")
}

/// Where each code decision of a page came from, one line per code (for a tooltip).
pub fn page_codes_provenance(codes: &[PageCode]) -> String {
    let lines: Vec<String> = codes
        .iter()
        .map(|pc| {
            let what = if pc.applied { "applied" } else { "removed" };
            let from = match (pc.source, pc.run, pc.cluster) {
                (CodeSource::Page, _, _) => "on this page".to_string(),
                (source, Some(run), Some(cluster)) => {
                    format!("{} {cluster} of run {run}", source.as_str())
                }
                (source, _, _) => source.as_str().to_string(),
            };
            format!(
                "{}: {what}, {from}, by {} at {}",
                pc.code,
                pc.applied_by,
                pc.applied_at.as_deref().unwrap_or("?")
            )
        })
        .collect();
    lines.join("\n")
}

/// The codes text of a document and their provenance, through the workspace's page ids.
pub fn codes_of(codes: &CodeSnapshot, pages: Option<&[PageId]>, doc: DocId) -> (String, String) {
    pages
        .and_then(|p| p.get(doc.index()))
        .and_then(|page| codes.by_page.get(page))
        .map(|c| (page_codes_text(c), page_codes_provenance(c)))
        .unwrap_or_default()
}

/// "Codes and the latest run": after a re-run, the coded clusters the run split or merged, and
/// a button per cluster and code to extend the code to the members that have no decision on
/// it. The person decides; nothing is extended on its own.
fn reconciliation_ui(ui: &mut egui::Ui, codes: &CodeSnapshot, out: &mut Vec<ProjectAction>) {
    let Some(rec) = &codes.reconciliation else {
        return;
    };
    ui.separator();
    let open = !rec.changes.splits.is_empty() || !rec.changes.merges.is_empty();
    egui::CollapsingHeader::new(format!("Codes and the latest run (run {})", rec.run))
        .default_open(open)
        .show(ui, |ui| {
            if ui
                .button("Compare again")
                .on_hover_text("Read the codes and the project's latest run again")
                .clicked()
            {
                out.push(ProjectAction::ReconcileCodes);
            }
            if !open {
                ui.weak("No coded cluster was split or merged by this run.");
            }
            for s in &rec.changes.splits {
                let parts: Vec<String> =
                    s.parts.iter().map(|(c, n)| format!("{c} ({n})")).collect();
                ui.label(format!(
                    "Split: {} of cluster {} (run {}) is now in clusters {}",
                    s.code,
                    s.origin.1,
                    s.origin.0,
                    parts.join(", ")
                ));
            }
            for m in &rec.changes.merges {
                ui.label(format!(
                    "Merged: cluster {} ({} pages) joins {} coded cluster(s)",
                    m.cluster,
                    m.size,
                    m.origins.len()
                ));
            }
            for c in &rec.clusters {
                for cov in c
                    .codes
                    .iter()
                    .filter(|x| x.coverage == crate::coding::Coverage::Partial)
                {
                    let Some(code) = codes.codes.iter().find(|k| k.name == cov.code) else {
                        continue;
                    };
                    let text = format!(
                        "Extend {} to {} undecided page(s) of cluster {}",
                        cov.code,
                        cov.undecided.len(),
                        c.cluster
                    );
                    if ui
                        .button(text)
                        .on_hover_text(format!(
                            "{} of its {} pages carry the code",
                            cov.coded.len(),
                            c.size
                        ))
                        .clicked()
                    {
                        out.push(ProjectAction::ExtendCode {
                            run: rec.run,
                            cluster: c.cluster,
                            code: code.id,
                        });
                    }
                }
            }
        });
}

impl CodebookPanel {
    /// Draw the panel. `cluster` is the selected cluster id of the active run, `member` the
    /// selected member and its title.
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        session: &ProjectSession,
        cluster: Option<u32>,
        member: Option<(DocId, String)>,
        run: Option<crate::store::RunId>,
    ) -> Vec<ProjectAction> {
        let mut out = Vec::new();
        ui.heading("Coding");
        if !session.is_open() {
            ui.label("Open or create a project (left) to code clusters.");
            return out;
        }
        self.goto = self
            .variables
            .ui(ui, session, run, cluster, member.clone(), &mut out);
        let codes = &session.codes.codes;
        self.new_code_form(ui, &mut out);
        ui.separator();
        self.code_list(ui, codes);
        let Some(code) = self
            .selected
            .and_then(|id| codes.iter().find(|c| c.id == id))
        else {
            ui.weak("Select a code to apply, rename or merge it.");
            self.undo_button(ui, session, &mut out);
            reconciliation_ui(ui, &session.codes, &mut out);
            return out;
        };
        ui.separator();
        ui.strong(format!("Code: {} ({} pages)", code.name, code.pages));
        self.apply_buttons(ui, session, code, cluster, member, &mut out);
        self.rename_and_merge(ui, codes, code, &mut out);
        ui.separator();
        self.undo_button(ui, session, &mut out);
        reconciliation_ui(ui, &session.codes, &mut out);
        out
    }

    /// The form that adds a code.
    fn new_code_form(&mut self, ui: &mut egui::Ui, out: &mut Vec<ProjectAction>) {
        let mut enter = false;
        ui.horizontal(|ui| {
            let l = ui.label("New code");
            let r = ui
                .add(egui::TextEdit::singleline(&mut self.new_name).desired_width(120.0))
                .labelled_by(l.id)
                .on_hover_text("Enter or Add code puts it in the codebook");
            enter = r.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
        });
        ui.horizontal(|ui| {
            let l = ui.label("Meaning");
            ui.add(egui::TextEdit::singleline(&mut self.new_description).desired_width(120.0))
                .labelled_by(l.id);
        });
        if ui
            .add_enabled(
                !self.new_name.trim().is_empty(),
                egui::Button::new("Add code"),
            )
            .clicked()
            || (enter && !self.new_name.trim().is_empty())
        {
            out.push(ProjectAction::AddCode {
                name: self.new_name.trim().to_string(),
                description: self.new_description.trim().to_string(),
            });
            self.new_name.clear();
            self.new_description.clear();
        }
    }

    /// The codes, one selectable line each.
    fn code_list(&mut self, ui: &mut egui::Ui, codes: &[Code]) {
        if codes.is_empty() {
            ui.weak("No code yet.");
        }
        egui::ScrollArea::vertical()
            .id_salt("codebook_scroll")
            .max_height(180.0)
            .show(ui, |ui| {
                for c in codes {
                    let r = ui
                        .selectable_label(self.selected == Some(c.id), &c.name)
                        .on_hover_text(format!("{} ({} pages)", c.description, c.pages));
                    if r.clicked() {
                        self.selected = Some(c.id);
                        self.rename = c.name.clone();
                        self.confirm_merge = false;
                    }
                }
            });
    }

    /// Apply `code` to the selected cluster or page.
    fn apply_buttons(
        &mut self,
        ui: &mut egui::Ui,
        session: &ProjectSession,
        code: &Code,
        cluster: Option<u32>,
        member: Option<(DocId, String)>,
        out: &mut Vec<ProjectAction>,
    ) {
        let apply = ui
            .add_enabled(
                cluster.is_some() && session.pages.is_some(),
                egui::Button::new("Apply to cluster"),
            )
            .on_hover_text("Every member of the selected cluster gets the code")
            .on_disabled_hover_text("Select a cluster (N / P) of a run saved in the project");
        if apply.clicked()
            && let Some(cluster) = cluster
        {
            out.push(ProjectAction::CodeCluster {
                cluster,
                code: code.id,
            });
        }
        if let Some((doc, title)) = member {
            super::bidi::label(ui, &format!("Page: {title}"));
            ui.horizontal_wrapped(|ui| {
                for (text, applied, tip) in [
                    (
                        "Code page",
                        Some(true),
                        "Give this page the code, whatever its cluster",
                    ),
                    (
                        "Remove from page",
                        Some(false),
                        "Take the code off this page only",
                    ),
                    (
                        "Clear page decision",
                        None,
                        "Forget this page's own decision",
                    ),
                ] {
                    if ui.button(text).on_hover_text(tip).clicked() {
                        out.push(ProjectAction::CodePage {
                            doc,
                            code: code.id,
                            applied,
                        });
                    }
                }
            });
        }
    }

    /// Rename `code`, or merge it into another (after a confirmation).
    fn rename_and_merge(
        &mut self,
        ui: &mut egui::Ui,
        codes: &[Code],
        code: &Code,
        out: &mut Vec<ProjectAction>,
    ) {
        ui.horizontal(|ui| {
            let l = ui.label("Rename to");
            ui.add(egui::TextEdit::singleline(&mut self.rename).desired_width(110.0))
                .labelled_by(l.id);
            if ui
                .add_enabled(
                    !self.rename.trim().is_empty() && self.rename.trim() != code.name,
                    egui::Button::new("Rename"),
                )
                .clicked()
            {
                out.push(ProjectAction::RenameCode {
                    code: code.id,
                    name: self.rename.trim().to_string(),
                });
            }
        });
        ui.horizontal(|ui| {
            let l = ui.label("Merge into");
            let into_name = self
                .merge_into
                .and_then(|id| codes.iter().find(|c| c.id == id))
                .map_or("choose", |c| c.name.as_str());
            egui::ComboBox::from_id_salt("merge_into")
                .selected_text(into_name)
                .show_ui(ui, |ui| {
                    for c in codes.iter().filter(|c| c.id != code.id) {
                        ui.selectable_value(&mut self.merge_into, Some(c.id), &c.name);
                    }
                })
                .response
                .labelled_by(l.id);
            let can = self.merge_into.is_some_and(|i| i != code.id);
            if ui.add_enabled(can, egui::Button::new("Merge...")).clicked() {
                self.confirm_merge = true;
            }
        });
        if self.confirm_merge
            && let Some(into) = self
                .merge_into
                .and_then(|id| codes.iter().find(|c| c.id == id))
        {
            ui.colored_label(
                ui.visuals().warn_fg_color,
                format!(
                    "Merge {} into {}? Its pages get {} (Undo code edit brings it back).",
                    code.name, into.name, into.name
                ),
            );
            ui.horizontal(|ui| {
                if ui.button("Yes, merge").clicked() {
                    out.push(ProjectAction::MergeCodes {
                        from: code.id,
                        into: into.id,
                    });
                    self.selected = Some(into.id);
                    self.confirm_merge = false;
                    self.merge_into = None;
                }
                if ui.button("Cancel merge").clicked() {
                    self.confirm_merge = false;
                }
            });
        }
    }

    fn undo_button(
        &mut self,
        ui: &mut egui::Ui,
        session: &ProjectSession,
        out: &mut Vec<ProjectAction>,
    ) {
        let last = session.code_undo.last();
        // The button names what it takes back.
        let text = last.map_or_else(
            || "Undo code edit".to_string(),
            |u| {
                let what: String = u.what.chars().take(40).collect();
                if what.len() < u.what.len() {
                    format!("Undo {what}…")
                } else {
                    format!("Undo {what}")
                }
            },
        );
        let r = ui
            .add_enabled(last.is_some(), egui::Button::new(text))
            .on_hover_text(last.map_or("No code edit to undo".to_string(), |u| {
                format!("Undo {} (by {})", u.what, u.by)
            }));
        if r.clicked() {
            out.push(ProjectAction::UndoCode);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::RunId;

    fn pc(code: &str, applied: bool, source: CodeSource) -> PageCode {
        PageCode {
            page: PageId(1),
            key: "k".into(),
            code: code.into(),
            applied,
            source,
            run: (source == CodeSource::Cluster).then_some(RunId(2)),
            cluster: (source == CodeSource::Cluster).then_some(7),
            applied_by: "ann".into(),
            applied_at: Some("2026-01-01T00:00:00Z".into()),
        }
    }

    #[test]
    fn members_show_codes_overrides_and_provenance() {
        let codes = [
            pc("election", true, CodeSource::Cluster),
            pc("sports", false, CodeSource::Page),
        ];
        assert_eq!(page_codes_text(&codes), "election, -sports (page)");
        assert_eq!(
            page_codes_provenance(&codes),
            "election: applied, cluster 7 of run 2, by ann at 2026-01-01T00:00:00Z\n\
             sports: removed, on this page, by ann at 2026-01-01T00:00:00Z"
        );
    }
}
