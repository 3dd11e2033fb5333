//! `po-manifests check --dir D` on installer directories of our own (`testdata/bootstrap/`), and
//! `create` for a cloud controller manager on `platform: external` followed by `check`.

use std::path::Path;

use crate::common::{cmd, copy_dir, normalize, root, tree};

fn fixture(name: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&root().join("testdata/bootstrap").join(name), dir.path());
    dir
}

fn check(dir: &Path, extra: &[&str]) -> std::process::Output {
    cmd()
        .arg("check")
        .arg("--dir")
        .arg(dir)
        .args(extra)
        .output()
        .unwrap()
}

fn rules(out: &std::process::Output) -> Vec<String> {
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    report["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["rule"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn an_installer_directory_with_one_of_each_mistake() {
    let dir = fixture("installer-dir");
    let out = check(dir.path(), &[]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        normalize(&out.stderr, dir.path())
    );
    insta::assert_snapshot!("check_installer_dir", normalize(&out.stdout, dir.path()));
    let out = check(dir.path(), &["-o", "json"]);
    assert_eq!(out.status.code(), Some(1));
    let mut found = rules(&out);
    found.sort();
    // Each mistake once: the multi-document file, the List, the README and the subdirectory
    // (both left out of the bootstrap), the
    // name clash, the duplicate Namespace, the CR without its CRD, the placeholder, the tag.
    assert_eq!(
        found,
        [
            "crd-missing",
            "duplicate-object",
            "file-ignored",
            "file-ignored",
            "image-tag",
            "list-kind",
            "name-clash",
            "one-object-per-file",
            "placeholder"
        ]
    );
}

#[test]
fn warnings_alone_exit_zero() {
    let dir = fixture("installer-dir");
    let keep = ["01-acme-namespace.yaml", "08-acme-agent.yaml"];
    for e in std::fs::read_dir(dir.path().join("manifests")).unwrap() {
        let e = e.unwrap();
        if !keep.contains(&e.file_name().to_str().unwrap()) {
            let _ = std::fs::remove_file(e.path());
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
    std::fs::remove_dir_all(dir.path().join("openshift")).unwrap();
    let out = check(dir.path(), &["-o", "json"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(rules(&out), ["image-tag"]);
}

#[test]
fn mirror_rules_make_a_tag_an_error() {
    let dir = fixture("installer-dir");
    std::fs::write(
        dir.path().join("install-config.yaml"),
        "apiVersion: v1\nplatform:\n  none: {}\nimageDigestSources:\n- source: ghcr.io/acme-example\n  mirrors: [mirror.local/acme]\n",
    )
    .unwrap();
    let found = rules(&check(dir.path(), &["-o", "json"]));
    assert!(
        found.contains(&"image-tag-disconnected".to_string()),
        "{found:?}"
    );
    assert!(!found.contains(&"image-tag".to_string()), "{found:?}");
}

#[test]
fn a_role_given_on_the_command_line_applies_the_ccm_rules() {
    let dir = fixture("installer-dir");
    let out = check(
        dir.path(),
        &[
            "-o",
            "json",
            "--role",
            "acme-system/acme-agent=cloud-controller-manager",
        ],
    );
    let found = rules(&out);
    for rule in [
        "ccm-host-network",
        "ccm-tolerate-uninitialized",
        "ccm-requires-external",
    ] {
        assert!(found.contains(&rule.to_string()), "{rule} in {found:?}");
    }
    let out = check(dir.path(), &["--role", "acme-agent=ccm"]);
    assert_eq!(out.status.code(), Some(2));
}

fn create(dir: &Path) -> std::process::Output {
    cmd()
        .args(["create", "--offline", "--dir"])
        .arg(dir)
        .arg("--bundles")
        .arg(root().join("testdata/bootstrap/ccm-bundle"))
        .arg("--cache-dir")
        .arg(dir.join(".cache"))
        .output()
        .unwrap()
}

#[test]
fn create_a_ccm_on_platform_external_then_check_is_clean() {
    let dir = fixture("external");
    let out = create(dir.path());
    assert!(
        out.status.success(),
        "{}",
        normalize(&out.stderr, dir.path())
    );
    let _ = std::fs::remove_dir_all(dir.path().join(".cache"));
    let files = tree(&dir.path().join("manifests"));
    let deployment = &files
        .iter()
        .find(|(n, _)| n.contains("deployment"))
        .unwrap()
        .1;
    assert!(
        deployment.contains("po-manifests.openshift.io/role: cloud-controller-manager"),
        "{deployment}"
    );
    let namespace = &files
        .iter()
        .find(|(n, _)| n.contains("namespace"))
        .unwrap()
        .1;
    assert!(
        namespace.contains("openshift.io/run-level: \"0\""),
        "{namespace}"
    );
    let out = check(dir.path(), &[]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        normalize(&out.stdout, dir.path())
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "");
    assert_eq!(
        rules(&check(dir.path(), &["-o", "json"])),
        Vec::<String>::new()
    );
}

/// The external fixture's catalog with two bundles of `acme-ccm` in channel `stable`: 1.0.0
/// (the fixture's bundle; `olm.csv.metadata` without webhooks) and 1.1.0 (with a validating
/// webhook; its metadata in the catalog when `facts`, else only in its content under
/// `bundles/`, as `--bundles` reads it).
fn two_ccm_bundles(dir: &Path, facts: bool) {
    let csv = |webhooks: bool| {
        let mut value =
            serde_json::json!({"installModes": [{"type": "AllNamespaces", "supported": true}]});
        if webhooks {
            value["webhookdefinitions"] = serde_json::json!([{"type": "ValidatingAdmissionWebhook", "generateName": "vccm.acme.example.com"}]);
        }
        serde_json::json!({"type": "olm.csv.metadata", "value": value})
    };
    let bundle = |version: &str, csv: Option<serde_json::Value>| {
        let mut properties = vec![
            serde_json::json!({"type": "olm.package", "value": {"packageName": "acme-ccm", "version": version}}),
        ];
        properties.extend(csv);
        serde_json::json!({
            "schema": "olm.bundle", "name": format!("acme-ccm.v{version}"), "package": "acme-ccm",
            "image": format!("quay.io/acme-example/acme-ccm-bundle:v{version}"), "properties": properties,
        })
    };
    let docs = [
        serde_json::json!({"schema": "olm.package", "name": "acme-ccm", "defaultChannel": "stable"}),
        serde_json::json!({"schema": "olm.channel", "name": "stable", "package": "acme-ccm", "entries": [
            {"name": "acme-ccm.v1.0.0"}, {"name": "acme-ccm.v1.1.0", "replaces": "acme-ccm.v1.0.0"}]}),
        bundle("1.0.0", Some(csv(false))),
        bundle("1.1.0", facts.then(|| csv(true))),
    ];
    let text: String = docs.iter().map(|d| format!("{d}\n")).collect();
    std::fs::write(dir.join("catalog/catalog.json"), text).unwrap();
    // 1.1.0's content: the fixture's bundle, renamed, with the webhook.
    let source = root().join("testdata/bootstrap/ccm-bundle");
    let to = dir.join("bundles/acme-ccm-1.1.0");
    copy_dir(&source, &to);
    let path = to.join("manifests/acme-ccm.clusterserviceversion.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    let text = text
        .replace("name: acme-ccm.v1.0.0", "name: acme-ccm.v1.1.0")
        .replace("  version: 1.0.0\n", "  version: 1.1.0\n  webhookdefinitions:\n  - type: ValidatingAdmissionWebhook\n    generateName: vccm.acme.example.com\n    deploymentName: acme-cloud-controller-manager\n    containerPort: 443\n    admissionReviewVersions: [v1]\n    sideEffects: None\n    rules:\n    - operations: [CREATE]\n      apiGroups: [\"\"]\n      apiVersions: [v1]\n      resources: [nodes]\n");
    assert!(
        text.contains("webhookdefinitions") && text.contains("acme-ccm.v1.1.0"),
        "{text}"
    );
    std::fs::write(&path, text).unwrap();
}

/// A bootstrap operator's bundle with webhooks is refused with the versions of its channel that
/// have none, whether the catalog says so (a problem, before any content is read) or only the
/// bundle's content does; OLM v1's and OLM v0's advice (releases with a certificate provider,
/// `profile: subscription`) does not apply to an operator OLM never manages. Pinned to the
/// version named, it installs.
#[test]
fn a_bootstrap_operator_with_webhooks_is_told_the_versions_without() {
    for facts in [true, false] {
        let dir = fixture("external");
        two_ccm_bundles(dir.path(), facts);
        let run = || {
            cmd()
                .args(["create", "--offline", "--dir"])
                .arg(dir.path())
                .arg("--bundles")
                .arg(root().join("testdata/bootstrap/ccm-bundle"))
                .arg("--bundles")
                .arg(dir.path().join("bundles"))
                .arg("--cache-dir")
                .arg(dir.path().join(".cache"))
                .output()
                .unwrap()
        };
        let out = run();
        assert_eq!(out.status.code(), Some(1), "facts {facts}");
        let stderr = normalize(&out.stderr, dir.path());
        let flat = stderr.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            flat.contains("vccm.acme.example.com") && flat.contains("a bootstrap operator's objects are applied as they are and OLM never manages it, so nothing gives its webhooks a certificate: pin `version:` to one of the versions in package acme-ccm without webhooks: 1.0.0"),
            "facts {facts}: {stderr}"
        );
        assert!(
            !flat.contains("OLM v1 installs")
                && !flat.contains("profile: subscription")
                && !flat.contains("choose a bundle version"),
            "facts {facts}: {stderr}"
        );
        assert!(!dir.path().join("manifests").exists());
        let config = dir.path().join("platform-operators.yaml");
        let text = std::fs::read_to_string(&config).unwrap();
        std::fs::write(
            &config,
            text.replace(
                "    bootstrap: true\n",
                "    bootstrap: true\n    version: \"1.0.0\"\n",
            ),
        )
        .unwrap();
        let out = run();
        assert!(
            out.status.success(),
            "facts {facts}: {}",
            normalize(&out.stderr, dir.path())
        );
    }
}

/// The README's bootstrap CCM (`testdata/example-ccm`) with its `role:` line replaced.
fn example_ccm_with_role(role: Option<&str>) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&root().join("testdata/example-ccm"), dir.path());
    let path = dir.path().join("platform-operators.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    let line = "    role: cloud-controller-manager\n";
    assert!(text.contains(line), "{text}");
    let catalog = root().join("testdata/example/catalog");
    let text = text
        .replace(
            line,
            &role.map(|r| format!("    role: {r}\n")).unwrap_or_default(),
        )
        .replace(
            "source: ../example/catalog",
            &format!("source: {}", catalog.display()),
        );
    std::fs::write(&path, text).unwrap();
    dir
}

/// `create` and a later `check` agree on a workload that looks like a cloud controller
/// manager: with `role: other` the operator says it is none, and both leave the CCM rules out
/// (the role is written on the workload, where `check` reads it); without `role:` both take it
/// for what it shows, a CCM, so `create` refuses what `check` would call fatal.
#[test]
fn create_and_check_agree_on_the_role_of_a_ccm_like_workload() {
    let create = |dir: &Path| {
        let out = cmd().args(["create", "--dir"]).arg(dir).output().unwrap();
        (out.status.code(), normalize(&out.stderr, dir))
    };
    let dir = example_ccm_with_role(Some("other"));
    let (code, stderr) = create(dir.path());
    assert_eq!(code, Some(0), "{stderr}");
    let out = check(dir.path(), &[]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        normalize(&out.stdout, dir.path()),
        normalize(&out.stderr, dir.path())
    );
    assert!(!String::from_utf8_lossy(&out.stdout).contains("ccm-"));

    let dir = example_ccm_with_role(None);
    let (code, stderr) = create(dir.path());
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("note[role-recognised]")
            && stderr.contains("error[ccm-namespace-admission]"),
        "{stderr}"
    );
    assert!(!dir.path().join("manifests").exists());
}

#[test]
fn create_refuses_a_ccm_without_platform_external_and_writes_nothing() {
    let dir = fixture("external");
    std::fs::write(
        dir.path().join("install-config.yaml"),
        "apiVersion: v1\nplatform:\n  none: {}\n",
    )
    .unwrap();
    let out = create(dir.path());
    assert_eq!(out.status.code(), Some(1));
    let stderr = normalize(&out.stderr, dir.path());
    assert!(stderr.contains("error[ccm-requires-external]"), "{stderr}");
    assert!(stderr.contains("(to be written)"), "{stderr}");
    assert!(!dir.path().join("manifests").exists());
    assert!(!dir.path().join("platform-operators.lock.yaml").exists());
}

#[test]
fn a_waiver_lets_create_through_and_is_recorded_in_the_lock() {
    let dir = fixture("external");
    std::fs::write(
        dir.path().join("install-config.yaml"),
        "apiVersion: v1\nplatform:\n  none: {}\n",
    )
    .unwrap();
    let config = dir.path().join("platform-operators.yaml");
    let text = std::fs::read_to_string(&config).unwrap()
        + "    waive:\n    - rule: ccm-requires-external\n      reason: the platform's CCM is replaced by this one in a lab\n";
    std::fs::write(&config, text).unwrap();
    let out = create(dir.path());
    assert!(
        out.status.success(),
        "{}",
        normalize(&out.stderr, dir.path())
    );
    let lock = std::fs::read_to_string(dir.path().join("platform-operators.lock.yaml")).unwrap();
    assert!(lock.contains("waivers:\n  - rule: ccm-requires-external\n    reason: the platform's CCM is replaced by this one in a lab"), "{lock}");
    // `check` applies the waivers the lock records.
    let out = check(dir.path(), &[]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("waived: "),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Written with `--installer agent`, the operator's files are in `openshift/`: `check` still
/// knows them as the operator's, so the lock's waivers apply to them.
#[test]
fn a_waiver_applies_to_files_written_into_openshift_for_the_agent_installer() {
    let dir = fixture("external");
    std::fs::write(
        dir.path().join("install-config.yaml"),
        "apiVersion: v1\nplatform:\n  none: {}\n",
    )
    .unwrap();
    let config = dir.path().join("platform-operators.yaml");
    let text = std::fs::read_to_string(&config).unwrap()
        + "    waive:\n    - rule: ccm-requires-external\n      reason: a lab\n";
    std::fs::write(&config, text).unwrap();
    let out = cmd()
        .args(["create", "--offline", "--installer", "agent", "--dir"])
        .arg(dir.path())
        .arg("--bundles")
        .arg(root().join("testdata/bootstrap/ccm-bundle"))
        .arg("--cache-dir")
        .arg(dir.path().join(".cache"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        normalize(&out.stderr, dir.path())
    );
    assert!(!dir.path().join("manifests").exists());
    let out = check(dir.path(), &["--installer", "agent"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("waived: "),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn role_and_waive_are_validated_in_the_configuration() {
    let dir = fixture("external");
    let config = dir.path().join("platform-operators.yaml");
    let text = std::fs::read_to_string(&config)
        .unwrap()
        .replace("role: cloud-controller-manager", "role: ccm")
        + "    waive:\n    - rule: ccm-host-networking\n      reason: \"\"\n";
    std::fs::write(&config, text).unwrap();
    let out = create(dir.path());
    assert_eq!(out.status.code(), Some(1));
    let stderr = normalize(&out.stderr, dir.path());
    assert!(stderr.contains("unknown role \"ccm\""), "{stderr}");
    assert!(
        stderr.contains("no check rule is named \"ccm-host-networking\""),
        "{stderr}"
    );
    assert!(
        stderr.contains("did you mean `ccm-host-network`?"),
        "{stderr}"
    );
    assert!(stderr.contains("a waiver needs a reason"), "{stderr}");
}

/// ecr-secret-operator's bundles ship a sample `Secret` custom resource without the
/// `spec.region` its own CRD requires: as a bootstrap operator it would block bootstrap for 60
/// minutes. `create` refuses it, naming the file and line it would write.
#[test]
fn realdata_a_sample_cr_that_fails_its_own_crd_refuses_create() {
    let Some(rd) =
        crate::common::realdata("realdata_a_sample_cr_that_fails_its_own_crd_refuses_create")
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("platform-operators.yaml"),
        format!(
            "platformOperators:\n  clusterVersion: \"4.16\"\n  catalogs:\n  - name: community\n    source: {}\n  operators:\n  - name: ecr-secret\n    package: ecr-secret-operator\n    bootstrap: true\n",
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
    assert_eq!(out.status.code(), Some(1));
    let stderr = normalize(&out.stderr, dir.path());
    assert!(
        // Line 7: the first line is po-manifests' mark (a bootstrap operator's file).
        stderr.contains("_secret_ecr-secret.yaml:7 (to be written): error[cr-schema] Secret ecr-secret-operator/ecr-secret: spec: \"region\" is a required property"),
        "{stderr}"
    );
    assert!(
        stderr.contains("help: if this is known to be safe, waive the rule for operator \"ecr-secret\" in its configuration: `waive: [{rule: cr-schema, reason: \"...\"}]`"),
        "{stderr}"
    );
    assert!(stderr.contains("warning[cr-pruned]"), "{stderr}");
    assert!(!dir.path().join("manifests").exists());
}

/// Files shaped like `openshift-install create manifests` output raise nothing: the installer's
/// own names, kinds and namespaces are what the release provides.
#[test]
fn the_installers_own_files_are_clean() {
    let dir = tempfile::tempdir().unwrap();
    let m = dir.path().join("manifests");
    let o = dir.path().join("openshift");
    std::fs::create_dir_all(&m).unwrap();
    std::fs::create_dir_all(&o).unwrap();
    let files: &[(&Path, &str, &str)] = &[
        (
            &m,
            "cluster-config.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cluster-config-v1\n  namespace: kube-system\ndata:\n  install-config: |\n    apiVersion: v1\n    baseDomain: example.com\n    platform:\n      external:\n        platformName: acme\n    pullSecret: \"\"\n",
        ),
        (
            &m,
            "cluster-infrastructure-02-config.yml",
            "apiVersion: config.openshift.io/v1\nkind: Infrastructure\nmetadata:\n  creationTimestamp: null\n  name: cluster\nspec:\n  platformSpec:\n    type: External\n    external:\n      platformName: acme\nstatus:\n  platform: External\n  platformStatus:\n    type: External\n    external:\n      cloudControllerManager: {}\n",
        ),
        (
            &m,
            "cvo-overrides.yaml",
            "apiVersion: config.openshift.io/v1\nkind: ClusterVersion\nmetadata:\n  name: version\n  namespace: openshift-cluster-version\nspec:\n  channel: stable-4.16\n  clusterID: 0b4c2d6e-9a0f-4c1e-8f1a-2b3c4d5e6f70\n",
        ),
        (
            &m,
            "04-openshift-machine-config-operator.yaml",
            "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: openshift-machine-config-operator\n  annotations:\n    openshift.io/node-selector: \"\"\n",
        ),
        (
            &m,
            "machine-config-server-tls-secret.yaml",
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: machine-config-server-tls\n  namespace: openshift-machine-config-operator\ntype: kubernetes.io/tls\ndata:\n  tls.crt: Zm9v\n  tls.key: YmFy\n",
        ),
        (
            &o,
            "99_kubeadmin-password-secret.yaml",
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: kubeadmin\n  namespace: kube-system\ntype: Opaque\ndata:\n  kubeadmin: JDJhJDEwJGFiYw==\n",
        ),
        (
            &o,
            "99_openshift-machineconfig_99-master-ssh.yaml",
            "apiVersion: machineconfiguration.openshift.io/v1\nkind: MachineConfig\nmetadata:\n  labels:\n    machineconfiguration.openshift.io/role: master\n  name: 99-master-ssh\nspec:\n  config:\n    ignition:\n      version: 3.2.0\n    passwd:\n      users:\n      - name: core\n        sshAuthorizedKeys:\n        - ssh-ed25519 AAAA\n",
        ),
        (
            &o,
            "openshift-install-manifests.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: openshift-install-manifests\n  namespace: openshift-config\ndata:\n  invoker: user\n  version: v4.16.0\n",
        ),
    ];
    for (d, name, text) in files {
        std::fs::write(d.join(name), text).unwrap();
    }
    let out = check(dir.path(), &["--cluster-version", "4.16"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "");
}

#[test]
fn create_explain_lists_the_check() {
    let dir = fixture("external");
    let out = cmd()
        .args(["create", "--offline", "--explain", "--dir"])
        .arg(dir.path())
        .arg("--bundles")
        .arg(root().join("testdata/bootstrap/ccm-bundle"))
        .arg("--cache-dir")
        .arg(dir.path().join(".cache"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        normalize(&out.stderr, dir.path())
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("# check: 0 problem(s), 0 waived"),
        "{stdout}"
    );
}

#[test]
fn an_empty_directory_says_there_is_nothing_to_check() {
    let dir = tempfile::tempdir().unwrap();
    let out = check(dir.path(), &[]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stderr).contains("nothing to check"));
}

/// OLM v1's own rendered output of two real bundles, read in place as an installer directory:
/// argocd-operator's objects raise only a tag warning; webhook-operator's fail-closed webhooks
/// (served by a bootstrap Service, with no CA when no certificate provider is configured) are
/// errors.
#[test]
fn realdata_olmv1_rendered_bundles() {
    let Some(rd) = crate::common::realdata("realdata_olmv1_rendered_bundles") else {
        return;
    };
    let expected = rd.join("olmv1-convert-regression/expected-manifests");
    let run = |case: &str, namespace: &str| {
        let dir = tempfile::tempdir().unwrap();
        copy_dir(&expected.join(case), &dir.path().join("manifests"));
        std::fs::write(
            dir.path().join("manifests/000_namespace.yaml"),
            format!("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {namespace}\n"),
        )
        .unwrap();
        check(dir.path(), &["-o", "json", "--cluster-version", "4.18"])
    };
    let out = run("argocd-operator.v0.6.0/all-namespaces", "argocd-system");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(rules(&out), ["image-tag"]);
    let out = run(
        "webhook-operator.v0.0.5/all-webhook-types",
        "webhook-system",
    );
    assert_eq!(out.status.code(), Some(1));
    let mut found = rules(&out);
    found.sort();
    assert_eq!(
        found,
        [
            "image-tag",
            "webhook-bootstrap-backend",
            "webhook-bootstrap-backend",
            "webhook-ca",
            "webhook-ca"
        ]
    );
}

/// The shipped example (`testdata/example`): its cloud controller manager has
/// `role: cloud-controller-manager`, so every `ccm-*` rule applies, and it passes them all:
/// `create` warns about nothing and `check` finds no problem.
#[test]
fn the_shipped_example_passes_every_rule() {
    let dir = crate::common::example();
    let out = cmd()
        .arg("create")
        .arg("--dir")
        .arg(dir.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(!stderr.contains("warning"), "{stderr}");
    let deployment =
        std::fs::read_to_string(dir.path().join(
            "manifests/99_po_cloud-controller_06_deployment_acme-cloud-controller-manager.yaml",
        ))
        .unwrap();
    assert!(
        deployment.contains("po-manifests.openshift.io/role: cloud-controller-manager"),
        "{deployment}"
    );
    let out = check(dir.path(), &["-o", "json"]);
    assert!(out.status.success());
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report, serde_json::json!({"problems": []}));
    // The same objects checked as a CCM by name, without the label's help, pass too.
    let out = check(
        dir.path(),
        &[
            "--role",
            "acme-cloud-controller-system/acme-cloud-controller-manager=cloud-controller-manager",
            "-o",
            "json",
        ],
    );
    assert!(out.status.success());
    assert!(rules(&out).is_empty(), "{:?}", rules(&out));
}

/// Issue 34 item 11: names the API server refuses are `name-invalid` errors, per kind: a
/// ConfigMap `UPPER_case` or of 300 characters, a Namespace `bad.ns`, a namespace that is not a
/// label; a subdomain ConfigMap and an RBAC `system:` name are fine.
#[test]
fn names_the_api_server_refuses_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let m = dir.path().join("manifests");
    std::fs::create_dir(&m).unwrap();
    let cm = |name: &str, ns: &str| {
        format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  namespace: {ns}\n")
    };
    let long = "a".repeat(300);
    let files = [
        ("01-upper.yaml", cm("UPPER_case", "default")),
        ("02-long.yaml", cm(&long, "default")),
        (
            "03-ns.yaml",
            "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: bad.ns\n".to_string(),
        ),
        ("04-badns.yaml", cm("fine", "Bad_NS")),
        ("05-ok.yaml", cm("a.b-c", "default")),
        (
            "06-rbac.yaml",
            "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: system:foo\nrules: []\n"
                .to_string(),
        ),
    ];
    for (name, text) in &files {
        std::fs::write(m.join(name), text).unwrap();
    }
    let out = check(dir.path(), &["-o", "json", "--cluster-version", "4.16.0"]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut invalid: Vec<&str> = report["problems"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["rule"] == "name-invalid")
        .map(|p| p["file"].as_str().unwrap())
        .collect();
    invalid.sort();
    assert_eq!(
        invalid,
        [
            "manifests/01-upper.yaml",
            "manifests/02-long.yaml",
            "manifests/03-ns.yaml",
            "manifests/04-badns.yaml"
        ],
        "{report:#}"
    );
    assert_eq!(out.status.code(), Some(1));
}
