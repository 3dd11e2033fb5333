//! `po-manifests upgrade-plan`, and `resolve` from an installed bundle: scenarios over small
//! catalogs written by the tests, and OLM v1's upgrade resolution over the real catalogs in
//! `../shared/realdata`, read in place.

use std::path::Path;

use serde_json::{Value, json};

use crate::common::{cmd, normalize, realdata, tree};

/// A bundle document: `<package>.v<version>`, with an optional `olm.maxOpenShiftVersion`.
pub(crate) fn bundle(package: &str, version: &str, max: Option<&str>) -> Value {
    let mut properties = vec![json!({
        "type": "olm.package",
        "value": {"packageName": package, "version": version}
    })];
    if let Some(m) = max {
        properties.push(json!({"type": "olm.maxOpenShiftVersion", "value": m}));
    }
    let digest = format!("{:0>64}", version.replace('.', ""));
    json!({
        "schema": "olm.bundle",
        "name": format!("{package}.v{version}"),
        "package": package,
        "image": format!("quay.io/acme/{package}-bundle@sha256:{digest}"),
        "properties": properties,
    })
}

/// `acme-storage`, channel `stable`, shaped like a Red Hat catalog:
/// 1.0.0 (max 4.14) ← 1.0.1 (max 4.14) ← 1.1.0 (max 4.15) ← 1.1.1 ← 2.0.0, each replacing the
/// previous one, with `skipRange`s; `acme-capped`: 3.0.0 ← 3.0.1, both capped at 4.14.
fn catalog_docs() -> Vec<Value> {
    vec![
        json!({"schema": "olm.package", "name": "acme-storage", "defaultChannel": "stable"}),
        json!({"schema": "olm.channel", "name": "stable", "package": "acme-storage", "entries": [
            {"name": "acme-storage.v1.0.0"},
            {"name": "acme-storage.v1.0.1", "replaces": "acme-storage.v1.0.0", "skipRange": ">=1.0.0 <1.0.1"},
            {"name": "acme-storage.v1.1.0", "replaces": "acme-storage.v1.0.1", "skips": ["acme-storage.v1.0.0"]},
            {"name": "acme-storage.v1.1.1", "replaces": "acme-storage.v1.1.0", "skipRange": ">=1.1.0 <1.1.1"},
            {"name": "acme-storage.v2.0.0", "replaces": "acme-storage.v1.1.1"},
        ]}),
        bundle("acme-storage", "1.0.0", Some("4.14")),
        bundle("acme-storage", "1.0.1", Some("4.14")),
        bundle("acme-storage", "1.1.0", Some("4.15")),
        bundle("acme-storage", "1.1.1", None),
        bundle("acme-storage", "2.0.0", None),
        json!({"schema": "olm.package", "name": "acme-capped", "defaultChannel": "stable"}),
        json!({"schema": "olm.channel", "name": "stable", "package": "acme-capped", "entries": [
            {"name": "acme-capped.v3.0.0"},
            {"name": "acme-capped.v3.0.1", "replaces": "acme-capped.v3.0.0"},
        ]}),
        bundle("acme-capped", "3.0.0", Some("4.14")),
        bundle("acme-capped", "3.0.1", Some("4.14")),
    ]
}

fn write_catalog(dir: &Path, docs: &[Value]) {
    std::fs::create_dir_all(dir).unwrap();
    let text: Vec<String> = docs
        .iter()
        .map(|d| serde_json::to_string_pretty(d).unwrap())
        .collect();
    std::fs::write(dir.join("catalog.json"), text.join("\n")).unwrap();
}

/// An install directory for 4.14 with a catalog and the given operators, and its lock
/// written by `create`.
fn installed(operators: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write_catalog(&dir.path().join("catalog"), &catalog_docs());
    std::fs::write(
        dir.path().join("install-config.yaml"),
        "apiVersion: v1\nfeatureSet: TechPreviewNoUpgrade\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("platform-operators.yaml"),
        format!(
            "platformOperators:\n  clusterVersion: \"4.14.3\"\n  catalogs:\n  - name: redhat-operators\n    source: catalog\n  operators:\n{operators}"
        ),
    )
    .unwrap();
    cmd()
        .args(["create", "--dir"])
        .arg(dir.path())
        .assert()
        .success();
    dir
}

const STORAGE_AT_1_0_0: &str =
    "  - name: storage\n    package: acme-storage\n    version: \"<1.0.1\"\n";

/// Install storage at 1.0.0 (the range keeps it there), then lift the range.
fn storage_at_1_0_0(extra: &str) -> tempfile::TempDir {
    let dir = installed(STORAGE_AT_1_0_0);
    let config = dir.path().join("platform-operators.yaml");
    let text = std::fs::read_to_string(&config)
        .unwrap()
        .replace("    version: \"<1.0.1\"\n", extra);
    std::fs::write(&config, text).unwrap();
    dir
}

/// The same install on a Default cluster whose operators are bootstrap operators: a
/// TechPreviewNoUpgrade cluster refuses every minor upgrade, and the PlatformOperator API
/// needs TechPreviewNoUpgrade, so minor-upgrade planning is shown on bootstrap operators.
fn on_default_cluster(dir: &Path) {
    std::fs::write(dir.join("install-config.yaml"), "apiVersion: v1\n").unwrap();
    let config = dir.join("platform-operators.yaml");
    let text = std::fs::read_to_string(&config).unwrap();
    let (head, operators) = text.split_once("  operators:\n").unwrap();
    let operators = operators.replace("  - name: ", "  - bootstrap: true\n    name: ");
    std::fs::write(&config, format!("{head}  operators:\n{operators}")).unwrap();
}

fn stdout(out: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&out.get_output().stdout).into_owned()
}

fn stderr(out: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&out.get_output().stderr).into_owned()
}

#[test]
fn capped_operator_is_upgraded_before_the_cluster() {
    let dir = storage_at_1_0_0("");
    on_default_cluster(dir.path());
    let out = cmd()
        .args(["upgrade-plan", "-o", "wide", "--to", "4.15.2", "--dir"])
        .arg(dir.path())
        .assert()
        .success();
    let text = stdout(&out);
    insta::assert_snapshot!(
        "upgrade_plan_upgrade_first",
        normalize(text.as_bytes(), dir.path())
    );
    assert!(text.contains("Upgradeable: True"), "{text}");
    assert!(
        text.contains(
            "OLM installs: acme-storage.v1.0.0 → acme-storage.v1.1.0 → acme-storage.v1.1.1"
        ),
        "{text}"
    );
}

#[test]
fn blocked_upgrade_exits_1_and_names_what_would_unblock_it() {
    let dir = installed("  - name: capped\n    package: acme-capped\n");
    on_default_cluster(dir.path());
    let before = tree(dir.path());
    let out = cmd()
        .args([
            "upgrade-plan",
            "-o",
            "wide",
            "--write",
            "--to",
            "4.15.0",
            "--dir",
        ])
        .arg(dir.path())
        .assert()
        .code(1);
    let text = stdout(&out);
    assert!(text.contains("Upgradeable: False"), "{text}");
    assert!(
        text.contains("platform operator \"capped\" (package acme-capped) blocks the upgrade from 4.14.3 to 4.15.0: the installed acme-capped.v3.0.1 3.0.1 has olm.maxOpenShiftVersion 4.14"),
        "{text}"
    );
    assert!(
        text.contains("To unblock: a release of acme-capped that supports OpenShift 4.15"),
        "{text}"
    );
    assert!(stderr(&out).contains("blocked by 1 platform operator; nothing was written"));
    assert_eq!(before, tree(dir.path()), "a blocked --write writes nothing");
}

#[test]
fn json_plan_for_pipelines() {
    let dir = storage_at_1_0_0("    upgrade: pinned\n");
    on_default_cluster(dir.path());
    let out = cmd()
        .args(["upgrade-plan", "-o", "json", "--to", "4.15.0", "--dir"])
        .arg(dir.path())
        .assert()
        .success();
    let v: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(v["from"], "4.14.3");
    assert_eq!(v["upgradeable"], true);
    let before = &v["hops"][0]["before"][0];
    assert_eq!(before["operator"], "storage");
    // pinned: the least move that supports both 4.14 and 4.15.
    assert_eq!(before["to"]["version"], "1.1.0");
    assert_eq!(before["reason"]["compatibility"]["max"], "4.14");
    assert_eq!(v["hops"][0]["after"], json!([]));
    assert_eq!(
        v["operators"][0]["planned"]["bundle"],
        "acme-storage.v1.1.0"
    );
}

#[test]
fn write_updates_the_lock_and_the_manifests_for_the_target() {
    let dir = storage_at_1_0_0("");
    cmd()
        .args([
            "upgrade-plan",
            "-o",
            "wide",
            "--write",
            "--to",
            "4.14.7",
            "--dir",
        ])
        .arg(dir.path())
        .assert()
        .success();
    let lock = std::fs::read_to_string(dir.path().join("platform-operators.lock.yaml")).unwrap();
    assert!(lock.contains("clusterVersion: \"4.14.7\""), "{lock}");
    // follow-cluster on a patch upgrade: the newest patch of 1.0.
    assert!(lock.contains("bundle: acme-storage.v1.0.1"), "{lock}");
    let manifests: String = tree(&dir.path().join("manifests"))
        .into_iter()
        .map(|(_, text)| text)
        .collect();
    assert!(manifests.contains("acme-storage-bundle@sha256:0000000000000000000000000000000000000000000000000000000000000101"), "{manifests}");
    // From the new lock, nothing is left to do on 4.14.
    let out = cmd()
        .args(["upgrade-plan", "-o", "wide", "--to", "4.14.9", "--dir"])
        .arg(dir.path())
        .assert()
        .success();
    let text = stdout(&out);
    assert!(
        text.contains("4.14.7 → 4.14.9 (cluster patch upgrade)"),
        "{text}"
    );
    assert!(!text.contains("OLM installs"), "{text}");
}

#[test]
fn tech_preview_cluster_cannot_take_a_minor_upgrade() {
    let dir = storage_at_1_0_0("");
    let before = tree(dir.path());
    for to in ["4.15.3", "4.16.3", "4.18.5"] {
        let out = cmd()
            .args(["upgrade-plan", "-o", "wide", "--write", "--to", to, "--dir"])
            .arg(dir.path())
            .assert()
            .code(1);
        let text = stdout(&out);
        assert!(text.contains("Upgradeable: False"), "{to}: {text}");
        assert!(
            text.contains("featureSet TechPreviewNoUpgrade, which cannot be undone and refuses every minor upgrade (4.14 → "),
            "{to}: {text}"
        );
        let err = stderr(&out);
        assert!(err.contains("nothing was written"), "{to}: {err}");
        assert!(err.contains("way out: stay on 4.14"), "{to}: {err}");
        assert_eq!(
            text.contains("the PlatformOperator API (PlatformOperator and BundleDeployment) exists up to OpenShift 4.15 only"),
            to != "4.15.3",
            "{to}: {text}"
        );
        if to == "4.18.5" {
            assert!(
                text.contains("po-manifests create --cluster-version 4.18.5"),
                "{text}"
            );
        }
    }
    assert_eq!(before, tree(dir.path()), "a blocked --write writes nothing");
    let out = cmd()
        .args(["upgrade-plan", "-o", "json", "--to", "4.16.3", "--dir"])
        .arg(dir.path())
        .assert()
        .code(1);
    let v: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(v["upgradeable"], false);
    assert_eq!(v["clusterBlockers"][0]["rule"], "featureSetNoUpgrade");
    assert_eq!(
        v["clusterBlockers"][0]["featureSet"],
        "TechPreviewNoUpgrade"
    );
    assert_eq!(
        v["clusterBlockers"][1]["rule"],
        "platformOperatorApiRemoved"
    );
    assert_eq!(v["clusterBlockers"][1]["last"], "4.15");
}

#[test]
fn minor_downgrade_is_refused() {
    let dir = installed(STORAGE_AT_1_0_0);
    let out = cmd()
        .args(["upgrade-plan", "-o", "wide", "--to", "4.13.9", "--dir"])
        .arg(dir.path())
        .assert()
        .code(2);
    assert!(stderr(&out).contains("OpenShift does not support minor version downgrades"));
}

#[test]
fn current_release_comes_from_the_lock_or_from() {
    let dir = tempfile::tempdir().unwrap();
    write_catalog(&dir.path().join("catalog"), &catalog_docs());
    std::fs::write(
        dir.path().join("platform-operators.yaml"),
        "platformOperators:\n  catalogs:\n  - name: redhat-operators\n    source: catalog\n  operators:\n  - name: storage\n    package: acme-storage\n    installed: {bundle: acme-storage.v1.0.1, version: 1.0.1}\n",
    )
    .unwrap();
    let out = cmd()
        .args(["upgrade-plan", "-o", "wide", "--to", "4.15.0", "--dir"])
        .arg(dir.path())
        .assert()
        .code(2);
    assert!(stderr(&out).contains("give --from"), "{}", stderr(&out));
    let out = cmd()
        .args([
            "upgrade-plan",
            "-o",
            "wide",
            "--from",
            "4.14.0",
            "--to",
            "4.15.0",
            "--dir",
        ])
        .arg(dir.path())
        .assert()
        .success();
    assert!(
        stdout(&out).contains("storage (acme-storage): 1.0.1 → 1.1.1"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn catalog_flag_replaces_the_configured_snapshot() {
    let dir = storage_at_1_0_0("");
    on_default_cluster(dir.path());
    // A 4.15 snapshot where 1.1.0 supports 4.15 and nothing newer exists.
    let docs: Vec<Value> = catalog_docs()
        .into_iter()
        .filter(|d| {
            let name = d["name"].as_str().unwrap_or("");
            name != "acme-storage.v1.1.1" && name != "acme-storage.v2.0.0"
        })
        .map(|mut d| {
            if d["schema"] == "olm.channel" && d["package"] == "acme-storage" {
                d["entries"].as_array_mut().unwrap().truncate(3);
            }
            d
        })
        .collect();
    write_catalog(&dir.path().join("catalog-4.15"), &docs);
    let out = cmd()
        .args(["upgrade-plan", "-o", "wide", "--to", "4.15.0", "--catalog"])
        .arg(format!(
            "redhat-operators={}",
            dir.path().join("catalog-4.15").display()
        ))
        .arg("--dir")
        .arg(dir.path())
        .assert()
        .success();
    assert!(stdout(&out).contains("1.0.0 → 1.1.0"), "{}", stdout(&out));
    let out = cmd()
        .args([
            "upgrade-plan",
            "-o",
            "wide",
            "--to",
            "4.15.0",
            "--catalog",
            "nope=x",
            "--dir",
        ])
        .arg(dir.path())
        .assert()
        .code(2);
    assert!(
        stderr(&out).contains("configured: redhat-operators"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn explain_shows_the_rule_for_every_candidate_of_every_reconcile() {
    let dir = storage_at_1_0_0("");
    let out = cmd()
        .args([
            "upgrade-plan",
            "-o",
            "wide",
            "--explain",
            "--to",
            "4.14.9",
            "--dir",
        ])
        .arg(dir.path())
        .assert()
        .success();
    let text = stdout(&out);
    // Patch upgrade: 1.0.1 is the only new patch; 1.1.0 skips 1.0.0 but is a new minor.
    assert!(
        text.contains("acme-storage.v1.0.0 → acme-storage.v1.0.1"),
        "{text}"
    );
    assert!(
        text.contains(
            "outside >=1.0.0 <1.1.0-0 (upgrade policy: follow-cluster, cluster patch upgrade)"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "1.0.0    stable    not a direct successor of the installed acme-storage.v1.0.1"
        ),
        "{text}"
    );
}

#[test]
fn resolve_from_an_installed_bundle_explains_not_a_successor() {
    let dir = installed(
        "  - name: storage\n    package: acme-storage\n    installed: {bundle: acme-storage.v1.0.0, version: 1.0.0}\n",
    );
    let out = cmd()
        .args(["resolve", "--explain", "-o", "wide", "--dir"])
        .arg(dir.path())
        .assert()
        .success();
    let text = stdout(&out);
    // 1.1.0 skips 1.0.0: the highest direct successor. 1.1.1 and 2.0.0 are further away.
    assert!(
        text.contains("acme-storage.v1.1.0  1.1.0    stable    chosen"),
        "{text}"
    );
    assert!(
        text.contains("acme-storage.v2.0.0  2.0.0    stable    not a direct successor of the installed acme-storage.v1.0.0"),
        "{text}"
    );
}

mod realdata {
    use super::*;
    use po_manifests::catalog::{self, PackageFilter};
    use po_manifests::config::UpgradeConstraintPolicy;
    use po_manifests::openshift::ClusterVersion;
    use po_manifests::resolve::{self, Cluster, Installed, LoadedCatalog, Request};

    fn jaeger(test: &str) -> Option<std::path::PathBuf> {
        Some(realdata(test)?.join("redhat-catalog-excerpts/jaeger-product"))
    }

    fn load(path: &Path) -> Vec<LoadedCatalog> {
        vec![LoadedCatalog {
            name: "redhat-operators".into(),
            priority: 0,
            image: None,
            location: path.display().to_string(),
            catalog: catalog::load(path, &PackageFilter::All).unwrap(),
        }]
    }

    fn from(bundle: &str, version: &str, policy: UpgradeConstraintPolicy) -> Installed {
        Installed {
            bundle: bundle.into(),
            version: version.parse().unwrap(),
            policy,
            bound: None,
        }
    }

    fn resolve_json(catalog: &Path, operator: &str) -> (Value, i32) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("platform-operators.yaml"),
            format!(
                "platformOperators:\n  clusterVersion: \"4.14.2\"\n  catalogs:\n  - name: redhat-operators\n    source: {}\n  operators:\n{operator}",
                catalog.display()
            ),
        )
        .unwrap();
        // The PlatformOperator API on 4.14 needs TechPreviewNoUpgrade.
        std::fs::write(
            dir.path().join("install-config.yaml"),
            "apiVersion: v1\nfeatureSet: TechPreviewNoUpgrade\n",
        )
        .unwrap();
        let out = cmd()
            .args(["resolve", "-o", "json", "--explain", "--dir"])
            .arg(dir.path())
            .output()
            .unwrap();
        (
            serde_json::from_slice(&out.stdout).unwrap(),
            out.status.code().unwrap_or(-1),
        )
    }

    #[test]
    fn jaeger_bundle_reached_only_through_skips() {
        let Some(cat) = jaeger("jaeger_bundle_reached_only_through_skips") else {
            return;
        };
        let cats = load(&cat);
        let channels = ["stable".to_string()];
        // The range admits only 1.42.0-5 and its rebuild (Masterminds ignores build metadata).
        let range = po_manifests::version::masterminds::Range::parse("=1.42.0-5").unwrap();
        let req = Request {
            package: "jaeger-product",
            channels: &channels,
            range: Some(("=1.42.0-5", &range)),
            catalog: None,
        };
        let cluster = Cluster {
            version: Some(ClusterVersion::parse("4.14.2").unwrap()),
        };
        // The rebuild's skipRange (<1.42.0-5) does not contain 1.42.0-5: only `skips` reaches it.
        let r = resolve::resolve_installed(
            &req,
            &from(
                "jaeger-operator.v1.42.0-5",
                "1.42.0-5",
                UpgradeConstraintPolicy::CatalogProvided,
            ),
            &cats,
            &cluster,
        )
        .unwrap();
        assert_eq!(r.bundle.name, "jaeger-operator.v1.42.0-5-0.1687199951.p");
        // From the rebuild there is nowhere to go within the range: it stays.
        let w = resolve::walk(
            &req,
            &from(
                "jaeger-operator.v1.42.0-5",
                "1.42.0-5",
                UpgradeConstraintPolicy::CatalogProvided,
            ),
            &cats,
            &cluster,
        )
        .unwrap();
        let chain: Vec<&str> = w.steps.iter().map(|r| r.bundle.name.as_str()).collect();
        assert_eq!(
            chain,
            [
                "jaeger-operator.v1.42.0-5-0.1687199951.p",
                "jaeger-operator.v1.42.0-5-0.1687199951.p"
            ]
        );
    }

    #[test]
    fn jaeger_catalog_provided_walks_and_self_certified_jumps() {
        let Some(cat) = jaeger("jaeger_catalog_provided_walks_and_self_certified_jumps") else {
            return;
        };
        let cats = load(&cat);
        let cluster = Cluster {
            version: Some(ClusterVersion::parse("4.14.2").unwrap()),
        };
        let req = Request {
            package: "jaeger-product",
            channels: &[],
            range: None,
            catalog: None,
        };
        // Every entry's skipRange starts at 1.13.0: from 1.30.2 the head is one hop away.
        let w = resolve::walk(
            &req,
            &from(
                "jaeger-operator.v1.30.2",
                "1.30.2",
                UpgradeConstraintPolicy::CatalogProvided,
            ),
            &cats,
            &cluster,
        )
        .unwrap();
        assert_eq!(w.moves().len(), 1);
        assert_eq!(w.end().bundle.name, "jaeger-operator.v1.51.0-1");
        // A downgrade: only SelfCertified allows it.
        let (v, code) = resolve_json(
            &cat,
            "  - name: jaeger\n    package: jaeger-product\n    version: \">=1.30.0-0 <1.35.0-0\"\n    upgradeConstraintPolicy: SelfCertified\n    installed: {bundle: jaeger-operator.v1.51.0-1, version: 1.51.0-1}\n",
        );
        // Chosen; the exit status is 1 only because the bundle defines webhooks.
        assert_eq!(v["operators"][0]["version"], "1.34.1-5", "{v}");
        assert_eq!(v["operators"][0].get("error"), None, "{v}");
        assert_eq!(code, 1);
        let (v, code) = resolve_json(
            &cat,
            "  - name: jaeger\n    package: jaeger-product\n    version: \">=1.30.0-0 <1.35.0-0\"\n    installed: {bundle: jaeger-operator.v1.51.0-1, version: 1.51.0-1}\n",
        );
        assert_eq!(code, 1, "{v}");
        let error = v["operators"][0]["error"].as_str().unwrap();
        assert!(
            error.contains("not direct successors of the installed jaeger-operator.v1.51.0-1")
                && error.contains("SelfCertified"),
            "{error}"
        );
    }

    #[test]
    fn descheduler_skips_naming_absent_bundles_do_not_break_the_walk() {
        let Some(rd) = realdata("descheduler_skips_naming_absent_bundles_do_not_break_the_walk")
        else {
            return;
        };
        let cat = rd.join("redhat-catalog-excerpts/cluster-kube-descheduler-operator-v4.16");
        let cats = load(&cat);
        let package = cats[0].catalog.packages[0].name.clone();
        let mut bundles: Vec<_> = cats[0].catalog.packages[0]
            .bundles
            .iter()
            .filter(|b| b.version.is_some())
            .collect();
        bundles.sort_by(|a, b| a.version.cmp(&b.version));
        let oldest = bundles[0];
        let cluster = Cluster {
            version: Some(ClusterVersion::parse("4.16.0").unwrap()),
        };
        let req = Request {
            package: &package,
            channels: &[],
            range: None,
            catalog: None,
        };
        for policy in [
            UpgradeConstraintPolicy::CatalogProvided,
            UpgradeConstraintPolicy::SelfCertified,
        ] {
            let w = resolve::walk(
                &req,
                &from(&oldest.name, &oldest.version_text, policy),
                &cats,
                &cluster,
            )
            .unwrap();
            let end = w.end().bundle;
            // Both end on the newest bundle that fits; SelfCertified in one reconcile.
            let plain = resolve::resolve(&req, &cats, &cluster).unwrap();
            assert_eq!(end.name, plain.bundle.name, "{policy}");
            if policy == UpgradeConstraintPolicy::SelfCertified {
                assert_eq!(w.moves().len(), 1);
            } else {
                assert!(!w.moves().is_empty());
            }
        }
    }
}

#[test]
fn patch_rollback_and_no_change_keep_operators_in_place() {
    let dir = installed(STORAGE_AT_1_0_0);
    for (to, change) in [
        ("4.14.1", "cluster patch rollback"),
        ("4.14.3", "no change"),
    ] {
        let out = cmd()
            .args(["upgrade-plan", "-o", "wide", "--to", to, "--dir"])
            .arg(dir.path())
            .assert()
            .success();
        let text = stdout(&out);
        assert!(
            text.contains(&format!("4.14.3 → {to} ({change})")),
            "{text}"
        );
        assert!(!text.contains("OLM installs"), "{text}");
    }
}

/// The example on a Default cluster with only `cert-operator` (a ClusterExtension from 4.18),
/// installed at 1.2.0, which defines a validating webhook.
fn webhook_upgrade_example() -> tempfile::TempDir {
    use base64::Engine as _;
    let b64 = base64::engine::general_purpose::STANDARD;
    let dir = crate::common::example();
    std::fs::write(dir.path().join("install-config.yaml"), "apiVersion: v1\n").unwrap();
    std::fs::write(
        dir.path().join("platform-operators.yaml"),
        "platformOperators:\n  catalogs:\n  - name: redhat-operators\n    source: catalog\n    image: quay.io/acme-example/catalog@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n  operators:\n  - name: cert-operator\n    package: acme-cert-operator\n    channel: stable\n    version: \">=1.0.0 <1.3.0\"\n    installed: {bundle: acme-cert-operator.v1.2.0, version: 1.2.0}\n",
    )
    .unwrap();
    let path = dir.path().join("catalog/acme-cert-operator/catalog.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let docs: Vec<Value> = serde_json::Deserializer::from_str(&text)
        .into_iter::<Value>()
        .map(Result::unwrap)
        .map(|mut doc| {
            if doc["name"] != "acme-cert-operator.v1.2.0" {
                return doc;
            }
            for p in doc["properties"].as_array_mut().unwrap() {
                if p["type"] != "olm.bundle.object" {
                    continue;
                }
                let data = p["value"]["data"].as_str().unwrap();
                let mut object: Value = serde_json::from_slice(&b64.decode(data).unwrap()).unwrap();
                if object["kind"] != "ClusterServiceVersion" {
                    continue;
                }
                object["spec"]["webhookdefinitions"] = json!([{
                    "type": "ValidatingAdmissionWebhook",
                    "generateName": "vcertificate.certs.acme.example.com",
                    "deploymentName": "acme-cert-operator",
                    "containerPort": 443,
                    "targetPort": 9443,
                    "admissionReviewVersions": ["v1"],
                    "sideEffects": "None",
                    "failurePolicy": "Fail",
                    "webhookPath": "/validate-certificate",
                    "rules": [{
                        "apiGroups": ["certs.acme.example.com"],
                        "apiVersions": ["v1"],
                        "operations": ["CREATE", "UPDATE"],
                        "resources": ["certificates"]
                    }]
                }]);
                p["value"]["data"] = json!(b64.encode(serde_json::to_vec(&object).unwrap()));
            }
            doc
        })
        .collect();
    write_catalog(path.parent().unwrap(), &docs);
    dir
}

/// `upgrade-plan --write` runs `create`'s per-release checks: the webhook bundle is refused
/// for 4.20 on a Default cluster (no certificate provider; nothing is written) and written
/// for 4.21, whose OLM v1 installs webhooks through service-ca.
#[test]
fn write_checks_the_target_release_as_create_does() {
    let dir = webhook_upgrade_example();
    let before = tree(dir.path());
    let out = cmd()
        .args([
            "upgrade-plan",
            "-o",
            "wide",
            "--write",
            "--from",
            "4.20.1",
            "--to",
            "4.20.3",
            "--dir",
        ])
        .arg(dir.path())
        .assert()
        .code(1);
    let err = stderr(&out);
    assert!(
        err.contains("acme-cert-operator.v1.2.0 defines webhooks")
            && err.contains("OLM v1 installs webhooks on"),
        "{err}"
    );
    assert!(err.contains("nothing was written"), "{err}");
    assert_eq!(before, tree(dir.path()), "a refused --write writes nothing");

    let out = cmd()
        .args([
            "upgrade-plan",
            "-o",
            "wide",
            "--write",
            "--from",
            "4.20.3",
            "--to",
            "4.21.2",
            "--dir",
        ])
        .arg(dir.path())
        .assert()
        .success();
    let lock = std::fs::read_to_string(dir.path().join("platform-operators.lock.yaml")).unwrap();
    assert!(lock.contains("acme-cert-operator.v1.2.0"), "{lock}");
    let written: String = tree(&dir.path().join("manifests"))
        .into_iter()
        .map(|(_, t)| t)
        .collect();
    assert!(
        written.contains("kind: ClusterExtension"),
        "{}\n{written}",
        stderr(&out)
    );
}

/// Issue 22 part 4: without a lock file, the configuration's `clusterVersion` is the current
/// release (the install the configuration describes), instead of "give --from".
#[test]
fn without_a_lock_the_configured_release_is_the_current_one() {
    let dir = tempfile::tempdir().unwrap();
    write_catalog(&dir.path().join("catalog"), &catalog_docs());
    std::fs::write(
        dir.path().join("platform-operators.yaml"),
        "platformOperators:\n  clusterVersion: \"4.14.3\"\n  catalogs:\n  - name: redhat-operators\n    source: catalog\n  operators:\n  - name: storage\n    package: acme-storage\n    installed: {bundle: acme-storage.v1.0.1, version: 1.0.1}\n",
    )
    .unwrap();
    let out = cmd()
        .args(["upgrade-plan", "-o", "json", "--to", "4.14.9", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("give --from"), "{err}");
    let plan: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(plan["from"], "4.14.3", "{plan}");
    assert_eq!(plan["to"], "4.14.9", "{plan}");
}

/// The releases after 4.22 (issue 24): an upgrade across the major follows the release table,
/// 4.22 → 4.23 (5.0 under its other name) → 5.1, each hop checked.
#[test]
fn an_upgrade_across_the_major_follows_the_release_table() {
    // The example's cloud controller alone (a bootstrap operator without a version cap), on a
    // Default cluster.
    let dir = crate::common::example();
    crate::common::without_external_ccm(dir.path());
    std::fs::write(dir.path().join("install-config.yaml"), "apiVersion: v1\n").unwrap();
    let config = dir.path().join("platform-operators.yaml");
    let text = std::fs::read_to_string(&config).unwrap();
    let start = text.find("  - name: cert-operator").unwrap();
    let end = text.find("  - name: cloud-controller").unwrap();
    std::fs::write(&config, format!("{}{}", &text[..start], &text[end..])).unwrap();
    let out = cmd()
        .args([
            "upgrade-plan",
            "-o",
            "json",
            "--from",
            "4.22.3",
            "--to",
            "5.1.2",
            "--dir",
        ])
        .arg(dir.path())
        .output()
        .unwrap();
    let plan: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    let hops: Vec<String> = plan["hops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            format!(
                "{}→{}",
                h["from"].as_str().unwrap(),
                h["to"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(hops, ["4.22.3→4.23", "4.23→5.1.2"], "{plan}");
    // 4.23 and 5.0 are one release: neither updates to the other.
    let out = cmd()
        .args(["upgrade-plan", "--from", "4.23.1", "--to", "5.0.1", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("one release under two names"));
}
