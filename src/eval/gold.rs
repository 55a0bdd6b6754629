//! Gold clusters: a collection's documents (and optionally a file) in, a gold cluster id per
//! document out.
//!
//! Folder and zip inputs carry gold in their first-level sub-folder names
//! ([`Document::gold`]). For other archives a file maps document keys to clusters: one
//! `doc<TAB>cluster` or `doc,cluster` per line (an optional `doc,cluster` header; `"` quotes
//! around fields are removed). `doc` is [`Document::key`]; a document's URL is accepted too.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use crate::{Document, Error, Result};

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
        Self::from_labels(docs.iter().map(|d| d.gold.clone()).collect(), 0)
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
            by_key.insert(d.key.as_str(), i);
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

    /// Whether any document has a gold cluster.
    pub fn is_known(&self) -> bool {
        self.cluster_of.iter().any(Option::is_some)
    }

    /// Documents with a gold cluster.
    pub fn labelled(&self) -> usize {
        self.cluster_of.iter().filter(|c| c.is_some()).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(key: &str, gold: Option<&str>) -> Document {
        let url = format!("http://example.com/{key}");
        Document {
            gold: gold.map(String::from),
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
}
