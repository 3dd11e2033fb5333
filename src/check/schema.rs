//! A custom resource against its CRD's `openAPIV3Schema`, as the API server checks it: defaults
//! first, then validation (required fields, types, enums, bounds, patterns), and pruning of
//! fields the structural schema does not declare (kubernetes apiextensions-apiserver
//! `pkg/apiserver/schema/{defaulting,pruning}` and `pkg/apiserver/validation`).
//!
//! The schema is an OpenAPI v3.0 subset, read here as JSON Schema draft 4 (whose boolean
//! `exclusiveMinimum` it shares) by the `jsonschema` crate, after rewriting the Kubernetes
//! extensions: `nullable: true` adds `null` to the type, `x-kubernetes-int-or-string` accepts an
//! integer or a string, `format` is dropped (Kubernetes' formats are its own), and
//! `x-kubernetes-preserve-unknown-fields` / `x-kubernetes-embedded-resource` only matter to
//! pruning. CEL rules (`x-kubernetes-validations`) are not evaluated.

use serde_json::{Map, Value, json};

use super::files::Object;
use super::{Sink, pointer_field, yaml};

pub(crate) fn check(crd: &Object<'_>, cr: &Object<'_>, sink: &mut Sink) {
    let versions = crd
        .value()
        .pointer("/spec/versions")
        .and_then(Value::as_array);
    let version = versions
        .into_iter()
        .flatten()
        .find(|v| v.get("name").and_then(Value::as_str) == Some(cr.version.as_str()));
    let served = version
        .and_then(|v| v.get("served"))
        .and_then(Value::as_bool)
        .unwrap_or(false);
    if !served {
        let list: Vec<&str> = versions
            .into_iter()
            .flatten()
            .filter(|v| v.get("served").and_then(Value::as_bool) == Some(true))
            .filter_map(|v| v.get("name").and_then(Value::as_str))
            .collect();
        sink.push(
            "crd-version",
            cr.file,
            cr.line("/apiVersion"),
            Some(cr.label()),
            format!(
                "version {} is not served by CRD {} ({}); served: {}",
                cr.version,
                crd.name,
                crd.file.path(),
                if list.is_empty() {
                    "none".into()
                } else {
                    list.join(", ")
                }
            ),
        );
        return;
    }
    let Some(schema) = version.and_then(|v| v.pointer("/schema/openAPIV3Schema")) else {
        return;
    };
    let mut instance = cr.value().clone();
    apply_defaults(schema, &mut instance);
    let mut json_schema = to_json_schema(schema);
    // The API server validates metadata itself; a CRD may only narrow name rules there.
    if let Some(props) = json_schema
        .get_mut("properties")
        .and_then(Value::as_object_mut)
    {
        props.insert("metadata".into(), json!({"type": "object"}));
    }
    match jsonschema::options()
        .with_draft(jsonschema::Draft::Draft4)
        .build(&json_schema)
    {
        Ok(validator) => {
            let mut seen = Vec::new();
            for e in validator.iter_errors(&instance) {
                let pointer = e.instance_path().as_str().to_string();
                let message = e.to_string();
                if seen.contains(&(pointer.clone(), message.clone())) {
                    continue;
                }
                seen.push((pointer.clone(), message.clone()));
                let field = if pointer.is_empty() {
                    "the object".to_string()
                } else {
                    pointer_field(&pointer)
                };
                sink.push(
                    "cr-schema",
                    cr.file,
                    cr.line(&pointer),
                    Some(cr.label()),
                    format!(
                        "{field}: {message} (CRD {} in {})",
                        crd.name,
                        crd.file.path()
                    ),
                );
            }
        }
        Err(e) => sink.push(
            "cr-schema",
            crd.file,
            crd.line("/spec/versions"),
            Some(crd.label()),
            format!(
                "the openAPIV3Schema of version {} cannot be read: {e}",
                cr.version
            ),
        ),
    }
    let mut pruned = Vec::new();
    prune(schema, cr.value(), String::new(), true, &mut pruned);
    for pointer in pruned {
        sink.push(
            "cr-pruned",
            cr.file,
            cr.line(&pointer),
            Some(cr.label()),
            format!(
                "{} is not in the schema of CRD {}; the API server drops it",
                pointer_field(&pointer),
                crd.name
            ),
        );
    }
}

/// Rewrite a Kubernetes structural schema into JSON Schema draft 4.
fn to_json_schema(schema: &Value) -> Value {
    let Some(map) = schema.as_object() else {
        return schema.clone();
    };
    let mut out = Map::new();
    for (k, v) in map {
        match k.as_str() {
            "properties" | "patternProperties" | "definitions" => {
                let props = v
                    .as_object()
                    .map(|m| {
                        m.iter()
                            .map(|(n, s)| (n.clone(), to_json_schema(s)))
                            .collect()
                    })
                    .unwrap_or_default();
                out.insert(k.clone(), Value::Object(props));
            }
            "items" | "not" => {
                out.insert(k.clone(), to_json_schema(v));
            }
            "additionalProperties" => {
                out.insert(
                    k.clone(),
                    if v.is_boolean() {
                        v.clone()
                    } else {
                        to_json_schema(v)
                    },
                );
            }
            "allOf" | "anyOf" | "oneOf" => {
                let list = v
                    .as_array()
                    .map(|l| l.iter().map(to_json_schema).collect())
                    .unwrap_or_default();
                out.insert(k.clone(), Value::Array(list));
            }
            "type" | "required" | "enum" | "minimum" | "maximum" | "exclusiveMinimum"
            | "exclusiveMaximum" | "minLength" | "maxLength" | "pattern" | "minItems"
            | "maxItems" | "uniqueItems" | "minProperties" | "maxProperties" | "multipleOf" => {
                out.insert(k.clone(), v.clone());
            }
            // format, default, description, nullable, x-kubernetes-*: handled below or not
            // validation.
            _ => {}
        }
    }
    if map
        .get("x-kubernetes-int-or-string")
        .and_then(Value::as_bool)
        == Some(true)
    {
        out.remove("type");
        if !out.contains_key("anyOf") {
            out.insert(
                "anyOf".into(),
                json!([{"type": "integer"}, {"type": "string"}]),
            );
        }
    }
    if map.get("nullable").and_then(Value::as_bool) == Some(true) {
        if let Some(Value::String(t)) = out.get("type").cloned() {
            out.insert("type".into(), json!([t, "null"]));
        }
        if let Some(Value::Array(mut e)) = out.get("enum").cloned() {
            e.push(Value::Null);
            out.insert("enum".into(), Value::Array(e));
        }
    }
    Value::Object(out)
}

/// Set `default`s of absent object properties, as the API server does before validation.
fn apply_defaults(schema: &Value, value: &mut Value) {
    match value {
        Value::Object(map) => {
            if let Some(props) = schema.get("properties").and_then(Value::as_object) {
                for (name, prop) in props {
                    if !map.contains_key(name)
                        && let Some(d) = prop.get("default")
                    {
                        map.insert(name.clone(), d.clone());
                    }
                    if let Some(child) = map.get_mut(name) {
                        apply_defaults(prop, child);
                    }
                }
            } else if let Some(extra) = schema.get("additionalProperties").filter(|a| a.is_object())
            {
                for child in map.values_mut() {
                    apply_defaults(extra, child);
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items") {
                for item in items {
                    apply_defaults(item_schema, item);
                }
            }
        }
        _ => {}
    }
}

/// The pointers of fields the API server would prune.
fn prune(schema: &Value, value: &Value, pointer: String, root: bool, out: &mut Vec<String>) {
    let flag = |k: &str| schema.get(k).and_then(Value::as_bool) == Some(true);
    match value {
        Value::Object(map) => {
            let preserve = flag("x-kubernetes-preserve-unknown-fields");
            let embedded = flag("x-kubernetes-embedded-resource");
            let props = schema.get("properties").and_then(Value::as_object);
            let extra = schema.get("additionalProperties");
            for (k, child) in map {
                let p = format!("{pointer}/{}", yaml::escape(k));
                if (root || embedded) && matches!(k.as_str(), "apiVersion" | "kind" | "metadata") {
                    continue;
                }
                if let Some(s) = props.and_then(|m| m.get(k)) {
                    prune(s, child, p, false, out);
                } else if let Some(s) = extra.filter(|a| a.is_object()) {
                    prune(s, child, p, false, out);
                } else if preserve || extra.and_then(Value::as_bool) == Some(true) {
                    continue;
                } else {
                    out.push(p);
                }
            }
        }
        Value::Array(items) => {
            if let Some(s) = schema.get("items") {
                for (i, item) in items.iter().enumerate() {
                    prune(s, item, format!("{pointer}/{i}"), false, out);
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn int_or_string_and_nullable_are_rewritten() {
        let s = to_json_schema(&json!({"type": "object", "properties": {
            "port": {"x-kubernetes-int-or-string": true},
            "note": {"type": "string", "nullable": true, "format": "byte"}}}));
        assert_eq!(
            s["properties"]["port"],
            json!({"anyOf": [{"type": "integer"}, {"type": "string"}]})
        );
        assert_eq!(s["properties"]["note"], json!({"type": ["string", "null"]}));
    }

    #[test]
    fn unknown_fields_are_pruned_unless_preserved() {
        let schema = json!({"type": "object", "properties": {
            "spec": {"type": "object", "properties": {"a": {"type": "string"}}},
            "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}});
        let mut out = Vec::new();
        prune(
            &schema,
            &json!({"apiVersion": "x/v1", "kind": "K", "metadata": {"name": "n"},
            "spec": {"a": "x", "b": 1}, "status": {"anything": true}}),
            String::new(),
            true,
            &mut out,
        );
        assert_eq!(out, ["/spec/b"]);
    }

    #[test]
    fn defaults_fill_required_fields() {
        let schema =
            json!({"type": "object", "properties": {"mode": {"type": "string", "default": "x"}}});
        let mut v = json!({});
        apply_defaults(&schema, &mut v);
        assert_eq!(v, json!({"mode": "x"}));
    }
}
