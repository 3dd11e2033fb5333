use super::*;
use crate::bundle::RegistryV1;
use serde_json::json;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn realdata(test: &str) -> Option<PathBuf> {
    crate::catalog::tests::realdata(test)
}

fn opts(install: &str, targets: &[&str]) -> Options {
    Options {
        install_namespace: install.into(),
        target_namespaces: targets.iter().map(|s| s.to_string()).collect(),
        ..Options::default()
    }
}

/// Drop what Go's encoder adds or what differs only in spelling: `null`s, empty `{}`/`[]`,
/// `metadata.creationTimestamp` and top-level `status`.
fn normalize(v: &Value) -> Option<Value> {
    match v {
        Value::Null => None,
        Value::Object(m) => {
            let out: Map<String, Value> = m
                .iter()
                .filter(|(k, _)| k.as_str() != "creationTimestamp")
                .filter_map(|(k, v)| normalize(v).map(|v| (k.clone(), v)))
                .collect();
            (!out.is_empty()).then_some(Value::Object(out))
        }
        Value::Array(a) => {
            let out: Vec<Value> = a.iter().filter_map(normalize).collect();
            (!out.is_empty()).then_some(Value::Array(out))
        }
        v => Some(v.clone()),
    }
}

fn normalize_object(v: &Value) -> Value {
    let mut v = v.clone();
    if let Value::Object(m) = &mut v {
        m.remove("status");
    }
    normalize(&v).unwrap_or(Value::Null)
}

fn read_yaml(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap();
    let mut docs = crate::bundle::decode_documents(&text).unwrap();
    assert_eq!(docs.len(), 1, "{}", path.display());
    docs.remove(0)
}

/// First differing path between two values, for readable failures.
fn first_diff(a: &Value, b: &Value, path: &str) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for k in x.keys().chain(y.keys().filter(|k| !x.contains_key(*k))) {
                let p = format!("{path}.{k}");
                match (x.get(k), y.get(k)) {
                    (Some(u), Some(v)) => {
                        if let Some(d) = first_diff(u, v, &p) {
                            return Some(d);
                        }
                    }
                    (u, v) => return Some(format!("{p}: ours {u:?} vs expected {v:?}")),
                }
            }
            None
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (u, v))| first_diff(u, v, &format!("{path}[{i}]"))),
        (x, y) if x == y => None,
        (x, y) => Some(format!("{path}: ours {x} vs expected {y}")),
    }
}

fn with_deploymentconfig_options() -> DeploymentConfig {
    // The values of upstream's generate-manifests.go "WithDeploymentConfigOptions" case.
    DeploymentConfig::from_value(&json!({
        "nodeSelector": {"kubernetes.io/os": "linux"},
        "tolerations": [
            {"key": "some/key", "operator": "Equal", "effect": "NoSchedule"},
            {"key": "someother/key", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 120}
        ],
        "resources": {
            "requests": {"cpu": "100m", "memory": "128Mi"},
            "limits": {"cpu": "500m", "memory": "512Mi"}
        },
        "env": [
            {"name": "CUSTOM_ENV_VAR", "value": "custom-value"},
            {"name": "LOG_LEVEL", "value": "debug"}
        ],
        "envFrom": [
            {"prefix": "test"},
            {"configMapRef": {"name": "configmapForTest"}},
            {"secretRef": {"name": "secretForTest"}}
        ],
        "volumes": [
            {"name": "test-configmap-volume", "configMap": {"name": "testVolumeConfigMap"}},
            {"name": "test-emptydir-volume", "emptyDir": {}}
        ],
        "volumeMounts": [
            {"name": "test-configmap-volume", "mountPath": "/test-volume-mount", "readOnly": true}
        ],
        "affinity": {
            "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{
                "matchExpressions": [{"key": "kubernetes.io/os", "operator": "In", "values": ["linux"]}],
                "matchFields": [{"key": "key", "operator": "In", "values": ["val1", "val2"]}]
            }]}},
            "podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{
                "labelSelector": {"matchLabels": {"app.kubernetes.io/name": "test-app"}},
                "topologyKey": "topKey",
                "namespaces": ["test", "test2"]
            }]},
            "podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{
                "weight": 100,
                "podAffinityTerm": {
                    "labelSelector": {"matchLabels": {"app.kubernetes.io/name": "test-app-2"}},
                    "topologyKey": "topKey2"
                }
            }]}
        },
        "annotations": {"foo": "bar", "testkey": "testval"}
    }))
    .unwrap()
}

/// Upstream's regression cases that need no certificate provider, object for object.
mod regression {
    use super::*;

    fn check_case(case: &str, options: Options) {
        check_bundle_case("argocd-operator.v0.6.0", case, options);
    }

    /// The fixtures come from upstream main, whose Deployments carry `olm.operatorNamespace`
    /// (operator-framework/operator-controller#2803); no OpenShift release branch has it, so
    /// it is dropped from the expectation.
    fn without_operator_namespace(mut v: Value) -> Value {
        if v["kind"] == "Deployment"
            && let Some(a) = v
                .pointer_mut("/spec/template/metadata/annotations")
                .and_then(Value::as_object_mut)
        {
            a.shift_remove("olm.operatorNamespace");
        }
        v
    }

    fn check_bundle_case(bundle_name: &str, case: &str, options: Options) {
        let Some(root) = realdata("check_bundle_case") else {
            return;
        };
        let base = root.join("olmv1-convert-regression");
        let bundle = RegistryV1::from_dir(&base.join("bundles").join(bundle_name)).unwrap();
        let objects = convert(&bundle, &options).unwrap();
        // A bundle handed over by value (its CRDs moved, not copied) converts the same.
        let text = |objs: &[Value]| serde_json::to_string(objs).unwrap();
        assert_eq!(
            text(&convert_owned(bundle.clone(), &options).unwrap()),
            text(&objects)
        );

        let dir = base.join("expected-manifests").join(bundle_name).join(case);
        let all_ns = base.join("expected-manifests/argocd-operator.v0.6.0/all-namespaces");
        let mut expected: BTreeMap<String, PathBuf> = BTreeMap::new();
        for e in std::fs::read_dir(&dir).unwrap() {
            let e = e.unwrap();
            expected.insert(e.file_name().to_string_lossy().into_owned(), e.path());
        }
        // CRD files were left out of every case but all-namespaces; they are identical there.
        let crd_files: BTreeMap<String, PathBuf> = std::fs::read_dir(&all_ns)
            .unwrap()
            .map(|e| e.unwrap())
            .filter_map(|e| {
                let n = e.file_name().to_string_lossy().into_owned();
                let (_, rest) = n.split_once('_')?;
                rest.starts_with("customresourcedefinition_")
                    .then(|| (rest.to_owned(), e.path()))
            })
            .collect();

        let mut matched = 0;
        let mut failures = Vec::new();
        for (i, obj) in objects.iter().enumerate() {
            let file = object_file_name(i, obj);
            let path = match expected.get(&file) {
                Some(p) => {
                    matched += 1;
                    p.clone()
                }
                None if obj["kind"] == "CustomResourceDefinition" && case != "all-namespaces" => {
                    let rest = file.split_once('_').unwrap().1;
                    match crd_files.get(rest) {
                        Some(p) => p.clone(),
                        None => {
                            failures.push(format!("{file}: no expected CRD file"));
                            continue;
                        }
                    }
                }
                None => {
                    failures.push(format!("{file}: not among the expected files"));
                    continue;
                }
            };
            let want = normalize_object(&without_operator_namespace(read_yaml(&path)));
            let got = normalize_object(obj);
            if let Some(d) = first_diff(&got, &want, "") {
                failures.push(format!("{file}: {d}"));
            }
        }
        if matched != expected.len() {
            failures.push(format!(
                "matched {matched} of {} expected files: {:?} vs ours {:?}",
                expected.len(),
                expected.keys().collect::<Vec<_>>(),
                objects
                    .iter()
                    .enumerate()
                    .map(|(i, o)| object_file_name(i, o))
                    .collect::<Vec<_>>()
            ));
        }
        assert!(failures.is_empty(), "{case}:\n{}", failures.join("\n"));
    }

    #[test]
    fn all_namespaces() {
        check_case("all-namespaces", opts("argocd-system", &[]));
    }

    #[test]
    fn single_namespace() {
        check_case("single-namespace", opts("argocd-system", &["argocd-watch"]));
    }

    #[test]
    fn own_namespace() {
        check_case("own-namespace", opts("argocd-system", &["argocd-system"]));
    }

    #[test]
    fn with_deploymentconfig_options() {
        let mut o = opts("argocd-system", &[""]);
        o.deployment_config = Some(super::with_deploymentconfig_options());
        check_case("with-deploymentconfig-options", o);
    }

    #[test]
    fn with_empty_affinity() {
        let mut o = opts("argocd-system", &[]);
        o.deployment_config = Some(DeploymentConfig {
            affinity: Some(Affinity::default()),
            ..Default::default()
        });
        check_case("with-empty-affinity", o);
    }

    #[test]
    fn with_empty_affinity_subtype() {
        let mut o = opts("argocd-system", &[]);
        o.deployment_config = Some(DeploymentConfig {
            affinity: Some(Affinity {
                node_affinity: Some(json!({})),
                ..Default::default()
            }),
            ..Default::default()
        });
        check_case("with-empty-affinity-subtype", o);
    }

    /// Upstream's `all-webhook-types` case renders without a certificate provider.
    #[test]
    fn all_webhook_types() {
        let mut o = opts("webhook-system", &[]);
        o.cert_provider = Some(CertProvider::Unprovisioned);
        check_bundle_case("webhook-operator.v0.0.5", "all-webhook-types", o);
    }

    /// The release-4.23, release-5.0 and release-5.1 branches of
    /// openshift/operator-framework-operator-controller hold the same
    /// `test/regression/convert/testdata` tree as release-4.22 (git tree `a981ee67`), which is
    /// the realdata copy without the `olm.operatorNamespace` pod annotation (upstream main's):
    /// each case, rendered with the options each release's table row gives.
    #[test]
    fn each_release_after_4_22_matches_its_branch_expectations() {
        use crate::openshift::{ClusterVersion, Target};
        for v in ["4.23", "5.0", "5.1"] {
            let olm = Target::new(
                &ClusterVersion::parse(v).unwrap(),
                Some("TechPreviewNoUpgrade"),
                &[],
            )
            .unwrap()
            .olm_v1()
            .unwrap();
            assert!(olm.deployment_config && olm.own_single_namespace, "{v}");
            let with = |targets: &[&str]| {
                let mut o = Options::for_olm_v1(&olm, "argocd-system");
                o.target_namespaces = targets.iter().map(|t| t.to_string()).collect();
                o
            };
            check_case("all-namespaces", with(&[]));
            check_case("single-namespace", with(&["argocd-watch"]));
            check_case("own-namespace", with(&["argocd-system"]));
            let mut o = with(&[""]);
            o.deployment_config = Some(super::with_deploymentconfig_options());
            check_case("with-deploymentconfig-options", o);
            let mut o = Options::for_olm_v1(&olm, "webhook-system");
            o.cert_provider = Some(CertProvider::Unprovisioned);
            check_bundle_case("webhook-operator.v0.0.5", "all-webhook-types", o);
        }
    }

    #[test]
    fn all_webhook_types_is_refused_without_a_provider() {
        let Some(root) = realdata("all_webhook_types_is_refused_without_a_provider") else {
            return;
        };
        let dir = root.join("olmv1-convert-regression/bundles/webhook-operator.v0.0.5");
        let bundle = RegistryV1::from_dir(&dir).unwrap();
        let err = convert(&bundle, &opts("webhook-system", &[])).unwrap_err();
        let Error::WebhooksUnsupported { csv, webhooks, .. } = &err else {
            panic!("unexpected {err}");
        };
        assert_eq!(csv, "webhook-operator.v0.0.5");
        let kinds: BTreeSet<_> = webhooks.iter().map(|(k, _)| k.clone()).collect();
        assert_eq!(
            kinds,
            [
                WebhookType::Conversion,
                WebhookType::Mutating,
                WebhookType::Validating
            ]
            .into()
        );
        let msg = err.to_string();
        assert!(
            msg.contains("webhookDefinitions are not supported"),
            "{msg}"
        );
        assert!(
            msg.contains("ValidatingAdmissionWebhook \"vwebhooktest-v1.kb.io\""),
            "{msg}"
        );
        assert!(
            msg.contains("on 4.21 or later, or 4.20 with TechPreviewNoUpgrade"),
            "{msg}"
        );
    }

    /// Reference §5.1 test vectors for the hashed names.
    #[test]
    fn hash_name_vectors() {
        let Some(root) = realdata("hash_name_vectors") else {
            return;
        };
        let dir = root.join("olmv1-convert-regression/bundles/argocd-operator.v0.6.0");
        let bundle = RegistryV1::from_dir(&dir).unwrap();
        let csv = bundle.csv_name().unwrap();
        let cluster = &bundle.cluster_permissions().unwrap()[0];
        assert_eq!(
            naming::rbac_object_name(csv, cluster),
            "argocd-operator.v0-1dhiybrldl1gyksid1dk2dqjsc72psdybc7iyvse5gpx"
        );
        let mut perm = bundle.permissions().unwrap()[0].clone();
        assert_eq!(
            naming::rbac_object_name(csv, &perm),
            "argocd-operator.v0-22gmilmgp91wu25is5i2ec598hni8owq3l71bbkl7iz3"
        );
        perm.rules.get_or_insert_with(Vec::new).push(PolicyRule {
            verbs: Some(vec!["get".into(), "list".into(), "watch".into()]),
            api_groups: Some(vec![String::new()]),
            resources: Some(vec!["namespaces".into()]),
            ..Default::default()
        });
        assert_eq!(
            naming::rbac_object_name(csv, &perm),
            "argocd-operator.v0.-3gkm3u8zfarktdile5wekso69zs9bgzb988mhjm0y6p"
        );
    }
}

/// Every platform bundle converts in AllNamespaces mode or is refused for the right reason.
mod platform_bundles {
    use super::*;

    #[derive(Debug)]
    enum Verdict {
        Converts,
        Webhooks,
        InstallModes(&'static [InstallModeType]),
    }
    use InstallModeType::*;
    use Verdict::*;

    #[test]
    fn table() {
        let Some(root) = realdata("table") else {
            return;
        };
        let cases: &[(&str, Verdict)] = &[
            ("authorino-operator/0.13.0", Webhooks),
            ("cert-manager/1.16.5", Webhooks),
            ("dns-operator/0.6.0", Converts),
            ("external-dns-operator/1.3.8", Webhooks),
            ("kuadrant-operator/0.11.1", Converts),
            ("limitador-operator/0.11.0", Converts),
            ("nfd/5.0.0", InstallModes(&[OwnNamespace, SingleNamespace])),
            ("node-healthcheck-operator/0.12.0", Webhooks),
            ("node-healthcheck-operator/0.8.0", Webhooks),
            ("self-node-remediation/0.13.0", Webhooks),
        ];
        let mut failures = Vec::new();
        for (dir, verdict) in cases {
            let bundle = RegistryV1::from_dir(&root.join("platform-bundles").join(dir)).unwrap();
            let got = convert(&bundle, &opts("operators", &[]));
            let ok = match (verdict, &got) {
                (Converts, Ok(objs)) => {
                    objs.iter().any(|o| o["kind"] == "Deployment")
                        && objs.iter().all(|o| o["kind"] != "Role")
                }
                (Webhooks, Err(Error::WebhooksUnsupported { .. })) => true,
                (
                    InstallModes(modes),
                    Err(Error::TargetNamespaces {
                        supported,
                        problem: TargetNamespacesProblem::AllNamespaces,
                        ..
                    }),
                ) => supported.as_slice() == *modes,
                _ => false,
            };
            if !ok {
                failures.push(format!(
                    "{dir}: expected {verdict:?}, got {:?}",
                    got.map(|o| o.len()).map_err(|e| e.to_string())
                ));
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    #[test]
    fn nfd_message_names_the_supported_modes() {
        let Some(root) = realdata("nfd_message_names_the_supported_modes") else {
            return;
        };
        let bundle = RegistryV1::from_dir(&root.join("platform-bundles/nfd/5.0.0")).unwrap();
        let err = convert(&bundle, &opts("openshift-nfd", &[])).unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.ends_with(
                "invalid target namespaces []: supported install modes [OwnNamespace SingleNamespace] do not support targeting all namespaces"
            ),
            "{msg}"
        );
        // OwnNamespace works: Roles in the install namespace, no namespaces rule.
        let objs = convert(&bundle, &opts("openshift-nfd", &["openshift-nfd"])).unwrap();
        assert!(objs.iter().any(|o| {
            o["kind"] == "Role"
                && o["metadata"]["namespace"] == "openshift-nfd"
                && o["metadata"]["name"]
                    .as_str()
                    .unwrap()
                    .starts_with("nfd.v5.0.0-")
        }));
    }

    #[test]
    fn output_is_deterministic_and_sorted() {
        let Some(root) = realdata("output_is_deterministic_and_sorted") else {
            return;
        };
        let bundle =
            RegistryV1::from_dir(&root.join("platform-bundles/kuadrant-operator/0.11.1")).unwrap();
        let a = convert(&bundle, &opts("kuadrant-system", &[])).unwrap();
        let b = convert(&bundle, &opts("kuadrant-system", &[""])).unwrap();
        assert_eq!(a, b);
        let keys: Vec<_> = a.iter().map(sort_key).collect();
        let mut sorted = keys.clone();
        sorted.sort();
        assert_eq!(keys, sorted);
    }
}

/// Small hand-written bundles for the rules the real data does not reach.
mod fixtures {
    use super::*;

    fn csv(modes: &[&str], extra_spec: Value) -> Value {
        let mut spec = json!({
            "installModes": (["AllNamespaces", "MultiNamespace", "OwnNamespace", "SingleNamespace"]
                .iter()
                .map(|m| json!({"type": m, "supported": modes.contains(m)}))
                .collect::<Vec<_>>()),
            "install": {"strategy": "deployment", "spec": {
                "permissions": [{"serviceAccountName": "op", "rules": [
                    {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get"]}
                ]}],
                "clusterPermissions": [{"serviceAccountName": "", "rules": [
                    {"nonResourceURLs": ["/metrics"], "verbs": ["get"]}
                ]}],
                "deployments": [{"name": "op", "label": {"app": "op"}, "spec": {
                    "selector": {"matchLabels": {"app": "op"}},
                    "template": {
                        "metadata": {"annotations": {"own": "template", "shared": "template"}},
                        "spec": {
                            "serviceAccountName": "op",
                            "affinity": {"nodeAffinity": {"x": 1}, "podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{"topologyKey": "k"}]}},
                            "containers": [{"name": "c", "image": "img",
                                "env": [{"name": "A", "value": "1"}],
                                "volumeMounts": [{"name": "v", "mountPath": "/old"}]}],
                            "volumes": [{"name": "v", "emptyDir": {}}],
                            "tolerations": [{"key": "k", "operator": "Exists"}]
                        }
                    }
                }}]
            }}
        });
        if let (Value::Object(s), Value::Object(e)) = (&mut spec, extra_spec) {
            s.extend(e);
        }
        json!({
            "apiVersion": "operators.coreos.com/v1alpha1",
            "kind": "ClusterServiceVersion",
            "metadata": {"name": "demo.v1.0.0", "annotations": {"shared": "csv", "csv-only": "x"}},
            "spec": spec,
        })
    }

    fn bundle(modes: &[&str], extra_spec: Value, others: Vec<Value>) -> RegistryV1 {
        let mut objects = vec![csv(modes, extra_spec)];
        objects.extend(others);
        RegistryV1::from_objects("demo", objects).unwrap()
    }

    fn find<'a>(objs: &'a [Value], kind: &str) -> Vec<&'a Value> {
        objs.iter().filter(|o| o["kind"] == kind).collect()
    }

    #[test]
    fn all_namespaces_promotes_permissions() {
        let b = bundle(&["AllNamespaces"], json!({}), vec![]);
        let objs = convert(&b, &opts("ns", &[])).unwrap();
        assert!(find(&objs, "Role").is_empty());
        let crs = find(&objs, "ClusterRole");
        assert_eq!(crs.len(), 2);
        let promoted = crs
            .iter()
            .find(|o| {
                o["metadata"]["name"]
                    .as_str()
                    .unwrap()
                    .starts_with("demo.v1.0.0-op-")
            })
            .unwrap();
        assert_eq!(
            promoted["rules"][1],
            json!({"verbs": ["get", "list", "watch"], "apiGroups": [""], "resources": ["namespaces"]})
        );
        // The clusterPermission with no service account binds `default`, which is not created.
        let sas = find(&objs, "ServiceAccount");
        assert_eq!(sas.len(), 1);
        assert_eq!(sas[0]["metadata"], json!({"name": "op", "namespace": "ns"}));
        let default_binding = find(&objs, "ClusterRoleBinding")
            .into_iter()
            .find(|o| o["subjects"][0]["name"] == "default")
            .unwrap();
        assert!(
            default_binding["metadata"]["name"]
                .as_str()
                .unwrap()
                .starts_with("demo.v1.0.0-default-")
        );
    }

    #[test]
    fn multi_namespace_renders_roles_per_namespace() {
        let b = bundle(&["MultiNamespace", "OwnNamespace"], json!({}), vec![]);
        let objs = convert(&b, &opts("ns", &["b", "a", "ns", "a"])).unwrap();
        let roles: Vec<_> = find(&objs, "Role")
            .iter()
            .map(|o| o["metadata"]["namespace"].clone())
            .collect();
        assert_eq!(roles, vec![json!("a"), json!("b"), json!("ns")]);
        let rb = find(&objs, "RoleBinding")[0];
        assert_eq!(
            rb["subjects"][0],
            json!({"kind": "ServiceAccount", "name": "op", "namespace": "ns"})
        );
        assert_eq!(rb["roleRef"]["name"], rb["metadata"]["name"]);
        let dep = find(&objs, "Deployment")[0];
        assert_eq!(
            dep["spec"]["template"]["metadata"]["annotations"]["olm.targetNamespaces"],
            "b,a,ns"
        );
    }

    #[test]
    fn target_namespace_rules() {
        use TargetNamespacesProblem as P;
        let cases: &[(&[&str], &[&str], Option<P>)] = &[
            (&["AllNamespaces"], &[], None),
            (&["AllNamespaces"], &["ns"], Some(P::OwnNamespace)),
            (&["AllNamespaces"], &["other"], Some(P::Other)),
            (&["OwnNamespace"], &["ns"], None),
            (&["OwnNamespace"], &[""], Some(P::AllNamespaces)),
            (&["SingleNamespace"], &["other"], None),
            (&["SingleNamespace"], &["ns"], Some(P::OwnNamespace)),
            (&["MultiNamespace", "SingleNamespace"], &["a", "b"], None),
            (
                &["MultiNamespace", "SingleNamespace"],
                &["a", "ns"],
                Some(P::OwnNamespace),
            ),
            (
                &["MultiNamespace", "OwnNamespace"],
                &["a", ""],
                Some(P::Other),
            ),
            (&["SingleNamespace"], &["a", "b"], Some(P::Other)),
        ];
        for (modes, targets, want) in cases {
            let b = bundle(modes, json!({}), vec![]);
            let got = convert(&b, &opts("ns", targets));
            match (want, got) {
                (None, Ok(_)) => {}
                (Some(p), Err(Error::TargetNamespaces { problem, .. })) if problem == *p => {}
                (want, got) => panic!(
                    "{modes:?} {targets:?}: want {want:?}, got {:?}",
                    got.map(|_| ()).map_err(|e| e.to_string())
                ),
            }
        }
        let b = bundle(&["MultiNamespace"], json!({}), vec![]);
        assert!(matches!(
            convert(&b, &opts("ns", &[])),
            Err(Error::NoUsableInstallMode { .. })
        ));
        let b = bundle(&["AllNamespaces"], json!({}), vec![]);
        assert!(matches!(
            convert(&b, &opts("", &[])),
            Err(Error::NoInstallNamespace { .. })
        ));
    }

    #[test]
    fn refusals() {
        let b = bundle(
            &["AllNamespaces"],
            json!({"apiservicedefinitions": {"owned": [{"name": "v1.metrics.example.com"}]}}),
            vec![],
        );
        let err = convert(&b, &opts("ns", &[])).unwrap_err();
        assert!(
            matches!(&err, Error::ApiServicesUnsupported { api_services, .. } if api_services == &["v1.metrics.example.com"]),
            "{err}"
        );

        let b = bundle(
            &["AllNamespaces"],
            json!({}),
            vec![json!({"kind": "Pod", "metadata": {"name": "p"}})],
        );
        let err = convert(&b, &opts("ns", &[])).unwrap_err();
        assert_eq!(
            err.to_string(),
            "bundle \"demo.v1.0.0\" is invalid:\n  - bundle contains unsupported resource: Name: p, Kind: Pod"
        );
    }

    #[test]
    fn validators_collect_everything() {
        let extra = json!({
            "customresourcedefinitions": {"owned": [{"name": "missing.example.com"}, {"name": "as.example.com"}]},
            "webhookdefinitions": [
                {"type": "ConversionWebhook", "generateName": "conv", "deploymentName": "op", "conversionCRDs": ["as.example.com", "other.example.com"]},
                {"type": "ConversionWebhook", "generateName": "conv2", "deploymentName": "op", "conversionCRDs": ["as.example.com"]},
                {"type": "ValidatingAdmissionWebhook", "generateName": "Bad_Name", "deploymentName": "nope",
                 "rules": [{"apiGroups": ["*", "admissionregistration.k8s.io"], "resources": ["ValidatingWebhookConfigurations"]}]},
                {"type": "ValidatingAdmissionWebhook", "generateName": "Bad_Name", "deploymentName": "op"}
            ]
        });
        let mut c = csv(&["AllNamespaces", "OwnNamespace"], extra);
        let deps = c["spec"]["install"]["spec"]["deployments"]
            .as_array()
            .unwrap()
            .clone();
        let mut dup = deps[0].clone();
        dup["name"] = json!("op");
        let mut upper = deps[0].clone();
        upper["name"] = json!("Op");
        c["spec"]["install"]["spec"]["deployments"] = json!([deps[0], dup, upper]);
        let crd = |n: &str| json!({"kind": "CustomResourceDefinition", "metadata": {"name": n}});
        let b = RegistryV1 {
            package: String::new(),
            csv: c,
            crds: vec![crd("as.example.com"), crd("as.example.com")],
            others: vec![json!({"kind": "Deployment", "metadata": {"name": "d"}})],
        };
        let messages: Vec<String> = validate(&b)
            .unwrap()
            .iter()
            .map(ToString::to_string)
            .collect();
        let dns = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
        assert_eq!(messages, vec![
            "cluster service version contains duplicate strategy deployment spec 'op'".to_owned(),
            format!("invalid cluster service version strategy deployment name 'Op': {dns}"),
            "bundle contains duplicate custom resource definition 'as.example.com'".to_owned(),
            "cluster service definition references owned custom resource definition 'missing.example.com' not found in bundle".to_owned(),
            "package name is empty".to_owned(),
            "bundle contains conversion webhook \"conv\" and supports install modes [AllNamespaces OwnNamespace] - conversion webhooks are only supported for bundles that only support AllNamespaces install mode".to_owned(),
            "bundle contains conversion webhook \"conv2\" and supports install modes [AllNamespaces OwnNamespace] - conversion webhooks are only supported for bundles that only support AllNamespaces install mode".to_owned(),
            "webhook of type 'ValidatingAdmissionWebhook' with name 'Bad_Name' references non-existent deployment 'nope'".to_owned(),
            "duplicate webhook 'Bad_Name' of type 'ValidatingAdmissionWebhook'".to_owned(),
            format!("webhook of type 'ValidatingAdmissionWebhook' has invalid name 'Bad_Name': {dns}"),
            "conversion webhooks [conv,conv2] reference same custom resource definition 'as.example.com'".to_owned(),
            "conversion webhook 'conv' references custom resource definition 'other.example.com' not owned bundle".to_owned(),
            "webhook \"Bad_Name\" contains forbidden rule: admission webhook rules cannot reference API group \"*\"".to_owned(),
            "webhook \"Bad_Name\" contains forbidden rule: admission webhook rules cannot reference resource \"ValidatingWebhookConfigurations\" for API group \"admissionregistration.k8s.io\"".to_owned(),
            "bundle contains unsupported resource: Name: d, Kind: Deployment".to_owned(),
        ]);
    }

    #[test]
    fn deployment_annotations_and_config_semantics() {
        let others = vec![
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm", "namespace": "elsewhere"}}),
            json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": "cr"}}),
        ];
        let b = bundle(&["AllNamespaces"], json!({}), others);
        let config = DeploymentConfig::from_value(&json!({
            "env": [{"name": "A", "value": "2"}, {"name": "B", "value": "3"}],
            "envFrom": [{"prefix": "p"}, {"prefix": "p"}],
            "volumes": [{"name": "v", "configMap": {"name": "c"}}, {"name": "w", "emptyDir": {}}],
            "volumeMounts": [{"name": "v", "mountPath": "/new"}],
            "tolerations": [{"key": "k", "operator": "Exists"}, {"key": "k2", "operator": "Exists"}],
            "resources": {},
            "nodeSelector": {},
            "affinity": {"nodeAffinity": {}, "podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1}]}},
            "annotations": {"own": "config", "added": "config"}
        }))
        .unwrap();
        let mut o = opts("ns", &[]);
        o.deployment_config = Some(config);
        let objs = convert(&b, &o).unwrap();
        let cm = find(&objs, "ConfigMap")[0];
        assert_eq!(cm["metadata"]["namespace"], "ns");
        assert!(
            find(&objs, "ClusterRole")
                .iter()
                .any(|c| c["metadata"] == json!({"name": "cr"}))
        );

        let dep = find(&objs, "Deployment")[0];
        assert_eq!(
            dep["metadata"],
            json!({"name": "op", "namespace": "ns", "labels": {"app": "op"}, "annotations": {"added": "config", "own": "config"}})
        );
        assert_eq!(dep["spec"]["revisionHistoryLimit"], 1);
        let tpl = &dep["spec"]["template"];
        assert_eq!(
            tpl["metadata"]["annotations"],
            json!({
                "added": "config", "csv-only": "x", "olm.targetNamespaces": "",
                "own": "template", "shared": "template"
            })
        );
        let pod = &tpl["spec"];
        let c = &pod["containers"][0];
        assert_eq!(
            c["env"],
            json!([{"name": "A", "value": "2"}, {"name": "B", "value": "3"}])
        );
        assert_eq!(c["envFrom"], json!([{"prefix": "p"}]));
        assert_eq!(
            c["volumeMounts"],
            json!([{"name": "v", "mountPath": "/new"}])
        );
        assert_eq!(c["resources"], json!({}));
        assert_eq!(
            pod["volumes"],
            json!([{"name": "v", "configMap": {"name": "c"}}, {"name": "w", "emptyDir": {}}])
        );
        assert_eq!(
            pod["tolerations"],
            json!([{"key": "k", "operator": "Exists"}, {"key": "k2", "operator": "Exists"}])
        );
        assert!(pod.get("nodeSelector").is_none());
        assert_eq!(
            pod["affinity"],
            json!({
                "podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{"topologyKey": "k"}]},
                // `WeightedPodAffinityTerm.PodAffinityTerm` is a non-pointer struct whose
                // `topologyKey` has no omitempty: Go's typed round trip writes it.
                "podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1, "podAffinityTerm": {"topologyKey": ""}}]}
            })
        );
    }

    #[test]
    fn malformed_inputs_are_errors() {
        let mut c = csv(&["AllNamespaces"], json!({}));
        c["spec"]["install"]["spec"]["deployments"][0]["spec"]["template"] = json!("nope");
        let b = RegistryV1::from_objects("demo", vec![c]).unwrap();
        let err = convert(&b, &opts("ns", &[])).unwrap_err();
        assert_eq!(
            err.to_string(),
            "bundle \"demo.v1.0.0\": deployment \"op\": field spec.template must be a mapping, found string"
        );

        let mut c = csv(&["AllNamespaces"], json!({}));
        c["spec"]["install"]["spec"]["permissions"] = json!({"not": "a list"});
        let b = RegistryV1::from_objects("demo", vec![c]).unwrap();
        assert!(matches!(
            convert(&b, &opts("ns", &[])),
            Err(Error::Bundle(_))
        ));

        let b = RegistryV1::from_objects("demo", vec![json!({"kind": "ClusterServiceVersion"})])
            .unwrap();
        assert!(matches!(
            convert(&b, &opts("ns", &[])),
            Err(Error::Bundle(_))
        ));

        assert!(DeploymentConfig::from_value(&json!({"nodeSelector": {"a": 1}})).is_err());
        assert!(DeploymentConfig::from_value(&json!({"unknown": 1})).is_err());
    }

    #[test]
    fn file_names() {
        let obj = json!({"kind": "ClusterRoleBinding", "metadata": {"name": "x.v1-abc"}});
        assert_eq!(
            object_file_name(3, &obj),
            "03_clusterrolebinding_x.v1-abc.yaml"
        );
        assert_eq!(
            object_file_name(123, &obj),
            "123_clusterrolebinding_x.v1-abc.yaml"
        );
        assert_eq!(object_file_name(0, &json!({})), "00__.yaml");
    }
}

/// Timing, not correctness: `cargo test --release --lib measure -- --ignored --nocapture`.
mod measure {
    use super::*;
    use std::time::{Duration, Instant};

    fn run(set: &str, dirs: &[PathBuf]) {
        let bundles: Vec<RegistryV1> = dirs
            .iter()
            .filter_map(|d| RegistryV1::from_dir(d).ok())
            .collect();
        let bytes: u64 = dirs
            .iter()
            .flat_map(|d| std::fs::read_dir(d.join("manifests")).into_iter().flatten())
            .filter_map(|e| e.ok()?.metadata().ok())
            .map(|m| m.len())
            .sum();
        let rounds = 20;
        // Decode + parse: read every manifest file and turn it into JSON values.
        let start = Instant::now();
        for _ in 0..rounds {
            for d in dirs {
                let _ = std::hint::black_box(RegistryV1::from_dir(d));
            }
        }
        let load = start.elapsed() / rounds;
        let mut converted = 0;
        let mut objects = 0;
        let start = Instant::now();
        for _ in 0..rounds {
            for b in &bundles {
                let ns = b.package.clone() + "-system";
                // AllNamespaces, else the bundle's own namespace mode.
                let r = convert(b, &opts(&ns, &[])).or_else(|_| convert(b, &opts(&ns, &[&ns])));
                if let Ok(objs) = std::hint::black_box(r) {
                    converted += 1;
                    objects += objs.len();
                }
            }
        }
        let conv = start.elapsed() / rounds;
        let per = |d: Duration| d / bundles.len().max(1) as u32;
        eprintln!(
            "{set}: {} dirs, {} loadable, {:.1} MB manifests; load (read+decode+parse) {:?} per set ({:?}/bundle); convert {:?} per set ({:?}/bundle), {} converted, {} objects per round",
            dirs.len(),
            bundles.len(),
            bytes as f64 / 1e6,
            load,
            per(load),
            conv,
            per(conv),
            converted / rounds as usize,
            objects / rounds as usize,
        );
    }

    fn subdirs(root: &Path, depth: usize) -> Vec<PathBuf> {
        let mut out = Vec::new();
        let mut stack = vec![(root.to_owned(), 0)];
        while let Some((d, n)) = stack.pop() {
            if n == depth {
                out.push(d);
                continue;
            }
            for e in std::fs::read_dir(&d).unwrap().flatten() {
                if e.path().is_dir() {
                    stack.push((e.path(), n + 1));
                }
            }
        }
        out.sort();
        out
    }

    #[test]
    #[ignore = "timing; run in release with --ignored --nocapture"]
    fn measure() {
        let Some(root) = realdata("measure") else {
            return;
        };
        run(
            "operator-registry-bundles",
            &subdirs(&root.join("operator-registry-bundles"), 1),
        );
        run(
            "platform-bundles",
            &subdirs(&root.join("platform-bundles"), 2),
        );
        run(
            "olmv1-e2e-test-catalog/bundles",
            &subdirs(&root.join("olmv1-e2e-test-catalog/bundles"), 2),
        );
        run(
            "olmv1-convert-regression/bundles",
            &subdirs(&root.join("olmv1-convert-regression/bundles"), 1),
        );
    }
}
/// The old operator-registry test bundles declare no install modes at all.
#[test]
fn operator_registry_bundles_have_no_install_mode() {
    let Some(root) = realdata("operator_registry_bundles_have_no_install_mode") else {
        return;
    };
    let b = RegistryV1::from_dir(&root.join("operator-registry-bundles/etcd.0.9.2")).unwrap();
    let err = convert(&b, &opts("etcd", &[])).unwrap_err();
    assert!(
        matches!(&err, Error::NoUsableInstallMode { supported, .. } if supported.is_empty()),
        "{err}"
    );
}
