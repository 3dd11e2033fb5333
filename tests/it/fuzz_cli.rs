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
    GRAPH,
];

/// An update graph document beside the example (issue 34): 4.14.8 → 4.14.9 → 4.15.3, one
/// edge conditional, for `upgrade-plan --update-graph` to read and the fuzzer to damage.
const GRAPH: &str = "update-graph.json";

fn graph_document() -> String {
    let node = |v: &str, channels: &str| {
        serde_json::json!({"version": v, "payload": format!("quay.io/openshift-release-dev/ocp-release@sha256:{}", "ab".repeat(32)),
            "metadata": {"io.openshift.upgrades.graph.release.channels": channels}})
    };
    serde_json::to_string_pretty(&serde_json::json!({
        "nodes": [node("4.14.8", "stable-4.14,stable-4.15"), node("4.14.9", "stable-4.14,stable-4.15"), node("4.15.3", "stable-4.15")],
        "edges": [[0, 1]],
        "conditionalEdges": [{"edges": [{"from": "4.14.9", "to": "4.15.3"}],
            "risks": [{"name": "SomeRisk", "url": "https://example.test/risk", "message": "m",
                "matchingRules": [{"type": "PromQL", "promql": {"promql": "up"}}]}]}]
    }))
    .unwrap()
}

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
        s(&[
            "po-manifests",
            "upgrade-plan",
            "--offline",
            "--allow-not-recommended",
            "--from",
            "4.14.8",
            "--to",
            "4.15",
            "--update-graph",
            &dir.join(GRAPH).display().to_string(),
            "-o",
            "mermaid",
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
        std::fs::write(dir.path().join(GRAPH), graph_document()).unwrap();
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

/// Issue 34: what a registry's token service answers, and how `/v2/` challenges, from a
/// loopback registry: `bundle pull` ends with an exit status, never a panic, whatever they are.
fn challenge() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("Bearer realm=\"https://127.0.0.1:{port}/token\",service=\"fuzz\"".to_string()),
        Just("Bearer realm=\"http://127.0.0.1:{port}/token\"".to_string()),
        Just("Basic realm=\"x\", Bearer realm=\"https://127.0.0.1:{port}/token\"".to_string()),
        Just("Bearer realm=https://127.0.0.1:{port}/token".to_string()),
        Just("Basic realm=\"fuzz\"".to_string()),
        hostile().prop_map(|h| format!("Bearer realm=\"{h}\"")),
        hostile(),
    ]
}

fn token_body() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        Just(br#"{"token":"t0k3n","expires_in":300}"#.to_vec()),
        Just(br#"{"access_token":"a"}"#.to_vec()),
        Just(br#"{"token":"a\r\nX: 1"}"#.to_vec()),
        Just(br#"{"token":7}"#.to_vec()),
        Just(vec![b'{'; 40_000]),
        hostile().prop_map(|h| format!("{{\"token\":{h:?}}}").into_bytes()),
        hostile().prop_map(String::into_bytes),
        prop::collection::vec(any::<u8>(), 0..64),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(12),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn bundle_pull_ends_with_an_exit_status_on_any_token_answer(
        challenge in challenge(),
        body in token_body(),
        credentials in any::<bool>(),
    ) {
        use crate::net::{Reply, serve, tls};
        let t = tls();
        let port = std::sync::Arc::new(std::sync::atomic::AtomicU16::new(0));
        let p = port.clone();
        let server = serve(&t, move |_, path| {
            let port = p.load(std::sync::atomic::Ordering::SeqCst);
            if path == "/v2/" {
                return Reply::Challenge(challenge.replace("{port}", &port.to_string()).replace(['\r', '\n'], " "));
            }
            if path.starts_with("/token") {
                return Reply::Raw { headers: String::new(), body: body.clone() };
            }
            Reply::Status(404)
        });
        port.store(server.port, std::sync::atomic::Ordering::SeqCst);
        let work = tempfile::tempdir().unwrap();
        let ca = work.path().join("ca.pem");
        std::fs::write(&ca, &t.ca_pem).unwrap();
        let mut args: Vec<String> = [
            "po-manifests", "bundle", "pull",
            &format!("127.0.0.1:{}/fuzz/bundle@sha256:{}", server.port, "ab".repeat(32)),
            "--retries", "0", "--timeout", "10s",
        ].iter().map(|s| s.to_string()).collect();
        for (flag, value) in [("--ca-file", ca), ("--cache-dir", work.path().join("cache")), ("--output-dir", work.path().join("out"))] {
            args.push(flag.into());
            args.push(value.display().to_string());
        }
        if credentials {
            let auth = work.path().join("auth.json");
            std::fs::write(&auth, format!(r#"{{"auths":{{"127.0.0.1:{}":{{"username":"u","password":"p"}}}}}}"#, server.port)).unwrap();
            args.push("--authfile".into());
            args.push(auth.display().to_string());
        }
        let outcome = run(&args);
        prop_assert!(matches!(outcome, Ok(0..=3)), "{args:?}: {outcome:?}");
    }

    /// Graph documents damaged any way merge or fail, and a path is asked for, without a panic.
    #[test]
    fn damaged_graph_documents_never_panic_the_builder(
        damages in prop::collection::vec(damage(), 1..3),
        twice in any::<bool>(),
    ) {
        use po_manifests::openshift::ClusterVersion;
        use po_manifests::upgrade::graph::{Builder, Query};
        let mut bytes = graph_document().into_bytes();
        for d in &damages {
            bytes = apply(&bytes, d);
        }
        let outcome = std::panic::catch_unwind(|| {
            let mut b = Builder::new();
            let _ = b.add("a.json", &bytes, None);
            if twice {
                let _ = b.add("b.json", &bytes, Some("stable-4.15".into()));
            }
            let g = b.finish();
            let (from, to) = (ClusterVersion::parse("4.14.8").unwrap(), ClusterVersion::parse("4.15").unwrap());
            let _ = g.path(&Query { from: &from, to: &to, channel: None, allow_not_recommended: true });
        });
        prop_assert!(outcome.is_ok(), "{damages:?}");
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
