//! A workload as the readiness rules read it: its pod spec, containers, ServiceAccount and
//! namespace ([`Workload`]); what its tolerations and node selection allow; the words of its
//! commands; and the rules both workload families share (a system priority class, every
//! ConfigMap, Secret and ServiceAccount it references in the set).

use serde_json::Value;

use crate::check::Sink;
use crate::check::files::Object;
use crate::check::objects::{ObjectSet, containers_in};

const CONTROL_PLANE_KEYS: [&str; 2] = [
    "node-role.kubernetes.io/master",
    "node-role.kubernetes.io/control-plane",
];

/// A workload (an object with a pod spec): the object, the pointer to its pod spec, the spec.
pub(super) struct Workload<'a, 'f> {
    pub(super) o: &'a Object<'f>,
    pub(super) base: &'static str,
    pub(super) spec: &'a Value,
}

impl Workload<'_, '_> {
    pub(super) fn line(&self, rel: &str) -> usize {
        self.o.line(&format!("{}{rel}", self.base))
    }
    pub(super) fn push(&self, sink: &mut Sink, id: &'static str, rel: &str, message: String) {
        sink.push(
            id,
            self.o.file,
            self.line(rel),
            Some(self.o.label()),
            message,
        );
    }
    pub(super) fn containers(&self, init: bool) -> Vec<(String, &Value)> {
        let lists: &'static [&'static str] = if init {
            &["initContainers", "containers"]
        } else {
            &["containers"]
        };
        containers_in(self.spec, lists)
            .map(|(list, i, c)| (format!("/{list}/{i}"), c))
            .collect()
    }
    pub(super) fn service_account(&self) -> &str {
        self.spec
            .get("serviceAccountName")
            .or_else(|| self.spec.get("serviceAccount"))
            .and_then(Value::as_str)
            .unwrap_or("default")
    }
    pub(super) fn namespace(&self) -> &str {
        self.o.namespace.as_deref().unwrap_or("")
    }
}

pub(super) fn tolerates(spec: &Value, key: &str, value: &str) -> bool {
    spec.get("tolerations")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .any(|t| {
            let effect = t.get("effect").and_then(Value::as_str).unwrap_or("");
            let t_key = t.get("key").and_then(Value::as_str).unwrap_or("");
            let op = t.get("operator").and_then(Value::as_str).unwrap_or("Equal");
            let effect_ok = effect.is_empty() || effect == "NoSchedule";
            let key_ok = (t_key.is_empty() && op == "Exists") || t_key == key;
            let value_ok =
                op == "Exists" || t.get("value").and_then(Value::as_str).unwrap_or("") == value;
            effect_ok && key_ok && value_ok
        })
}

pub(super) fn tolerates_control_plane(spec: &Value) -> bool {
    CONTROL_PLANE_KEYS.iter().any(|k| tolerates(spec, k, ""))
}

pub(super) fn selects_control_plane(spec: &Value) -> bool {
    let selector = spec.get("nodeSelector").and_then(Value::as_object);
    let affinity = spec
        .pointer("/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution")
        .map(|v| v.to_string())
        .unwrap_or_default();
    CONTROL_PLANE_KEYS
        .iter()
        .any(|k| selector.is_some_and(|s| s.contains_key(*k)) || affinity.contains(k))
}

/// Every word of a container's command and args (scripts split on whitespace).
pub(super) fn words(c: &Value) -> Vec<String> {
    ["command", "args"]
        .iter()
        .flat_map(|f| c.get(*f).and_then(Value::as_array).into_iter().flatten())
        .filter_map(Value::as_str)
        .flat_map(|s| s.split_whitespace().map(str::to_string).collect::<Vec<_>>())
        .collect()
}

/// The value of `--flag=value` or `--flag value`.
pub(super) fn flag(words: &[String], name: &str) -> Option<String> {
    for (i, w) in words.iter().enumerate() {
        let w = w.trim_matches(|c| c == '"' || c == '\'');
        if let Some(v) = w.strip_prefix(&format!("{name}=")) {
            return Some(v.to_string());
        }
        if w == name {
            return words.get(i + 1).cloned();
        }
    }
    None
}

pub(super) fn priority_class(w: &Workload<'_, '_>, id: &'static str, sink: &mut Sink) {
    let p = w
        .spec
        .get("priorityClassName")
        .and_then(Value::as_str)
        .unwrap_or("");
    if !matches!(p, "system-cluster-critical" | "system-node-critical") {
        w.push(
            sink,
            id,
            "/priorityClassName",
            format!("priorityClassName is {:?}; use system-cluster-critical", p),
        );
    }
}

/// ConfigMaps every namespace gets from the control plane.
const PUBLISHED_CONFIGMAPS: [&str; 2] = ["kube-root-ca.crt", "openshift-service-ca.crt"];

pub(super) fn references(
    set: &ObjectSet<'_>,
    w: &Workload<'_, '_>,
    id: &'static str,
    sink: &mut Sink,
) {
    let ns = w.namespace();
    let mut refs: Vec<(String, &'static str, String)> = Vec::new();
    let optional = |v: &Value| v.get("optional").and_then(Value::as_bool) == Some(true);
    for (i, v) in w
        .spec
        .get("volumes")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        if let Some(cm) = v.get("configMap").filter(|c| !optional(c))
            && let Some(n) = cm.get("name").and_then(Value::as_str)
        {
            refs.push((
                format!("/volumes/{i}/configMap/name"),
                "ConfigMap",
                n.into(),
            ));
        }
        if let Some(s) = v.get("secret").filter(|c| !optional(c))
            && let Some(n) = s.get("secretName").and_then(Value::as_str)
        {
            refs.push((
                format!("/volumes/{i}/secret/secretName"),
                "Secret",
                n.into(),
            ));
        }
        for (j, src) in v
            .pointer("/projected/sources")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            for (field, kind) in [("configMap", "ConfigMap"), ("secret", "Secret")] {
                if let Some(r) = src.get(field).filter(|c| !optional(c))
                    && let Some(n) = r.get("name").and_then(Value::as_str)
                {
                    refs.push((
                        format!("/volumes/{i}/projected/sources/{j}/{field}/name"),
                        kind,
                        n.into(),
                    ));
                }
            }
        }
    }
    for (rel, c) in w.containers(true) {
        for (i, e) in c
            .get("env")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            for (field, kind) in [("configMapKeyRef", "ConfigMap"), ("secretKeyRef", "Secret")] {
                if let Some(r) = e
                    .pointer(&format!("/valueFrom/{field}"))
                    .filter(|c| !optional(c))
                    && let Some(n) = r.get("name").and_then(Value::as_str)
                {
                    refs.push((
                        format!("{rel}/env/{i}/valueFrom/{field}/name"),
                        kind,
                        n.into(),
                    ));
                }
            }
        }
        for (i, e) in c
            .get("envFrom")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            for (field, kind) in [("configMapRef", "ConfigMap"), ("secretRef", "Secret")] {
                if let Some(r) = e.get(field).filter(|c| !optional(c))
                    && let Some(n) = r.get("name").and_then(Value::as_str)
                {
                    refs.push((format!("{rel}/envFrom/{i}/{field}/name"), kind, n.into()));
                }
            }
        }
    }
    let sa = w.service_account();
    if sa != "default" {
        let field = if w.spec.get("serviceAccountName").is_some() {
            "serviceAccountName"
        } else {
            "serviceAccount"
        };
        refs.push((format!("/{field}"), "ServiceAccount", sa.into()));
    }
    for (rel, kind, name) in refs {
        if kind == "ConfigMap" && PUBLISHED_CONFIGMAPS.contains(&name.as_str()) {
            continue;
        }
        if set.find("", kind, Some(ns), &name).is_none() {
            w.push(sink, id, &rel, format!("{kind} {ns}/{name} is not in the set; nothing else creates it before this workload must run, so its pods never start"));
        }
    }
}
