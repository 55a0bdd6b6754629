//! Gold clusters: a collection's documents (and optionally a file) in, a gold cluster id per
//! document out.
//!
//! Folder and zip inputs carry gold in their first-level sub-folder names
//! ([`Document::gold`]). For other archives a file maps document keys to clusters: one
//! `doc<TAB>cluster` or `doc,cluster` per line (an optional `doc,cluster` header; `"` quotes
//! around fields are removed). `doc` is [`Document::key`]; a document's URL is accepted too.
//!
//! [`find`] is the one gold lookup of the command line and the workbench: a file given by the
//! user, else folder names and `X.gold.tsv` (or `.csv`) beside each archive `X.warc.gz` (a page
//! in a folder takes its folder's cluster, another its archive's file's).

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use crate::{Document, Error, Result};

/// The gold file that belongs to an archive: `X.gold.tsv` (or `.csv`) beside `X.warc.gz`,
/// `X.warc`, `X.arc.gz`, `X.wacz`, `X.zip`.
pub fn sibling_gold_file(archive: &Path) -> Option<PathBuf> {
    let name = archive.file_name()?.to_string_lossy().into_owned();
    let mut stem = name.as_str();
    for ext in [".gz", ".warc", ".arc", ".wacz", ".zip"] {
        stem = stem.strip_suffix(ext).unwrap_or(stem);
    }
    ["gold.tsv", "gold.csv"]
        .iter()
        .map(|ext| archive.with_file_name(format!("{stem}.{ext}")))
        .find(|p| p.is_file())
}

/// The gold standard of `docs` read from `archives`, and where it came from (none when no
/// gold is known): `file` when given, else the folder names of folder and zip inputs together
/// with the gold files beside the archives ([`sibling_gold_file`]).
pub fn find(
    archives: &[PathBuf],
    docs: &[Document],
    file: Option<&Path>,
) -> Result<(GoldStandard, Option<String>)> {
    if let Some(path) = file {
        let gold = GoldStandard::read(path, docs)?;
        if !docs.is_empty() && !gold.is_known() {
            return Err(Error::InvalidParameter(format!(
                "gold file {}: none of its {} line(s) names a page of these archives (`doc` is \
                 a page's key, as `run --clusters` writes it, or its URL)",
                path.display(),
                gold.unknown_keys
            )));
        }
        return Ok((gold, Some(path.display().to_string())));
    }
    let folders = GoldStandard::from_documents(docs);
    let files: Vec<PathBuf> = archives
        .iter()
        .filter_map(|p| sibling_gold_file(p))
        .collect();
    if files.is_empty() {
        let source = folders.is_known().then(|| "folder names".to_string());
        return Ok((folders, source));
    }
    let mut text = String::new();
    for f in &files {
        text.push_str(&std::fs::read_to_string(f).map_err(|e| Error::io(e, f))?);
        text.push('\n');
    }
    let mut names: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    let from_files = GoldStandard::parse(&text, docs)?;
    if !folders.is_known() {
        return Ok((from_files, Some(names.join(", "))));
    }
    // Folders and archives opened together: each page takes its folder's cluster, else its
    // archive's gold file's.
    let labels: Vec<Option<String>> =
        docs.iter()
            .enumerate()
            .map(|(i, d)| {
                d.gold.as_deref().map(String::from).or_else(|| {
                    from_files.cluster_of[i].map(|c| from_files.names[c as usize].clone())
                })
            })
            .collect();
    names.insert(0, "folder names".to_string());
    Ok((
        GoldStandard::from_labels(labels, from_files.unknown_keys),
        Some(names.join(", ")),
    ))
}

/// Gold cluster per document.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GoldStandard {
    /// Cluster names, sorted; a cluster id indexes this list.
    pub names: Vec<String>,
    /// Gold cluster of each document (by [`crate::DocId`]), `None` when unknown.
    pub cluster_of: Vec<Option<u32>>,
    /// Lines of a gold file whose document is not in the collection.
    pub unknown_keys: usize,
}

impl GoldStandard {
    /// Gold from the documents' own [`Document::gold`] (folder names).
    pub fn from_documents(docs: &[Document]) -> Self {
        Self::from_labels(
            docs.iter()
                .map(|d| d.gold.as_deref().map(String::from))
                .collect(),
            0,
        )
    }

    fn from_labels(labels: Vec<Option<String>>, unknown_keys: usize) -> Self {
        let names: Vec<String> = labels
            .iter()
            .flatten()
            .cloned()
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        let id: BTreeMap<&str, u32> = names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.as_str(), i as u32))
            .collect();
        let cluster_of = labels
            .iter()
            .map(|l| l.as_deref().and_then(|l| id.get(l).copied()))
            .collect();
        GoldStandard {
            names,
            cluster_of,
            unknown_keys,
        }
    }

    /// Gold from `doc,cluster` lines (see the module docs) for `docs`.
    pub fn parse(text: &str, docs: &[Document]) -> Result<Self> {
        let mut by_key: HashMap<&str, usize> = HashMap::new();
        for (i, d) in docs.iter().enumerate() {
            if let Some(url) = d.url.as_deref() {
                by_key.entry(url).or_insert(i);
            }
        }
        for (i, d) in docs.iter().enumerate() {
            by_key.insert(&*d.key, i);
        }
        let mut labels: Vec<Option<String>> = vec![None; docs.len()];
        let mut unknown = 0;
        for (n, line) in text.lines().enumerate() {
            let line = line.trim_end_matches('\r');
            if line.trim().is_empty() || line.starts_with('#') {
                continue;
            }
            let sep = if line.contains('\t') { '\t' } else { ',' };
            let Some((doc, cluster)) = line.rsplit_once(sep) else {
                return Err(Error::InvalidParameter(format!(
                    "gold line {}: expected doc<TAB>cluster or doc,cluster: {line:?}",
                    n + 1
                )));
            };
            let unquote = |s: &str| s.trim().trim_matches('"').to_string();
            let (doc, cluster) = (unquote(doc), unquote(cluster));
            if n == 0 && doc.eq_ignore_ascii_case("doc") {
                continue;
            }
            match by_key.get(doc.as_str()) {
                Some(&i) => labels[i] = Some(cluster),
                None => unknown += 1,
            }
        }
        Ok(Self::from_labels(labels, unknown))
    }

    /// Gold from a file for `docs`.
    pub fn read(path: &Path, docs: &[Document]) -> Result<Self> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(e, path))?;
        Self::parse(&text, docs)
    }

    /// The name of document `doc`'s gold cluster, when it has one.
    pub fn name_of(&self, doc: usize) -> Option<String> {
        let c = self.cluster_of.get(doc).copied().flatten()?;
        self.names.get(c as usize).cloned()
    }

    /// Whether any document has a gold cluster.
    pub fn is_known(&self) -> bool {
        self.cluster_of.iter().any(Option::is_some)
    }

    /// Documents with a gold cluster.
    pub fn labelled(&self) -> usize {
        self.cluster_of.iter().filter(|c| c.is_some()).count()
    }

    /// What a user should know before trusting metrics against this gold from `source`: pages
    /// it leaves out (each scored as a story of its own, so their pairs count as false) and
    /// lines that name no page. `None` when it covers every page and every line is used.
    pub fn coverage_warning(&self, source: &str) -> Option<String> {
        let (n, labelled) = (self.cluster_of.len(), self.labelled());
        let mut parts = Vec::new();
        if self.is_known() && labelled < n {
            parts.push(format!(
                "it gives a cluster to {labelled} of {n} pages; the other {} count as stories \
                 of one page each, so pairs with them count as false",
                n - labelled
            ));
        }
        if self.unknown_keys > 0 {
            parts.push(format!(
                "{} of its lines name no page of these archives",
                self.unknown_keys
            ));
        }
        (!parts.is_empty()).then(|| format!("gold from {source}: {}", parts.join("; ")))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn sibling_gold_file_strips_archive_extensions() {
        let dir = tempfile::tempdir().unwrap();
        let archive = dir.path().join("news.warc.gz");
        assert_eq!(sibling_gold_file(&archive), None);
        std::fs::write(dir.path().join("news.gold.tsv"), "doc\tcluster\n").unwrap();
        assert_eq!(
            sibling_gold_file(&archive),
            Some(dir.path().join("news.gold.tsv"))
        );
    }

    use super::*;

    fn doc(key: &str, gold: Option<&str>) -> Document {
        let url = format!("http://example.com/{key}");
        Document {
            gold: gold.map(Into::into),
            ..Document::from_page(key, Some(&url), "")
        }
    }

    #[test]
    fn folder_names_become_sorted_cluster_ids() {
        let docs = [doc("b/1", Some("b")), doc("a/1", Some("a")), doc("x", None)];
        let g = GoldStandard::from_documents(&docs);
        assert_eq!(g.names, ["a", "b"]);
        assert_eq!(g.cluster_of, [Some(1), Some(0), None]);
        assert!(g.is_known());
        assert_eq!(g.labelled(), 2);
    }

    #[test]
    fn file_with_header_tabs_commas_quotes_and_urls() {
        let docs = [doc("k1", None), doc("k2", None), doc("k3", None)];
        let text = "doc,cluster\nk1,A\n\"k2\"\t\"B\"\nhttp://example.com/k3,A\nnope,C\n";
        let g = GoldStandard::parse(text, &docs).unwrap();
        assert_eq!(g.names, ["A", "B"]);
        assert_eq!(g.cluster_of, [Some(0), Some(1), Some(0)]);
        assert_eq!(g.unknown_keys, 1);
        assert!(GoldStandard::parse("no separator here\n", &docs).is_err());
    }

    #[test]
    fn folders_and_archives_opened_together_take_gold_from_both() {
        let dir = tempfile::tempdir().unwrap();
        let archive = dir.path().join("x.warc.gz");
        std::fs::write(dir.path().join("x.gold.tsv"), "doc\tcluster\nk2\tB\n").unwrap();
        let docs = [doc("a/1", Some("a")), doc("k2", None), doc("k3", None)];
        let (gold, source) = find(&[dir.path().join("folder"), archive], &docs, None).unwrap();
        assert_eq!(gold.names, ["B", "a"]);
        assert_eq!(gold.cluster_of, [Some(1), Some(0), None]);
        let source = source.unwrap();
        assert!(
            source.starts_with("folder names, ") && source.ends_with("x.gold.tsv"),
            "{source}"
        );
        assert!(
            gold.coverage_warning(&source)
                .unwrap()
                .contains("2 of 3 pages")
        );
    }

    #[test]
    fn gold_that_misses_pages_is_named_and_gold_that_misses_all_is_refused() {
        let docs = [doc("k1", None), doc("k2", None), doc("k3", None)];
        let whole = GoldStandard::parse("k1,A\nk2,A\nk3,B\n", &docs).unwrap();
        assert_eq!(whole.coverage_warning("g.tsv"), None);
        let part = GoldStandard::parse("k1,A\nk2,A\nnope,B\n", &docs).unwrap();
        let w = part.coverage_warning("g.tsv").unwrap();
        assert!(w.contains("2 of 3 pages; the other 1 count"), "{w}");
        assert!(w.contains("1 of its lines name no page"), "{w}");

        let dir = tempfile::tempdir().unwrap();
        let other = dir.path().join("other.tsv");
        std::fs::write(&other, "doc\tcluster\nx\tA\ny\tA\n").unwrap();
        let e = find(&[], &docs, Some(&other)).unwrap_err().to_string();
        assert!(e.contains("none of its 2 line(s) names a page"), "{e}");
        // No pages at all is not the gold file's fault.
        assert!(find(&[], &[], Some(&other)).is_ok());
    }
}
