//! Coders' packages on real pages (`cargo bench --bench packages`, or `cargo test --bench
//! packages` for the test profile): goldset-dev's and frames-dev's clusters drawn into one
//! round for six coders, one package written per coder (target: a package of 200 stories
//! ≤ 20 MB, written in ≤ 5 s), every story coded in each, and the six packages merged (target
//! ≤ 1 s; merged again, nothing comes in). Needs `../shared/data`; says so and stops without it.

use std::path::PathBuf;
use std::time::Instant;

use samecore::detectors::{Algo, DetectorOptions, RunSpec};
use samecore::progress::Progress;
use samecore::session::{OpenOptions, Session};

fn main() {
    let data = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/data");
    let inputs = [data.join("goldset-dev"), data.join("frames-dev")];
    if !inputs.iter().all(|p| p.is_dir()) {
        println!("packages: ../shared/data is absent; skipped");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let progress = Progress::new();
    let options = OpenOptions {
        sign: Some(DetectorOptions::default()),
        publication_dates: true,
        ..OpenOptions::default()
    };
    let session = Session::open(&inputs, &options, &progress).unwrap();
    let run = session
        .run(
            Algo::SpotSigs,
            &DetectorOptions::default(),
            &RunSpec::default_for(Algo::SpotSigs),
            &progress,
        )
        .unwrap();
    let mut project = samecore::store::Project::open(dir.path().join("b.samecore")).unwrap();
    let run_id = session
        .save(&mut project, &run.detection, serde_json::json!({}), None)
        .unwrap();
    let book = samecore::codebook::Codebook::from_file_text(
        r#"{"variables": [{"name": "tone", "level": "ordinal", "kind": "one",
            "values": [{"code": 1, "label": "negative"}, {"code": 2, "label": "neutral"},
                       {"code": 3, "label": "positive"}]}]}"#,
    )
    .unwrap();
    project.save_codebook(&book, "lead", "bench").unwrap();
    let coders: Vec<String> = (1..=6).map(|i| format!("c{i}")).collect();
    let round = samecore::coding::round::draw(
        &project,
        "bench",
        run_id,
        None,
        200,
        samecore::coding::round::Strata::Site,
        1,
        &coders,
        true,
        "lead",
    )
    .unwrap();
    project.save_round(&round).unwrap();
    let stories = round.units.len();
    let t = Instant::now();
    let written =
        samecore::package::assign(&mut project, "bench", None, dir.path(), "lead").unwrap();
    let assign_s = t.elapsed().as_secs_f64();
    let bytes = written[0].bytes;
    println!(
        "packages: {stories} stories; 6 packages written in {assign_s:.2} s ({:.2} s each, \
         target 5 s); {:.1} MB each, {:.0} KB a story: {:.1} MB for 200 stories (target 20 MB)",
        assign_s / 6.0,
        bytes as f64 / 1e6,
        bytes as f64 / 1e3 / stories as f64,
        bytes as f64 / stories as f64 * 200.0 / 1e6
    );
    let files: Vec<PathBuf> = written.iter().map(|w| w.file.clone()).collect();
    for (i, f) in files.iter().enumerate() {
        let mut p = samecore::package::Package::open(f).unwrap();
        for position in 0..stories as i64 {
            p.set_value(
                position,
                "tone",
                &((i as i64 + position) % 3 + 1).to_string(),
            )
            .unwrap();
        }
    }
    let t = Instant::now();
    let report = samecore::package::merge(&mut project, &files, "lead").unwrap();
    let merge_s = t.elapsed().as_secs_f64();
    let values: usize = report.packages.iter().map(|p| p.values_in).sum();
    assert_eq!(values, 6 * stories);
    let t = Instant::now();
    let again = samecore::package::merge(&mut project, &files, "lead").unwrap();
    let again_s = t.elapsed().as_secs_f64();
    assert!(again.packages.iter().all(|p| p.values_in == 0));
    println!(
        "packages: 6 merged in {merge_s:.3} s ({values} values; target 1 s); again in \
         {again_s:.3} s, nothing new"
    );

    // With a page variable the package carries every page of its stories (core texts).
    let mut paged = book.clone();
    let mut genre = paged.variables[0].clone();
    genre.name = "genre".into();
    genre.unit = samecore::codebook::UnitKind::Page;
    paged.variables.push(genre);
    project
        .save_codebook(&paged, "lead", "bench pages")
        .unwrap();
    let pages_dir = dir.path().join("pages");
    std::fs::create_dir(&pages_dir).unwrap();
    let t = Instant::now();
    let written = samecore::package::assign(
        &mut project,
        "bench",
        Some(&coders[..1]),
        &pages_dir,
        "lead",
    )
    .unwrap();
    let members: usize = {
        let p = samecore::package::Package::open_read(&written[0].file).unwrap();
        (0..stories as i64)
            .map(|i| p.members(i).unwrap().len())
            .sum()
    };
    println!(
        "packages: with a page variable, one package of {stories} stories and their {members} \
         pages written in {:.2} s, {:.1} MB ({:.1} MB for 200 stories)",
        t.elapsed().as_secs_f64(),
        written[0].bytes as f64 / 1e6,
        written[0].bytes as f64 / stories as f64 * 200.0 / 1e6
    );

    // A stratified sample of pairs for two coders: both pages and their sites' frames.
    let plan = samecore::store::judgements::SamplePlan::Stratified {
        edges: vec![0.4, 0.6, 0.8, 1.0],
        per_stratum: 70,
        split_by_site: false,
    };
    let (_, drawn, _) =
        samecore::labels::sample::draw_and_store(&mut project, run_id, "pairs", &plan, 1, false)
            .unwrap();
    let pairs = drawn.pairs.len();
    let pairs_dir = dir.path().join("pairs");
    std::fs::create_dir(&pairs_dir).unwrap();
    let t = Instant::now();
    let written =
        samecore::package::assign_sample(&mut project, "pairs", &coders[..2], &pairs_dir, "lead")
            .unwrap();
    let assign_s = t.elapsed().as_secs_f64();
    let files: Vec<PathBuf> = written.iter().map(|w| w.file.clone()).collect();
    for f in &files {
        let mut p = samecore::package::Package::open(f).unwrap();
        for position in 0..pairs as u32 {
            p.add_label(
                position,
                &samecore::labels::LabelInput::new(samecore::labels::Verdict::Correct),
            )
            .unwrap();
        }
    }
    let t = Instant::now();
    let report = samecore::package::merge(&mut project, &files, "lead").unwrap();
    let merge_s = t.elapsed().as_secs_f64();
    assert!(report.packages.iter().all(|p| p.labels_in == pairs));
    println!(
        "packages: a sample of {pairs} pairs, 2 packages written in {assign_s:.2} s, {:.1} MB \
         each ({:.0} KB a pair); every pair labelled in each, merged in {merge_s:.3} s",
        written[0].bytes as f64 / 1e6,
        written[0].bytes as f64 / 1e3 / pairs as f64
    );
}
