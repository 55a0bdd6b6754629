//! What a cluster's members copied from its representative: each member's share of the
//! representative's core, its derivation class, and the core text the members share — what a
//! coder reads instead of every copy ([`crate::passages`]).
//!
//! In: the workspace and a cluster's members (the representative first). Out: [`ClusterShares`],
//! computed by a job when a cluster is selected (pages read again, in parallel).

use rayon::prelude::*;

use crate::gui::model::workspace::Workspace;
use crate::passages::{AlignOptions, Derivation, align_pair, derivation};
use crate::progress::Progress;
use crate::{DocId, Result};

/// What one member shares with the representative.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MemberShare {
    /// Share of the representative's core found in the member.
    pub of_representative: f64,
    /// The derived page's share of its core found in the other (by date; undated: the larger).
    pub derived_share: f64,
    /// The derived page's class.
    pub class: Derivation,
}

/// The shares of one cluster.
#[derive(Debug, Clone, PartialEq)]
pub struct ClusterShares {
    /// The cluster's members, the representative first (as given).
    pub members: Vec<DocId>,
    /// Per member (none for the representative): the share of the representative's core found
    /// in it, and how the later of the two derives from the earlier (its share and class).
    pub shares: Vec<Option<MemberShare>>,
    /// The representative's core words found in at least half of the other members, runs
    /// joined by " … ".
    pub shared_text: String,
    /// Words of that text, and of the representative's core.
    pub shared_words: usize,
    /// Words of the representative's core.
    pub core_words: usize,
    /// How long it took, milliseconds.
    pub millis: u128,
}

/// The shares of a cluster's `members` (the representative first), each pair ordered by
/// `dates`, the date each member counts at in the story's spread
/// ([`crate::dates::spread::Spread::dates`]: a date the story mentions is not its
/// publication), as the pair view orders them.
pub fn cluster_shares(
    ws: &Workspace,
    members: &[DocId],
    dates: &[Option<crate::calendar::Published>],
    progress: &Progress,
) -> Result<ClusterShares> {
    let started = std::time::Instant::now();
    let Some(&rep) = members.first() else {
        return Err(crate::Error::InvalidParameter("an empty cluster".into()));
    };
    let rep_core = ws.core(rep)?;
    progress.stage(
        "aligning members with the representative",
        members.len() as u64,
    );
    let opts = AlignOptions::default();
    let aligned: Vec<Option<crate::passages::PairAlignment>> = members
        .par_iter()
        .map(|&m| {
            progress.check()?;
            progress.advance(1);
            if m == rep {
                return Ok(None);
            }
            Ok(Some(align_pair(&rep_core, &ws.core(m)?, &opts)))
        })
        .collect::<Result<_>>()?;
    let mut covered = vec![0u32; rep_core.core.len()];
    let date = |i: usize| dates.get(i).copied().flatten();
    let shares = members
        .iter()
        .zip(&aligned)
        .enumerate()
        .map(|(i, (_, al))| {
            let al = al.as_ref()?;
            for p in &al.a_in_b.passages {
                for w in p.a.clone() {
                    covered[w as usize] += 1;
                }
            }
            let d = derivation(
                (al.share_a(), al.share_b()),
                date(0),
                date(i),
                &Default::default(),
            );
            Some(MemberShare {
                of_representative: al.share_a(),
                derived_share: d.share,
                class: d.class,
            })
        })
        .collect();
    // Runs of the representative's words that half the other members carry.
    let need = (members.len().saturating_sub(1) as u32).div_ceil(2).max(1);
    let mut parts = Vec::new();
    let mut shared_words = 0;
    let mut k = 0;
    while k < covered.len() {
        if covered[k] < need {
            k += 1;
            continue;
        }
        let start = k;
        while k < covered.len() && covered[k] >= need {
            k += 1;
        }
        shared_words += k - start;
        parts.push(rep_core.core.text_of(start as u32..k as u32).to_string());
    }
    Ok(ClusterShares {
        members: members.to_vec(),
        shares,
        shared_text: parts.join(" … "),
        shared_words,
        core_words: rep_core.core.len(),
        millis: started.elapsed().as_millis(),
    })
}
