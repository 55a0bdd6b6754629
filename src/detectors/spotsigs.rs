//! SpotSigs (Theobald, Siddharth, Paepcke, SIGIR 2008; the Workbench paper §3) as a detector:
//! documents in, spot-signature multisets out ([`crate::signature::spotsigs`]), matched by
//! [`crate::matching`] in any [`Mode`] — Incremental, Seeded and Full of the Workbench paper
//! §3.3, and AllPairs with length partitions and an inverted index (SIGIR 2008 §4). Score: the
//! multiset Jaccard of two pages' signatures.

use std::sync::Arc;

use super::{Algo, Detection, Detector, DetectorInfo, Prepared, RunSpec};
use crate::matching::{self, Mode};
use crate::progress::Progress;
use crate::signature::frame::drop_site_frame;
use crate::signature::spotsigs::Signer;
use crate::signature::{SignedCollection, SpotSigsParams};
use crate::{DocId, Document, Result};

/// SpotSigs' default Jaccard threshold on main-content signatures (`--tokens content`): chosen
/// by two-fold cross-validation over goldset-dev's gold clusters (the folds of four deals chose
/// 0.10–0.14, docs/benchmarks.md "Same core, not same frame"); `tests/spotsigs.rs` holds its
/// quality.
pub const DEFAULT_THRESHOLD: f64 = 0.12;

/// The threshold of samecore's SpotSigs before main-content signatures (tag-stripped text),
/// shown as the paper's setting in the plots.
pub const TEXT_THRESHOLD: f64 = 0.25;

/// The registry entry.
pub const INFO: DetectorInfo = DetectorInfo {
    name: "spotsigs",
    finds: "the same story in different frames of ads and navigation (same core)",
    score: "multiset Jaccard of the two pages' spot signatures",
    default_threshold: DEFAULT_THRESHOLD,
    paper_threshold: TEXT_THRESHOLD,
    modes: &Mode::ALL,
};

/// SpotSigs behind the [`Detector`] trait.
#[derive(Debug, Clone)]
pub struct SpotSigsDetector {
    signer: Signer,
}

impl SpotSigsDetector {
    /// A detector with these signature parameters.
    pub fn new(params: &SpotSigsParams) -> Result<Self> {
        Ok(SpotSigsDetector {
            signer: Signer::new(params)?,
        })
    }

    /// Each page's spot-signature hashes before any collection-wide filter, with the site the
    /// frame filter groups it by, in parallel
    /// (order and result independent of the thread count). `samecore sign` writes these.
    pub fn raw(&self, docs: &[Document], progress: &Progress) -> Result<Vec<RawSignatures>> {
        progress.stage("signatures", docs.len() as u64);
        crate::archive::map_pages(docs, progress, |d, html| self.raw_page(d, html))
    }

    /// One page's spot-signature hashes from its decoded text: what
    /// [`crate::archive::load_with`] makes of each page while reading, so that no page text
    /// is held (`samecore run` and `sign` read this way).
    pub fn raw_page(&self, doc: &Document, html: &str) -> RawSignatures {
        let signed = self.signer.sign_page(html, doc.url.as_deref());
        RawSignatures {
            // Held until the whole collection is read: no spare capacity.
            hashes: signed.hashes.into_boxed_slice(),
            language: signed.language,
            terms: u32::try_from(signed.terms).unwrap_or(u32::MAX),
        }
    }

    /// Sign `docs` in parallel: [`Self::raw`], then [`Self::sign_raw`].
    pub fn sign(&self, docs: &[Document], progress: &Progress) -> Result<SignedCollection> {
        Ok(self.sign_raw(self.raw(docs, progress)?, docs))
    }

    /// The site frame, the IDF band and the minimum number of signatures over the whole
    /// collection, applied to every page's raw signatures (`raw[i]` of `docs[i]`). The frame
    /// filter groups pages by site: a page's URL's registrable domain, else the one most of
    /// its links point to (`Site::of_links`, which reading gave a page without a URL).
    pub fn sign_raw(&self, raw: Vec<RawSignatures>, docs: &[Document]) -> SignedCollection {
        assert_eq!(raw.len(), docs.len(), "one page's signatures per document");
        let p = self.signer.params();
        let mut raw: Vec<Vec<u64>> = raw.into_iter().map(|r| r.hashes.into_vec()).collect();
        if let Some(frame) = &p.site_frame {
            let sites: Vec<Option<&str>> = (docs.iter())
                .map(|d| Some(&*d.site.registrable).filter(|s| !s.is_empty()))
                .collect();
            drop_site_frame(&mut raw, &sites, frame);
        }
        SignedCollection::build(raw, p.idf_band, p.min_signatures)
    }

    /// A prepared collection from raw signatures made while reading ([`Self::raw_page`]) of
    /// `docs`: the same as [`Detector::prepare`] on those pages, identical pages kept together
    /// ([`super::exact`]).
    pub fn prepare_raw(&self, raw: Vec<RawSignatures>, docs: &[Document]) -> Arc<dyn Prepared> {
        super::exact::wrap(
            Arc::new(SpotSigsPrepared {
                collection: self.sign_raw(raw, docs),
            }),
            docs,
        )
    }

    /// The signature parameters.
    pub fn params(&self) -> &SpotSigsParams {
        self.signer.params()
    }
}

/// One page's spot signatures before the collection-wide filters.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RawSignatures {
    /// The signature hashes, repeats kept (a multiset), in page order.
    pub hashes: Box<[u64]>,
    /// The page's language as identified, which chose its antecedents (ISO 639-1 where it has
    /// one; a language without a set of its own took the main set); `None` without
    /// per-language sets or when it could not be told.
    pub language: Option<&'static str>,
    /// The number of terms of the page's text (signatures per term tell how well its
    /// antecedents fit its language).
    pub terms: u32,
}

impl Detector for SpotSigsDetector {
    fn algo(&self) -> Algo {
        Algo::SpotSigs
    }

    fn prepare(&self, docs: &[Document], progress: &Progress) -> Result<Arc<dyn Prepared>> {
        Ok(self.prepare_raw(self.raw(docs, progress)?, docs))
    }
}

/// A collection's spot signatures.
#[derive(Debug, Clone)]
pub struct SpotSigsPrepared {
    /// The signature sets.
    pub collection: SignedCollection,
}

impl Prepared for SpotSigsPrepared {
    fn algo(&self) -> Algo {
        Algo::SpotSigs
    }

    fn len(&self) -> usize {
        self.collection.sets.len()
    }

    fn unsigned(&self) -> usize {
        self.collection.too_few.len()
    }

    fn detect(&self, spec: &RunSpec, progress: &Progress) -> Result<Detection> {
        spec.check(Algo::SpotSigs)?;
        let outcome = matching::run(&self.collection.sets, &spec.matching, progress)?;
        Ok(Detection::new(Algo::SpotSigs, spec.clone(), outcome))
    }

    fn similarity(&self, a: DocId, b: DocId) -> Option<f64> {
        let sa = self.collection.sets.get(a.index())?;
        let sb = self.collection.sets.get(b.index())?;
        (!sa.is_empty() && !sb.is_empty()).then(|| crate::signature::set::jaccard(sa, sb))
    }
}
