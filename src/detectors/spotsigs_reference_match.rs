//! The matching of the published SpotSigs code, points 8–10 of
//! [`super::spotsigs_reference`]: length partitions, the inverted-index walk with its early
//! breaks, and the Jaccard with its early exits — pages in, the pairs the code reports with the
//! score it prints out.

use std::collections::{HashMap, HashSet};

/// A page as the matching sees it.
#[derive(Debug, Clone, Copy)]
pub struct RefPage<'a> {
    /// Its document.
    pub doc: u32,
    /// Signature id → count.
    pub counts: &'a HashMap<u32, u32>,
    /// Sum of the counts.
    pub total: u32,
    /// Text digest; `None` is the all-zero digest of a failed one.
    pub digest: Option<[u8; 20]>,
}

/// One length partition with its inverted index.
struct Partition {
    end: u32,
    size: usize,
    max_length: u32,
    /// Signature → pages (indices), by descending signature count, ties in page order.
    index: HashMap<u32, Vec<usize>>,
}

/// The partition bounds for threshold `t`: `[last, i]` closes at the first `i` with
/// `i − last > (1 − t)·i`, counting from `min` up to `range`; the last one is open.
pub fn partition_ends(min: u32, range: u32, t: f64) -> Vec<u32> {
    let mut ends = Vec::new();
    let mut last = min;
    for i in min..=range {
        if f64::from(i - last) > (1.0 - t) * f64::from(i) {
            ends.push(i);
            last = i + 1;
        }
    }
    ends.push(i32::MAX as u32);
    ends
}

/// The partition of a page with `length` signatures.
fn partition_of(ends: &[u32], length: u32) -> usize {
    ends.iter()
        .position(|&end| length <= end)
        .unwrap_or(ends.len() - 1)
}

/// Every pair the published code reports at threshold `t`, as `(page a, page b, score)` with
/// `a` the page whose walk found it; a pair found from both sides keeps its first score.
pub fn reported_pairs(pages: &[RefPage<'_>], min: u32, range: u32, t: f64) -> Vec<(u32, u32, f64)> {
    let ends = partition_ends(min, range, t);
    let mut parts: Vec<Partition> = ends
        .iter()
        .map(|&end| Partition {
            end,
            size: 0,
            max_length: 0,
            index: HashMap::new(),
        })
        .collect();
    for (i, p) in pages.iter().enumerate() {
        let part = &mut parts[partition_of(&ends, p.total)];
        part.size += 1;
        part.max_length = part.max_length.max(p.total);
        for &k in p.counts.keys() {
            part.index.entry(k).or_default().push(i);
        }
    }
    for part in &mut parts {
        for list in part.index.values_mut() {
            list.sort_by_key(|&i| std::cmp::Reverse(pages[i].total));
        }
    }
    let mut seen: HashSet<(u32, u32)> = HashSet::new();
    let mut out = Vec::new();
    for a in 0..pages.len() {
        for (b, score) in walk(pages, &parts, a, t) {
            let (x, y) = (pages[a].doc, pages[b].doc);
            if seen.insert((x.min(y), x.max(y))) {
                out.push((x, y, score));
            }
        }
    }
    out
}

/// The pages the walk of page `a` reports, with their scores.
fn walk(pages: &[RefPage<'_>], parts: &[Partition], a: usize, t: f64) -> Vec<(usize, f64)> {
    let page = &pages[a];
    let ends: Vec<u32> = parts.iter().map(|p| p.end).collect();
    let mut part = partition_of(&ends, page.total);
    // Signatures by ascending index-list length in the page's own partition.
    let mut keys: Vec<u32> = page.counts.keys().copied().collect();
    keys.sort_unstable();
    keys.sort_by_key(|k| parts[part].index.get(k).map_or(usize::MAX, Vec::len));
    let slack = 1.0 - t;
    let end = f64::from(parts[part].end);
    let iterations = if part + 1 < parts.len() && end - f64::from(page.total) <= slack * end {
        2
    } else {
        1
    };
    let total = f64::from(page.total);
    let mut found = Vec::new();
    for iteration in 0..iterations {
        let mut checked: HashSet<usize> = HashSet::from([a]);
        let mut delta = 0.0;
        for k in &keys {
            if checked.len() == parts[part].size {
                break;
            }
            for &b in parts[part].index.get(k).map_or(&[][..], Vec::as_slice) {
                let other = &pages[b];
                let delta2 = total - f64::from(other.total);
                if delta2 >= 0.0 && delta + delta2 > slack * total {
                    break;
                } else if b == a
                    || (delta2 < 0.0 && delta - delta2 > slack * f64::from(other.total))
                    || checked.contains(&b)
                {
                    continue;
                }
                checked.insert(b);
                if page.digest == other.digest {
                    found.push((b, 1.0));
                } else {
                    let sim = jaccard(&keys, page, other, t);
                    if sim >= t {
                        found.push((b, sim));
                    }
                }
            }
            delta += f64::from(page.counts[k]);
            if delta > slack * f64::from(parts[part].max_length) {
                break;
            }
        }
        if iterations == 2 && iteration == 0 {
            part += 1;
        }
    }
    found
}

/// The published Jaccard over `a`'s signatures in `keys` order, with its two early exits.
fn jaccard(keys: &[u32], a: &RefPage<'_>, b: &RefPage<'_>, t: f64) -> f64 {
    let upper_max = f64::from(a.total.max(b.total));
    let upper_union = f64::from(a.total + b.total);
    let (mut s_min, mut s_max, mut bound) = (0.0, 0.0, 0.0);
    let (mut s_c1, mut s_c2) = (0i64, 0i64);
    for k in keys {
        let c1 = a.counts.get(k).copied().unwrap_or(0);
        let c2 = b.counts.get(k).copied().unwrap_or(0);
        let (min, max) = (f64::from(c1.min(c2)), f64::from(c1.max(c2)));
        s_min += min;
        s_max += max;
        s_c1 += i64::from(c1);
        s_c2 += i64::from(c2);
        bound += max - min;
        if (upper_max - bound) / upper_max < t {
            return 0.0;
        } else if s_min / upper_union >= t {
            return 1.0;
        }
    }
    s_min / (s_max + (i64::from(a.total) - s_c1) as f64 + (i64::from(b.total) - s_c2) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partitions_close_where_the_length_ratio_allows() {
        let ends = partition_ends(4, 20, 0.5);
        // [4,8] closes at 9? 9-4=5 > 4.5: yes, so the first partition is [4, 9].
        assert_eq!(ends[0], 9);
        assert_eq!(*ends.last().unwrap(), i32::MAX as u32);
        assert_eq!(partition_of(&ends, 4), 0);
        assert_eq!(partition_of(&ends, 10), 1);
    }

    #[test]
    fn the_early_accept_prints_one() {
        let a: HashMap<u32, u32> = [(1, 5), (2, 5)].into_iter().collect();
        let b: HashMap<u32, u32> = [(1, 5), (3, 5)].into_iter().collect();
        let pa = RefPage {
            doc: 0,
            counts: &a,
            total: 10,
            digest: Some([1; 20]),
        };
        let pb = RefPage {
            doc: 1,
            counts: &b,
            total: 10,
            digest: Some([2; 20]),
        };
        // Shared 5 of a union of 20 pages' worth: 5/20 >= 0.25 after the first key.
        assert_eq!(jaccard(&[1, 2], &pa, &pb, 0.25), 1.0);
        // At 0.6 the mismatch makes it unreachable once key 2 is seen.
        assert_eq!(jaccard(&[1, 2], &pa, &pb, 0.6), 0.0);
        // Else the multiset Jaccard: 5 shared of a union of 15.
        assert!((jaccard(&[1, 2], &pa, &pb, 0.3) - 1.0 / 3.0).abs() < 1e-12);
    }
}
