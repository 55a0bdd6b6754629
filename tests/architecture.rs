//! The house rules of ARCHITECTURE.md, checked: the top-level modules of the library import
//! each other in one direction only (no cycle), and nothing outside `src/gui` names egui.
//!
//! The module graph is read from the source: every `crate::NAME` path outside comments in a
//! module's files is an edge from that module to `NAME`. Print it with
//! `cargo test --test architecture -- --nocapture module_graph`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Items `lib.rs` re-exports at the crate root, by the module that defines them.
const ROOT_ITEMS: &[(&str, &str)] = &[
    ("Document", "document"),
    ("DocId", "document"),
    ("Error", "error"),
    ("Result", "error"),
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The source without comments (line comments, doc comments and block comments), so that doc
/// links do not count as imports. Strings are kept: a path in a string is rare and harmless.
fn code_of(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix("//") {
            rest = after.find('\n').map_or("", |i| &after[i..]);
        } else if let Some(after) = rest.strip_prefix("/*") {
            rest = after.find("*/").map_or("", |i| &after[i + 2..]);
        } else if let Some(after) = rest.strip_prefix('"') {
            // Skip a string literal (it may hold "//").
            let mut end = 0;
            let bytes = after.as_bytes();
            while end < bytes.len() && bytes[end] != b'"' {
                end += if bytes[end] == b'\\' { 2 } else { 1 };
            }
            out.push_str("\"\"");
            rest = after.get(end + 1..).unwrap_or("");
        } else {
            let c = rest.chars().next().unwrap_or(' ');
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

fn ident_at(s: &str) -> &str {
    let end = s
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    &s[..end]
}

/// The names following `crate::` in `code`, including those inside `crate::{a, b::c}` groups.
fn crate_paths(code: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for (i, _) in code.match_indices("crate::") {
        // `samecore::` paths are the binary's; `$crate::` is a macro's.
        let before = &code[..i];
        if before.ends_with('$') || before.ends_with(|c: char| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let rest = &code[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 1;
            let mut start = true;
            for (j, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    ',' if depth == 1 => {
                        start = true;
                        continue;
                    }
                    c if c.is_whitespace() => continue,
                    _ => {}
                }
                if start && depth == 1 {
                    let id = ident_at(&group[j..]);
                    if !id.is_empty() {
                        names.insert(id.to_string());
                    }
                    start = false;
                }
            }
        } else {
            let id = ident_at(rest);
            if !id.is_empty() {
                names.insert(id.to_string());
            }
        }
    }
    names
}

/// Top-level module of a file under `src/` (`src/archive/warc.rs` → `archive`); `None` for
/// the crate root and the binary (`lib.rs`, `main.rs`, `cli/`).
fn module_of(src: &Path, file: &Path) -> Option<String> {
    let rel = file.strip_prefix(src).ok()?;
    let first = rel.components().next()?.as_os_str().to_str()?;
    let name = first.strip_suffix(".rs").unwrap_or(first);
    (!matches!(name, "lib" | "main" | "cli")).then(|| name.to_string())
}

fn read_module_graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let modules: BTreeSet<String> = files.iter().filter_map(|f| module_of(&src, f)).collect();
    let root: BTreeMap<&str, &str> = ROOT_ITEMS.iter().copied().collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let Some(from) = module_of(&src, file) else {
            continue;
        };
        let text = std::fs::read_to_string(file).expect("read a source file");
        let deps = graph.entry(from.clone()).or_default();
        for name in crate_paths(&code_of(&text)) {
            let to = root
                .get(name.as_str())
                .map_or(name.clone(), |m| m.to_string());
            if to != from && modules.contains(&to) {
                deps.insert(to);
            }
        }
    }
    graph
}

/// Strongly connected components of more than one module (Tarjan), each sorted.
fn cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct State<'a> {
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a str) {
        let i = s.index.len();
        s.index.insert(v, i);
        s.low.insert(v, i);
        s.stack.push(v);
        s.on_stack.insert(v);
        let graph = s.graph;
        for w in graph.get(v).into_iter().flatten() {
            let w = w.as_str();
            if !s.index.contains_key(w) {
                visit(s, w);
                let lw = s.low[w];
                let lv = s.low[v];
                s.low.insert(v, lv.min(lw));
            } else if s.on_stack.contains(w) {
                let iw = s.index[w];
                let lv = s.low[v];
                s.low.insert(v, lv.min(iw));
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                component.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.out.push(component);
            }
        }
    }
    let mut s = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v);
        }
    }
    s.out
}

#[test]
fn module_graph() {
    let graph = read_module_graph();
    println!("module -> the modules it imports (src/, crate:: paths outside comments)");
    for (from, to) in &graph {
        let to: Vec<&str> = to.iter().map(String::as_str).collect();
        println!("  {from:<10} -> {}", to.join(", "));
    }
    let found = cycles(&graph);
    assert!(
        found.is_empty(),
        "top-level modules import each other in a cycle (see ARCHITECTURE.md for who may import \
         whom): {found:?}"
    );
}

#[test]
fn egui_only_in_gui() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut offenders = Vec::new();
    for file in files {
        if file.starts_with(src.join("gui")) {
            continue;
        }
        let code = code_of(&std::fs::read_to_string(&file).expect("read a source file"));
        if ["egui", "eframe", "egui_plot", "egui_extras", "rfd::"]
            .iter()
            .any(|name| code.contains(name))
        {
            offenders.push(file.display().to_string());
        }
    }
    // main.rs opens the window through `samecore::gui::run`; it names no egui type.
    assert!(offenders.is_empty(), "egui outside src/gui: {offenders:?}");
}

#[test]
fn the_checker_sees_grouped_imports_and_ignores_comments() {
    let code = code_of(
        "use crate::{alpha::X, beta, gamma::{a, b}};\n/// [`crate::delta`]\nlet s = \"// x\"; crate::eps::f(); \
         samecore::zeta; $crate::eta",
    );
    let names: Vec<String> = crate_paths(&code).into_iter().collect();
    assert_eq!(names, ["alpha", "beta", "eps", "gamma"]);
    let mut g = BTreeMap::new();
    g.insert("a".to_string(), BTreeSet::from(["b".to_string()]));
    g.insert("b".to_string(), BTreeSet::from(["c".to_string()]));
    g.insert("c".to_string(), BTreeSet::from(["a".to_string()]));
    g.insert("d".to_string(), BTreeSet::from(["a".to_string()]));
    assert_eq!(cycles(&g), vec![vec!["a", "b", "c"]]);
}
