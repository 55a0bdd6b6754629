//! Sampling, labelling, estimates and the `sample` / `label` / `export` / `import-gold`
//! commands (henzinger §3.1–3.3 as a workflow).

mod common;

use std::path::Path;

use samecore::labels::sample::{self, SamplePlan, Stratum};
use samecore::labels::stats::{self, Z95};
use samecore::labels::{LabelInput, Reason, Verdict};
use samecore::store::runs::{ClusterMember, PageIdentity, RunRecord, ScoredPair};
use samecore::store::{PageId, Project, RunId};

/// 60 pages on 4 sites, 300 scored pairs with scores spread over 0.3..1.0, each page its own
/// cluster except a few.
fn project_with_run(project: &mut Project) -> (RunId, Vec<PageId>) {
    let identities: Vec<PageIdentity> = (0..60)
        .map(|i| PageIdentity {
            key: format!("page-{i:03}"),
            url: Some(format!("http://www.site{}.example.com/{i}.html", i % 4)),
            date: Some("2013-05-01T00:00:00Z".into()),
            site: Some(format!("site{}.example.com", i % 4)),
            ..PageIdentity::default()
        })
        .collect();
    let pages = project.upsert_pages(None, &identities).unwrap();
    let mut pairs = Vec::new();
    for i in 0..60usize {
        for k in 1..=5usize {
            let j = (i + k * 7) % 60;
            if i < j {
                pairs.push(ScoredPair {
                    a: pages[i],
                    b: pages[j],
                    score: 0.3 + 0.7 * (((i * 31 + j * 17) % 100) as f64 / 99.0),
                });
            }
        }
    }
    let members: Vec<ClusterMember> = pages
        .iter()
        .enumerate()
        .map(|(i, &p)| ClusterMember {
            page: p,
            cluster: (i / 3) as i64,
            representative: i % 3 == 0,
        })
        .collect();
    let record = RunRecord {
        detector: "simhash".into(),
        params: serde_json::json!({"bits": 384}),
        seed: Some(9),
        code_version: "test".into(),
        elapsed_ms: None,
        timings: serde_json::json!({}),
    };
    (project.add_run(&record, &pairs, &members).unwrap(), pages)
}

#[test]
fn stratified_samples_are_stored_reproducible_and_cover_each_band() {
    let plan = SamplePlan::Stratified {
        edges: vec![0.3, 0.5, 0.7, 0.9, 1.0],
        per_stratum: 8,
        split_by_site: true,
    };
    let mut drawn_twice = Vec::new();
    for _ in 0..2 {
        let mut project = Project::in_memory().unwrap();
        let (run, _) = project_with_run(&mut project);
        let pairs = project.run_pairs(run).unwrap();
        let drawn = sample::draw(&pairs, &plan, 2026).unwrap();
        let id = project
            .add_sample("strat", Some(run), false, &drawn)
            .unwrap();
        let stored = project.sample_pairs(id).unwrap();
        assert_eq!(stored.len(), drawn.pairs.len());
        let strata = project.sample_strata(id).unwrap();
        assert_eq!(strata, drawn.strata);
        assert_eq!(
            strata.iter().map(|s| s.population).sum::<u64>(),
            pairs.len() as u64
        );
        for s in &strata {
            let (lo, hi) = (s.lo.unwrap(), s.hi.unwrap());
            for p in stored.iter().filter(|p| p.stratum == s.name) {
                let score = p.score.unwrap();
                assert!(score >= lo && score <= hi, "{score} in {}", s.name);
                let same = p.a.identity.site == p.b.identity.site;
                assert_eq!(Some(same), s.same_site, "{}", s.name);
            }
        }
        assert!(
            project
                .add_sample("strat", Some(run), false, &drawn)
                .is_err(),
            "unique names"
        );
        drawn_twice.push(
            stored
                .into_iter()
                .map(|p| (p.a.id, p.b.id))
                .collect::<Vec<_>>(),
        );
    }
    assert_eq!(drawn_twice[0], drawn_twice[1], "same seed, same sample");
}

#[test]
fn labelling_records_history_undo_progress_and_blind_views() {
    let mut project = Project::in_memory().unwrap();
    let (run, _) = project_with_run(&mut project);
    let pairs = project.run_pairs(run).unwrap();
    let drawn = sample::draw(&pairs, &SamplePlan::Uniform { size: 5 }, 1).unwrap();
    let id = project
        .add_sample("blind", Some(run), true, &drawn)
        .unwrap();
    let view = project.pair_view(id, 0).unwrap();
    assert_eq!(
        (view.score, view.stratum.clone(), view.detector.clone()),
        (None, None, None)
    );
    let open = project
        .add_sample("open", Some(run), false, &drawn)
        .unwrap();
    let view = project.pair_view(open, 0).unwrap();
    assert_eq!(view.detector.as_deref(), Some("simhash"));
    assert_eq!(view.score, Some(drawn.pairs[0].pair.score));

    let ann = "ann";
    assert_eq!(project.next_unlabelled(id, ann).unwrap(), Some(0));
    project
        .add_label(
            id,
            0,
            ann,
            &LabelInput::new(Verdict::Correct).because(Reason::UrlOnly),
        )
        .unwrap();
    project
        .add_label(id, 1, ann, &LabelInput::new(Verdict::Incorrect))
        .unwrap();
    // Relabel pair 0, then undo the relabel: the first decision is back.
    project
        .add_label(id, 0, ann, &LabelInput::new(Verdict::Undecided))
        .unwrap();
    assert_eq!(project.undo_last_label(id, ann).unwrap(), Some(0));
    let labels = project.labels(id).unwrap();
    assert_eq!(labels.len(), 2);
    assert_eq!(
        labels[0].label,
        LabelInput::new(Verdict::Correct).because(Reason::UrlOnly)
    );
    assert_eq!(project.label_progress(id, ann).unwrap().labelled, 2);
    assert_eq!(project.label_progress(id, ann).unwrap().total, 5);
    assert_eq!(project.next_unlabelled(id, ann).unwrap(), Some(2));
    let marks = project.reviewed(id, ann).unwrap();
    assert_eq!(
        marks,
        vec![
            Some(Verdict::Correct),
            Some(Verdict::Incorrect),
            None,
            None,
            None
        ]
    );
    // Undo twice more: nothing left, then nothing to undo.
    assert_eq!(project.undo_last_label(id, ann).unwrap(), Some(1));
    assert_eq!(project.undo_last_label(id, ann).unwrap(), Some(0));
    assert_eq!(project.undo_last_label(id, ann).unwrap(), None);
    assert!(project.labels(id).unwrap().is_empty());
    assert_eq!(project.label_history_len(id).unwrap(), 3, "history is kept");
    assert!(
        project
            .add_label(id, 99, ann, &LabelInput::new(Verdict::Correct))
            .is_err()
    );
    assert!(
        project
            .add_label(id, 0, " ", &LabelInput::new(Verdict::Correct))
            .is_err()
    );
}

#[test]
fn kappa_disagreements_settlements_and_weighted_precision() {
    let mut project = Project::in_memory().unwrap();
    let (run, _) = project_with_run(&mut project);
    let pairs = project.run_pairs(run).unwrap();
    let drawn = sample::draw(&pairs, &SamplePlan::Uniform { size: 10 }, 4).unwrap();
    let id = project.add_sample("two", Some(run), false, &drawn).unwrap();
    use Verdict::{Correct as C, Incorrect as I, Undecided as U};
    let ann = [C, C, C, C, I, I, I, U, U, C];
    let bob = [C, C, C, I, I, I, C, U, U, C];
    for (p, (a, b)) in ann.iter().zip(bob).enumerate() {
        project
            .add_label(id, p as u32, "ann", &LabelInput::new(*a))
            .unwrap();
        project
            .add_label(id, p as u32, "bob", &LabelInput::new(b))
            .unwrap();
    }
    let labels = project.labels(id).unwrap();
    let agreement = stats::cohen_kappa(&labels, "ann", "bob");
    assert_eq!(agreement.items, 10);
    assert!((agreement.observed - 0.8).abs() < 1e-12);
    // Margins ann (C 5, I 3, U 2), bob (C 5, I 3, U 2): pe = .25 + .09 + .04 = .38.
    assert!((agreement.expected - 0.38).abs() < 1e-12);
    let kappa = agreement.kappa.unwrap();
    assert!((kappa - (0.8 - 0.38) / 0.62).abs() < 1e-12);
    let positions: Vec<u32> = agreement.disagreements.iter().map(|d| d.position).collect();
    assert_eq!(positions, vec![3, 6]);

    let resolved = stats::resolve(&labels, &[], None);
    assert_eq!(resolved.unsettled, vec![3, 6]);
    assert_eq!(resolved.verdicts.len(), 8);
    project.settle(id, 3, "carol", &LabelInput::new(I)).unwrap();
    let settlements = project.settlements(id).unwrap();
    let resolved = stats::resolve(&labels, &settlements, None);
    assert_eq!(resolved.unsettled, vec![6]);
    assert_eq!(resolved.verdicts[&3], I);
    let only_bob = stats::resolve(&labels, &[], Some("bob"));
    assert_eq!(only_bob.verdicts[&6], C);

    // Stratified precision is weighted by stratum sizes, not by labels.
    let strata = [
        Stratum {
            name: "big".into(),
            lo: None,
            hi: None,
            same_site: None,
            population: 900,
            drawn: 10,
        },
        Stratum {
            name: "small".into(),
            lo: None,
            hi: None,
            same_site: None,
            population: 100,
            drawn: 10,
        },
        Stratum {
            name: "unseen".into(),
            lo: None,
            hi: None,
            same_site: None,
            population: 5,
            drawn: 0,
        },
    ];
    let mut judged = Vec::new();
    for i in 0..10 {
        judged.push(("big".to_string(), if i < 5 { C } else { I }));
        judged.push(("small".to_string(), C));
    }
    let estimate = stats::stratified_precision(&strata, &judged, Z95);
    let overall = estimate.overall.unwrap();
    assert!((overall.estimate - 0.55).abs() < 1e-12, "{overall:?}");
    assert!(overall.lo < 0.55 && overall.hi > 0.55 && overall.lo > 0.2 && overall.hi < 0.85);
    assert_eq!(estimate.uncovered, vec!["unseen".to_string()]);
    let small = estimate.strata.iter().find(|s| s.name == "small").unwrap();
    assert_eq!(small.precision.unwrap().hi, 1.0);
    assert!(small.precision.unwrap().lo > 0.6);
}

fn samecore(args: &[&str], stdin: &str) -> (bool, String, String) {
    common::samecore_with_input(args, stdin)
}

/// `samecore label` of sample `s` of `project` as annotator `ann`, keys on stdin.
fn label_s_as_ann(project: &str, keys: &str) -> (bool, String, String) {
    samecore(
        &[
            "label",
            "--project",
            project,
            "--sample",
            "s",
            "--annotator",
            "ann",
        ],
        keys,
    )
}

#[test]
fn cli_samples_labels_from_piped_keys_reports_and_exports() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cli.samecore");
    {
        let mut project = Project::open(&path).unwrap();
        project_with_run(&mut project);
    }
    let p = path.to_str().unwrap();
    let (ok, out, err) = samecore(
        &[
            "sample",
            "--project",
            p,
            "--name",
            "s",
            "--bands",
            "0.3,0.65,1",
            "--per-stratum",
            "3",
            "--seed",
            "5",
        ],
        "",
    );
    assert!(ok, "{err}");
    assert!(out.contains("6 of 195 pairs"), "{out}");

    // c, i with reason 1, undo (of the i), skip the pair shown, u7 with a note, quit.
    let keys = "c\ni1\nz\ns\nu7 prefilled search box\nq\n";
    let (ok, out, err) = label_s_as_ann(p, keys);
    assert!(ok, "{err}");
    assert!(out.contains("undid the decision on pair 2"), "{out}");
    let project = Project::open(&path).unwrap();
    let id = project.sample_by_name("s").unwrap().id;
    let labels = project.labels(id).unwrap();
    let got: Vec<_> = labels
        .iter()
        .map(|l| (l.position, l.label.clone()))
        .collect();
    assert_eq!(
        got,
        vec![
            (0, LabelInput::new(Verdict::Correct)),
            (
                2,
                LabelInput {
                    verdict: Verdict::Undecided,
                    reason: Some(Reason::PrefilledForm),
                    note: "prefilled search box".into(),
                }
            ),
        ]
    );
    drop(project);
    // Labelling resumes where it stopped; end of input ends the session cleanly.
    let (ok, out, _) = samecore(
        &[
            "label",
            "--project",
            p,
            "--sample",
            "s",
            "--annotator",
            "ann",
        ],
        "c\nc\n",
    );
    assert!(ok);
    assert!(
        out.contains("pair 2 of 6") && out.contains("4 of 6 pairs labelled"),
        "{out}"
    );
    let (ok, _, _) = samecore(
        &[
            "label",
            "--project",
            p,
            "--sample",
            "s",
            "--annotator",
            "bob",
        ],
        "i\nc\n",
    );
    assert!(ok);
    let (ok, out, err) = samecore(&["label", "--project", p, "--sample", "s", "--report"], "");
    assert!(ok, "{err}");
    assert!(
        out.contains("precision") && out.contains("agreement ann vs bob: 2 pairs"),
        "{out}"
    );
    assert!(out.contains("pair 1: ann correct / bob incorrect"), "{out}");
    // The JSON report names the same pair as the text (positions from 1 everywhere), and a
    // script settles through it.
    let (ok, out, err) = samecore(
        &[
            "label",
            "--project",
            p,
            "--sample",
            "s",
            "--report",
            "--json",
        ],
        "",
    );
    assert!(ok, "{err}");
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    let disagreements = &report["agreement"][0]["agreement"]["disagreements"];
    let positions: Vec<u64> = disagreements
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["position"].as_u64().unwrap())
        .collect();
    assert_eq!(positions, [1], "{out}");
    assert_eq!(report["unsettled"], serde_json::json!([1]), "{out}");
    let settle = format!("{}=correct", positions[0]);
    let (ok, out, _) = samecore(
        &[
            "label",
            "--project",
            p,
            "--sample",
            "s",
            "--annotator",
            "carol",
            "--settle",
            &settle,
        ],
        "",
    );
    assert!(ok && out.contains("settled pair 1"), "{out}");

    let csv = dir.path().join("pairs.csv");
    let (ok, _, err) = samecore(
        &[
            "export",
            "--project",
            p,
            "pairs",
            "--sample",
            "s",
            "--out",
            csv.to_str().unwrap(),
        ],
        "",
    );
    assert!(ok, "{err}");
    let text = std::fs::read_to_string(&csv).unwrap();
    assert!(text.starts_with("sample,position,a_key,"), "{text}");
    assert!(
        text.contains("prefilled_form,prefilled search box"),
        "{text}"
    );
    let (ok, out, _) = samecore(
        &[
            "export",
            "--project",
            p,
            "runs",
            "--out",
            "-",
            "--format",
            "jsonl",
        ],
        "",
    );
    assert!(ok && out.contains("\"detector\":\"simhash\""), "{out}");

    // The export reads back into a fresh project through the CLI too, once the project has
    // the pages (an import never invents them: before, it is refused and writes nothing).
    let fresh = dir.path().join("fresh.samecore");
    let (ok, _, err) = samecore(
        &[
            "export",
            "--project",
            fresh.to_str().unwrap(),
            "--import-labels",
            csv.to_str().unwrap(),
        ],
        "",
    );
    assert!(!ok && err.contains("not in this project"), "{err}");
    {
        let mut project = Project::open(&fresh).unwrap();
        assert!(project.samples().unwrap().is_empty());
        project_with_run(&mut project);
    }
    let (ok, _, err) = samecore(
        &[
            "export",
            "--project",
            fresh.to_str().unwrap(),
            "--import-labels",
            csv.to_str().unwrap(),
        ],
        "",
    );
    assert!(
        ok && err.contains("6 labels and 1 settlements written"),
        "{err}"
    );
    let copy = Project::open(&fresh).unwrap();
    let original = Project::open(&path).unwrap();
    let strip = |p: &Project| -> Vec<_> {
        let id = p.sample_by_name("s").unwrap().id;
        let pairs = p.sample_pairs(id).unwrap();
        p.labels(id)
            .unwrap()
            .into_iter()
            .map(|l| {
                let pair = &pairs[l.position as usize];
                (
                    pair.a.identity.key.clone(),
                    pair.b.identity.key.clone(),
                    l.annotator,
                    l.label,
                )
            })
            .collect()
    };
    assert_eq!(strip(&copy), strip(&original));
    drop((copy, original));

    let gold = dir.path().join("gold.tsv");
    std::fs::write(
        &gold,
        "doc\tcluster\npage-000\ta\npage-001\ta\nelsewhere\tb\n",
    )
    .unwrap();
    let (ok, out, err) = samecore(&["import-gold", "--project", p, gold.to_str().unwrap()], "");
    assert!(ok, "{err}");
    assert!(
        out.contains("3 pages in 2 gold clusters") && out.contains("2 of them"),
        "{out}"
    );

    let (ok, _, err) = samecore(
        &[
            "label",
            "--project",
            p,
            "--sample",
            "nope",
            "--annotator",
            "x",
        ],
        "",
    );
    assert!(!ok && err.contains("no sample named"), "{err}");
    let missing = dir.path().join("missing.samecore");
    let (ok, _, err) = samecore(
        &[
            "label",
            "--project",
            missing.to_str().unwrap(),
            "--sample",
            "s",
        ],
        "",
    );
    assert!(!ok && err.contains("missing.samecore"), "{err}");
    assert!(!Path::new(&missing).exists());

    // A piped answer that is no key stops the session, naming its line: it is not asked again,
    // which would take the next line for it and slide every later answer onto another pair.
    let (ok, out, err) = samecore(
        &[
            "label",
            "--project",
            p,
            "--sample",
            "s",
            "--annotator",
            "zed",
        ],
        "c\nx\nyes\nC\n\nno\ni\n",
    );
    assert!(!ok, "{out}");
    assert!(err.contains("line 2") && err.contains("\"x\""), "{err}");
    assert!(out.contains("pair 1: correct"), "{out}");
    // An answers file is keyed by position; a bad line stores nothing.
    let answers = dir.path().join("answers.txt");
    std::fs::write(&answers, "# zed's second look\n3 i2 a frame\n1 c\n9 c\n").unwrap();
    let a = answers.to_str().unwrap();
    let args = [
        "label",
        "--project",
        p,
        "--sample",
        "s",
        "--annotator",
        "zed",
        "--answers",
        a,
    ];
    let (ok, _, err) = samecore(&args, "");
    assert!(
        !ok && err.contains("line 4") && err.contains("no pair 9"),
        "{err}"
    );
    std::fs::write(&answers, "3 i2 a frame\n2,u\n").unwrap();
    let (ok, out, err) = samecore(&args, "");
    assert!(ok && out.contains("2 pairs labelled by zed"), "{out}{err}");
    {
        let project = Project::open(&path).unwrap();
        let id = project.sample_by_name("s").unwrap().id;
        let mut zed: Vec<(u32, Verdict)> = project
            .labels(id)
            .unwrap()
            .into_iter()
            .filter(|l| l.annotator == "zed")
            .map(|l| (l.position, l.label.verdict))
            .collect();
        zed.sort();
        assert_eq!(
            zed,
            [
                (0, Verdict::Correct),
                (1, Verdict::Undecided),
                (2, Verdict::Incorrect)
            ]
        );
    }
}

/// A generated archive, run through SpotSigs, stored in a project: identities keep their record
/// locations, so a sample's pages are re-read from the WARC for term differences.
#[test]
fn a_detection_on_a_generated_archive_is_stored_sampled_and_diffed() {
    use samecore::detectors::{self, Algo, DetectorOptions, RunSpec};
    use samecore::progress::Progress;

    let dir = tempfile::tempdir().unwrap();
    let warc = dir.path().join("gen.warc.gz");
    let gold = dir.path().join("gen.gold.tsv");
    let options = samecore::synth::SynthOptions {
        seed: 21,
        pages: Some(80),
        ..Default::default()
    };
    let (mut w, mut g) = (Vec::new(), Vec::new());
    samecore::synth::write_warc(
        &options,
        "gen.warc.gz",
        &mut w,
        Some(&mut g),
        &Progress::new(),
    )
    .unwrap();
    std::fs::write(&warc, w).unwrap();
    std::fs::write(&gold, g).unwrap();
    let read = samecore::archive::ReadOptions::default();
    let collection =
        samecore::archive::load(std::slice::from_ref(&warc), &read, &Progress::new()).unwrap();
    assert!(
        collection.docs.len() >= 80,
        "{} documents",
        collection.docs.len()
    );
    let detector = detectors::detector(Algo::SpotSigs, &DetectorOptions::default()).unwrap();
    let prepared = detector
        .prepare(&collection.docs, &Progress::new())
        .unwrap();
    let detection = prepared
        .detect(&RunSpec::default_for(Algo::SpotSigs), &Progress::new())
        .unwrap();
    assert!(
        !detection.pairs().is_empty(),
        "the generator makes near-duplicates"
    );

    let mut project = Project::open(dir.path().join("gen.samecore")).unwrap();
    let archives = vec![warc.display().to_string()];
    let (run, pages) = project
        .save_detection(
            &archives,
            &collection.docs,
            &detection,
            serde_json::json!({}),
            Some(1),
        )
        .unwrap();
    assert_eq!(pages.len(), collection.docs.len());
    let info = project.run(run).unwrap();
    assert_eq!(info.pairs as usize, detection.pairs().len());
    assert_eq!(info.record.detector, "spotsigs");
    assert_eq!(
        info.record.params["run"]["matching"]["threshold"],
        detection.spec.matching.threshold
    );
    let clusters = project.run_clusters(run).unwrap();
    assert_eq!(
        clusters.iter().map(|c| c.members.len()).sum::<usize>(),
        collection.docs.len()
    );
    assert!(
        clusters.iter().all(|c| c.representative.is_some()),
        "one representative each"
    );
    let (entries, matched) =
        samecore::export::import::import_gold(&mut project, &gold, None).unwrap();
    assert_eq!(
        (entries, matched),
        (collection.docs.len(), collection.docs.len())
    );

    let pairs = project.run_pairs(run).unwrap();
    let drawn = sample::draw(&pairs, &SamplePlan::Uniform { size: 12 }, 3).unwrap();
    let id = project.add_sample("gen", Some(run), false, &drawn).unwrap();
    let diffs = samecore::labels::termdiff::sample_term_differences(&project, id).unwrap();
    assert_eq!(diffs.len(), drawn.pairs.len());
    assert!(
        diffs.iter().all(|d| d.difference.is_some()),
        "every page re-read: {diffs:?}"
    );
    // A pair's term difference is zero only when both token sequences are equal, and SpotSigs
    // pairs of the generator are different captures: some difference is expected somewhere.
    assert!(diffs.iter().any(|d| d.difference.unwrap() > 0));
}

#[test]
fn a_busy_lock_waits_and_the_typed_verdict_is_saved() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("busy.samecore");
    {
        let mut project = Project::open(&path).unwrap();
        project_with_run(&mut project);
    }
    let p = path.to_str().unwrap();
    let (ok, _, err) = samecore(
        &["sample", "--project", p, "--name", "s", "--size", "3"],
        "",
    );
    assert!(ok, "{err}");
    // Another program holds the write lock longer than the store's 5 s busy timeout.
    let holder = rusqlite::Connection::open(&path).unwrap();
    holder.execute_batch("BEGIN IMMEDIATE").unwrap();
    let release = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_secs(7));
        holder.execute_batch("COMMIT").unwrap();
    });
    let (ok, out, err) = samecore(
        &[
            "label",
            "--project",
            p,
            "--sample",
            "s",
            "--annotator",
            "ann",
        ],
        "c\nq\n",
    );
    release.join().unwrap();
    assert!(ok, "{out}{err}");
    assert!(out.contains("busy") && out.contains("retrying"), "{out}");
    let project = Project::open(&path).unwrap();
    let s = project.sample_by_name("s").unwrap().id;
    assert_eq!(project.labels(s).unwrap().len(), 1);
}

#[test]
fn empty_samples_are_refused_and_pairs_outside_the_bands_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.samecore");
    {
        let mut project = Project::open(&path).unwrap();
        project_with_run(&mut project);
    }
    let p = path.to_str().unwrap();
    for args in [
        &["--size", "0"][..],
        &["--bands", "0.3,1", "--per-stratum", "0"][..],
        &["--bands", "1.5,2"][..],
    ] {
        let mut all = vec!["sample", "--project", p, "--name", "x"];
        all.extend_from_slice(args);
        let (ok, _, err) = samecore(&all, "");
        assert!(!ok && err.contains("empty"), "{args:?}: {err}");
    }
    assert!(Project::open(&path).unwrap().samples().unwrap().is_empty());
    let (ok, _, err) = samecore(
        &["sample", "--project", p, "--name", "y", "--bands", "0.5,1"],
        "",
    );
    assert!(ok, "{err}");
    assert!(err.contains("outside every band"), "{err}");
}

#[test]
fn reports_count_only_whom_they_are_asked_say_json_and_agree_across_three() {
    let mut project = Project::in_memory().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.samecore");
    drop(project);
    project = Project::open(&path).unwrap();
    let (run, _) = project_with_run(&mut project);
    let pairs = project.run_pairs(run).unwrap();
    let drawn = sample::draw(&pairs, &SamplePlan::Uniform { size: 6 }, 1).unwrap();
    let s = project.add_sample("s", Some(run), false, &drawn).unwrap();
    let verdicts = [("ann", "ccicci"), ("bob", "cciccc"), ("cat", "cicccu")];
    for (who, v) in verdicts {
        for (pos, c) in v.chars().enumerate() {
            let verdict = match c {
                'c' => Verdict::Correct,
                'i' => Verdict::Incorrect,
                _ => Verdict::Undecided,
            };
            project
                .add_label(s, pos as u32, who, &LabelInput::new(verdict))
                .unwrap();
        }
    }
    project
        .settle(s, 5, "lead", &LabelInput::new(Verdict::Correct))
        .unwrap();
    drop(project);
    let p = path.to_str().unwrap();
    let (ok, out, err) = samecore(&["label", "--project", p, "--sample", "s", "--report"], "");
    assert!(ok, "{err}");
    assert!(
        out.contains("Fleiss' kappa): 6 pairs judged by all"),
        "{out}"
    );
    assert!(out.contains("undecided counted as not correct"), "{out}");
    // Someone who labelled nothing is an error naming who did.
    let (ok, _, err) = samecore(
        &[
            "label",
            "--project",
            p,
            "--sample",
            "s",
            "--report",
            "--only",
            "nobody",
        ],
        "",
    );
    assert!(!ok && err.contains("ann, bob, cat"), "{err}");
    // --only counts that person's labels and no settlement.
    let (ok, out, err) = samecore(
        &[
            "label",
            "--project",
            p,
            "--sample",
            "s",
            "--report",
            "--only",
            "cat",
            "--json",
        ],
        "",
    );
    assert!(ok, "{err}");
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    let counts = &json["precision"]["counts"];
    assert_eq!(
        (
            counts["correct"].as_u64(),
            counts["incorrect"].as_u64(),
            counts["undecided"].as_u64()
        ),
        (Some(4), Some(1), Some(1)),
        "{json}"
    );
    assert_eq!(json["fleiss"]["items"], 6);
    // Fleiss by hand: per-pair agreement 1, 1/3, 1/3, 1, 1, 0 (P̄ = 11/18); pooled shares
    // 13/18, 4/18, 1/18 (P̄e = 186/324); kappa = (P̄ - P̄e) / (1 - P̄e) = 2/23.
    let k = json["fleiss"]["kappa"].as_f64().unwrap();
    assert!((k - 2.0 / 23.0).abs() < 1e-12, "{k}");
    assert!((json["fleiss"]["observed"].as_f64().unwrap() - 11.0 / 18.0).abs() < 1e-12);
}

/// In terminal labelling, `t` shows both pages' text (their cores), then the same
/// pair again.
#[test]
fn t_shows_both_pages_text_in_terminal_labelling() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.samecore");
    let p = path.to_str().unwrap();
    let archive = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("sample_archives/news-sample.warc.gz");
    let (ok, _, err) = samecore(&["run", archive.to_str().unwrap(), "--project", p], "");
    assert!(ok, "{err}");
    let (ok, _, err) = samecore(
        &[
            "sample",
            "--project",
            p,
            "--name",
            "s",
            "--size",
            "2",
            "--seed",
            "1",
        ],
        "",
    );
    assert!(ok, "{err}");
    let (ok, out, err) = label_s_as_ann(p, "t\nq\n");
    assert!(ok, "{err}");
    let a = out.find("--- A ---").expect(&out);
    let b = out.find("--- B ---").expect(&out);
    assert!(b > a + 200, "A's text is shown: {out}");
    assert_eq!(
        out.matches("pair 1 of 2").count(),
        2,
        "the pair again after its text: {out}"
    );
    assert!(!out.contains("cannot be read again"), "{out}");
}
