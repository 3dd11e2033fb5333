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
//!
//! The rules themselves are data ([`crate::rules::RULES`]: id, severity, source); this module
//! applies them, one file per rule family: [`role`] (what a workload is: its label, `--role`,
//! the configuration, or what it shows; and how `create` records it), `ccm` (a cloud
//! controller manager's tolerations, host network, API access, leases, admission and cloud
//! config), `mapi` (Machine API controllers), `install_config` (`platform.external` and the
//! MachineConfigs an external CCM needs), over `workload` (the pod-spec facts and the rules
//! both workload families share) and `rbac` (what the set's RBAC grants a ServiceAccount).

mod ccm;
mod install_config;
mod mapi;
mod rbac;
pub mod role;
mod workload;

pub use role::mark_roles;

use super::objects::{ObjectSet, pod_spec_pointer};
use super::{Options, Sink};
use crate::rules::{Role, Severity};
use workload::Workload;

/// Apply the readiness rules of each workload's role, then the install-config rules.
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
        let (role, recognised) = role::role_of(set, o, options);
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
                ccm::check(set, &w, sink);
                ccms.push(o);
            }
            Role::MachineApi => mapi::check(set, &w, sink),
            Role::Other => {}
        }
    }
    install_config::check(set, options, &ccms, sink);
}

fn role_words(role: Role) -> &'static str {
    match role {
        Role::CloudControllerManager => "a cloud controller manager",
        Role::MachineApi => "Machine API controllers",
        Role::Other => "a workload",
    }
}
