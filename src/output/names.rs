//! Names that come from a catalog or a bundle are checked like the configuration's own before
//! anything is written: a bundle is untrusted content. Kubernetes' rules, from
//! `k8s.io/apimachinery/pkg/util/validation/validation.go` (`IsDNS1123Label`,
//! `IsDNS1123Subdomain`, `IsDNS1035Label`) and `k8s.io/apimachinery/pkg/api/validation/path`
//! (`IsValidPathSegmentName`), per kind as kubernetes `pkg/apis/core/validation/validation.go`
//! (`ValidateNamespaceName = NameIsDNSLabel`, `ValidateServiceName = NameIsDNS1035Label`, most
//! others `NameIsDNSSubdomain`) and `pkg/apis/rbac/validation/validation.go`
//! (`ValidateRBACName = path.IsValidPathSegmentName`) apply them.

use serde_json::Value;

use crate::text::escape;

use crate::kubenames::{MAX_LABEL, check_label, check_name, name_rule};

/// The API group of an `apiVersion` (`v1` → `""`, `apps/v1` → `apps`).
fn group_of(api_version: &str) -> &str {
    api_version.rsplit_once('/').map_or("", |(g, _)| g)
}

/// Top-level fields each core kind may have besides `apiVersion`, `kind` and `metadata`
/// (its Go type's JSON fields); `None` for kinds not listed (custom resources may define
/// their own).
fn top_level_fields(group: &str, kind: &str) -> Option<&'static [&'static str]> {
    Some(match (group, kind) {
        ("", "Namespace" | "Service")
        | ("apps", "Deployment")
        | ("apiextensions.k8s.io", "CustomResourceDefinition")
        | ("policy", "PodDisruptionBudget")
        | ("networking.k8s.io", "NetworkPolicy") => &["spec", "status"],
        ("", "ServiceAccount") => &[
            "secrets",
            "imagePullSecrets",
            "automountServiceAccountToken",
        ],
        ("", "ConfigMap") => &["data", "binaryData", "immutable"],
        ("", "Secret") => &["data", "stringData", "type", "immutable"],
        ("rbac.authorization.k8s.io", "Role") => &["rules"],
        ("rbac.authorization.k8s.io", "ClusterRole") => &["rules", "aggregationRule"],
        ("rbac.authorization.k8s.io", "RoleBinding" | "ClusterRoleBinding") => {
            &["subjects", "roleRef"]
        }
        ("scheduling.k8s.io", "PriorityClass") => {
            &["value", "globalDefault", "description", "preemptionPolicy"]
        }
        _ => return None,
    })
}

/// Why an object to be written is not a valid Kubernetes object by name: `metadata.name`
/// missing, empty or invalid for its kind, an invalid `metadata.namespace`, or a top-level
/// field the kind does not have.
pub fn check_object(object: &Value) -> Result<(), String> {
    let Some(map) = object.as_object() else {
        return Err("is not a mapping".into());
    };
    let kind = match map.get("kind") {
        Some(Value::String(k)) if !k.is_empty() => k.as_str(),
        _ => return Err("has no kind".into()),
    };
    let group = match map.get("apiVersion") {
        Some(Value::String(v)) if !v.is_empty() => group_of(v),
        _ => return Err(format!("{kind} has no apiVersion")),
    };
    let metadata = map.get("metadata").and_then(Value::as_object);
    let name = match metadata.and_then(|m| m.get("name")) {
        Some(Value::String(n)) => n.as_str(),
        Some(_) => return Err(format!("{kind} has a metadata.name that is not a string")),
        None => return Err(format!("{kind} has no metadata.name")),
    };
    check_name(name, name_rule(group, kind))
        .map_err(|why| format!("{kind} name {} {why}", escape(name)))?;
    if let Some(ns) = metadata.and_then(|m| m.get("namespace")) {
        let Some(ns) = ns.as_str() else {
            return Err(format!(
                "{kind} {name} has a metadata.namespace that is not a string"
            ));
        };
        check_label(ns, MAX_LABEL)
            .map_err(|why| format!("{kind} {name}: namespace {} {why}", escape(ns)))?;
    }
    if let Some(allowed) = top_level_fields(group, kind)
        && let Some(field) = map.keys().find(|k| {
            !matches!(k.as_str(), "apiVersion" | "kind" | "metadata")
                && !allowed.contains(&k.as_str())
        })
    {
        return Err(format!(
            "{kind} {name} has the top-level field {} that a {kind} does not have (known: {})",
            escape(field),
            allowed.join(", ")
        ));
    }
    Ok(())
}

/// Whether OpenShift or Kubernetes owns `namespace` (`default`, `kube-*`, `openshift-*`, and
/// `kube-system`-like names without the dash: `kube`, `openshift`).
pub fn is_platform_namespace(namespace: &str) -> bool {
    matches!(namespace, "default" | "kube" | "openshift")
        || namespace.starts_with("kube-")
        || namespace.starts_with("openshift-")
}

/// Why a platform namespace ([`is_platform_namespace`]) is the platform's, in words.
fn reserved_because(namespace: &str) -> &'static str {
    if namespace.starts_with("kube-") || namespace == "kube" {
        "names beginning with `kube-` are reserved for Kubernetes' own system namespaces (kube-system, kube-public, kube-node-lease), and OpenShift refuses a project request for them"
    } else if namespace.starts_with("openshift-") || namespace == "openshift" {
        "names beginning with `openshift-` are reserved for OpenShift's own components (a project request for one is refused, and OpenShift treats what runs there as its own)"
    } else {
        "`default` is the cluster's shared namespace, where an operator's objects mix with everyone's"
    }
}

/// Check an operator's install namespace. `configured` is whether the configuration names it
/// (then a platform namespace is the user's explicit choice); otherwise it came from the
/// bundle's `operatorframework.io/suggested-namespace` or the package name.
pub fn check_install_namespace(namespace: &str, configured: bool) -> Result<(), String> {
    check_label(namespace, MAX_LABEL)
        .map_err(|why| format!("install namespace {} {why}", escape(namespace)))?;
    if !configured && is_platform_namespace(namespace) {
        return Err(format!(
            "install namespace {namespace} (the bundle's suggestion) belongs to OpenShift or Kubernetes: {}; \
             set `namespace: {namespace}` on the operator to install there anyway, or name another",
            reserved_because(namespace)
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kubenames::NameRule;
    use serde_json::json;

    #[test]
    fn hostile_suggested_namespaces_are_refused() {
        for bad in ["../../../tmp/evil", "Kube_System!", &"a".repeat(300), ""] {
            assert!(check_install_namespace(bad, false).is_err(), "{bad}");
        }
        let kube = check_install_namespace("kube-system", false).unwrap_err();
        assert!(
            kube.contains("names beginning with `kube-` are reserved for Kubernetes"),
            "{kube}"
        );
        let openshift = check_install_namespace("openshift-logging", false).unwrap_err();
        assert!(
            openshift.contains("`openshift-` are reserved"),
            "{openshift}"
        );
        assert!(check_install_namespace("default", false).is_err());
        assert!(check_install_namespace("openshift-logging", false).is_err());
        assert!(check_install_namespace("openshift-logging", true).is_ok());
        assert!(check_install_namespace("cert-manager", false).is_ok());
    }

    #[test]
    fn objects_need_a_valid_name_for_their_kind() {
        let obj = |kind: &str, name: Value| json!({"apiVersion": "v1", "kind": kind, "metadata": {"name": name}});
        assert!(
            check_object(&json!({"apiVersion": "v1", "kind": "Service", "metadata": {}})).is_err()
        );
        assert!(check_object(&obj("Service", json!(""))).is_err());
        assert!(check_object(&obj("Service", json!("1abc"))).is_err());
        assert!(check_object(&obj("ConfigMap", json!("a.b-c"))).is_ok());
        assert!(check_object(&obj("Namespace", json!("a.b"))).is_err());
        let role = |name: &str| json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": name}});
        assert!(check_object(&role("system:foo")).is_ok());
        assert!(check_object(&role("a/b")).is_err());
        assert!(check_object(&obj("ConfigMap", json!(5))).is_err());
    }

    #[test]
    fn unknown_top_level_fields_of_core_kinds_are_refused() {
        let e = check_object(&json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}, "spec": {}}))
            .unwrap_err();
        assert!(e.contains("spec"), "{e}");
        assert!(check_object(&json!({"apiVersion": "x/v1", "kind": "Widget", "metadata": {"name": "a"}, "extra": 1})).is_ok());
        // A custom resource that shares a core kind's name is not that kind (ecr-secret-operator
        // ships a `Secret` of its own group with a `spec`).
        assert!(check_object(&json!({"apiVersion": "secrets.example.com/v1", "kind": "Secret", "metadata": {"name": "a"}, "spec": {}})).is_ok());
        assert!(check_object(&json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "a"}, "spec": {}})).is_err());
    }

    proptest::proptest! {
        #[test]
        fn a_valid_label_is_a_valid_subdomain(s in "[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?") {
            proptest::prop_assert!(check_name(&s, NameRule::Label).is_ok());
            proptest::prop_assert!(check_name(&s, NameRule::Subdomain).is_ok());
        }

        #[test]
        fn nothing_with_a_slash_or_uppercase_is_a_label(s in ".*[/A-Z].*") {
            proptest::prop_assert!(check_name(&s, NameRule::Label).is_err());
        }
    }
}
