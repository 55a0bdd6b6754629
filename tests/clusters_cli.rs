//! `samecore clusters`: a run's clusters and one cluster's members on the terminal,
//! on the project's sample archive.

mod common;

#[test]
fn clusters_lists_a_runs_clusters_and_a_clusters_members() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("p.samecore");
    let p = p.to_str().unwrap();
    let sample = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/sample_archives/news-sample.warc.gz"
    );
    let tsv = dir.path().join("c.tsv");
    common::samecore([
        "run",
        sample,
        "--project",
        p,
        "--clusters",
        tsv.to_str().unwrap(),
    ]);
    let out = common::samecore(["clusters", "--project", p]);
    let first = out.lines().next().unwrap();
    let groups: usize = first.split_whitespace().nth(2).unwrap().parse().unwrap();
    // As many clusters of 2+ pages as the run's export has.
    let text = std::fs::read_to_string(&tsv).unwrap();
    let mut sizes = std::collections::HashMap::<&str, usize>::new();
    for l in text.lines().skip(1) {
        *sizes.entry(l.split('\t').nth(1).unwrap()).or_default() += 1;
    }
    assert_eq!(groups, sizes.values().filter(|&&n| n > 1).count(), "{out}");
    // The largest cluster first, with its size; its members have titles and links.
    let (largest, n) = sizes
        .iter()
        .max_by_key(|(c, n)| (**n, std::cmp::Reverse(*c)))
        .unwrap();
    let row = out.lines().nth(2).unwrap();
    let mut f = row.split_whitespace();
    assert_eq!(f.next(), Some(*largest), "{out}");
    assert_eq!(f.next(), Some(n.to_string().as_str()), "{out}");
    let members = common::samecore(["clusters", "--project", p, "--cluster", largest, "--json"]);
    let rows: Vec<serde_json::Value> = members
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), *n);
    assert!(
        rows.iter()
            .all(|r| r["title"].is_string() && r["link_score"].is_number())
    );
    assert_eq!(
        rows.iter().filter(|r| r["representative"] == true).count(),
        1
    );
}
