//! The workbench shows every script (issue 33): titles and page text in CJK, Cyrillic, Greek,
//! Arabic, Hebrew, Devanagari and Thai get glyphs. egui's own fonts cover Latin, Cyrillic and
//! Greek; the rest come from the system's fonts, found on demand by the font provider eframe
//! installs with its `system_fonts` feature (`egui_system_font_provider`, fontique over
//! fontconfig): nothing is bundled, so the binary grows by the provider's code only. The test
//! installs the same provider in a kittest harness, lays the texts out and asks egui which
//! glyphs it has. It needs a machine with fonts for these scripts (Debian: fonts-noto-core,
//! fonts-noto-cjk, which `.ci/run` installs); elsewhere it says what is missing and skips,
//! unless `SAMECORE_REQUIRE_FONTS=1`.
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
