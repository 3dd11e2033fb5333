//! `po-manifests resolve`: prints, writes nothing.

use crate::common::{cmd, example, tree};

#[test]
fn json_shape() {
    let dir = example();
    let out = cmd()
        .args(["resolve", "-o", "json", "--dir"])
        .arg(dir.path())
        .assert()
        .success();
    let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let op = &v["operators"][0];
    for key in [
        "name", "package", "catalog", "bundle", "version", "image", "channels", "problems",
    ] {
        assert!(op.get(key).is_some(), "missing {key} in {op}");
    }
    assert_eq!(op["version"], "1.2.0");
    assert_eq!(op["channels"], serde_json::json!(["stable"]));
    assert!(!dir.path().join("manifests").exists());
}

#[test]
fn explain_lists_every_candidate() {
    let dir = example();
    let out = cmd()
        .args(["resolve", "--explain", "--dir"])
        .arg(dir.path())
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(
        stdout.contains("acme-cert-operator.v1.3.0-rc.1")
            && stdout.contains("not in channel stable"),
        "{stdout}"
    );
    assert!(
        stdout.contains("outranked by acme-cert-operator.v1.2.0"),
        "{stdout}"
    );
    insta::assert_snapshot!("resolve_explain", stdout);
}

#[test]
fn failure_sets_error_and_exit_1() {
    let dir = example();
    let config = dir.path().join("platform-operators.yaml");
    std::fs::write(
        &config,
        std::fs::read_to_string(&config)
            .unwrap()
            .replace(">=1.0.0 <2.0.0", ">=3.0.0"),
    )
    .unwrap();
    let before = tree(dir.path());
    let out = cmd()
        .args(["resolve", "-o", "json", "--dir"])
        .arg(dir.path())
        .assert()
        .code(1);
    let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert!(
        v["operators"][0]["error"]
            .as_str()
            .unwrap()
            .contains("no bundle"),
        "{v}"
    );
    assert_eq!(before, tree(dir.path()));
}

#[test]
fn without_cluster_version_warns_and_skips_cluster_fit() {
    let dir = example();
    let config = dir.path().join("platform-operators.yaml");
    std::fs::write(
        &config,
        std::fs::read_to_string(&config)
            .unwrap()
            .replace("  clusterVersion: \"4.14.8\"\n", ""),
    )
    .unwrap();
    let out = cmd()
        .args(["resolve", "--dir"])
        .arg(dir.path())
        .assert()
        .success();
    assert!(String::from_utf8_lossy(&out.get_output().stderr).contains("no clusterVersion"));
}

#[test]
fn yaml_output_reads_back_like_json() {
    let dir = example();
    let json = cmd()
        .args(["resolve", "-o", "json", "--dir"])
        .arg(dir.path())
        .assert()
        .success();
    let yaml = cmd()
        .args(["resolve", "-o", "yaml", "--dir"])
        .arg(dir.path())
        .assert()
        .success();
    let from_json: serde_json::Value = serde_json::from_slice(&json.get_output().stdout).unwrap();
    let from_yaml: serde_json::Value =
        serde_saphyr::from_str(&String::from_utf8_lossy(&yaml.get_output().stdout)).unwrap();
    assert_eq!(from_json, from_yaml);
}
