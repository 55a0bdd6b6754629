//! The query language researchers write, parsed into a tree with every mistake pointed at.
//!
//! ```text
//! refugees Merkel            both words (AND is the default between terms)
//! "border closure"           a phrase: the words in order
//! Merkel OR Seehofer         either;  NOT, or a leading -, leaves out
//! (a OR b) AND c             parentheses group
//! flücht*                    a prefix
//! site:spiegel.de  lang:de   a page's site, its language
//! title:Merkel  url:politik  a word (or "phrase", prefix*) of the title or of the URL
//! code:relevant              stories coded so (a code of the project)
//! frame:economic  tone:2     stories whose variable has that value (number or label)
//! published:[2015-09-01 TO 2015-12-31]   publication days, both ends included
//! captured:[2015-09 TO *]    capture days; a year, a month or a day; * leaves an end open
//! published:2015-09          one day, month or year
//! ```
//!
//! The keywords `AND`, `OR`, `NOT` are upper case (lower-case `and` is a word). A word with a
//! colon whose part before it is all digits (`10:30`) is text, not a field.

use crate::calendar::{days_from_civil, valid_ymd};

/// A mistake in a query: what and where (a byte offset into the query).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryError {
    /// What is wrong.
    pub message: String,
    /// Byte offset of the mistake in the query.
    pub at: usize,
    /// The query.
    pub query: String,
}

impl std::fmt::Display for QueryError {
    /// The message, the query and a caret under the mistake.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let column = self.query[..self.at.min(self.query.len())].chars().count();
        write!(
            f,
            "{} (at character {})\n  {}\n  {}^",
            self.message,
            column + 1,
            self.query,
            " ".repeat(column)
        )
    }
}

impl std::error::Error for QueryError {}

/// Which text a word is sought in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextField {
    /// The page's core (or, in whole-text mode, all its visible text).
    Body,
    /// Its `<title>`.
    Title,
    /// Its URL's words.
    Url,
}

/// Which date a range is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DateField {
    /// The publication date.
    Published,
    /// The capture date.
    Captured,
}

/// A parsed query.
#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    /// A word or a phrase (its text as written) in a text field.
    Text {
        /// The field.
        field: TextField,
        /// The words.
        text: String,
        /// Whether it was quoted.
        phrase: bool,
    },
    /// Words starting so (normalised, lowercased).
    Prefix {
        /// The field.
        field: TextField,
        /// The prefix.
        prefix: String,
    },
    /// A page's site.
    Site(String),
    /// A page's language code.
    Lang(String),
    /// Stories coded with a code (its name as written).
    Code(String),
    /// Stories whose variable has a value.
    Variable {
        /// The variable's name.
        name: String,
        /// The value (a number or a label) as written.
        value: String,
    },
    /// Days in a range (days since 1970-01-01, both included; `None`: open).
    Days {
        /// The date.
        field: DateField,
        /// First day.
        from: Option<i64>,
        /// Last day.
        to: Option<i64>,
    },
    /// All of them.
    And(Vec<Node>),
    /// Any of them.
    Or(Vec<Node>),
    /// Not this.
    Not(Box<Node>),
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Open,
    Close,
    And,
    Or,
    Not,
    /// A leading `-`.
    Minus,
    /// A bare word (maybe `field:value`).
    Word(String),
    /// A quoted phrase, maybe after `field:`.
    Phrase(Option<String>, String),
    /// `field:[a TO b]`.
    Range(String, String, String, usize),
}

/// Parse `query`. `variables` are the codebook's variable names (fields besides the built-in
/// ones).
pub fn parse(query: &str, variables: &[String]) -> Result<Node, QueryError> {
    let err = |message: String, at: usize| QueryError {
        message,
        at,
        query: query.to_string(),
    };
    let toks = lex(query).map_err(|(m, at)| err(m, at))?;
    if toks.is_empty() {
        return Err(err("the query is empty".into(), 0));
    }
    let mut p = Parser {
        toks: &toks,
        i: 0,
        variables,
        end: query.len(),
    };
    let node = p.or().map_err(|(m, at)| err(m, at))?;
    if let Some((t, at)) = p.toks.get(p.i) {
        let what = match t {
            Tok::Close => "a ')' without its '('".to_string(),
            _ => "an unexpected term".to_string(),
        };
        return Err(err(what, *at));
    }
    Ok(node)
}

type Fail = (String, usize);

fn lex(q: &str) -> Result<Vec<(Tok, usize)>, Fail> {
    let mut out = Vec::new();
    let b: Vec<(usize, char)> = q.char_indices().collect();
    let mut k = 0;
    let at = |k: usize| b.get(k).map_or(q.len(), |x| x.0);
    while k < b.len() {
        let (pos, c) = b[k];
        if c.is_whitespace() {
            k += 1;
            continue;
        }
        match c {
            '(' => {
                out.push((Tok::Open, pos));
                k += 1;
            }
            ')' => {
                out.push((Tok::Close, pos));
                k += 1;
            }
            '"' => {
                let (text, next) = phrase(&b, k, q)?;
                out.push((Tok::Phrase(None, text), pos));
                k = next;
            }
            '-' if b.get(k + 1).is_some_and(|(_, n)| !n.is_whitespace()) => {
                out.push((Tok::Minus, pos));
                k += 1;
            }
            _ => {
                while k < b.len() && !b[k].1.is_whitespace() && !matches!(b[k].1, '(' | ')' | '"') {
                    if b[k].1 == ':' && b.get(k + 1).is_some_and(|(_, n)| *n == '[') {
                        break;
                    }
                    k += 1;
                }
                let word = &q[pos..at(k)];
                let field_end = word.strip_suffix(':').map(str::to_string);
                // `field:"phrase"` and `field:[a TO b]`.
                match (b.get(k).map(|x| x.1), &field_end) {
                    (Some('"'), Some(field)) => {
                        let (text, next) = phrase(&b, k, q)?;
                        out.push((Tok::Phrase(Some(field.clone()), text), pos));
                        k = next;
                    }
                    (Some(':'), None) if b.get(k + 1).is_some_and(|x| x.1 == '[') => {
                        let open = at(k + 1);
                        let mut j = k + 2;
                        while j < b.len() && b[j].1 != ']' {
                            j += 1;
                        }
                        if j >= b.len() {
                            return Err(("an unclosed '[': a range ends with ']'".into(), open));
                        }
                        let inner = &q[at(k + 2)..at(j)];
                        let parts: Vec<&str> = inner.split_whitespace().collect();
                        let (lo, hi) = match parts.as_slice() {
                            [lo, "TO", hi] => (lo.to_string(), hi.to_string()),
                            _ => {
                                return Err((
                                    "a range is written [FIRST TO LAST] (TO in capitals; * for an open end)"
                                        .into(),
                                    open,
                                ));
                            }
                        };
                        out.push((Tok::Range(word.to_string(), lo, hi, open + 1), pos));
                        k = j + 1;
                    }
                    _ => {
                        let tok = match word {
                            "AND" | "&&" => Tok::And,
                            "OR" | "||" => Tok::Or,
                            "NOT" => Tok::Not,
                            _ => Tok::Word(word.to_string()),
                        };
                        out.push((tok, pos));
                    }
                }
            }
        }
    }
    Ok(out)
}

/// The phrase opening at `b[k]` (a `"`): its text and the index after its closing quote.
fn phrase(b: &[(usize, char)], k: usize, q: &str) -> Result<(String, usize), Fail> {
    let open = b[k].0;
    let mut j = k + 1;
    while j < b.len() && b[j].1 != '"' {
        j += 1;
    }
    if j >= b.len() {
        return Err((
            "an unclosed phrase: a '\"' without its closing '\"'".into(),
            open,
        ));
    }
    Ok((q[open + 1..b[j].0].to_string(), j + 1))
}

struct Parser<'a> {
    toks: &'a [(Tok, usize)],
    i: usize,
    variables: &'a [String],
    end: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.i).map(|t| &t.0)
    }

    fn here(&self) -> usize {
        self.toks.get(self.i).map_or(self.end, |t| t.1)
    }

    fn or(&mut self) -> Result<Node, Fail> {
        let mut parts = vec![self.and()?];
        while self.peek() == Some(&Tok::Or) {
            self.i += 1;
            parts.push(self.and()?);
        }
        Ok(if parts.len() == 1 {
            parts.pop().expect("one part")
        } else {
            Node::Or(parts)
        })
    }

    fn and(&mut self) -> Result<Node, Fail> {
        let mut parts = vec![self.unary()?];
        loop {
            match self.peek() {
                Some(Tok::And) => {
                    self.i += 1;
                    parts.push(self.unary()?);
                }
                None | Some(Tok::Or) | Some(Tok::Close) => break,
                Some(_) => parts.push(self.unary()?),
            }
        }
        Ok(if parts.len() == 1 {
            parts.pop().expect("one part")
        } else {
            Node::And(parts)
        })
    }

    fn unary(&mut self) -> Result<Node, Fail> {
        match self.peek() {
            Some(Tok::Not) | Some(Tok::Minus) => {
                self.i += 1;
                Ok(Node::Not(Box::new(self.unary()?)))
            }
            _ => self.atom(),
        }
    }

    fn atom(&mut self) -> Result<Node, Fail> {
        let at = self.here();
        let Some((tok, _)) = self.toks.get(self.i) else {
            return Err(("the query ends where a term was expected".into(), at));
        };
        self.i += 1;
        match tok {
            Tok::Open => {
                let inner = self.or()?;
                if self.peek() != Some(&Tok::Close) {
                    return Err(("an unclosed '(': it needs its ')'".into(), at));
                }
                self.i += 1;
                Ok(inner)
            }
            Tok::Close => Err(("a ')' without its '('".into(), at)),
            Tok::And | Tok::Or => Err((
                "AND and OR go between two terms (write and/or in lower case to search them)"
                    .into(),
                at,
            )),
            Tok::Not | Tok::Minus => unreachable!("handled by unary"),
            Tok::Phrase(None, text) => Ok(text_node(TextField::Body, text, true)),
            Tok::Phrase(Some(field), text) => match text_field(field) {
                Some(f) => Ok(text_node(f, text, true)),
                None => self.field_value(field, text, at),
            },
            Tok::Range(field, lo, hi, range_at) => {
                let field = match field.as_str() {
                    "published" => DateField::Published,
                    "captured" => DateField::Captured,
                    other => {
                        return Err((
                            format!("a range goes on published: or captured:, not on {other}:"),
                            at,
                        ));
                    }
                };
                let from = day(lo, false).map_err(|m| (m, *range_at))?;
                let to = day(hi, true).map_err(|m| (m, *range_at))?;
                if let (Some(a), Some(b)) = (from, to)
                    && a > b
                {
                    return Err((
                        format!("the range's first day {lo} is after its last {hi}"),
                        *range_at,
                    ));
                }
                Ok(Node::Days { field, from, to })
            }
            Tok::Word(word) => {
                if let Some((field, value)) = word.split_once(':')
                    && !field.is_empty()
                    && !field.bytes().all(|c| c.is_ascii_digit())
                {
                    if value.is_empty() {
                        return Err((format!("{field}: needs a value after the colon"), at));
                    }
                    return match text_field(field) {
                        Some(f) => Ok(word_node(f, value)),
                        None => self.field_value(field, value, at),
                    };
                }
                Ok(word_node(TextField::Body, word))
            }
        }
    }

    /// `field:value` for the fields that are not text.
    fn field_value(&self, field: &str, value: &str, at: usize) -> Result<Node, Fail> {
        Ok(match field {
            "site" => Node::Site(value.trim().to_lowercase()),
            "lang" => Node::Lang(value.trim().to_lowercase()),
            "code" => Node::Code(value.trim().to_string()),
            "published" | "captured" => {
                let f = if field == "published" {
                    DateField::Published
                } else {
                    DateField::Captured
                };
                let from = day(value, false).map_err(|m| (m, at + field.len() + 1))?;
                let to = day(value, true).map_err(|m| (m, at + field.len() + 1))?;
                if from.is_none() {
                    return Err((
                        format!("{field}:* says nothing: give a day, month or year"),
                        at,
                    ));
                }
                Node::Days { field: f, from, to }
            }
            _ => {
                if let Some(name) = self
                    .variables
                    .iter()
                    .find(|v| v.eq_ignore_ascii_case(field))
                {
                    return Ok(Node::Variable {
                        name: name.clone(),
                        value: value.trim().to_string(),
                    });
                }
                let mut known: Vec<String> = [
                    "site",
                    "lang",
                    "title",
                    "url",
                    "code",
                    "published",
                    "captured",
                ]
                .iter()
                .map(|s| s.to_string())
                .collect();
                known.extend(self.variables.iter().cloned());
                return Err((
                    format!("unknown field {field}: (fields: {})", known.join(", ")),
                    at,
                ));
            }
        })
    }
}

fn text_field(name: &str) -> Option<TextField> {
    match name {
        "title" => Some(TextField::Title),
        "url" => Some(TextField::Url),
        "text" | "core" => Some(TextField::Body),
        _ => None,
    }
}

fn text_node(field: TextField, text: &str, phrase: bool) -> Node {
    Node::Text {
        field,
        text: text.to_string(),
        phrase,
    }
}

fn word_node(field: TextField, word: &str) -> Node {
    match word.strip_suffix('*') {
        Some(prefix) if !prefix.is_empty() && !prefix.ends_with('*') => Node::Prefix {
            field,
            prefix: prefix.to_lowercase(),
        },
        _ => text_node(field, word, false),
    }
}

/// A day, month or year (`2015-09-01`, `2015-09`, `2015`) as days since 1970: its first day,
/// or its last when `last`; `*` is open (`None`).
fn day(text: &str, last: bool) -> Result<Option<i64>, String> {
    if text == "*" {
        return Ok(None);
    }
    let bad = || format!("{text:?} is not a date: write 2015-09-01, 2015-09 or 2015 (or *)");
    let parts: Vec<&str> = text.split('-').collect();
    let num = |s: &str, n: usize| -> Result<u32, String> {
        if s.len() == n && s.bytes().all(|c| c.is_ascii_digit()) {
            s.parse().map_err(|_| bad())
        } else {
            Err(bad())
        }
    };
    let (y, m, d) = match parts.as_slice() {
        [y] => {
            let y = num(y, 4)? as i32;
            if last { (y, 12, 31) } else { (y, 1, 1) }
        }
        [y, m] => {
            let (y, m) = (num(y, 4)? as i32, num(m, 2)?);
            if !(1..=12).contains(&m) {
                return Err(bad());
            }
            let d = if last {
                (28..=31).rev().find(|&d| valid_ymd(y, m, d)).unwrap_or(28)
            } else {
                1
            };
            (y, m, d)
        }
        [y, m, d] => (num(y, 4)? as i32, num(m, 2)?, num(d, 2)?),
        _ => return Err(bad()),
    };
    if !valid_ymd(y, m, d) {
        return Err(bad());
    }
    Ok(Some(days_from_civil(y, m, d)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(q: &str) -> Node {
        parse(q, &["frame".to_string()]).unwrap()
    }

    fn e(q: &str) -> QueryError {
        parse(q, &["frame".to_string()]).unwrap_err()
    }

    #[test]
    fn words_default_to_and_and_operators_nest() {
        let n = p("a (b OR \"c d\") -e NOT f*");
        let Node::And(parts) = n else { panic!() };
        assert_eq!(parts.len(), 4);
        assert!(matches!(&parts[1], Node::Or(v) if v.len() == 2));
        assert!(
            matches!(&parts[1], Node::Or(v) if matches!(&v[1], Node::Text { phrase: true, text, .. } if text == "c d"))
        );
        assert!(matches!(&parts[2], Node::Not(_)));
        assert!(
            matches!(&parts[3], Node::Not(b) if matches!(**b, Node::Prefix { ref prefix, .. } if prefix == "f"))
        );
    }

    #[test]
    fn fields_and_ranges() {
        assert_eq!(p("site:Spiegel.de"), Node::Site("spiegel.de".into()));
        assert_eq!(
            p("published:[2015-09-01 TO 2015-12-31]"),
            Node::Days {
                field: DateField::Published,
                from: Some(days_from_civil(2015, 9, 1)),
                to: Some(days_from_civil(2015, 12, 31)),
            }
        );
        assert_eq!(
            p("captured:2016-02"),
            Node::Days {
                field: DateField::Captured,
                from: Some(days_from_civil(2016, 2, 1)),
                to: Some(days_from_civil(2016, 2, 29)),
            }
        );
        assert!(matches!(
            p("title:\"a b\""),
            Node::Text {
                field: TextField::Title,
                phrase: true,
                ..
            }
        ));
        assert!(
            matches!(p("Frame:economy"), Node::Variable { ref name, ref value } if name == "frame" && value == "economy")
        );
        assert!(matches!(p("10:30"), Node::Text { .. }));
    }

    #[test]
    fn mistakes_are_pointed_at() {
        let m = e("refugees \"border closure");
        assert_eq!(m.at, 9);
        assert!(m.message.contains("unclosed phrase"));
        assert!(m.to_string().contains("\n           ^"), "{m}");
        let m = e("(a OR b");
        assert_eq!((m.at, m.message.contains("unclosed '('")), (0, true));
        assert!(e("a)").message.contains("without its '('"));
        let m = e("a bogus:x");
        assert_eq!(m.at, 2);
        assert!(m.message.contains("unknown field bogus:"), "{}", m.message);
        let m = e("published:[2015-13-01 TO 2015-12-31]");
        assert!(m.message.contains("not a date"), "{}", m.message);
        assert!(
            e("published:[2015-09-01 2015-12-31]")
                .message
                .contains("TO")
        );
        assert!(
            e("published:[2015-09-01 TO 2015")
                .message
                .contains("unclosed '['")
        );
        assert!(
            e("published:[2015-12-01 TO 2015-09-01]")
                .message
                .contains("after")
        );
        assert!(e("a OR").message.contains("ends"));
        assert!(e("OR a").message.contains("between"));
        assert!(e("  ").message.contains("empty"));
        assert!(e("published:yesterday").message.contains("not a date"));
    }
}
