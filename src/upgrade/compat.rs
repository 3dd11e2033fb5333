//! Whether a bundle is compatible with an OpenShift release: its `olm.maxOpenShiftVersion` is
//! absent or not below the release's minor, and its `minKubeVersion` is not above the release's
//! Kubernetes (OpenShift 4.N ships Kubernetes 1.(N+13)).
//!
//! This is the policy of the Platform Operators enhancement review, and it agrees with
//! cluster-olm-operator's `InstalledOLMOperatorsUpgradeable` check (compatible with the next
//! minor iff `max > current minor`; reference/catalogs-and-conversion.md §4.5). That operator
//! also treats a maximum of 4.23 as 5.0; po-manifests plans no upgrade across majors, so the
//! quirk never applies here and is not copied.

use serde::Serialize;

use crate::catalog::model::Bundle;
use crate::openshift::ClusterVersion;
use crate::resolve::Misfit;
use crate::resolve::facts::{self, MaxOpenShiftVersion};

/// The outcome of checking one bundle against one release.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "camelCase")]
pub enum Compatibility {
    /// Compatible.
    Compatible,
    /// `olm.maxOpenShiftVersion` is below the release's minor.
    MaxOpenShiftVersion {
        /// The bundle's maximum (`4.14`).
        max: String,
    },
    /// `olm.maxOpenShiftVersion` cannot be read, so the bundle blocks every upgrade.
    InvalidMaxOpenShiftVersion {
        /// Why.
        reason: String,
    },
    /// `minKubeVersion` is above the release's Kubernetes.
    MinKubeVersion {
        /// The bundle's minimum.
        min: String,
        /// The release's Kubernetes minor (`1.28`).
        kube: String,
    },
}

impl Compatibility {
    /// Whether the bundle is compatible.
    pub fn is_compatible(&self) -> bool {
        matches!(self, Compatibility::Compatible)
    }
}

/// The bundle's `olm.maxOpenShiftVersion` as written (quotes removed), when valid.
pub fn max_openshift_version(bundle: &Bundle) -> Option<String> {
    match facts::max_openshift_version(bundle) {
        MaxOpenShiftVersion::Valid { raw, .. } => Some(raw.trim_matches('"').to_string()),
        _ => None,
    }
}

/// Check `bundle` against `release` ([`crate::resolve::fit`]).
pub fn check(bundle: &Bundle, release: &ClusterVersion) -> Compatibility {
    match crate::resolve::fit(bundle, release) {
        Ok(()) => Compatibility::Compatible,
        Err(Misfit::MaxOpenShiftVersion(max)) => Compatibility::MaxOpenShiftVersion { max },
        Err(Misfit::InvalidMaxOpenShiftVersion(reason)) => {
            Compatibility::InvalidMaxOpenShiftVersion { reason }
        }
        Err(Misfit::MinKubeVersion { min, kube }) => Compatibility::MinKubeVersion { min, kube },
    }
}
