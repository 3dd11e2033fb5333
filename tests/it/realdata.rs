//! End-to-end runs over the real catalogs in `../shared/realdata`, read in place.

use std::path::Path;

use crate::common::{cmd, realdata};

/// An install directory whose config points at a real catalog in place.
fn install_dir(
    catalog: &Path,
    operators: &str,
    cluster_version: Option<&str>,
) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("install-config.yaml"),
        "apiVersion: v1\nfeatureSet: TechPreviewNoUpgrade\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("platform-operators.yaml"),
        format!(
            "platformOperators:\n{}  catalogs:\n  - name: redhat-operators\n    source: {}\n  operators:\n{operators}",
            cluster_version.map(|v| format!("  clusterVersion: \"{v}\"\n")).unwrap_or_default(),
            catalog.display()
        ),
    )
    .unwrap();
    dir
}

#[test]
fn aws_load_balancer_operator_is_refused_for_its_install_modes() {
    let Some(rd) = realdata("aws_load_balancer_operator_is_refused_for_its_install_modes") else {
        return;
    };
    // Its CSV supports only OwnNamespace and SingleNamespace: a PlatformOperator cannot
    // install it, and nothing may be written.
    let cat = rd.join("redhat-catalog-excerpts/aws-load-balancer-operator");
    let dir = install_dir(
        &cat,
        "  - name: albo\n    package: aws-load-balancer-operator\n",
        Some("4.14.2"),
    );
    let out = cmd()
        .args(["create", "--dir"])
        .arg(dir.path())
        .assert()
        .code(1);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr);
    assert!(
        stderr.contains("does not support the AllNamespaces install mode (it supports: OwnNamespace, SingleNamespace)"),
        "{stderr}"
    );
    assert!(!dir.path().join("manifests").exists());
    assert!(!dir.path().join("platform-operators.lock.yaml").exists());
}

#[test]
fn jaeger_resolves_to_the_highest_version() {
    let Some(rd) = realdata("jaeger_resolves_to_the_highest_version") else {
        return;
    };
    let cat = rd.join("redhat-catalog-excerpts/jaeger-product");
    let dir = install_dir(
        &cat,
        "  - name: jaeger\n    package: jaeger-product\n",
        Some("4.14.2"),
    );
    let out = cmd()
        .args(["resolve", "-o", "json", "--explain", "--dir"])
        .arg(dir.path())
        .assert();
    let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let op = &v["operators"][0];
    assert_eq!(op["package"], "jaeger-product");
    let candidates = op["candidates"].as_array().unwrap();
    assert_eq!(candidates.len(), 6);
    // The build-metadata version 1.42.0-5+0.1687199951.p orders by OLM v1's release rule.
    let chosen = candidates
        .iter()
        .find(|c| c["verdict"]["verdict"] == "chosen")
        .unwrap();
    assert_eq!(chosen["bundle"], op["bundle"]);
}

#[test]
fn every_realdata_catalog_resolves_each_of_its_packages() {
    let Some(rd) = realdata("every_realdata_catalog_resolves_each_of_its_packages") else {
        return;
    };
    let mut dirs: Vec<std::path::PathBuf> = Vec::new();
    for parent in [
        "redhat-catalog-excerpts",
        "community-fbc-small/v4.16",
        "community-fbc-small/v4.20",
    ] {
        dirs.extend(
            std::fs::read_dir(rd.join(parent))
                .unwrap()
                .map(|e| e.unwrap().path()),
        );
    }
    dirs.sort();
    assert_eq!(dirs.len(), 13);
    {
        for path in dirs {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let pkg = name
                .trim_end_matches("-v4.14")
                .trim_end_matches("-v4.16")
                .trim_end_matches("-v4.20")
                .to_string();
            let dir = install_dir(&path, &format!("  - name: op\n    package: {pkg}\n"), None);
            let out = cmd()
                .args(["resolve", "-o", "json", "--dir"])
                .arg(dir.path())
                .assert();
            let o = out.get_output();
            let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
                panic!(
                    "{}: {e}: {}",
                    path.display(),
                    String::from_utf8_lossy(&o.stderr)
                )
            });
            let op = &v["operators"][0];
            assert!(op["bundle"].is_string(), "{}: {op}", path.display());
        }
    }
}
