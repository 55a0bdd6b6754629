//! Invented news prose: story "cores" written from the project's own vocabulary and sentence
//! templates with a seeded RNG (no copied article text anywhere).
//!
//! In: a seed and a story index. Out: a [`Story`] — topic section, headline and alternative
//! headlines, author, 4–10 paragraphs (1–3 for a brief) and one spare paragraph that some copies
//! append. A story's cast (three invented people with roles, an organisation, a public body, two
//! invented places) and its subject (a key noun and a handful of nouns from its topic and the
//! general vocabulary, an adjective) are drawn once, so its sentences talk about the same things
//! as a real article does; every other slot draws a fresh word from the large lists of
//! [`super::lexicon`], which keeps unrelated stories as unlike as real ones under SpotSigs
//! ([`super::calibrate`]).
//!
//! The headline is drawn from its own RNG stream ([`story_headline`]) so that a page's sidebar can
//! name *other* stories without generating their bodies — that keeps the generator streaming.

use rand::Rng;
use rand::seq::IndexedRandom;

use super::grammar::{BODY, CODAS, DEKS, HEADLINES, LEADS, QUOTES};
use super::lexicon::{COMMON_ADJECTIVES, COMMON_NOUNS, adjectives, nouns, verbs};
use super::names;
use super::topics::TOPICS;
use super::words::{MONTHS, WEEKDAYS};
use super::{rng_for, stream};

/// The cast and subject of one story; fixed per story so its sentences agree.
#[derive(Debug, Clone)]
struct Entities {
    people: [String; 3],
    lasts: [String; 3],
    roles: [&'static str; 3],
    org: String,
    body: String,
    places: [String; 2],
    key: String,
    nouns: Vec<String>,
    adjective: &'static str,
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
    /// The standfirst under the headline (other pages show it with the headline).
    pub dek: String,
    /// The author's full name.
    pub author: String,
    /// Body paragraphs (plain text, may contain non-ASCII punctuation and names).
    pub paragraphs: Vec<String>,
    /// A paragraph that some copies append (an update or background note).
    pub extra_paragraph: String,
    /// Rewritten versions of body paragraphs: a later version of the story swaps some in.
    pub revisions: Vec<String>,
}

/// Whether a story is a full article or a short brief (the brief is where a frame outweighs the
/// core the most, the hardest case for whole-page similarity).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Length {
    /// 4–10 paragraphs.
    Article,
    /// 1–3 paragraphs.
    Brief,
}

fn pick<'a>(rng: &mut impl Rng, list: &[&'a str]) -> &'a str {
    list.choose(rng).copied().unwrap_or("")
}

/// Nouns without a plural in news prose.
const UNCOUNTABLE: &[&str] = &[
    "aid",
    "cash",
    "equipment",
    "evidence",
    "freight",
    "housing",
    "machinery",
    "police",
    "relief",
    "security",
    "software",
    "spending",
    "staff",
    "testimony",
    "youth",
    "workforce",
];

/// The plural of a noun from the word lists (regular rules and `-is` -> `-es`).
pub fn plural(noun: &str) -> String {
    if UNCOUNTABLE.contains(&noun) {
        noun.to_string()
    } else if let Some(stem) = noun.strip_suffix("is") {
        format!("{stem}es")
    } else if noun.ends_with(['s', 'x', 'z']) || noun.ends_with("ch") || noun.ends_with("sh") {
        format!("{noun}es")
    } else if let Some(stem) = noun.strip_suffix('y')
        && !stem.ends_with(['a', 'e', 'o', 'u'])
    {
        format!("{stem}ies")
    } else {
        format!("{noun}s")
    }
}

fn entities(rng: &mut impl Rng, topic: usize) -> Entities {
    let t = &TOPICS[topic];
    let people = [names::person(rng), names::person(rng), names::person(rng)];
    let lasts = people
        .clone()
        .map(|p| p.rsplit(' ').next().unwrap_or(&p).to_string());
    let roles = [pick(rng, t.roles), pick(rng, t.roles), pick(rng, t.roles)];
    let places = [names::place(rng), names::place(rng)];
    let body = format!("{} {}", places[0], pick(rng, t.bodies));
    let org = if rng.random_bool(0.5) {
        names::organisation(rng)
    } else {
        format!(
            "the {} {}",
            places[rng.random_range(0..2)],
            pick(rng, t.bodies)
        )
    };
    let topic_nouns: Vec<String> = t.noun_list().collect();
    let mut story_nouns = Vec::with_capacity(10);
    for _ in 0..rng.random_range(3..=5) {
        story_nouns.push(topic_nouns.choose(rng).cloned().unwrap_or_default());
    }
    for _ in 0..rng.random_range(4..=7) {
        story_nouns.push(pick(rng, nouns()).to_string());
    }
    let key = story_nouns[0].clone();
    Entities {
        people,
        lasts,
        roles,
        org,
        body,
        places,
        key,
        nouns: story_nouns,
        adjective: pick(rng, adjectives()),
    }
}

/// Share of general-noun and adjective slots filled from the common words.
const COMMON_SHARE: f64 = 0.25;

fn general_noun(rng: &mut impl Rng) -> &'static str {
    if rng.random_bool(COMMON_SHARE) {
        pick(rng, COMMON_NOUNS)
    } else {
        pick(rng, nouns())
    }
}

fn adjective(rng: &mut impl Rng) -> &'static str {
    if rng.random_bool(COMMON_SHARE) {
        pick(rng, COMMON_ADJECTIVES)
    } else {
        pick(rng, adjectives())
    }
}

fn any_verb(rng: &mut impl Rng) -> Option<&'static super::lexicon::Verb> {
    verbs().choose(rng)
}

/// Fill the `{slot}`s of a template (see [`super::grammar`]).
fn fill(template: &str, e: &Entities, rng: &mut impl Rng) -> String {
    let mut out = String::with_capacity(template.len() + 96);
    let mut rest = template;
    while let Some(start) = rest.find('{') {
        out.push_str(&rest[..start]);
        let Some(len) = rest[start..].find('}') else {
            out.push_str(&rest[start..]);
            return out;
        };
        let key = &rest[start + 1..start + len];
        match key {
            "P1" | "P2" | "P3" => out.push_str(&e.people[usize::from(key.as_bytes()[1] - b'1')]),
            "L1" | "L2" | "L3" => out.push_str(&e.lasts[usize::from(key.as_bytes()[1] - b'1')]),
            "R1" | "R2" | "R3" => out.push_str(e.roles[usize::from(key.as_bytes()[1] - b'1')]),
            "O" => out.push_str(&e.org),
            "B" => out.push_str(&e.body),
            "PL" => out.push_str(&e.places[0]),
            "PL2" => out.push_str(&e.places[1]),
            "K" => out.push_str(&e.key),
            "N" => out.push_str(e.nouns.choose(rng).map_or("plan", String::as_str)),
            "SA" => out.push_str(e.adjective),
            "G" => out.push_str(general_noun(rng)),
            "Gs" => out.push_str(&plural(general_noun(rng))),
            "A" => out.push_str(adjective(rng)),
            "V" => out.push_str(any_verb(rng).map_or("said", |v| v.past.as_str())),
            "Vb" => out.push_str(any_verb(rng).map_or("say", |v| v.base.as_str())),
            "Vpp" => out.push_str(any_verb(rng).map_or("said", |v| v.participle.as_str())),
            "Ving" => out.push_str(any_verb(rng).map_or("saying", |v| v.ing.as_str())),
            "V3" => out.push_str(any_verb(rng).map_or("says", |v| v.present.as_str())),
            "num" => out.push_str(&rng.random_range(2..40u32).to_string()),
            "count" => {
                let n = rng.random_range(12..9_000u32);
                if n >= 1_000 {
                    out.push_str(&format!("{},{:03}", n / 1_000, n % 1_000));
                } else {
                    out.push_str(&n.to_string());
                }
            }
            "amount" => {
                let n = rng.random_range(11..990u32);
                if rng.random_bool(0.5) {
                    out.push_str(&format!("${}.{} million", n / 10, n % 10));
                } else {
                    out.push_str(&format!("${n},{:03}", rng.random_range(0..1_000u32)));
                }
            }
            "pct" => out.push_str(&rng.random_range(2..80u32).to_string()),
            "day" => out.push_str(pick(rng, WEEKDAYS)),
            "month" => out.push_str(pick(rng, MONTHS)),
            "date" => {
                let month = pick(rng, MONTHS);
                out.push_str(&format!("{month} {}", rng.random_range(1..29u32)));
            }
            "year" => out.push_str(&rng.random_range(1978..2024u32).to_string()),
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

/// Upper-case the first letter (templates may start with a slot).
fn capitalise(s: String) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(first) if first.is_lowercase() => first.to_uppercase().chain(chars).collect(),
        _ => s,
    }
}

/// Upper-case the first letter of every word longer than three letters (headline style).
fn title_case(s: &str) -> String {
    s.split(' ')
        .map(|w| {
            if w.chars().count() > 3 {
                capitalise(w.to_string())
            } else {
                w.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The topic, cast, headline wordings and standfirst of story `index`, from its own RNG stream.
fn head(seed: u64, index: u64) -> (usize, Entities, Vec<String>, String) {
    let mut rng = rng_for(seed, &[stream::HEADLINE, index]);
    let topic = rng.random_range(0..TOPICS.len());
    let e = entities(&mut rng, topic);
    let first = rng.random_range(0..HEADLINES.len());
    let mut headlines = Vec::with_capacity(3);
    for k in 0..3 {
        let template = HEADLINES[(first + k * 3) % HEADLINES.len()];
        let text = capitalise(fill(template, &e, &mut rng));
        headlines.push(if rng.random_bool(0.3) {
            title_case(&text)
        } else {
            text
        });
    }
    let dek = capitalise(fill(pick(&mut rng, DEKS), &e, &mut rng));
    (topic, e, headlines, dek)
}

/// The headline of story `index` (what a sidebar of another page shows).
pub fn story_headline(seed: u64, index: u64) -> String {
    story_teaser(seed, index).0
}

/// The headline and standfirst of story `index` (a "more news" list shows both).
pub fn story_teaser(seed: u64, index: u64) -> (String, String) {
    let (_, _, headlines, dek) = head(seed, index);
    (headlines.into_iter().next().unwrap_or_default(), dek)
}

/// A sentence from a template the story has not used yet (after a few tries a repeat is
/// allowed; its slots are filled afresh anyway).
fn sentence(rng: &mut impl Rng, e: &Entities, used: &mut Vec<&'static str>) -> String {
    let mut template = "";
    for _ in 0..8 {
        template = if rng.random_bool(0.25) {
            pick(rng, QUOTES)
        } else {
            pick(rng, BODY)
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
    e: &Entities,
    sentences: usize,
    used: &mut Vec<&'static str>,
) -> String {
    let mut p = String::new();
    for k in 0..sentences {
        if k > 0 {
            p.push(' ');
        }
        p.push_str(&sentence(rng, e, used));
    }
    p
}

impl Story {
    /// Write story `index` of the stream seeded by `seed`.
    pub fn generate(seed: u64, index: u64, length: Length) -> Story {
        let (topic, e, mut headlines, dek) = head(seed, index);
        let t = &TOPICS[topic];
        let mut rng = rng_for(seed, &[stream::BODY, index]);
        let author = names::person(&mut rng);
        let count = match length {
            Length::Article => rng.random_range(4..=10),
            Length::Brief => rng.random_range(1..=3),
        };
        let mut paragraphs = Vec::with_capacity(count);
        let mut used = Vec::with_capacity(count * 4);
        paragraphs.push(capitalise(fill(pick(&mut rng, LEADS), &e, &mut rng)));
        while paragraphs.len() < count {
            let sentences = rng.random_range(2..=4);
            paragraphs.push(paragraph(&mut rng, &e, sentences, &mut used));
        }
        let extra_paragraph = capitalise(fill(pick(&mut rng, CODAS), &e, &mut rng));
        let revisions = (0..2)
            .map(|_| {
                let sentences = rng.random_range(2..=4);
                paragraph(&mut rng, &e, sentences, &mut used)
            })
            .collect();
        let headline = headlines.remove(0);
        Story {
            index,
            topic,
            section: t.section,
            headline,
            alt_headlines: headlines,
            dek,
            author,
            paragraphs,
            extra_paragraph,
            revisions,
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
        for p in a.paragraphs.iter().chain([&a.extra_paragraph]) {
            assert!(!p.contains('{'), "unfilled slot in {p}");
        }
    }

    #[test]
    fn different_stories_differ() {
        let a = Story::generate(3, 1, Length::Article);
        let b = Story::generate(3, 2, Length::Article);
        assert_ne!(a.paragraphs, b.paragraphs);
        let brief = Story::generate(3, 2, Length::Brief);
        assert!(brief.paragraphs.len() <= 3);
    }

    #[test]
    fn every_template_fills() {
        let mut rng = rng_for(9, &[1]);
        let e = entities(&mut rng, 4);
        for t in LEADS
            .iter()
            .chain(BODY)
            .chain(QUOTES)
            .chain(CODAS)
            .chain(HEADLINES)
        {
            let s = fill(t, &e, &mut rng);
            assert!(!s.contains('{') && !s.contains('}'), "{t} -> {s}");
        }
        assert_eq!(plural("analysis"), "analyses");
        assert_eq!(plural("county"), "counties");
        assert_eq!(plural("tax"), "taxes");
        assert_eq!(plural("survey"), "surveys");
    }
}
