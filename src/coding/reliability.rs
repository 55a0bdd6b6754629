//! The project's coded values as reliability data: each coder's own values (not the final
//! ones) per variable of the codebook, at the variable's level, for Krippendorff's alpha per
//! variable ([`crate::agreement::per_variable`]).
//!
//! A one-value variable is one variable; a several-values variable counts each option as its
//! own 0/1 variable (`actors=3`), nominal, as content analysis scores it; a number is read at
//! its interval or ratio level; a note is never scored. "Not applicable" and "cannot code"
//! count as missing, as tidycomm's `test_icr` treats missing codes.

use std::collections::BTreeMap;

use crate::Result;
use crate::agreement::{BootstrapConfig, CodedValue, Level, VariableAgreement, per_variable};
use crate::codebook::{Answer, Kind};
use crate::store::Project;
use crate::store::values::{Role, Unit};

/// How a unit is named in reliability data and exports: `run 1 cluster 9` for a story, the
/// page's key for a page.
pub fn unit_name(unit: &Unit, page_keys: &BTreeMap<i64, String>) -> String {
    match unit {
        Unit::Story { run, cluster } => format!("run {run} cluster {cluster}"),
        Unit::Page(page) => page_keys
            .get(&page.0)
            .cloned()
            .unwrap_or_else(|| page.to_string()),
    }
}

/// Every page's key by its row, to name page units.
pub fn page_keys(project: &Project) -> Result<BTreeMap<i64, String>> {
    Ok(project
        .pages()?
        .into_iter()
        .map(|p| (p.id.0, p.identity.key))
        .collect())
}

/// Every coder's value as reliability data, with the level of its (sub)variable.
pub fn coded_values(project: &Project) -> Result<Vec<(Level, CodedValue)>> {
    let book = project.codebook()?;
    let keys = page_keys(project)?;
    let mut out = Vec::new();
    for v in project
        .values()?
        .into_iter()
        .filter(|v| v.role == Role::Coder)
    {
        let Some(var) = book.variable(&v.variable) else {
            continue;
        };
        let unit = unit_name(&v.unit, &keys);
        let value = match &v.answer {
            Answer::Value(x) => Some(x.clone()),
            Answer::NotApplicable | Answer::CannotCode => None,
        };
        let row = |variable: String, value: Option<String>| CodedValue {
            unit: unit.clone(),
            coder: v.coder.clone(),
            variable,
            value,
            line: 0,
        };
        match var.kind {
            Kind::Note => {}
            Kind::One | Kind::Number => out.push((var.level, row(var.name.clone(), value))),
            Kind::Several => {
                let chosen: Vec<&str> = value
                    .as_deref()
                    .map_or(Vec::new(), |x| x.split(',').collect());
                for option in &var.values {
                    let code = option.code.to_string();
                    let bit = value.as_ref().map(|_| {
                        if chosen.contains(&code.as_str()) {
                            "1"
                        } else {
                            "0"
                        }
                        .to_string()
                    });
                    out.push((
                        Level::Nominal,
                        row(format!("{}={}", var.name, option.code), bit),
                    ));
                }
            }
        }
    }
    Ok(out)
}

/// Alpha and the rest per variable of the project's codebook, each at its own level.
pub fn agreement(project: &Project, boot: &BootstrapConfig) -> Result<Vec<VariableAgreement>> {
    let values = coded_values(project)?;
    // Variables still coded by one coder only are not reported yet (nothing to agree on).
    let mut coders: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    for (_, v) in values.iter().filter(|(_, v)| v.value.is_some()) {
        *coders.entry((&v.variable, &v.unit)).or_default() += 1;
    }
    let paired: std::collections::BTreeSet<String> = coders
        .into_iter()
        .filter(|(_, n)| *n >= 2)
        .map(|((variable, _), _)| variable.to_string())
        .collect();
    let mut by_level: BTreeMap<&'static str, (Level, Vec<CodedValue>)> = BTreeMap::new();
    for (level, value) in values
        .into_iter()
        .filter(|(_, v)| paired.contains(&v.variable))
    {
        by_level
            .entry(level.name())
            .or_insert((level, Vec::new()))
            .1
            .push(value);
    }
    let mut all = Vec::new();
    for (level, values) in by_level.into_values() {
        all.extend(per_variable(&values, level, boot)?);
    }
    all.sort_by(|a, b| a.variable.cmp(&b.variable));
    Ok(all)
}

/// A unit whose coders gave a variable different answers and that has no final value yet.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Disagreement {
    /// The variable.
    pub variable: String,
    /// The unit, named as in reliability data.
    pub unit: String,
    /// The unit itself (what a final value is set on).
    #[serde(skip)]
    pub key: Unit,
    /// Each coder's answer (as stored: a number, codes, "not applicable") with its label.
    pub values: Vec<(String, String, Option<String>)>,
}

/// Every disagreement still open, by variable and unit: what the lead adjudicates
/// (`samecore code value … --final`).
pub fn disagreements(project: &Project) -> Result<Vec<Disagreement>> {
    let book = project.codebook()?;
    let keys = page_keys(project)?;
    let mut by_unit: BTreeMap<(String, Unit), Vec<crate::store::values::StoredValue>> =
        BTreeMap::new();
    for v in project.values()? {
        by_unit
            .entry((v.variable.clone(), v.unit))
            .or_default()
            .push(v);
    }
    let mut out = Vec::new();
    for ((variable, unit), values) in by_unit {
        if values.iter().any(|v| v.role == Role::Final) {
            continue;
        }
        let first = &values[0].answer;
        if values.iter().all(|v| &v.answer == first) {
            continue;
        }
        let var = book.variable(&variable);
        out.push(Disagreement {
            unit: unit_name(&unit, &keys),
            key: unit,
            values: values
                .iter()
                .map(|v| {
                    let (shown, label) = match &v.answer {
                        Answer::Value(x) => (
                            x.clone(),
                            var.map(|var| {
                                x.split(',')
                                    .filter_map(|c| c.parse().ok().and_then(|c| var.label(c)))
                                    .collect::<Vec<_>>()
                                    .join("; ")
                            })
                            .filter(|l| !l.is_empty()),
                        ),
                        Answer::NotApplicable => ("not applicable".into(), None),
                        Answer::CannotCode => ("cannot code".into(), None),
                    };
                    (v.coder.clone(), shown, label)
                })
                .collect(),
            variable,
        });
    }
    Ok(out)
}
