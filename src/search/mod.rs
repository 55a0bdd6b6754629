//! Full-text search of a project's pages: the core of each page searched (not its frame), the
//! results one row per story.
//!
//! **The index** ([`SearchIndex`]) lies beside the project file (`P.samecore` →
//! `P.samecore.search/`), one document per page, named by the project's page id and key. It is
//! [tantivy](https://docs.rs/tantivy) (the maintained Rust search library: an inverted index
//! with positions, BM25, phrase and range queries, segments merged in the background, a
//! checksum on every file), its text cut into terms by our own analyzer ([`analyzer`],
//! registered on the index as its tokenizer, each value headed by its page's language), so the
//! page's language chooses the stemmer and scripts without spaces are searched by character
//! bigrams. (Handing tantivy tokens made beforehand, as pre-tokenized values, took a fifth of
//! an index build in serialising them to JSON and back.) Each page's fields:
//!
//! - `core`: the page's core as [`crate::passages`] computes it (the content blocks' reading
//!   text), its site's frame left out (seeds on three and half of up to 40 of the site's pages,
//!   [`crate::passages::frame_seeds`]), stored too, for snippets;
//! - `text`: all of its visible text, frames included (the whole-text switch; not stored);
//! - `core_words`, `text_words`: the same words unstemmed and without positions, for prefix
//!   queries (a stem can be shorter than the prefix typed: English `zoning` is `en:zone`);
//! - `title`, `url` (its words), `site`, `lang` (of its core: [`crate::token::language`]),
//!   `published` and `captured` (days, for ranges), `published_source`.
//!
//! The stories (a run's clusters after hand edits), the codes and the variables' values are not
//! copied into the index: they are read from the project when a query is answered
//! ([`results::Stories`]), so a code applied a second ago or a cluster split by hand is searched
//! at once and the index never answers with a stale story. Adding archives updates the index
//! ([`SearchIndex::update`]): new pages are added, pages gone are deleted, and a site whose
//! first 40 pages changed (so its frame may have) has its pages indexed again.
//!
//! **Versions and damage.** The index's own file (`samecore-search.json`) says which format of
//! ours and which tantivy wrote it. An index of another format, one tantivy cannot open, or one
//! whose files fail tantivy's checksums is removed and built again, with a message saying why
//! ([`IndexReport::rebuilt`]): never an answer from a damaged index.

pub mod analyzer;
pub mod query;
pub mod results;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use tantivy::schema::{
    FAST, Field, INDEXED, IndexRecordOption, STORED, STRING, Schema, TextFieldIndexing, TextOptions,
};
use tantivy::{Index, IndexReader, IndexWriter, TantivyDocument, Term};

pub use query::QueryError;
pub use results::{
    PageHit, SearchOptions, SearchResults, Snippet, Sort, Stories, StoryHit, StoryRow,
};

use crate::document::RecordLocation;
use crate::passages::{AlignOptions, Core, frame_mask, frame_seeds};
use crate::progress::Progress;
use crate::store::runs::Page;
use crate::store::{PageId, Project};
use crate::{Error, Result};

/// Our format of the index: raised when fields or the analyzer change (then indexes are
/// rebuilt).
pub const FORMAT: u32 = 1;

/// The tantivy that writes indexes.
pub const TANTIVY: &str = "0.27";

const META: &str = "samecore-search.json";

/// Pages of a site read to tell its frame, at most (as [`crate::passages`] does).
const FRAME_CONTEXT: usize = 40;

/// Memory of the index writer (split between its threads).
const WRITER_MEMORY: usize = 256 << 20;

/// The analyzer's names on the index ([`analyzer::PageTokenizer`]).
const TOKENIZER: &str = "samecore";
const BARE_TOKENIZER: &str = "samecore_bare";

/// Give `index` this version's analyzer.
fn register_tokenizers(index: &Index) {
    let t = index.tokenizers();
    t.register(TOKENIZER, analyzer::PageTokenizer { bare: false });
    t.register(BARE_TOKENIZER, analyzer::PageTokenizer { bare: true });
}

/// Where the index of the project file `project` lies.
pub fn index_dir(project: &Path) -> PathBuf {
    let mut name = project.as_os_str().to_owned();
    name.push(".search");
    PathBuf::from(name)
}

/// The index's own record.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct Meta {
    format: u32,
    tantivy: String,
    /// The language prefixes the index holds (`de`, `en`, `_` …).
    prefixes: BTreeSet<String>,
    /// Per site, a fingerprint of the pages its frame was told from.
    frames: BTreeMap<String, u64>,
    /// The project's pages when the index was last brought up to date.
    pages: (u64, i64, i64),
    /// Pages whose text could not be read again (indexed by title and URL only).
    unread: u64,
}

/// What opening or updating the index did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IndexReport {
    /// Why the index was built again, when it was (older format, damaged).
    pub rebuilt: Option<String>,
    /// Pages added.
    pub added: u64,
    /// Pages deleted.
    pub deleted: u64,
    /// Pages indexed again (their site's frame changed).
    pub reindexed: u64,
    /// Pages in the index.
    pub pages: u64,
    /// Pages whose text could not be read again (their archive moved: see `samecore relocate`),
    /// searched by title and URL only.
    pub unread: u64,
}

impl IndexReport {
    /// One line for people.
    pub fn describe(&self) -> String {
        let mut s = String::new();
        if let Some(why) = &self.rebuilt {
            s.push_str(&format!("search index rebuilt ({why}); "));
        }
        s.push_str(&format!(
            "{} pages indexed ({} added, {} deleted, {} again for their site's frame)",
            self.pages, self.added, self.deleted, self.reindexed
        ));
        if self.unread > 0 {
            s.push_str(&format!(
                "; {} pages could not be read again and are searched by title and URL only (see samecore relocate)",
                self.unread
            ));
        }
        s
    }
}

/// The index's fields.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Fields {
    pub page: Field,
    pub key: Field,
    pub core: Field,
    pub core_words: Field,
    pub core_text: Field,
    pub text: Field,
    pub text_words: Field,
    pub title: Field,
    pub url: Field,
    pub site: Field,
    pub lang: Field,
    pub published: Field,
    pub published_source: Field,
    pub captured: Field,
}

fn schema() -> (Schema, Fields) {
    let mut b = Schema::builder();
    let words = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer(TOKENIZER)
            .set_index_option(IndexRecordOption::WithFreqsAndPositions),
    );
    // Words unstemmed, without positions: what prefix queries look in (a stem can be shorter
    // than the prefix a person types: English `zoning` is indexed as `zone`).
    let bare = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer(BARE_TOKENIZER)
            .set_index_option(IndexRecordOption::Basic),
    );
    let fields = Fields {
        page: b.add_u64_field("page", INDEXED | FAST | STORED),
        key: b.add_text_field("key", STRING | STORED),
        core: b.add_text_field("core", words.clone()),
        core_words: b.add_text_field("core_words", bare.clone()),
        core_text: b.add_text_field("core_text", STORED),
        text: b.add_text_field("text", words.clone()),
        text_words: b.add_text_field("text_words", bare),
        title: b.add_text_field("title", words.clone()),
        url: b.add_text_field("url", words),
        site: b.add_text_field("site", STRING | STORED),
        lang: b.add_text_field("lang", STRING | STORED),
        published: b.add_i64_field("published", INDEXED | FAST | STORED),
        published_source: b.add_text_field("published_source", STRING | STORED),
        captured: b.add_i64_field("captured", INDEXED | FAST | STORED),
    };
    (b.build(), fields)
}

/// A project's search index, open.
pub struct SearchIndex {
    dir: PathBuf,
    index: Index,
    reader: IndexReader,
    fields: Fields,
    meta: Meta,
}

impl std::fmt::Debug for SearchIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SearchIndex")
            .field("dir", &self.dir)
            .field("pages", &self.meta.pages.0)
            .finish()
    }
}

impl SearchIndex {
    /// The project's index, built when there is none, built again when it is of another
    /// format or damaged, and brought up to date with the project's pages; what was done.
    pub fn open(project: &Project, progress: &Progress) -> Result<(SearchIndex, IndexReport)> {
        let path = project.path().ok_or_else(|| {
            Error::InvalidParameter("search needs a project saved to a file".into())
        })?;
        let dir = index_dir(path);
        let rebuilt = match Self::open_dir(&dir) {
            Ok(Some(mut index)) => {
                let report = index.update(project, progress)?;
                return Ok((index, report));
            }
            Ok(None) => None,
            Err(why) => {
                std::fs::remove_dir_all(&dir).map_err(|e| Error::io(e, &dir))?;
                Some(why)
            }
        };
        let mut index = Self::create(&dir)?;
        let mut report = index.update(project, progress)?;
        report.rebuilt = rebuilt;
        Ok((index, report))
    }

    /// The index in `dir` as it is, without looking at the project: `None` when there is none,
    /// `Err(why)` when it must be built again.
    fn open_dir(dir: &Path) -> std::result::Result<Option<SearchIndex>, String> {
        let meta_path = dir.join(META);
        if !dir.exists() {
            return Ok(None);
        }
        let meta: Meta = std::fs::read(&meta_path)
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .ok_or_else(|| "its record is missing or unreadable".to_string())?;
        if meta.format != FORMAT || meta.tantivy != TANTIVY {
            return Err(format!(
                "it was written by an older samecore (index format {}, tantivy {}; this one writes {FORMAT}, {TANTIVY})",
                meta.format, meta.tantivy
            ));
        }
        let index = Index::open_in_dir(dir).map_err(|e| format!("it is damaged: {e}"))?;
        register_tokenizers(&index);
        let failed = index
            .validate_checksum()
            .map_err(|e| format!("it is damaged: {e}"))?;
        if !failed.is_empty() {
            let names: Vec<String> = failed.iter().map(|p| p.display().to_string()).collect();
            return Err(format!(
                "it is damaged: {} fail their checksum",
                names.join(", ")
            ));
        }
        let (schema, fields) = schema();
        if index.schema() != schema {
            return Err("its fields are not this version's".into());
        }
        let reader = index.reader().map_err(|e| format!("it is damaged: {e}"))?;
        Ok(Some(SearchIndex {
            dir: dir.to_path_buf(),
            index,
            reader,
            fields,
            meta,
        }))
    }

    fn create(dir: &Path) -> Result<SearchIndex> {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(e, dir))?;
        let (schema, fields) = schema();
        let index = Index::create_in_dir(dir, schema)?;
        register_tokenizers(&index);
        let reader = index.reader()?;
        let meta = Meta {
            format: FORMAT,
            tantivy: TANTIVY.into(),
            ..Meta::default()
        };
        Ok(SearchIndex {
            dir: dir.to_path_buf(),
            index,
            reader,
            fields,
            meta,
        })
    }

    /// Where the index lies.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Pages in the index.
    pub fn pages(&self) -> u64 {
        self.reader.searcher().num_docs()
    }

    /// Bytes the index takes on disk.
    pub fn size_bytes(&self) -> u64 {
        std::fs::read_dir(&self.dir)
            .map(|d| {
                d.filter_map(|e| e.ok()?.metadata().ok())
                    .map(|m| m.len())
                    .sum()
            })
            .unwrap_or(0)
    }

    pub(crate) fn fields(&self) -> &Fields {
        &self.fields
    }

    pub(crate) fn searcher(&self) -> tantivy::Searcher {
        self.reader.searcher()
    }

    /// The language prefixes the index holds.
    pub(crate) fn prefixes(&self) -> Vec<String> {
        let mut p: Vec<String> = self.meta.prefixes.iter().cloned().collect();
        if !p.iter().any(|x| x == analyzer::PLAIN) {
            p.push(analyzer::PLAIN.into());
        }
        p
    }

    /// The page ids in the index.
    fn indexed(&self) -> Result<HashSet<i64>> {
        let searcher = self.reader.searcher();
        let mut out = HashSet::new();
        for segment in searcher.segment_readers() {
            let column = segment.fast_fields().u64("page")?;
            for doc in segment.doc_ids_alive() {
                if let Some(p) = column.first(doc) {
                    out.insert(p as i64);
                }
            }
        }
        Ok(out)
    }

    /// Bring the index up to date with the project's pages: new pages added, pages gone
    /// deleted, the pages of a site whose frame may have changed indexed again.
    pub fn update(&mut self, project: &Project, progress: &Progress) -> Result<IndexReport> {
        let fingerprint = project.page_fingerprint()?;
        if fingerprint == self.meta.pages && self.meta.format == FORMAT && fingerprint.0 > 0 {
            return Ok(IndexReport {
                pages: self.pages(),
                unread: self.meta.unread,
                ..IndexReport::default()
            });
        }
        progress.stage("listing pages", 0);
        let pages = project.pages()?;
        let indexed = self.indexed()?;
        let in_project: HashSet<i64> = pages.iter().map(|p| p.id.0).collect();
        let gone: Vec<i64> = indexed
            .iter()
            .copied()
            .filter(|id| !in_project.contains(id))
            .collect();
        // Each site's frame context: its first 40 pages.
        let mut context: HashMap<&str, Vec<usize>> = HashMap::new();
        for (i, p) in pages.iter().enumerate() {
            if let Some(site) = p.identity.site.as_deref().filter(|s| !s.is_empty()) {
                let c = context.entry(site).or_default();
                if c.len() < FRAME_CONTEXT {
                    c.push(i);
                }
            }
        }
        let mut fingerprints: BTreeMap<String, u64> = BTreeMap::new();
        for (site, ks) in &context {
            let ids: Vec<u8> = ks
                .iter()
                .flat_map(|&i| pages[i].id.0.to_le_bytes())
                .collect();
            fingerprints.insert(site.to_string(), xxhash_rust::xxh3::xxh3_64(&ids));
        }
        let changed_sites: HashSet<&str> = fingerprints
            .iter()
            .filter(|(s, f)| self.meta.frames.get(*s) != Some(f))
            .map(|(s, _)| s.as_str())
            .collect();
        let mut todo: Vec<usize> = Vec::new();
        let mut reindexed = 0u64;
        for (i, p) in pages.iter().enumerate() {
            let site = p.identity.site.as_deref().unwrap_or_default();
            let known = indexed.contains(&p.id.0);
            if !known {
                todo.push(i);
            } else if changed_sites.contains(site) {
                todo.push(i);
                reindexed += 1;
            }
        }
        // The frames of the sites whose pages are indexed now.
        let todo_sites: HashSet<&str> = todo
            .iter()
            .filter_map(|&i| pages[i].identity.site.as_deref())
            .filter(|s| !s.is_empty())
            .collect();
        let frame_pages: Vec<usize> = todo_sites
            .iter()
            .flat_map(|s| context.get(s).into_iter().flatten().copied())
            .collect();
        // Records are found (`locate` may ask the project where an archive moved) before the
        // pages are read in parallel.
        let mut locations: HashMap<usize, RecordLocation> = HashMap::new();
        for &i in todo.iter().chain(&frame_pages) {
            if let std::collections::hash_map::Entry::Vacant(e) = locations.entry(i)
                && let Ok(l) = project.locate(&pages[i])
            {
                e.insert(l);
            }
        }
        let read_page = |i: usize| -> Option<String> {
            let l = locations.get(&i)?;
            crate::archive::text_at(l, pages[i].identity.url.as_deref()).ok()
        };
        progress.stage("reading the sites' frames", frame_pages.len() as u64);
        let visible: Vec<(usize, Option<Core>)> = frame_pages
            .par_iter()
            .map(|&i| {
                progress.check()?;
                let core = read_page(i).map(|h| Core::visible(&h));
                progress.advance(1);
                Ok((i, core))
            })
            .collect::<Result<_>>()?;
        let visible: HashMap<usize, Core> = visible
            .into_iter()
            .filter_map(|(i, c)| Some((i, c?)))
            .collect();
        let opts = AlignOptions::default();
        let frames: HashMap<&str, HashSet<u64>> = todo_sites
            .iter()
            .map(|s| {
                let cores: Vec<&Core> = context[s].iter().filter_map(|i| visible.get(i)).collect();
                (*s, frame_seeds(&cores, &opts))
            })
            .collect();
        drop(visible);

        let mut writer: IndexWriter = self.index.writer_with_num_threads(2, WRITER_MEMORY)?;
        for id in gone.iter().copied().chain(
            todo.iter()
                .map(|&i| pages[i].id.0)
                .filter(|id| indexed.contains(id)),
        ) {
            writer.delete_term(Term::from_field_u64(self.fields.page, id as u64));
        }
        progress.stage("indexing pages", todo.len() as u64);
        let none = HashSet::new();
        let known_langs = analyzer::stemmed_codes();
        let fields = self.fields;
        let outcome: Vec<(bool, &'static str)> = todo
            .par_chunks(256)
            .map(|chunk| {
                progress.check()?;
                let mut out = Vec::with_capacity(chunk.len());
                for &i in chunk {
                    let page = &pages[i];
                    let site = page.identity.site.as_deref().unwrap_or_default();
                    let frame = frames.get(site).unwrap_or(&none);
                    let html = read_page(i);
                    let (doc, prefix) =
                        page_document(&fields, page, html.as_deref(), frame, &known_langs);
                    writer.add_document(doc)?;
                    out.push((html.is_some(), prefix));
                }
                progress.advance(chunk.len() as u64);
                Ok(out)
            })
            .collect::<Result<Vec<_>>>()?
            .into_iter()
            .flatten()
            .collect();
        progress.stage("writing the search index", 0);
        writer.commit()?;
        writer.wait_merging_threads()?;
        self.reader.reload()?;
        let unread_now = outcome.iter().filter(|(read, _)| !read).count() as u64;
        self.meta
            .prefixes
            .extend(outcome.iter().map(|(_, p)| p.to_string()));
        self.meta.frames = fingerprints;
        self.meta.pages = fingerprint;
        // Pages unread before and not indexed again stay unread; a fresh count is only exact
        // after a full build, so this is an upper bound after updates.
        self.meta.unread = if indexed.is_empty() {
            unread_now
        } else {
            self.meta.unread + unread_now
        };
        let meta = serde_json::to_vec_pretty(&self.meta)?;
        let meta_path = self.dir.join(META);
        let tmp = self.dir.join(format!("{META}.tmp"));
        std::fs::write(&tmp, meta).map_err(|e| Error::io(e, &tmp))?;
        std::fs::rename(&tmp, &meta_path).map_err(|e| Error::io(e, &meta_path))?;
        Ok(IndexReport {
            rebuilt: None,
            added: todo.len() as u64 - reindexed,
            deleted: gone.len() as u64,
            reindexed,
            pages: self.pages(),
            unread: self.meta.unread,
        })
    }
}

/// The text of `core`'s words that `mask` does not mark, the gaps between kept words as they
/// are and a run of frame words as one ` … `.
fn kept_text(core: &Core, mask: &[bool]) -> String {
    let mut out = String::with_capacity(core.text.len());
    let mut last_end: Option<usize> = None;
    let mut skipped = false;
    for (k, &(s, e)) in core.words.iter().enumerate() {
        if mask.get(k).copied().unwrap_or(false) {
            skipped = true;
            continue;
        }
        let (s, e) = (s as usize, e as usize);
        match last_end {
            Some(_) if skipped => out.push_str(" … "),
            Some(le) => out.push_str(&core.text[le..s]),
            None => {}
        }
        out.push_str(&core.text[s..e]);
        last_end = Some(e);
        skipped = false;
    }
    out
}

/// The index document of one page (its `html`, when it could be read) and its terms' prefix.
fn page_document(
    fields: &Fields,
    page: &Page,
    html: Option<&str>,
    frame: &HashSet<u64>,
    known: &[&'static str],
) -> (TantivyDocument, &'static str) {
    let id = &page.identity;
    let mut doc = TantivyDocument::default();
    doc.add_u64(fields.page, page.id.0 as u64);
    doc.add_text(fields.key, &id.key);
    let mut prefix = analyzer::PLAIN;
    if let Some(html) = html {
        let opts = AlignOptions::default();
        let core = Core::of_page(html);
        let mask = frame_mask(&core, frame, &opts);
        let kept = kept_text(&core, &mask);
        // The core's language as the detectors tell a page's ([`crate::token::language`]).
        let mut sample = crate::token::language::Sample::default();
        for (k, &(s, e)) in core.words.iter().enumerate() {
            if sample.is_full() {
                break;
            }
            if !mask[k] {
                sample.push(&core.text[s as usize..e as usize].to_lowercase());
            }
        }
        let lang = sample.language(Some(html), known);
        prefix = stemmed_prefix(lang);
        if let Some(lang) = lang {
            doc.add_text(fields.lang, lang);
        }
        let core = analyzer::field_value(prefix, &kept);
        doc.add_text(fields.core_words, &core);
        doc.add_text(fields.core, core);
        doc.add_text(fields.core_text, &kept);
        let visible = analyzer::field_value(prefix, &crate::token::strip::strip_tags(html));
        doc.add_text(fields.text_words, &visible);
        doc.add_text(fields.text, visible);
    }
    if let Some(title) = id.title.as_deref() {
        doc.add_text(fields.title, analyzer::field_value(prefix, title));
    }
    if let Some(url) = id.url.as_deref() {
        doc.add_text(fields.url, analyzer::field_value(analyzer::PLAIN, url));
    }
    if let Some(site) = id.site.as_deref() {
        doc.add_text(fields.site, site.to_lowercase());
    }
    if let Some(day) = day_of(id.published.as_deref()) {
        doc.add_i64(fields.published, day);
    }
    if let Some(source) = id.published_source.as_deref() {
        doc.add_text(fields.published_source, source);
    }
    if let Some(day) = day_of(id.date.as_deref()) {
        doc.add_i64(fields.captured, day);
    }
    (doc, prefix)
}

/// The `'static` prefix of a language.
fn stemmed_prefix(lang: Option<&str>) -> &'static str {
    match lang {
        Some(l) => analyzer::STEMMED
            .iter()
            .find(|(c, _)| *c == l)
            .map_or(analyzer::PLAIN, |(c, _)| c),
        None => analyzer::PLAIN,
    }
}

/// The day (since 1970) of a date as the project stores it (ISO 8601: readers turn ARC's 14
/// digits into it), in the offset it was written in.
pub fn day_of(date: Option<&str>) -> Option<i64> {
    crate::calendar::parse_iso(date?).map(|i| i.local_day())
}

/// The term that names `page` in the index (its id).
pub(crate) fn page_term(fields: &Fields, page: PageId) -> Term {
    Term::from_field_u64(fields.page, page.0 as u64)
}

/// A project's index and stories kept open across queries, as the workbench and Python hold
/// them: its own connection to the project, whose `data_version` tells when anything was written
/// since (by the workbench's store, another samecore, a merge); then the index is brought up
/// to date and the stories, codes and values are read again before the next answer.
pub struct Searcher {
    project: Project,
    index: SearchIndex,
    stories: Stories,
    version: i64,
    /// What opening (or the last update of) the index did.
    pub report: IndexReport,
}

impl std::fmt::Debug for Searcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Searcher")
            .field("index", &self.index)
            .field("run", &self.stories.run)
            .finish()
    }
}

impl Searcher {
    /// Open the index of the project file `path` (built or updated) and its stories of `run`
    /// (`None`: every page its own story).
    pub fn open(
        path: &Path,
        run: Option<crate::store::RunId>,
        progress: &Progress,
    ) -> Result<Self> {
        let options = crate::store::OpenOptions {
            create: false,
            ..Default::default()
        };
        let project = Project::open_with(path, &options)?;
        if let Some(r) = run {
            project.run(r)?;
        }
        let version = project.data_version()?;
        let (index, report) = SearchIndex::open(&project, progress)?;
        progress.stage("reading the project's stories", 0);
        let stories = Stories::load(&project, run)?;
        Ok(Searcher {
            project,
            index,
            stories,
            version,
            report,
        })
    }

    /// The run whose clusters are the stories.
    pub fn run(&self) -> Option<crate::store::RunId> {
        self.stories.run
    }

    /// The index.
    pub fn index(&self) -> &SearchIndex {
        &self.index
    }

    /// Bring the index and the stories up to date when the project was written since; whether
    /// anything was read again.
    pub fn refresh(&mut self, progress: &Progress) -> Result<bool> {
        let version = self.project.data_version()?;
        if version == self.version {
            return Ok(false);
        }
        self.report = self.index.update(&self.project, progress)?;
        self.stories = Stories::load(&self.project, self.stories.run)?;
        self.version = version;
        Ok(true)
    }

    /// Answer `query` ([`SearchIndex::search`]) on what the project holds now.
    pub fn search(
        &mut self,
        query: &str,
        options: &SearchOptions,
        progress: &Progress,
    ) -> Result<SearchResults> {
        self.refresh(progress)?;
        self.index.search(&self.stories, query, options)
    }
}
