//! The readiness rules end to end on bundles of our own (`testdata/bootstrap/`): the bundle is
//! converted and rendered exactly as `create` does, then checked. The CCM bundle passes every
//! rule; each case breaks one rule and must be reported under that rule, at the line of the
//! field in the file `create` would write.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::*;
use crate::config::install::InstallConfig;
use crate::render::{RenderedObject, Templates};

const NS: &str = "acme-cloud-controller-manager";
const POD: &str = "/spec/install/spec/deployments/0/spec/template/spec";

fn testdata(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/bootstrap")
        .join(rel)
}

/// Render a bundle (with the CSV changed by `csv`, the rendered objects by `objects`) as
/// `create` would, with the providerID MachineConfigs beside it.
fn render(
    bundle: &str,
    operator: &str,
    role: Role,
    csv: &dyn Fn(&mut Value),
    objects: &dyn Fn(&mut Vec<RenderedObject>),
) -> Vec<ManifestFile> {
    let work = tempfile::tempdir().unwrap();
    let dir = work.path().join("bundle");
    std::fs::create_dir_all(dir.join("manifests")).unwrap();
    std::fs::create_dir_all(dir.join("metadata")).unwrap();
    let src = testdata(bundle);
    for sub in ["manifests", "metadata"] {
        for e in std::fs::read_dir(src.join(sub)).unwrap() {
            let e = e.unwrap();
            let text = std::fs::read_to_string(e.path()).unwrap();
            let name = e.file_name().to_string_lossy().into_owned();
            let text = if name.ends_with(".clusterserviceversion.yaml") {
                let mut v: Value = serde_saphyr::from_str(&text).unwrap();
                csv(&mut v);
                serde_json::to_string_pretty(&v).unwrap()
            } else {
                text
            };
            std::fs::write(dir.join(sub).join(name), text).unwrap();
        }
    }
    let loaded = crate::bundle::RegistryV1::from_dir(&dir).unwrap();
    let ns = if role == Role::MachineApi {
        "openshift-machine-api"
    } else {
        NS
    };
    let converted = crate::convert::convert(
        &loaded,
        &crate::convert::Options {
            install_namespace: ns.into(),
            ..Default::default()
        },
    )
    .unwrap();
    let templates = Templates::load(None).unwrap();
    let mut rendered = Vec::new();
    if role != Role::MachineApi {
        rendered.push(crate::render::profile::namespace(&templates, operator, ns).unwrap());
    }
    rendered.extend(converted.into_iter().map(|object| RenderedObject {
        operator: operator.into(),
        object,
    }));
    readiness::mark_roles(&mut rendered, &|_| Some(role));
    objects(&mut rendered);
    let mut files: Vec<ManifestFile> = crate::output::manifest_files(&rendered)
        .unwrap()
        .into_iter()
        .map(|f| ManifestFile {
            dir: Dir::Manifests,
            size: f.bytes.len() as u64,
            text: String::from_utf8(f.bytes).unwrap(),
            name: f.name,
            operator: Some(operator.into()),
            role: Some(role),
            planned: true,
        })
        .collect();
    for e in std::fs::read_dir(testdata("external/openshift")).unwrap() {
        let e = e.unwrap();
        let text = std::fs::read_to_string(e.path()).unwrap();
        files.push(ManifestFile {
            dir: Dir::Openshift,
            name: e.file_name().to_string_lossy().into_owned(),
            size: text.len() as u64,
            text,
            operator: None,
            role: None,
            planned: false,
        });
    }
    files
}

fn external_install() -> InstallConfig {
    let text = std::fs::read_to_string(testdata("external/install-config.yaml")).unwrap();
    serde_saphyr::from_str(&text).unwrap()
}

fn run(
    files: &[ManifestFile],
    install: &InstallConfig,
    capabilities: Option<&crate::openshift::Capabilities>,
) -> Report {
    let version = crate::openshift::ClusterVersion::parse("4.16").unwrap();
    let options = Options {
        release: Provided::new(Some(&version), capabilities),
        install: Some(InstallSource {
            config: install,
            path: "install-config.yaml".into(),
            text: None,
        }),
        roles: Default::default(),
        waivers: Vec::new(),
        installer: Default::default(),
        follow_links: false,
    };
    check(files, &options)
}

fn remove(v: &mut Value, pointer: &str) {
    let (parent, key) = pointer.rsplit_once('/').unwrap();
    let key = key.replace("~1", "/").replace("~0", "~");
    let key = key.as_str();
    match v.pointer_mut(parent).unwrap() {
        Value::Object(m) => {
            m.remove(key)
                .unwrap_or_else(|| panic!("{pointer} is there"));
        }
        Value::Array(a) => {
            a.remove(key.parse::<usize>().unwrap());
        }
        _ => panic!("{parent} is not a container"),
    }
}

fn set(v: &mut Value, pointer: &str, value: Value) {
    *v.pointer_mut(pointer)
        .unwrap_or_else(|| panic!("{pointer} is there")) = value;
}

fn ccm(
    csv: &dyn Fn(&mut Value),
    objects: &dyn Fn(&mut Vec<RenderedObject>),
) -> (Vec<ManifestFile>, Report) {
    let files = render(
        "ccm-bundle",
        "acme-ccm",
        Role::CloudControllerManager,
        csv,
        objects,
    );
    let report = run(&files, &external_install(), None);
    (files, report)
}

#[test]
fn the_ccm_bundle_passes_every_rule() {
    let (_, report) = ccm(&|_| {}, &|_| {});
    assert_eq!(report.problems, vec![], "{}", report.text());
}

/// One case per rule: what breaks it, the file the problem is in (a substring of its name) and
/// text the reported line must hold (the field itself, or where it belongs).
struct Case {
    rule: &'static str,
    csv: fn(&mut Value),
    objects: fn(&mut Vec<RenderedObject>),
    file: &'static str,
    line_holds: &'static str,
}

fn container_command(v: &mut Value, f: &dyn Fn(&str) -> String) {
    let p = format!("{POD}/containers/0/command/2");
    let text = v.pointer(&p).unwrap().as_str().unwrap().to_string();
    set(v, &p, Value::String(f(&text)));
}

fn no_objects(_: &mut Vec<RenderedObject>) {}
fn no_csv(_: &mut Value) {}

fn namespace_object(objects: &mut [RenderedObject]) -> &mut Value {
    &mut objects
        .iter_mut()
        .find(|o| o.kind() == "Namespace")
        .unwrap()
        .object
}

const CASES: &[Case] = &[
    Case {
        rule: "ccm-tolerate-uninitialized",
        csv: |v| remove(v, &format!("{POD}/tolerations/0")),
        objects: no_objects,
        file: "deployment",
        line_holds: "tolerations:",
    },
    Case {
        rule: "ccm-tolerate-not-ready",
        csv: |v| remove(v, &format!("{POD}/tolerations/1")),
        objects: no_objects,
        file: "deployment",
        line_holds: "tolerations:",
    },
    Case {
        rule: "ccm-tolerate-control-plane",
        csv: |v| remove(v, &format!("{POD}/tolerations/2")),
        objects: no_objects,
        file: "deployment",
        line_holds: "tolerations:",
    },
    Case {
        rule: "ccm-host-network",
        // `hostNetwork` is a non-pointer `omitempty` bool: the written Deployment, like Go's,
        // has no `false` to point at, so the problem is at the pod spec.
        csv: |v| set(v, &format!("{POD}/hostNetwork"), json!(false)),
        objects: no_objects,
        file: "deployment",
        line_holds: "spec:",
    },
    Case {
        rule: "ccm-apiserver-url",
        csv: |v| {
            container_command(v, &|t| {
                t.replace("/etc/kubernetes/apiserver-url.env", "/etc/default/acme.env")
            })
        },
        objects: no_objects,
        file: "deployment",
        line_holds: "command:",
    },
    Case {
        rule: "ccm-host-kubernetes-volume",
        csv: |v| remove(v, &format!("{POD}/volumes/0")),
        objects: no_objects,
        file: "deployment",
        line_holds: "volumes:",
    },
    Case {
        rule: "ccm-container-ports",
        csv: |v| remove(v, &format!("{POD}/containers/0/ports")),
        objects: no_objects,
        file: "deployment",
        line_holds: "- name: cloud-controller-manager",
    },
    Case {
        rule: "ccm-termination-message",
        csv: |v| remove(v, &format!("{POD}/containers/0/terminationMessagePolicy")),
        objects: no_objects,
        file: "deployment",
        line_holds: "- name: cloud-controller-manager",
    },
    Case {
        rule: "ccm-recreate",
        csv: |v| {
            set(
                v,
                "/spec/install/spec/deployments/0/spec/strategy",
                json!({"type": "RollingUpdate"}),
            )
        },
        objects: no_objects,
        file: "deployment",
        line_holds: "strategy:",
    },
    Case {
        rule: "ccm-control-plane-selector",
        csv: |v| remove(v, &format!("{POD}/nodeSelector")),
        objects: no_objects,
        file: "deployment",
        line_holds: "spec:",
    },
    Case {
        rule: "ccm-leader-election",
        csv: |v| {
            container_command(v, &|t| {
                t.replace(
                    "--leader-elect-resource-namespace=acme-cloud-controller-manager",
                    "--v=2",
                )
            })
        },
        objects: no_objects,
        file: "deployment",
        line_holds: "- name: cloud-controller-manager",
    },
    Case {
        rule: "ccm-lease-rbac",
        csv: |v| remove(v, "/spec/install/spec/clusterPermissions/0/rules/1"),
        objects: no_objects,
        file: "deployment",
        line_holds: "serviceAccountName:",
    },
    Case {
        rule: "ccm-namespace-admission",
        csv: no_csv,
        objects: |o| {
            remove(
                namespace_object(o),
                "/metadata/labels/openshift.io~1run-level",
            )
        },
        file: "deployment",
        line_holds: "hostNetwork:",
    },
    Case {
        rule: "ccm-workload-management",
        csv: no_csv,
        objects: |o| remove(namespace_object(o), "/metadata/annotations"),
        file: "namespace",
        line_holds: "metadata:",
    },
    Case {
        rule: "ccm-references",
        csv: |v| {
            set(
                v,
                &format!("{POD}/volumes/1/configMap/name"),
                json!("acme-cloud-config-v2"),
            )
        },
        objects: no_objects,
        file: "deployment",
        line_holds: "name: acme-cloud-config-v2",
    },
    Case {
        rule: "ccm-cloud-config",
        csv: |v| {
            container_command(v, &|t| {
                t.replace("/etc/acme/cloud.conf", "/etc/acme/config.yaml")
            })
        },
        objects: no_objects,
        file: "deployment",
        line_holds: "- name: cloud-controller-manager",
    },
    Case {
        rule: "ccm-priority-class",
        csv: |v| remove(v, &format!("{POD}/priorityClassName")),
        objects: no_objects,
        file: "deployment",
        line_holds: "spec:",
    },
    Case {
        rule: "image-tag",
        csv: |v| {
            set(
                v,
                &format!("{POD}/containers/0/image"),
                json!("quay.io/acme-example/cloud-controller-manager:v1.0.0"),
            )
        },
        objects: no_objects,
        file: "deployment",
        line_holds: "image: quay.io/acme-example/cloud-controller-manager:v1.0.0",
    },
    Case {
        rule: "placeholder",
        csv: no_csv,
        objects: |o| {
            let cm = o.iter_mut().find(|o| o.kind() == "ConfigMap").unwrap();
            set(
                &mut cm.object,
                "/data/cloud.conf",
                json!("[Global]\nregion = ${ACME_REGION}\n"),
            );
        },
        file: "configmap",
        line_holds: "cloud.conf:",
    },
];

#[test]
fn each_rule_is_reported_at_the_field() {
    for case in CASES {
        let (files, report) = ccm(&case.csv, &case.objects);
        let rules: Vec<&str> = report.problems.iter().map(|p| p.rule).collect();
        assert_eq!(rules, [case.rule], "case {}: {}", case.rule, report.text());
        let p = &report.problems[0];
        let file = files.iter().find(|f| f.path() == p.file).unwrap();
        assert!(
            file.name.contains(case.file),
            "case {}: in {}",
            case.rule,
            p.file
        );
        let line = file.text.lines().nth(p.line - 1).unwrap_or("");
        assert!(
            line.contains(case.line_holds),
            "case {}: {}:{} is {line:?}, expected {:?}",
            case.rule,
            p.file,
            p.line,
            case.line_holds
        );
        assert_eq!(p.operator.as_deref(), Some("acme-ccm"));
    }
}

#[test]
fn every_ccm_rule_has_a_case() {
    for r in rules::RULES
        .iter()
        .filter(|r| r.applies == rules::Applies::Role(Role::CloudControllerManager))
    {
        assert!(CASES.iter().any(|c| c.rule == r.id), "no case for {}", r.id);
    }
}

#[test]
fn install_config_rules() {
    let files = render(
        "ccm-bundle",
        "acme-ccm",
        Role::CloudControllerManager,
        &|_| {},
        &|_| {},
    );
    // Platform none with a CCM: refused at the CCM's workload.
    let none: InstallConfig = serde_saphyr::from_str("platform:\n  none: {}\n").unwrap();
    let rules: Vec<&str> = run(&files, &none, None)
        .problems
        .iter()
        .map(|p| p.rule)
        .collect();
    assert_eq!(rules, ["ccm-requires-external"]);
    // External without a CCM, and without providerID MachineConfigs.
    let external = external_install();
    let rules: Vec<&str> = run(&[], &external, None)
        .problems
        .iter()
        .map(|p| p.rule)
        .collect();
    assert_eq!(
        rules,
        [
            "external-without-ccm",
            "provider-id-machineconfig",
            "provider-id-machineconfig"
        ]
    );
    // None is not an install-config value; platformName unset.
    let bad: InstallConfig =
        serde_saphyr::from_str("platform:\n  external:\n    cloudControllerManager: None\n")
            .unwrap();
    let mut rules: Vec<&str> = run(&[], &bad, None)
        .problems
        .iter()
        .map(|p| p.rule)
        .collect();
    rules.sort();
    assert_eq!(rules, ["ccm-value", "platform-name"]);
}

#[test]
fn waivers_remove_problems_and_keep_the_reason() {
    let files = render(
        "ccm-bundle",
        "acme-ccm",
        Role::CloudControllerManager,
        &|v| remove(v, &format!("{POD}/priorityClassName")),
        &|_| {},
    );
    let install = external_install();
    let version = crate::openshift::ClusterVersion::parse("4.16").unwrap();
    let options = Options {
        release: Provided::new(Some(&version), None),
        install: Some(InstallSource {
            config: &install,
            path: "install-config.yaml".into(),
            text: None,
        }),
        roles: Default::default(),
        waivers: vec![Waiver {
            operator: "acme-ccm".into(),
            rule: "ccm-priority-class".into(),
            reason: "runs as a DaemonSet priority set by the partner".into(),
        }],
        installer: Default::default(),
        follow_links: false,
    };
    let report = check(&files, &options);
    assert!(report.problems.is_empty(), "{}", report.text());
    assert_eq!(report.waived.len(), 1);
    assert_eq!(report.waived[0].problem.rule, "ccm-priority-class");
}

#[test]
fn the_machine_api_bundle_passes_and_needs_its_crds() {
    let files = render(
        "mapi-bundle",
        "acme-mapi",
        Role::MachineApi,
        &|_| {},
        &|_| {},
    );
    let platform_none: InstallConfig = serde_saphyr::from_str("platform:\n  none: {}\n").unwrap();
    let report = run(&files, &platform_none, None);
    assert_eq!(report.problems, vec![], "{}", report.text());
    // Without the MachineAPI capability the machine.openshift.io CRDs (and the namespace) are not there.
    let caps = crate::openshift::Capabilities {
        baseline_capability_set: Some("None".into()),
        additional_enabled_capabilities: vec![],
    };
    let report = run(&files, &platform_none, Some(&caps));
    let rules: Vec<&str> = report.problems.iter().map(|p| p.rule).collect();
    assert!(rules.contains(&"mapi-crds"), "{}", report.text());
    assert!(rules.contains(&"namespace-missing"), "{}", report.text());
    // One rule broken at a time.
    type MapiCase = (&'static str, fn(&mut Value), &'static str);
    let cases: [MapiCase; 4] = [
        (
            "mapi-tolerate-control-plane",
            |v| remove(v, &format!("{POD}/tolerations/0")),
            "tolerations:",
        ),
        (
            "mapi-control-plane-selector",
            |v| remove(v, &format!("{POD}/nodeSelector")),
            "spec:",
        ),
        (
            "mapi-priority-class",
            |v| remove(v, &format!("{POD}/priorityClassName")),
            "spec:",
        ),
        (
            "mapi-references",
            |v| {
                set(
                    v,
                    &format!("{POD}/containers/0/env/0/valueFrom/secretKeyRef/name"),
                    json!("acme-creds"),
                )
            },
            "name: acme-creds",
        ),
    ];
    for (rule, csv, holds) in cases {
        let files = render("mapi-bundle", "acme-mapi", Role::MachineApi, &csv, &|_| {});
        let report = run(&files, &platform_none, None);
        let rules: Vec<&str> = report.problems.iter().map(|p| p.rule).collect();
        assert_eq!(rules, [rule], "{}", report.text());
        let p = &report.problems[0];
        let text = &files.iter().find(|f| f.path() == p.file).unwrap().text;
        assert!(
            text.lines().nth(p.line - 1).unwrap().contains(holds),
            "{rule}: line {}",
            p.line
        );
    }
    for r in rules::RULES
        .iter()
        .filter(|r| r.applies == rules::Applies::Role(Role::MachineApi))
    {
        assert!(
            r.id == "mapi-crds" || cases.iter().any(|c| c.0 == r.id),
            "no case for {}",
            r.id
        );
    }
}

fn file(dir: Dir, name: &str, text: &str) -> ManifestFile {
    ManifestFile {
        dir,
        name: name.into(),
        text: text.into(),
        size: text.len() as u64,
        operator: None,
        role: None,
        planned: false,
    }
}

const NAMESPACE: &str = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: acme\n";
const CRD: &str = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: secrets.acme.example.com
spec:
  group: acme.example.com
  scope: Namespaced
  names:
    kind: Secret
    plural: secrets
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [region]
            properties:
              region:
                type: string
                enum: [us-east-1, eu-west-1]
              port:
                x-kubernetes-int-or-string: true
              mode:
                type: string
                default: pull
          status:
            type: object
            x-kubernetes-preserve-unknown-fields: true
  - name: v1alpha1
    served: false
    storage: false
";

/// Run the general rules on `extra` beside a Namespace and the CRD above, with mirror rules
/// when `mirrors`.
fn general(extra: &[ManifestFile], mirrors: bool) -> Report {
    let mut files = vec![
        file(Dir::Manifests, "00-ns.yaml", NAMESPACE),
        file(Dir::Manifests, "00-crd.yaml", CRD),
    ];
    files.extend_from_slice(extra);
    let install: InstallConfig = if mirrors {
        serde_saphyr::from_str(
            "imageDigestSources:\n- source: quay.io/acme\n  mirrors: [mirror.local/acme]\n",
        )
        .unwrap()
    } else {
        InstallConfig::default()
    };
    let version = crate::openshift::ClusterVersion::parse("4.16").unwrap();
    let options = Options {
        release: Provided::new(Some(&version), None),
        install: Some(InstallSource {
            config: &install,
            path: "install-config.yaml".into(),
            text: None,
        }),
        roles: Default::default(),
        waivers: Vec::new(),
        installer: Default::default(),
        follow_links: false,
    };
    check(&files, &options)
}

#[test]
fn the_general_rules_one_by_one() {
    let cm = |name: &str, ns: &str| {
        format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  namespace: {ns}\n")
    };
    let pod = |image: &str| {
        format!(
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  namespace: acme\nspec:\n  containers:\n  - name: c\n    image: {image}\n"
        )
    };
    let webhook = |policy: &str, ca: &str| {
        format!(
            "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata:\n  name: w\nwebhooks:\n- name: v.acme.example.com\n  failurePolicy: {policy}\n  clientConfig:\n    {ca}service:\n      namespace: acme\n      name: hook\n"
        )
    };
    let service = "apiVersion: v1\nkind: Service\nmetadata:\n  name: hook\n  namespace: acme\n";
    let m = |name: &str, text: &str| file(Dir::Manifests, name, text);
    let cases: Vec<(&str, Vec<ManifestFile>, bool, usize)> = vec![
        ("decode", vec![m("a.yaml", "a: [1\n")], false, 0),
        ("decode", vec![m("a.yaml", "# only a comment\n")], false, 0),
        (
            "type-meta",
            vec![m("a.yaml", "apiVersion: v1\nkind: ConfigMap\n")],
            false,
            1,
        ),
        (
            "namespace-unset",
            vec![m(
                "a.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n",
            )],
            false,
            3,
        ),
        (
            "namespace-missing",
            vec![m("a.yaml", &cm("x", "nowhere"))],
            false,
            5,
        ),
        (
            "duplicate-identical",
            vec![m("a.yaml", &cm("x", "acme")), m("b.yaml", &cm("x", "acme"))],
            false,
            4,
        ),
        (
            "name-clash",
            vec![m("cvo-overrides.yaml", &cm("x", "acme"))],
            false,
            2,
        ),
        (
            "file-size",
            vec![m(
                "a.yaml",
                &format!(
                    "{}data:\n  big: \"{}\"\n",
                    cm("x", "acme"),
                    "x".repeat(1024 * 1024)
                ),
            )],
            false,
            0,
        ),
        (
            "crd-version",
            vec![m(
                "a.yaml",
                "apiVersion: acme.example.com/v1alpha1\nkind: Secret\nmetadata:\n  name: s\n  namespace: acme\nspec:\n  region: eu-west-1\n",
            )],
            false,
            1,
        ),
        (
            "cr-schema",
            vec![m(
                "a.yaml",
                "apiVersion: acme.example.com/v1\nkind: Secret\nmetadata:\n  name: s\n  namespace: acme\nspec:\n  port: 8443\n",
            )],
            false,
            6,
        ),
        (
            "cr-schema",
            vec![m(
                "a.yaml",
                "apiVersion: acme.example.com/v1\nkind: Secret\nmetadata:\n  name: s\n  namespace: acme\nspec:\n  region: mars-1\n",
            )],
            false,
            7,
        ),
        (
            "cr-pruned",
            vec![m(
                "a.yaml",
                "apiVersion: acme.example.com/v1\nkind: Secret\nmetadata:\n  name: s\n  namespace: acme\nspec:\n  region: eu-west-1\n  port: https\n  zone: a\nstatus:\n  any: 1\n",
            )],
            false,
            9,
        ),
        (
            "image-invalid",
            vec![m("a.yaml", &pod("Quay.io/UPPER@sha256:zz"))],
            false,
            9,
        ),
        (
            "image-tag-disconnected",
            vec![m("a.yaml", &pod("quay.io/acme/x:v1"))],
            true,
            9,
        ),
        (
            "image-not-mirrored",
            vec![m(
                "a.yaml",
                &pod(
                    "ghcr.io/other/x@sha256:1f3c0a8e2b9d7c6a5e4f3b2a1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d",
                ),
            )],
            true,
            9,
        ),
        (
            "webhook-bootstrap-backend",
            vec![
                m("a.yaml", &webhook("Fail", "caBundle: Zm9v\n    ")),
                m("b.yaml", service),
            ],
            false,
            7,
        ),
        (
            "webhook-ca",
            vec![m("a.yaml", &webhook("Ignore", ""))],
            false,
            8,
        ),
        (
            "placeholder",
            vec![m(
                "a.yaml",
                &format!(
                    "{}data:\n  conf: \"{{{{ .Values.region }}}}\"\n",
                    cm("x", "acme")
                ),
            )],
            false,
            7,
        ),
    ];
    for (rule, files, mirrors, line) in cases {
        let report = general(&files, mirrors);
        let found: Vec<(&str, usize)> = report.problems.iter().map(|p| (p.rule, p.line)).collect();
        assert_eq!(found, [(rule, line)], "{rule}: {}", report.text());
    }
}

#[test]
fn directory_rules_for_dotfiles_and_ignored_files() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("manifests")).unwrap();
    std::fs::create_dir_all(dir.path().join("openshift/sub")).unwrap();
    std::fs::write(dir.path().join("manifests/.gitkeep"), "").unwrap();
    std::fs::write(dir.path().join("manifests/.hidden.yaml"), NAMESPACE).unwrap();
    std::fs::write(dir.path().join("openshift/notes.txt"), "x").unwrap();
    std::fs::write(dir.path().join("manifests/ns.yaml"), NAMESPACE).unwrap();
    let version = crate::openshift::ClusterVersion::parse("4.16").unwrap();
    let options = Options {
        release: Provided::new(Some(&version), None),
        install: None,
        roles: Default::default(),
        waivers: Vec::new(),
        installer: Default::default(),
        follow_links: false,
    };
    let report = check_dir(dir.path(), &options).unwrap();
    let found: Vec<(&str, &str)> = report
        .problems
        .iter()
        .map(|p| (p.rule, p.file.as_str()))
        .collect();
    assert_eq!(
        found,
        [
            ("file-ignored", "manifests/.gitkeep"),
            ("dotfile", "manifests/.hidden.yaml"),
            ("file-ignored", "openshift/notes.txt"),
            ("file-ignored", "openshift/sub")
        ]
    );
    assert!(report.notes.iter().any(|n| n.contains("install-config")));
}

/// What a real 4.15 `openshift-install create ignition-configs` did (issue 33): only `*.yaml`,
/// `*.yml` and `*.json`, matched case-sensitively, reach the bootstrap from either folder; any
/// other file is left out silently, so it is a warning naming why, never an error; a folder is
/// an error only when the glob matches it.
#[test]
fn openshift_install_reads_yaml_yml_and_json_only_in_both_folders() {
    let dir = tempfile::tempdir().unwrap();
    for sub in ["manifests", "openshift"] {
        std::fs::create_dir_all(dir.path().join(sub)).unwrap();
    }
    std::fs::create_dir_all(dir.path().join("manifests/extra")).unwrap();
    std::fs::create_dir_all(dir.path().join("manifests/looks-like.yaml")).unwrap();
    std::fs::write(dir.path().join("manifests/probe.txt"), "not yaml: [").unwrap();
    std::fs::write(dir.path().join("manifests/probe-upper.YAML"), NAMESPACE).unwrap();
    std::fs::write(dir.path().join("openshift/probe-upper.Yml"), NAMESPACE).unwrap();
    std::fs::write(dir.path().join("manifests/ns.yaml"), NAMESPACE).unwrap();
    let version = crate::openshift::ClusterVersion::parse("4.15").unwrap();
    let options = Options {
        release: Provided::new(Some(&version), None),
        install: None,
        roles: Default::default(),
        waivers: Vec::new(),
        installer: Installer::OpenshiftInstall,
        follow_links: false,
    };
    let report = check_dir(dir.path(), &options).unwrap();
    let found: Vec<(&str, Severity, &str)> = report
        .problems
        .iter()
        .map(|p| (p.rule, p.severity, p.file.as_str()))
        .collect();
    assert_eq!(
        found,
        [
            ("file-ignored", Severity::Warning, "manifests/extra"),
            ("subdirectory", Severity::Error, "manifests/looks-like.yaml"),
            (
                "file-ignored",
                Severity::Warning,
                "manifests/probe-upper.YAML"
            ),
            ("file-ignored", Severity::Warning, "manifests/probe.txt"),
            (
                "file-ignored",
                Severity::Warning,
                "openshift/probe-upper.Yml"
            ),
        ],
        "{}",
        report.text()
    );
    let upper = &report.problems[2].message;
    assert!(
        upper.contains("case-sensitively") && upper.contains(".yaml"),
        "{upper}"
    );
    assert!(
        report.problems[3]
            .message
            .contains("never reaches the bootstrap")
    );
}

#[test]
fn pointers_read_as_field_paths() {
    assert_eq!(
        pointer_field("/spec/containers/0/image"),
        "spec.containers[0].image"
    );
    assert_eq!(
        pointer_field("/metadata/labels/a~1b"),
        "metadata.labels.a/b"
    );
}
