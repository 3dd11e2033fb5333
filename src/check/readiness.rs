//! The readiness rules for bootstrap operators, by role, and the install-config rules that go
//! with them (`platform.external`).
//!
//! A cloud controller manager must run before the cluster has a pod network or initialised
//! nodes: the checklist is CCCMO's own test for every in-payload CCM (openshift/
//! cluster-cloud-controller-manager-operator `pkg/cloud/cloud_test.go`,
//! `checkResourceRunsBeforeCNI`) and the onboarding guide (openshift/
//! infrastructure-provider-onboarding-guide `docs/platform-external/installing.md`). Machine
//! API controllers must run on the tainted control plane, since MAO deploys nothing on External
//! (openshift/machine-api-operator `pkg/operator/config.go`).

use serde_json::Value;

use super::files::Object;
use super::objects::{ObjectSet, pod_spec_pointer};
use super::{Options, ROLE_LABEL, Sink, str_at, yaml};
use crate::rules::{Role, Severity};

const UNINITIALIZED: (&str, &str) = ("node.cloudprovider.kubernetes.io/uninitialized", "true");
const NOT_READY: (&str, &str) = ("node.kubernetes.io/not-ready", "");
const CONTROL_PLANE_KEYS: [&str; 2] = [
    "node-role.kubernetes.io/master",
    "node-role.kubernetes.io/control-plane",
];

/// The role of a workload: its `po-manifests.openshift.io/role` label, else `--role` by
/// `NAMESPACE/NAME` or `NAME`, else its file's operator role (the configuration's `role:`),
/// else what the workload shows it is ([`recognise`]), with where and how it was recognised.
pub(crate) fn role_of(
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
pub(crate) struct Recognised {
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
pub(crate) fn recognise(set: &ObjectSet<'_>, o: &Object<'_>) -> Option<Recognised> {
    let base = pod_spec_pointer(&o.kind)?;
    let spec = o.value().pointer(base)?;
    let found = |role, pointer: String, how: String| Some(Recognised { role, pointer, how });
    let mut containers = Vec::new();
    for list in ["containers", "initContainers"] {
        for (i, c) in spec
            .get(list)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            containers.push((format!("{base}/{list}/{i}"), c));
        }
    }
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

/// The (Cluster)Role in the set, bound to ServiceAccount `sa_ns/sa`, whose rules name API group
/// `group` (as `Kind name`).
fn role_granting_group(set: &ObjectSet<'_>, sa_ns: &str, sa: &str, group: &str) -> Option<String> {
    let rbac = "rbac.authorization.k8s.io";
    set.objects.iter().find_map(|b| {
        if b.group != rbac || !matches!(b.kind.as_str(), "ClusterRoleBinding" | "RoleBinding") {
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
            "ClusterRole" => set.find(rbac, "ClusterRole", None, name),
            "Role" => set.find(rbac, "Role", b.namespace.as_deref(), name),
            _ => None,
        }?;
        let names_group = role
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
            .any(|g| g.as_str() == Some(group));
        names_group.then(|| format!("{kind} {name}"))
    })
}

pub(crate) fn check(set: &ObjectSet<'_>, options: &Options<'_>, sink: &mut Sink) {
    let mut ccms = Vec::new();
    for o in &set.objects {
        let Some(base) = pod_spec_pointer(&o.kind) else {
            continue;
        };
        let Some(spec) = o.value().pointer(base) else {
            continue;
        };
        let w = Workload { o, base, spec };
        let (role, recognised) = role_of(set, o, options);
        if let Some(r) = recognised {
            let rules = match r.role {
                Role::CloudControllerManager => "every ccm-* rule applies",
                Role::MachineApi => "every mapi-* rule applies",
                Role::Other => "",
            };
            let qualified = format!("{}/{}", o.namespace.as_deref().unwrap_or(""), o.name);
            sink.push_as(
                "role-recognised",
                Severity::Note,
                o.file,
                o.line(&r.pointer),
                Some(o.label()),
                format!("recognised as {} without a role label: {}; {rules} (say otherwise with --role {qualified}=other, or the operator's role: in the configuration)", role_words(r.role), r.how),
            );
        }
        match role {
            Role::CloudControllerManager => {
                ccm(set, &w, sink);
                ccms.push(o);
            }
            Role::MachineApi => mapi(set, &w, sink),
            Role::Other => {}
        }
    }
    install_config(set, options, &ccms, sink);
}

fn role_words(role: Role) -> &'static str {
    match role {
        Role::CloudControllerManager => "a cloud controller manager",
        Role::MachineApi => "Machine API controllers",
        Role::Other => "a workload",
    }
}

struct Workload<'a, 'f> {
    o: &'a Object<'f>,
    base: &'static str,
    spec: &'a Value,
}

impl Workload<'_, '_> {
    fn line(&self, rel: &str) -> usize {
        self.o.line(&format!("{}{rel}", self.base))
    }
    fn push(&self, sink: &mut Sink, id: &'static str, rel: &str, message: String) {
        sink.push(
            id,
            self.o.file,
            self.line(rel),
            Some(self.o.label()),
            message,
        );
    }
    fn containers(&self, init: bool) -> Vec<(String, &Value)> {
        let mut out = Vec::new();
        let lists: &[&str] = if init {
            &["initContainers", "containers"]
        } else {
            &["containers"]
        };
        for list in lists {
            for (i, c) in self
                .spec
                .get(*list)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .enumerate()
            {
                out.push((format!("/{list}/{i}"), c));
            }
        }
        out
    }
    fn service_account(&self) -> &str {
        self.spec
            .get("serviceAccountName")
            .or_else(|| self.spec.get("serviceAccount"))
            .and_then(Value::as_str)
            .unwrap_or("default")
    }
    fn namespace(&self) -> &str {
        self.o.namespace.as_deref().unwrap_or("")
    }
}

fn tolerates(spec: &Value, key: &str, value: &str) -> bool {
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

fn tolerates_control_plane(spec: &Value) -> bool {
    CONTROL_PLANE_KEYS.iter().any(|k| tolerates(spec, k, ""))
}

fn selects_control_plane(spec: &Value) -> bool {
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
fn words(c: &Value) -> Vec<String> {
    ["command", "args"]
        .iter()
        .flat_map(|f| c.get(*f).and_then(Value::as_array).into_iter().flatten())
        .filter_map(Value::as_str)
        .flat_map(|s| s.split_whitespace().map(str::to_string).collect::<Vec<_>>())
        .collect()
}

/// The value of `--flag=value` or `--flag value`.
fn flag(words: &[String], name: &str) -> Option<String> {
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

fn priority_class(w: &Workload<'_, '_>, id: &'static str, sink: &mut Sink) {
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

fn ccm(set: &ObjectSet<'_>, w: &Workload<'_, '_>, sink: &mut Sink) {
    let spec = w.spec;
    for (id, (key, value)) in [
        ("ccm-tolerate-uninitialized", UNINITIALIZED),
        ("ccm-tolerate-not-ready", NOT_READY),
    ] {
        if !tolerates(spec, key, value) {
            w.push(sink, id, "/tolerations", format!("no toleration for {key}:NoSchedule; the pods stay Pending on the nodes only the CCM can initialise"));
        }
    }
    if !tolerates_control_plane(spec) {
        w.push(sink, "ccm-tolerate-control-plane", "/tolerations", "no toleration for node-role.kubernetes.io/master (or control-plane) NoSchedule; during bootstrap only control-plane nodes exist".into());
    }
    let host_network = spec.get("hostNetwork").and_then(Value::as_bool) == Some(true);
    if !host_network {
        w.push(sink, "ccm-host-network", "/hostNetwork", "hostNetwork is not true; there is no pod network until the CCM has initialised the nodes".into());
    }
    if !selects_control_plane(spec) {
        w.push(
            sink,
            "ccm-control-plane-selector",
            "/nodeSelector",
            "no nodeSelector for node-role.kubernetes.io/master (or control-plane)".into(),
        );
    }
    priority_class(w, "ccm-priority-class", sink);
    if w.o.kind == "Deployment" && host_network {
        let strategy = str_at(w.o.value(), "/spec/strategy/type").unwrap_or("RollingUpdate");
        if strategy != "Recreate" {
            sink.push(
                "ccm-recreate",
                w.o.file,
                w.o.line("/spec/strategy"),
                Some(w.o.label()),
                format!("strategy is {strategy} on host ports; use Recreate"),
            );
        }
    }
    let host_volume = spec
        .get("volumes")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .find(|v| {
            v.pointer("/hostPath/path")
                .and_then(Value::as_str)
                .map(|p| p.trim_end_matches('/'))
                == Some("/etc/kubernetes")
        });
    let host_volume_name = host_volume
        .and_then(|v| v.get("name"))
        .and_then(Value::as_str);
    if host_volume.is_none() {
        w.push(
            sink,
            "ccm-host-kubernetes-volume",
            "/volumes",
            "no hostPath volume for /etc/kubernetes (where apiserver-url.env is)".into(),
        );
    }
    let mut lease_namespaces = Vec::new();
    for (rel, c) in w.containers(false) {
        let name = c.get("name").and_then(Value::as_str).unwrap_or("");
        let command_text = c.get("command").map(|v| v.to_string()).unwrap_or_default();
        if !command_text.contains("/etc/kubernetes/apiserver-url.env") {
            w.push(sink, "ccm-apiserver-url", &format!("{rel}/command"), format!("container {name:?} does not source /etc/kubernetes/apiserver-url.env in its command; it would reach the API through the kubernetes Service, which does not work before the CNI"));
        }
        if let Some(volume) = host_volume_name {
            let mounted = c
                .get("volumeMounts")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .any(|m| {
                    m.get("name").and_then(Value::as_str) == Some(volume)
                        && m.get("mountPath")
                            .and_then(Value::as_str)
                            .map(|p| p.trim_end_matches('/'))
                            == Some("/etc/kubernetes")
                });
            if !mounted {
                w.push(
                    sink,
                    "ccm-host-kubernetes-volume",
                    &format!("{rel}/volumeMounts"),
                    format!(
                        "container {name:?} does not mount volume {volume:?} at /etc/kubernetes"
                    ),
                );
            }
        }
        if c.get("ports")
            .and_then(Value::as_array)
            .is_none_or(Vec::is_empty)
        {
            w.push(sink, "ccm-container-ports", &rel, format!("container {name:?} declares no ports; on the host network each port it listens on must be declared"));
        }
        let words = words(c);
        let leader_elect = flag(&words, "--leader-elect").is_none_or(|v| v != "false");
        if leader_elect {
            match flag(&words, "--leader-elect-resource-namespace") {
                Some(ns) => lease_namespaces.push((rel.clone(), ns)),
                None => {
                    w.push(sink, "ccm-leader-election", &format!("{rel}/args"), format!("container {name:?} elects a leader without --leader-elect-resource-namespace; it elects in kube-system"));
                    lease_namespaces.push((rel.clone(), "kube-system".into()));
                }
            }
        }
        if let Some(path) = flag(&words, "--cloud-config") {
            cloud_config(set, w, &rel, c, &path, sink);
        }
    }
    for (rel, c) in w.containers(true) {
        if c.get("terminationMessagePolicy").and_then(Value::as_str)
            != Some("FallbackToLogsOnError")
        {
            let name = c.get("name").and_then(Value::as_str).unwrap_or("");
            w.push(sink, "ccm-termination-message", &format!("{rel}/terminationMessagePolicy"), format!("container {name:?} does not set terminationMessagePolicy: FallbackToLogsOnError"));
        }
    }
    lease_namespaces.sort_by(|a, b| a.1.cmp(&b.1));
    lease_namespaces.dedup_by(|a, b| a.1 == b.1);
    for (_, ns) in lease_namespaces {
        if !allowed(
            set,
            w.namespace(),
            w.service_account(),
            &ns,
            "coordination.k8s.io",
            "leases",
            &["get", "create", "update"],
            None,
        ) {
            w.push(sink, "ccm-lease-rbac", "/serviceAccountName", format!("ServiceAccount {}/{} may not get, create and update leases in namespace {ns:?}: no Role or ClusterRole in the set grants it", w.namespace(), w.service_account()));
        }
    }
    if let Some(ns) = set.namespaces.get(w.namespace()).map(|i| &set.objects[*i]) {
        let run_level = ns
            .value()
            .pointer(&format!(
                "/metadata/labels/{}",
                yaml::escape("openshift.io/run-level")
            ))
            .and_then(Value::as_str)
            .is_some_and(|l| l == "0" || l == "1");
        let scc = allowed(
            set,
            w.namespace(),
            w.service_account(),
            w.namespace(),
            "security.openshift.io",
            "securitycontextconstraints",
            &["use"],
            Some(&["privileged", "hostnetwork", "hostnetwork-v2", "hostaccess"]),
        );
        if !run_level && !scc {
            w.push(sink, "ccm-namespace-admission", "/hostNetwork", format!("namespace {} has no openshift.io/run-level: \"0\" label and ServiceAccount {} is granted no SCC that allows host networking: the pods are refused", w.namespace(), w.service_account()));
        }
        let management = ns
            .value()
            .pointer(&format!(
                "/metadata/annotations/{}",
                yaml::escape("workload.openshift.io/allowed")
            ))
            .and_then(Value::as_str)
            == Some("management");
        if !management {
            sink.push(
                "ccm-workload-management",
                ns.file,
                ns.line("/metadata"),
                Some(ns.label()),
                "no annotation workload.openshift.io/allowed: management".into(),
            );
        }
    }
    references(set, w, "ccm-references", sink);
}

fn mapi(set: &ObjectSet<'_>, w: &Workload<'_, '_>, sink: &mut Sink) {
    if !tolerates_control_plane(w.spec) {
        w.push(
            sink,
            "mapi-tolerate-control-plane",
            "/tolerations",
            "no toleration for node-role.kubernetes.io/master (or control-plane) NoSchedule".into(),
        );
    }
    if !selects_control_plane(w.spec) {
        w.push(
            sink,
            "mapi-control-plane-selector",
            "/nodeSelector",
            "no nodeSelector for node-role.kubernetes.io/master (or control-plane)".into(),
        );
    }
    priority_class(w, "mapi-priority-class", sink);
    for kind in ["Machine", "MachineSet"] {
        if set.scope("machine.openshift.io", kind).is_none() {
            sink.push("mapi-crds", w.o.file, w.o.line("/kind"), Some(w.o.label()), format!("no CRD for {kind}.machine.openshift.io: the set does not carry it and the MachineAPI capability is not enabled"));
        }
    }
    references(set, w, "mapi-references", sink);
}

/// ConfigMaps every namespace gets from the control plane.
const PUBLISHED_CONFIGMAPS: [&str; 2] = ["kube-root-ca.crt", "openshift-service-ca.crt"];

fn references(set: &ObjectSet<'_>, w: &Workload<'_, '_>, id: &'static str, sink: &mut Sink) {
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

fn cloud_config(
    set: &ObjectSet<'_>,
    w: &Workload<'_, '_>,
    rel: &str,
    c: &Value,
    path: &str,
    sink: &mut Sink,
) {
    let mounts = c
        .get("volumeMounts")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let mount = mounts
        .iter()
        .filter_map(|m| {
            Some((
                m,
                m.get("mountPath")
                    .and_then(Value::as_str)?
                    .trim_end_matches('/'),
            ))
        })
        .filter(|(_, mp)| path == *mp || path.starts_with(&format!("{mp}/")))
        .max_by_key(|(_, mp)| mp.len());
    let args_rel = format!("{rel}/args");
    let Some((m, mount_path)) = mount else {
        w.push(
            sink,
            "ccm-cloud-config",
            &args_rel,
            format!("--cloud-config={path} is under no volumeMount of the container"),
        );
        return;
    };
    let volume_name = m.get("name").and_then(Value::as_str).unwrap_or("");
    let Some(volume) = w
        .spec
        .get("volumes")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .find(|v| v.get("name").and_then(Value::as_str) == Some(volume_name))
    else {
        return;
    };
    let (kind, source) = match (volume.get("configMap"), volume.get("secret")) {
        (Some(cm), _) => ("ConfigMap", cm),
        (_, Some(s)) => ("Secret", s),
        _ => return,
    };
    let object_name = source
        .get("name")
        .or_else(|| source.get("secretName"))
        .and_then(Value::as_str)
        .unwrap_or("");
    let file = match m.get("subPath").and_then(Value::as_str) {
        Some(sub) if path == mount_path => sub.to_string(),
        _ => path[mount_path.len()..].trim_start_matches('/').to_string(),
    };
    let key = match source.get("items").and_then(Value::as_array) {
        Some(items) => match items
            .iter()
            .find(|i| i.get("path").and_then(Value::as_str) == Some(file.as_str()))
        {
            Some(item) => item
                .get("key")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string(),
            None => {
                w.push(sink, "ccm-cloud-config", &args_rel, format!("--cloud-config={path}: no item of {kind} volume {volume_name:?} is mounted at {file:?}"));
                return;
            }
        },
        None => file.clone(),
    };
    let Some(object) = set.find("", kind, Some(w.namespace()), object_name) else {
        return;
    };
    let has_key = ["data", "stringData", "binaryData"]
        .iter()
        .any(|d| object.value().get(*d).and_then(|m| m.get(&key)).is_some());
    if !has_key {
        w.push(sink, "ccm-cloud-config", &args_rel, format!("--cloud-config={path} reads key {key:?} of {kind} {}/{object_name}, which has no such key", w.namespace()));
    }
}

/// Whether RBAC in the set lets ServiceAccount `sa_ns/sa` do `verbs` on `group/resource` in
/// namespace `target_ns` (a RoleBinding there, or a ClusterRoleBinding).
#[allow(clippy::too_many_arguments)]
fn allowed(
    set: &ObjectSet<'_>,
    sa_ns: &str,
    sa: &str,
    target_ns: &str,
    group: &str,
    resource: &str,
    verbs: &[&str],
    names: Option<&[&str]>,
) -> bool {
    let rbac = "rbac.authorization.k8s.io";
    let binds_sa = |b: &Value| {
        b.get("subjects")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .any(|s| {
                s.get("kind").and_then(Value::as_str) == Some("ServiceAccount")
                    && s.get("name").and_then(Value::as_str) == Some(sa)
                    && s.get("namespace").and_then(Value::as_str).unwrap_or(sa_ns) == sa_ns
            })
    };
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
    set.objects.iter().any(|b| {
        let cluster = b.kind == "ClusterRoleBinding";
        let namespaced = b.kind == "RoleBinding" && b.namespace.as_deref() == Some(target_ns);
        if b.group != rbac || !(cluster || namespaced) || !binds_sa(b.value()) {
            return false;
        }
        let role_kind = str_at(b.value(), "/roleRef/kind").unwrap_or("");
        let role_name = str_at(b.value(), "/roleRef/name").unwrap_or("");
        let role = match role_kind {
            "ClusterRole" => set.find(rbac, "ClusterRole", None, role_name),
            "Role" if namespaced => set.find(rbac, "Role", Some(target_ns), role_name),
            _ => None,
        };
        role.is_some_and(|r| grants(r.value()))
    })
}

/// Whether a workload looks like a cloud controller manager, whatever role it was given.
fn looks_like_ccm(o: &Object<'_>) -> bool {
    let Some(base) = pod_spec_pointer(&o.kind) else {
        return false;
    };
    o.value()
        .pointer(&format!("{base}/containers"))
        .is_some_and(|c| {
            let text = c.to_string();
            text.contains("cloud-controller-manager") || text.contains("--cloud-provider")
        })
}

fn install_config(
    set: &ObjectSet<'_>,
    options: &Options<'_>,
    ccms: &[&Object<'_>],
    sink: &mut Sink,
) {
    let Some(install) = &options.install else {
        return;
    };
    let config = install.config;
    let external = config.external();
    let value = external
        .as_ref()
        .and_then(|e| e.cloud_controller_manager.clone())
        .unwrap_or_default();
    if external.is_some() && value == "None" {
        sink.push_install("ccm-value", install, "/platform/external/cloudControllerManager", "cloudControllerManager: None is not an install-config value; write \"\" (no CCM) or External".into());
    }
    let is_external_ccm = external.is_some() && value == "External";
    if !is_external_ccm {
        for o in ccms {
            let platform = config.platform_name().unwrap_or("unset");
            sink.push("ccm-requires-external", o.file, o.line("/kind"), Some(o.label()), format!("a cloud controller manager, but install-config has platform {platform} without cloudControllerManager: External; kubelet will not wait for it, and it conflicts with the platform's own cloud integration"));
        }
    }
    if let Some(e) = &external
        && e.platform_name
            .as_deref()
            .is_none_or(|n| n.is_empty() || n == "Unknown")
    {
        sink.push_install("platform-name", install, "/platform/external", "platform.external.platformName is not set (it reads as \"Unknown\" and cannot be changed once set)".into());
    }
    if !is_external_ccm {
        return;
    }
    if ccms.is_empty() && !set.objects.iter().any(looks_like_ccm) {
        sink.push_install("external-without-ccm", install, "/platform/external/cloudControllerManager", "cloudControllerManager: External, but no cloud controller manager is in the set: nodes keep the uninitialized taint and the install never completes (give the operator role: cloud-controller-manager, or check --role NAME=cloud-controller-manager)".into());
    }
    for role in ["master", "worker"] {
        let found = set.objects.iter().any(|o| {
            o.kind == "MachineConfig"
                && o.value()
                    .pointer(&format!(
                        "/metadata/labels/{}",
                        yaml::escape("machineconfiguration.openshift.io/role")
                    ))
                    .and_then(Value::as_str)
                    == Some(role)
                && machine_config_mentions(o.value(), "KUBELET_PROVIDERID")
        });
        if !found {
            sink.push_install("provider-id-machineconfig", install, "/platform/external/cloudControllerManager", format!("no MachineConfig for role {role} sets KUBELET_PROVIDERID; kubelet runs with --cloud-provider=external and needs a valid provider ID"));
        }
    }
}

/// Whether a MachineConfig's ignition content (units, drop-ins, files as data: URLs) mentions
/// `needle`.
fn machine_config_mentions(mc: &Value, needle: &str) -> bool {
    use base64::Engine as _;
    let Some(config) = mc.pointer("/spec/config") else {
        return false;
    };
    if config.to_string().contains(needle) {
        return true;
    }
    config
        .pointer("/storage/files")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .any(|f| {
            let Some(source) = f.pointer("/contents/source").and_then(Value::as_str) else {
                return false;
            };
            let Some(data) = source.strip_prefix("data:") else {
                return false;
            };
            let Some((meta, payload)) = data.split_once(',') else {
                return false;
            };
            let text = if meta.ends_with(";base64") {
                base64::engine::general_purpose::STANDARD
                    .decode(payload)
                    .ok()
                    .and_then(|b| String::from_utf8(b).ok())
                    .unwrap_or_default()
            } else {
                percent_decode(payload)
            };
            text.contains(needle)
        })
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(h) = s
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        {
            out.push(h);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
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

/// Record each bootstrap operator's role in what `create` writes: the role label on its
/// workloads (so a later `check` applies the same rules) and, for a cloud controller manager,
/// the onboarding guide's labels and annotation on its Namespace.
pub fn mark_roles(objects: &mut [crate::render::RenderedObject], role_of: &dyn Fn(&str) -> Role) {
    for o in objects {
        let role = role_of(&o.operator);
        if role == Role::Other {
            continue;
        }
        let kind = o.kind().to_string();
        let Some(meta) = o.object.get_mut("metadata").and_then(Value::as_object_mut) else {
            continue;
        };
        let mut add = |field: &str, pairs: &[(&str, &str)]| {
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
