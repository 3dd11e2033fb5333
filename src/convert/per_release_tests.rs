//! Each release's renderer on bundles of our own, compared with what that release's source
//! and unit tests say (each test names the upstream file, on the
//! openshift/operator-framework-operator-controller branch it follows).

use serde_json::{Value, json};

use super::*;
use crate::openshift::ClusterVersion;
use crate::openshift::Target;

fn olm(version: &str, feature_set: Option<&str>) -> OlmV1 {
    Target::new(&ClusterVersion::parse(version).unwrap(), feature_set, &[])
        .unwrap()
        .olm_v1()
        .unwrap()
}

fn options(version: &str, feature_set: Option<&str>, install: &str, targets: &[&str]) -> Options {
    let mut o = Options::for_olm_v1(&olm(version, feature_set), install);
    o.target_namespaces = targets.iter().map(|s| s.to_string()).collect();
    o
}

fn csv(name: &str, modes: &[&str], spec: Value) -> Value {
    let all = [
        "OwnNamespace",
        "SingleNamespace",
        "MultiNamespace",
        "AllNamespaces",
    ];
    let mut spec = spec;
    spec["installModes"] = all
        .iter()
        .map(|m| json!({"type": m, "supported": modes.contains(m)}))
        .collect();
    json!({
        "apiVersion": "operators.coreos.com/v1alpha1",
        "kind": "ClusterServiceVersion",
        "metadata": {"name": name, "annotations": {"capabilities": "Basic Install"}},
        "spec": spec,
    })
}

fn deployment(name: &str, sa: &str) -> Value {
    json!({
        "name": name,
        "spec": {
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {
                    "serviceAccountName": sa,
                    "containers": [{"name": "manager", "image": "quay.io/example/op@sha256:0000000000000000000000000000000000000000000000000000000000000000"}]
                }
            }
        }
    })
}

/// An AllNamespaces-only operator with namespaced permissions (promoted in AllNamespaces
/// mode) and a deployment running as a ServiceAccount no permission names.
fn all_namespaces_bundle() -> RegistryV1 {
    RegistryV1 {
        package: "lister".into(),
        csv: csv(
            "lister.v1.0.0",
            &["AllNamespaces"],
            json!({"install": {"strategy": "deployment", "spec": {
                "deployments": [deployment("lister-manager", "lister-runner")],
                "permissions": [{"serviceAccountName": "lister", "rules": [
                    {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "list"]}
                ]}],
            }}}),
        ),
        crds: vec![],
        others: vec![],
    }
}

fn find<'a>(objs: &'a [Value], kind: &str) -> Vec<&'a Value> {
    objs.iter().filter(|o| o["kind"] == kind).collect()
}

fn names(objs: &[Value], kind: &str) -> Vec<String> {
    find(objs, kind)
        .iter()
        .map(|o| o["metadata"]["name"].as_str().unwrap().to_owned())
        .collect()
}

mod all_namespaces {
    use super::*;

    /// release-4.18 `internal/rukpak/convert/registryv1.go` `Convert`: `for _, p := range
    /// permissions { p.Rules = append(...) }` changes a copy, so the promoted ClusterRole has
    /// only the CSV's rule, and its hashed name is that of the unchanged entry; the
    /// deployment's ServiceAccount is created; no `revisionHistoryLimit`.
    #[test]
    fn on_4_18_the_namespaces_rule_is_lost() {
        let b = all_namespaces_bundle();
        let objs = convert(&b, &options("4.18", None, "lister-system", &[])).unwrap();
        let roles = find(&objs, "ClusterRole");
        assert_eq!(roles.len(), 1);
        assert_eq!(
            roles[0]["rules"],
            json!([{"verbs": ["get", "list"], "apiGroups": [""], "resources": ["configmaps"]}])
        );
        let p = &b.permissions().unwrap()[0];
        assert_eq!(
            roles[0]["metadata"]["name"],
            naming::rbac_object_name("lister.v1.0.0", p)
        );
        assert_eq!(
            names(&objs, "ServiceAccount"),
            ["lister", "lister-runner"],
            "4.18 adds each deployment's serviceAccountName"
        );
        let dep = find(&objs, "Deployment")[0];
        assert!(dep["spec"].get("revisionHistoryLimit").is_none());
        let ann = &dep["spec"]["template"]["metadata"]["annotations"];
        assert_eq!(ann["olm.targetNamespaces"], "");
        assert!(ann.get("olm.operatorNamespace").is_none());
    }

    /// release-4.19 `internal/operator-controller/rukpak/convert/registryv1.go` appends the
    /// rule before promoting (and still adds deployment ServiceAccounts); release-4.20
    /// `rukpak/render/registryv1/generators/generators.go` `BundleCSVClusterPermissionsGenerator`
    /// does the same and `BundleCSVServiceAccountGenerator` reads permissions only.
    #[test]
    fn from_4_19_the_rule_is_there_and_the_hash_differs_from_4_18() {
        let b = all_namespaces_bundle();
        let o18 = convert(&b, &options("4.18", None, "lister-system", &[])).unwrap();
        let o19 = convert(&b, &options("4.19", None, "lister-system", &[])).unwrap();
        let o20 = convert(&b, &options("4.20", None, "lister-system", &[])).unwrap();
        let r20 = find(&o20, "ClusterRole")[0];
        assert_eq!(
            r20["rules"][1],
            json!({"verbs": ["get", "list", "watch"], "apiGroups": [""], "resources": ["namespaces"]})
        );
        assert_eq!(find(&o19, "ClusterRole")[0], r20);
        assert_ne!(
            names(&o18, "ClusterRole"),
            names(&o20, "ClusterRole"),
            "the hashed input differs"
        );
        assert_eq!(names(&o19, "ServiceAccount"), ["lister", "lister-runner"]);
        assert_eq!(names(&o20, "ServiceAccount"), ["lister"]);
        for objs in [&o19, &o20] {
            let dep = find(objs, "Deployment")[0];
            assert_eq!(dep["spec"]["revisionHistoryLimit"], 1);
            assert!(
                dep["spec"]["template"]["metadata"]["annotations"]
                    .get("olm.operatorNamespace")
                    .is_none()
            );
        }
        // 4.21 and 4.22 render AllNamespaces as 4.20 does.
        for v in ["4.21", "4.22"] {
            assert_eq!(
                convert(&b, &options(v, None, "lister-system", &[])).unwrap(),
                o20
            );
        }
    }
}

fn own_only_bundle() -> RegistryV1 {
    RegistryV1 {
        package: "ownie".into(),
        csv: csv(
            "ownie.v0.1.0",
            &["OwnNamespace"],
            json!({"install": {"strategy": "deployment", "spec": {
                "deployments": [deployment("ownie", "ownie")],
                "permissions": [{"serviceAccountName": "ownie", "rules": [
                    {"apiGroups": ["apps"], "resources": ["deployments"], "verbs": ["*"]}
                ]}],
            }}}),
        ),
        crds: vec![],
        others: vec![],
    }
}

fn single_only_bundle() -> RegistryV1 {
    let mut b = own_only_bundle();
    b.package = "singly".into();
    b.csv = csv("singly.v0.1.0", &["SingleNamespace"], b.csv["spec"].clone());
    b
}

mod own_and_single_namespace {
    use super::*;

    /// release-4.18 `internal/applier/helm.go` passes `[]string{corev1.NamespaceAll}`, and
    /// `validateTargetNamespaces` refuses a bundle without AllNamespaces.
    #[test]
    fn on_4_18_own_namespace_only_is_refused() {
        let err = convert(&own_only_bundle(), &options("4.18", None, "ownie", &[])).unwrap_err();
        assert!(
            err.to_string().contains(
                "supported install modes [OwnNamespace] do not support targeting all namespaces"
            ),
            "{err}"
        );
    }

    /// release-4.20/4.21 `rukpak/render/registryv1/generators/generators.go`
    /// `BundleCSVPermissionsGenerator`: a Role and RoleBinding in the watch namespace, no
    /// ClusterRole; the pod template's `olm.targetNamespaces` is the watch namespace.
    #[test]
    fn own_namespace_renders_roles_in_the_install_namespace() {
        for (v, fs) in [
            ("4.19", Some("TechPreviewNoUpgrade")),
            ("4.20", Some("TechPreviewNoUpgrade")),
            ("4.21", Some("TechPreviewNoUpgrade")),
            ("4.22", Some("TechPreviewNoUpgrade")),
        ] {
            let objs = convert(&own_only_bundle(), &options(v, fs, "ownie", &["ownie"])).unwrap();
            let roles = find(&objs, "Role");
            assert_eq!(roles.len(), 1, "{v}");
            assert_eq!(roles[0]["metadata"]["namespace"], "ownie");
            assert!(find(&objs, "ClusterRole").is_empty());
            let dep = find(&objs, "Deployment")[0];
            assert_eq!(
                dep["spec"]["template"]["metadata"]["annotations"]["olm.targetNamespaces"],
                "ownie"
            );
        }
    }

    /// release-4.22 `applier/provider.go` reads `spec.config` with the gate off, but refuses
    /// a bundle without AllNamespaces first.
    #[test]
    fn on_4_22_default_own_namespace_only_is_refused() {
        let err = convert(
            &own_only_bundle(),
            &options("4.22", None, "ownie", &["ownie"]),
        )
        .unwrap_err();
        assert!(matches!(err, Error::NoAllNamespaces { .. }), "{err}");
        assert!(
            err.to_string()
                .contains("bundle does not support AllNamespaces install mode"),
            "{err}"
        );
        assert!(
            err.to_string()
                .ends_with("which is on in 4.19 or later with TechPreviewNoUpgrade"),
            "{err}"
        );
    }

    /// release-4.20 `rukpak/render/render.go` `validateTargetNamespaces` lets a
    /// SingleNamespace bundle target its install namespace; release-4.21's refuses "do not
    /// support targeting own namespace".
    #[test]
    fn single_namespace_targeting_the_install_namespace() {
        let b = single_only_bundle();
        assert!(
            convert(
                &b,
                &options("4.20", Some("TechPreviewNoUpgrade"), "singly", &["singly"])
            )
            .is_ok()
        );
        let err = convert(
            &b,
            &options("4.21", Some("TechPreviewNoUpgrade"), "singly", &["singly"]),
        )
        .unwrap_err();
        assert!(
            err.to_string()
                .ends_with("do not support targeting own namespace"),
            "{err}"
        );
        let objs = convert(
            &b,
            &options("4.21", Some("TechPreviewNoUpgrade"), "singly", &["watched"]),
        )
        .unwrap();
        assert_eq!(find(&objs, "Role")[0]["metadata"]["namespace"], "watched");
        assert_eq!(
            find(&objs, "RoleBinding")[0]["subjects"][0]["namespace"],
            "singly"
        );
    }
}

/// A bundle with one validating, one mutating and one conversion webhook, all served by one
/// deployment that already mounts a certificate volume at the webhook path.
fn webhook_bundle(modes: &[&str]) -> RegistryV1 {
    let mut dep = deployment("hooks.controller", "hooks");
    dep["spec"]["template"]["spec"]["volumes"] = json!([
        {"name": "cert", "secret": {"secretName": "hooks-server-cert"}},
        {"name": "scratch", "emptyDir": {}}
    ]);
    dep["spec"]["template"]["spec"]["containers"][0]["volumeMounts"] = json!([
        {"name": "cert", "mountPath": "/tmp/k8s-webhook-server/serving-certs", "readOnly": true},
        {"name": "scratch", "mountPath": "/scratch"}
    ]);
    let rules = json!([{"apiGroups": ["hooks.example.com"], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["widgets"]}]);
    RegistryV1 {
        package: "hooks".into(),
        csv: csv(
            "hooks.v1.0.0",
            modes,
            json!({
                "customresourcedefinitions": {"owned": [{"name": "widgets.hooks.example.com", "version": "v1", "kind": "Widget"}]},
                "install": {"strategy": "deployment", "spec": {
                    "deployments": [dep],
                    "clusterPermissions": [{"serviceAccountName": "hooks", "rules": [
                        {"apiGroups": ["hooks.example.com"], "resources": ["widgets"], "verbs": ["*"]}
                    ]}],
                }},
                "webhookdefinitions": [
                    {"type": "ValidatingAdmissionWebhook", "generateName": "vwidget.hooks.example.com", "deploymentName": "hooks.controller",
                     "containerPort": 443, "targetPort": 9443, "webhookPath": "/validate", "rules": rules,
                     "failurePolicy": "Fail", "sideEffects": "None", "admissionReviewVersions": ["v1"], "timeoutSeconds": 5},
                    {"type": "MutatingAdmissionWebhook", "generateName": "mwidget.hooks.example.com", "deploymentName": "hooks.controller",
                     "containerPort": 443, "targetPort": 9443, "webhookPath": "/mutate", "rules": rules,
                     "failurePolicy": "Ignore", "sideEffects": "None", "admissionReviewVersions": ["v1"], "reinvocationPolicy": "IfNeeded"},
                    {"type": "ConversionWebhook", "generateName": "cwidget.hooks.example.com", "deploymentName": "hooks.controller",
                     "containerPort": 8443, "conversionCRDs": ["widgets.hooks.example.com"], "admissionReviewVersions": ["v1", "v1beta1"]}
                ]
            }),
        ),
        crds: vec![json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": "widgets.hooks.example.com"},
            "spec": {"group": "hooks.example.com", "names": {"kind": "Widget", "plural": "widgets"}, "scope": "Namespaced",
                     "versions": [{"name": "v1", "served": true, "storage": true}]}
        })],
        others: vec![],
    }
}

mod webhooks_by_release {
    use super::*;

    /// release-4.18 `internal/rukpak/convert/registryv1.go` and release-4.19
    /// `internal/operator-controller/rukpak/convert/registryv1.go`: "webhookDefinitions are not
    /// supported"; release-4.20 `rukpak/convert/helm.go` the same without the gate.
    #[test]
    fn refused_where_the_provider_is_off() {
        for (v, fs) in [
            ("4.18", Some("TechPreviewNoUpgrade")),
            ("4.19", Some("TechPreviewNoUpgrade")),
            ("4.20", None),
        ] {
            let err = convert(
                &webhook_bundle(&["AllNamespaces"]),
                &options(v, fs, "hooks", &[]),
            )
            .unwrap_err();
            assert!(
                matches!(err, Error::WebhooksUnsupported { .. }),
                "{v}: {err}"
            );
            assert!(
                err.to_string()
                    .contains("on 4.21 or later, or 4.20 with TechPreviewNoUpgrade")
            );
        }
    }

    /// release-4.22 `generators.go` with `certproviders/openshift_serviceca.go`: its tests
    /// `Test_BundleValidatingWebhookResourceGenerator_Succeeds`,
    /// `Test_BundleMutatingWebhookResourceGenerator_Succeeds`,
    /// `Test_BundleDeploymentServiceResourceGenerator_Succeeds`,
    /// `Test_BundleCRDGenerator_WithCertProvider_Succeeds` and
    /// `Test_BundleCSVDeploymentGenerator_WithCertWithCertProvider_Succeeds` (in
    /// `generators_test.go`) fix the shapes checked here.
    #[test]
    fn service_ca_output() {
        let b = webhook_bundle(&["AllNamespaces"]);
        let objs = convert(&b, &options("4.21", None, "hooks", &[])).unwrap();
        // 4.20 with TechPreviewNoUpgrade and 4.22 render the same objects.
        assert_eq!(
            convert(
                &b,
                &options("4.20", Some("TechPreviewNoUpgrade"), "hooks", &[])
            )
            .unwrap(),
            objs
        );
        assert_eq!(
            convert(&b, &options("4.22", None, "hooks", &[])).unwrap(),
            objs
        );

        let vwc = find(&objs, "ValidatingWebhookConfiguration");
        assert_eq!(
            *vwc[0],
            json!({
                "apiVersion": "admissionregistration.k8s.io/v1",
                "kind": "ValidatingWebhookConfiguration",
                "metadata": {"name": "vwidget.hooks.example.com", "namespace": "hooks",
                             "annotations": {"service.beta.openshift.io/inject-cabundle": "true"}},
                "webhooks": [{
                    "name": "vwidget.hooks.example.com",
                    "clientConfig": {"service": {"name": "hooks-controller-service", "namespace": "hooks", "path": "/validate", "port": 443}},
                    "rules": [{"apiGroups": ["hooks.example.com"], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["widgets"]}],
                    "failurePolicy": "Fail",
                    "sideEffects": "None",
                    "timeoutSeconds": 5,
                    "admissionReviewVersions": ["v1"]
                }]
            })
        );
        let mwc = find(&objs, "MutatingWebhookConfiguration");
        assert_eq!(mwc[0]["webhooks"][0]["reinvocationPolicy"], "IfNeeded");
        assert_eq!(mwc[0]["webhooks"][0]["failurePolicy"], "Ignore");
        assert!(mwc[0]["webhooks"][0].get("namespaceSelector").is_none());

        let svc = find(&objs, "Service");
        assert_eq!(
            *svc[0],
            json!({
                "apiVersion": "v1",
                "kind": "Service",
                "metadata": {"name": "hooks-controller-service", "namespace": "hooks",
                             "annotations": {"service.beta.openshift.io/serving-cert-secret-name": "hooks-controller-service-cert"}},
                "spec": {
                    "ports": [
                        {"name": "443", "port": 443, "targetPort": 9443},
                        {"name": "8443", "port": 8443, "targetPort": 8443}
                    ],
                    "selector": {"app": "hooks.controller"}
                }
            })
        );

        let crd = find(&objs, "CustomResourceDefinition")[0];
        assert_eq!(
            crd["metadata"]["annotations"]["service.beta.openshift.io/inject-cabundle"],
            "true"
        );
        assert_eq!(
            crd["spec"]["conversion"],
            json!({"strategy": "Webhook", "webhook": {
                "clientConfig": {"service": {"name": "hooks-controller-service", "namespace": "hooks", "path": "/", "port": 8443}},
                "conversionReviewVersions": ["v1", "v1beta1"]
            }})
        );

        let pod = &find(&objs, "Deployment")[0]["spec"]["template"]["spec"];
        assert_eq!(
            pod["volumes"],
            json!([
                {"name": "scratch", "emptyDir": {}},
                {"name": "webhook-cert", "secret": {"secretName": "hooks-controller-service-cert",
                  "items": [{"key": "tls.crt", "path": "tls.crt"}, {"key": "tls.key", "path": "tls.key"}]}},
                {"name": "apiservice-cert", "secret": {"secretName": "hooks-controller-service-cert",
                  "items": [{"key": "tls.crt", "path": "apiserver.crt"}, {"key": "tls.key", "path": "apiserver.key"}]}}
            ])
        );
        assert_eq!(
            pod["containers"][0]["volumeMounts"],
            json!([
                {"name": "scratch", "mountPath": "/scratch"},
                {"name": "webhook-cert", "mountPath": "/tmp/k8s-webhook-server/serving-certs"},
                {"name": "apiservice-cert", "mountPath": "/apiserver.local.config/certificates"}
            ])
        );
    }

    /// `getWebhookNamespaceSelector` in `generators.go`: the watch namespaces by label outside
    /// AllNamespaces mode. Conversion webhooks need AllNamespaces as the only mode from 4.21
    /// (`validators/validator.go` `CheckConversionWebhookSupport`, not in release-4.20's
    /// `registryv1.go` validator list).
    #[test]
    fn own_namespace_selector_and_conversion_refusal() {
        let mut b = webhook_bundle(&["OwnNamespace", "AllNamespaces"]);
        let err = convert(
            &b,
            &options("4.21", Some("TechPreviewNoUpgrade"), "hooks", &["hooks"]),
        )
        .unwrap_err();
        assert!(
            err.to_string().contains("conversion webhooks are only supported for bundles that only support AllNamespaces install mode"),
            "{err}"
        );
        let on_4_20 = convert(
            &b,
            &options("4.20", Some("TechPreviewNoUpgrade"), "hooks", &["hooks"]),
        )
        .unwrap();
        assert_eq!(
            find(&on_4_20, "CustomResourceDefinition")[0]["spec"]["conversion"]["strategy"],
            "Webhook"
        );
        // Without the conversion webhook, 4.21 renders and selects the watch namespace.
        let defs = b.csv["spec"]["webhookdefinitions"].as_array_mut().unwrap();
        defs.pop();
        let objs = convert(
            &b,
            &options("4.21", Some("TechPreviewNoUpgrade"), "hooks", &["hooks"]),
        )
        .unwrap();
        for kind in [
            "ValidatingWebhookConfiguration",
            "MutatingWebhookConfiguration",
        ] {
            assert_eq!(
                find(&objs, kind)[0]["webhooks"][0]["namespaceSelector"],
                json!({"matchExpressions": [{"key": "kubernetes.io/metadata.name", "operator": "In", "values": ["hooks"]}]})
            );
        }
    }

    /// `BundleCRDGenerator`: a converted CRD must not preserve unknown fields.
    #[test]
    fn preserve_unknown_fields_is_refused() {
        let mut b = webhook_bundle(&["AllNamespaces"]);
        b.crds[0]["spec"]["preserveUnknownFields"] = json!(true);
        let err = convert(&b, &options("4.21", None, "hooks", &[])).unwrap_err();
        assert!(
            matches!(err, Error::ConversionCrdPreservesUnknownFields { .. }),
            "{err}"
        );
    }

    /// `CheckWebhookRules` (4.21 on) refuses rules on OLM's own API group.
    #[test]
    fn webhook_rules_on_olm_are_refused_from_4_21() {
        let mut b = webhook_bundle(&["AllNamespaces"]);
        b.csv["spec"]["webhookdefinitions"][0]["rules"][0]["apiGroups"] =
            json!(["olm.operatorframework.io"]);
        assert!(
            convert(
                &b,
                &options("4.20", Some("TechPreviewNoUpgrade"), "hooks", &[])
            )
            .is_ok()
        );
        let err = convert(&b, &options("4.21", None, "hooks", &[])).unwrap_err();
        assert!(
            err.to_string()
                .contains("cannot reference API group \"olm.operatorframework.io\"")
        );
    }
}

/// Kinds by the operator-registry each branch vendors.
#[test]
fn supported_kinds_by_release() {
    let kinds = |v: &str| {
        let o = options(v, None, "x", &[]);
        (
            o.supported_kind("NetworkPolicy"),
            o.supported_kind("ConsolePlugin"),
            o.supported_kind("PodMonitor"),
        )
    };
    assert_eq!(kinds("4.18"), (Some(true), None, None));
    assert_eq!(kinds("4.19"), (Some(true), None, None));
    assert_eq!(kinds("4.20"), (Some(true), Some(false), None));
    assert_eq!(kinds("4.21"), (Some(true), Some(false), Some(true)));
}

/// release-4.18 `internal/rukpak/convert/registryv1_test.go` "should convert into plain
/// manifests successfully with AllNamespaces": a CSV with one deployment (no
/// `serviceAccountName`), one `permissions` entry and a Service gives 5 objects, the
/// deployment's pod template annotated `olm.targetNamespaces: ""`.
#[test]
fn release_4_18_unit_test_all_namespaces() {
    let b = RegistryV1 {
        package: "testPkg".into(),
        csv: json!({
            "apiVersion": "operators.coreos.com/v1alpha1",
            "kind": "ClusterServiceVersion",
            "metadata": {"name": "testCSV", "annotations": {"olm.properties": "[{\"type\": olm.constraint, \"value\": \"value\"}]"}},
            "spec": {
                "installModes": [{"type": "AllNamespaces", "supported": true}],
                "install": {"strategy": "deployment", "spec": {
                    "deployments": [{"name": "testDeployment", "spec": {"template": {"spec": {"containers": [{"name": "testContainer", "image": "testImage"}]}}}}],
                    "permissions": [{"serviceAccountName": "testServiceAccount", "rules": [{"apiGroups": ["test"], "resources": ["pods"], "verbs": ["*"]}]}],
                }},
            },
        }),
        crds: vec![],
        others: vec![
            json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "testService"}}),
        ],
    };
    let objs = convert(&b, &options("4.18", None, "testInstallNamespace", &[""])).unwrap();
    assert_eq!(objs.len(), 5, "{objs:#?}");
    let dep = find(&objs, "Deployment")[0];
    assert_eq!(
        dep["spec"]["template"]["metadata"]["annotations"]["olm.targetNamespaces"],
        ""
    );
    assert_eq!(
        find(&objs, "Service")[0]["metadata"]["namespace"],
        "testInstallNamespace"
    );
}

/// release-4.23, release-5.0 and release-5.1 carry release-4.22's renderer, validators and
/// `applier/provider.go` byte for byte (no non-test file of `rukpak/render`,
/// `rukpak/bundle` but `registryv1bundleconfig.json` descriptions, or `provider.go` differs),
/// so every bundle renders and is refused as on 4.22, hashed names included.
mod after_4_22 {
    use super::*;

    fn both(v: &str, fs: Option<&str>, b: &RegistryV1, install: &str, targets: &[&str]) {
        let want = convert(b, &options("4.22", fs, install, targets));
        let got = convert(b, &options(v, fs, install, targets));
        match (want, got) {
            (Ok(w), Ok(g)) => assert_eq!(g, w, "{v} {fs:?}"),
            (Err(w), Err(g)) => assert_eq!(g.to_string(), w.to_string(), "{v} {fs:?}"),
            (w, g) => panic!("{v} {fs:?}: 4.22 {w:?}, {v} {g:?}"),
        }
    }

    #[test]
    fn every_bundle_renders_as_on_4_22() {
        for v in ["4.23", "5.0", "5.1"] {
            for fs in [None, Some("TechPreviewNoUpgrade")] {
                both(v, fs, &all_namespaces_bundle(), "lister-system", &[]);
                both(v, fs, &own_only_bundle(), "ownie", &["ownie"]);
                both(v, fs, &single_only_bundle(), "singly", &["singly"]);
                both(v, fs, &single_only_bundle(), "singly", &["watched"]);
                both(v, fs, &webhook_bundle(&["AllNamespaces"]), "hooks", &[]);
                both(
                    v,
                    fs,
                    &webhook_bundle(&["OwnNamespace", "AllNamespaces"]),
                    "hooks",
                    &["hooks"],
                );
            }
        }
        // Spot checks of what that is: AllNamespaces promoted with the namespaces rule, the
        // service-ca webhook objects by default, own-namespace-only refused on Default.
        let o = convert(
            &all_namespaces_bundle(),
            &options("5.0", None, "lister-system", &[]),
        )
        .unwrap();
        assert_eq!(
            find(&o, "ClusterRole")[0]["rules"][1]["resources"],
            json!(["namespaces"])
        );
        let p = &all_namespaces_bundle().permissions().unwrap()[0];
        assert_ne!(
            find(&o, "ClusterRole")[0]["metadata"]["name"],
            naming::rbac_object_name("lister.v1.0.0", p),
            "the name hashes the entry with the added rule, as on 4.20–4.22"
        );
        let hooks = convert(
            &webhook_bundle(&["AllNamespaces"]),
            &options("4.23", None, "hooks", &[]),
        )
        .unwrap();
        assert!(!find(&hooks, "Service").is_empty());
        let err = convert(
            &own_only_bundle(),
            &options("5.1", None, "ownie", &["ownie"]),
        )
        .unwrap_err();
        assert!(matches!(err, Error::NoAllNamespaces { .. }), "{err}");
    }
}

/// The fields of a typed object follow the `k8s.io/api` the release's OLM v1 vendors (go.mod
/// of each openshift/operator-framework-operator-controller branch: v0.35.3 on
/// release-4.22, v0.36.1 on release-4.23, release-5.0 and release-5.1).
mod field_set_by_release {
    use super::*;

    /// An AllNamespaces operator whose pod template sets `schedulingGroup` (Kubernetes 1.36,
    /// `PodSpec.SchedulingGroup *PodSchedulingGroup`) and `hostnameOverride` (1.34).
    fn scheduled_bundle() -> RegistryV1 {
        let mut b = all_namespaces_bundle();
        let dep = &mut b.csv["spec"]["install"]["spec"]["deployments"][0];
        dep["spec"]["template"]["spec"]["schedulingGroup"] = json!({"podGroupName": "gang"});
        dep["spec"]["template"]["spec"]["hostnameOverride"] = json!("worker");
        b
    }

    fn pod_spec(v: &str) -> Value {
        let o = convert(&scheduled_bundle(), &options(v, None, "lister-system", &[])).unwrap();
        find(&o, "Deployment")[0]["spec"]["template"]["spec"].clone()
    }

    #[test]
    fn scheduling_group_survives_from_kubernetes_1_36() {
        for v in ["4.23", "5.0", "5.1", "5.2"] {
            assert_eq!(
                pod_spec(v)["schedulingGroup"],
                json!({"podGroupName": "gang"}),
                "{v}"
            );
        }
        for v in ["4.18", "4.19", "4.20", "4.21", "4.22"] {
            assert!(pod_spec(v).get("schedulingGroup").is_none(), "{v}");
        }
        for (v, kept) in [("4.20", false), ("4.21", true), ("4.22", true)] {
            assert_eq!(pod_spec(v).get("hostnameOverride").is_some(), kept, "{v}");
        }
    }

    /// Every OLM v1 release of the table has a Kubernetes minor the generated field table
    /// covers, so none is read as another release's.
    #[test]
    fn every_olm_v1_release_is_in_the_field_table() {
        for row in crate::openshift::RELEASES {
            if row.renderer.is_none() {
                continue;
            }
            let kinds =
                roundtrip::TypedKinds::registry_v1().with_kubernetes_minor(row.kubernetes_minor);
            assert_eq!(
                kinds.kubernetes_minor(),
                row.kubernetes_minor,
                "{}",
                row.name()
            );
        }
    }

    /// An AllNamespaces operator whose CRD is `apiextensions.k8s.io/v1beta1`, with the
    /// fields only v1beta1 has.
    fn v1beta1_bundle() -> RegistryV1 {
        let mut b = all_namespaces_bundle();
        b.crds.push(json!({
            "apiVersion": "apiextensions.k8s.io/v1beta1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": "listers.example.com"},
            "spec": {
                "group": "example.com",
                "version": "v1",
                "preserveUnknownFields": false,
                "names": {"kind": "Lister", "plural": "listers"},
                "scope": "Namespaced",
                "validation": {"openAPIV3Schema": {"type": "object"}},
                "versions": [{"name": "v1", "served": true, "storage": true}]
            }
        }));
        b.csv["spec"]["customresourcedefinitions"] =
            json!({"owned": [{"name": "listers.example.com", "version": "v1", "kind": "Lister"}]});
        b
    }

    /// release-4.19 `rukpak/convert/registryv1.go` and release-4.20 on
    /// `rukpak/bundle/source/source.go`: `case "CustomResourceDefinition"` decodes into
    /// `apiextensionsv1.CustomResourceDefinition` whatever the apiVersion, so `spec.version`,
    /// `spec.validation` and `preserveUnknownFields: false` are gone; release-4.18's
    /// converter keeps CRDs unstructured.
    #[test]
    fn a_v1beta1_crd_loses_what_apiextensions_v1_lacks() {
        for (v, fs) in [
            ("4.19", None),
            ("4.20", None),
            ("4.20", Some("TechPreviewNoUpgrade")),
            ("4.22", None),
            ("5.1", Some("TechPreviewNoUpgrade")),
        ] {
            let o = convert(&v1beta1_bundle(), &options(v, fs, "lister-system", &[])).unwrap();
            let crd = find(&o, "CustomResourceDefinition")[0];
            assert_eq!(crd["apiVersion"], "apiextensions.k8s.io/v1beta1", "{v}");
            let spec = crd["spec"].as_object().unwrap();
            for gone in ["version", "preserveUnknownFields", "validation"] {
                assert!(!spec.contains_key(gone), "{v} {fs:?}: {gone}");
            }
            assert_eq!(spec["versions"][0]["name"], "v1", "{v}");
            // The same from a bundle handed over by value.
            let owned =
                convert_owned(v1beta1_bundle(), &options(v, fs, "lister-system", &[])).unwrap();
            assert_eq!(owned, o, "{v}");
        }
        let o = convert(
            &v1beta1_bundle(),
            &options("4.18", None, "lister-system", &[]),
        )
        .unwrap();
        assert_eq!(
            find(&o, "CustomResourceDefinition")[0],
            &v1beta1_bundle().crds[0]
        );
    }
}
