//! A catalog with one bundle whose `olm.package` version does not parse (`v1.7.0`): `resolve`,
//! `create` and `upgrade-plan` go on as OLM v1 does, warning once with the file and line;
//! `catalog validate` refuses it, as `opm validate` does.

use std::path::Path;

use crate::common::{cmd, example_without_subscriptions as example, normalize};

/// The broken bundle, in its own file of the acme-cert-operator package (line 2 starts the
/// `olm.bundle` document), in a channel `fast` where it replaces 1.2.0.
const BROKEN: &str = "---
schema: olm.bundle
name: acme-cert-operator.v1.7.0
package: acme-cert-operator
image: quay.io/acme-example/cert-operator-bundle@sha256:1111111111111111111111111111111111111111111111111111111111111111
properties:
- type: olm.package
  value:
    packageName: acme-cert-operator
    version: v1.7.0
---
schema: olm.channel
name: fast
package: acme-cert-operator
entries:
- name: acme-cert-operator.v1.2.0
- name: acme-cert-operator.v1.7.0
  replaces: acme-cert-operator.v1.2.0
";

fn with_broken_bundle() -> tempfile::TempDir {
    let dir = example();
    std::fs::write(
        dir.path().join("catalog/acme-cert-operator/broken.yaml"),
        BROKEN,
    )
    .unwrap();
    dir
}

/// Drop the cert operator's channel and range, so the broken bundle is a candidate.
fn unconstrained(dir: &Path) {
    let config = dir.join("platform-operators.yaml");
    let text = std::fs::read_to_string(&config)
        .unwrap()
        .replace("    channel: stable\n    version: \">=1.0.0 <2.0.0\"\n", "");
    std::fs::write(&config, text).unwrap();
}

fn warnings_about_it(stderr: &str) -> usize {
    stderr
        .lines()
        .filter(|l| l.contains("acme-cert-operator.v1.7.0") && l.contains("does not parse"))
        .count()
}

#[test]
fn resolve_warns_once_and_explain_shows_why_it_lost() {
    let dir = with_broken_bundle();
    let out = cmd()
        .args(["resolve", "--explain", "-o", "wide", "--dir"])
        .arg(dir.path())
        .assert()
        .success();
    let stdout = normalize(&out.get_output().stdout, dir.path());
    let stderr = normalize(&out.get_output().stderr, dir.path());
    assert_eq!(warnings_about_it(&stderr), 1, "{stderr}");
    assert!(
        stderr.contains("[DIR]/catalog/acme-cert-operator/broken.yaml:2"),
        "{stderr}"
    );
    let line = stdout
        .lines()
        .find(|l| l.contains("acme-cert-operator.v1.7.0"))
        .unwrap_or_else(|| panic!("{stdout}"));
    // The request has a channel: the broken bundle is in none of them.
    assert!(line.contains("not in channel stable"), "{line}");
}

#[test]
fn without_channel_or_range_it_ranks_last() {
    let dir = with_broken_bundle();
    unconstrained(dir.path());
    let out = cmd()
        .args(["resolve", "--explain", "-o", "wide", "--dir"])
        .arg(dir.path())
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    let line = stdout
        .lines()
        .find(|l| l.contains("acme-cert-operator.v1.7.0"))
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(
        line.contains("ranked last, as its version does not parse"),
        "{line}"
    );
    assert!(
        stdout.contains("acme-cert-operator.v1.2.0"),
        "the highest valid version wins: {stdout}"
    );
}

#[test]
fn with_a_range_it_never_matches() {
    let dir = with_broken_bundle();
    let config = dir.path().join("platform-operators.yaml");
    let text = std::fs::read_to_string(&config)
        .unwrap()
        .replace("    channel: stable\n", "");
    std::fs::write(&config, text).unwrap();
    let out = cmd()
        .args(["resolve", "--explain", "-o", "wide", "--dir"])
        .arg(dir.path())
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    let line = stdout
        .lines()
        .find(|l| l.contains("acme-cert-operator.v1.7.0"))
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(line.contains("so it matches no range"), "{line}");
}

#[test]
fn create_writes_and_warns_once() {
    let dir = with_broken_bundle();
    let out = cmd()
        .args(["create", "--dir"])
        .arg(dir.path())
        .assert()
        .success();
    let stderr = normalize(&out.get_output().stderr, dir.path());
    assert_eq!(warnings_about_it(&stderr), 1, "{stderr}");
    assert!(dir.path().join("platform-operators.lock.yaml").exists());
}

#[test]
fn upgrade_plan_goes_on() {
    let dir = with_broken_bundle();
    cmd()
        .args(["create", "--dir"])
        .arg(dir.path())
        .assert()
        .success();
    let out = cmd()
        .args(["upgrade-plan", "--to", "4.15.0", "--dir"])
        .arg(dir.path())
        .assert();
    let output = out.get_output();
    let stderr = normalize(&output.stderr, dir.path());
    assert!(
        output.status.code() != Some(2) && output.status.code() != Some(3),
        "{stderr}"
    );
    assert!(!stderr.contains("invalid version"), "{stderr}");
}

#[test]
fn catalog_validate_stays_strict() {
    let dir = with_broken_bundle();
    let out = cmd()
        .args(["catalog", "validate"])
        .arg(dir.path().join("catalog"))
        .assert()
        .failure();
    let text = normalize(&out.get_output().stdout, dir.path())
        + &normalize(&out.get_output().stderr, dir.path());
    assert!(text.contains("invalid version \"v1.7.0\""), "{text}");
}
