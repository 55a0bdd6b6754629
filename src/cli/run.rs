//! `samecore run ARCHIVE… --algo spotsigs …`: load archives, run one detector once, print a
//! summary (and the metrics when gold clusters are known), write `--clusters` (every document
//! with its cluster, numbered from 0 by smallest member) and `--pairs` (every scored pair at or
//! above the threshold), each with a header row and the pages' identity
//! ([`samecore::export::ClusterFileRow`], [`samecore::export::PairFileRow`]). `doc` is
//! [`samecore::Document::key`]. `--project FILE.samecore` also stores the run (pages, pairs,
//! clusters, parameters) in a project with [`samecore::store::Project::save_detection`], for
//! `samecore sample`, `label` and `export` on the same file. The options shared with
//! `samecore eval` live here.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::Args;
use samecore::archive::{self, KeepHtml, ReadOptions};
use samecore::cluster::ClusterRule;
use samecore::detectors::{Algo, RunSpec};
use samecore::eval::GoldStandard;
use samecore::export;
use samecore::matching::{Guess, MatchParams, Mode, gold_seeds};
use samecore::progress::Progress;
use samecore::session::{OpenOptions, Run, Session};
use samecore::signature::SpotSigsParams;
use samecore::signature::spotsigs::{self, Antecedent, DEFAULT_ANTECEDENTS, word_list};
use samecore::store::{Project, RunId};
use samecore::token::TokenSource;
use samecore::{DocId, Document};

use super::progress_bar::{BYTES, COUNT, with_progress_bar};

/// Matching options shared by `run` and `eval`.
#[derive(Debug, Clone, Args)]
pub struct MatchArgs {
    /// Matching procedure: incremental, seeded, full or allpairs.
    #[arg(long, default_value = "incremental")]
    pub mode: Mode,
    /// Which colliding document becomes the match: first or best.
    #[arg(long, default_value = "best")]
    pub guess: Guess,
    /// Clusters from matches: representative (join the matched document's cluster),
    /// transitive (closure of all scored pairs), average (average linkage: similar to the
    /// cluster as a whole) or centre (every member similar to its cluster's representative).
    #[arg(long, default_value = "representative")]
    pub rule: ClusterRule,
    /// Index documents declared duplicates too (default true; `--add-duplicates false` for the
    /// paper's plain Incremental matching).
    #[arg(long, default_value_t = true, action = clap::ArgAction::Set, num_args = 0..=1,
          default_missing_value = "true")]
    pub add_duplicates: bool,
    /// Do not skip pairs by the min/max length bound (slower, same result).
    #[arg(long)]
    pub no_length_bound: bool,
    /// Spot signatures a pair must share besides reaching the threshold (1: the paper).
    #[arg(long, default_value_t = samecore::matching::DEFAULT_MIN_SHARED)]
    pub min_shared: u32,
    /// Spot signatures too common to count towards --min-shared: `auto` (SpotSigs' default:
    /// none below 100k distinct pages, above those on more than 0.3 % of them), `off` (the
    /// paper), or a number of distinct pages. A common signature counts in the Jaccard, but
    /// pairs are looked up through the rarer ones only: in a large archive this keeps chance
    /// pairs between stories of one topic out and walks a fraction of the lists (a million
    /// pages: 4.8 G candidates instead of 44.5 G); a story on more distinct pages than the
    /// limit pairs only through what its copies share beyond it (the run reports the pages
    /// left without any).
    #[arg(long, value_name = "auto|off|PAGES")]
    pub common: Option<samecore::matching::CommonLimit>,
    /// A page is declared a duplicate of a partner only if their score is at least this share
    /// of the best score either page has (default 0.2 for spotsigs, 0 for the other detectors;
    /// 0: the paper). Keeps a page with a copy
    /// of its story from joining another story through a follow-up or a network's boilerplate.
    /// Not in full mode nor with --add-duplicates false (the paper's loop).
    #[arg(
        long,
        value_name = "SHARE",
        allow_negative_numbers = true,
        value_parser = super::fraction
    )]
    pub link_share: Option<f64>,
    /// With --link-share: a page whose best pair the share refuses stays alone instead of
    /// joining a weaker partner's story (default true for spotsigs, false for the others).
    #[arg(long, value_name = "BOOL", action = clap::ArgAction::Set, num_args = 0..=1,
          default_missing_value = "true")]
    pub refused_stays_alone: Option<bool>,
    /// A declared link holds only if at least this fraction of the page pairs across it (the
    /// pages linked through it against the rest of its cluster, two or more each side) are
    /// links too (default 0.1 for spotsigs, 0 for the other detectors; 0: the paper). Cuts a
    /// cluster where a second story rode in on one page. Where --link-share applies; it cuts
    /// only with duplicates indexed (--add-duplicates, the default).
    #[arg(
        long,
        value_name = "FRACTION",
        allow_negative_numbers = true,
        value_parser = super::fraction
    )]
    pub cross_links: Option<f64>,
    /// Seeded mode: a file of document keys (one per line) indexed first; without it, one
    /// document per gold cluster.
    #[arg(long)]
    pub seeds: Option<PathBuf>,
}

/// SpotSigs signature options shared by `run` and `eval`; defaults from `assets/`.
#[derive(Debug, Clone, Args)]
pub struct SpotSigsArgs {
    /// Antecedents with their spot distances, e.g. "the:2,is:3:4" (a bare word takes
    /// --distance and --chain); default: the bundled list (articles, be, can, will, have, do).
    #[arg(long)]
    pub antecedents: Option<String>,
    /// Spot distance for antecedents given without one.
    #[arg(long, default_value_t = spotsigs::DEFAULT_DISTANCE)]
    pub distance: u32,
    /// Chain length (spot words per signature) for antecedents given without distances.
    #[arg(long, default_value_t = spotsigs::DEFAULT_CHAIN)]
    pub chain: usize,
    /// A stopword file (one word per line) instead of the bundled list; "none" for no stopwords.
    #[arg(long)]
    pub stopwords: Option<String>,
    /// Leave the antecedent out of the signature (only the spot words are hashed).
    #[arg(long)]
    pub no_antecedent_in_signature: bool,
    /// auto: each page takes the antecedents and stopwords of its language, identified from
    /// its core text (31 languages bundled; others take --antecedents); off: every page takes
    /// --antecedents and --stopwords (the paper).
    #[arg(long, default_value = "auto", value_parser = ["auto", "off"])]
    pub languages: String,
    /// The antecedents of one language instead of its bundled set, as CODE=LIST (e.g.
    /// "de=der,die,das,ist:2"); repeat for more languages. English pages take --antecedents.
    #[arg(long, value_name = "CODE=LIST")]
    pub antecedents_for: Vec<String>,
    /// Documents with fewer signatures take no part in matching.
    #[arg(long, default_value_t = spotsigs::DEFAULT_MIN_SIGNATURES)]
    pub min_sigs: usize,
    /// Keep signatures whose normalised collection IDF is in MIN:MAX (e.g. 0.2:0.8), or "off".
    #[arg(long, default_value = "off")]
    pub idf_band: String,
    /// Tokenizer: content (the page's content blocks, without the site's navigation and
    /// footers), text (all text, tags stripped), markup (raw page), henzinger or dom.
    #[arg(long, default_value = "content")]
    pub tokens: TokenSource,
    /// Drop signatures found on more than SHARE of their site's pages (a site's frame), in
    /// sites of at least MIN pages (default 3), pages at Jaccard COPIES or more counting as one
    /// page (copies of one story; default 0.8, "all" counts every page): SHARE[:MIN[:COPIES]],
    /// or "off" (the paper).
    #[arg(long, default_value = "0.9")]
    pub site_frame: String,
}

impl SpotSigsArgs {
    /// The signature parameters these options describe.
    pub fn params(&self) -> anyhow::Result<SpotSigsParams> {
        anyhow::ensure!(self.chain >= 1, "--chain must be at least 1");
        let distances = vec![self.distance.max(1); self.chain];
        let antecedents = Antecedent::parse_list(
            self.antecedents.as_deref().unwrap_or(DEFAULT_ANTECEDENTS),
            &distances,
        )?;
        let stopwords = match self.stopwords.as_deref() {
            None => word_list(spotsigs::DEFAULT_STOPWORDS),
            Some("none") => Vec::new(),
            Some(path) => word_list(
                &std::fs::read_to_string(path)
                    .with_context(|| format!("cannot read stopwords {path}"))?,
            ),
        };
        let idf_band = match self.idf_band.trim() {
            "off" | "" => None,
            band => {
                let (lo, hi) = band
                    .split_once(':')
                    .context("--idf-band expects MIN:MAX or off")?;
                Some((lo.trim().parse()?, hi.trim().parse()?))
            }
        };
        let site_frame = match self.site_frame.trim() {
            "off" | "" => None,
            spec => {
                const USE: &str = "--site-frame SHARE[:MIN[:COPIES]]";
                let mut parts = spec.split(':').map(str::trim);
                let share = parts.next().unwrap_or_default();
                let min = parts.next().unwrap_or("3");
                let copies = match parts.next() {
                    None => Some(samecore::signature::frame::DEFAULT_COPIES),
                    Some("all") => None,
                    Some(c) => Some(c.parse::<f64>().context(USE)?),
                };
                anyhow::ensure!(parts.next().is_none(), "{USE}: at most three parts");
                let frame = samecore::signature::frame::SiteFrame {
                    max_share: share.parse().context(USE)?,
                    min_pages: min.parse().context(USE)?,
                    copies,
                };
                anyhow::ensure!(
                    (0.0..=1.0).contains(&frame.max_share),
                    "--site-frame SHARE must be in [0, 1]"
                );
                anyhow::ensure!(
                    copies.is_none_or(|c| c > 0.0 && c <= 1.0),
                    "--site-frame COPIES must be in (0, 1] or \"all\""
                );
                Some(frame)
            }
        };
        let languages = match self.languages.as_str() {
            "off" => {
                anyhow::ensure!(
                    self.antecedents_for.is_empty(),
                    "--antecedents-for needs --languages auto"
                );
                None
            }
            _ => {
                let mut l = samecore::signature::languages::Languages {
                    distances: distances.clone(),
                    ..Default::default()
                };
                for spec in &self.antecedents_for {
                    let (code, list) = spec
                        .split_once('=')
                        .context("--antecedents-for expects CODE=LIST, e.g. de=der,die,das")?;
                    let code = code.trim().to_lowercase();
                    let known = samecore::signature::languages::codes();
                    anyhow::ensure!(
                        known.contains(&code.as_str()) && code != "en",
                        "--antecedents-for {code}: not a language with a set of its own (one of {}; English pages take --antecedents)",
                        known[1..].join(", ")
                    );
                    let mut set = l.set(&code).context("bundled set")?;
                    set.antecedents = Antecedent::parse_list(list, &distances)?;
                    anyhow::ensure!(
                        !set.antecedents.is_empty(),
                        "--antecedents-for {code}: no antecedent"
                    );
                    set.stopwords
                        .extend(set.antecedents.iter().map(|a| a.word.clone()));
                    l.edit(&code, Some(set));
                }
                Some(l)
            }
        };
        Ok(SpotSigsParams {
            antecedents,
            stopwords,
            languages,
            include_antecedent: !self.no_antecedent_in_signature,
            min_signatures: self.min_sigs,
            idf_band,
            tokens: self.tokens,
            site_frame,
        })
    }
}

/// Arguments of `samecore run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// WARC, ARC, WACZ files, folders or zips of pages.
    #[arg(required = true)]
    pub archives: Vec<PathBuf>,
    /// Leave out, with a warning, inputs that are not archives (a PDF, a text file) instead of
    /// refusing the run.
    #[arg(long)]
    pub keep_going: bool,
    /// Detector (each one's use and default threshold are listed by --help).
    #[arg(long, default_value = "spotsigs", value_parser = super::literature::algo_parser())]
    pub algo: Algo,
    /// Similarity threshold; default: the detector's (chosen on goldset-dev).
    #[arg(long, allow_negative_numbers = true, value_parser = super::threshold)]
    pub threshold: Option<f64>,
    /// Seed of the random document order.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Write every document with its cluster here (`doc`, `cluster`, `representative`, then
    /// its identity; a header row; TSV, CSV, JSONL or Parquet by the extension).
    #[arg(long)]
    pub clusters: Option<PathBuf>,
    /// Write every scored pair here (`a_doc`, `b_doc`, `score`, then both pages' identity; a
    /// header row; TSV, CSV, JSONL or Parquet by the extension).
    #[arg(long)]
    pub pairs: Option<PathBuf>,
    /// Store the run in this project file (created when missing), for `samecore sample`.
    #[arg(long)]
    pub project: Option<PathBuf>,
    /// Gold clusters as `doc,cluster` (TSV or CSV) for archives that are not folders.
    #[arg(long)]
    pub gold: Option<PathBuf>,
    /// Print the summary as one JSON object (with index size every 100 documents, mistakes per
    /// 100 documents when gold is known, and time per document).
    #[arg(long)]
    pub json: bool,
    /// Matching options.
    #[command(flatten)]
    pub matching: MatchArgs,
    /// SpotSigs options.
    #[command(flatten)]
    pub spotsigs: SpotSigsArgs,
    /// Options of the other detectors.
    #[command(flatten)]
    pub literature: super::literature::DetectorArgs,
}

/// A [`Session`] of `archives` read as `options` say, with a progress bar, its reading
/// warnings and the gold's coverage warning on standard error.
pub fn open(archives: &[PathBuf], options: &OpenOptions) -> anyhow::Result<Session> {
    let progress = Progress::new();
    let session = with_progress_bar(&progress, BYTES, || {
        Session::open(archives, options, &progress)
    })
    .context("cannot load the archives")?;
    print_read_warnings(&session.collection.reports);
    gold_warning(&session.gold, session.gold_source.as_deref());
    Ok(session)
}

/// The gold of `docs` ([`samecore::eval::gold::find`]) and where it came from, with
/// [`GoldStandard::coverage_warning`] on standard error.
pub fn find_gold(
    archives: &[PathBuf],
    docs: &[Document],
    file: Option<&Path>,
) -> anyhow::Result<(GoldStandard, Option<String>)> {
    let (gold, source) = samecore::eval::gold::find(archives, docs, file)?;
    gold_warning(&gold, source.as_deref());
    Ok((gold, source))
}

fn gold_warning(gold: &GoldStandard, source: Option<&str>) {
    if let Some(warning) = source.and_then(|s| gold.coverage_warning(s)) {
        eprintln!(
            "warning: {}",
            samecore::terminal::escape(&warning.to_string())
        );
    }
}

/// The collection of `archives` read without keeping page text, and what `page` made of each
/// page while it was in hand ([`archive::load_with`]), with a progress bar and its reading
/// warnings; each page's publication date with `publication_dates`. For the commands that
/// make something else than a run of each page (`sign`); a run opens a [`Session`].
pub fn load_with<T: Send + Clone>(
    archives: &[PathBuf],
    publication_dates: bool,
    page: &archive::PageFn<'_, T>,
) -> anyhow::Result<(archive::Collection, Vec<T>)> {
    let options = ReadOptions {
        keep_html: KeepHtml::None,
        publication_dates,
    };
    let progress = Progress::new();
    let (collection, made) = with_progress_bar(&progress, BYTES, || {
        archive::load_with(archives, &options, &progress, page)
    })
    .context("cannot load the archives")?;
    print_read_warnings(&collection.reports);
    collection.check_pages(archives)?;
    Ok((collection, made))
}

/// What reading found wrong, on stderr: the first ten warnings and how many more (`samecore
/// info` lists them all).
pub fn print_read_warnings(reports: &[archive::FileReport]) {
    const SHOWN: usize = 10;
    let all: Vec<_> = reports.iter().flat_map(|r| &r.warnings).collect();
    for warning in all.iter().take(SHOWN) {
        eprintln!(
            "warning: {}",
            samecore::terminal::escape(&warning.to_string())
        );
    }
    if all.len() > SHOWN {
        eprintln!(
            "warning: {} more reading warnings; `samecore info` lists them all",
            all.len() - SHOWN
        );
    }
}

/// The run spec for these matching options; Seeded mode takes `--seeds` or gold seeds.
pub fn run_spec(
    algo: Algo,
    args: &MatchArgs,
    threshold: f64,
    seed: u64,
    docs: &[Document],
    gold: &GoldStandard,
) -> anyhow::Result<RunSpec> {
    let seeds = match (&args.seeds, args.mode) {
        (Some(path), _) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read seeds {}", path.display()))?;
            let mut out = Vec::new();
            for key in text.lines().map(str::trim).filter(|k| !k.is_empty()) {
                let i = docs
                    .iter()
                    .position(|d| &*d.key == key)
                    .with_context(|| format!("seed {key:?} is not a document key"))?;
                out.push(DocId(i as u32));
            }
            out
        }
        (None, Mode::Seeded) if gold.is_known() => gold_seeds(&gold.cluster_of, seed),
        (None, Mode::Seeded) => anyhow::bail!("seeded mode needs --seeds FILE or gold clusters"),
        (None, _) => Vec::new(),
    };
    let defaults = algo.default_link_rules();
    let mut matching = MatchParams {
        threshold,
        mode: args.mode,
        guess: args.guess,
        add_duplicates: args.add_duplicates,
        length_bound: !args.no_length_bound,
        min_shared: args.min_shared,
        link_share: args.link_share.unwrap_or(defaults.share),
        refused_stays_alone: args
            .refused_stays_alone
            .unwrap_or(defaults.refused_stays_alone),
        cross_links: args.cross_links.unwrap_or(defaults.cross_links),
        common: args.common.unwrap_or(algo.default_common()),
        seed,
        seeds,
        index_every: 100,
    };
    anyhow::ensure!(
        (0.0..=1.0).contains(&matching.link_share),
        "--link-share {} is not in [0, 1]",
        matching.link_share
    );
    anyhow::ensure!(
        (0.0..=1.0).contains(&matching.cross_links),
        "--cross-links {} is not in [0, 1]",
        matching.cross_links
    );
    if !matching.link_rules_apply() {
        refuse_where_the_loop_runs(
            "--link-share",
            args.link_share.is_some_and(|s| s != 0.0),
            &matching,
        )?;
        refuse_where_the_loop_runs(
            "--cross-links",
            args.cross_links.is_some_and(|s| s != 0.0),
            &matching,
        )?;
        refuse_where_the_loop_runs(
            "--refused-stays-alone",
            args.refused_stays_alone == Some(true),
            &matching,
        )?;
        matching.drop_link_rules_where_they_cannot_apply();
    }
    Ok(RunSpec {
        matching,
        rule: args.rule,
    })
}

/// Refuse a nonzero value of a link rule (`flag`) where the paper's loop runs: the link rules
/// need every pair of a page scored before it is declared ([`MatchParams::link_rules_apply`]).
pub(super) fn refuse_where_the_loop_runs(
    flag: &str,
    nonzero: bool,
    matching: &MatchParams,
) -> anyhow::Result<()> {
    anyhow::ensure!(
        matching.link_rules_apply() || !nonzero,
        "{flag} needs every pair scored before declaring: not in {} mode{}",
        matching.mode.name(),
        if matching.add_duplicates {
            ""
        } else {
            " with --add-duplicates false"
        }
    );
    Ok(())
}

/// Run `samecore run`.
pub fn run(args: RunArgs) -> anyhow::Result<()> {
    // No output may replace an input: not the project, an archive, the gold or the seeds.
    let mut inputs = samecore::guard::Inputs::new().archives(&args.archives);
    for file in [&args.gold, &args.matching.seeds].into_iter().flatten() {
        inputs = inputs.input(file);
    }
    if let Some(project) = &args.project {
        inputs.check_place(project, "--project")?;
        inputs = inputs.project(project);
    }
    for (path, what) in [(&args.clusters, "--clusters"), (&args.pairs, "--pairs")] {
        if let Some(path) = path {
            inputs.check(path, what)?;
            // Outputs that cannot be written are refused before the archives are read.
            export::check_output(path, None)?;
        }
    }
    let mut args = args;
    args.archives = checked_inputs(std::mem::take(&mut args.archives), args.keep_going)?;
    // A project that cannot be written is found before the archives are read.
    let mut project = match &args.project {
        Some(path) => Some(open_writable(path)?),
        None => None,
    };
    let options = args.literature.options(args.spotsigs.params()?)?;
    let spotsigs = args.algo == Algo::SpotSigs;
    let session = open(
        &args.archives,
        &OpenOptions {
            // SpotSigs signs while reading: no page text is held, each record decompressed once.
            sign: spotsigs.then(|| options.clone()),
            // Publication dates are read only where they go: the project, the clusters
            // export, the JSON summary's stories.
            publication_dates: args.project.is_some() || args.clusters.is_some() || args.json,
            keep_html: if spotsigs {
                KeepHtml::None
            } else {
                KeepHtml::Unseekable
            },
            gold: args.gold.clone(),
        },
    )?;
    let threshold = args.threshold.unwrap_or(args.algo.default_threshold());
    let docs = session.docs();
    let spec = run_spec(
        args.algo,
        &args.matching,
        threshold,
        args.seed,
        docs,
        &session.gold,
    )?;
    let progress = Progress::new();
    let run = with_progress_bar(&progress, COUNT, || {
        session.run(args.algo, &options, &spec, &progress)
    })?;
    let stored = match (&args.project, project.as_mut()) {
        (Some(path), Some(project)) => {
            let params = serde_json::json!({
                "algo": args.algo.name(),
                "from": "cli",
                "options": serde_json::to_value(&options)?,
            });
            let elapsed = Some((run.detect_seconds * 1000.0).round() as u64);
            let id = session
                .save(project, &run.detection, params, elapsed)
                .with_context(|| format!("cannot store the run in {}", path.display()))?;
            Some((id, path))
        }
        _ => None,
    };
    if let Some(path) = &args.clusters {
        export::write_file_streamed(session.cluster_rows(&run.detection), path, None)
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    if let Some(path) = &args.pairs {
        export::write_file_streamed(session.pair_rows(&run.detection), path, None)
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    let mut out = super::stdout_for(args.json);
    if args.json {
        let mut summary = session.summary(&run);
        summary["project_run"] = serde_json::json!(stored.map(|(r, _)| r.0));
        serde_json::to_writer_pretty(&mut out, &summary)?;
        writeln!(out)?;
        return Ok(());
    }
    print_summary(&mut out, &session, &run, stored)
}

/// Open (or create) the project at `path` and check that it can be written, so that a run or a
/// labelling session does no work it cannot keep.
pub fn open_writable(path: &Path) -> anyhow::Result<Project> {
    let project =
        Project::open(path).with_context(|| format!("cannot open project {}", path.display()))?;
    project
        .check_writable()
        .with_context(|| format!("cannot write to project {}", path.display()))?;
    Ok(project)
}

/// The summary of `samecore run` on the terminal.
fn print_summary(
    out: &mut impl Write,
    session: &Session,
    run: &Run,
    stored: Option<(RunId, &PathBuf)>,
) -> anyhow::Result<()> {
    let (detection, gold) = (&run.detection, &session.gold);
    let groups = detection.clustering.groups();
    let trace = &detection.outcome.trace;
    let m = &detection.spec.matching;
    writeln!(
        out,
        "documents {} ({} left out: too few signatures)",
        session.docs().len(),
        run.prepared.unsigned()
    )?;
    writeln!(
        out,
        "{} threshold {} mode {} guess {:?} seed {} rule {:?}",
        run.algo.name(),
        m.threshold,
        m.mode.name(),
        m.guess,
        m.seed,
        detection.spec.rule
    )?;
    writeln!(
        out,
        "clusters {} ({} with 2+ documents, holding {}); {} declared duplicates, {} scored pairs",
        detection.clustering.cluster_count(),
        groups.len(),
        groups.iter().map(Vec::len).sum::<usize>(),
        detection.outcome.matched.iter().flatten().count(),
        detection.pairs().len()
    )?;
    if groups.is_empty() {
        // An empty result says why and what to try.
        let left_out = run.prepared.unsigned();
        let mut tries = vec![format!("a lower --threshold than {}", m.threshold)];
        if run.algo == samecore::detectors::Algo::SpotSigs {
            tries.push("--algo shingles or simhash, which sign every page however short".into());
            if left_out > 0 {
                tries.push("a lower --min-sigs".into());
            }
        }
        writeln!(
            out,
            "no two of the {} pages reached the threshold{}; try {}",
            session.docs().len(),
            if left_out > 0 {
                format!(" ({left_out} left out for too few signatures)")
            } else {
                String::new()
            },
            tries.join(", or ")
        )?;
    }
    if detection.exact.groups > 0 {
        writeln!(
            out,
            "identical pages (equal payload digests): {} groups of {} pages, each group in one \
             cluster ({} joined to their twins)",
            detection.exact.groups, detection.exact.pages, detection.exact.joined
        )?;
    }
    writeln!(
        out,
        "comparisons {} (avoided {}), colliding documents {}, final index {} documents",
        trace.comparisons(),
        trace.avoided(),
        trace.collisions(),
        trace.final_index_size()
    )?;
    let common = trace.common;
    if common.limit > 0 {
        writeln!(
            out,
            "common signatures: {} on more than {} distinct pages, not counted as shared \
             (--common {}); {} pages have fewer than {} rarer ones and pair with none",
            common.signatures,
            common.limit,
            detection.spec.matching.common,
            common.pages_without_pairs,
            detection.spec.matching.min_shared.max(1),
        )?;
    }
    writeln!(
        out,
        "time: load {:.2} s, signatures {:.2} s, matching {:.3} s",
        session.read_seconds,
        session.sign_seconds(run),
        run.detect_seconds
    )?;
    if let Some((id, path)) = stored {
        writeln!(out, "stored as run {id} in {}", path.display())?;
    }
    let by_language = session.languages(detection);
    if by_language.iter().any(|l| l.language != "?") {
        writeln!(out, "languages (antecedents chosen per page):")?;
        for l in &by_language {
            write!(
                out,
                "  {:<4} {:>7} pages {:>7.1} signatures per 1,000 terms",
                l.language, l.pages, l.signatures_per_1000_terms
            )?;
            if let Some(p) = &l.pairwise {
                write!(
                    out,
                    " | pairs P {:.3} R {:.3} F1 {:.3}",
                    p.precision, p.recall, p.f1
                )?;
            }
            writeln!(out)?;
        }
    }
    if let Some(m) = &run.metrics {
        writeln!(
            out,
            "gold {} clusters: pairwise P {:.3} R {:.3} F1 {:.3} | document P {:.3} R {:.3} | \
             B-cubed P {:.3} R {:.3} F1 {:.3}",
            gold.names.len(),
            m.pairwise.precision,
            m.pairwise.recall,
            m.pairwise.f1,
            m.document.precision,
            m.document.recall,
            m.bcubed.precision,
            m.bcubed.recall,
            m.bcubed.f1
        )?;
    }
    Ok(())
}

/// The inputs that samecore can read. One that is not an archive stops the run before anything
/// is read or stored, naming what it holds; with `keep_going` it is left out with a warning.
pub fn checked_inputs(inputs: Vec<PathBuf>, keep_going: bool) -> anyhow::Result<Vec<PathBuf>> {
    let mut kept = Vec::with_capacity(inputs.len());
    for path in inputs {
        match archive::check_input(&path) {
            Ok(()) => kept.push(path),
            Err(e) if keep_going => eprintln!("warning: left out (--keep-going): {e}"),
            Err(e) => {
                return Err(anyhow::Error::new(e).context(
                    "nothing was read or stored; leave such inputs out, or pass --keep-going",
                ));
            }
        }
    }
    anyhow::ensure!(!kept.is_empty(), "no input left to read");
    Ok(kept)
}
