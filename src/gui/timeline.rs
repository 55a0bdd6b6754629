//! Stories over time: a cluster's timeline (its members as marks on a time axis, one row per
//! site, the first publishers marked; a click on a mark opens that member beside the
//! representative) and, over a whole run, the clusters started per day, stacked by code.
//!
//! In: a [`ClusterSummary`]'s spread (the date each member counts at) ([`crate::dates::spread`]), or a run's
//! clusters. Out: an [`Action::Compare`] for a clicked member.

use std::collections::BTreeMap;

use egui_plot::{
    Bar, BarChart, GridMark, HoverPosition, Legend, Plot, PlotPoint, PlotPoints, Points,
};

use super::action::Action;
use crate::DocId;
use crate::dates::civil_from_days;
use crate::gui::model::workspace::{AlgoRun, ClusterSummary, Workspace};

/// Seconds in a day: the time axis is in days since 1970.
const DAY: f64 = 86_400.0;

/// `2007-01-25` for a day count, with the hour when the axis is zoomed in to hours.
fn day_label(days: f64, step: f64) -> String {
    let (y, m, d) = civil_from_days(days.floor() as i64);
    if step < 1.0 {
        let hour = ((days - days.floor()) * 24.0).round() as i64;
        format!("{y:04}-{m:02}-{d:02} {hour:02}h")
    } else {
        format!("{y:04}-{m:02}-{d:02}")
    }
}

/// A cluster's timeline. Returns the comparison a click on a mark asks for; `shown` gets each
/// mark's member and place on the screen (for tests and benchmarks to click).
pub fn cluster_timeline(
    ui: &mut egui::Ui,
    ws: &Workspace,
    cluster: &ClusterSummary,
    shown: &mut Vec<(DocId, egui::Pos2)>,
) -> Option<Action> {
    shown.clear();
    let docs = &ws.collection.docs;
    // Sites in the order they first published the story.
    let mut first_of_site: BTreeMap<String, f64> = BTreeMap::new();
    let mut marks: Vec<(DocId, String, f64)> = Vec::new();
    for (m, &d) in cluster.members.iter().enumerate() {
        let Some(p) = cluster.spread.dates[m] else {
            continue;
        };
        let site = docs[d.index()].site.shown().to_string();
        let x = if p.at.has_time {
            p.at.utc as f64 / DAY
        } else {
            p.at.local_day() as f64
        };
        let e = first_of_site.entry(site.clone()).or_insert(x);
        *e = e.min(x);
        marks.push((d, site, x));
    }
    let undated = cluster.members.len() - marks.len();
    if marks.is_empty() {
        ui.weak("No member of this cluster has a date (neither its own nor a capture time).");
        return None;
    }
    let mut sites: Vec<(String, f64)> = first_of_site.into_iter().collect();
    sites.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
    let row: BTreeMap<&str, usize> = sites
        .iter()
        .enumerate()
        .map(|(i, (s, _))| (s.as_str(), i))
        .collect();
    let names: Vec<String> = sites
        .iter()
        .map(|(s, _)| {
            if s.is_empty() {
                "(no site)".into()
            } else {
                s.clone()
            }
        })
        .collect();
    let first: Vec<DocId> = cluster
        .spread
        .first
        .iter()
        .map(|&i| cluster.members[i])
        .collect();
    let point = |(d, site, x): &(DocId, String, f64)| (*d, [*x, -(row[site.as_str()] as f64)]);
    let all: Vec<(DocId, [f64; 2])> = marks.iter().map(point).collect();
    let span = match cluster.spread.span_seconds {
        0 => "all at the first date".to_string(),
        s => format!("over {}", crate::dates::spread::human(s)),
    };
    ui.label(format!(
        "{} sites, {span}; first: {}{}",
        sites.len(),
        cluster.spread.first_at.map_or("-".into(), |a| a.iso()),
        if undated > 0 {
            format!("; {undated} members without any date are not shown")
        } else {
            String::new()
        }
    ));
    let height = (sites.len() as f32 * 18.0 + 70.0).clamp(160.0, ui.available_height().max(160.0));
    let y_names = names.clone();
    // The hover label of each mark, by series and index.
    let describe = |d: DocId, x: f64| {
        let doc = &docs[d.index()];
        format!(
            "{}\n{}  {}",
            doc.title.as_deref().unwrap_or("(untitled)"),
            doc.site.shown(),
            day_label(x, 0.5)
        )
    };
    let (first_marks, other_marks): (Vec<_>, Vec<_>) =
        all.iter().partition(|(d, _)| first.contains(d));
    let first_text: Vec<String> = first_marks
        .iter()
        .map(|(d, p)| describe(*d, p[0]))
        .collect();
    let other_text: Vec<String> = other_marks
        .iter()
        .map(|(d, p)| describe(*d, p[0]))
        .collect();
    let response = Plot::new(("timeline", cluster.id))
        .height(height)
        .legend(Legend::default())
        .allow_scroll(false)
        .x_axis_label("published (the capture where a page gives no date)")
        .y_axis_label("pages (the first publisher on top)")
        .x_axis_formatter(|mark: GridMark, _range| day_label(mark.value, mark.step_size))
        .y_axis_formatter(move |mark: GridMark, _range| {
            let i = -mark.value;
            if (i - i.round()).abs() > 1e-6 || i < 0.0 {
                return String::new();
            }
            y_names.get(i as usize).cloned().unwrap_or_default()
        })
        .y_grid_spacer(egui_plot::uniform_grid_spacer(|_| [1.0, 5.0, 10.0]))
        .label_formatter(move |pos| match pos {
            HoverPosition::NearDataPoint {
                plot_name, index, ..
            } => {
                let texts = if *plot_name == "first publisher" {
                    &first_text
                } else {
                    &other_text
                };
                texts.get(*index).cloned()
            }
            HoverPosition::Elsewhere { position } => Some(day_label(position.x, 0.5)),
        })
        .show(ui, |plot| {
            let others: Vec<[f64; 2]> = other_marks.iter().map(|(_, p)| *p).collect();
            let firsts: Vec<[f64; 2]> = first_marks.iter().map(|(_, p)| *p).collect();
            plot.points(Points::new("members", PlotPoints::from(others)).radius(3.5));
            plot.points(
                Points::new("first publisher", PlotPoints::from(firsts))
                    .radius(6.0)
                    .shape(egui_plot::MarkerShape::Diamond)
                    .color(egui::Color32::from_rgb(230, 140, 30)),
            );
        });
    shown.extend(all.iter().map(|(d, p)| {
        let at = response
            .transform
            .position_from_point(&PlotPoint::new(p[0], p[1]));
        (*d, at)
    }));
    if !response.response.clicked() {
        return None;
    }
    let pointer = response.response.interact_pointer_pos()?;
    let nearest = shown
        .iter()
        .map(|&(d, at)| (d, at.distance(pointer)))
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .filter(|(_, dist)| *dist < 12.0)?;
    let rep = cluster.members[0];
    let other = if nearest.0 == rep {
        cluster.members.get(1).copied()?
    } else {
        nearest.0
    };
    Some(Action::Compare(rep, other))
}

/// Clusters of two or more pages started per day (the day of their first publication),
/// stacked by `code_of` (a cluster's code, "uncoded" without one).
pub fn stories_over_time(
    ui: &mut egui::Ui,
    run: &AlgoRun,
    code_of: &dyn Fn(&ClusterSummary) -> String,
) {
    let mut per_code: BTreeMap<String, BTreeMap<i64, u32>> = BTreeMap::new();
    for c in run.clusters.iter().filter(|c| c.members.len() > 1) {
        let Some(at) = c.spread.first_at else {
            continue;
        };
        *per_code
            .entry(code_of(c))
            .or_default()
            .entry(at.local_day())
            .or_default() += 1;
    }
    if per_code.is_empty() {
        ui.weak("No cluster of two or more pages has a date.");
        return;
    }
    let days: usize = per_code
        .values()
        .flat_map(|m| m.keys())
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    ui.label(format!(
        "Stories started per day: clusters of 2+ pages by the day of their first publication, on {days} days, by code"
    ));
    Plot::new("stories_over_time")
        .height(ui.available_height().clamp(160.0, 320.0))
        .legend(Legend::default())
        .x_axis_formatter(|mark: GridMark, _range| day_label(mark.value, mark.step_size.max(1.0)))
        .y_axis_label("clusters started")
        .show(ui, |plot| {
            let mut below: Vec<BarChart> = Vec::new();
            for (code, per_day) in &per_code {
                let bars: Vec<Bar> = per_day
                    .iter()
                    .map(|(&day, &n)| Bar::new(day as f64 + 0.5, f64::from(n)).width(0.9))
                    .collect();
                let chart = BarChart::new(code.clone(), bars);
                let chart = if below.is_empty() {
                    chart
                } else {
                    chart.stack_on(&below.iter().collect::<Vec<_>>())
                };
                below.push(chart);
            }
            for chart in below {
                plot.bar_chart(chart);
            }
        });
}
