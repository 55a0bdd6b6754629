//! Krippendorff's alpha through `samecore agreement`, checked against a reference no one here
//! wrote: the `krippendorff` Python package (pip), on seeded random long tables (2–6 coders,
//! 20–500 units, every level, 0–30 % missing), and Krippendorff (2011)'s published example.
//! Without python3 and the package the comparison is skipped with a message, unless
//! `SAMECORE_REQUIRE_PYTHON=1` (as `.ci/run` sets after installing it).

mod common;

use std::io::Write;
use std::path::Path;
use std::process::Command;

use rand::{Rng, SeedableRng};

fn python_with_krippendorff() -> bool {
    let found = Command::new("python3")
        .args(["-c", "import krippendorff, numpy"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        assert!(
            std::env::var("SAMECORE_REQUIRE_PYTHON").as_deref() != Ok("1"),
            "SAMECORE_REQUIRE_PYTHON=1 but python3 with krippendorff and numpy is missing"
        );
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED the check against the krippendorff package: python3 with krippendorff is \
             absent (pip install krippendorff)"
        );
    }
    found
}

/// The alpha per variable `samecore agreement --json` gives for `file` at `level`.
fn samecore_alpha(file: &Path, level: &str) -> Vec<(String, Option<f64>)> {
    let out = common::samecore([
        "agreement".as_ref(),
        "--values".as_ref(),
        file.as_os_str(),
        "--level".as_ref(),
        level.as_ref(),
        "--resamples".as_ref(),
        "200".as_ref(),
        "--json".as_ref(),
    ]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    v["variables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["variable"].as_str().unwrap().to_string(),
                r["alpha"].as_f64(),
            )
        })
        .collect()
}

#[test]
fn alpha_equals_the_krippendorff_package_and_the_published_example() {
    let dir = tempfile::tempdir().unwrap();
    // Krippendorff 2011, §C: 4 coders × 12 units, values 1–5 with gaps.
    let paper = [
        "1 2 3 3 2 1 4 1 2 . . .",
        "1 2 3 3 2 2 4 1 2 5 . 3",
        ". 3 3 3 2 3 4 2 2 5 1 .",
        "1 2 3 3 2 4 4 1 2 5 1 .",
    ];
    let mut csv = String::from("unit,coder,variable,value\n");
    for (c, values) in paper.iter().enumerate() {
        for (u, v) in values.split(' ').enumerate() {
            let v = if v == "." { "" } else { v };
            csv.push_str(&format!("u{u},c{c},example,{v}\n"));
        }
    }
    let file = dir.path().join("paper.csv");
    std::fs::write(&file, csv).unwrap();
    for (level, published) in [
        ("nominal", 0.743),
        ("ordinal", 0.815),
        ("interval", 0.849),
        ("ratio", 0.797),
    ] {
        let a = samecore_alpha(&file, level)[0].1.unwrap();
        assert!((a - published).abs() < 5e-4, "{level}: {a}");
    }
    if !python_with_krippendorff() {
        return;
    }
    // Seeded random tables: each a variable per level-case, coders × units with gaps.
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(61);
    let mut cases = Vec::new();
    for case in 0..40 {
        let coders = rng.random_range(2..=6);
        let units = rng.random_range(20..=500);
        let missing = rng.random_range(0.0..0.3);
        let values = rng.random_range(2..=7);
        let mut matrix = vec![vec![None; units]; coders];
        for row in matrix.iter_mut() {
            for cell in row.iter_mut() {
                if !rng.random_bool(missing) {
                    *cell = Some(rng.random_range(1..=values));
                }
            }
        }
        cases.push((format!("v{case:02}"), matrix));
    }
    let mut csv = String::from("unit,coder,variable,value\n");
    for (name, matrix) in &cases {
        for (c, row) in matrix.iter().enumerate() {
            for (u, v) in row.iter().enumerate() {
                let v = v.map_or(String::new(), |v| v.to_string());
                csv.push_str(&format!("u{u},c{c},{name},{v}\n"));
            }
        }
    }
    let file = dir.path().join("random.csv");
    std::fs::write(&file, csv).unwrap();
    let matrices = dir.path().join("matrices.json");
    let as_json: serde_json::Map<String, serde_json::Value> = cases
        .iter()
        .map(|(n, m)| (n.clone(), serde_json::json!(m)))
        .collect();
    std::fs::write(&matrices, serde_json::to_string(&as_json).unwrap()).unwrap();
    let script = r#"
import json, sys, numpy as np, krippendorff
cases = json.load(open(sys.argv[1]))
out = {}
for level in ["nominal", "ordinal", "interval", "ratio"]:
    out[level] = {}
    for name, m in cases.items():
        data = np.array([[np.nan if v is None else v for v in row] for row in m], dtype=float)
        out[level][name] = float(krippendorff.alpha(reliability_data=data, level_of_measurement=level))
print(json.dumps(out))
"#;
    let py = Command::new("python3")
        .args(["-c", script])
        .arg(&matrices)
        .output()
        .unwrap();
    assert!(
        py.status.success(),
        "{}",
        String::from_utf8_lossy(&py.stderr)
    );
    let reference: serde_json::Value = serde_json::from_slice(&py.stdout).unwrap();
    for level in ["nominal", "ordinal", "interval", "ratio"] {
        let mut worst: f64 = 0.0;
        for (name, ours) in samecore_alpha(&file, level) {
            let theirs = reference[level][&name].as_f64().unwrap();
            let ours = ours.unwrap();
            worst = worst.max((ours - theirs).abs());
            assert!(
                (ours - theirs).abs() < 1e-9,
                "{level} {name}: {ours} vs {theirs}"
            );
        }
        let _ = writeln!(std::io::stderr(), "{level}: max |difference| {worst:.1e}");
    }
}

#[test]
fn bad_tables_are_named_and_nothing_is_computed() {
    let dir = tempfile::tempdir().unwrap();
    let missing_column = dir.path().join("a.csv");
    std::fs::write(&missing_column, "unit,coder,value\ns1,ana,1\n").unwrap();
    let (ok, _, err) = common::samecore_with_input(
        &["agreement", "--values", missing_column.to_str().unwrap()],
        "",
    );
    assert!(!ok && err.contains("no `variable` column"), "{err}");
    let two = dir.path().join("b.csv");
    std::fs::write(
        &two,
        "unit,coder,variable,value\ns1,ana,tone,1\ns1,ana,tone,2\n",
    )
    .unwrap();
    let (ok, _, err) =
        common::samecore_with_input(&["agreement", "--values", two.to_str().unwrap()], "");
    assert!(!ok && err.contains("two values"), "{err}");
    let (ok, _, err) = common::samecore_with_input(
        &[
            "agreement",
            "--values",
            two.to_str().unwrap(),
            "--level",
            "cardinal",
        ],
        "",
    );
    assert!(!ok && err.contains("cardinal"), "{err}");
}
