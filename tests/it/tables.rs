//! Issue 22 part 2 and issue 35 item 2: tables at an 80-column terminal (`COLUMNS=80`, and 80
//! when stdout is not a terminal) never cut a name people copy (package, bundle, channel,
//! version, image): they leave out wide-only, empty and redundant columns and wrap prose, and
//! let a long name run over as kubectl does; `-o wide` shows every column. Lists of file paths
//! (`create`'s written files) and of image references (`images`) are data that scripts read,
//! printed whole; they are not tables.

use std::path::Path;

use crate::common::{cmd, example, realdata};

/// The widest line of `text`, in characters.
fn widest(text: &str) -> usize {
    text.lines().map(|l| l.chars().count()).max().unwrap_or(0)
}

/// Run `args` at `COLUMNS`, returning stdout (any exit code but a panic's).
fn run(args: &[&str], dir: &Path, columns: Option<&str>) -> String {
    let mut c = cmd();
    c.args(args).current_dir(dir);
    match columns {
        Some(n) => c.env("COLUMNS", n),
        None => c.env_remove("COLUMNS"),
    };
    let out = c.output().unwrap();
    assert_ne!(out.status.code(), Some(101), "{args:?} panicked");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Every string of `values` is a whole whitespace-separated word of `text`, or a whole
/// comma-separated part of one (a list cell): never cut.
fn assert_whole(text: &str, values: &[String], what: &str) {
    let words: std::collections::HashSet<&str> = text
        .split_whitespace()
        .flat_map(|w| std::iter::once(w).chain(w.split(',')))
        .collect();
    for v in values {
        assert!(
            words.contains(v.as_str()),
            "{what}: {v:?} is not whole in:\n{text}"
        );
    }
    assert!(!text.contains('…'), "{what}: something was cut:\n{text}");
}

/// The string values of `keys` in every object of a JSON array.
fn values(json: &str, keys: &[&str]) -> Vec<String> {
    let rows: Vec<serde_json::Value> = serde_json::from_str(json).unwrap();
    rows.iter()
        .flat_map(|r| {
            keys.iter()
                .filter_map(|k| r[*k].as_str().map(str::to_owned))
        })
        .filter(|v| !v.is_empty())
        .collect()
}

#[test]
fn the_examples_tables_fit_80_columns_without_cutting_a_name() {
    let dir = example();
    let d = dir.path();
    // A lock file, so upgrade-plan knows the installed bundles.
    cmd().args(["create", "--dir"]).arg(d).assert().success();
    let written: Vec<String> = std::fs::read_dir(d.join("manifests"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let commands: &[&[&str]] = &[
        &["resolve", "--dir", "."],
        &["resolve", "--explain", "--dir", "."],
        &["catalog", "list", "packages", "catalog"],
        &["catalog", "list", "channels", "catalog"],
        &[
            "catalog",
            "list",
            "bundles",
            "catalog",
            "--package",
            "acme-cert-operator",
        ],
        &["upgrade-plan", "--to", "4.15.3", "--dir", "."],
        &["upgrade-plan", "--explain", "--to", "4.15.3", "--dir", "."],
        &["create", "--explain", "--dir", "."],
    ];
    for args in commands {
        for columns in [Some("80"), None] {
            let text = run(args, d, columns);
            assert!(!text.is_empty(), "{args:?}");
            assert!(!text.contains('…'), "{args:?}: a cell was cut:\n{text}");
            // create also lists the files it wrote, one path a line: data, not a table.
            let table: String = text
                .lines()
                .filter(|l| !written.iter().any(|w| l.ends_with(w.as_str())))
                .map(|l| format!("{l}\n"))
                .collect();
            assert!(
                widest(&table) <= 80,
                "{args:?} at COLUMNS={columns:?} is {} wide:\n{table}",
                widest(&table)
            );
            let wide = run(&[&args[..], &["-o", "wide"]].concat(), d, columns);
            assert!(widest(&wide) >= widest(&table), "{args:?}: {wide}");
        }
    }
    // The example's tables are wider than 80 in full: the test above is not vacuous.
    let wide = run(&["resolve", "-o", "wide", "--dir", "."], d, Some("80"));
    assert!(widest(&wide) > 80, "{wide}");
    assert!(wide.contains("@sha256:"), "{wide}");
    // Every bundle, version and package of the resolution is whole in the fitted table.
    let resolved = run(&["resolve", "--dir", "."], d, Some("80"));
    for name in [
        "acme-cert-operator.v1.2.0",
        "acme-cloud-controller.v0.4.0",
        "acme-dns-operator.v2.1.0",
        "acme-cloud-controller",
    ] {
        assert!(
            resolved.split_whitespace().any(|w| w == name),
            "{name}: {resolved}"
        );
    }
}

#[test]
fn a_wider_terminal_gets_wider_tables_and_digests_stay_whole_in_wide() {
    let dir = example();
    let d = dir.path();
    let narrow = run(&["resolve", "--explain", "--dir", "."], d, Some("60"));
    assert!(!narrow.contains('…'), "{narrow}");
    let roomy = run(&["resolve", "--explain", "--dir", "."], d, Some("200"));
    assert!(roomy.contains("acme-cert-operator.v1.3.0-rc.1"), "{roomy}");
    assert!(roomy.contains("CATALOG"), "{roomy}");
    let bundles = run(
        &["catalog", "list", "bundles", "catalog", "-o", "wide"],
        d,
        Some("80"),
    );
    assert!(
        bundles.contains("IMAGE") && bundles.contains("@sha256:"),
        "{bundles}"
    );
    assert!(!bundles.contains('…'), "{bundles}");
}

#[test]
fn catalog_list_drops_redundant_and_empty_columns_and_takes_no_headers_and_names() {
    let dir = example();
    let d = dir.path();
    // --package: no PACKAGE column; no skips and nothing deprecated: no SKIPS, no DEPRECATED.
    let one = run(
        &[
            "catalog",
            "list",
            "bundles",
            "catalog",
            "--package",
            "acme-cert-operator",
        ],
        d,
        Some("80"),
    );
    let header = one.lines().next().unwrap();
    assert!(header.starts_with("CHANNEL "), "{one}");
    assert!(
        !header.contains("SKIPS") && !header.contains("DEPRECATED"),
        "{one}"
    );
    let bare = run(
        &[
            "catalog",
            "list",
            "bundles",
            "catalog",
            "--package",
            "acme-cert-operator",
            "--no-headers",
        ],
        d,
        Some("80"),
    );
    assert_eq!(
        bare,
        one.lines()
            .skip(1)
            .map(|l| format!("{l}\n"))
            .collect::<String>()
    );
    let names = run(
        &["catalog", "list", "bundles", "catalog", "-o", "name"],
        d,
        None,
    );
    assert!(
        names.lines().any(|l| l == "acme-cert-operator.v1.3.0-rc.1"),
        "{names}"
    );
    assert!(names.lines().all(|l| !l.contains(' ')), "{names}");
    let channels = run(
        &["catalog", "list", "channels", "catalog", "-o", "name"],
        d,
        None,
    );
    assert!(
        channels.lines().any(|l| l == "acme-cert-operator/stable"),
        "{channels}"
    );
    let packages = run(
        &["catalog", "list", "packages", "catalog", "-o", "name"],
        d,
        None,
    );
    assert!(
        packages.lines().any(|l| l == "acme-dns-operator"),
        "{packages}"
    );
    let resolved = run(&["resolve", "--no-headers", "--dir", "."], d, None);
    assert!(resolved.starts_with("cert-operator "), "{resolved}");
}

/// Real names (realdata's community and Red Hat catalog excerpts, bundle names up to 50-odd
/// characters) at 80 columns: every package, channel, bundle, version and replaced bundle of
/// the JSON rows is whole in the text table.
#[test]
fn real_catalogs_never_cut_a_name_at_80_columns() {
    let Some(real) = realdata("real_catalogs_never_cut_a_name_at_80_columns") else {
        return;
    };
    let (mut checked, mut longest) = (0, 0);
    for catalog in ["community-fbc-small", "redhat-catalog-excerpts"] {
        let path = real.join(catalog);
        if !path.exists() {
            eprintln!("{catalog} is not in ../shared/realdata: its names are not checked");
            continue;
        }
        for entry in std::fs::read_dir(&path).unwrap() {
            let entry = entry.unwrap().path();
            if !entry.is_dir() {
                continue;
            }
            let at = entry.to_str().unwrap();
            for (what, keys) in [
                ("packages", &["name", "defaultChannel"][..]),
                ("channels", &["package", "channel"][..]),
                (
                    "bundles",
                    &["package", "channel", "bundle", "version", "replaces"][..],
                ),
            ] {
                let json = run(&["catalog", "list", what, at, "-o", "json"], &real, None);
                let text = run(&["catalog", "list", what, at], &real, Some("80"));
                // A VERSION column left out as redundant: each bundle name holds its version.
                let header = text.lines().next().unwrap_or_default();
                let keys: Vec<&str> = keys
                    .iter()
                    .copied()
                    .filter(|k| *k != "version" || header.contains("VERSION"))
                    .collect();
                let expected = values(&json, &keys);
                assert_whole(&text, &expected, &format!("{what} {at}"));
                checked += expected.len();
                longest = expected
                    .iter()
                    .map(|v| v.len())
                    .chain([longest])
                    .max()
                    .unwrap();
            }
        }
    }
    // Names long enough that a cut would have happened before (issue 35).
    assert!(
        checked > 300 && longest > 45,
        "{checked} names, the longest {longest}"
    );
}
