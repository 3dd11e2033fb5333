//! Issue 22 part 2: every table fits an 80-column terminal (`COLUMNS=80`, and 80 when stdout is
//! not a terminal), and `-o wide` shows every cell whole. Lists of file paths (`create`'s
//! written files) and of image references (`images`) are data that scripts read, printed
//! whole; they are not tables.

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

#[test]
fn every_table_fits_80_columns() {
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
        &["catalog", "list", "bundles", "catalog"],
        &["upgrade-plan", "--to", "4.15.3", "--dir", "."],
        &["upgrade-plan", "--explain", "--to", "4.15.3", "--dir", "."],
        &["create", "--explain", "--dir", "."],
    ];
    for args in commands {
        for columns in [Some("80"), None] {
            let text = run(args, d, columns);
            assert!(!text.is_empty(), "{args:?}");
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
}

#[test]
fn a_wider_terminal_gets_wider_tables_and_digests_stay_whole_in_wide() {
    let dir = example();
    let d = dir.path();
    let narrow = run(&["resolve", "--explain", "--dir", "."], d, Some("60"));
    assert!(widest(&narrow) <= 60, "{narrow}");
    let roomy = run(&["resolve", "--explain", "--dir", "."], d, Some("200"));
    assert!(roomy.contains("acme-cert-operator.v1.3.0-rc.1"), "{roomy}");
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
fn real_catalogs_list_within_80_columns() {
    let Some(real) = realdata("real_catalogs_list_within_80_columns") else {
        return;
    };
    for catalog in ["community-fbc-small", "redhat-catalog-excerpts"] {
        let path = real.join(catalog);
        if !path.exists() {
            continue;
        }
        for what in ["packages", "channels", "bundles"] {
            for entry in std::fs::read_dir(&path).unwrap() {
                let entry = entry.unwrap().path();
                if !entry.is_dir() {
                    continue;
                }
                let text = run(
                    &["catalog", "list", what, entry.to_str().unwrap()],
                    &real,
                    Some("80"),
                );
                assert!(widest(&text) <= 80, "{what} {}:\n{text}", entry.display());
            }
        }
    }
}
