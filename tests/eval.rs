//! The quality bar on goldset-dev at the default settings: document-level precision of
//! at least 0.95 and recall of at least 0.88, pairwise F1 of at least 0.88, averaged over three
//! random orders — and the
//! `samecore run` / `samecore eval` output formats other tools script against.
//!
//! Reads `../shared/data/goldset-dev`; skips when it is absent unless
//! `SAMECORE_REQUIRE_SHARED=1`.

use std::path::Path;

use samecore::detectors::{self, Algo, DetectorOptions, RunSpec};
use samecore::eval::{GoldStandard, sweep};
use samecore::progress::Progress;

mod common;

use common::samecore;

#[test]
fn default_spotsigs_reaches_the_quality_bar_on_goldset_dev() {
    let Some(coll) = common::goldset_collection() else {
        return;
    };
    assert_eq!(coll.docs.len(), 1117);
    let gold = GoldStandard::from_documents(&coll.docs);
    assert_eq!(gold.names.len(), 34);
    let det = detectors::detector(Algo::SpotSigs, &DetectorOptions::default()).unwrap();
    let prep = det.prepare(&coll.docs, &Progress::new()).unwrap();
    let spec = RunSpec::default_for(Algo::SpotSigs);
    let rows = sweep(
        &*prep,
        &spec,
        &[spec.matching.threshold],
        &[0, 1, 2],
        &gold.cluster_of,
        &Progress::new(),
    )
    .unwrap();
    let m = rows[0].mean;
    eprintln!(
        "default SpotSigs on goldset-dev: {m:?} (sd {:?})",
        rows[0].sd
    );
    assert!(m.document.precision >= 0.95, "document precision {m:?}");
    assert!(m.document.recall >= 0.88, "document recall {m:?}");
    assert!(m.pairwise.f1 >= 0.88, "pairwise F1 {m:?}");
    // Better than the published Java code on the whole gold set (F1 0.77; P 0.94 / R 0.83).
    assert!(m.bcubed.f1 >= 0.85, "B-cubed {m:?}");
}

/// The link share (issue: clusters a researcher can trust): on the deal of goldset-dev's
/// clusters whose one half chooses a low threshold on its easy clusters, cross-validated
/// document precision reaches 0.985 with the default share and not without it, and the
/// clusters of 5+ pages below 0.9 gold purity fall.
#[test]
fn the_link_share_keeps_cross_validated_precision_where_the_threshold_is_chosen_low() {
    let Some(coll) = common::goldset_collection() else {
        return;
    };
    let gold = GoldStandard::from_documents(&coll.docs);
    let det = detectors::detector(Algo::SpotSigs, &DetectorOptions::default()).unwrap();
    let thresholds: Vec<f64> = (1..=30).map(|i| f64::from(i) * 0.02).collect();
    let seeds: Vec<u64> = (0..5).collect();
    let cv = |share: f64| {
        let mut spec = RunSpec::default_for(Algo::SpotSigs);
        spec.matching.link_share = share;
        spec.matching.cross_links = 0.0;
        let folds = samecore::eval::cv::cross_validate(
            det.as_ref(),
            &coll.docs,
            &gold.cluster_of,
            &gold.names,
            &spec,
            &thresholds,
            &seeds,
            &samecore::eval::cv::CvPlan::new(2),
            &Progress::new(),
        )
        .unwrap();
        let doc_p = folds
            .iter()
            .map(|f| f.test.mean.document.precision)
            .sum::<f64>()
            / 2.0;
        let impure: f64 = folds.iter().map(|f| f.test.impure.mean).sum();
        (doc_p, impure, folds)
    };
    let (with, with_impure, folds) = cv(samecore::matching::DEFAULT_LINK_SHARE);
    let (without, without_impure, old) = cv(0.0);
    eprintln!("doc P {with:.3} (impure {with_impure}) against {without:.3} ({without_impure})");
    assert!(
        old.iter().any(|f| f.train.threshold <= 0.08),
        "the deal has an easy half that chooses low"
    );
    assert!(with >= 0.985, "doc P with the link share {with}");
    assert!(without < 0.975, "doc P without it {without}");
    assert!(with_impure < without_impure);
    for f in &folds {
        assert!(f.test.mean.pairwise.f1 >= 0.95, "{f:?}");
        assert!(f.test.mean.document.recall >= 0.95, "{f:?}");
    }
    assert_eq!(RunSpec::default_for(Algo::MinHash).matching.link_share, 0.0);
}

/// Cross links (issue: a member must be similar to enough of its cluster): on the whole of
/// goldset-dev at a low and the default threshold over 10 seeds, the default fraction leaves
/// no more clusters of 5+ pages below 0.9 gold purity at either and fewer in all (1.9 → 1.5
/// at 0.04; at 0.12 the hidden-element rule of the content blocks already took the case it
/// cut there), losing at most 0.001 of document precision and 0.002 of pair F1.
#[test]
fn cross_links_cut_clusters_where_a_story_rode_in_on_one_page() {
    assert_eq!(
        RunSpec::default_for(Algo::SpotSigs).matching.cross_links,
        samecore::matching::DEFAULT_CROSS_LINKS
    );
    assert_eq!(
        RunSpec::default_for(Algo::MinHash).matching.cross_links,
        0.0
    );
    // With the refused page left alone, goldset-dev's whole set has no chain left for cross
    // links to cut at these thresholds (they still cut in cross-validation folds and at scale,
    // docs/research-log.md): measured where that rule is off.
    a_default_rule_pays_on_goldset_dev(|spec, on| {
        spec.matching.refused_stays_alone = false;
        spec.matching.cross_links = if on {
            samecore::matching::DEFAULT_CROSS_LINKS
        } else {
            0.0
        };
    });
}

#[test]
fn a_page_refused_by_its_best_partner_stays_alone_on_goldset_dev() {
    assert!(
        RunSpec::default_for(Algo::SpotSigs)
            .matching
            .refused_stays_alone
    );
    assert!(
        !RunSpec::default_for(Algo::MinHash)
            .matching
            .refused_stays_alone
    );
    a_default_rule_pays_on_goldset_dev(|spec, on| spec.matching.refused_stays_alone = on);
}

/// SpotSigs' defaults with a link rule on (`set(spec, true)`) against off, on goldset-dev over
/// seeds 0–9 at 0.04 and the default threshold: fewer impure clusters in all, none more at
/// either threshold, document precision and pair F1 as good (within 0.001 and 0.002).
fn a_default_rule_pays_on_goldset_dev(set: impl Fn(&mut RunSpec, bool)) {
    let Some(coll) = common::goldset_collection() else {
        return;
    };
    let gold = GoldStandard::from_documents(&coll.docs);
    let det = detectors::detector(Algo::SpotSigs, &DetectorOptions::default()).unwrap();
    let prep = det.prepare(&coll.docs, &Progress::new()).unwrap();
    let seeds: Vec<u64> = (0..10).collect();
    let rows = |on: bool| {
        let mut spec = RunSpec::default_for(Algo::SpotSigs);
        set(&mut spec, on);
        sweep(
            &*prep,
            &spec,
            &[0.04, Algo::SpotSigs.default_threshold()],
            &seeds,
            &gold.cluster_of,
            &Progress::new(),
        )
        .unwrap()
    };
    let (with, without) = (rows(true), rows(false));
    let total = |rows: &[samecore::eval::SweepRow]| rows.iter().map(|r| r.impure.mean).sum::<f64>();
    assert!(total(&with) < total(&without));
    for (w, o) in with.iter().zip(&without) {
        eprintln!(
            "t {}: impure {} against {}, doc P {:.3} against {:.3}, pair F1 {:.3} against {:.3}",
            w.threshold,
            w.impure.mean,
            o.impure.mean,
            w.mean.document.precision,
            o.mean.document.precision,
            w.mean.pairwise.f1,
            o.mean.pairwise.f1
        );
        assert!(w.impure.mean <= o.impure.mean, "{w:?} against {o:?}");
        assert!(w.mean.document.precision >= o.mean.document.precision - 0.001);
        assert!(w.mean.pairwise.f1 >= o.mean.pairwise.f1 - 0.002);
    }
}

#[test]
fn a_link_share_the_paper_loop_cannot_apply_is_refused_with_a_reason() {
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample_archives/news-sample.warc.gz");
    let sample = sample.to_str().unwrap();
    let (ok, _, err) = common::samecore_with_input(
        &["run", sample, "--mode", "full", "--link-share", "0.3"],
        "",
    );
    assert!(!ok);
    assert!(
        err.contains("--link-share") && err.contains("full mode"),
        "{err}"
    );
    let (ok, _, err) = common::samecore_with_input(&["run", sample, "--link-share", "1.5"], "");
    assert!(!ok && err.contains("not in [0, 1]"), "{err}");
    let (ok, _, err) = common::samecore_with_input(
        &[
            "run",
            sample,
            "--add-duplicates",
            "false",
            "--cross-links",
            "0.1",
        ],
        "",
    );
    assert!(!ok, "{err}");
    assert!(
        err.contains("--cross-links") && err.contains("--add-duplicates false"),
        "{err}"
    );
    let (ok, _, err) = common::samecore_with_input(
        &["run", sample, "--mode", "full", "--refused-stays-alone"],
        "",
    );
    assert!(!ok && err.contains("--refused-stays-alone"), "{err}");
    let (ok, _, err) = common::samecore_with_input(
        &[
            "run",
            sample,
            "--mode",
            "full",
            "--refused-stays-alone",
            "false",
        ],
        "",
    );
    assert!(ok, "{err}");
    // Without the flag, full mode runs as the paper's loop.
    let (ok, out, err) =
        common::samecore_with_input(&["run", sample, "--mode", "full", "--json"], "");
    assert!(ok, "{err}");
    let summary: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(summary["documents"].as_u64().unwrap() > 400);
}

#[test]
fn run_writes_clusters_and_pairs_by_document_key() {
    let Some(path) = common::goldset() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (clusters, pairs) = (dir.path().join("c.tsv"), dir.path().join("p.tsv"));
    let stdout = samecore([
        "run".as_ref(),
        path.as_os_str(),
        "--algo".as_ref(),
        "spotsigs".as_ref(),
        "--json".as_ref(),
        "--clusters".as_ref(),
        clusters.as_os_str(),
        "--pairs".as_ref(),
        pairs.as_os_str(),
    ]);
    let summary: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(summary["documents"], 1117);
    assert!(summary["metrics"]["pairwise"]["f1"].as_f64().unwrap() >= 0.95);
    let text = std::fs::read_to_string(&clusters).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 1 + 1117, "a header and one row per page");
    assert!(
        lines[0].starts_with("doc\tcluster\trepresentative\tkey\t"),
        "{}",
        lines[0]
    );
    assert!(lines[1..].iter().all(|l| {
        let f: Vec<&str> = l.split('\t').collect();
        f[0].ends_with(".htm") && f[0].contains('/') && f[1].parse::<u32>().is_ok()
    }));
    let text = std::fs::read_to_string(&pairs).unwrap();
    let mut lines = text.lines();
    assert!(
        lines
            .next()
            .unwrap()
            .starts_with("a_doc\tb_doc\tscore\ta_key\tb_key")
    );
    let mut n = 0;
    for l in lines {
        let f: Vec<&str> = l.split('\t').collect();
        assert_eq!(f.len(), 11, "{l}");
        let score: f64 = f[2].parse().unwrap();
        // Every pair at or above the default threshold.
        assert!(
            (samecore::detectors::spotsigs::DEFAULT_THRESHOLD..=1.0).contains(&score),
            "{l}"
        );
        n += 1;
    }
    assert!(n > 0);
}

#[test]
fn eval_prints_one_csv_row_per_threshold() {
    let Some(path) = common::goldset() else {
        return;
    };
    let text = samecore([
        "eval".as_ref(),
        path.as_os_str(),
        "--thresholds".as_ref(),
        "0.2:0.4:0.1".as_ref(),
        "--runs".as_ref(),
        "2".as_ref(),
        "--csv".as_ref(),
    ]);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4, "{text}");
    assert!(lines[0].starts_with("threshold,runs,pair_p,pair_p_sd,pair_r"));
    assert!(lines[1].starts_with("0.2,2,"));
    assert!(lines[3].starts_with("0.4,2,"));
}

#[test]
fn run_with_project_stores_the_run_for_sample() {
    let archive = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample_archives/news-sample.warc.gz");
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("p.samecore");
    let summary = samecore([
        "run".as_ref(),
        archive.as_os_str(),
        "--json".as_ref(),
        "--project".as_ref(),
        project.as_os_str(),
    ]);
    let summary: serde_json::Value = serde_json::from_str(&summary).unwrap();
    let pairs = summary["pairs"].as_u64().unwrap();
    assert!(pairs > 0, "{summary}");
    let run = summary["project_run"].as_i64().unwrap();

    let list = samecore([
        "sample".as_ref(),
        "--project".as_ref(),
        project.as_os_str(),
        "--list".as_ref(),
    ]);
    let row = list
        .lines()
        .find(|l| l.trim_start().starts_with(&format!("{run} ")))
        .unwrap_or_else(|| panic!("run {run} not listed:\n{list}"));
    assert!(row.contains("spotsigs"), "{row}");
    assert!(row.contains(&format!(" {pairs} pairs")), "{row}");

    // The stored run can be sampled straight away.
    samecore([
        "sample".as_ref(),
        "--project".as_ref(),
        project.as_os_str(),
        "--name".as_ref(),
        "first".as_ref(),
        "--size".as_ref(),
        "3".as_ref(),
    ]);
    let list = samecore([
        "sample".as_ref(),
        "--project".as_ref(),
        project.as_os_str(),
        "--list".as_ref(),
    ]);
    assert!(
        list.lines()
            .any(|l| l.contains("first") && l.contains(&format!("run {run}"))),
        "{list}"
    );
}

#[test]
fn help_says_what_each_detector_finds_and_its_default() {
    let help = samecore(["run", "--help"]);
    for algo in samecore::detectors::Algo::ALL {
        let info = algo.info();
        let line = help
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("- {}:", info.name)))
            .unwrap_or_else(|| panic!("{} not in --help:\n{help}", info.name));
        assert!(
            line.contains(info.finds) && line.contains("default threshold"),
            "{line}"
        );
    }
}

#[test]
fn cross_validation_chooses_the_link_share_with_the_threshold_over_several_deals() {
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample_archives/news-sample.warc.gz");
    let sample = sample.to_str().unwrap();
    let cv = |extra: &[&str]| {
        let mut args = vec![
            "eval",
            sample,
            "--cv",
            "2",
            "--cv-deals",
            "2",
            "--thresholds",
            "0.1:0.7:0.1",
            "--runs",
            "2",
            "--json",
        ];
        args.extend_from_slice(extra);
        let (ok, out, err) = common::samecore_with_input(&args, "");
        assert!(ok, "{err}");
        let folds: Vec<serde_json::Value> = serde_json::from_str(&out).unwrap();
        folds
    };
    let grid = cv(&["--cv-link-shares", "0,0.2,0.5"]);
    let alone: Vec<Vec<serde_json::Value>> = ["0", "0.2", "0.5"]
        .iter()
        .map(|s| cv(&["--link-share", s]))
        .collect();
    let f1 = |f: &serde_json::Value| f["train"]["mean"]["pairwise"]["f1"].as_f64().unwrap();
    assert_eq!(grid.len(), 4, "two deals of two folds");
    let deals: Vec<u64> = grid.iter().map(|f| f["deal"].as_u64().unwrap()).collect();
    assert_eq!(deals, [0, 0, 1, 1]);
    for (i, f) in grid.iter().enumerate() {
        let share = f["link_share"].as_f64().unwrap();
        assert!([0.0, 0.2, 0.5].contains(&share), "{share}");
        // The training folds' best over the grid is at least as good as each share alone,
        // and the share alone that chose the same (share, threshold) tests the same.
        for a in &alone {
            assert!(f1(f) >= f1(&a[i]) - 1e-12, "{f} against {}", a[i]);
            if a[i]["link_share"] == f["link_share"]
                && a[i]["train"]["threshold"] == f["train"]["threshold"]
            {
                assert_eq!(a[i]["test"]["mean"], f["test"]["mean"]);
            }
        }
    }
    // Three deals of two folds, one seed, two thresholds: the text report and --csv.
    let three_deals = |extra: &[&str]| {
        let mut args = vec![
            "eval",
            sample,
            "--cv",
            "2",
            "--cv-deals",
            "3",
            "--thresholds",
            "0.2,0.4",
            "--runs",
            "1",
        ];
        args.extend_from_slice(extra);
        let (ok, out, err) = common::samecore_with_input(&args, "");
        assert!(ok, "{err}");
        out
    };
    // The text report gives one line per deal and the spread over deals.
    let out = three_deals(&[]);
    assert_eq!(
        out.lines().filter(|l| l.starts_with("deal ")).count(),
        3,
        "{out}"
    );
    assert!(out.contains("mean ± sd over 3 deals"), "{out}");
    // --csv: a row per test fold of every deal, with what its training folds chose.
    let csv = three_deals(&["--csv"]);
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(&header[..3], ["deal", "fold", "train_documents"], "{csv}");
    assert!(
        header.contains(&"pair_f1") && header.last() == Some(&"impure"),
        "{csv}"
    );
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 6, "{csv}");
    assert!(rows.iter().all(|r| r.len() == header.len()), "{csv}");
    assert!(rows.iter().all(|r| ["0.2", "0.4"].contains(&r[5])), "{csv}");
    // Both rules at once: every fold chose from the grid, and the best is at least as good as
    // the defaults alone.
    let both = cv(&["--cv-link-shares", "0,0.2", "--cv-cross-links", "0,0.1"]);
    let defaults = cv(&[]);
    for (f, d) in both.iter().zip(&defaults) {
        assert!(
            [0.0, 0.1].contains(&f["cross_links"].as_f64().unwrap()),
            "{f}"
        );
        assert!(f1(f) >= f1(d) - 1e-12, "{f} against {d}");
    }
    // Refused: a grid where the paper's loop runs, both flags, a value outside [0, 1], a grid
    // without --cv.
    for (extra, says) in [
        (
            &["--cv-link-shares", "0,0.2", "--mode", "full"][..],
            "full mode",
        ),
        (
            &["--cv-cross-links", "0.1", "--mode", "full"][..],
            "full mode",
        ),
        (
            &["--cv-link-shares", "0.2", "--link-share", "0.1"][..],
            "not both",
        ),
        (
            &["--cv-cross-links", "0.2", "--cross-links", "0.1"][..],
            "not both",
        ),
        (
            &["--cv-link-shares", "0.2,1.5"][..],
            "not a number in [0, 1]",
        ),
    ] {
        let mut args = vec!["eval", sample, "--cv", "2", "--thresholds", "0.2"];
        args.extend_from_slice(extra);
        let (ok, _, err) = common::samecore_with_input(&args, "");
        assert!(!ok && err.contains(says), "{extra:?}: {err}");
    }
    for flag in ["--cv-deals", "--cv-link-shares", "--cv-cross-links"] {
        let (ok, _, err) =
            common::samecore_with_input(&["eval", sample, flag, "1", "--thresholds", "0.2"], "");
        assert!(!ok && err.contains("--cv"), "{flag}: {err}");
    }
}
