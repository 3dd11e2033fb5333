//! What the set's RBAC grants a ServiceAccount: whether it may do some verbs on a resource in a
//! namespace ([`allowed`]), and which role grants it an API group ([`role_granting_group`]).
//! A binding counts when it names the ServiceAccount among its subjects; a Role is reached
//! only through a RoleBinding (in the binding's namespace), a ClusterRole through either kind
//! of binding.

use serde_json::Value;

use crate::check::files::Object;
use crate::check::objects::ObjectSet;
use crate::check::str_at;

const RBAC: &str = "rbac.authorization.k8s.io";

/// A binding of the set that names the ServiceAccount, with the role it refers to.
struct Grant<'s, 'f> {
    binding: &'s Object<'f>,
    /// `ClusterRole` or `Role`.
    kind: &'s str,
    name: &'s str,
    role: &'s Object<'f>,
}

/// The bindings of the set that name ServiceAccount `sa_ns/sa` among their subjects (a subject
/// without a namespace is in `sa_ns`), each with its role when the set has it.
fn grants_to<'s, 'f>(
    set: &'s ObjectSet<'f>,
    sa_ns: &'s str,
    sa: &'s str,
) -> impl Iterator<Item = Grant<'s, 'f>> {
    set.objects.iter().filter_map(move |b| {
        if b.group != RBAC || !matches!(b.kind.as_str(), "ClusterRoleBinding" | "RoleBinding") {
            return None;
        }
        let binds = b
            .value()
            .get("subjects")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .any(|s| {
                s.get("kind").and_then(Value::as_str) == Some("ServiceAccount")
                    && s.get("name").and_then(Value::as_str) == Some(sa)
                    && s.get("namespace").and_then(Value::as_str).unwrap_or(sa_ns) == sa_ns
            });
        if !binds {
            return None;
        }
        let kind = str_at(b.value(), "/roleRef/kind")?;
        let name = str_at(b.value(), "/roleRef/name")?;
        let role = match kind {
            "ClusterRole" => set.find(RBAC, "ClusterRole", None, name),
            "Role" if b.kind == "RoleBinding" => {
                set.find(RBAC, "Role", b.namespace.as_deref(), name)
            }
            _ => None,
        }?;
        Some(Grant {
            binding: b,
            kind,
            name,
            role,
        })
    })
}

/// The (Cluster)Role in the set, bound to ServiceAccount `sa_ns/sa`, whose rules name API group
/// `group` (as `Kind name`).
pub(super) fn role_granting_group(
    set: &ObjectSet<'_>,
    sa_ns: &str,
    sa: &str,
    group: &str,
) -> Option<String> {
    grants_to(set, sa_ns, sa)
        .find(|g| {
            g.role
                .value()
                .get("rules")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .flat_map(|r| {
                    r.get("apiGroups")
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten()
                })
                .any(|g| g.as_str() == Some(group))
        })
        .map(|g| format!("{} {}", g.kind, g.name))
}

/// Whether RBAC in the set lets ServiceAccount `sa_ns/sa` do `verbs` on `group/resource` in
/// namespace `target_ns` (a RoleBinding there, or a ClusterRoleBinding).
#[allow(clippy::too_many_arguments)]
pub(super) fn allowed(
    set: &ObjectSet<'_>,
    sa_ns: &str,
    sa: &str,
    target_ns: &str,
    group: &str,
    resource: &str,
    verbs: &[&str],
    names: Option<&[&str]>,
) -> bool {
    let grants = |role: &Value| {
        role.get("rules")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .any(|r| {
                let has = |field: &str, want: &str| {
                    r.get(field)
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten()
                        .filter_map(Value::as_str)
                        .any(|x| x == want || x == "*")
                };
                let names_ok = match (names, r.get("resourceNames").and_then(Value::as_array)) {
                    (Some(wanted), Some(list)) if !list.is_empty() => list
                        .iter()
                        .filter_map(Value::as_str)
                        .any(|n| wanted.contains(&n)),
                    _ => true,
                };
                has("apiGroups", group)
                    && has("resources", resource)
                    && verbs.iter().all(|v| has("verbs", v))
                    && names_ok
            })
    };
    grants_to(set, sa_ns, sa).any(|g| {
        let reaches = g.binding.kind == "ClusterRoleBinding"
            || g.binding.namespace.as_deref() == Some(target_ns);
        reaches && grants(g.role.value())
    })
}
