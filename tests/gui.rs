//! The workbench driven as a person would, through egui_kittest: open the project's sample
//! archive, run SpotSigs, pick a cluster, open a pair, see the diff, move the threshold and see
//! the clusters change. Jobs run synchronously (`Workbench::new(true)`); queries go by the
//! accessible labels a screen reader would read.
#![cfg(feature = "gui")]

use std::path::PathBuf;

use egui::Key;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use samecore::gui::{Tab, Workbench};

fn sample_archive() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sample_archives/news-sample.warc.gz")
}

fn harness(app: Workbench) -> Harness<'static, Workbench> {
    Harness::builder()
        .with_size(egui::vec2(1400.0, 900.0))
        .build_ui_state(|ui, app: &mut Workbench| app.ui(ui), app)
}

/// The number at the start of the cluster list's heading ("N clusters of 2+ pages …").
fn groups_in_heading(h: &Harness<'_, Workbench>) -> usize {
    let node = h.get_by_label_contains("clusters of 2+ pages");
    // A label's text is its accesskit value.
    let n = node.accesskit_node();
    let label = n.label().or_else(|| n.value()).unwrap_or_default();
    label
        .split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count in {label:?}"))
}

#[test]
fn open_run_pick_cluster_compare_pair_and_move_threshold() {
    let mut app = Workbench::new(true);
    app.open(vec![sample_archive()]);
    let mut h = harness(app);
    h.run();

    // Opening ran SpotSigs at once and switched to the clusters.
    assert!(
        h.state().workspace().is_some(),
        "{:?}",
        h.state().messages()
    );
    assert_eq!(h.state().tab(), Tab::Clusters);
    assert!(
        h.state().workspace().unwrap().has_gold(),
        "the sample's gold file was not found"
    );
    let before = groups_in_heading(&h);
    assert!(before > 10, "only {before} clusters on the sample");
    h.get_by_label_contains("Gold clusters from");

    // Next cluster, next member, Enter: the pair view opens with a token diff.
    h.key_press(Key::N);
    h.run();
    h.get_by_label_contains("Cluster of");
    h.key_press(Key::J);
    h.run();
    h.key_press(Key::Enter);
    h.run();
    assert_eq!(h.state().tab(), Tab::Pair);
    let pair = h.state().pair().expect("no pair compared").clone();
    assert_ne!(pair.a, pair.b);
    assert!(!pair.left.is_empty() && !pair.right.is_empty());
    h.get_by_label_contains("Term differences:");
    h.get_by_label_contains("Only left:");
    h.get_by_label_contains("Shared spot signatures:");
    // A same-core pair of the sample shares signatures, and SpotSigs scores it.
    assert!(!pair.shared_signatures.is_empty());
    assert!(
        pair.scores
            .iter()
            .any(|s| s.score.is_some() && s.same_cluster)
    );

    // J in the pair view moves to the next member of the cluster.
    h.key_press(Key::J);
    h.run();
    let next = h.state().pair().unwrap().clone();
    if h.state()
        .active_run()
        .unwrap()
        .clusters
        .iter()
        .any(|c| c.members.len() > 2)
    {
        assert_eq!(next.a, pair.a);
    }

    // The plots tab shows the threshold; a much higher threshold splits clusters.
    h.get_by_label("Plots").click();
    h.run();
    // The precision/recall curves were computed after the clusters (19 thresholds).
    assert_eq!(h.state().active_run().unwrap().sweep.len(), 19);
    assert!(
        !h.get_all_by_label_contains("Threshold (spotsigs)")
            .collect::<Vec<_>>()
            .is_empty()
    );
    h.state_mut().set_threshold(0.95);
    h.run();
    assert!(
        (h.state()
            .active_run()
            .unwrap()
            .detection
            .spec
            .matching
            .threshold
            - 0.95)
            .abs()
            < 1e-9
    );
    assert_eq!(
        h.state().active_run().unwrap().sweep.len(),
        19,
        "re-clustering lost the curves"
    );
    h.get_by_label("Clusters").click();
    h.run();
    let after = groups_in_heading(&h);
    assert_ne!(before, after, "threshold 0.95 left the clusters unchanged");
}

#[test]
fn a_missing_file_is_reported_not_fatal() {
    let mut app = Workbench::new(true);
    app.open(vec![PathBuf::from("/nonexistent/archive.warc.gz")]);
    let mut h = harness(app);
    h.run();
    assert!(h.state().workspace().is_none());
    let msg = h.state().messages().join("\n");
    assert!(msg.contains("Opening failed"), "{msg}");
    assert!(msg.contains("/nonexistent/archive.warc.gz"), "{msg}");
    h.get_by_label_contains("Opening failed");
}

#[test]
fn run_button_and_detector_choice_work_from_the_side_panel() {
    let mut app = Workbench::new(true);
    app.open(vec![sample_archive()]);
    let mut h = harness(app);
    h.run();
    // Add a second detector and run again with the button: both appear in the summary.
    h.get_by_label("simhash64").click();
    h.run();
    h.get_by_label("Run detectors").click();
    h.run();
    let algos: Vec<&str> = h.state().runs().iter().map(|r| r.algo.name()).collect();
    assert_eq!(algos, ["spotsigs", "simhash64"]);
    // What SpotSigs scored before this run is kept to show the effect of a change.
    assert!(
        h.state()
            .previous()
            .contains_key(&samecore::detect::Algo::SpotSigs)
    );
    // Antecedent tuning: word statistics computed on request.
    h.get_by_label("Antecedents").click();
    h.run();
    h.get_by_label("Compute word statistics").click();
    h.run();
    h.get_by_label("coverage");
}
