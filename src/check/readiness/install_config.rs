//! The install-config rules that go with a cloud controller manager: `platform.external` with
//! `cloudControllerManager: External` (and a platform name), a CCM in the set when External is
//! asked for, and a MachineConfig per role that gives kubelet its provider ID.

use serde_json::Value;

use crate::check::files::Object;
use crate::check::objects::{ObjectSet, pod_spec_pointer};
use crate::check::{Options, Sink, yaml};

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

/// The install-config rules, given the workloads taken as cloud controller managers.
pub(super) fn check(
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
