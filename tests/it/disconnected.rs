//! Disconnected installs: `images` and `create` check every image against the install-config
//! mirror rules; `mirror-config` writes the oc-mirror v2 ImageSetConfiguration; the
//! PlatformOperator profile writes the offline marketplace objects. Real catalog excerpts are
//! read in place from `../shared/realdata`.

use std::path::Path;

use serde_json::Value;

use crate::common::{cmd, realdata, root, tree};

/// stderr without whitespace or miette's frame characters, so wrapped lines compare whole.
fn compact(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes)
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '│')
        .collect()
}

fn write_dir(dir: &Path, install: &str, config: &str) {
    std::fs::write(
        dir.join("install-config.yaml"),
        format!("apiVersion: v1\nfeatureSet: TechPreviewNoUpgrade\n{install}"),
    )
    .unwrap();
    std::fs::write(dir.join("platform-operators.yaml"), config).unwrap();
}

const JAEGER_RULES_COVERED: &str = "imageDigestSources:
- source: registry.redhat.io/rhosdt
  mirrors:
  - mirror.example.com:8443/rhosdt
- source: registry.redhat.io/openshift4
  mirrors:
  - mirror.example.com:8443/openshift4
- source: registry.redhat.io/redhat
  mirrors:
  - mirror.example.com:8443/redhat
";

/// Only ose-kube-rbac-proxy of openshift4 is mirrored: ose-oauth-proxy is not.
const JAEGER_RULES_ONE_MISSING: &str = "imageDigestSources:
- source: registry.redhat.io/rhosdt
  mirrors:
  - mirror.example.com:8443/rhosdt
- source: registry.redhat.io/openshift4/ose-kube-rbac-proxy
  mirrors:
  - mirror.example.com:8443/openshift4/ose-kube-rbac-proxy
imageContentSources:
- source: registry.redhat.io/redhat
  mirrors:
  - mirror.example.com:8443/redhat
";

fn jaeger_config(catalog: &Path, version: Option<&str>) -> String {
    format!(
        "platformOperators:
  clusterVersion: \"4.14.8\"
  catalogs:
  - name: redhat-operators
    source: {}
    image: mirror.example.com:8443/redhat/redhat-operator-index:v4.14
  operators:
  - name: jaeger
    package: jaeger-product
    channel: stable
{}",
        catalog.display(),
        version
            .map(|v| format!("    version: \"{v}\"\n"))
            .unwrap_or_default()
    )
}

#[test]
fn jaeger_images_covered_by_the_mirror_rules_pass() {
    let Some(rd) = realdata("jaeger_images_covered_by_the_mirror_rules_pass") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let catalog = rd.join("redhat-catalog-excerpts/jaeger-product");
    write_dir(
        dir.path(),
        JAEGER_RULES_COVERED,
        &jaeger_config(&catalog, None),
    );
    let o = cmd()
        .args(["images", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    let stdout = String::from_utf8_lossy(&o.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    // 1.51.0-1: the bundle image and 10 distinct related images, sorted.
    assert_eq!(lines.len(), 11, "{stdout}");
    assert!(lines.windows(2).all(|w| w[0] < w[1]));
    assert!(lines.contains(
        &"registry.redhat.io/rhosdt/jaeger-operator-bundle@sha256:cea64466e14175545417779cfc72e2a7394f911d26b3abc223d8930cb37c8642"
    ));
    // JSON names who needs each image.
    let o = cmd()
        .args(["images", "-o", "json", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(doc["images"].as_array().unwrap().len(), 11);
    assert_eq!(doc["findings"], serde_json::json!([]));
    let bundle = doc["images"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| {
            i["image"]
                .as_str()
                .unwrap()
                .contains("jaeger-operator-bundle")
        })
        .unwrap();
    assert_eq!(bundle["uses"][0]["operator"], "jaeger");
    assert_eq!(bundle["uses"][0]["role"]["kind"], "bundle");
}

#[test]
fn jaeger_unmirrored_image_is_named_and_nothing_is_written() {
    let Some(rd) = realdata("jaeger_unmirrored_image_is_named_and_nothing_is_written") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let catalog = rd.join("redhat-catalog-excerpts/jaeger-product");
    write_dir(
        dir.path(),
        JAEGER_RULES_ONE_MISSING,
        &jaeger_config(&catalog, None),
    );
    let o = cmd()
        .args(["images", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    let stderr = compact(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("1imagecannotbepulled"), "{stderr}");
    assert!(
        stderr.contains("registry.redhat.io/openshift4/ose-oauth-proxy@sha256:219bf2d14157acd90298df58bfe77c2e3ed51ce0c743c2e51b3ed54b73dafc14(relatedimage\"openshift_oauth_proxy\"ofoperator\"jaeger\")isnotcoveredbyanymirrorrule"),
        "{stderr}"
    );
    // The rule that would cover it, following the existing rules' mirror layout.
    assert!(
        stderr.contains("-source:registry.redhat.io/openshift4/ose-oauth-proxymirrors:-mirror.example.com:8443/openshift4/ose-oauth-proxy"),
        "{stderr}"
    );
    // Covered images (the rbac proxy by its own rule) are not reported.
    assert!(!stderr.contains("ose-kube-rbac-proxy@sha256"), "{stderr}");
    // `create` writes nothing either.
    let o = cmd()
        .args(["create", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(!dir.path().join("manifests").exists());
    assert!(!dir.path().join("platform-operators.lock.yaml").exists());
}

/// Every key oc-mirror's v2alpha1 types (`type_config.go`, `type_config_include.go`) accept in
/// the parts we write; a stray key would be refused by oc-mirror's strict decoding.
fn check_v2alpha1_shape(v: &Value) {
    let keys = |o: &Value, allowed: &[&str]| {
        for k in o.as_object().expect("a mapping").keys() {
            assert!(allowed.contains(&k.as_str()), "unexpected key {k:?} in {o}");
        }
    };
    keys(
        v,
        &["kind", "apiVersion", "mirror", "archiveSize", "delete"],
    );
    assert_eq!(v["kind"], "ImageSetConfiguration");
    assert_eq!(v["apiVersion"], "mirror.openshift.io/v2alpha1");
    keys(
        &v["mirror"],
        &[
            "platform",
            "operators",
            "additionalImages",
            "helm",
            "blockedImages",
        ],
    );
    for op in v["mirror"]["operators"].as_array().expect("operators list") {
        keys(
            op,
            &[
                "catalog",
                "targetCatalog",
                "targetTag",
                "full",
                "skipDependencies",
                "packages",
                "targetCatalogSourceTemplate",
            ],
        );
        assert!(op["catalog"].is_string());
        for p in op["packages"].as_array().expect("packages list") {
            keys(
                p,
                &[
                    "name",
                    "defaultChannel",
                    "minVersion",
                    "maxVersion",
                    "channels",
                ],
            );
            assert!(p["name"].is_string());
            let package_range = p.get("minVersion").is_some() || p.get("maxVersion").is_some();
            for c in p["channels"].as_array().expect("channels list") {
                keys(c, &["name", "minVersion", "maxVersion"]);
                assert!(c["name"].is_string());
                // v2: ranges on both the package and a channel are an error.
                assert!(!(package_range && c.get("minVersion").is_some()));
            }
        }
    }
}

#[test]
fn jaeger_mirror_config_is_an_image_set_configuration_v2alpha1() {
    let Some(rd) = realdata("jaeger_mirror_config_is_an_image_set_configuration_v2alpha1") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let catalog = rd.join("redhat-catalog-excerpts/jaeger-product");
    write_dir(
        dir.path(),
        JAEGER_RULES_COVERED,
        &jaeger_config(&catalog, Some("1.47.1-5")),
    );
    let out = dir.path().join("imageset-config.yaml");
    let o = cmd()
        .args(["mirror-config", "--dir"])
        .arg(dir.path())
        .arg("--output-file")
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let text = std::fs::read_to_string(&out).unwrap();
    let v: Value = serde_saphyr::from_str(&text).unwrap();
    check_v2alpha1_shape(&v);
    // The mirrored index maps back to its source through the imageDigestSources rule, and the
    // pre-release version bounds carry the pre-release, so oc-mirror's range matches it.
    assert_eq!(
        v["mirror"]["operators"],
        serde_json::json!([{
            "catalog": "registry.redhat.io/redhat/redhat-operator-index:v4.14",
            "packages": [{
                "name": "jaeger-product",
                "channels": [{"name": "stable", "minVersion": "1.47.1-5", "maxVersion": "1.47.1-5"}]
            }]
        }])
    );
    // Deterministic: a second run gives the same bytes (to stdout this time).
    let o = cmd()
        .args(["mirror-config", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&o.stdout), text);
}

#[test]
fn mirror_config_without_a_catalog_image_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    // Not named after a catalog OpenShift serves, so there is no index image to mirror.
    let config = example_config(None).replace("name: redhat-operators", "name: acme-operators");
    write_dir(dir.path(), "", &config);
    let out = dir.path().join("isc.yaml");
    let o = cmd()
        .args(["mirror-config", "--dir"])
        .arg(dir.path())
        .arg("--output-file")
        .arg(&out)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("no `image:`"), "{stderr}");
    assert!(!out.exists());
}

/// The example catalog, with only the (PlatformOperator-profile) cert operator.
fn example_config(image: Option<&str>) -> String {
    format!(
        "platformOperators:
  clusterVersion: \"4.14.8\"
  catalogs:
  - name: redhat-operators
    source: {}
{}  operators:
  - name: cert-operator
    package: acme-cert-operator
    channel: stable
",
        root().join("testdata/example/catalog").display(),
        image
            .map(|i| format!("    image: {i}\n"))
            .unwrap_or_default()
    )
}

#[test]
fn create_refuses_an_unmirrored_related_image_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    write_dir(
        dir.path(),
        "imageDigestSources:\n- source: quay.io/acme-example/cert-operator-bundle\n  mirrors:\n  - mirror.local:5000/acme-example/cert-operator-bundle\n",
        &example_config(None),
    );
    let o = cmd()
        .args(["create", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    let stderr = compact(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("quay.io/acme-example/cert-operator@sha256:d5c25d60f8c1a3c8b4556caefb6fb83b154bc5a2fd332feaa819939af765848f"),
        "{stderr}"
    );
    assert!(
        stderr.contains("-source:quay.io/acme-example/cert-operatormirrors:-mirror.local:5000/acme-example/cert-operator"),
        "{stderr}"
    );
    assert!(!dir.path().join("manifests").exists());
    assert!(!dir.path().join("platform-operators.lock.yaml").exists());
    // --no-mirror-check lets it through.
    let o = cmd()
        .args(["create", "--no-mirror-check", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn create_with_a_mirrored_catalog_writes_the_offline_marketplace_objects() {
    let dir = tempfile::tempdir().unwrap();
    let index = "mirror.local:5000/redhat/redhat-operator-index@sha256:1111111111111111111111111111111111111111111111111111111111111111";
    write_dir(
        dir.path(),
        "imageDigestSources:\n- source: quay.io/acme-example\n  mirrors:\n  - mirror.local:5000/acme-example\n",
        &example_config(Some(index)),
    );
    let o = cmd()
        .args(["create", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let files = tree(&dir.path().join("manifests"));
    let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "99_po_cert-operator_00_platformoperator_cert-operator.yaml",
            "99_po_cert-operator_01_bundledeployment_cert-operator.yaml",
            "99_po_openshift-marketplace_00_operatorhub_cluster.yaml",
            "99_po_openshift-marketplace_01_catalogsource_redhat-operators.yaml",
        ]
    );
    let hub: Value = serde_saphyr::from_str(&files[2].1).unwrap();
    assert_eq!(
        hub["spec"]["sources"],
        serde_json::json!([{"name": "redhat-operators", "disabled": true}])
    );
    let cs: Value = serde_saphyr::from_str(&files[3].1).unwrap();
    assert_eq!(cs["metadata"]["namespace"], "openshift-marketplace");
    assert_eq!(cs["spec"]["image"], index);
    assert_eq!(cs["spec"]["sourceType"], "grpc");
}

#[test]
fn images_of_a_bootstrap_operator_include_its_deployment_containers() {
    let dir = crate::common::example();
    let o = cmd()
        .args(["images", "-o", "json", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    let containers: Vec<&Value> = doc["images"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|i| i["uses"].as_array().unwrap())
        .filter(|u| u["role"]["kind"] == "container" && u["operator"] == "cloud-controller")
        .collect();
    assert!(!containers.is_empty(), "{doc:#}");
    assert!(
        containers
            .iter()
            .all(|u| u["role"]["objectKind"] == "Deployment"),
        "{doc:#}"
    );
}

#[test]
fn catalog_index_outside_the_mirrors_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    write_dir(
        dir.path(),
        "imageDigestSources:\n- source: quay.io/acme-example\n  mirrors:\n  - mirror.local:5000/acme-example\n",
        &example_config(Some(
            "registry.redhat.io/redhat/redhat-operator-index:v4.14",
        )),
    );
    let o = cmd()
        .args(["create", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    let stderr = compact(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("registry.redhat.io/redhat/redhat-operator-index:v4.14(indeximageofcatalog\"redhat-operators\"ofoperator\"openshift-marketplace\")isnotpinnedbydigest"),
        "{stderr}"
    );
    assert!(!dir.path().join("manifests").exists());
}

/// A temporary copy of `testdata/example` and `testdata/example-disconnected` side by side (the
/// disconnected variant reads the example's catalog as `../example/catalog`); returns the
/// directory holding both.
fn disconnected_example() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for name in ["example", "example-disconnected"] {
        crate::common::copy_dir(&root().join("testdata").join(name), &dir.path().join(name));
        let _ = std::fs::remove_dir_all(dir.path().join(name).join("manifests"));
        let _ = std::fs::remove_file(dir.path().join(name).join("platform-operators.lock.yaml"));
    }
    dir
}

/// The shipped disconnected example end to end: `mirror-config` (YAML, JSON, into a file) maps
/// the mirrored index image back to its source and selects exactly the resolved bundles;
/// `images` and `create` pass the mirror check, `create` writes the offline marketplace
/// objects, and `check` finds nothing; without the mirror rule `create` refuses.
#[test]
fn the_shipped_disconnected_example_mirrors_and_installs() {
    let root_dir = disconnected_example();
    let dir = root_dir.path().join("example-disconnected");
    let source = "quay.io/acme-example/acme-operator-index@sha256:5e8b3c6f0a4d2e9b7c1a8f6d4e2b0c9a7f5e3d1b9c8a6f4e2d0b8c6a4f2e0d9c";

    let o = cmd()
        .args(["mirror-config", "--dir"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let yaml = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        yaml.starts_with("# Written by po-manifests mirror-config"),
        "{yaml}"
    );
    let from_yaml: Value = serde_saphyr::from_str(&yaml).unwrap();
    assert_eq!(from_yaml["kind"], "ImageSetConfiguration");
    let operators = &from_yaml["mirror"]["operators"];
    assert_eq!(operators.as_array().unwrap().len(), 1, "{yaml}");
    assert_eq!(operators[0]["catalog"], source);
    let packages: Vec<(&str, &str)> = operators[0]["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap(),
                p["channels"][0]["minVersion"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        packages,
        [
            ("acme-cert-operator", "1.2.0"),
            ("acme-cloud-controller", "0.4.0"),
            // The subscription profile's operator and the dependency OLM v0 pulls in.
            ("acme-dns-operator", "2.1.0"),
            ("acme-metrics-operator", "0.3.0")
        ]
    );

    // -o json: the same document; into a file with --output-file.
    let o = cmd()
        .args(["mirror-config", "-o", "json", "--dir"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let from_json: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(from_json, from_yaml);
    let file = root_dir.path().join("isc.yaml");
    let o = cmd()
        .args(["mirror-config", "--dir"])
        .arg(&dir)
        .arg("--output-file")
        .arg(&file)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(o.stdout.is_empty());
    assert_eq!(std::fs::read_to_string(&file).unwrap(), yaml);

    let o = cmd()
        .args(["images", "--mirror-check", "--dir"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // Bundle and manager images of the cert operator, the CCM, the DNS operator and the
    // metrics operator OLM v0 pulls in for it.
    assert_eq!(String::from_utf8_lossy(&o.stdout).lines().count(), 8);

    // Without the mirror rule, the same create is refused: the check runs.
    let install = dir.join("install-config.yaml");
    let text = std::fs::read_to_string(&install).unwrap();
    let (kept, _) = text.split_once("imageDigestSources:").unwrap();
    std::fs::write(
        &install,
        format!("{kept}imageDigestSources:\n- source: quay.io/acme-example/cert-operator-bundle\n  mirrors:\n  - mirror.local:5000/acme-example/cert-operator-bundle\n"),
    )
    .unwrap();
    let o = cmd().args(["create", "--dir"]).arg(&dir).output().unwrap();
    let stderr = compact(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("cannotbepulledinthisdisconnectedinstall"),
        "{stderr}"
    );
    assert!(!dir.join("manifests").exists());
    std::fs::write(&install, text).unwrap();

    let o = cmd().args(["create", "--dir"]).arg(&dir).output().unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    assert!(!stderr.contains("warning"), "{stderr}");
    let files = tree(&dir.join("manifests"));
    let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
    assert!(
        names.contains(&"99_po_openshift-marketplace_01_catalogsource_redhat-operators.yaml"),
        "{names:?}"
    );
    let (_, catalog_source) = files
        .iter()
        .find(|(n, _)| n.ends_with("_catalogsource_redhat-operators.yaml"))
        .unwrap();
    let cs: Value = serde_saphyr::from_str(catalog_source).unwrap();
    assert_eq!(
        cs["spec"]["image"],
        source.replace("quay.io/", "mirror.local:5000/")
    );
    let o = cmd()
        .args(["check", "-o", "json", "--dir"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let report: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(report, serde_json::json!({"problems": []}));
}

/// Issue 22 part 3: one rule for the PlatformOperator profile. The catalog named
/// `redhat-operators` is the snapshot of the CatalogSource the PlatformOperator manager reads:
/// `create` writes from it, and `mirror-config` mirrors that release's own index image for it
/// when it has no `image:`; a platform operator from any other catalog is refused, saying why.
#[test]
fn the_platform_operator_profile_resolves_from_redhat_operators_only() {
    // The same config gives manifests and an oc-mirror file.
    let dir = tempfile::tempdir().unwrap();
    write_dir(dir.path(), "", &example_config(None));
    cmd()
        .args(["create", "--dir"])
        .arg(dir.path())
        .assert()
        .success();
    let o = cmd()
        .args(["mirror-config", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        text.contains("catalog: registry.redhat.io/redhat/redhat-operator-index:v4.14"),
        "{text}"
    );

    // A second catalog that also has the package: the operator still resolves from
    // redhat-operators, even with a higher priority elsewhere.
    let two = example_config(None).replace(
        "  operators:",
        &format!(
            "  - name: partner-operators\n    source: {}\n    priority: 10\n  operators:",
            root().join("testdata/example/catalog").display()
        ),
    );
    let dir = tempfile::tempdir().unwrap();
    write_dir(dir.path(), "", &two);
    let out = cmd()
        .args(["resolve", "-o", "json", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["operators"][0]["catalog"], "redhat-operators", "{v}");

    // Asked for from the other catalog: refused with the reason, nothing written.
    let asked = two.replace(
        "    package: acme-cert-operator\n",
        "    package: acme-cert-operator\n    catalog: partner-operators\n",
    );
    std::fs::write(dir.path().join("platform-operators.yaml"), &asked).unwrap();
    let out = cmd()
        .args(["create", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("only from the CatalogSource openshift-marketplace/redhat-operators")
            && err.contains("from catalog \"partner-operators\""),
        "{err}"
    );
    assert!(!dir.path().join("manifests").exists());

    // No catalog is the snapshot of redhat-operators: refused, saying how to mark one.
    let none = example_config(None).replace("name: redhat-operators", "name: acme-operators");
    std::fs::write(dir.path().join("platform-operators.yaml"), &none).unwrap();
    let out = cmd()
        .args(["create", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("no catalog of that name is configured"),
        "{err}"
    );
}
