//! Stories over time: publication dates from every source on an archive this test
//! generates (a story spreading over days across sites, revisits, a changed recapture), the
//! first publisher and every lag against the generator's truth, capture histories, and the
//! accuracy on the annotated pages of the shared data.

mod common;

use std::collections::HashMap;
use std::path::Path;

use samecore::archive::{self, ReadOptions};
use samecore::dates::DateSource;
use samecore::progress::Progress;
use samecore::synth::warc_writer::{self, RefersTo};

const STORY: &str = "The city council voted on Tuesday to close the old harbour bridge to cars \
    after engineers found that two of its steel supports had rusted far more than the last \
    inspection had shown. The mayor said that the bridge would stay open to people on foot \
    and on bicycles while the council looks for the money to repair it, which could take \
    more than a year. Shop owners on both sides of the river said they were worried that \
    fewer customers would come if drivers had to take the long way around through the \
    industrial district. A spokesman for the engineers said the decision was the only safe \
    one and that the supports could fail in a heavy storm. The council will hold a public \
    meeting next month where residents can ask questions about the repairs and the detour \
    that buses will take while the bridge is closed to traffic.";

const OTHER: &str = "A small bakery in the old town has won the national prize for the best \
    bread of the year, beating more than two hundred entries from across the country. The \
    owner, who opened the shop with her brother ten years ago, said that the secret was a \
    starter that her grandmother had kept alive for decades. The judges praised the crust \
    and the open crumb of the loaf, and said that it was the first time a bakery from the \
    region had won. Customers queued around the block on the morning after the news, and \
    the shop sold out of bread before nine o'clock, something the owner said had never \
    happened before in all the years she has been baking.";

/// One page of a site: its frame around `story`, with `extra` in the head and `dateline`
/// under the headline.
fn page(site: &str, headline: &str, story: &str, extra: &str, dateline: &str) -> String {
    let nav: String = (0..12)
        .map(|i| format!("<li><a href=\"/section{i}\">{site} section {i} news</a></li>"))
        .collect();
    format!(
        "<html><head><title>{headline} | {site}</title>{extra}</head><body>\
         <ul class=\"nav\">{nav}</ul><h1>{headline}</h1><p class=\"byline\">{dateline}</p>\
         <div class=\"story\"><p>{story}</p></div><footer>About {site}. Contact us.</footer>\
         </body></html>"
    )
}

struct Capture {
    url: String,
    date: &'static str,
    html: String,
}

/// Write `captures` (and revisits of the captures named in `revisits`: index, date) as a WARC.
fn write_warc(path: &Path, captures: &[Capture], revisits: &[(usize, &'static str)]) {
    let mut out = Vec::new();
    let mut ids = Vec::new();
    for (n, c) in captures.iter().enumerate() {
        let id = warc_writer::record_id(n as u128 + 1);
        let (message, offset) = warc_writer::http_response(
            200,
            "OK",
            &[("Content-Type", "text/html; charset=utf-8".into())],
            c.html.as_bytes(),
        );
        let record = warc_writer::response(&id, c.date, &c.url, "127.0.0.1", &message, offset);
        out.extend(record.to_bytes());
        ids.push((id, warc_writer::sha1_digest(c.html.as_bytes())));
    }
    for (k, &(of, date)) in revisits.iter().enumerate() {
        let id = warc_writer::record_id(1000 + k as u128);
        let refers = RefersTo {
            id: ids[of].0.clone(),
            uri: captures[of].url.clone(),
            date: captures[of].date.into(),
            payload_digest: ids[of].1.clone(),
        };
        let header = b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n";
        let record = warc_writer::revisit(&id, date, &captures[of].url, &refers, header);
        out.extend(record.to_bytes());
    }
    std::fs::write(path, out).unwrap();
}

/// The generated archive and its truth: (URL, capture date) → (publication, source).
fn story_archive(
    dir: &Path,
) -> (
    std::path::PathBuf,
    Vec<(String, &'static str, &'static str, DateSource)>,
) {
    let h = "Harbour bridge closes to cars";
    let changed = STORY.replace(
        "which could take more than a year",
        "which the mayor now says will take at least two years and cost twice the first estimate",
    );
    let captures = vec![
        // a.example: article:published_time, the first publisher.
        Capture {
            url: "https://a.example/news/bridge".into(),
            date: "2024-03-01T12:00:00Z",
            html: page(
                "a.example",
                h,
                STORY,
                r#"<meta property="article:published_time" content="2024-03-01T08:00:00Z">"#,
                "By staff",
            ),
        },
        // b.example: JSON-LD, 30 minutes later (09:30 at +01:00 is 08:30 UTC).
        Capture {
            url: "https://b.example/story/881".into(),
            date: "2024-03-01T15:00:00Z",
            html: page(
                "b.example",
                h,
                STORY,
                r#"<script type="application/ld+json">{"@type":"NewsArticle","datePublished":"2024-03-01T09:30:00+01:00"}</script>"#,
                "From the wire",
            ),
        },
        // c.example: <time datetime pubdate>, a day and four hours later.
        Capture {
            url: "https://c.example/local/bridge.html".into(),
            date: "2024-03-02T18:00:00Z",
            html: page(
                "c.example",
                h,
                STORY,
                "",
                r#"<time pubdate datetime="2024-03-02T12:00:00Z">2 March</time>"#,
            ),
        },
        // d.example: the date only in its URL.
        Capture {
            url: "https://d.example/2024/03/03/bridge-closes".into(),
            date: "2024-03-04T09:00:00Z",
            html: page("d.example", h, STORY, "", "Staff report"),
        },
        // e.example: the date only in its text.
        Capture {
            url: "https://e.example/bridge".into(),
            date: "2024-03-05T09:00:00Z",
            html: page("e.example", h, STORY, "", "Published: March 4, 2024"),
        },
        // f.example: no date anywhere: its capture.
        Capture {
            url: "https://f.example/bridge".into(),
            date: "2024-03-06T10:00:00Z",
            html: page("f.example", h, STORY, "", "Staff"),
        },
        // Another story on a.example.
        Capture {
            url: "https://a.example/news/bakery".into(),
            date: "2024-03-02T12:00:00Z",
            html: page(
                "a.example",
                "Bakery wins prize",
                OTHER,
                r#"<meta property="article:published_time" content="2024-03-02T07:00:00Z">"#,
                "By staff",
            ),
        },
        // c.example again: the story itself changed.
        Capture {
            url: "https://c.example/local/bridge.html".into(),
            date: "2024-03-07T18:00:00Z",
            html: page(
                "c.example",
                h,
                &changed,
                "",
                r#"<time pubdate datetime="2024-03-02T12:00:00Z">2 March</time>"#,
            ),
        },
        // b.example again: only its frame changed.
        Capture {
            url: "https://b.example/story/881".into(),
            date: "2024-03-08T15:00:00Z",
            html: page(
                "b.example",
                h,
                STORY,
                r#"<script type="application/ld+json">{"@type":"NewsArticle","datePublished":"2024-03-01T09:30:00+01:00"}</script>"#,
                "From the wire. 14 comments",
            ),
        },
    ];
    let path = dir.join("story.warc");
    write_warc(&path, &captures, &[(0, "2024-03-09T12:00:00Z")]);
    let truth = vec![
        (
            "https://a.example/news/bridge".into(),
            "2024-03-01T12:00:00Z",
            "2024-03-01T08:00:00Z",
            DateSource::Meta,
        ),
        (
            "https://b.example/story/881".into(),
            "2024-03-01T15:00:00Z",
            "2024-03-01T09:30:00+01:00",
            DateSource::JsonLd,
        ),
        (
            "https://c.example/local/bridge.html".into(),
            "2024-03-02T18:00:00Z",
            "2024-03-02T12:00:00Z",
            DateSource::Time,
        ),
        (
            "https://d.example/2024/03/03/bridge-closes".into(),
            "2024-03-04T09:00:00Z",
            "2024-03-03",
            DateSource::Url,
        ),
        (
            "https://e.example/bridge".into(),
            "2024-03-05T09:00:00Z",
            "2024-03-04",
            DateSource::Text,
        ),
        (
            "https://f.example/bridge".into(),
            "2024-03-06T10:00:00Z",
            "2024-03-06T10:00:00Z",
            DateSource::Capture,
        ),
        (
            "https://a.example/news/bakery".into(),
            "2024-03-02T12:00:00Z",
            "2024-03-02T07:00:00Z",
            DateSource::Meta,
        ),
        (
            "https://c.example/local/bridge.html".into(),
            "2024-03-07T18:00:00Z",
            "2024-03-02T12:00:00Z",
            DateSource::Time,
        ),
        (
            "https://b.example/story/881".into(),
            "2024-03-08T15:00:00Z",
            "2024-03-01T09:30:00+01:00",
            DateSource::JsonLd,
        ),
        // The revisit of a.example's page carries its original's date.
        (
            "https://a.example/news/bridge".into(),
            "2024-03-09T12:00:00Z",
            "2024-03-01T08:00:00Z",
            DateSource::Meta,
        ),
    ];
    (path, truth)
}

#[test]
fn every_source_gives_the_generators_date() {
    let dir = tempfile::tempdir().unwrap();
    let (path, truth) = story_archive(dir.path());
    let c = archive::load(&[path], &ReadOptions::default(), &Progress::new()).unwrap();
    assert_eq!(c.docs.len(), truth.len());
    for (url, captured, published, source) in &truth {
        let doc = c
            .docs
            .iter()
            .find(|d| d.url.as_deref() == Some(url) && d.date.as_deref() == Some(*captured))
            .unwrap_or_else(|| panic!("{url} {captured}"));
        let p = doc.published.expect("a date");
        assert_eq!(p.at.iso(), *published, "{url} {captured}");
        assert_eq!(p.source, *source, "{url} {captured}");
    }
}

#[test]
fn first_publisher_and_lags_equal_the_generators_truth() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = story_archive(dir.path());
    let out = dir.path().join("clusters.csv");
    common::samecore([
        "run".as_ref(),
        path.as_os_str(),
        "--clusters".as_ref(),
        out.as_os_str(),
    ]);
    let mut rdr = csv::Reader::from_path(&out).unwrap();
    let headers = rdr.headers().unwrap().clone();
    let col = |name: &str| headers.iter().position(|h| h == name).unwrap();
    let (url, ts, cluster, first, lag) = (
        col("url"),
        col("capture_timestamp"),
        col("cluster"),
        col("first_publisher"),
        col("lag_seconds"),
    );
    let rows: Vec<csv::StringRecord> = rdr.records().map(Result::unwrap).collect();
    let row = |u: &str, t: &str| {
        rows.iter()
            .find(|r| &r[url] == u && &r[ts] == t)
            .unwrap_or_else(|| panic!("{u} {t}"))
    };
    // The story's eight captures are one cluster; the bakery is alone.
    let story = row("https://a.example/news/bridge", "20240301120000")[cluster].to_string();
    let members: Vec<&csv::StringRecord> = rows.iter().filter(|r| r[cluster] == story).collect();
    assert_eq!(members.len(), 9, "the story's captures, revisit included");
    assert_ne!(
        row("https://a.example/news/bakery", "20240302120000")[cluster],
        story
    );
    let hour = 3600;
    let day = 24 * hour;
    let expected: HashMap<(&str, &str), (bool, i64)> = [
        // a.example published first (its revisit is the same page: first too).
        (
            ("https://a.example/news/bridge", "20240301120000"),
            (true, 0),
        ),
        (
            ("https://a.example/news/bridge", "20240309120000"),
            (true, 0),
        ),
        (
            ("https://b.example/story/881", "20240301150000"),
            (false, 30 * 60),
        ),
        (
            ("https://b.example/story/881", "20240308150000"),
            (false, 30 * 60),
        ),
        (
            ("https://c.example/local/bridge.html", "20240302180000"),
            (false, day + 4 * hour),
        ),
        (
            ("https://c.example/local/bridge.html", "20240307180000"),
            (false, day + 4 * hour),
        ),
        // Dates without a time of day count by the day.
        (
            (
                "https://d.example/2024/03/03/bridge-closes",
                "20240304090000",
            ),
            (false, 2 * day),
        ),
        (
            ("https://e.example/bridge", "20240305090000"),
            (false, 3 * day),
        ),
        (
            ("https://f.example/bridge", "20240306100000"),
            (false, 5 * day + 2 * hour),
        ),
    ]
    .into_iter()
    .collect();
    for ((u, t), (is_first, lag_s)) in &expected {
        let r = row(u, t);
        assert_eq!(&r[first] == "true", *is_first, "{u} {t} first");
        assert_eq!(r[lag].parse::<i64>().unwrap(), *lag_s, "{u} {t} lag");
    }
}

#[test]
fn capture_history_tells_identical_frame_only_and_core_changed() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = story_archive(dir.path());
    let out = dir.path().join("history.csv");
    let text = common::samecore([
        "history".as_ref(),
        path.as_os_str(),
        "--diff".as_ref(),
        "--out".as_ref(),
        out.as_os_str(),
    ]);
    assert!(
        text.contains("3 URLs captured more than once; the core changed on 1"),
        "{text}"
    );
    assert!(text.contains("+ "), "the diff of the changed core: {text}");
    let mut rdr = csv::Reader::from_path(&out).unwrap();
    let rows: Vec<(String, String)> = rdr
        .deserialize::<samecore::export::HistoryRow>()
        .map(|r| {
            let r = r.unwrap();
            (r.url, r.change)
        })
        .collect();
    let change = |u: &str| {
        rows.iter()
            .filter(|(url, _)| url == u)
            .map(|(_, c)| c.as_str())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        change("https://a.example/news/bridge"),
        ["first", "identical"]
    );
    assert_eq!(
        change("https://b.example/story/881"),
        ["first", "frame-only"]
    );
    assert_eq!(
        change("https://c.example/local/bridge.html"),
        ["first", "core-changed"]
    );
}

/// The annotated pages of the shared data (`benches/dates_truth.tsv`): samecore's accuracy on
/// the same calendar day, where htmldate's extensive mode scored 0.507 (1.11.0, this machine).
#[test]
fn accuracy_on_the_annotated_shared_pages() {
    let Some(data) = common::shared("data") else {
        return;
    };
    let truth = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/dates_truth.tsv"),
    )
    .unwrap();
    let mut loaded: HashMap<String, Vec<samecore::Document>> = HashMap::new();
    let (mut n, mut right) = (0, 0);
    for line in truth.lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        let (input, url, record_id, capture, published) = (f[0], f[1], f[2], f[3], f[4]);
        let top = if record_id.is_empty() {
            input.split('/').next().unwrap()
        } else {
            input
        };
        let docs = loaded.entry(top.to_string()).or_insert_with(|| {
            archive::load(&[data.join(top)], &ReadOptions::default(), &Progress::new())
                .unwrap()
                .docs
        });
        let doc = if record_id.is_empty() {
            let rel = input.split_once('/').unwrap().1;
            docs.iter().find(|d| &*d.key == rel)
        } else {
            docs.iter().find(|d| {
                d.record_id() == Some(record_id)
                    && d.url.as_deref() == Some(url)
                    && d.date.as_deref().map(|x| &x[..19]) == Some(&capture[..19])
            })
        }
        .unwrap_or_else(|| panic!("{input} {record_id}"));
        let said = match doc.published {
            Some(p) if p.source != DateSource::Capture => p.at.ymd(),
            _ => "none".into(),
        };
        n += 1;
        right += usize::from(said == published);
    }
    let accuracy = right as f64 / n as f64;
    eprintln!("publication dates: {right}/{n} = {accuracy:.3} on the same day");
    assert_eq!(n, 302);
    assert!(accuracy >= 0.70, "{accuracy}");
}
