//! The objects OLM v1 renders for a bundle's `webhookdefinitions`, and what its OpenShift
//! service-ca certificate provider adds to them.
//!
//! Source: openshift/operator-framework-operator-controller `release-4.22` (byte-identical to
//! upstream main for these parts; `release-4.20`/`release-4.21` differ only outside them)
//! `internal/operator-controller/rukpak/render/registryv1/generators/generators.go`:
//! `BundleCRDGenerator` (conversion webhooks on the CRDs they name),
//! `BundleValidatingWebhookResourceGenerator`, `BundleMutatingWebhookResourceGenerator`,
//! `BundleDeploymentServiceResourceGenerator`, `ensureCorrectDeploymentCertVolumes` and
//! `getWebhookNamespaceSelector`; `rukpak/render/certprovider.go` (`CertProvisionerFor`: the
//! `<deployment>-service` and `<service>-cert` names) and
//! `rukpak/render/certproviders/openshift_serviceca.go` (the two annotations; no extra
//! objects).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value, json};

use crate::bundle::{RegistryV1, WebhookType};

use super::{Error, naming::object_name_for_base_and_suffix};

/// Who provides the webhooks' serving certificates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum CertProvider {
    /// OpenShift's service-ca operator (`OpenshiftServiceCaCertificateProvider`): the Services
    /// get `service.beta.openshift.io/serving-cert-secret-name`, the webhook configurations
    /// and converted CRDs `service.beta.openshift.io/inject-cabundle: "true"`, and the webhook
    /// Deployments mount the secret.
    OpenShiftServiceCa,
    /// No provider: the objects upstream's renderer emits when called without one (its
    /// regression fixtures `test/regression/convert/testdata/expected-manifests/webhook-operator.v0.0.5`).
    /// No cluster installs such output; it exists to compare with those fixtures.
    Unprovisioned,
}

const SERVING_CERT_ANNOTATION: &str = "service.beta.openshift.io/serving-cert-secret-name";
const INJECT_CABUNDLE_ANNOTATION: &str = "service.beta.openshift.io/inject-cabundle";

/// `certVolumeConfigs`: volume name, mount path, file for `tls.crt`, file for `tls.key`.
const CERT_VOLUMES: [(&str, &str, &str, &str); 2] = [
    (
        "webhook-cert",
        "/tmp/k8s-webhook-server/serving-certs",
        "tls.crt",
        "tls.key",
    ),
    (
        "apiservice-cert",
        "/apiserver.local.config/certificates",
        "apiserver.crt",
        "apiserver.key",
    ),
];

/// The Service fronting a webhook deployment: `<deployment, '.'→'-'>-service`, cut to 63.
pub fn service_name(deployment: &str) -> String {
    object_name_for_base_and_suffix(&deployment.replace('.', "-"), "service")
}

/// The Secret service-ca writes the serving certificate into: `<service>-cert`.
pub fn cert_secret_name(deployment: &str) -> String {
    object_name_for_base_and_suffix(&service_name(deployment), "cert")
}

/// One raw `spec.webhookdefinitions[]` entry with its index, for the copied fields.
struct Definition<'a> {
    kind: WebhookType,
    generate_name: String,
    deployment: String,
    conversion_crds: Vec<String>,
    raw: &'a Map<String, Value>,
}

fn definitions(bundle: &RegistryV1) -> Result<Vec<Definition<'_>>, Error> {
    // Field types are checked by `webhook_definitions`; the raw entries give the rest.
    let typed = bundle.webhook_definitions()?;
    let raw = bundle
        .csv
        .get("spec")
        .and_then(|s| s.get("webhookdefinitions"))
        .and_then(Value::as_array);
    let raw: Vec<&Map<String, Value>> = raw
        .map(|a| a.iter().filter_map(Value::as_object).collect())
        .unwrap_or_default();
    Ok(typed
        .into_iter()
        .zip(raw)
        .map(|(t, raw)| Definition {
            kind: t.kind,
            generate_name: t.generate_name,
            deployment: t.deployment_name,
            conversion_crds: t.conversion_crds,
            raw,
        })
        .collect())
}

fn present<'a>(raw: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    raw.get(key).filter(|v| !v.is_null())
}

/// `containerPort` as Go reads it (0 when absent).
fn container_port(raw: &Map<String, Value>) -> i64 {
    present(raw, "containerPort")
        .and_then(Value::as_i64)
        .unwrap_or(0)
}

fn add_annotation(obj: &mut Map<String, Value>, key: &str, value: &str) {
    let md = obj.entry("metadata").or_insert_with(|| json!({}));
    if !md.is_object() {
        *md = json!({});
    }
    let md = md.as_object_mut().expect("made a mapping above");
    let ann = md.entry("annotations").or_insert_with(|| json!({}));
    if !ann.is_object() {
        *ann = json!({});
    }
    ann.as_object_mut()
        .expect("made a mapping above")
        .insert(key.into(), json!(value));
}

fn client_config(d: &Definition<'_>, install_ns: &str, default_path: Option<&str>) -> Value {
    let mut service = Map::new();
    service.insert("name".into(), json!(service_name(&d.deployment)));
    service.insert("namespace".into(), json!(install_ns));
    match (present(d.raw, "webhookPath"), default_path) {
        (Some(p), _) => {
            service.insert("path".into(), p.clone());
        }
        (None, Some(p)) => {
            service.insert("path".into(), json!(p));
        }
        (None, None) => {}
    }
    service.insert("port".into(), json!(container_port(d.raw)));
    json!({ "service": service })
}

/// `getWebhookNamespaceSelector`: none for all namespaces, else the target namespaces by
/// their `kubernetes.io/metadata.name` label.
fn namespace_selector(targets: &[String]) -> Option<Value> {
    (!targets.is_empty() && !targets.iter().any(String::is_empty)).then(|| {
        json!({"matchExpressions": [{
            "key": "kubernetes.io/metadata.name",
            "operator": "In",
            "values": targets,
        }]})
    })
}

/// The Validating and Mutating webhook configurations, one per definition, in CSV order.
pub(crate) fn configurations(
    bundle: &RegistryV1,
    install_ns: &str,
    targets: &[String],
    provider: CertProvider,
) -> Result<Vec<Value>, Error> {
    let mut out = Vec::new();
    for d in definitions(bundle)? {
        let kind = match d.kind {
            WebhookType::Validating => "ValidatingWebhookConfiguration",
            WebhookType::Mutating => "MutatingWebhookConfiguration",
            _ => continue,
        };
        let name = d
            .generate_name
            .strip_suffix('-')
            .unwrap_or(&d.generate_name);
        // Field order of admissionregistration/v1 `ValidatingWebhook` / `MutatingWebhook`.
        let mut webhook = Map::new();
        webhook.insert("name".into(), json!(name));
        webhook.insert("clientConfig".into(), client_config(&d, install_ns, None));
        for key in ["rules", "failurePolicy", "matchPolicy"] {
            if let Some(v) = present(d.raw, key) {
                webhook.insert(key.into(), v.clone());
            }
        }
        if let Some(sel) = namespace_selector(targets) {
            webhook.insert("namespaceSelector".into(), sel);
        }
        for key in [
            "objectSelector",
            "sideEffects",
            "timeoutSeconds",
            "admissionReviewVersions",
        ] {
            if let Some(v) = present(d.raw, key) {
                webhook.insert(key.into(), v.clone());
            }
        }
        if d.kind == WebhookType::Mutating
            && let Some(v) = present(d.raw, "reinvocationPolicy")
        {
            webhook.insert("reinvocationPolicy".into(), v.clone());
        }
        let mut obj = Map::new();
        obj.insert(
            "apiVersion".into(),
            json!("admissionregistration.k8s.io/v1"),
        );
        obj.insert("kind".into(), json!(kind));
        // Upstream sets the install namespace on these cluster-scoped objects; the API server
        // drops it.
        obj.insert(
            "metadata".into(),
            json!({"name": name, "namespace": install_ns}),
        );
        obj.insert("webhooks".into(), json!([webhook]));
        if provider == CertProvider::OpenShiftServiceCa {
            add_annotation(&mut obj, INJECT_CABUNDLE_ANNOTATION, "true");
        }
        out.push(Value::Object(obj));
    }
    Ok(out)
}

/// One Service per deployment that serves a webhook, ports from the distinct
/// (`containerPort` or 443, `targetPort` or that port) pairs, named by the port, sorted.
pub(crate) fn services(
    bundle: &RegistryV1,
    install_ns: &str,
    provider: CertProvider,
) -> Result<Vec<Value>, Error> {
    let mut ports: BTreeMap<String, Vec<(i64, Value)>> = BTreeMap::new();
    for d in definitions(bundle)? {
        let port = match container_port(d.raw) {
            p if p > 0 => p,
            _ => 443,
        };
        let target = present(d.raw, "targetPort")
            .cloned()
            .unwrap_or_else(|| json!(port));
        let list = ports.entry(d.deployment.clone()).or_default();
        if !list.iter().any(|(p, t)| *p == port && *t == target) {
            list.push((port, target));
        }
    }
    let mut out = Vec::new();
    for dep in bundle.deployment_specs()? {
        let Some(list) = ports.get_mut(&dep.name) else {
            continue;
        };
        // `intstr.IntValue`: a string target port counts as its number, or 0.
        let int_value = |v: &Value| match v {
            Value::String(s) => s.parse::<i64>().unwrap_or(0),
            v => v.as_i64().unwrap_or(0),
        };
        list.sort_by_key(|(p, t)| (*p, int_value(t)));
        let port_values: Vec<Value> = list
            .iter()
            .map(|(p, t)| json!({"name": p.to_string(), "port": p, "targetPort": t}))
            .collect();
        let mut spec = Map::new();
        spec.insert("ports".into(), Value::Array(port_values));
        if let Some(labels) = dep
            .spec
            .get("selector")
            .and_then(|s| s.get("matchLabels"))
            .filter(|v| !v.is_null())
        {
            spec.insert("selector".into(), labels.clone());
        }
        let mut obj = Map::new();
        obj.insert("apiVersion".into(), json!("v1"));
        obj.insert("kind".into(), json!("Service"));
        obj.insert(
            "metadata".into(),
            json!({"name": service_name(&dep.name), "namespace": install_ns}),
        );
        obj.insert("spec".into(), Value::Object(spec));
        if provider == CertProvider::OpenShiftServiceCa {
            add_annotation(
                &mut obj,
                SERVING_CERT_ANNOTATION,
                &cert_secret_name(&dep.name),
            );
        }
        out.push(Value::Object(obj));
    }
    Ok(out)
}

/// Point the CRDs that conversion webhooks name at the webhook's Service
/// (`BundleCRDGenerator`).
pub(crate) fn convert_crds(
    bundle: &RegistryV1,
    crds: &mut [Value],
    install_ns: &str,
    provider: CertProvider,
) -> Result<(), Error> {
    let csv = bundle.csv_name()?.to_owned();
    let defs = definitions(bundle)?;
    let mut by_crd: BTreeMap<&str, &Definition<'_>> = BTreeMap::new();
    for d in defs.iter().filter(|d| d.kind == WebhookType::Conversion) {
        for crd in &d.conversion_crds {
            if by_crd.insert(crd, d).is_some() {
                return Err(Error::ConversionCrdSharedAtRender {
                    csv,
                    crd: crd.clone(),
                });
            }
        }
    }
    for crd in crds.iter_mut() {
        let name = crd
            .get("metadata")
            .and_then(|m| m.get("name"))
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        let Some(d) = by_crd.get(name.as_str()).copied() else {
            continue;
        };
        let Value::Object(obj) = crd else {
            continue;
        };
        let spec = obj.entry("spec").or_insert_with(|| json!({}));
        if !spec.is_object() {
            *spec = json!({});
        }
        let spec = spec.as_object_mut().expect("made a mapping above");
        if spec.get("preserveUnknownFields") == Some(&Value::Bool(true)) {
            return Err(Error::ConversionCrdPreservesUnknownFields { csv, crd: name });
        }
        let mut webhook = Map::new();
        webhook.insert(
            "clientConfig".into(),
            client_config(d, install_ns, Some("/")),
        );
        if let Some(v) = present(d.raw, "admissionReviewVersions") {
            webhook.insert("conversionReviewVersions".into(), v.clone());
        }
        spec.insert(
            "conversion".into(),
            json!({"strategy": "Webhook", "webhook": webhook}),
        );
        if provider == CertProvider::OpenShiftServiceCa {
            add_annotation(obj, INJECT_CABUNDLE_ANNOTATION, "true");
        }
    }
    Ok(())
}

/// The deployments that serve at least one webhook.
pub(crate) fn webhook_deployments(bundle: &RegistryV1) -> Result<BTreeSet<String>, Error> {
    Ok(bundle
        .webhook_definitions()?
        .into_iter()
        .map(|w| w.deployment_name)
        .collect())
}

/// `ensureCorrectDeploymentCertVolumes`: drop the `webhook-cert` and `apiservice-cert` volumes
/// and any volume mounted at their paths, then add both from `secret`, mounted in every
/// container. `pod` is the Deployment's `spec.template.spec`; malformed lists were refused
/// before.
pub(crate) fn ensure_cert_volumes(pod: &mut Map<String, Value>, secret: &str) {
    let mut remove: BTreeSet<String> = CERT_VOLUMES.iter().map(|c| c.0.to_owned()).collect();
    let protected: BTreeSet<&str> = CERT_VOLUMES.iter().map(|c| c.1).collect();
    let containers = pod.get("containers").and_then(Value::as_array);
    for c in containers.into_iter().flatten() {
        for m in c
            .get("volumeMounts")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if m.get("mountPath")
                .and_then(Value::as_str)
                .is_some_and(|p| protected.contains(p))
                && let Some(n) = m.get("name").and_then(Value::as_str)
            {
                remove.insert(n.to_owned());
            }
        }
    }
    let named = |v: &Value| {
        v.get("name")
            .and_then(Value::as_str)
            .is_some_and(|n| remove.contains(n))
    };
    let mut volumes: Vec<Value> = pod
        .get("volumes")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter(|v| !named(v)).cloned().collect())
        .unwrap_or_default();
    for (name, _, cert, key) in CERT_VOLUMES {
        volumes.push(json!({"name": name, "secret": {
            "secretName": secret,
            "items": [{"key": "tls.crt", "path": cert}, {"key": "tls.key", "path": key}],
        }}));
    }
    let mounts: Vec<Value> = CERT_VOLUMES
        .iter()
        .map(|(name, path, _, _)| json!({"name": name, "mountPath": path}))
        .collect();
    if let Some(Value::Array(containers)) = pod.get_mut("containers") {
        for c in containers.iter_mut().filter_map(Value::as_object_mut) {
            let mut kept: Vec<Value> = c
                .get("volumeMounts")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter(|v| !named(v)).cloned().collect())
                .unwrap_or_default();
            kept.extend(mounts.iter().cloned());
            c.insert("volumeMounts".into(), Value::Array(kept));
        }
    }
    pod.insert("volumes".into(), Value::Array(volumes));
}
