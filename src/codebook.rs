//! The codebook of variables, as quantitative content analysis keeps one: each variable has a
//! name, the question and the coding instructions, a level of measurement, a kind (one value
//! from a list, several values from a list, a number, a note that is never scored), numbered
//! values with labels (`1 = positive`), how "not applicable" and "cannot code" are recorded,
//! and whether it applies to a story (a cluster: coded once, every member inherits it) or to a
//! page.
//!
//! In: a codebook (made in a program or read from its human-readable file, JSON beside the
//! project) and the raw answers of coders. Out: checked codebooks ([`Codebook::check`]) and
//! checked values ([`Variable::parse`]): a value outside a variable's list, a number for a
//! nominal one-value variable, a duplicate name or an unknown level is an error that names it,
//! and nothing is stored. The store keeps every version of the codebook; a value records the
//! version it was coded under.
//!
//! The tag codes of earlier projects are one several-values variable, [`CODES`]: its options
//! are the project's codes, kept where they always were (`page_codes`), with who, when and
//! provenance; it is not part of the file.

use serde::{Deserialize, Serialize};

use crate::agreement::Level;
use crate::{Error, Result};

/// The name of the variable that holds the project's tag codes.
pub const CODES: &str = "codes";

/// What kind of answer a variable takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// One value from the list.
    One,
    /// Several values from the list; each option counts as its own 0/1 variable for agreement.
    Several,
    /// A number.
    Number,
    /// Free text, never scored.
    Note,
}

impl Kind {
    /// Its name in messages: `one-value`, `several-values`, `number`, `note`.
    pub fn describe(self) -> &'static str {
        match self {
            Kind::One => "one-value",
            Kind::Several => "several-values",
            Kind::Number => "number",
            Kind::Note => "note",
        }
    }
}

/// What a variable is coded on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum UnitKind {
    /// A story: a cluster of a run, coded once; its members inherit it.
    #[default]
    Story,
    /// One page.
    Page,
}

impl UnitKind {
    /// Its name in files and the store.
    pub fn name(self) -> &'static str {
        match self {
            UnitKind::Story => "story",
            UnitKind::Page => "page",
        }
    }
}

/// One numbered value of a list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ValueLabel {
    /// Its number (what is stored and exported: `1`).
    pub code: i64,
    /// What it means (`positive`).
    pub label: String,
}

/// One variable of the codebook.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Variable {
    /// A short name, unique in the codebook (a column of the data set: letters, digits, `_`).
    pub name: String,
    /// The question the coder answers.
    #[serde(default)]
    pub question: String,
    /// How to answer it.
    #[serde(default)]
    pub instructions: String,
    /// Level of measurement (nominal, ordinal, interval, ratio).
    pub level: Level,
    /// Kind of answer.
    pub kind: Kind,
    /// Story or page.
    #[serde(default)]
    pub unit: UnitKind,
    /// The numbered values (one or several of a list).
    #[serde(default)]
    pub values: Vec<ValueLabel>,
    /// The number recorded for "not applicable" (none: not offered).
    #[serde(default)]
    pub not_applicable: Option<i64>,
    /// The number recorded for "cannot code" (none: not offered).
    #[serde(default)]
    pub cannot_code: Option<i64>,
}

/// A codebook: its variables in order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Codebook {
    /// The version in the project (0 for one not stored yet).
    #[serde(default)]
    pub version: i64,
    /// The variables.
    pub variables: Vec<Variable>,
}

/// What a coder answered, as it is stored.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// A value: numbered codes (one, or several sorted), a number, or a note's text.
    Value(String),
    /// "Not applicable".
    NotApplicable,
    /// "Cannot code".
    CannotCode,
}

impl Answer {
    /// The answer as stored: its kind (`value`, `not_applicable`, `cannot_code`) and value.
    pub fn stored(&self) -> (&'static str, Option<&str>) {
        match self {
            Answer::Value(v) => ("value", Some(v.as_str())),
            Answer::NotApplicable => ("not_applicable", None),
            Answer::CannotCode => ("cannot_code", None),
        }
    }

    /// An answer read back from its stored kind and value; none for an unknown kind.
    pub fn from_stored(kind: &str, value: Option<String>) -> Option<Answer> {
        match kind {
            "value" => Some(Answer::Value(value.unwrap_or_default())),
            "not_applicable" => Some(Answer::NotApplicable),
            "cannot_code" => Some(Answer::CannotCode),
            _ => None,
        }
    }

    /// The answer as people read it: the value, `not applicable` or `cannot code`.
    pub fn shown(&self) -> String {
        match self {
            Answer::Value(v) => v.clone(),
            Answer::NotApplicable => "not applicable".into(),
            Answer::CannotCode => "cannot code".into(),
        }
    }
}

fn bad(what: impl Into<String>) -> Error {
    Error::InvalidParameter(what.into())
}

impl Variable {
    /// The label of value `code`.
    pub fn label(&self, code: i64) -> Option<&str> {
        self.values
            .iter()
            .find(|v| v.code == code)
            .map(|v| v.label.as_str())
    }

    /// `Ok` when this variable is well made: a name of letters, digits and `_`, a list for one
    /// and several values (numbered once each, not the numbers of "not applicable" or "cannot
    /// code"), none for a number or a note, and a level that fits its kind.
    pub fn check(&self) -> Result<()> {
        let name = &self.name;
        if name.is_empty()
            || !name.chars().all(|c| c.is_alphanumeric() || c == '_')
            || name.starts_with(|c: char| c.is_ascii_digit())
        {
            return Err(bad(format!(
                "variable name {name:?}: use letters, digits and _ (not first), as a column of R, \
                 SPSS and Stata takes"
            )));
        }
        let listed = matches!(self.kind, Kind::One | Kind::Several);
        if listed && self.values.is_empty() {
            return Err(bad(format!(
                "variable {name}: a {} variable needs its numbered values",
                self.kind.describe()
            )));
        }
        if !listed && !self.values.is_empty() {
            return Err(bad(format!(
                "variable {name}: a {} variable has no list of values",
                self.kind.describe()
            )));
        }
        let mut seen = std::collections::BTreeSet::new();
        for v in &self.values {
            if !seen.insert(v.code) {
                return Err(bad(format!(
                    "variable {name}: value {} is numbered twice",
                    v.code
                )));
            }
            if v.label.trim().is_empty() {
                return Err(bad(format!(
                    "variable {name}: value {} has no label",
                    v.code
                )));
            }
        }
        for (what, code) in [
            ("not applicable", self.not_applicable),
            ("cannot code", self.cannot_code),
        ] {
            if let Some(code) = code.filter(|c| seen.contains(c)) {
                return Err(bad(format!(
                    "variable {name}: {code} is a value and also \"{what}\""
                )));
            }
        }
        if self.not_applicable.is_some() && self.not_applicable == self.cannot_code {
            return Err(bad(format!(
                "variable {name}: \"not applicable\" and \"cannot code\" have one number"
            )));
        }
        let fits = match self.kind {
            Kind::Several => self.level == Level::Nominal,
            Kind::Number => matches!(self.level, Level::Interval | Level::Ratio),
            Kind::One | Kind::Note => true,
        };
        if !fits {
            return Err(bad(format!(
                "variable {name}: a {} variable cannot be {}",
                self.kind.describe(),
                self.level
            )));
        }
        Ok(())
    }

    /// A coder's raw answer checked against this variable: a listed number (or several,
    /// comma-separated, for several values), a number, a note, or the numbers of "not
    /// applicable" / "cannot code" when they are offered.
    pub fn parse(&self, raw: &str) -> Result<Answer> {
        let raw = raw.trim();
        let name = &self.name;
        if let Ok(n) = raw.parse::<i64>() {
            if Some(n) == self.not_applicable {
                return Ok(Answer::NotApplicable);
            }
            if Some(n) == self.cannot_code {
                return Ok(Answer::CannotCode);
            }
        }
        let listed = |part: &str| -> Result<i64> {
            let n: i64 = part.trim().parse().map_err(|_| {
                bad(format!(
                    "{name}: {part:?} is not one of its numbered values ({})",
                    self.list()
                ))
            })?;
            if self.label(n).is_none() {
                return Err(bad(format!(
                    "{name}: {n} is not one of its values ({})",
                    self.list()
                )));
            }
            Ok(n)
        };
        match self.kind {
            Kind::One => Ok(Answer::Value(listed(raw)?.to_string())),
            Kind::Several => {
                let mut codes = raw
                    .split(',')
                    .filter(|p| !p.trim().is_empty())
                    .map(listed)
                    .collect::<Result<Vec<_>>>()?;
                codes.sort_unstable();
                codes.dedup();
                Ok(Answer::Value(
                    codes
                        .iter()
                        .map(i64::to_string)
                        .collect::<Vec<_>>()
                        .join(","),
                ))
            }
            Kind::Number => {
                let n: f64 = raw
                    .parse()
                    .ok()
                    .filter(|n: &f64| n.is_finite())
                    .ok_or_else(|| bad(format!("{name}: {raw:?} is not a number")))?;
                if self.level == Level::Ratio && n < 0.0 {
                    return Err(bad(format!(
                        "{name}: a ratio value cannot be negative ({n})"
                    )));
                }
                Ok(Answer::Value(n.to_string()))
            }
            Kind::Note => Ok(Answer::Value(raw.to_string())),
        }
    }

    /// `1 = positive, 2 = negative`.
    pub fn list(&self) -> String {
        self.values
            .iter()
            .map(|v| format!("{} = {}", v.code, v.label))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl Codebook {
    /// The variable named `name`.
    pub fn variable(&self, name: &str) -> Option<&Variable> {
        self.variables.iter().find(|v| v.name == name)
    }

    /// `Ok` when every variable is well made and no name is used twice (nor [`CODES`], which
    /// the project's tag codes hold).
    pub fn check(&self) -> Result<()> {
        let mut names = std::collections::BTreeSet::new();
        for v in &self.variables {
            v.check()?;
            if v.name == CODES {
                return Err(bad(format!(
                    "variable name {CODES:?} is the project's tag codes; choose another"
                )));
            }
            if !names.insert(v.name.to_lowercase()) {
                return Err(bad(format!("variable {:?} is defined twice", v.name)));
            }
        }
        Ok(())
    }

    /// The codebook as a document for a methods appendix (Markdown): each variable with its
    /// question, instructions, level, kind, unit and numbered values.
    pub fn to_markdown(&self) -> String {
        let mut out = format!("# Codebook (version {})\n", self.version);
        for v in &self.variables {
            out.push_str(&format!("\n## {}\n\n", v.name));
            if !v.question.is_empty() {
                out.push_str(&format!("**Question.** {}\n\n", v.question));
            }
            if !v.instructions.is_empty() {
                out.push_str(&format!("**Instructions.** {}\n\n", v.instructions));
            }
            let kind = match v.kind {
                Kind::One => "one value",
                Kind::Several => "several values",
                Kind::Number => "a number",
                Kind::Note => "a note (not scored)",
            };
            out.push_str(&format!(
                "Level: {}. Answer: {kind}. Coded on each {}.\n",
                v.level,
                v.unit.name()
            ));
            if !v.values.is_empty() || v.not_applicable.is_some() || v.cannot_code.is_some() {
                out.push_str("\n| value | label |\n|---:|---|\n");
                for value in &v.values {
                    out.push_str(&format!(
                        "| {} | {} |\n",
                        value.code,
                        value.label.replace('|', "\\|")
                    ));
                }
                if let Some(n) = v.not_applicable {
                    out.push_str(&format!("| {n} | not applicable |\n"));
                }
                if let Some(n) = v.cannot_code {
                    out.push_str(&format!("| {n} | cannot code |\n"));
                }
            }
        }
        out
    }

    /// The codebook written to its human-readable file (JSON, one key a line).
    pub fn to_file_text(&self) -> Result<String> {
        Ok(serde_json::to_string_pretty(self)? + "\n")
    }

    /// A codebook read from its file's text, checked (an unknown level or kind, a duplicate
    /// name, a bad list is an error naming it).
    pub fn from_file_text(text: &str) -> Result<Codebook> {
        let book: Codebook =
            serde_json::from_str(text).map_err(|e| bad(format!("not a codebook file: {e}")))?;
        book.check()?;
        Ok(book)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tone() -> Variable {
        Variable {
            name: "tone".into(),
            question: "What is the story's tone towards the government?".into(),
            instructions: "Code the headline and first paragraph.".into(),
            level: Level::Ordinal,
            kind: Kind::One,
            unit: UnitKind::Story,
            values: vec![
                ValueLabel {
                    code: 1,
                    label: "negative".into(),
                },
                ValueLabel {
                    code: 2,
                    label: "neutral".into(),
                },
                ValueLabel {
                    code: 3,
                    label: "positive".into(),
                },
            ],
            not_applicable: Some(98),
            cannot_code: Some(99),
        }
    }

    #[test]
    fn answers_are_checked_against_the_variable() {
        let t = tone();
        assert_eq!(t.parse(" 3 ").unwrap(), Answer::Value("3".into()));
        assert_eq!(t.parse("98").unwrap(), Answer::NotApplicable);
        assert_eq!(t.parse("99").unwrap(), Answer::CannotCode);
        assert!(
            t.parse("4")
                .unwrap_err()
                .to_string()
                .contains("1 = negative")
        );
        assert!(t.parse("positive").is_err());
        let mut actors = tone();
        actors.name = "actors".into();
        actors.kind = Kind::Several;
        actors.level = Level::Nominal;
        assert_eq!(actors.parse("3,1,3").unwrap(), Answer::Value("1,3".into()));
        let mut share = tone();
        share.kind = Kind::Number;
        share.level = Level::Ratio;
        share.values.clear();
        assert_eq!(share.parse("2.5").unwrap(), Answer::Value("2.5".into()));
        assert!(share.parse("-1").is_err() && share.parse("many").is_err());
    }

    #[test]
    fn a_bad_codebook_file_is_named_and_a_good_one_round_trips() {
        let book = Codebook {
            version: 0,
            variables: vec![tone()],
        };
        let text = book.to_file_text().unwrap();
        assert_eq!(Codebook::from_file_text(&text).unwrap(), book);
        let doc = book.to_markdown();
        assert!(
            doc.contains("## tone") && doc.contains("| 3 | positive |"),
            "{doc}"
        );
        assert!(doc.contains("| 98 | not applicable |"), "{doc}");
        let twice = Codebook {
            version: 0,
            variables: vec![tone(), tone()],
        };
        assert!(
            twice
                .check()
                .unwrap_err()
                .to_string()
                .contains("defined twice")
        );
        let unknown = text.replace("\"ordinal\"", "\"cardinal\"");
        assert!(Codebook::from_file_text(&unknown).is_err());
        let mut several = tone();
        several.kind = Kind::Several;
        assert!(
            several
                .check()
                .unwrap_err()
                .to_string()
                .contains("cannot be ordinal")
        );
        let mut clash = tone();
        clash.not_applicable = Some(2);
        assert!(clash.check().is_err());
    }
}
