//! The pair view's header and the members table tell one story: on every cluster of
//! goldset-dev, each member compared with its representative, the order the header gives
//! (`passages::order_phrase`, the same words `samecore passages` prints) never contradicts the
//! members table's Published cells (`gui::published_cell`) — a page the header says has no
//! publication date shows none in the table (only "captured …"), a page said to be published
//! first is not later in the table, and the dates the header names are the table's. Before,
//! the header ordered by each page's own date: a copy of the Jordan divorce story whose text
//! names "January 13, 1999" was "published first" in the header and undated in the table.
#![cfg(feature = "gui")]

use samecore::detectors::{Algo, DetectorOptions, RunSpec};
use samecore::gui::model::workspace::{pair_dates, summarize};
use samecore::passages::{Cutoffs, derivation, order_phrase, published_phrase};
use samecore::progress::Progress;
use samecore::session::{OpenOptions, Session};

mod common;

#[test]
fn the_pair_header_never_contradicts_the_members_table_on_goldset_dev() {
    let Some(dir) = common::goldset() else {
        return;
    };
    let progress = Progress::new();
    let options = OpenOptions {
        sign: Some(DetectorOptions::default()),
        publication_dates: true,
        ..OpenOptions::default()
    };
    let session = Session::open(std::slice::from_ref(&dir), &options, &progress).unwrap();
    let run = session
        .run(
            Algo::SpotSigs,
            &DetectorOptions::default(),
            &RunSpec::default_for(Algo::SpotSigs),
            &progress,
        )
        .unwrap();
    let docs = session.docs();
    let clusters = summarize(&session, &run.detection);
    let (mut pairs, mut first, mut same_day, mut undated) = (0, 0, 0, 0);
    for c in clusters.iter().filter(|c| c.members.len() > 1) {
        let rep = c.members[0];
        let left_cell = samecore::gui::published_cell(c, 0);
        for m in 1..c.members.len() {
            // The dates the pair view orders the pair by.
            let (a, b) = pair_dates(&clusters, docs, rep, c.members[m]);
            let d = derivation((0.5, 0.4), a, b, &Cutoffs::default());
            let header = order_phrase(("left", "right"), a, b, &d, (0.5, 0.4));
            let right_cell = samecore::gui::published_cell(c, m);
            let context = format!(
                "cluster {} member {m}: header {header:?}; table {left_cell:?} / {right_cell:?}",
                c.id
            );
            pairs += 1;
            // A page the header gives a date for shows that day in the table, as a
            // publication; a page it gives none for shows no publication there.
            for (p, cell) in [(a, &left_cell), (b, &right_cell)] {
                match published_phrase(p) {
                    Some(said) => {
                        assert!(cell.starts_with(&said[..10]), "{context}");
                    }
                    None => assert!(
                        cell.is_empty() || cell.starts_with("captured "),
                        "{context}"
                    ),
                }
            }
            let day = |cell: &str| cell.get(..10).map(str::to_string);
            if header.starts_with("the left page was published first") {
                first += 1;
                assert!(day(&left_cell) < day(&right_cell), "{context}");
            } else if header.starts_with("the right page was published first") {
                first += 1;
                assert!(day(&right_cell) < day(&left_cell), "{context}");
            } else if header.starts_with("both were published the same day") {
                same_day += 1;
                assert_eq!(day(&left_cell), day(&right_cell), "{context}");
            } else {
                assert!(
                    header.starts_with("no publication date tells which came first"),
                    "{context}"
                );
                undated += 1;
                assert!(
                    published_phrase(a).is_none() || published_phrase(b).is_none(),
                    "{context}"
                );
            }
        }
    }
    eprintln!(
        "goldset-dev: {pairs} representative-member pairs: {first} ordered by date, {same_day} \
         published the same day, {undated} with a page undated"
    );
    // Each way the header can read is met.
    assert!(first > 0 && same_day > 0 && undated > 0);
}
