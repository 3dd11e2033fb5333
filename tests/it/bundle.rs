//! `po-manifests bundle render`: the files it writes match OLM v1's own regression output.

use crate::common::{cmd, realdata, root};

/// Drop what Go's encoder adds and we do not: nulls, empty maps and lists, creationTimestamp,
/// status.
fn clean(v: &mut serde_json::Value) {
    use serde_json::Value;
    if let Value::Object(map) = v {
        map.remove("creationTimestamp");
        map.remove("status");
        for child in map.values_mut() {
            clean(child);
        }
        map.retain(|_, c| {
            !(c.is_null()
                || c.as_object().is_some_and(|o| o.is_empty())
                || c.as_array().is_some_and(|a| a.is_empty()))
        });
    } else if let Value::Array(items) = v {
        items.iter_mut().for_each(clean);
    }
}

fn read_objects(dir: &std::path::Path) -> Vec<(String, serde_json::Value)> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|n| {
            let mut v: serde_json::Value =
                serde_saphyr::from_str(&std::fs::read_to_string(dir.join(&n)).unwrap()).unwrap();
            clean(&mut v);
            (n, v)
        })
        .collect()
}

#[test]
fn argocd_matches_olm_v1_expected_manifests() {
    let Some(rd) = realdata("argocd_matches_olm_v1_expected_manifests") else {
        return;
    };
    let bundle = rd.join("olmv1-convert-regression/bundles/argocd-operator.v0.6.0");
    let expected_root =
        rd.join("olmv1-convert-regression/expected-manifests/argocd-operator.v0.6.0");
    for (case, watch) in [
        ("all-namespaces", None),
        ("single-namespace", Some("argocd-watch")),
        ("own-namespace", Some("argocd-system")),
    ] {
        let out = tempfile::tempdir().unwrap();
        let dir = out.path().join("rendered");
        let mut c = cmd();
        c.args(["bundle", "render"])
            .arg(&bundle)
            .args(["--namespace", "argocd-system", "--output-dir"])
            .arg(&dir);
        if let Some(w) = watch {
            c.args(["--watch-namespace", w]);
        }
        c.assert().success();
        let got = read_objects(&dir);
        let mut want = read_objects(&expected_root.join(case));
        if case != "all-namespaces" {
            // The realdata copy leaves the (identical) CRD files out of the other cases; take
            // them from all-namespaces, where their NN_ index differs, so compare them by
            // name without the index.
            let crds = read_objects(&expected_root.join("all-namespaces"))
                .into_iter()
                .filter(|(n, _)| n.contains("_customresourcedefinition_"));
            for (name, object) in crds {
                let suffix = name.split_once('_').unwrap().1.to_string();
                let ours = got
                    .iter()
                    .find(|(n, _)| n.ends_with(&suffix))
                    .unwrap_or_else(|| panic!("{case}: no {suffix}"));
                want.push((ours.0.clone(), object));
            }
            want.sort_by(|a, b| a.0.cmp(&b.0));
        }
        assert_eq!(
            got.iter().map(|(n, _)| n).collect::<Vec<_>>(),
            want.iter().map(|(n, _)| n).collect::<Vec<_>>(),
            "{case}"
        );
        for ((name, g), (_, w)) in got.iter().zip(&want) {
            // The fixtures are upstream main's, whose Deployments carry `olm.operatorNamespace`
            // (operator-framework/operator-controller#2803); no OpenShift release has it.
            let mut w = w.clone();
            if let Some(a) = w
                .pointer_mut("/spec/template/metadata/annotations")
                .and_then(serde_json::Value::as_object_mut)
            {
                a.shift_remove("olm.operatorNamespace");
            }
            assert_eq!(g, &w, "{case}/{name}");
        }
    }
}

#[test]
fn webhooks_are_refused_and_nothing_is_written() {
    let Some(rd) = realdata("webhooks_are_refused_and_nothing_is_written") else {
        return;
    };
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().join("rendered");
    let a = cmd()
        .args(["bundle", "render"])
        .arg(rd.join("olmv1-convert-regression/bundles/webhook-operator.v0.0.5"))
        .args([
            "--cluster-version",
            "4.20",
            "--namespace",
            "webhook-system",
            "--output-dir",
        ])
        .arg(&dir)
        .assert()
        .code(1);
    let stderr = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
    assert!(
        stderr.contains("webhookDefinitions are not supported"),
        "{stderr}"
    );
    assert!(
        stderr.contains("on 4.21 or later, or 4.20 with TechPreviewNoUpgrade"),
        "{stderr}"
    );
    assert!(!dir.exists());
}

/// The newest release (and 4.20 with TechPreviewNoUpgrade) render webhooks through
/// OpenShift's service-ca: a `<deployment>-service` Service with the serving-cert annotation.
#[test]
fn webhooks_render_through_service_ca() {
    let Some(rd) = realdata("webhooks_render_through_service_ca") else {
        return;
    };
    for extra in [
        &[][..],
        &[
            "--cluster-version",
            "4.20",
            "--feature-set",
            "TechPreviewNoUpgrade",
        ][..],
    ] {
        let out = tempfile::tempdir().unwrap();
        let dir = out.path().join("rendered");
        cmd()
            .args(["bundle", "render"])
            .arg(rd.join("olmv1-convert-regression/bundles/webhook-operator.v0.0.5"))
            .args(extra)
            .args(["--namespace", "webhook-system", "--output-dir"])
            .arg(&dir)
            .assert()
            .success();
        let svc = std::fs::read_to_string(
            dir.join("07_service_webhook-operator-controller-manager-service.yaml"),
        )
        .unwrap();
        assert!(
            svc.contains("service.beta.openshift.io/serving-cert-secret-name: webhook-operator-controller-manager-service-cert"),
            "{svc}"
        );
    }
}

/// Issue 24 part 2: 4.18 ignores a watch namespace. `bundle render` shows what that release's
/// OLM v1 does: a bundle that supports AllNamespaces is rendered for all namespaces, with a
/// warning that the watch namespace is ignored and where one is honoured.
#[test]
fn watch_namespace_on_4_18_is_ignored_and_all_namespaces_rendered() {
    let Some(rd) = realdata("watch_namespace_on_4_18_is_ignored_and_all_namespaces_rendered")
    else {
        return;
    };
    let out = tempfile::tempdir().unwrap();
    let render = |watch: Option<&str>, to: &str| {
        let mut c = cmd();
        c.args(["bundle", "render"])
            .arg(rd.join("olmv1-e2e-test-catalog/bundles/test-operator/v1.0.0"))
            .args([
                "--cluster-version",
                "4.18",
                "--namespace",
                "testop",
                "--output-dir",
            ])
            .arg(out.path().join(to));
        if let Some(w) = watch {
            c.args(["--watch-namespace", w]);
        }
        c.output().unwrap()
    };
    let ignored = render(Some("elsewhere"), "w");
    let stderr = String::from_utf8_lossy(&ignored.stderr);
    assert_eq!(ignored.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("OpenShift 4.18 with featureSet Default ignores a watch namespace")
            && stderr.contains("--watch-namespace elsewhere is ignored")
            && stderr.contains("4.22 or later, or 4.19 to 4.21 with TechPreviewNoUpgrade"),
        "{stderr}"
    );
    // Exactly the AllNamespaces install.
    let all = render(None, "all");
    assert_eq!(all.status.code(), Some(0));
    assert_eq!(
        crate::common::tree(&out.path().join("w")),
        crate::common::tree(&out.path().join("all"))
    );
}

/// 4.18 ignores a watch namespace: a bundle without AllNamespaces is refused, saying where a
/// watch namespace is honoured.
#[test]
fn watch_namespace_on_4_18_is_refused() {
    let Some(rd) = realdata("watch_namespace_on_4_18_is_refused") else {
        return;
    };
    let out = tempfile::tempdir().unwrap();
    let a = cmd()
        .args(["bundle", "render"])
        .arg(rd.join("olmv1-e2e-test-catalog/bundles/own-namespace-operator/v1.0.0"))
        .args([
            "--cluster-version",
            "4.18",
            "--namespace",
            "own",
            "--watch-namespace",
            "own",
            "--output-dir",
        ])
        .arg(out.path().join("r"))
        .assert()
        .code(predicates::ord::ne(0));
    let stderr = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
    assert!(
        stderr.contains("OpenShift 4.18 with featureSet Default ignores a watch namespace"),
        "{stderr}"
    );
    assert!(
        stderr.contains("4.22 or later, or 4.19 to 4.21 with TechPreviewNoUpgrade"),
        "{stderr}"
    );
}

#[test]
fn bundle_from_our_example_catalog() {
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().join("r");
    cmd()
        .args(["bundle", "render", "--catalog"])
        .arg(root().join("testdata/example/catalog"))
        .args([
            "--bundle",
            "acme-cert-operator.v1.2.0",
            "--namespace",
            "acme",
            "--output-dir",
        ])
        .arg(&dir)
        .assert()
        .success();
    let names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        names
            .iter()
            .any(|n| n.contains("_deployment_acme-cert-operator")),
        "{names:?}"
    );
    assert!(
        names
            .iter()
            .any(|n| n.contains("_customresourcedefinition_certificates.certs.acme.example.com")),
        "{names:?}"
    );
}

#[test]
fn a_non_empty_output_dir_is_refused() {
    let out = tempfile::tempdir().unwrap();
    std::fs::write(out.path().join("keep"), "x").unwrap();
    cmd()
        .args(["bundle", "render", "--catalog"])
        .arg(root().join("testdata/example/catalog"))
        .args([
            "--bundle",
            "acme-cert-operator.v1.2.0",
            "--namespace",
            "acme",
            "--output-dir",
        ])
        .arg(out.path())
        .assert()
        .code(2);
    assert!(out.path().join("keep").exists());
}

/// Our example catalog copied into `dir`, plus a package `broken` whose one bundle embeds a
/// ClusterServiceVersion without an install strategy (refused when converting).
fn example_catalog_with_a_broken_bundle(dir: &std::path::Path) {
    use base64::Engine as _;
    let src = root().join("testdata/example/catalog");
    for entry in walkdir::WalkDir::new(&src) {
        let entry = entry.unwrap();
        let to = dir.join(entry.path().strip_prefix(&src).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&to).unwrap();
        } else {
            std::fs::copy(entry.path(), &to).unwrap();
        }
    }
    let csv = r#"{"apiVersion":"operators.coreos.com/v1alpha1","kind":"ClusterServiceVersion","metadata":{"name":"broken.v1.0.0"},"spec":{"version":"1.0.0"}}"#;
    let data = base64::engine::general_purpose::STANDARD.encode(csv);
    let text = format!(
        r#"{{"schema":"olm.package","name":"broken","defaultChannel":"stable"}}
{{"schema":"olm.channel","package":"broken","name":"stable","entries":[{{"name":"broken.v1.0.0"}}]}}
{{"schema":"olm.bundle","package":"broken","name":"broken.v1.0.0","image":"quay.io/x/broken@sha256:{}","properties":[{{"type":"olm.package","value":{{"packageName":"broken","version":"1.0.0"}}}},{{"type":"olm.bundle.object","value":{{"data":"{data}"}}}}]}}
"#,
        "0".repeat(64)
    );
    std::fs::create_dir_all(dir.join("broken")).unwrap();
    std::fs::write(dir.join("broken/catalog.json"), text).unwrap();
}

/// `bundle render --all --namespace ns --catalog CATALOG --output-dir OUT`.
fn render_all(catalog: &std::path::Path, out: &std::path::Path) -> assert_cmd::Command {
    let mut c = cmd();
    c.args([
        "bundle",
        "render",
        "--all",
        "--namespace",
        "ns",
        "--catalog",
    ])
    .arg(catalog)
    .arg("--output-dir")
    .arg(out);
    c
}

/// Killed before the rendered tree is renamed into place, `render --all` leaves no `OUT`
/// (only its staging directory beside it), never a part of the bundles.
#[test]
fn render_all_killed_before_it_finishes_leaves_no_output_dir() {
    let tmp = tempfile::tempdir().unwrap();
    let catalog = tmp.path().join("catalog");
    example_catalog_with_a_broken_bundle(&catalog);
    let out = tmp.path().join("out");
    let a = render_all(&catalog, &out)
        .env("PO_MANIFESTS_TEST_CRASH_AT", "1")
        .assert()
        .failure();
    let stderr = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
    assert!(
        stderr.contains("killed before rename the rendered tree"),
        "{stderr}"
    );
    assert!(!out.exists());
    // The same command then renders the whole tree.
    render_all(&catalog, &out).assert().code(1);
    assert!(out.join("acme-cert-operator.v1.2.0").is_dir());
}

#[test]
fn render_all_lists_a_refused_bundle_and_renders_the_others() {
    let tmp = tempfile::tempdir().unwrap();
    let catalog = tmp.path().join("catalog");
    example_catalog_with_a_broken_bundle(&catalog);
    let out = tmp.path().join("out");
    let a = render_all(&catalog, &out).assert().code(1);
    let stderr = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
    let stdout = String::from_utf8_lossy(&a.get_output().stdout).into_owned();
    assert!(
        stderr.contains(r#"refused bundle "broken.v1.0.0" of package "broken": "#),
        "{stderr}"
    );
    // The DNS operator supports OwnNamespace alone, which OLM v1 renders only with a watch
    // namespace (the example installs it with OLM v0).
    assert!(
        stderr.contains(r#"refused bundle "acme-dns-operator.v2.1.0""#)
            && stderr.contains("; 3 refused"),
        "{stderr}"
    );
    assert!(!out.join("broken.v1.0.0").exists());
    // Every other bundle has its directory, named on stdout, with a deployment in it.
    let dirs: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        dirs.contains(&"acme-cert-operator.v1.2.0".to_owned()),
        "{dirs:?}"
    );
    assert_eq!(stdout.lines().count(), dirs.len(), "{stdout}");
    assert!(!dirs.iter().any(|d| d.starts_with('.')), "{dirs:?}");
    let files: Vec<String> = std::fs::read_dir(out.join("acme-cert-operator.v1.2.0"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        files
            .iter()
            .any(|n| n.contains("_deployment_acme-cert-operator")),
        "{files:?}"
    );
}

#[test]
fn render_all_of_one_package_succeeds() {
    let tmp = tempfile::tempdir().unwrap();
    let catalog = tmp.path().join("catalog");
    example_catalog_with_a_broken_bundle(&catalog);
    let out = tmp.path().join("out");
    cmd()
        .args(["bundle", "render", "--all", "--namespace", "ns"])
        .args(["--package", "acme-cert-operator", "--catalog"])
        .arg(&catalog)
        .arg("--output-dir")
        .arg(&out)
        .assert()
        .success();
    let dirs: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(!dirs.is_empty());
    assert!(
        dirs.iter().all(|d| d.starts_with("acme-cert-operator.")),
        "{dirs:?}"
    );
    // An unknown package is a usage error, and nothing is written.
    let out2 = tmp.path().join("out2");
    cmd()
        .args(["bundle", "render", "--all", "--namespace", "ns"])
        .args(["--package", "nope", "--catalog"])
        .arg(&catalog)
        .arg("--output-dir")
        .arg(&out2)
        .assert()
        .code(2);
    assert!(!out2.exists());
}
