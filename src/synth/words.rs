//! Small fixed word tables of the generator: day and month names, and the word substitutions an
//! editor applies to a syndicated copy.
//!
//! In: nothing. Out: static tables read by [`super::prose`] and [`super::corpus`]. The large
//! vocabulary is in [`super::lexicon`], names are made by [`super::names`].

/// Day names for `{day}`.
pub const WEEKDAYS: &[&str] = &[
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];

/// Month names for `{month}` and `{date}`.
pub const MONTHS: &[&str] = &[
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// Word substitutions a syndicating copy may apply (`from`, `to`), as an editor would.
pub const SUBSTITUTIONS: &[(&str, &str)] = &[
    (" said", " stated"),
    (" percent", " per cent"),
    (" about ", " roughly "),
    (" residents", " locals"),
    (" officials", " authorities"),
    (" would ", " will "),
    (" told ", " informed "),
    (" at least ", " no fewer than "),
    (" people", " residents"),
    (" last ", " this past "),
    (" on Monday", " Monday"),
    (" on Tuesday", " Tuesday"),
    (" on Wednesday", " Wednesday"),
    (" on Thursday", " Thursday"),
    (" on Friday", " Friday"),
    (" until ", " till "),
];
