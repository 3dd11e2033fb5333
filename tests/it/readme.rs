//! The README and the pages of `docs/` stay true: every `po-manifests …` line of their ```sh
//! blocks runs (in order, each file in its own temporary copy of `testdata/`, so
//! `testdata/example` means the shipped example) and exits as the page says (`# exit status N`
//! after the command; 0 otherwise), leaves nothing in the copy that git would not ignore, and
//! every `--flag` a page gives a command exists in that command's `--help`.
//!
//! Lines that cannot run here are listed in [`NOT_RUN`] with the reason; other lines of the
//! ```sh blocks (cargo itself) in [`NOT_PO_MANIFESTS`]. An entry that no longer matches a line
//! fails the test, so neither list goes stale.

use std::collections::BTreeMap;

use crate::common::{cmd, copy_dir, root};

/// `po-manifests` lines of the README and `docs/` that are not run, and why.
const NOT_RUN: &[(&str, &str)] = &[
    (
        "po-manifests bundle pull quay.io/acme/op-bundle@sha256:… --output-dir target/op-bundle --dir D",
        "pulls from a registry (the network); tests/it/images.rs pulls from a local docker-registry",
    ),
    (
        "po-manifests bundle render quay.io/acme/op-bundle@sha256:… --namespace acme --output-dir target/out",
        "pulls from a registry (the network); tests/it/images.rs covers it",
    ),
    (
        "po-manifests create --dir D --offline --oci-layout /mirror/bundles",
        "needs an OCI layout of bundle images; tests/it/images.rs builds one",
    ),
];

/// Other lines of the README's ```sh blocks (what to type besides po-manifests), and why they
/// are not run here.
const NOT_PO_MANIFESTS: &[(&str, &str)] = &[
    ("cargo test --locked", "the test suite itself"),
    (
        "cargo install --locked --path .",
        "a release build and an install into ~/.cargo/bin",
    ),
    (
        "cargo bench --bench perf --",
        "benchmarks: a release build and up to GBs of generated catalogs",
    ),
];

/// One command line of a ```sh block: the words after `po-manifests`, the exit status the
/// README gives, and the line as written (continuations joined, comment dropped).
struct Example {
    line: String,
    args: Vec<String>,
    status: i32,
}

/// The lines of the README's fenced blocks with the given info string, continuations joined.
fn block_lines(readme: &str, info: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut inside = false;
    let mut pending = String::new();
    for raw in readme.lines() {
        let trimmed = raw.trim();
        if let Some(rest) = trimmed.strip_prefix("```") {
            if inside {
                inside = false;
            } else {
                inside = rest.trim() == info;
            }
            continue;
        }
        if !inside {
            continue;
        }
        match trimmed.strip_suffix('\\') {
            Some(head) => {
                pending.push_str(head.trim_end());
                pending.push(' ');
            }
            None => {
                pending.push_str(trimmed);
                let line = std::mem::take(&mut pending);
                if !line.is_empty() && !line.starts_with('#') {
                    out.push(line);
                }
            }
        }
    }
    out
}

/// Split a line as a POSIX shell does for the simple lines the README holds: words, single
/// and double quotes, backslash escapes, and a `#` comment. Anything the test would have to run
/// a shell for (pipes, redirections, substitutions, `;`, `&`) fails the test.
fn shell_words(line: &str) -> (Vec<String>, String) {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => {
                if let Some(w) = word.take() {
                    words.push(w);
                }
            }
            '#' if word.is_none() => {
                return (words, chars.collect::<String>().trim().to_string());
            }
            '\'' => {
                let w = word.get_or_insert_with(String::new);
                for c in chars.by_ref() {
                    if c == '\'' {
                        break;
                    }
                    w.push(c);
                }
            }
            '"' => {
                let w = word.get_or_insert_with(String::new);
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => w.extend(chars.next()),
                        '$' | '`' => panic!("README line needs a shell: {line}"),
                        c => w.push(c),
                    }
                }
            }
            '\\' => word.get_or_insert_with(String::new).extend(chars.next()),
            '|' | '>' | '<' | ';' | '&' | '$' | '`' | '(' | ')' => {
                panic!("README line needs a shell ({c:?}): {line}")
            }
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    (words, String::new())
}

/// Every command line of the README's ```sh blocks. `cargo run --locked -- ARGS` runs the
/// binary with ARGS, as `po-manifests ARGS` does.
fn examples(readme: &str) -> (Vec<Example>, Vec<String>) {
    let mut examples = Vec::new();
    let mut others = Vec::new();
    for line in block_lines(readme, "sh") {
        if !(line.starts_with("po-manifests ") || line.starts_with("cargo run --locked -- ")) {
            others.push(line);
            continue;
        }
        let (words, comment) = shell_words(&line);
        let args = if words.first().is_some_and(|w| w == "po-manifests") {
            words[1..].to_vec()
        } else if words.starts_with(&["cargo", "run", "--locked", "--"].map(String::from)) {
            words[4..].to_vec()
        } else {
            others.push(line);
            continue;
        };
        let status = comment
            .strip_prefix("exit status ")
            .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
            .map(|n| n.parse().unwrap())
            .unwrap_or(0);
        let line = match line.split_once(" #") {
            Some((command, _)) => command.trim().to_string(),
            None => line,
        };
        examples.push(Example { line, args, status });
    }
    (examples, others)
}

fn readme() -> String {
    std::fs::read_to_string(root().join("README.md")).unwrap()
}

/// The README and every page of `docs/`, by their path from the repository root.
fn pages() -> Vec<(String, String)> {
    let mut pages = vec![("README.md".to_string(), readme())];
    let mut docs: Vec<_> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    for doc in docs {
        let name = format!("docs/{}", doc.file_name().unwrap().to_string_lossy());
        pages.push((name, std::fs::read_to_string(&doc).unwrap()));
    }
    assert!(
        pages.len() >= 4,
        "README, guide, FAQ and performance: {} pages",
        pages.len()
    );
    pages
}

/// Every file and folder under `dir`, by its path from `dir`.
fn entries(dir: &std::path::Path) -> BTreeMap<std::path::PathBuf, bool> {
    walkdir::WalkDir::new(dir)
        .min_depth(1)
        .into_iter()
        .map(|e| e.unwrap())
        .map(|e| {
            let is_dir = e.file_type().is_dir();
            (e.path().strip_prefix(dir).unwrap().to_path_buf(), is_dir)
        })
        .collect()
}

#[test]
fn every_readme_command_runs_and_exits_as_the_readme_says() {
    let pages = pages();
    let mut all_examples = Vec::new();
    let mut all_others = Vec::new();
    for (name, text) in &pages {
        let (examples, others) = examples(text);
        for other in &others {
            assert!(
                NOT_PO_MANIFESTS.iter().any(|(p, _)| other.starts_with(p)),
                "a ```sh line of {name} that is neither a po-manifests command nor listed in NOT_PO_MANIFESTS: {other}"
            );
        }
        all_others.extend(others);
        all_examples.push((name, examples));
    }
    let readme_examples = all_examples[0].1.len();
    assert!(
        readme_examples >= 10,
        "{readme_examples} README examples found"
    );
    for (prefix, _) in NOT_PO_MANIFESTS {
        assert!(
            all_others.iter().any(|o| o.starts_with(prefix)),
            "NOT_PO_MANIFESTS lists {prefix:?}, which neither the README nor docs/ has any more"
        );
    }
    for (line, _) in NOT_RUN {
        assert!(
            all_examples
                .iter()
                .any(|(_, examples)| examples.iter().any(|e| e.line == *line)),
            "NOT_RUN lists {line:?}, which neither the README nor docs/ has any more"
        );
    }

    // What git ignores in the repository: the commands may leave files there and nowhere else.
    let mut ignore = ignore::gitignore::GitignoreBuilder::new(root());
    assert!(ignore.add(root().join(".gitignore")).is_none());
    let ignore = ignore.build().unwrap();
    let mut ran = 0;
    for (name, examples) in &all_examples {
        let work = tempfile::tempdir().unwrap();
        let cache = tempfile::tempdir().unwrap();
        copy_dir(&root().join("testdata"), &work.path().join("testdata"));
        for entry in std::fs::read_dir(work.path().join("testdata")).unwrap() {
            let dir = entry.unwrap().path();
            let _ = std::fs::remove_dir_all(dir.join("manifests"));
            let _ = std::fs::remove_file(dir.join("platform-operators.lock.yaml"));
        }
        // `cargo run`, the README's first command, has made `target/`.
        std::fs::create_dir(work.path().join("target")).unwrap();
        let before = entries(work.path());
        for e in examples {
            if NOT_RUN.iter().any(|(line, _)| *line == e.line) {
                continue;
            }
            let out = cmd()
                .current_dir(work.path())
                .env("PO_MANIFESTS_CACHE_DIR", cache.path())
                .env("COLUMNS", "80")
                .args(&e.args)
                .timeout(std::time::Duration::from_secs(120))
                .output()
                .unwrap();
            assert_eq!(
                out.status.code(),
                Some(e.status),
                "{name}: `{}` should exit {}; stdout:\n{}\nstderr:\n{}",
                e.line,
                e.status,
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            ran += 1;
        }
        for (path, is_dir) in entries(work.path()) {
            if before.contains_key(&path) {
                continue;
            }
            assert!(
                ignore
                    .matched_path_or_any_parents(root().join(&path), is_dir)
                    .is_ignore(),
                "{name}: its commands leave {} in the repository, which git does not ignore",
                path.display()
            );
        }
    }
    assert!(ran >= 20, "only {ran} README and docs commands ran");
}

/// The README's Set up shows what `cargo run --locked -- create --dir testdata/example` prints
/// (the files written, then the summary line), and says what comes before the summary on
/// stderr: a note and two warnings.
#[test]
fn the_set_up_output_is_what_create_prints() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let shown = readme
        .split_once("After cargo's own lines it prints")
        .and_then(|(_, rest)| rest.split_once("```text\n"))
        .and_then(|(_, rest)| rest.split_once("```"))
        .map(|(block, _)| block)
        .expect("README's Set up shows create's output in a ```text block");
    assert!(
        readme.contains("Before the summary come a note and two warnings."),
        "README's Set up no longer says what comes before the summary"
    );
    let work = tempfile::tempdir().unwrap();
    copy_dir(&root().join("testdata"), &work.path().join("testdata"));
    let example = work.path().join("testdata/example");
    let _ = std::fs::remove_dir_all(example.join("manifests"));
    let _ = std::fs::remove_file(example.join("platform-operators.lock.yaml"));
    let out = cmd()
        .current_dir(work.path())
        .args(["create", "--dir", "testdata/example"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    let summary = stderr.lines().last().unwrap_or_default();
    assert_eq!(
        format!("{}{summary}\n", String::from_utf8_lossy(&out.stdout)),
        shown,
        "README's Set up output"
    );
    let notes = stderr.lines().filter(|l| l.starts_with("note: ")).count();
    let warnings = stderr
        .lines()
        .filter(|l| l.trim_start().starts_with('⚠'))
        .count();
    assert_eq!((notes, warnings), (1, 2), "{stderr}");
}

/// A command that writes into the repository outside what git ignores fails the test above.
#[test]
fn a_file_git_does_not_ignore_is_caught() {
    let mut ignore = ignore::gitignore::GitignoreBuilder::new(root());
    assert!(ignore.add(root().join(".gitignore")).is_none());
    let ignore = ignore.build().unwrap();
    let ignored = |p: &str, dir: bool| {
        ignore
            .matched_path_or_any_parents(root().join(p), dir)
            .is_ignore()
    };
    assert!(ignored("target/imageset.yaml", false));
    assert!(ignored(
        "testdata/example-4.18/manifests/99_po_x.yaml",
        false
    ));
    assert!(ignored(
        "testdata/example-ccm/platform-operators.lock.yaml",
        false
    ));
    assert!(!ignored("imageset.json", false));
    assert!(!ignored("ccm-objects", true));
    assert!(!ignored("testdata/example/imageset.yaml", false));
}

/// The formats the README gives `-o`/`--output` in `text` (`-o table|json` gives two).
fn formats_in(text: &str) -> Vec<String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut out = Vec::new();
    for pair in words.windows(2) {
        let flag = pair[0].trim_start_matches('[');
        if flag == "-o" || flag == "--output" {
            out.extend(
                pair[1]
                    .trim_end_matches(']')
                    .split('|')
                    .map(|f| f.trim_matches('\\').to_string()),
            );
        }
    }
    out
}

/// The `--flag`s of `text` (a command as the README writes it), with `-o` when it is given.
fn flags_in(text: &str) -> Vec<String> {
    let mut flags = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let start_ok = i == 0 || matches!(bytes[i - 1], b' ' | b'[' | b'|' | b'(');
        if start_ok && text[i..].starts_with("--") {
            let name: String = text[i + 2..]
                .chars()
                .take_while(|c| c.is_ascii_lowercase() || *c == '-')
                .collect();
            if !name.is_empty() {
                flags.push(format!("--{name}"));
            }
            i += 2 + name.len();
            continue;
        }
        if start_ok && text[i..].starts_with("-o ") {
            flags.push("-o".into());
        }
        i += 1;
    }
    flags
}

/// The command a README mention is about (`catalog list`, `create`, …) and its text.
fn command_of(text: &str) -> Option<(String, String)> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let first = *words.first()?;
    let known = [
        "create",
        "resolve",
        "range",
        "catalog",
        "bundle",
        "images",
        "mirror-config",
        "upgrade-plan",
        "check",
        "completion",
        "man",
    ];
    if !known.contains(&first) {
        return None;
    }
    let path = if first == "catalog" || first == "bundle" {
        format!("{first} {}", words.get(1)?)
    } else {
        first.to_string()
    };
    Some((path, text.to_string()))
}

/// Every place the README gives a command with flags: the lines of ```sh, ```text and plain
/// ``` blocks,
/// inline code that starts with `po-manifests `, and the first cell of the command table.
fn mentions(readme: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for info in ["sh", "text", ""] {
        for line in block_lines(readme, info) {
            let line = line
                .strip_prefix("cargo run --locked -- ")
                .map(|rest| format!("po-manifests {rest}"))
                .unwrap_or(line);
            if let Some(rest) = line.strip_prefix("po-manifests ") {
                out.extend(command_of(rest));
            }
        }
    }
    for (i, span) in readme.split('`').enumerate() {
        if i % 2 == 1
            && let Some(rest) = span.strip_prefix("po-manifests ")
        {
            out.extend(command_of(rest));
        }
    }
    for line in readme.lines() {
        if let Some(rest) = line.strip_prefix("| `")
            && let Some((cell, _)) = rest.split_once("` |")
        {
            out.extend(command_of(&cell.replace("\\|", "|")));
        }
    }
    out
}

#[test]
fn every_flag_the_readme_gives_a_command_is_in_its_help() {
    let mentions: Vec<(String, String)> = pages()
        .iter()
        .flat_map(|(_, text)| mentions(text))
        .collect();
    let mut help: BTreeMap<String, String> = BTreeMap::new();
    let mut checked = 0;
    for (command, text) in &mentions {
        let help = help.entry(command.clone()).or_insert_with(|| {
            let out = cmd()
                .args(command.split(' '))
                .arg("--help")
                .output()
                .unwrap();
            assert!(out.status.success(), "po-manifests {command} --help");
            String::from_utf8_lossy(&out.stdout).into_owned()
        });
        for flag in flags_in(text) {
            let present = if flag == "-o" {
                help.contains("-o, --output")
            } else {
                help.split(|c: char| c.is_whitespace() || c == ',')
                    .any(|w| w == flag)
            };
            assert!(
                present,
                "the README gives `po-manifests {command}` the flag {flag}, which `po-manifests {command} --help` does not list (in: {text})"
            );
            checked += 1;
        }
        // `-o FORMAT` names a format the command takes (`text` is `table`'s other name).
        // `--help` lists them as `- NAME: what it is` lines under the flag.
        let values: Vec<String> = help
            .split_once("-o, --output")
            .map(|(_, rest)| rest.split_once("[default").map_or(rest, |(v, _)| v))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.trim().strip_prefix("- "))
            .filter_map(|l| l.split_once(':').map(|(name, _)| name.to_string()))
            .collect();
        for format in formats_in(text) {
            let name = if format == "text" { "table" } else { &format };
            assert!(
                values.iter().any(|v| v == name),
                "the README gives `po-manifests {command}` `-o {format}`, but it takes {values:?} (in: {text})"
            );
        }
    }
    assert!(checked >= 50, "only {checked} flags checked");
    // Every command is in the command table.
    for command in [
        "create",
        "resolve",
        "range",
        "catalog validate",
        "catalog list",
        "bundle render",
        "bundle pull",
        "images",
        "mirror-config",
        "upgrade-plan",
        "check",
        "completion",
        "man",
    ] {
        assert!(
            mentions.iter().any(|(c, _)| c == command),
            "the README never gives `{command}` with its flags"
        );
    }
}

/// The helpers read the README as a shell would.
#[test]
fn readme_lines_are_split_as_a_shell_splits_them() {
    assert_eq!(
        shell_words(r#"po-manifests range ">=1.12.0 <1.14.0" 1.12.0 'a b' c\ d  # exit status 1"#),
        (
            [
                "po-manifests",
                "range",
                ">=1.12.0 <1.14.0",
                "1.12.0",
                "a b",
                "c d"
            ]
            .map(String::from)
            .to_vec(),
            "exit status 1".to_string()
        )
    );
    let (examples, others) = examples(
        "```sh\n# a comment\npo-manifests check \\\n  --dir D  # exit status 1\ncargo test\n```\n```yaml\npo-manifests no\n```\n",
    );
    assert_eq!(examples.len(), 1);
    assert_eq!(examples[0].args, ["check", "--dir", "D"]);
    assert_eq!(examples[0].status, 1);
    assert_eq!(examples[0].line, "po-manifests check --dir D");
    assert_eq!(others, ["cargo test"]);
    assert_eq!(
        flags_in("create --dir D [--config F] [-o table|json] --no-wait"),
        ["--dir", "--config", "-o", "--no-wait"]
    );
}

/// Every note of a test that skips itself is one sentence shape, `skipped TEST: REASON`, and
/// every test of the real data says the same one when `../shared/realdata` is absent: the
/// sentence the README quotes.
#[test]
fn every_skip_note_says_the_same_sentence() {
    const REALDATA: &str = "skipped {test}: ../shared/realdata is not there";
    let mut notes = Vec::new();
    for dir in ["src", "tests", "benches"] {
        for entry in walkdir::WalkDir::new(root().join(dir)) {
            let entry = entry.unwrap();
            if entry.path().extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let text = std::fs::read_to_string(entry.path()).unwrap();
            for (i, line) in text.lines().enumerate() {
                let code = line.split("//").next().unwrap();
                let mut rest = code;
                while let Some(at) = rest.find("!(\"skipped") {
                    rest = &rest[at + 3..];
                    let literal = rest.split('"').next().unwrap();
                    notes.push((
                        format!("{}:{}", entry.path().display(), i + 1),
                        literal.to_string(),
                    ));
                }
            }
        }
    }
    assert!(notes.len() >= 5, "{notes:?}");
    for (at, note) in &notes {
        let (head, reason) = note
            .split_once(": ")
            .unwrap_or_else(|| panic!("{at}: {note:?} is not `skipped TEST: REASON`"));
        assert!(
            head.starts_with("skipped ") && !head[8..].contains(' ') && !reason.is_empty(),
            "{at}: {note:?} is not `skipped TEST: REASON`"
        );
        if note.contains("realdata") {
            assert_eq!(note, REALDATA, "{at}");
        }
    }
    assert_eq!(
        notes.iter().filter(|(_, n)| n == REALDATA).count(),
        2,
        "one realdata helper for the library's tests, one for the integration tests: {notes:?}"
    );
    let quoted = REALDATA.replace("{test}", "…");
    assert!(
        readme().contains(&format!("`{quoted}`")),
        "the README quotes the note as `{quoted}`"
    );
}
