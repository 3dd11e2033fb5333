//! The object rules: what cluster-bootstrap needs of the whole set (one definition per object,
//! every namespace and CRD present), custom resources against their CRDs, placeholders, images
//! and admission webhooks.

use std::collections::BTreeMap;

use base64::Engine as _;
use serde_json::Value;

use super::files::Object;
use super::{Options, Sink, pointer_field, str_at, yaml};
use crate::mirror;
use crate::openshift::provided::{Provided, Scope};
use crate::registry::{self, ImageRef, MirrorRule};

/// The objects with the indexes the rules need.
pub(crate) struct ObjectSet<'f> {
    /// Objects in cluster-bootstrap's order (by file name, after `cp openshift/* manifests/`).
    pub objects: Vec<Object<'f>>,
    /// CRDs in the set, by (group, kind).
    pub crds: BTreeMap<(String, String), usize>,
    /// Namespaces in the set, by name.
    pub namespaces: BTreeMap<String, usize>,
    /// The release.
    pub release: &'f Provided,
}

impl<'f> ObjectSet<'f> {
    pub(crate) fn new(objects: &[Object<'f>], release: &'f Provided) -> ObjectSet<'f> {
        let mut objects = objects.to_vec();
        objects.sort_by(|a, b| {
            a.file
                .name
                .cmp(&b.file.name)
                .then(a.file.dir.cmp(&b.file.dir))
        });
        let mut crds = BTreeMap::new();
        let mut namespaces = BTreeMap::new();
        for (i, o) in objects.iter().enumerate() {
            if o.group == "apiextensions.k8s.io" && o.kind == "CustomResourceDefinition" {
                let v = o.value();
                if let (Some(g), Some(k)) =
                    (str_at(v, "/spec/group"), str_at(v, "/spec/names/kind"))
                {
                    crds.entry((g.to_string(), k.to_string())).or_insert(i);
                }
            }
            if o.group.is_empty() && o.kind == "Namespace" {
                namespaces.entry(o.name.clone()).or_insert(i);
            }
        }
        ObjectSet {
            objects,
            crds,
            namespaces,
            release,
        }
    }

    /// The CRD in the set for a kind.
    pub(crate) fn crd(&self, group: &str, kind: &str) -> Option<&Object<'f>> {
        self.crds
            .get(&(group.to_string(), kind.to_string()))
            .map(|i| &self.objects[*i])
    }

    /// A kind's scope: from its CRD in the set, else from the release; `None` when unknown.
    pub(crate) fn scope(&self, group: &str, kind: &str) -> Option<Scope> {
        if let Some(crd) = self.crd(group, kind) {
            return Some(match str_at(crd.value(), "/spec/scope") {
                Some("Cluster") => Scope::Cluster,
                _ => Scope::Namespaced,
            });
        }
        self.release.provided_kind(group, kind)
    }

    /// Whether namespace `name` exists (in the set or from the release).
    pub(crate) fn has_namespace(&self, name: &str) -> bool {
        self.namespaces.contains_key(name) || self.release.provides_namespace(name)
    }

    /// An object of the set by group, kind, namespace and name.
    pub(crate) fn find(
        &self,
        group: &str,
        kind: &str,
        namespace: Option<&str>,
        name: &str,
    ) -> Option<&Object<'f>> {
        self.objects.iter().find(|o| {
            o.group == group
                && o.kind == kind
                && o.name == name
                && o.namespace.as_deref() == namespace
        })
    }
}

/// The pointer to an object's pod spec, for workload kinds.
pub(crate) fn pod_spec_pointer(kind: &str) -> Option<&'static str> {
    match kind {
        "Pod" => Some("/spec"),
        "Deployment"
        | "DaemonSet"
        | "StatefulSet"
        | "ReplicaSet"
        | "Job"
        | "ReplicationController" => Some("/spec/template/spec"),
        "CronJob" => Some("/spec/jobTemplate/spec/template/spec"),
        _ => None,
    }
}

/// The containers of a pod spec in the lists named, in that order: each list's name, the
/// container's index in it and the container.
pub(crate) fn containers_in<'v>(
    spec: &'v Value,
    lists: &'static [&'static str],
) -> impl Iterator<Item = (&'static str, usize, &'v Value)> {
    lists.iter().flat_map(move |list| {
        spec.get(*list)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
            .map(move |(i, c)| (*list, i, c))
    })
}

pub(crate) fn check(set: &ObjectSet<'_>, options: &Options<'_>, sink: &mut Sink) {
    duplicates(set, sink);
    let rules = options
        .install
        .as_ref()
        .map(|i| registry::mirror_rules(i.config))
        .unwrap_or_default();
    for o in &set.objects {
        names(o, sink);
        dependencies(set, o, sink);
        if let Some(crd) = set.crd(&o.group, &o.kind) {
            super::schema::check(crd, o, sink);
        }
        placeholders(o, sink);
        images(o, &rules, sink);
        webhooks(set, o, sink);
    }
}

fn duplicates(set: &ObjectSet<'_>, sink: &mut Sink) {
    let mut first: BTreeMap<(String, String, Option<String>, String), usize> = BTreeMap::new();
    for (i, o) in set.objects.iter().enumerate() {
        let namespace = match set.scope(&o.group, &o.kind) {
            Some(Scope::Cluster) => None,
            _ => o.namespace.clone(),
        };
        let key = (o.group.clone(), o.kind.clone(), namespace, o.name.clone());
        match first.get(&key) {
            None => {
                first.insert(key, i);
            }
            Some(j) => {
                let earlier = &set.objects[*j];
                let (rule, what) = if earlier.value() == o.value() {
                    ("duplicate-identical", "with the same content")
                } else {
                    (
                        "duplicate-object",
                        "differently; objects are create-only, so this definition is never applied",
                    )
                };
                sink.push(
                    rule,
                    o.file,
                    o.line("/metadata/name"),
                    Some(o.label()),
                    format!("{} already defines this object {what}", earlier.file.path()),
                );
            }
        }
    }
}

/// Rule `name-invalid`: the object's name and namespace as the API server validates them
/// ([`crate::kubenames`], the one validator of Kubernetes names).
fn names(o: &Object<'_>, sink: &mut Sink) {
    use crate::kubenames::{MAX_LABEL, check_label, check_name, name_rule};
    if let Err(why) = check_name(&o.name, name_rule(&o.group, &o.kind)) {
        sink.push(
            "name-invalid",
            o.file,
            o.line("/metadata/name"),
            Some(o.label()),
            format!(
                "metadata.name {} {why}: the API server refuses this {}",
                crate::text::escape(&o.name),
                o.kind
            ),
        );
    }
    if let Some(ns) = &o.namespace
        && let Err(why) = check_label(ns, MAX_LABEL)
    {
        sink.push(
            "name-invalid",
            o.file,
            o.line("/metadata/namespace"),
            Some(o.label()),
            format!(
                "metadata.namespace {} {why}: the API server refuses this {}",
                crate::text::escape(ns),
                o.kind
            ),
        );
    }
}

fn dependencies(set: &ObjectSet<'_>, o: &Object<'_>, sink: &mut Sink) {
    let release = set.release;
    let scope = set.scope(&o.group, &o.kind);
    if scope.is_none() {
        let capability = release
            .capability_of(&o.group, &o.kind)
            .filter(|c| !release.capability_enabled(c));
        let why = match capability {
            Some(c) => format!(
                "the release installs it only with the {c} capability, which install-config does not enable"
            ),
            None => format!(
                "neither the set nor OpenShift {} provides it",
                release.release_name()
            ),
        };
        sink.push("crd-missing", o.file, o.line("/apiVersion"), Some(o.label()), format!("no CustomResourceDefinition for {}.{}: {why}; cluster-bootstrap retries it until the 60-minute timeout", o.kind, if o.group.is_empty() { "core" } else { &o.group }));
        return;
    }
    if scope == Some(Scope::Namespaced) {
        match &o.namespace {
            None => sink.push(
                "namespace-unset",
                o.file,
                o.line("/metadata"),
                Some(o.label()),
                format!(
                    "{} is namespaced, but metadata.namespace is not set",
                    o.kind
                ),
            ),
            Some(ns) if !set.has_namespace(ns) => sink.push(
                "namespace-missing",
                o.file,
                o.line("/metadata/namespace"),
                Some(o.label()),
                format!(
                    "namespace \"{ns}\" is neither in the set nor created by OpenShift {}",
                    release.release_name()
                ),
            ),
            Some(_) => {}
        }
    }
}

/// Where strings legitimately hold `$VAR` or `{{ }}`: scripts run by containers, ignition
/// content, alerting templates.
fn placeholder_exempt(kind: &str, pointer: &str) -> bool {
    let container_script = pointer.contains("/containers/")
        && (pointer.contains("/command/")
            || pointer.contains("/args/")
            || pointer.contains("/env/"));
    container_script
        || (kind == "MachineConfig" && pointer.starts_with("/spec/config"))
        || (kind == "PrometheusRule" && pointer.starts_with("/spec/groups"))
        || (kind == "CustomResourceDefinition" && pointer.starts_with("/spec/versions"))
        || pointer.starts_with("/metadata/annotations")
}

/// Whether `text` is a whole encoded value in which `$` or braces are data, not a template:
/// a password hash in the modular crypt format (`$2a$10$…` as the installer's
/// `99_kubeadmin-password-secret.yaml` holds, bcrypt from openshift/installer
/// `pkg/asset/password/password.go`; `$6$…`, `$y$…`, `$argon2id$…`), one token without spaces.
fn encoded_value(text: &str) -> bool {
    let text = text.trim();
    let mut fields = text.split('$');
    fields.next() == Some("")
        && fields.next().is_some_and(|id| {
            !id.is_empty() && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
        })
        && text.matches('$').count() >= 2
        && !text
            .bytes()
            .any(|b| b.is_ascii_whitespace() || b == b'{' || b == b'}')
}

/// The first unresolved placeholder in `text`: `${…}`, `{{ … }}` or `$VAR` (upper case). A
/// `$VAR` is a whole word: the `$` does not follow a letter, digit or `$`, and every letter of
/// the name after it is upper case (`$PKQ3xy` inside a hash is not `$PKQ3`). Encoded values
/// (password hashes; base64 has no `$`, `{` or `}`) hold none.
pub(crate) fn find_placeholder(text: &str) -> Option<String> {
    if text.starts_with("#!") || encoded_value(text) {
        return None;
    }
    if let Some(i) = text.find("{{")
        && let Some(j) = text[i..].find("}}")
    {
        return Some(text[i..i + j + 2].to_string());
    }
    let bytes = text.as_bytes();
    for (i, b) in bytes.iter().enumerate() {
        if *b != b'$' {
            continue;
        }
        if bytes.get(i + 1) == Some(&b'{') {
            if let Some(j) = text[i..].find('}') {
                return Some(text[i..i + j + 1].to_string());
            }
            continue;
        }
        if i > 0 && (bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'$') {
            continue;
        }
        let rest = &text[i + 1..];
        let word = rest
            .bytes()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == b'_')
            .count();
        let name = &rest[..word];
        if word >= 2
            && name.as_bytes()[0].is_ascii_uppercase()
            && !name.bytes().any(|c| c.is_ascii_lowercase())
        {
            return Some(text[i..i + 1 + word].to_string());
        }
    }
    None
}

fn placeholders(o: &Object<'_>, sink: &mut Sink) {
    let mut found = None;
    walk_strings(o.value(), String::new(), &mut |pointer, text| {
        if found.is_some() || placeholder_exempt(&o.kind, pointer) {
            return;
        }
        let decoded;
        let text = if o.kind == "Secret" && pointer.starts_with("/data/") {
            match base64::engine::general_purpose::STANDARD.decode(text.trim()) {
                Ok(bytes) => match String::from_utf8(bytes) {
                    Ok(s) => {
                        decoded = s;
                        decoded.as_str()
                    }
                    Err(_) => return,
                },
                Err(_) => return,
            }
        } else {
            text
        };
        if let Some(p) = find_placeholder(text) {
            found = Some((pointer.to_string(), p));
        }
    });
    if let Some((pointer, p)) = found {
        sink.push(
            "placeholder",
            o.file,
            o.line(&pointer),
            Some(o.label()),
            format!(
                "{} holds the unresolved placeholder {p:?}",
                pointer_field(&pointer)
            ),
        );
    }
}

fn walk_strings(v: &Value, pointer: String, f: &mut dyn FnMut(&str, &str)) {
    match v {
        Value::String(s) => f(&pointer, s),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                walk_strings(item, format!("{pointer}/{i}"), f);
            }
        }
        Value::Object(map) => {
            for (k, item) in map {
                walk_strings(item, format!("{pointer}/{}", yaml::escape(k)), f);
            }
        }
        _ => {}
    }
}

fn images(o: &Object<'_>, rules: &[MirrorRule], sink: &mut Sink) {
    let Some(base) = pod_spec_pointer(&o.kind) else {
        return;
    };
    let Some(spec) = o.value().pointer(base) else {
        return;
    };
    for (list, i, c) in containers_in(spec, &["initContainers", "containers"]) {
        let Some(image) = c.get("image").and_then(Value::as_str) else {
            continue;
        };
        let pointer = format!("{base}/{list}/{i}/image");
        let line = o.line(&pointer);
        let name = c.get("name").and_then(Value::as_str).unwrap_or("");
        let object = Some(o.label());
        match ImageRef::parse(image) {
            Err(e) => sink.push(
                "image-invalid",
                o.file,
                line,
                object,
                format!("container {name:?} image {image:?} is not a valid reference: {e}"),
            ),
            Ok(r) if r.digest.is_none() => {
                if rules.is_empty() {
                    sink.push(
                        "image-tag",
                        o.file,
                        line,
                        object,
                        format!("container {name:?} pulls {image} by tag; pin it by digest"),
                    );
                } else {
                    sink.push("image-tag-disconnected", o.file, line, object, format!("container {name:?} pulls {image} by tag, and install-config's mirror rules apply to digests only: this pull goes to the source registry"));
                }
            }
            Ok(r) => {
                if !rules.is_empty()
                    && registry::covering_rule(&r, rules).is_none()
                    && !mirror::on_mirror_registry(image, rules)
                {
                    sink.push("image-not-mirrored", o.file, line, object, format!("container {name:?} image {image} is not covered by any install-config mirror rule; a rule that would cover it:\n{}", mirror::suggest_rule(&r, rules)));
                }
            }
        }
    }
}

fn webhooks(set: &ObjectSet<'_>, o: &Object<'_>, sink: &mut Sink) {
    if o.group != "admissionregistration.k8s.io"
        || !matches!(
            o.kind.as_str(),
            "ValidatingWebhookConfiguration" | "MutatingWebhookConfiguration"
        )
    {
        return;
    }
    let v = o.value();
    let injected = [
        "service.beta.openshift.io/inject-cabundle",
        "cert-manager.io/inject-ca-from",
    ]
    .iter()
    .any(|a| {
        v.pointer(&format!("/metadata/annotations/{}", yaml::escape(a)))
            .is_some()
    });
    // admissionregistration.k8s.io/v1 defaults failurePolicy to Fail; v1beta1 to Ignore.
    let default_policy = if o.version == "v1beta1" {
        "Ignore"
    } else {
        "Fail"
    };
    for (i, w) in v
        .get("webhooks")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        let base = format!("/webhooks/{i}");
        let name = w.get("name").and_then(Value::as_str).unwrap_or("");
        let Some(service) = w.pointer("/clientConfig/service") else {
            continue;
        };
        let svc_ns = service
            .get("namespace")
            .and_then(Value::as_str)
            .unwrap_or("");
        let svc_name = service.get("name").and_then(Value::as_str).unwrap_or("");
        let policy = w
            .get("failurePolicy")
            .and_then(Value::as_str)
            .unwrap_or(default_policy);
        if policy == "Fail" && set.find("", "Service", Some(svc_ns), svc_name).is_some() {
            sink.push("webhook-bootstrap-backend", o.file, o.line(&format!("{base}/failurePolicy")), Some(o.label()), format!("webhook {name:?} fails closed and is served by Service {svc_ns}/{svc_name}, a bootstrap object: until its pods run, every matching create is denied; use failurePolicy: Ignore or create the webhook after install"));
        }
        let has_ca = w
            .pointer("/clientConfig/caBundle")
            .and_then(Value::as_str)
            .is_some_and(|c| !c.is_empty());
        if !has_ca && !injected {
            sink.push("webhook-ca", o.file, o.line(&format!("{base}/clientConfig")), Some(o.label()), format!("webhook {name:?} is served by Service {svc_ns}/{svc_name} but has no caBundle and no service.beta.openshift.io/inject-cabundle annotation: the API server cannot verify it"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_of_each_form_are_found() {
        assert_eq!(
            find_placeholder("id: ${COMPARTMENT}").as_deref(),
            Some("${COMPARTMENT}")
        );
        assert_eq!(
            find_placeholder("a {{ .Values.x }} b").as_deref(),
            Some("{{ .Values.x }}")
        );
        assert_eq!(
            find_placeholder("compartment: $COMPARTMENT_ID").as_deref(),
            Some("$COMPARTMENT_ID")
        );
        assert_eq!(find_placeholder("price: $5, hash $2a$10$abc"), None);
        assert_eq!(find_placeholder("#!/bin/bash\necho $HOME"), None);
        assert_eq!(
            find_placeholder("path: /opt/$APP_HOME/bin").as_deref(),
            Some("$APP_HOME")
        );
    }

    /// The hash of a fresh `openshift-install create manifests` (issue 33: 6 runs in 20 had a
    /// salt starting with two capitals, read as `$PKQ3`).
    #[test]
    fn a_bcrypt_hash_is_no_placeholder() {
        for hash in [
            "$2a$10$PKQ3Jv1lWpJ0xVvQ7pT9P.2qmQb4Xc1y5Rk9u8Wn3sZpE6fD7hGiK",
            "$2a$10$ABcdefghijklmnopqrstuv1234567890ABCDEFGHIJKLMNOPQRSTU",
            "$6$SALTSALT$HASHhash/.",
            "$y$j9T$ZZ$YYYY",
        ] {
            assert_eq!(find_placeholder(hash), None, "{hash}");
            assert_eq!(find_placeholder(&format!("{hash}\n")), None, "{hash}");
        }
    }

    proptest::proptest! {
        /// No bcrypt hash (the alphabet `./A-Za-z0-9`, any cost) is read as a placeholder, nor
        /// is base64 of any bytes; a real `$VAR` or `${…}` written in text still is.
        #[test]
        fn encoded_values_hold_no_placeholder(
            salt in "[./A-Za-z0-9]{53}",
            cost in 4u8..32,
            bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..128),
            var in "[A-Z][A-Z0-9_]{1,12}",
        ) {
            let hash = format!("$2a${cost:02}${salt}");
            proptest::prop_assert_eq!(find_placeholder(&hash), None);
            let b64 = base64::engine::general_purpose::STANDARD.encode(&bytes);
            proptest::prop_assert_eq!(find_placeholder(&b64), None);
            let text = format!("value: ${var} and more");
            proptest::prop_assert_eq!(find_placeholder(&text), Some(format!("${var}")));
            let braced = format!("value: ${{{var}}}");
            proptest::prop_assert_eq!(find_placeholder(&braced), Some(format!("${{{var}}}")));
        }
    }
}
