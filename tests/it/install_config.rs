//! What `create` and `resolve` say when install-config is missing or refuses the install, and
//! when the install directory has not been through `openshift-install create manifests` yet.

use std::path::Path;

use crate::common::{cmd, example, normalize, tree};

/// The example with only its bootstrap cloud controller manager (which needs no featureSet).
fn ccm_only() -> tempfile::TempDir {
    let dir = example();
    let path = dir.path().join("platform-operators.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    let start = text.find("  - name: cert-operator").unwrap();
    let end = text.find("  - name: cloud-controller").unwrap();
    let dns = text.find("  - name: dns-operator").unwrap();
    std::fs::write(&path, format!("{}{}", &text[..start], &text[end..dns])).unwrap();
    dir
}

/// The installer's own `manifests/cluster-config.yaml`, as `create manifests` leaves it (with
/// the install-config it consumed).
fn installer_ran(dir: &Path) {
    let install_config = std::fs::read_to_string(dir.join("install-config.yaml")).unwrap();
    let indented: String = install_config
        .lines()
        .map(|l| format!("    {l}\n"))
        .collect();
    std::fs::create_dir_all(dir.join("manifests")).unwrap();
    std::fs::write(
        dir.join("manifests/cluster-config.yaml"),
        format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cluster-config-v1\n  namespace: kube-system\ndata:\n  install-config: |\n{indented}"),
    )
    .unwrap();
    std::fs::remove_file(dir.join("install-config.yaml")).unwrap();
}

#[test]
fn create_without_install_config_names_what_it_cannot_check_and_writes_nothing() {
    let dir = ccm_only();
    std::fs::remove_file(dir.path().join("install-config.yaml")).unwrap();
    let before = tree(dir.path());
    let out = cmd()
        .args(["create", "--dir"])
        .arg(dir.path())
        .assert()
        .code(1);
    assert_eq!(before, tree(dir.path()), "nothing is written");
    let stderr = normalize(&out.get_output().stderr, dir.path());
    insta::assert_snapshot!("create_without_install_config", stderr);
    // --allow-unchecked writes, and still says what was not checked.
    let out = cmd()
        .args(["create", "--allow-unchecked", "--dir"])
        .arg(dir.path())
        .assert()
        .success();
    let stderr = String::from_utf8_lossy(&out.get_output().stderr);
    assert!(
        stderr.contains("⚠ not checked: install-config: none found")
            && stderr.contains("ccm-requires-external"),
        "{stderr}"
    );
    assert!(!tree(&dir.path().join("manifests")).is_empty());
}

#[test]
fn resolve_without_install_config_lists_it_as_unchecked() {
    let dir = ccm_only();
    std::fs::remove_file(dir.path().join("install-config.yaml")).unwrap();
    let out = cmd()
        .args(["resolve", "-o", "json", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let unchecked = doc["unchecked"].as_array().unwrap();
    assert_eq!(unchecked.len(), 1, "{doc:#}");
    let text = unchecked[0].as_str().unwrap();
    assert!(
        text.starts_with("install-config: none found") && text.contains("external-without-ccm"),
        "{text}"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("not checked: install-config"), "{stderr}");
    cmd()
        .args(["resolve", "--allow-unchecked", "--dir"])
        .arg(dir.path())
        .assert()
        .success();
    // With install-config nothing is unchecked.
    let dir = ccm_only();
    let out = cmd()
        .args(["resolve", "-o", "json", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["unchecked"], serde_json::json!([]));
}

#[test]
fn external_platform_without_a_ccm_stops_create_as_check_does() {
    let dir = ccm_only();
    let path = dir.path().join("platform-operators.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    let cut = text.find("  - name: cloud-controller").unwrap();
    // Another operator, no cloud controller manager.
    std::fs::write(
        &path,
        format!(
            "{}  - name: dns-operator\n    package: acme-dns-operator\n    channel: stable\n    profile: subscription\n",
            &text[..cut]
        ),
    )
    .unwrap();
    let before = tree(dir.path());
    let out = cmd()
        .args(["create", "--dir"])
        .arg(dir.path())
        .assert()
        .code(1);
    assert_eq!(before, tree(dir.path()), "nothing is written");
    let stderr = String::from_utf8_lossy(&out.get_output().stderr);
    assert!(
        stderr.contains("× install-config.yaml:9: error[external-without-ccm]")
            && stderr.contains("nothing was written"),
        "{stderr}"
    );
    // check calls it fatal too (here on the directory as it is).
    cmd()
        .args(["check", "--dir"])
        .arg(dir.path())
        .assert()
        .code(1);
}

/// `create` before `openshift-install create manifests`: in a directory that holds nothing of
/// the installer yet (the quick starts' case) a note says what to run; in one that looks like an
/// installer's (its state file, or a file in manifests/ po-manifests did not write) but lacks
/// `manifests/cluster-config.yaml`, a warning.
#[test]
fn create_before_the_installer_made_its_manifests_says_so() {
    let warning = "manifests has none of the installer's own files (no manifests/cluster-config.yaml): run `openshift-install create manifests --dir";
    let note = "holds no files of openshift-install yet: before the install, run `openshift-install create manifests --dir";
    let create = |dir: &std::path::Path| {
        let out = cmd().args(["create", "--dir"]).arg(dir).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "{stderr}");
        stderr
    };
    let dir = ccm_only();
    let stderr = create(dir.path());
    assert!(
        stderr.contains(&format!("note: {}", dir.path().display())),
        "{stderr}"
    );
    assert!(
        stderr.contains(note) && !stderr.contains(warning),
        "{stderr}"
    );
    // Its own files from the first run do not make it an installer's directory.
    let stderr = create(dir.path());
    assert!(
        stderr.contains(note) && !stderr.contains(warning),
        "{stderr}"
    );
    for installer_file in [
        ".openshift_install_state.json",
        "manifests/cvo-overrides.yaml",
    ] {
        let dir = ccm_only();
        std::fs::create_dir_all(dir.path().join("manifests")).unwrap();
        std::fs::write(dir.path().join(installer_file), "{}\n").unwrap();
        let stderr = create(dir.path());
        assert!(
            stderr.contains(warning) && !stderr.contains(note),
            "{installer_file}: {stderr}"
        );
    }
    // After `create manifests`: neither, and the facts come from cluster-config.yaml.
    let dir = ccm_only();
    installer_ran(dir.path());
    let stderr = create(dir.path());
    assert!(
        !stderr.contains(warning) && !stderr.contains(note),
        "{stderr}"
    );
    assert!(!stderr.contains("not checked"), "{stderr}");
    // The Agent-based installer reads openshift/: neither (whatever else it refuses).
    let out = cmd()
        .args(["create", "--installer", "agent", "--dir"])
        .arg(ccm_only().path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains(warning) && !stderr.contains(note),
        "{stderr}"
    );
}

/// A refusing rule in an operator's own files says that `waive:` exists, naming the rule.
#[test]
fn a_refusing_rule_of_an_operators_files_says_how_to_waive_it() {
    let dir = ccm_only();
    crate::common::without_external_ccm(dir.path());
    let out = cmd()
        .args(["create", "--dir"])
        .arg(dir.path())
        .assert()
        .code(1);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr);
    assert!(
        stderr.contains("error[ccm-requires-external]")
            && stderr.contains(
                "waive the rule for operator \"cloud-controller\" in its configuration: `waive: [{rule: ccm-requires-external, reason: \"...\"}]`"
            ),
        "{stderr}"
    );
}

/// `--dir` at a file suggests `--config`; a missing directory is said not to exist.
#[test]
fn dir_flag_mistakes_are_named() {
    let dir = ccm_only();
    let file = dir.path().join("platform-operators.yaml");
    for command in ["create", "resolve"] {
        let out = cmd().args([command, "--dir"]).arg(&file).assert().code(2);
        let stderr = String::from_utf8_lossy(&out.get_output().stderr);
        assert!(
            stderr.contains("is a file, not a directory") && stderr.contains("give --config"),
            "{command}: {stderr}"
        );
    }
    let missing = dir.path().join("nowhere");
    for command in ["create", "check"] {
        let out = cmd()
            .args([command, "--dir"])
            .arg(&missing)
            .assert()
            .code(2);
        let stderr = String::from_utf8_lossy(&out.get_output().stderr);
        assert!(
            stderr.contains("nowhere: does not exist"),
            "{command}: {stderr}"
        );
    }
}
