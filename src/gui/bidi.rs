//! Right-to-left scripts in their order: the Unicode bidirectional algorithm (UAX #9,
//! `unicode-bidi`) applied to what the workbench shows, in one place every view calls.
//!
//! egui 0.37 shapes each run of one font with harfrust, which draws an Arabic or Hebrew word
//! right to left and joins its letters, but it places the runs — the words, split at the
//! spaces of the primary font — left to right in the order they are written, and it left-
//! aligns every line. An Arabic sentence then reads backwards word by word, and a line that
//! mixes Arabic, English and digits is in the wrong order. Here, per paragraph:
//!
//! 1. the levels are resolved (rules P2–P3 for the paragraph's direction, W, N, I);
//! 2. the paragraph is broken into lines at its spaces by measuring its words with egui's
//!    fonts, in the order they are written (the first words on the first line);
//! 3. each line's level runs are put in visual order (L1–L2, [`ParagraphBidiInfo::visual_runs`]);
//!    inside a right-to-left run, its **shaping units** — a word of a right-to-left script,
//!    or any other single character — go from right to left, each handed to egui as written,
//!    because harfrust draws such a word right to left itself (`guess_segment_properties`
//!    takes the direction from its script); a word of a right-to-left script in a left-to-
//!    right run (Arabic-Indic digits at level 2) is handed reversed, for the same reason;
//!    brackets, angle brackets and guillemets in a right-to-left run are mirrored (rule L4,
//!    for the mirrored characters news text uses);
//! 4. a right-to-left paragraph's lines are aligned right.
//!
//! Text with no right-to-left character goes to egui untouched ([`needs_bidi`]), so Latin,
//! CJK, Cyrillic and Indic text lay out exactly as before. What is not done: the explicit
//! isolates and embeddings are resolved but a word of Arabic-Indic digits written against
//! an Arabic letter with no space between them is one egui run and drawn as harfrust orders
//! it; selecting text in a reordered line selects in visual order.

use std::borrow::Cow;
use std::collections::HashMap;
use std::ops::Range;
use std::sync::Arc;

use egui::text::LayoutJob;
use unicode_bidi::{BidiClass, ParagraphBidiInfo, bidi_class};

/// Whether `text` holds anything the algorithm would move: a right-to-left letter, a
/// character of a right-to-left script (its digits too: harfrust would draw a Persian number
/// backwards), an Arabic number, or an explicit right-to-left mark or embedding.
pub fn needs_bidi(text: &str) -> bool {
    text.chars().any(|c| {
        c > '\u{058f}'
            && (shaped_rtl(c)
                || matches!(
                    bidi_class(c),
                    BidiClass::R
                        | BidiClass::AL
                        | BidiClass::AN
                        | BidiClass::RLE
                        | BidiClass::RLO
                        | BidiClass::RLI
                ))
    })
}

/// Whether harfrust shapes `c` right to left: a character of a right-to-left script
/// (Hebrew, Arabic, Syriac, Thaana, N'Ko, Samaritan, Mandaic and their presentation forms).
///
/// Their punctuation (the Arabic comma, semicolon and question mark) counts too: only a font
/// of the script has it, so egui shapes it in one run with the word beside it.
fn shaped_rtl(c: char) -> bool {
    matches!(c,
        '\u{0590}'..='\u{08ff}' | '\u{fb1d}'..='\u{fdff}' | '\u{fe70}'..='\u{feff}'
        | '\u{10800}'..='\u{10fff}' | '\u{1e800}'..='\u{1efff}')
        && !matches!(bidi_class(c), BidiClass::WS)
}

/// The mirror of a bracket or guillemet shown in a right-to-left run.
fn mirrored(c: char) -> Option<char> {
    Some(match c {
        '(' => ')',
        ')' => '(',
        '[' => ']',
        ']' => '[',
        '{' => '}',
        '}' => '{',
        '<' => '>',
        '>' => '<',
        '«' => '»',
        '»' => '«',
        '‹' => '›',
        '›' => '‹',
        _ => return None,
    })
}

/// A piece of a line in visual order: a byte range of the paragraph's text, handed to egui
/// as written, reversed, or as one mirrored character.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Piece {
    /// Byte range in the paragraph.
    pub range: Range<usize>,
    /// Handed reversed (a right-to-left word at an even level).
    pub reversed: bool,
    /// The character shown instead (a mirrored bracket).
    pub mirror: Option<char>,
}

/// The pieces of `line` (a byte range of `info`'s paragraph) in visual order; no piece
/// crosses one of `cuts` (the byte offsets where a format changes).
pub fn visual_pieces(
    info: &ParagraphBidiInfo<'_>,
    line: Range<usize>,
    cuts: &[usize],
) -> Vec<Piece> {
    let text = info.text;
    if line.is_empty() {
        // unicode-bidi indexes the line's first level: an empty line has none.
        return Vec::new();
    }
    let (levels, runs) = info.visual_runs(line);
    let mut out = Vec::new();
    for run in runs {
        let rtl_run = levels[run.start].is_rtl();
        // The run's shaping units, in the order they are written.
        let mut units: Vec<(Range<usize>, bool)> = Vec::new();
        for (at, c) in text[run.clone()].char_indices() {
            let at = run.start + at;
            let end = at + c.len_utf8();
            let rtl = shaped_rtl(c)
                || (bidi_class(c) == BidiClass::NSM && units.last().is_some_and(|u| u.1));
            let joins = units.last().is_some_and(|(r, was_rtl)| {
                r.end == at
                    && !cuts.contains(&at)
                    && if rtl_run {
                        *was_rtl && rtl
                    } else {
                        *was_rtl == rtl
                    }
            });
            match units.last_mut() {
                Some((r, _)) if joins => r.end = end,
                _ => units.push((at..end, rtl)),
            }
        }
        if rtl_run {
            units.reverse();
        }
        for (range, rtl) in units {
            let mirror = if rtl_run {
                text[range.clone()].chars().next().and_then(mirrored)
            } else {
                None
            }
            .filter(|_| text[range.clone()].chars().count() == 1);
            out.push(Piece {
                reversed: rtl && !rtl_run,
                mirror,
                range,
            });
        }
    }
    out
}

/// A single line of `text` in visual order, for a label, a table cell or a title: unchanged
/// (borrowed) when nothing in it is right to left. Each `\n`-separated paragraph is one line.
pub fn visual(text: &str) -> Cow<'_, str> {
    if !needs_bidi(text) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    for (i, para) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let info = ParagraphBidiInfo::new(para, None);
        for p in visual_pieces(&info, 0..para.len(), &[]) {
            push_piece(&mut out, para, &p);
        }
    }
    Cow::Owned(out)
}

/// Append what `piece` shows of `text`.
fn push_piece(out: &mut String, text: &str, piece: &Piece) {
    if let Some(m) = piece.mirror {
        out.push(m);
    } else if piece.reversed {
        out.extend(text[piece.range.clone()].chars().rev());
    } else {
        out.push_str(&text[piece.range.clone()]);
    }
}

/// Whether `text`'s first paragraph is right to left (its first strong letter is).
pub fn is_rtl(text: &str) -> bool {
    needs_bidi(text) && ParagraphBidiInfo::new(text, None).paragraph_level.is_rtl()
}

/// One line of a laid-out paragraph: the job in visual order, and whether it is aligned
/// right.
#[derive(Clone, Debug)]
pub struct Line {
    pub job: LayoutJob,
    pub rtl: bool,
}

/// The widths of pieces of a job's text already measured, by byte range: kept while the
/// job is shown, so a new width breaks the lines again without measuring every word again.
pub type Widths = HashMap<(usize, usize), f32>;

/// `job` (written order, any sections) broken into lines of at most `width` points and each
/// put in visual order. Measures with `fonts`; a word wider than `width` is a line alone.
pub fn lines(
    fonts: &mut egui::epaint::text::FontsView<'_>,
    job: &LayoutJob,
    width: f32,
) -> Vec<Line> {
    lines_measured(fonts, job, width, &mut Widths::new())
}

/// [`lines`] with the widths measured before (`widths`, filled as it goes).
pub fn lines_measured(
    fonts: &mut egui::epaint::text::FontsView<'_>,
    job: &LayoutJob,
    width: f32,
    widths: &mut Widths,
) -> Vec<Line> {
    let text = job.text.as_str();
    // Each section's byte range (in order, as `LayoutJob::append` makes them); a job without
    // sections is shown in the default format.
    let default_section = [egui::text::LayoutSection {
        leading_space: 0.0,
        byte_range: egui::text::ByteIndex(0)..egui::text::ByteIndex(text.len()),
        format: Default::default(),
    }];
    let sections: &[egui::text::LayoutSection] = if job.sections.is_empty() {
        &default_section
    } else {
        &job.sections
    };
    let ranges: Vec<Range<usize>> = sections
        .iter()
        .map(|s| s.byte_range.start.0..s.byte_range.end.0)
        .collect();
    let mut bounds: Vec<usize> = ranges.iter().flat_map(|r| [r.start, r.end]).collect();
    bounds.sort_unstable();
    bounds.dedup();
    // The section a byte is in (text no section covers takes the one before it).
    let section_at = |at: usize| {
        ranges
            .partition_point(|r| r.end <= at)
            .min(ranges.len() - 1)
    };
    let mut measure = |range: Range<usize>| -> f32 {
        // Per section piece of the range, so each is measured in its own format.
        let mut w = 0.0;
        let mut at = range.start;
        while at < range.end {
            let s = section_at(at);
            let end = ranges[s].end.min(range.end);
            // Past the last section, or in a gap: the rest in this section's format.
            let end = if end > at { end } else { range.end };
            let piece = &text[at..end];
            w += *widths.entry((at, end)).or_insert_with(|| {
                let mut one = LayoutJob::default();
                one.append(piece, 0.0, sections[s].format.clone());
                fonts.layout_job(one).size().x
            });
            if at == ranges[s].start {
                w += sections[s].leading_space;
            }
            at = end;
        }
        w
    };
    let mut out = Vec::new();
    let mut start = 0;
    for para in text.split('\n') {
        let para_range = start..start + para.len();
        start = para_range.end + 1;
        let info = ParagraphBidiInfo::new(para, None);
        let rtl = info.paragraph_level.is_rtl();
        // Break opportunities: after each run of spaces.
        let mut words: Vec<Range<usize>> = Vec::new();
        let mut prev_space = false;
        for (i, c) in para.char_indices() {
            if !c.is_whitespace() && prev_space {
                words.push(words.last().map_or(0, |w: &Range<usize>| w.end)..i);
            }
            prev_space = c.is_whitespace();
        }
        words.push(words.last().map_or(0, |w| w.end)..para.len());
        let abs = |r: &Range<usize>| para_range.start + r.start..para_range.start + r.end;
        let mut lines_of_para: Vec<Range<usize>> = Vec::new();
        let mut line: Option<Range<usize>> = None;
        let mut line_width = 0.0;
        for w in words {
            let trimmed = w.start..w.start + para[w.clone()].trim_end().len();
            let ww = measure(abs(&trimmed));
            let gap = line
                .as_ref()
                .map_or(0.0, |l| measure(abs(&(l.end..w.start))));
            match &mut line {
                Some(l) if line_width + gap + ww <= width => {
                    line_width += gap + ww;
                    l.end = trimmed.end;
                }
                _ => {
                    if let Some(l) = line.take() {
                        lines_of_para.push(l);
                    }
                    line = Some(trimmed);
                    line_width = ww;
                }
            }
        }
        lines_of_para.extend(line);
        for l in lines_of_para {
            // The format changes inside the line, relative to the paragraph.
            let (from, to) = (para_range.start + l.start, para_range.start + l.end);
            let inside = &bounds
                [bounds.partition_point(|&b| b <= from)..bounds.partition_point(|&b| b < to)];
            let cuts: Vec<usize> = inside.iter().map(|b| b - para_range.start).collect();
            let mut visual = LayoutJob::default();
            for p in visual_pieces(&info, l.clone(), &cuts) {
                let abs_start = para_range.start + p.range.start;
                let at = section_at(abs_start);
                let s = &sections[at];
                let leading = if ranges[at].start == abs_start {
                    s.leading_space
                } else {
                    0.0
                };
                let mut piece = String::new();
                push_piece(&mut piece, para, &p);
                visual.append(&piece, leading, s.format.clone());
            }
            if visual.text.is_empty() {
                // An empty line keeps its height.
                visual.append(" ", 0.0, sections[0].format.clone());
            }
            visual.wrap.max_width = f32::INFINITY;
            out.push(Line { job: visual, rtl });
        }
    }
    out
}

/// What [`show`] keeps for a place in the window: the job it showed (by hash), the widths it
/// measured, and the lines at the last width. One per place, replaced when the job changes,
/// so neither resizing nor paging through pairs piles up copies.
#[derive(Default)]
struct Kept {
    hash: u64,
    width: u32,
    widths: Widths,
    lines: Arc<Vec<Line>>,
}

/// Show `job` wrapped to the available width: as egui lays it out when nothing in it is
/// right to left, else line by line in visual order, right-to-left paragraphs aligned right.
pub fn show(ui: &mut egui::Ui, job: &LayoutJob) {
    if !needs_bidi(&job.text) {
        let mut job = job.clone();
        job.wrap.max_width = ui.available_width();
        ui.label(job);
        return;
    }
    show_kept(ui, job_hash(job), || job.clone());
}

/// [`show`] of the job `make` builds, made only when `hash` is not the job shown here before.
fn show_kept(ui: &mut egui::Ui, hash: u64, make: impl FnOnce() -> LayoutJob) {
    let width = ui.available_width();
    let id = ui.scope_id().with("bidi-lines");
    let kept: Arc<std::sync::Mutex<Kept>> = ui.ctx().data_mut(|d| {
        d.get_temp_mut_or_default::<Arc<std::sync::Mutex<Kept>>>(id)
            .clone()
    });
    let laid = {
        let mut k = kept.lock().unwrap_or_else(|e| e.into_inner());
        let other_job = k.hash != hash || k.lines.is_empty();
        if other_job {
            k.hash = hash;
            k.widths.clear();
        }
        // Another job, or the same at another width (its words measured already).
        if other_job || k.width != width.to_bits() {
            let job = make();
            k.width = width.to_bits();
            let Kept { widths, .. } = &mut *k;
            let laid = ui
                .ctx()
                .fonts_mut(|f| lines_measured(f, &job, width, widths));
            k.lines = Arc::new(laid);
        }
        k.lines.clone()
    };
    ui.scope(|ui| {
        ui.spacing_mut().item_spacing.y = 0.0;
        for line in laid.iter() {
            let label = egui::Label::new(line.job.clone()).wrap_mode(egui::TextWrapMode::Extend);
            if line.rtl {
                ui.with_layout(egui::Layout::right_to_left(egui::Align::Min), |ui| {
                    ui.add(label);
                });
            } else {
                ui.add(label);
            }
        }
    });
}

/// Plain text in the body font, wrapped, right-to-left paragraphs in their order
/// ([`show`]); a label as before when nothing in it is right to left.
pub fn paragraphs(ui: &mut egui::Ui, text: &str) {
    let font = egui::TextStyle::Body.resolve(ui.style());
    let colour = ui.visuals().text_color();
    text_block(ui, text, font, colour);
}

/// `text` wrapped in `font` and `colour` (a heading, a strong title): as a label when nothing
/// in it is right to left, else through [`show`], so a long right-to-left title wraps with
/// its first words on its first line.
pub fn text_block(ui: &mut egui::Ui, text: &str, font: egui::FontId, colour: egui::Color32) {
    if !needs_bidi(text) {
        ui.label(egui::RichText::new(text).font(font).color(colour));
        return;
    }
    let hash = {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        (text, font.size.to_bits(), &font.family, colour).hash(&mut h);
        h.finish()
    };
    show_kept(ui, hash, || {
        LayoutJob::single_section(text.to_owned(), egui::TextFormat::simple(font, colour))
    });
}

/// A hash of what a job shows (its text and sections).
fn job_hash(job: &LayoutJob) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    job.hash(&mut h);
    h.finish()
}

/// A label in visual order (a title, a list or table cell). A right-to-left one too wide
/// for the space it has is cut at its written end, as a right-to-left reader expects (egui
/// would cut the visual end: the headline's first words); its whole text is on hover.
pub fn label(ui: &mut egui::Ui, text: &str) -> egui::Response {
    cell(ui, text, true)
}

/// [`label`] for a cell that gives its own hover text: egui's tooltip of a cut text is left
/// off, so the two do not stack.
pub fn label_with_own_hover(ui: &mut egui::Ui, text: &str) -> egui::Response {
    cell(ui, text, false)
}

/// A cell's text; `elided_tip`: whether a cut text shows whole on hover.
fn cell(ui: &mut egui::Ui, text: &str, elided_tip: bool) -> egui::Response {
    let plain = |ui: &mut egui::Ui, shown: String| {
        ui.add(egui::Label::new(shown).show_tooltip_when_elided(elided_tip))
    };
    if !needs_bidi(text) {
        return plain(ui, text.to_owned());
    }
    if !is_rtl(text) {
        return plain(ui, visual(text).into_owned());
    }
    let width = ui.available_width();
    let font = egui::TextStyle::Body.resolve(ui.style());
    let colour = ui.visuals().text_color();
    let fits = |ui: &egui::Ui, s: &str| {
        ui.ctx()
            .fonts_mut(|f| f.layout_no_wrap(visual(s).into_owned(), font.clone(), colour))
            .size()
            .x
            <= width
    };
    if fits(ui, text) {
        return plain(ui, visual(text).into_owned());
    }
    // The longest written prefix, cut at a space, that fits with its ellipsis.
    let cuts: Vec<usize> = text
        .char_indices()
        .filter(|(_, c)| c.is_whitespace())
        .map(|(i, _)| i)
        .collect();
    let (mut lo, mut hi) = (0usize, cuts.len());
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if fits(ui, &format!("{}…", &text[..cuts[mid - 1]])) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    let shown = match lo {
        0 => visual(text).into_owned(),
        n => visual(&format!("{}…", &text[..cuts[n - 1]])).into_owned(),
    };
    let r = plain(ui, shown);
    if elided_tip {
        r.on_hover_ui(|ui| paragraphs(ui, text))
    } else {
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What [`visual`] shows, with each right-to-left word written back the way harfrust
    /// draws it (reversed) — the line as it appears on screen, read left to right.
    fn on_screen(text: &str) -> String {
        let shown = visual(text);
        let mut out = String::new();
        let mut word = String::new();
        let flush = |word: &mut String, out: &mut String| {
            if word.chars().any(shaped_rtl) {
                out.extend(word.chars().rev());
            } else {
                out.push_str(word);
            }
            word.clear();
        };
        for c in shown.chars() {
            if shaped_rtl(c) || (!word.is_empty() && bidi_class(c) == BidiClass::NSM) {
                word.push(c);
            } else {
                flush(&mut word, &mut out);
                out.push(c);
            }
        }
        flush(&mut word, &mut out);
        out
    }

    #[test]
    fn text_without_right_to_left_letters_is_untouched() {
        for t in [
            "Plain English, 2015.",
            "中文新闻",
            "Новости (дня)",
            "आज की ख़बर",
        ] {
            assert!(matches!(visual(t), Cow::Borrowed(_)), "{t}");
            assert!(!needs_bidi(t));
        }
    }

    #[test]
    fn an_arabic_line_reads_right_to_left_as_the_algorithm_orders_it() {
        // The algorithm's own visual order (unicode-bidi's reorder_line) is what is on
        // screen once harfrust has drawn each word.
        for t in [
            "أخبار اليوم في القاهرة",
            "חדשות היום בירושלים",
            "قال الرئيس إن 45 شخصا قتلوا في عام 2015 حسب BBC News اليوم",
            "The minister said «مرحبا بكم» to 300 people (in Cairo).",
            "الحكومة (الجديدة) أعلنت",
            // Guillemets, two bytes each, mirrored like brackets.
            "قال الوزير «مرحبا بكم» للصحفيين",
        ] {
            let info = ParagraphBidiInfo::new(t, None);
            let reference = info.reorder_line(0..t.len()).into_owned();
            // unicode-bidi leaves brackets unmirrored (L4 is the renderer's).
            let reference: String = if info.paragraph_level.is_rtl() {
                mirror_in_rtl_runs(t, &reference)
            } else {
                reference
            };
            assert_eq!(on_screen(t), reference, "{t}");
        }
    }

    /// The reference with the brackets that sit in right-to-left runs mirrored.
    fn mirror_in_rtl_runs(text: &str, reference: &str) -> String {
        let info = ParagraphBidiInfo::new(text, None);
        let levels = info.reordered_levels_per_char(0..text.len());
        ParagraphBidiInfo::reorder_visual(&levels)
            .iter()
            .zip(reference.chars())
            .map(|(&logical, c)| {
                if levels[logical].is_rtl() {
                    mirrored(c).unwrap_or(c)
                } else {
                    c
                }
            })
            .collect()
    }

    #[test]
    fn empty_lines_and_paragraphs_are_kept() {
        assert_eq!(visual("שלום\n\nעולם\n"), "שלום\n\nעולם\n");
        assert_eq!(visual(""), "");
        let info = ParagraphBidiInfo::new("", None);
        assert!(visual_pieces(&info, 0..0, &[]).is_empty());
    }

    #[test]
    fn a_right_to_left_paragraph_is_told_by_its_first_letter() {
        assert!(is_rtl("أخبار BBC"));
        assert!(is_rtl("שלום world"));
        assert!(!is_rtl("BBC أخبار"));
        assert!(!is_rtl("no letters of those"));
    }
}
