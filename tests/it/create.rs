//! `po-manifests create` on the shipped example and on broken inputs: what it writes, what it
//! refuses, and that a refusal leaves `manifests/` exactly as it was.

use std::path::Path;

use crate::common::{cmd, example, normalize, tree};

fn create(dir: &Path) -> assert_cmd::assert::Assert {
    cmd().arg("create").arg("--dir").arg(dir).assert()
}

/// `create --locked` on `dir`.
fn create_locked(dir: &Path) -> assert_cmd::assert::Assert {
    cmd()
        .arg("create")
        .arg("--dir")
        .arg(dir)
        .arg("--locked")
        .assert()
}

#[test]
fn example_writes_one_object_per_file_and_a_lock() {
    let dir = example();
    create(dir.path()).success();
    let files = tree(&dir.path().join("manifests"));
    let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
    assert!(
        names.contains(&"99_po_cert-operator_00_platformoperator_cert-operator.yaml"),
        "{names:?}"
    );
    assert!(
        names.contains(&"99_po_cert-operator_01_bundledeployment_cert-operator.yaml"),
        "{names:?}"
    );
    assert!(
        names.contains(&"99_po_cloud-controller_00_namespace_acme-cloud-controller-system.yaml"),
        "{names:?}"
    );
    for (name, text) in &files {
        let docs: Vec<serde_json::Value> = serde_saphyr::from_multiple(text).unwrap();
        assert_eq!(docs.len(), 1, "{name} holds {} objects", docs.len());
    }
    // The BundleDeployment pins the resolved bundle's image from the catalog.
    let bd = &files
        .iter()
        .find(|(n, _)| n.contains("bundledeployment"))
        .unwrap()
        .1;
    assert!(
        bd.contains("quay.io/acme-example/cert-operator-bundle@sha256:"),
        "{bd}"
    );
    let lock = std::fs::read_to_string(dir.path().join("platform-operators.lock.yaml")).unwrap();
    assert!(lock.contains("bundle: acme-cert-operator.v1.2.0"), "{lock}");
    insta::assert_snapshot!("example_manifests", render_tree(&files));
    insta::assert_snapshot!("example_lock", lock);
}

fn render_tree(files: &[(String, String)]) -> String {
    files
        .iter()
        .map(|(n, t)| format!("=== {n}\n{t}"))
        .collect::<Vec<_>>()
        .join("")
}

#[test]
fn a_second_run_is_byte_identical() {
    let dir = example();
    create(dir.path()).success();
    let first = tree(dir.path());
    create(dir.path()).success();
    assert_eq!(first, tree(dir.path()));
    create_locked(dir.path()).success();
}

/// The lock pins a catalog by the files of the packages the run reads (lock version 3): another
/// package's file may change under `--locked`, a file of a package read may not, and a
/// version 2 lock's whole-catalog digest is still matched against the whole catalog.
#[test]
fn locked_pins_the_files_of_the_packages_read() {
    let dir = crate::common::example_without_subscriptions();
    create(dir.path()).success();
    let lock_path = dir.path().join("platform-operators.lock.yaml");
    let lock = std::fs::read_to_string(&lock_path).unwrap();
    assert!(
        lock.contains("lockVersion: 3\n")
            && lock.contains("  packages:\n  - acme-cert-operator\n  - acme-cloud-controller\n"),
        "{lock}"
    );
    let locked = || create_locked(dir.path());
    let append = |rel: &str| {
        let path = dir.path().join("catalog").join(rel);
        let mut text = std::fs::read_to_string(&path).unwrap();
        text.push('\n');
        std::fs::write(&path, text).unwrap();
    };
    // `catalog digest` prints both: the lock's, and the whole catalog's (a `sha256:` pin).
    let digest_of = |extra: &[&str]| {
        let out = cmd()
            .args(["catalog", "digest"])
            .arg(dir.path().join("catalog"))
            .args(extra)
            .assert()
            .success();
        String::from_utf8(out.get_output().stdout.clone()).unwrap()
    };
    let read = digest_of(&[
        "--package",
        "acme-cloud-controller",
        "--package",
        "acme-cert-operator",
    ]);
    assert!(
        lock.contains(&format!("  digest: {read}")),
        "{read} in {lock}"
    );
    assert_eq!(
        digest_of(&[]).trim(),
        po_manifests::catalog::content_digest(&dir.path().join("catalog")).unwrap()
    );
    assert_ne!(digest_of(&[]), read);
    // A package no operator names: the lock still holds.
    append("acme-metrics-operator/catalog.json");
    locked().success();

    // The same lock as version 2 wrote it: the whole catalog's digest, no packages.
    let whole = po_manifests::catalog::content_digest(&dir.path().join("catalog")).unwrap();
    let digest = lock
        .lines()
        .find_map(|l| l.strip_prefix("  digest: "))
        .unwrap()
        .to_string();
    let v2 = lock
        .replace("lockVersion: 3", "lockVersion: 2")
        .replace(
            "  packages:\n  - acme-cert-operator\n  - acme-cloud-controller\n",
            "",
        )
        .replace(&digest, &whole);
    std::fs::write(&lock_path, &v2).unwrap();
    locked().success();
    // Any file changes the whole catalog's digest.
    append("acme-dns-operator/catalog.json");
    let out = locked().code(1);
    let stderr = normalize(&out.get_output().stderr, dir.path());
    assert!(stderr.contains("the lock records content"), "{stderr}");

    // Back to the version 3 lock: a file of a package read changes, and it no longer holds.
    std::fs::write(&lock_path, &lock).unwrap();
    locked().success();
    append("acme-cert-operator/catalog.json");
    let before = tree(dir.path());
    let out = locked().code(1);
    let stderr = normalize(&out.get_output().stderr, dir.path());
    assert!(
        stderr.contains("catalog redhat-operators: the lock records content"),
        "{stderr}"
    );
    assert_eq!(before, tree(dir.path()));
}

#[test]
fn locked_refuses_a_different_resolution() {
    let dir = example();
    create(dir.path()).success();
    let config = dir.path().join("platform-operators.yaml");
    let text = std::fs::read_to_string(&config)
        .unwrap()
        .replace(">=1.0.0 <2.0.0", ">=1.0.0 <1.2.0");
    std::fs::write(&config, text).unwrap();
    let before = tree(dir.path());
    let out = create_locked(dir.path()).code(1);
    let stderr = normalize(&out.get_output().stderr, dir.path());
    assert!(
        stderr.contains("locked to acme-cert-operator 1.2.0"),
        "{stderr}"
    );
    // Issue 22 part 4: it says how to accept the change.
    assert!(
        stderr.contains("run the same command without --locked"),
        "{stderr}"
    );
    assert_eq!(before, tree(dir.path()));
}

#[test]
fn removed_operators_lose_their_files_and_nothing_else_is_touched() {
    let dir = example();
    std::fs::create_dir_all(dir.path().join("manifests")).unwrap();
    std::fs::write(
        dir.path().join("manifests/cluster-config.yaml"),
        "installer: own\n",
    )
    .unwrap();
    create(dir.path()).success();
    let config = dir.path().join("platform-operators.yaml");
    let text = std::fs::read_to_string(&config).unwrap();
    let cut = text.find("  - name: cloud-controller").unwrap();
    std::fs::write(&config, &text[..cut]).unwrap();
    crate::common::without_external_ccm(dir.path());
    create(dir.path()).success();
    let names: Vec<String> = tree(&dir.path().join("manifests"))
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    assert!(
        names.iter().all(|n| !n.contains("cloud-controller")),
        "{names:?}"
    );
    assert!(names.contains(&"cluster-config.yaml".to_string()));
}

/// Break the example config with `edit`, run create, and check it exits 1, names the cause, and
/// leaves the directory as it was.
fn refused(edit: impl Fn(&str) -> String, expect: &[&str]) -> String {
    let dir = example();
    create(dir.path()).success();
    let config = dir.path().join("platform-operators.yaml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&config, edit(&text)).unwrap();
    let before = tree(dir.path());
    let out = create(dir.path()).code(1);
    let stderr = normalize(&out.get_output().stderr, dir.path());
    for e in expect {
        assert!(stderr.contains(e), "expected {e:?} in:\n{stderr}");
    }
    assert_eq!(before, tree(dir.path()), "the install directory changed");
    stderr
}

#[test]
fn mistyped_package() {
    let stderr = refused(
        |t| t.replace("package: acme-cert-operator", "package: acme-cert-operatr"),
        &[
            "platform-operators.yaml:9:14",
            "package \"acme-cert-operatr\" is not in catalog \"redhat-operators\"",
            "did you mean \"acme-cert-operator\"",
        ],
    );
    insta::assert_snapshot!("mistyped_package", stderr);
}

/// A channel the package does not have is reported at its `channel:` line, with did-you-mean,
/// and not as every bundle being "only in channel stable".
#[test]
fn mistyped_channel() {
    let stderr = refused(
        |t| t.replacen("    channel: stable\n", "    channel: stabel\n", 1),
        &[
            "platform-operators.yaml:10:14",
            "package \"acme-cert-operator\" has no channel \"stabel\"",
            "did you mean \"stable\"?",
        ],
    );
    assert!(!stderr.contains("is only in channel"), "{stderr}");
    insta::assert_snapshot!("mistyped_channel", stderr);
}

/// A tab and an under-indented key are reported at the line that holds them.
#[test]
fn tab_and_under_indented_key_are_reported_where_they_are() {
    refused(
        |t| t.replacen("    channel: stable\n", "\tchannel: stable\n", 1),
        &[
            "platform-operators.yaml:10:1: line 10 is indented with a tab; YAML indents with spaces only",
        ],
    );
    refused(
        |t| t.replacen("    channel: stable\n", "   channel: stable\n", 1),
        &[
            "platform-operators.yaml:10:4: line 10 is indented 3 spaces where the keys around it have 4",
        ],
    );
}

#[test]
fn range_that_matches_nothing() {
    let stderr = refused(
        |t| t.replace(">=1.0.0 <2.0.0", ">=2.0.0"),
        &[
            "no bundle of package \"acme-cert-operator\" satisfies the request",
            "are outside >=2.0.0",
        ],
    );
    insta::assert_snapshot!("range_matches_nothing", stderr);
}

#[test]
fn bundle_without_all_namespaces() {
    let dir = example();
    // Rewrite the example catalog: the cert operator's CSV metadata drops AllNamespaces.
    let cat = dir.path().join("catalog/acme-cert-operator/catalog.json");
    let text = std::fs::read_to_string(&cat).unwrap();
    let patched = text.replace(
        "\"type\": \"olm.gvk\"",
        "\"type\": \"olm.csv.metadata\", \"value\": {\"installModes\": [{\"type\": \"OwnNamespace\", \"supported\": true}]}}, {\"type\": \"olm.gvk\"",
    );
    assert_ne!(text, patched);
    std::fs::write(&cat, patched).unwrap();
    let out = create(dir.path()).code(1);
    let stderr = normalize(&out.get_output().stderr, dir.path());
    assert!(
        stderr.contains(
            "does not support the AllNamespaces install mode (it supports: OwnNamespace)"
        ),
        "{stderr}"
    );
    assert!(!dir.path().join("manifests").exists());
}

#[test]
fn cluster_version_4_16() {
    let stderr = refused(
        |t| t.replace("clusterVersion: \"4.14.8\"", "clusterVersion: \"4.16.3\""),
        &[
            "written as OLM v0 Subscriptions",
            "the PlatformOperator API ends with 4.15",
            "is a range, and OLM v0 has none",
        ],
    );
    insta::assert_snapshot!("cluster_version_4_16", stderr);
}

#[test]
fn malformed_config() {
    refused(
        |t| t.replace("    channel: stable", "    channel: [stable"),
        &["platform-operators.yaml:10:14: expected text (one value, not a list or mapping)"],
    );
}

#[test]
fn unknown_key_names_line_and_column() {
    refused(
        |t| t.replace("    channel: stable", "    chanel: stable"),
        &["unknown field `chanel`", "platform-operators.yaml:10:5"],
    );
}

#[test]
fn max_openshift_version_below_the_target_moves_to_an_older_bundle_or_fails() {
    // 1.0.0 is capped at 4.13: asking for exactly 1.0.0 on 4.14 is refused with the reason.
    refused(
        |t| t.replace(">=1.0.0 <2.0.0", "=1.0.0"),
        &["limited to OpenShift 4.13 (olm.maxOpenShiftVersion), below the target 4.14.8"],
    );
}

#[test]
fn without_tech_preview_4_14_writes_subscriptions() {
    let dir = example();
    let ic = dir.path().join("install-config.yaml");
    std::fs::write(
        &ic,
        std::fs::read_to_string(&ic)
            .unwrap()
            .replace("featureSet: TechPreviewNoUpgrade\n", ""),
    )
    .unwrap();
    let out = create(dir.path()).code(1);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        stderr.contains("PlatformOperator API only with featureSet TechPreviewNoUpgrade")
            && stderr.contains("is a range, and OLM v0 has none"),
        "{stderr}"
    );
}

#[test]
fn digest_pin_mismatch_writes_nothing() {
    let stderr = refused(
        |t| {
            t.replace(
                "    source: catalog\n",
                &format!("    source: catalog\n    sha256: \"{}\"\n", "0".repeat(64)),
            )
        },
        &["but the configuration pins sha256:0000"],
    );
    assert!(stderr.contains("redhat-operators"), "{stderr}");
}

/// A `sha256:` pin names the whole catalog; the lock of the same run still records the digest
/// of the files of the packages read (computed from the hashes the pin check made), the one
/// `catalog digest --package` prints.
#[test]
fn a_pinned_catalog_is_locked_by_the_files_of_the_packages_read() {
    let dir = crate::common::example_without_subscriptions();
    let catalog = dir.path().join("catalog");
    let whole = po_manifests::catalog::content_digest(&catalog).unwrap();
    let config = dir.path().join("platform-operators.yaml");
    let text = std::fs::read_to_string(&config).unwrap().replace(
        "    source: catalog\n",
        &format!(
            "    source: catalog\n    sha256: \"{}\"\n",
            whole.trim_start_matches("sha256:")
        ),
    );
    std::fs::write(&config, text).unwrap();
    create(dir.path()).success();
    let lock = std::fs::read_to_string(dir.path().join("platform-operators.lock.yaml")).unwrap();
    let out = cmd()
        .args(["catalog", "digest"])
        .arg(&catalog)
        .args([
            "--package",
            "acme-cert-operator",
            "--package",
            "acme-cloud-controller",
        ])
        .assert()
        .success();
    let read = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert_ne!(read.trim(), whole);
    assert!(
        lock.contains(&format!(
            "  digest: {read}  packages:\n  - acme-cert-operator\n  - acme-cloud-controller\n"
        )),
        "{read} in {lock}"
    );
}

#[test]
fn missing_catalog_is_an_error_naming_it() {
    let dir = example();
    std::fs::remove_dir_all(dir.path().join("catalog")).unwrap();
    let out = create(dir.path()).failure();
    let stderr = normalize(&out.get_output().stderr, dir.path());
    assert!(
        stderr.contains("redhat-operators") && stderr.contains("[DIR]/catalog"),
        "{stderr}"
    );
}

#[test]
fn a_file_in_the_way_is_not_overwritten() {
    let dir = example();
    std::fs::create_dir_all(dir.path().join("manifests")).unwrap();
    let theirs = dir
        .path()
        .join("manifests/99_po_cert-operator_00_platformoperator_cert-operator.yaml");
    std::fs::write(&theirs, "hand-written\n").unwrap();
    create(dir.path()).failure();
    assert_eq!(std::fs::read_to_string(&theirs).unwrap(), "hand-written\n");
}

#[test]
fn no_dir_is_a_usage_error() {
    cmd().arg("create").assert().code(2);
}

#[test]
fn operators_sharing_an_install_namespace_get_one_namespace_object() {
    let dir = example();
    crate::common::without_external_ccm(dir.path());
    let config = dir.path().join("platform-operators.yaml");
    let text = std::fs::read_to_string(&config)
        .unwrap()
        .replace("\"4.14.8\"", "\"4.18.3\"")
        .replace(
            "    source: catalog\n",
            "    source: catalog\n    image: registry.example.com/acme/index@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n",
        );
    // Both operators in one namespace; the cloud controller (capped at 4.16) goes.
    let text = text[..text.find("  - name: cloud-controller").unwrap()].to_string();
    // A second package (OLM v1 lets one ClusterExtension own a package), from a catalog file
    // of our own whose bundle content comes from `--bundles`.
    let text = format!(
        "{text}    namespace: shared\n  - name: widget-operator\n    package: acme-widget-operator\n    namespace: shared\n"
    );
    std::fs::write(&config, text).unwrap();
    let pkg = dir.path().join("catalog/acme-widget-operator");
    std::fs::create_dir_all(&pkg).unwrap();
    std::fs::write(
        pkg.join("catalog.yaml"),
        "schema: olm.package\nname: acme-widget-operator\ndefaultChannel: stable\n---\nschema: olm.channel\nname: stable\npackage: acme-widget-operator\nentries:\n- name: acme-widget-operator.v1.0.0\n---\nschema: olm.bundle\nname: acme-widget-operator.v1.0.0\npackage: acme-widget-operator\nimage: registry.example.com/acme/widget-bundle@sha256:2222222222222222222222222222222222222222222222222222222222222222\nproperties:\n- type: olm.package\n  value: {packageName: acme-widget-operator, version: 1.0.0}\n",
    )
    .unwrap();
    let bundle = dir.path().join("bundles/widget");
    std::fs::create_dir_all(bundle.join("manifests")).unwrap();
    std::fs::create_dir_all(bundle.join("metadata")).unwrap();
    std::fs::write(
        bundle.join("metadata/annotations.yaml"),
        "annotations:\n  operators.operatorframework.io.bundle.package.v1: acme-widget-operator\n",
    )
    .unwrap();
    std::fs::write(
        bundle.join("manifests/csv.yaml"),
        "apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata:\n  name: acme-widget-operator.v1.0.0\nspec:\n  version: 1.0.0\n  installModes:\n  - {type: AllNamespaces, supported: true}\n  install:\n    strategy: deployment\n    spec:\n      deployments:\n      - name: widget\n        spec:\n          selector: {matchLabels: {app: widget}}\n          template:\n            metadata: {labels: {app: widget}}\n            spec:\n              containers:\n              - {name: widget, image: 'registry.example.com/acme/widget@sha256:3333333333333333333333333333333333333333333333333333333333333333'}\n",
    )
    .unwrap();
    cmd()
        .arg("create")
        .arg("--dir")
        .arg(dir.path())
        .arg("--bundles")
        .arg(dir.path().join("bundles"))
        .assert()
        .success();
    let namespaces: Vec<String> = tree(&dir.path().join("manifests"))
        .into_iter()
        .map(|(n, _)| n)
        .filter(|n| n.contains("_namespace_"))
        .collect();
    assert_eq!(namespaces, ["99_po_cert-operator_00_namespace_shared.yaml"]);
}

#[test]
fn cluster_version_flag_overrides_the_configuration() {
    let dir = example();
    let out = cmd()
        .args(["create", "--cluster-version", "4.16.1", "--dir"])
        .arg(dir.path())
        .assert()
        .code(1);
    assert!(
        String::from_utf8_lossy(&out.get_output().stderr)
            .contains("on OpenShift 4.16.1, the PlatformOperator API ends with 4.15")
    );
    cmd()
        .args(["create", "--cluster-version", "nope", "--dir"])
        .arg(dir.path())
        .assert()
        .code(2);
}

#[test]
fn template_overrides_are_used() {
    let dir = example();
    let templates = dir.path().join("templates");
    std::fs::create_dir(&templates).unwrap();
    std::fs::write(
        templates.join("platformoperator.yaml.j2"),
        "apiVersion: platform.openshift.io/v1alpha1\nkind: PlatformOperator\nmetadata:\n  name: {{ operator.name | tojson }}\n  labels:\n    team: platform\nspec:\n  package:\n    name: {{ operator.package | tojson }}\n",
    )
    .unwrap();
    cmd()
        .args(["create", "--templates"])
        .arg(&templates)
        .arg("--dir")
        .arg(dir.path())
        .assert()
        .success();
    let po = std::fs::read_to_string(
        dir.path()
            .join("manifests/99_po_cert-operator_00_platformoperator_cert-operator.yaml"),
    )
    .unwrap();
    assert!(po.contains("team: platform"), "{po}");
    // A template that renders something other than one object fails and writes nothing new.
    std::fs::write(templates.join("platformoperator.yaml.j2"), "kind: [\n").unwrap();
    let before = tree(dir.path());
    cmd()
        .args(["create", "--templates"])
        .arg(&templates)
        .arg("--dir")
        .arg(dir.path())
        .assert()
        .code(1);
    assert_eq!(before, tree(dir.path()));
}
