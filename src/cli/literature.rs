//! Command-line options of the detectors other than SpotSigs (`--algo shingles | minhash |
//! simhash | simhash64 | combined | chunks | projection`), flattened into `samecore run` and
//! `samecore eval`. A flag not given keeps the detector's own default
//! ([`samecore::detectors::DetectorOptions::default`]), so the defaults live in one place;
//! SpotSigs ignores these flags.

use clap::Args;
use samecore::detectors::simhash::{SimhashCandidates, SimhashOptions};
use samecore::detectors::{DetectorOptions, chunks, combined, minhash, projection, shingles};
use samecore::signature::SpotSigsParams;
use samecore::signature::chunks::Chunking;
use samecore::token::TokenSource;

/// Options of shingles, minhash, simhash, simhash64, combined, chunks and projection.
#[derive(Debug, Args)]
pub struct DetectorArgs {
    /// Tokenizer of shingles, simhash, simhash64 and combined (markup, text, henzinger, dom;
    /// default henzinger).
    #[arg(long)]
    pub henzinger_tokens: Option<TokenSource>,
    /// Alg. B: tokens per shingle k (default 8).
    #[arg(long)]
    pub shingle_k: Option<usize>,
    /// Alg. B: min-values per page m (default 84).
    #[arg(long)]
    pub shingle_m: Option<usize>,
    /// Alg. B: min-values per supershingle l (default 14); m' = m / l.
    #[arg(long)]
    pub shingle_l: Option<usize>,
    /// Combined algorithm: equal supershingles needed by its first stage (default 2).
    #[arg(long)]
    pub combined_min_b: Option<u32>,
    /// Tokenizer of minhash (default text).
    #[arg(long)]
    pub minhash_tokens: Option<TokenSource>,
    /// MinHash: tokens per shingle (default 4).
    #[arg(long)]
    pub minhash_k: Option<usize>,
    /// MinHash: permutations, i.e. min-values (default 128).
    #[arg(long)]
    pub minhash_perm: Option<usize>,
    /// MinHash LSH as BANDSxROWS (e.g. 32x4); default: chosen for the threshold like datasketch.
    #[arg(long)]
    pub minhash_bands: Option<String>,
    /// Simhash candidates: `pieces` (12 x 32 bits / permuted tables), `all` (every pair) or
    /// `auto` (pieces where they find every pair at the threshold, else all).
    #[arg(long)]
    pub simhash_candidates: Option<String>,
    /// Chunks: `document`, `lines<N>` or `words<N>` (default words4).
    #[arg(long)]
    pub chunking: Option<Chunking>,
    /// Chunks: minimum shared chunks T (default 3).
    #[arg(long)]
    pub chunk_min_shared: Option<u32>,
    /// Chunks: counters of coarse counting (default 0: the sort-based method).
    #[arg(long)]
    pub chunk_buckets: Option<usize>,
    /// Tokenizer of projection's bag of words (default text).
    #[arg(long)]
    pub projection_tokens: Option<TokenSource>,
    /// Projection: dimension K (default 5).
    #[arg(long)]
    pub projection_k: Option<usize>,
    /// Projection: Hyperlink Map damping factor gamma (default 0.1).
    #[arg(long)]
    pub projection_gamma: Option<f64>,
    /// Projection: Hyperlink Map iterations (default 3).
    #[arg(long)]
    pub projection_iterations: Option<usize>,
    /// Projection: Hyperlink Map tolerance C (default 1: RP signature alone).
    #[arg(long)]
    pub projection_c: Option<f64>,
    /// Projection: project raw term counts (the paper) instead of unit-length bags of words.
    #[arg(long)]
    pub projection_raw_counts: bool,
    /// spotsigs-reference: the published SpotSigs code's `stopwords.txt` (samecore does not
    /// ship it; default: the file `SAMECORE_SPOTSIGS_STOPWORDS` names).
    #[arg(long, value_name = "FILE")]
    pub reference_stopwords: Option<std::path::PathBuf>,
    /// Seed of the hash functions and projections of these detectors (default 0).
    #[arg(long)]
    pub signature_seed: Option<u64>,
}

impl DetectorArgs {
    /// The options of every detector: SpotSigs' `spotsigs`, the others' from these flags.
    pub fn options(&self, spotsigs: SpotSigsParams) -> anyhow::Result<DetectorOptions> {
        let minhash_bands = match &self.minhash_bands {
            None => None,
            Some(spec) => {
                let (b, r) = spec.split_once(['x', 'X']).ok_or_else(|| {
                    anyhow::anyhow!("--minhash-bands wants BANDSxROWS, got {spec:?}")
                })?;
                Some((b.trim().parse()?, r.trim().parse()?))
            }
        };
        let simhash_candidates = match self.simhash_candidates.as_deref().unwrap_or("auto").trim() {
            "auto" => SimhashCandidates::Auto,
            "pieces" | "tables" => SimhashCandidates::Pieces,
            "all" | "allpairs" => SimhashCandidates::AllPairs,
            other => anyhow::bail!("--simhash-candidates wants auto, pieces or all, got {other:?}"),
        };
        let d = DetectorOptions::default();
        let seed = |default: u64| self.signature_seed.unwrap_or(default);
        let henzinger_tokens = |default: TokenSource| self.henzinger_tokens.unwrap_or(default);
        let shingle_params = samecore::signature::shingles::ShingleParams {
            k: self.shingle_k.unwrap_or(d.shingles.params.k),
            m: self.shingle_m.unwrap_or(d.shingles.params.m),
            l: self.shingle_l.unwrap_or(d.shingles.params.l),
            seed: seed(d.shingles.params.seed),
        };
        let p = d.projection.params;
        let simhash = |o: &SimhashOptions| SimhashOptions {
            tokens: henzinger_tokens(o.tokens),
            seed: seed(o.seed),
            candidates: simhash_candidates,
        };
        // `..d` below: a detector added without flags of its own keeps its defaults, and this
        // literal need not change (today every field is set, hence the allow).
        #[allow(clippy::needless_update)]
        let options = DetectorOptions {
            spotsigs,
            shingles: shingles::ShinglesOptions {
                tokens: henzinger_tokens(d.shingles.tokens),
                params: shingle_params.clone(),
            },
            minhash: minhash::MinHashOptions {
                tokens: self.minhash_tokens.unwrap_or(d.minhash.tokens),
                k: self.minhash_k.unwrap_or(d.minhash.k),
                perm: self.minhash_perm.unwrap_or(d.minhash.perm),
                bands: minhash_bands.or(d.minhash.bands),
                seed: seed(d.minhash.seed),
            },
            simhash: simhash(&d.simhash),
            simhash64: simhash(&d.simhash64),
            combined: combined::CombinedOptions {
                tokens: henzinger_tokens(d.combined.tokens),
                shingles: shingle_params,
                simhash_seed: seed(d.combined.simhash_seed),
                min_b: self.combined_min_b.unwrap_or(d.combined.min_b),
            },
            chunks: chunks::ChunksOptions {
                chunking: self.chunking.unwrap_or(d.chunks.chunking),
                min_shared: self.chunk_min_shared.unwrap_or(d.chunks.min_shared),
                buckets: self.chunk_buckets.unwrap_or(d.chunks.buckets),
                seed: seed(d.chunks.seed),
            },
            projection: projection::ProjectionOptions {
                tokens: self.projection_tokens.unwrap_or(d.projection.tokens),
                params: samecore::signature::projection::ProjectionParams {
                    k: self.projection_k.unwrap_or(p.k),
                    gamma: self.projection_gamma.unwrap_or(p.gamma),
                    iterations: self.projection_iterations.unwrap_or(p.iterations),
                    c: self.projection_c.unwrap_or(p.c),
                    unit_length: p.unit_length && !self.projection_raw_counts,
                    seed: seed(p.seed),
                },
            },
            spotsigs_reference: samecore::detectors::spotsigs_reference::ReferenceOptions {
                stopwords: self.reference_stopwords.clone(),
                ..d.spotsigs_reference.clone()
            },
            ..d
        };
        Ok(options)
    }
}

/// `--algo`: the detectors of the registry, each listed in `--help` with what it finds and its
/// default threshold.
pub fn algo_parser() -> impl clap::builder::TypedValueParser<Value = samecore::detectors::Algo> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
    use samecore::detectors::Algo;
    PossibleValuesParser::new(Algo::ALL.map(|a| {
        let info = a.info();
        PossibleValue::new(info.name).help(format!(
            "finds {}; default threshold {}",
            info.finds,
            (info.default_threshold * 1000.0).round() / 1000.0
        ))
    }))
    .try_map(|name: String| name.parse::<Algo>())
}
