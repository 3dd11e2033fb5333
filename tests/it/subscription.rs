//! The subscription profile end to end: the example's DNS operator (`profile: subscription`)
//! and the metrics operator OLM v0 pulls in for it, settings OLM v0 cannot take, install modes,
//! namespaces, startingCSV and where Automatic approval ends, and resolution from catalog
//! metadata alone.

use std::path::Path;

use serde_json::Value;

use crate::common::{cmd, example, tree};

const DNS: &str = "  - name: dns-operator\n    package: acme-dns-operator\n    channel: stable\n    profile: subscription\n";

/// Replace the example's DNS operator entry with `entry` (YAML lines under `operators:`).
fn with_dns(dir: &Path, entry: &str) {
    let path = dir.join("platform-operators.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains(DNS), "{text}");
    std::fs::write(&path, text.replace(DNS, entry)).unwrap();
}

fn resolve_json(dir: &Path, extra: &[&str]) -> (Option<i32>, Value, String) {
    let o = cmd()
        .args(["resolve", "-o", "json"])
        .args(extra)
        .arg("--dir")
        .arg(dir)
        .output()
        .unwrap();
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap_or(Value::Null);
    (
        o.status.code(),
        doc,
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn operator<'v>(doc: &'v Value, name: &str) -> &'v Value {
    doc["operators"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["name"] == name)
        .unwrap_or_else(|| panic!("no operator {name} in {doc}"))
}

/// `create` fails with exit status 1, names each of `expect`, and writes nothing.
fn refused(dir: &Path, expect: &[&str]) -> String {
    let before = tree(dir);
    let o = cmd().args(["create", "--dir"]).arg(dir).output().unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    for e in expect {
        assert!(stderr.contains(e), "expected {e:?} in:\n{stderr}");
    }
    assert_eq!(before, tree(dir), "the install directory changed");
    stderr
}

#[test]
fn the_example_writes_namespace_group_and_subscription_and_locks_the_dependency() {
    let dir = example();
    let o = cmd()
        .args(["create", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let files = tree(&dir.path().join("manifests"));
    let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
    for want in [
        "99_po_dns-operator_00_namespace_acme-dns.yaml",
        "99_po_dns-operator_01_operatorgroup_acme-dns.yaml",
        "99_po_dns-operator_02_subscription_dns-operator.yaml",
    ] {
        assert!(names.contains(&want), "{names:?}");
    }
    let group: Value = serde_saphyr::from_str(
        &files
            .iter()
            .find(|(n, _)| n.contains("_operatorgroup_"))
            .unwrap()
            .1,
    )
    .unwrap();
    assert_eq!(group["spec"]["targetNamespaces"][0], "acme-dns");
    let sub: Value = serde_saphyr::from_str(
        &files
            .iter()
            .find(|(n, _)| n.contains("_subscription_"))
            .unwrap()
            .1,
    )
    .unwrap();
    assert_eq!(sub["spec"]["name"], "acme-dns-operator");
    assert_eq!(sub["spec"]["source"], "redhat-operators");
    assert_eq!(sub["spec"]["sourceNamespace"], "openshift-marketplace");
    assert_eq!(sub["spec"]["installPlanApproval"], "Automatic");
    assert!(sub["spec"].get("startingCSV").is_none());
    let lock = std::fs::read_to_string(dir.path().join("platform-operators.lock.yaml")).unwrap();
    assert!(lock.contains("package: acme-metrics-operator"), "{lock}");
    assert!(
        lock.contains("bundle: acme-metrics-operator.v0.3.0"),
        "{lock}"
    );
    assert!(lock.contains("installMode: OwnNamespace"), "{lock}");
    // OLM v0 may take a dependency from any package: the catalog is pinned whole.
    let whole = po_manifests::catalog::content_digest(&dir.path().join("catalog")).unwrap();
    assert!(
        lock.contains(&format!(
            "- name: redhat-operators\n  digest: {whole}\noperators:"
        )),
        "{whole} in {lock}"
    );
    // The same plan with --locked: nothing differs.
    cmd()
        .args(["create", "--locked", "--dir"])
        .arg(dir.path())
        .assert()
        .success();

    let (code, doc, stderr) = resolve_json(dir.path(), &[]);
    assert_eq!(code, Some(0), "{stderr}");
    let dns = operator(&doc, "dns-operator");
    assert_eq!(dns["profile"], "subscription");
    assert_eq!(dns["channel"], "stable");
    assert_eq!(dns["bundle"], "acme-dns-operator.v2.1.0");
    assert_eq!(dns["endsAt"]["bundle"], "acme-dns-operator.v2.1.0");
    assert_eq!(dns["namespace"], "acme-dns");
    assert_eq!(
        dns["dependencies"],
        serde_json::json!([{
            "package": "acme-metrics-operator",
            "bundle": "acme-metrics-operator.v0.3.0",
            "version": "0.3.0",
            "channel": "stable",
            "catalog": "redhat-operators",
            "endsAt": null,
        }])
    );
    assert_eq!(
        operator(&doc, "cert-operator")["profile"],
        "PlatformOperator"
    );
}

#[test]
fn starting_csv_installs_it_and_the_plan_names_where_it_ends() {
    let dir = example();
    with_dns(
        dir.path(),
        &format!("{DNS}    startingCSV: acme-dns-operator.v2.0.0\n"),
    );
    let (code, doc, stderr) = resolve_json(dir.path(), &[]);
    assert_eq!(code, Some(0), "{stderr}");
    let dns = operator(&doc, "dns-operator");
    assert_eq!(dns["bundle"], "acme-dns-operator.v2.0.0");
    assert_eq!(dns["startingCSV"], "acme-dns-operator.v2.0.0");
    assert_eq!(dns["endsAt"]["bundle"], "acme-dns-operator.v2.1.0");
    let o = cmd()
        .args(["create", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let lock = std::fs::read_to_string(dir.path().join("platform-operators.lock.yaml")).unwrap();
    assert!(
        lock.contains("startingCSV: acme-dns-operator.v2.0.0"),
        "{lock}"
    );
    assert!(
        lock.contains("endsAt:\n      bundle: acme-dns-operator.v2.1.0"),
        "{lock}"
    );
}

#[test]
fn a_starting_csv_not_in_the_channel_is_refused() {
    let dir = example();
    with_dns(
        dir.path(),
        &format!("{DNS}    startingCSV: acme-dns-operator.v9.9.9\n"),
    );
    refused(
        dir.path(),
        &[
            "startingCSV acme-dns-operator.v9.9.9 is not an entry of channel stable of package acme-dns-operator (entries: acme-dns-operator.v2.0.0, acme-dns-operator.v2.1.0)",
        ],
    );
}

#[test]
fn a_version_is_only_the_exact_one_olm_v0_ends_at() {
    let dir = example();
    with_dns(dir.path(), &format!("{DNS}    version: \">=2.0.0\"\n"));
    refused(dir.path(), &["is a range, and OLM v0 has none"]);
    with_dns_back(
        dir.path(),
        &format!("{DNS}    version: \">=2.0.0\"\n"),
        &format!("{DNS}    version: \"2.0.0\"\n"),
    );
    refused(
        dir.path(),
        &[
            "`version: 2.0.0` asks OLM v0 to end at 2.0.0, but Automatic approval ends at acme-dns-operator.v2.1.0 (2.1.0)",
        ],
    );
    with_dns_back(
        dir.path(),
        &format!("{DNS}    version: \"2.0.0\"\n"),
        &format!("{DNS}    version: \"2.1.0\"\n"),
    );
    cmd()
        .args(["create", "--dir"])
        .arg(dir.path())
        .assert()
        .success();
}

/// Replace an entry written by [`with_dns`].
fn with_dns_back(dir: &Path, from: &str, to: &str) {
    let path = dir.join("platform-operators.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains(from), "{text}");
    std::fs::write(&path, text.replace(from, to)).unwrap();
}

#[test]
fn an_install_mode_the_csv_lacks_is_refused() {
    let dir = example();
    with_dns(
        dir.path(),
        &format!("{DNS}    installMode: AllNamespaces\n"),
    );
    refused(
        dir.path(),
        &[
            "acme-dns-operator.v2.1.0, which does not support the AllNamespaces install mode of namespace openshift-operators's OperatorGroup (it supports: OwnNamespace): its CSV would fail with UnsupportedOperatorGroup",
        ],
    );
}

#[test]
fn two_install_modes_in_one_namespace_are_refused() {
    let dir = example();
    with_dns(
        dir.path(),
        &format!(
            "{DNS}  - name: metrics\n    package: acme-metrics-operator\n    profile: subscription\n    namespace: acme-dns\n    installMode: SingleNamespace\n    targetNamespaces: [apps]\n"
        ),
    );
    refused(
        dir.path(),
        &[
            "namespace acme-dns can have one OperatorGroup, so one install mode, and its operators need two: \"dns-operator\" needs OwnNamespace and \"metrics\" needs SingleNamespace of apps",
        ],
    );
}

#[test]
fn two_subscriptions_in_one_namespace_share_the_dependency() {
    let dir = example();
    with_dns(
        dir.path(),
        &format!(
            "{DNS}  - name: metrics\n    package: acme-metrics-operator\n    profile: subscription\n    namespace: acme-dns\n    installMode: OwnNamespace\n    startingCSV: acme-metrics-operator.v0.2.0\n    installPlanApproval: Manual\n"
        ),
    );
    let (code, doc, stderr) = resolve_json(dir.path(), &[]);
    assert_eq!(code, Some(0), "{stderr}");
    // The metrics Subscription pins 0.2.0, which the DNS operator's range accepts: OLM v0
    // resolves both together and pulls in nothing more; Manual keeps everything at the first
    // InstallPlan.
    let dns = operator(&doc, "dns-operator");
    assert_eq!(dns["dependencies"], serde_json::json!([]));
    let metrics = operator(&doc, "metrics");
    assert_eq!(metrics["bundle"], "acme-metrics-operator.v0.2.0");
    assert_eq!(metrics["endsAt"]["bundle"], "acme-metrics-operator.v0.2.0");
    assert_eq!(metrics["installPlanApproval"], "Manual");
    assert_eq!(dns["installPlanApproval"], "Manual");
    assert!(
        stderr.contains("nothing installs until someone approves the InstallPlan"),
        "{stderr}"
    );
    // One Namespace and one OperatorGroup for the two.
    let o = cmd()
        .args(["create", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let names: Vec<String> = tree(&dir.path().join("manifests"))
        .into_iter()
        .map(|(n, _)| n)
        .filter(|n| n.contains("_operatorgroup_") || n.contains("_namespace_acme-dns"))
        .collect();
    assert_eq!(
        names,
        [
            "99_po_dns-operator_00_namespace_acme-dns.yaml",
            "99_po_dns-operator_01_operatorgroup_acme-dns.yaml"
        ]
    );
}

#[test]
fn an_unsatisfiable_dependency_names_what_is_missing() {
    let dir = example();
    // Only metrics 0.1.0 left: both DNS versions need >=0.2.0.
    let path = dir
        .path()
        .join("catalog/acme-metrics-operator/catalog.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let docs: Vec<Value> = serde_json::Deserializer::from_str(&text)
        .into_iter::<Value>()
        .map(Result::unwrap)
        .filter(|d| !(d["schema"] == "olm.bundle" && d["name"] != "acme-metrics-operator.v0.1.0"))
        .map(|mut d| {
            if d["schema"] == "olm.channel" {
                d["entries"] = serde_json::json!([{"name": "acme-metrics-operator.v0.1.0"}]);
            }
            d
        })
        .collect();
    std::fs::write(
        &path,
        docs.iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
            .join("\n"),
    )
    .unwrap();
    let stderr = refused(
        dir.path(),
        &[
            "constraints not satisfiable",
            "bundle acme-dns-operator.v2.1.0 requires an operator with package: acme-metrics-operator and with version in range: >=0.2.0 <1.0.0",
        ],
    );
    assert!(stderr.contains("ConstraintsNotSatisfiable"), "{stderr}");
    let (code, doc, _) = resolve_json(dir.path(), &[]);
    assert_eq!(code, Some(1));
    let dns = operator(&doc, "dns-operator");
    assert!(
        dns["error"]
            .as_str()
            .unwrap()
            .contains("package: acme-metrics-operator"),
        "{dns}"
    );
}

#[test]
fn on_4_20_olm_v1_refuses_it_and_names_the_subscription_profile() {
    let dir = example();
    with_dns(
        dir.path(),
        "  - name: dns-operator\n    package: acme-dns-operator\n    channel: stable\n",
    );
    let (code, doc, _) = resolve_json(dir.path(), &["--cluster-version", "4.20.3"]);
    assert_eq!(code, Some(1));
    let problems = operator(&doc, "dns-operator")["problems"].to_string();
    assert!(problems.contains("profile: subscription"), "{problems}");
}

/// The example catalog as catalogs of 4.17 and later are: `olm.csv.metadata` in place of the
/// embedded objects, so only bundle images could give the content.
fn metadata_only(dir: &Path) {
    for entry in walkdir::WalkDir::new(dir.join("catalog")) {
        let entry = entry.unwrap();
        if entry.path().extension().is_none_or(|e| e != "json") {
            continue;
        }
        let text = std::fs::read_to_string(entry.path()).unwrap();
        let docs: Vec<Value> = serde_json::Deserializer::from_str(&text)
            .into_iter::<Value>()
            .map(Result::unwrap)
            .map(|mut d| {
                if d["schema"] == "olm.bundle" {
                    let props = d["properties"].as_array().unwrap().clone();
                    let mut kept: Vec<Value> = Vec::new();
                    for p in props {
                        if p["type"] == "olm.bundle.object" {
                            use base64::Engine as _;
                            let raw = base64::engine::general_purpose::STANDARD
                                .decode(p["value"]["data"].as_str().unwrap())
                                .unwrap();
                            let obj: Value = serde_json::from_slice(&raw).unwrap();
                            if obj["kind"] == "ClusterServiceVersion" {
                                kept.push(
                                    serde_json::json!({"type": "olm.csv.metadata", "value": {
                                        "annotations": obj["metadata"]["annotations"],
                                        "installModes": obj["spec"]["installModes"],
                                    }}),
                                );
                            }
                        } else {
                            kept.push(p);
                        }
                    }
                    d["properties"] = Value::Array(kept);
                }
                d
            })
            .collect();
        std::fs::write(
            entry.path(),
            docs.iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join("\n"),
        )
        .unwrap();
    }
}

#[test]
fn resolution_answers_from_catalog_metadata_alone() {
    let dir = example();
    crate::common::without_external_ccm(dir.path());
    metadata_only(dir.path());
    let path = dir.path().join("platform-operators.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    // Only the DNS operator: the others need their bundle content.
    let start = text.find("  operators:\n").unwrap() + "  operators:\n".len();
    std::fs::write(&path, format!("{}{DNS}", &text[..start])).unwrap();
    let (code, doc, stderr) = resolve_json(
        dir.path(),
        &[
            "--offline",
            "--allow-unchecked",
            "--cluster-version",
            "4.20.3",
        ],
    );
    assert_eq!(code, Some(0), "{stderr}");
    let dns = operator(&doc, "dns-operator");
    assert_eq!(dns["bundle"], "acme-dns-operator.v2.1.0");
    assert_eq!(
        dns["dependencies"][0]["bundle"],
        "acme-metrics-operator.v0.3.0"
    );
    assert_eq!(dns["unchecked"], serde_json::json!([]));
}

#[test]
fn check_knows_subscriptions_operator_groups_and_catalog_sources() {
    let dir = example();
    cmd()
        .args(["create", "--dir"])
        .arg(dir.path())
        .assert()
        .success();
    let check = |dir: &Path| {
        let o = cmd()
            .args(["check", "-o", "json", "--dir"])
            .arg(dir)
            .output()
            .unwrap();
        let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
        let rules: Vec<String> = doc["problems"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["rule"].as_str().unwrap().to_string())
            .collect();
        (o.status.code(), rules)
    };
    // What create wrote is clean: the Subscription names a default CatalogSource, and its
    // namespace has the one OperatorGroup create wrote.
    let (code, rules) = check(dir.path());
    assert_eq!(code, Some(0), "{rules:?}");
    let manifests = dir.path().join("manifests");
    std::fs::write(
        manifests.join("99_x_sub.yaml"),
        "apiVersion: operators.coreos.com/v1alpha1\nkind: Subscription\nmetadata:\n  name: other\n  namespace: apps\nspec:\n  name: foo\n  source: my-catalog\n  sourceNamespace: elsewhere\n",
    )
    .unwrap();
    std::fs::write(
        manifests.join("99_x_og.yaml"),
        "apiVersion: operators.coreos.com/v1\nkind: OperatorGroup\nmetadata:\n  name: second\n  namespace: acme-dns\nspec:\n  targetNamespaces: [\"\"]\n",
    )
    .unwrap();
    std::fs::write(
        manifests.join("99_x_ns.yaml"),
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: apps\n",
    )
    .unwrap();
    let (code, mut rules) = check(dir.path());
    assert_eq!(code, Some(1));
    rules.sort();
    assert_eq!(
        rules,
        [
            "operatorgroup-count",
            "operatorgroup-count",
            "operatorgroup-targets",
            "subscription-source"
        ]
    );
}

/// The example as a 4.14 cluster without a feature set: the CCM and the DNS operator only.
fn subscriptions_only() -> tempfile::TempDir {
    let dir = example();
    let ic = dir.path().join("install-config.yaml");
    let text = std::fs::read_to_string(&ic).unwrap();
    std::fs::write(&ic, text.replace("featureSet: TechPreviewNoUpgrade\n", "")).unwrap();
    let path = dir.path().join("platform-operators.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    let cert = "  - name: cert-operator\n    package: acme-cert-operator\n    channel: stable\n    version: \">=1.0.0 <2.0.0\"\n";
    assert!(text.contains(cert), "{text}");
    std::fs::write(&path, text.replace(cert, "")).unwrap();
    dir
}

/// Edit the DNS operator's catalog file.
fn edit_dns_catalog(catalog: &Path, edit: impl Fn(&mut Vec<Value>)) {
    let path = catalog.join("acme-dns-operator/catalog.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut docs: Vec<Value> = serde_json::Deserializer::from_str(&text)
        .into_iter::<Value>()
        .map(Result::unwrap)
        .collect();
    edit(&mut docs);
    std::fs::write(
        &path,
        docs.iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
            .join("\n"),
    )
    .unwrap();
}

/// A 2.2.0 after 2.1.0 in channel stable, with these extra properties.
fn add_dns_2_2(docs: &mut Vec<Value>, extra: &[Value]) {
    let mut next = docs
        .iter()
        .find(|d| d["name"] == "acme-dns-operator.v2.1.0")
        .unwrap()
        .clone();
    next["name"] = "acme-dns-operator.v2.2.0".into();
    let props = next["properties"].as_array_mut().unwrap();
    for p in props.iter_mut() {
        if p["type"] == "olm.package" {
            p["value"]["version"] = "2.2.0".into();
        }
    }
    props.extend(extra.iter().cloned());
    docs.push(next);
    for d in docs.iter_mut() {
        if d["schema"] == "olm.channel" {
            d["entries"]
                .as_array_mut()
                .unwrap()
                .push(serde_json::json!({"name": "acme-dns-operator.v2.2.0", "replaces": "acme-dns-operator.v2.1.0"}));
        }
    }
}

#[test]
fn upgrade_plan_follows_the_channel_in_the_new_catalog() {
    let dir = subscriptions_only();
    cmd()
        .args(["create", "--dir"])
        .arg(dir.path())
        .assert()
        .success();
    let next = dir.path().join("next-catalog");
    crate::common::copy_dir(&dir.path().join("catalog"), &next);
    edit_dns_catalog(&next, |docs| add_dns_2_2(docs, &[]));
    let o = cmd()
        .args(["upgrade-plan", "-o", "json", "--to", "4.15.3", "--catalog"])
        .arg(format!("redhat-operators={}", next.display()))
        .arg("--dir")
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let plan: Value = serde_json::from_slice(&o.stdout).unwrap();
    let after = &plan["hops"][0]["after"];
    let dns = after
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["operator"] == "dns-operator")
        .unwrap_or_else(|| panic!("{plan}"));
    assert_eq!(dns["to"]["bundle"], "acme-dns-operator.v2.2.0");
    assert_eq!(dns["reason"]["rule"], "followsChannel");
}

#[test]
fn upgrade_plan_names_olm_v0s_upgradeable_false() {
    let dir = subscriptions_only();
    edit_dns_catalog(&dir.path().join("catalog"), |docs| {
        for d in docs.iter_mut() {
            if d["schema"] == "olm.bundle" {
                d["properties"]
                    .as_array_mut()
                    .unwrap()
                    .push(serde_json::json!({"type": "olm.maxOpenShiftVersion", "value": "4.14"}));
            }
        }
    });
    let o = cmd()
        .args(["create", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        String::from_utf8_lossy(&o.stderr)
            .contains("Upgradeable=False on the operator-lifecycle-manager ClusterOperator"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let o = cmd()
        .args(["upgrade-plan", "--to", "4.15.3", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let text =
        String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr);
    assert!(text.contains("operator-lifecycle-manager"), "{text}");
    assert!(text.contains("IncompatibleOperatorsInstalled"), "{text}");
}

#[test]
fn two_namespaces_providing_one_api_to_intersecting_groups_are_refused() {
    let dir = example();
    // The metrics operator on its own in all namespaces, and pulled into acme-dns for the
    // DNS operator: both provide Collector to groups that intersect.
    with_dns(
        dir.path(),
        &format!(
            "{DNS}  - name: metrics\n    package: acme-metrics-operator\n    profile: subscription\n"
        ),
    );
    refused(
        dir.path(),
        &[
            "both provide Collector (metrics.acme.example.com/v1alpha1) to intersecting OperatorGroups",
            "InterOperatorGroupOwnerConflict",
        ],
    );
}
