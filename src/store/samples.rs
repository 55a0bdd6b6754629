//! Samples of pairs, labels and settlements (henzinger §3.1's human evaluation).
//!
//! Labels are kept as a history: every decision is a new row, the current label of a pair for
//! an annotator is their latest row not undone, and undo marks that row undone — so undoing a
//! relabel brings the earlier label back, and nothing a person decided is overwritten.

use rusqlite::{OptionalExtension, params};
use serde::{Deserialize, Serialize};

use super::judgements::{DrawnSample, Stratum};
use super::judgements::{LabelInput, Reason, Verdict};
use super::runs::{PAGE_COLUMNS, Page, page_row_at};
use super::{Project, RunId, SampleId, bad_value};
use crate::{Error, Result};

/// A stored sample.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SampleInfo {
    /// The sample.
    pub id: SampleId,
    /// Its unique name.
    pub name: String,
    /// The run it was drawn from (none for an imported sample).
    pub run: Option<RunId>,
    /// `uniform`, `stratified` or `imported`.
    pub method: String,
    /// The seed it was drawn with.
    pub seed: u64,
    /// Blind: reviewers are not shown scores, strata or the detector.
    pub blind: bool,
    /// The plan it was drawn with, as JSON.
    pub spec: serde_json::Value,
    /// When it was drawn.
    pub created_at: String,
    /// Number of pairs.
    pub size: u32,
}

/// A sampled pair, with everything known about it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SamplePair {
    /// Its place in the reviewing order (0-based).
    pub position: u32,
    /// One page.
    pub a: Page,
    /// The other page.
    pub b: Page,
    /// The detector's score.
    pub score: Option<f64>,
    /// The stratum it was drawn from.
    pub stratum: String,
}

/// What a reviewer is shown of a pair: in a blind sample, no score, stratum or detector.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairView {
    /// The pair's position in the sample (0-based).
    pub position: u32,
    /// One page.
    pub a: Page,
    /// The other page.
    pub b: Page,
    /// The score, unless blind.
    pub score: Option<f64>,
    /// The stratum, unless blind.
    pub stratum: Option<String>,
    /// The detector of the run, unless blind.
    pub detector: Option<String>,
}

/// A current label of one annotator on one pair.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LabelRecord {
    /// The pair's position in the sample.
    pub position: u32,
    /// Who decided.
    pub annotator: String,
    /// The decision.
    pub label: LabelInput,
    /// When (UTC, ISO 8601).
    pub created_at: String,
}

/// The final decision on a pair the annotators disagreed on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settlement {
    /// The pair's position in the sample.
    pub position: u32,
    /// The settled decision.
    pub label: LabelInput,
    /// Who settled it.
    pub settled_by: String,
    /// When (UTC, ISO 8601).
    #[serde(default)]
    pub settled_at: String,
}

/// How far an annotator is in a sample.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LabelProgress {
    /// Pairs in the sample.
    pub total: u32,
    /// Pairs this annotator has a current label for.
    pub labelled: u32,
}

const SAMPLE_SELECT: &str = "SELECT s.id, s.name, s.run_id, s.method, s.seed, s.blind, s.spec,
    s.created_at, (SELECT count(*) FROM sample_pairs p WHERE p.sample_id = s.id) FROM samples s";

fn sample_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<(SampleInfo, String)> {
    Ok((
        SampleInfo {
            id: SampleId(r.get(0)?),
            name: r.get(1)?,
            run: r.get::<_, Option<i64>>(2)?.map(RunId),
            method: r.get(3)?,
            seed: r.get::<_, i64>(4)? as u64,
            blind: r.get(5)?,
            spec: serde_json::Value::Null,
            created_at: r.get(7)?,
            size: r.get::<_, i64>(8)?.clamp(0, i64::from(u32::MAX)) as u32,
        },
        r.get(6)?,
    ))
}

pub(crate) fn label_input(r: &rusqlite::Row<'_>, first: usize) -> rusqlite::Result<LabelInput> {
    let verdict: String = r.get(first)?;
    let reason: Option<String> = r.get(first + 1)?;
    Ok(LabelInput {
        verdict: verdict
            .parse::<Verdict>()
            .map_err(|_| bad_value(first, "verdict", &verdict))?,
        reason: match reason {
            Some(text) => Some(
                text.parse::<Reason>()
                    .map_err(|_| bad_value(first + 1, "reason", &text))?,
            ),
            None => None,
        },
        note: r.get(first + 2)?,
    })
}

impl Project {
    /// Store a drawn sample under a new, unique `name`.
    pub fn add_sample(
        &mut self,
        name: &str,
        run: Option<RunId>,
        blind: bool,
        drawn: &DrawnSample,
    ) -> Result<SampleId> {
        let spec = serde_json::to_string(&drawn.plan)?;
        self.write(|tx| {
            let taken = tx
                .prepare("SELECT 1 FROM samples WHERE name = ?1")?
                .exists([name])?;
            if taken {
                return Err(Error::InvalidParameter(format!(
                    "a sample named {name:?} exists already"
                )));
            }
            tx.execute(
                "INSERT INTO samples (name, run_id, method, seed, blind, spec)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![
                    name,
                    run.map(|r| r.0),
                    drawn.plan.method(),
                    drawn.seed as i64,
                    blind,
                    spec
                ],
            )?;
            let id = SampleId(tx.last_insert_rowid());
            let mut insert = tx.prepare(
                "INSERT INTO sample_pairs (sample_id, position, a, b, score, stratum)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?;
            for (position, p) in drawn.pairs.iter().enumerate() {
                insert.execute(params![
                    id.0,
                    position as i64,
                    p.pair.a.0,
                    p.pair.b.0,
                    p.pair.score,
                    p.stratum
                ])?;
            }
            let mut insert = tx.prepare(
                "INSERT INTO sample_strata (sample_id, stratum, lo, hi, same_site, population,
                 drawn) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?;
            for s in &drawn.strata {
                insert.execute(params![
                    id.0,
                    s.name,
                    s.lo,
                    s.hi,
                    s.same_site,
                    s.population as i64,
                    s.drawn as i64
                ])?;
            }
            Ok(id)
        })
    }

    /// All samples, oldest first.
    pub fn samples(&self) -> Result<Vec<SampleInfo>> {
        self.read(|tx| {
            let mut stmt = tx.prepare(&format!("{SAMPLE_SELECT} ORDER BY s.id"))?;
            let rows = stmt.query_map([], sample_row)?;
            let mut out = Vec::new();
            for row in rows {
                let (mut info, spec) = row?;
                info.spec = serde_json::from_str(&spec)?;
                out.push(info);
            }
            Ok(out)
        })
    }

    /// A sample by name.
    pub fn sample_by_name(&self, name: &str) -> Result<SampleInfo> {
        let samples = self.samples()?;
        let names: Vec<String> = samples.iter().map(|s| format!("{:?}", s.name)).collect();
        samples.into_iter().find(|s| s.name == name).ok_or_else(|| {
            Error::InvalidParameter(if names.is_empty() {
                format!("no sample named {name:?}: the project has no sample yet")
            } else {
                format!("no sample named {name:?} (samples: {})", names.join(", "))
            })
        })
    }

    /// The strata of a sample with their population sizes, by name.
    pub fn sample_strata(&self, sample: SampleId) -> Result<Vec<Stratum>> {
        self.read(|tx| {
            let mut stmt = tx.prepare(
                "SELECT stratum, lo, hi, same_site, population, drawn FROM sample_strata
                 WHERE sample_id = ?1 ORDER BY stratum",
            )?;
            let rows = stmt.query_map([sample.0], |r| {
                Ok(Stratum {
                    name: r.get(0)?,
                    lo: r.get(1)?,
                    hi: r.get(2)?,
                    same_site: r.get(3)?,
                    population: r.get::<_, i64>(4)?.max(0) as u64,
                    drawn: r.get::<_, i64>(5)?.max(0) as u64,
                })
            })?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
    }

    /// Every pair of a sample with score and stratum, in reviewing order.
    pub fn sample_pairs(&self, sample: SampleId) -> Result<Vec<SamplePair>> {
        self.sample_pairs_at(sample, None)
    }

    /// The pairs of a sample, or only the one at `position`.
    fn sample_pairs_at(&self, sample: SampleId, position: Option<u32>) -> Result<Vec<SamplePair>> {
        self.read(|tx| {
            let mut stmt = tx.prepare(
                "SELECT p.position, p.score, p.stratum,
                   a.id, a.key, a.record_id, a.url, a.date, a.file, a.offset, a.length, a.site,
                   a.location, a.digest, a.status, a.mime, a.reader_key, a.title, a.published,
                   a.published_source,
                   b.id, b.key, b.record_id, b.url, b.date, b.file, b.offset, b.length, b.site,
                   b.location, b.digest, b.status, b.mime, b.reader_key, b.title, b.published,
                   b.published_source
                 FROM sample_pairs p JOIN documents a ON a.id = p.a JOIN documents b ON b.id = p.b
                 WHERE p.sample_id = ?1 AND (?2 IS NULL OR p.position = ?2) ORDER BY p.position",
            )?;
            let rows = stmt.query_map(params![sample.0, position.map(i64::from)], |r| {
                Ok(SamplePair {
                    position: r.get::<_, i64>(0)? as u32,
                    score: r.get(1)?,
                    stratum: r.get(2)?,
                    a: page_row_at(r, 3)?,
                    b: page_row_at(r, 3 + PAGE_COLUMNS)?,
                })
            })?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
    }

    /// What a reviewer sees of one pair; blind samples hide score, stratum and detector.
    pub fn pair_view(&self, sample: SampleId, position: u32) -> Result<PairView> {
        let info = self
            .samples()?
            .into_iter()
            .find(|s| s.id == sample)
            .ok_or_else(|| Error::InvalidParameter(format!("no sample {sample}")))?;
        let pair = self
            .sample_pairs_at(sample, Some(position))?
            .into_iter()
            .next()
            .ok_or_else(|| {
                Error::InvalidParameter(format!("sample {} has no pair {position}", info.name))
            })?;
        let detector = match info.run {
            Some(run) if !info.blind => Some(self.read(|tx| {
                Ok(
                    tx.query_row("SELECT detector FROM runs WHERE id = ?1", [run.0], |r| {
                        r.get::<_, String>(0)
                    })?,
                )
            })?),
            _ => None,
        };
        Ok(PairView {
            position,
            a: pair.a,
            b: pair.b,
            score: if info.blind { None } else { pair.score },
            stratum: (!info.blind).then_some(pair.stratum),
            detector,
        })
    }

    /// Record `annotator`'s decision on a pair (a relabel supersedes the earlier one).
    pub fn add_label(
        &mut self,
        sample: SampleId,
        position: u32,
        annotator: &str,
        label: &LabelInput,
    ) -> Result<i64> {
        if annotator.trim().is_empty() {
            return Err(Error::InvalidParameter("an annotator needs a name".into()));
        }
        self.write(|tx| insert_label(tx, sample, position, annotator, label, None))
    }

    /// Undo `annotator`'s latest decision in a sample; the position it was on, none when there
    /// was nothing to undo.
    pub fn undo_last_label(&mut self, sample: SampleId, annotator: &str) -> Result<Option<u32>> {
        self.write(|tx| {
            let last: Option<(i64, i64)> = tx
                .query_row(
                    "SELECT id, position FROM labels WHERE sample_id = ?1 AND annotator = ?2
                     AND undone = 0 ORDER BY created_at DESC, id DESC LIMIT 1",
                    params![sample.0, annotator],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )
                .optional()?;
            match last {
                Some((id, position)) => {
                    tx.execute("UPDATE labels SET undone = 1 WHERE id = ?1", [id])?;
                    Ok(Some(position as u32))
                }
                None => Ok(None),
            }
        })
    }

    /// The current labels of a sample, every annotator, ordered by (position, annotator).
    pub fn labels(&self, sample: SampleId) -> Result<Vec<LabelRecord>> {
        self.read(|tx| {
            let mut stmt = tx.prepare(
                // The latest by when it was decided (a label merged from a coder's package
                // keeps its time), then by row.
                "SELECT position, annotator, verdict, reason, note, created_at FROM (
                   SELECT position, annotator, verdict, reason, note, created_at,
                     row_number() OVER (PARTITION BY position, annotator
                                        ORDER BY created_at DESC, id DESC) AS latest
                   FROM labels WHERE sample_id = ?1 AND undone = 0)
                 WHERE latest = 1 ORDER BY position, annotator",
            )?;
            let rows = stmt.query_map([sample.0], |r| {
                Ok(LabelRecord {
                    position: r.get::<_, i64>(0)? as u32,
                    annotator: r.get(1)?,
                    label: label_input(r, 2)?,
                    created_at: r.get(5)?,
                })
            })?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
    }

    /// How many label rows (history included, undone included) a sample has.
    pub fn label_history_len(&self, sample: SampleId) -> Result<u64> {
        self.read(|tx| {
            let n: i64 = tx.query_row(
                "SELECT count(*) FROM labels WHERE sample_id = ?1",
                [sample.0],
                |r| r.get(0),
            )?;
            Ok(n.max(0) as u64)
        })
    }

    /// `annotator`'s progress in a sample.
    pub fn label_progress(&self, sample: SampleId, annotator: &str) -> Result<LabelProgress> {
        let total = self
            .samples()?
            .into_iter()
            .find(|s| s.id == sample)
            .map_or(0, |s| s.size);
        let labelled = self
            .labels(sample)?
            .iter()
            .filter(|l| l.annotator == annotator)
            .count() as u32;
        Ok(LabelProgress { total, labelled })
    }

    /// Reviewed markers for a pair list: for each position of the sample, `annotator`'s
    /// current verdict (none where not reviewed yet).
    pub fn reviewed(&self, sample: SampleId, annotator: &str) -> Result<Vec<Option<Verdict>>> {
        let size = self.sample_pairs(sample)?.len();
        let mut marks = vec![None; size];
        for l in self.labels(sample)? {
            if l.annotator == annotator
                && let Some(m) = marks.get_mut(l.position as usize)
            {
                *m = Some(l.label.verdict);
            }
        }
        Ok(marks)
    }

    /// The first position (in reviewing order) `annotator` has not labelled yet.
    pub fn next_unlabelled(&self, sample: SampleId, annotator: &str) -> Result<Option<u32>> {
        let done: std::collections::BTreeSet<u32> = self
            .labels(sample)?
            .into_iter()
            .filter(|l| l.annotator == annotator)
            .map(|l| l.position)
            .collect();
        let size = self.sample_pairs(sample)?.len() as u32;
        Ok((0..size).find(|p| !done.contains(p)))
    }

    /// Settle a pair: the decision that counts whatever the annotators said.
    pub fn settle(
        &mut self,
        sample: SampleId,
        position: u32,
        settled_by: &str,
        label: &LabelInput,
    ) -> Result<()> {
        self.write(|tx| {
            tx.execute(
                "INSERT INTO settlements (sample_id, position, verdict, reason, note, settled_by)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                 ON CONFLICT (sample_id, position) DO UPDATE SET verdict = excluded.verdict,
                   reason = excluded.reason, note = excluded.note,
                   settled_by = excluded.settled_by,
                   settled_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')",
                params![
                    sample.0,
                    position as i64,
                    label.verdict.as_str(),
                    label.reason.map(Reason::as_str),
                    label.note,
                    settled_by
                ],
            )?;
            Ok(())
        })
    }

    /// The settlements of a sample, by position.
    pub fn settlements(&self, sample: SampleId) -> Result<Vec<Settlement>> {
        self.read(|tx| {
            let mut stmt = tx.prepare(
                "SELECT position, verdict, reason, note, settled_by, settled_at FROM settlements
                 WHERE sample_id = ?1 ORDER BY position",
            )?;
            let rows = stmt.query_map([sample.0], |r| {
                Ok(Settlement {
                    position: r.get::<_, i64>(0)? as u32,
                    label: label_input(r, 1)?,
                    settled_by: r.get(4)?,
                    settled_at: r.get(5)?,
                })
            })?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
    }
}

pub(crate) fn insert_label(
    tx: &rusqlite::Transaction<'_>,
    sample: SampleId,
    position: u32,
    annotator: &str,
    label: &LabelInput,
    created_at: Option<&str>,
) -> Result<i64> {
    let exists = tx
        .prepare("SELECT 1 FROM sample_pairs WHERE sample_id = ?1 AND position = ?2")?
        .exists(params![sample.0, position as i64])?;
    if !exists {
        return Err(Error::InvalidParameter(format!(
            "sample {sample} has no pair at position {position}"
        )));
    }
    // Without a time of its own, a decision is now, or just after the annotator's latest on
    // the pair when that is later (a label merged from a package keeps the laptop's clock):
    // the label that counts is the latest by time, and this one was given last.
    tx.execute(
        "INSERT INTO labels (sample_id, position, annotator, verdict, reason, note, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, coalesce(?7, (
           SELECT CASE WHEN m IS NULL OR now > m THEN now
             ELSE strftime('%Y-%m-%dT%H:%M:%fZ', julianday(m) + 0.0000000174) END
           FROM (SELECT strftime('%Y-%m-%dT%H:%M:%fZ', 'now') AS now,
                   (SELECT max(created_at) FROM labels WHERE sample_id = ?1 AND position = ?2
                      AND annotator = ?3) AS m))))",
        params![
            sample.0,
            position as i64,
            annotator,
            label.verdict.as_str(),
            label.reason.map(Reason::as_str),
            label.note,
            created_at
        ],
    )?;
    Ok(tx.last_insert_rowid())
}
