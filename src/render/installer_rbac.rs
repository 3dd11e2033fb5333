//! Least-privilege RBAC for the ServiceAccount OLM v1 installs a ClusterExtension with.
//!
//! We know every object the bundle will create (the conversion, exactly as OLM v1 does it), so
//! the installer gets exactly:
//!
//! - `update` on `clusterextensions/finalizers` for this extension only;
//! - for each kind of object: `create` on its resource (Kubernetes cannot restrict `create` by
//!   name), and `get`, `update`, `patch`, `delete` on exactly the objects' names, cluster-scoped
//!   objects in a ClusterRole, namespaced ones in a Role in their namespace; `list` and `watch`
//!   on every resource at cluster scope, in the ClusterRole, because OLM v1's content manager
//!   watches cluster-wide and its preflight check asks for exactly that (release-4.20
//!   `internal/operator-controller/authorization/rbac.go`: `clusterCollectionVerbs` checked
//!   with `Namespace: corev1.NamespaceAll`, `namespacedCollectionVerbs` per namespace,
//!   `objectVerbs` per object);
//! - every rule the bundle's own ClusterRoles and Roles grant, because Kubernetes refuses to let
//!   anyone create a role (or bind one) with permissions they do not hold themselves.
//!
//! Resource names come from kinds the way Kubernetes guesses them
//! (`meta.UnsafeGuessKindToResource`): lowercase, `-s` → `-ses`, `-y` → `-ies`, else `-s`; that
//! is right for every kind a registry+v1 bundle may contain.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};

/// Verbs that cannot be restricted by name.
pub const UNNAMED_VERBS: [&str; 3] = ["create", "list", "watch"];
/// The collection verbs OLM v1 needs cluster-wide for every resource it manages.
pub const CLUSTER_COLLECTION_VERBS: [&str; 2] = ["list", "watch"];
/// Verbs granted on exactly the bundle's object names.
pub const NAMED_VERBS: [&str; 4] = ["delete", "get", "patch", "update"];

/// The installer's rules.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct InstallerRbac {
    /// ClusterRole rules.
    pub cluster_rules: Vec<Value>,
    /// Role rules in the install namespace (empty: no Role is needed).
    pub namespace_rules: Vec<Value>,
    /// Role rules in each other namespace objects are created in (the watch namespace of a
    /// SingleNamespace install: its Roles and RoleBindings), by namespace.
    pub other_namespace_rules: Vec<(String, Vec<Value>)>,
}

/// The API group of an `apiVersion` (`v1` → `""`, `apps/v1` → `apps`).
pub fn api_group(api_version: &str) -> &str {
    api_version.rsplit_once('/').map(|(g, _)| g).unwrap_or("")
}

/// The resource (plural) for a kind, as Kubernetes guesses it.
pub fn resource_for_kind(kind: &str) -> String {
    let lower = kind.to_ascii_lowercase();
    if lower.ends_with('s') {
        format!("{lower}es")
    } else if let Some(stem) = lower.strip_suffix('y') {
        format!("{stem}ies")
    } else {
        format!("{lower}s")
    }
}

/// (group, resource) → names, for one scope.
type Targets = BTreeMap<(String, String), BTreeSet<String>>;

/// Derive the installer's rules from the converted bundle's objects.
pub fn derive(
    extension: &str,
    install_namespace: &str,
    objects: &[Value],
) -> Result<InstallerRbac, String> {
    let mut cluster = Targets::new();
    let mut namespaced = Targets::new();
    let mut cluster_role_rules = Vec::new();
    let mut role_rules = Vec::new();
    let mut others: BTreeMap<String, (Targets, Vec<Value>)> = BTreeMap::new();
    let bind = bind_rules(objects);
    for o in objects {
        let kind = o.get("kind").and_then(Value::as_str).unwrap_or_default();
        let api_version = o
            .get("apiVersion")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let name = o
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if kind.is_empty() || api_version.is_empty() || name.is_empty() {
            return Err(format!(
                "converted object without apiVersion, kind or name: {o}"
            ));
        }
        let key = (api_group(api_version).to_string(), resource_for_kind(kind));
        let namespace = o
            .pointer("/metadata/namespace")
            .and_then(Value::as_str)
            .filter(|_| !cluster_scoped(kind));
        match namespace {
            None => {
                cluster.entry(key).or_default().insert(name.to_string());
            }
            Some(ns) if ns == install_namespace => {
                namespaced.entry(key).or_default().insert(name.to_string());
            }
            Some(ns) => {
                let entry = others.entry(ns.to_string()).or_default();
                entry.0.entry(key).or_default().insert(name.to_string());
                if kind == "Role" {
                    entry.1.extend(
                        o.get("rules")
                            .and_then(Value::as_array)
                            .cloned()
                            .unwrap_or_default(),
                    );
                } else if kind != "RoleBinding" {
                    return Err(format!(
                        "{kind} {name} is in namespace {ns}, not the install namespace {install_namespace}: only Roles and RoleBindings are created in a watch namespace"
                    ));
                }
                continue;
            }
        }
        let rules = o
            .get("rules")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        match kind {
            "ClusterRole" => cluster_role_rules.extend(rules),
            "Role" => role_rules.extend(rules),
            _ => {}
        }
    }
    let mut cluster_rules = vec![json!({
        "apiGroups": ["olm.operatorframework.io"],
        "resources": ["clusterextensions/finalizers"],
        "verbs": ["update"],
        "resourceNames": [extension],
    })];
    cluster_rules.extend(object_rules(&cluster));
    // list/watch cluster-wide on the resources of namespaced objects too.
    let mut namespaced_resources: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for (group, resource) in namespaced
        .keys()
        .chain(others.values().flat_map(|(t, _)| t.keys()))
    {
        if !cluster.contains_key(&(group.clone(), resource.clone())) {
            namespaced_resources
                .entry(group)
                .or_default()
                .insert(resource);
        }
    }
    for (group, resources) in &namespaced_resources {
        cluster_rules.push(json!({ "apiGroups": [group], "resources": resources, "verbs": CLUSTER_COLLECTION_VERBS }));
    }
    push_unique(&mut cluster_rules, cluster_role_rules);
    push_unique(&mut cluster_rules, bind.cluster);
    let mut namespace_rules = namespaced_object_rules(&namespaced);
    push_unique(&mut namespace_rules, role_rules);
    if let Some(rules) = bind.namespaced.get(install_namespace) {
        push_unique(&mut namespace_rules, rules.clone());
    }
    let other_namespace_rules = others
        .into_iter()
        .map(|(ns, (targets, role_rules))| {
            let mut rules = namespaced_object_rules(&targets);
            push_unique(&mut rules, role_rules);
            if let Some(b) = bind.namespaced.get(&ns) {
                push_unique(&mut rules, b.clone());
            }
            (ns, rules)
        })
        .collect();
    Ok(InstallerRbac {
        cluster_rules,
        namespace_rules,
        other_namespace_rules,
    })
}

/// `bind` on the roles that bindings of the bundle reference but no object of it defines.
struct BindRules {
    cluster: Vec<Value>,
    namespaced: BTreeMap<String, Vec<Value>>,
}

/// Kubernetes lets a binding be created only by someone who holds the role's permissions or
/// `bind` on the role (RBAC escalation prevention; OLM v1's preflight, release-4.22
/// `internal/operator-controller/authorization/rbac.go`, checks the same). For a role the
/// bundle ships, the installer holds its rules; for one it does not (patterns-operator's
/// `Role/manager-role`), it needs `bind`.
fn bind_rules(objects: &[Value]) -> BindRules {
    let s = |o: &Value, p: &str| {
        o.pointer(p)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    let defined: BTreeSet<(String, String, String)> = objects
        .iter()
        .filter(|o| o["kind"] == "ClusterRole" || o["kind"] == "Role")
        .map(|o| {
            (
                s(o, "/kind"),
                s(o, "/metadata/namespace"),
                s(o, "/metadata/name"),
            )
        })
        .collect();
    let mut out = BindRules {
        cluster: Vec::new(),
        namespaced: BTreeMap::new(),
    };
    for o in objects {
        let kind = s(o, "/kind");
        if kind != "RoleBinding" && kind != "ClusterRoleBinding" {
            continue;
        }
        let role_kind = s(o, "/roleRef/kind");
        let role = s(o, "/roleRef/name");
        let ns = if role_kind == "Role" {
            s(o, "/metadata/namespace")
        } else {
            String::new()
        };
        if role.is_empty() || defined.contains(&(role_kind.clone(), ns.clone(), role.clone())) {
            continue;
        }
        let rule = json!({
            "apiGroups": ["rbac.authorization.k8s.io"],
            "resources": [if role_kind == "Role" { "roles" } else { "clusterroles" }],
            "verbs": ["bind"],
            "resourceNames": [role],
        });
        if role_kind == "Role" {
            out.namespaced.entry(ns).or_default().push(rule);
        } else {
            out.cluster.push(rule);
        }
    }
    out
}

/// Kinds a bundle's conversion yields that are cluster-scoped even when the object names a
/// namespace: OLM v1 sets `metadata.namespace` on the webhook configurations it generates
/// (`generators.go` `CreateValidatingWebhookConfigurationResource`), and the API server
/// ignores it.
fn cluster_scoped(kind: &str) -> bool {
    matches!(
        kind,
        "ValidatingWebhookConfiguration"
            | "MutatingWebhookConfiguration"
            | "CustomResourceDefinition"
            | "ClusterRole"
            | "ClusterRoleBinding"
            | "PriorityClass"
    )
}

/// `create/list/watch` per group on its resources, then named verbs per resource.
fn object_rules(targets: &Targets) -> Vec<Value> {
    let mut by_group: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (group, resource) in targets.keys() {
        by_group.entry(group).or_default().push(resource);
    }
    let mut rules: Vec<Value> = by_group
        .iter()
        .map(|(group, resources)| json!({ "apiGroups": [group], "resources": resources, "verbs": UNNAMED_VERBS }))
        .collect();
    rules.extend(targets.iter().map(|((group, resource), names)| {
        json!({ "apiGroups": [group], "resources": [resource], "verbs": NAMED_VERBS, "resourceNames": names })
    }));
    rules
}

/// `create` per group on its resources, then named verbs per resource (for a Role; `list`
/// and `watch` are in the ClusterRole).
fn namespaced_object_rules(targets: &Targets) -> Vec<Value> {
    let mut by_group: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (group, resource) in targets.keys() {
        by_group.entry(group).or_default().push(resource);
    }
    let mut rules: Vec<Value> = by_group
        .iter()
        .map(|(group, resources)| json!({ "apiGroups": [group], "resources": resources, "verbs": ["create"] }))
        .collect();
    rules.extend(targets.iter().map(|((group, resource), names)| {
        json!({ "apiGroups": [group], "resources": [resource], "verbs": NAMED_VERBS, "resourceNames": names })
    }));
    rules
}

fn push_unique(into: &mut Vec<Value>, rules: Vec<Value>) {
    for r in rules {
        if !into.contains(&r) {
            into.push(r);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resources_are_guessed_like_kubernetes() {
        for (kind, resource) in [
            ("Deployment", "deployments"),
            ("NetworkPolicy", "networkpolicies"),
            ("PriorityClass", "priorityclasses"),
            ("CustomResourceDefinition", "customresourcedefinitions"),
            ("ConsoleYAMLSample", "consoleyamlsamples"),
            ("PodDisruptionBudget", "poddisruptionbudgets"),
            ("ServiceAccount", "serviceaccounts"),
        ] {
            assert_eq!(resource_for_kind(kind), resource);
        }
    }

    #[test]
    fn groups() {
        assert_eq!(api_group("v1"), "");
        assert_eq!(
            api_group("rbac.authorization.k8s.io/v1"),
            "rbac.authorization.k8s.io"
        );
    }

    #[test]
    fn webhook_configurations_are_cluster_scoped() {
        let o = json!({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingWebhookConfiguration", "metadata": {"name": "v.example.com", "namespace": "ns"}});
        let rbac = derive("x", "ns", &[o]).unwrap();
        assert!(rbac.namespace_rules.is_empty());
        assert!(rbac.cluster_rules.iter().any(|r| r["resources"]
            == json!(["validatingwebhookconfigurations"])
            && r["resourceNames"] == json!(["v.example.com"])));
    }

    #[test]
    fn objects_outside_the_install_namespace_are_refused() {
        let o = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a", "namespace": "other"}});
        assert!(derive("x", "ns", &[o]).is_err());
    }

    /// patterns-operator binds `Role/manager-role`, which its bundle does not ship: the
    /// installer needs `bind` on it.
    #[test]
    fn bindings_to_roles_outside_the_bundle_need_bind() {
        let binding = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": {"name": "b", "namespace": "ns"},
                             "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "manager-role"}});
        let shipped = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding", "metadata": {"name": "c"},
                             "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "own"}});
        let own = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": "own"}, "rules": []});
        let rbac = derive("x", "ns", &[binding, shipped, own]).unwrap();
        assert!(rbac.namespace_rules.contains(&json!({"apiGroups": ["rbac.authorization.k8s.io"], "resources": ["roles"], "verbs": ["bind"], "resourceNames": ["manager-role"]})));
        assert!(
            !rbac
                .cluster_rules
                .iter()
                .any(|r| r["verbs"] == json!(["bind"]))
        );
    }

    /// A SingleNamespace install's Role and RoleBinding live in the watch namespace: the
    /// installer gets a Role there with the object rules and the Role's own rules.
    #[test]
    fn watch_namespace_roles() {
        let role = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": {"name": "r", "namespace": "w"},
                          "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}]});
        let binding = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": {"name": "r", "namespace": "w"}});
        let rbac = derive("x", "ns", &[role, binding]).unwrap();
        assert!(rbac.namespace_rules.is_empty());
        let (ns, rules) = &rbac.other_namespace_rules[0];
        assert_eq!(ns, "w");
        assert!(
            rules.contains(&json!({"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}))
        );
        assert!(rules.contains(&json!({"apiGroups": ["rbac.authorization.k8s.io"], "resources": ["rolebindings"], "verbs": NAMED_VERBS, "resourceNames": ["r"]})));
    }
}
