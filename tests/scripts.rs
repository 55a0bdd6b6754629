//! The workbench shows every script: titles and page text in CJK, Cyrillic, Greek,
//! Arabic, Hebrew, Devanagari and Thai get glyphs. egui's own fonts cover Latin, Cyrillic and
//! Greek; the rest come from the system's fonts, found on demand by the font provider eframe
//! installs with its `system_fonts` feature (`egui_system_font_provider`, fontique over
//! fontconfig): nothing is bundled, so the binary grows by the provider's code only. The test
//! installs the same provider in a kittest harness, lays the texts out and asks egui which
//! glyphs it has. It needs a machine with fonts for these scripts (Debian: fonts-noto-core,
//! fonts-noto-cjk, which `.ci/run` installs); elsewhere it says what is missing and skips,
//! unless `SAMECORE_REQUIRE_FONTS=1`. Right-to-left text is laid out through the workbench's bidi
//! layer (`samecore::gui::bidi`) and checked against the bidi algorithm's order and against
//! Pango's (`pango-view`, Debian: pango1.0-tools, which `.ci/run` installs too).
#![cfg(feature = "gui")]

use std::sync::Arc;

use egui::FontId;
use egui_kittest::Harness;

/// One sample per script: a word of news in it.
const SCRIPTS: &[(&str, &str)] = &[
    ("Han (Chinese)", "中文新闻报道"),
    ("Kana (Japanese)", "ニュースのひらがな"),
    ("Hangul (Korean)", "한국어 뉴스"),
    ("Cyrillic", "Новости дня"),
    ("Greek", "Ειδήσεις"),
    ("Arabic", "أخبار اليوم"),
    ("Hebrew", "חדשות היום"),
    ("Devanagari", "आज की ख़बर"),
    ("Bengali", "আজকের খবর"),
    ("Tamil", "இன்றைய செய்திகள்"),
    ("Thai", "ข่าววันนี้"),
];

#[test]
fn every_script_gets_glyphs() {
    let mut h = Harness::builder()
        .with_size(egui::vec2(1024.0, 700.0))
        // Asked below, per script, instead of panicking at the first one missing.
        .allow_missing_glyphs()
        .with_context_setup(|ctx| {
            ctx.add_font_provider(Arc::new(
                egui_system_font_provider::SystemFontProvider::new(),
            ));
        })
        .build_ui(|ui| {
            for (_, text) in SCRIPTS {
                ui.label(*text);
                ui.monospace(*text);
            }
        });
    h.run();
    let missing: Vec<String> = SCRIPTS
        .iter()
        .filter(|(_, text)| {
            let text: String = text.chars().filter(|c| !c.is_whitespace()).collect();
            !h.ctx.fonts_mut(|f| {
                f.has_glyphs(&FontId::proportional(14.0), &text)
                    && f.has_glyphs(&FontId::monospace(14.0), &text)
            })
        })
        .map(|(script, _)| script.to_string())
        .collect();
    if missing.is_empty() {
        return;
    }
    let message = format!(
        "no glyphs for {} (install fonts-noto-core and fonts-noto-cjk)",
        missing.join(", ")
    );
    assert!(
        std::env::var_os("SAMECORE_REQUIRE_FONTS").is_none(),
        "{message}"
    );
    eprintln!("SKIPPED: {message}");
}

/// A harness with the system's fonts loaded for Arabic and Hebrew, or `None` (after saying
/// so) where the machine has none.
fn harness_with_rtl_fonts() -> Option<Harness<'static>> {
    let mut h = Harness::builder()
        .with_size(egui::vec2(1024.0, 700.0))
        .allow_missing_glyphs()
        .with_context_setup(|ctx| {
            ctx.add_font_provider(Arc::new(
                egui_system_font_provider::SystemFontProvider::new(),
            ));
        })
        .build_ui(|ui| {
            ui.label("أخبار اليوم חדשות");
        });
    h.run();
    let ok = h
        .ctx
        .fonts_mut(|f| f.has_glyphs(&FontId::proportional(14.0), "أخبارחדשות"));
    if !ok {
        let message = "no Arabic or Hebrew glyphs (install fonts-noto-core)";
        assert!(
            std::env::var_os("SAMECORE_REQUIRE_FONTS").is_none(),
            "{message}"
        );
        eprintln!("SKIPPED: {message}");
        return None;
    }
    Some(h)
}

/// The words of a laid-out line as they stand on screen, left to right. egui emits the
/// glyphs run after run, in the order of the text it is given, and a space is a glyph of its
/// own, so the glyphs between two spaces are one word's; a word stands where its leftmost
/// glyph does. A word is given by its letters sorted and without repeats (inside a word
/// the order is the shaper's, and egui 0.37 repeats a character for the extra glyphs of a
/// right-to-left cluster, zero-width) and by the punctuation drawn at its left and right
/// ends.
fn words_on_screen(h: &Harness<'_>, job: egui::text::LayoutJob) -> Vec<String> {
    let galley = h.ctx.fonts_mut(|f| f.layout_job(job));
    let glyphs: Vec<(f32, char, bool)> = galley
        .rows
        .iter()
        .flat_map(|r| {
            r.row
                .glyphs
                .iter()
                .map(|g| (r.pos.x + g.pos.x, g.chr, g.advance_width > 0.0))
        })
        .collect();
    let mut words: Vec<(f32, String)> = Vec::new();
    for word in glyphs.split(|g| g.1.is_whitespace()) {
        if word.is_empty() {
            continue;
        }
        let mut by_x = word.to_vec();
        by_x.sort_by(|a, b| a.0.total_cmp(&b.0));
        // The ends from what is drawn; the letters from every glyph (a ligature's second
        // letter is a zero-width one).
        let drawn: Vec<char> = by_x.iter().filter(|g| g.2).map(|g| g.1).collect();
        let all: Vec<char> = by_x.iter().map(|g| g.1).collect();
        words.push((by_x[0].0, word_key_of(&drawn, &all)));
    }
    words.sort_by(|a, b| a.0.total_cmp(&b.0));
    words.into_iter().map(|(_, w)| w).collect()
}

/// A word (its characters left to right) as compared: the punctuation at its left end, its
/// letters and digits sorted without repeats, the punctuation at its right end.
fn word_key(chars: &[char]) -> String {
    word_key_of(chars, chars)
}

/// [`word_key`] with the ends read from `ends` and the letters from `letters`.
fn word_key_of(ends: &[char], letters: &[char]) -> String {
    let letter = |c: &char| c.is_alphanumeric();
    let left: String = ends.iter().take_while(|c| !letter(c)).collect();
    let right: String = ends.iter().rev().take_while(|c| !letter(c)).collect();
    let mut inner: Vec<char> = letters.iter().copied().filter(letter).collect();
    inner.sort_unstable();
    inner.dedup();
    if inner.is_empty() {
        return left;
    }
    format!("{left}[{}]{right}", inner.into_iter().collect::<String>())
}

/// `text` as one line of egui's body-sized proportional font, in the written order.
fn one_line(text: &str) -> egui::text::LayoutJob {
    egui::text::LayoutJob::simple_singleline(
        text.to_string(),
        FontId::proportional(14.0),
        egui::Color32::WHITE,
    )
}

/// The words of a visual-order string, left to right.
fn words_of(visual: &str) -> Vec<String> {
    visual
        .split_whitespace()
        .map(|w| word_key(&w.chars().collect::<Vec<_>>()))
        .collect()
}

/// The visual order the bidi algorithm gives a line (unicode-bidi's `reorder_line`, brackets
/// in right-to-left runs mirrored as a renderer does).
fn reference_order(text: &str) -> String {
    let info = unicode_bidi::ParagraphBidiInfo::new(text, None);
    let levels = info.reordered_levels_per_char(0..text.len());
    let chars: Vec<char> = text.chars().collect();
    unicode_bidi::ParagraphBidiInfo::reorder_visual(&levels)
        .into_iter()
        .map(|i| {
            let c = chars[i];
            let mirror = match c {
                '(' => ')',
                ')' => '(',
                '«' => '»',
                '»' => '«',
                _ => c,
            };
            if levels[i].is_rtl() { mirror } else { c }
        })
        .collect()
}

/// Arabic, Hebrew and a mixed Arabic/English/digits paragraph, laid out by egui through the
/// workbench's bidi layer: the words on screen are in the order the bidi algorithm gives, each
/// line of a right-to-left paragraph is marked to be aligned right, and a paragraph wider than
/// the width breaks into lines in the order it is written (the first words on the first line).
/// Without the layer (egui alone) the same words are in the wrong order: the test can fail.
#[test]
fn right_to_left_paragraphs_are_shown_in_the_bidi_algorithms_order() {
    use samecore::gui::bidi;
    let Some(h) = harness_with_rtl_fonts() else {
        return;
    };
    let texts = [
        // Al Jazeera-style news sentence.
        "قالت وزارة الصحة إن عدد الوفيات ارتفع إلى 45 شخصا يوم الأحد",
        // Hebrew news sentence.
        "ראש הממשלה נפגש היום עם שר החוץ בירושלים",
        // Mixed: Arabic paragraph with English words, digits, brackets, an Arabic comma and
        // a full stop.
        "أعلنت شركة Google يوم 12 مارس 2015 عن نظام جديد (Android) في دبي، وقال المتحدث إن 20 دولة ستحصل عليه.",
    ];
    for text in texts {
        let job = one_line(text);
        let lines = h.ctx.fonts_mut(|f| bidi::lines(f, &job, 5000.0));
        assert_eq!(lines.len(), 1, "{text}");
        assert!(lines[0].rtl, "{text} is a right-to-left paragraph");
        let reference = words_of(&reference_order(text));
        assert_eq!(
            words_on_screen(&h, lines[0].job.clone()),
            reference,
            "{text}"
        );
        // egui alone: the words run left to right in the order they are written.
        assert_ne!(
            words_on_screen(&h, job.clone()),
            reference,
            "{text}: egui alone already gives the bidi order"
        );
    }
    // Wrapped to a narrow width: the first line holds the first words written, and every
    // line is in visual order on its own.
    let text = texts[2];
    let job = one_line(text);
    let lines = h.ctx.fonts_mut(|f| bidi::lines(f, &job, 150.0));
    assert!(lines.len() >= 3, "{} lines", lines.len());
    let first = words_on_screen(&h, lines[0].job.clone());
    assert!(
        first.contains(&words_of("أعلنت")[0]),
        "the first line does not start the paragraph: {first:?}"
    );
    let mut rejoined = Vec::new();
    for line in &lines {
        assert!(line.rtl);
        let shown = words_on_screen(&h, line.job.clone());
        let w = h.ctx.fonts_mut(|f| f.layout_job(line.job.clone()).size().x);
        assert!(w <= 150.0 || shown.len() == 1, "{w} wide: {shown:?}");
        rejoined.extend(shown);
    }
    let written: Vec<String> = words_of(&reference_order(text));
    // No word is lost or doubled by the breaking: the lines hold the paragraph's words.
    let mut a = rejoined.clone();
    let mut b = written.clone();
    a.sort();
    b.sort();
    assert_eq!(a, b);
}

/// The words of `text` in the order Pango (through `pango-view`, a renderer no one here
/// wrote) lays them out on one line, left to right, as [`letters_key`]s; `None` when
/// `pango-view` is not installed. Each word is drawn in a colour of its own and found in the
/// SVG Pango writes by its glyphs' x.
fn pango_order(text: &str) -> Option<Vec<String>> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let markup: Vec<String> = words
        .iter()
        .enumerate()
        .map(|(i, w)| format!("<span foreground=\"#{:02x}0000\">{w}</span>", i + 1))
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("line.svg");
    let status = std::process::Command::new("pango-view")
        .args(["--font=Noto Sans 20", "--markup", "-q", "-o"])
        .arg(&svg)
        .arg(format!("--text={}", markup.join(" ")))
        .status()
        .ok()?;
    assert!(status.success(), "pango-view failed");
    let svg = std::fs::read_to_string(&svg).unwrap();
    // Each `<g style="fill:rgb(R%,…)">` holds one colour's glyphs, `<use … x="…">` each.
    let mut at: Vec<(f32, usize)> = Vec::new();
    for group in svg.split("<g style=\"fill:rgb(").skip(1) {
        let red: f32 = group[..group.find('%').unwrap()].parse().unwrap();
        let word = (red * 255.0 / 100.0).round() as usize;
        let Some(word) = word.checked_sub(1).filter(|&w| w < words.len()) else {
            continue;
        };
        let body = &group[..group.find("</g>").unwrap_or(group.len())];
        for x in body.split(" x=\"").skip(1) {
            let x: f32 = x[..x.find('"').unwrap()].parse().unwrap();
            at.push((x, word));
        }
    }
    let mut first: Vec<(f32, usize)> = (0..words.len())
        .filter_map(|w| {
            at.iter()
                .filter(|a| a.1 == w)
                .map(|a| a.0)
                .reduce(f32::min)
                .map(|x| (x, w))
        })
        .collect();
    assert_eq!(first.len(), words.len(), "a word Pango drew no glyph for");
    first.sort_by(|a, b| a.0.total_cmp(&b.0));
    Some(
        first
            .into_iter()
            .map(|(_, w)| letters_key(words[w]))
            .collect(),
    )
}

/// A word by its letters and digits only, sorted, without repeats.
fn letters_key(word: &str) -> String {
    let mut c: Vec<char> = word.chars().filter(|c| c.is_alphanumeric()).collect();
    c.sort_unstable();
    c.dedup();
    c.into_iter().collect()
}

/// The same lines side by side with Pango: Arabic, Hebrew and mixed paragraphs laid out on
/// one line by the workbench (egui through its bidi layer) put their words in the order
/// Pango does. Skipped where `pango-view` is missing, unless `SAMECORE_REQUIRE_FONTS=1`.
#[test]
fn right_to_left_lines_match_pango() {
    use samecore::gui::bidi;
    let Some(h) = harness_with_rtl_fonts() else {
        return;
    };
    let texts = [
        "وأضافت الوزارة في بيان أن المستشفيات استقبلت أكثر من 300 مريض خلال الأيام الثلاثة الماضية",
        "לדברי הדובר, הפגישה נמשכה שלוש שעות ועסקה גם בתקציב לשנת 2016",
        "בפגישה השתתפו גם נציגי BBC ו-CNN מלונדון",
        "وقال المتحدث إن شركة Microsoft Corporation ستفتح مكتبا في الرياض عام 2020 (تقريبا)",
        // Persian and Urdu, in the Arabic script with their own letters.
        "وزیر امور خارجه ایران روز دوشنبه گفت که ۱۲ نفر در تهران بازداشت شدند",
        "وزیر اعظم نے کہا کہ حکومت اگلے ہفتے 500 نئے اسکول کھولے گی",
        // A left-to-right paragraph with an Arabic name inside.
        "The ministry in Cairo said وزارة الصحة had counted 45 deaths on Sunday",
    ];
    let mut compared = 0;
    for text in texts {
        let Some(reference) = pango_order(text) else {
            let message = "pango-view is not installed (Debian: pango1.0-tools)";
            assert!(
                std::env::var_os("SAMECORE_REQUIRE_FONTS").is_none(),
                "{message}"
            );
            eprintln!("SKIPPED: {message}");
            return;
        };
        let job = one_line(text);
        let lines = h.ctx.fonts_mut(|f| bidi::lines(f, &job, 10_000.0));
        assert_eq!(lines.len(), 1);
        // Ours, word by word: the letters of each word on screen, left to right.
        let ours: Vec<String> = words_on_screen(&h, lines[0].job.clone())
            .iter()
            .map(|k| letters_key(k))
            .collect();
        assert_eq!(ours, reference, "{text}");
        // A number reads left to right, in Persian digits too (harfrust would draw a word of
        // Arabic-script digits right to left: the layer hands it reversed).
        let galley = h.ctx.fonts_mut(|f| f.layout_job(lines[0].job.clone()));
        let x_of = |c: char| {
            galley
                .rows
                .iter()
                .flat_map(|r| r.row.glyphs.iter())
                .find(|g| g.chr == c && g.advance_width > 0.0)
                .map(|g| g.pos.x)
        };
        for (first, second) in [('1', '2'), ('۱', '۲'), ('5', '0')] {
            if let (Some(a), Some(b)) = (x_of(first), x_of(second))
                && text.contains(&format!("{first}{second}"))
            {
                assert!(a < b, "{text}: {first} at {a}, {second} at {b}");
            }
        }
        compared += 1;
    }
    assert_eq!(compared, texts.len());
}

/// Devanagari, Bengali, Tamil and Thai are shaped, not drawn a character at a time: a
/// conjunct or a vowel sign joins its consonant (fewer glyphs take room than there are
/// characters), and nothing in them goes through the bidi layer.
#[test]
fn indic_and_thai_words_are_shaped() {
    let Some(h) = harness_with_rtl_fonts() else {
        return;
    };
    for (script, word) in [
        ("Devanagari", "क्षत्रिय"),
        ("Bengali", "ক্ষমা"),
        ("Tamil", "க்ஷேத்திரம்"),
        ("Thai", "ข่าวที่นี่"),
    ] {
        assert!(!samecore::gui::bidi::needs_bidi(word), "{script}");
        let job = one_line(word);
        let galley = h.ctx.fonts_mut(|f| f.layout_job(job));
        let chars = word.chars().count();
        let drawn = galley
            .rows
            .iter()
            .flat_map(|r| r.row.glyphs.iter())
            .filter(|g| g.advance_width > 0.0)
            .count();
        assert!(
            drawn < chars,
            "{script}: {drawn} glyphs take room for {chars} characters"
        );
    }
}
