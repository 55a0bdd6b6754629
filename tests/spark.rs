//! The Spark job (`spark/samecore_pairs.py`) equals the single machine: on the sample archive
//! and on goldset-dev, `samecore sign` + the job in Spark's local mode give the same pairs as
//! `samecore run --mode allpairs --pairs` at the same threshold (scores equal to 1e-9) and the
//! same clusters as `--rule transitive`; `samecore import-pairs` turns the job's output into a
//! project run with those clusters (`--rule transitive`) or, by default, with the clusters of
//! `samecore run --mode allpairs`.
//!
//! The job needs python3 with pyspark, pyarrow and numpy, and a Java runtime. Without
//! them the test says SKIPPED on standard error; `SAMECORE_REQUIRE_SPARK=1` (as `.ci/run` sets) makes that an error.

mod common;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use samecore::export::shard::read_spark_run;
use samecore::export::{ClusterFileRow, PageRow, PairFileRow, read_rows};

/// The JVM options of every Spark process the tests start: the client compiler only and the
/// serial collector. The tests' jobs are small and short, so the JVM's warm-up is most of their
/// cost: these made this file's tests 415 s instead of 533 s on a 2-core machine. Results do not
/// depend on them.
const TEST_JVM: &str = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC";

fn spark_available() -> bool {
    let pyspark = Command::new("python3")
        .args(["-c", "import pyspark, pyarrow, numpy"])
        .output()
        .is_ok_and(|o| o.status.success());
    let java = Command::new("java")
        .arg("-version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !(pyspark && java) {
        assert!(
            std::env::var("SAMECORE_REQUIRE_SPARK").as_deref() != Ok("1"),
            "SAMECORE_REQUIRE_SPARK=1 but pyspark, pyarrow and numpy ({pyspark}) or java ({java}) is missing"
        );
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED spark: python3 with pyspark, pyarrow and numpy and a Java runtime are needed \
             for the Spark job (pip install pyspark pyarrow numpy; apt-get install \
             default-jre-headless)"
        );
    }
    pyspark && java
}

/// Run python3 with `args`, `spark/` on its `PYTHONPATH` and Spark bound to the loopback
/// interface; it must succeed (`what` names it in the failure). Spark's Python workers inherit
/// `PYTHONPATH`: they unpickle the job's functions by reference to its module when the job is
/// imported rather than run as a script.
fn spark_python(what: &str, args: &[&std::ffi::OsStr]) -> String {
    let result = Command::new("python3")
        .args(args)
        .env(
            "PYTHONPATH",
            Path::new(env!("CARGO_MANIFEST_DIR")).join("spark"),
        )
        .env("SPARK_LOCAL_IP", "127.0.0.1")
        .env("JAVA_TOOL_OPTIONS", TEST_JVM)
        .output()
        .unwrap();
    assert!(
        result.status.success(),
        "{what} failed: {}",
        String::from_utf8_lossy(&result.stderr)
    );
    String::from_utf8_lossy(&result.stdout).into_owned()
}

/// The job's command line for `shards` into `out` at `threshold`, finding pairs with `join`
/// (`broadcast` or `shuffle`).
fn job_args(shards: &Path, out: &Path, threshold: f64, join: &str) -> Vec<String> {
    let path = |p: &Path| p.to_str().expect("a UTF-8 temporary path").to_string();
    let mut args = vec!["--shards".into(), path(shards), "--out".into(), path(out)];
    args.extend(
        [
            "--threshold",
            &threshold.to_string(),
            "--partitions",
            "4",
            "--join",
            join,
        ]
        .map(String::from),
    );
    args
}

/// Run the job's command line (`spark/samecore_pairs.py`'s `main`) once per entry of `runs`, one
/// after the other in one Python process; each must succeed. Each run starts and stops its own
/// Spark session as the script does, but they share one JVM, which a 2-core machine warms up
/// once instead of once per run (in one JVM, the first job on the Python tests' collection took
/// 27 s, the next ones 9 to 16 s).
fn spark_jobs(runs: &[Vec<String>]) {
    let script = "import json, sys\n\
                  import samecore_pairs\n\
                  for argv in json.loads(sys.argv[1]):\n\
                  \x20   if samecore_pairs.main(argv) != 0:\n\
                  \x20       sys.exit(f'samecore_pairs.py {argv} failed')\n";
    let runs = serde_json::to_string(runs).unwrap();
    spark_python(
        "spark/samecore_pairs.py",
        &["-c".as_ref(), script.as_ref(), runs.as_ref()],
    );
}

/// Clusters as a partition: the sorted sets of page keys of every cluster of 2+ pages.
fn partition<K: Ord + Clone>(
    cluster_of: impl IntoIterator<Item = (String, K)>,
) -> BTreeSet<Vec<String>> {
    let mut groups: BTreeMap<K, Vec<String>> = BTreeMap::new();
    for (key, c) in cluster_of {
        groups.entry(c).or_default().push(key);
    }
    groups
        .into_values()
        .filter(|g| g.len() > 1)
        .map(|mut g| {
            g.sort();
            g
        })
        .collect()
}

/// A comparison of the job with the single machine on `archive` at `threshold` with `options`:
/// its shards (signed when made), the job's output folder and the single machine's files.
struct Case<'a> {
    archive: &'a Path,
    options: &'a [&'a str],
    threshold: f64,
    dir: tempfile::TempDir,
}

impl<'a> Case<'a> {
    /// Sign `archive` with `options` into the case's `shards` folder.
    fn signed(archive: &'a Path, options: &'a [&'a str], threshold: f64) -> Case<'a> {
        let dir = tempfile::tempdir().unwrap();
        let mut sign: Vec<OsString> = vec![
            "sign".into(),
            archive.into(),
            "--out".into(),
            dir.path().join("shards").into(),
        ];
        sign.extend(options.iter().map(OsString::from));
        common::samecore(&sign);
        Case {
            archive,
            options,
            threshold,
            dir,
        }
    }

    fn shards(&self) -> PathBuf {
        self.dir.path().join("shards")
    }

    fn out(&self) -> PathBuf {
        self.dir.path().join("out")
    }

    /// The job's command line for this case with `join`.
    fn job(&self, join: &str) -> Vec<String> {
        job_args(&self.shards(), &self.out(), self.threshold, join)
    }
}

/// Sign `archive`, run the job with `job(shards, out)` and the single machine at `threshold`
/// with `options`, and compare ([`compare`]); the number of pairs.
fn job_equals_single_machine_with(
    archive: &Path,
    options: &[&str],
    threshold: f64,
    job: &dyn Fn(&Path, &Path),
) -> usize {
    let case = Case::signed(archive, options, threshold);
    job(&case.shards(), &case.out());
    compare(&case)
}

/// Compare the job's output for `case` (already run) with the single machine's pairs and
/// clusters at the case's threshold and options, and import the job's pairs into a project;
/// the number of pairs.
fn compare(case: &Case) -> usize {
    let (archive, options, threshold) = (case.archive, case.options, case.threshold);
    let (dir, out) = (&case.dir, case.out());
    let t = threshold.to_string();
    let pairs_path = dir.path().join("pairs.tsv");
    let clusters_path = dir.path().join("clusters.tsv");
    let mut run: Vec<OsString> = vec!["run".into(), archive.into()];
    run.extend(
        [
            "--mode",
            "allpairs",
            "--rule",
            "transitive",
            "--threshold",
            &t,
        ]
        .map(OsString::from),
    );
    run.extend(["--pairs".into(), pairs_path.clone().into()]);
    run.extend(["--clusters".into(), clusters_path.clone().into()]);
    run.extend(options.iter().map(OsString::from));
    common::samecore(&run);

    let spark = read_spark_run(&out.join("pairs.parquet")).unwrap();
    let local: Vec<PairFileRow> = read_rows(&pairs_path, None).unwrap();
    let unordered = |a: &str, b: &str| {
        if a < b {
            (a.to_string(), b.to_string())
        } else {
            (b.to_string(), a.to_string())
        }
    };
    let local_pairs: HashMap<(String, String), f64> = local
        .iter()
        .map(|p| (unordered(&p.a_key, &p.b_key), p.score))
        .collect();
    let spark_pairs: HashMap<(String, String), f64> = spark
        .pairs
        .iter()
        .map(|p| (unordered(&p.a_key, &p.b_key), p.score))
        .collect();
    assert_eq!(
        local_pairs.len(),
        local.len(),
        "a pair twice in run --pairs"
    );
    assert_eq!(
        spark_pairs.len(),
        spark.pairs.len(),
        "a pair twice in the job's pairs"
    );
    let only_local: Vec<_> = local_pairs
        .keys()
        .filter(|k| !spark_pairs.contains_key(*k))
        .collect();
    let only_spark: Vec<_> = spark_pairs
        .keys()
        .filter(|k| !local_pairs.contains_key(*k))
        .collect();
    assert!(
        only_local.is_empty() && only_spark.is_empty(),
        "{}: {} pairs only in run --pairs (e.g. {:?}), {} only in the job's (e.g. {:?})",
        archive.display(),
        only_local.len(),
        only_local.first(),
        only_spark.len(),
        only_spark.first()
    );
    for (k, s) in &local_pairs {
        let j = spark_pairs[k];
        assert!((s - j).abs() <= 1e-9, "{k:?}: {s} here, {j} in Spark");
    }

    let local_clusters: Vec<ClusterFileRow> = read_rows(&clusters_path, None).unwrap();
    assert_eq!(spark.pages.len(), local_clusters.len(), "pages");
    let here = partition(
        local_clusters
            .iter()
            .map(|r| (r.key.clone(), r.cluster as i64)),
    );
    let there = partition(spark.pages.iter().map(|p| (p.key.clone(), p.cluster)));
    assert_eq!(
        here,
        there,
        "{}: transitive clusters differ",
        archive.display()
    );

    // Back into a project under the transitive rule: the run's clusters are the job's.
    let imported = |rule: Option<&str>| {
        let project = dir
            .path()
            .join(format!("{}.samecore", rule.unwrap_or("default")));
        let mut args: Vec<OsString> = vec![
            "import-pairs".into(),
            "--project".into(),
            project.clone().into(),
            out.join("pairs.parquet").into(),
        ];
        if let Some(rule) = rule {
            args.extend(["--rule".into(), rule.into()]);
        }
        let stdout = common::samecore(&args);
        assert!(
            stdout.contains(&format!("imported {} pairs", spark.pairs.len())),
            "{stdout}"
        );
        let pages_path = project.with_extension("pages.tsv");
        common::samecore([
            "export".as_ref(),
            "--project".as_ref(),
            project.as_os_str(),
            "pages".as_ref(),
            "--out".as_ref(),
            pages_path.as_os_str(),
        ]);
        let pages: Vec<PageRow> = read_rows(&pages_path, None).unwrap();
        partition(
            pages
                .iter()
                .map(|p| (p.key.clone(), p.cluster.expect("every page has a cluster"))),
        )
    };
    assert_eq!(
        imported(Some("transitive")),
        there,
        "the imported run's clusters"
    );
    assert!(
        !there.is_empty(),
        "{}: no cluster to compare",
        archive.display()
    );

    // By default the pairs are clustered as `samecore run --mode allpairs` clusters them
    // (representative, SpotSigs' link rules), not as the job's components.
    let representative_path = dir.path().join("clusters-representative.tsv");
    let mut run: Vec<OsString> = vec!["run".into(), archive.into()];
    run.extend(["--mode", "allpairs", "--threshold", &t].map(OsString::from));
    run.extend(["--clusters".into(), representative_path.clone().into()]);
    run.extend(options.iter().map(OsString::from));
    common::samecore(&run);
    let local_clusters: Vec<ClusterFileRow> = read_rows(&representative_path, None).unwrap();
    let representative = partition(
        local_clusters
            .iter()
            .map(|r| (r.key.clone(), r.cluster as i64)),
    );
    assert_eq!(
        imported(None),
        representative,
        "{}: the imported run's default clusters",
        archive.display()
    );
    local.len()
}

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("sample_archives/news-sample.warc.gz")
}

#[test]
fn spark_job_equals_allpairs_on_the_sample_and_goldset_dev() {
    if !spark_available() {
        return;
    }
    // The defaults (content blocks, site frame 0.9) at their threshold.
    let sample = sample();
    let mut cases = vec![(Case::signed(&sample, &[], 0.12), "broadcast", 300)];
    let goldset = common::goldset();
    // The paper's setting: whole-page text, no site frame, an IDF band, threshold 0.5.
    let paper = [
        "--tokens",
        "text",
        "--site-frame",
        "off",
        "--idf-band",
        "0.2:0.9",
    ];
    if let Some(goldset) = &goldset {
        // Both ways of finding the pairs: the broadcast index and the prefix self-join.
        for join in ["broadcast", "shuffle"] {
            cases.push((Case::signed(goldset, &[], 0.12), join, 1000));
        }
        cases.push((Case::signed(goldset, &paper, 0.5), "broadcast", 100));
    }
    let runs: Vec<_> = cases.iter().map(|(case, join, _)| case.job(join)).collect();
    spark_jobs(&runs);
    for (case, join, at_least) in &cases {
        let n = compare(case);
        assert!(
            n > *at_least,
            "{n} pairs on {} at {} ({join} join)",
            case.archive.display(),
            case.threshold
        );
    }
}

/// The job's own tests (`spark/test_samecore_pairs.py`): generated shards with boundary cases
/// (pairs exactly at the threshold, a signature on exactly `max_share` of a site, a capture in
/// two shards, pages below the minimum) against a brute-force reference, and its refusals.
#[test]
fn spark_job_passes_its_own_tests_against_a_brute_force_reference() {
    if !spark_available() {
        return;
    }
    let tests = Path::new(env!("CARGO_MANIFEST_DIR")).join("spark/test_samecore_pairs.py");
    spark_python("spark/test_samecore_pairs.py", &[tests.as_os_str()]);
}

#[test]
fn sign_refuses_two_inputs_of_one_name_and_writes_a_shard_per_input() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a");
    let b = dir.path().join("b");
    for d in [&a, &b] {
        std::fs::create_dir_all(d).unwrap();
        std::fs::copy(sample(), d.join("x.warc.gz")).unwrap();
    }
    let out = dir.path().join("shards");
    let failed = Command::new(env!("CARGO_BIN_EXE_samecore"))
        .arg("sign")
        .args([a.join("x.warc.gz"), b.join("x.warc.gz")])
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(!failed.status.success());
    assert!(String::from_utf8_lossy(&failed.stderr).contains("two inputs are named"));
    assert!(!out.exists(), "nothing written");

    std::fs::rename(b.join("x.warc.gz"), b.join("y.warc.gz")).unwrap();
    let stdout = common::samecore([
        "sign".as_ref(),
        a.join("x.warc.gz").as_os_str(),
        b.join("y.warc.gz").as_os_str(),
        "--out".as_ref(),
        out.as_os_str(),
        "--algo".as_ref(),
        "minhash".as_ref(),
    ]);
    // The same captures in two files are one page each: the second shard has none.
    assert!(stdout.contains("x.warc.gz: 439 pages"), "{stdout}");
    assert!(stdout.contains("y.warc.gz: 0 pages"), "{stdout}");
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("x.warc.gz.sign.json")).unwrap())
            .unwrap();
    assert_eq!(manifest["algo"], "minhash");
    assert_eq!(manifest["pages"], 439);
    assert_eq!(manifest["signature_rows"], 439 * 128);
}

/// A Spark standalone cluster on the loopback interface: a master and two workers, each its
/// own JVM with its own work folder, stopped when dropped.
struct Standalone {
    master_url: String,
    processes: Vec<std::process::Child>,
    /// The workers' work folders (an executor of an application runs in `app-…/N`).
    work: Vec<PathBuf>,
}

impl Drop for Standalone {
    fn drop(&mut self) {
        for p in &mut self.processes {
            let _ = p.kill();
            let _ = p.wait();
        }
    }
}

/// A TCP port free now on the loopback interface.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Where pip put Spark (pyspark ships its scripts and jars).
fn spark_home() -> PathBuf {
    let out = Command::new("python3")
        .args([
            "-c",
            "import os, pyspark; print(os.path.dirname(pyspark.__file__))",
        ])
        .output()
        .unwrap();
    PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
}

impl Standalone {
    /// Start a master and two workers of one core and 1 GB each, and wait until both workers
    /// registered (at most two minutes).
    fn start(dir: &Path) -> Standalone {
        let home = spark_home();
        let class = home.join("bin/spark-class");
        let (port, ui) = (free_port(), free_port());
        let master_url = format!("spark://127.0.0.1:{port}");
        let log = |name: &str| std::fs::File::create(dir.join(name)).unwrap();
        let spawn = |args: &[String], log_name: &str| {
            Command::new(&class)
                .args(args)
                .env("SPARK_HOME", &home)
                .env("SPARK_LOCAL_IP", "127.0.0.1")
                .env("JAVA_TOOL_OPTIONS", TEST_JVM)
                .env("PYSPARK_PYTHON", "python3")
                .stdout(log(log_name))
                .stderr(log(&format!("{log_name}.err")))
                .spawn()
                .unwrap()
        };
        let mut processes = vec![spawn(
            &[
                "org.apache.spark.deploy.master.Master".into(),
                "--host".into(),
                "127.0.0.1".into(),
                "--port".into(),
                port.to_string(),
                "--webui-port".into(),
                ui.to_string(),
            ],
            "master.log",
        )];
        for w in 1..=2 {
            let work = dir.join(format!("worker{w}"));
            std::fs::create_dir_all(&work).unwrap();
            processes.push(spawn(
                &[
                    "org.apache.spark.deploy.worker.Worker".into(),
                    master_url.clone(),
                    "--host".into(),
                    "127.0.0.1".into(),
                    "--cores".into(),
                    "1".into(),
                    "--memory".into(),
                    "1g".into(),
                    "--webui-port".into(),
                    free_port().to_string(),
                    "--work-dir".into(),
                    work.display().to_string(),
                ],
                &format!("worker{w}.log"),
            ));
        }
        let cluster = Standalone {
            master_url,
            processes,
            work: (1..=2).map(|w| dir.join(format!("worker{w}"))).collect(),
        };
        let started = std::time::Instant::now();
        loop {
            let said = std::fs::read_to_string(dir.join("master.log.err")).unwrap_or_default();
            if said.matches("Registering worker").count() >= 2 {
                break;
            }
            assert!(
                started.elapsed() < std::time::Duration::from_secs(120),
                "the standalone cluster did not come up: {said}"
            );
            std::thread::sleep(std::time::Duration::from_millis(500));
        }
        cluster
    }

    /// Run the job on the cluster with the documented `spark-submit` line: the driver here, the
    /// executors in the workers' JVMs and Python workers; the shards and the output on storage
    /// every process sees (a local folder here, HDFS or S3 on a real cluster).
    fn submit(&self, shards: &Path, out: &Path, threshold: f64) {
        let home = spark_home();
        let job = Path::new(env!("CARGO_MANIFEST_DIR")).join("spark/samecore_pairs.py");
        let result = Command::new(home.join("bin/spark-submit"))
            .args(["--master", &self.master_url])
            .args([
                "--conf",
                "spark.executor.cores=1",
                "--conf",
                "spark.executor.memory=1g",
            ])
            .arg(job)
            .arg("--shards")
            .arg(shards)
            .arg("--out")
            .arg(out)
            .args(["--threshold", &threshold.to_string()])
            // Spark's default of 200 shuffle partitions made the sample's job 201 s here, 85 s
            // with 4 (the README's advice for a small collection).
            .args(["--partitions", "4"])
            .env("SPARK_HOME", &home)
            .env("SPARK_LOCAL_IP", "127.0.0.1")
            .env("JAVA_TOOL_OPTIONS", TEST_JVM)
            .env("PYSPARK_PYTHON", "python3")
            .env("PYSPARK_DRIVER_PYTHON", "python3")
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&result.stderr);
        assert!(result.status.success(), "spark-submit failed: {err}");
        // The work ran in the workers' executors, not in the driver: a worker made an
        // executor's folder for the application (the driver's log says so only when the
        // executors came up before the job turned its log level down, which a busy machine
        // does not promise).
        let executors = (self.work.iter())
            .filter_map(|w| std::fs::read_dir(w).ok())
            .flatten()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().starts_with("app-"))
            .count();
        assert!(
            executors > 0 || err.contains("Granted executor ID") || err.contains("Executor added"),
            "no executor of the standalone cluster took part: {err}"
        );
    }
}

/// Whether python3 has the samecore package with the Spark job's calls (the whole run's job
/// runs samecore's own code through it, on the driver and in every executor). Without it the
/// test says SKIPPED; `SAMECORE_REQUIRE_PYTHON_PACKAGE=1` (as `.ci/run` sets) makes that an
/// error.
fn extension_available() -> bool {
    let ok = Command::new("python3")
        .args(["-c", "from samecore import _samecore; _samecore.spark_sign"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var("SAMECORE_REQUIRE_PYTHON_PACKAGE").as_deref() != Ok("1"),
            "SAMECORE_REQUIRE_PYTHON_PACKAGE=1 but python3 has no samecore package with the \
             Spark job's calls"
        );
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED the whole run in Spark: the samecore Python package is not installed \
             (pip install ./python)"
        );
    }
    ok
}

/// The whole run's job as `spark/README.md` prints it for a standalone cluster, on `archives`
/// into `out`, started (not waited for): what it prints goes to `log`.
fn submit_whole_run(
    master: &str,
    archives: &[PathBuf],
    out: &Path,
    log: &Path,
) -> std::process::Child {
    let home = spark_home();
    let log = std::fs::File::create(log).unwrap();
    let job = Path::new(env!("CARGO_MANIFEST_DIR")).join("spark/samecore_run.py");
    Command::new(home.join("bin/spark-submit"))
        .args(["--master", master])
        .arg(job)
        .arg("--archives")
        .args(archives)
        .arg("--out")
        .arg(out)
        // A small collection on a cluster: about twice the cores (spark/README.md).
        .args(["--partitions", "4"])
        .env("SPARK_HOME", &home)
        .env("SPARK_LOCAL_IP", "127.0.0.1")
        .env("JAVA_TOOL_OPTIONS", TEST_JVM)
        .env("PYSPARK_PYTHON", "python3")
        .env("PYSPARK_DRIVER_PYTHON", "python3")
        // spark-submit hands the driver's standard error (the job's progress lines) to its
        // own standard output: both go to `log`.
        .stdout(log.try_clone().unwrap())
        .stderr(log)
        .spawn()
        .unwrap()
}

/// A page of the whole run's `clusters.parquet`: the columns compared with `run --clusters`.
#[derive(Debug, serde::Deserialize)]
struct WholeRunPage {
    doc: String,
    cluster: i64,
    representative: bool,
    key: String,
    file: String,
    offset: u64,
    site: String,
    linked_through: Option<String>,
    link_score: Option<f64>,
    title: Option<String>,
    published: Option<String>,
    story_title: Option<String>,
    first_publisher: bool,
    lag_seconds: Option<i64>,
}

/// A pair of the whole run's `pairs.parquet`.
#[derive(Debug, serde::Deserialize)]
struct WholeRunPair {
    a_doc: String,
    b_doc: String,
    a_key: String,
    b_key: String,
    score: f64,
}

/// The rows of every part file of Spark's output folder `dir`.
fn parts<T: serde::de::DeserializeOwned>(dir: &Path) -> Vec<T> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "parquet"))
        .collect();
    files.sort();
    (files.iter())
        .flat_map(|f| read_rows::<T>(f, Some(samecore::export::Format::Parquet)).unwrap())
        .collect()
}

/// The whole run's output in `out` against `samecore run --mode allpairs` on `archives` with
/// the defaults: every page, pair (score to the bit) and cluster (members, representative, the
/// page each is linked through and its score) the same; then the run imported into a project
/// gives those clusters. The number of clusters of 2+ pages.
fn compare_whole_run(archives: &[PathBuf], out: &Path, dir: &Path) -> usize {
    let (pairs_path, clusters_path) = (dir.join("pairs.parquet"), dir.join("clusters.parquet"));
    let mut run: Vec<OsString> = vec!["run".into()];
    run.extend(archives.iter().map(OsString::from));
    run.extend(["--mode".into(), "allpairs".into()]);
    run.extend(["--pairs".into(), pairs_path.clone().into()]);
    run.extend(["--clusters".into(), clusters_path.clone().into()]);
    common::samecore(&run);
    let what = archives[0].display();

    let local: Vec<ClusterFileRow> = read_rows(&clusters_path, None).unwrap();
    let job: Vec<WholeRunPage> = parts(&out.join("clusters.parquet"));
    assert_eq!(job.len(), local.len(), "{what}: pages");
    let by_key: HashMap<&str, &WholeRunPage> = job.iter().map(|p| (p.key.as_str(), p)).collect();
    for l in &local {
        let j = by_key
            .get(l.key.as_str())
            .unwrap_or_else(|| panic!("{what}: page {} not in the job's clusters", l.key));
        assert_eq!(
            (
                &j.doc,
                j.representative,
                &j.linked_through,
                j.link_score,
                &j.site
            ),
            (
                &l.doc,
                l.representative,
                &l.linked_through,
                l.link_score,
                &l.site
            ),
            "{what}: page {}",
            l.key
        );
        assert_eq!(
            (&j.title, &j.published),
            (&l.title, &l.published),
            "{}",
            l.key
        );
        // Of a capture in two archives, the record of the archive given first (the job
        // names files by their qualified paths, `run` as given).
        let file = |f: &str| std::fs::canonicalize(f).unwrap_or_else(|e| panic!("{f}: {e}"));
        assert_eq!(
            (file(&j.file), j.offset),
            (file(&l.file), l.offset),
            "{what}: the record of {}",
            l.key
        );
        assert_eq!(
            (&j.story_title, j.first_publisher, j.lag_seconds),
            (&l.story_title, l.first_publisher, l.lag_seconds),
            "{what}: the story of {}",
            l.key
        );
        assert_eq!(
            j.cluster,
            i64::from(l.cluster),
            "{what}: cluster of {}",
            l.key
        );
    }
    let here = partition(local.iter().map(|r| (r.key.clone(), i64::from(r.cluster))));
    let there = partition(job.iter().map(|p| (p.key.clone(), p.cluster)));
    assert_eq!(here, there, "{what}: clusters");
    // The stories were told: titles with their sites' words taken out, first publishers, lags.
    assert!(
        (local.iter()).any(|l| l.story_title.is_some() && l.story_title != l.title)
            && local.iter().any(|l| l.first_publisher)
            && local.iter().any(|l| l.lag_seconds.is_some_and(|s| s > 0)),
        "{what}: no story title, first publisher or lag to compare"
    );

    let local_pairs: Vec<PairFileRow> = read_rows(&pairs_path, None).unwrap();
    let job_pairs: Vec<WholeRunPair> = parts(&out.join("pairs.parquet"));
    let key = |a: &str, b: &str| (a.to_string(), b.to_string());
    let here: BTreeMap<(String, String), (u64, &str, &str)> = (local_pairs.iter())
        .map(|p| {
            (
                key(&p.a_key, &p.b_key),
                (p.score.to_bits(), &*p.a_doc, &*p.b_doc),
            )
        })
        .collect();
    let there: BTreeMap<(String, String), (u64, &str, &str)> = (job_pairs.iter())
        .map(|p| {
            (
                key(&p.a_key, &p.b_key),
                (p.score.to_bits(), &*p.a_doc, &*p.b_doc),
            )
        })
        .collect();
    assert_eq!(here.len(), local_pairs.len());
    assert_eq!(
        there.len(),
        job_pairs.len(),
        "{what}: a pair twice in the job's"
    );
    let only_here: Vec<_> = here
        .keys()
        .filter(|k| !there.contains_key(*k))
        .take(3)
        .collect();
    let only_there: Vec<_> = there
        .keys()
        .filter(|k| !here.contains_key(*k))
        .take(3)
        .collect();
    assert!(
        only_here.is_empty() && only_there.is_empty(),
        "{what}: pairs only in run's {only_here:?}, only in the job's {only_there:?}"
    );
    assert_eq!(here, there, "{what}: pairs' scores or docs");

    // Into a project: the run `import-pairs` makes of the job is `run`'s. The archives are
    // found where the job's run.json says they are.
    let project = dir.join("imported.samecore");
    let mut import: Vec<OsString> = vec!["import-pairs".into(), "--project".into()];
    import.extend([project.clone().into(), out.join("pairs.parquet").into()]);
    common::samecore(&import);
    let pages_path = dir.join("imported-pages.tsv");
    common::samecore([
        "export".as_ref(),
        "--project".as_ref(),
        project.as_os_str(),
        "pages".as_ref(),
        "--out".as_ref(),
        pages_path.as_os_str(),
    ]);
    let pages: Vec<PageRow> = read_rows(&pages_path, None).unwrap();
    let imported = partition(
        (pages.iter()).map(|p| (p.key.clone(), p.cluster.expect("every page has a cluster"))),
    );
    let clusters = partition(local.iter().map(|r| (r.key.clone(), i64::from(r.cluster))));
    assert_eq!(imported, clusters, "{what}: the imported run's clusters");
    clusters.len()
}

/// The inputs of the whole run's test: the sample archive, goldset-dev, and the seven shared
/// WARC files together (those two when `../shared` is there).
fn whole_run_cases() -> Vec<(&'static str, Vec<PathBuf>, usize)> {
    let mut cases = vec![("sample", vec![sample()], 100)];
    if let Some(goldset) = common::goldset() {
        cases.push(("goldset-dev", vec![goldset], 40));
    }
    if let Some(warc) = common::shared("data/warc") {
        let mut files: Vec<PathBuf> = (std::fs::read_dir(&warc).unwrap().flatten())
            .map(|e| e.path())
            .collect();
        files.sort();
        assert_eq!(files.len(), 7, "the seven shared WARC files");
        cases.push(("the seven WARCs", files, 40));
    }
    cases
}

/// On one standalone master and two one-core workers, each job with the README's
/// `spark-submit` line (one cluster for all: starting one costs more than a small job):
/// - the step-by-step job (`samecore_pairs.py` on shards from `samecore sign`) gives
///   single-machine all-pairs' pairs and clusters;
/// - the whole run in Spark — archives read and signed in the executors, matched and
///   clustered there with samecore's code — gives the pages, pairs and clusters of `samecore
///   run --mode allpairs`, on the sample, goldset-dev and the seven shared WARCs together;
/// - on the sample given twice (a copy of it first: every capture in two archives, the record
///   of the first kept), with an executor killed once the pages are read (while the job
///   filters and matches): Spark runs its tasks again on the other executor and a new one,
///   and the result is the single machine's all the same.
#[test]
fn spark_standalone_cluster_equals_the_single_machine_even_with_an_executor_killed() {
    if !spark_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let cluster = Standalone::start(dir.path());
    let n = job_equals_single_machine_with(&sample(), &[], 0.12, &|shards, out| {
        cluster.submit(shards, out, 0.12)
    });
    assert!(n > 300, "{n} pairs on the sample");
    if !extension_available() {
        return;
    }
    for (name, mut archives, at_least) in whole_run_cases() {
        let case = dir.path().join(name.replace(' ', "-"));
        std::fs::create_dir_all(&case).unwrap();
        let kill = name == "sample";
        if kill {
            // Every capture in two archives: the job keeps the record of the one given first,
            // as `run` does.
            let copy = case.join("copy-of-the-sample.warc.gz");
            std::fs::copy(sample(), &copy).unwrap();
            archives.insert(0, copy);
        }
        let (out, log) = (case.join("out"), case.join("job.log"));
        let mut job = submit_whole_run(&cluster.master_url, &archives, &out, &log);
        if kill {
            kill_an_executor_once_read(&mut job, &cluster.work[0], &log);
        }
        let status = job.wait().unwrap();
        let said = std::fs::read_to_string(&log).unwrap_or_default();
        assert!(status.success(), "{name}: the job failed: {said}");
        if kill {
            assert!(
                said.contains("Lost executor"),
                "the driver did not see an executor lost: {said}"
            );
        }
        let clusters = compare_whole_run(&archives, &out, &case);
        assert!(clusters >= at_least, "{name}: {clusters} clusters");
    }
}

/// Once the whole run's job `job` has said it read the pages (in `log`), every process of the
/// executor working in `work` killed (SIGKILL).
fn kill_an_executor_once_read(job: &mut std::process::Child, work: &Path, log: &Path) {
    let started = std::time::Instant::now();
    let mut killed = Vec::new();
    while killed.is_empty() {
        let said = std::fs::read_to_string(log).unwrap_or_default();
        assert!(
            job.try_wait().unwrap().is_none(),
            "the job ended before an executor could be killed: {said}"
        );
        assert!(
            started.elapsed() < std::time::Duration::from_secs(600),
            "{said}"
        );
        if said.contains("read and signed:") {
            for pid in processes_in(work) {
                if Command::new("kill")
                    .args(["-9", &pid.to_string()])
                    .status()
                    .is_ok_and(|s| s.success())
                {
                    killed.push(pid);
                }
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
}

/// The processes whose working folder is inside `dir` (an executor of a standalone worker runs
/// in `WORK/app-…/N`).
fn processes_in(dir: &Path) -> Vec<u32> {
    let dir = std::fs::canonicalize(dir).unwrap();
    (std::fs::read_dir("/proc").unwrap().flatten())
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read_link(format!("/proc/{pid}/cwd")).is_ok_and(|cwd| cwd.starts_with(&dir))
        })
        .collect()
}

/// The whole run's job refuses what it cannot do with one line and exit code 2, before it
/// writes anything: an archive pattern that matches nothing, an `--out` already there, a
/// threshold outside (0, 1], an `--out` that is a file (the archive it reads: it survives).
#[test]
fn spark_whole_run_refuses_bad_input() {
    if !spark_available() || !extension_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    let missing = dir.path().join("no-such-*.warc.gz");
    let script = "import io, json, sys, contextlib\n\
                  import samecore_run\n\
                  said = []\n\
                  for argv in json.loads(sys.argv[1]):\n\
                  \x20   err = io.StringIO()\n\
                  \x20   with contextlib.redirect_stderr(err):\n\
                  \x20       code = samecore_run.main(argv)\n\
                  \x20   said.append([code, err.getvalue()])\n\
                  print(json.dumps(said))\n";
    let (sample, out_s, missing_s) = (
        sample().display().to_string(),
        out.display().to_string(),
        missing.display().to_string(),
    );
    let runs = serde_json::json!([
        [
            "--archives",
            missing_s,
            "--out",
            dir.path().join("o1").display().to_string(),
            "--master",
            "local[1]"
        ],
        ["--archives", sample, "--out", out_s, "--master", "local[1]"],
        [
            "--archives",
            sample,
            "--out",
            dir.path().join("o3").display().to_string(),
            "--threshold",
            "1.5"
        ],
        // An --out that is a file (here the archive itself) is refused, --overwrite or not.
        [
            "--archives",
            sample,
            "--out",
            sample,
            "--overwrite",
            "--master",
            "local[1]"
        ],
    ]);
    let archive_before = std::fs::read(&sample).unwrap();
    let printed = spark_python(
        "samecore_run.main",
        &["-c".as_ref(), script.as_ref(), runs.to_string().as_ref()],
    );
    let said: Vec<(i32, String)> =
        serde_json::from_str(printed.lines().last().expect("what the runs said")).unwrap();
    let expected = [
        "no archive there",
        "exists: give --overwrite",
        "outside (0, 1]",
        "is a file, not a folder",
    ];
    assert_eq!(said.len(), expected.len());
    for ((code, err), what) in said.iter().zip(expected) {
        assert_eq!(*code, 2, "{err}");
        assert!(
            err.contains(what) && err.lines().count() == 1,
            "{err:?} should say {what:?}"
        );
    }
    assert!(!dir.path().join("o1").exists() && !dir.path().join("o3").exists());
    assert_eq!(
        std::fs::read_dir(&out).unwrap().count(),
        0,
        "the existing --out was touched"
    );
    assert!(
        std::fs::read(&sample).unwrap() == archive_before,
        "the archive was touched"
    );
}
