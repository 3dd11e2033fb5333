use super::*;
use serde_json::json;
use std::fs;

fn write(dir: &Path, rel: &str, text: &str) {
    let p = dir.join(rel);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(p, text).unwrap();
}

const ANNOTATIONS: &str =
    "annotations:\n  operators.operatorframework.io.bundle.package.v1: demo\n";

const CSV: &str = r#"apiVersion: operators.coreos.com/v1alpha1
kind: ClusterServiceVersion
metadata:
  name: demo.v1.0.0
  annotations:
    olm.properties: '[{"type": "olm.maxOpenShiftVersion", "value": "4.18"}]'
spec:
  version: 1.0.0
  minKubeVersion: 1.27.0
  installModes:
  - {type: OwnNamespace, supported: true}
  - {type: AllNamespaces, supported: true}
  - {type: MultiNamespace, supported: false}
  relatedImages:
  - {name: op, image: quay.io/demo/op@sha256:1}
  install:
    strategy: deployment
    spec:
      deployments:
      - name: demo
        spec:
          template:
            spec:
              initContainers: [{name: i, image: quay.io/demo/init:1}]
              containers: [{name: c, image: quay.io/demo/op:1}, {name: d, image: quay.io/demo/op:1}]
---
apiVersion: v1
kind: Service
metadata: {name: demo-svc}
"#;

fn demo_dir() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    write(tmp.path(), "metadata/annotations.yaml", ANNOTATIONS);
    write(tmp.path(), "manifests/a.csv.yaml", CSV);
    write(
        tmp.path(),
        "manifests/b.crd.json",
        r#"{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"demos.example.com"}}"#,
    );
    tmp
}

mod from_dir {
    use super::*;

    #[test]
    fn routes_csv_crds_and_others() {
        let tmp = demo_dir();
        let b = RegistryV1::from_dir(tmp.path()).unwrap();
        assert_eq!(b.package, "demo");
        assert_eq!(b.csv_name().unwrap(), "demo.v1.0.0");
        assert_eq!(b.crds.len(), 1);
        assert_eq!(b.others.len(), 1);
        assert_eq!(b.others[0]["kind"], "Service");
        // No properties.yaml: the annotation is left exactly as written.
        assert_eq!(
            b.annotations().unwrap()["olm.properties"],
            r#"[{"type": "olm.maxOpenShiftVersion", "value": "4.18"}]"#
        );
    }

    #[test]
    fn properties_yaml_is_appended_like_go() {
        let tmp = demo_dir();
        write(
            tmp.path(),
            "metadata/properties.yaml",
            "properties:\n- type: olm.label\n  value: {z: 1, a: '<x>'}\n- type: olm.maxOpenShiftVersion\n  value: 4.19\n",
        );
        let b = RegistryV1::from_dir(tmp.path()).unwrap();
        assert_eq!(
            b.annotations().unwrap()["olm.properties"],
            r#"[{"type":"olm.maxOpenShiftVersion","value":"4.18"},{"type":"olm.label","value":{"a":"\u003cx\u003e","z":1}},{"type":"olm.maxOpenShiftVersion","value":4.19}]"#
        );
    }

    #[test]
    fn empty_properties_list_gives_go_null() {
        let tmp = tempfile::tempdir().unwrap();
        write(tmp.path(), "metadata/annotations.yaml", ANNOTATIONS);
        write(
            tmp.path(),
            "manifests/csv.yaml",
            "apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata: {name: x}\n",
        );
        write(tmp.path(), "metadata/properties.yaml", "properties: []\n");
        let b = RegistryV1::from_dir(tmp.path()).unwrap();
        assert_eq!(b.annotations().unwrap()["olm.properties"], "null");
    }

    #[test]
    fn subdirectory_is_refused() {
        let tmp = demo_dir();
        write(tmp.path(), "manifests/sub/x.yaml", "kind: ConfigMap\n");
        let err = RegistryV1::from_dir(tmp.path()).unwrap_err();
        assert!(matches!(err, Error::Subdirectory { .. }), "{err}");
    }

    #[test]
    fn missing_package_name() {
        let tmp = demo_dir();
        write(tmp.path(), "metadata/annotations.yaml", "annotations: {}\n");
        let err = RegistryV1::from_dir(tmp.path()).unwrap_err();
        assert!(matches!(err, Error::MissingPackageName { .. }), "{err}");
        assert!(err.to_string().contains("non-empty string, found nothing"));
    }

    #[test]
    fn missing_csv() {
        let tmp = tempfile::tempdir().unwrap();
        write(tmp.path(), "metadata/annotations.yaml", ANNOTATIONS);
        write(
            tmp.path(),
            "manifests/x.yaml",
            "kind: ConfigMap\nmetadata: {name: a}\n",
        );
        let err = RegistryV1::from_dir(tmp.path()).unwrap_err();
        assert!(matches!(err, Error::NoCsv { .. }), "{err}");
    }

    #[test]
    fn two_csvs() {
        let tmp = demo_dir();
        write(
            tmp.path(),
            "manifests/c.yaml",
            "kind: ClusterServiceVersion\nmetadata: {name: other}\n",
        );
        let err = RegistryV1::from_dir(tmp.path()).unwrap_err();
        assert!(matches!(err, Error::MultipleCsvs { .. }), "{err}");
    }

    #[test]
    fn object_without_kind() {
        let tmp = demo_dir();
        write(tmp.path(), "manifests/c.yaml", "metadata: {name: other}\n");
        let err = RegistryV1::from_dir(tmp.path()).unwrap_err();
        assert!(matches!(err, Error::MissingKind { index: 0, .. }), "{err}");
    }
}

mod accessors {
    use super::*;

    #[test]
    fn read_the_csv() {
        let tmp = demo_dir();
        let b = RegistryV1::from_dir(tmp.path()).unwrap();
        assert_eq!(b.version().unwrap(), Some("1.0.0"));
        assert_eq!(b.min_kube_version().unwrap(), Some("1.27.0"));
        assert_eq!(
            b.install_modes().unwrap().into_iter().collect::<Vec<_>>(),
            vec![
                InstallModeType::AllNamespaces,
                InstallModeType::OwnNamespace
            ]
        );
        assert_eq!(
            b.deployment_images().unwrap(),
            vec!["quay.io/demo/init:1", "quay.io/demo/op:1"]
        );
        assert_eq!(
            b.related_images().unwrap()[0].image,
            "quay.io/demo/op@sha256:1"
        );
        assert!(b.webhook_definitions().unwrap().is_empty());
        assert!(b.owned_api_services().unwrap().is_empty());
        assert_eq!(b.suggested_namespace(), None);
    }

    #[test]
    fn wrong_types_are_errors_not_panics() {
        let cases = [
            (
                json!({"spec": {"installModes": "All"}}),
                "spec.installModes",
            ),
            (
                json!({"spec": {"installModes": [{"type": 1, "supported": true}]}}),
                "spec.installModes[0].type",
            ),
            (
                json!({"spec": {"install": {"spec": {"permissions": [{"rules": [{"verbs": [1]}]}]}}}}),
                "spec.install.spec.permissions[0].rules[0].verbs[0]",
            ),
            (
                json!({"spec": {"install": {"spec": {"deployments": [{"name": "a", "spec": []}]}}}}),
                "spec.install.spec.deployments[0].spec",
            ),
            (
                json!({"metadata": {"annotations": {"a": true}}}),
                "metadata.annotations.a",
            ),
        ];
        for (csv, field) in cases {
            let mut csv = csv;
            csv["kind"] = json!("ClusterServiceVersion");
            csv["metadata"]["name"] = json!("bad.v1");
            let b = RegistryV1::from_objects("p", vec![csv]).unwrap();
            let err = b
                .install_modes()
                .err()
                .or_else(|| b.permissions().err())
                .or_else(|| b.deployment_specs().err())
                .or_else(|| b.annotations().err())
                .unwrap_or_else(|| panic!("no error for {field}"));
            match err {
                Error::InvalidField { field: f, csv, .. } => {
                    assert_eq!(f, field);
                    assert_eq!(csv, "bad.v1");
                }
                other => panic!("unexpected {other}"),
            }
        }
    }

    #[test]
    fn from_objects_needs_package_and_csv() {
        let csv = json!({"kind": "ClusterServiceVersion", "metadata": {"name": "a"}});
        assert!(matches!(
            RegistryV1::from_objects("", vec![csv.clone()]),
            Err(Error::EmptyPackageName { .. })
        ));
        assert!(matches!(
            RegistryV1::from_objects("p", vec![json!({"kind": "ConfigMap"})]),
            Err(Error::NoCsv { .. })
        ));
        assert!(matches!(
            RegistryV1::from_objects("p", vec![csv, json!("x")]),
            Err(Error::Decode { .. })
        ));
    }
}

/// The registry+v1 directories under realdata load, or fail for a stated reason.
mod realdata {
    use super::*;

    #[test]
    fn e2e_and_operator_registry_bundles() {
        let Some(root) = crate::catalog::tests::realdata("e2e_and_operator_registry_bundles")
        else {
            return;
        };
        // (dir, expected CSV name or the start of the error message)
        let cases: &[(&str, Result<&str, &str>)] = &[
            (
                "olmv1-e2e-test-catalog/bundles/large-crd-operator/v1.0.0",
                Ok("large-crd-operator.v1.0.0"),
            ),
            (
                "olmv1-e2e-test-catalog/bundles/own-namespace-operator/v1.0.0",
                Ok("ownnamespaceoperator.v1.0.0"),
            ),
            (
                "olmv1-e2e-test-catalog/bundles/single-namespace-operator/v1.0.0",
                Ok("singlenamespaceoperator.v1.0.0"),
            ),
            (
                "olmv1-e2e-test-catalog/bundles/test-operator/v1.0.0",
                Ok("testoperator.v1.0.0"),
            ),
            (
                "olmv1-e2e-test-catalog/bundles/test-operator/v1.0.2",
                Ok("testoperator.v1.0.2"),
            ),
            // Upstream quirk: the v1.0.3 directory carries the v1.0.2 CSV name.
            (
                "olmv1-e2e-test-catalog/bundles/test-operator/v1.0.3",
                Ok("testoperator.v1.0.2"),
            ),
            (
                "olmv1-e2e-test-catalog/bundles/test-operator/v1.2.0",
                Ok("testoperator.v1.2.0"),
            ),
            (
                "olmv1-e2e-test-catalog/bundles/webhook-operator/v0.0.1",
                Ok("webhook-operator.v0.0.1"),
            ),
            (
                "operator-registry-bundles/etcd.0.9.0",
                Ok("etcdoperator.v0.9.0"),
            ),
            (
                "operator-registry-bundles/etcd.0.9.2",
                Ok("etcdoperator.v0.9.2"),
            ),
            (
                "operator-registry-bundles/prometheus.0.14.0",
                Ok("prometheusoperator.0.14.0"),
            ),
            (
                "operator-registry-bundles/prometheus.0.14.0-beta",
                Ok("prometheusoperator.0.14.0-beta"),
            ),
            (
                "operator-registry-bundles/prometheus.0.14.0.substitutesfor",
                Ok("prometheusoperator.0.14.0+0.1234-rebuild"),
            ),
            (
                "operator-registry-bundles/prometheus.0.14.0.substitutesfor2",
                Ok("prometheusoperator.0.14.0+2-rebuild"),
            ),
            (
                "operator-registry-bundles/prometheus.0.14.0.substitutesfor3",
                Ok("prometheusoperator.0.14.0+3-rebuild"),
            ),
            (
                "operator-registry-bundles/prometheus.0.15.0",
                Ok("prometheusoperator.0.15.0"),
            ),
            (
                "operator-registry-bundles/prometheus.0.15.0-stable",
                Ok("prometheusoperator.0.15.0-stable"),
            ),
            (
                "operator-registry-bundles/prometheus.0.15.0.substitutesfor",
                Ok("prometheusoperator.0.15.0+1-freshmaker-rebuild"),
            ),
            (
                "operator-registry-bundles/prometheus.0.15.0.substitutesfor2",
                Ok("prometheusoperator.0.15.0+2-freshmaker-rebuild"),
            ),
            (
                "operator-registry-bundles/prometheus.0.22.2",
                Ok("prometheusoperator.0.22.2"),
            ),
            // Old-style bundles without metadata/: no package name to read.
            (
                "operator-registry-bundles/apicurio-registry.v0.0.1",
                Err("reading"),
            ),
            (
                "operator-registry-bundles/apicurio-registry.v0.0.3-v1.2.3.final",
                Err("reading"),
            ),
            (
                "operator-registry-bundles/apicurio-registry.v0.0.4-v1.3.2.final",
                Err("reading"),
            ),
            (
                "operator-registry-bundles/apicurio-registry-operator.v1.0.0-v2.0.0.final",
                Err("reading"),
            ),
        ];
        let mut failures = Vec::new();
        for (dir, expected) in cases {
            let got = RegistryV1::from_dir(&root.join(dir));
            let ok = match (&got, expected) {
                (Ok(b), Ok(name)) => b.csv_name().ok() == Some(*name),
                (Err(e), Err(prefix)) => e.to_string().starts_with(prefix),
                _ => false,
            };
            if !ok {
                failures.push(format!(
                    "{dir}: expected {expected:?}, got {:?}",
                    got.as_ref()
                        .map(|b| b.csv_name().ok())
                        .map_err(|e| e.to_string())
                ));
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }
}
