//! Signature shards, for matching past one machine: what `samecore sign` writes for the Spark
//! job in the repository's `spark/` folder, and that job's pairs and pages read back.
//!
//! Per input archive `NAME`, three files in the output folder:
//! - `NAME.pages.parquet`: one [`ShardPage`] per page (its identity as the field writes it, its
//!   site, its gold cluster when known, its number of signatures, and its id);
//! - `NAME.signatures.parquet`: for SpotSigs one row per page and distinct signature
//!   (`page`, `signature`, `count`: the page's multiset); for MinHash one row per page and
//!   permutation (`page`, `slot`, `value`);
//! - `NAME.sign.json`: a [`SignManifest`]: the algorithm and every parameter that decides the
//!   signatures and the collection-wide filters the job applies (SpotSigs' site frame, IDF band
//!   and minimum signatures), so shards signed apart can be checked to agree.
//!
//! Signing is per input and needs nothing from the other inputs (but revisits, resolved against
//! the inputs given together): a shell loop or each Spark worker can sign its own files.
//!
//! Ids are stable, whatever the run, the machine or the input order: a page's id is the XXH3-64
//! of its capture key (the project's page identity), a SpotSigs signature is the hash samecore
//! matches on ([`crate::token::term_hash`]'s FNV-1a and MurmurHash3 finaliser, unseeded). Both
//! are written as signed 64-bit integers, bit for bit, since Spark has no unsigned 64-bit type.
//! Signature rows go to Parquet in batches, so a shard never holds a second copy of an archive's
//! signatures in memory.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::{ArrayRef, Int32Array, Int64Array, RecordBatch};
use arrow_schema::{DataType, Field, Schema};
use serde::{Deserialize, Serialize};

use crate::{Error, Result};

/// The `format` of a [`SignManifest`].
pub const SIGN_FORMAT: &str = "samecore-signatures";
/// The shard layout's version.
pub const SIGN_VERSION: u32 = 1;
/// The `format` of the Spark job's `run.json`.
pub const SPARK_RUN_FORMAT: &str = "samecore-spark-run";

/// Signature rows per Parquet row group and write.
const BATCH_ROWS: usize = 1 << 20;

/// A page of a shard.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ShardPage {
    /// The page's id: [`page_id`] of its capture key.
    pub page: i64,
    /// The capture key (`<timestamp> <URL> <digest>`), the project's page identity.
    pub key: String,
    /// `WARC-Record-ID`.
    pub record_id: Option<String>,
    /// Target URL.
    pub url: Option<String>,
    /// 14-digit capture timestamp.
    pub timestamp: Option<String>,
    /// Capture date, ISO 8601.
    pub date: Option<String>,
    /// The archive file the record is in (absolute).
    pub file: String,
    /// Byte offset of the record in the file.
    pub offset: i64,
    /// Length of the record in the file.
    pub length: i64,
    /// Payload digest.
    pub digest: Option<String>,
    /// The site SpotSigs' frame filter groups the page by (registrable domain of its URL, else
    /// of most of its links).
    pub site: Option<String>,
    /// Gold cluster, when known.
    pub gold: Option<String>,
    /// Signature occurrences (SpotSigs; before the collection-wide filters) or permutations
    /// (MinHash; 0 for a page without shingles).
    pub signatures: i64,
}

impl ShardPage {
    /// The shard row of `doc` (its id [`page_id`] of its capture key), in archive `file` (as
    /// the shard names it: absolute), with its gold cluster's name and its number of
    /// signatures.
    pub fn of(
        doc: &crate::Document,
        file: String,
        gold: Option<String>,
        signatures: i64,
    ) -> ShardPage {
        let key = doc.capture();
        ShardPage {
            page: page_id(&key),
            key,
            record_id: doc.record_id().map(str::to_string),
            url: doc.url.as_deref().map(String::from),
            timestamp: doc.date.as_deref().and_then(crate::document::timestamp14),
            date: doc.date.as_deref().map(String::from),
            file,
            offset: doc.location.offset as i64,
            length: doc.location.length as i64,
            digest: doc.digest().map(str::to_string),
            // The site the frame filter groups the page by (`SpotSigsDetector::sign_raw`).
            site: Some(doc.site.registrable.to_string()).filter(|s| !s.is_empty()),
            gold,
            signatures,
        }
    }
}

/// How a shard names archive `file`: its canonical path, else its absolute one.
pub fn absolute_name(file: &Path) -> String {
    std::fs::canonicalize(file)
        .or_else(|_| std::path::absolute(file))
        .unwrap_or_else(|_| file.to_path_buf())
        .display()
        .to_string()
}

/// Pages of one input signed for SpotSigs, as a Spark executor asks for them
/// ([`sign_spotsigs`]): the shard rows, what a run's cluster export says of each page besides,
/// and its raw signature hashes (a multiset, before the collection-wide filters).
#[derive(Debug, Clone, Default)]
pub struct SignedPages {
    /// One row per page, in reading order.
    pub pages: Vec<ShardPage>,
    /// Per page, parallel to `pages`.
    pub more: Vec<PageMore>,
    /// Each page's signature hashes.
    pub hashes: Vec<Box<[u64]>>,
    /// The revisits whose originals are in none of the inputs read.
    pub unresolved: Vec<crate::archive::UnresolvedRevisit>,
}

/// What a run's cluster export ([`super::ClusterFileRow`]) says of a page besides its shard
/// row, and its payload check.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PageMore {
    /// Which of the inputs it was read from (a resolved revisit: the input of the revisit;
    /// its location is its original's).
    pub input: u32,
    /// The document's key (the export's `doc`).
    pub doc: String,
    /// XXH3 of the payload ([`crate::Document::payload_check`]), bit for bit as signed:
    /// identical pages have equal digests and checks.
    pub payload_check: i64,
    /// The language its signatures were made in.
    pub language: Option<String>,
    /// Its `<title>`.
    pub title: Option<String>,
    /// Its publication day, date and where the date was found.
    pub published_day: Option<String>,
    /// As ISO 8601.
    pub published: Option<String>,
    /// Where it was found.
    pub published_source: Option<String>,
    /// The site its title's own words are learnt under ([`crate::headline::title_site`]):
    /// its registrable domain, else the domain its links point to.
    pub title_site: Option<String>,
}

/// Read `inputs` together and sign every page for SpotSigs with `params`, as `samecore sign`
/// does (no page text kept; revisits resolved among `inputs`; gold clusters found as `run`
/// finds them), without writing anything.
pub fn sign_spotsigs(
    inputs: &[PathBuf],
    params: &crate::signature::SpotSigsParams,
    progress: &crate::progress::Progress,
) -> Result<(SignedPages, Vec<crate::archive::FileReport>)> {
    let detector = crate::detectors::spotsigs::SpotSigsDetector::new(params)?;
    let options = crate::archive::ReadOptions {
        keep_html: crate::archive::KeepHtml::None,
        publication_dates: true,
    };
    let (collection, raw, unresolved) =
        crate::archive::load_with_unresolved(inputs, &options, progress, &|d, text| {
            detector.raw_page(d, text)
        })?;
    // Which input each page was read from: the inputs' pages come one input after the other.
    let mut input_of = Vec::with_capacity(collection.docs.len());
    for (i, r) in collection.reports.iter().enumerate() {
        input_of.extend(std::iter::repeat_n(i as u32, r.documents as usize));
    }
    if input_of.len() != collection.docs.len() {
        return Err(Error::InvalidParameter(
            "the readers' reports do not add up to the pages read".into(),
        ));
    }
    let (gold, _) = crate::eval::gold::find(inputs, &collection.docs, None)?;
    let mut files: std::collections::HashMap<Arc<Path>, String> = Default::default();
    let docs = &collection.docs;
    let pages = (docs.iter().enumerate())
        .map(|(i, d)| {
            let file = (files.entry(d.location.file.clone()))
                .or_insert_with(|| absolute_name(&d.location.file))
                .clone();
            ShardPage::of(d, file, gold.name_of(i), raw[i].hashes.len() as i64)
        })
        .collect();
    let more = (docs.iter().zip(&raw).zip(&input_of))
        .map(|((d, r), &input)| PageMore {
            input,
            doc: d.key.to_string(),
            payload_check: d.payload_check as i64,
            language: r.language.map(String::from),
            title: d.title.as_deref().map(String::from),
            published_day: d.published.map(|p| p.at.ymd()),
            published: d.published.map(|p| p.at.iso()),
            published_source: d.published.map(|p| p.source.name().to_string()),
            title_site: Some(crate::headline::title_site(d).to_string()).filter(|s| !s.is_empty()),
        })
        .collect();
    let hashes = raw.into_iter().map(|r| r.hashes).collect();
    Ok((
        SignedPages {
            pages,
            more,
            hashes,
            unresolved,
        },
        collection.reports,
    ))
}

/// What a shard holds and how it was signed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SignManifest {
    /// [`SIGN_FORMAT`].
    pub format: String,
    /// [`SIGN_VERSION`].
    pub version: u32,
    /// `spotsigs` or `minhash`.
    pub algo: String,
    /// The input archive, as given.
    pub input: String,
    /// Pages in the shard.
    pub pages: usize,
    /// Rows of the signatures file.
    pub signature_rows: usize,
    /// The detector's parameters, as the project stores them.
    pub params: serde_json::Value,
    /// The samecore version that signed.
    pub samecore: String,
}

/// A page's id in shards and in the Spark job: XXH3-64 of its capture key, as a signed integer.
pub fn page_id(capture: &str) -> i64 {
    xxhash_rust::xxh3::xxh3_64(capture.as_bytes()) as i64
}

/// The three files of the shard of input `name` in `dir`: pages, signatures, manifest.
pub fn shard_paths(dir: &Path, name: &str) -> [PathBuf; 3] {
    [
        dir.join(format!("{name}.pages.parquet")),
        dir.join(format!("{name}.signatures.parquet")),
        dir.join(format!("{name}.sign.json")),
    ]
}

fn shard_error(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::io(std::io::Error::other(e.to_string()), path)
}

/// Write `(page, signature, count)` rows: each page's hashes (a multiset, any order) counted.
pub fn write_spotsigs(path: &Path, pages: &[i64], hashes: &[impl AsRef<[u64]>]) -> Result<usize> {
    write_triples(path, spotsigs_schema(), spotsigs_rows(pages, hashes))
}

/// The columns of a SpotSigs signatures shard: `page`, `signature`, `count`.
fn spotsigs_schema() -> Arc<Schema> {
    Arc::new(Schema::new(vec![
        Field::new("page", DataType::Int64, false),
        Field::new("signature", DataType::Int64, false),
        Field::new("count", DataType::Int32, false),
    ]))
}

/// The `(page, signature, count)` rows of pages `pages` with signature hashes `hashes`, each
/// page's distinct hashes ascending (as unsigned), hashes written bit for bit as signed.
fn spotsigs_rows<'a>(
    pages: &'a [i64],
    hashes: &'a [impl AsRef<[u64]>],
) -> impl Iterator<Item = (i64, i64, i64)> + 'a {
    pages.iter().zip(hashes).flat_map(|(&page, h)| {
        let mut sorted = h.as_ref().to_vec();
        sorted.sort_unstable();
        let mut counted: Vec<(u64, i32)> = Vec::new();
        for x in sorted {
            match counted.last_mut() {
                Some((last, c)) if *last == x => *c += 1,
                _ => counted.push((x, 1)),
            }
        }
        counted
            .into_iter()
            .map(move |(x, c)| (page, x as i64, i64::from(c)))
    })
}

/// The rows a signatures shard of `signed` holds, as one record batch (what a Spark executor
/// hands on without writing a file).
pub fn spotsigs_batch(signed: &SignedPages) -> Result<RecordBatch> {
    let ids: Vec<i64> = signed.pages.iter().map(|p| p.page).collect();
    let (mut a, mut b, mut c) = (Vec::new(), Vec::new(), Vec::new());
    for (x, y, z) in spotsigs_rows(&ids, &signed.hashes) {
        a.push(x);
        b.push(y);
        c.push(z as i32);
    }
    RecordBatch::try_new(
        spotsigs_schema(),
        vec![
            Arc::new(Int64Array::from(a)),
            Arc::new(Int64Array::from(b)),
            Arc::new(Int32Array::from(c)),
        ],
    )
    .map_err(|e| Error::InvalidParameter(format!("signature rows: {e}")))
}

/// Write `(page, slot, value)` rows: each page's MinHash min-values by permutation.
pub fn write_minhash(path: &Path, pages: &[i64], values: &[Vec<u32>]) -> Result<usize> {
    let schema = Arc::new(Schema::new(vec![
        Field::new("page", DataType::Int64, false),
        Field::new("slot", DataType::Int32, false),
        Field::new("value", DataType::Int64, false),
    ]));
    let rows = pages.iter().zip(values).flat_map(|(&page, v)| {
        v.iter()
            .enumerate()
            .map(move |(slot, &x)| (page, slot as i64, i64::from(x)))
    });
    write_triples(path, schema, rows)
}

/// Write rows of three integer columns (the second and third typed by `schema`) in batches,
/// through a temporary file renamed into place ([`super::format::write_file_with`]).
fn write_triples(
    path: &Path,
    schema: Arc<Schema>,
    rows: impl Iterator<Item = (i64, i64, i64)>,
) -> Result<usize> {
    super::format::write_file_with(path, Some(super::Format::Parquet), |file, _| {
        let props = parquet::file::properties::WriterProperties::builder()
            .set_compression(parquet::basic::Compression::SNAPPY)
            .set_max_row_group_row_count(Some(BATCH_ROWS))
            .build();
        let mut writer = parquet::arrow::ArrowWriter::try_new(file, schema.clone(), Some(props))
            .map_err(|e| shard_error(path, e))?;
        let column = |i: usize, v: Vec<i64>| -> ArrayRef {
            match schema.field(i).data_type() {
                DataType::Int32 => Arc::new(Int32Array::from_iter_values(
                    v.into_iter().map(|x| x as i32),
                )),
                _ => Arc::new(Int64Array::from(v)),
            }
        };
        let mut total = 0;
        let mut rows = rows.peekable();
        while rows.peek().is_some() {
            let (mut a, mut b, mut c) = (Vec::new(), Vec::new(), Vec::new());
            for (x, y, z) in rows.by_ref().take(BATCH_ROWS) {
                a.push(x);
                b.push(y);
                c.push(z);
            }
            total += a.len();
            let batch = RecordBatch::try_new(
                schema.clone(),
                vec![column(0, a), column(1, b), column(2, c)],
            )
            .map_err(|e| shard_error(path, e))?;
            writer.write(&batch).map_err(|e| shard_error(path, e))?;
        }
        writer.close().map_err(|e| shard_error(path, e))?;
        Ok(total)
    })
}

/// A scored pair of the Spark job (`pairs.parquet`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SparkPair {
    /// First page's capture key.
    pub a_key: String,
    /// Second page's capture key.
    pub b_key: String,
    /// Multiset Jaccard.
    pub score: f64,
    /// Whether matching found it: the whole run's job (`samecore_run.py`) also writes the
    /// pairs of 1 that identical pages add, `false` unless matching found them too. Missing
    /// from the pairs job, all of whose pairs matching found.
    #[serde(default)]
    pub matched: Option<bool>,
}

/// A page of the Spark job (`clusters.parquet`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SparkPage {
    /// Capture key.
    pub key: String,
    /// The archive file it was signed from.
    pub file: String,
    /// Its cluster (connected components of the pairs).
    pub cluster: i64,
    /// Its signatures after the collection-wide filters; 0 for a page left out of matching.
    pub signatures_kept: i64,
}

/// What the Spark job wrote: its pairs, every page with its cluster, and its `run.json`.
#[derive(Debug, Clone, Default)]
pub struct SparkRun {
    /// Scored pairs at or above the threshold.
    pub pairs: Vec<SparkPair>,
    /// Every page the job saw.
    pub pages: Vec<SparkPage>,
    /// `run.json`: threshold, signature parameters, counts.
    pub run: serde_json::Value,
}

impl SparkRun {
    /// The threshold the job ran at.
    pub fn threshold(&self) -> Option<f64> {
        self.run
            .get("threshold")
            .and_then(serde_json::Value::as_f64)
    }

    /// The job's run over `docs`, the pages of the archives its shards were signed from: its
    /// pairs as all-pairs matching's outcome
    /// ([`crate::matching::allpairs::outcome_from_pairs`]), clustered by `rule` (the
    /// representative rule walks the order of `seed`). Every page of the job must be in `docs`
    /// and every page of `docs` in the job, and the job's own clusters must be the connected
    /// components of its pairs (`--rule transitive` here), whatever `rule` is.
    pub fn detection(
        &self,
        docs: &[crate::Document],
        rule: crate::cluster::ClusterRule,
        seed: u64,
    ) -> Result<crate::detectors::Detection> {
        use crate::DocId;
        use crate::detectors::{Algo, Detection, RunSpec};
        use crate::matching::{MatchParams, Mode, ScoredPair, allpairs};
        let bad = |what: String| Error::InvalidParameter(format!("the Spark run: {what}"));
        let algo = self.run.get("algo").and_then(|a| a.as_str()).unwrap_or("");
        if algo != Algo::SpotSigs.name() {
            return Err(bad(format!("it is of {algo:?}, not SpotSigs")));
        }
        let threshold = self.threshold().ok_or_else(|| bad("no threshold".into()))?;
        let by_key: std::collections::HashMap<String, DocId> = docs
            .iter()
            .enumerate()
            .map(|(i, d)| (d.capture(), DocId(i as u32)))
            .collect();
        let find = |key: &str| {
            by_key.get(key).copied().ok_or_else(|| {
                bad(format!(
                    "page {key:?} is not in the archives: give the archives the shards were \
                     signed from"
                ))
            })
        };
        let mut signed = vec![false; docs.len()];
        let mut cluster: Vec<Option<i64>> = vec![None; docs.len()];
        for page in &self.pages {
            let d = find(&page.key)?.index();
            signed[d] = page.signatures_kept > 0;
            cluster[d] = Some(page.cluster);
        }
        let missing = cluster.iter().filter(|c| c.is_none()).count();
        if missing > 0 {
            return Err(bad(format!(
                "{missing} page(s) of the archives are not in it: it was signed from other \
                 files or with other reading options"
            )));
        }
        let mut pairs = Vec::with_capacity(self.pairs.len());
        for p in self.pairs.iter().filter(|p| p.matched != Some(false)) {
            let (a, b) = (find(&p.a_key)?, find(&p.b_key)?);
            if a == b {
                return Err(bad(format!("it pairs page {:?} with itself", p.a_key)));
            }
            pairs.push(ScoredPair::new(a, b, p.score));
        }
        pairs.sort_by_key(|p| (p.a, p.b));
        // Jobs before `--min-shared` kept every pair at the threshold: 1.
        let min_shared = self
            .run
            .get("min_shared")
            .and_then(serde_json::Value::as_u64)
            .map_or(1, |m| m.clamp(1, u64::from(u32::MAX)) as u32);
        let mut matching = MatchParams {
            threshold,
            mode: Mode::AllPairs,
            seed,
            min_shared,
            ..MatchParams::default()
        };
        matching.set_link_rules(Algo::SpotSigs.default_link_rules());
        let spec = RunSpec { matching, rule };
        let outcome = allpairs::outcome_from_pairs(&signed, pairs, Vec::new(), &spec.matching);
        let mut detection = Detection::new(Algo::SpotSigs, spec, outcome);
        let whole_run = self.run.get("rule").and_then(|r| r.as_str()) == Some("representative");
        // The whole run's job joins identical pages as `run` does; the pairs job did not.
        if whole_run {
            crate::detectors::exact::join_identical(
                &mut detection,
                &crate::detectors::exact::digest_groups(docs),
            );
        }
        // The job's clusters must be the ones its pairs make: the connected components (the
        // pairs job), or these very clusters (the whole run's job, when clustered by its rule
        // and seed). A job whose files disagree is refused.
        let job_seed = (self.run.get("spec"))
            .and_then(|s| s.pointer("/matching/seed"))
            .and_then(serde_json::Value::as_u64);
        let expected = if !whole_run {
            Some(crate::cluster::Clustering::transitive(
                detection.pairs().iter().map(|p| (p.a, p.b)),
                &vec![None; docs.len()],
                &[],
            ))
        } else if rule == crate::cluster::ClusterRule::Representative && job_seed == Some(seed) {
            Some(detection.clustering.clone())
        } else {
            None
        };
        if let Some(expected) = expected {
            let mut same = std::collections::HashMap::new();
            let agree = (cluster.iter().zip(&expected.cluster_of))
                .all(|(s, &c)| *same.entry(*s).or_insert(c) == c)
                && same.len() == expected.representatives.len();
            if !agree {
                return Err(bad(if whole_run {
                    "its clusters are not the ones its pairs make".into()
                } else {
                    "its clusters are not the connected components of its pairs".into()
                }));
            }
        }
        Ok(detection)
    }
}

/// Read the Spark job's output from its `pairs.parquet` (a file or Spark's folder of part
/// files); `clusters.parquet` and `run.json` are read from the same folder.
pub fn read_spark_run(pairs: &Path) -> Result<SparkRun> {
    let dir = pairs.parent().unwrap_or(Path::new("."));
    let run_path = dir.join("run.json");
    let text = std::fs::read_to_string(&run_path).map_err(|e| Error::io(e, &run_path))?;
    let run: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| shard_error(&run_path, e))?;
    let format = run.get("format").and_then(|f| f.as_str()).unwrap_or("");
    if format != SPARK_RUN_FORMAT {
        return Err(shard_error(
            &run_path,
            format!("not a samecore Spark run (format {format:?}, expected {SPARK_RUN_FORMAT:?})"),
        ));
    }
    let mut out = SparkRun {
        run,
        ..SparkRun::default()
    };
    for part in parquet_parts(pairs)? {
        out.pairs.extend(super::read_rows::<SparkPair>(
            &part,
            Some(super::Format::Parquet),
        )?);
    }
    for part in parquet_parts(&dir.join("clusters.parquet"))? {
        out.pages.extend(super::read_rows::<SparkPage>(
            &part,
            Some(super::Format::Parquet),
        )?);
    }
    Ok(out)
}

/// A Parquet file, or the `.parquet` part files of a folder Spark wrote (sorted by name).
fn parquet_parts(path: &Path) -> Result<Vec<PathBuf>> {
    let meta = std::fs::metadata(path).map_err(|e| Error::io(e, path))?;
    if !meta.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut parts: Vec<PathBuf> = std::fs::read_dir(path)
        .map_err(|e| Error::io(e, path))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy())
                .unwrap_or_default();
            name.ends_with(".parquet") && !name.starts_with(['.', '_'])
        })
        .collect();
    parts.sort();
    Ok(parts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_are_counted_per_page_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.signatures.parquet");
        let pages = [page_id("k1"), page_id("k2")];
        let hashes = vec![vec![7, u64::MAX, 7], vec![]];
        assert_eq!(write_spotsigs(&path, &pages, &hashes).unwrap(), 2);
        let (columns, rows) =
            super::super::format::read_text_table(&path, super::super::Format::Parquet).unwrap();
        assert_eq!(columns, ["page", "signature", "count"]);
        let p = pages[0].to_string();
        // Sorted by the unsigned hash; u64::MAX is -1 bit for bit.
        assert_eq!(rows, [[p.as_str(), "7", "2"], [p.as_str(), "-1", "1"]]);
        assert_ne!(page_id("k1"), page_id("k2"));
        // Stable across runs and machines: XXH3-64 of the empty string, seed 0.
        assert_eq!(page_id("") as u64, 0x2D06_8005_38D3_94C2);
    }
}
