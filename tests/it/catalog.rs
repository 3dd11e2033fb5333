//! `po-manifests catalog validate|list|digest`, on our fixtures and on the real catalogs in place.

use crate::common::{cmd, realdata, root};

/// `catalog digest --package` and `catalog list --package` refuse a package the catalog does
/// not have (a digest of nothing would pin nothing), naming the close ones, and print nothing.
#[test]
fn a_package_the_catalog_lacks_is_refused_with_the_close_names() {
    for (args, packages) in [
        (
            &["catalog", "digest"][..],
            &[
                "--package",
                "acme-cloud-controller",
                "--package",
                "acme-cert-operatr",
            ][..],
        ),
        (
            &["catalog", "list", "bundles"][..],
            &["--package", "acme-cert-operatr"][..],
        ),
    ] {
        let out = cmd()
            .args(args)
            .arg(root().join("testdata/example/catalog"))
            .args(packages)
            .assert()
            .code(2);
        let output = out.get_output();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains("package \"acme-cert-operatr\" is not in")
                && stderr.contains("did you mean \"acme-cert-operator\""),
            "{args:?}: {stderr}"
        );
        assert!(output.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn example_catalog_is_valid() {
    let out = cmd()
        .args(["catalog", "validate"])
        .arg(root().join("testdata/example/catalog"))
        .assert()
        .success();
    assert!(String::from_utf8_lossy(&out.get_output().stderr).contains("valid"));
}

#[test]
fn json_report_lists_problems_and_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("catalog.yaml"),
        "schema: olm.package\nname: a\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: a\nname: stable\nentries:\n- name: a.v1.0.0\n- name: a.v1.1.0\n---\nschema: olm.bundle\npackage: a\nname: a.v1.0.0\nimage: quay.io/a/a:v1.0.0\nproperties:\n- type: olm.package\n  value: {packageName: a, version: 1.0.0}\n---\nschema: olm.bundle\npackage: a\nname: a.v1.1.0\nimage: quay.io/a/a:v1.1.0\nproperties:\n- type: olm.package\n  value: {packageName: a, version: 1.1.0}\n",
    )
    .unwrap();
    let out = cmd()
        .args(["catalog", "validate", "-o", "json"])
        .arg(dir.path())
        .assert()
        .code(1);
    let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let text = v.to_string();
    assert!(text.contains("multiple channel heads"), "{text}");
    // OLM v1 mode only warns.
    cmd()
        .args(["catalog", "validate", "--allow-multiple-heads"])
        .arg(dir.path())
        .assert()
        .success();
}

#[test]
fn list_channels_and_bundles() {
    let cat = root().join("testdata/example/catalog");
    let out = cmd()
        .args(["catalog", "list", "channels"])
        .arg(&cat)
        .assert()
        .success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(
        text.contains("acme-cert-operator") && text.contains("acme-cert-operator.v1.2.0"),
        "{text}"
    );
    let out = cmd()
        .args([
            "catalog",
            "list",
            "bundles",
            "--package",
            "acme-cert-operator",
            "-o",
            "json",
        ])
        .arg(&cat)
        .assert()
        .success();
    let rows: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert!(rows.as_array().unwrap().len() >= 4);
    cmd()
        .args(["catalog", "list", "bundles", "--package", "nope"])
        .arg(&cat)
        .assert()
        .code(2);
}

#[test]
fn opm_verdicts_on_the_real_catalogs() {
    let Some(rd) = realdata("opm_verdicts_on_the_real_catalogs") else {
        return;
    };
    // (catalog, valid under opm validate)
    let cases = [
        (
            "olmv1-e2e-test-catalog/catalogs/test-catalog/v1/configs",
            false,
        ),
        (
            "olmv1-e2e-test-catalog/catalogs/test-catalog/v2/configs",
            true,
        ),
        ("redhat-catalog-excerpts/jaeger-product", true),
        (
            "redhat-catalog-excerpts/cluster-kube-descheduler-operator-v4.16",
            true,
        ),
        (
            "redhat-catalog-excerpts/cluster-kube-descheduler-operator-v4.20",
            true,
        ),
        ("opm-diff-oracle/index-declcfgs/latest", true),
        ("community-fbc-small/v4.16", true),
    ];
    for (path, valid) in cases {
        let out = cmd()
            .args(["catalog", "validate"])
            .arg(rd.join(path))
            .assert();
        let code = out.get_output().status.code();
        assert_eq!(
            code,
            Some(if valid { 0 } else { 1 }),
            "{path}: {}",
            String::from_utf8_lossy(&out.get_output().stderr)
        );
    }
}

/// The benchmark generator (benches/perf) writes catalogs that load and validate, in each
/// layout, and the same seed gives the same bytes.
#[test]
fn generated_catalogs_are_valid_in_every_layout() {
    use crate::generate::{Layout, Spec, generate};
    let dir = tempfile::tempdir().unwrap();
    for layout in [
        Layout::Dir,
        Layout::File,
        Layout::Lines,
        Layout::Yaml,
        Layout::YamlObjects,
    ] {
        let spec = Spec {
            size: 400_000,
            seed: 7,
            layout,
        };
        let out = dir.path().join(layout.name());
        let g = generate(&spec, &out).unwrap();
        assert!(g.bytes >= 400_000 && !g.packages.is_empty(), "{g:?}");
        cmd()
            .args(["catalog", "validate"])
            .arg(&g.catalog)
            .assert()
            .success();
        let again = generate(&spec, &dir.path().join("again")).unwrap();
        let bytes = |p: &std::path::Path| {
            crate::common::tree(p)
                .into_iter()
                .map(|(_, t)| t)
                .collect::<String>()
        };
        let read = |p: &std::path::Path| {
            if p.is_dir() {
                bytes(p)
            } else {
                std::fs::read_to_string(p).unwrap()
            }
        };
        assert_eq!(read(&g.catalog), read(&again.catalog), "{}", layout.name());
        std::fs::remove_dir_all(dir.path().join("again")).unwrap();
    }
    // The shapes (issue 26 item 9) count channels or bundles, not bytes.
    for (layout, channels, bundles) in [(Layout::Channels, 2_500, 10), (Layout::Bundles, 1, 2_500)]
    {
        let spec = Spec {
            size: 2_500,
            seed: 7,
            layout,
        };
        let g = generate(&spec, &dir.path().join(layout.name())).unwrap();
        assert_eq!(g.bundles, bundles, "{}", layout.name());
        let out = cmd()
            .args(["catalog", "list", "channels", "-o", "json"])
            .arg(&g.catalog)
            .assert()
            .success();
        let listed: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
        let listed = listed.as_array().map_or(0, Vec::len);
        assert_eq!(listed, channels * g.packages.len(), "{}", layout.name());
        cmd()
            .args(["catalog", "validate"])
            .arg(&g.catalog)
            .assert()
            .success();
    }
}
