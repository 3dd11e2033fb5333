//! The library's import structure, read from `src/`: the top-level modules form a one-way
//! layering ([`LAYERS`]), and no two files of `src/` import each other in a loop.
//!
//! A rough reading of the source, like `../shared/tools/import-circles.py`: every
//! `crate::…`, `super::…` and `self::…` path (also inside `use crate::{…}` groups) outside
//! comments and test code names the deepest module it reaches. Test code is left out: files
//! named `tests.rs`, `*_tests.rs` or `proptests.rs`, and everything after a
//! `#[cfg(test)] mod … {` line.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// DESIGN.md's one-way flow ("Data flows one way … No two files import each other"), as
/// layers of top-level modules of `src/`, bottom first. A module may use only modules of the
/// layers below its own, never one of its own layer or above. `install` is the library module
/// the CLI's pipeline code is moving to; it may not exist yet. A new top-level module must be
/// placed here.
const LAYERS: &[&[&str]] = &[
    // `text` imports nothing of the crate: the one escaping rule, below everything that prints
    // or quotes (the range grammars' errors among them).
    &["text"],
    &["fsread", "notice", "version", "rules"],
    &["table", "diagram", "kubenames"],
    &["openshift"],
    &["config"],
    &["catalog"],
    &["fetch"],
    &["registry"],
    &["resolve"],
    &["bundle"],
    &["convert"],
    &["render"],
    &["mirror"],
    &["check"],
    &["output"],
    &["upgrade"],
    &["install"],
    &["cli"],
];

/// The command modules of `src/cli/`: each reads its flags, calls the library and prints; none
/// imports another (what two commands share lives in the library, or in a shared printing
/// module of `src/cli/` such as `plan_report`).
const CLI_COMMANDS: &[&str] = &[
    "bundle_cmd",
    "catalog_cmd",
    "check_cmd",
    "create",
    "images_cmd",
    "range",
    "resolve_cmd",
    "upgrade_plan",
];

/// One source file of the library: its module path and the module paths it names.
struct SourceFile {
    path: PathBuf,
    module: Vec<String>,
    names: Vec<Vec<String>>,
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn is_test_file(name: &str) -> bool {
    name == "tests.rs" || name.ends_with("_tests.rs") || name == "proptests.rs"
}

/// Every non-test `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs")
            && !is_test_file(path.file_name().unwrap().to_str().unwrap())
        {
            out.push(path);
        }
    }
}

/// The module a file defines: `src/a/mod.rs` and `src/a.rs` are `a`, `src/a/b.rs` is `a::b`,
/// `lib.rs` and `main.rs` the crate root.
fn module_of(root: &Path, path: &Path) -> Vec<String> {
    let rel = path.strip_prefix(root).unwrap().with_extension("");
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_str().unwrap().to_string())
        .collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    if parts == ["lib"] || parts == ["main"] {
        parts.clear();
    }
    parts
}

/// `text` without comments (line, doc and block comments; string literals are not
/// tracked, as in the Python reading) and without the test module that ends most files.
fn code_of(text: &str) -> String {
    let text = match test_module_start(text) {
        Some(at) => &text[..at],
        None => text,
    };
    let mut out = String::with_capacity(text.len());
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i..].starts_with(b"/*") {
            let mut depth = 0;
            while i < b.len() {
                if b[i..].starts_with(b"/*") {
                    depth += 1;
                    i += 2;
                } else if b[i..].starts_with(b"*/") {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            out.push(' ');
        } else {
            let c = text[i..].chars().next().unwrap();
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// Where `#[cfg(test)]` followed by `mod NAME {` (with an optional visibility) starts.
fn test_module_start(text: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(found) = text[from..].find("#[cfg(test)]") {
        let at = from + found;
        let mut rest = text[at + "#[cfg(test)]".len()..].trim_start();
        if let Some(r) = rest.strip_prefix("pub") {
            rest = r.trim_start();
            if let Some(r) = rest.strip_prefix('(') {
                rest = r.split_once(')').map_or("", |(_, r)| r).trim_start();
            }
        }
        if let Some(r) = rest.strip_prefix("mod")
            && r.starts_with(char::is_whitespace)
        {
            let r = r.trim_start();
            let name_end = r
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(r.len());
            if name_end > 0 && r[name_end..].trim_start().starts_with('{') {
                return Some(at);
            }
        }
        from = at + 1;
    }
    None
}

fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Every `crate::…`, `super::…` and `self::…` path in `code`, as written (`crate`, `super`
/// and `self` included), with `use` groups expanded: `crate::a::{b, c::{d}}` gives `crate::a::b`
/// and `crate::a::c::d`.
fn paths_in(code: &str) -> Vec<Vec<String>> {
    let b = code.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let starts_word = i == 0 || !is_ident_byte(b[i - 1]);
        let keyword = ["crate", "super", "self"]
            .into_iter()
            .find(|k| b[i..].starts_with(k.as_bytes()));
        match keyword {
            Some(k)
                if starts_word
                    && !b.get(i + k.len()).copied().is_some_and(is_ident_byte)
                    && b[i + k.len()..].starts_with(b"::") =>
            {
                let (end, found) = path_tail(code, i + k.len(), vec![k.to_string()]);
                out.extend(found);
                i = end;
            }
            _ => i += 1,
        }
    }
    out
}

/// Read `::seg::seg…`, `::*` or `::{group}` after `prefix` from `at`; returns where it ends
/// and the paths it names.
fn path_tail(code: &str, mut at: usize, mut prefix: Vec<String>) -> (usize, Vec<Vec<String>>) {
    let b = code.as_bytes();
    loop {
        let rest = &code[at..];
        let trimmed = rest.trim_start();
        if !trimmed.starts_with("::") {
            return (at, vec![prefix]);
        }
        at += rest.len() - trimmed.len() + 2;
        let rest = &code[at..];
        let trimmed = rest.trim_start();
        at += rest.len() - trimmed.len();
        if trimmed.starts_with('*') {
            return (at + 1, vec![prefix]);
        }
        if trimmed.starts_with('{') {
            return group(code, at + 1, &prefix);
        }
        let len = trimmed.bytes().take_while(|&c| is_ident_byte(c)).count();
        if len == 0 {
            return (at, vec![prefix]);
        }
        prefix.push(trimmed[..len].to_string());
        at += len;
        if at >= b.len() {
            return (at, vec![prefix]);
        }
    }
}

/// The items of a `{a, b::c, d::{e}, self}` group that starts at `at` (after the brace).
fn group(code: &str, mut at: usize, prefix: &[String]) -> (usize, Vec<Vec<String>>) {
    let b = code.as_bytes();
    let mut out = Vec::new();
    while at < b.len() {
        let c = b[at];
        if c == b'}' {
            return (at + 1, out);
        }
        if c == b'{' {
            let (end, found) = group(code, at + 1, prefix);
            out.extend(found);
            at = end;
        } else if c == b'*' {
            out.push(prefix.to_vec());
            at += 1;
        } else if is_ident_byte(c) {
            let len = code[at..].bytes().take_while(|&c| is_ident_byte(c)).count();
            let word = &code[at..at + len];
            if word == "as" {
                // `x as y`: skip the alias.
                at += len;
                let rest = &code[at..];
                let trimmed = rest.trim_start();
                at += rest.len() - trimmed.len();
                at += trimmed.bytes().take_while(|&c| is_ident_byte(c)).count();
                continue;
            }
            let mut item = prefix.to_vec();
            if word != "self" {
                item.push(word.to_string());
            }
            let (end, found) = path_tail(code, at + len, item);
            out.extend(found);
            at = end;
        } else {
            at += 1;
        }
    }
    (at, out)
}

/// A path as written in `module`'s file, made absolute (from the crate root).
/// `self` is the file's module (`a/mod.rs` and `a/b.rs` alike), `super` its parent.
fn absolute(module: &[String], path: &[String]) -> Vec<String> {
    let mut parts = path.iter().map(String::as_str);
    let mut here: Vec<String> = match parts.next() {
        Some("crate") => Vec::new(),
        Some("self") => module.to_vec(),
        Some("super") => module[..module.len().saturating_sub(1)].to_vec(),
        _ => unreachable!(),
    };
    let mut rest: Vec<&str> = parts.collect();
    while rest.first() == Some(&"super") {
        here.pop();
        rest.remove(0);
    }
    here.extend(rest.into_iter().filter(|p| *p != "self").map(String::from));
    here
}

fn read_sources() -> (BTreeMap<Vec<String>, PathBuf>, Vec<SourceFile>) {
    let root = src();
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let mut modules = BTreeMap::new();
    let mut sources = Vec::new();
    for path in files {
        let module = module_of(&root, &path);
        let text = std::fs::read_to_string(&path).unwrap();
        let names = paths_in(&code_of(&text))
            .iter()
            .map(|p| absolute(&module, p))
            .collect();
        modules.insert(module.clone(), path.clone());
        sources.push(SourceFile {
            path: path
                .strip_prefix(root.parent().unwrap())
                .unwrap()
                .to_path_buf(),
            module,
            names,
        });
    }
    (modules, sources)
}

/// The deepest existing module a path names (`None` for the crate root itself).
fn deepest<'m>(
    modules: &'m BTreeMap<Vec<String>, PathBuf>,
    path: &[String],
) -> Option<&'m Vec<String>> {
    (1..=path.len())
        .rev()
        .find_map(|n| modules.get_key_value(&path[..n]).map(|(k, _)| k))
}

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|layer| layer.contains(&module))
}

#[test]
fn the_layer_table_names_each_module_once() {
    let mut seen = BTreeSet::new();
    for module in LAYERS.iter().flat_map(|l| l.iter()) {
        assert!(seen.insert(module), "{module} is listed twice in LAYERS");
    }
}

#[test]
fn top_level_modules_only_use_lower_layers() {
    let (modules, sources) = read_sources();
    let mut problems = BTreeSet::new();
    for file in &sources {
        let Some(from) = file.module.first() else {
            continue; // lib.rs and main.rs declare every module
        };
        let Some(from_layer) = layer_of(from) else {
            problems.insert(format!(
                "module `{from}` ({}) is not in LAYERS: place it in the layering",
                file.path.display()
            ));
            continue;
        };
        for name in &file.names {
            let Some(target) = deepest(&modules, name) else {
                continue;
            };
            let to = &target[0];
            if to == from {
                continue;
            }
            match layer_of(to) {
                Some(to_layer) if to_layer < from_layer => {}
                Some(_) => {
                    problems.insert(format!(
                        "{} uses `crate::{}`, but `{to}` is not in a layer below `{from}`",
                        file.path.display(),
                        name.join("::")
                    ));
                }
                None => {
                    problems.insert(format!("module `{to}` is not in LAYERS"));
                }
            }
        }
    }
    assert!(
        problems.is_empty(),
        "the top-level modules must form DESIGN.md's one-way layering:\n{}",
        problems.into_iter().collect::<Vec<_>>().join("\n")
    );
}

#[test]
fn no_two_files_import_each_other() {
    let (modules, sources) = read_sources();
    let index: BTreeMap<&Vec<String>, usize> = sources
        .iter()
        .enumerate()
        .map(|(i, f)| (&f.module, i))
        .collect();
    let edges: Vec<BTreeSet<usize>> = sources
        .iter()
        .map(|f| {
            f.names
                .iter()
                .filter_map(|n| deepest(&modules, n))
                .filter_map(|m| index.get(m).copied())
                .filter(|&t| sources[t].module != f.module)
                .collect()
        })
        .collect();
    let circles = strongly_connected(&edges);
    let report: Vec<String> = circles
        .iter()
        .map(|c| {
            let mut lines = vec![format!("circle of {} files:", c.len())];
            for &f in c {
                let targets: Vec<String> = edges[f]
                    .iter()
                    .filter(|t| c.contains(t))
                    .map(|&t| sources[t].path.display().to_string())
                    .collect();
                lines.push(format!(
                    "  {} -> {}",
                    sources[f].path.display(),
                    targets.join(", ")
                ));
            }
            lines.join("\n")
        })
        .collect();
    assert!(
        report.is_empty(),
        "files of src/ import each other in a loop (DESIGN.md: no two files import each other):\n{}",
        report.join("\n")
    );
}

/// Tarjan's strongly connected components with more than one node, each sorted.
fn strongly_connected(edges: &[BTreeSet<usize>]) -> Vec<Vec<usize>> {
    struct State<'e> {
        edges: &'e [BTreeSet<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        stack: Vec<usize>,
        on_stack: Vec<bool>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    fn visit(s: &mut State<'_>, v: usize) {
        s.index[v] = Some(s.next);
        s.low[v] = s.next;
        s.next += 1;
        s.stack.push(v);
        s.on_stack[v] = true;
        for &w in s.edges[v].iter() {
            match s.index[w] {
                None => {
                    visit(s, w);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(i) if s.on_stack[w] => s.low[v] = s.low[v].min(i),
                Some(_) => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut component = Vec::new();
            loop {
                let w = s.stack.pop().unwrap();
                s.on_stack[w] = false;
                component.push(w);
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
    let n = edges.len();
    let mut s = State {
        edges,
        index: vec![None; n],
        low: vec![0; n],
        stack: Vec::new(),
        on_stack: vec![false; n],
        next: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if s.index[v].is_none() {
            visit(&mut s, v);
        }
    }
    s.out
}

#[test]
fn the_reading_finds_paths_and_groups() {
    let code = code_of(
        "use crate::a::{b, c::{d, e as f}, self};\nuse super::super::g; // crate::h\nlet x = self::i::J;\n/* crate::k */\n#[cfg(test)]\nmod tests {\n    use crate::l;\n}\n",
    );
    let found: Vec<String> = paths_in(&code).iter().map(|p| p.join("::")).collect();
    assert_eq!(
        found,
        [
            "crate::a::b",
            "crate::a::c::d",
            "crate::a::c::e",
            "crate::a",
            "super::super::g",
            "self::i::J"
        ]
    );
    let m = |s: &[&str]| s.iter().map(|p| p.to_string()).collect::<Vec<_>>();
    assert_eq!(
        absolute(&m(&["x", "y"]), &m(&["super", "super", "z"])),
        m(&["z"])
    );
    assert_eq!(
        absolute(&m(&["x", "y"]), &m(&["self", "w"])),
        m(&["x", "y", "w"])
    );
}

#[test]
fn no_command_imports_another() {
    let (modules, sources) = read_sources();
    let command = |m: &[String]| {
        m.first().is_some_and(|c| c == "cli")
            && m.get(1).is_some_and(|c| CLI_COMMANDS.contains(&c.as_str()))
    };
    let mut found = Vec::new();
    for f in sources.iter().filter(|f| command(&f.module)) {
        for n in f.names.iter().filter_map(|n| deepest(&modules, n)) {
            if command(n) && n.get(1) != f.module.get(1) {
                found.push(format!("{} -> {}", f.path.display(), n.join("::")));
            }
        }
    }
    found.sort();
    found.dedup();
    assert!(
        found.is_empty(),
        "command modules import each other:\n{}",
        found.join("\n")
    );
}
