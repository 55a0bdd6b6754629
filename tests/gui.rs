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

/// The app with the sample archive opened (and SpotSigs run on it, as opening does).
fn opened_sample() -> Harness<'static, Workbench> {
    let mut app = Workbench::new(true);
    app.open(vec![sample_archive()]);
    let mut h = harness(app);
    h.run();
    h
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
    let mut h = opened_sample();

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
    let mut h = opened_sample();
    // Add a second detector and run again with the button: both appear in the summary.
    tick_and_run(&mut h, "simhash64");
    let algos: Vec<&str> = h.state().runs().iter().map(|r| r.algo.name()).collect();
    assert_eq!(algos, ["spotsigs", "simhash64"]);
    // The Run panel's link rules reach SpotSigs' run; the other detectors run without them.
    h.get_by_label("Link share");
    h.get_by_label("Cross links");
    let rules: Vec<(f64, f64)> = h
        .state()
        .runs()
        .iter()
        .map(|r| {
            let m = &r.detection.spec.matching;
            (m.link_share, m.cross_links)
        })
        .collect();
    assert_eq!(
        rules,
        [
            (
                samecore::matching::DEFAULT_LINK_SHARE,
                samecore::matching::DEFAULT_CROSS_LINKS
            ),
            (0.0, 0.0)
        ]
    );
    // What SpotSigs scored before this run is kept to show the effect of a change.
    assert!(
        h.state()
            .previous()
            .contains_key(&samecore::detectors::Algo::SpotSigs)
    );
    // Antecedent tuning: word statistics computed on request.
    h.get_by_label("Antecedents").click();
    h.run();
    h.get_by_label("Compute word statistics").click();
    h.run();
    h.get_by_label("coverage");
}

/// The site frame and the refused-page rule are set from the workbench, reach the run, and
/// change its clusters: without the frame the sample's SpotSigs joins stories through their
/// sites' navigation (pair F1 0.71 against 0.999 on the command line).
#[test]
fn site_frame_and_refused_page_controls_reach_the_run() {
    let mut h = opened_sample();
    let spotsigs = |h: &Harness<'_, Workbench>| {
        let run = &h.state().runs()[0];
        assert_eq!(run.algo, samecore::detectors::Algo::SpotSigs);
        (
            run.detection.spec.matching.refused_stays_alone,
            run.metrics
                .as_ref()
                .expect("the sample has gold")
                .pairwise
                .f1,
        )
    };
    let (alone, framed_f1) = spotsigs(&h);
    assert!(alone, "SpotSigs' default leaves a refused page alone");
    assert!(framed_f1 > 0.95, "pair F1 {framed_f1} with the site frame");
    assert!(h.state().spotsigs_params().site_frame.is_some());

    // Refused page: stays alone, unticked, reaches the next run.
    click(&mut h, "Refused page");
    click(&mut h, "Run detectors");
    assert!(
        !spotsigs(&h).0,
        "unticking \"stays alone\" did not reach the run"
    );

    // The site frame's copies, then the frame itself, from the Antecedents tab.
    click(&mut h, "Antecedents");
    click(&mut h, "count once");
    let frame = h.state().spotsigs_params().site_frame.unwrap();
    assert_eq!(
        frame.copies, None,
        "\"count once\" unticked still counts copies once"
    );
    click(&mut h, "drop");
    assert_eq!(h.state().spotsigs_params().site_frame, None);
    h.key_press(Key::F5);
    h.run();
    let (_, bare_f1) = spotsigs(&h);
    assert!(
        bare_f1 < framed_f1 - 0.1,
        "without the site frame pair F1 {bare_f1}, with it {framed_f1}"
    );
    // Ticked again, the frame comes back with its defaults, copies counted once.
    click(&mut h, "drop");
    assert_eq!(
        h.state().spotsigs_params().site_frame,
        Some(samecore::signature::frame::SiteFrame::default())
    );
}

/// The text of the first label that starts with `prefix`.
fn label_starting(h: &Harness<'_, Workbench>, prefix: &str) -> String {
    let node = h.get_by_label_contains(prefix);
    let n = node.accesskit_node();
    n.label().or_else(|| n.value()).unwrap_or_default()
}

fn open_project_by_typing(h: &mut Harness<'_, Workbench>, path: &std::path::Path) {
    h.get_by_label("Project file").focus();
    h.run();
    h.get_by_label("Project file")
        .type_text(path.to_str().expect("utf-8 temp path"));
    h.run();
    h.get_by_label("Open project").click();
    h.run();
    assert_eq!(
        h.state().project_path(),
        Some(path),
        "{:?}",
        h.state().messages()
    );
}

/// A click on the widget of this label, and a frame.
fn click(h: &mut Harness<'_, Workbench>, label: &str) {
    h.get_by_label(label).click();
    h.run();
}

/// Tick one more detector in the side panel and press Run detectors.
fn tick_and_run(h: &mut Harness<'_, Workbench>, detector: &str) {
    click(h, detector);
    click(h, "Run detectors");
}

/// N, J, Enter: the first cluster's second member compared with its representative.
fn compare_first_member(h: &mut Harness<'_, Workbench>) {
    h.key_press(Key::N);
    h.run();
    h.key_press(Key::J);
    h.run();
    h.key_press(Key::Enter);
    h.run();
    assert_eq!(h.state().tab(), Tab::Pair);
}

/// Make a sample of the active run with the Labels tab's defaults and start labelling it; its
/// size.
fn make_sample_and_label(h: &mut Harness<'_, Workbench>) -> usize {
    h.get_by_label("Labels").click();
    h.run();
    h.get_by_label("Make sample").click();
    h.run();
    let size = h.state().sample().expect("no sample made").pairs.len();
    h.get_by_label("Label pairs").click();
    h.run();
    size
}

/// Type a new code into the codebook, add it and select it.
fn add_and_select_code(h: &mut Harness<'_, Workbench>, name: &str) {
    h.get_by_label("New code").focus();
    h.run();
    h.get_by_label("New code").type_text(name);
    h.run();
    h.get_by_label("Add code").click();
    h.run();
    h.get_by_label(name).click();
    h.run();
}

#[test]
fn label_pairs_with_keys_code_a_cluster_and_find_both_after_reopening() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("study.samecore");

    let mut h = opened_sample();
    open_project_by_typing(&mut h, &file);
    h.set_annotator_for_test("ann");

    // A uniform sample of the SpotSigs run (50 pairs by default, fewer if the run has fewer).
    h.get_by_label("Labels").click();
    h.run();
    h.get_by_label("Make sample").click();
    h.run();
    let size = h.state().sample().expect("no sample made").pairs.len();
    assert!(size >= 5, "only {size} pairs sampled");
    h.get_by_label(&format!("Labelled 0 of {size}"));
    h.get_by_label("Label pairs").click();
    h.run();
    assert_eq!(h.state().tab(), Tab::Pair);
    h.get_by_label(&format!("Pair 1 of {size}"));
    let first = h.state().pair().expect("no pair shown").clone();

    // C, then reason 2 + U, then I: three labels, each moving on to the next pair.
    h.key_press(Key::C);
    h.run();
    h.get_by_label(&format!("Pair 2 of {size}"));
    assert_ne!(
        h.state().pair().unwrap().a,
        first.b,
        "the pair did not change"
    );
    h.key_press(Key::Num2);
    h.run();
    h.key_press(Key::U);
    h.run();
    h.key_press(Key::I);
    h.run();
    h.get_by_label(&format!("Labelled 3 of {size}"));
    h.get_by_label(&format!("Pair 4 of {size}"));

    // Ctrl+Z undoes the last label and goes back to its pair.
    h.key_press_modifiers(egui::Modifiers::COMMAND, Key::Z);
    h.run();
    h.get_by_label(&format!("Labelled 2 of {size}"));
    h.get_by_label(&format!("Pair 3 of {size}"));
    let s = h.state().sample().unwrap();
    let mine: Vec<_> = s
        .mine
        .iter()
        .take(3)
        .map(|m| m.as_ref().map(|l| (l.verdict, l.reason)))
        .collect();
    use samecore::labels::{Reason, Verdict};
    assert_eq!(
        mine,
        [
            Some((Verdict::Correct, None)),
            Some((Verdict::Undecided, Some(Reason::TimeStamp))),
            None
        ]
    );

    // Codes: add one, select the first cluster, apply it; every member shows it.
    h.get_by_label("Clusters").click();
    h.run();
    add_and_select_code(&mut h, "election");
    h.key_press(Key::N);
    h.run();
    let members: usize = label_starting(&h, "Cluster of ")
        .split_whitespace()
        .nth(2)
        .and_then(|n| n.parse().ok())
        .expect("no member count");
    h.get_by_label("Apply to cluster").click();
    h.run();
    h.get_by_label(&format!("Code: election ({members} pages)"));
    // The codebook entry plus one per member shown in the Codes column (the member table
    // draws only the rows in view: 16 at this window size).
    let shown = h.get_all_by_label("election").count();
    assert!(shown > members.min(16), "{shown} of {members} members");

    // An override on one page, then undone.
    h.key_press(Key::J);
    h.run();
    h.get_by_label("Remove from page").click();
    h.run();
    assert_eq!(h.get_all_by_label("-election (page)").count(), 1);
    // The button names what it undoes, and a message says it was undone.
    h.get_by_label_contains("Undo the decision on page").click();
    h.run();
    assert!(h.query_by_label("-election (page)").is_none());
    let said = h.state().messages().join("\n");
    assert!(said.contains("Undone: the decision on page"), "{said}");
    assert_eq!(h.get_all_by_label("election").count(), shown);
    // Renaming the code renames it on every member.
    h.get_by_label("Rename to").focus();
    h.run();
    h.get_by_label("Rename to").type_text("s");
    h.run();
    h.get_by_label("Rename").click();
    h.run();
    assert!(h.query_by_label("election").is_none());
    assert_eq!(h.get_all_by_label("elections").count(), shown);
    drop(h);

    // Reopen: the sample, its labels and the codes are all there.
    let mut h = opened_sample();
    open_project_by_typing(&mut h, &file);
    h.set_annotator_for_test("ann");
    h.get_by_label("Labels").click();
    h.run();
    h.get_by_label_contains("sample 1 (").click();
    h.run();
    h.get_by_label(&format!("Labelled 2 of {size}"));
    // The coded cluster is selected again (the project remembers the selection).
    h.get_by_label("Clusters").click();
    h.run();
    assert_eq!(h.get_all_by_label("elections").count(), shown);

    // A second annotator disagrees on the first pair: kappa and a disagreement to settle.
    h.set_annotator_for_test("second");
    h.get_by_label("Labels").click();
    h.run();
    h.get_by_label("Label pairs").click();
    h.run();
    h.key_press(Key::I);
    h.run();
    h.key_press(Key::U);
    h.run();
    h.get_by_label("Labels").click();
    h.run();
    h.get_by_label_contains("Cohen's kappa ann / second");
    h.get_by_label("1 disagreements to settle");
    h.get_by_label("Settle correct").click();
    h.run();
    h.get_by_label("No disagreement left to settle.");
}

#[test]
fn a_file_that_is_not_a_project_is_a_message() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("notes.samecore");
    std::fs::write(&file, "these are my notes, not a database ".repeat(200)).unwrap();
    let mut app = Workbench::new(true);
    app.open_project(file.clone());
    let mut h = harness(app);
    h.run();
    assert!(h.state().project_path().is_none());
    let msg = h.state().messages().join("\n");
    assert!(msg.contains("Opening project"), "{msg}");
    assert!(msg.contains("notes.samecore"), "{msg}");
    h.get_by_label_contains("Opening project");
    // The file is left as it was.
    assert!(
        std::fs::read_to_string(&file)
            .unwrap()
            .starts_with("these are my notes")
    );
}

#[test]
fn a_busy_project_is_a_message_and_the_pair_comes_back() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("busy.samecore");
    let mut app = Workbench::new(true);
    app.open(vec![sample_archive()]);
    app.open_project(file.clone());
    let mut h = harness(app);
    h.run();
    h.get_by_label("Labels").click();
    h.run();
    h.get_by_label("Make sample").click();
    h.run();
    let size = h.state().sample().expect("no sample").pairs.len();
    h.get_by_label("Label pairs").click();
    h.run();
    // Another program (say the CLI) holds the write lock past the busy timeout.
    let other = rusqlite::Connection::open(&file).unwrap();
    other.execute_batch("BEGIN IMMEDIATE").unwrap();
    h.key_press(Key::C);
    h.run();
    let msg = h.state().messages().join("\n");
    assert!(
        msg.contains("was not saved") && msg.contains("busy"),
        "{msg}"
    );
    h.get_by_label(&format!("Pair 1 of {size}"));
    h.get_by_label(&format!("Labelled 0 of {size}"));
    // Once it lets go, the same key saves the label.
    other.execute_batch("COMMIT").unwrap();
    h.key_press(Key::C);
    h.run();
    h.get_by_label(&format!("Labelled 1 of {size}"));
}

#[test]
fn a_blind_stratified_sample_hides_scores_and_strata() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = Workbench::new(true);
    app.open(vec![sample_archive()]);
    app.open_project(dir.path().join("blind"));
    let mut h = harness(app);
    h.run();
    // A path without extension gets ".samecore".
    assert_eq!(
        h.state().project_path(),
        Some(dir.path().join("blind.samecore").as_path())
    );
    h.get_by_label("Labels").click();
    h.run();
    h.get_by_label("Stratified by similarity").click();
    h.run();
    h.get_by_label("Split same-site / different-site").click();
    h.get_by_label("Blind (hide scores and detector)").click();
    h.run();
    h.get_by_label("Make sample").click();
    h.run();
    let s = h.state().sample().expect("no sample");
    assert!(s.info.blind);
    assert_eq!(s.info.method, "stratified");
    // Bands 0.4/0.6/0.8/1 split by site relation: several strata were drawn from.
    let strata: std::collections::BTreeSet<&str> =
        s.pairs.iter().map(|p| p.stratum.as_str()).collect();
    assert!(strata.len() >= 2, "{strata:?}");
    let first_stratum = s.pairs[0].stratum.clone();
    // Labelling progress per stratum, numbered, without bands, verdicts or precision.
    h.get_by_label_contains("Progress per stratum");
    h.get_by_label("Stratum 1");
    h.get_by_label("Stratum 2");
    assert!(h.query_by_label("Correct").is_none());
    assert!(h.query_by_label(&first_stratum).is_none());
    h.get_by_label("Label pairs").click();
    h.run();
    h.get_by_label("Blind sample: scores and detectors hidden");
    assert!(h.query_by_label("Similarity:").is_none());
    assert!(h.query_by_label_contains(&first_stratum).is_none());
    // Still labelling, a pair browsed from a cluster is shown blind too.
    h.get_by_label("Clusters").click();
    h.run();
    compare_first_member(&mut h);
    h.get_by_label_contains("The pair shown is not pair 1 of the sample");
    h.get_by_label("Blind sample: scores and detectors hidden");
    assert!(h.query_by_label("Similarity:").is_none());
}

#[test]
fn the_project_worker_answers_a_real_window() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("async.samecore");
    // Jobs and the store run on their own threads, as in a window.
    let mut app = Workbench::new(false);
    app.open_project(file.clone());
    let mut h = harness(app);
    let start = std::time::Instant::now();
    while h.state().project_path().is_none() && start.elapsed().as_secs() < 20 {
        h.step();
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert_eq!(
        h.state().project_path(),
        Some(file.as_path()),
        "{:?}",
        h.state().messages()
    );
    h.step();
    h.get_by_label_contains("Open: ");
}

#[test]
fn without_gold_the_plots_show_precision_from_judged_pairs() {
    // The sample archive alone, without its .gold.tsv: no gold clusters.
    let dir = tempfile::tempdir().unwrap();
    let archive = dir.path().join("news-sample.warc.gz");
    std::fs::copy(sample_archive(), &archive).unwrap();
    let mut app = Workbench::new(true);
    app.open(vec![archive]);
    let mut h = harness(app);
    h.run();
    assert!(!h.state().workspace().unwrap().has_gold());
    open_project_by_typing(&mut h, &dir.path().join("nogold.samecore"));
    h.set_annotator_for_test("ann");

    // Before any label the plot says where precision would come from.
    h.get_by_label("Plots").click();
    h.run();
    h.get_by_label_contains("label pairs of a sample of this run");

    let size = make_sample_and_label(&mut h);
    for key in [Key::C, Key::C, Key::I] {
        h.key_press(key);
        h.run();
    }
    h.get_by_label(&format!("Pair 4 of {size}"));

    h.get_by_label("Plots").click();
    h.run();
    let caption = label_starting(&h, "Labels: spotsigs precision");
    assert!(
        caption.contains("from 3 judged pairs"),
        "{caption} / {:?}",
        h.state().messages()
    );
    assert!(caption.contains("relative recall"), "{caption}");
    assert!(
        h.query_by_label_contains("label pairs of a sample")
            .is_none()
    );
    // Two correct of three: no threshold's lower bound reaches the default target 0.95. A
    // target typed into the field is the caption's (and the plot's).
    assert!(
        caption.contains("no threshold's precision lower bound reaches 0.95 yet"),
        "{caption}"
    );
    h.get_by_role_and_label(egui::accesskit::Role::SpinButton, "Precision target:")
        .click();
    h.run();
    // The field now edits its text, all of it selected: typing replaces it.
    h.event(egui::Event::Text("0.6".into()));
    h.run();
    h.key_press(Key::Enter);
    h.run();
    let caption = label_starting(&h, "Labels: spotsigs precision");
    assert!(caption.contains("reaches 0.6"), "{caption}");

    // One more label: the curve is computed again.
    h.get_by_label("Pair").click();
    h.run();
    h.key_press(Key::C);
    h.run();
    h.get_by_label("Plots").click();
    h.run();
    let caption = label_starting(&h, "Labels: spotsigs precision");
    assert!(caption.contains("from 4 judged pairs"), "{caption}");
}

trait AnnotatorExt {
    fn set_annotator_for_test(&mut self, name: &str);
}

impl AnnotatorExt for Harness<'_, Workbench> {
    fn set_annotator_for_test(&mut self, name: &str) {
        self.state_mut().set_annotator(name);
        self.run();
    }
}

#[test]
fn a_panicking_job_is_an_error_on_screen_and_the_app_is_not_left_busy() {
    // Real background threads, as in a window.
    let mut h = harness(Workbench::new(false));
    h.state_mut().start_panicking_job();
    let started = std::time::Instant::now();
    while h.state().is_busy() {
        assert!(started.elapsed().as_secs() < 10, "the job never ended");
        std::thread::sleep(std::time::Duration::from_millis(5));
        // A busy app keeps repainting (its progress bar): step, do not wait to settle.
        h.step();
    }
    h.run();
    let messages = h.state().messages().join("\n");
    assert!(
        messages.contains("Run failed: internal error") && messages.contains("injected failure"),
        "{messages}"
    );
    h.get_by_label_contains("injected failure");
}

#[test]
fn the_published_spotsigs_is_a_preset_of_the_run_panel_and_the_antecedents_tab() {
    let mut h = opened_sample();
    h.get_by_label("Preset: SpotSigs as published").click();
    h.run();
    // Only the reference detector is ticked now, and it asks for the published stopword list.
    h.get_by_label("Its stopwords.txt");
    let stopwords = std::env::var("SAMECORE_SPOTSIGS_STOPWORDS").ok();
    h.get_by_label("Run detectors").click();
    h.run();
    match stopwords {
        Some(_) => {
            let algos: Vec<&str> = h.state().runs().iter().map(|r| r.algo.name()).collect();
            assert_eq!(algos, ["spotsigs-reference"]);
        }
        None => {
            let messages = h.state().messages().join("\n");
            assert!(messages.contains("stopwords.txt"), "{messages}");
        }
    }
    // The Antecedents tab loads the published configuration into samecore's own SpotSigs.
    h.get_by_label("Antecedents").click();
    h.run();
    h.get_by_label("Published preset").click();
    h.run();
    // The published code knows English only: every page takes its antecedents.
    h.get_by_label("Antecedents of every page (24)");
    h.get_by_label("une");
}

/// Each language's antecedents are shown and edited on their own: German's bundled
/// set, one removed, stored as German's edited set while English stays as it was.
#[test]
fn the_antecedents_tab_edits_one_language_at_a_time() {
    let mut h = opened_sample();
    click(&mut h, "Antecedents");
    h.get_by_label_contains("Antecedents of English pages");
    h.get_by_label_contains("without a set of its own take English");
    let english = h.state().spotsigs_params().antecedents.clone();
    click(&mut h, "Language");
    click(&mut h, "German (de)");
    h.get_by_label("Antecedents of German pages (28)");
    // The first row is "der": remove it.
    h.get_by_label("der");
    h.get_all_by_label("remove").next().unwrap().click();
    h.run();
    h.get_by_label("Antecedents of German pages (27)");
    let p = h.state().spotsigs_params();
    let de = &p.languages.as_ref().unwrap().edited["de"];
    assert!(!de.antecedents.iter().any(|a| a.word == "der"));
    assert_eq!(de.antecedents.len(), 27);
    assert_eq!(p.antecedents, english, "English is untouched");
    // Back to English: its own list again; the edit is named in the language list.
    click(&mut h, "Language");
    h.get_by_label("German (de), edited");
    click(&mut h, "English (en)");
    h.get_by_label_contains("Antecedents of English pages");
    // Languages off: one set for every page, as the paper.
    click(&mut h, "per page language");
    assert!(h.state().spotsigs_params().languages.is_none());
    h.get_by_label_contains("Antecedents of every page");
}

/// The Antecedents tab's published preset sets the paper's matching too: the next SpotSigs run
/// shares one signature, has no link rule and no site frame.
#[test]
fn the_published_preset_runs_the_papers_matching() {
    let mut h = opened_sample();
    let m = &h.state().runs()[0].detection.spec.matching;
    assert!(m.link_share > 0.0 && m.cross_links > 0.0 && m.refused_stays_alone);
    click(&mut h, "Antecedents");
    click(&mut h, "Published preset");
    h.key_press(Key::F5);
    h.run();
    let run = &h.state().runs()[0];
    assert_eq!(run.algo, samecore::detectors::Algo::SpotSigs);
    let m = &run.detection.spec.matching;
    assert_eq!(
        (
            m.min_shared,
            m.link_share,
            m.cross_links,
            m.refused_stays_alone
        ),
        (1, 0.0, 0.0, false)
    );
    assert_eq!(h.state().spotsigs_params().site_frame, None);
}

#[test]
fn members_show_the_page_they_were_linked_through_weakest_first() {
    let mut h = opened_sample();
    h.key_press(Key::N);
    h.run();
    h.get_by_label("Linked through");
    // The representative is member 1; every other member names its link and its score, and
    // the members come in ascending order of that score.
    let run = h.state().active_run().unwrap();
    let cluster = run.clusters.iter().find(|c| c.members.len() > 2).unwrap();
    let scores: Vec<f64> = cluster.links[1..]
        .iter()
        .map(|l| l.expect("a member has a link").1)
        .collect();
    assert!(scores.windows(2).all(|w| w[0] <= w[1]), "{scores:?}");
    assert_eq!(
        cluster.weakest,
        scores.first().copied(),
        "the weakest link is the first member's"
    );
    assert!(h.query_all_by_label_contains(" via #").count() >= 2);
}

#[test]
fn after_a_rerun_the_codebook_shows_what_changed_and_extends_a_code() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("rerun.samecore");
    let mut h = opened_sample();
    open_project_by_typing(&mut h, &file);
    h.set_annotator_for_test("ann");
    // A strict threshold first: small clusters; code the first one.
    h.state_mut().set_threshold(0.9);
    h.run();
    add_and_select_code(&mut h, "election");
    h.key_press(Key::N);
    h.run();
    h.get_by_label("Apply to cluster").click();
    h.run();
    h.get_by_label_contains("Codes and the latest run");
    // A lenient re-run grows clusters around the coded pages: the codebook says which and
    // offers to extend the code to the members that have no decision on it.
    h.state_mut().set_threshold(0.1);
    h.run();
    let extend = label_starting(&h, "Extend election to ");
    let undecided: usize = extend
        .split_whitespace()
        .nth(3)
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count in {extend:?}"));
    assert!(undecided > 0);
    let pages_before = h
        .state()
        .project_codes()
        .codes
        .iter()
        .find(|c| c.name == "election")
        .unwrap()
        .pages;
    h.get_by_label_contains("Extend election to ").click();
    h.run();
    let pages_after = h
        .state()
        .project_codes()
        .codes
        .iter()
        .find(|c| c.name == "election")
        .unwrap()
        .pages;
    assert_eq!(pages_after, pages_before + undecided as u64);
    // Undoable like any code edit.
    h.get_by_label_contains("Undo extending the code").click();
    h.run();
    h.get_by_label_contains("Extend election to ");
}

#[test]
fn small_things_of_a_working_day() {
    let mut h = opened_sample();

    // The Documents tab shows each page's gold cluster (from the .gold.tsv beside the WARC).
    h.get_by_label("Documents").click();
    h.run();
    let ws = h.state().workspace().unwrap().clone();
    let gold = ws
        .gold_name(samecore::DocId(0))
        .expect("no gold for the first page")
        .to_string();
    assert!(
        h.query_all_by_label(&gold).count() > 0,
        "gold {gold} not shown"
    );
    h.get_by_label("Clusters").click();
    h.run();

    // Esc closes the key list (and does not cancel anything while it does).
    h.key_press(Key::F1);
    h.run();
    h.get_by_label("Keyboard");
    h.key_press(Key::Escape);
    h.run();
    assert!(
        h.query_by_label("Keyboard").is_none(),
        "the key list stayed open"
    );

    // The cluster count follows the filter.
    let site = h.state().workspace().unwrap().collection.docs[0]
        .site
        .henzinger
        .clone();
    h.get_by_label("Filter:").focus();
    h.run();
    h.get_by_label("Filter:").type_text(&site.to_uppercase());
    h.run();
    let matched = label_starting(&h, "clusters match the filter");
    let counts: Vec<usize> = matched
        .split_whitespace()
        .filter_map(|w| w.parse().ok())
        .collect();
    assert!(
        matches!(counts[..], [n, of] if n >= 1 && n <= of),
        "the filter on the first page's site, in capitals: {matched:?}"
    );
    // Leave the filter field (keys go to the text field while it has focus).
    h.get_by_label("Clusters").click();
    h.run();

    // The pair view says which side is the representative and which member the other is.
    compare_first_member(&mut h);
    let place = label_starting(&h, "left is the representative");
    assert!(
        place.contains("left is the representative (member 1 of")
            && place.contains("right is member 2 of"),
        "{place}"
    );

    // Running one more detector updates the open pair's similarity row.
    let before = h.state().pair().unwrap().scores.len();
    h.get_by_label("Clusters").click();
    h.run();
    tick_and_run(&mut h, "simhash64");
    let pair = h.state().pair().unwrap();
    assert!(
        pair.scores.len() > before
            && pair
                .scores
                .iter()
                .any(|s| s.algo == samecore::detectors::Algo::Simhash64),
        "{:?}",
        pair.scores.iter().map(|s| s.algo).collect::<Vec<_>>()
    );
}

#[test]
fn a_click_on_a_cluster_title_selects_its_row() {
    let mut h = opened_sample();
    let run = h.state().active_run().unwrap().clone();
    let cluster = run.clusters.iter().find(|c| c.members.len() > 1).unwrap();
    let ws = h.state().workspace().unwrap().clone();
    let title = cluster.title(&ws).to_string();
    assert!(h.query_by_label_contains("Cluster of ").is_none());
    h.get_all_by_label(&title).next().unwrap().click();
    h.run();
    h.get_by_label_contains("Cluster of ");
}

/// The cluster list names a story by its headline, without the site's name its `<title>`
/// carries ("… | The Lindenvale Ledger"); the representative's own title is one hover away.
#[test]
fn the_cluster_list_names_the_story_not_the_site() {
    let mut h = opened_sample();
    let run = h.state().active_run().unwrap().clone();
    let ws = h.state().workspace().unwrap().clone();
    let docs = &ws.collection.docs;
    let cluster = run
        .clusters
        .iter()
        .find(|c| c.members.len() > 1 && c.story_title.is_some())
        .expect("a cluster whose representative's title carries its site");
    let raw = cluster.raw_title(docs).to_string();
    let story = cluster.title(&ws).to_string();
    assert!(raw.contains(" | "), "{raw}");
    assert!(!story.contains(" | "), "{story}");
    assert!(
        h.query_by_label(&raw).is_none(),
        "the raw title is listed: {raw}"
    );
    h.get_all_by_label(&story).next().unwrap().hover();
    h.run();
    h.get_by_label_contains("The representative's <title>:");
    h.get_by_label(&raw);
}

#[test]
fn another_corpus_clears_the_reading_warnings_and_the_antecedent_edits() {
    let dir = tempfile::tempdir().unwrap();
    // A damaged copy of the sample: its tail cut off mid-record gives a reading warning.
    let bytes = std::fs::read(sample_archive()).unwrap();
    let damaged = dir.path().join("damaged.warc.gz");
    std::fs::write(&damaged, &bytes[..bytes.len() * 2 / 3]).unwrap();
    let mut app = Workbench::new(true);
    app.open(vec![damaged]);
    let mut h = harness(app);
    h.run();
    assert!(
        h.state()
            .messages()
            .iter()
            .any(|m| m.contains("warning(s) while reading")),
        "{:?}",
        h.state().messages()
    );
    h.state_mut().spotsigs_params_mut().antecedents.truncate(3);
    h.state_mut().open(vec![sample_archive()]);
    h.run();
    let messages = h.state().messages().join("\n");
    assert!(!messages.contains("warning(s) while reading"), "{messages}");
    assert!(messages.contains("Antecedents reset"), "{messages}");
    assert_eq!(
        h.state().spotsigs_params(),
        &samecore::signature::SpotSigsParams::default()
    );
}

#[test]
fn a_reopened_project_brings_back_its_archives_annotator_settings_antecedents_and_tab() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("day.samecore");
    let mut h = opened_sample();
    open_project_by_typing(&mut h, &file);
    h.set_annotator_for_test("ann");
    h.state_mut().set_threshold(0.4);
    h.state_mut().spotsigs_params_mut().antecedents.truncate(3);
    h.key_press(Key::N);
    h.run();
    h.key_press(Key::N);
    h.run();
    let selected = h.state().selected_cluster().expect("no cluster selected");
    h.get_by_label("Plots").click();
    h.run();
    h.run();
    drop(h);

    // A fresh window, nothing open: opening the project is enough.
    let mut h = harness(Workbench::new(true));
    h.run();
    assert!(h.state().workspace().is_none());
    open_project_by_typing(&mut h, &file);
    h.run();
    let ws = h
        .state()
        .workspace()
        .expect("the project's archive was not reopened");
    assert_eq!(
        std::fs::canonicalize(&ws.inputs[0]).unwrap(),
        std::fs::canonicalize(sample_archive()).unwrap()
    );
    assert_eq!(h.state().annotator(), "ann");
    assert_eq!(
        h.state()
            .threshold_setting(samecore::detectors::Algo::SpotSigs),
        Some(0.4)
    );
    assert_eq!(h.state().spotsigs_params().antecedents.len(), 3);
    assert_eq!(h.state().tab(), Tab::Plots);
    // The selected cluster too, once the Clusters tab shows the run.
    h.get_by_label("Clusters").click();
    h.run();
    assert_eq!(h.state().selected_cluster(), Some(selected));
    h.get_by_label_contains(&format!("(#{selected})"));
}

#[test]
fn the_cluster_the_list_and_the_sample_export_from_where_you_are() {
    use samecore::gui::export::{ClusterListRow, ExportWhat};
    let dir = tempfile::tempdir().unwrap();
    let mut h = opened_sample();
    open_project_by_typing(&mut h, &dir.path().join("e.samecore"));
    h.get_by_label("Export list…");
    h.key_press(Key::N);
    h.run();
    let members = {
        let run = h.state().active_run().unwrap();
        run.clusters
            .iter()
            .find(|c| c.members.len() > 1)
            .unwrap()
            .members
            .len()
    };
    // The selected cluster, as Parquet.
    let cluster = dir.path().join("cluster.parquet");
    h.state_mut()
        .export_to(ExportWhat::Cluster(0), cluster.clone());
    h.run();
    let rows: Vec<samecore::export::ClusterFileRow> =
        samecore::export::read_rows(&cluster, None).unwrap();
    assert_eq!(rows.len(), members);
    assert!(rows[0].representative && rows[1..].iter().all(|r| r.linked_through.is_some()));
    // The list as filtered, as CSV.
    let listed: Vec<usize> = (0..3).collect();
    let list = dir.path().join("clusters.csv");
    h.state_mut()
        .export_to(ExportWhat::Clusters(listed), list.clone());
    h.run();
    let rows: Vec<ClusterListRow> = samecore::export::read_rows(&list, None).unwrap();
    assert_eq!(rows.len(), 3);
    assert_eq!(rows[0].pages, members);
    // A sample, through the project's worker.
    h.get_by_label("Labels").click();
    h.run();
    h.get_by_label("Make sample").click();
    h.run();
    h.get_by_label("Export sample…");
    let sample = dir.path().join("sample.tsv");
    h.state_mut().export_to(ExportWhat::Sample, sample.clone());
    h.run();
    let rows: Vec<samecore::export::PairRow> = samecore::export::read_rows(&sample, None).unwrap();
    assert_eq!(rows.len(), h.state().sample().unwrap().pairs.len());
    assert!(
        h.state()
            .messages()
            .iter()
            .any(|m| m.contains("rows written to"))
    );
    // An extension nobody reads is an error, said.
    h.state_mut()
        .export_to(ExportWhat::Cluster(0), dir.path().join("x.xlsx"));
    h.run();
    assert!(
        h.state()
            .messages()
            .iter()
            .any(|m| m.starts_with("Export failed"))
    );
}

#[test]
fn a_threshold_change_shows_what_it_split_merged_and_moved_with_the_metric_deltas() {
    let mut h = opened_sample();
    h.state_mut().set_threshold(0.9);
    h.run();
    h.state_mut().set_threshold(0.1);
    h.run();
    h.get_by_label("Clusters").click();
    h.run();
    let header = label_starting(&h, "Since the last run:");
    let merged: usize = header
        .split(", ")
        .nth(1)
        .and_then(|p| p.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{header}"));
    assert!(
        merged > 0,
        "a much lower threshold merged nothing: {header}"
    );
    h.get_by_label_contains("Since the last run:").click();
    h.run();
    h.get_by_label_contains("pair F1 ");
    assert!(h.query_all_by_label_contains("Merged: cluster ").count() > 0);
}

#[test]
fn a_capture_opens_inert_in_the_browser_and_in_replay() {
    // A browser that does nothing, so the test opens no window.
    // SAFETY: no other test of this binary reads or writes BROWSER.
    unsafe { std::env::set_var("BROWSER", "true") };
    let mut h = opened_sample();
    compare_first_member(&mut h);
    h.get_all_by_label("Open capture").next().unwrap().click();
    h.run();
    let message = h
        .state()
        .messages()
        .iter()
        .find(|m| m.starts_with("Opened in the browser: "))
        .cloned()
        .unwrap_or_else(|| panic!("{:?}", h.state().messages()));
    let path = message.trim_start_matches("Opened in the browser: ");
    let page = std::fs::read_to_string(path).unwrap();
    // The policy first, the page inside a sandboxed frame.
    assert!(
        page.starts_with("<!DOCTYPE html>\n<meta charset=\"utf-8\">\n<meta http-equiv=\"Content-Security-Policy\""),
        "{path}"
    );
    assert!(page.contains("<iframe sandbox "), "{path}");
    let _ = std::fs::remove_file(path);
    h.get_all_by_label("Open in replay").next().unwrap().click();
    h.run();
    assert!(
        h.state()
            .messages()
            .iter()
            .any(|m| m.contains("https://web.archive.org/web/") && m.contains("/http")),
        "{:?}",
        h.state().messages()
    );
    h.get_all_by_label("Copy URL").next().unwrap();
}

#[test]
fn plots_compare_fairly_and_the_legend_never_moves_the_threshold() {
    let mut h = opened_sample();
    tick_and_run(&mut h, "simhash64");
    h.get_by_label("Plots").click();
    h.run();
    let threshold = |h: &Harness<'_, Workbench>| {
        h.state()
            .active_run()
            .unwrap()
            .detection
            .spec
            .matching
            .threshold
    };
    let before = threshold(&h);
    // The legend is outside the plot: a detector's entry (the last node of that name, after
    // the side panel's checkbox and run table) hides its curves, nothing else.
    for _ in 0..2 {
        h.get_all_by_label("simhash64").last().unwrap().click();
        h.run();
    }
    assert_eq!(threshold(&h), before);
    assert_eq!(
        h.state().runs().len(),
        2,
        "the legend changed the detectors to run"
    );
    h.get_by_label_contains("F1: solid");
    // Small multiples: each detector on its own score's axis, headed by its name.
    let before_names = h.get_all_by_label("simhash64").count();
    h.get_by_label("One plot per detector").click();
    h.run();
    assert_eq!(h.get_all_by_label("simhash64").count(), before_names + 1);
    assert_eq!(threshold(&h), before);
    // The threshold-free comparison.
    h.get_by_label("Precision-recall").click();
    h.run();
    h.get_by_label_contains("Precision against recall");
    assert_eq!(threshold(&h), before);
}

/// The cluster list follows the window: grown from 1400×900 to 1920×1080 the title column
/// takes the new width; shrunk to 1024×700, the columns fit again.
#[test]
fn the_cluster_list_follows_the_window_size() {
    // 1400 wide: every column shows, so growing keeps the same columns.
    let mut h = opened_sample();
    let header = |h: &Harness<'_, Workbench>, label: &str| h.get_by_label(label).rect();
    let small = header(&h, "Story");
    h.set_size(egui::vec2(1920.0, 1080.0));
    h.run();
    let large = header(&h, "Story");
    let weakest = header(&h, "Weakest link");
    assert!(
        weakest.right() > 1800.0 && weakest.right() <= 1920.0,
        "the last column ends at {} of 1920",
        weakest.right()
    );
    assert!(
        weakest.left() - large.left() > 1000.0,
        "the title column did not grow: {large:?} (at 1400: {small:?}), weakest link at {weakest:?}"
    );
    h.set_size(egui::vec2(1024.0, 700.0));
    h.run();
    for label in ["#", "Pages", "Story", "Gold purity"] {
        let r = header(&h, label);
        assert!(r.right() <= 1024.0, "{label} is cut at 1024: {r:?}");
    }
}

/// Every tab at 1024×700 (the smallest window the workbench supports): what a person needs on
/// each is inside the window, and the tables' columns are not under the codebook.
#[test]
fn every_tab_fits_a_1024_by_700_window() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = Workbench::new(true);
    app.open(vec![sample_archive()]);
    let mut h = Harness::builder()
        .with_size(egui::vec2(1024.0, 700.0))
        .build_ui_state(|ui, app: &mut Workbench| app.ui(ui), app);
    h.run();
    let screen = egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(1024.0, 700.0));
    let inside = |h: &Harness<'_, Workbench>, label: &str| {
        let r = h.get_all_by_label(label).last().unwrap().rect();
        assert!(screen.contains_rect(r), "{label} is cut: {r:?}");
        r
    };
    open_project_by_typing(&mut h, &dir.path().join("small.samecore"));
    // Clusters with the codebook open beside them: every column header left of the codebook.
    h.get_by_label("Clusters").click();
    h.run();
    inside(&h, "Run detectors (F5)");
    let codebook = inside(&h, "Coding");
    // Columns give way by priority, and say so; those shown are all left of the codebook.
    let hidden = h
        .query_by_label_contains("Hidden for width: ")
        .map(|n| {
            n.accesskit_node()
                .label()
                .or_else(|| n.accesskit_node().value())
                .unwrap_or_default()
        })
        .unwrap_or_default();
    for header in [
        "#",
        "Pages",
        "Story",
        "Sites",
        "First published",
        "Gold purity",
    ] {
        if hidden.contains(header) {
            continue;
        }
        let r = inside(&h, header);
        assert!(
            r.right() <= codebook.left() + 1.0,
            "{header} under the codebook: {r:?}"
        );
    }
    inside(&h, "Export list…");
    // The side panel stays narrow.
    assert!(inside(&h, "Inputs").left() < 40.0);
    for (tab, must) in [
        ("Documents", "Record"),
        (
            "Plots",
            "F1: solid, thick   precision: dashed   recall: dotted",
        ),
        ("Antecedents", "Published preset"),
        ("Labels", "Make sample"),
    ] {
        h.get_by_label(tab).click();
        h.run();
        inside(&h, must);
    }
    h.get_by_label("Clusters").click();
    h.run();
    compare_first_member(&mut h);
    inside(&h, "Open capture");
    inside(&h, "Copy URL");
}

/// A verdict goes only to the sample pair on screen: after browsing a cluster into the pair
/// view, C labels nothing until the user goes back to the sample pair; and a reason or note
/// typed for one pair does not ride along to another.
#[test]
fn a_verdict_goes_only_to_the_sample_pair_on_screen() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = opened_sample();
    open_project_by_typing(&mut h, &dir.path().join("study.samecore"));
    h.set_annotator_for_test("ann");
    let size = make_sample_and_label(&mut h);
    h.get_by_label(&format!("Pair 1 of {size}"));

    // A reason and a note on pair 1, then on to pair 2 without labelling: both are gone.
    h.key_press(Key::Num2);
    h.run();
    h.key_press(Key::N);
    h.run();
    h.get_by_label("Note").type_text("check byline");
    h.run();
    let value = |h: &Harness<'_, Workbench>, label: &str| {
        h.get_by_label(label)
            .accesskit_node()
            .value()
            .unwrap_or_default()
    };
    assert_eq!(value(&h, "Note"), "check byline");
    assert_eq!(value(&h, "Reason"), "time stamp");
    h.key_press(Key::Enter);
    h.run();
    h.key_press(Key::J);
    h.run();
    h.get_by_label(&format!("Pair 2 of {size}"));
    assert_eq!(value(&h, "Note"), "");
    assert_eq!(value(&h, "Reason"), "none");

    // Browse a cluster into the pair view: the bar says so, and C labels nothing.
    h.get_by_label("Clusters").click();
    h.run();
    compare_first_member(&mut h);
    h.get_by_label_contains("The pair shown is not pair 2 of the sample");
    h.key_press(Key::C);
    h.run();
    let s = h.state().sample().unwrap();
    assert!(
        s.mine.iter().all(Option::is_none),
        "a label was saved: {:?}",
        s.mine
    );
    // Back to the sample pair: C labels it.
    h.get_by_label("Back to pair 2").click();
    h.run();
    h.get_by_label(&format!("Pair 2 of {size}"));
    h.key_press(Key::C);
    h.run();
    let s = h.state().sample().unwrap();
    assert!(s.mine[1].is_some() && s.mine.iter().flatten().count() == 1);
}

/// spotsigs-reference without the published code's stopword list is refused before anything
/// runs, naming the Run panel's field (it used to fail the whole run at the end, the other
/// detectors' results lost).
#[test]
fn the_published_code_without_its_stopwords_is_refused_before_the_run() {
    let mut h = opened_sample();
    let before: Vec<_> = h.state().runs().iter().map(|r| r.algo).collect();
    click(&mut h, "spotsigs-reference");
    h.get_by_label("Its stopwords.txt").focus();
    h.get_by_label("Its stopwords.txt")
        .type_text("/nonexistent/stopwords.txt");
    h.run();
    click(&mut h, "Run detectors");
    h.run();
    let said = h.state().messages().join("\n");
    assert!(
        said.contains("Its stopwords.txt") && said.contains("nothing was run"),
        "{said}"
    );
    let after: Vec<_> = h.state().runs().iter().map(|r| r.algo).collect();
    assert_eq!(before, after);
}

/// Opening the same archive again with a project open runs the detectors again, and the same
/// clusters are the stored run, not a second copy of it ("opening goldset-dev with a
/// project open adds a run that repeats run 1, without saying so").
#[test]
fn the_same_run_again_is_not_stored_twice() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("again.samecore");
    let mut h = opened_sample();
    open_project_by_typing(&mut h, &file);
    h.run();
    let runs = || {
        samecore::store::Project::open(&file)
            .unwrap()
            .runs()
            .unwrap()
    };
    assert_eq!(runs().len(), 1, "{:?}", h.state().messages());
    h.state_mut().open(vec![sample_archive()]);
    h.run();
    assert_eq!(runs().len(), 1, "{:?}", h.state().messages());
    let messages = h.state().messages().join("\n");
    assert!(messages.contains("not stored twice"), "{messages}");
    // Another threshold is another run.
    h.state_mut().set_threshold(0.3);
    h.run();
    assert_eq!(runs().len(), 2, "{:?}", h.state().messages());
}

/// A project made on the command line, opened in an empty workbench, brings back its archives
/// (it said "Nothing open yet" though `relocate` found them).
#[test]
fn a_project_made_on_the_command_line_brings_back_its_archives() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("cli.samecore");
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_samecore"))
        .arg("run")
        .arg(sample_archive())
        .arg("--project")
        .arg(&file)
        .output()
        .unwrap();
    assert!(status.status.success());
    let mut app = Workbench::new(true);
    app.open_project(file.clone());
    let mut h = harness(app);
    h.run();
    let ws = h
        .state()
        .workspace()
        .expect("the archive was not brought back");
    let project = samecore::store::Project::open(&file).unwrap();
    assert_eq!(ws.collection.docs.len(), project.pages().unwrap().len());
    // The workbench's run of the same settings is the stored run, not a second one.
    assert_eq!(
        project.runs().unwrap().len(),
        1,
        "{:?}",
        h.state().messages()
    );
    let messages = h.state().messages().join("\n");
    assert!(messages.contains("not stored twice"), "{messages}");
}

/// The workbench follows the project file: a code added by the command line while the window
/// is open appears at the next frame, with a message ("the workbench does not see
/// command-line edits to the open project until the next click").
#[test]
fn the_workbench_follows_edits_made_on_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("follow.samecore");
    let mut h = opened_sample();
    open_project_by_typing(&mut h, &file);
    h.run();
    let has = |h: &Harness<'_, Workbench>| {
        h.state()
            .project_codes()
            .codes
            .iter()
            .any(|c| c.name == "protest")
    };
    assert!(!has(&h));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_samecore"))
        .args(["code", "--project"])
        .arg(&file)
        .args(["add", "protest"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    h.run();
    h.run();
    assert!(has(&h), "{:?}", h.state().messages());
    let messages = h.state().messages().join("\n");
    assert!(
        messages.contains("changed by another samecore"),
        "{messages}"
    );
}

/// T shows the selected cluster as a timeline, one mark per dated member, and a
/// click on a mark opens that member beside the representative.
#[test]
fn a_click_on_a_timeline_mark_opens_that_member() {
    let mut h = opened_sample();
    h.key_press(Key::N);
    h.run();
    assert!(
        h.state().timeline_marks().is_empty(),
        "the members table first"
    );
    h.key_press(Key::T);
    h.run();
    h.get_by_label_contains("; first: ");
    let marks = h.state().timeline_marks().to_vec();
    let run = h.state().active_run().unwrap();
    let selected = h.state().selected_cluster().unwrap();
    let cluster = run
        .clusters
        .iter()
        .find(|c| c.id == selected)
        .unwrap()
        .clone();
    assert_eq!(
        marks.len(),
        cluster.members.len(),
        "every member of the sample has a date"
    );
    // A member other than the representative, clicked where the timeline drew it.
    let (_, at) = *marks
        .iter()
        .find(|(d, _)| *d != cluster.members[0])
        .expect("a second member");
    // Marks of one site on one day sit on one another: the nearest mark is the one opened.
    let expected = marks
        .iter()
        .filter(|(_, p)| p.distance(at) < 0.5)
        .map(|(d, _)| *d)
        .collect::<Vec<_>>();
    h.hover_at(at);
    h.run();
    h.input_mut().events.push(egui::Event::PointerButton {
        pos: at,
        button: egui::PointerButton::Primary,
        pressed: true,
        modifiers: egui::Modifiers::NONE,
    });
    h.step();
    h.input_mut().events.push(egui::Event::PointerButton {
        pos: at,
        button: egui::PointerButton::Primary,
        pressed: false,
        modifiers: egui::Modifiers::NONE,
    });
    h.run();
    assert_eq!(h.state().tab(), Tab::Pair);
    let pair = h.state().pair().expect("the member compared").clone();
    assert_eq!(pair.a, cluster.members[0]);
    assert!(expected.contains(&pair.b), "{:?} not at the click", pair.b);
}

/// A shows what the pair copied — both cores with their passages, each side's share,
/// the derived page's class — and a click records the coder's class in the project, with who.
#[test]
fn aligned_passages_show_shares_and_a_click_records_the_class() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("copied.samecore");
    let mut h = opened_sample();
    open_project_by_typing(&mut h, &path);
    h.key_press(Key::N);
    h.run();
    h.key_press(Key::J);
    h.run();
    h.key_press(Key::Enter);
    h.run();
    assert_eq!(h.state().tab(), Tab::Pair);
    assert!(
        h.query_by_label_contains("of its core found in").is_none(),
        "terms first"
    );
    h.key_press(Key::A);
    h.run();
    h.get_by_label_contains("of its core found in the right page");
    let pair = h.state().pair().unwrap().clone();
    let computed = label_starting(&h, " (computed)");
    let class = [
        samecore::passages::Derivation::Wholly,
        samecore::passages::Derivation::Partially,
        samecore::passages::Derivation::Non,
    ]
    .into_iter()
    .find(|c| computed.starts_with(c.label()))
    .expect("the computed class is shown");
    assert!(
        !pair.passages.alignment.a_in_b.passages.is_empty(),
        "a cluster's pair shares a passage"
    );
    // The class other than the computed one, recorded by a click.
    let other = if class == samecore::passages::Derivation::Partially {
        samecore::passages::Derivation::Non
    } else {
        samecore::passages::Derivation::Partially
    };
    h.get_by_label(other.label()).click();
    h.run();
    h.get_by_label(&format!("{} (computed)", class.label()));
    h.get_by_label_contains(&format!("Coded: {}", other.label()));
    drop(h);
    let project = samecore::store::Project::open(&path).unwrap();
    let decided = project.derivations().unwrap();
    assert_eq!(decided.len(), 1);
    assert_eq!(decided[0].class, other);
    assert!(!decided[0].by.is_empty());
}

/// A message leaves the messages bar after a while and stays readable under
/// "Earlier messages".
#[test]
fn messages_leave_the_bar_and_stay_under_earlier_messages() {
    let mut app = Workbench::new(true);
    app.set_message_lifetime(std::time::Duration::ZERO);
    let mut h = harness(app);
    h.run();
    h.key_press(Key::F5);
    h.run();
    h.run();
    assert!(
        h.state().messages().is_empty(),
        "{:?}",
        h.state().messages()
    );
    assert_eq!(h.state().earlier_messages(), ["Open an archive first"]);
    h.get_by_label("Earlier messages (1)").click();
    h.run();
    h.get_by_label("Open an archive first");
}

/// Ctrl+F goes to the cluster filter in the Clusters tab, as in Documents.
#[test]
fn ctrl_f_goes_to_the_cluster_filter() {
    let mut h = opened_sample();
    assert_eq!(h.state().tab(), Tab::Clusters);
    h.key_press_modifiers(egui::Modifiers::COMMAND, Key::F);
    h.run();
    h.get_by_label("Filter:");
    let typed = "zzzz-no-such-title";
    h.input_mut().events.push(egui::Event::Text(typed.into()));
    h.run();
    h.get_by_label_contains("0 of");
}

/// "Run with these antecedents" runs SpotSigs again and leaves the other detectors'
/// runs as they were (not run, not stored again).
#[test]
fn running_with_new_antecedents_reruns_spotsigs_alone() {
    let mut h = opened_sample();
    tick_and_run(&mut h, "simhash64");
    let before: Vec<_> = h
        .state()
        .runs()
        .iter()
        .map(|r| r.detection.clone())
        .collect();
    assert_eq!(before.len(), 2);
    h.get_by_label("Antecedents").click();
    h.run();
    h.get_by_label("Run with these antecedents").click();
    h.run();
    let after = h.state().runs();
    let names: Vec<&str> = after.iter().map(|r| r.algo.name()).collect();
    assert_eq!(names, ["spotsigs", "simhash64"]);
    assert!(
        !std::sync::Arc::ptr_eq(&after[0].detection, &before[0]),
        "SpotSigs ran again"
    );
    assert!(
        std::sync::Arc::ptr_eq(&after[1].detection, &before[1]),
        "simhash64 did not"
    );
}

/// Export asks for a path in the window itself (prefilled beside the project), so a
/// desktop without a file-dialog portal still exports.
#[test]
fn export_writes_to_a_typed_path_without_the_native_dialog() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = opened_sample();
    open_project_by_typing(&mut h, &dir.path().join("e.samecore"));
    h.get_by_label("Clusters").click();
    h.run();
    h.get_by_label("Export list…").click();
    h.run();
    h.get_by_label_contains("Write to");
    h.get_by_label("Export").click();
    h.run();
    let written: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".csv"))
        .collect();
    assert_eq!(written.len(), 1, "{written:?} {:?}", h.state().messages());
    assert!(
        h.query_by_label_contains("Write to").is_none(),
        "the window closed"
    );
}

/// Documents shows the selected page's capture history (each capture against the one
/// before) and opens a changed capture beside the previous one.
#[test]
fn documents_show_a_pages_capture_history() {
    let mut h = opened_sample();
    let docs = h.state().workspace().unwrap().collection.docs.clone();
    let all =
        samecore::history::histories(&docs, &Default::default(), &Default::default()).unwrap();
    let changed = all
        .iter()
        .find(|u| {
            u.steps
                .iter()
                .any(|s| s.change != samecore::history::Change::Identical && s.previous.is_some())
        })
        .expect("the sample has a page captured again with a change");
    h.get_by_label("Documents").click();
    h.run();
    h.key_press_modifiers(egui::Modifiers::COMMAND, Key::F);
    h.run();
    h.input_mut()
        .events
        .push(egui::Event::Text(changed.url.clone()));
    h.run();
    h.get_by_label("Documents").click();
    h.run();
    h.key_press(Key::ArrowDown);
    h.run();
    h.get_by_label("Find capture histories").click();
    h.run();
    for step in &changed.steps {
        h.get_by_label(step.change.name());
    }
    h.get_by_label("Compare with previous").click();
    h.run();
    assert_eq!(h.state().tab(), Tab::Pair);
    let pair = h.state().pair().unwrap();
    let step = changed
        .steps
        .iter()
        .find(|s| s.previous.is_some() && s.change != samecore::history::Change::Identical)
        .unwrap();
    assert_eq!((pair.a, pair.b), (step.previous.unwrap(), step.doc));
}

/// A folder of hostile pages (a title of terminal escapes, a formula title, a disguised refresh,
/// scripts, frames, `javascript:` and `file:` links, remote images) opens and runs like any
/// other; an export over one of its pages or into the folder is refused with a message and
/// leaves the page as it was; the page opened as a capture is the inert, framed copy.
#[test]
fn a_hostile_folder_opens_and_no_export_replaces_its_pages() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("pages");
    let story = "The council voted on Tuesday to close the old bridge for repairs that will take \
                 most of the winter, the mayor said, and drivers were told to use the ring road \
                 while engineers replace the steel beams and the worn deck of the bridge.";
    for (name, title) in [
        ("story/a.html", "\u{1b}[2J\u{1b}[31mScreen cleared\u{202e}"),
        ("story/b.html", "=HYPERLINK(\"http://evil.example/\",\"x\")"),
    ] {
        let page = format!(
            "<html><head><title>{title}</title>\
             <meta http-equiv=\"&#114;efresh\" content=\"0;url=http://evil.example/\"></head>\
             <body><script>fetch('http://tracker.example/')</script>\
             <iframe src=\"http://evil.example/\"></iframe><a href=\"javascript:alert(1)\">x</a>\
             <a href=\"file:///etc/passwd\">y</a><img src=\"http://tracker.example/p.gif\">\
             <p>{story}</p></body></html>"
        );
        let path = root.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, page).unwrap();
    }
    let mut app = Workbench::new(true);
    app.open(vec![root.clone()]);
    let mut h = harness(app);
    h.run();
    let ws = h.state().workspace().expect("the hostile folder opens");
    assert_eq!(ws.collection.docs.len(), 2);
    let page = root.join("story/a.html");
    let before = std::fs::read(&page).unwrap();
    for target in [page.clone(), root.join("story/export.csv")] {
        h.state_mut().export_to(
            samecore::gui::export::ExportWhat::Cluster(0),
            target.clone(),
        );
        h.run();
        let said = h.state().messages().join("\n");
        assert!(said.contains("Export refused"), "{said}");
        assert!(!target.ends_with("export.csv") || !target.exists());
    }
    assert_eq!(std::fs::read(&page).unwrap(), before);
    let doc = &h.state().workspace().unwrap().collection.docs[0];
    let capture = samecore::gui::capture::write_capture(doc).unwrap();
    let written = std::fs::read_to_string(&capture).unwrap();
    let _ = std::fs::remove_file(&capture);
    assert!(written.contains("<iframe sandbox "));
    assert!(
        !written.contains("url=http://evil.example/"),
        "the refresh is gone"
    );
    assert!(written.contains("default-src 'none'"));
}

/// A story coded from the keyboard: the codebook's story variables beside the clusters, key 2
/// gives the first one-value variable its second value, "not applicable" and Undo value work,
/// and each answer is the annotator's own value in the project, under the codebook's version.
#[test]
fn a_story_is_coded_with_the_keyboard_as_the_annotators_own_value() {
    use samecore::codebook::Answer;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("study.samecore");
    {
        let mut project = samecore::store::Project::open(&file).unwrap();
        let book = samecore::codebook::Codebook::from_file_text(
            r#"{"variables": [
              {"name": "tone", "question": "Tone towards the government?", "level": "ordinal",
               "kind": "one", "unit": "story", "not_applicable": 98,
               "values": [{"code": 1, "label": "negative"}, {"code": 2, "label": "neutral"},
                          {"code": 3, "label": "positive"}]},
              {"name": "actors", "level": "nominal", "kind": "several", "unit": "story",
               "values": [{"code": 1, "label": "government"}, {"code": 2, "label": "opposition"}]}
            ]}"#,
        )
        .unwrap();
        project.save_codebook(&book, "lead", "pilot").unwrap();
    }
    let mut h = opened_sample();
    open_project_by_typing(&mut h, &file);
    h.set_annotator_for_test("ana");
    h.key_press(Key::N);
    h.run();
    h.get_by_label_contains("Story variables (codebook v1)");
    h.get_by_label("0 of 2 coded by ana");
    h.key_press(Key::Num2);
    h.run();
    h.get_by_label("1 of 2 coded by ana");
    click(&mut h, "2 opposition");
    h.get_by_label("2 of 2 coded by ana");
    let tone = |file: &std::path::Path| {
        let project = samecore::store::Project::open(file).unwrap();
        let values = project.values().unwrap();
        let v = values.iter().find(|v| v.variable == "tone").cloned();
        v.map(|v| (v.coder, v.answer, v.version))
    };
    assert_eq!(
        tone(&file),
        Some(("ana".into(), Answer::Value("2".into()), 1))
    );
    click(&mut h, "not applicable");
    assert_eq!(tone(&file).map(|t| t.1), Some(Answer::NotApplicable));
    click(&mut h, "Undo value");
    assert_eq!(tone(&file).map(|t| t.1), Some(Answer::Value("2".into())));
}

/// Select all of the focused text field and type `text` over it.
fn retype(h: &mut Harness<'_, Workbench>, label: &str, text: &str) {
    h.get_by_label(label).focus();
    h.run();
    h.key_press_modifiers(egui::Modifiers::COMMAND, Key::A);
    h.run();
    h.get_by_label(label).type_text(text);
    h.run();
}

/// The codebook written in the Codebook tab (Alt+8): a variable added, named, asked, given an
/// ordinal level, three labelled values and "not applicable", saved with Ctrl+S as version 1;
/// a second variable whose name is taken is named as the mistake and cannot be saved until it
/// is fixed; Remove and Undo; the saved version written to its file and read back the same; a
/// file with an unknown level is refused and the editor unchanged.
#[test]
fn the_codebook_is_written_in_its_tab_checked_saved_undone_and_filed() {
    use samecore::agreement::Level;
    use samecore::codebook::{Codebook, Kind, UnitKind};
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("book.samecore");
    let mut h = opened_sample();
    open_project_by_typing(&mut h, &file);
    h.set_annotator_for_test("lead");
    h.key_press_modifiers(egui::Modifiers::ALT, Key::Num8);
    h.run();
    assert_eq!(h.state().tab(), Tab::Codebook);
    h.get_by_label("no version saved yet");
    click(&mut h, "Add variable");
    retype(&mut h, "Name", "tone");
    h.get_by_label("Question").focus();
    h.run();
    h.get_by_label("Question")
        .type_text("Tone towards the government?");
    h.run();
    click(&mut h, "Level");
    click(&mut h, "ordinal");
    h.get_by_label_contains("needs its numbered values");
    for label in ["negative", "neutral", "positive"] {
        click(&mut h, "Add value");
        h.get_all_by_label("Label").last().unwrap().type_text(label);
        h.run();
    }
    click(&mut h, "Not applicable");
    h.get_by_label_contains("Changed, and well made");
    h.key_press_modifiers(egui::Modifiers::COMMAND, Key::S);
    h.run();
    let saved = || {
        samecore::store::Project::open(&file)
            .unwrap()
            .codebook()
            .unwrap()
    };
    let book = saved();
    assert_eq!(book.version, 1);
    let tone = &book.variables[0];
    assert_eq!(tone.name, "tone");
    assert_eq!(tone.question, "Tone towards the government?");
    assert_eq!(
        (tone.level, tone.kind, tone.unit),
        (Level::Ordinal, Kind::One, UnitKind::Story)
    );
    assert_eq!(tone.list(), "1 = negative, 2 = neutral, 3 = positive");
    assert_eq!(tone.not_applicable, Some(98));
    h.get_by_label_contains("version 1 saved by lead");

    // A second variable named like the first: the mistake is named, Save stays off.
    click(&mut h, "Add variable");
    click(&mut h, "Answer");
    click(&mut h, "a number");
    retype(&mut h, "Name", "Tone");
    h.get_by_label_contains("\"Tone\" is defined twice");
    h.key_press_modifiers(egui::Modifiers::COMMAND, Key::S);
    h.run();
    assert_eq!(
        saved().version,
        1,
        "a codebook with a mistake is not stored"
    );
    retype(&mut h, "Name", "sources");
    h.get_by_label_contains("Changed, and well made");
    click(&mut h, "Save as version 2");
    let book = saved();
    assert_eq!(book.version, 2);
    assert_eq!(book.variables[1].name, "sources");
    assert_eq!(book.variables[1].level, Level::Interval);

    // Remove, then Undo brings it back (clicks outside a text field first).
    click(&mut h, "Remove");
    h.get_by_label("Variables (1)");
    click(&mut h, "Undo");
    h.get_by_label("Variables (2)");
    h.get_by_label_contains("nothing changed");

    // The saved version to its file beside the project, and back.
    click(&mut h, "Write version 2");
    let written = dir.path().join("book.samecore.codebook.json");
    let text = std::fs::read_to_string(&written).expect("the codebook file");
    assert_eq!(
        Codebook::from_file_text(&text).unwrap().variables,
        book.variables
    );
    click(&mut h, "Write appendix (.md)");
    let md = std::fs::read_to_string(dir.path().join("book.samecore.codebook.md")).unwrap();
    assert!(
        md.contains("## tone") && md.contains("| 98 | not applicable |"),
        "{md}"
    );

    // A file with an unknown level is refused; the editor keeps what it had.
    let bad = dir.path().join("bad.json");
    std::fs::write(
        &bad,
        r#"{"variables": [{"name": "x", "level": "nominalish", "kind": "note"}]}"#,
    )
    .unwrap();
    retype(&mut h, "File", bad.to_str().unwrap());
    click(&mut h, "Read into the editor");
    h.get_by_label_contains("the editor is unchanged");
    h.get_by_label("Variables (2)");
    // The project's own file is never written over.
    retype(&mut h, "File", file.to_str().unwrap());
    let before = std::fs::read(&file).unwrap();
    click(&mut h, "Write version 2");
    let said = h.state().messages().join("\n");
    assert!(said.contains("is the project"), "{said}");
    assert_eq!(std::fs::read(&file).unwrap(), before);
}

/// A page variable beside the story's: with a member selected (J), the panel shows the page's
/// variables under its title; keys walk from the story's variable to the page's, 2 answers it,
/// and the value is the annotator's own on that page.
#[test]
fn a_page_variable_is_coded_on_the_selected_member() {
    use samecore::codebook::Answer;
    use samecore::store::values::Unit;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("pages.samecore");
    {
        let mut project = samecore::store::Project::open(&file).unwrap();
        let book = samecore::codebook::Codebook::from_file_text(
            r#"{"variables": [
              {"name": "tone", "level": "nominal", "kind": "one", "unit": "story",
               "values": [{"code": 1, "label": "negative"}, {"code": 2, "label": "positive"}]},
              {"name": "genre", "level": "nominal", "kind": "one", "unit": "page",
               "cannot_code": 99,
               "values": [{"code": 1, "label": "news"}, {"code": 2, "label": "opinion"}]}
            ]}"#,
        )
        .unwrap();
        project.save_codebook(&book, "lead", "pilot").unwrap();
    }
    let mut h = opened_sample();
    open_project_by_typing(&mut h, &file);
    h.set_annotator_for_test("ana");
    h.key_press(Key::N);
    h.run();
    h.key_press(Key::J);
    h.run();
    h.get_by_label("Page variables");
    assert_eq!(h.get_all_by_label("0 of 1 coded by ana").count(), 2);
    // The story's variable first, then Down to the page's, and its second value.
    h.key_press(Key::ArrowDown);
    h.run();
    h.key_press(Key::Num2);
    h.run();
    let values = samecore::store::Project::open(&file)
        .unwrap()
        .values()
        .unwrap();
    let genre: Vec<_> = values.iter().filter(|v| v.variable == "genre").collect();
    assert_eq!(genre.len(), 1, "{values:?}");
    assert!(matches!(genre[0].unit, Unit::Page(_)));
    assert_eq!(
        (genre[0].coder.as_str(), &genre[0].answer),
        ("ana", &Answer::Value("2".into()))
    );
    assert!(
        values.iter().all(|v| v.variable != "tone"),
        "the story is not coded"
    );
    // Backspace: "cannot code" on the page.
    h.key_press(Key::Backspace);
    h.run();
    let values = samecore::store::Project::open(&file)
        .unwrap()
        .values()
        .unwrap();
    let genre = values.iter().find(|v| v.variable == "genre").unwrap();
    assert_eq!(genre.answer, Answer::CannotCode);
}

/// The reliability round of the target: 50 stories, two coders, five variables (one value,
/// ordinal, several values, a number, one value with "cannot code"), coded in the workbench
/// from the keyboard only — ↑ ↓ and digits answer, a number is typed and saved with Enter, `]`
/// moves to the round's next story —, then the Reliability tab (Alt+7) shows alpha as the
/// library computes it, and a disagreement is adjudicated by a key and the adjudication undone.
#[test]
fn a_reliability_round_is_coded_from_the_keyboard_and_a_disagreement_adjudicated() {
    use samecore::store::values::{Role, Unit};
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("round.samecore");
    let mut h = opened_sample();
    open_project_by_typing(&mut h, &file);
    // The codebook and the round, written by the lead's command line beside the workbench.
    let run = {
        let mut project = samecore::store::Project::open(&file).unwrap();
        let run = project.runs().unwrap().last().unwrap().id;
        let book = samecore::codebook::Codebook::from_file_text(
            r#"{"variables": [
              {"name": "topic", "level": "nominal", "kind": "one", "unit": "story",
               "values": [{"code": 1, "label": "politics"}, {"code": 2, "label": "economy"},
                          {"code": 3, "label": "sport"}, {"code": 4, "label": "culture"}]},
              {"name": "tone", "level": "ordinal", "kind": "one", "unit": "story",
               "not_applicable": 98,
               "values": [{"code": 1, "label": "very negative"}, {"code": 2, "label": "negative"},
                          {"code": 3, "label": "neutral"}, {"code": 4, "label": "positive"},
                          {"code": 5, "label": "very positive"}]},
              {"name": "actors", "level": "nominal", "kind": "several", "unit": "story",
               "values": [{"code": 1, "label": "government"}, {"code": 2, "label": "opposition"},
                          {"code": 3, "label": "experts"}]},
              {"name": "sources", "level": "ratio", "kind": "number", "unit": "story"},
              {"name": "frame", "level": "nominal", "kind": "one", "unit": "story",
               "cannot_code": 99,
               "values": [{"code": 1, "label": "conflict"}, {"code": 2, "label": "human interest"},
                          {"code": 3, "label": "responsibility"}]}
            ]}"#,
        )
        .unwrap();
        project.save_codebook(&book, "lead", "round 1").unwrap();
        let coders = ["ana".to_string(), "ben".to_string()];
        let round = samecore::coding::round::draw(
            &project,
            "r1",
            run,
            None,
            50,
            samecore::coding::round::Strata::None,
            7,
            &coders,
            true,
            "lead",
        )
        .unwrap();
        project.save_round(&round).unwrap();
        run
    };
    // The workbench sees the other samecore's commit and reads the codebook and round.
    for _ in 0..20 {
        h.run();
        if h.query_by_label_contains("Round r1").is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let units: Vec<i64> = samecore::store::Project::open(&file)
        .unwrap()
        .round("r1")
        .unwrap()
        .units
        .iter()
        .map(|(c, _)| *c)
        .collect();
    assert_eq!(units.len(), 50);
    // Each coder's answers for the i-th story: ben differs on topic every fifth story and on
    // the number of sources every seventh.
    let answers = |coder: &str, i: usize| {
        let ben = coder == "ben";
        let topic = if ben && i.is_multiple_of(5) {
            (i + 1) % 4 + 1
        } else {
            i % 4 + 1
        };
        let tone = i % 5 + 1;
        let actor = i % 3 + 1;
        let sources = if ben && i.is_multiple_of(7) {
            i + 1
        } else {
            i % 6
        };
        let frame = if i.is_multiple_of(11) {
            None
        } else {
            Some(i % 3 + 1)
        };
        (topic, tone, actor, sources, frame)
    };
    let digit = |d: usize| Key::from_name(&d.to_string()).expect("a digit key");
    for coder in ["ana", "ben"] {
        h.set_annotator_for_test(coder);
        h.get_by_label("Round r1");
        // U: the first story of the round the coder has not coded.
        h.key_press(Key::U);
        h.run();
        for (i, &unit) in units.iter().enumerate() {
            h.get_by_label(&format!("story {} of 50", i + 1));
            assert_eq!(h.state().selected_cluster(), Some(unit as u32), "story {i}");
            let (topic, tone, actor, sources, frame) = answers(coder, i);
            for key in [digit(topic), digit(tone), digit(actor), Key::ArrowDown] {
                h.key_press(key);
                h.run();
            }
            // The number field has the keyboard now.
            h.event(egui::Event::Text(sources.to_string()));
            h.run();
            h.key_press(Key::Enter);
            h.run();
            h.key_press(match frame {
                Some(f) => digit(f),
                None => Key::Backspace,
            });
            h.run();
            h.get_by_label(&format!("5 of 5 coded by {coder}"));
            h.key_press(Key::CloseBracket);
            h.run();
        }
        h.get_by_label(&format!("· 50 coded by {coder}"));
    }
    let project = samecore::store::Project::open(&file).unwrap();
    let values = project.values().unwrap();
    assert_eq!(
        values.len(),
        2 * 50 * 5,
        "every value kept as its coder's own"
    );
    for (i, &unit) in units.iter().enumerate() {
        let unit = Unit::Story { run, cluster: unit };
        for coder in ["ana", "ben"] {
            let (topic, _, actor, sources, frame) = answers(coder, i);
            let of = |var: &str| {
                values
                    .iter()
                    .find(|v| v.unit == unit && v.coder == coder && v.variable == var)
                    .map(|v| v.answer.clone())
                    .unwrap()
            };
            use samecore::codebook::Answer;
            assert_eq!(of("topic"), Answer::Value(topic.to_string()));
            assert_eq!(of("actors"), Answer::Value(actor.to_string()));
            assert_eq!(of("sources"), Answer::Value(sources.to_string()));
            assert_eq!(
                of("frame"),
                frame.map_or(Answer::CannotCode, |f| Answer::Value(f.to_string()))
            );
        }
    }
    // Alpha as the library computes it, shown in the Reliability tab.
    let expected = samecore::coding::reliability::agreement(
        &project,
        &samecore::agreement::BootstrapConfig {
            resamples: 100,
            ..Default::default()
        },
    )
    .unwrap();
    let topic = expected.iter().find(|a| a.variable == "topic").unwrap();
    let alpha = topic.alpha.unwrap();
    assert!(alpha > 0.5 && alpha < 1.0, "{alpha}");
    h.key_press_modifiers(egui::Modifiers::ALT, Key::Num7);
    h.run();
    assert_eq!(h.state().tab(), Tab::Reliability);
    h.get_by_label("Agreement of the coders");
    h.get_by_label(&format!("{alpha:.3}"));
    let sources = expected.iter().find(|a| a.variable == "sources").unwrap();
    h.get_by_label(&format!("{:.3}", sources.alpha.unwrap()));
    let open = samecore::coding::reliability::disagreements(&project).unwrap();
    h.get_by_label_contains(&format!("{} unit(s) still in disagreement", open.len()));
    // The first disagreement on topic, picked from the list; key 3 sets the codebook's third
    // value as final.
    let first = open.iter().find(|d| d.variable == "topic").unwrap().clone();
    h.get_all_by_label_contains(&format!("topic · {} · ", first.unit))
        .next()
        .unwrap()
        .click();
    h.run();
    h.get_by_label_contains(&format!("topic on {}", first.unit));
    h.key_press(Key::Num3);
    h.run();
    h.get_by_label_contains(&format!(
        "{} unit(s) still in disagreement · 1 final value(s) set",
        open.len() - 1
    ));
    let finals: Vec<_> = samecore::store::Project::open(&file)
        .unwrap()
        .values()
        .unwrap()
        .into_iter()
        .filter(|v| v.role == Role::Final)
        .collect();
    assert_eq!(finals.len(), 1);
    assert_eq!(finals[0].unit, first.key);
    assert_eq!(finals[0].variable, "topic");
    assert_eq!(
        finals[0].answer,
        samecore::codebook::Answer::Value("3".into())
    );
    assert_eq!(finals[0].coder, "ben");
    click(&mut h, "Undo final value");
    h.get_by_label_contains(&format!(
        "{} unit(s) still in disagreement · 0 final value(s) set",
        open.len()
    ));
    let said = h.state().messages().join("\n");
    assert!(said.contains("Undone: ben's final value of"), "{said}");
}

/// A coder's package opened in the workbench (as `samecore PACKAGE` or a drop does): the
/// coding-only view, keys 1–9 answer the story's variable and the answer is in the package at
/// once, `]` moves to the next story, Ctrl+Z undoes, U goes to the first story not coded, and
/// the package merges into the project with the coder's values.
#[test]
fn a_package_is_coded_in_the_workbench_and_merged() {
    use samecore::codebook::Answer;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("study.samecore");
    std::fs::copy(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/projects/v5.samecore"),
        &file,
    )
    .unwrap();
    let mut project = samecore::store::Project::open(&file).unwrap();
    // The fixture names the sample archive where it was made: point it at this checkout's.
    project
        .relocate(&PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sample_archives"))
        .unwrap();
    let run = project.runs().unwrap()[0].id;
    let coders = vec!["ana".to_string(), "ben".to_string()];
    let round = samecore::coding::round::draw(
        &project,
        "home",
        run,
        None,
        3,
        samecore::coding::round::Strata::None,
        11,
        &coders,
        true,
        "lead",
    )
    .unwrap();
    project.save_round(&round).unwrap();
    let written =
        samecore::package::assign(&mut project, "home", Some(&coders[..1]), dir.path(), "lead")
            .unwrap();
    let package = written[0].file.clone();
    let mut app = Workbench::new(true);
    app.open(vec![package.clone()]);
    let mut h = harness(app);
    h.run();
    assert_eq!(
        h.state().package_title().as_deref(),
        Some("Round home for ana")
    );
    let coded = |p: &std::path::Path| {
        samecore::package::Package::open_read(p)
            .unwrap()
            .values()
            .unwrap()
    };
    // The view starts at the first story ana has not coded; 2 answers it.
    h.get_by_label_contains("stories coded");
    h.key_press(Key::Num2);
    h.run();
    let first = coded(&package);
    assert_eq!(first.len(), 1, "{first:?}");
    assert_eq!(first[0].answer, Answer::Value("2".into()));
    // Undo, then answer again with 3; U moves on to a story not coded, 0 is "not applicable".
    h.key_press_modifiers(egui::Modifiers::COMMAND, Key::Z);
    h.run();
    assert!(coded(&package).is_empty());
    // The keys moved on to the page's variable; Up goes back to the story's.
    h.key_press(Key::ArrowUp);
    h.run();
    h.key_press(Key::Num3);
    h.run();
    // The answer moves the keys on to the page variable of the story's first page.
    h.get_by_label_contains("Page 1 of");
    h.key_press(Key::Num1);
    h.run();
    let on_page: Vec<_> = coded(&package)
        .into_iter()
        .filter(|v| v.page.is_some())
        .collect();
    assert_eq!(on_page.len(), 1, "{on_page:?}");
    assert_eq!(on_page[0].variable, "genre");
    h.key_press(Key::U);
    h.run();
    h.key_press(Key::Num0);
    h.run();
    let now: Vec<_> = coded(&package)
        .into_iter()
        .filter(|v| v.page.is_none())
        .collect();
    assert_eq!(now.len(), 2, "{now:?}");
    assert!(now.iter().any(|v| v.answer == Answer::NotApplicable));
    assert_ne!(now[0].position, now[1].position);
    click(&mut h, "Close package");
    assert!(h.state().package_title().is_none());
    let report = samecore::package::merge(&mut project, &[package], "lead").unwrap();
    assert_eq!(report.packages[0].coder, "ana");
    let ana: Vec<_> = project
        .values()
        .unwrap()
        .into_iter()
        .filter(|v| v.coder == "ana" && v.variable == "tone")
        .collect();
    assert!(ana.iter().any(|v| v.answer == Answer::NotApplicable));
}

/// A coder's package of pairs opened in the workbench: the labelling bar over the pair view,
/// C labels the pair and moves on, a digit gives the reason, Ctrl+Z undoes, the aligned
/// passages (A) offer the derivation class, which is saved in the package; the merge brings the
/// labels and the class into the sample under the coder.
#[test]
fn a_package_of_pairs_is_judged_in_the_workbench_and_merged() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("pairs.samecore");
    std::fs::copy(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/projects/v6.samecore"),
        &file,
    )
    .unwrap();
    let mut project = samecore::store::Project::open(&file).unwrap();
    project
        .relocate(&PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sample_archives"))
        .unwrap();
    let written = samecore::package::assign_sample(
        &mut project,
        "pairs1",
        &["dora".to_string()],
        dir.path(),
        "lead",
    )
    .unwrap();
    let package = written[0].file.clone();
    let mut app = Workbench::new(true);
    app.open(vec![package.clone()]);
    let mut h = harness(app);
    h.run();
    assert_eq!(
        h.state().package_title().as_deref(),
        Some("Sample pairs1 for dora")
    );
    let labels = |p: &std::path::Path| {
        samecore::package::Package::open_read(p)
            .unwrap()
            .labels()
            .unwrap()
    };
    h.get_by_label_contains("Labelling pairs1 as dora");
    // Reason 1 then C: the first pair is correct (URL only), and the bar moves to the second.
    h.key_press(Key::Num1);
    h.key_press(Key::C);
    h.run();
    let first = labels(&package);
    assert_eq!(first.len(), 1, "{first:?}");
    assert_eq!(first[0].position, 0);
    assert_eq!(first[0].label.verdict, samecore::labels::Verdict::Correct);
    assert_eq!(
        first[0].label.reason,
        Some(samecore::labels::Reason::ALL[0])
    );
    h.get_by_label_contains("Pair 2 of 12");
    h.key_press(Key::I);
    h.run();
    assert_eq!(labels(&package).len(), 2);
    h.key_press_modifiers(egui::Modifiers::COMMAND, Key::Z);
    h.run();
    assert_eq!(labels(&package).len(), 1);
    // The aligned passages of the second pair, and its class.
    h.key_press(Key::A);
    h.run();
    h.get_by_label_contains("non-derived").click();
    h.run();
    let p = samecore::package::Package::open_read(&package).unwrap();
    let class = p.derivation(1).unwrap();
    assert!(
        matches!(class, Some((_, samecore::passages::Derivation::Non, _))),
        "{class:?}"
    );
    drop(p);
    click(&mut h, "Close package");
    let report = samecore::package::merge(&mut project, &[package], "lead").unwrap();
    // The label and the one undone.
    assert_eq!(report.packages[0].labels_in, 2, "{report:?}");
    assert_eq!(report.packages[0].derivations_in, 1, "{report:?}");
    let sample = project.sample_by_name("pairs1").unwrap();
    let dora: Vec<_> = (project.labels(sample.id).unwrap().into_iter())
        .filter(|l| l.annotator == "dora")
        .collect();
    assert_eq!(dora.len(), 1, "{dora:?}");
    assert!(
        project
            .derivations()
            .unwrap()
            .iter()
            .any(|d| d.by == "dora" && d.class == samecore::passages::Derivation::Non)
    );
}

/// Assign… and Merge… in the project panel: the packages of a round written beside the
/// project, one coded, merged back with the report shown.
#[test]
fn packages_are_assigned_and_merged_from_the_project_panel() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("study.samecore");
    std::fs::copy(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/projects/v5.samecore"),
        &file,
    )
    .unwrap();
    samecore::store::Project::open(&file)
        .unwrap()
        .relocate(&PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sample_archives"))
        .unwrap();
    let mut h = opened_sample();
    open_project_by_typing(&mut h, &file);
    h.set_annotator_for_test("lead");
    click(&mut h, "Coders' packages");
    click(&mut h, "Assign…");
    let ana = dir.path().join("r1-ana.samecore-package");
    let said = h.state().messages().join("\n");
    assert!(
        ana.is_file() && said.contains("Package for ana: 4 stories"),
        "{said}"
    );
    {
        let mut p = samecore::package::Package::open(&ana).unwrap();
        p.set_value(0, "tone", "3").unwrap();
    }
    h.get_by_label("Packages to merge (one path a line)")
        .focus();
    h.run();
    h.get_by_label("Packages to merge (one path a line)")
        .type_text(ana.to_str().unwrap());
    h.run();
    click(&mut h, "Merge…");
    h.get_by_label_contains("4 of 4 stories coded; 1 values in, 0 already there");
}

/// Assign… a sample of pairs from the project panel: chosen beside the rounds, its coders typed,
/// one package per coder written with the sample's pairs.
#[test]
fn a_sample_is_assigned_from_the_project_panel() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("pairs.samecore");
    std::fs::copy(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/projects/v6.samecore"),
        &file,
    )
    .unwrap();
    samecore::store::Project::open(&file)
        .unwrap()
        .relocate(&PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sample_archives"))
        .unwrap();
    let mut h = opened_sample();
    open_project_by_typing(&mut h, &file);
    h.set_annotator_for_test("lead");
    click(&mut h, "Coders' packages");
    h.get_by_label("Assign").click();
    h.run();
    click(&mut h, "sample pairs1");
    // No coder named yet: Assign… does nothing.
    click(&mut h, "Assign…");
    assert!(!dir.path().join("pairs1-eve.samecore-package").exists());
    h.get_by_label("Coders (comma-separated)").focus();
    h.run();
    h.get_by_label("Coders (comma-separated)")
        .type_text("eve, finn");
    h.run();
    click(&mut h, "Assign…");
    for _ in 0..50 {
        h.run();
        if dir.path().join("pairs1-finn.samecore-package").is_file() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let said = h.state().messages().join("\n");
    assert!(said.contains("Package for eve: 12 pairs"), "{said}");
    let p = samecore::package::Package::open_read(&dir.path().join("pairs1-finn.samecore-package"))
        .unwrap();
    assert_eq!(p.pair_count().unwrap(), 12);
}

/// Who is coding is asked in the Project panel and shown in the window's title; the help lists
/// Ctrl+F once.
#[test]
fn the_coder_is_named_in_the_project_panel_and_the_title() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("who.samecore");
    let mut h = opened_sample();
    open_project_by_typing(&mut h, &file);
    let title = h
        .state()
        .window_title_text()
        .unwrap_or_default()
        .to_string();
    assert!(title.starts_with("samecore — who.samecore"), "{title}");
    retype(&mut h, "Coding as", "ana");
    h.key_press(Key::Tab);
    h.run();
    assert_eq!(h.state().annotator(), "ana");
    assert_eq!(
        h.state().window_title_text(),
        Some("samecore — who.samecore — coding as ana")
    );
    h.key_press(Key::F1);
    h.run();
    assert_eq!(h.get_all_by_label("Ctrl+F").count(), 1);
}

/// The cluster list has a Codes column (the coder's story values and the tag codes) and shows
/// only the clusters coded, or not coded yet, on request.
#[test]
fn the_cluster_list_shows_codes_and_filters_coded_clusters() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("codes.samecore");
    {
        let mut project = samecore::store::Project::open(&file).unwrap();
        let book = samecore::codebook::Codebook::from_file_text(
            r#"{"variables": [{"name": "tone", "level": "nominal", "kind": "one",
                "values": [{"code": 1, "label": "negative"}, {"code": 2, "label": "positive"}]}]}"#,
        )
        .unwrap();
        project.save_codebook(&book, "lead", "").unwrap();
    }
    let mut h = opened_sample();
    open_project_by_typing(&mut h, &file);
    h.set_annotator_for_test("ana");
    h.get_by_label("Clusters").click();
    h.run();
    h.key_press(Key::N);
    h.run();
    h.key_press(Key::Num2);
    h.run();
    assert!(h.get_all_by_label("Codes").count() >= 2, "list and members");
    h.get_by_label("tone=2");
    click(&mut h, "Show");
    click(&mut h, "coded");
    let said = label_starting(&h, "clusters listed are coded");
    assert!(said.starts_with("1 of "), "{said}");
    click(&mut h, "Show");
    click(&mut h, "not coded");
    assert!(h.query_by_label("tone=2").is_none());
}

/// Ctrl+B (or the top bar's button) hides the side panel and brings it back.
#[test]
fn the_side_panel_hides_and_comes_back() {
    let mut h = opened_sample();
    h.get_by_label("Inputs");
    h.key_press_modifiers(egui::Modifiers::COMMAND, Key::B);
    h.run();
    assert!(h.query_by_label("Inputs").is_none());
    click(&mut h, "Show side panel");
    h.get_by_label("Inputs");
}

/// An empty result says why: no two pages reached the threshold, how many pages were left out
/// for too few signatures, and what to try.
#[test]
fn an_empty_result_says_why_and_what_to_try() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("a.html"),
        "<html><body><p>Short one.</p></body></html>",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("b.html"),
        "<html><body><p>Another.</p></body></html>",
    )
    .unwrap();
    let mut app = Workbench::new(true);
    app.open(vec![dir.path().to_path_buf()]);
    let mut h = harness(app);
    h.run();
    h.get_by_label("Clusters").click();
    h.run();
    h.get_by_label_contains("No two of the 2 pages reached the spotsigs threshold");
    h.get_by_label_contains("2 of them were left out for too few signatures");
    h.get_by_label_contains("To try: lower the threshold");
}

/// At 1024×700 the members table says which of its columns are out of sight.
#[test]
fn the_members_table_names_the_columns_out_of_sight() {
    let mut app = Workbench::new(true);
    app.open(vec![sample_archive()]);
    let mut h = Harness::builder()
        .with_size(egui::vec2(1024.0, 700.0))
        .build_ui_state(|ui, app: &mut Workbench| app.ui(ui), app);
    h.run();
    h.get_by_label("Clusters").click();
    h.run();
    h.key_press(Key::N);
    h.run();
    let said = label_starting(&h, "Scroll sideways for");
    assert!(said.contains("URL / record"), "{said}");
}

/// Ctrl+K, a query, Enter: the stories the library finds, one row each with the hits of its
/// snippet; every story coded with one click (one undo takes it back); a click on a story
/// opens it in the cluster list.
#[test]
fn ctrl_k_searches_the_cores_codes_every_story_found_and_opens_one() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("s.samecore");
    let mut h = opened_sample();
    open_project_by_typing(&mut h, &file);
    add_and_select_code(&mut h, "zoning");
    // From another tab: Ctrl+K goes to the Clusters tab's search bar.
    click(&mut h, "Documents");
    h.key_press_modifiers(egui::Modifiers::COMMAND, Key::K);
    h.run();
    h.run();
    assert_eq!(h.state().tab(), Tab::Clusters);
    h.input_mut().events.push(egui::Event::Text(
        "zoning OR \"planning commission\"".into(),
    ));
    h.run();
    h.key_press(Key::Enter);
    h.run();
    h.run();
    // The library's answer on the same project.
    let project = samecore::store::Project::open(&file).unwrap();
    let run = project.runs().unwrap().last().unwrap().id;
    let (index, _) =
        samecore::search::SearchIndex::open(&project, &samecore::progress::Progress::new())
            .unwrap();
    let stories = samecore::search::Stories::load(&project, Some(run)).unwrap();
    let expected = index
        .search(
            &stories,
            "zoning OR \"planning commission\"",
            &Default::default(),
        )
        .unwrap();
    assert!(expected.story_count > 3);
    let heading = label_starting(&h, &format!("{} stories (", expected.story_count));
    assert!(
        heading.contains(&format!("({} pages)", expected.page_count)),
        "{heading}"
    );
    // Code them all.
    h.get_by_label("Code every story found with").click();
    h.run();
    let options = h.get_all_by_label("zoning").collect::<Vec<_>>();
    options.last().unwrap().click();
    h.run();
    click(&mut h, &format!("Code {} stories", expected.story_count));
    h.run();
    let coded: std::collections::HashSet<i64> = project
        .page_codes()
        .unwrap()
        .iter()
        .filter(|c| c.applied && c.code == "zoning")
        .filter_map(|c| project.cluster_of(run, c.page).unwrap())
        .collect();
    let found: std::collections::HashSet<i64> =
        expected.stories.iter().filter_map(|s| s.cluster).collect();
    assert_eq!(coded, found);
    // A click on the first story's title opens it.
    let first = expected.stories[0].cluster.unwrap();
    let title = &expected.stories[0].title;
    h.get_all_by_label_contains(&format!("1. {title}"))
        .find(|n| {
            let a = n.accesskit_node();
            (a.label().or_else(|| a.value()))
                .unwrap_or_default()
                .starts_with("1. ")
        })
        .unwrap()
        .click();
    h.run();
    assert_eq!(h.state().selected_cluster(), Some(first as u32));
}
