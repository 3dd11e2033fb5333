//! The ClusterExtension profile (OpenShift 4.18+): the objects written, and the installer's RBAC
//! evaluated the way the API server would, against every object of the converted bundle.

use std::path::Path;

use serde_json::Value;

use crate::common::{cmd, example, realdata, tree};

fn objects(dir: &Path) -> Vec<(String, Value)> {
    tree(&dir.join("manifests"))
        .into_iter()
        .map(|(n, t)| (n, serde_saphyr::from_str(&t).unwrap()))
        .collect()
}

fn kinds(objects: &[(String, Value)]) -> Vec<String> {
    objects
        .iter()
        .map(|(_, o)| o["kind"].as_str().unwrap().to_string())
        .collect()
}

/// RBAC's RuleAllows for resource requests (rbac/v1 semantics, `*` wildcards).
fn rule_allows(rule: &Value, verb: &str, group: &str, resource: &str, name: Option<&str>) -> bool {
    let has = |key: &str, want: &str| {
        rule.get(key)
            .and_then(Value::as_array)
            .is_some_and(|a| a.iter().any(|v| v == want || v == "*"))
    };
    let names: Vec<&str> = rule
        .get("resourceNames")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    has("verbs", verb)
        && has("apiGroups", group)
        && has("resources", resource)
        && (names.is_empty() || name.is_some_and(|n| names.contains(&n)))
}

fn allows(rules: &[Value], verb: &str, group: &str, resource: &str, name: Option<&str>) -> bool {
    rules
        .iter()
        .any(|r| rule_allows(r, verb, group, resource, name))
}

fn non_resource_allows(rules: &[Value], verb: &str, url: &str) -> bool {
    rules.iter().any(|r| {
        r.get("verbs")
            .and_then(Value::as_array)
            .is_some_and(|a| a.iter().any(|v| v == verb || v == "*"))
            && r.get("nonResourceURLs")
                .and_then(Value::as_array)
                .is_some_and(|a| {
                    a.iter().filter_map(Value::as_str).any(|u| {
                        u == url
                            || u == "*"
                            || (u.ends_with('*') && url.starts_with(&u[..u.len() - 1]))
                    })
                })
    })
}

fn group_of(api_version: &str) -> &str {
    api_version.rsplit_once('/').map(|(g, _)| g).unwrap_or("")
}

fn resource_of(kind: &str) -> String {
    let l = kind.to_ascii_lowercase();
    if l.ends_with('s') {
        format!("{l}es")
    } else if let Some(s) = l.strip_suffix('y') {
        format!("{s}ies")
    } else {
        format!("{l}s")
    }
}

fn strings(v: &Value, key: &str) -> Vec<String> {
    v.get(key)
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

/// Check the installer RBAC written for `operator` against the converted bundle in `bundle_dir`.
fn check_installer_rbac(
    written: &[(String, Value)],
    operator: &str,
    namespace: &str,
    converted: &[(String, Value)],
) {
    let installer = format!("{operator}-installer");
    let find = |kind: &str| {
        written
            .iter()
            .map(|(_, o)| o)
            .find(|o| o["kind"] == kind && o["metadata"]["name"] == installer.as_str())
    };
    let cluster_rules: Vec<Value> = find("ClusterRole").unwrap()["rules"]
        .as_array()
        .unwrap()
        .clone();
    let role_rules: Vec<Value> = find("Role")
        .and_then(|r| r["rules"].as_array().cloned())
        .unwrap_or_default();
    let binding = find("ClusterRoleBinding").unwrap();
    assert_eq!(binding["subjects"][0]["name"], installer.as_str());
    assert_eq!(binding["subjects"][0]["namespace"], namespace);
    let ext = written
        .iter()
        .map(|(_, o)| o)
        .find(|o| o["kind"] == "ClusterExtension" && o["metadata"]["name"] == operator)
        .unwrap();
    assert_eq!(ext["spec"]["serviceAccount"]["name"], installer.as_str());

    // 1. Every object of the converted bundle can be created and updated by the installer.
    let mut bundle_role_rules = Vec::new();
    for (name, o) in converted {
        let group = group_of(o["apiVersion"].as_str().unwrap());
        let resource = resource_of(o["kind"].as_str().unwrap());
        let obj_name = o["metadata"]["name"].as_str().unwrap();
        let namespaced = o["metadata"].get("namespace").is_some();
        let rules: Vec<Value> = if namespaced {
            assert_eq!(o["metadata"]["namespace"], namespace, "{name}");
            cluster_rules.iter().chain(&role_rules).cloned().collect()
        } else {
            cluster_rules.clone()
        };
        assert!(
            allows(&rules, "create", group, &resource, None),
            "create {resource} ({name})"
        );
        // OLM v1's preflight (authorization/rbac.go) asks for list/watch at cluster scope.
        for verb in ["list", "watch"] {
            assert!(
                allows(&cluster_rules, verb, group, &resource, None),
                "{verb} {resource} cluster-wide ({name})"
            );
        }
        for verb in ["get", "update", "patch", "delete"] {
            assert!(
                allows(&rules, verb, group, &resource, Some(obj_name)),
                "{verb} {resource}/{obj_name} ({name})"
            );
        }
        // Not on other names (unless the bundle's own roles grant that).
        if o["kind"] == "ClusterRole" || o["kind"] == "Role" {
            bundle_role_rules.push((
                namespaced,
                o["rules"].as_array().cloned().unwrap_or_default(),
            ));
        }
    }
    // 2. The installer holds every permission the bundle's own roles grant (escalation check).
    for (namespaced, rules) in &bundle_role_rules {
        let holder: Vec<Value> = if *namespaced {
            cluster_rules.iter().chain(&role_rules).cloned().collect()
        } else {
            cluster_rules.clone()
        };
        for r in rules {
            for verb in strings(r, "verbs") {
                for url in strings(r, "nonResourceURLs") {
                    assert!(non_resource_allows(&holder, &verb, &url), "{verb} {url}");
                }
                for group in strings(r, "apiGroups") {
                    for resource in strings(r, "resources") {
                        let names = strings(r, "resourceNames");
                        if names.is_empty() {
                            assert!(
                                allows(&holder, &verb, &group, &resource, None)
                                    || holder.contains(r),
                                "{verb} {group}/{resource}"
                            );
                        }
                        for n in names {
                            assert!(
                                allows(&holder, &verb, &group, &resource, Some(&n)),
                                "{verb} {group}/{resource}/{n}"
                            );
                        }
                    }
                }
            }
        }
    }
    // 3. Nothing beyond that: every installer rule is the finalizer rule, an object rule, or a
    //    rule of the bundle's own roles; wildcards only where the bundle's roles carry them.
    let own: Vec<&Value> = bundle_role_rules.iter().flat_map(|(_, r)| r).collect();
    let object_keys: Vec<(String, String, String)> = converted
        .iter()
        .map(|(_, o)| {
            (
                group_of(o["apiVersion"].as_str().unwrap()).to_string(),
                resource_of(o["kind"].as_str().unwrap()),
                o["metadata"]["name"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    for r in cluster_rules.iter().chain(&role_rules) {
        if own.contains(&r) {
            continue;
        }
        if strings(r, "resources") == ["clusterextensions/finalizers"] {
            assert_eq!(strings(r, "verbs"), ["update"]);
            assert_eq!(strings(r, "resourceNames"), [operator]);
            continue;
        }
        let verbs = strings(r, "verbs");
        assert!(
            !verbs.contains(&"*".to_string())
                && !strings(r, "resources").contains(&"*".to_string()),
            "{r}"
        );
        let names = strings(r, "resourceNames");
        for group in strings(r, "apiGroups") {
            for resource in strings(r, "resources") {
                if names.is_empty() {
                    assert!(
                        !verbs.is_empty()
                            && verbs
                                .iter()
                                .all(|v| ["create", "list", "watch"].contains(&v.as_str())),
                        "{r}"
                    );
                    assert!(
                        object_keys
                            .iter()
                            .any(|(g, res, _)| *g == group && *res == resource),
                        "{r}"
                    );
                } else {
                    assert_eq!(verbs, ["delete", "get", "patch", "update"], "{r}");
                    for n in &names {
                        assert!(
                            object_keys
                                .iter()
                                .any(|(g, res, on)| *g == group && *res == resource && on == n),
                            "{r}: {n}"
                        );
                    }
                }
            }
        }
    }
}

fn converted(catalog: &Path, bundle: &str, namespace: &str) -> Vec<(String, Value)> {
    converted_on(catalog, bundle, namespace, &["--cluster-version", "4.18"])
}

/// `bundle render` of a catalog's bundle as the release in `target` (flags) renders it.
fn converted_on(
    catalog: &Path,
    bundle: &str,
    namespace: &str,
    target: &[&str],
) -> Vec<(String, Value)> {
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().join("r");
    cmd()
        .args(["bundle", "render", "--catalog"])
        .arg(catalog)
        .args(["--bundle", bundle, "--namespace", namespace, "--output-dir"])
        .arg(&dir)
        .args(target)
        .assert()
        .success();
    tree(&dir)
        .into_iter()
        .map(|(n, t)| (n, serde_saphyr::from_str(&t).unwrap()))
        .collect()
}

#[test]
fn example_on_4_18_writes_a_cluster_extension_with_least_privilege() {
    let dir = example();
    crate::common::without_external_ccm(dir.path());
    let config = dir.path().join("platform-operators.yaml");
    let text = std::fs::read_to_string(&config)
        .unwrap()
        .replace("\"4.14.8\"", "\"4.18.3\"")
        .replace("    source: catalog\n", "    source: catalog\n    image: registry.example.com/acme/operator-index@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n");
    // The example's cloud controller is capped at OpenShift 4.16 (olm.maxOpenShiftVersion).
    let text = text[..text.find("  - name: cloud-controller").unwrap()].to_string();
    std::fs::write(&config, text).unwrap();
    cmd()
        .args(["create", "--dir"])
        .arg(dir.path())
        .assert()
        .success();
    let written = objects(dir.path());
    let cert: Vec<(String, Value)> = written
        .iter()
        .filter(|(n, _)| n.starts_with("99_po_cert-operator_"))
        .cloned()
        .collect();
    assert_eq!(
        kinds(&cert),
        [
            "Namespace",
            "ServiceAccount",
            "ClusterRole",
            "ClusterRoleBinding",
            "Role",
            "RoleBinding",
            "ClusterExtension"
        ]
    );
    let ext = &cert.last().unwrap().1;
    assert_eq!(ext["apiVersion"], "olm.operatorframework.io/v1");
    assert_eq!(ext["spec"]["namespace"], "acme-cert-operator");
    assert_eq!(ext["spec"]["source"]["catalog"]["version"], "1.2.0");
    assert_eq!(
        ext["spec"]["source"]["catalog"]["channels"],
        serde_json::json!(["stable"])
    );
    assert_eq!(
        ext["spec"]["source"]["catalog"]["upgradeConstraintPolicy"],
        "CatalogProvided"
    );
    assert_eq!(
        ext["spec"]["source"]["catalog"]["selector"]["matchLabels"]["olm.operatorframework.io/metadata.name"],
        "redhat-operators"
    );
    let catalog = written
        .iter()
        .find(|(_, o)| o["kind"] == "ClusterCatalog")
        .unwrap();
    assert_eq!(
        catalog.1["spec"]["source"]["image"]["ref"]
            .as_str()
            .unwrap(),
        "registry.example.com/acme/operator-index@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
    );
    let conv = converted(
        &dir.path().join("catalog"),
        "acme-cert-operator.v1.2.0",
        "acme-cert-operator",
    );
    check_installer_rbac(&written, "cert-operator", "acme-cert-operator", &conv);
    let files = tree(&dir.path().join("manifests"));
    insta::assert_snapshot!(
        "cluster_extension_cert_operator",
        files
            .iter()
            .filter(|(n, _)| n.starts_with("99_po_cert-operator_")
                || n.starts_with("99_po_clustercatalogs_"))
            .map(|(n, t)| format!("=== {n}\n{t}"))
            .collect::<String>()
    );
}

#[test]
fn a_catalog_without_image_must_be_an_openshift_default() {
    let dir = example();
    crate::common::without_external_ccm(dir.path());
    let config = dir.path().join("platform-operators.yaml");
    let text = std::fs::read_to_string(&config)
        .unwrap()
        .replace("\"4.14.8\"", "\"4.18.3\"");
    std::fs::write(
        &config,
        &text[..text.find("  - name: cloud-controller").unwrap()],
    )
    .unwrap();
    let out = cmd()
        .args(["create", "--dir"])
        .arg(dir.path())
        .assert()
        .code(1);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr);
    assert!(
        stderr.contains("openshift-redhat-operators") && stderr.contains("has no `image:`"),
        "{stderr}"
    );
    assert!(!dir.path().join("manifests").exists());
}

#[test]
fn real_community_catalog_on_4_18() {
    let Some(rd) = realdata("real_community_catalog_on_4_18") else {
        return;
    };
    let catalog = rd.join("community-fbc-small/v4.16");
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("platform-operators.yaml"),
        format!(
            "platformOperators:\n  clusterVersion: \"4.18.0\"\n  catalogs:\n  - name: openshift-community-operators\n    source: {}\n  operators:\n  - name: ecr-secret\n    package: ecr-secret-operator\n    waive:\n    - rule: cr-schema\n      reason: its sample Secret CR lacks spec.region (see realdata_ecr_secret_operator_as_a_cluster_extension_is_refused)\n  - name: libredb\n    package: libredb-studio-operator\n    namespace: libredb\n",
            catalog.display()
        ),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("install-config.yaml"),
        "apiVersion: v1\nplatform: {none: {}}\n",
    )
    .unwrap();
    cmd()
        .args(["create", "--dir"])
        .arg(dir.path())
        .assert()
        .success();
    let written = objects(dir.path());
    assert!(
        written.iter().all(|(_, o)| o["kind"] != "ClusterCatalog"),
        "default catalogs need no ClusterCatalog"
    );
    for (operator, package, namespace) in [
        ("ecr-secret", "ecr-secret-operator", None),
        ("libredb", "libredb-studio-operator", Some("libredb")),
    ] {
        let ext = written
            .iter()
            .map(|(_, o)| o)
            .find(|o| o["kind"] == "ClusterExtension" && o["metadata"]["name"] == operator)
            .unwrap();
        let ns = ext["spec"]["namespace"].as_str().unwrap().to_string();
        if let Some(n) = namespace {
            assert_eq!(ns, n);
        }
        let bundle_name = {
            let out = cmd()
                .args(["resolve", "-o", "json", "--dir"])
                .arg(dir.path())
                .assert()
                .success();
            let v: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
            v["operators"]
                .as_array()
                .unwrap()
                .iter()
                .find(|o| o["package"] == package)
                .unwrap()["bundle"]
                .as_str()
                .unwrap()
                .to_string()
        };
        let conv = converted(&catalog.join(package), &bundle_name, &ns);
        check_installer_rbac(&written, operator, &ns, &conv);
    }
}

#[test]
fn non_bootstrap_operator_on_4_16_is_an_olm_v0_subscription() {
    let dir = example();
    let config = dir.path().join("platform-operators.yaml");
    std::fs::write(
        &config,
        std::fs::read_to_string(&config)
            .unwrap()
            .replace("\"4.14.8\"", "\"4.16.2\""),
    )
    .unwrap();
    let out = cmd()
        .args(["create", "--dir"])
        .arg(dir.path())
        .assert()
        .code(1);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr);
    // 4.16 has neither PlatformOperators nor OLM v1: the operator is a Subscription, and the
    // example's version range is one OLM v0 cannot honour.
    assert!(
        stderr.contains("written as OLM v0 Subscriptions")
            && stderr.contains("is a range, and OLM v0 has none"),
        "{stderr}"
    );
    // Bootstrap operators alone still work on 4.16.
    let text = std::fs::read_to_string(&config).unwrap();
    let start = text.find("  - name: cert-operator").unwrap();
    let end = text.find("  - name: cloud-controller").unwrap();
    std::fs::write(&config, format!("{}{}", &text[..start], &text[end..])).unwrap();
    cmd()
        .args(["create", "--dir"])
        .arg(dir.path())
        .assert()
        .success();
}

/// `create` of OLM v1's own e2e webhook operator (validating, mutating and conversion
/// webhooks; `olmv1-e2e-test-catalog`) per release: refused where the service-ca provider is
/// off, naming where it is on; written where it is on, with an installer whose RBAC covers
/// every object that release's OLM v1 creates (the webhook configurations and the Service
/// included).
#[test]
fn webhook_operator_per_release() {
    let Some(rd) = realdata("webhook_operator_per_release") else {
        return;
    };
    let e2e = rd.join("olmv1-e2e-test-catalog");
    let catalog = e2e.join("catalogs/test-catalog/v1/configs");
    let run = |version: &str, feature_set: Option<&str>| {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("platform-operators.yaml"),
            format!(
                "platformOperators:\n  clusterVersion: \"{version}\"\n  catalogs:\n  - name: e2e\n    source: {}\n    image: registry.example.com/e2e/test-catalog@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n  operators:\n  - name: webhooks\n    package: webhook-operator\n    namespace: webhook-system\n",
                catalog.display()
            ),
        )
        .unwrap();
        let feature_set = feature_set.map(|fs| format!("featureSet: {fs}\n"));
        std::fs::write(
            dir.path().join("install-config.yaml"),
            format!(
                "apiVersion: v1\n{}platform: {{none: {{}}}}\n",
                feature_set.unwrap_or_default()
            ),
        )
        .unwrap();
        let out = cmd()
            .args(["create", "--dir"])
            .arg(dir.path())
            .arg("--bundles")
            .arg(e2e.join("bundles"))
            .output()
            .unwrap();
        (dir, out)
    };
    for (version, fs) in [("4.18.5", None), ("4.20.1", None)] {
        let (_dir, out) = run(version, fs);
        assert_eq!(out.status.code(), Some(1), "{version}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("on 4.21 or later, or 4.20 with TechPreviewNoUpgrade"),
            "{version}: {stderr}"
        );
    }
    for (version, fs, flags) in [
        (
            "4.20.1",
            Some("TechPreviewNoUpgrade"),
            &[
                "--cluster-version",
                "4.20",
                "--feature-set",
                "TechPreviewNoUpgrade",
            ][..],
        ),
        ("4.21.0", None, &["--cluster-version", "4.21"][..]),
        ("4.22.0", None, &["--cluster-version", "4.22"][..]),
        ("4.23.0", None, &["--cluster-version", "4.23"][..]),
        ("5.0.0", None, &["--cluster-version", "5.0"][..]),
    ] {
        let (dir, out) = run(version, fs);
        assert!(
            out.status.success(),
            "{version}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let written = objects(dir.path());
        let bundles = e2e.join("bundles");
        let mut flags = flags.to_vec();
        flags.extend(["--bundles", bundles.to_str().unwrap()]);
        let conv = converted_on(
            &catalog,
            "webhook-operator.v0.0.1",
            "webhook-system",
            &flags,
        );
        let conv_kinds = kinds(&conv);
        for kind in [
            "ValidatingWebhookConfiguration",
            "MutatingWebhookConfiguration",
            "Service",
        ] {
            assert!(conv_kinds.iter().any(|k| k == kind), "{version}: {kind}");
        }
        check_installer_rbac(&written, "webhooks", "webhook-system", &conv);
    }
}

/// `create` of OLM v1's own e2e OwnNamespace-only operator (`olmv1-e2e-test-catalog`) per
/// release: refused on 4.18 and where `NewOLMOwnSingleNamespace` is off, naming where it is on;
/// written with the watch namespace as the release reads it (the annotation on 4.20, `spec.config`
/// from 4.21) and an installer whose RBAC covers what that release renders.
#[test]
fn own_namespace_operator_per_release() {
    let Some(rd) = realdata("own_namespace_operator_per_release") else {
        return;
    };
    let e2e = rd.join("olmv1-e2e-test-catalog");
    // The e2e catalog names the bundle `own-namespace-operator.1.0.0`, its CSV
    // `ownnamespaceoperator.v1.0.0`, so `--bundles` cannot match them: a catalog of our own
    // names the real bundle directory's CSV.
    let catalog_dir = tempfile::tempdir().unwrap();
    let catalog = catalog_dir.path().join("catalog.yaml");
    std::fs::write(
        &catalog,
        "schema: olm.package\nname: own-namespace-operator\ndefaultChannel: alpha\n---\nschema: olm.channel\nname: alpha\npackage: own-namespace-operator\nentries:\n- name: ownnamespaceoperator.v1.0.0\n---\nschema: olm.bundle\nname: ownnamespaceoperator.v1.0.0\npackage: own-namespace-operator\nimage: registry.example.com/e2e/own-namespace-operator@sha256:1111111111111111111111111111111111111111111111111111111111111111\nproperties:\n- type: olm.package\n  value:\n    packageName: own-namespace-operator\n    version: 1.0.0\n",
    )
    .unwrap();
    let bundles = e2e.join("bundles/own-namespace-operator/v1.0.0");
    let run = |version: &str, feature_set: Option<&str>| {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("platform-operators.yaml"),
            format!(
                "platformOperators:\n  clusterVersion: \"{version}\"\n  catalogs:\n  - name: e2e\n    source: {}\n    image: registry.example.com/e2e/test-catalog@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n  operators:\n  - name: own\n    package: own-namespace-operator\n    namespace: own-system\n    watchNamespace: own-system\n",
                catalog.display()
            ),
        )
        .unwrap();
        let feature_set = feature_set.map(|fs| format!("featureSet: {fs}\n"));
        std::fs::write(
            dir.path().join("install-config.yaml"),
            format!(
                "apiVersion: v1\n{}platform: {{none: {{}}}}\n",
                feature_set.unwrap_or_default()
            ),
        )
        .unwrap();
        let out = cmd()
            .args(["create", "--dir"])
            .arg(dir.path())
            .arg("--bundles")
            .arg(&bundles)
            .output()
            .unwrap();
        (dir, out)
    };
    for (version, fs, says) in [
        (
            "4.18.5",
            Some("TechPreviewNoUpgrade"),
            "honoured on 4.22 or later, or 4.19 to 4.21 with TechPreviewNoUpgrade",
        ),
        (
            "4.21.0",
            None,
            "honoured on 4.22 or later, or 4.19 to 4.21 with TechPreviewNoUpgrade",
        ),
        (
            "4.22.0",
            None,
            "bundle does not support AllNamespaces install mode",
        ),
        (
            "5.0.0",
            None,
            "bundle does not support AllNamespaces install mode",
        ),
    ] {
        let (_dir, out) = run(version, fs);
        assert_eq!(out.status.code(), Some(1), "{version}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(says), "{version}: {stderr}");
    }
    for (version, release) in [
        ("4.20.1", "4.20"),
        ("4.21.0", "4.21"),
        ("4.22.0", "4.22"),
        ("4.23.0", "4.23"),
        ("5.0.0", "5.0"),
    ] {
        let (dir, out) = run(version, Some("TechPreviewNoUpgrade"));
        assert!(
            out.status.success(),
            "{version}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let written = objects(dir.path());
        let ext = written
            .iter()
            .map(|(_, o)| o)
            .find(|o| o["kind"] == "ClusterExtension")
            .unwrap();
        if release == "4.20" {
            assert_eq!(
                ext["metadata"]["annotations"]["olm.operatorframework.io/watch-namespace"],
                "own-system"
            );
            assert!(ext["spec"].get("config").is_none());
        } else {
            assert_eq!(
                ext["spec"]["config"],
                serde_json::json!({"configType": "Inline", "inline": {"watchNamespace": "own-system"}})
            );
            assert!(ext["metadata"].get("annotations").is_none());
        }
        let conv = converted_on(
            &catalog,
            "ownnamespaceoperator.v1.0.0",
            "own-system",
            &[
                "--cluster-version",
                release,
                "--feature-set",
                "TechPreviewNoUpgrade",
                "--watch-namespace",
                "own-system",
                "--bundles",
                bundles.to_str().unwrap(),
            ],
        );
        assert!(kinds(&conv).iter().any(|k| k == "Role"), "{version}");
        check_installer_rbac(&written, "own", "own-system", &conv);
    }
}

/// Issue 24 part 3: `create` for the releases after 4.22 writes what their branches' OLM v1
/// installs. release-4.23 and release-5.0 carry 4.22's renderer unchanged, so every manifest is
/// 4.22's, byte for byte; the release is known (no "newer than" warning), and one newer than
/// the table (5.9) still gets the newest rules (5.1's) with the warning.
#[test]
fn create_after_4_22_writes_what_the_branch_installs() {
    let Some(rd) = realdata("create_after_4_22_writes_what_the_branch_installs") else {
        return;
    };
    let e2e = rd.join("olmv1-e2e-test-catalog");
    let catalog = e2e.join("catalogs/test-catalog/v1/configs");
    let run = |version: &str| {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("platform-operators.yaml"),
            format!(
                "platformOperators:\n  clusterVersion: \"{version}\"\n  catalogs:\n  - name: e2e\n    source: {}\n    image: registry.example.com/e2e/test-catalog@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n  operators:\n  - name: webhooks\n    package: webhook-operator\n    namespace: webhook-system\n",
                catalog.display()
            ),
        )
        .unwrap();
        std::fs::write(
            dir.path().join("install-config.yaml"),
            "apiVersion: v1\nplatform: {none: {}}\n",
        )
        .unwrap();
        let out = cmd()
            .args(["create", "--dir"])
            .arg(dir.path())
            .arg("--bundles")
            .arg(e2e.join("bundles"))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{version}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let manifests = tree(&dir.path().join("manifests"));
        (manifests, String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let (on_4_22, _) = run("4.22.0");
    assert!(!on_4_22.is_empty());
    for version in ["4.23.0", "5.0.0", "5.0.3"] {
        let (written, stderr) = run(version);
        assert!(!stderr.contains("newer than"), "{version}: {stderr}");
        assert_eq!(written, on_4_22, "{version}");
    }
    let ext = on_4_22
        .iter()
        .find(|(n, _)| n.contains("clusterextension"))
        .map(|(_, t)| serde_saphyr::from_str::<Value>(t).unwrap())
        .unwrap();
    // spec.serviceAccount is still required on release-4.23/5.0 (`+required`).
    assert_eq!(ext["spec"]["serviceAccount"]["name"], "webhooks-installer");
    let (written, stderr) = run("5.9.0");
    assert!(
        stderr.contains(
            "OpenShift 5.9.0 is newer than the releases po-manifests knows; its OLM v1 is assumed to behave like 5.1's"
        ),
        "{stderr}"
    );
    assert_eq!(written, on_4_22);
}

/// The example on 4.18 with `edit` applied to its configuration (cloud controller removed).
fn example_on_4_18(edit: impl Fn(String) -> String) -> (tempfile::TempDir, String, Option<i32>) {
    example_on_4_18_with(edit, |_| {})
}

/// [`example_on_4_18`], with `prepare` run on the install directory first.
fn example_on_4_18_with(
    edit: impl Fn(String) -> String,
    prepare: impl Fn(&Path),
) -> (tempfile::TempDir, String, Option<i32>) {
    let dir = example();
    crate::common::without_external_ccm(dir.path());
    prepare(dir.path());
    let config = dir.path().join("platform-operators.yaml");
    let text = std::fs::read_to_string(&config)
        .unwrap()
        .replace("\"4.14.8\"", "\"4.18.3\"");
    let text = text[..text.find("  - name: cloud-controller").unwrap()].to_string();
    std::fs::write(&config, edit(text)).unwrap();
    let out = cmd()
        .args(["create", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (dir, stderr, out.status.code())
}

const IMAGE: &str = "registry.example.com/acme/operator-index@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

/// What the API server would refuse is refused before anything is written: a channel that is
/// not a DNS-1123 subdomain (ClusterExtension CEL), a catalog image the ClusterCatalog CRD
/// refuses, a configured catalog colliding with an OpenShift default ClusterCatalog.
#[test]
fn api_server_refusals_are_caught_first() {
    let with_image = |img: &str| {
        let img = img.to_string();
        move |t: String| {
            t.replace(
                "    source: catalog\n",
                &format!("    source: catalog\n    image: {img}\n"),
            )
        }
    };
    // The channel is named `Stable` in the catalog too (as aws-neuron-operator's in the 4.20
    // community catalog).
    let (dir, stderr, code) = example_on_4_18_with(
        |t| with_image(IMAGE)(t).replace("channel: stable", "channel: Stable"),
        |d| {
            let f = d.join("catalog/acme-cert-operator/catalog.json");
            let text = std::fs::read_to_string(&f).unwrap();
            std::fs::write(&f, text.replace("\"stable\"", "\"Stable\"")).unwrap();
        },
    );
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("channel \"Stable\" is not a DNS-1123 subdomain"),
        "{stderr}"
    );
    assert!(!dir.path().join("manifests").exists());

    for (image, says) in [
        (
            "registry.example.com/acme/operator-index",
            "must end with a digest or a tag",
        ),
        (
            "registry.example.com/acme/operator-index@sha256:abc",
            "at least 32 characters",
        ),
        (
            "registry.example.com/Acme/Operator-Index:v1",
            "a valid name is required",
        ),
    ] {
        let (dir, stderr, code) = example_on_4_18(with_image(image));
        assert_eq!(code, Some(1), "{image}: {stderr}");
        assert!(stderr.contains(says), "{image}: {stderr}");
        assert!(!dir.path().join("manifests").exists());
    }

    let (_dir, stderr, code) = example_on_4_18(|t| {
        with_image(IMAGE)(t)
            .replace("name: redhat-operators", "name: openshift-redhat-operators")
            .replace(
                "catalog: redhat-operators",
                "catalog: openshift-redhat-operators",
            )
    });
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("named like one of the ClusterCatalogs OpenShift creates itself"),
        "{stderr}"
    );
}

/// OLM v1 lets one ClusterExtension own a package's objects and each CRD.
#[test]
fn one_owner_per_package_and_crd() {
    let (dir, stderr, code) = example_on_4_18(|t| {
        t.replace(
            "    source: catalog\n",
            &format!("    source: catalog\n    image: {IMAGE}\n"),
        ) + "  - name: cert-operator-again\n    package: acme-cert-operator\n    namespace: acme-again\n"
    });
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("operators \"cert-operator\" and \"cert-operator-again\" both install package acme-cert-operator"),
        "{stderr}"
    );
    assert!(!dir.path().join("manifests").exists());
}

/// Operators are rendered on every core but decided in configuration order: of eight that
/// install one package, the first is the owner in every refusal, whichever finished first,
/// and the message is the same run after run.
#[test]
fn the_owner_is_the_first_in_configuration_order_however_rendering_runs() {
    let copies = |t: String| {
        let mut t = t.replace(
            "    source: catalog\n",
            &format!("    source: catalog\n    image: {IMAGE}\n"),
        );
        for i in 1..8 {
            t += &format!(
                "  - name: cert-operator-{i}\n    package: acme-cert-operator\n    namespace: acme-{i}\n"
            );
        }
        t
    };
    let (dir, first, code) = example_on_4_18(copies);
    assert_eq!(code, Some(1), "{first}");
    for i in 1..8 {
        assert!(
            first.contains(&format!(
                "operators \"cert-operator\" and \"cert-operator-{i}\" both install package acme-cert-operator"
            )),
            "{first}"
        );
    }
    assert!(!dir.path().join("manifests").exists());
    // Each run's own directory aside, the whole report is the same every time.
    let own = |d: &tempfile::TempDir, s: &str| s.replace(d.path().to_str().unwrap(), "[DIR]");
    let first = own(&dir, &first);
    for _ in 0..3 {
        let (again_dir, again, _) = example_on_4_18(copies);
        assert_eq!(own(&again_dir, &again), first);
    }
}

/// With `baselineCapabilitySet: None` and no `OperatorLifecycleManagerV1`, the ClusterExtension
/// CRD never exists: refused before anything is written.
#[test]
fn capabilities_without_olm_v1_are_refused() {
    let capabilities = |extra: &'static str| {
        move |d: &Path| {
            std::fs::write(
                d.join("install-config.yaml"),
                format!("apiVersion: v1\ncapabilities:\n  baselineCapabilitySet: None\n{extra}platform: {{none: {{}}}}\n"),
            )
            .unwrap()
        }
    };
    let with_image = |t: String| {
        t.replace(
            "    source: catalog\n",
            &format!("    source: catalog\n    image: {IMAGE}\n"),
        )
    };
    let (dir, stderr, code) = example_on_4_18_with(with_image, capabilities(""));
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("does not enable OperatorLifecycleManagerV1"),
        "{stderr}"
    );
    assert!(!dir.path().join("manifests").exists());
    let (_dir, stderr, code) = example_on_4_18_with(
        with_image,
        capabilities("  additionalEnabledCapabilities: [OperatorLifecycleManagerV1]\n"),
    );
    assert_eq!(code, Some(0), "{stderr}");
}

/// Rewrite the example's acme-cert-operator.v1.2.0 so that its CRD (kind `Secret` in its own
/// group, as ecr-secret-operator's real bundles do) requires `spec.issuer`, and the bundle ships
/// a sample of that kind without it, plus a field the schema does not declare.
fn with_a_sample_that_fails_its_crd(dir: &Path) {
    use base64::Engine as _;
    let b64 = base64::engine::general_purpose::STANDARD;
    let path = dir.join("catalog/acme-cert-operator/catalog.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut docs: Vec<Value> = serde_json::Deserializer::from_str(&text)
        .into_iter()
        .map(Result::unwrap)
        .collect();
    let bundle = docs
        .iter_mut()
        .find(|d| d["schema"] == "olm.bundle" && d["name"] == "acme-cert-operator.v1.2.0")
        .unwrap();
    let props = bundle["properties"].as_array_mut().unwrap();
    for p in props
        .iter_mut()
        .filter(|p| p["type"] == "olm.bundle.object")
    {
        let mut o: Value =
            serde_json::from_slice(&b64.decode(p["value"]["data"].as_str().unwrap()).unwrap())
                .unwrap();
        if o["kind"] == "CustomResourceDefinition" {
            o["metadata"]["name"] = "secrets.certs.acme.example.com".into();
            o["spec"]["names"] = serde_json::json!({"kind": "Secret", "listKind": "SecretList", "plural": "secrets", "singular": "secret"});
            o["spec"]["versions"][0]["schema"] = serde_json::json!({"openAPIV3Schema": {"type": "object", "properties": {"spec": {"type": "object", "required": ["issuer"], "properties": {"issuer": {"type": "string"}}}}}});
            p["value"]["data"] = b64.encode(serde_json::to_vec(&o).unwrap()).into();
        }
    }
    let sample = serde_json::json!({"apiVersion": "certs.acme.example.com/v1", "kind": "Secret", "metadata": {"name": "example"}, "spec": {"commonName": "example.com"}});
    props.push(serde_json::json!({"type": "olm.bundle.object", "value": {"data": b64.encode(serde_json::to_vec(&sample).unwrap())}}));
    let out: String = docs
        .iter()
        .map(|d| format!("{}\n", serde_json::to_string(d).unwrap()))
        .collect();
    std::fs::write(&path, out).unwrap();
}

/// Issue 24 part 1: the objects OLM v1 applies for a ClusterExtension are checked as the API
/// server checks them. A sample CR missing a field its CRD requires would be rejected, so the
/// ClusterExtension would never install: `create` and `resolve` refuse it, naming the object,
/// the field and the CRD; waived for the operator, it is written and the lock records the waiver.
/// A field the schema does not declare is a warning (the API server drops it).
#[test]
fn a_sample_cr_that_fails_its_crd_refuses_the_cluster_extension_until_waived() {
    let with_image = |t: String| {
        t.replace(
            "    source: catalog\n",
            &format!("    source: catalog\n    image: {IMAGE}\n"),
        )
    };
    let (dir, stderr, code) = example_on_4_18_with(with_image, with_a_sample_that_fails_its_crd);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("the API server would reject one of the objects OLM v1 applies")
            && stderr.contains("Secret acme-cert-operator/example")
            && stderr.contains("spec: \"issuer\" is a required property")
            && stderr.contains("CRD secrets.certs.acme.example.com")
            && stderr.contains("[cr-schema]"),
        "{stderr}"
    );
    // The way to waive it, in the words every refusing rule of an operator's objects uses.
    assert!(
        stderr.contains("hint: fix the bundle, or, if the object is not needed, waive the rule for operator \"cert-operator\" in its configuration: `waive: [{rule: cr-schema, reason: \"...\"}]` (the reason is recorded in the lock file)"),
        "{stderr}"
    );
    assert!(
        stderr.contains("spec.commonName is not in the schema of CRD secrets.certs.acme.example.com; the API server drops it [cr-pruned]"),
        "{stderr}"
    );
    assert!(!dir.path().join("manifests").exists());
    // resolve, create's dry run, says the same.
    let out = cmd()
        .args(["resolve", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("spec: \"issuer\" is a required property")
    );

    let (dir, stderr, code) = example_on_4_18_with(
        |t| {
            with_image(t).replace(
                "    channel: stable\n",
                "    channel: stable\n    waive:\n    - rule: cr-schema\n      reason: the sample is never applied on purpose\n",
            )
        },
        with_a_sample_that_fails_its_crd,
    );
    assert_eq!(code, Some(0), "{stderr}");
    let lock = std::fs::read_to_string(dir.path().join("platform-operators.lock.yaml")).unwrap();
    assert!(lock.contains("rule: cr-schema"), "{lock}");
    assert!(kinds(&objects(dir.path())).contains(&"ClusterExtension".to_string()));
}

/// Issue 24 part 1 on real data: ecr-secret-operator's sample `Secret` custom resource lacks the
/// `spec.region` its own CRD requires; installed as a ClusterExtension on 4.18, the API server
/// would reject it, so `create` refuses and writes nothing.
#[test]
fn realdata_ecr_secret_operator_as_a_cluster_extension_is_refused() {
    let Some(rd) = realdata("realdata_ecr_secret_operator_as_a_cluster_extension_is_refused")
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("platform-operators.yaml"),
        format!(
            "platformOperators:\n  clusterVersion: \"4.18.3\"\n  catalogs:\n  - name: openshift-community-operators\n    source: {}\n  operators:\n  - name: ecr-secret\n    package: ecr-secret-operator\n",
            rd.join("community-fbc-small/v4.16/ecr-secret-operator").display()
        ),
    )
    .unwrap();
    let out = cmd()
        .args(["create", "--offline", "--dir"])
        .arg(dir.path())
        .arg("--cache-dir")
        .arg(dir.path().join(".cache"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("spec: \"region\" is a required property")
            && stderr.contains("[cr-schema]"),
        "{stderr}"
    );
    assert!(!dir.path().join("manifests").exists());
}
