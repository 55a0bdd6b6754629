//! `merge`: the coders' packages brought into the project. Every package is checked first (a
//! samecore package, whole, of this project, written by it and not changed since, its stories
//! still in the project, every value one its codebook takes); then all their values go in
//! under one transaction, so a merge killed at any point leaves the project as it was and can
//! be run again. A value remembers its package row (`origin`): one merged before is counted as
//! already there; an undo made in the package after an earlier merge is carried over. A
//! package of pairs brings labels and derivation classes the same way, into the sample it was
//! written from (which must still have the same pairs).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use rusqlite::{OptionalExtension, params};

use super::pairs::{DerivationRow, LabelRow};
use super::{Package, bad};
use crate::Result;
use crate::codebook::Answer;
use crate::labels::Reason;
use crate::store::Project;
use crate::store::packages::PackageKind;
use crate::store::values::Unit;
use crate::store::{PageId, SampleId};

/// One row the coder wrote in a package.
#[derive(Debug, Clone)]
pub(super) struct Row {
    pub id: i64,
    pub position: i64,
    /// The member page (its key) of a page variable's value.
    pub page: Option<String>,
    pub variable: String,
    pub answer: Answer,
    pub version: i64,
    pub at: String,
    pub undone: bool,
}

/// The same coder gave one story two values in two places (two packages, or a package and
/// the project): the later counts; both stay in the project's log.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Conflict {
    /// The story.
    pub unit: String,
    /// The variable.
    pub variable: String,
    /// The value that counts (the later one), and when.
    pub kept: String,
    /// When it was given.
    pub kept_at: String,
    /// The earlier value, and when.
    pub earlier: String,
    /// When it was given.
    pub earlier_at: String,
}

/// What one package brought.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct PackageMerge {
    /// The file.
    pub file: PathBuf,
    /// Its coder.
    pub coder: String,
    /// Its round (or sample).
    pub round: String,
    /// What it held.
    pub kind: PackageKind,
    /// Its stories (or pairs).
    pub units: usize,
    /// Stories the coder answered every scored variable of (pairs the coder labelled).
    pub units_coded: usize,
    /// Values that came in now.
    pub values_in: usize,
    /// Labels that came in now (a package of pairs).
    pub labels_in: usize,
    /// Derivation classes that came in now (a package of pairs).
    pub derivations_in: usize,
    /// Values (labels, classes) that were there from an earlier merge.
    pub already: usize,
    /// Values undone in the package since an earlier merge, undone in the project now.
    pub undone: usize,
    /// Where the coder gave one story two values.
    pub conflicts: Vec<Conflict>,
}

impl PackageMerge {
    /// One line: "ana (round r1): 3 of 5 stories coded; 12 values in, 0 already there".
    pub fn summary(&self) -> String {
        let undone = if self.undone > 0 {
            format!(", {} undone since", self.undone)
        } else {
            String::new()
        };
        match self.kind {
            PackageKind::Round => format!(
                "{} (round {}): {} of {} stories coded; {} values in, {} already there{undone}",
                self.coder, self.round, self.units_coded, self.units, self.values_in, self.already
            ),
            PackageKind::Sample => format!(
                "{} (sample {}): {} of {} pairs labelled; {} labels and {} derivation classes \
                 in, {} already there{undone}",
                self.coder,
                self.round,
                self.units_coded,
                self.units,
                self.labels_in,
                self.derivations_in,
                self.already
            ),
        }
    }
}

/// What a merge did, package by package.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct MergeReport {
    /// One entry per package, in the order given.
    pub packages: Vec<PackageMerge>,
}

/// A package checked and read, ready to go in.
struct Checked {
    file: PathBuf,
    package: Package,
    units: BTreeMap<i64, Unit>,
    rows: Vec<Row>,
    /// The project's page of each (story, page key) a page value is on.
    pages: BTreeMap<(i64, String), PageId>,
    done: usize,
    /// For a package of pairs: what it brings.
    sample: Option<SampleChecked>,
}

/// Whether `at` is a time as samecore writes it (`2026-12-02T17:34:13.187Z`).
fn well_timed(at: &str) -> bool {
    let b = at.as_bytes();
    b.len() == 24
        && b.iter().enumerate().all(|(i, c)| match i {
            4 | 7 => *c == b'-',
            10 => *c == b'T',
            13 | 16 => *c == b':',
            19 => *c == b'.',
            23 => *c == b'Z',
            _ => c.is_ascii_digit(),
        })
}

/// Check `path` against `project`; the reason it is refused, naming it.
fn check(project: &Project, own_id: Option<&str>, path: &Path) -> Result<Checked> {
    let name = path.display();
    let package = Package::open_read(path)?;
    let info = package.info.clone();
    if own_id != Some(info.project.as_str()) {
        return Err(bad(format!(
            "{name}: a package of another project (its project is {}, this one is {}); \
             nothing was merged",
            info.project,
            own_id.unwrap_or("one that wrote no package")
        )));
    }
    let record = project.package_record(&info.id)?.ok_or_else(|| {
        bad(format!(
            "{name}: this project has no record of writing package {} (a copy of the project \
             from before it was assigned?); nothing was merged",
            info.id
        ))
    })?;
    if !package.signed_by(&record.key)? {
        return Err(bad(format!(
            "{name}: its stories, texts or codebook were changed after it was written (the \
             signature does not match); ask for a new package (samecore assign); nothing was \
             merged"
        )));
    }
    if record.coder != info.coder || record.run != Some(info.run) || record.kind != info.kind {
        return Err(bad(format!(
            "{name}: its coder, run or kind is not the one recorded"
        )));
    }
    if info.kind == PackageKind::Sample {
        return check_sample(project, path, package);
    }
    let history = project.codebook_history()?;
    if !history
        .iter()
        .any(|v| v.book.version == info.codebook.version)
    {
        return Err(bad(format!(
            "{name}: the project has no codebook version {}",
            info.codebook.version
        )));
    }
    let mut units = BTreeMap::new();
    let mut missing = Vec::new();
    let clusters: BTreeSet<i64> = project
        .run_clusters(info.run)
        .map(|cs| cs.into_iter().map(|c| c.id).collect())
        .unwrap_or_default();
    for u in package.units()? {
        if u.run != info.run {
            return Err(bad(format!(
                "{name}: story {} is of run {}, not the package's run {}; nothing was merged",
                u.position, u.run, info.run
            )));
        }
        if !clusters.contains(&u.cluster) {
            missing.push(u.cluster.to_string());
        }
        units.insert(
            u.position,
            Unit::Story {
                run: u.run,
                cluster: u.cluster,
            },
        );
    }
    if !missing.is_empty() {
        return Err(bad(format!(
            "{name}: the project no longer has these stories of run {}: clusters {}; nothing \
             was merged",
            info.run,
            missing.join(", ")
        )));
    }
    let rows = package.rows()?;
    let mut pages: BTreeMap<(i64, String), PageId> = BTreeMap::new();
    for row in &rows {
        if row.version != info.codebook.version {
            return Err(bad(format!(
                "{name}: value {} says codebook version {}, the package was written under {}",
                row.id, row.version, info.codebook.version
            )));
        }
        if !well_timed(&row.at) {
            return Err(bad(format!(
                "{name}: value {} has no time samecore writes ({:?})",
                row.id, row.at
            )));
        }
        if !units.contains_key(&row.position) {
            return Err(bad(format!(
                "{name}: value {} is on story {}, which the package does not hold",
                row.id, row.position
            )));
        }
        let book = history
            .iter()
            .find(|v| v.book.version == row.version)
            .map(|v| &v.book)
            .ok_or_else(|| {
                bad(format!(
                    "{name}: value {} was coded under codebook version {}, which the project \
                     does not have",
                    row.id, row.version
                ))
            })?;
        let unit = if row.page.is_some() {
            crate::codebook::UnitKind::Page
        } else {
            crate::codebook::UnitKind::Story
        };
        let var = book
            .variable(&row.variable)
            .filter(|v| v.unit == unit)
            .ok_or_else(|| {
                bad(format!(
                    "{name}: value {} is of {:?}, not a {} variable of codebook version {}",
                    row.id,
                    row.variable,
                    unit.name(),
                    row.version
                ))
            })?;
        if let Some(key) = &row.page
            && !pages.contains_key(&(row.position, key.clone()))
        {
            let page = project
                .pages_named(key)?
                .into_iter()
                .find(|p| p.identity.key == *key)
                .ok_or_else(|| {
                    bad(format!(
                        "{name}: value {} is on page {key}, which the project no longer has; \
                         nothing was merged",
                        row.id
                    ))
                })?;
            let on_story = package.members(row.position)?.iter().any(|m| m.key == *key);
            if !on_story {
                return Err(bad(format!(
                    "{name}: value {} is on page {key}, not a page of its story in the package",
                    row.id
                )));
            }
            pages.insert((row.position, key.clone()), page.id);
        }
        let raw = match &row.answer {
            Answer::Value(v) => v.clone(),
            Answer::NotApplicable => var
                .not_applicable
                .map(|n| n.to_string())
                .unwrap_or_default(),
            Answer::CannotCode => var.cannot_code.map(|n| n.to_string()).unwrap_or_default(),
        };
        let parsed = var
            .parse(&raw)
            .map_err(|e| bad(format!("{name}: value {}: {e}", row.id)))?;
        if parsed != row.answer {
            return Err(bad(format!(
                "{name}: value {} of {} is not one its variable takes",
                row.id, row.variable
            )));
        }
    }
    let done = package.progress()?.0;
    Ok(Checked {
        file: path.to_path_buf(),
        package,
        units,
        rows,
        pages,
        done,
        sample: None,
    })
}

/// What a package of pairs brings, checked.
struct SampleChecked {
    sample: SampleId,
    /// Each pair's (left, right) page in the project, by position.
    pages: BTreeMap<u32, (PageId, PageId)>,
    labels: Vec<LabelRow>,
    derivations: Vec<DerivationRow>,
}

/// [`check`] for a package of pairs: the project still has the sample with the same pairs,
/// and every row the coder wrote is one samecore writes.
fn check_sample(project: &Project, path: &Path, package: Package) -> Result<Checked> {
    let name = path.display();
    let info = &package.info;
    let sample = project.sample_by_name(&info.round).map_err(|_| {
        bad(format!(
            "{name}: the project no longer has sample {:?}; nothing was merged",
            info.round
        ))
    })?;
    let theirs: BTreeMap<u32, (PageId, PageId, String, String)> = project
        .sample_pairs(sample.id)?
        .into_iter()
        .map(|p| {
            (
                p.position,
                (p.a.id, p.b.id, p.a.identity.key, p.b.identity.key),
            )
        })
        .collect();
    let n = package.pair_count()?;
    let mut pages = BTreeMap::new();
    let mut differ = Vec::new();
    for position in 0..n {
        let pair = package.pair_head(position)?;
        match theirs.get(&position) {
            Some((a, b, ka, kb)) if *ka == pair.a.key && *kb == pair.b.key => {
                pages.insert(position, (*a, *b));
            }
            _ => differ.push((position + 1).to_string()),
        }
    }
    if !differ.is_empty() || theirs.len() != n as usize {
        return Err(bad(format!(
            "{name}: sample {:?} of the project no longer has the package's pairs (pairs {} \
             differ; the project's sample has {} pairs, the package {n}); nothing was merged",
            info.round,
            if differ.is_empty() {
                "none".to_string()
            } else {
                differ.join(", ")
            },
            theirs.len()
        )));
    }
    let labels = package.own_labels()?;
    for l in &labels {
        if !well_timed(&l.at) || l.position >= n {
            return Err(bad(format!(
                "{name}: label {} is not one samecore writes (pair {}, time {:?})",
                l.id,
                l.position + 1,
                l.at
            )));
        }
    }
    let derivations = package.own_derivations()?;
    for d in &derivations {
        if !well_timed(&d.at) || d.position >= n {
            return Err(bad(format!(
                "{name}: derivation {} is not one samecore writes (pair {}, time {:?})",
                d.id,
                d.position + 1,
                d.at
            )));
        }
    }
    let done = package.labels()?.len();
    Ok(Checked {
        file: path.to_path_buf(),
        package,
        units: BTreeMap::new(),
        rows: Vec::new(),
        pages: BTreeMap::new(),
        done,
        sample: Some(SampleChecked {
            sample: sample.id,
            pages,
            labels,
            derivations,
        }),
    })
}

/// Bring a package's labels and derivation classes in (inside the merge's transaction): each
/// under the coder with when it was decided, each once (its `origin`); a label undone in the
/// package since an earlier merge is undone in the project. (labels in, derivations in,
/// already there, undone, conflicts.)
fn merge_sample(
    tx: &rusqlite::Transaction<'_>,
    c: &Checked,
    s: &SampleChecked,
    soon: &str,
) -> Result<(usize, usize, usize, usize, Vec<Conflict>)> {
    let info = &c.package.info;
    let file = c.file.display();
    let (mut labels_in, mut derivations_in, mut already, mut undone) = (0, 0, 0, 0);
    let mut touched = BTreeSet::new();
    for l in &s.labels {
        if l.at.as_str() > soon {
            return Err(bad(format!(
                "{file}: label {} was given in the future ({}); nothing was merged",
                l.id, l.at
            )));
        }
        let origin = format!("{}:label:{}", info.id, l.id);
        let n = tx.execute(
            "INSERT OR IGNORE INTO labels (sample_id, position, annotator, verdict, reason, note,
               created_at, undone, origin) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            params![
                s.sample.0,
                l.position,
                info.coder,
                l.label.verdict.as_str(),
                l.label.reason.map(Reason::as_str),
                l.label.note,
                l.at,
                l.undone,
                origin
            ],
        )?;
        if n == 1 {
            labels_in += 1;
            touched.insert(l.position);
            continue;
        }
        let before: (u32, String, Option<String>, String, String) = tx.query_row(
            "SELECT position, verdict, reason, note, created_at FROM labels WHERE origin = ?1",
            [&origin],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
        )?;
        let now = (
            l.position,
            l.label.verdict.as_str().to_string(),
            l.label.reason.map(|r| r.as_str().to_string()),
            l.label.note.clone(),
            l.at.clone(),
        );
        if before != now {
            return Err(bad(format!(
                "{file}: label {} is not the one merged from this package before (was the \
                 package restored from a copy, or coded in two copies?); nothing was merged",
                l.id
            )));
        }
        already += 1;
        if l.undone {
            undone += tx.execute(
                "UPDATE labels SET undone = 1 WHERE origin = ?1 AND undone = 0",
                [&origin],
            )?;
        }
    }
    for d in &s.derivations {
        if d.at.as_str() > soon {
            return Err(bad(format!(
                "{file}: derivation {} was given in the future ({}); nothing was merged",
                d.id, d.at
            )));
        }
        let (a, b) = s.pages[&d.position];
        let (source, derived) = if d.source_is_a { (a, b) } else { (b, a) };
        let origin = format!("{}:derivation:{}", info.id, d.id);
        let n = tx.execute(
            "INSERT OR IGNORE INTO derivations (source, derived, class, by, at, note, undone,
               origin) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            params![
                source.0,
                derived.0,
                d.class.name(),
                info.coder,
                d.at,
                d.note,
                d.undone,
                origin
            ],
        )?;
        if n == 1 {
            derivations_in += 1;
        } else {
            // The row merged before must be this one (as for labels and values).
            let before: Option<(i64, i64, String, String, String)> = tx
                .query_row(
                    "SELECT source, derived, class, at, note FROM derivations WHERE origin = ?1",
                    [&origin],
                    |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
                )
                .optional()?;
            let now = (
                source.0,
                derived.0,
                d.class.name().to_string(),
                d.at.clone(),
                d.note.clone(),
            );
            if before.as_ref() != Some(&now) {
                return Err(bad(format!(
                    "{file}: derivation {} is not the one merged from this package before (was \
                     the package restored from a copy, or coded in two copies?); nothing was \
                     merged",
                    d.id
                )));
            }
            already += 1;
            if d.undone {
                undone += tx.execute(
                    "UPDATE derivations SET undone = 1 WHERE origin = ?1 AND undone = 0",
                    [&origin],
                )?;
            }
        }
    }
    // The coder's standing labels of a pair from another package with another verdict: the
    // later counts, both stay (one carried from the project and changed is a revision).
    let mut conflicts = Vec::new();
    for position in touched {
        let mut stmt = tx.prepare(
            "SELECT verdict, created_at, coalesce(origin, '') FROM labels
             WHERE sample_id = ?1 AND position = ?2 AND annotator = ?3 AND undone = 0
             ORDER BY created_at, id",
        )?;
        let rows: Vec<(String, String, String)> = stmt
            .query_map(params![s.sample.0, position, info.coder], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })?
            .collect::<rusqlite::Result<_>>()?;
        let place = |origin: &str| origin.split(':').next().unwrap_or("").to_string();
        let Some(last) = rows.last() else { continue };
        let mine = place(&last.2);
        if let Some(e) = rows
            .iter()
            .rev()
            .find(|r| !place(&r.2).is_empty() && place(&r.2) != mine && r.0 != last.0)
        {
            conflicts.push(Conflict {
                unit: format!("sample {} pair {}", info.round, position + 1),
                variable: "label".into(),
                kept: last.0.clone(),
                kept_at: last.1.clone(),
                earlier: e.0.clone(),
                earlier_at: e.1.clone(),
            });
        }
    }
    Ok((labels_in, derivations_in, already, undone, conflicts))
}

/// Merge the packages at `paths` into `project`, recording the merge as `by`'s. All or
/// nothing: one package refused refuses the merge, and nothing changes.
pub fn merge(project: &mut Project, paths: &[PathBuf], by: &str) -> Result<MergeReport> {
    let own_id = match project.setting("project_id")? {
        Some(serde_json::Value::String(id)) => Some(id),
        _ => None,
    };
    let mut checked = Vec::with_capacity(paths.len());
    let mut seen = BTreeSet::new();
    for path in paths {
        let c = check(project, own_id.as_deref(), path)?;
        if !seen.insert(c.package.info.id.clone()) {
            return Err(bad(format!(
                "{}: the same package is given twice",
                path.display()
            )));
        }
        checked.push(c);
    }
    project.write(|tx| {
        let mut report = MergeReport {
            packages: Vec::new(),
        };
        let soon: String = tx.query_row(
            "SELECT strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '+1 day')",
            [],
            |r| r.get(0),
        )?;
        for c in &checked {
            let info = &c.package.info;
            if let Some(sample) = &c.sample {
                let (labels_in, derivations_in, already, undone, conflicts) =
                    merge_sample(tx, c, sample, &soon)?;
                tx.execute(
                    "INSERT INTO package_merges (package_id, by, values_in, already, undone,
                       labels_in, derivations_in) VALUES (?1, ?2, 0, ?3, ?4, ?5, ?6)",
                    params![
                        info.id,
                        by,
                        already as i64,
                        undone as i64,
                        labels_in as i64,
                        derivations_in as i64
                    ],
                )?;
                report.packages.push(PackageMerge {
                    file: c.file.clone(),
                    coder: info.coder.clone(),
                    round: info.round.clone(),
                    kind: info.kind,
                    units: sample.pages.len(),
                    units_coded: c.done,
                    values_in: 0,
                    labels_in,
                    derivations_in,
                    already,
                    undone,
                    conflicts,
                });
                continue;
            }
            let (mut values_in, mut already, mut undone) = (0, 0, 0);
            let mut touched: BTreeSet<(i64, String)> = BTreeSet::new();
            for row in &c.rows {
                let Unit::Story { run, cluster } = c.units[&row.position] else {
                    continue;
                };
                let origin = format!("{}:{}", info.id, row.id);
                if row.at > soon {
                    return Err(bad(format!(
                        "{}: value {} was given in the future ({}); nothing was merged",
                        c.file.display(),
                        row.id,
                        row.at
                    )));
                }
                let (kind, value) = row.answer.stored();
                // A page variable's value is on the page, not the story.
                let doc = (row.page.as_ref()).map(|key| c.pages[&(row.position, key.clone())].0);
                let (unit_kind, run, cluster) = match doc {
                    Some(_) => ("page", None, None),
                    None => ("story", Some(run.0), Some(cluster)),
                };
                let n = tx.execute(
                    "INSERT OR IGNORE INTO coded_values (variable, unit_kind, run_id, cluster,
                       doc_id, coder, role, answer, value, version, at, undone, origin)
                     VALUES (?1, ?11, ?2, ?3, ?12, ?4, 'coder', ?5, ?6, ?7, ?8, ?9, ?10)",
                    params![
                        row.variable,
                        run,
                        cluster,
                        info.coder,
                        kind,
                        value,
                        row.version,
                        row.at,
                        row.undone,
                        origin,
                        unit_kind,
                        doc
                    ],
                )?;
                if n == 1 {
                    values_in += 1;
                    if doc.is_none() {
                        touched.insert((row.position, row.variable.clone()));
                    }
                } else {
                    // The row merged before must be this one: a package restored from a copy
                    // or coded twice reuses row numbers for other values.
                    #[allow(clippy::type_complexity)]
                    let before: (
                        String,
                        String,
                        Option<String>,
                        i64,
                        String,
                        Option<i64>,
                    ) = tx.query_row(
                        "SELECT variable, answer, value, version, at, doc_id FROM coded_values
                             WHERE origin = ?1",
                        [&origin],
                        |r| {
                            Ok((
                                r.get(0)?,
                                r.get(1)?,
                                r.get(2)?,
                                r.get(3)?,
                                r.get(4)?,
                                r.get(5)?,
                            ))
                        },
                    )?;
                    let now = (
                        row.variable.clone(),
                        kind.to_string(),
                        value.map(str::to_string),
                        row.version,
                        row.at.clone(),
                        doc,
                    );
                    if before != now {
                        return Err(bad(format!(
                            "{}: value {} is not the one merged from this package before (was the \
                             package restored from a copy, or coded in two copies?); nothing was \
                             merged",
                            c.file.display(),
                            row.id
                        )));
                    }
                    already += 1;
                    if row.undone {
                        undone += tx.execute(
                            "UPDATE coded_values SET undone = 1 WHERE origin = ?1 AND undone = 0",
                            [&origin],
                        )?;
                    }
                }
            }
            let mut conflicts = Vec::new();
            for (position, variable) in &touched {
                let Unit::Story { run, cluster } = c.units[position] else {
                    continue;
                };
                // The coder's standing rows on the story, by when: from other places than
                // this package, with another answer, they are a conflict.
                let mut stmt = tx.prepare(
                    "SELECT answer, value, at, coalesce(origin, '') FROM coded_values
                     WHERE variable = ?1 AND unit_kind = 'story' AND run_id = ?2
                       AND cluster = ?3 AND coder = ?4 AND role = 'coder' AND undone = 0
                     ORDER BY at, id",
                )?;
                let rows: Vec<(String, Option<String>, String, String)> = stmt
                    .query_map(params![variable, run.0, cluster, info.coder], |r| {
                        Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
                    })?
                    .collect::<rusqlite::Result<_>>()?;
                // A value the package carried from the project and the coder changed is a
                // revision, not a conflict: only another package's value conflicts.
                let place = |origin: &str| origin.split(':').next().unwrap_or("").to_string();
                let Some(last) = rows.last() else { continue };
                let mine = place(&last.3);
                let earlier = rows.iter().rev().find(|r| {
                    let other = place(&r.3);
                    !other.is_empty()
                        && other != mine
                        && (r.0.as_str(), r.1.as_deref()) != (last.0.as_str(), last.1.as_deref())
                });
                if let Some(e) = earlier {
                    let text = |kind: &str, value: &Option<String>| {
                        super::answer_of(kind, value.clone())
                            .map_or_else(|_| kind.to_string(), |a| a.shown())
                    };
                    conflicts.push(Conflict {
                        unit: format!("run {} cluster {cluster}", run.0),
                        variable: variable.clone(),
                        kept: text(&last.0, &last.1),
                        kept_at: last.2.clone(),
                        earlier: text(&e.0, &e.1),
                        earlier_at: e.2.clone(),
                    });
                }
            }
            tx.execute(
                "INSERT INTO package_merges (package_id, by, values_in, already, undone)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
                params![info.id, by, values_in as i64, already as i64, undone as i64],
            )?;
            let units_coded = c.done;
            report.packages.push(PackageMerge {
                file: c.file.clone(),
                coder: info.coder.clone(),
                round: info.round.clone(),
                kind: info.kind,
                units: c.units.len(),
                units_coded,
                values_in,
                labels_in: 0,
                derivations_in: 0,
                already,
                undone,
                conflicts,
            });
        }
        Ok(report)
    })
}
