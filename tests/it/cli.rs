//! The interface as a whole: the README's command table against `--help`, and shell
//! completions.

use std::collections::BTreeSet;

use crate::common::{cmd, root};

fn help(words: &[&str]) -> String {
    let out = cmd().args(words).arg("--help").output().unwrap();
    assert!(out.status.success(), "{words:?} --help failed");
    String::from_utf8(out.stdout).unwrap()
}

/// The subcommands a `--help` lists.
fn subcommands(help: &str) -> Vec<String> {
    let Some(start) = help.find("Commands:\n") else {
        return Vec::new();
    };
    help[start + 10..]
        .lines()
        .take_while(|l| !l.trim().is_empty())
        // A wrapped description goes on deeper-indented lines.
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|w| *w != "help")
        .map(String::from)
        .collect()
}

/// Every command path of the binary (`create`, `catalog validate`, …).
fn every_command() -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for top in subcommands(&help(&[])) {
        let nested = subcommands(&help(&[&top]));
        if nested.is_empty() {
            out.push(vec![top]);
        } else {
            for sub in nested {
                out.push(vec![top.clone(), sub]);
            }
        }
    }
    out
}

/// The README's `## Commands` table: per row the command words and every flag it mentions,
/// with the values it lists for `-o`.
fn readme_rows() -> Vec<(Vec<String>, Vec<String>, Vec<String>)> {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let start = readme.find("| command | what it does |").unwrap();
    readme[start..]
        .lines()
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|l| {
            let cell = l.split('`').nth(1).unwrap().replace("\\|", "|");
            let words: Vec<String> = cell
                .split_whitespace()
                .take_while(|w| w.chars().all(|c| c.is_ascii_lowercase() || c == '-'))
                .take_while(|w| !w.starts_with('-'))
                .map(String::from)
                .collect();
            let flags: Vec<String> = cell
                .split(|c: char| c.is_whitespace() || c == '[' || c == ']')
                .filter(|w| w.starts_with('-') && w.len() > 1)
                .map(String::from)
                .collect();
            let formats = cell
                .split("-o ")
                .nth(1)
                .map(|v| {
                    v.split(|c: char| c.is_whitespace() || c == ']')
                        .next()
                        .unwrap()
                        .split('|')
                        .map(String::from)
                        .collect()
                })
                .unwrap_or_default();
            (words, flags, formats)
        })
        .collect()
}

#[test]
fn readme_command_table_matches_the_binary() {
    let rows = readme_rows();
    let documented: BTreeSet<Vec<String>> = rows.iter().map(|r| r.0.clone()).collect();
    let commands: BTreeSet<Vec<String>> = every_command().into_iter().collect();
    assert_eq!(
        documented, commands,
        "the README's command table and the binary's commands differ"
    );
    for (words, flags, formats) in rows {
        let words: Vec<&str> = words.iter().map(String::as_str).collect();
        let text = help(&words);
        for flag in &flags {
            let needle = if flag.starts_with("--") {
                format!("{flag} ")
            } else {
                format!("{flag}, ")
            };
            assert!(
                text.contains(&needle) || text.contains(&format!("{flag}\n")),
                "README: `{}` has {flag}, which its --help does not list:\n{text}",
                words.join(" ")
            );
        }
        for format in formats {
            assert!(
                text.contains(&format!("- {format}:")),
                "README: `{} -o {format}` is not a value its --help lists:\n{text}",
                words.join(" ")
            );
        }
    }
}

#[test]
fn every_data_command_takes_the_same_output_formats() {
    for words in [
        &["create"][..],
        &["resolve"],
        &["images"],
        &["upgrade-plan"],
        &["catalog", "validate"],
        &["catalog", "list"],
    ] {
        let text = help(words);
        for f in ["- table:", "- json:", "- yaml:"] {
            assert!(text.contains(f), "{words:?} lacks -o {f}:\n{text}");
        }
    }
    // `text` is still accepted as the table.
    let dir = crate::common::example();
    cmd()
        .args(["resolve", "-o", "text", "--dir"])
        .arg(dir.path())
        .assert()
        .success();
}

#[test]
fn completions_for_every_shell() {
    for (shell, marker) in [
        ("bash", "complete -F"),
        ("zsh", "#compdef po-manifests"),
        ("fish", "complete -c po-manifests"),
        ("powershell", "Register-ArgumentCompleter"),
    ] {
        let out = cmd().args(["completion", shell]).output().unwrap();
        assert!(out.status.success(), "{shell}");
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(text.contains(marker), "{shell}: no {marker:?}");
        assert!(text.contains("upgrade-plan"), "{shell}: no subcommand");
        assert!(text.contains("allow-unchecked"), "{shell}: no flag");
    }
    cmd().args(["completion", "tcsh"]).assert().code(2);
}

/// `man` prints po-manifests(1) from the same definition as `--help`; `--output-dir` writes one
/// page per command, each naming its flags.
#[test]
fn man_pages_for_every_command() {
    let out = cmd().arg("man").output().unwrap();
    assert!(out.status.success());
    let page = String::from_utf8(out.stdout).unwrap();
    assert!(page.starts_with(".ie \\n(.g .ds Aq"), "not roff:\n{page}");
    assert!(page.contains(".TH po-manifests 1"), "{page}");
    for command in ["create", "upgrade-plan", "completion", "man"] {
        // roff writes a hyphen as `\-`.
        let roff = command.replace('-', "\\-");
        assert!(page.contains(&roff), "po-manifests(1) lacks {command}");
    }

    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("man1");
    let out = cmd()
        .args(["man", "--output-dir"])
        .arg(&out_dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let listed: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    let mut expected = vec!["po-manifests.1".to_string()];
    for words in every_command() {
        if words.len() == 2 {
            let parent = format!("po-manifests-{}.1", words[0]);
            if !expected.contains(&parent) {
                expected.push(parent);
            }
        }
        expected.push(format!("po-manifests-{}.1", words.join("-")));
    }
    let mut written: Vec<String> = std::fs::read_dir(&out_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    written.sort();
    expected.sort();
    assert_eq!(written, expected);
    assert_eq!(listed.len(), written.len());
    let create = std::fs::read_to_string(out_dir.join("po-manifests-create.1")).unwrap();
    assert!(create.contains(".TH po-manifests-create 1"), "{create}");
    for flag in ["allow\\-tags", "no\\-wait", "locked"] {
        assert!(
            create.contains(flag),
            "po-manifests-create(1) lacks --{flag}"
        );
    }
    // A folder that cannot be made is an I/O error, and nothing is printed.
    let file = dir.path().join("file");
    std::fs::write(&file, "").unwrap();
    let out = cmd()
        .args(["man", "--output-dir"])
        .arg(file.join("man1"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert!(out.stdout.is_empty());
}

#[test]
fn create_json_lists_the_written_files_and_the_lock_summary() {
    let dir = crate::common::example();
    let out = cmd()
        .args(["create", "-o", "json", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let written = v["written"].as_array().unwrap();
    assert!(!written.is_empty());
    for f in written {
        assert!(std::path::Path::new(f.as_str().unwrap()).is_file(), "{f}");
    }
    assert!(
        v["lockFile"]
            .as_str()
            .unwrap()
            .ends_with("platform-operators.lock.yaml")
    );
    assert_eq!(v["clusterVersion"], "4.14.8");
    assert_eq!(v["operators"][0]["name"], "cert-operator");
    assert_eq!(v["operators"][0]["version"], "1.2.0");
}

#[test]
fn one_problem_of_several_operators_is_printed_once_with_its_place() {
    let dir = crate::common::example();
    crate::common::without_external_ccm(dir.path());
    let config = dir.path().join("platform-operators.yaml");
    let text = std::fs::read_to_string(&config)
        .unwrap()
        .replace("\"4.14.8\"", "\"4.18.3\"");
    let text = format!(
        "{}  - name: cert-operator-2\n    package: acme-cert-operator\n    namespace: acme-cert-2\n",
        &text[..text.find("  - name: cloud-controller").unwrap()]
    );
    std::fs::write(&config, text).unwrap();
    let out = cmd()
        .args(["create", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.matches("has no `image:`").count(), 1, "{err}");
    assert!(
        err.contains("operators \"cert-operator\", \"cert-operator-2\": "),
        "{err}"
    );
    assert!(
        err.contains("platform-operators.yaml:5:11: catalog \"redhat-operators\" has no `image:`"),
        "{err}"
    );
}

#[test]
fn catalog_validate_failure_does_not_suggest_catalog_validate() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("c.json"), "{\"schema\": ").unwrap();
    let out = cmd()
        .args(["catalog", "validate"])
        .arg(dir.path().join("c.json"))
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("po-manifests catalog validate"), "{err}");
}

/// `--help` wraps to the terminal's width (clap's `wrap_help`; `COLUMNS` where stdout is not a
/// terminal), rather than printing each flag's text as one long line.
#[test]
fn help_wraps_to_the_terminal() {
    for words in [
        &["create"][..],
        &["resolve"],
        &["catalog", "list"],
        &["upgrade-plan"],
    ] {
        let out = cmd()
            .args(words)
            .arg("--help")
            .env("COLUMNS", "60")
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        let widest = text.lines().map(|l| l.chars().count()).max().unwrap_or(0);
        assert!(widest <= 60, "{words:?} --help is {widest} wide:\n{text}");
    }
}

/// `upgrade-plan` prints its plan on stdout and its warnings on stderr.
#[test]
fn upgrade_plan_warnings_go_to_stderr() {
    let dir = crate::common::example();
    let out = cmd()
        .args(["upgrade-plan", "--to", "4.14.8", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stdout.starts_with("Upgrade plan: OpenShift 4.14.8"),
        "{stdout}"
    );
    assert!(!stdout.contains("warning"), "{stdout}");
    assert!(
        stderr.contains("operator \"cert-operator\" is not installed"),
        "{stderr}"
    );
}
