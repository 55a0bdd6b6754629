//! The codebook of variables and independent coders, through the command line: a project made
//! by the previous schema (v4) opens with every code kept; a codebook file is read as a version
//! and refused when it is wrong; two coders code the same stories, neither replacing the other;
//! alpha per variable; a final value beside theirs; undo.

mod common;

use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/projects")
        .join(name)
}

fn run(args: &[&str]) -> (bool, String, String) {
    common::samecore_with_input(args, "")
}

fn ok(args: &[&str]) -> String {
    let (ok, out, err) = run(args);
    assert!(ok, "samecore {args:?}: {err}");
    out
}

/// A copy of the v4 project (made by the release before the codebook of variables).
fn v4_copy(dir: &Path) -> PathBuf {
    let path = dir.join("study.samecore");
    std::fs::copy(fixture("v4.samecore"), &path).unwrap();
    path
}

#[test]
fn a_v4_project_opens_with_every_code_and_its_provenance() {
    let dir = tempfile::tempdir().unwrap();
    let p = v4_copy(dir.path());
    let p = p.to_str().unwrap();
    {
        let project = samecore::store::Project::open(p).unwrap();
        assert_eq!(
            (project.migration().from, project.migration().to),
            (4, samecore::store::SCHEMA_VERSION)
        );
        assert!(project.migration().backup.as_ref().unwrap().exists());
        assert_eq!(project.codebook().unwrap().variables.len(), 0);
    }
    let codes = dir.path().join("codes.csv");
    ok(&[
        "export",
        "--project",
        p,
        "codes",
        "-o",
        codes.to_str().unwrap(),
    ]);
    assert_eq!(
        std::fs::read_to_string(&codes).unwrap(),
        std::fs::read_to_string(fixture("v4-codes.csv")).unwrap(),
        "every code with who, when, run, cluster and source, as the v4 project had them"
    );
    let log = ok(&["code", "--project", p, "log"]);
    assert!(
        log.contains("apply \"economy\" to cluster 9 of run 1"),
        "{log}"
    );
}

const CODEBOOK: &str = r#"{
  "variables": [
    {"name": "tone", "question": "The story's tone towards the government?",
     "instructions": "Headline and first paragraph.", "level": "ordinal", "kind": "one",
     "unit": "story",
     "values": [{"code": 1, "label": "negative"}, {"code": 2, "label": "neutral"},
                {"code": 3, "label": "positive"}],
     "not_applicable": 98, "cannot_code": 99},
    {"name": "actors", "level": "nominal", "kind": "several", "unit": "story",
     "values": [{"code": 1, "label": "government"}, {"code": 2, "label": "opposition"}]},
    {"name": "note", "level": "nominal", "kind": "note", "unit": "story"}
  ]
}"#;

#[test]
fn two_coders_code_the_same_stories_and_agreement_is_per_variable() {
    let dir = tempfile::tempdir().unwrap();
    let p = v4_copy(dir.path());
    let p = p.to_str().unwrap();
    // A wrong codebook changes nothing.
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, CODEBOOK.replace("\"ordinal\"", "\"cardinal\"")).unwrap();
    let (okay, _, err) = run(&["codebook", "--project", p, "read", bad.to_str().unwrap()]);
    assert!(!okay && err.contains("cardinal"), "{err}");
    let twice = dir.path().join("twice.json");
    std::fs::write(&twice, CODEBOOK.replace("\"actors\"", "\"tone\"")).unwrap();
    let (okay, _, err) = run(&["codebook", "--project", p, "read", twice.to_str().unwrap()]);
    assert!(!okay && err.contains("defined twice"), "{err}");
    let file = dir.path().join("codebook.json");
    std::fs::write(&file, CODEBOOK).unwrap();
    let said = ok(&[
        "codebook",
        "--project",
        p,
        "--by",
        "lead",
        "read",
        file.to_str().unwrap(),
    ]);
    assert!(said.contains("version 1"), "{said}");
    let shown = ok(&["codebook", "--project", p, "show"]);
    assert!(
        shown.contains("2 = neutral") && shown.contains("98 = not applicable"),
        "{shown}"
    );
    // Bad values are refused and nothing is stored.
    for (value, why) in [
        ("4", "not one of its values"),
        ("positive", "not one of its"),
    ] {
        let (okay, _, err) = run(&[
            "code",
            "--project",
            p,
            "--by",
            "ana",
            "value",
            "tone",
            value,
            "--cluster",
            "9",
        ]);
        assert!(!okay && err.contains(why), "{value}: {err}");
    }
    let (okay, _, err) = run(&[
        "code",
        "--project",
        p,
        "--by",
        "ana",
        "value",
        "tone",
        "2",
        "--cluster",
        "12345",
    ]);
    assert!(!okay && err.contains("no cluster 12345"), "{err}");
    // Two coders, the same stories; ana changes her mind once and undoes it.
    let clusters: Vec<String> = ok(&["clusters", "--project", p, "--json"])
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| v["cluster"].as_i64().map(|c| c.to_string()))
        .collect();
    assert!(clusters.len() >= 5, "{clusters:?}");
    let ana = ["1", "2", "3", "2", "1"];
    let ben = ["1", "2", "3", "3", "1"];
    for (i, c) in clusters.iter().take(5).enumerate() {
        for (who, tone) in [("ana", ana[i]), ("ben", ben[i])] {
            ok(&[
                "code",
                "--project",
                p,
                "--by",
                who,
                "value",
                "tone",
                tone,
                "--cluster",
                c,
            ]);
            ok(&[
                "code",
                "--project",
                p,
                "--by",
                who,
                "value",
                "actors",
                "1,2",
                "--cluster",
                c,
            ]);
        }
    }
    // A coder's later value counts, the earlier stays in the log: 3 then 2 again.
    for tone in ["3", "2"] {
        ok(&[
            "code",
            "--project",
            p,
            "--by",
            "ana",
            "value",
            "tone",
            tone,
            "--cluster",
            &clusters[1],
        ]);
    }
    ok(&[
        "code",
        "--project",
        p,
        "--by",
        "ana",
        "value",
        "tone",
        "98",
        "--cluster",
        &clusters[0],
    ]);
    let undone = ok(&["code", "--project", p, "--by", "ana", "undo-value"]);
    assert!(undone.contains("undid ana's tone"), "{undone}");
    let project = samecore::store::Project::open(p).unwrap();
    let values = project.values().unwrap();
    assert_eq!(
        values.iter().filter(|v| v.variable == "tone").count(),
        10,
        "nobody replaced"
    );
    assert!(values.iter().all(|v| v.version == 1));
    let ana_tone = |c: &str| {
        values
            .iter()
            .find(|v| {
                v.variable == "tone"
                    && v.coder == "ana"
                    && v.unit.to_string().starts_with(&format!("cluster {c} "))
            })
            .map(|v| v.answer.clone())
    };
    use samecore::codebook::Answer;
    assert_eq!(
        ana_tone(&clusters[0]),
        Some(Answer::Value("1".into())),
        "undone: the one before"
    );
    assert_eq!(
        ana_tone(&clusters[1]),
        Some(Answer::Value("2".into())),
        "the latest counts"
    );
    // In order of variable, unit, role and coder.
    let order: Vec<_> = values
        .iter()
        .map(|v| (v.variable.clone(), v.unit, v.role, v.coder.clone()))
        .collect();
    let mut sorted = order.clone();
    sorted.sort();
    assert_eq!(order, sorted);
    drop(project);
    let json = ok(&["agreement", "--project", p, "--json", "--resamples", "500"]);
    let table: serde_json::Value = serde_json::from_str(&json).unwrap();
    let tone = table["variables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["variable"] == "tone")
        .unwrap();
    assert_eq!(tone["level"], "ordinal");
    assert_eq!(
        (tone["units"].as_u64(), tone["coders"].as_u64()),
        (Some(5), Some(2))
    );
    assert!(tone["alpha"].as_f64().unwrap() > 0.5 && tone["alpha"].as_f64().unwrap() < 1.0);
    // Every actors option is a 0/1 variable; all agree, both chose both: undefined, not 1.
    let names: Vec<&str> = table["variables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["variable"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["actors=1", "actors=2", "tone"]);
    // The disagreement is listed for the lead, with each coder's value and label.
    let open = ok(&["agreement", "--project", p, "--disagreements"]);
    assert!(open.contains("1 disagreements open"), "{open}");
    assert!(
        open.contains("ana: 2 (neutral) | ben: 3 (positive)"),
        "{open}"
    );
    let doc = dir.path().join("codebook.md");
    ok(&[
        "codebook",
        "--project",
        p,
        "write",
        "--markdown",
        doc.to_str().unwrap(),
    ]);
    assert!(
        std::fs::read_to_string(&doc)
            .unwrap()
            .contains("| 2 | neutral |")
    );
    // The lead settles the one disagreement; the coders' values stay.
    ok(&[
        "code",
        "--project",
        p,
        "--by",
        "lead",
        "value",
        "tone",
        "3",
        "--cluster",
        &clusters[3],
        "--final",
    ]);
    let project = samecore::store::Project::open(p).unwrap();
    let values = project.values().unwrap();
    assert_eq!(values.iter().filter(|v| v.variable == "tone").count(), 11);
    drop(project);
    let open = ok(&["agreement", "--project", p, "--disagreements"]);
    assert!(open.contains("0 disagreements open"), "{open}");
    // The long values and the wide data set, in every format.
    let long = dir.path().join("values.csv");
    ok(&[
        "export",
        "--project",
        p,
        "values",
        "-o",
        long.to_str().unwrap(),
    ]);
    let text = std::fs::read_to_string(&long).unwrap();
    assert_eq!(text.lines().count(), 1 + 11 + 10, "{text}");
    assert!(
        text.contains(",neutral,") && text.contains("government; opposition"),
        "{text}"
    );
    for ext in ["csv", "tsv", "jsonl", "parquet"] {
        let wide = dir.path().join(format!("dataset.{ext}"));
        let said = ok(&[
            "export",
            "--project",
            p,
            "dataset",
            "-o",
            wide.to_str().unwrap(),
        ]);
        let _ = said;
        assert!(wide.exists());
    }
    let icr = dir.path().join("icr.csv");
    ok(&[
        "export",
        "--project",
        p,
        "reliability",
        "-o",
        icr.to_str().unwrap(),
    ]);
    let icr = std::fs::read_to_string(&icr).unwrap();
    assert_eq!(
        icr.lines().next(),
        Some("unit,coder,actors=1,actors=2,tone"),
        "{icr}"
    );
    assert_eq!(icr.lines().count(), 1 + 5 * 2, "{icr}");
    let wide = std::fs::read_to_string(dir.path().join("dataset.csv")).unwrap();
    let header = wide.lines().next().unwrap();
    assert_eq!(
        header,
        "unit,unit_kind,run,cluster,tone,tone_label,actors,actors_label,note,disagreements"
    );
    assert_eq!(wide.lines().count(), 6);
    // The settled disagreement takes the final value; the others the coders' shared one.
    assert!(wide.lines().all(|l| !l.ends_with("tone")), "{wide}");
    if std::process::Command::new("python3")
        .args(["-c", "import pandas, pyarrow"])
        .status()
        .is_ok_and(|s| s.success())
    {
        let script = r#"
import sys, pandas as pd
d = pd.read_parquet(sys.argv[1]); c = pd.read_csv(sys.argv[2])
assert list(d.columns) == list(c.columns), (d.columns, c.columns)
assert d.tone.dtype.kind == "f" and len(d) == 5
assert (d.tone_label.notna()).all()
print(d.tone.tolist())
"#;
        let out = std::process::Command::new("python3")
            .args(["-c", script])
            .arg(dir.path().join("dataset.parquet"))
            .arg(dir.path().join("dataset.csv"))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn a_reliability_round_is_drawn_by_its_seed_and_shows_each_coders_progress() {
    let dir = tempfile::tempdir().unwrap();
    let p = v4_copy(dir.path());
    let p = p.to_str().unwrap();
    let file = dir.path().join("codebook.json");
    std::fs::write(&file, CODEBOOK).unwrap();
    ok(&["codebook", "--project", p, "read", file.to_str().unwrap()]);
    let (okay, _, err) = run(&[
        "round",
        "--project",
        p,
        "new",
        "r0",
        "--size",
        "6",
        "--coders",
        "ana",
    ]);
    assert!(!okay && err.contains("two or more coders"), "{err}");
    let drawn = ok(&[
        "round",
        "--project",
        p,
        "--by",
        "lead",
        "new",
        "r1",
        "--size",
        "6",
        "--coders",
        "ana,ben",
        "--strata",
        "size",
        "--seed",
        "7",
    ]);
    assert!(
        drawn.contains("6 stories of run 1 for ana, ben (blind; seed 7, size)"),
        "{drawn}"
    );
    ok(&[
        "round",
        "--project",
        p,
        "new",
        "r2",
        "--size",
        "6",
        "--coders",
        "ana,ben",
        "--strata",
        "size",
        "--seed",
        "7",
    ]);
    let (okay, _, err) = run(&[
        "round",
        "--project",
        p,
        "new",
        "r2",
        "--size",
        "6",
        "--coders",
        "ana,ben",
    ]);
    assert!(!okay && err.contains("exists"), "{err}");
    let project = samecore::store::Project::open(p).unwrap();
    let (r1, r2) = (project.round("r1").unwrap(), project.round("r2").unwrap());
    assert_eq!(r1.units, r2.units, "the same seed draws the same stories");
    let first = r1.units[0].0.to_string();
    drop(project);
    for (var, value) in [("tone", "2"), ("actors", "1"), ("note", "a quote")] {
        ok(&[
            "code",
            "--project",
            p,
            "--by",
            "ana",
            "value",
            var,
            value,
            "--cluster",
            &first,
        ]);
    }
    ok(&[
        "code",
        "--project",
        p,
        "--by",
        "ben",
        "value",
        "tone",
        "2",
        "--cluster",
        &first,
    ]);
    let shown = ok(&["round", "--project", p, "show", "r1"]);
    assert!(
        shown.contains("ana                  1 of 6 done"),
        "{shown}"
    );
    assert!(
        shown.contains("ben                  0 of 6 done"),
        "{shown}"
    );
}

/// Every version is kept whole, with who saved it, when and why: the history gives back each
/// version's variables as they were saved, and saving the same variables again makes no
/// version.
#[test]
fn every_version_of_the_codebook_is_kept_whole() {
    use samecore::codebook::Codebook;
    let dir = tempfile::tempdir().unwrap();
    let mut project = samecore::store::Project::open(dir.path().join("h.samecore")).unwrap();
    let first = Codebook::from_file_text(
        r#"{"variables": [{"name": "tone", "level": "nominal", "kind": "one",
            "values": [{"code": 1, "label": "negative"}, {"code": 2, "label": "positive"}]}]}"#,
    )
    .unwrap();
    let mut second = first.clone();
    second.variables[0].values[1].label = "favourable".into();
    assert_eq!(project.save_codebook(&first, "lead", "pilot").unwrap(), 1);
    assert_eq!(
        project
            .save_codebook(&second, "ana", "after training")
            .unwrap(),
        2
    );
    assert_eq!(project.save_codebook(&second, "ana", "again").unwrap(), 2);
    let history = project.codebook_history().unwrap();
    assert_eq!(history.len(), 2);
    assert_eq!(
        (
            history[0].book.version,
            history[0].by.as_str(),
            history[0].note.as_str()
        ),
        (1, "lead", "pilot")
    );
    assert_eq!(history[0].book.variables, first.variables);
    assert_eq!(history[1].book.variables, second.variables);
    assert_eq!(history[1].book, project.codebook().unwrap());
}
