//! The project file end to end on the real WARC files: run every file into a project (one at a
//! time and all together), sample, label, settle, code, report, export in every format, load
//! each export in pandas and pyarrow, import into a fresh project that read the same archives,
//! and get the same report, labels, settlements and codes back.
//!
//! The pandas/pyarrow check needs `python3` with both; without them it is skipped with a
//! message, unless `SAMECORE_REQUIRE_PYTHON=1` (as `.ci/run` sets after installing them).

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use samecore::store::Project;
use samecore::store::codes::CodeSource;

fn samecore(args: &[&str], stdin: &str) -> (bool, String, String) {
    common::samecore_with_input(args, stdin)
}

fn ok(args: &[&str], stdin: &str) -> String {
    let (ok, out, err) = samecore(args, stdin);
    assert!(ok, "samecore {args:?}: {err}");
    out
}

fn warcs() -> Option<Vec<PathBuf>> {
    let dir = common::shared("data/warc")?;
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    Some(files)
}

fn python_with_pandas() -> bool {
    let found = Command::new("python3")
        .args(["-c", "import pandas, pyarrow"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        assert!(
            std::env::var("SAMECORE_REQUIRE_PYTHON").as_deref() != Ok("1"),
            "SAMECORE_REQUIRE_PYTHON=1 but python3 with pandas and pyarrow is missing"
        );
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED the pandas/pyarrow load of the exports: python3 with pandas and pyarrow \
             is absent (pip install pandas pyarrow)"
        );
    }
    found
}

/// Load `files` in pandas by extension (and Parquet also in pyarrow); their row counts.
fn pandas_rows(files: &[PathBuf]) -> Vec<usize> {
    let script = r#"
import sys, pandas as pd, pyarrow.parquet as pq
for f in sys.argv[1:]:
    if f.endswith(".csv"):
        df = pd.read_csv(f)
    elif f.endswith(".tsv"):
        df = pd.read_csv(f, sep="\t")
    elif f.endswith(".jsonl"):
        df = pd.read_json(f, lines=True) if open(f).read().strip() else pd.DataFrame()
    else:
        df = pd.read_parquet(f)
        assert pq.read_table(f).num_rows == len(df)
    # pandas guesses dates by column name (read_json: `timestamp...`, `..._at`, `date`): every
    # column it makes a date must hold dates of the web, not 14-digit numbers read as epoch.
    for col in df.columns:
        if pd.api.types.is_datetime64_any_dtype(df[col]) and df[col].notna().any():
            assert df[col].dropna().dt.year.min() >= 1991, (f, col, df[col].dropna().iloc[0])
    if "capture_timestamp" in df.columns:
        stamps = df["capture_timestamp"].dropna().astype("int64").astype(str)
        assert stamps.str.fullmatch(r"\d{14}").all(), (f, stamps.head())
    print(len(df))
"#;
    let out = Command::new("python3")
        .arg("-c")
        .arg(script)
        .args(files)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| l.trim().parse().unwrap())
        .collect()
}

fn run_into(project: &Path, archives: &[PathBuf]) {
    let mut args = vec!["run".to_string()];
    args.extend(archives.iter().map(|a| a.to_string_lossy().into_owned()));
    args.extend(["--project", project.to_str().unwrap(), "--threshold", "0.2"].map(String::from));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    ok(&args, "");
}

#[test]
fn every_real_warc_runs_into_a_project_and_round_trips_through_every_export() {
    let Some(files) = warcs() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    // One at a time.
    for (i, file) in files.iter().enumerate() {
        let project = dir.path().join(format!("single{i}.samecore"));
        run_into(&project, std::slice::from_ref(file));
        let p = Project::open(&project).unwrap();
        assert_eq!(p.runs().unwrap().len(), 1, "{}", file.display());
    }
    // All together, then the whole labelling flow.
    let all = dir.path().join("all.samecore");
    run_into(&all, &files);
    let p = all.to_str().unwrap();
    let out = ok(
        &[
            "sample",
            "--project",
            p,
            "--name",
            "s",
            "--size",
            "8",
            "--seed",
            "3",
        ],
        "",
    );
    assert!(out.contains("8 of"), "{out}");
    ok(
        &[
            "label",
            "--project",
            p,
            "--sample",
            "s",
            "--annotator",
            "ann",
        ],
        "c\ni2\nc\nu note, with \"quotes\"\nc\nc\ni\nc\nq\n",
    );
    ok(
        &[
            "label",
            "--project",
            p,
            "--sample",
            "s",
            "--annotator",
            "bob",
        ],
        "c\nc\nc\ni\nq\n",
    );
    ok(
        &[
            "label",
            "--project",
            p,
            "--sample",
            "s",
            "--annotator",
            "lead",
            "--settle",
            "2=correct",
        ],
        "",
    );
    {
        let mut project = Project::open(&all).unwrap();
        let run = project.runs().unwrap()[0].id;
        let cluster = project.run_clusters(run).unwrap()[0].id;
        let code = project.add_code("same story; \"quoted\"", "").unwrap();
        project
            .code_cluster(run, cluster, code, "ann", CodeSource::Cluster)
            .unwrap();
    }
    let report = ok(&["label", "--project", p, "--sample", "s", "--report"], "");
    assert!(report.contains("precision"), "{report}");

    let mut written = Vec::new();
    let mut expected_rows = Vec::new();
    for ext in ["csv", "tsv", "jsonl", "parquet"] {
        for table in ["pages", "pairs", "runs", "codes"] {
            let out = dir.path().join(format!("{table}.{ext}"));
            let mut args = vec![
                "export",
                "--project",
                p,
                table,
                "--out",
                out.to_str().unwrap(),
            ];
            if table == "pairs" {
                args.extend(["--sample", "s"]);
            }
            let (success, _, err) = samecore(&args, "");
            assert!(success, "{err}");
            let n: usize = err.split_whitespace().next().unwrap().parse().unwrap();
            written.push(out);
            expected_rows.push(n);
        }
    }
    if python_with_pandas() {
        assert_eq!(pandas_rows(&written), expected_rows);
    }
    // An unknown extension is an error, not a CSV under another name.
    let (success, _, err) = samecore(
        &[
            "export",
            "--project",
            p,
            "runs",
            "--out",
            dir.path().join("x.xlsx").to_str().unwrap(),
        ],
        "",
    );
    assert!(!success && err.contains(".parquet"), "{err}");

    // A fresh project that read the same archives takes every export format back.
    for ext in ["csv", "tsv", "jsonl", "parquet"] {
        let fresh = dir.path().join(format!("fresh-{ext}.samecore"));
        run_into(&fresh, &files);
        let f = fresh.to_str().unwrap();
        let pairs = dir.path().join(format!("pairs.{ext}"));
        let codes = dir.path().join(format!("codes.{ext}"));
        ok(
            &[
                "export",
                "--project",
                f,
                "--import-labels",
                pairs.to_str().unwrap(),
                "--import-codes",
                codes.to_str().unwrap(),
            ],
            "",
        );
        let again = ok(&["label", "--project", f, "--sample", "s", "--report"], "");
        // The same estimates, agreement and disagreements; only the header differs (the
        // sample is now an `imported` one, not a draw from a run of this project).
        let (head, body) = again.split_once('\n').unwrap();
        assert!(head.contains("imported"), "{head}");
        assert_eq!(body, report.split_once('\n').unwrap().1, "{ext}");
        let (a, b) = (Project::open(&all).unwrap(), Project::open(&fresh).unwrap());
        let (sa, sb) = (
            a.sample_by_name("s").unwrap().id,
            b.sample_by_name("s").unwrap().id,
        );
        let labels = |p: &Project, s| -> Vec<_> {
            p.labels(s)
                .unwrap()
                .into_iter()
                .map(|l| (l.position, l.annotator, l.label, l.created_at))
                .collect()
        };
        assert_eq!(labels(&a, sa), labels(&b, sb), "{ext}");
        let settled = |p: &Project, s| -> Vec<_> {
            p.settlements(s)
                .unwrap()
                .into_iter()
                .map(|s| (s.position, s.label, s.settled_by))
                .collect()
        };
        assert_eq!(settled(&a, sa), settled(&b, sb), "{ext}");
        let codes = |p: &Project| -> Vec<_> {
            p.page_codes()
                .unwrap()
                .into_iter()
                .map(|c| (c.key, c.code, c.applied, c.applied_by))
                .collect()
        };
        assert_eq!(codes(&a), codes(&b), "{ext}");
    }
}
