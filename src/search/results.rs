//! A query answered: compiled to tantivy's queries, every matching page collected, and the
//! pages collapsed into their stories (the clusters of a run) — one row per story with its
//! best member's snippet, how many members match, its size, first publisher, span and codes.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::ops::Bound;

use serde::Serialize;
use tantivy::collector::{Collector, SegmentCollector};
use tantivy::query::{
    AllQuery, BooleanQuery, EmptyQuery, Occur, PhraseQuery, Query, RangeQuery, TermQuery,
    TermSetQuery,
};
use tantivy::schema::{Field, IndexRecordOption, Value};
use tantivy::{DocId, Score, SegmentOrdinal, SegmentReader, TantivyDocument, Term};

use super::analyzer::{self, QueryPiece};
use super::query::{self, DateField, Node, TextField};
use super::{Fields, SearchIndex};
use crate::store::{PageId, Project, RunId};
use crate::{Error, Result};

/// How a result list is ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub enum Sort {
    /// Best match first (the story's best member's score).
    #[default]
    Relevance,
    /// Earliest first publication first (stories without a date last).
    First,
    /// Largest story first.
    Size,
}

impl std::str::FromStr for Sort {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Sort, String> {
        match s {
            "relevance" => Ok(Sort::Relevance),
            "first" | "published" => Ok(Sort::First),
            "size" => Ok(Sort::Size),
            _ => Err(format!("sort by relevance, first or size, not {s:?}")),
        }
    }
}

/// How to answer a query.
#[derive(Debug, Clone, Default)]
pub struct SearchOptions {
    /// Search all of a page's visible text, its frame included (for comparison), not its core.
    pub whole_text: bool,
    /// Order of the stories.
    pub sort: Sort,
    /// Stories returned with their snippets (all are counted): `None` for all.
    pub limit: Option<usize>,
}

/// What a project says of its pages for searching them: the stories of a run, the codes and
/// values, each page's key, site and publication day. Read once, kept while the project does not
/// change (the workbench and Python keep it across queries).
#[derive(Debug, Clone, Default)]
pub struct Stories {
    /// The run whose clusters are the stories (`None`: every page its own story).
    pub run: Option<RunId>,
    cluster_of: HashMap<PageId, i64>,
    members: HashMap<i64, Vec<PageId>>,
    pages: HashMap<PageId, PageInfo>,
    /// Applied codes, by name: their pages.
    codes: HashMap<String, HashSet<PageId>>,
    /// Per variable (lowercased name), per value as written and by label: the pages.
    values: HashMap<String, HashMap<String, HashSet<PageId>>>,
    variables: Vec<String>,
    /// What each site repeats in its titles, for stories' titles ([`crate::headline`]).
    titles: crate::headline::Titles,
    /// Per cluster, its first and last publication: (day, page).
    spans: HashMap<i64, Span>,
}

/// A story's first and last publication: (day, page) of each.
type Span = ((i64, PageId), (i64, PageId));

#[derive(Debug, Clone, Default)]
struct PageInfo {
    key: String,
    site: Option<String>,
    title: Option<String>,
    published: Option<String>,
    published_day: Option<i64>,
}

impl Stories {
    /// Read what a query needs from `project`, the stories of `run` (`None`: no run, each page
    /// its own story).
    pub fn load(project: &Project, run: Option<RunId>) -> Result<Stories> {
        let mut s = Stories {
            run,
            ..Stories::default()
        };
        let pages = project.page_briefs()?;
        s.titles =
            crate::headline::Titles::learn(pages.iter().filter_map(|p| {
                Some((p.site.as_deref().unwrap_or_default(), p.title.as_deref()?))
            }));
        s.pages.reserve(pages.len());
        for p in pages {
            s.pages.insert(
                p.id,
                PageInfo {
                    key: p.key,
                    site: p.site,
                    title: p.title,
                    published_day: super::day_of(p.published.as_deref()),
                    published: p.published,
                },
            );
        }
        if let Some(run) = run {
            for c in project.run_clusters(run)? {
                for &m in &c.members {
                    s.cluster_of.insert(m, c.id);
                }
                let mut members = c.members;
                // The representative first, as the cluster list names a story.
                if let Some(r) = c.representative
                    && let Some(at) = members.iter().position(|&m| m == r)
                {
                    members[..=at].rotate_right(1);
                }
                let mut span: Option<Span> = None;
                for &m in &members {
                    let Some(day) = s.pages.get(&m).and_then(|i| i.published_day) else {
                        continue;
                    };
                    let d = (day, m);
                    span = Some(match span {
                        None => (d, d),
                        Some((a, b)) => (a.min(d), b.max(d)),
                    });
                }
                if let Some(span) = span {
                    s.spans.insert(c.id, span);
                }
                s.members.insert(c.id, members);
            }
        }
        for c in project.page_codes()? {
            if c.applied {
                s.codes.entry(c.code).or_default().insert(c.page);
            }
        }
        let codebook = project.codebook()?;
        let mut labels: HashMap<String, HashMap<String, String>> = HashMap::new();
        for v in &codebook.variables {
            s.variables.push(v.name.clone());
            labels.insert(
                v.name.to_lowercase(),
                v.values
                    .iter()
                    .map(|l| (l.code.to_string(), l.label.to_lowercase()))
                    .collect(),
            );
        }
        // A unit's value: the final one where there is one, else every coder's.
        let values = project.values()?;
        // The clusters of the runs values were coded on, read once a run.
        let mut other_runs: HashMap<RunId, HashMap<i64, Vec<PageId>>> = HashMap::new();
        let finals: HashSet<(String, String)> = values
            .iter()
            .filter(|v| v.role == crate::store::values::Role::Final)
            .map(|v| (v.variable.clone(), v.unit.to_string()))
            .collect();
        for v in &values {
            if v.role != crate::store::values::Role::Final
                && finals.contains(&(v.variable.clone(), v.unit.to_string()))
            {
                continue;
            }
            let crate::codebook::Answer::Value(value) = &v.answer else {
                continue;
            };
            let pages: Vec<PageId> = match v.unit {
                crate::store::values::Unit::Page(p) => vec![p],
                crate::store::values::Unit::Story { run: r, cluster } => {
                    if Some(r) == run {
                        s.members.get(&cluster).cloned().unwrap_or_default()
                    } else {
                        let of_run = match other_runs.entry(r) {
                            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
                            std::collections::hash_map::Entry::Vacant(e) => e.insert(
                                (project.run_clusters(r)?.into_iter())
                                    .map(|c| (c.id, c.members))
                                    .collect(),
                            ),
                        };
                        of_run.get(&cluster).cloned().unwrap_or_default()
                    }
                }
            };
            let name = v.variable.to_lowercase();
            let by_value = s.values.entry(name.clone()).or_default();
            for part in value.split(',').map(str::trim) {
                let mut keys = vec![part.to_lowercase()];
                if let Some(label) = labels.get(&name).and_then(|l| l.get(part)) {
                    keys.push(label.clone());
                }
                for k in keys {
                    by_value.entry(k).or_default().extend(pages.iter().copied());
                }
            }
        }
        Ok(s)
    }

    /// The story of `page`: its cluster in the run (`None` without a run, or for a page the
    /// run did not see).
    pub fn cluster_of(&self, page: PageId) -> Option<i64> {
        self.cluster_of.get(&page).copied()
    }

    /// The codebook's variable names (fields of queries).
    pub fn variables(&self) -> &[String] {
        &self.variables
    }

    /// Pages whose story has a page in `pages` (a code or value on one member is the story's).
    fn with_stories(&self, pages: &HashSet<PageId>) -> HashSet<PageId> {
        let mut out = pages.clone();
        for p in pages {
            if let Some(c) = self.cluster_of(*p) {
                out.extend(self.members[&c].iter().copied());
            }
        }
        out
    }
}

/// One matching page.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PageHit {
    /// The page.
    pub page: PageId,
    /// Its key (as `export pages` gives it).
    pub key: String,
    /// Its score (BM25).
    pub score: f32,
}

/// A snippet of a page's core with the hits marked.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Snippet {
    /// The text.
    pub text: String,
    /// Byte ranges of the hits in `text`.
    pub hits: Vec<(usize, usize)>,
    /// Whether the core holds a hit (in whole-text mode a page may match in its frame only).
    pub in_core: bool,
}

impl Snippet {
    /// The text with each hit between `open` and `close`.
    pub fn marked(&self, open: &str, close: &str) -> String {
        let mut out = String::with_capacity(self.text.len() + self.hits.len() * 4);
        let mut at = 0;
        for &(s, e) in &self.hits {
            out.push_str(&self.text[at..s]);
            out.push_str(open);
            out.push_str(&self.text[s..e]);
            out.push_str(close);
            at = e;
        }
        out.push_str(&self.text[at..]);
        out
    }

    /// The hits as character ranges (for Python and JSON readers).
    pub fn char_hits(&self) -> Vec<(usize, usize)> {
        self.hits
            .iter()
            .map(|&(s, e)| {
                let cs = self.text[..s].chars().count();
                (cs, cs + self.text[s..e].chars().count())
            })
            .collect()
    }
}

/// One story of a result list.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StoryHit {
    /// Its cluster in the run (`None`: a page the run has no cluster for, or no run).
    pub cluster: Option<i64>,
    /// The matching members, best first.
    pub members: Vec<PageHit>,
    /// Members in all.
    pub size: usize,
    /// The best member's score.
    pub score: f32,
    /// The story's title: the headline its members share ([`crate::headline`]), as the
    /// cluster list names it.
    pub title: String,
    /// The site of its first publication (its earliest publication date).
    pub first_site: Option<String>,
    /// Its first and last publication (ISO day).
    pub first: Option<String>,
    /// Its last publication.
    pub last: Option<String>,
    /// The codes applied to its members.
    pub codes: Vec<String>,
    /// The best member's snippet (for the stories returned).
    pub snippet: Snippet,
}

/// A query's answer.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct SearchResults {
    /// The stories returned (all, or the first `limit`).
    pub stories: Vec<StoryHit>,
    /// Stories matching in all.
    pub story_count: usize,
    /// Pages matching in all.
    pub page_count: usize,
    /// The clusters of every matching story in the list's order (also those not returned):
    /// what coding every story found takes.
    pub all_clusters: Vec<i64>,
}

/// One story of a result list as programs read it (`samecore search --json`, Python's
/// DataFrame).
#[derive(Debug, Clone, Default, PartialEq, Serialize, serde::Deserialize)]
pub struct StoryRow {
    /// Its rank in the list (1 first).
    pub rank: u64,
    /// Its cluster in the run (none: a page the run has no cluster for, or no run).
    pub cluster: Option<i64>,
    /// The matching members' page keys (as `export pages` gives them), best first.
    pub pages: Vec<String>,
    /// Their scores.
    pub scores: Vec<f64>,
    /// Members that match.
    pub matches: u64,
    /// Members in all.
    pub size: u64,
    /// The best member's score.
    pub score: f64,
    /// The story's title.
    pub title: String,
    /// Its first publication (day).
    pub first: Option<String>,
    /// Its last publication.
    pub last: Option<String>,
    /// The site of its first publication.
    pub first_site: Option<String>,
    /// The codes on its members.
    pub codes: Vec<String>,
    /// The best member's snippet.
    pub snippet: String,
    /// Character ranges of the hits in `snippet`.
    pub highlights: Vec<Vec<u64>>,
    /// Whether the snippet's core holds a hit.
    pub snippet_in_core: bool,
}

impl SearchResults {
    /// The stories returned, one row each.
    pub fn story_rows(&self) -> Vec<StoryRow> {
        self.stories
            .iter()
            .enumerate()
            .map(|(i, s)| StoryRow {
                rank: i as u64 + 1,
                cluster: s.cluster,
                pages: s.members.iter().map(|m| m.key.clone()).collect(),
                scores: s.members.iter().map(|m| f64::from(m.score)).collect(),
                matches: s.members.len() as u64,
                size: s.size as u64,
                score: f64::from(s.score),
                title: s.title.clone(),
                first: s.first.clone(),
                last: s.last.clone(),
                first_site: s.first_site.clone(),
                codes: s.codes.clone(),
                snippet: s.snippet.text.clone(),
                highlights: (s.snippet.char_hits().into_iter())
                    .map(|(a, b)| vec![a as u64, b as u64])
                    .collect(),
                snippet_in_core: s.snippet.in_core,
            })
            .collect()
    }

    /// "312 stories (1,904 pages)".
    pub fn describe(&self) -> String {
        format!(
            "{} {} ({} {})",
            thousands(self.story_count),
            if self.story_count == 1 {
                "story"
            } else {
                "stories"
            },
            thousands(self.page_count),
            if self.page_count == 1 {
                "page"
            } else {
                "pages"
            }
        )
    }
}

/// `1904` as `1,904`.
pub fn thousands(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// What a query looks for in snippets: whole index terms and term prefixes.
#[derive(Debug, Default)]
struct Wanted {
    terms: HashSet<String>,
    prefixes: Vec<String>,
}

struct Compiler<'a> {
    fields: &'a Fields,
    prefixes: &'a [String],
    stories: &'a Stories,
    whole_text: bool,
    wanted: Wanted,
}

impl Compiler<'_> {
    fn text_field(&self, f: TextField) -> Field {
        match f {
            TextField::Body if self.whole_text => self.fields.text,
            TextField::Body => self.fields.core,
            TextField::Title => self.fields.title,
            TextField::Url => self.fields.url,
        }
    }

    fn compile(&mut self, node: &Node) -> Box<dyn Query> {
        match node {
            Node::Text { field, text, .. } => {
                let pieces = analyzer::query_pieces(text);
                if pieces.is_empty() {
                    return Box::new(EmptyQuery);
                }
                let f = self.text_field(*field);
                let plain = *field == TextField::Url
                    || pieces.iter().all(|p| matches!(p, QueryPiece::Unspaced(_)));
                let prefixes: Vec<&str> = if plain {
                    vec![analyzer::PLAIN]
                } else {
                    self.prefixes.iter().map(String::as_str).collect()
                };
                let mut seen = HashSet::new();
                let mut alternatives: Vec<(Occur, Box<dyn Query>)> = Vec::new();
                for prefix in prefixes {
                    let terms = analyzer::phrase_terms(&pieces, prefix);
                    if !seen.insert(terms.clone()) {
                        continue;
                    }
                    if *field == TextField::Body {
                        self.wanted
                            .terms
                            .extend(terms.iter().map(|(_, t)| t.clone()));
                    }
                    let q: Box<dyn Query> = if terms.len() == 1 {
                        Box::new(TermQuery::new(
                            Term::from_field_text(f, &terms[0].1),
                            IndexRecordOption::WithFreqs,
                        ))
                    } else {
                        Box::new(PhraseQuery::new_with_offset(
                            terms
                                .into_iter()
                                .map(|(p, t)| (p, Term::from_field_text(f, &t)))
                                .collect(),
                        ))
                    };
                    alternatives.push((Occur::Should, q));
                }
                one_of(alternatives)
            }
            Node::Prefix { field, prefix } => {
                let mut norm = String::new();
                crate::token::markup::for_each_term(prefix, |t| norm.push_str(t));
                if norm.is_empty() {
                    return Box::new(EmptyQuery);
                }
                // The body's words unstemmed (`core_words`, `text_words`); titles and URLs by
                // their terms under each language's prefix.
                let (f, prefixes): (Field, Vec<String>) = match field {
                    TextField::Body => {
                        self.wanted.prefixes.push(norm.clone());
                        let f = if self.whole_text {
                            self.fields.text_words
                        } else {
                            self.fields.core_words
                        };
                        (f, vec![String::new()])
                    }
                    TextField::Title => (
                        self.fields.title,
                        self.prefixes.iter().map(|p| format!("{p}:")).collect(),
                    ),
                    TextField::Url => (self.fields.url, vec![format!("{}:", analyzer::PLAIN)]),
                };
                let alternatives = prefixes
                    .into_iter()
                    .map(|p| {
                        let from = format!("{p}{norm}");
                        let to = format!("{from}\u{10FFFF}");
                        let q: Box<dyn Query> = Box::new(RangeQuery::new(
                            Bound::Included(Term::from_field_text(f, &from)),
                            Bound::Included(Term::from_field_text(f, &to)),
                        ));
                        (Occur::Should, q)
                    })
                    .collect();
                one_of(alternatives)
            }
            Node::Site(site) => {
                let site = site.strip_prefix("www.").unwrap_or(site);
                Box::new(TermQuery::new(
                    Term::from_field_text(self.fields.site, site),
                    IndexRecordOption::Basic,
                ))
            }
            Node::Lang(lang) => Box::new(TermQuery::new(
                Term::from_field_text(self.fields.lang, lang),
                IndexRecordOption::Basic,
            )),
            Node::Code(name) => {
                let pages = self
                    .stories
                    .codes
                    .iter()
                    .find(|(c, _)| c.eq_ignore_ascii_case(name))
                    .map(|(_, p)| self.stories.with_stories(p))
                    .unwrap_or_default();
                self.pages(pages)
            }
            Node::Variable { name, value } => {
                let pages = self
                    .stories
                    .values
                    .get(&name.to_lowercase())
                    .and_then(|v| v.get(&value.to_lowercase()))
                    .map(|p| self.stories.with_stories(p))
                    .unwrap_or_default();
                self.pages(pages)
            }
            Node::Days { field, from, to } => {
                let f = match field {
                    DateField::Published => self.fields.published,
                    DateField::Captured => self.fields.captured,
                };
                let bound = |d: &Option<i64>| match d {
                    Some(d) => Bound::Included(Term::from_field_i64(f, *d)),
                    None => Bound::Unbounded,
                };
                if from.is_none() && to.is_none() {
                    return Box::new(tantivy::query::ExistsQuery::new(
                        match field {
                            DateField::Published => "published",
                            DateField::Captured => "captured",
                        }
                        .into(),
                        false,
                    ));
                }
                Box::new(RangeQuery::new(bound(from), bound(to)))
            }
            Node::And(parts) => {
                let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
                for p in parts {
                    match p {
                        Node::Not(inner) => {
                            let q = self.compile_negated(inner);
                            clauses.push((Occur::MustNot, q));
                        }
                        other => clauses.push((Occur::Must, self.compile(other))),
                    }
                }
                if !clauses.iter().any(|(o, _)| *o == Occur::Must) {
                    clauses.push((Occur::Must, Box::new(AllQuery)));
                }
                Box::new(BooleanQuery::new(clauses))
            }
            Node::Or(parts) => {
                let clauses = parts
                    .iter()
                    .map(|p| (Occur::Should, self.compile(p)))
                    .collect();
                Box::new(BooleanQuery::new(clauses))
            }
            Node::Not(inner) => {
                let q = self.compile_negated(inner);
                Box::new(BooleanQuery::new(vec![
                    (Occur::Must, Box::new(AllQuery)),
                    (Occur::MustNot, q),
                ]))
            }
        }
    }

    /// A query under NOT: its words are not hits to mark.
    fn compile_negated(&mut self, node: &Node) -> Box<dyn Query> {
        let wanted = std::mem::take(&mut self.wanted);
        let q = self.compile(node);
        self.wanted = wanted;
        q
    }

    fn pages(&self, pages: HashSet<PageId>) -> Box<dyn Query> {
        if pages.is_empty() {
            return Box::new(EmptyQuery);
        }
        Box::new(TermSetQuery::new(
            pages.into_iter().map(|p| super::page_term(self.fields, p)),
        ))
    }
}

fn one_of(mut alternatives: Vec<(Occur, Box<dyn Query>)>) -> Box<dyn Query> {
    match alternatives.len() {
        0 => Box::new(EmptyQuery),
        1 => alternatives.pop().expect("one").1,
        _ => Box::new(BooleanQuery::new(alternatives)),
    }
}

/// A matching page: its id, score and document.
type Hit = (PageId, Score, tantivy::DocAddress);

/// Every matching page: (page id, score, document address).
struct AllHits {
    page: String,
}

struct SegmentHits {
    column: tantivy::columnar::Column<u64>,
    segment: SegmentOrdinal,
    hits: Vec<(u64, Score, tantivy::DocAddress)>,
}

impl Collector for AllHits {
    type Fruit = Vec<(u64, Score, tantivy::DocAddress)>;
    type Child = SegmentHits;

    fn for_segment(
        &self,
        segment: SegmentOrdinal,
        reader: &SegmentReader,
    ) -> tantivy::Result<SegmentHits> {
        Ok(SegmentHits {
            column: reader.fast_fields().u64(&self.page)?,
            segment,
            hits: Vec::new(),
        })
    }

    fn requires_scoring(&self) -> bool {
        true
    }

    fn merge_fruits(&self, fruits: Vec<Self::Fruit>) -> tantivy::Result<Self::Fruit> {
        Ok(fruits.into_iter().flatten().collect())
    }
}

impl SegmentCollector for SegmentHits {
    type Fruit = Vec<(u64, Score, tantivy::DocAddress)>;

    fn collect(&mut self, doc: DocId, score: Score) {
        if let Some(p) = self.column.first(doc) {
            self.hits
                .push((p, score, tantivy::DocAddress::new(self.segment, doc)));
        }
    }

    fn harvest(self) -> Self::Fruit {
        self.hits
    }
}

impl SearchIndex {
    /// Answer `query` (the language of [`query`]) with the stories of `stories`.
    pub fn search(
        &self,
        stories: &Stories,
        query_text: &str,
        options: &SearchOptions,
    ) -> Result<SearchResults> {
        let node = query::parse(query_text, stories.variables())
            .map_err(|e| Error::Query(e.to_string()))?;
        let prefixes = self.prefixes();
        let mut compiler = Compiler {
            fields: self.fields(),
            prefixes: &prefixes,
            stories,
            whole_text: options.whole_text,
            wanted: Wanted::default(),
        };
        let q = compiler.compile(&node);
        let wanted = compiler.wanted;
        let searcher = self.searcher();
        let hits = searcher.search(
            &*q,
            &AllHits {
                page: "page".into(),
            },
        )?;
        let page_count = hits.len();
        // Collapse by story: every story is counted and ordered on what is known of it
        // without reading anything (its best score, its size, its first day); titles, dates,
        // codes and keys are made only for the stories returned.
        let mut by_story: HashMap<(Option<i64>, i64), Vec<Hit>> = HashMap::new();
        for (p, score, addr) in hits {
            let page = PageId(p as i64);
            let key = match stories.cluster_of(page) {
                Some(c) => (Some(c), 0),
                None => (None, page.0),
            };
            by_story.entry(key).or_default().push((page, score, addr));
        }
        struct Row {
            cluster: Option<i64>,
            members: Vec<Hit>,
            size: usize,
            first: Option<i64>,
        }
        let mut rows: Vec<Row> = by_story
            .into_iter()
            .map(|((cluster, _), mut members)| {
                members.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
                let (size, first) = match cluster {
                    Some(c) => (
                        stories.members[&c].len(),
                        stories.spans.get(&c).map(|s| s.0.0),
                    ),
                    None => (
                        1,
                        stories
                            .pages
                            .get(&members[0].0)
                            .and_then(|i| i.published_day),
                    ),
                };
                Row {
                    cluster,
                    members,
                    size,
                    first,
                }
            })
            .collect();
        let best = |r: &Row| (r.members[0].1, r.members[0].0);
        match options.sort {
            Sort::Relevance => rows.sort_by(|a, b| {
                best(b)
                    .0
                    .total_cmp(&best(a).0)
                    .then(a.cluster.cmp(&b.cluster))
                    .then(best(a).1.cmp(&best(b).1))
            }),
            Sort::First => rows.sort_by(|a, b| {
                (a.first.is_none(), a.first)
                    .cmp(&(b.first.is_none(), b.first))
                    .then(best(b).0.total_cmp(&best(a).0))
                    .then(best(a).1.cmp(&best(b).1))
            }),
            Sort::Size => rows.sort_by(|a, b| {
                b.size
                    .cmp(&a.size)
                    .then(best(b).0.total_cmp(&best(a).0))
                    .then(best(a).1.cmp(&best(b).1))
            }),
        }
        let story_count = rows.len();
        let all_clusters = rows.iter().filter_map(|r| r.cluster).collect();
        if let Some(limit) = options.limit {
            rows.truncate(limit);
        }
        let info = |p: &PageId| stories.pages.get(p);
        let rows: Vec<(StoryHit, tantivy::DocAddress)> = rows
            .into_iter()
            .map(|row| {
                let best = row.members[0];
                let single = [best.0];
                let all: &[PageId] = match row.cluster {
                    Some(c) => &stories.members[&c],
                    None => &single,
                };
                let span = match row.cluster {
                    Some(c) => stories.spans.get(&c).copied(),
                    None => info(&best.0)
                        .and_then(|i| i.published_day)
                        .map(|d| ((d, best.0), (d, best.0))),
                };
                let day_of = |p: PageId| {
                    info(&p)
                        .and_then(|i| i.published.as_deref())
                        .map(|d| d.chars().take(10).collect::<String>())
                };
                let mut codes: BTreeSet<String> = BTreeSet::new();
                for (name, pages) in &stories.codes {
                    if all.iter().any(|p| pages.contains(p)) {
                        codes.insert(name.clone());
                    }
                }
                let story = StoryHit {
                    cluster: row.cluster,
                    size: row.size,
                    score: best.1,
                    title: stories
                        .titles
                        .story_title(all.iter().filter_map(|p| {
                            let i = info(p)?;
                            Some((i.site.as_deref().unwrap_or_default(), i.title.as_deref()))
                        }))
                        .unwrap_or_default(),
                    first_site: span
                        .and_then(|((_, p), _)| info(&p))
                        .and_then(|i| i.site.clone()),
                    first: span.and_then(|((_, p), _)| day_of(p)),
                    last: span.and_then(|(_, (_, p))| day_of(p)),
                    codes: codes.into_iter().collect(),
                    members: row
                        .members
                        .iter()
                        .map(|&(page, score, _)| PageHit {
                            page,
                            key: info(&page).map(|i| i.key.clone()).unwrap_or_default(),
                            score,
                        })
                        .collect(),
                    snippet: Snippet::default(),
                };
                (story, best.2)
            })
            .collect();
        let fields = self.fields();
        let stories = rows
            .into_iter()
            .map(|(mut story, addr)| {
                let doc: TantivyDocument = searcher.doc(addr)?;
                let text = doc
                    .get_first(fields.core_text)
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default();
                let lang = doc
                    .get_first(fields.lang)
                    .and_then(|v| v.as_str().map(str::to_string));
                story.snippet = snippet(&text, analyzer::prefix_of(lang.as_deref()), &wanted);
                Ok(story)
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(SearchResults {
            stories,
            story_count,
            page_count,
            all_clusters,
        })
    }
}

/// One matching page of a result list as exports write it (CSV, Parquet …): the story's rank
/// and cluster beside the page's key.
#[derive(Debug, Clone, Default, PartialEq, Serialize, serde::Deserialize)]
pub struct ResultRow {
    /// The query.
    pub query: String,
    /// The story's rank in the list (1 first).
    pub rank: u64,
    /// Its cluster in the run (empty: no cluster).
    pub cluster: Option<i64>,
    /// The run the clusters are of.
    pub run: Option<i64>,
    /// The page's key (as `export pages` gives it).
    pub key: String,
    /// The page's score.
    pub score: f64,
    /// Whether it is the story's best member (whose snippet is given).
    pub best: bool,
    /// Members of the story that match.
    pub story_matches: u64,
    /// Members of the story.
    pub story_size: u64,
    /// The story's title.
    pub story_title: String,
    /// Its first publication (day).
    pub story_first: Option<String>,
    /// Its last publication.
    pub story_last: Option<String>,
    /// The site of its first publication.
    pub story_first_site: Option<String>,
    /// The codes on its members, `;`-separated.
    pub story_codes: String,
    /// The best member's snippet (on its row).
    pub snippet: String,
}

impl SearchResults {
    /// One row per matching page of the stories returned.
    pub fn rows(&self, query: &str, run: Option<RunId>) -> Vec<ResultRow> {
        let mut out = Vec::new();
        for (rank, story) in self.stories.iter().enumerate() {
            for (k, m) in story.members.iter().enumerate() {
                out.push(ResultRow {
                    query: query.to_string(),
                    rank: rank as u64 + 1,
                    cluster: story.cluster,
                    run: run.map(|r| r.0),
                    key: m.key.clone(),
                    score: f64::from(m.score),
                    best: k == 0,
                    story_matches: story.members.len() as u64,
                    story_size: story.size as u64,
                    story_title: story.title.clone(),
                    story_first: story.first.clone(),
                    story_last: story.last.clone(),
                    story_first_site: story.first_site.clone(),
                    story_codes: story.codes.join(";"),
                    snippet: if k == 0 {
                        story.snippet.text.clone()
                    } else {
                        String::new()
                    },
                });
            }
        }
        out
    }

    /// Matching stories per period of their first publication: `week` counts by ISO week's
    /// Monday, else by day; stories without a date are left out. Sorted by period.
    pub fn per_period(&self, week: bool) -> Vec<(String, usize)> {
        let mut counts: std::collections::BTreeMap<i64, usize> = Default::default();
        for s in &self.stories {
            let Some(day) = super::day_of(s.first.as_deref()) else {
                continue;
            };
            // 1970-01-01 was a Thursday: Monday of its week is day -3.
            let key = if week {
                day - (day + 3).rem_euclid(7)
            } else {
                day
            };
            *counts.entry(key).or_default() += 1;
        }
        counts
            .into_iter()
            .map(|(d, n)| {
                let (y, m, dd) = crate::calendar::civil_from_days(d);
                (format!("{y:04}-{m:02}-{dd:02}"), n)
            })
            .collect()
    }

    /// Apply `code` to every story found that is a cluster of `run` (all members, as coding a
    /// cluster does; those not returned too), as one edit of the code log (so it can be
    /// undone); stories that are pages outside the run are left as they are. The stories and
    /// pages coded.
    pub fn code_all(
        &self,
        project: &mut Project,
        run: RunId,
        code: crate::store::CodeId,
        by: &str,
        query: &str,
    ) -> Result<(usize, usize)> {
        let clusters = &self.all_clusters;
        let what = format!(
            "apply to the {} stories found by {query:?} (run {run})",
            clusters.len()
        );
        let pages = project.logged_code_edit(by, &what, &[code], |p| {
            p.code_clusters(run, clusters, code, by)
        })?;
        Ok((clusters.len(), pages))
    }
}

/// Words a snippet shows.
const SNIPPET_WORDS: usize = 32;

/// The window of `text` with the most hits of `wanted` (its start when it has none).
fn snippet(text: &str, prefix: &str, wanted: &Wanted) -> Snippet {
    let terms = analyzer::terms_of_text(text, prefix);
    let is_hit = |t: &analyzer::Term| {
        wanted.terms.contains(&t.text)
            || (!wanted.prefixes.is_empty() && {
                let mut norm = String::new();
                crate::token::markup::for_each_term(&text[t.from..t.to], |w| norm.push_str(w));
                wanted.prefixes.iter().any(|p| norm.starts_with(p.as_str()))
            })
    };
    // Hit byte ranges, merged where terms overlap (bigrams).
    let mut hits: Vec<(usize, usize, usize)> = Vec::new();
    for t in &terms {
        if is_hit(t) {
            match hits.last_mut() {
                Some(last) if t.from <= last.1 => last.1 = last.1.max(t.to),
                _ => hits.push((t.from, t.to, t.position)),
            }
        }
    }
    let positions: Vec<usize> = terms.iter().map(|t| t.position).collect();
    let n = positions.last().map_or(0, |p| p + 1);
    // The start position whose window holds the most hits.
    let mut best = (0usize, 0usize);
    let mut j = 0;
    for i in 0..hits.len() {
        while j < hits.len() && hits[j].2 < hits[i].2 + SNIPPET_WORDS {
            j += 1;
        }
        if j - i > best.1 {
            best = (hits[i].2.saturating_sub(4), j - i);
        }
    }
    let start_pos = best.0.min(n.saturating_sub(SNIPPET_WORDS));
    let first = terms.iter().find(|t| t.position >= start_pos);
    let last = terms
        .iter()
        .rev()
        .find(|t| t.position < start_pos + SNIPPET_WORDS);
    let (Some(first), Some(last)) = (first, last) else {
        return Snippet {
            text: text.chars().take(200).collect(),
            hits: Vec::new(),
            in_core: wanted.terms.is_empty() && wanted.prefixes.is_empty(),
        };
    };
    let ends = std::ptr::eq(last, terms.last().expect("a last term"));
    let starts = std::ptr::eq(first, &terms[0]);
    let from = if starts { 0 } else { first.from };
    let to = if ends { text.len() } else { last.to.max(from) };
    let mut out = String::new();
    if from > 0 {
        out.push('…');
    }
    let base = out.len();
    out.push_str(&text[from..to]);
    if to < text.len() {
        out.push('…');
    }
    let shown: Vec<(usize, usize)> = hits
        .iter()
        .filter(|h| h.0 >= from && h.1 <= to)
        .map(|h| (h.0 - from + base, h.1 - from + base))
        .collect();
    let (text, shown) = one_line(&out, &shown);
    Snippet {
        text,
        in_core: !hits.is_empty() || (wanted.terms.is_empty() && wanted.prefixes.is_empty()),
        hits: shown,
    }
}

/// `text` on one line, every run of white space (line breaks, tabs, a page's indentation) one
/// space, and the byte ranges `hits` moved with it.
fn one_line(text: &str, hits: &[(usize, usize)]) -> (String, Vec<(usize, usize)>) {
    let mut out = String::with_capacity(text.len());
    // Where each byte of `text` went (and where its end went).
    let mut at = vec![0usize; text.len() + 1];
    let mut space = false;
    for (i, c) in text.char_indices() {
        at[i] = out.len();
        if c.is_whitespace() {
            if !space {
                out.push(' ');
            }
            space = true;
        } else {
            out.push(c);
            space = false;
        }
    }
    at[text.len()] = out.len();
    let moved = hits.iter().map(|&(a, b)| (at[a], at[b])).collect();
    (out, moved)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_are_grouped() {
        assert_eq!(thousands(1904), "1,904");
        assert_eq!(thousands(312), "312");
        assert_eq!(thousands(1_000_000), "1,000,000");
    }

    #[test]
    fn snippets_mark_hits_where_they_are() {
        let mut wanted = Wanted::default();
        wanted.terms.insert(analyzer::term("de", "flüchtlinge"));
        wanted.prefixes.push("grenz".into());
        let text = "Viele Flüchtlinge kamen an die Grenze. Der Flüchtling sprach.";
        let s = snippet(text, "de", &wanted);
        assert!(s.in_core);
        assert_eq!(
            s.marked("[", "]"),
            "Viele [Flüchtlinge] kamen an die [Grenze]. Der [Flüchtling] sprach."
        );
        let none = snippet(
            text,
            "de",
            &Wanted {
                terms: ["de:nichts".to_string()].into(),
                prefixes: Vec::new(),
            },
        );
        assert!(!none.in_core);
        assert!(none.hits.is_empty());
        let c = snippet("难民营在这里", analyzer::PLAIN, &{
            let mut w = Wanted::default();
            w.terms.insert("_:难民".into());
            w
        });
        assert_eq!(c.marked("[", "]"), "[难民]营在这里");
        assert_eq!(c.char_hits(), [(0, 2)]);
        let spaced = snippet("Die\r\n\t  Grenze   zu", "de", &wanted);
        assert_eq!(spaced.marked("[", "]"), "Die [Grenze] zu");
    }
}
