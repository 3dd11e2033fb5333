//! Issue 26 part 2: the command line fuzzed end to end, in-process. The shipped example's
//! configuration, install-config and catalog are mutated (cut short, bytes flipped, hostile
//! values and long lines put in, keys repeated), then `resolve`, `create`, `check`,
//! `catalog validate`, `catalog list` and `bundle render --all` run on them through
//! `po_manifests::cli::run`, exactly as `main` calls it. Whatever the input, a command ends with
//! exit status 0, 1, 2 or 3 and never panics. `cargo +nightly fuzz run cli_end_to_end` runs the
//! same driver under libFuzzer for longer (`fuzz/fuzz_targets/cli_end_to_end.rs`).

use std::path::Path;

use clap::Parser as _;
use po_manifests::cli::{self, Flags};
use proptest::prelude::*;

use crate::common::{copy_dir, root};

/// Run one command line in-process: its exit status, or the panic's message.
fn run(args: &[String]) -> Result<u8, String> {
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let flags = match Flags::try_parse_from(args) {
            Ok(f) => f,
            Err(e) => return if e.use_stderr() { cli::EXIT_USAGE } else { 0 },
        };
        let (mut out, mut err) = (Vec::new(), Vec::new());
        match cli::run(flags, &mut out, &mut err) {
            Ok(code) => code,
            Err(e) => {
                // The diagnostics are rendered too: they must not panic either.
                for report in cli::diagnostics::error(&e) {
                    let _ = report.render(false);
                }
                e.exit_code()
            }
        }
    }));
    outcome.map_err(|p| {
        p.downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "a panic".into())
    })
}

/// Text that breaks parsers and printers.
fn hostile() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("../../etc/passwd".to_string()),
        Just("\u{1b}[2J\u{9b}31m\u{202e}".to_string()),
        Just("\"".to_string()),
        Just("{".to_string()),
        Just("- - - ]".to_string()),
        Just("&a [*a, *a]".to_string()),
        Just("!!binary AAAA".to_string()),
        Just("9".repeat(400)),
        Just("ä".repeat(300)),
        Just("x".repeat(70_000)),
        Just(String::new()),
        Just("null".to_string()),
        Just("4.99999999999999999999".to_string()),
        Just(">=1.0.0 <1.0.0 || !!".to_string()),
        "[ -~]{0,20}",
    ]
}

/// One way of damaging a text file.
#[derive(Debug, Clone)]
enum Damage {
    /// Cut it at this fraction of its length (on a character boundary).
    Truncate(f64),
    /// Flip this byte (the file may then not be UTF-8).
    Flip(f64, u8),
    /// Put text in at this fraction of its length.
    Insert(f64, String),
    /// Replace the value of the line at this fraction with text.
    Value(f64, String),
    /// Repeat the line at this fraction.
    Repeat(f64),
}

fn damage() -> impl Strategy<Value = Damage> {
    let at = 0.0f64..1.0;
    prop_oneof![
        at.clone().prop_map(Damage::Truncate),
        (at.clone(), any::<u8>()).prop_map(|(a, b)| Damage::Flip(a, b)),
        (at.clone(), hostile()).prop_map(|(a, t)| Damage::Insert(a, t)),
        (at.clone(), hostile()).prop_map(|(a, t)| Damage::Value(a, t)),
        at.prop_map(Damage::Repeat),
    ]
}

fn apply(bytes: &[u8], d: &Damage) -> Vec<u8> {
    let at = |f: f64| ((bytes.len() as f64) * f) as usize;
    let text = String::from_utf8_lossy(bytes).into_owned();
    let boundary = |mut i: usize| {
        i = i.min(text.len());
        while !text.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    match d {
        Damage::Truncate(f) => text.as_bytes()[..boundary(at(*f))].to_vec(),
        Damage::Flip(f, b) => {
            let mut out = bytes.to_vec();
            if !out.is_empty() {
                let i = at(*f).min(out.len() - 1);
                out[i] ^= b | 1;
            }
            out
        }
        Damage::Insert(f, t) => {
            let i = boundary(at(*f));
            format!("{}{t}{}", &text[..i], &text[i..]).into_bytes()
        }
        Damage::Value(f, t) => {
            let lines: Vec<&str> = text.lines().collect();
            if lines.is_empty() {
                return t.clone().into_bytes();
            }
            let n = ((lines.len() as f64) * f) as usize % lines.len();
            let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
            if let Some((key, _)) = out[n].split_once(':') {
                out[n] = format!("{key}: {t}");
            } else {
                out[n] = t.clone();
            }
            (out.join("\n") + "\n").into_bytes()
        }
        Damage::Repeat(f) => {
            let lines: Vec<&str> = text.lines().collect();
            if lines.is_empty() {
                return bytes.to_vec();
            }
            let n = ((lines.len() as f64) * f) as usize % lines.len();
            let mut out: Vec<&str> = lines.clone();
            out.insert(n, lines[n]);
            (out.join("\n") + "\n").into_bytes()
        }
    }
}

/// Which file of the install directory is damaged.
const TARGETS: &[&str] = &[
    "platform-operators.yaml",
    "install-config.yaml",
    "catalog/acme-cert-operator/catalog.json",
    "catalog/acme-cloud-controller/catalog.json",
];

/// Links put into the install directory (name, target outside it), one per case.
const LINKS: &[Option<(&str, &str)>] = &[
    None,
    Some(("platform-operators.lock.yaml", "secret")),
    Some(("manifests", "folder")),
    Some(("openshift", "folder")),
];

fn commands(dir: &Path) -> Vec<Vec<String>> {
    let d = dir.display().to_string();
    let cache = dir.join(".cache").display().to_string();
    let catalog = dir.join("catalog").display().to_string();
    let out = dir.join("rendered").display().to_string();
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    vec![
        s(&[
            "po-manifests",
            "resolve",
            "--offline",
            "--allow-unchecked",
            "--cache-dir",
            &cache,
            "--dir",
            &d,
        ]),
        s(&[
            "po-manifests",
            "resolve",
            "-o",
            "json",
            "--offline",
            "--explain",
            "--cache-dir",
            &cache,
            "--dir",
            &d,
        ]),
        s(&[
            "po-manifests",
            "create",
            "--offline",
            "--explain",
            "--no-wait",
            "--cache-dir",
            &cache,
            "--dir",
            &d,
        ]),
        s(&["po-manifests", "check", "--dir", &d]),
        s(&["po-manifests", "catalog", "validate", &catalog]),
        s(&["po-manifests", "catalog", "list", "bundles", &catalog]),
        s(&[
            "po-manifests",
            "bundle",
            "render",
            "--catalog",
            &catalog,
            "--all",
            "--namespace",
            "fuzz",
            "--output-dir",
            &out,
        ]),
        s(&[
            "po-manifests",
            "upgrade-plan",
            "--offline",
            "--to",
            "4.15.3",
            "--dir",
            &d,
        ]),
    ]
}

proptest! {
    // 48 cases in CI; `PROPTEST_CASES=5000` for a longer hunt.
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(48),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Any damage to any input: every command ends with 0, 1, 2 or 3, never a panic.
    #[test]
    fn every_command_ends_with_an_exit_status_on_any_input(
        target in 0..TARGETS.len(),
        damages in prop::collection::vec(damage(), 1..3),
        link in 0..LINKS.len(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        copy_dir(&root().join("testdata/example"), dir.path());
        // Issue 34: a link out of the directory, to a folder and a file outside that no
        // command may change.
        let outside = tempfile::tempdir().unwrap();
        std::fs::create_dir(outside.path().join("folder")).unwrap();
        std::fs::write(outside.path().join("folder/99_po_victim.yaml"), "kind: ConfigMap\n").unwrap();
        std::fs::write(outside.path().join("secret"), "root:$6$SECRET:19000::::::\n").unwrap();
        if let Some((name, to)) = LINKS[link] {
            let at = dir.path().join(name);
            let _ = std::fs::remove_dir_all(&at);
            let _ = std::fs::remove_file(&at);
            std::os::unix::fs::symlink(outside.path().join(to), dir.path().join(name)).unwrap();
        }
        let before = crate::common::tree(outside.path());
        let path = dir.path().join(TARGETS[target]);
        let mut bytes = std::fs::read(&path).unwrap();
        for d in &damages {
            bytes = apply(&bytes, d);
        }
        std::fs::write(&path, &bytes).unwrap();
        for args in commands(dir.path()) {
            let outcome = run(&args);
            prop_assert!(
                matches!(outcome, Ok(0..=3)),
                "{args:?} on {} damaged by {damages:?}: {outcome:?}",
                TARGETS[target]
            );
        }
        prop_assert_eq!(&before, &crate::common::tree(outside.path()), "{:?}", LINKS[link]);
    }
}

/// The driver runs a command as `main` does: the example resolves (exit 0), and a usage error
/// is exit 2, so the property above compares real exit statuses.
#[test]
fn the_driver_runs_commands_as_main_does() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&root().join("testdata/example"), dir.path());
    let args = &commands(dir.path())[0];
    assert_eq!(run(args), Ok(0));
    let bad: Vec<String> = ["po-manifests", "resolve", "--no-such-flag"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(run(&bad), Ok(cli::EXIT_USAGE));
}
