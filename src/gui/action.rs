//! What views ask of the app: [`Action`]s (and the project's [`ProjectAction`]s) returned from
//! a view's `ui` and applied by the app at the end of the frame, the [`Tab`]s, and the
//! [`PreviousRun`] a view compares a new run with. Views import this module, never `app.rs`.

use std::path::PathBuf;

use crate::DocId;
use crate::eval::metrics::Metrics;
use crate::eval::sweep::SweepRow;
use crate::labels::sample::SamplePlan;
use crate::labels::{LabelInput, Verdict};
use crate::store::{CodeId, SampleId};

/// The views of the central panel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Tab {
    /// Every page.
    Documents,
    /// Clusters of the active detector and their members.
    Clusters,
    /// Two pages side by side.
    Pair,
    /// Precision/recall against threshold and the papers' other plots.
    Plots,
    /// Antecedent tuning.
    Antecedents,
    /// Samples of pairs, labels, precision and agreement.
    Labels,
    /// Agreement of the coders per variable, and adjudication of their disagreements.
    Reliability,
    /// The codebook of variables, edited.
    Codebook,
}

impl Tab {
    /// Every tab, in the order of the tab bar and of the keys 1–8.
    pub const ALL: [Tab; 8] = [
        Tab::Documents,
        Tab::Clusters,
        Tab::Pair,
        Tab::Plots,
        Tab::Antecedents,
        Tab::Labels,
        Tab::Reliability,
        Tab::Codebook,
    ];

    /// The tab's label.
    pub fn label(self) -> &'static str {
        match self {
            Tab::Documents => "Documents",
            Tab::Clusters => "Clusters",
            Tab::Pair => "Pair",
            Tab::Plots => "Plots",
            Tab::Antecedents => "Antecedents",
            Tab::Labels => "Labels",
            Tab::Reliability => "Reliability",
            Tab::Codebook => "Codebook",
        }
    }
}

/// What a view asks the app to do; applied after the frame's drawing.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Run the detectors with the current settings.
    Run,
    /// Re-cluster the active detector at this threshold.
    SetThreshold(f64),
    /// Show this detector's clusters.
    SetActive(usize),
    /// Compare two documents in the pair view.
    Compare(DocId, DocId),
    /// Compute corpus word statistics for antecedent tuning.
    WordStats,
    /// Run SpotSigs alone again (its antecedents changed); the other detectors' runs stay.
    RunSpotSigs,
    /// Find the capture histories of the open archives.
    CaptureHistories,
    /// What these cluster members (the representative first) copied from the representative.
    ClusterShares(Vec<DocId>, Vec<Option<crate::calendar::Published>>),
    /// Switch tab.
    Show(Tab),
    /// Select the cluster numbered this in the active run's list (and show the Clusters tab).
    SelectCluster(u32),
    /// Something for the project file (labels, codes).
    Project(ProjectAction),
    /// Open a page's capture, inert, in the system browser.
    OpenCapture(DocId),
    /// Open a page's capture in the replay system of the replay URL template.
    OpenReplay(DocId),
    /// Export this (asks where in a save dialog).
    Export(super::export::ExportWhat),
    /// Search the project's pages (a job: the index is built or updated first).
    Search(super::search::SearchRequest),
    /// Set the Run panel's matching rules to the paper's (one shared signature, no link share,
    /// no cross links), with the published preset of the signatures.
    PaperMatching,
}

/// What the labelling and coding views ask of the project.
#[derive(Debug, Clone, PartialEq)]
pub enum ProjectAction {
    /// Open or create this project file.
    Open(PathBuf),
    /// Pick a project file in the native dialog.
    Browse,
    /// Close the project.
    Close,
    /// Draw a sample of the active run's pairs.
    MakeSample {
        /// Its unique name.
        name: String,
        /// How to draw.
        plan: SamplePlan,
        /// Seed of the draw.
        seed: u64,
        /// Hide scores and detector from annotators.
        blind: bool,
    },
    /// Load a sample.
    SelectSample(SampleId),
    /// Label a pair of the current sample.
    Label {
        /// Its position.
        position: u32,
        /// The decision.
        label: LabelInput,
        /// The pair to show next (auto-advance).
        next: Option<u32>,
    },
    /// Undo the annotator's last label.
    UndoLabel,
    /// Show this pair of the sample in the pair view, labelling on.
    Goto(u32),
    /// Leave labelling mode.
    StopLabelling,
    /// Settle a disagreement.
    Settle {
        /// The pair.
        position: u32,
        /// The verdict that counts.
        verdict: Verdict,
    },
    /// Record the coder's derivation class of a pair: `derived` derives from `source`.
    SetDerivation {
        /// The source page.
        source: DocId,
        /// The page that derives from it.
        derived: DocId,
        /// The class.
        class: crate::passages::Derivation,
    },
    /// Add a code.
    AddCode {
        /// Its name.
        name: String,
        /// What it means.
        description: String,
    },
    /// Rename a code.
    RenameCode {
        /// The code.
        code: CodeId,
        /// Its new name.
        name: String,
    },
    /// Merge one code into another.
    MergeCodes {
        /// Goes away.
        from: CodeId,
        /// Stays.
        into: CodeId,
    },
    /// Give a variable the annotator's value on a story or a page.
    SetValue {
        /// The story or page.
        unit: crate::store::values::Unit,
        /// The variable.
        variable: String,
        /// The answer as typed (a listed number, several, a number, a note).
        raw: String,
    },
    /// Take back the annotator's latest value.
    UndoValue,
    /// Write one package per coder of a round into a folder.
    Assign {
        /// The round (or the sample, when `coders` are given).
        round: String,
        /// A sample of pairs is assigned to these coders.
        coders: Option<Vec<String>>,
        /// The folder.
        folder: std::path::PathBuf,
    },
    /// Merge coders' packages into the project.
    Merge(Vec<std::path::PathBuf>),
    /// Save the edited codebook of variables as the project's next version.
    SaveCodebook {
        /// The codebook (checked before it is stored).
        book: crate::codebook::Codebook,
        /// Why it changed.
        note: String,
    },
    /// Write a codebook to its file (JSON) or as a document for a methods appendix (Markdown).
    WriteCodebook {
        /// The codebook.
        book: crate::codebook::Codebook,
        /// Where.
        path: std::path::PathBuf,
        /// Markdown instead of the codebook's file.
        markdown: bool,
    },
    /// Set the final (adjudicated) value of a variable on a unit, as the annotator.
    SetFinal {
        /// The unit.
        unit: crate::store::values::Unit,
        /// The variable.
        variable: String,
        /// The answer as typed.
        raw: String,
    },
    /// Take back the annotator's latest final value.
    UndoFinal,
    /// Compute the agreement of the coders and their open disagreements again.
    Reliability,
    /// Apply a code to a cluster of the active run.
    CodeCluster {
        /// Cluster index in the run.
        cluster: u32,
        /// The code.
        code: CodeId,
    },
    /// Give a code to every story of a search's results (one edit of the code log).
    CodeStories {
        /// The run the clusters are of.
        run: crate::store::RunId,
        /// The clusters.
        clusters: Vec<i64>,
        /// The code.
        code: CodeId,
        /// What they are, for the code log ("the stories found by …").
        what: String,
    },
    /// Decide a code on one page (none: forget the page's decision).
    CodePage {
        /// The page's document.
        doc: DocId,
        /// The code.
        code: CodeId,
        /// Applied, removed, or no decision.
        applied: Option<bool>,
    },
    /// Undo the latest code edit.
    UndoCode,
    /// Export the current sample (asks where).
    ExportSample,
    /// Give a code to the members of a cluster of a stored run that have no decision on it
    /// (reconciling after a re-run).
    ExtendCode {
        /// The run.
        run: crate::store::RunId,
        /// Its cluster (effective id).
        cluster: i64,
        /// The code.
        code: CodeId,
    },
    /// Compare the codes with the project's latest run again.
    ReconcileCodes,
    /// A message for the person.
    Notice(String),
}

/// What a detector scored before the latest run replaced it.
#[derive(Debug, Clone, Default)]
pub struct PreviousRun {
    /// Metrics at its threshold.
    pub metrics: Option<Metrics>,
    /// Its precision/recall curves.
    pub sweep: Vec<SweepRow>,
    /// What the latest run changed in its clusters (and metrics).
    pub changes: Option<std::sync::Arc<crate::gui::model::changes::RunChanges>>,
}

impl PreviousRun {
    /// What `old` scored, with what the run that replaced it changed (computed by that run's
    /// job, [`crate::gui::model::changes::between`]).
    pub fn of(
        old: &crate::gui::model::AlgoRun,
        changes: Option<std::sync::Arc<crate::gui::model::changes::RunChanges>>,
    ) -> PreviousRun {
        PreviousRun {
            metrics: old.metrics,
            sweep: old.sweep.clone(),
            changes,
        }
    }
}
