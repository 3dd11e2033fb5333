//! The readiness rules of Machine API controllers: they run on the tainted control plane
//! (MAO deploys nothing on External), with a system priority class, the Machine and MachineSet
//! CRDs present, and every object they reference in the set.

use super::workload::{
    Workload, priority_class, references, selects_control_plane, tolerates_control_plane,
};
use crate::check::Sink;
use crate::check::objects::ObjectSet;

/// Every `mapi-*` rule for the Machine API controllers `w`.
pub(super) fn check(set: &ObjectSet<'_>, w: &Workload<'_, '_>, sink: &mut Sink) {
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
