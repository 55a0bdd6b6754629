//! Invented news prose: story "cores" written from the project's own word lists and sentence
//! templates with a seeded RNG (no copied article text anywhere).
//!
//! In: a seed and a story index. Out: a [`Story`] — topic section, headline and alternative
//! headlines, author, 4–10 paragraphs (1–2 for a brief) and one spare paragraph that some copies
//! append. A story's entities (people, place, organisation, amounts) are drawn once, so every
//! sentence of the story talks about the same things, as a real article does.
//!
//! The headline is drawn from its own RNG stream ([`story_headline`]) so that a page's sidebar can
//! name *other* stories without generating their bodies — that keeps the generator streaming.

use rand::Rng;
use rand::seq::IndexedRandom;

use super::topics::{TOPICS, Topic};
use super::words::{FIRST_NAMES, GENERIC_SENTENCES, LAST_NAMES, PLACES, WEEKDAYS};
use super::{rng_for, stream};

/// The entities one story talks about; fixed per story so its sentences agree.
#[derive(Debug, Clone)]
struct Entities {
    person: String,
    person2: String,
    role: &'static str,
    role2: &'static str,
    org: &'static str,
    place: &'static str,
    thing: &'static str,
    amount: String,
    count: u32,
    pct: u32,
    weekday: &'static str,
}

/// One story core as it is first written, before a site edits its copy.
#[derive(Debug, Clone)]
pub struct Story {
    /// Index of the story in the generated stream (also its gold cluster).
    pub index: u64,
    /// Index into the topic table.
    pub topic: usize,
    /// The section the story runs in ("Local", "Business", ...).
    pub section: &'static str,
    /// The headline as first written.
    pub headline: String,
    /// Other wordings of the headline that a syndicating site may use.
    pub alt_headlines: Vec<String>,
    /// The author's full name.
    pub author: String,
    /// Body paragraphs (plain text, may contain non-ASCII punctuation and names).
    pub paragraphs: Vec<String>,
    /// A paragraph that some copies append (an update or background note).
    pub extra_paragraph: String,
}

/// Whether a story is a full article or a short brief (the brief is where a frame outweighs the
/// core the most, the hardest case for whole-page similarity).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Length {
    /// 4–10 paragraphs.
    Article,
    /// 1–2 paragraphs.
    Brief,
}

fn person(rng: &mut impl Rng) -> String {
    let first = FIRST_NAMES.choose(rng).copied().unwrap_or("Alex");
    let last = LAST_NAMES.choose(rng).copied().unwrap_or("Morgan");
    format!("{first} {last}")
}

fn pick<'a>(rng: &mut impl Rng, list: &[&'a str]) -> &'a str {
    list.choose(rng).copied().unwrap_or("")
}

fn entities(rng: &mut impl Rng, topic: &Topic) -> Entities {
    let person1 = person(rng);
    let mut person2 = person(rng);
    if person2 == person1 {
        person2 = format!("{person2} Jr.");
    }
    let millions = rng.random_range(1..400u32);
    let amount = if rng.random_bool(0.5) {
        format!("${}.{} million", millions / 10 + 1, millions % 10)
    } else {
        format!(
            "${},{:03}",
            rng.random_range(12..990u32),
            rng.random_range(0..1000u32)
        )
    };
    Entities {
        person: person1,
        person2,
        role: pick(rng, topic.roles),
        role2: pick(rng, topic.roles),
        org: pick(rng, topic.orgs),
        place: pick(rng, PLACES),
        thing: pick(rng, topic.things),
        amount,
        count: rng.random_range(3..480),
        pct: rng.random_range(2..68),
        weekday: pick(rng, WEEKDAYS),
    }
}

/// Fill `{slot}`s of a template with the story's entities; `{n}` draws a fresh small number.
fn fill(template: &str, e: &Entities, rng: &mut impl Rng) -> String {
    let mut out = String::with_capacity(template.len() + 64);
    let mut rest = template;
    while let Some(start) = rest.find('{') {
        out.push_str(&rest[..start]);
        let Some(len) = rest[start..].find('}') else {
            out.push_str(&rest[start..]);
            return out;
        };
        let key = &rest[start + 1..start + len];
        match key {
            "person" => out.push_str(&e.person),
            "person2" => out.push_str(&e.person2),
            "last" => out.push_str(e.person.rsplit(' ').next().unwrap_or(&e.person)),
            "last2" => out.push_str(e.person2.rsplit(' ').next().unwrap_or(&e.person2)),
            "role" => out.push_str(e.role),
            "role2" => out.push_str(e.role2),
            "a_role" => out.push_str(&with_article(e.role)),
            "a_role2" => out.push_str(&with_article(e.role2)),
            "org" => out.push_str(e.org),
            "place" => out.push_str(e.place),
            "thing" => out.push_str(e.thing),
            "amount" => out.push_str(&e.amount),
            "count" => out.push_str(&e.count.to_string()),
            "pct" => out.push_str(&e.pct.to_string()),
            "weekday" => out.push_str(e.weekday),
            "n" => out.push_str(&rng.random_range(2..60u32).to_string()),
            other => {
                out.push('{');
                out.push_str(other);
                out.push('}');
            }
        }
        rest = &rest[start + len + 1..];
    }
    out.push_str(rest);
    out
}

/// "a teacher", "an ecologist".
fn with_article(noun: &str) -> String {
    let vowel = noun.starts_with(['a', 'e', 'i', 'o', 'u', 'A', 'E', 'I', 'O', 'U']);
    format!("{} {noun}", if vowel { "an" } else { "a" })
}

/// Upper-case the first letter (templates may start with a slot).
fn capitalise(s: String) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(first) if first.is_lowercase() => first.to_uppercase().chain(chars).collect(),
        _ => s,
    }
}

fn topic_of(rng: &mut impl Rng) -> usize {
    rng.random_range(0..TOPICS.len())
}

/// The topic, entities and headline wordings of story `index`, from its own RNG stream.
fn head(seed: u64, index: u64) -> (usize, Entities, Vec<String>) {
    let mut rng = rng_for(seed, &[stream::HEADLINE, index]);
    let topic = topic_of(&mut rng);
    let t = &TOPICS[topic];
    let e = entities(&mut rng, t);
    let first = rng.random_range(0..t.headlines.len());
    let mut headlines = Vec::with_capacity(t.headlines.len());
    for k in 0..t.headlines.len() {
        let template = t.headlines[(first + k) % t.headlines.len()];
        headlines.push(capitalise(fill(template, &e, &mut rng)));
    }
    (topic, e, headlines)
}

/// The headline of story `index` (what a sidebar of another page shows).
pub fn story_headline(seed: u64, index: u64) -> String {
    let (_, _, headlines) = head(seed, index);
    headlines.into_iter().next().unwrap_or_default()
}

/// A sentence the story has not used yet (after a few tries a repeat is allowed: long articles
/// can outgrow a topic's templates).
fn sentence(rng: &mut impl Rng, t: &Topic, e: &Entities, used: &mut Vec<&'static str>) -> String {
    let mut template = "";
    for _ in 0..8 {
        let roll = rng.random_range(0..10u32);
        template = if roll < 5 {
            pick(rng, t.body)
        } else if roll < 7 {
            pick(rng, t.quotes)
        } else {
            pick(rng, GENERIC_SENTENCES)
        };
        if !used.contains(&template) {
            break;
        }
    }
    used.push(template);
    capitalise(fill(template, e, rng))
}

fn paragraph(
    rng: &mut impl Rng,
    t: &Topic,
    e: &Entities,
    sentences: usize,
    used: &mut Vec<&'static str>,
) -> String {
    let mut p = String::new();
    for k in 0..sentences {
        if k > 0 {
            p.push(' ');
        }
        p.push_str(&sentence(rng, t, e, used));
    }
    p
}

impl Story {
    /// Write story `index` of the stream seeded by `seed`.
    pub fn generate(seed: u64, index: u64, length: Length) -> Story {
        let (topic, e, mut headlines) = head(seed, index);
        let t = &TOPICS[topic];
        let mut rng = rng_for(seed, &[stream::BODY, index]);
        let author = person(&mut rng);
        let count = match length {
            Length::Article => rng.random_range(4..=10),
            Length::Brief => rng.random_range(1..=2),
        };
        let mut paragraphs = Vec::with_capacity(count);
        let mut used = Vec::with_capacity(count * 4);
        paragraphs.push(capitalise(fill(pick(&mut rng, t.leads), &e, &mut rng)));
        while paragraphs.len() < count {
            let sentences = rng.random_range(2..=4);
            paragraphs.push(paragraph(&mut rng, t, &e, sentences, &mut used));
        }
        let extra_paragraph = paragraph(&mut rng, t, &e, 2, &mut used);
        let headline = headlines.remove(0);
        Story {
            index,
            topic,
            section: t.section,
            headline,
            alt_headlines: headlines,
            author,
            paragraphs,
            extra_paragraph,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_story_and_headline_matches_sidebar() {
        let a = Story::generate(3, 17, Length::Article);
        let b = Story::generate(3, 17, Length::Article);
        assert_eq!(a.paragraphs, b.paragraphs);
        assert_eq!(a.headline, story_headline(3, 17));
        assert!((4..=10).contains(&a.paragraphs.len()));
        assert!(!a.headline.contains('{'), "unfilled slot in {}", a.headline);
        for p in &a.paragraphs {
            assert!(!p.contains('{'), "unfilled slot in {p}");
        }
    }

    #[test]
    fn different_stories_differ() {
        let a = Story::generate(3, 1, Length::Article);
        let b = Story::generate(3, 2, Length::Article);
        assert_ne!(a.paragraphs, b.paragraphs);
        let brief = Story::generate(3, 2, Length::Brief);
        assert!(brief.paragraphs.len() <= 2);
    }
}
