//! The readiness rules of a cloud controller manager, which runs before the cluster has a pod
//! network or initialised nodes: it tolerates the uninitialised and not-ready taints and the
//! control plane's, runs on the host network (declared ports, `Recreate`), reaches the API
//! through `/etc/kubernetes/apiserver-url.env`, may elect its leader where it leases, is
//! admitted in its namespace, and finds its `--cloud-config` key.

use serde_json::Value;

use super::rbac::allowed;
use super::workload::{
    Workload, flag, priority_class, references, selects_control_plane, tolerates,
    tolerates_control_plane, words,
};
use crate::check::objects::ObjectSet;
use crate::check::{Sink, str_at, yaml};

const UNINITIALIZED: (&str, &str) = ("node.cloudprovider.kubernetes.io/uninitialized", "true");
const NOT_READY: (&str, &str) = ("node.kubernetes.io/not-ready", "");

/// Every `ccm-*` rule for the cloud controller manager `w`.
pub(super) fn check(set: &ObjectSet<'_>, w: &Workload<'_, '_>, sink: &mut Sink) {
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
