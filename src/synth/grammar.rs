//! Sentence templates of invented news prose, shared by every topic.
//!
//! In: nothing. Out: static template tables read by [`super::prose`]. Templates are mostly
//! slots with a few function words between them, so that the word after an article or an
//! auxiliary (what a SpotSigs signature is made of, workbench paper §3.1) comes from the
//! story's own nouns, the large general vocabulary or an invented name, not from the template:
//!
//! - people: `{P1}` `{P2}` `{P3}` full name, `{L1}` `{L2}` `{L3}` family name, `{R1}` `{R2}`
//!   `{R3}` role; `{O}` the story's organisation, `{B}` the public body ("Duvenhall school
//!   board"), `{PL}` `{PL2}` places;
//! - the story's subject: `{K}` its key noun, `{N}` one of its nouns, `{SA}` its adjective;
//! - fresh words: `{G}` a general noun, `{Gs}` its plural, `{A}` an adjective, `{V}` a verb in
//!   the past, `{Vb}` bare, `{Vpp}` participle, `{Ving}` -ing form, `{V3}` present third person;
//! - numbers and dates: `{num}` `{count}` `{amount}` `{pct}` `{day}` `{date}` `{month}`
//!   `{year}`.

/// Opening paragraphs.
pub const LEADS: &[&str] = &[
    "{PL} — {B} members {V} the {K} on {day}, {num} weeks after {P1} first raised concerns about its {A} {G}.",
    "A {SA} {K} in {PL} drew {count} people to a {A} {G} on {day}, where {O} {V} its {A} {G} for {month}.",
    "Officials in {PL} {V} plans for the {K} late {day}, ending a {G} that began in {year}.",
    "{O} said on {day} it had {Vpp} the {SA} {K} near {PL}, a {G} {Vpp} to affect about {count} households.",
    "The {K} that {PL} residents {V} last {month} needs {amount}, according to figures {Vpp} by {O} on {day}.",
    "For {num} years the {K} in {PL} sat unused. On {day}, {P1}, {R1}, {V} a plan to change that.",
    "{P1} never expected a {K} to upend life in {PL}. Then came {date}.",
    "Residents of {PL} {V} a {A} {G} outside the {B} offices on {day}, demanding answers about the {K}.",
];

/// Body sentences.
pub const BODY: &[&str] = &[
    "{P2}, the {R2}, said the {K} would {Vb} the {A} {N} by {month}.",
    "The {SA} {K} was {Vpp} in {year} after a {A} {G} in {PL2}.",
    "According to {O}, {count} {Gs} were {Vpp} during the {A} {N}.",
    "{L1} {V} the {G} but stopped short of {Ving} a {A} {N}.",
    "Records obtained by this newspaper show the {N} {V} {pct} percent between {year} and last {month}.",
    "The {B} voted {num} to {num} to {Vb} the {N}, with {L2} {Ving} against.",
    "Nearby, a {A} {G} {V} traffic for most of {day} afternoon.",
    "{L1} said {O} had {Vpp} {amount} for the {N} and a further {amount} for {Gs}.",
    "Some {Gs} in {PL} have {Vpp} their {Gs}, {L2} said.",
    "Disputes over a {N} are {A} in {PL2}: a {A} {G} in {year} ended with {Gs} on both sides.",
    "{P3}, a {R3} who lives near the {N}, described the {G} as {A} and {A}.",
    "Under the {A} {G}, {Gs} will be {Vpp} every {day} until {month}.",
    "The {G} has been {Vpp} {num} times since {year}, most recently on {date}.",
    "A {G} released on {day} put the {N} at {amount}, up from {amount}.",
    "{L3} has {Vpp} {Gs} at {PL2} for {num} years.",
    "Members of {O} {V} the {G} at a {A} {G} on {date}.",
    "The {N} had been {Ving} {Gs} for months before {L1} {V} it.",
    "About {pct} percent of {Gs} surveyed in {PL} said they would {Vb} a {A} {N}.",
    "{O} did not {Vb} questions about the {G} or the {N} before publication.",
    "Work on the {N} could {Vb} {Gs} from {PL2} and {PL}.",
    "The {A} {G} comes as {PL} faces a {A} {G} and a {A} {G}.",
    "{L2} said the {N} was {A}, adding that the {G} should have been {Vpp} in {year}.",
    "An {A} {G} from {O} warned that {Gs} could {Vb} the {N}.",
    "By {day} evening, {count} {Gs} had {Vpp} the {G}.",
    "The {R2} {V} that the {G} would not {Vb} the {K}.",
    "Those figures were {Vpp} by {P3}, who {V} the {G} for {O} until {year}.",
    "A {A} {G}, near {PL2}, was {Vpp} in {month} and remains {A}.",
    "{L1} estimated the {N} would {Vb} {count} {Gs} and at least {num} {Gs}.",
    "The {K} joins {num} {A} {Gs} {O} has {Vpp} this year.",
    "Questions about the {G} were {Vpp} by {P3}, {R3}, in a {A} {G} to the {B}.",
    "Both sides agree the {N} will {Vb} a {A} {G}; they disagree on who should {Vb} it.",
    "The {G} ran {pct} percent over its budget of {amount}.",
    "{L2} {V} {Gs} at the {G} on {day} and {V} a {A} {G} afterward.",
    "{PL}, home to {count} {Gs}, has {Vpp} {Gs} for its {N} since {year}.",
    "In a {A} {G}, {O} said it would {Vb} {Gs} and {Vb} the {N} within {num} months.",
    "Data from {O} show {Gs} in {PL2} rose to {count} in {year}.",
    "The {R3} said a {A} {N} could be {Vpp} without {Ving} the {G}.",
    "Neither {L1} nor {L2} would {Vb} whether a {A} {G} had been {Vpp}.",
    "It was {A} and {A} on {day}, as {Gs} {V} along the {N}.",
    "The {B} has {Vpp} {Gs} from {PL2}, {PL} and {num} other towns.",
    "{P2} {V} the {SA} {N} in a {G} posted on {day}.",
    "A {G} scheduled for {date} will {Vb} whether the {N} can {Vb} the {G}.",
    "Past {Gs} in {PL} have {Vpp} similar {Gs}, with {A} results.",
    "Some {Gs} {V} the {G}; others {V} it as {A}.",
    "The {K} now has {count} {Gs} and a {G} of {amount}.",
    "After {num} hours of {G}, the {B} {V} the {N} for a {A} {G}.",
    "{L3} {V} a {G} calling for the {N} to be {Vpp}, and {count} people signed it.",
    "Engineers {V} {Gs} under the {N} on {date}, {O} said.",
    "Asked about the {G}, {L1} {V} to the {A} {N} and to {Gs} in {PL2}.",
    "Until {year}, the {N} {V} {Gs} for {PL} and {PL2}.",
];

/// Quoted sentences (curly quotes on purpose: windows-1252 pages must decode them).
pub const QUOTES: &[&str] = &[
    "“We {V} the {N} because the {G} demanded it,” {L1} said.",
    "“Nobody in {PL} wants a {A} {G},” said {P2}, the {R2}.",
    "“If the {N} is {Vpp}, the {Gs} will {Vb} it first,” {L2} said.",
    "“This {G} has been {A} since {month},” said {L3}.",
    "“I {V} {Gs} here for {num} years and never saw a {G} like it,” {L3} told reporters.",
    "“We are {Ving} every {G} we can {Vb},” said {P1}, {R1}.",
    "“The {K} is {A}, and the {Gs} know it,” {L2} said on {day}.",
    "“Give us a {A} {G} and we will {Vb} the {G},” said {L1}.",
    "“My {G} {V} on {day}. That is what this {N} means to us,” said {P3}.",
    "“It is {A}. It is {A}. And it is {Ving} {Gs} in {PL},” {L2} said.",
    "“Our {Gs} deserve a {A} {N},” the {R1} said.",
    "“Ask any {G} in {PL2} about the {N},” {L3} said. “They {V} it.”",
];

/// Paragraphs some copies add at the end (background, an update).
pub const CODAS: &[&str] = &[
    "Update, {day}: {O} {V} the {G} after this story was first published, a {R2} said.",
    "{P2} contributed reporting from {PL2}.",
    "Correction: an earlier version of this story gave the wrong {G} for the {N}. It is {amount}.",
    "The {B} meets again on {date}. Its {Gs} are posted online a week ahead.",
    "Background: the {K} was first {Vpp} in {year} by {P3}, then {R3} of {O}.",
];

/// Headline patterns (the first is the story's own; syndicating sites may use another).
pub const HEADLINES: &[&str] = &[
    "{PL} {B} {V3} {SA} {K}",
    "{K} in {PL} {V3} {Gs}, {O} says",
    "{O} {V3} {K} as {PL} {Gs} push back",
    "{SA} {K} {V3} {PL} after {num}-year {G}",
    "What the {K} means for {PL}",
    "{L1}: {PL} {K} ‘{A}’",
    "{PL} {K} costs {amount}, {G} shows",
    "{count} {Gs} as {K} {V3} {PL2}",
    "{B} {V3} {K}; {L2} {V3} {G}",
    "After {G}, {PL} {V3} {SA} {K}",
];

/// Standfirsts ("deks"): one sentence under the headline, also shown with the headline in other
/// pages' "more news" lists.
pub const DEKS: &[&str] = &[
    "{P1} says the {K} will {Vb} {Gs} across {PL}.",
    "The {B} {V} a {A} {G}; {Gs} remain {A}.",
    "{O} wants {amount} for the {K}. {L2} wants answers first.",
    "A {A} {N} and {count} {Gs} later, {PL} {V} its {K}.",
    "Why a {SA} {K} has {PL2} {Ving} its {Gs}.",
    "{num} weeks after the {G}, {Gs} in {PL} keep {Ving}.",
];
