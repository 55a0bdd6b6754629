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
}
