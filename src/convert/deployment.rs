//! Deployments from the CSV install strategy, and the Subscription-style deployment
//! config applied on top of them.
//!
//! Source: operator-controller `rukpak/render/registryv1/generators/generators.go`
//! (`BundleCSVDeploymentGenerator`, `applyCustomConfigToDeployment` and its `apply*Config`
//! helpers, which follow OLM v0 `pkg/controller/operators/olm/overrides/inject/inject.go`).
//! The override semantics are upstream's latest (volumes and volume mounts replace an
//! entry of the same name instead of duplicating it; an empty `affinity: {}` erases the
//! affinity; an empty sub-affinity erases that part).

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::bundle::DeploymentSpec;

use super::Error;

/// Pod affinity overrides; each part, when given, replaces the deployment's.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Affinity {
    /// `nodeAffinity` (a `core/v1.NodeAffinity` as JSON).
    #[serde(default)]
    pub node_affinity: Option<Value>,
    /// `podAffinity` (a `core/v1.PodAffinity` as JSON).
    #[serde(default)]
    pub pod_affinity: Option<Value>,
    /// `podAntiAffinity` (a `core/v1.PodAntiAffinity` as JSON).
    #[serde(default)]
    pub pod_anti_affinity: Option<Value>,
}

/// Deployment customisations in the shape of an OLM Subscription's `spec.config`
/// (OLM v1 `DeploymentConfig`). Every CSV deployment gets them.
///
/// List entries are kept as JSON (`core/v1` `EnvVar`, `EnvFromSource`, `Volume`,
/// `VolumeMount`, `Toleration`); only the keys OLM matches on (`name`) are read.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DeploymentConfig {
    /// Environment variables for every container; one with an existing name replaces it.
    #[serde(default)]
    pub env: Vec<Value>,
    /// `envFrom` sources appended to every container, skipping exact duplicates.
    #[serde(default)]
    pub env_from: Vec<Value>,
    /// Pod volumes; one with an existing name replaces it.
    #[serde(default)]
    pub volumes: Vec<Value>,
    /// Volume mounts for every container; one with an existing name replaces it.
    #[serde(default)]
    pub volume_mounts: Vec<Value>,
    /// Pod tolerations appended, skipping exact duplicates.
    #[serde(default)]
    pub tolerations: Vec<Value>,
    /// Resource requirements that replace every container's.
    #[serde(default)]
    pub resources: Option<Value>,
    /// Node selector that replaces the pod's (an empty map removes it).
    #[serde(default)]
    pub node_selector: Option<BTreeMap<String, String>>,
    /// Affinity overrides.
    #[serde(default)]
    pub affinity: Option<Affinity>,
    /// Annotations added to the Deployment and its pod template where not already set.
    #[serde(default)]
    pub annotations: BTreeMap<String, String>,
}

impl DeploymentConfig {
    /// Read a config from its JSON form (`{"env": [...], "nodeSelector": {...}, ...}`).
    pub fn from_value(value: &Value) -> Result<Self, serde_json::Error> {
        Self::deserialize(value)
    }
}

fn bad(csv: &str, deployment: &str, field: &str, expected: &'static str, found: &Value) -> Error {
    Error::InvalidDeployment {
        csv: csv.to_owned(),
        deployment: deployment.to_owned(),
        field: field.to_owned(),
        expected,
        found: crate::bundle::type_name(found),
    }
}

/// `obj[key]` as a mutable mapping, created when absent or null.
fn child_map<'a>(
    obj: &'a mut Map<String, Value>,
    key: &str,
    ctx: (&str, &str, &str),
) -> Result<&'a mut Map<String, Value>, Error> {
    let slot = obj.entry(key).or_insert(Value::Null);
    if slot.is_null() {
        *slot = Value::Object(Map::new());
    }
    match slot {
        Value::Object(m) => Ok(m),
        other => Err(bad(ctx.0, ctx.1, ctx.2, "a mapping", other)),
    }
}

/// Build the Deployment object for one strategy deployment.
pub(crate) fn deployment(
    csv_name: &str,
    csv_annotations: &BTreeMap<String, String>,
    dep: &DeploymentSpec,
    install_namespace: &str,
    target_namespaces: &[String],
    options: &super::Options,
    cert_secret: Option<&str>,
) -> Result<Value, Error> {
    let config = options.deployment_config.as_ref();
    let name = dep.name.as_str();
    let mut spec = match &dep.spec {
        Value::Object(m) => m.clone(),
        other => return Err(bad(csv_name, name, "spec", "a mapping", other)),
    };

    {
        let template = child_map(&mut spec, "template", (csv_name, name, "spec.template"))?;
        let metadata = child_map(
            template,
            "metadata",
            (csv_name, name, "spec.template.metadata"),
        )?;
        // CSV annotations, overridden by the template's own, then the OperatorGroup ones
        // (OLM v0 copies the CSV's annotations, which carry these, onto the pod template).
        let mut annotations = csv_annotations.clone();
        if let Some(own) = metadata.get("annotations").filter(|v| !v.is_null()) {
            let Value::Object(own) = own else {
                return Err(bad(
                    csv_name,
                    name,
                    "spec.template.metadata.annotations",
                    "a mapping",
                    own,
                ));
            };
            for (k, v) in own {
                let s = match v {
                    Value::String(s) => s.clone(),
                    Value::Null => String::new(),
                    other => {
                        return Err(bad(
                            csv_name,
                            name,
                            &format!("spec.template.metadata.annotations.{k}"),
                            "a string",
                            other,
                        ));
                    }
                };
                annotations.insert(k.clone(), s);
            }
        }
        // No release branch adds `olm.operatorNamespace` (upstream main does, after 4.22).
        annotations.insert("olm.targetNamespaces".into(), target_namespaces.join(","));
        metadata.insert("annotations".into(), string_map_value(&annotations));
    }
    // Parity with OLM v0: keep one old ReplicaSet (4.19 on; 4.18's converter does not).
    if options.revision_history_limit() {
        spec.insert("revisionHistoryLimit".into(), json!(1));
    }

    let mut metadata = Map::new();
    metadata.insert("name".into(), json!(name));
    metadata.insert("namespace".into(), json!(install_namespace));
    if !dep.label.is_empty() {
        metadata.insert("labels".into(), string_map_value(&dep.label));
    }
    let mut obj = Map::new();
    obj.insert("apiVersion".into(), json!("apps/v1"));
    obj.insert("kind".into(), json!("Deployment"));
    obj.insert("metadata".into(), Value::Object(metadata));
    obj.insert("spec".into(), Value::Object(spec));

    // Serving-certificate volumes come before the deployment config, as upstream orders them.
    if let Some(secret) = cert_secret {
        let pod = pod_spec(&mut obj, csv_name, name)?;
        check_cert_volume_lists(pod, csv_name, name)?;
        super::webhooks::ensure_cert_volumes(pod, secret);
    }
    if let Some(config) = config {
        apply_config(&mut obj, config, csv_name, name)?;
    }
    Ok(Value::Object(obj))
}

/// The lists `ensure_cert_volumes` rewrites must be lists of mappings.
fn check_cert_volume_lists(
    pod: &mut Map<String, Value>,
    csv: &str,
    dep: &str,
) -> Result<(), Error> {
    list_mut(pod, "volumes", csv, dep, "spec.template.spec")?;
    for_each_container(pod, csv, dep, |c, field| {
        list_mut(c, "volumeMounts", csv, dep, field)?;
        Ok(())
    })
}

fn string_map_value(m: &BTreeMap<String, String>) -> Value {
    Value::Object(
        m.iter()
            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
            .collect(),
    )
}

/// The pod spec of a Deployment object built by [`deployment`].
fn pod_spec<'a>(
    obj: &'a mut Map<String, Value>,
    csv: &str,
    dep: &str,
) -> Result<&'a mut Map<String, Value>, Error> {
    let spec = child_map(obj, "spec", (csv, dep, "spec"))?;
    let template = child_map(spec, "template", (csv, dep, "spec.template"))?;
    child_map(template, "spec", (csv, dep, "spec.template.spec"))
}

/// Each container of the pod spec, as a mapping (init containers are left alone, as
/// upstream does).
fn for_each_container(
    pod: &mut Map<String, Value>,
    csv: &str,
    dep: &str,
    mut f: impl FnMut(&mut Map<String, Value>, &str) -> Result<(), Error>,
) -> Result<(), Error> {
    let Some(containers) = pod.get_mut("containers").filter(|v| !v.is_null()) else {
        return Ok(());
    };
    let Value::Array(containers) = containers else {
        return Err(bad(
            csv,
            dep,
            "spec.template.spec.containers",
            "a list",
            containers,
        ));
    };
    for (i, c) in containers.iter_mut().enumerate() {
        let field = format!("spec.template.spec.containers[{i}]");
        let Value::Object(c) = c else {
            return Err(bad(csv, dep, &field, "a mapping", c));
        };
        f(c, &field)?;
    }
    Ok(())
}

fn list_mut<'a>(
    obj: &'a mut Map<String, Value>,
    key: &str,
    csv: &str,
    dep: &str,
    field: &str,
) -> Result<&'a mut Vec<Value>, Error> {
    let slot = obj.entry(key).or_insert(Value::Null);
    if slot.is_null() {
        *slot = Value::Array(Vec::new());
    }
    match slot {
        Value::Array(a) => Ok(a),
        other => Err(bad(csv, dep, &format!("{field}.{key}"), "a list", other)),
    }
}

fn entry_name(v: &Value) -> &str {
    v.get("name").and_then(Value::as_str).unwrap_or("")
}

/// Go's `reflect.DeepEqual` on the typed structs ignores how absent fields were spelled;
/// compare with `null`s dropped.
fn same(a: &Value, b: &Value) -> bool {
    fn strip(v: &Value) -> Value {
        match v {
            Value::Object(m) => Value::Object(
                m.iter()
                    .filter(|(_, v)| !v.is_null())
                    .map(|(k, v)| (k.clone(), strip(v)))
                    .collect(),
            ),
            Value::Array(a) => Value::Array(a.iter().map(strip).collect()),
            v => v.clone(),
        }
    }
    strip(a) == strip(b)
}

/// Replace entries whose `name` matches one already present (the index of its last
/// occurrence, as a Go map built in order would hold) or append; the index is built before
/// the loop, so two config entries with one new name are both appended (as upstream).
fn merge_by_name(list: &mut Vec<Value>, additions: &[Value]) {
    let index: BTreeMap<String, usize> = list
        .iter()
        .enumerate()
        .map(|(i, v)| (entry_name(v).to_owned(), i))
        .collect();
    for add in additions {
        match index.get(entry_name(add)) {
            Some(&i) => list[i] = add.clone(),
            None => list.push(add.clone()),
        }
    }
}

fn append_unique(list: &mut Vec<Value>, additions: &[Value]) {
    for add in additions {
        if !list.iter().any(|v| same(v, add)) {
            list.push(add.clone());
        }
    }
}

fn is_empty_list(v: Option<&Value>) -> bool {
    match v {
        None | Some(Value::Null) => true,
        Some(Value::Array(a)) => a.is_empty(),
        Some(_) => false,
    }
}

fn node_affinity_empty(v: &Value) -> bool {
    let required = v.get("requiredDuringSchedulingIgnoredDuringExecution");
    let required_empty = match required {
        None | Some(Value::Null) => true,
        Some(r) => is_empty_list(r.get("nodeSelectorTerms")),
    };
    required_empty && is_empty_list(v.get("preferredDuringSchedulingIgnoredDuringExecution"))
}

fn pod_affinity_empty(v: &Value) -> bool {
    is_empty_list(v.get("requiredDuringSchedulingIgnoredDuringExecution"))
        && is_empty_list(v.get("preferredDuringSchedulingIgnoredDuringExecution"))
}

fn apply_config(
    obj: &mut Map<String, Value>,
    config: &DeploymentConfig,
    csv: &str,
    dep: &str,
) -> Result<(), Error> {
    {
        let pod = pod_spec(obj, csv, dep)?;
        // env: override by name, else append.
        if !config.env.is_empty() {
            for_each_container(pod, csv, dep, |c, field| {
                let env = list_mut(c, "env", csv, dep, field)?;
                merge_by_name(env, &config.env);
                Ok(())
            })?;
        }
        // envFrom: append unless an equal source is there.
        if !config.env_from.is_empty() {
            for_each_container(pod, csv, dep, |c, field| {
                let env_from = list_mut(c, "envFrom", csv, dep, field)?;
                append_unique(env_from, &config.env_from);
                Ok(())
            })?;
        }
        if !config.volumes.is_empty() {
            let volumes = list_mut(pod, "volumes", csv, dep, "spec.template.spec")?;
            merge_by_name(volumes, &config.volumes);
        }
        if !config.volume_mounts.is_empty() {
            for_each_container(pod, csv, dep, |c, field| {
                let mounts = list_mut(c, "volumeMounts", csv, dep, field)?;
                merge_by_name(mounts, &config.volume_mounts);
                Ok(())
            })?;
        }
        if !config.tolerations.is_empty() {
            let tolerations = list_mut(pod, "tolerations", csv, dep, "spec.template.spec")?;
            append_unique(tolerations, &config.tolerations);
        }
        if let Some(resources) = &config.resources {
            for_each_container(pod, csv, dep, |c, _| {
                c.insert("resources".into(), resources.clone());
                Ok(())
            })?;
        }
        if let Some(selector) = &config.node_selector {
            // An empty map replaces the selector too; Go then omits the empty field.
            if selector.is_empty() {
                pod.remove("nodeSelector");
            } else {
                pod.insert("nodeSelector".into(), string_map_value(selector));
            }
        }
        if let Some(affinity) = &config.affinity {
            apply_affinity(pod, affinity, csv, dep)?;
        }
    }
    if !config.annotations.is_empty() {
        for path in [&["metadata"][..], &["spec", "template", "metadata"][..]] {
            let mut cur: &mut Map<String, Value> = obj;
            let mut field = String::new();
            for key in path {
                if !field.is_empty() {
                    field.push('.');
                }
                field.push_str(key);
                cur = child_map(cur, key, (csv, dep, &field))?;
            }
            let ann = child_map(
                cur,
                "annotations",
                (csv, dep, &format!("{field}.annotations")),
            )?;
            // Existing annotations win.
            for (k, v) in &config.annotations {
                ann.entry(k.clone())
                    .or_insert_with(|| Value::String(v.clone()));
            }
        }
    }
    Ok(())
}

fn apply_affinity(
    pod: &mut Map<String, Value>,
    affinity: &Affinity,
    csv: &str,
    dep: &str,
) -> Result<(), Error> {
    let given = |v: &Option<Value>| v.as_ref().filter(|v| !v.is_null()).cloned();
    let (node, pa, paa) = (
        given(&affinity.node_affinity),
        given(&affinity.pod_affinity),
        given(&affinity.pod_anti_affinity),
    );
    if node.is_none() && pa.is_none() && paa.is_none() {
        // `affinity: {}` erases the whole affinity.
        pod.remove("affinity");
        return Ok(());
    }
    let current = child_map(pod, "affinity", (csv, dep, "spec.template.spec.affinity"))?;
    let parts = [
        (
            "nodeAffinity",
            node,
            node_affinity_empty as fn(&Value) -> bool,
        ),
        ("podAffinity", pa, pod_affinity_empty),
        ("podAntiAffinity", paa, pod_affinity_empty),
    ];
    for (key, value, empty) in parts {
        if let Some(v) = value {
            if empty(&v) {
                current.remove(key);
            } else {
                current.insert(key.into(), v);
            }
        }
    }
    let all_empty = current
        .get("nodeAffinity")
        .filter(|v| !v.is_null())
        .is_none_or(node_affinity_empty)
        && current
            .get("podAffinity")
            .filter(|v| !v.is_null())
            .is_none_or(pod_affinity_empty)
        && current
            .get("podAntiAffinity")
            .filter(|v| !v.is_null())
            .is_none_or(pod_affinity_empty);
    if all_empty {
        pod.remove("affinity");
    }
    Ok(())
}
