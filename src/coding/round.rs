//! Drawing a reliability round: the stories of a run to be coded by two or more coders
//! independently, drawn at random or stratified by site, month of first publication or cluster
//! size, by a seed (the same seed draws the same stories), each stratum given its share of the
//! round (largest remainders), stories in random order within it.
//!
//! A coder's progress is how many of the round's stories they have given every story variable
//! of the codebook.

use std::collections::BTreeMap;

use rand::SeedableRng;
use rand::seq::SliceRandom;

use crate::codebook::UnitKind;
use crate::store::rounds::Round;
use crate::store::values::{Role, Unit};
use crate::store::{Project, RunId};
use crate::{Error, Result};

/// How a round is stratified.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strata {
    /// Simple random sample of the stories.
    None,
    /// By the representative's site.
    Site,
    /// By the month of the representative's publication (else capture) date.
    Month,
    /// By cluster size: 1, 2, 3–5, 6–20, more.
    Size,
}

impl std::str::FromStr for Strata {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "none" | "random" => Ok(Strata::None),
            "site" => Ok(Strata::Site),
            "month" => Ok(Strata::Month),
            "size" => Ok(Strata::Size),
            other => Err(Error::InvalidParameter(format!(
                "strata {other:?}: none, site, month or size"
            ))),
        }
    }
}

impl Strata {
    /// Its name as stored.
    pub fn name(self) -> &'static str {
        match self {
            Strata::None => "none",
            Strata::Site => "site",
            Strata::Month => "month",
            Strata::Size => "size",
        }
    }
}

fn size_band(n: usize) -> &'static str {
    match n {
        0 | 1 => "1",
        2 => "2",
        3..=5 => "3-5",
        6..=20 => "6-20",
        _ => "21+",
    }
}

/// Draw `size` stories of `run` (all when it has fewer), stratified by `strata`, with `seed`;
/// `among`: only these clusters of the run (a search's stories), stratified the same way
/// (`None`: all of them).
#[allow(clippy::too_many_arguments)]
pub fn draw(
    project: &Project,
    name: &str,
    run: RunId,
    among: Option<&std::collections::BTreeSet<i64>>,
    size: usize,
    strata: Strata,
    seed: u64,
    coders: &[String],
    blind: bool,
    by: &str,
) -> Result<Round> {
    if coders.len() < 2 {
        return Err(Error::InvalidParameter(
            "a reliability round needs two or more coders".into(),
        ));
    }
    let pages: BTreeMap<_, _> = project.pages()?.into_iter().map(|p| (p.id, p)).collect();
    let mut by_stratum: BTreeMap<String, Vec<i64>> = BTreeMap::new();
    for c in project.run_clusters(run)? {
        if among.is_some_and(|a| !a.contains(&c.id)) {
            continue;
        }
        let rep = c.representative.or_else(|| c.members.first().copied());
        let page = rep.and_then(|r| pages.get(&r));
        let key = match strata {
            Strata::None => "all".to_string(),
            Strata::Site => page
                .and_then(|p| p.identity.site.clone())
                .unwrap_or_else(|| "no site".into()),
            Strata::Month => page
                .and_then(|p| p.identity.published.clone().or(p.identity.date.clone()))
                .and_then(|d| d.get(..7).map(String::from))
                .unwrap_or_else(|| "no date".into()),
            Strata::Size => size_band(c.members.len()).to_string(),
        };
        by_stratum.entry(key).or_default().push(c.id);
    }
    let total: usize = by_stratum.values().map(Vec::len).sum();
    let size = size.min(total);
    // Largest remainders: each stratum its share of `size`, rounded so the shares add up.
    let mut shares: Vec<(String, usize, f64)> = by_stratum
        .iter()
        .map(|(k, v)| {
            let exact = size as f64 * v.len() as f64 / total.max(1) as f64;
            (k.clone(), exact.floor() as usize, exact - exact.floor())
        })
        .collect();
    let mut left = size - shares.iter().map(|s| s.1).sum::<usize>();
    let mut order: Vec<usize> = (0..shares.len()).collect();
    order.sort_by(|&a, &b| shares[b].2.total_cmp(&shares[a].2).then(a.cmp(&b)));
    for i in order {
        if left == 0 {
            break;
        }
        shares[i].1 += 1;
        left -= 1;
    }
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut units = Vec::with_capacity(size);
    for (stratum, take, _) in shares {
        let mut clusters = by_stratum[&stratum].clone();
        clusters.shuffle(&mut rng);
        units.extend(
            clusters
                .into_iter()
                .take(take)
                .map(|c| (c, stratum.clone())),
        );
    }
    Ok(Round {
        id: 0,
        name: name.to_string(),
        run,
        seed,
        strata: strata.name().to_string(),
        blind,
        coders: coders.to_vec(),
        created_by: by.to_string(),
        created_at: String::new(),
        units,
    })
}

/// A round of the stories `clusters` of `run` (chosen, not drawn: stratum `chosen`), in the
/// order given; each must be a cluster of the run, named once.
pub fn chosen(
    project: &Project,
    name: &str,
    run: RunId,
    clusters: &[i64],
    coders: &[String],
    blind: bool,
    by: &str,
) -> Result<Round> {
    if coders.is_empty() {
        return Err(Error::InvalidParameter(
            "say who codes the stories (--coders)".into(),
        ));
    }
    let known: std::collections::BTreeSet<i64> = project
        .run_clusters(run)?
        .into_iter()
        .map(|c| c.id)
        .collect();
    let mut seen = std::collections::BTreeSet::new();
    for c in clusters {
        if !known.contains(c) {
            return Err(Error::InvalidParameter(format!(
                "run {run} has no cluster {c}"
            )));
        }
        if !seen.insert(*c) {
            return Err(Error::InvalidParameter(format!(
                "cluster {c} is named twice"
            )));
        }
    }
    if clusters.is_empty() {
        return Err(Error::InvalidParameter("no cluster named".into()));
    }
    Ok(Round {
        id: 0,
        name: name.to_string(),
        run,
        seed: 0,
        strata: "chosen".to_string(),
        blind,
        coders: coders.to_vec(),
        created_by: by.to_string(),
        created_at: String::new(),
        units: clusters
            .iter()
            .map(|c| (*c, "chosen".to_string()))
            .collect(),
    })
}

/// Each coder's progress in `round`: (coder, stories done, stories in the round); a story is
/// done when the coder gave it every story variable of the codebook (notes included).
pub fn progress(project: &Project, round: &Round) -> Result<Vec<(String, usize, usize)>> {
    let book = project.codebook()?;
    let variables: Vec<&str> = book
        .variables
        .iter()
        .filter(|v| v.unit == UnitKind::Story)
        .map(|v| v.name.as_str())
        .collect();
    let values = project.values()?;
    let given: std::collections::HashSet<(Unit, &str, &str)> = values
        .iter()
        .filter(|v| v.role == Role::Coder)
        .map(|v| (v.unit, v.variable.as_str(), v.coder.as_str()))
        .collect();
    let mut out = Vec::new();
    for coder in &round.coders {
        let done = round
            .units
            .iter()
            .filter(|(cluster, _)| {
                let unit = Unit::Story {
                    run: round.run,
                    cluster: *cluster,
                };
                !variables.is_empty()
                    && variables
                        .iter()
                        .all(|var| given.contains(&(unit, *var, coder.as_str())))
            })
            .count();
        out.push((coder.clone(), done, round.units.len()));
    }
    Ok(out)
}
