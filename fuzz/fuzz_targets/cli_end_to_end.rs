//! Fuzz the command line end to end, in-process (issue 26 part 2): the first input byte picks
//! which file of a copy of `testdata/example` the rest of the input replaces (the
//! configuration, install-config or a catalog file); then `resolve`, `create`, `check`,
//! `catalog validate` and `bundle render --all` run on it through `po_manifests::cli::run`.
//! Each must end with exit status 0, 1, 2 or 3; a panic is a finding (libFuzzer reports it).
//! The same driver runs 48 cases in CI as a proptest (`tests/it/fuzz_cli.rs`).
#![no_main]

use std::path::{Path, PathBuf};

use clap::Parser as _;
use libfuzzer_sys::fuzz_target;
use po_manifests::cli::{self, Flags};

const TARGETS: &[&str] = &[
    "platform-operators.yaml",
    "install-config.yaml",
    "catalog/acme-cert-operator/catalog.json",
    "catalog/acme-cloud-controller/catalog.json",
];

fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create");
    for e in std::fs::read_dir(from).expect("read the example") {
        let e = e.expect("entry");
        let target = to.join(e.file_name());
        if e.file_type().expect("type").is_dir() {
            copy(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).expect("copy");
        }
    }
}

fn run(args: &[String]) -> u8 {
    let Ok(flags) = Flags::try_parse_from(args) else {
        return cli::EXIT_USAGE;
    };
    let (mut out, mut err) = (Vec::new(), Vec::new());
    match cli::run(flags, &mut out, &mut err) {
        Ok(code) => code,
        Err(e) => {
            for r in cli::diagnostics::error(&e) {
                let _ = r.render(false);
            }
            e.exit_code()
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let example = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../testdata/example");
    let dir = tempfile::tempdir().expect("a temporary directory");
    copy(&example, dir.path());
    std::fs::write(dir.path().join(TARGETS[pick as usize % TARGETS.len()]), rest).expect("write");
    let d = dir.path().display().to_string();
    let cache = dir.path().join(".cache").display().to_string();
    let catalog = dir.path().join("catalog").display().to_string();
    let rendered = dir.path().join("rendered").display().to_string();
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    for args in [
        s(&["po-manifests", "resolve", "--offline", "--explain", "--cache-dir", &cache, "--dir", &d]),
        s(&["po-manifests", "create", "--offline", "--no-wait", "--cache-dir", &cache, "--dir", &d]),
        s(&["po-manifests", "check", "--dir", &d]),
        s(&["po-manifests", "catalog", "validate", &catalog]),
        s(&["po-manifests", "bundle", "render", "--catalog", &catalog, "--all", "--namespace", "fuzz", "--output-dir", &rendered]),
    ] {
        let code = run(&args);
        assert!(code <= 3, "{args:?} exited {code}");
    }
});
