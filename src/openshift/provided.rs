//! What an OpenShift release provides by itself (namespaces, CRD-backed kinds, the Kubernetes
//! API groups), read from the data file `src/openshift/provided.yaml`: which release and which
//! capability brings what. Provided numbers are looked up in [`super::RELEASES`].

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::Deserialize;

use super::capability::{Capabilities, Capability};
use super::cluster_version::ClusterVersion;
use super::release::lookup;
use super::table::RELEASES;

/// The data file, embedded.
const DATA: &str = include_str!("provided.yaml");

/// Whether a kind's objects live in a namespace.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub enum Scope {
    /// Namespaced.
    Namespaced,
    /// Cluster-scoped.
    Cluster,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Data {
    builtin: Vec<Builtin>,
    crds: Vec<CrdEntry>,
    namespaces: Vec<NamespaceEntry>,
    capability_sets: BTreeMap<String, Vec<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Builtin {
    group: String,
    #[serde(default)]
    cluster: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CrdEntry {
    group: String,
    scope: Scope,
    since: String,
    until: Option<String>,
    capability: Option<String>,
    kinds: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct NamespaceEntry {
    since: String,
    until: Option<String>,
    capability: Option<String>,
    names: Vec<String>,
}

fn data() -> &'static Data {
    static DATA_CELL: OnceLock<Data> = OnceLock::new();
    DATA_CELL
        .get_or_init(|| serde_saphyr::from_str(DATA).expect("src/openshift/provided.yaml is valid"))
}

/// `major.minor` of a `since`/`until` entry.
fn release_of(text: &str) -> (u64, u64) {
    let mut parts = text.split('.').map(|p| p.parse().unwrap_or(0));
    (parts.next().unwrap_or(0), parts.next().unwrap_or(0))
}

/// The facts of one release with its enabled capabilities.
#[derive(Debug, Clone)]
pub struct Provided {
    /// The major version looked up (4, 5).
    pub major: u64,
    /// The minor looked up.
    pub minor: u64,
    /// When the release is newer than the data: the newest known one, which is used instead.
    pub newer_than_known: Option<String>,
    enabled: Capabilities,
}

impl Provided {
    /// The release `version` (the newest known one when `None`), with install-config
    /// `capabilities`.
    pub fn new(version: Option<&ClusterVersion>, capabilities: Option<&Capabilities>) -> Provided {
        let newest = RELEASES.last().expect("the table is not empty");
        let ((major, minor), newer_than_known) = match version.map(|v| (v, lookup(v))) {
            Some((_, Ok(r))) => (
                (r.row.major, r.row.minor),
                r.newer_than_known.then(|| r.known_as()),
            ),
            // Older than the table: its own release, so every entry reads as not yet there.
            Some((v, Err(_))) => ((v.major, v.minor), None),
            None => ((newest.major, newest.minor), None),
        };
        Provided {
            major,
            minor,
            newer_than_known,
            enabled: capabilities.cloned().unwrap_or_default(),
        }
    }

    /// The release looked up, `major.minor`.
    pub fn release_name(&self) -> String {
        format!("{}.{}", self.major, self.minor)
    }

    fn holds(&self, since: &str, until: Option<&str>, capability: Option<&str>) -> bool {
        let at = (self.major, self.minor);
        release_of(since) <= at
            && until.is_none_or(|u| at < release_of(u))
            && capability.is_none_or(|c| self.capability_enabled(c))
    }

    /// Whether install-config enables `capability` (every capability when `capabilities` is
    /// unset or the baseline is `vCurrent`).
    pub fn capability_enabled(&self, capability: &str) -> bool {
        if self
            .enabled
            .additional_enabled_capabilities
            .iter()
            .any(|c| c == capability)
        {
            return true;
        }
        match self.enabled.baseline_capability_set.as_deref() {
            None | Some("") | Some("vCurrent") => true,
            Some("None") => !is_optional(capability),
            Some(set) => match data().capability_sets.get(set) {
                Some(list) => !is_optional(capability) || list.iter().any(|c| c == capability),
                None => true,
            },
        }
    }

    /// Whether the release creates namespace `name`.
    pub fn provides_namespace(&self, name: &str) -> bool {
        data().namespaces.iter().any(|e| {
            self.holds(&e.since, e.until.as_deref(), e.capability.as_deref())
                && e.names.iter().any(|n| n == name)
        })
    }

    /// The scope of a kind the release serves: a Kubernetes API group, or a CRD it installs.
    pub fn provided_kind(&self, group: &str, kind: &str) -> Option<Scope> {
        if let Some(b) = data().builtin.iter().find(|b| b.group == group) {
            return Some(if b.cluster.iter().any(|k| k == kind) {
                Scope::Cluster
            } else {
                Scope::Namespaced
            });
        }
        data()
            .crds
            .iter()
            .find(|e| {
                e.group == group
                    && e.kinds.iter().any(|k| k == kind)
                    && self.holds(&e.since, e.until.as_deref(), e.capability.as_deref())
            })
            .map(|e| e.scope)
    }

    /// Whether `group` is served by kube-apiserver or the OpenShift aggregated API servers (not
    /// by a CRD).
    pub fn is_builtin_group(&self, group: &str) -> bool {
        data().builtin.iter().any(|b| b.group == group)
    }

    /// The capability a kind's CRD needs, when the release has it behind one.
    pub fn capability_of(&self, group: &str, kind: &str) -> Option<&'static str> {
        data()
            .crds
            .iter()
            .find(|e| e.group == group && e.kinds.iter().any(|k| k == kind))
            .and_then(|e| e.capability.as_deref())
    }
}

/// Whether some capability set names `capability` (it can be turned off).
fn is_optional(capability: &str) -> bool {
    data()
        .capability_sets
        .values()
        .any(|l| l.iter().any(|c| c == capability))
}

/// Whether install-config `capabilities` enables `capability` (no `capabilities`: `vCurrent`),
/// by the capability sets of this module's data file.
pub fn capability_enabled(capabilities: Option<&Capabilities>, capability: Capability) -> bool {
    Provided::new(None, capabilities).capability_enabled(capability.name())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn release(v: &str, caps: Option<Capabilities>) -> Provided {
        Provided::new(Some(&ClusterVersion::parse(v).unwrap()), caps.as_ref())
    }

    #[test]
    fn the_data_file_reads() {
        let r = release("4.14", None);
        assert_eq!(
            r.provided_kind("config.openshift.io", "Infrastructure"),
            Some(Scope::Cluster)
        );
        assert_eq!(
            r.provided_kind("apps", "Deployment"),
            Some(Scope::Namespaced)
        );
        assert_eq!(r.provided_kind("", "Namespace"), Some(Scope::Cluster));
        assert!(r.provides_namespace("openshift-machine-api"));
        assert!(!r.provides_namespace("acme-system"));
    }

    #[test]
    fn entries_hold_per_release() {
        assert!(
            release("4.14", None)
                .provided_kind("platform.openshift.io", "PlatformOperator")
                .is_some()
        );
        assert!(
            release("4.18", None)
                .provided_kind("platform.openshift.io", "PlatformOperator")
                .is_none()
        );
        assert!(
            release("4.12", None)
                .provided_kind("config.openshift.io", "ImageDigestMirrorSet")
                .is_none()
        );
        assert!(
            release("4.13", None)
                .provided_kind("config.openshift.io", "ImageDigestMirrorSet")
                .is_some()
        );
    }

    #[test]
    fn capabilities_turn_entries_off() {
        let none = Capabilities {
            baseline_capability_set: Some("None".into()),
            additional_enabled_capabilities: vec![],
        };
        let r = release("4.14", Some(none.clone()));
        assert!(r.provided_kind("machine.openshift.io", "Machine").is_none());
        assert!(!r.provides_namespace("openshift-machine-api"));
        // Always-on parts stay.
        assert!(r.provides_namespace("openshift-cloud-controller-manager"));
        let with_mapi = Capabilities {
            additional_enabled_capabilities: vec!["MachineAPI".into()],
            ..none
        };
        assert!(
            release("4.14", Some(with_mapi))
                .provided_kind("machine.openshift.io", "Machine")
                .is_some()
        );
    }

    #[test]
    fn a_newer_release_reads_as_the_newest_known() {
        let r = release("4.99", None);
        assert!(r.newer_than_known.is_some());
        let r = release("5.9", None);
        assert_eq!(r.newer_than_known.as_deref(), Some("5.1"));
        assert_eq!(r.release_name(), "5.1");
    }

    /// 5.0 is after every 4.x entry: what 4.22 provides, 5.0 provides (minor 0 is not 4.0).
    #[test]
    fn releases_of_major_5_hold_the_4_x_entries() {
        for v in ["4.23", "5.0", "5.1.3"] {
            let r = release(v, None);
            assert_eq!(
                r.provided_kind("config.openshift.io", "Infrastructure"),
                Some(Scope::Cluster),
                "{v}"
            );
            assert!(r.provides_namespace("openshift-machine-api"), "{v}");
            assert!(
                r.provided_kind("platform.openshift.io", "PlatformOperator")
                    .is_none(),
                "{v}"
            );
            assert!(r.newer_than_known.is_none(), "{v}");
        }
        assert_eq!(release("5.0", None).release_name(), "5.0");
    }
}
