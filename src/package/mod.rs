//! Coders' packages: what one coder is to code, in a single file that travels (a student
//! assistant's laptop at home needs neither the archive nor the project), coded there, and
//! merged back into the project without loss.
//!
//! A package is an SQLite file (one file, its journal only while a change is written, so a
//! crash mid-edit leaves the last saved state: every answer is saved as it is given). It holds
//! the stories of a reliability round for one coder: for each the cluster, its stratum and
//! size, the representative's title, URL, site, capture and publication dates, its core text
//! ([`crate::passages::Core`], the content blocks) and the page itself made inert
//! ([`crate::safe_view`]: no script, nothing fetched); the codebook at its current version;
//! the coder's name; whether the round is blind (a training round that is not blind also
//! carries the other coders' values); and the coder's own values in the project on those
//! stories (so a revised or extended round sent again is not coded twice).
//!
//! The units, texts and codebook are signed: an HMAC-SHA256 under a key only the project
//! keeps ([`Project`]'s `packages` table), so a package whose units or texts were edited by
//! hand is refused at merge, and so is one of another project (its project id) or one the
//! project did not write. HMAC (RFC 2104) over SHA-256 is the RustCrypto crates' (`hmac`,
//! `sha2`), not code of our own.
//!
//! [`merge`] brings the coder's values in, each under its coder with when it was given and the
//! codebook version it was coded under, in one transaction for all the packages given (a merge
//! killed at any point leaves the project as it was, and can be run again). Each value keeps
//! the package row it came from, so a package merged twice adds nothing the second time; the
//! value that counts is the latest by when it was coded, so packages merge in any order to the
//! same project.
//!
//! A package can hold a sample of pairs to judge instead ([`pairs`]). Not in packages yet: page
//! variables (a round carries its stories' representatives only).

mod merge;
mod pairs;

pub use merge::{Conflict, MergeReport, PackageMerge, merge};
pub use pairs::{PackageLabel, PackagePage, PackagePair, assign_sample, frames_of_pages};

use std::path::{Path, PathBuf};

use hmac::{Hmac, Mac};
use rusqlite::{Connection, OpenFlags, OptionalExtension, params};
use sha2::Sha256;

use crate::codebook::{Answer, Codebook, Kind, UnitKind};
use crate::store::packages::{PackageKind, PackageRecord};
use crate::store::values::{Role, Unit};
use crate::store::{Project, RunId};
use crate::{Error, Result};

/// What a package file says it is.
pub const FORMAT: &str = crate::store::packages::PACKAGE_FORMAT;
/// The layout this samecore writes and reads.
pub const FORMAT_VERSION: i64 = 2;
/// The extension of package files.
pub const EXTENSION: &str = "samecore-package";

const SCHEMA: &str = r#"
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE units (
    position INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL,
    cluster INTEGER NOT NULL,
    stratum TEXT NOT NULL,
    pages INTEGER NOT NULL,
    key TEXT NOT NULL,
    title TEXT,
    url TEXT,
    site TEXT,
    sites TEXT NOT NULL,
    published TEXT,
    captured TEXT,
    core TEXT NOT NULL,
    view BLOB NOT NULL
);
CREATE TABLE coded (
    id INTEGER PRIMARY KEY,
    position INTEGER NOT NULL REFERENCES units(position),
    variable TEXT NOT NULL,
    answer TEXT NOT NULL CHECK (answer IN ('value', 'not_applicable', 'cannot_code')),
    value TEXT,
    version INTEGER NOT NULL,
    at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    undone INTEGER NOT NULL DEFAULT 0,
    carried INTEGER NOT NULL DEFAULT 0,
    page TEXT
);
CREATE TABLE members (
    position INTEGER NOT NULL REFERENCES units(position),
    key TEXT NOT NULL,
    title TEXT,
    url TEXT,
    site TEXT,
    published TEXT,
    captured TEXT,
    core BLOB NOT NULL,
    PRIMARY KEY (position, key)
) WITHOUT ROWID;
CREATE TABLE others (
    position INTEGER NOT NULL REFERENCES units(position),
    variable TEXT NOT NULL,
    coder TEXT NOT NULL,
    answer TEXT NOT NULL,
    value TEXT
);
CREATE TABLE pages (
    id INTEGER PRIMARY KEY,
    key TEXT NOT NULL,
    title TEXT,
    url TEXT,
    site TEXT,
    published TEXT,
    published_source TEXT,
    captured TEXT,
    frame TEXT NOT NULL,
    html BLOB NOT NULL
);
CREATE TABLE frames (site TEXT PRIMARY KEY, seeds BLOB NOT NULL) WITHOUT ROWID;
CREATE TABLE pairs (
    position INTEGER PRIMARY KEY,
    a INTEGER NOT NULL REFERENCES pages(id),
    b INTEGER NOT NULL REFERENCES pages(id),
    score REAL,
    stratum TEXT
);
CREATE TABLE labels (
    id INTEGER PRIMARY KEY,
    position INTEGER NOT NULL REFERENCES pairs(position),
    verdict TEXT NOT NULL,
    reason TEXT,
    note TEXT NOT NULL DEFAULT '',
    at TEXT NOT NULL,
    undone INTEGER NOT NULL DEFAULT 0,
    carried INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE derivations (
    id INTEGER PRIMARY KEY,
    position INTEGER NOT NULL REFERENCES pairs(position),
    source TEXT NOT NULL CHECK (source IN ('a', 'b')),
    class TEXT NOT NULL,
    note TEXT NOT NULL DEFAULT '',
    at TEXT NOT NULL,
    undone INTEGER NOT NULL DEFAULT 0,
    carried INTEGER NOT NULL DEFAULT 0
);
"#;

/// The signed tables of a package layout, each read in its key's order: a v1 package (stories
/// only) signs its units; a v2 package its pages, their sites' frames and its pairs too.
fn signed_tables(format: i64) -> &'static [&'static str] {
    const V1: &[&str] = &[
        "SELECT position, run_id, cluster, stratum, pages, key, title, url, site, sites,
           published, captured, core, view FROM units ORDER BY position",
    ];
    const V2: &[&str] = &[
        "SELECT position, run_id, cluster, stratum, pages, key, title, url, site, sites,
           published, captured, core, view FROM units ORDER BY position",
        "SELECT id, key, title, url, site, published, published_source, captured, frame, html
           FROM pages ORDER BY id",
        "SELECT site, seeds FROM frames ORDER BY site",
        "SELECT position, a, b, score, stratum FROM pairs ORDER BY position",
        "SELECT position, key, title, url, site, published, captured, core FROM members
           ORDER BY position, key",
    ];
    if format < 2 { V1 } else { V2 }
}

/// What a package is for, as its file says.
#[derive(Debug, Clone, PartialEq)]
pub struct PackageInfo {
    /// The package's own id.
    pub id: String,
    /// The id of the project that wrote it.
    pub project: String,
    /// The coder it is for.
    pub coder: String,
    /// The round (or the sample of pairs).
    pub round: String,
    /// What it holds: stories to code or pairs to judge.
    pub kind: PackageKind,
    /// Its layout ([`FORMAT_VERSION`] when written by this samecore).
    pub format: i64,
    /// The run whose stories (or pairs) it holds.
    pub run: RunId,
    /// Coders see no one else's values.
    pub blind: bool,
    /// The codebook, at the version the package was written under.
    pub codebook: Codebook,
    /// Who wrote it, and when.
    pub created_by: String,
    /// When.
    pub created_at: String,
}

/// One story of a package.
#[derive(Debug, Clone, PartialEq)]
pub struct PackageUnit {
    /// Its place in the round (0-based).
    pub position: i64,
    /// The run.
    pub run: RunId,
    /// The cluster.
    pub cluster: i64,
    /// Its stratum in the round's draw.
    pub stratum: String,
    /// How many pages the story has.
    pub pages: i64,
    /// The representative's page key.
    pub key: String,
    /// Its title.
    pub title: Option<String>,
    /// Its URL.
    pub url: Option<String>,
    /// Its site.
    pub site: Option<String>,
    /// Every site that carries the story.
    pub sites: Vec<String>,
    /// When it says it was published.
    pub published: Option<String>,
    /// When it was captured.
    pub captured: Option<String>,
    /// Its core text.
    pub core: String,
    /// The page made inert, as a self-contained HTML file (stored deflated).
    pub view: String,
}

/// A value in a package: the coder's latest answer to a variable on a story.
#[derive(Debug, Clone, PartialEq)]
pub struct PackageValue {
    /// The story's position.
    pub position: i64,
    /// The member page it is on (its key), for a page variable; none: the story.
    pub page: Option<String>,
    /// The variable.
    pub variable: String,
    /// The answer.
    pub answer: Answer,
    /// The codebook version it was coded under.
    pub version: i64,
    /// When.
    pub at: String,
}

/// A page of a story in a package (a round whose codebook has page variables carries every
/// member of its stories).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct PackageMember {
    /// The story's position.
    pub position: i64,
    /// The page key.
    pub key: String,
    /// Its title.
    pub title: Option<String>,
    /// Its URL.
    pub url: Option<String>,
    /// Its site.
    pub site: Option<String>,
    /// When it says it was published.
    pub published: Option<String>,
    /// When it was captured.
    pub captured: Option<String>,
    /// Its core text.
    pub core: String,
}

/// A package written by [`assign`].
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Assigned {
    /// The coder.
    pub coder: String,
    /// The file.
    pub file: PathBuf,
    /// Its stories.
    pub units: usize,
    /// Values of the coder's carried from the project.
    pub carried: usize,
    /// The file's size in bytes.
    pub bytes: u64,
}

fn bad(what: impl Into<String>) -> Error {
    Error::InvalidParameter(what.into())
}

fn answer_of(kind: &str, value: Option<String>) -> Result<Answer> {
    Answer::from_stored(kind, value).ok_or_else(|| bad(format!("unknown answer {kind:?}")))
}

/// The project's id (made once, at its first package): packages of other projects are told
/// apart by it.
pub fn project_id(project: &mut Project) -> Result<String> {
    if let Some(serde_json::Value::String(id)) = project.setting("project_id")? {
        return Ok(id);
    }
    let id = random_hex(16);
    project.set_setting("project_id", &serde_json::Value::String(id.clone()))?;
    Ok(id)
}

fn random_hex(bytes: usize) -> String {
    use rand::RngCore;
    let mut raw = vec![0u8; bytes];
    rand::rng().fill_bytes(&mut raw);
    raw.iter().map(|b| format!("{b:02x}")).collect()
}

/// The signature of a package's meta (but the signature) and its signed tables
/// ([`signed_tables`] of the layout its meta names) under `key`.
fn signature(conn: &Connection, key: &[u8]) -> Result<String> {
    let mut mac = Hmac::<Sha256>::new_from_slice(key).map_err(|e| bad(e.to_string()))?;
    let field = |mac: &mut Hmac<Sha256>, v: Option<&[u8]>| match v {
        None => mac.update(&[0]),
        Some(b) => {
            mac.update(&[1]);
            mac.update(&(b.len() as u64).to_le_bytes());
            mac.update(b);
        }
    };
    let mut format = 1;
    let mut stmt = conn.prepare("SELECT key, value FROM meta WHERE key <> 'mac' ORDER BY key")?;
    let rows = stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))?;
    for row in rows {
        let (k, v) = row?;
        if k == "format_version" {
            format = v.parse().unwrap_or(i64::MAX);
        }
        field(&mut mac, Some(k.as_bytes()));
        field(&mut mac, Some(v.as_bytes()));
    }
    for (t, sql) in signed_tables(format).iter().enumerate() {
        // Each table's rows apart from the next one's (a v1 package has one table, signed
        // as the release that wrote it did).
        if format >= 2 {
            mac.update(&[2, t as u8]);
        }
        let mut stmt = conn.prepare(sql)?;
        let columns = stmt.column_count();
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            for i in 0..columns {
                let v: rusqlite::types::Value = r.get(i)?;
                match v {
                    rusqlite::types::Value::Null => field(&mut mac, None),
                    rusqlite::types::Value::Integer(n) => {
                        field(&mut mac, Some(n.to_string().as_bytes()))
                    }
                    rusqlite::types::Value::Real(x) => {
                        field(&mut mac, Some(&x.to_bits().to_le_bytes()))
                    }
                    rusqlite::types::Value::Text(t) => field(&mut mac, Some(t.as_bytes())),
                    rusqlite::types::Value::Blob(b) => field(&mut mac, Some(&b)),
                }
            }
        }
    }
    Ok(mac
        .finalize()
        .into_bytes()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}

/// Write one package per coder of round `round` (or only those of `coders`) into `folder`,
/// named `<round>-<coder>.samecore-package`; `by` is the lead who writes them. Every file is
/// written under a temporary name and renamed into place; the project records each package
/// with the key it is signed with.
pub fn assign(
    project: &mut Project,
    round: &str,
    coders: Option<&[String]>,
    folder: &Path,
    by: &str,
) -> Result<Vec<Assigned>> {
    let round = project.round(round)?;
    let book = project.codebook()?;
    if !book.variables.iter().any(|v| v.unit == UnitKind::Story) {
        return Err(bad(
            "the codebook has no story variable: write the codebook first (samecore codebook read)",
        ));
    }
    let coders: Vec<String> = match coders {
        None => round.coders.clone(),
        Some(list) => {
            for c in list {
                if !round.coders.contains(c) {
                    return Err(bad(format!(
                        "{c} is not a coder of round {} (its coders: {})",
                        round.name,
                        round.coders.join(", ")
                    )));
                }
            }
            list.to_vec()
        }
    };
    check_folder(folder)?;
    let units = read_units(project, &round)?;
    // The stories' pages, read only when there is a page variable to code on them.
    let members = if book.variables.iter().any(|v| v.unit == UnitKind::Page) {
        read_members(project, &round, &units)?
    } else {
        Vec::new()
    };
    let values = project.values()?;
    let mut out = Vec::new();
    for coder in &coders {
        let header = Header {
            kind: PackageKind::Round,
            name: round.name.clone(),
            run: round.run,
            blind: round.blind,
            codebook: book.clone(),
            units: units.len(),
        };
        let written = write_package(project, folder, coder, by, &header, &|tx| {
            insert_units(tx, &units)?;
            let mut carried = 0;
            for (m, page) in &members {
                tx.execute(
                    "INSERT INTO members (position, key, title, url, site, published, captured,
                       core) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                    params![
                        m.position,
                        m.key,
                        m.title,
                        m.url,
                        m.site,
                        m.published,
                        m.captured,
                        deflate(&m.core)?
                    ],
                )?;
                for v in values.iter().filter(|v| {
                    v.unit == Unit::Page(*page) && v.role == Role::Coder && v.coder == *coder
                }) {
                    let (kind, value) = v.answer.stored();
                    tx.execute(
                        "INSERT INTO coded (position, page, variable, answer, value, version, at,
                           carried) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 1)",
                        params![m.position, m.key, v.variable, kind, value, v.version, v.at],
                    )?;
                    carried += 1;
                }
            }
            for u in &units {
                let unit = Unit::Story {
                    run: u.run,
                    cluster: u.cluster,
                };
                for v in values
                    .iter()
                    .filter(|v| v.unit == unit && v.role == Role::Coder)
                {
                    let (kind, value) = v.answer.stored();
                    if v.coder == *coder {
                        tx.execute(
                            "INSERT INTO coded (position, variable, answer, value, version, at,
                               carried) VALUES (?1, ?2, ?3, ?4, ?5, ?6, 1)",
                            params![u.position, v.variable, kind, value, v.version, v.at],
                        )?;
                        carried += 1;
                    } else if !round.blind {
                        tx.execute(
                            "INSERT INTO others (position, variable, coder, answer, value)
                             VALUES (?1, ?2, ?3, ?4, ?5)",
                            params![u.position, v.variable, v.coder, kind, value],
                        )?;
                    }
                }
            }
            Ok(carried)
        })?;
        out.push(written);
    }
    Ok(out)
}

/// What a package is of, for [`write_package`].
pub(crate) struct Header {
    pub kind: PackageKind,
    /// The round's or the sample's name.
    pub name: String,
    pub run: RunId,
    pub blind: bool,
    pub codebook: Codebook,
    /// Its stories or pairs.
    pub units: usize,
}

pub(crate) fn check_folder(folder: &Path) -> Result<()> {
    if folder.is_dir() {
        return Ok(());
    }
    Err(Error::io(
        std::io::Error::new(std::io::ErrorKind::NotFound, "no such folder"),
        folder,
    ))
}

/// Write `coder`'s package of `header` into `folder`: the meta, what `fill` puts in (it
/// returns how many of the coder's earlier answers it carried), the signature; under a
/// temporary name, recorded in the project, then renamed into place.
pub(crate) fn write_package(
    project: &mut Project,
    folder: &Path,
    coder: &str,
    by: &str,
    header: &Header,
    fill: &dyn Fn(&rusqlite::Transaction<'_>) -> Result<usize>,
) -> Result<Assigned> {
    let inputs = project.inputs()?;
    let project_id = project_id(project)?;
    let file = folder.join(format!(
        "{}-{}.{EXTENSION}",
        file_part(&header.name),
        file_part(coder)
    ));
    inputs.check(&file, "the package file")?;
    let id = random_hex(16);
    let key = {
        use rand::RngCore;
        let mut k = vec![0u8; 32];
        rand::rng().fill_bytes(&mut k);
        k
    };
    let meta = [
        ("format", FORMAT.to_string()),
        ("format_version", FORMAT_VERSION.to_string()),
        ("kind", header.kind.as_str().to_string()),
        ("package", id.clone()),
        ("project", project_id),
        ("coder", coder.to_string()),
        ("round", header.name.clone()),
        ("run", header.run.0.to_string()),
        ("blind", if header.blind { "1" } else { "0" }.to_string()),
        ("codebook", serde_json::to_string(&header.codebook)?),
        ("created_by", by.to_string()),
    ];
    let tmp = file.with_file_name(format!(
        ".{}.partial",
        file.file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
    ));
    let _ = std::fs::remove_file(&tmp);
    let written = (|| -> Result<usize> {
        let mut conn = Connection::open(&tmp)?;
        conn.pragma_update(None, "journal_mode", "DELETE")?;
        let tx = conn.transaction()?;
        tx.execute_batch(SCHEMA)?;
        for (k, v) in &meta {
            tx.execute(
                "INSERT INTO meta (key, value) VALUES (?1, ?2)",
                params![k, v],
            )?;
        }
        tx.execute(
            "INSERT INTO meta (key, value)
             VALUES ('created_at', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))",
            [],
        )?;
        let carried = fill(&tx)?;
        let mac = signature(&tx, &key)?;
        tx.execute("INSERT INTO meta (key, value) VALUES ('mac', ?1)", [mac])?;
        tx.commit()?;
        conn.close().map_err(|(_, e)| e)?;
        Ok(carried)
    })();
    let carried = match written {
        Ok(c) => c,
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            return Err(e);
        }
    };
    // Recorded before it is in place: a package the project does not know would be refused
    // at merge, and the coder's work with it.
    let recorded = project.record_package(&PackageRecord {
        id,
        coder: coder.to_string(),
        round: header.name.clone(),
        kind: header.kind,
        run: Some(header.run),
        units: header.units,
        codebook_version: (header.kind == PackageKind::Round).then_some(header.codebook.version),
        blind: header.blind,
        key,
        file: file.display().to_string(),
        created_by: by.to_string(),
    });
    if let Err(e) = recorded {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    std::fs::rename(&tmp, &file).map_err(|e| Error::io(e, &file))?;
    let bytes = std::fs::metadata(&file).map_or(0, |m| m.len());
    Ok(Assigned {
        coder: coder.to_string(),
        file,
        units: header.units,
        carried,
        bytes,
    })
}

fn insert_units(tx: &rusqlite::Transaction<'_>, units: &[PackageUnit]) -> Result<()> {
    for u in units {
        tx.execute(
            "INSERT INTO units (position, run_id, cluster, stratum, pages, key, title,
               url, site, sites, published, captured, core, view)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
            params![
                u.position,
                u.run.0,
                u.cluster,
                u.stratum,
                u.pages,
                u.key,
                u.title,
                u.url,
                u.site,
                serde_json::to_string(&u.sites)?,
                u.published,
                u.captured,
                u.core,
                deflate(&u.view)?
            ],
        )?;
    }
    Ok(())
}

/// A name made safe as part of a file name.
fn file_part(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The round's stories with their representative's texts, read from the archives.
fn read_units(project: &Project, round: &crate::store::rounds::Round) -> Result<Vec<PackageUnit>> {
    let clusters: std::collections::BTreeMap<i64, crate::store::codes::RunCluster> = project
        .run_clusters(round.run)?
        .into_iter()
        .map(|c| (c.id, c))
        .collect();
    let mut out = Vec::with_capacity(round.units.len());
    for (position, (cluster, stratum)) in round.units.iter().enumerate() {
        let c = clusters.get(cluster).ok_or_else(|| {
            bad(format!(
                "run {} no longer has cluster {cluster} of round {}",
                round.run, round.name
            ))
        })?;
        let rep_id = c
            .representative
            .or(c.members.first().copied())
            .ok_or_else(|| {
                bad(format!(
                    "cluster {cluster} of run {} has no pages",
                    round.run
                ))
            })?;
        let rep = project
            .page(rep_id)?
            .ok_or_else(|| bad(format!("no page {rep_id}")))?;
        let mut sites: Vec<String> = Vec::new();
        for m in &c.members {
            if let Some(site) = project.page(*m)?.and_then(|p| p.identity.site)
                && !sites.contains(&site)
            {
                sites.push(site);
            }
        }
        let location = project.locate(&rep)?;
        let html = crate::archive::text_at(&location, rep.identity.url.as_deref())
            .map_err(|e| bad(format!("cluster {cluster}: its page cannot be read: {e}")))?;
        let core = crate::passages::Core::of_page(&html).text;
        let id = &rep.identity;
        let view = crate::safe_view::inert_html(
            &html,
            id.url.as_deref().unwrap_or(&id.key),
            id.date.as_deref(),
        );
        out.push(PackageUnit {
            position: position as i64,
            run: round.run,
            cluster: *cluster,
            stratum: stratum.clone(),
            pages: c.members.len() as i64,
            key: id.key.clone(),
            title: id.title.clone(),
            url: id.url.clone(),
            site: id.site.clone(),
            sites,
            published: id.published.clone(),
            captured: id.date.clone(),
            core,
            view,
        });
    }
    Ok(out)
}

/// Every page of the round's stories with its core text, read from the archives (in
/// parallel), and its page in the project.
fn read_members(
    project: &Project,
    round: &crate::store::rounds::Round,
    units: &[PackageUnit],
) -> Result<Vec<(PackageMember, crate::store::PageId)>> {
    use rayon::prelude::*;
    let clusters: std::collections::BTreeMap<i64, crate::store::codes::RunCluster> = project
        .run_clusters(round.run)?
        .into_iter()
        .map(|c| (c.id, c))
        .collect();
    let mut wanted = Vec::new();
    for u in units {
        for m in clusters.get(&u.cluster).map_or(&[][..], |c| &c.members[..]) {
            let page = project
                .page(*m)?
                .ok_or_else(|| bad(format!("no page {m}")))?;
            let location = project.locate(&page)?;
            wanted.push((u.position, page, location));
        }
    }
    wanted
        .into_par_iter()
        .map(|(position, page, location)| {
            let id = &page.identity;
            let html = crate::archive::text_at(&location, id.url.as_deref())
                .map_err(|e| bad(format!("page {} cannot be read: {e}", id.key)))?;
            Ok((
                PackageMember {
                    position,
                    key: id.key.clone(),
                    title: id.title.clone(),
                    url: id.url.clone(),
                    site: id.site.clone(),
                    published: id.published.clone(),
                    captured: id.date.clone(),
                    core: crate::passages::Core::of_page(&html).text,
                },
                page.id,
            ))
        })
        .collect()
}

/// The inert page as stored (deflated: a page is mostly markup, and a package travels).
fn deflate(text: &str) -> Result<Vec<u8>> {
    use std::io::Write;
    let mut z = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
    z.write_all(text.as_bytes())
        .map_err(|e| bad(format!("compressing a page: {e}")))?;
    z.finish()
        .map_err(|e| bad(format!("compressing a page: {e}")))
}

/// The inert page back from its stored bytes (at most 96 MiB: pages are read up to 64 MiB,
/// and a package is not trusted).
fn inflate(bytes: &[u8]) -> Result<String> {
    use std::io::Read;
    let mut text = String::new();
    flate2::read::DeflateDecoder::new(bytes)
        .take(96 << 20)
        .read_to_string(&mut text)
        .map_err(|e| bad(format!("a page of the package cannot be read: {e}")))?;
    Ok(text)
}

/// Whether `path` is a samecore package (an SQLite file with a package's meta).
pub fn is_package(path: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 16];
    let sqlite = std::fs::metadata(path).is_ok_and(|m| m.is_file())
        && std::fs::File::open(path)
            .and_then(|mut f| f.read_exact(&mut head))
            .is_ok()
        && &head == b"SQLite format 3\0";
    sqlite
        && Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY)
            .ok()
            .and_then(|c| {
                c.query_row("SELECT value FROM meta WHERE key = 'format'", [], |r| {
                    r.get::<_, String>(0)
                })
                .ok()
            })
            .is_some_and(|f| f == FORMAT)
}

/// A package opened: by its coder to code in it, or by [`merge`] to read it.
pub struct Package {
    conn: Connection,
    path: PathBuf,
    /// What it is for.
    pub info: PackageInfo,
}

impl Package {
    /// Open `path` to code in it (its coder's side).
    pub fn open(path: &Path) -> Result<Package> {
        Self::open_with(path, OpenFlags::SQLITE_OPEN_READ_WRITE)
    }

    /// Open `path` to read it only.
    pub fn open_read(path: &Path) -> Result<Package> {
        Self::open_with(path, OpenFlags::SQLITE_OPEN_READ_ONLY)
    }

    fn open_with(path: &Path, flags: OpenFlags) -> Result<Package> {
        let name = path.display();
        let meta = std::fs::metadata(path).map_err(|e| Error::io(e, path))?;
        if !meta.is_file() {
            return Err(bad(format!("{name}: not a file")));
        }
        if !is_package(path) {
            return Err(bad(format!(
                "{name}: not a samecore package (no package's contents in it)"
            )));
        }
        let conn = Connection::open_with_flags(path, flags | OpenFlags::SQLITE_OPEN_NO_MUTEX)?;
        // A file cut short at a page boundary can pass the check: its pages must all be there.
        let pages: i64 = conn
            .query_row("PRAGMA page_count", [], |r| r.get(0))
            .unwrap_or(0);
        let page_size: i64 = conn
            .query_row("PRAGMA page_size", [], |r| r.get(0))
            .unwrap_or(0);
        let check: String = if (meta.len() as i64) < pages * page_size {
            format!("{} of {} bytes", meta.len(), pages * page_size)
        } else {
            conn.query_row("PRAGMA quick_check", [], |r| r.get(0))
                .unwrap_or_else(|e| e.to_string())
        };
        if check != "ok" {
            return Err(bad(format!(
                "{name}: the package is damaged or cut short ({check}); ask for it again"
            )));
        }
        let get = |key: &str| -> Result<String> {
            conn.query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0))
                .optional()?
                .ok_or_else(|| bad(format!("{name}: the package has no {key}")))
        };
        let version: i64 = get("format_version")?.parse().unwrap_or(i64::MAX);
        if version > FORMAT_VERSION {
            return Err(bad(format!(
                "{name}: a package of a newer samecore (layout {version}); update samecore"
            )));
        }
        let codebook: Codebook = serde_json::from_str(&get("codebook")?)
            .map_err(|e| bad(format!("{name}: its codebook cannot be read: {e}")))?;
        let info = PackageInfo {
            id: get("package")?,
            project: get("project")?,
            coder: get("coder")?,
            round: get("round")?,
            kind: match conn
                .query_row("SELECT value FROM meta WHERE key = 'kind'", [], |r| {
                    r.get::<_, String>(0)
                })
                .optional()?
            {
                None => PackageKind::Round,
                Some(k) => PackageKind::from_name(&k)
                    .ok_or_else(|| bad(format!("{name}: a package of {k:?}, unknown here")))?,
            },
            format: version,
            run: RunId(
                get("run")?
                    .parse()
                    .map_err(|_| bad(format!("{name}: bad run")))?,
            ),
            blind: get("blind")? == "1",
            codebook,
            created_by: get("created_by")?,
            created_at: get("created_at")?,
        };
        Ok(Package {
            conn,
            path: path.to_path_buf(),
            info,
        })
    }

    /// Its file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Its stories, in the round's order.
    pub fn units(&self) -> Result<Vec<PackageUnit>> {
        let mut stmt = self.conn.prepare(
            "SELECT position, run_id, cluster, stratum, pages, key, title, url, site, sites,
               published, captured, core, view FROM units ORDER BY position",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok(PackageUnit {
                position: r.get(0)?,
                run: RunId(r.get(1)?),
                cluster: r.get(2)?,
                stratum: r.get(3)?,
                pages: r.get(4)?,
                key: r.get(5)?,
                title: r.get(6)?,
                url: r.get(7)?,
                site: r.get(8)?,
                sites: serde_json::from_str(&r.get::<_, String>(9)?).unwrap_or_default(),
                published: r.get(10)?,
                captured: r.get(11)?,
                core: r.get(12)?,
                view: String::new(),
            })
            .map(|u| (u, r.get::<_, Vec<u8>>(13)))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (mut unit, view) = row?;
            unit.view = inflate(&view?)?;
            out.push(unit);
        }
        Ok(out)
    }

    /// The position of the story of cluster `cluster`.
    pub fn position_of(&self, cluster: i64) -> Result<i64> {
        self.conn
            .query_row(
                "SELECT position FROM units WHERE cluster = ?1",
                [cluster],
                |r| r.get(0),
            )
            .optional()?
            .ok_or_else(|| {
                bad(format!(
                    "cluster {cluster} is not one of the package's stories"
                ))
            })
    }

    /// Record the coder's answer `raw` to `variable` on the story at `position`, checked
    /// against the package's codebook; saved at once.
    pub fn set_value(&mut self, position: i64, variable: &str, raw: &str) -> Result<Answer> {
        self.insert_value(position, None, variable, raw)
    }

    /// Record the coder's answer `raw` to the page variable `variable` on the story's page
    /// `page` (its key); saved at once.
    pub fn set_page_value(
        &mut self,
        position: i64,
        page: &str,
        variable: &str,
        raw: &str,
    ) -> Result<Answer> {
        self.insert_value(position, Some(page), variable, raw)
    }

    fn insert_value(
        &mut self,
        position: i64,
        page: Option<&str>,
        variable: &str,
        raw: &str,
    ) -> Result<Answer> {
        let unit = if page.is_some() {
            UnitKind::Page
        } else {
            UnitKind::Story
        };
        let var = (self.info.codebook.variable(variable))
            .filter(|v| v.unit == unit)
            .ok_or_else(|| {
                let names: Vec<&str> = (self.info.codebook.variables.iter())
                    .filter(|v| v.unit == unit)
                    .map(|v| v.name.as_str())
                    .collect();
                bad(format!(
                    "no {} variable {variable:?} in the package's codebook (it has: {})",
                    unit.name(),
                    if names.is_empty() {
                        "none".to_string()
                    } else {
                        names.join(", ")
                    }
                ))
            })?;
        let answer = var.parse(raw)?;
        let known: Option<i64> = self
            .conn
            .query_row("SELECT 1 FROM units WHERE position = ?1", [position], |r| {
                r.get(0)
            })
            .optional()?;
        if known.is_none() {
            return Err(bad(format!("the package has no story {position}")));
        }
        if let Some(key) = page
            && !self.members(position)?.iter().any(|m| m.key == key)
        {
            return Err(bad(format!(
                "page {key} is not one of the story's pages in the package"
            )));
        }
        let (kind, value) = answer.stored();
        let at = self.next_at("coded")?;
        let version = self.info.codebook.version;
        if self.info.format < 2 {
            // A package of the release before pages and pairs: no page column, story
            // variables only (`page` is none there, the codebook having no page variable).
            self.conn.execute(
                "INSERT INTO coded (position, variable, answer, value, version, at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![position, variable, kind, value, version, at],
            )?;
        } else {
            self.conn.execute(
                "INSERT INTO coded (position, page, variable, answer, value, version, at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![position, page, variable, kind, value, version, at],
            )?;
        }
        Ok(answer)
    }

    /// The time of a new row of the coder's `table` (`coded`, `labels`, `derivations`): now,
    /// or just after the latest row there (carried ones too) when the laptop's clock says
    /// earlier, so the latest by time is the latest given, here and once merged.
    fn next_at(&self, table: &str) -> Result<String> {
        Ok(self.conn.query_row(
            &format!(
                "SELECT CASE WHEN m IS NULL OR now > m THEN now
                   ELSE strftime('%Y-%m-%dT%H:%M:%fZ', julianday(m) + 0.0000000174) END
                 FROM (SELECT strftime('%Y-%m-%dT%H:%M:%fZ', 'now') AS now,
                              (SELECT max(at) FROM {table}) AS m)"
            ),
            [],
            |r| r.get(0),
        )?)
    }

    /// The story and key of the page `name` (its key, or its URL when one page has it) among
    /// the pages of the story at `position`, or of every story.
    pub fn page_of(&self, name: &str, position: Option<i64>) -> Result<(i64, String)> {
        let found: Vec<(i64, String, bool)> = if self.info.format < 2 {
            Vec::new()
        } else {
            let mut stmt = self.conn.prepare(
                "SELECT position, key, key = ?1 FROM members
                 WHERE (key = ?1 OR url = ?1) AND (?2 IS NULL OR position = ?2)
                 ORDER BY key = ?1 DESC, position, key",
            )?;
            let rows = stmt.query_map(params![name, position], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })?;
            rows.collect::<rusqlite::Result<_>>()?
        };
        match found.as_slice() {
            [] => Err(bad(format!(
                "no page {name:?} among the package's stories{} (a package carries its stories' \
                 pages only when the codebook has page variables)",
                if position.is_some() { "' story" } else { "" }
            ))),
            [(p, key, _)] | [(p, key, true), ..] => Ok((*p, key.clone())),
            more => Err(bad(format!(
                "{} pages of the package have the URL {name}: name the page by its key ({})",
                more.len(),
                more.iter()
                    .map(|(_, k, _)| k.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))),
        }
    }

    /// The pages of the story at `position` (none unless the codebook has page variables).
    pub fn members(&self, position: i64) -> Result<Vec<PackageMember>> {
        if self.info.format < 2 {
            return Ok(Vec::new());
        }
        let mut stmt = self.conn.prepare(
            "SELECT position, key, title, url, site, published, captured, core FROM members
             WHERE position = ?1 ORDER BY captured, key",
        )?;
        let rows = stmt.query_map([position], |r| {
            Ok((
                PackageMember {
                    position: r.get(0)?,
                    key: r.get(1)?,
                    title: r.get(2)?,
                    url: r.get(3)?,
                    site: r.get(4)?,
                    published: r.get(5)?,
                    captured: r.get(6)?,
                    core: String::new(),
                },
                r.get::<_, Vec<u8>>(7)?,
            ))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (member, core) = row?;
            out.push(PackageMember {
                core: inflate(&core)?,
                ..member
            });
        }
        Ok(out)
    }

    /// Undo the coder's latest value (the one before counts again); what was undone.
    pub fn undo_value(&mut self) -> Result<Option<(String, i64)>> {
        let row: Option<(i64, String, i64)> = self
            .conn
            .query_row(
                "SELECT id, variable, position FROM coded WHERE undone = 0 AND carried = 0
                 ORDER BY id DESC LIMIT 1",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()?;
        let Some((id, variable, position)) = row else {
            return Ok(None);
        };
        self.conn
            .execute("UPDATE coded SET undone = 1 WHERE id = ?1", [id])?;
        Ok(Some((variable, position)))
    }

    /// The coder's values as they stand: the latest (by time) of each story and variable.
    pub fn values(&self) -> Result<Vec<PackageValue>> {
        let mut out: Vec<PackageValue> = Vec::new();
        for row in self.read_rows("undone = 0", "position, page, variable, at, id")? {
            let v = PackageValue {
                position: row.position,
                page: row.page,
                variable: row.variable,
                answer: row.answer,
                version: row.version,
                at: row.at,
            };
            match out.last_mut() {
                Some(last)
                    if last.position == v.position
                        && last.page == v.page
                        && last.variable == v.variable =>
                {
                    *last = v
                }
                _ => out.push(v),
            }
        }
        Ok(out)
    }

    /// The other coders' values (a round that is not blind only): (position, variable,
    /// coder, answer).
    pub fn others(&self) -> Result<Vec<(i64, String, String, Answer)>> {
        let mut stmt = self.conn.prepare(
            "SELECT position, variable, coder, answer, value FROM others
             ORDER BY position, variable, coder",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, String>(3)?,
                r.get::<_, Option<String>>(4)?,
            ))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (p, var, coder, kind, value) = row?;
            out.push((p, var, coder, answer_of(&kind, value)?));
        }
        Ok(out)
    }

    /// Stories with every scored story variable answered, of all.
    pub fn progress(&self) -> Result<(usize, usize)> {
        let scored: Vec<&str> = (self.info.codebook.variables.iter())
            .filter(|v| v.unit == UnitKind::Story && v.kind != Kind::Note)
            .map(|v| v.name.as_str())
            .collect();
        let values = self.values()?;
        let total: i64 = self
            .conn
            .query_row("SELECT count(*) FROM units", [], |r| r.get(0))?;
        let mut done = 0;
        for p in 0..total {
            if scored
                .iter()
                .all(|s| values.iter().any(|v| v.position == p && v.variable == *s))
            {
                done += 1;
            }
        }
        Ok((done, total as usize))
    }

    /// Every row the coder wrote (undone ones too, not those carried from the project), in
    /// the order written.
    fn rows(&self) -> Result<Vec<merge::Row>> {
        self.read_rows("carried = 0", "id")
    }

    /// The `coded` rows `filter` keeps, in `order` (both written here, never from input).
    fn read_rows(&self, filter: &str, order: &str) -> Result<Vec<merge::Row>> {
        // A v1 package (stories only) has no page column.
        let page = if self.info.format < 2 { "NULL" } else { "page" };
        let order = if self.info.format < 2 {
            order.replace("page, ", "")
        } else {
            order.to_string()
        };
        let mut stmt = self.conn.prepare(&format!(
            "SELECT id, position, variable, answer, value, version, at, undone, {page} AS page
             FROM coded WHERE {filter} ORDER BY {order}"
        ))?;
        let rows = stmt.query_map([], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, String>(3)?,
                r.get::<_, Option<String>>(4)?,
                r.get::<_, i64>(5)?,
                r.get::<_, String>(6)?,
                r.get::<_, bool>(7)?,
                r.get::<_, Option<String>>(8)?,
            ))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (id, position, variable, kind, value, version, at, undone, page) = row?;
            out.push(merge::Row {
                id,
                position,
                page,
                variable,
                answer: answer_of(&kind, value)?,
                version,
                at,
                undone,
            });
        }
        Ok(out)
    }

    /// Whether the package's signature is the one `key` gives its contents.
    fn signed_by(&self, key: &[u8]) -> Result<bool> {
        let stored: Option<String> = self
            .conn
            .query_row("SELECT value FROM meta WHERE key = 'mac'", [], |r| r.get(0))
            .optional()?;
        // A package whose contents cannot even be read for the signature is not signed.
        let Ok(computed) = signature(&self.conn, key) else {
            return Ok(false);
        };
        Ok(stored.is_some_and(|s| !s.is_empty() && s == computed))
    }
}
