//! Invented proper names built from syllables: people, places and organisations.
//!
//! In: an RNG. Out: names such as "Maren Tolvask", "Duvenhall", "Corlend Holdings". Real news
//! is full of names that occur in one story and nowhere else; drawing them from a few dozen
//! fixed ones (as the first version of the generator did) made unrelated stories share spot
//! signatures such as "the Millbrook" far more often than real stories do (see
//! [`super::calibrate`]). A few syllables carry accents so that windows-1252 pages still test
//! charset decoding.

use rand::Rng;
use rand::seq::IndexedRandom;

const ONSETS: &[&str] = &[
    "b", "br", "c", "ch", "cl", "d", "dr", "f", "fr", "g", "gr", "h", "j", "k", "kr", "l", "m",
    "n", "p", "pr", "r", "s", "sh", "st", "t", "tr", "v", "w", "z", "th", "", "", "", "",
];
const VOWELS: &[&str] = &[
    "a", "e", "i", "o", "u", "a", "e", "o", "ai", "ea", "ou", "ie", "y", "é", "ö", "a", "i", "e",
];
const CODAS: &[&str] = &[
    "", "", "", "", "n", "r", "l", "s", "m", "nd", "rt", "ss", "ck", "ld", "rn", "sk", "v", "t",
];
const FIRST_ENDINGS: &[&str] = &[
    "a", "o", "el", "an", "ie", "is", "on", "ina", "ette", "ric", "ver", "en", "ia", "us", "ah",
];
const LAST_ENDINGS: &[&str] = &[
    "son", "ley", "ford", "er", "ini", "ova", "ez", "stein", "ham", "wick", "berg", "ton", "ard",
    "ski", "sen", "well", "more", "and", "oux", "ati", "ward", "ock",
];
const PLACE_ENDINGS: &[&str] = &[
    "ton",
    "bury",
    "field",
    "wick",
    "ford",
    "dale",
    "haven",
    "port",
    "mouth",
    "stead",
    "mere",
    "brook",
    "ville",
    "holm",
    "ridge",
    "by",
    "worth",
    "combe",
    " Falls",
    " Springs",
    " Heights",
    " Crossing",
    " Harbor",
    " Junction",
    " Valley",
    " Point",
];
const PLACE_PREFIXES: &[&str] = &[
    "North ", "South ", "East ", "West ", "Upper ", "Lower ", "Port ",
];
const ORG_KINDS: &[&str] = &[
    "Group",
    "Holdings",
    "Institute",
    "Foundation",
    "Partners",
    "Laboratories",
    "Trust",
    "Cooperative",
    "Associates",
    "Industries",
    "Systems",
    "Logistics",
    "Alliance",
    "Works",
    "Society",
    "Collective",
    "Capital",
    "Energy",
    "Health",
    "Media",
];

fn syllable(rng: &mut impl Rng) -> String {
    let mut s = String::with_capacity(6);
    s.push_str(ONSETS.choose(rng).copied().unwrap_or("b"));
    s.push_str(VOWELS.choose(rng).copied().unwrap_or("a"));
    s.push_str(CODAS.choose(rng).copied().unwrap_or(""));
    s
}

/// "vor" -> "Vor".
fn capitalised(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// Fragments a generated name must not contain (random syllables can spell rude words).
const BLOCKED: &[&str] = &[
    "ass", "sex", "fuk", "fuc", "shit", "cum", "nig", "dick", "tit", "cock", "fag", "rape", "porn",
    "slut", "whor", "pus", "anal", "bitch", "crap", "dam", "hell", "kill", "nazi", "piss", "poo",
    "butt", "turd", "wank", "twat", "cunt", "homo", "jew", "gay", "die", "dead",
];

fn stem(rng: &mut impl Rng, syllables: usize) -> String {
    let mut s = String::with_capacity(12);
    for _ in 0..syllables {
        s.push_str(&syllable(rng));
    }
    s
}

/// A name from `make` that contains no blocked fragment (a few tries, then the last one drawn).
fn clean<R: Rng>(rng: &mut R, make: impl Fn(&mut R) -> String) -> String {
    let mut name = make(rng);
    for _ in 0..16 {
        let lower = name.to_lowercase();
        if !BLOCKED.iter().any(|b| lower.contains(b)) {
            break;
        }
        name = make(rng);
    }
    name
}

/// A first name: one or two syllables and an ending.
pub fn first_name(rng: &mut impl Rng) -> String {
    clean(rng, |rng| {
        let n = rng.random_range(1..=2);
        let ending = FIRST_ENDINGS.choose(rng).copied().unwrap_or("a");
        capitalised(&format!("{}{ending}", stem(rng, n)))
    })
}

/// A family name: one or two syllables and a common ending, sometimes plain.
pub fn last_name(rng: &mut impl Rng) -> String {
    clean(rng, |rng| {
        let n = rng.random_range(1..=2);
        let base = stem(rng, n);
        if rng.random_bool(0.2) {
            return capitalised(&format!("{base}{}", syllable(rng)));
        }
        let ending = LAST_ENDINGS.choose(rng).copied().unwrap_or("son");
        capitalised(&format!("{base}{ending}"))
    })
}

/// A full name, now and then with a middle initial.
pub fn person(rng: &mut impl Rng) -> String {
    let first = first_name(rng);
    let last = last_name(rng);
    if rng.random_bool(0.15) {
        let initial = (b'A' + rng.random_range(0..26u8)) as char;
        format!("{first} {initial}. {last}")
    } else {
        format!("{first} {last}")
    }
}

/// A town or district.
pub fn place(rng: &mut impl Rng) -> String {
    let name = clean(rng, |rng| {
        let n = rng.random_range(1..=2);
        let ending = PLACE_ENDINGS.choose(rng).copied().unwrap_or("ton");
        capitalised(&format!("{}{ending}", stem(rng, n)))
    });
    if rng.random_bool(0.12) {
        let prefix = PLACE_PREFIXES.choose(rng).copied().unwrap_or("North ");
        format!("{prefix}{name}")
    } else {
        name
    }
}

/// A company, institute or association: "Corlend Holdings".
pub fn organisation(rng: &mut impl Rng) -> String {
    let name = clean(rng, |rng| {
        let n = rng.random_range(1..=2);
        capitalised(&stem(rng, n))
    });
    let kind = ORG_KINDS.choose(rng).copied().unwrap_or("Group");
    format!("{name} {kind}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn names_are_varied_and_capitalised() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let people: std::collections::BTreeSet<String> =
            (0..500).map(|_| person(&mut rng)).collect();
        assert!(people.len() > 490, "only {} distinct names", people.len());
        for p in &people {
            assert!(p.chars().next().is_some_and(char::is_uppercase), "{p}");
        }
        let places: std::collections::BTreeSet<String> =
            (0..300).map(|_| place(&mut rng)).collect();
        assert!(places.len() > 280);
        for name in people.iter().chain(&places) {
            let lower = name.to_lowercase();
            assert!(!BLOCKED.iter().any(|b| lower.contains(b)), "{name}");
        }
    }
}
