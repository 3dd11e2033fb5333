//! A workload's role (cloud controller manager, Machine API controllers, or other), which picks
//! the readiness rules that apply to it: its `po-manifests.openshift.io/role` label, else
//! `--role`, else its operator's `role:` in the configuration, else what the workload shows it
//! is (a binary, a flag, its name, its RBAC). And the other way round: how `create` records
//! each bootstrap operator's role in what it writes, so a later `check` applies the same rules.

use serde_json::Value;

use super::rbac::role_granting_group;
use crate::check::files::Object;
use crate::check::objects::{ObjectSet, containers_in, pod_spec_pointer};
use crate::check::{Options, ROLE_LABEL, yaml};
use crate::rules::Role;

/// The role of a workload: its `po-manifests.openshift.io/role` label, else `--role` by
/// `NAMESPACE/NAME` or `NAME`, else its file's operator role (the configuration's `role:`),
/// else what the workload shows it is ([`recognise`]), with where and how it was recognised.
pub(super) fn role_of(
    set: &ObjectSet<'_>,
    o: &Object<'_>,
    options: &Options<'_>,
) -> (Role, Option<Recognised>) {
    if let Some(r) = o
        .value()
        .pointer(&format!("/metadata/labels/{}", yaml::escape(ROLE_LABEL)))
        .and_then(Value::as_str)
        .and_then(|t| Role::parse(t).ok())
    {
        return (r, None);
    }
    let qualified = format!("{}/{}", o.namespace.as_deref().unwrap_or(""), o.name);
    if let Some(r) = options
        .roles
        .get(&qualified)
        .or_else(|| options.roles.get(&o.name))
    {
        return (*r, None);
    }
    if let Some(r) = o.file.role {
        return (r, None);
    }
    match recognise(set, o) {
        Some(found) => (found.role, Some(found)),
        None => (Role::Other, None),
    }
}

/// A role recognised from a workload itself, without a label.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Recognised {
    /// The role.
    pub role: Role,
    /// The field that shows it (JSON pointer).
    pub pointer: String,
    /// How, in words.
    pub how: String,
}

/// The last path segment of a command word or an image repository.
fn basename(word: &str) -> &str {
    let word = word.trim_matches(|c| c == '"' || c == '\'');
    word.rsplit('/').next().unwrap_or(word)
}

fn is_ccm_binary(word: &str) -> bool {
    basename(word).contains("cloud-controller-manager")
}

fn is_mapi_binary(word: &str) -> bool {
    let b = basename(word);
    b.contains("machine-controller-manager")
        || b.starts_with("machine-api")
        || b.starts_with("machineset-controller")
}

/// What a workload shows it is: a cloud controller manager when a container runs a
/// `*cloud-controller-manager*` binary (command, or image), passes `--cloud-provider` or
/// `--cloud-config`, or the workload's name says so; Machine API controllers when a container
/// runs `machine-controller-manager` (or `machine-api*`, `machineset-controller`), passes
/// `--machine-api*` flags, its name says so, or its ServiceAccount is granted the
/// `machine.openshift.io` API group. Binaries first, then flags, names and RBAC.
pub(super) fn recognise(set: &ObjectSet<'_>, o: &Object<'_>) -> Option<Recognised> {
    let base = pod_spec_pointer(&o.kind)?;
    let spec = o.value().pointer(base)?;
    let found = |role, pointer: String, how: String| Some(Recognised { role, pointer, how });
    let containers: Vec<(String, &Value)> = containers_in(spec, &["containers", "initContainers"])
        .map(|(list, i, c)| (format!("{base}/{list}/{i}"), c))
        .collect();
    let strings = |c: &Value, field: &str| -> Vec<String> {
        c.get(field)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .flat_map(|s| s.split_whitespace().map(str::to_string).collect::<Vec<_>>())
            .collect()
    };
    let name_of = |c: &Value| {
        c.get("name")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    // Binaries: the command, else the image.
    for (rel, c) in &containers {
        for word in strings(c, "command") {
            if is_mapi_binary(&word) {
                return found(
                    Role::MachineApi,
                    format!("{rel}/command"),
                    format!("container {:?} runs {word}", name_of(c)),
                );
            }
            if is_ccm_binary(&word) {
                return found(
                    Role::CloudControllerManager,
                    format!("{rel}/command"),
                    format!("container {:?} runs {word}", name_of(c)),
                );
            }
        }
        if let Some(image) = c.get("image").and_then(Value::as_str) {
            let no_digest = image.split('@').next().unwrap_or(image);
            let repository = match no_digest.rsplit_once(':') {
                Some((r, tag)) if !tag.contains('/') => r,
                _ => no_digest,
            };
            if is_ccm_binary(repository) {
                return found(
                    Role::CloudControllerManager,
                    format!("{rel}/image"),
                    format!("container {:?} runs image {image}", name_of(c)),
                );
            }
            if is_mapi_binary(repository) {
                return found(
                    Role::MachineApi,
                    format!("{rel}/image"),
                    format!("container {:?} runs image {image}", name_of(c)),
                );
            }
        }
    }
    // Flags.
    for (rel, c) in &containers {
        for field in ["command", "args"] {
            for word in strings(c, field) {
                let flag = word.trim_matches(|c| c == '"' || c == '\'');
                let flag_name = flag.split('=').next().unwrap_or(flag);
                if matches!(flag_name, "--cloud-provider" | "--cloud-config") {
                    return found(
                        Role::CloudControllerManager,
                        format!("{rel}/{field}"),
                        format!("container {:?} passes {flag}", name_of(c)),
                    );
                }
                if flag_name.starts_with("--machine-api") {
                    return found(
                        Role::MachineApi,
                        format!("{rel}/{field}"),
                        format!("container {:?} passes {flag}", name_of(c)),
                    );
                }
            }
        }
    }
    // Names.
    if o.name.contains("cloud-controller-manager") {
        return found(
            Role::CloudControllerManager,
            "/metadata/name".into(),
            format!("its name {} says so", o.name),
        );
    }
    if o.name.contains("machine-controller") || o.name.contains("machine-api-controllers") {
        return found(
            Role::MachineApi,
            "/metadata/name".into(),
            format!("its name {} says so", o.name),
        );
    }
    // RBAC.
    let sa = spec
        .get("serviceAccountName")
        .or_else(|| spec.get("serviceAccount"))
        .and_then(Value::as_str)
        .unwrap_or("default");
    let ns = o.namespace.as_deref().unwrap_or("");
    if let Some(role) = role_granting_group(set, ns, sa, "machine.openshift.io") {
        return found(
            Role::MachineApi,
            format!("{base}/serviceAccountName"),
            format!(
                "ServiceAccount {ns}/{sa} is granted the machine.openshift.io API group by {role}"
            ),
        );
    }
    None
}

/// Label or annotation `(key, value)` pairs.
pub type Pairs = Vec<(&'static str, &'static str)>;

/// The labels and annotations a cloud controller manager's namespace needs (onboarding guide):
/// run level 0 (SCC and pod security admission skipped), pod security `privileged`, no label
/// sync, and management workload partitioning. `create` adds them to the Namespace it writes for
/// an operator with `role: cloud-controller-manager`.
pub fn namespace_metadata(role: Role) -> (Pairs, Pairs) {
    match role {
        Role::CloudControllerManager => (
            vec![
                ("openshift.io/run-level", "0"),
                ("pod-security.kubernetes.io/enforce", "privileged"),
                ("pod-security.kubernetes.io/audit", "privileged"),
                ("pod-security.kubernetes.io/warn", "privileged"),
                ("security.openshift.io/scc.podSecurityLabelSync", "false"),
            ],
            vec![("workload.openshift.io/allowed", "management")],
        ),
        _ => (Vec::new(), Vec::new()),
    }
}

/// Record each bootstrap operator's configured role in what `create` writes: the role label
/// on its workloads (so a later `check` applies the same rules, `other` included: a workload
/// that looks like a CCM is then not taken for one) and, for a cloud controller manager, the
/// onboarding guide's labels and annotation on its Namespace. An operator without a configured
/// role (`None`) is left as it is: `create` and `check` both take it for what it shows.
pub fn mark_roles(
    objects: &mut [crate::render::RenderedObject],
    role_of: &dyn Fn(&str) -> Option<Role>,
) {
    for o in objects {
        let Some(role) = role_of(&o.operator) else {
            continue;
        };
        let kind = o.kind().to_string();
        let Some(meta) = o.object.get_mut("metadata").and_then(Value::as_object_mut) else {
            continue;
        };
        let mut add = |field: &str, pairs: &[(&str, &str)]| {
            if pairs.is_empty() {
                return;
            }
            let map = meta
                .entry(field)
                .or_insert_with(|| Value::Object(Default::default()));
            if let Some(map) = map.as_object_mut() {
                for (k, v) in pairs {
                    map.entry(k.to_string())
                        .or_insert_with(|| Value::String(v.to_string()));
                }
            }
        };
        if kind == "Namespace" {
            let (labels, annotations) = namespace_metadata(role);
            add("labels", &labels);
            add("annotations", &annotations);
        } else if pod_spec_pointer(&kind).is_some() {
            add("labels", &[(ROLE_LABEL, role.as_str())]);
        }
    }
}

#[cfg(test)]
mod recognition {
    use super::*;
    use crate::check::Sink;
    use crate::check::{Dir, ManifestFile, Provided};
    use crate::rules::Installer;

    /// The role `recognise` finds for the workload in `text` (with the RBAC beside it), and how.
    fn recognised(text: &str) -> Option<(Role, String, usize)> {
        let files = [ManifestFile {
            dir: Dir::Manifests,
            name: "x.yaml".into(),
            text: text.into(),
            size: text.len() as u64,
            operator: None,
            role: None,
            planned: false,
        }];
        let mut sink = Sink::default();
        let objects = crate::check::files::objects(&files, Installer::Assisted, &mut sink);
        let release = Provided::new(None, None);
        let set = ObjectSet::new(&objects, &release);
        let w = set
            .objects
            .iter()
            .find(|o| pod_spec_pointer(&o.kind).is_some())
            .unwrap();
        recognise(&set, w).map(|r| (r.role, r.how, w.line(&r.pointer)))
    }

    fn deployment(name: &str, container: &str) -> String {
        format!(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name}\n  namespace: p\nspec:\n  template:\n    spec:\n      serviceAccountName: sa\n      containers:\n{container}"
        )
    }

    #[test]
    fn a_ccm_is_recognised_by_binary_image_flag_or_name() {
        let by_binary = recognised(&deployment(
            "x",
            "      - name: c\n        image: a/b:1\n        command:\n        - /bin/oci-cloud-controller-manager\n",
        ));
        assert_eq!(
            by_binary,
            Some((
                Role::CloudControllerManager,
                "container \"c\" runs /bin/oci-cloud-controller-manager".into(),
                13
            ))
        );
        let by_image = recognised(&deployment(
            "x",
            "      - name: c\n        image: registry.k8s.io/provider-aws/cloud-controller-manager:v1.30@sha256:00\n",
        ));
        assert_eq!(
            by_image.map(|r| (r.0, r.2)),
            Some((Role::CloudControllerManager, 12))
        );
        let by_flag = recognised(&deployment(
            "x",
            "      - name: c\n        image: a/b:1\n        args: [\"--v=2\", \"--cloud-config=/etc/x\"]\n",
        ));
        assert_eq!(
            by_flag.map(|r| r.1),
            Some("container \"c\" passes --cloud-config=/etc/x".into())
        );
        let by_name = recognised(&deployment(
            "acme-cloud-controller-manager",
            "      - name: c\n        image: a/b:1\n",
        ));
        assert_eq!(
            by_name.map(|r| (r.0, r.2)),
            Some((Role::CloudControllerManager, 4))
        );
        assert_eq!(
            recognised(&deployment(
                "web",
                "      - name: c\n        image: nginx:1\n"
            )),
            None
        );
    }

    #[test]
    fn machine_api_controllers_are_recognised_by_binary_flag_name_or_rbac() {
        let by_binary = recognised(&deployment(
            "x",
            "      - name: c\n        image: a/b:1\n        command: [/machine-controller-manager]\n        args: [--cloud-provider=acme]\n",
        ));
        assert_eq!(by_binary.map(|r| r.0), Some(Role::MachineApi));
        let by_flag = recognised(&deployment(
            "x",
            "      - name: c\n        image: a/b:1\n        args: [--machine-api-namespace=openshift-machine-api]\n",
        ));
        assert_eq!(by_flag.map(|r| r.0), Some(Role::MachineApi));
        let by_name = recognised(&deployment(
            "acme-machine-controllers",
            "      - name: c\n        image: a/b:1\n",
        ));
        assert_eq!(by_name.map(|r| r.0), Some(Role::MachineApi));
        let rbac = format!(
            "{}---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: machines\nrules:\n- apiGroups: [machine.openshift.io]\n  resources: [machines]\n  verbs: [get]\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: machines\nroleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: ClusterRole\n  name: machines\nsubjects:\n- kind: ServiceAccount\n  name: sa\n  namespace: p\n",
            deployment("x", "      - name: c\n        image: a/b:1\n")
        );
        let by_rbac = recognised(&rbac);
        assert_eq!(
            by_rbac.map(|r| (r.0, r.1)),
            Some((
                Role::MachineApi,
                "ServiceAccount p/sa is granted the machine.openshift.io API group by ClusterRole machines".into()
            ))
        );
    }
}
