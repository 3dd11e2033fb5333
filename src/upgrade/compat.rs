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
use crate::resolve::facts::{self, CsvSource, MaxOpenShiftVersion};

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

/// Check `bundle` against `release`.
pub fn check(bundle: &Bundle, release: &ClusterVersion) -> Compatibility {
    match facts::max_openshift_version(bundle) {
        MaxOpenShiftVersion::Valid { major, minor, raw }
            if crate::openshift::release_order(major, minor)
                < crate::openshift::release_order(release.major, release.minor) =>
        {
            return Compatibility::MaxOpenShiftVersion {
                max: raw.trim_matches('"').to_string(),
            };
        }
        MaxOpenShiftVersion::Invalid { reason } => {
            return Compatibility::InvalidMaxOpenShiftVersion { reason };
        }
        _ => {}
    }
    if let Some(kube_minor) = release.kube_minor()
        && let CsvSource::Metadata(f) | CsvSource::Embedded(f) = facts::csv_facts(bundle)
        && let Some(min) = f.min_kube_version
        && let Some((maj, min_minor, _)) = facts::parse_kube_version(&min)
        && (maj, min_minor) > (1, kube_minor)
    {
        return Compatibility::MinKubeVersion {
            min,
            kube: format!("1.{kube_minor}"),
        };
    }
    Compatibility::Compatible
}
