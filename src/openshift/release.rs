//! Release numbers: a version looked up in the table ([`lookup`]: the row whose facts apply,
//! the newest one for a release newer than the table), the order of releases and the next one
//! (4.23 and 5.0 are co-releases), Extended Update Support minors, and the first and last
//! release of an operator API.

use super::cluster_version::ClusterVersion;
use super::table::{OperatorApi, RELEASES, ReleaseRow};

/// The first Extended Update Support minor of OpenShift 4 (4.6; every even minor since).
const FIRST_EUS_MINOR: u64 = 6;

/// Whether `major.minor` is an Extended Update Support release: OpenShift 4's even minors from
/// 4.6 on (Red Hat's OpenShift life cycle policy), between which EUS-to-EUS updates pass the
/// odd minor with the worker pools paused.
pub fn is_eus(major: u64, minor: u64) -> bool {
    major == 4 && minor >= FIRST_EUS_MINOR && minor.is_multiple_of(2)
}

/// The EUS minors in words, for messages.
pub fn eus_description() -> String {
    format!("the even minors from 4.{FIRST_EUS_MINOR} on")
}

/// Why a release is not in the table.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReleaseError {
    /// Older than the oldest release with a platform-operator API.
    #[error(
        "OpenShift {version} is older than any release po-manifests knows (4.{oldest} is the oldest: platform operators exist from 4.12 on)"
    )]
    TooOld {
        /// The version written.
        version: String,
        /// The oldest known minor.
        oldest: u64,
    },
    /// A major version below 4.
    #[error("OpenShift {version} is not an OpenShift 4 or later release")]
    NotOpenShift4 {
        /// The version written.
        version: String,
    },
}

/// A release looked up in the table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Release {
    /// The version asked for, as written.
    pub name: String,
    /// The row whose facts apply.
    pub row: &'static ReleaseRow,
    /// Set when the version is newer than the table: the newest row's facts apply.
    pub newer_than_known: bool,
}

/// Look `version` up. A release newer than the newest row (5.2, 6.0, or a 4.x the table does
/// not have, such as 4.24, which the numbering skips) gets the newest row's facts and
/// `newer_than_known`, which callers turn into a warning.
pub fn lookup(version: &ClusterVersion) -> Result<Release, ReleaseError> {
    let oldest = &RELEASES[0];
    let newest = RELEASES.last().expect("the table is not empty");
    let name = version.text.clone();
    let asked = (version.major, version.minor);
    if version.major < 4 {
        return Err(ReleaseError::NotOpenShift4 { version: name });
    }
    if let Some(row) = RELEASES.iter().find(|r| (r.major, r.minor) == asked) {
        return Ok(Release {
            name,
            row,
            newer_than_known: false,
        });
    }
    if asked < (oldest.major, oldest.minor) {
        return Err(ReleaseError::TooOld {
            version: name,
            oldest: oldest.minor,
        });
    }
    Ok(Release {
        name,
        row: newest,
        newer_than_known: true,
    })
}

/// The newest release in the table, as `major.minor`.
pub fn newest_known() -> String {
    RELEASES.last().expect("the table is not empty").name()
}

/// The release a cluster of `version` upgrades to next, as `major.minor`: the next row of the
/// table that is not its co-release (4.22 → 4.23, 4.23 → 5.1, 5.0 → 5.1), else the next minor
/// (cluster-olm-operator release-5.0 `versionutils.NextOCPMinorVersion`).
pub fn next_minor(version: &ClusterVersion) -> String {
    let (major, minor) = next_release(version.major, version.minor);
    format!("{major}.{minor}")
}

/// The place of `major.minor` in the release order: its co-release's for 4.23 (which is 5.0),
/// its own otherwise (also for a release the table does not know).
pub fn release_order(major: u64, minor: u64) -> (u64, u64) {
    RELEASES
        .iter()
        .find(|r| (r.major, r.minor) == (major, minor))
        .map(ReleaseRow::effective)
        .unwrap_or((major, minor))
}

/// Whether the release table has a row for `major.minor`.
pub fn is_known(major: u64, minor: u64) -> bool {
    RELEASES
        .iter()
        .any(|r| (r.major, r.minor) == (major, minor))
}

/// The release a cluster of `major.minor` moves to in one minor upgrade, by the table: 4.22 →
/// 4.23 (the same release as 5.0), 4.23 and 5.0 → 5.1; past the table, the next minor of the
/// same major.
pub fn next_release(major: u64, minor: u64) -> (u64, u64) {
    let current = release_order(major, minor);
    RELEASES
        .iter()
        .find(|r| (r.major, r.minor) > (major, minor) && r.effective() > current)
        .map(|r| (r.major, r.minor))
        .unwrap_or((current.0, current.1.saturating_add(1)))
}

/// Whether a bundle whose `olm.maxOpenShiftVersion` is `max` lets a cluster of `version`
/// upgrade to its next release: `max` must be above the cluster, 4.23 counting as 5.0
/// (cluster-olm-operator release-5.0 `IsOperatorMaxOCPVersionCompatibleWithCluster`).
pub fn max_version_allows_upgrade(max: (u64, u64), version: &ClusterVersion) -> bool {
    max > release_order(version.major, version.minor)
}

/// The first and last releases of the table whose `api` (before feature gates) is `api`, as
/// `major.minor`; `None` when no release has it. The last one is the table's newest row when the API
/// is still current.
pub fn api_releases(api: OperatorApi) -> Option<(String, String)> {
    let mut rows = RELEASES.iter().filter(|r| r.api == api);
    let first = rows.next()?;
    let last = rows.next_back().unwrap_or(first);
    Some((first.name(), last.name()))
}

impl Release {
    /// `major.minor` of the row whose facts apply.
    pub fn known_as(&self) -> String {
        self.row.name()
    }

    /// A warning to print when the release is newer than the table.
    pub fn newer_warning(&self) -> Option<String> {
        self.newer_than_known.then(|| {
            format!(
                "OpenShift {} is newer than the releases po-manifests knows; its OLM v1 is assumed to behave like {}'s",
                self.name,
                self.known_as()
            )
        })
    }

    /// The feature sets this release has, in install-config spelling.
    pub fn feature_sets(&self) -> impl Iterator<Item = &'static str> + use<> {
        let dev = self.row.dev_preview;
        [
            "Default",
            "TechPreviewNoUpgrade",
            "DevPreviewNoUpgrade",
            "CustomNoUpgrade",
        ]
        .into_iter()
        .filter(move |s| dev || *s != "DevPreviewNoUpgrade")
    }

    /// Whether the Agent-based installer carries install-config's `featureSet` to a cluster of
    /// this release ([`ReleaseRow::agent_feature_set`]).
    pub fn agent_carries_feature_set(&self) -> bool {
        self.row.agent_feature_set
    }

    /// The first release whose Agent-based installer carries `featureSet`.
    pub fn agent_feature_set_since() -> Option<String> {
        RELEASES
            .iter()
            .find(|r| r.agent_feature_set)
            .map(ReleaseRow::name)
    }

    /// Kubernetes minor version (of 1.x).
    pub fn kubernetes_minor(&self) -> u64 {
        self.row.kubernetes_minor
    }
}

impl ClusterVersion {
    /// The Kubernetes minor version this release ships (from [`RELEASES`]; a release newer
    /// than the table gets the newest row's).
    pub fn kube_minor(&self) -> Option<u64> {
        lookup(self).ok().map(|r| r.kubernetes_minor())
    }
}
